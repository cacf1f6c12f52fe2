//! What kind of file this is (code object, offload bundle, compressed bundle, HIP host file)
//! and which code object inside it to load.
//!
//! An entry of a compressed bundle exists only once decompressed, so the chosen code object's
//! bytes are borrowed from the input or, for such an entry, owned ([`Cow`]). Listing decodes
//! a compressed bundle's entry table only; loading decodes the whole bundle again and keeps
//! the chosen entry alone (`extract.rs`).

use super::bundle::{self, BundleEntry};
use super::elf::{self, EM_AMDGPU};
use super::error::show;
use super::extract::{self, Want};
use super::{compressed, fatbin, LoadError};
use crate::target::Processor;
use serde::Serialize;
use std::borrow::Cow;

const ELF_MAGIC: &[u8] = b"\x7fELF";

/// The kind of input file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ContainerKind {
    /// A bare AMDGPU ELF code object.
    CodeObject,
    /// A `__CLANG_OFFLOAD_BUNDLE__` file.
    OffloadBundle,
    /// A compressed bundle (`CCOB`) file.
    CompressedOffloadBundle,
    /// A host ELF (executable, shared library or object) with a `.hip_fatbin` section.
    HostExecutable,
}

/// Where the loaded code object came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Source {
    pub container: ContainerKind,
    /// The bundle entry id, for bundles and host files.
    pub entry: Option<String>,
    /// Byte range of the code object in the input file; for an entry of a compressed bundle,
    /// the range of that compressed bundle (as in [`BundleEntry::offset`]).
    pub offset: u64,
    pub size: u64,
}

/// The kind of file and its entries. A bare code object is one synthetic entry.
pub fn entries(data: &[u8]) -> Result<(ContainerKind, Vec<BundleEntry>), LoadError> {
    if data.is_empty() {
        return Err(LoadError::Empty);
    }
    if data.starts_with(bundle::MAGIC) {
        return Ok((ContainerKind::OffloadBundle, bundle::parse(data, 0)?.0));
    }
    if data.starts_with(compressed::MAGIC) {
        return Ok((ContainerKind::CompressedOffloadBundle, bundle::read(data, 0)?.0));
    }
    if !data.starts_with(ELF_MAGIC) {
        let magic = data.iter().take(8).map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ");
        return Err(LoadError::UnknownFormat { magic });
    }
    elf::check_ident(data)?;
    if data.get(18..20) == Some(&EM_AMDGPU.to_le_bytes()[..]) {
        let target = super::probe_target(data)?;
        let entry = BundleEntry {
            id: format!("code object {}", target.target_id()),
            kind: "code_object".into(),
            target_id: Some(target.target_id()),
            processor: Some(target.processor),
            offset: 0,
            size: data.len() as u64,
        };
        return Ok((ContainerKind::CodeObject, vec![entry]));
    }
    Ok((ContainerKind::HostExecutable, fatbin::entries(data)?))
}

/// The kind of a file from its first bytes alone (no entry is read).
fn kind_of(data: &[u8]) -> ContainerKind {
    if data.starts_with(bundle::MAGIC) {
        ContainerKind::OffloadBundle
    } else if data.starts_with(compressed::MAGIC) {
        ContainerKind::CompressedOffloadBundle
    } else if data.starts_with(ELF_MAGIC) && data.get(18..20) == Some(&EM_AMDGPU.to_le_bytes()[..]) {
        ContainerKind::CodeObject
    } else {
        ContainerKind::HostExecutable
    }
}

/// A user's target request: a processor (alias allowed) and optional target-id features.
struct Wanted<'w> {
    text: &'w str,
    processor: Processor,
    features: Option<Vec<&'w str>>,
}

impl<'w> Wanted<'w> {
    fn parse(text: &'w str, available: &str) -> Result<Wanted<'w>, LoadError> {
        let processor = text.parse::<Processor>().map_err(|_| LoadError::TargetNotFound { wanted: show(text), available: available.to_string() })?;
        let features = text.contains(':').then(|| sorted_features(text));
        Ok(Wanted { text, processor, features })
    }

    fn matches(&self, entry: &BundleEntry) -> bool {
        let Some(tid) = entry.target_id.as_deref() else {
            return false;
        };
        entry.processor == Some(self.processor) && self.features.as_ref().is_none_or(|f| *f == sorted_features(tid))
    }
}

fn sorted_features(target_id: &str) -> Vec<&str> {
    let mut f: Vec<&str> = target_id.split(':').skip(1).filter(|s| !s.is_empty()).collect();
    f.sort_unstable();
    f
}

/// Device entries, comma-separated, for messages.
fn available(entries: &[&BundleEntry]) -> String {
    let list: Vec<String> = entries.iter().filter_map(|e| e.target_id.as_deref()).map(show).collect();
    if list.is_empty() {
        "none".into()
    } else {
        list.join(", ")
    }
}

/// Choose the code object to load: the one matching `wanted`, or the only one.
pub fn select<'d>(data: &'d [u8], wanted: Option<&str>) -> Result<(Cow<'d, [u8]>, Source), LoadError> {
    let (container, chosen) = candidates(data, wanted)?;
    let [one] = chosen.as_slice() else {
        return Err(LoadError::TargetRequired { available: available(&chosen.iter().collect::<Vec<_>>()) });
    };
    let bytes = bytes_of(data, one)?;
    let entry = (container != ContainerKind::CodeObject).then(|| one.id.clone());
    Ok((bytes, Source { container, entry, offset: one.offset, size: one.size }))
}

