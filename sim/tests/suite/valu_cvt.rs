//! VALU conversions (ISA VOP1/VOP3 V_CVT_* pseudo-code and notes): float to integer truncates
//! and saturates, NaN gives 0; integer to float and narrowing float conversions round to
//! nearest even; f16 overflow, denormals and NaN quieting; the fixed-mode conversions (RPI,
//! FLR, PKRTZ); byte and offset-table conversions; 16-bit results and the upper half of the
//! VGPR per generation. Encodings from `llvm-mc-19 -show-encoding` (assembly in comments).

use hipscope_isa::Processor;
use hipscope_sim::testing::Rig;

const MODE_IEEE: u32 = 0x3f0;

/// v2 = x[l] (and v3 = y[l] when given), v1 preset to 0xdead_beef; return v1 of lanes 0..n.
fn cvt(p: Processor, code: &[u8], x: &[u32], y: &[u32]) -> Vec<u32> {
    let mut r = Rig::new(p, true);
    r.wave.mode = MODE_IEEE;
    r.set_v(1, |_| 0xdead_beef);
    r.set_v(2, |l| x[l % x.len()]);
    r.set_v(3, |l| if y.is_empty() { 0 } else { y[l % y.len()] });
    r.run(code);
    (0..x.len()).map(|l| r.wave.v(1, l)).collect()
}

fn gfx9(code: &[u8], x: &[u32]) -> Vec<u32> {
    cvt(Processor::Gfx900, code, x, &[])
}

