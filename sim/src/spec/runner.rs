//! Running a spec: device, buffers, kernels, dispatches in order (sharing memory), then the
//! expectations and the per-opcode fidelity summary.

use super::args::{self, BufferTable, Resolved};
use super::checks;
use super::error::{At, SpecError};
use super::expect::Check;
use super::globals;
use super::init::{initial_bytes, MAX_BUFFER_BYTES};
use super::model::{Buffer, Dispatch, MemoryType, Spec};
use super::references::{DispatchView, References};
use super::select::{self, Entry};
use crate::counters::Counters;
use crate::engine::EngineOptions;
use crate::exec::Fidelity;
use crate::fault::{FaultKind, KernelFault};
use crate::gpus::{GpuConfig, Mode};
use crate::kernel::{CodeSlot, LoadedKernel};
use crate::launch::{Device, LaunchError};
use crate::memory::{MemoryKind, Owner};
use crate::observe::Observer;
use crate::Geometry;
use hipscope_isa::tables::OPCODE_NAMES;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// Most work-items in a work-group (HIP's limit on every AMD target).
const MAX_BLOCK: u64 = 1024;
/// LDS per work-group on the targets we model.
const MAX_LDS: u64 = 64 * 1024;

/// How to run a spec.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// `--gpu NAME|FILE`.
    pub gpu: Option<String>,
    /// `--node NAME|FILE`: run on the node's GPU 0 (instead of `gpu` and the spec's `gpu`); in
    /// timing mode its accesses to host-pinned and managed buffers travel that GPU's host link
    /// ([`Device::set_node`]).
    pub node: Option<crate::node::Node>,
    /// `--code-object KEY`.
    pub code_object: Option<String>,
    /// `--target T`: only the code objects for target `T` (processor or target id), e.g. one
    /// of the code objects of an offload bundle.
    pub target: Option<String>,
    /// `--seed N`: picks the interleaving of waves.
    pub seed: u64,
    /// `--threads`: host threads a functional dispatch may run on.
    pub threads: crate::Threads,
    /// `--mode`: functional, or timing (simulate the GPU's pipelines and memory system).
    pub mode: crate::Mode,
    /// `--watchdog-cycles N` (timing mode; `None`: the engine's default, 0: no watchdog).
    pub watchdog_cycles: Option<u64>,
    /// `--set NAME=VALUE`: parameter values replacing the spec's; applied when the spec is
    /// read ([`run_file`], [`super::load_with`]).
    pub params: Vec<(String, i128)>,
    /// `--no-check`: run the dispatches but neither prepare nor evaluate the expectations
    /// (they are still validated).
    pub skip_checks: bool,
    /// `--dump BUFFER=FILE`: buffers whose final bytes the report carries.
    pub dump: Vec<String>,
    /// A wave running more instructions than this is a runaway loop (a kernel fault);
    /// `None`: the engine's default.
    pub max_wave_instructions: Option<u64>,
    /// `--livelock-after N`: instructions a wave runs after the last visible change before
    /// it is checked for a repeating state (0: no livelock detection); `None`: the default.
    pub livelock_after: Option<u64>,
    /// `--no-progress-cycles N`: a dispatch that changes nothing visible for N cycles
    /// (timing) or wave-instructions (functional) stops with "no progress" (0: never);
    /// `None`: the default.
    pub no_progress: Option<u64>,
    /// `--max-instructions N` / `--max-cycles N`: a dispatch stops with a kernel fault after
    /// this many wave-instructions / cycles (timing mode).
    pub max_instructions: Option<u64>,
    pub max_cycles: Option<u64>,
    /// Where the engines count finished work-groups (for a progress display).
    pub progress: Option<&'static crate::engine::RunProgress>,
    /// Largest grid (work-items of one dispatch) this run accepts; `None`: any the launch
    /// checks allow. Bounds the work of runs over untrusted specs (the mutation tests).
    pub max_work_items: Option<u64>,
    /// The CPU reference models that `Reference("set")` expectations replay
    /// (`hipscope_studies::references::BUILT_IN` for ours); `None`: a spec naming a reference
    /// set is an error.
    pub references: Option<References>,
    /// Timing mode: work-group-level sampling of long dispatches
    /// ([`crate::sched::WorkGroupSampling`]); `None`: full detail.
    pub work_group_sampling: Option<crate::sched::WorkGroupSampling>,
    /// Sampled timing (`--sample`): timing launches of a multi-dispatch spec may be predicted
    /// from like launches ([`crate::sample`]); off by default.
    pub sample: crate::sample::SamplePolicy,
}

