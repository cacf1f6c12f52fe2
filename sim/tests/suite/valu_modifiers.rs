//! Encoding-level modifiers of VALU instructions: DPP16 lane selections (quad_perm, row
//! shifts/rotates, wave shifts, mirrors, broadcasts, row_share, row_xmask, row_newbcast), row
//! and bank write masks, bound_ctrl and fetch-inactive, DPP8, and SDWA source/destination
//! selects with sign extension and the three DST_UNUSED modes (CDNA3/4 ISA "DPP_CTRL
//! Enumeration" and "SDWA Fields"; RDNA ISA "DPP16"/"DPP8"). Encodings from
//! `llvm-mc-19 -show-encoding` (assembly in comments).

use hipscope_isa::Processor;
use hipscope_sim::testing::Rig;

fn old(l: usize) -> u32 {
    0xdead_0000 | l as u32
}
fn src(l: usize) -> u32 {
    100 + l as u32
}

/// v1 = old, v2 = src; run; return v1 of every lane.
fn run(p: Processor, w64: bool, exec: Option<u64>, code: &[u8]) -> Vec<u32> {
    let mut r = Rig::new(p, w64);
    r.set_v(1, old);
    r.set_v(2, src);
    if let Some(e) = exec {
        r.wave.set_exec(e);
    }
    r.run(code);
    (0..r.wave.lanes()).map(|l| r.wave.v(1, l)).collect()
}

/// Expected v1 when lane l reads `sel(l)` (None: not written; Some(None): reads 0).
fn expect(n: usize, sel: impl Fn(usize) -> Option<Option<usize>>) -> Vec<u32> {
    (0..n)
        .map(|l| match sel(l) {
            None => old(l),
            Some(None) => 0,
            Some(Some(s)) => src(s),
        })
        .collect()
}

fn gfx9(code: &[u8]) -> Vec<u32> {
    run(Processor::Gfx900, true, None, code)
}

