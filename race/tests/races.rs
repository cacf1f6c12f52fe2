//! Dynamic race detection on compiled kernels: the verdicts the kernels' sources give.
//!
//! `workloads/src/mp.hip` passes one message per lane from work-group 0 to work-group 1 at
//! three scopes and three orderings. By the HIP memory model (HRF-indirect): release/acquire
//! and fence-based passing at agent or system scope is race-free; at work-group scope the
//! scope does not include the other work-group, so the flag accesses race (a heterogeneous
//! race) and the data accesses are unordered; the relaxed form orders nothing, so the data
//! accesses race. The consumer spins long enough to see every flag, so it never reads the
//! data unsynchronised after a timeout.

use hipscope_isa::codeobj;
use hipscope_race::detector::{describe, Detector, Rule};
use hipscope_race::runs::{story_focus, KernelGrade};
use hipscope_race::story::{Happened, Story};
use hipscope_sim::kernel::LoadedKernel;
use hipscope_sim::launch::Hooks;
use hipscope_sim::observe::{Fan, Observer};
use hipscope_sim::{gpus, Device, EngineOptions, Geometry, MemoryKind};
use std::path::PathBuf;

fn bin_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../workloads/bin")
}

/// Run `kernel` of mp.co on `config` (timing mode on `gpu` if given) with the detector.
/// In timing mode a work-group-scope flag can stay stale in the consumer's cache for good (the
/// race showing on the hardware), so the consumer spins a bounded number of times and may give
/// up (-1) in a racy kernel.
fn run_mp(config: &str, kernel: &str, gpu: Option<&str>, seed: u64) -> Detector {
    let mut det = Detector::new();
    run_mp_watched(config, kernel, gpu, seed, &mut det);
    det
}

/// [`run_mp`] with any observer watching; the kernel it ran.
fn run_mp_watched(config: &str, kernel: &str, gpu: Option<&str>, seed: u64, observer: &mut dyn Observer) -> LoadedKernel {
    let spins: i32 = if gpu.is_some() { 2_000 } else { 1_000_000 };
    let path = bin_dir().join(config).join("mp.co");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let co = codeobj::load(&bytes, None).unwrap();
    let mut dev = Device::new(co.target.processor);
    if let Some(g) = gpu {
        dev.enable_timing(&gpus::builtin(g).unwrap()).unwrap();
    }
    let k = dev.load_kernel(&co, kernel).unwrap();
    let b = if k.wave64 { 128u32 } else { 64 };
    let data = dev.mem.alloc("data", 4 * b as usize, MemoryKind::Device);
    let flag = dev.mem.alloc("flag", 4 * b as usize, MemoryKind::Device);
    let out = dev.mem.alloc("out", 4 * b as usize, MemoryKind::Device);
    let args = vec![data.to_le_bytes().to_vec(), flag.to_le_bytes().to_vec(), out.to_le_bytes().to_vec(), spins.to_le_bytes().to_vec()];
    let geo = Geometry { grid: [2 * b, 1, 1], block: [b, 1, 1], dynamic_lds: 0 };
    let opts = EngineOptions { seed, ..EngineOptions::default() };
    dev.launch_hooked(&k, geo, &args, &opts, Hooks { observer: Some(observer), ..Hooks::default() }).unwrap_or_else(|e| panic!("{config} {kernel}: {e}"));
    dev.synchronize();
    let o = &dev.mem.find("out").unwrap().data;
    for t in 0..b as usize {
        let v = i32::from_le_bytes(o[4 * t..4 * t + 4].try_into().unwrap());
        let gave_up_in_timing = v == -1 && gpu.is_some();
        assert!(v == t as i32 + 1 || v == 0 || gave_up_in_timing, "{config} {kernel}: out[{t}] = {v} (the consumer gave up or read garbage)");
    }
    k
}

const CONFIGS: [&str; 5] = ["gfx90a", "gfx942", "gfx1100-w32-wgp", "gfx1100-w32-cu", "gfx1100-w64-wgp"];

/// (kernel, races by the memory model)
const KERNELS: [(&str, bool); 9] = [
    ("mp_acqrel_workgroup", true),
    ("mp_acqrel_agent", false),
    ("mp_acqrel_system", false),
    ("mp_fence_workgroup", true),
    ("mp_fence_agent", false),
    ("mp_fence_system", false),
    ("mp_relaxed_workgroup", true),
    ("mp_relaxed_agent", true),
    ("mp_relaxed_system", true),
];