/// What one dispatch did.
#[derive(Debug, Clone)]
pub struct DispatchReport {
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub groups: u64,
    pub waves: u64,
    pub instructions: u64,
    /// Lane accesses to LDS that were out of range (read 0, writes dropped).
    pub lds_out_of_range: u64,
    /// Timing mode: duration in shader cycles and nanoseconds (at the GPU's clock), and the
    /// counters (named only for output: [`Report::counters_rdna`]).
    pub cycles: Option<u64>,
    pub duration_ns: Option<f64>,
    pub counters: Option<Counters>,
    /// Timing mode with sampling asked for: what was detailed, fast-forwarded, the error.
    pub sampled: Option<crate::sched::Sampled>,
}

/// Executed count and modelling fidelity of one opcode, over all dispatches.
#[derive(Debug, Clone, PartialEq)]
pub struct OpcodeFidelity {
    pub opcode: &'static str,
    pub count: u64,
    pub fidelity: Fidelity,
}

/// The result of a run that did not fault.
#[derive(Debug, Clone)]
pub struct Report {
    pub spec: PathBuf,
    pub gpu: GpuConfig,
    /// The chosen `code_objects` key and its file.
    pub code_object: String,
    pub code_object_path: PathBuf,
    /// Target id of the code object (`gfx942`, `gfx90a:xnack-`, ...).
    pub target: String,
    /// Wave size and mode the code object was built for.
    pub wave_size: u32,
    pub mode: Mode,
    pub seed: u64,
    /// Functional or timing (`mode` above is the CU/WGP mode).
    pub run_mode: crate::Mode,
    pub dispatches: Vec<DispatchReport>,
    /// Parameter values the spec was read with.
    pub params: Vec<(String, i128)>,
    pub checks: Vec<Check>,
    /// `--no-check`: no expectation was evaluated.
    pub checks_skipped: bool,
    /// The final bytes of the buffers `RunOptions::dump` names, in that order.
    pub dumps: Vec<(String, Vec<u8>)>,
    /// Sorted by opcode name.
    pub fidelity: Vec<OpcodeFidelity>,
    /// What kernel-level sampling did (`None`: off).
    pub sampled: Option<crate::sample::SampleSummary>,
}

impl Report {
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.ok)
    }

    /// Whether the GPU reports its L2 counters under their RDNA names (`GL2C_*`), the flag
    /// [`Counters::named`] takes when a dispatch's counters are written out.
    pub fn counters_rdna(&self) -> bool {
        self.gpu.processor.family().is_rdna()
    }
}

/// Why a run stopped.
#[derive(Debug, Clone)]
pub enum RunError {
    /// Bad spec or a spec that does not fit the GPU: exit status 2.
    Spec(SpecError),
    /// A dispatch faulted like a GPU would: exit status 3.
    Fault { file: PathBuf, dispatch: usize, fault: Box<KernelFault>, hint: Option<String> },
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Spec(e) => e.fmt(f),
            RunError::Fault { file, dispatch, fault, hint } => {
                write!(f, "{}: dispatch {dispatch}: {fault}", file.display())?;
                hint.as_ref().map_or(Ok(()), |h| write!(f, " ({h})"))
            }
        }
    }
}

impl std::error::Error for RunError {}

impl From<SpecError> for RunError {
    fn from(e: SpecError) -> RunError {
        RunError::Spec(e)
    }
}

/// Load and run a spec file.
pub fn run_file(path: &Path, opts: &RunOptions) -> Result<Report, RunError> {
    run_file_observed(path, opts, None)
}

