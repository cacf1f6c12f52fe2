//! Mutated GPU configs never crash: the built-in `configs/*.ron` are mutated in many seeded
//! ways (numbers zeroed, scaled, made huge or negative; fields dropped or duplicated; bytes
//! flipped; text cut short) and every mutant must load with an error naming the file, or load
//! and run a small kernel in timing mode to a result or an error — never a panic, an abort
//! (allocation failure) or a hang.
//!
//! Which kernel a loaded mutant runs rotates over global loads and stores (vadd), LDS with
//! bank conflicts (lds_reduce) and scratch (private_gather), so mutated LDS and cache shapes
//! are exercised. A config only changes timing, never values, so every run that finishes must
//! also produce the right answer.

use hipscope_sim::gpus::GpuConfig;
use hipscope_sim::spec::{self, RunOptions};
use hipscope_studies::references::BUILT_IN;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const CASES: usize = 2000;
/// A mutant that loads must finish its kernel within this (the valid built-ins take ~10 ms).
const RUN_LIMIT: Duration = Duration::from_secs(20);

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The built-in configs as text, read from disk (not through the code under test).
fn seeds() -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = std::fs::read_dir(root().join("configs"))
        .expect("configs/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "ron"))
        .map(|p| (p.display().to_string(), std::fs::read_to_string(&p).expect("config text")))
        .collect();
    v.sort();
    assert!(v.len() >= 9, "expected the nine built-in configs");
    v
}

/// Byte ranges of the numbers outside comments.
fn numbers(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let code = line.find("//").map_or(line, |c| &line[..c]);
        let b = code.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i].is_ascii_digit() && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) {
                let s = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                out.push((line_start + s, line_start + i));
            } else {
                i += 1;
            }
        }
        line_start += line.len();
    }
    out
}

/// Lines that hold one `field: value,`.
fn field_lines(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let code = line.find("//").map_or(line, |c| &line[..c]).trim();
        if code.contains(':') && code.ends_with(',') {
            out.push((at, at + line.len()));
        }
        at += line.len();
    }
    out
}

fn new_number(rng: &mut StdRng, old: u64) -> String {
    match rng.random_range(0..12) {
        0 => "0".into(),
        1 => "1".into(),
        2 => old.saturating_mul(rng.random_range(2..=16)).to_string(),
        3 => old.saturating_mul(1000).to_string(),
        4 => old.saturating_mul(1_000_000).to_string(),
        5 => (old / rng.random_range(2..=64)).to_string(),
        6 => u32::MAX.to_string(),
        7 => u64::MAX.to_string(),
        8 => format!("-{old}"),
        9 => old.saturating_add(1).to_string(),
        10 => old.saturating_sub(1).to_string(),
        _ => (1u64 << rng.random_range(0..40)).to_string(),
    }
}

/// One to three mutations of `text`.
fn mutate(rng: &mut StdRng, text: &str) -> String {
    let mut t = text.to_string();
    for _ in 0..rng.random_range(1..=3) {
        match rng.random_range(0..10) {
            0..=5 => {
                let nums = numbers(&t);
                if let Some(&(s, e)) = nums.get(rng.random_range(0..nums.len().max(1))) {
                    let old = t[s..e].parse::<u64>().unwrap_or(0);
                    let n = new_number(rng, old);
                    t.replace_range(s..e, &n);
                }
            }
            6 => {
                let lines = field_lines(&t);
                if let Some(&(s, e)) = lines.get(rng.random_range(0..lines.len().max(1))) {
                    t.replace_range(s..e, "");
                }
            }
            7 => {
                let lines = field_lines(&t);
                if let Some(&(s, e)) = lines.get(rng.random_range(0..lines.len().max(1))) {
                    let line = t[s..e].to_string();
                    t.insert_str(e, &line);
                }
            }
            8 => {
                let mut b = t.into_bytes();
                let i = rng.random_range(0..b.len());
                b[i] ^= 1 << rng.random_range(0..8);
                t = String::from_utf8_lossy(&b).into_owned();
            }
            _ => {
                let cut = rng.random_range(0..t.len());
                let cut = (0..=cut).rev().find(|&c| t.is_char_boundary(c)).unwrap_or(0);
                t.truncate(cut);
            }
        }
    }
    t
}

