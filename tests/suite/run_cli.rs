//! `hipscope run` and `hipscope gpus` end to end: exit codes 0/1/2/3, one-line errors, the JSON
//! schema the README documents. Uses the committed gfx90a `vadd` object (its instructions are among the
//! first implemented); specs written here use absolute code-object paths.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::cli;
use cli::{code, hipscope, root, stderr};

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A spec file under target/ (unique name per test).
fn spec_file(name: &str, text: &str) -> PathBuf {
    let dir = root().join("target/run-cli-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// A vadd spec on the gfx90a object: `n` elements, buffers of `len` floats, one expectation.
fn vadd_spec(n: u32, len: u32, expect: &str) -> String {
    let co = root().join("workloads/bin/gfx90a/vadd.co");
    format!(
        r#"Run(
  code_objects: {{"gfx90a": "{}"}},
  buffers: {{
    "a": (bytes: {b}, init: Iota(F32)),
    "b": (bytes: {b}, init: Const(F32, 0.5)),
    "c": (bytes: {b}),
  }},
  dispatches: [ (kernel: "vadd", grid: ({n}, 1, 1), block: (64, 1, 1), args: [Buffer("a"), Buffer("b"), Buffer("c"), U32({n})]) ],
  expect: [ {expect} ],
)"#,
        co.display(),
        b = 4 * len,
    )
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn passing_spec_exits_0_and_reports_dispatches_and_checks() {
    let o = hipscope(&["run", "workloads/vadd.ron", "--gpu", "mi210"]);
    let out = stdout(&o);
    assert_eq!(code(&o), 0, "{out}{}", stderr(&o));
    assert!(out.contains("gpu: mi210"), "{out}");
    assert!(out.contains("code object \"gfx90a\""), "{out}");
    assert!(out.contains("dispatch 0: vadd grid (10100,1,1) block (256,1,1): 40 groups, 158 waves,"), "{out}");
    assert!(out.contains("check c: ok (10240 f32 values equal reference vadd)"), "{out}");
}

#[test]
fn json_follows_the_product_schema() {
    let o = hipscope(&["run", "workloads/vadd.ron", "--gpu", "mi210", "--json", "--fidelity"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["checks", "dispatches", "fidelity", "gpu", "mode", "target"]);
    assert_eq!(v["gpu"], "mi210");
    assert_eq!(v["mode"], "functional");
    let d = &v["dispatches"][0];
    let dk: Vec<&str> = d.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(dk, ["counters", "cycles", "duration_ns", "instructions", "kernel", "warnings", "waves"]);
    assert_eq!(d["warnings"], serde_json::json!([]), "vadd does nothing to warn about");
    assert!(d["cycles"].is_null() && d["duration_ns"].is_null());
    assert_eq!(d["waves"], 158, "39 groups of 4 waves and a last group of 116 items");
    // Executed wave-instructions: the per-opcode counts of --fidelity add up to them.
    let per_opcode: u64 = v["fidelity"].as_object().unwrap().values().map(|f| f["count"].as_u64().unwrap()).sum();
    assert_eq!(d["instructions"].as_u64(), Some(per_opcode));
    assert!(per_opcode > 158, "every wave runs more than its s_endpgm");
    assert_eq!(v["checks"][0]["ok"], true);
    assert_eq!(v["fidelity"]["s_endpgm"]["count"], 158, "every wave ends once");
    assert_eq!(v["fidelity"]["s_endpgm"]["fidelity"], "exact");
    let o = hipscope(&["run", "workloads/vadd.ron", "--gpu", "mi210", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["fidelity"], serde_json::json!({}), "fidelity only with --fidelity");
}

#[test]
fn failed_expectation_exits_1() {
    let p = spec_file("fail.ron", &vadd_spec(64, 64, r#"(buffer: "c", equals: F32([0.5, 1.5, 99.0]))"#));
    let o = hipscope(&["run", s(&p), "--gpu", "mi210"]);
    let out = stdout(&o);
    assert_eq!(code(&o), 1, "{out}{}", stderr(&o));
    assert!(out.contains("check c: FAIL (1 of 3 f32 values differ from the expected list; first: [2] = 2.5, expected 99.0)"), "{out}");
}

#[test]
fn kernel_fault_exits_3_with_one_line() {
    // n = 2000 over 1000-float buffers: the kernel reads past `a`, like a GPU page fault.
    let p = spec_file("fault.ron", &vadd_spec(2000, 1000, r#"(buffer: "c", equals: Reference("vadd"))"#));
    let o = hipscope(&["run", s(&p), "--gpu", "mi210"]);
    let err = stderr(&o);
    assert_eq!(code(&o), 3, "{}{err}", stdout(&o));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("dispatch 0: kernel fault in `vadd`, workgroup (")
            && err.contains("pc 0x")
            && err.contains("memory violation")
            && err.contains("past the end of buffer \"a\""),
        "{err}"
    );
}

#[test]
fn bad_specs_exit_2_naming_file_and_place() {
    let cases: &[(&str, String, &str)] = &[
        ("syntax.ron", "Run(code_objects: {\"x\": 1".into(), "syntax.ron:1:"),
        ("field.ron", vadd_spec(64, 64, r#"(buffer: "nosuch", equals: Reference("vadd"))"#), "expect[0].buffer: no buffer named \"nosuch\""),
        ("arg.ron", vadd_spec(64, 64, "").replace("Buffer(\"b\")", "Buffer(\"q\")"), "dispatches[0].args[1]: no buffer named \"q\""),
        ("argsize.ron", vadd_spec(64, 64, "").replace("U32(64)]", "U64(64)]"), "dispatches[0].args[3]: U64 is 8 bytes; argument 3 (by_value) is 4 bytes"),
        ("ref.ron", vadd_spec(64, 64, r#"(buffer: "c", equals: Reference("nosuch"))"#), "expect[0].equals: no built-in reference \"nosuch\""),
        ("block.ron", vadd_spec(64, 64, "").replace("block: (64, 1, 1)", "block: (2048, 1, 1)"), "dispatches[0].block: 2048 work-items"),
        ("kernel.ron", vadd_spec(64, 64, "").replace("kernel: \"vadd\"", "kernel: \"vsub\""), "dispatches[0].kernel: no kernel named 'vsub'"),
        ("init.ron", vadd_spec(64, 64, "").replace("Const(F32, 0.5)", "Const(U8, 300)"), "buffers.b.init: 300 is not a u8"),
    ];
    for (name, text, want) in cases {
        let p = spec_file(name, text);
        let o = hipscope(&["run", s(&p), "--gpu", "mi210"]);
        let err = stderr(&o);
        assert_eq!(code(&o), 2, "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(err.contains(&format!("{}", p.display())) && err.contains(want), "{name}: {err}");
    }
}

#[test]
fn gpu_and_code_object_choice() {
    let p = spec_file("nogpu.ron", &vadd_spec(64, 64, r#"(buffer: "c", equals: Reference("vadd"))"#));
    // Two built-in GPUs run gfx90a: the user must pick.
    let o = hipscope(&["run", s(&p)]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("several built-in GPUs run gfx90a (mi210, mi250x): pass --gpu"), "{}", stderr(&o));
    let o = hipscope(&["run", s(&p), "--gpu", "mi300x"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("no code object for mi300x (gfx942); the spec has: gfx90a (gfx90a)"), "{}", stderr(&o));
    let o = hipscope(&["run", s(&p), "--gpu", "mi210", "--code-object", "gfx942"]);
    assert!(code(&o) == 2 && stderr(&o).contains("--code-object: no entry \"gfx942\""), "{}", stderr(&o));
    let o = hipscope(&["run", s(&p), "--gpu", "nosuchgpu"]);
    assert!(code(&o) == 2 && stderr(&o).contains("unknown GPU 'nosuchgpu' (built-in: r9nano,"), "{}", stderr(&o));
    let cfg = root().join("configs/mi250x.ron");
    let o = hipscope(&["run", s(&p), "--gpu", s(&cfg)]);
    assert_eq!(code(&o), 0, "a config file works as --gpu: {}", stderr(&o));
    assert!(stdout(&o).contains("gpu: mi250x"));
}

/// Timing mode: cycles, duration and counters in the JSON and the CSV. The instruction counts
/// follow from the kernel and the grid: vadd's 158 waves (grid 10100, block 256) check
/// `i < n` (n = 10000), so the ⌈10000 / 64⌉ = 157 waves with an item in range load a and b
/// and store c.
#[test]
fn timing_mode_reports_cycles_and_counters() {
    let csv = root().join("target/run-cli-tests/vadd-counters.csv");
    let _ = std::fs::create_dir_all(csv.parent().unwrap());
    let o = hipscope(&["run", "workloads/vadd.ron", "--gpu", "mi210", "--mode", "timing", "--json", "--counters", s(&csv)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["mode"], "timing");
    assert_eq!(v["checks"][0]["ok"], true, "values are right in timing mode");
    let d = &v["dispatches"][0];
    let cycles = d["cycles"].as_u64().expect("cycles");
    assert!(cycles > 0);
    let ns = d["duration_ns"].as_f64().expect("duration");
    assert!((ns - cycles as f64 / 1.7).abs() < 1.0, "{ns} ns at 1700 MHz for {cycles} cycles");
    let c = &d["counters"];
    assert_eq!(c["SQ_WAVES"], 158);
    assert_eq!(c["SQ_INSTS_VMEM_RD"], 2 * 157);
    assert_eq!(c["SQ_INSTS_VMEM_WR"], 157);
    assert_eq!(c["GRBM_GUI_ACTIVE"], cycles);
    let text = std::fs::read_to_string(&csv).expect("counters CSV");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(&header[..4], ["Dispatch_ID", "Kernel_Name", "Cycles", "Duration_ns"]);
    let col = header.iter().position(|h| *h == "SQ_WAVES").expect("SQ_WAVES column");
    assert_eq!(row[col], "158");
    assert_eq!(row[2], cycles.to_string());
    // The text report names the mode and the cycles.
    let o = hipscope(&["run", "workloads/vadd.ron", "--gpu", "mi210", "--mode", "timing"]);
    assert!(stdout(&o).contains("mode: timing") && stdout(&o).contains(" cycles ("), "{}", stdout(&o));
}

#[test]
fn counters_and_traces_need_timing_mode() {
    let o = hipscope(&["run", "workloads/vadd.ron", "--gpu", "mi210", "--counters", "x.csv"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--mode timing"), "{}", stderr(&o));
    let o = hipscope(&["run", "workloads/vadd.ron", "--gpu", "mi210", "--trace", "t.json"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--mode timing"), "{}", stderr(&o));
    // The CSV's directory is checked before the run, not after it.
    let o = hipscope(&["run", "workloads/vadd.ron", "--gpu", "mi210", "--mode", "timing", "--counters", "no/such/dir/c.csv"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--counters no/such/dir/c.csv: no/such/dir is not a directory") && stdout(&o).is_empty(), "{}", stderr(&o));
    // A user config without a timing section runs functionally but not with timing.
    let text = std::fs::read_to_string(root().join("configs/mi210.ron")).unwrap();
    let cut = text.find("    timing: Some((").unwrap();
    let cfg = spec_file("mi210-no-timing.ron", &format!("{})\n", &text[..cut]));
    let o = hipscope(&["run", "workloads/vadd.ron", "--gpu", s(&cfg)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = hipscope(&["run", "workloads/vadd.ron", "--gpu", s(&cfg), "--mode", "timing"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("has no timing section"), "{}", stderr(&o));
}

#[test]
fn gpus_lists_the_twelve_builtins() {
    let o = hipscope(&["gpus"]);
    assert_eq!(code(&o), 0);
    let out = stdout(&o);
    let names = ["r9nano", "vega64", "mi100", "mi210", "mi250x", "mi300a", "mi300x", "mi355x", "rx5700xt", "rx6900xt", "rx7900xtx", "rx9070xt"];
    for g in names {
        assert!(out.lines().any(|l| l.starts_with(g)), "{g}: {out}");
    }
    let o = hipscope(&["gpus", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v.as_array().map(Vec::len), Some(names.len()));
    let gpu = |name: &str| v.as_array().and_then(|a| a.iter().find(|g| g["name"] == name)).cloned().unwrap_or_else(|| panic!("no {name}"));
    assert_eq!(gpu("mi300x")["processor"], "gfx942");
    assert_eq!(gpu("mi300x")["hip"]["warp_size"], 64);
    // MI355X: gfx950, wave64, 256 CUs (ROCm docs "GPU hardware specifications", MI355X row).
    assert_eq!(gpu("mi355x")["processor"], "gfx950");
    assert_eq!(gpu("mi355x")["compute_units"], 256);
    // The GPUs of the published litmus campaigns (LLVM AMDGPUUsage processor table: Vega 10 is
    // gfx900, Navi 10 gfx1010; AMD product pages: 64 and 40 CUs; GCN is wave64 only).
    assert_eq!(
        (gpu("vega64")["processor"].clone(), gpu("vega64")["compute_units"].clone(), gpu("vega64")["wave_size"].clone()),
        ("gfx900".into(), 64.into(), 64.into())
    );
    assert_eq!((gpu("rx5700xt")["processor"].clone(), gpu("rx5700xt")["compute_units"].clone()), ("gfx1010".into(), 40.into()));
}

/// The GPUs of the published litmus campaigns run committed specs from their own builds (gfx900;
/// gfx1010 in both wave sizes and both modes) in timing mode, checked against the CPU references.
#[test]
fn vega64_and_rx5700xt_run_specs_in_timing_mode() {
    let cases = [
        ("vega64", None, "gfx900"),
        ("rx5700xt", None, "gfx1010-w32-wgp"),
        ("rx5700xt", Some("gfx1010-w32-cu"), "gfx1010-w32-cu"),
        ("rx5700xt", Some("gfx1010-w64-wgp"), "gfx1010-w64-wgp"),
        ("rx5700xt", Some("gfx1010-w64-cu"), "gfx1010-w64-cu"),
    ];
    for spec in ["workloads/vadd.ron", "workloads/saxpy.ron"] {
        for (gpu, forced, key) in cases {
            let mut args = vec!["run", spec, "--gpu", gpu, "--mode", "timing"];
            args.extend(forced.map(|k| ["--code-object", k]).iter().flatten());
            let o = hipscope(&args);
            let out = stdout(&o);
            assert_eq!(code(&o), 0, "{spec} on {gpu}: {out}{}", stderr(&o));
            assert!(out.contains(&format!("code object \"{key}\"")), "{spec} on {gpu}: {out}");
            assert!(out.contains(" cycles (") && out.contains("result: 1/1 checks passed"), "{spec} on {gpu}: {out}");
        }
    }
}

/// `--json` on a kernel fault: the fault as JSON on stdout, still exit status 3.
#[test]
fn kernel_fault_as_json() {
    let p = spec_file("fault-json.ron", &vadd_spec(2000, 1000, r#"(buffer: "c", equals: Reference("vadd"))"#));
    let o = hipscope(&["run", s(&p), "--gpu", "mi210", "--json"]);
    assert_eq!(code(&o), 3, "{}{}", stdout(&o), stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON on stdout");
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["dispatch", "fault", "spec"]);
    assert_eq!(v["dispatch"], 0);
    assert_eq!(v["spec"], s(&p));
    let f = &v["fault"];
    let fk: Vec<&str> = f.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(fk, ["address", "kernel", "pc", "wave", "what", "workgroup"]);
    assert_eq!(f["kernel"], "vadd");
    assert_eq!(f["workgroup"].as_array().map(Vec::len), Some(3));
    // 64-item groups: items 1000.. (past a's 1000 floats) are in groups 15 and later.
    assert!(f["workgroup"][0].as_u64().unwrap() >= 15, "{f}");
    assert!(f["what"].as_str().unwrap().contains("memory violation") && f["what"].as_str().unwrap().contains("past the end of buffer \"a\""), "{f}");
    let addr = f["address"].as_u64().unwrap();
    assert!(f["what"].as_str().unwrap().contains(&format!("{addr:#x}")), "the address is the one the text names: {f}");
    assert!(f["pc"].as_u64().unwrap() > 0);
    // The one-line error still goes to stderr.
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
}

/// `--dump BUFFER=FILE` writes the buffer after the run, also when a check fails.
#[test]
fn dump_writes_buffers_after_the_run() {
    let p = spec_file("dump.ron", &vadd_spec(60, 64, r#"(buffer: "c", equals: F32([99.0]))"#));
    let out = root().join("target/run-cli-tests/dump-c.bin");
    let _ = std::fs::remove_file(&out);
    let arg = format!("c={}", out.display());
    let o = hipscope(&["run", s(&p), "--gpu", "mi210", "--dump", &arg]);
    assert_eq!(code(&o), 1, "the check fails: {}{}", stdout(&o), stderr(&o));
    let bytes = std::fs::read(&out).expect("dump written");
    let c: Vec<f32> = bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    // c[i] = a[i] + b[i] = i + 0.5 for i < n = 60; c starts zeroed, so the rest stays 0.
    let want: Vec<f32> = (0..64).map(|i| if i < 60 { i as f32 + 0.5 } else { 0.0 }).collect();
    assert_eq!(c, want);
    // Mistakes are found before running.
    let o = hipscope(&["run", s(&p), "--gpu", "mi210", "--dump", "q=x.bin"]);
    assert!(code(&o) == 2 && stderr(&o).contains("--dump q: no buffer named \"q\" (buffers: a, b, c)"), "{}", stderr(&o));
    let o = hipscope(&["run", s(&p), "--gpu", "mi210", "--dump", "c"]);
    assert!(code(&o) == 2 && stderr(&o).contains("--dump c: expected BUFFER=FILE"), "{}", stderr(&o));
    let o = hipscope(&["run", s(&p), "--gpu", "mi210", "--dump", "c=no/such/dir/c.bin"]);
    assert!(code(&o) == 2 && stderr(&o).contains("no/such/dir is not a directory"), "{}", stderr(&o));
}

/// `--no-check` runs the dispatches and skips the expectations.
#[test]
fn no_check_skips_the_expectations() {
    let p = spec_file("nocheck.ron", &vadd_spec(64, 64, r#"(buffer: "c", equals: F32([99.0]))"#));
    let o = hipscope(&["run", s(&p), "--gpu", "mi210", "--no-check"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("result: checks skipped (--no-check)") && !stdout(&o).contains("check c:"), "{}", stdout(&o));
    assert!(stdout(&o).contains("dispatch 0: vadd"), "the dispatches still run: {}", stdout(&o));
    let o = hipscope(&["run", s(&p), "--gpu", "mi210", "--no-check", "--json"]);
    assert_eq!(code(&o), 0);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["checks"], serde_json::json!([]));
    assert_eq!(v["checks_skipped"], true);
    // Without it the same spec fails.
    assert_eq!(code(&hipscope(&["run", s(&p), "--gpu", "mi210"])), 1);
}
