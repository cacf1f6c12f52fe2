//! DS instructions that access LDS memory: reads, writes, two-address forms, atomics,
//! `addtid` forms, append/consume and `ds_condxchg32_rtn_b64` (pseudocode: CDNA4 ISA
//! "LDS Instructions", RDNA4 ISA §16.15).

use super::super::operand::{v32, v_dword, write_v_dword};
use super::super::vmem::atomic::{self, Width};
use super::super::vmem::flat::{read_wide, write_wide};
use super::super::vmem::fp::FpEnv;
use super::super::vmem::shape::Half;
use super::super::ExecCtx;
use super::{lds, rows, DsFp, Op};
use crate::exec::Dir;
use crate::fault::FaultKind;
use crate::wave::LastRead;
use hipscope_isa::decode::Operand;
use hipscope_isa::Family;

/// LDS bytes an access must stay below besides the LDS size: GFX8 clamps with `M0[16:0]`.
pub(super) fn lds_limit(cx: &ExecCtx) -> usize {
    if cx.env.family == Family::Gfx8 {
        (cx.wave.m0() & 0x1_ffff) as usize
    } else {
        usize::MAX
    }
}

fn addr_of(cx: &ExecCtx, addr: Operand, lane: usize, off: u32) -> u32 {
    v32(cx.wave, cx.env, addr, lane).wrapping_add(off)
}

pub(super) fn read(cx: &ExecCtx, lim: usize, lane: usize, at: u32, buf: &mut [u8]) -> Result<(), FaultKind> {
    if let Some(p) = cx.port {
        p.lds_access(lane as u32, at, buf.len() as u32, Dir::Read);
    }
    lds::read(cx.lds, lim, &cx.wave.lds_out_of_range, at, buf);
    cx.wave.last_read.set(Some(LastRead::new(lane as u32, true, at as u64, buf)));
    Ok(())
}

fn write(cx: &mut ExecCtx, lim: usize, lane: usize, at: u32, bytes: &[u8]) -> Result<(), FaultKind> {
    if let Some(p) = cx.port {
        p.lds_access(lane as u32, at, bytes.len() as u32, Dir::Write);
    }
    if lds::write(cx.lds, lim, &cx.wave.lds_out_of_range, at, bytes) {
        cx.wave.writes += 1;
        cx.wave.last_write.set(Some(LastRead::new(lane as u32, true, at as u64, bytes)));
    }
    Ok(())
}

fn read_val(cx: &ExecCtx, lim: usize, lane: usize, at: u32, w: Width) -> Result<u64, FaultKind> {
    let mut b = [0u8; 8];
    read(cx, lim, lane, at, &mut b[..w.bytes()])?;
    Ok(u64::from_le_bytes(b))
}

fn write_val(cx: &mut ExecCtx, lim: usize, lane: usize, at: u32, w: Width, v: u64) -> Result<(), FaultKind> {
    write(cx, lim, lane, at, &v.to_le_bytes()[..w.bytes()])
}

/// The float environment of an LDS atomic from MODE.fp_denorm (bits 5:4 f32, 7:6 f16/f64).
fn fp_env(fp: DsFp, mode: u32) -> FpEnv {
    let (f32f, f64f) = ((mode >> 4) & 3, (mode >> 6) & 3);
    match fp {
        DsFp::None | DsFp::NoFlush => FpEnv::IEEE,
        DsFp::Mode32 => FpEnv::from_mode_field(f32f),
        DsFp::Mode64 => FpEnv::from_mode_field(f64f),
        DsFp::ModeIn32 => FpEnv { flush_in: f32f & 1 == 0, flush_out: false },
        DsFp::ModeIn64 => FpEnv { flush_in: f64f & 1 == 0, flush_out: false },
    }
}

pub(crate) fn execute(op: &Op, cx: &mut ExecCtx) -> Result<(), FaultKind> {
    let lim = lds_limit(cx);
    if let Op::Append { consume, dst, offset } = op {
        return append(cx, lim, *consume, *dst, *offset);
    }
    if whole_rows(op, cx, lim) {
        return Ok(());
    }
    each_lane(op, cx, lim)
}

