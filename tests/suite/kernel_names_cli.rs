//! Kernels by their C++ source name in `hipscope run`, `info` and `disasm`:
//! `workloads/cxx_names.ron` dispatches the mangled kernels of `workloads/src/cxx_names.hip` by
//! signature and template name; expected values are worked out in the spec's header comment.

use std::process::Output;

use crate::cli;
use cli::{code, hipscope, root, stderr};

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn a_spec_names_cxx_kernels_by_source_name() {
    let o = hipscope(&["run", "workloads/cxx_names.ron", "--gpu", "mi210"]);
    let out = stdout(&o);
    assert_eq!(code(&o), 0, "{out}{}", stderr(&o));
    assert!(out.contains("dispatch 0: _Z5scalePffj (scale(float*, float, unsigned int)) grid (64,1,1)"), "{out}");
    assert!(out.contains("dispatch 2: _ZN4demo6offsetILi2EEEvPij (demo::offset<2>(int*, unsigned int)) grid"), "{out}");
    assert!(out.contains("result: 3/3 checks passed"), "{out}");
}

#[test]
fn an_ambiguous_kernel_name_lists_the_candidates() {
    let text = std::fs::read_to_string(root().join("workloads/cxx_names.ron")).unwrap();
    let text = text.replace("kernel: \"scale(float*, float, unsigned int)\"", "kernel: \"scale\"");
    // Absolute code-object paths, so the copy runs from target/.
    let text = text.replace("\"bin/", &format!("\"{}/", root().join("workloads/bin").display()));
    let dir = root().join("target/kernel-names-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("ambiguous.ron");
    std::fs::write(&p, text).unwrap();
    let o = hipscope(&["run", p.to_str().unwrap(), "--gpu", "mi210"]);
    let err = stderr(&o);
    assert_eq!(code(&o), 2, "{err}");
    assert!(
        err.contains("dispatches[0].kernel: kernel name 'scale' is ambiguous: _Z5scalePffj (scale(float*, float, unsigned int)), _Z5scalePddj (scale(double*, double, unsigned int))"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn info_and_disasm_know_source_names() {
    let co = "workloads/bin/gfx90a/cxx_names.co";
    let o = hipscope(&["info", co]);
    assert!(stdout(&o).contains("kernel _Z5scalePddj (symbol _Z5scalePddj.kd)\n  source name: scale(double*, double, unsigned int)\n"), "{}", stdout(&o));
    let o = hipscope(&["info", co, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["code_object"]["kernels"][2]["demangled"], "demo::offset<1>(int*, unsigned int)");
    let o = hipscope(&["info", "workloads/bin/gfx90a/vadd.co", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert!(v["code_object"]["kernels"][0]["demangled"].is_null(), "extern \"C\" kernels have no source name");
    let o = hipscope(&["disasm", co, "--kernel", "demo::offset<2>"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("<_ZN4demo6offsetILi2EEEvPij>:") && !stdout(&o).contains("<_Z5scalePffj>:"), "{}", stdout(&o));
    let o = hipscope(&["disasm", co, "--kernel", "offset"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("kernel name 'offset' is ambiguous"), "{}", stderr(&o));
}
