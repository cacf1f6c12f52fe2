//! `hipGetDeviceProperties` and `hipDeviceGetAttribute`, answered from the GPU config, so a
//! program that sizes its launches by the device (wave size, CU count, LDS) sizes them for the
//! simulated GPU. Layouts and attribute numbers are HIP's ([`crate::abi`]).

use crate::abi::{attribute as a, hip6, hip7, Release};
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
    /// XCDs (`hipDeviceAttributeNumberOfXccs`, HIP 7).
    xccs: i32,
    /// VGPRs one work-item may use (`hipDeviceAttributeMaxAvailableVgprsPerThread`, HIP 7):
    /// 512 with the accumulation registers of CDNA2/3, else 256 (AMDGPUUsage register limits).
    vgprs_per_thread: i32,
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
/// `asyncEngineCount`: copy engines (SDMA) HIP reports (ROCm CLR: 2 on every GPU it lists).
const ASYNC_ENGINES: i32 = 2;
/// `textureAlignment` / `texturePitchAlignment` HIP reports on AMD GPUs (ROCm CLR: 256).
const TEXTURE_ALIGNMENT_BYTES: u64 = 256;

/// Store `bytes` at `off` of a property struct.
fn put(b: &mut [u8], off: usize, bytes: &[u8]) {
    b[off..off + bytes.len()].copy_from_slice(bytes);
}

/// The fields HIP 5.2's `hipDeviceProp_t` and 6.x's `hipDeviceProp_tR0600` share, at the
/// offsets of layout module `$p` (generated per release, so the names are the same).
macro_rules! common_fields {
    ($p:ident, $s:ident, $b:ident) => {{
        let name = |s: &str| {
            let mut v = s.as_bytes()[..s.len().min(255)].to_vec();
            v.push(0);
            v
        };
        let int = |v: i32| v.to_le_bytes();
        put(&mut $b, $p::NAME, &name(&$s.name));
        put(&mut $b, $p::TOTAL_GLOBAL_MEM, &$s.total_global_mem.to_le_bytes());
        put(&mut $b, $p::SHARED_MEM_PER_BLOCK, &$s.shared_mem_per_block.to_le_bytes());
        put(&mut $b, $p::REGS_PER_BLOCK, &int(REGS_PER_BLOCK));
        put(&mut $b, $p::WARP_SIZE, &int($s.warp_size));
        put(&mut $b, $p::MAX_THREADS_PER_BLOCK, &int($s.max_threads_per_block));
        for d in 0..3 {
            put(&mut $b, $p::MAX_THREADS_DIM + 4 * d, &int($s.max_threads_per_block));
            put(&mut $b, $p::MAX_GRID_SIZE + 4 * d, &int($s.max_grid));
        }
        put(&mut $b, $p::CLOCK_RATE, &int($s.clock_khz));
        put(&mut $b, $p::MEMORY_CLOCK_RATE, &int($s.memory_clock_khz));
        put(&mut $b, $p::MEMORY_BUS_WIDTH, &int($s.memory_bus_width));
        put(&mut $b, $p::TOTAL_CONST_MEM, &$s.total_global_mem.to_le_bytes());
        put(&mut $b, $p::MAJOR, &int($s.major));
        put(&mut $b, $p::MINOR, &int($s.minor));
        put(&mut $b, $p::MULTI_PROCESSOR_COUNT, &int($s.multiprocessors));
        put(&mut $b, $p::L2_CACHE_SIZE, &int($s.l2_bytes));
        put(&mut $b, $p::MAX_THREADS_PER_MULTI_PROCESSOR, &int($s.max_threads_per_multiprocessor));
        put(&mut $b, $p::CLOCK_INSTRUCTION_RATE, &int(CLOCK_INSTRUCTION_RATE_KHZ));
        put(&mut $b, $p::ARCH, &ARCH_FLAGS.to_le_bytes());
        put(&mut $b, $p::CONCURRENT_KERNELS, &int(1));
        put(&mut $b, $p::MAX_SHARED_MEMORY_PER_MULTI_PROCESSOR, &$s.shared_mem_per_block.to_le_bytes());
        put(&mut $b, $p::CAN_MAP_HOST_MEMORY, &int(1));
        put(&mut $b, $p::GCN_ARCH_NAME, &name(&$s.arch_name));
        put(&mut $b, $p::INTEGRATED, &int(i32::from($s.integrated)));
        put(&mut $b, $p::COOPERATIVE_LAUNCH, &int(1));
        put(&mut $b, $p::MANAGED_MEMORY, &int(1));
        put(&mut $b, $p::DIRECT_MANAGED_MEM_ACCESS_FROM_HOST, &int(i32::from($s.integrated)));
        put(&mut $b, $p::CONCURRENT_MANAGED_ACCESS, &int(i32::from($s.concurrent_managed_access)));
        put(&mut $b, $p::PAGEABLE_MEMORY_ACCESS, &int(i32::from($s.pageable_memory_access)));
        put(&mut $b, $p::PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES, &int(i32::from($s.pageable_memory_access)));
    }};
}

