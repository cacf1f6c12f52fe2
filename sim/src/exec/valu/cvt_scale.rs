//! gfx950 (CDNA4) scaled conversions between f32/f16/bf16 and the OCP FP8/BF8/FP4 formats:
//! V_CVT_SCALEF32_{F32,F16}_{FP8,BF8}, _PK_{F32,F16,BF16}_{FP8,BF8,FP4},
//! _PK_{FP8,BF8,FP4}_{F32,F16,BF16}, _SR_{FP8,BF8}_{F32,F16,BF16} and _SR_PK_FP4_{F32,F16,BF16}.
//! The number formats are [`minifloat`]'s; the 32-element FP6/BF6 forms are [`cvt_scale32`].
//!
//! Facts from the CDNA4 ISA guide's VOP3 opcode pseudo-code:
//! * `scale = exponent(Sn.f32)`: the scale operand's biased exponent field, used as an E8M0
//!   code (so 2^(field-127); the field 0xFF, an infinite or NaN scale, is E8M0's NaN). The
//!   scale is S2 where the instruction has two value sources or a seed, S1 otherwise.
//! * Byte and word selects: V_CVT_SCALEF32_{F32,F16}_*8 read byte OPSEL[1:0] of S0; the PK
//!   forms from 8-bit codes read word OPSEL[0], from FP4 byte OPSEL[1:0]; the PK forms to 8-bit
//!   codes write word OPSEL[3] of the destination, to FP4 byte OPSEL[3:2], the SR forms byte
//!   OPSEL[3:2]; "other destination bits are preserved". V_CVT_SCALEF32_F16_* writes the half
//!   OPSEL[3] selects.
//! * V_CVT_SCALEF32_SR_PK_FP4_*: the second element is rounded with
//!   `v_prng_b32(seed)`, the first with the seed itself.
//!
//! What the guide names without defining (`f32_to_fp8_scale`, `fp8_to_f32_scale`, ...) is
//! taken as: widening multiplies the decoded value by the scale, narrowing divides by it
//! (ROCm's ROCDL dialect: "dividing by the exponent in `scale`"; Composable Kernel's gfx950
//! path: "fval / scale"), each computed exactly and rounded once, to nearest even (stochastic
//! for the SR forms, as [`minifloat::Round::Stochastic`]). Narrowing overflow gives NaN (E4M3)
//! or infinity (E5M2) as CK's note says ("if fval / scale > max fp8, returns NaN"), FP4
//! saturates. A NaN scale gives NaN (FP4: the largest magnitude). Narrowing is marked
//! approximate for these inferences.

use super::desc::{any, Desc};
use super::fp::{d2h, h2d};
use super::lanes::{Kernel, Lanes, MAX};
use super::minifloat::{decode, e8m0, encode_f64, pow2, Format, Round};
use super::ty::Ty::{self, B16, B32, B64, U16, U32, U64};
use hipscope_isa::decode::Inst;
use hipscope_isa::tables::Opcode;
use hipscope_isa::Processor;

/// Why the narrowing conversions are approximate.
pub const NARROW: &str = "scaled narrowing: x / 2^(scale exponent) rounded once; overflow (NaN for FP8, infinity for BF8, saturation for FP4/FP6) and NaN scales inferred: the CDNA4 guide does not define f32_to_fp8_scale and its kin";
/// Why the stochastic-rounding forms are approximate.
pub const SR: &str = "scaled stochastic rounding: rounds away from zero when (discarded fraction scaled to 32 bits) + seed carries; which seed bits the hardware adds for the scaled forms is not defined in the CDNA4 guide";

/// The wide side of a conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Wide {
    F32 = 0,
    F16 = 1,
    Bf16 = 2,
}

/// The narrow formats by index (a kernel reads the index from `aux`).
const FORMATS: [Format; 5] = [Format::E4M3, Format::E5M2, Format::E2M1, Format::E2M3, Format::E3M2];

/// The operation constant: bits 0-2 the narrow format, 3-4 the wide type, 5-6 the source
/// byte/word select.
pub const fn aux(fmt: usize, wide: Wide, sel: u32) -> u32 {
    fmt as u32 | (wide as u32) << 3 | sel << 5
}

