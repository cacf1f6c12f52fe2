//! Unix manners: every subcommand, with its output going to a reader that stops early
//! (`hipscope X | head -1`) or never reads (`hipscope X | true`), ends quietly — exit 0 if it
//! wrote everything before the reader left, otherwise killed by SIGPIPE as `cat` would be
//! (`exec`: status 141 when its program was) — and never panics ("failed printing to stdout: Broken pipe", exit 101).

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = root().join("target/cli-pipes-tests").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// How the reader treats hipscope's stdout.
#[derive(Clone, Copy, Debug)]
enum Reader {
    /// `| head -1`: reads one line, then closes the pipe.
    FirstLine,
    /// `| true`: closes the pipe without reading.
    Nothing,
}

/// Runs hipscope with `args` behind `reader`; returns a complaint if it did not end quietly.
fn complaint(args: &[String], reader: Reader) -> Option<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hipscope"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start hipscope");
    let mut stdout = child.stdout.take().expect("stdout pipe");
    if let Reader::FirstLine = reader {
        let mut byte = [0u8; 1];
        while stdout.read(&mut byte).is_ok_and(|n| n == 1) && byte[0] != b'\n' {}
    }
    drop(stdout);
    let mut stderr = String::new();
    child.stderr.take().expect("stderr pipe").read_to_string(&mut stderr).expect("read stderr");
    let status = child.wait().expect("wait for hipscope");
    // `exec` passes on its program's end: a program killed by SIGPIPE is status 128 + 13, as a
    // shell reports it.
    let quiet = status.success() || status.signal() == Some(libc::SIGPIPE) || status.code() == Some(128 + libc::SIGPIPE);
    let panicked = stderr.contains("panicked") || stderr.contains("Broken pipe");
    (!quiet || panicked).then(|| format!("hipscope {} | {reader:?}: {status}\n{stderr}", args.join(" ")))
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// A small rocprof-compute profile folder (one vecCopy dispatch) for `validate --profile`.
fn profile() -> PathBuf {
    let dir = scratch("profile");
    std::fs::write(dir.join("sysinfo.csv"), "command,gpu_model,gpu_arch,cu_per_gpu\n\"vcopy -n 4096 -b 256 -i 1\",MI200,gfx90a,104\n").expect("write");
    std::fs::write(
        dir.join("pmc_perf.csv"),
        "Dispatch_ID,Kernel_Name,Grid_Size,Workgroup_Size,SQ_WAVES,Start_Timestamp,End_Timestamp\n0,\"vecCopy(double*, double*, double*, int, int) [clone .kd]\",4096,256,64,1000,4000\n",
    )
    .expect("write");
    dir
}

#[test]
fn every_subcommand_ends_quietly_when_stdout_closes() {
    let code_object = "workloads/bin/gfx1100-w32-cu/mixbench_ro.co";
    let profile = profile();
    let sweep_out = scratch("sweep");
    let scopes_out = scratch("scopes");
    let cases = [
        // More than a pipe buffer (64 KiB) of text: the reader's early exit is certain to be seen.
        strings(&["disasm", code_object]),
        strings(&["info", code_object]),
        strings(&["info", code_object, "--json"]),
        strings(&["gpus"]),
        strings(&["nodes", "mi300x-8"]),
        strings(&["--help"]),
        strings(&["run", "workloads/vadd.ron"]),
        strings(&["run", "workloads/vadd.ron", "--json"]),
        strings(&["grade", "workloads/litmus"]),
        strings(&["validate", "--profile", &profile.display().to_string()]),
        strings(&["scopes", "--gpu", "r9nano", "--csv", "--out", &scopes_out.display().to_string()]),
        strings(&["sweep", "tests/sweeps/small.ron", "--out", &sweep_out.display().to_string()]),
        strings(&["exec", "--", "/bin/echo", "hello"]),
    ];
    let mut failures = Vec::new();
    for args in &cases {
        for reader in [Reader::FirstLine, Reader::Nothing] {
            failures.extend(complaint(args, reader));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Results files are written before the summary that could meet a closed pipe.
    assert!(scopes_out.join("scopes.md").is_file(), "scopes --out wrote no report behind a closed pipe");
}
