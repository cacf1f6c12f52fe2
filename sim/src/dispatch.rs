//! A kernel dispatch as the command processor sets it up: the AQL packet and queue the kernel
//! may read, the kernarg segment (user arguments plus code-object-v5 hidden arguments), and
//! each wave's initial registers.
//!
//! Initial state follows AMDGPUUsage "Initial Kernel Execution State" and the observations in
//! shared/notes/memory-model-lowering.md §5.4: user SGPRs dense from s0, system SGPRs from
//! `USER_SGPR_COUNT`, GFX12 work-group ids in ttmp9/ttmp7, work-item ids in v0..v2 or packed
//! in v0 (10 bits each) on targets with packed work-item ids.

use crate::exec::Apertures;
use crate::fault::WaveId;
use crate::memory::{Memory, MemoryKind};
use crate::wave::{slot, Wave};
use hipscope_isa::codeobj::{HiddenKind, KernargLayout, SgprValue, ValueKind, WorkitemIds};
use hipscope_isa::Family;

/// Launch geometry (HIP convention: `grid` counts work-items).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_lds: u32,
}

impl Geometry {
    /// Work-groups per dimension (the last one may be partial).
    pub fn groups(&self) -> [u32; 3] {
        [0, 1, 2].map(|d| self.grid[d].div_ceil(self.block[d].max(1)))
    }

    /// Saturating: three dimensions of 2^32 work-items in one-item groups overflow a u64.
    pub fn group_count(&self) -> u64 {
        self.groups().iter().map(|&g| g as u64).fold(1, u64::saturating_mul)
    }

    /// Work-items of work-group `g` in each dimension.
    pub fn group_size(&self, g: [u32; 3]) -> [u32; 3] {
        [0, 1, 2].map(|d| self.block[d].min(self.grid[d] - g[d] * self.block[d]))
    }

    /// Work-group coordinates from a linear index (x fastest).
    pub fn group_at(&self, index: u64) -> [u32; 3] {
        let [gx, gy, _] = self.groups().map(|g| g as u64);
        [(index % gx) as u32, (index / gx % gy) as u32, (index / (gx * gy)) as u32]
    }

    /// Number of dimensions the grid uses (1..=3).
    pub fn dims(&self) -> u32 {
        if self.grid[2] > 1 || self.block[2] > 1 {
            3
        } else if self.grid[1] > 1 || self.block[1] > 1 {
            2
        } else {
            1
        }
    }
}

/// Addresses of what the runtime placed in memory for one dispatch.
#[derive(Debug, Clone, Copy)]
pub struct RuntimeAddresses {
    pub packet: u64,
    pub queue: u64,
    pub kernarg: u64,
    pub dispatch_id: u64,
}

/// Byte offsets in `amd_queue_t` of the 32-bit high halves of the LDS and private aperture
/// bases that GFX8 kernels load for flat address conversion (LLVM AMDGPU, queue-ptr aperture
/// lookup: 0x40 and 0x44).
const QUEUE_SHARED_APERTURE_HI: usize = 0x40;
const QUEUE_PRIVATE_APERTURE_HI: usize = 0x44;
const QUEUE_BYTES: usize = 256;

/// Write the queue descriptor (`amd_queue_t`) the kernel may read: on GFX8 it holds the
/// aperture bases flat-address conversion needs.
pub fn place_queue(mem: &mut Memory, apertures: &Apertures) -> u64 {
    let mut q = vec![0u8; QUEUE_BYTES];
    q[QUEUE_SHARED_APERTURE_HI..QUEUE_SHARED_APERTURE_HI + 4].copy_from_slice(&((apertures.shared_base >> 32) as u32).to_le_bytes());
    q[QUEUE_PRIVATE_APERTURE_HI..QUEUE_PRIVATE_APERTURE_HI + 4].copy_from_slice(&((apertures.private_base >> 32) as u32).to_le_bytes());
    mem.alloc_init("hipscope:queue", q, MemoryKind::Runtime)
}

