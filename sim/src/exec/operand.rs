//! Reading and writing decoded operands: scalar (SGPR/TTMP/special/constant) and per-lane
//! vector (VGPR/AGPR, or a scalar/constant broadcast to every lane).

use super::Env;
use crate::wave::{slot, sreg_index, Wave, MAX_LANES};
use hipscope_isa::decode::{Operand, Reg, Special};

/// Value of a register that is not storage: condition bits, apertures, null.
fn special_value(w: &Wave, env: &Env, s: Special) -> u64 {
    use Special::*;
    match s {
        SrcVccz => (w.vcc() == 0) as u64,
        SrcExecz => (w.exec() == 0) as u64,
        SrcScc => w.scc as u64,
        SrcSharedBase => env.apertures.shared_base,
        SrcSharedLimit => env.apertures.shared_base + 0xffff_ffff,
        SrcPrivateBase => env.apertures.private_base,
        SrcPrivateLimit => env.apertures.private_base + 0xffff_ffff,
        _ => 0,
    }
}

/// A scalar operand as 32 bits. The commonest shapes (an SGPR, a constant) are read here,
/// inlined into the caller; [`s32_general`] reads every shape and decides the same for these
/// (the unit test `lean_reads_and_writes_match_the_general_ones` compares them). An SGPR's
/// index is below 106 (the decoder rejects the rest), inside the register file: a guard here
/// cost fir 1 % more host instructions.
#[inline(always)]
pub fn s32(w: &Wave, env: &Env, op: Operand) -> u32 {
    match op {
        Operand::Reg(Reg::Sgpr { index, .. }) => w.sreg[index as usize],
        Operand::Imm(v) => v as u32,
        _ => s32_general(w, env, op),
    }
}

/// [`s32`] for every operand shape.
#[inline(never)]
pub fn s32_general(w: &Wave, env: &Env, op: Operand) -> u32 {
    match op {
        Operand::Imm(v) => v as u32,
        Operand::Reg(r) => match sreg_index(r) {
            Some(i) => w.sreg[i],
            None => match r {
                Reg::Special(s) => special_value(w, env, s) as u32,
                Reg::Vgpr { index, .. } => w.v(index as usize, first_active_lane(w)),
                _ => 0,
            },
        },
        Operand::Absent => 0,
    }
}

/// A scalar operand as 64 bits (register pair, or a constant's 64-bit value); the lean part
/// as in [`s32`], the rest in [`s64_general`].
#[inline(always)]
pub fn s64(w: &Wave, env: &Env, op: Operand) -> u64 {
    match op {
        Operand::Reg(Reg::Sgpr { index, .. }) => {
            let i = index as usize;
            w.sreg[i] as u64 | (w.sreg.get(i + 1).copied().unwrap_or(0) as u64) << 32
        }
        Operand::Imm(v) => v as u64,
        _ => s64_general(w, env, op),
    }
}

/// [`s64`] for every operand shape.
#[inline(never)]
pub fn s64_general(w: &Wave, env: &Env, op: Operand) -> u64 {
    match op {
        Operand::Imm(v) => v as u64,
        Operand::Reg(r) => match sreg_index(r) {
            Some(i) => w.sreg[i] as u64 | (w.sreg.get(i + 1).copied().unwrap_or(0) as u64) << 32,
            None => match r {
                Reg::Special(s) => special_value(w, env, s),
                _ => 0,
            },
        },
        Operand::Absent => 0,
    }
}

/// Dword `k` of a scalar register range (e.g. a buffer resource `s[8:11]`).
pub fn s_dword(w: &Wave, op: Operand, k: usize) -> u32 {
    match op {
        Operand::Reg(r) => sreg_index(r).and_then(|i| w.sreg.get(i + k).copied()).unwrap_or(0),
        Operand::Imm(v) if k == 0 => v as u32,
        _ => 0,
    }
}

/// Write a scalar destination: an SGPR inline (the commonest), the rest in [`write_s32_general`].
#[inline(always)]
pub fn write_s32(w: &mut Wave, op: Operand, v: u32) {
    match op {
        Operand::Reg(Reg::Sgpr { index, .. }) if index as usize != slot::EXEC_HI => w.sreg[index as usize] = v,
        _ => write_s32_general(w, op, v),
    }
}

/// [`write_s32`] for every operand shape.
#[inline(never)]
pub fn write_s32_general(w: &mut Wave, op: Operand, v: u32) {
    if let Operand::Reg(r) = op {
        if let Some(i) = sreg_index(r) {
            if i == slot::EXEC_HI && !w.wave64 {
                return;
            }
            w.sreg[i] = v;
        }
    }
}

