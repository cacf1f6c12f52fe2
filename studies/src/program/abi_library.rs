//! hipscope's HIP runtime under each release's soname, with that release's symbol versions.
//!
//! A HIP executable names the library it was linked against (`libamdhip64.so.5`, `.so.6`,
//! `.so.7`) and imports every function at a version node (`hipMalloc@hip_4.2`); ROCm 5.2,
//! 6.4 and 7.2 each define their own chain of nodes (`hip/src/abi/versions.rs`, read off the
//! real libraries), every chain a prefix of the next. The runtime is linked once with the
//! longest chain; for each release this module makes a copy that defines exactly that
//! release's nodes, binds each function the release exports to its node, and carries the
//! release's soname. The copy differs from the library only in fields patched in place
//! (`.gnu.version`, the end of the `.gnu.version_d` chain, `DT_VERDEFNUM`, the soname's last
//! digit and its hash), so nothing moves and the code is untouched.
//!
//! Layouts: the ELF gABI and the LSB's symbol-versioning sections (`Elf64_Verdef`,
//! `Elf64_Verdaux`, `Elf64_Versym`).

use amdhip64::abi::versions::{EXPORTS, NODES, RELEASE_NODES};
use object::elf::{FileHeader64, SectionType, DT_SONAME, DT_VERDEFNUM, SHT_DYNAMIC, SHT_DYNSYM, SHT_GNU_VERDEF, SHT_GNU_VERSYM};
use object::read::elf::{FileHeader, SectionHeader};
use object::LittleEndian as LE;
use std::collections::HashMap;

/// `vd_ndx` 0: the symbol is local (not exported); 1: global, unversioned.
const VER_NDX_LOCAL: u16 = 0;
const VER_NDX_GLOBAL: u16 = 1;

/// The library `lib` as release `major` (5, 6 or 7) ships it: soname `libamdhip64.so.<major>`,
/// that release's version nodes, each function it exports at its node.
pub fn release_copy(lib: &[u8], major: u32) -> Result<Vec<u8>, String> {
    let keep = RELEASE_NODES.iter().find(|(m, _)| *m == major).map(|(_, n)| *n).ok_or(format!("no ABI table for HIP {major}"))?;
    let mut out = lib.to_vec();
    let elf = Sections::find(lib)?;
    let names = elf.verdef_indices(lib)?;
    let last_kept = names.get(NODES[keep - 1]).copied().ok_or(format!("the runtime defines no version node {}", NODES[keep - 1]))?;
    elf.truncate_verdefs(&mut out, last_kept)?;
    elf.set_dynamic(&mut out, DT_VERDEFNUM.0, u64::from(last_kept))?;
    let exported: HashMap<&str, &str> = EXPORTS.iter().filter(|(_, _, mask)| mask & (1 << (major - 5)) != 0).map(|(n, v, _)| (*n, *v)).collect();
    for i in 0..elf.dynsym_count() {
        let name = elf.dynsym_name(lib, i)?;
        let slot = elf.versym + 2 * i;
        let old = u16::from_le_bytes([lib[slot], lib[slot + 1]]);
        let new = match exported.get(name) {
            Some(node) => names.get(node).copied().ok_or(format!("{name}: no version node {node}"))?,
            // The node-name symbols (`hip_7.1`) of nodes this release lacks go.
            None if old > last_kept && old & 0x7fff != VER_NDX_GLOBAL => VER_NDX_LOCAL,
            None => old,
        };
        out[slot..slot + 2].copy_from_slice(&new.to_le_bytes());
    }
    elf.rename_soname(&mut out, major)?;
    Ok(out)
}

/// Where the sections this module patches are (file offsets and sizes).
struct Sections {
    dynsym: usize,
    dynsym_size: usize,
    dynstr: usize,
    dynstr_size: usize,
    versym: usize,
    verdef: usize,
    /// File offset of the `.gnu.version_d` section header (its `sh_info` counts definitions).
    verdef_header: usize,
    dynamic: usize,
    dynamic_size: usize,
}

