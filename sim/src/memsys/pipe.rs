//! A resource with limited throughput (a cache's tag port, an L2 channel, a DRAM channel):
//! each use occupies it for a while, and a use that arrives while it is busy starts when
//! capacity is free. Occupancy is kept in 1/256 cycles so that fractional rates (e.g. 2.5 bytes per
//! cycle of a DRAM channel) add up exactly and deterministically.

/// Fixed-point fraction of a cycle.
pub const SUB: u64 = 256;

/// Cycles per booking slot. Uses are booked into the slot of their arrival cycle (and the
/// following ones, when it is full), so a use that arrives late in simulation order but early
/// in time fills the capacity left before later bookings instead of queueing behind them. The
/// engine advances waves one at a time, and the memory system books a miss's L2 channel or DRAM
/// time when the miss leaves its CU, which can be thousands of cycles after another CU's
/// request that is simulated next: a single "free from" cycle would leave the gap between them
/// idle and, with many CUs, let the bookings run away from the clock.
const SLOT_CYCLES: u64 = 32;
/// Slots kept (a ring): bookings more than `SLOTS × SLOT_CYCLES` cycles behind the latest one
/// find their slots taken and move forward.
const SLOTS: usize = 1024;
const CAPACITY: u64 = SLOT_CYCLES * SUB;

/// One slot's bookings, in 1/`SUB` cycles from the slot's start (unpacked from its ring
/// entry, [`Entry`]).
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    /// Which slot this ring entry holds.
    number: u64,
    /// Occupancy booked.
    used: u16,
    /// End of the latest booking.
    fill: u16,
    /// Latest arrival booked.
    last_at: u16,
    /// Once the slot is full: a later slot to look at next (the first with room when last
    /// looked), so that uses arriving behind a long fully booked stretch (a burst of
    /// write-backs, a saturated DRAM channel) jump over it instead of walking it slot by slot.
    skip_to: u64,
}

/// A slot as the ring keeps it, 16 bytes: its number, then `used`, `fill`, `last_at` and the
/// distance to `skip_to` (0: none) as 16-bit fields. A skip target is at most [`SLOTS`] past
/// its slot (a full slot is inside the kept horizon, at least `top_slot + 1 - SLOTS`, and the
/// walk that sets it finds room at `top_slot + 1` at the latest: slots past the latest booked
/// are empty), so the distance fits. Why packed, and an array of plain integers: the rings of
/// a big GPU's ~500 pipes are a large part of the memory a short timing run writes (16 KiB a
/// ring against 24), and a ring of plain zeros is allocated zeroed in one go (`calloc`)
/// rather than written entry by entry; where the allocator maps it fresh, its pages are
/// backed only where bookings land.
type Entry = [u64; 2];

impl Slot {
    fn unpack(e: Entry) -> Slot {
        let f = |k: u32| (e[1] >> (16 * k)) as u16;
        let skip = f(3);
        Slot { number: e[0], used: f(0), fill: f(1), last_at: f(2), skip_to: if skip == 0 { 0 } else { e[0] + u64::from(skip) } }
    }

    fn pack(&self) -> Entry {
        // A target beyond the field is dropped: the skip only saves walking slots that stay
        // full, it never changes where a use starts.
        let skip = Some(self.skip_to.saturating_sub(self.number)).filter(|&d| d <= u64::from(u16::MAX)).unwrap_or(0);
        [self.number, u64::from(self.used) | u64::from(self.fill) << 16 | u64::from(self.last_at) << 32 | skip << 48]
    }
}

#[derive(Debug, Clone, Default)]
pub struct Pipe {
    /// Ring of slots, allocated on first use (most CU-side pipes of a big GPU stay idle in
    /// small dispatches), zeroed: an all-zero entry at index `i` is slot `i` with nothing
    /// booked, which reads as empty for every later slot of that index.
    ring: Vec<Entry>,
    /// End of the latest booking, in 1/`SUB` cycles.
    last_end: u64,
    /// The latest slot booked: slots `SLOTS` or more behind it are past the kept horizon.
    top_slot: u64,
    /// Total busy time, in 1/`SUB` cycles.
    busy: u64,
}