/// The device entries of `data` that `wanted` (a target, as for [`select`]) names, in file
/// order; all device entries without it. Never empty.
pub fn candidates(data: &[u8], wanted: Option<&str>) -> Result<(ContainerKind, Vec<BundleEntry>), LoadError> {
    let (container, entries) = entries(data)?;
    let device: Vec<&BundleEntry> = entries.iter().filter(|e| e.is_amdgpu()).collect();
    let list = available(&device);
    if device.is_empty() {
        let ids: Vec<String> = entries.iter().map(|e| show(&e.id)).collect();
        return Err(LoadError::NoDeviceCode { entries: ids.join(", ") });
    }
    let chosen: Vec<&BundleEntry> = match wanted {
        Some(w) => {
            let w = Wanted::parse(w, &list)?;
            let found: Vec<&BundleEntry> = device.iter().copied().filter(|e| w.matches(e)).collect();
            if found.is_empty() {
                return Err(LoadError::TargetNotFound { wanted: show(w.text), available: list });
            }
            found
        }
        None => device,
    };
    Ok((container, chosen.into_iter().cloned().collect()))
}

/// The bytes and source of one entry as [`entries`] listed it (for a caller that loads
/// entries one by one): borrowed from `data`, or, for an entry of a compressed bundle (one
/// whose range starts with `CCOB`), taken from that bundle, decoded again for each call.
pub fn select_entry<'d>(data: &'d [u8], e: &BundleEntry) -> Result<(Cow<'d, [u8]>, Source), LoadError> {
    let bytes = bytes_of(data, e)?;
    let container = kind_of(data);
    let entry = (container != ContainerKind::CodeObject).then(|| e.id.clone());
    Ok((bytes, Source { container, entry, offset: e.offset, size: e.size }))
}

fn bytes_of<'d>(data: &'d [u8], e: &BundleEntry) -> Result<Cow<'d, [u8]>, LoadError> {
    let past = || LoadError::Bundle { offset: e.offset, problem: "entry is past the end of the file".into() };
    let here = super::bytes::slice(data, e.offset, e.size).ok_or_else(past)?;
    if !here.starts_with(compressed::MAGIC) {
        return Ok(Cow::Borrowed(here));
    }
    // An entry of a compressed bundle: `here` is that bundle (see `BundleEntry::offset`).
    let found = extract::extract(here, e.offset, Want::Entries(&[e.id.as_str()]))?;
    match found.kept.into_iter().next() {
        Some((_, bytes)) => Ok(Cow::Owned(bytes)),
        None => Err(LoadError::CompressedBundle { offset: e.offset, problem: format!("holds no entry {}", show(&e.id)) }),
    }
}

/// The bytes the bundle (plain or compressed) at `data[0]` occupies; `data` may run past it.
pub fn bundle_extent(data: &[u8]) -> Result<u64, LoadError> {
    if data.starts_with(bundle::MAGIC) {
        Ok(bundle::parse(data, 0)?.1)
    } else if data.starts_with(compressed::MAGIC) {
        compressed::extent(data, 0)
    } else {
        Err(not_a_bundle(data))
    }
}

/// An entry of a bundle and its contents ([`bundle_entries`]).
pub type EntryBytes<'d> = (BundleEntry, Cow<'d, [u8]>);

/// The entries with ids `ids` of the bundle (plain or compressed) at `data[0]` (which may run
/// past its end), in bundle order, each with its contents; ids it lacks are left out. Entries
/// are as [`super::list_targets`] lists them (of a compressed bundle: its range). A plain
/// bundle's contents are borrowed; of a compressed one, only the wanted entries are kept
/// while it is decoded, and its size and hash are checked.
pub fn bundle_entries<'d>(data: &'d [u8], ids: &[&str]) -> Result<Vec<EntryBytes<'d>>, LoadError> {
    if data.starts_with(bundle::MAGIC) {
        let (entries, _) = bundle::parse(data, 0)?;
        let mut out: Vec<EntryBytes<'d>> = Vec::new();
        for e in entries {
            if ids.contains(&e.id.as_str()) && !out.iter().any(|(o, _)| o.id == e.id) {
                // `parse` checked the range against `data`.
                let bytes = super::bytes::slice(data, e.offset, e.size).unwrap_or_default();
                out.push((e, Cow::Borrowed(bytes)));
            }
        }
        return Ok(out);
    }
    if !data.starts_with(compressed::MAGIC) {
        return Err(not_a_bundle(data));
    }
    let found = extract::extract(data, 0, Want::Entries(ids))?;
    let listed = |i: usize| found.entries.get(i).map(|e| BundleEntry { offset: 0, size: found.extent, ..e.clone() });
    Ok(found.kept.into_iter().filter_map(|(i, bytes)| Some((listed(i)?, Cow::Owned(bytes)))).collect())
}

