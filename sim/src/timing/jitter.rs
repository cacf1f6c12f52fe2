//! Seeded launch jitter: how many cycles after its nominal launch a work-group's waves start.
//!
//! On hardware the cycle at which a work-group's waves begin to issue is not a fixed function of
//! its position in the dispatch: the command processor and the per-engine workgroup managers
//! arbitrate between shader engines (and, on MI300, between XCDs), wave launch on a CU waits
//! for VGPR/SGPR initialisation and instruction-cache fills, and all of this varies from run
//! to run. Litmus tests such as message passing between work-groups on different CUs depend on
//! these few to few hundred cycles: whether the consumer reads a line before or after the
//! producer's store reached the shared cache decides what its L1 holds afterwards. Without a
//! variation here, every seed would give one and the same interleaving across CUs (the seeded
//! wave priority only orders waves that are ready in the same cycle).
//!
//! Seed 0 adds nothing, so seed-0 runs (and every figure calibrated with them) are unchanged.
//! Any other seed delays each work-group by a draw from its own generator (separate from the
//! wave priorities), so one seed gives one result.

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Largest extra delay of a work-group's start, in cycles (exclusive).
pub const MAX_LAUNCH_JITTER_CYCLES: u64 = 256;

/// Draws the per-work-group start delay for one dispatch.
pub struct LaunchJitter {
    rng: Option<StdRng>,
}

impl LaunchJitter {
    /// No jitter for seed 0; otherwise a generator derived from the seed (a different stream
    /// from the wave-priority generator seeded with the same value).
    pub fn new(seed: u64) -> LaunchJitter {
        let rng = (seed != 0).then(|| StdRng::seed_from_u64(seed ^ 0x6a69_7474_6572_0001));
        LaunchJitter { rng }
    }

    /// The next work-group's extra start delay in cycles (0 for seed 0).
    pub fn next_delay(&mut self) -> u64 {
        self.rng.as_mut().map_or(0, |r| r.random_range(0..MAX_LAUNCH_JITTER_CYCLES))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_zero_adds_nothing_and_a_seed_repeats_itself() {
        let mut z = LaunchJitter::new(0);
        assert!((0..100).all(|_| z.next_delay() == 0));
        let a: Vec<u64> = {
            let mut j = LaunchJitter::new(9);
            (0..100).map(|_| j.next_delay()).collect()
        };
        let mut j = LaunchJitter::new(9);
        assert_eq!(a, (0..100).map(|_| j.next_delay()).collect::<Vec<_>>());
        assert!(a.iter().all(|&d| d < MAX_LAUNCH_JITTER_CYCLES));
        assert!(a.iter().any(|&d| d != a[0]), "delays vary between work-groups");
    }
}
