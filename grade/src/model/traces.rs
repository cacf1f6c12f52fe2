//! Every way one thread can run, for every value its loads might return.
//!
//! A thread's run depends only on the values it reads, so each thread is run on its own:
//! at each load the run forks once per value the location could hold. Which values those
//! are depends on what the other threads write, which in turn depends on what they read;
//! the value sets are grown from the initial values until nothing new is written (a small
//! fixpoint: litmus tests write constants and a few sums). Which write each read actually
//! reads from is decided later, when the threads' runs are combined into executions.

use std::collections::{BTreeMap, BTreeSet};

use super::event::{Cell, Event, Kind};
use super::relation::MAX_EVENTS;
use super::unroll::{BackJump, Loops, RunEnd, DEFAULT_BOUND};
use crate::litmus::arith::{self, apply};
use crate::litmus::{Expr, Litmus, RegId, Span, Stmt, Target, Term, Thread};
use hipscope_mm::{Space, Value, ValueType};

/// Most runs a single thread may have; beyond it the test is too large to enumerate.
const MAX_RUNS_PER_THREAD: usize = 4096;
/// Most distinct values one cell may hold before the value sets are said not to settle.
const MAX_VALUES_PER_CELL: usize = 64;
/// States a thread's enumeration may hold waiting at once (the forks not yet followed).
/// Depth-first, they number at most the loads of a run (128 events) times the values a load
/// may read (64): the cap is reached only by a test the other limits already refuse.
const MAX_PENDING_STATES: usize = 16 * 1024;
/// Bytes the finished runs of all threads may hold in all (their events and registers):
/// every round of the value fixpoint keeps them all, and each thread may have
/// [`MAX_RUNS_PER_THREAD`] runs of up to 128 events.
const MAX_RUNS_BYTES: usize = 256 * 1024 * 1024;
/// Rounds of the value fixpoint beyond which the test is refused. Each round adds the
/// values computable from one more write; a value in an execution without dependency
/// cycles (the model rejects cycles of `dep ∪ rf`) comes from a chain of distinct write
/// events, so `writes + 1` rounds find every value that matters.
const MAX_ROUNDS: usize = 64;

/// One run of one thread: its events in program order and its final registers.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub events: Vec<Event>,
    pub regs: Vec<Value>,
    /// Whether the thread ran to its end, hit the loop bound, or may loop for ever.
    pub end: RunEnd,
}

/// The runs of every thread, and the cells with their initial values.
#[derive(Clone, Debug)]
pub struct Runs {
    pub per_thread: Vec<Vec<Run>>,
    pub cells: Vec<(Cell, Value)>,
    /// Whether the model makes every read-modify-write atomic against every write of its
    /// location, so that enumeration may chain each one right after the write it reads. PTX
    /// does not: atomicity holds only against morally strong writes (PTX ISA, "Memory
    /// Consistency Model", *Atomicity*), so a weak write or one of a scope that does not
    /// include both may come between.
    pub chain_rmws: bool,
}

/// Why a test cannot be enumerated.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TooLarge {
    #[error("thread {thread} has more than {MAX_RUNS_PER_THREAD} runs over the values its loads may read")]
    Runs { thread: String },
    #[error("the values written to `{location}` do not settle (more than {MAX_VALUES_PER_CELL} of them)")]
    Values { location: String },
    /// A run longer than an execution may be: refused while the run is enumerated, before
    /// the forks of a long thread exhaust memory.
    #[error("a run of thread {thread} has more than {MAX_EVENTS} events; an execution holds at most {MAX_EVENTS}")]
    Events { thread: String },
    #[error("the runs of the threads take more than {} MiB; the test is too large to enumerate", MAX_RUNS_BYTES / (1024 * 1024))]
    Memory,
}

/// Enumerates every run of every thread of `test`. With `local_per_workgroup`, each
/// work-group has its own copy of a local location (as OpenCL specifies and the LDS
/// behaves); without it a local location is one object shared by all threads, as
/// Dartagnan, whose verdicts the OpenCL model reproduces, treats it.
pub fn runs(test: &Litmus, local_per_workgroup: bool) -> Result<Runs, TooLarge> {
    runs_bounded(test, local_per_workgroup, DEFAULT_BOUND)
}

