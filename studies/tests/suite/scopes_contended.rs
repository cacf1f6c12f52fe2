//! The scope suite's contended atomicAdd rows (`workloads/scopes/contended.hip`, built with the
//! atomic optimizer off) grow with the lanes contending for one word as the GPU config's atomic
//! unit says: each lane's atomic is one pass of the unit where the memory lives, at
//! `l2.atomic_ops_per_cycle` passes per cycle, and the lanes on one word take one pass each.
//! Every expected figure below is derived from the config's rate and the dispatch geometry
//! (lanes, words, write-request size), not from a run of ours.

use hipscope_sim::gpus::{self, GpuConfig, Mode};
use hipscope_studies::scopes::{run_target_filtered, Filter, Row, Target};
use std::path::PathBuf;

fn workloads() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../workloads")
}

/// The contended rows of `g` (one target, its default mode) at agent and system scope, with
/// the config's pass time, write-request bytes and whether atomics go past the L2s.
fn rows(g: GpuConfig) -> (Vec<Row>, f64, u64, bool) {
    let t = g.timing.clone().unwrap();
    // Cycles one pass of the atomic unit takes.
    let slot = 1.0 / t.l2.atomic_ops_per_cycle as f64;
    let request = t.vector_l1.write_request_bytes as u64;
    // Several L2s in one agent: atomics go past them to the memory channel's unit.
    let past_l2 = t.topology.xcds > 1;
    let mode = if g.processor.family().is_rdna() { g.mode } else { Mode::CU };
    let target = Target { gpu: g, mode, tgsplit: false };
    let filter =
        Filter { ops: vec!["contended_add_ret".into(), "contended_add_noret".into()], scopes: vec!["agent".into(), "system".into()], ..Filter::default() };
    let rows = run_target_filtered(&target, &workloads(), &(), &filter).unwrap();
    (rows, slot, request, past_l2)
}

fn find<'a>(rows: &'a [Row], op: &str, scope: &str, contention: &str, words: u64) -> &'a Row {
    rows.iter()
        .find(|r| r.op == op && r.scope.name() == scope && r.contention == contention && r.contended.as_ref().is_some_and(|c| c.addresses == words))
        .unwrap_or_else(|| panic!("no row {op} {scope} {contention} {words} words"))
}

fn span(r: &Row) -> f64 {
    r.contended.as_ref().map_or(0.0, |c| c.span_cycles as f64)
}

