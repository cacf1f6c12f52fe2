//! The program's allocations on the simulated GPUs and the copies between host and device.
//!
//! Device memory (`hipMalloc`) lives only in the simulator, in the address range of the GPU it
//! was allocated on ([`crate::node`]); a GPU that has peer access to it maps the same bytes at
//! the same address (a shared view, [`hipscope_sim::memory::Memory::map_view`]). Memory the host may dereference
//! (`hipMallocManaged`, `hipHostMalloc`) is host memory mapped at the very address the
//! simulated GPU uses for it, so one pointer serves both sides as on a real system. The
//! simulator keeps its own copy of those bytes: before a kernel runs it takes what the host
//! wrote, after the kernel (launches complete before the call returns) the host sees what the
//! kernel wrote. A host thread touching the memory *while* a kernel runs takes turns with it
//! ([`crate::host_agent`]).

use crate::fatal;
use crate::host_watch::Watch;
use crate::node::{self, Gpu, Home, HOST_BASE};
use crate::runtime::{error, Runtime};
use hipscope_sim::memory::{Memory, Owner};
use hipscope_sim::MemoryKind;
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
    /// `hipHostMalloc` with `hipHostMallocNonCoherent`: pinned host memory the GPU's L2 may
    /// cache (MTYPE NC, `hipscope_sim::memsys::mtype`).
    HostNonCoherent,
}

impl AllocKind {
    /// Every kind (what `hipFree` releases).
    pub const ALL: [AllocKind; 4] = [AllocKind::Device, AllocKind::Managed, AllocKind::HostPinned, AllocKind::HostNonCoherent];
    /// What `hipHostMalloc` makes (what `hipHostFree` releases).
    pub const HOST: [AllocKind; 2] = [AllocKind::HostPinned, AllocKind::HostNonCoherent];

    fn host_visible(self) -> bool {
        self != AllocKind::Device
    }

    fn memory_kind(self) -> MemoryKind {
        match self {
            AllocKind::Device => MemoryKind::Device,
            AllocKind::Managed => MemoryKind::Managed,
            AllocKind::HostPinned => MemoryKind::HostPinned,
            AllocKind::HostNonCoherent => MemoryKind::HostNonCoherent,
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
    /// The GPU it was allocated on (for host-visible memory: the current one then).
    pub device: usize,
}

/// Base address → allocation.
#[derive(Debug)]
pub struct Allocations {
    map: BTreeMap<u64, Alloc>,
    /// The simulator's bytes of host-visible memory, in the host's address range; every GPU
    /// maps a view of each allocation.
    pub(crate) host: Memory,
}

impl Default for Allocations {
    fn default() -> Allocations {
        Allocations { map: BTreeMap::new(), host: Memory::with_base(HOST_BASE) }
    }
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

    /// The host-visible allocations' ranges (whole pages), by base.
    pub fn host_visible_ranges(&self) -> Vec<std::ops::Range<u64>> {
        self.map.iter().filter(|(_, a)| a.kind.host_visible()).map(|(&b, a)| b..b + a.size).collect()
    }

    /// Every allocation, by base.
    pub fn all(&self) -> impl Iterator<Item = (u64, &Alloc)> {
        self.map.iter().map(|(&b, a)| (b, a))
    }

    /// Before a kernel or device-side copy: what the host wrote into shared memory becomes
    /// the simulator's. The GPUs' caches drop the lines of an allocation only when a byte of
    /// it changed, so a program that does not touch shared memory keeps warm caches between
    /// kernels.
    ///
    /// `watch`: the allocations are protected (host threads take turns, [`crate::host_agent`]),
    /// so they are read without opening them to other threads.
    pub fn host_to_device(&mut self, gpus: &mut [Gpu], watch: Option<Watch>) {
        for (&base, a) in self.map.iter().filter(|(_, a)| a.kind.host_visible()) {
            let changed = match watch {
                Some(w) => Self::take_protected(&mut self.host, w, base, a.size),
                None => {
                    // SAFETY: the range is our own mapping (`map_shared`), alive until freed.
                    let host = unsafe { std::slice::from_raw_parts(base as *const u8, a.size as usize) };
                    let changed = self.host.bytes(base, a.size) != Some(host);
                    if changed {
                        // The allocation covers the range, so the write cannot miss.
                        let _ = self.host.write(base, host);
                    }
                    changed
                }
            };
            if changed {
                for g in gpus.iter_mut() {
                    g.device.invalidate_caches(base, a.size);
                }
            }
        }
    }

    /// [`Allocations::host_to_device`] of one protected allocation: read a chunk at a time
    /// (a copy of a whole allocation could be gigabytes); whether a byte changed.
    fn take_protected(sim: &mut Memory, w: Watch, base: u64, size: u64) -> bool {
        const CHUNK: u64 = 1 << 16;
        let mut buf = vec![0u8; CHUNK.min(size) as usize];
        let mut changed = false;
        for at in (base..base + size).step_by(CHUNK as usize) {
            let n = CHUNK.min(base + size - at);
            let chunk = &mut buf[..n as usize];
            // A failed read leaves the simulator's bytes as they were.
            if w.peek(at as usize, chunk).is_err() || sim.bytes(at, n) == Some(chunk) {
                continue;
            }
            changed = true;
            let _ = sim.write(at, chunk);
        }
        changed
    }

    /// After a kernel or device-side write: the host sees the simulator's bytes.
    /// `watch`: as for [`Allocations::host_to_device`].
    pub fn device_to_host(&self, gpus: &mut [Gpu], watch: Option<Watch>) {
        if !self.map.values().any(|a| a.kind.host_visible()) {
            return;
        }
        for g in gpus.iter_mut() {
            g.device.synchronize();
        }
        for (&base, a) in self.map.iter().filter(|(_, a)| a.kind.host_visible()) {
            let Some(bytes) = self.host.bytes(base, a.size) else { continue };
            match watch {
                Some(w) => {
                    if let Err(e) = w.poke(base as usize, bytes) {
                        eprintln!("hipscope: the host does not see what the kernels wrote at {base:#x}: {e}");
                    }
                }
                // SAFETY: our own mapping of `a.size` bytes at `base`.
                None => unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), base as *mut u8, bytes.len()) },
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
            AllocKind::HostPinned | AllocKind::HostNonCoherent => "hipHostMalloc",
        };
        let d = self.current;
        let base = match kind {
            AllocKind::Device => self.device_malloc(name, bytes, size)?,
            _ => self.host_malloc(name, bytes, size, kind)?,
        };
        self.memory.map.insert(base, Alloc { size, kind, requested: bytes, device: d });
        self.gpus[d].in_use += size;
        Ok(base)
    }

