//! Scalar memory (SMEM): `s_load_*`, `s_buffer_load_*`, GFX8-GFX10 `s_store_*` /
//! `s_buffer_store_*`, GFX9/GFX10 scalar atomics, `s_memtime`, `s_memrealtime`, GFX10
//! `s_get_waveid_in_workgroup`, scalar-cache maintenance, probes and GFX12 prefetches.
//!
//! Address (ISA manuals, "Scalar Memory Operations"): SBASE (a 64-bit address, or a buffer
//! resource for `s_buffer_*`) + the immediate offset (GFX8 20-bit unsigned, GFX9-GFX11 21-bit
//! signed, GFX12 24-bit signed) + the SOFFSET SGPR when the encoding has one. Dword accesses
//! ignore the two low address bits; the GFX12 byte/short loads use the byte address (shorts
//! ignore bit 0) and zero- or sign-extend into the SGPR.
//!
//! Buffer resource (V#): base = bits [47:0], stride = [61:48], num_records = dword 2. The
//! scalar unit ignores the other fields. A dword whose bytes do not all lie below the range
//! (num_records bytes when stride is 0, num_records * stride otherwise) reads 0 and is not
//! written; out-of-range atomics do nothing and return 0.
//!
//! An address outside every allocation is a kernel fault (`MemoryViolation`, lane 0).

pub mod atomic;

use super::operand::{s32, s64, s_dword, write_s64, write_s_dword};
use super::{ExecCtx, Fidelity, Flow};
use crate::exec::Global;
use crate::fault::FaultKind;
use crate::memory::Unmapped;
use crate::wave::Wave;
use atomic::AtomicOp;
use hipscope_isa::decode::{Inst, Operand};
use hipscope_isa::tables::{OpName, Opcode};

/// Immediate offset and optional SOFFSET register.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Offset {
    pub imm: i64,
    pub soffset: Operand,
}

/// What one load reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    Dwords(u8),
    U8,
    I8,
    U16,
    I16,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Load {
        d: Operand,
        base: Operand,
        off: Offset,
        size: Size,
    },
    BufferLoad {
        d: Operand,
        rsrc: Operand,
        off: Offset,
        size: Size,
    },
    Store {
        data: Operand,
        base: Operand,
        off: Offset,
        dwords: u8,
    },
    BufferStore {
        data: Operand,
        rsrc: Operand,
        off: Offset,
        dwords: u8,
    },
    Atomic {
        op: AtomicOp,
        wide: bool,
        ret: bool,
        data: Operand,
        base: Operand,
        off: Offset,
        buffer: bool,
    },
    MemTime {
        d: Operand,
    },
    MemRealTime {
        d: Operand,
    },
    /// GFX10 `s_get_waveid_in_workgroup`: the wave's index in its work-group.
    WaveId {
        d: Operand,
    },
    /// Cache maintenance, probes, prefetches.
    NoEffect(&'static str),
}

impl Op {
    pub fn fidelity(&self) -> Fidelity {
        match self {
            Op::NoEffect(why) => Fidelity::NoEffect(why),
            Op::MemTime { .. } => Fidelity::Approximate("s_memtime counts executed instructions in functional mode"),
            Op::MemRealTime { .. } => Fidelity::Approximate("s_memrealtime derives from executed instructions in functional mode"),
            _ => Fidelity::Exact,
        }
    }
}

fn opd(inst: &Inst, name: OpName) -> Operand {
    inst.operand(name).unwrap_or(Operand::Absent)
}

fn offset(inst: &Inst) -> Offset {
    let soffset = match opd(inst, OpName::soffset) {
        op @ Operand::Reg(_) => op,
        _ => Operand::Absent,
    };
    Offset { imm: opd(inst, OpName::offset).imm(), soffset }
}

/// Size of a load from its opcode (sub-dword GFX12 forms) or destination width.
fn load_size(inst: &Inst, d: Operand) -> Size {
    use Opcode::*;
    match inst.opcode() {
        S_LOAD_U8 | S_BUFFER_LOAD_U8 => Size::U8,
        S_LOAD_I8 | S_BUFFER_LOAD_I8 => Size::I8,
        S_LOAD_U16 | S_BUFFER_LOAD_U16 => Size::U16,
        S_LOAD_I16 | S_BUFFER_LOAD_I16 => Size::I16,
        _ => Size::Dwords(super::operand::dwords(d) as u8),
    }
}

