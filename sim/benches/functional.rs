//! Functional-mode speed in wave-instructions per second on one core:
//! `cargo bench -p hipscope-sim --bench functional` (`-- functional-mfma` for the matrix
//! instructions alone, `-- functional-gemm` for the MFMA-heavy GEMM dispatch).
//!
//! Inputs are the launch specs in `benches/specs/` (the workload kernels at bench sizes). Each
//! case first runs its whole spec once; then criterion times one dispatch (buffers placed,
//! kernel decoded beforehand) with throughput = `DispatchStats.instructions` executed
//! wave-instructions. A case whose kernel still faults (instruction semantics not implemented
//! yet) is reported and skipped. That these runs compute what the CPU references say is
//! checked by `studies/tests/suite/bench_specs.rs` (the models live above the engine).

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use hipscope_sim::spec::{self, RunOptions, Session};
use std::path::PathBuf;
use std::time::Duration;

/// (what it is, spec file, GPU, code-object key).
const CASES: &[(&str, &str, &str, &str)] = &[
    ("memory-bound vecCopy", "vecCopy.ron", "mi300x", "gfx942"),
    ("memory-bound vadd", "vadd.ron", "mi300x", "gfx942"),
    ("memory-bound vadd", "vadd.ron", "mi210", "gfx90a"),
    ("compute-bound wave_reduce", "wave_reduce.ron", "mi300x", "gfx942"),
    ("compute-bound lds_reduce", "lds_reduce.ron", "mi300x", "gfx942"),
    ("compute-bound wave_reduce", "wave_reduce.ron", "rx7900xtx", "gfx1100-w32-wgp"),
];

fn spec_path(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/specs").join(file)
}

/// Run the whole spec once; `Err` says why the case is skipped.
fn verified_session(file: &str, gpu: &str, key: &str) -> Result<(Session, u64), String> {
    verified_session_on(file, gpu, key, 1)
}

/// [`verified_session`] with its dispatches' work-groups on `threads` host threads.
fn verified_session_on(file: &str, gpu: &str, key: &str, threads: usize) -> Result<(Session, u64), String> {
    let path = spec_path(file);
    let mut s = spec::load(&path).map_err(|e| e.to_string())?;
    // The reference models are the studies crate's, above the engine: the same runs are checked
    // against them by `studies/tests/suite/bench_specs.rs`, so here only a fault stops the case.
    s.expect.clear();
    let opts = RunOptions {
        gpu: Some(gpu.into()),
        code_object: Some(key.into()),
        seed: 0,
        threads: hipscope_sim::Threads::Fixed(threads),
        mode: hipscope_sim::Mode::Functional,
        ..RunOptions::default()
    };
    let report = spec::run(&s, &path, &opts).map_err(|e| e.to_string())?;
    let instructions = report.dispatches.iter().map(|d| d.instructions).sum();
    let session = Session::new(&s, &path, &opts).map_err(|e| e.to_string())?;
    Ok((session, instructions))
}

/// One case: the session's first launch timed over and over (skipped, with the reason, when
/// the session could not be set up).
fn bench_launch(group: &mut BenchmarkGroup<'_, WallTime>, name: &str, case: Result<(Session, u64), String>) {
    match case {
        Err(why) => println!("{name}: skipped: {why}"),
        Ok((mut session, instructions)) => {
            group.throughput(Throughput::Elements(instructions));
            group.bench_function(name, |b| {
                b.iter(|| {
                    if let Err(e) = session.launch(0, 0) {
                        panic!("{name}: {e}");
                    }
                })
            });
        }
    }
}

fn functional(c: &mut Criterion) {
    let mut group = c.benchmark_group("functional");
    group.sample_size(10).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    for &(what, file, gpu, key) in CASES {
        let name = format!("{what} {key}");
        bench_launch(&mut group, &name, verified_session(file, gpu, key));
    }
    group.finish();
}

/// MFMA-heavy code: the 1024³ f16 GEMM of `benches/specs/gemm.ron` (`gemm_f16_nt`, about a
/// fifth of its instructions `v_mfma_f32_32x32x8f16`, each beside an 8-byte GLOBAL load), one
/// dispatch timed as in [`functional`]; the goal is 5 M wave-instructions/s on one core.
fn gemm(c: &mut Criterion) {
    let mut group = c.benchmark_group("functional-gemm");
    group.sample_size(10).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    bench_launch(&mut group, "MFMA-heavy gemm gfx942", verified_session("gemm.ron", "mi300x", "gfx942"));
    group.finish();
}

