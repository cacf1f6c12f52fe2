//! One wave-wide access: `begin`, the lanes' `read`/`write` calls, `end`.

use super::cache::{mask_of, Evicted, Slot};
use super::coalesce::{self, Runs};
use super::lower::L2Op;
use super::mtype::{l2_mode, L2Mode};
use super::pipe::SUB;
use super::{atomics, MemSystem};
use crate::counters::Counter;
use crate::memory::{Memory, Unmapped};

/// Which unit issues the access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Vector memory: vector L1 (GL0), then GL1 (RDNA), L2.
    Vector,
    /// Scalar memory: scalar cache, then L2.
    Scalar,
}

/// What the access does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    Load,
    Store,
    /// Read-modify-write at the L2 (atomics bypass the L1s); `returns` when the pre-op value
    /// comes back.
    Atomic {
        returns: bool,
    },
}

/// Cache policy of an access, as decoded from its instruction's bits by the client.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Policy {
    /// Serve from the next level instead of the vector L1 / scalar cache (GFX9 `glc`, GFX942
    /// `sc0`/`sc1`, GFX10 `glc`); a copy in the L1 is dropped.
    pub bypass_l1: bool,
    /// Also skip the GL1 (GFX10 `dlc`).
    pub bypass_gl1: bool,
    /// Go to memory, not the L2 (uncached, whatever the memory type).
    pub bypass_l2: bool,
    /// A store is written through the L2 to memory (GFX942 `sc1`: agent/system scope).
    pub write_through: bool,
}

/// The access being described.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpSpec {
    pub cu: usize,
    pub unit: Unit,
    pub kind: OpKind,
    pub policy: Policy,
    /// Cycle the access leaves the wave.
    pub at: u64,
}

/// Where an access's data came from (loads, atomics) or where its write was acknowledged
/// (stores), from the nearest level to the farthest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// The CU's vector L1 (GL0 on RDNA).
    L1 = 0,
    /// The scalar cache.
    Scalar = 1,
    /// The shader array's GL1 (RDNA).
    Gl1 = 2,
    L2 = 3,
    /// The memory-side cache (MI300 Infinity Cache, RDNA Infinity Cache).
    Mall = 4,
    Dram = 5,
}

impl Level {
    pub const COUNT: usize = 6;
    pub const ALL: [Level; Level::COUNT] = [Level::L1, Level::Scalar, Level::Gl1, Level::L2, Level::Mall, Level::Dram];
}

/// When an access completed, and which levels served it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpResult {
    /// Loads: the last lane's data is in registers; stores and atomics: the last write is
    /// acknowledged (by the L2, or memory when uncached).
    pub done: u64,
    /// Vector L1 tag accesses it took.
    pub tag_accesses: u64,
    /// The farthest level any of its lines went to (`None`: no lane touched memory).
    pub level: Option<Level>,
    /// Lines (the access's granules: L1 lines for loads, write blocks for stores) served by
    /// each level, indexed by `Level as usize`.
    pub lines: [u32; Level::COUNT],
}

/// Where an open line's bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Home {
    L1(Slot),
    Gl1(Slot),
    L2(Slot),
    Scalar(Slot),
    Memory,
}

#[derive(Debug, Clone, Copy)]
struct Open {
    key: u64,
    home: Home,
    mode: L2Mode,
    /// Arrival of its request at the L2 (0 when it did not go there).
    at: u64,
}

/// An open line a lane read or wrote in one piece, clipped to the allocation holding it:
/// another lane's access inside `lo..hi` has the same memory kind and remote path, so the
/// same L2 mode and the same open line, and needs only its bytes moved. Loads and stores
/// only (an atomic's lanes count atomics per lane; reordered loads record each lane).
#[derive(Debug, Clone, Copy)]
struct LastLine {
    lo: u64,
    hi: u64,
    open: Open,
}

impl LastLine {
    /// The line when `address..address + len` lies in it.
    #[inline]
    fn holds(last: Option<LastLine>, address: u64, len: usize) -> Option<Open> {
        let l = last?;
        (address >= l.lo && address.checked_add(len as u64)? <= l.hi).then_some(l.open)
    }
}

#[derive(Clone)]
pub(super) struct OpState {
    spec: OpSpec,
    start: u64,
    opens: u64,
    done: u64,
    /// The lanes' accesses, for the L1's tag lookups at `end`.
    lanes: Runs,
    open: Vec<Open>,
    /// The last lane's line, while the next lane may take it without the per-lane checks.
    last: Option<LastLine>,
    /// The highest key in `open`: a lane's line above it is not open yet, so lanes walking up
    /// through memory (coalesced or strided) never search `open`.
    top: u64,
    lines: [u32; Level::COUNT],
    scratch: coalesce::Scratch,
    /// An atomic of this access touched memory the GPU cannot update atomically.
    not_atomic: bool,
    /// Its atomics' requests and lanes, performed at `end`.
    atomics: atomics::Tally,
}

