//! Cross-lane DS instructions that use the LDS crossbar but not its memory.
//!
//! `DS_SWIZZLE_B32` (CDNA4 ISA and RDNA4 ISA §16.15 pseudocode), `offset = pattern`:
//! * `>= 0xe000` FFT: `j = reverse5(i & 31) >> popcount(mask) | (i & mask) | (i & 32)`;
//! * `>= 0xc000` rotate by `offset[9:5]` (right if `offset[10]`), keeping the `offset[4:0]`
//!   bits: `j = ((i & mask) | ((i + rot) & ~mask & 31)) | (i & 32)`;
//! * `offset[15]` quad permute: lane `4q + k` reads lane `4q + offset[2k+1:2k]`;
//! * otherwise bit-mask mode within 32 lanes: `j = (((i & 31) & and) | or) ^ xor | (i & 32)`
//!   with `and = offset[4:0]`, `or = offset[9:5]`, `xor = offset[14:10]`.
//!
//! Reading a lane that is not in EXEC gives 0.
//!
//! `DS_PERMUTE_B32` (forward): each active lane `i` sends its data to lane
//! `((addr_i + offset) / 4) % lanes`; when several send to one lane the highest-numbered wins;
//! lanes nobody sends to get 0. `DS_BPERMUTE_B32` (backward): lane `i` reads lane
//! `((addr_i + offset) / 4) % lanes`, 0 if that lane is inactive. `lanes` is the wave size
//! (32 or 64). Only active lanes are written.

use super::super::operand::{v32, write_v32};
use super::super::ExecCtx;
use crate::wave::MAX_LANES;
use hipscope_isa::decode::Operand;

fn reverse5(x: u32) -> u32 {
    x.reverse_bits() >> 27
}

/// The lane that lane `i` reads for a swizzle pattern.
pub fn swizzle_source(p: u32, i: usize) -> usize {
    let i = i as u32;
    let j = if p >= 0xe000 {
        let mask = p & 0x1f;
        (reverse5(i & 0x1f) >> mask.count_ones()) | (i & mask) | (i & 0x20)
    } else if p >= 0xc000 {
        let mask = p & 0x1f;
        let rot = (p >> 5) & 0x1f;
        let moved = if p & 0x400 != 0 { i.wrapping_sub(rot) } else { i.wrapping_add(rot) };
        (i & mask) | (moved & !mask & 0x1f) | (i & 0x20)
    } else if p & 0x8000 != 0 {
        let sel = (p >> (2 * (i & 3))) & 3;
        (i & !3) | sel
    } else {
        let (and, or, xor) = (p & 0x1f, (p >> 5) & 0x1f, (p >> 10) & 0x1f);
        ((((i & 0x1f) & and) | or) ^ xor) | (i & 0x20)
    };
    j as usize
}

pub(crate) fn swizzle(cx: &mut ExecCtx, dst: Operand, src: Operand, pattern: u32) {
    let (lanes, exec) = (cx.wave.lanes(), cx.wave.exec());
    let mut out = [0u32; MAX_LANES];
    for (i, o) in out.iter_mut().enumerate().take(lanes) {
        let j = swizzle_source(pattern, i);
        if j < lanes && exec >> j & 1 != 0 {
            *o = v32(cx.wave, cx.env, src, j);
        }
    }
    write_active(cx, dst, &out);
}

fn lane_of(cx: &ExecCtx, addr: Operand, offset: u32, i: usize, lanes: usize) -> usize {
    (v32(cx.wave, cx.env, addr, i).wrapping_add(offset) >> 2) as usize & (lanes - 1)
}

pub(crate) fn permute(cx: &mut ExecCtx, backward: bool, dst: Operand, addr: Operand, src: Operand, offset: u32) {
    let (lanes, exec) = (cx.wave.lanes(), cx.wave.exec());
    let mut tmp = [0u32; MAX_LANES];
    for i in 0..lanes {
        let other = lane_of(cx, addr, offset, i, lanes);
        if backward {
            if exec >> other & 1 != 0 {
                tmp[i] = v32(cx.wave, cx.env, src, other);
            }
        } else if exec >> i & 1 != 0 {
            tmp[other] = v32(cx.wave, cx.env, src, i);
        }
    }
    write_active(cx, dst, &tmp);
}

fn write_active(cx: &mut ExecCtx, dst: Operand, vals: &[u32; MAX_LANES]) {
    let mut m = cx.wave.exec();
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        m &= m - 1;
        write_v32(cx.wave, dst, i, vals[i]);
    }
}
