//! SALU floating-point operations of GFX11.5 and GFX12 (`s_add_f32`, `s_mul_f32`,
//! `s_fmac_f32`, `s_cvt_*`, `s_ceil_f32`, `s_cmp_*_f32`, and their f16 forms).
//!
//! ISA manuals (RDNA3.5, RDNA4), "SOP1/SOP2/SOPC Instructions" for the operations and
//! "MODE register" for rounding and denormals. Arithmetic is correctly rounded in the MODE
//! rounding mode with MODE's denormal controls; a NaN input gives that NaN made quiet, an
//! invalid operation the canonical quiet NaN. Conversions to integers truncate and saturate
//! (NaN gives 0). f16 operands are the low 16 bits of their SGPR.

use super::fp::{self, Ctl, Format, Round, F16, F16_QNAN, F32, F32_QNAN};
use hipscope_isa::tables::Opcode;
use hipscope_isa::Family;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FOp {
    Add,
    Sub,
    Mul,
    /// D = S0 * S1 + S2 (`s_fmac`, `s_fmaak`, `s_fmamk` with their operands arranged).
    Fma,
    /// minNum/maxNum (GFX11.5 `s_min_f32`, GFX12 `s_min_num_f32`): a NaN operand loses.
    MinNum,
    MaxNum,
    /// GFX12 `s_minimum_f32`/`s_maximum_f32`: a NaN operand wins.
    Minimum,
    Maximum,
    CvtF32I32,
    CvtF32U32,
    CvtI32F32,
    CvtU32F32,
    CvtF16F32,
    CvtF32F16,
    CvtHiF32F16,
    /// D = {f16(S1), f16(S0)}, rounded toward zero.
    CvtPkRtz,
    Ceil,
    Floor,
    Trunc,
    Rndne,
    Cmp(FRel),
}

/// Float comparisons of `s_cmp_*_f32/f16` (the `n*` forms are true on unordered operands).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FRel {
    Lt,
    Eq,
    Le,
    Gt,
    Lg,
    Ge,
    O,
    U,
    Nge,
    Nlg,
    Ngt,
    Nle,
    Neq,
    Nlt,
}

/// A classified float operation: `half` for f16 arithmetic (operands and result in the low 16
/// bits), `ieee_snan` when a signaling NaN
/// input to min/max yields that NaN quieted under MODE.IEEE (GFX11.5 `v_min`-style rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Float {
    pub op: FOp,
    pub half: bool,
    pub ieee_snan: bool,
}

/// How the operands of an opcode are arranged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Unary,
    Binary,
    /// D = S0 * S1 + D.
    Fmac,
    /// D = S0 * S1 + K.
    Fmaak,
    /// D = S0 * K + S1.
    Fmamk,
    Cmp,
}