/// Load and run a spec file with `observer` watching every dispatch (a timing run's
/// timeline: [`crate::timing::trace::Trace`]).
pub fn run_file_observed(path: &Path, opts: &RunOptions, observer: Option<&mut dyn Observer>) -> Result<Report, RunError> {
    let spec = super::read::load_with(path, &opts.params)?;
    run_observed(&spec, path, opts, observer)
}

/// A buffer on the device.
struct Placed {
    base: u64,
    len: u64,
}

/// A dispatch ready to launch.
struct Prepared {
    kernel: LoadedKernel,
    geo: Geometry,
    args: Resolved,
}

/// A spec set up on a device: buffers placed, kernels loaded, arguments resolved. `run` drives
/// it once; benches and sweeps can launch its dispatches repeatedly.
pub struct Session {
    pub path: PathBuf,
    pub gpu: GpuConfig,
    pub key: String,
    pub object_path: PathBuf,
    pub target: String,
    pub wave_size: u32,
    pub mode: Mode,
    pub device: Device,
    dir: PathBuf,
    placed: BTreeMap<String, Placed>,
    /// How to rewrite the buffers' initial contents ([`Session::reset`]): the spec's buffer
    /// descriptions (regenerated, not kept: a copy of every buffer would double the memory a
    /// big spec needs), and the variables' initial bytes (small).
    buffers: Vec<(String, Buffer)>,
    globals: BTreeMap<String, Vec<u8>>,
    /// Every other variable of the code object (address, initial bytes): a kernel's
    /// `__device__` counter must start from its initialiser on every re-run too.
    variables: Vec<(u64, Vec<u8>)>,
    prepared: Vec<Prepared>,
    /// The engine options every launch starts from (the limits the run asked for).
    limits: EngineOptions,
}

impl Session {
    /// Choose GPU and code object, place the buffers, load the kernels, check every launch.
    pub fn new(spec: &Spec, path: &Path, opts: &RunOptions) -> Result<Session, RunError> {
        Session::on(spec, path, opts, None)
    }

