//! `hipscope grade` on hostile inputs (issue 29, the classes the bad-input campaign found):
//! each ends with exit 2 and one located line on stderr — or, for a placement only a given
//! GPU cannot run, a grade and a warning — within seconds, without a panic or an abort, and
//! with every run's peak memory far below 2 GB (measured from the children's resource
//! usage). The grade crate's `tests/suite/bad_input.rs` checks the parser's exact errors on the
//! same classes at full size; here the files are written to disk and graded as a user would.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Longest one `hipscope grade` may take on these inputs (they end in milliseconds; a FIFO
/// that is opened would block for ever).
const RUN_LIMIT: Duration = Duration::from_secs(20);
/// Peak resident memory any run may reach, in KiB.
const MAX_RSS_KIB: libc::c_long = 2 * 1024 * 1024;

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `hipscope args…`, killing it after [`RUN_LIMIT`].
fn hipscope(args: &[&str]) -> Ran {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hipscope")).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("hipscope starts");
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let mut out = Ran { code: status.code().unwrap_or(-1), stdout: String::new(), stderr: String::new() };
            child.stdout.take().map(|mut s| s.read_to_string(&mut out.stdout));
            child.stderr.take().map(|mut s| s.read_to_string(&mut out.stderr));
            return out;
        }
        if started.elapsed() > RUN_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("hipscope {args:?} ran for more than {RUN_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The largest peak resident set of the children waited for so far, in KiB (Linux
/// `getrusage(RUSAGE_CHILDREN)`; its `ru_maxrss` is the largest child's).
fn children_peak_rss_kib() -> libc::c_long {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given; RUSAGE_CHILDREN is a valid `who`.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()) };
    assert_eq!(rc, 0, "getrusage");
    // SAFETY: getrusage succeeded, so the struct is initialised.
    unsafe { usage.assume_init() }.ru_maxrss
}

/// A fresh directory under the system's temporary directory.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hipscope-grade-bad-input-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

fn chain(term: &str, op: &str, n: usize) -> String {
    vec![term; n].join(&format!(" {op} "))
}

