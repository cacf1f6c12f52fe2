//! Our HIP test programs (workloads/hip/*.cpp, committed prebuilt in workloads/hip/bin with
//! code objects for every processor of the built-in GPUs) run under `hipscope exec`. Each
//! program checks its own results against a CPU computation, exits non-zero on any failed HIP
//! call or wrong value, and prints `PASS <name>`; the tests below require exit 0 and that line
//! on every built-in GPU in functional mode and on three GPUs in timing mode. Two programs'
//! output is also checked here against figures the runtime does not give: the exact device
//! printf lines, and the warp size, taken from the GPU config (configs/*.ron).
//!
//! The newer runtime areas have a program each (pitched 2D/3D copies and fills, calls from
//! several host threads and `hipStreamPerThread`, graphs captured from streams and built node
//! by node, texture objects over linear and pitched memory, host functions in stream order);
//! none of their calls may answer "not supported".
//!
//! Every (GPU, mode) pair runs even after one fails, so a failure lists all the pairs that
//! failed with their stderr.

use crate::bounded;

use hipscope_sim::gpus;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// GPUs for timing runs: one each of CDNA3, CDNA2 and RDNA3.
const TIMING_GPUS: [&str; 3] = ["mi300a", "mi210", "rx7900xtx"];

fn program(name: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads/hip/bin").join(name);
    assert!(p.is_file(), "{} is missing (workloads/build.sh builds it)", p.display());
    p
}

