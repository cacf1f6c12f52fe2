//! One typed litmus program, whatever dialect it was written in.
//!
//! Every parser (Dartagnan OpenCL/PTX/Vulkan, herd LISA, our HIP dialect) produces a
//! [`Litmus`]; the language model, the lowering to AMDGPU instructions and the reports read
//! only this. Its memory-model words (scope, order, access, space, RMW operation, value type)
//! are `hipscope_mm`'s: each parser maps its dialect's names onto them.

use hipscope_mm::lower::{stronger, Op, Rmw};
use hipscope_mm::{Access, Order, RmwOp, Scope, Space, Spaces, Value, ValueType};
use std::fmt;

/// Index of a shared location in [`Litmus::locations`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocId(pub u16);

/// Index of a thread-local register (a local variable in C-like dialects) in
/// [`Thread::regs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegId(pub u16);

/// Where in the source file a statement, thread or condition came from (1-based).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub line: u32,
    pub column: u32,
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// The dialect a test was written in; reports name it, and the default model follows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// Dartagnan's OpenCL C litmus format (`P0@wg 0, dev 0 (global int* x) { … }`).
    OpenCl,
    /// Dartagnan's PTX format (`P0@cta 0,gpu 0`, `st.release.cta`).
    Ptx,
    /// Dartagnan's Vulkan format (`P0@sg 0, wg 0, qf 0`, `st.atom.rel.dv.sc0`).
    Vulkan,
    /// herd's LISA with the HSA bell (`w[atomic,screl,wg] y 1`, `scopes: (agent (wg 0 1))`).
    Lisa,
    /// hipscope's HIP dialect (`__hip_atomic_store(&y, 1, __ATOMIC_RELEASE, …)`).
    Hip,
}

/// A litmus test: shared locations with initial values, threads, and a final condition.
#[derive(Clone, Debug, PartialEq)]
pub struct Litmus {
    /// The test's name (header line of the file).
    pub name: String,
    pub dialect: Dialect,
    pub locations: Vec<Location>,
    pub threads: Vec<Thread>,
    /// The final-state condition (`exists`, `~exists`, `forall`); `None` for tests that only
    /// ask about races (Dartagnan's `-DR` tests with a lone `filter`).
    pub condition: Option<Condition>,
    /// `filter (…)`: executions whose final state does not satisfy it are discarded before
    /// the condition is evaluated.
    pub filter: Option<Prop>,
    /// `locations [x; 0:r0]`: extra terms to list in the outcome table.
    pub observed: Vec<Term>,
    /// PTX proxies and Vulkan availability/visibility marks (empty for other dialects).
    pub marks: super::marks::GpuMarks,
}

/// A shared memory location.
#[derive(Clone, Debug, PartialEq)]
pub struct Location {
    pub name: String,
    pub space: Space,
    /// Already converted to `ty`.
    pub init: Value,
    /// The declared type (`int`, `unsigned`, `long`, `uint64_t`, `atomic_uint`, …); accesses
    /// read and write whole values of it.
    pub ty: ValueType,
    /// Declared with an atomic type (`atomic_int`, `cuda::atomic_ref`); plain accesses to an
    /// atomic location are still plain accesses.
    pub atomic_type: bool,
}

/// Binary operators of register expressions (dependencies, conditions of `if`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Logical `&&` / `||` on C truth values.
    LogicalAnd,
    LogicalOr,
}

/// A register expression, evaluated in one thread.
/// C's binary operators that [`BinOp`] has, by precedence, loosest first: the HIP and
/// OpenCL dialects both parse C expressions with it.
pub const C_BINARY_LEVELS: [&[(&str, BinOp)]; 9] = [
    &[("||", BinOp::LogicalOr)],
    &[("&&", BinOp::LogicalAnd)],
    &[("|", BinOp::Or)],
    &[("^", BinOp::Xor)],
    &[("&", BinOp::And)],
    &[("==", BinOp::Eq), ("!=", BinOp::Ne)],
    &[("<=", BinOp::Le), (">=", BinOp::Ge), ("<", BinOp::Lt), (">", BinOp::Gt)],
    &[("+", BinOp::Add), ("-", BinOp::Sub)],
    &[("*", BinOp::Mul)],
];

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Const(Value),
    Reg(RegId),
    Not(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
}