impl MemSystem {
    /// Start describing an access.
    pub fn begin(&mut self, spec: OpSpec) {
        let start = match spec.unit {
            Unit::Vector => spec.at.max(self.l1_tags.get(spec.cu).map_or(0, |p| p.free_from(spec.at))),
            Unit::Scalar => spec.at,
        };
        let mut st = self.op.take().or_else(|| self.spare.take()).unwrap_or_else(|| {
            Box::new(OpState {
                spec,
                start,
                opens: 0,
                done: spec.at,
                lanes: Runs::default(),
                open: Vec::with_capacity(16),
                top: 0,
                last: None,
                lines: [0; Level::COUNT],
                scratch: coalesce::Scratch::default(),
                not_atomic: false,
                atomics: atomics::Tally::default(),
            })
        });
        st.spec = spec;
        st.start = start;
        st.opens = 0;
        st.done = spec.at;
        st.lanes.clear();
        st.open.clear();
        st.top = 0;
        st.last = None;
        st.lines = [0; Level::COUNT];
        st.not_atomic = false;
        st.atomics.clear();
        self.op = Some(st);
        self.cur_cu = spec.cu;
        self.far = None;
        if let Some(r) = self.reorder.as_mut() {
            r.settle(spec.at);
        }
        self.read_lines.clear();
        self.late.clear();
    }

    /// Lane `lane` reads `out.len()` bytes at `address`, as part of the access being described
    /// (outside one, straight from memory).
    pub fn read(&mut self, mem: &Memory, lane: u32, address: u64, out: &mut [u8]) -> Result<(), Unmapped> {
        if let Some(st) = self.op.as_deref_mut() {
            if let Some(o) = LastLine::holds(st.last, address, out.len()) {
                st.lanes.lane(lane, address, out.len() as u32);
                let spec = st.spec;
                self.copy_out(mem, &spec, o, address, out);
                return Ok(());
            }
        }
        let kind = mem.kind_at(address, out.len() as u32)?;
        let Some(mut st) = self.op.take() else {
            return mem.read(address, out);
        };
        st.last = None;
        st.lanes.lane(lane, address, out.len() as u32);
        let atomic = matches!(st.spec.kind, OpKind::Atomic { .. });
        if atomic && !self.host_atomics.atomic_on(kind) {
            st.not_atomic = true;
        }
        self.far = self.remote.path_of(mem, address);
        let mode = self.mode_of(&st.spec, kind);
        let far_atomic = atomic && self.far_atomics();
        let g = self.granule(&st.spec) as u64;
        let late = self.reorder.is_some() && st.spec.kind == OpKind::Load && st.spec.unit == Unit::Vector;
        let mut pieces = super::late::Pieces::default();
        let mut done = 0;
        while done < out.len() {
            let a = address + done as u64;
            let key = a & !(g - 1);
            let n = ((key + g - a) as usize).min(out.len() - done);
            let o = self.opened(mem, &mut st, key, mode);
            if late {
                pieces.piece(n, matches!(o.home, Home::L2(_)).then_some(o.at));
            }
            if atomic {
                // One atomic operation per lane at the unit where the memory lives.
                st.atomics.lane(key, a);
                if far_atomic && done == 0 {
                    self.counters.inc(Counter::RemoteAtomics);
                }
            }
            self.copy_out(mem, &st.spec, o, a, &mut out[done..done + n]);
            if n == out.len() && !late && st.spec.kind == OpKind::Load {
                st.last = last_line(mem, o, g, address);
            }
            done += n;
        }
        if late {
            self.read_late(lane, address, out.len(), pieces);
        }
        self.op = Some(st);
        Ok(())
    }

    /// Lane `lane` writes `bytes` at `address`, as part of the access being described (outside
    /// one, straight to memory).
    pub fn write(&mut self, mem: &mut Memory, lane: u32, address: u64, bytes: &[u8]) -> Result<(), Unmapped> {
        if let Some(st) = self.op.as_deref_mut().filter(|_| self.pending.is_empty()) {
            if let Some(o) = LastLine::holds(st.last, address, bytes.len()) {
                st.lanes.lane(lane, address, bytes.len() as u32);
                let spec = st.spec;
                self.copy_in(mem, &spec, o, address, bytes);
                self.apply_pending(mem);
                return Ok(());
            }
        }
        let kind = mem.kind_at(address, bytes.len() as u32)?;
        let Some(mut st) = self.op.take() else {
            return mem.write(address, bytes);
        };
        st.last = None;
        // Lines written back while this access opened its lines (an atomic's own line:
        // `hand_line_to_memory`) reach memory before its lanes write there.
        self.apply_pending(mem);
        if st.spec.kind == OpKind::Store {
            st.lanes.lane(lane, address, bytes.len() as u32);
        }
        self.far = self.remote.path_of(mem, address);
        let mode = self.mode_of(&st.spec, kind);
        let g = self.granule(&st.spec) as u64;
        let mut done = 0;
        while done < bytes.len() {
            let a = address + done as u64;
            let key = a & !(g - 1);
            let n = ((key + g - a) as usize).min(bytes.len() - done);
            let o = self.opened(mem, &mut st, key, mode);
            self.copy_in(mem, &st.spec, o, a, &bytes[done..done + n]);
            if n == bytes.len() && st.spec.kind == OpKind::Store {
                st.last = last_line(mem, o, g, address);
            }
            done += n;
        }
        self.apply_pending(mem);
        self.op = Some(st);
        Ok(())
    }

