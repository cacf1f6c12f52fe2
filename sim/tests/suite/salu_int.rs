//! SALU integer operations (SOP2, SOPC, SOPK): results and SCC per the ISA manuals'
//! instruction descriptions. Encodings from `llvm-mc-19 -show-encoding` (asm in comments);
//! expected values worked out by hand from the documented semantics.

use hipscope_isa::Processor;
use hipscope_sim::testing::Rig;

fn gfx9() -> Rig {
    Rig::new(Processor::Gfx900, true)
}

/// Run `bytes` with s1 = a, s2 = b and SCC = scc_in; return (s0, SCC).
fn bin(bytes: &[u8], a: u32, b: u32, scc_in: bool) -> (u32, bool) {
    let mut r = gfx9();
    r.wave.sreg[1] = a;
    r.wave.sreg[2] = b;
    r.wave.scc = scc_in;
    r.run(bytes);
    (r.wave.sreg[0], r.wave.scc)
}

const ADD_U32: &[u8] = &[0x01, 0x02, 0x00, 0x80]; // s_add_u32 s0, s1, s2
const SUB_U32: &[u8] = &[0x01, 0x02, 0x80, 0x80]; // s_sub_u32 s0, s1, s2
const ADD_I32: &[u8] = &[0x01, 0x02, 0x00, 0x81]; // s_add_i32 s0, s1, s2
const SUB_I32: &[u8] = &[0x01, 0x02, 0x80, 0x81]; // s_sub_i32 s0, s1, s2

#[test]
fn unsigned_add_sub_set_carry_and_borrow() {
    assert_eq!(bin(ADD_U32, 0xffff_ffff, 1, false), (0, true));
    assert_eq!(bin(ADD_U32, 0x7fff_ffff, 1, true), (0x8000_0000, false));
    assert_eq!(bin(SUB_U32, 1, 2, false), (0xffff_ffff, true));
    assert_eq!(bin(SUB_U32, 2, 2, true), (0, false));
}

#[test]
fn signed_add_sub_set_overflow() {
    // 0x7fffffff + 1 overflows; 0xffffffff + 1 (-1 + 1) carries but does not overflow.
    assert_eq!(bin(ADD_I32, 0x7fff_ffff, 1, false), (0x8000_0000, true));
    assert_eq!(bin(ADD_I32, 0xffff_ffff, 1, true), (0, false));
    assert_eq!(bin(ADD_I32, 0x8000_0000, 0x8000_0000, false), (0, true));
    // -2^31 - 1 overflows; 0 - 1 borrows but does not overflow.
    assert_eq!(bin(SUB_I32, 0x8000_0000, 1, false), (0x7fff_ffff, true));
    assert_eq!(bin(SUB_I32, 0, 1, true), (0xffff_ffff, false));
    assert_eq!(bin(SUB_I32, 0x7fff_ffff, 0xffff_ffff, false), (0x8000_0000, true));
}

#[test]
fn add_with_carry_and_subtract_with_borrow_chain() {
    // 64-bit 0x1_ffff_ffff + 0x0_0000_0001 with s_add_u32 / s_addc_u32.
    let mut r = gfx9();
    r.wave.sreg[1] = 0xffff_ffff;
    r.wave.sreg[2] = 1;
    r.wave.sreg[4] = 1;
    r.wave.sreg[5] = 0;
    r.run(ADD_U32);
    r.run(&[0x04, 0x05, 0x03, 0x82]); // s_addc_u32 s3, s4, s5
    assert_eq!((r.wave.sreg[0], r.wave.sreg[3], r.wave.scc), (0, 2, false));
    // addc carry out with carry in: 0xffffffff + 0 + 1.
    r.wave.sreg[4] = 0xffff_ffff;
    r.wave.scc = true;
    r.run(&[0x04, 0x05, 0x03, 0x82]); // s_addc_u32 s3, s4, s5
    assert_eq!((r.wave.sreg[3], r.wave.scc), (0, true));
    // 0x2_0000_0000 - 1: s_sub_u32 borrows, s_subb_u32 consumes it.
    r.wave.sreg[1] = 0;
    r.wave.sreg[2] = 1;
    r.wave.sreg[4] = 2;
    r.wave.sreg[5] = 0;
    r.run(SUB_U32);
    r.run(&[0x04, 0x05, 0x83, 0x82]); // s_subb_u32 s3, s4, s5
    assert_eq!((r.wave.sreg[0], r.wave.sreg[3], r.wave.scc), (0xffff_ffff, 1, false));
    // subb borrow out: 0 - 0 - 1.
    r.wave.sreg[4] = 0;
    r.wave.scc = true;
    r.run(&[0x04, 0x05, 0x83, 0x82]); // s_subb_u32 s3, s4, s5
    assert_eq!((r.wave.sreg[3], r.wave.scc), (0xffff_ffff, true));
}

