//! The memory system of the timing mode: per-CU vector L1s, scalar caches, RDNA GL1s, an L2
//! per XCD with address-interleaved channels, an optional memory-side MALL, and DRAM channels.
//! Caches hold bytes, so a stale line returns stale data; every level keeps its own tags,
//! counters and throughput limits.
//!
//! It knows nothing of instructions. A client describes one wave-wide access at a time —
//! which CU, vector or scalar unit, load/store/atomic, cache policy, issue cycle — with
//! [`MemSystem::begin`], then hands over each lane's bytes with [`MemSystem::read`] /
//! [`MemSystem::write`] (in lane order; an atomic is a read then a write of each lane), and
//! [`MemSystem::end`] says when the access completes. The first lane that touches a line
//! *opens* it: the line is looked up and, on a miss, filled through the levels below, with
//! counters and timing; later lanes of the same access use the open line. Data then moves
//! between the lane and the first level holding the line.
//!
//! Timing is latency plus throughput: a request's latency is the sum of the levels it passes
//! (`hit_latency_cycles` of each), and each level's throughput limit ([`pipe::Pipe`]) delays
//! requests that arrive while it is busy. A hit on a line whose fill is still under way waits
//! for the fill.

pub mod cache;
pub mod channel;
pub mod coalesce;
pub mod mtype;
pub mod pipe;

mod access;
mod atomics;
mod late;
mod lower;
mod remote;
mod reorder;

pub use late::LateRead;
pub use lower::Reach;
pub use remote::{ns_to_cycles, RemotePath, RemotePaths};

use crate::counters::{Counter, Counters};
use crate::gpus::timing::Timing;
use crate::memory::Memory;
use cache::{Cache, Geometry};
use pipe::Pipe;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub use access::{Level, OpKind, OpResult, OpSpec, Policy, Unit};

impl std::fmt::Debug for MemSystem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MemSystem({} L1s, {} L2s)", self.l1.len(), self.l2.len())
    }
}

/// Which caches a CU uses.
#[derive(Debug, Clone, Copy)]
struct Place {
    xcd: usize,
    array: usize,
    scalar: usize,
}

/// The XCD of CU `cu` of `cus` on a GPU of `xcds` XCDs: CUs are numbered XCD by XCD.
pub fn xcd_of_cu(cu: usize, cus: usize, xcds: usize) -> usize {
    cu * xcds.max(1) / cus.max(1)
}

/// Misses in flight per CU (the L1's miss-handling registers): a new miss waits while all
/// are busy.
#[derive(Debug, Clone, Default)]
struct MissWindow {
    done: BinaryHeap<Reverse<u64>>,
}

impl MissWindow {
    /// The cycle a miss arriving at `at` can leave (`limit` in flight at most).
    fn admit(&mut self, at: u64, limit: usize) -> u64 {
        while self.done.peek().is_some_and(|Reverse(t)| *t <= at) {
            self.done.pop();
        }
        if self.done.len() < limit {
            return at;
        }
        self.done.pop().map_or(at, |Reverse(t)| t.max(at))
    }

    fn record(&mut self, done: u64) {
        self.done.push(Reverse(done));
    }
}

/// Which host-side memory the GPU can update atomically: the seed document's conditions for a
/// system-scope atomic to be atomic (libhipcxx memory model: mapped host memory needs
/// `hostNativeAtomicSupported`, managed memory `concurrentManagedAccess`). Device memory
/// always is.
#[derive(Debug, Clone, Copy)]
pub struct HostAtomics {
    pub pinned: bool,
    pub managed: bool,
}

impl Default for HostAtomics {
    fn default() -> Self {
        HostAtomics { pinned: true, managed: true }
    }
}

impl HostAtomics {
    pub fn atomic_on(self, kind: crate::memory::MemoryKind) -> bool {
        use crate::memory::MemoryKind;
        match kind {
            MemoryKind::HostPinned | MemoryKind::HostNonCoherent => self.pinned,
            MemoryKind::Managed => self.managed,
            _ => true,
        }
    }
}

