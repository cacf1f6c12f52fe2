//! `hipscope grade --stress` and `--placement` as a user types them: a bad stress parameter
//! is one line naming it and exit 2 (before any run); a good one is named in the report, and
//! a placement the GPU cannot give is a warning beside the grade, not a failure.

use std::process::Command;

const LB: &str = "workloads/litmus/14_lb_relaxed.litmus";

fn hipscope(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hipscope")).current_dir(env!("CARGO_MANIFEST_DIR")).args(args).output().expect("hipscope runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn bad_stress_parameters_are_one_line_and_exit_2() {
    for (bad, named) in [
        ("groups=0", "groups=0"),
        ("groups=129", "groups=129"),
        ("lines=17", "lines=17"),
        ("stride=6", "stride=6"),
        ("iterations=-1", "iterations=-1"),
        ("pattern=sideways", "pattern=sideways"),
        ("colour=red", "colour"),
        ("heavy", "heavy"),
        ("", "``"),
    ] {
        let (code, stdout, stderr) = hipscope(&["grade", "--isa", "none", "--gpu", "mi210", "--runs", "1", "--stress", bad, LB]);
        assert_eq!(code, 2, "--stress {bad:?}: {stderr}");
        assert!(stdout.is_empty(), "--stress {bad:?}: nothing graded");
        assert_eq!(stderr.trim_end().lines().count(), 1, "--stress {bad:?}: one line, got {stderr:?}");
        assert!(stderr.contains("--stress") && stderr.contains(named), "--stress {bad:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn stress_and_placement_are_named_in_the_report() {
    let (code, stdout, stderr) = hipscope(&["grade", "--isa", "none", "--gpu", "mi210", "--runs", "3", "--stress", "default", "--placement", "same-cu", LB]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("one CU, stress groups=16,lines=4,stride=256,pattern=store-load,iterations=64"), "{stdout}");
    // One XCD: other-xcd cannot be given; the grade stands, the runs are skipped with why.
    let (code, stdout, stderr) = hipscope(&["grade", "--isa", "none", "--gpu", "mi210", "--runs", "3", "--placement", "other-xcd", LB]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("ALLOWED") && stderr.contains("other-xcd") && stderr.contains("one XCD"), "{stdout}\n{stderr}");
}
