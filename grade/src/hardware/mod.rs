//! The hardware layer: a litmus test compiled with our lowering into one kernel, run on a
//! simulated GPU many times with different seeds, and the final states it shows.
//!
//! Each litmus thread is lane 0 of one wave; threads in different work-groups are placed on
//! different work-groups of the dispatch, which the dispatcher puts on different CUs (and,
//! on MI300, different XCDs: consecutive work-groups go round-robin over the XCDs, unless a
//! thread names its XCD). Every run starts from empty caches and the test's initial values;
//! the seed varies when each work-group starts and how requests to different L2 channels
//! overtake each other (`sim/src/timing/jitter.rs`, `sim/src/memsys/reorder.rs`), the run-
//! to-run variation litmus runners provoke on real GPUs. Seeds are `seed, seed + 1, …`, so a
//! run is replayed by its seed.

mod agents;
mod assemble;
mod codegen;
pub mod host;
pub mod placement;
pub mod stress;

pub use assemble::{Assembled, Listed};
pub use codegen::Unsupported;

use crate::litmus::{Litmus, Term};

use hipscope_isa::tables::flags;
use hipscope_mm::lower::Target;
use hipscope_mm::{Value, ValueType};
use hipscope_sim::gpus::{GpuConfig, Mode};
use hipscope_sim::kernel::{LoadedKernel, RawKernel};
use hipscope_sim::observe::{CacheAction, CacheOp, MemoryDone, Observer};
use hipscope_sim::timing::trace;
use hipscope_sim::{Device, EngineOptions, Geometry, MemoryKind};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde::Serialize;
use std::collections::BTreeMap;

/// Bytes between two locations: a different L2 channel each (256-byte interleave on every
/// built-in GPU, `configs/*.ron`), never one cache line.
const LOCATION_STRIDE: u64 = 256;

/// Bytes between two result slots (each holds a 4- or 8-byte register).
const RESULT_STRIDE: u64 = 8;

/// Cycles one iteration of a thread's delay loop takes at least (four scalar instructions).
const CYCLES_PER_DELAY_ITERATION: u64 = 16;

/// The widest start delay a thread draws, in cycles: the latency of a load that misses every
/// cache (the GPU config's hit latencies plus DRAM's), so that one thread's store may become
/// visible before, while or after another thread's load is on its way.
fn delay_window_cycles(gpu: &GpuConfig) -> u64 {
    gpu.timing.as_ref().map_or(1024, |t| {
        let levels = [
            Some(t.vector_l1.hit_latency_cycles),
            t.gl1.as_ref().map(|c| c.hit_latency_cycles),
            Some(t.l2.hit_latency_cycles),
            t.mall.as_ref().map(|m| m.hit_latency_cycles),
        ];
        levels.iter().flatten().map(|&c| u64::from(c)).sum::<u64>() + u64::from(t.dram.latency_cycles)
    })
}

/// How the test is run.
#[derive(Debug, Clone, Copy)]
pub struct Runs {
    pub count: u64,
    /// The first seed (≥ 1: seed 0 turns the run-to-run variation off).
    pub seed: u64,
    /// On a GPU of several XCDs, put every work-group on one XCD (different CUs of it)
    /// instead of spreading them over the XCDs. A thread that names its XCD keeps it.
    pub one_xcd: bool,
}

/// Where the test's work-groups run and the stress beside them (`Setup::default()`: the
/// dispatcher's spread as [`Runs::one_xcd`] says, no stress).
#[derive(Debug, Clone, Copy, Default)]
pub struct Setup {
    /// Overrides [`Runs::one_xcd`] when given.
    pub placement: Option<placement::Where>,
    pub stress: Option<stress::Stress>,
    /// How a test with a thread on the host allocates its locations (`host_pinned` by default).
    pub host_memory: host::HostAlloc,
}

