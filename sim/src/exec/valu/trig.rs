//! V_TRIG_PREOP_F64: a 53-bit segment of 2/PI for double-precision argument reduction.
//!
//! RDNA3/CDNA3 ISA pseudo-code (V_TRIG_PREOP_F64): `shift = S1[4:0] * 53`, plus
//! `exponent(S0) - 1077` when the exponent exceeds 1077; the result is the 53 bits of the
//! 1201-bit fraction of 2/PI (b_1200 = its most significant bit) that the shift brings into the
//! whole part, scaled by `2^(-53 - shift)` (`+128` when `exponent(S0) >= 1968`, "to avoid
//! loss of precision through denormalization"); rounding is always toward zero.

/// The 1201 fraction bits of 2/PI, most significant first, left-aligned in 19 words (the last
/// 15 bits are padding). Computed with exact integer arithmetic (Machin's formula).
const TWO_OVER_PI: [u64; 19] = [
    0xA2F9_836E_4E44_1529,
    0xFC27_57D1_F534_DDC0,
    0xDB62_9599_3C43_9041,
    0xFE51_63AB_DEBB_C561,
    0xB724_6E3A_424D_D2E0,
    0x0649_2EEA_09D1_921C,
    0xFE1D_EB1C_B129_A73E,
    0xE882_35F5_2EBB_4484,
    0xE99C_7026_B45F_7E41,
    0x3991_D639_8353_39F4,
    0x9C84_5F8B_BDF9_283B,
    0x1FF8_97FF_DE05_980F,
    0xEF2F_118B_5A0A_6D1F,
    0x6D36_7ECF_27CB_09B7,
    0x4F46_3F66_9E5F_EA2D,
    0x7527_BAC7_EBE5_F17B,
    0x3D07_39F7_8A52_92EA,
    0x6BFB_5FB1_1F8D_5D08,
    0x5603_3046_FC7B_0000,
];
/// Fraction bits `first..first + 53` of 2/PI as an integer.
fn window(first: u32) -> u64 {
    let (word, off) = ((first - 1) / 64, (first - 1) % 64);
    let at = |w: u32| TWO_OVER_PI.get(w as usize).copied().unwrap_or(0);
    // 128 bits starting at word `word`, then the 53 after `off`.
    let wide = (at(word) as u128) << 64 | at(word + 1) as u128;
    // The table's padding and the words past it are zero: bits beyond b_0 read as zero.
    (wide << off >> 75) as u64
}

/// `m * 2^e` for `m < 2^53`, truncated toward zero when the result is denormal.
fn scale_rtz(m: u64, e: i32) -> f64 {
    if m == 0 {
        return 0.0;
    }
    let top = 63 - m.leading_zeros() as i32;
    let exp = top + e;
    if exp >= -1022 {
        let frac = (m << (52 - top)) & ((1 << 52) - 1);
        return f64::from_bits(((exp + 1023) as u64) << 52 | frac);
    }
    // Denormal: units of 2^-1074.
    let sh = -1074 - e;
    f64::from_bits(if sh >= 64 { 0 } else { m >> sh })
}

/// V_TRIG_PREOP_F64 of the double `a` (bits) and segment select `b`.
pub fn trig_preop(a: u64, b: u64) -> u64 {
    let exponent = (a >> 52 & 0x7ff) as i32;
    let mut shift = (b & 31) as i32 * 53;
    if exponent > 1077 {
        shift += exponent - 1077;
    }
    let m = window(shift as u32 + 1);
    let mut scale = -53 - shift;
    if exponent >= 1968 {
        scale += 128;
    }
    scale_rtz(m, scale).to_bits()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fraction bit `i` of 2/PI counted from the binary point (1 = most significant); 0 past
    /// the 1201-bit table.
    fn bit(i: u32) -> u64 {
        if i == 0 || i > 1201 {
            return 0;
        }
        let p = i - 1;
        TWO_OVER_PI[(p / 64) as usize] >> (63 - p % 64) & 1
    }

    #[test]
    fn window_matches_bitwise_extraction() {
        for first in [1u32, 2, 54, 63, 64, 65, 100, 1148, 1149, 1150, 1200, 1201, 1202, 2000] {
            let slow = (0..53).fold(0u64, |v, i| v << 1 | bit(first + i));
            assert_eq!(window(first), slow, "first {first}");
        }
    }
}