pub fn write_s64(w: &mut Wave, op: Operand, v: u64) {
    if let Operand::Reg(r) = op {
        if let Some(i) = sreg_index(r) {
            w.sreg[i] = v as u32;
            // In wave32 EXEC_HI is not written by 64-bit writes to EXEC.
            if i + 1 < w.sreg.len() && (i + 1 != slot::EXEC_HI || w.wave64) {
                w.sreg[i + 1] = (v >> 32) as u32;
            }
        }
    }
}

/// Write dword `k` of a scalar register range.
pub fn write_s_dword(w: &mut Wave, op: Operand, k: usize, v: u32) {
    if let Operand::Reg(r) = op {
        if let Some(i) = sreg_index(r) {
            if let Some(slot) = w.sreg.get_mut(i + k) {
                *slot = v;
            }
        }
    }
}

fn first_active_lane(w: &Wave) -> usize {
    let e = w.exec();
    if e == 0 {
        0
    } else {
        e.trailing_zeros() as usize
    }
}

/// A vector-source operand in `lane`: dword `k` of a VGPR/AGPR range, or a scalar/constant.
#[inline]
pub fn v32(w: &Wave, env: &Env, op: Operand, lane: usize) -> u32 {
    match op {
        Operand::Reg(Reg::Vgpr { index, .. }) => w.v(index as usize, lane),
        Operand::Reg(Reg::Agpr { index, .. }) => w.a(index as usize, lane),
        Operand::Reg(Reg::Vgpr16 { index, hi }) => w.v(index as usize, lane) >> if hi { 16 } else { 0 } & 0xffff,
        _ => s32(w, env, op),
    }
}

/// A 64-bit vector source in `lane` (VGPR pair, or a 64-bit scalar/constant).
#[inline]
pub fn v64(w: &Wave, env: &Env, op: Operand, lane: usize) -> u64 {
    match op {
        Operand::Reg(Reg::Vgpr { index, .. }) => {
            let i = index as usize;
            w.v(i, lane) as u64 | (w.v((i + 1) % 256, lane) as u64) << 32
        }
        Operand::Reg(Reg::Agpr { index, .. }) => {
            let i = index as usize;
            w.a(i, lane) as u64 | (w.a((i + 1) % 256, lane) as u64) << 32
        }
        _ => s64(w, env, op),
    }
}

/// Dword `k` of a vector register range in `lane` (e.g. the data of a 128-bit store).
#[inline]
pub fn v_dword(w: &Wave, op: Operand, k: usize, lane: usize) -> u32 {
    match op {
        Operand::Reg(Reg::Vgpr { index, .. }) => w.v((index as usize + k) % 256, lane),
        Operand::Reg(Reg::Agpr { index, .. }) => w.a((index as usize + k) % 256, lane),
        _ => 0,
    }
}

#[inline]
pub fn write_v32(w: &mut Wave, op: Operand, lane: usize, v: u32) {
    match op {
        Operand::Reg(Reg::Vgpr { index, .. }) => w.set_v(index as usize, lane, v),
        Operand::Reg(Reg::Agpr { index, .. }) => w.set_a(index as usize, lane, v),
        Operand::Reg(Reg::Vgpr16 { index, hi }) => {
            let old = w.v(index as usize, lane);
            let new = if hi { (old & 0xffff) | (v << 16) } else { (old & 0xffff_0000) | (v & 0xffff) };
            w.set_v(index as usize, lane, new);
        }
        _ => {}
    }
}

#[inline]
pub fn write_v64(w: &mut Wave, op: Operand, lane: usize, v: u64) {
    write_v_dword(w, op, 0, lane, v as u32);
    write_v_dword(w, op, 1, lane, (v >> 32) as u32);
}

#[inline]
pub fn write_v_dword(w: &mut Wave, op: Operand, k: usize, lane: usize, v: u32) {
    match op {
        Operand::Reg(Reg::Vgpr { index, .. }) => w.set_v((index as usize + k) % 256, lane, v),
        Operand::Reg(Reg::Agpr { index, .. }) => w.set_a((index as usize + k) % 256, lane, v),
        _ => {}
    }
}

/// Number of dwords a register operand covers.
pub fn dwords(op: Operand) -> usize {
    match op {
        Operand::Reg(r) => r.bits().div_ceil(32) as usize,
        _ => 1,
    }
}

/// Lanes as a bit mask helper: is `lane` set in `mask`.
#[inline]
pub fn bit(mask: u64, lane: usize) -> bool {
    lane < MAX_LANES && mask >> lane & 1 != 0
}

/// A 32-bit vector source resolved once per instruction: a register row (one value per lane)
/// or one value for every lane. Reading it per lane is a load, with no operand matching.
#[derive(Clone, Copy)]
pub enum VSrc<'a> {
    Row(&'a [u32]),
    Splat(u32),
}