#[test]
fn min_max_select_and_report_the_choice() {
    const MIN_I32: &[u8] = &[0x01, 0x02, 0x00, 0x83]; // s_min_i32 s0, s1, s2
    const MAX_U32: &[u8] = &[0x01, 0x02, 0x80, 0x84]; // s_max_u32 s0, s1, s2
    assert_eq!(bin(MIN_I32, 0xffff_ffff, 5, false), (0xffff_ffff, true));
    assert_eq!(bin(MIN_I32, 5, 5, true), (5, false));
    assert_eq!(bin(MAX_U32, 0xffff_ffff, 5, false), (0xffff_ffff, true));
    assert_eq!(bin(MAX_U32, 3, 5, true), (5, false));
}

#[test]
fn cselect_reads_scc_and_keeps_it() {
    const CSELECT: &[u8] = &[0x01, 0x02, 0x00, 0x85]; // s_cselect_b32 s0, s1, s2
    assert_eq!(bin(CSELECT, 7, 9, true), (7, true));
    assert_eq!(bin(CSELECT, 7, 9, false), (9, false));
}

#[test]
fn logic_and_shifts_set_scc_to_nonzero_result() {
    const AND: &[u8] = &[0x01, 0x02, 0x00, 0x86]; // s_and_b32 s0, s1, s2
    const NOR: &[u8] = &[0x01, 0x02, 0x00, 0x8c]; // s_nor_b32 s0, s1, s2
    const LSHL: &[u8] = &[0x01, 0x02, 0x00, 0x8e]; // s_lshl_b32 s0, s1, s2
    const ASHR: &[u8] = &[0x01, 0x02, 0x00, 0x90]; // s_ashr_i32 s0, s1, s2
    assert_eq!(bin(AND, 0xf0, 0x0f, true), (0, false));
    assert_eq!(bin(AND, 0xf0, 0x3f, false), (0x30, true));
    assert_eq!(bin(NOR, 0xffff_0000, 0x0000_ffff, true), (0, false));
    assert_eq!(bin(NOR, 0xffff_0000, 0x0000_fff0, false), (0xf, true));
    // Shift amounts use S1[4:0]: 33 shifts by 1.
    assert_eq!(bin(LSHL, 0x8000_0001, 33, false), (2, true));
    assert_eq!(bin(LSHL, 0x8000_0000, 1, true), (0, false));
    assert_eq!(bin(ASHR, 0x8000_0000, 31, false), (0xffff_ffff, true));
}

#[test]
fn bit_fields() {
    const BFE_I32: &[u8] = &[0x01, 0x02, 0x00, 0x93]; // s_bfe_i32 s0, s1, s2
    const BFM: &[u8] = &[0x01, 0x02, 0x00, 0x91]; // s_bfm_b32 s0, s1, s2
                                                  // Field at offset 4, width 8 of 0x00000f80 is 0xf8 = -8 sign-extended.
    assert_eq!(bin(BFE_I32, 0x0000_0f80, 4 | 8 << 16, false), (0xffff_fff8, true));
    assert_eq!(bin(BFE_I32, 0x0000_0f80, 4, true), (0, false));
    // s_bfm_b32: ((1 << S0[4:0]) - 1) << S1[4:0]; SCC untouched.
    assert_eq!(bin(BFM, 4, 8, true), (0xf00, true));
    assert_eq!(bin(BFM, 0, 8, false), (0, false));
}

#[test]
fn multiplies_leave_scc() {
    const MUL: &[u8] = &[0x01, 0x02, 0x00, 0x92]; // s_mul_i32 s0, s1, s2
    const MUL_HI_I32: &[u8] = &[0x01, 0x02, 0x80, 0x96]; // s_mul_hi_i32 s0, s1, s2
    const MUL_HI_U32: &[u8] = &[0x01, 0x02, 0x00, 0x96]; // s_mul_hi_u32 s0, s1, s2
    assert_eq!(bin(MUL, 0x1_0001, 0x1_0001, true), (0x2_0001, true));
    // -2 * 3 = -6: high word of the signed product is all ones; unsigned high word is 2.
    assert_eq!(bin(MUL_HI_I32, 0xffff_fffe, 3, false), (0xffff_ffff, false));
    assert_eq!(bin(MUL_HI_U32, 0xffff_fffe, 3, false), (2, false));
}