/// A shared location as an access names it: a location plus how many bytes are accessed
/// at which byte offset (mixed-size accesses overlap when their byte ranges do).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    pub loc: LocId,
    pub offset_bytes: u8,
    pub width_bytes: u8,
}

impl Target {
    /// The whole 4-byte location, as almost every litmus test accesses it.
    pub fn word(loc: LocId) -> Target {
        Target { loc, offset_bytes: 0, width_bytes: 4 }
    }

    /// The whole location of type `ty` (8 bytes for the 64-bit types).
    pub fn whole(loc: LocId, ty: ValueType) -> Target {
        Target { loc, offset_bytes: 0, width_bytes: ty.bytes() }
    }
}

/// One statement of a thread. Control flow is structured (`if`/`else`) where the source's
/// branches nest: parsers turn forward branches (`b r3 Exit1 … Exit1:`) into `If`. A thread
/// whose branches go backwards (spin loops) or cross keeps them as [`Stmt::Label`] and
/// [`Stmt::Goto`] at the top level of its body; the model unrolls its loops to a bound.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `reg = load(target)`.
    Load { reg: RegId, target: Target, access: Access, span: Span },
    /// `store(target, value)`.
    Store { target: Target, value: Expr, access: Access, span: Span },
    /// `old = fetch_<op>(target, operand)`; `old` is `None` when the result is unused.
    Rmw { old: Option<RegId>, target: Target, op: RmwOp, operand: Expr, access: Access, span: Span },
    /// Compare-and-swap: reads `old`; if it equals `expected`, writes `desired` (`success`
    /// order) — otherwise it is a load with the `failure` order. C's
    /// `compare_exchange(&x, &e, d)` sets `old: Some(e)` (the expected variable receives the
    /// value read) and `ok` to the boolean result; `atomicCAS` returns the old value only.
    Cas { old: Option<RegId>, ok: Option<RegId>, target: Target, expected: Expr, desired: Expr, success: Access, failure: Access, span: Span },
    /// A fence (`atomic_work_item_fence`, `__threadfence*`, `f[screl,wg]`, `fence.sc.cta`).
    Fence { order: Order, scope: Scope, spaces: Spaces, span: Span },
    /// A work-group barrier (`barrier(…)`, `__syncthreads()`): every thread of the
    /// work-group meets at it; it orders the named spaces at work-group scope. `id` names
    /// the barrier where the dialect does (`B1: barrier(…)`), so two threads meet only at
    /// the barrier with the same id; without ids they meet at their n-th barrier.
    Barrier { id: Option<String>, spaces: Spaces, span: Span },
    /// `reg = expr` (a local computation, no memory access).
    Assign { reg: RegId, value: Expr, span: Span },
    /// `if (cond) { then } else { otherwise }`.
    If { cond: Expr, then: Vec<Stmt>, otherwise: Vec<Stmt>, span: Span },
    /// `LC00:`: a branch target in a thread with unstructured control flow.
    Label { name: String, span: Span },
    /// `bne r0, 0, LC01` / `goto LC00`: jump to the label when `cond` is non-zero (`None`:
    /// always); only in threads with unstructured control flow, never inside an `If`.
    Goto { cond: Option<Expr>, label: String, span: Span },
}

/// Calls `f` with every statement of `body`, nested `if` bodies included (then before else),
/// and the statement's index path through them.
pub fn for_each_stmt(body: &[Stmt], f: &mut impl FnMut(&[usize], &Stmt)) {
    fn walk(body: &[Stmt], path: &mut Vec<usize>, f: &mut impl FnMut(&[usize], &Stmt)) {
        for (i, stmt) in body.iter().enumerate() {
            path.push(i);
            f(path, stmt);
            if let Stmt::If { then, otherwise, .. } = stmt {
                for (branch, body) in [then, otherwise].into_iter().enumerate() {
                    path.push(branch);
                    walk(body, path, f);
                    path.pop();
                }
            }
            path.pop();
        }
    }
    walk(body, &mut Vec::new(), f);
}

