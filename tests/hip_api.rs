//! HIP API coverage beyond launches and linear copies, through test programs run under
//! `hipscope exec` (workloads/hip/{memcpy3d,host_threads,graphs,textures,host_funcs}.cpp,
//! committed prebuilt in workloads/hip/bin with code objects for every processor of the
//! built-in GPUs, so no compiler is needed): pitched 2D/3D copies and fills, calls from several
//! host threads and `hipStreamPerThread`, graphs captured from streams and built node by node,
//! texture objects over linear memory (`tex1Dfetch`) and pitched 2D memory (`tex2D`, image
//! sampling with point and linear filtering), and host functions in stream order.
//!
//! Each program checks its own results against a CPU computation, exits non-zero on any failed
//! HIP call or wrong value, and prints `PASS <name>`. Each runs on MI300A (gfx942, CDNA3),
//! MI210 (gfx90a, CDNA2) and RX 7900 XTX (gfx1100, RDNA3) in functional mode and on MI210 in
//! timing mode; every (GPU, mode) pair runs even after one fails, and a failure lists them all
//! with their output. A run that does not end within the timeout fails (a runtime that
//! deadlocks, e.g. on calls from several threads, must fail the test, not hang it).

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: [(&str, &str); 4] = [("mi300a", "functional"), ("mi210", "functional"), ("rx7900xtx", "functional"), ("mi210", "timing")];

/// The programs take well under a second each; a hang is stopped here.
const TIMEOUT: Duration = Duration::from_secs(120);

fn program(name: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads/hip/bin").join(name);
    assert!(p.is_file(), "{} is missing (workloads/build.sh builds it)", p.display());
    p
}

struct Run {
    /// The exit status; None when the run was stopped at the timeout.
    code: Option<i32>,
    stdout: String,
    stderr: String,
    seconds: f64,
}

fn exec(gpu: &str, mode: &str, prog: &Path) -> Run {
    // Its own process group, so that on a timeout the program (hipscope's child) is stopped too.
    let mut child = Command::new(env!("CARGO_BIN_EXE_hipscope"))
        .args(["exec", "--gpu", gpu, "--mode", mode, "--"])
        .arg(prog)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("hipscope runs");
    let reader = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = pipe.read_to_end(&mut buf);
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let out = reader(Box::new(child.stdout.take().expect("piped stdout")));
    let err = reader(Box::new(child.stderr.take().expect("piped stderr")));
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > TIMEOUT {
            timed_out = true;
            let _ = Command::new("kill").args(["-KILL", "--", &format!("-{}", child.id())]).status();
            break child.wait().expect("wait");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let seconds = start.elapsed().as_secs_f64();
    Run { code: (!timed_out).then(|| status.code().unwrap_or(-1)), stdout: out.join().expect("reader"), stderr: err.join().expect("reader"), seconds }
}

/// Runs `name` on every pair of [`RUNS`], applies `extra` to each run that passed (it returns a
/// problem or None), and fails listing every pair that went wrong.
fn check_program(name: &str, extra: impl Fn(&str, &Run) -> Option<String>) {
    let prog = program(name);
    let pass = format!("PASS {name}");
    let mut failures = Vec::new();
    for (gpu, mode) in RUNS {
        let r = exec(gpu, mode, &prog);
        let problem = match r.code {
            None => Some(format!("no exit within {} s", TIMEOUT.as_secs())),
            Some(0) if !r.stdout.lines().any(|l| l == pass) => Some(format!("no `{pass}` line")),
            Some(0) => extra(gpu, &r),
            Some(code) => Some(format!("exit status {code}")),
        };
        println!("{name} on {gpu} ({mode}): {} in {:.2} s", problem.as_deref().unwrap_or("ok"), r.seconds);
        if let Some(p) = problem {
            failures.push(format!("--- {name} on {gpu} ({mode}): {p}\nstdout:\n{}\nstderr:\n{}", r.stdout, r.stderr));
        }
    }
    assert!(failures.is_empty(), "{} of {} runs failed:\n{}", failures.len(), RUNS.len(), failures.join("\n"));
}

/// No HIP call the program made may have answered "not supported" (beyond `allowed`).
fn all_supported(allowed: &'static [&'static str]) -> impl Fn(&str, &Run) -> Option<String> {
    move |_, r| r.stderr.lines().find(|l| l.ends_with("is not supported") && !allowed.iter().any(|a| l.contains(a))).map(|l| format!("unexpected: {l}"))
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
    check_program("textures", |gpu, r| {
        let refused = r.stderr.contains("hipCreateTextureObject on gfx94x");
        match (gpu == "mi300a", refused) {
            (true, false) => Some("no message that gfx94x has no image support".into()),
            (false, true) => Some("textures refused on a GPU with image support".into()),
            _ => all_supported(&["gfx94x"])(gpu, r),
        }
    });
}

#[test]
fn host_functions_in_stream_order() {
    check_program("host_funcs", all_supported(&[]));
}
