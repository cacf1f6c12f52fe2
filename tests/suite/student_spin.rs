//! `hipscope grade --exec` on the spin loops students write (workloads/hip/student_spin.cpp):
//! each must end with the progress explanation in the grade's text and JSON, not a bare kernel
//! fault or the runaway limit.
//!
//! What each must be comes from the hardware's execution model, not from our output:
//! * `lock`: every lane of a wave takes one lock with atomicCAS in a loop. A wave's lanes run
//!   as one instruction stream under the EXEC mask (CDNA3 ISA, "EXECute Mask"), so the lane
//!   whose CAS succeeded is masked off (its EXEC bit clear) while its wave's other lanes spin
//!   reading the value it wrote: lanes of one wave spinning on each other, a livelock.
//! * `barrier`: a grid barrier over 8192 blocks of 256 work-items. MI300X has 304 CUs (AMD's
//!   public spec) of 32 wave slots each (4 SIMDs × 8 waves, `rocminfo` max_waves_per_cu 32);
//!   a block of 256 work-items is 4 waves, so 304 × 32 / 4 = 2432 blocks fit at once and the
//!   other 5760 can never start while the first ones wait.
//! * `bounded`: the same lock, each lane giving up after 2^32 - 1 attempts. The counter
//!   changes every iteration, so no state repeats: only the no-progress bound can stop it, as
//!   "no progress" (the runaway limit of 50 M instructions per wave took 75 s on MI300X).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn hipscope(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hipscope")).args(args).current_dir(root()).output().expect("hipscope runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// `grade --exec` of `student_spin WHICH` on mi300x (`timing`: `--timing`), JSON and text;
/// the kernel's entry of the JSON, and the text.
fn grade(which: &str, timing: bool, extra: &[&str]) -> (serde_json::Value, String) {
    let mut args = vec!["grade", "--exec", "--gpu", "mi300x", "--runs", "1"];
    if timing {
        args.push("--timing");
    }
    args.extend_from_slice(extra);
    let program = ["--", "workloads/hip/bin/student_spin", which];
    let (code, out, err) = hipscope(&[&args[..], &["--json"], &program[..]].concat());
    assert_eq!(code, 0, "{which} timing={timing}: exit {code}\n{out}\n{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{which}: not JSON ({e}):\n{out}\n{err}"));
    let kernel = doc["kernels"].as_array().and_then(|ks| ks.iter().find(|k| k["progress"].is_object()).cloned());
    let kernel = kernel.unwrap_or_else(|| panic!("{which} timing={timing}: no kernel with a progress explanation:\n{doc:#}"));
    assert!(
        doc["outcomes"].as_array().is_some_and(|o| o.iter().all(|o| o["state"].as_str().is_some_and(|s| s.starts_with("exit 3")))),
        "{which}: the program ends as a GPU fault would (exit 3): {doc:#}"
    );
    let (code, text, err) = hipscope(&[&args[..], &program[..]].concat());
    assert_eq!(code, 0, "{which} timing={timing}: exit {code}\n{text}\n{err}");
    (kernel, text)
}

#[test]
fn an_intra_wave_spin_lock_is_explained_as_lanes_of_one_wave() {
    for timing in [false, true] {
        let (k, text) = grade("lock", timing, &[]);
        println!("{text}");
        let p = &k["progress"];
        assert_eq!(p["verdict"], "livelock", "timing={timing}: {p:#}");
        assert_eq!(p["cause"], "lanes_of_one_wave", "timing={timing}: {p:#}");
        // The facts behind it: the lane that wrote the lock is outside its wave's EXEC mask.
        let waves = k["stuck"]["facts"]["waves"].as_array().expect("waves");
        let masked_holder = waves.iter().any(|w| {
            let (exec, lane) = (w["exec"].as_u64().unwrap_or(u64::MAX), w["last_write"]["lane"].as_u64().unwrap_or(64));
            lane < 64 && exec & (1 << lane) == 0 && w["last_write"]["value"] == 1 && w["last_read"]["value"] == 1
        });
        assert!(masked_holder, "timing={timing}: {waves:#?}");
        assert!(text.contains("livelock") && text.contains("lanes of one wave spin on each other") && text.contains("EXEC"), "{text}");
        // The CAS is inlined from HIP's header, whose line the line table gives.
        assert!(text.contains(".h:") || text.contains(".cpp:"), "the loop's source line is named: {text}");
    }
}

