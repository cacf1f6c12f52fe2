//! A resource with limited throughput (a cache's tag port, an L2 channel, a DRAM channel):
//! each use occupies it for a while, and a use that arrives while it is busy starts when it
//! becomes free. Occupancy is kept in 1/256 cycles so that fractional rates (e.g. 2.5 bytes per
//! cycle of a DRAM channel) add up exactly and deterministically.

/// Fixed-point fraction of a cycle.
pub const SUB: u64 = 256;

#[derive(Debug, Clone, Default)]
pub struct Pipe {
    /// When the resource is next free, in 1/`SUB` cycles.
    free_at: u64,
    /// Total busy time, in 1/`SUB` cycles.
    busy: u64,
}

impl Pipe {
    /// Occupy the resource for `occupancy` (1/`SUB` cycles) from `at` (cycles) or when it
    /// frees up; returns the cycle the use starts.
    #[inline]
    pub fn reserve(&mut self, at: u64, occupancy: u64) -> u64 {
        let start = (at * SUB).max(self.free_at);
        self.free_at = start + occupancy;
        self.busy += occupancy;
        start.div_ceil(SUB)
    }

    /// The cycle the resource is next free.
    pub fn free_cycle(&self) -> u64 {
        self.free_at.div_ceil(SUB)
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
