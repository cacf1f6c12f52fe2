//! `--threads`: a dispatch whose work-groups run on several host threads gives the memory and
//! the counts the one-thread engine gives, for race-free and racing kernels and every seed,
//! and runs in parallel exactly when its waves touch memory independently (otherwise the
//! sequential engine runs it, and the seed orders the races as before).

use hipscope_sim::engine::dispatches_run_in_parallel;
use hipscope_sim::spec::{self, RunOptions};
use std::path::PathBuf;

/// What a run leaves: per dispatch (kernel, groups, waves, instructions, LDS out of range),
/// every buffer's final bytes, and how many dispatches ran in parallel.
type Outcome = (Vec<(String, u64, u64, u64, u64)>, Vec<(String, Vec<u8>)>, u64);

fn run(file: &str, params: &[(String, i128)], threads: usize, seed: u64) -> Outcome {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../workloads").join(file);
    let mut s = spec::load_with(&path, params).unwrap_or_else(|e| panic!("{file}: {e}"));
    // The CPU reference models live above the engine; here the two thread counts are
    // compared with each other, byte for byte.
    s.expect.clear();
    let dump = s.buffers.keys().map(str::to_string).collect();
    let opts = RunOptions { code_object: Some("gfx942".into()), seed, threads, dump, ..RunOptions::default() };
    let before = dispatches_run_in_parallel();
    let report = spec::run(&s, &path, &opts).unwrap_or_else(|e| panic!("{file} threads {threads} seed {seed}: {e}"));
    let parallel = dispatches_run_in_parallel() - before;
    let stats = report.dispatches.iter().map(|d| (d.kernel.clone(), d.groups, d.waves, d.instructions, d.lds_out_of_range)).collect();
    (stats, report.dumps, parallel)
}

/// The runs with 1, 2 and 3 threads agree for `seeds`; returns how many dispatches of the
/// last run went parallel, and the dispatches of a run.
fn agree(file: &str, seeds: std::ops::Range<u64>) -> (u64, usize) {
    agree_with(file, &[], seeds)
}

/// [`agree`] with the spec's parameters `params` replaced.
fn agree_with(file: &str, params: &[(String, i128)], seeds: std::ops::Range<u64>) -> (u64, usize) {
    let mut parallel = 0;
    let mut dispatches = 0;
    for seed in seeds {
        let (stats1, dumps1, p1) = run(file, params, 1, seed);
        assert_eq!(p1, 0, "{file}: one thread never runs in parallel");
        for threads in [2, 3] {
            let (stats, dumps, p) = run(file, params, threads, seed);
            assert_eq!(stats, stats1, "{file} seed {seed}: counts with {threads} threads");
            for ((name, a), (_, b)) in dumps.iter().zip(&dumps1) {
                let first = a.iter().zip(b).position(|(x, y)| x != y);
                assert!(first.is_none() && a.len() == b.len(), "{file} seed {seed}: buffer {name} with {threads} threads differs at byte {first:?}");
            }
            parallel = p;
        }
        dispatches = stats1.len();
    }
    (parallel, dispatches)
}

#[test]
fn race_free_kernels_run_in_parallel_with_the_one_thread_result() {
    // Element-wise, LDS with barriers (a reduction, a tiled transpose), and a sorting network
    // whose steps pair elements across work-groups.
    for file in ["vadd.ron", "saxpy.ron", "lds_reduce.ron", "lds_transpose.ron", "bitonic.ron"] {
        let (parallel, dispatches) = agree(file, 0..2);
        assert_eq!(parallel, dispatches as u64, "{file}: every dispatch's waves are independent");
    }
}

#[test]
fn racing_and_communicating_kernels_fall_back_to_the_seeded_interleaving() {
    // Atomics on shared bins, message passing between work-groups, spin locks: the result
    // depends on the interleaving, which the seed alone decides.
    for file in ["histogram.ron", "mp.ron", "spin_lock.ron", "spin_wg.ron"] {
        let (parallel, _) = agree(file, 0..3);
        assert_eq!(parallel, 0, "{file}: waves share written memory, so no dispatch stands in parallel");
    }
}

#[test]
fn kernels_with_scratch_run_sequentially_and_agree() {
    let (parallel, _) = agree("private.ron", 0..2);
    assert_eq!(parallel, 0, "scratch slots follow residency");
}

#[test]
fn copy_on_write_pages_of_large_buffers_merge_into_the_one_thread_result() {
    // vadd over 1 200 003 elements: each buffer is 4.8 MB, more than two of the workers'
    // 2 MiB private chunks, and its end is no multiple of a 4 KiB page. The threads claim the
    // 4 689 groups in runs of 64 (64 KiB of `c`), so every worker copies and writes pages in
    // every private chunk of `c`, reads pages of `a` and `b` that no worker writes, and the
    // commit takes each run's bytes from the worker that wrote them.
    let n = [("n".to_string(), 1_200_003)];
    let (parallel, dispatches) = agree_with("vadd.ron", &n, 0..1);
    assert_eq!(parallel, dispatches as u64, "element-wise: independent");
}
