//! Values on the scalar unit: register expressions evaluated in SGPRs at their C type
//! ([`arith::type_of`], the type the language model evaluates them at), conversions between
//! types, and moves between a register's VGPRs and SGPRs.
//!
//! A value of a 32-bit type takes one SGPR; a 64-bit one an even-aligned pair (64-bit SGPR
//! operands must be aligned, AMDGPU ISA manuals "Scalar ALU operands"). Each level of an
//! expression evaluates into `dst` (and `dst + 1`), its right operand into `dst + 2`, and
//! uses `dst + 4 …` as scratch. The arithmetic wraps at the type's width, as the model's does:
//! 32-bit `s_add_u32`/`s_sub_u32`/`s_mul_i32`; 64-bit add/sub with the carry forms
//! (`s_addc_u32`, `s_subb_u32`), bit operations `s_*_b64`, and multiplication from 32-bit
//! halves (the low word times the low word in full with `v_mul_hi_u32`, which every family
//! has, plus the two cross products' low words). Ordering comparisons are signed or unsigned
//! as the common type is; 64-bit ones compare the high words, then the low words unsigned
//! (SALU has only 64-bit equality compares).

use super::{imm, s, s2, v, Gen, Unsupported, SPARE, TEMP, TEMP_END};
use crate::litmus::{arith, BinOp, Expr, RegId};
use hipscope_isa::tables::OpName;
use hipscope_mm::ValueType;

/// The VGPR a 64-bit multiplication uses for its `v_mul_hi_u32`.
const MUL_TEMP: u8 = SPARE + 2;

