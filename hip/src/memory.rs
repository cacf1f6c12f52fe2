//! The program's allocations on the simulated GPU and the copies between host and device.
//!
//! Device memory (`hipMalloc`) lives only in the simulator. Memory the host may dereference
//! (`hipMallocManaged`, `hipHostMalloc`) is host memory mapped at the very address the
//! simulated GPU uses for it, so one pointer serves both sides as on a real system. The
//! simulator keeps its own copy of those bytes: before a kernel runs it takes what the host
//! wrote, after the kernel (launches complete before the call returns) the host sees what the
//! kernel wrote. A host thread touching the memory *while* a kernel runs is therefore not
//! modelled.

use crate::heap::Heap;
use crate::runtime::{error, Runtime};
use hipscope_sim::{Device, MemoryKind};
use std::collections::BTreeMap;

/// GPU virtual-memory page size: allocations come in whole pages.
const PAGE_BYTES: u64 = 4096;

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
    heap: Heap,
    /// Bytes currently allocated (for `hipMemGetInfo`).
    pub in_use: u64,
}

impl Allocations {
    /// The allocation holding all of `[address, address + len)`, with its base.
    pub fn holding(&self, address: u64, len: u64) -> Option<(u64, Alloc)> {
        let (&base, &a) = self.map.range(..=address).next_back()?;
        let end = address.checked_add(len.max(1))?;
        (end <= base + a.size).then_some((base, a))
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
            let _ = device.mem.write(base, host);
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
    /// A new allocation of `bytes` (whole pages). Device memory is carved from 2 MiB blocks as
    /// ROCr does ([`Heap`]), so a kernel that accesses a little past the requested size touches
    /// mapped memory, as on a real GPU, instead of faulting.
    pub fn malloc(&mut self, bytes: u64, kind: AllocKind) -> Result<u64, u32> {
        let size = bytes.max(1).checked_next_multiple_of(PAGE_BYTES).ok_or(error::OUT_OF_MEMORY)?;
        if size > self.free_bytes() {
            return Err(error::OUT_OF_MEMORY);
        }
        let name = match kind {
            AllocKind::Device => "hipMalloc",
            AllocKind::Managed => "hipMallocManaged",
            AllocKind::HostPinned => "hipHostMalloc",
        };
        let base = match kind {
            AllocKind::Device => self.memory.heap.alloc(size, &mut self.device.mem),
            _ => self.device.mem.alloc(name, size as usize, kind.memory_kind()),
        };
        if kind.host_visible() {
            if let Err(e) = map_shared(base, size) {
                eprintln!("hipscope: {name}: {e}");
                self.device.mem.free(base);
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
            self.device.mem.free(base);
        }
        self.memory.in_use -= a.size;
        error::SUCCESS
    }

    /// Release every allocation (`hipDeviceReset`).
    pub fn free_all(&mut self) {
        let bases: Vec<u64> = self.memory.map.keys().copied().collect();
        for base in bases {
            self.free(base, &[AllocKind::Device, AllocKind::Managed, AllocKind::HostPinned]);
        }
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

    /// `hipMemset` and friends: `count` elements of `pattern` from `address`.
    pub fn fill(&mut self, address: u64, pattern: &[u8], count: u64) -> u32 {
        let Some(len) = count.checked_mul(pattern.len() as u64) else { return error::INVALID_VALUE };
        if len == 0 {
            return error::SUCCESS;
        }
        if !self.reachable(address, len) {
            return error::INVALID_VALUE;
        }
        let bytes: Vec<u8> = pattern.iter().copied().cycle().take(len as usize).collect();
        self.write(address, &bytes)
    }

    /// Write into device-reachable memory as a copy engine does: memory, not the GPU's caches
    /// (which drop the lines of the written range, after writing back what was dirty, and
    /// keep the rest). Shared memory is written on both sides.
    pub fn write(&mut self, address: u64, bytes: &[u8]) -> u32 {
        self.memory.host_to_device(&mut self.device);
        self.device.invalidate_caches(address, bytes.len() as u64);
        if self.device.mem.write(address, bytes).is_err() {
            return error::INVALID_VALUE;
        }
        self.memory.device_to_host(&mut self.device);
        error::SUCCESS
    }

    /// Read device-reachable memory after everything before it finished.
    pub fn read(&mut self, address: u64, out: &mut [u8]) -> u32 {
        self.memory.host_to_device(&mut self.device);
        self.device.synchronize();
        match self.device.mem.read(address, out) {
            Ok(()) => error::SUCCESS,
            Err(_) => error::INVALID_VALUE,
        }
    }

    /// A copy of `len` bytes. Device-side ranges must lie in one allocation each; host-side
    /// pointers are the caller's (HIP's contract: valid for `len` bytes).
    pub fn copy(&mut self, dst: u64, src: u64, len: u64, kind: CopyKind) -> u32 {
        if len == 0 {
            return error::SUCCESS;
        }
        if dst == 0 || src == 0 {
            return error::INVALID_VALUE;
        }
        let kind = match kind {
            CopyKind::Default => CopyKind::infer(self.reachable(dst, len), self.reachable(src, len)),
            k => k,
        };
        let (dst_dev, src_dev) = (self.reachable(dst, len), self.reachable(src, len));
        let Ok(n) = usize::try_from(len) else { return error::INVALID_VALUE };
        match kind {
            CopyKind::HostToHost => {
                // SAFETY: both host ranges valid for `len` bytes (the caller's contract).
                unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, n) };
                error::SUCCESS
            }
            CopyKind::HostToDevice if dst_dev => {
                // SAFETY: the caller's host range.
                let bytes = unsafe { std::slice::from_raw_parts(src as *const u8, n) }.to_vec();
                self.write(dst, &bytes)
            }
            CopyKind::DeviceToHost if src_dev => {
                let mut tmp = vec![0u8; n];
                let code = self.read(src, &mut tmp);
                if code == error::SUCCESS {
                    // SAFETY: the caller's host range.
                    unsafe { std::ptr::copy_nonoverlapping(tmp.as_ptr(), dst as *mut u8, n) };
                }
                code
            }
            CopyKind::DeviceToDevice if src_dev && dst_dev => {
                let mut tmp = vec![0u8; n];
                match self.read(src, &mut tmp) {
                    error::SUCCESS => self.write(dst, &tmp),
                    e => e,
                }
            }
            // A device side outside every allocation (a copy past its end, a freed buffer).
            _ => error::INVALID_VALUE,
        }
    }
}

/// `hipMemcpyKind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyKind {
    HostToHost,
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
    Default,
}

impl CopyKind {
    pub fn from_raw(kind: u32) -> Option<CopyKind> {
        Some(match kind {
            0 => CopyKind::HostToHost,
            1 => CopyKind::HostToDevice,
            2 => CopyKind::DeviceToHost,
            3 => CopyKind::DeviceToDevice,
            4 => CopyKind::Default,
            _ => return None,
        })
    }

    /// `hipMemcpyDefault`: the direction the pointers' kinds give (unified addressing).
    fn infer(dst_device: bool, src_device: bool) -> CopyKind {
        match (dst_device, src_device) {
            (true, true) => CopyKind::DeviceToDevice,
            (true, false) => CopyKind::HostToDevice,
            (false, true) => CopyKind::DeviceToHost,
            (false, false) => CopyKind::HostToHost,
        }
    }
}
