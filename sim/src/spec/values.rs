//! Typed elements: encoding spec numbers into buffer bytes and decoding buffer bytes for
//! comparisons and references.

use super::model::{Num, Ty};
use crate::exec::valu::fp::{d2h, h2d};

/// A decoded element.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Elem {
    Int(i128),
    Float(f64),
}

impl Elem {
    pub fn as_f64(self) -> f64 {
        match self {
            Elem::Int(i) => i as f64,
            Elem::Float(f) => f,
        }
    }
}

impl std::fmt::Display for Elem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Elem::Int(i) => write!(f, "{i}"),
            Elem::Float(x) => write!(f, "{x:?}"),
        }
    }
}

/// Decode one element; `b` must hold at least `ty.size()` bytes (callers chunk exactly).
pub fn decode(ty: Ty, b: &[u8]) -> Elem {
    let mut w = [0u8; 8];
    let n = ty.size().min(b.len());
    w[..n].copy_from_slice(&b[..n]);
    let u = u64::from_le_bytes(w);
    match ty {
        Ty::U8 | Ty::U16 | Ty::U32 | Ty::U64 => Elem::Int(u as i128),
        Ty::I8 => Elem::Int(u as u8 as i8 as i128),
        Ty::I16 => Elem::Int(u as u16 as i16 as i128),
        Ty::I32 => Elem::Int(u as u32 as i32 as i128),
        Ty::I64 => Elem::Int(u as i64 as i128),
        Ty::F16 => Elem::Float(h2d(u)),
        Ty::F32 => Elem::Float(f32::from_bits(u as u32) as f64),
        Ty::F64 => Elem::Float(f64::from_bits(u)),
    }
}

/// Decode a whole byte slice (a trailing partial element is ignored).
pub fn decode_all(ty: Ty, b: &[u8]) -> Vec<Elem> {
    b.chunks_exact(ty.size()).map(|c| decode(ty, c)).collect()
}

/// Encode an integer that is known to fit (wraps otherwise: the bytes are the low bits).
pub fn encode_int(ty: Ty, v: i128, out: &mut Vec<u8>) {
    match ty {
        Ty::F16 => out.extend_from_slice(&small_f16(v).unwrap_or_else(|| d2h(v as f64) as u16).to_le_bytes()),
        Ty::F32 => out.extend_from_slice(&(v as f32).to_le_bytes()),
        Ty::F64 => out.extend_from_slice(&(v as f64).to_le_bytes()),
        _ => out.extend_from_slice(&(v as u128).to_le_bytes()[..ty.size()]),
    }
}

/// binary16 bits of an integer of magnitude at most 2048, which f16's 11 significant bits
/// hold exactly (IEEE 754 binary16: 5 exponent bits biased by 15, 10 fraction bits): the
/// common case of random integer inputs, without the general rounding path.
fn small_f16(v: i128) -> Option<u16> {
    let mag = u16::try_from(v.unsigned_abs()).ok().filter(|&m| m <= 2048)?;
    if mag == 0 {
        return Some(0);
    }
    let p = 15 - mag.leading_zeros() as u16; // position of the leading one
    let sign = if v < 0 { 0x8000 } else { 0 };
    let frac = if p <= 10 { mag << (10 - p) } else { mag >> (p - 10) } & 0x3ff;
    Some(sign | (p + 15) << 10 | frac)
}

/// Encode a float value (integers types: must be integral and in range, checked by `encode`).
pub fn encode_float(ty: Ty, v: f64, out: &mut Vec<u8>) {
    match ty {
        Ty::F16 => out.extend_from_slice(&(d2h(v) as u16).to_le_bytes()),
        Ty::F32 => out.extend_from_slice(&(v as f32).to_le_bytes()),
        Ty::F64 => out.extend_from_slice(&v.to_le_bytes()),
        _ => encode_int(ty, v as i128, out),
    }
}

/// Encode a number written in a spec as `ty`, checking that it is representable.
pub fn encode(ty: Ty, n: Num, out: &mut Vec<u8>) -> Result<(), String> {
    match (ty.int_range(), n) {
        (None, n) => {
            encode_float(ty, n.as_f64(), out);
            Ok(())
        }
        (Some((lo, hi)), Num::Int(i)) if i >= lo && i <= hi => {
            encode_int(ty, i, out);
            Ok(())
        }
        (Some((lo, hi)), Num::Float(f)) if f.fract() == 0.0 && f >= lo as f64 && f <= hi as f64 => {
            encode_int(ty, f as i128, out);
            Ok(())
        }
        (Some((lo, hi)), n) => Err(format!("{} is not a {} (range {lo}..={hi})", fmt_num(n), ty.name())),
    }
}

fn fmt_num(n: Num) -> String {
    match n {
        Num::Int(i) => i.to_string(),
        Num::Float(f) => format!("{f:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_integers_encode_as_the_general_f16_rounding_does() {
        for v in -2048i128..=2048 {
            assert_eq!(small_f16(v), Some(d2h(v as f64) as u16), "{v}");
        }
        assert_eq!(small_f16(2049), None);
        assert_eq!(small_f16(-4), Some(0xc400)); // -4 = -1.0 * 2^2
        assert_eq!(small_f16(3), Some(0x4200)); // 1.5 * 2^1
    }

    #[test]
    fn round_trips_and_range_checks() {
        let mut b = Vec::new();
        encode(Ty::I16, Num::Int(-2), &mut b).unwrap();
        encode(Ty::F32, Num::Int(3), &mut b).unwrap();
        encode(Ty::U32, Num::Float(7.0), &mut b).unwrap();
        assert_eq!(decode(Ty::I16, &b[0..2]), Elem::Int(-2));
        assert_eq!(decode(Ty::F32, &b[2..6]), Elem::Float(3.0));
        assert_eq!(decode(Ty::U32, &b[6..10]), Elem::Int(7));
        assert!(encode(Ty::U8, Num::Int(256), &mut b).is_err());
        assert!(encode(Ty::U32, Num::Float(0.5), &mut b).is_err());
        assert!(encode(Ty::U64, Num::Int(-1), &mut b).is_err());
    }
}
