//! `hipModuleOccupancyMaxActiveBlocksPerMultiprocessor` (and its `...WithFlags` twin, and
//! `hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags`) on kernels of the committed gfx942
//! code objects, loaded with `hipModuleLoad` on a simulated MI300X, against counts worked out
//! by hand from the kernels' own metadata (`workloads/golden/gfx942/*.notes.txt`, what
//! `llvm-readelf --notes` prints) and CDNA3's limits:
//! - a SIMD's register file holds 512 VGPRs per lane, shared by its waves, allocated in
//!   granules of 8 (AMD "AMD Instinct MI300 Instruction Set Architecture", the unified
//!   ArchVGPR + AccVGPR file of 512 registers; AMDGPUUsage, `GRANULATED_WORKITEM_VGPR_COUNT`
//!   for GFX90A/GFX942: granules of 8);
//! - at most 8 waves per SIMD, 4 SIMDs per CU (LLVM `getMaxWavesPerEU` for gfx90a-class
//!   targets; the MI300 ISA guide's 4 SIMDs per CU);
//! - 64 KiB of LDS per CU (the MI300 ISA guide's LDS size), a work-group's static LDS
//!   (`.group_segment_fixed_size`) plus its dynamic LDS;
//! - a block of N work-items is ceil(N / 64) wave64 waves.

use std::ffi::{c_char, c_int, c_uint, c_void, CString};
use std::path::Path;

// The runtime's C entry points, linked from the crate.
use amdhip64 as _;
extern "C" {
    fn hipModuleLoad(module: *mut *mut c_void, path: *const c_char) -> u32;
    fn hipModuleGetFunction(function: *mut *mut c_void, module: *mut c_void, name: *const c_char) -> u32;
    fn hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(blocks: *mut c_int, f: *mut c_void, block: c_int, lds: usize) -> u32;
    fn hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks: *mut c_int, f: *mut c_void, block: c_int, lds: usize, flags: c_uint) -> u32;
    fn hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks: *mut c_int, f: *const c_void, block: c_int, lds: usize, flags: c_uint) -> u32;
}

const SUCCESS: u32 = 0;
const INVALID_VALUE: u32 = 1;

/// The `hipFunction_t` of `kernel` in the gfx942 code object `stem`.
fn function(stem: &str, kernel: &str) -> *mut c_void {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../workloads/bin/gfx942/{stem}.co"));
    let path = CString::new(path.to_str().expect("a UTF-8 path")).expect("no NUL");
    let name = CString::new(kernel).expect("no NUL");
    let (mut module, mut f) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: valid out-pointers and NUL-terminated strings.
    unsafe {
        assert_eq!(hipModuleLoad(&mut module, path.as_ptr()), SUCCESS, "{stem}.co");
        assert_eq!(hipModuleGetFunction(&mut f, module, name.as_ptr()), SUCCESS, "{kernel}");
    }
    f
}

fn blocks(f: *mut c_void, block: c_int, lds: usize) -> c_int {
    let mut n = -1;
    // SAFETY: a valid out-pointer and a hipFunction_t of hipModuleGetFunction.
    let code = unsafe { hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&mut n, f, block, lds) };
    assert_eq!(code, SUCCESS);
    let mut with_flags = -1;
    // SAFETY: as above; flags 0 is hipOccupancyDefault.
    let code = unsafe { hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&mut with_flags, f, block, lds, 0) };
    assert_eq!(code, SUCCESS);
    assert_eq!(n, with_flags, "the default flags change nothing");
    n
}

/// One test: the runtime is a process-wide singleton configured by the environment once.
#[test]
fn occupancy_of_gfx942_kernels_matches_the_cdna3_limits() {
    std::env::set_var("HIPSCOPE_GPU", "mi300x");
    // gemm_f16_nt: .vgpr_count 136 (a multiple of 8) → 512 / 136 = 3 waves per SIMD, 12 per
    // CU; a 256-item block is 4 waves: 3 blocks. A 64-item block: 12 (under the 16
    // work-group slots).
    let gemm = function("gemm", "gemm_f16_nt");
    assert_eq!(blocks(gemm, 256, 0), 3, "gemm_f16_nt, VGPR-bound");
    assert_eq!(blocks(gemm, 128, 0), 6, "gemm_f16_nt, 2-wave blocks");
    // lds_transpose: .vgpr_count 8 → 8 waves per SIMD (the cap), 32 per CU: 8 blocks of 4
    // waves; with 30 KiB of dynamic LDS a block takes 1088 + 30720 bytes: 65536 / 31808 = 2.
    let transpose = function("lds", "lds_transpose");
    assert_eq!(blocks(transpose, 256, 0), 8, "lds_transpose, wave-bound");
    assert_eq!(blocks(transpose, 256, 30 * 1024), 2, "lds_transpose, LDS-bound");
    // lds_reduce: .vgpr_count 6 → granule 8; a 1024-item block is 16 waves: 32 / 16 = 2.
    let reduce = function("lds", "lds_reduce");
    assert_eq!(blocks(reduce, 1024, 0), 2, "lds_reduce, 16-wave blocks");
    // Flags other than hipOccupancyDefault (0) and hipOccupancyDisableCachingOverride (1)
    // are refused, as ROCm does; 1 counts as 0.
    let mut n = -1;
    // SAFETY: a valid out-pointer and hipFunction_t.
    unsafe {
        assert_eq!(hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&mut n, gemm, 256, 0, 2), INVALID_VALUE);
        assert_eq!(hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&mut n, gemm, 256, 0, 1), SUCCESS);
        assert_eq!(n, 3);
        assert_eq!(hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&mut n, gemm, 256, 0, 7), INVALID_VALUE);
    }
}
