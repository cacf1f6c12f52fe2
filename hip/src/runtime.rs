//! The simulated GPUs behind the HIP calls: the node's devices ([`crate::node`]), the code objects the program and its
//! libraries registered ([`crate::registry`]), the allocations, the simulated timeline, and
//! what each kernel cost.
//!
//! Configured by the environment `hipscope exec` sets: `HIPSCOPE_GPU` (a built-in name or a
//! config file; default mi300a), `HIPSCOPE_DEVICES` (that many of it; default 1), `HIPSCOPE_MODE` (`functional` or `timing`; default
//! functional), `HIPSCOPE_SEED` (the engine's interleaving seed; default 0), `HIPSCOPE_THREADS` (host threads a
//! functional dispatch may run on: a count, or `auto`, the default: `hipscope_sim::Threads`), `HIPSCOPE_SAMPLE` (sampled timing: `off`, `on`,
//! `kernels`, `work-groups`; default off) and
//! `HIPSCOPE_KERNEL_TRACE`, `HIPSCOPE_COUNTERS` (CSV files with one row per launch) and
//! `HIPSCOPE_REPORT` (a JSON file written at exit).

use crate::abi;
use crate::hostcall::Hostcall;
use crate::memory::Allocations;
use crate::node::{Gpu, NodeSpec};
use crate::registry::{FunctionRef, KernelMissing, Registry};
use crate::timeline::{Engine, Timeline};
use crate::trace::{CounterLog, KernelTrace};
use hipscope_isa::codeobj::{self, HiddenKind, ValueKind};
use hipscope_race::detector::Detector;
use hipscope_race::runs::KernelGrade;
use hipscope_race::runs::Names;
use hipscope_race::story::{Focus, Story, Told};
use hipscope_sim::counters::Counter;
use hipscope_sim::gpus::GpuConfig;
use hipscope_sim::kernel::LoadedKernel;
use hipscope_sim::launch::Hooks;
use hipscope_sim::node::Agent;
use hipscope_sim::observe::{Fan, Observer};
use hipscope_sim::sample::{SamplePolicy, SampleSummary};
use hipscope_sim::sched::WorkGroupSampling;
use hipscope_sim::{EngineOptions, FaultKind, Geometry, KernelFault, LaunchError, Mode, Threads};
use std::collections::{BTreeMap, BTreeSet};

/// HIP error codes used by the runtime (`hipError_t`; [`abi::ERRORS`] has them all).
pub mod error {
    pub const SUCCESS: u32 = 0;
    pub const INVALID_VALUE: u32 = 1;
    pub const OUT_OF_MEMORY: u32 = 2;
    pub const NOT_INITIALIZED: u32 = 3;
    pub const INVALID_CONFIGURATION: u32 = 9;
    pub const INVALID_PITCH_VALUE: u32 = 12;
    pub const INVALID_SYMBOL: u32 = 13;
    pub const INVALID_DEVICE_POINTER: u32 = 17;
    pub const INVALID_MEMCPY_DIRECTION: u32 = 21;
    pub const INVALID_DEVICE_FUNCTION: u32 = 98;
    pub const INVALID_DEVICE: u32 = 101;
    pub const PEER_ACCESS_UNSUPPORTED: u32 = 217;
    pub const INVALID_IMAGE: u32 = 200;
    pub const NO_BINARY_FOR_GPU: u32 = 209;
    pub const FILE_NOT_FOUND: u32 = 301;
    pub const INVALID_HANDLE: u32 = 400;
    pub const ILLEGAL_STATE: u32 = 401;
    pub const NOT_FOUND: u32 = 500;
    pub const NOT_READY: u32 = 600;
    pub const CONTEXT_IS_DESTROYED: u32 = 709;
    pub const PEER_ACCESS_ALREADY_ENABLED: u32 = 704;
    pub const PEER_ACCESS_NOT_ENABLED: u32 = 705;
    pub const LAUNCH_FAILURE: u32 = 719;
    pub const COOPERATIVE_LAUNCH_TOO_LARGE: u32 = 720;
    pub const NOT_SUPPORTED: u32 = 801;
}

/// LDS per work-group of a GPU config without a timing section: 64 KiB, every AMD GPU's
/// before gfx950.
pub const DEFAULT_LDS_BYTES: u64 = 65_536;

/// One kernel's launches, for the summary printed at exit.
#[derive(Debug, Default, Clone)]
pub struct KernelStats {
    pub launches: u64,
    pub cycles: u64,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub instructions: u64,
    /// Timing mode: L2 hits and misses over its launches.
    pub l2_hits: u64,
    pub l2_misses: u64,
    /// Work-group sampling: launches sampled, work-groups detailed, fast-forwarded and not
    /// executed (`--sample skip`), and the largest estimated error of a launch (percent).
    pub sampled_launches: u64,
    pub detailed_groups: u64,
    pub fast_forwarded_groups: u64,
    pub unexecuted_groups: u64,
    pub sampled_error_pct: f64,
    /// Sampled timing: launches run functionally and charged a predicted time.
    pub predicted: u64,
}

