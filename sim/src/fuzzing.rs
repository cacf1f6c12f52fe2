//! One bounded launch from arbitrary bytes: the `launch` cargo-fuzz target and
//! `sim/tests/suite/launch_robustness.rs` both run [`fuzz_one`], so that whatever a code object
//! says (descriptor, metadata, code) a launch ends in a value, never a panic, an abort or a
//! hang.
//!
//! Input: a [`HEADER`]-byte header, then a code object.
//!
//! | byte | meaning |
//! |---|---|
//! | 0 | GPU: among the built-in GPUs of the code object's processor (else family, else all), modulo their count |
//! | 1 | bit 0: timing mode; bits 1-3: geometry ([`GEOMETRIES`]); bits 4-5: dynamic LDS ([`DYNAMIC_LDS`]); bits 6-7: pointer-buffer contents |
//! | 2 | kernel: index into the code object's kernels, modulo their count |
//! | 3 | engine seed |
//! | 4..16 | bytes of the by-value arguments, repeated as needed |
//!
//! Each pointer argument gets its own [`BUFFER_BYTES`]-byte buffer (the first
//! [`MAX_BUFFERS`]; later ones share the last); other argument kinds are zero. A run stops
//! after [`MAX_WAVE_INSTRUCTIONS`] per wave or [`MAX_INSTRUCTIONS`] in all, with livelock
//! detection and (timing mode) the watchdog on, as by default.

use crate::engine::EngineOptions;
use crate::gpus::{self, GpuConfig};
use crate::launch::{Device, LaunchError};
use crate::memory::MemoryKind;
use crate::Geometry;
use hipscope_isa::codeobj::{self, ValueKind};
use std::sync::OnceLock;

/// Header bytes before the code object.
pub const HEADER: usize = 16;
/// Launch geometries, (grid, block) in work-items: one wave, partial groups, 2-D and 3-D, a
/// full 1024-item block, and more groups than the functional engine keeps resident.
pub const GEOMETRIES: [([u32; 3], [u32; 3]); 8] = [
    ([64, 1, 1], [64, 1, 1]),
    ([256, 1, 1], [256, 1, 1]),
    ([1000, 1, 1], [256, 1, 1]),
    ([32, 1, 1], [32, 1, 1]),
    ([64, 4, 1], [16, 4, 1]),
    ([8, 8, 4], [4, 4, 2]),
    ([1024, 1, 1], [1024, 1, 1]),
    ([4096, 1, 1], [64, 1, 1]),
];
/// Dynamic LDS bytes: none, some, a whole work-group's 64 KiB, and 1 byte more than any
/// kernel can have with it.
pub const DYNAMIC_LDS: [u32; 4] = [0, 1024, 65536, 65537];
/// Bytes of each pointer argument's buffer.
pub const BUFFER_BYTES: usize = 16 * 1024;
/// Distinct buffers per launch.
pub const MAX_BUFFERS: usize = 8;
/// Arguments larger than this get one byte more, which the launch refuses as the wrong size
/// (real kernels take a few bytes per argument; this keeps a made-up size cheap).
const MAX_ARG_BYTES: u64 = 4096;
pub const MAX_WAVE_INSTRUCTIONS: u64 = 5_000;
pub const MAX_INSTRUCTIONS: u64 = 200_000;
/// Timing mode: a bound on simulated time as well (the watchdog catches a stall, this a
/// dispatch that keeps issuing slowly).
pub const MAX_CYCLES: u64 = 20_000_000;

/// How one input ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// Shorter than the header, or the code object did not load.
    NotLoaded,
    /// The code object has no kernel.
    NoKernel,
    /// `load_kernel` or `launch` refused it with an error (limits, geometry, arguments, ...).
    Refused,
    /// The kernel faulted (bad address, invalid code, a limit reached, livelock, ...).
    Faulted,
    /// The dispatch completed.
    Completed,
}

/// The built-in GPU configs, parsed once.
fn gpus() -> &'static [GpuConfig] {
    static GPUS: OnceLock<Vec<GpuConfig>> = OnceLock::new();
    GPUS.get_or_init(gpus::builtins)
}

/// Run the input once (see the module documentation).
pub fn fuzz_one(data: &[u8]) -> Outcome {
    run(data).0
}

