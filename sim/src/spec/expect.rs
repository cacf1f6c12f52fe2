//! Expectations: compare a buffer's final bytes with a file, a typed list or a reference.

use super::model::{Expected, Ty};
use super::values::{decode, Elem};

/// The outcome of one expectation.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Check {
    pub buffer: String,
    pub ok: bool,
    pub detail: String,
}

/// Element type and bytes of a typed list.
pub fn list_bytes(e: &Expected) -> Option<(Ty, Vec<u8>)> {
    fn le<T: Copy, const N: usize>(v: &[T], f: fn(T) -> [u8; N]) -> Vec<u8> {
        v.iter().flat_map(|x| f(*x)).collect()
    }
    Some(match e {
        Expected::U8(v) => (Ty::U8, v.clone()),
        Expected::I8(v) => (Ty::I8, le(v, i8::to_le_bytes)),
        Expected::U16(v) => (Ty::U16, le(v, u16::to_le_bytes)),
        Expected::I16(v) => (Ty::I16, le(v, i16::to_le_bytes)),
        Expected::U32(v) => (Ty::U32, le(v, u32::to_le_bytes)),
        Expected::I32(v) => (Ty::I32, le(v, i32::to_le_bytes)),
        Expected::U64(v) => (Ty::U64, le(v, u64::to_le_bytes)),
        Expected::I64(v) => (Ty::I64, le(v, i64::to_le_bytes)),
        Expected::F32(v) => (Ty::F32, le(v, f32::to_le_bytes)),
        Expected::F64(v) => (Ty::F64, le(v, f64::to_le_bytes)),
        Expected::File(_) | Expected::Reference(_) => return None,
    })
}

/// Within tolerance: |got − want| ≤ tol · max(1, |want|); NaN matches NaN.
fn close(got: Elem, want: Elem, tol: f64) -> bool {
    match (got, want) {
        (Elem::Int(g), Elem::Int(w)) => g == w || ((g - w).unsigned_abs() as f64) <= tol,
        _ => {
            let (g, w) = (got.as_f64(), want.as_f64());
            (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= tol * w.abs().max(1.0)
        }
    }
}

/// Compare `got` with `want` element by element. `first` is the index of the first element
/// (for messages about buffers compared from an offset); `what` names the expectation.
pub fn compare(got: &[u8], want: &[u8], ty: Ty, tol: f64, first: u64, what: &str) -> (bool, String) {
    if got.len() < want.len() {
        return (false, format!("{} bytes to compare, but {what} has {} bytes", got.len(), want.len()));
    }
    let size = ty.size();
    let n = want.len() / size;
    let (mut bad, mut first_bad, mut worst) = (0u64, None, 0f64);
    for i in 0..n {
        let (g, w) = (decode(ty, &got[i * size..]), decode(ty, &want[i * size..]));
        if ty.is_float() && !(g.as_f64().is_nan() && w.as_f64().is_nan()) {
            worst = worst.max((g.as_f64() - w.as_f64()).abs());
        }
        if !close(g, w, tol) {
            bad += 1;
            first_bad.get_or_insert((i, g, w));
        }
    }
    // A byte tail shorter than one element (only possible for odd-sized files) compares bytes.
    let tail_ok = got[n * size..want.len()] == want[n * size..];
    let dev = if ty.is_float() && tol > 0.0 { format!(", largest difference {worst:e}") } else { String::new() };
    match first_bad {
        None if tail_ok => (true, format!("{n} {} values equal {what}{dev}", ty.name())),
        None => (false, format!("trailing bytes differ from {what}")),
        Some((i, g, w)) => (
            false,
            format!(
                "{bad} of {n} {} values differ from {what}{dev}; first: [{}] = {g}, expected {w}{}",
                ty.name(),
                first + i as u64,
                if tol > 0.0 { format!(" (tol {tol})") } else { String::new() }
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn tolerance_and_messages() {
        let (ok, d) = compare(&f32s(&[1.0, 2.0, 3.0]), &f32s(&[1.0, 2.0, 3.0]), Ty::F32, 0.0, 0, "the list");
        assert!(ok, "{d}");
        let (ok, d) = compare(&f32s(&[1.0, 2.5, 3.0]), &f32s(&[1.0, 2.0, 3.0]), Ty::F32, 0.0, 10, "the list");
        assert!(!ok);
        assert!(d.contains("1 of 3 f32 values differ") && d.contains("[11] = 2.5, expected 2.0"), "{d}");
        assert!(compare(&f32s(&[1000.001]), &f32s(&[1000.0]), Ty::F32, 1e-5, 0, "x").0);
        assert!(!compare(&f32s(&[0.001]), &f32s(&[0.0]), Ty::F32, 1e-5, 0, "x").0);
        assert!(compare(&f32s(&[f32::NAN]), &f32s(&[f32::NAN]), Ty::F32, 0.0, 0, "x").0);
        assert!(!compare(&f32s(&[1.0]), &f32s(&[1.0, 2.0]), Ty::F32, 0.0, 0, "x").0);
    }
}
