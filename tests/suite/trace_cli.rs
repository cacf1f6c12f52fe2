//! `hipscope run --mode timing --trace` and `--watchdog-cycles` end to end, on the committed
//! gfx90a `vadd` object on the MI210: the trace is Chrome trace-event JSON whose lanes are
//! labelled, which shows every wave once and every memory access with the level that served
//! it, on one timeline across dispatches; the watchdog stops a run that makes no progress with
//! a kernel fault listing what each wave waits on.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::cli;
use cli::{code, hipscope, root, stderr};

fn out_dir() -> PathBuf {
    let d = root().join("target/trace-cli-tests");
    std::fs::create_dir_all(&d).unwrap();
    d
}

// 257 work-groups, the last one partial: more than the MI210 has CUs, so SIMDs run several
// waves at once and wave slots are shared over time.
const N: u32 = 65636;
const BLOCK: u32 = 256;

/// vadd of `N` floats, `dispatches` times in a row on the same buffers.
fn vadd_spec(name: &str, dispatches: usize) -> PathBuf {
    let co = root().join("workloads/bin/gfx90a/vadd.co");
    let one = format!(r#"(kernel: "vadd", grid: ({N}, 1, 1), block: ({BLOCK}, 1, 1), args: [Buffer("a"), Buffer("b"), Buffer("c"), U32({N})]),"#);
    let text = format!(
        r#"Run(
  code_objects: {{"gfx90a": "{}"}},
  buffers: {{ "a": (bytes: {b}, init: Iota(F32)), "b": (bytes: {b}, init: Const(F32, 0.5)), "c": (bytes: {b}) }},
  dispatches: [ {} ],
  expect: [ (buffer: "c", equals: Reference("vadd")) ],
)"#,
        co.display(),
        one.repeat(dispatches),
        b = 4 * N,
    );
    let p = out_dir().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Waves of a 1-D dispatch, from the HIP launch rules: every work-group but maybe the last
/// is full, and a work-group has as many waves as its work-items need.
fn expected_waves(grid: u32, block: u32, wave: u32) -> u64 {
    let groups = grid.div_ceil(block);
    (0..groups).map(|g| (block.min(grid - g * block)).div_ceil(wave) as u64).sum()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn load(p: &Path) -> Value {
    let text = std::fs::read_to_string(p).expect("trace written");
    serde_json::from_str(&text).expect("the trace is valid JSON")
}

fn events(v: &Value) -> &Vec<Value> {
    v["traceEvents"].as_array().expect("traceEvents array")
}

fn spans<'a>(v: &'a Value, cat: &str) -> Vec<&'a Value> {
    events(v).iter().filter(|e| e["ph"] == "X" && e["cat"] == cat).collect()
}

fn lane(e: &Value) -> (u64, u64) {
    (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap())
}

fn u(e: &Value, key: &str) -> u64 {
    e["args"][key].as_u64().unwrap_or_else(|| panic!("args.{key} in {e}"))
}

/// Thread names by (pid, tid) and process names by pid.
fn names(v: &Value) -> (BTreeMap<(u64, u64), String>, BTreeMap<u64, String>) {
    let mut threads = BTreeMap::new();
    let mut procs = BTreeMap::new();
    for e in events(v).iter().filter(|e| e["ph"] == "M") {
        let name = e["args"]["name"].as_str().unwrap_or_default().to_string();
        match e["name"].as_str() {
            Some("thread_name") => {
                threads.insert(lane(e), name);
            }
            Some("process_name") => {
                procs.insert(e["pid"].as_u64().unwrap(), name);
            }
            _ => {}
        }
    }
    (threads, procs)
}

/// Spans of one lane never overlap (compared in cycles, exactly).
fn assert_disjoint_per_lane(list: &[&Value], start: &str) {
    let mut by_lane: BTreeMap<(u64, u64), Vec<(u64, u64)>> = BTreeMap::new();
    for e in list {
        by_lane.entry(lane(e)).or_default().push((u(e, start), u(e, "cycles")));
    }
    for (l, mut v) in by_lane {
        v.sort_unstable();
        for w in v.windows(2) {
            assert!(w[0].0 + w[0].1 <= w[1].0, "lane {l:?}: span at {} for {} overlaps the next at {}", w[0].0, w[0].1, w[1].0);
        }
    }
}