    /// [`Session::new`] on `gpu` (a config the caller resolved, e.g. from a file) instead of
    /// `opts.gpu` and the spec's `gpu`; `None` chooses as `new` does.
    pub fn on(spec: &Spec, path: &Path, opts: &RunOptions, gpu: Option<&GpuConfig>) -> Result<Session, RunError> {
        let at = At { file: path };
        let dir = path.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let first = spec.dispatches.first().ok_or_else(|| at.err("dispatches", "empty: nothing to run"))?;
        let entries = select::restrict(at, select::load_entries(at, spec, &dir)?, opts.code_object.as_deref(), opts.target.as_deref())?;
        let on_node = opts.node.as_ref().and_then(|n| n.gpus.first());
        let gpu = match gpu.or(on_node) {
            Some(g) => g.clone(),
            None => select::choose_gpu(at, spec, &entries, opts.gpu.as_deref(), opts.target.is_some() || opts.code_object.is_some())?,
        };
        let flags: Vec<String> = [("--code-object", &opts.code_object), ("--target", &opts.target)]
            .iter()
            .filter_map(|(flag, v)| v.as_ref().map(|v| format!("{flag} {v}")))
            .collect();
        let forced = (!flags.is_empty()).then(|| flags.join(" "));
        let entry = &entries[select::choose_entry(at, &entries, &gpu, forced.as_deref(), &first.kernel)?];
        let mut device = Device::for_gpu(&gpu);
        if opts.mode.is_timing() {
            // A missing timing section is the config's fault: name its file.
            gpu.timing.as_ref().ok_or_else(|| SpecError::whole(Path::new(&gpu.origin), "has no timing section, which --mode timing needs"))?;
            device.enable_timing(&gpu).map_err(|e| at.err("gpu", format!("--mode timing: {e}")))?;
            device.set_sampling(opts.sample);
            if let Some(node) = &opts.node {
                device.set_node(node, 0).map_err(|e| at.err("gpu", format!("--node {}: {e}", node.name())))?;
            }
        }
        device.map_code_object(&entry.co).map_err(|e| at.err(format!("code_objects.\"{}\"", entry.key), format!("{}: {e}", entry.path.display())))?;
        let mut placed = place_buffers(at, spec, &dir, &mut device)?;
        let mut initial_globals = BTreeMap::new();
        for g in globals::place(at, spec, &dir, &mut device)? {
            if placed.contains_key(&g.key) {
                return Err(at.err("buffers", format!("a buffer is named \"{}\", as the session names a code-object variable", g.key)).into());
            }
            placed.insert(g.key.clone(), Placed { base: g.address, len: g.size });
            initial_globals.insert(g.key, g.initial);
        }
        let variables = device
            .globals()
            .iter()
            .filter(|g| g.size > 0 && !initial_globals.contains_key(&globals::key(&g.name)))
            .filter_map(|g| device.mem.bytes(g.address, g.size).map(|b| (g.address, b.to_vec())))
            .collect();
        let table: BufferTable = placed.iter().map(|(n, p)| (n.clone(), (p.base, p.len))).collect();
        let prepared: Vec<Prepared> = spec.dispatches.iter().enumerate().map(|(i, d)| prepare(at, i, d, entry, &device, &table)).collect::<Result<_, _>>()?;
        if let Some(max) = opts.max_work_items {
            for (i, p) in prepared.iter().enumerate() {
                let items: u64 = p.geo.grid.iter().map(|&g| g as u64).product();
                if items > max {
                    return Err(at.err(format!("dispatches[{i}].grid"), format!("{items} work-items; this run allows at most {max}")).into());
                }
            }
        }
        let sizes: checks::Sizes = placed.iter().map(|(n, p)| (n.clone(), p.len)).collect();
        let kernels: Vec<&str> = prepared.iter().map(|p| p.kernel.name.as_str()).collect();
        checks::validate(at, spec, &sizes, &kernels, opts.references)?;
        let (wave_size, mode) = entry.wave_and_mode(&first.kernel);
        Ok(Session {
            path: path.to_path_buf(),
            target: entry.co.target.target_id(),
            key: entry.key.clone(),
            object_path: entry.path.clone(),
            gpu,
            wave_size,
            mode,
            device,
            dir,
            placed,
            buffers: spec.buffers.0.clone(),
            globals: initial_globals,
            variables,
            prepared,
            limits: limits(opts),
        })
    }

    pub fn dispatch_count(&self) -> usize {
        self.prepared.len()
    }

    /// The loaded kernel of dispatch `i`.
    pub fn kernel(&self, i: usize) -> Option<&crate::kernel::LoadedKernel> {
        self.prepared.get(i).map(|p| &p.kernel)
    }

    /// The geometry of dispatch `i`.
    pub fn geometry(&self, i: usize) -> Option<crate::dispatch::Geometry> {
        self.prepared.get(i).map(|p| p.geo)
    }

    /// The bytes of buffer `name` as the host would read them after synchronizing (the
    /// device's caches written back first); `None` for an unknown name.
    pub fn read_buffer(&mut self, name: &str) -> Option<Vec<u8>> {
        let p = self.placed.get(name)?;
        self.device.synchronize();
        let mut b = vec![0u8; p.len as usize];
        self.device.mem.read(p.base, &mut b).ok()?;
        Some(b)
    }

    /// Put every buffer and code-object variable back to its initial contents and empty the device's caches, so the next
    /// launch starts as the first did (seed sweeps re-run one session). The caches' dirty data
    /// is dropped, not written back: the buffers are rewritten anyway, and nothing else the
    /// kernels write (scratch) outlives a launch.
    pub fn reset(&mut self) -> Result<(), SpecError> {
        self.device.reset_caches();
        let at = At { file: &self.path };
        for (name, b) in &self.buffers {
            let bytes = initial_bytes(at, name, b, &self.dir)?;
            if let Some(p) = self.placed.get(name) {
                let _ = self.device.mem.write(p.base, &bytes);
            }
        }
        for (key, bytes) in &self.globals {
            if let Some(p) = self.placed.get(key) {
                let _ = self.device.mem.write(p.base, bytes);
            }
        }
        for (address, bytes) in &self.variables {
            let _ = self.device.mem.write(*address, bytes);
        }
        Ok(())
    }

