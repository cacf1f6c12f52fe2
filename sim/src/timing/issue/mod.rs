//! The timing engine's issue stage: one unit per instruction class.
//!
//! An instruction goes through its class's unit in three steps, all plain calls at cycle
//! timestamps:
//! 1. [`blocked`]: whether it may issue at all yet, or a typed reason it may not
//!    ([`NotReady`]: a wait whose counters are not low enough, a counter without room);
//! 2. [`reserve`]: the pipe it issues on (its SIMD, the CU's scalar unit or vector memory
//!    unit, [`Pipes::reserve`]; for a DS instruction its LDS, once that can take it), which
//!    sets the issue cycle;
//! 3. [`finish`], after the engine executed it: what its unit does with it (the counters it
//!    counts in, the wait queues its completion goes to, LDS bank conflicts, cache
//!    maintenance) and the cycle the wave may issue again.
//!
//! Units: [`valu`], [`matrix`] (MFMA/WMMA on the SIMD's matrix core), [`salu`], [`smem`],
//! [`vmem`], [`lds`], [`control`] (branches, waits, `s_nop`, `s_sleep`, `s_delay_alu`,
//! barriers, the end), [`cache`] (cache maintenance).

mod cache;
mod control;
mod lds;
mod matrix;
mod salu;
mod smem;
mod valu;
mod vmem;

use super::class::Class;
use super::port::Port;
use super::waitcnt::{Outstanding, Wait};
use crate::counters::{Counter, Counters};
use crate::exec::Flow;
use crate::gpus::timing::Timing;
use crate::memory::Memory;
use crate::memsys::pipe::Pipe;
use crate::memsys::{OpSpec, Unit};
use crate::observe::{Shared, Stall, StallCause};
use crate::sched::Resident;
use crate::wave::Wave;
use hipscope_isa::Family;

/// What the timing engine keeps of a wave: where it runs, when it issues next, and what it
/// has outstanding.
pub(crate) struct WaveTiming {
    pub cu: usize,
    pub simd: usize,
    /// Its code slot.
    pub idx: usize,
    /// The cycle it issues next.
    pub next: u64,
    /// Seeded priority among waves issuing in the same cycle.
    pub prio: u32,
    /// The cycle it started.
    pub start: u64,
    pub out: Outstanding,
    /// End of the `s_sleep` it last executed (for diagnostics).
    pub sleep_until: u64,
}

/// Why a wave does not issue at some cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotReady {
    /// It waits at `s_barrier` (since the cycle it arrived).
    Barrier { since: u64 },
    /// It sleeps (`s_sleep`) until `until`.
    Sleep { until: u64 },
    /// A wait instruction whose counters are not low enough before `until`.
    Waitcnt { wait: Wait, until: u64 },
    /// A vector memory operation whose counter has no room before `until`.
    CounterFull { until: u64 },
    /// The pipe it issues on is busy until `until`.
    PipeBusy { pipe: IssuePipe, until: u64 },
    /// It is next scheduled at `at`.
    Later { at: u64 },
}

/// Whether an instruction of class `cls` may issue at `t` given what its wave has
/// outstanding: `None`, or why not (and until when).
#[inline]
pub(crate) fn blocked(cls: Class, fam: Family, out: &mut Outstanding, t: u64) -> Option<NotReady> {
    match cls {
        Class::Wait(wait) => control::blocked(wait, out, t),
        Class::Vmem { kind, .. } => vmem::blocked(fam, kind, out, t),
        _ => None,
    }
}

/// The pipelines an instruction occupies when it issues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IssuePipe {
    /// The wave's SIMD (VALU).
    Simd,
    /// The matrix core of the wave's SIMD (MFMA, WMMA).
    Matrix,
    /// The CU's scalar unit (SALU, branches, waits, everything else that issues like them).
    Scalar,
    /// The CU's vector memory unit.
    VectorMemory,
}

impl IssuePipe {
    /// The pipe instructions of class `cls` issue on (none: they issue when the wave is
    /// ready; LDS instructions take the LDS when they finish, see [`lds`]).
    pub fn of(cls: Class) -> Option<IssuePipe> {
        match cls {
            Class::Valu { .. } => Some(IssuePipe::Simd),
            Class::Matrix(_) => Some(IssuePipe::Matrix),
            Class::Salu | Class::Other | Class::Branch | Class::Wait(_) => Some(IssuePipe::Scalar),
            Class::Vmem { .. } => Some(IssuePipe::VectorMemory),
            _ => None,
        }
    }

    /// Its name, for "waits for its ...".
    pub fn name(self) -> &'static str {
        match self {
            IssuePipe::Simd => "SIMD",
            IssuePipe::Matrix => "matrix core",
            IssuePipe::VectorMemory => "vector memory unit",
            IssuePipe::Scalar => "scalar unit",
        }
    }
}

/// A CU's pipelines: the cycle each issue pipe is free from, and the LDS.
#[derive(Clone, Default)]
pub(crate) struct Pipes {
    pub simd: Vec<u64>,
    /// Per SIMD, its matrix core.
    pub matrix: Vec<u64>,
    pub salu: u64,
    pub vmem: u64,
    /// One LDS per placement unit: a WGP's two CUs use the first CU's.
    pub lds: Pipe,
}

impl Pipes {
    /// A CU with `simds` SIMDs, all idle.
    pub fn new(simds: usize) -> Pipes {
        Pipes { simd: vec![0; simds], matrix: vec![0; simds], ..Pipes::default() }
    }

