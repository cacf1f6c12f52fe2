//! HIP-Examples' mini-nbody (`workloads/nbody`, built by its `build.sh`) under `hipscope exec
//! --mode functional` at 1, 2 and 3 host threads: the final bodies must be bit-identical for
//! every thread count, and they must be those of a CPU reference written here from the
//! program's source (glibc's `rand()` for the start, the all-pairs force loop, the host's
//! integration), within a tolerance that allows the reference's rounding to differ from the
//! device code's. The `_check` builds print the bodies at the end (`result_dump.h`); the
//! program itself is unchanged.

use crate::bounded;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Bodies: 4 work-groups of the program's 256 work-items, enough for every thread count.
const BODIES: usize = 1024;
/// The program's time step and iterations (`nbody-orig.cpp`: `dt = 0.01f`, `nIters = 10`).
const DT: f32 = 0.01;
const ITERATIONS: usize = 10;
/// The program's softening (`SOFTENING 1e-9f`).
const SOFTENING: f32 = 1e-9;

fn program(name: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads/nbody/bin").join(name);
    assert!(p.is_file(), "{} is missing (workloads/nbody/build.sh builds it)", p.display());
    p
}

/// The floats the program printed (one `%a` per line), in order.
fn bodies(name: &str, threads: u32) -> Vec<f32> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hipscope"));
    cmd.args(["exec", "--gpu", "mi300a", "--mode", "functional", "--threads", &threads.to_string(), "--"]).arg(program(name)).arg(BODIES.to_string());
    let ended = bounded::run(&mut cmd, Duration::from_secs(600));
    assert!(!ended.timed_out, "{name} --threads {threads}: stopped after 600 s");
    assert_eq!(ended.code, Some(0), "{name} --threads {threads}: exit {:?}\n{}", ended.code, ended.stderr);
    let values: Vec<f32> = ended.stdout.lines().filter_map(hex_float).collect();
    values
}

/// A C99 hexadecimal float (`-0x1.8p-3`, `0x0p+0`) as printed by `printf("%a")` of a float.
fn hex_float(s: &str) -> Option<f32> {
    let (neg, rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (mantissa, exp) = rest.strip_prefix("0x")?.split_once('p')?;
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = u64::from_str_radix(&format!("{int}{frac}"), 16).ok()?;
    let exp: i32 = exp.parse().ok()?;
    // Exact: a float's digits fit a double, and the scaling is a power of two.
    let v = digits as f64 * 2f64.powi(exp - 4 * frac.len() as i32);
    Some(if neg { -v as f32 } else { v as f32 })
}

/// glibc's `rand()` from the default seed (1): the additive generator of its TYPE_3 state,
/// r[i] = r[i-31] + r[i-3], seeded by 16807·r mod (2³¹−1), the first 310 outputs discarded.
fn glibc_rand(count: usize) -> Vec<u32> {
    let mut r: Vec<i64> = vec![1];
    for i in 1..31 {
        r.push((16807 * r[i - 1]) % 2_147_483_647);
    }
    for i in 31..34 {
        r.push(r[i - 31]);
    }
    let mut r: Vec<u32> = r.into_iter().map(|v| v as u32).collect();
    for i in 34..344 + count {
        let v = r[i - 31].wrapping_add(r[i - 3]);
        r.push(v);
    }
    r[344..].iter().map(|v| v >> 1).collect()
}

/// The program's result computed on the CPU, in its order of operations (the device code
/// contracts `a*b + c` into fused multiply-adds; the host code, built for baseline x86-64, does
/// not).
fn reference() -> Vec<f32> {
    let mut p: Vec<f32> = glibc_rand(6 * BODIES).iter().map(|&v| 2.0f32 * (v as f32 / 2_147_483_647u32 as f32) - 1.0).collect();
    for _ in 0..ITERATIONS {
        let start = p.clone();
        for i in 0..BODIES {
            let (xi, yi, zi) = (start[6 * i], start[6 * i + 1], start[6 * i + 2]);
            let (mut fx, mut fy, mut fz) = (0.0f32, 0.0f32, 0.0f32);
            for j in 0..BODIES {
                let (dx, dy, dz) = (start[6 * j] - xi, start[6 * j + 1] - yi, start[6 * j + 2] - zi);
                let dist_sqr = dz.mul_add(dz, dx * dx + dy * dy) + SOFTENING;
                let inv_dist = 1.0 / dist_sqr.sqrt();
                let inv_dist3 = inv_dist * (inv_dist * inv_dist);
                fx = dx.mul_add(inv_dist3, fx);
                fy = dy.mul_add(inv_dist3, fy);
                fz = dz.mul_add(inv_dist3, fz);
            }
            p[6 * i + 3] = fx.mul_add(DT, p[6 * i + 3]);
            p[6 * i + 4] = fy.mul_add(DT, p[6 * i + 4]);
            p[6 * i + 5] = fz.mul_add(DT, p[6 * i + 5]);
        }
        for b in p.chunks_exact_mut(6) {
            b[0] += b[3] * DT;
            b[1] += b[4] * DT;
            b[2] += b[5] * DT;
        }
    }
    p
}

#[test]
fn glibc_rand_matches_its_published_first_outputs() {
    // The first outputs of glibc's rand() without srand (seed 1), as every glibc prints them.
    assert_eq!(glibc_rand(3), [1_804_289_383, 846_930_886, 1_681_692_777]);
}

#[test]
fn nbody_orig_is_the_same_on_1_2_and_3_threads_and_matches_the_cpu() {
    let one = bodies("nbody-orig_check", 1);
    assert_eq!(one.len(), 6 * BODIES, "one float per line, 6 per body");
    for threads in [2, 3] {
        let other = bodies("nbody-orig_check", threads);
        let same = one.iter().zip(&other).all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(same && other.len() == one.len(), "--threads {threads} differs from --threads 1");
    }
    let want = reference();
    // Close encounters amplify a rounding difference step by step: relative to the value,
    // or to 1 for values near zero.
    let worst = one.iter().zip(&want).map(|(g, c)| (g - c).abs() / c.abs().max(1.0)).fold(0.0f32, f32::max);
    assert!(worst <= 1e-3, "largest difference from the CPU reference {worst}");
}
