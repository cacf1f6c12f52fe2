//! Turns: several launches on different GPUs of a node simulated together on one timeline,
//! deterministically.
//!
//! Each launch is a *participant* running on its own host thread, but only one runs at a
//! time: the one holding the turn. A participant has a local time (picoseconds on the node's
//! timeline: its start plus what its engine has simulated, [`Turn`]); the turn goes to the
//! participant with the smallest local time (ties to the lowest index), which runs until its
//! local time passes the next-smallest participant's by [`LOOKAHEAD_PS`], then hands it on.
//! Which participant runs, and for how long, therefore depends only on the simulated times,
//! never on how the host schedules its threads: the same launches with the same seed give
//! bit-identical results. The hand-over is a mutex and a condition variable, so everything
//! one participant wrote before handing over happens-before what the next one reads (the
//! shared memory of peer access and host-visible memory, [`crate::backing`]).
//!
//! A participant whose every live wave is proven to loop ([`crate::progress`]) may only be
//! waiting for another one: it *stalls* ([`Turn::stall`]) and gets the turn back only after
//! some participant changed something (memory, a wave's start or end). When every
//! participant still running is stalled and nothing changed since, nothing ever will: each of
//! them ends with a livelock fault that names all of them.
//!
//! A participant that is not a kernel (a host thread, [`crate::cosim::NodeAgent`]) may also
//! *park* ([`Turn::park`]): it has nothing to do until something outside the node's timeline
//! happens (a host thread's next access to watched memory). A parked participant is left out
//! of the ordering and of the livelock rule until it [`Turn::unpark`]s, which puts it back at
//! the earliest time of the participants still running: when that happens depends on the host,
//! so a participant that parks gives up determinism for what it does after (its owner says
//! when it may park).
//!
//! The engines meet their [`Turn`] where they already poll the host agent (the functional
//! scheduler between quanta, the timing engine between instructions): one comparison of
//! their local measure against a cached horizon ([`Turn::due`]); the lock is taken only when
//! the horizon is reached.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// How far (picoseconds of simulated time) the participant holding the turn may run past the
/// next one's local time before handing the turn over. Shorter than the one-way latency of
/// any link between GPUs (xGMI: hundreds of ns, `configs/nodes/*.ron`), so a store one GPU
/// makes is never seen by another earlier in simulated time than the link could carry it by
/// more than this; longer would cost fewer hand-overs (each is a host thread switch, some
/// microseconds of host time) for less faithful timing. Assumed: 100 ns, measured to keep
/// the hand-overs of an 8-GPU ring all-reduce a small part of its host time (README).
pub const LOOKAHEAD_PS: u64 = 100_000;

/// Picoseconds of simulated time a functional-mode participant advances per
/// wave-instruction its dispatch executes: the functional engine has no clock, so its local
/// time is this nominal measure (1 ns: an instruction every cycle of a 1 GHz wave), which
/// only decides how often the turn moves.
pub const FUNCTIONAL_PS_PER_INSTRUCTION: u64 = 1_000;

/// With every other participant parked, the holder looks at the turn after this many
/// lookaheads (100 us of simulated time) instead of one: a lone kernel beside a parked host
/// would otherwise take the lock every 100 ns, every 100 wave-instructions in functional mode.
/// A parked participant that unparks waits for the holder's next look, so this bounds how late
/// (in the holder's time) it comes back; assumed, not measured.
pub const PARKED_SPAN: u64 = 1000;

/// The coordinator of one group of participants.
pub struct Turns {
    state: Mutex<State>,
    turn: Condvar,
    lookahead_ps: u64,
}

struct State {
    parts: Vec<Part>,
    /// Who runs now (`None` once every participant is done).
    holder: Option<usize>,
    /// Every running participant stalled with nothing changed since: the node's report.
    livelock: Option<String>,
    /// Hand-overs after which something had changed.
    changes: u64,
}

struct Part {
    /// What reports call it (`kernel K on GPU n`).
    label: String,
    time_ps: u64,
    done: bool,
    stalled: bool,
    /// Left out of the ordering until it unparks ([`Turn::park`]).
    parked: bool,
}

/// Why a participant must stop: every participant of the node spins, and nothing can change
/// any more. The text names every participant and its local time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeLivelock(pub String);

impl Turns {
    /// Participants labelled `labels`, each starting at its start time on the node's timeline
    /// (picoseconds), with the default lookahead.
    pub fn new(parts: &[(String, u64)]) -> Turns {
        Turns::with_lookahead(parts, LOOKAHEAD_PS)
    }

