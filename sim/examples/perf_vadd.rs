//! Rough speed probe: vadd over 4M elements on gfx90a. `cargo run --release -p hipscope-sim --example perf_vadd`
use hipscope_isa::codeobj;
use hipscope_sim::{Device, EngineOptions, Geometry, MemoryKind};
fn main() {
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../workloads/bin/gfx90a/vadd.co")).unwrap();
    let co = codeobj::load(&bytes, None).unwrap();
    let mut dev = Device::new(co.target.processor);
    let k = dev.load_kernel(&co, "vadd").unwrap();
    let n = 4u32 << 20;
    let pa = dev.mem.alloc("a", 4 * n as usize, MemoryKind::Device);
    let pb = dev.mem.alloc("b", 4 * n as usize, MemoryKind::Device);
    let pc = dev.mem.alloc("c", 4 * n as usize, MemoryKind::Device);
    let args = vec![pa.to_le_bytes().to_vec(), pb.to_le_bytes().to_vec(), pc.to_le_bytes().to_vec(), n.to_le_bytes().to_vec()];
    let t = std::time::Instant::now();
    let s = dev.launch(&k, Geometry { grid: [n, 1, 1], block: [256, 1, 1], dynamic_lds: 0 }, &args, &EngineOptions::default()).unwrap();
    let dt = t.elapsed().as_secs_f64();
    println!("{} wave-instructions in {:.3} s = {:.2} M/s", s.instructions, dt, s.instructions as f64 / dt / 1e6);
}
