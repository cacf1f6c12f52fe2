//! The program's allocations on the simulated GPU and the copies between host and device.
//!
//! Device memory (`hipMalloc`) lives only in the simulator. Memory the host may dereference
//! (`hipMallocManaged`, `hipHostMalloc`) is host memory mapped at the very address the
//! simulated GPU uses for it, so one pointer serves both sides as on a real system. The
//! simulator keeps its own copy of those bytes: before a kernel runs it takes what the host
//! wrote, after the kernel (launches complete before the call returns) the host sees what the
//! kernel wrote. A host thread touching the memory *while* a kernel runs is therefore not
//! modelled.

use crate::fatal;
use crate::heap::Heap;
use crate::runtime::{error, Runtime};
use hipscope_sim::{Device, MemoryKind};
use std::collections::BTreeMap;

/// GPU virtual-memory page size: allocations come in whole pages.
const PAGE_BYTES: u64 = 4096;

/// The largest share of the device's memory one allocation may take, in percent: ROCclr's
/// `GPU_SINGLE_ALLOC_PERCENT` default (clr `rocclr/utils/flags.hpp`), from which
/// `maxMemAllocSize_` is computed (`rocclr/device/rocm/rocdevice.cpp`); `hipMalloc` of more
/// is `hipErrorOutOfMemory` (`hipamd/src/hip_memory.cpp`, `ihipMalloc`).
const SINGLE_ALLOC_PERCENT: u64 = 85;

/// Who allocated a range and so who may touch it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllocKind {
    /// `hipMalloc`: device only.
    Device,
    /// `hipMallocManaged`: one address for host and device.
    Managed,
    /// `hipHostMalloc`: pinned host memory the device reads and writes.
    HostPinned,
}

impl AllocKind {
    fn host_visible(self) -> bool {
        self != AllocKind::Device
    }

    fn memory_kind(self) -> MemoryKind {
        match self {
            AllocKind::Device => MemoryKind::Device,
            AllocKind::Managed => MemoryKind::Managed,
            AllocKind::HostPinned => MemoryKind::HostPinned,
        }
    }
}

/// One allocation.
#[derive(Debug, Clone, Copy)]
pub struct Alloc {
    /// Bytes mapped (whole pages).
    pub size: u64,
    pub kind: AllocKind,
    /// Bytes the program asked for (`hipMemPtrGetInfo` reports them, as ROCm does).
    pub requested: u64,
}

/// Base address → allocation.
#[derive(Debug, Default)]
pub struct Allocations {
    map: BTreeMap<u64, Alloc>,
    /// Where device memory is carved from.
    pub(crate) heap: Heap,
    /// Bytes currently allocated (for `hipMemGetInfo`).
    pub in_use: u64,
}

impl Allocations {
    /// The allocation whose requested bytes hold all of `[address, address + len)`, with its
    /// base. The bytes asked for, not the whole pages mapped: ROCm's runtime finds the memory
    /// object of a pointer by its size as allocated and refuses a copy or fill that runs past
    /// it (clr `hipamd/src/hip_memory.cpp`, `ihipMemcpy_validate` and `ihipMemset_validate`:
    /// "sizeBytes > memory->getSize() - offset" is `hipErrorInvalidValue`).
    pub fn holding(&self, address: u64, len: u64) -> Option<(u64, Alloc)> {
        let (&base, &a) = self.map.range(..=address).next_back()?;
        let end = address.checked_add(len.max(1))?;
        (end <= base + a.requested).then_some((base, a))
    }

    /// Whether `[address, address + len)` lies in one allocation the device can reach.
    pub fn is_device(&self, address: u64, len: u64) -> bool {
        self.holding(address, len).is_some()
    }

    /// Before a kernel or device-side copy: what the host wrote into shared memory becomes
    /// the simulator's. The caches drop the lines of an allocation only when a byte of it
    /// changed, so a program that does not touch shared memory keeps warm caches between
    /// kernels.
    pub fn host_to_device(&self, device: &mut Device) {
        for (&base, a) in self.map.iter().filter(|(_, a)| a.kind.host_visible()) {
            // SAFETY: the range is our own mapping (`map_shared`), alive until freed.
            let host = unsafe { std::slice::from_raw_parts(base as *const u8, a.size as usize) };
            if device.mem.bytes(base, a.size) == Some(host) {
                continue;
            }
            device.invalidate_caches(base, a.size);
            // The allocation covers the range, so the write cannot miss.
            let _ = device.write(base, host);
        }
    }

    /// After a kernel or device-side write: the host sees the simulator's bytes.
    pub fn device_to_host(&self, device: &mut Device) {
        if !self.map.values().any(|a| a.kind.host_visible()) {
            return;
        }
        device.synchronize();
        for (&base, a) in self.map.iter().filter(|(_, a)| a.kind.host_visible()) {
            if let Some(bytes) = device.mem.bytes(base, a.size) {
                // SAFETY: our own mapping of `a.size` bytes at `base`.
                unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), base as *mut u8, bytes.len()) };
            }
        }
    }
}

