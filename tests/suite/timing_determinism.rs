//! Same spec and seed give bit-identical cycles and counters in timing mode (the engine is
//! single-threaded and breaks ties by wave order or a seeded priority).

use hipscope_sim::spec::{self, RunOptions};
use hipscope_studies::references::BUILT_IN;
use std::path::Path;

/// Per dispatch: cycles and counters.
type Timings = Vec<(Option<u64>, Option<hipscope_sim::counters::Counters>)>;

fn run(spec_file: &str, gpu: &str, seed: u64) -> Timings {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(spec_file);
    let s = spec::load(&path).expect("spec");
    let opts =
        RunOptions { gpu: Some(gpu.into()), code_object: None, seed, mode: hipscope_sim::Mode::Timing, references: Some(BUILT_IN), ..RunOptions::default() };
    let r = spec::run(&s, &path, &opts).expect("run");
    assert!(r.passed(), "{spec_file} on {gpu}");
    r.dispatches.into_iter().map(|d| (d.cycles, d.counters)).collect()
}

#[test]
fn same_spec_and_seed_give_identical_cycles_and_counters() {
    for (spec_file, gpu) in [("workloads/histogram.ron", "mi300x"), ("workloads/lds_reduce.ron", "rx7900xtx"), ("workloads/mp.ron", "mi210")] {
        for seed in [0, 7] {
            let a = run(spec_file, gpu, seed);
            let b = run(spec_file, gpu, seed);
            assert!(a.iter().all(|(c, k)| c.is_some() && k.is_some()), "{spec_file}: timing results present");
            assert_eq!(a, b, "{spec_file} on {gpu}, seed {seed}");
        }
    }
}
