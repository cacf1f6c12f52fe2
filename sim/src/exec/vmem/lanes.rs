//! A GLOBAL load or store whose memory port times the accesses (the timing engine's memory
//! system): the active lanes' addresses, and for a store their data, go to the port in one
//! call ([`MemPort::read_lanes`], [`MemPort::write_lanes`]) instead of one call per lane, so
//! that the port can move lanes that follow each other inside one cache line in one piece.
//! Everything the per-lane path does per lane happens here too, in the same lane order: the
//! same bytes reach the same registers, a faulting lane stops the instruction with the same
//! report, the last lane read or written is remembered, and each stored lane counts as a
//! write.

use super::flat::{FlatOp, FlatWhat};
use super::shape::{Half, LoadShape};
use super::space::mem_fault;
use crate::exec::{ExecCtx, MemPort};
use crate::fault::{FaultKind, LastRead};
use crate::wave::{Wave, MAX_LANES};
use hipscope_isa::decode::{Operand, Reg};

/// Most bytes a lane moves in one FLAT load or store (`dwordx4`).
const MAX_LANE_BYTES: usize = 16;

/// The active lanes of the wave, ascending, and their addresses (`global[lane]`).
struct Active {
    lanes: [u32; MAX_LANES],
    addrs: [u64; MAX_LANES],
    n: usize,
}

impl Active {
    fn of(exec: u64, global: &[u64; MAX_LANES]) -> Active {
        let mut a = Active { lanes: [0; MAX_LANES], addrs: [0; MAX_LANES], n: 0 };
        let mut m = exec;
        while m != 0 {
            let lane = m.trailing_zeros() as usize % MAX_LANES;
            m &= m - 1;
            (a.lanes[a.n], a.addrs[a.n]) = (lane as u32, global[lane]);
            a.n += 1;
        }
        a
    }

    fn lanes(&self) -> &[u32] {
        &self.lanes[..self.n]
    }

    fn addrs(&self) -> &[u64] {
        &self.addrs[..self.n]
    }
}

impl FlatOp {
    /// Run a GLOBAL load or store to or from VGPRs through `port` in one call; `None` when
    /// the instruction is of another kind (the caller then goes lane by lane).
    pub(super) fn through_port(&self, cx: &mut ExecCtx, port: &dyn MemPort, global: &[u64; MAX_LANES]) -> Option<Result<(), FaultKind>> {
        match &self.what {
            FlatWhat::Load { shape, dst } => {
                let size = usize::from(shape.bytes).min(MAX_LANE_BYTES);
                let a = Active::of(cx.wave.exec(), global);
                let mut data = [0u8; MAX_LANES * MAX_LANE_BYTES];
                let r = port.read_lanes(cx.mem, a.lanes(), a.addrs(), size, &mut data[..a.n * size]);
                let done = r.err().map_or(a.n, |(i, _)| i);
                write_loaded(cx.wave, *shape, *dst, &a.lanes[..done], &data[..done * size], size);
                if let Some(i) = done.checked_sub(1) {
                    cx.wave.last_read.set(Some(LastRead::new(a.lanes[i], false, a.addrs[i], &data[i * size..(i + 1) * size])));
                }
                Some(r.map_err(|(i, e)| mem_fault(a.lanes[i] as usize)(e)))
            }
            FlatWhat::Store { shape, data } => {
                let size = usize::from(shape.bytes).min(MAX_LANE_BYTES);
                let a = Active::of(cx.wave.exec(), global);
                let mut bytes = [0u8; MAX_LANES * MAX_LANE_BYTES];
                let mut buf = [0u8; MAX_LANE_BYTES];
                for i in 0..a.n {
                    shape.gather(cx.wave, *data, a.lanes[i] as usize, &mut buf);
                    bytes[i * size..(i + 1) * size].copy_from_slice(&buf[..size]);
                }
                let r = port.write_lanes(cx.mem, a.lanes(), a.addrs(), size, &bytes[..a.n * size]);
                // The per-lane path counts a lane's write, and remembers it, before writing.
                let tried = r.err().map_or(a.n, |(i, _)| i + 1);
                cx.wave.writes += tried as u64;
                if let Some(i) = tried.checked_sub(1) {
                    cx.wave.last_write.set(Some(LastRead::new(a.lanes[i], false, a.addrs[i], &bytes[i * size..(i + 1) * size])));
                }
                Some(r.map_err(|(i, e)| mem_fault(a.lanes[i] as usize)(e)))
            }
            _ => None,
        }
    }
}

/// Put lane `lanes[i]`'s `size` loaded bytes, `data[i * size..]`, into `dst` as
/// [`LoadShape::write`] does lane by lane; whole dwords into VGPRs go straight into the
/// register rows.
fn write_loaded(w: &mut Wave, shape: LoadShape, dst: Operand, lanes: &[u32], data: &[u8], size: usize) {
    let dwords = size / 4;
    if let Operand::Reg(Reg::Vgpr { index, .. }) = dst {
        let row = |k: usize| (index as usize + k) % 256;
        let rows_there = (0..dwords).all(|k| (row(k) + 1) * MAX_LANES <= w.vgpr.len());
        if shape.half == Half::Full && size == 4 * dwords && dwords > 0 && rows_there {
            for k in 0..dwords {
                let r = row(k) * MAX_LANES;
                for (i, &lane) in lanes.iter().enumerate() {
                    let b = &data[i * size + 4 * k..i * size + 4 * k + 4];
                    w.vgpr[r + lane as usize % MAX_LANES] = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                }
            }
            return;
        }
    }
    let mut buf = [0u8; MAX_LANE_BYTES];
    for (i, &lane) in lanes.iter().enumerate() {
        buf[..size].copy_from_slice(&data[i * size..(i + 1) * size]);
        shape.write(w, dst, lane as usize, &buf);
    }
}
