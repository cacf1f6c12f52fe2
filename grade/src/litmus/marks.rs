//! What the PTX and Vulkan models need to know of a statement beyond its access: PTX
//! proxies and proxy fences, Vulkan availability/visibility, storage classes and their
//! semantics, and which virtual address (alias) a memory statement names. Other dialects
//! leave these empty; the scoped C++, HSA and OpenCL models never read them.

use std::collections::BTreeMap;

use super::program::Span;

/// Bits of [`Mark::bits`].
pub mod bit {
    /// PTX: the access goes through the surface, texture or constant proxy (generic when
    /// none of the three is set).
    pub const SURFACE: u32 = 1 << 0;
    pub const TEXTURE: u32 = 1 << 1;
    pub const CONSTANT: u32 = 1 << 2;
    /// PTX `fence.proxy.alias`.
    pub const ALIAS_FENCE: u32 = 1 << 3;
    /// PTX `fence.proxy.<proxy>` (with the proxy's bit), not a memory-ordering fence.
    pub const PROXY_FENCE: u32 = 1 << 4;
    /// Vulkan: non-private access (`.nonpriv`, and every atomic or `.av`/`.vis` access).
    pub const NONPRIV: u32 = 1 << 5;
    pub const AV: u32 = 1 << 6;
    pub const VIS: u32 = 1 << 7;
    pub const SEMAV: u32 = 1 << 8;
    pub const SEMVIS: u32 = 1 << 9;
    /// Vulkan storage class `sc0`…`sc3`: bits 10..14.
    pub const SC0: u32 = 1 << 10;
    /// Vulkan storage-class semantics `semsc0`…`semsc3`: bits 14..18.
    pub const SEMSC0: u32 = 1 << 14;
    /// Vulkan scope as written: `sg`, `wg`, `qf`, `dv` (a queue family and a device are
    /// both agent scope to the program, but the model tells them apart).
    pub const SG: u32 = 1 << 18;
    pub const WG: u32 = 1 << 19;
    pub const QF: u32 = 1 << 20;
    pub const DV: u32 = 1 << 21;
    /// Vulkan `avdevice` / `visdevice`.
    pub const AVDEVICE: u32 = 1 << 22;
    pub const VISDEVICE: u32 = 1 << 23;
    /// Vulkan control barrier (`cbar`), whatever its scope.
    pub const CBAR: u32 = 1 << 24;
    /// PTX `bar.cta.arrive`: arrives at a barrier without waiting.
    pub const ARRIVE: u32 = 1 << 25;
    /// Vulkan control barrier orders: a `cbar.rel`/`.acq`/`.acq_rel` is also a fence.
    pub const CBAR_REL: u32 = 1 << 26;
    pub const CBAR_ACQ: u32 = 1 << 27;
}

/// The marks of one statement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mark {
    pub bits: u32,
    /// The virtual address the access names, when it differs from its location's (an
    /// alias declared `y aliases x` or `s @ surface aliases x`): PTX's and Vulkan's `vloc`.
    pub virtual_address: Option<u16>,
    /// A barrier's quorum (`bar.cta.sync 1, 1, 2`): how many threads release it.
    pub quorum: Option<u16>,
    /// A barrier whose id a register holds (`bar.cta.sync 1, r2`): threads meet at the
    /// barrier with the register's value as id.
    pub barrier_register: Option<u16>,
}

/// Every statement's marks, by thread and source position, and the Vulkan
/// system-synchronizes-with pairs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GpuMarks {
    pub by_stmt: BTreeMap<(u16, Span), Mark>,
    /// `ssw 0 1`: every event of the first thread system-synchronizes-with every event of
    /// the second.
    pub ssw: Vec<(u16, u16)>,
}

impl GpuMarks {
    pub fn get(&self, thread: u16, span: Span) -> Mark {
        self.by_stmt.get(&(thread, span)).copied().unwrap_or_default()
    }

    pub fn set(&mut self, thread: u16, span: Span, mark: Mark) {
        if mark != Mark::default() {
            self.by_stmt.insert((thread, span), mark);
        }
    }
}
