//! Wait counters: what each wave has in flight, and what the `s_waitcnt` family of
//! instructions waits for, in the engine's terms.
//!
//! A wave counts its outstanding operations per class ([`Queue`]); a family's counters group
//! the classes (ISA manuals, "S_WAITCNT" and the GFX12 "S_WAIT_*" instructions; LLVM
//! AMDGPUUsage memory-model sections):
//! * GFX8/9: `vmcnt` = vector loads, stores and atomics, decremented in issue order;
//!   `lgkmcnt` = LDS and scalar memory (scalar memory completes out of order); `expcnt`.
//! * GFX10/11: `vmcnt` = loads and atomics with return; `vscnt` = stores and atomics without
//!   return; `lgkmcnt`, `expcnt` as before.
//! * GFX12: `loadcnt`, `storecnt`, `dscnt` (LDS), `kmcnt` (scalar memory), `expcnt`.
//!
//! Which counters an instruction waits on, and its field layouts, are the memory-model crate's
//! one wait-counter model ([`hipscope_mm::wait`]); [`from_counters`] maps its counters to queues.

use hipscope_isa::waitcnt::Waitcnt;
use hipscope_isa::Family;
use hipscope_mm::wait::{Counter, Wait as CounterWait};

/// A class of outstanding operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queue {
    Load = 0,
    Store = 1,
    Lds = 2,
    Smem = 3,
    Exp = 4,
}

pub const QUEUES: usize = 5;

impl Queue {
    pub const ALL: [Queue; QUEUES] = [Queue::Load, Queue::Store, Queue::Lds, Queue::Smem, Queue::Exp];

    /// What the queue holds, in words (plural).
    pub fn noun(self) -> &'static str {
        match self {
            Queue::Load => "vector loads",
            Queue::Store => "vector stores",
            Queue::Lds => "LDS ops",
            Queue::Smem => "scalar memory ops",
            Queue::Exp => "exports",
        }
    }
}

/// Bit set of queues.
pub type QueueSet = u8;

pub const fn set(q: Queue) -> QueueSet {
    1 << q as u8
}

/// A wait: each (queues, limit) pair requires at most `limit` operations of those queues
/// outstanding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Wait {
    pub parts: [(QueueSet, u32); 4],
    pub n: usize,
}

impl Wait {
    fn push(&mut self, q: QueueSet, limit: u32, max: u32) {
        // A field at its maximum means "do not wait" for that counter.
        if limit < max && self.n < self.parts.len() {
            self.parts[self.n] = (q, limit);
            self.n += 1;
        }
    }
}

/// The queues of a family's `vmcnt`.
fn vm_set(f: Family) -> QueueSet {
    if f.is_rdna() {
        set(Queue::Load)
    } else {
        set(Queue::Load) | set(Queue::Store)
    }
}

const LGKM: QueueSet = set(Queue::Lds) | set(Queue::Smem);

/// The wait a vector memory operation that counts in `q` needs before it issues. A counter
/// holds no more than its field's maximum (the widths above: 4-bit `vmcnt` on GFX8, 6-bit
/// `vmcnt`, `vscnt`, `loadcnt` and `storecnt` from GFX9 on), so a wave with that many such
/// operations in flight issues the next one only when the oldest has counted down. Without
/// this, a loop of stores with no wait in it (a fill kernel) would put all its stores in
/// flight at once.
pub fn issue_room(f: Family, q: Queue) -> Wait {
    let max = Waitcnt::max(f).vm;
    let counter = if q == Queue::Store && f.is_rdna() { set(Queue::Store) } else { vm_set(f) };
    let mut w = Wait::default();
    w.push(counter, max - 1, max);
    w
}

/// The queues of `counter` on family `f`; `None` for the GFX12 sample and BVH counters, which
/// count image operations the engine does not time.
fn queues(f: Family, counter: Counter) -> Option<QueueSet> {
    Some(match counter {
        Counter::Vm => vm_set(f),
        Counter::Lgkm => LGKM,
        Counter::Exp => set(Queue::Exp),
        Counter::Vs | Counter::Store => set(Queue::Store),
        Counter::Load => set(Queue::Load),
        Counter::Ds => set(Queue::Lds),
        Counter::Km => set(Queue::Smem),
        Counter::Sample | Counter::Bvh => return None,
    })
}

/// A wait on counters (`Wait::of_inst`) as a wait on queues on family `f`; `None` when it
/// names a counter the engine does not model (then the instruction issues as a plain scalar
/// one). A limit at its field's all-ones waits for nothing here, as an `s_waitcnt` field at its
/// maximum does.
pub fn from_counters(f: Family, w: &CounterWait) -> Option<Wait> {
    let mut out = Wait::default();
    for &(counter, limit) in &w.0 {
        out.push(queues(f, counter)?, limit, counter.field_all_ones());
    }
    Some(out)
}

