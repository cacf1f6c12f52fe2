//! Stores cannot outrun memory: a 64 MiB fill on a whole GPU (`workloads/src/fill.hip`, one
//! 16-byte store per lane per step over a grid of a million work-items) takes at least the
//! time DRAM needs to take 64 MiB at the config's `dram.bandwidth_gb_per_s`, less what the
//! caches may legitimately still hold dirty when the kernel ends.
//!
//! What may stay dirty at the end (the slack):
//! * MI210 (one L2): the end-of-kernel release is at system scope, and on GFX90A a
//!   system-scope release writes the L2 back (`buffer_wbl2`: LLVM AMDGPUUsage, *Memory Model
//!   GFX90A*), so every byte reaches memory inside the kernel's time — no slack.
//! * MI300X (eight L2s in one agent): the end-of-kernel release writes every L2 back so the
//!   other XCDs see the data (`buffer_wbl2 sc1`: AMDGPUUsage, *Memory Model GFX942*) — no slack.
//!   Its MALL is memory-side: a write that reaches it is at memory (coherent for every agent,
//!   nothing to write back), and the model charges DRAM for it as it arrives.
//! * RX 7900 XTX (GFX11): the GFX10–GFX11 release sequences have no L2 write-back
//!   (AMDGPUUsage, *Memory Model GFX10-GFX11*), so up to the whole L2 may stay dirty — slack
//!   of `l2.size_bytes`.
//!
//! The bound is read from each config; no simulated figure is copied here.

use hipscope_sim::gpus;
use hipscope_sim::spec::{self, RunOptions};
use std::path::Path;

const BYTES: u64 = 64 << 20;

fn fill_cycles(gpu: &str) -> u64 {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads");
    let text = format!(
        r#"Run(code_objects: {{"gfx90a": "bin/gfx90a/fill.co", "gfx942": "bin/gfx942/fill.co", "gfx1100-w32-cu": "bin/gfx1100-w32-cu/fill.co"}},
  buffers: {{ "out": (bytes: {BYTES}) }},
  dispatches: [ (kernel: "fill_v4", grid: (1048576, 1, 1), block: (256, 1, 1), args: [Buffer("out"), U32({n}), U32(7)]) ],
  expect: [],
)"#,
        n = BYTES / 16
    );
    let path = dir.join("fill-writeback-test.ron");
    let s = spec::parse(&text, &path).expect("spec");
    let opts = RunOptions { gpu: Some(gpu.into()), mode: hipscope_sim::Mode::Timing, dump: vec!["out".into()], ..RunOptions::default() };
    let r = spec::run(&s, &path, &opts).unwrap_or_else(|e| panic!("{gpu}: {e}"));
    let out = &r.dumps[0].1;
    assert_eq!(out.len() as u64, BYTES);
    assert!(out.chunks(4).all(|w| w == 7u32.to_le_bytes()), "{gpu}: the fill wrote the wrong bytes");
    r.dispatches[0].cycles.expect("timing cycles")
}

fn check(gpu: &str, slack_bytes: impl Fn(&gpus::timing::Timing) -> u64) {
    let g = gpus::builtin(gpu).expect("built-in config");
    let t = g.timing.as_ref().expect("timing parameters");
    let bytes_per_cycle = t.dram.bandwidth_gb_per_s as f64 * 1000.0 / t.clock_mhz as f64;
    let floor = (BYTES - slack_bytes(t)) as f64 / bytes_per_cycle;
    let cycles = fill_cycles(gpu);
    eprintln!("{gpu}: 64 MiB fill {cycles} cycles, DRAM floor {floor:.0} ({:.2} of it)", cycles as f64 / floor);
    assert!(cycles as f64 >= floor, "{gpu}: a 64 MiB fill took {cycles} cycles, under the {floor:.0} DRAM needs");
}

#[test]
fn mi210_fill_is_bounded_by_dram() {
    check("mi210", |_| 0);
}

#[test]
fn mi300x_fill_is_bounded_by_dram() {
    check("mi300x", |_| 0);
}

#[test]
fn rx7900xtx_fill_is_bounded_by_dram_less_the_l2() {
    check("rx7900xtx", |t| t.l2.size_bytes);
}
