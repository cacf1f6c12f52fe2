//! Objects built at test time with clang-19 (skipped when LLVM 19 is not installed): an
//! unlinked HIP object whose `.text` has `R_AMDGPU_REL32_LO/HI` relocations (a global variable
//! and a call), checked against `llvm-readelf-19 -r -s` with the AMDGPUUsage formulas.
//! (Compressed bundles: `ccob.rs`, on committed inputs.)

use crate::codeobj_common;

use codeobj_common::workspace_root;
use hipscope_isa::codeobj;
use std::path::{Path, PathBuf};
use std::process::Command;

const SOURCE: &str = r#"
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
__device__ int gcounter;
__device__ __attribute__((noinline)) float helper(float x) { return x * 2.0f + (float)gcounter; }
extern "C" __global__ void k(float *p) { p[__builtin_amdgcn_workitem_id_x()] = helper(p[0]); }
"#;

fn tool(name: &str) -> bool {
    Command::new(name).arg("--version").output().is_ok_and(|o| o.status.success())
}

fn scratch() -> PathBuf {
    let dir = workspace_root().join("target/codeobj-clang-tests");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("k.hip"), SOURCE).unwrap();
    dir
}

fn clang(dir: &Path, args: &[&str]) {
    let base = ["-x", "hip", "-nogpulib", "-nogpuinc", "-O2", "--cuda-device-only", "k.hip"];
    let o = Command::new("clang-19").current_dir(dir).args(base).args(args).output().unwrap();
    assert!(o.status.success(), "clang-19 {args:?}: {}", String::from_utf8_lossy(&o.stderr));
}

/// `(offset, type, symbol, addend)` rows of `llvm-readelf-19 -r` for `.rela.text`.
fn text_relocations(obj: &Path) -> Vec<(u64, String, String, u64)> {
    let out = Command::new("llvm-readelf-19").arg("-r").arg(obj).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let section = text.split("Relocation section '.rela.text'").nth(1).unwrap_or_default();
    let section = section.split("Relocation section").next().unwrap_or_default();
    section
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let offset = u64::from_str_radix(f.first()?, 16).ok()?;
            let addend = u64::from_str_radix(f.get(6)?, 16).ok()?;
            Some((offset, f.get(2)?.to_string(), f.get(4)?.to_string(), addend))
        })
        .collect()
}

#[test]
fn unlinked_text_relocations_are_applied() {
    if !tool("clang-19") || !tool("llvm-readelf-19") {
        println!("SKIPPED: unlinked_text_relocations_are_applied: clang-19 / llvm-readelf-19 not installed");
        return;
    }
    let dir = scratch();
    // -save-temps keeps the unlinked object that hipcc --save-temps also keeps (SOURCES.md).
    clang(&dir, &["--offload-arch=gfx942", "--no-gpu-bundle-output", "-save-temps", "-c", "-o", "k.co"]);
    let obj = dir.join("k-hip-amdgcn-amd-amdhsa-gfx942.o");
    let co = codeobj::load(&std::fs::read(&obj).unwrap(), None).unwrap();
    let relocs = text_relocations(&obj);
    assert!(relocs.len() >= 4, "{relocs:?}");
    let text = co.text_sections().next().unwrap().address;
    for (offset, kind, symbol, addend) in relocs {
        // S: `gcounter` is in .bss, `.text` is the section symbol (the call to helper).
        let s = match symbol.as_str() {
            ".text" => text,
            "gcounter" => co.sections.iter().find(|s| s.name == ".bss").unwrap().address,
            other => panic!("unexpected relocation symbol {other}"),
        };
        let p = text + offset;
        let value = s.wrapping_add(addend).wrapping_sub(p); // S + A - P
        let want = match kind.as_str() {
            "R_AMDGPU_REL32_LO" => value as u32,
            "R_AMDGPU_REL32_HI" => (value >> 32) as u32,
            other => panic!("unexpected relocation type {other}"),
        };
        let got = u32::from_le_bytes(co.read(p, 4).unwrap().try_into().unwrap());
        assert_eq!(got, want, "{kind} {symbol}+{addend:#x} at {p:#x}");
    }
    assert_eq!(co.kernel("k").map(|k| k.entry_address), co.code_symbols.iter().find(|s| s.name == "k").map(|s| s.address));
}