fn u16_at(b: &[u8], o: usize) -> Result<u16, String> {
    b.get(o..o + 2).map(|s| u16::from_le_bytes([s[0], s[1]])).ok_or(format!("offset {o:#x} is past the end"))
}

fn u32_at(b: &[u8], o: usize) -> Result<u32, String> {
    b.get(o..o + 4).and_then(|s| s.try_into().ok()).map(u32::from_le_bytes).ok_or(format!("offset {o:#x} is past the end"))
}

fn u64_at(b: &[u8], o: usize) -> Result<u64, String> {
    b.get(o..o + 8).and_then(|s| s.try_into().ok()).map(u64::from_le_bytes).ok_or(format!("offset {o:#x} is past the end"))
}

/// The SysV ELF hash of a name (`vd_hash`; gABI "Hash Table").
fn elf_hash(name: &[u8]) -> u32 {
    name.iter().fold(0u32, |h, &c| {
        let h = (h << 4).wrapping_add(u32::from(c));
        let g = h & 0xf000_0000;
        (h ^ (g >> 24)) & !g
    })
}

impl Sections {
    fn find(lib: &[u8]) -> Result<Sections, String> {
        let header = FileHeader64::<LE>::parse(lib).map_err(|e| format!("not a 64-bit ELF file: {e}"))?;
        let table = header.sections(LE, lib).map_err(|e| format!("section headers: {e}"))?;
        let find = |kind: SectionType| {
            table.iter().find(|s| s.sh_type(LE) == kind).map(|s| (s.sh_offset(LE) as usize, s.sh_size(LE) as usize, s.sh_link(LE) as usize))
        };
        let (dynsym, dynsym_size, strtab) = find(SHT_DYNSYM).ok_or("no .dynsym")?;
        let dynstr_header = table.section(object::SectionIndex(strtab)).map_err(|e| format!(".dynstr: {e}"))?;
        let (versym, _, _) = find(SHT_GNU_VERSYM).ok_or("no .gnu.version")?;
        let (verdef, _, _) = find(SHT_GNU_VERDEF).ok_or("no .gnu.version_d")?;
        let (dynamic, dynamic_size, _) = find(SHT_DYNAMIC).ok_or("no .dynamic")?;
        let verdef_index = table.iter().position(|s| s.sh_type(LE) == SHT_GNU_VERDEF).ok_or("no .gnu.version_d")?;
        let verdef_header = header.e_shoff.get(LE) as usize + verdef_index * usize::from(header.e_shentsize.get(LE));
        Ok(Sections {
            dynsym,
            dynsym_size,
            dynstr: dynstr_header.sh_offset(LE) as usize,
            dynstr_size: dynstr_header.sh_size(LE) as usize,
            versym,
            verdef,
            verdef_header,
            dynamic,
            dynamic_size,
        })
    }

    fn dynsym_count(&self) -> usize {
        self.dynsym_size / 24
    }