/// Map host memory at exactly `base` (an address the simulator chose), or say why not.
fn map_shared(base: u64, size: u64) -> Result<(), String> {
    // SAFETY: a fresh anonymous mapping; MAP_FIXED_NOREPLACE never replaces an existing one.
    let p = unsafe {
        libc::mmap(
            base as *mut libc::c_void,
            size as usize,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED_NOREPLACE,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED || p as u64 != base {
        if p != libc::MAP_FAILED {
            // SAFETY: the mapping just made (an old kernel placed it elsewhere).
            unsafe { libc::munmap(p, size as usize) };
        }
        return Err(format!("cannot map {size} bytes of host memory at {base:#x}, where the simulated GPU placed them"));
    }
    Ok(())
}

impl Runtime {
    /// A new allocation of `bytes` (whole pages); `Ok(0)`, a null pointer, for 0 bytes, as ROCm
    /// answers (`hipamd/src/hip_memory.cpp`, `ihipMalloc` and `ihipHostMalloc`: size 0 is
    /// success with `*ptr = nullptr`). Device memory is carved from 2 MiB blocks as ROCr does
    /// ([`Heap`]), so a kernel that accesses a little past the requested size touches mapped
    /// memory, as on a real GPU, instead of faulting. What the program may allocate is the
    /// simulated GPU's memory; the host backs only the pages a kernel or copy touches.
    pub fn malloc(&mut self, bytes: u64, kind: AllocKind) -> Result<u64, u32> {
        if bytes == 0 {
            return Ok(0);
        }
        let size = bytes.checked_next_multiple_of(PAGE_BYTES).ok_or(error::OUT_OF_MEMORY)?;
        if size > self.free_bytes() || bytes > self.max_alloc_bytes() {
            return Err(error::OUT_OF_MEMORY);
        }
        let name = match kind {
            AllocKind::Device => "hipMalloc",
            AllocKind::Managed => "hipMallocManaged",
            AllocKind::HostPinned => "hipHostMalloc",
        };
        let placed = match kind {
            AllocKind::Device => self.memory.heap.alloc(size, &mut self.device.mem).map_err(|e| fatal::host_out_of_memory(name, bytes, &e)),
            _ => usize::try_from(size)
                .map_err(|_| error::OUT_OF_MEMORY)
                .and_then(|n| self.device.try_alloc(name, n, kind.memory_kind()).map_err(|e| fatal::host_out_of_memory(name, bytes, &e))),
        };
        let base = placed?;
        if kind.host_visible() {
            if let Err(e) = map_shared(base, size) {
                eprintln!("hipscope: {name}: {e}");
                self.device.free(base);
                return Err(error::OUT_OF_MEMORY);
            }
        }
        self.memory.map.insert(base, Alloc { size, kind, requested: bytes });
        self.memory.in_use += size;
        Ok(base)
    }

    /// Free an allocation made by the allocator family `kinds` names. Freeing an address that
    /// is not (or no longer) an allocation's base is `hipErrorInvalidValue`, as in ROCm's
    /// runtime, and changes nothing.
    pub fn free(&mut self, base: u64, kinds: &[AllocKind]) -> u32 {
        if base == 0 {
            return error::SUCCESS;
        }
        match self.memory.map.get(&base) {
            Some(a) if kinds.contains(&a.kind) => {}
            _ => return error::INVALID_VALUE,
        }
        self.device.synchronize();
        let Some(a) = self.memory.map.remove(&base) else { return error::INVALID_VALUE };
        if a.kind.host_visible() {
            // SAFETY: our own mapping, made by `map_shared`.
            unsafe { libc::munmap(base as *mut libc::c_void, a.size as usize) };
        }
        if a.kind == AllocKind::Device {
            self.memory.heap.free(base, &mut self.device.mem);
        } else {
            self.device.free(base);
        }
        self.memory.in_use -= a.size;
        error::SUCCESS
    }

    /// Release every allocation and unmap what the allocator kept for reuse
    /// (`hipDeviceReset`): ROCm's reset releases every memory object and memory pool of the
    /// device (`hipamd/src/hip_device.cpp`, `Device::Reset`), so afterwards no address of the
    /// program's old buffers is device memory, and a kernel that still uses one faults.
    pub fn free_all(&mut self) {
        let bases: Vec<u64> = self.memory.map.keys().copied().collect();
        for base in bases {
            self.free(base, &[AllocKind::Device, AllocKind::Managed, AllocKind::HostPinned]);
        }
        self.memory.heap.release_cached(&mut self.device.mem);
    }

    /// Whether the device can reach all of `[address, address + len)`: one of the program's
    /// allocations, or a variable of the code object (whose sections are device memory; a
    /// program may copy to the address `hipGetSymbolAddress`/`hipModuleGetGlobal` gave it).
    pub fn reachable(&self, address: u64, len: u64) -> bool {
        self.memory.is_device(address, len)
            || !self.memory.heap.maps(address)
                && self
                    .device
                    .mem
                    .allocation_at(address)
                    .is_some_and(|a| a.kind == MemoryKind::Device && address.checked_add(len).is_some_and(|end| end <= a.end()))
    }

    /// Device memory the program may still allocate.
    pub fn free_bytes(&self) -> u64 {
        self.total_bytes().saturating_sub(self.memory.in_use)
    }

    /// The simulated GPU's memory size.
    pub fn total_bytes(&self) -> u64 {
        self.gpu.hip.total_global_mem_bytes
    }

    /// The most one allocation may take (see [`SINGLE_ALLOC_PERCENT`]).
    pub fn max_alloc_bytes(&self) -> u64 {
        self.total_bytes() / 100 * SINGLE_ALLOC_PERCENT
    }
}
