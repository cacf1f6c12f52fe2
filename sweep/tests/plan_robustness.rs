//! A damaged sweep plan never panics, aborts, hangs or allocates what its size does not
//! justify: seeded mutations of the committed plans (`workloads/sweeps/*.ron`,
//! `tests/sweeps/*.ron`) go through `hipscope_sweep::fuzzing::fuzz_one` (the function the
//! `sweep_plan` cargo-fuzz target calls: parse, check, count the points, and make them with
//! every config checked when there are at most 2 000), each with a time bound. Every case must
//! end in an outcome: not text, refused with a one-line error, counted, or expanded.
//!
//! Mutations: numbers replaced by extreme ones (zero, negative, 1e-300, 1e300, NaN, the
//! integer limits); field names by other config fields or by text that is not one; keys an
//! axis does not have; an axis duplicated (a field on two axes) or replaced by large ranges;
//! zips nested; metric and scope names damaged; runs and seeds at their limits; bytes flipped,
//! deleted or inserted; truncation. A failing case is written to
//! `target/plan-robustness/case-N.ron`, an input the fuzz target replays.

use hipscope_sweep::fuzzing::{fuzz_one, Outcome};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Cases in all (spread over the plans in turn).
const CASES: usize = 12_000;
/// Longest a case may take: reading a plan takes microseconds, making 2 000 points tens of
/// milliseconds.
const CASE_LIMIT: Duration = Duration::from_secs(10);

/// Numbers a plan should survive anywhere a number goes.
const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "1e-300",
    "1e300",
    "-1e300",
    "NaN",
    "inf",
    "-inf",
    "0.0",
    "-0.0",
    "0.1",
    "1000",
    "100001",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "340282366920938463463374607431768211456",
];

/// Config fields and things that look like them.
const FIELDS: &[&str] = &[
    "compute_units",
    "wave_size",
    "mode",
    "timing.l2.size_bytes",
    "timing.topology.xcds",
    "timing.clock_mhz",
    "timing.dram.bandwidth_gb_per_s",
    "timing",
    "timing.l2",
    "timing.l2.size_bytes.x",
    "",
    ".",
    "..",
    "name",
    "origin",
    "processor",
    "timing.l2.size_byte",
];

/// Whole axes spliced into `axes: [`.
const AXES: &[&str] = &[
    r#"Range(field: "compute_units", start: 1, end: 1000, step: 1), Range(field: "timing.l2.size_bytes", start: 1, end: 1000, step: 1), Range(field: "timing.clock_mhz", start: 1, end: 1000, step: 1),"#,
    r#"Range(field: "compute_units", start: 0, end: 1, step: 1e-300),"#,
    r#"Range(field: "compute_units", start: 0, end: 1e300, step: 1e-300),"#,
    r#"Range(field: "compute_units", start: 8, end: 104, step: 0),"#,
    r#"Range(field: "compute_units", start: 8, end: 104, step: -8),"#,
    r#"Range(field: "compute_units", start: "1 GiB", end: "4 GiB", step: "1 B"),"#,
    r#"Range(field: "timing.clock_mhz", start: 0.1, end: 0.3, step: 0.1),"#,
    r#"Axis(field: "compute_units", values: [8, 16], step: 2),"#,
    r#"Zip([Zip([Zip([Axis(field: "compute_units", values: [8, 16])])])]),"#,
    r#"Zip([]),"#,
    r#"Zip([Axis(field: "compute_units", values: [8, 16]), Axis(field: "wave_size", values: [64])]),"#,
    r#"Axis(field: "compute_units", values: []),"#,
    r#"Axis(field: "mode", values: ["CU", "WGP", "CU"]),"#,
    r#"Axis(field: "timing.l2.size_bytes", values: ["4 MiB", 4194304]),"#,
    r#"Range(field: "compute_units", start: 1, end: 400, step: 1),"#,
    r#"Range(field: "timing.l2.size_bytes", start: "1 MiB", end: "8 MiB", step: "1 MiB"),"#,
];