impl Pipe {
    /// Occupy the resource for `occupancy` (1/`SUB` cycles) from `at` (cycles) or when capacity
    /// is free after it; returns the cycle the use starts.
    #[inline]
    pub fn reserve(&mut self, at: u64, occupancy: u64) -> u64 {
        if self.ring.is_empty() {
            self.ring = vec![[0; 2]; SLOTS];
        }
        self.busy += occupancy;
        let mut slot = self.first_kept(at);
        let mut left = occupancy;
        let mut start = None;
        // Full slots passed before the use starts, to point at where it found room.
        let mut passed = [0u64; 8];
        let mut n_passed = 0;
        loop {
            let b = self.booked(slot);
            if start.is_none() && b.used as u64 >= CAPACITY {
                if n_passed < passed.len() {
                    passed[n_passed] = slot;
                    n_passed += 1;
                }
                slot = b.skip_to.max(slot + 1);
                continue;
            }
            if n_passed > 0 && start.is_none() {
                for &p in &passed[..n_passed] {
                    self.point_past(p, slot);
                }
                n_passed = 0;
            }
            let slot_start = slot * CAPACITY;
            let from = Self::start_in(at, slot_start, &b);
            let room = (CAPACITY - b.used as u64).min((slot_start + CAPACITY).saturating_sub(from));
            if room > 0 {
                let begin = *start.get_or_insert(from);
                let take = left.min(room);
                let arrival = ((at * SUB).max(slot_start) - slot_start) as u16;
                self.ring[(slot % SLOTS as u64) as usize] = Slot {
                    number: slot,
                    used: b.used + take as u16,
                    fill: b.fill.max((from + take - slot_start) as u16),
                    last_at: b.last_at.max(arrival),
                    skip_to: b.skip_to,
                }
                .pack();
                left -= take;
                self.top_slot = self.top_slot.max(slot);
                if left == 0 {
                    self.last_end = self.last_end.max(from + take);
                    return begin.div_ceil(SUB);
                }
            }
            slot += 1;
        }
    }

    /// The slot of cycle `at`, or the oldest slot the ring still keeps if `at` is behind it:
    /// every slot behind the horizon counts as full (most of their ring entries hold newer
    /// slots by then), so a use arriving there starts at the horizon at the earliest. Going
    /// there at once, rather than walking the ring entries one by one, keeps a pipe with a
    /// backlog longer than the ring (a saturated DRAM channel under a streaming kernel) as
    /// cheap to book as an idle one.
    #[inline]
    fn first_kept(&self, at: u64) -> u64 {
        (at / SLOT_CYCLES).max((self.top_slot + 1).saturating_sub(SLOTS as u64))
    }

    /// Point full slot `full` (if the ring still holds it) at the later slot `to`.
    fn point_past(&mut self, full: u64, to: u64) {
        let e = &mut self.ring[(full % SLOTS as u64) as usize];
        let mut b = Slot::unpack(*e);
        if b.number == full {
            b.skip_to = b.skip_to.max(to);
            *e = b.pack();
        }
    }

    /// Where a use arriving at `at` starts in slot `b`: behind the slot's bookings if it
    /// arrives no earlier than the latest of them (a FIFO, exact for uses simulated in time
    /// order); if it arrives earlier (simulated out of order), in the slot's spare capacity,
    /// after as much work as is booked.
    #[inline]
    fn start_in(at: u64, slot_start: u64, b: &Slot) -> u64 {
        let at = (at * SUB).max(slot_start);
        if at >= slot_start + b.last_at as u64 {
            at.max(slot_start + b.fill as u64)
        } else {
            at.max(slot_start + b.used as u64)
        }
    }

    /// The bookings of `slot`: none if its ring entry holds an older slot, full if it holds a
    /// newer one (the slot is beyond the kept horizon).
    fn booked(&self, slot: u64) -> Slot {
        let e = Slot::unpack(self.ring[(slot % SLOTS as u64) as usize]);
        let full = CAPACITY as u16;
        match e.number.cmp(&slot) {
            std::cmp::Ordering::Less => Slot { number: slot, ..Slot::default() },
            std::cmp::Ordering::Equal => e,
            std::cmp::Ordering::Greater => Slot { number: slot, used: full, fill: full, last_at: 0, skip_to: 0 },
        }
    }

    /// The first cycle from `at` with capacity left.
    pub fn free_from(&self, at: u64) -> u64 {
        if self.ring.is_empty() {
            return at;
        }
        let mut slot = self.first_kept(at);
        loop {
            let b = self.booked(slot);
            let from = Self::start_in(at, slot * CAPACITY, &b);
            if (b.used as u64) < CAPACITY && from < (slot + 1) * CAPACITY {
                return from.div_ceil(SUB);
            }
            slot = if (b.used as u64) < CAPACITY { slot + 1 } else { b.skip_to.max(slot + 1) };
        }
    }

    /// The cycle the latest booking ends.
    pub fn free_cycle(&self) -> u64 {
        self.last_end.div_ceil(SUB)
    }

    /// Back to an unused pipe (keeping its ring's storage).
    pub fn clear(&mut self) {
        self.ring.fill([0; 2]);
        self.last_end = 0;
        self.top_slot = 0;
        self.busy = 0;
    }

    /// Cycles of use so far.
    pub fn busy_cycles(&self) -> u64 {
        self.busy / SUB
    }
}

