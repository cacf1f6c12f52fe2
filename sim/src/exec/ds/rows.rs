//! Whole-instruction LDS access for the common case: `ds_read_b32`..`ds_read_b128` and
//! `ds_write_b32`..`ds_write_b128` (and their GFX11+ `load`/`store` spellings) with whole
//! dwords, VGPR operands and rows inside the register file. One pass over the active lanes
//! moves each lane's dwords between the LDS bytes and the register rows as whole words,
//! without the per-lane path's operand dispatch, byte buffers and per-lane records.
//!
//! Every effect is the per-lane path's (`mem`), which all other shapes take: lanes in
//! ascending order (so lanes writing overlapping bytes leave the same final bytes), the same
//! range check and out-of-range count per lane, a lane's address read before its
//! destination is written (the address register may be a destination), the port told of
//! every lane's access in lane order (all before the data moves, in one call:
//! [`crate::exec::MemPort::lds_moved`]), a write counted when it changes bytes, and the last
//! read and last changing write recorded as the per-lane path leaves them (the last lane's).

use super::super::ExecCtx;
use crate::exec::Dir;
use crate::wave::{LastRead, MAX_LANES};
use hipscope_isa::decode::{Operand, Reg};

/// The first VGPR of `op` if `n` rows from it lie in a register file of `rows` rows without
/// wrapping past v255 (else the per-lane path runs).
fn vgpr_rows(op: Operand, n: usize, rows: usize) -> Option<usize> {
    match op {
        Operand::Reg(Reg::Vgpr { index, .. }) if index as usize + n <= rows.min(256) => Some(index as usize),
        _ => None,
    }
}

/// Lane `lane`'s byte offset into LDS if its `n`-byte access lies below `limit`.
#[inline(always)]
fn in_range(at: u32, n: usize, limit: usize) -> Option<usize> {
    let s = at as usize;
    (s + n <= limit).then_some(s)
}

#[inline(always)]
fn dwords_bytes<const D: usize>(v: &[u32; D]) -> [u8; 16] {
    let mut b = [0u8; 16];
    for (k, x) in v.iter().enumerate() {
        b[4 * k..4 * k + 4].copy_from_slice(&x.to_le_bytes());
    }
    b
}

/// `ds_read_b{32·bytes/4}` into VGPRs `dst..`; false (nothing done) when the shape or
/// registers are not the common case.
pub(super) fn load(cx: &mut ExecCtx, lim: usize, dst: Operand, addr: Operand, offset: u32, bytes: usize) -> bool {
    let rows = cx.wave.vgpr.len() / MAX_LANES;
    let (Some(d), Some(a)) = (vgpr_rows(dst, bytes / 4, rows), vgpr_rows(addr, 1, rows)) else { return false };
    match bytes {
        4 => load_d::<1>(cx, lim, d, a, offset),
        8 => load_d::<2>(cx, lim, d, a, offset),
        12 => load_d::<3>(cx, lim, d, a, offset),
        16 => load_d::<4>(cx, lim, d, a, offset),
        _ => return false,
    }
    true
}

fn load_d<const D: usize>(cx: &mut ExecCtx, lim: usize, dst: usize, addr: usize, offset: u32) {
    let limit = lim.min(cx.lds.len());
    let (lds, port, w) = (&*cx.lds, cx.port, &mut *cx.wave);
    // The addresses copied out first: the address register may be a destination, and each
    // lane reads its own address before its destination is written either way.
    let Some(addrs) = row_of(&w.vgpr, addr).copied() else { return };
    let mut m = w.exec();
    let Some(rows) = w.vgpr.get_mut(dst * MAX_LANES..(dst + D) * MAX_LANES) else { return };
    let mut oob = 0u64;
    let mut last = None;
    let ats = addrs.map(|a| a.wrapping_add(offset));
    if let Some(p) = port {
        p.lds_moved(m, &ats, 4 * D as u32, Dir::Read);
    }
    while m != 0 {
        let lane = m.trailing_zeros() as usize % MAX_LANES;
        m &= m - 1;
        let at = ats[lane];
        let mut v = [0u32; D];
        match in_range(at, 4 * D, limit).and_then(|s| lds.get(s..s + 4 * D)) {
            Some(bytes) => {
                for (x, b) in v.iter_mut().zip(bytes.chunks_exact(4)) {
                    *x = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                }
            }
            None => oob += 1,
        }
        for (row, x) in rows.chunks_exact_mut(MAX_LANES).zip(v) {
            row[lane] = x;
        }
        last = Some((lane, at, v));
    }
    w.lds_out_of_range.set(w.lds_out_of_range.get() + oob);
    if let Some((lane, at, v)) = last {
        w.last_read.set(Some(LastRead::new(lane as u32, true, u64::from(at), &dwords_bytes(&v)[..4 * D])));
    }
}

