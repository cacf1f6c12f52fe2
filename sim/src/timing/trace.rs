//! Execution traces of timing runs in the Chrome trace-event format (`{"traceEvents": [...]}`),
//! which Perfetto and `chrome://tracing` open.
//!
//! A trace is an observer ([`crate::observe`]): the timing engine tells it what happened — a
//! wave's lifetime, a stall, a memory access and the level that served it, a cache action, a
//! dispatch — and it turns each report into one event, written to its output at once, so
//! memory use does not grow with the run. Lanes:
//! * process "GPU", thread "dispatches": one span per dispatch (all dispatches of a run share
//!   one timeline, as the engine's clock does);
//! * one process per shader engine ("SE0", ...), in it per CU and SIMD one thread per wave
//!   slot ("CU3 / SIMD1 / wave slot 0") holding the lifetimes of the waves that ran there, with
//!   their stalls (waits on counters, barriers, sleeps) nested inside; and per CU threads for
//!   vector and scalar memory accesses ("CU3 / vector memory 0"), each access a span from issue
//!   to data return whose `level` argument says which level served it; cache invalidates and
//!   write-backs an instruction caused are spans there too (category `cache`, with the lines
//!   they dropped or wrote).
//!
//! A thread's spans never overlap (overlapping spans on one thread are what the viewers cannot
//! draw), so slots and memory threads are handed out first-fit: a span goes to the first
//! thread whose last span ended before it starts.
//!
//! Timestamps are microseconds (cycles divided by the GPU clock in MHz); every span also
//! carries its cycles in `args`. The number of timeline events is capped: past the cap,
//! events are counted but not written, and the closing `otherData` says so.

use crate::fault::WaveId;
use crate::memsys::Level;
use crate::observe::{CacheAction, CacheOp, DispatchInfo, DispatchSpan, Layout, MemUnit, MemoryDone, Observer, Stall, WavePlaced, WaveSpan};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use std::io::{self, Write};

/// Timeline events written at most, unless the client asks otherwise.
pub const DEFAULT_LIMIT: u64 = 5_000_000;

/// A wave's lane: which CU, SIMD and wave slot it runs in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Lane {
    cu: u32,
    simd: u16,
    slot: u16,
}

/// What a trace ended with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// Timeline events written (metadata not included).
    pub events: u64,
    /// Timeline events left out because the limit was reached.
    pub dropped: u64,
    pub limit: u64,
}

/// One wave slot of a SIMD: taken while a wave runs there; `until` is when its last wave ended.
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    taken: bool,
    until: u64,
    named: bool,
}

/// A thread holding spans: when its last span ends, and whether it has its name yet.
#[derive(Debug, Clone, Copy, Default)]
struct Track {
    until: u64,
    named: bool,
}

#[derive(Debug, Clone, Default)]
struct CuLanes {
    simds: Vec<Vec<Slot>>,
    vector: Vec<Track>,
    scalar: Vec<Track>,
}

/// Thread ids inside a shader engine's process: CU `c` uses `c * TIDS_PER_CU + ...`.
const TIDS_PER_CU: u32 = 10_000;
const SLOTS_PER_SIMD: usize = 100;
const VECTOR_BASE: u32 = 1_000;
const VECTOR_TRACKS: usize = 7_000;
const SCALAR_BASE: u32 = 8_000;
const SCALAR_TRACKS: usize = 2_000;
/// Process of the dispatch lane; shader engine `s` is process `SE_PID + s`.
const GPU_PID: u32 = 1;
const SE_PID: u32 = 2;

/// The trace being written.
pub struct Trace {
    out: Box<dyn Write>,
    limit: u64,
    events: u64,
    dropped: u64,
    /// The first write error; later writes are skipped and `finish` returns it.
    error: Option<io::Error>,
    /// Anything written yet (separators go before every element but the first).
    started: bool,
    clock_mhz: f64,
    layout: Option<Layout>,
    kernel: String,
    dispatches: u32,
    cus: Vec<CuLanes>,
    engines_named: Vec<bool>,
    /// The lanes of the dispatch's waves, by wave index.
    lanes: Vec<Lane>,
}

impl Observer for Trace {
    /// A trace shows the timing model's side only: lane accesses stay off, so the engines
    /// run as fast as with no observer.
    fn lane_accesses(&self) -> bool {
        false
    }