    /// Every buffer's and variable's bytes in device memory as they are now (after a
    /// [`Device::synchronize`], what the host reads).
    fn contents(&self) -> BTreeMap<String, &[u8]> {
        self.placed.iter().map(|(n, p)| (n.clone(), self.device.mem.bytes(p.base, p.len).unwrap_or_default())).collect()
    }

    /// Launch dispatch `i` (buffers keep whatever earlier launches left in them).
    pub fn launch(&mut self, i: usize, seed: u64) -> Result<crate::engine::DispatchStats, RunError> {
        self.launch_hooked(i, seed, crate::launch::Hooks::default())
    }

    /// [`Session::launch`] with `observer` watching ([`crate::observe`]).
    pub fn launch_observed(&mut self, i: usize, seed: u64, observer: Option<&mut dyn Observer>) -> Result<crate::engine::DispatchStats, RunError> {
        self.launch_hooked(i, seed, crate::launch::Hooks { observer, ..Default::default() })
    }

    /// [`Session::launch`] with any of the [`crate::launch::Hooks`].
    pub fn launch_hooked(&mut self, i: usize, seed: u64, hooks: crate::launch::Hooks) -> Result<crate::engine::DispatchStats, RunError> {
        let at = At { file: &self.path };
        let p = self.prepared.get(i).ok_or_else(|| at.err("dispatches", format!("no dispatch {i}")))?;
        let opts = EngineOptions { seed, ..self.limits };
        self.device.launch_hooked(&p.kernel, p.geo, &p.args.bytes, &opts, hooks).map_err(|e| launch_error(at, i, e, &self.placed))
    }
}

/// The engine options `opts` asks for.
fn limits(opts: &RunOptions) -> EngineOptions {
    let d = EngineOptions::default();
    EngineOptions {
        watchdog_cycles: opts.watchdog_cycles.unwrap_or(d.watchdog_cycles),
        max_wave_instructions: opts.max_wave_instructions.unwrap_or(d.max_wave_instructions),
        livelock_check_after: opts.livelock_after.unwrap_or(d.livelock_check_after),
        no_progress: opts.no_progress.unwrap_or(d.no_progress),
        max_instructions: opts.max_instructions.unwrap_or(d.max_instructions),
        max_cycles: opts.max_cycles.unwrap_or(d.max_cycles),
        progress: opts.progress,
        work_group_sampling: opts.work_group_sampling,
        ..opts.threads.apply(d)
    }
}

/// Run `spec` (read from `path`, which anchors its relative paths).
pub fn run(spec: &Spec, path: &Path, opts: &RunOptions) -> Result<Report, RunError> {
    run_observed(spec, path, opts, None)
}

/// [`run`] with `observer` watching every dispatch.
pub fn run_observed(spec: &Spec, path: &Path, opts: &RunOptions, observer: Option<&mut dyn Observer>) -> Result<Report, RunError> {
    run_session(Session::new(spec, path, opts)?, spec, path, opts, observer)
}

/// [`run`] on `gpu` (a config the caller resolved) instead of `opts.gpu` and the spec's `gpu`.
pub fn run_on(spec: &Spec, path: &Path, opts: &RunOptions, gpu: &GpuConfig) -> Result<Report, RunError> {
    run_session(Session::on(spec, path, opts, Some(gpu))?, spec, path, opts, None)
}

