//! Launching a kernel on a device: kernarg segment, runtime structures, scratch, then the
//! engine. Clients (launch specs, the scope suite, tests) go through [`Device::launch`].
//!
//! Everything a launch allocates is sized by code-object fields or by the caller, so both are
//! checked first: [`Device::load_kernel`] refuses a kernel beyond a hardware limit
//! (`limits::check_kernel`), and [`Device::launch`] refuses a geometry HIP would refuse and a
//! scratch store the host cannot hold, before anything is placed in memory.

use crate::backing::HostMemoryError;
use crate::dispatch::{fill_hidden_args, place_queue, place_runtime_structures, Geometry, KernargPool, RuntimeService};
use crate::engine::Functional;
use crate::exec::clock::Rate;
use crate::exec::{Apertures, Env};
use crate::fault::{FaultKind, KernelFault};
use crate::gpus::GpuConfig;
use crate::host::HostAgent;
use crate::kernel::{KernelError, LoadedKernel};
use crate::memory::{Memory, MemoryKind, Unmapped};
use crate::memsys::{HostAtomics, MemSystem};
use crate::node::turns::{Turn, FUNCTIONAL_PS_PER_INSTRUCTION};
use crate::sample::Sampler;
use crate::sched::{resident_groups, Dispatch, DispatchStats, Engine, EngineOptions};
use crate::scratch;
use crate::timing::TimingState;

mod sampled;
use hipscope_isa::codeobj::limits::{self, Violation};
use hipscope_isa::codeobj::{CodeObject, DataSymbol};
use hipscope_isa::decode::Ctx;
use hipscope_isa::target::FeatureSetting;
use hipscope_isa::Processor;

/// Why a launch did not run or did not finish.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LaunchError {
    #[error(transparent)]
    Kernel(#[from] KernelError),
    #[error("kernel '{kernel}' takes {expected} argument(s), {given} given")]
    ArgCount { kernel: String, expected: usize, given: usize },
    #[error("kernel '{kernel}' argument {index} is {expected} bytes, {given} given")]
    ArgSize { kernel: String, index: usize, expected: u64, given: usize },
    #[error("kernel '{kernel}': kernarg segment of {bytes} bytes does not fit the runtime's {limit}-byte kernarg pool")]
    KernargTooLarge { kernel: String, bytes: u64, limit: u64 },
    #[error("code object data: {0}")]
    Image(String),
    #[error("kernel '{kernel}': argument {index} at offset {offset} ({bytes} bytes) lies outside the {segment}-byte kernarg segment")]
    ArgOutside { kernel: String, index: usize, offset: u64, bytes: usize, segment: u64 },
    /// A descriptor or metadata field beyond what the hardware allows.
    #[error("kernel '{kernel}': {violation}")]
    OverLimit { kernel: String, violation: Violation },
    /// A grid, block or LDS size the HIP runtime would refuse.
    #[error("kernel '{kernel}': {message}")]
    Geometry { kernel: String, message: String },
    /// The private-segment backing store would not fit the host budget (`scratch::host_budget`).
    #[error("kernel '{kernel}': scratch for {waves} resident waves of {lanes} lanes at {per_lane} bytes per lane needs {bytes} bytes, more than the {limit} bytes a dispatch's scratch may take (16 GiB, or less when the host has less available)")]
    ScratchTooLarge { kernel: String, waves: u64, lanes: u64, per_lane: u64, bytes: u64, limit: u64 },
    #[error("code object is for {object}, the device is {device}")]
    WrongTarget { object: Processor, device: Processor },
    #[error(transparent)]
    Fault(#[from] KernelFault),
}

/// What may watch or serve a launch besides the device itself.
#[derive(Default)]
pub struct Hooks<'a> {
    /// The host's side of the kernel's calls to it (hostcall: device `printf`).
    pub host: Option<&'a mut dyn HostAgent>,
    /// Told every instruction, lane access and barrier ([`crate::observe`]), in both modes,
    /// and in timing mode the timing model's side (a [`crate::timing::trace::Trace`] is one).
    /// Several watch one launch through a [`crate::observe::Fan`].
    pub observer: Option<&'a mut dyn crate::observe::Observer>,
    /// The launch is co-simulated with launches on other devices ([`crate::node::turns`],
    /// [`crate::cosim::run_together`]): the engine hands the turn over as its time advances.
    pub turn: Option<&'a mut Turn>,
}

