//! Running the suite on one target: one launch spec with every case as a dispatch, each
//! launched on fresh caches and buffers, its per-wave times read back.

use super::{actions, sequence, Contention, Placements, Row, Scope, Target, FOOTPRINTS, GROUP_ITEMS, OPS, PING_PONG_ROUNDS, PING_PONG_SCOPES};
use hipscope_sim::spec::model::{Arg, Buffer, Dispatch};
use hipscope_sim::spec::{RunOptions, Session, Spec, SpecBuilder};
use std::collections::HashMap;
use std::path::Path;

/// Told after each case.
pub trait Progress: Sync {
    fn step(&self, what: &str);
}

impl Progress for () {
    fn step(&self, _: &str) {}
}

/// Loads a ping-pong wait may spend before giving up (the kernel's bound).
const TIMED_OUT: u32 = u32::MAX;

/// What one dispatch of the spec measures.
#[derive(Debug, Clone)]
enum Case {
    /// The timer alone (`sc_none__none`).
    Baseline {
        contention: Contention,
    },
    Op {
        op: &'static str,
        scope: Scope,
        footprint: u64,
        contention: Contention,
    },
    PingPong {
        scope: Scope,
        partner: u32,
        placement: &'static str,
    },
}

/// Every case for `t`, in report order.
fn cases(t: &Target) -> Vec<Case> {
    let mut v: Vec<Case> = Contention::ALL.iter().map(|&c| Case::Baseline { contention: c }).collect();
    // tgsplit mode allocates no LDS (AMDGPUUsage, *Memory Model GFX90A*).
    for op in OPS.iter().filter(|o| !(t.tgsplit && o.lds)) {
        for &scope in super::scopes_of(op) {
            for &contention in &Contention::ALL {
                for &footprint in &FOOTPRINTS {
                    v.push(Case::Op { op: op.name, scope, footprint, contention });
                }
            }
        }
    }
    let xcds = t.gpu.timing.as_ref().map_or(1, |x| x.topology.xcds.max(1));
    // Work-groups go to XCDs round-robin by ID, so group `xcds` shares group 0's XCD.
    let partners: Vec<(u32, &'static str)> = if xcds > 1 { vec![(xcds, "same_xcd"), (1, "other_xcd")] } else { vec![(1, "other_cu")] };
    for &scope in &PING_PONG_SCOPES {
        for &(partner, placement) in &partners {
            v.push(Case::PingPong { scope, partner, placement });
        }
    }
    v
}

/// Number of cases [`run_target_placed`] runs on `t` with `placements` (for progress bars).
pub fn case_count(t: &Target, placements: Placements) -> usize {
    let all = Filter::default();
    let nodepp = if placements == Placements::None { 0 } else { super::nodepp::count(t) };
    cases(t).len()
        + super::contended::count(&|op, scope, contention| all.keeps_contended(op, scope, contention))
        + super::placement::count(t, placements)
        + nodepp
}

/// A part of the suite: the cases whose operation, scope, footprint and contention are among
/// the listed ones (an empty list: any). Ping-pong cases are the operation `ping_pong`, their
/// contention the partner's placement (`other_cu`, `same_xcd`, `other_xcd`).
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub ops: Vec<String>,
    pub scopes: Vec<String>,
    pub footprints: Vec<u64>,
    pub contentions: Vec<String>,
}

impl Filter {
    /// Whether a contended case (no dirty footprint) is kept.
    fn keeps_contended(&self, op: &str, scope: &str, contention: &str) -> bool {
        let any = |list: &[String], x: &str| list.is_empty() || list.iter().any(|l| l == x);
        any(&self.ops, op) && any(&self.scopes, scope) && (self.footprints.is_empty() || self.footprints.contains(&0)) && any(&self.contentions, contention)
    }

    /// Whether a placement case is kept.
    fn keeps_placed(&self, op: &str, scope: Scope, footprint: u64, contention: Contention) -> bool {
        let any = |list: &[String], x: &str| list.is_empty() || list.iter().any(|l| l == x);
        any(&self.ops, op)
            && any(&self.scopes, scope.name())
            && (self.footprints.is_empty() || self.footprints.contains(&footprint))
            && any(&self.contentions, contention.name())
    }

