#!/bin/sh
# rocm-suites.sh: run representative subsets of ROCm's own upstream test suites (rocPRIM,
# hipCUB, rocThrust, rocRAND/hipRAND, rocSPARSE, rocBLAS, hipBLAS, rocWMMA) under `hipscope exec`,
# i.e. the unmodified Debian test binaries with every kernel on the simulated GPU, and
# write pass/fail counts, wall and simulated times and the failing tests to
# reports/rocm-suites.md.
#
# The test binaries need glibc >= 2.38, so they run inside a Debian unstable (ROCm 6.4) or
# experimental (ROCm 7.2) root made by scripts/rocm-root.sh (see scripts/rocm-facts.md,
# section e, for the packages, binaries and test counts). hipscope (built on Debian 12)
# runs fine inside that root: this script copies the freshly built `hipscope` and its
# runtime (`deps/libamdhip64.so`, which `hipscope exec` looks for beside itself, see
# runtime_library() in src/cmd/exec/mod.rs) to ROOT/opt/hipscope/, mounts /proc and /dev
# in the root (unmounted again on exit) and runs, for each selected test binary,
#
#   chroot ROOT /opt/hipscope/hipscope exec --gpu G --mode M [--report R.json] -- \
#       /usr/libexec/rocm/<package>/<binary> --gtest_filter=F --gtest_output=json:J
#
# under `timeout` (a hang costs at most --timeout seconds) and GNU time (wall time, peak
# RSS). Counts come from gtest's JSON output; when the program dies before writing it
# (abort, signal, timeout), from its log: the test that was running is counted as failed
# ("crashed") and the binary is started again without the tests already done (--resumes).
#
# Usage (from anywhere; paths below are relative to the repository):
#   scripts/rocm-suites.sh [options]
#     -r, --rocm 6.4|7.2     which root (default 6.4): ~/.cache/hipscope/rocm-root-VER
#                            (or $HIPSCOPE_ROCM_ROOT)
#     -g, --gpu G[,G...]     simulated GPUs (default mi210), e.g. mi210,rx7900xtx
#     -m, --mode M           functional | timing | both (default functional)
#     -s, --select PAT[,..]  only selection rows whose suite or binary matches a shell
#                            pattern (e.g. -s rocprim, -s 'test_device_*', -s rocblas-test)
#     -t, --timeout SEC      per invocation of a test binary (default 1200)
#         --resumes N        restarts after a crash, skipping the tests done (default 3)
#         --smoke            run only the first test each filter selects (does it work?)
#         --no-build         do not run `cargo build --release` first
#         --report-only      only rewrite reports/rocm-suites.md from earlier results (their
#                            logs parsed again)
#     -l, --list             print the selection and exit
#
# $HIPSCOPE_ROOT_INSTALL names the directory inside the root that receives hipscope (default
# /opt/hipscope), so two checkouts can run suites in one root at once.
#
# Outputs: target/rocm-suites/VER/GPU-MODE/NN-BINARY.{log,json,report.json,result,
# failures.tsv,cmd} (logs, gtest JSON, hipscope --report, one TSV result row, one row per
# failing test, the exact command) and reports/rocm-suites.md, made from every *.result
# under target/rocm-suites/ (so runs for other GPUs, modes or roots add up) merged with the
# report as it stands: the rows and failure sections of a (ROCm, GPU, suite, mode) that has
# results here replace the earlier ones, every other (ROCm, GPU, suite, mode) keeps its rows
# (runs made elsewhere are not lost). tests/suite/rocm_suites_merge.rs checks the merge.
#
# Needs: root (chroot, mount), python3 (JSON and report), cc (only for the stand-in),
# timeout and /usr/bin/time on the host (the roots have no `time`).

set -u

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here" || exit 1

ver=6.4
gpus=mi210
modes=functional
select=
inst=${HIPSCOPE_ROOT_INSTALL:-/opt/hipscope}
tmo=1200
resumes=3
smoke=0
build=1
report_only=0
list_only=0

usage() { sed -n '/^# Usage/,/^# Outputs/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit "${1:-0}"; }

while [ $# -gt 0 ]; do
    case $1 in
        -r|--rocm) ver=$2; shift 2 ;;
        -g|--gpu) gpus=$2; shift 2 ;;
        -m|--mode) modes=$2; shift 2 ;;
        -s|--select) select=$2; shift 2 ;;
        -t|--timeout) tmo=$2; shift 2 ;;
        --resumes) resumes=$2; shift 2 ;;
        --smoke) smoke=1; sfx=-smoke; shift ;;
        --no-build) build=0; shift ;;
        --report-only) report_only=1; shift ;;
        -l|--list) list_only=1; shift ;;
        -h|--help) usage 0 ;;
        *) echo "rocm-suites.sh: unknown option $1" >&2; usage 2 ;;
    esac
done
case $modes in both) modes="functional timing" ;; functional|timing) ;; *) echo "rocm-suites.sh: --mode functional|timing|both" >&2; exit 2 ;; esac
case $ver in 6.4|7.2) ;; *) echo "rocm-suites.sh: --rocm 6.4|7.2" >&2; exit 2 ;; esac

root=${HIPSCOPE_ROCM_ROOT:-$HOME/.cache/hipscope/rocm-root-$ver}
outbase=target/rocm-suites
report=reports/rocm-suites.md
py=$outbase/rocm-suites-helper.py
sfx=                            # --smoke results go to GPU-MODE-smoke/, not in the report

# Print a path relative to the repository, or with ~ for $HOME.
show() { printf '%s\n' "$1" | sed -e "s|$here/||g" -e "s|$HOME|~|g"; }
say() { printf '%s\n' "$*" | sed -e "s|$here/||g" -e "s|$HOME|~|g"; }