/// One launch, for `--report`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LaunchRecord {
    pub kernel: String,
    /// Work-group sampling asked for: what was detailed, fast-forwarded, the estimated error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampled: Option<String>,
    /// The GPU it ran on (a node of several GPUs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<usize>,
    pub stream: usize,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_lds: u32,
    pub start_ns: f64,
    pub end_ns: f64,
    pub cycles: Option<u64>,
    pub instructions: u64,
    pub waves: u64,
    pub counters: BTreeMap<String, u64>,
    /// Sampled timing: the launch ran functionally; its cycles and counters are its cluster's
    /// prediction ([`hipscope_sim::sample`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub predicted: bool,
}

pub struct Runtime {
    pub node: NodeSpec,
    /// The node's GPUs, by ordinal.
    pub gpus: Vec<Gpu>,
    /// The calling host thread's current device (`hipSetDevice`), set at each call.
    pub current: usize,
    pub mode: Mode,
    pub seed: u64,
    /// Host threads a functional dispatch may run on.
    pub threads: Threads,
    /// `HIPSCOPE_SAMPLE`: sampled timing; the kernel level is each device's
    /// ([`hipscope_sim::launch::Device::set_sampling`]), set where launches run alone.
    pub sample: SamplePolicy,
    /// `HIPSCOPE_NO_PROGRESS`: the no-progress bound (`EngineOptions::no_progress`); `None`:
    /// the engine's default.
    pub no_progress: Option<u64>,
    /// `HIPSCOPE_WG_SAMPLE`: work-group-level sampling of long dispatches in timing mode
    /// (`EngineOptions::work_group_sampling`).
    pub work_group_sampling: Option<WorkGroupSampling>,
    /// The GPUs' target id in its XNACK/SRAMECC modes: which code objects they run (one
    /// target per node).
    pub target: hipscope_isa::Target,
    /// Every registered or loaded code object, its kernels and variables.
    pub registry: Registry,
    pub memory: Allocations,
    /// Per (device, kernel symbol).
    pub stats: BTreeMap<(usize, String), KernelStats>,
    pub timeline: Timeline,
    pub trace: Option<KernelTrace>,
    pub counter_log: Option<CounterLog>,
    /// `HIPSCOPE_REPORT`: where the JSON report goes at exit, and the launches it lists.
    pub report: Option<std::path::PathBuf>,
    pub launches: Vec<LaunchRecord>,
    /// `HIPSCOPE_RACES`: race detection on every launch (`hipscope grade --exec`), and
    /// where the per-kernel findings go at exit.
    pub races: Option<RaceLog>,
    /// `HIPSCOPE_STORY`: a race to watch in the timing model (`hipscope grade --exec
    /// --timing`): the file holds what to watch, and gets the story at exit.
    pub story: Option<StoryJob>,
    finished: bool,
    /// Launches waiting for the next flush (a node of several GPUs, [`crate::cosim`]).
    pub queued: Vec<crate::cosim::Queued>,
    pub last_error: u32,
    /// The last error any call returned since `hipGetLastError` read it (HIP 7 semantics).
    pub sticky_error: u32,
    /// APIs already reported as not supported (each is reported once).
    pub unsupported_seen: BTreeSet<String>,
    /// Host threads taking turns with the kernels ([`crate::host_agent`]).
    pub host_turns: crate::host_agent::Session,
    /// What one host access to host memory costs (ps), found at the first need.
    host_access_ps: Option<u64>,
    /// The program has recorded a HIP event ([`Runtime::note_event`]).
    event_recorded: bool,
}

/// `hipscope grade --exec`: a launch of `kernel` on a GPU of `config` stopped by a livelock or
/// the no-progress bound (`f`): its facts, with how many of its work-groups the GPU holds at
/// once, join the kernel's findings in `log`. Whether they did (the caller writes the log now:
/// the fault ends the program).
fn log_stuck(
    log: &mut RaceLog,
    config: &GpuConfig,
    k: &LoadedKernel,
    f: &KernelFault,
    lines: Option<&hipscope_isa::codeobj::lines::LineTable>,
    geo: Geometry,
    seed: u64,
) -> bool {
    let (FaultKind::Livelock(stuck) | FaultKind::NoProgressBound(stuck)) = &f.kind else { return false };
    let Some(grade) = log.kernels.get_mut(&k.name) else { return false };
    let facts = hipscope_sim::fault::Stuck { gpu_groups_fit: hipscope_race::runs::gpu_groups_fit(config, k, geo), ..(**stuck).clone() };
    let default = Default::default();
    grade.stuck.get_or_insert_with(|| hipscope_race::runs::StuckRun::new(facts, seed, lines.unwrap_or(&default)));
    true
}