#[test]
fn dpp16_lane_selections_gfx9() {
    const DPP_QP: &[u8] = &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x1b, 0x00, 0xff]; // v_mov_b32_dpp v1, v2 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf
    const DPP_SHL1: &[u8] = &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x01, 0x01, 0xff]; // v_mov_b32_dpp v1, v2 row_shl:1 row_mask:0xf bank_mask:0xf
    const DPP_SHL1_BC: &[u8] = &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x01, 0x09, 0xff]; // v_mov_b32_dpp v1, v2 row_shl:1 row_mask:0xf bank_mask:0xf bound_ctrl:0
    const DPP_SHR3_BC: &[u8] = &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x13, 0x09, 0xff]; // v_mov_b32_dpp v1, v2 row_shr:3 row_mask:0xf bank_mask:0xf bound_ctrl:0
    const DPP_ROR4: &[u8] = &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x24, 0x01, 0xff]; // v_mov_b32_dpp v1, v2 row_ror:4 row_mask:0xf bank_mask:0xf
    const DPP_WSHR: &[u8] = &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x38, 0x01, 0xff]; // v_mov_b32_dpp v1, v2 wave_shr:1 row_mask:0xf bank_mask:0xf
    const DPP_WROL: &[u8] = &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x34, 0x01, 0xff]; // v_mov_b32_dpp v1, v2 wave_rol:1 row_mask:0xf bank_mask:0xf
    const DPP_MIRROR: &[u8] = &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x40, 0x01, 0xff]; // v_mov_b32_dpp v1, v2 row_mirror row_mask:0xf bank_mask:0xf
    const DPP_HMIRROR: &[u8] = &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x41, 0x01, 0xff]; // v_mov_b32_dpp v1, v2 row_half_mirror row_mask:0xf bank_mask:0xf
    const DPP_BCAST15: &[u8] = &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x42, 0x01, 0xaf]; // v_mov_b32_dpp v1, v2 row_bcast:15 row_mask:0xa bank_mask:0xf
    const DPP_BCAST31: &[u8] = &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x43, 0x01, 0xcf]; // v_mov_b32_dpp v1, v2 row_bcast:31 row_mask:0xc bank_mask:0xf
    const DPP_MASKS: &[u8] = &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0xe4, 0x00, 0x56]; // v_mov_b32_dpp v1, v2 quad_perm:[0,1,2,3] row_mask:0x5 bank_mask:0x6
    let row = |l: usize| l & !15;
    assert_eq!(gfx9(DPP_QP), expect(64, |l| Some(Some((l & !3) | (3 - (l & 3))))));
    // Out-of-range source: not written without bound_ctrl, 0 with it.
    assert_eq!(gfx9(DPP_SHL1), expect(64, |l| if l & 15 == 15 { None } else { Some(Some(l + 1)) }));
    assert_eq!(gfx9(DPP_SHL1_BC), expect(64, |l| Some(if l & 15 == 15 { None } else { Some(l + 1) })));
    assert_eq!(gfx9(DPP_SHR3_BC), expect(64, |l| Some(if l & 15 < 3 { None } else { Some(l - 3) })));
    assert_eq!(gfx9(DPP_ROR4), expect(64, |l| Some(Some(row(l) | ((l + 12) & 15)))));
    assert_eq!(gfx9(DPP_WSHR), expect(64, |l| if l == 0 { None } else { Some(Some(l - 1)) }));
    assert_eq!(gfx9(DPP_WROL), expect(64, |l| Some(Some((l + 1) % 64))));
    assert_eq!(gfx9(DPP_MIRROR), expect(64, |l| Some(Some(row(l) | (15 - (l & 15))))));
    assert_eq!(gfx9(DPP_HMIRROR), expect(64, |l| Some(Some((l & !7) | (7 - (l & 7))))));
    // Broadcasts with the row masks the compiler pairs them with.
    assert_eq!(gfx9(DPP_BCAST15), expect(64, |l| if (l >> 4) % 2 == 1 { Some(Some(row(l) - 1)) } else { None }));
    assert_eq!(gfx9(DPP_BCAST31), expect(64, |l| if l >= 32 { Some(Some(31)) } else { None }));
    // With every row written, the rows a broadcast has no source for pass their own value
    // through (what rocWMMA's cross-lane unit tests, run on AMD's GPUs, expect:
    // getDppWFallBCastExpect in test/unit/cross_lane_ops_test/device/dpp_ops.hpp).
    const DPP_BCAST15_ALL: &[u8] = &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x42, 0x01, 0xff]; // v_mov_b32_dpp v1, v2 row_bcast:15 row_mask:0xf bank_mask:0xf
    const DPP_BCAST31_ALL: &[u8] = &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x43, 0x01, 0xff]; // v_mov_b32_dpp v1, v2 row_bcast:31 row_mask:0xf bank_mask:0xf
    assert_eq!(gfx9(DPP_BCAST15_ALL), expect(64, |l| Some(Some(if l < 16 { l } else { row(l) - 1 }))));
    assert_eq!(gfx9(DPP_BCAST31_ALL), expect(64, |l| Some(Some(if l < 32 { l } else { 31 }))));
    // Row mask 0x5 (rows 0, 2) and bank mask 0x6 (lanes 4..11 of each row).
    assert_eq!(gfx9(DPP_MASKS), expect(64, |l| if (l >> 4) % 2 == 0 && (4..12).contains(&(l & 15)) { Some(Some(l)) } else { None }));
}

