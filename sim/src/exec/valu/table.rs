//! Opcode -> operation description, per ISA family where names or semantics differ
//! (GFX8 V_ADD_U32 writes a carry, GFX9 V_ADD_U32 does not; GFX10 renamed the carry forms
//! V_ADD_CO_CI_U32 etc.; GFX11/12 renamed V_MUL_LEGACY_F32 to V_MUL_DX9_ZERO_F32, V_FFBH_U32 to
//! V_CLZ_I32_U32, V_MAD_U64_U32 to V_MAD_CO_U64_U32 on GFX12, and so on).

use super::desc::{any, bin, cvt, tri, un, Desc, Shape};
use super::fast::{Fast as F, Fp};
use super::lanes::Kernel;
use super::src::Ftz;
use super::ty::Ty::{self, Mix, PkB16, PkB32, PkF16, PkF32, PkI16, B16, B32, B64, F16, F32, F64, I16, I32, I64, U16, U32, U64};
use super::{cmp, cvt as c, float as fl, int as i, packed as p};
use hipscope_isa::tables::{OpName, Opcode};
use hipscope_isa::Family;

const TRANS: &str = "transcendental: host f64 libm result rounded once (about 0.5 ULP); the ISA allows 1 ULP, so low bits may differ from hardware";
const RCP: &str = "correctly rounded 1/x (or 1/sqrt(x) from f64); the ISA allows 1 ULP, so low bits may differ from hardware";
const SQRT: &str = "correctly rounded square root; the ISA allows 1 ULP, so low bits may differ from hardware";
const F64_APPROX: &str = "correctly rounded result; the hardware instruction is an approximation (ISA: 2^29 ULP) refined by software";
const SINCOS: &str = "sin/cos(2*pi*fract(x)) from host f64 libm rounded once, exact at quarter turns; the ISA allows 1 ULP";
const DOT_F: &str = "dot product summed exactly and rounded once; the hardware's intermediate rounding is not specified";
const NORM: &str = "the ISA does not spell out the rounding of f32_to_snorm/unorm; round-to-nearest-even assumed";
const PK_U8: &str = "the ISA does not spell out the rounding of f32_to_u8; truncation with saturation assumed";
const DIV_FMAS: &str = "post-scale of 2^+-64 (f64: 2^+-128) chosen by the quotient's exponent; the ISA pseudo-code's fixed 2^32 (2^64) cannot undo V_DIV_SCALE and is taken as a documentation error";
const LEGACY: &str =
    "V_EXP/LOG_LEGACY_F32: 2^S0 / log2(S0) at the older precision (GCN3 ISA); the legacy forms' special cases are not documented, so computed as V_EXP/LOG_F32";
const MED3_NUM: &str = "GFX12 NaN rule assumed to mirror V_MED3_F32 with minimumNumber/maximumNumber";

fn k3(k: Kernel, t: [Ty; 3], d: Ty) -> Desc {
    any(k, t, d)
}

/// Describe `op` on `fam`; `None` for opcodes not implemented.
pub fn describe(op: Opcode, fam: Family) -> Option<Desc> {
    integer(op, fam).or_else(|| float(op)).or_else(|| conversion(op)).or_else(|| packed(op))
}

