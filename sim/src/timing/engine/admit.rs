//! Where and when work-groups start, and what a wave's end frees.
//!
//! Work-group i goes to XCD i mod XCDs (MI300's dispatcher hands work-groups to XCDs
//! round-robin by ID: AMD CDNA 3 white paper; a single-XCD GPU has one queue), to a CU (or
//! WGP) of that XCD with room for it ([`Placement`]). The dispatcher launches a limited number
//! of work-groups per cycle; each starts after the wave launch latency and, with a nonzero
//! seed, a seeded delay ([`LaunchJitter`]).

use super::Sim;
use crate::counters::Counter;
use crate::gpus::timing::Timing;
use crate::memsys::pipe::SUB;
use crate::observe::{Lazy, Shared, StallCause, WavePlaced, WaveSpan};
use crate::sched::{Dispatch, Ended, Release, Resident};
use crate::timing::issue::{stalled, WaveTiming};
use crate::timing::jitter::LaunchJitter;
use crate::timing::placement::{Needs, Occupancy, Placed, Placement};
use crate::timing::waitcnt::Outstanding;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Where work-groups go and when they start.
pub(super) struct Admission {
    pub(super) place: Placement,
    /// What one work-group needs of a CU.
    pub(super) needs: Needs,
    /// CUs per placement unit: 2 in WGP mode (a work-group's waves may run on either CU of
    /// its WGP, each CU with its own L0 and SIMDs, the LDS shared), 1 otherwise.
    pub(super) cus_per_unit: usize,
    /// tgsplit mode (GFX90A/GFX942): a work-group's waves spread over several CUs.
    split: bool,
    simds_per_cu: usize,
    /// Per XCD, the next work-group it runs (XCD x runs groups x, x + XCDs, ...).
    pub(super) next_group: Vec<u64>,
    groups: u64,
    /// Free scratch slots (the last one freed is taken first).
    free_slots: Vec<u32>,
    /// When the dispatcher can launch the next work-group, in 1/`SUB` cycles.
    dispatcher_free: u64,
    /// Seeded extra start delay per work-group (none for seed 0).
    jitter: LaunchJitter,
    /// Seeded wave priorities (all 0 for seed 0).
    rng: StdRng,
    seed: u64,
    /// Per shader engine: its first wave's launch and last wave's end (`SQ_BUSY_CYCLES`).
    engine_span: Vec<(u64, u64)>,
    /// The latest start of a work-group so far.
    pub(super) last_start: u64,
}

impl Admission {
    /// Admission of `d`'s work-groups onto `cus` CUs from cycle `start`.
    pub(super) fn new(d: &Dispatch, t: &Timing, cus: u32, start: u64, seed: u64) -> Admission {
        let Occupancy { needs, cus_per_unit, split } = Occupancy::of(d.kernel, d.waves_per_group(), d.lds_bytes);
        Admission {
            place: Placement::new(t, cus, cus_per_unit),
            needs,
            cus_per_unit: cus_per_unit as usize,
            split,
            simds_per_cu: t.core.simds_per_cu.max(1) as usize,
            next_group: (0..t.topology.xcds.max(1) as u64).collect(),
            groups: d.geo.group_count(),
            free_slots: (0..d.resident_groups() as u32).rev().collect(),
            dispatcher_free: start * SUB,
            jitter: LaunchJitter::new(seed),
            rng: StdRng::seed_from_u64(seed),
            seed,
            engine_span: Vec::new(),
            last_start: 0,
        }
    }

    /// The work-groups not started yet, in dispatch order.
    pub(super) fn pending(&self) -> Vec<u64> {
        let step = self.next_group.len() as u64;
        let mut groups: Vec<u64> = self.next_group.iter().flat_map(|&first| (first..self.groups).step_by(step.max(1) as usize)).collect();
        groups.sort_unstable();
        groups
    }

    /// The work-groups not started before `first` (in dispatch order) are taken as started
    /// elsewhere (the functional engine ran them, or they were skipped): each XCD goes on with
    /// its first group from `first` on.
    pub(super) fn started_elsewhere_before(&mut self, first: u64) {
        let step = self.next_group.len() as u64;
        for g in self.next_group.iter_mut().filter(|g| **g < first) {
            *g += (first - *g).div_ceil(step) * step;
        }
    }

