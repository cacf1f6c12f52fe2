//! Vector-ALU operand syntax: encoding suffixes, source modifiers, implicit VCC operands,
//! DPP/DPP8/SDWA controls, op_sel/neg packed modifiers and MFMA controls.

use super::Printer;
use crate::tables::{flags, OpName, Opcode};
use std::fmt::Write;

// Source-modifier bits of `srcN_modifiers` operands (ISA manuals: VOP3 NEG/ABS fields, VOP3P
// OP_SEL/OP_SEL_HI/NEG_HI; LLVM packs them into one operand with these bit values).
pub const NEG: i64 = 1;
pub const ABS: i64 = 2;
/// SDWA/DPP integer sign extension: LLVM 19's records put it in bit 0, LLVM 22's in bit 4
/// (SISrcMods::SEXT); a row carries one or the other, so either bit means `sext`.
pub const SEXT: i64 = 1 | 1 << 4;
pub const NEG_HI: i64 = 2;
pub const OP_SEL_0: i64 = 4;
pub const OP_SEL_1: i64 = 8;
pub const DST_OP_SEL: i64 = 8;

impl Printer<'_> {
    fn is_e32(&self) -> bool {
        self.has(flags::VOP2) && !self.has(flags::VOP3 | flags::SDWA | flags::DPP)
    }

    fn is_dpp16(&self) -> bool {
        self.has(flags::DPP) && !self.has(flags::VOP3) && self.named(OpName::dpp8).is_none()
    }

    fn is_dpp8(&self) -> bool {
        !self.has(flags::VOP3) && self.named(OpName::dpp8).is_some()
    }

    fn is_carry_in_add(&self) -> bool {
        matches!(self.inst.opcode(), Opcode::V_ADD_CO_CI_U32 | Opcode::V_SUB_CO_CI_U32 | Opcode::V_SUBREV_CO_CI_U32)
    }

    fn is_cndmask(&self) -> bool {
        self.inst.opcode() == Opcode::V_CNDMASK_B32
    }

    /// Carry-in adds (GFX10+) name VCC as carry-out right after vdst in their VOP2, SDWA, DPP
    /// and DPP8 forms, where no field encodes it.
    fn carry_out_vcc(&self) -> bool {
        self.ctx.gfx10_plus && self.is_carry_in_add() && (self.is_e32() || self.is_dpp16() || self.is_dpp8() || self.has(flags::SDWA))
    }

    /// Implicit VCC read after src1 when src1 prints as a plain operand: `v_cndmask_b32` VOP2
    /// (all targets), its GFX10+ DPP8 and GFX12 DPP forms, and GFX10+ carry-in adds.
    fn plain_src1_vcc(&self) -> bool {
        let cndmask = self.is_cndmask() && (self.is_e32() || (self.ctx.gfx10_plus && self.is_dpp8()) || (self.ctx.gfx12_plus && self.is_dpp16()));
        let carry = self.ctx.gfx10_plus && self.is_carry_in_add() && (self.is_e32() || self.is_dpp16() || self.is_dpp8());
        cndmask || carry
    }

    /// Implicit VCC after a src1 printed with float modifiers (GFX10 SDWA and GFX10/11 DPP
    /// `v_cndmask_b32`).
    fn fp_mods_src1_vcc(&self) -> bool {
        let f = self.ctx.family;
        self.is_cndmask()
            && ((f == crate::Family::Gfx10 && self.has(flags::SDWA)) || (matches!(f, crate::Family::Gfx10 | crate::Family::Gfx11) && self.is_dpp16()))
    }

    /// Implicit VCC after a src1 printed with integer modifiers (GFX10 SDWA carry-in adds).
    fn int_mods_src1_vcc(&self) -> bool {
        self.ctx.family == crate::Family::Gfx10 && self.is_carry_in_add() && self.has(flags::SDWA)
    }

    fn is_src1(&self, i: usize) -> bool {
        self.named(OpName::src1) == Some(i)
    }

    /// `printVOPDst`: the first operand carries the encoding suffix of the mnemonic.
    pub(super) fn vop_dst(&mut self, i: usize) {
        if i == 0 {
            let suffix = if self.has(flags::VOP3) && self.has(flags::DPP) {
                "_e64_dpp"
            } else if self.has(flags::VOP3) {
                if self.has(flags::ISSINGLE) {
                    ""
                } else {
                    "_e64"
                }
            } else if self.has(flags::DPP) {
                "_dpp"
            } else if self.has(flags::SDWA) {
                "_sdwa"
            } else if self.has(flags::VOP1 | flags::VOP2) && !self.has(flags::ISSINGLE) {
                "_e32"
            } else {
                ""
            };
            self.out.push_str(suffix);
            self.out.push(' ');
        }
        self.regular(i);
        if self.carry_out_vcc() {
            self.default_vcc(false);
        }
    }

    /// Hooks after a plain operand: implicit VCC after src1, MTBUF format after soffset.
    pub(super) fn after_regular(&mut self, i: usize) {
        if self.is_src1(i) && self.plain_src1_vcc() {
            self.default_vcc(i == 0);
        }
        if self.has(flags::MTBUF) && self.named(OpName::soffset) == Some(i) {
            self.mtbuf_format();
        }
    }

    fn implied_vcc_before_mods(&self, i: usize) -> bool {
        i == 0 && self.has(flags::DPP) && self.writes_vcc_implicitly()
    }

    /// `-x`, `|x|`, `neg(imm)` around a float source.
    pub(super) fn fp_input_mods(&mut self, i: usize) {
        if self.implied_vcc_before_mods(i) {
            self.default_vcc(true);
        }
        let mods = self.imm(i);
        let neg_word = mods & NEG != 0 && mods & ABS == 0 && self.op(i + 1).is_imm();
        if mods & NEG != 0 {
            self.out.push_str(if neg_word { "neg(" } else { "-" });
        }
        if mods & ABS != 0 {
            self.out.push('|');
        }
        self.regular(i + 1);
        if mods & ABS != 0 {
            self.out.push('|');
        }
        if neg_word {
            self.out.push(')');
        }
        if self.is_src1(i + 1) && self.fp_mods_src1_vcc() {
            self.default_vcc(i == 0);
        }
    }

    /// `sext(x)` around an integer source.
    pub(super) fn int_input_mods(&mut self, i: usize) {
        if self.implied_vcc_before_mods(i) {
            self.default_vcc(true);
        }
        let mods = self.imm(i);
        if mods & SEXT != 0 {
            self.out.push_str("sext(");
        }
        self.regular(i + 1);
        if mods & SEXT != 0 {
            self.out.push(')');
        }
        if self.is_src1(i + 1) && self.int_mods_src1_vcc() {
            self.default_vcc(i == 0);
        }
    }

    /// 64-bit DPP ops ("DP ALU", GFX90A+) only have `row_newbcast`: any operand among vdst and
    /// src0..2 is a 64-bit VGPR.
    fn is_dp_alu_dpp(&self) -> bool {
        [OpName::vdst, OpName::src0, OpName::src1, OpName::src2]
            .iter()
            .any(|&n| self.named(n).is_some_and(|i| self.inst.row.class_of(i).reg_class.is_some_and(|rc| rc.vgpr && !rc.sgpr && rc.bits == 64)))
    }

    pub(super) fn dpp_ctrl(&mut self, v: i64) {
        let v = v as u32;
        if !(0x150..=0x15f).contains(&v) && self.is_dp_alu_dpp() {
            self.out.push_str(" /* DP ALU dpp only supports row_newbcast */");
            return;
        }
        let gfx10 = self.ctx.gfx10_plus;
        let unsupported = |what: &str| format!("/* {what} is not supported starting from GFX10 */");
        let text = match v {
            0x000..=0x0ff => format!("quad_perm:[{},{},{},{}]", v & 3, (v >> 2) & 3, (v >> 4) & 3, (v >> 6) & 3),
            0x101..=0x10f => format!("row_shl:{}", v & 0xf),
            0x111..=0x11f => format!("row_shr:{}", v & 0xf),
            0x121..=0x12f => format!("row_ror:{}", v & 0xf),
            0x130 if gfx10 => unsupported("wave_shl"),
            0x130 => "wave_shl:1".into(),
            0x134 if gfx10 => unsupported("wave_rol"),
            0x134 => "wave_rol:1".into(),
            0x138 if gfx10 => unsupported("wave_shr"),
            0x138 => "wave_shr:1".into(),
            0x13c if gfx10 => unsupported("wave_ror"),
            0x13c => "wave_ror:1".into(),
            0x140 => "row_mirror".into(),
            0x141 => "row_half_mirror".into(),
            0x142 | 0x143 if gfx10 => unsupported("row_bcast"),
            0x142 => "row_bcast:15".into(),
            0x143 => "row_bcast:31".into(),
            0x150..=0x15f if self.ctx.gfx90a_insts => format!("row_newbcast:{}", v & 0xf),
            0x150..=0x15f if gfx10 => format!("row_share:{}", v & 0xf),
            0x150..=0x15f => " /* row_newbcast/row_share is not supported on ASICs earlier than GFX90A/GFX10 */".into(),
            0x160..=0x16f if gfx10 => format!("row_xmask:{}", v & 0xf),
            0x160..=0x16f => "/* row_xmask is not supported on ASICs earlier than GFX10 */".into(),
            _ => "/* Invalid dpp_ctrl value */".into(),
        };
        self.out.push_str(&text);
    }

    pub(super) fn dpp8(&mut self, v: i64) {
        self.out.push_str("dpp8:[");
        for lane in 0..8 {
            if lane > 0 {
                self.out.push(',');
            }
            let _ = write!(self.out, "{}", (v >> (3 * lane)) & 7);
        }
        self.out.push(']');
    }

    pub(super) fn sdwa_sel(&mut self, prefix: &str, v: i64) {
        const SELS: [&str; 7] = ["BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD"];
        self.out.push_str(prefix);
        self.out.push_str(SELS.get(v as usize).copied().unwrap_or("DWORD"));
    }

    pub(super) fn sdwa_dst_unused(&mut self, v: i64) {
        const UNUSED: [&str; 3] = ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"];
        self.out.push_str("dst_unused:");
        self.out.push_str(UNUSED.get(v as usize).copied().unwrap_or("UNUSED_PAD"));
    }

    fn src_mods(&self, n: usize) -> Option<i64> {
        let name = [OpName::src0_modifiers, OpName::src1_modifiers, OpName::src2_modifiers][n];
        self.named(name).map(|i| self.imm(i))
    }

    pub(super) fn op_sel(&mut self) {
        let op = self.inst.opcode();
        let gfx12_fp8_cvt = self.ctx.gfx12_plus
            && self.has(flags::VOP3)
            && matches!(op, Opcode::V_CVT_F32_BF8 | Opcode::V_CVT_F32_FP8 | Opcode::V_CVT_PK_F32_BF8 | Opcode::V_CVT_PK_F32_FP8);
        if gfx12_fp8_cvt {
            let m = self.src_mods(0).unwrap_or(0);
            let (a, b) = ((m & OP_SEL_0 != 0) as u8, (m & OP_SEL_1 != 0) as u8);
            if a != 0 || b != 0 {
                let _ = write!(self.out, " op_sel:[{a},{b}]");
            }
            return;
        }
        let permlane16 = self.ctx.gfx10_plus
            && matches!(op, Opcode::V_PERMLANE16_B32 | Opcode::V_PERMLANEX16_B32 | Opcode::V_PERMLANE16_VAR_B32 | Opcode::V_PERMLANEX16_VAR_B32);
        if permlane16 {
            let fi = (self.src_mods(0).unwrap_or(0) & OP_SEL_0 != 0) as u8;
            let bc = (self.src_mods(1).unwrap_or(0) & OP_SEL_0 != 0) as u8;
            if fi != 0 || bc != 0 {
                let _ = write!(self.out, " op_sel:[{fi},{bc}]");
            }
            return;
        }
        self.packed_modifier(" op_sel:[", OP_SEL_0);
    }

    /// `op_sel:[..]`, `op_sel_hi:[..]`, `neg_lo:[..]`, `neg_hi:[..]`: one bit per source taken
    /// from the source modifiers; omitted when every bit has its default value.
    pub(super) fn packed_modifier(&mut self, name: &str, bit: i64) {
        let default = (bit == OP_SEL_1) as i64;
        let srcs = [OpName::src0, OpName::src1, OpName::src2];
        let mut ops: Vec<i64> = Vec::with_capacity(3);
        if self.has(flags::ISWMMA | flags::ISSWMMAC) {
            ops.extend((0..3).map(|n| self.src_mods(n).unwrap_or(default * bit)));
        } else {
            for (n, src) in srcs.iter().enumerate() {
                if self.named(*src).is_none() {
                    break;
                }
                ops.push(self.src_mods(n).unwrap_or(default * bit));
            }
        }
        // LLVM 22 prints the destination's op_sel bit only when there is a destination
        // (`v_cmpx_*` has none); LLVM 19 printed it for every VOP3_OPSEL form.
        let has_dst = !self.ctx.llvm22 || self.named(OpName::vdst).is_some() || self.named(OpName::sdst).is_some();
        let has_dst_sel = has_dst && !ops.is_empty() && bit == OP_SEL_0 && self.has(flags::VOP3_OPSEL);
        let packed_default = (self.has(flags::ISPACKED) && bit == OP_SEL_1) as i64;
        let all_default = ops.iter().all(|m| ((m & bit != 0) as i64) == packed_default) && !(has_dst_sel && ops[0] & DST_OP_SEL != 0);
        if all_default {
            return;
        }
        self.out.push_str(name);
        for (n, m) in ops.iter().enumerate() {
            if n > 0 {
                self.out.push(',');
            }
            self.out.push(if m & bit != 0 { '1' } else { '0' });
        }
        if has_dst_sel {
            self.out.push(',');
            self.out.push(if ops[0] & DST_OP_SEL != 0 { '1' } else { '0' });
        }
        self.out.push(']');
    }

    /// MFMA `blgp`; the GFX940 f64 MFMAs reuse the field as three negate bits.
    pub(super) fn blgp(&mut self, v: i64) {
        if v == 0 {
            return;
        }
        let f64_mfma = matches!(
            self.inst.opcode(),
            Opcode::V_MFMA_F64_16X16X4F64 | Opcode::V_MFMA_F64_4X4X4F64 | Opcode::V_MFMA_F64_16X16X4_F64 | Opcode::V_MFMA_F64_4X4X4_4B_F64
        );
        if self.ctx.gfx940_insts && f64_mfma {
            let _ = write!(self.out, " neg:[{},{},{}]", v & 1, (v >> 1) & 1, (v >> 2) & 1);
        } else {
            let _ = write!(self.out, " blgp:{v}");
        }
    }
}
