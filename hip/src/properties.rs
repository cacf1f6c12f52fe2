//! `hipGetDeviceProperties` and `hipDeviceGetAttribute`, answered from the GPU config, so a
//! program that sizes its launches by the device (wave size, CU count, LDS) sizes them for the
//! simulated GPU. Layouts and attribute numbers are HIP's ([`crate::abi`]).

use crate::abi::{attribute as a, hip_device_prop as p};
use hipscope_sim::gpus::GpuConfig;

/// What the device reports, in HIP's units.
pub struct Properties {
    name: String,
    arch_name: String,
    total_global_mem: u64,
    shared_mem_per_block: u64,
    warp_size: i32,
    max_threads_per_block: i32,
    max_grid: i32,
    clock_khz: i32,
    memory_clock_khz: i32,
    memory_bus_width: i32,
    major: i32,
    minor: i32,
    gcn_arch: i32,
    multiprocessors: i32,
    l2_bytes: i32,
    max_threads_per_multiprocessor: i32,
    integrated: bool,
    concurrent_managed_access: bool,
    pageable_memory_access: bool,
    host_native_atomics: bool,
}

/// Threads per block and per block dimension on every AMD GPU (LLVM AMDGPU's
/// `amdgpu-flat-work-group-size` maximum, HIP's `maxThreadsPerBlock`).
const MAX_THREADS_PER_BLOCK: i32 = 1024;
/// The constant 100 MHz clock `s_memrealtime` / `wall_clock64()` read (HIP's
/// `clockInstructionRate`, in kHz).
const CLOCK_INSTRUCTION_RATE_KHZ: i32 = 100_000;
/// Registers per block HIP reports on AMD GPUs (64 KiB of 32-bit registers).
const REGS_PER_BLOCK: i32 = 65_536;
/// hipDeviceArch_t: every feature flag but dynamic parallelism (bit 16), which AMD GPUs lack.
const ARCH_FLAGS: u32 = 0xffff;

impl Properties {
    pub fn of(gpu: &GpuConfig) -> Properties {
        let proc = gpu.processor.name();
        let (major, minor, stepping) = version(proc);
        let t = gpu.timing.as_ref();
        let sat = |v: u64| i32::try_from(v).unwrap_or(i32::MAX);
        Properties {
            name: gpu.marketing_name.clone(),
            arch_name: proc.to_string(),
            total_global_mem: gpu.hip.total_global_mem_bytes,
            // 64 KiB of LDS per work-group on every GCN/CDNA/RDNA GPU (ISA guides, "LDS").
            shared_mem_per_block: t.map_or(65_536, |t| u64::from(t.lds.size_bytes)),
            warp_size: sat(u64::from(gpu.hip.warp_size)),
            max_threads_per_block: MAX_THREADS_PER_BLOCK,
            max_grid: i32::MAX,
            clock_khz: sat(u64::from(t.map_or(0, |t| t.clock_mhz)) * 1000),
            memory_clock_khz: sat(u64::from(gpu.hip.memory_clock_rate_khz)),
            memory_bus_width: sat(u64::from(gpu.hip.memory_bus_width_bits)),
            major,
            minor,
            gcn_arch: major * 100 + minor * 10 + stepping,
            multiprocessors: sat(u64::from(gpu.hip.multi_processor_count)),
            l2_bytes: sat(t.map_or(0, |t| t.l2.size_bytes)),
            max_threads_per_multiprocessor: t.map_or(2048, |t| sat(u64::from(t.core.max_waves_per_simd * t.core.simds_per_cu * gpu.wave_size))),
            integrated: gpu.hip.integrated,
            concurrent_managed_access: gpu.hip.concurrent_managed_access,
            pageable_memory_access: gpu.hip.pageable_memory_access,
            host_native_atomics: gpu.hip.host_native_atomic_supported,
        }
    }

