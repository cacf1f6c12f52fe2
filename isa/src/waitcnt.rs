//! The `s_waitcnt` immediate: where each counter's limit sits in `simm16` (GFX6–GFX11; GFX12
//! has one instruction per counter). A field at its maximum means "do not wait on it".
//!
//! Layouts (ISA manuals, "S_WAITCNT"; LLVM `AMDGPUBaseInfo`, `getVmcntBitShift*`): GFX8 vmcnt
//! [3:0], expcnt [6:4], lgkmcnt [11:8]; GFX9 and GFX10 add vmcnt [15:14]; GFX10 widens lgkmcnt
//! to [13:8]; GFX11 moves them to expcnt [2:0], lgkmcnt [9:4], vmcnt [15:10].
//!
//! This is the encoding view only: the counters themselves, waits on them and the other wait
//! instructions (`s_waitcnt_vscnt`, GFX12 `s_wait_*cnt`) are the wait-counter model of
//! `hipscope-mm` (`mm/src/wait.rs`), whose `Vm`, `Exp` and `Lgkm` counters these fields are.

use crate::Family;

/// The three counter limits one `s_waitcnt` carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Waitcnt {
    pub vm: u32,
    pub exp: u32,
    pub lgkm: u32,
}

/// (shift, width) of the low and high vmcnt parts, expcnt and lgkmcnt.
struct Layout {
    vm_lo: (u32, u32),
    vm_hi: (u32, u32),
    exp: (u32, u32),
    lgkm: (u32, u32),
}

fn layout(family: Family) -> Layout {
    match family {
        Family::Gfx8 => Layout { vm_lo: (0, 4), vm_hi: (14, 0), exp: (4, 3), lgkm: (8, 4) },
        Family::Gfx9 | Family::Gfx90a | Family::Gfx940 => Layout { vm_lo: (0, 4), vm_hi: (14, 2), exp: (4, 3), lgkm: (8, 4) },
        Family::Gfx10 => Layout { vm_lo: (0, 4), vm_hi: (14, 2), exp: (4, 3), lgkm: (8, 6) },
        Family::Gfx11 | Family::Gfx12 => Layout { vm_lo: (10, 6), vm_hi: (16, 0), exp: (0, 3), lgkm: (4, 6) },
    }
}

fn field(v: u32, (shift, width): (u32, u32)) -> u32 {
    (v >> shift) & ((1 << width) - 1)
}

fn put(v: u32, (shift, width): (u32, u32)) -> u32 {
    (v & ((1 << width) - 1)) << shift
}

impl Waitcnt {
    /// The largest value of each field on `family` (no wait).
    pub fn max(family: Family) -> Waitcnt {
        let l = layout(family);
        Waitcnt { vm: (1 << (l.vm_lo.1 + l.vm_hi.1)) - 1, exp: (1 << l.exp.1) - 1, lgkm: (1 << l.lgkm.1) - 1 }
    }

    pub fn decode(family: Family, simm16: u32) -> Waitcnt {
        let l = layout(family);
        Waitcnt { vm: field(simm16, l.vm_lo) | field(simm16, l.vm_hi) << l.vm_lo.1, exp: field(simm16, l.exp), lgkm: field(simm16, l.lgkm) }
    }

    /// The immediate, each limit clamped to its field's maximum.
    pub fn encode(self, family: Family) -> u32 {
        let l = layout(family);
        let m = Waitcnt::max(family);
        let vm = self.vm.min(m.vm);
        put(vm, l.vm_lo) | put(vm >> l.vm_lo.1, l.vm_hi) | put(self.exp.min(m.exp), l.exp) | put(self.lgkm.min(m.lgkm), l.lgkm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Immediates from LLVM 19's disassembler tests (`gfx9_sopp.txt`, `gfx10_sopp.txt`,
    // `gfx11_dasm_sopp.txt`): the `s_waitcnt` lines' encodings, low 16 bits. The GFX9 inputs
    // set bits outside every field, so they are checked in the decoding direction.
    #[test]
    fn encodes_as_llvm_does() {
        let w = |vm, exp, lgkm| Waitcnt { vm, exp, lgkm };
        assert_eq!(Waitcnt::decode(Family::Gfx9, 0x3141), w(1, 4, 1));
        assert_eq!(Waitcnt::decode(Family::Gfx9, 0xc1d1), w(49, 5, 1));
        assert_eq!(w(4, 3, 18).encode(Family::Gfx10), 0x1234);
        assert_eq!(w(49, 5, 1).encode(Family::Gfx10), 0xc151);
        assert_eq!(w(1, 5, 1).encode(Family::Gfx11), 0x0415);
        assert_eq!(w(4, 3, 2).encode(Family::Gfx11), 0x1023);
        for f in [Family::Gfx8, Family::Gfx9, Family::Gfx10, Family::Gfx11] {
            let w = Waitcnt { vm: 3, exp: 1, lgkm: 2 };
            assert_eq!(Waitcnt::decode(f, w.encode(f)), w);
        }
    }
}
