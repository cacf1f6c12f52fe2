//! What an instruction means to the race detector: the recogniser's readings
//! ([`crate::recover`]) folded into one interpretation per instruction.
//!
//! Where a target compiles several operations to the same code, the detector must pick one:
//! * an access with a plain reading is plain (a non-atomic access is the common case, and
//!   calling it atomic would hide races); its report says which atomics share its code;
//! * of atomic readings, the strongest order and the widest scope count (the code is the same,
//!   so the hardware cannot do less for one than for the other).

use crate::litmus::program::{Access, Order, Scope, Spaces};
use crate::lower::{Op, Target};
use crate::recover::{recover, Recovery, What};
use hipscope_sim::kernel::{CodeSlot, LoadedKernel};
use std::collections::HashMap;

/// An atomic access's synchronisation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Atomic {
    pub acquire: bool,
    pub release: bool,
    pub scope: Scope,
}

/// One instruction's meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interp {
    /// An access; `atomic: None` is a plain access. `shared`: other operations compile to the
    /// same code on this target (reports say so). `rmw`: a read-modify-write.
    Access {
        atomic: Option<Atomic>,
        shared: bool,
        rmw: bool,
    },
    Fence {
        acquire: bool,
        release: bool,
        scope: Scope,
        spaces: Spaces,
    },
}

/// Every tagged instruction of one kernel, by address.
pub struct KernelTags {
    pub name: String,
    pub target: Target,
    pub recovery: Recovery,
    by_pc: HashMap<u64, Interp>,
}

impl KernelTags {
    pub fn new(k: &LoadedKernel) -> KernelTags {
        let target = Target::of(k.processor, k.wave64, &k.descriptor);
        let code = k.code.iter().filter_map(|s| if let CodeSlot::Inst(e) = s { Some(&e.inst) } else { None });
        let recovery = recover(code, &target);
        let by_pc = recovery.ops.iter().filter_map(|r| interpret(r.what, &r.readings).map(|i| (r.pc, i))).collect();
        KernelTags { name: k.name.clone(), target, recovery, by_pc }
    }

    /// The meaning of the instruction at `pc` (`None`: an access the recogniser did not tag,
    /// read as plain, or no memory-model instruction).
    pub fn at(&self, pc: u64) -> Option<Interp> {
        self.by_pc.get(&pc).copied()
    }
}

fn widest(scopes: impl Iterator<Item = Scope>) -> Option<Scope> {
    scopes.max()
}

/// Fold readings into one interpretation (barriers are seen by the engine, not read here).
fn interpret(what: What, readings: &[Op]) -> Option<Interp> {
    match what {
        What::Barrier => None,
        What::Access { kind, .. } => {
            let rmw = matches!(kind, crate::recover::Kind::Rmw { .. });
            let accesses: Vec<Access> = readings
                .iter()
                .filter_map(|op| match op {
                    Op::Load { access, .. } | Op::Store { access, .. } | Op::Rmw { access, .. } => Some(*access),
                    _ => None,
                })
                .collect();
            let shared = accesses.len() > 1;
            if accesses.contains(&Access::Plain) {
                return Some(Interp::Access { atomic: None, shared, rmw });
            }
            let orders = || accesses.iter().filter_map(|a| if let Access::Atomic { order, .. } = a { Some(*order) } else { None });
            let scope = widest(accesses.iter().filter_map(|a| if let Access::Atomic { scope, .. } = a { Some(*scope) } else { None }))?;
            let atomic = Atomic { acquire: orders().any(Order::acquires), release: orders().any(Order::releases), scope };
            Some(Interp::Access { atomic: Some(atomic), shared, rmw })
        }
        What::Fence => {
            let mut acquire = false;
            let mut release = false;
            let mut scope = None;
            let mut spaces = Spaces { global: false, local: false };
            for op in readings {
                if let Op::Fence { order, scope: s, spaces: sp } = op {
                    acquire |= order.acquires();
                    release |= order.releases();
                    scope = scope.max(Some(*s));
                    spaces.global |= sp.global;
                    spaces.local |= sp.local;
                }
            }
            Some(Interp::Fence { acquire, release, scope: scope?, spaces })
        }
    }
}
