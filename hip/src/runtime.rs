//! The simulated GPU behind the HIP calls: one device, the program's code object (picked from
//! the executable's offload bundle for the simulated processor), registered kernels and
//! variables, the allocations, the simulated timeline, and what each kernel cost.
//!
//! Configured by the environment `hipscope exec` sets: `HIPSCOPE_GPU` (a built-in name or a
//! config file; default mi300a), `HIPSCOPE_MODE` (`functional` or `timing`; default
//! functional), `HIPSCOPE_SEED` (the engine's interleaving seed; default 0) and
//! `HIPSCOPE_KERNEL_TRACE`, `HIPSCOPE_COUNTERS` (CSV files with one row per launch) and
//! `HIPSCOPE_REPORT` (a JSON file written at exit).

use crate::abi;
use crate::hostcall::Hostcall;
use crate::memory::Allocations;
use crate::timeline::{Engine, Timeline};
use crate::trace::{CounterLog, KernelTrace};
use hipscope_grade::dynamic::Detector;
use hipscope_grade::runs::KernelGrade;
use hipscope_grade::runs::Names;
use hipscope_grade::story::{Focus, Story, Told};
use hipscope_isa::codeobj::{self, CodeObject, HiddenKind, ValueKind};
use hipscope_sim::gpus::{self, GpuConfig};
use hipscope_sim::kernel::LoadedKernel;
use hipscope_sim::launch::Hooks;
use hipscope_sim::observe::Observer;
use hipscope_sim::{Device, EngineOptions, Geometry, KernelFault, LaunchError};
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
    pub const INVALID_IMAGE: u32 = 200;
    pub const FILE_NOT_FOUND: u32 = 301;
    pub const INVALID_HANDLE: u32 = 400;
    pub const NOT_FOUND: u32 = 500;
    pub const NOT_READY: u32 = 600;
    pub const LAUNCH_FAILURE: u32 = 719;
    pub const NOT_SUPPORTED: u32 = 801;
}

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
}

/// One launch, for `--report`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LaunchRecord {
    pub kernel: String,
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
}

/// A `__device__` or `__constant__` variable the program registered: its device name and size.
#[derive(Debug, Clone)]
pub struct Variable {
    pub name: String,
    pub size: u64,
}

pub struct Runtime {
    pub gpu: GpuConfig,
    pub timing: bool,
    pub seed: u64,
    pub device: Device,
    pub code: Option<CodeObject>,
    /// Host stub address (or module function handle) → kernel symbol name.
    pub functions: BTreeMap<usize, String>,
    /// The handles `hipModuleGetFunction` gave out.
    pub module_functions: BTreeSet<usize>,
    /// Host shadow variable address → device variable (`__hipRegisterVar`).
    pub variables: BTreeMap<usize, Variable>,
    loaded: BTreeMap<String, LoadedKernel>,
    pub memory: Allocations,
    pub stats: BTreeMap<String, KernelStats>,
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
    /// The hostcall buffer (device `printf`), placed at the first kernel that has one.
    hostcall: Option<Hostcall>,
    pub last_error: u32,
    /// APIs already reported as not supported (each is reported once).
    pub unsupported_seen: BTreeSet<String>,
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
    let name = std::env::var("HIPSCOPE_GPU").unwrap_or_else(|_| "mi300a".into());
    let gpu = gpus::resolve(&name).map_err(|e| e.to_string())?;
    let timing = match std::env::var("HIPSCOPE_MODE").as_deref() {
        Ok("timing") => true,
        Ok("functional") | Err(_) => false,
        Ok(other) => return Err(format!("HIPSCOPE_MODE={other}: expected functional or timing")),
    };
    let seed = match std::env::var("HIPSCOPE_SEED") {
        Ok(s) => s.parse().map_err(|_| format!("HIPSCOPE_SEED={s}: expected an unsigned integer"))?,
        Err(_) => 0,
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
    let mut device = Device::new(gpu.processor);
    if timing {
        device.enable_timing(&gpu)?;
    }
    Ok(Runtime {
        timeline: Timeline::default(),
        gpu,
        timing,
        seed,
        device,
        code: None,
        functions: BTreeMap::new(),
        module_functions: BTreeSet::new(),
        variables: BTreeMap::new(),
        loaded: BTreeMap::new(),
        memory: Allocations::default(),
        stats: BTreeMap::new(),
        trace,
        counter_log,
        report,
        launches: Vec::new(),
        races,
        story,
        finished: false,
        hostcall: None,
        last_error: error::SUCCESS,
        unsupported_seen: BTreeSet::new(),
    })
}

impl Runtime {
    /// Load the program's device code: the executable's own offload bundle, the entry for the
    /// simulated processor (the fat binary a `__hipRegisterFatBinary` hands over is a copy of
    /// the executable's `.hip_fatbin` section).
    pub fn load_program(&mut self) -> Result<(), String> {
        if self.code.is_some() {
            return Ok(());
        }
        let exe = std::fs::read("/proc/self/exe").map_err(|e| format!("cannot read the program: {e}"))?;
        let co = codeobj::load(&exe, Some(self.gpu.processor.name())).map_err(|e| e.to_string())?;
        self.device.map_code_object(&co).map_err(|e| e.to_string())?;
        self.code = Some(co);
        Ok(())
    }