fn integer(op: Opcode, fam: Family) -> Option<Desc> {
    use Opcode::*;
    let gfx8 = fam == Family::Gfx8;
    Some(match op {
        V_MOV_B32 | V_ACCVGPR_MOV_B32 | V_ACCVGPR_READ_B32 | V_ACCVGPR_WRITE_B32 => un(i::mov, B32).fast(F::Mov),
        V_MOV_B64 => un(i::mov, B64),
        V_MOV_B16 => un(i::mov, B16),
        V_NOT_B32 => un(i::not32, U32),
        V_NOT_B16 => un(i::not16, U16),
        V_BFREV_B32 => un(i::bfrev, U32),
        V_FFBH_U32 | V_CLZ_I32_U32 => un(i::ffbh_u32, U32),
        V_FFBL_B32 | V_CTZ_I32_B32 => un(i::ffbl, U32),
        V_FFBH_I32 | V_CLS_I32 => un(i::ffbh_i32, U32),
        V_CNDMASK_B32 => bin(carry(i::cndmask), B32).shape(Shape::Select).fast(F::Cndmask),
        V_CNDMASK_B16 => bin(carry(i::cndmask), B16).shape(Shape::Select),

        // GFX8's V_ADD/SUB/SUBREV_U32 are GFX9's *_CO_U32 (carry-out to VCC / sdst).
        V_ADD_U32 if gfx8 => bin(carry(i::add_co_u32), U32).shape(Shape::CarryOut),
        V_SUB_U32 if gfx8 => bin(carry(i::sub_co_u32), U32).shape(Shape::CarryOut),
        V_SUBREV_U32 if gfx8 => bin(carry(i::subrev_co_u32), U32).shape(Shape::CarryOut),
        V_ADD_U32 | V_ADD_NC_U32 => bin(i::add_u32, U32).fast(F::Add),
        V_SUB_U32 | V_SUB_NC_U32 => bin(i::sub_u32, U32).fast(F::Sub),
        V_SUBREV_U32 | V_SUBREV_NC_U32 => bin(i::subrev_u32, U32),
        V_ADD_I32 | V_ADD_NC_I32 => bin(i::add_i32, I32),
        V_SUB_I32 | V_SUB_NC_I32 => bin(i::sub_i32, I32),
        V_ADD_CO_U32 => bin(carry(i::add_co_u32), U32).shape(Shape::CarryOut),
        V_SUB_CO_U32 => bin(carry(i::sub_co_u32), U32).shape(Shape::CarryOut),
        V_SUBREV_CO_U32 => bin(carry(i::subrev_co_u32), U32).shape(Shape::CarryOut),
        V_ADDC_U32 | V_ADDC_CO_U32 | V_ADD_CO_CI_U32 => bin(carry(i::addc_u32), U32).shape(Shape::CarryInOut),
        V_SUBB_U32 | V_SUBB_CO_U32 | V_SUB_CO_CI_U32 => bin(carry(i::subb_u32), U32).shape(Shape::CarryInOut),
        V_SUBBREV_U32 | V_SUBBREV_CO_U32 | V_SUBREV_CO_CI_U32 => bin(carry(i::subbrev_u32), U32).shape(Shape::CarryInOut),
        V_ADD3_U32 => tri(i::add3_u32, U32).fast(F::Add3),
        V_ADD_LSHL_U32 => tri(i::add_lshl_u32, U32),
        V_LSHL_ADD_U32 => tri(i::lshl_add_u32, U32).fast(F::LshlAdd),
        V_LSHL_OR_B32 => tri(i::lshl_or_b32, U32),
        V_AND_OR_B32 => tri(i::and_or_b32, U32),
        V_OR3_B32 => tri(i::or3_b32, U32),
        V_XOR3_B32 => tri(i::xor3_b32, U32),
        V_XAD_U32 => tri(i::xad_u32, U32),
        V_AND_B32 => bin(i::and_b32, U32).fast(F::And),
        V_OR_B32 => bin(i::or_b32, U32).fast(F::Or),
        V_XOR_B32 => bin(i::xor_b32, U32).fast(F::Xor),
        V_XNOR_B32 => bin(i::xnor_b32, U32),
        V_LSHLREV_B32 => bin(i::lshlrev_b32, U32).fast(F::LshlRev),
        V_LSHRREV_B32 => bin(i::lshrrev_b32, U32).fast(F::LshrRev),
        V_ASHRREV_I32 => bin(i::ashrrev_i32, U32).fast(F::AshrRev),
        V_LSHLREV_B64 => k3(i::lshlrev_b64, [U32, U64, Ty::None], U64).fast(F::LshlRevB64),
        V_LSHRREV_B64 => k3(i::lshrrev_b64, [U32, U64, Ty::None], U64),
        V_ASHRREV_I64 => k3(i::ashrrev_i64, [U32, I64, Ty::None], I64),
        V_LSHL_ADD_U64 => k3(i::lshl_add_u64, [U64, U32, U64], U64).fast(F::LshlAddU64),
        V_MUL_LO_U32 | V_MUL_LO_I32 => bin(i::mul_lo_u32, U32).fast(F::MulLo),
        V_MUL_HI_U32 => bin(i::mul_hi_u32, U32),
        V_MUL_HI_I32 => bin(i::mul_hi_i32, U32),
        V_MUL_U32_U24 => bin(i::mul_u32_u24, U32),
        V_MUL_HI_U32_U24 => bin(i::mul_hi_u32_u24, U32),
        V_MUL_I32_I24 => bin(i::mul_i32_i24, U32),
        V_MUL_HI_I32_I24 => bin(i::mul_hi_i32_i24, U32),
        V_MAD_U32_U24 => tri(i::mad_u32_u24, U32),
        V_MAD_I32_I24 => tri(i::mad_i32_i24, U32),
        V_MAD_U32_U16 => k3(i::mad_u32_u16, [U16, U16, U32], U32),
        V_MAD_I32_I16 => k3(i::mad_i32_i16, [I16, I16, I32], I32),
        V_MAD_U64_U32 | V_MAD_CO_U64_U32 => k3(carry(i::mad_u64_u32), [U32, U32, U64], U64).shape(Shape::CarryOut).fast(F::MadU64U32),
        V_MAD_I64_I32 | V_MAD_CO_I64_I32 => k3(carry(i::mad_i64_i32), [I32, I32, I64], I64).shape(Shape::CarryOut),
        V_MIN_U32 => bin(i::min_u32, U32),
        V_MAX_U32 => bin(i::max_u32, U32),
        V_MIN_I32 => bin(i::min_i32, I32),
        V_MAX_I32 => bin(i::max_i32, I32),
        V_MIN3_U32 => tri(i::min3_u32, U32),
        V_MAX3_U32 => tri(i::max3_u32, U32),
        V_MED3_U32 => tri(i::med3_u32, U32),
        V_MIN3_I32 => tri(i::min3_i32, I32),
        V_MAX3_I32 => tri(i::max3_i32, I32),
        V_MED3_I32 => tri(i::med3_i32, I32),
        V_MAXMIN_U32 => tri(i::maxmin_u32, U32),
        V_MINMAX_U32 => tri(i::minmax_u32, U32),
        V_MAXMIN_I32 => tri(i::maxmin_i32, I32),
        V_MINMAX_I32 => tri(i::minmax_i32, I32),
        V_BFE_U32 => tri(i::bfe_u32, U32).fast(F::Bfe),
        V_BFE_I32 => tri(i::bfe_i32, U32),
        V_BFI_B32 => tri(i::bfi_b32, U32),
        V_BITOP3_B32 => tri(i::bitop3_b32, U32),
        V_BITOP3_B16 => tri(i::bitop3_b16, U16),
        V_BFM_B32 => bin(i::bfm_b32, U32),
        V_ALIGNBIT_B32 => tri(i::alignbit_b32, U32),
        V_ALIGNBYTE_B32 => tri(i::alignbyte_b32, U32),
        V_PERM_B32 => tri(i::perm_b32, U32),
        V_BCNT_U32_B32 => bin(i::bcnt_u32, U32),
        V_MBCNT_LO_U32_B32 => bin(i::mbcnt_lo, U32),
        V_MBCNT_HI_U32_B32 => bin(i::mbcnt_hi, U32),
        V_LERP_U8 => tri(i::lerp_u8, U32),
        V_SAD_U8 => tri(i::sad_u8, U32),
        V_SAD_HI_U8 => tri(i::sad_hi_u8, U32),
        V_MSAD_U8 => tri(i::msad_u8, U32),
        V_SAD_U16 => tri(i::sad_u16, U32),
        V_SAD_U32 => tri(i::sad_u32, U32),

        V_ADD_U16 | V_ADD_NC_U16 => bin(i::add_u16, U16),
        V_SUB_U16 | V_SUB_NC_U16 => bin(i::sub_u16, U16),
        V_SUBREV_U16 => bin(i::subrev_u16, U16),
        V_ADD_I16 | V_ADD_NC_I16 => bin(i::add_i16, I16),
        V_SUB_I16 | V_SUB_NC_I16 => bin(i::sub_i16, I16),
        V_MUL_LO_U16 => bin(i::mul_lo_u16, U16),
        V_MAD_U16 | V_MAD_LEGACY_U16 => tri(i::mad_u16, U16),
        V_MAD_I16 | V_MAD_LEGACY_I16 => tri(i::mad_i16, I16),
        V_LSHLREV_B16 => bin(i::lshlrev_b16, U16),
        V_LSHRREV_B16 => bin(i::lshrrev_b16, U16),
        V_ASHRREV_I16 => bin(i::ashrrev_i16, I16),
        V_MIN_U16 => bin(i::min_u16, U16),
        V_MAX_U16 => bin(i::max_u16, U16),
        V_MIN_I16 => bin(i::min_i16, I16),
        V_MAX_I16 => bin(i::max_i16, I16),
        V_MIN3_U16 => tri(i::min3_u16, U16),
        V_MAX3_U16 => tri(i::max3_u16, U16),
        V_MED3_U16 => tri(i::med3_u16, U16),
        V_MIN3_I16 => tri(i::min3_i16, I16),
        V_MAX3_I16 => tri(i::max3_i16, I16),
        V_MED3_I16 => tri(i::med3_i16, I16),
        V_AND_B16 => bin(i::and_b16, U16),
        V_OR_B16 => bin(i::or_b16, U16),
        V_XOR_B16 => bin(i::xor_b16, U16),
        V_SAT_PK_U8_I16 => cvt(i::sat_pk_u8_i16, U32, U16),
        V_CVT_U32_U16 => cvt(i::cvt_u32_u16, U16, U32),
        V_CVT_I32_I16 => cvt(i::cvt_i32_i16, I16, I32),
        V_PACK_B32_F16 => k3(i::pack_b32_f16, [F16, F16, Ty::None], U32).ftz_in(Ftz::Never),
        _ => return None,
    })
}

