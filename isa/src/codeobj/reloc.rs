//! Relocations (AMDGPUUsage, "Relocation Records"), applied to the loaded sections so kernel
//! entry points and code are right in unlinked objects too.
//!
//! * `ET_REL`: each `.rela<name>` applies to the section in its `sh_info`; `r_offset` is an
//!   offset in that section; symbols come from the table in `sh_link`.
//! * `ET_DYN`: `.rela.dyn` has `sh_info` 0 and `r_offset` is an address.
//!
//! The load base B is the image's (see `image.rs`). GOT-relative types would need a GOT the loader does
//! not build; they, and references to undefined symbols, are left unapplied and reported as
//! warnings. Relocation types AMDGPUUsage does not define are errors.

use super::error::show;
use super::image::{Image, SymAddr};
use super::LoadError;
use object::elf::{Rela64, SHT_REL, SHT_RELA};
use object::read::elf::{Rela, SectionHeader};
use object::LittleEndian;

/// Relocation types (table "AMDGPU ELF Relocation Records").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    None,
    Abs32Lo,
    Abs32Hi,
    Abs64,
    Rel32,
    Rel64,
    Abs32,
    GotPcRel,
    GotPcRel32Lo,
    GotPcRel32Hi,
    Rel32Lo,
    Rel32Hi,
    Relative64,
    Rel16,
}

impl Kind {
    fn from_type(t: u32) -> Option<Kind> {
        Some(match t {
            0 => Kind::None,
            1 => Kind::Abs32Lo,
            2 => Kind::Abs32Hi,
            3 => Kind::Abs64,
            4 => Kind::Rel32,
            5 => Kind::Rel64,
            6 => Kind::Abs32,
            7 => Kind::GotPcRel,
            8 => Kind::GotPcRel32Lo,
            9 => Kind::GotPcRel32Hi,
            10 => Kind::Rel32Lo,
            11 => Kind::Rel32Hi,
            13 => Kind::Relative64,
            14 => Kind::Rel16,
            _ => return None,
        })
    }

    fn needs_got(self) -> bool {
        matches!(self, Kind::GotPcRel | Kind::GotPcRel32Lo | Kind::GotPcRel32Hi)
    }

    fn uses_symbol(self) -> bool {
        !matches!(self, Kind::None | Kind::Relative64)
    }

    /// The value to store and its width in bytes, from S, A, P and the load base B (S and P
    /// already include B).
    fn compute(self, s: u64, a: i64, p: u64, b: u64) -> (u64, usize) {
        let sa = s.wrapping_add(a as u64);
        let sap = sa.wrapping_sub(p);
        match self {
            Kind::Abs32Lo | Kind::Abs32 => (sa & 0xffff_ffff, 4),
            Kind::Abs32Hi => (sa >> 32, 4),
            Kind::Abs64 => (sa, 8),
            Kind::Rel32 | Kind::Rel32Lo => (sap & 0xffff_ffff, 4),
            Kind::Rel32Hi => (sap >> 32, 4),
            Kind::Rel64 => (sap, 8),
            Kind::Relative64 => (b.wrapping_add(a as u64), 8),
            Kind::Rel16 => (((sap.wrapping_sub(4) as i64) / 4) as u64 & 0xffff, 2),
            Kind::None | Kind::GotPcRel | Kind::GotPcRel32Lo | Kind::GotPcRel32Hi => (0, 0),
        }
    }
}

/// Apply every relocation section that targets a loaded section. Returns warnings.
pub fn apply_all(image: &mut Image) -> Result<Vec<String>, LoadError> {
    let endian = LittleEndian;
    let mut warnings = Vec::new();
    let (table, data) = (image.table, image.data);
    for header in table.iter() {
        let sh_type = header.sh_type(endian);
        let name = show(&String::from_utf8_lossy(table.section_name(endian, header).unwrap_or(b"?")));
        if sh_type == SHT_REL {
            warnings.push(format!("{name}: SHT_REL relocations (Mesa/PAL) are not applied"));
            continue;
        }
        if sh_type != SHT_RELA {
            continue;
        }
        let (relas, link) = match header.rela(endian, data) {
            Ok(Some(r)) => r,
            Ok(None) => continue,
            Err(e) => return Err(LoadError::elf(format!("relocation section {name}"), e)),
        };
        let target = header.sh_info(endian) as usize;
        let section = RelaSection { name: &name, target, symtab: link.0, relas };
        section.apply(image, &mut warnings)?;
    }
    Ok(warnings)
}