struct Run {
    gpu: String,
    mode: &'static str,
    /// The exit status; None when the run was stopped at the timeout.
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// A run that takes longer than this is stopped and counted as a failure (a runtime that
/// deadlocks must fail the test, not hang it), and the program's remaining pairs are not run
/// (a hang is rarely particular to one GPU, and each would cost the whole timeout). The
/// programs take seconds.
const TIMEOUT: Duration = Duration::from_secs(120);

fn exec(gpu: &str, mode: &'static str, prog: &Path) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hipscope"));
    // No no-progress bound: these programs' bounded spins are legal and may poll longer than
    // its default (seed_mp's reader gives up after 2^16 polls of a stale flag on MI300A in
    // timing mode, about 39 M cycles); they must run to their end as they did before.
    cmd.args(["exec", "--gpu", gpu, "--mode", mode, "--no-progress-cycles", "0", "--"]).arg(prog);
    let ended = bounded::run(&mut cmd, TIMEOUT);
    let mut stderr = ended.stderr;
    if ended.timed_out {
        stderr.push_str(&format!("\n(stopped after {} s)", TIMEOUT.as_secs()));
    }
    let code = if ended.timed_out { None } else { Some(ended.code.unwrap_or(-1)) };
    Run { gpu: gpu.to_string(), mode, code, stdout: ended.stdout, stderr }
}

/// Every built-in GPU in functional mode, then the timing GPUs in timing mode. Not mi355x: these
/// programs are built by the HIP 5.2 toolchain's clang-19, which has no gfx950 (the ROCm 7.2
/// builds of `tests/suite/hip_rocm_builds.rs` carry gfx950 code and run there). Not vega64 and
/// rx5700xt either: the programs' fat binaries do not carry gfx900 or gfx1010 code yet
/// (`HIP_ARCHS` of `workloads/build.sh`).
fn runs() -> Vec<(String, &'static str)> {
    let built = |g: &&str| !matches!(*g, "mi355x" | "vega64" | "rx5700xt");
    let mut v: Vec<(String, &'static str)> = gpus::builtin_names().into_iter().filter(built).map(|g| (g.to_string(), "functional")).collect();
    v.extend(TIMING_GPUS.iter().map(|g| (g.to_string(), "timing")));
    v
}

/// Runs `name` on every (GPU, mode) of `runs()`, applies `extra` to each successful run (it
/// returns a problem or None), and fails listing every pair that went wrong.
fn check_program(name: &str, extra: impl Fn(&Run) -> Option<String>) {
    let prog = program(name);
    let pass = format!("PASS {name}");
    let mut failures = Vec::new();
    let all = runs();
    for (k, (gpu, mode)) in all.iter().enumerate() {
        let r = exec(gpu, mode, &prog);
        let problem = if let Some(code) = r.code.filter(|&c| c != 0) {
            Some(format!("exit status {code}"))
        } else if r.code.is_none() {
            Some(format!("no exit within {} s", TIMEOUT.as_secs()))
        } else if !r.stdout.lines().any(|l| l == pass) {
            Some(format!("no `{pass}` line"))
        } else {
            extra(&r)
        };
        match problem {
            None => println!("{name} on {} ({}): ok", r.gpu, r.mode),
            Some(p) => {
                println!("{name} on {} ({}): {p}", r.gpu, r.mode);
                failures.push(format!("--- {name} on {} ({}): {p}\nstdout:\n{}\nstderr:\n{}", r.gpu, r.mode, r.stdout, r.stderr));
            }
        }
        if r.code.is_none() {
            let rest: Vec<String> = all[k + 1..].iter().map(|(g, m)| format!("{g} ({m})")).collect();
            if !rest.is_empty() {
                failures.push(format!("--- {name}: not run after the timeout: {}", rest.join(", ")));
            }
            break;
        }
    }
    assert!(failures.is_empty(), "{} of {} runs failed:\n{}", failures.len(), all.len(), failures.join("\n"));
}

#[test]
fn seed_message_passing_runs_in_both_forms() {
    check_program("seed_mp", |_| None);
}

#[test]
fn memset_then_vector_add() {
    check_program("memset_vadd", |_| None);
}

#[test]
fn constant_tables_and_symbol_copies() {
    check_program("constant_symbols", |_| None);
}

#[test]
fn device_counter_atomics_and_symbol_address() {
    check_program("device_counter", |_| None);
}

#[test]
fn managed_and_pinned_host_memory() {
    check_program("managed_host", |_| None);
}

#[test]
fn two_streams_with_events() {
    check_program("streams_events", |_| None);
}

#[test]
fn struct_argument_and_dynamic_shared_memory() {
    check_program("struct_shared", |_| None);
}

/// The lines device_printf's kernels print, formatted here as C's printf formats them: 2 blocks
/// of 64 threads, threads with `threadIdx.x % 16 == 3`, v = 10 + global index.
fn expected_printf_lines() -> Vec<String> {
    let mut v = Vec::new();
    for block in 0..2u32 {
        for t in (0..64u32).filter(|t| t % 16 == 3) {
            let val = 10 + block * 64 + t;
            v.push(format!("block {block} thread {t}: {val} squared is {}, half is {:.2}, hex {val:x} ok", val * val, f64::from(val) / 2.0));
        }
    }
    v
}

#[test]
fn device_printf_prints_the_expected_lines() {
    check_program("device_printf", |r| {
        let lines: Vec<&str> = r.stdout.lines().collect();
        let mut want = expected_printf_lines();
        // The first launch's threads print concurrently (any order), then one line from the
        // second launch, then the program's verdict; nothing else on stdout.
        if lines.len() != want.len() + 2 {
            return Some(format!("{} stdout lines, expected {}", lines.len(), want.len() + 2));
        }
        let mut got: Vec<String> = lines[..want.len()].iter().map(|s| s.to_string()).collect();
        got.sort();
        want.sort();
        if got != want {
            return Some(format!("first launch printed {got:?}, expected {want:?}"));
        }
        if lines[want.len()] != "second launch ok -1234567890123" {
            return Some(format!("second launch printed {:?}", lines[want.len()]));
        }
        None
    });
}

#[test]
fn device_properties_match_the_gpu_config() {
    check_program("device_props", |r| {
        let cfg = gpus::builtin(&r.gpu).expect("a built-in GPU");
        let value = |key: &str| r.stdout.lines().find_map(|l| l.strip_prefix(key)).map(str::trim);
        let want = cfg.wave_size.to_string();
        // Both the runtime's property and what the kernel's `warpSize` evaluated to must be the
        // config's wave size.
        for key in ["warpSize ", "device warpSize "] {
            if value(key) != Some(want.as_str()) {
                return Some(format!("`{key}` printed {:?}, the config's wave size is {want}", value(key)));
            }
        }
        // ROCm counts workgroup processors, not CUs, in WGP mode (configs/README.md).
        let per_mp = if cfg.mode == gpus::Mode::WGP { 2 } else { 1 };
        let mps = (cfg.compute_units / per_mp).to_string();
        if value("multiProcessorCount ") != Some(mps.as_str()) {
            return Some(format!("multiProcessorCount printed {:?}, expected {mps}", value("multiProcessorCount ")));
        }
        // gcnArchName is the processor, possibly followed by target features (`gfx942:sramecc+:xnack-`).
        let arch = value("gcnArchName ").unwrap_or("");
        let proc = cfg.processor.name();
        if arch != proc && !arch.starts_with(&format!("{proc}:")) {
            return Some(format!("gcnArchName {arch:?}, expected {proc}"));
        }
        None
    });
}

/// No HIP call the program made may have answered "not supported" (beyond `allowed`).
fn all_supported(allowed: &'static [&'static str]) -> impl Fn(&Run) -> Option<String> {
    move |r| r.stderr.lines().find(|l| l.ends_with("is not supported") && !allowed.iter().any(|a| l.contains(a))).map(|l| format!("unexpected: {l}"))
}

#[test]
fn pitched_2d_3d_copies_and_fills() {
    check_program("memcpy3d", all_supported(&[]));
}

#[test]
fn calls_from_several_host_threads_and_the_per_thread_stream() {
    check_program("host_threads", all_supported(&[]));
}

#[test]
fn graphs_captured_and_built() {
    check_program("graphs", all_supported(&[]));
}

/// Linear and pitched 2D textures everywhere but gfx94x, which has no image support: there the
/// runtime must say so (the program checks hipErrorNotSupported), and only there.
#[test]
fn texture_objects_over_linear_and_pitched_memory() {
    check_program("textures", |r| {
        let gfx94x = gpus::builtin(&r.gpu).expect("a built-in GPU").processor.name().starts_with("gfx94");
        let refused = r.stderr.contains("hipCreateTextureObject on gfx94x");
        match (gfx94x, refused) {
            (true, false) => Some("no message that gfx94x has no image support".into()),
            (false, true) => Some("textures refused on a GPU with image support".into()),
            _ => all_supported(&["gfx94x"])(r),
        }
    });
}

#[test]
fn host_functions_in_stream_order() {
    check_program("host_funcs", all_supported(&[]));
}
