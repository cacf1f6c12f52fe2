//! Memory across the node's GPUs: which address space serves an address, peer access
//! (`hipDeviceEnablePeerAccess`: GPU `c` maps a view of every block of GPU `p`'s device memory
//! at its own address, so `c`'s kernels load, store and update `p`'s bytes), and keeping the
//! GPUs' caches honest about memory several of them reach.
//!
//! Copies run one at a time, and launches on different GPUs run together only through the
//! turns of `hipscope_sim::cosim` (one GPU at a time), so data stays correct between
//! operations if each GPU's caches drop what another GPU may have changed: after a kernel on
//! GPU `d` writes its dirty lines back, every other GPU drops its lines of memory `d` also
//! reaches (host-visible memory, and peer memory either maps). While kernels run together,
//! what one sees of another's writes is the memory model's business (system-scope releases
//! write back, acquires invalidate). Where a peer access travels and what it costs is the
//! memory system's (`memsys/remote.rs`).

use crate::memory::AllocKind;
use crate::node::{self, Home};
use crate::runtime::{error, Runtime};
use hipscope_sim::memory::{Memory, Owner};
use hipscope_sim::MemoryKind;

impl Runtime {
    /// The address space that holds `address`: its GPU's, the host's, or (a code object's
    /// section) the current GPU's.
    pub fn mem_at(&mut self, address: u64) -> &mut Memory {
        match node::home_of(address) {
            Home::Gpu(d) if d < self.gpus.len() => &mut self.gpus[d].device.mem,
            Home::Host => &mut self.memory.host,
            _ => &mut self.gpus[self.current].device.mem,
        }
    }

    /// Every GPU writes its dirty cached lines back to memory.
    pub fn synchronize_all(&mut self) {
        for g in &mut self.gpus {
            g.device.synchronize();
        }
    }

    /// Every GPU drops its cached lines of `[address, address + len)` (after writing them back).
    pub fn invalidate_all(&mut self, address: u64, len: u64) {
        for g in &mut self.gpus {
            g.device.invalidate_caches(address, len);
        }
    }

    /// What the host wrote into host-visible memory becomes the simulator's.
    pub fn host_to_device(&mut self) {
        self.memory.host_to_device(&mut self.gpus, self.host_turns.watch());
    }

    /// The host sees what the GPUs wrote into host-visible memory.
    pub fn device_to_host(&mut self) {
        self.memory.device_to_host(&mut self.gpus, self.host_turns.watch());
    }

    /// After a launch on GPU `d`: its dirty lines are written back, and every other GPU
    /// drops its lines of the memory both reach (see the module documentation).
    pub fn after_launch(&mut self, d: usize) {
        if self.gpus.len() < 2 || !self.mode.is_timing() {
            return;
        }
        self.gpus[d].device.synchronize();
        let reaches = |g: usize, a: &crate::memory::Alloc| a.kind != AllocKind::Device || a.device == g || self.gpus[g].peers.contains(&a.device);
        let mut ranges = Vec::new();
        for e in (0..self.gpus.len()).filter(|&e| e != d) {
            ranges.extend(self.memory.all().filter(|(_, a)| reaches(d, a) && reaches(e, a)).map(|(b, a)| (e, b, a.size)));
        }
        for (e, base, size) in ranges {
            self.gpus[e].device.invalidate_caches(base, size);
        }
    }

    /// `hipDeviceCanAccessPeer`: whether the node links `from` to `to` for loads and stores.
    pub fn can_access_peer(&self, from: usize, to: usize) -> Result<bool, u32> {
        if from >= self.gpus.len() || to >= self.gpus.len() {
            return Err(error::INVALID_DEVICE);
        }
        Ok(self.node.can_access_peer(from, to))
    }

    /// `hipDeviceEnablePeerAccess(peer)` on the current device.
    pub fn enable_peer(&mut self, peer: usize) -> u32 {
        let c = self.current;
        match self.can_access_peer(c, peer) {
            Err(e) => return e,
            Ok(false) if peer == c => return error::INVALID_DEVICE,
            Ok(false) => return error::PEER_ACCESS_UNSUPPORTED,
            Ok(true) => {}
        }
        if !self.gpus[c].peers.insert(peer) {
            return error::PEER_ACCESS_ALREADY_ENABLED;
        }
        self.map_peer_views(peer);
        error::SUCCESS
    }

    /// `hipDeviceDisablePeerAccess(peer)` on the current device: its views of `peer`'s memory
    /// are unmapped (a kernel that still uses one faults).
    pub fn disable_peer(&mut self, peer: usize) -> u32 {
        let c = self.current;
        if peer >= self.gpus.len() {
            return error::INVALID_DEVICE;
        }
        if !self.gpus[c].peers.remove(&peer) {
            return error::PEER_ACCESS_NOT_ENABLED;
        }
        self.synchronize_all();
        let owner = Owner::Gpu(peer as u32);
        for base in self.gpus[c].device.mem.views_of(owner) {
            self.gpus[c].device.mem.free(base);
        }
        error::SUCCESS
    }

    /// Make every GPU with peer access to `owner` map exactly `owner`'s live blocks of device
    /// memory: after an allocation, a free, a reset or a new peer.
    pub fn map_peer_views(&mut self, owner: usize) {
        if self.gpus.len() < 2 {
            return;
        }
        let (start, end) = node::range_of(owner);
        let mem = &self.gpus[owner].device.mem;
        let blocks: Vec<u64> = mem
            .views_of(Owner::Local)
            .into_iter()
            .filter(|&b| (start..end).contains(&b) && mem.allocation_at(b).is_some_and(|a| a.kind == MemoryKind::Device))
            .collect();
        let tag = Owner::Gpu(owner as u32);
        let with_access: Vec<usize> = (0..self.gpus.len()).filter(|&c| self.gpus[c].peers.contains(&owner)).collect();
        for c in with_access {
            let mapped = self.gpus[c].device.mem.views_of(tag);
            for &base in mapped.iter().filter(|b| !blocks.contains(b)) {
                self.gpus[c].device.mem.free(base);
            }
            for &base in blocks.iter().filter(|b| !mapped.contains(b)) {
                match self.gpus[owner].device.mem.share(base) {
                    Ok(view) => {
                        if let Err(e) = self.gpus[c].device.mem.map_view(view, tag) {
                            eprintln!("hipscope: peer access of GPU {c} to GPU {owner}: {e}");
                        }
                    }
                    Err(e) => eprintln!("hipscope: peer access of GPU {c} to GPU {owner}: {e}"),
                }
            }
        }
    }
}
