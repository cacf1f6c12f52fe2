//! The simulated GPU behind the HIP calls: one device, the program's code object (picked from
//! the executable's offload bundle for the simulated processor), registered kernels, events on
//! the simulated timeline, and what each kernel cost.
//!
//! Configured by the environment `hipscope exec` sets: `HIPSCOPE_GPU` (a built-in name or a
//! config file; default mi300a) and `HIPSCOPE_MODE` (`functional` or `timing`; default
//! functional).

use crate::heap::Heap;
use hipscope_isa::codeobj::{self, CodeObject};
use hipscope_sim::gpus::{self, GpuConfig};
use hipscope_sim::kernel::LoadedKernel;
use hipscope_sim::{Device, EngineOptions, Geometry, KernelFault, LaunchError};
use std::collections::BTreeMap;

/// HIP error codes (`hip_runtime_api.h`, `hipError_t`).
pub mod error {
    pub const SUCCESS: u32 = 0;
    pub const INVALID_VALUE: u32 = 1;
    pub const OUT_OF_MEMORY: u32 = 2;
    pub const NOT_INITIALIZED: u32 = 3;
    pub const INVALID_DEVICE_POINTER: u32 = 17;
    pub const INVALID_DEVICE_FUNCTION: u32 = 98;
    pub const LAUNCH_FAILURE: u32 = 719;
    pub const NOT_SUPPORTED: u32 = 801;
}

/// GPU virtual-memory page size.
const PAGE_BYTES: u64 = 4096;

/// One kernel's launches, for the summary printed at exit.
#[derive(Debug, Default, Clone)]
pub struct KernelStats {
    pub launches: u64,
    pub cycles: u64,
    pub grid: [u32; 3],
    pub block: [u32; 3],
}