/// Check that `data` starts with a bundle, for the functions that take nothing else.
pub fn expect_bundle(data: &[u8]) -> Result<(), LoadError> {
    if data.starts_with(bundle::MAGIC) || data.starts_with(compressed::MAGIC) {
        Ok(())
    } else {
        Err(not_a_bundle(data))
    }
}

fn not_a_bundle(data: &[u8]) -> LoadError {
    let magic = data.iter().take(8).map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ");
    LoadError::Bundle { offset: 0, problem: format!("does not start with __CLANG_OFFLOAD_BUNDLE__ or CCOB (first bytes: {magic})") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codeobj::bundle::tests::bundle;
    use crate::codeobj::compressed::tests::{ccob, zlib};

    const A: &str = "hipv4-amdgcn-amd-amdhsa--gfx90a";
    const B: &str = "hipv4-amdgcn-amd-amdhsa--gfx1100";

    #[test]
    fn selects_from_a_compressed_bundle() {
        let plain = bundle(&[("host-x86_64-unknown-linux--", b""), (A, b"first code object"), (B, b"second")]);
        let c = ccob(3, 0, &plain, &zlib(&plain));
        let (kind, entries) = entries(&c).unwrap();
        assert_eq!((kind, entries.len()), (ContainerKind::CompressedOffloadBundle, 3));
        let (bytes, source) = select(&c, Some("gfx1100")).unwrap();
        assert!(matches!(bytes, Cow::Owned(_)));
        assert_eq!(&*bytes, b"second");
        assert_eq!(source, Source { container: ContainerKind::CompressedOffloadBundle, entry: Some(B.into()), offset: 0, size: c.len() as u64 });
        // Entry by entry, as a caller of `list_targets` does.
        let (bytes, source) = select_entry(&c, &entries[1]).unwrap();
        assert_eq!((&*bytes, source.entry.as_deref()), (&b"first code object"[..], Some(A)));
        assert!(matches!(select(&c, None), Err(LoadError::TargetRequired { .. })));
    }

    #[test]
    fn select_entry_borrows_plain_entries_and_checks_forged_ones() {
        let plain = bundle(&[(A, b"code")]);
        let (_, entries) = entries(&plain).unwrap();
        let (bytes, source) = select_entry(&plain, &entries[0]).unwrap();
        assert!(matches!(bytes, Cow::Borrowed(b"code")));
        assert_eq!(source.container, ContainerKind::OffloadBundle);
        // An entry that is not in the compressed bundle its range points at.
        let c = ccob(2, 0, &plain, &zlib(&plain));
        let mut e = entries[0].clone();
        (e.offset, e.size, e.id) = (0, c.len() as u64, B.into());
        let err = select_entry(&c, &e).unwrap_err().to_string();
        assert_eq!(err, format!("compressed offload bundle at byte 0x0: holds no entry {B}"));
        e.size += 1;
        assert!(select_entry(&c, &e).unwrap_err().to_string().contains("past the end of the file"));
    }

    #[test]
    fn one_bundle_at_the_start_of_a_longer_buffer() {
        let plain = bundle(&[(A, b"code")]);
        let c = ccob(1, 0, &plain, &zlib(&plain));
        for (b, len) in [(&plain, plain.len()), (&c, c.len())] {
            let mut longer = b.clone();
            longer.extend([0u8; 64]);
            longer.extend(&plain);
            assert_eq!(bundle_extent(&longer).unwrap(), len as u64);
            let got = bundle_entries(&longer, &[A, B]).unwrap();
            assert_eq!(got.iter().map(|(e, b)| (e.id.as_str(), &**b)).collect::<Vec<_>>(), [(A, &b"code"[..])]);
            assert!(expect_bundle(&longer).is_ok());
        }
        let elf = b"\x7fELF\x02\x01\x01\0";
        let want = "offload bundle at byte 0x0: does not start with __CLANG_OFFLOAD_BUNDLE__ or CCOB (first bytes: 7f 45 4c 46 02 01 01 00)";
        assert_eq!(bundle_extent(elf).unwrap_err().to_string(), want);
        assert_eq!(bundle_entries(elf, &[A]).unwrap_err().to_string(), want);
        assert!(expect_bundle(elf).is_err());
        assert_eq!(kind_of(elf), ContainerKind::HostExecutable);
        assert_eq!(kind_of(&c), ContainerKind::CompressedOffloadBundle);
    }
}
