//! Stress and placement in the hardware layer (`--stress`, `--placement`). What must hold comes
//! from the memory model and from where the run says it put the waves, not from our counts:
//! - with the default stress, agent-scope release/acquire message passing never shows its
//!   weak outcome (the model forbids it; stress only changes timing), nor CoRR;
//! - a seed replays bit for bit with stress on;
//! - the stress waves run: each issues the pattern's two accesses per iteration, and the
//!   memory system serves them (watched through the observer, not inferred from outcomes);
//! - each placement puts the litmus threads' waves where asked, read from the dispatcher's
//!   own `wave_placed` events and its CU → XCD numbering.

use hipscope_grade::hardware::placement::Where;
use hipscope_grade::hardware::stress::{self, Stress};
use hipscope_grade::hardware::{self, Prepared, Runs, Setup};
use hipscope_grade::litmus::{self, Litmus};
use hipscope_grade::model::{self, Model};
use hipscope_sim::gpus::{self, GpuConfig, Mode};
use hipscope_sim::observe::{MemUnit, MemoryDone, Observer, WavePlaced};
use hipscope_sim::timing::placement::Placement;
use std::collections::BTreeMap;
use std::path::Path;

fn load(rel: &str) -> Litmus {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/litmus").join(rel);
    let source = litmus::read_source(&path).expect("readable");
    litmus::parse(&path, &source).expect("parses")
}

fn gpu(name: &str) -> GpuConfig {
    gpus::builtin(name).expect("built-in GPU")
}

/// (label, GPU, mode, placement).
const CONFIGS: [(&str, &str, Mode, Where); 5] = [
    ("mi210", "mi210", Mode::CU, Where::Spread),
    ("mi300x one XCD", "mi300x", Mode::CU, Where::SameXcd),
    ("mi300x over XCDs", "mi300x", Mode::CU, Where::Spread),
    ("rx7900xtx WGP", "rx7900xtx", Mode::WGP, Where::Spread),
    ("mi210 one CU", "mi210", Mode::CU, Where::SameCu),
];

fn stressed(placement: Where) -> Setup {
    Setup { placement: Some(placement), stress: Some(stress::DEFAULT), ..Setup::default() }
}

/// The model forbids the condition; with the default stress no run may show it.
fn never_with_stress(rel: &str, runs: u64) {
    let test = load(rel);
    assert!(!model::check(&test, Model::Hip).expect("graded").reachable(), "{rel}: the model forbids the condition");
    for (label, name, mode, placement) in CONFIGS {
        let r = hardware::run_with(&test, &gpu(name), mode, Runs { count: runs, seed: 1, one_xcd: false }, &stressed(placement)).expect("runs");
        println!("{rel} on {label} with the default stress: condition {}/{}", r.condition_observed, r.runs);
        assert_eq!(r.condition_observed, 0, "{rel} on {label} with stress: first seed {:?}", r.condition_first_seed);
        assert!(r.stress.is_some(), "the report names the stress");
    }
}

#[test]
fn stress_never_makes_agent_release_acquire_message_passing_weak() {
    never_with_stress("03_mp_release_acquire_device.litmus", 10_000);
}

#[test]
fn stress_never_breaks_read_read_coherence() {
    never_with_stress("16_corr_relaxed.litmus", 2_000);
}

#[test]
fn a_stressed_seed_replays_bit_for_bit() {
    let test = load("14_lb_relaxed.litmus");
    for (label, name, mode, placement) in CONFIGS {
        let g = gpu(name);
        let runs = Runs { count: 200, seed: 7, one_xcd: false };
        let a = hardware::run_with(&test, &g, mode, runs, &stressed(placement)).expect("runs");
        let b = hardware::run_with(&test, &g, mode, runs, &stressed(placement)).expect("runs");
        let key = |r: &hardware::HardwareReport| r.outcomes.iter().map(|o| (o.state.clone(), o.count, o.first_seed)).collect::<Vec<_>>();
        assert_eq!(key(&a), key(&b), "{label}: same seeds, same outcomes");
        // One seed alone, on a fresh device, gives what it gave in the batch.
        let mut p = Prepared::with(&test, &g, mode, &stressed(placement)).expect("prepared");
        let mut q = Prepared::with(&test, &g, mode, &stressed(placement)).expect("prepared");
        let _ = q.run_once(3).expect("runs");
        assert_eq!(p.run_once(9).expect("runs"), q.run_once(9).expect("runs"), "{label}: seed 9 after another seed");
    }
}

/// The vector accesses each wave issued, and the CU of each wave, by dispatch work-group.
#[derive(Default)]
struct Watch {
    accesses: BTreeMap<u32, u64>,
    /// (work-group, wave) → CU.
    cus: BTreeMap<(u32, u32), usize>,
}

impl Observer for Watch {
    fn lane_accesses(&self) -> bool {
        false
    }
    fn wave_placed(&mut self, p: &WavePlaced) {
        self.cus.insert((p.wave.workgroup[0], p.wave.wave), p.cu);
    }
    fn memory_done(&mut self, m: &MemoryDone) {
        if m.unit == MemUnit::Vector && m.level.is_some() {
            *self.accesses.entry(m.wave.workgroup[0]).or_default() += 1;
        }
    }
}

