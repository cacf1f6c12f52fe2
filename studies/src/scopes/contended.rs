//! Contended atomics: `workloads/scopes/contended.hip` (built with LLVM's atomic optimizer off,
//! so each lane's atomicAdd reaches the memory system) at each scope, over one word, 1 Ki
//! words and 1 Mi words, from one wave, one work-group and one work-group per CU. Lanes
//! `i, i + addresses, ...` update one word, so each word has `ceil(lanes / addresses)`
//! contenders; the atomic unit where the memory lives serialises them one pass each
//! (`l2.atomic_ops_per_cycle`), so the rows grow with the contenders per word.
//!
//! Each wave records the clock before its atomic and after its drain; a row gives the per-wave
//! cost (median, range) and the span from the earliest start to the latest end, the time all
//! the lanes' atomics took together, with the rate that makes (atomics per cycle).

use super::{sequence, Contention, Row, Scope, Target, SCOPES};
use hipscope_sim::spec::model::{Arg, Buffer, Dispatch};
use hipscope_sim::spec::{RunOptions, Session, Spec, SpecBuilder};
use serde::Serialize;
use std::path::Path;

/// Words the lanes update (each a power of two: the kernel takes `i & (addresses - 1)`).
pub const ADDRESSES: [u64; 3] = [1, 1 << 10, 1 << 20];

/// The contended operations, as rows name them, and what the source does.
pub const CONTENDED_OPS: [(&str, &str); 2] = [
    ("contended_add_ret", "__hip_atomic_fetch_add(&data[i % addresses], 1, __ATOMIC_RELAXED, scope), result used, atomic optimizer off"),
    ("contended_add_noret", "__hip_atomic_fetch_add(&data[i % addresses], 1, __ATOMIC_RELAXED, scope), result unused, atomic optimizer off"),
];

/// What a contended row adds to a [`Row`].
#[derive(Debug, Clone, Serialize)]
pub struct Contended {
    /// Words the lanes update.
    pub addresses: u64,
    /// Lanes (work-items) in the dispatch, one atomic each.
    pub lanes: u64,
    /// Most lanes on one word: `ceil(lanes / addresses)`.
    pub lanes_per_address: u64,
    /// Cycles from the first wave's start to the last wave's end (timer cost subtracted).
    pub span_cycles: u64,
    /// `lanes / span_cycles`.
    pub atomics_per_cycle: f64,
}

/// One contended case: the op's index in [`CONTENDED_OPS`] (`None`: the timer baseline).
#[derive(Debug, Clone, Copy)]
struct Case {
    op: Option<usize>,
    scope: Scope,
    addresses: u64,
    contention: Contention,
}

fn kernel(c: &Case) -> String {
    match c.op {
        Some(i) => format!("ct_{}__{}", CONTENDED_OPS[i].0.trim_start_matches("contended_"), c.scope.name()),
        None => "ct_none__none".into(),
    }
}

/// The cases `keep` (on row op, scope and contention names) lets through, baselines first.
fn cases(keep: &dyn Fn(&str, &str, &str) -> bool) -> Vec<Case> {
    let mut v = Vec::new();
    for (i, (op, _)) in CONTENDED_OPS.iter().enumerate() {
        for &scope in &SCOPES {
            for &contention in &Contention::ALL {
                if keep(op, scope.name(), contention.name()) {
                    v.extend(ADDRESSES.iter().map(|&addresses| Case { op: Some(i), scope, addresses, contention }));
                }
            }
        }
    }
    if v.is_empty() {
        return v;
    }
    let base = Contention::ALL.iter().map(|&contention| Case { op: None, scope: Scope::Wavefront, addresses: 1, contention });
    base.chain(v).collect()
}

/// Number of dispatches [`run`] makes with `keep`.
pub fn count(keep: &dyn Fn(&str, &str, &str) -> bool) -> usize {
    cases(keep).len()
}

fn spec(t: &Target, cases: &[Case], wave: u32) -> SpecBuilder {
    let max_waves = (super::GROUP_ITEMS * t.gpu.compute_units.max(1)).div_ceil(wave).max(1) as u64;
    let words = ADDRESSES.iter().max().copied().unwrap_or(1);
    let dir = t.object_dir();
    let spec = Spec::builder()
        .code_object(&dir, format!("bin/{dir}/contended.co"))
        .buffer("data", Buffer::zeroed(4 * words))
        .buffer("times", Buffer::zeroed(8 * max_waves));
    cases.iter().fold(spec, |spec, c| {
        let (g, b) = c.contention.geometry(&t.gpu, wave);
        // ADDRESSES are at most 2^20.
        let args = vec![Arg::Buffer("data".into()), Arg::U32(c.addresses as u32), Arg::Buffer("times".into())];
        spec.dispatch(Dispatch::linear(kernel(c), g, b, args))
    })
}

