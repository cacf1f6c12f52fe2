//! Loads that take their value when they reach the L2, not when they leave the wave (seeded
//! reordering only, [`super::reorder`]).
//!
//! Vector memory instructions of a wave issue in order but are performed out of order: loads
//! and stores go through separate queues per L2 channel, a load's value is read at the channel
//! that serves it, and the wave learns only its counters' order (LLVM AMDGPUUsage, *Memory
//! Model GFX6-GFX9*: each CU's per-channel queues reorder operations to different channels;
//! *Memory Model GFX10-GFX11*: "vector memory operations ... can complete out of order with
//! respect to each other", loads counted by `vmcnt`, stores by `vscnt`). So a store a wave
//! issues after a load may be performed at its channel, and seen by another wave's load, before
//! the first load is served at another channel — load buffering. The engine executes an
//! instruction at issue; a load whose bytes come from an L2 line is therefore read again once
//! it has arrived there ([`MemSystem::landed`]), as the stores arrived by then show it, and
//! the engine puts those bytes into its registers before anything can use them (its wait
//! counter covers the arrival).

use super::MemSystem;
use crate::memory::Memory;

/// One lane's read of a load served by an L2 line, whose value is decided at its arrival: at
/// most two pieces (a lane reads at most 16 bytes, an L2 request covers at least 32).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LateRead {
    pub lane: u32,
    pub address: u64,
    pub len: u8,
    /// Bytes in the first piece (`len`: one piece).
    split: u8,
    xcd: u16,
    /// Arrival of each piece's request at its L2 channel.
    at: [u64; 2],
}

impl LateRead {
    /// When every piece has arrived.
    pub fn due(&self) -> u64 {
        if self.split < self.len {
            self.at[0].max(self.at[1])
        } else {
            self.at[0]
        }
    }

    /// When the first piece arrived.
    pub fn first(&self) -> u64 {
        if self.split < self.len {
            self.at[0].min(self.at[1])
        } else {
            self.at[0]
        }
    }
}

/// The pieces of one lane's read so far (between the lane's `read` and its end).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Pieces {
    n: u8,
    split: u8,
    at: [u64; 2],
    /// A piece was not served by an L2 line (or there were more than two): not late.
    early: bool,
}

impl Pieces {
    /// A piece of `len` bytes served by an L2 line whose request arrived at `at` (`None`: not
    /// served by an L2 line).
    pub(super) fn piece(&mut self, len: usize, at: Option<u64>) {
        match (at, self.n) {
            (Some(a), 0) => {
                self.at[0] = a;
                self.split = len as u8;
            }
            (Some(a), 1) => self.at[1] = a,
            _ => self.early = true,
        }
        self.n = self.n.saturating_add(1);
    }
}

impl MemSystem {
    /// The lane's read (served by `pieces`) is taken again at its arrival, if every piece came
    /// from an L2 line.
    pub(super) fn read_late(&mut self, lane: u32, address: u64, len: usize, pieces: Pieces) {
        if pieces.early || pieces.n == 0 || len > 16 {
            return;
        }
        let xcd = self.places.get(self.cur_cu).map_or(0, |p| p.xcd) as u16;
        self.late.push(LateRead { lane, address, len: len as u8, split: pieces.split, xcd, at: pieces.at });
    }

    /// Move the lane reads of the access that just ended whose value is decided at their
    /// arrival into `out` (none unless reordering is on).
    pub fn take_late_reads(&mut self, out: &mut Vec<LateRead>) {
        out.append(&mut self.late);
    }

    /// Reads still to land arrived at `at` or later (`u64::MAX`: none are left): the records
    /// of stores they must not see are kept until then.
    pub fn hold_late_reads_from(&mut self, at: u64) {
        if let Some(r) = self.reorder.as_mut() {
            r.hold_from(at);
        }
    }

    /// The bytes read `r` takes, as the L2 shows them at each piece's arrival: the line where
    /// it holds them, else memory, without the stores that arrive later. Call it once every
    /// piece has arrived and before any later access begins.
    pub fn landed(&self, mem: &Memory, r: &LateRead, out: &mut [u8]) {
        let n = (r.len as usize).min(out.len());
        let split = (r.split as usize).min(n);
        let (first, second) = out[..n].split_at_mut(split);
        self.l2_view(mem, r.xcd as usize, r.address, first, r.at[0]);
        self.l2_view(mem, r.xcd as usize, r.address + split as u64, second, r.at[1]);
    }

    /// Bytes at `address` as a read arriving at the L2 of `xcd` at `at` sees them.
    fn l2_view(&self, mem: &Memory, xcd: usize, address: u64, out: &mut [u8], at: u64) {
        if out.is_empty() {
            return;
        }
        self.memory_bytes(mem, address, out);
        if let Some((c, s)) = self.l2.get(xcd).and_then(|c| Some((c, c.find(address)?))) {
            let off = (address - c.address_of(s)) as usize;
            let (valid, data) = (c.valid(s), c.bytes(s));
            for (i, b) in out.iter_mut().enumerate() {
                if valid >> (off + i) & 1 != 0 {
                    *b = data.get(off + i).copied().unwrap_or(*b);
                }
            }
        }
        if let Some(r) = self.reorder.as_ref() {
            r.overlay(xcd, address, out, at);
        }
    }
}