/// (file name, contents, fragment of the error). Chains of 300 000 terms make files of 3 to
/// 4 MB, refused by size before they are read; the 50 000-term ones (under 1 MiB) reach the
/// parsers' own limits.
fn hostile_files() -> Vec<(String, String, &'static str)> {
    let mut out = Vec::new();
    let frames = [
        ("lisa", "LISA t\n{ x=0; }\n P0 ;\n r[] r0 x ;\n", "0:r0=0"),
        ("ptx", "PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\n", "P0:r0 == 0"),
        ("vulkan", "Vulkan t\n{ x=0; }\nP0@sg 0, wg 0, qf 0 ;\nld.sc0 r0, x ;\n", "P0:r0 == 0"),
        ("opencl", "OPENCL t\n{ [x]=0; }\nP0@wg 0, dev 0 (global int* x) {\n int r0 = *x;\n}\n", "0:r0=0"),
        ("hip", "HIP t\n__device__ int x = 0;\nthread T0 @ block 0, thread 0 {\n int r0 = x;\n}\n", "T0:r0 == 0"),
    ];
    for (dialect, frame, cmp) in frames {
        out.push((format!("{dialect}_and_300k.litmus"), format!("{frame}exists ({})\n", chain(cmp, "/\\", 300_000)), "larger than 1024 KiB"));
        out.push((format!("{dialect}_or_50k.litmus"), format!("{frame}exists ({})\n", chain(cmp, "||", 50_000)), "more than 1024 comparisons"));
    }
    let hip = |body: &str| format!("HIP t\n__device__ int x = 0;\nthread T0 @ block 0, thread 0 {{\n int r0 = x;\n{body}\n}}\nexists (T0:r0 == 0)\n");
    let opencl = |body: &str| format!("OPENCL t\n{{ [x]=0; }}\nP0@wg 0, dev 0 (global int* x) {{\n int r0 = *x;\n{body}\n}}\nexists (0:r0=0)\n");
    out.push(("hip_sum_50k.litmus".into(), hip(&format!(" x = {};", chain("r0", "+", 50_000))), "more than 256 operators"));
    out.push(("opencl_sum_50k.litmus".into(), opencl(&format!(" *x = {};", chain("r0", "+", 50_000))), "more than 256 operators"));
    out.push(("hip_sum_300k.litmus".into(), hip(&format!(" x = {};", chain("r0", "+", 300_000))), "larger than 1024 KiB"));
    out.push(("hip_20k_loads.litmus".into(), hip(&" r0 = x;\n".repeat(20_000)), "more than 1000 statements"));
    out.push(("opencl_20k_loads.litmus".into(), opencl(&" r0 = *x;\n".repeat(20_000)), "more than 1000 statements"));
    out.push((
        "lisa_20k_loads.litmus".into(),
        format!("LISA t\n{{ x=0; }}\n P0 ;\n{}exists (0:r0=1)\n", " r[] r0 x ;\n".repeat(20_000)),
        "more than 1000 rows",
    ));
    let rows =
        |n: usize| format!("PTX t\n{{ x=0; }}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n{}exists (P0:r0 == 1)\n", " ld.weak r0, x | st.weak x, 1 ;\n".repeat(n));
    out.push(("ptx_100k_rows.litmus".into(), rows(100_000), "larger than 1024 KiB"));
    out.push(("ptx_20k_rows.litmus".into(), rows(20_000), "more than 1000 rows"));
    let places = |place: &str| format!("HIP t\n__device__ int x = 0;\nthread T0 @ {place} {{\n x = 1;\n}}\nexists (x == 1)\n");
    out.push(("hip_thread_2048.litmus".into(), places("block 0, thread 2048"), "thread 2048 is outside every block"));
    out.push(("hip_wave_1_of_thread_0.litmus".into(), places("block 0, thread 0, wave 1"), "thread 0 cannot be in wave 1"));
    out.push((
        "hip_empty_thread.litmus".into(),
        "HIP t\n__device__ int x = 0;\nthread T0 @ block 0, thread 0 { x = 1; }\nthread T1 @ block 1, thread 0 { }\nexists (x == 1)\n".into(),
        "thread T1 has no instructions",
    ));
    out.push(("lisa_undeclared.litmus".into(), "LISA t\n{ x=0; }\n P0 ;\n w[] y 1 ;\nexists (x=0)\n".into(), "`y` is not a declared location"));
    // Dartagnan's PTX and Vulkan formats create a location an instruction names (its
    // catalogue relies on it); a name only the condition uses is still a typo.
    out.push((
        "ptx_undeclared.litmus".into(),
        "PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (y=0)\n".into(),
        "the condition names `y`, which is not a location",
    ));
    out.push((
        "vulkan_undeclared.litmus".into(),
        "Vulkan t\n{ x=0; }\nP0@sg 0, wg 0, qf 0 ;\nst.sc0 x, 1 ;\nexists (y=0)\n".into(),
        "the condition names `y`, which is not a location",
    ));
    out.push((
        "opencl_undeclared.litmus".into(),
        "OPENCL t\n{ [x]=0; }\nP0@wg 0, dev 0 (global int* x, global int* z) {\n *z = 1;\n}\nexists (x=0)\n".into(),
        "`z` is not a declared location",
    ));
    out.push(("hip_undeclared.litmus".into(), hip(" y = 1;"), "`y` is not declared"));
    out
}

#[test]
fn every_hostile_file_ends_with_exit_2_and_one_located_line() {
    let dir = scratch("classes");
    let files = hostile_files();
    for (name, text, error) in &files {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write");
        let started = Instant::now();
        let ran = hipscope(&["grade", "--isa", "none", path.to_str().expect("utf-8 path")]);
        let took = started.elapsed();
        assert_eq!(ran.code, 2, "{name}: {}", ran.stderr);
        assert!(ran.stderr.contains(error), "{name}: {}", ran.stderr);
        assert_eq!(ran.stderr.lines().count(), 1, "{name}: {}", ran.stderr);
        assert!(ran.stderr.starts_with(&format!("hipscope: {}", path.display())), "{name}: {}", ran.stderr);
        assert!(took < Duration::from_secs(5), "{name}: {took:?}");
    }
    // All of them at once, as a directory of submissions: each reported, none graded.
    let ran = hipscope(&["grade", "--isa", "none", dir.to_str().expect("utf-8 path")]);
    assert_eq!(ran.code, 2);
    assert!(ran.stderr.contains(&format!("{} of {} files could not be graded", files.len(), files.len())), "{}", ran.stderr);
    let peak = children_peak_rss_kib();
    println!("peak resident memory of one hipscope run: {peak} KiB");
    assert!(peak < MAX_RSS_KIB, "a run took {peak} KiB");
    let _ = std::fs::remove_dir_all(&dir);
}

const GOOD: &str = "LISA good\n{ x=0; }\n P0 | P1 ;\n w[] x 1 | r[] r0 x ;\nexists (1:r0=1)\n";