/// The per-queue kernarg pool: the HIP runtime (ROCm CLR, `VirtualGPU::initPool` /
/// `allocKernArg`) takes each dispatch's kernarg segment from one pool of
/// `HSA_KERNARG_POOL_SIZE` = 1 MiB host memory per queue, at the next aligned offset, wrapping
/// around. A kernel reading a few bytes past its declared segment (a COv4 bitonic sort loads
/// bytes 8..23 of a 20-byte segment with one `s_load_dwordx4`) reads pool memory and never
/// faults, and neither does it here.
#[derive(Debug, Clone, Copy)]
pub struct KernargPool {
    pub base: u64,
    cursor: u64,
}

impl KernargPool {
    /// ROCm CLR's default `HSA_KERNARG_POOL_SIZE`.
    pub const BYTES: u64 = 1 << 20;
    /// Alignment of each segment in the pool (at least the HSA minimum of 16 bytes).
    const ALIGN: u64 = 64;

    pub fn new(mem: &mut Memory) -> KernargPool {
        KernargPool { base: mem.alloc("hipscope:kernarg_pool", Self::BYTES as usize, MemoryKind::Kernarg), cursor: 0 }
    }

    /// Write `kernarg` at the pool's next aligned offset (from the start again when it would
    /// not fit before the end; the queue is in order, so that space is free); returns its
    /// address, or `None` when it is larger than the pool.
    pub fn place(&mut self, mem: &mut Memory, kernarg: &[u8], align: u64) -> Option<u64> {
        let len = kernarg.len() as u64;
        if len > Self::BYTES {
            return None;
        }
        let align = align.clamp(Self::ALIGN, 4096).next_power_of_two();
        let mut at = self.cursor.next_multiple_of(align);
        if at + len > Self::BYTES {
            at = 0;
        }
        self.cursor = at + len;
        mem.write(self.base + at, kernarg).ok()?;
        Some(self.base + at)
    }
}

/// Write the AQL kernel-dispatch packet (hsa_kernel_dispatch_packet_t, 64 bytes) that points
/// at the kernarg segment at `kernarg_addr`.
pub fn place_runtime_structures(
    mem: &mut Memory,
    geo: &Geometry,
    group_segment: u32,
    private_segment: u32,
    kernarg_addr: u64,
    queue: u64,
    dispatch_id: u64,
) -> RuntimeAddresses {
    let mut p = vec![0u8; 64];
    // header: packet type KERNEL_DISPATCH (2); setup: dimensions.
    p[0..2].copy_from_slice(&2u16.to_le_bytes());
    p[2..4].copy_from_slice(&(geo.dims() as u16).to_le_bytes());
    for d in 0..3 {
        p[4 + 2 * d..6 + 2 * d].copy_from_slice(&(geo.block[d] as u16).to_le_bytes());
        p[12 + 4 * d..16 + 4 * d].copy_from_slice(&geo.grid[d].to_le_bytes());
    }
    p[24..28].copy_from_slice(&private_segment.to_le_bytes());
    p[28..32].copy_from_slice(&(group_segment + geo.dynamic_lds).to_le_bytes());
    p[40..48].copy_from_slice(&kernarg_addr.to_le_bytes());
    let packet = mem.alloc_init(&format!("hipscope:aql_packet#{dispatch_id}"), p, MemoryKind::Runtime);
    RuntimeAddresses { packet, queue, kernarg: kernarg_addr, dispatch_id }
}

/// Services of the HIP runtime that device code reaches through a hidden argument and that
/// hipscope does not provide yet: device `printf` (a printf buffer, or a hostcall buffer the
/// host polls) and device `malloc` (the heap). The hidden argument points into an unmapped
/// range of its own, so the kernel's first use faults there and the fault can say what the
/// kernel wanted instead of "outside every allocation".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuntimeService {
    Printf,
    Malloc,
}

impl RuntimeService {
    /// Each service's range: 4 GiB, canonical, far from the heap and the apertures.
    const SPAN: u64 = 1 << 32;
    const BASE: u64 = 0x0000_7f00_0000_0000;

    pub fn address(self) -> u64 {
        Self::BASE + self as u64 * Self::SPAN
    }

    /// The service whose range holds `address`.
    pub fn at(address: u64) -> Option<RuntimeService> {
        [RuntimeService::Printf, RuntimeService::Malloc].into_iter().find(|s| address.wrapping_sub(s.address()) < Self::SPAN)
    }