/// The clock's period: HW_REG_SHADER_CYCLES has 20 bits on GFX11, the others' 32 low bits.
fn clock_period(t: &Target) -> u64 {
    if t.gpu.processor.family() == hipscope_isa::Family::Gfx11 {
        1 << 20
    } else {
        1 << 32
    }
}

/// Per-wave costs and the span, from `(t0, t1)` per wave on a clock of period `m`. Starts
/// and ends are placed relative to the first wave's start (as signed offsets, half a period
/// either way), so a clock that wraps during the dispatch still gives the span.
fn timings(pairs: &[(u64, u64)], m: u64) -> Option<(Vec<u64>, u64)> {
    let r = pairs.first()?.0;
    let off = |t: u64| {
        let d = (t + m - r % m) % m;
        if d >= m / 2 {
            d as i64 - m as i64
        } else {
            d as i64
        }
    };
    let costs = pairs.iter().map(|&(a, b)| (b + m - a % m) % m).collect();
    let first = pairs.iter().map(|p| off(p.0)).min()?;
    let last = pairs.iter().map(|p| off(p.1)).max()?;
    Some((costs, (last - first).max(0) as u64))
}

/// Run the cases `keep` lets through on `t`; rows in case order.
pub fn run(t: &Target, workloads: &Path, progress: &dyn super::Progress, keep: &dyn Fn(&str, &str, &str) -> bool) -> Result<Vec<Row>, String> {
    let cases = cases(keep);
    if cases.is_empty() {
        return Ok(Vec::new());
    }
    let wave = t.wave();
    let path = workloads.join(format!("contended-{}-{}.ron", t.gpu.name, t.mode_name().to_lowercase()));
    let label = format!("{} ({} mode, contended)", t.gpu.name, t.mode_name());
    let parsed = spec(t, &cases, wave).build(&path).map_err(|e| format!("{label}: {e}"))?;
    let opts = RunOptions { code_object: Some(t.object_dir()), seed: 0, mode: hipscope_sim::Mode::Timing, ..RunOptions::default() };
    let mut s = Session::on(&parsed, &path, &opts, Some(&t.gpu)).map_err(|e| format!("{label}: {e}"))?;
    let m = clock_period(t);
    let mut baseline = [0u64; 3];
    let mut rows = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        s.reset().map_err(|e| format!("{label}: {e}"))?;
        let stats = s.launch_observed(i, 0, None).map_err(|e| format!("{label}: {case:?}: {e}"))?;
        let times = s.read_buffer("times").unwrap_or_default();
        let words: Vec<u64> = times.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as u64).collect();
        let pairs: Vec<(u64, u64)> = words.chunks_exact(2).take(stats.waves as usize).map(|p| (p[0], p[1])).collect();
        let Some((mut costs, span)) = timings(&pairs, m) else { continue };
        let Some(op) = case.op else {
            baseline[case.contention as usize] = super::run::spread(&mut costs).map_or(0, |x| x.0);
            progress.step(&format!("{label}: timer"));
            continue;
        };
        let b = baseline[case.contention as usize];
        let mut net: Vec<u64> = costs.iter().map(|c| c.saturating_sub(b)).collect();
        let (g, _) = case.contention.geometry(&t.gpu, wave);
        let lanes = g as u64;
        let span_cycles = span.saturating_sub(b);
        let spread = super::run::spread(&mut net);
        rows.push(Row {
            gpu: t.gpu.name.clone(),
            mode: t.mode_name(),
            op: CONTENDED_OPS[op].0.to_string(),
            scope: case.scope,
            footprint_bytes: 0,
            contention: case.contention.name().to_string(),
            cycles_median: spread.map(|x| x.0),
            cycles_min: spread.map(|x| x.1),
            cycles_max: spread.map(|x| x.2),
            sequence: s.kernel(i).map(sequence::between_clock_reads).unwrap_or_default(),
            actions: Vec::new(),
            contended: Some(Contended {
                addresses: case.addresses,
                lanes,
                lanes_per_address: lanes.div_ceil(case.addresses),
                span_cycles,
                atomics_per_cycle: lanes as f64 / span_cycles.max(1) as f64,
            }),
            placement: None,
            node: None,
        });
        progress.step(&format!("{label}: {} {} {} words", CONTENDED_OPS[op].0, case.scope.name(), case.addresses));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::timings;

    #[test]
    fn spans_survive_a_wrapping_clock() {
        let m = 1 << 20;
        // Wave 0 starts at m - 10, wave 1 at m - 20; both end after the wrap at 5 and 30.
        let (costs, span) = timings(&[(m - 10, 5), (m - 20, 30)], m).unwrap();
        assert_eq!(costs, vec![15, 50]);
        assert_eq!(span, 50);
    }
}