pub fn float_of(op: Opcode, family: Family) -> Option<(Float, Shape)> {
    use FOp::*;
    use Opcode::*;
    use Shape::*;
    let (fop, half, shape) = match op {
        S_ADD_F32 => (Add, false, Binary),
        S_SUB_F32 => (Sub, false, Binary),
        S_MUL_F32 => (Mul, false, Binary),
        S_MIN_F32 | S_MIN_NUM_F32 => (MinNum, false, Binary),
        S_MAX_F32 | S_MAX_NUM_F32 => (MaxNum, false, Binary),
        S_MINIMUM_F32 => (Minimum, false, Binary),
        S_MAXIMUM_F32 => (Maximum, false, Binary),
        S_FMAC_F32 => (Fma, false, Fmac),
        S_FMAAK_F32 => (Fma, false, Fmaak),
        S_FMAMK_F32 => (Fma, false, Fmamk),
        S_CVT_PK_RTZ_F16_F32 => (CvtPkRtz, false, Binary),
        S_ADD_F16 => (Add, true, Binary),
        S_SUB_F16 => (Sub, true, Binary),
        S_MUL_F16 => (Mul, true, Binary),
        S_MIN_F16 | S_MIN_NUM_F16 => (MinNum, true, Binary),
        S_MAX_F16 | S_MAX_NUM_F16 => (MaxNum, true, Binary),
        S_MINIMUM_F16 => (Minimum, true, Binary),
        S_MAXIMUM_F16 => (Maximum, true, Binary),
        S_FMAC_F16 => (Fma, true, Fmac),
        S_CVT_F32_I32 => (CvtF32I32, false, Unary),
        S_CVT_F32_U32 => (CvtF32U32, false, Unary),
        S_CVT_I32_F32 => (CvtI32F32, false, Unary),
        S_CVT_U32_F32 => (CvtU32F32, false, Unary),
        S_CVT_F16_F32 => (CvtF16F32, false, Unary),
        S_CVT_F32_F16 => (CvtF32F16, false, Unary),
        S_CVT_HI_F32_F16 => (CvtHiF32F16, false, Unary),
        S_CEIL_F32 => (Ceil, false, Unary),
        S_FLOOR_F32 => (Floor, false, Unary),
        S_TRUNC_F32 => (Trunc, false, Unary),
        S_RNDNE_F32 => (Rndne, false, Unary),
        S_CEIL_F16 => (Ceil, true, Unary),
        S_FLOOR_F16 => (Floor, true, Unary),
        S_TRUNC_F16 => (Trunc, true, Unary),
        S_RNDNE_F16 => (Rndne, true, Unary),
        _ => return cmp_of(op).map(|(rel, half)| (Float { op: FOp::Cmp(rel), half, ieee_snan: false }, Shape::Cmp)),
    };
    Some((Float { op: fop, half, ieee_snan: family == Family::Gfx11 }, shape))
}

fn cmp_of(op: Opcode) -> Option<(FRel, bool)> {
    use FRel::*;
    use Opcode::*;
    Some(match op {
        S_CMP_LT_F32 => (Lt, false),
        S_CMP_EQ_F32 => (Eq, false),
        S_CMP_LE_F32 => (Le, false),
        S_CMP_GT_F32 => (Gt, false),
        S_CMP_LG_F32 => (Lg, false),
        S_CMP_GE_F32 => (Ge, false),
        S_CMP_O_F32 => (O, false),
        S_CMP_U_F32 => (U, false),
        S_CMP_NGE_F32 => (Nge, false),
        S_CMP_NLG_F32 => (Nlg, false),
        S_CMP_NGT_F32 => (Ngt, false),
        S_CMP_NLE_F32 => (Nle, false),
        S_CMP_NEQ_F32 => (Neq, false),
        S_CMP_NLT_F32 => (Nlt, false),
        S_CMP_LT_F16 => (Lt, true),
        S_CMP_EQ_F16 => (Eq, true),
        S_CMP_LE_F16 => (Le, true),
        S_CMP_GT_F16 => (Gt, true),
        S_CMP_LG_F16 => (Lg, true),
        S_CMP_GE_F16 => (Ge, true),
        S_CMP_O_F16 => (O, true),
        S_CMP_U_F16 => (U, true),
        S_CMP_NGE_F16 => (Nge, true),
        S_CMP_NLG_F16 => (Nlg, true),
        S_CMP_NGT_F16 => (Ngt, true),
        S_CMP_NLE_F16 => (Nle, true),
        S_CMP_NEQ_F16 => (Neq, true),
        S_CMP_NLT_F16 => (Nlt, true),
        _ => return None,
    })
}

/// Operand values of one width: decode, classify, encode.
#[derive(Clone, Copy)]
struct Kind {
    half: bool,
}

impl Kind {
    fn fmt(self) -> Format {
        if self.half {
            F16
        } else {
            F32
        }
    }

    fn value(self, bits: u32) -> f64 {
        if self.half {
            fp::f16_to_f64(bits as u16)
        } else {
            f32::from_bits(bits) as f64
        }
    }

