//! FLAT, GLOBAL and SCRATCH instructions (CDNA4 ISA ch. 10 "Flat Memory Instructions", RDNA3
//! ISA ch. 11, "Global/Scratch/Flat instruction modes"):
//! * GLOBAL: `saddr64 + zext(vaddr32) + ioffset` with `saddr`, else `vaddr64 + ioffset`;
//!   `*_addtid` forms: `saddr64 + ioffset + lane * 4`;
//! * SCRATCH: private offset `saddr32 + vaddr32 + ioffset` (each part optional: SS, SV, SVS,
//!   ST modes), in the lane's private memory (see `space` for the layout);
//! * FLAT: the aperture of `vaddr64` (checked before the offset is added, RDNA4 ISA §11.1.1)
//!   selects LDS (offset = low 32 bits of `vaddr + ioffset`), private memory (private offset
//!   = low 32 bits) or global memory.
//!
//! Lanes are processed in ascending order, so atomics of several lanes to one address apply
//! in lane order.

use super::super::operand::{s32, s64, v32, v64, v_dword, write_v_dword};
use super::super::{ExecCtx, Flow};
use super::atomic::{self, AtomicOp, Width};
use super::bulk;
use super::fp::FpEnv;
use super::shape::{Half, LoadShape, StoreShape};
use super::space::{self, Private, Target};
use crate::exec::Dir;
use crate::fault::FaultKind;
use crate::wave::slot;
use crate::wave::{Wave, MAX_LANES};
use hipscope_isa::decode::{Operand, Reg};
use hipscope_isa::Family;

/// Which instruction family addresses the access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seg {
    Flat,
    Global,
    Scratch,
}

/// Address operands, resolved at classification (`Absent` when the form has none).
#[derive(Debug, Clone, PartialEq)]
pub struct FlatAddr {
    pub seg: Seg,
    pub vaddr: Operand,
    pub saddr: Operand,
    /// Sign-extended (GLOBAL/SCRATCH, GFX12) or unsigned (FLAT) instruction offset.
    pub ioff: i64,
}

/// An atomic: operation, width, return register (`Absent`: no return), data registers
/// (`{src, cmp}` for compare-swap), float environment.
#[derive(Debug, Clone, PartialEq)]
pub struct AtomicSpec {
    pub op: AtomicOp,
    pub width: Width,
    pub dst: Operand,
    pub data: Operand,
    pub fp: FpEnv,
}