/// One wave's outstanding operations: the cycle each completes.
#[derive(Debug, Clone, Default)]
pub struct Outstanding {
    done: [Vec<u64>; QUEUES],
    /// Scratch for [`Outstanding::ready_at`], kept to spare the hot loop an allocation.
    times: Vec<u64>,
    /// Last completion of the in-order counter groups (vm: loads+stores on GFX8/9; loads;
    /// stores; LDS), so that a counter decrements in issue order.
    tail: [u64; QUEUES],
}

impl Outstanding {
    /// Record an operation of `q` completing at `done`; returns the cycle its counter
    /// decrements (not before the ones issued earlier in the same in-order counter).
    #[inline]
    pub fn push(&mut self, f: Family, q: Queue, done: u64) -> u64 {
        let group = match q {
            Queue::Store if !f.is_rdna() => Queue::Load,
            other => other,
        };
        let t = if q == Queue::Smem { done } else { done.max(self.tail[group as usize]) };
        if q != Queue::Smem {
            self.tail[group as usize] = t;
        }
        self.done[q as usize].push(t);
        t
    }

    /// The earliest cycle ≥ `now` at which `w` is satisfied.
    pub fn ready_at(&mut self, now: u64, w: &Wait) -> u64 {
        for d in self.done.iter_mut() {
            d.retain(|&t| t > now);
        }
        let mut ready = now;
        let times = &mut self.times;
        for &(qs, limit) in &w.parts[..w.n] {
            times.clear();
            for (q, d) in self.done.iter().enumerate() {
                if qs >> q & 1 != 0 {
                    times.extend_from_slice(d);
                }
            }
            if times.len() > limit as usize {
                // At most `limit` may remain: wait for all but the `limit` latest.
                times.sort_unstable_by(|a, b| b.cmp(a));
                ready = ready.max(times[limit as usize]);
            }
        }
        ready
    }

    /// Operations of each queue still outstanding at `now` (indexed by `Queue as usize`).
    pub fn pending(&self, now: u64) -> [usize; QUEUES] {
        std::array::from_fn(|q| self.done[q].iter().filter(|&&t| t > now).count())
    }