    pub fn what(self) -> &'static str {
        match self {
            RuntimeService::Printf => "device printf is not supported yet (the kernel wrote to its printf/hostcall buffer)",
            RuntimeService::Malloc => "device malloc is not supported yet (the kernel used its heap)",
        }
    }
}

/// Fill the code-object-v5 hidden arguments the layout asks for (AMDGPUUsage "Code Object V5
/// Metadata", hidden argument table). Unknown or unused hidden arguments stay zero.
/// `hostcall`: the host agent's hostcall buffer, if the launch has one (else the hidden
/// argument points at the unmapped printf service range, see [`RuntimeService`]).
pub fn fill_hidden_args(layout: &KernargLayout, kernarg: &mut [u8], geo: &Geometry, queue: u64, apertures: &Apertures, hostcall: Option<u64>) {
    for arg in &layout.args {
        let ValueKind::Hidden(kind) = &arg.value_kind else { continue };
        let value: u64 = match kind {
            HiddenKind::BlockCountX => geo.groups()[0] as u64,
            HiddenKind::BlockCountY => geo.groups()[1] as u64,
            HiddenKind::BlockCountZ => geo.groups()[2] as u64,
            HiddenKind::GroupSizeX => geo.block[0] as u64,
            HiddenKind::GroupSizeY => geo.block[1] as u64,
            HiddenKind::GroupSizeZ => geo.block[2] as u64,
            HiddenKind::RemainderX => (geo.grid[0] % geo.block[0].max(1)) as u64,
            HiddenKind::RemainderY => (geo.grid[1] % geo.block[1].max(1)) as u64,
            HiddenKind::RemainderZ => (geo.grid[2] % geo.block[2].max(1)) as u64,
            HiddenKind::GridDims => geo.dims() as u64,
            HiddenKind::DynamicLdsSize => geo.dynamic_lds as u64,
            HiddenKind::PrivateBase => apertures.private_base >> 32,
            HiddenKind::SharedBase => apertures.shared_base >> 32,
            HiddenKind::QueuePtr => queue,
            HiddenKind::HostcallBuffer => hostcall.unwrap_or(RuntimeService::Printf.address()),
            HiddenKind::PrintfBuffer => RuntimeService::Printf.address(),
            HiddenKind::HeapV1 => RuntimeService::Malloc.address(),
            _ => 0,
        };
        let (start, size) = (arg.offset as usize, (arg.size as usize).min(8));
        if let Some(dst) = kernarg.get_mut(start..start + size) {
            dst.copy_from_slice(&value.to_le_bytes()[..size]);
        }
    }
}

/// Everything a wave's initial state depends on.
pub struct WaveSetup<'a> {
    pub kernel: &'a crate::kernel::LoadedKernel,
    pub geo: &'a Geometry,
    pub rt: &'a RuntimeAddresses,
    /// The kernarg segment's bytes (for kernarg preloading into SGPRs, GFX90A/GFX940).
    pub kernarg: &'a [u8],
    /// Base of the dispatch's private (scratch) backing store and bytes per lane (a multiple
    /// of 4). Each resident wave owns `scratch_per_lane * lanes` bytes at its slot.
    pub scratch_base: u64,
    pub scratch_per_lane: u32,
}

impl WaveSetup<'_> {
    fn lanes(&self) -> u64 {
        if self.kernel.wave64 {
            64
        } else {
            32
        }
    }

    /// Byte offset of scratch slot `slot` from the backing store's base.
    fn scratch_offset(&self, slot: u32) -> u64 {
        slot as u64 * self.scratch_per_lane as u64 * self.lanes()
    }

    /// The private-segment buffer resource (V#) the CP hands a wave on targets that address
    /// scratch through buffer instructions: base = the backing store (the kernel adds its
    /// wave offset), swizzled with 4-byte elements, index stride = wave size, ADD_TID, the
    /// per-lane size as the stride (extended with bits 17:14 on GFX8/GFX9), and on GFX10 no
    /// range check (OOB_SELECT 2). (CDNA/RDNA ISA "Buffer resource"; AMDGPUUsage "Private
    /// Segment Buffer".)
    fn private_segment_buffer(&self) -> [u32; 4] {
        let per_lane = self.scratch_per_lane;
        let base = self.scratch_base;
        let index_stride = if self.kernel.wave64 { 3 } else { 2 };
        let mut w3 = index_stride << 21 | 1 << 23;
        match self.kernel.family {
            Family::Gfx8 => w3 |= 1 << 19 | (per_lane >> 14) << 15,
            Family::Gfx9 | Family::Gfx90a | Family::Gfx940 => w3 |= (per_lane >> 14) << 15,
            Family::Gfx10 => w3 |= 2 << 28,
            _ => {}
        }
        [base as u32, (base >> 32) as u32 & 0xffff | (per_lane & 0x3fff) << 16 | 1 << 31, u32::MAX, w3]
    }
}

