//! The HIP runtime's entry points never crash, panic or hang on bad arguments: thousands of
//! inputs of `amdhip64::fuzzing::fuzz_one` (the function the `hip_api` cargo-fuzz target
//! calls) — the committed seeds (`fuzz/seeds/hip_api/`), seeded mutations of them, and
//! random byte strings — each must end, within a time bound, in a summary of the calls it made
//! and their error codes. The summaries together must show the calls refusing bad input with
//! the codes ROCm's runtime uses (so the harness cannot silently stop exercising them), and an
//! input run twice must do the same both times. A failing input is written to
//! `target/hip-api-robustness/case-N.bin`, which the fuzz target replays.

use amdhip64::fuzzing::{fuzz_one, Results, Summary};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Mutated seeds and random inputs, in all.
const CASES: usize = 10_000;
/// Longest one input may take (each is at most 64 calls on small buffers; milliseconds).
const CASE_LIMIT: Duration = Duration::from_secs(20);

/// Seeded, so the cases are the same on every run.
struct Rng(StdRng);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(StdRng::seed_from_u64(seed))
    }

    fn next(&mut self) -> u64 {
        self.0.random()
    }

    fn below(&mut self, n: usize) -> usize {
        self.0.random_range(0..n.max(1))
    }
}

fn seeds() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds/hip_api");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).map(|d| d.filter_map(|e| Some(e.ok()?.path())).collect()).unwrap_or_default();
    files.sort();
    files.iter().filter(|f| f.extension().is_some_and(|e| e == "bin")).filter_map(|f| std::fs::read(f).ok()).collect()
}

/// Case `i`: a seed with bytes changed, inserted, removed or spliced from another seed, or
/// random bytes.
fn case(i: usize, seeds: &[Vec<u8>], rng: &mut Rng) -> Vec<u8> {
    if seeds.is_empty() || i % 4 == 3 {
        return (0..rng.below(400)).map(|_| rng.next() as u8).collect();
    }
    let mut v = seeds[i % seeds.len()].clone();
    for _ in 0..1 + rng.below(8) {
        let at = rng.below(v.len() + 1);
        match rng.below(4) {
            0 if at < v.len() => v[at] = rng.next() as u8,
            1 => v.insert(at, rng.next() as u8),
            2 if at < v.len() => {
                v.remove(at);
            }
            _ => {
                let other = &seeds[rng.below(seeds.len())];
                let from = rng.below(other.len());
                let piece = &other[from..(from + 1 + rng.below(16)).min(other.len())];
                v.splice(at..at, piece.iter().copied());
            }
        }
    }
    v
}

fn save(i: usize, data: &[u8]) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/hip-api-robustness");
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(format!("case-{i}.bin"));
    let _ = std::fs::write(&path, data);
    path
}

/// Run every case in a worker thread, each within [`CASE_LIMIT`]; the merged results.
fn run_all(cases: Vec<Vec<u8>>) -> Results {
    let (tx, rx) = mpsc::channel::<(usize, Summary)>();
    let work = cases.clone();
    let worker = std::thread::spawn(move || {
        for (i, data) in work.iter().enumerate() {
            if tx.send((i, fuzz_one(data))).is_err() {
                return;
            }
        }
    });
    let mut all = Results::new();
    for (i, data) in cases.iter().enumerate() {
        match rx.recv_timeout(CASE_LIMIT) {
            Ok((_, s)) => {
                for (k, n) in s.results {
                    *all.entry(k).or_default() += n;
                }
            }
            Err(e) => panic!("case {i} ({}) did not end: {e:?}", save(i, data).display()),
        }
    }
    let _ = worker.join();
    all
}

/// Whether `op` returned `code` at least once.
fn saw(all: &Results, op: &'static str, code: u32) -> bool {
    all.get(&(op, code)).is_some_and(|&n| n > 0)
}