    pub fn with_lookahead(parts: &[(String, u64)], lookahead_ps: u64) -> Turns {
        let parts: Vec<Part> = parts.iter().map(|(label, t)| Part { label: label.clone(), time_ps: *t, done: false, stalled: false, parked: false }).collect();
        let holder = (0..parts.len()).min_by_key(|&i| (parts[i].time_ps, i));
        Turns { state: Mutex::new(State { parts, holder, livelock: None, changes: 0 }), turn: Condvar::new(), lookahead_ps }
    }

    /// Participant `me`'s handle; [`Turn::begin`] waits for its first turn.
    pub fn participant(self: &Arc<Self>, me: usize) -> Turn {
        let start_ps = self.lock().parts.get(me).map_or(0, |p| p.time_ps);
        Turn {
            turns: self.clone(),
            me,
            start_ps,
            origin: 0,
            ps_num: FUNCTIONAL_PS_PER_INSTRUCTION,
            ps_den: 1,
            horizon_ps: start_ps,
            horizon: 0,
            epoch: 0,
            seen: 0,
            finished: false,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A participant that panicked while holding the lock left consistent state (every
        // update is a single assignment); the others carry on.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl State {
    /// The participant that should run next: the smallest local time among those neither done
    /// nor stalled.
    fn next(&self) -> Option<usize> {
        (0..self.parts.len()).filter(|&i| self.parts[i].runs()).min_by_key(|&i| (self.parts[i].time_ps, i))
    }

    /// The report once every running participant is stalled.
    fn report(&self) -> String {
        let spinning: Vec<String> = self.parts.iter().filter(|p| !p.done).map(|p| format!("{} (at {} ns)", p.label, p.time_ps / 1000)).collect();
        format!("every kernel still running on the node spins and none changed memory since: {}", spinning.join(", "))
    }

    /// Give the turn to the next participant; when none may run but some are still running
    /// (all stalled), the node is livelocked.
    fn hand_over(&mut self) {
        self.holder = self.next();
        if self.holder.is_none() && self.parts.iter().any(|p| !p.done && !p.parked) && self.livelock.is_none() {
            self.livelock = Some(self.report());
        }
    }
}

impl Part {
    /// Whether it takes part in the ordering: neither done, stalled nor parked.
    fn runs(&self) -> bool {
        !self.done && !self.stalled && !self.parked
    }
}

/// One participant's side: its local time, its cached horizon, and the hand-over.
///
/// Local time is `start + (units - origin) * ps_num / ps_den` picoseconds, where `units` is
/// what its engine counts: device cycles in timing mode (`ps_num / ps_den` = 10^6 / clock MHz),
/// wave-instructions in functional mode ([`FUNCTIONAL_PS_PER_INSTRUCTION`]).
pub struct Turn {
    turns: Arc<Turns>,
    me: usize,
    start_ps: u64,
    origin: u64,
    ps_num: u64,
    ps_den: u64,
    horizon_ps: u64,
    /// The first local unit at which the turn must be looked at again.
    horizon: u64,
    /// The engine's progress epoch at the last hand-over.
    epoch: u64,
    /// The node's change count when this participant last had the turn.
    seen: u64,
    finished: bool,
}

impl Turn {
    /// Count local time from `origin` units of the engine's measure, `ps_num / ps_den`
    /// picoseconds each (the device sets this as its launch starts).
    pub fn set_rate(&mut self, origin: u64, ps_num: u64, ps_den: u64) {
        (self.origin, self.ps_num, self.ps_den) = (origin, ps_num.max(1), ps_den.max(1));
        self.horizon = self.units_at(self.horizon_ps);
    }

    /// Local time at `units` of the engine's measure.
    pub fn ps(&self, units: u64) -> u64 {
        let d = u128::from(units.saturating_sub(self.origin)) * u128::from(self.ps_num) / u128::from(self.ps_den);
        self.start_ps.saturating_add(u64::try_from(d).unwrap_or(u64::MAX))
    }

    /// The first unit whose local time reaches `ps`.
    fn units_at(&self, ps: u64) -> u64 {
        let d = u128::from(ps.saturating_sub(self.start_ps)) * u128::from(self.ps_den);
        let u = d.div_ceil(u128::from(self.ps_num));
        self.origin.saturating_add(u64::try_from(u).unwrap_or(u64::MAX))
    }

    /// Whether the engine, at `units`, must call [`Turn::pass`]: the hot-loop check.
    #[inline(always)]
    pub fn due(&self, units: u64) -> bool {
        units >= self.horizon
    }

    /// Wait for this participant's first turn.
    pub fn begin(&mut self) -> Result<(), NodeLivelock> {
        let turns = self.turns.clone();
        let st = turns.lock();
        self.wait(&turns, st).map(|_| ())
    }

    /// At `units`, with the engine's progress epoch `epoch`: record the local time, and hand
    /// the turn over if another participant is now earlier (returns when it is ours again).
    /// Returns whether another participant changed something meanwhile: the engine's proof
    /// that its waves loop no longer holds, and its search must restart ([`Turn::rebase`]).
    #[inline(never)]
    pub fn pass(&mut self, units: u64, epoch: u64) -> Result<bool, NodeLivelock> {
        let now = self.ps(units);
        let turns = self.turns.clone();
        let mut st = turns.lock();
        self.record(&mut st, now, epoch);
        st.hand_over();
        self.wait(&turns, st)
    }

    /// Every live wave of this participant is proven to loop at `units`: unless it changed
    /// something since its last hand-over, it waits until another participant has; an error
    /// when no participant can change anything any more. After it returns the engine restarts
    /// its livelock search and tells [`Turn::rebase`] its new epoch.
    #[inline(never)]
    pub fn stall(&mut self, units: u64, epoch: u64) -> Result<bool, NodeLivelock> {
        let now = self.ps(units);
        let turns = self.turns.clone();
        let mut st = turns.lock();
        let changed = self.record(&mut st, now, epoch);
        if !changed {
            st.parts[self.me].stalled = true;
        }
        st.hand_over();
        self.wait(&turns, st)
    }

    /// The engine's progress epoch moved without a visible change (it restarted its livelock
    /// search after [`Turn::stall`]).
    pub fn rebase(&mut self, epoch: u64) {
        self.epoch = epoch;
    }

    /// At local time `ps` (picoseconds; a participant measured in them, as a
    /// [`crate::cosim::NodeAgent`] is), with progress epoch `epoch`: give the turn up and leave
    /// the ordering until [`Turn::unpark`]. Returns at once; the caller waits for what unparks
    /// it outside the coordinator, and asks [`Turn::others_done`] meanwhile.
    pub fn park(&mut self, ps: u64, epoch: u64) {
        let turns = self.turns.clone();
        let mut st = turns.lock();
        self.record(&mut st, ps, epoch);
        st.parts[self.me].parked = true;
        if st.holder == Some(self.me) {
            st.hand_over();
        }
        drop(st);
        turns.turn.notify_all();
    }

    /// Back into the ordering after [`Turn::park`], at the later of its own time and the
    /// earliest time of the participants still running, and wait for the turn. Gives the local
    /// time it resumes at.
    pub fn unpark(&mut self) -> Result<u64, NodeLivelock> {
        let turns = self.turns.clone();
        let mut st = turns.lock();
        let me = self.me;
        let earliest = (0..st.parts.len()).filter(|&i| i != me && !st.parts[i].done).map(|i| st.parts[i].time_ps).min();
        let p = &mut st.parts[me];
        p.parked = false;
        p.time_ps = p.time_ps.max(earliest.unwrap_or(0));
        let now = p.time_ps;
        if st.holder.is_none() && st.livelock.is_none() {
            st.hand_over();
        }
        self.wait(&turns, st).map(|_| now)
    }

    /// Whether every other participant is done (a parked one may then end too).
    pub fn others_done(&self) -> bool {
        let st = self.turns.lock();
        st.parts.iter().enumerate().all(|(i, p)| i == self.me || p.done)
    }

    /// This participant's launch ended (or failed): the turn moves on for good.
    pub fn finish(&mut self) {
        if std::mem::replace(&mut self.finished, true) {
            return;
        }
        let mut st = self.turns.lock();
        let p = &mut st.parts[self.me];
        (p.done, p.stalled, p.parked) = (true, false, false);
        // Ending is a change: a kernel waiting for this one's end may now see its results.
        st.parts.iter_mut().for_each(|p| p.stalled = false);
        st.changes += 1;
        st.hand_over();
        drop(st);
        self.turns.turn.notify_all();
    }

    /// Note this participant's local time `now` and epoch; a change since the last hand-over
    /// wakes every stalled participant. Returns whether something changed.
    fn record(&mut self, st: &mut State, now: u64, epoch: u64) -> bool {
        let changed = epoch != self.epoch;
        self.epoch = epoch;
        st.parts[self.me].time_ps = now;
        if changed {
            st.parts.iter_mut().for_each(|p| p.stalled = false);
            st.changes += 1;
            self.seen = st.changes;
        }
        changed
    }

    /// Wait until the turn is ours (or the node is livelocked), then set the horizon: the
    /// next-earliest other participant's time plus the lookahead, or a lookahead from now when
    /// the others are stalled (so that a change of ours reaches them soon). Returns whether
    /// another participant changed something since this one last had the turn.
    fn wait(&mut self, turns: &Turns, mut st: MutexGuard<'_, State>) -> Result<bool, NodeLivelock> {
        turns.turn.notify_all();
        while st.holder != Some(self.me) && st.livelock.is_none() {
            st = turns.turn.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        if let Some(text) = &st.livelock {
            return Err(NodeLivelock(text.clone()));
        }
        st.parts[self.me].stalled = false;
        let now = st.parts[self.me].time_ps;
        let others = (0..st.parts.len()).filter(|&i| i != self.me && st.parts[i].runs()).map(|i| st.parts[i].time_ps).min();
        let free = st.parts.iter().enumerate().all(|(i, p)| i == self.me || p.done);
        // Only parked participants besides this one: look at the turn far less often (a
        // parked one's return is the host's timing anyway, not the node's).
        let parked_only = st.parts.iter().enumerate().all(|(i, p)| i == self.me || p.done || p.parked);
        let step = if parked_only { turns.lookahead_ps.saturating_mul(PARKED_SPAN) } else { turns.lookahead_ps };
        self.horizon_ps = if free { u64::MAX } else { others.unwrap_or(now).max(now).saturating_add(step) };
        self.horizon = if free { u64::MAX } else { self.units_at(self.horizon_ps) };
        let others_changed = st.changes != self.seen;
        self.seen = st.changes;
        Ok(others_changed)
    }
}

impl Drop for Turn {
    /// A participant that unwinds or returns early still gives the turn up.
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three participants advancing by fixed steps on threads: the order in which they get
    /// the turn follows their local times, whatever the host does.
    #[test]
    fn the_earliest_participant_runs_and_the_order_is_fixed() {
        let order = |_: u32| {
            let turns = Arc::new(Turns::with_lookahead(&[("a".into(), 0), ("b".into(), 50), ("c".into(), 0)], 10));
            let log = Mutex::new(Vec::new());
            std::thread::scope(|s| {
                for (me, step) in [(0usize, 30u64), (1, 20), (2, 70)] {
                    let (turns, log) = (&turns, &log);
                    s.spawn(move || {
                        let mut t = turns.participant(me);
                        t.set_rate(0, 1, 1);
                        t.begin().unwrap();
                        let mut units = 0;
                        while units < 300 {
                            log.lock().unwrap().push((me, t.ps(units)));
                            units += step;
                            if t.due(units) {
                                t.pass(units, 0).unwrap();
                            }
                        }
                        t.finish();
                    });
                }
            });
            log.into_inner().unwrap()
        };
        let first = order(0);
        // Each entry runs before any participant's time passes it by more than a step plus the
        // lookahead.
        for (i, &(_, t)) in first.iter().enumerate() {
            assert!(first[i..].iter().all(|&(_, u)| u + 70 + 10 >= t), "{first:?}");
        }
        for run in 1..4 {
            assert_eq!(order(run), first, "run {run}");
        }
    }

    /// A parked participant holds nobody back: the other runs on alone, and, stalled with
    /// nothing changed, is told it is livelocked; the parked one coming back is told too.
    #[test]
    fn a_parked_participant_is_left_out_until_it_unparks() {
        let turns = Arc::new(Turns::with_lookahead(&[("kernel".into(), 0), ("host".into(), 0)], 10));
        let (mut k, mut h) = (turns.participant(0), turns.participant(1));
        for t in [&mut k, &mut h] {
            t.set_rate(0, 1, 1);
        }
        k.begin().unwrap();
        std::thread::scope(|s| {
            let host = s.spawn(move || {
                h.begin().unwrap();
                h.park(5, 0);
                // Parked: the kernel below runs to 1000 without handing the turn over.
                while !turns.lock().parts[0].stalled {
                    std::thread::yield_now();
                }
                let resumed = h.unpark();
                (resumed, h.others_done())
            });
            let mut units = 0;
            while units < 1000 {
                units += 7;
                if k.due(units) {
                    k.pass(units, 0).unwrap();
                }
            }
            // Stalled with the host parked: livelocked, unless the host comes back first.
            let r = k.stall(units, 0);
            let (resumed, done) = host.join().unwrap();
            match (r, resumed) {
                (Err(NodeLivelock(text)), Err(_)) => assert!(text.contains("kernel"), "{text}"),
                (r, resumed) => panic!("{r:?} {resumed:?}"),
            }
            assert!(!done);
        });
    }

    /// Two participants that both stall with nothing changed: both are told, with both named.
    #[test]
    fn all_stalled_is_a_node_livelock() {
        let turns = Arc::new(Turns::new(&[("kernel a on GPU 0".into(), 0), ("kernel b on GPU 1".into(), 0)]));
        let results: Vec<_> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..2)
                .map(|me| {
                    let turns = &turns;
                    s.spawn(move || {
                        let mut t = turns.participant(me);
                        t.begin()?;
                        t.stall(1000, 0).map(|_| ())
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for r in results {
            let Err(NodeLivelock(text)) = r else { panic!("{r:?}") };
            assert!(text.contains("kernel a on GPU 0") && text.contains("kernel b on GPU 1"), "{text}");
        }
    }
}