#[test]
fn dpp_inactive_sources_and_lanes() {
    const DPP_SHL1: &[u8] = &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x01, 0x01, 0xff]; // v_mov_b32_dpp v1, v2 row_shl:1 row_mask:0xf bank_mask:0xf
    const DPP_SHL1_BC: &[u8] = &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x01, 0x09, 0xff]; // v_mov_b32_dpp v1, v2 row_shl:1 row_mask:0xf bank_mask:0xf bound_ctrl:0
    let exec = !(1u64 << 5 | 1 << 9);
    let shl = |bc: bool| {
        move |l: usize| {
            if exec >> l & 1 == 0 {
                None // inactive lanes are never written
            } else if l & 15 == 15 || exec >> (l + 1) & 1 == 0 {
                if bc {
                    Some(None)
                } else {
                    None
                }
            } else {
                Some(Some(l + 1))
            }
        }
    };
    assert_eq!(run(Processor::Gfx900, true, Some(exec), DPP_SHL1), expect(64, shl(false)));
    assert_eq!(run(Processor::Gfx900, true, Some(exec), DPP_SHL1_BC), expect(64, shl(true)));
    // GFX10: FI (fetch inactive) reads the disabled lane's value.
    const G10_DPP_SHL_FI: &[u8] = &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x01, 0x0d, 0xff]; // v_mov_b32_dpp v1, v2 row_shl:1 row_mask:0xf bank_mask:0xf bound_ctrl:1 fi:1
    const G10_DPP_SHL_BC: &[u8] = &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x01, 0x09, 0xff]; // v_mov_b32_dpp v1, v2 row_shl:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
    let exec32 = exec & 0xffff_ffff;
    let got = run(Processor::Gfx1030, false, Some(exec32), G10_DPP_SHL_FI);
    assert_eq!((got[4], got[8], got[15]), (src(5), src(9), 0));
    let got = run(Processor::Gfx1030, false, Some(exec32), G10_DPP_SHL_BC);
    assert_eq!((got[4], got[8], got[5]), (0, 0, old(5)));
}

#[test]
fn dpp_with_arithmetic_and_modifiers() {
    const DPP_ADD_NEG: &[u8] = &[0xfa, 0x06, 0x02, 0x02, 0x02, 0xb1, 0x10, 0xff]; // v_add_f32_dpp v1, -v2, v3 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
    let mut r = Rig::new(Processor::Gfx900, true);
    r.set_v(2, |l| (l as f32).to_bits());
    r.set_v(3, |_| 100.0f32.to_bits());
    r.run(DPP_ADD_NEG);
    assert!((0..64).all(|l| r.wave.v(1, l) == (100.0 - (l ^ 1) as f32).to_bits()));
    // Golden-listing reduction step: v5 = v1[row_ror:8] + v1.
    const DPP_ADD_U32: &[u8] = &[0xfa, 0x02, 0x0a, 0x68, 0x01, 0x28, 0x09, 0xff]; // v_add_u32_dpp v5, v1, v1 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:0
    r.set_v(1, |l| 1 << (l % 16));
    r.run(DPP_ADD_U32);
    assert!((0..64).all(|l| r.wave.v(5, l) == 1 << (l % 16) | 1 << ((l + 8) % 16)));
    // GFX10 golden form (wave32).
    const G10_DPP_ADD: &[u8] = &[0xfa, 0x06, 0x06, 0x4a, 0x03, 0x24, 0x09, 0xff]; // v_add_nc_u32_dpp v3, v3, v3 row_ror:4 row_mask:0xf bank_mask:0xf bound_ctrl:1
    let mut r = Rig::new(Processor::Gfx1030, false);
    r.set_v(3, |l| l as u32 * 10);
    r.run(G10_DPP_ADD);
    assert!((0..32).all(|l| r.wave.v(3, l) == ((l & !15) | ((l + 12) & 15)) as u32 * 10 + l as u32 * 10));
}