/// Other damage spliced anywhere.
const SPLICES: &[&str] = &[
    "runs: 0,",
    "runs: 18446744073709551615,",
    "seeds: [0, 0],",
    "seeds: [],",
    r#"metrics: ["cycles", "cycles"],"#,
    r#"metrics: ["scope:ping_pong:agent:0:one_wave"],"#,
    r#"ops: ["fence_acq_rell"],"#,
    r#"footprints: [4096],"#,
    r#"contentions: ["all_cu"],"#,
    r#"title: Some(""),"#,
    "(",
    ")",
    "[",
    "]",
    "\"",
    ",",
    "Zip([",
    "\u{0}",
    "\u{feff}",
];

fn plans() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for dir in ["workloads/sweeps", "tests/sweeps"] {
        let mut files: Vec<PathBuf> =
            std::fs::read_dir(root.join(dir)).unwrap().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "ron")).collect();
        files.sort();
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            out.push((f, text));
        }
    }
    out
}

struct Mutator {
    rng: StdRng,
}

impl Mutator {
    fn pick<'a>(&mut self, v: &[&'a str]) -> &'a str {
        v[self.rng.random_range(0..v.len())]
    }

    /// A char boundary of `s` at random.
    fn at(&mut self, s: &str) -> usize {
        let mut i = self.rng.random_range(0..=s.len());
        while !s.is_char_boundary(i) {
            i -= 1;
        }
        i
    }

    /// Spans of `s` matching `is` (runs of such chars), as byte ranges.
    fn spans(s: &str, is: impl Fn(char) -> bool) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        let mut start = None;
        for (i, c) in s.char_indices().chain([(s.len(), ' ')]) {
            match (start, is(c) && i < s.len()) {
                (None, true) => start = Some(i),
                (Some(a), false) => {
                    v.push((a, i));
                    start = None;
                }
                _ => {}
            }
        }
        v
    }

    fn replace_span(&mut self, s: &mut String, spans: &[(usize, usize)], with: &str) {
        if spans.is_empty() {
            return;
        }
        let (a, b) = spans[self.rng.random_range(0..spans.len())];
        s.replace_range(a..b, with);
    }

    /// The mutated plan as bytes, and the mutation's name.
    fn plan(&mut self, text: &str) -> (Vec<u8>, &'static str) {
        let mut s = text.to_string();
        let kind = match self.rng.random_range(0..24) {
            0..=4 => {
                let spans = Self::spans(&s, |c| c.is_ascii_digit() || c == '.' || c == '-');
                for _ in 0..self.rng.random_range(1..=3) {
                    let n = self.pick(NUMBERS);
                    self.replace_span(&mut s, &spans, n);
                }
                "numbers"
            }
            5..=7 => {
                // The text of a string (a field, a metric, a name, a value).
                let spans: Vec<(usize, usize)> = Self::spans(&s, |c| c != '"').into_iter().filter(|&(a, _)| a > 0 && s.as_bytes()[a - 1] == b'"').collect();
                let f = self.pick(FIELDS);
                self.replace_span(&mut s, &spans, f);
                "string"
            }
            8..=11 => {
                if let Some(i) = s.find("axes: [") {
                    let a = self.pick(AXES);
                    s.insert_str(i + "axes: [".len(), a);
                }
                "axes"
            }
            12..=13 => {
                // An existing axis twice: a field on two axes.
                if let Some(i) = s.find("Axis(") {
                    // An `Axis(...)` holds no parenthesis of its own.
                    if let Some(k) = s[i..].find(')') {
                        let axis = s[i..i + k + 1].to_string();
                        s.insert_str(i, &format!("{axis}, "));
                    }
                }
                "axis twice"
            }
            14..=16 => {
                let at = self.at(&s);
                let x = self.pick(SPLICES);
                s.insert_str(at, x);
                "splice"
            }
            17..=19 => {
                let mut b = s.into_bytes();
                for _ in 0..self.rng.random_range(1..=8) {
                    let i = self.rng.random_range(0..b.len());
                    // Mostly ASCII (a plan that is still text); now and then any byte.
                    match self.rng.random_range(0..8) {
                        0..=2 => b[i] ^= 1 << self.rng.random_range(0..7),
                        3..=4 => {
                            b.remove(i);
                        }
                        5..=6 => b.insert(i, self.rng.random_range(0x20..0x7f)),
                        _ => b.insert(i, self.rng.random()),
                    }
                }
                return (b, "bytes");
            }
            20..=21 => {
                let keep = self.at(&s);
                s.truncate(keep);
                "truncation"
            }
            _ => "none",
        };
        (s.into_bytes(), kind)
    }
}

