//! The load pipeline for one AMDGPU ELF: header → sections (laid out) → relocations → notes →
//! metadata → symbols → kernels.

use super::container::{ContainerKind, Source};
use super::elf::{self, HeaderInfo};
use super::image::Image;
use super::kernels::{self, Context};
use super::metadata::{self, Metadata};
use super::notes::{self, Notes};
use super::{reloc, symbols, CodeObject, LoadError, MetadataHeader};
use crate::target::Target;

/// Load a bare AMDGPU ELF code object at load base 0.
pub fn load_elf(data: &[u8]) -> Result<CodeObject, LoadError> {
    load_elf_at(data, 0)
}

/// Load a bare AMDGPU ELF code object with every address offset by `base` (relocations
/// applied for that base): how a runtime maps several code objects side by side.
pub fn load_elf_at(data: &[u8], base: u64) -> Result<CodeObject, LoadError> {
    let (header, info) = elf::parse_header(data)?;
    let mut image = Image::new(header, data, info.elf_type, base)?;
    let mut warnings = reloc::apply_all(&mut image)?;
    let notes = notes::collect(&image.table, data)?;
    let target = target(&info, &notes)?;
    let metadata = parse_metadata(&info, &notes)?;
    if metadata.is_none() {
        warnings.push("no metadata note: kernel names come from symbols and kernarg layouts are unknown".into());
    }
    let symbols = symbols::read(&image)?;
    let cx = Context { image: &image, symbols: &symbols, family: target.processor.family(), version: info.version };
    let kernels = kernels::collect(&cx, metadata.as_ref())?;
    let code_symbols = symbols::code_symbols(&image, &symbols);
    let data_symbols = symbols::data_symbols(&image, &symbols);
    // Line tables only name source lines in reports: unreadable ones are a warning.
    let lines = super::lines::LineTable::of(data).map(|t| t.shifted(base)).unwrap_or_else(|e| {
        warnings.push(format!("DWARF line tables not read: {e}"));
        super::lines::LineTable::default()
    });
    Ok(CodeObject {
        target,
        code_object_version: info.version,
        elf_type: info.elf_type,
        load_base: base,
        e_flags: info.e_flags,
        generic_version: elf::generic_version(&info),
        source: Source { container: ContainerKind::CodeObject, entry: None, offset: 0, size: data.len() as u64 },
        isa_version_note: notes.isa_version.clone(),
        metadata: metadata.map(|m| MetadataHeader { format: m.format, version: m.version, target: m.target, printf: m.printf }),
        sections: image.sections,
        code_symbols,
        data_symbols,
        kernels,
        warnings,
        lines,
    })
}

/// v2 objects name their processor in a note; later ones in `e_flags`.
fn target(info: &HeaderInfo, notes: &Notes) -> Result<Target, LoadError> {
    if info.version == 2 {
        elf::target_from_v2_notes(notes)
    } else {
        elf::target_from_flags(info)
    }
}

/// The metadata notes that belong to this code object version, merged into one.
fn parse_metadata(info: &HeaderInfo, notes: &Notes) -> Result<Option<Metadata>, LoadError> {
    let (found, kind) = if info.version == 2 { (&notes.yaml_metadata, "NT_AMD_HSA_METADATA") } else { (&notes.msgpack_metadata, "NT_AMDGPU_METADATA") };
    let mut merged: Option<Metadata> = None;
    for note in found {
        let parsed = if info.version == 2 { metadata::parse_yaml(note.desc) } else { metadata::parse_msgpack(note.desc) }?;
        merged = Some(match merged {
            None => parsed,
            Some(first) => metadata::merge(first, parsed).map_err(|problem| note.error(kind, problem))?,
        });
    }
    Ok(merged)
}

/// Target of a bare code object from its header (and, for v2, its notes) only.
pub fn probe_target(data: &[u8]) -> Result<Target, LoadError> {
    let (header, info) = elf::parse_header(data)?;
    if info.version != 2 {
        return elf::target_from_flags(&info);
    }
    let table = object::read::elf::FileHeader::sections(header, object::LittleEndian, data).map_err(|e| LoadError::elf("section headers", e))?;
    elf::target_from_v2_notes(&notes::collect(&table, data)?)
}