impl Properties {
    pub fn of(gpu: &GpuConfig) -> Properties {
        let proc = gpu.processor.name();
        let (major, minor, stepping) = version(proc);
        let t = gpu.timing.as_ref();
        let sat = |v: u64| i32::try_from(v).unwrap_or(i32::MAX);
        Properties {
            name: gpu.marketing_name.clone(),
            // The target id in the GPU's XNACK/SRAMECC modes, as ROCm reports it
            // (`gfx90a:sramecc+:xnack-`): libraries pick code objects and kernel libraries by it.
            arch_name: gpu.target().target_id(),
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
            xccs: t.map_or(1, |t| sat(u64::from(t.topology.xcds))),
            vgprs_per_thread: if matches!(gpu.processor.family(), hipscope_isa::Family::Gfx90a | hipscope_isa::Family::Gfx940) { 512 } else { 256 },
        }
    }

    /// `hipDeviceProp_t` in HIP 5.2's layout (what 6.x and 7.x call `hipDeviceProp_tR0000`,
    /// filled by `hipGetDeviceProperties` and `hipGetDevicePropertiesR0000`).
    pub fn device_prop(&self) -> Vec<u8> {
        use crate::abi::hip_device_prop as p;
        let mut b = vec![0u8; p::SIZE];
        common_fields!(p, self, b);
        put(&mut b, p::GCN_ARCH, &self.gcn_arch.to_le_bytes());
        b
    }

    /// `hipDeviceProp_tR0600`, the `hipDeviceProp_t` of programs built against HIP 6.x and
    /// 7.x headers (`hipGetDevicePropertiesR0600`); the layout is the same in both.
    pub fn device_prop_r0600(&self) -> Vec<u8> {
        use hip6::hip_device_prop as p;
        let mut b = vec![0u8; p::SIZE];
        common_fields!(p, self, b);
        let int = |v: i32| v.to_le_bytes();
        put(&mut b, p::SHARED_MEM_PER_MULTIPROCESSOR, &self.shared_mem_per_block.to_le_bytes());
        put(&mut b, p::SHARED_MEM_PER_BLOCK_OPTIN, &self.shared_mem_per_block.to_le_bytes());
        put(&mut b, p::REGS_PER_MULTIPROCESSOR, &int(REGS_PER_BLOCK));
        put(&mut b, p::HOST_NATIVE_ATOMIC_SUPPORTED, &int(i32::from(self.host_native_atomics)));
        put(&mut b, p::UNIFIED_ADDRESSING, &int(1));
        put(&mut b, p::ASYNC_ENGINE_COUNT, &int(ASYNC_ENGINES));
        put(&mut b, p::MAX_BLOCKS_PER_MULTI_PROCESSOR, &int(self.max_threads_per_multiprocessor / self.warp_size.max(1)));
        put(&mut b, p::HOST_REGISTER_SUPPORTED, &int(1));
        put(&mut b, p::MEMORY_POOLS_SUPPORTED, &int(1));
        put(&mut b, p::MEM_PITCH, &(i32::MAX as u64).to_le_bytes());
        put(&mut b, p::TEXTURE_ALIGNMENT, &TEXTURE_ALIGNMENT_BYTES.to_le_bytes());
        put(&mut b, p::TEXTURE_PITCH_ALIGNMENT, &TEXTURE_ALIGNMENT_BYTES.to_le_bytes());
        b
    }

