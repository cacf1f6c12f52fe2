//! A launch of a damaged code object never panics, aborts or hangs: seeded mutations of the
//! committed workload code objects (`workloads/bin/*/*.co`) run through
//! `hipscope_sim::fuzzing::run` (`fuzz_one`, the function the `launch` cargo-fuzz target calls,
//! with its outcome in words), each in a thread of its own with a time bound. Every case must end in an outcome: not loaded,
//! refused with an error, a kernel fault, or a completed dispatch.
//!
//! Mutations: kernel-descriptor bits flipped and its 32-bit fields set to extreme values;
//! instruction dwords replaced by random ones or by other dwords of the same code (loops,
//! branches into the middle of instructions); metadata values after their keys overwritten;
//! bytes flipped anywhere; truncation. The header picks GPU, mode, geometry, dynamic LDS,
//! kernel, seed and argument bytes at random. A failing case is written to
//! `target/launch-robustness/case-N.bin`, an input the fuzz target replays.

use hipscope_isa::codeobj;
use hipscope_sim::fuzzing::{run, Outcome, HEADER};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Cases in all (spread over the code objects in turn).
const CASES: usize = 1200;
/// Longest a case may take: a bounded launch takes milliseconds to a second.
const CASE_LIMIT: Duration = Duration::from_secs(20);

/// Metadata keys whose values the mutator damages (AMDGPUUsage "Code Object V3+ Metadata").
const KEYS: &[&str] = &[
    ".private_segment_fixed_size",
    ".group_segment_fixed_size",
    ".kernarg_segment_size",
    ".kernarg_segment_align",
    ".max_flat_workgroup_size",
    ".wavefront_size",
    ".vgpr_count",
    ".sgpr_count",
    ".size",
    ".offset",
    ".value_kind",
];

/// 32-bit values for descriptor fields: zero, boundaries of the limits, and huge ones.
const EXTREMES: &[u32] = &[0, 1, 4, 0x3f, 0x400, 0xffff, 0x1_0000, 0x1_0001, 131_056, 131_060, 1 << 20, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff];

/// A code object and where its parts are in the file.
struct Source {
    path: PathBuf,
    bytes: Vec<u8>,
    /// File offsets of the kernel descriptors.
    descriptors: Vec<usize>,
    /// File ranges of the executable sections holding the kernels.
    code: Vec<(usize, usize)>,
}

/// Where `needle` first occurs in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

fn source(path: &Path) -> Option<Source> {
    let bytes = std::fs::read(path).ok()?;
    let co = codeobj::load(&bytes, None).ok()?;
    let mut descriptors = Vec::new();
    let mut code = Vec::new();
    for k in &co.kernels {
        // Found by their bytes as the loader reads them, so the test does not trust the loader
        // for file offsets.
        if let Some(at) = co.read(k.descriptor_address, 64).and_then(|kd| find(&bytes, kd)) {
            descriptors.push(at);
        }
        if let Some(s) = co.section_at(k.entry_address) {
            let head = &s.bytes[..s.bytes.len().min(256)];
            if let Some(at) = find(&bytes, head).filter(|&at| bytes.get(at..at + s.bytes.len()) == Some(&s.bytes[..])) {
                if !code.contains(&(at, s.bytes.len())) {
                    code.push((at, s.bytes.len()));
                }
            }
        }
    }
    Some(Source { path: path.to_path_buf(), bytes, descriptors, code })
}

fn bin_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/bin")
}

fn sources() -> Vec<Source> {
    let bin = bin_dir();
    let mut paths = Vec::new();
    for dir in std::fs::read_dir(&bin).unwrap().flatten() {
        for f in std::fs::read_dir(dir.path()).into_iter().flatten().flatten() {
            if f.path().extension().is_some_and(|e| e == "co") {
                paths.push(f.path());
            }
        }
    }
    paths.sort();
    paths.iter().filter_map(|p| source(p)).collect()
}

struct Mutator {
    rng: StdRng,
}

impl Mutator {
    fn pick<T: Copy>(&mut self, v: &[T]) -> Option<T> {
        (!v.is_empty()).then(|| v[self.rng.random_range(0..v.len())])
    }

    fn header(&mut self) -> [u8; HEADER] {
        let mut h: [u8; HEADER] = self.rng.random();
        // Mostly sizes a kernel can work with (n = 1..255 in the first argument), sometimes
        // anything.
        if self.rng.random_range(0..4) != 0 {
            let n = h[4];
            h[4..].copy_from_slice(&[n, 0, 0, 0].repeat(3));
        }
        // A quarter in timing mode (slower), the rest functional.
        h[1] = (h[1] & !1) | u8::from(self.rng.random_range(0..4) == 0);
        // Mostly no dynamic LDS.
        if self.rng.random_range(0..4) != 0 {
            h[1] &= !(3 << 4);
        }
        h
    }

