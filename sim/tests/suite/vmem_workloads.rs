//! End to end: the committed LDS, atomic and cross-lane kernels (workloads/src/{lds.hip,
//! atomics.hip, wave_reduce.hip}) on every build configuration, checked against CPU
//! references written from the kernels' header comments. They exercise DS reads/writes,
//! `ds_bpermute`, global atomics with and without return, and compare-swap locks as the
//! compiler emits them.

use hipscope_isa::codeobj;
use hipscope_sim::{Device, EngineOptions, Geometry, MemoryKind};
use std::path::Path;

const CONFIGS: [&str; 13] = [
    "gfx803",
    "gfx908",
    "gfx90a",
    "gfx942",
    "gfx1030-w32-cu",
    "gfx1030-w32-wgp",
    "gfx1030-w64-cu",
    "gfx1030-w64-wgp",
    "gfx1100-w32-cu",
    "gfx1100-w32-wgp",
    "gfx1100-w64-cu",
    "gfx1100-w64-wgp",
    "gfx1201",
];

fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn read_u32s(dev: &Device, name: &str) -> Vec<u32> {
    let a = &dev.mem.find(name).map(|a| a.data.to_vec()).unwrap_or_default();
    a.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn load(config: &str, file: &str, kernel: &str) -> Result<(Device, hipscope_sim::kernel::LoadedKernel), String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/bin").join(config).join(file);
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let co = codeobj::load(&bytes, None).map_err(|e| e.to_string())?;
    let dev = Device::new(co.target.processor);
    let k = dev.load_kernel(&co, kernel).map_err(|e| e.to_string())?;
    Ok((dev, k))
}

fn ptr(a: u64) -> Vec<u8> {
    a.to_le_bytes().to_vec()
}

fn lds_reduce(config: &str) -> Result<(), String> {
    let (mut dev, k) = load(config, "lds.co", "lds_reduce")?;
    let n = 1000u32;
    let input: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect();
    let groups = n.div_ceil(256);
    let pin = dev.mem.alloc_init("in", u32s(&input), MemoryKind::Device);
    let pout = dev.mem.alloc("out", 4 * groups as usize, MemoryKind::Device);
    let geo = Geometry { grid: [groups * 256, 1, 1], block: [256, 1, 1], dynamic_lds: 0 };
    dev.launch(&k, geo, &[ptr(pin), ptr(pout), n.to_le_bytes().to_vec()], &EngineOptions::default()).map_err(|e| e.to_string())?;
    let out = read_u32s(&dev, "out");
    for (g, &got) in out.iter().enumerate().take(groups as usize) {
        let want = input.iter().skip(256 * g).take(256).fold(0u32, |a, &x| a.wrapping_add(x));
        if got != want {
            return Err(format!("lds_reduce out[{g}] = {got}, expected {want}"));
        }
    }
    Ok(())
}

fn lds_transpose(config: &str) -> Result<(), String> {
    let (mut dev, k) = load(config, "lds.co", "lds_transpose")?;
    let (w, h) = (37u32, 21u32);
    let input: Vec<u32> = (0..w * h).map(|i| (i as f32 * 0.5).to_bits()).collect();
    let pin = dev.mem.alloc_init("in", u32s(&input), MemoryKind::Device);
    let pout = dev.mem.alloc("out", 4 * (w * h) as usize, MemoryKind::Device);
    let geo = Geometry { grid: [w.div_ceil(16) * 16, h.div_ceil(16) * 16, 1], block: [16, 16, 1], dynamic_lds: 0 };
    let args = [ptr(pin), ptr(pout), w.to_le_bytes().to_vec(), h.to_le_bytes().to_vec()];
    dev.launch(&k, geo, &args, &EngineOptions::default()).map_err(|e| e.to_string())?;
    let out = read_u32s(&dev, "out");
    for y in 0..h {
        for x in 0..w {
            let (got, want) = (out[(x * h + y) as usize], input[(y * w + x) as usize]);
            if got != want {
                return Err(format!("lds_transpose out[{x},{y}] = {got:#x}, expected {want:#x}"));
            }
        }
    }
    Ok(())
}

