//! Cache maintenance: invalidations and write-backs of the caches a wave's CU reaches. The
//! wave's load counter holds each until it is done; observers see what each dropped or wrote.

use super::Finish;
use crate::gpus::timing::Timing;
use crate::memory::Memory;
use crate::memsys::Reach;
use crate::observe::{CacheAction, CacheOp};
use crate::timing::class::Maintenance;
use crate::timing::port::Port;
use crate::timing::waitcnt::Queue;

/// The cache actions of one maintenance instruction, with the lines each dropped or wrote.
type Actions = [Option<(CacheOp, u64)>; 3];

/// Do maintenance `m`, queue its completion, tell observers.
#[inline]
pub(super) fn finish(f: &mut Finish, m: Maintenance, next: u64) -> u64 {
    let cu = f.wave.x.cu;
    let (done, actions) = maintain(f.port, f.t, m, cu, f.issue, f.mem);
    f.wave.x.out.push(f.fam, Queue::Load, done);
    if let Some(o) = f.obs {
        let mut o = o.borrow_mut();
        let w = &f.wave.w;
        for (op, lines) in actions.into_iter().flatten() {
            o.cache_action(&CacheAction { wave_index: w.global_index, pc: w.pc, cu, op, lines, issue: f.issue, done });
        }
    }
    next
}

/// A cache-maintenance instruction at `at` on `cu`; returns when it is done. Invalidating an
/// L1 or GL1 clears its valid bits at once (the hit latency, whatever it held); L2 operations
/// walk the tags and write the dirty lines back ([`crate::memsys::MemSystem::invalidate_l2_op`],
/// [`crate::memsys::MemSystem::writeback_l2_op`]).
fn maintain(port: &Port, t: &Timing, m: Maintenance, cu: usize, at: u64, mem: &mut Memory) -> (u64, Actions) {
    let mut ms = port.ms.borrow_mut();
    let l1 = t.vector_l1.hit_latency_cycles as u64;
    let x = ms.xcd_of(cu);
    let mut acts: Actions = [None; 3];
    let done = match m {
        Maintenance::None => at,
        Maintenance::InvL1 => {
            acts[0] = ms.invalidate_l1(cu).map(|n| (CacheOp::InvalidateL1, n));
            at + l1
        }
        Maintenance::InvGl1 => {
            acts[0] = ms.invalidate_gl1(cu).map(|n| (CacheOp::InvalidateGl1, n));
            at + l1
        }
        Maintenance::InvL1Gl1 => {
            acts[0] = ms.invalidate_l1(cu).map(|n| (CacheOp::InvalidateL1, n));
            acts[1] = ms.invalidate_gl1(cu).map(|n| (CacheOp::InvalidateGl1, n));
            at + l1
        }
        Maintenance::InvL1L2(reach) => {
            acts[0] = ms.invalidate_l1(cu).map(|n| (CacheOp::InvalidateL1, n));
            acts[1] = ms.invalidate_gl1(cu).map(|n| (CacheOp::InvalidateGl1, n));
            let (done, lines) = ms.invalidate_l2_op(mem, x, at, reach);
            acts[2] = Some((CacheOp::InvalidateL2, lines));
            done.max(at + l1)
        }
        Maintenance::InvL2 => {
            let (done, lines) = ms.invalidate_l2_op(mem, x, at, Reach::System);
            acts[0] = Some((CacheOp::InvalidateL2, lines));
            done
        }
        Maintenance::InvScalar => {
            acts[0] = ms.invalidate_scalar(cu).map(|n| (CacheOp::InvalidateScalar, n));
            at + t.scalar_cache.hit_latency_cycles as u64
        }
        Maintenance::WbL2(reach) => {
            let (done, lines) = ms.writeback_l2_op(mem, x, at, reach);
            acts[0] = Some((CacheOp::WritebackL2, lines));
            done + l1
        }
    };
    (done, acts)
}
