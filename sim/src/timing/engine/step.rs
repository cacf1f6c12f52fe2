//! One instruction of one wave: whether it may issue ([`issue::blocked`]), the pipe it issues
//! on, its execution (memory through the memory system, observers told), its retirement (the
//! shared scheduler's counts), its unit's work ([`issue::finish`]), and where the wave goes
//! next.

use super::admit::wake;
use super::{diagnose, Sim};
use crate::counters::Counter;
use crate::exec::{execute, Env, ExecCtx, Flow, MemPort};
use crate::fault::{FaultKind, KernelFault};
use crate::kernel::ExecInst;
use crate::memory::Memory;
use crate::memsys::Unit;
use crate::observe::{Executed, Lazy, MemUnit, MemoryDone, StallCause, Watched};
use crate::progress;
use crate::sched::{fault, fetch, follow};
use crate::timing::class::Class;
use crate::timing::issue::{self, stalled, Finish, NotReady};

impl Sim<'_, '_> {
    /// Issue wave `id`'s next instruction; returns the wave's next issue cycle, or `None` when
    /// it stopped (ended, or waits at a barrier).
    pub(super) fn step(&mut self, id: usize, env: &mut Env, mem: &mut Memory) -> Result<Option<u64>, KernelFault> {
        let d = self.s.d;
        let Some(r) = self.s.waves[id].as_mut() else { return Ok(None) };
        let t = r.x.next;
        let cls = self.classes[r.x.idx];
        if let Some(why) = issue::blocked(cls, self.fam, &mut r.x.out, t) {
            return Ok(Some(self.hold(id, why, t)));
        }
        let issue = self.pipes[r.x.cu].reserve(cls, r.x.simd, t);
        let e = fetch(&d.kernel.code, r.x.idx).map_err(|k| fault(d, &r.w, k))?;
        let (flow, done) = self.execute(id, e, cls, issue, env, mem)?;
        self.time.progress = self.time.progress.max(issue);
        let Some(r) = self.s.waves[id].as_mut() else { return Ok(None) };
        self.s.stats.retire(&mut r.w, e.inst.opcode() as usize, self.s.opts.max_wave_instructions).map_err(|k| fault(d, &r.w, k))?;
        let mut f = Finish {
            fam: self.fam,
            t: self.t,
            wave64: d.kernel.wave64,
            cus_per_unit: self.admit.cus_per_unit,
            issue,
            flow,
            done,
            wave: r,
            counters: &mut self.counters,
            pipes: &mut self.pipes,
            port: &self.port,
            mem,
            obs: self.s.obs.as_ref(),
            last: &mut self.time.last,
        };
        let next = issue::finish(&mut f, cls);
        self.advance(id, e, flow, issue, next)
    }

    /// Wave `id` may not issue at `t` (`why`): it waits until it may, a stall observers see.
    /// Returns that cycle.
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

    /// Execute instruction `e` (of class `cls`) of wave `id` at cycle `issue`: its memory
    /// access is described to the memory system around it, observers are told what it does.
    /// Returns its flow and when its memory access completes.
    #[inline]
    fn execute(&mut self, id: usize, e: &ExecInst, cls: Class, issue: u64, env: &mut Env, mem: &mut Memory) -> Result<(Flow, Option<u64>), KernelFault> {
        let Sim { s, port, .. } = self;
        let d = s.d;
        let Some(r) = s.waves[id].as_mut() else { return Ok((Flow::End, None)) };
        let cu = r.x.cu;
        let mem_op = issue::memory_op(cls, cu, issue);
        if let Some(spec) = mem_op {
            port.ms.borrow_mut().begin(spec);
        }
        env.clock = issue;
        let lds = s.groups[r.group].as_mut().map_or(&mut [][..], |g| &mut g.lds[..]);
        port.lds.borrow_mut().clear();
        let writes = r.w.writes;
        let flow = {
            let watched;
            let p: &dyn MemPort = match &s.obs {
                None => &*port,
                Some(o) => {
                    let w = &r.w;
                    o.borrow_mut().executed(&Executed {
                        wave: w.id,
                        wave_index: w.global_index,
                        pc: w.pc,
                        exec: w.exec(),
                        inst: &e.inst,
                        sem: &e.sem,
                        cycle: Some(issue),
                    });
                    if s.watch_lanes {
                        watched = Watched { inner: Some(&*port), obs: o, regions: &s.regions };
                        &watched
                    } else {
                        &*port
                    }
                }
            };
            let mut cx = ExecCtx { wave: &mut r.w, mem, port: Some(p), lds, env };
            execute(&e.sem, &e.inst, &mut cx)
        };
        let result = mem_op.map(|_| port.ms.borrow_mut().end(mem));
        let flow = flow.map_err(|k| fault(d, &r.w, k))?;
        if r.w.writes != writes {
            s.prog.advance(issue, s.stats.instructions);
        }
        if let (Some(o), Some(res), Some(spec)) = (&s.obs, result, mem_op) {
            let unit = if spec.unit == Unit::Vector { MemUnit::Vector } else { MemUnit::Scalar };
            let w = &r.w;
            let name = e.inst.mnemonic();
            let m = MemoryDone { cu, unit, name, wave: w.id, wave_index: w.global_index, pc: w.pc, issue, done: res.done, level: res.level, lines: res.lines };
            o.borrow_mut().memory_done(&m);
        }
        Ok((flow, result.map(|r| r.done)))
    }

    /// Move wave `id` past instruction `e`, issued at `issue`, that finished with `flow`; its
    /// unit lets it issue again at `next`. Returns that cycle, or `None` when the wave ended or
    /// waits at a barrier.
    #[inline]
    fn advance(&mut self, id: usize, e: &ExecInst, flow: Flow, issue: u64, next: u64) -> Result<Option<u64>, KernelFault> {
        let d = self.s.d;
        let (epoch, check_after) = (self.s.prog.epoch, self.s.opts.livelock_check_after);
        let Some(r) = self.s.waves[id].as_mut() else { return Ok(None) };
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
                let heap = &mut self.heap;
                self.s.arrive(id, issue, |id, tw, rel, obs| wake(heap, id, tw, rel, obs));
                return Ok(None);
            }
            Flow::Jump(_) | Flow::Next | Flow::Yield => {
                if r.watch.step(&r.w, epoch, backward, check_after) {
                    self.s.prog.looping += 1;
                }
            }
        }
        r.x.next = next;
        self.time.last = self.time.last.max(next);
        self.check_limits(id, issue)?;
        Ok(Some(next))
    }

    /// After wave `id` issued at `issue`: a livelock (every running wave repeats its state and
    /// the last visible change is long enough ago that nothing still on its way can end it),
    /// or a limit the user set.
    #[inline]
    fn check_limits(&self, id: usize, issue: u64) -> Result<(), KernelFault> {
        let p = &self.s.prog;
        if p.looping > 0 && p.looping >= self.s.running && issue >= p.at_cycle.saturating_add(progress::SETTLE_CYCLES) {
            let (_, text) = self.s.livelock(self.s.stats.instructions - p.at_instruction, Some(issue - p.at_cycle));
            return Err(self.s.fault_at(id, FaultKind::Livelock(text)));
        }
        match self.s.limit_reached(Some(issue - self.time.begin)) {
            Some(kind) => Err(self.s.fault_at(id, kind)),
            None => Ok(()),
        }
    }
}
