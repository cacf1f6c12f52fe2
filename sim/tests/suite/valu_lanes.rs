//! Lane-crossing and multi-result VALU operations: V_READLANE / V_READFIRSTLANE /
//! V_WRITELANE (EXEC ignored, lane select masked to the wave size), V_PERMLANE16/X16/64,
//! V_SWAP, V_MOVREL*, V_CNDMASK (VCC, SGPR pair, float modifiers), VOPD dual issue (both halves
//! read before either writes), 64-bit moves, VOP3P packed math with op_sel/op_sel_hi/neg_lo/
//! neg_hi, MIX multiply-adds, dot products and AGPR moves. Encodings from
//! `llvm-mc-19 -show-encoding` (assembly in comments).

use hipscope_isa::Processor;
use hipscope_sim::exec::Sem;
use hipscope_sim::testing::Rig;
use hipscope_sim::wave::slot;

fn val(l: usize) -> u32 {
    0x1000 + l as u32 * 3
}

#[test]
fn readlane_readfirstlane_writelane() {
    const READLANE: &[u8] = &[0x06, 0x00, 0x89, 0xd2, 0x02, 0x0f, 0x00, 0x00]; // v_readlane_b32 s6, v2, s7
    const READLANE_K: &[u8] = &[0x06, 0x00, 0x89, 0xd2, 0x02, 0x5b, 0x01, 0x00]; // v_readlane_b32 s6, v2, 45
    const READFIRST: &[u8] = &[0x02, 0x05, 0x0c, 0x7e]; // v_readfirstlane_b32 s6, v2
    const WRITELANE: &[u8] = &[0x01, 0x00, 0x8a, 0xd2, 0x06, 0xf8, 0x00, 0x00]; // v_writelane_b32 v1, s6, m0
    let mut r = Rig::new(Processor::Gfx900, true);
    r.set_v(2, val);
    r.wave.set_exec(0x0000_f000_0000_0000);
    // The lane select is S1[5:0]; EXEC does not matter.
    r.wave.sreg[7] = 64 + 40;
    r.run(READLANE);
    assert_eq!(r.wave.sreg[6], val(40));
    r.run(READLANE_K);
    assert_eq!(r.wave.sreg[6], val(45));
    // First active lane; lane 0 when EXEC is 0.
    r.run(READFIRST);
    assert_eq!(r.wave.sreg[6], val(44));
    r.wave.set_exec(0);
    r.run(READFIRST);
    assert_eq!(r.wave.sreg[6], val(0));
    // Writelane writes one lane even with EXEC = 0.
    r.set_v(1, |_| 7);
    r.wave.sreg[6] = 0xabcd;
    r.wave.sreg[slot::M0] = 50;
    r.run(WRITELANE);
    assert!((0..64).all(|l| r.wave.v(1, l) == if l == 50 { 0xabcd } else { 7 }));
    // Wave32: the lane select uses 5 bits.
    const G10_READLANE: &[u8] = &[0x06, 0x00, 0x60, 0xd7, 0x02, 0x0f, 0x00, 0x00]; // v_readlane_b32 s6, v2, s7
    const G10_WRITELANE: &[u8] = &[0x01, 0x00, 0x61, 0xd7, 0x06, 0x4a, 0x01, 0x00]; // v_writelane_b32 v1, s6, 37
    let mut r = Rig::new(Processor::Gfx1030, false);
    r.set_v(2, val);
    r.wave.sreg[7] = 33;
    r.run(G10_READLANE);
    assert_eq!(r.wave.sreg[6], val(1));
    r.run(G10_WRITELANE);
    assert_eq!(r.wave.v(1, 5), val(1));
}

