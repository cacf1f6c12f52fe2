//! PC instructions, M0-relative moves, hardware registers and `s_sendmsg_rtn` (ISA manuals,
//! "SOP1/SOPK Instructions", "Hardware registers"). The rig's PC is 0x1000.

use hipscope_isa::Processor;
use hipscope_sim::exec::{Fidelity, Flow};
use hipscope_sim::testing::Rig;

fn set64(r: &mut Rig, i: usize, v: u64) {
    r.wave.sreg[i] = v as u32;
    r.wave.sreg[i + 1] = (v >> 32) as u32;
}

fn get64(r: &Rig, i: usize) -> u64 {
    r.wave.sreg[i] as u64 | (r.wave.sreg[i + 1] as u64) << 32
}

#[test]
fn getpc_returns_the_next_instruction() {
    let mut r = Rig::new(Processor::Gfx900, true);
    assert_eq!(r.run(&[0x00, 0x1c, 0x80, 0xbe]), Flow::Next); // s_getpc_b64 s[0:1]
    assert_eq!(get64(&r, 0), 0x1004);
    let mut r = Rig::new(Processor::Gfx1201, false);
    r.run(&[0x00, 0x47, 0x80, 0xbe]); // s_getpc_b64 s[0:1]
    assert_eq!(get64(&r, 0), 0x1004);
}

#[test]
fn setpc_and_swappc_jump() {
    let mut r = Rig::new(Processor::Gfx900, true);
    set64(&mut r, 2, 0x2040);
    assert_eq!(r.run(&[0x02, 0x1d, 0x80, 0xbe]), Flow::Jump(0x2040)); // s_setpc_b64 s[2:3]
    assert_eq!(r.run(&[0x02, 0x1e, 0x80, 0xbe]), Flow::Jump(0x2040)); // s_swappc_b64 s[0:1], s[2:3]
    assert_eq!(get64(&r, 0), 0x1004, "return address");
    // Same register pair: the target is read before the return address is written.
    set64(&mut r, 0, 0x3000);
    assert_eq!(r.run(&[0x00, 0x1e, 0x80, 0xbe]), Flow::Jump(0x3000)); // s_swappc_b64 s[0:1], s[0:1]
    assert_eq!(get64(&r, 0), 0x1004);
}

#[test]
fn call_saves_the_return_address() {
    let mut r = Rig::new(Processor::Gfx900, true);
    assert_eq!(r.run(&[0x10, 0x00, 0x9e, 0xba]), Flow::Jump(0x1004 + 64)); // s_call_b64 s[30:31], 16
    assert_eq!(get64(&r, 30), 0x1004);
    assert_eq!(r.run(&[0xfe, 0xff, 0x9e, 0xba]), Flow::Jump(0x1004 - 8)); // s_call_b64 s[30:31], -2
}

#[test]
fn m0_relative_moves() {
    let mut r = Rig::new(Processor::Gfx900, true);
    for i in 0..16 {
        r.wave.sreg[i] = 100 + i as u32;
    }
    r.wave.sreg[124] = 3; // m0
    r.run(&[0x04, 0x2a, 0x80, 0xbe]); // s_movrels_b32 s0, s4
    assert_eq!(r.wave.sreg[0], 107);
    r.run(&[0x04, 0x2b, 0x80, 0xbe]); // s_movrels_b64 s[0:1], s[4:5]
    assert_eq!((r.wave.sreg[0], r.wave.sreg[1]), (107, 108));
    r.wave.sreg[0] = 7;
    r.run(&[0x00, 0x2c, 0x84, 0xbe]); // s_movreld_b32 s4, s0
    assert_eq!(r.wave.sreg[7], 7);
    set64(&mut r, 0, 0x1111_2222_3333_4444);
    r.wave.sreg[124] = 6;
    r.run(&[0x00, 0x2d, 0x84, 0xbe]); // s_movreld_b64 s[4:5], s[0:1]
    assert_eq!(get64(&r, 10), 0x1111_2222_3333_4444);
    // Beyond the SGPR file (s101 on GFX9): reads give 0, writes are dropped.
    r.wave.sreg[124] = 200;
    r.run(&[0x04, 0x2a, 0x80, 0xbe]); // s_movrels_b32 s0, s4
    assert_eq!(r.wave.sreg[0], 0);
    let before = r.wave.sreg;
    r.run(&[0x00, 0x2c, 0x84, 0xbe]); // s_movreld_b32 s4, s0
    assert_eq!(r.wave.sreg, before);
}

#[test]
fn movrelsd_2_uses_two_m0_fields() {
    let mut r = Rig::new(Processor::Gfx1030, false);
    r.wave.sreg[6] = 0xabcd;
    r.wave.sreg[124] = 5 << 16 | 2; // write index 5, read index 2
    r.run(&[0x04, 0x49, 0x80, 0xbe]); // s_movrelsd_2_b32 s0, s4
    assert_eq!(r.wave.sreg[5], 0xabcd);
}