    fn bits(self, x: f64) -> u32 {
        if self.half {
            fp::f64_to_f16_bits(x) as u32
        } else {
            (x as f32).to_bits()
        }
    }

    fn is_nan(self, bits: u32) -> bool {
        if self.half {
            bits & 0x7c00 == 0x7c00 && bits & 0x3ff != 0
        } else {
            f32::from_bits(bits).is_nan()
        }
    }

    fn is_snan(self, bits: u32) -> bool {
        self.is_nan(bits) && bits & if self.half { 0x200 } else { 0x40_0000 } == 0
    }

    fn quiet(self, bits: u32) -> u32 {
        if self.half {
            (bits | 0x200) & 0xffff
        } else {
            bits | 0x40_0000
        }
    }

    fn canonical_nan(self) -> u32 {
        if self.half {
            F16_QNAN as u32
        } else {
            F32_QNAN
        }
    }

    fn ctl(self, mode: u32) -> Ctl {
        Ctl::from_mode(mode, self.half)
    }

    fn input(self, bits: u32, ctl: Ctl) -> f64 {
        fp::flush_in(self.value(bits), self.fmt(), ctl)
    }
}

/// Evaluate a float operation on raw operand bits; returns the destination bits (or the SCC
/// value for comparisons, as 0/1). `mode` is the wave's MODE register.
pub fn eval(f: Float, a: u32, b: u32, c: u32, mode: u32) -> u32 {
    let k = Kind { half: f.half };
    let (a, b, c) = if f.half { (a & 0xffff, b & 0xffff, c & 0xffff) } else { (a, b, c) };
    match f.op {
        FOp::Add | FOp::Sub | FOp::Mul | FOp::Fma => arith(f.op, k, [a, b, c], mode),
        FOp::MinNum | FOp::MaxNum => min_max_num(f, k, a, b, mode),
        FOp::Minimum | FOp::Maximum => minimum_maximum(f.op == FOp::Minimum, k, a, b),
        FOp::Cmp(rel) => compare(rel, k.value(a), k.value(b)) as u32,
        FOp::Ceil | FOp::Floor | FOp::Trunc | FOp::Rndne => integral(f.op, a, k, k.ctl(mode)),
        _ => convert(f.op, a, b, mode),
    }
}

fn arith(op: FOp, k: Kind, src: [u32; 3], mode: u32) -> u32 {
    let used = if op == FOp::Fma { 3 } else { 2 };
    if let Some(&n) = src[..used].iter().find(|&&s| k.is_nan(s)) {
        return k.quiet(n);
    }
    let ctl = k.ctl(mode);
    let [x, y, z] = src.map(|s| k.input(s, ctl));
    let (hi, lo, addends) = match op {
        FOp::Add => with_addends(fp::two_sum(x, y), x, y),
        FOp::Sub => with_addends(fp::two_sum(x, -y), x, -y),
        FOp::Mul => (x * y, 0.0, None),
        _ => with_addends(fp::two_sum(x * y, z), x * y, z),
    };
    if hi.is_nan() {
        return k.canonical_nan();
    }
    if hi == 0.0 && lo == 0.0 {
        if let Some((p, q)) = addends {
            return k.bits(zero_sum_sign(p, q, ctl.round));
        }
    }
    k.bits(fp::round(hi, lo, k.fmt(), ctl))
}

fn with_addends((hi, lo): (f64, f64), p: f64, q: f64) -> (f64, f64, Option<(f64, f64)>) {
    (hi, lo, Some((p, q)))
}

/// IEEE 754 sign of an exact zero sum: -0 only for (-0) + (-0), or for any other exact zero
/// in round-toward-negative mode.
fn zero_sum_sign(p: f64, q: f64, round: Round) -> f64 {
    let both_negative_zero = p == 0.0 && q == 0.0 && p.is_sign_negative() && q.is_sign_negative();
    let both_positive_zero = p == 0.0 && q == 0.0 && p.is_sign_positive() && q.is_sign_positive();
    if both_negative_zero || (round == Round::Down && !both_positive_zero) {
        -0.0
    } else {
        0.0
    }
}

