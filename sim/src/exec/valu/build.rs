//! Resolving one decoded instruction and its [`Desc`] into an [`Alu`]: operand locations,
//! modifiers, encoding controls (op_sel, SDWA, DPP), destination form and lane-mask wiring.
//! Everything here runs once per instruction, when a kernel is loaded.

use super::desc::{Desc, Shape};
use super::dpp::Dpp;
use super::dst::{Cout, Dst, Form, MaskDst};
use super::fast;
use super::src::{Loc, Src};
use super::ty::Ty;
use super::{Alu, Cin};
use hipscope_isa::decode::{Inst, Operand, Reg, SrcMods};
use hipscope_isa::tables::{flags, OpName, Opcode, PrintKind};
use hipscope_isa::Family;

/// Encoding facts that change how operands are read.
struct Enc {
    vop3: bool,
    vop3p: bool,
    sdwa: bool,
    /// GFX11+: in VOP1/VOP2/VOPC encodings a 16-bit VGPR operand's bit 7 selects the high half
    /// (RDNA3 ISA §7.4 "16-bit Math and VGPRs").
    half_bit7: bool,
    family: Family,
}

impl Enc {
    fn of(inst: &Inst, family: Family) -> Enc {
        let r = inst.row;
        let vop3 = r.has(flags::VOP3);
        let vop3p = r.has(flags::VOP3P);
        let half_bit7 = matches!(family, Family::Gfx11 | Family::Gfx12) && !vop3 && !vop3p;
        Enc { vop3, vop3p, sdwa: r.has(flags::SDWA), half_bit7, family }
    }
}

/// Build the operation for `inst` described by `d`; `None` if an operand is unusable.
pub fn alu(inst: &Inst, family: Family, d: &Desc) -> Option<Alu> {
    let enc = Enc::of(inst, family);
    let dpp = Dpp::of(inst, family).ok()?;
    let mut src = [Src::NONE; 3];
    let mut aux = d.aux;
    for (i, s) in src.iter_mut().enumerate() {
        if d.src[i] != Ty::None {
            *s = source(inst, &enc, d, i, dpp.is_some())?;
            if d.src[i] == Ty::Mix {
                aux |= mix_select(inst, d.ops[i]) << (4 * i);
            }
        }
    }
    match inst.opcode() {
        Opcode::V_BITOP3_B32 | Opcode::V_BITOP3_B16 => aux = inst.operand(OpName::bitop3)?.imm() as u32,
        Opcode::V_DOT4_I32_IU8 | Opcode::V_DOT8_I32_IU4 => {
            let (m0, m1) = (inst.src_mods(0), inst.src_mods(1));
            aux = m0.neg as u32 | (m1.neg as u32) << 1;
        }
        // GFX11 VOP3 dot products of packed 16-bit pairs: what abs/neg/op_sel would do to a
        // packed operand of a VOP3 (not VOP3P) instruction is not specified; refuse them.
        Opcode::V_DOT2_F16_F16 | Opcode::V_DOT2_BF16_BF16 => {
            let plain = |m: SrcMods| !m.neg && !m.abs && !m.op_sel;
            if !plain(inst.src_mods(0)) || !plain(inst.src_mods(1)) {
                return None;
            }
        }
        _ => {}
    }
    if inst.opcode() == Opcode::V_PK_MOV_B32 {
        // Element 1 of the result comes from S1's dword chosen by op_sel[1].
        src[1].hi2 = mods(inst, OpName::src1).is_some_and(|m| m.0.op_sel);
    }
    let mut alu = Alu {
        k: d.k,
        src,
        dst: dest(inst, &enc, d)?,
        dty: d.dst,
        cin: mask_in(inst, &enc, d.shape),
        cout: mask_out(inst, family, d.shape),
        dpp,
        omod: inst.omod(),
        clamp: inst.clamp(),
        ftz_out: d.ftz_out,
        aux,
        fast: None,
    };
    alu.fast = d.fast.filter(|&f| fast::eligible(f, &alu));
    Some(alu)
}

/// Modifiers of a source operand and whether they are float (abs/neg) or integer (sext).
fn mods(inst: &Inst, name: OpName) -> Option<(SrcMods, bool)> {
    let (n, m) = match name {
        OpName::src0 => (0, OpName::src0_modifiers),
        OpName::src1 => (1, OpName::src1_modifiers),
        OpName::src2 => (2, OpName::src2_modifiers),
        _ => return None,
    };
    let idx = inst.row.operand_index(m)?;
    let float = inst.row.class_of(idx).printer == PrintKind::FpInputMods;
    Some((inst.src_mods(n), float))
}

