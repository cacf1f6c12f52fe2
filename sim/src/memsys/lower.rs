//! The shared levels: L2 channels, the memory-side MALL and DRAM, and L2 maintenance.

use super::cache::{mask_of, Evicted, LineMask};
use super::channel;
use super::mtype::{other_agents, L2Mode};
use super::pipe::{occupancy, SUB};
use super::{Level, MemSystem};
use crate::counters::Counter;
use crate::memory::Memory;

/// A memory access below the L2, timed.
#[derive(Debug, Clone, Copy)]
pub(super) struct Below {
    /// When it is done (data at the L2, or the write performed).
    pub done: u64,
    /// Who answered: the MALL or DRAM (memory of another agent counts as DRAM).
    pub level: Level,
    /// When the memory side took its bytes: its arrival plus the cycles it queued for the
    /// MALL's and DRAM's bandwidth. Until then the bytes are still in the L2 (no write buffer
    /// between the L2 and memory is modelled), so a write-back holds its L2 slot until then.
    pub taken: u64,
}

/// What an L2 request does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum L2Op {
    Read,
    Write,
    Atomic,
}

impl MemSystem {
    pub(super) fn l2_channel(&self, xcd: usize, address: u64) -> usize {
        let ch = self.cfg.l2.channels.max(1) as usize;
        xcd * ch + channel::of(address, self.cfg.l2.channel_interleave_bytes, ch)
    }

    /// The DRAM (and MALL) channel of `address`.
    pub(super) fn dram_channel(&self, address: u64) -> usize {
        channel::of(address, self.cfg.dram.channel_interleave_bytes, self.dram.len())
    }

    /// The bytes memory holds at `line` (`out.len()` bytes), including writebacks not yet
    /// applied to `mem`.
    pub(super) fn memory_bytes(&self, mem: &Memory, line: u64, out: &mut [u8]) {
        mem.read_clamped(line, out);
        for e in &self.pending {
            let data = e.data();
            let (lo, hi) = (e.address.max(line), (e.address + data.len() as u64).min(line + out.len() as u64));
            for a in lo..hi {
                let k = (a - e.address) as usize;
                if e.dirty >> k & 1 != 0 {
                    out[(a - line) as usize] = data[k];
                }
            }
        }
    }

    /// Apply the writebacks recorded since the last call.
    pub(super) fn apply_pending(&mut self, mem: &mut Memory) {
        for e in self.pending.drain(..) {
            mem.write_masked(e.address, e.data(), e.dirty);
        }
    }

    /// Time a read of `bytes` at `line` from memory (MALL, then DRAM), starting at `at`;
    /// returns when the data is at the L2. Reads are on the current access's data path, so
    /// the level that answered is recorded for it.
    pub(super) fn memory_read_time(&mut self, line: u64, bytes: u32, at: u64) -> u64 {
        let req = self.cfg.l2.memory_read_request_bytes.max(1);
        self.counters.add(Counter::TccEaRdreq, bytes.div_ceil(req) as u64);
        if req == 32 {
            self.counters.add(Counter::TccEaRdreq32b, bytes.div_ceil(req) as u64);
        }
        let below = self.memory_time(line, bytes, at, false, self.far);
        self.reached(below.level);
        below.done
    }

