//! Program control (ISA manuals, "SOPP Instructions"): branch targets are
//! next PC + 4 * simm16; the rig's PC is 0x1000, so next PC is 0x1004.

use hipscope_isa::Processor;
use hipscope_sim::exec::{Fidelity, Flow, Sem};
use hipscope_sim::testing::Rig;
use hipscope_sim::FaultKind;

const TAKEN: Flow = Flow::Jump(0x1004 + 16);

#[test]
fn unconditional_branch() {
    let mut r = Rig::new(Processor::Gfx900, true);
    assert_eq!(r.run(&[0x04, 0x00, 0x82, 0xbf]), TAKEN); // s_branch 4
    assert_eq!(r.run(&[0xfd, 0xff, 0x82, 0xbf]), Flow::Jump(0x1004 - 12)); // s_branch -3
}

#[test]
fn scc_branches() {
    let mut r = Rig::new(Processor::Gfx900, true);
    r.wave.scc = false;
    assert_eq!(r.run(&[0x04, 0x00, 0x84, 0xbf]), TAKEN); // s_cbranch_scc0 4
    r.wave.pc = 0x1000;
    assert_eq!(r.run(&[0x04, 0x00, 0x85, 0xbf]), Flow::Next); // s_cbranch_scc1 4
    assert_eq!(r.wave.pc, 0x1004);
    r.wave.pc = 0x1000;
    r.wave.scc = true;
    assert_eq!(r.run(&[0x04, 0x00, 0x85, 0xbf]), TAKEN); // s_cbranch_scc1 4
}

#[test]
fn vcc_and_exec_branches_wave64() {
    let mut r = Rig::new(Processor::Gfx900, true);
    r.wave.set_vcc(1 << 40);
    r.wave.set_exec(0);
    let vccz = &[0x04, 0x00, 0x86, 0xbf]; // s_cbranch_vccz 4
    let vccnz = &[0x04, 0x00, 0x87, 0xbf]; // s_cbranch_vccnz 4
    let execz = &[0x04, 0x00, 0x88, 0xbf]; // s_cbranch_execz 4
    let execnz = &[0x04, 0x00, 0x89, 0xbf]; // s_cbranch_execnz 4
    for (bytes, expect) in [(vccz, Flow::Next), (vccnz, TAKEN), (execz, TAKEN), (execnz, Flow::Next)] {
        r.wave.pc = 0x1000;
        assert_eq!(r.run(bytes), expect);
    }
    // Wave64 on RDNA3 uses all of VCC.
    let mut r = Rig::new(Processor::Gfx1100, true);
    r.wave.set_vcc(1 << 40);
    assert_eq!(r.run(&[0x04, 0x00, 0xa3, 0xbf]), Flow::Next); // s_cbranch_vccz 4
}

#[test]
fn vccz_in_wave32_looks_at_vcc_lo_only() {
    let mut r = Rig::new(Processor::Gfx1100, false);
    r.wave.sreg[106] = 0; // vcc_lo
    r.wave.sreg[107] = 0xffff_ffff; // vcc_hi is an ordinary SGPR in wave32
    assert_eq!(r.run(&[0x04, 0x00, 0xa3, 0xbf]), TAKEN); // s_cbranch_vccz 4
}

#[test]
fn debugger_branches_are_not_taken() {
    let mut r = Rig::new(Processor::Gfx900, true);
    assert_eq!(r.run(&[0x04, 0x00, 0x97, 0xbf]), Flow::Next); // s_cbranch_cdbgsys 4
}

#[test]
fn end_barrier_sleep() {
    let mut r = Rig::new(Processor::Gfx900, true);
    assert_eq!(r.run(&[0x00, 0x00, 0x81, 0xbf]), Flow::End); // s_endpgm
    assert_eq!(r.run(&[0x00, 0x00, 0x8a, 0xbf]), Flow::Barrier); // s_barrier
    assert_eq!(r.run(&[0x02, 0x00, 0x8e, 0xbf]), Flow::Yield); // s_sleep 2
    let mut r = Rig::new(Processor::Gfx1100, false);
    assert_eq!(r.run(&[0x00, 0x00, 0xb1, 0xbf]), Flow::End); // s_endpgm_saved
}

#[test]
fn gfx12_split_barrier() {
    let mut r = Rig::new(Processor::Gfx1201, false);
    assert_eq!(r.run(&[0xc1, 0x4e, 0x80, 0xbe]), Flow::Barrier); // s_barrier_signal -1
    assert_eq!(r.run(&[0xff, 0xff, 0x94, 0xbf]), Flow::Next); // s_barrier_wait -1
    assert_eq!(r.run(&[0x01, 0x58, 0x80, 0xbe]), Flow::Yield); // s_sleep_var s1
                                                               // Named barriers and the "is first" form are not modelled: a fault naming the instruction.
    assert_eq!(r.classify(&[0x7d, 0x4e, 0x80, 0xbe]), Sem::Unsupported); // s_barrier_signal m0
    assert_eq!(r.classify(&[0xc1, 0x4f, 0x80, 0xbe]), Sem::Unsupported); // s_barrier_signal_isfirst -1
    assert!(matches!(r.exec(&[0xc1, 0x4f, 0x80, 0xbe]), Err(FaultKind::Unsupported { .. })));
}