    fn keeps(&self, c: &Case) -> bool {
        let any = |list: &[String], x: &str| list.is_empty() || list.iter().any(|l| l == x);
        match c {
            // The timer's cost is subtracted from every case of its contention.
            Case::Baseline { contention } => any(&self.contentions, contention.name()),
            Case::Op { op, scope, footprint, contention } => {
                any(&self.ops, op)
                    && any(&self.scopes, scope.name())
                    && (self.footprints.is_empty() || self.footprints.contains(footprint))
                    && any(&self.contentions, contention.name())
            }
            Case::PingPong { scope, placement, .. } => any(&self.ops, "ping_pong") && any(&self.scopes, scope.name()) && any(&self.contentions, placement),
        }
    }
}

/// The launch spec: buffers sized for the largest case, one dispatch per case.
fn spec(t: &Target, cases: &[Case], wave: u32) -> SpecBuilder {
    let cus = t.gpu.compute_units.max(1);
    let max_waves = (GROUP_ITEMS * cus).div_ceil(wave).max(1) as u64;
    let dirty_bytes = FOOTPRINTS.iter().max().copied().unwrap_or(0) + 4 * max_waves * wave as u64;
    let dir = t.object_dir();
    let spec = Spec::builder()
        .code_object(&dir, format!("bin/{dir}/scopes.co"))
        .buffer("sync", Buffer::zeroed(4 * (max_waves + 1)))
        .buffer("dirty", Buffer::zeroed(dirty_bytes))
        .buffer("times", Buffer::zeroed(4 * max_waves.max(2)))
        .buffer("flag", Buffer::zeroed(256));
    let buf = |name: &str| Arg::Buffer(name.into());
    cases.iter().fold(spec, |spec, c| {
        let d = match *c {
            Case::Baseline { contention } => {
                let (g, b) = contention.geometry(&t.gpu, wave);
                Dispatch::linear("sc_none__none", g, b, vec![buf("sync"), buf("dirty"), Arg::U32(0), buf("times")])
            }
            Case::Op { op, scope, footprint, contention } => {
                let (g, b) = contention.geometry(&t.gpu, wave);
                let waves = g.div_ceil(wave).max(1) as u64;
                // At most 1 MiB over at least one wave: far below 2^32 dwords.
                let dwords = (footprint / 4 / waves) as u32;
                Dispatch::linear(format!("sc_{op}__{}", scope.name()), g, b, vec![buf("sync"), buf("dirty"), Arg::U32(dwords), buf("times")])
            }
            Case::PingPong { scope, partner, .. } => Dispatch::linear(
                format!("pp__{}", scope.name()),
                wave * (partner + 1),
                wave,
                vec![buf("flag"), Arg::U32(partner), Arg::U32(PING_PONG_ROUNDS), buf("times")],
            ),
        };
        spec.dispatch(d)
    })
}

/// (median, min, max) of `v` (sorted in place); `None` when empty.
pub(super) fn spread(v: &mut [u64]) -> Option<(u64, u64, u64)> {
    v.sort_unstable();
    Some((*v.get(v.len() / 2)?, *v.first()?, *v.last()?))
}

/// Run every case on `t` with the suite's code objects under `workloads`, and the default
/// placement rows. Errors name the target and the case.
pub fn run_target(t: &Target, workloads: &Path, progress: &dyn Progress) -> Result<Vec<Row>, String> {
    run_target_placed(t, workloads, progress, &Filter::default(), Placements::Default)
}

/// [`run_target`] for the cases `filter` keeps, without placement rows.
pub fn run_target_filtered(t: &Target, workloads: &Path, progress: &dyn Progress, filter: &Filter) -> Result<Vec<Row>, String> {
    run_target_placed(t, workloads, progress, filter, Placements::None)
}

/// [`run_target_filtered`] and then the placement rows of `placements` that `filter` keeps.
pub fn run_target_placed(t: &Target, workloads: &Path, progress: &dyn Progress, filter: &Filter, placements: Placements) -> Result<Vec<Row>, String> {
    let mut rows = run_suite(t, workloads, progress, filter)?;
    let keep = |op: &str, scope: Scope, footprint: u64, contention: Contention| filter.keeps_placed(op, scope, footprint, contention);
    rows.extend(super::placement::run(t, workloads, progress, placements, &keep)?);
    // The ping-pong between agents of a node goes with any placement rows (a filtered run has
    // none).
    if placements != Placements::None {
        rows.extend(super::nodepp::run(t, workloads, progress)?);
    }
    Ok(rows)
}