# ---------------------------------------------------------------------------------------
# The selection: one row per invocation, `versions|suite|package dir|binary|kind|filter|why`.
#   versions: `*` (both roots), `6.4` or `7.2`; package dir: a pattern under
#   /usr/libexec/rocm/ (package names carry the soname, librocblas4 vs librocblas5);
#   kind: gtest, or thrust (rocThrust 6.4: Thrust's own unittest driver, not gtest; the
#   filter is a `:`-list of test names, run with --sizes=tiny); filter: a gtest filter.
# The filters are chosen so that each suite exercises every kind of kernel it has (block,
# warp and device level; every BLAS level and precision; several sparse formats; every
# generator family) while keeping the run to minutes on a 2-core host: typed test suites
# are instantiated per (type, block size) and numbered /0, /1, ... in the order of the
# test's type list, so a few instance numbers pick a few (type, size) pairs of each suite.
# ---------------------------------------------------------------------------------------
selection() {
    cat <<'EOF'
# --- rocPRIM: header-only primitives; the block/warp tests run one kernel per (type, block
# size). Instances /1 (int or float, 64 threads = one wave64/two wave32), /5 (129 threads:
# a partial last wave) and /12 (unsigned/double at 256 threads) of every typed suite cover
# integer and floating types, full and partial waves.
*|rocprim|librocprim-tests|test_block_reduce|gtest|*/1.*:*/5.*:*/12.*|block reduce: raking, warp-reduce and raking-commutative algorithms, int/float/double, single value and arrays
*|rocprim|librocprim-tests|test_block_scan|gtest|*/1.*:*/5.*:*/12.*|block scan: inclusive/exclusive, with prefix callbacks (decoupled look-back building block), reduce-then-scan and warp-scan algorithms
*|rocprim|librocprim-tests|test_block_radix_sort|gtest|*/1.*:*/5.*:*/12.*:*/26.*|block radix sort: keys and pairs, ascending/descending, bit ranges; /26 is bool keys with __half values
*|rocprim|librocprim-tests|test_block_histogram|gtest|*/1.*:*/5.*|block histogram: LDS atomics and sort-based algorithms
*|rocprim|librocprim-tests|test_warp_reduce|gtest|*/3.*:*/4.*:*/8.*:*/13.*|warp reduce: logical warps of 32, 64 and 37 lanes (DPP, ds_swizzle, ds_bpermute paths), int/float/double, segmented
*|rocprim|librocprim-tests|test_warp_scan|gtest|*/3.*:*/4.*:*/8.*:*/13.*|warp scan: inclusive/exclusive/broadcast over 32, 64 and 37-lane logical warps
*|rocprim|librocprim-tests|test_device_reduce|gtest|*/0.*:*/5.*:*/20.*|device reduce: multi-block reduction with a second pass, argmin, empty input
7.2|rocprim|librocprim-tests|test_device_scan|gtest|*/0.*:*/5.*:*/20.*|device scan: single-pass decoupled look-back (cross-block atomics and spinning on flags); 6.4 ships no test_device_scan (hipCUB's DeviceScan below runs the same rocPRIM kernels)
*|rocprim|librocprim-tests|test_device_segmented_scan|gtest|*/0.*:*/3.*|device segmented scan: one block per segment, inclusive/exclusive, by head flags
*|rocprim|librocprim-tests|test_device_radix_sort|gtest|Id66/*:Id81/*|device radix sort: float keys with int values (all 32 bits), ushort keys over a bit range (4..10) descending; keys, pairs, double buffer. (Id100-107 add sizes up to 2^32 elements: minutes per test.)
*|rocprim|librocprim-tests|test_device_run_length_encode|gtest|*/0.*:*/4.*:*/9.*|device run-length encode: runs and non-trivial runs (look-back scan + select)
*|rocprim|librocprim-tests|test_device_histogram|gtest|*Even/0.*:*Range/0.*:*MultiEven/0.*:*IncorrectInput|device histogram: even/range bins, multi-channel, global atomics
*|rocprim|librocprim-tests|test_device_select|gtest|*/0.*:*/3.*|device select: flagged, predicate and unique (stream compaction with look-back)
*|rocprim|librocprim-tests|test_device_merge_sort|gtest|*/0.*:*/4.*|device merge sort: block sort + merge path
# --- hipCUB: the CUB API on top of rocPRIM; same kernels through another front end, plus
# its own (block load/store, iterators), so fewer instances.
*|hipcub|libhipcub-tests|test_hipcub_block_reduce|gtest|*/1.*:*/5.*|CUB BlockReduce: raking and warp-reductions algorithms
*|hipcub|libhipcub-tests|test_hipcub_block_scan|gtest|*/1.*:*/5.*|CUB BlockScan: inclusive/exclusive sum/scan, prefix callback
*|hipcub|libhipcub-tests|test_hipcub_block_radix_sort|gtest|*/1.*:*/5.*|CUB BlockRadixSort: keys/pairs, blocked/striped
*|hipcub|libhipcub-tests|test_hipcub_warp_reduce|gtest|*/3.*:*/4.*:*/8.*|CUB WarpReduce: full and partial logical warps
*|hipcub|libhipcub-tests|test_hipcub_warp_scan|gtest|*/3.*:*/4.*:*/8.*|CUB WarpScan
*|hipcub|libhipcub-tests|test_hipcub_device_reduce|gtest|*/0.*:*/3.*-*LargeIndices*|CUB DeviceReduce: Sum/Min/ArgMin/Reduce (LargeIndices: 2^32+ elements from a counting iterator, over 20 minutes simulated)
*|hipcub|libhipcub-tests|test_hipcub_device_scan|gtest|*/0.*:*/3.*|CUB DeviceScan: inclusive/exclusive, by key, future values
*|hipcub|libhipcub-tests|test_hipcub_device_radix_sort|gtest|Id63/*:Id75/*|CUB DeviceRadixSort: SortKeys/SortPairs (+double buffer) of float keys with int values and of ushort keys over bits 4..10, descending (instances are IdNN/0, one per type set; Id87/Id91 add huge sizes)
*|hipcub|libhipcub-tests|test_hipcub_device_run_length_encode|gtest|*/0.*:*/3.*|CUB DeviceRunLengthEncode: Encode and NonTrivialRuns
*|hipcub|libhipcub-tests|test_hipcub_device_histogram|gtest|*/0.*|CUB DeviceHistogram: HistogramEven/Range, multi-channel
*|hipcub|libhipcub-tests|test_hipcub_device_select|gtest|*/0.*:*/3.*|CUB DeviceSelect: Flagged/If/Unique
# --- rocThrust: Thrust's own unittest driver, not gtest (6.4 and 7.2 alike: with a device,
# the 7.2 binaries too print `Running N unit tests.` and ignore --gtest_* flags); it runs the
# tests named on its command line, here with --sizes=tiny. The names are the binaries' own (`strings BIN | grep
# '^Test'`); left out are the *WithBigIndexes tests (2^32-element counting iterators: 8
# minutes each when simulated) and the host-only *Host ones.
*|rocthrust|librocthrust-tests|test_thrust_reduce|thrust|TestReduceSimpleDevice:TestReduceMixedTypesDevice:TestReduceWithIndirectionDevice:TestReduceCountingIterator:TestReduceDispatchExplicit|thrust::reduce through rocPRIM device reduce
*|rocthrust|librocthrust-tests|test_thrust_scan|thrust|TestScanSimpleDevice:TestInclusiveScan32:TestExclusiveScan32:TestScanMixedTypesDevice:TestInclusiveScanWithIndirectionDevice:TestInclusiveScanWithUserDefinedType:TestInclusiveScanWithConstAccumulatorDevice|thrust::inclusive/exclusive_scan: look-back scan, user-defined types
*|rocthrust|librocthrust-tests|test_thrust_sort|thrust|TestSortSimpleDevice:TestSortAscendingKey:TestSortDescendingKey:TestSortBool:TestSortBoolDescending|thrust::sort: radix sort for arithmetic keys, merge sort with comparators
*|rocthrust|librocthrust-tests|test_thrust_sort_by_key|thrust|TestSortByKeySimpleDevice:TestSortAscendingKeyValue:TestSortDescendingKeyValue:TestSortByKeyBool|thrust::sort_by_key: pairs
*|rocthrust|librocthrust-tests|test_thrust_transform|thrust|TestTransformUnarySimpleDevice:TestTransformBinarySimpleDevice:TestTransformIfUnarySimpleDevice:TestTransformIfBinarySimpleDevice:TestTransformUnaryCountingIterator:TestTransformUnaryToDiscardIteratorZipped:TestTransformWithIndirectionDevice|thrust::transform: unary/binary/if variants (elementwise kernels, fancy iterators)
*|rocthrust|librocthrust-tests|test_thrust_unique|thrust|TestUniqueSimpleDevice:TestUniqueCopySimpleDevice:TestUniqueCountSimpleDevice|thrust::unique/unique_copy/unique_count: device select
*|rocthrust|librocthrust-tests|test_thrust_set_union|thrust|TestSetUnion:TestSetUnionSimpleDevice:TestSetUnionWithEquivalentElementsSimpleDevice:TestSetUnionToDiscardIterator|thrust::set_union: merge-path set operations
# --- rocRAND: every generator family (XORWOW, Philox4x32-10, MRG32k3a: pseudo; Sobol32:
# quasi) through the host API and the device (kernel) API, with the uniform, normal,
# log-normal and Poisson distributions.
*|rocrand|librocrand1-tests|test_rocrand_kernel_xorwow|gtest|*|device API: rocrand_init/rocrand/uniform/normal/log_normal/poisson with XORWOW states
*|rocrand|librocrand1-tests|test_rocrand_kernel_philox4x32_10|gtest|*|device API with Philox4x32-10 (counter-based, 4-wide)
*|rocrand|librocrand1-tests|test_rocrand_kernel_mrg|gtest|*|device API with MRG32k3a (double-precision recurrences)
*|rocrand|librocrand1-tests|test_rocrand_generate_uniform|gtest|*/0:*/1:*/2:*/7|host API rocrand_generate_uniform[_double] for 4 generator types
*|rocrand|librocrand1-tests|test_rocrand_generate_normal|gtest|*/0:*/1:*/2:*/7|host API normal distribution (Box-Muller), float and double
*|rocrand|librocrand1-tests|test_rocrand_xorwow_prng|gtest|*generator_prng_tests/0.*|XORWOW host generator: seeds, state progress, uniform/normal/log-normal/Poisson
*|rocrand|librocrand1-tests|test_rocrand_philox_prng|gtest|*generator_prng_tests/0.*|Philox host generator: the same checks
*|rocrand|librocrand1-tests|test_rocrand_mrg_prng|gtest|*generator_prng_tests/0.*|MRG32k3a host generator: the same checks
*|rocrand|libhiprand1-tests|test_hiprand_api|gtest|*/0:*/4|hipRAND host API on top of rocRAND
# --- rocSPARSE (data: rocsparse_test.data from librocsparse1-tests-data; tests that need
# downloaded matrix files are not in the `quick` category). Level 1 (doti: f32_r, f64_c),
# level 2 on 500x842 random matrices in four formats: CSR (csrmv with the adaptive and the
# stream algorithms), COO (spmv_coo, plain and atomic), ELL (spmv_ell), BSR (bsrmv, block
# dims 2/8/28/174); a triangular solve (csrsv, n=50: level scheduling where waves spin on
# flags set by other blocks); level 3 SpMM on CSR (row-split, nnz-split, merge-path) and one
# conversion (csr2coo). 72 tests.
*|rocsparse|librocsparse1-tests|rocsparse-test|gtest|quick/doti.*f32_r_*:quick/doti.*f64_c_*:quick/csrmv.*/f32_r_500_842_*_rand_L_csradaptive_0:quick/csrmv.*/f64_c_500_842_*_rand_L_csrstream_0:quick/spmv_coo.*/i32_f64_r*_500_842_*:quick/spmv_ell.*/i32_f32_r*_500_842_*:quick/bsrmv.*/f32_r_500_842_1_0_n1_0_row_*_NT_0b_rand_0:quick/csrsv.*/f64_r_50_1_0_*_reuse_auto_0b_rand_0:quick/spmm_csr.*/i32_i32_f32_r*_485_647_223_*_NT_NT_0b_col_row_csr*:quick/csr2coo.*|sparse level 1/2/3 and a conversion, real and complex
# --- rocBLAS (rocblas-test, `quick` category; it first parses its 0.9 GB rocblas_gtest.data,
# ~45 s). Level 1: axpy (f16/f32/complex, 33792 elements: many blocks), dot (all 5
# precisions), scal, nrm2 (two-pass reductions); level 2: gemv (N/T/C, 100x200), ger, trsv
# (lower/no-transpose and upper/transpose-unit, n=128); level 3: gemm and gemm_ex at 64^3 with
# beta != 0 in every precision rocBLAS has (f16, bf16, f32, f64, complex, int8: Tensile
# assembly kernels that rocBLAS loads from the .co/.hsaco files of
# /usr/lib/x86_64-linux-gnu/rocblas/<ver>/library/ with hipModuleLoad), trsm (left-lower and
# right-upper-transposed, 10x10: trsm is built on gemm). The Fortran (_F) and 64-bit-integer
# (I64) variants of the same tests are left out. 213 tests in 6.4, 189 in 7.2.
*|rocblas|librocblas*-tests|rocblas-test|gtest|_/axpy.blas1/quick_blas1_with_alpha_*_33792_*_1_1:_/dot.blas1/quick_blas1_*_1025_*:_/scal.blas1/quick_blas1_with_alpha_*_1025_1_*_1:_/nrm2.blas1/quick_blas1_*_1025_*:_/gemv.blas2/quick_gemv_small_*_100_200_2_200_1_0_1:_/ger.blas2/quick_ger_small_*_16_16_2_*:_/trsv.*/quick_trsv_small_*_LNN_128_33_*:_/trsv.*/quick_trsv_small_*_LTU_128_10_*:_/gemm.blas3_tensile/quick_gemm_small_*_64_64_64_1_64_64_3_64:_/gemm_ex.blas3_tensile/quick_gemm_small_*_NN_64_64_64_1_64_64_3_64_64:_/trsm.*/quick_trsm_small_*_LLNN_10_10_*:_/trsm.*/quick_trsm_small_*_RUTN_10_10_*-*_F:*_F_*:*I64*|BLAS levels 1-3, every precision of each function
# --- hipBLAS (7.2 only; unstable has no hipBLAS test package): the C API (_C; not the
# Fortran _F nor the 64-bit _C64/_F64 twins) of one function per level and kind over rocBLAS:
# axpy, dot (N=1000), gemv, ger (100x100), trsv (lower, n=65), gemm 600x500x33 (NN and TC,
# every precision), trsm (left-lower). 58 tests.
7.2|hipblas|libhipblas*-tests|hipblas-test|gtest|_/axpy.blas1/quick_axpy_*_N_1000_*_C:_/dot.blas1/quick_dot*_N_1000_*_C:_/gemv.blas2/quick_gemv_*_M_100_*_C:_/ger.blas2/quick_ger*_M_100_*_C:_/trsv.blas2/quick_trsv_*_uplo_L_transA_N_*_N_65_*_C:_/gemm.blas3/quick_gemm_*_transA_N_transB_N_M_600_*_C:_/gemm.blas3/quick_gemm_*_transA_T_transB_C_M_600_*_C:_/trsm.blas3/quick_trsm_*_side_L_uplo_L_transA_N_diag_N_*_workspace_0_C|hipBLAS wrappers over rocBLAS, BLAS levels 1-3
# --- rocWMMA (7.2 only; unstable has no rocWMMA): the unit tests of librocwmma-tests (the GEMM
# tests are in librocwmma-tests-validate, below) of the wave-level matrix API: fragments filled, loaded and
# stored (one wave and cooperative), layouts, the contamination checks (a store leaves the
# neighbouring memory alone), cross-lane operations (DPP, swizzle, permute, blend) and AOS/SOA
# transforms. /0: each typed suite's first parameter set (one data type per suite, f8 to f64;
# the block sizes the GPU lacks skip). Every kernel is small; the suites hold 1.6 k-2.2 M tests.
7.2|rocwmma|librocwmma-tests|fill_fragment_test|gtest|*/0|fill_fragment for matrix_a/b/accumulator fragments of every block size and data type
7.2|rocwmma|librocwmma-tests|load_store_matrix_sync_test|gtest|*/0|load_matrix_sync/store_matrix_sync, row and column major
7.2|rocwmma|librocwmma-tests|load_store_matrix_coop_sync_test|gtest|*/0|cooperative loads and stores split over the waves of a block
7.2|rocwmma|librocwmma-tests|layout_test|gtest|*/0|the register layouts of matrix fragments (what MFMA/WMMA expect)
7.2|rocwmma|librocwmma-tests|contamination_test|gtest|*/0|loads and stores leave the memory around a fragment untouched
7.2|rocwmma|librocwmma-tests|cross_lane_ops_test|gtest|*/0|DPP, ds_swizzle, ds_permute/bpermute, blend and permlane operations
7.2|rocwmma|librocwmma-tests|transforms_test|gtest|*/0|AOS/SOA fragment transforms
# --- rocWMMA's GEMM tests validated against rocBLAS (7.2 only, librocwmma-tests-validate:
# scripts/rocm-root.sh 7.2 with HIPSCOPE_ROCM_EXTRA=librocwmma-tests-validate): each test runs
# one rocWMMA GEMM kernel and rocBLAS's gemm_ex (Tensile) on the same data and compares them.
# The single-block kernel (PGR0_LB0_MP0_SB_NC). Its tests are numbered kernel x 42 + thread
# block x 7 + problem size (gtest Combine over 6 thread blocks and 7 problem sizes), kernels
# type-major over 3 BlockK (16x16: f8, bf8, i8, bf16, f16, h16, f32, xf32, f64) or 2 (32x32:
# the same without f64). Chosen: i8->i32, bf16->f32, f16->f32 and f32 16x16 NN with BlockK 16,
# one wave, 32x64x1024 (/253, /379, /505, /757) and with BlockK 32, four waves (64x4),
# 64x64x1024 (/315, /441, /567, /819); 32x32 TN (A transposed) with BlockK 16, one wave,
# 32x64x1024 (/169, /253, /337, /505).
7.2|rocwmma-validate|librocwmma-tests|gemm_PGR0_LB0_MP0_SB_NC-validate|gtest|*_16x16_NN.RunKernel/253:*_16x16_NN.RunKernel/379:*_16x16_NN.RunKernel/505:*_16x16_NN.RunKernel/757:*_16x16_NN.RunKernel/315:*_16x16_NN.RunKernel/441:*_16x16_NN.RunKernel/567:*_16x16_NN.RunKernel/819:*_32x32_TN.RunKernel/169:*_32x32_TN.RunKernel/253:*_32x32_TN.RunKernel/337:*_32x32_TN.RunKernel/505|rocWMMA GEMM (MFMA/WMMA through fragments) against rocBLAS gemm_ex: i8, bf16, f16, f32 inputs, 16x16 and 32x32 blocks, one and four waves
# The same kernel with f8 and bf8 inputs (f32 out), which the tests check against their CPU
# reference (rocBLAS has no such gemm_ex), so they run where rocBLAS cannot (Debian's rocBLAS
# 7.2 has no gfx950 Tensile library): /1, /127 (16x16 NN, BlockK 16, one wave, 32x64x1024),
# /63, /189 (BlockK 32, four waves, 64x64x1024), 32x32 TN /1, /85 (BlockK 16, one wave).
7.2|rocwmma-validate|librocwmma-tests|gemm_PGR0_LB0_MP0_SB_NC-validate|gtest|*_16x16_NN.RunKernel/1:*_16x16_NN.RunKernel/127:*_16x16_NN.RunKernel/63:*_16x16_NN.RunKernel/189:*_32x32_TN.RunKernel/1:*_32x32_TN.RunKernel/85|rocWMMA GEMM with f8/bf8 inputs against the tests' CPU reference
EOF
}

# The selection rows for this root, numbered (the number names the result files, so it does
# not depend on --select), after --select.
rows() {
    n=0
    selection | grep -v '^#' | grep -v '^ *$' | while IFS='|' read -r v suite pkg bin kind filter why; do
        case $v in '*'|"$ver") ;; *) continue ;; esac
        n=$((n + 1))
        if [ -n "$select" ]; then
            hit=0
            for p in $(printf '%s' "$select" | tr ',' ' '); do
                # shellcheck disable=SC2254
                case $suite in $p) hit=1 ;; esac
                # shellcheck disable=SC2254
                case $bin in $p) hit=1 ;; esac
            done
            [ $hit = 1 ] || continue
        fi
        printf '%s|%s|%s|%s|%s|%s|%s\n' "$n" "$suite" "$pkg" "$bin" "$kind" "$filter" "$why"
    done
}

