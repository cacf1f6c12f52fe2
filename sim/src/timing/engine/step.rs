//! One instruction of one wave: whether it may issue ([`issue::blocked`]), the pipe it issues
//! on, its execution (memory through the memory system, observers told), its retirement (the
//! shared scheduler's counts), its unit's work ([`issue::finish`]), and where the wave goes
//! next.
//!
//! The resident wave is looked up once per instruction and every step works on it through
//! disjoint borrows of the engine's fields; what only a fault, an observer, a wave's end or a
//! barrier needs is out of line, so the common path carries none of it.

use super::admit::wake;
use super::{diagnose, Sim};
use crate::counters::Counter;
use crate::exec::{execute, Env, ExecCtx, Flow, MemPort};
use crate::fault::{FaultKind, KernelFault};
use crate::kernel::ExecInst;
use crate::memory::Memory;
use crate::memsys::{OpResult, OpSpec, Unit};
use crate::node::turns::NodeLivelock;
use crate::observe::{Executed, Lazy, MemUnit, MemoryDone, Regions, Shared, StallCause, Watched};
use crate::progress;
use crate::sched::{fault, fetch, follow};
use crate::timing::issue::{self, stalled, Finish, NotReady};
use crate::timing::port::Port;
use crate::wave::Wave;

impl Sim<'_, '_> {
    /// Issue wave `id`'s next instruction; returns the wave's next issue cycle, or `None` when
    /// it stopped (ended, or waits at a barrier).
    #[inline]
    pub(super) fn step(&mut self, id: usize, env: &mut Env, mem: &mut Memory) -> Result<Option<u64>, KernelFault> {
        let d = self.s.d;
        let Some(r) = self.s.waves[id].as_mut() else { return Ok(None) };
        let t = r.x.next;
        let cls = self.classes[r.x.idx];
        if let Some(why) = issue::blocked(cls, self.fam, &mut r.x.out, t) {
            return Ok(Some(self.hold(id, why, t)));
        }
        let issue = issue::reserve(&mut self.pipes, r.x.cu, self.admit.cus_per_unit, cls, r.x.simd, t);
        let e = fetch(&d.kernel.code, r.x.idx).map_err(|k| fault(d, &r.w, k))?;
        // Its memory access is described to the memory system around its execution.
        let mem_op = issue::memory_op(cls, r.x.cu, issue);
        if let Some(spec) = mem_op {
            self.port.ms.borrow_mut().begin(spec);
        }
        env.clock = issue;
        let lds = self.s.groups[r.group].as_mut().map_or(&mut [][..], |g| &mut g.lds[..]);
        self.port.lds.borrow_mut().clear();
        let writes = r.w.writes;
        let mut cx = ExecCtx { wave: &mut r.w, mem, port: Some(&self.port), lds, env };
        let flow = match &self.s.obs {
            None => execute(&e.sem, &e.inst, &mut cx),
            Some(o) => execute_watched(o, self.s.watch_lanes.then_some(&self.s.regions), &self.port, e, issue, cx),
        };
        let result = mem_op.map(|_| self.port.ms.borrow_mut().end(mem));
        if self.landings.on && result.is_some() {
            self.landings.after_access(&mut self.port.ms.borrow_mut(), id, r.w.global_index, &e.sem);
        }
        let flow = flow.map_err(|k| fault(d, &r.w, k))?;
        if r.w.writes != writes {
            self.s.prog.advance(issue, self.s.stats.instructions);
        }
        if let (Some(o), Some(res), Some(spec)) = (&self.s.obs, result, mem_op) {
            memory_done(o, &r.w, e, spec, res);
        }
        self.time.progress = self.time.progress.max(issue);
        self.s.stats.retire(&mut r.w, e.inst.opcode() as usize, self.s.opts.max_wave_instructions).map_err(|k| fault(d, &r.w, k))?;
        let mut f = Finish {
            fam: self.fam,
            t: self.t,
            wave64: d.kernel.wave64,
            cus_per_unit: self.admit.cus_per_unit,
            issue,
            flow,
            done: result.map(|r| r.done),
            wave: r,
            counters: &mut self.counters,
            pipes: &mut self.pipes,
            port: &self.port,
            mem,
            obs: self.s.obs.as_ref(),
            last: &mut self.time.last,
        };
        let next = issue::finish(&mut f, cls);
        // Where the wave goes next.
        let backward = matches!(flow, Flow::Jump(to) if to <= r.w.pc);
        follow(d.kernel, &mut r.w, &mut r.x.idx, e.inst.next_address(), flow).map_err(|k| fault(d, &r.w, k))?;
        match flow {
            Flow::End => {
                let end = issue.max(r.x.out.last());
                self.wave_ended(id, end);
                return Ok(None);
            }
            Flow::Barrier => {
                r.x.next = issue;
                self.barrier(id, issue);
                return Ok(None);
            }
            Flow::Jump(_) | Flow::Next | Flow::Yield => {
                if r.watch.step(&r.w, self.s.prog.epoch, backward, self.s.opts.livelock_check_after) {
                    self.s.prog.looping += 1;
                }
            }
        }
        r.x.next = next;
        self.time.last = self.time.last.max(next);
        self.check_limits(id, issue)?;
        Ok(Some(next))
    }