fn histogram(config: &str) -> Result<(), String> {
    let (mut dev, k) = load(config, "atomics.co", "histogram")?;
    let (n, nbins) = (5000u32, 37u32);
    let input: Vec<u32> = (0..n).map(|i| i.wrapping_mul(0x9e37_79b9) >> 5).collect();
    let pin = dev.mem.alloc_init("in", u32s(&input), MemoryKind::Device);
    let pbins = dev.mem.alloc("bins", 4 * nbins as usize, MemoryKind::Device);
    let geo = Geometry { grid: [1024, 1, 1], block: [256, 1, 1], dynamic_lds: 0 };
    let args = [ptr(pin), ptr(pbins), n.to_le_bytes().to_vec(), nbins.to_le_bytes().to_vec()];
    dev.launch(&k, geo, &args, &EngineOptions::default()).map_err(|e| e.to_string())?;
    let mut want = vec![0u32; nbins as usize];
    for x in &input {
        want[(x % nbins) as usize] += 1;
    }
    let got = read_u32s(&dev, "bins");
    if got != want {
        return Err(format!("histogram {got:?} != {want:?}"));
    }
    Ok(())
}

fn spin_lock(config: &str, kernel: &str) -> Result<(), String> {
    let (mut dev, k) = load(config, "atomics.co", kernel)?;
    let (groups, iters) = (8u32, 5u32);
    let plock = dev.mem.alloc("lock", 4, MemoryKind::Device);
    let pcnt = dev.mem.alloc("counter", 8, MemoryKind::Device);
    let geo = Geometry { grid: [groups * 64, 1, 1], block: [64, 1, 1], dynamic_lds: 0 };
    let args = [ptr(plock), ptr(pcnt), iters.to_le_bytes().to_vec(), 1_000_000u32.to_le_bytes().to_vec()];
    dev.launch(&k, geo, &args, &EngineOptions::default()).map_err(|e| e.to_string())?;
    let c = read_u32s(&dev, "counter");
    let lock = read_u32s(&dev, "lock");
    if c != [groups * iters, 0] || lock != [0] {
        return Err(format!("{kernel}: counter {c:?}, lock {lock:?}"));
    }
    Ok(())
}

fn wave_reduce(config: &str) -> Result<(), String> {
    let (mut dev, k) = load(config, "wave_reduce.co", "wave_reduce")?;
    let wave = if k.wave64 { 64 } else { 32 };
    let grid = 256u32;
    let input: Vec<u32> = (0..grid).map(|i| (i * 7919 % 1001) as i32 as u32 ^ (i & 1)).collect();
    let pin = dev.mem.alloc_init("in", u32s(&input), MemoryKind::Device);
    let psums = dev.mem.alloc("sums", 4 * 2 * (grid / 32) as usize, MemoryKind::Device);
    let pmasks = dev.mem.alloc("masks", 8 * 2 * (grid / 32) as usize, MemoryKind::Device);
    let geo = Geometry { grid: [grid, 1, 1], block: [64, 1, 1], dynamic_lds: 0 };
    dev.launch(&k, geo, &[ptr(pin), ptr(psums), ptr(pmasks)], &EngineOptions::default()).map_err(|e| e.to_string())?;
    let sums = read_u32s(&dev, "sums");
    for w in 0..(grid / wave) as usize {
        let want = input[w * wave as usize..(w + 1) * wave as usize].iter().fold(0u32, |a, &x| a.wrapping_add(x));
        if sums[2 * w] != want || sums[2 * w + 1] != want {
            return Err(format!("wave_reduce wave {w}: {:?} expected {want}", &sums[2 * w..2 * w + 2]));
        }
    }
    Ok(())
}

#[test]
fn memory_kernels_on_every_config() {
    let mut failures = Vec::new();
    for cfg in CONFIGS {
        let checks: [(&str, Result<(), String>); 6] = [
            ("lds_reduce", lds_reduce(cfg)),
            ("lds_transpose", lds_transpose(cfg)),
            ("histogram", histogram(cfg)),
            ("spin_lock", spin_lock(cfg, "spin_lock")),
            ("spin_lock_xchg", spin_lock(cfg, "spin_lock_xchg")),
            ("wave_reduce", wave_reduce(cfg)),
        ];
        for (name, r) in checks {
            if let Err(e) = r {
                failures.push(format!("{cfg} {name}: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
