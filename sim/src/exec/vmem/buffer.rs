//! MUBUF/MTBUF buffer instructions: per-lane index/offset, loads, stores, atomics, typed
//! formats, TFE and LDS-DMA, on top of the buffer resource (`vsharp`).
//!
//! Out-of-range parts of an access read as zero and are not written (`vsharp` has the rules
//! per generation): non-format loads and stores check each dword, atomics and format
//! accesses all-or-nothing.

use super::super::operand::{s32, s_dword, v_dword, write_v_dword};
use super::super::{ExecCtx, Flow};
use super::flat::{atomic_lane, lds_dma_store, AtomicSpec};
use super::format::Format;
use super::shape::{LoadShape, StoreShape};
use super::space::{self, Target};
use super::vsharp::Vsharp;
use crate::fault::FaultKind;
use hipscope_isa::decode::Operand;
use hipscope_isa::Family;

/// Address operands of a buffer instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct BufAddr {
    pub vaddr: Operand,
    pub srsrc: Operand,
    pub soffset: Operand,
    pub ioff: u32,
    pub idxen: bool,
    pub offen: bool,
}

/// D16 placement of a format access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum D16 {
    No,
    /// Packed 16-bit components (unpacked, one per VGPR, on GFX8.0).
    Lo,
    /// One component in bits 31:16.
    Hi,
}

#[derive(Debug, Clone, PartialEq)]
pub enum BufWhat {
    Load {
        shape: LoadShape,
        dst: Operand,
        tfe: bool,
    },
    Store {
        shape: StoreShape,
        data: Operand,
    },
    Atomic(AtomicSpec),
    /// MUBUF with `lds`: the value goes to LDS (see `flat::lds_dma_address`).
    LoadLds {
        shape: LoadShape,
    },
    /// `typed`: MTBUF format from the instruction; `None`: from the V# (MUBUF).
    LoadFormat {
        comps: u8,
        d16: D16,
        typed: Option<Format>,
        dst: Operand,
        tfe: bool,
    },
    StoreFormat {
        comps: u8,
        d16: D16,
        typed: Option<Format>,
        data: Operand,
    },
}