#[derive(Debug, Clone, PartialEq)]
pub enum FlatWhat {
    Load {
        shape: LoadShape,
        dst: Operand,
    },
    Store {
        shape: StoreShape,
        data: Operand,
    },
    Atomic(AtomicSpec),
    /// `global/scratch_load_lds_*`: the (extended) dword goes to LDS at
    /// `M0[17:2]*4 + ioffset + lane*4` (CDNA4 ISA §10.3); gfx950's 12/16 bytes at
    /// `lane*12`/`lane*16` ([`lds_dma_address`]).
    LoadLds {
        shape: LoadShape,
    },
    LoadAddTid {
        dst: Operand,
    },
    StoreAddTid {
        data: Operand,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct FlatOp {
    pub addr: FlatAddr,
    pub what: FlatWhat,
}

/// Per-instruction facts: the wave's private memory, and for GLOBAL forms every lane's
/// address, computed in one pass over the address registers.
pub(super) struct Pre {
    wave_base: u64,
    per_lane: u64,
    lanes: u32,
    private_base: u64,
    global: [u64; MAX_LANES],
}

impl Pre {
    pub(super) fn new(cx: &ExecCtx) -> Pre {
        let w = &cx.wave;
        let wave_base = if cx.env.family == Family::Gfx8 {
            cx.env.scratch_base.wrapping_add(w.sreg[slot::FLAT_SCRATCH_HI] as u64 * 256)
        } else {
            w.sreg[slot::FLAT_SCRATCH_LO] as u64 | (w.sreg[slot::FLAT_SCRATCH_HI] as u64) << 32
        };
        Pre { wave_base, per_lane: cx.env.scratch_per_lane, lanes: w.lanes() as u32, private_base: cx.env.apertures.private_base, global: [0; MAX_LANES] }
    }

    /// Lane's private bytes `off..off+size`, or a fault past `scratch_per_lane`.
    fn private(&self, off: u32, lane: usize, size: usize) -> Target {
        if off as u64 + size as u64 > self.per_lane {
            return Target::Invalid { address: self.private_base | off as u64, size: size as u32 };
        }
        Target::Private(Private { wave_base: self.wave_base, off, lane: lane as u32, lanes: self.lanes })
    }
}

fn present(op: Operand) -> bool {
    op != Operand::Absent
}

impl FlatAddr {
    fn target(&self, cx: &ExecCtx, pre: &Pre, lane: usize, size: usize) -> Target {
        match self.seg {
            Seg::Global => Target::Mem(pre.global[lane]),
            Seg::Scratch => pre.private(self.scratch_off(cx, lane), lane, size),
            Seg::Flat => self.flat(cx, pre, lane, size),
        }
    }

    /// Every lane's GLOBAL address (inactive lanes too: computing them is cheaper than
    /// skipping them, and they are never accessed).
    fn global_all(&self, cx: &ExecCtx, out: &mut [u64; MAX_LANES]) {
        let w = &*cx.wave;
        let lanes = w.lanes();
        match self.vaddr {
            Operand::Reg(Reg::Vgpr { index, .. }) if present(self.saddr) => {
                let base = s64(w, cx.env, self.saddr).wrapping_add(self.ioff as u64);
                for (o, &v) in out[..lanes].iter_mut().zip(w.row(index as usize)) {
                    *o = base.wrapping_add(v as u64);
                }
            }
            Operand::Reg(Reg::Vgpr { index, .. }) => {
                let (lo, hi) = (w.row(index as usize), w.row((index as usize + 1) % 256));
                match (<&[u32; MAX_LANES]>::try_from(lo), <&[u32; MAX_LANES]>::try_from(hi)) {
                    (Ok(lo), Ok(hi)) if lanes == MAX_LANES => pair_sums(out, lo, hi, self.ioff as u64),
                    _ => {
                        for ((o, &l), &h) in out[..lanes].iter_mut().zip(lo).zip(hi) {
                            *o = (l as u64 | (h as u64) << 32).wrapping_add(self.ioff as u64);
                        }
                    }
                }
            }
            _ => {
                for (lane, o) in out[..lanes].iter_mut().enumerate() {
                    *o = self.global(cx, lane);
                }
            }
        }
    }

    fn global(&self, cx: &ExecCtx, lane: usize) -> u64 {
        let (w, env) = (&*cx.wave, cx.env);
        let base = if present(self.saddr) { s64(w, env, self.saddr).wrapping_add(v32(w, env, self.vaddr, lane) as u64) } else { v64(w, env, self.vaddr, lane) };
        base.wrapping_add(self.ioff as u64)
    }

    fn scratch_off(&self, cx: &ExecCtx, lane: usize) -> u32 {
        let (w, env) = (&*cx.wave, cx.env);
        let s = if present(self.saddr) { s32(w, env, self.saddr) } else { 0 };
        let v = if present(self.vaddr) { v32(w, env, self.vaddr, lane) } else { 0 };
        s.wrapping_add(v).wrapping_add(self.ioff as u32)
    }

    fn flat(&self, cx: &ExecCtx, pre: &Pre, lane: usize, size: usize) -> Target {
        let a = v64(cx.wave, cx.env, self.vaddr, lane);
        let eff = a.wrapping_add(self.ioff as u64);
        let ap = &cx.env.apertures;
        if ap.is_shared(a) {
            Target::Lds(eff as u32)
        } else if ap.is_private(a) {
            pre.private(eff as u32, lane, size)
        } else {
            Target::Mem(eff)
        }
    }

    /// `*_addtid`: `saddr64 + ioffset + lane * 4` (RDNA3 ISA, global mode "GT").
    fn addtid(&self, cx: &ExecCtx, lane: usize) -> Target {
        let base = if present(self.saddr) { s64(cx.wave, cx.env, self.saddr) } else { 0 };
        Target::Mem(base.wrapping_add(self.ioff as u64).wrapping_add(lane as u64 * 4))
    }
}

/// `out[l] = (lo[l] | hi[l] << 32) + off` for every lane of a wave64: a 64-bit VGPR
/// address plus the offset (what most GLOBAL accesses are). Compiled for AVX2 where the host
/// has it, four lanes a register; the baseline build's loop took two, and its aliasing checks,
/// ~210 host instructions a wave.
#[inline]
fn pair_sums(out: &mut [u64; MAX_LANES], lo: &[u32; MAX_LANES], hi: &[u32; MAX_LANES], off: u64) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the host CPU has the feature `pair_sums_avx2` is compiled for (checked above).
        return unsafe { pair_sums_avx2(out, lo, hi, off) };
    }
    pair_sums_on(out, lo, hi, off)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn pair_sums_avx2(out: &mut [u64; MAX_LANES], lo: &[u32; MAX_LANES], hi: &[u32; MAX_LANES], off: u64) {
    pair_sums_on(out, lo, hi, off)
}

#[inline(always)]
fn pair_sums_on(out: &mut [u64; MAX_LANES], lo: &[u32; MAX_LANES], hi: &[u32; MAX_LANES], off: u64) {
    for l in 0..MAX_LANES {
        out[l] = (lo[l] as u64 | (hi[l] as u64) << 32).wrapping_add(off);
    }
}

/// Lane data of a 32/64-bit value starting at dword `k` of `op`.
pub(crate) fn read_wide(w: &Wave, op: Operand, width: Width, k: usize, lane: usize) -> u64 {
    let lo = v_dword(w, op, k, lane) as u64;
    match width {
        Width::B32 => lo,
        Width::B64 => lo | (v_dword(w, op, k + 1, lane) as u64) << 32,
    }
}

pub(crate) fn write_wide(w: &mut Wave, op: Operand, width: Width, lane: usize, v: u64) {
    write_v_dword(w, op, 0, lane, v as u32);
    if width == Width::B64 {
        write_v_dword(w, op, 1, lane, (v >> 32) as u32);
    }
}

/// One lane of a memory atomic; data registers hold `{src, cmp}` (ISA: "CMPSWAP: src =
/// DATA[0], cmp = DATA[1]"). Shared with buffer atomics.
pub(super) fn atomic_lane(cx: &mut ExecCtx, t: Target, lane: usize, a: &AtomicSpec) -> Result<(), FaultKind> {
    let n = a.width.bytes();
    let t = t.aligned(n);
    let mut b = [0u8; 8];
    space::read(cx, t, lane, &mut b[..n])?;
    let old = u64::from_le_bytes(b);
    let src = read_wide(cx.wave, a.data, a.width, 0, lane);
    let aux = if a.op.uses_aux() { read_wide(cx.wave, a.data, a.width, a.width.dwords(), lane) } else { 0 };
    let new = atomic::apply(a.op, a.width, old, src, aux, a.fp);
    space::store(cx, t, lane, &new.to_le_bytes()[..n], new != old)?;
    if present(a.dst) {
        write_wide(cx.wave, a.dst, a.width, lane, old);
    }
    Ok(())
}

/// LDS address of an LDS-DMA load: `M0` base (GFX8 `M0[15:0]`, later `M0[17:2] * 4`) plus
/// the instruction offset and `lane * 4` (CDNA4 ISA §9.1.9, §10.3); gfx950's 12- and 16-byte
/// forms place each lane's data contiguously, `lane * 12` / `lane * 16` (a wave's 64 lanes
/// fill `64 * size` bytes from the base; see `lds_dma_stride`).
pub(super) fn lds_dma_address(cx: &ExecCtx, ioff: u32, lane: usize, stride: u32) -> u32 {
    let m0 = cx.wave.m0();
    let base = if cx.env.family == Family::Gfx8 { m0 & 0xffff } else { m0 & 0x3_fffc };
    base.wrapping_add(ioff).wrapping_add(lane as u32 * stride)
}

/// Bytes between consecutive lanes' LDS data: a dword for the byte, short and dword forms
/// (the value is widened to 32 bits), the data size for gfx950's dwordx3/x4 forms.
// assumed: lanes `size` bytes apart for the x3/x4 forms. The CDNA4 ISA guide's formula is
// written for the dword forms (`TID * 4`); public gfx950 kernels that stage tiles with
// `global_load_lds_dwordx4` give lane `i` the source `base + 16 * i` and one M0 per wave,
// which is a contiguous copy only with a 16-byte lane stride; AMD's Composable Kernel treats
// gfx950's direct-to-LDS loads as each thread writing its 4, 12 or 16 bytes (ROCm/
// composable_kernel PR 2576, `amd_buffer_addressing_builtins.hpp`).
fn lds_dma_stride(shape: LoadShape) -> u32 {
    u32::from(shape.bytes).max(4)
}

/// Store an LDS-DMA load's data into LDS: sub-dword values extended to a dword, dword
/// multiples as they are.
pub(super) fn lds_dma_store(cx: &mut ExecCtx, ioff: u32, lane: usize, shape: LoadShape, buf: &[u8]) -> Result<(), FaultKind> {
    let at = lds_dma_address(cx, ioff, lane, lds_dma_stride(shape));
    if shape.bytes > 4 {
        return space::write(cx, Target::Lds(at), lane, &buf[..shape.bytes as usize]);
    }
    let v = shape.widen(buf);
    space::write(cx, Target::Lds(at), lane, &v.to_le_bytes())
}

impl FlatOp {
    fn lane(&self, cx: &mut ExecCtx, pre: &Pre, lane: usize) -> Result<(), FaultKind> {
        let mut buf = [0u8; 16];
        match &self.what {
            FlatWhat::Load { shape, dst } => {
                let n = shape.bytes as usize;
                let t = self.addr.target(cx, pre, lane, n);
                space::read(cx, t, lane, &mut buf[..n])?;
                shape.write(cx.wave, *dst, lane, &buf);
            }
            FlatWhat::Store { shape, data } => {
                let n = shape.bytes as usize;
                let t = self.addr.target(cx, pre, lane, n);
                shape.gather(cx.wave, *data, lane, &mut buf);
                space::write(cx, t, lane, &buf[..n])?;
            }
            FlatWhat::Atomic(a) => {
                let t = self.addr.target(cx, pre, lane, a.width.bytes());
                atomic_lane(cx, t, lane, a)?;
            }
            FlatWhat::LoadLds { shape } => {
                let n = shape.bytes as usize;
                let t = self.addr.target(cx, pre, lane, n);
                space::read(cx, t, lane, &mut buf[..n])?;
                lds_dma_store(cx, self.addr.ioff as u32, lane, *shape, &buf)?;
            }
            FlatWhat::LoadAddTid { dst } => {
                space::read(cx, self.addr.addtid(cx, lane), lane, &mut buf[..4])?;
                write_v_dword(cx.wave, *dst, 0, lane, u32::from_le_bytes([buf[0], buf[1], buf[2], buf[3]]));
            }
            FlatWhat::StoreAddTid { data } => {
                let v = v_dword(cx.wave, *data, 0, lane);
                space::write(cx, self.addr.addtid(cx, lane), lane, &v.to_le_bytes())?;
            }
        }
        Ok(())
    }

