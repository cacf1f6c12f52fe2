//! The VMEM unit: vector memory instructions issue on the CU's vector memory unit, one per
//! cycle, once their wait counter has room; their completion goes to the wave's vector
//! queues.

use super::{occupy, Finish, NotReady};
use crate::counters::Counter;
use crate::memsys::OpKind;
use crate::timing::waitcnt::{self, Outstanding, Queue};
use hipscope_isa::Family;

/// The queue a vector memory operation counts in: GFX8/9 (CDNA included) count loads, stores
/// and every atomic in one in-order `vmcnt`, so `s_waitcnt vmcnt(0)` waits for a no-return
/// atomic to be performed and acknowledged (GFX9 has no other vector memory counter); RDNA
/// counts stores and atomics without return in `vscnt`/`storecnt` and atomics with return in
/// `vmcnt`/`loadcnt` (LLVM AMDGPUUsage, *Memory Model GFX10-GFX11*: "Use vmcnt(0) if atomic
/// with return and vscnt(0) if atomic with no-return"). Either way the counted completion is
/// the access's end, after the atomic unit performed its last lane ([`crate::memsys`]).
fn vmem_queue(fam: Family, kind: OpKind) -> Queue {
    match kind {
        OpKind::Load | OpKind::Atomic { returns: true } => Queue::Load,
        _ if !fam.is_rdna() => Queue::Load,
        _ => Queue::Store,
    }
}

/// Not before its counter has room ([`waitcnt::issue_room`]).
#[inline]
pub(super) fn blocked(fam: Family, kind: OpKind, out: &mut Outstanding, t: u64) -> Option<NotReady> {
    let until = out.ready_at(t, &waitcnt::issue_room(fam, vmem_queue(fam, kind)));
    (until > t).then_some(NotReady::CounterFull { until })
}

/// Take the vector memory unit (free from `*free`) for one cycle from `t` or when it frees;
/// the issue cycle.
#[inline]
pub(super) fn reserve(free: &mut u64, t: u64) -> u64 {
    occupy(free, 1, t)
}

/// Count it and put its completion in its queue; a FLAT access may reach LDS, so before
/// GFX11 it also counts against the LDS counter (`lgkmcnt`), until the same cycle.
#[inline]
pub(super) fn finish(f: &mut Finish, kind: OpKind, flat: bool, next: u64) -> u64 {
    let done = f.done.unwrap_or(f.issue);
    let q = vmem_queue(f.fam, kind);
    f.counters.inc(if kind == OpKind::Load { Counter::SqInstsVmemRd } else { Counter::SqInstsVmemWr });
    let out = &mut f.wave.x.out;
    let counted = out.push(f.fam, q, done);
    if flat && !matches!(f.fam, Family::Gfx11 | Family::Gfx12) {
        out.push(f.fam, Queue::Lds, counted);
    }
    *f.last = (*f.last).max(counted);
    next
}