#[test]
fn stress_waves_run_their_pattern_beside_the_test() {
    let test = load("14_lb_relaxed.litmus");
    for (pattern, iterations) in [("store-store", 5), ("load-store", 64), ("load-load", 17)] {
        let s: Stress = stress::parse(&format!("pattern={pattern},iterations={iterations},groups=3,lines=2")).expect("parses").expect("stress");
        let setup = Setup { placement: None, stress: Some(s), ..Setup::default() };
        let mut p = Prepared::with(&test, &gpu("mi210"), Mode::CU, &setup).expect("prepared");
        let mut w = Watch::default();
        p.watch(11, &mut w).expect("runs");
        assert_eq!(p.stress_groups().len(), 3);
        for g in p.stress_groups() {
            assert!(!p.thread_groups().contains(g), "a stress group runs no litmus thread");
            // Two accesses per iteration, each served by the memory system.
            assert_eq!(w.accesses.get(g).copied(), Some(2 * iterations), "{pattern}: stress group {g}");
        }
    }
}

/// The XCD of each CU, as the dispatcher numbers them.
fn xcd_of(g: &GpuConfig, cu: usize) -> usize {
    let t = g.timing.as_ref().expect("timing");
    Placement::new(t, g.compute_units, 1).xcd_of(cu)
}

/// Each litmus thread's CU in one run placed as `want`.
fn thread_cus(test: &Litmus, g: &GpuConfig, mode: Mode, want: Where, stress: Option<Stress>) -> Vec<usize> {
    let mut p = Prepared::with(test, g, mode, &Setup { placement: Some(want), stress, ..Setup::default() }).expect("prepared");
    let mut w = Watch::default();
    p.watch(5, &mut w).expect("runs");
    test.threads.iter().zip(p.thread_groups()).map(|(t, grp)| *w.cus.get(&(*grp, t.placement.wave)).expect("the thread's wave was placed")).collect()
}

#[test]
fn placements_put_the_threads_where_asked() {
    // Three work-groups (IRIW has four threads, one per work-group; MP two).
    for rel in ["01_mp_relaxed_agent.litmus", "shapes/iriw_relaxed.litmus"] {
        let test = load(rel);
        for (name, mode) in [("mi210", Mode::CU), ("mi300x", Mode::CU), ("rx7900xtx", Mode::WGP), ("rx7900xtx", Mode::CU), ("vega64", Mode::CU)] {
            let g = gpu(name);
            let wgp = mode == Mode::WGP;
            for stress in [None, Some(stress::DEFAULT)] {
                let setup = Setup { placement: Some(Where::SameCu), stress, ..Setup::default() };
                if let Err(e) = Prepared::with(&test, &g, mode, &setup) {
                    // Refused only when the test's work-groups cannot be resident on one CU
                    // together; two one-wave work-groups always can.
                    assert!(e.to_string().contains("do not fit") && test.threads.len() > 2, "{rel} same-cu on {name}: {e}");
                    println!("{rel} same-cu on {name}: {e}");
                    continue;
                }
                let cus = thread_cus(&test, &g, mode, Where::SameCu, stress);
                // In WGP mode a work-group runs on a WGP (two CUs): the same WGP is asked.
                let unit = |cu: usize| if wgp { cu / 2 } else { cu };
                assert!(cus.windows(2).all(|w| unit(w[0]) == unit(w[1])), "{rel} same-cu on {name}: {cus:?}");
            }
            for stress in [None, Some(stress::DEFAULT)] {
                let unit = |cu: usize| if wgp { cu / 2 } else { cu };
                let cus = thread_cus(&test, &g, mode, Where::SameXcd, stress);
                let mut units: Vec<usize> = cus.iter().map(|&c| unit(c)).collect();
                units.dedup();
                assert_eq!(units.len(), cus.len(), "{rel} same-xcd on {name}: different CUs {cus:?}");
                assert!(cus.windows(2).all(|w| xcd_of(&g, w[0]) == xcd_of(&g, w[1])), "{rel} same-xcd on {name}: {cus:?}");
            }
            let other = Prepared::with(&test, &g, mode, &Setup { placement: Some(Where::OtherXcd), stress: None, ..Setup::default() });
            if g.timing.as_ref().is_some_and(|t| t.topology.xcds > 1) {
                let cus = thread_cus(&test, &g, mode, Where::OtherXcd, Some(stress::DEFAULT));
                let mut xcds: Vec<usize> = cus.iter().map(|&c| xcd_of(&g, c)).collect();
                xcds.sort();
                xcds.dedup();
                assert_eq!(xcds.len(), cus.len(), "{rel} other-xcd on {name}: {cus:?}");
            } else {
                let e = other.err().map(|e| e.to_string()).unwrap_or_default();
                assert!(e.contains("other-xcd") && e.contains("one XCD"), "{rel} other-xcd refused on {name}: {e}");
            }
        }
    }
}