#[test]
fn permlanes() {
    const G10_PERMLANE16: &[u8] = &[0x01, 0x00, 0x77, 0xd7, 0x02, 0x09, 0x14, 0x00]; // v_permlane16_b32 v1, v2, s4, s5
    const G10_PERMLANEX16: &[u8] = &[0x01, 0x00, 0x78, 0xd7, 0x02, 0x09, 0x14, 0x00]; // v_permlanex16_b32 v1, v2, s4, s5
    const G10_PERMLANE16_FI: &[u8] = &[0x01, 0x08, 0x77, 0xd7, 0x02, 0x09, 0x14, 0x00]; // v_permlane16_b32 v1, v2, s4, s5 op_sel:[1,0]
    const G10_PERMLANE16_BC: &[u8] = &[0x01, 0x10, 0x77, 0xd7, 0x02, 0x09, 0x14, 0x00]; // v_permlane16_b32 v1, v2, s4, s5 op_sel:[0,1]
                                                                                        // Rotation within each row: lane i reads lane (i + 1) % 16 (the ISA's example selectors).
    let setup = |w64: bool, exec: u64| {
        let mut r = Rig::new(Processor::Gfx1030, w64);
        r.set_v(1, |_| 0xeeee);
        r.set_v(2, val);
        r.wave.sreg[4] = 0x8765_4321;
        r.wave.sreg[5] = 0x0fed_cba9;
        r.wave.set_exec(exec);
        r
    };
    for w64 in [false, true] {
        let n = if w64 { 64 } else { 32 };
        let mut r = setup(w64, !0);
        r.run(G10_PERMLANE16);
        assert!((0..n).all(|l| r.wave.v(1, l) == val((l & !15) | ((l + 1) & 15))));
        let mut r = setup(w64, !0);
        r.run(G10_PERMLANEX16);
        assert!((0..n).all(|l| r.wave.v(1, l) == val(((l & !15) ^ 16) | ((l + 1) & 15))), "the other row of each half");
    }
    // Lane 3 disabled: lane 2 reads it only with FI; with BOUND_CTRL it reads 0, else keeps.
    let exec = !(1u64 << 3);
    let mut r = setup(false, exec);
    r.run(G10_PERMLANE16);
    assert_eq!((r.wave.v(1, 2), r.wave.v(1, 3)), (0xeeee, 0xeeee));
    let mut r = setup(false, exec);
    r.run(G10_PERMLANE16_FI);
    assert_eq!(r.wave.v(1, 2), val(3));
    let mut r = setup(false, exec);
    r.run(G10_PERMLANE16_BC);
    assert_eq!(r.wave.v(1, 2), 0);
    // V_PERMLANE64 swaps the halves of a wave64.
    const G11_PERMLANE64: &[u8] = &[0x02, 0xcf, 0x02, 0x7e]; // v_permlane64_b32 v1, v2
    let mut r = Rig::new(Processor::Gfx1100, true);
    r.set_v(2, val);
    r.run(G11_PERMLANE64);
    assert!((0..64).all(|l| r.wave.v(1, l) == val(l ^ 32)));
}

#[test]
fn swap_and_movrel() {
    const SWAP: &[u8] = &[0x02, 0xa3, 0x02, 0x7e]; // v_swap_b32 v1, v2
    let mut r = Rig::new(Processor::Gfx900, true);
    r.set_v(1, |l| l as u32);
    r.set_v(2, val);
    r.wave.set_exec(0xffff_ffff);
    r.run(SWAP);
    assert!((0..64).all(|l| (r.wave.v(1, l), r.wave.v(2, l)) == if l < 32 { (val(l), l as u32) } else { (l as u32, val(l)) }));
    const G8_MOVRELS: &[u8] = &[0x02, 0x6f, 0x02, 0x7e]; // v_movrels_b32_e32 v1, v2
    const G8_MOVRELD: &[u8] = &[0x02, 0x6d, 0x02, 0x7e]; // v_movreld_b32_e32 v1, v2
    const G8_MOVRELSD: &[u8] = &[0x02, 0x71, 0x02, 0x7e]; // v_movrelsd_b32_e32 v1, v2
    let mut r = Rig::new(Processor::Gfx803, true);
    for reg in 0..16 {
        r.set_v(reg, |l| (reg * 100 + l) as u32);
    }
    r.wave.sreg[slot::M0] = 5;
    r.run(G8_MOVRELS);
    assert_eq!(r.wave.v(1, 9), 709, "v1 = v[2 + m0]");
    r.run(G8_MOVRELD);
    assert_eq!(r.wave.v(6, 9), 209, "v[1 + m0] = v2");
    r.run(G8_MOVRELSD);
    assert_eq!(r.wave.v(6, 9), 709, "v[1 + m0] = v[2 + m0]");
}