    fn dispatch_started(&mut self, d: &DispatchInfo) {
        if let Some(t) = d.timing {
            self.begin_dispatch(&d.kernel.name, t.clock_mhz, t.layout);
        }
        self.lanes.clear();
    }

    fn wave_placed(&mut self, p: &WavePlaced) {
        let lane = self.wave_started(p.cu, p.simd, p.at);
        let i = p.wave_index as usize;
        if self.lanes.len() <= i {
            self.lanes.resize(i + 1, Lane::default());
        }
        self.lanes[i] = lane;
    }

    fn stalled(&mut self, s: &Stall) {
        if s.to <= s.from || self.events >= self.limit {
            // Past the limit: dropped, as `stall` counts it, without writing out the detail.
            self.dropped += u64::from(s.to > s.from);
            return;
        }
        let lane = self.lane_of(s.wave_index);
        self.stall(lane, s.cause.name(), s.pc, s.from, s.to, &s.detail.to_string());
    }

    fn memory_done(&mut self, m: &MemoryDone) {
        self.access(m);
    }

    fn cache_action(&mut self, a: &CacheAction) {
        self.maintenance(a);
    }

    fn wave_span(&mut self, s: &WaveSpan) {
        let lane = self.lane_of(s.wave_index);
        self.wave_ended(lane, s.wave, s.start, s.end, s.instructions);
    }

    fn dispatch_span(&mut self, s: &DispatchSpan) {
        self.end_dispatch(s.start, s.end, s.groups, s.waves);
    }
}

impl std::fmt::Debug for Trace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Trace({} events, {} dropped)", self.events, self.dropped)
    }
}

#[derive(Serialize)]
struct Span<'a, A> {
    name: &'a str,
    cat: &'static str,
    ph: &'static str,
    ts: f64,
    dur: f64,
    pid: u32,
    tid: u32,
    args: A,
}

#[derive(Serialize)]
struct Meta<A> {
    name: &'static str,
    ph: &'static str,
    pid: u32,
    tid: u32,
    args: A,
}

#[derive(Serialize)]
struct NameArg<'a> {
    name: &'a str,
}

#[derive(Serialize)]
struct SortArg {
    sort_index: u32,
}

#[derive(Serialize)]
struct DispatchArgs {
    dispatch: u32,
    start_cycle: u64,
    cycles: u64,
    groups: u64,
    waves: u64,
}

#[derive(Serialize)]
struct WaveArgs<'a> {
    kernel: &'a str,
    dispatch: u32,
    workgroup: [u32; 3],
    wave: u32,
    cu: u32,
    simd: u16,
    start_cycle: u64,
    cycles: u64,
    instructions: u64,
}

/// A PC written as a hex string without building one on the heap.
struct Hex(u64);

impl Serialize for Hex {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{:#x}", self.0))
    }
}

/// Lines per level, only the levels that served some: `{"L1": 3, "L2": 1}`.
struct Lines {
    lines: [u32; Level::COUNT],
    rdna: bool,
}

impl Serialize for Lines {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for l in Level::ALL {
            let n = self.lines[l as usize];
            if n > 0 {
                m.serialize_entry(level_name(l, self.rdna), &n)?;
            }
        }
        m.end()
    }
}

#[derive(Serialize)]
struct StallArgs<'a> {
    pc: Hex,
    start_cycle: u64,
    cycles: u64,
    #[serde(skip_serializing_if = "str::is_empty")]
    detail: &'a str,
}

#[derive(Serialize)]
struct MemArgs {
    level: &'static str,
    lines: Lines,
    workgroup: [u32; 3],
    wave: u32,
    pc: Hex,
    issue_cycle: u64,
    cycles: u64,
}

#[derive(Serialize)]
struct CacheArgs {
    lines: u64,
    pc: Hex,
    issue_cycle: u64,
    cycles: u64,
}

/// A cache action's name, in the GPU's own words.
pub fn cache_op_name(op: CacheOp, rdna: bool) -> &'static str {
    match (op, rdna) {
        (CacheOp::InvalidateL1, false) => "L1 invalidate",
        (CacheOp::InvalidateL1, true) => "GL0 invalidate",
        (CacheOp::InvalidateGl1, _) => "GL1 invalidate",
        (CacheOp::InvalidateL2, _) => "L2 invalidate",
        (CacheOp::WritebackL2, _) => "L2 write-back",
        (CacheOp::InvalidateScalar, _) => "scalar cache invalidate",
    }
}

