//! SOP1 one-source operations: results and SCC per the ISA manuals' descriptions
//! ("SOP1 Instructions"). Encodings from `llvm-mc-19 -show-encoding`.

use hipscope_isa::Processor;
use hipscope_sim::testing::Rig;

fn set64(r: &mut Rig, i: usize, v: u64) {
    r.wave.sreg[i] = v as u32;
    r.wave.sreg[i + 1] = (v >> 32) as u32;
}

fn get64(r: &Rig, i: usize) -> u64 {
    r.wave.sreg[i] as u64 | (r.wave.sreg[i + 1] as u64) << 32
}

/// gfx900: s1 = x, SCC = scc_in, run; (s0, SCC).
fn un32(bytes: &[u8], x: u32, scc_in: bool) -> (u32, bool) {
    let mut r = Rig::new(Processor::Gfx900, true);
    r.wave.sreg[1] = x;
    r.wave.scc = scc_in;
    r.run(bytes);
    (r.wave.sreg[0], r.wave.scc)
}

/// gfx900: s[2:3] = x, run; (s[0:1], SCC).
fn un64(bytes: &[u8], x: u64, scc_in: bool) -> (u64, bool) {
    let mut r = Rig::new(Processor::Gfx900, true);
    set64(&mut r, 2, x);
    r.wave.sreg[1] = 0xdead;
    r.wave.scc = scc_in;
    r.run(bytes);
    (get64(&r, 0), r.wave.scc)
}

#[test]
fn moves() {
    assert_eq!(un32(&[0x01, 0x00, 0x80, 0xbe], 42, true), (42, true)); // s_mov_b32 s0, s1
                                                                       // s_cmov: move only when SCC is set.
    let mut r = Rig::new(Processor::Gfx900, true);
    r.wave.sreg[0] = 1;
    r.wave.sreg[1] = 2;
    r.wave.scc = false;
    r.run(&[0x01, 0x02, 0x80, 0xbe]); // s_cmov_b32 s0, s1
    assert_eq!(r.wave.sreg[0], 1);
    r.wave.scc = true;
    r.run(&[0x01, 0x02, 0x80, 0xbe]); // s_cmov_b32 s0, s1
    assert_eq!(r.wave.sreg[0], 2);
    set64(&mut r, 2, 0x1234_5678_9abc_def0);
    r.run(&[0x02, 0x03, 0x80, 0xbe]); // s_cmov_b64 s[0:1], s[2:3]
    assert_eq!(get64(&r, 0), 0x1234_5678_9abc_def0);
    // Writes to EXEC and VCC.
    r.wave.sreg[1] = 0xf;
    r.run(&[0x01, 0x00, 0xfe, 0xbe]); // s_mov_b32 exec_lo, s1
    assert_eq!(r.wave.exec(), 0xffff_ffff_0000_000f);
    r.run(&[0x02, 0x01, 0xea, 0xbe]); // s_mov_b64 vcc, s[2:3]
    assert_eq!(r.wave.vcc(), 0x1234_5678_9abc_def0);
}

#[test]
fn not_and_wqm_set_scc() {
    assert_eq!(un32(&[0x01, 0x04, 0x80, 0xbe], 0xffff_ffff, true), (0, false)); // s_not_b32 s0, s1
    assert_eq!(un64(&[0x02, 0x05, 0x80, 0xbe], 0xffff_0000_ffff_ffff, false), (0x0000_ffff_0000_0000, true)); // s_not_b64 s[0:1], s[2:3]
                                                                                                              // s_wqm_b64: every quad with a set bit becomes 0xf.
    assert_eq!(un64(&[0x02, 0x07, 0x80, 0xbe], 0x8000_0000_0000_0021, false), (0xf000_0000_0000_00ff, true)); // s_wqm_b64 s[0:1], s[2:3]
    assert_eq!(un64(&[0x02, 0x07, 0x80, 0xbe], 0, true), (0, false));
}

#[test]
fn bit_reverse_and_counts() {
    assert_eq!(un32(&[0x01, 0x08, 0x80, 0xbe], 0x0000_0001, false), (0x8000_0000, false)); // s_brev_b32 s0, s1
    assert_eq!(un64(&[0x02, 0x09, 0x80, 0xbe], 0x0000_0000_0000_0003, true), (0xc000_0000_0000_0000, true)); // s_brev_b64 s[0:1], s[2:3]
    assert_eq!(un32(&[0x01, 0x0a, 0x80, 0xbe], 0xffff_fff0, false), (4, true)); // s_bcnt0_i32_b32 s0, s1
    assert_eq!(un32(&[0x01, 0x0a, 0x80, 0xbe], 0xffff_ffff, true), (0, false));
    let mut r = Rig::new(Processor::Gfx900, true);
    set64(&mut r, 2, 0x8000_0001_0000_0003);
    r.run(&[0x02, 0x0d, 0x80, 0xbe]); // s_bcnt1_i32_b64 s0, s[2:3]
    assert_eq!((r.wave.sreg[0], r.wave.scc), (4, true));
}