if [ $list_only = 1 ]; then
    rows | awk -F'|' '{printf "%2d %-10s %-34s %-6s %s\n", $1, $2, $4, $5, $6}'
    exit 0
fi

# ---------------------------------------------------------------------------------------
# The helper: parses gtest JSON and logs, Thrust driver logs and hipscope reports, and
# writes the Markdown report. Written next to the results at each start.
# ---------------------------------------------------------------------------------------
mkdir -p "$outbase"
cat > "$py" <<'PYEOF'
import json, os, re, sys, glob, collections

def read(p):
    try:
        with open(p, errors='replace') as f:
            return f.read()
    except OSError:
        return ''

RUN = re.compile(r'^\[ RUN      \] (\S+)')
END = re.compile(r'^\[ +(OK|FAILED|SKIPPED) +\] (\S+?)(,| \(|$)')
HIPSCOPE = re.compile(r'^hipscope: (?!.*launch\(es\))')   # not the per-kernel summary lines

def oneline(s, n=220):
    s = re.sub(r'\s+', ' ', s).strip()
    return s if len(s) <= n else s[:n - 3] + '...'

def segments(log):
    """test name -> (status, lines printed while it ran) from a gtest log; plus the tail."""
    cur, buf, out, order = None, [], {}, []
    for line in log.splitlines():
        m = RUN.match(line)
        if m:
            cur, buf = m.group(1), []
            order.append(cur)
            continue
        m = END.match(line)
        if m and cur is not None and m.group(2) == cur:
            out[cur] = (m.group(1), buf)
            cur, buf = None, []
            continue
        if cur is not None:
            buf.append(line)
    return out, order, cur, buf

