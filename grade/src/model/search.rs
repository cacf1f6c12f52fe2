//! Reads-from and coherence choices of one combination of runs, searched depth first.
//!
//! Each read is given a source in turn, and a partial choice that no completion could make
//! consistent is dropped at once instead of being completed in every way and judged: a
//! read-modify-write of a cell whose read-modify-writes are chained (every model that makes
//! them atomic against every write) reads a write no other one reads, and, where the model
//! makes coherence follow program order ([`super::execution::Prune::po_coherent`]), a read never reads a
//! later write of its own thread and the chains keep a thread's writes in program order.
//! Those reads are given their sources first, so these cuts come early. Every cut is one
//! the full candidate would fail anyway (the judge's coherence or atomicity axiom, or the
//! enumeration's own chaining), so the candidates visited are the same consistent ones, in
//! the same order, as without cuts.

use std::collections::BTreeMap;

use super::event::{Event, Kind};
use super::execution::{permutations, Execution, Skeleton, TooManyEvents};
use super::relation::Rel;

/// A program-order predicate, if the model gives one.
type PoCoherent<'a> = Option<super::execution::PoCoherent<'a>>;

pub(super) struct Search<'s, 'b> {
    sk: &'s Skeleton,
    po_coherent: PoCoherent<'s>,
    /// Writes only reads of this set may read ([`super::execution::Prune::sealed`]).
    sealed: u128,
    budget: &'b mut usize,
    /// How many more partial choices may be cut ([`super::execution::MAX_CUTS`]).
    cuts: &'b mut usize,
    /// Per cell: its write orders when they do not depend on reads-from.
    fixed: Vec<Option<Vec<Vec<usize>>>>,
    /// Indices into the skeleton's reads, in the order they are given sources: the chained
    /// read-modify-writes first.
    order: Vec<usize>,
    /// Per skeleton read: is it a chained read-modify-write?
    chained: Vec<bool>,
    /// How many reads have sources when the chains are checked against program order.
    chains_checked_at: usize,
    /// The writes a chained read-modify-write already reads.
    taken: u128,
    exec: Execution,
}

impl<'s, 'b> Search<'s, 'b> {
    pub(super) fn new(sk: &'s Skeleton, po_coherent: PoCoherent<'s>, sealed: u128, budget: &'b mut usize, cuts: &'b mut usize) -> Result<Self, TooManyEvents> {
        let n = sk.events.len();
        // The write orders of cells without read-modify-writes are listed up front; refuse
        // before listing more than the budget could visit (each ordering is a candidate at
        // least). A cell with read-modify-writes has its orders built per reads-from choice.
        let mut orderings = 1usize;
        for (_, _, ws) in sk.writes_per_cell.iter().filter(|(_, _, ws)| !sk.chained(ws)) {
            orderings = (1..=ws.len()).try_fold(orderings, |acc, k| acc.checked_mul(k)).filter(|o| *o <= *budget).ok_or(TooManyEvents::Candidates)?;
        }
        let fixed = sk.writes_per_cell.iter().map(|(_, _, ws)| (!sk.chained(ws)).then(|| Self::write_orders(sk, po_coherent, ws))).collect();
        let is_chained = |r: usize| {
            matches!(sk.events[r].kind, Kind::Rmw { .. })
                && sk.writes_per_cell.iter().any(|(cell, _, ws)| Some(*cell) == sk.events[r].cell() && ws.contains(&r) && sk.chained(ws))
        };
        // Without the program-order cut the reads keep their order (so do the candidates
        // and the first witness); with it, the chained ones go first, to be cut early.
        let chained: Vec<bool> = sk.candidates.iter().map(|(r, _)| is_chained(*r)).collect();
        let (mut order, rest): (Vec<usize>, Vec<usize>) = (0..sk.candidates.len()).partition(|i| po_coherent.is_some() && chained[*i]);
        let chains_checked_at = if po_coherent.is_some() { order.len() } else { sk.candidates.len() };
        order.extend(rest);
        // One execution, whose rf and co are rewritten for each choice: the events and
        // program order are the skeleton's and do not change.
        let exec = Execution {
            events: sk.events.clone(),
            run_of_thread: sk.run_of_thread.clone(),
            rf_source: vec![None; n],
            po: sk.po.clone(),
            dep: sk.dep.clone(),
            rf: Rel::empty(n),
            co: Rel::empty(n),
            final_memory: BTreeMap::new(),
        };
        Ok(Search { sk, po_coherent, sealed, budget, cuts, fixed, order, chained, chains_checked_at, taken: 0, exec })
    }

    /// The orders of a cell's writes `ws` that keep each thread's writes in program order
    /// where the model requires it.
    fn write_orders(sk: &Skeleton, po_coherent: PoCoherent<'_>, ws: &[usize]) -> Vec<Vec<usize>> {
        let mut all = permutations(ws);
        if let Some(f) = po_coherent {
            all.retain(|p| p.iter().enumerate().all(|(i, b)| p[i + 1..].iter().all(|a| !Self::po_ordered(sk, f, *a, *b))));
        }
        all
    }