/// Race detection across a program's launches, per kernel symbol.
pub struct RaceLog {
    pub path: std::path::PathBuf,
    pub kernels: BTreeMap<String, KernelGrade>,
}

/// A race to tell the memory-system story of: at the first launch of its kernel.
pub struct StoryJob {
    pub path: std::path::PathBuf,
    pub focus: Focus,
    pub told: Option<Told>,
}

/// The runtime for the GPU and mode the environment names; the error says what is wrong.
pub fn from_env() -> Result<Runtime, String> {
    let node = NodeSpec::from_env()?;
    let mode = match std::env::var("HIPSCOPE_MODE") {
        Ok(name) => Mode::parse(&name).ok_or_else(|| format!("HIPSCOPE_MODE={name}: expected functional or timing"))?,
        Err(_) => Mode::Functional,
    };
    let seed = match std::env::var("HIPSCOPE_SEED") {
        Ok(s) => s.parse().map_err(|_| format!("HIPSCOPE_SEED={s}: expected an unsigned integer"))?,
        Err(_) => 0,
    };
    let threads = match std::env::var("HIPSCOPE_THREADS") {
        Ok(s) => Threads::parse(&s).ok_or_else(|| format!("HIPSCOPE_THREADS={s}: expected an unsigned integer or auto"))?,
        Err(_) => Threads::Auto,
    };
    let sample = match std::env::var("HIPSCOPE_SAMPLE") {
        Ok(s) => SamplePolicy::parse(&s).ok_or_else(|| format!("HIPSCOPE_SAMPLE={s}: expected off, on, kernels, work-groups or skip"))?,
        Err(_) => SamplePolicy::OFF,
    };
    let no_progress = match std::env::var("HIPSCOPE_NO_PROGRESS") {
        Ok(s) => Some(s.parse().map_err(|_| format!("HIPSCOPE_NO_PROGRESS={s}: expected an unsigned integer"))?),
        Err(_) => None,
    };
    let work_group_sampling = match std::env::var("HIPSCOPE_WG_SAMPLE") {
        Ok(s) => wg_sampling(&s).map_err(|e| format!("HIPSCOPE_WG_SAMPLE={s}: {e}"))?.map(|w| WorkGroupSampling { skip: sample.skip, ..w }),
        // `--sample on|work-groups|skip` without parameters of its own: the defaults.
        Err(_) => WorkGroupSampling::for_policy(sample),
    };
    let trace = match std::env::var_os("HIPSCOPE_KERNEL_TRACE") {
        Some(path) => Some(KernelTrace::create(path.into())?),
        None => None,
    };
    let counter_log = match std::env::var_os("HIPSCOPE_COUNTERS") {
        Some(path) => Some(CounterLog::create(path.into())?),
        None => None,
    };
    let report = std::env::var_os("HIPSCOPE_REPORT").map(std::path::PathBuf::from);
    let races = std::env::var_os("HIPSCOPE_RACES").map(|p| RaceLog { path: p.into(), kernels: BTreeMap::new() });
    let story = match std::env::var_os("HIPSCOPE_STORY") {
        Some(p) => {
            let path = std::path::PathBuf::from(p);
            let text = std::fs::read_to_string(&path).map_err(|e| format!("HIPSCOPE_STORY={}: {e}", path.display()))?;
            let focus = serde_json::from_str(&text).map_err(|e| format!("HIPSCOPE_STORY={}: {e}", path.display()))?;
            Some(StoryJob { path, focus, told: None })
        }
        None => None,
    };
    let target = node.gpus().first().ok_or("a node without GPUs")?.target();
    if let Some(g) = node.gpus().iter().find(|g| g.target() != target) {
        return Err(format!(
            "node {}: GPUs of different targets ({} and {}) in one node are not supported yet",
            node.name(),
            target.target_id(),
            g.target().target_id()
        ));
    }
    let mut gpus = node.gpus().iter().enumerate().map(|(i, g)| Gpu::new(g.clone(), i, mode.is_timing(), node.links())).collect::<Result<Vec<_>, _>>()?;
    // Launches a race detector or a story watches run in detail: they watch every cycle.
    if mode.is_timing() && races.is_none() && story.is_none() {
        for g in &mut gpus {
            g.device.set_sampling(sample);
        }
    }
    Ok(Runtime {
        timeline: Timeline::default(),
        target,
        node,
        gpus,
        current: 0,
        mode,
        seed,
        threads,
        sample,
        no_progress,
        work_group_sampling,
        registry: Registry::default(),
        memory: Allocations::default(),
        stats: BTreeMap::new(),
        trace,
        counter_log,
        report,
        launches: Vec::new(),
        races,
        story,
        finished: false,
        queued: Vec::new(),
        last_error: error::SUCCESS,
        sticky_error: error::SUCCESS,
        unsupported_seen: BTreeSet::new(),
        host_turns: Default::default(),
        host_access_ps: None,
        event_recorded: false,
    })
}

