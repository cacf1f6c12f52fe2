//! Malformed or odd specs never panic, abort or hang: seeded mutations of the real specs
//! (`workloads/*.ron`, and `tests/external/*.ron` when the external objects are there) run
//! through the spec runner in functional mode, checked by the built-in reference models (which
//! must not panic on odd launches either). Every case must end in a one-line spec error
//! naming the file, a kernel fault, or a report, within a time bound.
//!
//! Mutations: numbers replaced by 0, huge, negative and off-by-one values; fields dropped or
//! duplicated; string literals swapped; the text truncated; bytes flipped; params and
//! expressions added, broken or overridden. Runs are bounded: at most 2^16 work-items per
//! dispatch and 20 000 instructions per wave (`RunOptions`), and specs declaring more than
//! 16 MiB of buffers are only loaded, not run (a buffer is allocated in full, up to the
//! runner's 4 GiB limit; that limit is checked by `buffers_beyond_the_limit_are_errors`).

use hipscope_sim::spec::{self, RunError, RunOptions};
use hipscope_studies::references::BUILT_IN;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Mutated specs per source file (sources × this ≥ 1000).
const PER_SOURCE: usize = 70;
/// Longest a single case may take (far above what a bounded run needs).
const CASE_LIMIT: Duration = Duration::from_secs(20);

/// Replacement numbers: zero, huge, negative, boundary values and non-integers.
const EXTREMES: &[&str] = &[
    "0",
    "1",
    "-1",
    "7",
    "64",
    "255",
    "256",
    "1023",
    "1025",
    "65536",
    "4294967295",
    "4294967296",
    "2147483648",
    "-2147483648",
    "18446744073709551615",
    "18446744073709551616",
    "340282366920938463463374607431768211456",
    "1e300",
    "-0.0",
    "NaN",
    "inf",
    "3.5",
];

/// Expressions, good and broken, for numeric fields.
const EXPRESSIONS: &[&str] = &[
    "\"n\"",
    "\"4*n\"",
    "\"n/0\"",
    "\"n%0\"",
    "\"(n\"",
    "\"n)\"",
    "\"m\"",
    "\"-n\"",
    "\"n*n*n*n*n*n*n*n*n\"",
    "\"n+\"",
    "\"\"",
    "\"0x\"",
    "\"(n+255)/256*256\"",
    "\"n - 1\"",
    "\"--n\"",
];

/// A seeded mutator of spec text.
struct Mutator {
    rng: StdRng,
}