#[test]
fn dpp_gfx10_row_share_xmask_dpp8_and_gfx90a_newbcast() {
    const G10_DPP_SHARE: &[u8] = &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x55, 0x01, 0xff]; // v_mov_b32_dpp v1, v2 row_share:5 row_mask:0xf bank_mask:0xf
    const G10_DPP_XMASK: &[u8] = &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x63, 0x01, 0xff]; // v_mov_b32_dpp v1, v2 row_xmask:3 row_mask:0xf bank_mask:0xf
    const G10_DPP8: &[u8] = &[0xe9, 0x02, 0x02, 0x7e, 0x02, 0x77, 0x39, 0x05]; // v_mov_b32_dpp v1, v2 dpp8:[7,6,5,4,3,2,1,0]
    const G10_DPP8_FI: &[u8] = &[0xea, 0x02, 0x02, 0x7e, 0x02, 0x49, 0x92, 0x24]; // v_mov_b32_dpp v1, v2 dpp8:[1,1,1,1,1,1,1,1] fi:1
    for w64 in [false, true] {
        let n = if w64 { 64 } else { 32 };
        assert_eq!(run(Processor::Gfx1030, w64, None, G10_DPP_SHARE), expect(n, |l| Some(Some((l & !15) | 5))));
        assert_eq!(run(Processor::Gfx1030, w64, None, G10_DPP_XMASK), expect(n, |l| Some(Some(l ^ 3))));
        assert_eq!(run(Processor::Gfx1030, w64, None, G10_DPP8), expect(n, |l| Some(Some((l & !7) | (7 - (l & 7))))));
    }
    // DPP8 reads a disabled lane as 0 without FI and its value with FI.
    let exec = !(1u64 << 9) & 0xffff_ffff;
    let got = run(Processor::Gfx1030, false, Some(exec), G10_DPP8_FI);
    assert_eq!((got[8], got[10]), (src(9), src(9)));
    const G90A_DPP_NEWBCAST: &[u8] = &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x53, 0x01, 0xff]; // v_mov_b32_dpp v1, v2 row_newbcast:3 row_mask:0xf bank_mask:0xf
    assert_eq!(run(Processor::Gfx90a, true, None, G90A_DPP_NEWBCAST), expect(64, |l| Some(Some((l & !15) | 3))));
    // 64-bit DPP (GFX940 DP ALU: row_newbcast): both dwords move together.
    const G940_MOV_B64_DPP: &[u8] = &[0xfa, 0x70, 0x08, 0x7e, 0x06, 0x51, 0x01, 0xff]; // v_mov_b64_dpp v[4:5], v[6:7] row_newbcast:1 row_mask:0xf bank_mask:0xf
    let mut r = Rig::new(Processor::Gfx942, true);
    r.set_v(6, |l| l as u32);
    r.set_v(7, |l| 1000 + l as u32);
    r.run(G940_MOV_B64_DPP);
    assert!((0..64).all(|l| (r.wave.v(4, l), r.wave.v(5, l)) == (((l & !15) | 1) as u32, 1000 + ((l & !15) | 1) as u32)));
}

fn sdwa(code: &[u8], v1: impl Fn(usize) -> u32, v2: impl Fn(usize) -> u32, v3: impl Fn(usize) -> u32) -> Rig {
    let mut r = Rig::new(Processor::Gfx900, true);
    r.set_v(1, v1);
    r.set_v(2, v2);
    r.set_v(3, v3);
    r.run(code);
    r
}