impl Runtime {
    /// Make `d` the current device of this call (the calling thread's, `hipSetDevice`).
    pub fn select(&mut self, d: usize) {
        self.current = d.min(self.gpus.len() - 1);
        self.timeline.current = self.current;
    }

    /// The current device's config.
    pub fn gpu(&self) -> &GpuConfig {
        &self.gpus[self.current].config
    }

    /// The device address and size of a registered variable (by its host shadow's address) on
    /// the current device; its module is loaded there at the first such question.
    pub fn variable(&mut self, host: usize) -> Option<(u64, u64)> {
        let var = self.registry.variables.get(&host)?.clone();
        let loaded = self.registry.loaded(var.module, &mut self.gpus[self.current].device, self.current, &self.target).ok()?;
        let sym = loaded.co.data_symbols.iter().find(|d| d.name == var.name)?;
        Some((sym.address, sym.size.max(var.size)))
    }

    /// The kernel registered for a host stub (or `hipFunction_t`), prepared for the current
    /// device.
    pub fn kernel(&mut self, stub: usize) -> Result<&LoadedKernel, LaunchFailure> {
        let f = self.registry.functions.get(&stub).ok_or(LaunchFailure::UnknownFunction)?.clone();
        self.registry.kernel(&f, &mut self.gpus[self.current].device, self.current, &self.target).map_err(LaunchFailure::from)
    }

    /// Launch the kernel registered for `stub` on `stream` with the arguments' bytes.
    pub fn launch(&mut self, stub: usize, geo: Geometry, args: *const *const u8, stream: usize) -> Result<(), LaunchFailure> {
        let f = self.registry.functions.get(&stub).ok_or(LaunchFailure::UnknownFunction)?.clone();
        let d = self.timeline.device_of(stream);
        let kernel = self.registry.kernel(&f, &mut self.gpus[d].device, d, &self.target)?;
        let user: Vec<u64> = kernel.kernarg.as_ref().map_or_else(Vec::new, |l| l.args.iter().filter(|a| !a.value_kind.is_hidden()).map(|a| a.size).collect());
        if args.is_null() && !user.is_empty() {
            return Err(LaunchFailure::BadArguments);
        }
        let mut values = Vec::with_capacity(user.len());
        for (i, size) in user.iter().enumerate() {
            // SAFETY: HIP's launch contract: one pointer per kernel argument.
            let p = unsafe { *args.add(i) };
            if p.is_null() {
                return Err(LaunchFailure::BadArguments);
            }
            // SAFETY: HIP's launch contract: `args[i]` points to the i-th argument's value,
            // of the size the kernel's metadata gives.
            values.push(unsafe { std::slice::from_raw_parts(p, *size as usize) }.to_vec());
        }
        self.launch_values(&f, geo, &values, stream)
    }

    /// Launch a registered kernel with its user arguments' bytes, on the device of `stream`:
    /// at once on a lone GPU, queued until the next flush on a node of several
    /// ([`crate::cosim`]).
    pub fn launch_values(&mut self, f: &FunctionRef, geo: Geometry, values: &[Vec<u8>], stream: usize) -> Result<(), LaunchFailure> {
        let host_turns = self.arm_host_turns();
        if !self.queues_launches() && !host_turns {
            return self.run_launch(f, geo, values, stream);
        }
        let d = self.timeline.device_of(stream);
        // Loaded now, so that a kernel without code for the GPU fails at its launch.
        self.registry.kernel(f, &mut self.gpus[d].device, d, &self.target)?;
        self.queued.push(crate::cosim::Queued { f: f.clone(), geo, values: values.to_vec(), stream, device: d });
        Ok(())
    }

    /// A launch is coming: when the program has host-visible memory, its host threads take
    /// turns with the kernels until the next flush ([`crate::host_agent`]); whether they do.
    /// Race detection watches the host threads as one more agent of the group
    /// (`hipscope_race::detector::host`); the timing story watches a launch run alone
    /// (`run_launch`), so on a lone GPU with it on, launches keep running at once.
    fn arm_host_turns(&mut self) -> bool {
        if !self.queues_launches() && self.story.is_some() {
            return false;
        }
        let ranges = self.memory.host_visible_ranges();
        self.host_turns.arm(ranges)
    }

