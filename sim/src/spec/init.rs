//! Buffer contents before the first dispatch.

use super::error::{At, SpecError};
use super::files;
use super::model::{Buffer, Init, Ty};
use super::values::{encode, encode_float, encode_int};
use crate::exec::valu::fp::d2h;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::path::Path;

/// Largest buffer a spec may ask for (the simulator holds every byte in host memory).
pub const MAX_BUFFER_BYTES: u64 = 1 << 32;

/// The bytes of buffer `name`. `dir` is the spec file's directory (for `File`).
pub fn initial_bytes(at: At, name: &str, b: &Buffer, dir: &Path) -> Result<Vec<u8>, SpecError> {
    contents(at, &format!("buffers.{name}"), b, dir)
}

/// The bytes `b` describes; errors name fields under `path` (`buffers.a`, `globals.d_mask`).
pub fn contents(at: At, path: &str, b: &Buffer, dir: &Path) -> Result<Vec<u8>, SpecError> {
    let path = path.to_string();
    let mut bytes = match &b.init {
        Init::File(f) => read_file(at, &path, dir, f, b.bytes)?,
        Init::Values(ty, vals) => {
            let mut out = Vec::with_capacity(vals.len() * ty.size());
            for (i, v) in vals.iter().enumerate() {
                encode(*ty, *v, &mut out).map_err(|m| at.err(format!("{path}.init[{i}]"), m))?;
            }
            if let Some(n) = b.bytes {
                if n < out.len() as u64 {
                    return Err(at.err(format!("{path}.bytes"), format!("{n} bytes cannot hold the {} values given", vals.len())));
                }
                out.resize(n as usize, 0);
            }
            out
        }
        init => {
            let n = b.bytes.ok_or_else(|| at.err(format!("{path}.bytes"), "missing (only File and Values inits imply a size)"))?;
            if n > MAX_BUFFER_BYTES {
                return Err(at.err(format!("{path}.bytes"), format!("{n} bytes is more than the {MAX_BUFFER_BYTES}-byte limit")));
            }
            generate(init, n as usize).map_err(|m| at.err(format!("{path}.init"), m))?
        }
    };
    for (i, p) in b.patch.iter().enumerate() {
        let v = p.value.scalar_bytes().ok_or_else(|| at.err(format!("{path}.patch[{i}].value"), format!("{} is not a plain value", p.value.kind())))?;
        let end = p.at.checked_add(v.len() as u64).filter(|&e| e <= bytes.len() as u64);
        let Some(end) = end else {
            return Err(at.err(format!("{path}.patch[{i}].at"), format!("{} bytes at {} do not fit in {} bytes", v.len(), p.at, bytes.len())));
        };
        bytes[p.at as usize..end as usize].copy_from_slice(&v);
    }
    Ok(bytes)
}

fn read_file(at: At, path: &str, dir: &Path, file: &str, size: Option<u64>) -> Result<Vec<u8>, SpecError> {
    let full = files::resolve(dir, file);
    let data = files::read_bounded(&full, MAX_BUFFER_BYTES).map_err(|m| at.err(format!("{path}.init"), m))?;
    match size {
        Some(n) if n != data.len() as u64 => {
            Err(at.err(format!("{path}.bytes"), format!("{n} bytes, but {} holds {} bytes", files::full(&full).display(), data.len())))
        }
        _ => Ok(data),
    }
}

/// Generated contents (everything but `File` and `Values`).
fn generate(init: &Init, bytes: usize) -> Result<Vec<u8>, String> {
    let ty = match init {
        Init::Zero => return Ok(vec![0; bytes]),
        Init::PointerCycle(seed, spacing) => return pointer_cycle(*seed, *spacing, bytes),
        Init::PointerCycleVisits(seed, spacing) => {
            // The spacing does not change the visiting order, but it names the chain this
            // buffer mirrors: a spacing no PointerCycle accepts is a mistake.
            check_spacing("PointerCycleVisits", *spacing)?;
            if bytes % 4 != 0 {
                return Err(format!("{bytes} bytes is not a whole number of u32 entry numbers"));
            }
            return Ok(pointer_visits(*seed, bytes / 4));
        }
        Init::RandomCycle(_) => Ty::U32,
        Init::Iota(t) | Init::Linear(t, ..) | Init::Const(t, _) | Init::Random(t, _) | Init::RandomInt(t, ..) => *t,
        Init::Values(..) | Init::File(_) => return Err("internal: not a generated init".into()),
    };
    if bytes % ty.size() != 0 {
        return Err(format!("{bytes} bytes is not a whole number of {} elements", ty.name()));
    }
    let n = bytes / ty.size();
    let mut out = Vec::with_capacity(bytes);
    match init {
        Init::Iota(t) => (0..n).for_each(|i| encode_int(*t, i as i128, &mut out)),
        Init::Linear(t, start, step) => linear(*t, start.as_f64(), step.as_f64(), n, &mut out)?,
        Init::Const(t, v) => {
            let mut one = Vec::new();
            encode(*t, *v, &mut one)?;
            out = one.repeat(n);
        }
        Init::Random(t, seed) => random(*t, *seed, n, &mut out),
        Init::RandomInt(t, lo, hi, seed) => random_int(*t, *lo, *hi, *seed, n, &mut out)?,
        Init::RandomCycle(seed) => random_cycle(*seed, n, &mut out)?,
        _ => {}
    }
    Ok(out)
}