    /// `hipDeviceProp_t` (HIP 5.2 layout).
    pub fn device_prop(&self) -> Vec<u8> {
        let mut b = vec![0u8; p::SIZE];
        let mut put = |off: usize, bytes: &[u8]| b[off..off + bytes.len()].copy_from_slice(bytes);
        let name = |s: &str| {
            let mut v = s.as_bytes()[..s.len().min(255)].to_vec();
            v.push(0);
            v
        };
        put(p::NAME, &name(&self.name));
        put(p::TOTAL_GLOBAL_MEM, &self.total_global_mem.to_le_bytes());
        put(p::SHARED_MEM_PER_BLOCK, &self.shared_mem_per_block.to_le_bytes());
        put(p::REGS_PER_BLOCK, &REGS_PER_BLOCK.to_le_bytes());
        put(p::WARP_SIZE, &self.warp_size.to_le_bytes());
        put(p::MAX_THREADS_PER_BLOCK, &self.max_threads_per_block.to_le_bytes());
        for d in 0..3 {
            put(p::MAX_THREADS_DIM + 4 * d, &self.max_threads_per_block.to_le_bytes());
            put(p::MAX_GRID_SIZE + 4 * d, &self.max_grid.to_le_bytes());
        }
        put(p::CLOCK_RATE, &self.clock_khz.to_le_bytes());
        put(p::MEMORY_CLOCK_RATE, &self.memory_clock_khz.to_le_bytes());
        put(p::MEMORY_BUS_WIDTH, &self.memory_bus_width.to_le_bytes());
        put(p::TOTAL_CONST_MEM, &self.total_global_mem.to_le_bytes());
        put(p::MAJOR, &self.major.to_le_bytes());
        put(p::MINOR, &self.minor.to_le_bytes());
        put(p::MULTI_PROCESSOR_COUNT, &self.multiprocessors.to_le_bytes());
        put(p::L2_CACHE_SIZE, &self.l2_bytes.to_le_bytes());
        put(p::MAX_THREADS_PER_MULTI_PROCESSOR, &self.max_threads_per_multiprocessor.to_le_bytes());
        put(p::CLOCK_INSTRUCTION_RATE, &CLOCK_INSTRUCTION_RATE_KHZ.to_le_bytes());
        put(p::ARCH, &ARCH_FLAGS.to_le_bytes());
        put(p::CONCURRENT_KERNELS, &1i32.to_le_bytes());
        put(p::MAX_SHARED_MEMORY_PER_MULTI_PROCESSOR, &self.shared_mem_per_block.to_le_bytes());
        put(p::CAN_MAP_HOST_MEMORY, &1i32.to_le_bytes());
        put(p::GCN_ARCH, &self.gcn_arch.to_le_bytes());
        put(p::GCN_ARCH_NAME, &name(&self.arch_name));
        put(p::INTEGRATED, &i32::from(self.integrated).to_le_bytes());
        put(p::COOPERATIVE_LAUNCH, &1i32.to_le_bytes());
        put(p::MANAGED_MEMORY, &1i32.to_le_bytes());
        put(p::DIRECT_MANAGED_MEM_ACCESS_FROM_HOST, &i32::from(self.integrated).to_le_bytes());
        put(p::CONCURRENT_MANAGED_ACCESS, &i32::from(self.concurrent_managed_access).to_le_bytes());
        put(p::PAGEABLE_MEMORY_ACCESS, &i32::from(self.pageable_memory_access).to_le_bytes());
        put(p::PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES, &i32::from(self.pageable_memory_access).to_le_bytes());
        b
    }