impl Mutator {
    fn pick<'a>(&mut self, v: &[&'a str]) -> &'a str {
        v[self.rng.random_range(0..v.len())]
    }

    fn mutate(&mut self, text: &str) -> String {
        let mut s = text.to_string();
        // Mostly one mutation, so that many cases still parse and reach the runner.
        let count = [1, 1, 1, 1, 1, 1, 2, 2, 2, 3][self.rng.random_range(0..10)];
        for _ in 0..count {
            s = match self.rng.random_range(0..14) {
                0..=2 => self.number(&s),
                3 => self.drop_field(&s),
                4 => self.duplicate_field(&s),
                5 => self.swap_strings(&s),
                6 => self.truncate(&s),
                7 => self.flip_byte(&s),
                8..=10 => self.params(&s),
                _ => self.off_by_one(&s),
            };
        }
        s
    }

    /// Byte ranges of the numbers in `s` (digits not part of a word).
    fn numbers(s: &str) -> Vec<(usize, usize)> {
        let b = s.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < b.len() {
            let word_before = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b'.');
            if b[i].is_ascii_digit() && !word_before {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                    i += 1;
                }
                out.push((start, i));
            } else {
                i += 1;
            }
        }
        out
    }

    fn number(&mut self, s: &str) -> String {
        let nums = Self::numbers(s);
        if nums.is_empty() {
            return s.to_string();
        }
        let (a, b) = nums[self.rng.random_range(0..nums.len())];
        let with = self.pick(EXTREMES);
        format!("{}{with}{}", &s[..a], &s[b..])
    }

    fn off_by_one(&mut self, s: &str) -> String {
        let nums: Vec<(usize, usize)> = Self::numbers(s).into_iter().filter(|&(a, b)| s[a..b].parse::<i128>().is_ok()).collect();
        if nums.is_empty() {
            return s.to_string();
        }
        let (a, b) = nums[self.rng.random_range(0..nums.len())];
        let v: i128 = s[a..b].parse().unwrap_or(0);
        let with = if self.rng.random_range(0..2) == 0 { v - 1 } else { v + 1 };
        format!("{}{with}{}", &s[..a], &s[b..])
    }

    /// Byte ranges of `name: value` fields (the value up to the next `,` or closing bracket at
    /// its nesting depth).
    fn fields(s: &str) -> Vec<(usize, usize)> {
        let b = s.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < b.len() {
            if b[i].is_ascii_alphabetic() && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b'"')) {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                if b.get(i) == Some(&b':') && b.get(i + 1) != Some(&b':') {
                    let mut depth = 0i32;
                    let mut j = i + 1;
                    let mut in_str = false;
                    while j < b.len() {
                        match b[j] {
                            b'"' => in_str = !in_str,
                            b'(' | b'[' | b'{' if !in_str => depth += 1,
                            b')' | b']' | b'}' if !in_str => {
                                if depth == 0 {
                                    break;
                                }
                                depth -= 1;
                            }
                            b',' if !in_str && depth == 0 => {
                                j += 1;
                                break;
                            }
                            _ => {}
                        }
                        j += 1;
                    }
                    out.push((start, j));
                }
            } else {
                i += 1;
            }
        }
        out
    }

    fn drop_field(&mut self, s: &str) -> String {
        let f = Self::fields(s);
        if f.is_empty() {
            return s.to_string();
        }
        let (a, b) = f[self.rng.random_range(0..f.len())];
        format!("{}{}", &s[..a], &s[b..])
    }

    fn duplicate_field(&mut self, s: &str) -> String {
        let f = Self::fields(s);
        if f.is_empty() {
            return s.to_string();
        }
        let (a, b) = f[self.rng.random_range(0..f.len())];
        let field = &s[a..b];
        let sep = if field.trim_end().ends_with(',') { " " } else { ", " };
        format!("{}{field}{sep}{}", &s[..b], &s[b..])
    }

    /// Exchange the contents of two string literals (buffer names, kernels, keys, paths).
    fn swap_strings(&mut self, s: &str) -> String {
        let quotes: Vec<usize> = s.match_indices('"').map(|(i, _)| i).collect();
        let strings: Vec<(usize, usize)> = quotes.chunks_exact(2).map(|q| (q[0] + 1, q[1])).collect();
        if strings.len() < 2 {
            return s.to_string();
        }
        let i = self.rng.random_range(0..strings.len());
        let j = self.rng.random_range(0..strings.len());
        let ((a0, a1), (b0, b1)) = if strings[i].0 <= strings[j].0 { (strings[i], strings[j]) } else { (strings[j], strings[i]) };
        if a0 == b0 {
            return s.to_string();
        }
        format!("{}{}{}{}{}", &s[..a0], &s[b0..b1], &s[a1..b0], &s[a0..a1], &s[b1..])
    }

    fn truncate(&mut self, s: &str) -> String {
        let cut = self.rng.random_range(0..s.len().max(1));
        s.char_indices().take_while(|(i, _)| *i < cut).map(|(_, c)| c).collect()
    }

    fn flip_byte(&mut self, s: &str) -> String {
        if s.is_empty() {
            return String::new();
        }
        let mut b = s.as_bytes().to_vec();
        let i = self.rng.random_range(0..b.len());
        b[i] = self.rng.random_range(32..127);
        String::from_utf8_lossy(&b).into_owned()
    }

    /// Declare (or redeclare) a param and put expressions, good or broken, where numbers were.
    fn params(&mut self, s: &str) -> String {
        let mut out = s.to_string();
        if !out.contains("params:") || self.rng.random_range(0..3) == 0 {
            let value = self.pick(&["64", "0", "-5", "1048576", "\"2*16\"", "\"k\"", "\"(\"", "4294967296", "\"n\""]);
            out = out.replacen("Run(", &format!("Run(\n  params: {{\"n\": {value}}},"), 1);
        }
        for _ in 0..self.rng.random_range(1..4) {
            let nums = Self::numbers(&out);
            if nums.is_empty() {
                break;
            }
            let (a, b) = nums[self.rng.random_range(0..nums.len())];
            let with = self.pick(EXPRESSIONS);
            out = format!("{}{with}{}", &out[..a], &out[b..]);
        }
        out
    }
}

