//! How the L2 treats a line, from the memory type of its allocation (the MTYPE the driver
//! sets in the page tables): LLVM AMDGPUUsage, *Memory Model GFX90A* / *GFX942* /
//! *GFX10-GFX11* (summarised in `../shared/notes/memory-model-lowering.md` §1):
//! * coarse-grained device memory (RW): cached, write-back — the L2 may hold dirty lines;
//! * fine-grained device memory (CC): cached for reads, written through to memory, so other
//!   agents see every completed store;
//! * host memory (pinned or managed) and the runtime's host-side structures (kernarg on a
//!   discrete GPU, the AQL packet): UC, bypassing the L2;
//! * scratch (NC_NV): cached like device memory.
//!
//! Managed memory is treated like host memory (the conservative case: pages that live on the
//! host); a managed page migrated to the device would behave like device memory.

use crate::memory::MemoryKind;

/// The L2's treatment of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum L2Mode {
    WriteBack,
    WriteThrough,
    Uncached,
}

pub fn l2_mode(kind: MemoryKind) -> L2Mode {
    match kind {
        MemoryKind::Device | MemoryKind::Scratch => L2Mode::WriteBack,
        MemoryKind::DeviceFineGrain => L2Mode::WriteThrough,
        MemoryKind::HostPinned | MemoryKind::Managed | MemoryKind::Kernarg | MemoryKind::Runtime => L2Mode::Uncached,
    }
}
