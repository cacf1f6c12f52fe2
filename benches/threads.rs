//! The functional engine on one and on two host threads (`--threads`), on the kernels of three
//! programs of ../shared/apps (fir, relu and matrixtranspose, each at 1M elements: the sizes the
//! side-by-side comparison with MGPUSim uses): their gfx942 code objects launched in-process
//! through the device API with the programs' own geometry and arguments, twice per iteration
//! (a program's warm-up and its timed launch). What is timed is the simulation of the two
//! launches; the device, its buffers and their contents are made once per sample, outside the
//! timing (and dropped after it). Before timing, each case checks that both thread counts leave the output buffer
//! byte-identical and equal to a CPU reference.
//!
//! `cargo bench --bench threads`; on a machine with other work the two-thread figures say little.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use hipscope_isa::codeobj;
use hipscope_sim::kernel::LoadedKernel;
use hipscope_sim::{gpus, Device, EngineOptions, Geometry, MemoryKind};
use std::path::Path;

/// Elements of each program's data (fir's length, relu's count, the transpose's 1024²).
const ELEMENTS: u32 = 1 << 20;

/// A device with one program's kernel and buffers, ready to launch.
struct Ready {
    dev: Device,
    kernel: LoadedKernel,
    args: Vec<Vec<u8>>,
    geo: Geometry,
    /// The output buffer's address.
    output: u64,
}

/// One program's kernel, ready to launch on a fresh device.
struct Case {
    name: &'static str,
    device: fn() -> Option<Ready>,
    /// The expected output bytes.
    reference: fn() -> Option<Vec<u8>>,
}

fn app(name: &str) -> Option<Vec<u8>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/apps/mgpusim-gpu-perf/bin").join(name);
    let bytes = std::fs::read(&path);
    if bytes.is_err() {
        println!("SKIPPED: {} not found", path.display());
    }
    bytes.ok()
}

/// A fresh mi300a device with `program`'s gfx942 code object mapped and its kernel whose name
/// contains `kernel` loaded.
fn device_with(program: &str, kernel: &str) -> Option<(Device, LoadedKernel)> {
    let exe = app(program)?;
    let gpu = gpus::builtin("mi300a").ok()?;
    let co = codeobj::load(&exe, Some(gpu.processor.name())).ok()?;
    let mut dev = Device::new(gpu.processor);
    dev.map_code_object(&co).ok()?;
    let name = co.kernels.iter().find(|k| k.name.contains(kernel))?.name.clone();
    let k = dev.load_kernel(&co, &name).ok()?;
    Some((dev, k))
}

fn floats(v: impl Iterator<Item = f32>) -> Vec<u8> {
    v.flat_map(f32::to_le_bytes).collect()
}

fn buffer(dev: &mut Device, name: &str, bytes: &[u8]) -> u64 {
    let at = dev.mem.alloc(name, bytes.len(), MemoryKind::Device);
    // A fresh allocation of this size always takes these bytes.
    let _ = dev.mem.write(at, bytes);
    at
}

/// fir.cpp: 16 taps, input[i] = i, coeff[i] = i, history zero; FIR(output, coeff, input, history, taps).
fn fir() -> Option<Ready> {
    let (mut dev, k) = device_with("fir", "FIR")?;
    let taps = 16u32;
    let input = buffer(&mut dev, "input", &floats((0..ELEMENTS).map(|i| i as f32)));
    let output = buffer(&mut dev, "output", &vec![0; 4 * ELEMENTS as usize]);
    let coeff = buffer(&mut dev, "coeff", &floats((0..taps).map(|i| i as f32)));
    let history = buffer(&mut dev, "history", &vec![0; 4 * taps as usize]);
    let args = vec![
        output.to_le_bytes().to_vec(),
        coeff.to_le_bytes().to_vec(),
        input.to_le_bytes().to_vec(),
        history.to_le_bytes().to_vec(),
        taps.to_le_bytes().to_vec(),
    ];
    Some(Ready { dev, kernel: k, args, geo: Geometry { grid: [ELEMENTS, 1, 1], block: [256, 1, 1], dynamic_lds: 0 }, output })
}

/// relu.cpp's inputs (any values in [-10, 10] do; these are a fixed pattern): ReLUForward(count, in, out).
fn relu_input() -> impl Iterator<Item = f32> {
    (0..ELEMENTS).map(|i| ((i * 7919) % 2000) as f32 / 100.0 - 10.0)
}