def diagnostics(outdir, rid, logs):
    """Every distinct hipscope diagnostic of a run (hipscope prints some only once, e.g.
    `hipXxx is not supported`), with the test running when it first appeared."""
    seen = collections.OrderedDict()
    for log in logs:
        cur = '(before the first test)'
        for line in log.splitlines():
            m = RUN.match(line) or re.match(r'^Running (\w+)\.\.\.', line)
            if m:
                cur = m.group(1)
                continue
            if HIPSCOPE.match(line):
                key = re.sub(r'0x[0-9a-f]+', '0x…', line.strip())
                if key not in seen:
                    seen[key] = [cur, 0, line.strip()]
                seen[key][1] += 1
    with open(os.path.join(outdir, rid + '.diagnostics.tsv'), 'w') as f:
        for key, (test, n, line) in seen.items():
            f.write('%s\t%d\t%s\n' % (line, n, test))

def first_error(lines):
    """The first hipscope diagnostic, else the first gtest failure (location + message)."""
    hs = [l for l in lines if HIPSCOPE.match(l)]
    fail = ''
    for i, l in enumerate(lines):
        if re.search(r':\d+: Failure$', l) or 'Failure' == l.strip():
            msg = [x.strip() for x in lines[i + 1:i + 6] if x.strip()]
            act = [x for x in msg if x.startswith('Actual') or x.startswith('Which is') or 'Expected' in x]
            fail = oneline(l.replace(': Failure', ':') + ' ' + ' | '.join(msg[:1] + act[:1]))
            break
        if re.search(r'(error|exception|terminate|Abort|what\(\))', l, re.I) and not fail:
            fail = oneline(l)
    return (oneline(hs[0]) if hs else ''), fail

def gtest(args):
    """gtest OUTDIR ID NATTEMPTS: merge attempts -> ID.result fields on stdout, ID.failures.tsv."""
    outdir, rid, n = args[0], args[1], int(args[2])
    results = collections.OrderedDict()   # test -> (status, hipscope line, failure line)
    notes = []
    for a in range(1, n + 1):
        base = os.path.join(outdir, '%s.a%d' % (rid, a))
        log = read(base + '.log')
        seg, order, running, tail = segments(log)
        js = None
        if os.path.exists(base + '.json'):
            try:
                js = json.load(open(base + '.json'))
            except Exception:
                js = None
        if js is not None:
            for s in js.get('testsuites', []):
                for t in s.get('testsuite', []):
                    name = '%s.%s' % (s['name'], t['name'])
                    if t.get('result') == 'SKIPPED' or t.get('status') == 'NOTRUN':
                        results[name] = ('skipped', '', '')
                        continue
                    fails = t.get('failures', [])
                    lines = seg.get(name, ('', []))[1]
                    hs, fl = first_error(lines)
                    if fails:
                        msg = fails[0].get('failure', '').splitlines()
                        loc = msg[0] if msg else ''
                        rest = [x.strip() for x in msg[1:] if x.strip()]
                        act = [x for x in rest if x.startswith('Actual') or x.startswith('Which is')]
                        fl = oneline(loc + ' ' + ' | '.join(rest[:1] + act[:1]))
                        results[name] = ('failed', hs, fl)
                    else:
                        results[name] = ('passed', hs, '')
        else:
            for name in order:
                if name in seg:
                    st, lines = seg[name]
                    hs, fl = first_error(lines)
                    results[name] = ({'OK': 'passed', 'FAILED': 'failed', 'SKIPPED': 'skipped'}[st], hs, fl)
            if running is not None:
                hs, fl = first_error(tail)
                last = [l for l in tail if l.strip()][-3:]
                results[running] = ('crashed', hs, fl or oneline(' | '.join(last)) or 'died with no output')
            elif not order:
                # Nothing ran: the program died before its first test (load error, init).
                lines = [l for l in log.splitlines() if l.strip()]
                hs = [l for l in lines if HIPSCOPE.match(l)]
                bad = [l for l in lines if re.search(r'error|undefined|cannot|terminate|what\(\)|Abort|fault|not supported', l, re.I)]
                notes.append(oneline((hs or bad or lines[-1:] or ['no output'])[0]))
    with open(os.path.join(outdir, rid + '.failures.tsv'), 'w') as f:
        for name, (st, hs, fl) in results.items():
            if st in ('failed', 'crashed'):
                f.write('%s\t%s\t%s\t%s\n' % (name, st, hs, fl))
    diagnostics(outdir, rid, [read(os.path.join(outdir, '%s.a%d.log' % (rid, a))) for a in range(1, n + 1)])
    c = collections.Counter(st for st, _, _ in results.values())
    run = c['passed'] + c['failed'] + c['crashed']
    print('%d\t%d\t%d\t%d\t%d\t%s' % (run, c['passed'], c['failed'] + c['crashed'], c['crashed'], c['skipped'], '; '.join(dict.fromkeys(notes))))

