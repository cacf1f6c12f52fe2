//! Loops unrolled to a bound, and the iterations a run may repeat for ever.
//!
//! A thread with backward branches (a spin loop) is run like any other, but each backward
//! jump taken counts one iteration of its loop. The iteration that would start past the
//! bound is not run: the run ends there, marked [`RunEnd::Bound`], as Dartagnan's unrolling
//! puts a bound event after the last copy of a loop body (`LoopUnrolling`, option `bound`,
//! default 4 in its liveness tests). Such runs do not count as executions of the program;
//! the verdict says the bound was reached.
//!
//! At the end of each iteration the run may also stop for good, marked [`RunEnd::Stuck`],
//! when repeating its last iterations for ever is a possible future of the run. Dartagnan's
//! `NonTerminationEncoder` decomposes a non-terminating loop into a prefix, an infix and a
//! repeatable suffix: a side-effect-free iteration (no store) that leaves the thread's
//! registers as it found them is a suffix on its own (a spin loop); iterations that store
//! are a suffix only when its last ones repeat the infix iterations before it (same
//! events, same values, same registers at their end); the suffix may have more iterations
//! than the infix, so one thread may loop several times per iteration of another. Which reads-from and coherence choices make
//! the repetition fair is decided per execution by [`super::progress`].

use std::ops::Range;

use super::event::Event;
use crate::litmus::Span;
use hipscope_mm::Value;

/// Dartagnan's default unrolling bound for litmus liveness (its `getBoundProvider`).
pub const DEFAULT_BOUND: u32 = 4;

/// How a run of a thread ends.
#[derive(Clone, Debug, PartialEq)]
pub enum RunEnd {
    /// The thread ran to its end.
    Exit,
    /// The loop of the backward jump at `span` (to `label`) wanted more iterations than the bound.
    Bound { label: String, span: Span },
    /// The run may repeat its last iteration(s) for ever.
    Stuck(Stuck),
}

/// A run that stops in a loop it may never leave.
#[derive(Clone, Debug, PartialEq)]
pub struct Stuck {
    /// The loop's head label and its backward jump.
    pub label: String,
    pub span: Span,
    /// Positions (in the run's events) of the iterations repeated for ever.
    pub suffix: Range<usize>,
    /// The earlier iterations the suffix's last ones repeat, for a loop that stores (`None`
    /// for a spin loop).
    pub infix: Option<Range<usize>>,
}

/// The loop state of one partial run.
#[derive(Clone, Debug, Default)]
pub struct Loops {
    /// Per label position: how many events the run had, and its registers, when it last
    /// reached that label.
    arrivals: Vec<(usize, usize, Vec<Value>)>,
    /// Per backward jump position: iterations completed.
    counts: Vec<(usize, u32)>,
    /// Per backward jump position: its iterations so far, each one's events and the
    /// registers at its end.
    iterations: Vec<(usize, Vec<Iteration>)>,
}

/// One iteration of a loop: its events in the run, and the registers at its end.
type Iteration = (Range<usize>, Vec<Value>);

/// A backward jump: its code position, its label's, the label's name and where it is.
pub struct BackJump<'a> {
    pub at: usize,
    pub head: usize,
    pub label: &'a str,
    pub span: Span,
}

/// What taking a backward jump does to a run.
pub struct Back {
    /// The ways the run may stop here for ever (none if no iteration may repeat).
    pub stuck: Vec<Stuck>,
    /// The bound is reached: the run ends here.
    pub bound: bool,
}

impl Loops {
    /// The run reached the label at code position `at`.
    pub fn arrive(&mut self, at: usize, events: usize, regs: &[Value]) {
        match self.arrivals.iter_mut().find(|(p, ..)| *p == at) {
            Some(slot) => *slot = (at, events, regs.to_vec()),
            None => self.arrivals.push((at, events, regs.to_vec())),
        }
    }

    /// The backward jump `j` is taken by a run that has `events` and `regs`.
    pub fn back(&mut self, j: &BackJump<'_>, events: &[Event], regs: &[Value], bound: u32) -> Back {
        let (jump, head, label, span) = (j.at, j.head, j.label, j.span);
        let (start, at_start) = match self.arrivals.iter().find(|(p, ..)| *p == head) {
            Some((_, n, r)) => (*n, r.clone()),
            None => (0, regs.to_vec()),
        };
        let iteration = start..events.len();
        let mut history = self.iterations.iter().find(|(p, _)| *p == jump).map(|(_, h)| h.clone()).unwrap_or_default();
        history.push((iteration.clone(), regs.to_vec()));
        let stuck = self
            .repeatable(&history, events, regs, &at_start)
            .into_iter()
            .map(|(suffix, infix)| Stuck { label: label.to_string(), span, suffix, infix })
            .collect();
        match self.iterations.iter_mut().find(|(p, _)| *p == jump) {
            Some(slot) => slot.1 = history,
            None => self.iterations.push((jump, history)),
        }
        let count = match self.counts.iter_mut().find(|(p, _)| *p == jump) {
            Some((_, c)) => {
                *c += 1;
                *c
            }
            None => {
                self.counts.push((jump, 1));
                1
            }
        };
        Back { stuck, bound: count >= bound }
    }

    /// The decompositions of the run's last iterations (`history`, the current one last)
    /// into an infix and a suffix repeated for ever, as `(suffix, infix)` event ranges:
    /// a side-effect-free iteration that leaves the registers unchanged is a suffix on its
    /// own (no infix); for one that stores, `k` contiguous iterations (the infix) followed
    /// by `m + k` (the suffix) whose last `k` do what the infix's did (same events, same
    /// values) and end with the registers the infix ended with (Dartagnan's
    /// `NonTerminationEncoder`: every infix iteration has an equivalent suffix iteration,
    /// and the suffix may be longer, so one thread may loop several times per iteration
    /// of another's).
    fn repeatable(
        &self,
        history: &[(Range<usize>, Vec<Value>)],
        events: &[Event],
        regs: &[Value],
        at_start: &[Value],
    ) -> Vec<(Range<usize>, Option<Range<usize>>)> {
        let Some((current, _)) = history.last() else { return Vec::new() };
        let Some(body) = events.get(current.clone()) else { return Vec::new() };
        if !body.iter().any(Event::writes) {
            return if regs == at_start { vec![(current.clone(), None)] } else { Vec::new() };
        }
        let n = history.len();
        // The contiguous iterations that end with the current one.
        let mut first = n - 1;
        while first > 0 && history[first - 1].0.end == history[first].0.start {
            first -= 1;
        }
        let same = |a: &Range<usize>, b: &Range<usize>| {
            a.len() == b.len() && events[a.clone()].iter().zip(&events[b.clone()]).all(|(x, y)| x.kind == y.kind && x.span == y.span)
        };
        let mut out = Vec::new();
        for k in 1..=n {
            for m in 0..=n {
                let Some(infix_first) = n.checked_sub(2 * k + m).filter(|i| *i >= first) else { continue };
                let infix = &history[infix_first..infix_first + k];
                let tail = &history[n - k..];
                let matches = infix.iter().zip(tail).all(|((a, _), (b, _))| same(a, b)) && infix[k - 1].1 == tail[k - 1].1;
                if matches {
                    out.push((history[n - k - m].0.start..current.end, Some(infix[0].0.start..infix[k - 1].0.end)));
                }
            }
        }
        out
    }
}
