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
//! Compressed bundles (`--offload-compress`, the default of ROCm 6.x/7.x `hipcc`) start with
//! `CCOB` and hold one such bundle, zlib- or zstd-compressed (`compressed.rs`). [`read`] takes
//! either kind. An entry of a compressed bundle has no bytes of its own in the file: it is
//! listed with the byte range of the whole compressed bundle, and found again by its id (ids
//! are unique in a bundle: clang-offload-bundler keys its entry table by them).

use super::bytes;
use super::compressed;
use super::error::show_bytes;
use super::{extract, LoadError};
use crate::target::Processor;
use serde::Serialize;

pub const MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";

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
    /// Byte range of the entry's contents in the input file; for an entry of a compressed
    /// bundle, which has no bytes of its own there, the range of that compressed bundle (the
    /// bytes there start with `CCOB`; [`super::load_entry_at`] decompresses them).
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
    let incomplete = || LoadError::Bundle { offset: base, problem: "incomplete entry table".into() };
    parse_head(data, base, data.len() as u64, false)?.ok_or_else(incomplete)
}

/// [`parse`] of a bundle of `len` bytes of which `data` holds the beginning: the entries'
/// contents are checked against `len`. With `more` (the rest of the bundle is still to come),
/// `Ok(None)` when `data` ends inside an entry table that `len` bytes can hold.
pub(super) fn parse_head(data: &[u8], base: u64, len: u64, more: bool) -> Result<Option<(Vec<BundleEntry>, u64)>, LoadError> {
    let err = |problem: String| LoadError::Bundle { offset: base, problem };
    let short = |need: u64| more && need > data.len() as u64 && need <= len;
    if short(MAGIC.len() as u64 + 8) {
        return Ok(None);
    }
    let count = bytes::u64_at(data, MAGIC.len(), "entry count").map_err(|e| err(e.to_string()))?;
    let mut pos = MAGIC.len() + 8;
    let mut end = pos as u64;
    let mut entries = Vec::new();
    for i in 0..count {
        if short(pos as u64 + 24) {
            return Ok(None);
        }
        let field = |pos: usize, what| bytes::u64_at(data, pos, what).map_err(|e| err(format!("entry {i}: {e}")));
        let (offset, size, id_len) = (field(pos, "offset")?, field(pos + 8, "size")?, field(pos + 16, "id length")?);
        if short((pos as u64 + 24).saturating_add(id_len)) {
            return Ok(None);
        }
        let id =
            bytes::slice(data, pos as u64 + 24, id_len).ok_or_else(|| err(format!("entry {i}: id of {id_len} bytes at {:#x} is past the end", pos + 24)))?;
        pos += 24 + id.len();
        if offset.checked_add(size).is_none_or(|end| end > len) {
            return Err(err(format!("entry {i} ({}): contents {offset:#x}+{size:#x} are past the end ({len:#x} bytes)", show_bytes(id))));
        }
        end = end.max(pos as u64).max(offset + size);
        entries.push(entry(String::from_utf8_lossy(id).into_owned(), base + offset, size));
    }
    Ok(Some((entries, end)))
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

/// The bundle at `data[0]`, plain or compressed (`base`: its offset in the file): its entries
/// and the bytes it occupies. Of a compressed one only the entry table is kept (see
/// `extract.rs`; a v2/v3 one is decoded no further than its table, so its contents and hash
/// are checked when an entry is loaded).
pub fn read(data: &[u8], base: u64) -> Result<(Vec<BundleEntry>, u64), LoadError> {
    if !data.starts_with(compressed::MAGIC) {
        return parse(data, base);
    }
    let listed = extract::extract(data, base, extract::Want::List)?;
    let mut entries = listed.entries;
    for e in &mut entries {
        (e.offset, e.size) = (base, listed.extent);
    }
    Ok((entries, listed.extent))
}

/// Why the decompressed contents whose beginning is `head` are no offload bundle, given the
/// error of parsing them as one (`None` if they do not start with [`MAGIC`]); errors name the
/// compressed bundle at `base`, since the decompressed one has no place in the file.
pub(super) fn unpacked_error(head: &[u8], parsed: Option<LoadError>, base: u64) -> LoadError {
    let problem = match parsed {
        None => {
            let first = head.iter().take(8).map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ");
            format!("the decompressed contents are not an offload bundle (first bytes: {first})")
        }
        Some(LoadError::Bundle { problem, .. }) => format!("decompressed bundle: {problem}"),
        Some(other) => format!("decompressed bundle: {other}"),
    };
    LoadError::CompressedBundle { offset: base, problem }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A bundle of `(id, contents)` entries laid out as clang-offload-bundler writes it (the
    /// table, then the contents in order); the codeobj tests build their inputs with it.
    pub(crate) fn bundle(entries: &[(&str, &[u8])]) -> Vec<u8> {
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
    fn compressed_bundles_list_with_their_own_range() {
        use compressed::tests::{ccob, zlib};
        let plain = bundle(&[("host-x86_64-unknown-linux--", b""), ("hipv4-amdgcn-amd-amdhsa--gfx942", b"ELF!")]);
        let c = ccob(2, 0, &plain, &zlib(&plain));
        let (entries, end) = read(&c, 0x2000).unwrap();
        assert_eq!(end, c.len() as u64);
        let ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["host-x86_64-unknown-linux--", "hipv4-amdgcn-amd-amdhsa--gfx942"]);
        assert!(entries.iter().all(|e| (e.offset, e.size) == (0x2000, c.len() as u64)));
        assert_eq!(entries[1].processor, Some(Processor::Gfx942));
        // A plain bundle reads as `parse` does.
        assert_eq!(read(&plain, 8).unwrap(), parse(&plain, 8).unwrap());
    }

    #[test]
    fn bad_decompressed_contents_name_the_compressed_bundle() {
        use compressed::tests::{ccob, zlib};
        let junk = b"not a bundle at all".to_vec();
        let e = read(&ccob(3, 0, &junk, &zlib(&junk)), 0x40).unwrap_err().to_string();
        assert_eq!(e, "compressed offload bundle at byte 0x40: the decompressed contents are not an offload bundle (first bytes: 6e 6f 74 20 61 20 62 75)");
        let mut plain = bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx942", b"x")]);
        plain[40..48].copy_from_slice(&1000u64.to_le_bytes());
        let e = read(&ccob(1, 0, &plain, &zlib(&plain)), 0x40).unwrap_err().to_string();
        assert!(e.starts_with("compressed offload bundle at byte 0x40: decompressed bundle: entry 0 (hipv4-amdgcn-amd-amdhsa--gfx942): contents"), "{e}");
    }

    #[test]
    fn a_partial_table_waits_for_more_unless_it_cannot_fit() {
        let b = bundle(&[("host-x86_64-unknown-linux--", b""), ("hipv4-amdgcn-amd-amdhsa--gfx942", b"ELF!")]);
        let len = b.len() as u64;
        let whole = parse(&b, 0).unwrap();
        // The table ends where the first contents start (the host entry's are empty).
        let table = b.len() - 4;
        for cut in 0..=b.len() {
            let got = parse_head(&b[..cut], 0, len, true).unwrap_or_else(|e| panic!("cut {cut}: {e}"));
            assert_eq!(got, (cut >= table).then(|| whole.clone()), "cut {cut}");
            // The same bytes taken as the whole bundle are an error.
            assert_eq!(parse(&b[..cut], 0).is_err(), cut < b.len(), "cut {cut}");
        }
        // An id longer than the bundle can hold is an error at once.
        let mut long = b.clone();
        long[48..56].copy_from_slice(&(len + 1).to_le_bytes());
        assert!(parse_head(&long[..60], 0, len, true).is_err());
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