/// Race-free 1M-work-item dispatches (element-wise; LDS with barriers) with their work-groups
/// on one and on two host threads (`--threads`): the same results, the time divided by up to
/// the thread count (`cargo bench -p hipscope-sim --bench functional -- functional-threads`;
/// on a machine with other work the two-thread figure says little).
fn threads(c: &mut Criterion) {
    let mut group = c.benchmark_group("functional-threads");
    group.sample_size(10).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    for (what, file) in [("vadd", "vadd.ron"), ("lds_reduce", "lds_reduce.ron")] {
        for n in [1, 2] {
            let name = format!("{what} gfx942 {n} thread(s)");
            bench_launch(&mut group, &name, verified_session_on(file, "mi300x", "gfx942", n));
        }
    }
    group.finish();
}

/// Does nothing with what it is told: the cost of the observer seam itself (events built and
/// delivered, the bulk copy paths off).
struct Null;
impl hipscope_sim::observe::Observer for Null {}

/// The same dispatches with an observer attached that ignores every event.
fn observed(c: &mut Criterion) {
    let mut group = c.benchmark_group("functional-null-observer");
    group.sample_size(10).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    for &(what, file, gpu, key) in CASES {
        let name = format!("{what} {key}");
        let Ok((mut session, instructions)) = verified_session(file, gpu, key) else { continue };
        group.throughput(Throughput::Elements(instructions));
        group.bench_function(&name, |b| {
            b.iter(|| {
                let hooks = hipscope_sim::launch::Hooks { observer: Some(&mut Null), ..Default::default() };
                if let Err(e) = session.launch_hooked(0, 0, hooks) {
                    panic!("{name}: {e}");
                }
            })
        });
    }
    group.finish();
}

/// Matrix instructions on one wave (the test rig), classified once and executed repeatedly as
/// the engine does: throughput in wave-instructions. Encodings from `llvm-mc-19
/// -show-encoding` (assembly beside each).
const MATRIX: &[(&str, hipscope_isa::Processor, &[u8])] = &[
    // v_mfma_f32_32x32x8f16 v[4:19], v[0:1], v[2:3], v[4:19]
    ("32x32x8f16", hipscope_isa::Processor::Gfx90a, &[0x04, 0x00, 0xcc, 0xd3, 0x00, 0x05, 0x12, 0x04]),
    // v_mfma_f32_16x16x16f16 v[4:7], v[0:1], v[2:3], v[4:7]
    ("16x16x16f16", hipscope_isa::Processor::Gfx90a, &[0x04, 0x00, 0xcd, 0xd3, 0x00, 0x05, 0x12, 0x04]),
    // v_mfma_i32_16x16x32_i8 v[0:3], v[4:5], v[6:7], v[0:3]
    ("16x16x32_i8", hipscope_isa::Processor::Gfx942, &[0x00, 0x00, 0xd7, 0xd3, 0x04, 0x0d, 0x02, 0x04]),
    // v_mfma_f64_16x16x4f64 v[0:7], v[8:9], v[10:11], v[0:7]
    ("16x16x4f64", hipscope_isa::Processor::Gfx90a, &[0x00, 0x00, 0xee, 0xd3, 0x08, 0x15, 0x02, 0x04]),
    // v_mfma_f32_16x16x32_fp8_bf8 v[0:3], v[4:5], v[6:7], v[0:3]
    ("16x16x32_fp8_bf8", hipscope_isa::Processor::Gfx942, &[0x00, 0x00, 0xf2, 0xd3, 0x04, 0x0d, 0x02, 0x04]),
];

/// Wave-instructions per second of single matrix instructions (no fetch, decode or scheduling
/// around them: the matrix unit's own cost).
fn matrix(c: &mut Criterion) {
    use hipscope_sim::exec::{classify, execute, ExecCtx};
    use hipscope_sim::testing::Rig;
    const REPEAT: u64 = 100;
    let mut group = c.benchmark_group("functional-mfma");
    group.sample_size(10).measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    group.throughput(Throughput::Elements(REPEAT));
    for &(name, p, code) in MATRIX {
        let mut r = Rig::new(p, true);
        let inst = r.decode(code);
        let sem = classify(&inst, &r.env);
        group.bench_function(name, |b| {
            b.iter(|| {
                for _ in 0..REPEAT {
                    let mut cx = ExecCtx { wave: &mut r.wave, mem: &mut r.mem, port: None, lds: &mut r.lds, env: &r.env };
                    let _ = execute(&sem, &inst, &mut cx);
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, functional, observed, matrix, gemm, threads);
criterion_main!(benches);
