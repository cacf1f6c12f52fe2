//! The stress waves' code (`hardware/stress.rs` says what stress is): the first wave of each
//! stress work-group loads the address of its line from the kernel arguments, then runs the
//! pattern's two plain accesses to it for the given number of iterations, with no wait between
//! them (a wave with a full counter waits for room before issuing, as the hardware does), and
//! ends once they are done.
//!
//! Kernel arguments after the delays, from an 8-byte boundary: the iteration count (4 bytes,
//! then 4 unused), then each line's address (8 bytes each).

use super::{imm, names, s, s2, v, v2, Gen, Item, COUNT, DATA, GROUP, KERNARG, LOC_BASE, SPARE, WAVE};
use crate::hardware::stress::Pattern;
use hipscope_isa::tables::OpName;
use hipscope_isa::Family;
use hipscope_mm::lower::Op;
use hipscope_mm::{Access, Counter, Space, ValueType, Wait};

/// What the stress waves do.
#[derive(Debug, Clone)]
pub struct StressCode {
    /// The stress work-groups' dispatch indices (group `g` hammers line `g mod lines`).
    pub groups: Vec<u32>,
    pub lines: u32,
    pub pattern: Pattern,
}

/// Where the stress arguments start: after the location and result addresses and the
/// delays, at an 8-byte boundary.
pub fn args_at(locations: usize, results: usize, threads: usize) -> usize {
    (8 * (locations + results) + 4 * threads).next_multiple_of(8)
}

impl Gen<'_> {
    /// Branches from the prologue: wave 0 of a stress work-group to its line's code; every
    /// other wave falls through (to the prologue's end).
    pub(super) fn stress_dispatch(&mut self, code: &StressCode) {
        let lines: Vec<usize> = (0..code.lines).map(|_| self.label()).collect();
        let other = self.label();
        self.emit(&["s_cmp_eq_u32"], vec![(OpName::src0, s(WAVE)), (OpName::src1, imm(0))]);
        self.items.push(Item::Branch { name: "s_cbranch_scc0", label: other });
        for &g in &code.groups {
            self.emit(&["s_cmp_eq_u32"], vec![(OpName::src0, s(GROUP)), (OpName::src1, imm(i64::from(g)))]);
            let line = lines[(g % code.lines.max(1)) as usize];
            self.items.push(Item::Branch { name: "s_cbranch_scc1", label: line });
        }
        self.items.push(Item::Branch { name: "s_branch", label: other });
        let start = args_at(self.test.locations.len(), self.results, self.test.threads.len()) as u32;
        let body = self.label();
        for (j, &label) in lines.iter().enumerate() {
            self.items.push(Item::Label(label));
            self.address(start + 8 + 8 * j as u32, LOC_BASE);
            self.items.push(Item::Branch { name: "s_branch", label: body });
        }
        self.items.push(Item::Label(body));
        self.stress_loop(code.pattern, start);
        self.items.push(Item::Label(other));
    }

    /// The pattern's accesses to the line at v[LOC_BASE:+1], the iteration count at
    /// `KERNARG + at` times, then every access done and the wave's end.
    fn stress_loop(&mut self, pattern: Pattern, at: u32) {
        self.emit(names::S_LOAD, vec![(OpName::sdst, s(COUNT)), (OpName::sbase, s2(KERNARG)), (OpName::offset, imm(i64::from(at)))]);
        let km = if self.family() == Family::Gfx12 { Counter::Km } else { Counter::Lgkm };
        self.wait(&Wait::zero(&[km]));
        self.emit(&["v_mov_b32"], vec![(OpName::vdst, v(DATA)), (OpName::src0, imm(1))]);
        let store = self.plain_store(ValueType::INT);
        let load =
            self.access_mnemonic(&Op::Load { access: Access::Plain, space: Space::Global }, ValueType::INT).unwrap_or_else(|| "global_load_dword".into());
        let (top, done) = (self.label(), self.label());
        self.items.push(Item::Label(top));
        self.emit(&["s_cmp_eq_u32"], vec![(OpName::src0, s(COUNT)), (OpName::src1, imm(0))]);
        self.items.push(Item::Branch { name: "s_cbranch_scc1", label: done });
        for is_store in pattern.stores() {
            if is_store {
                self.emit(&[store.as_str()], vec![(OpName::vaddr, v2(LOC_BASE)), (OpName::vdata, v(DATA))]);
            } else {
                self.emit(&[load.as_str()], vec![(OpName::vdst, v(SPARE)), (OpName::vaddr, v2(LOC_BASE))]);
            }
        }
        self.emit(names::S_SUB, vec![(OpName::sdst, s(COUNT)), (OpName::src0, s(COUNT)), (OpName::src1, imm(1))]);
        self.items.push(Item::Branch { name: "s_branch", label: top });
        self.items.push(Item::Label(done));
        let all: Vec<Counter> = [true, false].iter().map(|&st| self.counter_of(if st { super::AccessKind::Store } else { super::AccessKind::Load })).collect();
        let mut all = all;
        all.dedup();
        self.wait(&Wait::zero(&all));
        self.emit(&["s_endpgm"], vec![]);
    }
}