#[test]
fn absdiff_shift_add_and_pack() {
    const ABSDIFF: &[u8] = &[0x01, 0x02, 0x00, 0x95]; // s_absdiff_i32 s0, s1, s2
    const LSHL3_ADD: &[u8] = &[0x01, 0x02, 0x00, 0x98]; // s_lshl3_add_u32 s0, s1, s2
    const PACK_LH: &[u8] = &[0x01, 0x02, 0x80, 0x99]; // s_pack_lh_b32_b16 s0, s1, s2
    assert_eq!(bin(ABSDIFF, 3, 10, false), (7, true));
    assert_eq!(bin(ABSDIFF, 0xffff_fff6, 5, false), (15, true)); // |-10 - 5|
    assert_eq!(bin(ABSDIFF, 4, 4, true), (0, false));
    // (0x2000_0001 << 3) + 8 = 0x1_0000_0010: carry out of the 64-bit sum.
    assert_eq!(bin(LSHL3_ADD, 0x2000_0001, 8, false), (0x10, true));
    assert_eq!(bin(LSHL3_ADD, 1, 2, true), (10, false));
    assert_eq!(bin(PACK_LH, 0x1111_2222, 0x3333_4444, true), (0x3333_2222, true));
}

#[test]
fn literal_constants() {
    let mut r = gfx9();
    r.wave.sreg[1] = 0x8000_0000;
    r.run(&[0x01, 0xff, 0x00, 0x80, 0x00, 0x00, 0x00, 0x80]); // s_add_u32 s0, s1, 0x80000000
    assert_eq!((r.wave.sreg[0], r.wave.scc), (0, true));
    assert_eq!(r.wave.pc, 0x1008, "the literal is part of the instruction");
    // A literal used as a signed 64-bit operand is sign-extended, as an unsigned or bitwise
    // one zero-extended; inline constants are 64-bit values.
    r.run(&[0xff, 0x84, 0x80, 0x90, 0x00, 0x00, 0x00, 0x80]); // s_ashr_i64 s[0:1], 0x80000000, 4
    assert_eq!((r.wave.sreg[0], r.wave.sreg[1]), (0xf800_0000, 0xffff_ffff));
    r.run(&[0xff, 0x84, 0x80, 0x8f, 0x00, 0x00, 0x00, 0x80]); // s_lshr_b64 s[0:1], 0x80000000, 4
    assert_eq!((r.wave.sreg[0], r.wave.sreg[1]), (0x0800_0000, 0));
    r.run(&[0xff, 0x01, 0x80, 0xbe, 0x00, 0x00, 0x00, 0x80]); // s_mov_b64 s[0:1], 0x80000000
    assert_eq!((r.wave.sreg[0], r.wave.sreg[1]), (0x8000_0000, 0));
    r.run(&[0xc1, 0x01, 0x80, 0xbe]); // s_mov_b64 s[0:1], -1
    assert_eq!((r.wave.sreg[0], r.wave.sreg[1]), (0xffff_ffff, 0xffff_ffff));
    r.run(&[0xf2, 0x01, 0x80, 0xbe]); // s_mov_b64 s[0:1], 1.0
    assert_eq!((r.wave.sreg[0], r.wave.sreg[1]), (0, 0x3ff0_0000));
}

fn set64(r: &mut Rig, i: usize, v: u64) {
    r.wave.sreg[i] = v as u32;
    r.wave.sreg[i + 1] = (v >> 32) as u32;
}

fn get64(r: &Rig, i: usize) -> u64 {
    r.wave.sreg[i] as u64 | (r.wave.sreg[i + 1] as u64) << 32
}