    /// What one host load or store to host memory costs, in picoseconds: the node's host
    /// memory latency ([`crate::node::NodeSpec::host_memory_latency_ns`]), at least 1 ns, so
    /// a spinning host thread always moves simulated time.
    pub fn host_access_ps(&mut self) -> u64 {
        let node = &self.node;
        *self.host_access_ps.get_or_insert_with(|| ((node.host_memory_latency_ns() * 1000.0).round() as u64).max(1000))
    }

    /// The engine's options for a launch: the seed and the no-progress bound the environment
    /// set.
    pub fn engine_options(&self) -> EngineOptions {
        let d = EngineOptions::default();
        EngineOptions {
            seed: self.seed,
            no_progress: self.no_progress.unwrap_or(d.no_progress),
            work_group_sampling: self.work_group_sampling,
            ..self.threads.apply(d)
        }
    }

    /// Run a launch now, alone.
    pub fn run_launch(&mut self, f: &FunctionRef, geo: Geometry, values: &[Vec<u8>], stream: usize) -> Result<(), LaunchFailure> {
        let d = self.timeline.device_of(stream);
        self.registry.kernel(f, &mut self.gpus[d].device, d, &self.target)?;
        self.host_to_device();
        // Scopes the code cannot show, decided from the program's code for other targets.
        let decided = self.races.as_ref().and_then(|_| self.registry.decided(f));
        let opts = self.engine_options();
        let kernel = self.registry.prepared(f).ok_or(LaunchFailure::UnknownFunction)?;
        let name = kernel.name.as_str();
        let code = self.registry.code_object(f.module);
        let wants_hostcall = kernel.kernarg.as_ref().is_some_and(|l| l.args.iter().any(|a| a.value_kind == ValueKind::Hidden(HiddenKind::HostcallBuffer)));
        let mut detector = self.races.as_ref().map(|_| Detector::new());
        if let (Some(det), Some(decided)) = (detector.as_mut(), decided) {
            det.decide(name, decided);
        }
        let mut story = self.story.as_ref().filter(|j| j.told.is_none() && j.focus.race.kernel == name).map(|j| Story::new(j.focus.clone()));
        let gpu = &mut self.gpus[d];
        let host = if wants_hostcall { Some(gpu.hostcall.get_or_insert_with(|| Hostcall::new(&mut gpu.device.mem))) } else { None };
        // The story and the detector watch the same launch when both are asked for.
        let mut parts: Vec<&mut dyn Observer> = Vec::with_capacity(2);
        parts.extend(story.as_mut().map(|s| s as &mut dyn Observer));
        parts.extend(detector.as_mut().map(|d| d as &mut dyn Observer));
        let mut watchers = Fan::new(&mut parts);
        let hooks = Hooks { host: host.map(|h| h as &mut dyn hipscope_sim::host::HostAgent), observer: watchers.observer(), turn: None };
        let result = gpu.device.launch_hooked(kernel, geo, values, &opts, hooks);
        if let (Some(job), Some(story)) = (&mut self.story, &story) {
            let default = Default::default();
            let lines = code.map_or(&default, |c| &c.lines);
            job.told = Some(hipscope_race::story::tell(story, self.seed, &Names::new(kernel, lines)));
        }
        if let (Some(log), Some(det)) = (&mut self.races, &detector) {
            let lines = code.map(|c| &c.lines);
            let default = Default::default();
            let target = self.gpus[d].config.name.clone();
            log.kernels.entry(name.to_string()).or_insert_with(|| KernelGrade::new(kernel, &target)).add_launch(
                det,
                kernel,
                lines.unwrap_or(&default),
                self.seed,
            );
        }
        if let Err(LaunchError::Fault(f)) = &result {
            let logged = self.races.as_mut().is_some_and(|log| log_stuck(log, &self.gpus[d].config, kernel, f, code.map(|c| &c.lines), geo, self.seed));
            if logged {
                self.write_races();
            }
        }
        let stats = result.map_err(|e| match e {
            LaunchError::Fault(f) => LaunchFailure::Fault(f),
            other => LaunchFailure::Setup(other.to_string()),
        })?;
        self.device_to_host();
        self.after_launch(d);
        let f = f.clone();
        self.record_launch(&f, d, geo, stream, &stats);
        Ok(())
    }

    /// The program created an event (`recorded` false) or recorded one. Once it has created
    /// one and until it records one, its launches are warm-ups: with kernel-level sampling on,
    /// each device runs them functionally and untimed ([`hipscope_sim::sample`], *Warm-up
    /// launches*). A program that never creates an event has no warm-up.
    pub(crate) fn note_event(&mut self, recorded: bool) {
        self.event_recorded |= recorded;
        let warming_up = !self.event_recorded;
        for g in &mut self.gpus {
            g.device.set_warming_up(warming_up);
        }
    }