fn run_session(mut s: Session, spec: &Spec, path: &Path, opts: &RunOptions, mut observer: Option<&mut dyn Observer>) -> Result<Report, RunError> {
    let at = At { file: path };
    if let Some(bad) = opts.dump.iter().find(|b| !s.placed.contains_key(b.as_str())) {
        let names: Vec<&str> = s.placed.keys().map(String::as_str).collect();
        return Err(SpecError::whole(path, format!("--dump {bad}: no buffer named \"{bad}\" (buffers: {})", names.join(", "))).into());
    }
    let expected = match opts.skip_checks {
        true => None,
        false => {
            let views: Vec<DispatchView> = s.prepared.iter().enumerate().map(|(i, p)| view(i, p, s.gpu.processor)).collect();
            // Before the first dispatch the device memory holds the initial contents.
            Some(checks::prepare(at, spec, &s.dir, &s.contents(), &views, opts.references)?)
        }
    };
    if let Some(p) = opts.progress {
        let total: u64 = s.prepared.iter().map(|d| d.geo.group_count()).sum();
        p.groups_total.store(total, std::sync::atomic::Ordering::Relaxed);
    }
    let mut reports = Vec::new();
    let mut counts: BTreeMap<&'static str, (u64, Fidelity)> = BTreeMap::new();
    for i in 0..s.prepared.len() {
        let stats = s.launch_observed(i, opts.seed, observer.as_mut().map(|o| &mut **o as &mut dyn Observer))?;
        let p = &s.prepared[i];
        add_fidelity(&mut counts, &p.kernel, &stats.opcode_counts);
        let clock = s.gpu.timing.as_ref().map_or(1, |t| t.clock_mhz.max(1));
        reports.push(DispatchReport {
            kernel: p.kernel.name.clone(),
            grid: p.geo.grid,
            block: p.geo.block,
            groups: stats.groups,
            waves: stats.waves,
            instructions: stats.instructions,
            lds_out_of_range: stats.lds_out_of_range,
            cycles: stats.cycles,
            duration_ns: stats.cycles.map(|c| c as f64 * 1000.0 / clock as f64),
            counters: stats.counters,
            sampled: stats.sampled,
        });
    }
    s.device.synchronize();
    let finals = s.contents();
    let checks = expected.as_ref().map_or_else(Vec::new, |x| checks::evaluate(spec, x, &finals));
    let dumps = opts.dump.iter().map(|b| (b.clone(), finals.get(b).map(|v| v.to_vec()).unwrap_or_default())).collect();
    Ok(Report {
        spec: path.to_path_buf(),
        target: s.target.clone(),
        code_object: s.key.clone(),
        code_object_path: s.object_path.clone(),
        gpu: s.gpu.clone(),
        wave_size: s.wave_size,
        mode: s.mode,
        seed: opts.seed,
        run_mode: opts.mode,
        dispatches: reports,
        params: spec.param_values.0.clone(),
        checks,
        checks_skipped: opts.skip_checks,
        dumps,
        fidelity: counts.into_iter().map(|(opcode, (count, fidelity))| OpcodeFidelity { opcode, count, fidelity }).collect(),
        sampled: s.device.sampling().map(|x| x.summary()),
    })
}

fn memory_kind(m: MemoryType) -> MemoryKind {
    match m {
        MemoryType::Device => MemoryKind::Device,
        MemoryType::DeviceFineGrain => MemoryKind::DeviceFineGrain,
        MemoryType::HostPinned => MemoryKind::HostPinned,
        MemoryType::HostNonCoherent => MemoryKind::HostNonCoherent,
        MemoryType::Managed => MemoryKind::Managed,
    }
}

/// Host memory is pinned or managed; a GPU's memory is one of the device types.
fn check_owner(at: At, name: &str, b: &Buffer) -> Result<(), SpecError> {
    let host_type = matches!(b.memory, MemoryType::HostPinned | MemoryType::HostNonCoherent | MemoryType::Managed);
    match b.owner {
        Owner::Host if !host_type => Err(at.err(format!("buffers.{name}.owner"), "Host memory must be HostPinned, HostNonCoherent or Managed")),
        Owner::Gpu(_) if host_type => Err(at.err(format!("buffers.{name}.owner"), "a GPU's memory must be Device or DeviceFineGrain")),
        _ => Ok(()),
    }
}

