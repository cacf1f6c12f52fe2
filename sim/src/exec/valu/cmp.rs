//! Compare kernels: one result bit per lane (ISA "VOPC Instructions": 16 float conditions
//! F, LT, EQ, LE, GT, LG, GE, O, U, NGE, NLG, NGT, NLE, NEQ, NLT, TRU; 8 integer conditions
//! F, LT, EQ, LE, GT, NE, GE, T; V_CMP_CLASS with the 10-bit class mask in S1).
//! Ordered conditions are false and negated ("N") conditions true when an operand is NaN.

// NaN-aware spellings are deliberate: `x < y || x > y` is not `x != y` for floats, and
// `!(x >= y)` is not `x < y`.
#![allow(clippy::double_comparisons, clippy::neg_cmp_op_on_partial_ord, clippy::nonminimal_bool)]

use super::fp::{class_index, d, f, h2d};
use super::lanes::test;
use super::lanes::Kernel;

/// The float conditions, in VOPC opcode-offset order.
macro_rules! fcmp {
    ($conv:expr, $f:ident, $lt:ident, $eq:ident, $le:ident, $gt:ident, $lg:ident, $ge:ident, $o:ident,
     $u:ident, $nge:ident, $nlg:ident, $ngt:ident, $nle:ident, $neq:ident, $nlt:ident, $tru:ident) => {
        test! {
            $f = |a, b, k| false;
            $lt = |a, b, k| $conv(a) < $conv(b);
            $eq = |a, b, k| $conv(a) == $conv(b);
            $le = |a, b, k| $conv(a) <= $conv(b);
            $gt = |a, b, k| $conv(a) > $conv(b);
            $lg = |a, b, k| { let (x, y) = ($conv(a), $conv(b)); x < y || x > y };
            $ge = |a, b, k| $conv(a) >= $conv(b);
            $o = |a, b, k| !$conv(a).is_nan() && !$conv(b).is_nan();
            $u = |a, b, k| $conv(a).is_nan() || $conv(b).is_nan();
            $nge = |a, b, k| !($conv(a) >= $conv(b));
            $nlg = |a, b, k| { let (x, y) = ($conv(a), $conv(b)); !(x < y || x > y) };
            $ngt = |a, b, k| !($conv(a) > $conv(b));
            $nle = |a, b, k| !($conv(a) <= $conv(b));
            $neq = |a, b, k| $conv(a) != $conv(b);
            $nlt = |a, b, k| !($conv(a) < $conv(b));
            $tru = |a, b, k| true;
        }
    };
}

/// The integer conditions, in VOPC opcode-offset order.
macro_rules! icmp {
    ($conv:expr, $f:ident, $lt:ident, $eq:ident, $le:ident, $gt:ident, $ne:ident, $ge:ident, $t:ident) => {
        test! {
            $f = |a, b, k| false;
            $lt = |a, b, k| $conv(a) < $conv(b);
            $eq = |a, b, k| $conv(a) == $conv(b);
            $le = |a, b, k| $conv(a) <= $conv(b);
            $gt = |a, b, k| $conv(a) > $conv(b);
            $ne = |a, b, k| $conv(a) != $conv(b);
            $ge = |a, b, k| $conv(a) >= $conv(b);
            $t = |a, b, k| true;
        }
    };
}

fn h(a: u64) -> f64 {
    h2d(a)
}
fn s(a: u64) -> f32 {
    f(a)
}

fcmp!(h, f_f16, lt_f16, eq_f16, le_f16, gt_f16, lg_f16, ge_f16, o_f16, u_f16, nge_f16, nlg_f16, ngt_f16, nle_f16, neq_f16, nlt_f16, tru_f16);
fcmp!(s, f_f32, lt_f32, eq_f32, le_f32, gt_f32, lg_f32, ge_f32, o_f32, u_f32, nge_f32, nlg_f32, ngt_f32, nle_f32, neq_f32, nlt_f32, tru_f32);
fcmp!(d, f_f64, lt_f64, eq_f64, le_f64, gt_f64, lg_f64, ge_f64, o_f64, u_f64, nge_f64, nlg_f64, ngt_f64, nle_f64, neq_f64, nlt_f64, tru_f64);
icmp!(|a: u64| a as u16 as i16, f_i16, lt_i16, eq_i16, le_i16, gt_i16, ne_i16, ge_i16, t_i16);
icmp!(|a: u64| a as u16, f_u16, lt_u16, eq_u16, le_u16, gt_u16, ne_u16, ge_u16, t_u16);
icmp!(|a: u64| a as u32 as i32, f_i32, lt_i32, eq_i32, le_i32, gt_i32, ne_i32, ge_i32, t_i32);
icmp!(|a: u64| a as u32, f_u32, lt_u32, eq_u32, le_u32, gt_u32, ne_u32, ge_u32, t_u32);
icmp!(|a: u64| a as i64, f_i64, lt_i64, eq_i64, le_i64, gt_i64, ne_i64, ge_i64, t_i64);
icmp!(|a: u64| a, f_u64, lt_u64, eq_u64, le_u64, gt_u64, ne_u64, ge_u64, t_u64);

test! {
    class_f16 = |a, b, k| b >> class_index(a, 16) & 1 != 0;
    class_f32 = |a, b, k| b >> class_index(a, 32) & 1 != 0;
    class_f64 = |a, b, k| b >> class_index(a, 64) & 1 != 0;
}

/// Float compare kernel by condition offset (0..=15) and width.
pub fn float(cond: u8, bits: u32) -> Kernel {
    const F16: [Kernel; 16] =
        [f_f16, lt_f16, eq_f16, le_f16, gt_f16, lg_f16, ge_f16, o_f16, u_f16, nge_f16, nlg_f16, ngt_f16, nle_f16, neq_f16, nlt_f16, tru_f16];
    const F32: [Kernel; 16] =
        [f_f32, lt_f32, eq_f32, le_f32, gt_f32, lg_f32, ge_f32, o_f32, u_f32, nge_f32, nlg_f32, ngt_f32, nle_f32, neq_f32, nlt_f32, tru_f32];
    const F64: [Kernel; 16] =
        [f_f64, lt_f64, eq_f64, le_f64, gt_f64, lg_f64, ge_f64, o_f64, u_f64, nge_f64, nlg_f64, ngt_f64, nle_f64, neq_f64, nlt_f64, tru_f64];
    let t = match bits {
        16 => &F16,
        32 => &F32,
        _ => &F64,
    };
    t[cond as usize & 15]
}

/// Integer compare kernel by condition offset (0..=7), width and signedness.
pub fn int(cond: u8, bits: u32, signed: bool) -> Kernel {
    const T: [[Kernel; 8]; 6] = [
        [f_u16, lt_u16, eq_u16, le_u16, gt_u16, ne_u16, ge_u16, t_u16],
        [f_i16, lt_i16, eq_i16, le_i16, gt_i16, ne_i16, ge_i16, t_i16],
        [f_u32, lt_u32, eq_u32, le_u32, gt_u32, ne_u32, ge_u32, t_u32],
        [f_i32, lt_i32, eq_i32, le_i32, gt_i32, ne_i32, ge_i32, t_i32],
        [f_u64, lt_u64, eq_u64, le_u64, gt_u64, ne_u64, ge_u64, t_u64],
        [f_i64, lt_i64, eq_i64, le_i64, gt_i64, ne_i64, ge_i64, t_i64],
    ];
    let row = match bits {
        16 => 0,
        32 => 2,
        _ => 4,
    } + signed as usize;
    T[row][cond as usize & 7]
}
