//! The scope suite (`workloads/scopes/scopes.hip`): every kernel on every committed config (the
//! 18 configs, gfx950 and the gfx90a/gfx942/gfx950 tgsplit builds), in
//! timing mode on the built-in GPU of its processor, with the times buffers read back.
//!
//! What is checked is only that each kernel runs and writes plausible figures: every wave of
//! a measurement kernel a cycle count in 1 ..= 100 000 (the region holds one synchronization
//! operation and two counter drains), and the agent- and system-scope ping-pong all its rounds
//! at 1 ..= 100 000 cycles per round trip. `pp__workgroup` between two work-groups is a scope
//! race and may time out (0xFFFFFFFF), so it is only required to finish one way or the other.
//! The figures themselves are the model's output; no independent data fixes them here. Run
//! with `--nocapture` for the table (per kernel and config: the waves' smallest and largest
//! cycle counts; for ping-pong: cycles per round trip / rounds).

use hipscope_sim::spec::{self, RunOptions, Session};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const OPS: &[&str] = &["fence_acq", "fence_rel", "fence_acq_rel", "fence_seq_cst", "load_acq", "store_rel", "rmw_acq_rel", "add_noret", "add_ret", "lds_add"];
const SCOPES: &[&str] = &["wavefront", "workgroup", "agent", "system"];
const PP_SCOPES: &[&str] = &["workgroup", "agent", "system"];
/// One work-group of 256 work-items: 4 wave64 or 8 wave32 waves.
const BLOCK: u32 = 256;
const DIRTY_DWORDS: u32 = 256;
const ROUNDS: u32 = 10;
const SENTINEL: u32 = 0xFFFF_FFFF;

fn measurement_kernels() -> Vec<String> {
    let mut v = vec!["sc_none__none".to_string()];
    for s in SCOPES {
        for op in OPS {
            v.push(format!("sc_{op}__{s}"));
        }
    }
    v.push("sc_syncthreads__workgroup".into());
    v
}

/// The built-in GPU for a config directory name.
fn gpu_for(config: &str) -> Option<&'static str> {
    Some(match config.split('-').next()? {
        "gfx803" => "r9nano",
        "gfx900" => "vega64",
        "gfx908" => "mi100",
        "gfx90a" => "mi210",
        "gfx942" => "mi300x",
        "gfx950" => "mi355x",
        "gfx1010" => "rx5700xt",
        "gfx1030" => "rx6900xt",
        "gfx1100" => "rx7900xtx",
        "gfx1201" => "rx9070xt",
        _ => return None,
    })
}