/// GFX9 VGPR indexing mode: between s_set_gpr_idx_on and _off the enabled operands' VGPR
/// numbers move by M0[7:0] (Vega ISA, S_SET_GPR_IDX_ON); others, and everything after _off,
/// stay where they are. clang-19 emits this for dynamic indexes into VGPR vectors on gfx942.
#[test]
fn gpr_index_mode() {
    const ON_SRC0: &[u8] = &[0x04, 0x01, 0x11, 0xbf]; // s_set_gpr_idx_on s4, gpr_idx(SRC0)
    const ON_SRC1_DST: &[u8] = &[0x04, 0x0a, 0x11, 0xbf]; // s_set_gpr_idx_on s4, gpr_idx(SRC1,DST)
    const OFF: &[u8] = &[0x00, 0x00, 0x9c, 0xbf]; // s_set_gpr_idx_off
    const MOV: &[u8] = &[0x02, 0x03, 0x02, 0x7e]; // v_mov_b32_e32 v1, v2
    const ADD: &[u8] = &[0x02, 0x07, 0x02, 0x68]; // v_add_u32_e32 v1, v2, v3
    const MFMA: &[u8] = &[0x00, 0x00, 0xc2, 0xd3, 0x04, 0x0b, 0x02, 0x04]; // v_mfma_f32_4x4x1_16b_f32 v[0:3], v4, v5, v[0:3]
    let mut r = Rig::new(Processor::Gfx942, true);
    for reg in 0..16 {
        r.set_v(reg, |l| (reg * 100 + l) as u32);
    }
    r.wave.set_exec(!0);
    r.wave.sreg[4] = 3;
    r.run(ON_SRC0);
    r.run(MOV);
    assert_eq!(r.wave.v(1, 7), 507, "v1 = v[2 + 3]");
    r.run(ON_SRC1_DST);
    r.run(ADD);
    assert_eq!(r.wave.v(4, 7), 207 + 607, "v[1 + 3] = v2 + v[3 + 3]");
    assert_eq!(r.wave.v(1, 7), 507, "v1 itself untouched");
    assert!(r.exec(MFMA).is_err(), "a matrix operation inside the window is refused, not run unindexed");
    r.run(OFF);
    r.run(MOV);
    assert_eq!(r.wave.v(1, 7), 207, "after s_set_gpr_idx_off: v1 = v2");
    r.wave.sreg[4] = 255;
    r.run(ON_SRC0);
    assert!(r.exec(MOV).is_err(), "v[2 + 255] is past the register file: a fault, not a panic");
}

#[test]
fn cndmask_forms() {
    const CNDMASK: &[u8] = &[0x02, 0x07, 0x02, 0x00]; // v_cndmask_b32_e32 v1, v2, v3, vcc
    const CNDMASK_E64: &[u8] = &[0x01, 0x00, 0x00, 0xd1, 0x02, 0x07, 0x12, 0x20]; // v_cndmask_b32_e64 v1, -v2, v3, s[4:5]
    const CNDMASK_E64_K: &[u8] = &[0x01, 0x00, 0x00, 0xd1, 0x80, 0xe4, 0x11, 0x00]; // v_cndmask_b32_e64 v1, 0, 1.0, s[4:5]
    let sel = 0x8000_0001_f0f0_0f0fu64;
    let mut r = Rig::new(Processor::Gfx900, true);
    r.set_v(2, |l| (l as f32).to_bits());
    r.set_v(3, |_| 0x1234);
    r.wave.set_vcc(sel);
    r.wave.sreg[4] = sel as u32;
    r.wave.sreg[5] = (sel >> 32) as u32;
    r.run(CNDMASK);
    assert!((0..64).all(|l| r.wave.v(1, l) == if sel >> l & 1 != 0 { 0x1234 } else { (l as f32).to_bits() }));
    r.run(CNDMASK_E64);
    assert!((0..64).all(|l| r.wave.v(1, l) == if sel >> l & 1 != 0 { 0x1234 } else { (-(l as f32)).to_bits() }));
    r.run(CNDMASK_E64_K);
    assert!((0..64).all(|l| r.wave.v(1, l) == if sel >> l & 1 != 0 { 1.0f32.to_bits() } else { 0 }));
}