    /// The device address and size of a registered variable (by its host shadow's address).
    pub fn variable(&mut self, host: usize) -> Option<(u64, u64)> {
        self.load_program().ok()?;
        let var = self.variables.get(&host)?;
        let sym = self.device.global(&var.name)?;
        Some((sym.address, sym.size.max(var.size)))
    }

    /// The kernel registered for a host stub, loaded for the device.
    pub fn kernel(&mut self, stub: usize) -> Result<&LoadedKernel, LaunchFailure> {
        self.load_program().map_err(LaunchFailure::Setup)?;
        let name = self.functions.get(&stub).ok_or(LaunchFailure::UnknownFunction)?;
        if !self.loaded.contains_key(name) {
            let co = self.code.as_ref().ok_or_else(|| LaunchFailure::Setup("no code object".into()))?;
            let k = self.device.load_kernel(co, name).map_err(|e| LaunchFailure::Setup(e.to_string()))?;
            self.loaded.insert(name.clone(), k);
        }
        self.loaded.get(name).ok_or(LaunchFailure::UnknownFunction)
    }

    /// Launch the kernel registered for `stub` on `stream` with the arguments' bytes.
    pub fn launch(&mut self, stub: usize, geo: Geometry, args: *const *const u8, stream: usize) -> Result<(), LaunchFailure> {
        let kernel = self.kernel(stub)?;
        let name = kernel.name.clone();
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
        self.launch_values(&name, geo, &values, stream)
    }

    /// Launch a loaded kernel with its user arguments' bytes.
    pub fn launch_values(&mut self, name: &str, geo: Geometry, values: &[Vec<u8>], stream: usize) -> Result<(), LaunchFailure> {
        self.memory.host_to_device(&mut self.device);
        let opts = EngineOptions { seed: self.seed, ..EngineOptions::default() };
        let kernel = self.loaded.get(name).ok_or(LaunchFailure::UnknownFunction)?;
        let wants_hostcall = kernel.kernarg.as_ref().is_some_and(|l| l.args.iter().any(|a| a.value_kind == ValueKind::Hidden(HiddenKind::HostcallBuffer)));
        let mut detector = self.races.as_ref().map(|_| Detector::new());
        let mut story = self.story.as_ref().filter(|j| j.told.is_none() && j.focus.race.kernel == name).map(|j| Story::new(j.focus.clone()));
        let host = if wants_hostcall { Some(self.hostcall.get_or_insert_with(|| Hostcall::new(&mut self.device.mem))) } else { None };
        let observer: Option<&mut dyn Observer> = match (&mut story, &mut detector) {
            (Some(s), _) => Some(s),
            (None, Some(d)) => Some(d),
            (None, None) => None,
        };
        let hooks = Hooks { host: host.map(|h| h as &mut dyn hipscope_sim::host::HostAgent), observer };
        let result = self.device.launch_hooked(kernel, geo, values, &opts, hooks);
        if let (Some(job), Some(story)) = (&mut self.story, &story) {
            let default = Default::default();
            let lines = self.code.as_ref().map_or(&default, |c| &c.lines);
            job.told = Some(hipscope_grade::story::tell(story, self.seed, &Names::new(kernel, lines)));
        }
        if let (Some(log), Some(det)) = (&mut self.races, &detector) {
            let lines = self.code.as_ref().map(|c| &c.lines);
            let default = Default::default();
            let target = self.gpu.name.clone();
            log.kernels.entry(name.to_string()).or_insert_with(|| KernelGrade::new(kernel, &target)).add_launch(
                det,
                kernel,
                lines.unwrap_or(&default),
                self.seed,
            );
        }
        let stats = result.map_err(|e| match e {
            LaunchError::Fault(f) => LaunchFailure::Fault(f),
            other => LaunchFailure::Setup(other.to_string()),
        })?;
        self.memory.device_to_host(&mut self.device);
        let cycles = stats.cycles.unwrap_or(0);
        let ms = self.ms_of(cycles) + crate::copy_engine::idle_launch_ms(self, stream);
        let (start, end) = self.timeline.run(stream, Engine::Compute, ms);
        if let Some(t) = &mut self.trace {
            let regs = self.code.as_ref().and_then(|c| c.kernel(name)).map(|k| &k.registers);
            t.kernel(kernel, regs, &geo, stream, start, end);
        }
        let counters = stats.counters.as_ref().map_or_else(Vec::new, |c| c.named(kernel.family.is_rdna()));
        let counter = |suffix: &str| counters.iter().find(|(n, _)| n.ends_with(suffix)).map_or(0, |(_, v)| *v);
        let (hits, misses) = (counter("_HIT_sum"), counter("_MISS_sum"));
        if let Some(log) = &mut self.counter_log {
            log.launch(name, start, end, &counters);
        }
        if self.report.is_some() {
            self.launches.push(LaunchRecord {
                kernel: codeobj::demangle(name).unwrap_or_else(|| name.to_string()),
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
            });
        }
        let s = self.stats.entry(name.to_string()).or_default();
        s.launches += 1;
        s.cycles += cycles;
        s.instructions += stats.instructions;
        s.l2_hits += hits;
        s.l2_misses += misses;
        (s.grid, s.block) = (geo.grid, geo.block);
        Ok(())
    }