/// Makes a FIFO; `None` (after a SKIPPED line) where `mkfifo` is missing.
fn fifo(path: &Path) -> Option<()> {
    let made = Command::new("mkfifo").arg(path).status();
    if made.is_ok_and(|s| s.success()) {
        Some(())
    } else {
        println!("SKIPPED: mkfifo is not available");
        None
    }
}

#[test]
fn a_fifo_is_refused_without_blocking_alone_or_in_a_directory() {
    let dir = scratch("fifo");
    let pipe = dir.join("pipe.litmus");
    if fifo(&pipe).is_none() {
        return;
    }
    let ran = hipscope(&["grade", pipe.to_str().expect("utf-8 path")]);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert_eq!(ran.stderr.trim(), format!("hipscope: {}: not a regular file (a FIFO); a litmus test is a text file", pipe.display()));
    std::fs::write(dir.join("good.litmus"), GOOD).expect("write");
    let ran = hipscope(&["grade", "--isa", "none", dir.to_str().expect("utf-8 path")]);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(ran.stdout.contains("good.litmus — good"), "the regular file is still graded: {}", ran.stdout);
    assert!(ran.stderr.contains("not a regular file (a FIFO)") && ran.stderr.contains("1 of 2 files could not be graded"), "{}", ran.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn a_symlink_cycle_grades_each_test_once() {
    let dir = scratch("cycle");
    std::fs::write(dir.join("good.litmus"), GOOD).expect("write");
    std::os::unix::fs::symlink(".", dir.join("again")).expect("symlink");
    std::os::unix::fs::symlink("good.litmus", dir.join("alias.litmus")).expect("symlink");
    let ran = hipscope(&["grade", "--isa", "none", "--json", dir.to_str().expect("utf-8 path")]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let reports: serde_json::Value = serde_json::from_str(&ran.stdout).expect("JSON");
    assert_eq!(reports.as_array().map(Vec::len), Some(1), "{}", ran.stdout);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let dir = scratch("bom");
    let path = dir.join("bom.litmus");
    std::fs::write(&path, format!("\u{feff}{GOOD}")).expect("write");
    let ran = hipscope(&["grade", "--isa", "none", path.to_str().expect("utf-8 path")]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.stdout.contains("— good (lisa dialect)"), "{}", ran.stdout);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Placements that only some GPUs cannot run are graded, with a warning per GPU: the
/// language verdict does not depend on the GPU, and a directory graded on several GPUs
/// should not lose its grades because one lacks an XCD.
#[test]
fn placements_a_gpu_cannot_run_are_warnings() {
    let dir = scratch("placement");
    let xcd = dir.join("xcd.litmus");
    std::fs::write(&xcd, "HIP xcd\n__device__ int x = 0;\nthread T0 @ block 0, thread 0, xcd 99 {\n x = 1;\n}\nthread T1 @ block 1, thread 0 {\n int r0 = x;\n}\nexists (T1:r0 == 0)\n")
        .expect("write");
    let ran = hipscope(&["grade", "--isa", "none", "--gpu", "mi300x,mi210", "--runs", "1", xcd.to_str().expect("utf-8 path")]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.stdout.contains("outcome: ALLOWED"), "{}", ran.stdout);
    assert!(ran.stderr.contains("xcd.litmus: mi300x: not run on the simulated GPU: T0 names XCD 99, but mi300x has 8 XCDs (0 to 7)"), "{}", ran.stderr);
    assert!(ran.stderr.contains("mi210 has one XCD (0)"), "{}", ran.stderr);
    // Thread 40 is in wave 1 of 32-wide waves and wave 0 of 64-wide ones.
    let wave = dir.join("wave.litmus");
    std::fs::write(&wave, "HIP w\n__device__ int x = 0;\nthread T0 @ block 0, thread 0 {\n x = 1;\n}\nthread T1 @ block 0, thread 40, wave 1 {\n int r0 = x;\n}\nexists (T1:r0 == 0)\n")
        .expect("write");
    let ran = hipscope(&["grade", "--isa", "none", "--gpu", "mi300x,rx7900xtx", "--runs", "1", wave.to_str().expect("utf-8 path")]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("T0 (thread 0) and T1 (thread 40) are in one wave on mi300x (64-wide waves), but the test puts them in different waves"),
        "{}",
        ran.stderr
    );
    assert!(!ran.stderr.contains("on rx7900xtx"), "RDNA 3 runs 32-wide waves by default: {}", ran.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}
