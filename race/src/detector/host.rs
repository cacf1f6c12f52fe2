//! The host as one more agent of a group's detector ([`super::group`]): the accesses of the
//! program's host threads to host memory while kernels run (caught one instruction at a time
//! by the HIP runtime's watch), as events with a host identity.
//!
//! What a host access counts as. The watch sees an access's address and whether it changed
//! bytes, never the instruction, so it cannot tell an `__atomic_load_n(p, __ATOMIC_ACQUIRE)`
//! from a plain `*p`. A host access to host memory shared with a running kernel is read as the
//! program must write it to be correct: a system-scope atomic of the host agent, an acquire
//! load when it changed nothing and a release store when it did (x86-64 gives every plain load
//! acquire and every plain store release order in hardware, but the language needs the atomic;
//! LLVM AMDGPUUsage, "Memory Scopes": only system scope includes the host). So a race reported
//! between a kernel and the host is the *kernel's* fault: its atomic's scope (agent or
//! narrower) does not include the host, or it is not atomic at all; a host side that is
//! really plain goes unreported, and a verdict of "race-free" means the kernel's side is right.
//!
//! The host threads are one thread of the detector (they take the node's turns as one
//! participant, one access at a time): accesses of different host threads are ordered in the
//! order the host made them. A read is one 4-byte granule (the faulting address's; the size
//! of a load is not seen), a write the granules of the bytes it changed.

use super::interp::{Atomic, Interp};
use super::shadow::{Kind, Rec};
use super::{Current, Detector, Launch, WaveState};
use hipscope_mm::Scope;
use hipscope_sim::observe::{Access as LaneAccess, Dir, Space};
use hipscope_sim::WaveId;

/// The agent number of the host in a group (GPU agents are their ordinals).
pub const HOST_AGENT: u32 = u32::MAX;

impl Detector {
    /// A detector for launches on the GPUs `agents` (one per launch) and the host threads, the
    /// last slot.
    pub(super) fn for_group_with_host(agents: &[u32]) -> Detector {
        let mut all = agents.to_vec();
        all.push(HOST_AGENT);
        Detector::for_group(&all)
    }

    /// The host threads' access to `bytes` bytes at `address` (`write`: it changed them), read
    /// as a system-scope acquire load or release store (the module's documentation).
    pub(super) fn host_access(&mut self, address: u64, bytes: u32, write: bool) {
        let slot = self.st.slots.saturating_sub(1);
        self.enter(slot);
        let wave = self.st.id(0);
        self.ensure_host_thread(wave, slot);
        let clock = self.st.clock_of(wave);
        let kind = Kind { write: false, atomic: Some(Scope::System), maybe: None, narrow: false, shared: false };
        let rec = |write| Rec::new(wave, clock, 0, Kind { write, ..kind }).by_lane(0);
        let atomic = Atomic {
            scope: Scope::System,
            acquire: (!write).then_some(Scope::System),
            release: write.then_some(Scope::System),
            narrow: false,
            release_implied: false,
        };
        self.st.live.cur = Some(Current {
            wave,
            pc: 0,
            interp: Some(Interp::Access { atomic: Some(atomic), maybe: None, shared: false, rmw: false }),
            read: rec(false),
            write: rec(true),
            scalar: false,
            synchronises: true,
            snapshot: None,
            released: false,
        });
        let dir = if write { Dir::Write } else { Dir::Read };
        let now = if write { rec(true) } else { rec(false) };
        self.lane_access(now, &LaneAccess { lane: 0, space: Space::Global, dir, address, bytes, data: &[] });
        self.st.finish_instruction();
    }

    /// The host threads' state, made at their first access.
    fn ensure_host_thread(&mut self, wave: u32, slot: u32) {
        let i = wave as usize;
        if self.st.waves.len() <= i {
            self.st.waves.resize_with(i + 1, || None);
        }
        if self.st.waves[i].is_none() {
            self.st.live.agent = HOST_AGENT;
            self.st.waves[i] = Some(WaveState::new(WaveId::default(), 0, slot, HOST_AGENT));
        }
    }
}

/// Whether `launch` is the host's slot of a group.
pub(super) fn is_host(launch: &Launch) -> bool {
    launch.agent == HOST_AGENT
}