    /// A finished launch on device `d`: placed on the timeline, traced, logged, counted.
    pub(crate) fn record_launch(&mut self, f: &FunctionRef, d: usize, geo: Geometry, stream: usize, stats: &hipscope_sim::DispatchStats) {
        let Some(kernel) = self.registry.prepared(f) else { return };
        let name = kernel.name.as_str();
        let code = self.registry.code_object(f.module);
        let cycles = stats.cycles.unwrap_or(0);
        let ms = self.ms_of(d, cycles) + crate::copy_engine::idle_launch_ms(self, stream);
        let (start, end) = self.timeline.run(stream, Engine::Compute, ms);
        if let Some(t) = &mut self.trace {
            let regs = code.and_then(|c| c.kernel(name)).map(|k| &k.registers);
            t.kernel(kernel, regs, &geo, stream, start, end);
        }
        let counters = stats.counters.as_ref().map_or_else(Vec::new, |c| c.named(kernel.family.is_rdna()));
        let l2 = |c: Counter| stats.counters.as_ref().map_or(0, |cs| cs.get(c));
        let (hits, misses) = (l2(Counter::TccHit), l2(Counter::TccMiss));
        let predicted = self.gpus[d].device.sampling().is_some_and(|s| s.last_predicted());
        if let Some(log) = &mut self.counter_log {
            log.launch(name, start, end, &counters);
        }
        if self.report.is_some() {
            self.launches.push(LaunchRecord {
                kernel: codeobj::demangle(name).unwrap_or_else(|| name.to_string()),
                device: (self.gpus.len() > 1).then_some(d),
                stream,
                grid: geo.grid,
                block: geo.block,
                dynamic_lds: geo.dynamic_lds,
                start_ns: start * 1e6,
                end_ns: end * 1e6,
                cycles: stats.cycles,
                instructions: stats.instructions,
                waves: stats.waves,
                counters: counters.iter().cloned().collect(),
                sampled: stats.sampled.as_ref().map(|s| s.to_string()),
                predicted,
            });
        }
        let s = self.stats.entry((d, name.to_string())).or_default();
        s.launches += 1;
        s.cycles += cycles;
        s.instructions += stats.instructions;
        s.l2_hits += hits;
        s.l2_misses += misses;
        s.predicted += u64::from(predicted);
        (s.grid, s.block) = (geo.grid, geo.block);
        if let Some(sampled) = &stats.sampled {
            s.sampled_launches += 1;
            s.detailed_groups += sampled.detailed_groups;
            s.fast_forwarded_groups += sampled.fast_forwarded_groups;
            s.unexecuted_groups += sampled.unexecuted_groups;
            s.sampled_error_pct = s.sampled_error_pct.max(sampled.error_pct);
        }
    }

    /// The most LDS one work-group may have: what `hipDeviceProp_t::sharedMemPerBlock` says
    /// (`properties.rs`), ROCm's `localMemSizePerCU_`, against which it checks a launch's
    /// dynamic LDS.
    pub fn lds_limit_bytes(&self) -> u64 {
        self.gpu().timing.as_ref().map_or(DEFAULT_LDS_BYTES, |t| u64::from(t.lds.size_bytes))
    }

    /// Shader cycles of device `d` as milliseconds at its clock (0 in functional mode: no
    /// timeline).
    fn ms_of(&self, d: usize, cycles: u64) -> f64 {
        let mhz = self.gpus[d].config.timing.as_ref().map_or(1000, |t| t.clock_mhz.max(1));
        cycles as f64 / (f64::from(mhz) * 1000.0)
    }

    /// Simulated time of a copy of `bytes` from GPU `from`'s memory to GPU `to`'s, on the
    /// node's link between them (0 in functional mode).
    pub fn peer_copy_ms(&self, from: usize, to: usize, bytes: u64) -> f64 {
        if !self.mode.is_timing() {
            return 0.0;
        }
        self.node.copy_ns(Agent::Gpu(from), Agent::Gpu(to), bytes).map_or(0.0, |ns| ns / 1e6)
    }

    /// Simulated time of a device-side fill of `bytes` (`hipMemset`; `copy_engine`).
    pub fn fill_ms(&self, bytes: u64) -> f64 {
        crate::copy_engine::fill_ms(self, bytes)
    }

    /// At the end of the program (its device code unregistered, or exit for a program that
    /// only loaded modules): the per-kernel summary and the report, once.
    pub fn finish(&mut self) {
        if std::mem::replace(&mut self.finished, true) {
            return;
        }
        // Launches still queued run before the program's results are told.
        if let Err(e) = self.flush() {
            crate::api::launch::report(Err(e));
        }
        eprint!("{}", self.summary());
        self.write_report();
        self.write_races();
        self.write_story();
    }

    /// `hipscope grade --exec --timing`: the story of the watched race (`null`: its kernel
    /// never ran).
    fn write_story(&self) {
        let Some(job) = &self.story else { return };
        let text = serde_json::to_string(&job.told).unwrap_or_default();
        if let Err(e) = std::fs::write(&job.path, text) {
            eprintln!("hipscope: {}: {e}", job.path.display());
        }
    }

