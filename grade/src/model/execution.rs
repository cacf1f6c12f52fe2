//! Candidate executions: one run per thread, a write for every read to read from (`rf`),
//! and a total order of the writes of each cell (`co`). The model then says which
//! candidates are consistent.

use std::collections::BTreeMap;

use super::event::{Cell, Event, Kind, INIT};
use super::relation::{Rel, MAX_EVENTS};
use super::search::Search;
use super::traces::Runs;
use crate::litmus::Span;
use hipscope_mm::{Access, Value};

/// One candidate execution.
#[derive(Clone, Debug)]
pub struct Execution {
    /// The initial writes (one per cell) first, then each thread's events in program order.
    pub events: Vec<Event>,
    /// Which run of each thread this execution uses.
    pub run_of_thread: Vec<usize>,
    /// For each event that reads: the write it reads from.
    pub rf_source: Vec<Option<usize>>,
    pub po: Rel,
    /// Syntactic dependencies: from a load to the later events of its thread that use it.
    pub dep: Rel,
    pub rf: Rel,
    pub co: Rel,
    /// Each cell's final value: the value of its `co`-last write.
    pub final_memory: BTreeMap<Cell, Value>,
}

impl Execution {
    pub fn n(&self) -> usize {
        self.events.len()
    }

    /// `fr = (rf⁻¹ ; co) \ id`: a read is before every write `co`-after the one it read
    /// (other than itself, when it is a read-modify-write).
    pub fn fr(&self) -> Rel {
        let mut fr = self.rf.inverse().then(&self.co);
        for a in 0..self.n() {
            if fr.has(a, a) {
                fr.remove(a, a);
            }
        }
        fr
    }

    /// The events as a set, filtered.
    pub fn set(&self, pred: impl Fn(&Event) -> bool) -> u128 {
        self.events.iter().enumerate().filter(|(_, e)| pred(e)).fold(0, |acc, (i, _)| acc | 1 << i)
    }
}

/// Most candidate executions one test may have; litmus tests have hundreds (the largest in
/// the catalogues, a global barrier, 648), so beyond this the input is not a litmus test.
pub const MAX_CANDIDATES: usize = 1_000_000;

/// Most partial candidates one test's search may cut ([`Prune`]): a cut costs a few word
/// operations, against the judge's fixed points over every relation for a candidate, so
/// the search may cut many more than it may visit.
pub const MAX_CUTS: usize = 16 * MAX_CANDIDATES;

/// The test is too large to enumerate.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TooManyEvents {
    #[error("an execution of this test has {0} events; at most {MAX_EVENTS} are supported")]
    Events(usize),
    #[error("this test has more than {MAX_CANDIDATES} candidate executions; litmus tests have hundreds")]
    Candidates,
}

/// Calls `visit` with every candidate execution, in a fixed order (threads' runs, then
/// reads-from choices, then coherence orders), so verdicts and witnesses are deterministic.
pub fn for_each(runs: &Runs, visit: impl FnMut(&Execution)) -> Result<(), TooManyEvents> {
    for_each_within(runs, MAX_CANDIDATES, visit)
}

/// [`for_each`], refusing the test beyond `max_candidates` (at most [`MAX_CANDIDATES`]) in
/// place of the usual limit, as the fuzzer does to keep each input quick.
pub fn for_each_within(runs: &Runs, max_candidates: usize, visit: impl FnMut(&Execution)) -> Result<(), TooManyEvents> {
    for_each_accepted(runs, max_candidates, |_| true, visit)
}

/// [`for_each_within`] over the combinations of runs (one index per thread) that `accept`
/// keeps: the others cost one unit of budget each and are not expanded.
pub fn for_each_accepted(runs: &Runs, max_candidates: usize, accept: impl Fn(&[usize]) -> bool, visit: impl FnMut(&Execution)) -> Result<(), TooManyEvents> {
    for_each_pruned(runs, max_candidates, accept, &Prune::default(), visit)
}

/// [`Prune::po_coherent`]'s predicate.
pub type PoCoherent<'a> = &'a dyn Fn(&Event, &Event) -> bool;
/// [`Prune::sealed`]'s function.
pub type Sealed<'a> = &'a dyn Fn(&[usize]) -> u128;

/// What a caller knows rules candidates out before they are built: each cut must follow
/// from the axioms the candidates are judged by (or the question asked of them), so that
/// no candidate the caller would keep is lost, only the enumeration of hopeless ones.
#[derive(Default)]
pub struct Prune<'a> {
    /// `po_coherent(a, b)`, for `a` before `b` in one thread's program order at one cell:
    /// the model makes coherence follow program order between them — `b` is never read by
    /// `a`, and, both writes, `a` is coherence-before `b`.
    pub po_coherent: Option<PoCoherent<'a>>,
    /// For a combination of runs: events (bit positions in the execution) whose writes
    /// only reads of the same set may read.
    pub sealed: Option<Sealed<'a>>,
}