/// Why the hardware layer did not give a table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HardwareError {
    #[error("not run on the simulated GPU: {0}")]
    Unsupported(#[from] Unsupported),
    #[error("{gpu}: {message}")]
    Gpu { gpu: String, message: String },
    /// The kernel faulted: a bug in the generated code or the simulator, never the student's.
    #[error("{gpu}, seed {seed}: {message}")]
    Fault { gpu: String, seed: u64, message: String },
}

/// One final state seen, how often, and the first seed that shows it.
#[derive(Debug, Clone, Serialize)]
pub struct Observed {
    /// The condition's registers and locations with their values (`P1:r0=1 x=0`).
    pub state: String,
    pub count: u64,
    pub first_seed: u64,
    /// Whether the test's proposition holds in this state.
    pub satisfies: bool,
}

/// What one GPU showed.
#[derive(Debug, Clone, Serialize)]
pub struct HardwareReport {
    pub gpu: String,
    /// `CU` or `WGP`.
    pub mode: String,
    /// The build whose code ran (`gfx942`, `gfx1100-w32-wgp`).
    pub build: String,
    pub runs: u64,
    pub first_seed: u64,
    /// Where the work-groups ran: `spread over XCDs`, `one XCD`, `one L2`, `one CU`, `one
    /// WGP`, or `an XCD each`.
    pub placement: String,
    /// The stress beside the test (`groups=16,lines=4,…`), if any.
    pub stress: Option<String>,
    /// Final states, most frequent first.
    pub outcomes: Vec<Observed>,
    /// Runs in which the test's proposition held, and the first such seed.
    pub condition_observed: u64,
    pub condition_first_seed: Option<u64>,
    /// The memory-system story of the first run showing the condition: each access of the
    /// litmus threads in issue order, with the level that served it.
    pub story: Vec<String>,
    /// The code that ran, per thread (the shared prologue under `None`).
    #[serde(skip)]
    pub listing: Vec<Listed>,
}

/// What the instructions of one run did in the memory system, by PC: each memory
/// instruction's issue, cycles and the level that served it, each cache action.
#[derive(Default)]
struct Happenings {
    /// (issue cycle, PC, what).
    events: Vec<(u64, u64, String)>,
    rdna: bool,
}

impl Observer for Happenings {
    fn lane_accesses(&self) -> bool {
        false
    }
    fn memory_done(&mut self, m: &MemoryDone) {
        let level = m.level.map_or("none", |l| trace::level_name(l, self.rdna));
        self.events.push((m.issue, m.pc, format!("served by {level}, {} cycles", m.done.saturating_sub(m.issue))));
    }
    fn cache_action(&mut self, a: &CacheAction) {
        let (name, what) = (trace::cache_op_name(a.op, self.rdna), if a.op == CacheOp::WritebackL2 { "written" } else { "dropped" });
        self.events.push((a.issue, a.pc, format!("{name}: {} line(s) {what}, {} cycles", a.lines, a.done.saturating_sub(a.issue))));
    }
}

/// The lowering target a GPU runs in `mode` (its default wave size).
pub fn target_of(gpu: &GpuConfig, mode: Mode) -> Target {
    let family = gpu.processor.family();
    Target { processor: gpu.processor, wave64: !family.is_rdna() || gpu.wave_size == 64, wgp_mode: family.is_rdna() && mode == Mode::WGP, tgsplit: false }
}

/// The kernel `test` runs as on `target` (every thread on its own work-group, no XCD
/// constraint): its bytes and listing, without a device.
pub fn compile(test: &Litmus, target: &Target) -> Result<Assembled, HardwareError> {
    let groups = place(test, 1, false);
    let kernel = codegen::generate(test, target, target.wave64, &groups, None)?;
    assemble::assemble(&kernel, target.processor, target.wave64)
        .map_err(|e| HardwareError::Gpu { gpu: target.config_name(), message: format!("internal: {e}") })
}