    /// Shader cycles as milliseconds at the GPU's clock (0 in functional mode: no timeline).
    fn ms_of(&self, cycles: u64) -> f64 {
        let mhz = self.gpu.timing.as_ref().map_or(1000, |t| t.clock_mhz.max(1));
        cycles as f64 / (f64::from(mhz) * 1000.0)
    }

    /// Simulated time of a copy of `bytes` on `engine` (`copy_engine`).
    pub fn copy_ms(&self, engine: Engine, bytes: u64) -> f64 {
        crate::copy_engine::copy_ms(self, engine, bytes)
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
            .map(|(name, s)| {
                serde_json::json!({
                    "kernel": codeobj::demangle(name).unwrap_or_else(|| name.clone()),
                    "symbol": name,
                    "launches": s.launches,
                    "cycles": self.timing.then_some(s.cycles),
                    "time_ms": self.timing.then(|| self.ms_of(s.cycles)),
                    "instructions": s.instructions,
                })
            })
            .collect();
        let doc = serde_json::json!({
            "gpu": self.gpu.name,
            "mode": if self.timing { "timing" } else { "functional" },
            "seed": self.seed,
            "kernels": kernels,
            "launches": self.launches,
        });
        let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        if let Err(e) = std::fs::write(path, text + "\n") {
            eprintln!("hipscope: {}: {e}", path.display());
        }
    }

    /// Report an API the runtime lacks, once per name.
    pub fn unsupported(&mut self, name: &str) -> u32 {
        if self.unsupported_seen.insert(name.to_string()) {
            eprintln!("hipscope: {name} is not supported");
        }
        error::NOT_SUPPORTED
    }

    /// One line per kernel: launches, grid, block, simulated cycles and time.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        for (name, s) in &self.stats {
            let shown = codeobj::demangle(name).unwrap_or_else(|| name.clone());
            let time = if self.timing {
                let l2 = s.l2_hits + s.l2_misses;
                let hit = if l2 == 0 { String::new() } else { format!(", L2 hit {:.1} %", 100.0 * s.l2_hits as f64 / l2 as f64) };
                format!(", {} cycles, {:.3} ms{hit}", s.cycles, self.ms_of(s.cycles))
            } else {
                String::new()
            };
            out.push_str(&format!(
                "hipscope: {shown}: {} launch(es), grid {:?}, block {:?}, {} wave-instructions{time}\n",
                s.launches, s.grid, s.block, s.instructions
            ));
        }
        out
    }
}

/// Why a launch did not run.
pub enum LaunchFailure {
    UnknownFunction,
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
