//! What `hipscope exec` costs beyond simulating a program's kernels: vectoradd (../shared/apps,
//! the smallest upstream size, one timed iteration) run whole under `hipscope exec`, against
//! its two kernel launches simulated in-process through the device API (the same code object
//! and geometry), and an empty program (`/bin/true`) under `hipscope exec` (process start,
//! library set-up). The difference of the first two is the runtime's overhead. The same
//! program in timing mode adds what building the memory system and its per-launch walks
//! (invalidating the L1s and L2s at each launch, writing back at each synchronisation) cost
//! a short run.

use criterion::{criterion_group, criterion_main, Criterion};
use hipscope_isa::codeobj;
use hipscope_sim::{gpus, Device, EngineOptions, Geometry};
use std::path::Path;
use std::process::Command;

const SIZE: u32 = 1024;

fn bench(c: &mut Criterion) {
    let app = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/apps/mgpusim-gpu-perf/bin/vectoradd");
    let Ok(exe) = std::fs::read(&app) else {
        println!("SKIPPED: {} not found", app.display());
        return;
    };
    let hipscope = Path::new(env!("CARGO_BIN_EXE_hipscope"));
    let Ok(gpu) = gpus::builtin("mi300a") else { return };
    let Ok(co) = codeobj::load(&exe, Some(gpu.processor.name())) else {
        println!("SKIPPED: no gfx942 code object in {}", app.display());
        return;
    };
    let mut g = c.benchmark_group("exec");
    g.sample_size(20);
    g.bench_function("vectoradd_1024_under_exec", |b| {
        b.iter(|| {
            let out =
                Command::new(hipscope).args(["exec", "--gpu", "mi300a", "--"]).arg(&app).args(["--size", &SIZE.to_string(), "--iterations", "1"]).output();
            out.map(|o| o.status.success())
        })
    });
    g.bench_function("vectoradd_1024_timing_under_exec", |b| {
        b.iter(|| {
            let out = Command::new(hipscope)
                .args(["exec", "--gpu", "mi300a", "--mode", "timing", "--"])
                .arg(&app)
                .args(["--size", &SIZE.to_string(), "--iterations", "1"])
                .output();
            out.map(|o| o.status.success())
        })
    });
    g.bench_function("vectoradd_1024_kernels_in_process", |b| {
        b.iter(|| {
            let mut dev = Device::new(gpu.processor);
            let _ = dev.map_code_object(&co);
            let Some(k) = co.kernels.first().and_then(|k| dev.load_kernel(&co, &k.name).ok()) else { return 0 };
            let bytes = SIZE as usize * 4;
            let (a, b2, out) = (
                dev.mem.alloc("a", bytes, hipscope_sim::MemoryKind::Device),
                dev.mem.alloc("b", bytes, hipscope_sim::MemoryKind::Device),
                dev.mem.alloc("c", bytes, hipscope_sim::MemoryKind::Device),
            );
            let args: Vec<Vec<u8>> =
                vec![out.to_le_bytes().to_vec(), a.to_le_bytes().to_vec(), b2.to_le_bytes().to_vec(), SIZE.to_le_bytes().to_vec(), 1u32.to_le_bytes().to_vec()];
            let geo = Geometry { grid: [SIZE, 1, 1], block: [256, 1, 1], dynamic_lds: 0 };
            // The program launches twice: a warm-up and the timed iteration.
            (0..2).filter_map(|_| dev.launch(&k, geo, &args, &EngineOptions::default()).ok()).map(|s| s.instructions).sum::<u64>()
        })
    });
    g.bench_function("empty_program_under_exec", |b| b.iter(|| Command::new(hipscope).args(["exec", "--", "/bin/true"]).status().map(|s| s.success())));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