impl Stmt {
    /// The location and the accesses of a memory statement (a CAS has two: success and
    /// failure).
    pub fn accesses(&self) -> Option<(Target, [Option<Access>; 2])> {
        match self {
            Stmt::Load { target, access, .. } | Stmt::Store { target, access, .. } | Stmt::Rmw { target, access, .. } => Some((*target, [Some(*access), None])),
            Stmt::Cas { target, success, failure, .. } => Some((*target, [Some(*success), Some(*failure)])),
            _ => None,
        }
    }

    /// The memory operation the lowering reads for a memory statement (`None` for statements
    /// that are not one): the access with the space of its location.
    pub fn memory_op(&self, locations: &[Location]) -> Option<Op> {
        let space = |loc: LocId| locations.get(loc.0 as usize).map_or(Space::Global, |l| l.space);
        Some(match self {
            Stmt::Load { target, access, .. } => Op::Load { access: *access, space: space(target.loc) },
            Stmt::Store { target, access, .. } => Op::Store { access: *access, space: space(target.loc) },
            Stmt::Rmw { old, target, op, access, .. } => Op::Rmw { rmw: Rmw::Op(*op), access: *access, space: space(target.loc), returns: old.is_some() },
            Stmt::Cas { target, success, failure, .. } => {
                // The compare-and-swap always returns the old value (the success flag is computed
                // from it).
                Op::Rmw { rmw: Rmw::Cas, access: stronger(*success, *failure), space: space(target.loc), returns: true }
            }
            Stmt::Fence { order, scope, spaces, .. } => Op::Fence { order: *order, scope: *scope, spaces: *spaces },
            Stmt::Barrier { spaces, .. } => Op::Barrier { spaces: *spaces },
            _ => return None,
        })
    }

    pub fn span(&self) -> Span {
        match self {
            Stmt::Load { span, .. }
            | Stmt::Store { span, .. }
            | Stmt::Rmw { span, .. }
            | Stmt::Cas { span, .. }
            | Stmt::Fence { span, .. }
            | Stmt::Barrier { span, .. }
            | Stmt::Assign { span, .. }
            | Stmt::Label { span, .. }
            | Stmt::Goto { span, .. }
            | Stmt::If { span, .. } => *span,
        }
    }
}

/// The agent of a thread on the host CPU (`@ host` in the HIP dialect): an agent of its own,
/// apart from every GPU, so only system scope includes it and a GPU's threads.
pub const HOST_AGENT: u32 = u32::MAX;

/// Where a thread runs. Two threads share a scope instance when their coordinates agree
/// up to that level: same `wave` → same wavefront, same `workgroup` → same work-group,
/// same `agent` → same agent. Ids are global (work-group 1 of agent 0 and work-group 1 of
/// agent 1 are written as different numbers by the parser).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Placement {
    pub agent: u32,
    pub workgroup: u32,
    /// Wavefront id; threads given no wave run in waves of their own.
    pub wave: u32,
    /// On multi-die parts (MI300X), the XCD the work-group should run on when the test says
    /// so ("other XCD"); `None` lets the hardware layer choose.
    pub xcd: Option<u32>,
}

impl Placement {
    /// Does the instance of `scope` that contains `self` also contain `other`?
    pub fn shares(&self, other: &Placement, scope: Scope) -> bool {
        match scope {
            Scope::WorkItem => self == other,
            Scope::Wavefront => self.agent == other.agent && self.workgroup == other.workgroup && self.wave == other.wave,
            Scope::Workgroup => self.agent == other.agent && self.workgroup == other.workgroup,
            Scope::Agent => self.agent == other.agent,
            Scope::System => true,
        }
    }
}

/// One thread of the test.
#[derive(Clone, Debug, PartialEq)]
pub struct Thread {
    /// As written (`P0`, `T1`); conditions name threads by index (`0:r0`).
    pub name: String,
    pub placement: Placement,
    /// Register (local variable) names; `RegId(i)` is `regs[i]`.
    pub regs: Vec<String>,
    /// Declared types of the registers, by index; a register past its end (untyped dialects,
    /// registers only the condition names) is an `int`, herd's and Dartagnan's default.
    pub reg_types: Vec<ValueType>,
    /// Initial register values (`{ 1:r1=-1; }`); registers not listed start at 0.
    pub reg_init: Vec<(RegId, Value)>,
    pub body: Vec<Stmt>,
    pub span: Span,
    /// The thread's number in its work-group when the test gives one (the HIP dialect's
    /// `thread T`): which wave it is in depends on the GPU's wave size, so the hardware layer
    /// checks it against the test's waves.
    pub lane: Option<u32>,
}