    /// The last completion of anything outstanding.
    pub fn last(&self) -> u64 {
        self.done.iter().flatten().copied().max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The engine's wait of `mnemonic` with `simm16` on `f`.
    fn decode(f: Family, mnemonic: &str, simm16: u32) -> Option<Wait> {
        from_counters(f, &CounterWait::decode(f, mnemonic, simm16)?)
    }

    #[test]
    fn decodes_the_encodings_clang_emits() {
        // s_waitcnt vmcnt(0) on gfx942 (0x0F70), gfx1030 (0x3F70), gfx1100 (0x03F7).
        for (f, imm) in [(Family::Gfx9, 0x0F70), (Family::Gfx10, 0x3F70), (Family::Gfx11, 0x03F7)] {
            let w = decode(f, "s_waitcnt", imm).unwrap();
            assert_eq!(w.n, 1, "{f:?}");
            assert_eq!(w.parts[0], (vm_set(f), 0), "{f:?}");
        }
        // lgkmcnt(0) on gfx9: 0xC07F.
        let w = decode(Family::Gfx9, "s_waitcnt", 0xC07F).unwrap();
        assert_eq!(&w.parts[..w.n], &[(LGKM, 0)]);
        // vmcnt(1) lgkmcnt(2) on gfx9: vm [3:0]=1, [15:14]=0, exp 7, lgkm 2.
        let w = decode(Family::Gfx9, "s_waitcnt", 0x0271).unwrap();
        assert_eq!(&w.parts[..w.n], &[(vm_set(Family::Gfx9), 1), (LGKM, 2)]);
        let w = decode(Family::Gfx12, "s_wait_loadcnt_dscnt", 0x0100).unwrap();
        assert_eq!(&w.parts[..w.n], &[(set(Queue::Load), 1), (set(Queue::Lds), 0)]);
        assert!(decode(Family::Gfx9, "s_nop", 0).is_none());
        // All-ones one-counter limits wait for nothing; GFX12's sample counter is not timed.
        assert_eq!(decode(Family::Gfx12, "s_wait_kmcnt", 0x1f).unwrap().n, 0);
        assert_eq!(decode(Family::Gfx10, "s_waitcnt_vscnt", 0x3f).unwrap().n, 0);
        assert!(decode(Family::Gfx12, "s_wait_samplecnt", 0).is_none());
    }

    #[test]
    fn in_order_counters_wait_for_earlier_operations() {
        let mut o = Outstanding::default();
        // GFX9: a store completing at 300 issued after a load completing at 500 decrements
        // vmcnt at 500.
        o.push(Family::Gfx9, Queue::Load, 500);
        assert_eq!(o.push(Family::Gfx9, Queue::Store, 300), 500);
        let vm1 = decode(Family::Gfx9, "s_waitcnt", 0x0F71).unwrap(); // vmcnt(1)
        assert_eq!(o.ready_at(0, &vm1), 500);
        // GFX10: stores count separately.
        let mut o = Outstanding::default();
        o.push(Family::Gfx10, Queue::Load, 500);
        assert_eq!(o.push(Family::Gfx10, Queue::Store, 300), 300);
        let vs0 = decode(Family::Gfx10, "s_waitcnt_vscnt", 0).unwrap();
        assert_eq!(o.ready_at(0, &vs0), 300);
        assert_eq!(o.ready_at(400, &vs0), 400);
    }

    /// `ready_at` against its definition, taken literally: of the chosen queues' operations
    /// still outstanding at `now`, all but the `limit` latest must be done, so the wave waits
    /// for the (`limit` + 1)-th latest completion (or not at all). Random queues, completion
    /// times, limits and moments (seeded).
    #[test]
    fn a_wait_ends_at_the_completion_that_leaves_limit_outstanding() {
        use rand::{rngs::StdRng, RngExt, SeedableRng};
        let mut rng = StdRng::seed_from_u64(7);
        let queues = Queue::ALL;
        for _ in 0..2000 {
            let mut o = Outstanding::default();
            for _ in 0..rng.random_range(0..12) {
                let q = queues[rng.random_range(0..queues.len())];
                o.push(Family::Gfx10, q, rng.random_range(0..400));
            }
            let mut w = Wait::default();
            for _ in 0..rng.random_range(1..4) {
                w.push(rng.random_range(1..32), rng.random_range(0..4), u32::MAX);
            }
            let now = rng.random_range(0..300);
            let mut want = now;
            for &(qs, limit) in &w.parts[..w.n] {
                let mut left: Vec<u64> =
                    queues.iter().filter(|&&q| qs >> (q as usize) & 1 != 0).flat_map(|&q| o.done[q as usize].clone()).filter(|&t| t > now).collect();
                left.sort_unstable_by(|a, b| b.cmp(a));
                if let Some(&t) = left.get(limit as usize) {
                    want = want.max(t);
                }
            }
            assert_eq!(o.ready_at(now, &w), want, "{:?} at {now}: {:?}", &w.parts[..w.n], o.done);
        }
    }

    /// A full 6-bit `vmcnt` (63 outstanding on GFX9) holds the next vector memory operation
    /// until the oldest counts down; on GFX10+ loads and stores have counters of their own,
    /// and GFX8's 4-bit counter fills at 15.
    #[test]
    fn a_full_counter_holds_the_next_issue() {
        let mut o = Outstanding::default();
        for i in 0..62 {
            o.push(Family::Gfx9, Queue::Load, 100 + i);
        }
        assert_eq!(o.ready_at(0, &issue_room(Family::Gfx9, Queue::Load)), 0, "62 in flight: room for one more");
        o.push(Family::Gfx9, Queue::Load, 162);
        assert_eq!(o.ready_at(0, &issue_room(Family::Gfx9, Queue::Load)), 100);
        assert_eq!(o.ready_at(0, &issue_room(Family::Gfx9, Queue::Store)), 100, "GFX9 stores count in vmcnt");
        let mut o = Outstanding::default();
        for i in 0..63 {
            o.push(Family::Gfx11, Queue::Load, 100 + i);
        }
        assert_eq!(o.ready_at(0, &issue_room(Family::Gfx11, Queue::Store)), 0, "stores count in vscnt");
        assert_eq!(o.ready_at(0, &issue_room(Family::Gfx11, Queue::Load)), 100);
        let mut o = Outstanding::default();
        for i in 0..15 {
            o.push(Family::Gfx8, Queue::Load, 100 + i);
        }
        assert_eq!(o.ready_at(0, &issue_room(Family::Gfx8, Queue::Load)), 100);
    }

    #[test]
    fn scalar_memory_completes_out_of_order() {
        let mut o = Outstanding::default();
        o.push(Family::Gfx9, Queue::Smem, 90);
        o.push(Family::Gfx9, Queue::Smem, 40);
        let lgkm1 = decode(Family::Gfx9, "s_waitcnt", 0xC17F).unwrap(); // lgkmcnt(1)
        assert_eq!(o.ready_at(0, &lgkm1), 40);
        let lgkm0 = decode(Family::Gfx9, "s_waitcnt", 0xC07F).unwrap();
        assert_eq!(o.ready_at(0, &lgkm0), 90);
    }
}
