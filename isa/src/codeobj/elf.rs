//! ELF header checks and the target they imply (AMDGPUUsage, "ELF Code Object" → "Header").

use super::notes::Notes;
use super::LoadError;
use crate::target::{FeatureSetting, Processor, Target};
use object::elf::FileHeader64;
use object::read::elf::FileHeader;
use object::LittleEndian;
use serde::Serialize;

pub type Header = FileHeader64<LittleEndian>;

pub const EM_AMDGPU: u16 = 224;
pub const ELFOSABI_AMDGPU_HSA: u8 = 64;
const ET_REL: u16 = 1;
const ET_DYN: u16 = 3;
const EI_CLASS: usize = 4;
const EI_DATA: usize = 5;
const EI_OSABI: usize = 7;
const EI_ABIVERSION: usize = 8;
const ELFCLASS64: u8 = 2;
const ELFDATA2LSB: u8 = 1;

/// Check the identification bytes every ELF we read must have: 64-bit and little-endian.
/// AMDGPU code objects are `ELFCLASS64`/`ELFDATA2LSB` (AMDGPUUsage, "Header"), and so are the
/// x86-64 and AArch64 hosts that carry HIP programs. The byte is checked before the rest, so a
/// big-endian file is never read as little-endian.
pub fn check_ident(data: &[u8]) -> Result<(), LoadError> {
    let (Some(&class), Some(&order)) = (data.get(EI_CLASS), data.get(EI_DATA)) else {
        return Err(LoadError::header(format!("{} bytes: too short for the ELF identification", data.len())));
    };
    match order {
        ELFDATA2LSB => {}
        2 => {
            return Err(LoadError::header(format!(
                "EI_DATA (byte {EI_DATA}) is 2 (ELFDATA2MSB): a big-endian ELF; AMDGPU code objects and HIP host files are little-endian"
            )))
        }
        d => return Err(LoadError::header(format!("EI_DATA (byte {EI_DATA}) is {d}, expected 1 (ELFDATA2LSB, little-endian)"))),
    }
    if class != ELFCLASS64 {
        let what = if class == 1 { " (ELFCLASS32, a 32-bit ELF)" } else { "" };
        return Err(LoadError::header(format!("EI_CLASS (byte {EI_CLASS}) is {class}{what}, expected 2 (ELFCLASS64)")));
    }
    Ok(())
}

/// The architecture an `e_machine` value names (System V gABI "ELF Header" table; the common
/// ones only), for errors about files that are not AMDGPU objects.
pub fn machine_name(machine: u16) -> &'static str {
    match machine {
        0 => "no machine, EM_NONE",
        3 => "x86, EM_386",
        8 => "MIPS, EM_MIPS",
        20 => "PowerPC, EM_PPC",
        21 => "PowerPC64, EM_PPC64",
        40 => "Arm, EM_ARM",
        62 => "x86-64, EM_X86_64",
        183 => "AArch64, EM_AARCH64",
        190 => "NVIDIA CUDA, EM_CUDA",
        224 => "AMDGPU, EM_AMDGPU",
        243 => "RISC-V, EM_RISCV",
        247 => "BPF, EM_BPF",
        _ => "unknown machine",
    }
}

/// `e_flags` fields (tables "AMDGPU ELF Header e_flags for Code Object V3 / V4 and V5 / V6 and
/// After").
const EF_AMDGPU_MACH: u32 = 0x0ff;
const EF_AMDGPU_FEATURE_XNACK_V3: u32 = 0x100;
const EF_AMDGPU_FEATURE_SRAMECC_V3: u32 = 0x200;
const EF_AMDGPU_GENERIC_VERSION_SHIFT: u32 = 24;

/// `EF_AMDGPU_GENERIC_VERSION` (v6+; 0 for non-generic targets, whose objects are all we load:
/// generic processors have their own `EF_AMDGPU_MACH` values, unknown to [`Processor`]).
pub fn generic_version(info: &HeaderInfo) -> u32 {
    if info.version >= 6 {
        info.e_flags >> EF_AMDGPU_GENERIC_VERSION_SHIFT
    } else {
        0
    }
}

/// Relocatable (`clang -c`, `hipcc --save-temps`) or linked (`ld.lld -shared`) code object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ElfType {
    /// `ET_REL`: sections have no addresses; the loader lays them out (see `layout.rs`).
    Relocatable,
    /// `ET_DYN`: what the ROCr loader accepts.
    Shared,
}

/// What the header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeaderInfo {
    pub elf_type: ElfType,
    /// Code object version 2..=6 (from `EI_ABIVERSION`: v2 = 0, v3 = 1, ... v6 = 4).
    pub version: u32,
    pub e_flags: u32,
}

/// Parse the header and check it is a 64-bit little-endian AMDGPU HSA code object.
pub fn parse_header(data: &[u8]) -> Result<(&Header, HeaderInfo), LoadError> {
    if data.starts_with(b"\x7fELF") {
        check_ident(data)?;
    }
    let header = Header::parse(data).map_err(|e| LoadError::elf("header", e))?;
    let endian = LittleEndian;
    let machine = header.e_machine(endian).0;
    if machine != EM_AMDGPU {
        return Err(LoadError::header(format!("e_machine is {machine} ({}), expected {EM_AMDGPU} (EM_AMDGPU)", machine_name(machine))));
    }
    let ident = header.e_ident();
    let osabi = ident.os_abi.0;
    if osabi != ELFOSABI_AMDGPU_HSA {
        return Err(LoadError::header(format!(
            "EI_OSABI (byte {EI_OSABI}) is {osabi}, expected {ELFOSABI_AMDGPU_HSA} (ELFOSABI_AMDGPU_HSA); PAL and Mesa objects are not supported"
        )));
    }
    let abi = ident.abi_version;
    let version = match abi {
        0..=4 => u32::from(abi) + 2,
        _ => return Err(LoadError::header(format!("EI_ABIVERSION (byte {EI_ABIVERSION}) is {abi}; known: 0..4 (code object v2..v6)"))),
    };
    let elf_type = match header.e_type(endian).0 {
        ET_REL => ElfType::Relocatable,
        ET_DYN => ElfType::Shared,
        t => return Err(LoadError::header(format!("e_type is {t}, expected ET_REL (1) or ET_DYN (3)"))),
    };
    Ok((header, HeaderInfo { elf_type, version, e_flags: header.e_flags(endian).0 }))
}

