//! Hardware registers through `s_getreg_b32` / `s_setreg_b32` / `s_setreg_imm32_b32`, and the
//! GFX11+ `s_sendmsg_rtn_b32/b64` messages that return a value.
//!
//! The SOPK `simm16` names a field: register id [5:0], bit offset [10:6], size - 1 [15:11]
//! (ISA manuals, "S_GETREG_B32"; hwreg ids per generation as in the "Hardware registers"
//! tables: MODE 1, STATUS 2, TRAPSTS 3 before GFX12, HW_ID 4 on GFX8/9, SH_MEM_BASES 15 on
//! GFX9-GFX11, XCC_ID 20 on GFX940, FLAT_SCR_LO/HI 20/21 on GFX10/11, HW_ID1 23 on GFX10+,
//! SHADER_CYCLES 29 on GFX10.3/GFX11 (a 20-bit counter), SHADER_CYCLES_LO/HI 29/30 on GFX12).

use super::super::Env;
use crate::wave::{slot, Wave};
use hipscope_isa::Family;

/// A hardware register as the model knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HwReg {
    Mode,
    Status,
    Trapsts,
    /// GFX8/9 HW_ID.
    HwId,
    /// GFX10+ HW_ID1.
    HwId1,
    ShMemBases,
    FlatScrLo,
    FlatScrHi,
    XccId,
    /// GFX10.3/GFX11 SHADER_CYCLES: bits [19:0] of the shader clock.
    ShaderCycles20,
    ShaderCyclesLo,
    ShaderCyclesHi,
    /// Any other id: reads 0, writes are dropped.
    Other(u8),
}

/// A bit field of a hardware register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub reg: HwReg,
    pub offset: u8,
    pub size: u8,
}

impl Field {
    /// Decode the `hwreg(...)` immediate for a target family.
    pub fn decode(simm16: u16, family: Family) -> Field {
        let id = (simm16 & 0x3f) as u8;
        let offset = ((simm16 >> 6) & 0x1f) as u8;
        let size = ((simm16 >> 11) & 0x1f) as u8 + 1;
        Field { reg: reg_of(id, family), offset, size }
    }

    fn mask(&self) -> u32 {
        (((1u64 << self.size) - 1) << self.offset) as u32
    }
}

fn reg_of(id: u8, family: Family) -> HwReg {
    use Family::*;
    let gcn = matches!(family, Gfx8 | Gfx9 | Gfx90a | Gfx940);
    match (id, family) {
        (1, _) => HwReg::Mode,
        (2, _) => HwReg::Status,
        (3, f) if f != Gfx12 => HwReg::Trapsts,
        (4, _) if gcn => HwReg::HwId,
        (15, f) if f != Gfx8 && f != Gfx12 => HwReg::ShMemBases,
        (20, Gfx940) => HwReg::XccId,
        (20, Gfx10 | Gfx11) => HwReg::FlatScrLo,
        (21, Gfx10 | Gfx11) => HwReg::FlatScrHi,
        (23, _) if !gcn => HwReg::HwId1,
        (29, Gfx10 | Gfx11) => HwReg::ShaderCycles20,
        (29, Gfx12) => HwReg::ShaderCyclesLo,
        (30, Gfx12) => HwReg::ShaderCyclesHi,
        _ => HwReg::Other(id),
    }
}

/// Why reading a register is not exact, if it is not.
pub fn read_fidelity(reg: HwReg) -> Option<&'static str> {
    Some(match reg {
        HwReg::Mode | HwReg::ShMemBases | HwReg::FlatScrLo | HwReg::FlatScrHi => return None,
        HwReg::Status => "STATUS: only SCC, EXECZ, VCCZ and VALID are modelled",
        HwReg::Trapsts => "TRAPSTS: exception status bits are not raised by the model",
        HwReg::HwId | HwReg::HwId1 => "HW_ID: WAVE_ID from the wave's index in its work-group; CU/SIMD/SE fields read 0",
        HwReg::XccId => "XCC_ID reads 0 (no XCD placement in the model)",
        HwReg::ShaderCycles20 | HwReg::ShaderCyclesLo | HwReg::ShaderCyclesHi => "shader cycle counter counts executed instructions in functional mode",
        HwReg::Other(_) => "hardware register not modelled: reads 0",
    })
}