/// Carry-style kernels share the plain kernel type.
fn carry(k: Kernel) -> Kernel {
    k
}

fn float(op: Opcode) -> Option<Desc> {
    use Opcode::*;
    Some(match op {
        V_ADD_F32 => bin(fl::add_f32, F32).fast(F::AddF32),
        V_SUB_F32 => bin(fl::sub_f32, F32).fast(F::Fp(Fp::Sub)),
        V_SUBREV_F32 => bin(fl::subrev_f32, F32),
        V_MUL_F32 => bin(fl::mul_f32, F32).fast(F::MulF32),
        V_MUL_LEGACY_F32 | V_MUL_DX9_ZERO_F32 => bin(fl::mul_legacy_f32, F32),
        V_FMA_F32 => tri(fl::fma_f32, F32).fast(F::FmaF32),
        V_FMAC_F32 => tri(fl::fma_f32, F32).acc().fast(F::FmaF32),
        V_FMAAK_F32 => tri(fl::fma_f32, F32).ops([OpName::src0, OpName::src1, OpName::imm]),
        V_FMAMK_F32 => tri(fl::fma_f32, F32).ops([OpName::src0, OpName::imm, OpName::src1]),
        V_FMA_LEGACY_F32 | V_FMA_DX9_ZERO_F32 => tri(fl::fma_legacy_f32, F32),
        V_FMAC_LEGACY_F32 | V_FMAC_DX9_ZERO_F32 => tri(fl::fma_legacy_f32, F32).acc(),
        // Not fused; "denormals are flushed" (V_MAD_F32/V_MAC_F32 notes).
        V_MAD_F32 => tri(fl::mad_f32, F32).ftz_always(),
        V_MAC_F32 => tri(fl::mad_f32, F32).acc().ftz_always(),
        V_MADAK_F32 => tri(fl::mad_f32, F32).ops([OpName::src0, OpName::src1, OpName::imm]).ftz_always(),
        V_MADMK_F32 => tri(fl::mad_f32, F32).ops([OpName::src0, OpName::imm, OpName::src1]).ftz_always(),
        V_MAD_LEGACY_F32 => tri(fl::mad_legacy_f32, F32).ftz_always(),
        V_MAC_LEGACY_F32 => tri(fl::mad_legacy_f32, F32).acc().ftz_always(),
        V_MIN_F32 => bin(fl::min_f32, F32),
        V_MAX_F32 => bin(fl::max_f32, F32).fast(F::MaxF32),
        V_MIN3_F32 => tri(fl::min3_f32, F32),
        V_MAX3_F32 => tri(fl::max3_f32, F32),
        V_MED3_F32 => tri(fl::med3_f32, F32),
        V_MAXMIN_F32 => tri(fl::maxmin_f32, F32),
        V_MINMAX_F32 => tri(fl::minmax_f32, F32),
        V_MIN_NUM_F32 => bin(fl::min_num_f32, F32),
        V_MAX_NUM_F32 => bin(fl::max_num_f32, F32),
        V_MIN3_NUM_F32 => tri(fl::min3_num_f32, F32),
        V_MAX3_NUM_F32 => tri(fl::max3_num_f32, F32),
        V_MED3_NUM_F32 => tri(fl::med3_num_f32, F32).approx(MED3_NUM),
        V_MAXMIN_NUM_F32 => tri(fl::maxmin_num_f32, F32),
        V_MINMAX_NUM_F32 => tri(fl::minmax_num_f32, F32),
        V_MINIMUM_F32 => bin(fl::minimum_f32, F32),
        V_MAXIMUM_F32 => bin(fl::maximum_f32, F32),
        V_MINIMUM3_F32 => tri(fl::minimum3_f32, F32),
        V_MAXIMUM3_F32 => tri(fl::maximum3_f32, F32),
        V_LDEXP_F32 => k3(fl::ldexp_f32, [F32, I32, Ty::None], F32),
        V_FREXP_MANT_F32 => un(fl::frexp_mant_f32, F32),
        V_FREXP_EXP_I32_F32 => cvt(fl::frexp_exp_i32_f32, F32, I32),
        V_FRACT_F32 => un(fl::fract_f32, F32),
        V_TRUNC_F32 => un(fl::trunc_f32, F32),
        V_CEIL_F32 => un(fl::ceil_f32, F32),
        V_FLOOR_F32 => un(fl::floor_f32, F32),
        V_RNDNE_F32 => un(fl::rndne_f32, F32),
        V_EXP_F32 | V_S_EXP_F32 => un(fl::exp_f32, F32).ftz_always().approx(TRANS),
        V_LOG_F32 | V_S_LOG_F32 => un(fl::log_f32, F32).ftz_always().approx(TRANS),
        V_EXP_LEGACY_F32 => un(fl::exp_f32, F32).ftz_always().approx(LEGACY),
        V_LOG_LEGACY_F32 => un(fl::log_f32, F32).ftz_always().approx(LEGACY),
        V_RCP_F32 | V_RCP_IFLAG_F32 | V_S_RCP_F32 => un(fl::rcp_f32, F32).ftz_always().approx(RCP).fast(F::Fp(Fp::Rcp)),
        V_RSQ_F32 | V_S_RSQ_F32 => un(fl::rsq_f32, F32).ftz_always().approx(RCP).fast(F::Fp(Fp::Rsq)),
        V_SQRT_F32 | V_S_SQRT_F32 => un(fl::sqrt_f32, F32).ftz_always().approx(SQRT).fast(F::Fp(Fp::Sqrt)),
        V_SIN_F32 => un(fl::sin_f32, F32).approx(SINCOS),
        V_COS_F32 => un(fl::cos_f32, F32).approx(SINCOS),
        V_DIV_SCALE_F32 => tri(carry(fl::div_scale_f32), F32).shape(Shape::CarryOut).fast(F::Fp(Fp::DivScale)),
        V_DIV_FMAS_F32 => tri(carry(fl::div_fmas_f32), F32).shape(Shape::VccIn).ftz_in(Ftz::Never).approx(DIV_FMAS).fast(F::Fp(Fp::DivFmas)),
        V_DIV_FIXUP_F32 => tri(fl::div_fixup_f32, F32).fast(F::Fp(Fp::DivFixup)),
        V_CUBEID_F32 => tri(fl::cubeid_f32, F32),
        V_CUBESC_F32 => tri(fl::cubesc_f32, F32),
        V_CUBETC_F32 => tri(fl::cubetc_f32, F32),
        V_CUBEMA_F32 => tri(fl::cubema_f32, F32),

        V_ADD_F64 => bin(fl::add_f64, F64),
        V_MUL_F64 => bin(fl::mul_f64, F64),
        V_FMA_F64 => tri(fl::fma_f64, F64),
        V_FMAC_F64 => tri(fl::fma_f64, F64).acc(),
        V_MIN_F64 => bin(fl::min_f64, F64),
        V_MAX_F64 => bin(fl::max_f64, F64),
        V_MIN_NUM_F64 => bin(fl::min_num_f64, F64),
        V_MAX_NUM_F64 => bin(fl::max_num_f64, F64),
        V_MINIMUM_F64 => bin(fl::minimum_f64, F64),
        V_MAXIMUM_F64 => bin(fl::maximum_f64, F64),
        V_LDEXP_F64 => k3(fl::ldexp_f64, [F64, I32, Ty::None], F64),
        V_TRIG_PREOP_F64 => k3(fl::trig_preop_f64, [F64, U32, Ty::None], F64),
        V_FREXP_MANT_F64 => un(fl::frexp_mant_f64, F64),
        V_FREXP_EXP_I32_F64 => cvt(fl::frexp_exp_i32_f64, F64, I32),
        V_FRACT_F64 => un(fl::fract_f64, F64),
        V_TRUNC_F64 => un(fl::trunc_f64, F64),
        V_CEIL_F64 => un(fl::ceil_f64, F64),
        V_FLOOR_F64 => un(fl::floor_f64, F64),
        V_RNDNE_F64 => un(fl::rndne_f64, F64),
        V_RCP_F64 => un(fl::rcp_f64, F64).approx(F64_APPROX),
        V_RSQ_F64 => un(fl::rsq_f64, F64).approx(F64_APPROX),
        V_SQRT_F64 => un(fl::sqrt_f64, F64).approx(F64_APPROX),
        V_DIV_SCALE_F64 => tri(carry(fl::div_scale_f64), F64).shape(Shape::CarryOut),
        V_DIV_FMAS_F64 => tri(carry(fl::div_fmas_f64), F64).shape(Shape::VccIn).ftz_in(Ftz::Never).approx(DIV_FMAS),
        V_DIV_FIXUP_F64 => tri(fl::div_fixup_f64, F64),

        V_ADD_F16 => bin(fl::add_f16, F16),
        V_SUB_F16 => bin(fl::sub_f16, F16),
        V_SUBREV_F16 => bin(fl::subrev_f16, F16),
        V_MUL_F16 => bin(fl::mul_f16, F16),
        V_FMA_F16 | V_FMA_LEGACY_F16 => tri(fl::fma_f16, F16),
        V_FMAC_F16 => tri(fl::fma_f16, F16).acc(),
        V_FMAAK_F16 => tri(fl::fma_f16, F16).ops([OpName::src0, OpName::src1, OpName::imm]),
        V_FMAMK_F16 => tri(fl::fma_f16, F16).ops([OpName::src0, OpName::imm, OpName::src1]),
        // V_MAD_F16: "1ULP accuracy, denormals are flushed"; not fused.
        V_MAD_F16 | V_MAD_LEGACY_F16 => tri(fl::mad_f16, F16).ftz_always(),
        V_MAC_F16 => tri(fl::mad_f16, F16).acc().ftz_always(),
        V_MADAK_F16 => tri(fl::mad_f16, F16).ops([OpName::src0, OpName::src1, OpName::imm]).ftz_always(),
        V_MADMK_F16 => tri(fl::mad_f16, F16).ops([OpName::src0, OpName::imm, OpName::src1]).ftz_always(),
        V_MIN_F16 => bin(fl::min_f16, F16),
        V_MAX_F16 => bin(fl::max_f16, F16),
        V_MIN3_F16 => tri(fl::min3_f16, F16),
        V_MAX3_F16 => tri(fl::max3_f16, F16),
        V_MED3_F16 => tri(fl::med3_f16, F16),
        V_MAXMIN_F16 => tri(fl::maxmin_f16, F16),
        V_MINMAX_F16 => tri(fl::minmax_f16, F16),
        V_MIN_NUM_F16 => bin(fl::min_num_f16, F16),
        V_MAX_NUM_F16 => bin(fl::max_num_f16, F16),
        V_MIN3_NUM_F16 => tri(fl::min3_num_f16, F16),
        V_MAX3_NUM_F16 => tri(fl::max3_num_f16, F16),
        V_MED3_NUM_F16 => tri(fl::med3_num_f16, F16).approx(MED3_NUM),
        V_MAXMIN_NUM_F16 => tri(fl::maxmin_num_f16, F16),
        V_MINMAX_NUM_F16 => tri(fl::minmax_num_f16, F16),
        V_MINIMUM_F16 => bin(fl::minimum_f16, F16),
        V_MAXIMUM_F16 => bin(fl::maximum_f16, F16),
        V_LDEXP_F16 => k3(fl::ldexp_f16, [F16, I16, Ty::None], F16),
        V_FREXP_MANT_F16 => un(fl::frexp_mant_f16, F16),
        V_FREXP_EXP_I16_F16 => cvt(fl::frexp_exp_i16_f16, F16, I16),
        V_FRACT_F16 => un(fl::fract_f16, F16),
        V_TRUNC_F16 => un(fl::trunc_f16, F16),
        V_CEIL_F16 => un(fl::ceil_f16, F16),
        V_FLOOR_F16 => un(fl::floor_f16, F16),
        V_RNDNE_F16 => un(fl::rndne_f16, F16),
        V_EXP_F16 | V_S_EXP_F16 => un(fl::exp_f16, F16).approx(TRANS),
        V_LOG_F16 | V_S_LOG_F16 => un(fl::log_f16, F16).approx(TRANS),
        V_RCP_F16 | V_S_RCP_F16 => un(fl::rcp_f16, F16).approx(RCP),
        V_RSQ_F16 | V_S_RSQ_F16 => un(fl::rsq_f16, F16).approx(RCP),
        V_SQRT_F16 | V_S_SQRT_F16 => un(fl::sqrt_f16, F16).approx(SQRT),
        V_SIN_F16 => un(fl::sin_f16, F16).approx(SINCOS),
        V_COS_F16 => un(fl::cos_f16, F16).approx(SINCOS),
        V_DIV_FIXUP_F16 | V_DIV_FIXUP_LEGACY_F16 => tri(fl::div_fixup_f16, F16),
        _ => return None,
    })
}