/// How many waves work-group `g` has.
pub fn group_waves(s: &WaveSetup, g: [u32; 3]) -> u32 {
    let size = s.geo.group_size(g);
    (size[0] * size[1] * size[2]).div_ceil(if s.kernel.wave64 { 64 } else { 32 })
}

/// Create wave `wi` of work-group `g` with its initial registers: its index in the dispatch is
/// `first_global_index + wi`, its scratch slot `first_slot + wi`. Its vector register file
/// comes from `pool` when it has one (the kernel's allocated VGPRs are zeroed). One wave at a
/// time, so that the caller can build it where it keeps it (a wave is large).
pub fn create_wave(s: &WaveSetup, g: [u32; 3], wi: u32, first_global_index: u32, first_slot: u32, pool: &mut Vec<Vec<u32>>) -> Wave {
    let k = s.kernel;
    let size = s.geo.group_size(g);
    let items = size[0] * size[1] * size[2];
    let lanes = if k.wave64 { 64 } else { 32 };
    let id = WaveId { workgroup: g, wave: wi };
    let regs = k.vgpr_file as usize;
    let mut w = match pool.pop() {
        Some(mut file) => {
            let used = (k.vgprs as usize * crate::wave::MAX_LANES).min(file.len());
            file[..used].fill(0);
            Wave::with_vgpr_file(id, k.wave64, file, regs)
        }
        None => Wave::with_vgpr_file(id, k.wave64, vec![0; regs * crate::wave::MAX_LANES], regs),
    };
    w.global_index = first_global_index + wi;
    w.pc = k.entry;
    let first = wi * lanes;
    let n = (items - first).min(lanes);
    w.set_exec(if n == 64 { u64::MAX } else { (1u64 << n) - 1 });
    init_sgprs(&mut w, s, g, first_slot + wi);
    init_vgprs(&mut w, k, size, first, n);
    w.mode = initial_mode(k);
    w
}

