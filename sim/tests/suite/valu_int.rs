//! VALU integer semantics (ISA manuals' VOP1/VOP2/VOP3 pseudo-code): adds and subtracts with
//! their per-generation carry forms, multiplies, shifts, bit-field and bitwise operations,
//! min/max/med3, lane counting, 16- and 64-bit forms, clamp saturation, EXEC handling and
//! wave64 lanes 32..63. Encodings from `llvm-mc-19 -show-encoding` (assembly in comments);
//! expected values are written from the ISA pseudo-code with plain Rust integer arithmetic.

use hipscope_isa::Processor;
use hipscope_sim::testing::Rig;

const VALS: [u32; 12] = [0, 1, 2, 3, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0xffff_fffe, 0x1234_5678, 0x00ff_ff00, 0xdead_beef, 17];

fn a(l: usize) -> u32 {
    VALS[l % VALS.len()]
}
fn b(l: usize) -> u32 {
    VALS[(l * 7 + 3) % VALS.len()]
}
fn c(l: usize) -> u32 {
    VALS[(l * 5 + 1) % VALS.len()] ^ (l as u32) << 8
}

/// A wave on `p` with v2 = a, v3 = b, v4 = c per lane.
fn setup(p: Processor, w64: bool) -> Rig {
    let mut r = Rig::new(p, w64);
    r.set_v(2, a);
    r.set_v(3, b);
    r.set_v(4, c);
    r
}

fn gfx9() -> Rig {
    setup(Processor::Gfx900, true)
}

/// Check `v[reg]` in every lane of the wave against `f(lane)`.
fn check(r: &Rig, reg: usize, f: impl Fn(usize) -> u32) {
    for l in 0..r.wave.lanes() {
        assert_eq!(r.wave.v(reg, l), f(l), "v{reg} lane {l} (a={:#x} b={:#x} c={:#x})", a(l), b(l), c(l));
    }
}

/// The lane mask `f` gives over the wave's lanes.
fn mask(r: &Rig, f: impl Fn(usize) -> bool) -> u64 {
    (0..r.wave.lanes()).filter(|&l| f(l)).fold(0, |m, l| m | 1 << l)
}

fn carry(l: usize) -> bool {
    a(l) as u64 + b(l) as u64 > 0xffff_ffff
}

const ADD_CO_E32: &[u8] = &[0x02, 0x07, 0x02, 0x32]; // v_add_co_u32_e32 v1, vcc, v2, v3
const ADDC_CO_E32: &[u8] = &[0x05, 0x0d, 0x08, 0x38]; // v_addc_co_u32_e32 v4, vcc, v5, v6, vcc
const ADD_CO_E64: &[u8] = &[0x01, 0x04, 0x19, 0xd1, 0x02, 0x07, 0x02, 0x00]; // v_add_co_u32_e64 v1, s[4:5], v2, v3
const ADDC_CO_E64: &[u8] = &[0x04, 0x06, 0x1c, 0xd1, 0x05, 0x0d, 0x12, 0x00]; // v_addc_co_u32_e64 v4, s[6:7], v5, v6, s[4:5]
const SUB_CO_E32: &[u8] = &[0x02, 0x07, 0x02, 0x34]; // v_sub_co_u32_e32 v1, vcc, v2, v3
const SUBREV_CO_E32: &[u8] = &[0x02, 0x07, 0x02, 0x36]; // v_subrev_co_u32_e32 v1, vcc, v2, v3
const SUBB_CO_E32: &[u8] = &[0x02, 0x07, 0x02, 0x3a]; // v_subb_co_u32_e32 v1, vcc, v2, v3, vcc
const SUBBREV_CO_E32: &[u8] = &[0x02, 0x07, 0x02, 0x3c]; // v_subbrev_co_u32_e32 v1, vcc, v2, v3, vcc
const ADD_U32: &[u8] = &[0x02, 0x07, 0x02, 0x68]; // v_add_u32_e32 v1, v2, v3

#[test]
fn gfx9_add_co_writes_carry_to_vcc_and_add_u32_does_not() {
    let mut r = gfx9();
    r.run(ADD_CO_E32);
    check(&r, 1, |l| a(l).wrapping_add(b(l)));
    assert_eq!(r.wave.vcc(), mask(&r, carry));
    let mut r = gfx9();
    r.wave.set_vcc(0x5555);
    r.run(ADD_U32);
    check(&r, 1, |l| a(l).wrapping_add(b(l)));
    assert_eq!(r.wave.vcc(), 0x5555, "GFX9 v_add_u32 has no carry-out");
}

#[test]
fn gfx8_add_u32_is_the_carry_form() {
    const G8_ADD: &[u8] = &[0x02, 0x07, 0x02, 0x32]; // v_add_u32_e32 v1, vcc, v2, v3
    const G8_SUB: &[u8] = &[0x02, 0x07, 0x02, 0x34]; // v_sub_u32_e32 v1, vcc, v2, v3
    const G8_SUBREV_E64: &[u8] = &[0x01, 0x04, 0x1b, 0xd1, 0x02, 0x07, 0x02, 0x00]; // v_subrev_u32_e64 v1, s[4:5], v2, v3
    let mut r = setup(Processor::Gfx803, true);
    r.run(G8_ADD);
    check(&r, 1, |l| a(l).wrapping_add(b(l)));
    assert_eq!(r.wave.vcc(), mask(&r, carry));
    let mut r = setup(Processor::Gfx803, true);
    r.run(G8_SUB);
    check(&r, 1, |l| a(l).wrapping_sub(b(l)));
    assert_eq!(r.wave.vcc(), mask(&r, |l| b(l) > a(l)));
    let mut r = setup(Processor::Gfx803, true);
    r.run(G8_SUBREV_E64);
    check(&r, 1, |l| b(l).wrapping_sub(a(l)));
    assert_eq!(r.wave.sreg[4] as u64 | (r.wave.sreg[5] as u64) << 32, mask(&r, |l| a(l) > b(l)));
}

/// 64-bit adds built from 32-bit halves: (v3:v2) + (v6:v5) into (v4:v1), carry through VCC or
/// an SGPR pair, must equal the u64 sum in every lane.
fn check_add64(r: &Rig, lo: usize, hi: usize) {
    for l in 0..r.wave.lanes() {
        let x = a(l) as u64 | (b(l) as u64) << 32;
        let y = c(l) as u64 | (a(l).rotate_left(7) as u64) << 32;
        let got = r.wave.v(lo, l) as u64 | (r.wave.v(hi, l) as u64) << 32;
        assert_eq!(got, x.wrapping_add(y), "lane {l}");
    }
}

