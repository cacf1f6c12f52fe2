//! Hardware-layer speed: 1000 seeded runs of relaxed message passing (compile once, then
//! every run from empty caches) on mi210, mi300x (one XCD) and rx7900xtx (WGP mode), on one
//! core.

use criterion::{criterion_group, criterion_main, Criterion};
use hipscope_grade::hardware::{self, Runs};
use hipscope_grade::litmus;
use hipscope_sim::gpus::{self, Mode};
use std::path::Path;

fn bench(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/litmus/01_mp_relaxed_agent.litmus");
    let Ok(source) = litmus::read_source(&path) else {
        println!("SKIPPED: {} not readable", path.display());
        return;
    };
    let Ok(test) = litmus::parse(&path, &source) else {
        println!("SKIPPED: {} does not parse", path.display());
        return;
    };
    let mut g = c.benchmark_group("hardware");
    g.sample_size(10);
    for (name, mode, one_xcd) in [("mi210", Mode::CU, false), ("mi300x", Mode::CU, true), ("rx7900xtx", Mode::WGP, false)] {
        let Ok(gpu) = gpus::builtin(name) else { continue };
        g.bench_function(format!("mp_1000_runs_{name}"), |b| {
            b.iter(|| hardware::run(&test, &gpu, mode, Runs { count: 1000, seed: 1, one_xcd }).map(|r| r.condition_observed))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