/// The compiled test, ready to run many times on one device.
pub struct Prepared {
    gpu: GpuConfig,
    target: Target,
    device: Device,
    kernel: LoadedKernel,
    geometry: Geometry,
    kernarg: Vec<u8>,
    /// Where the delays start in `kernarg`, how many there are (one per thread), and the
    /// largest delay in loop iterations.
    delays_at: usize,
    delays: usize,
    max_delay: u64,
    locations: u64,
    results: u64,
    /// Per result slot, (thread, register).
    slots: Vec<codegen::ResultSlot>,
    /// The first litmus work-group (a local location named without one means its copy).
    first_group: u32,
    /// Each location's initial value and type.
    inits: Vec<(Value, ValueType)>,
    /// The type of each result slot's value.
    slot_types: Vec<ValueType>,
    listing: Vec<Listed>,
    /// The dispatch work-group of each litmus thread, and the stress work-groups.
    groups: Vec<u32>,
    stress_groups: Vec<u32>,
}

/// The type of the value a result slot receives.
fn slot_type(test: &Litmus, slot: codegen::ResultSlot) -> ValueType {
    match slot {
        codegen::ResultSlot::Reg(t, r) => test.threads.get(t).map_or(ValueType::INT, |t| t.reg_type(r)),
        codegen::ResultSlot::Local(_, loc) => test.loc_type(loc),
    }
}

impl Prepared {
    /// Compile `test` for `gpu` in `mode` and set up the device.
    pub fn new(test: &Litmus, gpu: &GpuConfig, mode: Mode, one_xcd: bool) -> Result<Prepared, HardwareError> {
        let want = if one_xcd { placement::Where::SameXcd } else { placement::Where::Spread };
        Prepared::with(test, gpu, mode, &Setup { placement: Some(want), stress: None, ..Setup::default() })
    }

    /// Compile `test` for `gpu` in `mode` with `setup`'s placement and stress, and set up the
    /// device.
    pub fn with(test: &Litmus, gpu: &GpuConfig, mode: Mode, setup: &Setup) -> Result<Prepared, HardwareError> {
        let err = |message: String| HardwareError::Gpu { gpu: gpu.name.clone(), message };
        if let Some(why) = placement::refusal(test, gpu) {
            return Err(why.into());
        }
        let target = target_of(gpu, mode);
        let groups = placement::dispatch_groups(test, gpu, mode, setup.placement.unwrap_or(placement::Where::Spread))?;
        let stress_code = setup.stress.map(|s| codegen::StressCode { groups: stress::groups_beside(&groups, s.groups), lines: s.lines, pattern: s.pattern });
        let kernel = codegen::generate(test, &target, target.wave64, &groups, stress_code.as_ref())?;
        let asm = assemble::assemble(&kernel, gpu.processor, target.wave64).map_err(|e| err(format!("internal: {e}")))?;
        let mut device = Device::for_gpu(gpu);
        device.enable_timing(gpu).map_err(err)?;
        let stress_at = codegen::stress_args_at(kernel.locations, kernel.results.len(), test.threads.len());
        let kernarg_bytes = match setup.stress {
            Some(s) => stress_at + 8 + 8 * s.lines as usize,
            None => 8 * (kernel.locations + kernel.results.len()) + 4 * test.threads.len(),
        } as u32;
        let descriptor = assemble::descriptor(gpu.processor, target.wave64, target.wgp_mode, target.tgsplit, kernel.vgprs, kernarg_bytes, kernel.lds_bytes);
        let name = format!("litmus:{}", test.name);
        let raw = RawKernel {
            name: &name,
            processor: gpu.processor,
            wave64: target.wave64,
            descriptor,
            vgprs: kernel.vgprs,
            code: &asm.code,
            entry: assemble::ENTRY,
        };
        let loaded = device.load_code(&raw).map_err(|e| err(e.to_string()))?;
        let lanes: u32 = if target.wave64 { 64 } else { 32 };
        let waves = test.threads.iter().map(|t| t.placement.wave + 1).max().unwrap_or(1);
        let last_stress = stress_code.as_ref().and_then(|c| c.groups.iter().copied().max());
        let group_count = groups.iter().copied().chain(last_stress).max().unwrap_or(0) + 1;
        let block = waves * lanes;
        let geometry = Geometry { grid: [group_count * block, 1, 1], block: [block, 1, 1], dynamic_lds: 0 };
        // The stress lines after the locations, in the same allocation: line j at
        // `stride · j` past the channel after the last location's.
        let stress_bytes = setup.stress.map_or(0, |s| s.stride_bytes as usize * s.lines as usize);
        let location_bytes = (LOCATION_STRIDE as usize) * kernel.locations.max(1);
        let locations = device.alloc("litmus locations", location_bytes + stress_bytes, MemoryKind::Device);
        let results = device.alloc("litmus results", (RESULT_STRIDE as usize) * kernel.results.len().max(1), MemoryKind::Device);
        let mut kernarg = Vec::with_capacity(kernarg_bytes as usize);
        for k in 0..kernel.locations as u64 {
            kernarg.extend_from_slice(&(locations + k * LOCATION_STRIDE).to_le_bytes());
        }
        for slot in 0..kernel.results.len() as u64 {
            kernarg.extend_from_slice(&(results + RESULT_STRIDE * slot).to_le_bytes());
        }
        let delays_at = kernarg.len();
        kernarg.resize(delays_at + 4 * test.threads.len(), 0);
        if let Some(s) = setup.stress {
            kernarg.resize(stress_at, 0);
            kernarg.extend_from_slice(&u64::from(s.iterations).to_le_bytes());
            for j in 0..u64::from(s.lines) {
                kernarg.extend_from_slice(&(locations + location_bytes as u64 + j * u64::from(s.stride_bytes)).to_le_bytes());
            }
        }
        Ok(Prepared {
            gpu: gpu.clone(),
            target,
            device,
            kernel: loaded,
            geometry,
            kernarg,
            delays_at,
            delays: test.threads.len(),
            max_delay: delay_window_cycles(gpu) / CYCLES_PER_DELAY_ITERATION,
            locations,
            results,
            slot_types: kernel.results.iter().map(|slot| slot_type(test, *slot)).collect(),
            slots: kernel.results,
            first_group: test.threads.first().map_or(0, |t| t.placement.workgroup),
            inits: test.locations.iter().map(|l| (l.init, l.ty)).collect(),
            listing: asm.listing,
            stress_groups: stress_code.map(|c| c.groups).unwrap_or_default(),
            groups,
        })
    }