/// The narrow format, wide type and source select an `aux` holds.
fn unpack(aux: u32) -> (Format, Wide, u32) {
    let fmt = FORMATS.get(aux as usize & 7).copied().unwrap_or(Format::E4M3);
    let wide = match aux >> 3 & 3 {
        0 => Wide::F32,
        1 => Wide::F16,
        _ => Wide::Bf16,
    };
    (fmt, wide, aux >> 5 & 3)
}

/// The code width used in the packed layouts: 8 for FP8/BF8, 4 for FP4, 6 for FP6/BF6.
pub fn width(fmt: Format) -> u32 {
    fmt.spec().bits()
}

/// `exponent(S.f32)` as the E8M0 scale's power of two; `None` for the NaN code.
pub fn scale_of(bits: u64) -> Option<i32> {
    e8m0((bits >> 23) as u8)
}

/// A wide value's bits as f64 (exact).
pub fn read(wide: Wide, v: u64) -> f64 {
    match wide {
        Wide::F32 => f32::from_bits(v as u32) as f64,
        Wide::F16 => h2d(v & 0xffff),
        Wide::Bf16 => f32::from_bits((v as u32) << 16) as f64,
    }
}

/// `x` rounded to nearest even into the wide type's bits.
pub fn write(wide: Wide, x: f64) -> u64 {
    match wide {
        Wide::F32 => (x as f32).to_bits() as u64,
        Wide::F16 => d2h(x),
        Wide::Bf16 => bf16_rne(x as f32) as u64,
    }
}

/// f32 to bfloat16, round to nearest even; a NaN stays a quiet NaN.
pub fn bf16_rne(x: f32) -> u16 {
    let b = x.to_bits();
    if x.is_nan() {
        return (b >> 16 | 0x40) as u16;
    }
    ((b + 0x7fff + (b >> 16 & 1)) >> 16) as u16
}

/// `code` of `fmt` times the scale, in the wide type.
pub fn widen(fmt: Format, code: u8, scale: Option<i32>, wide: Wide) -> u64 {
    let v = scale.map_or(f64::NAN, |k| decode(fmt, code) as f64 * pow2(k));
    write(wide, v)
}

/// The wide value `x` divided by the scale, in `fmt`.
pub fn narrow(fmt: Format, x: f64, scale: Option<i32>, round: Round) -> u8 {
    let v = scale.map_or(f64::NAN, |k| x * pow2(-k));
    encode_f64(fmt, v, false, round)
}

/// V_PRNG_B32 (CDNA4 VOP1): shift left by one, XOR 197 when bit 31 was set.
pub fn prng(x: u32) -> u32 {
    (x << 1) ^ if x >> 31 != 0 { 197 } else { 0 }
}

/// One code (byte `sel` of S0) times the scale (S1).
fn up_one(x: &mut Lanes) {
    let (fmt, wide, sel) = unpack(x.aux);
    for l in 0..x.n.min(MAX) {
        let code = (x.s[0][l] >> (sel * 8)) as u8;
        x.d[l] = widen(fmt, code, scale_of(x.s[1][l]), wide);
    }
}

/// Two codes (pair `sel` of S0) times the scale (S1), the first into the low element.
fn up_two(x: &mut Lanes) {
    let (fmt, wide, sel) = unpack(x.aux);
    let bits = width(fmt);
    let out = if wide == Wide::F32 { 32 } else { 16 };
    for l in 0..x.n.min(MAX) {
        let pair = x.s[0][l] >> (sel * 2 * bits);
        let k = scale_of(x.s[1][l]);
        let lo = widen(fmt, (pair & ((1 << bits) - 1)) as u8, k, wide);
        let hi = widen(fmt, (pair >> bits & ((1 << bits) - 1)) as u8, k, wide);
        x.d[l] = lo | hi << out;
    }
}

/// Two wide values (S0 and S1 for f32, the halves of S0 otherwise) divided by the scale (S2
/// for f32, S1 otherwise), packed with the first in the low bits.
fn down_two(x: &mut Lanes) {
    let (fmt, wide, _) = unpack(x.aux);
    let bits = width(fmt);
    for l in 0..x.n.min(MAX) {
        let (a, b, k) = match wide {
            Wide::F32 => (x.s[0][l], x.s[1][l], x.s[2][l]),
            _ => (x.s[0][l] & 0xffff, x.s[0][l] >> 16 & 0xffff, x.s[1][l]),
        };
        let k = scale_of(k);
        let lo = narrow(fmt, read(wide, a), k, Round::NearestEven) as u64;
        let hi = narrow(fmt, read(wide, b), k, Round::NearestEven) as u64;
        x.d[l] = lo | hi << bits;
    }
}