fn conversion(op: Opcode) -> Option<Desc> {
    use Opcode::*;
    Some(match op {
        V_CVT_F32_I32 => cvt(c::cvt_f32_i32, I32, F32),
        V_CVT_F32_U32 => cvt(c::cvt_f32_u32, U32, F32),
        V_CVT_I32_F32 => cvt(c::cvt_i32_f32, F32, I32),
        V_CVT_U32_F32 => cvt(c::cvt_u32_f32, F32, U32),
        V_CVT_I32_F64 => cvt(c::cvt_i32_f64, F64, I32),
        V_CVT_U32_F64 => cvt(c::cvt_u32_f64, F64, U32),
        V_CVT_F64_I32 => cvt(c::cvt_f64_i32, I32, F64),
        V_CVT_F64_U32 => cvt(c::cvt_f64_u32, U32, F64),
        V_CVT_F32_F64 => cvt(c::cvt_f32_f64, F64, F32),
        V_CVT_F64_F32 => cvt(c::cvt_f64_f32, F32, F64),
        V_CVT_F16_F32 => cvt(c::cvt_f16_f32, F32, F16),
        V_CVT_F32_F16 => cvt(c::cvt_f32_f16, F16, F32),
        V_CVT_F16_U16 => cvt(c::cvt_f16_u16, U16, F16),
        V_CVT_F16_I16 => cvt(c::cvt_f16_i16, I16, F16),
        V_CVT_U16_F16 => cvt(c::cvt_u16_f16, F16, U16),
        V_CVT_I16_F16 => cvt(c::cvt_i16_f16, F16, I16),
        V_CVT_RPI_I32_F32 | V_CVT_NEAREST_I32_F32 => cvt(c::cvt_rpi_i32_f32, F32, I32),
        V_CVT_FLR_I32_F32 | V_CVT_FLOOR_I32_F32 => cvt(c::cvt_flr_i32_f32, F32, I32),
        V_CVT_OFF_F32_I4 => cvt(c::cvt_off_f32_i4, U32, F32),
        V_CVT_F32_UBYTE0 => cvt(c::cvt_f32_ubyte0, U32, F32),
        V_CVT_F32_UBYTE1 => cvt(c::cvt_f32_ubyte1, U32, F32),
        V_CVT_F32_UBYTE2 => cvt(c::cvt_f32_ubyte2, U32, F32),
        V_CVT_F32_UBYTE3 => cvt(c::cvt_f32_ubyte3, U32, F32),
        V_CVT_PKRTZ_F16_F32 | V_CVT_PK_RTZ_F16_F32 => k3(c::cvt_pkrtz_f16_f32, [F32, F32, Ty::None], U32),
        V_CVT_PKNORM_I16_F32 | V_CVT_PK_NORM_I16_F32 => k3(c::cvt_pknorm_i16_f32, [F32, F32, Ty::None], U32).approx(NORM),
        V_CVT_PKNORM_U16_F32 | V_CVT_PK_NORM_U16_F32 => k3(c::cvt_pknorm_u16_f32, [F32, F32, Ty::None], U32).approx(NORM),
        V_CVT_PKNORM_I16_F16 | V_CVT_PK_NORM_I16_F16 => k3(c::cvt_pknorm_i16_f16, [F16, F16, Ty::None], U32).approx(NORM),
        V_CVT_PKNORM_U16_F16 | V_CVT_PK_NORM_U16_F16 => k3(c::cvt_pknorm_u16_f16, [F16, F16, Ty::None], U32).approx(NORM),
        V_CVT_NORM_I16_F16 => cvt(c::cvt_norm_i16_f16, F16, I16).approx(NORM),
        V_CVT_NORM_U16_F16 => cvt(c::cvt_norm_u16_f16, F16, U16).approx(NORM),
        V_CVT_PK_U8_F32 => k3(c::cvt_pk_u8_f32, [F32, U32, U32], U32).approx(PK_U8),
        // GFX8/9: V_CVT_PK_U8_F32 with the destination as the accumulated source.
        V_CVT_PKACCUM_U8_F32 => k3(c::cvt_pk_u8_f32, [F32, U32, U32], U32).acc().approx(PK_U8),
        V_CVT_PK_U16_U32 => k3(c::cvt_pk_u16_u32, [U32, U32, Ty::None], U32),
        V_CVT_PK_I16_I32 => k3(c::cvt_pk_i16_i32, [U32, U32, Ty::None], U32),
        V_CVT_PK_I16_F32 => k3(c::cvt_pk_i16_f32, [F32, F32, Ty::None], U32),
        V_CVT_PK_U16_F32 => k3(c::cvt_pk_u16_f32, [F32, F32, Ty::None], U32),
        _ => return None,
    })
}