struct RelaSection<'a> {
    name: &'a str,
    /// `sh_info`: the section relocated (0 in `.rela.dyn`, whose offsets are addresses).
    target: usize,
    symtab: usize,
    relas: &'a [Rela64<LittleEndian>],
}

impl RelaSection<'_> {
    fn apply(&self, image: &mut Image, warnings: &mut Vec<String>) -> Result<(), LoadError> {
        if self.target != 0 && image.slot(self.target).is_none() {
            return Ok(()); // relocates a non-loaded section, e.g. debug info
        }
        let symbols = image.symbol_table(self.symtab)?;
        for (i, rela) in self.relas.iter().enumerate() {
            let err = |problem: String| LoadError::Relocation { section: self.name.to_string(), index: i, problem };
            let r_type = rela.r_type(LittleEndian, false).0;
            let kind = Kind::from_type(r_type).ok_or_else(|| err(format!("unknown AMDGPU relocation type {r_type}")))?;
            if kind == Kind::None {
                continue;
            }
            if kind.needs_got() {
                warnings.push(format!("{} #{i}: GOT-relative relocation (type {r_type}) not applied", self.name));
                continue;
            }
            let s = match kind.uses_symbol() {
                true => match image.symbol_address(&symbols, rela.r_sym(LittleEndian, false) as usize)? {
                    SymAddr::Defined { address, .. } | SymAddr::Absolute(address) => address,
                    _ if rela.r_sym(LittleEndian, false) == 0 => 0,
                    _ => {
                        warnings.push(format!("{} #{i}: symbol is undefined or not loaded; not applied", self.name));
                        continue;
                    }
                },
                false => 0,
            };
            let (slot, place) = self.place(image, rela.r_offset(LittleEndian)).map_err(err)?;
            let (value, width) = kind.compute(s, rela.r_addend(LittleEndian), place, image.base);
            write(image, slot, place, value, width).map_err(err)?;
        }
        Ok(())
    }

    /// The loaded section and address that `r_offset` designates.
    fn place(&self, image: &Image, r_offset: u64) -> Result<(usize, u64), String> {
        if self.target == 0 {
            let r_offset = r_offset.checked_add(image.base).ok_or(format!("r_offset {r_offset:#x} overflows"))?;
            let slot = image.section_at(r_offset).ok_or(format!("r_offset {r_offset:#x} is in no loaded section"))?;
            return Ok((slot, r_offset));
        }
        let slot = image.slot(self.target).ok_or("target section is not loaded")?;
        let base = image.sections.get(slot).map_or(0, |s| s.address);
        let place = base.checked_add(r_offset).ok_or(format!("r_offset {r_offset:#x} overflows"))?;
        Ok((slot, place))
    }
}

/// Store the low `width` bytes of `value` at `place` in loaded section `slot`.
fn write(image: &mut Image, slot: usize, place: u64, value: u64, width: usize) -> Result<(), String> {
    let section = image.sections.get_mut(slot).ok_or("no such section")?;
    let start = place.checked_sub(section.address).and_then(|o| usize::try_from(o).ok());
    let field = start
        .and_then(|s| s.checked_add(width).map(|e| (s, e)))
        .and_then(|(s, e)| section.bytes.get_mut(s..e))
        .ok_or(format!("{width}-byte field at {place:#x} is outside the contents of {}", section.name))?;
    field.copy_from_slice(&value.to_le_bytes()[..width]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_match_amdgpuusage() {
        // REL64 in a kernel descriptor: S = entry, A = 0x10, P = KD + 0x10 → entry - KD.
        assert_eq!(Kind::Rel64.compute(0x1c00, 0x10, 0xa40 + 0x10, 0), (0x1c00 - 0xa40, 8));
        assert_eq!(Kind::Rel64.compute(0, 0x10, 0x510, 0).0 as i64, -0x500);
        assert_eq!(Kind::Abs64.compute(0x1000, 8, 0, 0), (0x1008, 8));
        assert_eq!(Kind::Rel32Hi.compute(0, -4, 0x10, 0).0, 0xffff_ffff);
        assert_eq!(Kind::Rel32Lo.compute(0x100, 4, 0x10, 0).0, 0xf4);
        assert_eq!(Kind::Relative64.compute(0xdead, 0x40, 0, 0), (0x40, 8));
        // B + A for RELATIVE64; S already includes B for the others.
        assert_eq!(Kind::Relative64.compute(0xdead, 0x40, 0, 0x1000_0000), (0x1000_0040, 8));
        assert_eq!(Kind::Rel16.compute(0x40, 0, 0x10, 0), (0xb, 2));
        assert_eq!(Kind::from_type(12), None);
    }
}
