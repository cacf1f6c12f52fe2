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
//! when repeating that iteration for ever is a possible future of the run. Dartagnan's
//! `NonTerminationEncoder` decomposes a non-terminating loop into a prefix, an infix and a
//! repeatable suffix: a side-effect-free iteration (no store) that leaves the thread's
//! registers as it found them is a suffix on its own (a spin loop); an iteration that
//! stores is a suffix only when it repeats an infix iteration before it (same events,
//! same values, same registers at its end). Which reads-from and coherence choices make
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
    /// Positions (in the run's events) of the iteration repeated for ever.
    pub suffix: Range<usize>,
    /// The earlier iteration it repeats, for a loop that stores (`None` for a spin loop).
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
    /// Per backward jump position: the last iteration's events and registers at its end.
    last: Vec<(usize, Range<usize>, Vec<Value>)>,
}

/// A backward jump: its code position, its label's, the label's name and where it is.
pub struct BackJump<'a> {
    pub at: usize,
    pub head: usize,
    pub label: &'a str,
    pub span: Span,
}

/// What taking a backward jump does to a run.
pub struct Back {
    /// A run that stops here for ever, if this iteration may repeat.
    pub stuck: Option<Stuck>,
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
        let stuck =
            self.repeatable(jump, &iteration, events, regs, &at_start).map(|infix| Stuck { label: label.to_string(), span, suffix: iteration.clone(), infix });
        match self.last.iter_mut().find(|(p, ..)| *p == jump) {
            Some(slot) => *slot = (jump, iteration, regs.to_vec()),
            None => self.last.push((jump, iteration, regs.to_vec())),
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

    /// `Some(None)`: a side-effect-free iteration that leaves the registers unchanged;
    /// `Some(Some(infix))`: an iteration that stores and repeats the one just before it.
    fn repeatable(&self, jump: usize, iteration: &Range<usize>, events: &[Event], regs: &[Value], at_start: &[Value]) -> Option<Option<Range<usize>>> {
        let body = events.get(iteration.clone())?;
        if !body.iter().any(Event::writes) {
            return (regs == at_start).then_some(None);
        }
        let (_, prev, regs_then) = self.last.iter().find(|(p, ..)| *p == jump)?;
        let before = events.get(prev.clone())?;
        let same = prev.end == iteration.start && before.len() == body.len() && before.iter().zip(body).all(|(a, b)| a.kind == b.kind && a.span == b.span);
        (same && regs_then.as_slice() == regs).then(|| Some(prev.clone()))
    }
}
