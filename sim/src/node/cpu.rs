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
//! reads and writes 32-bit words ([`HostMemory`]).
//!
//! A script is a list of operations (`Vec<HostOp>`) or anything that hands them out one at a
//! time knowing what the earlier ones read ([`Script`]): the grader's host litmus threads
//! decide their next access from the values they loaded. The core performs each access in
//! memory before it starts the next, so its own accesses are never reordered (stronger than
//! x86-TSO, whose store buffer lets a later load pass an earlier store): a fence of the
//! script's source has nothing left to order and is not an operation here.

use super::turns::{NodeLivelock, Turn};

/// Word access to the memory a core reaches.
pub trait HostMemory {
    /// The word at `address`; `None` when nothing is mapped there.
    fn load_u32(&self, address: u64) -> Option<u32>;
    /// Store `value` at `address`; `false` when nothing is mapped there.
    fn store_u32(&mut self, address: u64, value: u32) -> bool;
}

/// A core may work on memory it borrows (an address space kept across runs).
impl<M: HostMemory + ?Sized> HostMemory for &mut M {
    fn load_u32(&self, address: u64) -> Option<u32> {
        (**self).load_u32(address)
    }
    fn store_u32(&mut self, address: u64, value: u32) -> bool {
        (**self).store_u32(address, value)
    }
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
    /// Atomic read-modify-write whose new value the script computes from the old one
    /// ([`Script::modify`]; `None` writes nothing, a failed compare-and-swap): one access, the
    /// old value is logged.
    Rmw { address: u64 },
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

/// What a core runs: its operations, handed out one at a time.
pub trait Script {
    /// Operation `i` (the `i`-th the core performs), given the steps done so far (`log[i - 1]`
    /// holds what the previous one read); `None` ends the script.
    fn op(&mut self, i: usize, log: &[Step]) -> Option<HostOp>;
    /// The value operation `i`, a [`HostOp::Rmw`], writes over `old` (`None`: it writes nothing).
    fn modify(&mut self, i: usize, old: u32) -> Option<u32> {
        let _ = (i, old);
        None
    }
}

/// A fixed list of operations, performed in order.
impl Script for Vec<HostOp> {
    fn op(&mut self, i: usize, _: &[Step]) -> Option<HostOp> {
        self.get(i).copied()
    }
}

/// A CPU core running a script `S` on memory `M`.
pub struct CpuCore<M, S = Vec<HostOp>> {
    /// What reports call it (`host core 0`).
    pub name: String,
    pub mem: M,
    pub script: S,
    /// Cost of one access (picoseconds): the node's host memory latency.
    pub access_ps: u64,
    /// Where it starts on the node's timeline (picoseconds).
    pub start_ps: u64,
    /// One entry per finished operation, in order.
    pub log: Vec<Step>,
}

impl<M: HostMemory, S: Script> CpuCore<M, S> {
    /// A core of a host whose memory latency is `memory_latency_ns`, starting at time 0.
    pub fn new(name: &str, mem: M, script: S, memory_latency_ns: f64) -> CpuCore<M, S> {
        let access_ps = (memory_latency_ns.max(0.0) * 1000.0).round() as u64;
        CpuCore { name: name.to_string(), mem, script, access_ps: access_ps.max(1), start_ps: 0, log: Vec::new() }
    }

    /// Run the script with the turn held ([`crate::cosim::NodeAgent::run`]); local time is
    /// counted in picoseconds from `start_ps` (the turn's rate is 1 ps a unit).
    pub fn run_script(&mut self, turn: &mut Turn) -> Result<(), NodeLivelock> {
        let (mut now, mut changes) = (0u64, 0u64);
        for i in 0.. {
            let Some(op) = self.script.op(i, &self.log) else { break };
            let mut accesses = 0;
            let value = loop {
                // Hand over before the access if another participant is now earlier, so the
                // access sees what they did up to this time.
                if turn.due(now) {
                    turn.pass(now, changes)?;
                }
                accesses += 1;
                now += self.access_ps;
                match self.access(i, op, &mut changes)? {
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
    fn access(&mut self, i: usize, op: HostOp, changes: &mut u64) -> Result<Option<u32>, NodeLivelock> {
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
            HostOp::Rmw { address } => {
                let old = self.mem.load_u32(address).ok_or_else(|| unmapped(address))?;
                if let Some(new) = self.script.modify(i, old) {
                    self.mem.store_u32(address, new);
                    *changes += 1;
                }
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

    /// Run `core`'s script alone on a timeline of its own.
    fn run_alone<S: Script>(core: &mut CpuCore<HashMap<u64, u32>, S>) -> Result<(), NodeLivelock> {
        let turns = std::sync::Arc::new(super::super::turns::Turns::new(&[("core".into(), 0)]));
        let mut turn = turns.participant(0);
        turn.set_rate(0, 1, 1);
        turn.begin().unwrap();
        let result = core.run_script(&mut turn);
        turn.finish();
        result
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
        run_alone(&mut core).unwrap();
        let seen: Vec<(u32, u64)> = core.log.iter().map(|s| (s.value, s.done_ps)).collect();
        assert_eq!(seen, [(7, 130_000), (5, 260_000), (7, 390_000)]);
        assert_eq!(core.mem[&0x200], 7);
    }

    /// A script that reads its own log: load a word, then an RMW doubling it only if the load
    /// saw 5 (a compare-and-swap's shape), then stop; each access one latency.
    struct Doubler;

    impl Script for Doubler {
        fn op(&mut self, i: usize, log: &[Step]) -> Option<HostOp> {
            match (i, log.last().map(|s| s.value)) {
                (0, _) => Some(HostOp::Load { address: 0x100 }),
                (1, Some(5)) => Some(HostOp::Rmw { address: 0x100 }),
                _ => None,
            }
        }
        fn modify(&mut self, _: usize, old: u32) -> Option<u32> {
            (old == 5).then_some(2 * old)
        }
    }

    #[test]
    fn a_script_decides_from_what_it_read() {
        for (start, ops, end) in [(5, 2, 10), (4, 1, 4)] {
            let mem: HashMap<u64, u32> = [(0x100, start)].into();
            let mut core = CpuCore::new("core", mem, Doubler, 100.0);
            run_alone(&mut core).unwrap();
            assert_eq!(core.log.len(), ops, "start {start}");
            assert!(core.log.iter().all(|s| s.value == start), "{:?}", core.log);
            assert_eq!(core.log.last().map(|s| s.done_ps), Some(ops as u64 * 100_000));
            assert_eq!(core.mem[&0x100], end);
        }
    }

    /// A spin that never sees its value ends the script with an error naming it.
    #[test]
    fn a_spin_gives_up_after_its_polls() {
        let mem: HashMap<u64, u32> = [(0x100, 0)].into();
        let mut core = CpuCore::new("core", mem, vec![HostOp::SpinUntil { address: 0x100, value: 1, max_polls: 4 }], 100.0);
        let e = run_alone(&mut core).unwrap_err();
        assert!(e.0.contains("gave up after 4 reads"), "{}", e.0);
    }
}
