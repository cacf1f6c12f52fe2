//! Operand decoding: bit-field values → registers and immediates.
//!
//! Encoding values are facts from the AMD ISA manuals ("Scalar/vector operand encodings"),
//! cross-checked against LLVM's disassembler tests: 0–101 (GFX10+: 0–105) SGPRs, 102–111
//! FLAT_SCRATCH/XNACK_MASK/VCC/TBA/TMA (GFX9+: 108–123 TTMPs), 124 M0 (GFX11+: NULL),
//! 125 NULL (GFX11+: M0), 126/127 EXEC, 128–192 integers 0..64, 193–208 −1..−16, 235–239
//! apertures, 240–248 float constants, 251–254 VCCZ/EXECZ/SCC/LDS_DIRECT, 255 literal,
//! 256–511 VGPRs.

use super::reg::{Reg, Special};
use super::{Ctx, Operand};
use crate::tables::{DecoderKind, RegFile};

/// Why an operand could not be decoded (the whole encoding is then rejected).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperandError {
    BadRegister,
    MissingLiteral,
    BadValue,
}

/// Per-instruction decoding state: the literal is read once, after the instruction words, and
/// shared by every operand that refers to it.
pub struct State<'a> {
    pub ctx: &'a Ctx,
    pub rest: &'a [u8],
    pub literal: Option<u32>,
}

const VGPR_BASE: u32 = 256;
const LITERAL: u32 = 255;