fn linear(t: Ty, start: f64, step: f64, n: usize, out: &mut Vec<u8>) -> Result<(), String> {
    if let Some((lo, hi)) = t.int_range() {
        let last = start + step * n.saturating_sub(1) as f64;
        let ok = |x: f64| x.fract() == 0.0 && x >= lo as f64 && x <= hi as f64;
        if n > 0 && !(ok(start) && ok(last) && step.fract() == 0.0) {
            return Err(format!("Linear({start}, {step}) leaves the {} range or is not integral", t.name()));
        }
        // Integer arithmetic, so large u64 values stay exact.
        (0..n).for_each(|i| encode_int(t, start as i128 + step as i128 * i as i128, out));
    } else {
        (0..n).for_each(|i| encode_float(t, start + step * i as f64, out));
    }
    Ok(())
}

/// Integers: uniform bits; floats: uniform in [-1, 1) on a grid of 2^-9 (f16) / 2^-23 (f32) /
/// 2^-52 (f64).
fn random(t: Ty, seed: u64, n: usize, out: &mut Vec<u8>) {
    let mut rng = StdRng::seed_from_u64(seed);
    for _ in 0..n {
        let bits: u64 = rng.random();
        match t {
            // A grid of 2^-9: every point is exact in binary16.
            Ty::F16 => out.extend_from_slice(&(d2h(((bits >> 54) as f64) * (1.0 / 512.0) - 1.0) as u16).to_le_bytes()),
            Ty::F32 => out.extend_from_slice(&(((bits >> 40) as f32) * (1.0 / (1u64 << 23) as f32) - 1.0).to_le_bytes()),
            Ty::F64 => out.extend_from_slice(&(((bits >> 11) as f64) * (1.0 / (1u64 << 52) as f64) - 1.0).to_le_bytes()),
            _ => out.extend_from_slice(&bits.to_le_bytes()[..t.size()]),
        }
    }
}

fn random_int(t: Ty, lo: i64, hi: i64, seed: u64, n: usize, out: &mut Vec<u8>) -> Result<(), String> {
    if lo > hi {
        return Err(format!("RandomInt range {lo}..={hi} is empty"));
    }
    // Float buffers hold the integers exactly only up to 2^11 (f16) / 2^24 (f32) / 2^53 (f64) in magnitude;
    // past that the values would round and exact float arithmetic is lost.
    let (tlo, thi) = match t {
        Ty::F16 => (-(1i128 << 11), 1i128 << 11),
        Ty::F32 => (-(1i128 << 24), 1i128 << 24),
        Ty::F64 => (-(1i128 << 53), 1i128 << 53),
        _ => t.int_range().unwrap_or((i128::MIN, i128::MAX)),
    };
    if (lo as i128) < tlo || (hi as i128) > thi {
        return Err(format!("RandomInt range {lo}..={hi} leaves the integers {} holds exactly ({tlo}..={thi})", t.name()));
    }
    let mut rng = StdRng::seed_from_u64(seed);
    let mut draw = || rng.random_range(lo..=hi);
    // A small range (the usual -4..=4) is encoded once per value, not once per element.
    let span = usize::try_from(hi as i128 - lo as i128).ok().filter(|&s| s < 1 << 16);
    let Some(span) = span else {
        (0..n).for_each(|_| encode_int(t, draw() as i128, out));
        return Ok(());
    };
    let mut table = Vec::with_capacity((span + 1) * t.size());
    (lo..=hi).for_each(|v| encode_int(t, v as i128, &mut table));
    let start = out.len();
    out.resize(start + n * t.size(), 0);
    let index = || (draw() as i128 - lo as i128) as usize;
    match t.size() {
        1 => pick::<1>(&table, &mut out[start..], index),
        2 => pick::<2>(&table, &mut out[start..], index),
        4 => pick::<4>(&table, &mut out[start..], index),
        _ => pick::<8>(&table, &mut out[start..], index),
    }
    Ok(())
}

/// Fill `out`'s `S`-byte elements with the `table` entries `index` names in turn.
fn pick<const S: usize>(table: &[u8], out: &mut [u8], mut index: impl FnMut() -> usize) {
    let table: Vec<[u8; S]> = table.chunks_exact(S).filter_map(|e| e.try_into().ok()).collect();
    for e in out.chunks_exact_mut(S) {
        if let Some(v) = table.get(index()) {
            e.copy_from_slice(v);
        }
    }
}