    /// `hipDeviceGetAttribute`, or `None` for an attribute the simulated device does not have.
    pub fn attribute(&self, attr: i32) -> Option<i32> {
        let sat = |v: u64| i32::try_from(v).unwrap_or(i32::MAX);
        Some(match attr {
            a::WARP_SIZE => self.warp_size,
            a::MULTIPROCESSOR_COUNT | a::PHYSICAL_MULTI_PROCESSOR_COUNT => self.multiprocessors,
            a::MAX_THREADS_PER_BLOCK | a::MAX_BLOCK_DIM_X | a::MAX_BLOCK_DIM_Y | a::MAX_BLOCK_DIM_Z => self.max_threads_per_block,
            a::MAX_GRID_DIM_X | a::MAX_GRID_DIM_Y | a::MAX_GRID_DIM_Z => self.max_grid,
            a::MAX_SHARED_MEMORY_PER_BLOCK | a::SHARED_MEM_PER_BLOCK_OPTIN | a::SHARED_MEM_PER_MULTIPROCESSOR | a::MAX_SHARED_MEMORY_PER_MULTIPROCESSOR => {
                sat(self.shared_mem_per_block)
            }
            a::CLOCK_RATE => self.clock_khz,
            a::MEMORY_CLOCK_RATE => self.memory_clock_khz,
            a::MEMORY_BUS_WIDTH => self.memory_bus_width,
            a::COMPUTE_CAPABILITY_MAJOR => self.major,
            a::COMPUTE_CAPABILITY_MINOR => self.minor,
            a::GCN_ARCH => self.gcn_arch,
            a::L2_CACHE_SIZE => self.l2_bytes,
            a::MAX_THREADS_PER_MULTI_PROCESSOR => self.max_threads_per_multiprocessor,
            a::MAX_REGISTERS_PER_BLOCK => REGS_PER_BLOCK,
            a::CLOCK_INSTRUCTION_RATE => CLOCK_INSTRUCTION_RATE_KHZ,
            a::TOTAL_GLOBAL_MEM | a::TOTAL_CONSTANT_MEMORY => sat(self.total_global_mem),
            a::INTEGRATED => i32::from(self.integrated),
            a::DIRECT_MANAGED_MEM_ACCESS_FROM_HOST => i32::from(self.integrated),
            a::CONCURRENT_MANAGED_ACCESS => i32::from(self.concurrent_managed_access),
            a::PAGEABLE_MEMORY_ACCESS | a::PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES => i32::from(self.pageable_memory_access),
            a::HOST_NATIVE_ATOMIC_SUPPORTED => i32::from(self.host_native_atomics),
            a::CONCURRENT_KERNELS | a::CAN_MAP_HOST_MEMORY | a::MANAGED_MEMORY | a::COOPERATIVE_LAUNCH | a::UNIFIED_ADDRESSING | a::FINE_GRAIN_SUPPORT => 1,
            a::ECC_ENABLED | a::KERNEL_EXEC_TIMEOUT | a::IS_MULTI_GPU_BOARD | a::COMPUTE_MODE | a::PCI_BUS_ID | a::PCI_DEVICE_ID | a::PCI_DOMAIN_ID => 0,
            _ => return None,
        })
    }
}

/// (major, minor, stepping) from an LLVM processor name: `gfx942` → (9, 4, 2), `gfx90a` →
/// (9, 0, 10), `gfx1100` → (11, 0, 0); the last two characters are hex digits.
fn version(processor: &str) -> (i32, i32, i32) {
    let digits = processor.trim_start_matches("gfx");
    let n = digits.len();
    if n < 3 {
        return (0, 0, 0);
    }
    let hex = |s: &str| i32::from_str_radix(s, 16).unwrap_or(0);
    (digits[..n - 2].parse().unwrap_or(0), hex(&digits[n - 2..n - 1]), hex(&digits[n - 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_follow_llvm_processor_names() {
        // ROCm reports these gcnArch numbers and major/minor for them (hipDeviceProp_t docs).
        assert_eq!(version("gfx942"), (9, 4, 2));
        assert_eq!(version("gfx90a"), (9, 0, 10));
        assert_eq!(version("gfx1100"), (11, 0, 0));
        assert_eq!(version("gfx803"), (8, 0, 3));
    }

    #[test]
    fn properties_carry_the_config_wave_size_and_cu_count() {
        for name in ["mi300a", "mi210", "rx7900xtx"] {
            let gpu = hipscope_sim::gpus::resolve(name).expect("a built-in GPU");
            let props = Properties::of(&gpu);
            let b = props.device_prop();
            let int = |off: usize| i32::from_le_bytes(b[off..off + 4].try_into().expect("4 bytes"));
            assert_eq!(int(p::WARP_SIZE) as u32, gpu.wave_size, "{name}");
            assert_eq!(int(p::MULTI_PROCESSOR_COUNT) as u32, gpu.hip.multi_processor_count, "{name}");
            assert_eq!(props.attribute(a::WARP_SIZE), Some(gpu.wave_size as i32));
            assert!(b[p::GCN_ARCH_NAME..].starts_with(gpu.processor.name().as_bytes()));
        }
    }
}
