//! The host's participant in a flush's turns: it serves the host threads' accesses to watched
//! memory one at a time, each at its own simulated time.

use super::link::{self, ADDRESS, DONE, GRANTED, IDLE, POSTED, REQ, WRITTEN};
use super::tasks;
use crate::host_watch::{Watch, PAGE_BYTES};
use hipscope_race::detector::group::HostWatcher;
use hipscope_sim::cosim::NodeAgent;
use hipscope_sim::memory::Memory;
use hipscope_sim::node::turns::{NodeLivelock, Turn};
use std::ops::Range;
use std::sync::atomic::Ordering;

/// Host time (ns) the participant waits for a request before it looks again whether any host
/// thread may still make one: short against a thread's start-up, long against a scan of
/// `/proc/self/task`.
const POLL_NS: u64 = 200_000;

/// Host time the participant holds the turn waiting for a request from host threads that run
/// program code but make none, before it parks anyway: a thread that never touches watched
/// memory but never sleeps either (a busy progress thread) must not stop the kernels for
/// good. Far longer than a host thread takes between two accesses (microseconds) or to start
/// (a millisecond on a loaded machine), so a program it changes the timing of computes for
/// seconds between touching host memory; assumed.
const WAIT_LIMIT: std::time::Duration = std::time::Duration::from_secs(2);

/// The host threads of the program, as one participant.
pub struct HostThreads<'a> {
    /// The simulator's bytes of host-visible memory (shared with every GPU's view of it).
    pub host: &'a mut Memory,
    /// The watched ranges (page-aligned).
    pub watched: &'a [Range<u64>],
    pub watch: Watch,
    pub start_ps: u64,
    /// What one access costs: the host's memory latency.
    pub access_ps: u64,
    /// Accesses served.
    pub accesses: u64,
    /// `grade --exec`: the race detector the kernels of the flush report to, told of each
    /// access as the host agent's ([`hipscope_race::detector::host`]).
    pub races: Option<HostWatcher<'a>>,
}

/// What the participant does next.
enum Next {
    Serve,
    Park,
    End,
}

impl NodeAgent for HostThreads<'_> {
    fn label(&self) -> String {
        "the host threads".to_string()
    }

    fn start_ps(&self) -> u64 {
        self.start_ps
    }

    /// The rule (module documentation of `host_agent`): host time starts at the flush's start
    /// and advances only by accesses, each the host's memory latency; with no access waiting
    /// and no host thread that may make one, the participant parks until one comes.
    fn run(&mut self, turn: &mut Turn) -> Result<(), NodeLivelock> {
        let (mut now, mut epoch) = (self.start_ps, 0u64);
        let mut fresh = true;
        loop {
            match next(turn, std::mem::take(&mut fresh)) {
                Next::End => return Ok(()),
                Next::Park => {
                    turn.park(now, epoch);
                    match wait_parked(turn)? {
                        Some(t) => now = t,
                        None => return Ok(()),
                    }
                }
                Next::Serve => {
                    if self.serve() {
                        epoch += 1;
                    }
                    now += self.access_ps;
                    if turn.due(now) {
                        turn.pass(now, epoch)?;
                    }
                }
            }
        }
    }
}

/// Wait, holding the turn, for a request while a host thread may still make one. `fresh`: the
/// first look, which asks at once (a program whose host threads are all in HIP calls costs no
/// waiting).
fn next(turn: &Turn, fresh: bool) -> Next {
    let mut wait = !fresh;
    let since = std::time::Instant::now();
    loop {
        if REQ.load() == POSTED {
            return Next::Serve;
        }
        if turn.others_done() {
            return Next::End;
        }
        if wait {
            REQ.wait_while_for(REQ.load(), POLL_NS);
            if REQ.load() == POSTED {
                return Next::Serve;
            }
        }
        wait = true;
        if !tasks::may_access() || since.elapsed() > WAIT_LIMIT {
            return if REQ.load() == POSTED { Next::Serve } else { Next::Park };
        }
    }
}

/// Parked: wait for a request (then back into the turns: the time resumed at) or the kernels'
/// end (`None`).
fn wait_parked(turn: &mut Turn) -> Result<Option<u64>, NodeLivelock> {
    loop {
        if REQ.load() == POSTED {
            return turn.unpark().map(Some);
        }
        if turn.others_done() {
            return Ok(None);
        }
        REQ.wait_while_for(REQ.load(), POLL_NS);
    }
}

impl HostThreads<'_> {
    /// Serve the posted access: the simulator's bytes of its page (and the pages either side,
    /// which an access crossing a page boundary may touch second) into the host's, grant it,
    /// and give what it wrote to the simulator. Whether it wrote.
    fn serve(&mut self) -> bool {
        let page = (ADDRESS.load(Ordering::Acquire) & !(PAGE_BYTES - 1)) as u64;
        let size = PAGE_BYTES as u64;
        for p in [page.wrapping_sub(size), page, page + size] {
            if self.watched.iter().any(|r| r.start <= p && p + size <= r.end) {
                if let Some(bytes) = self.host.bytes(p, size) {
                    // A failed write leaves the host's older bytes: the access sees those.
                    let _ = self.watch.poke(p as usize, bytes);
                }
            }
        }
        REQ.store(GRANTED);
        // One instruction's time: the thread single-steps it and reports.
        REQ.wait_until(|v| v == DONE);
        let (mut wrote, mut changed) = (false, false);
        // SAFETY: this is the participant and the request is DONE.
        for (address, bytes) in unsafe { WRITTEN.spans() } {
            wrote |= self.host.write(address as u64, bytes).is_ok();
            changed = true;
            if let Some(r) = &self.races {
                r.access(address as u64, bytes.len() as u32, true);
            }
        }
        if let (Some(r), false) = (&self.races, changed) {
            // A load (or a store of the bytes already there): its size is not seen, so the
            // 4-byte granule it faulted in.
            r.access(ADDRESS.load(Ordering::Acquire) as u64 & !3, 4, false);
        }
        REQ.store(IDLE);
        self.accesses += 1;
        wrote
    }
}

/// The request left waiting when a flush ends is served by the next flush's participant, or
/// passed when participation ends ([`link::release`]).
pub fn end_of_flush() {
    link::LIVE.store(false, Ordering::SeqCst);
}
