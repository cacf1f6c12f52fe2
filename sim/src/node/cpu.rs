//! A modelled CPU core of the node's host: a participant of a co-simulated group
//! ([`crate::cosim::run_with_agents`]) that runs a short script of host operations — load,
//! store, fetch-add, spin until a value — on host-visible memory, in turn with the kernels on
//! one timeline.
//!
//! Each access takes the node's host memory latency (`host.memory_latency_ns` of
//! `configs/nodes/*.ron`: a core's load-to-use DRAM latency) and reads or writes the
//! simulator's memory when the core holds the turn, at its local time: a GPU store is seen
//! by the first poll the core makes after the store reached memory in simulated time (within
//! the turn's lookahead, [`super::turns::LOOKAHEAD_PS`]). The core's own caches are not
//! modelled: every access goes to memory, as an access to memory another agent writes
//! coherently does once the line has been invalidated by that write (the cost of the miss is
//! the latency above). Nothing here knows what memory is: the script runs on anything that
//! reads and writes 32-bit words ([`HostMemory`]), so a litmus thread `@ host` can drive a
//! core with its own script later.

use super::turns::{NodeLivelock, Turn};

/// Word access to the memory a core reaches.
pub trait HostMemory {
    /// The word at `address`; `None` when nothing is mapped there.
    fn load_u32(&self, address: u64) -> Option<u32>;
    /// Store `value` at `address`; `false` when nothing is mapped there.
    fn store_u32(&mut self, address: u64, value: u32) -> bool;
}

/// One host operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostOp {
    /// Read the word (the value is logged).
    Load { address: u64 },
    /// Write the word.
    Store { address: u64, value: u32 },
    /// Atomic fetch-add (a locked RMW: one access; the old value is logged).
    FetchAdd { address: u64, value: u32 },
    /// Read the word until it holds `value` (the value is logged); after `max_polls` reads
    /// without it the script ends with an error.
    SpinUntil { address: u64, value: u32, max_polls: u64 },
}

/// What one operation of the script saw and when it finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// Index into the script.
    pub op: usize,
    /// The value read (loads, RMWs, spins), else the value written.
    pub value: u32,
    /// Reads a spin made (1 for other operations).
    pub accesses: u64,
    /// Local time when it finished (picoseconds on the node's timeline).
    pub done_ps: u64,
}

/// A CPU core running a script on memory `M`.
pub struct CpuCore<M> {
    /// What reports call it (`host core 0`).
    pub name: String,
    pub mem: M,
    pub script: Vec<HostOp>,
    /// Cost of one access (picoseconds): the node's host memory latency.
    pub access_ps: u64,
    /// Where it starts on the node's timeline (picoseconds).
    pub start_ps: u64,
    /// One entry per finished operation, in order.
    pub log: Vec<Step>,
}

impl<M: HostMemory> CpuCore<M> {
    /// A core of a host whose memory latency is `memory_latency_ns`, starting at time 0.
    pub fn new(name: &str, mem: M, script: Vec<HostOp>, memory_latency_ns: f64) -> CpuCore<M> {
        let access_ps = (memory_latency_ns.max(0.0) * 1000.0).round() as u64;
        CpuCore { name: name.to_string(), mem, script, access_ps: access_ps.max(1), start_ps: 0, log: Vec::new() }
    }

    /// Run the script with the turn held ([`crate::cosim::NodeAgent::run`]); local time is
    /// counted in picoseconds from `start_ps` (the turn's rate is 1 ps a unit).
    pub fn run_script(&mut self, turn: &mut Turn) -> Result<(), NodeLivelock> {
        let (mut now, mut changes) = (0u64, 0u64);
        for i in 0..self.script.len() {
            let op = self.script[i];
            let mut accesses = 0;
            let value = loop {
                // Hand over before the access if another participant is now earlier, so the
                // access sees what they did up to this time.
                if turn.due(now) {
                    turn.pass(now, changes)?;
                }
                accesses += 1;
                now += self.access_ps;
                match self.access(op, &mut changes)? {
                    Some(v) => break v,
                    None if matches!(op, HostOp::SpinUntil { max_polls, .. } if accesses >= max_polls) => {
                        return Err(NodeLivelock(format!("{}: operation {i} ({op:?}) gave up after {accesses} reads", self.name)));
                    }
                    None => {}
                }
            };
            self.log.push(Step { op: i, value, accesses, done_ps: self.start_ps + now });
        }
        Ok(())
    }