#[test]
fn bad_arguments_to_the_hip_api_end_in_error_codes() {
    let seeds = seeds();
    assert!(seeds.len() >= 8, "the seed corpus fuzz/seeds/hip_api is missing");
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut cases: Vec<Vec<u8>> = seeds.clone();
    cases.extend((0..CASES).map(|i| case(i, &seeds, &mut rng)));
    let start = Instant::now();
    let all = run_all(cases.clone());
    let calls: usize = all.values().sum();
    println!("{} inputs, {calls} calls in {:.1} s", cases.len(), start.elapsed().as_secs_f64());
    // The codes ROCm's runtime answers these calls with (clr hipamd/src; see the runtime's
    // citations): each must have come up, or the harness no longer reaches the check.
    const SUCCESS: u32 = 0;
    const INVALID_VALUE: u32 = 1;
    const OUT_OF_MEMORY: u32 = 2;
    const INVALID_CONFIGURATION: u32 = 9;
    const INVALID_MEMCPY_DIRECTION: u32 = 21;
    const INVALID_DEVICE_FUNCTION: u32 = 98;
    const INVALID_HANDLE: u32 = 400;
    const NOT_FOUND: u32 = 500;
    const CONTEXT_IS_DESTROYED: u32 = 709;
    const LAUNCH_FAILURE: u32 = 719;
    let expected = [
        ("hipMalloc", SUCCESS),
        ("hipMalloc", OUT_OF_MEMORY),
        ("hipFree", SUCCESS),
        ("hipFree", INVALID_VALUE),
        ("hipMemcpy", SUCCESS),
        ("hipMemcpy", INVALID_VALUE),
        ("hipMemcpy", INVALID_MEMCPY_DIRECTION),
        ("hipMemcpyAsync", CONTEXT_IS_DESTROYED),
        ("hipMemset", SUCCESS),
        ("hipMemset", INVALID_VALUE),
        ("hipMemcpy2D", SUCCESS),
        ("hipMemcpy2D", INVALID_VALUE),
        ("hipMemcpy3D", INVALID_VALUE),
        ("hipMemcpyToSymbol", SUCCESS),
        ("hipMemcpyToSymbol", INVALID_VALUE),
        ("hipStreamDestroy", SUCCESS),
        ("hipStreamDestroy", CONTEXT_IS_DESTROYED),
        ("hipEventDestroy", CONTEXT_IS_DESTROYED),
        ("hipLaunchKernel", SUCCESS),
        ("hipLaunchKernel", INVALID_VALUE),
        ("hipLaunchKernel", INVALID_CONFIGURATION),
        ("hipLaunchKernel", INVALID_DEVICE_FUNCTION),
        ("hipLaunchKernel", LAUNCH_FAILURE),
        ("hipModuleLaunchKernel", SUCCESS),
        ("hipModuleLaunchKernel", INVALID_HANDLE),
        ("hipModuleUnload", NOT_FOUND),
        ("hipGraphLaunch", SUCCESS),
        ("hipDeviceReset", SUCCESS),
    ];
    let missing: Vec<String> = expected.iter().filter(|(op, code)| !saw(&all, op, *code)).map(|(op, code)| format!("{op} -> {code}")).collect();
    assert!(missing.is_empty(), "never seen: {missing:?}\nall results: {all:?}");
}

#[test]
fn an_input_does_the_same_every_time_it_runs() {
    let seeds = seeds();
    let mut rng = Rng::new(7);
    for i in 0..40 {
        let data = case(i, &seeds, &mut rng);
        let (a, b) = (fuzz_one(&data), fuzz_one(&data));
        assert_eq!(a, b, "case {} ran differently twice", save(10_000 + i, &data).display());
    }
}

/// Each seed reaches the calls it was written for (fuzz/hip_api_seeds.py): its results name
/// them, with the codes ROCm answers.
#[test]
fn the_seeds_reach_their_calls() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds/hip_api");
    let want: [(&str, &[(&'static str, u32)]); 10] = [
        ("bounds", &[("hipMemcpy", 1), ("hipMemcpy", 0), ("hipMemset", 1), ("hipMemset", 0)]),
        ("sizes", &[("hipMalloc", 0), ("hipMalloc", 2), ("hipFree", 1), ("hipMallocManaged", 0)]),
        ("streams", &[("hipStreamDestroy", 709), ("hipStreamSynchronize", 709), ("hipMemcpyAsync", 709), ("hipLaunchKernel", 1)]),
        ("events", &[("hipEventRecord", 0), ("hipEventElapsedTime", 400), ("hipEventDestroy", 709), ("hipEventSynchronize", 0)]),
        ("launch", &[("hipLaunchKernel", 0), ("hipLaunchKernel", 1), ("hipLaunchCooperativeKernel", 720), ("hipLaunchKernel", 98)]),
        ("module", &[("hipModuleLoadData", 0), ("hipModuleLaunchKernel", 0), ("hipModuleUnload", 500), ("hipModuleLaunchKernel", 400)]),
        ("graphs", &[("hipStreamEndCapture", 0), ("hipGraphLaunch", 0), ("hipGraphLaunch", 1), ("hipGraphDestroy", 401)]),
        ("reset", &[("hipDeviceReset", 0), ("hipMemcpy", 1), ("hipStreamSynchronize", 709), ("hipLaunchKernel", 719)]),
        ("pitched", &[("hipMallocPitch", 0), ("hipMemcpy2D", 0), ("hipMemcpy2D", 1), ("hipMemcpy3D", 1)]),
        ("symbols", &[("hipMemcpyToSymbol", 0), ("hipMemcpyToSymbol", 1), ("hipMemcpyToSymbol", 13), ("hipMemcpyToSymbol", 21)]),
    ];
    for (name, calls) in want {
        let data = std::fs::read(dir.join(format!("{name}.bin"))).expect("seed");
        let s = fuzz_one(&data);
        for &(op, code) in calls {
            assert!(saw(&s.results, op, code), "{name}: no {op} -> {code} in {:?}", s.results);
        }
    }
}