pub fn classify(inst: &Inst, _env: &super::Env) -> Option<Op> {
    use Opcode::*;
    let name = inst.mnemonic();
    let (d, base, off) = (opd(inst, OpName::sdst), opd(inst, OpName::sbase), offset(inst));
    let data = opd(inst, OpName::sdata);
    Some(match inst.opcode() {
        S_MEMTIME => Op::MemTime { d },
        S_MEMREALTIME => Op::MemRealTime { d },
        S_GET_WAVEID_IN_WORKGROUP => Op::WaveId { d },
        S_DCACHE_INV | S_DCACHE_WB | S_DCACHE_INV_VOL | S_DCACHE_WB_VOL | S_GL1_INV | S_DCACHE_DISCARD | S_DCACHE_DISCARD_X2 => {
            Op::NoEffect("scalar cache maintenance: no scalar cache in functional mode")
        }
        S_ATC_PROBE | S_ATC_PROBE_BUFFER => Op::NoEffect("address-translation probe: no TLB in functional mode"),
        S_PREFETCH_INST | S_PREFETCH_INST_PC_REL | S_PREFETCH_DATA | S_PREFETCH_DATA_PC_REL | S_BUFFER_PREFETCH_DATA => {
            Op::NoEffect("prefetch: no caches in functional mode")
        }
        _ if name.starts_with("s_buffer_load_") => Op::BufferLoad { d, rsrc: base, off, size: load_size(inst, d) },
        _ if name.starts_with("s_load_") => Op::Load { d, base, off, size: load_size(inst, d) },
        _ if name.starts_with("s_buffer_store_") => Op::BufferStore { data, rsrc: base, off, dwords: dwords(data) },
        _ if name.starts_with("s_store_") => Op::Store { data, base, off, dwords: dwords(data) },
        _ => {
            let (op, wide, buffer) = atomic::atomic_of(name)?;
            Op::Atomic { op, wide, ret: inst.cache_policy().glc(), data, base, off, buffer }
        }
    })
}

fn dwords(op: Operand) -> u8 {
    super::operand::dwords(op) as u8
}

/// Immediate offset + SOFFSET (unsigned 32-bit SGPR value).
fn total_offset(w: &Wave, env: &super::Env, off: &Offset) -> u64 {
    let soff = match off.soffset {
        Operand::Absent => 0,
        op => s32(w, env, op) as u64,
    };
    (off.imm as u64).wrapping_add(soff)
}

fn fault(e: Unmapped) -> FaultKind {
    FaultKind::MemoryViolation { lane: 0, address: e.address, size: e.size }
}

/// A buffer resource's base address and byte range.
struct Buffer {
    base: u64,
    limit: u64,
}

impl Buffer {
    fn of(w: &Wave, rsrc: Operand) -> Buffer {
        let (d0, d1, d2) = (s_dword(w, rsrc, 0), s_dword(w, rsrc, 1), s_dword(w, rsrc, 2));
        let stride = ((d1 >> 16) & 0x3fff) as u64;
        let records = d2 as u64;
        Buffer { base: d0 as u64 | ((d1 & 0xffff) as u64) << 32, limit: if stride == 0 { records } else { records * stride } }
    }

    /// Whether `bytes` bytes at buffer offset `o` lie in range.
    fn holds(&self, o: u64, bytes: u64) -> bool {
        o.checked_add(bytes).is_some_and(|end| end <= self.limit)
    }
}