    /// `hipscope grade --exec`: every launched kernel's findings, as JSON.
    fn write_races(&self) {
        let Some(log) = &self.races else { return };
        let grades: Vec<&KernelGrade> = log.kernels.values().collect();
        let text = serde_json::to_string(&grades).unwrap_or_default();
        if let Err(e) = std::fs::write(&log.path, text) {
            eprintln!("hipscope: {}: {e}", log.path.display());
        }
    }

    /// `--report`: the GPU, the mode, every launch and the per-kernel totals, as JSON.
    pub fn write_report(&self) {
        let Some(path) = &self.report else { return };
        let kernels: Vec<serde_json::Value> = self
            .stats
            .iter()
            .map(|((d, name), s)| {
                let mut k = serde_json::json!({
                    "kernel": codeobj::demangle(name).unwrap_or_else(|| name.clone()),
                    "symbol": name,
                    "launches": s.launches,
                    "cycles": self.mode.is_timing().then_some(s.cycles),
                    "time_ms": self.mode.is_timing().then(|| self.ms_of(*d, s.cycles)),
                    "instructions": s.instructions,
                });
                if self.gpus.len() > 1 {
                    k["device"] = serde_json::json!(d);
                }
                k
            })
            .collect();
        let doc = serde_json::json!({
            "gpu": self.gpus[0].config.name,
            "mode": self.mode.name(),
            "seed": self.seed,
            "kernels": kernels,
            "launches": self.launches,
        });
        let mut doc = doc;
        if let Some(sampled) = self.sampled() {
            doc["sample"] = serde_json::json!(self.sample.name());
            doc["sampled"] = sampled.to_json();
        }
        if self.gpus.len() > 1 {
            doc["node"] = serde_json::json!(self.node.name());
            doc["devices"] = serde_json::json!(self.gpus.len());
            doc["end_ns"] = serde_json::json!(self.timeline.end_ms() * 1e6);
        }
        let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        if let Err(e) = std::fs::write(path, text + "\n") {
            eprintln!("hipscope: {}: {e}", path.display());
        }
    }

    /// Check the fat binaries registered since the last call for code objects the simulated
    /// GPU runs, and answer one without as the program's ROCm release does: 5.x aborts the
    /// process (its `guarantee` line on stderr), 6.x and 7.x go on and fail the launches of
    /// its kernels with `hipErrorNoBinaryForGpu`, logging (with `AMD_LOG_LEVEL` 1 or more)
    /// 5.x/6.x's device and bundle listing or 7.x's one line. hipscope always says which
    /// library it is, which ROCm does not.
    pub fn check_registrations(&mut self) {
        let release = crate::abi::Release::current();
        let logging = std::env::var("AMD_LOG_LEVEL").ok().and_then(|v| v.trim().parse::<i32>().ok()).is_some_and(|l| l >= 1);
        // ROCm 5 aborts at start without a code object; 6 and 7 go on (their launches fail),
        // so there each module is checked at its first launch, unless the ROCm log asks for
        // the start-up check's lines.
        let missing = self.registry.check_pending(&self.target, release > crate::abi::Release::Hip5 && !logging);
        let mut told = std::collections::BTreeSet::new();
        for m in &missing {
            // One line per library (librocsparse registers a fat binary per source file).
            if told.insert(m.origin.clone()) {
                let count = missing.iter().filter(|o| o.origin == m.origin).count();
                let has: Vec<&str> = m.entries.iter().filter_map(|e| e.split_once("-amdgcn-amd-amdhsa-").map(|(_, t)| t.trim_start_matches('-'))).collect();
                eprintln!(
                    "hipscope: {} has no code object for the simulated {} ({}){}; it has: {}",
                    m.origin,
                    self.gpus[0].config.name,
                    self.target.target_id(),
                    if count > 1 { format!(" in any of its {count} fat binaries") } else { String::new() },
                    if has.is_empty() { "none".into() } else { has.join(", ") }
                );
            }
            if logging && release < crate::abi::Release::Hip7 {
                eprint!("{}", m.rocm_log(&self.target, release));
            } else if logging {
                eprintln!("No compatible code objects found for: {}, value of HIP_FORCE_SPIRV_CODEOBJECT: 0", self.target.target_id());
            }
        }
        if !missing.is_empty() && release == crate::abi::Release::Hip5 {
            eprintln!("\"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\"");
            // SAFETY: flushing the C streams, then aborting as ROCm 5's runtime does.
            unsafe {
                libc::fflush(std::ptr::null_mut());
                libc::abort();
            }
        }
    }