    /// `hipDeviceGetAttribute` for a program built against `release`'s headers (6.0
    /// renumbered a few attributes: the numbers HIP 5.2 used for the name, UUID and
    /// architecture became unused, and new attributes took free numbers), or `None` for an
    /// attribute the simulated device does not have.
    pub fn attribute_of(&self, release: Release, attr: i32) -> Option<i32> {
        if release >= Release::Hip6 {
            use hip6::attribute as a6;
            match attr {
                a6::UNUSED1 | a6::UNUSED2 | a6::UNUSED3 | a6::UNUSED4 | a6::UNUSED5 => return None,
                a6::WALL_CLOCK_RATE => return Some(CLOCK_INSTRUCTION_RATE_KHZ),
                a6::HOST_REGISTER_SUPPORTED => return Some(1),
                a6::VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED | a6::MEMORY_POOL_SUPPORTED_HANDLE_TYPES => return Some(0),
                _ => {}
            }
        }
        if release == Release::Hip7 {
            use hip7::attribute as a7;
            match attr {
                a7::PCI_DOMAIN_ID | a7::PCI_CHIP_ID => return Some(0),
                // No NUMA node is simulated.
                a7::HOST_NUMA_ID => return Some(-1),
                a7::NUMBER_OF_XCCS => return Some(self.xccs),
                a7::MAX_AVAILABLE_VGPRS_PER_THREAD => return Some(self.vgprs_per_thread),
                _ => {}
            }
        }
        self.attribute(attr)
    }

    /// `hipDeviceGetAttribute` with HIP 5.2's numbers, or `None` for an attribute the
    /// simulated device does not have.
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
        use crate::abi::hip_device_prop as p;
        for name in ["mi300a", "mi210", "rx7900xtx"] {
            let gpu = hipscope_sim::gpus::resolve(name).expect("a built-in GPU");
            let props = Properties::of(&gpu);
            let b = props.device_prop();
            let int = |off: usize| i32::from_le_bytes(b[off..off + 4].try_into().expect("4 bytes"));
            assert_eq!(int(p::WARP_SIZE) as u32, gpu.wave_size, "{name}");
            assert_eq!(int(p::MULTI_PROCESSOR_COUNT) as u32, gpu.hip.multi_processor_count, "{name}");
            assert_eq!(props.attribute(a::WARP_SIZE), Some(gpu.wave_size as i32));
            assert!(b[p::GCN_ARCH_NAME..].starts_with(gpu.processor.name().as_bytes()));
            // The same values at HIP 6's offsets (hipDeviceProp_tR0600).
            let b6 = props.device_prop_r0600();
            let int6 = |off: usize| i32::from_le_bytes(b6[off..off + 4].try_into().expect("4 bytes"));
            assert_eq!(b6.len(), 1472);
            assert_eq!(int6(hip6::hip_device_prop::WARP_SIZE) as u32, gpu.wave_size, "{name}");
            assert_eq!(int6(hip6::hip_device_prop::MULTI_PROCESSOR_COUNT) as u32, gpu.hip.multi_processor_count, "{name}");
            assert!(b6[hip6::hip_device_prop::GCN_ARCH_NAME..].starts_with(gpu.target().target_id().as_bytes()));
        }
    }

    #[test]
    fn attributes_follow_the_release_numbering() {
        let gpu = hipscope_sim::gpus::resolve("mi300x").expect("a built-in GPU");
        let props = Properties::of(&gpu);
        // 10003 is hipDeviceAttributeGcnArch in HIP 5.2 and unused from 6.0 on.
        assert_eq!(props.attribute_of(Release::Hip5, 10003), Some(942));
        assert_eq!(props.attribute_of(Release::Hip6, 10003), None);
        assert_eq!(props.attribute_of(Release::Hip7, hip7::attribute::NUMBER_OF_XCCS), Some(8));
        assert_eq!(props.attribute_of(Release::Hip7, hip7::attribute::WARP_SIZE), Some(64));
    }
}