    /// The free scratch slots (the last one is taken first).
    pub(super) fn free_slots(&self) -> Vec<u32> {
        self.free_slots.clone()
    }

    /// Whether a work-group fits on an empty CU at all.
    pub(super) fn fits_at_all(&self) -> bool {
        self.place.fits_at_all(&self.needs)
    }

    pub(super) fn needs(&self) -> &Needs {
        &self.needs
    }

    /// `SQ_BUSY_CYCLES`: per shader engine from its first wave's launch to its last wave's
    /// end, summed.
    pub(super) fn busy_cycles(&self) -> u64 {
        self.engine_span.iter().filter(|s| s.1 > s.0).map(|s| s.1 - s.0).sum()
    }

    /// Whether XCD `x` has work-groups left to start.
    fn has_work(&self, x: usize) -> bool {
        self.next_group.get(x).is_some_and(|&g| g < self.groups)
    }

    /// A place for the next work-group of XCD `x`, if one is free; `near`: a CU of `x` that
    /// just freed room, to place it there.
    fn place(&mut self, x: usize, near: Option<usize>) -> Option<Placed> {
        match (self.split, near) {
            (true, _) => self.place.place_split_in_xcd(x, &self.needs),
            (false, None) => self.place.place_in_xcd(x, &self.needs),
            (false, Some(cu)) => self.place.place_on(cu, &self.needs),
        }
    }

    /// Give back what a retired work-group held.
    pub(super) fn release(&mut self, placed: &Placed, slot: u32) {
        if self.split {
            self.place.release_split(placed, &self.needs);
        } else {
            self.place.release(placed, &self.needs);
        }
        self.free_slots.push(slot);
    }

    /// The work-group that goes to `placed`'s XCD next, its scratch slot, and the cycle it
    /// starts when the dispatcher takes it at `at`.
    fn launch(&mut self, placed: &Placed, at: u64, t: &Timing) -> (u64, u32, u64) {
        let unit = placed.waves.first().map_or(0, |w| w.0);
        let x = self.place.xcd_of(unit);
        let group = self.next_group[x];
        self.next_group[x] += self.next_group.len() as u64;
        let when = (at * SUB).max(self.dispatcher_free);
        self.dispatcher_free = when + dispatch_interval(t);
        let at = when.div_ceil(SUB) + t.core.wave_launch_cycles as u64 + self.jitter.next_delay();
        let slot = self.free_slots.pop().unwrap_or(0);
        let se = self.place.engine_of(unit);
        if self.engine_span.len() <= se {
            self.engine_span.resize(se + 1, (u64::MAX, 0));
        }
        self.engine_span[se].0 = self.engine_span[se].0.min(at);
        self.last_start = self.last_start.max(at);
        (group, slot, at)
    }

    /// A wave on `cu` ended at `end`.
    fn wave_ended_on(&mut self, cu: usize, end: u64) {
        let se = self.place.engine_of(cu / self.cus_per_unit);
        if let Some(s) = self.engine_span.get_mut(se) {
            s.1 = s.1.max(end);
        }
    }
}

/// Sub-cycles ([`SUB`] a cycle) between two work-groups the dispatchers start: the configured
/// rate per microsecond at the shader clock, to the nearest sub-cycle and at least one.
fn dispatch_interval(t: &Timing) -> u64 {
    let rate = u64::from(t.dispatch.workgroups_per_us.max(1));
    ((SUB * u64::from(t.clock_mhz) + rate / 2) / rate).max(1)
}

/// The CU and its SIMD of SIMD `simd` of placement unit `unit`.
fn physical(cus_per_unit: usize, simds_per_cu: usize, unit: usize, simd: usize) -> (usize, usize) {
    (unit * cus_per_unit + simd / simds_per_cu, simd % simds_per_cu)
}