fn packed(op: Opcode) -> Option<Desc> {
    use Opcode::*;
    Some(match op {
        V_PK_MAD_I16 => tri(p::pk_mad_i16, PkI16),
        V_PK_MUL_LO_U16 => bin(p::pk_mul_lo_u16, PkI16),
        V_PK_ADD_I16 => bin(p::pk_add_i16, PkI16),
        V_PK_SUB_I16 => bin(p::pk_sub_i16, PkI16),
        V_PK_LSHLREV_B16 => bin(p::pk_lshlrev_b16, PkI16),
        V_PK_LSHRREV_B16 => bin(p::pk_lshrrev_b16, PkI16),
        V_PK_ASHRREV_I16 => bin(p::pk_ashrrev_i16, PkI16),
        V_PK_MAX_I16 => bin(p::pk_max_i16, PkI16),
        V_PK_MIN_I16 => bin(p::pk_min_i16, PkI16),
        V_PK_MAD_U16 => tri(p::pk_mad_u16, PkI16),
        V_PK_ADD_U16 => bin(p::pk_add_u16, PkI16),
        V_PK_SUB_U16 => bin(p::pk_sub_u16, PkI16),
        V_PK_MAX_U16 => bin(p::pk_max_u16, PkI16),
        V_PK_MIN_U16 => bin(p::pk_min_u16, PkI16),
        V_PK_FMA_F16 => tri(p::pk_fma_f16, PkF16),
        V_PK_FMAC_F16 => tri(p::pk_fma_f16, PkF16).acc(),
        V_PK_ADD_F16 => bin(p::pk_add_f16, PkF16),
        V_PK_MUL_F16 => bin(p::pk_mul_f16, PkF16),
        V_PK_MIN_F16 => bin(p::pk_min_f16, PkF16),
        V_PK_MAX_F16 => bin(p::pk_max_f16, PkF16),
        V_PK_MIN_NUM_F16 => bin(p::pk_min_num_f16, PkF16),
        V_PK_MAX_NUM_F16 => bin(p::pk_max_num_f16, PkF16),
        V_PK_MINIMUM_F16 => bin(p::pk_minimum_f16, PkF16),
        V_PK_MAXIMUM_F16 => bin(p::pk_maximum_f16, PkF16),
        V_PK_MINIMUM3_F16 => tri(p::pk_minimum3_f16, PkF16),
        V_PK_MAXIMUM3_F16 => tri(p::pk_maximum3_f16, PkF16),
        V_PK_FMA_F32 => tri(p::pk_fma_f32, PkF32).fast(F::Fp(Fp::PkFma)),
        V_PK_MUL_F32 => bin(p::pk_mul_f32, PkF32).fast(F::Fp(Fp::PkMul)),
        V_PK_ADD_F32 => bin(p::pk_add_f32, PkF32).fast(F::Fp(Fp::PkAdd)),
        V_PK_MOV_B32 => bin(p::pk_mov_b32, PkB32),
        V_FMA_MIX_F32 | V_MAD_MIX_F32 => k3(p::mix_f32, [Mix, Mix, Mix], F32),
        V_FMA_MIXLO_F16 | V_MAD_MIXLO_F16 | V_FMA_MIXHI_F16 | V_MAD_MIXHI_F16 => k3(p::mix_f16, [Mix, Mix, Mix], F16),
        V_DOT2_F32_F16 => k3(p::dot2_f32_f16, [PkF16, PkF16, F32], F32).approx(DOT_F),
        V_DOT2C_F32_F16 | V_DOT2ACC_F32_F16 => k3(p::dot2_f32_f16, [PkF16, PkF16, F32], F32).acc().approx(DOT_F),
        V_DOT2_I32_I16 => k3(p::dot2_i32_i16, [U32, U32, U32], U32),
        V_DOT2_U32_U16 => k3(p::dot2_u32_u16, [U32, U32, U32], U32),
        V_DOT4_I32_I8 => k3(p::dot4_i32_i8, [U32, U32, U32], U32),
        V_DOT4_U32_U8 => k3(p::dot4_u32_u8, [U32, U32, U32], U32),
        V_DOT8_I32_I4 => k3(p::dot8_i32_i4, [U32, U32, U32], U32),
        V_DOT8_U32_U4 => k3(p::dot8_u32_u4, [U32, U32, U32], U32),
        V_DOT2C_I32_I16 => k3(p::dot2_i32_i16, [U32, U32, U32], U32).acc(),
        V_DOT4C_I32_I8 => k3(p::dot4_i32_i8, [U32, U32, U32], U32).acc(),
        V_DOT8C_I32_I4 => k3(p::dot8_i32_i4, [U32, U32, U32], U32).acc(),
        // Signedness of each source from its NEG bit (set by `build`).
        V_DOT4_I32_IU8 => k3(p::dot4_i32_iu8, [U32, U32, U32], U32),
        V_DOT8_I32_IU4 => k3(p::dot8_i32_iu4, [U32, U32, U32], U32),
        V_DOT2_F32_BF16 => k3(p::dot2_f32_bf16, [PkB16, PkB16, F32], F32).approx(DOT_F),
        // GFX11 VOP3 forms: the packed sources are read whole (`build` rejects modifiers on them).
        V_DOT2_F16_F16 => k3(p::dot2_f16_f16, [B32, B32, F16], F16).approx(DOT_F),
        V_DOT2_BF16_BF16 => k3(p::dot2_bf16_bf16, [B32, B32, B16], B16).approx(DOT_F),
        _ => return None,
    })
}