/// Allocate and fill the buffers in the spec's order.
#[allow(clippy::type_complexity)]
fn place_buffers(at: At, spec: &Spec, dir: &Path, dev: &mut Device) -> Result<BTreeMap<String, Placed>, SpecError> {
    let mut placed = BTreeMap::new();
    let declared: u64 = spec.buffers.iter().map(|(_, b)| b.bytes.unwrap_or(0)).fold(0, u64::saturating_add);
    if declared > MAX_BUFFER_BYTES {
        return Err(at.err("buffers", format!("{declared} bytes in all; at most {MAX_BUFFER_BYTES}")));
    }
    // The device holds every buffer once, and a reference replay one copy of the buffers it
    // writes: at most 1.5 times the buffers for the kernels we model (vadd: 1.33), plus the
    // caches of the timing model. Refuse at once what the host cannot hold.
    if let Some(available) = crate::gpus::host_available_bytes() {
        let caches = dev.timing.as_ref().map_or(0, |t| crate::gpus::footprint::model_bytes(&t.cfg, t.compute_units));
        let need = declared.saturating_add(declared / 2).saturating_add(caches);
        if need > available {
            let gb = |b: u64| b as f64 / 1e9;
            return Err(at.err(
                "buffers",
                format!("needs about {:.1} GB of host memory ({:.1} GB of buffers, half again for reference copies, {:.1} GB of caches), but {:.1} GB are available", gb(need), gb(declared), gb(caches), gb(available)),
            ));
        }
    }
    let mut total = 0u64;
    for (name, b) in spec.buffers.iter() {
        let bytes = initial_bytes(at, name, b, dir)?;
        let len = bytes.len() as u64;
        // The simulator keeps every byte in host memory.
        total += len;
        if total > MAX_BUFFER_BYTES {
            return Err(at.err(format!("buffers.{name}"), format!("the buffers add up to more than {MAX_BUFFER_BYTES} bytes")));
        }
        check_owner(at, name, b)?;
        let base = dev.mem.alloc_init(name, bytes, memory_kind(b.memory));
        dev.mem.set_owner(base, b.owner);
        placed.insert(name.to_string(), Placed { base, len });
    }
    Ok(placed)
}

/// Load the kernel, check the launch against its metadata and resolve its arguments.
fn prepare(at: At, i: usize, d: &Dispatch, entry: &Entry, dev: &Device, table: &BufferTable) -> Result<Prepared, SpecError> {
    let kernel = dev.load_kernel(&entry.co, &d.kernel).map_err(|e| at.err(format!("dispatches[{i}].kernel"), format!("{e} in {}", entry.path.display())))?;
    let geo = Geometry { grid: [d.grid.0, d.grid.1, d.grid.2], block: [d.block.0, d.block.1, d.block.2], dynamic_lds: d.dynamic_lds };
    check_geometry(at, i, &geo, &kernel, entry)?;
    let args = args::resolve(at, i, d, &kernel, table)?;
    Ok(Prepared { kernel, geo, args })
}

/// What the HIP runtime would refuse to launch.
fn check_geometry(at: At, i: usize, geo: &Geometry, kernel: &LoadedKernel, entry: &Entry) -> Result<(), SpecError> {
    let p = |f: &str| format!("dispatches[{i}].{f}");
    if geo.grid.contains(&0) {
        return Err(at.err(p("grid"), "every dimension must be at least 1"));
    }
    if geo.block.contains(&0) {
        return Err(at.err(p("block"), "every dimension must be at least 1"));
    }
    let items: u64 = geo.block.iter().map(|&b| b as u64).product();
    let meta = entry.co.kernel(&kernel.name).and_then(|k| k.metadata.as_ref());
    let max = meta.map_or(MAX_BLOCK, |m| if m.max_flat_workgroup_size > 0 { m.max_flat_workgroup_size.min(MAX_BLOCK) } else { MAX_BLOCK });
    if items > max {
        return Err(at.err(p("block"), format!("{items} work-items; kernel `{}` allows at most {max} per group", kernel.name)));
    }
    if let Some(r) = meta.and_then(|m| m.reqd_workgroup_size) {
        if r != geo.block.map(|b| b as u64) {
            return Err(at.err(p("block"), format!("kernel `{}` requires block ({}, {}, {})", kernel.name, r[0], r[1], r[2])));
        }
    }
    let lds = kernel.descriptor.group_segment_fixed_size as u64 + geo.dynamic_lds as u64;
    if lds > MAX_LDS {
        return Err(at.err(
            p("dynamic_lds"),
            format!("{} static + {} dynamic bytes of LDS exceed {MAX_LDS}", kernel.descriptor.group_segment_fixed_size, geo.dynamic_lds),
        ));
    }
    Ok(())
}