/// Lane `lane`'s dwords of the `D` rows of `rows`.
#[inline(always)]
fn lane_dwords<const D: usize>(rows: &[u32], lane: usize) -> [u32; D] {
    let mut v = [0u32; D];
    for (x, row) in v.iter_mut().zip(rows.chunks_exact(MAX_LANES)) {
        *x = row[lane % MAX_LANES];
    }
    v
}

/// VGPR row `r` of a register file as a whole row (`None` past the file).
#[inline(always)]
fn row_of(vgpr: &[u32], r: usize) -> Option<&[u32; MAX_LANES]> {
    vgpr.get(r * MAX_LANES..(r + 1) * MAX_LANES).and_then(|x| x.try_into().ok())
}

/// `ds_write_b{32·bytes/4}` from VGPRs `data..`; false (nothing done) when the shape or
/// registers are not the common case.
pub(super) fn store(cx: &mut ExecCtx, lim: usize, data: Operand, addr: Operand, offset: u32, bytes: usize) -> bool {
    let rows = cx.wave.vgpr.len() / MAX_LANES;
    let (Some(d), Some(a)) = (vgpr_rows(data, bytes / 4, rows), vgpr_rows(addr, 1, rows)) else { return false };
    match bytes {
        4 => store_d::<1>(cx, lim, d, a, offset),
        8 => store_d::<2>(cx, lim, d, a, offset),
        12 => store_d::<3>(cx, lim, d, a, offset),
        16 => store_d::<4>(cx, lim, d, a, offset),
        _ => return false,
    }
    true
}

fn store_d<const D: usize>(cx: &mut ExecCtx, lim: usize, data: usize, addr: usize, offset: u32) {
    let limit = lim.min(cx.lds.len());
    let (lds, port, w) = (&mut *cx.lds, cx.port, &mut *cx.wave);
    let (mut oob, mut changed) = (0u64, 0u64);
    let mut last = None;
    let last_write;
    {
        // Every row looked up once, so the lane loop indexes fixed-size rows only.
        let (Some(addrs), Some(rows)) = (row_of(&w.vgpr, addr), w.vgpr.get(data * MAX_LANES..(data + D) * MAX_LANES)) else { return };
        let mut m = w.exec();
        let ats = addrs.map(|a| a.wrapping_add(offset));
        if let Some(p) = port {
            p.lds_moved(m, &ats, 4 * D as u32, Dir::Write);
        }
        while m != 0 {
            let lane = m.trailing_zeros() as usize % MAX_LANES;
            m &= m - 1;
            let at = ats[lane];
            let Some(out) = in_range(at, 4 * D, limit).and_then(|s| lds.get_mut(s..s + 4 * D)) else {
                oob += 1;
                continue;
            };
            let mut v = [0u32; D];
            let mut same = true;
            for ((x, row), b) in v.iter_mut().zip(rows.chunks_exact(MAX_LANES)).zip(out.chunks_exact_mut(4)) {
                *x = row[lane];
                same &= u32::from_le_bytes([b[0], b[1], b[2], b[3]]) == *x;
                b.copy_from_slice(&x.to_le_bytes());
            }
            if !same {
                changed += 1;
                // Only the lane: its record is made after the loop, from its rows (a record
                // kept for every changing lane cost the loop registers it spilled).
                last = Some(lane);
            }
        }
        last_write = last.map(|lane| (lane, ats[lane], lane_dwords::<D>(rows, lane)));
    }
    w.lds_out_of_range.set(w.lds_out_of_range.get() + oob);
    w.writes += changed;
    if let Some((lane, at, v)) = last_write {
        w.last_write.set(Some(LastRead::new(lane as u32, true, u64::from(at), &dwords_bytes(&v)[..4 * D])));
    }
}

#[cfg(test)]
mod tests {
    //! Differential: every whole-dword read and write gives what the per-lane path gives, on
    //! overlapping, out-of-range and wrapping addresses, unchanged bytes, partial EXEC, and an
    //! address register that is also the destination.
    use super::super::super::vmem::shape::{LoadShape, StoreShape};
    use super::super::{mem, Op};
    use crate::exec::{Env, ExecCtx};
    use crate::fault::WaveId;
    use crate::memory::Memory;
    use crate::wave::{Wave, MAX_LANES};
    use hipscope_isa::decode::{Operand, Reg};
    use hipscope_isa::Processor;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    /// One wave and its LDS (the instruction rig of `crate::testing` sits above `exec`).
    struct Rig {
        wave: Wave,
        lds: Vec<u8>,
    }