/// One wide value (S0) divided by the scale (S2), stochastically rounded with seed S1.
fn down_sr(x: &mut Lanes) {
    let (fmt, wide, _) = unpack(x.aux);
    for l in 0..x.n.min(MAX) {
        let round = Round::Stochastic(x.s[1][l] as u32);
        x.d[l] = narrow(fmt, read(wide, x.s[0][l]), scale_of(x.s[2][l]), round) as u64;
    }
}

/// Two wide values (the dwords or halves of S0) divided by the scale (S2), the first rounded
/// with seed S1, the second with `prng(S1)`.
fn down_sr_two(x: &mut Lanes) {
    let (fmt, wide, _) = unpack(x.aux);
    let (bits, half) = (width(fmt), if wide == Wide::F32 { 32 } else { 16 });
    for l in 0..x.n.min(MAX) {
        let (v, seed, k) = (x.s[0][l], x.s[1][l] as u32, scale_of(x.s[2][l]));
        let lo = narrow(fmt, read(wide, v & ((1 << half) - 1)), k, Round::Stochastic(seed)) as u64;
        let hi = narrow(fmt, read(wide, v >> half), k, Round::Stochastic(prng(seed))) as u64;
        x.d[l] = lo | hi << bits;
    }
}

/// The kernel shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    UpOne,
    UpTwo,
    DownTwo,
    DownSr,
    DownSrTwo,
}

impl Shape {
    fn kernel(self) -> Kernel {
        match self {
            Shape::UpOne => up_one,
            Shape::UpTwo => up_two,
            Shape::DownTwo => down_two,
            Shape::DownSr => down_sr,
            Shape::DownSrTwo => down_sr_two,
        }
    }
}

/// How an opcode converts: kernel shape, formats, operand types.
struct Conv {
    k: Shape,
    fmt: usize,
    wide: Wide,
    src: [Ty; 3],
    dst: Ty,
}

/// Format indices into [`FORMATS`].
const FP8: usize = 0;
const BF8: usize = 1;
const FP4: usize = 2;

