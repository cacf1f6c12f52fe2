//! `--gpu FILE` runs that file's config in every command that takes it (`run`, `scopes`,
//! `validate`), whatever the file's `name` field says, and a config the engine cannot run is
//! an error naming the file and the field (exit 2), never a crash.

use crate::cli;

use cli::{code, hipscope, root, stderr};
use serde_json::Value;
use std::path::PathBuf;

/// A copy of built-in config `gpu` under target/, with `edit` applied, as `file`.
fn config_file(gpu: &str, file: &str, edit: impl Fn(String) -> String) -> PathBuf {
    let text = std::fs::read_to_string(root().join(format!("configs/{gpu}.ron"))).expect("built-in config");
    let dir = root().join("target/gpu-file-cli-tests");
    std::fs::create_dir_all(&dir).expect("test dir");
    let path = dir.join(file);
    std::fs::write(&path, edit(text)).expect("write config");
    path
}

/// `text` with the vector L1 hit latency multiplied by ten.
fn slow_l1(text: String) -> String {
    let at = text.find("vector_l1: (").expect("vector_l1 section");
    let key = "hit_latency_cycles: ";
    let start = at + text[at..].find(key).expect("L1 hit latency") + key.len();
    let end = start + text[start..].find(',').expect("value end");
    let v: u64 = text[start..end].trim().parse().expect("a number");
    format!("{}{}{}", &text[..start], v * 10, &text[end..])
}

fn renamed(text: String, from: &str, to: &str) -> String {
    text.replacen(&format!("name: \"{from}\""), &format!("name: \"{to}\""), 1)
}

fn json(o: &std::process::Output) -> Value {
    assert_eq!(code(o), 0, "{}", stderr(o));
    serde_json::from_slice(&o.stdout).expect("JSON output")
}

#[test]
fn run_uses_the_file_and_its_name() {
    let builtin = json(&hipscope(&["run", "workloads/vadd.ron", "--gpu", "mi210", "--mode", "timing", "--json"]));
    let same_name = config_file("mi210", "mi210-slow-l1.ron", slow_l1);
    let custom = config_file("mi210", "mygpu.ron", |t| slow_l1(renamed(t, "mi210", "mygpu")));
    let a = json(&hipscope(&["run", "workloads/vadd.ron", "--gpu", &same_name.to_string_lossy(), "--mode", "timing", "--json"]));
    let b = json(&hipscope(&["run", "workloads/vadd.ron", "--gpu", &custom.to_string_lossy(), "--mode", "timing", "--json"]));
    let cycles = |v: &Value| v["dispatches"][0]["cycles"].as_u64().expect("cycles");
    assert!(cycles(&a) > cycles(&builtin), "a 10x L1 latency must cost cycles: {} vs {}", cycles(&a), cycles(&builtin));
    assert_eq!(cycles(&a), cycles(&b), "only the name differs");
    assert_eq!(b["gpu"], "mygpu");
}

#[test]
fn scopes_uses_the_file_and_its_name() {
    // One invocation, three targets of one GPU: the built-in, a file with the built-in's name
    // and a slower L1, the same file under a name of its own.
    let same_name = config_file("r9nano", "r9nano-slow-l1.ron", slow_l1);
    let custom = config_file("r9nano", "mynano.ron", |t| slow_l1(renamed(t, "r9nano", "mynano")));
    let out = root().join("target/gpu-file-cli-tests/scopes");
    let gpus = format!("r9nano,{},{}", same_name.display(), custom.display());
    let v = json(&hipscope(&["scopes", "--gpu", &gpus, "--json", "--out", &out.to_string_lossy()]));
    let rows = v.as_array().expect("rows");
    let medians = |gpu: &str| -> Vec<u64> { rows.iter().filter(|r| r["gpu"] == gpu).filter_map(|r| r["cycles_median"].as_u64()).collect() };
    let (r9, mine) = (medians("r9nano"), medians("mynano"));
    assert!(!mine.is_empty(), "the custom-named config ran");
    assert_eq!(r9.len(), 2 * mine.len(), "two r9nano targets (built-in and file), one mynano");
    let (builtin, file) = r9.split_at(mine.len());
    assert_eq!(file, &mine[..], "the same config under two names gives the same cycles");
    let moved = builtin.iter().zip(file).filter(|(a, b)| b > a).count();
    assert!(moved * 2 > builtin.len(), "a 10x L1 latency must raise most scope cycles ({moved} of {} rose)", builtin.len());
    assert!(out.join("scopes-mynano.svg").exists());
}

