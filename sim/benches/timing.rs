//! Timing-mode speed in wave-instructions per second on one core:
//! `cargo bench -p hipscope-sim --bench timing`.
//!
//! Same inputs as the functional bench (`benches/specs/`), run with `--mode timing` semantics:
//! each case first runs its whole spec once (its results are checked against the CPU
//! references by `studies/tests/suite/bench_specs.rs`), then criterion times one dispatch
//! on a device whose memory system carries over from the previous iteration (as back-to-back
//! dispatches do). Throughput = executed wave-instructions.
//!
//! `-- timing-gemm`: a 1024³ f16 GEMM on the matrix cores of mi300x (`benches/specs/gemm.ron`),
//! timed per dispatch as above; it also prints the simulated kernel time and the TFLOP/s the
//! simulated GPU reaches, for the README.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use hipscope_sim::spec::{self, RunOptions, Session};
use std::path::PathBuf;
use std::time::Duration;

/// (what it is, spec file, GPU, code-object key).
const CASES: &[(&str, &str, &str, &str)] = &[
    ("memory-bound vecCopy", "vecCopy.ron", "mi210", "gfx90a"),
    ("memory-bound vecCopy", "vecCopy.ron", "mi300x", "gfx942"),
    ("compute-bound wave_reduce", "wave_reduce.ron", "mi300x", "gfx942"),
    ("compute-bound lds_reduce", "lds_reduce.ron", "mi300x", "gfx942"),
    ("compute-bound wave_reduce", "wave_reduce.ron", "rx7900xtx", "gfx1100-w32-wgp"),
];

fn spec_path(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/specs").join(file)
}

fn verified_session(file: &str, gpu: &str, key: &str) -> Result<(Session, spec::Report), String> {
    let path = spec_path(file);
    let mut s = spec::load(&path).map_err(|e| e.to_string())?;
    // The reference models are the studies crate's, above the engine: the same runs are checked
    // against them by `studies/tests/suite/bench_specs.rs`, so here only a fault stops the case.
    s.expect.clear();
    let opts = RunOptions { gpu: Some(gpu.into()), code_object: Some(key.into()), seed: 0, mode: hipscope_sim::Mode::Timing, ..RunOptions::default() };
    let report = spec::run(&s, &path, &opts).map_err(|e| e.to_string())?;
    let session = Session::new(&s, &path, &opts).map_err(|e| e.to_string())?;
    Ok((session, report))
}

fn timing(c: &mut Criterion) {
    let mut group = c.benchmark_group("timing");
    group.sample_size(10).measurement_time(Duration::from_secs(8)).warm_up_time(Duration::from_secs(1));
    for &(what, file, gpu, key) in CASES {
        let name = format!("{what} {gpu}");
        match verified_session(file, gpu, key) {
            Err(why) => println!("{name}: skipped: {why}"),
            Ok((mut session, report)) => {
                group.throughput(Throughput::Elements(report.dispatches.iter().map(|d| d.instructions).sum()));
                group.bench_function(&name, |b| {
                    b.iter(|| {
                        if let Err(e) = session.launch(0, 0) {
                            panic!("{name}: {e}");
                        }
                    })
                });
            }
        }
    }
    group.finish();
}

/// The GEMM: host seconds per dispatch, and (printed once) the simulated time and rate.
fn gemm(c: &mut Criterion) {
    const FLOPS: f64 = 2.0 * 1024.0 * 1024.0 * 1024.0;
    let mut group = c.benchmark_group("timing-gemm");
    group.sample_size(10).measurement_time(Duration::from_secs(60)).warm_up_time(Duration::from_secs(1));
    match verified_session("gemm.ron", "mi300x", "gfx942") {
        Err(why) => println!("gemm 1024^3 mi300x: skipped: {why}"),
        Ok((mut session, report)) => {
            let seconds: f64 = report.dispatches.iter().filter_map(|d| d.duration_ns).sum::<f64>() * 1e-9;
            println!("gemm 1024^3 f16 on mi300x: {:.2} us simulated, {:.1} TFLOP/s simulated", seconds * 1e6, FLOPS / seconds / 1e12);
            group.bench_function("gemm 1024^3 f16 mi300x", |b| {
                b.iter(|| {
                    if let Err(e) = session.launch(0, 0) {
                        panic!("gemm: {e}");
                    }
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, timing, gemm);
criterion_main!(benches);