fn setup_add64(p: Processor, w64: bool) -> Rig {
    let mut r = Rig::new(p, w64);
    r.set_v(2, a);
    r.set_v(5, b);
    r.set_v(3, c);
    r.set_v(6, |l| a(l).rotate_left(7));
    r
}

#[test]
fn carry_chains_add_64_bit_values() {
    // v1 = v2 + v3 (low), v4 = v5 + v6 + carry (high): x = (v5:v2), y = (v6:v3).
    let mut r = setup_add64(Processor::Gfx900, true);
    r.run(ADD_CO_E32);
    r.run(ADDC_CO_E32);
    check_add64(&r, 1, 4);
    // VOP3 forms with explicit SGPR-pair carries leave VCC alone.
    let mut r = setup_add64(Processor::Gfx900, true);
    r.wave.set_vcc(0xabcd);
    r.run(ADD_CO_E64);
    r.run(ADDC_CO_E64);
    check_add64(&r, 1, 4);
    assert_eq!(r.wave.vcc(), 0xabcd);
    // GFX10 wave32: VOP3 v_add_co_u32 with vcc_lo, VOP2 v_add_co_ci_u32.
    const G10_ADD_CO: &[u8] = &[0x01, 0x6a, 0x0f, 0xd7, 0x02, 0x07, 0x02, 0x00]; // v_add_co_u32 v1, vcc_lo, v2, v3
    const G10_ADD_CO_CI: &[u8] = &[0x05, 0x0d, 0x08, 0x50]; // v_add_co_ci_u32_e32 v4, vcc_lo, v5, v6, vcc_lo
    let mut r = setup_add64(Processor::Gfx1030, false);
    r.wave.sreg[hipscope_sim::wave::slot::VCC_HI] = 0x1234;
    r.run(G10_ADD_CO);
    r.run(G10_ADD_CO_CI);
    check_add64(&r, 1, 4);
    assert_eq!(r.wave.sreg[hipscope_sim::wave::slot::VCC_HI], 0x1234, "wave32 writes vcc_lo only");
    // The same encodings in wave64 carry through the full VCC.
    let mut r = setup_add64(Processor::Gfx1030, true);
    r.run(G10_ADD_CO);
    r.run(G10_ADD_CO_CI);
    check_add64(&r, 1, 4);
    // GFX10 VOP3 carry-in from s4, carry-out to s6 (wave32: one SGPR each).
    const G10_ADD_CO_CI_E64: &[u8] = &[0x04, 0x06, 0x28, 0xd5, 0x05, 0x0d, 0x12, 0x00]; // v_add_co_ci_u32_e64 v4, s6, v5, v6, s4
    let mut r = setup_add64(Processor::Gfx1030, false);
    r.run(G10_ADD_CO);
    r.wave.sreg[4] = r.wave.vcc() as u32;
    r.wave.set_vcc(0);
    r.run(G10_ADD_CO_CI_E64);
    check_add64(&r, 1, 4);
    assert_eq!(r.wave.vcc(), 0);
}

#[test]
fn gfx8_addc_u32_chain() {
    const G8_ADDC: &[u8] = &[0x05, 0x0d, 0x08, 0x38]; // v_addc_u32_e32 v4, vcc, v5, v6, vcc
    const G8_ADD: &[u8] = &[0x02, 0x07, 0x02, 0x32]; // v_add_u32_e32 v1, vcc, v2, v3
    let mut r = setup_add64(Processor::Gfx803, true);
    r.run(G8_ADD);
    r.run(G8_ADDC);
    check_add64(&r, 1, 4);
}

#[test]
fn subtract_with_borrow_forms() {
    let mut r = gfx9();
    r.run(SUB_CO_E32);
    check(&r, 1, |l| a(l).wrapping_sub(b(l)));
    assert_eq!(r.wave.vcc(), mask(&r, |l| b(l) > a(l)));
    let mut r = gfx9();
    r.run(SUBREV_CO_E32);
    check(&r, 1, |l| b(l).wrapping_sub(a(l)));
    assert_eq!(r.wave.vcc(), mask(&r, |l| a(l) > b(l)));
    // Borrow in from VCC: lanes with an odd index borrow.
    let borrow_in = |l: usize| l % 2 == 1;
    let mut r = gfx9();
    r.wave.set_vcc(mask(&r, borrow_in));
    r.run(SUBB_CO_E32);
    check(&r, 1, |l| a(l).wrapping_sub(b(l)).wrapping_sub(borrow_in(l) as u32));
    assert_eq!(r.wave.vcc(), mask(&r, |l| b(l) as u64 + borrow_in(l) as u64 > a(l) as u64));
    let mut r = gfx9();
    r.wave.set_vcc(mask(&r, borrow_in));
    r.run(SUBBREV_CO_E32);
    check(&r, 1, |l| b(l).wrapping_sub(a(l)).wrapping_sub(borrow_in(l) as u32));
    assert_eq!(r.wave.vcc(), mask(&r, |l| a(l) as u64 + borrow_in(l) as u64 > b(l) as u64));
    // GFX10 v_sub_co_ci_u32 and v_subrev_nc_u32.
    const G10_SUB_CO_CI: &[u8] = &[0x05, 0x0d, 0x08, 0x52]; // v_sub_co_ci_u32_e32 v4, vcc_lo, v5, v6, vcc_lo
    const G10_SUBREV_NC: &[u8] = &[0x02, 0x07, 0x02, 0x4e]; // v_subrev_nc_u32_e32 v1, v2, v3
    let mut r = setup(Processor::Gfx1030, false);
    r.set_v(5, a);
    r.set_v(6, b);
    r.wave.set_vcc(0xffff_0000);
    r.run(G10_SUB_CO_CI);
    r.run(G10_SUBREV_NC);
    check(&r, 4, |l| a(l).wrapping_sub(b(l)).wrapping_sub((l >= 16) as u32));
    check(&r, 1, |l| b(l).wrapping_sub(a(l)));
    assert_eq!(r.wave.vcc(), mask(&r, |l| b(l) as u64 + (l >= 16) as u64 > a(l) as u64));
}

