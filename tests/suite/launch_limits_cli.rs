//! `hipscope run` on a code object whose kernel descriptor asks for impossible sizes exits 2
//! with one line naming the kernel, the field, its value and the limit (it used to abort with
//! `memory allocation of … bytes failed`); a scratch store beyond the host budget exits 2
//! with the bytes it would need.

use std::path::PathBuf;

use crate::cli;
use cli::{code, hipscope, root, stderr};

/// Byte offset of PRIVATE_SEGMENT_FIXED_SIZE in a kernel descriptor (AMDGPUUsage "Kernel
/// Descriptor").
const PRIVATE_SEGMENT: usize = 4;

/// A copy of `workloads/bin/<build>/vadd.co` with the descriptor's private segment size set
/// by `f(old)`, and a 64-element vadd spec on it; returns the spec's path.
fn spec_with(name: &str, build: &str, grid: u32, f: impl Fn(u32) -> u32) -> PathBuf {
    let dir = root().join("target/launch-limits-tests").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut bytes = std::fs::read(root().join("workloads/bin").join(build).join("vadd.co")).unwrap();
    // The descriptor: its 64 bytes as the loader reads them, found once in the file.
    let co = hipscope_isa::codeobj::load(&bytes, None).unwrap();
    let kd = co.read(co.find_kernel("vadd").unwrap().descriptor_address, 64).unwrap().to_vec();
    let at = bytes.windows(64).position(|w| w == kd.as_slice()).unwrap() + PRIVATE_SEGMENT;
    let old = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    bytes[at..at + 4].copy_from_slice(&f(old).to_le_bytes());
    std::fs::write(dir.join("vadd.co"), &bytes).unwrap();
    let spec = format!(
        r#"Run(
  code_objects: {{"any": "vadd.co"}},
  buffers: {{ "a": (bytes: {b}, init: Iota(F32)), "b": (bytes: {b}, init: Const(F32, 0.5)), "c": (bytes: {b}, init: Const(F32, -7)) }},
  dispatches: [ (kernel: "vadd", grid: ({grid}, 1, 1), block: (256, 1, 1), args: [Buffer("a"), Buffer("b"), Buffer("c"), U32({grid})]) ],
  expect: [ (buffer: "c", equals: Reference("vadd")) ],
)"#,
        b = 4 * grid
    );
    std::fs::write(dir.join("vadd.ron"), spec).unwrap();
    dir.join("vadd.ron")
}

#[test]
fn an_impossible_private_segment_is_a_one_line_error() {
    // One flipped bit: 128 MiB per lane, 8.6 GB for the single wave of this launch; 2^31 per
    // lane is 137 GB per wave.
    for (name, f, value) in [("flip27", (|old| old ^ 1 << 27) as fn(u32) -> u32, 1u32 << 27), ("top", |_| 0x8000_0000, 0x8000_0000)] {
        let spec = spec_with(name, "gfx90a", 64, f);
        for mode in ["functional", "timing"] {
            let o = hipscope(&["run", spec.to_str().unwrap(), "--gpu", "mi210", "--mode", mode]);
            let err = stderr(&o);
            assert_eq!(code(&o), 2, "{name} {mode}: {err}");
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.contains(&format!("PRIVATE_SEGMENT_FIXED_SIZE is {value}, more than 131056")), "{name} {mode}: {err}");
            assert!(err.contains("kernel '") && err.contains("vadd"), "{err}");
        }
    }
}

#[test]
fn a_scratch_store_beyond_the_host_budget_is_a_one_line_error() {
    // gfx942's per-lane maximum on every wave slot of MI300X: 81.6 GB.
    let spec = spec_with("budget", "gfx942", 1 << 20, |_| 131_056);
    let o = hipscope(&["run", spec.to_str().unwrap(), "--gpu", "mi300x", "--mode", "timing"]);
    let err = stderr(&o);
    assert_eq!(code(&o), 2, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("scratch for 9728 resident waves of 64 lanes at 131056 bytes per lane needs 81594417152 bytes, more than the"), "{err}");
}