/// Target of a v3+ object from `e_flags`.
pub fn target_from_flags(info: &HeaderInfo) -> Result<Target, LoadError> {
    let flags = info.e_flags;
    let mach = flags & EF_AMDGPU_MACH;
    let processor = Processor::from_elf_mach(mach)
        .ok_or_else(|| LoadError::header(format!("e_flags {flags:#x}: EF_AMDGPU_MACH {mach:#04x} is not a supported processor")))?;
    let (xnack, sramecc) = if info.version == 3 {
        // v3 has single on/off bits (table "... e_flags for Code Object V3").
        let on = |bit| {
            if flags & bit != 0 {
                FeatureSetting::On
            } else {
                FeatureSetting::Off
            }
        };
        (on(EF_AMDGPU_FEATURE_XNACK_V3), on(EF_AMDGPU_FEATURE_SRAMECC_V3))
    } else {
        (FeatureSetting::from_bits(flags >> 8), FeatureSetting::from_bits(flags >> 10))
    };
    Ok(Target { processor, xnack, sramecc })
}

/// Target of a v2 object: `NT_AMD_HSA_ISA_VERSION` (major.minor.stepping, mapped with the table
/// "AMDGPU Code Object V2 Supported Processors and Fixed Target Feature Settings"), else the
/// processor named at the end of `NT_AMD_HSA_ISA_NAME`.
pub fn target_from_v2_notes(notes: &Notes) -> Result<Target, LoadError> {
    if let Some(isa) = &notes.isa_version {
        let p = v2_processor(isa.major, isa.minor, isa.stepping)
            .ok_or_else(|| LoadError::header(format!("NT_AMD_HSA_ISA_VERSION {}.{}.{} is not a supported processor", isa.major, isa.minor, isa.stepping)))?;
        return Ok(v2_target(p, notes.isa_name.as_deref()));
    }
    let name = notes
        .isa_name
        .as_deref()
        .ok_or_else(|| LoadError::header("code object v2 without NT_AMD_HSA_ISA_VERSION or NT_AMD_HSA_ISA_NAME note: target unknown"))?;
    let cpu = name.rsplit('-').next().unwrap_or(name);
    let p =
        cpu.parse::<Processor>().map_err(|_| LoadError::header(format!("NT_AMD_HSA_ISA_NAME '{}' names no supported processor", super::error::show(name))))?;
    Ok(v2_target(p, Some(name)))
}

/// v2 cannot say "any": xnack is on if the ISA name carries `+xnack` (AMDGPUUsage,
/// `NT_AMD_HSA_ISA_NAME`), otherwise unspecified.
fn v2_target(processor: Processor, isa_name: Option<&str>) -> Target {
    let mut t = Target::new(processor);
    if isa_name.is_some_and(|n| n.contains("+xnack")) {
        t.xnack = FeatureSetting::On;
    }
    t
}

/// v2 ISA versions of the processors we support.
fn v2_processor(major: u32, minor: u32, stepping: u32) -> Option<Processor> {
    Some(match (major, minor, stepping) {
        (8, 0, 0) | (8, 0, 2) => Processor::Gfx802,
        (8, 0, 3) | (8, 0, 4) => Processor::Gfx803,
        (8, 1, 0) => Processor::Gfx810,
        (9, 0, 0) | (9, 0, 1) => Processor::Gfx900,
        (9, 0, 6) | (9, 0, 7) => Processor::Gfx906,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_to_target() {
        let info = |version, e_flags| HeaderInfo { elf_type: ElfType::Shared, version, e_flags };
        // e_flags values from shared/external-code-objects/SOURCES.md and llvm-readelf-19 -h.
        let t = target_from_flags(&info(6, 0x54c)).unwrap();
        assert_eq!(t.processor, Processor::Gfx942);
        assert_eq!((t.xnack, t.sramecc), (FeatureSetting::Any, FeatureSetting::Any));
        let t = target_from_flags(&info(5, 0xe3f)).unwrap();
        assert_eq!(t.target_id(), "gfx90a:sramecc+:xnack-");
        assert_eq!(target_from_flags(&info(5, 0x41)).unwrap().processor, Processor::Gfx1100);
        assert_eq!(target_from_flags(&info(5, 0x4e)).unwrap().processor, Processor::Gfx1201);
        // LLVM 22 BinaryFormat/ELF.h: 0x04f gfx950, 0x05f gfx9-4-generic, 0x022 gfx700.
        assert_eq!(target_from_flags(&info(6, 0x14f)).unwrap().processor, Processor::Gfx950);
        assert_eq!(target_from_flags(&info(6, 0x15f)).unwrap().processor, Processor::Gfx942);
        let e = target_from_flags(&info(5, 0x22)).unwrap_err().to_string();
        assert!(e.contains("0x22"), "{e}");
    }

    #[test]
    fn v2_isa_versions() {
        assert_eq!(v2_processor(8, 0, 3), Some(Processor::Gfx803));
        assert_eq!(v2_processor(9, 0, 6), Some(Processor::Gfx906));
        assert_eq!(v2_processor(7, 0, 0), None);
    }
}