#[test]
fn vopd_halves_read_before_writing() {
    const G11_DUAL_SWAP: &[u8] = &[0x01, 0x01, 0x10, 0xca, 0x00, 0x01, 0x00, 0x00]; // v_dual_mov_b32 v0, v1 :: v_dual_mov_b32 v1, v0
    const G11_DUAL_CND: &[u8] = &[0x04, 0x0b, 0x50, 0xca, 0x02, 0x01, 0x04, 0x04]; // v_dual_cndmask_b32 v4, v4, v5 :: v_dual_mov_b32 v5, v2
    const G11_DUAL_FMAAK_FMAMK: &[u8] = &[0x01, 0x05, 0x44, 0xc8, 0x03, 0x09, 0x06, 0x06, 0x00, 0x00, 0x40, 0x40]; // v_dual_fmaak_f32 v6, v1, v2, 0x40400000 :: v_dual_fmamk_f32 v7, v3, 0x40400000, v4
    const G11_DUAL_FMAC_ADD: &[u8] = &[0x01, 0x05, 0x20, 0xc8, 0x03, 0x0b, 0x06, 0x06]; // v_dual_fmac_f32 v6, v1, v2 :: v_dual_add_nc_u32 v7, v3, v5
    let mut r = Rig::new(Processor::Gfx1100, false);
    r.set_v(0, |l| l as u32);
    r.set_v(1, val);
    r.run(G11_DUAL_SWAP);
    assert!((0..32).all(|l| (r.wave.v(0, l), r.wave.v(1, l)) == (val(l), l as u32)));
    // Golden-listing pair: v4 = vcc ? v5 : v4 with the old v5, then v5 = v2.
    r.set_v(4, |_| 44);
    r.set_v(5, |_| 55);
    r.set_v(2, |_| 22);
    r.wave.set_vcc(0xffff_0000);
    r.run(G11_DUAL_CND);
    assert!((0..32).all(|l| (r.wave.v(4, l), r.wave.v(5, l)) == (if l >= 16 { 55 } else { 44 }, 22)));
    let f = |x: f32| x.to_bits();
    r.set_v(1, |_| f(2.0));
    r.set_v(2, |_| f(5.0));
    r.set_v(3, |_| f(7.0));
    r.set_v(4, |_| f(0.5));
    r.run(G11_DUAL_FMAAK_FMAMK);
    assert_eq!((r.wave.v(6, 0), r.wave.v(7, 0)), (f(13.0), f(21.5)), "2*5+3 and 7*3+0.5 share the literal");
    r.set_v(5, |_| 1);
    r.set_v(3, |_| 41);
    r.run(G11_DUAL_FMAC_ADD);
    assert_eq!((r.wave.v(6, 0), r.wave.v(7, 0)), (f(23.0), 42), "fmac accumulates into v6 (13 + 2*5)");
    const G11_DUAL_DOT2: &[u8] = &[0x01, 0x05, 0x06, 0xcb, 0x03, 0x0b, 0x06, 0x06]; // v_dual_dot2acc_f32_f16 v6, v1, v2 :: v_dual_mul_f32 v7, v3, v5
    r.set_v(1, |_| 0x4000_3c00); // (1.0, 2.0)
    r.set_v(2, |_| 0x4200_4400); // (4.0, 3.0)
    r.set_v(6, |_| f(0.5));
    r.set_v(3, |_| f(3.0));
    r.set_v(5, |_| f(1.5));
    r.run(G11_DUAL_DOT2);
    assert_eq!((r.wave.v(6, 0), r.wave.v(7, 0)), (f(10.5), f(4.5)), "0.5 + 1*4 + 2*3");
}