#[derive(Serialize)]
struct OtherData<'a> {
    clock_mhz: f64,
    time_unit: &'static str,
    events: u64,
    dropped_events: u64,
    event_limit: u64,
    dispatches: u32,
    #[serde(flatten)]
    extra: &'a serde_json::Map<String, serde_json::Value>,
}

impl Trace {
    /// A trace writing to `out` (buffer it: events are written one at a time), at most
    /// `limit` timeline events.
    pub fn new(out: Box<dyn Write>, limit: u64) -> Trace {
        let mut t = Trace {
            out,
            limit,
            events: 0,
            dropped: 0,
            error: None,
            started: false,
            clock_mhz: 1.0,
            layout: None,
            kernel: String::new(),
            dispatches: 0,
            cus: Vec::new(),
            engines_named: Vec::new(),
            lanes: Vec::new(),
        };
        t.raw(b"{\"traceEvents\":[");
        t
    }

    /// A dispatch of `kernel` starts on a GPU with `layout` running at `clock_mhz`.
    fn begin_dispatch(&mut self, kernel: &str, clock_mhz: u32, layout: Layout) {
        self.clock_mhz = clock_mhz.max(1) as f64;
        if self.layout != Some(layout) {
            self.layout = Some(layout);
            self.cus = vec![CuLanes::default(); layout.compute_units.max(1) as usize];
            self.engines_named = vec![false; layout.shader_engines.max(1) as usize];
        }
        kernel.clone_into(&mut self.kernel);
        if self.dispatches == 0 {
            self.meta("process_name", GPU_PID, 0, NameArg { name: "GPU" });
            self.meta("process_sort_index", GPU_PID, 0, SortArg { sort_index: 0 });
            self.meta("thread_name", GPU_PID, 1, NameArg { name: "dispatches" });
        }
        self.dispatches += 1;
    }

    /// The current dispatch ran from `start` to `end` (device cycles).
    fn end_dispatch(&mut self, start: u64, end: u64, groups: u64, waves: u64) {
        if !self.room() {
            return;
        }
        let args = DispatchArgs { dispatch: self.dispatches.saturating_sub(1), start_cycle: start, cycles: end.saturating_sub(start), groups, waves };
        let kernel = std::mem::take(&mut self.kernel);
        self.span(&kernel, "dispatch", GPU_PID, 1, start, end, args);
        self.kernel = kernel;
    }

    /// A wave starts on `simd` of `cu` at cycle `at`: its lane (a wave slot free since then).
    fn wave_started(&mut self, cu: usize, simd: usize, at: u64) -> Lane {
        let Some(c) = self.cus.get_mut(cu) else { return Lane::default() };
        if c.simds.len() <= simd {
            c.simds.resize(simd + 1, Vec::new());
        }
        let slots = &mut c.simds[simd];
        let pick = match slots.iter().position(|s| !s.taken && s.until <= at) {
            Some(i) => i,
            None if slots.len() < SLOTS_PER_SIMD => {
                slots.push(Slot::default());
                slots.len() - 1
            }
            // More slots than any GPU has waves per SIMD: share the last one.
            None => SLOTS_PER_SIMD - 1,
        };
        slots[pick].taken = true;
        Lane { cu: cu as u32, simd: simd as u16, slot: pick as u16 }
    }

    /// The wave in `lane` ran from `start` to `end` and executed `instructions`.
    fn wave_ended(&mut self, lane: Lane, wave: WaveId, start: u64, end: u64, instructions: u64) {
        if let Some(s) = self.slot_mut(lane) {
            s.taken = false;
            s.until = s.until.max(end);
        }
        if !self.room() {
            return;
        }
        let [x, y, z] = wave.workgroup;
        let name = format!("{} wg({x},{y},{z}) w{}", self.kernel, wave.wave);
        let (pid, tid) = self.wave_thread(lane);
        let kernel = std::mem::take(&mut self.kernel);
        let args = WaveArgs {
            kernel: &kernel,
            dispatch: self.dispatches.saturating_sub(1),
            workgroup: wave.workgroup,
            wave: wave.wave,
            cu: lane.cu,
            simd: lane.simd,
            start_cycle: start,
            cycles: end.saturating_sub(start),
            instructions,
        };
        self.span(&name, "wave", pid, tid, start, end, args);
        self.kernel = kernel;
    }

