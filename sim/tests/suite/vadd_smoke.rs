//! End-to-end: the committed `vadd` kernel on every configuration computes c = a + b.

use hipscope_isa::codeobj;
use hipscope_sim::{Device, EngineOptions, Geometry, MemoryKind};
use std::path::Path;

fn run_vadd(config: &str) -> Result<(), String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/bin").join(config).join("vadd.co");
    let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
    let co = codeobj::load(&bytes, None).map_err(|e| e.to_string())?;
    let mut dev = Device::new(co.target.processor);
    let kernel = dev.load_kernel(&co, "vadd").map_err(|e| e.to_string())?;
    let n = 1000u32;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| 1000.0 - i as f32).collect();
    let bytes_of = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let pa = dev.mem.alloc_init("a", bytes_of(&a), MemoryKind::Device);
    let pb = dev.mem.alloc_init("b", bytes_of(&b), MemoryKind::Device);
    let pc = dev.mem.alloc("c", 4 * n as usize, MemoryKind::Device);
    let args = vec![pa.to_le_bytes().to_vec(), pb.to_le_bytes().to_vec(), pc.to_le_bytes().to_vec(), n.to_le_bytes().to_vec()];
    let geo = Geometry { grid: [1024, 1, 1], block: [256, 1, 1], dynamic_lds: 0 };
    let stats = dev.launch(&kernel, geo, &args, &EngineOptions::default()).map_err(|e| e.to_string())?;
    let c = &dev.mem.find("c").unwrap().data;
    for i in 0..n as usize {
        let got = f32::from_le_bytes(c[4 * i..4 * i + 4].try_into().unwrap());
        if got != a[i] + b[i] {
            return Err(format!("c[{i}] = {got}, expected {}", a[i] + b[i]));
        }
    }
    println!("{config}: {} waves, {} instructions", stats.waves, stats.instructions);
    Ok(())
}

#[test]
fn vadd_on_every_config() {
    let mut failures = Vec::new();
    for cfg in ["gfx803", "gfx908", "gfx90a", "gfx942", "gfx1030-w32-wgp", "gfx1030-w64-cu", "gfx1100-w32-wgp", "gfx1100-w64-wgp", "gfx1201"] {
        if let Err(e) = run_vadd(cfg) {
            failures.push(format!("{cfg}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
