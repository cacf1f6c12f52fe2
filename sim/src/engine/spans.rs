//! Whether the waves of a dispatch run in parallel touched global memory independently
//! ([`super::par`]), from the byte ranges each logged ([`super::track`]): no two waves wrote
//! a byte in common, and no wave read a byte another wrote. Then each wave saw only the
//! dispatch's starting memory and its own writes, whatever the interleaving, and the result
//! is the one every interleaving gives.

use super::track::Span;

/// A range of bytes one wave wrote, and the worker whose memory holds them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Written {
    pub lo: u64,
    pub hi: u64,
    pub agent: u32,
    pub worker: usize,
}

/// The writes of every worker's log (`logs[i]`: worker `i`'s), sorted, disjoint, ranges of
/// one wave merged; `None` when the waves did not touch memory independently.
pub(super) fn independent(logs: &[&[Span]]) -> Option<Vec<Written>> {
    // A strided write is its elements (each is what the commit copies).
    let mut writes: Vec<Written> = logs
        .iter()
        .enumerate()
        .flat_map(|(worker, l)| {
            l.iter().filter(|s| s.write).flat_map(move |s| {
                (0..s.count.max(1)).map(move |k| {
                    let (lo, hi) = s.element(k);
                    Written { lo, hi, agent: s.agent, worker }
                })
            })
        })
        .collect();
    writes.sort_unstable_by_key(|w| (w.lo, w.hi, w.agent));
    let writes = merge(writes)?;
    let reads_own = logs.iter().flat_map(|l| l.iter()).filter(|s| !s.write).all(|r| {
        // The writes within the read's hull; another wave's may fall between its elements.
        let first = writes.partition_point(|w| w.hi <= r.lo);
        writes[first..].iter().take_while(|w| w.lo < r.end()).all(|w| w.agent == r.agent || !r.overlaps(w.lo, w.hi))
    });
    reads_own.then_some(writes)
}

/// Sorted writes merged into disjoint ranges, one wave's each; `None` if two waves' overlap.
fn merge(sorted: Vec<Written>) -> Option<Vec<Written>> {
    let mut out: Vec<Written> = Vec::with_capacity(sorted.len());
    for w in sorted {
        // Every earlier range ends at or before the last one starts: only it can overlap.
        if let Some(last) = out.last_mut() {
            if w.lo < last.hi || (w.lo == last.hi && w.agent == last.agent) {
                if w.agent != last.agent {
                    return None;
                }
                last.hi = last.hi.max(w.hi);
                continue;
            }
        }
        out.push(w);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(lo: u64, hi: u64, agent: u32, write: bool) -> Span {
        Span::range(lo, hi, agent, write)
    }

    fn strided(lo: u64, hi: u64, stride: u32, count: u32, agent: u32, write: bool) -> Span {
        Span { lo, hi, agent, write, stride, count }
    }

    #[test]
    fn disjoint_writes_and_reads_of_unwritten_or_own_bytes_are_independent() {
        let a = [span(0, 8, 0, true), span(100, 200, 0, false), span(4, 6, 0, false)];
        let b = [span(8, 16, 1, true), span(16, 20, 1, true), span(100, 200, 1, false)];
        let w = independent(&[&a, &b]).expect("independent");
        assert_eq!(w, [Written { lo: 0, hi: 8, agent: 0, worker: 0 }, Written { lo: 8, hi: 20, agent: 1, worker: 1 }]);
    }

    #[test]
    fn overlapping_writes_or_a_read_of_anothers_write_are_not() {
        let a = [span(0, 8, 0, true)];
        assert!(independent(&[&a, &[span(7, 9, 1, true)]]).is_none(), "one byte written by both");
        assert!(independent(&[&a, &[span(6, 7, 1, false)]]).is_none(), "a byte read that the other wrote");
        assert!(independent(&[&[span(0, 100, 2, true), span(50, 60, 2, true)], &[span(20, 30, 1, false)]]).is_none(), "inside a long write");
        assert!(independent(&[&a, &[span(7, 9, 0, true)]]).is_some(), "one wave twice");
    }

    #[test]
    fn strided_spans_conflict_on_their_elements_only() {
        // Wave 0 reads 0..12, 24..36, 48..60 (the positions of three 24-byte structures);
        // wave 1 writes 12..24, 36..48 (their velocities): no byte in common.
        let reads = [strided(0, 12, 24, 3, 0, false)];
        let writes = [strided(12, 24, 24, 2, 1, true)];
        let w = independent(&[&reads, &writes]).expect("gaps are not read");
        assert_eq!(w, [Written { lo: 12, hi: 24, agent: 1, worker: 1 }, Written { lo: 36, hi: 48, agent: 1, worker: 1 }]);
        assert!(independent(&[&reads, &[span(59, 61, 1, true)]]).is_none(), "the last element's last byte");
        assert!(independent(&[&reads, &[span(60, 72, 1, true)]]).is_some(), "just past the last element");
        assert!(independent(&[&reads, &[span(35, 37, 1, true)]]).is_none(), "the second element's last byte");
        assert!(independent(&[&writes, &[span(40, 41, 2, true)]]).is_none(), "inside a strided write");
        assert!(independent(&[&writes, &[span(30, 31, 2, false)]]).is_some(), "a read between two written elements");
    }
}