/// [`for_each_accepted`] with the cuts of `prune` made while reads-from is chosen.
pub fn for_each_pruned(
    runs: &Runs,
    max_candidates: usize,
    accept: impl Fn(&[usize]) -> bool,
    prune: &Prune<'_>,
    mut visit: impl FnMut(&Execution),
) -> Result<(), TooManyEvents> {
    let mut choice = vec![0usize; runs.per_thread.len()];
    if runs.per_thread.iter().any(|r| r.is_empty()) {
        return Ok(());
    }
    let mut budget = max_candidates.min(MAX_CANDIDATES);
    let mut cuts = budget.saturating_mul(MAX_CUTS / MAX_CANDIDATES);
    loop {
        // Combinations of runs whose reads cannot all be satisfied cost budget too, or many
        // threads with many runs each could loop for ever without one candidate. Those
        // `accept` refuses cost nothing: it looks at the run choice only, and the number of
        // combinations is bounded by the runs per thread.
        if accept(&choice) {
            budget = budget.checked_sub(1).ok_or(TooManyEvents::Candidates)?;
            if let Some(skeleton) = Skeleton::new(runs, &choice)? {
                let sealed = prune.sealed.map_or(0, |f| f(&choice));
                let mut search = Search::new(&skeleton, prune.po_coherent, sealed, &mut budget, &mut cuts)?;
                search.assign(0, &mut visit)?;
            }
        }
        if !advance(&mut choice, |i| runs.per_thread[i].len()) {
            return Ok(());
        }
    }
}

/// Odometer step over `digits`, digit `i` counting to `limit(i)`; false after the last.
pub(super) fn advance(digits: &mut [usize], limit: impl Fn(usize) -> usize) -> bool {
    for i in (0..digits.len()).rev() {
        digits[i] += 1;
        if digits[i] < limit(i) {
            return true;
        }
        digits[i] = 0;
    }
    false
}

/// The events of one combination of runs, with what each read may read from.
pub(super) struct Skeleton {
    pub(super) events: Vec<Event>,
    pub(super) run_of_thread: Vec<usize>,
    pub(super) po: Rel,
    pub(super) dep: Rel,
    /// Per reading event: the writes with the same cell and the value it read.
    pub(super) candidates: Vec<(usize, Vec<usize>)>,
    /// Per cell: its writes other than the initial one.
    pub(super) writes_per_cell: Vec<(Cell, usize, Vec<usize>)>,
    /// Whether the model makes every read-modify-write atomic against every write
    /// ([`Runs::chain_rmws`]).
    pub(super) chain_rmws: bool,
}

impl Skeleton {
    /// `None` when some read has no write of its value to read from.
    fn new(runs: &Runs, choice: &[usize]) -> Result<Option<Skeleton>, TooManyEvents> {
        let mut events: Vec<Event> = runs
            .cells
            .iter()
            .map(|(cell, v)| Event {
                thread: INIT,
                kind: Kind::Write { cell: *cell, bytes: (0, u8::MAX), access: Access::Plain, value: *v },
                span: Span::default(),
                deps: 0,
            })
            .collect();
        let mut thread_ranges = Vec::new();
        for (t, c) in choice.iter().enumerate() {
            let start = events.len();
            events.extend(runs.per_thread[t][*c].events.iter().cloned());
            thread_ranges.push(start..events.len());
        }
        if events.len() > MAX_EVENTS {
            return Err(TooManyEvents::Events(events.len()));
        }
        let n = events.len();
        let mut po = Rel::empty(n);
        let mut dep = Rel::empty(n);
        for range in &thread_ranges {
            for a in range.clone() {
                for b in a + 1..range.end {
                    po.add(a, b);
                }
                for d in super::relation::bits(events[a].deps as u128) {
                    if range.start + d < a {
                        dep.add(range.start + d, a);
                    }
                }
            }
        }
        let mut candidates = Vec::new();
        for (r, ev) in events.iter().enumerate().filter(|(_, e)| e.reads()) {
            let from: Vec<usize> =
                (0..n).filter(|w| *w != r && events[*w].writes() && events[*w].cell() == ev.cell() && events[*w].value_written() == ev.value_read()).collect();
            if from.is_empty() {
                return Ok(None);
            }
            candidates.push((r, from));
        }
        let writes_per_cell = runs
            .cells
            .iter()
            .enumerate()
            .map(|(init, (cell, _))| {
                let ws = (runs.cells.len()..n).filter(|w| events[*w].writes() && events[*w].cell() == Some(*cell)).collect();
                (*cell, init, ws)
            })
            .collect();
        Ok(Some(Skeleton { events, run_of_thread: choice.to_vec(), po, dep, candidates, writes_per_cell, chain_rmws: runs.chain_rmws }))
    }

