//! `fuzzing::fuzz_one` (the `litmus` cargo-fuzz target) on thousands of seeded mutations of
//! the committed litmus files — the workload cases, the fuzz seeds of every dialect, and the
//! copied catalogues when present — and on the generated hostile files of
//! `common::pathological`. Every input must end in an outcome (rejected with a located line,
//! too large, judged) on a thread with a 2 MiB stack, within a time bound: no panic, no stack
//! overflow, no hang.
//!
//! Mutations work on bytes and tokens: flip, delete, duplicate or insert a byte range; swap
//! lines; splice a token from another seed (often of another dialect); repeat a token many
//! times (long chains and deep nesting); insert hostile text (a byte-order mark, NUL, huge
//! numbers, `thread 2048`, `xcd 99`, `wave 5`, connectives, brackets).

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use hipscope_grade::fuzzing::{fuzz_one, Outcome, BUILDS};

use crate::common;

use common::{pathological, Draw, SplitMix};

/// Mutants in all, spread over the seeds in turn.
const MUTANTS: usize = 4000;
/// Longest one input may take: most take microseconds, a judged and reported one
/// milliseconds.
const CASE_LIMIT: Duration = Duration::from_secs(20);
/// The stack the thread of each case runs on: Rust's default for spawned threads, a quarter
/// of the main thread's, so that recursion the limits leave is checked with a margin.
const STACK_BYTES: usize = 2 * 1024 * 1024;

/// Text that makes parsers and later layers work hard.
const HOSTILE: &[&str] = &[
    "\u{feff}",
    "\0",
    "99999999999999999999",
    "-9223372036854775808",
    "0x7fffffffffffffff",
    "thread 2048",
    "xcd 99",
    "wave 5",
    "block 4294967295",
    " /\\ ",
    " \\/ ",
    " && ",
    " || ",
    " => ",
    "~",
    "!",
    "(",
    ")",
    "{",
    "}",
    "[",
    "|",
    ";",
    " + r0",
    "*x",
    "(*",
    "/*",
    "\n",
    "exists (",
    "P0@cta 0,gpu 0",
    "b r0 L ;",
    "L: ;",
];

fn seeds() -> Vec<(PathBuf, Vec<u8>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut dirs = vec![root.join("workloads/litmus"), root.join("workloads/grading"), root.join("fuzz/seeds/litmus")];
    let shared = common::shared_litmus();
    if shared.is_dir() {
        dirs.push(shared);
    } else {
        println!("SKIPPED (catalogue seeds only): ../shared/litmus not found; mutating the committed files alone");
    }
    let mut out: Vec<(PathBuf, Vec<u8>)> =
        dirs.iter().flat_map(|d| common::litmus_under(d)).filter_map(|p| Some((p.clone(), std::fs::read(&p).ok()?))).collect();
    out.sort();
    out
}

/// A byte range of `data` (possibly empty).
fn range(data: &[u8], rng: &mut SplitMix) -> (usize, usize) {
    let a = rng.below(data.len() + 1);
    let b = a + rng.below(data.len() - a + 1).min(64);
    (a, b)
}

/// A token of `data`: a run of word bytes or one other byte.
fn token(data: &[u8], rng: &mut SplitMix) -> Vec<u8> {
    let spans = common::tokens(data, |b: u8| b.is_ascii_alphanumeric() || b == b'_', |b: u8| b.is_ascii_whitespace());
    match spans.get(rng.below(spans.len())) {
        Some(&(a, b)) => data[a..b].to_vec(),
        None => Vec::new(),
    }
}

fn mutate(data: &[u8], other: &[u8], rng: &mut SplitMix) -> Vec<u8> {
    let mut d = data.to_vec();
    let at = rng.below(d.len() + 1);
    match rng.below(9) {
        0 => {
            if let Some(b) = d.get_mut(at) {
                *b ^= 1 << rng.below(8);
            }
        }
        1 => {
            let (a, b) = range(&d, rng);
            d.drain(a..b);
        }
        2 => {
            let (a, b) = range(&d, rng);
            let copy = d[a..b].to_vec();
            d.splice(b..b, copy);
        }
        3 => {
            let mut lines: Vec<&[u8]> = data.split(|b| *b == b'\n').collect();
            let (i, j) = (rng.below(lines.len()), rng.below(lines.len()));
            lines.swap(i, j);
            d = lines.join(&b'\n');
        }
        4 => {
            let t = token(other, rng);
            d.splice(at..at, t);
        }
        5 => {
            // Replace a token by one of another seed, perhaps of another dialect.
            let spans = common::tokens(&d, |b: u8| b.is_ascii_alphanumeric() || b == b'_', |b: u8| b.is_ascii_whitespace());
            if let Some(&(a, b)) = spans.get(rng.below(spans.len())) {
                let t = token(other, rng);
                d.splice(a..b, t);
            }
        }
        6 => {
            // A long repetition: chains, nesting, many rows or threads.
            let unit = if rng.below(2) == 0 { HOSTILE[rng.below(HOSTILE.len())].as_bytes().to_vec() } else { token(&d, rng) };
            let times = [2, 10, 300, 3000, 30_000][rng.below(5)];
            d.splice(at..at, unit.repeat(times));
        }
        7 => {
            // A whole line repeated: many statements or rows.
            let lines: Vec<&[u8]> = data.split(|b| *b == b'\n').collect();
            let line = lines[rng.below(lines.len())];
            let times = [2, 50, 2000][rng.below(3)];
            let mut block = Vec::new();
            for _ in 0..times {
                block.extend_from_slice(line);
                block.push(b'\n');
            }
            let start = d[..at].iter().rposition(|b| *b == b'\n').map_or(0, |p| p + 1);
            d.splice(start..start, block);
        }
        _ => {
            let h = HOSTILE[rng.below(HOSTILE.len())].as_bytes().to_vec();
            d.splice(at..at, h);
        }
    }
    d
}

