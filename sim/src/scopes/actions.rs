//! The cache actions of a dispatch's synchronization instructions, in words, from the
//! memory system's maintenance counters (the dispatch-start invalidation and the end-of-kernel
//! write-back are not among them).

use crate::counters::{Counter, Counters};

/// One kind of action: (operations counter, lines counter, what it is, what its lines are).
const KINDS: [(Counter, Counter, &str, &str); 4] = [
    (Counter::L1Invalidates, Counter::L1InvalidatedLines, "L1 invalidate", "valid lines dropped"),
    (Counter::Gl1Invalidates, Counter::Gl1InvalidatedLines, "GL1 invalidate", "valid lines dropped"),
    (Counter::L2Invalidates, Counter::TccAllTcOpInvEvict, "L2 invalidate", "lines dropped"),
    (Counter::L2Writebacks, Counter::TccAllTcOpWbWriteback, "L2 write-back", "dirty lines written"),
];

/// E.g. `L1 invalidate ×4: 212 valid lines dropped`; empty when the dispatch's instructions
/// did no cache maintenance.
pub fn describe(c: &Counters, rdna: bool) -> Vec<String> {
    let mut out = Vec::new();
    for (ops, lines, what, unit) in KINDS {
        let n = c.get(ops);
        if n == 0 {
            continue;
        }
        let what = if rdna && what == "L1 invalidate" { "GL0 invalidate" } else { what };
        out.push(format!("{what} ×{n}: {} {unit}", c.get(lines)));
    }
    let atomics = c.get(Counter::SystemAtomicsNotAtomic);
    if atomics > 0 {
        out.push(format!("{atomics} atomic accesses not atomic on this GPU (host memory)"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words() {
        let mut c = Counters::default();
        assert!(describe(&c, false).is_empty());
        c.add(Counter::L1Invalidates, 4);
        c.add(Counter::L1InvalidatedLines, 212);
        c.add(Counter::L2Writebacks, 8);
        c.add(Counter::TccAllTcOpWbWriteback, 1024);
        assert_eq!(describe(&c, false), ["L1 invalidate ×4: 212 valid lines dropped", "L2 write-back ×8: 1024 dirty lines written"]);
        assert_eq!(describe(&c, true)[0], "GL0 invalidate ×4: 212 valid lines dropped");
    }
}