    /// The wave in `lane` stalled from `from` to `to` at `pc` (`what`: "s_waitcnt",
    /// "s_barrier", "s_sleep"; `detail` says on what). Empty stalls are not shown.
    fn stall(&mut self, lane: Lane, what: &str, pc: u64, from: u64, to: u64, detail: &str) {
        if to <= from || !self.room() {
            return;
        }
        let (pid, tid) = self.wave_thread(lane);
        let args = StallArgs { pc: Hex(pc), start_cycle: from, cycles: to - from, detail };
        self.span(what, "stall", pid, tid, from, to, args);
    }

    /// A memory access: a span from issue to completion on one of its CU's memory threads.
    fn access(&mut self, a: &MemoryDone) {
        if !self.room() {
            return;
        }
        let Some(k) = self.memory_track(a.cu, a.unit, a.issue, a.done) else { return };
        let rdna = self.layout.is_some_and(|l| l.rdna);
        let args = MemArgs {
            level: a.level.map_or("none", |l| level_name(l, rdna)),
            lines: Lines { lines: a.lines, rdna },
            workgroup: a.wave.workgroup,
            wave: a.wave.wave,
            pc: Hex(a.pc),
            issue_cycle: a.issue,
            cycles: a.done.saturating_sub(a.issue),
        };
        let (pid, tid) = self.memory_thread(a.cu, a.unit, k);
        self.span(a.name, "memory", pid, tid, a.issue, a.done.max(a.issue), args);
    }

    fn lane_of(&self, wave_index: u32) -> Lane {
        self.lanes.get(wave_index as usize).copied().unwrap_or_default()
    }

    /// A cache action: a span on its CU's vector memory threads, like an access.
    fn maintenance(&mut self, a: &CacheAction) {
        if !self.room() {
            return;
        }
        let Some(k) = self.memory_track(a.cu, MemUnit::Vector, a.issue, a.done) else { return };
        let rdna = self.layout.is_some_and(|l| l.rdna);
        let args = CacheArgs { lines: a.lines, pc: Hex(a.pc), issue_cycle: a.issue, cycles: a.done.saturating_sub(a.issue) };
        let (pid, tid) = self.memory_thread(a.cu, MemUnit::Vector, k);
        self.span(cache_op_name(a.op, rdna), "cache", pid, tid, a.issue, a.done.max(a.issue), args);
    }

    /// Close the JSON (with `extra` fields in `otherData`, e.g. the GPU's name) and flush.
    pub fn finish(mut self, extra: &serde_json::Map<String, serde_json::Value>) -> io::Result<Summary> {
        let other = OtherData {
            clock_mhz: self.clock_mhz,
            time_unit: "ts and dur are microseconds: device cycles / clock_mhz; args give cycles",
            events: self.events,
            dropped_events: self.dropped,
            event_limit: self.limit,
            dispatches: self.dispatches,
            extra,
        };
        self.raw(b"\n],\"displayTimeUnit\":\"ns\",\"otherData\":");
        if self.error.is_none() {
            if let Err(e) = serde_json::to_writer(&mut self.out, &other) {
                self.error = Some(e.into());
            }
        }
        self.raw(b"}\n");
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok(Summary { events: self.events, dropped: self.dropped, limit: self.limit })
    }

    /// Whether another timeline event may be written; counts it as dropped if not.
    fn room(&mut self) -> bool {
        if self.events < self.limit {
            return true;
        }
        self.dropped += 1;
        false
    }

    fn us(&self, cycle: u64) -> f64 {
        cycle as f64 / self.clock_mhz
    }

    fn us_len(&self, from: u64, to: u64) -> f64 {
        to.saturating_sub(from) as f64 / self.clock_mhz
    }

    #[allow(clippy::too_many_arguments)]
    fn span<A: Serialize>(&mut self, name: &str, cat: &'static str, pid: u32, tid: u32, from: u64, to: u64, args: A) {
        let ev = Span { name, cat, ph: "X", ts: self.us(from), dur: self.us_len(from, to), pid, tid, args };
        self.write(&ev);
    }

