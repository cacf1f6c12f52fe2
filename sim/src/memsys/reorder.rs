//! Seeded reordering of requests on their way to the L2, for litmus and stress runs (seed ≠ 0).
//!
//! Each CU has a separate queue to each L2 channel, so the hardware keeps one CU's requests to
//! one channel in order but lets requests to different channels, and from different CUs,
//! overtake each other (LLVM AMDGPUUsage, *Memory Model GFX6-GFX9*: "each CU has a separate
//! request queue per channel ... operations from different CUs or to different channels can be
//! reordered"). That is why a release needs `s_waitcnt vmcnt(0)` before its flag store: two
//! stores in flight to different channels may become visible in either order.
//!
//! The memory system applies a store's bytes to the L2 line when the store is issued (all the
//! bookkeeping of fills, dirty bits and evictions happens then). With reordering on, each
//! request's arrival at its L2 channel is delayed by a seeded draw (kept in order per CU and
//! channel), and a store to an L2 line leaves an undo record — the bytes a reader saw before —
//! until its arrival: a read arriving earlier sees the old bytes. Seed 0 draws nothing and keeps
//! no records, so default runs (and every calibrated figure) are unchanged.

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// Largest extra delay of one request on its way to an L2 channel (exclusive), in cycles:
/// assumed, of the order of the arbitration a shared fabric adds (no public measurement).
pub const ARRIVAL_JITTER_CYCLES: u64 = 64;
/// One request in this many is also queued behind other traffic on its way ...
pub const QUEUED_ONE_IN: u64 = 32;
/// ... for up to this many more cycles (exclusive): assumed, the queueing delays the engine
/// itself shows with every CU sending (hundreds to thousands of cycles, `hipscope scopes`
/// all-CU rows). Real litmus runs provoke such delays with memory stress.
pub const QUEUED_CYCLES: u64 = 1024;

/// The bytes a store replaced, until the store arrives at the L2.
#[derive(Debug, Clone)]
struct Undo {
    xcd: usize,
    address: u64,
    old: Vec<u8>,
    visible_at: u64,
}

#[derive(Debug, Clone)]
pub struct Reorder {
    rng: Xoshiro256PlusPlus,
    /// Latest arrival per (CU, L2 channel of its XCD).
    last: Vec<u64>,
    channels: usize,
    undo: Vec<Undo>,
}

impl Reorder {
    /// For `cus` CUs with `channels` L2 channels in total; `seed` ≠ 0.
    pub fn new(seed: u64, cus: usize, channels: usize) -> Reorder {
        Reorder { rng: Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x7265_6f72_6465_7201), last: vec![0; cus * channels], channels, undo: Vec::new() }
    }

    /// When a request leaving `cu` at `at` for L2 channel `channel` arrives there.
    pub fn arrival(&mut self, cu: usize, channel: usize, at: u64) -> u64 {
        let mut a = at + self.rng.random_range(0..ARRIVAL_JITTER_CYCLES);
        if self.rng.random_range(0..QUEUED_ONE_IN) == 0 {
            a += self.rng.random_range(0..QUEUED_CYCLES);
        }
        match self.last.get_mut(cu * self.channels + channel) {
            Some(l) => {
                *l = (*l).max(a);
                *l
            }
            None => a,
        }
    }

    /// Forget what every request issued from `now` on sees anyway (requests arrive after they
    /// are issued, and the engine issues in time order).
    pub fn settle(&mut self, now: u64) {
        self.undo.retain(|u| u.visible_at > now);
    }

    /// A store to the L2 of `xcd` at `address`, arriving at `visible_at`, replaced `old`.
    pub fn stored(&mut self, xcd: usize, address: u64, old: &[u8], visible_at: u64) {
        self.undo.push(Undo { xcd, address, old: old.to_vec(), visible_at });
    }

    /// An atomic executed on these bytes at the L2: it saw every store before it, and what
    /// it wrote must not be hidden behind an older store's record.
    pub fn executed(&mut self, xcd: usize, address: u64, len: usize) {
        self.undo.retain(|u| u.xcd != xcd || u.address + u.old.len() as u64 <= address || address + len as u64 <= u.address);
    }

    /// Put back into `out` (bytes at `address` of the L2 of `xcd`) what a read arriving at `at`
    /// sees of the stores that arrive after it: their records, newest first.
    pub fn overlay(&self, xcd: usize, address: u64, out: &mut [u8], at: u64) {
        let end = address + out.len() as u64;
        for u in self.undo.iter().rev().filter(|u| u.xcd == xcd && u.visible_at > at) {
            let (lo, hi) = (u.address.max(address), (u.address + u.old.len() as u64).min(end));
            if lo < hi {
                out[(lo - address) as usize..(hi - address) as usize].copy_from_slice(&u.old[(lo - u.address) as usize..(hi - u.address) as usize]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_before_the_store_arrives_sees_the_old_bytes() {
        let mut r = Reorder::new(1, 2, 4);
        r.stored(0, 100, &[1, 2, 3, 4], 50);
        r.stored(0, 102, &[9, 9], 60);
        let mut out = [7u8; 6];
        r.overlay(0, 100, &mut out, 40);
        assert_eq!(out, [1, 2, 3, 4, 7, 7], "both stores hidden: the older record wins");
        let mut out = [7u8; 6];
        r.overlay(0, 100, &mut out, 55);
        assert_eq!(out, [7, 7, 9, 9, 7, 7], "only the later store hidden");
        let mut out = [7u8; 6];
        r.overlay(1, 100, &mut out, 0);
        assert_eq!(out, [7; 6], "another XCD's L2");
        r.settle(60);
        let mut out = [7u8; 6];
        r.overlay(0, 100, &mut out, 0);
        assert_eq!(out, [7; 6], "settled");
    }

    #[test]
    fn arrivals_stay_in_order_per_cu_and_channel() {
        let mut r = Reorder::new(5, 1, 2);
        let mut last = 0;
        for t in 0..200 {
            let a = r.arrival(0, 1, t);
            assert!(a >= last && a >= t && a < t + ARRIVAL_JITTER_CYCLES + QUEUED_CYCLES + 200);
            last = a;
        }
    }
}
