//! gfx950's LDS transpose loads: `DS_READ_B64_TR_B4`, `DS_READ_B96_TR_B6`, `DS_READ_B64_TR_B8`,
//! `DS_READ_B64_TR_B16` (CDNA4 ISA, "LDS Instructions" and §11.4 "MFMA Transpose Load from
//! LDS": "Read 64 bits of data per lane from data share. Interpret the data as a matrix with
//! N bit elements and transpose the matrix"; for the 16-bit form "Each lane (one VGPR) holds
//! 4 consecutive M or N values", and two instructions fill a 16-wide K run of an MFMA operand).
//!
//! The matrix is formed by each group of 16 lanes. Every lane reads `bytes` (8, or 12 for
//! the 6-bit form) at its own address: `E = bytes * 8 / bits` elements, consecutive along
//! the non-K dimension (M or N), element `j` at bits `[j*bits, (j+1)*bits)`. The group's 16
//! lanes cover 16 M values by `E` K values: source lane `s` holds `M = E * (s % (16 / E))
//! + j`, `K = s / (16 / E)`. After the transpose, lane `t` of the group holds `M = t` and
//! element `i` is `K = i`, packed the same way — the MFMA operand layout where a lane holds
//! K-consecutive values. So `out[t][i] = in[i * (16 / E) + t / E][t % E]`. (For 16-bit
//! elements this is the 16x4 "base unit" drawn in Triton's gfx950 `ds_read_b64_tr` lowering,
//! `chooseLLDsReadB64TrLayout`; for 8-bit it is "two interleaved 8x8 byte transposes", as
//! Modular's documentation of its `ds_read_tr8_b64` wrapper describes the instruction.)
//!
//! assumed: a lane outside EXEC supplies zeros to its group's matrix and its result is not
//! written (the ISA does not say; compilers issue these loads with the group fully active).

use super::super::operand::{v32, write_v_dword};
use super::super::ExecCtx;
use super::mem::{lds_limit, read};
use crate::fault::FaultKind;
use hipscope_isa::decode::Operand;

/// Lanes that form one matrix.
const GROUP: usize = 16;

/// The shape of one transpose load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrShape {
    /// Element size: 4, 6, 8 or 16.
    pub bits: u8,
    /// Bytes each lane reads and receives: 8, or 12 for 6-bit elements.
    pub bytes: u8,
}

impl TrShape {
    /// The gfx950 spellings after `ds_read_`: `b64_tr_b4`, `b96_tr_b6`, `b64_tr_b8`, `b64_tr_b16`.
    pub fn parse(s: &str) -> Option<TrShape> {
        let (bytes, bits) = match s {
            "b64_tr_b4" => (8, 4),
            "b96_tr_b6" => (12, 6),
            "b64_tr_b8" => (8, 8),
            "b64_tr_b16" => (8, 16),
            _ => return None,
        };
        Some(TrShape { bits, bytes })
    }

    /// Elements per lane.
    pub fn elems(self) -> usize {
        self.bytes as usize * 8 / self.bits as usize
    }

    /// One group's transpose: `src[s]` is what lane `s` read (low `bytes` of the value).
    pub fn transpose(self, src: &[u128; GROUP]) -> [u128; GROUP] {
        let (e, b) = (self.elems(), self.bits as u32);
        let per_k = GROUP / e;
        let mask = (1u128 << b) - 1;
        let mut out = [0u128; GROUP];
        for (t, o) in out.iter_mut().enumerate() {
            for i in 0..e {
                let v = (src[i * per_k + t / e] >> ((t % e) as u32 * b)) & mask;
                *o |= v << (i as u32 * b);
            }
        }
        out
    }
}

/// Execute a transpose load on every 16-lane group that has an active lane.
pub(crate) fn execute(cx: &mut ExecCtx, shape: TrShape, dst: Operand, addr: Operand, offset: u32) -> Result<(), FaultKind> {
    let (lim, exec, n) = (lds_limit(cx), cx.wave.exec(), shape.bytes as usize);
    for g in (0..cx.wave.lanes()).step_by(GROUP) {
        let active = (exec >> g) & 0xffff;
        if active == 0 {
            continue;
        }
        let mut src = [0u128; GROUP];
        for (s, v) in src.iter_mut().enumerate() {
            if active >> s & 1 != 0 {
                let lane = g + s;
                let mut buf = [0u8; 16];
                let at = v32(cx.wave, cx.env, addr, lane).wrapping_add(offset);
                read(cx, lim, lane, at, &mut buf[..n])?;
                *v = u128::from_le_bytes(buf);
            }
        }
        let out = shape.transpose(&src);
        for (t, v) in out.iter().enumerate() {
            if active >> t & 1 != 0 {
                for k in 0..n / 4 {
                    write_v_dword(cx.wave, dst, k, g + t, (v >> (32 * k)) as u32);
                }
            }
        }
    }
    Ok(())
}