impl Gen<'_> {
    /// Evaluate `e` into SGPR `dst` (a pair when its type is 64 bits); returns its type.
    pub(super) fn expr(&mut self, e: &Expr, dst: u8) -> Result<ValueType, Unsupported> {
        if dst + 7 >= TEMP_END {
            return Err(Unsupported("an expression too deep for the hardware layer".into()));
        }
        match e {
            Expr::Const(c) => {
                let ty = ValueType::of_literal(*c);
                self.mov_imm(dst, *c, ty);
                Ok(ty)
            }
            Expr::Reg(r) => Ok(self.read_reg(*r, dst)),
            Expr::Not(a) => {
                let ty = self.expr(a, dst)?;
                self.test_nonzero(dst, ty, true);
                Ok(ValueType::INT)
            }
            Expr::Bin(op, a, b) => self.binary(*op, a, b, dst),
        }
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, dst: u8) -> Result<ValueType, Unsupported> {
        let reg_type = |r: RegId| self.regs.declared(r);
        let common = ValueType::common(arith::type_of(a, &reg_type), arith::type_of(b, &reg_type));
        let ta = self.expr(a, dst)?;
        self.convert(dst, ta, common);
        let tb = self.expr(b, dst + 2)?;
        self.convert(dst + 2, tb, common);
        if matches!(op, BinOp::LogicalAnd | BinOp::LogicalOr) {
            self.test_nonzero(dst, common, false);
            self.test_nonzero(dst + 2, common, false);
            let name = if op == BinOp::LogicalAnd { "s_and_b32" } else { "s_or_b32" };
            self.alu(name, dst, dst, dst + 2);
            return Ok(ValueType::INT);
        }
        if arith::is_arithmetic(op) {
            if common.wide() {
                self.arith64(op, dst);
            } else {
                self.arith32(op, dst);
            }
            return Ok(common);
        }
        self.compare(op, common, dst);
        Ok(ValueType::INT)
    }

    fn alu(&mut self, name: &str, dst: u8, a: u8, b: u8) {
        self.emit(&[name], vec![(OpName::sdst, s(dst)), (OpName::src0, s(a)), (OpName::src1, s(b))]);
    }

    fn alu64(&mut self, name: &str, dst: u8, a: u8, b: u8) {
        self.emit(&[name], vec![(OpName::sdst, s2(dst)), (OpName::src0, s2(a)), (OpName::src1, s2(b))]);
    }

    fn arith32(&mut self, op: BinOp, dst: u8) {
        let names: &[&str] = match op {
            BinOp::Add => super::names::S_ADD,
            BinOp::Sub => super::names::S_SUB,
            BinOp::Mul => &["s_mul_i32"],
            BinOp::And => &["s_and_b32"],
            BinOp::Or => &["s_or_b32"],
            _ => &["s_xor_b32"],
        };
        self.emit(names, vec![(OpName::sdst, s(dst)), (OpName::src0, s(dst)), (OpName::src1, s(dst + 2))]);
    }

    fn arith64(&mut self, op: BinOp, dst: u8) {
        match op {
            BinOp::Add | BinOp::Sub => {
                let (lo, hi) = if op == BinOp::Add { (super::names::S_ADD, super::names::S_ADDC) } else { (super::names::S_SUB, super::names::S_SUBB) };
                self.emit(lo, vec![(OpName::sdst, s(dst)), (OpName::src0, s(dst)), (OpName::src1, s(dst + 2))]);
                self.emit(hi, vec![(OpName::sdst, s(dst + 1)), (OpName::src0, s(dst + 1)), (OpName::src1, s(dst + 3))]);
            }
            BinOp::Mul => self.mul64(dst),
            BinOp::And => self.alu64("s_and_b64", dst, dst, dst + 2),
            BinOp::Or => self.alu64("s_or_b64", dst, dst, dst + 2),
            _ => self.alu64("s_xor_b64", dst, dst, dst + 2),
        }
    }

    /// `s[dst:dst+1] *= s[dst+2:dst+3]` modulo 2⁶⁴: hi = mulhi(alo, blo) + alo·bhi + ahi·blo.
    fn mul64(&mut self, dst: u8) {
        let (hi, t) = (dst + 4, dst + 5);
        self.emit(&["v_mov_b32"], vec![(OpName::vdst, v(MUL_TEMP)), (OpName::src0, s(dst + 2))]);
        self.emit(&["v_mul_hi_u32"], vec![(OpName::vdst, v(MUL_TEMP)), (OpName::src0, s(dst)), (OpName::src1, v(MUL_TEMP))]);
        self.emit(&["v_readfirstlane_b32"], vec![(OpName::vdst, s(hi)), (OpName::src0, v(MUL_TEMP))]);
        self.alu("s_mul_i32", t, dst, dst + 3);
        self.emit(super::names::S_ADD, vec![(OpName::sdst, s(hi)), (OpName::src0, s(hi)), (OpName::src1, s(t))]);
        self.alu("s_mul_i32", t, dst + 1, dst + 2);
        self.emit(super::names::S_ADD, vec![(OpName::sdst, s(hi)), (OpName::src0, s(hi)), (OpName::src1, s(t))]);
        self.alu("s_mul_i32", dst, dst, dst + 2);
        self.emit(&["s_mov_b32"], vec![(OpName::sdst, s(dst + 1)), (OpName::src0, s(hi))]);
    }

    /// `dst = (s[dst] op s[dst+2])` as 0 or 1, compared at type `ty`.
    fn compare(&mut self, op: BinOp, ty: ValueType, dst: u8) {
        if !ty.wide() {
            let sign = if ty.signed { "i32" } else { "u32" };
            let name = match op {
                BinOp::Eq => "s_cmp_eq_u32".to_string(),
                BinOp::Ne => "s_cmp_lg_u32".to_string(),
                BinOp::Lt => format!("s_cmp_lt_{sign}"),
                BinOp::Le => format!("s_cmp_le_{sign}"),
                BinOp::Gt => format!("s_cmp_gt_{sign}"),
                _ => format!("s_cmp_ge_{sign}"),
            };
            self.emit(&[name.as_str()], vec![(OpName::src0, s(dst)), (OpName::src1, s(dst + 2))]);
            self.select(dst);
            return;
        }
        // a < b, b < a, !(b < a), !(a < b) for <, >, <=, >=.
        let (a, b) = (dst, dst + 2);
        let (x, y, negate) = match op {
            BinOp::Eq | BinOp::Ne => {
                let name = if op == BinOp::Eq { "s_cmp_eq_u64" } else { "s_cmp_lg_u64" };
                self.emit(&[name], vec![(OpName::src0, s2(a)), (OpName::src1, s2(b))]);
                self.select(dst);
                return;
            }
            BinOp::Lt => (a, b, false),
            BinOp::Gt => (b, a, false),
            BinOp::Le => (b, a, true),
            _ => (a, b, true),
        };
        self.less64(x, y, ty.signed, dst);
        if negate {
            self.emit(&["s_xor_b32"], vec![(OpName::sdst, s(dst)), (OpName::src0, s(dst)), (OpName::src1, imm(1))]);
        }
    }

    /// `dst = (s[x:x+1] < s[y:y+1])`: the high words decide unless equal, then the low
    /// words unsigned. Scratch above `dst + 4`.
    fn less64(&mut self, x: u8, y: u8, signed: bool, dst: u8) {
        let (high_less, high_equal, low_less) = (dst + 4, dst + 5, dst + 6);
        let lt = if signed { "s_cmp_lt_i32" } else { "s_cmp_lt_u32" };
        self.emit(&[lt], vec![(OpName::src0, s(x + 1)), (OpName::src1, s(y + 1))]);
        self.select(high_less);
        self.emit(&["s_cmp_eq_u32"], vec![(OpName::src0, s(x + 1)), (OpName::src1, s(y + 1))]);
        self.select(high_equal);
        self.emit(&["s_cmp_lt_u32"], vec![(OpName::src0, s(x)), (OpName::src1, s(y))]);
        self.select(low_less);
        self.alu("s_and_b32", high_equal, high_equal, low_less);
        self.alu("s_or_b32", dst, high_less, high_equal);
    }

    /// `dst = SCC ? 1 : 0`.
    fn select(&mut self, dst: u8) {
        self.emit(&["s_cselect_b32"], vec![(OpName::sdst, s(dst)), (OpName::src0, imm(1)), (OpName::src1, imm(0))]);
    }

    /// `dst = (value != 0)` (or `== 0` when `negate`) for a value of type `ty` at `dst`.
    fn test_nonzero(&mut self, dst: u8, ty: ValueType, negate: bool) {
        let (name, operand) = match (ty.wide(), negate) {
            (true, false) => ("s_cmp_lg_u64", s2(dst)),
            (true, true) => ("s_cmp_eq_u64", s2(dst)),
            (false, false) => ("s_cmp_lg_u32", s(dst)),
            (false, true) => ("s_cmp_eq_u32", s(dst)),
        };
        self.emit(&[name], vec![(OpName::src0, operand), (OpName::src1, imm(0))]);
        self.select(dst);
    }

    /// Convert the value of type `from` at `dst` to type `to` in place ([conv.integral]: a
    /// wider type sign- or zero-extends, a narrower one keeps the low word; `bool` tests for
    /// non-zero).
    pub(super) fn convert(&mut self, dst: u8, from: ValueType, to: ValueType) {
        if to == ValueType::BOOL && from != ValueType::BOOL {
            self.test_nonzero(dst, from, false);
        } else if to.wide() && !from.wide() {
            if from.signed {
                self.emit(&["s_ashr_i32"], vec![(OpName::sdst, s(dst + 1)), (OpName::src0, s(dst)), (OpName::src1, imm(31))]);
            } else {
                self.emit(&["s_mov_b32"], vec![(OpName::sdst, s(dst + 1)), (OpName::src0, imm(0))]);
            }
        }
    }

    /// `dst` (and `dst + 1`) = the value `c` of type `ty`, word by word.
    pub(super) fn mov_imm(&mut self, dst: u8, c: hipscope_mm::Value, ty: ValueType) {
        let bits = ty.wrap(c) as u64;
        self.emit(&["s_mov_b32"], vec![(OpName::sdst, s(dst)), (OpName::src0, imm(word(bits)))]);
        if ty.wide() {
            self.emit(&["s_mov_b32"], vec![(OpName::sdst, s(dst + 1)), (OpName::src0, imm(word(bits >> 32)))]);
        }
    }

    /// VGPR `vgpr` (and `vgpr + 1`) = the value `c` of type `ty`, word by word.
    pub(super) fn vgprs_imm(&mut self, vgpr: u8, c: hipscope_mm::Value, ty: ValueType) {
        let bits = ty.wrap(c) as u64;
        self.emit(&["v_mov_b32"], vec![(OpName::vdst, v(vgpr)), (OpName::src0, imm(word(bits)))]);
        if ty.wide() {
            self.emit(&["v_mov_b32"], vec![(OpName::vdst, v(vgpr + 1)), (OpName::src0, imm(word(bits >> 32)))]);
        }
    }

    /// The bits register `reg` (`None`: the spare VGPRs) holds, `wide` of them, into `dst`,
    /// after the wait for the access that wrote it.
    pub(super) fn read_raw(&mut self, reg: Option<RegId>, wide: bool, dst: u8) {
        self.wait_for(reg);
        let src = reg.map_or(SPARE, |r| self.regs.vgpr(r));
        self.emit(&["v_readfirstlane_b32"], vec![(OpName::vdst, s(dst)), (OpName::src0, v(src))]);
        if wide {
            self.emit(&["v_readfirstlane_b32"], vec![(OpName::vdst, s(dst + 1)), (OpName::src0, v(src + 1))]);
        }
    }

    /// Register `reg`'s value, converted to its declared type, into `dst`.
    pub(super) fn read_reg(&mut self, reg: RegId, dst: u8) -> ValueType {
        let (raw, declared) = (self.regs.raw(reg), self.regs.declared(reg));
        self.read_raw(Some(reg), raw.wide(), dst);
        self.convert(dst, raw, declared);
        declared
    }

    /// Move a value of type `ty` from SGPR `src` into VGPR `vgpr` (a pair when 64 bits).
    pub(super) fn write_vgprs(&mut self, src: u8, vgpr: u8, ty: ValueType) {
        self.emit(&["v_mov_b32"], vec![(OpName::vdst, v(vgpr)), (OpName::src0, s(src))]);
        if ty.wide() {
            self.emit(&["v_mov_b32"], vec![(OpName::vdst, v(vgpr + 1)), (OpName::src0, s(src + 1))]);
        }
    }

    /// Evaluate `e`, convert it to `ty` (an assignment, a store's value, an atomic's
    /// operand) and move it to VGPR `vgpr`.
    pub(super) fn value_to(&mut self, e: &Expr, vgpr: u8, ty: ValueType) -> Result<(), Unsupported> {
        let from = self.expr(e, TEMP)?;
        self.convert(TEMP, from, ty);
        self.write_vgprs(TEMP, vgpr, ty);
        Ok(())
    }

    /// Give every register whose VGPRs hold another type's bits its declared type's (where
    /// the two differ in more than signedness, which needs the value).
    pub(super) fn normalise(&mut self) {
        for reg in self.regs.stale() {
            let (raw, declared) = (self.regs.raw(reg), self.regs.declared(reg));
            if raw.wide() != declared.wide() || declared == ValueType::BOOL {
                self.read_reg(reg, TEMP);
                let vgpr = self.regs.vgpr(reg);
                self.write_vgprs(TEMP, vgpr, declared);
            }
            self.regs.set_raw(reg, declared);
        }
    }
}

/// One 32-bit word as the immediate operand the decoder reads back: an inline constant
/// (-16…64) as its value, any other word as a 32-bit literal, which decodes zero-extended
/// (ISA manuals, "Scalar ALU operands": inline integers 128–208, literal 255).
fn word(bits: u64) -> i64 {
    let w = bits as u32;
    let signed = w as i32;
    if (-16..=64).contains(&signed) {
        i64::from(signed)
    } else {
        i64::from(w)
    }
}
