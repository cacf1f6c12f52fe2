//! A launch never asks the host for memory a code-object field or a launch argument made up:
//! a committed vadd code object with its kernel descriptor patched (one bit flipped in a size,
//! or the size set to 2^31) is refused with a `LaunchError` naming the kernel, the field, the
//! value and the limit; a scratch store larger than the host budget is refused with the bytes
//! it would need; and a geometry HIP would refuse is refused. Before these checks the same
//! inputs aborted the process (`memory allocation of … bytes failed`).

use hipscope_isa::codeobj::{self, CodeObject};
use hipscope_sim::gpus;
use hipscope_sim::{Device, EngineOptions, Geometry, LaunchError, MemoryKind};
use std::path::Path;

/// Byte offsets in the kernel descriptor (AMDGPUUsage "Kernel Descriptor"): the 32-bit
/// group and private segment sizes and the 32-bit kernarg size.
const GROUP_SEGMENT: usize = 0;
const PRIVATE_SEGMENT: usize = 4;
const KERNARG_SIZE: usize = 8;

fn vadd_bytes(build: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/bin").join(build).join("vadd.co");
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// File offset of the vadd kernel descriptor: its 64 bytes, as the loader reads them, found in
/// the file (they occur once).
fn descriptor_offset(bytes: &[u8]) -> usize {
    let co = codeobj::load(bytes, None).expect("vadd loads");
    let k = co.find_kernel("vadd").expect("vadd kernel");
    let kd = co.read(k.descriptor_address, 64).expect("descriptor bytes").to_vec();
    let hits: Vec<usize> = bytes.windows(64).enumerate().filter(|(_, w)| *w == kd.as_slice()).map(|(i, _)| i).collect();
    assert_eq!(hits.len(), 1, "descriptor found {} times", hits.len());
    hits[0]
}

/// vadd with the 32-bit descriptor field at `field` replaced by `f(old)`, and the new value.
fn patched_value(build: &str, field: usize, f: impl Fn(u32) -> u32) -> (CodeObject, u32) {
    let mut bytes = vadd_bytes(build);
    let at = descriptor_offset(&bytes) + field;
    let new = f(u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()));
    bytes[at..at + 4].copy_from_slice(&new.to_le_bytes());
    (codeobj::load(&bytes, None).expect("a patched size still loads"), new)
}

fn patched(build: &str, field: usize, f: impl Fn(u32) -> u32) -> CodeObject {
    patched_value(build, field, f).0
}

fn load(co: &CodeObject) -> Result<hipscope_sim::kernel::LoadedKernel, LaunchError> {
    Device::new(co.target.processor).load_kernel(co, "vadd")
}

/// Launch vadd (a, b, c of `n` floats) on `dev`.
fn launch_vadd(dev: &mut Device, co: &CodeObject, geo: Geometry, opts: &EngineOptions) -> Result<(), LaunchError> {
    let k = dev.load_kernel(co, "vadd")?;
    let n = geo.grid[0];
    let ptrs: Vec<u64> = ["a", "b", "c"].iter().map(|b| dev.mem.alloc(b, 4 * n as usize, MemoryKind::Device)).collect();
    let mut args: Vec<Vec<u8>> = ptrs.iter().map(|p| p.to_le_bytes().to_vec()).collect();
    args.push(n.to_le_bytes().to_vec());
    dev.launch(&k, geo, &args, opts).map(|_| ())
}

#[test]
fn private_segment_bit_flips_and_2_31_are_refused_at_load() {
    for build in ["gfx803", "gfx90a", "gfx942", "gfx1100-w32-cu", "gfx1201"] {
        // Bits above every per-lane limit (GFX12 wave32: 2 MiB, bit 21), and 2^31.
        // (flip, bits): the field XOR bits, or set to bits.
        for (flip, bits) in (22..32).map(|b| (true, 1u32 << b)).chain([(false, 0x8000_0000), (false, u32::MAX)]) {
            let (co, value) = patched_value(build, PRIVATE_SEGMENT, |old| if flip { old ^ bits } else { bits });
            let e = load(&co).err().unwrap_or_else(|| panic!("{build}: private segment {value:#x} was accepted"));
            let text = e.to_string();
            assert!(matches!(e, LaunchError::OverLimit { .. }), "{build}: {text}");
            let expect = format!("kernel '{}': PRIVATE_SEGMENT_FIXED_SIZE is {value}, more than ", co.kernels[0].name);
            assert!(text.starts_with(&expect) && !text.contains('\n'), "{build}: {text}");
        }
    }
}