def done(args):
    """done OUTDIR ID NATTEMPTS: the tests finished or crashed so far, as a gtest filter tail."""
    outdir, rid, n = args[0], args[1], int(args[2])
    names = []
    for a in range(1, n + 1):
        seg, order, running, tail = segments(read(os.path.join(outdir, '%s.a%d.log' % (rid, a))))
        names += order
    print(':'.join(dict.fromkeys(names)))

def thrust(args):
    """thrust OUTDIR ID: Thrust unittest driver (--verbose) log -> result fields, failures."""
    outdir, rid = args[0], args[1]
    log = read(os.path.join(outdir, rid + '.a1.log'))
    results = collections.OrderedDict()
    cur, buf = None, []
    for line in log.splitlines():
        m = re.match(r'^Running (\w+)\.\.\.(.*)$', line)
        if m:
            cur, buf = m.group(1), []
            line = m.group(2)
        if cur is None:
            continue
        m = re.search(r'\[(PASS|FAILURE|KNOWN FAILURE|ERROR|UNSUPPORTED)\]', line)
        if m:
            st = {'PASS': 'passed', 'FAILURE': 'failed', 'ERROR': 'failed', 'KNOWN FAILURE': 'skipped', 'UNSUPPORTED': 'skipped'}[m.group(1)]
            hs = [l for l in buf if HIPSCOPE.match(l)]
            rest = line[m.end():].strip()
            results[cur] = (st, oneline(hs[0]) if hs else '', oneline(' '.join([l for l in buf if l.strip() and not HIPSCOPE.match(l)][:2]) or rest))
            cur, buf = None, []
        else:
            buf.append(line)
    notes = []
    if cur is not None:
        hs = [l for l in buf if HIPSCOPE.match(l)]
        last = [l for l in buf if l.strip()][-3:]
        results[cur] = ('crashed', oneline(hs[0]) if hs else '', oneline(' | '.join(last)) or 'died with no output')
    if not results:
        lines = [l for l in log.splitlines() if l.strip()]
        notes.append(oneline((lines[-1:] or ['no output'])[0]))
    with open(os.path.join(outdir, rid + '.failures.tsv'), 'w') as f:
        for name, (st, hs, fl) in results.items():
            if st in ('failed', 'crashed'):
                f.write('%s\t%s\t%s\t%s\n' % (name, st, hs, fl))
    diagnostics(outdir, rid, [log])
    c = collections.Counter(st for st, _, _ in results.values())
    run = c['passed'] + c['failed'] + c['crashed']
    print('%d\t%d\t%d\t%d\t%d\t%s' % (run, c['passed'], c['failed'] + c['crashed'], c['crashed'], c['skipped'], '; '.join(notes)))

def sim(args):
    """sim OUTDIR ID NATTEMPTS: simulated kernel time (ms), launches, kernels from --report."""
    outdir, rid, n = args[0], args[1], int(args[2])
    ms, launches, kernels, have = 0.0, 0, set(), False
    for a in range(1, n + 1):
        p = os.path.join(outdir, '%s.a%d.report.json' % (rid, a))
        if not os.path.exists(p):
            continue
        try:
            d = json.load(open(p))
        except Exception:
            continue
        for k in d.get('kernels', []):
            have = True
            ms += k.get('time_ms') or 0.0
            launches += k.get('launches') or 0
            kernels.add(k.get('symbol') or k.get('kernel'))
    print('%s\t%d\t%d' % (('%.3f' % ms) if have else '-', launches, len(kernels)))

def known_failures(path):
    """scripts/rocm-known-failures.tsv: (ROCm, GPU glob, binary, test glob, cause) rows, the
    failures whose cause was found outside hipscope."""
    rows = []
    for l in read(path).splitlines():
        f = l.split('\t')
        if l.startswith('#') or len(f) < 5:
            continue
        rows.append(f[:5])
    return rows

def known_cause(known, r, test):
    import fnmatch
    for ver, gpu, binary, pattern, cause in known:
        if ver == r['ver'] and fnmatch.fnmatch(r['gpu'], gpu) and binary == r['binary'] and fnmatch.fnmatch(test, pattern):
            return cause
    return None

def cells(line):
    """The cells of a Markdown table row (pipes escaped as \| stay inside a cell)."""
    return [c.strip() for c in re.split(r'(?<!\\)\|', line.strip())[1:-1]]

def earlier(dest):
    """The report as it stands, to merge with: its main-table rows (key, cells, line), its
    timing/functional rows (cells, line), its start-up section and its failure sections
    (key, text), where key is (ROCm, GPU, suite, mode)."""
    old = {'rows': [], 'ratios': [], 'startup': [], 'sections': []}
    part, section = None, None
    for line in read(dest).splitlines():
        if line.startswith('| ROCm | suite | binary |'):
            part = 'rows'
        elif line.startswith('| ROCm | GPU | binary |'):
            part = 'ratios'
        elif line.startswith('| ROCm | GPU | mode |') or line.startswith('## Failing tests'):
            part = None
        elif line.startswith('## Library start-up'):
            part = 'startup'
        elif line.startswith('### '):
            m = re.match(r'^### (\S+) (\S+), (\S+) (\S+): `', line)
            section = [m.groups() if m else None, [line]]
            old['sections'].append(section)
            part = 'section'
            continue
        if part in ('rows', 'ratios') and line.startswith('| ') and not line.startswith('| ROCm'):
            c = cells(line)
            if part == 'rows' and len(c) >= 13:
                old['rows'].append(((c[0], c[4], c[1], c[5]), c, line))
            elif part == 'ratios' and len(c) >= 6:
                old['ratios'].append((c, line))
        elif part == 'startup':
            old['startup'].append(line)
        elif part == 'section':
            section[1].append(line)
    while old['startup'] and not old['startup'][-1].strip():
        old['startup'].pop()
    for sec in old['sections']:
        while sec[1] and (not sec[1][-1].strip() or sec[1][-1] == 'None.'):
            sec[1].pop()
    return old

