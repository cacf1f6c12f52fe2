//! The language layer: every candidate execution of a litmus test, judged under a scoped
//! memory model. Independent of the engine: this is what the program means, not what a GPU
//! does with it.

pub mod event;
pub mod execution;
pub mod hip;
pub mod hsa;
pub mod opencl;
pub mod progress;
pub mod ptx;
pub mod relation;
pub mod scoped;
mod search;
pub mod traces;
pub mod unroll;
pub mod vulkan;

#[cfg(test)]
mod tests;

use std::collections::BTreeSet;

pub use scoped::{Model, RaceKind};

use event::{Cell, Event};
use execution::Execution;
use scoped::Context;

use crate::litmus::{Litmus, Prop, Quantifier, Span, Term};

use hipscope_mm::Value;

/// One racing pair, as the first consistent execution that shows it has it.
#[derive(Clone, Debug)]
pub struct Race {
    pub kind: RaceKind,
    /// The two accesses (indices into `execution.events`), in event order.
    pub first: usize,
    pub second: usize,
    pub execution: Execution,
}

impl Race {
    pub fn events(&self) -> (&Event, &Event) {
        (&self.execution.events[self.first], &self.execution.events[self.second])
    }

    /// Two races are the same when the same pair of statements races the same way.
    fn key(&self) -> (RaceKind, u16, Span, u16, Span) {
        let (a, b) = self.events();
        (self.kind, a.thread, a.span, b.thread, b.span)
    }
}

/// What the language layer says of one test.
#[derive(Clone, Debug)]
pub struct Verdict {
    pub model: Model,
    /// Candidate executions enumerated.
    pub candidates: usize,
    /// Consistent executions (that pass the filter, if any).
    pub consistent: usize,
    /// Consistent executions whose final state satisfies the condition's proposition.
    pub positive: usize,
    /// Distinct final states over the consistent executions, as the condition sees them.
    pub states: usize,
    /// Does the test's condition hold (`None` when it has none)?
    pub holds: Option<bool>,
    pub races: Vec<Race>,
    /// A consistent execution satisfying the proposition, if one exists.
    pub witness: Option<Execution>,
    /// A loop some run wanted to iterate more often than the bound: the executions that
    /// need more iterations are not judged (the verdict holds up to the bound only).
    pub bound_reached: Option<BoundReached>,
}

/// Where the unrolling bound cut a run.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundReached {
    pub thread: u16,
    /// The loop head's label and the backward jump's position.
    pub label: String,
    pub span: Span,
    pub bound: u32,
}

impl Verdict {
    /// Is the outcome the condition describes reachable?
    pub fn reachable(&self) -> bool {
        self.positive > 0
    }

    pub fn race_free(&self) -> bool {
        self.races.is_empty()
    }
}

/// Why a test could not be judged.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CheckError {
    #[error(transparent)]
    TooLarge(#[from] traces::TooLarge),
    #[error(transparent)]
    TooManyEvents(#[from] execution::TooManyEvents),
}

/// Judges `test` under `model`.
pub fn check(test: &Litmus, model: Model) -> Result<Verdict, CheckError> {
    check_within(test, model, execution::MAX_CANDIDATES)
}

/// [`check`], refusing the test beyond `max_candidates` candidate executions (the fuzzer
/// judges each input within a small budget).
pub fn check_within(test: &Litmus, model: Model, max_candidates: usize) -> Result<Verdict, CheckError> {
    check_bounded(test, model, max_candidates, unroll::DEFAULT_BOUND)
}

/// [`check_within`], unrolling loops `bound` times.
pub fn check_bounded(test: &Litmus, model: Model, max_candidates: usize, bound: u32) -> Result<Verdict, CheckError> {
    let mut all = traces::runs_bounded(test, model != Model::Opencl, bound)?;
    all.chain_rmws = !matches!(model, Model::Ptx60 | Model::Ptx75);
    let (runs, bound_reached) = finished_runs(all, bound);
    let ctx = Context::new(test, model);
    let mut v = Verdict { model, candidates: 0, consistent: 0, positive: 0, states: 0, holds: None, races: Vec::new(), witness: None, bound_reached };
    let mut states = BTreeSet::new();
    let mut race_keys = BTreeSet::new();
    let mut all_satisfy = true;
    execution::for_each_within(&runs, max_candidates, |x| {
        v.candidates += 1;
        let Ok(derived) = ctx.judge(x) else { return };
        let fin = FinalState { test, runs: &runs, x };
        if test.filter.as_ref().is_some_and(|f| !fin.holds(f)) {
            return;
        }
        v.consistent += 1;
        states.insert(fin.snapshot());
        let satisfied = test.condition.as_ref().is_some_and(|c| fin.holds(&c.prop));
        all_satisfy &= satisfied;
        if satisfied {
            v.positive += 1;
            if v.witness.is_none() {
                v.witness = Some(x.clone());
            }
        }
        for (first, second, kind) in ctx.races(x, &derived) {
            let race = Race { kind, first, second, execution: x.clone() };
            if race_keys.insert(race.key()) {
                v.races.push(race);
            }
        }
    })?;
    v.states = states.len();
    v.holds = test.condition.as_ref().map(|c| match c.quantifier {
        Quantifier::Exists => v.positive > 0,
        Quantifier::NotExists => v.positive == 0,
        Quantifier::Forall => all_satisfy,
    });
    Ok(v)
}

/// The runs that reach their thread's end, and the first loop the bound cut.
fn finished_runs(mut runs: traces::Runs, bound: u32) -> (traces::Runs, Option<BoundReached>) {
    let mut reached = None;
    for (t, per) in runs.per_thread.iter_mut().enumerate() {
        for run in per.iter() {
            if let (None, unroll::RunEnd::Bound { label, span }) = (&reached, &run.end) {
                reached = Some(BoundReached { thread: t as u16, label: label.clone(), span: *span, bound });
            }
        }
        per.retain(|r| r.end == unroll::RunEnd::Exit);
    }
    (runs, reached)
}

/// The final state of one execution, for evaluating conditions.
struct FinalState<'a> {
    test: &'a Litmus,
    runs: &'a traces::Runs,
    x: &'a Execution,
}

impl FinalState<'_> {
    fn value(&self, term: &Term) -> Value {
        match term {
            Term::Const(v) => *v,
            Term::Reg { thread, reg } => {
                let t = *thread as usize;
                let run = self.x.run_of_thread.get(t).and_then(|r| self.runs.per_thread.get(t)?.get(*r));
                run.and_then(|r| r.regs.get(reg.0 as usize).copied()).unwrap_or(0)
            }
            Term::Loc { loc, workgroup } => {
                let cell = match workgroup {
                    Some(_) => Cell { loc: *loc, workgroup: *workgroup },
                    // A local location named without a work-group: the first work-group's copy.
                    None => self.x.final_memory.keys().find(|c| c.loc == *loc).copied().unwrap_or(Cell { loc: *loc, workgroup: None }),
                };
                self.x.final_memory.get(&cell).copied().unwrap_or_else(|| self.test.locations.get(loc.0 as usize).map_or(0, |l| l.init))
            }
        }
    }

    fn holds(&self, p: &Prop) -> bool {
        p.holds(&|t: &Term| self.value(t))
    }

    /// Every register and cell value, so distinct final states can be counted.
    fn snapshot(&self) -> Vec<Value> {
        let regs = self.x.run_of_thread.iter().enumerate().flat_map(|(t, r)| self.runs.per_thread[t][*r].regs.iter().copied());
        regs.chain(self.x.final_memory.values().copied()).collect()
    }
}