impl State<'_> {
    /// The instruction's literal, reading it if no operand has yet.
    pub fn literal_value(&mut self) -> Result<u32, OperandError> {
        self.read_literal()
    }

    fn read_literal(&mut self) -> Result<u32, OperandError> {
        if let Some(lit) = self.literal {
            return Ok(lit);
        }
        let bytes: [u8; 4] = self.rest.get(..4).and_then(|b| b.try_into().ok()).ok_or(OperandError::MissingLiteral)?;
        let lit = u32::from_le_bytes(bytes);
        self.literal = Some(lit);
        Ok(lit)
    }

    /// Decode one operand field value with the rule of its class.
    /// `inherit_agpr`: a GFX90A load/store data operand whose partner register is an AGPR
    /// (one ACC bit per instruction covers vdst and data, or DS data0 and data1).
    pub fn decode(&mut self, kind: DecoderKind, value: u64, prior: &[Operand], inherit_agpr: bool) -> Result<Operand, OperandError> {
        let v = value as u32;
        match kind {
            DecoderKind::Imm | DecoderKind::BranchTarget => Ok(Operand::Imm(value as i64)),
            DecoderKind::Src { width, imm_width, sema, acc, deferred, enum10 } => {
                let v = if acc {
                    v | 512
                } else if enum10 {
                    v
                } else {
                    v & 511
                };
                self.src(width, v, deferred, imm_width, sema)
            }
            DecoderKind::Av10 { width } => self.src(width, v | VGPR_BASE, false, 0, 0),
            DecoderKind::AvLdSt { width } => {
                let v = if self.ctx.gfx90a_insts { v | if inherit_agpr { 512 } else { 0 } } else { v & 511 };
                self.src(width, v | VGPR_BASE, false, 0, 0)
            }
            DecoderKind::Reg8 { file, width, limit } => {
                let reg = reg_tuple(file, v, width)?;
                if v + (width as u32).div_ceil(32) > limit as u32 {
                    return Err(OperandError::BadRegister);
                }
                Ok(Operand::Reg(reg))
            }
            DecoderKind::Vgpr16 { lo128 } => {
                let (index, hi) = if lo128 { (v & 0x7f, v & 0x80 != 0) } else { (v & 0xff, v & 0x200 != 0) };
                Ok(Operand::Reg(Reg::Vgpr16 { index: index as u8, hi }))
            }
            DecoderKind::SrcT16 { lo128 } => {
                if v & 0x100 != 0 {
                    let (index, hi) = if lo128 { (v & 0x7f, v & 0x80 != 0) } else { (v & 0xff, v & 0x200 != 0) };
                    Ok(Operand::Reg(Reg::Vgpr16 { index: index as u8, hi }))
                } else {
                    self.non_vgpr(16, v & 0xff, false, 16, 1)
                }
            }
            DecoderKind::BoolReg => self.src(if self.ctx.wave64 { 64 } else { 32 }, v & 511, false, 0, 0),
            DecoderKind::SdwaSrc { width } => self.sdwa_src(width, v),
            DecoderKind::SdwaVopcDst => self.sdwa_vopc_dst(v),
            DecoderKind::KImm => {
                self.literal = Some(v);
                Ok(Operand::Imm(v as i64))
            }
            DecoderKind::SmemOffset => Ok(Operand::Imm(self.smem_offset(v))),
            DecoderKind::Dpp8Fi => match v {
                0xE9 | 0xEA => Ok(Operand::Imm(v as i64)),
                _ => Err(OperandError::BadValue),
            },
            DecoderKind::VopdDstY => {
                let x = prior.iter().find_map(|o| match o {
                    Operand::Reg(Reg::Vgpr { index, .. }) => Some(*index as u32),
                    _ => None,
                });
                let low = x.map_or(0, |x| !x & 1);
                reg_tuple(RegFile::Vgpr, v | low, 32).map(Operand::Reg)
            }
        }
    }

    /// 10-bit source encoding (bit 9 = AGPR): VGPR/AGPR range or a non-VGPR source.
    fn src(&mut self, width: u16, v: u32, deferred: bool, imm_width: u8, sema: u8) -> Result<Operand, OperandError> {
        let acc = v & 512 != 0;
        let v = v & 511;
        if v >= VGPR_BASE {
            let file = if acc { RegFile::Agpr } else { RegFile::Vgpr };
            return reg_tuple(file, v - VGPR_BASE, width).map(Operand::Reg);
        }
        self.non_vgpr(width, v, deferred, imm_width, sema)
    }

    fn non_vgpr(&mut self, width: u16, v: u32, deferred: bool, imm_width: u8, sema: u8) -> Result<Operand, OperandError> {
        let ctx = self.ctx;
        if v <= ctx.sgpr_max() {
            return scalar_tuple(v, width, false, ctx).map(Operand::Reg);
        }
        if let Some(t) = ctx.ttmp_index(v) {
            return scalar_tuple(t, width, true, ctx).map(Operand::Reg);
        }
        match v {
            128..=192 => Ok(Operand::Imm(v as i64 - 128)),
            193..=208 => Ok(Operand::Imm(192 - v as i64)),
            240..=248 => {
                let f = inline_float(v, imm_width, sema);
                // An f16 splat operand (v_pk_fmac_f16) repeats the constant in both halves on
                // GFX11+ (LLVM 22 OPERAND_REG_IMM_V2FP16_SPLAT).
                Ok(Operand::Imm(if sema == SEMA_F16_SPLAT && ctx.gfx11_plus { f << 16 | f } else { f }))
            }
            LITERAL if deferred => Ok(Operand::Imm(LITERAL as i64)),
            LITERAL => {
                let lit = self.read_literal()?;
                // A literal for a 64-bit float operand supplies the high half (ISA manual,
                // "Literal constants": the low 32 bits are zero).
                Ok(Operand::Imm(if sema == 4 { ((lit as u64) << 32) as i64 } else { lit as i64 }))
            }
            _ => special(v, width, ctx).map(|s| Operand::Reg(Reg::Special(s))).ok_or(OperandError::BadRegister),
        }
    }

    /// SDWA source: GFX9+ uses a 9-bit field whose SGPR range starts at 256 (with VGPRs below);
    /// GFX8 SDWA sources are VGPRs only.
    fn sdwa_src(&mut self, width: u16, v: u32) -> Result<Operand, OperandError> {
        let ctx = self.ctx;
        if !ctx.gfx9_plus {
            return reg_tuple(RegFile::Vgpr, v & 0xff, width).map(Operand::Reg);
        }
        if v < 256 {
            return reg_tuple(RegFile::Vgpr, v, width).map(Operand::Reg);
        }
        let s = v - 256;
        if s <= ctx.sgpr_max() {
            return scalar_tuple(s, width, false, ctx).map(Operand::Reg);
        }
        if let Some(t) = ctx.ttmp_index(s) {
            return scalar_tuple(t, width, true, ctx).map(Operand::Reg);
        }
        match s {
            128..=192 => Ok(Operand::Imm(s as i64 - 128)),
            193..=208 => Ok(Operand::Imm(192 - s as i64)),
            240..=248 => Ok(Operand::Imm(inline_float(s, width as u8, if width == 16 { 1 } else { 3 }))),
            _ => special(s, 32, ctx).map(|r| Operand::Reg(Reg::Special(r))).ok_or(OperandError::BadRegister),
        }
    }

    /// SDWA VOPC destination: bit 7 (SD) selects an explicit SGPR in bits 6:0, else VCC.
    fn sdwa_vopc_dst(&mut self, v: u32) -> Result<Operand, OperandError> {
        let ctx = self.ctx;
        let width = if ctx.wave64 { 64 } else { 32 };
        if v & 0x80 == 0 {
            return Ok(Operand::Reg(Reg::Special(if ctx.wave64 { Special::Vcc } else { Special::VccLo })));
        }
        let s = v & 0x7f;
        if let Some(t) = ctx.ttmp_index(s) {
            return scalar_tuple(t, width, true, ctx).map(Operand::Reg);
        }
        if s > ctx.sgpr_max() {
            return special(s, width, ctx).map(|r| Operand::Reg(Reg::Special(r))).ok_or(OperandError::BadRegister);
        }
        scalar_tuple(s, width, false, ctx).map(Operand::Reg)
    }

    /// SMEM offsets: GFX8 20-bit unsigned, GFX9–GFX11 21-bit signed, GFX12 24-bit signed.
    fn smem_offset(&self, v: u32) -> i64 {
        let ctx = self.ctx;
        if ctx.gfx12_plus {
            sign_extend(v as u64, 24)
        } else if ctx.vi {
            (v & 0xfffff) as i64
        } else {
            sign_extend(v as u64, 21)
        }
    }
}