impl VSrc<'_> {
    #[inline(always)]
    pub fn get(&self, lane: usize) -> u32 {
        match *self {
            VSrc::Row(r) => r[lane],
            VSrc::Splat(v) => v,
        }
    }
}

/// Resolve dword `k` of a vector source for whole-wave evaluation.
#[inline]
pub fn vsrc<'a>(w: &'a Wave, env: &Env, op: Operand, k: usize) -> VSrc<'a> {
    match op {
        Operand::Reg(Reg::Vgpr { index, .. }) => {
            let r = (index as usize + k) % 256;
            VSrc::Row(&w.vgpr[r * MAX_LANES..(r + 1) * MAX_LANES])
        }
        Operand::Reg(Reg::Agpr { index, .. }) if !w.agpr.is_empty() => {
            let r = (index as usize + k) % 256;
            VSrc::Row(&w.agpr[r * MAX_LANES..(r + 1) * MAX_LANES])
        }
        Operand::Reg(Reg::Agpr { .. }) => VSrc::Splat(0),
        _ if k == 0 => VSrc::Splat(s32(w, env, op)),
        _ => VSrc::Splat((s64(w, env, op) >> (32 * k.min(1))) as u32),
    }
}

/// Write lanes of `values` that are set in `mask` to dword `k` of a vector destination.
#[inline]
pub fn write_row(w: &mut Wave, op: Operand, k: usize, values: &[u32; MAX_LANES], mask: u64) {
    let (file, index) = match op {
        Operand::Reg(Reg::Vgpr { index, .. }) => (&mut w.vgpr, index as usize),
        Operand::Reg(Reg::Agpr { index, .. }) => {
            if w.agpr.is_empty() {
                w.agpr = vec![0; crate::wave::VGPRS * MAX_LANES];
            }
            (&mut w.agpr, index as usize)
        }
        _ => return,
    };
    let r = (index + k) % 256;
    let row = &mut file[r * MAX_LANES..(r + 1) * MAX_LANES];
    for (lane, v) in values.iter().enumerate() {
        if mask >> lane & 1 != 0 {
            row[lane] = *v;
        }
    }
}

#[cfg(test)]
mod tests {
    //! Seeded differential test of the lean scalar reads and writes ([`s32`], [`s64`],
    //! [`write_s32`]) against the general ones: every SGPR index and pair, inline constants and literals of every sign, and the
    //! shapes the lean part hands on (special registers, trap temporaries, a VGPR, absent).

    use super::*;
    use crate::fault::WaveId;
    use hipscope_isa::Processor;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    /// Operands of every shape: SGPRs 0..=105 (the encodable ones) singly and as pairs, random
    /// 64-bit immediates, and the other registers.
    fn operands(rng: &mut StdRng) -> Vec<Operand> {
        let mut ops: Vec<Operand> = (0..106u8).flat_map(|index| [1, 2].map(|count| Operand::Reg(Reg::Sgpr { index, count }))).collect();
        ops.extend((0..64).map(|_| Operand::Imm(rng.random::<i64>())));
        ops.extend([-16i64, -1, 0, 1, 64, i32::MIN as i64, u32::MAX as i64].map(Operand::Imm));
        ops.extend((0..16u8).map(|index| Operand::Reg(Reg::Ttmp { index, count: 1 })));
        use Special::*;
        let specials = [VccLo, VccHi, Vcc, M0, Null, ExecLo, ExecHi, Exec, SrcSharedBase, SrcPrivateLimit, SrcVccz, SrcExecz, SrcScc, FlatScratch];
        ops.extend(specials.map(|s| Operand::Reg(Reg::Special(s))));
        ops.extend([Operand::Reg(Reg::Vgpr { index: 3, count: 1 }), Operand::Absent]);
        ops
    }

    #[test]
    fn lean_reads_and_writes_match_the_general_ones() {
        let env = Env::plain(Processor::Gfx942);
        for seed in 0..8u64 {
            let mut rng = StdRng::seed_from_u64(seed);
            let mut w = Wave::new(WaveId::default(), seed % 2 == 0);
            w.sreg.iter_mut().for_each(|r| *r = rng.random());
            w.scc = rng.random();
            for op in operands(&mut rng) {
                assert_eq!(s32(&w, &env, op), s32_general(&w, &env, op), "seed {seed}: s32 of {op:?}");
                assert_eq!(s64(&w, &env, op), s64_general(&w, &env, op), "seed {seed}: s64 of {op:?}");
                let v = rng.random::<u32>();
                let (mut lean, mut general) = (w.clone(), w.clone());
                write_s32(&mut lean, op, v);
                write_s32_general(&mut general, op, v);
                assert!(lean.sreg == general.sreg, "seed {seed}: write_s32 to {op:?}");
            }
        }
    }
}
