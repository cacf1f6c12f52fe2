//! GFX8/GFX9 VGPR indexing mode. Between `s_set_gpr_idx_on` and `s_set_gpr_idx_off`
//! (MODE.GPR_IDX_EN set) every VALU instruction adds M0[7:0] to the VGPR numbers of the
//! operands that M0[15:12] enables: bit 12 SRC0, 13 SRC1, 14 SRC2, 15 the destination (Vega
//! ISA, "S_SET_GPR_IDX_ON" and "VGPR Indexing"). clang emits it for dynamic indexes into
//! vectors held in VGPRs on gfx9 (`s_set_gpr_idx_on s4, gpr_idx(SRC0)` / `v_mov_b32 v69, v50`
//! reads v[50 + s4]). The classified operation is copied with the numbers moved, so the
//! ordinary path stays as it is; the mode is rare and short-lived.

use super::dst::Dst;
use super::src::Loc;
use super::Alu;
use crate::fault::FaultKind;
use crate::wave::VGPRS;

/// `a` with the operands M0 enables moved by M0's index; an index past the register file is
/// a kernel fault.
pub fn indexed(a: &Alu, m0: u32) -> Result<Alu, FaultKind> {
    let index = m0 & 0xff;
    let enables = m0 >> 12 & 0xf;
    let mut r = a.clone();
    for (i, s) in r.src.iter_mut().enumerate() {
        if enables >> i & 1 == 0 {
            continue;
        }
        if let Loc::V { reg, acc: false } = &mut s.loc {
            *reg = moved(*reg, index)?;
        }
    }
    if enables & 8 != 0 {
        if let Dst::V { reg, acc: false, .. } = &mut r.dst {
            *reg = moved(*reg, index)?;
        }
    }
    Ok(r)
}

fn moved(reg: u8, index: u32) -> Result<u8, FaultKind> {
    let to = reg as usize + index as usize;
    if to >= VGPRS {
        return Err(FaultKind::Other(format!("VGPR index mode: v{reg} + M0 index {index} is past v{}", VGPRS - 1)));
    }
    Ok(to as u8)
}
