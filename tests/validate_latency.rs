//! Pointer-chase latency plateaus and steps against the real MI210, MI300X and RX 6900 XT
//! curves in `../shared/device-data` (prints `SKIPPED` without it); see
//! `sim/src/validate/latency.rs` for the method. Known misses are listed with reasons; the test
//! fails on any other miss and on a listed one that passes.

use hipscope_sim::validate::latency;
use std::path::Path;

/// (gpu, case, start of the metric, reason).
const KNOWN_MISSES: &[(&str, &str, &str, &str)] = &[
    ("mi210", "L2→DRAM step", "cycles at 1.25", "the real MI210 curve leaves the L2 plateau gradually from 4 MiB and is at DRAM latency by 12 MiB; the simulated 16-way LRU L2 still hits in some sets at 1.25 × the step (387 of 409 cycles)"),
    ("rx6900xt", "GL1→L2 step", "cycles at 0.8", "the real curve keeps GL1-like latency up to ~150 KiB (L0 and GL1 together, 16 + 128 KiB, as if exclusive); the simulated GL1 holds 128 KiB including the L0's lines"),
];

#[test]
fn latency_plateaus_and_steps_against_real_curves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data = root.join("../shared/device-data");
    if !data.is_dir() {
        println!("SKIPPED: {} not found (device measurements live outside the repository)", data.display());
        return;
    }
    let workloads = root.join("workloads");
    let mut unexpected = Vec::new();
    for (gpu, ..) in latency::GPUS {
        let rows = latency::compare(&workloads, &data, gpu).unwrap_or_else(|e| panic!("{gpu}: {e}"));
        for r in rows {
            let known = KNOWN_MISSES.iter().find(|k| k.0 == r.gpu && k.1 == r.case && r.metric.starts_with(k.2));
            println!("{:<9} {:<14} {:<40} measured {:>8.1} simulated {:>8.1} {:>7.1} %  {}", r.gpu, r.case, r.metric, r.measured, r.simulated, r.error_percent(), if r.ok() { "ok" } else { "MISS" });
            match (r.ok(), known.is_some()) {
                (false, false) => unexpected.push(format!("{} {} {}: measured {:.1} simulated {:.1}", r.gpu, r.case, r.metric, r.measured, r.simulated)),
                (true, true) => unexpected.push(format!("{} {} now passes: remove it from KNOWN_MISSES", r.gpu, r.case)),
                _ => {}
            }
        }
    }
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
}
