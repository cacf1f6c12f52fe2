//! Clang offload bundles (the `__CLANG_OFFLOAD_BUNDLE__` container that `clang --offload-arch`
//! writes and `clang-offload-bundler` reads; referenced by AMDGPUUsage "Embedding Bundled Code
//! Objects"):
//!
//! ```text
//! "__CLANG_OFFLOAD_BUNDLE__"  24-byte magic
//! u64 entry count
//! per entry: u64 offset (from the bundle start), u64 size, u64 id length, id bytes
//! ```
//!
//! An id is `<kind>-<triple>-<target id>`, e.g. `hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+` or
//! `host-x86_64-unknown-linux--` (the host entry is usually empty).
//!
//! Compressed bundles (`--offload-compress`) start with `CCOB`, a u16 version and a u16
//! compression method (0 zlib, 1 zstd); we report them with a clear error instead of bundling
//! a decompressor.

use super::bytes;
use super::error::{show, show_bytes};
use super::LoadError;
use crate::target::Processor;
use serde::Serialize;

pub const MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";
pub const COMPRESSED_MAGIC: &[u8] = b"CCOB";

/// One entry of a container, as listed by [`super::list_targets`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BundleEntry {
    /// The entry id as stored (`hipv4-amdgcn-amd-amdhsa--gfx90a`).
    pub id: String,
    /// Offload kind: `hipv4`, `hip`, `openmp`, `host`, ...
    pub kind: String,
    /// Target id for AMDGPU entries (`gfx90a:xnack+`), `None` for host and other triples.
    pub target_id: Option<String>,
    /// The processor of `target_id`, if we know it.
    #[serde(serialize_with = "super::serialize_processor")]
    pub processor: Option<Processor>,
    /// Byte offset of the entry's contents in the input file.
    pub offset: u64,
    pub size: u64,
}

impl BundleEntry {
    /// A device code object we could load.
    pub fn is_amdgpu(&self) -> bool {
        self.target_id.is_some()
    }
}

/// Parse the bundle at `data` (which starts with [`MAGIC`]); `base` is its offset in the file.
/// Returns the entries and the end of the bundle (relative to `data`).
pub fn parse(data: &[u8], base: u64) -> Result<(Vec<BundleEntry>, u64), LoadError> {
    let err = |problem: String| LoadError::Bundle { offset: base, problem };
    let count = bytes::u64_at(data, MAGIC.len(), "entry count").map_err(|e| err(e.to_string()))?;
    let mut pos = MAGIC.len() + 8;
    let mut end = pos as u64;
    let mut entries = Vec::new();
    for i in 0..count {
        let field = |pos: usize, what| bytes::u64_at(data, pos, what).map_err(|e| err(format!("entry {i}: {e}")));
        let (offset, size, id_len) = (field(pos, "offset")?, field(pos + 8, "size")?, field(pos + 16, "id length")?);
        let id =
            bytes::slice(data, pos as u64 + 24, id_len).ok_or_else(|| err(format!("entry {i}: id of {id_len} bytes at {:#x} is past the end", pos + 24)))?;
        pos += 24 + id.len();
        if bytes::slice(data, offset, size).is_none() {
            return Err(err(format!("entry {i} ({}): contents {offset:#x}+{size:#x} are past the end ({:#x} bytes)", show_bytes(id), data.len())));
        }
        end = end.max(pos as u64).max(offset + size);
        entries.push(entry(String::from_utf8_lossy(id).into_owned(), base + offset, size));
    }
    Ok((entries, end))
}

/// Split an id into kind and AMDGPU target id.
fn entry(id: String, offset: u64, size: u64) -> BundleEntry {
    let (kind, rest) = id.split_once('-').unwrap_or((&id, ""));
    // The triple may have an empty environment (`amdgcn-amd-amdhsa-`), hence the trim.
    let target_id = rest.strip_prefix("amdgcn-amd-amdhsa").map(|t| t.trim_start_matches('-').to_string());
    let target_id = target_id.filter(|t| !t.is_empty());
    let processor = target_id.as_deref().and_then(processor_of);
    BundleEntry { kind: kind.to_string(), target_id, processor, offset, size, id }
}

/// `gfx90a:xnack+` → gfx90a; also accepts the v2/v3 `gfx906+xnack` form.
pub fn processor_of(target_id: &str) -> Option<Processor> {
    target_id.split([':', '+']).next()?.parse().ok()
}

/// Describe a compressed bundle header as an error.
pub fn compressed(data: &[u8], base: u64) -> LoadError {
    let version = bytes::u16_at(data, 4, "version").unwrap_or(0);
    let method = match bytes::u16_at(data, 6, "method") {
        Ok(0) => "zlib".to_string(),
        Ok(1) => "zstd".to_string(),
        Ok(m) => format!("compression method {m}"),
        Err(_) => "truncated header".to_string(),
    };
    LoadError::CompressedBundle { offset: base, version, method: show(&method) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundle(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let header: usize = MAGIC.len() + 8 + entries.iter().map(|(id, _)| 24 + id.len()).sum::<usize>();
        let mut out = MAGIC.to_vec();
        out.extend((entries.len() as u64).to_le_bytes());
        let mut at = header as u64;
        for (id, body) in entries {
            out.extend(at.to_le_bytes());
            out.extend((body.len() as u64).to_le_bytes());
            out.extend((id.len() as u64).to_le_bytes());
            out.extend(id.as_bytes());
            at += body.len() as u64;
        }
        for (_, body) in entries {
            out.extend(*body);
        }
        out
    }

    #[test]
    fn parses_ids_and_ranges() {
        let b = bundle(&[("host-x86_64-unknown-linux--", b""), ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", b"ELF!")]);
        let (entries, end) = parse(&b, 100).unwrap();
        assert_eq!(end, b.len() as u64);
        assert_eq!(entries[0].kind, "host");
        assert_eq!(entries[0].target_id, None);
        assert_eq!(entries[1].target_id.as_deref(), Some("gfx90a:xnack+"));
        assert_eq!(entries[1].processor, Some(Processor::Gfx90a));
        assert_eq!(entries[1].offset, 100 + b.len() as u64 - 4);
        // Old-style id without the empty environment.
        assert_eq!(entry("hip-amdgcn-amd-amdhsa-gfx906".into(), 0, 0).target_id.as_deref(), Some("gfx906"));
    }

    #[test]
    fn rejects_bad_counts_and_ranges() {
        let mut b = bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx942", b"x")]);
        b[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(parse(&b, 0).is_err());
        let mut b = bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx942", b"x")]);
        b[40..48].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(parse(&b, 0).is_err());
    }
}
