//! Counter identities of the timing model that follow from the counters' definitions alone.

use hipscope_sim::spec::{self, RunOptions};
use std::path::Path;

fn counters(text: &str, gpu: &str) -> Vec<(String, u64)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads").join("timing-counters-test.ron");
    let s = spec::parse(text, &path).expect("spec");
    let opts = RunOptions { gpu: Some(gpu.into()), code_object: None, seed: 0, timing: true, ..RunOptions::default() };
    let r = spec::run(&s, &path, &opts).expect("run");
    assert!(r.passed());
    r.dispatches[0].counters.clone().expect("timing counters")
}

fn get(c: &[(String, u64)], name: &str) -> u64 {
    c.iter().find(|(n, _)| n == name).map(|x| x.1).unwrap_or_else(|| panic!("no {name}"))
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