#[test]
fn message_passing_verdicts_match_the_memory_model() {
    let mut table = format!("{:22}", "kernel \\ config");
    for c in CONFIGS {
        table.push_str(&format!(" {c:>16}"));
    }
    table.push('\n');
    let mut wrong = Vec::new();
    for (kernel, racy) in KERNELS {
        table.push_str(&format!("{kernel:22}"));
        for config in CONFIGS {
            let mut found = Vec::new();
            for seed in 0..3 {
                found.extend(run_mp(config, kernel, None, seed).races().iter().cloned());
            }
            let verdict = !found.is_empty();
            let rules: std::collections::BTreeSet<Rule> = found.iter().map(|r| r.rule).collect();
            table.push_str(&format!(" {:>16}", if verdict { format!("race {}", rules.len()) } else { "race-free".to_string() }));
            if verdict != racy {
                wrong.push(format!("{kernel} on {config}: expected {}, got:\n{}", if racy { "a race" } else { "race-free" }, describe(&found)));
            }
        }
        table.push('\n');
    }
    println!("{table}");
    for w in &wrong {
        println!("WRONG {w}");
    }
    assert!(wrong.is_empty(), "{} wrong verdict(s), see above", wrong.len());
}

#[test]
fn a_workgroup_scope_release_explains_why_it_did_not_synchronise() {
    let det = run_mp("gfx942", "mp_acqrel_workgroup", None, 0);
    let text = describe(det.races());
    println!("{text}");
    assert!(det.races().iter().any(|r| r.rule == Rule::ScopeRace), "the flag's work-group-scope atomics race across work-groups:\n{text}");
    assert!(det.races().iter().any(|r| r.rule == Rule::DataRace && r.first.write != r.second.write), "the data store and load race:\n{text}");
}

#[test]
fn timing_mode_gives_the_same_verdicts() {
    for (kernel, racy) in [("mp_acqrel_agent", false), ("mp_acqrel_workgroup", true), ("mp_relaxed_agent", true)] {
        let det = run_mp("gfx942", kernel, Some("mi300a"), 1);
        assert_eq!(!det.races().is_empty(), racy, "{kernel} in timing mode:\n{}", describe(det.races()));
    }
}

/// The detector and the story watching one timing run see what each sees alone (each alone is
/// the reference): the same races and ambiguities, the same story events.
#[test]
fn the_detector_and_the_story_watch_one_run_together() {
    let (config, kernel, gpu, seed) = ("gfx942", "mp_relaxed_agent", Some("mi300a"), 1);
    let mut alone = Detector::new();
    let k = run_mp_watched(config, kernel, gpu, seed, &mut alone);
    assert!(!alone.races().is_empty(), "{kernel} races (the memory model says so)");
    let mut grade = KernelGrade::new(&k, "mi300a");
    grade.add_launch(&alone, &k, &Default::default(), seed);
    grade.finish();
    let (_, focus) = story_focus(&grade).expect("a race to tell");
    let mut story_alone = Story::new(focus.clone());
    run_mp_watched(config, kernel, gpu, seed, &mut story_alone);
    // Both kinds of event are compared below: lane accesses and the timing model's side.
    assert!(story_alone.events.iter().any(|e| matches!(e.what, Happened::Touch { .. })), "the racing granule is touched in the run");
    assert!(story_alone.events.iter().any(|e| matches!(e.what, Happened::Memory { .. })), "the racing waves' memory instructions complete");

    let (mut det, mut story) = (Detector::new(), Story::new(focus));
    let mut parts: [&mut dyn Observer; 2] = [&mut det, &mut story];
    let mut fan = Fan::new(&mut parts);
    run_mp_watched(config, kernel, gpu, seed, fan.observer().expect("two parts"));
    assert_eq!(format!("{:?}", det.races()), format!("{:?}", alone.races()), "the detector's races");
    assert_eq!(det.ambiguities(), alone.ambiguities(), "the detector's ambiguities");
    assert_eq!(story.events, story_alone.events, "the story's events");
    assert_eq!(story.layout, story_alone.layout, "the GPU the story names");
}
