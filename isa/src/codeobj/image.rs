//! The loaded image: every `SHF_ALLOC` section with an address and its bytes, and symbol
//! addresses.
//!
//! Addresses are ELF virtual addresses plus a load base B (0 unless the caller asks for another:
//! a runtime that maps several code objects side by side gives each its own). In a linked
//! object (`ET_DYN`) they are B plus the `sh_addr`/`st_value` values. An unlinked object
//! (`ET_REL`) has none, so we lay it out deterministically, the way a linker would: first the
//! executable `SHF_ALLOC` sections, then the other `SHF_ALLOC` sections, each in section-header
//! order, each at the next multiple of its `sh_addralign`, starting at B. A single `.text` therefore starts at 0, which is also the
//! address `llvm-objdump -d` prints for an unlinked object. A symbol's address is its section's
//! address plus `st_value` (AMDGPUUsage "Relocation Records": P is the section offset for ET_REL).

use super::elf::{ElfType, Header};
use super::LoadError;
use object::elf::{SHF_ALLOC, SHF_EXECINSTR, SHF_WRITE, SHN_ABS, SHN_UNDEF, SHT_NOBITS};
use object::read::elf::{SectionHeader, SectionTable, Sym, SymbolTable};
use object::{LittleEndian, SectionIndex, SymbolIndex};
use serde::Serialize;

/// A loaded (`SHF_ALLOC`) section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Section {
    pub name: String,
    /// Index in the ELF section header table.
    pub index: usize,
    pub address: u64,
    /// Size in memory (for `SHT_NOBITS`, e.g. `.bss`, there are no bytes).
    pub size: u64,
    pub align: u64,
    pub executable: bool,
    pub writable: bool,
    pub nobits: bool,
    /// Contents after relocation (what the GPU sees). Empty for `SHT_NOBITS`.
    #[serde(skip)]
    pub bytes: Vec<u8>,
    /// Contents as stored in the file, before relocation (what `llvm-objdump -d` shows for an
    /// unlinked object, whose relocated literals it prints as 0).
    #[serde(skip)]
    pub file_bytes: Vec<u8>,
}

impl Section {
    pub fn contains(&self, address: u64) -> bool {
        address >= self.address && address - self.address < self.size
    }

    /// `len` relocated bytes at `address`, if they are all inside this section's contents.
    pub fn bytes_at(&self, address: u64, len: u64) -> Option<&[u8]> {
        let start = address.checked_sub(self.address)?;
        super::bytes::slice(&self.bytes, start, len)
    }
}

/// Where a symbol is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymAddr {
    /// In a loaded section.
    Defined {
        address: u64,
        section: usize,
    },
    Absolute(u64),
    Undefined,
    /// Common, LDS (`SHN_AMDGPU_LDS`), or in a section that is not loaded.
    Unplaced,
}

pub struct Image<'a> {
    pub data: &'a [u8],
    pub table: SectionTable<'a, Header>,
    pub elf_type: ElfType,
    /// The load base B every address is offset by.
    pub base: u64,
    pub sections: Vec<Section>,
    /// ELF section index → position in `sections`.
    slot: Vec<Option<usize>>,
}