    /// MALL lookup and DRAM channel time of a memory access: when it is done, whether the MALL
    /// or DRAM answered, and when the memory side took its bytes. Memory of another agent
    /// (`far`: its remote path) is reached over the link instead ([`super::remote`]); its
    /// answer counts as memory's, and the link's queue is its own (taken at `at`).
    pub(super) fn memory_time(&mut self, line: u64, bytes: u32, at: u64, write: bool, far: Option<usize>) -> Below {
        let remote = far.and_then(|n| if write { self.remote.write(n, bytes, at) } else { self.remote.read(n, bytes, at) });
        if let Some(t) = remote {
            self.counters.add(if write { Counter::RemoteWriteBytes } else { Counter::RemoteReadBytes }, bytes as u64);
            return Below { done: t, level: Level::Dram, taken: at };
        }
        let ch = self.dram_channel(line);
        let mut t = at;
        // Cycles the access waited for bandwidth (MALL channel, DRAM channel) on its way.
        let mut queued = 0;
        if let (Some(mall), Some(m)) = (self.mall.as_mut(), self.cfg.mall.as_ref()) {
            let start = self.mall_pipes[ch].reserve(at, occupancy(bytes as u64, self.mall_bytes_per_cycle_per_channel));
            queued += start - at;
            t = start + m.hit_latency_cycles as u64;
            let hit = match mall.find(line) {
                Some(s) => {
                    mall.touch(s);
                    self.counters.inc(Counter::MallHit);
                    true
                }
                None => {
                    self.counters.inc(Counter::MallMiss);
                    // Memory-side: reads and writes allocate; DRAM traffic is charged now.
                    mall.allocate(line);
                    false
                }
            };
            if hit && !write {
                return Below { done: t, level: Level::Mall, taken: at + queued };
            }
            if write {
                // A write, hit or miss, is answered by the MALL: it is memory-side, part of
                // memory for coherence (AMDGPUUsage: "fully coherent with memory"), so a write
                // it accepted is performed. Its bytes still go on to DRAM now: the MALL holds
                // no dirty data (tag-only), so it never writes anything back later.
                let start = self.dram[ch].reserve(t, occupancy(bytes as u64, self.dram_bytes_per_cycle_per_channel));
                self.counters.add(Counter::DramWriteBytes, bytes as u64);
                let level = if hit { Level::Mall } else { Level::Dram };
                return Below { done: t, level, taken: at + queued + (start - t) };
            }
        }
        let start = self.dram[ch].reserve(t, occupancy(bytes as u64, self.dram_bytes_per_cycle_per_channel));
        queued += start - t;
        self.counters.add(if write { Counter::DramWriteBytes } else { Counter::DramReadBytes }, bytes as u64);
        Below { done: start + self.cfg.dram.latency_cycles as u64, level: Level::Dram, taken: at + queued }
    }

    /// Write the dirty bytes of a line below the L2 at `at` ([`MemSystem::time_write_below`]),
    /// applied to memory with the next `apply_pending`. Returns when the line has left the
    /// L2: when the memory side took its last block.
    pub(super) fn write_below(&mut self, e: Evicted, at: u64, far: Option<usize>) -> u64 {
        let (_, taken) = self.time_write_below(e.address, e.dirty, e.data().len(), at, far);
        self.pending.push(e);
        taken
    }

    /// Count and time the write below the L2 of a `len`-byte line's `dirty` bytes: memory
    /// write requests per 64-byte block with dirty bytes (64-byte if both halves are dirty,
    /// else 32-byte), timed on DRAM, or on the link to the agent owning it (`far`).
    /// Returns when the last write is done and when the memory side took the last block.
    fn time_write_below(&mut self, address: u64, dirty: LineMask, len: usize, at: u64, far: Option<usize>) -> (u64, u64) {
        let blocks = (len.max(64) / 64) as u32;
        let (mut done, mut taken) = (at, at);
        for b in 0..blocks {
            let m = dirty >> (64 * b) & mask_of(0, 64);
            if m == 0 {
                continue;
            }
            let both = m & mask_of(0, 32) != 0 && m & mask_of(32, 32) != 0;
            self.counters.inc(Counter::TccEaWrreq);
            if both {
                self.counters.inc(Counter::TccEaWrreq64b);
            }
            let bytes = if both { 64 } else { 32 };
            let below = self.memory_time(address + 64 * b as u64, bytes, at, true, far);
            (done, taken) = (done.max(below.done), taken.max(below.taken));
        }
        (done, taken)
    }