/// A simulated device: its memory and target. Dispatches run one after another and share
/// memory (and, in timing mode, the memory system's cache contents).
#[derive(Debug, Clone)]
pub struct Device {
    pub processor: Processor,
    /// The GPU runs with SRAMECC on ([`Device::for_gpu`]: its config's `hip.sramecc`, on a
    /// processor that has the mode): D16 loads then zero the other half of their VGPR. A code
    /// object built for one mode (`:sramecc+` / `:sramecc-` in its target id) runs only in
    /// that mode, so its own setting wins ([`Device::load_kernel`]).
    pub sramecc: bool,
    pub mem: Memory,
    pub apertures: Apertures,
    dispatches: u64,
    clock: u64,
    /// The queue descriptor and its kernarg pool, placed at the first launch.
    queue: Option<(u64, KernargPool)>,
    /// Timing mode: the GPU's timing parameters and memory system, the engine launches run on
    /// once [`Device::enable_timing`] set it.
    pub timing: Option<TimingState>,
    /// The engine launches run on otherwise.
    functional: Functional,
    /// The address ranges of the mapped code objects (their whole images, code included), and
    /// their variables.
    images: Vec<(u64, u64)>,
    globals: Vec<DataSymbol>,
    /// Kernel-level sampling of timing launches ([`Device::set_sampling`]; `None`: off).
    sampler: Option<Sampler>,
    /// Launches run functionally wrote memory behind the caches' back since their dirty bytes
    /// were written back: the cached lines take memory's bytes before anything reads or
    /// writes back a cache ([`sampled`]).
    caches_behind: bool,
    /// The program is warming up: launches now are before its timed region
    /// ([`Device::set_warming_up`]).
    warming_up: bool,
}

/// The engine a launch runs on ([`Device::launch_engine`]).
#[derive(Clone, Copy)]
pub(crate) enum RunOn<'t> {
    /// The timing engine, when the device has one.
    Timing,
    /// The functional engine.
    Functional,
    /// The functional engine, on one thread, its global accesses told to the memory-side
    /// cache (when the GPU has one), stopping after this many wave-instructions (a warm-up
    /// launch, [`crate::sample::Decision::WarmUp`]).
    Warming(Option<&'t crate::sched::Touched>, u64),
}

/// Data sections of a code object a device maps at most (a `.bss` is sized by a field).
const MAX_IMAGE_BYTES: u64 = 1 << 32;

impl Device {
    pub fn new(processor: Processor) -> Device {
        Device {
            processor,
            sramecc: false,
            mem: Memory::new(),
            apertures: Apertures::DEFAULT,
            dispatches: 0,
            clock: 0,
            queue: None,
            timing: None,
            functional: Functional,
            images: Vec::new(),
            globals: Vec::new(),
            sampler: None,
            caches_behind: false,
            warming_up: false,
        }
    }

    /// A device of `gpu`'s processor in its SRAMECC mode.
    pub fn for_gpu(gpu: &GpuConfig) -> Device {
        let mut d = Device::new(gpu.processor);
        d.sramecc = gpu.target().sramecc == FeatureSetting::On;
        d
    }

    /// Run later launches with timing, on the memory system of `gpu` (which must have a
    /// timing section).
    pub fn enable_timing(&mut self, gpu: &GpuConfig) -> Result<(), String> {
        let cfg = gpu.timing.clone().ok_or_else(|| format!("GPU config '{}' has no timing section", gpu.name))?;
        let mut ms = MemSystem::new(&cfg, gpu.compute_units);
        let p = &gpu.hip;
        ms.host_atomics = HostAtomics { pinned: p.host_native_atomic_supported, managed: p.concurrent_managed_access };
        self.timing = Some(TimingState { cfg, compute_units: gpu.compute_units, ms, clock: 0, fast_forward: Some(crate::engine::resume) });
        Ok(())
    }

    /// Timing mode on a node: this device is GPU `gpu` of `node`, so its accesses to host
    /// memory and to peer GPUs' memory travel the node's links ([`crate::memsys::RemotePaths`]).
    /// Without it a device has no links: other agents' memory costs what its own does. Call
    /// after [`Device::enable_timing`].
    pub fn set_node(&mut self, node: &crate::node::Node, gpu: usize) -> Result<(), String> {
        let t = self.timing.as_mut().ok_or("set_node: timing mode is not enabled")?;
        if gpu >= node.gpus.len() {
            return Err(format!("set_node: node {} has no GPU {gpu}", node.name()));
        }
        let paths = crate::memsys::RemotePaths::from_node(node, gpu, t.cfg.clock_mhz);
        t.ms.set_remote_paths(&paths);
        Ok(())
    }

