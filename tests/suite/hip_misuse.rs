//! Bad input to `hipscope exec`: HIP programs that misuse the API (workloads/hip/misuse_*.cpp,
//! prebuilt in workloads/hip/bin) must get the error codes ROCm's runtime returns — each
//! program checks them against the codes the CLR source gives, names the source in its header,
//! and exits non-zero on a mismatch — and must end cleanly: exit 0 (or 3 with the GPU-fault
//! report where the real GPU faults), no hang, and a small host footprint even when the
//! program allocates 100 GiB of a 192 GB GPU. Output files `exec` cannot write stop it before
//! the program starts.

use crate::bounded;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// A run that takes longer is stopped and fails the test (the programs take well under a
/// second).
const TIMEOUT: Duration = Duration::from_secs(60);
/// The most memory a run may take, in kilobytes (peak RSS of the largest process of the run):
/// the programs allocate up to 192 GiB of simulated device memory and touch a few pages.
const MAX_RSS_KB: u64 = 2 * 1024 * 1024;
/// GNU time, which reports the peak RSS of the run.
const GNU_TIME: &str = "/usr/bin/time";

fn program(name: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads/hip/bin").join(name);
    assert!(p.is_file(), "{} is missing (workloads/build.sh builds it)", p.display());
    p
}

struct Run {
    /// None: stopped at the timeout.
    code: Option<i32>,
    stdout: String,
    stderr: String,
    /// Peak RSS in kilobytes, when GNU time is installed.
    rss_kb: Option<u64>,
}

/// `hipscope exec ARGS…`, under GNU time when it is installed, in its own process group so
/// that a hang can be stopped with the program.
fn exec(args: &[&str]) -> Run {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let rss_file = std::env::temp_dir().join(format!("hipscope-misuse-rss-{}-{n}", std::process::id()));
    let timed = Path::new(GNU_TIME).is_file();
    let mut cmd = if timed {
        let mut c = Command::new(GNU_TIME);
        c.arg("-o").arg(&rss_file).args(["-f", "%M", env!("CARGO_BIN_EXE_hipscope")]);
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_hipscope"))
    };
    let ended = bounded::run(cmd.arg("exec").args(args), TIMEOUT);
    let rss_kb = std::fs::read_to_string(&rss_file).ok().and_then(|t| t.lines().last()?.trim().parse().ok());
    let _ = std::fs::remove_file(&rss_file);
    let stdout = ended.stdout;
    let mut stderr = ended.stderr;
    if ended.timed_out {
        stderr.push_str(&format!("\n(stopped after {} s)", TIMEOUT.as_secs()));
    }
    // GNU time notes a non-zero exit status on stderr; it is not the program's.
    if timed {
        stderr = stderr.lines().filter(|l| !l.starts_with("Command exited with non-zero status")).map(|l| format!("{l}\n")).collect();
    }
    Run { code: ended.code, stdout, stderr, rss_kb }
}

/// Check a run's footprint; `Err` says what is wrong.
fn footprint(r: &Run) -> Result<(), String> {
    match r.rss_kb {
        Some(kb) if kb > MAX_RSS_KB => Err(format!("peak RSS {kb} KB, more than {MAX_RSS_KB} KB")),
        _ => Ok(()),
    }
}

const GPUS: [&str; 4] = ["mi300x", "mi300a", "mi210", "rx7900xtx"];
const MODES: [&str; 2] = ["functional", "timing"];