#[test]
fn a_grid_barrier_over_too_many_blocks_says_how_many_fit() {
    for timing in [false, true] {
        let (k, text) = grade("barrier", timing, &[]);
        println!("{text}");
        let p = &k["progress"];
        assert_eq!(p["cause"], "grid_barrier", "timing={timing}: {p:#}");
        let facts = &k["stuck"]["facts"];
        assert_eq!(facts["groups"], 8192);
        assert_eq!(facts["gpu_groups_fit"], 2432, "304 CUs × 32 wave slots / 4 waves: {facts:#}");
        assert!(text.contains("launched 8192 work-groups") && text.contains("at most 2432 fit on mi300x"), "{text}");
    }
}

#[test]
fn a_spin_bounded_by_a_counter_ends_with_no_progress_quickly() {
    for timing in [false, true] {
        let start = Instant::now();
        let (k, text) = grade("bounded", timing, &[]);
        // Two runs of the program (JSON, then text); on an idle machine each takes seconds
        // (the README has the measured times), the bound leaves room for a loaded one.
        let took = start.elapsed().as_secs_f64() / 2.0;
        println!("timing={timing}: {took:.1} s per run\n{text}");
        let p = &k["progress"];
        assert_eq!(p["verdict"], "no progress", "timing={timing}: {p:#}");
        assert_eq!(p["cause"], "lanes_of_one_wave", "the bounded lock is the same intra-wave lock: {p:#}");
        assert!(text.contains("no progress") && text.contains("a bound, not a proof"), "{text}");
        assert!(took < 240.0, "timing={timing}: {took:.1} s per run");
    }
}

/// A long kernel that keeps making progress is not cut by a bound far shorter than the kernel:
/// workloads/spin_lock.ron (8 groups take one lock 16 times each: lanes spin, but every
/// release and every acquisition is a visible change) with a bound a fifth of its length or
/// less (2 000 wave-instructions functional, 20 000 cycles timing), and the same
/// run with a bound so small that even its ordinary stretches exceed it is cut (so the bound
/// is really applied).
#[test]
fn a_long_kernel_that_makes_progress_is_not_cut() {
    for (mode, bound) in [("functional", "2000"), ("timing", "20000")] {
        let (code, out, err) = hipscope(&["run", "workloads/spin_lock.ron", "--mode", mode, "--no-progress-cycles", bound, "--json"]);
        assert_eq!(code, 0, "{mode}: {out}\n{err}");
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{mode}: not JSON ({e}):\n{out}"));
        let measure = if mode == "timing" { "cycles" } else { "instructions" };
        let total: u64 = doc["dispatches"].as_array().into_iter().flatten().filter_map(|d| d[measure].as_u64()).max().unwrap_or(0);
        println!("{mode}: longest dispatch {total} {measure}, bound {bound}");
        assert!(total >= 5 * bound.parse::<u64>().unwrap_or(u64::MAX / 5), "{mode}: the kernel must run well past the bound: {doc:#}");
        let (code, _, err) = hipscope(&["run", "workloads/spin_lock.ron", "--mode", mode, "--no-progress-cycles", "3"]);
        assert_eq!(code, 3, "{mode}: a bound of 3 cuts it: {err}");
        assert!(err.contains("no progress"), "{mode}: {err}");
    }
}

/// `grade --spec` on a flag nobody sets (`wait_flag` of workloads/src/livelock.hip polls a
/// zeroed flag that no thread writes): the explanation says so, from the facts (the polled
/// address is no wave's write), and stops at the first seed.
#[test]
fn grade_spec_explains_a_flag_nobody_sets() {
    let dir = std::env::temp_dir().join(format!("hipscope-student-spin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let co = root().join("workloads/bin/gfx942/livelock.co");
    let text = format!(
        "Run(gpu: \"mi300x\", code_objects: {{\"gfx942\": \"{}\"}}, buffers: {{\"flag\": (bytes: 4)}}, dispatches: [(kernel: \"wait_flag\", grid: (1024, 1, 1), block: (256, 1, 1), args: [Buffer(\"flag\")])])",
        co.display()
    );
    let spec = dir.join("spec.ron");
    std::fs::write(&spec, text).expect("write spec");
    let spec = spec.display().to_string();
    for timing in [false, true] {
        let mut args = vec!["grade", "--spec", &spec, "--runs", "3", "--json"];
        if timing {
            args.push("--timing");
        }
        let (code, out, err) = hipscope(&args);
        assert_eq!(code, 0, "timing={timing}: {out}\n{err}");
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}):\n{out}\n{err}"));
        let k = &doc["kernels"][0];
        assert_eq!(k["progress"]["cause"], "flag_nobody_sets", "timing={timing}: {k:#}");
        assert_eq!(k["progress"]["verdict"], "livelock", "timing={timing}: {k:#}");
        assert_eq!(k["runs"], 1, "one stuck seed tells it: {k:#}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