/// [`runs`], unrolling each loop at most `bound` times. The runs that end otherwise than at
/// the thread's end ([`RunEnd`]) are kept: the caller picks the ones it judges.
pub fn runs_bounded(test: &Litmus, local_per_workgroup: bool, bound: u32) -> Result<Runs, TooLarge> {
    let cells = cells(test, local_per_workgroup);
    // The condition's constants are candidate values too: a model without a thin-air axiom
    // (OpenCL) allows a value that justifies itself through a cycle of reads, and the
    // constants the condition asks about are the ones whose reachability matters. Models
    // with the axiom reject such cycles, so the extra candidates cost them nothing.
    let asked = condition_constants(test);
    let mut domain: BTreeMap<Cell, BTreeSet<Value>> = cells
        .iter()
        .map(|(c, v)| {
            // A cell holds values of its location's type only.
            let ty = test.loc_type(c.loc);
            (*c, std::iter::once(*v).chain(asked.iter().map(|a| ty.wrap(*a))).collect())
        })
        .collect();
    let rounds = write_statements(&test.threads).saturating_add(1).min(MAX_ROUNDS);
    // The condition's constants alone may give a cell more values than the growth below
    // would ever be allowed, and each value is a fork at every load of the cell.
    if let Some((cell, _)) = domain.iter().find(|(_, vs)| vs.len() > MAX_VALUES_PER_CELL) {
        return Err(TooLarge::Values { location: location_name(test, *cell) });
    }
    let mut per_thread = all_runs(test, &domain, local_per_workgroup, bound)?;
    for _ in 0..rounds {
        let mut grown = domain.clone();
        for ev in per_thread.iter().flatten().flat_map(|r| &r.events) {
            if let (Some(cell), Some(v)) = (ev.cell(), ev.value_written()) {
                grown.entry(cell).or_default().insert(v);
            }
        }
        if let Some((cell, _)) = grown.iter().find(|(_, vs)| vs.len() > MAX_VALUES_PER_CELL) {
            return Err(TooLarge::Values { location: location_name(test, *cell) });
        }
        if grown == domain {
            break;
        }
        domain = grown;
        per_thread = all_runs(test, &domain, local_per_workgroup, bound)?;
    }
    Ok(Runs { per_thread, cells, chain_rmws: true })
}

fn location_name(test: &Litmus, cell: Cell) -> String {
    test.locations.get(cell.loc.0 as usize).map_or_else(|| format!("#{}", cell.loc.0), |l| l.name.clone())
}

/// The integer constants of the filter and the condition.
fn condition_constants(test: &Litmus) -> BTreeSet<Value> {
    let mut out = BTreeSet::new();
    for p in test.condition.iter().map(|c| &c.prop).chain(test.filter.iter()) {
        p.for_each_term(&mut |t| {
            if let Term::Const(v) = t {
                out.insert(*v);
            }
        });
    }
    out
}

/// Statements that write memory, over every thread and branch.
fn write_statements(threads: &[Thread]) -> usize {
    fn count(body: &[Stmt]) -> usize {
        body.iter()
            .map(|s| match s {
                Stmt::Store { .. } | Stmt::Rmw { .. } | Stmt::Cas { .. } => 1,
                Stmt::If { then, otherwise, .. } => count(then) + count(otherwise),
                _ => 0,
            })
            .sum()
    }
    threads.iter().map(|t| count(&t.body)).sum()
}

/// Every cell some thread can touch, with its initial value: one per global location and,
/// for local locations, one per work-group.
fn cells(test: &Litmus, local_per_workgroup: bool) -> Vec<(Cell, Value)> {
    let mut set = BTreeSet::new();
    for (i, loc) in test.locations.iter().enumerate() {
        let loc_id = crate::litmus::LocId(i as u16);
        match loc.space {
            Space::Global | Space::Generic => {
                set.insert((Cell { loc: loc_id, workgroup: None }, loc.init));
            }
            Space::Local if !local_per_workgroup => {
                set.insert((Cell { loc: loc_id, workgroup: None }, loc.init));
            }
            Space::Local => {
                for t in &test.threads {
                    set.insert((Cell { loc: loc_id, workgroup: Some(t.placement.workgroup) }, loc.init));
                }
            }
        }
    }
    set.into_iter().collect()
}

/// The cell a thread's access names.
pub fn cell_of(test: &Litmus, thread: &Thread, target: Target, local_per_workgroup: bool) -> Cell {
    let local = local_per_workgroup && test.locations.get(target.loc.0 as usize).is_some_and(|l| l.space == Space::Local);
    Cell { loc: target.loc, workgroup: local.then_some(thread.placement.workgroup) }
}

fn all_runs(test: &Litmus, domain: &BTreeMap<Cell, BTreeSet<Value>>, per_wg: bool, bound: u32) -> Result<Vec<Vec<Run>>, TooLarge> {
    let mut budget = MAX_RUNS_BYTES;
    let space = Enumeration { domain, per_wg, bound };
    test.threads.iter().enumerate().map(|(i, t)| thread_runs(test, i as u16, t, &space, &mut budget)).collect()
}