/// Compare description from the mnemonic (`v_cmp[x]_<cond>_<type>`, `v_cmp[x]_class_<type>`).
pub fn compare(op: Opcode) -> Option<Desc> {
    let name = op.name();
    let (x, rest) = if let Some(r) = name.strip_prefix("v_cmpx_") { (true, r) } else { (false, name.strip_prefix("v_cmp_")?) };
    let (cond, ty) = rest.rsplit_once('_')?;
    let (bits, t) = match ty {
        "f16" => (16, F16),
        "f32" => (32, F32),
        "f64" => (64, F64),
        "i16" => (16, I16),
        "u16" => (16, U16),
        "i32" => (32, I32),
        "u32" => (32, U32),
        "i64" => (64, I64),
        "u64" => (64, U64),
        _ => return None,
    };
    let shape = Shape::Cmp { x };
    if cond == "class" {
        let k = match bits {
            16 => cmp::class_f16,
            32 => cmp::class_f32,
            _ => cmp::class_f64,
        };
        let mask = if bits == 16 { U16 } else { U32 };
        let d = any(k, [t, mask, Ty::None], Ty::None).shape(shape).ftz_in(Ftz::Never);
        return Some(if bits == 32 { d.fast(F::Fp(Fp::Class)) } else { d });
    }
    let k = if t.is_float() {
        const FC: [&str; 16] = ["f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle", "neq", "nlt", "tru"];
        // GFX11+ spells TRU as T.
        let cond = if cond == "t" { "tru" } else { cond };
        let c = FC.iter().position(|&c| c == cond)? as u8;
        if bits == 32 {
            return Some(any(cmp::float(c, bits), [t, t, Ty::None], Ty::None).shape(shape).fast(F::Fp(Fp::Cmp(c))));
        }
        cmp::float(c, bits)
    } else {
        const I: [&str; 8] = ["f", "lt", "eq", "le", "gt", "ne", "ge", "t"];
        let (c, signed) = (I.iter().position(|&c| c == cond)? as u8, matches!(t, I16 | I32 | I64));
        if bits == 32 {
            return Some(any(cmp::int(c, bits, signed), [t, t, Ty::None], Ty::None).shape(shape).fast(F::Cmp { cond: c, signed }));
        }
        cmp::int(c, bits, signed)
    };
    Some(any(k, [t, t, Ty::None], Ty::None).shape(shape))
}