/// [`execute`] lane by lane only, never through [`rows`]: what the fast path is checked against.
#[cfg(test)]
pub(super) fn execute_by_lane(op: &Op, cx: &mut ExecCtx) -> Result<(), FaultKind> {
    let lim = lds_limit(cx);
    each_lane(op, cx, lim)
}

/// `op` on every active lane, in ascending lane order.
fn each_lane(op: &Op, cx: &mut ExecCtx, lim: usize) -> Result<(), FaultKind> {
    let mut m = cx.wave.exec();
    while m != 0 {
        let lane = m.trailing_zeros() as usize;
        m &= m - 1;
        lane_op(op, cx, lim, lane)?;
    }
    Ok(())
}

/// Whole-dword reads and writes take [`rows`] (same results as [`lane_op`] lane by lane);
/// whether it did the instruction.
fn whole_rows(op: &Op, cx: &mut ExecCtx, lim: usize) -> bool {
    match *op {
        Op::Load { shape, dst, addr, offset } if shape.half == Half::Full && shape.bytes % 4 == 0 => {
            rows::load(cx, lim, dst, addr, offset, shape.bytes as usize)
        }
        Op::Store { shape, data, addr, offset } if shape.bytes % 4 == 0 => rows::store(cx, lim, data, addr, offset, shape.bytes as usize),
        _ => false,
    }
}

fn lane_op(op: &Op, cx: &mut ExecCtx, lim: usize, lane: usize) -> Result<(), FaultKind> {
    let mut buf = [0u8; 16];
    match *op {
        Op::Load { shape, dst, addr, offset } => {
            let n = shape.bytes as usize;
            read(cx, lim, lane, addr_of(cx, addr, lane, offset), &mut buf[..n])?;
            shape.write(cx.wave, dst, lane, &buf);
        }
        Op::Store { shape, data, addr, offset } => {
            shape.gather(cx.wave, data, lane, &mut buf);
            let at = addr_of(cx, addr, lane, offset);
            write(cx, lim, lane, at, &buf[..shape.bytes as usize])?;
        }
        Op::Load2 { width, dst, addr, off } => {
            // The address register may also be a destination: read it once, and read both
            // elements before writing either.
            let base = addr_of(cx, addr, lane, 0);
            let v0 = read_val(cx, lim, lane, base.wrapping_add(off[0]), width)?;
            let v1 = read_val(cx, lim, lane, base.wrapping_add(off[1]), width)?;
            write_wide_at(cx, dst, width, 0, lane, v0);
            write_wide_at(cx, dst, width, width.dwords(), lane, v1);
        }
        Op::Store2 { width, data, addr, off } => {
            for (d, o) in data.into_iter().zip(off) {
                let v = read_wide(cx.wave, d, width, 0, lane);
                let at = addr_of(cx, addr, lane, o);
                write_val(cx, lim, lane, at, width, v)?;
            }
        }
        Op::Xchg2 { width, dst, data, addr, off } => xchg2(cx, lim, lane, width, dst, data, addr, off)?,
        Op::Atomic { .. } => atomic_lane(op, cx, lim, lane)?,
        Op::LoadAddTid { dst, offset } => {
            let v = lds::read_u32(cx.lds, lim, &cx.wave.lds_out_of_range, addtid_address(cx, offset, lane));
            write_v_dword(cx.wave, dst, 0, lane, v);
        }
        Op::StoreAddTid { data, offset } => {
            let (v, at) = (v_dword(cx.wave, data, 0, lane), addtid_address(cx, offset, lane));
            if lds::write_u32(cx.lds, lim, &cx.wave.lds_out_of_range, at, v) {
                cx.wave.writes += 1;
            }
        }
        Op::CondXchg32 { dst, addr, data, offset } => condxchg32(cx, lim, lane, dst, addr, data, offset)?,
        _ => {}
    }
    Ok(())
}

fn write_wide_at(cx: &mut ExecCtx, dst: Operand, width: Width, k: usize, lane: usize, v: u64) {
    write_v_dword(cx.wave, dst, k, lane, v as u32);
    if width == Width::B64 {
        write_v_dword(cx.wave, dst, k + 1, lane, (v >> 32) as u32);
    }
}