    /// Wave `id` may not issue at `t` (`why`): it waits until it may, a stall observers see.
    /// Returns that cycle.
    #[inline(never)]
    fn hold(&mut self, id: usize, why: NotReady, t: u64) -> u64 {
        let Some(r) = self.s.waves[id].as_mut() else { return t };
        let obs = self.s.obs.as_ref();
        let until = match why {
            NotReady::Waitcnt { wait, until } => {
                self.counters.add(Counter::SqWaitInstAny, until - t);
                let detail = Lazy(|| diagnose::outstanding_text(&r.x.out, t, &wait));
                stalled(obs, &r.w, StallCause::Waitcnt, r.w.pc, t..until, &detail);
                until
            }
            NotReady::CounterFull { until } => {
                stalled(obs, &r.w, StallCause::CounterFull, r.w.pc, t..until, &"");
                until
            }
            // Not a reason `issue::blocked` gives: it issues when the engine next runs it.
            NotReady::Barrier { .. } | NotReady::Sleep { .. } | NotReady::PipeBusy { .. } | NotReady::Later { .. } => t,
        };
        r.x.next = until;
        until
    }

    /// Wave `id` arrived at its work-group's barrier at `at`; the waves it releases are queued.
    #[inline(never)]
    fn barrier(&mut self, id: usize, at: u64) {
        let heap = &mut self.heap;
        self.s.arrive(id, at, |id, tw, rel, obs| wake(heap, id, tw, rel, obs));
    }

    /// After wave `id` issued at `issue`: a livelock (every running wave repeats its state and
    /// the last visible change is long enough ago that nothing still on its way can end it),
    /// or a limit the user set.
    #[inline]
    fn check_limits(&self, id: usize, issue: u64) -> Result<(), KernelFault> {
        let p = &self.s.prog;
        if p.looping > 0 && p.looping >= self.s.running && issue >= p.at_cycle.saturating_add(progress::SETTLE_CYCLES) {
            // Co-simulated, another GPU's kernel may still change what these waves wait on:
            // the main loop stalls its turn instead.
            if self.cosim {
                self.spinning.set(true);
                return Ok(());
            }
            return Err(self.livelock(id, issue, None));
        }
        let bound = self.s.opts.no_progress;
        if bound > 0 && issue >= p.at_cycle.saturating_add(bound) && !self.cosim {
            return Err(self.no_progress(id, issue));
        }
        match self.s.limit_reached(Some(issue - self.time.begin)) {
            Some(kind) => Err(self.s.fault_at(id, kind)),
            None => Ok(()),
        }
    }

    /// The livelock fault, found at wave `id` issuing at `issue`; `node`: every other kernel
    /// co-simulated with this one spins too ([`crate::node::turns`]).
    #[cold]
    #[inline(never)]
    pub(super) fn livelock(&self, id: usize, issue: u64, node: Option<NodeLivelock>) -> KernelFault {
        let p = &self.s.prog;
        let (_, mut stuck) = self.s.stuck(self.s.stats.instructions - p.at_instruction, Some(issue.saturating_sub(p.at_cycle)), None);
        if let Some(NodeLivelock(n)) = node {
            stuck.text = format!("{n}; this kernel: {}", stuck.text);
        }
        self.s.fault_at(id, FaultKind::Livelock(Box::new(stuck)))
    }

    /// The no-progress fault (`--no-progress-cycles` reached without a proof), found at wave
    /// `id` issuing at `issue`.
    #[cold]
    #[inline(never)]
    fn no_progress(&self, id: usize, issue: u64) -> KernelFault {
        let p = &self.s.prog;
        let bound = Some(self.s.opts.no_progress);
        let (_, stuck) = self.s.stuck(self.s.stats.instructions - p.at_instruction, Some(issue.saturating_sub(p.at_cycle)), bound);
        self.s.fault_at(id, FaultKind::NoProgressBound(Box::new(stuck)))
    }
}

/// Execute instruction `e`, issued at `issue`, with observer `o` watching: it is told the
/// instruction first, and with `regions` (it wants lane accesses) sees each access through
/// the memory port.
#[inline(never)]
fn execute_watched(o: &Shared, regions: Option<&Regions>, port: &Port, e: &ExecInst, issue: u64, cx: ExecCtx) -> Result<Flow, FaultKind> {
    let w = &*cx.wave;
    o.borrow_mut().executed(&Executed { wave: w.id, wave_index: w.global_index, pc: w.pc, exec: w.exec(), inst: &e.inst, sem: &e.sem, cycle: Some(issue) });
    let watched;
    let p: &dyn MemPort = match regions {
        Some(regions) => {
            watched = Watched { inner: Some(port), obs: o, regions };
            &watched
        }
        None => port,
    };
    execute(&e.sem, &e.inst, &mut ExecCtx { wave: cx.wave, mem: cx.mem, port: Some(p), lds: cx.lds, env: cx.env })
}

/// Tell observer `o` that the memory access `spec` of instruction `e` of wave `w` completed
/// (`res`).
#[inline(never)]
fn memory_done(o: &Shared, w: &Wave, e: &ExecInst, spec: OpSpec, res: OpResult) {
    let unit = if spec.unit == Unit::Vector { MemUnit::Vector } else { MemUnit::Scalar };
    let name = e.inst.mnemonic();
    let m = MemoryDone {
        cu: spec.cu,
        unit,
        name,
        wave: w.id,
        wave_index: w.global_index,
        pc: w.pc,
        issue: spec.at,
        done: res.done,
        level: res.level,
        lines: res.lines,
    };
    o.borrow_mut().memory_done(&m);
}
