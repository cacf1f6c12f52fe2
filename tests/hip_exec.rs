//! `hipscope exec`: unmodified HIP programs written by others (../shared/apps, prebuilt by
//! clang for gfx942, gfx90a and gfx1100) run with hipscope's HIP runtime in front, their host
//! code natively and their kernels on the simulated GPU. What must hold comes from the
//! programs themselves: they exit 0 (their `HIP_CHECK` aborts on any failed HIP call) and
//! print their CSV row.

use std::path::{Path, PathBuf};
use std::process::Command;

fn apps() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/apps/mgpusim-gpu-perf/bin");
    if dir.join("vectoradd").is_file() {
        Some(dir)
    } else {
        println!("SKIPPED: ../shared/apps/mgpusim-gpu-perf/bin not found");
        None
    }
}

fn exec(gpu: &str, mode: &str, program: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hipscope"))
        .args(["exec", "--gpu", gpu, "--mode", mode, "--"])
        .arg(program)
        .args(args)
        .output()
        .expect("hipscope runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn programs_run_unmodified_on_three_gpus_in_both_modes() {
    let Some(bin) = apps() else { return };
    let small: [(&str, &[&str]); 4] = [
        ("vectoradd", &["--size", "4096", "--iterations", "2"]),
        ("relu", &["--iterations", "1"]),
        ("atax", &["--iterations", "1"]),
        ("bfs", &["--iterations", "1"]),
    ];
    for gpu in ["mi300a", "mi210", "rx7900xtx"] {
        for mode in ["functional", "timing"] {
            for (name, args) in small {
                let (code, out, err) = exec(gpu, mode, &bin.join(name), args);
                println!("{name} on {gpu} ({mode}): exit {code}; {}", err.lines().last().unwrap_or(""));
                assert_eq!(code, 0, "{name} on {gpu} {mode}: {err}");
                assert!(out.contains("kernel_name,problem_size"), "{name}: CSV header\n{out}");
                assert!(out.lines().any(|l| l.starts_with(name)), "{name}: CSV row\n{out}");
                assert!(err.contains("launch(es)"), "{name}: the launch summary\n{err}");
                if mode == "timing" {
                    assert!(err.contains("cycles"), "{name}: timing summary\n{err}");
                }
            }
        }
    }
}

#[test]
fn the_exit_status_passes_through_and_bad_gpus_are_refused() {
    let (code, _, err) = exec("no-such-gpu", "functional", Path::new("/bin/true"), &[]);
    assert_eq!(code, 2, "{err}");
    let (code, _, _) = exec("mi300a", "functional", Path::new("/bin/sh"), &["-c", "exit 7"]);
    assert_eq!(code, 7);
}