/// Checks one GPU; what fails goes to `failures`.
fn check(g: GpuConfig, failures: &mut Vec<String>) {
    let gpu = format!("{} at {} passes per cycle", g.name, g.timing.as_ref().map_or(0, |t| t.l2.atomic_ops_per_cycle));
    let (rows, slot, request, past_l2) = rows(g);
    assert_eq!(rows.len(), 2 * 2 * 3 * 3, "{gpu}: 2 ops x 2 scopes x 3 contentions x 3 word counts");
    for op in ["contended_add_ret", "contended_add_noret"] {
        for scope in ["agent", "system"] {
            let row = |c: &str, w: u64| find(&rows, op, scope, c, w);
            let what = format!("{gpu} {op} {scope}");
            // A wave's lanes on one word: at least one pass each, and the wave waits for the
            // last (a no-return atomic too: s_waitcnt vmcnt / vscnt covers it).
            let wave = row("one_wave", 1);
            let lanes = wave.contended.as_ref().map_or(0, |c| c.lanes) as f64;
            let cost = wave.cycles_median.unwrap_or(0) as f64;
            println!("{what}: one wave on one word {cost} cycles per wave, span {}", span(wave));
            if cost < lanes * slot {
                failures.push(format!("{what}: {lanes} lanes on one word took {cost} cycles, fewer than {lanes} passes of {slot}"));
            }
            // One wave over distinct words: its lanes' words fill `requests` write requests of
            // one pass each, so one word costs at most (lanes - 1) passes more, and where the
            // atomics are performed in the L2 at least (lanes - requests) passes more. (Past
            // the L2s each of the spread case's requests also reads its line from memory before
            // its pass, so only the upper bound is the atomic unit's alone there.)
            let spread = row("one_wave", 1 << 10);
            let requests = (lanes as u64 * 4).div_ceil(request) as f64;
            let grown = span(wave) - span(spread);
            let (lo, hi) = (if past_l2 { 1.0 } else { (lanes - requests) * slot - 2.0 }, (lanes - 1.0) * slot + 2.0);
            println!("{what}: one wave, one word vs 1 Ki words: {grown} cycles more (expected {lo}..{hi})");
            if grown < lo || grown > hi {
                failures.push(format!("{what}: one word vs 1 Ki words from one wave: {grown} cycles more, expected {lo}..{hi} (passes of {slot})"));
            }
            // A work-group's or every CU's lanes on one word: they serialise on one unit, so the
            // span is at least a pass per lane, and the rate is the unit's.
            let (wg, all) = (row("one_workgroup", 1), row("all_cus", 1));
            let (lanes_wg, lanes_all) = (wg.contended.as_ref().map_or(0, |c| c.lanes) as f64, all.contended.as_ref().map_or(0, |c| c.lanes) as f64);
            for (r, l) in [(wg, lanes_wg), (all, lanes_all)] {
                if span(r) < l * slot {
                    failures.push(format!("{what} {}: {l} lanes on one word in {} cycles, fewer than {l} passes", r.contention, span(r)));
                }
            }
            // One wave -> one work-group -> all CUs on one word: each step adds a pass per added
            // lane (within 5 %, plus one wave's passes: a wave may reach the unit after it
            // went idle).
            for (a, b, la, lb) in [(wave, wg, lanes, lanes_wg), (wg, all, lanes_wg, lanes_all)] {
                let expected = (lb - la) * slot;
                let grown = span(b) - span(a);
                let tolerance = 0.05 * expected + lanes * slot;
                println!(
                    "{what}: one word, {} {} -> {} {}: {grown} cycles more, expected {expected} ± {tolerance}",
                    a.contention,
                    span(a),
                    b.contention,
                    span(b)
                );
                if (grown - expected).abs() > tolerance {
                    failures.push(format!("{what}: one word, {} -> {}: {grown} cycles more, expected {expected} ± {tolerance}", a.contention, b.contention));
                }
            }
            let rate = all.contended.as_ref().map_or(0.0, |c| c.atomics_per_cycle);
            if rate > 1.0 / slot || rate < 0.9 / slot {
                failures.push(format!("{what}: all CUs on one word at {rate} atomics per cycle, the unit's rate is {}", 1.0 / slot));
            }
            // Fewer lanes per word, less serialisation: 1 Ki and 1 Mi words from all CUs take at
            // least their lanes per word in passes, and 1 Mi words (one lane each) at most half
            // the one-word span.
            for w in [1u64 << 10, 1 << 20] {
                let r = row("all_cus", w);
                let per_word = r.contended.as_ref().map_or(0, |c| c.lanes_per_address) as f64;
                if span(r) < per_word * slot {
                    failures.push(format!("{what}: all CUs over {w} words: {} cycles, fewer than {per_word} passes", span(r)));
                }
            }
            let wide = row("all_cus", 1 << 20);
            if 2.0 * span(wide) > span(all) {
                failures.push(format!("{what}: all CUs over 1 Mi words {} cycles, not under half of one word's {}", span(wide), span(all)));
            }
        }
    }
}

/// MI210 (one L2: atomics at the L2 channel's unit), MI300X (eight L2s: past them, at the
/// memory channel's unit) and RX 7900 XTX (wave32, RDNA3's 20-bit shader clock), and MI210
/// with a unit twice as fast: the rows follow the configured rate, not a constant.
#[test]
fn contended_rows_grow_with_the_lanes_per_word_at_the_configured_rate() {
    let mut failures = Vec::new();
    for gpu in ["mi210", "mi300x", "rx7900xtx"] {
        check(gpus::builtin(gpu).unwrap(), &mut failures);
    }
    let mut fast = gpus::builtin("mi210").unwrap();
    if let Some(t) = fast.timing.as_mut() {
        t.l2.atomic_ops_per_cycle = 2;
    }
    check(fast, &mut failures);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