fn f(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn float_to_integer_truncates_and_saturates() {
    const CVT_I32_F32: &[u8] = &[0x02, 0x11, 0x02, 0x7e]; // v_cvt_i32_f32_e32 v1, v2
    const CVT_U32_F32: &[u8] = &[0x02, 0x0f, 0x02, 0x7e]; // v_cvt_u32_f32_e32 v1, v2
    const CVT_FLR: &[u8] = &[0x02, 0x1b, 0x02, 0x7e]; // v_cvt_flr_i32_f32_e32 v1, v2
    const CVT_RPI: &[u8] = &[0x02, 0x19, 0x02, 0x7e]; // v_cvt_rpi_i32_f32_e32 v1, v2
    let x = f(&[1.9, -1.9, 3.0e9, -3.0e9, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -0.5]);
    let i = |v: i32| v as u32;
    assert_eq!(gfx9(CVT_I32_F32, &x), vec![1, i(-1), i(i32::MAX), i(i32::MIN), i(i32::MAX), i(i32::MIN), 0, 0]);
    assert_eq!(gfx9(CVT_U32_F32, &x), vec![1, 0, 3_000_000_000, 0, u32::MAX, 0, 0, 0]);
    assert_eq!(gfx9(CVT_FLR, &x), vec![1, i(-2), i(i32::MAX), i(i32::MIN), i(i32::MAX), i(i32::MIN), 0, i(-1)]);
    // floor(S0 + 0.5) with the add in f32: 0.49999997 + 0.5 rounds to 1.0.
    let x = f(&[2.5, -2.5, 0.499_999_97, -0.3]);
    assert_eq!(gfx9(CVT_RPI, &x), vec![3, i(-2), 1, 0]);
    const CVT_I32_F64: &[u8] = &[0x04, 0x07, 0x02, 0x7e]; // v_cvt_i32_f64_e32 v1, v[4:5]
    let xs = [2.9e9f64, -2.5, f64::NAN, -1.0e300];
    let mut r = Rig::new(Processor::Gfx900, true);
    r.set_v(4, |l| xs[l % 4].to_bits() as u32);
    r.set_v(5, |l| (xs[l % 4].to_bits() >> 32) as u32);
    r.run(CVT_I32_F64);
    assert_eq!((0..4).map(|l| r.wave.v(1, l)).collect::<Vec<_>>(), vec![i(i32::MAX), i(-2), 0, i(i32::MIN)]);
}

#[test]
fn integer_to_float_rounds_to_nearest_even() {
    const CVT_F32_I32: &[u8] = &[0x02, 0x0b, 0x02, 0x7e]; // v_cvt_f32_i32_e32 v1, v2
    const CVT_F32_U32: &[u8] = &[0x02, 0x0d, 0x02, 0x7e]; // v_cvt_f32_u32_e32 v1, v2
    const CVT_F64_U32: &[u8] = &[0x02, 0x2d, 0x08, 0x7e]; // v_cvt_f64_u32_e32 v[4:5], v2
    assert_eq!(gfx9(CVT_F32_I32, &[i32::MIN as u32, 16_777_217, -7i32 as u32]), f(&[-2147483648.0, 16_777_216.0, -7.0]));
    // 2^24 + 3 is a tie between 2^24 + 2 (odd significand) and 2^24 + 4: even wins.
    assert_eq!(gfx9(CVT_F32_U32, &[u32::MAX, 16_777_219]), f(&[4_294_967_296.0, 16_777_220.0]));
    let mut r = Rig::new(Processor::Gfx900, true);
    r.set_v(2, |_| u32::MAX);
    r.run(CVT_F64_U32);
    assert_eq!(r.wave.v(4, 0) as u64 | (r.wave.v(5, 0) as u64) << 32, 4_294_967_295.0f64.to_bits());
}

#[test]
fn float_width_conversions() {
    const CVT_F16_F32: &[u8] = &[0x02, 0x15, 0x02, 0x7e]; // v_cvt_f16_f32_e32 v1, v2
    const CVT_F32_F16: &[u8] = &[0x02, 0x17, 0x02, 0x7e]; // v_cvt_f32_f16_e32 v1, v2
    const CVT_F64_F32: &[u8] = &[0x02, 0x21, 0x08, 0x7e]; // v_cvt_f64_f32_e32 v[4:5], v2
    const CVT_F32_F64: &[u8] = &[0x04, 0x1f, 0x02, 0x7e]; // v_cvt_f32_f64_e32 v1, v[4:5]
                                                          // 65520 is the rounding boundary to infinity; 3e-5 is an f16 denormal (503 * 2^-24);
                                                          // NaNs stay NaN, quiet, sign kept. GFX9 zeroes the upper half of the VGPR.
    let x = f(&[1.0, 65520.0, 65519.0, 1.0e-8, 3.0e-5, -0.0]);
    assert_eq!(gfx9(CVT_F16_F32, &x), vec![0x3c00, 0x7c00, 0x7bff, 0, 0x01f7, 0x8000]);
    assert_eq!(gfx9(CVT_F16_F32, &[0x7fc0_0000, 0xff80_0001]), vec![0x7e00, 0xfe00]);
    // f16 to f32 is exact (denormals included); NaN payload kept and quieted.
    assert_eq!(gfx9(CVT_F32_F16, &[0x0001, 0x7bff, 0xfc00, 0x7c01]), vec![0x3380_0000, 65504.0f32.to_bits(), 0xff80_0000, 0x7fc0_2000]);
    // GFX10+: the high half of the destination is kept.
    const G10_CVT_F16_F32: &[u8] = &[0x02, 0x15, 0x02, 0x7e]; // v_cvt_f16_f32_e32 v1, v2
    assert_eq!(cvt(Processor::Gfx1030, G10_CVT_F16_F32, &f(&[2.0]), &[]), vec![0xdead_4000]);
    let mut r = Rig::new(Processor::Gfx900, true);
    r.wave.mode = MODE_IEEE;
    r.set_v(2, |_| 0.1f32.to_bits());
    r.run(CVT_F64_F32);
    assert_eq!(r.wave.v(4, 0) as u64 | (r.wave.v(5, 0) as u64) << 32, (0.1f32 as f64).to_bits());
    let xs = [0.1f64, 1.0e300, 1.0e-50, -3.0e-39];
    r.set_v(4, |l| xs[l % 4].to_bits() as u32);
    r.set_v(5, |l| (xs[l % 4].to_bits() >> 32) as u32);
    r.run(CVT_F32_F64);
    assert_eq!((0..4).map(|l| r.wave.v(1, l)).collect::<Vec<_>>(), f(&[0.1, f32::INFINITY, 0.0, -3.0e-39f64 as f32]));
}

#[test]
fn half_precision_integer_conversions() {
    const CVT_F16_U16: &[u8] = &[0x02, 0x73, 0x02, 0x7e]; // v_cvt_f16_u16_e32 v1, v2
    const CVT_U16_F16: &[u8] = &[0x02, 0x77, 0x02, 0x7e]; // v_cvt_u16_f16_e32 v1, v2
    const CVT_I16_F16: &[u8] = &[0x02, 0x79, 0x02, 0x7e]; // v_cvt_i16_f16_e32 v1, v2
                                                          // 65535 rounds to 65536 and overflows; 2049 is a tie, rounded to the even 2048.
    assert_eq!(gfx9(CVT_F16_U16, &[65535, 2049, 7]), vec![0x7c00, 0x6800, 0x4700]);
    // Truncation with saturation.
    assert_eq!(gfx9(CVT_U16_F16, &[0x43cd, 0xbc00, 0x7c00]), vec![3, 0, 0xffff]);
    assert_eq!(gfx9(CVT_I16_F16, &[0xc780, 0x7b53, 0x7e00]), vec![0xfff9, 0x7fff, 0]);
}

#[test]
fn special_conversions() {
    const CVT_OFF: &[u8] = &[0x02, 0x1d, 0x02, 0x7e]; // v_cvt_off_f32_i4_e32 v1, v2
    const CVT_UBYTE2: &[u8] = &[0x02, 0x27, 0x02, 0x7e]; // v_cvt_f32_ubyte2_e32 v1, v2
    const CVT_PKRTZ: &[u8] = &[0x01, 0x00, 0x96, 0xd2, 0x02, 0x07, 0x02, 0x00]; // v_cvt_pkrtz_f16_f32 v1, v2, v3
    const CVT_PKNORM_U16: &[u8] = &[0x01, 0x00, 0x95, 0xd2, 0x02, 0x07, 0x02, 0x00]; // v_cvt_pknorm_u16_f32 v1, v2, v3
    const RCP_IFLAG: &[u8] = &[0x02, 0x47, 0x02, 0x7e]; // v_rcp_iflag_f32_e32 v1, v2
    const SAT_PK: &[u8] = &[0x02, 0x9f, 0x02, 0x7e]; // v_sat_pk_u8_i16_e32 v1, v2
                                                     // The ISA's lookup table: signed 4-bit value / 16.
    let table: Vec<u32> = (0..16).collect();
    let want: Vec<u32> = (0..16).map(|n: i32| (((n << 28) >> 28) as f32 / 16.0).to_bits()).collect();
    assert_eq!(gfx9(CVT_OFF, &table), want);
    assert_eq!(gfx9(CVT_UBYTE2, &[0x00ab_0000, 0xff00_ffff]), f(&[171.0, 0.0]));
    // Round toward zero: 1 + 2^-11 + 2^-12 truncates to 1.0; 65520 to the largest finite f16.
    let lo = 1.0 + 2f32.powi(-11) + 2f32.powi(-12);
    assert_eq!(cvt(Processor::Gfx900, CVT_PKRTZ, &f(&[lo]), &f(&[65520.0])), vec![0x7bff_3c00]);
    // unorm16: 0.5 * 65535 = 32767.5 -> nearest even 32768; 2.0 clamps to 1.
    assert_eq!(cvt(Processor::Gfx900, CVT_PKNORM_U16, &f(&[0.5]), &f(&[2.0])), vec![0xffff_8000]);
    assert_eq!(gfx9(RCP_IFLAG, &f(&[4.0, -0.5])), f(&[0.25, -2.0]));
    // Each signed 16-bit half saturated to u8; the 16-bit result zeroes the upper half (GFX9).
    assert_eq!(gfx9(SAT_PK, &[0xff80_0123, 0x0040_7fff]), vec![0x00ff, 0x40ff]);
}

#[test]
fn packed_16_bit_integer_conversions_saturate() {
    // u32_to_u16 / i32_to_i16 saturate each source; S0 goes to the low half.
    const CVT_PK_U16_U32: &[u8] = &[0x01, 0x00, 0x97, 0xd2, 0x02, 0x07, 0x02, 0x00]; // v_cvt_pk_u16_u32 v1, v2, v3
    const CVT_PK_I16_I32: &[u8] = &[0x01, 0x00, 0x98, 0xd2, 0x02, 0x07, 0x02, 0x00]; // v_cvt_pk_i16_i32 v1, v2, v3
    const G11_CVT_PK_I16_F32: &[u8] = &[0x01, 0x00, 0x06, 0xd7, 0x02, 0x07, 0x02, 0x00]; // v_cvt_pk_i16_f32 v1, v2, v3
    const G11_CVT_PK_U16_F32: &[u8] = &[0x01, 0x00, 0x07, 0xd7, 0x02, 0x07, 0x02, 0x00]; // v_cvt_pk_u16_f32 v1, v2, v3
    let g9 = |code, x: &[u32], y: &[u32]| cvt(Processor::Gfx900, code, x, y);
    assert_eq!(g9(CVT_PK_U16_U32, &[5, 0x12345, !0], &[0x10000, 7, 0xffff]), vec![0xffff_0005, 0x0007_ffff, 0xffff_ffff]);
    let i = |v: &[i32]| v.iter().map(|&x| x as u32).collect::<Vec<_>>();
    assert_eq!(g9(CVT_PK_I16_I32, &i(&[-5, 40000, -40000]), &i(&[0x7fff, -32768, i32::MIN])), vec![0x7fff_fffb, 0x8000_7fff, 0x8000_8000]);
    // f32_to_i16 / f32_to_u16: truncate, saturate, NaN -> 0.
    let g11 = |code, x: &[u32], y: &[u32]| cvt(Processor::Gfx1100, code, x, y);
    let nan = f32::NAN;
    assert_eq!(g11(G11_CVT_PK_I16_F32, &f(&[-2.7, 1e6, nan]), &f(&[40000.0, -1e9, -0.5])), vec![0x7fff_fffe, 0x8000_7fff, 0x0000_0000]);
    assert_eq!(g11(G11_CVT_PK_U16_F32, &f(&[3.9, -1.0, f32::INFINITY]), &f(&[70000.0, nan, 65535.0])), vec![0xffff_0003, 0, 0xffff_ffff]);
}