    /// One access of `op`: its value, or `None` for a spin's read that did not see its value.
    fn access(&mut self, op: HostOp, changes: &mut u64) -> Result<Option<u32>, NodeLivelock> {
        let unmapped = |a: u64| NodeLivelock(format!("{}: nothing mapped at {a:#x}", self.name));
        Ok(match op {
            HostOp::Load { address } => Some(self.mem.load_u32(address).ok_or_else(|| unmapped(address))?),
            HostOp::Store { address, value } => {
                if !self.mem.store_u32(address, value) {
                    return Err(unmapped(address));
                }
                *changes += 1;
                Some(value)
            }
            HostOp::FetchAdd { address, value } => {
                let old = self.mem.load_u32(address).ok_or_else(|| unmapped(address))?;
                self.mem.store_u32(address, old.wrapping_add(value));
                *changes += 1;
                Some(old)
            }
            HostOp::SpinUntil { address, value, .. } => {
                let v = self.mem.load_u32(address).ok_or_else(|| unmapped(address))?;
                (v == value).then_some(v)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    impl HostMemory for HashMap<u64, u32> {
        fn load_u32(&self, address: u64) -> Option<u32> {
            self.get(&address).copied()
        }
        fn store_u32(&mut self, address: u64, value: u32) -> bool {
            self.insert(address, value).is_some()
        }
    }

    /// Alone on the timeline, each access costs the memory latency: a store, an RMW and a
    /// spin that sees its value at once finish 1, 2 and 3 latencies in.
    #[test]
    fn each_access_costs_the_memory_latency() {
        let mem: HashMap<u64, u32> = [(0x100, 5), (0x200, 0)].into();
        let script = vec![
            HostOp::Store { address: 0x200, value: 7 },
            HostOp::FetchAdd { address: 0x100, value: 2 },
            HostOp::SpinUntil { address: 0x100, value: 7, max_polls: 3 },
        ];
        let mut core = CpuCore::new("core", mem, script, 130.0);
        let turns = std::sync::Arc::new(super::super::turns::Turns::new(&[("core".into(), 0)]));
        let mut turn = turns.participant(0);
        turn.set_rate(0, 1, 1);
        turn.begin().unwrap();
        core.run_script(&mut turn).unwrap();
        turn.finish();
        let seen: Vec<(u32, u64)> = core.log.iter().map(|s| (s.value, s.done_ps)).collect();
        assert_eq!(seen, [(7, 130_000), (5, 260_000), (7, 390_000)]);
        assert_eq!(core.mem[&0x200], 7);
    }

    /// A spin that never sees its value ends the script with an error naming it.
    #[test]
    fn a_spin_gives_up_after_its_polls() {
        let mem: HashMap<u64, u32> = [(0x100, 0)].into();
        let mut core = CpuCore::new("core", mem, vec![HostOp::SpinUntil { address: 0x100, value: 1, max_polls: 4 }], 100.0);
        let turns = std::sync::Arc::new(super::super::turns::Turns::new(&[("core".into(), 0)]));
        let mut turn = turns.participant(0);
        turn.set_rate(0, 1, 1);
        turn.begin().unwrap();
        let e = core.run_script(&mut turn).unwrap_err();
        turn.finish();
        assert!(e.0.contains("gave up after 4 reads"), "{}", e.0);
    }
}