#[test]
fn trace_shows_every_wave_on_labelled_lanes_and_memory_levels() {
    let spec = vadd_spec("vadd2.ron", 2);
    let path = out_dir().join("vadd2.json");
    let _ = std::fs::remove_file(&path);
    let o = hipscope(&["run", s(&spec), "--gpu", "mi210", "--mode", "timing", "--trace", s(&path)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v = load(&path);
    let (threads, procs) = names(&v);
    let clock = v["otherData"]["clock_mhz"].as_f64().unwrap();
    assert_eq!(clock, 1700.0, "the MI210 config's clock");

    // Lanes are labelled: the GPU, shader engines, and CU / SIMD / slot and memory threads.
    assert_eq!(procs.get(&1).map(String::as_str), Some("GPU"));
    assert!(procs.values().filter(|n| n.starts_with("SE")).count() >= 2, "{procs:?}");
    let wave_lane = |n: &str| n.starts_with("CU") && n.contains(" / SIMD") && n.contains(" / wave slot ");
    assert!(threads.values().any(|n| wave_lane(n)), "{threads:?}");
    assert!(threads.values().any(|n| n.starts_with("CU") && n.contains(" / vector memory ")));

    // One dispatch span each, back to back on one timeline.
    let dispatches = spans(&v, "dispatch");
    assert_eq!(dispatches.len(), 2);
    let (d0, d1) = (dispatches[0], dispatches[1]);
    assert!(u(d1, "start_cycle") >= u(d0, "start_cycle") + u(d0, "cycles"), "second dispatch after the first");

    // Exactly one lifetime per wave of each dispatch, on a labelled wave lane, inside its
    // dispatch; a slot never holds two waves at once.
    let waves = spans(&v, "wave");
    let per_dispatch = expected_waves(N, BLOCK, 64);
    assert_eq!(per_dispatch, 256 * 4 + 2);
    for (i, d) in dispatches.iter().enumerate() {
        let mine: Vec<&&Value> = waves.iter().filter(|w| u(w, "dispatch") == i as u64).collect();
        assert_eq!(mine.len() as u64, per_dispatch, "dispatch {i}");
        let ids: BTreeSet<(String, u64)> = mine.iter().map(|w| (w["args"]["workgroup"].to_string(), u(w, "wave"))).collect();
        assert_eq!(ids.len() as u64, per_dispatch, "no wave twice");
        for w in &mine {
            assert!(w["name"].as_str().unwrap().starts_with("vadd wg("), "{w}");
            assert!(threads.get(&lane(w)).is_some_and(|n| wave_lane(n)), "unlabelled lane for {w}");
            assert!(u(w, "start_cycle") >= u(d, "start_cycle") && u(w, "start_cycle") + u(w, "cycles") <= u(d, "start_cycle") + u(d, "cycles"));
            // Microseconds from cycles at the GPU clock.
            let ts = w["ts"].as_f64().unwrap();
            assert!((ts - u(w, "start_cycle") as f64 / clock).abs() < 1e-9, "{w}");
        }
    }
    assert_disjoint_per_lane(&waves, "start_cycle");

    // Stalls nest inside a wave of their lane and do not overlap each other.
    let stalls = spans(&v, "stall");
    assert!(stalls.iter().any(|e| e["name"] == "s_waitcnt"), "vadd waits for its loads");
    assert_disjoint_per_lane(&stalls, "start_cycle");
    for st in &stalls {
        let (a, len) = (u(st, "start_cycle"), u(st, "cycles"));
        let inside = waves.iter().any(|w| lane(w) == lane(st) && u(w, "start_cycle") <= a && a + len <= u(w, "start_cycle") + u(w, "cycles"));
        assert!(inside, "stall outside its wave: {st}");
    }

    // Every memory access has a level; cold first reads come from DRAM; the loads, stores
    // and scalar loads of vadd all appear, on labelled memory lanes, one at a time per lane.
    let mem = spans(&v, "memory");
    let levels: BTreeSet<&str> = mem.iter().map(|e| e["args"]["level"].as_str().unwrap()).collect();
    let known: BTreeSet<&str> = ["L1", "scalar cache", "GL1", "L2", "MALL", "DRAM"].into();
    assert!(levels.is_subset(&known), "{levels:?}");
    assert!(levels.contains("DRAM") && levels.contains("L2"), "{levels:?}");
    for name in ["global_load_dword", "global_store_dword", "s_load_dword"] {
        assert!(mem.iter().any(|e| e["name"] == name), "no {name} span");
    }
    for e in &mem {
        assert!(threads.get(&lane(e)).is_some_and(|n| n.contains(" memory ")), "unlabelled memory lane for {e}");
        let lines: u64 = e["args"]["lines"].as_object().unwrap().values().filter_map(Value::as_u64).sum();
        assert!(lines >= 1, "{e}");
    }
    assert_disjoint_per_lane(&mem, "issue_cycle");
    // Two global loads per wave per dispatch (a[i], b[i]).
    let loads = mem.iter().filter(|e| e["name"] == "global_load_dword").count() as u64;
    assert_eq!(loads, 2 * 2 * per_dispatch);
}

#[test]
fn trace_limit_caps_the_events_and_says_so() {
    let spec = vadd_spec("vadd1.ron", 1);
    let path = out_dir().join("limited.json");
    let o = hipscope(&["run", s(&spec), "--gpu", "mi210", "--mode", "timing", "--trace", s(&path), "--trace-limit", "100"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains("--trace-limit 100"), "{}", stderr(&o));
    let v = load(&path);
    let timeline = events(&v).iter().filter(|e| e["ph"] == "X").count();
    assert_eq!(timeline, 100);
    assert_eq!(v["otherData"]["events"], 100);
    assert!(v["otherData"]["dropped_events"].as_u64().unwrap() > 0);
}

#[test]
fn trace_and_watchdog_flags_are_checked() {
    let spec = vadd_spec("vadd1-flags.ron", 1);
    let path = out_dir().join("never.json");
    for args in [
        vec!["--trace", s(&path)],
        vec!["--watchdog-cycles", "5"],
        vec!["--mode", "timing", "--trace-limit", "5"],
        vec!["--mode", "timing", "--trace", s(&path), "--trace-limit", "0"],
        vec!["--mode", "timing", "--trace", "no-such-dir/t.json"],
    ] {
        let mut all = vec!["run", s(&spec), "--gpu", "mi210"];
        all.extend(args.iter());
        let o = hipscope(&all);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o).lines().count(), 1, "{args:?}: one line: {}", stderr(&o));
    }
    let o = hipscope(&["run", s(&spec), "--gpu", "mi210", "--mode", "timing", "--watchdog-cycles", "0"]);
    assert_eq!(code(&o), 0, "0 turns the watchdog off: {}", stderr(&o));
    let help = String::from_utf8_lossy(&hipscope(&["run", "--help"]).stdout).into_owned();
    for flag in ["--trace <FILE.json>", "--trace-limit <N>", "--watchdog-cycles <N>"] {
        assert!(help.contains(flag), "{flag} in --help");
    }
}

/// vadd's waves all wait for their loads longer than 300 cycles at some point: a 300-cycle
/// watchdog stops the run there, naming every wave's wait; the trace up to then is kept.
#[test]
fn watchdog_stops_a_run_without_progress_listing_every_wave() {
    let spec = vadd_spec("vadd1-watchdog.ron", 1);
    let path = out_dir().join("watchdog.json");
    let o = hipscope(&["run", s(&spec), "--gpu", "mi210", "--mode", "timing", "--watchdog-cycles", "300", "--trace", s(&path)]);
    let err = stderr(&o);
    assert_eq!(code(&o), 3, "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert!(lines[0].contains("kernel fault in `vadd`, workgroup ("), "{err}");
    assert!(lines[0].contains(", pc 0x"), "{err}");
    assert!(lines[0].contains("no progress for 300 cycles"), "{err}");
    let waves = expected_waves(N, BLOCK, 64);
    assert!(lines[0].contains(&format!("{waves} live waves")), "{err}");
    // One line per wave, capped at 32, then the count of the rest.
    assert_eq!(lines.len(), 1 + 32 + 1, "{err}");
    assert_eq!(lines[33], format!("  … {} more", waves - 32));
    for l in &lines[1..33] {
        let rest = l.strip_prefix("  workgroup (").unwrap_or_else(|| panic!("wave line: {l}"));
        assert!(rest.contains(") wave ") && rest.contains(", pc 0x") && rest.contains(": CU") && rest.contains(" SIMD"), "{l}");
        assert!(l.contains("`s_waitcnt") && l.contains("outstanding, at most 0"), "says which counter and how many: {l}");
    }
    let v = load(&path);
    assert!(!spans(&v, "memory").is_empty(), "the trace up to the fault is written");
}

/// On an MI210 cut down to 2 CUs, 16 of vadd's 257 work-groups fit at once (8 waves per SIMD,
/// 4 SIMDs, 4-wave work-groups: 8 per CU); the watchdog report counts the others as not
/// placed yet.
#[test]
fn watchdog_counts_work_groups_not_placed_yet() {
    let cfg = std::fs::read_to_string(root().join("configs/mi210.ron")).unwrap();
    let small = cfg.replace("compute_units: 104,", "compute_units: 2,").replace("multi_processor_count: 104,", "multi_processor_count: 2,");
    assert_ne!(small, cfg, "the MI210 config names its CU count");
    let gpu = out_dir().join("mi210-2cu.ron");
    std::fs::write(&gpu, small).unwrap();
    let spec = vadd_spec("vadd1-small.ron", 1);
    let o = hipscope(&["run", s(&spec), "--gpu", s(&gpu), "--mode", "timing", "--watchdog-cycles", "300"]);
    let err = stderr(&o);
    assert_eq!(code(&o), 3, "{err}");
    let groups = N.div_ceil(BLOCK);
    assert!(err.lines().next().unwrap_or_default().contains(&format!("64 live waves, {} work-groups not placed yet", groups - 16)), "{err}");
}
