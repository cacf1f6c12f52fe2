//! One litmus statement at a time: its values computed on the scalar unit (`scalar.rs`),
//! converted to the type they are stored at, and its lowered sequence with the access
//! instruction of the location's type.

use super::{s, v, v2, AccessInst, AccessKind, Gen, Unsupported, CAS_DATA, DATA, LOC_BASE, SPARE, TEMP};
use crate::litmus::{Expr, RegId, Stmt};
use hipscope_isa::decode::{Operand, Reg};
use hipscope_isa::tables::OpName;
use hipscope_mm::lower;
use hipscope_mm::{Space, ValueType};

/// `count` VGPRs from `index`.
fn vn(index: u8, count: u8) -> Operand {
    Operand::Reg(Reg::Vgpr { index, count })
}

impl Gen<'_> {
    pub(super) fn stmt(&mut self, st: &Stmt) -> Result<(), Unsupported> {
        match st {
            Stmt::Assign { reg, value, .. } => {
                let ty = self.regs.declared(*reg);
                self.value_to(value, self.regs.vgpr(*reg), ty)?;
                self.regs.set_raw(*reg, ty);
            }
            Stmt::If { cond, then, otherwise, .. } => self.branch(cond, then, otherwise)?,
            // A loop would need the wave's branch and a bound the hardware run cannot give.
            Stmt::Label { .. } | Stmt::Goto { .. } => return Err(Unsupported("loops and branches that do not nest are judged by the model only".into())),
            Stmt::Load { reg, target, .. } => {
                self.access(st, Some(*reg), AccessKind::Load)?;
                self.regs.set_raw(*reg, self.test.loc_type(target.loc));
            }
            Stmt::Store { value, target, .. } => {
                self.value_to(value, DATA, self.test.loc_type(target.loc))?;
                self.access(st, None, AccessKind::Store)?;
            }
            Stmt::Rmw { old, operand, target, .. } => {
                self.value_to(operand, DATA, self.test.loc_type(target.loc))?;
                let kind = if old.is_some() { AccessKind::RmwReturn } else { AccessKind::RmwNoReturn };
                self.access(st, *old, kind)?;
                if let Some(old) = old {
                    self.regs.set_raw(*old, self.test.loc_type(target.loc));
                }
            }
            Stmt::Cas { old, ok, expected, desired, target, .. } => self.cas(st, *old, *ok, expected, desired, self.test.loc_type(target.loc))?,
            Stmt::Fence { .. } | Stmt::Barrier { .. } => {
                let op = st.memory_op(&self.test.locations).ok_or_else(|| Unsupported("not a memory operation".into()))?;
                for line in lower::lower(&op, &self.target) {
                    self.sequence_line(&line, None);
                }
            }
        }
        Ok(())
    }

    /// A compare-and-swap on a location of type `ty`, and its success flag (the value read
    /// equals the one compared with, at the location's width).
    fn cas(&mut self, st: &Stmt, old: Option<RegId>, ok: Option<RegId>, expected: &Expr, desired: &Expr, ty: ValueType) -> Result<(), Unsupported> {
        // Data operand: the new value, then the value compared with (ISA manuals,
        // `*_ATOMIC_CMPSWAP[_X2]`: DATA[0] = src, DATA[1] = cmp, a dword or a pair each).
        let words = if ty.wide() { 2 } else { 1 };
        self.value_to(desired, CAS_DATA, ty)?;
        self.value_to(expected, CAS_DATA + words, ty)?;
        self.access(st, old, AccessKind::RmwReturn)?;
        if let Some(old) = old {
            self.regs.set_raw(old, ty);
        }
        let Some(ok) = ok else { return Ok(()) };
        let (read, compared) = (TEMP + 2, TEMP + 4);
        self.read_raw(old, ty.wide(), read);
        self.emit(&["v_readfirstlane_b32"], vec![(OpName::vdst, s(compared)), (OpName::src0, v(CAS_DATA + words))]);
        if ty.wide() {
            self.emit(&["v_readfirstlane_b32"], vec![(OpName::vdst, s(compared + 1)), (OpName::src0, v(CAS_DATA + words + 1))]);
            self.emit(&["s_cmp_eq_u64"], vec![(OpName::src0, super::s2(compared)), (OpName::src1, super::s2(read))]);
        } else {
            self.emit(&["s_cmp_eq_u32"], vec![(OpName::src0, s(compared)), (OpName::src1, s(read))]);
        }
        self.emit(&["s_cselect_b32"], vec![(OpName::sdst, s(TEMP)), (OpName::src0, super::imm(1)), (OpName::src1, super::imm(0))]);
        let ok_ty = self.regs.declared(ok);
        self.convert(TEMP, ValueType::BOOL, ok_ty);
        let vgpr = self.regs.vgpr(ok);
        self.write_vgprs(TEMP, vgpr, ok_ty);
        self.regs.set_raw(ok, ok_ty);
        Ok(())
    }

    /// `if (cond) { then } else { otherwise }` on the scalar unit. Each path ends with every
    /// register holding its declared type's bits, so both leave the registers alike.
    fn branch(&mut self, cond: &Expr, then: &[Stmt], otherwise: &[Stmt]) -> Result<(), Unsupported> {
        let ty = self.expr(cond, TEMP)?;
        let (other, end) = (self.label(), self.label());
        let (compare, value) = if ty.wide() { ("s_cmp_lg_u64", super::s2(TEMP)) } else { ("s_cmp_lg_u32", s(TEMP)) };
        self.emit(&[compare], vec![(OpName::src0, value), (OpName::src1, super::imm(0))]);
        self.items.push(super::Item::Branch { name: "s_cbranch_scc0", label: other });
        let before = self.pending.clone();
        let raw_before = self.regs.clone();
        self.block(then)?;
        self.normalise();
        let after_then = std::mem::replace(&mut self.pending, before);
        self.regs = raw_before;
        self.items.push(super::Item::Branch { name: "s_branch", label: end });
        self.items.push(super::Item::Label(other));
        self.block(otherwise)?;
        self.normalise();
        self.items.push(super::Item::Label(end));
        if after_then != self.pending {
            // Either path's operations may be in flight: later waits drain their counter.
            for p in after_then {
                if !self.pending.contains(&p) {
                    self.pending.push(p);
                }
            }
            self.uncertain = true;
        }
        Ok(())
    }

    /// A load, store or atomic: its lowered sequence for the location's type, the access
    /// given its registers (pairs for a 64-bit location).
    fn access(&mut self, st: &Stmt, dst: Option<RegId>, kind: AccessKind) -> Result<(), Unsupported> {
        let op = st.memory_op(&self.test.locations).ok_or_else(|| Unsupported("not a memory operation".into()))?;
        let (target, _) = st.accesses().ok_or_else(|| Unsupported("not an access".into()))?;
        let ty = self.test.loc_type(target.loc);
        let words = if ty.wide() { 2 } else { 1 };
        let lds = self.test.locations.get(target.loc.0 as usize).is_some_and(|l| l.space == Space::Local);
        let dst_vgpr = vn(dst.map_or(SPARE, |r| self.regs.vgpr(r)), words);
        let data = vn(DATA, words);
        let base = LOC_BASE + 2 * target.loc.0 as u8;
        let mut ops = Vec::new();
        if lds {
            // DS forms: addr, data0; the lowering always uses the returning RMW forms.
            ops.push((OpName::addr, v(base)));
            match kind {
                AccessKind::Load => ops.push((OpName::vdst, dst_vgpr)),
                AccessKind::Store => ops.push((OpName::data0, data)),
                AccessKind::RmwReturn | AccessKind::RmwNoReturn => ops.extend([(OpName::data0, data), (OpName::vdst, dst_vgpr)]),
            }
        } else {
            ops.push((OpName::vaddr, v2(base)));
            match kind {
                AccessKind::Load => ops.push((OpName::vdst, dst_vgpr)),
                AccessKind::Store => ops.push((OpName::vdata, data)),
                AccessKind::RmwReturn | AccessKind::RmwNoReturn => {
                    let cas = matches!(st, Stmt::Cas { .. });
                    ops.push((OpName::vdata, if cas { vn(CAS_DATA, 2 * words) } else { data }));
                    if kind == AccessKind::RmwReturn {
                        ops.push((OpName::vdst, dst_vgpr));
                    }
                }
            }
        }
        let kind = match kind {
            AccessKind::RmwNoReturn if lds => AccessKind::RmwReturn,
            k => k,
        };
        for line in lower::lower_typed(&op, ty, &self.target) {
            self.sequence_line(&line, Some(AccessInst { ops: &ops, kind, writes: dst }));
        }
        Ok(())
    }
}