fn relu() -> Option<Ready> {
    let (mut dev, k) = device_with("relu", "ReLU")?;
    let input = buffer(&mut dev, "in", &floats(relu_input()));
    let output = buffer(&mut dev, "out", &vec![0; 4 * ELEMENTS as usize]);
    let args = vec![ELEMENTS.to_le_bytes().to_vec(), input.to_le_bytes().to_vec(), output.to_le_bytes().to_vec()];
    Some(Ready { dev, kernel: k, args, geo: Geometry { grid: [ELEMENTS, 1, 1], block: [256, 1, 1], dynamic_lds: 0 }, output })
}

/// Width of the transposed matrix (1024² floats).
const WIDTH: u32 = 1024;

/// matrixtranspose.cpp: float4 elements, 16×16 work-groups, 4×4 floats per work-item, LDS of
/// 16·16·4·4 floats; matrixTranspose(out, in, unused, wiWidth, wiHeight, groups_x, 0, 0).
fn transpose() -> Option<Ready> {
    let (mut dev, k) = device_with("matrixtranspose", "matrixTranspose")?;
    let input = buffer(&mut dev, "in", &floats((0..WIDTH * WIDTH).map(|i| i as f32)));
    let output = buffer(&mut dev, "out", &vec![0; 4 * (WIDTH * WIDTH) as usize]);
    let wi = WIDTH / 4;
    let args = [output, input, 0].iter().map(|a| a.to_le_bytes().to_vec()).chain([wi, wi, wi / 16, 0, 0].iter().map(|v| v.to_le_bytes().to_vec())).collect();
    Some(Ready { dev, kernel: k, args, geo: Geometry { grid: [wi, wi, 1], block: [16, 16, 1], dynamic_lds: 16 * 16 * 16 * 4 }, output })
}

/// FIR's sum, tap by tap with one rounding each (the kernel's fused multiply-add).
fn fir_reference() -> Option<Vec<u8>> {
    let taps = 16u32;
    let out = (0..ELEMENTS).map(|t| (0..taps).fold(0.0f32, |sum, i| (i as f32).mul_add(if t >= i { (t - i) as f32 } else { 0.0 }, sum)));
    Some(floats(out))
}

fn relu_reference() -> Option<Vec<u8>> {
    Some(floats(relu_input().map(|x| if x > 0.0 { x } else { 0.0 })))
}

fn transpose_reference() -> Option<Vec<u8>> {
    Some(floats((0..WIDTH * WIDTH).map(|i| ((i % WIDTH) * WIDTH + i / WIDTH) as f32)))
}

/// Launch the kernel twice (warm-up and timed launch) on `threads` threads.
fn run(r: &mut Ready, threads: usize) -> u64 {
    let opts = EngineOptions { threads, ..EngineOptions::default() };
    (0..2).filter_map(|_| r.dev.launch(&r.kernel, r.geo, &r.args, &opts).ok()).map(|s| s.instructions).sum()
}

/// The output after two launches on `threads` threads.
fn output_with(case: &Case, threads: usize) -> Option<Vec<u8>> {
    let mut r = (case.device)()?;
    run(&mut r, threads);
    let mut bytes = vec![0; 4 * ELEMENTS as usize];
    r.dev.mem.read(r.output, &mut bytes).ok()?;
    Some(bytes)
}

/// Whether one and two threads agree with each other and with the reference, if any.
fn checked(case: &Case) -> bool {
    let (one, two) = (output_with(case, 1), output_with(case, 2));
    let same = one.is_some() && one == two;
    let right = (case.reference)().is_none_or(|r| one.as_ref() == Some(&r));
    if !(same && right) {
        println!("SKIPPED: {}: outputs differ between thread counts or from the reference", case.name);
    }
    same && right
}

fn bench(c: &mut Criterion) {
    let cases = [
        Case { name: "fir", device: fir, reference: fir_reference },
        Case { name: "relu", device: relu, reference: relu_reference },
        Case { name: "matrixtranspose", device: transpose, reference: transpose_reference },
    ];
    let mut g = c.benchmark_group("functional-threads-apps");
    g.sample_size(20);
    for case in cases.iter().filter(|c| checked(c)) {
        for threads in [1, 2] {
            g.bench_function(format!("{} 1M, {threads} thread(s)", case.name), |b| {
                b.iter_batched(|| (case.device)(), |s| s.map(|mut r| (run(&mut r, threads), r)), BatchSize::PerIteration)
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