/// [`fuzz_one`], with what happened in words: the error, or what the dispatch executed.
pub fn run(data: &[u8]) -> (Outcome, String) {
    let Some((header, object)) = data.split_first_chunk::<HEADER>() else { return (Outcome::NotLoaded, "shorter than the header".into()) };
    let co = match codeobj::load(object, None) {
        Ok(co) => co,
        Err(e) => return (Outcome::NotLoaded, e.to_string()),
    };
    if co.kernels.is_empty() {
        return (Outcome::NoKernel, "no kernel".into());
    }
    let [gpu, mode, kernel, seed, scalars @ ..] = *header;
    let processor = co.target.processor;
    let mut dev = Device::new(processor);
    if mode & 1 != 0 {
        let all = gpus();
        // The GPUs the object was built for, else its family's, else any.
        let rank = |g: &GpuConfig| {
            if g.processor == processor {
                0
            } else if g.processor.family() == processor.family() {
                1
            } else {
                2
            }
        };
        let best = all.iter().map(rank).min().unwrap_or(2);
        let pool: Vec<&GpuConfig> = all.iter().filter(|g| rank(g) == best).collect();
        let Some(cfg) = pool.get(usize::from(gpu) % pool.len().max(1)) else { return (Outcome::Refused, "no built-in GPU".into()) };
        if let Err(e) = dev.enable_timing(cfg) {
            return (Outcome::Refused, e);
        }
    }
    let name = co.kernels[usize::from(kernel) % co.kernels.len()].name.clone();
    let k = match dev.load_kernel(&co, &name) {
        Ok(k) => k,
        Err(e) => return (Outcome::Refused, e.to_string()),
    };
    let (grid, block) = GEOMETRIES[usize::from(mode >> 1) % GEOMETRIES.len()];
    let geo = Geometry { grid, block, dynamic_lds: DYNAMIC_LDS[usize::from(mode >> 4) % DYNAMIC_LDS.len()] };
    let args = arguments(&mut dev, &k, &scalars, mode >> 6);
    let opts = EngineOptions {
        seed: u64::from(seed),
        max_wave_instructions: MAX_WAVE_INSTRUCTIONS,
        max_instructions: MAX_INSTRUCTIONS,
        max_cycles: MAX_CYCLES,
        ..EngineOptions::default()
    };
    match dev.launch(&k, geo, &args, &opts) {
        Ok(s) => (Outcome::Completed, format!("{} waves, {} instructions", s.waves, s.instructions)),
        Err(LaunchError::Fault(f)) => (Outcome::Faulted, f.to_string()),
        Err(e) => (Outcome::Refused, e.to_string()),
    }
}

/// Values for the kernel's user arguments, in metadata order: pointers to fresh buffers,
/// by-value bytes from `scalars`, zeros for the rest.
fn arguments(dev: &mut Device, k: &crate::kernel::LoadedKernel, scalars: &[u8], fill: u8) -> Vec<Vec<u8>> {
    let Some(layout) = &k.kernarg else { return Vec::new() };
    let mut buffers: Vec<u64> = Vec::new();
    let mut next_scalar = 0usize;
    let mut out = Vec::new();
    for a in layout.args.iter().filter(|a| !a.value_kind.is_hidden()) {
        let size = a.size.min(MAX_ARG_BYTES + 1) as usize;
        let mut v = vec![0u8; size];
        match a.value_kind {
            ValueKind::GlobalBuffer => {
                if buffers.len() < MAX_BUFFERS {
                    let data = buffer_contents(fill, buffers.len());
                    buffers.push(dev.mem.alloc_init(&format!("fuzz:buffer{}", buffers.len()), data, MemoryKind::Device));
                }
                let addr = buffers.last().copied().unwrap_or(0).to_le_bytes();
                let n = v.len().min(8);
                v[..n].copy_from_slice(&addr[..n]);
            }
            ValueKind::ByValue if !scalars.is_empty() => {
                for b in v.iter_mut() {
                    *b = scalars[next_scalar % scalars.len()];
                    next_scalar += 1;
                }
            }
            _ => {}
        }
        out.push(v);
    }
    out
}

/// A pointer buffer's initial bytes: zeros, small counting u32s (indices a kernel may chase),
/// 1.0f32, or a byte pattern.
fn buffer_contents(fill: u8, index: usize) -> Vec<u8> {
    let words = BUFFER_BYTES / 4;
    let word = |i: usize| -> u32 {
        match fill & 3 {
            0 => 0,
            1 => (i as u32 + index as u32) % 64,
            2 => 1.0f32.to_bits(),
            _ => 0x5a5a_5a5a ^ i as u32,
        }
    };
    (0..words).flat_map(|i| word(i).to_le_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vadd(build: &str) -> Vec<u8> {
        std::fs::read(format!("{}/../workloads/bin/{build}/vadd.co", env!("CARGO_MANIFEST_DIR"))).unwrap()
    }

    #[test]
    fn a_header_and_a_real_kernel_run_in_both_modes() {
        // n = 64 (scalar bytes 64, 0, 0, 0 repeated).
        let mut header = [0u8; HEADER];
        header[4..].copy_from_slice(&[64, 0, 0, 0].repeat(3));
        for mode in [0, 1] {
            header[1] = mode;
            let input = [&header[..], &vadd("gfx90a")].concat();
            assert_eq!(fuzz_one(&input), Outcome::Completed, "mode {mode}");
        }
        assert_eq!(fuzz_one(&header), Outcome::NotLoaded);
        assert_eq!(fuzz_one(&[1, 2, 3]), Outcome::NotLoaded);
        // Dynamic LDS beyond 64 KiB: refused by the launch.
        header[1] = 3 << 4;
        assert_eq!(fuzz_one(&[&header[..], &vadd("gfx942")].concat()), Outcome::Refused);
    }
}