/// Sattolo's algorithm: a uniformly random permutation that is a single cycle.
fn random_cycle(seed: u64, n: usize, out: &mut Vec<u8>) -> Result<(), String> {
    if n > u32::MAX as usize {
        return Err("RandomCycle holds u32 indices: at most 2^32 - 1 elements".into());
    }
    let mut rng = StdRng::seed_from_u64(seed);
    let mut next: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        let j = rng.random_range(0..i);
        next.swap(i, j);
    }
    next.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
    Ok(())
}

/// Successor of every entry in one random cycle through `n` entries (Sattolo's algorithm).
fn cycle_successors(seed: u64, n: usize) -> Vec<u64> {
    let mut next: Vec<u64> = (0..n as u64).collect();
    let mut rng = StdRng::seed_from_u64(seed);
    for i in (1..n).rev() {
        let j = rng.random_range(0..i);
        next.swap(i, j);
    }
    next
}

/// Entries every `spacing` bytes holding the byte offset of the next entry; one random cycle
/// through all entries.
fn pointer_cycle(seed: u64, spacing: u64, bytes: usize) -> Result<Vec<u8>, String> {
    check_spacing("PointerCycle", spacing)?;
    if bytes as u64 % spacing != 0 {
        return Err(format!("{bytes} bytes is not a whole number of {spacing}-byte entries"));
    }
    let n = (bytes as u64 / spacing) as usize;
    let mut out = vec![0u8; bytes];
    for (e, next) in cycle_successors(seed, n).into_iter().enumerate() {
        let at = e * spacing as usize;
        out[at..at + 8].copy_from_slice(&(next * spacing).to_le_bytes());
    }
    Ok(out)
}

/// Entries hold u64 offsets: the spacing must be a positive multiple of 8.
fn check_spacing(kind: &str, spacing: u64) -> Result<(), String> {
    if spacing == 0 || spacing % 8 != 0 {
        return Err(format!("{kind} spacing {spacing} is not a positive multiple of 8 bytes"));
    }
    Ok(())
}

/// The entries of `PointerCycle(seed, _)` over `n` entries in visiting order from entry 0.
fn pointer_visits(seed: u64, n: usize) -> Vec<u8> {
    let next = cycle_successors(seed, n);
    let mut out = Vec::with_capacity(4 * n);
    let mut e = 0u64;
    for _ in 0..n {
        out.extend_from_slice(&(e as u32).to_le_bytes());
        e = next.get(e as usize).copied().unwrap_or(0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::model::Num;

    fn u32s(b: &[u8]) -> Vec<u32> {
        b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
    }

    #[test]
    fn generated_inits() {
        assert_eq!(u32s(&generate(&Init::Iota(Ty::U32), 12).unwrap()), [0, 1, 2]);
        assert_eq!(u32s(&generate(&Init::Linear(Ty::U32, Num::Int(5), Num::Int(3)), 12).unwrap()), [5, 8, 11]);
        assert!(generate(&Init::Iota(Ty::U32), 10).is_err());
        let a = generate(&Init::Random(Ty::F32, 7), 4000).unwrap();
        assert_eq!(a, generate(&Init::Random(Ty::F32, 7), 4000).unwrap(), "seeded");
        assert!(a.chunks_exact(4).all(|c| (-1.0..1.0).contains(&f32::from_le_bytes([c[0], c[1], c[2], c[3]]))));
        let r = u32s(&generate(&Init::RandomInt(Ty::U32, 3, 5, 1), 4000).unwrap());
        assert!(r.iter().all(|v| (3..=5).contains(v)) && r.contains(&3) && r.contains(&5));
    }

    #[test]
    fn random_cycle_visits_everything_once() {
        let chain = generate(&Init::PointerCycle(3, 64), 64 * 100).unwrap();
        let mut at = 0usize;
        let mut seen = std::collections::HashSet::new();
        for _ in 0..100 {
            assert!(seen.insert(at), "one cycle through all entries");
            at = u64::from_le_bytes(chain[at..at + 8].try_into().unwrap()) as usize;
            assert_eq!(at % 64, 0);
        }
        assert_eq!((at, seen.len()), (0, 100));
        let visits = u32s(&generate(&Init::PointerCycleVisits(3, 64), 4 * 100).unwrap());
        let mut at = 0usize;
        for &v in &visits {
            assert_eq!(v as usize * 64, at, "visiting order follows the chain");
            at = u64::from_le_bytes(chain[at..at + 8].try_into().unwrap()) as usize;
        }
        assert!(generate(&Init::PointerCycle(3, 12), 120).is_err());
        let next = u32s(&generate(&Init::RandomCycle(9), 4 * 1000).unwrap());
        let mut seen = vec![false; 1000];
        let mut p = 0usize;
        for _ in 0..1000 {
            assert!(!seen[p]);
            seen[p] = true;
            p = next[p] as usize;
        }
        assert_eq!(p, 0);
    }
}