    /// The dispatch work-group each litmus thread runs in.
    pub fn thread_groups(&self) -> &[u32] {
        &self.groups
    }

    /// The dispatch work-groups that run stress.
    pub fn stress_groups(&self) -> &[u32] {
        &self.stress_groups
    }

    /// One run with `seed` watched by `observer` (where waves were placed, what the memory
    /// system did).
    pub fn watch(&mut self, seed: u64, observer: &mut dyn Observer) -> Result<FinalValues, HardwareError> {
        self.run_observed(seed, Some(observer))
    }

    /// The code the test runs as.
    pub fn listing(&self) -> &[Listed] {
        &self.listing
    }

    /// One run from empty caches with `seed`: every register and location value.
    pub fn run_once(&mut self, seed: u64) -> Result<FinalValues, HardwareError> {
        self.run_observed(seed, None)
    }

    /// Replay `seed` watching the memory system, and tell the litmus threads' accesses and
    /// cache actions in issue order: cycle, thread, source line, instruction, the level that
    /// served it (or the lines an invalidate dropped, a write-back wrote).
    pub fn story(&mut self, seed: u64, test: &Litmus) -> Result<Vec<String>, HardwareError> {
        let mut seen = Happenings { rdna: self.gpu.processor.family().is_rdna(), ..Happenings::default() };
        self.run_observed(seed, Some(&mut seen))?;
        let mut events: Vec<(u64, String)> = Vec::new();
        for (issue, pc, what) in seen.events {
            let Some(listed) = self.listing.iter().find(|l| l.address == pc) else { continue };
            // The threads' own vector accesses and cache maintenance (not the scalar loads of
            // addresses and delays, nor the results' stores, which have no source line).
            let (Some(thread), true) = (listed.thread, listed.line > 0 && listed.flags & (flags::SALU | flags::SMRD) == 0) else { continue };
            let name = test.threads.get(thread).map_or("?", |t| t.name.as_str());
            events.push((issue, format!("{name} line {}: {} — {what}", listed.line, listed.text)));
        }
        events.sort();
        let start = events.first().map_or(0, |e| e.0);
        Ok(events.into_iter().map(|(at, s)| format!("+{} cycles: {s}", at - start)).collect())
    }