/// A constant widened to the operand type: 32-bit literals for signed 64-bit integers are
/// sign-extended (ISA "Literal Expansion to 64 bits"; the decoder already places a 64-bit
/// float literal in the high half and zero-extends otherwise).
fn widen(v: i64, ty: Ty, inst: &Inst) -> u64 {
    if ty.bits() < 64 {
        return v as u64 & 0xffff_ffff;
    }
    let literal = inst.literal.is_some_and(|l| l as i64 == v);
    if ty == Ty::I64 && literal {
        v as u32 as i32 as i64 as u64
    } else {
        v as u64
    }
}

/// Where an operand's value lives.
pub fn locate(op: Operand, ty: Ty, inst: &Inst) -> Loc {
    match op {
        Operand::Reg(Reg::Vgpr { index, .. } | Reg::Vgpr16 { index, .. }) => Loc::V { reg: index, acc: false },
        Operand::Reg(Reg::Agpr { index, .. }) => Loc::V { reg: index, acc: true },
        Operand::Reg(_) => Loc::S(op),
        Operand::Imm(v) => Loc::K(widen(v, ty, inst)),
        Operand::Absent => Loc::K(0),
    }
}

fn source(inst: &Inst, enc: &Enc, d: &Desc, i: usize, dpp: bool) -> Option<Src> {
    let name = d.ops[i];
    let ty = d.src[i];
    let op = inst.operand(name).unwrap_or(Operand::Absent);
    // Without VOP3P controls a packed operand is read as it lies: element 1 in the high half.
    let mut s = Src { ty, ftz: d.ftz_in, hi2: ty.is_packed(), ..Src::NONE };
    s.loc = locate(op, ty, inst);
    s.hi = matches!(op, Operand::Reg(Reg::Vgpr16 { hi: true, .. }));
    if let Loc::V { reg, acc: false } = s.loc {
        if enc.half_bit7 && ty.bits() == 16 && reg >= 128 {
            s.loc = Loc::V { reg: reg - 128, acc: false };
            s.hi = true;
        }
    }
    s.dpp = dpp && name == OpName::src0;
    // GFX11+ fake16 VOP3 rows whose operands lack op_sel: the raw bits (see `Inst::opsel`).
    let bit = [OpName::src0, OpName::src1, OpName::src2].iter().position(|&n| n == name);
    if let (true, Some(bit)) = (enc.vop3 && ty.bits() == 16, bit) {
        s.hi |= inst.opsel >> bit & 1 != 0;
    }
    let Some((m, float)) = mods(inst, name) else {
        return Some(s);
    };
    if ty == Ty::Mix {
        return Some(s);
    }
    if enc.vop3p && ty.is_packed() {
        s.hi = m.op_sel;
        s.hi2 = m.op_sel_hi;
        s.neg = m.neg;
        s.abs = m.abs;
        return Some(s);
    }
    if enc.vop3 && ty.bits() == 16 {
        s.hi |= m.op_sel;
    }
    if float {
        s.neg = m.neg;
        s.abs = m.abs;
    }
    if enc.sdwa {
        let sel = [OpName::src0_sel, OpName::src1_sel].get(i).and_then(|&n| inst.operand(n)).map_or(6, |o| o.imm() as u8);
        s.sdwa = Some((sel, !float && m.sext));
    }
    Some(s)
}

/// VOP3P MIX source select: bit 0 op_sel, bit 1 op_sel_hi, bit 2 neg, bit 3 neg_hi (abs).
fn mix_select(inst: &Inst, name: OpName) -> u32 {
    mods(inst, name).map_or(0, |(m, _)| m.op_sel as u32 | (m.op_sel_hi as u32) << 1 | (m.neg as u32) << 2 | (m.abs as u32) << 3)
}