#[test]
fn sixty_four_bit_moves() {
    const G942_MOV_B64: &[u8] = &[0x08, 0x70, 0x08, 0x7e]; // v_mov_b64_e32 v[4:5], s[8:9]
    const G942_MOV_B64_LIT: &[u8] = &[0xff, 0x70, 0x08, 0x7e, 0x78, 0x56, 0x34, 0x12]; // v_mov_b64_e32 v[4:5], 0x12345678
    const G942_MOV_B64_NEG: &[u8] = &[0xc1, 0x70, 0x08, 0x7e]; // v_mov_b64_e32 v[4:5], -1
    let mut r = Rig::new(Processor::Gfx942, true);
    r.wave.sreg[8] = 0xaaaa_bbbb;
    r.wave.sreg[9] = 0xcccc_dddd;
    let get = |r: &Rig| (r.wave.v(4, 63), r.wave.v(5, 63));
    r.run(G942_MOV_B64);
    assert_eq!(get(&r), (0xaaaa_bbbb, 0xcccc_dddd));
    r.run(G942_MOV_B64_LIT);
    assert_eq!(get(&r), (0x1234_5678, 0));
    r.run(G942_MOV_B64_NEG);
    assert_eq!(get(&r), (u32::MAX, u32::MAX));
    // GFX90A v_pk_mov_b32: element 0 from S0's dword op_sel[0], element 1 from S1's op_sel[1].
    const G90A_PK_MOV: &[u8] = &[0x00, 0x50, 0xb3, 0xd3, 0x08, 0x10, 0x00, 0x18]; // v_pk_mov_b32 v[0:1], s[8:9], s[8:9] op_sel:[0,1]
    const G90A_PK_MOV2: &[u8] = &[0x00, 0x48, 0xb3, 0xd3, 0x02, 0x09, 0x02, 0x18]; // v_pk_mov_b32 v[0:1], v[2:3], v[4:5] op_sel:[1,0]
    let mut r = Rig::new(Processor::Gfx90a, true);
    r.wave.sreg[8] = 0x1111;
    r.wave.sreg[9] = 0x2222;
    r.run(G90A_PK_MOV);
    assert_eq!((r.wave.v(0, 3), r.wave.v(1, 3)), (0x1111, 0x2222));
    for (reg, v) in [(2, 0x22), (3, 0x33), (4, 0x44), (5, 0x55)] {
        r.set_v(reg, |_| v);
    }
    r.run(G90A_PK_MOV2);
    assert_eq!((r.wave.v(0, 3), r.wave.v(1, 3)), (0x33, 0x44));
}

#[test]
fn packed_math() {
    const PK_ADD_F16: &[u8] = &[0x01, 0x40, 0x8f, 0xd3, 0x02, 0x07, 0x02, 0x18]; // v_pk_add_f16 v1, v2, v3
    const PK_ADD_F16_SEL: &[u8] = &[0x01, 0x4a, 0x8f, 0xd3, 0x02, 0x07, 0x02, 0x30]; // v_pk_add_f16 v1, v2, v3 op_sel:[1,0] op_sel_hi:[0,1] neg_lo:[1,0] neg_hi:[0,1]
    const PK_MUL_LO_U16: &[u8] = &[0x01, 0x40, 0x81, 0xd3, 0x02, 0x07, 0x02, 0x18]; // v_pk_mul_lo_u16 v1, v2, v3
    const PK_ADD_U16_CLAMP: &[u8] = &[0x01, 0xc0, 0x8a, 0xd3, 0x02, 0x07, 0x02, 0x18]; // v_pk_add_u16 v1, v2, v3 clamp
    const PK_FMA_F16: &[u8] = &[0x01, 0x40, 0x8e, 0xd3, 0x02, 0x07, 0x12, 0x1c]; // v_pk_fma_f16 v1, v2, v3, v4
    const PK_ADD_F16_K: &[u8] = &[0x01, 0x40, 0x8f, 0xd3, 0x02, 0xe5, 0x01, 0x08]; // v_pk_add_f16 v1, v2, 1.0 op_sel_hi:[1,0]
    const PK_LSHL: &[u8] = &[0x01, 0x40, 0x84, 0xd3, 0x02, 0x07, 0x02, 0x18]; // v_pk_lshlrev_b16 v1, v2, v3
    let mut r = Rig::new(Processor::Gfx900, true);
    r.wave.mode = 0x3f0;
    r.set_v(2, |_| 0x4200_3c00); // (lo 1.0, hi 3.0)
    r.set_v(3, |_| 0x4400_4000); // (lo 2.0, hi 4.0)
    r.set_v(4, |_| 0x3800_3800); // (0.5, 0.5)
    let v1 = |r: &Rig| r.wave.v(1, 11);
    r.run(PK_ADD_F16);
    assert_eq!(v1(&r), 0x4700_4200, "(1+2, 3+4) = (3.0, 7.0)");
    // lo = -(S0.hi) + S1.lo = -3 + 2 = -1; hi = S0.lo + -(S1.hi) = 1 - 4 = -3.
    r.run(PK_ADD_F16_SEL);
    assert_eq!(v1(&r), 0xc200_bc00);
    r.run(PK_FMA_F16);
    assert_eq!(v1(&r), 0x4a40_4100, "(1*2+0.5, 3*4+0.5) = (2.5, 12.5)");
    // Inline constants only fill the low half: op_sel_hi:[1,0] uses it for both elements.
    r.run(PK_ADD_F16_K);
    assert_eq!(v1(&r), 0x4400_4000, "(1+1, 3+1) = (2.0, 4.0)");
    r.set_v(2, |_| 0x0003_0102);
    r.set_v(3, |_| 0xfff0_0300);
    r.run(PK_MUL_LO_U16);
    assert_eq!(v1(&r), 0xffd0_0600);
    r.run(PK_ADD_U16_CLAMP);
    assert_eq!(v1(&r), 0xfff3_0402);
    r.run(PK_LSHL);
    assert_eq!(v1(&r), 0xff80_0c00, "shift counts come from each half of S0");
    // 32-bit packed math on GFX90A.
    const G90A_PK_FMA_F32: &[u8] = &[0x04, 0x40, 0xb0, 0xd3, 0x06, 0x11, 0x2a, 0x1c]; // v_pk_fma_f32 v[4:5], v[6:7], v[8:9], v[10:11]
    const G90A_PK_ADD_F32_OPSEL: &[u8] = &[0x04, 0x48, 0xb2, 0xd3, 0x06, 0x11, 0x02, 0x50]; // v_pk_add_f32 v[4:5], v[6:7], v[8:9] op_sel:[1,0] op_sel_hi:[0,1] neg_lo:[0,1]
    let f = |x: f32| x.to_bits();
    let mut r = Rig::new(Processor::Gfx90a, true);
    r.wave.mode = 0x3f0;
    for (reg, v) in [(6, 1.5), (7, 2.5), (8, 4.0), (9, 8.0), (10, 0.25), (11, 0.75)] {
        r.set_v(reg, |_| f(v));
    }
    r.run(G90A_PK_FMA_F32);
    assert_eq!((r.wave.v(4, 0), r.wave.v(5, 0)), (f(6.25), f(20.75)));
    // lo = S0[1] + -S1[0] = 2.5 - 4; hi = S0[0] + S1[1] = 1.5 + 8.
    r.run(G90A_PK_ADD_F32_OPSEL);
    assert_eq!((r.wave.v(4, 0), r.wave.v(5, 0)), (f(-1.5), f(9.5)));
}

