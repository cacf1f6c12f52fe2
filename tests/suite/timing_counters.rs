//! Counter identities of the timing model that follow from the counters' definitions alone.

use hipscope_sim::counters::{CounterName, Counters};
use hipscope_sim::spec::{self, RunOptions};
use std::path::Path;

fn counters(text: &str, gpu: &str) -> Counters {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads").join("timing-counters-test.ron");
    let s = spec::parse(text, &path).expect("spec");
    let opts = RunOptions { gpu: Some(gpu.into()), code_object: None, seed: 0, mode: hipscope_sim::Mode::Timing, ..RunOptions::default() };
    let r = spec::run(&s, &path, &opts).expect("run");
    assert!(r.passed());
    r.dispatches[0].counters.clone().expect("timing counters")
}

fn get(c: &Counters, name: &str) -> u64 {
    c.get(CounterName::parse(name).unwrap_or_else(|| panic!("no {name}")).counter)
}

/// `SQ_BUSY_CYCLES` is per shader engine (first wave's launch to last wave's end) summed over
/// engines, `SQ_WAVE_CYCLES` per wave summed over waves: with one single-wave work-group on
/// each of four engines (work-groups go round-robin over the MI210's 8 engines), they agree;
/// with the four waves in one work-group on one engine, busy is less than their sum.
#[test]
fn busy_cycles_are_per_shader_engine() {
    let spec = |block: u32| {
        format!(
            r#"Run(code_objects: {{"gfx90a": "bin/gfx90a/vadd.co"}},
  buffers: {{ "a": (bytes: 1024, init: Iota(F32)), "b": (bytes: 1024, init: Iota(F32)), "c": (bytes: 1024) }},
  dispatches: [ (kernel: "vadd", grid: (256, 1, 1), block: ({block}, 1, 1), args: [Buffer("a"), Buffer("b"), Buffer("c"), U32(256)]) ],
  expect: [],
)"#
        )
    };
    let spread = counters(&spec(64), "mi210");
    assert_eq!(get(&spread, "SQ_WAVES"), 4);
    assert_eq!(get(&spread, "SQ_BUSY_CYCLES"), get(&spread, "SQ_WAVE_CYCLES"));
    let together = counters(&spec(256), "mi210");
    assert_eq!(get(&together, "SQ_WAVES"), 4);
    assert!(get(&together, "SQ_BUSY_CYCLES") < get(&together, "SQ_WAVE_CYCLES"), "{together:?}");
}

/// RDNA WGP mode places a work-group on a workgroup processor: both CUs' SIMDs. One group of
/// eight wave32 waves of a VALU-bound kernel (mixbench-ro, 64 multiply-adds per element) keeps
/// four waves on each of a CU's two SIMDs in CU mode and two on each of four SIMDs in WGP mode;
/// a wave32 VALU instruction issues in one cycle, so the busy span shrinks by about two waves'
/// VALU instructions per SIMD.
#[test]
fn wgp_mode_spreads_a_work_group_over_both_cus() {
    let run = |mode: &str| {
        let text = format!(
            r#"Run(code_objects: {{"k": "bin/gfx1030-w32-{mode}/mixbench_ro.co"}},
  buffers: {{ "a": (bytes: 8192) }},
  dispatches: [ (kernel: "mixbench_ro_f32_64", grid: (256, 1, 1), block: (256, 1, 1), args: [F32(0.5), Buffer("a")]) ],
  expect: [],
)"#
        );
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads").join("timing-wgp-test.ron");
        let s = spec::parse(&text, &path).expect("spec");
        let opts =
            RunOptions { gpu: Some("rx6900xt".into()), code_object: Some("k".into()), seed: 0, mode: hipscope_sim::Mode::Timing, ..RunOptions::default() };
        let r = spec::run(&s, &path, &opts).expect("run");
        r.dispatches[0].counters.clone().expect("timing counters")
    };
    let (cu, wgp) = (run("cu"), run("wgp"));
    let valu_per_wave = get(&cu, "SQ_INSTS_VALU") / get(&cu, "SQ_WAVES");
    let saved = get(&cu, "SQ_BUSY_CYCLES") as f64 - get(&wgp, "SQ_BUSY_CYCLES") as f64;
    let expected = 2.0 * valu_per_wave as f64;
    assert!(
        (saved - expected).abs() <= 0.2 * expected,
        "CU {} WGP {} cycles: saved {saved}, expected about {expected}",
        get(&cu, "SQ_BUSY_CYCLES"),
        get(&wgp, "SQ_BUSY_CYCLES")
    );
}
