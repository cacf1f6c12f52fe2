//! FP8/BF8 conversions: V_CVT_F32_FP8/BF8, V_CVT_PK_F32_FP8/BF8, V_CVT_PK_FP8/BF8_F32 and
//! V_CVT_SR_FP8/BF8_F32 on gfx940/942 (CDNA3 ISA, VOP1/VOP3 opcode descriptions; FNUZ formats)
//! and gfx12 (RDNA4 ISA, same opcodes; OCP formats). The number formats are [`minifloat`].
//!
//! Which byte or word an instruction reads or writes:
//! * V_CVT_F32_*8 reads byte 0 of S0; the SDWA form selects the byte with `src0_sel` (done by
//!   the source gather), gfx12's VOP3 form with `byte_sel`.
//! * V_CVT_PK_F32_*8 converts the two bytes of one word of S0 into a register pair (the lower
//!   byte into the lower dword); SDWA `src0_sel` or gfx12's VOP3 `op_sel[0]` picks word 1.
//! * V_CVT_PK_*8_F32 writes {S1, S0} as two bytes into the word of the destination chosen by
//!   `op_sel[3]`, keeping the other word.
//! * V_CVT_SR_*8_F32 writes one byte (chosen by `op_sel[3:2]` on gfx940, `byte_sel` on gfx12),
//!   keeping the other three; S1 is the random seed.
//!
//! Overflow (f32 to FP8/BF8): the encodings have no clamp bit (LLVM's rows fix it to 0). On
//! gfx12, MODE.FP16_OVFL makes an overflowing result saturate to the largest finite value; it
//! is taken to govern these conversions as it does the f16 ones (RDNA4 ISA, MODE register).
//! Otherwise, and always on gfx940, overflow gives NaN (FNUZ, OCP E4M3) or infinity (OCP
//! E5M2): the CDNA3 guide does not spell the case out, and HIP's FNUZ helpers clamp to ±240
//! themselves before converting, which they would not need to if the hardware saturated. Both
//! are marked approximate for that reason.

use super::desc::{any, Desc};
use super::lanes::{Lanes, MAX};
use super::minifloat::{decode, encode, encode_sr, Format};
use super::ty::Ty::{self, PkF32, F32, U32};
use hipscope_isa::decode::Inst;
use hipscope_isa::tables::{OpName, Opcode};
use hipscope_isa::{Family, Processor};

/// Why the f32 to FP8/BF8 conversions are approximate.
pub const OVERFLOW: &str = "f32 to FP8/BF8 overflow (NaN/infinity, or saturation under gfx12 MODE.FP16_OVFL) inferred, not spelled out in the ISA guides";
/// Why the stochastic-rounding conversions are approximate. The CDNA4 guide's pseudo-code adds
/// S1[31:12] (FP8) or S1[31:11] (BF8) to the f32 mantissa before converting: for normal results
/// that is this rule (the carry out of the 20 or 21 discarded bits); it also says the sum
/// "wraps around" and converts to nearest even afterwards, which read literally would drop
/// carries and bias the result, so it is not followed, and denormal results may differ.
pub const SR: &str = "stochastic rounding: rounds up when (discarded fraction scaled to 32 bits) + seed carries, which matches the CDNA4 pseudo-code's seed bits for normal results only; overflow as for the round-to-nearest conversions";

/// The format codes kernels are instantiated with (const generics take integers).
const E4M3: u8 = 0;
const E5M2: u8 = 1;
const E4M3_FNUZ: u8 = 2;
const E5M2_FNUZ: u8 = 3;

const fn format(code: u8) -> Format {
    match code {
        E4M3 => Format::E4M3,
        E5M2 => Format::E5M2,
        E4M3_FNUZ => Format::E4M3Fnuz,
        _ => Format::E5M2Fnuz,
    }
}

/// Whether results saturate on overflow: the clamp bit, or MODE.FP16_OVFL for the OCP formats
/// (gfx12).
fn saturates(code: u8, x: &Lanes) -> bool {
    x.ctl.clamp || (matches!(code, E4M3 | E5M2) && x.ctl.ovfl)
}

/// The FP8 and BF8 formats of a processor, if it has them: FNUZ on gfx940-gfx942 (CDNA3),
/// OCP on gfx950 (CDNA4) and gfx12 (ROCm's "Low precision floating point types": `hip_fp8.h`
/// picks the OCP types for gfx950 and gfx12, the FNUZ ones for gfx942).
pub fn formats(processor: Processor) -> Option<(Format, Format)> {
    match processor.family() {
        Family::Gfx940 if processor == Processor::Gfx950 => Some((Format::E4M3, Format::E5M2)),
        Family::Gfx940 => Some((Format::E4M3Fnuz, Format::E5M2Fnuz)),
        Family::Gfx12 => Some((Format::E4M3, Format::E5M2)),
        _ => None,
    }
}

