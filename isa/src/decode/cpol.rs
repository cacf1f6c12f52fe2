//! Cache-policy bits of a memory instruction and the names llvm-objdump-19 prints for them:
//! the one namer, used by the printer and by listings of instructions known by name (the
//! memory-model lowering's).
//!
//! CachePolicyNames per family (ISA manuals; AMDGPUUsage "Memory Model" tables; what LLVM 19's
//! disassembler prints): GFX8/9 `glc slc`, GFX90A adds `scc`, GFX940 calls the same bits
//! `sc0 nt sc1` (scalar loads keep `glc`), GFX10/11 add `dlc`; GFX12 has a temporal hint
//! (`th:`, named per load / store / atomic and scope) and a scope (`scope:`).

use crate::tables::flags;
use crate::Family;
use std::fmt;

/// Cache-policy bits of a memory instruction, as encoded. Their names differ per family:
/// GFX8/9 glc/slc, GFX90A adds scc, GFX940 calls them sc0/nt/sc1, GFX10/11 add dlc, GFX12 has
/// th (temporal hint) and scope (AMDGPUUsage "Memory Model" tables; ISA manuals).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CachePolicy(pub u32);

impl CachePolicy {
    pub const GLC: u32 = 1;
    pub const SLC: u32 = 2;
    pub const DLC: u32 = 4;
    pub const SCC: u32 = 16;
    /// GFX12: temporal hint (3 bits) and scope (2 bits).
    pub const TH: u32 = 0x7;
    pub const SCOPE: u32 = 0x18;

    pub fn glc(self) -> bool {
        self.0 & Self::GLC != 0
    }
    pub fn slc(self) -> bool {
        self.0 & Self::SLC != 0
    }
    pub fn dlc(self) -> bool {
        self.0 & Self::DLC != 0
    }
    pub fn scc(self) -> bool {
        self.0 & Self::SCC != 0
    }
    /// GFX940 names: sc0 = glc, nt = slc, sc1 = scc.
    pub fn sc0(self) -> bool {
        self.glc()
    }
    pub fn sc1(self) -> bool {
        self.scc()
    }
    pub fn nt(self) -> bool {
        self.slc()
    }
    /// GFX12 temporal hint.
    pub fn th(self) -> u32 {
        self.0 & Self::TH
    }
    /// GFX12 scope: 0 CU, 1 SE, 2 device, 3 system.
    pub fn scope(self) -> u32 {
        (self.0 & Self::SCOPE) >> 3
    }
}

impl CachePolicy {
    /// The modifiers these bits print as on `family`, each with a leading space, for an
    /// instruction with table flags `flags` (`crate::tables::flags`: scalar memory keeps
    /// `glc` on GFX940; GFX12's temporal-hint names depend on atomic / store / load).
    pub fn names(self, family: Family, flags: u64) -> CachePolicyNames {
        CachePolicyNames { cpol: self, family, flags }
    }
}

/// [`CachePolicy::names`]: displays as the modifiers, in llvm-objdump's order.
#[derive(Debug, Clone, Copy)]
pub struct CachePolicyNames {
    cpol: CachePolicy,
    family: Family,
    flags: u64,
}

impl CachePolicyNames {
    fn has(&self, flag: u64) -> bool {
        self.flags & flag != 0
    }

    /// GFX12 temporal hint: names depend on load / store / atomic and on the scope.
    fn th(&self, f: &mut fmt::Formatter<'_>, th: u32, scope: u32) -> fmt::Result {
        if th == 0 {
            return Ok(());
        }
        f.write_str(" th:")?;
        let atomic = self.has(flags::ISATOMICRET | flags::ISATOMICNORET);
        let store = self.has(flags::MAYSTORE);
        if atomic {
            f.write_str("TH_ATOMIC_")?;
            return if th & 4 != 0 {
                if scope >= 2 {
                    f.write_str(if th & 2 != 0 { "CASCADE_NT" } else { "CASCADE_RT" })
                } else {
                    write!(f, "{th:#x}")
                }
            } else if th & 2 != 0 {
                f.write_str(if th & 1 != 0 { "NT_RETURN" } else { "NT" })
            } else if th & 1 != 0 {
                f.write_str("RETURN")
            } else {
                write!(f, "{th:#x}")
            };
        }
        if !store && th == 7 {
            return write!(f, "{th:#x}");
        }
        f.write_str(if store { "TH_STORE_" } else { "TH_LOAD_" })?;
        f.write_str(match th {
            1 => "NT",
            2 => "HT",
            3 if scope == 3 => "BYPASS",
            3 if store => "RT_WB",
            3 => "LU",
            4 => "NT_RT",
            5 => "RT_NT",
            6 => "NT_HT",
            _ => "NT_WB",
        })
    }

