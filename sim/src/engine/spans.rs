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
    let parts: Vec<Sorted> = logs.iter().enumerate().map(|(worker, l)| Sorted::new(worker, l)).collect();
    independent_sorted(&parts.iter().collect::<Vec<_>>())
}

/// One worker's log split into its writes, sorted, and its reads: what a worker prepares on
/// its own thread, so that the check after the dispatch merges sorted runs.
#[derive(Debug, Default)]
pub(super) struct Sorted {
    /// Every element of a strided write (each is what the commit copies), by address.
    writes: Vec<Written>,
    /// In the log's order (a wave's reads come near each other: the check looks near the
    /// last one's place first).
    reads: Vec<Span>,
}

impl Sorted {
    /// Worker `worker`'s `log`, sorted.
    pub fn new(worker: usize, log: &[Span]) -> Sorted {
        let (mut writes, mut reads) = (Vec::with_capacity(log.len()), Vec::with_capacity(log.len()));
        for s in log {
            if !s.write {
                reads.push(*s);
                continue;
            }
            for k in 0..s.count.max(1) {
                let (lo, hi) = s.element(k);
                // An empty range writes no byte (and, kept, its place among equal starts
                // would matter to the merge).
                if lo < hi {
                    writes.push(Written { lo, hi, agent: s.agent, worker });
                }
            }
        }
        writes.sort_unstable_by_key(write_key);
        Sorted { writes, reads }
    }

    /// Whether some access shares a byte with `lo..hi` (a pass over all: one wave's writes
    /// may nest, so their ends are not sorted).
    pub fn touches(&self, lo: u64, hi: u64) -> bool {
        lo < hi && (self.writes.iter().any(|w| w.lo < hi && w.hi > lo) || self.reads.iter().any(|r| r.overlaps(lo, hi)))
    }
}

/// The order writes are merged in: by start only. Writes of two waves with one start overlap
/// (none is empty), which the merge finds in either order, and one wave's merge into the same
/// range in either order, so the order among equal starts changes nothing; a key of one word
/// halved the sort's cost against (start, end, wave).
fn write_key(w: &Written) -> u64 {
    w.lo
}

/// [`independent`] of logs already split and sorted per worker.
pub(super) fn independent_sorted(parts: &[&Sorted]) -> Option<Vec<Written>> {
    // Concatenated sorted runs: the stable sort merges them in linear time.
    let mut writes: Vec<Written> = parts.iter().flat_map(|p| p.writes.iter().copied()).collect();
    writes.sort_by_key(write_key);
    let writes = merge(writes)?;
    let mut hints = [0usize; 2];
    let reads_own = parts.iter().flat_map(|p| p.reads.iter()).all(|r| {
        let first = seek(&writes, &mut hints, r.lo);
        // The writes within the read's hull; another wave's may fall between its elements.
        writes[first..].iter().take_while(|w| w.lo < r.end()).all(|w| w.agent == r.agent || !r.overlaps(w.lo, w.hi))
    });
    reads_own.then_some(writes)
}

/// The first of the sorted, disjoint `writes` that ends after `lo`. `hints`: the last two
/// answers, tried first (reads alternate between a few arrays, each read a little past the
/// last one there), then a binary search.
#[inline]
fn seek(writes: &[Written], hints: &mut [usize; 2], lo: u64) -> usize {
    let fits = |i: usize| (i == 0 || writes[i - 1].hi <= lo) && writes.get(i).is_none_or(|w| w.hi > lo);
    for k in 0..2 {
        // Near the hint: it, or a few writes further on.
        let h = hints[k].min(writes.len());
        if let Some(i) = (h..(h + 4).min(writes.len() + 1)).find(|&i| fits(i)) {
            hints.swap(0, k);
            hints[0] = i;
            return i;
        }
    }
    let i = writes.partition_point(|w| w.hi <= lo);
    hints[1] = hints[0];
    hints[0] = i;
    i
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
    fn a_read_several_waves_shared_conflicts_with_any_write_into_it() {
        let shared = span(100, 120, super::super::track::SHARED_READ, false);
        assert!(independent(&[&[shared], &[span(0, 8, 1, true), span(120, 130, 2, true)]]).is_some(), "writes beside it");
        assert!(independent(&[&[shared], &[span(119, 121, 1, true)]]).is_none(), "one byte of it, by any wave");
    }

    #[test]
    fn reads_in_any_order_find_the_writes_they_overlap() {
        // Many writes, reads jumping between far places and back: the hints must not miss one.
        let writes: Vec<Span> = (0..100).map(|k| span(1000 * k, 1000 * k + 8, k as u32, true)).collect();
        for lo in [50_000u64, 3_000, 3_004, 99_000, 0, 50_004, 7_000] {
            let own = [span(lo, lo + 4, (lo / 1000) as u32, false)];
            assert!(independent(&[&writes, &own]).is_some(), "wave {} reads its own write at {lo}", lo / 1000);
            let other = [span(lo + 2, lo + 4, 1000, false)];
            assert!(independent(&[&writes, &other]).is_none(), "another wave reads {}", lo + 2);
        }
        let reads: Vec<Span> = [50_000u64, 3_000, 99_004, 0, 3_004, 98_000].iter().map(|&lo| span(lo, lo + 4, (lo / 1000) as u32, false)).collect();
        assert!(independent(&[&writes, &reads]).is_some());
        let mut bad = reads.clone();
        bad.push(span(42_006, 42_007, 7, false));
        assert!(independent(&[&writes, &bad]).is_none(), "the last read, after many hints");
    }

    #[test]
    fn writes_from_one_start_conflict_in_either_order_and_empty_writes_write_nothing() {
        // Sorted by start alone: the order among equal starts must not change the answer.
        let (long, short) = ([span(0, 8, 0, true)], [span(0, 4, 1, true)]);
        assert!(independent(&[&long, &short]).is_none(), "two waves from one start");
        assert!(independent(&[&short, &long]).is_none(), "the same, logged the other way round");
        let w = independent(&[&[span(0, 4, 0, true), span(0, 8, 0, true), span(0, 2, 0, true)]]).expect("one wave");
        assert_eq!(w, [Written { lo: 0, hi: 8, agent: 0, worker: 0 }], "one wave's, one range");
        // A store of no bytes inside another wave's write, or at its start, touches nothing.
        for at in [0, 4, 8] {
            let w = independent(&[&long, &[span(at, at, 1, true)]]).expect("no byte in common");
            assert_eq!(w, [Written { lo: 0, hi: 8, agent: 0, worker: 0 }], "at {at}");
        }
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