    /// Lanes `lanes` (ascending) read `size` bytes each, lane `lanes[i]` at `addrs[i]` into
    /// `out[i * size..]`, exactly as one [`MemSystem::read`] per lane would: lanes whose bytes
    /// follow the previous lane's inside the line that lane kept ([`LastLine`]) move in one
    /// piece. Stops at the first lane that faults: its index and the fault.
    pub fn read_lanes(&mut self, mem: &Memory, lanes: &[u32], addrs: &[u64], size: usize, out: &mut [u8]) -> Result<(), (usize, Unmapped)> {
        let mut i = 0;
        while i < lanes.len().min(addrs.len()) {
            if let Some((o, spec, j)) = self.kept_run(lanes, addrs, i, size, false) {
                self.copy_out(mem, &spec, o, addrs[i], &mut out[i * size..j * size]);
                i = j;
                continue;
            }
            self.read(mem, lanes[i], addrs[i], &mut out[i * size..(i + 1) * size]).map_err(|e| (i, e))?;
            i += 1;
        }
        Ok(())
    }

    /// Lanes `lanes` (ascending) write `size` bytes each, `bytes[i * size..]` at `addrs[i]`,
    /// exactly as one [`MemSystem::write`] per lane would, moving lanes that follow each other
    /// inside a kept line in one piece ([`MemSystem::read_lanes`]).
    pub fn write_lanes(&mut self, mem: &mut Memory, lanes: &[u32], addrs: &[u64], size: usize, bytes: &[u8]) -> Result<(), (usize, Unmapped)> {
        let mut i = 0;
        while i < lanes.len().min(addrs.len()) {
            if let Some((o, spec, j)) = self.kept_run(lanes, addrs, i, size, true) {
                self.copy_in(mem, &spec, o, addrs[i], &bytes[i * size..j * size]);
                self.apply_pending(mem);
                i = j;
                continue;
            }
            self.write(mem, lanes[i], addrs[i], &bytes[i * size..(i + 1) * size]).map_err(|e| (i, e))?;
            i += 1;
        }
        Ok(())
    }

    /// The lanes from `i` on whose `size` bytes lie in the line the previous lane kept, each
    /// right after the one before and all inside one line of every cache level (so that one
    /// copy into or out of the line's home equals the lanes' copies): recorded as the lanes'
    /// accesses; the open line, the access and the end of the run. `None` when lane `i` is not
    /// in the kept line (or, for writes, write-backs wait to reach memory first).
    fn kept_run(&mut self, lanes: &[u32], addrs: &[u64], i: usize, size: usize, write: bool) -> Option<(Open, OpSpec, usize)> {
        if write && !self.pending.is_empty() {
            return None;
        }
        let line = self.run_line_bytes(self.op.as_deref()?.spec.unit);
        let st = self.op.as_deref_mut()?;
        let (o, last) = (LastLine::holds(st.last, addrs[i], size)?, st.last?);
        // The run ends where the kept line or a cache line ends, whichever is first.
        let end = last.hi.min((addrs[i] / line).saturating_add(1).saturating_mul(line));
        let fit = (end.saturating_sub(addrs[i]) / (size.max(1) as u64)) as usize;
        let n = lanes.len().min(addrs.len()).min(i.saturating_add(fit.max(1)));
        let mut j = i + 1;
        while j < n && addrs[j] == addrs[j - 1].wrapping_add(size as u64) {
            j += 1;
        }
        st.lanes.lanes_from(&lanes[i..j], addrs[i], size as u32);
        Some((o, st.spec, j))
    }

    /// The smallest line of the caches a `unit`'s bytes may live in: a run of lanes copied in
    /// one piece stays inside one line of each. (The kept line, a load's L1 line or a store's
    /// write block, is no larger in the built-in configs; this holds for any config.)
    fn run_line_bytes(&self, unit: Unit) -> u64 {
        let c = &self.cfg;
        let first = match unit {
            Unit::Vector => c.vector_l1.line_bytes.min(c.gl1.as_ref().map_or(u32::MAX, |g| g.line_bytes)),
            Unit::Scalar => c.scalar_cache.line_bytes,
        };
        u64::from(first.min(c.l2.line_bytes).max(1))
    }