/// Every code-object path made absolute, so a mutated copy under target/ finds the objects.
fn absolute_paths(text: &str, dir: &Path) -> String {
    text.replace("\"bin/", &format!("\"{}/", dir.join("bin").display())).replace("\"../../../shared/", &format!("\"{}/", dir.join("../../../shared").display()))
}

/// What happened to one case.
#[derive(Debug, Default, Clone, Copy)]
struct Outcome {
    loaded: bool,
    ran: bool,
    fault: bool,
}

/// Load and (when small) run one mutated spec; `Err` says what broke the rules.
fn check_one(path: &Path, overrides: &[(String, i128)], gpu: Option<&str>) -> Result<Outcome, String> {
    let one_line = |e: &spec::SpecError| {
        let text = e.to_string();
        if text.lines().count() != 1 || !text.starts_with(&path.display().to_string()) {
            return Err(format!("not a one-line error naming the file: {text}"));
        }
        Ok(())
    };
    let s = match spec::load_with(path, overrides) {
        Ok(s) => s,
        Err(e) => return one_line(&e).map(|_| Outcome::default()),
    };
    let bytes: u64 = s.buffers.iter().map(|(_, b)| b.bytes.unwrap_or(0)).fold(0, u64::saturating_add);
    if bytes > 1 << 24 {
        return Ok(Outcome { loaded: true, ..Outcome::default() });
    }
    let opts = RunOptions {
        gpu: gpu.map(str::to_string),
        seed: 1,
        max_wave_instructions: Some(20_000),
        max_work_items: Some(1 << 16),
        references: Some(BUILT_IN),
        ..RunOptions::default()
    };
    match spec::run(&s, path, &opts) {
        Ok(_) => Ok(Outcome { loaded: true, ran: true, fault: false }),
        Err(RunError::Spec(e)) => one_line(&e).map(|_| Outcome { loaded: true, ..Outcome::default() }),
        Err(RunError::Fault { .. }) => Ok(Outcome { loaded: true, ran: false, fault: true }),
    }
}

/// The sources: every workload spec, and the external ones when their objects exist.
fn sources() -> Vec<(PathBuf, String)> {
    let mut dirs = vec![root().join("workloads")];
    if root().join("../shared/external-code-objects").is_dir() {
        dirs.push(root().join("tests/external"));
    } else {
        println!("note: ../shared/external-code-objects not found; mutating the workload specs only");
    }
    let mut out = Vec::new();
    for dir in dirs {
        let mut files: Vec<PathBuf> =
            std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "ron")).collect();
        files.sort();
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            out.push((f.clone(), absolute_paths(&text, &dir)));
        }
    }
    out
}

