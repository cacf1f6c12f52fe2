//! How a sweep scales with `--jobs` on this machine: the 64 points of
//! `workloads/sweeps/scaling-64.ron` (vadd on MI210 over L2 size × CU count), run through the
//! sweep library with one and with two threads into a fresh directory each time.
//! `cargo bench --bench sweep`.

use criterion::{criterion_group, criterion_main, Criterion};
use hipscope_sweep::run::{self, Shard};
use hipscope_sweep::workload::Context;
use std::path::Path;
use std::time::Duration;

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let plan = root.join("workloads/sweeps/scaling-64.ron");
    let prepared = match run::prepare(&plan) {
        Ok(p) => p,
        Err(e) => {
            println!("SKIPPED: {e}");
            return;
        }
    };
    assert_eq!(prepared.points.len(), 64, "the plan has 64 points");
    let out = std::env::temp_dir().join(format!("hipscope-sweep-bench-{}", std::process::id()));
    let cx = Context {
        plan_dir: plan.parent().unwrap_or(root).to_path_buf(),
        workloads: root.join("workloads"),
        hipscope: None,
        scratch: out.join("scratch"),
        sample: Default::default(),
    };
    let mut g = c.benchmark_group("sweep-64-points");
    g.sample_size(10).measurement_time(Duration::from_secs(40)).warm_up_time(Duration::from_secs(1));
    for jobs in [1, 2] {
        g.bench_function(format!("jobs {jobs}"), |b| {
            b.iter(|| {
                let _ = std::fs::remove_dir_all(&out);
                let s = run::run(&prepared, &cx, &out, Shard::ALL, jobs, &()).expect("the sweep runs");
                assert_eq!((s.ran, s.failed), (64, 0));
            })
        });
    }
    g.finish();
    let _ = std::fs::remove_dir_all(&out);
}

criterion_group!(benches, bench);
criterion_main!(benches);