/// A wave a barrier released at `r.at` issues then.
pub(super) fn wake(heap: &mut BinaryHeap<Reverse<super::Event>>, id: usize, tw: &mut Resident<WaveTiming>, r: Release, obs: Option<&Shared>) {
    if obs.is_some() {
        // The wave's PC is already past the barrier, a one-dword SOPP.
        let detail = Lazy(|| format!("{} waves of the work-group", r.arrived));
        stalled(obs, &tw.w, StallCause::Barrier, tw.w.pc.saturating_sub(4), tw.x.next..r.at, &detail);
    }
    tw.x.next = r.at;
    heap.push(Reverse(super::Event::new(r.at, tw.x.prio, id as u32)));
}

impl Sim<'_, '_> {
    /// Admit work-groups wherever they fit, from cycle `at`, each XCD in turn.
    pub(super) fn admit_anywhere(&mut self, at: u64) {
        loop {
            let mut placed = false;
            for x in 0..self.admit.next_group.len() {
                if !self.admit.has_work(x) {
                    continue;
                }
                let Some(p) = self.admit.place(x, None) else { continue };
                self.start_group(p, at);
                placed = true;
            }
            if !placed {
                break;
            }
        }
    }

    /// Admit work-groups of `cu`'s XCD onto `cu` (one of its groups ended at `at`); a
    /// tgsplit work-group goes wherever in the XCD its waves fit.
    fn admit_on(&mut self, cu: usize, at: u64) {
        let x = self.admit.place.xcd_of(cu);
        while self.admit.has_work(x) {
            let Some(p) = self.admit.place(x, Some(cu)) else { break };
            self.start_group(p, at);
        }
    }

    /// Start the next work-group of the XCD of `placed`'s units there.
    fn start_group(&mut self, placed: Placed, at: u64) {
        let (group, slot, at) = self.admit.launch(&placed, at, self.t);
        let (kernel, seed) = (self.s.d.kernel, self.admit.seed);
        let (per_unit, simds) = (self.admit.cus_per_unit, self.admit.simds_per_cu);
        let (rng, heap) = (&mut self.admit.rng, &mut self.heap);
        let waves = self.s.stats.waves;
        self.s.start_group(group, slot, at, placed, |placed, i, id, w, obs| {
            let idx = kernel.index_of(w.pc).unwrap_or(0);
            let prio = if seed == 0 { 0 } else { rng.random::<u32>() };
            let unit = placed.waves.first().map_or(0, |w| w.0);
            let (u, s) = placed.waves.get(i).copied().unwrap_or((unit, 0));
            let (cu, simd) = physical(per_unit, simds, u, s as usize);
            if let Some(o) = obs {
                o.borrow_mut().wave_placed(&WavePlaced { wave: w.id, wave_index: w.global_index, cu, simd, at });
            }
            heap.push(Reverse(super::Event::new(at, prio, id as u32)));
            WaveTiming { cu, simd, idx, next: at, prio, start: at, out: Outstanding::default(), sleep_until: 0 }
        });
        self.counters.add(Counter::SqWaves, self.s.stats.waves - waves);
    }

    /// Wave `id` ended at `end`: it counts, observers see its span, and what its work-group
    /// held is free for the next once the group retires.
    pub(super) fn wave_ended(&mut self, id: usize, end: u64) {
        let Some(r) = self.s.waves[id].as_ref() else { return };
        self.counters.add(Counter::SqWaveCycles, end.saturating_sub(r.x.start));
        self.counters.add(Counter::LdsOutOfRange, r.w.lds_out_of_range.get());
        self.admit.wave_ended_on(r.x.cu, end);
        self.time.last = self.time.last.max(end);
        self.time.progress = self.time.progress.max(end);
        let w = &r.w;
        self.s.tell(|o| o.wave_span(&WaveSpan { wave: w.id, wave_index: w.global_index, start: r.x.start, end, instructions: w.instructions }));
        let heap = &mut self.heap;
        let Ended::Retired { slot, x: placed } = self.s.end_wave(id, end, |id, tw, rel, obs| wake(heap, id, tw, rel, obs)) else { return };
        self.admit.release(&placed, slot);
        for unit in placed.units() {
            self.admit_on(unit, end);
        }
    }
}
