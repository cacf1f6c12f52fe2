//! `skip` before a round of work-groups has ended ([`crate::sched::sample`], "Not executed"):
//! one round of long waves (nbody of 32 768 bodies on an MI300A: 128 work-groups, all resident
//! from the start) or a grid whose first round is still running when the rate is stable gives
//! no ended wave to take the count of the others from, and running every resident wave on in
//! the functional engine to learn it cost almost the whole run (nbody of 131 072 bodies: 28 G
//! wave-instructions, about half an hour). A probe runs a few resident work-groups, spread
//! over the grid, to their end instead, and the others are taken to execute what the probed
//! ones did: the mean wave-instructions of a wave still running when detail stopped, and of a
//! whole work-group's wave for those not started. Work-groups whose counts differ (a
//! data-dependent loop, bfs) show it in the probed ones' scatter; when the mean is not known
//! within the sampling's tolerance, the rest runs functionally after all.

use crate::exec::Env;
use crate::fault::KernelFault;
use crate::memory::Memory;
use crate::sample::Z;
use crate::sched::{FastForward, Hooked, Rest, Sched};
use crate::wave::WaveStatus;

/// Work-groups a probe runs (spread evenly over the resident ones by their place in the
/// grid); a probe needs more than twice as many resident, or it saves too little to be worth
/// its error.
pub(super) const PROBED_GROUPS: usize = 8;

/// What a probe found.
pub(super) struct Probe {
    /// Wave-instructions a wave running when detail stopped executes in all, on average.
    pub live_wave: f64,
    /// Wave-instructions of a work-group's wave (those that end early included), on average.
    pub group_wave: f64,
    /// Relative error of `live_wave`: [`Z`] standard errors of the probed work-groups' means.
    pub error: f64,
    /// Work-groups that ran, the wave-instructions they executed here, and the scratch slots
    /// they left free.
    pub groups: u64,
    pub instructions: u64,
    pub slots: Vec<u32>,
}

impl Probe {
    /// Wave-instructions the waves of `s` that have not ended still execute (each up to
    /// [`Probe::live_wave`]), and `groups` work-groups not started of `waves_per_group` waves.
    pub fn rest(&self, s: &Sched<'_, '_, (), ()>, groups: u64, waves_per_group: u32) -> u64 {
        let resident: f64 =
            s.waves.iter().flatten().filter(|r| r.w.status != WaveStatus::Done).map(|r| (self.live_wave - r.w.instructions as f64).max(0.0)).sum();
        (resident + (groups * u64::from(waves_per_group)) as f64 * self.group_wave).round() as u64
    }
}

/// Run up to [`PROBED_GROUPS`] of the work-groups resident in `s` to their end, one after the
/// other, with `resume`. `None`: too few resident to probe (nothing ran), or a probed group did
/// not end on its own (its waves wait on others; the group stays as it is, partly run).
pub(super) fn run(s: &mut Sched<'_, '_, (), ()>, resume: FastForward, env: &mut Env, mem: &mut Memory) -> Result<Option<Probe>, KernelFault> {
    let chosen = spread(s);
    if chosen.is_empty() {
        return Ok(None);
    }
    let mut per_live = Vec::with_capacity(chosen.len());
    let (mut group_waves, mut group_total) = (0u64, 0u64);
    let mut slots = Vec::with_capacity(chosen.len());
    let start = s.stats.instructions;
    for gid in chosen {
        let Some(g) = s.groups[gid].as_ref() else { continue };
        let waves = g.waves.clone();
        let (count, live) = (waves.len(), waves.iter().filter(|&&id| s.waves[id].as_ref().is_some_and(|r| r.w.status != WaveStatus::Done)).count());
        let (before, slot) = (g.ended, g.slot);
        let retired = s.retired;
        resume(s, Rest::Only(waves), None, env, mem, Hooked { host: None, turn: None })?;
        if s.retired.groups != retired.groups + 1 {
            return Ok(None);
        }
        let total = s.retired.instructions - retired.instructions;
        per_live.push((total - before) as f64 / live.max(1) as f64);
        group_total += total;
        group_waves += count as u64;
        slots.push(slot);
    }
    let (live_wave, error) = mean_and_error(&per_live);
    Ok(Some(Probe {
        live_wave,
        group_wave: group_total as f64 / group_waves.max(1) as f64,
        error,
        groups: per_live.len() as u64,
        instructions: s.stats.instructions - start,
        slots,
    }))
}

/// [`PROBED_GROUPS`] resident work-groups with a wave still running, evenly spaced in grid
/// order (their first wave's index in the dispatch), by index into [`Sched::groups`]; none if
/// no more than twice as many are resident.
fn spread(s: &Sched<'_, '_, (), ()>) -> Vec<usize> {
    let mut running: Vec<(u32, usize)> = s
        .groups
        .iter()
        .enumerate()
        .filter_map(|(gid, g)| {
            let g = g.as_ref()?;
            let first = g.waves.iter().filter_map(|&id| s.waves[id].as_ref()).map(|r| r.w.global_index).min()?;
            g.waves.iter().any(|&id| s.waves[id].as_ref().is_some_and(|r| r.w.status != WaveStatus::Done)).then_some((first, gid))
        })
        .collect();
    if running.len() <= 2 * PROBED_GROUPS {
        return Vec::new();
    }
    running.sort_unstable();
    let step = running.len() / PROBED_GROUPS;
    (0..PROBED_GROUPS).map(|i| running[i * step + step / 2].1).collect()
}

/// The mean of `counts` and its relative error: [`Z`] standard errors of the mean (the
/// counts' own scatter) over the mean.
fn mean_and_error(counts: &[f64]) -> (f64, f64) {
    let n = counts.len() as f64;
    if n == 0.0 {
        return (0.0, 0.0);
    }
    let mean = counts.iter().sum::<f64>() / n;
    let variance = counts.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    let error = if mean > 0.0 { Z * (variance / n).sqrt() / mean } else { 0.0 };
    (mean, error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_groups_that_do_alike_give_an_exact_count() {
        assert_eq!(mean_and_error(&[5120.0; 8]), (5120.0, 0.0));
    }

    #[test]
    fn work_groups_whose_loops_differ_give_a_count_not_known_to_a_few_percent() {
        // Data-dependent trip counts (bfs: the frontier's vertices have different degrees): the
        // mean of eight groups of 1 000 to 8 000 instructions a wave is 4 500, its standard
        // error 866, so it is known to ±58 % (3 standard errors), far past sampling's 3 %.
        let counts: Vec<f64> = (1..=8).map(|k| 1000.0 * k as f64).collect();
        let (mean, error) = mean_and_error(&counts);
        assert_eq!(mean, 4500.0);
        assert!((error - 3.0 * (6_000_000.0f64 / 8.0).sqrt() / 4500.0).abs() < 1e-12, "{error}");
        assert!(error > 0.5);
    }
}