    /// Does a cell with writes `ws` have read-modify-writes, all its writes of one width? Its
    /// coherence orders then follow from reads-from: every model here requires an atomic
    /// read-modify-write to come immediately after the write it reads in coherence
    /// (atomicity, `rmw ∩ (fr ; co) = ∅`), so each is chained to its source.
    pub(super) fn chained(&self, ws: &[usize]) -> bool {
        if !self.chain_rmws {
            return false;
        }
        let bytes = ws.first().and_then(|w| self.events[*w].bytes());
        ws.iter().any(|w| matches!(self.events[*w].kind, Kind::Rmw { .. })) && ws.iter().all(|w| self.events[*w].bytes() == bytes)
    }

    /// Each cell's write orders under the reads-from choice `rf_source` (`None`: two
    /// read-modify-writes read the same write, or they read each other in a cycle).
    #[allow(clippy::type_complexity)]
    pub(super) fn orders(
        &self,
        fixed: &[Option<Vec<Vec<usize>>>],
        rf_source: &[Option<usize>],
        budget: &usize,
    ) -> Result<Option<Vec<Vec<Vec<usize>>>>, TooManyEvents> {
        let mut out = Vec::new();
        for ((_, init, ws), fixed) in self.writes_per_cell.iter().zip(fixed) {
            if let Some(f) = fixed {
                out.push(f.clone());
                continue;
            }
            let mut next: Vec<(usize, usize)> = Vec::new();
            for w in ws.iter().filter(|w| matches!(self.events[**w].kind, Kind::Rmw { .. })) {
                let Some(src) = rf_source[*w] else { return Ok(None) };
                if next.iter().any(|(s, _)| *s == src) {
                    return Ok(None);
                }
                next.push((src, *w));
            }
            let chain = |start: usize| {
                let mut c = vec![start];
                while let Some((_, n)) = next.iter().find(|(s, _)| Some(s) == c.last()) {
                    if c.len() > ws.len() {
                        break;
                    }
                    c.push(*n);
                }
                c
            };
            let head: Vec<usize> = chain(*init).into_iter().skip(1).collect();
            let others: Vec<Vec<usize>> = ws.iter().filter(|w| !next.iter().any(|(_, n)| n == *w)).map(|w| chain(*w)).collect();
            if head.len() + others.iter().map(Vec::len).sum::<usize>() != ws.len() {
                return Ok(None);
            }
            let count = (1..=others.len()).try_fold(1usize, |acc, k| acc.checked_mul(k)).filter(|c| c <= budget).ok_or(TooManyEvents::Candidates)?;
            let mut orders = Vec::with_capacity(count);
            for perm in permutations(&(0..others.len()).collect::<Vec<_>>()) {
                orders.push(head.iter().copied().chain(perm.iter().flat_map(|i| others[*i].iter().copied())).collect());
            }
            out.push(orders);
        }
        Ok(Some(out))
    }

    /// `co` for one choice of write order per cell (the initial write first), and the final
    /// values it implies.
    pub(super) fn coherence(&self, orders: &[Vec<Vec<usize>>], pick: &[usize]) -> (Rel, BTreeMap<Cell, Value>) {
        let mut co = Rel::empty(self.events.len());
        let mut final_memory = BTreeMap::new();
        for ((cell, init, _), (order, p)) in self.writes_per_cell.iter().zip(orders.iter().zip(pick)) {
            let chain: Vec<usize> = std::iter::once(*init).chain(order[*p].iter().copied()).collect();
            for (i, a) in chain.iter().enumerate() {
                for b in &chain[i + 1..] {
                    co.add(*a, *b);
                }
            }
            let last = chain.last().copied().unwrap_or(*init);
            final_memory.insert(*cell, self.events[last].value_written().unwrap_or(0));
        }
        (co, final_memory)
    }
}

/// Every ordering of `items` (the first ordering is `items` itself).
pub(super) fn permutations(items: &[usize]) -> Vec<Vec<usize>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut tail in permutations(&rest) {
            tail.insert(0, first);
            out.push(tail);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_count_and_start_with_the_identity() {
        assert_eq!(permutations(&[1, 2, 3]).len(), 6);
        assert_eq!(permutations(&[1, 2, 3])[0], vec![1, 2, 3]);
        assert_eq!(permutations(&[]), vec![Vec::<usize>::new()]);
    }

    #[test]
    fn odometer_visits_every_combination_once() {
        let mut d = vec![0, 0];
        let mut seen = 1;
        while advance(&mut d, |i| [2, 3][i]) {
            seen += 1;
        }
        assert_eq!(seen, 6);
    }
}