/// The whole memory system of one GPU. It persists across dispatches (the L2 keeps its lines
/// from one kernel to the next).
#[derive(Clone)]
pub struct MemSystem {
    cfg: Timing,
    places: Vec<Place>,
    l1: Vec<Cache>,
    l1_tags: Vec<Pipe>,
    l1_misses: Vec<MissWindow>,
    scalar: Vec<Cache>,
    gl1: Vec<Cache>,
    l2: Vec<Cache>,
    /// `xcd * channels + channel`.
    l2_channels: Vec<Pipe>,
    mall: Option<Cache>,
    mall_pipes: Vec<Pipe>,
    dram: Vec<Pipe>,
    /// The atomic units of the L2 channels and of the memory channels.
    atomic_units: atomics::Units,
    dram_bytes_per_cycle_per_channel: f64,
    mall_bytes_per_cycle_per_channel: f64,
    pub counters: Counters,
    /// The access being described, between `begin` and `end`.
    op: Option<Box<access::OpState>>,
    /// The last access's state once it ended, kept for the next `begin` to reuse its buffers.
    spare: Option<Box<access::OpState>>,
    /// Lines written back below the L2 whose bytes have not reached `Memory` yet.
    pending: Vec<cache::Evicted>,
    /// (XCD, L2 line) read by the current wave access (its later reads of a line merge).
    read_lines: Vec<(usize, u64)>,
    /// The farthest level the line being opened has gone to (reported per access, so that
    /// clients such as traces can say which level served it).
    line_level: Option<Level>,
    /// Whether atomics on host memory are atomic (counted when not).
    pub host_atomics: HostAtomics,
    /// Seeded reordering of requests to the L2 (seed ≠ 0 only).
    reorder: Option<reorder::Reorder>,
    /// Lane reads of the current access whose value is decided when they reach the L2
    /// (reordering only, [`late`]).
    late: Vec<LateRead>,
    /// The CU of the access being described.
    cur_cu: usize,
    /// Arrival at its L2 channel of the latest L2 request.
    l2_arrival: u64,
    /// The paths to other agents' memory, with their links' queues ([`remote`]); none unless
    /// [`MemSystem::set_remote_paths`] gave them.
    remote: remote::Remote,
    /// The remote path of the line being opened (`None`: local memory).
    far: Option<usize>,
}

impl MemSystem {
    /// An empty memory system for `compute_units` CUs with the timing parameters `cfg`
    /// (checked by `Timing::check`).
    pub fn new(cfg: &Timing, compute_units: u32) -> MemSystem {
        let t = &cfg.topology;
        let cus = compute_units.max(1) as usize;
        let xcds = (t.xcds.max(1) as usize).min(cus);
        let arrays = ((t.shader_engines * t.shader_arrays_per_engine).max(1) as usize).min(cus);
        let scalars = cus.div_ceil(t.cus_per_scalar_cache.max(1) as usize);
        let places =
            (0..cus).map(|cu| Place { xcd: xcd_of_cu(cu, cus, xcds), array: cu * arrays / cus, scalar: cu / t.cus_per_scalar_cache.max(1) as usize }).collect();
        let l1g = Geometry { size_bytes: cfg.vector_l1.size_bytes, line_bytes: cfg.vector_l1.line_bytes, ways: cfg.vector_l1.ways };
        let geo = |c: &crate::gpus::timing::Cache| Geometry { size_bytes: c.size_bytes, line_bytes: c.line_bytes, ways: c.ways };
        let l2g = Geometry { size_bytes: cfg.l2.size_bytes, line_bytes: cfg.l2.line_bytes, ways: cfg.l2.ways };
        let dram_channels = cfg.dram.channels.max(1) as usize;
        let mall_channels = dram_channels;
        MemSystem {
            places,
            l1: (0..cus).map(|_| Cache::new(l1g, true).hashed_if(cfg.vector_l1.hashed_sets)).collect(),
            l1_tags: vec![Pipe::default(); cus],
            l1_misses: vec![MissWindow::default(); cus],
            scalar: (0..scalars).map(|_| Cache::new(geo(&cfg.scalar_cache), true)).collect(),
            gl1: cfg.gl1.as_ref().map_or(Vec::new(), |g| (0..arrays).map(|_| Cache::new(geo(g), true)).collect()),
            l2: (0..xcds).map(|_| Cache::new(l2g, true).hashed()).collect(),
            l2_channels: vec![Pipe::default(); xcds * cfg.l2.channels.max(1) as usize],
            mall: cfg.mall.as_ref().map(|m| Cache::new(Geometry { size_bytes: m.size_bytes, line_bytes: m.line_bytes, ways: m.ways }, false).hashed()),
            mall_pipes: vec![Pipe::default(); if cfg.mall.is_some() { mall_channels } else { 0 }],
            dram: vec![Pipe::default(); dram_channels],
            atomic_units: atomics::Units::new(xcds * cfg.l2.channels.max(1) as usize, dram_channels, cfg.l2.atomic_ops_per_cycle, cfg.l2.atomic_latency_cycles),
            dram_bytes_per_cycle_per_channel: cfg.dram_bytes_per_cycle() / dram_channels as f64,
            mall_bytes_per_cycle_per_channel: cfg
                .mall
                .as_ref()
                .map_or(1.0, |m| m.bandwidth_gb_per_s as f64 * 1000.0 / cfg.clock_mhz as f64 / mall_channels as f64),
            counters: Counters::default(),
            cfg: cfg.clone(),
            op: None,
            spare: None,
            pending: Vec::new(),
            read_lines: Vec::new(),
            line_level: None,
            host_atomics: HostAtomics::default(),
            reorder: None,
            late: Vec::new(),
            cur_cu: 0,
            l2_arrival: 0,
            remote: remote::Remote::default(),
            far: None,
        }
    }