fn init_sgprs(w: &mut Wave, s: &WaveSetup, g: [u32; 3], scratch_slot: u32) {
    let k = s.kernel;
    let d = &k.descriptor;
    let set64 = |w: &mut Wave, first: u32, v: u64| {
        w.sreg[first as usize] = v as u32;
        w.sreg[first as usize + 1] = (v >> 32) as u32;
    };
    for slot_ in k.initial_sgprs.user.iter().chain(&k.initial_sgprs.system) {
        let f = slot_.first as usize;
        if f + slot_.count as usize > 106 {
            continue;
        }
        match slot_.value {
            SgprValue::PrivateSegmentBuffer => w.sreg[f..f + 4].copy_from_slice(&s.private_segment_buffer()),
            SgprValue::DispatchPtr => set64(w, slot_.first, s.rt.packet),
            SgprValue::QueuePtr => set64(w, slot_.first, s.rt.queue),
            SgprValue::KernargSegmentPtr => set64(w, slot_.first, s.rt.kernarg),
            SgprValue::DispatchId => set64(w, slot_.first, s.rt.dispatch_id),
            // GFX8: (offset from the hidden scratch base, bytes per lane); GFX9/GFX10: the
            // backing store's address (the kernel adds its wave offset).
            SgprValue::FlatScratchInit if k.family == Family::Gfx8 => set64(w, slot_.first, (s.scratch_per_lane as u64) << 32),
            SgprValue::FlatScratchInit => set64(w, slot_.first, s.scratch_base),
            SgprValue::PreloadedKernargs => {
                // KERNARG_PRELOAD_SPEC: `count` dwords from dword `offset_dwords` of the
                // kernarg segment (AMDGPUUsage, "Preloaded Kernel Arguments").
                let start = d.kernarg_preload.offset_dwords as usize * 4;
                for k in 0..slot_.count as usize {
                    let b = s.kernarg.get(start + 4 * k..start + 4 * k + 4).unwrap_or(&[0; 4]);
                    w.sreg[f + k] = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                }
            }
            SgprValue::PrivateSegmentSize => w.sreg[f] = d.private_segment_fixed_size,
            SgprValue::WorkgroupIdX => w.sreg[f] = g[0],
            SgprValue::WorkgroupIdY => w.sreg[f] = g[1],
            SgprValue::WorkgroupIdZ => w.sreg[f] = g[2],
            SgprValue::WorkgroupInfo => w.sreg[f] = 0,
            SgprValue::ScratchWavefrontOffset => w.sreg[f] = s.scratch_offset(scratch_slot) as u32,
        }
    }
    if k.family == Family::Gfx12 {
        // GFX12 delivers the work-group ids in trap temporaries: ttmp9 = X,
        // ttmp7 = Y | Z << 16 (shared/notes/memory-model-lowering.md §5.4).
        w.sreg[slot::TTMP0 + 9] = g[0];
        w.sreg[slot::TTMP0 + 7] = (g[1] & 0xffff) | g[2] << 16;
    }
    if matches!(k.family, Family::Gfx940 | Family::Gfx11 | Family::Gfx12) {
        // Architected flat scratch: the hardware points FLAT_SCRATCH at the wave's scratch.
        let base = s.scratch_base + s.scratch_offset(scratch_slot);
        w.sreg[slot::FLAT_SCRATCH_LO] = base as u32;
        w.sreg[slot::FLAT_SCRATCH_HI] = (base >> 32) as u32;
    }
}

fn init_vgprs(w: &mut Wave, k: &crate::kernel::LoadedKernel, size: [u32; 3], first: u32, n: u32) {
    let ids = k.descriptor.compute_pgm_rsrc2.enable_vgpr_workitem_id;
    let (want_y, want_z) = match ids {
        WorkitemIds::X => (false, false),
        WorkitemIds::XY => (true, false),
        _ => (true, true),
    };
    let packed = k.processor.has_packed_workitem_ids();
    // Work-item ids counted up from the wave's first item (x fastest) instead of divided out
    // per lane.
    let (mut x, mut y, mut z) = (first % size[0], first / size[0] % size[1], first / (size[0] * size[1]));
    let (y_on, z_on) = (if want_y { u32::MAX } else { 0 }, if want_z { u32::MAX } else { 0 });
    // A run of lanes with one y and z (the rest of a row of the group) is filled at once.
    let mut l = 0usize;
    while l < n as usize {
        let run = ((size[0] - x) as usize).min(n as usize - l);
        let lanes = l..l + run;
        let hi = if packed { (y & y_on) << 10 | (z & z_on) << 20 } else { 0 };
        for (i, v) in w.row_mut(0)[lanes.clone()].iter_mut().enumerate() {
            *v = (x + i as u32) | hi;
        }
        if !packed && want_y {
            w.row_mut(1)[lanes.clone()].fill(y);
        }
        if !packed && want_z {
            w.row_mut(2)[lanes].fill(z);
        }
        l += run;
        x += run as u32;
        if x == size[0] {
            x = 0;
            y += 1;
            if y == size[1] {
                y = 0;
                z += 1;
            }
        }
    }
}

/// MODE register from COMPUTE_PGM_RSRC1: round modes [3:0], denorm modes [7:4], DX10 clamp
/// [8], IEEE [9] (ISA manuals, "MODE register").
fn initial_mode(k: &crate::kernel::LoadedKernel) -> u32 {
    let r = k.descriptor.compute_pgm_rsrc1.raw;
    let round = (r >> 12) & 0xf;
    let denorm = (r >> 16) & 0xf;
    let dx10 = (r >> 21) & 1;
    let ieee = (r >> 23) & 1;
    round | denorm << 4 | dx10 << 8 | ieee << 9
}