#[test]
fn waits_and_hints_do_nothing_in_functional_mode() {
    let hints: [(Processor, bool, &[u8]); 9] = [
        (Processor::Gfx900, true, &[0x70, 0x00, 0x8c, 0xbf]),   // s_waitcnt vmcnt(0) lgkmcnt(0)
        (Processor::Gfx900, true, &[0x03, 0x00, 0x80, 0xbf]),   // s_nop 3
        (Processor::Gfx900, true, &[0x02, 0x00, 0x8f, 0xbf]),   // s_setprio 2
        (Processor::Gfx900, true, &[0x01, 0x00, 0x8b, 0xbf]),   // s_setkill 1
        (Processor::Gfx900, true, &[0x00, 0x00, 0x93, 0xbf]),   // s_icache_inv
        (Processor::Gfx1100, false, &[0x00, 0x00, 0x7c, 0xbc]), // s_waitcnt_vscnt null, 0x0
        (Processor::Gfx1100, false, &[0x01, 0x00, 0x87, 0xbf]), // s_delay_alu instid0(VALU_DEP_1)
        (Processor::Gfx1100, false, &[0x01, 0x00, 0x85, 0xbf]), // s_clause 0x1
        (Processor::Gfx1201, false, &[0x00, 0x00, 0xc0, 0xbf]), // s_wait_loadcnt 0x0
    ];
    for (p, w64, bytes) in hints {
        let mut r = Rig::new(p, w64);
        let before = (r.wave.sreg, r.wave.scc, r.wave.mode);
        assert_eq!(r.run(bytes), Flow::Next, "{bytes:02x?}");
        assert_eq!((r.wave.sreg, r.wave.scc, r.wave.mode), before);
        assert!(matches!(r.classify(bytes).fidelity(), Fidelity::NoEffect(_)), "{bytes:02x?}");
    }
}

#[test]
fn traps_and_halts() {
    let mut r = Rig::new(Processor::Gfx900, true);
    assert!(matches!(r.exec(&[0x02, 0x00, 0x92, 0xbf]), Err(FaultKind::Other(_)))); // s_trap 2
    assert_eq!(r.run(&[0x03, 0x00, 0x92, 0xbf]), Flow::Next); // s_trap 3 (debug trap, no debugger)
    assert!(r.exec(&[0x01, 0x00, 0x8d, 0xbf]).is_err()); // s_sethalt 1
    assert_eq!(r.run(&[0x00, 0x00, 0x8d, 0xbf]), Flow::Next); // s_sethalt 0
}

#[test]
fn messages() {
    let mut r = Rig::new(Processor::Gfx1100, false);
    let dealloc = &[0x03, 0x00, 0xb6, 0xbf]; // s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)
    assert_eq!(r.run(dealloc), Flow::Next);
    assert!(matches!(r.classify(dealloc).fidelity(), Fidelity::NoEffect(_)));
    let mut r = Rig::new(Processor::Gfx900, true);
    let interrupt = &[0x01, 0x00, 0x90, 0xbf]; // s_sendmsg sendmsg(MSG_INTERRUPT)
    assert_eq!(r.run(interrupt), Flow::Next);
    assert!(matches!(r.classify(interrupt).fidelity(), Fidelity::Approximate(_)));
}

#[test]
fn vgpr_index_mode_state() {
    let mut r = Rig::new(Processor::Gfx900, true);
    r.wave.sreg[124] = 0xffff_0000;
    r.wave.sreg[2] = 0x1_0005;
    r.run(&[0x02, 0x09, 0x11, 0xbf]); // s_set_gpr_idx_on s2, gpr_idx(SRC0,DST)
    assert_eq!(r.wave.sreg[124], 0xffff_9005, "M0[7:0] = index, M0[15:12] = SRC0|DST enables");
    assert_ne!(r.wave.mode & 1 << 27, 0, "MODE.GPR_IDX_EN");
    r.run(&[0x02, 0x00, 0x9d, 0xbf]); // s_set_gpr_idx_mode gpr_idx(SRC1)
    assert_eq!(r.wave.sreg[124], 0xffff_2005);
    r.wave.sreg[3] = 0x77;
    r.run(&[0x03, 0x32, 0x80, 0xbe]); // s_set_gpr_idx_idx s3
    assert_eq!(r.wave.sreg[124], 0xffff_2077);
    r.run(&[0x00, 0x00, 0x9c, 0xbf]); // s_set_gpr_idx_off
    assert_eq!(r.wave.mode & 1 << 27, 0);
}

#[test]
fn unsupported_control_faults_instead_of_panicking() {
    let mut r = Rig::new(Processor::Gfx900, true);
    for bytes in [
        &[0x01, 0x02, 0x10, 0xbf], // s_setvskip s1, s2
        &[0x04, 0x00, 0x02, 0xb8], // s_cbranch_i_fork s[2:3], 4
    ] {
        assert_eq!(r.classify(bytes), Sem::Unsupported);
        assert!(matches!(r.exec(bytes), Err(FaultKind::Unsupported { .. })));
    }
}
