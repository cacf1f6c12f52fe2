//! VOPD dual issue (GFX11+ wave32): two VOP2-style operations "X" and "Y" in one instruction.
//! Both read their sources before either writes (RDNA3 ISA §7.6 "Dual Issue VALU": "there are
//! no races between them if one reads a VGPR and the other writes the same VGPR. The 'read'
//! gets the old value"). V_DUAL_CNDMASK_B32 selects with VCC. FMAAK/FMAMK take the
//! instruction's single literal as K; FMAC and DOT2ACC accumulate into their destination.

use super::build::locate;
use super::desc::{Desc, Shape};
use super::dst::{Cout, Dst, Form};
use super::src::Src;
use super::table;
use super::ty::Ty;
use super::{Alu, Cin};
use crate::exec::Fidelity;
use hipscope_isa::decode::{Inst, Operand, Reg};
use hipscope_isa::tables::{OpName, Opcode};
use hipscope_isa::Family;

pub fn is_vopd(inst: &Inst) -> bool {
    inst.row.operand_index(OpName::vdstX).is_some()
}

/// Where the K operand comes from relative to the two VOP2 sources.
#[derive(Clone, Copy, PartialEq)]
enum K {
    None,
    /// fmaak: S0 * S1 + K.
    Add,
    /// fmamk: S0 * K + S1.
    Mul,
    /// fmac / dot2acc: S0 * S1 + D.
    Acc,
}

/// The base operation of a `v_dual_*` mnemonic.
fn base(mnemonic: &str) -> Option<(Opcode, K)> {
    use Opcode::*;
    Some(match mnemonic.strip_prefix("v_dual_")? {
        "add_f32" => (V_ADD_F32, K::None),
        "sub_f32" => (V_SUB_F32, K::None),
        "subrev_f32" => (V_SUBREV_F32, K::None),
        "mul_f32" => (V_MUL_F32, K::None),
        "mul_dx9_zero_f32" => (V_MUL_DX9_ZERO_F32, K::None),
        "max_f32" => (V_MAX_F32, K::None),
        "min_f32" => (V_MIN_F32, K::None),
        "max_num_f32" => (V_MAX_NUM_F32, K::None),
        "min_num_f32" => (V_MIN_NUM_F32, K::None),
        "mov_b32" => (V_MOV_B32, K::None),
        "cndmask_b32" => (V_CNDMASK_B32, K::None),
        "add_nc_u32" => (V_ADD_NC_U32, K::None),
        "lshlrev_b32" => (V_LSHLREV_B32, K::None),
        "and_b32" => (V_AND_B32, K::None),
        "fmac_f32" => (V_FMA_F32, K::Acc),
        "fmaak_f32" => (V_FMA_F32, K::Add),
        "fmamk_f32" => (V_FMA_F32, K::Mul),
        "dot2acc_f32_f16" | "dot2c_f32_f16" => (V_DOT2_F32_F16, K::Acc),
        _ => return None,
    })
}

/// Both halves and the pair's fidelity (the weaker of the two).
pub fn classify(inst: &Inst, family: Family) -> Option<([Alu; 2], Fidelity)> {
    let asm = inst.row.asm;
    let x_name = inst.opcode().name();
    let y_name = asm.split("::").nth(1)?.split_whitespace().next()?;
    let (x, fx) = half(inst, family, x_name, true)?;
    let (y, fy) = half(inst, family, y_name, false)?;
    let fid = if fx == Fidelity::Exact { fy } else { fx };
    Some(([x, y], fid))
}

fn half(inst: &Inst, family: Family, mnemonic: &str, is_x: bool) -> Option<(Alu, Fidelity)> {
    let (opcode, k) = base(mnemonic)?;
    let d: Desc = table::describe(opcode, family)?;
    let names =
        if is_x { [OpName::vdstX, OpName::src0X, OpName::vsrc1X, OpName::immDeferred] } else { [OpName::vdstY, OpName::src0Y, OpName::vsrc1Y, OpName::imm] };
    let [dname, s0, s1, kname] = names;
    let konst = || inst.operand(kname).or(inst.literal.map(|l| Operand::Imm(l as i64)));
    let ops: [Option<Operand>; 3] = match k {
        K::None => [inst.operand(s0), inst.operand(s1), None],
        K::Add => [inst.operand(s0), inst.operand(s1), konst()],
        K::Mul => [inst.operand(s0), konst(), inst.operand(s1)],
        K::Acc => [inst.operand(s0), inst.operand(s1), inst.operand(dname)],
    };
    let mut src = [Src::NONE; 3];
    for i in 0..3 {
        let ty = d.src[i];
        if ty == Ty::None {
            continue;
        }
        let op = ops[i]?;
        src[i] = Src { loc: locate(op, ty, inst), ty, hi2: ty.is_packed(), ftz: d.ftz_in, ..Src::NONE };
    }
    let reg = match inst.operand(dname)? {
        Operand::Reg(Reg::Vgpr { index, .. }) => index,
        _ => return None,
    };
    let cin = if d.shape == Shape::Select { Cin::Vcc } else { Cin::None };
    let alu = Alu {
        k: d.k,
        src,
        dst: Dst::V { reg, acc: false, form: Form::B32 },
        dty: d.dst,
        cin,
        cout: Cout::NONE,
        dpp: None,
        omod: 0,
        clamp: false,
        ftz_out: d.ftz_out,
        aux: 0,
        // Both halves read their sources before either writes: the general path only.
        fast: None,
    };
    Some((alu, d.fid))
}