impl BufWhat {
    fn format_op(&self) -> bool {
        matches!(self, BufWhat::LoadFormat { .. } | BufWhat::StoreFormat { .. })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct BufOp {
    pub addr: BufAddr,
    pub what: BufWhat,
}

/// Everything one lane's access needs.
struct Lane {
    lane: usize,
    index: u32,
    offset: u32,
}

/// Per-instruction state.
struct Pre {
    v: Vsharp,
    soff: u32,
    fam: Family,
    idxen: bool,
    unpacked_d16: bool,
}

impl Pre {
    /// Target of `len` bytes at `rel` past the lane's offset, or `Null` when out of range or
    /// unbound. `payload` is the size the range check covers.
    fn target(&self, l: &Lane, rel: u32, payload: u32) -> Target {
        let off = l.offset.wrapping_add(rel);
        let at = (l.index, off);
        if self.v.unbound || !self.v.in_range(self.fam, self.idxen, at, payload, self.soff) {
            return Target::Null;
        }
        Target::Mem(self.v.address(l.index, off, self.soff))
    }

    /// Read `buf.len()` bytes, range-checked per dword (sub-dword: once).
    fn read_checked(&self, cx: &ExecCtx, l: &Lane, buf: &mut [u8]) -> Result<(), FaultKind> {
        for (k, part) in buf.chunks_mut(4).enumerate() {
            let rel = 4 * k as u32;
            space::read(cx, self.target(l, rel, part.len() as u32), l.lane, part)?;
        }
        Ok(())
    }

    fn write_checked(&self, cx: &mut ExecCtx, l: &Lane, bytes: &[u8]) -> Result<(), FaultKind> {
        for (k, part) in bytes.chunks(4).enumerate() {
            let rel = 4 * k as u32;
            space::write(cx, self.target(l, rel, part.len() as u32), l.lane, part)?;
        }
        Ok(())
    }

    fn format(&self, typed: Option<Format>) -> Result<Format, FaultKind> {
        typed
            .or_else(|| self.v.data_format(self.fam))
            .ok_or_else(|| FaultKind::Other(format!("buffer format access with unsupported V# data format {:#x}", self.v.format)))
    }
}

impl BufAddr {
    fn lane(&self, cx: &ExecCtx, v: &Vsharp, lane: usize) -> Lane {
        let w = &*cx.wave;
        let (idx, off) = match (self.idxen, self.offen) {
            (true, true) => (v_dword(w, self.vaddr, 0, lane), v_dword(w, self.vaddr, 1, lane)),
            (true, false) => (v_dword(w, self.vaddr, 0, lane), 0),
            (false, true) => (0, v_dword(w, self.vaddr, 0, lane)),
            (false, false) => (0, 0),
        };
        let index = idx.wrapping_add(if v.add_tid { lane as u32 } else { 0 });
        Lane { lane, index, offset: off.wrapping_add(self.ioff) }
    }
}

impl BufOp {
    fn pre(&self, cx: &ExecCtx) -> Pre {
        let w = &*cx.wave;
        let words = [0, 1, 2, 3].map(|k| s_dword(w, self.addr.srsrc, k));
        let fam = cx.env.family;
        Pre {
            v: Vsharp::decode(words, fam, self.what.format_op()),
            soff: s32(w, cx.env, self.addr.soffset),
            fam,
            idxen: self.addr.idxen,
            // GFX8.0 (gfx802/gfx803) D16 VMEM is unpacked; gfx810 and later pack two halves.
            unpacked_d16: fam == Family::Gfx8 && cx.env.decode.processor != hipscope_isa::Processor::Gfx810,
        }
    }

    pub fn execute(&self, cx: &mut ExecCtx) -> Result<Flow, FaultKind> {
        let pre = self.pre(cx);
        let mut m = cx.wave.exec();
        while m != 0 {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            let l = self.addr.lane(cx, &pre.v, lane);
            self.lane(cx, &pre, &l)?;
        }
        Ok(Flow::Next)
    }

    fn lane(&self, cx: &mut ExecCtx, pre: &Pre, l: &Lane) -> Result<(), FaultKind> {
        let mut buf = [0u8; 16];
        match &self.what {
            BufWhat::Load { shape, dst, tfe } => {
                let n = shape.bytes as usize;
                pre.read_checked(cx, l, &mut buf[..n])?;
                shape.write(cx.wave, *dst, l.lane, &buf);
                write_tfe(cx, *dst, shape.dwords(), *tfe, l.lane);
            }
            BufWhat::Store { shape, data } => {
                shape.gather(cx.wave, *data, l.lane, &mut buf);
                pre.write_checked(cx, l, &buf[..shape.bytes as usize])?;
            }
            BufWhat::Atomic(a) => {
                let n = a.width.bytes() as u32;
                atomic_lane(cx, pre.target(l, 0, n), l.lane, a)?;
            }
            BufWhat::LoadLds { shape } => {
                let n = shape.bytes as usize;
                pre.read_checked(cx, l, &mut buf[..n])?;
                lds_dma_store(cx, self.addr.ioff, l.lane, *shape, &buf)?;
            }
            BufWhat::LoadFormat { comps, d16, typed, dst, tfe } => {
                let dwords = self.load_format(cx, pre, l, *comps, *d16, *typed, *dst)?;
                write_tfe(cx, *dst, dwords, *tfe, l.lane);
            }
            BufWhat::StoreFormat { comps, d16, typed, data } => self.store_format(cx, pre, l, *comps, *d16, *typed, *data)?,
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn load_format(&self, cx: &mut ExecCtx, pre: &Pre, l: &Lane, comps: u8, d16: D16, typed: Option<Format>, dst: Operand) -> Result<usize, FaultKind> {
        let fmt = pre.format(typed)?;
        let n = fmt.bytes();
        let mut buf = [0u8; 16];
        space::read(cx, pre.target(l, 0, n as u32), l.lane, &mut buf[..n])?;
        let mut vals = [0u32; 4];
        fmt.load(&buf, &mut vals);
        if typed.is_none() {
            vals = select_dst(fmt, &vals, &pre.v.dst_sel);
        }
        Ok(write_format(cx, dst, l.lane, fmt, &vals, comps as usize, d16, pre.unpacked_d16))
    }

    #[allow(clippy::too_many_arguments)]
    fn store_format(&self, cx: &mut ExecCtx, pre: &Pre, l: &Lane, comps: u8, d16: D16, typed: Option<Format>, data: Operand) -> Result<(), FaultKind> {
        let fmt = pre.format(typed)?;
        let vals = read_format(cx, data, l.lane, fmt, comps as usize, d16, pre.unpacked_d16);
        let mut mem = [0u8; 16];
        let n = fmt.store(&vals, comps as usize, &mut mem);
        space::write(cx, pre.target(l, 0, fmt.bytes() as u32), l.lane, &mem[..n])
    }
}

/// TFE: the dword after the data receives the fetch status, 0 = success (ISA "Texture Fault
/// Enable"; hipscope has no partially resident memory).
fn write_tfe(cx: &mut ExecCtx, dst: Operand, dwords: usize, tfe: bool, lane: usize) {
    if tfe {
        write_v_dword(cx.wave, dst, dwords, lane, 0);
    }
}

/// Apply the V# destination selects (0 = 0, 1 = 1, 4..7 = component X..W).
fn select_dst(fmt: Format, vals: &[u32; 4], sel: &[u32; 4]) -> [u32; 4] {
    let one = if fmt.float_class() { 1.0f32.to_bits() } else { 1 };
    sel.map(|s| match s {
        1 => one,
        4..=7 => vals[s as usize - 4],
        _ => 0,
    })
}

/// Write format results; returns the dwords written.
#[allow(clippy::too_many_arguments)]
fn write_format(cx: &mut ExecCtx, dst: Operand, lane: usize, fmt: Format, vals: &[u32; 4], comps: usize, d16: D16, unpacked: bool) -> usize {
    let w = &mut *cx.wave;
    match d16 {
        D16::No => {
            for (k, &v) in vals.iter().enumerate().take(comps) {
                write_v_dword(w, dst, k, lane, v);
            }
            comps
        }
        D16::Hi => {
            // The low half stays or is zeroed as for the other D16 loads.
            let old = if super::shape::d16_keeps_other_half(cx.env.family, cx.env.sramecc) { v_dword(w, dst, 0, lane) } else { 0 };
            write_v_dword(w, dst, 0, lane, (old & 0xffff) | (fmt.to_d16(vals[0]) as u32) << 16);
            1
        }
        D16::Lo if unpacked => {
            for (k, &v) in vals.iter().enumerate().take(comps) {
                write_v_dword(w, dst, k, lane, fmt.to_d16(v) as u32);
            }
            comps
        }
        D16::Lo => {
            for k in 0..comps.div_ceil(2) {
                let lo = fmt.to_d16(vals[2 * k]) as u32;
                let hi = if 2 * k + 1 < comps { fmt.to_d16(vals[2 * k + 1]) as u32 } else { 0 };
                write_v_dword(w, dst, k, lane, lo | hi << 16);
            }
            comps.div_ceil(2)
        }
    }
}

/// Gather the values a format store converts.
fn read_format(cx: &ExecCtx, data: Operand, lane: usize, fmt: Format, comps: usize, d16: D16, unpacked: bool) -> [u32; 4] {
    let w = &*cx.wave;
    let mut vals = [0u32; 4];
    for (c, v) in vals.iter_mut().enumerate().take(comps) {
        *v = match d16 {
            D16::No => v_dword(w, data, c, lane),
            D16::Hi => fmt.from_d16((v_dword(w, data, 0, lane) >> 16) as u16),
            D16::Lo if unpacked => fmt.from_d16(v_dword(w, data, c, lane) as u16),
            D16::Lo => fmt.from_d16((v_dword(w, data, c / 2, lane) >> (16 * (c % 2))) as u16),
        };
    }
    vals
}