/// The suite's own cases and the contended rows.
fn run_suite(t: &Target, workloads: &Path, progress: &dyn Progress, filter: &Filter) -> Result<Vec<Row>, String> {
    let wave = t.wave();
    let cases: Vec<Case> = cases(t).into_iter().filter(|c| filter.keeps(c)).collect();
    let path = workloads.join(format!("scopes-{}-{}.ron", t.gpu.name, t.mode_name().to_lowercase()));
    let label = format!("{} ({} mode)", t.gpu.name, t.mode_name());
    let parsed = spec(t, &cases, wave).build(&path).map_err(|e| format!("{label}: {e}"))?;
    // The target's own config (it may come from a file whose name is not a built-in's).
    let opts = RunOptions { code_object: Some(t.object_dir()), seed: 0, mode: hipscope_sim::Mode::Timing, ..RunOptions::default() };
    let mut s = Session::on(&parsed, &path, &opts, Some(&t.gpu)).map_err(|e| format!("{label}: {e}"))?;
    let rdna = t.gpu.processor.family().is_rdna();
    let mut baseline = [0u64; 3];
    let mut rows = Vec::new();
    // Each kernel runs in many cases; its instructions are printed once.
    let mut sequences: HashMap<String, Vec<String>> = HashMap::new();
    for (i, case) in cases.iter().enumerate() {
        s.reset().map_err(|e| format!("{label}: {e}"))?;
        let mut tally = actions::Tally::default();
        let stats = s.launch_observed(i, 0, Some(&mut tally)).map_err(|e| format!("{label}: {case:?}: {e}"))?;
        let times = s.read_buffer("times").unwrap_or_default();
        let words: Vec<u32> = times.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        let counters = stats.counters.unwrap_or_default();
        let sequence = match s.kernel(i) {
            Some(k) => sequences.entry(k.name.clone()).or_insert_with(|| sequence::between_clock_reads(k)).clone(),
            None => Vec::new(),
        };
        let base = |op: &str, scope, footprint, contention: &str| Row {
            gpu: t.gpu.name.clone(),
            mode: t.mode_name(),
            op: op.to_string(),
            scope,
            footprint_bytes: footprint,
            contention: contention.to_string(),
            cycles_median: None,
            cycles_min: None,
            cycles_max: None,
            sequence: sequence.clone(),
            actions: actions::describe(&tally, &counters, rdna),
            contended: None,
            placement: None,
            node: None,
        };
        match *case {
            Case::Baseline { contention } => {
                let waves = stats.waves as usize;
                let mut v: Vec<u64> = words.iter().take(waves).map(|&w| w as u64).collect();
                baseline[contention as usize] = spread(&mut v).map_or(0, |m| m.0);
                progress.step(&format!("{label}: timer"));
            }
            Case::Op { op, scope, footprint, contention } => {
                let waves = stats.waves as usize;
                let b = baseline[contention as usize];
                let mut v: Vec<u64> = words.iter().take(waves).map(|&w| (w as u64).saturating_sub(b)).collect();
                let mut r = base(op, scope, footprint, contention.name());
                if let Some((med, lo, hi)) = spread(&mut v) {
                    (r.cycles_median, r.cycles_min, r.cycles_max) = (Some(med), Some(lo), Some(hi));
                }
                rows.push(r);
                progress.step(&format!("{label}: {op} {}", scope.name()));
            }
            Case::PingPong { scope, placement, .. } => {
                let mut r = base("ping_pong", scope, 0, placement);
                let per_trip = words.first().copied().unwrap_or(TIMED_OUT);
                let partner = words.get(1).copied().unwrap_or(TIMED_OUT);
                if per_trip != TIMED_OUT && partner != TIMED_OUT {
                    let c = Some(per_trip as u64);
                    (r.cycles_median, r.cycles_min, r.cycles_max) = (c, c, c);
                } else {
                    r.actions.push("timed out: a group never saw its partner's flag value (stale line)".into());
                }
                rows.push(r);
                progress.step(&format!("{label}: ping-pong {}", scope.name()));
            }
        }
    }
    // The contended atomics: their own code object (atomic optimizer off), their own session.
    rows.extend(super::contended::run(t, workloads, progress, &|op, scope, contention| filter.keeps_contended(op, scope, contention))?);
    Ok(rows)
}