    /// Take the pipe an instruction of class `cls` of a wave on SIMD `simd` issues on, at `t`
    /// or when it frees; returns the issue cycle.
    #[inline]
    pub fn reserve(&mut self, cls: Class, simd: usize, t: u64) -> u64 {
        match cls {
            Class::Valu { cycles } => valu::reserve(&mut self.simd[simd], cycles, t),
            Class::Matrix(r) => matrix::reserve(self, simd, r, t),
            Class::Salu | Class::Other | Class::Branch | Class::Wait(_) => salu::reserve(&mut self.salu, t),
            Class::Vmem { .. } => vmem::reserve(&mut self.vmem, t),
            _ => t,
        }
    }

    /// The pipe an instruction of class `cls` on SIMD `simd` issues on and until when it is
    /// busy (the cycle it frees, possibly already past).
    pub fn busy(&self, cls: Class, simd: usize) -> Option<(IssuePipe, u64)> {
        let pipe = IssuePipe::of(cls)?;
        let until = match pipe {
            IssuePipe::Simd => self.simd.get(simd).copied().unwrap_or(0),
            // Waits for the SIMD too; whichever frees later.
            IssuePipe::Matrix => self.matrix.get(simd).copied().unwrap_or(0).max(self.simd.get(simd).copied().unwrap_or(0)),
            IssuePipe::VectorMemory => self.vmem,
            IssuePipe::Scalar => self.salu,
        };
        Some((pipe, until))
    }
}

/// The issue cycle of an instruction of class `cls` of a wave on SIMD `simd` of `cu`, ready at
/// `t`: its pipe's ([`Pipes::reserve`]), or for a DS instruction the first cycle its LDS (which a
/// WGP's two CUs share: `cus_per_unit`) can take it ([`lds::reserve`]).
#[inline]
pub(crate) fn reserve(pipes: &mut [Pipes], cu: usize, cus_per_unit: usize, cls: Class, simd: usize, t: u64) -> u64 {
    match cls {
        Class::Lds { .. } => lds::reserve(pipes, cu, cus_per_unit, t),
        _ => pipes[cu].reserve(cls, simd, t),
    }
}

/// Occupy a pipe free from `*free` for `cycles` from `t` or when it frees; returns the start.
#[inline]
fn occupy(free: &mut u64, cycles: u64, t: u64) -> u64 {
    let start = t.max(*free);
    *free = start + cycles;
    start
}

/// The memory operation an instruction of class `cls` issued at `at` on `cu` describes to the
/// memory system, if it accesses memory through it.
#[inline]
pub(crate) fn memory_op(cls: Class, cu: usize, at: u64) -> Option<OpSpec> {
    match cls {
        Class::Vmem { kind, policy, .. } => Some(OpSpec { cu, unit: Unit::Vector, kind, policy, at }),
        Class::Smem { kind } => Some(OpSpec { cu, unit: Unit::Scalar, kind, policy: Default::default(), at }),
        _ => None,
    }
}

/// What a unit sees of an executed instruction when it finishes it.
pub(crate) struct Finish<'c, 'm> {
    pub fam: Family,
    pub t: &'c Timing,
    pub wave64: bool,
    /// CUs per placement unit (2 in WGP mode).
    pub cus_per_unit: usize,
    /// Its issue cycle, and its flow.
    pub issue: u64,
    pub flow: Flow,
    /// When its memory access completes (memory instructions).
    pub done: Option<u64>,
    pub wave: &'c mut Resident<WaveTiming>,
    pub counters: &'c mut Counters,
    /// Every CU's pipes.
    pub pipes: &'c mut [Pipes],
    pub port: &'c Port<'m>,
    pub mem: &'c mut Memory,
    pub obs: Option<&'c Shared<'m>>,
    /// The latest cycle anything of the dispatch is known to happen.
    pub last: &'c mut u64,
}

/// Finish an instruction of class `cls` in its unit; returns the cycle its wave may issue
/// again.
#[inline]
pub(crate) fn finish(f: &mut Finish, cls: Class) -> u64 {
    // The issue interval of a wave, unless its unit says otherwise.
    let next = f.issue + f.t.core.wave_issue_interval_cycles as u64;
    let next = match cls {
        Class::Valu { cycles } => valu::finish(f, cycles, next),
        Class::Matrix(r) => matrix::finish(f, r, next),
        Class::Salu => salu::finish(f, next),
        Class::Smem { .. } => smem::finish(f, next),
        Class::Vmem { kind, flat, .. } => vmem::finish(f, kind, flat, next),
        Class::Lds { dwords } => lds::finish(f, dwords, next),
        Class::Branch => control::branch(f, next),
        Class::DelayAlu => control::delay_alu(f),
        Class::Nop { cycles } => control::nop(f, cycles, next),
        Class::Sleep { cycles } => control::sleep(f, cycles),
        Class::Cache(m) => cache::finish(f, m, next),
        Class::Wait(_) | Class::Other | Class::Barrier | Class::End => next,
    };
    f.counters.inc(Counter::SqInsts);
    next
}

/// Tell the observer, if there is one, that wave `w` stalled at `pc` for `cycles`.
pub(crate) fn stalled(obs: Option<&Shared>, w: &Wave, cause: StallCause, pc: u64, cycles: std::ops::Range<u64>, detail: &dyn std::fmt::Display) {
    if let Some(o) = obs {
        o.borrow_mut().stalled(&Stall { wave_index: w.global_index, cause, pc, from: cycles.start, to: cycles.end, detail });
    }
}
