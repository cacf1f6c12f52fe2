//! Seeded reordering of requests on their way to the L2, for litmus and stress runs (seed ≠ 0).
//!
//! Each CU has a separate queue to each L2 channel, so the hardware keeps one CU's requests to
//! one channel in order but lets requests to different channels, and from different CUs,
//! overtake each other (LLVM AMDGPUUsage, *Memory Model GFX6-GFX9*: "each CU has a separate
//! request queue per channel ... operations from different CUs or to different channels can be
//! reordered"). That is why a release needs `s_waitcnt vmcnt(0)` before its flag store: two
//! stores in flight to different channels may become visible in either order.
//!
//! A request is performed when it arrives at its L2 channel: a store's bytes become visible
//! then, and a load that goes to the L2 takes its value then, not when it left the wave. The
//! memory system applies a store's bytes to the L2 line when the store is issued (all the
//! bookkeeping of fills, dirty bits and evictions happens then). With reordering on, each
//! request's arrival at its L2 channel is delayed by a seeded draw (kept in order per CU and
//! channel: a later request of one CU to one channel arrives strictly later), and a store to an
//! L2 line leaves an undo record — the bytes a reader saw before — until its arrival: a read
//! arriving earlier sees the old bytes. Records are kept in arrival order, and a store issued
//! after another to the same bytes but arriving before it goes *under* it (the line keeps the
//! later-arriving bytes), so the order of stores to one location is their arrival order at its
//! channel, as at the hardware's point of coherence. A load's value is taken at its arrival by
//! the engine, which asks again once the load has arrived (`MemSystem::landed`); the records
//! those reads need are held ([`Reorder::hold_from`]). Seed 0 draws nothing and keeps no
//! records, so default runs (and every calibrated figure) are unchanged.

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
    /// Latest arrival of a read per CU.
    last_read: Vec<u64>,
    channels: usize,
    /// Sorted by `visible_at` (equal ones in the order they were made).
    undo: Vec<Undo>,
    /// Records arriving after this cycle are kept for reads still to land
    /// ([`Reorder::hold_from`]).
    floor: u64,
}