#[test]
fn sixty_four_bit_operations() {
    let mut r = gfx9();
    set64(&mut r, 2, 0xf0f0_0000_0000_00ff);
    set64(&mut r, 4, 0x00f0_0000_0000_0f0f);
    r.run(&[0x02, 0x04, 0x80, 0x86]); // s_and_b64 s[0:1], s[2:3], s[4:5]
    assert_eq!((get64(&r, 0), r.wave.scc), (0x00f0_0000_0000_000f, true));
    // Shift by S1[5:0]: 36 moves bit 0 to bit 36.
    set64(&mut r, 2, 0x8000_0000_0000_0001);
    r.wave.sreg[4] = 36;
    r.run(&[0x02, 0x04, 0x80, 0x8e]); // s_lshl_b64 s[0:1], s[2:3], s4
    assert_eq!((get64(&r, 0), r.wave.scc), (1 << 36, true));
    // s_bfe_u64: offset 60, width 8 (field runs past bit 63) of 0xa000... = 0xa.
    set64(&mut r, 2, 0xa000_0000_0000_0000);
    r.wave.sreg[4] = 60 | 8 << 16;
    r.run(&[0x02, 0x04, 0x80, 0x93]); // s_bfe_u64 s[0:1], s[2:3], s4
    assert_eq!((get64(&r, 0), r.wave.scc), (0xa, true));
    // s_bfm_b64 s[0:1], s2, s3: 40 ones from bit 8.
    r.wave.sreg[2] = 40;
    r.wave.sreg[3] = 8;
    r.wave.scc = false;
    r.run(&[0x02, 0x03, 0x80, 0x91]); // s_bfm_b64 s[0:1], s2, s3
    assert_eq!((get64(&r, 0), r.wave.scc), (((1u64 << 40) - 1) << 8, false));
    set64(&mut r, 2, 1);
    set64(&mut r, 4, 2);
    r.wave.scc = false;
    r.run(&[0x02, 0x04, 0x80, 0x85]); // s_cselect_b64 s[0:1], s[2:3], s[4:5]
    assert_eq!((get64(&r, 0), r.wave.scc), (2, false));
}

#[test]
fn compares() {
    let mut r = gfx9();
    r.wave.sreg[1] = 0xffff_ffff;
    r.wave.sreg[2] = 1;
    r.run(&[0x01, 0x02, 0x04, 0xbf]); // s_cmp_lt_i32 s1, s2
    assert!(r.wave.scc, "-1 < 1 signed");
    r.run(&[0x01, 0x02, 0x0a, 0xbf]); // s_cmp_lt_u32 s1, s2
    assert!(!r.wave.scc, "0xffffffff > 1 unsigned");
    // 64-bit equality compares both halves.
    set64(&mut r, 0, 0x1_0000_0005);
    set64(&mut r, 2, 0x2_0000_0005);
    r.run(&[0x00, 0x02, 0x12, 0xbf]); // s_cmp_eq_u64 s[0:1], s[2:3]
    assert!(!r.wave.scc);
    r.run(&[0x00, 0x02, 0x13, 0xbf]); // s_cmp_lg_u64 s[0:1], s[2:3]
    assert!(r.wave.scc);
    // s_bitcmp1_b32: bit S1[4:0] of S0.
    r.wave.sreg[1] = 0x20;
    r.wave.sreg[2] = 37;
    r.run(&[0x01, 0x02, 0x0d, 0xbf]); // s_bitcmp1_b32 s1, s2
    assert!(r.wave.scc, "37 & 31 = 5");
    // s_bitcmp0_b64: bit 32 of 0x1_0000_0005 is 1.
    set64(&mut r, 0, 0x1_0000_0005);
    r.wave.sreg[2] = 32;
    r.run(&[0x00, 0x02, 0x0e, 0xbf]); // s_bitcmp0_b64 s[0:1], s2
    assert!(!r.wave.scc);
}

#[test]
fn sopk_immediates() {
    let mut r = gfx9();
    r.run(&[0x00, 0x80, 0x00, 0xb0]); // s_movk_i32 s0, 0x8000
    assert_eq!(r.wave.sreg[0], 0xffff_8000, "simm16 is sign-extended");
    r.wave.scc = false;
    r.run(&[0x34, 0x12, 0x80, 0xb0]); // s_cmovk_i32 s0, 0x1234
    assert_eq!(r.wave.sreg[0], 0xffff_8000);
    r.wave.scc = true;
    r.run(&[0x34, 0x12, 0x80, 0xb0]); // s_cmovk_i32 s0, 0x1234
    assert_eq!(r.wave.sreg[0], 0x1234);
    r.wave.sreg[0] = 0x7fff_8001;
    r.run(&[0xff, 0x7f, 0x00, 0xb7]); // s_addk_i32 s0, 0x7fff
    assert_eq!((r.wave.sreg[0], r.wave.scc), (0x8000_0000, true), "signed overflow");
    r.wave.sreg[0] = 5;
    r.run(&[0xff, 0x7f, 0x00, 0xb7]); // s_addk_i32 s0, 0x7fff
    assert_eq!((r.wave.sreg[0], r.wave.scc), (0x8004, false));
    r.wave.sreg[0] = 7;
    r.run(&[0xfe, 0xff, 0x80, 0xb7]); // s_mulk_i32 s0, 0xfffe
    assert_eq!((r.wave.sreg[0], r.wave.scc), ((-14i32) as u32, false), "SCC unchanged");
    // s_cmpk_*_i32 sign-extends the immediate, s_cmpk_*_u32 zero-extends it.
    r.wave.sreg[0] = 0xffff_fffe;
    r.run(&[0xff, 0xff, 0x00, 0xb3]); // s_cmpk_lt_i32 s0, 0xffff
    assert!(r.wave.scc, "-2 < -1");
    r.run(&[0xff, 0xff, 0x00, 0xb6]); // s_cmpk_lt_u32 s0, 0xffff
    assert!(!r.wave.scc, "0xfffffffe > 0xffff");
}