    /// A request to the L2 of `xcd` for bytes `off..off+len` of the line at `address`,
    /// arriving at `at`. Reads and atomics fill a missing line from memory; writes allocate it
    /// without a fetch. Returns (slot, cycle the L2 has the data / accepts the write).
    pub(super) fn l2_request(&mut self, mem: &Memory, xcd: usize, address: u64, len: u32, op: L2Op, at: u64) -> (usize, u64) {
        let lat = self.cfg.l2.hit_latency_cycles as u64;
        let line = self.l2[xcd].line_address(address);
        // Read requests of one wave access to one L2 line reach the L2 together and count
        // as one request (MI210 vcopy/mixbench: TCC_REQ and TCC_MISS count 128-byte lines
        // although the L1 sends 64-byte read requests).
        let merged = op == L2Op::Read && self.read_lines.contains(&(xcd, line));
        if op == L2Op::Read && !merged {
            self.read_lines.push((xcd, line));
        }
        if !merged {
            self.counters.inc(Counter::TccReq);
            self.counters.inc(match op {
                L2Op::Read => Counter::TccRead,
                L2Op::Write => Counter::TccWrite,
                L2Op::Atomic => Counter::TccAtomic,
            });
        }
        let ch = self.l2_channel(xcd, address);
        let at = match self.reorder.as_mut() {
            Some(r) => r.arrival(self.cur_cu, ch, at, op == L2Op::Read),
            None => at,
        };
        self.l2_arrival = at;
        let start = self.l2_channels[ch].reserve(at, occupancy(len as u64, self.cfg.l2.channel_bytes_per_cycle as f64));
        let need = mask_of((address - line) as u32, len);
        let found = self.l2[xcd].find(address);
        if let Some(s) = found {
            if op == L2Op::Write || self.l2[xcd].valid(s) & need == need {
                if !merged {
                    self.counters.inc(Counter::TccHit);
                }
                self.reached(Level::L2);
                self.l2[xcd].touch(s);
                return (s, (start + lat).max(self.l2[xcd].ready_cycle(s)));
            }
        }
        self.counters.inc(Counter::TccMiss);
        // The cycle the slot is free: a dirty victim must first leave for memory.
        let mut freed = start;
        let slot = match found {
            Some(s) => s,
            None => {
                let (s, evicted) = self.l2[xcd].allocate(address);
                if let Some(e) = evicted {
                    self.counters.inc(Counter::TccWriteback);
                    let far = self.remote.path_of(mem, e.address);
                    freed = self.write_below(e, start, far);
                }
                s
            }
        };
        if op == L2Op::Write {
            // A write miss allocates without a fetch: the L2 alone acknowledges it, once the
            // slot's dirty victim has left.
            self.reached(Level::L2);
            return (slot, freed + lat);
        }
        let lb = self.l2[xcd].line_bytes();
        let mut buf = [0u8; 128];
        self.memory_bytes(mem, line, &mut buf[..lb as usize]);
        let t = self.memory_read_time(line, lb, start).max(freed);
        self.l2[xcd].fill(slot, &buf[..lb as usize]);
        self.l2[xcd].set_ready_cycle(slot, t);
        (slot, t + lat)
    }

    /// Write bytes into an L2 slot at `off`.
    pub(super) fn l2_write(&mut self, xcd: usize, slot: usize, off: u32, bytes: &[u8], mode: L2Mode) {
        self.l2[xcd].write(slot, off, bytes, mode == L2Mode::WriteBack);
    }

    /// Write back the dirty lines of the L2 of `xcd` whose memory type `keep` accepts
    /// (`buffer_wbl2`, end-of-kernel release): returns when the last write is done.
    pub(super) fn writeback_l2_where(&mut self, mem: &mut Memory, xcd: usize, at: u64, keep: impl Fn(u64) -> bool) -> u64 {
        // Earlier evictions reach memory first; these lines then go straight from the cache.
        self.apply_pending(mem);
        let mut done = at;
        let mall_ack = self.cfg.mall.as_ref().map(|m| m.hit_latency_cycles as u64);
        for s in self.l2[xcd].dirty_slots() {
            let a = self.l2[xcd].address_of(s);
            if !keep(a) {
                continue;
            }
            let dirty = self.l2[xcd].dirty(s);
            mem.write_masked(a, self.l2[xcd].bytes(s), dirty);
            self.l2[xcd].clean(s);
            self.probe(xcd, a);
            self.counters.inc(Counter::TccWriteback);
            let ch = self.dram_channel(a);
            let far = self.remote.path_of(mem, a);
            let (written, taken) = self.time_write_below(a, dirty, self.l2[xcd].line_bytes() as usize, at, far);
            done = done.max(match (far, mall_ack) {
                // Over a link: when the far agent acknowledged the line's last write.
                (Some(_), _) => written,
                // A memory-side MALL (MI300's Infinity Cache) is part of memory for coherence,
                // so the release needs only its acknowledgement: a hit latency after the memory
                // side took the line's last block, which waits for DRAM's bandwidth (the MALL
                // holds no dirty data), not for DRAM's latency.
                (None, Some(ack)) => taken + ack,
                (None, None) => self.dram[ch].free_cycle() + self.cfg.dram.latency_cycles as u64,
            });
        }
        done
    }