def report(args):
    """report OUTBASE REPORT.md [KNOWN.tsv]: every *.result under OUTBASE -> Markdown, merged
    with the report as it stands: a (ROCm, GPU, suite, mode) with results here replaces its
    earlier rows and failure sections, every other one keeps them."""
    outbase, dest = args[0], args[1]
    known = known_failures(args[2]) if len(args) > 2 else []
    rows = []
    for p in sorted(glob.glob(os.path.join(outbase, '*', '*', '*.result'))):
        if os.path.basename(os.path.dirname(p)).endswith('-smoke'):
            continue
        f = read(p).rstrip('\n').split('\t')
        if len(f) < 20:
            continue
        keys = ['ver', 'gpu', 'mode', 'suite', 'binary', 'filter', 'kind', 'rc', 'run', 'passed', 'failed', 'crashed', 'skipped',
                'wall', 'peak', 'sim', 'launches', 'kernels', 'attempts', 'note', 'date', 'cpu']
        r = dict(zip(keys, f + [''] * (len(keys) - len(f))))
        r['dir'] = os.path.dirname(p)
        r['id'] = os.path.basename(p)[:-len('.result')]
        rows.append(r)
    order = ['rocprim', 'hipcub', 'rocthrust', 'rocrand', 'rocsparse', 'rocblas', 'hipblas', 'rocwmma', 'rocwmma-validate']
    modes = {'functional': 0, 'timing': 1}
    old = earlier(dest)
    fresh = {(r['ver'], r['gpu'], r['suite'], r['mode']) for r in rows}
    kept = [o for o in old['rows'] if o[0] not in fresh]
    # Where a row goes: by root, GPU, suite, the binary's number in the selection (from this
    # run's result names, else its place in the earlier report), mode.
    # A binary may be selected twice with two filters: a row is its binary and filter as shown.
    for r in rows:
        flt = r['filter'] if len(r['filter']) <= 60 else r['filter'][:57] + '...'
        r['shown'] = '`%s`' % flt.replace('|', '\\|').replace('*', '\\*').replace('_', '\\_')
    number = {(r['ver'], r['binary'], r['shown']): int(r['id'].split('-', 1)[0]) for r in rows if r['id'].split('-', 1)[0].isdigit()}
    first = {}
    for i, (k, c, _) in enumerate(old['rows']):
        first.setdefault((k[0], c[2].strip('`'), c[3]), 1000 + i)
        first.setdefault((k[0], c[2].strip('`'), None), 1000 + i)
    suite_of = {(c[0], c[2].strip('`')): c[1] for _, c, _ in old['rows']}
    suite_of.update({(r['ver'], r['binary']): r['suite'] for r in rows})

    def place(ver, gpu, suite, binary, mode, shown=None):
        rank = number.get((ver, binary, shown), first.get((ver, binary, shown), 10 ** 6))
        return (ver, gpu, order.index(suite) if suite in order else len(order), rank, modes.get(mode, 2))

    rows.sort(key=lambda r: place(r['ver'], r['gpu'], r['suite'], r['binary'], r['mode'], r['shown']))
    out = []
    w = out.append
    w('# ROCm upstream test suites under `hipscope exec`')
    w('')
    w('Made by `scripts/rocm-suites.sh` (see its header for options): the Debian test binaries of')
    w('ROCm 6.4 (unstable) / 7.2 (experimental), run in the roots of `scripts/rocm-root.sh` with')
    w("hipscope's runtime, every kernel on the simulated GPU. Filters are representative subsets;")
    w('their rationale is in the script. Logs, gtest JSON and hipscope reports are under')
    w('`target/rocm-suites/VER/GPU-MODE/`. *Wall* is the whole invocation (process start, library')
    w('load, data parsing: rocblas-test parses a 0.9 GB data file for ~45 s first); *peak* is the')
    w('largest RSS of any process; *sim* is the simulated kernel time summed over launches')
    w('(timing mode, from `--report`). *crashed* tests are counted as failed.')
    w('')
    w('| ROCm | suite | binary | filter | GPU | mode | tests run | passed | failed | wall | peak RSS | sim (launches) | note |')
    w('|---|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---|')
    tot = collections.defaultdict(lambda: [0, 0, 0, 0.0])
    table = []
    for r in rows:
        flt = r['filter'] if len(r['filter']) <= 60 else r['filter'][:57] + '...'
        flt = flt.replace('|', '\\|').replace('*', '\\*').replace('_', '\\_')
        note = r['note']
        if r['rc'] not in ('0', '1') and not note:
            note = 'exit %s' % r['rc']
        elif r['rc'] not in ('0', '1'):
            note = 'exit %s: %s' % (r['rc'], note)
        if r['crashed'] not in ('', '0'):
            note = ('%s crashed, %s attempts; ' % (r['crashed'], r['attempts'])) + note
        try:
            peak = '%.1f GB' % (int(r['peak']) / 1048576.0)
        except ValueError:
            peak = '-'
        simcol = '-' if r['sim'] in ('', '-') else '%s ms (%s)' % (r['sim'], r['launches'])
        table.append((place(r['ver'], r['gpu'], r['suite'], r['binary'], r['mode'], r['shown']), '| %s | %s | `%s` | `%s` | %s | %s | %s | %s | %s | %s s | %s | %s | %s |' % (
            r['ver'], r['suite'], r['binary'], flt, r['gpu'], r['mode'],
            r['run'], r['passed'], r['failed'], r['wall'], peak, simcol, note.replace('|', '\\|')[:200])))
        t = tot[(r['ver'], r['gpu'], r['mode'])]
        t[0] += int(r['run'] or 0); t[1] += int(r['passed'] or 0); t[2] += int(r['failed'] or 0); t[3] += float(r['wall'] or 0)
    for (ver, gpu, suite, mode), c, line in kept:
        table.append((place(ver, gpu, suite, c[2].strip('`'), mode, c[3]), line))
        t = tot[(ver, gpu, mode)]
        try:
            t[0] += int(c[6] or 0); t[1] += int(c[7] or 0); t[2] += int(c[8] or 0); t[3] += float(c[9].split()[0])
        except (ValueError, IndexError):
            pass
    for _, line in sorted(table, key=lambda x: x[0]):
        w(line)
    w('')
    w('Totals:')
    w('')
    w('| ROCm | GPU | mode | tests run | passed | failed | wall |')
    w('|---|---|---|---:|---:|---:|---:|')
    for k, t in sorted(tot.items()):
        w('| %s | %s | %s | %d | %d | %d | %.0f s |' % (k + tuple(t[:3]) + (t[3],)))
    def seconds(cell):
        try:
            return float(cell)
        except (TypeError, ValueError):
            return None

    # Timing vs functional wall time, per row present in both modes.
    pairs = collections.defaultdict(dict)
    for r in rows:
        pairs[(r['ver'], r['gpu'], r['id'])][r['mode']] = r
    ratios = [(k, v['functional'], v['timing']) for k, v in pairs.items() if 'functional' in v and 'timing' in v]
    lines = []
    for (v, g, i), f, t in ratios:
        col = 'cpu' if f.get('cpu') and t.get('cpu') else 'wall'
        # A time that is not a number (a result file of another field order) gives no row:
        # a ratio of garbage would read as a measurement.
        if seconds(f[col]) is None or seconds(t[col]) is None:
            continue
        ratio = '%.2fx' % (seconds(t[col]) / max(seconds(f[col]), 0.01))
        unit = 's' if col == 'cpu' else 's *wall*'
        lines.append((place(v, g, f['suite'], f['binary'], 'functional'),
                      '| %s | %s | `%s` | %s %s | %s %s | %s |' % (v, g, f['binary'], f[col], unit, t[col], unit, ratio)))
    # An earlier ratio stays until both modes of its binary ran here again (one mode alone
    # gives no new ratio to put in its place).
    rated = {(v, g, f['binary']) for (v, g, _), f, _ in ratios}
    for c, line in old['ratios']:
        binary = c[2].strip('`')
        suite = suite_of.get((c[0], binary), '')
        times_read = seconds(c[3].split()[0] if c[3].split() else '') is not None
        if (c[0], c[1], binary) not in rated and times_read:
            lines.append((place(c[0], c[1], suite, binary, 'functional'), line))
    if lines:
        w('')
        w('Timing mode over functional mode, same selection: CPU time (user + system, what the')
        w('simulation cost whatever else ran on the machine) where both runs recorded it, else wall')
        w('time (marked *wall*):')
        w('')
        w('| ROCm | GPU | binary | functional | timing | ratio |')
        w('|---|---|---|---:|---:|---:|')
        for _, line in sorted(lines, key=lambda x: x[0]):
            w(line)
    # Failing tests, grouped by their first error (gtest's failure, else hipscope's).
    w('')
    starts = []
    for p in sorted(glob.glob(os.path.join(outbase, '*', 'startup-*.tsv'))):
        starts += [l.split('\t') for l in read(p).splitlines() if l.count('\t') >= 8]
    # Start-up rows by (ROCm, GPU, library): those measured here replace the earlier ones.
    startup = []
    for f in starts:
        ver, gpu, lib, size, dl, create, call, st, wall, peak = (f + [''] * 10)[:10]
        startup.append(((ver, gpu, '`%s`' % lib), '| %s | %s | `%s` | %s | %s s | %s s (`%s`) | %s | %s s | %.0f MB |' % (ver, gpu, lib, size, dl, call, create, st, wall, float(peak or 0) / 1024)))
    measured = {k for k, _ in startup}
    for line in old['startup']:
        c = cells(line) if line.startswith('| ') and not line.startswith('| ROCm') else []
        if len(c) >= 9 and (c[0], c[1], c[2]) not in measured:
            startup.append(((c[0], c[1], c[2]), line))
    if startup:
        w('## Library start-up')
        w('')
        w('`scripts/probes/library_start.c` under `hipscope exec`: `dlopen` of the library (its')
        w('constructors register its fat binaries), then its handle-creating call, the first HIP')
        w('calls, at which the runtime checks every registered fat binary for a code object for the')
        w("GPU. *Wall* and *peak RSS* are the whole `hipscope exec` process's (GNU time).")
        w('')
        w('| ROCm | GPU | library | size | dlopen | first call | status | wall | peak RSS |')
        w('|---|---|---|---:|---:|---:|---|---:|---:|')
        for _, line in sorted(startup, key=lambda x: x[0]):
            w(line)
        w('')
    w('## Failing tests')
    w('')
    w('Per run: first the hipscope diagnostics printed (some, like `hipXxx is not supported`,')
    w('only once per process, in the first test that hits them), then the failing tests grouped')
    w('by their first error: the gtest failure (location, message), else the hipscope')
    w('diagnostic, else the last lines before the process died. Up to 8 names per group; every')
    w("one is in the run's `NN-BINARY.failures.tsv` (test, status, hipscope line, failure line).")
    w('A test marked *known* fails for a cause found outside hipscope (a miscompiled test')
    w('binary, say); `scripts/rocm-known-failures.tsv` gives the evidence.')
    sections = []
    for r in rows:
        sec = []
        w = sec.append
        p = os.path.join(r['dir'], r['id'] + '.failures.tsv')
        lines = [l.rstrip('\n').split('\t') for l in read(p).splitlines() if l.strip()]
        diags = [l.rstrip('\n').split('\t') for l in read(os.path.join(r['dir'], r['id'] + '.diagnostics.tsv')).splitlines() if l.strip()]
        if not lines and not r['note']:
            continue
        sections.append((place(r['ver'], r['gpu'], r['suite'], r['binary'], r['mode']), sec))
        w('')
        w('### %s %s, %s %s: `%s` (%s failed of %s)' % (r['ver'], r['suite'], r['gpu'], r['mode'], r['binary'], r['failed'], r['run']))
        w('')
        w('Repro: `%s`' % read(os.path.join(r['dir'], r['id'] + '.cmd')).strip().replace('`', "'")[:700])
        if r['note']:
            w('')
            w('Note: `%s`' % r['note'].replace('`', "'"))
        if diags:
            w('')
            w('hipscope diagnostics in this run (times printed, first test):')
            for d in diags[:12]:
                d = d + [''] * (3 - len(d))
                w('- `%s` (%s×, first in `%s`)' % (oneline(d[0], 300).replace('`', "'"), d[1], d[2]))
            if len(diags) > 12:
                w('- ... and %d more distinct lines' % (len(diags) - 12))
        groups = collections.OrderedDict()
        for f in lines:
            f = f + [''] * (4 - len(f))
            key = f[3] or f[2] or f[1]
            key = re.sub(r'0x[0-9a-f]+', '0x…', key)
            groups.setdefault((f[1] if f[1] == 'crashed' else 'failed', key), []).append(f[0])
        for (st, key), names in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            w('')
            w('- %d %s: `%s`' % (len(names), st, key.replace('`', "'")))
            for n in names[:8]:
                cause = known_cause(known, r, n)
                w('  - `%s`%s' % (n, ' (known: %s)' % cause if cause else ''))
            if len(names) > 8:
                w('  - ... and %d more' % (len(names) - 8))
    for key, text in old['sections']:
        if key and (key[0], key[2], key[1], key[3]) not in fresh:
            binary = re.search(r'`([^`]+)`', text[0])
            sections.append((place(key[0], key[2], key[1], binary.group(1) if binary else '', key[3]), [''] + text))
    w = out.append
    for _, sec in sorted(sections, key=lambda x: x[0]):
        out.extend(sec)
    if not sections:
        w('')
        w('None.')
    with open(dest, 'w') as f:
        f.write('\n'.join(out) + '\n')