/// Bytes a finished run holds.
fn run_bytes(run: &Run) -> usize {
    std::mem::size_of::<Run>() + run.events.len() * std::mem::size_of::<Event>() + run.regs.len() * std::mem::size_of::<Value>()
}

/// A thread's statements flattened into code with jumps.
enum Op<'a> {
    Do(&'a Stmt),
    /// Jump to the target when the expression is zero.
    JumpIfZero(&'a Expr, usize),
    Jump(usize),
    /// A label of a thread with unstructured control flow (a loop head, maybe).
    Label,
    /// A `goto` (taken when the condition is non-zero or absent), resolved to its label's
    /// position; `usize::MAX` until resolved.
    Goto(&'a Stmt, usize),
}

/// `body` flattened, with every `goto` resolved to its label's position (the parser has
/// checked that each label exists).
fn flatten_thread(body: &[Stmt]) -> Vec<Op<'_>> {
    let mut out = Vec::new();
    flatten(body, &mut out);
    let labels: Vec<(&str, usize)> = body
        .iter()
        .filter_map(|s| if let Stmt::Label { name, .. } = s { Some(name.as_str()) } else { None })
        .zip(out.iter().enumerate().filter(|(_, op)| matches!(op, Op::Label)).map(|(i, _)| i))
        .collect();
    for op in &mut out {
        if let Op::Goto(Stmt::Goto { label, .. }, to) = op {
            *to = labels.iter().find(|(n, _)| n == label).map_or(usize::MAX, |(_, at)| *at);
        }
    }
    out
}

fn flatten<'a>(body: &'a [Stmt], out: &mut Vec<Op<'a>>) {
    for stmt in body {
        if let Stmt::Label { .. } = stmt {
            out.push(Op::Label);
            continue;
        }
        if let Stmt::Goto { .. } = stmt {
            out.push(Op::Goto(stmt, usize::MAX));
            continue;
        }
        if let Stmt::If { cond, then, otherwise, .. } = stmt {
            let branch = out.len();
            out.push(Op::Jump(0));
            flatten(then, out);
            let skip_else = out.len();
            out.push(Op::Jump(0));
            out[branch] = Op::JumpIfZero(cond, out.len());
            flatten(otherwise, out);
            out[skip_else] = Op::Jump(out.len());
        } else {
            out.push(Op::Do(stmt));
        }
    }
}

/// A partial run: where it is and what it has done so far.
#[derive(Clone)]
struct State {
    pc: usize,
    regs: Vec<Value>,
    /// Per register: the loads (positions in `events`) its value was computed from.
    taint: Vec<u64>,
    /// The loads some branch taken so far depended on.
    control: u64,
    events: Vec<Event>,
    barriers: usize,
    loops: Loops,
    /// Set when the run ends before the thread's end (bound reached, or stuck in a loop).
    ended: Option<RunEnd>,
}

impl State {
    fn taint_of(&self, expr: &Expr) -> u64 {
        match expr {
            Expr::Const(_) => 0,
            Expr::Reg(r) => self.taint.get(r.0 as usize).copied().unwrap_or(0),
            Expr::Not(e) => self.taint_of(e),
            Expr::Bin(_, a, b) => self.taint_of(a) | self.taint_of(b),
        }
    }

    fn set(&mut self, reg: RegId, value: Value, taint: u64) {
        set(&mut self.regs, reg, value);
        if let Some(slot) = self.taint.get_mut(reg.0 as usize) {
            *slot = taint;
        }
    }

    /// The bit of the event about to be pushed (runs longer than 64 events share the last).
    fn next_bit(&self) -> u64 {
        1 << self.events.len().min(63)
    }
}

/// Every run of one thread; `budget` is what the runs of all threads may still take (bytes).
/// What the runs of a thread are enumerated over: the values each cell may hold, whether
/// local memory is per work-group, and the loop bound.
struct Enumeration<'a> {
    domain: &'a BTreeMap<Cell, BTreeSet<Value>>,
    per_wg: bool,
    bound: u32,
}