    fn run_observed(&mut self, seed: u64, observer: Option<&mut dyn Observer>) -> Result<FinalValues, HardwareError> {
        let fault = |message: String| HardwareError::Fault { gpu: self.gpu.name.clone(), seed, message };
        self.device.reset_caches();
        for (k, (init, ty)) in self.inits.iter().enumerate() {
            // The value's two's-complement bytes at the type's width, little-endian.
            let bytes = (*init as u64).to_le_bytes();
            self.device.write(self.locations + k as u64 * LOCATION_STRIDE, &bytes[..usize::from(ty.bytes())]).map_err(|e| fault(format!("{e:?}")))?;
        }
        for slot in 0..self.slots.len() as u64 {
            self.device.write(self.results + RESULT_STRIDE * slot, &[0; RESULT_STRIDE as usize]).map_err(|e| fault(format!("{e:?}")))?;
        }
        // Each thread's start delay, from the seed (a stream apart from the engine's).
        let mut rng = StdRng::seed_from_u64(seed ^ 0x6c69_746d_7573_0001);
        for chunk in self.kernarg[self.delays_at..self.delays_at + 4 * self.delays].chunks_exact_mut(4) {
            chunk.copy_from_slice(&(rng.random_range(0..=self.max_delay) as u32).to_le_bytes());
        }
        let opts = EngineOptions { seed, ..EngineOptions::default() };
        self.device.launch_observed(&self.kernel, self.geometry, std::slice::from_ref(&self.kernarg), &opts, observer).map_err(|e| fault(e.to_string()))?;
        self.device.synchronize();
        // A value of type `ty` from its bytes at `addr`.
        let read = |addr: u64, ty: ValueType| {
            let bits = if ty.wide() { self.device.mem.read_u64(addr) } else { self.device.mem.read_u32(addr).map(u64::from) };
            bits.map(|b| ty.wrap(Value::from(b))).map_err(|e| fault(format!("{e:?}")))
        };
        let (mut regs, mut local) = (BTreeMap::new(), BTreeMap::new());
        for (slot, key) in self.slots.iter().enumerate() {
            let ty = self.slot_types.get(slot).copied().unwrap_or(ValueType::INT);
            let value = read(self.results + RESULT_STRIDE * slot as u64, ty)?;
            match *key {
                codegen::ResultSlot::Reg(t, r) => regs.insert((t, r), value),
                codegen::ResultSlot::Local(w, loc) => local.insert((w, loc), value),
            };
        }
        let memory = self.inits.iter().enumerate().map(|(k, (_, ty))| read(self.locations + k as u64 * LOCATION_STRIDE, *ty)).collect::<Result<Vec<_>, _>>()?;
        Ok(FinalValues { regs, memory, local, first_group: self.first_group })
    }
}

/// The values one run ended with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinalValues {
    pub regs: BTreeMap<(usize, crate::litmus::RegId), Value>,
    /// Global locations (a local location's entry is unused).
    pub memory: Vec<Value>,
    /// Local locations, per litmus work-group.
    pub local: BTreeMap<(u32, crate::litmus::LocId), Value>,
    first_group: u32,
}

impl FinalValues {
    pub fn value(&self, term: &Term) -> Value {
        match term {
            Term::Const(v) => *v,
            Term::Reg { thread, reg } => self.regs.get(&(*thread as usize, *reg)).copied().unwrap_or(0),
            Term::Loc { loc, workgroup } => match self.local.get(&(workgroup.unwrap_or(self.first_group), *loc)) {
                Some(v) => *v,
                None => self.memory.get(loc.0 as usize).copied().unwrap_or(0),
            },
        }
    }
}