    /// Allocate `bytes` of `kind` named `name` (a name reports show) in the device's memory;
    /// its address.
    pub fn alloc(&mut self, name: &str, bytes: usize, kind: MemoryKind) -> u64 {
        self.mem.alloc(name, bytes, kind)
    }

    /// [`Device::alloc`], or why the host cannot back the allocation.
    pub fn try_alloc(&mut self, name: &str, bytes: usize, kind: MemoryKind) -> Result<u64, HostMemoryError> {
        self.mem.try_alloc(name, bytes, kind)
    }

    /// Free the allocation at `base` (an address that is no allocation's base changes nothing).
    pub fn free(&mut self, base: u64) {
        self.mem.free(base);
    }

    /// Write `bytes` at `address` into memory, as the host or a copy engine does: lines the
    /// timing model's caches hold there keep their bytes (drop them first with
    /// [`Device::invalidate_caches`] or [`Device::reset_caches`] when a kernel may have cached
    /// the range).
    pub fn write(&mut self, address: u64, bytes: &[u8]) -> Result<(), Unmapped> {
        self.mem.write(address, bytes)
    }

    /// Make memory show what the host sees after a device synchronization: dirty data still
    /// in the caches is written to memory (cache state and counters are unchanged).
    pub fn synchronize(&mut self) {
        self.catch_up_caches();
        if let Some(t) = &self.timing {
            t.ms.flush_to(&mut self.mem);
        }
    }

    /// Empty every cache of the timing model (as a fresh memory system, clock kept); dirty data
    /// not yet written back by [`Device::synchronize`] is lost.
    pub fn reset_caches(&mut self) {
        if let Some(t) = &mut self.timing {
            t.ms.reset();
        }
        self.caches_behind = false;
    }

    /// Drop the cached lines of `[address, address + len)` from the timing model's caches after
    /// writing their dirty bytes back ([`Device::synchronize`]): what the host or a copy engine
    /// writes there next goes to memory, and the caches keep everything else.
    pub fn invalidate_caches(&mut self, address: u64, len: u64) {
        self.synchronize();
        if let Some(t) = &mut self.timing {
            t.ms.invalidate_range(address, address.saturating_add(len));
        }
    }

    fn env(&self, wave64: bool) -> Env {
        Env {
            decode: Ctx::new(self.processor, wave64, false),
            family: self.processor.family(),
            sramecc: self.sramecc,
            apertures: self.apertures,
            clock: self.clock,
            rate: Rate::FUNCTIONAL,
            scratch_base: 0,
            scratch_per_lane: 0,
        }
    }

    /// Place the data of `co` (every loaded section that is not code: `.data`, `.bss`
    /// zeroed, `.rodata`, with relocations applied) at the addresses its code was linked for
    /// (plus its load base), so that kernels reach their `__device__` and `__constant__`
    /// globals; remember its variables for [`Device::global`]. Several code objects may be
    /// mapped if their images do not overlap (each loaded at its own base: a program and
    /// the libraries it links).
    pub fn map_code_object(&mut self, co: &CodeObject) -> Result<(), LaunchError> {
        let (start, end) = co.image_range();
        if let Some((s, e)) = self.images.iter().find(|(s, e)| start < *e && *s < end.max(start + 1)) {
            return Err(LaunchError::Image(format!("its image {start:#x}..{end:#x} overlaps a code object already mapped at {s:#x}..{e:#x}")));
        }
        let total: u64 = co.sections.iter().filter(|s| !s.executable).map(|s| s.size).fold(0, u64::saturating_add);
        if total > MAX_IMAGE_BYTES {
            return Err(LaunchError::Image(format!("its data sections take {total} bytes; at most {MAX_IMAGE_BYTES}")));
        }
        for s in co.sections.iter().filter(|s| !s.executable && s.size > 0) {
            let mut data = if s.nobits { Vec::new() } else { s.bytes.clone() };
            data.resize(s.size as usize, 0);
            self.mem.alloc_at(&format!("code object {}", s.name), s.address, data, MemoryKind::Device).map_err(LaunchError::Image)?;
        }
        self.images.push((start, end));
        self.globals.extend(co.data_symbols.iter().cloned());
        Ok(())
    }