/// minNum / maxNum with -0 < +0.
fn min_max_num(f: Float, k: Kind, a: u32, b: u32, mode: u32) -> u32 {
    let ieee = f.ieee_snan && mode >> 9 & 1 != 0;
    if ieee && k.is_snan(a) {
        return k.quiet(a);
    }
    if ieee && k.is_snan(b) {
        return k.quiet(b);
    }
    match (k.is_nan(a), k.is_nan(b)) {
        (true, true) => k.quiet(a),
        (true, false) => b,
        (false, true) => a,
        _ => pick(f.op == FOp::MinNum, k, a, b),
    }
}

/// IEEE 754-2019 minimum / maximum: a NaN operand gives a quiet NaN, -0 < +0.
fn minimum_maximum(min: bool, k: Kind, a: u32, b: u32) -> u32 {
    if k.is_nan(a) {
        return k.quiet(a);
    }
    if k.is_nan(b) {
        return k.quiet(b);
    }
    pick(min, k, a, b)
}

fn pick(min: bool, k: Kind, a: u32, b: u32) -> u32 {
    let (x, y) = (k.value(a), k.value(b));
    let a_less = x < y || (x == 0.0 && y == 0.0 && x.is_sign_negative() && y.is_sign_positive());
    if a_less == min {
        a
    } else {
        b
    }
}

fn compare(rel: FRel, a: f64, b: f64) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    use FRel::*;
    let ord = a.partial_cmp(&b); // None: unordered (a NaN operand)
    let lt = ord == Some(Less);
    let eq = ord == Some(Equal);
    let gt = ord == Some(Greater);
    match rel {
        Lt => lt,
        Eq => eq,
        Le => lt || eq,
        Gt => gt,
        Lg => lt || gt,
        Ge => gt || eq,
        O => ord.is_some(),
        U => ord.is_none(),
        Nge => !(gt || eq),
        Nlg => !(lt || gt),
        Ngt => !gt,
        Nle => !(lt || eq),
        Neq => !eq,
        Nlt => !lt,
    }
}

/// Conversions and rounding to integral values.
fn convert(op: FOp, a: u32, b: u32, mode: u32) -> u32 {
    let (c32, c16) = (Ctl::from_mode(mode, false), Ctl::from_mode(mode, true));
    let s32 = Kind { half: false };
    match op {
        FOp::CvtF32I32 => s32.bits(fp::round(a as i32 as f64, 0.0, F32, c32)),
        FOp::CvtF32U32 => s32.bits(fp::round(a as f64, 0.0, F32, c32)),
        FOp::CvtI32F32 => f32::from_bits(a) as i32 as u32,
        FOp::CvtU32F32 => f32::from_bits(a) as u32,
        FOp::CvtF16F32 => to_f16(a, c32, c16),
        FOp::CvtF32F16 => from_f16(a & 0xffff, c16),
        FOp::CvtHiF32F16 => from_f16(a >> 16, c16),
        FOp::CvtPkRtz => {
            let rtz = Ctl { round: Round::Zero, ..c16 };
            to_f16(a, c32, rtz) | to_f16(b, c32, rtz) << 16
        }
        _ => 0,
    }
}

fn integral(op: FOp, a: u32, k: Kind, ctl: Ctl) -> u32 {
    if k.is_nan(a) {
        return k.quiet(a);
    }
    let x = k.input(a, ctl);
    let r = match op {
        FOp::Ceil => x.ceil(),
        FOp::Floor => x.floor(),
        FOp::Trunc => x.trunc(),
        _ => x.round_ties_even(),
    };
    k.bits(r)
}

