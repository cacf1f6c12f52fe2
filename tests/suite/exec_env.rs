//! `hipscope exec` puts its runtime first on the program's `LD_LIBRARY_PATH` straight from
//! the cache beside the library (`hipscope-abi/`), under every name a program may ask for, and
//! makes no directory of its own per run (`studies/src/program/environment.rs` says why).

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh, empty directory for the runs' `TMPDIR`.
fn fresh_tmp(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hipscope-exec-env-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

fn exec_in(tmp: &Path, command: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hipscope"))
        .args(["exec", "--gpu", "mi210", "--mode", "functional", "--"])
        .args(command)
        .env("TMPDIR", tmp)
        .output()
        .expect("hipscope runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_program_runs_without_a_directory_of_its_own() {
    let tmp = fresh_tmp("run");
    let program = root().join("workloads/hip/bin/memset_vadd");
    let (code, out, err) = exec_in(&tmp, &[program.to_str().expect("a UTF-8 path")]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("PASS memset_vadd"), "{out}\n{err}");
    let left: Vec<_> = std::fs::read_dir(&tmp).expect("the directory is still there").map(|e| e.map(|e| e.file_name())).collect();
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(left.is_empty(), "exec left {left:?} in TMPDIR");
}

#[test]
fn the_first_library_directory_holds_every_soname() {
    let tmp = fresh_tmp("names");
    // The shell prints the first directory of its LD_LIBRARY_PATH and what is in it.
    let script = r#"d="${LD_LIBRARY_PATH%%:*}"; echo "$d"; ls -1 "$d"; readlink "$d/libamdhip64.so""#;
    let (code, out, err) = exec_in(&tmp, &["/bin/sh", "-c", script]);
    let _ = std::fs::remove_dir_all(&tmp);
    assert_eq!(code, 0, "{out}\n{err}");
    let mut lines = out.lines();
    let dir = lines.next().expect("the directory");
    assert!(dir.ends_with("hipscope-abi"), "the runtime comes from the cache beside the library, not {dir}");
    let names: Vec<&str> = lines.collect();
    for soname in ["libamdhip64.so", "libamdhip64.so.5", "libamdhip64.so.6", "libamdhip64.so.7"] {
        assert!(names.contains(&soname), "{soname} missing from {dir}: {names:?}");
    }
    // The unversioned name is release 5's copy, as the per-run links made it before.
    assert_eq!(names.last().copied(), Some("libamdhip64.so.5"), "{out}");
}