    fn scope(f: &mut fmt::Formatter<'_>, scope: u32) -> fmt::Result {
        let name = match scope {
            1 => "SCOPE_SE",
            2 => "SCOPE_DEV",
            3 => "SCOPE_SYS",
            _ => return Ok(()),
        };
        write!(f, " scope:{name}")
    }
}

impl fmt::Display for CachePolicyNames {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.cpol.0;
        if self.family == Family::Gfx12 {
            self.th(f, v & 7, (v >> 3) & 3)?;
            return CachePolicyNames::scope(f, (v >> 3) & 3);
        }
        let gfx940 = self.family == Family::Gfx940;
        if v & CachePolicy::GLC != 0 {
            f.write_str(if gfx940 && !self.has(flags::SMRD) { " sc0" } else { " glc" })?;
        }
        if v & CachePolicy::SLC != 0 {
            f.write_str(if gfx940 { " nt" } else { " slc" })?;
        }
        if v & CachePolicy::DLC != 0 && self.family.is_rdna() {
            f.write_str(" dlc")?;
        }
        if v & CachePolicy::SCC != 0 && matches!(self.family, Family::Gfx90a | Family::Gfx940) {
            f.write_str(if gfx940 { " sc1" } else { " scc" })?;
        }
        // Bits beyond glc/slc/dlc/scc/swz (0x1f) have no meaning.
        if v & !0x1f != 0 {
            f.write_str(" /* unexpected cache policy bit */")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::Ctx;
    use crate::tables::feature;
    use crate::Processor;

    /// The names follow the family: every processor's features (LLVM's, which the printer
    /// tested them by) agree with its family on each distinction the names make.
    #[test]
    fn families_match_processor_features() {
        for &p in Processor::ALL {
            let ctx = Ctx::new(p, true, false);
            let f = p.family();
            assert_eq!(ctx.gfx12_plus, f == Family::Gfx12, "{p:?}");
            assert_eq!(ctx.gfx940_insts, f == Family::Gfx940, "{p:?}");
            assert_eq!(ctx.gfx10_plus, f.is_rdna(), "{p:?}");
            assert_eq!(ctx.has(feature::GFX90AINSTS), matches!(f, Family::Gfx90a | Family::Gfx940), "{p:?}");
        }
    }

    /// Spellings as llvm-mc-19 prints them (`isa/tests/data/llvm-mc-random.tsv`: gfx942
    /// `global_atomic_umax_x2 … sc0 nt sc1` and `s_buffer_load_dwordx2 … glc`, gfx90a
    /// `flat_store_dwordx2 … glc scc`, gfx1030 `buffer_store_format_xyzw … glc dlc`, gfx1200
    /// `flat_atomic_sub_u32 … th:TH_ATOMIC_RETURN scope:SCOPE_DEV`, `tbuffer_store_format_x …
    /// th:TH_STORE_NT`, `buffer_load_format_xyz … th:TH_LOAD_BYPASS scope:SCOPE_SYS`). GFX9 has
    /// no dlc bit (it arrived with GFX10, RDNA1 ISA manual), so it is not named there.
    #[test]
    fn names_as_llvm_prints_them() {
        let show = |family, bits, flags| CachePolicy(bits).names(family, flags).to_string();
        let g = CachePolicy::GLC | CachePolicy::SCC;
        assert_eq!(show(Family::Gfx940, g | CachePolicy::SLC, flags::FLAT), " sc0 nt sc1");
        assert_eq!(show(Family::Gfx940, CachePolicy::GLC, flags::SMRD | flags::MAYLOAD), " glc");
        assert_eq!(show(Family::Gfx90a, g, flags::MUBUF), " glc scc");
        assert_eq!(show(Family::Gfx9, g | CachePolicy::DLC, flags::MUBUF), " glc");
        assert_eq!(show(Family::Gfx10, CachePolicy::GLC | CachePolicy::DLC, flags::FLAT), " glc dlc");
        assert_eq!(show(Family::Gfx12, 1 | 2 << 3, flags::FLAT | flags::ISATOMICRET), " th:TH_ATOMIC_RETURN scope:SCOPE_DEV");
        assert_eq!(show(Family::Gfx12, 1, flags::FLAT | flags::MAYSTORE), " th:TH_STORE_NT");
        assert_eq!(show(Family::Gfx12, 3 | 3 << 3, flags::FLAT | flags::MAYLOAD), " th:TH_LOAD_BYPASS scope:SCOPE_SYS");
    }
}
