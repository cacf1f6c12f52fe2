//! The symbol table as the loader needs it: names with resolved addresses, and the code
//! symbols a disassembler walks (`llvm-objdump -d` starts a new block at every symbol in an
//! executable section: functions, kernels and local labels).

use super::elf::Header;
use super::image::{Image, SymAddr};
use super::LoadError;
use object::elf::{SHT_DYNSYM, SHT_SYMTAB};
use object::read::elf::Sym;
use object::LittleEndian;
use serde::Serialize;

/// `STT_AMDGPU_HSA_KERNEL`: the v2 kernel symbol type (its value is the `amd_kernel_code_t`).
pub const STT_AMDGPU_HSA_KERNEL: u8 = 10;
const STT_NOTYPE: u8 = 0;
const STT_OBJECT: u8 = 1;
const STT_FUNC: u8 = 2;

/// One symbol with its resolved place.
#[derive(Debug, Clone)]
pub struct ElfSymbol {
    pub name: String,
    pub place: SymAddr,
    pub size: u64,
    pub st_type: u8,
}

impl ElfSymbol {
    pub fn address(&self) -> Option<(u64, usize)> {
        match self.place {
            SymAddr::Defined { address, section } => Some((address, section)),
            _ => None,
        }
    }

    pub fn is_object(&self) -> bool {
        self.st_type == STT_OBJECT
    }
}

/// What kind of code symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CodeSymbolKind {
    /// `STT_FUNC`: kernels (v3+) and called functions.
    Function,
    /// `STT_AMDGPU_HSA_KERNEL` (v2): the symbol is the 256-byte `amd_kernel_code_t`; code
    /// starts at the kernel's entry address.
    HsaKernel,
    /// `STT_NOTYPE`: a local label such as `BB0_2` (v2 objects keep them).
    Label,
}

/// A symbol in an executable section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CodeSymbol {
    pub name: String,
    pub address: u64,
    pub size: u64,
    pub kind: CodeSymbolKind,
    /// Name of the section it is in.
    pub section: String,
}

/// A variable the code object defines: a `__device__` or `__constant__` global (`STT_OBJECT`
/// in a loaded, non-executable section: `.data`, `.bss`, `.rodata`), which the kernels address
/// at its address (load base 0). Kernel descriptors (`<kernel>.kd`) are not listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DataSymbol {
    pub name: String,
    pub address: u64,
    pub size: u64,
    /// Name of the section it is in.
    pub section: String,
    /// In a writable section (`.data`, `.bss`); a `.rodata` constant is not.
    pub writable: bool,
}

/// The variables of the object, by address (see [`DataSymbol`]).
pub fn data_symbols(image: &Image, symbols: &[ElfSymbol]) -> Vec<DataSymbol> {
    let mut out: Vec<DataSymbol> = symbols
        .iter()
        .filter(|s| s.is_object() && !s.name.is_empty() && !s.name.ends_with(".kd"))
        .filter_map(|s| {
            let (address, slot) = s.address()?;
            let section = image.sections.get(slot).filter(|sec| !sec.executable)?;
            Some(DataSymbol { name: s.name.clone(), address, size: s.size, section: section.name.clone(), writable: section.writable })
        })
        .collect();
    out.sort_by_key(|s| s.address);
    out.dedup_by(|a, b| a.name == b.name && a.address == b.address);
    out
}

/// Read `.symtab`, or `.dynsym` when the static table was stripped.
pub fn read(image: &Image) -> Result<Vec<ElfSymbol>, LoadError> {
    let endian = LittleEndian;
    let mut table = image.table.symbols(endian, image.data, SHT_SYMTAB).map_err(|e| LoadError::elf(".symtab", e))?;
    if table.is_empty() {
        table = image.table.symbols(endian, image.data, SHT_DYNSYM).map_err(|e| LoadError::elf(".dynsym", e))?;
    }
    let mut out = Vec::new();
    for (index, sym) in table.enumerate() {
        if index.0 == 0 {
            continue;
        }
        let name = table.symbol_name(endian, sym).map_err(|e| LoadError::elf("symbol name", e))?;
        let sym: &<Header as object::read::elf::FileHeader>::Sym = sym;
        out.push(ElfSymbol {
            name: String::from_utf8_lossy(name).into_owned(),
            place: image.symbol_address(&table, index.0)?,
            size: sym.st_size(endian),
            st_type: sym.st_type().0,
        });
    }
    Ok(out)
}

/// The symbols in executable sections, sorted by address (ties keep symbol-table order).
pub fn code_symbols(image: &Image, symbols: &[ElfSymbol]) -> Vec<CodeSymbol> {
    let mut out: Vec<CodeSymbol> = symbols
        .iter()
        .filter_map(|s| {
            let kind = match s.st_type {
                STT_FUNC => CodeSymbolKind::Function,
                STT_AMDGPU_HSA_KERNEL => CodeSymbolKind::HsaKernel,
                STT_NOTYPE if !s.name.is_empty() => CodeSymbolKind::Label,
                _ => return None,
            };
            let (address, slot) = s.address()?;
            let section = image.sections.get(slot).filter(|sec| sec.executable)?;
            Some(CodeSymbol { name: s.name.clone(), address, size: s.size, kind, section: section.name.clone() })
        })
        .collect();
    out.sort_by_key(|s| s.address);
    out
}