#[test]
fn getreg_setreg_mode() {
    let mut r = Rig::new(Processor::Gfx900, true);
    r.wave.mode = 0x0000_02f0; // IEEE, denormals kept, round to nearest
    r.run(&[0x01, 0xf8, 0x80, 0xb8]); // s_getreg_b32 s0, hwreg(HW_REG_MODE)
    assert_eq!(r.wave.sreg[0], 0x2f0);
    r.run(&[0x01, 0x19, 0x80, 0xb8]); // s_getreg_b32 s0, hwreg(HW_REG_MODE, 4, 4)
    assert_eq!(r.wave.sreg[0], 0xf);
    // Only the field's bits change; higher source bits are ignored.
    r.wave.sreg[1] = 0xffff_fff3;
    r.run(&[0x01, 0x18, 0x01, 0xb9]); // s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s1
    assert_eq!(r.wave.mode, 0x2f3);
    r.run(&[0x01, 0x19, 0x00, 0xba, 0xbc, 0x0a, 0x00, 0x00]); // s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 4), 0xabc
    assert_eq!(r.wave.mode, 0x2c3);
    assert_eq!(r.classify(&[0x01, 0x18, 0x01, 0xb9]).fidelity(), Fidelity::Exact);
}

#[test]
fn getreg_other_registers() {
    let mut r = Rig::new(Processor::Gfx900, true);
    r.run(&[0x0f, 0x7c, 0x80, 0xb8]); // s_getreg_b32 s0, hwreg(HW_REG_SH_MEM_BASES, 16, 16)
    assert_eq!((r.wave.sreg[0] as u64) << 48, r.env.apertures.shared_base, "shared aperture bits [63:48]");
    r.wave.scc = true;
    r.run(&[0x02, 0xf8, 0x80, 0xb8]); // s_getreg_b32 s0, hwreg(HW_REG_STATUS)
    assert_eq!(r.wave.sreg[0] & 1, 1, "STATUS.SCC");
    assert_eq!(r.wave.sreg[0] >> 9 & 1, 0, "EXECZ: EXEC is all ones");
    // Unknown registers read 0 and say so.
    r.wave.sreg[0] = 5;
    r.run(&[0x06, 0xf8, 0x80, 0xb8]); // s_getreg_b32 s0, hwreg(HW_REG_LDS_ALLOC)
    assert_eq!(r.wave.sreg[0], 0);
    assert!(matches!(r.classify(&[0x06, 0xf8, 0x80, 0xb8]).fidelity(), Fidelity::Approximate(_)));
    assert!(matches!(r.classify(&[0x04, 0xf8, 0x80, 0xb8]).fidelity(), Fidelity::Approximate(_))); // HW_ID
    let mut r = Rig::new(Processor::Gfx942, true);
    r.run(&[0x14, 0xf8, 0x80, 0xb8]); // s_getreg_b32 s0, hwreg(HW_REG_XCC_ID)
    assert_eq!(r.wave.sreg[0], 0);
}

#[test]
fn gfx10_flat_scratch_and_shader_cycles() {
    let mut r = Rig::new(Processor::Gfx1030, false);
    r.wave.sreg[1] = 0x1234_5678;
    r.run(&[0x14, 0xf8, 0x81, 0xb9]); // s_setreg_b32 hwreg(HW_REG_FLAT_SCR_LO), s1
    r.run(&[0x14, 0xf8, 0x00, 0xb9]); // s_getreg_b32 s0, hwreg(HW_REG_FLAT_SCR_LO)
    assert_eq!(r.wave.sreg[0], 0x1234_5678);
    r.env.clock = 0x1_2345_6789;
    r.run(&[0x1d, 0x98, 0x00, 0xb9]); // s_getreg_b32 s0, hwreg(HW_REG_SHADER_CYCLES, 0, 20)
    assert_eq!(r.wave.sreg[0], 0x5_6789, "20-bit counter");
    r.wave.id.wave = 3;
    r.run(&[0x17, 0xf8, 0x00, 0xb9]); // s_getreg_b32 s0, hwreg(HW_REG_HW_ID1)
    assert_eq!(r.wave.sreg[0] & 0x1f, 3, "WAVE_ID");
}

#[test]
fn gfx12_shader_cycles_and_realtime() {
    let mut r = Rig::new(Processor::Gfx1201, false);
    r.env.clock = 0x0000_0012_3456_789a;
    r.run(&[0x1d, 0xf8, 0x80, 0xb8]); // s_getreg_b32 s0, hwreg(HW_REG_SHADER_CYCLES_LO)
    assert_eq!(r.wave.sreg[0], 0x3456_789a);
    r.run(&[0x1e, 0xf8, 0x80, 0xb8]); // s_getreg_b32 s0, hwreg(HW_REG_SHADER_CYCLES_HI)
    assert_eq!(r.wave.sreg[0], 0x12);
    // At 100 MHz the real-time counter equals the shader clock.
    r.env.rate = hipscope_sim::exec::clock::Rate::of_mhz(100);
    r.env.clock = 0x0000_0001_0000_0002;
    r.run(&[0x83, 0x4d, 0x82, 0xbe]); // s_sendmsg_rtn_b64 s[2:3], sendmsg(MSG_RTN_GET_REALTIME)
    assert_eq!(get64(&r, 2), 0x0000_0001_0000_0002);
    set64(&mut r, 2, u64::MAX);
    r.run(&[0x83, 0x4c, 0x82, 0xbe]); // s_sendmsg_rtn_b32 s2, sendmsg(MSG_RTN_GET_REALTIME)
    assert_eq!((r.wave.sreg[2], r.wave.sreg[3]), (2, 0xffff_ffff));
    r.run(&[0x80, 0x4c, 0x82, 0xbe]); // s_sendmsg_rtn_b32 s2, sendmsg(MSG_RTN_GET_DOORBELL)
    assert_eq!(r.wave.sreg[2], 0);
    assert!(matches!(r.classify(&[0x80, 0x4c, 0x82, 0xbe]).fidelity(), Fidelity::Approximate(_)));
}
