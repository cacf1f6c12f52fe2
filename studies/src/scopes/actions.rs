//! The cache actions of a dispatch's synchronization instructions, in words, as an observer
//! of the run saw them (the dispatch-start invalidation and the end-of-kernel write-back are
//! not among them: no instruction causes those).

use hipscope_sim::counters::{Counter, Counters};
use hipscope_sim::observe::{CacheAction, CacheOp, Observer};
use hipscope_sim::timing::trace::cache_op_name;

/// Report order, and what each action's lines are.
const KINDS: [(CacheOp, &str); 4] = [
    (CacheOp::InvalidateL1, "valid lines dropped"),
    (CacheOp::InvalidateGl1, "valid lines dropped"),
    (CacheOp::InvalidateL2, "lines dropped"),
    (CacheOp::WritebackL2, "dirty lines written"),
];

/// Counts the cache actions of a run, and the lines they dropped or wrote, by kind.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    /// (operations, lines) per [`KINDS`] entry.
    counts: [(u64, u64); KINDS.len()],
}

impl Observer for Tally {
    fn lane_accesses(&self) -> bool {
        false
    }

    fn cache_action(&mut self, a: &CacheAction) {
        if let Some(i) = KINDS.iter().position(|k| k.0 == a.op) {
            self.counts[i].0 += 1;
            self.counts[i].1 += a.lines;
        }
    }
}

/// E.g. `L1 invalidate ×4: 212 valid lines dropped`; empty when the dispatch's instructions
/// did no cache maintenance. `c`: the dispatch's counters (for atomics the memory system
/// could not make atomic).
pub fn describe(t: &Tally, c: &Counters, rdna: bool) -> Vec<String> {
    let mut out = Vec::new();
    for ((op, unit), (n, lines)) in KINDS.iter().zip(t.counts) {
        if n > 0 {
            out.push(format!("{} ×{n}: {lines} {unit}", cache_op_name(*op, rdna)));
        }
    }
    let atomics = c.get(Counter::SystemAtomicsNotAtomic);
    if atomics > 0 {
        out.push(format!("{atomics} atomic accesses not atomic on this GPU (host memory)"));
    }
    out
}

/// The link traffic of the operation: the dispatch's remote counters `c` less `before` (the
/// timer kernel's with the same footprint), e.g. `link: 64 B read, 4 B written, 1 atomic at
/// the far agent`; empty when the operation crossed no link.
pub fn link(c: &Counters, before: &Counters) -> Vec<String> {
    let d = |k: Counter| c.get(k).saturating_sub(before.get(k));
    let (read, written, atomics) = (d(Counter::RemoteReadBytes), d(Counter::RemoteWriteBytes), d(Counter::RemoteAtomics));
    if read + written + atomics == 0 {
        return Vec::new();
    }
    let s = if atomics == 1 { "" } else { "s" };
    vec![format!("link: {read} B read, {written} B written, {atomics} atomic{s} at the far agent")]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn act(op: CacheOp, lines: u64) -> CacheAction {
        CacheAction { wave_index: 0, pc: 0, cu: 0, op, lines, issue: 0, done: 1 }
    }

    #[test]
    fn words() {
        let mut t = Tally::default();
        let c = Counters::default();
        assert!(describe(&t, &c, false).is_empty());
        for _ in 0..4 {
            t.cache_action(&act(CacheOp::InvalidateL1, 53));
        }
        for _ in 0..8 {
            t.cache_action(&act(CacheOp::WritebackL2, 128));
        }
        t.cache_action(&act(CacheOp::InvalidateScalar, 3));
        assert_eq!(describe(&t, &c, false), ["L1 invalidate ×4: 212 valid lines dropped", "L2 write-back ×8: 1024 dirty lines written"]);
        assert_eq!(describe(&t, &c, true)[0], "GL0 invalidate ×4: 212 valid lines dropped");
    }

    #[test]
    fn link_words() {
        let mut before = Counters::default();
        let mut c = Counters::default();
        assert!(link(&c, &before).is_empty());
        before.add(Counter::RemoteReadBytes, 128);
        c.add(Counter::RemoteReadBytes, 192);
        c.add(Counter::RemoteAtomics, 1);
        assert_eq!(link(&c, &before), ["link: 64 B read, 0 B written, 1 atomic at the far agent"]);
    }
}