/// A spec (text) with one dispatch per kernel, each writing its own times buffer.
fn spec_text(config: &str, sc: &[String]) -> String {
    let mut buffers = String::from("    \"sync\": (bytes: 256),\n    \"dirty\": (bytes: 8192),\n");
    let mut dispatches = String::new();
    for (i, k) in sc.iter().enumerate() {
        buffers.push_str(&format!("    \"t{i}\": (bytes: 64, init: Const(U32, {SENTINEL})),\n"));
        dispatches.push_str(&format!(
            "    (kernel: \"{k}\", grid: ({BLOCK}, 1, 1), block: ({BLOCK}, 1, 1), args: [Buffer(\"sync\"), Buffer(\"dirty\"), U32({DIRTY_DWORDS}), Buffer(\"t{i}\")]),\n"
        ));
    }
    for s in PP_SCOPES {
        buffers.push_str(&format!("    \"flag_{s}\": (bytes: 4),\n    \"pp_{s}\": (bytes: 8, init: Const(U32, 4294967294)),\n"));
        dispatches.push_str(&format!(
            "    (kernel: \"pp__{s}\", grid: (128, 1, 1), block: (64, 1, 1), args: [Buffer(\"flag_{s}\"), U32(1), U32({ROUNDS}), Buffer(\"pp_{s}\")]),\n"
        ));
    }
    format!("Run(\n  code_objects: {{\"{config}\": \"../bin/{config}/scopes.co\"}},\n  buffers: {{\n{buffers}  }},\n  dispatches: [\n{dispatches}  ],\n  expect: [],\n)\n")
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

#[test]
fn every_scope_kernel_runs_on_every_config_in_timing_mode() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads");
    let mut configs: Vec<String> = std::fs::read_dir(root.join("bin"))
        .expect("workloads/bin")
        .flatten()
        .filter(|e| e.path().join("scopes.co").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    configs.sort();
    assert_eq!(configs.len(), 22, "workloads/bin/<config>/scopes.co for the 18 clang-19 configs, gfx950 and the three tgsplit builds: {configs:?}");
    let sc = measurement_kernels();
    assert_eq!(sc.len(), 42);
    let mut table: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut problems = Vec::new();
    for config in &configs {
        let gpu = gpu_for(config).unwrap_or_else(|| panic!("no built-in GPU for config {config}"));
        // The spec is anchored in workloads/scopes/ (never written there), so "../bin" resolves.
        let path: PathBuf = root.join("scopes").join(format!("all-{config}.ron"));
        let s = spec::parse(&spec_text(config, &sc), &path).unwrap_or_else(|e| panic!("{config}: {e}"));
        let opts = RunOptions { gpu: Some(gpu.into()), code_object: Some(config.clone()), seed: 0, mode: hipscope_sim::Mode::Timing, ..RunOptions::default() };
        let mut session = Session::new(&s, &path, &opts).unwrap_or_else(|e| panic!("{config}: {e}"));
        let waves = (BLOCK / session.wave_size) as usize;
        for i in 0..session.dispatch_count() {
            if let Err(e) = session.launch(i, 0) {
                problems.push(format!("{config} dispatch {i}: {e}"));
            }
        }
        for (i, k) in sc.iter().enumerate() {
            let t = words(&session.read_buffer(&format!("t{i}")).expect("times buffer"));
            let t = &t[..waves];
            let (lo, hi) = (t.iter().min().copied().unwrap_or(0), t.iter().max().copied().unwrap_or(0));
            if lo == 0 || hi > 100_000 {
                problems.push(format!("{config} {k}: implausible times {t:?}"));
            }
            table.entry(k.clone()).or_default().push(format!("{lo}-{hi}"));
        }
        for s in PP_SCOPES {
            let t = words(&session.read_buffer(&format!("pp_{s}")).expect("pp buffer"));
            let ok = t[1] == ROUNDS && t[0] > 0 && t[0] <= 100_000;
            let timed_out = t[0] == SENTINEL || t[1] == SENTINEL;
            if !(ok || (*s == "workgroup" && timed_out)) {
                problems.push(format!("{config} pp__{s}: times {:?}", &t[..2]));
            }
            let cell = if timed_out { "timeout".to_string() } else { format!("{}/{}", t[0], t[1]) };
            table.entry(format!("pp__{s}")).or_default().push(cell);
        }
    }
    let w = table.keys().map(String::len).max().unwrap_or(0);
    let mut header = format!("{:<w$}", "kernel");
    for c in &configs {
        header.push_str(&format!(" {c:>15}"));
    }
    println!("scope suite, timing mode (cycles: smallest-largest wave; pp: cycles per round trip/rounds)\n{header}");
    for k in sc.iter().cloned().chain(PP_SCOPES.iter().map(|s| format!("pp__{s}"))) {
        let mut line = format!("{k:<w$}");
        for cell in &table[&k] {
            line.push_str(&format!(" {cell:>15}"));
        }
        println!("{line}");
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `workloads/scopes/smoke.ron` on one built-in GPU per processor, as the README runs it
/// (default code object of each GPU); prints every times buffer and checks it as above.
#[test]
fn smoke_spec_times_are_plausible_on_every_gpu() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads/scopes/smoke.ron");
    let s = spec::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let mut problems = Vec::new();
    for gpu in ["mi355x", "mi300x", "mi210", "mi100", "vega64", "r9nano", "rx5700xt", "rx6900xt", "rx7900xtx", "rx9070xt"] {
        let opts = RunOptions { gpu: Some(gpu.into()), seed: 0, mode: hipscope_sim::Mode::Timing, ..RunOptions::default() };
        let mut session = Session::new(&s, &path, &opts).unwrap_or_else(|e| panic!("{gpu}: {e}"));
        let waves = (BLOCK / session.wave_size) as usize;
        for i in 0..session.dispatch_count() {
            if let Err(e) = session.launch(i, 0) {
                problems.push(format!("{gpu} dispatch {i}: {e}"));
            }
        }
        for name in s.buffers.keys().filter(|n| n.starts_with("times_")) {
            let t = words(&session.read_buffer(name).expect("times buffer"));
            let t: Vec<u32> = if name.starts_with("times_pp_") { t[..2].to_vec() } else { t[..waves].to_vec() };
            println!("{gpu:<10} {name:<22} {t:?}");
            let ok = if name.starts_with("times_pp_") { t[1] == 10 && t[0] > 0 && t[0] <= 100_000 } else { t.iter().all(|&c| c > 0 && c <= 100_000) };
            if !ok {
                problems.push(format!("{gpu} {name}: implausible {t:?}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