    fn slot_mut(&mut self, lane: Lane) -> Option<&mut Slot> {
        self.cus.get_mut(lane.cu as usize)?.simds.get_mut(lane.simd as usize)?.get_mut(lane.slot as usize)
    }

    /// Process and thread of a wave lane, naming them the first time.
    fn wave_thread(&mut self, lane: Lane) -> (u32, u32) {
        let pid = self.engine_process(lane.cu as usize);
        let tid = lane.cu * TIDS_PER_CU + 1 + lane.simd as u32 * SLOTS_PER_SIMD as u32 + lane.slot as u32;
        if self.slot_mut(lane).is_some_and(|s| !std::mem::replace(&mut s.named, true)) {
            let name = format!("CU{} / SIMD{} / wave slot {}", lane.cu, lane.simd, lane.slot);
            self.name_thread(pid, tid, &name);
        }
        (pid, tid)
    }

    /// First-fit memory thread of `cu` for a span from `from` to `to`.
    fn memory_track(&mut self, cu: usize, unit: MemUnit, from: u64, to: u64) -> Option<usize> {
        let c = self.cus.get_mut(cu)?;
        let (tracks, max) = match unit {
            MemUnit::Vector => (&mut c.vector, VECTOR_TRACKS),
            MemUnit::Scalar => (&mut c.scalar, SCALAR_TRACKS),
        };
        let k = match tracks.iter().position(|t| t.until <= from) {
            Some(k) => k,
            None if tracks.len() < max => {
                tracks.push(Track::default());
                tracks.len() - 1
            }
            None => max - 1,
        };
        tracks[k].until = tracks[k].until.max(to);
        Some(k)
    }

    fn memory_thread(&mut self, cu: usize, unit: MemUnit, k: usize) -> (u32, u32) {
        let pid = self.engine_process(cu);
        let (base, what) = match unit {
            MemUnit::Vector => (VECTOR_BASE, "vector"),
            MemUnit::Scalar => (SCALAR_BASE, "scalar"),
        };
        let tid = cu as u32 * TIDS_PER_CU + base + k as u32;
        let named = self.cus.get_mut(cu).and_then(|c| match unit {
            MemUnit::Vector => c.vector.get_mut(k),
            MemUnit::Scalar => c.scalar.get_mut(k),
        });
        if named.is_some_and(|t| !std::mem::replace(&mut t.named, true)) {
            self.name_thread(pid, tid, &format!("CU{cu} / {what} memory {k}"));
        }
        (pid, tid)
    }

    /// The process of `cu`'s shader engine, named the first time.
    fn engine_process(&mut self, cu: usize) -> u32 {
        let Some(l) = self.layout else { return SE_PID };
        let se = super::placement::shader_engine_of(cu, l.compute_units as usize, l.shader_engines as usize);
        let pid = SE_PID + se as u32;
        if let Some(done) = self.engines_named.get_mut(se) {
            if !std::mem::replace(done, true) {
                let name = if l.xcds > 1 {
                    let per_xcd = (l.shader_engines.max(1)).div_ceil(l.xcds.max(1)).max(1) as usize;
                    format!("SE{se} (XCD{})", se / per_xcd)
                } else {
                    format!("SE{se}")
                };
                self.meta("process_name", pid, 0, NameArg { name: &name });
                self.meta("process_sort_index", pid, 0, SortArg { sort_index: pid });
            }
        }
        pid
    }

    fn name_thread(&mut self, pid: u32, tid: u32, name: &str) {
        self.meta("thread_name", pid, tid, NameArg { name });
        self.meta("thread_sort_index", pid, tid, SortArg { sort_index: tid });
    }

    /// A metadata event (not counted against the limit: there is one per lane).
    fn meta<A: Serialize>(&mut self, name: &'static str, pid: u32, tid: u32, args: A) {
        self.element(&Meta { name, ph: "M", pid, tid, args });
    }

    /// A timeline event.
    fn write<T: Serialize>(&mut self, ev: &T) {
        self.events += 1;
        self.element(ev);
    }