    /// `size` bytes of the current device's memory, mapped at once into every GPU that has
    /// peer access to it.
    fn device_malloc(&mut self, name: &str, bytes: u64, size: u64) -> Result<u64, u32> {
        let d = self.current;
        let several = self.gpus.len() > 1;
        let g = &mut self.gpus[d];
        // A range of its own per GPU: a program that has allocated (and freed) more than the
        // range holds is out of memory rather than spilling into the next GPU's.
        if several && g.device.mem.high_water().saturating_add(size.next_multiple_of(crate::heap::BLOCK_BYTES)) > node::range_of(d).1 {
            return Err(error::OUT_OF_MEMORY);
        }
        let base = g.heap.alloc(size, &mut g.device.mem).map_err(|e| fatal::host_out_of_memory(name, bytes, &e))?;
        self.map_peer_views(d);
        Ok(base)
    }

    /// `size` bytes of host memory mapped at the address the simulator gives them, which every
    /// GPU maps too.
    fn host_malloc(&mut self, name: &str, bytes: u64, size: u64, kind: AllocKind) -> Result<u64, u32> {
        let n = usize::try_from(size).map_err(|_| error::OUT_OF_MEMORY)?;
        let base = self.memory.host.try_alloc(name, n, kind.memory_kind()).map_err(|e| fatal::host_out_of_memory(name, bytes, &e))?;
        if let Err(e) = map_shared(base, size) {
            eprintln!("hipscope: {name}: {e}");
            self.memory.host.free(base);
            return Err(error::OUT_OF_MEMORY);
        }
        for g in &mut self.gpus {
            // A fresh allocation of the host's range: sharable, and mapped nowhere yet.
            if let Ok(view) = self.memory.host.share(base) {
                let _ = g.device.mem.map_view(view, Owner::Host);
            }
        }
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
        for g in &mut self.gpus {
            g.device.synchronize();
        }
        let Some(a) = self.memory.map.remove(&base) else { return error::INVALID_VALUE };
        if a.kind.host_visible() {
            // SAFETY: our own mapping, made by `map_shared`.
            unsafe { libc::munmap(base as *mut libc::c_void, a.size as usize) };
            self.memory.host.free(base);
            for g in &mut self.gpus {
                g.device.mem.free(base);
            }
        } else {
            let g = &mut self.gpus[a.device];
            g.heap.free(base, &mut g.device.mem);
            self.map_peer_views(a.device);
        }
        self.gpus[a.device].in_use -= a.size;
        error::SUCCESS
    }

    /// Release every allocation and unmap what the allocator kept for reuse
    /// (`hipDeviceReset`): ROCm's reset releases every memory object and memory pool of the
    /// device (`hipamd/src/hip_device.cpp`, `Device::Reset`), so afterwards no address of the
    /// program's old buffers is device memory, and a kernel that still uses one faults.
    pub fn free_all(&mut self) {
        for d in 0..self.gpus.len() {
            self.free_device(d);
        }
    }

    /// [`Runtime::free_all`] for GPU `d` alone (`hipDeviceReset` resets the current device):
    /// the allocations made on it, host-visible ones included.
    pub fn free_device(&mut self, d: usize) {
        let bases: Vec<u64> = self.memory.map.iter().filter(|(_, a)| a.device == d).map(|(&b, _)| b).collect();
        for base in bases {
            self.free(base, &AllocKind::ALL);
        }
        let g = &mut self.gpus[d];
        g.heap.release_cached(&mut g.device.mem);
        self.map_peer_views(d);
    }

    /// Whether the device can reach all of `[address, address + len)`: one of the program's
    /// allocations, or a variable of the current device's code objects (whose sections are
    /// device memory; a program may copy to the address `hipGetSymbolAddress` or
    /// `hipModuleGetGlobal` gave it).
    pub fn reachable(&self, address: u64, len: u64) -> bool {
        let g = &self.gpus[self.current];
        self.memory.is_device(address, len)
            || node::home_of(address) == Home::Image
                && g.device
                    .mem
                    .allocation_at(address)
                    .is_some_and(|a| a.kind == MemoryKind::Device && address.checked_add(len).is_some_and(|end| end <= a.end()))
    }

    /// Memory the program may still allocate on the current device.
    pub fn free_bytes(&self) -> u64 {
        self.total_bytes().saturating_sub(self.gpus[self.current].in_use)
    }

    /// The current device's memory size.
    pub fn total_bytes(&self) -> u64 {
        self.gpu().hip.total_global_mem_bytes
    }

    /// The most one allocation may take (see [`SINGLE_ALLOC_PERCENT`]).
    pub fn max_alloc_bytes(&self) -> u64 {
        self.total_bytes() / 100 * SINGLE_ALLOC_PERCENT
    }
}
