//! Wait counters: the counters a wave's outstanding memory operations are counted by (ISA
//! manuals, "Data dependency resolution"; GFX12 split counters), and waits on them.
//!
//! One model for every reader: the lowering says which waits the memory model asks for, the
//! recogniser reads the waits a kernel has ([`Wait::of_inst`]), the grader's code generator
//! emits them ([`Wait::encode`]). The packed `s_waitcnt` immediate (vmcnt, expcnt and lgkmcnt
//! in one `simm16`, laid out per family) is `hipscope_isa::waitcnt::Waitcnt`, whose three
//! fields are [`Counter::Vm`], [`Counter::Exp`] and [`Counter::Lgkm`]; the other wait
//! instructions carry one or two counters in fixed fields ([`FORMS`]).

use hipscope_isa::decode::{Inst, Operand, Reg, Special};
use hipscope_isa::tables::{flags, OpName};
use hipscope_isa::waitcnt::Waitcnt;
use hipscope_isa::Family;

/// A hardware wait counter (ISA manuals, "Data dependency resolution"; GFX12 split counters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Counter {
    /// GFX6-11 vector memory (GFX10/11: loads and returning atomics only).
    Vm,
    /// GFX6-11 LDS, GDS, scalar memory, messages.
    Lgkm,
    Exp,
    /// GFX10/11 vector stores and non-returning atomics.
    Vs,
    /// GFX12 split counters.
    Load,
    Store,
    Ds,
    Km,
    Sample,
    Bvh,
}

impl Counter {
    /// The counter's name in assembly (`vmcnt`, `s_wait_loadcnt`'s `loadcnt`).
    pub fn name(self) -> &'static str {
        match self {
            Counter::Vm => "vmcnt",
            Counter::Lgkm => "lgkmcnt",
            Counter::Exp => "expcnt",
            Counter::Vs => "vscnt",
            Counter::Load => "loadcnt",
            Counter::Store => "storecnt",
            Counter::Ds => "dscnt",
            Counter::Km => "kmcnt",
            Counter::Sample => "samplecnt",
            Counter::Bvh => "bvhcnt",
        }
    }

    /// The all-ones limit of the counter's field in its one-counter wait instruction
    /// ([`FORMS`]): 31 for kmcnt's 5 bits, 7 for expcnt's 3, 63 for the 6-bit others.
    pub fn field_all_ones(self) -> u32 {
        let width = FORMS.iter().flat_map(|f| f.fields).find(|f| f.counter == self).map_or(6, |f| f.width);
        (1 << width) - 1
    }
}

/// Wait until each named counter is at most its value. A run of wait instructions is one
/// `Wait` (waiting on several counters one after the other or at once is the same wait).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Wait(pub Vec<(Counter, u32)>);

/// Where a counter's limit sits in a wait instruction's immediate: bits
/// `[shift + width - 1 : shift]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub counter: Counter,
    pub shift: u32,
    pub width: u32,
}

/// A wait instruction other than `s_waitcnt`, and the counters its immediate carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Form {
    pub mnemonic: &'static str,
    pub fields: &'static [Field],
}

const fn form(mnemonic: &'static str, fields: &'static [Field]) -> Form {
    Form { mnemonic, fields }
}

const fn field(counter: Counter, shift: u32, width: u32) -> Field {
    Field { counter, shift, width }
}

/// The wait instructions other than `s_waitcnt`. GFX10/11 `s_waitcnt_*cnt` and GFX12
/// `s_wait_*cnt` carry the limit as their immediate; GFX12's combined forms carry the first
/// counter in bits 13:8 and dscnt in bits 5:0 (RDNA4 ISA, "S_WAIT_LOADCNT_DSCNT").
pub const FORMS: &[Form] = &[
    form("s_waitcnt_vscnt", &[field(Counter::Vs, 0, 6)]),
    form("s_waitcnt_vmcnt", &[field(Counter::Vm, 0, 6)]),
    form("s_waitcnt_lgkmcnt", &[field(Counter::Lgkm, 0, 6)]),
    form("s_waitcnt_expcnt", &[field(Counter::Exp, 0, 3)]),
    form("s_wait_loadcnt", &[field(Counter::Load, 0, 6)]),
    form("s_wait_storecnt", &[field(Counter::Store, 0, 6)]),
    form("s_wait_dscnt", &[field(Counter::Ds, 0, 6)]),
    form("s_wait_kmcnt", &[field(Counter::Km, 0, 5)]),
    form("s_wait_expcnt", &[field(Counter::Exp, 0, 3)]),
    form("s_wait_samplecnt", &[field(Counter::Sample, 0, 6)]),
    form("s_wait_bvhcnt", &[field(Counter::Bvh, 0, 3)]),
    form("s_wait_loadcnt_dscnt", &[field(Counter::Load, 8, 6), field(Counter::Ds, 0, 6)]),
    form("s_wait_storecnt_dscnt", &[field(Counter::Store, 8, 6), field(Counter::Ds, 0, 6)]),
];