    fn v(index: u8, count: u8) -> Operand {
        Operand::Reg(Reg::Vgpr { index, count })
    }

    /// A rig with 256 bytes of LDS, addresses in v2 and data in v8.. from `seed`.
    fn rig(seed: u64, exec: u64) -> Rig {
        let mut r = Rig { wave: Wave::new(WaveId::default(), true), lds: vec![0; 256] };
        let mut s = StdRng::seed_from_u64(seed);
        for b in r.lds.iter_mut() {
            *b = if s.random::<u64>() % 3 == 0 { 0 } else { s.random::<u64>() as u8 };
        }
        for lane in 0..MAX_LANES {
            let x = s.random::<u64>();
            let at = match x % 8 {
                0 => u32::MAX - (x >> 8) as u32 % 8,
                1 => 250 + (x >> 8) as u32 % 16,
                _ => (x >> 8) as u32 % 64 * 4,
            };
            r.wave.set_v(2, lane, at);
            for k in 0..4 {
                let v = s.random::<u64>();
                r.wave.set_v(8 + k, lane, if v % 4 == 0 { 0 } else { v as u32 });
            }
        }
        r.wave.set_exec(exec);
        r
    }

    fn run(op: &Op, seed: u64, exec: u64, by_lane: bool) -> Rig {
        let mut r = rig(seed, exec);
        let (env, mut memory) = (Env::plain(Processor::Gfx942), Memory::new());
        let mut cx = ExecCtx { wave: &mut r.wave, mem: &mut memory, port: None, lds: &mut r.lds, env: &env };
        if by_lane {
            mem::execute_by_lane(op, &mut cx).expect("no fault");
        } else {
            mem::execute(op, &mut cx).expect("no fault");
        }
        r
    }

    #[test]
    fn whole_rows_match_the_per_lane_path() {
        let load = |b: &str| LoadShape::parse(b).expect("a load shape");
        let store = |b: &str| StoreShape::parse(b).expect("a store shape");
        let cases = [
            Op::Load { shape: load("b32"), dst: v(4, 1), addr: v(2, 1), offset: 3 },
            Op::Load { shape: load("b32"), dst: v(2, 1), addr: v(2, 1), offset: 3 },
            Op::Load { shape: load("b64"), dst: v(4, 2), addr: v(2, 1), offset: 3 },
            Op::Load { shape: load("b96"), dst: v(4, 3), addr: v(2, 1), offset: 3 },
            Op::Load { shape: load("b128"), dst: v(1, 4), addr: v(2, 1), offset: 3 },
            Op::Store { shape: store("b32"), data: v(8, 1), addr: v(2, 1), offset: 3 },
            Op::Store { shape: store("b64"), data: v(8, 2), addr: v(2, 1), offset: 3 },
            Op::Store { shape: store("b96"), data: v(8, 3), addr: v(2, 1), offset: 3 },
            Op::Store { shape: store("b128"), data: v(8, 4), addr: v(2, 1), offset: 3 },
        ];
        let mut checked = 0;
        for op in &cases {
            for seed in 1..40u64 {
                let mut s = StdRng::seed_from_u64(seed * 0x9e37_79b9);
                let exec = if seed % 3 == 0 { u64::MAX } else { s.random::<u64>() };
                let (fast, slow) = (run(op, seed, exec, false), run(op, seed, exec, true));
                assert_eq!(fast.wave.vgpr, slow.wave.vgpr, "{op:?} seed {seed}: registers");
                assert_eq!(fast.lds, slow.lds, "{op:?} seed {seed}: LDS");
                assert_eq!(fast.wave.writes, slow.wave.writes, "{op:?} seed {seed}: writes");
                assert_eq!(fast.wave.lds_out_of_range.get(), slow.wave.lds_out_of_range.get(), "{op:?} seed {seed}: out of range");
                assert_eq!(fast.wave.last_read.get(), slow.wave.last_read.get(), "{op:?} seed {seed}: last read");
                assert_eq!(fast.wave.last_write.get(), slow.wave.last_write.get(), "{op:?} seed {seed}: last write");
                checked += u64::from(slow.wave.lds_out_of_range.get() > 0 && slow.wave.writes + u64::from(slow.wave.last_read.get().is_some()) > 0);
            }
        }
        // The cases did reach out-of-range lanes next to in-range ones.
        assert!(checked > 100, "{checked}");
    }
}
