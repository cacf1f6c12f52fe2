//! Litmus threads on the host CPU (`@ host`): each runs on a modelled core of the node's host
//! ([`hipscope_sim::node::cpu`]), taking turns with the test's kernels on one timeline.
//!
//! A host thread's statements become the core's script one access at a time
//! ([`HostThread`], a [`Script`]): loads, stores, read-modify-writes and compare-and-swaps are
//! accesses to the test's locations, each costing the node's host memory latency; assignments
//! and `if` are worked out between accesses from the values the thread's loads returned, into
//! the thread's registers, which the outcome reads like a GPU thread's. A host access is at
//! system scope whatever the source says (the host is an agent of its own); its order needs
//! nothing done either: the core finishes each access in memory before it starts the next, so
//! program order is kept for every pair (a fence is therefore no operation of the script).
//!
//! The test's locations live in host memory every GPU of the node reaches (`hipHostMalloc`):
//! coherent by default (MTYPE UC on gfx942: no GPU cache keeps a copy), or non-coherent when
//! asked ([`HostAlloc::NonCoherent`], `hipHostMallocNonCoherent`: MTYPE NC, a GPU's L2 may keep
//! a copy until a system-scope acquire drops it).

use super::codegen::Unsupported;
use crate::litmus::arith::{self, apply};
use crate::litmus::{Expr, Litmus, RegId, Stmt, Target, Thread};
use hipscope_mm::{Space, Value, ValueType};
use hipscope_sim::node::cpu::{HostOp, Script, Step};

/// How the test's locations are allocated when a thread runs on the host.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum HostAlloc {
    /// `hipHostMalloc` with its default (coherent) flags: placement `host_pinned`.
    #[default]
    Coherent,
    /// `hipHostMallocNonCoherent`: placement `host_pinned_nc`.
    NonCoherent,
}

impl HostAlloc {
    /// The placement's name in reports (the scope suite's words).
    pub fn name(self) -> &'static str {
        match self {
            HostAlloc::Coherent => "host_pinned",
            HostAlloc::NonCoherent => "host_pinned_nc",
        }
    }
}

/// A host thread's statements with `if` turned into jumps.
#[derive(Debug, Clone)]
enum Code {
    Do(Stmt),
    /// Jump to the target when the expression is zero.
    JumpIfZero(Expr, usize),
    Jump(usize),
}

fn flatten(body: &[Stmt], out: &mut Vec<Code>) {
    for stmt in body {
        if let Stmt::If { cond, then, otherwise, .. } = stmt {
            let branch = out.len();
            out.push(Code::Jump(0));
            flatten(then, out);
            let skip_else = out.len();
            out.push(Code::Jump(0));
            out[branch] = Code::JumpIfZero(cond.clone(), out.len());
            flatten(otherwise, out);
            out[skip_else] = Code::Jump(out.len());
        } else {
            out.push(Code::Do(stmt.clone()));
        }
    }
}

/// Why `thread` (of `test`) cannot run on a modelled core, if it cannot.
pub fn refusal(test: &Litmus, thread: &Thread) -> Option<Unsupported> {
    let mut why = None;
    crate::litmus::for_each_stmt(&thread.body, &mut |_, stmt| {
        if why.is_some() {
            return;
        }
        why = match stmt {
            Stmt::Label { .. } | Stmt::Goto { .. } => Some("loops and branches that do not nest are judged by the model only".to_string()),
            Stmt::Barrier { .. } => Some("a work-group barrier on the host has no work-group to meet".to_string()),
            _ => stmt.accesses().and_then(|(target, _)| {
                let loc = test.locations.get(target.loc.0 as usize)?;
                if loc.space != Space::Global {
                    Some(format!("it accesses {}, which is not global memory", loc.name))
                } else if loc.ty.bytes() != 4 || target.width_bytes != 4 || target.offset_bytes != 0 {
                    Some(format!("it accesses {} other than as a whole 32-bit word (the modelled core reads and writes words)", loc.name))
                } else {
                    None
                }
            }),
        };
    });
    why.map(|w| Unsupported(format!("host thread {} cannot run on the modelled CPU core: {w}", thread.name)))
}

/// What the access in flight does with the value it reads.
#[derive(Debug, Clone, Copy)]
enum Pending {
    /// Nothing to keep (a store).
    None,
    /// `reg` receives the value read (a load, an RMW's old value).
    Into(Option<RegId>),
    /// A compare-and-swap: `old` receives the value read, `ok` whether it equalled `expected`.
    Cas { old: Option<RegId>, ok: Option<RegId>, expected: Value },
}

/// One host thread of a test as a core's script.
#[derive(Debug, Clone)]
pub struct HostThread {
    code: Vec<Code>,
    pc: usize,
    regs: Vec<Value>,
    reg_types: Vec<ValueType>,
    /// Each location's address and type.
    locations: Vec<(u64, ValueType)>,
    pending: Pending,
    /// The type of the location the access in flight reads.
    read_type: ValueType,
    /// The new value of the RMW in flight, from its old one (`None`: it writes nothing).
    rmw: Option<(RmwKind, ValueType)>,
}

#[derive(Debug, Clone, Copy)]
enum RmwKind {
    Op(hipscope_mm::RmwOp, Value),
    Cas { expected: Value, desired: Value },
}