/// Sign-extend the low `bits` bits.
pub fn sign_extend(v: u64, bits: u32) -> i64 {
    let shift = 64 - bits;
    ((v << shift) as i64) >> shift
}

fn dwords(width: u16) -> u8 {
    (width as u32).div_ceil(32).max(1) as u8
}

/// A VGPR/AGPR run of `width` bits starting at `index`; it must fit in the 256-register file.
fn reg_tuple(file: RegFile, index: u32, width: u16) -> Result<Reg, OperandError> {
    let count = dwords(width);
    if index + count as u32 > 256 {
        return Err(OperandError::BadRegister);
    }
    let index = index as u8;
    Ok(match file {
        RegFile::Vgpr => Reg::Vgpr { index, count },
        RegFile::Agpr => Reg::Agpr { index, count },
    })
}

/// SGPR/TTMP runs are aligned: 64-bit to 2 registers, wider to 4. An unaligned number is rounded
/// down, as the hardware ignores the low bits.
fn scalar_tuple(index: u32, width: u16, ttmp: bool, ctx: &Ctx) -> Result<Reg, OperandError> {
    let mut count = dwords(width) as u32;
    // There is no 96-bit TTMP tuple: such an operand names a single TTMP (and prints as an
    // invalid register for the operand, as in LLVM).
    if ttmp && count == 3 {
        count = 1;
    }
    let align = match count {
        1 => 1,
        2 => 2,
        _ => 4,
    };
    let start = index & !(align - 1);
    // Register classes span s0..s105 and ttmp0..ttmp15 on every target; encodings outside a
    // target's own range still decode (LLVM behaves the same).
    let _ = ctx;
    let file_size = if ttmp { 16 } else { 106 };
    if start + count > file_size {
        return Err(OperandError::BadRegister);
    }
    let (index, count) = (start as u8, count as u8);
    Ok(if ttmp { Reg::Ttmp { index, count } } else { Reg::Sgpr { index, count } })
}

/// Special registers by encoding value, 32- or 64-bit view. Wider operands name special
/// registers by their 64-bit names, as LLVM's disassembler does (and flags them as invalid).
fn special(v: u32, width: u16, ctx: &Ctx) -> Option<Special> {
    use Special::*;
    let wide = width > 32;
    let pick = |lo: Special, full: Special| Some(if wide { full } else { lo });
    match v {
        102 => pick(FlatScratchLo, FlatScratch),
        103 if !wide => Some(FlatScratchHi),
        104 => pick(XnackMaskLo, XnackMask),
        105 if !wide => Some(XnackMaskHi),
        106 => pick(VccLo, Vcc),
        107 if !wide => Some(VccHi),
        108 => pick(TbaLo, Tba),
        109 if !wide => Some(TbaHi),
        110 => pick(TmaLo, Tma),
        111 if !wide => Some(TmaHi),
        124 if ctx.gfx11_plus => Some(Null),
        124 if !wide => Some(M0),
        125 if ctx.gfx11_plus && !wide => Some(M0),
        125 if !ctx.gfx11_plus => Some(Null),
        126 => pick(ExecLo, Exec),
        127 if !wide => Some(ExecHi),
        235 => Some(SrcSharedBase),
        236 => Some(SrcSharedLimit),
        237 => Some(SrcPrivateBase),
        238 => Some(SrcPrivateLimit),
        239 => Some(SrcPopsExitingWaveId),
        251 => Some(SrcVccz),
        252 => Some(SrcExecz),
        253 => Some(SrcScc),
        254 if !wide => Some(LdsDirect),
        _ => None,
    }
}

/// `sema` of an f16 operand whose inline constants fill both halves on GFX11+ (isagen
/// `IMM_SEMANTICS`).
const SEMA_F16_SPLAT: u8 = 5;

/// Inline float constants 240..248 (0.5, −0.5, 1, −1, 2, −2, 4, −4, 1/(2π)) as bit patterns of
/// the operand's float width (ISA manual, "Inline constants").
fn inline_float(v: u32, imm_width: u8, sema: u8) -> i64 {
    use super::inline_floats::*;
    let i = (v - 240) as usize;
    (match imm_width {
        64 => F64_NAMES[i],
        16 if sema == 2 => BF16_NAMES[i],
        16 => F16_NAMES[i],
        _ => F32_NAMES[i],
    }) as i64
}