    /// Back to the state of a new memory system (every cache empty, every pipe idle, counters
    /// zero), without reallocating: seed sweeps run one short dispatch after another.
    pub fn reset(&mut self) {
        for c in self.l1.iter_mut().chain(&mut self.scalar).chain(&mut self.gl1).chain(&mut self.l2).chain(self.mall.iter_mut()) {
            c.clear();
        }
        for p in self.l1_tags.iter_mut().chain(&mut self.l2_channels).chain(&mut self.mall_pipes).chain(&mut self.dram) {
            p.clear();
        }
        self.atomic_units.clear();
        self.remote.clear();
        for w in &mut self.l1_misses {
            *w = MissWindow::default();
        }
        self.counters = Counters::default();
        self.pending.clear();
        self.read_lines.clear();
        self.line_level = None;
        self.reorder = None;
        self.late.clear();
    }

    /// Drop every cached line overlapping `[start, end)` from every cache, as a copy engine
    /// writing memory there leaves them stale (write the dirty bytes back first, e.g. with
    /// [`MemSystem::flush_to`]). Lines elsewhere stay, so data a program copied once keeps
    /// hitting in the L2 and MALL across its later copies and kernels. Not counted: no
    /// instruction asked for it.
    pub fn invalidate_range(&mut self, start: u64, end: u64) {
        for c in self.l1.iter_mut().chain(&mut self.scalar).chain(&mut self.gl1).chain(&mut self.l2).chain(self.mall.iter_mut()) {
            c.invalidate_range(start, end);
        }
    }

    /// The seed of the next dispatch: 0 keeps requests in issue order; any other seed turns on
    /// the seeded reordering of requests on their way to the L2 ([`reorder`]).
    pub fn set_seed(&mut self, seed: u64) {
        self.reorder = (seed != 0).then(|| reorder::Reorder::new(seed, self.l1.len(), self.l2_channels.len()));
    }

    /// The node-side view: accesses to host memory and to peer GPUs' memory go over these
    /// paths ([`remote`]). Host memory is updated atomically only if the host path, when there
    /// is one, carries atomics.
    pub fn set_remote_paths(&mut self, paths: &RemotePaths) {
        if let Some(h) = paths.host {
            self.host_atomics.pinned &= h.atomics;
            self.host_atomics.managed &= h.atomics;
        }
        self.remote = remote::Remote::new(paths);
        self.atomic_units.set_remote(self.remote.len());
    }

    pub fn config(&self) -> &Timing {
        &self.cfg
    }

    /// A dispatch starts: the command processor invalidates the vector L1s, scalar caches and
    /// GL1s (LLVM AMDGPUUsage: "CP invalidates ... at the start of each kernel dispatch").
    /// With several L2s in the agent (MI300) its acquire also invalidates the L2 lines of
    /// memory not local to each L2 — in an interleaved (SPX) layout nearly all of them — so
    /// the L2s drop their clean lines (the previous kernel's end wrote the dirty ones back).
    pub fn begin_kernel(&mut self) {
        for c in self.l1.iter_mut().chain(&mut self.scalar).chain(&mut self.gl1) {
            c.invalidate_all();
        }
        if self.l2.len() > 1 {
            for x in 0..self.l2.len() {
                self.invalidate_l2_where(x, |_| true);
            }
        }
    }

    /// A dispatch ends at cycle `at`: with several L2s in one agent (MI300 SPX), the
    /// end-of-kernel release writes their dirty lines back so that the next kernel, wherever
    /// it runs, reads them (LLVM AMDGPUUsage, *Memory Model GFX942*: agent-scope release
    /// writes back the L2 when the agent has several). Returns when that is done.
    pub fn end_kernel(&mut self, mem: &mut Memory, at: u64) -> u64 {
        if self.l2.len() <= 1 {
            return at;
        }
        (0..self.l2.len()).map(|x| self.writeback_l2(mem, x, at, |_| true)).max().unwrap_or(at)
    }