fn to_f16(a: u32, c32: Ctl, c16: Ctl) -> u32 {
    let s32 = Kind { half: false };
    if s32.is_nan(a) {
        // The quiet bit and the top payload bits carry over.
        return (a >> 16 & 0x8000) | 0x7e00 | (a >> 13 & 0x1ff);
    }
    fp::f64_to_f16_bits(fp::round(s32.input(a, c32), 0.0, F16, c16)) as u32
}

fn from_f16(h: u32, c16: Ctl) -> u32 {
    let s16 = Kind { half: true };
    if s16.is_nan(h) {
        return (h & 0x8000) << 16 | 0x7fc0_0000 | (h & 0x1ff) << 13;
    }
    (s16.input(h, c16) as f32).to_bits()
}

#[cfg(test)]
mod tests {
    use super::*;

    const RNE_KEEP: u32 = 0xf0;

    fn f(op: FOp) -> Float {
        Float { op, half: false, ieee_snan: false }
    }

    #[test]
    fn arithmetic_and_nans() {
        let one = 1.0f32.to_bits();
        assert_eq!(eval(f(FOp::Add), one, one, 0, RNE_KEEP), 2.0f32.to_bits());
        assert_eq!(eval(f(FOp::Sub), one, one, 0, RNE_KEEP), 0);
        // x - x is -0 when rounding toward -inf (MODE round f32 = 2).
        assert_eq!(eval(f(FOp::Sub), one, one, 0, RNE_KEEP | 2), 0x8000_0000);
        let inf = f32::INFINITY.to_bits();
        assert_eq!(eval(f(FOp::Sub), inf, inf, 0, RNE_KEEP), F32_QNAN);
        assert_eq!(eval(f(FOp::Mul), 0x7f80_0001, one, 0, RNE_KEEP), 0x7fc0_0001);
        // fma(3, 1/3-ish, -1) is exact in one rounding.
        let (x, y, z) = (3.0f32, 0.333_333_34f32, -1.0f32);
        assert_eq!(eval(f(FOp::Fma), x.to_bits(), y.to_bits(), z.to_bits(), RNE_KEEP), x.mul_add(y, z).to_bits());
    }

    #[test]
    fn conversions() {
        assert_eq!(eval(f(FOp::CvtU32F32), (-5.0f32).to_bits(), 0, 0, RNE_KEEP), 0);
        assert_eq!(eval(f(FOp::CvtU32F32), 1e20f32.to_bits(), 0, 0, RNE_KEEP), u32::MAX);
        assert_eq!(eval(f(FOp::CvtI32F32), f32::NAN.to_bits(), 0, 0, RNE_KEEP), 0);
        // 2^24 + 1 is not representable: nearest even is 2^24, toward +inf 2^24 + 2.
        assert_eq!(eval(f(FOp::CvtF32U32), (1 << 24) + 1, 0, 0, RNE_KEEP), 16_777_216f32.to_bits());
        assert_eq!(eval(f(FOp::CvtF32U32), (1 << 24) + 1, 0, 0, RNE_KEEP | 1), 16_777_218f32.to_bits());
        assert_eq!(eval(f(FOp::CvtF16F32), 1.0f32.to_bits(), 0, 0, RNE_KEEP), 0x3c00);
        assert_eq!(eval(f(FOp::CvtHiF32F16), 0x3c00_0000, 0, 0, RNE_KEEP), one_bits());
    }

    fn one_bits() -> u32 {
        1.0f32.to_bits()
    }

    #[test]
    fn min_max() {
        let (neg0, pos0) = (0x8000_0000u32, 0u32);
        assert_eq!(eval(f(FOp::MinNum), pos0, neg0, 0, RNE_KEEP), neg0);
        assert_eq!(eval(f(FOp::MaxNum), neg0, pos0, 0, RNE_KEEP), pos0);
        assert_eq!(eval(f(FOp::MinNum), F32_QNAN, 5, 0, RNE_KEEP), 5);
        assert_eq!(eval(f(FOp::Minimum), 5, F32_QNAN, 0, RNE_KEEP), F32_QNAN);
    }
}
