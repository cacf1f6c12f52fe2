//! One race detector for launches run together on several GPUs of a node
//! ([`hipscope_sim::cosim::run_together`]): a race between a kernel on GPU 0 and a kernel on
//! GPU 1 (a peer store and a flag) is a race between threads of different agents, which only
//! system-scope synchronisation orders.
//!
//! Each launch gets a [`Watcher`]: an observer that takes the shared detector's lock, tells
//! it which launch the event is from, and hands the event on. The launches of a group run on
//! host threads of their own but one at a time (the node's turns, `sim::node::turns`), and a
//! launch reports events only while it holds the turn, so the lock is never contended and
//! the detector sees the events in the turns' order, which depends on simulated times alone:
//! the same launches and seeds give the same races, whatever the host's threads do.

use super::Detector;
use hipscope_sim::observe::{Access, Dir, DispatchInfo, Executed, Observer, Space};
use hipscope_sim::WaveId;
use std::sync::{Mutex, MutexGuard};

/// A detector shared by a group of launches.
pub struct Group {
    det: Mutex<Detector>,
}

impl Group {
    /// A fresh detector for launches on the agents (GPU ordinals) `agents`, one per launch in
    /// order (launch `i`'s watcher is [`Group::watcher`]`(i)`).
    pub fn new(agents: &[u32]) -> Group {
        Group { det: Mutex::new(Detector::for_group(agents)) }
    }

    /// A fresh detector for launches on `agents`, as [`Group::new`], and the program's host
    /// threads as one more agent ([`super::host`]), watched by [`Group::host`].
    pub fn with_host(agents: &[u32]) -> Group {
        Group { det: Mutex::new(Detector::for_group_with_host(agents)) }
    }

    /// The host threads' watcher (a group made [`Group::with_host`]).
    pub fn host(&self) -> HostWatcher<'_> {
        HostWatcher { det: &self.det }
    }

    /// Read kernel `name`'s operations as `decided` decides them ([`Detector::decide`]).
    pub fn decide(&self, name: &str, decided: std::sync::Arc<crate::siblings::Decided>) {
        let mut det = self.det.lock().unwrap_or_else(|e| e.into_inner());
        det.decide(name, decided);
    }

    /// The observer of launch `slot`.
    pub fn watcher(&self, slot: usize) -> Watcher<'_> {
        Watcher { det: &self.det, slot: slot as u32 }
    }

    /// The detector, after the group has run.
    pub fn into_detector(self) -> Detector {
        self.det.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

/// One launch's view of a [`Group`]'s detector.
pub struct Watcher<'a> {
    det: &'a Mutex<Detector>,
    slot: u32,
}

impl Watcher<'_> {
    /// The detector, told that this launch's events follow.
    fn det(&self) -> MutexGuard<'_, Detector> {
        // A panic on another launch's thread ends the group anyway; its half-updated state is
        // only read for a report.
        let mut d = self.det.lock().unwrap_or_else(|e| e.into_inner());
        d.enter(self.slot);
        d
    }
}

impl Observer for Watcher<'_> {
    fn dispatch_started(&mut self, d: &DispatchInfo) {
        self.det().dispatch_started(d);
    }
    fn wave_started(&mut self, wave: WaveId, index: u32) {
        self.det().wave_started(wave, index);
    }
    fn executed(&mut self, e: &Executed) {
        self.det().executed(e);
    }
    fn access(&mut self, a: &Access) {
        self.det().access(a);
    }
    fn accesses(&mut self, lanes: u64, addresses: &[u64; hipscope_sim::wave::MAX_LANES], bytes: u32, space: Space, dir: Dir) {
        self.det().accesses(lanes, addresses, bytes, space, dir);
    }
    fn barrier_released(&mut self, waves: &[u32]) {
        self.det().barrier_released(waves);
    }
    fn wave_ended(&mut self, wave: WaveId, index: u32) {
        self.det().wave_ended(wave, index);
    }
    fn dispatch_ended(&mut self) {
        self.det().dispatch_ended();
    }
}

/// The host threads' view of a [`Group`]'s detector: called with each access while the host
/// holds the node's turn, so its events fall between the kernels' in the turns' order.
pub struct HostWatcher<'a> {
    det: &'a Mutex<Detector>,
}

impl HostWatcher<'_> {
    /// A host access to `bytes` bytes at `address`; `write`: it changed them.
    pub fn access(&self, address: u64, bytes: u32, write: bool) {
        let mut d = self.det.lock().unwrap_or_else(|e| e.into_inner());
        d.host_access(address, bytes, write);
    }
}
