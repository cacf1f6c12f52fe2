//! `hipscope grade --exec` on a real HIP program and `hipscope grade --spec` on the coursework
//! specs: verdicts, source lines, rules, and bad invocations.
//!
//! workloads/hip/seed_mp.cpp is the HIP memory model's message-passing example (the seed
//! document's text): with a device-scope release store it is race-free; with a block-scope
//! one, the store's scope excludes the reading block, a race the document names.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn hipscope(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hipscope")).args(args).current_dir(root()).output().expect("hipscope runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn kernel<'a>(doc: &'a serde_json::Value, prefix: &str) -> &'a serde_json::Value {
    doc["kernels"]
        .as_array()
        .and_then(|ks| ks.iter().find(|k| k["kernel"].as_str().is_some_and(|n| n.starts_with(prefix))))
        .unwrap_or_else(|| panic!("no kernel {prefix} in {doc}"))
}

/// Both sides of some race of `k` name a line of `file`, with the rule broken.
fn race_with_lines(k: &serde_json::Value, file: &str) -> bool {
    k["races"].as_array().is_some_and(|rs| {
        rs.iter().any(|r| {
            let named = |side: &str| r[side]["file"].as_str().is_some_and(|f| f.ends_with(file)) && r[side]["line"].as_u64().is_some_and(|l| l > 0);
            named("first_line") && named("second_line") && r["rule"].is_string()
        })
    })
}

#[test]
fn the_seed_message_passing_example_through_grade_exec() {
    // gfx942 (mi300a) and gfx90a (mi210): the block-scope release store compiles differently
    // from the device-scope one there, so the code shows the scope.
    for gpu in ["mi300a", "mi210"] {
        let (code, out, err) = hipscope(&["grade", "--exec", "--gpu", gpu, "--runs", "3", "--json", "--", "workloads/hip/bin/seed_mp"]);
        assert_eq!(code, 0, "{gpu}: exit {code}\n{out}\n{err}");
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{gpu}: not JSON ({e}):\n{out}"));
        let block = kernel(&doc, "mp_block");
        assert_eq!(block["race"], true, "{gpu}: the block-scope form races:\n{block:#}");
        assert!(race_with_lines(block, "seed_mp.cpp"), "{gpu}: no race names both lines of seed_mp.cpp:\n{block:#}");
        let device = kernel(&doc, "mp_device");
        assert_eq!(device["race"], false, "{gpu}: the device-scope form is race-free:\n{device:#}");
        assert!(
            doc["outcomes"].as_array().is_some_and(|o| o.iter().all(|o| o["state"].as_str().is_some_and(|s| s.contains("PASS seed_mp")))),
            "{gpu}: {doc:#}"
        );
    }
}

#[test]
fn grade_exec_text_report_names_the_rule_and_a_fix() {
    let (code, out, err) = hipscope(&["grade", "--exec", "--runs", "2", "--", "workloads/hip/bin/seed_mp"]);
    assert_eq!(code, 0, "{out}\n{err}");
    println!("{out}");
    assert!(out.contains("mp_block") && out.contains("RACE"), "{out}");
    assert!(out.contains("seed_mp.cpp:"), "{out}");
    assert!(out.contains("fix: "), "{out}");
    assert!(out.contains("1 race"), "{out}");
}

/// `grade --spec` on the gfx942 build of the fence coursework, kernels matching `only`,
/// with `--expect race-free`.
fn grade_fence_spec(only: &str) -> (i32, String, String) {
    let args = ["grade", "--spec", "workloads/grading/fence.ron", "--gpu", "mi300a", "--code-object", "gfx942"];
    hipscope(&[&args[..], &["--only", only, "--runs", "2", "--expect", "race-free"]].concat())
}

#[test]
fn grade_spec_on_the_coursework_and_expect_race_free() {
    let (code, out, err) = grade_fence_spec("norace_interwarp");
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("norace_interwarp_blkfence_raw on gfx942: race-free"), "{out}");
    let (code, out, err) = grade_fence_spec("race_interblock_blkfence_raw");
    assert_eq!(code, 1, "a race fails --expect race-free\n{out}\n{err}");
}