/// f32 <- byte `aux` of S0.
fn to_f32<const F: u8>(x: &mut Lanes) {
    let sh = (x.aux & 3) * 8;
    for l in 0..x.n.min(MAX) {
        x.d[l] = decode(format(F), (x.s[0][l] >> sh) as u8).to_bits() as u64;
    }
}

/// Two f32 (a register pair) <- the bytes of word `aux` of S0.
fn pk_to_f32<const F: u8>(x: &mut Lanes) {
    let sh = (x.aux & 1) * 16;
    for l in 0..x.n.min(MAX) {
        let w = x.s[0][l] >> sh;
        let lo = decode(format(F), w as u8).to_bits() as u64;
        let hi = decode(format(F), (w >> 8) as u8).to_bits() as u64;
        x.d[l] = lo | hi << 32;
    }
}

/// Word `aux` of the old destination (S2) <- {S1, S0} converted.
fn pk_from_f32<const F: u8>(x: &mut Lanes) {
    let sh = (x.aux & 1) * 16;
    let sat = saturates(F, x);
    for l in 0..x.n.min(MAX) {
        let a = encode(format(F), f32::from_bits(x.s[0][l] as u32), sat) as u64;
        let b = encode(format(F), f32::from_bits(x.s[1][l] as u32), sat) as u64;
        x.d[l] = (x.s[2][l] & !(0xffff << sh) & 0xffff_ffff) | (a | b << 8) << sh;
    }
}

/// Byte `aux` of the old destination (S2) <- S0 converted with stochastic rounding (seed S1).
fn sr_from_f32<const F: u8>(x: &mut Lanes) {
    let sh = (x.aux & 3) * 8;
    let sat = saturates(F, x);
    for l in 0..x.n.min(MAX) {
        let v = encode_sr(format(F), f32::from_bits(x.s[0][l] as u32), x.s[1][l] as u32, sat) as u64;
        x.d[l] = (x.s[2][l] & !(0xff << sh) & 0xffff_ffff) | v << sh;
    }
}

/// The kernel of `op` for format code `F`.
fn kernel<const F: u8>(op: Opcode) -> Option<Desc> {
    use Opcode::*;
    let old = [OpName::src0, OpName::src1, OpName::vdst];
    Some(match op {
        V_CVT_F32_FP8 | V_CVT_F32_BF8 => any(to_f32::<F>, [U32, Ty::None, Ty::None], F32),
        V_CVT_PK_F32_FP8 | V_CVT_PK_F32_BF8 => any(pk_to_f32::<F>, [U32, Ty::None, Ty::None], PkF32),
        V_CVT_PK_FP8_F32 | V_CVT_PK_BF8_F32 => any(pk_from_f32::<F>, [F32, F32, U32], U32).ops(old).approx(OVERFLOW),
        V_CVT_SR_FP8_F32 | V_CVT_SR_BF8_F32 => any(sr_from_f32::<F>, [F32, U32, U32], U32).ops(old).approx(SR),
        _ => return None,
    })
}

/// Whether `op` converts BF8 (else FP8).
fn is_bf8(op: Opcode) -> bool {
    use Opcode::*;
    matches!(op, V_CVT_F32_BF8 | V_CVT_PK_F32_BF8 | V_CVT_PK_BF8_F32 | V_CVT_SR_BF8_F32)
}

/// The byte or word the instruction selects (see the module docs).
fn select(inst: &Inst, fam: Family) -> u32 {
    use Opcode::*;
    let byte_sel = inst.operand(OpName::byte_sel).map_or(0, |o| o.imm() as u32 & 3);
    let (m0, m2) = (inst.src_mods(0), inst.src_mods(2));
    match inst.opcode() {
        V_CVT_F32_FP8 | V_CVT_F32_BF8 => byte_sel,
        V_CVT_PK_F32_FP8 | V_CVT_PK_F32_BF8 => m0.op_sel as u32,
        V_CVT_PK_FP8_F32 | V_CVT_PK_BF8_F32 => m0.op_sel_hi as u32,
        _ if fam == Family::Gfx12 => byte_sel,
        _ => (m0.op_sel_hi as u32) << 1 | m2.op_sel as u32,
    }
}

/// Describe an FP8/BF8 conversion on `processor`; `None` for other opcodes and processors.
pub fn describe(inst: &Inst, processor: Processor) -> Option<Desc> {
    let op = inst.opcode();
    let fam = processor.family();
    let (fp8, _) = formats(processor)?;
    let code = match (fp8, is_bf8(op)) {
        (Format::E4M3, false) => kernel::<E4M3>(op),
        (Format::E4M3, true) => kernel::<E5M2>(op),
        (_, false) => kernel::<E4M3_FNUZ>(op),
        (_, true) => kernel::<E5M2_FNUZ>(op),
    }?;
    Some(code.aux(select(inst, fam)))
}