/// Occupancy (1/`SUB` cycles) of moving `bytes` at `bytes_per_cycle`.
#[inline]
pub fn occupancy(bytes: u64, bytes_per_cycle: f64) -> u64 {
    ((bytes as f64 * SUB as f64) / bytes_per_cycle).ceil() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn back_to_back_uses_queue() {
        let mut p = Pipe::default();
        assert_eq!(p.reserve(10, 2 * SUB), 10);
        assert_eq!(p.reserve(10, 2 * SUB), 12);
        assert_eq!(p.reserve(20, SUB), 20, "idle gap is not carried");
        assert_eq!(p.busy_cycles(), 5);
    }

    /// A use simulated after a later one, but arriving earlier, takes the idle capacity
    /// before it instead of queueing behind it.
    #[test]
    fn earlier_arrivals_fill_idle_capacity() {
        let mut p = Pipe::default();
        assert_eq!(p.reserve(1000, 10 * SUB), 1000);
        assert_eq!(p.reserve(100, 10 * SUB), 100);
        assert_eq!(p.reserve(1000, 10 * SUB), 1010, "behind the first use at 1000");
        assert_eq!(p.free_cycle(), 1020);
        assert_eq!(p.free_from(100), 110);
    }

    /// Sustained demand above the rate queues: 100 uses of 2 cycles at cycle 0 end at 200.
    #[test]
    fn overload_spreads_over_slots() {
        let mut p = Pipe::default();
        let starts: Vec<u64> = (0..100).map(|_| p.reserve(0, 2 * SUB)).collect();
        assert_eq!(starts[99], 198);
        assert_eq!(p.free_cycle(), 200);
    }

    /// Uses queued behind a long booked stretch start right after it (the skip pointers
    /// change the cost of finding the end, not where it is).
    #[test]
    fn long_backlogs_queue_in_order() {
        let mut p = Pipe::default();
        for i in 0..1000 {
            assert_eq!(p.reserve(0, 10 * SUB), 10 * i);
        }
        assert_eq!(p.reserve(5, SUB), 10_000);
        assert_eq!(p.free_from(0), 10_001);
        assert_eq!(p.reserve(20_000, SUB), 20_000, "idle after the backlog");
    }

    /// A backlog many times longer than the ring: uses still queue behind it in order, and a
    /// use arriving far behind the latest booking starts no earlier than the kept horizon.
    #[test]
    fn backlogs_longer_than_the_ring_queue_in_order() {
        let mut p = Pipe::default();
        let n = 20 * SLOTS as u64;
        for i in 0..n {
            assert_eq!(p.reserve(0, SLOT_CYCLES * SUB), SLOT_CYCLES * i);
        }
        assert_eq!(p.reserve(0, SUB), SLOT_CYCLES * n);
        assert_eq!(p.free_from(5), SLOT_CYCLES * n + 1);
        let mut q = Pipe::default();
        q.reserve(0, SUB);
        let far = 10 * SLOTS as u64 * SLOT_CYCLES;
        q.reserve(far, SUB);
        let horizon = far - (SLOTS as u64 - 1) * SLOT_CYCLES;
        assert_eq!(q.reserve(0, SUB), horizon);
    }

    /// A ring entry keeps every field of its slot, the skip target as a distance: up to the
    /// field's range, and beyond it as no skip (which only saves walking, [`Slot::pack`]).
    #[test]
    fn entries_keep_their_slots() {
        let full = CAPACITY as u16;
        for (number, skip) in [(0, 0), (7, 7 + 1), (1 << 40, (1 << 40) + SLOTS as u64), (3, 3 + 65_535)] {
            let s = Slot { number, used: full, fill: full - 1, last_at: 12_345, skip_to: skip };
            let back = Slot::unpack(s.pack());
            assert_eq!((back.number, back.used, back.fill, back.last_at, back.skip_to), (number, full, full - 1, 12_345, skip));
        }
        let far = Slot { number: 3, skip_to: 3 + 65_536, ..Slot::default() };
        assert_eq!(Slot::unpack(far.pack()).skip_to, 0);
        assert_eq!(Slot::unpack([0; 2]).skip_to, 0, "a zeroed entry has no skip");
    }

    #[test]
    fn fractional_rates_accumulate() {
        let mut p = Pipe::default();
        // 64 bytes at 2.5 B/cycle = 25.6 cycles each (6553.6 → 6554 units of 1/256 cycle):
        // ten of them take 256 cycles, not 10 × 26.
        let occ = occupancy(64, 2.5);
        assert_eq!(occ, 6554);
        let mut last = 0;
        for _ in 0..10 {
            last = p.reserve(0, occ);
        }
        assert_eq!(last, 231); // the tenth starts at 9 × 25.6 = 230.4 → cycle 231
        assert_eq!(p.free_cycle(), 257); // 65540 / 256 = 256.02
    }
}