fn launch_error(at: At, i: usize, e: LaunchError, placed: &BTreeMap<String, Placed>) -> RunError {
    match e {
        LaunchError::Fault(fault) => {
            let hint = match fault.kind {
                FaultKind::MemoryViolation { address, .. } => near_buffer(placed, address),
                _ => None,
            };
            RunError::Fault { file: at.file.to_path_buf(), dispatch: i, fault: Box::new(fault), hint }
        }
        other => RunError::Spec(at.err(format!("dispatches[{i}]"), other.to_string())),
    }
}

/// Which spec buffer a bad address is just past or before (allocations are separated by
/// unmapped guard gaps, so an overrun lands there).
fn near_buffer(placed: &BTreeMap<String, Placed>, address: u64) -> Option<String> {
    let below = placed.iter().filter(|(_, p)| p.base <= address).max_by_key(|(_, p)| p.base);
    let above = placed.iter().filter(|(_, p)| p.base > address).min_by_key(|(_, p)| p.base);
    match (below, above) {
        (Some((n, p)), _) if address >= p.base + p.len && address - (p.base + p.len) < 1 << 16 => {
            Some(format!("{} bytes past the end of buffer \"{n}\", which holds {} bytes", address - (p.base + p.len), p.len))
        }
        (_, Some((n, p))) if p.base - address <= 1 << 16 => Some(format!("{} bytes before buffer \"{n}\"", p.base - address)),
        _ => None,
    }
}

/// Count executed opcodes with the fidelity of their semantics. One opcode can be classified
/// differently by instance (e.g. by operand kinds); the least exact class is reported.
fn add_fidelity(counts: &mut BTreeMap<&'static str, (u64, Fidelity)>, kernel: &LoadedKernel, executed: &[u64]) {
    let mut by_opcode: HashMap<usize, Fidelity> = HashMap::new();
    for slot in &kernel.code {
        if let CodeSlot::Inst(e) = slot {
            let f = e.sem.fidelity();
            let entry = by_opcode.entry(e.inst.opcode() as usize).or_insert(f);
            if rank(f) > rank(*entry) {
                *entry = f;
            }
        }
    }
    for (op, &n) in executed.iter().enumerate().filter(|(_, &n)| n > 0) {
        let (Some(&name), Some(&f)) = (OPCODE_NAMES.get(op), by_opcode.get(&op)) else { continue };
        let e = counts.entry(name).or_insert((0, f));
        e.0 += n;
        if rank(f) > rank(e.1) {
            e.1 = f;
        }
    }
}

fn rank(f: Fidelity) -> u8 {
    match f {
        Fidelity::Exact => 0,
        Fidelity::NoEffect(_) => 1,
        Fidelity::Approximate(_) => 2,
    }
}

/// What a reference model sees of dispatch `i`: the kernel by its name in the code object
/// (whatever spelling the spec used to find it).
fn view(i: usize, p: &Prepared, processor: hipscope_isa::Processor) -> DispatchView<'_> {
    DispatchView {
        index: i,
        kernel: &p.kernel.name,
        grid: p.geo.grid,
        block: p.geo.block,
        dynamic_lds: p.geo.dynamic_lds,
        args: &p.args.values,
        wave_size: if p.kernel.wave64 { 64 } else { 32 },
        processor,
    }
}