/// The dispatch work-group of each thread: threads of one litmus work-group share one;
/// distinct work-groups get distinct ones, in order of first appearance, so that they land on
/// different CUs (and XCDs); a thread that names an XCD gets a work-group index ≡ that XCD
/// (mod the XCD count), the dispatcher's round-robin order.
fn place(test: &Litmus, xcds: u32, one_xcd: bool) -> Vec<u32> {
    let mut given: BTreeMap<u32, u32> = BTreeMap::new();
    let mut used: Vec<u32> = Vec::new();
    let mut out = Vec::with_capacity(test.threads.len());
    for t in &test.threads {
        let p = t.placement;
        let g = *given.entry(p.workgroup).or_insert_with(|| {
            let xcd = p.xcd.or(one_xcd.then_some(0));
            let fits = |g: &u32| !used.contains(g) && xcd.is_none_or(|x| g % xcds == x % xcds);
            let g = (0..).find(fits).unwrap_or(0);
            used.push(g);
            g
        });
        out.push(g);
    }
    out
}

/// Run `test` `runs.count` times on `gpu` in `mode`; a test with threads on several GPUs
/// (agents) runs on the node of `gpu`s that holds them ([`agents`]).
pub fn run(test: &Litmus, gpu: &GpuConfig, mode: Mode, runs: Runs) -> Result<HardwareReport, HardwareError> {
    run_with(test, gpu, mode, runs, &Setup::default())
}

/// What the report calls `want` on `gpu` in `mode`.
fn placement_name(gpu: &GpuConfig, mode: Mode, want: placement::Where) -> String {
    let one_l2 = gpu.timing.as_ref().map_or(1, |t| t.topology.xcds) <= 1;
    match want {
        placement::Where::SameCu if target_of(gpu, mode).wgp_mode => "one WGP",
        placement::Where::SameCu => "one CU",
        _ if one_l2 => "one L2",
        placement::Where::SameXcd => "one XCD",
        placement::Where::OtherXcd => "an XCD each",
        placement::Where::Spread => "spread over XCDs",
    }
    .into()
}

/// Run `test` `runs.count` times on `gpu` in `mode`, placed and stressed as `setup` says; a
/// test with threads on several GPUs (agents) runs on the node of `gpu`s that holds them
/// ([`agents`]), unstressed and placed as its threads say.
pub fn run_with(test: &Litmus, gpu: &GpuConfig, mode: Mode, runs: Runs, setup: &Setup) -> Result<HardwareReport, HardwareError> {
    if agents::spans_agents(test) {
        return run_on_node(test, gpu, mode, runs, setup.host_memory);
    }
    let want = setup.placement.unwrap_or(if runs.one_xcd { placement::Where::SameXcd } else { placement::Where::Spread });
    let mut prepared = Prepared::with(test, gpu, mode, &Setup { placement: Some(want), ..*setup })?;
    let (outcomes, observed, first) = tally(test, runs, |seed| prepared.run_once(seed))?;
    let story = match first {
        Some(seed) => prepared.story(seed, test)?,
        None => Vec::new(),
    };
    Ok(HardwareReport {
        gpu: gpu.name.clone(),
        mode: if prepared.target.wgp_mode { "WGP".into() } else { "CU".into() },
        build: prepared.target.config_name(),
        runs: runs.count,
        first_seed: runs.seed,
        placement: placement_name(gpu, mode, want),
        stress: setup.stress.map(|s| s.to_string()),
        outcomes,
        condition_observed: observed,
        condition_first_seed: first,
        story,
        listing: prepared.listing,
    })
}