/// Runs `fuzz_one` on its own thread; `None` if it panicked (or overflowed, which aborts the
/// process: the test then fails with the abort) or ran out of time.
fn run(data: Vec<u8>) -> Result<Outcome, String> {
    let (tx, rx) = mpsc::channel();
    let worker = std::thread::Builder::new().stack_size(STACK_BYTES).spawn(move || {
        let _ = tx.send(fuzz_one(&data));
    });
    let worker = worker.map_err(|e| format!("cannot start a thread: {e}"))?;
    match rx.recv_timeout(CASE_LIMIT) {
        Ok(outcome) => {
            let _ = worker.join();
            Ok(outcome)
        }
        Err(mpsc::RecvTimeoutError::Timeout) => Err(format!("took more than {CASE_LIMIT:?}")),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err("panicked".into()),
    }
}

#[test]
fn mutated_litmus_files_end_in_an_outcome() {
    let seeds = seeds();
    assert!(seeds.len() >= 30, "{} seed files", seeds.len());
    let mut rng = SplitMix(0x6c69_746d_7573_2929);
    let mut counts = std::collections::BTreeMap::new();
    let started = Instant::now();
    for k in 0..MUTANTS {
        let (path, data) = &seeds[k % seeds.len()];
        let other = &seeds[rng.below(seeds.len())].1;
        let mut mutant = data.clone();
        for _ in 0..1 + rng.below(3) {
            mutant = mutate(&mutant, other, &mut rng);
        }
        // A stack overflow aborts the process before the case can be written: with
        // `LITMUS_FUZZ_TRACE` set, each mutant is written before it runs.
        if std::env::var_os("LITMUS_FUZZ_TRACE").is_some() {
            let _ = std::fs::write(std::env::temp_dir().join("litmus-fuzz-current.litmus"), &mutant);
            eprintln!("mutant {k} of {}", path.display());
        }
        match run(mutant.clone()) {
            Ok(outcome) => *counts.entry(outcome).or_insert(0) += 1,
            Err(why) => {
                let out = std::env::temp_dir().join(format!("litmus-fuzz-case-{k}.litmus"));
                let _ = std::fs::write(&out, &mutant);
                panic!("mutant {k} of {}: {why}; written to {}", path.display(), out.display());
            }
        }
    }
    println!("{MUTANTS} mutants of {} seeds in {:?}: {counts:?}", seeds.len(), started.elapsed());
    let judged = counts.get(&Outcome::Judged).copied().unwrap_or(0);
    let rejected = counts.get(&Outcome::Rejected).copied().unwrap_or(0);
    assert!(judged > MUTANTS / 10 && rejected > MUTANTS / 10, "mutations too mild or too harsh: {counts:?}");
}

#[test]
fn seeds_are_judged_and_generated_hostile_files_rejected() {
    for (path, data) in seeds() {
        // Every committed seed parses (the catalogues hold a few tests beyond what the
        // grader supports, which are rejected with a reason).
        let outcome = run(data).unwrap_or_else(|why| panic!("{}: {why}", path.display()));
        if !path.starts_with(common::shared_litmus()) {
            assert!(matches!(outcome, Outcome::Judged | Outcome::TooLarge), "{}: {outcome:?}", path.display());
        }
    }
    for case in pathological::all() {
        let outcome = run(case.text.into_bytes()).unwrap_or_else(|why| panic!("{}: {why}", case.name));
        assert_eq!(outcome, Outcome::Rejected, "{}", case.name);
    }
}

/// The largest inputs the limits allow go through every layer — parse, the three models,
/// the whole report, the ISA listing and the hardware kernel of a build of each family — on
/// a 2 MiB stack: the recursion the limits leave fits with a margin.
#[test]
fn inputs_at_the_limits_go_through_every_layer_on_a_small_stack() {
    use hipscope_grade::{hardware, litmus, model, report};
    use hipscope_mm::lower;
    for (name, text) in pathological::at_the_limits() {
        let worker = std::thread::Builder::new().stack_size(STACK_BYTES).spawn(move || {
            let path = std::path::Path::new("limits.litmus");
            let test = litmus::parse(path, &text).unwrap_or_else(|e| panic!("{e}"));
            let lines: Vec<&str> = text.lines().collect();
            for m in [model::Model::Hip, model::Model::Hsa, model::Model::Opencl] {
                if let Ok((r, _)) = report::grade("limits.litmus", &test, m, &lines) {
                    let _ = report::text(&r);
                }
            }
            // One build per ISA family (compiling a thousand statements takes a while).
            for (_, target) in lower::CONFIGS.iter().filter(|(n, _)| BUILDS.contains(n)) {
                let _ = report::emitted(&test, target);
                let _ = hardware::compile(&test, target);
            }
            fuzz_one(text.as_bytes())
        });
        let outcome = worker.expect("thread starts").join().unwrap_or_else(|_| panic!("{name}: panicked"));
        assert!(matches!(outcome, Outcome::Judged | Outcome::TooLarge), "{name}: {outcome:?}");
    }
}
