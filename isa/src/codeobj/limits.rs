//! Hardware limits a kernel's descriptor and metadata must respect.
//!
//! The loader checks that a code object is well formed (every offset inside its section,
//! every argument inside the kernarg segment); this module checks that the sizes it declares
//! are ones a GPU could run. A flipped bit in `PRIVATE_SEGMENT_FIXED_SIZE` or `KERNARG_SIZE`
//! still parses, but asks a launcher for gigabytes of scratch or kernargs. [`check_kernel`]
//! lists each value beyond its limit as a [`Violation`], whose `Display` is one line naming the
//! field, the value and the limit with its reason.
//!
//! # At launch
//! A launcher refuses a kernel with any violation before it allocates anything the kernel
//! asks for:
//! ```no_run
//! use hipscope_isa::codeobj::{self, limits};
//! let co = codeobj::load(&std::fs::read("k.co").unwrap(), None)?;
//! let family = co.target.processor.family();
//! for k in &co.kernels {
//!     if let Some(v) = limits::check_kernel(k, family).first() {
//!         eprintln!("kernel {}: {v}", k.name); // e.g. "PRIVATE_SEGMENT_FIXED_SIZE is ..."
//!     }
//! }
//! # Ok::<(), codeobj::LoadError>(())
//! ```
//! `hipscope info` prints the same violations as warnings.

use super::kernels::Kernel;
use crate::target::Family;
use serde::Serialize;

/// LDS a work-group may allocate: 64 KiB on every processor we load (LLVM GCNProcessors.td:
/// `FeatureAddressableLocalMemorySize65536` on GFX7 and later; gfx950's 160 KiB is not one
/// of ours). AMDGPUUsage "Memory Spaces": the group segment is the work-group's LDS.
pub const MAX_GROUP_SEGMENT_BYTES: u64 = 64 * 1024;

/// Work-items in a work-group: 1024 on every AMDGPU target (LLVM AMDGPUBaseInfo
/// `getMaxFlatWorkGroupSize`; the default of `amdgpu-flat-work-group-size` in AMDGPUUsage).
pub const MAX_WORKGROUP_ITEMS: u64 = 1024;

/// The kernarg segment. No HIP or HSA document states a limit (HSA's field is 32 bits); HIP
/// follows CUDA, whose kernels take at most 32 764 bytes of parameters (CUDA C++ Programming
/// Guide, "Function Parameters", since CUDA 12.1; 4 KiB before), and code object v5 appends
/// 256 bytes of hidden arguments (LLVM `amdgpu-implicitarg-num-bytes` default). A segment
/// beyond both cannot come from a HIP kernel.
pub const MAX_KERNARG_BYTES: u64 = 32 * 1024 + 256;

/// User SGPRs the hardware initialises: 16 (LLVM `GCNSubtarget::getMaxNumUserSGPRs` on all
/// processors we load; `USER_SGPR_COUNT` is a 5-bit field).
pub const MAX_USER_SGPRS: u64 = 16;

/// Scratch a wave can have: `COMPUTE_TMPRING_SIZE.WAVESIZE` counts it in 13 bits of 1 KiB
/// before GFX11, 15 bits of 256 bytes on GFX11, 18 bits of 256 bytes on GFX12 (LLVM
/// `GCNSubtarget::getMaxWaveScratchSize`, which the compiler will not exceed: AMDGPUAsmPrinter
/// reports a larger stack as an error).
pub fn max_wave_scratch_bytes(family: Family) -> u64 {
    match family {
        Family::Gfx12 => 256 * ((1 << 18) - 1),
        Family::Gfx11 => 256 * ((1 << 15) - 1),
        _ => 1024 * ((1 << 13) - 1),
    }
}

/// VGPRs a lane can address: 256, or 512 where AGPRs share the file (GFX90A, GFX940) (LLVM
/// AMDGPUBaseInfo `getAddressableNumArchVGPRs`, `getAddressableNumVGPRs`).
pub fn max_vgprs(family: Family) -> u64 {
    match family {
        Family::Gfx90a | Family::Gfx940 => 512,
        _ => 256,
    }
}