fn dest(inst: &Inst, enc: &Enc, d: &Desc) -> Option<Dst> {
    if d.dst == Ty::None {
        return Some(Dst::None);
    }
    let (mut reg, acc, mut hi) = match inst.operand(OpName::vdst)? {
        Operand::Reg(Reg::Vgpr { index, .. }) => (index, false, false),
        Operand::Reg(Reg::Agpr { index, .. }) => (index, true, false),
        Operand::Reg(Reg::Vgpr16 { index, hi }) => (index, false, hi),
        op @ Operand::Reg(_) if scalar_result(inst.opcode()) => return Some(Dst::S { op, half: d.dst.bits() == 16 }),
        _ => return None,
    };
    if let Some(sel) = d.keep {
        return Some(Dst::V { reg, acc, form: Form::Sdwa { sel, unused: 2 } });
    }
    if enc.sdwa {
        if let Some(sel) = inst.operand(OpName::dst_sel) {
            let unused = inst.operand(OpName::dst_unused).map_or(0, |o| o.imm() as u8);
            return Some(Dst::V { reg, acc, form: Form::Sdwa { sel: sel.imm() as u8, unused } });
        }
    }
    let form = match d.dst.bits() {
        64 => Form::B64,
        32 => Form::B32,
        _ => {
            if enc.half_bit7 && reg >= 128 && !acc {
                reg -= 128;
                hi = true;
            }
            hi |= enc.vop3 && mods(inst, OpName::src0).is_some_and(|(m, _)| m.op_sel_hi);
            hi |= enc.vop3 && inst.opsel & 8 != 0;
            half_form(inst, enc.family, hi)
        }
    };
    Some(Dst::V { reg, acc, form })
}

/// GFX12's VALU operations with an SGPR result (see [`Dst::S`]).
fn scalar_result(op: Opcode) -> bool {
    use Opcode::*;
    matches!(op, V_S_EXP_F32 | V_S_EXP_F16 | V_S_LOG_F32 | V_S_LOG_F16 | V_S_RCP_F32 | V_S_RCP_F16 | V_S_RSQ_F32 | V_S_RSQ_F16 | V_S_SQRT_F32 | V_S_SQRT_F16)
}

/// Where a 16-bit result goes and what happens to the other half (see `dst` module docs).
fn half_form(inst: &Inst, family: Family, hi: bool) -> Form {
    use Opcode::*;
    let op = inst.opcode();
    if matches!(op, V_FMA_MIXLO_F16 | V_MAD_MIXLO_F16 | V_FMA_MIXHI_F16 | V_MAD_MIXHI_F16) {
        return Form::Half { hi: matches!(op, V_FMA_MIXHI_F16 | V_MAD_MIXHI_F16), zero_other: false };
    }
    match family {
        Family::Gfx8 => Form::Half { hi: false, zero_other: true },
        Family::Gfx9 | Family::Gfx90a | Family::Gfx940 => {
            if !inst.row.has(flags::VOP3_OPSEL) {
                return Form::Half { hi: false, zero_other: true };
            }
            // The *_LEGACY_* forms zero the high half when writing the low one.
            let legacy = matches!(op, V_MAD_LEGACY_F16 | V_MAD_LEGACY_U16 | V_MAD_LEGACY_I16 | V_FMA_LEGACY_F16 | V_DIV_FIXUP_LEGACY_F16);
            Form::Half { hi, zero_other: legacy && !hi }
        }
        _ => Form::Half { hi, zero_other: false },
    }
}

/// The encoding's lane-mask destination: `sdst` when present, else VCC.
fn sdst_or_vcc(inst: &Inst) -> MaskDst {
    match inst.operand(OpName::sdst) {
        Some(o @ Operand::Reg(_)) => MaskDst::Reg(o),
        _ => MaskDst::Vcc,
    }
}

fn mask_out(inst: &Inst, family: Family, shape: Shape) -> Cout {
    match shape {
        Shape::CarryOut | Shape::CarryInOut => Cout { to: sdst_or_vcc(inst), exec: false },
        // GFX8/9 V_CMPX write the result to VCC/sdst and EXEC; GFX10+ only to EXEC (RDNA ISA
        // "Output Operands": "V_CMPX instructions write the result of their comparison ... to
        // the EXEC mask").
        Shape::Cmp { x: true } if family.is_rdna() => Cout { to: MaskDst::None, exec: true },
        Shape::Cmp { x } => Cout { to: sdst_or_vcc(inst), exec: x },
        _ => Cout::NONE,
    }
}

fn mask_in(inst: &Inst, enc: &Enc, shape: Shape) -> Cin {
    match shape {
        Shape::CarryInOut | Shape::Select if enc.vop3 => inst.operand(OpName::src2).map_or(Cin::Vcc, Cin::Reg),
        Shape::CarryInOut | Shape::Select | Shape::VccIn => Cin::Vcc,
        _ => Cin::None,
    }
}