pub struct Runtime {
    pub gpu: GpuConfig,
    pub timing: bool,
    pub device: Device,
    pub code: Option<CodeObject>,
    /// Host stub address → kernel symbol name (`__hipRegisterFunction`).
    pub functions: BTreeMap<usize, String>,
    loaded: BTreeMap<String, LoadedKernel>,
    /// Device allocations: base → size.
    pub allocations: BTreeMap<u64, u64>,
    /// Where they are carved from.
    heap: Heap,
    pub stats: BTreeMap<String, KernelStats>,
    /// Simulated time in milliseconds when the last operation ended (timing mode).
    pub now_ms: f64,
    pub last_error: u32,
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
    let mut device = Device::new(gpu.processor);
    if timing {
        device.enable_timing(&gpu)?;
    }
    Ok(Runtime {
        gpu,
        timing,
        device,
        code: None,
        functions: BTreeMap::new(),
        loaded: BTreeMap::new(),
        allocations: BTreeMap::new(),
        heap: Heap::default(),
        stats: BTreeMap::new(),
        now_ms: 0.0,
        last_error: error::SUCCESS,
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

    /// A device allocation of whole GPU pages (4 KiB, the GPUVM page size), carved from 2 MiB
    /// blocks as ROCr does ([`Heap`]), so a kernel that accesses a little past the requested
    /// size touches mapped memory, as on a real GPU, instead of faulting.
    pub fn malloc(&mut self, bytes: u64) -> u64 {
        let size = bytes.max(1).next_multiple_of(PAGE_BYTES);
        let base = self.heap.alloc(size, &mut self.device.mem);
        self.allocations.insert(base, size);
        base
    }

    /// `hipMemset`: every byte of `[address, address + len)` set to `value`.
    pub fn memset(&mut self, address: u64, value: u8, len: u64) -> u32 {
        if !self.is_device(address, len) {
            return error::INVALID_VALUE;
        }
        let bytes = vec![value; len as usize];
        self.write(address, &bytes)
    }

    /// Write into device memory as a copy engine does: memory, not the GPU's caches (which
    /// drop what they held, after writing back what was dirty).
    pub fn write(&mut self, address: u64, bytes: &[u8]) -> u32 {
        self.device.synchronize();
        self.device.reset_caches();
        match self.device.mem.write(address, bytes) {
            Ok(()) => error::SUCCESS,
            Err(_) => error::INVALID_DEVICE_POINTER,
        }
    }

    pub fn free(&mut self, base: u64) -> u32 {
        if base == 0 {
            return error::SUCCESS;
        }
        match self.allocations.remove(&base) {
            Some(_) => {
                self.heap.free(base, &mut self.device.mem);
                error::SUCCESS
            }
            None => error::INVALID_DEVICE_POINTER,
        }
    }

    /// Whether `[address, address + len)` lies in one device allocation.
    pub fn is_device(&self, address: u64, len: u64) -> bool {
        self.allocations.range(..=address).next_back().is_some_and(|(&base, &size)| address.checked_add(len).is_some_and(|end| end <= base + size))
    }

    /// Launch the kernel registered for `stub` with the arguments' bytes.
    pub fn launch(&mut self, stub: usize, geo: Geometry, args: *const *const u8) -> Result<(), LaunchFailure> {
        self.load_program().map_err(LaunchFailure::Setup)?;
        let name = self.functions.get(&stub).cloned().ok_or(LaunchFailure::UnknownFunction)?;
        if !self.loaded.contains_key(&name) {
            let co = self.code.as_ref().ok_or_else(|| LaunchFailure::Setup("no code object".into()))?;
            let k = self.device.load_kernel(co, &name).map_err(|e| LaunchFailure::Setup(e.to_string()))?;
            self.loaded.insert(name.clone(), k);
        }
        let kernel = self.loaded.get(&name).ok_or(LaunchFailure::UnknownFunction)?;
        let user: Vec<u64> = kernel.kernarg.as_ref().map_or_else(Vec::new, |l| l.args.iter().filter(|a| !a.value_kind.is_hidden()).map(|a| a.size).collect());
        if args.is_null() && !user.is_empty() {
            return Err(LaunchFailure::Setup(format!("kernel {name} takes {} arguments, none given", user.len())));
        }
        let mut values = Vec::with_capacity(user.len());
        for (i, size) in user.iter().enumerate() {
            // SAFETY: HIP's launch contract: one pointer per kernel argument.
            let p = unsafe { *args.add(i) };
            if p.is_null() {
                return Err(LaunchFailure::Setup(format!("kernel {name}: argument {i} is a null pointer")));
            }
            // SAFETY: HIP's launch contract: `args[i]` points to the i-th argument's value,
            // of the size the kernel's metadata gives.
            values.push(unsafe { std::slice::from_raw_parts(p, *size as usize) }.to_vec());
        }
        let stats = self.device.launch(kernel, geo, &values, &EngineOptions::default()).map_err(|e| match e {
            LaunchError::Fault(f) => LaunchFailure::Fault(f),
            other => LaunchFailure::Setup(other.to_string()),
        })?;
        let cycles = stats.cycles.unwrap_or(0);
        if self.timing {
            self.now_ms += self.ms_of(cycles);
        }
        let s = self.stats.entry(name).or_default();
        s.launches += 1;
        s.cycles += cycles;
        (s.grid, s.block) = (geo.grid, geo.block);
        Ok(())
    }

    /// Shader cycles as milliseconds at the GPU's clock.
    fn ms_of(&self, cycles: u64) -> f64 {
        let mhz = self.gpu.timing.as_ref().map_or(1000, |t| t.clock_mhz.max(1));
        cycles as f64 / (f64::from(mhz) * 1000.0)
    }

    /// One line per kernel: launches, grid, block, simulated cycles and time.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        for (name, s) in &self.stats {
            let shown = codeobj::demangle(name).unwrap_or_else(|| name.clone());
            let time = if self.timing { format!(", {} cycles, {:.3} ms", s.cycles, self.ms_of(s.cycles)) } else { String::new() };
            out.push_str(&format!("hipscope: {shown}: {} launch(es), grid {:?}, block {:?}{time}\n", s.launches, s.grid, s.block));
        }
        out
    }
}

/// Why a launch did not run.
pub enum LaunchFailure {
    UnknownFunction,
    Setup(String),
    Fault(KernelFault),
}