    /// A variable of the mapped code objects, by name (the first mapped, if several have it).
    pub fn global(&self, name: &str) -> Option<&DataSymbol> {
        self.globals.iter().find(|g| g.name == name)
    }

    /// The mapped code objects' variables.
    pub fn globals(&self) -> &[DataSymbol] {
        &self.globals
    }

    /// Prepare a kernel for this device. A kernel with a size beyond a hardware limit (see
    /// `limits::check_kernel`) is refused: a flipped bit there would otherwise ask the launch
    /// for gigabytes of scratch, LDS or kernargs.
    pub fn load_kernel(&self, co: &CodeObject, name: &str) -> Result<LoadedKernel, LaunchError> {
        if co.target.processor != self.processor {
            return Err(LaunchError::WrongTarget { object: co.target.processor, device: self.processor });
        }
        if let Ok(k) = co.find_kernel(name) {
            if let Some(violation) = limits::check_kernel(k, co.target.processor.family()).into_iter().next() {
                return Err(LaunchError::OverLimit { kernel: k.name.clone(), violation });
            }
        }
        let wave64 = co.find_kernel(name).map_or(true, |k| k.wave_size == 64);
        let mut env = self.env(wave64);
        match co.target.sramecc {
            FeatureSetting::On => env.sramecc = true,
            FeatureSetting::Off => env.sramecc = false,
            FeatureSetting::Any | FeatureSetting::Unsupported => {}
        }
        Ok(LoadedKernel::load(co, name, &env)?)
    }

    /// Prepare a kernel built in memory (see [`LoadedKernel::from_code`]) for this device.
    pub fn load_code(&self, raw: &crate::kernel::RawKernel) -> Result<LoadedKernel, LaunchError> {
        if raw.processor != self.processor {
            return Err(LaunchError::WrongTarget { object: raw.processor, device: self.processor });
        }
        Ok(LoadedKernel::from_code(raw, &self.env(raw.wave64)))
    }

    /// Run `kernel` with user arguments `args` (each the argument's bytes, in metadata order
    /// of the non-hidden arguments).
    pub fn launch(&mut self, kernel: &LoadedKernel, geo: Geometry, args: &[Vec<u8>], opts: &EngineOptions) -> Result<DispatchStats, LaunchError> {
        self.launch_hooked(kernel, geo, args, opts, Hooks::default())
    }

    /// [`Device::launch`] with `observer` watching ([`crate::observe`]).
    pub fn launch_observed(
        &mut self,
        kernel: &LoadedKernel,
        geo: Geometry,
        args: &[Vec<u8>],
        opts: &EngineOptions,
        observer: Option<&mut dyn crate::observe::Observer>,
    ) -> Result<DispatchStats, LaunchError> {
        self.launch_hooked(kernel, geo, args, opts, Hooks { observer, ..Hooks::default() })
    }

    /// [`Device::launch`] with the host serving the kernel's calls to it while it runs
    /// (hostcall: device `printf`), see [`HostAgent`].
    pub fn launch_with_host(
        &mut self,
        kernel: &LoadedKernel,
        geo: Geometry,
        args: &[Vec<u8>],
        opts: &EngineOptions,
        host: &mut dyn HostAgent,
    ) -> Result<DispatchStats, LaunchError> {
        self.launch_hooked(kernel, geo, args, opts, Hooks { host: Some(host), ..Hooks::default() })
    }

    /// [`Device::launch`] with any of the [`Hooks`]: the host's services, an observer. With
    /// kernel-level sampling on ([`Device::set_sampling`]) an unwatched timing launch may run
    /// functionally and be charged a predicted time ([`sampled`]).
    pub fn launch_hooked(
        &mut self,
        kernel: &LoadedKernel,
        geo: Geometry,
        args: &[Vec<u8>],
        opts: &EngineOptions,
        hooks: Hooks,
    ) -> Result<DispatchStats, LaunchError> {
        match self.sample_key(kernel, &geo, args, &hooks) {
            Some(key) => self.launch_sampled(kernel, geo, args, opts, hooks, key),
            None => self.launch_engine(kernel, geo, args, opts, hooks, RunOn::Timing),
        }
    }

