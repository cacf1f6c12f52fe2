//! `hipscope run` on the inputs users actually have: specs copied away from their code
//! objects, code-object paths absolute or relative to the spec, offload bundles and HIP host
//! executables named directly in a spec (with `--target` to pick one of their code objects).

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::cli;
use cli::{code, hipscope, root, stderr};

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn scratch_dir(name: &str) -> PathBuf {
    let dir = root().join("target/run-inputs-tests").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A 64-element vadd spec on `object` (as written into the spec), checked against the CPU
/// reference.
fn vadd_on(object: &str) -> String {
    format!(
        r#"Run(
  code_objects: {{"any": "{object}"}},
  buffers: {{ "a": (bytes: 256, init: Iota(F32)), "b": (bytes: 256, init: Const(F32, 0.5)), "c": (bytes: 256, init: Const(F32, -7)) }},
  dispatches: [ (kernel: "vadd", grid: (64, 1, 1), block: (64, 1, 1), args: [Buffer("a"), Buffer("b"), Buffer("c"), U32(60)]) ],
  expect: [ (buffer: "c", equals: Reference("vadd")) ],
)"#
    )
}

/// The gpu line of the text report.
fn gpu_line(o: &Output) -> String {
    stdout(o).lines().find(|l| l.starts_with("gpu: ")).unwrap_or_default().to_string()
}

#[test]
fn a_copied_spec_names_the_full_path_it_tried() {
    let dir = scratch_dir("copied");
    std::fs::copy(root().join("workloads/vadd.ron"), dir.join("vadd.ron")).unwrap();
    // Run from the repository root with a relative spec path: the message must still give the
    // full path that was looked for, next to the copy.
    let o = hipscope(&["run", "target/run-inputs-tests/copied/vadd.ron"]);
    let err = stderr(&o);
    assert_eq!(code(&o), 2, "{err}");
    let tried = std::path::absolute(root().join("target/run-inputs-tests/copied/bin/gfx803/vadd.co")).unwrap();
    assert!(err.contains(&format!("code_objects.\"gfx803\": cannot read {}: ", tried.display())), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn code_object_paths_may_be_absolute_or_relative_to_the_spec() {
    let dir = scratch_dir("paths");
    let abs = root().join("workloads/bin/gfx90a/vadd.co");
    std::fs::write(dir.join("abs.ron"), vadd_on(s(&abs))).unwrap();
    std::fs::create_dir_all(dir.join("objs")).unwrap();
    std::fs::copy(&abs, dir.join("objs/vadd.co")).unwrap();
    std::fs::write(dir.join("rel.ron"), vadd_on("objs/vadd.co")).unwrap();
    for spec in ["abs.ron", "rel.ron"] {
        let o = hipscope(&["run", s(&dir.join(spec)), "--gpu", "mi210"]);
        assert_eq!(code(&o), 0, "{spec}: {}{}", stdout(&o), stderr(&o));
        assert!(stdout(&o).contains("check c: ok (64 f32 values equal reference vadd)"), "{spec}: {}", stdout(&o));
    }
}

#[test]
fn a_bundle_in_a_spec_offers_all_its_code_objects() {
    let dir = scratch_dir("bundle");
    let bundle = root().join("workloads/bin/bundles/vadd.bundle");
    let spec = dir.join("bundle.ron");
    std::fs::write(&spec, vadd_on(s(&bundle))).unwrap();
    // The bundle holds gfx90a, gfx942 and gfx1100 code objects (golden/bundles/vadd.bundle.list.txt);
    // each GPU gets its own, gfx1100 in the RX 7900 XTX's default wave32/WGP build.
    for (gpu, want) in [("mi210", "gfx90a, wave64"), ("mi300x", "gfx942, wave64"), ("rx7900xtx", "gfx1100, wave32")] {
        let o = hipscope(&["run", s(&spec), "--gpu", gpu]);
        assert_eq!(code(&o), 0, "{gpu}: {}{}", stdout(&o), stderr(&o));
        assert!(gpu_line(&o).contains(&format!("code object \"any\" ({}, {want}", bundle.display())), "{gpu}: {}", gpu_line(&o));
    }
    // --target picks one; the GPU follows when one built-in GPU has that processor.
    let o = hipscope(&["run", s(&spec), "--target", "gfx1100"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(gpu_line(&o).starts_with("gpu: rx7900xtx") && gpu_line(&o).contains(", gfx1100, "), "{}", gpu_line(&o));
    let o = hipscope(&["run", s(&spec), "--target", "gfx942", "--gpu", "mi300x"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(gpu_line(&o).contains(", gfx942, "), "{}", gpu_line(&o));
    // The committed example names mi300x as its GPU; --target for another processor wins.
    let o = hipscope(&["run", "workloads/vadd_bundle.ron", "--target", "gfx1100"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(gpu_line(&o).starts_with("gpu: rx7900xtx") && gpu_line(&o).contains(", gfx1100, wave32, WGP mode)"), "{}", gpu_line(&o));
    let o = hipscope(&["run", "workloads/vadd_bundle.ron", "--target", "gfx942"]);
    assert!(gpu_line(&o).starts_with("gpu: mi300x"), "the spec's GPU when it fits: {}", gpu_line(&o));
    // Mistakes name the choices.
    let o = hipscope(&["run", s(&spec), "--target", "gfx1030"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--target gfx1030: no code object for it; the spec has: any [gfx1100], any [gfx90a], any [gfx942]"), "{}", stderr(&o));
    let o = hipscope(&["run", s(&spec), "--target", "gfx942", "--gpu", "mi210"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--target gfx942 is for gfx942, GPU mi210 is gfx90a"), "{}", stderr(&o));
    let o = hipscope(&["run", s(&spec), "--target", "gfx9999"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--target gfx9999: not a known processor"), "{}", stderr(&o));
    let o = hipscope(&["run", s(&spec)]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("no GPU given: pass --gpu"), "{}", stderr(&o));
}

#[test]
fn a_hip_host_executable_in_a_spec_runs_its_device_code() {
    let dir = scratch_dir("host");
    let host = root().join("workloads/bin/host/vadd_host");
    let spec = dir.join("host.ron");
    std::fs::write(&spec, vadd_on(s(&host))).unwrap();
    let o = hipscope(&["run", s(&spec), "--gpu", "mi210"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(gpu_line(&o).contains(", gfx90a, wave64"), "{}", gpu_line(&o));
    let o = hipscope(&["run", s(&spec), "--target", "gfx1100", "--json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["target"], "gfx1100");
}

#[test]
fn special_files_as_specs_are_refused() {
    let o = hipscope(&["run", "/dev/zero"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("/dev/zero: cannot read /dev/zero: not a regular file"), "{}", stderr(&o));
    let dir = scratch_dir("devzero");
    let spec = dir.join("co.ron");
    std::fs::write(&spec, vadd_on("/dev/zero")).unwrap();
    let o = hipscope(&["run", s(&spec), "--gpu", "mi210"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("code_objects.\"any\": cannot read /dev/zero: not a regular file"), "{}", stderr(&o));
}