    /// A write reached memory coherently: the other L2s drop their clean copies of the line
    /// (the probe a write to a page with the PTE C-bit causes: LLVM AMDGPUUsage, *Memory
    /// Model GFX942*). `from` is the writer's XCD (`usize::MAX`: none keeps its copy).
    pub(super) fn probe(&mut self, from: usize, address: u64) {
        if self.l2.len() < 2 && from != usize::MAX {
            return;
        }
        for (x, c) in self.l2.iter_mut().enumerate() {
            if x != from {
                if let Some(s) = c.find(address) {
                    if c.dirty(s) == 0 {
                        c.invalidate(s);
                    }
                }
            }
        }
    }

    /// Drop the clean lines of the L2 of `xcd` that `drop` selects; dirty lines stay
    /// (`buffer_invl2`, `buffer_inv sc1`).
    pub fn invalidate_l2_where(&mut self, xcd: usize, drop: impl Fn(u64) -> bool) {
        let slots: Vec<usize> = self.l2[xcd].occupied().filter(|&s| self.l2[xcd].dirty(s) == 0 && drop(self.l2[xcd].address_of(s))).collect();
        for s in slots {
            self.l2[xcd].invalidate(s);
        }
    }

    /// `buffer_wbl2`-style writeback of the L2 of `xcd` (every dirty line `keep` accepts).
    pub fn writeback_l2(&mut self, mem: &mut Memory, xcd: usize, at: u64, keep: impl Fn(u64) -> bool) -> u64 {
        self.writeback_l2_where(mem, xcd, at, keep)
    }

    /// The tag walk of a maintenance operation on the L2 of `xcd` from `at`: every channel
    /// looks at each of its sets, `maintenance_sets_per_cycle` a cycle, and requests of
    /// other waves to that channel queue behind the walk. Returns when the walk is done.
    fn walk_l2(&mut self, xcd: usize, at: u64) -> u64 {
        let channels = self.cfg.l2.channels.max(1) as u64;
        let sets = self.l2[xcd].sets().div_ceil(channels);
        let cycles = sets.div_ceil(self.cfg.l2.maintenance_sets_per_cycle.max(1) as u64);
        let first = xcd * channels as usize;
        let mut end = at;
        for ch in first..first + channels as usize {
            let start = self.l2_channels[ch].reserve(at, cycles * SUB);
            end = end.max(start + cycles);
        }
        end + self.cfg.l2.hit_latency_cycles as u64
    }

