//! The host as a participant of the node's turns: host threads of a HIP program read and write
//! host-visible memory *while* the simulated kernels run, each access taking its turn in
//! simulated time (the design is in `host_watch`'s documentation; this joins it to
//! `hipscope_sim::cosim::run_with_agents`).
//!
//! - When: once a program has host-visible allocations (`hipHostMalloc`, `hipMallocManaged`),
//!   each launch is queued (on a one-GPU node too) and the watch is armed over every such
//!   allocation until the queue is flushed ([`Session`]). Race detection (`grade --exec`)
//!   watches the flush's group with the host threads as one more agent
//!   (`hipscope_race::detector::host`: each served access is an event of the host agent); the
//!   timing story watches a launch run alone, so with it on launches run at once, as before.
//! - Who flushes: any call that needs the kernels' effects, as on a node of several GPUs, or
//!   the background flusher ([`flusher`]) when a host thread's access waits and no flush runs.
//! - During a flush the host threads are one participant ([`agent::HostThreads`]) started at
//!   the flush's start. One access is one step: holding the turn (the kernels have run up to
//!   its time, within the coordinator's lookahead), it writes the simulator's bytes of the
//!   page into the host's, lets the access run, gives what it wrote to the simulator, and
//!   advances by the host's memory latency (the node config's `memory_latency_ns`).
//! - The rule that keeps it deterministic: host time advances only by accesses, never by the
//!   wall clock, and while a host thread may still access watched memory ([`tasks`]: it runs
//!   program code outside HIP calls, or is inside an access) the participant holds the turn and
//!   waits for it, so the kernels never run ahead of an access that is coming. Only when no
//!   host thread may access does it park (the kernels run on without it), or when one that
//!   runs makes no access for seconds of host time (`agent::WAIT_LIMIT`: a busy thread that
//!   never touches watched memory must not stop the kernels for good). With one host thread
//!   touching watched memory the accesses and their simulated times are then fixed by the
//!   program alone. What is not deterministic: several host threads' accesses interleave in the
//!   order the host runs them, and a thread that sleeps in the kernel (a `sleep`, a blocking
//!   read) and touches watched memory afterwards comes back at the kernels' time of the moment
//!   it wakes (the participant unparks at the earliest running kernel's time).
//! - Memory: a GPU's store to host memory (uncached, `MTYPE` UC) lands in the simulator's bytes
//!   when its memory system performs it; a host load sees exactly the simulator's bytes at its
//!   turn; a host store enters them at its turn, and a GPU sees it when its load reaches
//!   memory (a stale line of a cache that holds it is the model's answer). The bytes are the
//!   ones every GPU's address space maps (a shared backing, `hipscope_sim::backing`); the
//!   participant touches them only while it holds the turn, and the turn passes under the
//!   coordinator's mutex, so one side's writes happen-before the other's reads: no data race.
//! - After the flush the host pages get the simulator's bytes (written through
//!   `/proc/self/mem` while still protected), the watch is disarmed, and an access still waiting
//!   runs on them.

pub mod agent;
pub mod flusher;
pub mod link;
pub mod tasks;

use crate::host_watch::{Watch, PAGE_BYTES};
use std::ops::Range;
use std::sync::atomic::Ordering;

/// The runtime's side of participation: the watch (installed at the first use) and what it
/// protects.
#[derive(Default)]
pub struct Session {
    watch: Option<Watch>,
    /// Installing failed (not Linux on x86-64, or a system call failed): launches run as
    /// before, with no host participation.
    unavailable: bool,
    /// The ranges protected now (empty: disarmed).
    pub watched: Vec<Range<u64>>,
}

impl Session {
    /// Whether participation is armed (launches queued, accesses waiting for turns).
    pub fn armed(&self) -> bool {
        !self.watched.is_empty()
    }

    pub fn watch(&self) -> Option<Watch> {
        self.watch.filter(|_| self.armed())
    }

    /// Protect `ranges` (the host-visible allocations) and turn participation on; false when
    /// the watch cannot (the caller then runs its launch at once, as before).
    pub fn arm(&mut self, ranges: Vec<Range<u64>>) -> bool {
        if self.unavailable || ranges.is_empty() {
            return false;
        }
        if self.armed() && self.watched == ranges {
            return true;
        }
        let watch = match self.watch {
            Some(w) => w,
            None => match Watch::install().and_then(|w| w.set_hooks(&link::TurnHooks).map(|_| w)) {
                Ok(w) => *self.watch.insert(w),
                Err(e) => return self.give_up(&e.to_string()),
            },
        };
        let pages: Vec<Range<usize>> = ranges.iter().map(|r| r.start as usize..(r.end as usize).next_multiple_of(PAGE_BYTES)).collect();
        if let Err(e) = watch.protect(&pages) {
            return self.give_up(&e.to_string());
        }
        self.watched = ranges;
        link::ON.store(true, Ordering::SeqCst);
        flusher::ensure();
        true
    }

    fn give_up(&mut self, why: &str) -> bool {
        eprintln!("hipscope: host threads cannot take turns with kernels ({why}); their accesses while kernels run are not modelled");
        self.unavailable = true;
        false
    }

    /// The flush is over and the host pages hold the kernels' results: unprotect, and let a
    /// waiting access run.
    pub fn disarm(&mut self) {
        if let (Some(w), true) = (self.watch, self.armed()) {
            if let Err(e) = w.unprotect() {
                eprintln!("hipscope: host-visible memory stays protected: {e}");
            }
        }
        self.watched.clear();
        link::release();
    }
}