fn thread_runs(test: &Litmus, index: u16, thread: &Thread, space: &Enumeration<'_>, budget: &mut usize) -> Result<Vec<Run>, TooLarge> {
    let code = flatten_thread(&thread.body);
    let mut regs = vec![0; thread.regs.len()];
    for (r, v) in &thread.reg_init {
        if let Some(slot) = regs.get_mut(r.0 as usize) {
            *slot = thread.reg_type(*r).wrap(*v);
        }
    }
    let ctx = Ctx { test, index, thread, domain: space.domain, code: &code, per_wg: space.per_wg, bound: space.bound };
    let mut done = Vec::new();
    let taint = vec![0; regs.len()];
    let mut pending = vec![State { pc: 0, regs, taint, control: 0, events: Vec::new(), barriers: 0, loops: Loops::default(), ended: None }];
    while let Some(state) = pending.pop() {
        // A run longer than an execution can hold is refused as soon as it gets there: the
        // forks of a long run would otherwise fill memory before any limit is looked at.
        if state.events.len() > MAX_EVENTS {
            return Err(TooLarge::Events { thread: thread.name.clone() });
        }
        if state.pc >= code.len() || state.ended.is_some() {
            let run = Run { events: state.events, regs: state.regs, end: state.ended.unwrap_or(RunEnd::Exit) };
            *budget = budget.checked_sub(run_bytes(&run)).ok_or(TooLarge::Memory)?;
            done.push(run);
            if done.len() > MAX_RUNS_PER_THREAD {
                return Err(TooLarge::Runs { thread: thread.name.clone() });
            }
            continue;
        }
        ctx.step(state, &mut pending);
        if pending.len() > MAX_PENDING_STATES {
            return Err(TooLarge::Runs { thread: thread.name.clone() });
        }
    }
    // Depth-first from a stack visits later forks first; put runs in the order of the values read.
    done.reverse();
    Ok(done)
}

struct Ctx<'a> {
    test: &'a Litmus,
    index: u16,
    thread: &'a Thread,
    domain: &'a BTreeMap<Cell, BTreeSet<Value>>,
    code: &'a [Op<'a>],
    per_wg: bool,
    bound: u32,
}