#[test]
fn bad_grade_invocations_are_one_line_errors() {
    let (code, _, err) = hipscope(&["grade", "--spec", "workloads/grading/fence.ron", "--expect", "allowed"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--expect"), "{err}");
    let (code, _, err) = hipscope(&["grade", "--spec", "workloads/grading/no_such.ron"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no_such.ron"), "{err}");
    let (code, _, err) = hipscope(&["grade", "--exec"]);
    assert_eq!(code, 2, "--exec without a program: {err}");
    let (code, _, err) =
        hipscope(&["grade", "--spec", "workloads/grading/fence.ron", "--gpu", "mi300a", "--code-object", "gfx942", "--only", "nothing_matches"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--only"), "{err}");
}

/// `--timing` adds what the simulated GPU did with the race, told from the caches' own data.
/// Checked against what the program itself printed: on MI300A the reading block's spin times
/// out (`mp_block read -1`), so the racing flag load must have returned the stale value in
/// every replay; on MI210 it reads 42, so no replay may show a stale value.
#[test]
fn grade_exec_timing_tells_what_the_memory_system_did() {
    for (gpu, printed, stale) in [("mi300a", "mp_block read -1", true), ("mi210", "mp_block read 42", false)] {
        // The reader gives up after 2^16 polls (about 39 M cycles on MI300A), past the default
        // no-progress bound: that stop would be a "no progress" report instead of the story.
        let args = ["grade", "--exec", "--timing", "--gpu", gpu, "--runs", "1", "--no-progress-cycles", "0", "--json", "--"];
        let (code, out, err) = hipscope(&[&args[..], &["workloads/hip/bin/seed_mp"]].concat());
        assert_eq!(code, 0, "{gpu}: exit {code}\n{out}\n{err}");
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{gpu}: not JSON ({e}):\n{out}"));
        assert!(doc["outcomes"][0]["state"].as_str().is_some_and(|s| s.contains(printed)), "{gpu}: the program printed something else:\n{doc:#}");
        let story = &kernel(&doc, "mp_block")["story"];
        assert_eq!(story["replays"], 1, "{gpu}: {story:#}");
        assert_eq!((story["stale"] == 1, story["hidden"] == 1), (stale, !stale), "{gpu}: {story:#}");
        let told = &story["told"];
        let lines: Vec<&str> = told["lines"].as_array().into_iter().flatten().filter_map(|l| l.as_str()).collect();
        assert!(lines.iter().any(|l| l.contains("seed_mp.cpp:29") && l.contains("writes 1")), "{gpu}: the flag store is told:\n{lines:#?}");
        assert!(lines.iter().any(|l| l.contains("seed_mp.cpp:33") && l.contains("reads")), "{gpu}: the flag load is told:\n{lines:#?}");
        assert!(told["conclusion"].as_str().is_some_and(|c| !c.is_empty()), "{gpu}: {told:#}");
        assert!(kernel(&doc, "mp_device")["story"].is_null(), "{gpu}: a race-free kernel has no race story");
    }
}

/// `grade --spec` on mi355x with the gfx950 builds (clang-22) of the five coursework specs:
/// every kernel's verdict is the one its name gives (the coursework's own answer): `race_*`
/// kernels race, or are reported undecided where work-group and agent scope compile alike
/// (gfx950 lowers as GFX942, AMDGPUUsage); `norace_*` kernels are race-free. Races name source
/// lines (the objects carry line tables).
#[test]
fn grade_spec_on_gfx950_gives_the_coursework_verdicts() {
    for spec in ["atomic", "barrier", "fence", "lock", "patterns"] {
        let path = format!("workloads/grading/{spec}.ron");
        let (code, out, err) = hipscope(&["grade", "--spec", &path, "--gpu", "mi355x", "--code-object", "gfx950", "--json"]);
        assert!(code == 0 || code == 1, "{spec}: exit {code}\n{err}");
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{spec}: not JSON ({e}):\n{out}\n{err}"));
        let kernels = doc["kernels"].as_array().unwrap_or_else(|| panic!("{spec}: no kernels: {doc}"));
        assert!(!kernels.is_empty(), "{spec}");
        for k in kernels {
            let name = k["kernel"].as_str().unwrap_or_default();
            assert_eq!(k["target"], "gfx950", "{spec}/{name}");
            let undecided = k["undecided"].as_array().is_some_and(|u| !u.is_empty());
            if name.starts_with("norace_") {
                assert_eq!(k["race"], false, "{spec}/{name} is race-free:\n{k:#}");
            } else {
                assert!(k["race"] == true || undecided, "{spec}/{name} races:\n{k:#}");
                if k["race"] == true {
                    // One side may be a line of the HIP header an atomic was inlined from.
                    let file = format!("{spec}.hip");
                    let names = |r: &serde_json::Value, side: &str| {
                        r[side]["file"].as_str().is_some_and(|f| f.ends_with(&file)) && r[side]["line"].as_u64().is_some_and(|l| l > 0)
                    };
                    let lines = k["races"].as_array().is_some_and(|rs| rs.iter().any(|r| names(r, "first_line") || names(r, "second_line")));
                    assert!(lines, "{spec}/{name}: no race names a line of {file}:\n{k:#}");
                }
            }
        }
    }
}
