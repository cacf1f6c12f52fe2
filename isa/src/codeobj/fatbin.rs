//! HIP host executables and objects: the device code is an offload bundle (one per translation
//! unit, concatenated) in the `.hip_fatbin` section, which the `__hipRegisterFatBinary` call
//! that clang emits hands to the runtime. Each bundle is plain or compressed (`CCOB`, with
//! `--offload-compress`), each starts 4096-aligned (the section's alignment in every object),
//! and the gaps are zeros.

use super::bundle::{self, BundleEntry};
use super::compressed;
use super::elf::{self, EM_AMDGPU};
use super::error::show_bytes;
use super::LoadError;
use object::elf::FileHeader64;
use object::read::elf::{FileHeader, SectionHeader};
use object::LittleEndian;

pub const SECTION: &[u8] = b".hip_fatbin";

/// Entries of every bundle in the `.hip_fatbin` section of a little-endian ELF64 host file
/// (of a compressed bundle, only its entry table is decoded and kept: see `bundle::read`).
pub fn entries(data: &[u8]) -> Result<Vec<BundleEntry>, LoadError> {
    let (body, base) = fatbin_section(data)?;
    let mut entries = Vec::new();
    let mut pos = 0usize;
    while let Some(start) = find_bundle(body, pos) {
        let here = body.get(start..).unwrap_or_default();
        let at = base + start as u64;
        let (found, end) = bundle::read(here, at)?;
        entries.extend(found);
        pos = start.saturating_add(usize::try_from(end).unwrap_or(usize::MAX)).max(start + 1);
    }
    if entries.is_empty() {
        return Err(LoadError::HostExecutable(format!("{} holds no offload bundle", show_bytes(SECTION))));
    }
    Ok(entries)
}

/// The `.hip_fatbin` contents and their file offset.
fn fatbin_section(data: &[u8]) -> Result<(&[u8], u64), LoadError> {
    let endian = LittleEndian;
    let header = FileHeader64::<LittleEndian>::parse(data).map_err(|e| LoadError::elf("header of host file", e))?;
    let sections = header.sections(endian, data).map_err(|e| LoadError::elf("section headers of host file", e))?;
    let Some((_, section)) = sections.section_by_name(endian, SECTION) else {
        let machine = header.e_machine(endian).0;
        // The new offload driver puts device code in `.llvm.offloading` instead.
        let why = if sections.section_by_name(endian, b".llvm.offloading").is_some() {
            format!("has .llvm.offloading instead of {}: built with the new offload driver, which is not supported", show_bytes(SECTION))
        } else {
            format!("has no {} section: neither an AMDGPU code object nor a HIP program", show_bytes(SECTION))
        };
        return Err(LoadError::header(format!("e_machine is {machine} ({}), not {EM_AMDGPU} (EM_AMDGPU), and the file {why}", elf::machine_name(machine))));
    };
    let body = section.data(endian, data).map_err(|e| LoadError::elf(".hip_fatbin", e))?;
    let (offset, _) = section.file_range(endian).unwrap_or((0, 0));
    Ok((body, offset))
}

/// Next bundle (plain or compressed) at or after `from`. Bundles are section-aligned, so
/// scanning 8-byte steps is enough and avoids matching inside a bundle's id strings.
fn find_bundle(body: &[u8], from: usize) -> Option<usize> {
    let mut at = from.checked_next_multiple_of(8)?;
    while at < body.len() {
        let rest = body.get(at..)?;
        if rest.starts_with(bundle::MAGIC) || rest.starts_with(compressed::MAGIC) {
            return Some(at);
        }
        at += 8;
    }
    None
}