#[test]
fn mutated_specs_never_panic_abort_or_hang() {
    let dir = root().join("target/spec-robustness");
    std::fs::create_dir_all(&dir).unwrap();
    let sources = sources();
    assert!(sources.len() >= 15, "the workload specs: {}", sources.len());
    let mut m = Mutator { rng: StdRng::seed_from_u64(2024) };
    let started = Instant::now();
    let (mut cases, mut loaded, mut ran, mut faults) = (0usize, 0usize, 0usize, 0usize);
    let mut slowest = (Duration::ZERO, String::new());
    for (src, text) in &sources {
        for k in 0..PER_SOURCE {
            let mutated = m.mutate(text);
            let path = dir.join(format!("{}-{k}.ron", src.file_stem().unwrap().to_string_lossy()));
            std::fs::write(&path, &mutated).unwrap();
            // Overrides now and then: a valid size, an unknown name, a negative value.
            let overrides: Vec<(String, i128)> = match (mutated.contains("params:"), m.rng.random_range(0..10)) {
                (true, 0..=2) => vec![("n".into(), 100)],
                (true, 3) => vec![("n".into(), -7)],
                (_, 4) => vec![("zz".into(), 1)],
                _ => Vec::new(),
            };
            // Workload specs list every processor: any GPU runs them. The external ones have one
            // processor and name their GPU.
            let workload = src.starts_with(root().join("workloads"));
            let gpu = match m.rng.random_range(0..20) {
                0 => Some("nosuchgpu"),
                1..=6 if workload => Some("mi210"),
                7..=12 if workload => Some("rx7900xtx"),
                _ => None,
            };
            // Each case in a thread of its own, so a hang is reported instead of stalling.
            let (tx, rx) = mpsc::channel();
            let case_path = path.clone();
            let t0 = Instant::now();
            std::thread::spawn(move || {
                let _ = tx.send(check_one(&case_path, &overrides, gpu));
            });
            let outcome = match rx.recv_timeout(CASE_LIMIT) {
                Ok(Ok(o)) => o,
                Ok(Err(why)) => panic!("{}: {why}\n{mutated}", path.display()),
                Err(mpsc::RecvTimeoutError::Timeout) => panic!("{}: no answer after {CASE_LIMIT:?}\n{mutated}", path.display()),
                Err(mpsc::RecvTimeoutError::Disconnected) => panic!("{}: panicked\n{mutated}", path.display()),
            };
            let took = t0.elapsed();
            if took > slowest.0 {
                slowest = (took, path.display().to_string());
            }
            cases += 1;
            loaded += outcome.loaded as usize;
            ran += outcome.ran as usize;
            faults += outcome.fault as usize;
        }
    }
    println!(
        "{cases} mutated specs from {} sources in {:.1} s: {loaded} loaded, {ran} ran to a report, {faults} kernel faults; slowest {:.2} s ({})",
        sources.len(),
        started.elapsed().as_secs_f64(),
        slowest.0.as_secs_f64(),
        slowest.1
    );
    assert!(cases >= 1000, "{cases} cases");
    // The mutations must keep many specs valid, or the runner itself is barely exercised.
    assert!(loaded * 5 > cases && ran * 20 > cases, "{loaded} loaded, {ran} ran of {cases}");
}

/// The buffer limit is an error, not an allocation: 5 GiB in one buffer, and the limit
/// reached across buffers.
#[test]
fn buffers_beyond_the_limit_are_errors() {
    let co = root().join("workloads/bin/gfx90a/vadd.co");
    let dir = root().join("target/spec-robustness");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, buffers) in [("one.ron", r#""a": (bytes: 5368709120)"#), ("sum.ron", r#""a": (bytes: 3221225472), "b": (bytes: 3221225472)"#)] {
        let text = format!(
            r#"Run(code_objects: {{"x": "{}"}}, buffers: {{ {buffers} }}, dispatches: [(kernel: "vadd", grid: (1, 1, 1), block: (1, 1, 1))])"#,
            co.display()
        );
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let s = spec::load(&path).unwrap();
        let t0 = Instant::now();
        let e = spec::run(&s, &path, &RunOptions { gpu: Some("mi210".into()), ..RunOptions::default() }).unwrap_err().to_string();
        assert!(e.contains("at most 4294967296"), "{name}: {e}");
        assert!(t0.elapsed() < Duration::from_secs(1), "{name}: refused without allocating");
    }
}
