//! Back-to-back LDS reads go at the LDS's documented rate: `lds.bandwidth_bytes_per_cycle` of
//! the config (on CDNA 128 B a clock per CU: 32 banks each delivering one dword a clock, the
//! ISA guides' "Local Data Share" chapter; the MI210 roofline's measured LDS peak of
//! 17.7–18.3 TB/s is 100–104 B a clock per CU, ≤ 128 and out of reach of 64).
//!
//! `workloads/src/lds_reads.hip`: each wave issues eight independent conflict-free `ds_read_bN`
//! back to back per step. One work-group of 1024 work-items (16 wave64 waves, or 32 wave32)
//! runs on one CU, enough waves to keep its LDS busy; the rate is the extra bytes read over the
//! extra cycles between two step counts, so launch and start-up cancel. It must not exceed the
//! documented rate (an LDS cannot move more than its banks deliver) by more than the 1 % the
//! difference of two whole runs can be off by (their starts and drains need not be the same
//! to the cycle, out of 8 000–33 000 extra cycles), and must reach 90 % of it (the waves ask
//! for far more). A lone wave must not exceed it either.

use hipscope_sim::gpus;
use hipscope_sim::spec::{self, RunOptions};
use std::path::Path;

const READS_PER_STEP: u64 = 8;

fn cycles(gpu: &str, kernel: &str, block: u32, reps: u32) -> u64 {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads");
    let text = format!(
        r#"Run(code_objects: {{"gfx90a": "bin/gfx90a/lds_reads.co", "gfx942": "bin/gfx942/lds_reads.co", "gfx1100-w32-cu": "bin/gfx1100-w32-cu/lds_reads.co"}},
  buffers: {{ "out": (bytes: {bytes}) }},
  dispatches: [ (kernel: "{kernel}", grid: ({block}, 1, 1), block: ({block}, 1, 1), args: [Buffer("out"), U32({reps}), U32(0)]) ],
  expect: [],
)"#,
        bytes = block * 4
    );
    let path = dir.join("lds-rate-test.ron");
    let s = spec::parse(&text, &path).expect("spec");
    let opts = RunOptions { gpu: Some(gpu.into()), mode: hipscope_sim::Mode::Timing, ..RunOptions::default() };
    let r = spec::run(&s, &path, &opts).unwrap_or_else(|e| panic!("{gpu} {kernel}: {e}"));
    r.dispatches[0].cycles.expect("timing cycles")
}

/// Bytes per cycle of `block` work-items reading `bytes` each per read, from the difference
/// between 8 and 40 steps.
fn rate(gpu: &str, kernel: &str, bytes: u64, block: u32) -> f64 {
    let (few, many) = (8, 40);
    let extra = cycles(gpu, kernel, block, many) - cycles(gpu, kernel, block, few);
    (many - few) as f64 * READS_PER_STEP as f64 * block as f64 * bytes as f64 / extra as f64
}

fn check(gpu: &str) {
    let g = gpus::builtin(gpu).expect("built-in config");
    let documented = g.timing.as_ref().expect("timing").lds.bandwidth_bytes_per_cycle as f64;
    let wave = if gpu.starts_with("rx") { 32 } else { 64 };
    for (kernel, bytes) in [("lds_read_b32", 4), ("lds_read_b64", 8), ("lds_read_b128", 16)] {
        let full = rate(gpu, kernel, bytes, 1024);
        let lone = rate(gpu, kernel, bytes, wave);
        eprintln!("{gpu} {kernel}: {full:.1} B/cycle with a full CU, {lone:.1} with one wave (documented {documented})");
        assert!(full <= documented * 1.01, "{gpu} {kernel}: {full:.1} B/cycle, above the LDS's {documented}");
        assert!(full >= documented * 0.9, "{gpu} {kernel}: {full:.1} B/cycle, under 90 % of the LDS's {documented}");
        assert!(lone <= documented * 1.01, "{gpu} {kernel}: one wave reads {lone:.1} B/cycle, above the LDS's {documented}");
    }
}

#[test]
fn mi210_lds_reads_go_at_the_documented_rate() {
    check("mi210");
}

#[test]
fn mi300x_lds_reads_go_at_the_documented_rate() {
    check("mi300x");
}

#[test]
fn rx7900xtx_lds_reads_go_at_the_documented_rate() {
    check("rx7900xtx");
}
