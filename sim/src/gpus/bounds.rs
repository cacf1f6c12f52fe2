//! Hard bounds on the numbers of a GPU config, checked before anything is built from it.
//!
//! A config is user input: a typo or a flipped digit must be an error naming the field, never
//! an allocation of terabytes (which aborts the process), an index past the end or a
//! simulation that never ends. Where the hardware fixes a value's range, the bound is that
//! range and its comment cites the source; elsewhere it is a generous "no AMD GPU comes
//! near this" limit, several times the largest value of any built-in config, so that
//! experiments with bigger parts stay possible.

/// Compute units. The largest AMD GPU, MI300X, has 304 (configs/mi300x.ron).
pub const MAX_COMPUTE_UNITS: u32 = 1024;

/// Engine clock. AMD GPUs boost to under 3 GHz (configs/rx9070xt.ron: 2970 MHz).
pub const MAX_CLOCK_MHZ: u32 = 10_000;

/// Any latency, overhead or pipeline interval in cycles. DRAM, the slowest level, costs a few
/// hundred cycles beyond the caches (configs: 200-600); a million cycles is half a
/// millisecond at 2 GHz, beyond anything inside a GPU.
pub const MAX_CYCLES: u32 = 1_000_000;

/// Peak bandwidth of DRAM or the MALL. MI300X's Infinity Cache peaks at 17.2 TB/s, its HBM3 at
/// 5.3 TB/s (public spec, configs/mi300x.ron).
pub const MAX_BANDWIDTH_GB_PER_S: u32 = 100_000;

/// The fixed cost of one copy or fill (`copy_engine.*_latency_ns`). Measured MI300A copies
/// start within 3-16 µs (configs/mi300a.ron); a second bounds any link a config may describe.
pub const MAX_COPY_LATENCY_NS: u64 = 1_000_000_000;

/// SIMDs per CU: 4 on GCN/CDNA, 2 on RDNA (LLVM AMDGPUBaseInfo `getEUsPerCU`).
pub const MAX_SIMDS_PER_CU: u32 = 4;

/// Lanes per SIMD: SIMD16 on GCN/CDNA, SIMD32 on RDNA; a wave has at most 64 lanes.
pub const SIMD_LANES: std::ops::RangeInclusive<u32> = 16..=64;

/// Wave slots per SIMD: LLVM AMDGPUBaseInfo `getMaxWavesPerEU` is at most 20 (GFX10).
pub const MAX_WAVES_PER_SIMD: u32 = 20;

/// Work-groups per CU: LLVM AMDGPUBaseInfo `getMaxWorkGroupsPerCU` is at most 40 (one-wave
/// groups on GCN).
pub const MAX_WORKGROUPS_PER_CU: u32 = 40;

/// VGPRs per lane of a SIMD: LLVM `getTotalNumVGPRs` is at most 1536 (RDNA3 wave32).
pub const MAX_VGPRS_PER_SIMD: u32 = 2048;

/// SGPRs per SIMD: 800 on GCN/CDNA (LLVM `getTotalNumSGPRs`), 2048 on RDNA3 (ROCm spec table).
pub const MAX_SGPRS_PER_SIMD: u32 = 4096;

/// Slow-op rate divisors: the slowest AMD FP64 rate is 1/32 of FP32 (consumer RDNA).
pub const MAX_RATE_DIVISOR: u32 = 64;

/// LDS per CU: the largest is gfx950's 160 KiB (LLVM GCNProcessors.td); 64 KiB elsewhere.
pub const MAX_LDS_BYTES: u32 = 256 * 1024;

/// LDS banks. LLVM gives every GCN, CDNA and RDNA processor 32 (16 on a few early APUs):
/// AMDGPU.td `FeatureLDSBankCount32`/`FeatureLDSBankCount16`; an RDNA WGP's 128 KiB LDS is
/// two such halves, 64 banks in all (AMD HIP docs, RDNA hardware features). The timing model
/// counts bank conflicts in an array of this many banks (`timing::lds_banks`).
pub const MAX_LDS_BANKS: u32 = 64;

/// LDS bank width: banks are dwords on every AMD GPU (ISA guides, "Local Data Share"); 8 and
/// 16 are allowed for experiments. At least 4, so one lane's 16-byte access spans at most
/// four banks (see `timing::lds_banks`).
pub const LDS_BANK_WIDTH_BYTES: std::ops::RangeInclusive<u32> = 4..=16;

/// Cache lines: AMD caches use 64- or 128-byte lines (Mesa ac_gpu_info `tcc_cache_line_size`,
/// CDNA 3 white paper). At most 128 because a line's byte masks are `u128`
/// (`memsys::cache::LineMask`); at least 16, one lane's widest access (`dwordx4`).
pub const LINE_BYTES: std::ops::RangeInclusive<u32> = 16..=128;

/// Associativity: AMD documents up to 16 ways (CDNA 3 white paper, L2); a lookup scans the
/// ways of a set, so a huge count would make every access slow.
pub const MAX_WAYS: u32 = 64;

/// One cache's capacity. The largest on-chip cache is MI300X's 256 MiB Infinity Cache.
pub const MAX_CACHE_BYTES: u64 = 1 << 30;

/// Request and tag-access granules: at least a dword, the unit of the vector memory path.
pub const MIN_REQUEST_BYTES: u32 = 4;

/// Vector L1 address-unit rates per cycle (lanes, tag accesses): a wave has at most 64 lanes.
pub const MAX_PER_CYCLE: u32 = 64;

/// Misses in flight per L1: AMD L1s track on the order of a hundred (configs: 52-128).
pub const MAX_OUTSTANDING_MISSES: u32 = 65_536;

/// Address-interleaved channels of one XCD's L2 or of DRAM. MI300X has 16 L2 channels per XCD
/// and 128 HBM channels (configs/mi300x.ron).
pub const MAX_CHANNELS: u32 = 1024;

/// Bytes an L2 channel returns per cycle: 64 or 128 on AMD parts (rocprof-compute docs).
pub const MAX_CHANNEL_BYTES_PER_CYCLE: u32 = 4096;

/// Shader arrays per shader engine: 1 or 2 on AMD parts (Mesa ac_gpu_info, configs).
pub const MAX_ARRAYS_PER_ENGINE: u32 = 16;

/// Work-groups the dispatchers start per microsecond: measured rates are about 1 000-2 000
/// (gpu-benches gpu-small-kernels); the bound allows 1 024 a cycle at the highest clock.
pub const MAX_WORKGROUPS_PER_US: u32 = 1024 * MAX_CLOCK_MHZ;

/// Host memory the timing model's caches and pipes may take. The largest built-in config,
/// MI300X, needs about 0.3 GiB (most of it the MALL's tags); the host's available memory is
/// checked as well where the system reports it.
pub const MAX_MODEL_BYTES: u64 = 4 << 30;