    /// Finish the access and close it: when it completes.
    pub fn end(&mut self, mem: &mut Memory) -> OpResult {
        self.apply_pending(mem);
        let Some(mut st) = self.op.take() else {
            return OpResult { done: 0, tag_accesses: 0, level: None, lines: [0; Level::COUNT] };
        };
        let mut done = st.done;
        let mut tags = 0;
        if st.spec.unit == Unit::Vector && !st.lanes.is_empty() {
            let v = &self.cfg.vector_l1;
            let l = coalesce::lookups_runs(st.lanes.as_slice(), v.lanes_per_pass, v.tag_access_bytes, &mut st.scratch);
            tags = l.tag_accesses;
            self.counters.add(Counter::TcpTotalCacheAccesses, tags);
            let apc = v.accesses_per_cycle.max(1) as u64;
            if let Some(p) = self.l1_tags.get_mut(st.spec.cu) {
                p.reserve(st.spec.at, l.block_cycles * SUB / apc);
            }
            // Data comes back at the L1's rate: the last block is `block_cycles - 1` cycles
            // after the first.
            done = done.max(st.start + l.block_cycles.saturating_sub(1) / apc + v.hit_latency_cycles as u64);
        }
        if st.not_atomic {
            self.counters.inc(Counter::SystemAtomicsNotAtomic);
        }
        if let Some(t) = self.atomic_units.perform(&st.atomics) {
            done = done.max(t);
        }
        let level = Level::ALL.iter().rev().copied().find(|&l| st.lines[l as usize] > 0);
        let lines = st.lines;
        // Closed: a lane access from here on is outside any operation until the next `begin`.
        self.spare = Some(st);
        OpResult { done, tag_accesses: tags, level, lines }
    }

    /// The line being opened went as far as `level`.
    pub(super) fn reached(&mut self, level: Level) {
        self.line_level = self.line_level.max(Some(level));
    }

    /// How the L2 treats this access. With several L2s in one agent (MI300), atomics are
    /// performed beyond the L2s, at memory: device-scope atomics from different XCDs on one
    /// address are coherent on the real GPU (HIP's atomics work device-wide), which per-XCD L2
    /// copies could not give.
    ///
    /// Another agent's memory (the line's remote path, `self.far`): fine-grained memory of a
    /// peer is MTYPE UC, bypassing the L2, and its coarse-grained memory MTYPE NC, cached
    /// (LLVM AMDGPUUsage, *Memory Model GFX90A*: "NC: remote coarse-grain memory", "UC:
    /// remote fine-grain memory", `../shared/notes/memory-model-lowering.md` §1.2); host
    /// memory is UC already ([`l2_mode`]). Atomics on it are performed at the far agent
    /// when its link carries them, past the L2.
    fn mode_of(&self, spec: &OpSpec, kind: crate::memory::MemoryKind) -> L2Mode {
        let atomic = matches!(spec.kind, OpKind::Atomic { .. });
        let remote_uc = self.far.is_some() && (kind == crate::memory::MemoryKind::DeviceFineGrain || (atomic && self.far_atomics()));
        match l2_mode(kind) {
            _ if spec.policy.bypass_l2 || (atomic && self.l2.len() > 1) || remote_uc => L2Mode::Uncached,
            L2Mode::WriteBack if spec.policy.write_through && spec.kind == OpKind::Store => L2Mode::WriteThrough,
            m => m,
        }
    }

    /// Whether the line's remote path (if any) performs atomics at the far agent.
    fn far_atomics(&self) -> bool {
        self.far.and_then(|n| self.remote.path(n)).is_some_and(|p| p.atomics)
    }

    /// Bytes handled per open line: the L1 line for loads, the write-request block for stores
    /// and atomics, the scalar cache line for scalar loads.
    fn granule(&self, spec: &OpSpec) -> u32 {
        match (spec.unit, spec.kind) {
            (Unit::Scalar, OpKind::Load) => self.cfg.scalar_cache.line_bytes,
            (Unit::Vector, OpKind::Load) => self.cfg.vector_l1.line_bytes,
            _ => self.cfg.vector_l1.write_request_bytes,
        }
    }

