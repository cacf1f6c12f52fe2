//! Every memory operation's lowering on one target, split the way the recogniser reads code:
//! the maintenance and waits before the access (the release side), the access's cache bits,
//! the waits and maintenance after it (the acquire side). Built from [`crate::lower::lower`],
//! so the recogniser is the lowering run backwards and the two cannot disagree.

use super::pieces::{coherence_bits, Kind, Where};
use crate::lower::{lower, Line, Op, Rmw, Target};
use crate::vocab::{Access, Order, RmwOp, Scope, Space, Spaces};
use crate::wait::Wait;
use hipscope_isa::decode::CachePolicy;
use hipscope_isa::tables::{flags, flags_of};

/// A cache-maintenance instruction: mnemonic and cache bits as encoded.
pub type Maint = (String, u32);

/// One operation's lowering, taken apart.
#[derive(Clone, Debug)]
pub struct Shape {
    pub op: Op,
    /// For accesses: kind, place and coherence bits of the access instruction.
    pub access: Option<(Kind, Where, u32)>,
    pub pre_maint: Vec<Maint>,
    pub pre_wait: Wait,
    pub post_wait: Wait,
    pub post_maint: Vec<Maint>,
}

/// Scopes that can differ in code (work-item scope compiles as wavefront scope everywhere).
pub const SCOPES: [Scope; 4] = [Scope::Wavefront, Scope::Workgroup, Scope::Agent, Scope::System];
const SPACE_SETS: [Spaces; 3] = [Spaces::ALL, Spaces::GLOBAL, Spaces::LOCAL];

fn atomic(order: Order, scope: Scope) -> Access {
    Access::Atomic { order, scope }
}

/// Every operation the lowering knows, once per form that can compile differently. The RMW's
/// arithmetic only picks the mnemonic (lower/README.md), so one stands for all.
pub fn all_ops() -> Vec<Op> {
    let mut ops = Vec::new();
    for space in [Space::Global, Space::Local] {
        ops.push(Op::Load { access: Access::Plain, space });
        ops.push(Op::Store { access: Access::Plain, space });
        for scope in SCOPES {
            for order in [Order::Relaxed, Order::Acquire, Order::SeqCst] {
                ops.push(Op::Load { access: atomic(order, scope), space });
            }
            for order in [Order::Relaxed, Order::Release, Order::SeqCst] {
                ops.push(Op::Store { access: atomic(order, scope), space });
            }
            for order in [Order::Relaxed, Order::Acquire, Order::Release, Order::AcqRel, Order::SeqCst] {
                for returns in [true, false] {
                    ops.push(Op::Rmw { rmw: Rmw::Op(RmwOp::Add), access: atomic(order, scope), space, returns });
                }
            }
        }
    }
    for scope in SCOPES {
        for order in [Order::Acquire, Order::Release, Order::AcqRel, Order::SeqCst] {
            for spaces in SPACE_SETS {
                ops.push(Op::Fence { order, scope, spaces });
            }
        }
    }
    for spaces in SPACE_SETS {
        ops.push(Op::Barrier { spaces });
    }
    ops
}

fn is_barrier(mnemonic: &str) -> bool {
    flags_of(mnemonic) & flags::WG_BARRIER != 0
}

/// Take `op`'s lowering on `target` apart.
pub fn shape(op: Op, target: &Target) -> Shape {
    let family = target.family();
    let access_kind = match op {
        Op::Load { space, .. } => Some((Kind::Load, space)),
        Op::Store { space, .. } => Some((Kind::Store, space)),
        Op::Rmw { space, returns, .. } => Some((Kind::Rmw { returns }, space)),
        Op::Fence { .. } | Op::Barrier { .. } => None,
    };
    let mut s = Shape { op, access: None, pre_maint: Vec::new(), pre_wait: Wait::default(), post_wait: Wait::default(), post_maint: Vec::new() };
    // A fence has no access to split at: all of it is "before".
    let mut after = false;
    for line in lower(&op, target) {
        match line {
            Line::Wait(w) => if after { &mut s.post_wait } else { &mut s.pre_wait }.merge(&w),
            Line::Inst { mnemonic, cpol, .. } => {
                let anchor = match (access_kind, op) {
                    (Some(_), _) => !is_maintenance_line(&mnemonic),
                    (None, Op::Barrier { .. }) => is_barrier(&mnemonic),
                    (None, _) => false,
                };
                if anchor {
                    if let Some((kind, space)) = access_kind {
                        let place = if space == Space::Local { Where::Lds } else { Where::Global };
                        s.access = Some((kind, place, coherence_bits(family, kind, cpol)));
                    }
                    after = true;
                } else if after {
                    s.post_maint.push((mnemonic, cpol.0));
                } else {
                    s.pre_maint.push((mnemonic, cpol.0));
                }
            }
        }
    }
    s
}

/// Whether a lowered line is cache maintenance rather than the access itself.
fn is_maintenance_line(mnemonic: &str) -> bool {
    super::pieces::is_vector_maintenance(flags_of(mnemonic))
}

/// Every shape of the target, and which maintenance instructions are writebacks (released
/// before an access) and which invalidates (after one).
pub struct Catalogue {
    pub family: hipscope_isa::Family,
    pub shapes: Vec<Shape>,
    pub writebacks: Vec<Maint>,
    pub invalidates: Vec<Maint>,
}

impl Catalogue {
    pub fn new(target: &Target) -> Catalogue {
        let shapes: Vec<Shape> = all_ops().into_iter().map(|op| shape(op, target)).collect();
        let mut writebacks = Vec::new();
        let mut invalidates = Vec::new();
        for s in &shapes {
            if let Op::Fence { order, .. } = s.op {
                let list = match order {
                    Order::Release => &mut writebacks,
                    Order::Acquire => &mut invalidates,
                    _ => continue,
                };
                for m in &s.pre_maint {
                    if !list.contains(m) {
                        list.push(m.clone());
                    }
                }
            }
        }
        Catalogue { family: target.family(), shapes, writebacks, invalidates }
    }

    pub fn is_writeback(&self, mnemonic: &str, cpol: CachePolicy) -> bool {
        self.writebacks.iter().any(|(m, c)| m == mnemonic && *c == cpol.0)
    }

    pub fn is_invalidate(&self, mnemonic: &str, cpol: CachePolicy) -> bool {
        self.invalidates.iter().any(|(m, c)| m == mnemonic && *c == cpol.0)
    }
}