#[test]
fn find_bits_return_minus_one_when_absent() {
    assert_eq!(un32(&[0x01, 0x0e, 0x80, 0xbe], 0x0000_00ff, true), (8, true)); // s_ff0_i32_b32 s0, s1
    assert_eq!(un32(&[0x01, 0x0e, 0x80, 0xbe], 0xffff_ffff, false), (0xffff_ffff, false));
    let mut r = Rig::new(Processor::Gfx900, true);
    set64(&mut r, 2, 0x0000_0100_0000_0000);
    r.run(&[0x02, 0x11, 0x80, 0xbe]); // s_ff1_i32_b64 s0, s[2:3]
    assert_eq!(r.wave.sreg[0], 40);
    r.run(&[0x02, 0x13, 0x80, 0xbe]); // s_flbit_i32_b64 s0, s[2:3]
    assert_eq!(r.wave.sreg[0], 23, "leading zeros of bit 40 in 64 bits");
    set64(&mut r, 2, 0);
    r.run(&[0x02, 0x11, 0x80, 0xbe]); // s_ff1_i32_b64 s0, s[2:3]
    assert_eq!(r.wave.sreg[0], 0xffff_ffff);
    assert_eq!(un32(&[0x01, 0x12, 0x80, 0xbe], 0x0001_0000, false), (15, false)); // s_flbit_i32_b32 s0, s1
    assert_eq!(un32(&[0x01, 0x12, 0x80, 0xbe], 0, false), (0xffff_ffff, false));
    // s_flbit_i32: leading bits equal to the sign bit.
    assert_eq!(un32(&[0x01, 0x14, 0x80, 0xbe], 0xffff_0000, false), (16, false)); // s_flbit_i32 s0, s1
    assert_eq!(un32(&[0x01, 0x14, 0x80, 0xbe], 0x0000_ffff, false), (16, false));
    assert_eq!(un32(&[0x01, 0x14, 0x80, 0xbe], 0xffff_ffff, false), (0xffff_ffff, false));
    set64(&mut r, 2, 0xffff_ffff_ffff_fff0);
    r.run(&[0x02, 0x15, 0x80, 0xbe]); // s_flbit_i32_i64 s0, s[2:3]
    assert_eq!(r.wave.sreg[0], 60);
}

#[test]
fn sign_extension_abs_quadmask() {
    assert_eq!(un32(&[0x01, 0x16, 0x80, 0xbe], 0x1234_5680, true), (0xffff_ff80, true)); // s_sext_i32_i8 s0, s1
    assert_eq!(un32(&[0x01, 0x17, 0x80, 0xbe], 0x1234_7fff, false), (0x7fff, false)); // s_sext_i32_i16 s0, s1
    assert_eq!(un32(&[0x01, 0x30, 0x80, 0xbe], 0xffff_fffb, false), (5, true)); // s_abs_i32 s0, s1
    assert_eq!(un32(&[0x01, 0x30, 0x80, 0xbe], 0x8000_0000, false), (0x8000_0000, true));
    assert_eq!(un32(&[0x01, 0x30, 0x80, 0xbe], 0, true), (0, false));
    // s_quadmask_b32: bit i = any bit of nibble i.
    assert_eq!(un32(&[0x01, 0x28, 0x80, 0xbe], 0x1000_0f02, false), (0x85, true));
    // s_quadmask_b32 s0, s1
}

#[test]
fn bitset_changes_one_bit_of_the_destination() {
    let mut r = Rig::new(Processor::Gfx900, true);
    r.wave.sreg[0] = 0xffff_ffff;
    r.wave.sreg[1] = 35; // bit 35 & 31 = 3
    r.wave.scc = true;
    r.run(&[0x01, 0x18, 0x80, 0xbe]); // s_bitset0_b32 s0, s1
    assert_eq!((r.wave.sreg[0], r.wave.scc), (0xffff_fff7, true));
    set64(&mut r, 0, 0);
    r.wave.sreg[2] = 33;
    r.run(&[0x02, 0x1b, 0x80, 0xbe]); // s_bitset1_b64 s[0:1], s2
    assert_eq!(get64(&r, 0), 1 << 33);
}

#[test]
fn rdna3_count_names() {
    let mut r = Rig::new(Processor::Gfx1100, false);
    r.wave.sreg[1] = 0x0000_0100;
    r.run(&[0x01, 0x08, 0x80, 0xbe]); // s_ctz_i32_b32 s0, s1
    assert_eq!(r.wave.sreg[0], 8);
    r.run(&[0x01, 0x0a, 0x80, 0xbe]); // s_clz_i32_u32 s0, s1
    assert_eq!(r.wave.sreg[0], 23);
    r.wave.sreg[1] = 0xfff0_0000;
    r.run(&[0x01, 0x0c, 0x80, 0xbe]); // s_cls_i32 s0, s1
    assert_eq!(r.wave.sreg[0], 12);
    set64(&mut r, 2, 0);
    r.run(&[0x02, 0x0d, 0x80, 0xbe]); // s_cls_i32_i64 s0, s[2:3]
    assert_eq!(r.wave.sreg[0], 0xffff_ffff);
}

#[test]
fn bit_replicate() {
    let mut r = Rig::new(Processor::Gfx1030, false);
    r.wave.sreg[2] = 0x8000_0005;
    r.run(&[0x02, 0x3b, 0x80, 0xbe]); // s_bitreplicate_b64_b32 s[0:1], s2
    assert_eq!(get64(&r, 0), 0xc000_0000_0000_0033);
}