    /// Is `a` before `b` in one thread, with coherence following program order between them?
    fn po_ordered(sk: &Skeleton, f: &dyn Fn(&Event, &Event) -> bool, a: usize, b: usize) -> bool {
        let (ea, eb) = (&sk.events[a], &sk.events[b]);
        a < b && ea.thread == eb.thread && !ea.is_init() && f(ea, eb)
    }

    fn spend(&mut self) -> Result<(), TooManyEvents> {
        *self.budget = self.budget.checked_sub(1).ok_or(TooManyEvents::Candidates)?;
        Ok(())
    }

    /// A partial choice cut before it is complete.
    fn cut(&mut self) -> Result<(), TooManyEvents> {
        *self.cuts = self.cuts.checked_sub(1).ok_or(TooManyEvents::Candidates)?;
        Ok(())
    }

    /// Gives the `k`-th read (of [`Self::order`]) each of its sources in turn.
    pub(super) fn assign(&mut self, k: usize, visit: &mut impl FnMut(&Execution)) -> Result<(), TooManyEvents> {
        if k == self.chains_checked_at && k < self.order.len() && !self.chains_follow_po() {
            return self.cut();
        }
        if k == self.order.len() && self.chains_checked_at == k && !self.chains_follow_po() {
            return self.spend();
        }
        if k == self.order.len() {
            return self.complete(visit);
        }
        let sk = self.sk;
        let (r, from) = &sk.candidates[self.order[k]];
        let chained = self.chained[self.order[k]];
        for &w in from {
            if !self.admissible(chained, *r, w) {
                self.cut()?;
                continue;
            }
            self.exec.rf.add(w, *r);
            self.exec.rf_source[*r] = Some(w);
            if chained {
                self.taken |= 1 << w;
            }
            self.assign(k + 1, visit)?;
            if chained {
                self.taken &= !(1u128 << w);
            }
            self.exec.rf.remove(w, *r);
            self.exec.rf_source[*r] = None;
        }
        Ok(())
    }

    fn admissible(&self, chained: bool, r: usize, w: usize) -> bool {
        let sealed_ok = self.sealed >> w & 1 == 0 || self.sealed >> r & 1 == 1;
        let atomic_ok = !chained || self.taken >> w & 1 == 0;
        let po_ok = self.po_coherent.is_none_or(|f| !Self::po_ordered(self.sk, f, r, w));
        sealed_ok && atomic_ok && po_ok
    }

    /// Do the chains of read-modify-writes keep each thread's writes in program order? The
    /// chain from the initial write comes first in coherence; the others follow it.
    fn chains_follow_po(&self) -> bool {
        let Some(f) = self.po_coherent else { return true };
        let sk = self.sk;
        for (_, init, ws) in sk.writes_per_cell.iter().filter(|(_, _, ws)| sk.chained(ws)) {
            // Per write: (its chain's first write, its place in the chain).
            let mut place: Vec<(usize, usize, usize)> = Vec::new();
            let starts = std::iter::once(*init).chain(ws.iter().copied().filter(|w| !matches!(sk.events[*w].kind, Kind::Rmw { .. })));
            for start in starts {
                let mut at = start;
                for i in 0..=ws.len() {
                    place.push((at, start, i));
                    match ws.iter().find(|n| self.exec.rf_source[**n] == Some(at)) {
                        Some(n) => at = *n,
                        None => break,
                    }
                }
            }
            let of = |w: usize| place.iter().find(|(e, ..)| *e == w).map(|(_, s, i)| (*s, *i));
            for &a in ws {
                for &b in ws {
                    if !Self::po_ordered(sk, f, a, b) {
                        continue;
                    }
                    let inverted = match (of(a), of(b)) {
                        (Some((sa, ia)), Some((sb, ib))) => (sa == sb && ia > ib) || (sb == *init && sa != *init),
                        _ => false,
                    };
                    if inverted {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Every reads-from source is chosen: visit each coherence order that goes with it.
    fn complete(&mut self, visit: &mut impl FnMut(&Execution)) -> Result<(), TooManyEvents> {
        let Some(orders) = self.sk.orders(&self.fixed, &self.exec.rf_source, self.budget)? else {
            return self.spend();
        };
        if orders.iter().any(Vec::is_empty) {
            return self.spend();
        }
        let mut co_pick = vec![0usize; orders.len()];
        loop {
            (self.exec.co, self.exec.final_memory) = self.sk.coherence(&orders, &co_pick);
            self.spend()?;
            visit(&self.exec);
            if !super::execution::advance(&mut co_pick, |i| orders[i].len()) {
                return Ok(());
            }
        }
    }
}