#[test]
fn sdwa_selects_and_destination_modes() {
    const SDWA_ADD: &[u8] = &[0xf9, 0x06, 0x02, 0x68, 0x02, 0x15, 0x01, 0x05]; // v_add_u32_sdwa v1, v2, v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_1 src1_sel:WORD_1
    const SDWA_ADD_SEXT: &[u8] = &[0xf9, 0x06, 0x02, 0x68, 0x02, 0x0a, 0x08, 0x03]; // v_add_u32_sdwa v1, sext(v2), v3 dst_sel:BYTE_2 dst_unused:UNUSED_SEXT src0_sel:BYTE_0 src1_sel:BYTE_3
    const SDWA_ADD_PAD: &[u8] = &[0xf9, 0x06, 0x02, 0x68, 0x02, 0x04, 0x05, 0x06]; // v_add_u32_sdwa v1, v2, v3 dst_sel:WORD_0 dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
    const SDWA_SGPR: &[u8] = &[0xf9, 0x06, 0x02, 0x68, 0x04, 0x06, 0x81, 0x06]; // v_add_u32_sdwa v1, s4, v3 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_1 src1_sel:DWORD
    const SDWA_MOV: &[u8] = &[0xf9, 0x02, 0x02, 0x7e, 0x02, 0x03, 0x00, 0x00]; // v_mov_b32_sdwa v1, v2 dst_sel:BYTE_3 dst_unused:UNUSED_PAD src0_sel:BYTE_0
    let x = |l: usize| 0x8081_f0a0u32.rotate_left(l as u32 * 3);
    let y = |l: usize| 0x1234_fedcu32.wrapping_mul(l as u32 + 1);
    let byte = |v: u32, k: u32| v >> (8 * k) & 0xff;
    let r = sdwa(SDWA_ADD, old, x, y);
    assert!((0..64).all(|l| r.wave.v(1, l) == (old(l) & 0xffff) | (byte(x(l), 1) + (y(l) >> 16)) << 16));
    let r = sdwa(SDWA_ADD_SEXT, old, x, y);
    for l in 0..64 {
        let sum = (byte(x(l), 0) as u8 as i8 as i32 as u32).wrapping_add(byte(y(l), 3));
        // Field in bits [23:16], bits above sign-extended from the field, bits below zero.
        let field = (sum & 0xff) << 16;
        let want = field | if sum & 0x80 != 0 { 0xff00_0000 } else { 0 };
        assert_eq!(r.wave.v(1, l), want, "lane {l}");
    }
    let r = sdwa(SDWA_ADD_PAD, old, x, y);
    assert!((0..64).all(|l| r.wave.v(1, l) == ((x(l) >> 16).wrapping_add(y(l)) & 0xffff)));
    let mut r = Rig::new(Processor::Gfx900, true);
    r.wave.sreg[4] = 0x0000_ab00;
    r.set_v(3, y);
    r.run(SDWA_SGPR);
    assert!((0..64).all(|l| r.wave.v(1, l) == y(l).wrapping_add(0xab)), "GFX9 SDWA takes an SGPR source");
    let r = sdwa(SDWA_MOV, old, x, y);
    assert!((0..64).all(|l| r.wave.v(1, l) == byte(x(l), 0) << 24));
}

#[test]
fn sdwa_f16_compare_and_gfx8_carry_form() {
    const SDWA_F16: &[u8] = &[0xf9, 0x06, 0x02, 0x3e, 0x02, 0x15, 0x05, 0x14]; // v_add_f16_sdwa v1, v2, -v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:WORD_0
                                                                               // hi(v2) = 3.0, lo(v3) = 1.0: 3.0 + -1.0 = 2.0 into the high half, low half kept.
    let r = sdwa(SDWA_F16, |_| 0xabcd_1234, |_| 0x4200_0000, |_| 0x0000_3c00);
    assert_eq!(r.wave.v(1, 7), 0x4000_1234);
    const SDWA_CMP: &[u8] = &[0xf9, 0x06, 0x98, 0x7d, 0x02, 0x84, 0x00, 0x01]; // v_cmp_gt_u32_sdwa s[4:5], v2, v3 src0_sel:BYTE_0 src1_sel:BYTE_1
    let mut r = sdwa(SDWA_CMP, old, |l| l as u32 | 0xff00, |_| 20 << 8);
    let mask = r.wave.sreg[4] as u64 | (r.wave.sreg[5] as u64) << 32;
    assert_eq!(mask, (0..64).filter(|&l| l > 20).fold(0, |m, l| m | 1u64 << l));
    // GFX8: the carry-out add with SDWA writes VCC; sources are VGPRs.
    const G8_SDWA: &[u8] = &[0xf9, 0x06, 0x02, 0x32, 0x02, 0x01, 0x05, 0x00]; // v_add_u32_sdwa v1, vcc, v2, v3 dst_sel:BYTE_1 dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:BYTE_0
    r = Rig::new(Processor::Gfx803, true);
    r.set_v(2, |l| (l as u32) << 16);
    r.set_v(3, |_| 0xffff_ff05);
    r.wave.set_vcc(!0);
    r.run(G8_SDWA);
    assert!((0..64).all(|l| r.wave.v(1, l) == ((l as u32 + 5) & 0xff) << 8));
    assert_eq!(r.wave.vcc(), 0, "no carry from 16-bit + 8-bit fields");
}