    /// The mutated object, and the mutation's name.
    fn object(&mut self, s: &Source) -> (Vec<u8>, &'static str) {
        let mut b = s.bytes.clone();
        let kind = match self.rng.random_range(0..20) {
            0..=2 => "none",
            3..=6 => {
                if let Some(at) = self.pick(&s.descriptors) {
                    for _ in 0..self.rng.random_range(1..=3) {
                        let bit = self.rng.random_range(0..64 * 8);
                        b[at + bit / 8] ^= 1 << (bit % 8);
                    }
                }
                "descriptor bits"
            }
            7..=9 => {
                if let (Some(at), Some(v)) = (self.pick(&s.descriptors), self.pick(EXTREMES)) {
                    let field = 4 * self.rng.random_range(0..16);
                    b[at + field..at + field + 4].copy_from_slice(&v.to_le_bytes());
                }
                "descriptor field"
            }
            10..=14 => {
                if let Some((at, len)) = self.pick(&s.code) {
                    let dwords = len / 4;
                    for _ in 0..self.rng.random_range(1..=4) {
                        let to = at + 4 * self.rng.random_range(0..dwords.max(1));
                        let word: u32 = if self.rng.random_range(0..2) == 0 {
                            self.rng.random()
                        } else {
                            let from = at + 4 * self.rng.random_range(0..dwords.max(1));
                            u32::from_le_bytes(b[from..from + 4].try_into().unwrap())
                        };
                        if to + 4 <= b.len() {
                            b[to..to + 4].copy_from_slice(&word.to_le_bytes());
                        }
                    }
                }
                "code dwords"
            }
            15..=16 => {
                let key = KEYS[self.rng.random_range(0..KEYS.len())];
                if let Some(at) = find(&b, key.as_bytes()).map(|at| at + key.len()) {
                    let v = self.pick(&[0x00, 0x01, 0x7f, 0xcc, 0xcd, 0xce, 0xcf, 0xd0, 0xff, 0xc0]).unwrap_or(0);
                    if at < b.len() {
                        b[at] = v;
                    }
                }
                "metadata value"
            }
            17..=18 => {
                for _ in 0..self.rng.random_range(1..=8) {
                    let i = self.rng.random_range(0..b.len());
                    b[i] ^= 1 << self.rng.random_range(0..8);
                }
                "byte flips"
            }
            _ => {
                let keep = self.rng.random_range(0..b.len());
                b.truncate(keep);
                "truncation"
            }
        };
        (b, kind)
    }
}

/// The first line of a report (a fault lists every wave), cut to a readable length.
fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").chars().take(200).collect()
}

#[test]
fn mutated_code_objects_never_panic_abort_or_hang_at_launch() {
    let sources = sources();
    assert!(sources.len() >= 200, "the workload code objects: {}", sources.len());
    assert!(sources.iter().all(|s| !s.descriptors.is_empty() && !s.code.is_empty()), "every source has its descriptors and code found");
    let mut m = Mutator { rng: StdRng::seed_from_u64(0x1a0c4) };
    let out_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/launch-robustness");
    let started = Instant::now();
    let mut outcomes: BTreeMap<Outcome, usize> = BTreeMap::new();
    let mut examples: BTreeMap<Outcome, String> = BTreeMap::new();
    let mut by_kind: BTreeMap<(&str, Outcome), usize> = BTreeMap::new();
    let mut slowest = (Duration::ZERO, String::new());
    for case in 0..CASES {
        let s = &sources[case % sources.len()];
        let header = m.header();
        let (object, kind) = m.object(s);
        let input = [&header[..], &object].concat();
        // In a thread of its own, so that a hang is reported instead of stalling the test.
        let (tx, rx) = mpsc::channel();
        let work = input.clone();
        let t0 = Instant::now();
        std::thread::spawn(move || {
            let _ = tx.send(run(&work));
        });
        let result = rx.recv_timeout(CASE_LIMIT);
        let took = t0.elapsed();
        let name = s.path.strip_prefix(bin_dir()).unwrap_or(&s.path).display();
        let what = format!("case {case}: {name} with {kind}, header {header:02x?}");
        let (outcome, text) = match result {
            Ok(o) => o,
            Err(e) => {
                std::fs::create_dir_all(&out_dir).unwrap();
                let file = out_dir.join(format!("case-{case}.bin"));
                std::fs::write(&file, &input).unwrap();
                let why = if e == mpsc::RecvTimeoutError::Timeout { format!("no answer after {CASE_LIMIT:?}") } else { "panicked".to_string() };
                panic!("{what}: {why} (input in {})", file.display());
            }
        };
        if took > slowest.0 {
            slowest = (took, what);
        }
        *outcomes.entry(outcome).or_default() += 1;
        examples.entry(outcome).or_insert_with(|| first_line(&text));
        *by_kind.entry((kind, outcome)).or_default() += 1;
    }
    println!(
        "{CASES} mutated launches of {} code objects in {:.1} s; slowest {:.2} s ({})",
        sources.len(),
        started.elapsed().as_secs_f64(),
        slowest.0.as_secs_f64(),
        slowest.1
    );
    println!("outcomes: {outcomes:?}");
    for (o, text) in &examples {
        println!("  e.g. {o:?}: {text}");
    }
    for ((kind, outcome), n) in &by_kind {
        println!("  {kind}: {outcome:?} {n}");
    }
    let count = |o| outcomes.get(&o).copied().unwrap_or(0);
    // The mutations must leave many launches running, or the engines are barely exercised.
    assert!(count(Outcome::Completed) * 10 > CASES, "{outcomes:?}");
    assert!(count(Outcome::Faulted) * 20 > CASES, "{outcomes:?}");
    assert!(count(Outcome::Refused) * 20 > CASES, "{outcomes:?}");
}