impl Wait {
    /// Wait for each of `counters` to drain (reach 0).
    pub fn zero(counters: &[Counter]) -> Wait {
        let mut w = Wait::default();
        for &c in counters {
            w.add(c, 0);
        }
        w
    }

    /// Also wait for `counter` to reach `value` (the tighter of two waits on one counter).
    pub fn add(&mut self, counter: Counter, value: u32) {
        match self.0.iter_mut().find(|(c, _)| *c == counter) {
            Some((_, v)) => *v = (*v).min(value),
            None => {
                self.0.push((counter, value));
                self.0.sort();
            }
        }
    }

    /// Also wait for everything `other` waits for.
    pub fn merge(&mut self, other: &Wait) {
        for &(c, v) in &other.0 {
            self.add(c, v);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The wait of the instruction `mnemonic` with immediate `simm16` on `family`, or `None`
    /// when it is no wait instruction. An `s_waitcnt` field at its maximum is not waited on
    /// (the field's "do not wait" value); the one- and two-counter forms ([`FORMS`]) keep every
    /// limit, also an all-ones one (a wait no counter of that width can fail).
    pub fn decode(family: Family, mnemonic: &str, simm16: u32) -> Option<Wait> {
        let mut w = Wait::default();
        let mut add = |c, value: u32, max: u32| {
            if value < max {
                w.add(c, value);
            }
        };
        if mnemonic == "s_waitcnt" {
            let f = Waitcnt::decode(family, simm16);
            let max = Waitcnt::max(family);
            add(Counter::Vm, f.vm, max.vm);
            add(Counter::Exp, f.exp, max.exp);
            add(Counter::Lgkm, f.lgkm, max.lgkm);
            return Some(w);
        }
        let form = FORMS.iter().find(|f| f.mnemonic == mnemonic)?;
        for f in form.fields {
            add(f.counter, (simm16 >> f.shift) & ((1 << f.width) - 1), 1 << f.width);
        }
        Some(w)
    }

    /// A decoded wait instruction as a [`Wait`] (its limits are its first immediate, the
    /// `simm16` of SOPP/SOPK); `None` for any other instruction (`flags::WAITCNT` says which
    /// are waits; [`Wait::decode`] reads the one it is).
    pub fn of_inst(inst: &Inst, family: Family) -> Option<Wait> {
        if !inst.has(flags::WAITCNT) {
            return None;
        }
        let simm16 = inst.operands.iter().find_map(|o| if let Operand::Imm(v) = o { Some(*v as u32) } else { None }).unwrap_or(0);
        Wait::decode(family, inst.mnemonic(), simm16)
    }

    /// The instructions of this wait on `family`, as mnemonics with named operands: one
    /// `s_waitcnt` for vmcnt/expcnt/lgkmcnt, `s_waitcnt_vscnt null, n` (GFX10/11), one
    /// `s_wait_*` per counter on GFX12.
    pub fn encode(&self, family: Family) -> Vec<(&'static str, Vec<(OpName, Operand)>)> {
        let mut out = Vec::new();
        let mut combined = Waitcnt::max(family);
        let mut any = false;
        let imm = |n: u32| Operand::Imm(n as i64);
        let simm = |n: u32| vec![(OpName::simm16, imm(n))];
        for &(c, n) in &self.0 {
            match c {
                Counter::Vm => (combined.vm, any) = (n, true),
                Counter::Lgkm => (combined.lgkm, any) = (n, true),
                Counter::Exp if family != Family::Gfx12 => (combined.exp, any) = (n, true),
                Counter::Vs => out.push(("s_waitcnt_vscnt", vec![(OpName::sdst, Operand::Reg(Reg::Special(Special::Null))), (OpName::simm16, imm(n))])),
                Counter::Load => out.push(("s_wait_loadcnt", simm(n))),
                Counter::Store => out.push(("s_wait_storecnt", simm(n))),
                Counter::Ds => out.push(("s_wait_dscnt", simm(n))),
                Counter::Km => out.push(("s_wait_kmcnt", simm(n))),
                Counter::Exp => out.push(("s_wait_expcnt", simm(n))),
                Counter::Sample => out.push(("s_wait_samplecnt", simm(n))),
                Counter::Bvh => out.push(("s_wait_bvhcnt", simm(n))),
            }
        }
        if any {
            out.insert(0, ("s_waitcnt", simm(combined.encode(family))));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Immediates of waits as llvm-objdump-19 prints them (`workloads/golden/*/*.objdump.txt`):
    /// `s_waitcnt vmcnt(0)` is 0x0f70 on gfx942, 0x3f70 on gfx1030, 0x03f7 on gfx1100;
    /// `lgkmcnt(0)` on gfx908 is 0xc07f. `vmcnt(1) lgkmcnt(2)` (0x0271 on GFX9) and gfx12's
    /// `s_wait_loadcnt_dscnt` with loadcnt 1 (0x0100) follow the ISA manuals' field layouts.
    #[test]
    fn decodes_the_encodings_clang_emits() {
        for (f, imm) in [(Family::Gfx940, 0x0f70), (Family::Gfx10, 0x3f70), (Family::Gfx11, 0x03f7)] {
            assert_eq!(Wait::decode(f, "s_waitcnt", imm), Some(Wait::zero(&[Counter::Vm])), "{f:?}");
        }
        assert_eq!(Wait::decode(Family::Gfx9, "s_waitcnt", 0xc07f), Some(Wait::zero(&[Counter::Lgkm])));
        assert_eq!(Wait::decode(Family::Gfx9, "s_waitcnt", 0x0271), Some(Wait(vec![(Counter::Vm, 1), (Counter::Lgkm, 2)])));
        assert_eq!(Wait::decode(Family::Gfx12, "s_wait_loadcnt_dscnt", 0x0100), Some(Wait(vec![(Counter::Load, 1), (Counter::Ds, 0)])));
        let idle = Waitcnt::max(Family::Gfx9).encode(Family::Gfx9);
        assert_eq!(Wait::decode(Family::Gfx9, "s_waitcnt", idle), Some(Wait::default()), "fields at their maximum wait for nothing");
        assert_eq!(Wait::decode(Family::Gfx12, "s_wait_kmcnt", 0xff), Some(Wait(vec![(Counter::Km, 0x1f)])), "kmcnt is 5 bits");
        assert_eq!(Wait::decode(Family::Gfx9, "s_nop", 0), None);
    }

    /// The field widths of the one-counter forms (RDNA4 ISA, "S_WAIT_KMCNT": 5 bits; expcnt 3).
    #[test]
    fn all_ones_limits() {
        assert_eq!(Counter::Km.field_all_ones(), 31);
        assert_eq!(Counter::Exp.field_all_ones(), 7);
        assert_eq!(Counter::Load.field_all_ones(), 63);
        assert_eq!(Counter::Lgkm.field_all_ones(), 63);
    }

    /// Every instruction the tables flag as a wait is one [`Wait::decode`] reads, and no other.
    #[test]
    fn the_waitcnt_flag_marks_the_decoded_forms() {
        for row in hipscope_isa::tables::ROWS.iter() {
            let decoded = Wait::decode(Family::Gfx12, row.opcode.name(), 0).is_some();
            assert_eq!(row.has(flags::WAITCNT), decoded, "{}", row.record);
        }
    }

    /// What the code generator emits reads back as the same wait.
    #[test]
    fn encoding_round_trips() {
        let cases = [
            (Family::Gfx9, Wait(vec![(Counter::Vm, 3), (Counter::Lgkm, 0)])),
            (Family::Gfx10, Wait(vec![(Counter::Vm, 0), (Counter::Vs, 0)])),
            (Family::Gfx11, Wait(vec![(Counter::Lgkm, 1), (Counter::Exp, 2), (Counter::Vs, 5)])),
            (Family::Gfx12, Wait(vec![(Counter::Exp, 1), (Counter::Load, 0), (Counter::Store, 2), (Counter::Ds, 0), (Counter::Km, 0)])),
        ];
        for (family, wait) in cases {
            let mut back = Wait::default();
            for (mnemonic, operands) in wait.encode(family) {
                let simm16 = operands.iter().find(|(n, _)| *n == OpName::simm16).map_or(0, |(_, o)| o.imm() as u32);
                back.merge(&Wait::decode(family, mnemonic, simm16).expect("a wait instruction"));
            }
            assert_eq!(back, wait, "{family:?}");
        }
    }
}