    fn string<'a>(&self, lib: &'a [u8], offset: u32) -> Result<&'a [u8], String> {
        let start = self.dynstr + offset as usize;
        let end = lib.get(start..self.dynstr + self.dynstr_size).and_then(|s| s.iter().position(|&c| c == 0)).ok_or(format!("bad .dynstr offset {offset}"))?;
        Ok(&lib[start..start + end])
    }

    fn dynsym_name<'a>(&self, lib: &'a [u8], i: usize) -> Result<&'a str, String> {
        let name = u32_at(lib, self.dynsym + 24 * i)?;
        let start = self.dynstr + name as usize;
        let bytes = lib.get(start..self.dynstr + self.dynstr_size).ok_or("bad symbol name")?;
        let end = bytes.iter().position(|&c| c == 0).ok_or("unterminated symbol name")?;
        std::str::from_utf8(&bytes[..end]).map_err(|_| "symbol name is not UTF-8".to_string())
    }

    /// Each `Elf64_Verdef` in chain order: (file offset, vd_ndx, first name's .dynstr offset).
    fn verdefs(&self, lib: &[u8]) -> Result<Vec<(usize, u16, u32)>, String> {
        let mut out = Vec::new();
        let mut at = self.verdef;
        loop {
            // vd_version u16, vd_flags u16, vd_ndx u16, vd_cnt u16, vd_hash u32, vd_aux u32, vd_next u32.
            let ndx = u16_at(lib, at + 4)?;
            let aux = u32_at(lib, at + 12)? as usize;
            let next = u32_at(lib, at + 16)? as usize;
            out.push((at, ndx, u32_at(lib, at + aux)?));
            if next == 0 || out.len() > 1024 {
                return Ok(out);
            }
            at += next;
        }
    }

    /// Version node name → `vd_ndx`.
    fn verdef_indices<'a>(&self, lib: &'a [u8]) -> Result<HashMap<&'a str, u16>, String> {
        let mut map = HashMap::new();
        for (_, ndx, name) in self.verdefs(lib)? {
            let name = std::str::from_utf8(self.string(lib, name)?).map_err(|_| "version name is not UTF-8")?;
            map.insert(name, ndx);
        }
        Ok(map)
    }

    /// End the chain at the definition whose `vd_ndx` is `last` (and say so in the section
    /// header's `sh_info`, the definition count tools read).
    fn truncate_verdefs(&self, out: &mut [u8], last: u16) -> Result<(), String> {
        let chain = self.verdefs(out)?;
        let kept = chain.iter().position(|(_, ndx, _)| *ndx == last).ok_or("version chain has no such node")? + 1;
        let at = chain[kept - 1].0;
        out[at + 16..at + 20].copy_from_slice(&0u32.to_le_bytes());
        let info = self.verdef_header + 44;
        out.get_mut(info..info + 4).ok_or("section header past the end")?.copy_from_slice(&(kept as u32).to_le_bytes());
        Ok(())
    }

    fn set_dynamic(&self, out: &mut [u8], tag: i64, value: u64) -> Result<(), String> {
        for at in (self.dynamic..self.dynamic + self.dynamic_size).step_by(16) {
            if u64_at(out, at)? as i64 == tag {
                out[at + 8..at + 16].copy_from_slice(&value.to_le_bytes());
                return Ok(());
            }
        }
        Err(format!("no dynamic entry {tag:#x}"))
    }

    /// `libamdhip64.so.7` → `libamdhip64.so.<major>`: the soname string and the hash of the
    /// base version definition, which carries the soname as its name.
    fn rename_soname(&self, out: &mut [u8], major: u32) -> Result<(), String> {
        let mut offset = None;
        for at in (self.dynamic..self.dynamic + self.dynamic_size).step_by(16) {
            if u64_at(out, at)? as i64 == DT_SONAME.0 {
                offset = Some(u64_at(out, at + 8)? as u32);
            }
        }
        let offset = offset.ok_or("no DT_SONAME")?;
        let old = self.string(out, offset)?.to_vec();
        if old.strip_prefix(b"libamdhip64.so.").is_none_or(|d| d.len() != 1) {
            return Err(format!("unexpected soname {}", String::from_utf8_lossy(&old)));
        }
        let new_digit = b'0' + u8::try_from(major).map_err(|_| "bad major")?;
        let at = self.dynstr + offset as usize + old.len() - 1;
        out[at] = new_digit;
        let mut name = old.clone();
        let last = name.len() - 1;
        name[last] = new_digit;
        for (def, _, name_offset) in self.verdefs(out)? {
            if name_offset == offset {
                out[def + 8..def + 12].copy_from_slice(&elf_hash(&name).to_le_bytes());
            }
        }
        Ok(())
    }
}