fn conv(op: Opcode) -> Option<Conv> {
    use Opcode::*;
    use Shape::*;
    use Wide::*;
    let c = |k, fmt, wide, src, dst| Some(Conv { k, fmt, wide, src, dst });
    let n = Ty::None;
    let (s1, s2) = ([U32, U32, n], [B32, B32, U32]);
    match op {
        V_CVT_SCALEF32_F32_FP8 => c(UpOne, FP8, F32, s1, U32),
        V_CVT_SCALEF32_F32_BF8 => c(UpOne, BF8, F32, s1, U32),
        V_CVT_SCALEF32_F16_FP8 => c(UpOne, FP8, F16, s1, U16),
        V_CVT_SCALEF32_F16_BF8 => c(UpOne, BF8, F16, s1, U16),
        V_CVT_SCALEF32_PK_F32_FP8 => c(UpTwo, FP8, F32, s1, B64),
        V_CVT_SCALEF32_PK_F32_BF8 => c(UpTwo, BF8, F32, s1, B64),
        V_CVT_SCALEF32_PK_F32_FP4 => c(UpTwo, FP4, F32, s1, B64),
        V_CVT_SCALEF32_PK_F16_FP8 => c(UpTwo, FP8, F16, s1, U32),
        V_CVT_SCALEF32_PK_F16_BF8 => c(UpTwo, BF8, F16, s1, U32),
        V_CVT_SCALEF32_PK_F16_FP4 => c(UpTwo, FP4, F16, s1, U32),
        V_CVT_SCALEF32_PK_BF16_FP8 => c(UpTwo, FP8, Bf16, s1, U32),
        V_CVT_SCALEF32_PK_BF16_BF8 => c(UpTwo, BF8, Bf16, s1, U32),
        V_CVT_SCALEF32_PK_BF16_FP4 => c(UpTwo, FP4, Bf16, s1, U32),
        V_CVT_SCALEF32_PK_FP8_F32 => c(DownTwo, FP8, F32, s2, U32),
        V_CVT_SCALEF32_PK_BF8_F32 => c(DownTwo, BF8, F32, s2, U32),
        V_CVT_SCALEF32_PK_FP4_F32 => c(DownTwo, FP4, F32, s2, U32),
        V_CVT_SCALEF32_PK_FP8_F16 => c(DownTwo, FP8, F16, s1, U32),
        V_CVT_SCALEF32_PK_BF8_F16 => c(DownTwo, BF8, F16, s1, U32),
        V_CVT_SCALEF32_PK_FP4_F16 => c(DownTwo, FP4, F16, s1, U32),
        V_CVT_SCALEF32_PK_FP8_BF16 => c(DownTwo, FP8, Bf16, s1, U32),
        V_CVT_SCALEF32_PK_BF8_BF16 => c(DownTwo, BF8, Bf16, s1, U32),
        V_CVT_SCALEF32_PK_FP4_BF16 => c(DownTwo, FP4, Bf16, s1, U32),
        V_CVT_SCALEF32_SR_FP8_F32 => c(DownSr, FP8, F32, [B32, U32, U32], U32),
        V_CVT_SCALEF32_SR_BF8_F32 => c(DownSr, BF8, F32, [B32, U32, U32], U32),
        V_CVT_SCALEF32_SR_FP8_F16 => c(DownSr, FP8, F16, [B16, U32, U32], U32),
        V_CVT_SCALEF32_SR_BF8_F16 => c(DownSr, BF8, F16, [B16, U32, U32], U32),
        V_CVT_SCALEF32_SR_FP8_BF16 => c(DownSr, FP8, Bf16, [B16, U32, U32], U32),
        V_CVT_SCALEF32_SR_BF8_BF16 => c(DownSr, BF8, Bf16, [B16, U32, U32], U32),
        V_CVT_SCALEF32_SR_PK_FP4_F32 => c(DownSrTwo, FP4, F32, [U64, U32, U32], U32),
        V_CVT_SCALEF32_SR_PK_FP4_F16 => c(DownSrTwo, FP4, F16, [U32, U32, U32], U32),
        V_CVT_SCALEF32_SR_PK_FP4_BF16 => c(DownSrTwo, FP4, Bf16, [U32, U32, U32], U32),
        _ => None,
    }
}

/// The source select (`aux` bits 5-6) and the destination field kept from the old value (an
/// SDWA select: 0-3 a byte, 4-5 a word) of `inst`, from its OPSEL bits.
fn selects(inst: &Inst, c: &Conv) -> (u32, Option<u8>) {
    // OPSEL[0] and [1] sit in src0/src1_modifiers bit 2, OPSEL[2] in src2_modifiers bit 2,
    // OPSEL[3] in src0_modifiers bit 3 (LLVM's VOP3 operand layout, `llvm-mc-22
    // -show-encoding`: op_sel:[0,0,0,1] sets Inst{14}).
    let (m0, m1, m2) = (inst.src_mods(0), inst.src_mods(1), inst.src_mods(2));
    let (o0, o1, o2, o3) = (m0.op_sel as u32, m1.op_sel as u32, m2.op_sel as u32, m0.op_sel_hi as u32);
    let fp4 = FORMATS.get(c.fmt) == Some(&Format::E2M1);
    match c.k {
        Shape::UpOne => return (o1 << 1 | o0, None),
        Shape::UpTwo => return (if fp4 { o1 << 1 | o0 } else { o0 }, None),
        _ => {}
    }
    let word_out = c.k == Shape::DownTwo && !fp4;
    (0, Some(if word_out { 4 + o3 as u8 } else { (o3 << 1 | o2) as u8 }))
}

/// Describe a scaled conversion on `processor` (gfx950 only); `None` for other opcodes.
pub fn describe(inst: &Inst, processor: Processor) -> Option<Desc> {
    if processor != Processor::Gfx950 {
        return None;
    }
    let c = conv(inst.opcode())?;
    let (sel, keep) = selects(inst, &c);
    let d = any(c.k.kernel(), c.src, c.dst).aux(aux(c.fmt, c.wide, sel));
    Some(match keep {
        Some(field) if c.k == Shape::DownTwo => d.keep(field).approx(NARROW),
        Some(field) => d.keep(field).approx(SR),
        None => d,
    })
}