    /// The [`bulk`] path for whole-dword GLOBAL loads and stores to VGPRs; false when it
    /// does not apply.
    /// A port that only watches is told the lanes afterwards.
    fn bulk(&self, cx: &mut ExecCtx, pre: &Pre) -> bool {
        let whole = |bytes: u8| bytes >= 4 && bytes % 4 == 0;
        let lanes = cx.wave.exec();
        let (done, bytes, dir) = match &self.what {
            FlatWhat::Load { shape, dst: Operand::Reg(Reg::Vgpr { index, .. }) } if shape.half == Half::Full && whole(shape.bytes) => {
                (bulk::load_dwords(cx.wave, cx.mem, &pre.global, *index as usize, shape.dwords()), shape.bytes, Dir::Read)
            }
            FlatWhat::Store { shape, data: Operand::Reg(Reg::Vgpr { index, .. }) } if whole(shape.bytes) => {
                (bulk::store_dwords(cx.wave, cx.mem, &pre.global, *index as usize, shape.bytes as usize / 4), shape.bytes, Dir::Write)
            }
            _ => return false,
        };
        if let (true, Some(p)) = (done, cx.port) {
            p.moved(lanes, &pre.global, u32::from(bytes), dir);
        }
        done
    }

    pub fn execute(&self, cx: &mut ExecCtx) -> Result<Flow, FaultKind> {
        let mut pre = Pre::new(cx);
        if self.addr.seg == Seg::Global {
            self.addr.global_all(cx, &mut pre.global);
            if cx.port.is_none_or(|p| p.watches_only()) && self.bulk(cx, &pre) {
                return Ok(Flow::Next);
            }
            if let Some(port) = cx.port.filter(|p| !p.watches_only()) {
                if let Some(r) = self.through_port(cx, port, &pre.global) {
                    return r.map(|()| Flow::Next);
                }
            }
        }
        let mut m = cx.wave.exec();
        while m != 0 {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            self.lane(cx, &pre, lane)?;
        }
        Ok(Flow::Next)
    }
}

#[cfg(test)]
mod tests {
    use super::pair_sums;
    use crate::wave::MAX_LANES;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    /// Seeded address rows (edge halves among them) and offsets, negative ones too, against
    /// the 64-bit sum taken modulo 2^64 through 128-bit arithmetic.
    #[test]
    fn pair_sums_are_the_wrapped_64_bit_sums() {
        let edges = [0u32, 1, !0, 1 << 31, 0x7fff_ffff];
        for seed in 0..64u64 {
            let mut rng = StdRng::seed_from_u64(seed);
            let mut pick = || if rng.random::<u8>() < 64 { edges[rng.random_range(0..edges.len())] } else { rng.random() };
            let (lo, hi): ([u32; MAX_LANES], [u32; MAX_LANES]) = (std::array::from_fn(|_| pick()), std::array::from_fn(|_| pick()));
            let off = [0u64, 4, (-8i64) as u64, u64::MAX, seed << 40][seed as usize % 5];
            let mut out = [0u64; MAX_LANES];
            pair_sums(&mut out, &lo, &hi, off);
            for l in 0..MAX_LANES {
                let want = ((u128::from(hi[l]) << 32 | u128::from(lo[l])) + u128::from(off)) % (1u128 << 64);
                assert_eq!(u128::from(out[l]), want, "seed {seed} lane {l}");
            }
        }
    }
}