    /// The open line `key` of this access, opening it if this is the first touch.
    fn opened(&mut self, mem: &Memory, st: &mut OpState, key: u64, mode: L2Mode) -> Open {
        match st.open.last() {
            Some(o) if o.key == key => return *o,
            Some(_) if key <= st.top => {
                if let Some(o) = st.open.iter().rev().find(|o| o.key == key) {
                    return *o;
                }
            }
            _ => {}
        }
        let apc = self.cfg.vector_l1.accesses_per_cycle.max(1) as u64;
        let t = st.start + st.opens / apc;
        st.opens += 1;
        self.line_level = None;
        self.l2_arrival = 0;
        let (home, ready) = match (st.spec.unit, st.spec.kind) {
            (Unit::Vector, OpKind::Load) => self.open_load(mem, &st.spec, key, mode, t),
            (Unit::Scalar, OpKind::Load) => self.open_scalar(mem, &st.spec, key, mode, t),
            (_, OpKind::Store) => self.open_store(mem, &st.spec, key, mode, t),
            (_, OpKind::Atomic { returns }) => {
                let (home, ready, request) = self.open_atomic(mem, &st.spec, key, mode, returns, t);
                st.atomics.request(request);
                (home, ready)
            }
        };
        st.done = st.done.max(ready);
        if let Some(l) = self.line_level {
            st.lines[l as usize] += 1;
        }
        let o = Open { key, home, mode, at: self.l2_arrival };
        st.open.push(o);
        st.top = st.top.max(key);
        o
    }

    fn open_load(&mut self, mem: &Memory, spec: &OpSpec, key: u64, mode: L2Mode, t: u64) -> (Home, u64) {
        let (cu, l1lat) = (spec.cu, self.cfg.vector_l1.hit_latency_cycles as u64);
        let line = self.cfg.vector_l1.line_bytes;
        if !spec.policy.bypass_l1 {
            if let Some(s) = self.l1[cu].find(key) {
                self.l1[cu].touch(s);
                self.reached(Level::L1);
                return (Home::L1(s), (t + l1lat).max(self.l1[cu].ready_cycle(s) + l1lat));
            }
        } else if let Some(s) = self.l1[cu].find(key) {
            self.l1[cu].invalidate(s);
        }
        let t = self.l1_misses[cu].admit(t, self.cfg.vector_l1.max_outstanding_misses as usize);
        self.counters.add(Counter::TcpTccReadReq, line.div_ceil(self.cfg.vector_l1.read_request_bytes.max(1)) as u64);
        let (below, at) = self.below_l1(mem, spec, key, line, mode, t);
        let ready = at + l1lat;
        self.l1_misses[cu].record(ready);
        if spec.policy.bypass_l1 || mode == L2Mode::Uncached {
            return (below, ready);
        }
        let mut buf = [0u8; 128];
        self.home_bytes(mem, spec.cu, below, key, &mut buf[..line as usize]);
        self.overlay(spec.cu, below, key, &mut buf[..line as usize], self.l2_arrival);
        let (s, _) = self.l1[cu].allocate(key);
        self.l1[cu].fill(s, &buf[..line as usize]);
        self.l1[cu].set_ready_cycle(s, at);
        (Home::L1(s), ready)
    }

    /// Fetch `len` bytes at `key` from below the vector L1: GL1 (RDNA), then L2, or memory
    /// when uncached. Returns where the bytes are and when they reach the L1.
    fn below_l1(&mut self, mem: &Memory, spec: &OpSpec, key: u64, len: u32, mode: L2Mode, t: u64) -> (Home, u64) {
        let xcd = self.places[spec.cu].xcd;
        if mode == L2Mode::Uncached {
            self.counters.inc(Counter::TccReq);
            self.counters.inc(Counter::TccRead);
            let lat = self.cfg.l2.hit_latency_cycles as u64;
            return (Home::Memory, self.memory_read_time(key, len, t) + lat);
        }
        if let Some(g) = self.cfg.gl1.clone().filter(|_| !spec.policy.bypass_gl1) {
            let a = self.places[spec.cu].array;
            self.counters.inc(Counter::Gl1cReq);
            if let Some(s) = self.gl1[a].find(key) {
                self.gl1[a].touch(s);
                self.reached(Level::Gl1);
                let r = (t + g.hit_latency_cycles as u64).max(self.gl1[a].ready_cycle(s) + g.hit_latency_cycles as u64);
                return (Home::Gl1(s), r);
            }
            self.counters.inc(Counter::Gl1cMiss);
            let gline = self.gl1[a].line_address(key);
            let (s2, at) = self.l2_request(mem, xcd, gline, g.line_bytes, L2Op::Read, t);
            let mut buf = [0u8; 128];
            self.home_bytes(mem, spec.cu, Home::L2(s2), gline, &mut buf[..g.line_bytes as usize]);
            self.overlay(spec.cu, Home::L2(s2), gline, &mut buf[..g.line_bytes as usize], self.l2_arrival);
            let (s, _) = self.gl1[a].allocate(gline);
            self.gl1[a].fill(s, &buf[..g.line_bytes as usize]);
            self.gl1[a].set_ready_cycle(s, at);
            return (Home::Gl1(s), at + g.hit_latency_cycles as u64);
        }
        let (s, at) = self.l2_request(mem, xcd, key, len, L2Op::Read, t);
        (Home::L2(s), at)
    }