def reparse(args):
    """reparse OUTBASE: parse every run's logs again (after a change of this parser), updating
    the counts in its .result and its failures/diagnostics files."""
    import io, contextlib
    for p in sorted(glob.glob(os.path.join(args[0], '*', '*', '*.result'))):
        f = read(p).rstrip('\n').split('\t')
        if len(f) < 20:
            continue
        outdir, rid = os.path.dirname(p), os.path.basename(p)[:-len('.result')]
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            if f[6] == 'thrust':
                thrust([outdir, rid])
            else:
                gtest([outdir, rid, f[18]])
        res = buf.getvalue().rstrip('\n').split('\t')
        f[8:13] = res[:5]
        f[19] = res[5] if len(res) > 5 else ''
        with open(p, 'w') as out:
            out.write('\t'.join(f) + '\n')

{'gtest': gtest, 'done': done, 'thrust': thrust, 'sim': sim, 'report': report, 'reparse': reparse}[sys.argv[1]](sys.argv[2:])
PYEOF

if [ $report_only = 1 ]; then
    python3 "$py" reparse "$outbase" && python3 "$py" report "$outbase" "$report" scripts/rocm-known-failures.tsv && say "wrote $report"
    exit 0
fi

if [ ! -d "$root/usr/libexec/rocm" ]; then
    say "rocm-suites.sh: no ROCm $ver root at $root (make it with scripts/rocm-root.sh $ver)" >&2
    exit 1
fi

# --- Build and install hipscope into the root -------------------------------------------
if [ $build = 1 ]; then
    # Other work may be in progress in the tree: retry a failing build a few times.
    n=0
    until cargo build --release >"$outbase/build.log" 2>&1; do
        n=$((n + 1))
        if [ $n -ge 5 ]; then say "rocm-suites.sh: cargo build --release failed 5 times (see $outbase/build.log)" >&2; exit 1; fi
        say "cargo build --release failed; retrying in 60 s"
        sleep 60
    done
fi
for f in target/release/hipscope target/release/deps/libamdhip64.so; do
    [ -f "$f" ] || { echo "rocm-suites.sh: $f missing; run cargo build --release" >&2; exit 1; }
done
mkdir -p "$root$inst/deps" "$root/tmp"
chmod 1777 "$root/tmp"
# Copy (not link: the root must see files inside it); keep the times, which hipscope uses to
# pick the newer runtime and to know when its per-release copies in deps/hipscope-abi/ are
# stale.
cp -p target/release/hipscope "$root$inst/hipscope"
cp -p target/release/deps/libamdhip64.so "$root$inst/deps/libamdhip64.so"
rm -f "$root$inst/libamdhip64.so"    # an older copy beside the executable would win if newer