impl Reorder {
    /// For `cus` CUs with `channels` L2 channels in total; `seed` ≠ 0.
    pub fn new(seed: u64, cus: usize, channels: usize) -> Reorder {
        Reorder {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x7265_6f72_6465_7201),
            last: vec![0; cus * channels],
            last_read: vec![0; cus],
            channels,
            undo: Vec::new(),
            floor: u64::MAX,
        }
    }

    /// When a request leaving `cu` at `at` for L2 channel `channel` arrives there. Reads of
    /// one CU are performed in the order they left it, whatever their channel: loads return
    /// to the wave in order (LLVM AMDGPUUsage, *Memory Model GFX6-GFX9*: `vmcnt` counts
    /// loads in order; GFX10+: loads in order among themselves in `vmcnt`/`loadcnt`, stores
    /// separately in `vscnt`), so only stores overtake loads, and each other across channels.
    pub fn arrival(&mut self, cu: usize, channel: usize, at: u64, read: bool) -> u64 {
        let mut a = at + self.rng.random_range(0..ARRIVAL_JITTER_CYCLES);
        if self.rng.random_range(0..QUEUED_ONE_IN) == 0 {
            a += self.rng.random_range(0..QUEUED_CYCLES);
        }
        if read {
            if let Some(l) = self.last_read.get_mut(cu) {
                a = a.max(*l + 1);
                *l = a;
            }
        }
        match self.last.get_mut(cu * self.channels + channel) {
            Some(l) => {
                // Strictly after the previous request of this CU to this channel: a load and
                // a later store of one wave to one address must not be performed together.
                *l = (*l + 1).max(a);
                *l
            }
            None => a,
        }
    }

    /// Forget what every request issued from `now` on sees anyway (requests arrive after they
    /// are issued, and the engine issues in time order).
    pub fn settle(&mut self, now: u64) {
        let keep_after = now.min(self.floor);
        self.undo.retain(|u| u.visible_at > keep_after);
    }

    /// Reads still to land arrived at `at` or later (`u64::MAX`: none): keep what they see.
    pub fn hold_from(&mut self, at: u64) {
        self.floor = at;
    }

    /// A store to the L2 of `xcd` at `address`, arriving at `visible_at`, of `new` over the
    /// line's current bytes `line`. Where a store already made arrives later at these bytes,
    /// this one is ordered before it: `new` becomes the line's bytes (what to write: the
    /// later-arriving store's where there is one) and the later store's record remembers this
    /// one's bytes as the ones it replaced.
    pub fn stored(&mut self, xcd: usize, address: u64, line: &[u8], new: &mut [u8], visible_at: u64) {
        let mut old = line.to_vec();
        // Records are in arrival order: the first covering a byte is the earliest after ours.
        let first_later = self.undo.partition_point(|u| u.visible_at <= visible_at);
        for (i, b) in new.iter_mut().enumerate() {
            let a = address + i as u64;
            let later = self.undo[first_later..].iter_mut().find(|u| u.xcd == xcd && u.address <= a && a < u.address + u.old.len() as u64);
            if let Some(u) = later {
                let k = (a - u.address) as usize;
                old[i] = u.old[k];
                u.old[k] = *b;
                *b = line[i];
            }
        }
        self.undo.insert(first_later, Undo { xcd, address, old, visible_at });
    }

    /// An atomic executed on these bytes at the L2: it saw every store before it, and what
    /// it wrote must not be hidden behind an older store's record.
    pub fn executed(&mut self, xcd: usize, address: u64, len: usize) {
        self.undo.retain(|u| u.xcd != xcd || u.address + u.old.len() as u64 <= address || address + len as u64 <= u.address);
    }

    /// Put back into `out` (bytes at `address` of the L2 of `xcd`) what a read arriving at `at`
    /// sees of the stores that arrive after it: their records, latest arrival first (the
    /// earliest one's old bytes are what the location held at `at`).
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
        r.stored(0, 100, &[1, 2, 3, 4], &mut [5, 6, 7, 7], 50);
        r.stored(0, 102, &[9, 9], &mut [7, 7], 60);
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
            let a = r.arrival(0, 1, t, false);
            assert!(a > last && a >= t && a < t + ARRIVAL_JITTER_CYCLES + QUEUED_CYCLES + 400);
            last = a;
        }
    }

    /// A CU's reads arrive in the order they left, across channels; its stores need not.
    #[test]
    fn reads_of_a_cu_arrive_in_order_across_channels() {
        let mut r = Reorder::new(9, 1, 4);
        let mut last = 0;
        for t in 0..500 {
            let a = r.arrival(0, t as usize % 4, t, true);
            assert!(a > last, "read {t} arrived at {a}, before the previous one ({last})");
            last = a;
        }
        let mut r = Reorder::new(9, 1, 4);
        let stores: Vec<u64> = (0..500).map(|t| r.arrival(0, t as usize % 4, t, false)).collect();
        assert!(stores.windows(2).any(|w| w[1] < w[0]), "stores to different channels overtake each other");
    }

    /// Two stores to one location from different CUs: the one issued second arrives first, so
    /// it is ordered first — the line keeps the other's bytes, and a read between the two
    /// arrivals sees the first arrival's.
    #[test]
    fn stores_to_one_location_are_ordered_by_arrival() {
        let mut r = Reorder::new(1, 2, 4);
        let mut a = [1u8, 1];
        r.stored(0, 100, &[0, 0], &mut a, 90);
        assert_eq!(a, [1, 1], "nothing arrives later: written as is");
        let mut b = [2u8, 2];
        r.stored(0, 100, &a, &mut b, 40);
        assert_eq!(b, [1, 1], "the line keeps the later arrival's bytes");
        let seen = |at: u64| {
            let mut out = [1u8, 1];
            r.overlay(0, 100, &mut out, at);
            out
        };
        assert_eq!(seen(30), [0, 0], "before both");
        assert_eq!(seen(50), [2, 2], "between: the earlier arrival");
        assert_eq!(seen(95), [1, 1], "after both: the later arrival");
    }

    /// Records a landing read still needs outlive `settle`.
    #[test]
    fn held_records_survive_settle() {
        let mut r = Reorder::new(1, 1, 1);
        r.stored(0, 0, &[0], &mut [1], 50);
        r.hold_from(40);
        r.settle(100);
        let mut out = [1u8];
        r.overlay(0, 0, &mut out, 45);
        assert_eq!(out, [0], "held: a read landing at 45 must not see the store arriving at 50");
        r.hold_from(u64::MAX);
        r.settle(100);
        let mut out = [1u8];
        r.overlay(0, 0, &mut out, 45);
        assert_eq!(out, [1], "released");
    }
}