#[test]
fn mutated_plans_never_panic_abort_or_hang() {
    let plans = plans();
    assert!(plans.len() >= 6, "the committed plans: {}", plans.len());
    let mut m = Mutator { rng: StdRng::seed_from_u64(0x005e_ed29) };
    let out_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/plan-robustness");
    let started = Instant::now();
    let mut outcomes: BTreeMap<Outcome, usize> = BTreeMap::new();
    let mut by_kind: BTreeMap<(&str, Outcome), usize> = BTreeMap::new();
    let mut slowest = (Duration::ZERO, String::new());
    // One thread runs the cases, so that a hang is reported instead of stalling the test.
    let (to_worker, cases) = mpsc::channel::<Vec<u8>>();
    let (to_test, answers) = mpsc::channel::<Outcome>();
    std::thread::spawn(move || {
        for input in cases {
            if to_test.send(fuzz_one(&input)).is_err() {
                break;
            }
        }
    });
    for case in 0..CASES {
        let (path, text) = &plans[case % plans.len()];
        let (input, kind) = m.plan(text);
        let t0 = Instant::now();
        to_worker.send(input.clone()).unwrap_or_else(|_| panic!("the case before case {case} panicked"));
        let result = answers.recv_timeout(CASE_LIMIT);
        let took = t0.elapsed();
        let what = format!("case {case}: {} with {kind}", path.file_name().unwrap_or_default().to_string_lossy());
        let outcome = match result {
            Ok(o) => o,
            Err(e) => {
                std::fs::create_dir_all(&out_dir).unwrap();
                let file = out_dir.join(format!("case-{case}.ron"));
                std::fs::write(&file, &input).unwrap();
                let why = if e == mpsc::RecvTimeoutError::Timeout { format!("no answer after {CASE_LIMIT:?}") } else { "panicked".to_string() };
                panic!("{what}: {why} (input in {})", file.display());
            }
        };
        if took > slowest.0 {
            slowest = (took, what);
        }
        *outcomes.entry(outcome).or_default() += 1;
        *by_kind.entry((kind, outcome)).or_default() += 1;
    }
    println!("{CASES} mutated plans in {:.1} s; slowest {:.3} s ({})", started.elapsed().as_secs_f64(), slowest.0.as_secs_f64(), slowest.1);
    println!("outcomes: {outcomes:?}");
    println!("by mutation: {by_kind:?}");
    // The mutations reach every part of the reader: plans refused by their checks, plans
    // refused for a point's config, plans counted only, and plans made point by point.
    for o in [Outcome::Refused, Outcome::ConfigRefused, Outcome::Counted, Outcome::Expanded] {
        assert!(outcomes.get(&o).copied().unwrap_or(0) >= 10, "too few {o:?}: {outcomes:?}");
    }
}

/// The committed plans and the fuzz target's seeds read and expand.
#[test]
fn the_committed_plans_and_seeds_expand() {
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds/sweep_plan");
    let mut all = plans();
    for e in std::fs::read_dir(&seeds).unwrap().flatten() {
        all.push((e.path(), std::fs::read_to_string(e.path()).unwrap()));
    }
    assert!(all.len() >= 13, "{} plans and seeds", all.len());
    for (path, text) in all {
        assert_eq!(fuzz_one(text.as_bytes()), Outcome::Expanded, "{}", path.display());
    }
}