    /// An invalidate instruction on the L2 of `xcd` at `at` (`buffer_invl2`, `buffer_inv
    /// sc1` / `sc0 sc1`, `global_inv scope:SYS`), reaching `reach`. Dirty lines stay. Counted.
    /// Returns (done, lines dropped). What it drops follows LLVM AMDGPUUsage, *Memory Model
    /// GFX942*:
    /// * lines of this agent's own memory: "MTYPE RW and CC memory will never be stale due to
    ///   the memory probes", so a single L2 keeps them; with several L2s in the agent (MI300
    ///   SPX) `buffer_inv sc1` "will invalidate non-local L2 cache lines", which an interleaved
    ///   layout makes nearly all of them — at agent and at system scope alike;
    /// * lines of another agent's memory held as MTYPE NC (a peer's coarse-grained memory,
    ///   host memory allocated non-coherent): only a system-scope invalidate, whose purpose
    ///   the doc gives as "following loads will not see stale MTYPE NC global data"; the
    ///   agent-scope one is for "coherence of local memory reads of CUs with different L1
    ///   caches in the same agent" and leaves them (`buffer_invl2` on GFX90A, the system-scope
    ///   acquire, likewise drops them: "invalidates L2 lines of MTYPE NC").
    ///
    /// Whose memory a line is comes from its allocation's kind and owner ([`other_agents`]).
    pub fn invalidate_l2_op(&mut self, mem: &Memory, xcd: usize, at: u64, reach: Reach) -> (u64, u64) {
        let before = self.l2[xcd].valid_lines();
        let several = self.l2.len() > 1;
        let owners = |a: u64| mem.allocation_at(a).is_some_and(|x| other_agents(x.kind, x.owner));
        if several || reach == Reach::System {
            self.invalidate_l2_where(xcd, |a| if owners(a) { reach == Reach::System } else { several });
        }
        let lines = before - self.l2[xcd].valid_lines();
        self.counters.inc(Counter::L2Invalidates);
        self.counters.add(Counter::TccAllTcOpInvEvict, lines);
        (self.walk_l2(xcd, at), lines)
    }

    /// A write-back instruction on the L2 of `xcd` at `at` (`buffer_wbl2`, `global_wb
    /// scope:SYS`), reaching `reach`: after the tag walk finds them, every dirty line it acts
    /// on is read out of its channel and written to memory, so the cost grows with the dirty
    /// footprint. Counted. Returns (done, lines written). An agent-scope write-back
    /// (`buffer_wbl2 sc1`) makes stores "visible at agent scope" (LLVM AMDGPUUsage, *Memory
    /// Model GFX942*, release sequences): the dirty lines of the agent's own memory, which its
    /// other L2s read; dirty lines of another agent's memory held as MTYPE NC stay until a
    /// system-scope write-back (`buffer_wbl2 sc0 sc1`: "visible at system scope") or the end
    /// of the kernel.
    pub fn writeback_l2_op(&mut self, mem: &mut Memory, xcd: usize, at: u64, reach: Reach) -> (u64, u64) {
        let walked = self.walk_l2(xcd, at);
        let line_read = occupancy(self.cfg.l2.line_bytes as u64, self.cfg.l2.channel_bytes_per_cycle as f64);
        let acts = |mem: &Memory, a: u64| reach == Reach::System || !mem.allocation_at(a).is_some_and(|x| other_agents(x.kind, x.owner));
        let dirty: Vec<usize> = self.l2[xcd].dirty_slots().into_iter().filter(|&s| acts(mem, self.l2[xcd].address_of(s))).collect();
        for &s in &dirty {
            let ch = self.l2_channel(xcd, self.l2[xcd].address_of(s));
            self.l2_channels[ch].reserve(at, line_read);
        }
        let lines = dirty.len() as u64;
        let done = if reach == Reach::System {
            self.writeback_l2_where(mem, xcd, at, |_| true)
        } else {
            let keep: std::collections::HashSet<u64> = dirty.iter().map(|&s| self.l2[xcd].address_of(s)).collect();
            self.writeback_l2_where(mem, xcd, at, |a| keep.contains(&a))
        };
        self.counters.inc(Counter::L2Writebacks);
        self.counters.add(Counter::TccAllTcOpWbWriteback, lines);
        (walked.max(done), lines)
    }
}

/// How far an L2 maintenance instruction reaches: the scope its bits name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// `buffer_inv sc1`, `buffer_wbl2 sc1`: the agent's own memory.
    Agent,
    /// `buffer_inv sc0 sc1`, `buffer_wbl2 sc0 sc1`, GFX90A `buffer_invl2` / `buffer_wbl2`,
    /// GFX12 `scope:SYS`: also other agents' memory the L2 holds.
    System,
}
