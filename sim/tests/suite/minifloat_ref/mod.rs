//! The CPU reference's float decoding for the matrix tests, written from the format
//! definitions (IEEE binary16, the MI300 ISA guide's FNUZ FP8/BF8, OCP OFP8 and MX v1.0): a
//! float with a sign bit, `e` exponent bits of bias `bias` and `m` mantissa bits, exponent 0
//! subnormal. Specials (NaN, infinities) are the caller's.

/// The value of `code` in that format, without specials.
pub fn mini(code: u64, e: u32, m: u32, bias: i32) -> f64 {
    let sign = if code >> (e + m) & 1 == 1 { -1.0 } else { 1.0 };
    let exp = (code >> m & ((1 << e) - 1)) as i32;
    let frac = (code & ((1 << m) - 1)) as f64 / (1u64 << m) as f64;
    if exp == 0 {
        sign * frac * 2f64.powi(1 - bias)
    } else {
        sign * (1.0 + frac) * 2f64.powi(exp - bias)
    }
}