    fn element<T: Serialize>(&mut self, ev: &T) {
        let sep: &[u8] = if self.started { b",\n" } else { b"\n" };
        self.started = true;
        self.raw(sep);
        if self.error.is_none() {
            if let Err(e) = serde_json::to_writer(&mut self.out, ev) {
                self.error = Some(e.into());
            }
        }
    }

    fn raw(&mut self, bytes: &[u8]) {
        if self.error.is_none() {
            if let Err(e) = self.out.write_all(bytes) {
                self.error = Some(e);
            }
        }
    }
}

/// How a level is called in traces (the per-CU vector cache is GL0, "L0", on RDNA).
pub fn level_name(l: Level, rdna: bool) -> &'static str {
    match l {
        Level::L1 if rdna => "L0",
        Level::L1 => "L1",
        Level::Scalar => "scalar cache",
        Level::Gl1 => "GL1",
        Level::L2 => "L2",
        Level::Mall => "MALL",
        Level::Dram => "DRAM",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;

    /// A writer the test can read back.
    #[derive(Clone, Default)]
    struct Shared(Rc<RefCell<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    const LAYOUT: Layout = Layout { compute_units: 4, shader_engines: 2, xcds: 1, rdna: false };

    fn events(buf: &Shared) -> Vec<serde_json::Value> {
        let v: serde_json::Value = serde_json::from_slice(&buf.0.borrow()).expect("valid JSON");
        v["traceEvents"].as_array().cloned().unwrap_or_default()
    }

    #[test]
    fn slots_are_reused_only_after_their_wave_ended() {
        let buf = Shared::default();
        let mut t = Trace::new(Box::new(buf.clone()), 100);
        t.begin_dispatch("k", 1000, LAYOUT);
        let a = t.wave_started(3, 1, 0);
        let b = t.wave_started(3, 1, 0);
        assert_ne!(a, b, "two live waves never share a slot");
        t.wave_ended(a, WaveId::default(), 0, 500, 10);
        assert_ne!(t.wave_started(3, 1, 400), a, "the slot is busy until cycle 500");
        assert_eq!(t.wave_started(3, 1, 500), a);
        t.finish(&serde_json::Map::new()).unwrap();
        let ev = events(&buf);
        let names: Vec<&str> = ev.iter().filter(|e| e["name"] == "thread_name").filter_map(|e| e["args"]["name"].as_str()).collect();
        assert!(names.contains(&"CU3 / SIMD1 / wave slot 0"), "{names:?}");
        let procs: Vec<&str> = ev.iter().filter(|e| e["name"] == "process_name").filter_map(|e| e["args"]["name"].as_str()).collect();
        assert_eq!(procs, ["GPU", "SE1"], "CU3 of 4 with 2 engines is in SE1");
        let wave = ev.iter().find(|e| e["cat"] == "wave").unwrap();
        assert_eq!(wave["dur"], 0.5, "500 cycles at 1000 MHz");
    }

    #[test]
    fn memory_spans_never_overlap_on_a_thread_and_the_limit_holds() {
        let buf = Shared::default();
        let mut t = Trace::new(Box::new(buf.clone()), 3);
        t.begin_dispatch("k", 1000, LAYOUT);
        let mut lines = [0; Level::COUNT];
        lines[Level::L2 as usize] = 2;
        for (issue, done) in [(0, 100), (10, 50), (100, 120), (130, 140)] {
            t.access(&MemoryDone {
                cu: 0,
                unit: MemUnit::Vector,
                name: "global_load_dword",
                wave: WaveId::default(),
                wave_index: 0,
                pc: 0,
                issue,
                done,
                level: Some(Level::L2),
                lines,
            });
        }
        let s = t.finish(&serde_json::Map::new()).unwrap();
        assert_eq!((s.events, s.dropped), (3, 1));
        let ev = events(&buf);
        let tids: Vec<u64> = ev.iter().filter(|e| e["cat"] == "memory").filter_map(|e| e["tid"].as_u64()).collect();
        assert_eq!(tids, [VECTOR_BASE as u64, VECTOR_BASE as u64 + 1, VECTOR_BASE as u64], "overlap goes to a second thread, then back");
        let m = ev.iter().find(|e| e["cat"] == "memory").unwrap();
        assert_eq!(m["args"]["level"], "L2");
        assert_eq!(m["args"]["lines"]["L2"], 2);
    }
}