    /// Run a launch on the timing engine (`timed`, when the device has one) or the functional
    /// engine.
    fn launch_engine(
        &mut self,
        kernel: &LoadedKernel,
        geo: Geometry,
        args: &[Vec<u8>],
        opts: &EngineOptions,
        hooks: Hooks,
        run_on: RunOn,
    ) -> Result<DispatchStats, LaunchError> {
        let Hooks { host, observer, mut turn } = hooks;
        let timed = matches!(run_on, RunOn::Timing);
        if timed {
            self.catch_up_caches();
        }
        let lds_bytes = check_geometry(kernel, &geo)?;
        let d = &kernel.descriptor;
        let lanes: u64 = if kernel.wave64 { 64 } else { 32 };
        let waves_per_group = geo.block.iter().map(|&b| u64::from(b)).product::<u64>().div_ceil(lanes) as u32;
        let max_resident_groups = engine(&mut self.timing, &mut self.functional, timed).max_resident_groups(kernel, waves_per_group, lds_bytes, opts);
        let per_lane = scratch::per_lane_bytes(d.private_segment_fixed_size);
        let scratch_bytes = if per_lane == 0 {
            0
        } else {
            let waves = resident_groups(max_resident_groups, &geo) * u64::from(waves_per_group);
            let bytes = scratch::store_bytes(waves, lanes, per_lane);
            let limit = scratch::host_budget();
            if bytes > limit {
                return Err(LaunchError::ScratchTooLarge { kernel: kernel.name.clone(), waves, lanes, per_lane, bytes, limit });
            }
            bytes
        };
        // Within the budget (and with at least one wave), far below 4 GiB.
        let per_lane = per_lane.min(u64::from(u32::MAX)) as u32;
        let (queue, mut pool) = match self.queue {
            Some(q) => q,
            None => (place_queue(&mut self.mem, &self.apertures), KernargPool::new(&mut self.mem)),
        };
        let kernarg = self.build_kernarg(kernel, args, &geo, queue, host.as_ref().map(|h| h.hostcall_buffer()))?;
        let align = kernel.kernarg.as_ref().map_or(16, |l| l.segment_align);
        let kernarg_addr = pool.place(&mut self.mem, &kernarg, align).ok_or_else(|| LaunchError::KernargTooLarge {
            kernel: kernel.name.clone(),
            bytes: kernarg.len() as u64,
            limit: KernargPool::BYTES,
        })?;
        self.queue = Some((queue, pool));
        let rt = place_runtime_structures(&mut self.mem, &geo, d.group_segment_fixed_size, d.private_segment_fixed_size, kernarg_addr, queue, self.dispatches);
        let mut dispatch = Dispatch { kernel, geo, rt, kernarg, lds_bytes, scratch_base: 0, scratch_per_lane: per_lane, max_resident_groups };
        if scratch_bytes > 0 {
            // Lazily mapped by the host: only the pages the kernel touches take memory.
            dispatch.scratch_base = self.mem.alloc(&format!("hipscope:scratch#{}", self.dispatches), scratch_bytes as usize, MemoryKind::Scratch);
        }
        let scratch_base = dispatch.scratch_base;
        let mut env = self.env(kernel.wave64);
        env.sramecc = kernel.sramecc;
        env.scratch_base = scratch_base;
        env.scratch_per_lane = per_lane as u64;
        self.dispatches += 1;
        if let Some(t) = turn.as_deref_mut() {
            // The engine's local measure: device cycles from where this dispatch starts, or the
            // dispatch's wave-instructions.
            match self.timing.as_ref().filter(|_| timed) {
                Some(ts) => t.set_rate(ts.clock, 1_000_000, u64::from(ts.cfg.clock_mhz.max(1))),
                None => t.set_rate(0, FUNCTIONAL_PS_PER_INSTRUCTION, 1),
            }
        }
        let stats = match run_on {
            RunOn::Warming(port, budget) => crate::engine::run_watched(
                &dispatch,
                &mut env,
                &mut self.mem,
                opts,
                crate::sched::Hooked { host, turn },
                port.map(|p| p as &dyn crate::exec::MemPort),
                budget,
            ),
            _ => engine(&mut self.timing, &mut self.functional, timed).run(&dispatch, &mut env, &mut self.mem, opts, host, observer, turn),
        };
        self.clock = env.clock;
        let stats = stats.map_err(|mut f| {
            if let FaultKind::MemoryViolation { address, .. } = f.kind {
                if let Some(s) = RuntimeService::at(address) {
                    f.kind = FaultKind::NotSupported(s.what().into());
                }
            }
            f
        });
        // The per-dispatch runtime memory lives as long as the dispatch.
        for base in [rt.packet, scratch_base] {
            self.mem.free(base);
        }
        Ok(stats?)
    }