#[test]
fn inactive_lanes_keep_results_and_get_zero_carry() {
    let mut r = gfx9();
    r.set_v(1, |l| 0xaaaa_0000 | l as u32);
    let exec = 0xf0f0_0000_ffff_0f0fu64;
    r.wave.set_exec(exec);
    r.wave.set_vcc(!0);
    r.run(ADD_CO_E32);
    check(&r, 1, |l| if exec >> l & 1 != 0 { a(l).wrapping_add(b(l)) } else { 0xaaaa_0000 | l as u32 });
    assert_eq!(r.wave.vcc(), mask(&r, carry) & exec, "carry bits of inactive lanes are 0");
    // EXEC = 0: nothing is written, VCC becomes 0.
    let mut r = gfx9();
    r.set_v(1, |_| 7);
    r.wave.set_exec(0);
    r.run(ADD_CO_E32);
    check(&r, 1, |_| 7);
    assert_eq!(r.wave.vcc(), 0);
}

#[test]
fn clamp_saturates_integer_results() {
    const ADD_U32_CLAMP: &[u8] = &[0x01, 0x80, 0x34, 0xd1, 0x02, 0x07, 0x02, 0x00]; // v_add_u32_e64 v1, v2, v3 clamp
    const SUB_U32_CLAMP: &[u8] = &[0x01, 0x80, 0x35, 0xd1, 0x02, 0x07, 0x02, 0x00]; // v_sub_u32_e64 v1, v2, v3 clamp
    const ADD_I32_CLAMP: &[u8] = &[0x01, 0x80, 0x9c, 0xd2, 0x02, 0x07, 0x02, 0x00]; // v_add_i32 v1, v2, v3 clamp
    const SUB_I32: &[u8] = &[0x01, 0x00, 0x9d, 0xd2, 0x02, 0x07, 0x02, 0x00]; // v_sub_i32 v1, v2, v3
    const ADD_U16_CLAMP: &[u8] = &[0x01, 0x80, 0x26, 0xd1, 0x02, 0x07, 0x02, 0x00]; // v_add_u16_e64 v1, v2, v3 clamp
    const MAD_U32_U24_CLAMP: &[u8] = &[0x01, 0x80, 0xc3, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_mad_u32_u24 v1, v2, v3, v4 clamp
    let run = |bytes: &[u8]| {
        let mut r = gfx9();
        r.run(bytes);
        r
    };
    check(&run(ADD_U32_CLAMP), 1, |l| a(l).saturating_add(b(l)));
    check(&run(SUB_U32_CLAMP), 1, |l| a(l).saturating_sub(b(l)));
    check(&run(ADD_I32_CLAMP), 1, |l| (a(l) as i32).saturating_add(b(l) as i32) as u32);
    check(&run(SUB_I32), 1, |l| (a(l) as i32).wrapping_sub(b(l) as i32) as u32);
    // 16-bit results zero the upper half of the VGPR on GFX9 (non-op_sel forms).
    check(&run(ADD_U16_CLAMP), 1, |l| (a(l) as u16).saturating_add(b(l) as u16) as u32);
    check(&run(MAD_U32_U24_CLAMP), 1, |l| {
        let p = (a(l) & 0xff_ffff) as u64 * (b(l) & 0xff_ffff) as u64 + c(l) as u64;
        p.min(0xffff_ffff) as u32
    });
}

#[test]
fn multiplies() {
    const MUL_LO_U32: &[u8] = &[0x01, 0x00, 0x85, 0xd2, 0x02, 0x07, 0x02, 0x00]; // v_mul_lo_u32 v1, v2, v3
    const MUL_HI_U32: &[u8] = &[0x01, 0x00, 0x86, 0xd2, 0x02, 0x07, 0x02, 0x00]; // v_mul_hi_u32 v1, v2, v3
    const MUL_HI_I32: &[u8] = &[0x01, 0x00, 0x87, 0xd2, 0x02, 0x07, 0x02, 0x00]; // v_mul_hi_i32 v1, v2, v3
    const MUL_U32_U24: &[u8] = &[0x02, 0x07, 0x02, 0x10]; // v_mul_u32_u24_e32 v1, v2, v3
    const MUL_HI_U32_U24: &[u8] = &[0x02, 0x07, 0x02, 0x12]; // v_mul_hi_u32_u24_e32 v1, v2, v3
    const MUL_I32_I24: &[u8] = &[0x02, 0x07, 0x02, 0x0c]; // v_mul_i32_i24_e32 v1, v2, v3
    const MUL_HI_I32_I24: &[u8] = &[0x02, 0x07, 0x02, 0x0e]; // v_mul_hi_i32_i24_e32 v1, v2, v3
    const MAD_U32_U24: &[u8] = &[0x01, 0x00, 0xc3, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_mad_u32_u24 v1, v2, v3, v4
    const MAD_I32_I24: &[u8] = &[0x01, 0x00, 0xc2, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_mad_i32_i24 v1, v2, v3, v4
    let run = |bytes: &[u8]| {
        let mut r = gfx9();
        r.run(bytes);
        r
    };
    let (u, s) = (|x: u32| x as u64, |x: u32| x as i32 as i64);
    let u24 = |x: u32| (x & 0xff_ffff) as u64;
    let i24 = |x: u32| ((x << 8) as i32 >> 8) as i64;
    check(&run(MUL_LO_U32), 1, |l| a(l).wrapping_mul(b(l)));
    check(&run(MUL_HI_U32), 1, |l| ((u(a(l)) * u(b(l))) >> 32) as u32);
    check(&run(MUL_HI_I32), 1, |l| ((s(a(l)) * s(b(l))) >> 32) as u32);
    check(&run(MUL_U32_U24), 1, |l| (u24(a(l)) * u24(b(l))) as u32);
    check(&run(MUL_HI_U32_U24), 1, |l| ((u24(a(l)) * u24(b(l))) >> 32) as u32);
    check(&run(MUL_I32_I24), 1, |l| (i24(a(l)) * i24(b(l))) as u32);
    check(&run(MUL_HI_I32_I24), 1, |l| ((i24(a(l)) * i24(b(l))) >> 32) as u32);
    check(&run(MAD_U32_U24), 1, |l| (u24(a(l)) * u24(b(l)) + u(c(l))) as u32);
    check(&run(MAD_I32_I24), 1, |l| (i24(a(l)) * i24(b(l)) + s(c(l))) as u32);
}

/// (v[lo], v[lo+1]) as a u64.
fn v64(r: &Rig, lo: usize, l: usize) -> u64 {
    r.wave.v(lo, l) as u64 | (r.wave.v(lo + 1, l) as u64) << 32
}

#[test]
fn mad_u64_u32_and_mad_i64_i32_with_carry_out() {
    const MAD_U64_U32: &[u8] = &[0x06, 0x04, 0xe8, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_mad_u64_u32 v[6:7], s[4:5], v2, v3, v[4:5]
    const MAD_I64_I32: &[u8] = &[0x06, 0x04, 0xe9, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_mad_i64_i32 v[6:7], s[4:5], v2, v3, v[4:5]
    const MAD_U64_U32_ALIAS: &[u8] = &[0x02, 0x6a, 0xe8, 0xd1, 0x02, 0x07, 0x0a, 0x04]; // v_mad_u64_u32 v[2:3], vcc, v2, v3, v[2:3]
    let acc = |l: usize| (c(l) as u64) | (a(l) as u64) << 32;
    let setup_mad = |p, w64| {
        let mut r = setup(p, w64);
        r.set_v(5, a);
        r
    };
    let mut r = setup_mad(Processor::Gfx900, true);
    r.run(MAD_U64_U32);
    let exact = |l: usize| a(l) as u128 * b(l) as u128 + acc(l) as u128;
    for l in 0..64 {
        assert_eq!(v64(&r, 6, l), exact(l) as u64, "lane {l}");
    }
    let sdst = r.wave.sreg[4] as u64 | (r.wave.sreg[5] as u64) << 32;
    assert_eq!(sdst, mask(&r, |l| exact(l) >> 64 != 0));
    // Signed: {D1, D0} = 65-bit signed product plus the sign-extended addend; D1 is bit 64.
    let mut r = setup_mad(Processor::Gfx900, true);
    r.run(MAD_I64_I32);
    let exact = |l: usize| (a(l) as i32 as i128) * (b(l) as i32 as i128) + acc(l) as i64 as i128;
    for l in 0..64 {
        assert_eq!(v64(&r, 6, l), exact(l) as u64, "lane {l}");
    }
    let sdst = r.wave.sreg[4] as u64 | (r.wave.sreg[5] as u64) << 32;
    assert_eq!(sdst, mask(&r, |l| (exact(l) >> 64) & 1 != 0));
    // Destination overlapping the sources: every source is read before the write.
    let mut r = setup(Processor::Gfx900, true);
    r.run(MAD_U64_U32_ALIAS);
    for l in 0..64 {
        let x = a(l) as u128 * b(l) as u128 + (a(l) as u64 | (b(l) as u64) << 32) as u128;
        assert_eq!(v64(&r, 2, l), x as u64, "lane {l}");
    }
    // GFX10 wave32 (carry to s4) and GFX12 v_mad_co_u64_u32 with a null carry destination.
    const G10_MAD_U64: &[u8] = &[0x06, 0x04, 0x76, 0xd5, 0x02, 0x07, 0x12, 0x04]; // v_mad_u64_u32 v[6:7], s4, v2, v3, v[4:5]
    let mut r = setup_mad(Processor::Gfx1030, false);
    r.wave.sreg[5] = 0x5a5a;
    r.run(G10_MAD_U64);
    let exact = |l: usize| a(l) as u128 * b(l) as u128 + acc(l) as u128;
    for l in 0..32 {
        assert_eq!(v64(&r, 6, l), exact(l) as u64);
    }
    assert_eq!(r.wave.sreg[4] as u64, mask(&r, |l| exact(l) >> 64 != 0));
    assert_eq!(r.wave.sreg[5], 0x5a5a, "wave32 carry-out is one SGPR");
    const G12_MAD_CO: &[u8] = &[0x03, 0x7c, 0xfe, 0xd6, 0x03, 0x05, 0x00, 0x04]; // v_mad_co_u64_u32 v[3:4], null, v3, s2, v[0:1]
    let mut r = setup(Processor::Gfx1201, false);
    r.set_v(0, c);
    r.set_v(1, a);
    r.wave.sreg[2] = 1000;
    r.run(G12_MAD_CO);
    for l in 0..32 {
        assert_eq!(v64(&r, 3, l), (b(l) as u64 * 1000).wrapping_add(acc(l)), "lane {l}");
    }
}

#[test]
fn lshl_add_u64_shifts_at_most_four() {
    const G942_LSHL_ADD_U64: &[u8] = &[0x04, 0x00, 0x08, 0xd2, 0x06, 0x05, 0x22, 0x04]; // v_lshl_add_u64 v[4:5], v[6:7], v2, v[8:9]
    const G942_LSHL_ADD_U64_2: &[u8] = &[0x04, 0x00, 0x08, 0xd2, 0x00, 0x05, 0x11, 0x00]; // v_lshl_add_u64 v[4:5], v[0:1], 2, s[4:5]
    let mut r = Rig::new(Processor::Gfx942, true);
    let x = |l: usize| (b(l) as u64) << 32 | a(l) as u64;
    let y = |l: usize| (c(l) as u64) << 32 | b(l) as u64;
    r.set_v(6, |l| x(l) as u32);
    r.set_v(7, |l| (x(l) >> 32) as u32);
    r.set_v(8, |l| y(l) as u32);
    r.set_v(9, |l| (y(l) >> 32) as u32);
    r.set_v(2, |l| l as u32 % 8);
    r.run(G942_LSHL_ADD_U64);
    for l in 0..64 {
        // "The design treats unsupported shift counts [above 4] as a shift of zero."
        let sh = if l % 8 > 4 { 0 } else { l % 8 };
        assert_eq!(v64(&r, 4, l), (x(l) << sh).wrapping_add(y(l)), "lane {l}");
    }
    // Golden-listing form: (v[0:1] << 2) + s[4:5].
    r.set_v(0, |l| x(l) as u32);
    r.set_v(1, |l| (x(l) >> 32) as u32);
    r.wave.sreg[4] = 0x8000_0000;
    r.wave.sreg[5] = 1;
    r.run(G942_LSHL_ADD_U64_2);
    for l in 0..64 {
        assert_eq!(v64(&r, 4, l), (x(l) << 2).wrapping_add(0x1_8000_0000));
    }
}

#[test]
fn shifts_use_the_low_bits_of_the_count() {
    const LSHLREV_B32: &[u8] = &[0x02, 0x07, 0x02, 0x24]; // v_lshlrev_b32_e32 v1, v2, v3
    const LSHRREV_B32: &[u8] = &[0x02, 0x07, 0x02, 0x20]; // v_lshrrev_b32_e32 v1, v2, v3
    const ASHRREV_I32: &[u8] = &[0x02, 0x07, 0x02, 0x22]; // v_ashrrev_i32_e32 v1, v2, v3
    const LSHLREV_B64: &[u8] = &[0x04, 0x00, 0x8f, 0xd2, 0x02, 0x0d, 0x02, 0x00]; // v_lshlrev_b64 v[4:5], v2, v[6:7]
    const LSHRREV_B64: &[u8] = &[0x04, 0x00, 0x90, 0xd2, 0x02, 0x0d, 0x02, 0x00]; // v_lshrrev_b64 v[4:5], v2, v[6:7]
    const ASHRREV_I64: &[u8] = &[0x04, 0x00, 0x91, 0xd2, 0x02, 0x0d, 0x02, 0x00]; // v_ashrrev_i64 v[4:5], v2, v[6:7]
    const LSHLREV_B16: &[u8] = &[0x02, 0x07, 0x02, 0x54]; // v_lshlrev_b16_e32 v1, v2, v3
    const ASHRREV_I16: &[u8] = &[0x02, 0x07, 0x02, 0x58]; // v_ashrrev_i16_e32 v1, v2, v3
    let count = |l: usize| (l as u32 * 37) ^ 0xffff_ff00;
    let run = |bytes: &[u8]| {
        let mut r = gfx9();
        r.set_v(2, count);
        r.set_v(6, b);
        r.set_v(7, c);
        r.run(bytes);
        r
    };
    check(&run(LSHLREV_B32), 1, |l| b(l) << (count(l) & 31));
    check(&run(LSHRREV_B32), 1, |l| b(l) >> (count(l) & 31));
    check(&run(ASHRREV_I32), 1, |l| ((b(l) as i32) >> (count(l) & 31)) as u32);
    check(&run(LSHLREV_B16), 1, |l| ((b(l) as u16) << (count(l) & 15)) as u32);
    check(&run(ASHRREV_I16), 1, |l| ((b(l) as i16) >> (count(l) & 15)) as u16 as u32);
    let x = |l: usize| (c(l) as u64) << 32 | b(l) as u64;
    for (bytes, f) in
        [(LSHLREV_B64, (|v: u64, s: u32| v << s) as fn(u64, u32) -> u64), (LSHRREV_B64, |v, s| v >> s), (ASHRREV_I64, |v, s| ((v as i64) >> s) as u64)]
    {
        let r = run(bytes);
        for l in 0..64 {
            assert_eq!(v64(&r, 4, l), f(x(l), count(l) & 63), "lane {l}");
        }
    }
}

#[test]
fn sixty_four_bit_literals_extend_by_signedness() {
    // GFX10 VOP3 accepts a literal. For the signed source of v_ashrrev_i64 the 32-bit literal
    // is sign-extended; for the unsigned source of v_lshlrev_b64 it is zero-extended (CDNA3
    // ISA §6.2.1.1 "Literal Expansion to 64 bits").
    const G10_ASHR_I64_LIT: &[u8] = &[0x04, 0x00, 0x01, 0xd7, 0x02, 0xff, 0x01, 0x00, 0x00, 0x00, 0x00, 0x80]; // v_ashrrev_i64 v[4:5], v2, 0x80000000
    const G10_LSHL_B64_LIT: &[u8] = &[0x04, 0x00, 0xff, 0xd6, 0x02, 0xff, 0x01, 0x00, 0x00, 0x00, 0x00, 0x80]; // v_lshlrev_b64 v[4:5], v2, 0x80000000
    const G10_MAD_I64_LIT: &[u8] = &[0x06, 0x04, 0x77, 0xd5, 0x02, 0x07, 0xfe, 0x03, 0xfe, 0xff, 0xff, 0xff]; // v_mad_i64_i32 v[6:7], s4, v2, v3, 0xfffffffe
    let mut r = setup(Processor::Gfx1030, false);
    r.set_v(2, |l| l as u32);
    r.run(G10_ASHR_I64_LIT);
    for l in 0..32 {
        assert_eq!(v64(&r, 4, l), (0xffff_ffff_8000_0000u64 as i64 >> l) as u64);
    }
    r.run(G10_LSHL_B64_LIT);
    for l in 0..32 {
        assert_eq!(v64(&r, 4, l), 0x8000_0000u64 << l);
    }
    r.set_v(2, |_| 3);
    r.set_v(3, |_| 5);
    r.run(G10_MAD_I64_LIT);
    for l in 0..32 {
        assert_eq!(v64(&r, 6, l), 13, "3 * 5 + (-2)");
    }
}

#[test]
fn bitfield_and_bitwise_operations() {
    let run = |bytes: &[u8], x: fn(usize) -> u32, y: fn(usize) -> u32, z: fn(usize) -> u32| {
        let mut r = gfx9();
        r.set_v(2, x);
        r.set_v(3, y);
        r.set_v(4, z);
        r.run(bytes);
        r
    };
    const BFE_U32: &[u8] = &[0x01, 0x00, 0xc8, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_bfe_u32 v1, v2, v3, v4
    const BFE_I32: &[u8] = &[0x01, 0x00, 0xc9, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_bfe_i32 v1, v2, v3, v4
                                                                              // Offset and width use bits [4:0]; width 0 gives 0.
    let off = |l: usize| l as u32 * 3 + 64;
    let width = |l: usize| (l as u32 * 5) % 37;
    let bfe = |x: u32, o: u32, w: u32| ((x as u64 >> (o & 31)) & ((1u64 << (w & 31)) - 1)) as u32;
    check(&run(BFE_U32, c, off, width), 1, |l| bfe(c(l), off(l), width(l)));
    check(&run(BFE_I32, c, off, width), 1, |l| {
        let w = width(l) & 31;
        if w == 0 {
            0
        } else {
            ((bfe(c(l), off(l), w) << (32 - w)) as i32 >> (32 - w)) as u32
        }
    });
    const BFI_B32: &[u8] = &[0x01, 0x00, 0xca, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_bfi_b32 v1, v2, v3, v4
    check(&run(BFI_B32, a, b, c), 1, |l| (a(l) & b(l)) | (!a(l) & c(l)));
    const BFM_B32: &[u8] = &[0x01, 0x00, 0x93, 0xd2, 0x02, 0x07, 0x02, 0x00]; // v_bfm_b32 v1, v2, v3
    check(&run(BFM_B32, width, off, c), 1, |l| (((1u64 << (width(l) & 31)) - 1) << (off(l) & 31)) as u32);
    const ALIGNBIT: &[u8] = &[0x01, 0x00, 0xce, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_alignbit_b32 v1, v2, v3, v4
    const ALIGNBYTE: &[u8] = &[0x01, 0x00, 0xcf, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_alignbyte_b32 v1, v2, v3, v4
    let wide = |l: usize| (a(l) as u64) << 32 | b(l) as u64;
    check(&run(ALIGNBIT, a, b, off), 1, |l| (wide(l) >> (off(l) & 31)) as u32);
    check(&run(ALIGNBYTE, a, b, off), 1, |l| (wide(l) >> ((off(l) & 3) * 8)) as u32);
    // v_perm_b32: selectors 0-7 bytes of {S0, S1}, 8-11 sign of bytes 1/3/5/7, 12 zero, >= 13 0xff.
    const PERM: &[u8] = &[0x01, 0x00, 0xed, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_perm_b32 v1, v2, v3, v4
    let mut r = gfx9();
    r.set_v(2, |_| 0x8899_aabb);
    r.set_v(3, |_| 0x0011_2233);
    r.set_v(4, |l| [0x0706_0504, 0x0302_0100, 0x0b0a_0908, 0xff0d_0c00][l % 4]);
    r.run(PERM);
    check(&r, 1, |l| [0x8899_aabb, 0x0011_2233, 0xffff_0000, 0xffff_0033][l % 4]);

    const BCNT: &[u8] = &[0x01, 0x00, 0x8b, 0xd2, 0x02, 0x07, 0x02, 0x00]; // v_bcnt_u32_b32 v1, v2, v3
    check(&run(BCNT, a, b, c), 1, |l| a(l).count_ones().wrapping_add(b(l)));
    // Functional examples of the VOP1 descriptions.
    const FFBH_U32: &[u8] = &[0x02, 0x5b, 0x02, 0x7e]; // v_ffbh_u32_e32 v1, v2
    const FFBL_B32: &[u8] = &[0x02, 0x5d, 0x02, 0x7e]; // v_ffbl_b32_e32 v1, v2
    const FFBH_I32: &[u8] = &[0x02, 0x5f, 0x02, 0x7e]; // v_ffbh_i32_e32 v1, v2
    let ex = |l: usize| [0u32, 0x8000_00ff, 0x1000_00ff, 0x0000_ffff, 1][l % 5];
    check(&run(FFBH_U32, ex, b, c), 1, |l| [u32::MAX, 0, 3, 16, 31][l % 5]);
    let ex = |l: usize| [0u32, 0xff00_0001, 0xff00_0008, 0xffff_0000, 0x8000_0000][l % 5];
    check(&run(FFBL_B32, ex, b, c), 1, |l| [u32::MAX, 0, 3, 16, 31][l % 5]);
    let ex = |l: usize| [0u32, 0x4000_0000, 0x8000_0000, 0x0fff_ffff, 0xffff_0000, 0xffff_fffe, 0xffff_ffff][l % 7];
    check(&run(FFBH_I32, ex, b, c), 1, |l| [u32::MAX, 1, 1, 4, 16, 31, u32::MAX][l % 7]);
    const BFREV: &[u8] = &[0x02, 0x59, 0x02, 0x7e]; // v_bfrev_b32_e32 v1, v2
    const NOT: &[u8] = &[0x02, 0x57, 0x02, 0x7e]; // v_not_b32_e32 v1, v2
    check(&run(BFREV, a, b, c), 1, |l| a(l).reverse_bits());
    check(&run(NOT, a, b, c), 1, |l| !a(l));
    const AND_OR: &[u8] = &[0x01, 0x00, 0x01, 0xd2, 0x02, 0x07, 0x12, 0x04]; // v_and_or_b32 v1, v2, v3, v4
    const OR3: &[u8] = &[0x01, 0x00, 0x02, 0xd2, 0x02, 0x07, 0x12, 0x04]; // v_or3_b32 v1, v2, v3, v4
    const XOR_B32: &[u8] = &[0x02, 0x07, 0x02, 0x2a]; // v_xor_b32_e32 v1, v2, v3
    const LSHL_OR: &[u8] = &[0x01, 0x00, 0x00, 0xd2, 0x02, 0x07, 0x12, 0x04]; // v_lshl_or_b32 v1, v2, v3, v4
    const ADD3: &[u8] = &[0x01, 0x00, 0xff, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_add3_u32 v1, v2, v3, v4
    const LSHL_ADD: &[u8] = &[0x01, 0x00, 0xfd, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_lshl_add_u32 v1, v2, v3, v4
    const ADD_LSHL: &[u8] = &[0x01, 0x00, 0xfe, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_add_lshl_u32 v1, v2, v3, v4
    const XAD: &[u8] = &[0x01, 0x00, 0xf3, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_xad_u32 v1, v2, v3, v4
    check(&run(AND_OR, a, b, c), 1, |l| (a(l) & b(l)) | c(l));
    check(&run(OR3, a, b, c), 1, |l| a(l) | b(l) | c(l));
    check(&run(XOR_B32, a, b, c), 1, |l| a(l) ^ b(l));
    check(&run(LSHL_OR, a, b, c), 1, |l| (a(l) << (b(l) & 31)) | c(l));
    check(&run(ADD3, a, b, c), 1, |l| a(l).wrapping_add(b(l)).wrapping_add(c(l)));
    check(&run(LSHL_ADD, a, b, c), 1, |l| (a(l) << (b(l) & 31)).wrapping_add(c(l)));
    check(&run(ADD_LSHL, a, b, c), 1, |l| a(l).wrapping_add(b(l)) << (c(l) & 31));
    check(&run(XAD, a, b, c), 1, |l| (a(l) ^ b(l)).wrapping_add(c(l)));
    const G10_XNOR: &[u8] = &[0x02, 0x07, 0x02, 0x3c]; // v_xnor_b32_e32 v1, v2, v3
    const G10_XOR3: &[u8] = &[0x01, 0x00, 0x78, 0xd5, 0x02, 0x07, 0x12, 0x04]; // v_xor3_b32 v1, v2, v3, v4
    let mut r = setup(Processor::Gfx1030, false);
    r.run(G10_XNOR);
    check(&r, 1, |l| !(a(l) ^ b(l)));
    r.run(G10_XOR3);
    check(&r, 1, |l| a(l) ^ b(l) ^ c(l));
}

#[test]
fn min_max_med3() {
    const MIN_I32: &[u8] = &[0x02, 0x07, 0x02, 0x18]; // v_min_i32_e32 v1, v2, v3
    const MAX_U32: &[u8] = &[0x02, 0x07, 0x02, 0x1e]; // v_max_u32_e32 v1, v2, v3
    const MED3_I32: &[u8] = &[0x01, 0x00, 0xd7, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_med3_i32 v1, v2, v3, v4
    const MED3_U32: &[u8] = &[0x01, 0x00, 0xd8, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_med3_u32 v1, v2, v3, v4
    const MIN3_U32: &[u8] = &[0x01, 0x00, 0xd2, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_min3_u32 v1, v2, v3, v4
    const MAX3_I32: &[u8] = &[0x01, 0x00, 0xd4, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_max3_i32 v1, v2, v3, v4
    const MAX_I16: &[u8] = &[0x02, 0x07, 0x02, 0x60]; // v_max_i16_e32 v1, v2, v3
    let run = |bytes: &[u8]| {
        let mut r = gfx9();
        r.run(bytes);
        r
    };
    let s = |x: u32| x as i32;
    let med = |x: i64, y: i64, z: i64| x.max(y).min(x.min(y).max(z));
    check(&run(MIN_I32), 1, |l| s(a(l)).min(s(b(l))) as u32);
    check(&run(MAX_U32), 1, |l| a(l).max(b(l)));
    check(&run(MED3_I32), 1, |l| med(s(a(l)) as i64, s(b(l)) as i64, s(c(l)) as i64) as u32);
    check(&run(MED3_U32), 1, |l| med(a(l) as i64, b(l) as i64, c(l) as i64) as u32);
    check(&run(MIN3_U32), 1, |l| a(l).min(b(l)).min(c(l)));
    check(&run(MAX3_I32), 1, |l| s(a(l)).max(s(b(l))).max(s(c(l))) as u32);
    check(&run(MAX_I16), 1, |l| (a(l) as i16).max(b(l) as i16) as u16 as u32);
}

#[test]
fn mbcnt_counts_lanes_below_in_wave64_and_wave32() {
    const MBCNT_LO: &[u8] = &[0x01, 0x00, 0x8c, 0xd2, 0xc1, 0x00, 0x01, 0x00]; // v_mbcnt_lo_u32_b32 v1, -1, 0
    const MBCNT_HI: &[u8] = &[0x01, 0x00, 0x8d, 0xd2, 0xc1, 0x02, 0x02, 0x00]; // v_mbcnt_hi_u32_b32 v1, -1, v1
    const MBCNT_LO_S: &[u8] = &[0x01, 0x00, 0x8c, 0xd2, 0x04, 0x00, 0x01, 0x00]; // v_mbcnt_lo_u32_b32 v1, s4, 0
    const MBCNT_HI_S: &[u8] = &[0x01, 0x00, 0x8d, 0xd2, 0x05, 0x02, 0x02, 0x00]; // v_mbcnt_hi_u32_b32 v1, s5, v1
    let mut r = gfx9();
    r.run(MBCNT_LO);
    check(&r, 1, |l| l.min(32) as u32);
    r.run(MBCNT_HI);
    check(&r, 1, |l| l as u32);
    // Position among lanes whose bit is set in s[4:5].
    let bits = 0x8421_0f00_f0f0_3c5au64;
    r.wave.sreg[4] = bits as u32;
    r.wave.sreg[5] = (bits >> 32) as u32;
    r.run(MBCNT_LO_S);
    r.run(MBCNT_HI_S);
    check(&r, 1, |l| (bits & ((1u64 << l) - 1)).count_ones());
    // Wave32 (GFX10): v_mbcnt_lo alone gives the lane id.
    const G10_MBCNT_LO: &[u8] = &[0x01, 0x00, 0x65, 0xd7, 0xc1, 0x00, 0x01, 0x00]; // v_mbcnt_lo_u32_b32 v1, -1, 0
    let mut r = setup(Processor::Gfx1030, false);
    r.run(G10_MBCNT_LO);
    check(&r, 1, |l| l as u32);
}

#[test]
fn sum_of_absolute_differences_and_lerp() {
    const SAD_U8: &[u8] = &[0x01, 0x00, 0xd9, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_sad_u8 v1, v2, v3, v4
    const MSAD_U8: &[u8] = &[0x01, 0x00, 0xe4, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_msad_u8 v1, v2, v3, v4
    const SAD_U32: &[u8] = &[0x01, 0x00, 0xdc, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_sad_u32 v1, v2, v3, v4
    const LERP_U8: &[u8] = &[0x01, 0x00, 0xcd, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_lerp_u8 v1, v2, v3, v4
    let bytes = |x: u32| x.to_le_bytes().map(u32::from);
    let run = |code: &[u8]| {
        let mut r = gfx9();
        r.run(code);
        r
    };
    check(&run(SAD_U8), 1, |l| {
        let (x, y) = (bytes(a(l)), bytes(b(l)));
        (0..4).map(|i| x[i].abs_diff(y[i])).sum::<u32>().wrapping_add(c(l))
    });
    check(&run(MSAD_U8), 1, |l| {
        let (x, y) = (bytes(a(l)), bytes(b(l)));
        (0..4).filter(|&i| y[i] != 0).map(|i| x[i].abs_diff(y[i])).sum::<u32>().wrapping_add(c(l))
    });
    check(&run(SAD_U32), 1, |l| a(l).abs_diff(b(l)).wrapping_add(c(l)));
    check(&run(LERP_U8), 1, |l| {
        let (x, y, z) = (bytes(a(l)), bytes(b(l)), bytes(c(l)));
        (0..4).fold(0, |acc, i| acc | ((x[i] + y[i] + (z[i] & 1)) >> 1) << (8 * i))
    });
}

#[test]
fn sixteen_bit_results_and_the_upper_half() {
    // GFX8 and GFX9: 16-bit VOP1/VOP2/VOP3 results zero bits [31:16].
    const ADD_U16: &[u8] = &[0x02, 0x07, 0x02, 0x4c]; // v_add_u16_e32 v1, v2, v3
    for p in [Processor::Gfx803, Processor::Gfx900] {
        let mut r = setup(p, true);
        r.set_v(1, |_| 0xdead_0000);
        r.run(ADD_U16);
        check(&r, 1, |l| (a(l) as u16).wrapping_add(b(l) as u16) as u32);
    }
    const MUL_LO_U16: &[u8] = &[0x02, 0x07, 0x02, 0x52]; // v_mul_lo_u16_e32 v1, v2, v3
    let mut r = gfx9();
    r.run(MUL_LO_U16);
    check(&r, 1, |l| (a(l) as u16).wrapping_mul(b(l) as u16) as u32);
    // GFX9 op_sel-capable VOP3 (v_mad_u16): op_sel:[1,0,0,1] reads S0[31:16] and writes the
    // high half, keeping the low one.
    const MAD_U16_OPSEL: &[u8] = &[0x01, 0x48, 0x04, 0xd2, 0x02, 0x07, 0x12, 0x04]; // v_mad_u16 v1, v2, v3, v4 op_sel:[1,0,0,1]
    const MAD_U16: &[u8] = &[0x01, 0x00, 0x04, 0xd2, 0x02, 0x07, 0x12, 0x04]; // v_mad_u16 v1, v2, v3, v4
    let mad = |x: u32, y: u32, z: u32| (x as u16).wrapping_mul(y as u16).wrapping_add(z as u16) as u32;
    let mut r = gfx9();
    r.set_v(1, |_| 0x1234_5678);
    r.run(MAD_U16_OPSEL);
    check(&r, 1, |l| mad(a(l) >> 16, b(l), c(l)) << 16 | 0x5678);
    r.set_v(1, |_| 0x1234_5678);
    r.run(MAD_U16);
    check(&r, 1, |l| 0x1234_0000 | mad(a(l), b(l), c(l)));
    // GFX8 v_mad_u16 zeroes the high half.
    const G8_MAD_U16: &[u8] = &[0x01, 0x00, 0xeb, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_mad_u16 v1, v2, v3, v4
    let mut r = setup(Processor::Gfx803, true);
    r.set_v(1, |_| 0x1234_5678);
    r.run(G8_MAD_U16);
    check(&r, 1, |l| mad(a(l), b(l), c(l)));
    // GFX10+: 16-bit results keep the other half; op_sel[3] picks the half written.
    const G10_ADD_NC_U16: &[u8] = &[0x01, 0x00, 0x03, 0xd7, 0x02, 0x07, 0x02, 0x00]; // v_add_nc_u16 v1, v2, v3
    const G10_ADD_NC_U16_OPSEL: &[u8] = &[0x01, 0x48, 0x03, 0xd7, 0x02, 0x07, 0x02, 0x00]; // v_add_nc_u16 v1, v2, v3 op_sel:[1,0,1]
    let mut r = setup(Processor::Gfx1030, true);
    r.set_v(1, |_| 0x1234_5678);
    r.run(G10_ADD_NC_U16);
    check(&r, 1, |l| 0x1234_0000 | (a(l) as u16).wrapping_add(b(l) as u16) as u32);
    r.set_v(1, |_| 0x1234_5678);
    r.run(G10_ADD_NC_U16_OPSEL);
    check(&r, 1, |l| (((a(l) >> 16) as u16).wrapping_add(b(l) as u16) as u32) << 16 | 0x5678);
}

#[test]
fn scalar_and_constant_sources_broadcast() {
    const MOV_LIT: &[u8] = &[0xff, 0x02, 0x02, 0x7e, 0x78, 0x56, 0x34, 0x12]; // v_mov_b32_e32 v1, 0x12345678
    const MOV_INL: &[u8] = &[0xc7, 0x02, 0x02, 0x7e]; // v_mov_b32_e32 v1, -7
    const ADD_U32_SGPR: &[u8] = &[0x04, 0x06, 0x02, 0x68]; // v_add_u32_e32 v1, s4, v3
    let mut r = gfx9();
    r.run(MOV_LIT);
    check(&r, 1, |_| 0x1234_5678);
    r.run(MOV_INL);
    check(&r, 1, |_| -7i32 as u32);
    r.wave.sreg[4] = 1000;
    r.run(ADD_U32_SGPR);
    check(&r, 1, |l| b(l).wrapping_add(1000));
    // The same instruction again after the SGPR changed, and after a per-lane source used the
    // same working slot: every lane sees the current value.
    r.wave.sreg[4] = 7;
    r.run(ADD_U32_SGPR);
    check(&r, 1, |l| b(l).wrapping_add(7));
    r.run(MOV_LIT);
    r.run(&[0x03, 0x03, 0x02, 0x7e]); // v_mov_b32_e32 v1, v3
    r.run(MOV_LIT);
    check(&r, 1, |_| 0x1234_5678);
    // A wave32 wave after a wave64 one with the same constant.
    let mut r32 = Rig::new(Processor::Gfx1030, false);
    r32.run(&[0xff, 0x02, 0x02, 0x7e, 0x78, 0x56, 0x34, 0x12]); // v_mov_b32_e32 v1, 0x12345678
    assert!((0..32).all(|l| r32.wave.v(1, l) == 0x1234_5678));
    r.run(MOV_LIT);
    check(&r, 1, |_| 0x1234_5678);
}

/// gfx950's V_BITOP3: a truth table over (S0, S1, S2) with S0 as its high index bit, so the
/// tables of the three sources alone are 0xF0, 0xCC and 0xAA (LLVM builds its BITOP3
/// immediates from these: BitOp3_Op in AMDGPUISelDAGToDAG.cpp). 0xC8 = 0xCC & (0xF0 | 0xAA) is
/// b & (a | c), 0x96 = a ^ b ^ c, 0xE8 the bitwise majority, 0xCA = 0xF0 & 0xCC | ~0xF0 & 0xAA
/// the select a ? b : c. Encodings from `llvm-mc-22 -mcpu=gfx950 -show-encoding`.
#[test]
fn gfx950_bitop3_truth_tables() {
    const AND_OR: &[u8] = &[0x01, 0x01, 0x34, 0xd2, 0x02, 0x07, 0x12, 0x1c]; // v_bitop3_b32 v1, v2, v3, v4 bitop3:0xc8
    const XOR3: &[u8] = &[0x01, 0x02, 0x34, 0xd2, 0x02, 0x07, 0x12, 0xd4]; // v_bitop3_b32 v1, v2, v3, v4 bitop3:0x96
    const MAJ: &[u8] = &[0x01, 0x05, 0x34, 0xd2, 0x02, 0x07, 0x12, 0x1c]; // v_bitop3_b32 v1, v2, v3, v4 bitop3:0xe8
    const SEL16: &[u8] = &[0x01, 0x01, 0x33, 0xd2, 0x02, 0x07, 0x12, 0x5c]; // v_bitop3_b16 v1, v2, v3, v4 bitop3:0xca
    let mut r = setup(Processor::Gfx950, true);
    r.run(AND_OR);
    check(&r, 1, |l| b(l) & (a(l) | c(l)));
    r.run(XOR3);
    check(&r, 1, |l| a(l) ^ b(l) ^ c(l));
    r.run(MAJ);
    check(&r, 1, |l| (a(l) & b(l)) | (a(l) & c(l)) | (b(l) & c(l)));
    r.set_v(1, |_| 0xabcd_0000);
    r.run(SEL16);
    // A 16-bit result in the low half; GFX9-family VOP3 16-bit writes keep the high half.
    check(&r, 1, |l| 0xabcd_0000 | ((a(l) & b(l)) | (!a(l) & c(l))) & 0xffff);
}