/// The small spec `which` (0 vadd, 1 lds_reduce, 2 private_gather) with every build of it.
fn small_spec(which: usize) -> (PathBuf, spec::Spec) {
    let vadd = std::fs::read_to_string(root().join("workloads/vadd.ron")).expect("workloads/vadd.ron");
    let (co, body) = match which {
        0 => (
            "vadd.co",
            r#"buffers: { "a": (bytes: 2048, init: Random(F32, 1)), "b": (bytes: 2048, init: Random(F32, 2)), "c": (bytes: 2048, init: Const(F32, -7)) },
  dispatches: [ (kernel: "vadd", grid: (512, 1, 1), block: (256, 1, 1), args: [Buffer("a"), Buffer("b"), Buffer("c"), U32(500)]) ],
  expect: [ (buffer: "c", equals: Reference("vadd")) ],"#,
        ),
        1 => (
            "lds.co",
            r#"buffers: { "in": (bytes: 2048, init: Random(U32, 10)), "out": (bytes: 160, init: Const(U32, 12345)) },
  dispatches: [ (kernel: "lds_reduce", grid: (512, 1, 1), block: (256, 1, 1), args: [Buffer("in"), Buffer("out"), U32(500)]) ],
  expect: [ (buffer: "out", equals: Reference("lds")) ],"#,
        ),
        _ => (
            "private.co",
            r#"buffers: { "in": (bytes: 1024, init: RandomInt(U32, 0, 1000000, 11)), "out": (bytes: 1024, init: Const(U32, 7)) },
  dispatches: [ (kernel: "private_gather", grid: (256, 1, 1), block: (256, 1, 1), args: [Buffer("in"), Buffer("out"), U32(250)]) ],
  expect: [ (buffer: "out", equals: Reference("private")) ],"#,
        ),
    };
    let objects: Vec<String> = vadd.lines().filter(|l| l.contains("\"bin/")).map(|l| l.replace("vadd.co", co)).collect();
    assert!(objects.len() >= 7, "vadd.ron lists a build per processor");
    let text = format!("Run(\n  code_objects: {{\n{}\n  }},\n  {body}\n)", objects.join("\n"));
    let path = root().join(format!("workloads/mutant-{which}.ron"));
    let s = spec::parse(&text, &path).unwrap_or_else(|e| panic!("{e}"));
    (path, s)
}

/// What a mutant did.
enum Outcome {
    Rejected,
    Ran,
    Refused(String),
}

/// Load `text`; if it loads, run spec `which` on it in timing mode.
fn one(text: &str, which: usize) -> Outcome {
    let cfg = match GpuConfig::from_ron(text, "mutant.ron") {
        Err(e) => {
            let m = e.to_string();
            assert!(m.starts_with("mutant.ron") && !m.contains('\n'), "error does not name the file on one line: {m}");
            return Outcome::Rejected;
        }
        Ok(c) => c,
    };
    let (path, s) = small_spec(which);
    let opts = RunOptions { mode: hipscope_sim::Mode::Timing, references: Some(BUILT_IN), ..RunOptions::default() };
    match spec::runner::run_on(&s, &path, &opts, &cfg) {
        Ok(r) => {
            assert!(r.passed(), "config changed a kernel's result: {:?}", r.checks.iter().find(|c| !c.ok).map(|c| &c.detail));
            Outcome::Ran
        }
        Err(e) => Outcome::Refused(e.to_string()),
    }
}

#[test]
fn mutated_gpu_configs_error_or_run() {
    let start = Instant::now();
    let seeds = seeds();
    let mut rng = StdRng::seed_from_u64(0x6770_755f_6366_6701);
    let (mut rejected, mut ran, mut refused) = (0, 0, 0);
    let mut slowest = (Duration::ZERO, String::new());
    for case in 0..CASES {
        let (name, text) = &seeds[case % seeds.len()];
        let mutant = mutate(&mut rng, text);
        let which = case % 3;
        // A thread per case, so a hang fails the test instead of stalling it.
        let (tx, rx) = mpsc::channel();
        let m = mutant.clone();
        let t0 = Instant::now();
        std::thread::spawn(move || {
            let r = catch_unwind(AssertUnwindSafe(|| one(&m, which)));
            let _ = tx.send(r.map_err(|p| p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()));
        });
        let outcome = match rx.recv_timeout(RUN_LIMIT) {
            Ok(Ok(o)) => o,
            Ok(Err(panic)) => panic!("case {case} (mutant of {name}) panicked: {panic}\n--- mutant ---\n{mutant}"),
            Err(_) => panic!("case {case} (mutant of {name}) did not finish within {RUN_LIMIT:?}\n--- mutant ---\n{mutant}"),
        };
        let took = t0.elapsed();
        if took > slowest.0 {
            slowest = (took, format!("case {case} ({name})"));
        }
        match outcome {
            Outcome::Rejected => rejected += 1,
            Outcome::Ran => ran += 1,
            Outcome::Refused(e) => {
                assert!(!e.contains('\n'), "multi-line error: {e}");
                refused += 1
            }
        }
    }
    println!(
        "{CASES} mutated configs: {rejected} rejected, {ran} ran a kernel, {refused} refused the launch; slowest {:?} ({}); total {:?}",
        slowest.0,
        slowest.1,
        start.elapsed()
    );
    assert!(ran >= CASES / 10, "too few mutants loaded ({ran}): the mutations no longer exercise the engine");
    assert!(rejected >= CASES / 10, "too few mutants rejected ({rejected}): the mutations are too mild");
}