    /// The kernarg segment: user arguments at their metadata offsets, hidden arguments filled.
    fn build_kernarg(&self, kernel: &LoadedKernel, args: &[Vec<u8>], geo: &Geometry, queue: u64, hostcall: Option<u64>) -> Result<Vec<u8>, LaunchError> {
        let size = kernel.descriptor.kernarg_size.max(kernel.kernarg.as_ref().map_or(0, |l| l.segment_size));
        // Checked before anything is allocated: a descriptor or metadata field is input.
        if size > KernargPool::BYTES {
            return Err(LaunchError::KernargTooLarge { kernel: kernel.name.clone(), bytes: size, limit: KernargPool::BYTES });
        }
        let mut bytes = vec![0u8; size as usize];
        let Some(layout) = &kernel.kernarg else {
            // No metadata: arguments are packed in order, 8-byte aligned.
            let mut off = 0;
            for a in args {
                bytes.resize(bytes.len().max(off + a.len()), 0);
                bytes[off..off + a.len()].copy_from_slice(a);
                off = (off + a.len()).next_multiple_of(8);
            }
            return Ok(bytes);
        };
        let user: Vec<_> = layout.args.iter().filter(|a| !a.value_kind.is_hidden()).collect();
        if user.len() != args.len() {
            return Err(LaunchError::ArgCount { kernel: kernel.name.clone(), expected: user.len(), given: args.len() });
        }
        for (i, (meta, value)) in user.iter().zip(args).enumerate() {
            if value.len() as u64 != meta.size {
                return Err(LaunchError::ArgSize { kernel: kernel.name.clone(), index: i, expected: meta.size, given: value.len() });
            }
            // The loader keeps every argument inside the segment; a hand-made layout may not.
            let outside = || LaunchError::ArgOutside { kernel: kernel.name.clone(), index: i, offset: meta.offset, bytes: value.len(), segment: size };
            let start = usize::try_from(meta.offset).map_err(|_| outside())?;
            let dst = bytes.get_mut(start..start.saturating_add(value.len())).ok_or_else(outside)?;
            dst.copy_from_slice(value);
        }
        fill_hidden_args(layout, &mut bytes, geo, queue, &self.apertures, hostcall);
        Ok(bytes)
    }
}

/// The engine a launch runs on: the timing engine once timing is enabled, else the functional
/// one (the one place that chooses).
/// The engine a launch runs on: the timing engine when the device has one and the launch is
/// `timed`, else the functional one.
fn engine<'e>(timing: &'e mut Option<TimingState>, functional: &'e mut Functional, timed: bool) -> &'e mut dyn Engine {
    match timing {
        Some(t) if timed => t,
        _ => functional,
    }
}

/// Refuse what `hipLaunchKernel` refuses (empty grid or block, more than 1024 work-items per
/// block, more LDS than a work-group can have), so that nothing later sizes memory or wave
/// counts from it; returns the work-group's LDS bytes (static + dynamic).
fn check_geometry(kernel: &LoadedKernel, geo: &Geometry) -> Result<u32, LaunchError> {
    let err = |message: String| LaunchError::Geometry { kernel: kernel.name.clone(), message };
    if geo.grid.contains(&0) || geo.block.contains(&0) {
        return Err(err(format!("grid {:?} and block {:?} must be at least 1 in every dimension", geo.grid, geo.block)));
    }
    let items: u64 = geo.block.iter().map(|&b| u64::from(b)).product();
    if items > limits::MAX_WORKGROUP_ITEMS {
        return Err(err(format!("block of {items} work-items, more than {}", limits::MAX_WORKGROUP_ITEMS)));
    }
    let lds = u64::from(kernel.descriptor.group_segment_fixed_size) + u64::from(geo.dynamic_lds);
    if lds > limits::MAX_GROUP_SEGMENT_BYTES {
        return Err(err(format!(
            "{} static + {} dynamic bytes of LDS, more than the {} a work-group can have",
            kernel.descriptor.group_segment_fixed_size,
            geo.dynamic_lds,
            limits::MAX_GROUP_SEGMENT_BYTES
        )));
    }
    // At most 64 KiB: fits.
    Ok(lds as u32)
}