    fn open_scalar(&mut self, mem: &Memory, spec: &OpSpec, key: u64, mode: L2Mode, t: u64) -> (Home, u64) {
        let k = self.places[spec.cu].scalar;
        let lat = self.cfg.scalar_cache.hit_latency_cycles as u64;
        self.counters.inc(Counter::SqcDcacheReq);
        if let Some(s) = self.scalar[k].find(key) {
            self.scalar[k].touch(s);
            self.reached(Level::Scalar);
            return (Home::Scalar(s), (t + lat).max(self.scalar[k].ready_cycle(s) + lat));
        }
        self.counters.inc(Counter::SqcDcacheMiss);
        let line = self.cfg.scalar_cache.line_bytes;
        let xcd = self.places[spec.cu].xcd;
        let (below, at) = if mode == L2Mode::Uncached {
            (Home::Memory, self.memory_read_time(key, line, t) + self.cfg.l2.hit_latency_cycles as u64)
        } else {
            let (s, at) = self.l2_request(mem, xcd, key, line, L2Op::Read, t);
            (Home::L2(s), at)
        };
        let mut buf = [0u8; 128];
        self.home_bytes(mem, spec.cu, below, key, &mut buf[..line as usize]);
        let (s, _) = self.scalar[k].allocate(key);
        self.scalar[k].fill(s, &buf[..line as usize]);
        self.scalar[k].set_ready_cycle(s, at);
        (Home::Scalar(s), at + lat)
    }

    fn open_store(&mut self, mem: &Memory, spec: &OpSpec, key: u64, mode: L2Mode, t: u64) -> (Home, u64) {
        self.counters.inc(Counter::TcpTccWriteReq);
        let xcd = self.places[spec.cu].xcd;
        let bytes = self.cfg.vector_l1.write_request_bytes;
        match mode {
            L2Mode::Uncached => {
                self.counters.inc(Counter::TccReq);
                self.counters.inc(Counter::TccWrite);
                let (ack, level, _) = self.uncached_write_time(key, bytes, t);
                self.reached(level);
                (Home::Memory, ack)
            }
            _ => {
                let (s, ack) = self.l2_request(mem, xcd, key, bytes, L2Op::Write, t);
                if mode == L2Mode::WriteThrough {
                    // The L2 acknowledges once the written-through bytes have left it: stores
                    // arriving faster than memory takes them wait for it.
                    let (_, _, taken) = self.uncached_write_time(key, bytes, t);
                    return (Home::L2(s), ack.max(taken + self.cfg.l2.hit_latency_cycles as u64));
                }
                (Home::L2(s), ack)
            }
        }
    }

    /// Open line `key` for atomics: the line reaches the unit that performs them (the L2
    /// channel's atomic unit, or past the L2s the memory channel's: [`atomics`]). Returns
    /// where its bytes are, when the request alone would be answered, and the request for
    /// that unit, which [`MemSystem::end`] times with the lanes' passes.
    fn open_atomic(&mut self, mem: &Memory, spec: &OpSpec, key: u64, mode: L2Mode, returns: bool, t: u64) -> (Home, u64, atomics::Request) {
        self.counters.inc(if returns { Counter::TcpTccAtomicWithRetReq } else { Counter::TcpTccAtomicWithoutRetReq });
        let cu = spec.cu;
        // Atomics bypass (and drop) the L1 copy (LLVM AMDGPUUsage, GFX942: "atomic RMWs
        // implicitly bypass the L1"), and on RDNA the copy in the shader array's GL1 that they
        // pass on the way to the L2: a work-group in WGP mode spans two CUs with one GL1, and
        // its work-group-scope acquire only bypasses or invalidates the L0 (AMDGPUUsage,
        // *Memory Model GFX10-GFX11*), so the GL1 must not keep a value an atomic replaced.
        if spec.unit == Unit::Vector {
            if let Some(s) = self.l1[cu].find(key) {
                self.l1[cu].invalidate(s);
            }
            let a = self.places[cu].array;
            if let Some(s) = self.gl1.get(a).and_then(|c| c.find(key)) {
                self.gl1[a].invalidate(s);
            }
        }
        let xcd = self.places[cu].xcd;
        let l1lat = self.cfg.vector_l1.hit_latency_cycles as u64;
        let l2lat = self.cfg.l2.hit_latency_cycles as u64;
        match mode {
            L2Mode::Uncached => {
                self.counters.inc(Counter::TccReq);
                self.counters.inc(Counter::TccAtomic);
                self.hand_line_to_memory(xcd, key, t);
                if let Some(r) = self.far_atomic_request(key, t + l2lat, l1lat + l2lat) {
                    return (Home::Memory, r.from + r.back, r);
                }
                // A link without atomics: performed beside this GPU's memory, as without a node.
                self.far = None;
                let at = self.memory_read_time(key, self.cfg.vector_l1.write_request_bytes, t);
                let unit = atomics::Unit::Memory(self.dram_channel(key));
                (Home::Memory, at + l2lat + l1lat, atomics::Request { key, unit, from: at, back: l2lat + l1lat })
            }
            _ => {
                let (s, at) = self.l2_request(mem, xcd, key, self.cfg.vector_l1.write_request_bytes, L2Op::Atomic, t);
                // The line is at the channel once the hit path's lookup is done or its fill is.
                let from = at.saturating_sub(l2lat).max(self.l2_arrival);
                let unit = atomics::Unit::L2(self.l2_channel(xcd, key));
                (Home::L2(s), at + l1lat, atomics::Request { key, unit, from, back: l2lat + l1lat })
            }
        }
    }

