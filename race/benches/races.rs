//! The cost of race detection: one functional dispatch of vadd and lds_reduce (the launch
//! specs of `sim/benches/specs/`, gfx942 code on mi300x) with no observer and with the race
//! detector attached, in wave-instructions per second on one core:
//! `cargo bench -p hipscope-race --bench races`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use hipscope_race::detector::Detector;
use hipscope_sim::launch::Hooks;
use hipscope_sim::spec::{self, RunOptions, Session};
use std::path::PathBuf;
use std::time::Duration;

const CASES: &[(&str, &str)] = &[("vadd", "vadd.ron"), ("lds_reduce", "lds_reduce.ron")];

fn session(file: &str) -> Result<(Session, u64), String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../sim/benches/specs").join(file);
    let mut s = spec::load(&path).map_err(|e| e.to_string())?;
    // The engine's bench specs: their results are checked against the CPU references (the
    // studies crate's, above the grader) by `studies/tests/suite/bench_specs.rs`.
    s.expect.clear();
    let opts = RunOptions { gpu: Some("mi300x".into()), code_object: Some("gfx942".into()), ..RunOptions::default() };
    let report = spec::run(&s, &path, &opts).map_err(|e| e.to_string())?;
    let instructions = report.dispatches.iter().map(|d| d.instructions).sum();
    Ok((Session::new(&s, &path, &opts).map_err(|e| e.to_string())?, instructions))
}

fn races(c: &mut Criterion) {
    let mut group = c.benchmark_group("race-detection");
    group.sample_size(10).measurement_time(Duration::from_secs(8)).warm_up_time(Duration::from_secs(1));
    for &(name, file) in CASES {
        let (mut s, instructions) = match session(file) {
            Ok(x) => x,
            Err(e) => {
                println!("SKIPPED: {name}: {e}");
                continue;
            }
        };
        group.throughput(Throughput::Elements(instructions));
        group.bench_function(format!("{name} functional"), |b| b.iter(|| s.launch(0, 0).expect("launch")));
        group.bench_function(format!("{name} functional + race detector"), |b| {
            b.iter(|| {
                let mut det = Detector::new();
                s.launch_hooked(0, 0, Hooks { observer: Some(&mut det), ..Hooks::default() }).expect("launch");
                assert!(det.races().is_empty(), "{name} is race-free");
            })
        });
    }
    group.finish();
}

criterion_group!(benches, races);
criterion_main!(benches);