#[test]
fn misuse_programs_get_rocm_error_codes_and_end_cleanly_in_both_modes() {
    if !Path::new(GNU_TIME).is_file() {
        println!("note: {GNU_TIME} is not installed; peak memory is not checked");
    }
    let mut failures = Vec::new();
    let mut peak = 0;
    for name in ["misuse_memory", "misuse_launch", "misuse_handles", "bad_calls"] {
        let prog = program(name);
        for gpu in GPUS {
            for mode in MODES {
                let r = exec(&["--gpu", gpu, "--mode", mode, "--", &prog.to_string_lossy()]);
                peak = peak.max(r.rss_kb.unwrap_or(0));
                let ok = r.code == Some(0) && r.stdout.contains(&format!("PASS {name}")) && !r.stderr.contains("FAIL");
                if let (false, _) | (_, Err(_)) = (ok, footprint(&r)) {
                    failures.push(format!("--- {name} on {gpu} ({mode}): exit {:?}, {:?}\n{}\n{}", r.code, footprint(&r), r.stdout, r.stderr));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("peak RSS of any run: {peak} KB");
}

/// The GPU's memory decides `hipErrorOutOfMemory`: on MI300X (192 GB, configs/mi300x.ron) a
/// 100 GiB allocation succeeds, and 1 GiB allocations succeed until all 192 GiB are taken;
/// on RX 7900 XTX (24 GB) 100 GiB is refused and 24 fit.
#[test]
fn the_gpus_memory_not_the_hosts_decides_out_of_memory() {
    for (gpu, gib, big) in [("mi300x", 192, true), ("rx7900xtx", 24, false)] {
        let r = exec(&["--gpu", gpu, "--", &program("misuse_memory").to_string_lossy()]);
        assert_eq!(r.code, Some(0), "{gpu}:\n{}\n{}", r.stdout, r.stderr);
        assert!(r.stdout.contains(&format!("ok {gib} allocations of 1 GiB before hipErrorOutOfMemory")), "{gpu}:\n{}", r.stdout);
        assert_eq!(r.stdout.contains("hipMalloc of 100 GiB on a smaller GPU"), !big, "{gpu}:\n{}", r.stdout);
        footprint(&r).unwrap_or_else(|e| panic!("{gpu}: {e}"));
    }
}

#[test]
fn a_kernel_using_memory_freed_by_a_device_reset_faults_with_status_3() {
    for gpu in ["mi300x", "rx7900xtx"] {
        for mode in MODES {
            let r = exec(&["--gpu", gpu, "--mode", mode, "--", &program("reset_fault").to_string_lossy()]);
            assert_eq!(r.code, Some(3), "{gpu} ({mode}):\n{}\n{}", r.stdout, r.stderr);
            assert!(r.stdout.contains("reset done") && !r.stdout.contains("FAIL"), "{}", r.stdout);
            assert!(r.stderr.contains("kernel fault in `_Z8store_toPi`") && r.stderr.contains("memory violation"), "{}", r.stderr);
        }
    }
}

/// An output file that cannot be written stops `exec` with one line naming the flag and the
/// path, exit 2, before the program starts (the program here would create a file).
#[test]
fn an_unwritable_output_stops_exec_before_the_program_starts() {
    let dir = std::env::temp_dir().join(format!("hipscope-misuse-outputs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let marker = dir.join("program-ran");
    let missing = dir.join("no-such-dir/out.csv");
    let (missing, marker_s, dir_s) = (missing.to_string_lossy().into_owned(), marker.to_string_lossy().into_owned(), dir.to_string_lossy().into_owned());
    for (flag, path, mode) in
        [("--kernel-trace", missing.as_str(), "functional"), ("--counters", missing.as_str(), "timing"), ("--report", dir_s.as_str(), "functional")]
    {
        let r = exec(&["--mode", mode, flag, path, "--", "/usr/bin/touch", &marker_s]);
        assert_eq!(r.code, Some(2), "{flag}: {}", r.stderr);
        let lines: Vec<&str> = r.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "one line: {}", r.stderr);
        assert!(lines[0].contains(flag) && lines[0].contains(path), "{}", lines[0]);
        assert!(!marker.exists(), "{flag}: the program ran");
    }
    // A writable one lets the program run, and the check leaves no file behind (the library
    // creates the trace at the program's first HIP call, and touch makes none).
    let ok = dir.join("trace.csv");
    let r = exec(&["--kernel-trace", &ok.to_string_lossy(), "--", "/usr/bin/touch", &marker_s]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(marker.exists() && !ok.exists(), "the program ran, no trace file");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `sh -c 'ulimit -v KB && exec hipscope exec --gpu mi300x -- PROGRAM ARGS'`: a run under an
/// address-space limit (which counts every mapping, touched or not).
fn exec_limited(address_space_kb: u64, prog: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let script = format!("ulimit -v {address_space_kb} && exec \"$0\" exec --gpu mi300x -- \"$@\"");
    let out = Command::new("sh").args(["-c", &script, env!("CARGO_BIN_EXE_hipscope")]).arg(prog).args(args).output().expect("sh runs");
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Untouched device memory costs the host nothing, not even address space: under an 8 GiB
/// address-space limit misuse_memory still allocates 100 GiB, forty 256 MiB buffers and 192
/// GiB one GiB at a time on an MI300X, and passes.
#[test]
fn untouched_device_memory_takes_no_host_address_space() {
    let (code, stdout, stderr) = exec_limited(8 << 20, &program("misuse_memory"), &[]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("PASS misuse_memory") && stdout.contains("ok 192 allocations of 1 GiB"), "{stdout}");
}

/// A host that cannot back device memory a program really writes (2 GiB under a 1.5 GB
/// address-space limit) ends the program as a GPU memory fault would: one report, exit 3, no
/// abort.
#[test]
fn a_host_that_cannot_back_written_device_memory_ends_the_program_as_a_gpu_fault() {
    let (code, stdout, stderr) = exec_limited(1_500_000, &program("touch_memory"), &["2"]);
    assert_eq!(code, Some(3), "{stdout}\n{stderr}");
    assert!(stdout.contains("allocated 2 GiB") && !stdout.contains("PASS"), "{stdout}");
    assert!(stderr.contains("device memory fault: the host has no memory left"), "{stderr}");
    assert!(!stderr.contains("memory allocation of"), "{stderr}");
}