impl Ctx<'_> {
    /// Executes one op of `s`, pushing the successor states (several at a load).
    fn step(&self, mut s: State, out: &mut Vec<State>) {
        match &self.code[s.pc] {
            Op::Jump(to) => s.pc = *to,
            Op::JumpIfZero(cond, to) => {
                s.control |= s.taint_of(cond);
                s.pc = if self.eval(cond, &s.regs) == 0 { *to } else { s.pc + 1 };
            }
            Op::Do(stmt) => return self.execute(stmt, s, out),
            Op::Label => {
                s.loops.arrive(s.pc, s.events.len(), &s.regs);
                s.pc += 1;
            }
            Op::Goto(stmt, to) => return self.goto(stmt, *to, s, out),
        }
        out.push(s);
    }

    /// A `goto` at `s.pc` to the label at `to`: a backward one taken ends an iteration of
    /// its loop ([`Loops::back`]).
    fn goto(&self, stmt: &Stmt, to: usize, mut s: State, out: &mut Vec<State>) {
        let Stmt::Goto { cond, label, span } = stmt else { return };
        if let Some(c) = cond {
            s.control |= s.taint_of(c);
            if self.eval(c, &s.regs) == 0 {
                s.pc += 1;
                out.push(s);
                return;
            }
        }
        if to > s.pc {
            s.pc = to;
            out.push(s);
            return;
        }
        let jump = BackJump { at: s.pc, head: to, label, span: *span };
        let back = s.loops.back(&jump, &s.events, &s.regs, self.bound);
        for stuck in back.stuck {
            let mut forever = s.clone();
            forever.ended = Some(RunEnd::Stuck(stuck));
            out.push(forever);
        }
        if back.bound {
            s.ended = Some(RunEnd::Bound { label: label.clone(), span: *span });
        } else {
            s.pc = to;
        }
        out.push(s);
    }

    fn cell(&self, target: Target) -> Cell {
        cell_of(self.test, self.thread, target, self.per_wg)
    }

    fn values(&self, cell: Cell) -> impl DoubleEndedIterator<Item = Value> + '_ {
        self.domain.get(&cell).into_iter().flatten().copied()
    }

    fn event(&self, kind: Kind, span: Span, deps: u64) -> Event {
        Event { thread: self.index, kind, span, deps }
    }

    /// `expr` over the registers, a value of its C type ([`arith::type_of`]).
    fn eval(&self, expr: &Expr, regs: &[Value]) -> Value {
        arith::eval(expr, regs, &|r| self.thread.reg_type(r))
    }

    /// `expr` converted to the type of register `reg` or of the location `target` names
    /// (an assignment, a store or an operand converts its value as C does).
    fn eval_as(&self, ty: ValueType, expr: &Expr, regs: &[Value]) -> Value {
        ty.wrap(self.eval(expr, regs))
    }

    fn loc_type(&self, target: Target) -> ValueType {
        self.test.loc_type(target.loc)
    }

    fn execute(&self, stmt: &Stmt, mut s: State, out: &mut Vec<State>) {
        s.pc += 1;
        match stmt {
            Stmt::Assign { reg, value, .. } => {
                let (v, taint) = (self.eval_as(self.thread.reg_type(*reg), value, &s.regs), s.taint_of(value));
                s.set(*reg, v, taint);
                out.push(s);
            }
            Stmt::Store { target, value, access, span } => {
                let cell = self.cell(*target);
                let deps = s.taint_of(value) | s.control;
                let value = self.eval_as(self.loc_type(*target), value, &s.regs);
                s.events.push(self.event(Kind::Write { cell, bytes: bytes(target), access: *access, value }, *span, deps));
                out.push(s);
            }
            Stmt::Fence { order, scope, spaces, span } => {
                s.events.push(self.event(Kind::Fence { order: *order, scope: *scope, spaces: *spaces }, *span, s.control));
                out.push(s);
            }
            Stmt::Barrier { id, spaces, span } => {
                let mut key = id.clone().unwrap_or_else(|| format!("#{}", s.barriers));
                // A PTX/Vulkan barrier whose id a register holds meets at the register's value.
                if let Some(reg) = self.test.marks.get(self.index, *span).barrier_register {
                    key = s.regs.get(usize::from(reg)).copied().unwrap_or(0).to_string();
                }
                s.barriers += 1;
                s.events.push(self.event(Kind::Barrier { key, spaces: *spaces }, *span, s.control));
                out.push(s);
            }
            Stmt::Load { reg, target, access, span } => self.fork_reads(s, *target, out, |ctx, s, v| {
                let bit = s.next_bit();
                s.set(*reg, ctx.thread.reg_type(*reg).wrap(v), bit);
                let cell = ctx.cell(*target);
                s.events.push(ctx.event(Kind::Read { cell, bytes: bytes(target), access: *access, value: v }, *span, s.control));
            }),
            Stmt::Rmw { old, target, op, operand, access, span } => self.fork_reads(s, *target, out, |ctx, s, v| {
                let written = apply(*op, ctx.loc_type(*target), v, ctx.eval(operand, &s.regs));
                let deps = s.taint_of(operand) | s.control;
                let bit = s.next_bit();
                if let Some(r) = old {
                    s.set(*r, ctx.thread.reg_type(*r).wrap(v), bit);
                }
                let cell = ctx.cell(*target);
                s.events.push(ctx.event(Kind::Rmw { cell, bytes: bytes(target), access: *access, read: v, written }, *span, deps));
            }),
            Stmt::Cas { old, ok, target, expected, desired, success, failure, span } => self.fork_reads(s, *target, out, |ctx, s, v| {
                let ty = ctx.loc_type(*target);
                let (want, new) = (ctx.eval_as(ty, expected, &s.regs), ctx.eval_as(ty, desired, &s.regs));
                let deps = s.taint_of(expected) | s.taint_of(desired) | s.control;
                let bit = s.next_bit();
                let cell = ctx.cell(*target);
                let kind = if v == want {
                    Kind::Rmw { cell, bytes: bytes(target), access: *success, read: v, written: new }
                } else {
                    Kind::Read { cell, bytes: bytes(target), access: *failure, value: v }
                };
                for (r, value) in [(old, v), (ok, Value::from(v == want))] {
                    if let Some(r) = r {
                        s.set(*r, ctx.thread.reg_type(*r).wrap(value), bit);
                    }
                }
                s.events.push(ctx.event(kind, *span, deps));
            }),
            Stmt::If { .. } | Stmt::Label { .. } | Stmt::Goto { .. } => unreachable!("flatten removes every If, Label and Goto"),
        }
    }

    /// Forks `s` once per value the target's cell may hold, applying `read` to each copy.
    fn fork_reads(&self, s: State, target: Target, out: &mut Vec<State>, read: impl Fn(&Self, &mut State, Value)) {
        let cell = self.cell(target);
        // Pushed in reverse so the stack pops the smallest value first.
        for v in self.values(cell).rev() {
            let mut next = s.clone();
            read(self, &mut next, v);
            out.push(next);
        }
    }
}

fn bytes(target: &Target) -> (u8, u8) {
    (target.offset_bytes, target.width_bytes)
}

fn set(regs: &mut [Value], reg: RegId, v: Value) {
    if let Some(slot) = regs.get_mut(reg.0 as usize) {
        *slot = v;
    }
}