    /// At the end of a dispatch: the end-of-kernel system-scope release writes the dirty
    /// lines of a single L2 back to memory (so the host can read the results), after the
    /// dispatch's counters have been sampled but before its end timestamp: vcopy on MI100
    /// and MI210 counts fewer memory writes than it wrote lines from the second dispatch on
    /// (`../shared/notes/device-data.md`, vcopy counters), yet its measured durations
    /// (15.8 µs on MI210 for 8 MiB read and 8 MiB written) leave room for every written line
    /// to reach memory. Returns when the write-back is done (`at` when nothing is dirty).
    /// Several L2s write back inside the dispatch instead ([`MemSystem::end_kernel`]).
    pub fn release_after_kernel(&mut self, mem: &mut Memory, at: u64) -> u64 {
        if self.l2.len() != 1 {
            return at;
        }
        let saved = self.counters.clone();
        let pipes = (self.l2_channels.clone(), self.dram.clone(), self.mall_pipes.clone());
        // Booked from `at` (then discarded): booking from cycle 0 would make every write-back
        // walk the pipes' whole history.
        let done = self.writeback_l2(mem, 0, at, |_| true);
        self.counters = saved;
        (self.l2_channels, self.dram, self.mall_pipes) = pipes;
        done
    }

    /// Write every L2's dirty bytes to memory without changing any cache state or counter:
    /// what the host sees after the device has synchronized, for checking results.
    pub fn flush_to(&self, mem: &mut Memory) {
        for c in &self.l2 {
            for s in c.dirty_slots() {
                mem.write_masked(c.address_of(s), c.bytes(s), c.dirty(s));
            }
        }
    }

    /// Give every cached line the bytes `mem` holds now ([`cache::Cache::refresh_from`]): a
    /// launch that ran functionally (sampled timing) wrote memory without the caches, after
    /// [`MemSystem::flush_to`]. The caches keep the lines they held, as if the launch had
    /// touched nothing else; not counted. Returns the lines whose bytes changed.
    pub fn refresh_from(&mut self, mem: &Memory) -> u64 {
        let mut changed = 0;
        for c in self.l1.iter_mut().chain(&mut self.scalar).chain(&mut self.gl1).chain(&mut self.l2).chain(self.mall.iter_mut()) {
            changed += c.refresh_from(mem);
        }
        changed
    }

    /// The 8 bytes at `address` (8-aligned) as the host would see them once the device's
    /// writes reached the L2s: an L2's dirty bytes where it holds some, memory elsewhere. No
    /// cache state or counter changes: a cheap look for the host agent's polling.
    pub fn peek_u64(&self, mem: &Memory, address: u64) -> Option<u64> {
        let mut bytes = [0u8; 8];
        mem.read(address, &mut bytes).ok()?;
        for c in &self.l2 {
            let Some(slot) = c.find(address) else { continue };
            let off = (address - c.address_of(slot)) as usize;
            let (dirty, data) = (c.dirty(slot), c.bytes(slot));
            for (i, b) in bytes.iter_mut().enumerate() {
                if dirty >> (off + i) & 1 != 0 {
                    *b = data.get(off + i).copied().unwrap_or(*b);
                }
            }
        }
        Some(u64::from_le_bytes(bytes))
    }

    /// Invalidate the vector L1 of `cu` (`buffer_wbinvl1_vol`, `buffer_inv sc0`,
    /// `buffer_gl0_inv`): its lines are clean (write-through), so nothing is written.
    /// Counted, with the valid lines dropped. Returns those lines (`None`: the CU has none).
    pub fn invalidate_l1(&mut self, cu: usize) -> Option<u64> {
        invalidate_counted(self.l1.get_mut(cu), &mut self.counters, Counter::L1Invalidates, Counter::L1InvalidatedLines)
    }

    /// Invalidate the scalar cache `cu` uses (`s_dcache_inv`): it holds no dirty data (scalar
    /// stores write through), so nothing is written. Returns the valid lines dropped (`None`:
    /// no scalar cache).
    pub fn invalidate_scalar(&mut self, cu: usize) -> Option<u64> {
        let k = self.places.get(cu).map_or(0, |p| p.scalar);
        let c = self.scalar.get_mut(k)?;
        let n = c.valid_lines();
        c.invalidate_all();
        Some(n)
    }