pub fn execute(op: &Op, _inst: &Inst, cx: &mut ExecCtx) -> Result<Flow, FaultKind> {
    let (w, env) = (&mut *cx.wave, cx.env);
    let mut mem = Global { mem: &mut *cx.mem, port: cx.port };
    match *op {
        Op::Load { d, base, off, size } => {
            let a = s64(w, env, base).wrapping_add(total_offset(w, env, &off));
            let whole = matches!(size, Size::Dwords(n) if n > 1) && mem.port.is_none_or(|p| p.watches_only());
            if !(whole && load_run(w, &mem, d, size, a & !3)) {
                load(w, &mem, d, size, |o, n| Some(a.wrapping_add(o) & !(n - 1).min(3)))?;
            }
        }
        Op::BufferLoad { d, rsrc, off, size } => {
            let (b, o0) = (Buffer::of(w, rsrc), total_offset(w, env, &off));
            load(w, &mem, d, size, |o, n| {
                let o = o0.wrapping_add(o) & !(n - 1).min(3);
                b.holds(o, n).then(|| b.base.wrapping_add(o))
            })?;
        }
        Op::Store { data, base, off, dwords } => {
            w.writes += 1;
            let a = s64(w, env, base).wrapping_add(total_offset(w, env, &off)) & !3;
            for k in 0..dwords as usize {
                mem.write(0, a.wrapping_add(4 * k as u64), &s_dword(w, data, k).to_le_bytes()).map_err(fault)?;
            }
        }
        Op::BufferStore { data, rsrc, off, dwords } => {
            w.writes += 1;
            let (b, o0) = (Buffer::of(w, rsrc), total_offset(w, env, &off) & !3);
            for k in 0..dwords as usize {
                let o = o0.wrapping_add(4 * k as u64);
                if b.holds(o, 4) {
                    mem.write(0, b.base.wrapping_add(o), &s_dword(w, data, k).to_le_bytes()).map_err(fault)?;
                }
            }
        }
        Op::Atomic { op, wide, ret, data, base, off, buffer } => {
            let o = total_offset(w, env, &off);
            let address = if buffer {
                let b = Buffer::of(w, base);
                let o = o & !3;
                b.holds(o, if wide { 8 } else { 4 }).then(|| b.base.wrapping_add(o))
            } else {
                Some(s64(w, env, base).wrapping_add(o) & !3)
            };
            atomic(w, &mut mem, op, wide, ret, data, address)?;
        }
        Op::MemTime { d } => write_s64(w, d, env.clock),
        Op::MemRealTime { d } => write_s64(w, d, env.realtime()),
        Op::WaveId { d } => write_s_dword(w, d, 0, w.id.wave),
        Op::NoEffect(_) => {}
    }
    Ok(Flow::Next)
}

/// The most dwords one scalar load reads (`s_load_dwordx16`).
const MAX_LOAD_DWORDS: usize = 16;

/// A multi-dword load of consecutive dwords at `a` (dword-aligned) in one read: the dwords
/// [`load`] reads one at a time, when one allocation holds them all; false (nothing written
/// or logged) otherwise, and [`load`] then reads them dword by dword, faulting where it
/// must. Only with no port or one that only watches: a timing port sees every dword.
fn load_run(w: &mut Wave, mem: &Global, d: Operand, size: Size, a: u64) -> bool {
    let Size::Dwords(n) = size else { return false };
    let n = usize::from(n);
    let mut buf = [0u8; 4 * MAX_LOAD_DWORDS];
    let Some(b) = buf.get_mut(..4 * n) else { return false };
    // A run that wraps around the address space is not one range: the dword path reads it.
    if a.checked_add(4 * n as u64).is_none() || mem.read(0, a, b).is_err() {
        return false;
    }
    for (k, v) in b.chunks_exact(4).enumerate() {
        write_s_dword(w, d, k, u32::from_le_bytes([v[0], v[1], v[2], v[3]]));
    }
    w.last_read.set(Some(crate::wave::LastRead::new(0, false, a, &buf[..4])));
    true
}

/// Read a load's data: `at(byte offset, access bytes)` gives the address of each access, or
/// None when a buffer access is out of range (it reads 0).
fn load(w: &mut Wave, mem: &Global, d: Operand, size: Size, at: impl Fn(u64, u64) -> Option<u64>) -> Result<(), FaultKind> {
    let first = std::cell::Cell::new(None);
    let read = |o: u64, n: u64| -> Result<u32, FaultKind> {
        let Some(a) = at(o, n) else { return Ok(0) };
        let mut b = [0u8; 4];
        mem.read(0, a, &mut b[..n as usize]).map_err(fault)?;
        if o == 0 {
            first.set(Some(crate::wave::LastRead::new(0, false, a, &b[..n as usize])));
        }
        Ok(u32::from_le_bytes(b))
    };
    match size {
        Size::Dwords(n) => {
            for k in 0..n as usize {
                let v = read(4 * k as u64, 4)?;
                write_s_dword(w, d, k, v);
            }
        }
        Size::U8 => write_s_dword(w, d, 0, read(0, 1)?),
        Size::I8 => write_s_dword(w, d, 0, read(0, 1)? as u8 as i8 as i32 as u32),
        Size::U16 => write_s_dword(w, d, 0, read(0, 2)?),
        Size::I16 => write_s_dword(w, d, 0, read(0, 2)? as u16 as i16 as i32 as u32),
    }
    if let Some(r) = first.get() {
        w.last_read.set(Some(r));
    }
    Ok(())
}