#[test]
fn lds_and_kernarg_bit_flips_are_refused_at_load() {
    for (field, name) in [(GROUP_SEGMENT, "GROUP_SEGMENT_FIXED_SIZE"), (KERNARG_SIZE, "KERNARG_SIZE")] {
        let co = patched("gfx942", field, |old| old ^ 1 << 24);
        let text = load(&co).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(text.contains(&format!("{name} is ")) && text.contains("more than"), "{name}: {text:?}");
    }
}

#[test]
fn a_scratch_store_beyond_the_budget_is_refused_with_its_size() {
    // 131 056 bytes per lane is gfx942's per-lane maximum (within the limits); MI300X holds 8
    // waves per SIMD, so 1024-item groups (16 waves of 64) fill a CU's 32 wave slots with two
    // groups: 304 × 2 groups × 16 waves = 9 728 waves, 81.6 GB of scratch.
    let co = patched("gfx942", PRIVATE_SEGMENT, |_| 131_056);
    let gpu = gpus::builtin("mi300x").unwrap();
    let mut dev = Device::new(co.target.processor);
    dev.enable_timing(&gpu).unwrap();
    let geo = Geometry { grid: [1 << 20, 1, 1], block: [1024, 1, 1], dynamic_lds: 0 };
    match launch_vadd(&mut dev, &co, geo, &EngineOptions::default()) {
        Err(LaunchError::ScratchTooLarge { waves, lanes, per_lane, bytes, limit, .. }) => {
            assert_eq!((waves, lanes, per_lane, bytes), (9728, 64, 131_056, 81_594_417_152));
            assert!(limit <= 16 << 30, "{limit}");
        }
        other => panic!("{other:?}"),
    }
    // Nothing was placed for the refused launch: the device's memory holds the three buffers.
    assert_eq!(dev.mem.allocations().len(), 3);
    // Sized by the placement: 256-item groups (4 waves) on MI300X are at most 8 per CU by wave
    // slots (not 16 by work-group slots), 9 728 waves again.
    let geo = Geometry { grid: [1 << 20, 1, 1], block: [256, 1, 1], dynamic_lds: 0 };
    match launch_vadd(&mut dev, &co, geo, &EngineOptions::default()) {
        Err(LaunchError::ScratchTooLarge { waves, .. }) => assert_eq!(waves, 9728),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_store_within_the_budget_runs() {
    // Functional mode: 32 resident groups of 4 waves × 64 lanes × 4 KiB = 32 MiB, mapped
    // lazily; vadd never touches it, and the kernel computes as usual.
    let co = patched("gfx942", PRIVATE_SEGMENT, |_| 4096);
    let mut dev = Device::new(co.target.processor);
    let geo = Geometry { grid: [1 << 16, 1, 1], block: [256, 1, 1], dynamic_lds: 0 };
    launch_vadd(&mut dev, &co, geo, &EngineOptions::default()).unwrap();
}

#[test]
fn geometry_hip_refuses_is_refused() {
    let bytes = vadd_bytes("gfx90a");
    let co = codeobj::load(&bytes, None).unwrap();
    let cases = [
        (Geometry { grid: [64, 1, 1], block: [0, 1, 1], dynamic_lds: 0 }, "must be at least 1 in every dimension"),
        (Geometry { grid: [0, 1, 1], block: [64, 1, 1], dynamic_lds: 0 }, "must be at least 1 in every dimension"),
        (Geometry { grid: [64, 1, 1], block: [2048, 1, 1], dynamic_lds: 0 }, "block of 2048 work-items, more than 1024"),
        (Geometry { grid: [64, 1, 1], block: [u32::MAX, u32::MAX, 2], dynamic_lds: 0 }, "work-items, more than 1024"),
        (Geometry { grid: [64, 1, 1], block: [64, 1, 1], dynamic_lds: u32::MAX }, "dynamic bytes of LDS, more than the 65536"),
    ];
    for (geo, expect) in cases {
        let mut dev = Device::new(co.target.processor);
        let text = launch_vadd(&mut dev, &co, geo, &EngineOptions::default()).err().map(|e| e.to_string()).unwrap_or_default();
        let start = format!("kernel '{}': ", co.kernels[0].name);
        assert!(text.starts_with(&start) && text.contains(expect), "{geo:?}: {text:?}");
    }
}
