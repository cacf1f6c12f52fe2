//! `hipscope disasm` end to end on committed workload objects (no LLVM needed): the listing is
//! `llvm-objdump-19`'s (golden file), `--kernel` selects one kernel, and bad input or an
//! unknown kernel gives one line on stderr and exit status 2. gfx950 (CDNA4) code objects load:
//! `hipscope info` names the processor and `disasm` prints `llvm-objdump-22`'s listing (golden
//! file made by `isa/tests/data/gfx950/build.sh`), including gfx950's own `v_bitop3_b32`.

use crate::codeobj_common;

use codeobj_common::workspace_root;
use std::process::{Command, Output};

fn hipscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hipscope")).args(args).output().expect("run hipscope")
}

fn path(rel: &str) -> String {
    workspace_root().join(rel).to_string_lossy().into_owned()
}

#[test]
fn listing_equals_llvm_objdump_golden() {
    let o = hipscope(&["disasm", &path("workloads/bin/gfx1100-w32-wgp/mp.co")]);
    assert!(o.status.success(), "{o:?}");
    let golden = std::fs::read_to_string(path("workloads/golden/gfx1100-w32-wgp/mp.objdump.txt")).expect("golden");
    assert_eq!(String::from_utf8_lossy(&o.stdout), golden);
}

#[test]
fn kernel_filter_prints_only_that_kernel() {
    let o = hipscope(&["disasm", &path("workloads/bin/gfx942/mp.co"), "--kernel", "mp_acqrel_agent"]);
    assert!(o.status.success(), "{o:?}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("<mp_acqrel_agent>:"), "{out}");
    assert!(!out.contains("<mp_acqrel_system>:"), "{out}");
    // The agent-scope release on gfx942 writes back L2 (AMDGPUUsage memory model, GFX942).
    assert!(out.contains("buffer_wbl2 sc1"), "{out}");
}

/// A symbol asked for runs on through the local labels inside it, up to the next function:
/// `isa/tests/data/labels/labels.co` (built by its `build.sh` with llvm-mc-19) has
/// `label_Skip` inside `first`. The instruction text is `llvm-objdump-19 -d`'s for that object.
#[test]
fn kernel_filter_runs_through_local_labels() {
    let o = hipscope(&["disasm", &path("isa/tests/data/labels/labels.co"), "--kernel", "first"]);
    assert!(o.status.success(), "{o:?}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("<first>:") && out.contains("v_mov_b32_e32 v0, 1"), "{out}");
    assert!(out.contains("<label_Skip>:"), "{out}");
    assert!(out.contains("v_mov_b32_e32 v1, 2"), "{out}");
    assert!(!out.contains("<second>:") && !out.contains("v_mov_b32_e32 v2, 3"), "{out}");
}

#[test]
fn wave64_kernel_names_full_vcc_by_default() {
    let o = hipscope(&["disasm", &path("workloads/bin/gfx1100-w64-wgp/vadd.co")]);
    assert!(o.status.success(), "{o:?}");
    let golden = std::fs::read_to_string(path("workloads/golden/gfx1100-w64-wgp/vadd.objdump-w64.txt")).expect("golden");
    assert_eq!(String::from_utf8_lossy(&o.stdout), golden);
}

#[test]
fn bad_inputs_give_one_line_and_exit_2() {
    let dir = workspace_root().join("target/disasm-cli-tests");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let junk = dir.join("junk.co");
    std::fs::write(&junk, b"\x7fELF this is not a code object").expect("write");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["disasm".into(), junk.to_string_lossy().into_owned()], "junk.co"),
        (vec!["disasm".into(), path("workloads/bin/gfx90a/vadd.co"), "--kernel".into(), "nope".into()], "nope"),
        (vec!["disasm".into(), path("workloads/bin/does-not-exist.co")], "does-not-exist.co"),
        (vec!["disasm".into(), path("workloads/bin/bundles/vadd.bundle")], "vadd.bundle"),
    ];
    for (args, needle) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = hipscope(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn info_names_gfx950() {
    let o = hipscope(&["info", &path("isa/tests/data/gfx950/k.co")]);
    assert!(o.status.success(), "{o:?}");
    let out = String::from_utf8_lossy(&o.stdout);
    // EF_AMDGPU_MACH_AMDGCN_GFX950 = 0x04f (LLVM 22 AMDGPUUsage) in the low byte of e_flags.
    assert!(out.contains("target: gfx950"), "{out}");
    assert!(out.contains("kernel bitop3 "), "{out}");
}

#[test]
fn disasm_equals_llvm_objdump_22() {
    let o = hipscope(&["disasm", &path("isa/tests/data/gfx950/k.co")]);
    assert!(o.status.success(), "{o:?}");
    let golden = std::fs::read_to_string(path("isa/tests/data/gfx950/k.objdump.txt")).expect("golden");
    assert_eq!(String::from_utf8_lossy(&o.stdout), golden);
}