#[test]
fn validate_uses_the_file() {
    let data = root().join("../shared/device-data");
    if !data.join("gpu-benches").is_dir() {
        println!("SKIPPED: {} not found (device measurements live outside the repository)", data.display());
        return;
    }
    let d = data.to_string_lossy();
    let l1 = |v: &Value| {
        let rows = v["groups"][0]["rows"].as_array().expect("rows").clone();
        rows.iter().find(|r| r["case"] == "L1 plateau").and_then(|r| r["simulated"].as_f64()).expect("L1 plateau row")
    };
    let builtin = hipscope(&["validate", "--only", "latency", "--gpu", "mi210", "--json", "--data", &d]);
    let file = config_file("mi210", "mi210-slow-l1-validate.ron", slow_l1);
    let slow = hipscope(&["validate", "--only", "latency", "--gpu", &file.to_string_lossy(), "--json", "--data", &d]);
    // The slow file misses the measurements (exit 1); its simulated figures are what matter.
    let (a, b): (Value, Value) = (serde_json::from_slice(&builtin.stdout).expect("JSON"), serde_json::from_slice(&slow.stdout).expect("JSON"));
    assert!(l1(&b) > 5.0 * l1(&a), "the file's L1 latency was simulated: {} vs {}", l1(&b), l1(&a));
    let custom = config_file("mi210", "mygpu-validate.ron", |t| renamed(t, "mi210", "mygpu"));
    let o = hipscope(&["validate", "--only", "latency", "--gpu", &custom.to_string_lossy(), "--data", &d]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("has data for mygpu (") && stderr(&o).contains("mygpu-validate.ron"), "{}", stderr(&o));
}

#[test]
fn configs_the_engine_cannot_run_exit_2_naming_file_and_field() {
    // RDNA in WGP mode with one CU: an index past the end in the timing engine before.
    let one_cu = config_file("rx7900xtx", "one-cu.ron", |t| t.replacen("compute_units: 96,", "compute_units: 1,", 1));
    let o = hipscope(&["run", "workloads/mp.ron", "--gpu", &one_cu.to_string_lossy(), "--mode", "timing"]);
    let e = stderr(&o);
    assert_eq!(code(&o), 2, "{e}");
    assert_eq!(e.trim().lines().count(), 1, "{e}");
    assert!(e.contains("one-cu.ron: compute_units: 1"), "{e}");
    // No timing section: the config file is at fault, not the spec.
    let functional_only = config_file("mi210", "no-timing.ron", |t| {
        let start = t.find("    timing: Some((").expect("timing section");
        let end = t.rfind(")),").expect("end of timing section") + 4;
        format!("{}{}", &t[..start], &t[end..])
    });
    let o = hipscope(&["run", "workloads/vadd.ron", "--gpu", &functional_only.to_string_lossy(), "--mode", "timing"]);
    let e = stderr(&o);
    assert_eq!(code(&o), 2, "{e}");
    assert!(e.contains("no-timing.ron: has no timing section"), "{e}");
    let o = hipscope(&["run", "workloads/vadd.ron", "--gpu", &functional_only.to_string_lossy()]);
    assert_eq!(code(&o), 0, "a functional run needs no timing section: {}", stderr(&o));
}