/// What a value must satisfy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "rule")]
pub enum Rule {
    /// At most `limit`; `why` says whose limit it is.
    AtMost { limit: u64, why: &'static str },
    /// A power of two.
    PowerOfTwo,
    /// One of the wave sizes (32, 64).
    WaveSize,
    /// Equal to `expected`, what `other` (another field) says.
    Matches { expected: u64, other: &'static str },
}

/// One field of a kernel beyond its limit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// The field as AMDGPUUsage names it: descriptor fields in capitals
    /// (`PRIVATE_SEGMENT_FIXED_SIZE`), metadata keys with their dot (`.kernarg_segment_size`).
    pub field: &'static str,
    pub value: u64,
    #[serde(flatten)]
    pub rule: Rule,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (field, value) = (self.field, self.value);
        match self.rule {
            Rule::AtMost { limit, why } => write!(f, "{field} is {value}, more than {limit} ({why})"),
            Rule::PowerOfTwo => write!(f, "{field} is {value}, not a power of two"),
            Rule::WaveSize => write!(f, "{field} is {value}, not a wave size (32 or 64)"),
            Rule::Matches { expected, other } => write!(f, "{field} is {value}, but {other} says {expected}"),
        }
    }
}

/// Every limit `k` breaks on `family` (empty for any kernel a compiler emits).
pub fn check_kernel(k: &Kernel, family: Family) -> Vec<Violation> {
    let mut out = Vec::new();
    let at_most = |out: &mut Vec<Violation>, field, value: u64, limit: u64, why| {
        if value > limit {
            out.push(Violation { field, value, rule: Rule::AtMost { limit, why } });
        }
    };
    let d = &k.descriptor;
    let lanes = u64::from(k.wave_size.max(1));
    let scratch = max_wave_scratch_bytes(family) / lanes;
    const SCRATCH: &str = "per-lane share of the most scratch COMPUTE_TMPRING_SIZE gives a wave";
    const LDS: &str = "the LDS a work-group can have";
    const KERNARG: &str = "CUDA's parameter limit plus the hidden arguments";
    at_most(&mut out, "GROUP_SEGMENT_FIXED_SIZE", u64::from(d.group_segment_fixed_size), MAX_GROUP_SEGMENT_BYTES, LDS);
    at_most(&mut out, "PRIVATE_SEGMENT_FIXED_SIZE", u64::from(d.private_segment_fixed_size), scratch, SCRATCH);
    at_most(&mut out, "KERNARG_SIZE", d.kernarg_size, MAX_KERNARG_BYTES, KERNARG);
    at_most(&mut out, "USER_SGPR_COUNT", u64::from(d.compute_pgm_rsrc2.user_sgpr_count), MAX_USER_SGPRS, "user SGPRs the hardware initialises");
    at_most(&mut out, "GRANULATED_WORKITEM_VGPR_COUNT (VGPRs)", u64::from(k.registers.vgprs), max_vgprs(family), "VGPRs a lane can address");
    if let Some(m) = &k.metadata {
        at_most(&mut out, ".group_segment_fixed_size", m.group_segment_fixed_size, MAX_GROUP_SEGMENT_BYTES, LDS);
        at_most(&mut out, ".private_segment_fixed_size", m.private_segment_fixed_size, scratch, SCRATCH);
        at_most(&mut out, ".kernarg_segment_size", m.kernarg.segment_size, MAX_KERNARG_BYTES, KERNARG);
        at_most(&mut out, ".max_flat_workgroup_size", m.max_flat_workgroup_size, MAX_WORKGROUP_ITEMS, "work-items a work-group can have");
        if let Some(r) = m.reqd_workgroup_size {
            let items = r.iter().fold(1u64, |a, &b| a.saturating_mul(b));
            at_most(&mut out, ".reqd_workgroup_size (work-items)", items, MAX_WORKGROUP_ITEMS, "work-items a work-group can have");
        }
        if !m.kernarg.segment_align.is_power_of_two() {
            out.push(Violation { field: ".kernarg_segment_align", value: m.kernarg.segment_align, rule: Rule::PowerOfTwo });
        }
        // 0: the key is absent (code object v2 objects may omit it).
        match m.wavefront_size {
            0 => {}
            32 | 64 if m.wavefront_size != lanes => out.push(Violation {
                field: ".wavefront_size",
                value: m.wavefront_size,
                rule: Rule::Matches { expected: lanes, other: "the descriptor (ENABLE_WAVEFRONT_SIZE32)" },
            }),
            32 | 64 => {}
            w => out.push(Violation { field: ".wavefront_size", value: w, rule: Rule::WaveSize }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first kernel of a committed workload build, and its family.
    fn kernel(build: &str) -> (Kernel, Family) {
        let path = format!("{}/../workloads/bin/{build}/vadd.co", env!("CARGO_MANIFEST_DIR"));
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let co = super::super::load(&bytes, None).unwrap_or_else(|e| panic!("{path}: {e}"));
        (co.kernels[0].clone(), co.target.processor.family())
    }

    #[test]
    fn compiled_kernels_are_within_every_limit() {
        for build in ["gfx803", "gfx90a", "gfx942", "gfx1030-w32-wgp", "gfx1100-w64-cu", "gfx1201"] {
            let (k, f) = kernel(build);
            assert_eq!(check_kernel(&k, f), [], "{build}");
        }
    }

    #[test]
    fn scratch_per_lane_follows_the_tmpring_field_and_wave_size() {
        // LLVM getMaxWaveScratchSize / wave size: 1024 × 8191 / 64 on GFX9 wave64, 256 × 32767
        // / 32 on GFX11 wave32.
        let (mut k, f) = kernel("gfx90a");
        k.descriptor.private_segment_fixed_size = 131_056;
        assert_eq!(check_kernel(&k, f), []);
        k.descriptor.private_segment_fixed_size = 131_057;
        let v = check_kernel(&k, f);
        assert_eq!(v.len(), 1);
        assert_eq!(
            v[0].to_string(),
            "PRIVATE_SEGMENT_FIXED_SIZE is 131057, more than 131056 (per-lane share of the most scratch COMPUTE_TMPRING_SIZE gives a wave)"
        );
        let (mut k, f) = kernel("gfx1100-w32-cu");
        k.descriptor.private_segment_fixed_size = 262_136;
        assert_eq!(check_kernel(&k, f), []);
        k.descriptor.private_segment_fixed_size = 1 << 31;
        assert_eq!(check_kernel(&k, f)[0].rule, Rule::AtMost { limit: 262_136, why: "per-lane share of the most scratch COMPUTE_TMPRING_SIZE gives a wave" });
    }

    #[test]
    fn one_bit_flips_in_sizes_are_named() {
        let (mut k, f) = kernel("gfx942");
        k.descriptor.group_segment_fixed_size = 1 << 20;
        k.descriptor.kernarg_size = 1 << 24;
        let m = k.metadata.as_mut().expect("metadata");
        m.max_flat_workgroup_size = 1 << 12;
        m.kernarg.segment_align = 24;
        m.wavefront_size = 32;
        let fields: Vec<&str> = check_kernel(&k, f).iter().map(|v| v.field).collect();
        assert_eq!(fields, ["GROUP_SEGMENT_FIXED_SIZE", "KERNARG_SIZE", ".max_flat_workgroup_size", ".kernarg_segment_align", ".wavefront_size"]);
        let m = k.metadata.as_mut().expect("metadata");
        m.wavefront_size = 48;
        assert!(check_kernel(&k, f).iter().any(|v| v.to_string() == ".wavefront_size is 48, not a wave size (32 or 64)"));
    }
}