#[test]
fn mix_dot_and_accumulator_registers() {
    const MAD_MIX_F32: &[u8] = &[0x01, 0x00, 0xa0, 0xd3, 0x02, 0x07, 0x12, 0x1c]; // v_mad_mix_f32 v1, v2, v3, v4 op_sel_hi:[1,1,0]
    const MAD_MIXHI: &[u8] = &[0x01, 0x10, 0xa2, 0xd3, 0x02, 0x07, 0x12, 0x1c]; // v_mad_mixhi_f16 v1, v2, v3, v4 op_sel:[0,1,0] op_sel_hi:[1,1,0]
    let f = |x: f32| x.to_bits();
    let mut r = Rig::new(Processor::Gfx900, true);
    r.wave.mode = 0x3f0;
    r.set_v(2, |_| 0x4400_3800); // lo 0.5, hi 4.0
    r.set_v(3, |_| 0x4200_4000); // lo 2.0, hi 3.0
    r.set_v(4, |_| f(10.0));
    r.run(MAD_MIX_F32);
    assert_eq!(r.wave.v(1, 0), f(11.0), "0.5 * 2.0 + 10");
    r.set_v(1, |_| 0x0000_1234);
    r.run(MAD_MIXHI);
    assert_eq!(r.wave.v(1, 0), 0x49c0_1234, "0.5 * 3.0 + 10 = 11.5 into the high half");
    const G906_DOT4: &[u8] = &[0x01, 0x40, 0xa8, 0xd3, 0x02, 0x07, 0x12, 0x1c]; // v_dot4_i32_i8 v1, v2, v3, v4
    const G906_DOT8_U32: &[u8] = &[0x01, 0x40, 0xab, 0xd3, 0x02, 0x07, 0x12, 0x1c]; // v_dot8_u32_u4 v1, v2, v3, v4
    const G906_DOT2_F32: &[u8] = &[0x01, 0x40, 0xa3, 0xd3, 0x02, 0x07, 0x12, 0x1c]; // v_dot2_f32_f16 v1, v2, v3, v4
    let mut r = Rig::new(Processor::Gfx906, true);
    r.wave.mode = 0x3f0;
    r.set_v(2, |_| 0xff02_8005); // bytes 5, -128, 2, -1
    r.set_v(3, |_| 0x0403_0201); // bytes 1, 2, 3, 4
    r.set_v(4, |_| 1000);
    r.run(G906_DOT4);
    assert_eq!(r.wave.v(1, 0), (1000 + 5 - 256 + 6 - 4) as u32);
    r.run(G906_DOT8_U32);
    let nib = |x: u32| (0..8).map(|i| x >> (4 * i) & 15).collect::<Vec<_>>();
    let want: u32 = nib(0xff02_8005).iter().zip(nib(0x0403_0201)).map(|(a, b)| a * b).sum::<u32>() + 1000;
    assert_eq!(r.wave.v(1, 0), want);
    r.set_v(2, |_| 0x4000_3c00); // (1.0, 2.0)
    r.set_v(3, |_| 0x4200_4400); // (4.0, 3.0)
    r.set_v(4, |_| f(0.5));
    r.run(G906_DOT2_F32);
    assert_eq!(r.wave.v(1, 0), f(10.5));
    const G908_ACC_W: &[u8] = &[0x01, 0x40, 0xd9, 0xd3, 0x02, 0x01, 0x00, 0x18]; // v_accvgpr_write_b32 a1, v2
    const G908_ACC_R: &[u8] = &[0x03, 0x40, 0xd8, 0xd3, 0x01, 0x01, 0x00, 0x18]; // v_accvgpr_read_b32 v3, a1
    const G908_ACC_WK: &[u8] = &[0x02, 0x40, 0xd9, 0xd3, 0x87, 0x00, 0x00, 0x18]; // v_accvgpr_write_b32 a2, 7
    let mut r = Rig::new(Processor::Gfx908, true);
    r.set_v(2, val);
    r.run(G908_ACC_W);
    r.run(G908_ACC_R);
    r.run(G908_ACC_WK);
    assert!((0..64).all(|l| r.wave.v(3, l) == val(l) && r.wave.a(1, l) == val(l) && r.wave.a(2, l) == 7));
}