    /// Before an atomic is performed at memory, past the L2 of `xcd` (several L2s in the
    /// agent: [`MemSystem::mode_of`]): that L2's copy of the line goes out of the way. Its
    /// dirty bytes are written to memory first, so the atomic sees the stores of its own XCD
    /// that the L2 still holds (a wave's own earlier plain store, or one of a wave on the same
    /// CU), and the copy is dropped once the atomic has written memory (the probe of
    /// `copy_in`), so no later read of that XCD is served the value from before the atomic.
    /// The hardware orders an XCD's accesses to one address through its L2, which forwards
    /// the atomic (LLVM AMDGPUUsage, *Memory Model GFX942*: the L2 is coherent for its own
    /// XCD's accesses); other XCDs' L2s keep their dirty lines, as on hardware, where plain
    /// stores on another XCD are not visible until written back.
    fn hand_line_to_memory(&mut self, xcd: usize, key: u64, t: u64) {
        let Some(s) = self.l2.get(xcd).and_then(|c| c.find(key)) else { return };
        let c = &mut self.l2[xcd];
        let dirty = c.dirty(s);
        if dirty == 0 {
            return;
        }
        let e = Evicted::new(c.address_of(s), dirty, c.bytes(s));
        c.clean(s);
        self.counters.inc(Counter::TccWriteback);
        self.write_below(e, t, self.far);
    }

    /// An atomic request of line `key` on remote memory whose link carries atomics, leaving
    /// the L2 at `t`: its operands cross the link, the far agent performs it once it has read
    /// its memory, and the result crosses back (then `back` more cycles to the wave). `None`
    /// for local memory or a link without atomics.
    fn far_atomic_request(&mut self, key: u64, t: u64, back: u64) -> Option<atomics::Request> {
        let n = self.far.filter(|_| self.far_atomics())?;
        let arrived = self.remote.write(n, self.cfg.vector_l1.write_request_bytes, t)?;
        let p = self.remote.path(n)?;
        // `write` times the acknowledgement's return too: the far unit has the line before.
        let from = arrived - p.back_cycles;
        self.reached(Level::Dram);
        Some(atomics::Request { key, unit: atomics::Unit::Remote(n), from, back: p.back_cycles + back })
    }

    /// Time of a write that goes to memory (uncached or written through): counted as a memory
    /// write request, timed on DRAM. Returns the acknowledgement cycle, who acknowledged, and
    /// when the memory side took the bytes ([`super::lower::Below::taken`]).
    fn uncached_write_time(&mut self, key: u64, bytes: u32, t: u64) -> (u64, Level, u64) {
        self.counters.inc(Counter::TccEaWrreq);
        if bytes >= 64 {
            self.counters.inc(Counter::TccEaWrreq64b);
        }
        let below = self.memory_time(key, bytes, t, true, self.far);
        (below.done + self.cfg.l2.hit_latency_cycles as u64, below.level, below.taken)
    }

    /// With seeded reordering, before a store or atomic changes bytes of L2 line `slot`: what a
    /// read arriving before the store would see (the line's bytes where valid, else memory's),
    /// or, for an atomic (which sees every earlier store), drop the hidden stores' records.
    /// `bytes` are what the store writes; they become what the line is to hold, which differs
    /// where a store already made arrives later ([`super::reorder::Reorder::stored`]).
    #[allow(clippy::too_many_arguments)]
    fn record_store(&mut self, mem: &Memory, spec: &OpSpec, x: usize, slot: usize, address: u64, bytes: &mut [u8], at: u64) {
        let atomic = matches!(spec.kind, OpKind::Atomic { .. });
        let len = bytes.len();
        let mut old = [0u8; 128];
        let old = &mut old[..len.min(128)];
        if !atomic {
            let off = (address - self.l2[x].address_of(slot)) as u32;
            let need = mask_of(off, old.len() as u32);
            if self.l2[x].valid(slot) & need == need {
                self.home_bytes(mem, spec.cu, Home::L2(slot), address, old);
            } else {
                self.memory_bytes(mem, address, old);
            }
        }
        if let Some(r) = self.reorder.as_mut() {
            if atomic {
                r.executed(x, address, len);
            } else if old.len() == len {
                r.stored(x, address, old, bytes, at);
            }
        }
    }