    /// Invalidate the GL1 of `cu`'s shader array (`buffer_gl1_inv`), counted like
    /// [`MemSystem::invalidate_l1`]. Returns the valid lines dropped (`None`: no GL1).
    pub fn invalidate_gl1(&mut self, cu: usize) -> Option<u64> {
        let a = self.places.get(cu).map_or(0, |p| p.array);
        invalidate_counted(self.gl1.get_mut(a), &mut self.counters, Counter::Gl1Invalidates, Counter::Gl1InvalidatedLines)
    }

    /// The XCD whose L2 `cu` uses.
    pub fn xcd_of(&self, cu: usize) -> usize {
        self.places.get(cu).map_or(0, |p| p.xcd)
    }

    /// Number of L2s (XCDs).
    pub fn l2_count(&self) -> usize {
        self.l2.len()
    }

    /// Busy cycles booked so far on each memory-side channel (the MALL's, then DRAM's), and the
    /// lines the L2s and the MALL allocated: what work-group sampling measures per instruction
    /// over its stable windows.
    pub fn memory_side(&self) -> MemorySide {
        let busy_cycles = self.mall_pipes.iter().chain(&self.dram).map(Pipe::busy_cycles).collect();
        let l2_lines = self.l2.iter().map(Cache::capacity_lines).sum();
        MemorySide { busy_cycles, fills: [self.counters.get(Counter::TccMiss), self.counters.get(Counter::MallMiss)], l2_lines }
    }

    /// The part of a dispatch that ran functionally (work-group sampling) brought `fills` lines
    /// into the L2s (all together) and the MALL ([`MemorySide::fills`]) that detail never saw:
    /// they take each cache's empty ways and then its least recently used clean lines, as
    /// placeholders no address finds ([`cache::Cache::age_out`]; spread over the sets; dirty
    /// lines stay, to be written back as in full detail). Without it, the lines
    /// detail left before the fast-forward stayed cached through it: pagerank of 12 288 nodes on
    /// an MI300A (600 MB of matrix, a 256 MB MALL) started each later launch with the first
    /// rows in the MALL, where full detail had long replaced them, and ran its first round 40 %
    /// faster than in full detail.
    pub fn turn_over(&mut self, fills: [u64; 2]) {
        let per_l2 = fills[0] / self.l2.len().max(1) as u64;
        for c in &mut self.l2 {
            c.age_out(per_l2);
        }
        if let Some(m) = self.mall.as_mut() {
            m.age_out(fills[1]);
        }
    }

    /// The MALL, lent (to a functional fast-forward, [`crate::sched::Touched`]) until
    /// [`MemSystem::give_mall`] gives it back; `None`: there is none.
    pub fn lend_mall(&mut self) -> Option<Cache> {
        self.mall.take()
    }

    /// Whether the GPU has a memory-side cache (MALL, Infinity Cache).
    pub fn has_mall(&self) -> bool {
        self.mall.is_some()
    }

    /// The MALL [`MemSystem::lend_mall`] lent, back.
    pub fn give_mall(&mut self, mall: Cache) {
        self.mall = Some(mall);
    }

    /// Book `cycles[i]` busy cycles on memory-side channel `i` (in the order of
    /// [`MemorySide::busy_cycles`]) from cycle `at`, wherever each has room: the traffic
    /// of the part of a dispatch that ran functionally (work-group sampling) queues behind what
    /// detail booked, as it would have. Not counted: no access asked for it.
    pub fn charge_memory(&mut self, at: u64, cycles: &[u64]) {
        for (p, &c) in self.mall_pipes.iter_mut().chain(&mut self.dram).zip(cycles) {
            if c > 0 {
                p.reserve(at, c * pipe::SUB);
            }
        }
    }
}

/// What the memory side did so far ([`MemSystem::memory_side`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MemorySide {
    /// Busy cycles booked on each memory-side channel (the MALL's, then DRAM's).
    pub busy_cycles: Vec<u64>,
    /// Lines allocated by the L2s (all together) and by the MALL.
    pub fills: [u64; 2],
    /// Lines the L2s hold when full (all together).
    pub l2_lines: u64,
}

/// Invalidate `cache` (if there is one) by an instruction: one operation counted in `ops`,
/// its valid lines in `lines`. Returns those lines (`None`: no such cache).
fn invalidate_counted(cache: Option<&mut Cache>, counters: &mut Counters, ops: Counter, lines: Counter) -> Option<u64> {
    let c = cache?;
    let n = c.valid_lines();
    c.invalidate_all();
    counters.inc(ops);
    counters.add(lines, n);
    Some(n)
}
