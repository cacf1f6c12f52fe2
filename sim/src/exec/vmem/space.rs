//! Where one lane's access goes, and byte access to it: device memory, the work-group's LDS
//! (FLAT addresses in the shared aperture), a lane's private (scratch) memory, or nowhere (an
//! out-of-range or unbound buffer access: reads give zero, writes are dropped).
//!
//! # Scratch layout
//!
//! Private memory is laid out the way the hardware swizzles it (RDNA3 ISA ch. 11, "Scratch
//! Instruction Modes": `Addr = SCRATCH_BASE + (offset / 4) * 4 * const_index_stride + (offset % 4) +
//! TID * 4`; CDNA4 ISA §10.5; the same layout results from a private-segment buffer V# with
//! swizzle, element size 4, index stride = wave size and ADD_TID): each wave owns a region of
//! `scratch_per_lane * wave_size` bytes in the dispatch's `Scratch` allocation, and byte `o` of
//! lane `t`'s private memory lives at
//!
//! ```text
//! wave_base + (o / 4) * 4 * wave_size + t * 4 + o % 4
//! ```
//!
//! so that the same private dword of consecutive lanes is consecutive in memory (what makes
//! spills coalesce). `wave_base` is the wave's scratch base: the `FLAT_SCRATCH` register on
//! GFX9+ (set by the kernel prolog from the flat-scratch-init SGPRs plus the scratch wave
//! offset on GFX9/GFX10, set by hardware with architected flat scratch on GFX940/GFX11/GFX12),
//! and on GFX8 the hidden private base (`Env::scratch_base`) plus `FLAT_SCRATCH_HI * 256`.
//! Private offsets at or beyond `Env::scratch_per_lane` fault.

use super::super::ds::lds;
use super::super::ExecCtx;
use crate::exec::Dir;
use crate::fault::FaultKind;
use crate::memory::Unmapped;
use crate::wave::LastRead;

/// Byte `o` of `lane`'s private memory relative to the wave's scratch base.
#[inline]
pub fn swizzle(o: u32, lane: u32, lanes: u32) -> u64 {
    (o / 4) as u64 * 4 * lanes as u64 + lane as u64 * 4 + (o % 4) as u64
}

/// A lane's private memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Private {
    pub wave_base: u64,
    pub off: u32,
    pub lane: u32,
    pub lanes: u32,
}

/// Where an access goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Mem(u64),
    Lds(u32),
    Private(Private),
    /// Out of range or unbound buffer: reads return zero, writes are dropped.
    Null,
    /// A private access past the lane's scratch size: accessing it is a memory violation.
    Invalid {
        address: u64,
        size: u32,
    },
}

impl Target {
    /// Force natural alignment (atomics ignore the address LSBs: RDNA4 ISA §9.5).
    pub fn aligned(self, size: usize) -> Target {
        let m = !(size as u64 - 1);
        match self {
            Target::Mem(a) => Target::Mem(a & m),
            Target::Lds(o) => Target::Lds(o & m as u32),
            Target::Private(p) => Target::Private(Private { off: p.off & m as u32, ..p }),
            t => t,
        }
    }
}

pub fn mem_fault(lane: usize) -> impl Fn(Unmapped) -> FaultKind {
    move |e| FaultKind::MemoryViolation { lane: lane as u32, address: e.address, size: e.size }
}

/// Split a private access into runs that stay inside one 4-byte swizzle element.
fn private_runs(p: Private, len: usize, mut f: impl FnMut(u64, std::ops::Range<usize>) -> Result<(), FaultKind>) -> Result<(), FaultKind> {
    let mut done = 0;
    while done < len {
        let o = p.off.wrapping_add(done as u32);
        let n = (4 - (o % 4) as usize).min(len - done);
        f(p.wave_base.wrapping_add(swizzle(o, p.lane, p.lanes)), done..done + n)?;
        done += n;
    }
    Ok(())
}

pub fn read(cx: &ExecCtx, t: Target, lane: usize, buf: &mut [u8]) -> Result<(), FaultKind> {
    match t {
        Target::Mem(a) => {
            cx.read_global(lane as u32, a, buf).map_err(mem_fault(lane))?;
            cx.wave.last_read.set(Some(LastRead::new(lane as u32, false, a, buf)));
            Ok(())
        }
        Target::Lds(o) => {
            if let Some(p) = cx.port {
                p.lds_access(lane as u32, o, buf.len() as u32, Dir::Read);
            }
            lds::read(cx.lds, cx.lds.len(), &cx.wave.lds_out_of_range, o, buf);
            cx.wave.last_read.set(Some(LastRead::new(lane as u32, true, o as u64, buf)));
            Ok(())
        }
        Target::Private(p) => private_runs(p, buf.len(), |a, r| cx.read_global(lane as u32, a, &mut buf[r]).map_err(mem_fault(lane))),
        Target::Null => {
            buf.fill(0);
            Ok(())
        }
        Target::Invalid { address, size } => Err(mem_fault(lane)(Unmapped { address, size })),
    }
}

pub fn write(cx: &mut ExecCtx, t: Target, lane: usize, bytes: &[u8]) -> Result<(), FaultKind> {
    store(cx, t, lane, bytes, true)
}

/// [`write`]; `visible`: whether a write to memory counts as a change others could see (an
/// atomic that wrote back the value it read does not). LDS writes count when they change
/// bytes.
pub fn store(cx: &mut ExecCtx, t: Target, lane: usize, bytes: &[u8], visible: bool) -> Result<(), FaultKind> {
    match t {
        Target::Mem(a) => {
            if visible {
                cx.wave.writes += 1;
                cx.wave.last_write.set(Some(LastRead::new(lane as u32, false, a, bytes)));
            }
            cx.write_global(lane as u32, a, bytes).map_err(mem_fault(lane))
        }
        Target::Lds(o) => {
            if let Some(p) = cx.port {
                p.lds_access(lane as u32, o, bytes.len() as u32, Dir::Write);
            }
            let len = cx.lds.len();
            if lds::write(cx.lds, len, &cx.wave.lds_out_of_range, o, bytes) {
                cx.wave.writes += 1;
                cx.wave.last_write.set(Some(LastRead::new(lane as u32, true, o as u64, bytes)));
            }
            Ok(())
        }
        Target::Private(p) => {
            cx.wave.writes += u64::from(visible);
            private_runs(p, bytes.len(), |a, r| cx.write_global(lane as u32, a, &bytes[r]).map_err(mem_fault(lane)))
        }
        Target::Null => Ok(()),
        Target::Invalid { address, size } => Err(mem_fault(lane)(Unmapped { address, size })),
    }
}