impl<'a> Image<'a> {
    pub fn new(header: &Header, data: &'a [u8], elf_type: ElfType, base: u64) -> Result<Image<'a>, LoadError> {
        let endian = LittleEndian;
        let table = object::read::elf::FileHeader::sections(header, endian, data).map_err(|e| {
            let (shoff, shnum) = (header.e_shoff.get(endian), header.e_shnum.get(endian));
            LoadError::elf(format!("section headers (e_shoff {shoff:#x}, e_shnum {shnum})"), e)
        })?;
        let mut image = Image { data, table, elf_type, base, sections: Vec::new(), slot: vec![None; table.len()] };
        let order = image.load_order();
        let mut cursor = base;
        for index in order {
            let section = image.load_section(index, &mut cursor)?;
            image.sections.push(section);
        }
        // Present sections by address; `slot` maps header indices to the sorted positions.
        image.sections.sort_by_key(|s| (s.address, s.index));
        for (pos, s) in image.sections.iter().enumerate() {
            if let Some(slot) = image.slot.get_mut(s.index) {
                *slot = Some(pos);
            }
        }
        Ok(image)
    }

    /// Indices of the `SHF_ALLOC` sections, executable ones first (the `ET_REL` layout order;
    /// harmless for `ET_DYN`, whose addresses are fixed).
    fn load_order(&self) -> Vec<usize> {
        let endian = LittleEndian;
        let flags = |s: &<Header as object::read::elf::FileHeader>::SectionHeader| s.sh_flags(endian).0;
        let alloc: Vec<(usize, bool)> =
            self.table.iter().enumerate().filter(|(_, s)| flags(s) & SHF_ALLOC.0 != 0).map(|(i, s)| (i, flags(s) & SHF_EXECINSTR.0 != 0)).collect();
        let exec = alloc.iter().filter(|(_, x)| *x).map(|(i, _)| *i);
        exec.chain(alloc.iter().filter(|(_, x)| !*x).map(|(i, _)| *i)).collect()
    }

    fn load_section(&self, index: usize, cursor: &mut u64) -> Result<Section, LoadError> {
        let endian = LittleEndian;
        let header = self.table.section(SectionIndex(index)).map_err(|e| LoadError::elf("section header", e))?;
        let name = String::from_utf8_lossy(self.table.section_name(endian, header).unwrap_or(b"?")).into_owned();
        let size = header.sh_size(endian);
        let align = header.sh_addralign(endian).max(1);
        if !align.is_power_of_two() {
            return Err(LoadError::section(&name, format!("sh_addralign {align} is not a power of two")));
        }
        let address = match self.elf_type {
            ElfType::Shared => header.sh_addr(endian).checked_add(self.base).ok_or_else(|| too_big(&name))?,
            ElfType::Relocatable => cursor.checked_next_multiple_of(align).ok_or_else(|| too_big(&name))?,
        };
        let end = address.checked_add(size).ok_or_else(|| too_big(&name))?;
        *cursor = end;
        let nobits = header.sh_type(endian) == SHT_NOBITS;
        let bytes = if nobits { Vec::new() } else { header.data(endian, self.data).map_err(|e| LoadError::elf(format!("section {name}"), e))?.to_vec() };
        let flags = header.sh_flags(endian).0;
        Ok(Section {
            name,
            index,
            address,
            size,
            align,
            executable: flags & SHF_EXECINSTR.0 != 0,
            writable: flags & SHF_WRITE.0 != 0,
            nobits,
            file_bytes: bytes.clone(),
            bytes,
        })
    }

    /// The loaded section for an ELF section index.
    pub fn slot(&self, index: usize) -> Option<usize> {
        self.slot.get(index).copied().flatten()
    }

    /// Position in `sections` of the loaded section containing `address`.
    pub fn section_at(&self, address: u64) -> Option<usize> {
        self.sections.iter().position(|s| s.contains(address))
    }

    /// A symbol table by section index (`sh_link` of a relocation section).
    pub fn symbol_table(&self, index: usize) -> Result<SymbolTable<'a, Header>, LoadError> {
        if index == 0 {
            return Ok(SymbolTable::default());
        }
        self.table.symbol_table_by_index(LittleEndian, self.data, SectionIndex(index)).map_err(|e| LoadError::elf(format!("symbol table (section {index})"), e))
    }

    /// Address of symbol `index` of `symbols`.
    pub fn symbol_address(&self, symbols: &SymbolTable<'a, Header>, index: usize) -> Result<SymAddr, LoadError> {
        let endian = LittleEndian;
        let sym = symbols.symbol(SymbolIndex(index)).map_err(|e| LoadError::elf("symbol", e))?;
        let value = sym.st_value(endian);
        let shndx = sym.st_shndx(endian);
        if shndx == SHN_UNDEF {
            return Ok(SymAddr::Undefined);
        }
        if shndx == SHN_ABS {
            return Ok(SymAddr::Absolute(value));
        }
        let section = symbols.symbol_section(endian, sym, SymbolIndex(index)).map_err(|e| LoadError::elf("symbol", e))?;
        let Some(slot) = section.and_then(|s| self.slot(s.0)) else {
            return Ok(SymAddr::Unplaced);
        };
        let base = match self.elf_type {
            ElfType::Shared => self.base,
            ElfType::Relocatable => self.sections.get(slot).map_or(0, |s| s.address),
        };
        let address = base.wrapping_add(value);
        Ok(SymAddr::Defined { address, section: slot })
    }
}

fn too_big(name: &str) -> LoadError {
    LoadError::section(name, "address range overflows 64 bits")
}