/// `addr = {offset1, offset0} + M0[15:0] + lane * 4` (`DS_READ_ADDTID_B32`).
fn addtid_address(cx: &ExecCtx, offset: u32, lane: usize) -> u32 {
    offset.wrapping_add(cx.wave.m0() & 0xffff).wrapping_add(lane as u32 * 4)
}

#[allow(clippy::too_many_arguments)]
fn xchg2(cx: &mut ExecCtx, lim: usize, lane: usize, w: Width, dst: Operand, data: [Operand; 2], addr: Operand, off: [u32; 2]) -> Result<(), FaultKind> {
    let at = off.map(|o| addr_of(cx, addr, lane, o));
    let old = [read_val(cx, lim, lane, at[0], w)?, read_val(cx, lim, lane, at[1], w)?];
    for k in 0..2 {
        let v = read_wide(cx.wave, data[k], w, 0, lane);
        write_val(cx, lim, lane, at[k], w, v)?;
    }
    for (k, v) in old.into_iter().enumerate() {
        write_wide_at(cx, dst, w, k * w.dwords(), lane, v);
    }
    Ok(())
}

fn atomic_lane(op: &Op, cx: &mut ExecCtx, lim: usize, lane: usize) -> Result<(), FaultKind> {
    let Op::Atomic { op: aop, width, dst, addr, src, aux, offset, fp } = *op else {
        return Ok(());
    };
    let at = addr_of(cx, addr, lane, offset) & !(width.bytes() as u32 - 1);
    let old = read_val(cx, lim, lane, at, width)?;
    let s = read_wide(cx.wave, src, width, 0, lane);
    let a = if aop.uses_aux() { read_wide(cx.wave, aux, width, 0, lane) } else { 0 };
    let new = atomic::apply(aop, width, old, s, a, fp_env(fp, cx.wave.mode));
    write_val(cx, lim, lane, at, width, new)?;
    if dst != Operand::Absent {
        write_wide(cx.wave, dst, width, lane, old);
    }
    Ok(())
}

/// `DS_CONDXCHG32_RTN_B64`: `ADDR0 = (addr + offset) & 0xfff8`, `ADDR1 = ADDR0 + 4`; each
/// half of the data is written (with bit 31 cleared) only if its bit 31 is set; both old
/// dwords return.
#[allow(clippy::too_many_arguments)]
fn condxchg32(cx: &mut ExecCtx, lim: usize, lane: usize, dst: Operand, addr: Operand, data: Operand, offset: u32) -> Result<(), FaultKind> {
    let a0 = addr_of(cx, addr, lane, offset) & 0xfff8;
    for k in 0..2 {
        let at = a0 + 4 * k as u32;
        let old = lds::read_u32(cx.lds, lim, &cx.wave.lds_out_of_range, at);
        let d = v_dword(cx.wave, data, k, lane);
        if d >> 31 != 0 && lds::write_u32(cx.lds, lim, &cx.wave.lds_out_of_range, at, d & 0x7fff_ffff) {
            cx.wave.writes += 1;
        }
        write_v_dword(cx.wave, dst, k, lane, old);
    }
    Ok(())
}

/// `DS_APPEND`/`DS_CONSUME`: one atomic add/subtract of the number of active lanes at
/// `M0[15:0] + offset` (the LDS pointer compilers place in M0), the pre-op value broadcast
/// to every active lane.
fn append(cx: &mut ExecCtx, lim: usize, consume: bool, dst: Operand, offset: u32) -> Result<(), FaultKind> {
    let exec = cx.wave.exec();
    if exec == 0 {
        return Ok(());
    }
    let at = (cx.wave.m0() & 0xffff).wrapping_add(offset);
    let old = lds::read_u32(cx.lds, lim, &cx.wave.lds_out_of_range, at);
    let n = exec.count_ones();
    let new = if consume { old.wrapping_sub(n) } else { old.wrapping_add(n) };
    if lds::write_u32(cx.lds, lim, &cx.wave.lds_out_of_range, at, new) {
        cx.wave.writes += 1;
    }
    let mut m = exec;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        write_v_dword(cx.wave, dst, 0, l, old);
    }
    Ok(())
}
