//! ELF note records (AMDGPUUsage, "Note Records"): the v2 `"AMD"` notes and the v3+ `"AMDGPU"`
//! metadata note. Only the raw descriptors are kept here; [`super::metadata`] decodes them.

use super::bytes;
use super::elf::Header;
use super::error::show_bytes;
use super::LoadError;
use object::read::elf::{SectionHeader, SectionTable};
use object::LittleEndian;
use serde::Serialize;

/// Note types (tables "AMDGPU Code Object V2 ELF Note Record Enumeration Values" and
/// "AMDGPU Code Object V3 and Above ELF Note Record Enumeration Values").
const NT_AMD_HSA_CODE_OBJECT_VERSION: u32 = 1;
const NT_AMD_HSA_ISA_VERSION: u32 = 3;
const NT_AMD_HSA_METADATA: u32 = 10;
const NT_AMD_HSA_ISA_NAME: u32 = 11;
const NT_AMDGPU_METADATA: u32 = 32;

/// `NT_AMD_HSA_ISA_VERSION` (`amdgpu_hsa_note_isa_s`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IsaVersion {
    pub vendor: String,
    pub architecture: String,
    pub major: u32,
    pub minor: u32,
    pub stepping: u32,
}

/// A note descriptor and where it is (section name, offset of the descriptor in the section).
#[derive(Debug, Clone, Copy)]
pub struct Located<'a> {
    pub desc: &'a [u8],
    pub section: &'a [u8],
    pub offset: u64,
}

/// The notes the loader cares about. A version or ISA note may appear more than once only
/// with the same descriptor bytes (linkers can keep identical copies); two that differ would
/// leave the target ambiguous, so they are an error naming the second one's place. Metadata
/// notes may differ: a code object linked from several objects (`ld.lld -shared a.o b.o`, as
/// Tensile builds rocBLAS's kernel libraries) keeps each object's note, each naming its own
/// kernels, and the loader merges them as ROCm's code object manager does.
#[derive(Debug, Default)]
pub struct Notes<'a> {
    pub code_object_version: Option<[u32; 2]>,
    pub isa_version: Option<IsaVersion>,
    pub isa_name: Option<String>,
    /// Every distinct YAML (v2) metadata note, in file order.
    pub yaml_metadata: Vec<Located<'a>>,
    /// Every distinct MessagePack (v3+) metadata note, in file order.
    pub msgpack_metadata: Vec<Located<'a>>,
    /// The first descriptor of the version and ISA kinds, to compare repeats with.
    first: [Option<Located<'a>>; 3],
}

pub fn collect<'a>(sections: &SectionTable<'a, Header>, data: &'a [u8]) -> Result<Notes<'a>, LoadError> {
    let endian = LittleEndian;
    let mut notes = Notes::default();
    for section in sections.iter() {
        let Some(mut iter) = section.notes(endian, data).map_err(|e| LoadError::elf("notes", e))? else {
            continue;
        };
        let name = sections.section_name(endian, section).unwrap_or(b"?");
        let body = section.data(endian, data).unwrap_or_default();
        while let Some(note) = iter.next().map_err(|e| note_error(name, "record", 0, e.to_string()))? {
            let desc = note.desc();
            let offset = (desc.as_ptr() as usize).wrapping_sub(body.as_ptr() as usize) as u64;
            let at = Located { desc, section: name, offset };
            notes.add(note.name(), note.n_type(endian).0, at)?;
        }
    }
    Ok(notes)
}

fn note_error(section: &[u8], note: &str, offset: u64, problem: String) -> LoadError {
    LoadError::Note { section: show_bytes(section), note: note.to_string(), offset, problem }
}

/// The note kinds [`Notes`] keeps, with their names for errors.
const KINDS: [(&[u8], u32, &str); 5] = [
    (b"AMD", NT_AMD_HSA_CODE_OBJECT_VERSION, "NT_AMD_HSA_CODE_OBJECT_VERSION"),
    (b"AMD", NT_AMD_HSA_ISA_VERSION, "NT_AMD_HSA_ISA_VERSION"),
    (b"AMD", NT_AMD_HSA_ISA_NAME, "NT_AMD_HSA_ISA_NAME"),
    (b"AMD", NT_AMD_HSA_METADATA, "NT_AMD_HSA_METADATA"),
    (b"AMDGPU", NT_AMDGPU_METADATA, "NT_AMDGPU_METADATA"),
];

impl<'a> Notes<'a> {
    fn add(&mut self, owner: &[u8], n_type: u32, at: Located<'a>) -> Result<(), LoadError> {
        let Some(kind) = KINDS.iter().position(|&(o, t, _)| o == owner && t == n_type) else { return Ok(()) };
        if kind >= 3 {
            let seen = if kind == 3 { &mut self.yaml_metadata } else { &mut self.msgpack_metadata };
            if !seen.iter().any(|n| n.desc == at.desc) {
                seen.push(at);
            }
            return Ok(());
        }
        if let Some(first) = self.first[kind] {
            if first.desc == at.desc {
                return Ok(());
            }
            let problem = format!("a second {} note differs from the first ({}+{:#x})", KINDS[kind].2, show_bytes(first.section), first.offset);
            return Err(at.error(KINDS[kind].2, problem));
        }
        self.first[kind] = Some(at);
        match kind {
            0 => {
                let v = |o, f| bytes::u32_at(at.desc, o, f).map_err(|e| at.error("NT_AMD_HSA_CODE_OBJECT_VERSION", e));
                self.code_object_version = Some([v(0, "major_version")?, v(4, "minor_version")?]);
            }
            1 => self.isa_version = Some(isa_version(&at)?),
            2 => {
                let text = at.desc.split(|&b| b == 0).next().unwrap_or_default();
                self.isa_name = Some(String::from_utf8_lossy(text).into_owned());
            }
            _ => {}
        }
        Ok(())
    }
}

impl Located<'_> {
    /// An error about this note (named `note`): its section and offset, and the problem.
    pub(super) fn error(&self, note: &str, problem: impl ToString) -> LoadError {
        note_error(self.section, note, self.offset, problem.to_string())
    }
}

/// `u16 vendor_name_size, u16 architecture_name_size, u32 major, minor, stepping`, then the
/// two NUL-terminated names.
fn isa_version(at: &Located) -> Result<IsaVersion, LoadError> {
    const NOTE: &str = "NT_AMD_HSA_ISA_VERSION";
    let d = at.desc;
    let e = |err| at.error(NOTE, err);
    let vendor_len = usize::from(bytes::u16_at(d, 0, "vendor_name_size").map_err(e)?);
    let arch_len = usize::from(bytes::u16_at(d, 2, "architecture_name_size").map_err(e)?);
    let name = |start: usize, len: usize, field: &str| {
        bytes::slice(d, start as u64, len as u64)
            .map(|b| show_bytes(b.split(|&c| c == 0).next().unwrap_or_default()))
            .ok_or_else(|| at.error(NOTE, format!("{field} ({len} bytes at {start}) is past the end ({} bytes)", d.len())))
    };
    Ok(IsaVersion {
        major: bytes::u32_at(d, 4, "major").map_err(e)?,
        minor: bytes::u32_at(d, 8, "minor").map_err(e)?,
        stepping: bytes::u32_at(d, 12, "stepping").map_err(e)?,
        vendor: name(16, vendor_len, "vendor name")?,
        architecture: name(16 + vendor_len, arch_len, "architecture name")?,
    })
}