impl HostThread {
    /// `thread` of `test` (already accepted by [`refusal`]) with location `k` at
    /// `addresses[k]`.
    pub fn new(test: &Litmus, thread: &Thread, addresses: &[u64]) -> HostThread {
        let mut code = Vec::new();
        flatten(&thread.body, &mut code);
        let reg_types: Vec<ValueType> = (0..thread.regs.len()).map(|r| thread.reg_type(RegId(r as u16))).collect();
        let mut regs = vec![0; thread.regs.len()];
        for (r, v) in &thread.reg_init {
            if let (Some(slot), Some(ty)) = (regs.get_mut(r.0 as usize), reg_types.get(r.0 as usize)) {
                *slot = ty.wrap(*v);
            }
        }
        let locations = test.locations.iter().zip(addresses).map(|(l, a)| (*a, l.ty)).collect();
        HostThread { code, pc: 0, regs, reg_types, locations, pending: Pending::None, read_type: ValueType::INT, rmw: None }
    }

    /// The registers' values (after the core ran the script: the thread's final values).
    pub fn registers(&self) -> &[Value] {
        &self.regs
    }

    fn reg_type(&self, r: RegId) -> ValueType {
        self.reg_types.get(r.0 as usize).copied().unwrap_or(ValueType::INT)
    }

    fn eval(&self, e: &Expr) -> Value {
        arith::eval(e, &self.regs, &|r| self.reg_type(r))
    }

    fn set(&mut self, reg: Option<RegId>, v: Value) {
        if let Some(r) = reg {
            let ty = self.reg_type(r);
            if let Some(slot) = self.regs.get_mut(r.0 as usize) {
                *slot = ty.wrap(v);
            }
        }
    }

    fn location(&self, t: &Target) -> (u64, ValueType) {
        self.locations.get(t.loc.0 as usize).copied().unwrap_or((0, ValueType::INT))
    }

    /// Lands the value the previous access read in the registers it names.
    fn land(&mut self, read: Option<&Step>) {
        let Some(step) = read else { return };
        let v = self.read_type.wrap(Value::from(step.value));
        match std::mem::replace(&mut self.pending, Pending::None) {
            Pending::None => {}
            Pending::Into(reg) => self.set(reg, v),
            Pending::Cas { old, ok, expected } => {
                self.set(old, v);
                self.set(ok, Value::from(v == expected));
            }
        }
    }

    /// Runs the statements up to the next access: the access, or `None` at the end.
    fn next_access(&mut self) -> Option<HostOp> {
        while let Some(code) = self.code.get(self.pc).cloned() {
            self.pc += 1;
            let stmt = match code {
                Code::Jump(to) => {
                    self.pc = to;
                    continue;
                }
                Code::JumpIfZero(cond, to) => {
                    if self.eval(&cond) == 0 {
                        self.pc = to;
                    }
                    continue;
                }
                Code::Do(stmt) => stmt,
            };
            if let Some(op) = self.access(&stmt) {
                return Some(op);
            }
        }
        None
    }

    /// The access `stmt` makes (`None` for a statement that makes none, done here).
    fn access(&mut self, stmt: &Stmt) -> Option<HostOp> {
        match stmt {
            Stmt::Assign { reg, value, .. } => {
                let v = self.eval(value);
                self.set(Some(*reg), v);
                None
            }
            Stmt::Load { reg, target, .. } => {
                let (address, ty) = self.location(target);
                (self.pending, self.read_type) = (Pending::Into(Some(*reg)), ty);
                Some(HostOp::Load { address })
            }
            Stmt::Store { target, value, .. } => {
                let (address, ty) = self.location(target);
                Some(HostOp::Store { address, value: ty.wrap(self.eval(value)) as u32 })
            }
            Stmt::Rmw { old, target, op, operand, .. } => {
                let (address, ty) = self.location(target);
                (self.pending, self.read_type) = (Pending::Into(*old), ty);
                self.rmw = Some((RmwKind::Op(*op, self.eval(operand)), ty));
                Some(HostOp::Rmw { address })
            }
            Stmt::Cas { old, ok, target, expected, desired, .. } => {
                let (address, ty) = self.location(target);
                let (expected, desired) = (ty.wrap(self.eval(expected)), ty.wrap(self.eval(desired)));
                (self.pending, self.read_type) = (Pending::Cas { old: *old, ok: *ok, expected }, ty);
                self.rmw = Some((RmwKind::Cas { expected, desired }, ty));
                Some(HostOp::Rmw { address })
            }
            // Fences: nothing left to order (the module's doc); the rest are refused before a
            // run ([`refusal`]) or are not statements of a flattened body.
            _ => None,
        }
    }
}

impl Script for HostThread {
    fn op(&mut self, _: usize, log: &[Step]) -> Option<HostOp> {
        self.land(log.last());
        self.rmw = None;
        self.next_access()
    }

    fn modify(&mut self, _: usize, old: u32) -> Option<u32> {
        let (kind, ty) = self.rmw?;
        let old = ty.wrap(Value::from(old));
        let new = match kind {
            RmwKind::Op(op, operand) => apply(op, ty, old, operand),
            RmwKind::Cas { expected, desired } => (old == expected).then_some(desired)?,
        };
        Some(new as u32)
    }
}