    /// Copy bytes at `address` out of `home` (a slot of one of `cu`'s caches, or memory).
    fn home_bytes(&self, mem: &Memory, cu: usize, home: Home, address: u64, out: &mut [u8]) {
        let p = self.places[cu];
        let cache = match home {
            Home::L1(s) => Some((&self.l1[cu], s)),
            Home::Gl1(s) => Some((&self.gl1[p.array], s)),
            Home::L2(s) => Some((&self.l2[p.xcd], s)),
            Home::Scalar(s) => Some((&self.scalar[p.scalar], s)),
            Home::Memory => None,
        };
        if let Some((c, s)) = cache {
            let off = address.wrapping_sub(c.address_of(s)) as usize;
            if let Some(b) = c.bytes(s).get(off..off + out.len()) {
                // A lane's dword, the common case, moves without a call to `memcpy`.
                if let (Ok(o), Ok(b)) = (<&mut [u8; 4]>::try_from(&mut *out), <&[u8; 4]>::try_from(b)) {
                    *o = *b;
                } else {
                    out.copy_from_slice(b);
                }
                return;
            }
        }
        self.memory_bytes(mem, address, out);
    }

    fn copy_out(&self, mem: &Memory, spec: &OpSpec, o: Open, address: u64, out: &mut [u8]) {
        self.home_bytes(mem, spec.cu, o.home, address, out);
        if spec.kind == OpKind::Load {
            self.overlay(spec.cu, o.home, address, out, o.at);
        }
    }

    /// With seeded reordering: bytes read from an L2 line (`home`) at arrival `at` without the
    /// stores that arrive later ([`super::reorder`]).
    fn overlay(&self, cu: usize, home: Home, address: u64, out: &mut [u8], at: u64) {
        if let (Some(r), Home::L2(_)) = (self.reorder.as_ref(), home) {
            r.overlay(self.places[cu].xcd, address, out, at);
        }
    }

    /// Write bytes at `address` into an open line's home and the clean copies above it.
    fn copy_in(&mut self, mem: &mut Memory, spec: &OpSpec, o: Open, address: u64, bytes: &[u8]) {
        let cu = spec.cu;
        if spec.unit == Unit::Vector && spec.kind == OpKind::Store {
            // The L1s are write-through: a copy they hold is updated, none is allocated.
            if let Some(s) = self.l1[cu].find(address) {
                let off = (address - self.l1[cu].address_of(s)) as u32;
                self.l1[cu].write(s, off, bytes, false);
            }
            let a = self.places[cu].array;
            if let Some(s) = self.gl1.get(a).and_then(|c| c.find(address)) {
                let off = (address - self.gl1[a].address_of(s)) as u32;
                self.gl1[a].write(s, off, bytes, false);
            }
        }
        if spec.unit == Unit::Scalar {
            let k = self.places[cu].scalar;
            if let Some(s) = self.scalar[k].find(address) {
                self.scalar[k].invalidate(s);
            }
        }
        let x = self.places[cu].xcd;
        match (o.home, o.mode) {
            (Home::L2(s), mode) if self.l2[x].address_of(s) == self.l2[x].line_address(address) => {
                let off = (address - self.l2[x].address_of(s)) as u32;
                if self.reorder.is_some() && bytes.len() <= 128 {
                    let mut merged = [0u8; 128];
                    let merged = &mut merged[..bytes.len()];
                    merged.copy_from_slice(bytes);
                    self.record_store(mem, spec, x, s, address, merged, o.at);
                    self.l2_store(mem, x, s, off, address, merged, mode);
                } else {
                    self.l2_store(mem, x, s, off, address, bytes, mode);
                }
            }
            _ => {
                let _ = mem.write(address, bytes);
                self.probe(usize::MAX, address);
            }
        }
    }
}

impl MemSystem {
    /// Write `bytes` into L2 line `slot` of `xcd` at `off` (`address` in memory), and through
    /// to memory unless the line is written back.
    #[allow(clippy::too_many_arguments)]
    fn l2_store(&mut self, mem: &mut Memory, xcd: usize, slot: usize, off: u32, address: u64, bytes: &[u8], mode: L2Mode) {
        self.l2_write(xcd, slot, off, bytes, mode);
        if mode != L2Mode::WriteBack {
            let _ = mem.write(address, bytes);
            self.probe(xcd, address);
        }
    }
}

/// The open line `o` (`granule` bytes) clipped to the allocation holding `address`.
fn last_line(mem: &Memory, o: Open, granule: u64, address: u64) -> Option<LastLine> {
    let a = mem.allocation_at(address)?;
    Some(LastLine { lo: o.key.max(a.base), hi: (o.key + granule).min(a.end()), open: o })
}

#[cfg(test)]
mod tests;