#[test]
fn rdna3_names() {
    let mut r = Rig::new(Processor::Gfx1100, false);
    r.wave.sreg[1] = 0xff00;
    r.wave.sreg[2] = 0x0ff0;
    r.run(&[0x01, 0x02, 0x00, 0x91]); // s_and_not1_b32 s0, s1, s2
    assert_eq!((r.wave.sreg[0], r.wave.scc), (0xf000, true));
    set64(&mut r, 2, 0);
    set64(&mut r, 4, u64::MAX);
    r.run(&[0x02, 0x04, 0x80, 0x92]); // s_or_not1_b64 s[0:1], s[2:3], s[4:5]
    assert_eq!((get64(&r, 0), r.wave.scc), (0, false));
    r.wave.sreg[1] = 0x1111_2222;
    r.wave.sreg[2] = 0x3333_4444;
    r.run(&[0x01, 0x02, 0x80, 0x9a]); // s_pack_hl_b32_b16 s0, s1, s2
    assert_eq!(r.wave.sreg[0], 0x4444_1111);
}

#[test]
fn rdna4_names_and_64_bit_arithmetic() {
    let mut r = Rig::new(Processor::Gfx1201, false);
    r.wave.sreg[1] = 0x7fff_ffff;
    r.wave.sreg[2] = 1;
    r.run(&[0x01, 0x02, 0x00, 0x81]); // s_add_co_i32 s0, s1, s2
    assert_eq!((r.wave.sreg[0], r.wave.scc), (0x8000_0000, true), "signed overflow into SCC");
    r.wave.sreg[1] = 0xffff_ffff;
    r.wave.sreg[2] = 0;
    r.run(&[0x01, 0x02, 0x00, 0x82]); // s_add_co_ci_u32 s0, s1, s2
    assert_eq!((r.wave.sreg[0], r.wave.scc), (0, true), "carry in and out");
    r.wave.sreg[1] = 0;
    r.run(&[0x01, 0x02, 0x80, 0x82]); // s_sub_co_ci_u32 s0, s1, s2
    assert_eq!((r.wave.sreg[0], r.wave.scc), (0xffff_ffff, true), "borrow in and out");
    // 64-bit adds without carry leave SCC alone.
    r.wave.scc = true;
    set64(&mut r, 2, 0xffff_ffff_ffff_fff0);
    set64(&mut r, 4, 0x20);
    r.run(&[0x02, 0x04, 0x80, 0xa9]); // s_add_nc_u64 s[0:1], s[2:3], s[4:5]
    assert_eq!((get64(&r, 0), r.wave.scc), (0x10, true));
    r.run(&[0x02, 0x90, 0x00, 0xaa]); // s_sub_nc_u64 s[0:1], s[2:3], 16
    assert_eq!(get64(&r, 0), 0xffff_ffff_ffff_ffe0);
    // An unsigned 64-bit operand zero-extends its 32-bit literal.
    set64(&mut r, 2, 0x10);
    r.run(&[0x02, 0xff, 0x80, 0xa9, 0xf0, 0xff, 0xff, 0xff]); // s_add_nc_u64 s[0:1], s[2:3], 0xfffffff0
    assert_eq!(get64(&r, 0), 0x1_0000_0000);
    set64(&mut r, 2, 0x1_0000_0001);
    set64(&mut r, 4, 0x1_0000_0003);
    r.wave.scc = false;
    r.run(&[0x02, 0x04, 0x80, 0xaa]); // s_mul_u64 s[0:1], s[2:3], s[4:5]
    assert_eq!((get64(&r, 0), r.wave.scc), (0x4_0000_0003, false), "low 64 bits of the product");
    r.wave.sreg[0] = 0x7fff_ffff;
    r.run(&[0x01, 0x00, 0x80, 0xb7]); // s_addk_co_i32 s0, 0x1
    assert_eq!((r.wave.sreg[0], r.wave.scc), (0x8000_0000, true));
    r.wave.sreg[1] = 0x1000_0000;
    r.wave.sreg[2] = 1;
    r.run(&[0x01, 0x02, 0x80, 0x88]); // s_lshl4_add_u32 s0, s1, s2
    assert_eq!((r.wave.sreg[0], r.wave.scc), (1, true));
}