/// Why writing a register is not exact, if it is not.
pub fn write_fidelity(reg: HwReg) -> Option<&'static str> {
    match reg {
        HwReg::Mode | HwReg::Trapsts | HwReg::FlatScrLo | HwReg::FlatScrHi => None,
        _ => Some("write to a hardware register the model does not keep: dropped"),
    }
}

/// Whole value of a register.
fn read(reg: HwReg, w: &Wave, env: &Env) -> u32 {
    match reg {
        HwReg::Mode => w.mode,
        HwReg::Status => status(w),
        HwReg::Trapsts => w.trapsts,
        HwReg::HwId => w.id.wave & 0xf,
        HwReg::HwId1 => w.id.wave & 0x1f,
        HwReg::ShMemBases => ((env.apertures.shared_base >> 48) << 16 | (env.apertures.private_base >> 48) & 0xffff) as u32,
        HwReg::FlatScrLo => w.sreg[slot::FLAT_SCRATCH_LO],
        HwReg::FlatScrHi => w.sreg[slot::FLAT_SCRATCH_HI],
        HwReg::ShaderCycles20 => (env.clock & 0xf_ffff) as u32,
        HwReg::ShaderCyclesLo => env.clock as u32,
        HwReg::ShaderCyclesHi => (env.clock >> 32) as u32,
        HwReg::XccId | HwReg::Other(_) => 0,
    }
}

/// STATUS: SCC [0], EXECZ [9], VCCZ [10], VALID [16].
fn status(w: &Wave) -> u32 {
    w.scc as u32 | ((w.exec() == 0) as u32) << 9 | ((w.vcc() == 0) as u32) << 10 | 1 << 16
}

/// `s_getreg_b32`: the field, shifted down to bit 0.
pub fn get(f: Field, w: &Wave, env: &Env) -> u32 {
    (read(f.reg, w, env) & f.mask()) >> f.offset
}

/// `s_setreg_b32`: replace the field with the low `size` bits of `value`.
pub fn set(f: Field, w: &mut Wave, value: u32) {
    let m = f.mask();
    let merge = |old: u32| (old & !m) | ((value << f.offset) & m);
    match f.reg {
        HwReg::Mode => w.mode = merge(w.mode),
        HwReg::Trapsts => w.trapsts = merge(w.trapsts),
        HwReg::FlatScrLo => w.sreg[slot::FLAT_SCRATCH_LO] = merge(w.sreg[slot::FLAT_SCRATCH_LO]),
        HwReg::FlatScrHi => w.sreg[slot::FLAT_SCRATCH_HI] = merge(w.sreg[slot::FLAT_SCRATCH_HI]),
        _ => {}
    }
}

/// Messages of `s_sendmsg_rtn_*` (ISA manuals, "S_SENDMSG_RTN_B32": MSG_RTN_GET_DOORBELL 128,
/// GET_DDID 129, GET_TMA 130, GET_REALTIME 131, SAVE_WAVE 132, GET_TBA 133).
pub const MSG_RTN_GET_REALTIME: u32 = 131;

/// Value returned by `s_sendmsg_rtn`: only the real-time clock is modelled, others read 0.
pub fn message_value(msg: u32, env: &Env) -> u64 {
    if msg == MSG_RTN_GET_REALTIME {
        env.realtime()
    } else {
        0
    }
}

pub fn message_fidelity(msg: u32) -> &'static str {
    if msg == MSG_RTN_GET_REALTIME {
        "real-time counter derives from executed instructions in functional mode"
    } else {
        "message not modelled: returns 0"
    }
}