/// What the condition says of the final states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantifier {
    /// `exists P`: some consistent execution ends in a state satisfying P.
    Exists,
    /// `~exists P`: none does.
    NotExists,
    /// `forall P`: every one does.
    Forall,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    pub quantifier: Quantifier,
    pub prop: Prop,
    pub span: Span,
}

/// A value in the final state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    /// `1:r0`: a register of thread 1.
    Reg {
        thread: u16,
        reg: RegId,
    },
    /// `x` / `[x]`: the final value of a location (for a `Local` location, its copy in
    /// work-group `workgroup`; `None` when the test has one work-group using it).
    Loc {
        loc: LocId,
        workgroup: Option<u32>,
    },
    Const(Value),
}

/// A proposition over the final state.
#[derive(Clone, Debug, PartialEq)]
pub enum Prop {
    True,
    False,
    /// `a = b` and the other comparisons.
    Cmp(Term, CmpOp, Term),
    Not(Box<Prop>),
    And(Box<Prop>, Box<Prop>),
    Or(Box<Prop>, Box<Prop>),
    Implies(Box<Prop>, Box<Prop>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Prop {
    /// Whether the proposition holds when each term has the value `value` gives it (the
    /// model's final states and the hardware runs' final states are judged by this one rule).
    pub fn holds(&self, value: &impl Fn(&Term) -> Value) -> bool {
        match self {
            Prop::True => true,
            Prop::False => false,
            Prop::Not(q) => !q.holds(value),
            Prop::And(a, b) => a.holds(value) && b.holds(value),
            Prop::Or(a, b) => a.holds(value) || b.holds(value),
            Prop::Implies(a, b) => !a.holds(value) || b.holds(value),
            Prop::Cmp(a, op, b) => {
                let (a, b) = (value(a), value(b));
                match op {
                    CmpOp::Eq => a == b,
                    CmpOp::Ne => a != b,
                    CmpOp::Lt => a < b,
                    CmpOp::Le => a <= b,
                    CmpOp::Gt => a > b,
                    CmpOp::Ge => a >= b,
                }
            }
        }
    }

    /// Call `f` on every term the proposition compares (constants too), left to right.
    pub fn for_each_term(&self, f: &mut impl FnMut(&Term)) {
        match self {
            Prop::True | Prop::False => {}
            Prop::Not(q) => q.for_each_term(f),
            Prop::And(a, b) | Prop::Or(a, b) | Prop::Implies(a, b) => {
                a.for_each_term(f);
                b.for_each_term(f);
            }
            Prop::Cmp(a, _, b) => {
                f(a);
                f(b);
            }
        }
    }
}

impl Thread {
    /// The declared type of register `reg` (`int` when the dialect declares none).
    pub fn reg_type(&self, reg: RegId) -> ValueType {
        self.reg_types.get(reg.0 as usize).copied().unwrap_or(ValueType::INT)
    }
}

impl Litmus {
    /// The declared type of a term's value: its register's or location's (`None` for a
    /// constant, or a name the test does not have).
    pub fn term_type(&self, term: &Term) -> Option<ValueType> {
        match term {
            Term::Reg { thread, reg } => self.threads.get(*thread as usize).map(|t| t.reg_type(*reg)),
            Term::Loc { loc, .. } => self.locations.get(loc.0 as usize).map(|l| l.ty),
            Term::Const(_) => None,
        }
    }

    /// The type of location `loc` (`int` for an id the test does not have).
    pub fn loc_type(&self, loc: LocId) -> ValueType {
        self.locations.get(loc.0 as usize).map_or(ValueType::INT, |l| l.ty)
    }

    /// The location named `name`, if any.
    pub fn location(&self, name: &str) -> Option<LocId> {
        self.locations.iter().position(|l| l.name == name).map(|i| LocId(i as u16))
    }
}
