//! What each wave waits on, in words: the watchdog's and the deadlock reports' lines. Someone
//! reading them looks for the wave that holds the others up, so every wave gets one line
//! naming its CU and SIMD, its next instruction and the exact reason it does not issue.

use super::{Class, Sim};
use crate::fault::{wave_list, WaveId, LISTED_WAVES};
use crate::kernel::CodeSlot;
use crate::timing::issue::NotReady;
use crate::timing::placement::Needs;
use crate::timing::waitcnt::{Outstanding, Queue, Wait};
use crate::wave::WaveStatus;
use hipscope_isa::decode::Ctx;

/// "a work-group of 4 waves, 64 VGPRs each, 0 bytes of LDS <tail>".
pub(super) fn needs_text(n: &Needs, tail: &str) -> String {
    format!("a work-group of {} waves, {} VGPRs each, {} bytes of LDS {tail}", n.waves, n.vgprs, n.lds_bytes)
}

/// What a wait still waits for at `now`: per counter of the wait, the outstanding operations
/// and the most it allows, e.g. "2 vector loads + 1 vector stores outstanding, at most 0".
pub(super) fn outstanding_text(out: &Outstanding, now: u64, w: &Wait) -> String {
    let pending = out.pending(now);
    let parts: Vec<String> = w.parts[..w.n]
        .iter()
        .map(|&(set, limit)| {
            let items: Vec<String> = Queue::ALL
                .iter()
                .filter(|&&q| set & crate::timing::waitcnt::set(q) != 0)
                .filter(|&&q| pending[q as usize] > 0)
                .map(|&q| format!("{} {}", pending[q as usize], q.noun()))
                .collect();
            let what = if items.is_empty() { "nothing".to_string() } else { items.join(" + ") };
            format!("{what} outstanding, at most {limit}")
        })
        .collect();
    parts.join("; ")
}

impl Sim<'_, '_> {
    /// The report of every live wave (and the first waves not placed yet) at cycle `now`,
    /// after `heading`.
    pub(super) fn describe_waves(&mut self, now: u64, ctx: &Ctx, heading: &str) -> String {
        let mut live: Vec<(u32, WaveId, u64, String)> = Vec::new();
        for i in 0..self.s.waves.len() {
            let Some((index, id, pc)) = self.s.waves[i].as_ref().filter(|r| r.w.status != WaveStatus::Done).map(|r| (r.w.global_index, r.w.id, r.w.pc)) else {
                continue;
            };
            live.push((index, id, pc, self.wave_state(i, now, ctx)));
        }
        // Dispatch order reads best (slots are reused, so storage order is arbitrary).
        live.sort_by_key(|l| l.0);
        let count = live.len();
        let unplaced = self.unplaced_groups().count();
        let mut head = format!("{heading}; {count} live waves");
        if unplaced > 0 {
            head.push_str(&format!(", {unplaced} work-groups not placed yet ({})", needs_text(self.admit.needs(), "each")));
        }
        head.push(':');
        let lines = live.into_iter().map(|(_, id, pc, what)| (id, pc, what)).chain(self.unplaced_waves());
        wave_list(&head, lines)
    }

    /// The waves of the first work-groups still waiting for a CU (enough to fill the list).
    fn unplaced_waves(&self) -> Vec<(WaveId, u64, String)> {
        let k = self.s.d.kernel;
        let geo = &self.s.d.geo;
        let lanes = if k.wave64 { 64 } else { 32 };
        let mut first: Vec<u64> = self.unplaced_groups().collect();
        first.sort_unstable();
        first.truncate(LISTED_WAVES);
        let mut out = Vec::new();
        for n in first {
            let g = geo.group_at(n);
            let waves = geo.group_size(g).iter().product::<u32>().div_ceil(lanes);
            out.extend((0..waves).map(|wave| (WaveId { workgroup: g, wave }, k.entry, "not placed yet: no CU has room for its work-group".to_string())));
        }
        out
    }

    /// Work-groups no CU has started yet (each XCD's queue from its next group on).
    fn unplaced_groups(&self) -> impl Iterator<Item = u64> + '_ {
        let (count, stride) = (self.s.d.geo.group_count(), self.admit.next_group.len() as u64);
        self.admit.next_group.iter().flat_map(move |&from| (from..count).step_by(stride as usize))
    }

    /// One wave's state at `now`: why it does not issue.
    fn wave_state(&mut self, i: usize, now: u64, ctx: &Ctx) -> String {
        let why = self.why_not(i, now);
        let Some(r) = self.s.waves[i].as_ref() else { return String::new() };
        let loc = format!("CU{} SIMD{}", r.x.cu, r.x.simd);
        let text = || match self.s.d.kernel.code.get(r.x.idx) {
            Some(CodeSlot::Inst(e)) => hipscope_isa::print::format_inst(&e.inst, ctx),
            _ => "(no valid instruction)".to_string(),
        };
        match why {
            Some(NotReady::Barrier { since }) => {
                let (arrived, live) = self.s.groups[r.group].as_ref().map_or((0, 0), |g| (g.arrived, g.live));
                format!("{loc}: at s_barrier since cycle {since}, {arrived} of {live} live waves of its work-group arrived")
            }
            Some(NotReady::Sleep { until }) => format!("{loc}: in s_sleep until cycle {until}"),
            Some(NotReady::Waitcnt { wait, until }) => {
                format!("{loc}: `{}` waits: {} (until cycle {until})", text(), outstanding_text(&r.x.out, now, &wait))
            }
            Some(NotReady::PipeBusy { pipe, until }) => format!("{loc}: `{}` waits for its {} (busy until cycle {until})", text(), pipe.name()),
            Some(NotReady::Later { at }) | Some(NotReady::CounterFull { until: at }) => format!("{loc}: issues `{}` at cycle {at}", text()),
            None => format!("{loc}: ready to issue `{}`", text()),
        }
    }

    /// Why wave `i` does not issue at `now`, in the order a reader looks for it: the barrier,
    /// a sleep, a wait, a busy pipe, or simply a later issue cycle (a full counter shows as
    /// the latter: the engine already moved the wave's issue cycle past it).
    fn why_not(&mut self, i: usize, now: u64) -> Option<NotReady> {
        let r = self.s.waves[i].as_mut()?;
        if r.w.status == WaveStatus::AtBarrier {
            return Some(NotReady::Barrier { since: r.x.next });
        }
        if r.x.sleep_until > now {
            return Some(NotReady::Sleep { until: r.x.sleep_until });
        }
        let cls = self.classes.get(r.x.idx).copied().unwrap_or(Class::Other);
        if let Class::Wait(wait) = cls {
            let until = r.x.out.ready_at(now, &wait);
            if until > now {
                return Some(NotReady::Waitcnt { wait, until });
            }
        }
        if let Some((pipe, until)) = self.pipes[r.x.cu].busy(cls, r.x.simd).filter(|b| b.1 > now) {
            return Some(NotReady::PipeBusy { pipe, until });
        }
        (r.x.next > now).then_some(NotReady::Later { at: r.x.next })
    }
}