/// Apply a scalar atomic at `address` (None: out-of-range buffer access).
fn atomic(w: &mut Wave, mem: &mut Global, op: AtomicOp, wide: bool, ret: bool, data: Operand, address: Option<u64>) -> Result<(), FaultKind> {
    let half = if wide { 2 } else { 1 };
    let value = |k: usize| -> u64 {
        let lo = s_dword(w, data, k * half) as u64;
        if wide {
            lo | (s_dword(w, data, k * half + 1) as u64) << 32
        } else {
            lo
        }
    };
    let (src, cmp) = (value(0), if op == AtomicOp::CmpSwap { value(1) } else { 0 });
    let old = match address {
        None => 0,
        Some(a) => {
            let n = if wide { 8 } else { 4 };
            let mut b = [0u8; 8];
            mem.read(0, a, &mut b[..n]).map_err(fault)?;
            let old = u64::from_le_bytes(b);
            let new = atomic::apply(op, wide, old, src, cmp);
            mem.write(0, a, &new.to_le_bytes()[..n]).map_err(fault)?;
            w.writes += u64::from(new != old);
            old
        }
    };
    if ret {
        write_s_dword(w, data, 0, old as u32);
        if wide {
            write_s_dword(w, data, 1, (old >> 32) as u32);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    //! Differential: the one-read multi-dword load (`load_run`) against the dword-by-dword
    //! [`load`], on seeded allocations, sizes and dword addresses inside the allocation,
    //! straddling its end and past it: the same SGPRs and last read, or `load_run` declines
    //! and leaves both untouched.
    use super::{load, load_run, Size};
    use crate::exec::Global;
    use crate::fault::WaveId;
    use crate::memory::{Memory, MemoryKind};
    use crate::wave::Wave;
    use hipscope_isa::decode::{Operand, Reg};
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    #[test]
    fn one_read_loads_match_dword_by_dword_loads() {
        let mut r = StdRng::seed_from_u64(0x736d_656d_6c6f_6164);
        let (mut took, mut declined) = (0, 0);
        for _ in 0..3000 {
            let mut mem = Memory::new();
            let dwords = 1 + r.random::<u64>() % 40;
            let data = (0..4 * dwords).map(|_| r.random::<u64>() as u8).collect();
            let base = mem.alloc_init("buf", data, MemoryKind::Device);
            let n = [2u8, 4, 8, 16][r.random::<u64>() as usize % 4];
            // Up to a few dwords past the end: some loads straddle it or miss it.
            let a = base + 4 * (r.random::<u64>() % (dwords + 4));
            let d = Operand::Reg(Reg::Sgpr { index: (r.random::<u64>() % 16) as u8 * 2, count: n });
            let mut w = Wave::new(WaveId::default(), true);
            for s in 0..64 {
                w.sreg[s] = r.random::<u64>() as u32;
            }
            let mut want = w.clone();
            let g = Global { mem: &mut mem, port: None };
            let slow = load(&mut want, &g, d, Size::Dwords(n), |o, _| Some(a.wrapping_add(o))).is_ok();
            let before = w.clone();
            if load_run(&mut w, &g, d, Size::Dwords(n), a) {
                assert!(slow, "{n} dwords at {a:#x}: the dword path faults, the run did not");
                assert_eq!(w.sreg, want.sreg, "{n} dwords at {a:#x}");
                assert_eq!(w.last_read.get(), want.last_read.get(), "{n} dwords at {a:#x}");
                took += 1;
            } else {
                assert_eq!(w.sreg, before.sreg, "{n} dwords at {a:#x}: a declined run wrote SGPRs");
                assert_eq!(w.last_read.get(), before.last_read.get(), "{n} dwords at {a:#x}");
                declined += 1;
            }
        }
        assert!(took > 1000 && declined > 200, "{took} runs taken, {declined} declined");
    }
}