# --- Mount /proc and /dev in the root; undo on exit --------------------------------------
mounted=
child=
cleanup() {
    # A test still running (interrupted): end its process group (timeout's), then unmount.
    if [ -n "$child" ]; then kill -TERM -"$child" 2>/dev/null; sleep 2; kill -KILL -"$child" 2>/dev/null; child=; fi
    for m in $mounted; do umount "$root/$m" 2>/dev/null || umount -l "$root/$m" 2>/dev/null; done
    mounted=
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM HUP
if ! mountpoint -q "$root/proc"; then mount -t proc proc "$root/proc" && mounted="$mounted proc"; fi
if ! mountpoint -q "$root/dev"; then mount --bind /dev "$root/dev" && mounted="$mounted dev"; fi

# --- Run ----------------------------------------------------------------------------------
# env -i: a clean environment inside the root (no host paths); GTEST_LISTENER makes
# rocblas-test print the [ RUN ]/[ OK ] lines it hides by default (needed to tell which test
# crashed); the others ignore it.
runenv="env -i PATH=/usr/bin:/bin HOME=/root LANG=C.UTF-8 GTEST_COLOR=no GTEST_LISTENER=PASS_LINE_IN_LOG"

# run_one GPU MODE IDX SUITE PKG BIN KIND FILTER
run_one() {
    gpu=$1 mode=$2 idx=$3 suite=$4 pkg=$5 bin=$6 kind=$7 filter=$8
    out=$outbase/$ver/$gpu-$mode$sfx
    inroot=/tmp/hipscope-suites/$ver-$gpu-$mode$sfx
    mkdir -p "$out" "$root$inroot"
    rid=$(printf '%02d-%s' "$idx" "$bin")
    # shellcheck disable=SC2086
    path=$(cd "$root/usr/libexec/rocm" && ls -d $pkg/$bin 2>/dev/null | head -n 1)
    if [ -z "$path" ]; then
        say "  $rid: not in this root (/usr/libexec/rocm/$pkg/$bin), skipped"
        return
    fi
    exe=/usr/libexec/rocm/$path
    rm -f "$out/$rid".*
    if [ $smoke = 1 ] && [ "$kind" = gtest ]; then
        # The first test the filter selects (listing is cheap except for rocblas-test).
        # shellcheck disable=SC2086
        first=$(timeout 600 chroot "$root" $runenv $inst/hipscope exec --gpu "$gpu" -- "$exe" --gtest_list_tests "--gtest_filter=$filter" 2>/dev/null |
            awk '/^[^ ]/ {s = ($1 ~ /\.$/) ? $1 : ""} /^  / && s != "" {print s $1; exit}')
        [ -n "$first" ] && filter=$first
    fi
    report_flag=
    wall=0 cpu=0 peak=0 rc=0 a=0
    neg=
    while :; do
        a=$((a + 1))
        rm -f "$root$inroot/$rid.a$a.json" "$root$inroot/$rid.a$a.report.json"
        [ "$mode" = timing ] && report_flag="--report $inroot/$rid.a$a.report.json"
        if [ "$kind" = thrust ]; then
            set -- --verbose --sizes=tiny
            for t in $(printf '%s' "$filter" | tr ':' ' '); do set -- "$@" "$t"; done
        else
            f=$filter
            if [ -n "$neg" ]; then
                case $filter in *-*) f="$filter:$neg" ;; *) f="$filter-$neg" ;; esac
            fi
            set -- "--gtest_filter=$f" "--gtest_output=json:$inroot/$rid.a$a.json"
        fi
        # shellcheck disable=SC2086
        cmd="chroot ROOT $runenv $inst/hipscope exec --gpu $gpu --mode $mode $report_flag -- $exe $*"
        [ $a = 1 ] && printf '%s\n' "$cmd" | sed "s|ROOT|$(show "$root")|" | sed "s|--gtest_filter=\([^ ]*\)|'--gtest_filter=\1'|" > "$out/$rid.cmd"
        # timeout runs in the background in its own process group (it makes one), so that an
        # interrupt of this script can end the whole test (see cleanup); GNU time inside it
        # reports the peak RSS of the chroot's process tree.
        t0=$(date +%s.%N)
        # shellcheck disable=SC2086
        timeout -k 30 "$tmo" /usr/bin/time -f '%e %M %U %S' -o "$out/$rid.a$a.time" \
            chroot "$root" $runenv $inst/hipscope exec --gpu "$gpu" --mode "$mode" $report_flag -- "$exe" "$@" \
            > "$out/$rid.a$a.log" 2>&1 &
        child=$!
        wait $child
        rc=$?
        child=
        t1=$(date +%s.%N)
        [ -f "$root$inroot/$rid.a$a.json" ] && mv "$root$inroot/$rid.a$a.json" "$out/$rid.a$a.json"
        [ -f "$root$inroot/$rid.a$a.report.json" ] && mv "$root$inroot/$rid.a$a.report.json" "$out/$rid.a$a.report.json"
        wall=$(echo "$wall $t0 $t1" | awk '{printf "%.1f", $1 + $3 - $2}')
        # shellcheck disable=SC2046
        set -- $(tail -n 1 "$out/$rid.a$a.time" 2>/dev/null)
        case ${2:-} in [0-9]*) [ "$2" -gt "$peak" ] && peak=$2 ;; esac
        # CPU time (user + system) of the process tree: what the simulation cost, whatever
        # else the machine was doing (wall time on a shared machine is not).
        cpu=$(echo "$cpu ${3:-0} ${4:-0}" | awk '{printf "%.1f", $1 + $2 + $3}')
        [ $rc = 124 ] && echo "hipscope-suites: TIMEOUT after $tmo s" >> "$out/$rid.a$a.log"
        # A test that checks a million elements one by one logs a failure line for each when
        # they are wrong (gigabytes); keep the first 256 MiB.
        if [ "$(stat -c %s "$out/$rid.a$a.log")" -gt 268435456 ]; then
            truncate -s 256M "$out/$rid.a$a.log"
            echo "hipscope-suites: log truncated at 256 MiB" >> "$out/$rid.a$a.log"
        fi
        # Resume only gtest runs that died mid-way (no JSON written, some test started).
        [ "$kind" = gtest ] || break
        [ -f "$out/$rid.a$a.json" ] && break
        [ $a -gt "$resumes" ] && break
        grep -q '^\[ RUN      \]' "$out/$rid.a$a.log" || break
        neg=$(python3 "$py" done "$out" "$rid" "$a")
        say "  $rid: died (exit $rc) in a test; restarting without the $(printf '%s\n' "$neg" | awk -F: '{print NF}') tests done or crashed"
    done
    if [ "$kind" = thrust ]; then
        res=$(python3 "$py" thrust "$out" "$rid")
    else
        res=$(python3 "$py" gtest "$out" "$rid" "$a")
    fi
    simres=$(python3 "$py" sim "$out" "$rid" "$a")
    # Concatenate the attempts' logs for reading; keep the per-attempt files for the parser.
    cat "$out/$rid".a*.log > "$out/$rid.log" 2>/dev/null
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t' "$ver" "$gpu" "$mode" "$suite" "$bin" "$filter" "$kind" "$rc" > "$out/$rid.result"
    printf '%s' "$res" | awk -F'\t' -v OFS='\t' '{printf "%s\t%s\t%s\t%s\t%s\t", $1, $2, $3, $4, $5}' >> "$out/$rid.result"
    note=$(printf '%s' "$res" | cut -f 6)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$wall" "$peak" "$simres" "$a" "$note" "$(date -u +%Y-%m-%dT%H:%MZ)" "$cpu" >> "$out/$rid.result"
    # One line on the terminal per invocation.
    printf '%s' "$res" | awk -F'\t' -v id="$rid" -v w="$wall" -v p="$peak" -v rc="$rc" -v s="$(printf '%s' "$simres" | cut -f1)" \
        '{printf "  %-40s run %5d  pass %5d  fail %5d  %7.1f s  %6.0f MB  sim %s ms  exit %s %s\n", id, $1, $2, $3, w, p / 1024, s, rc, $6}'
}

# --- Library start-up: registration cost of each precompiled library --------------------
# (scripts/probes/library_start.c, built with the host's cc; the root's newer glibc runs it.)
STARTUP="librocblas.so.*[0-9]|rocblas_create_handle librocsparse.so.*[0-9]|rocsparse_create_handle librocsolver.so.*[0-9]|rocblas_create_handle librocfft.so.*[0-9]|rocfft_setup"
startup() {
    gpu=$1
    cc -O2 -o "$root$inst/library_start" scripts/probes/library_start.c -ldl || return
    tsv=$outbase/$ver/startup-$gpu.tsv
    mkdir -p "$outbase/$ver"
    : > "$tsv"
    for pair in $STARTUP; do
        pat=${pair%%|*} create=${pair#*|}
        # shellcheck disable=SC2086
        lib=$(cd "$root/usr/lib/x86_64-linux-gnu" && ls $pat 2>/dev/null | sort | head -n 1)
        [ -n "$lib" ] || continue
        size=$(du -shL "$root/usr/lib/x86_64-linux-gnu/$lib" | cut -f1)
        # shellcheck disable=SC2086
        /usr/bin/time -f '%e %M' -o "$outbase/.startup.time" chroot "$root" $runenv $inst/hipscope exec --gpu "$gpu" -- \
            $inst/library_start "$lib" "$create" > "$outbase/.startup.out" 2>&1
        line=$(grep '^library_start' "$outbase/.startup.out" | cut -f 3-6)
        [ -n "$line" ] || line=$(printf -- '-\t%s\t-\t%s' "$create" "$(grep -v '^hipscope: .*launch(es)' "$outbase/.startup.out" | tail -n 1 | cut -c1-80)")
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$ver" "$gpu" "$lib" "$size" "$line" "$(tr ' ' '\t' < "$outbase/.startup.time" | tail -n 1)" >> "$tsv"
        say "  start-up of $lib on $gpu: $(tail -n 1 "$tsv" | cut -f 5-)"
    done
    rm -f "$outbase/.startup.out" "$outbase/.startup.time"
}
[ $smoke = 1 ] || for gpu in $(printf '%s' "$gpus" | tr ',' ' '); do startup "$gpu"; done

for gpu in $(printf '%s' "$gpus" | tr ',' ' '); do
    for mode in $modes; do
        say "== ROCm $ver, $gpu, $mode (logs: $outbase/$ver/$gpu-$mode$sfx/)"
        rows > "$outbase/.rows.$$"
        while IFS='|' read -r idx suite pkg bin kind filter why; do
            run_one "$gpu" "$mode" "$idx" "$suite" "$pkg" "$bin" "$kind" "$filter" < /dev/null
        done < "$outbase/.rows.$$"
        rm -f "$outbase/.rows.$$"
        python3 "$py" report "$outbase" "$report" scripts/rocm-known-failures.tsv
    done
done
say "wrote $report"
