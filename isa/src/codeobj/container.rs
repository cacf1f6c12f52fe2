//! What kind of file this is (code object, offload bundle, HIP host file) and which code object
//! inside it to load.

use super::bundle::{self, BundleEntry};
use super::elf::{self, EM_AMDGPU};
use super::error::show;
use super::{fatbin, LoadError};
use crate::target::Processor;
use serde::Serialize;

const ELF_MAGIC: &[u8] = b"\x7fELF";

/// The kind of input file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ContainerKind {
    /// A bare AMDGPU ELF code object.
    CodeObject,
    /// A `__CLANG_OFFLOAD_BUNDLE__` file.
    OffloadBundle,
    /// A host ELF (executable, shared library or object) with a `.hip_fatbin` section.
    HostExecutable,
}

/// Where the loaded code object came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Source {
    pub container: ContainerKind,
    /// The bundle entry id, for bundles and host files.
    pub entry: Option<String>,
    /// Byte range of the code object in the input file.
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
    if data.starts_with(bundle::COMPRESSED_MAGIC) {
        return Err(bundle::compressed(data, 0));
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
pub fn select<'d>(data: &'d [u8], wanted: Option<&str>) -> Result<(&'d [u8], Source), LoadError> {
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
    let [one] = chosen.as_slice() else {
        return Err(LoadError::TargetRequired { available: available(&chosen) });
    };
    let bytes = bytes_of(data, one)?;
    let entry = (container != ContainerKind::CodeObject).then(|| one.id.clone());
    Ok((bytes, Source { container, entry, offset: one.offset, size: one.size }))
}

fn bytes_of<'d>(data: &'d [u8], e: &BundleEntry) -> Result<&'d [u8], LoadError> {
    super::bytes::slice(data, e.offset, e.size).ok_or_else(|| LoadError::Bundle { offset: e.offset, problem: "entry is past the end of the file".into() })
}
