//! How the L2 treats a line, from the memory type of its allocation (the MTYPE the driver
//! sets in the page tables): LLVM AMDGPUUsage, *Memory Model GFX90A* / *GFX942* /
//! *GFX10-GFX11* (summarised in `../shared/notes/memory-model-lowering.md` §1):
//! * coarse-grained device memory (RW): cached, write-back — the L2 may hold dirty lines;
//! * fine-grained device memory (CC): cached for reads, written through to memory, so other
//!   agents see every completed store;
//! * host memory allocated non-coherent (`hipHostMallocNonCoherent`): MTYPE NC, cached in
//!   the L2 like a peer's coarse-grained memory (LLVM AMDGPUUsage, *Memory Model GFX90A*:
//!   "NC: remote coarse-grain memory"; the HIP documentation, *Coherence control*, lists
//!   `hipHostMallocNonCoherent` as coarse-grained host memory, coherent only at
//!   synchronization points), so the L2 may hold it, dirty too;
//! * host memory (pinned or managed) and the runtime's host-side structures (kernarg on a
//!   discrete GPU, the AQL packet): UC, bypassing the L2;
//! * scratch (NC_NV): cached like device memory.
//!
//! Managed memory is treated like host memory (the conservative case: pages that live on the
//! host); a managed page migrated to the device would behave like device memory.

use crate::memory::{MemoryKind, Owner};

/// The L2's treatment of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum L2Mode {
    WriteBack,
    WriteThrough,
    Uncached,
}

pub fn l2_mode(kind: MemoryKind) -> L2Mode {
    match kind {
        MemoryKind::Device | MemoryKind::Scratch | MemoryKind::HostNonCoherent => L2Mode::WriteBack,
        MemoryKind::DeviceFineGrain => L2Mode::WriteThrough,
        MemoryKind::HostPinned | MemoryKind::Managed | MemoryKind::Kernarg | MemoryKind::Runtime => L2Mode::Uncached,
    }
}

/// Whether a line of `kind` owned by `owner` is another agent's memory as this GPU sees it:
/// a peer GPU's (mapped by peer access) or the host's (pinned, non-coherent or managed
/// allocations, whoever's address space they sit in). What system-scope L2 maintenance acts
/// on beyond agent scope ([`super::lower`]).
pub fn other_agents(kind: MemoryKind, owner: Owner) -> bool {
    match owner {
        Owner::Host | Owner::Gpu(_) => true,
        Owner::Local => matches!(kind, MemoryKind::HostPinned | MemoryKind::HostNonCoherent | MemoryKind::Managed),
    }
}
