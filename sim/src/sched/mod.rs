//! The scheduler both engines share, and the seam a launch picks its engine through.
//!
//! An engine ([`crate::engine`] functional, [`crate::timing::engine`] timing) decides *when*
//! a wave issues and what an instruction costs; everything else about running a dispatch is
//! written once here, on [`Sched`]:
//! * residency: work-groups start with their waves ([`Sched::start_group`]) and wave storage
//!   is a slab indexed by wave id, so an engine refers to a wave by a `usize`;
//! * barriers: arrival counts and release ([`Sched::arrive`], [`Sched::try_release`]);
//! * retirement: an instruction's counts and the runaway limit ([`Sched::retire`]), a wave's
//!   end and its group's ([`Sched::end_wave`]);
//! * faults: their location and the livelock and limit reports (`faults`);
//! * the clocks `s_memtime` and `s_memrealtime` read ([`clock`]).
//!
//! Engines plug in by value: a [`Sched`] is generic over the engine's per-wave and per-group
//! state, and its events (a wave released from a barrier, a group retired) come back as plain
//! calls or return values, so nothing in the per-instruction path is dynamic. The only
//! dynamic call is the choice of engine, once per launch ([`Engine`]).

mod faults;
mod options;
mod residency;
mod retire;
mod sample;
mod touched;

pub use faults::fault;
pub(crate) use options::count_group;
pub use options::{EngineOptions, RunProgress, Threads, DEFAULT_NO_PROGRESS, DEFAULT_WATCHDOG_CYCLES};
pub(crate) use residency::{Ended, Release, Resident, Sched, Storage};
pub(crate) use retire::{fetch, follow};
pub use sample::{round_period, short_round_window, Sampled, Stable, Windows, WorkGroupSampling};
pub(crate) use sample::{FastForward, Rest};
pub use touched::Touched;

use crate::dispatch::{Geometry, RuntimeAddresses};
use crate::exec::Env;
use crate::fault::KernelFault;
use crate::host::HostAgent;
use crate::kernel::LoadedKernel;
use crate::memory::Memory;
use crate::node::turns::Turn;
use crate::observe::{DispatchInfo, Observer, Regions};

/// What runs a launch's dispatch: the functional engine, or the timing engine with its GPU's
/// memory system. [`crate::launch::Device`] holds one of each kind it may use and picks one
/// per launch.
pub trait Engine {
    /// Work-groups the engine keeps resident at once for `kernel` with `waves_per_group` waves
    /// and `lds_bytes` of LDS per group (it sizes the dispatch's scratch backing store).
    fn max_resident_groups(&self, kernel: &LoadedKernel, waves_per_group: u32, lds_bytes: u32, opts: &EngineOptions) -> usize;

    /// Run a dispatch to completion. `host`: the host's side of hostcall services, polled
    /// while the waves run; `observer`: told what the waves do ([`crate::observe`]); `turn`:
    /// co-simulated with launches on other GPUs, met where the host is polled
    /// ([`crate::node::turns`]).
    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        d: &Dispatch,
        env: &mut Env,
        mem: &mut Memory,
        opts: &EngineOptions,
        host: Option<&mut dyn HostAgent>,
        observer: Option<&mut dyn Observer>,
        turn: Option<&mut Turn>,
    ) -> Result<DispatchStats, KernelFault>;
}

/// What an engine meets between scheduling steps: the host's side of hostcall services, and
/// the turn of a launch co-simulated with others ([`crate::node::turns`]; its local measure is
/// the dispatch's wave-instructions in the functional engine, the device cycle in the timing
/// engine).
#[derive(Default)]
pub struct Hooked<'h, 't> {
    pub host: Option<&'h mut dyn HostAgent>,
    pub turn: Option<&'t mut Turn>,
}

/// What a dispatch did.
#[derive(Debug, Clone, Default)]
pub struct DispatchStats {
    pub instructions: u64,
    pub waves: u64,
    pub groups: u64,
    /// Executed instructions per opcode (index = `Opcode as usize`).
    pub opcode_counts: Vec<u64>,
    /// Lane accesses to LDS out of range (reads returned 0, writes dropped), over the waves
    /// that ended.
    pub lds_out_of_range: u64,
    /// Timing mode: the dispatch's duration in shader cycles, and its counters.
    pub cycles: Option<u64>,
    pub counters: Option<crate::counters::Counters>,
    /// Timing mode with work-group sampling asked for ([`EngineOptions::work_group_sampling`]):
    /// what was simulated in detail, what was fast-forwarded, and the estimated error.
    pub sampled: Option<Sampled>,
}

/// A dispatch in progress.
pub struct Dispatch<'a> {
    pub kernel: &'a LoadedKernel,
    pub geo: Geometry,
    pub rt: RuntimeAddresses,
    /// The kernarg segment as placed in memory.
    pub kernarg: Vec<u8>,
    /// Bytes of LDS per work-group (static + dynamic).
    pub lds_bytes: u32,
    /// Scratch backing: base address and bytes per lane (0: no scratch); it holds
    /// `resident_groups() * waves_per_group()` wave slots.
    pub scratch_base: u64,
    pub scratch_per_lane: u32,
    /// Work-groups resident at once.
    pub max_resident_groups: usize,
}

impl Dispatch<'_> {
    /// What observers are told of the kernel.
    pub fn info(&self) -> DispatchInfo<'_> {
        DispatchInfo { kernel: self.kernel, grid: self.geo.grid, block: self.geo.block, lds_bytes: self.lds_bytes, regions: self.regions(), timing: None }
    }

    /// Its scratch backing store and kernarg segment, as observers tell them apart.
    pub fn regions(&self) -> Regions {
        Regions { scratch: self.scratch_range(), kernarg: self.rt.kernarg..self.rt.kernarg + self.kernarg.len() as u64 }
    }

    /// Addresses of the scratch backing store (empty without scratch).
    pub fn scratch_range(&self) -> std::ops::Range<u64> {
        let lanes = if self.kernel.wave64 { 64 } else { 32 };
        let slots = self.resident_groups() * u64::from(self.waves_per_group());
        let bytes = crate::scratch::store_bytes(slots, lanes, u64::from(self.scratch_per_lane));
        self.scratch_base..self.scratch_base + if self.scratch_base == 0 { 0 } else { bytes }
    }

    /// Work-groups resident at once (the residency limit, or fewer if the grid is small).
    pub fn resident_groups(&self) -> u64 {
        resident_groups(self.max_resident_groups, &self.geo)
    }

    /// Waves of a full work-group.
    pub fn waves_per_group(&self) -> u32 {
        let lanes = if self.kernel.wave64 { 64 } else { 32 };
        (self.geo.block.iter().product::<u32>()).div_ceil(lanes)
    }

    /// Waves of work-group `n` (in dispatch order): fewer than a full group's at a ragged edge
    /// of the grid.
    pub fn waves_in_group(&self, n: u64) -> u32 {
        let lanes = if self.kernel.wave64 { 64 } else { 32 };
        self.geo.group_size(self.geo.group_at(n)).iter().product::<u32>().div_ceil(lanes)
    }
}

/// Work-groups resident at once with a residency limit of `max` (at least one, at most the
/// grid's groups).
pub fn resident_groups(max: usize, geo: &Geometry) -> u64 {
    (max.max(1) as u64).min(geo.group_count().max(1))
}
