//! ROCm's precompiled libraries under `hipscope exec`: programs of ours (workloads/hip-libs,
//! built by its build.sh and committed) call Debian 12's librocrand1, libhiprand1,
//! librocsparse0 and libhipsparse0 (ROCm 5.3), whose device code the libraries register
//! themselves. Each program compares the library's results with a CPU reference (exact for
//! integers, uniforms and the small-integer sparse products) and prints PASS.
//!
//! The libraries hold code objects for gfx90a but not gfx1100: on rx7900xtx the programs must
//! end as ROCm 5's runtime ends them, with its hipErrorNoBinaryForGpu line and an abort.
//!
//! Needs the four Debian packages (`.ci/run` installs them); without them the tests print
//! SKIPPED.

use std::path::{Path, PathBuf};
use std::process::Command;

const LIBRARIES: &[&str] = &["librocrand.so.1", "libhiprand.so.1", "librocsparse.so.0", "libhipsparse.so.0"];

fn program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads/hip-libs/bin").join(name)
}

/// Whether the dynamic loader finds Debian's ROCm libraries.
fn libraries_missing(test: &str) -> bool {
    let listed = Command::new("ldconfig").arg("-p").output().map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    let dirs = ["/usr/lib/x86_64-linux-gnu", "/usr/lib"];
    let missing: Vec<&str> = LIBRARIES.iter().copied().filter(|l| !listed.contains(l) && !dirs.iter().any(|d| Path::new(d).join(l).exists())).collect();
    if !missing.is_empty() {
        println!(
            "SKIPPED: {test}: Debian's ROCm 5.3 libraries are not installed ({}); apt-get install librocrand1 libhiprand1 librocsparse0 libhipsparse0",
            missing.join(", ")
        );
    }
    !missing.is_empty()
}

fn exec(gpu: &str, mode: &str, name: &str) -> (i32, String, String) {
    let out =
        Command::new(env!("CARGO_BIN_EXE_hipscope")).args(["exec", "--gpu", gpu, "--mode", mode, "--"]).arg(program(name)).output().expect("hipscope runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn passes(gpu: &str, mode: &str, name: &str) {
    let (code, out, err) = exec(gpu, mode, name);
    assert_eq!(code, 0, "{name} on {gpu} ({mode}):\n{out}\n{err}");
    assert!(out.contains("PASS"), "{name} on {gpu} ({mode}):\n{out}\n{err}");
}

#[test]
fn rocsparse_and_hipsparse_match_the_cpu_in_both_modes() {
    if libraries_missing("rocsparse_and_hipsparse_match_the_cpu_in_both_modes") {
        return;
    }
    for mode in ["functional", "timing"] {
        passes("mi210", mode, "rocsparse_spmv");
        passes("mi210", mode, "hipsparse_spmv");
    }
}

#[test]
fn rocrand_and_hiprand_match_the_cpu_in_both_modes() {
    if libraries_missing("rocrand_and_hiprand_match_the_cpu_in_both_modes") {
        return;
    }
    // The four runs take minutes each on one core (rocRAND's XORWOW set-up kernel skips
    // 131 072 engines ahead): two at a time.
    std::thread::scope(|s| {
        for mode in ["functional", "timing"] {
            s.spawn(move || passes("mi210", mode, "rocrand_gen"));
        }
    });
    std::thread::scope(|s| {
        for mode in ["functional", "timing"] {
            s.spawn(move || passes("mi210", mode, "hiprand_gen"));
        }
    });
}

#[test]
fn a_gpu_the_libraries_lack_gets_rocm_5s_no_binary_abort() {
    if libraries_missing("a_gpu_the_libraries_lack_gets_rocm_5s_no_binary_abort") {
        return;
    }
    for (name, library) in [("rocsparse_spmv", "librocsparse.so.0"), ("rocrand_gen", "librocrand.so.1")] {
        let (code, out, err) = exec("rx7900xtx", "functional", name);
        // abort(): SIGABRT, which hipscope exec passes on as 128 + 6.
        assert_eq!(code, 134, "{name} on rx7900xtx:\n{out}\n{err}");
        assert!(err.contains("\"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\""), "{err}");
        assert!(err.contains(&format!("hipscope: {library} has no code object for the simulated rx7900xtx (gfx1100)")), "{err}");
        assert_eq!(err.matches(&format!("hipscope: {library} has no code object")).count(), 1, "one line per library:\n{err}");
        assert!(!out.contains("PASS"), "{out}");
    }
}
