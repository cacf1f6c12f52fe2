//! `hipscope info` end to end, on the committed workload objects (no LLVM needed).

use crate::codeobj_common;

use codeobj_common::workspace_root;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn hipscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hipscope")).args(args).output().expect("run hipscope")
}

fn workload(rel: &str) -> Option<PathBuf> {
    let p = workspace_root().join("workloads/bin").join(rel);
    p.exists().then_some(p)
}

fn stderr_lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stderr).lines().map(str::to_string).collect()
}

/// A scratch file under target/ (unique per test).
fn scratch(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = workspace_root().join("target/info-cli-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn text_output_names_kernels_and_kernargs() {
    let Some(co) = workload("gfx942/vadd.co") else {
        println!("SKIPPED: text_output_names_kernels_and_kernargs: workloads/bin/gfx942/vadd.co not built");
        return;
    };
    let o = hipscope(&["info", s(&co)]);
    assert!(o.status.success(), "{o:?}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("target: gfx942"), "{out}");
    assert!(out.contains("kernel vadd (symbol vadd.kd)"), "{out}");
    assert!(out.contains("global_buffer"), "{out}");
    assert!(out.contains("compute_pgm_rsrc3") && out.contains("tg_split="), "{out}");
}

#[test]
fn json_output_is_valid_and_stable() {
    let Some(co) = workload("gfx1100-w32-wgp/vadd.co") else {
        println!("SKIPPED: json_output_is_valid_and_stable: workloads/bin/gfx1100-w32-wgp/vadd.co not built");
        return;
    };
    let o = hipscope(&["info", "--json", s(&co)]);
    assert!(o.status.success(), "{o:?}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    let c = &v["code_object"];
    assert_eq!(c["target"]["processor"], "gfx1100");
    let k = &c["kernels"][0];
    assert_eq!(k["name"], "vadd");
    assert_eq!(k["wave_size"], 32);
    assert_eq!(k["descriptor"]["compute_pgm_rsrc1"]["wgp_mode"], true);
    assert_eq!(k["descriptor"]["compute_pgm_rsrc3"]["layout"], "gfx10");
    assert_eq!(k["metadata"]["kernarg"]["args"][0]["value_kind"], "global_buffer");
    assert_eq!(k["metadata"]["kernarg"]["args"][0]["offset"], 0);
    assert_eq!(v["container"], "code_object");
}

#[test]
fn bundle_needs_a_target_and_honours_it() {
    let Some(b) = workload("bundles/vadd.bundle") else {
        println!("SKIPPED: bundle_needs_a_target_and_honours_it: workloads/bin/bundles/vadd.bundle not built");
        return;
    };
    let o = hipscope(&["info", s(&b)]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr_lines(&o);
    assert_eq!(err.len(), 1, "{err:?}");
    assert!(err[0].starts_with(&format!("hipscope: {}: ", s(&b))) && err[0].contains("gfx942"), "{err:?}");
    let o = hipscope(&["info", "--target", "gfx942", s(&b)]);
    assert!(o.status.success(), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("(loaded)"));
    let o = hipscope(&["info", "--target", "gfx803", s(&b)]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr_lines(&o).len(), 1);
}

#[test]
fn corrupted_files_give_one_line_and_exit_2() {
    let Some(co) = workload("gfx90a/vadd.co") else {
        println!("SKIPPED: corrupted_files_give_one_line_and_exit_2: workloads/bin/gfx90a/vadd.co not built");
        return;
    };
    let good = std::fs::read(&co).unwrap();
    let mut bad_machine = good.clone();
    bad_machine[18] = 62; // e_machine = EM_X86_64 without a .hip_fatbin
    let mut cases = vec![
        ("truncated.co", good[..good.len() / 3].to_vec()),
        ("header-only.co", good[..64].to_vec()),
        ("garbage.co", b"hello, world\n".to_vec()),
        ("empty.co", Vec::new()),
        ("machine.co", bad_machine),
    ];
    // Overwrite the section header table offset.
    let mut bad_shoff = good.clone();
    bad_shoff[0x28..0x30].copy_from_slice(&u64::MAX.to_le_bytes());
    cases.push(("shoff.co", bad_shoff));
    for (name, bytes) in cases {
        let path = scratch(name, &bytes);
        let o = hipscope(&["info", s(&path)]);
        assert_eq!(o.status.code(), Some(2), "{name}: {o:?}");
        let err = stderr_lines(&o);
        assert_eq!(err.len(), 1, "{name}: {err:?}");
        assert!(err[0].starts_with(&format!("hipscope: {}: ", s(&path))), "{name}: {err:?}");
        assert!(o.stdout.is_empty(), "{name}");
    }
    let o = hipscope(&["info", "/nonexistent/file.co"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr_lines(&o).len(), 1);
}

#[test]
fn values_beyond_hardware_limits_are_warnings() {
    let Some(co) = workload("gfx90a/vadd.co") else {
        println!("SKIPPED: values_beyond_hardware_limits_are_warnings: workloads/bin/gfx90a/vadd.co not built");
        return;
    };
    let mut bytes = std::fs::read(&co).unwrap();
    // The kernel descriptor is vadd.kd at the start of .rodata, file offset 0x840
    // (llvm-readelf-19 -S -s); KERNARG_SIZE at +8 is the 288 bytes the metadata declares.
    let kd = 0x840;
    assert_eq!(u32::from_le_bytes(bytes[kd + 8..kd + 12].try_into().unwrap()), 288, "descriptor not where expected");
    bytes[kd + 7] |= 0x80; // PRIVATE_SEGMENT_FIXED_SIZE: bit 31
    let flipped = scratch("vadd-private-bit31.co", &bytes);
    let o = hipscope(&["info", s(&flipped)]);
    assert!(o.status.success(), "{:?}", stderr_lines(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    let warnings: Vec<&str> = text.lines().filter(|l| l.trim_start().starts_with("warning:")).collect();
    assert_eq!(
        warnings,
        ["  warning: PRIVATE_SEGMENT_FIXED_SIZE is 2147483648, more than 131056 (per-lane share of the most scratch COMPUTE_TMPRING_SIZE gives a wave)"]
    );
    let o = hipscope(&["info", s(&flipped), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let w = &v["warnings"][0];
    assert_eq!(
        (w["kernel"].as_str(), w["field"].as_str(), w["value"].as_u64(), w["limit"].as_u64()),
        (Some("vadd"), Some("PRIVATE_SEGMENT_FIXED_SIZE"), Some(1 << 31), Some(131_056))
    );
    // The unmodified object has none.
    let v: serde_json::Value = serde_json::from_slice(&hipscope(&["info", s(&co), "--json"]).stdout).expect("JSON");
    assert_eq!(v["warnings"], serde_json::json!([]));
}