#[test]
fn gfx11_mixed_sign_and_bfloat16_dot_products() {
    // V_DOT4_I32_IU8 / V_DOT8_I32_IU4: NEG[0]/NEG[1] make source 0/1 signed (RDNA3 ISA).
    const G11_DOT4_IU8_UU: &[u8] = &[0x01, 0x40, 0x16, 0xcc, 0x02, 0x07, 0x12, 0x1c]; // v_dot4_i32_iu8 v1, v2, v3, v4
    const G11_DOT4_IU8_SU: &[u8] = &[0x01, 0x40, 0x16, 0xcc, 0x02, 0x07, 0x12, 0x3c]; // v_dot4_i32_iu8 v1, v2, v3, v4 neg_lo:[1,0,0]
    const G11_DOT4_IU8_SS_CLAMP: &[u8] = &[0x01, 0xc0, 0x16, 0xcc, 0x02, 0x07, 0x12, 0x7c]; // v_dot4_i32_iu8 v1, v2, v3, v4 neg_lo:[1,1,0] clamp
    const G11_DOT8_IU4_US: &[u8] = &[0x01, 0x40, 0x18, 0xcc, 0x02, 0x07, 0x12, 0x5c]; // v_dot8_i32_iu4 v1, v2, v3, v4 neg_lo:[0,1,0]
    let mut r = Rig::new(Processor::Gfx1100, false);
    r.set_v(2, |_| 0xff02_8005); // bytes 5, 0x80, 2, 0xff
    r.set_v(3, |_| 0xfc03_02fe); // bytes 0xfe, 2, 3, 0xfc
    r.set_v(4, |_| 1000);
    r.run(G11_DOT4_IU8_UU);
    assert_eq!(r.wave.v(1, 0), 1000 + 5 * 254 + 128 * 2 + 2 * 3 + 255 * 252);
    r.run(G11_DOT4_IU8_SU);
    assert_eq!(r.wave.v(1, 0), (1000 + 5 * 254 - 128 * 2 + 2 * 3 - 252) as u32);
    r.run(G11_DOT8_IU4_US);
    // Nibbles: src0 (unsigned) 5,0,0,8,2,0,15,15; src1 (signed) -2,-1,2,0,3,0,-4,-1.
    assert_eq!(r.wave.v(1, 0), (1000 - 10 + 6 - 60 - 15) as u32);
    // Both signed: -10 - 256 + 6 + 4 = -256 below i32::MIN + 5 saturates with clamp.
    r.set_v(4, |_| (i32::MIN + 5) as u32);
    r.run(G11_DOT4_IU8_SS_CLAMP);
    assert_eq!(r.wave.v(1, 0), i32::MIN as u32);

    const G11_DOT2_F32_BF16: &[u8] = &[0x01, 0x40, 0x1a, 0xcc, 0x02, 0x07, 0x12, 0x1c]; // v_dot2_f32_bf16 v1, v2, v3, v4
    const G11_DOT2_F32_BF16_NEG: &[u8] = &[0x01, 0x41, 0x1a, 0xcc, 0x02, 0x07, 0x12, 0x1c]; // v_dot2_f32_bf16 v1, v2, v3, v4 neg_hi:[1,0,0]
    r.set_v(2, |_| 0xc000_3fc0); // bf16 (1.5, -2.0)
    r.set_v(3, |_| 0x3e80_4080); // bf16 (4.0, 0.25)
    r.set_v(4, |_| 10f32.to_bits());
    r.run(G11_DOT2_F32_BF16);
    assert_eq!(r.wave.v(1, 0), 15.5f32.to_bits(), "10 + 1.5 * 4 - 2 * 0.25");
    r.run(G11_DOT2_F32_BF16_NEG);
    assert_eq!(r.wave.v(1, 0), 16.5f32.to_bits(), "neg_hi negates the high bf16 of src0");

    // GFX11 VOP3 V_DOT2_F16_F16 / V_DOT2_BF16_BF16: 16-bit result into the low half (high half
    // kept), or with op_sel[3] into the high half with op_sel[2] picking src2's high half.
    const G11_DOT2_F16: &[u8] = &[0x01, 0x00, 0x66, 0xd6, 0x02, 0x07, 0x12, 0x04]; // v_dot2_f16_f16 v1, v2, v3, v4
    const G11_DOT2_F16_HI: &[u8] = &[0x01, 0x60, 0x66, 0xd6, 0x02, 0x07, 0x12, 0x04]; // v_dot2_f16_f16 v1, v2, v3, v4 op_sel:[0,0,1,1]
    const G11_DOT2_F16_NEG: &[u8] = &[0x01, 0x00, 0x66, 0xd6, 0x02, 0x07, 0x12, 0x24]; // v_dot2_f16_f16 v1, -v2, v3, v4
    const G11_DOT2_BF16: &[u8] = &[0x01, 0x00, 0x67, 0xd6, 0x02, 0x07, 0x12, 0x04]; // v_dot2_bf16_bf16 v1, v2, v3, v4
    r.set_v(1, |_| 0xdead_beef);
    r.set_v(2, |_| 0x4000_3c00); // f16 (1.0, 2.0)
    r.set_v(3, |_| 0x3800_4200); // f16 (3.0, 0.5)
    r.set_v(4, |_| 0x4800_3400); // f16 (0.25, 8.0)
    r.run(G11_DOT2_F16);
    assert_eq!(r.wave.v(1, 0), 0xdead_4440, "0.25 + 3 + 1 = 4.25");
    r.run(G11_DOT2_F16_HI);
    assert_eq!(r.wave.v(1, 0), 0x4a00_4440, "8 + 4 = 12 into the high half");
    assert_eq!(r.classify(G11_DOT2_F16_NEG), Sem::Unsupported, "modifiers on a packed VOP3 source are refused");
    r.set_v(1, |_| 0xdead_beef);
    r.set_v(2, |_| 0x4000_3f80); // bf16 (1.0, 2.0)
    r.set_v(3, |_| 0x3f00_4040); // bf16 (3.0, 0.5)
    r.set_v(4, |_| 0x0000_3e80); // bf16 0.25
    r.run(G11_DOT2_BF16);
    assert_eq!(r.wave.v(1, 0), 0xdead_4088, "4.25 in bf16");
}