/// A test whose threads run on several agents of a node (GPUs, host CPU cores), one kernel per
/// GPU and one core per host thread, run together. No memory-system story is told for it (the
/// story follows one GPU's memory system).
fn run_on_node(test: &Litmus, gpu: &GpuConfig, mode: Mode, runs: Runs, host_memory: host::HostAlloc) -> Result<HardwareReport, HardwareError> {
    let mut on = agents::OnNode::new(test, gpu, mode, runs.one_xcd, host_memory)?;
    let (outcomes, observed, first) = tally(test, runs, |seed| on.run_once(seed))?;
    let gpus: Vec<String> = on.gpus().iter().map(usize::to_string).collect();
    let (gpus, hosts) = (if gpus.len() == 1 { format!("GPU {}", gpus[0]) } else { format!("GPUs {}", gpus.join(", ")) }, on.host_threads());
    let placement = match on.host_alloc {
        Some(alloc) => format!("{gpus} and {hosts} host CPU core(s) of node {}, run together; locations {}", on.node, alloc.name()),
        None => format!("{gpus} of node {}, run together", on.node),
    };
    Ok(HardwareReport {
        gpu: gpu.name.clone(),
        mode: if on.target.wgp_mode { "WGP".into() } else { "CU".into() },
        build: on.target.config_name(),
        runs: runs.count,
        first_seed: runs.seed,
        placement,
        stress: None,
        outcomes,
        condition_observed: observed,
        condition_first_seed: first,
        story: Vec::new(),
        listing: on.listing(),
    })
}

/// Run `runs.count` seeds with `run_once`: the final states seen (most frequent first), how
/// many runs satisfied the condition, and the first seed that did.
fn tally(
    test: &Litmus,
    runs: Runs,
    mut run_once: impl FnMut(u64) -> Result<FinalValues, HardwareError>,
) -> Result<(Vec<Observed>, u64, Option<u64>), HardwareError> {
    let mut terms: Vec<Term> = Vec::new();
    let mut add = |t: &Term| {
        if !matches!(t, Term::Const(_)) && !terms.contains(t) {
            terms.push(*t);
        }
    };
    if let Some(c) = &test.condition {
        c.prop.for_each_term(&mut add);
    }
    test.observed.iter().for_each(&mut add);
    if terms.is_empty() {
        // No condition: every register and location is the state.
        for (i, t) in test.threads.iter().enumerate() {
            for r in 0..t.regs.len() {
                terms.push(Term::Reg { thread: i as u16, reg: crate::litmus::RegId(r as u16) });
            }
        }
    }
    let mut seen: BTreeMap<String, Observed> = BTreeMap::new();
    let (mut observed, mut first) = (0, None);
    for i in 0..runs.count {
        let seed = runs.seed + i;
        let fin = run_once(seed)?;
        let value = |t: &Term| fin.value(t);
        let satisfies = test.condition.as_ref().is_some_and(|c| c.prop.holds(&value));
        if satisfies {
            observed += 1;
            first.get_or_insert(seed);
        }
        let state = describe(test, &terms, &fin);
        seen.entry(state.clone()).or_insert(Observed { state, count: 0, first_seed: seed, satisfies }).count += 1;
    }
    let mut outcomes: Vec<Observed> = seen.into_values().collect();
    outcomes.sort_by(|a, b| b.count.cmp(&a.count).then(a.first_seed.cmp(&b.first_seed)));
    Ok((outcomes, observed, first))
}

/// `P1:r0=1 x=0` for the terms of a final state.
fn describe(test: &Litmus, terms: &[Term], fin: &FinalValues) -> String {
    let name = |t: &Term| match t {
        Term::Reg { thread, reg } => {
            let th = test.threads.get(*thread as usize);
            format!("{}:{}", th.map_or("?", |t| t.name.as_str()), th.and_then(|t| t.regs.get(reg.0 as usize)).map_or("?", |s| s.as_str()))
        }
        Term::Loc { loc, .. } => test.locations.get(loc.0 as usize).map_or("?".into(), |l| l.name.clone()),
        Term::Const(v) => v.to_string(),
    };
    terms.iter().map(|t| format!("{}={}", name(t), fin.value(t))).collect::<Vec<_>>().join(" ")
}