    /// Report an API the runtime lacks, once per name.
    pub fn unsupported(&mut self, name: &str) -> u32 {
        if self.unsupported_seen.insert(name.to_string()) {
            eprintln!("hipscope: {name} is not supported");
        }
        error::NOT_SUPPORTED
    }

    /// What kernel-level sampling did over every device (`None`: sampling is off).
    pub fn sampled(&self) -> Option<SampleSummary> {
        self.gpus.iter().filter_map(|g| g.device.sampling()).map(|s| s.summary()).reduce(SampleSummary::merge)
    }

    /// One line per kernel: launches, grid, block, simulated cycles and time.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        for ((d, name), s) in &self.stats {
            let mut shown = codeobj::demangle(name).unwrap_or_else(|| name.clone());
            if self.gpus.len() > 1 {
                shown = format!("gpu {d}: {shown}");
            }
            let time = if self.mode.is_timing() {
                let l2 = s.l2_hits + s.l2_misses;
                let hit = if l2 == 0 { String::new() } else { format!(", L2 hit {:.1} %", 100.0 * s.l2_hits as f64 / l2 as f64) };
                let sampled = if s.sampled_launches == 0 {
                    String::new()
                } else {
                    let skipped = if s.unexecuted_groups == 0 { String::new() } else { format!(" ({} not executed)", s.unexecuted_groups) };
                    format!(
                        ", sampled: work-groups {} detailed, {} fast-forwarded{skipped}, estimated error ±{:.1} % (the largest of a launch)",
                        s.detailed_groups, s.fast_forwarded_groups, s.sampled_error_pct
                    )
                };
                let predicted = if s.predicted == 0 { String::new() } else { format!(" ({} launch(es) predicted)", s.predicted) };
                format!(", {} cycles, {:.3} ms{predicted}{hit}{sampled}", s.cycles, self.ms_of(*d, s.cycles))
            } else {
                String::new()
            };
            out.push_str(&format!(
                "hipscope: {shown}: {} launch(es), grid {:?}, block {:?}, {} wave-instructions{time}\n",
                s.launches, s.grid, s.block, s.instructions
            ));
        }
        if let Some(sampled) = self.sampled() {
            out.push_str(&format!("hipscope: {}\n", sampled.line()));
        }
        if self.gpus.len() > 1 && self.mode.is_timing() {
            out.push_str(&format!(
                "hipscope: node {}: {} GPUs, the last operation ends at {:.6} ms\n",
                self.node.name(),
                self.gpus.len(),
                self.timeline.end_ms()
            ));
        }
        out
    }
}

/// `HIPSCOPE_WG_SAMPLE`: `off` (none), `on` (the defaults), or `key=value` pairs separated by
/// commas over the defaults: `window` (cycles), `windows`, `tolerance` (a fraction),
/// `min_groups`.
fn wg_sampling(text: &str) -> Result<Option<WorkGroupSampling>, String> {
    match text.trim() {
        "off" | "0" | "" => return Ok(None),
        "on" | "1" => return Ok(Some(WorkGroupSampling::default())),
        _ => {}
    }
    let mut c = WorkGroupSampling::default();
    for pair in text.split(',') {
        let (key, value) = pair.split_once('=').ok_or_else(|| format!("`{pair}`: expected on, off or key=value"))?;
        fn num<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, String> {
            value.trim().parse().map_err(|_| format!("{key}={value}: not a number"))
        }
        match key.trim() {
            "window" => c.window_cycles = num(key, value)?,
            "windows" => c.windows = num(key, value)?,
            "tolerance" => c.tolerance = num(key, value)?,
            "min_groups" => c.min_detailed_groups = num(key, value)?,
            "functional_max" => c.functional_max_instructions = num(key, value)?,
            other => return Err(format!("unknown key `{other}` (window, windows, tolerance, min_groups, functional_max)")),
        }
    }
    Ok(Some(c))
}

impl From<KernelMissing> for LaunchFailure {
    fn from(m: KernelMissing) -> LaunchFailure {
        match m {
            KernelMissing::NoBinary => LaunchFailure::NoBinary,
            KernelMissing::Module(e) | KernelMissing::Kernel(e) => LaunchFailure::Setup(e),
        }
    }
}

/// Why a launch did not run.
pub enum LaunchFailure {
    UnknownFunction,
    /// The kernel's module has no code object for the GPU (HIP 6 and 7 carry on to here).
    NoBinary,
    /// No argument array for a kernel that takes arguments, a null argument, or a packed
    /// buffer shorter than the kernel's arguments.
    BadArguments,
    Setup(String),
    Fault(KernelFault),
}

/// The name HIP gives an error code.
pub fn error_name(code: u32) -> &'static str {
    abi::ERRORS.iter().find(|(v, _)| *v == code).map_or("hipErrorUnknown", |(_, n)| n)
}
