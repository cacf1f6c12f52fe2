//! Where an atomic is performed, and how long its lanes take there.
//!
//! An atomic read-modify-write is performed by the agent that owns the memory, not by the CU
//! (LLVM AMDGPUUsage, *Memory Model GFX942* / *GFX90A*: "atomic RMWs implicitly bypass the
//! L1"; they are performed in the L2, or beyond it for memory the L2 does not keep coherent).
//! Here that is the atomic unit of the L2 channel caching the line, or — for atomics that
//! go past the L2s ([`super::MemSystem`]'s uncached mode: several L2s in one agent, host
//! memory) — a memory-side unit per memory channel, assumed to run at the L2 channel's rate
//! as no public source gives the memory-side rate.
//!
//! Each write request of an access (one per open line) is performed in *passes*: a pass
//! performs one lane's operation on each distinct address of the request, so lanes on one
//! address serialise, one pass each, while a request of distinct addresses takes one pass.
//! Requests to different channels proceed in parallel, each on its own unit; requests to one
//! channel queue on its unit ([`super::pipe::Pipe`]), whichever wave or CU sent them.

use super::pipe::{Pipe, SUB};

/// The atomic unit an open line's atomics go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unit {
    /// The atomic unit of L2 channel `n` (`xcd * channels + channel`).
    L2(usize),
    /// The memory-side unit of memory channel `n`.
    Memory(usize),
    /// The far agent's unit of remote path `n` ([`super::remote`]).
    Remote(usize),
}

/// An open line's atomic request on its way to its unit.
#[derive(Debug, Clone, Copy)]
pub(super) struct Request {
    /// The open line (write-request granule).
    pub key: u64,
    pub unit: Unit,
    /// When the line's data is at the unit (arrival, or the fill from memory).
    pub from: u64,
    /// Cycles from the unit back to the wave's registers (the rest of the L2 round trip and
    /// the L1's return path).
    pub back: u64,
}

/// The atomics of one access: its requests and, per address, how many of its lanes update it.
#[derive(Debug, Clone, Default)]
pub(super) struct Tally {
    requests: Vec<Request>,
    /// (line key, address, lanes).
    addresses: Vec<(u64, u64, u32)>,
}

impl Tally {
    pub fn clear(&mut self) {
        self.requests.clear();
        self.addresses.clear();
    }

    /// The access opened a line for atomics.
    pub fn request(&mut self, r: Request) {
        self.requests.push(r);
    }

    /// One lane's atomic on `address`, in line `key`.
    pub fn lane(&mut self, key: u64, address: u64) {
        match self.addresses.iter_mut().find(|e| e.0 == key && e.1 == address) {
            Some(e) => e.2 += 1,
            None => self.addresses.push((key, address, 1)),
        }
    }

    /// Passes the request of line `key` takes: the most lanes on any one of its addresses
    /// (at least one).
    fn passes(&self, key: u64) -> u64 {
        self.addresses.iter().filter(|e| e.0 == key).map(|e| e.2 as u64).max().unwrap_or(1).max(1)
    }
}

/// The atomic units of a memory system, with their rate.
#[derive(Debug, Clone, Default)]
pub(super) struct Units {
    l2: Vec<Pipe>,
    memory: Vec<Pipe>,
    remote: Vec<Pipe>,
    ops_per_cycle: u64,
    latency: u64,
}

impl Units {
    pub fn new(l2_channels: usize, memory_channels: usize, ops_per_cycle: u32, latency_cycles: u32) -> Units {
        Units {
            l2: vec![Pipe::default(); l2_channels],
            memory: vec![Pipe::default(); memory_channels],
            remote: Vec::new(),
            ops_per_cycle: ops_per_cycle.max(1) as u64,
            latency: latency_cycles as u64,
        }
    }

    /// One far-side unit for each of `paths` remote paths, at this GPU's atomic rate
    /// (assumed: [`super::remote`]).
    pub fn set_remote(&mut self, paths: usize) {
        self.remote = vec![Pipe::default(); paths];
    }

    pub fn clear(&mut self) {
        for p in self.l2.iter_mut().chain(&mut self.memory).chain(&mut self.remote) {
            p.clear();
        }
    }

    /// Perform the access's atomics: each request queues on its unit for its passes. Returns
    /// when the last result is back at the wave (`None`: no atomic request).
    pub fn perform(&mut self, tally: &Tally) -> Option<u64> {
        let mut done = None;
        for r in &tally.requests {
            let passes = tally.passes(r.key);
            let pipe = match r.unit {
                Unit::L2(n) => self.l2.get_mut(n),
                Unit::Memory(n) => self.memory.get_mut(n),
                Unit::Remote(n) => self.remote.get_mut(n),
            };
            let Some(pipe) = pipe else { continue };
            let start = pipe.reserve(r.from, passes * SUB / self.ops_per_cycle);
            let end = start + passes.div_ceil(self.ops_per_cycle) + self.latency + r.back;
            done = done.max(Some(end));
        }
        done
    }
}
