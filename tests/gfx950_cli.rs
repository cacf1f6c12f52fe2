//! gfx950 (CDNA4) code objects load: `hipscope info` names the processor and `hipscope disasm`
//! prints `llvm-objdump-22`'s listing (golden file made by `isa/tests/data/gfx950/build.sh`),
//! including gfx950's own `v_bitop3_b32`.

#[path = "../isa/tests/codeobj_common/mod.rs"]
mod codeobj_common;

use codeobj_common::workspace_root;
use std::process::{Command, Output};

fn hipscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hipscope")).args(args).output().expect("run hipscope")
}

fn path(rel: &str) -> String {
    workspace_root().join(rel).to_string_lossy().into_owned()
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
