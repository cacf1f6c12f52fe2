//! Watching a run: the one seam through which race detection, traces and metrics see what
//! the waves do, in both modes.
//!
//! An [`Observer`] given to a launch ([`crate::launch::Hooks`]) is told, in the order the
//! engine runs them: the dispatch's start and end, each wave's start and end, each
//! instruction a wave executes (before its effects, with its decoded form and semantics, so
//! an observer can tell a fence sequence or an atomic from its opcode and cache-policy bits),
//! every lane access that instruction makes to global memory, LDS or scratch, and every
//! barrier release. In timing mode the instruction also carries its issue cycle, and the
//! observer is told the timing model's side too: where each wave was placed and how long it
//! ran, each stall (waits on counters, barriers, sleeps), each memory instruction's
//! completion and the level that served it, and each cache action an instruction caused
//! (invalidates and write-backs, with the lines they dropped or wrote). The timeline trace
//! ([`crate::timing::trace::Trace`]), the scope suite's cache-action tallies and the race
//! detector are all observers: there is one way to watch a run. Observers compose: a [`Fan`]
//! hands every event to several, so one launch can be watched by a race detector and a
//! memory-system story at once, each seeing what it would see alone.
//!
//! Why a port wrapper: every lane access already passes [`MemPort`] (timing mode: the cache
//! hierarchy) or goes straight to [`Memory`] (functional mode). [`Watched`] sits in front of
//! either and forwards each access to the observer after it succeeded, so neither the
//! instruction semantics nor the memory system learn about observers. With no observer the
//! engines run exactly as before: functional mode keeps its bulk copies and no event is
//! built; the cost is one `Option` test per instruction (measured in `benches/functional.rs`).

/// Whether an [`Access`] read or wrote: the memory port's direction, named here with the
/// other event types.
pub use crate::exec::Dir;
use crate::exec::{MemPort, Sem};
use crate::fault::WaveId;
use crate::memory::{Memory, Unmapped};
use crate::memsys::Level;
use hipscope_isa::decode::Inst;
use std::cell::RefCell;
use std::ops::Range;

/// Which memory a lane access went to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    /// Device memory (global, flat-to-global, buffer and scalar accesses, kernel arguments).
    Global,
    /// The work-group's LDS; the address is the byte offset in it.
    Lds,
    /// A lane's private memory; the address is in the dispatch's scratch backing store.
    Scratch,
    /// The dispatch's kernarg segment (its arguments), which the kernel only reads (HSA
    /// Programmer's Reference Manual: the kernarg segment is read-only to the kernel).
    Kernarg,
}

/// Where in device memory a dispatch's private spaces lie, so an address can be told apart
/// from ordinary global memory.
#[derive(Debug, Clone, Default)]
pub struct Regions {
    /// The scratch backing store.
    pub scratch: Range<u64>,
    /// The kernarg segment.
    pub kernarg: Range<u64>,
}

impl Regions {
    /// The space a non-LDS address belongs to.
    pub fn space_of(&self, address: u64) -> Space {
        if self.scratch.contains(&address) {
            Space::Scratch
        } else if self.kernarg.contains(&address) {
            Space::Kernarg
        } else {
            Space::Global
        }
    }
}

/// One lane's access, made by the instruction last reported to [`Observer::executed`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access<'a> {
    pub lane: u32,
    pub space: Space,
    pub dir: Dir,
    pub address: u64,
    pub bytes: u32,
    /// The bytes read (as the memory system returned them: in timing mode, whatever the
    /// cache that served the lane held) or written; empty where the engine moves data
    /// without handing it out (LDS accesses, functional mode's bulk moves).
    pub data: &'a [u8],
}

/// An instruction about to execute.
#[derive(Debug, Clone, Copy)]
pub struct Executed<'a> {
    pub wave: WaveId,
    /// The wave's number within the dispatch (dispatch order).
    pub wave_index: u32,
    pub pc: u64,
    /// The EXEC mask before the instruction (wave32: the low 32 bits).
    pub exec: u64,
    pub inst: &'a Inst,
    pub sem: &'a Sem,
    /// Timing mode: the cycle it issues; functional mode: `None`.
    pub cycle: Option<u64>,
}

/// The GPU a timing run shows, to name its parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub compute_units: u32,
    pub shader_engines: u32,
    pub xcds: u32,
    /// RDNA calls the per-CU vector cache GL0 (L0).
    pub rdna: bool,
}

impl Layout {
    /// The XCD CU `cu` belongs to.
    pub fn xcd_of(&self, cu: usize) -> usize {
        let cus = self.compute_units.max(1) as usize;
        crate::memsys::xcd_of_cu(cu, cus, (self.xcds.max(1) as usize).min(cus))
    }
}

/// Timing mode: the clock and the GPU a dispatch runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimingInfo {
    pub clock_mhz: u32,
    pub layout: Layout,
}

/// Timing mode: where a wave starts, right after [`Observer::wave_started`].
#[derive(Debug, Clone, Copy)]
pub struct WavePlaced {
    pub wave: WaveId,
    pub wave_index: u32,
    pub cu: usize,
    pub simd: usize,
    /// The cycle it starts.
    pub at: u64,
}

/// Timing mode: a wave's life, right before [`Observer::wave_ended`].
#[derive(Debug, Clone, Copy)]
pub struct WaveSpan {
    pub wave: WaveId,
    pub wave_index: u32,
    pub start: u64,
    pub end: u64,
    pub instructions: u64,
}

/// Timing mode: the dispatch's span, right before [`Observer::dispatch_ended`].
#[derive(Debug, Clone, Copy)]
pub struct DispatchSpan {
    pub start: u64,
    pub end: u64,
    pub groups: u64,
    pub waves: u64,
}

/// Why a wave did not issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StallCause {
    /// `s_waitcnt` (or a split counter wait) until its counters drop.
    Waitcnt,
    /// A vector memory instruction while its counter is at its maximum.
    CounterFull,
    Sleep,
    /// At `s_barrier` until the work-group's last wave arrives.
    Barrier,
}

impl StallCause {
    pub fn name(self) -> &'static str {
        match self {
            StallCause::Waitcnt => "s_waitcnt",
            StallCause::CounterFull => "counter full",
            StallCause::Sleep => "s_sleep",
            StallCause::Barrier => "s_barrier",
        }
    }
}

/// Timing mode: a wave stalled from `from` to `to` at `pc`.
#[derive(Clone, Copy)]
pub struct Stall<'a> {
    pub wave_index: u32,
    pub cause: StallCause,
    pub pc: u64,
    pub from: u64,
    pub to: u64,
    /// On what (the outstanding operations, the waves arrived), written out only if asked.
    pub detail: &'a dyn std::fmt::Display,
}

/// Text written only when it is displayed (a stall's detail, which most observers ignore).
pub struct Lazy<F: Fn() -> String>(pub F);

impl<F: Fn() -> String> std::fmt::Display for Lazy<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&(self.0)())
    }
}

/// Which memory unit an instruction used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemUnit {
    Vector,
    Scalar,
}

/// Timing mode: a memory instruction as the memory system served it.
#[derive(Debug, Clone, Copy)]
pub struct MemoryDone<'a> {
    pub cu: usize,
    pub unit: MemUnit,
    /// The instruction's mnemonic.
    pub name: &'a str,
    pub wave: WaveId,
    pub wave_index: u32,
    pub pc: u64,
    pub issue: u64,
    /// When its data returned (a load) or its write was acknowledged (a store).
    pub done: u64,
    /// The farthest level that served one of its lines (`None`: it touched no line).
    pub level: Option<Level>,
    /// Lines served at each level.
    pub lines: [u32; Level::COUNT],
}

/// A cache maintenance operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CacheOp {
    /// The CU's vector L1 (RDNA: GL0) dropped its lines.
    InvalidateL1,
    /// The shader array's GL1 (RDNA) dropped its lines.
    InvalidateGl1,
    /// The L2 dropped lines another agent may have written (MTYPE NC on multi-L2 parts).
    InvalidateL2,
    /// The L2 wrote its dirty lines back to memory.
    WritebackL2,
    /// The CU's scalar cache dropped its lines.
    InvalidateScalar,
}

/// Timing mode: a cache action an instruction caused.
#[derive(Debug, Clone, Copy)]
pub struct CacheAction {
    pub wave_index: u32,
    pub pc: u64,
    pub cu: usize,
    pub op: CacheOp,
    /// Lines dropped (invalidates) or written (write-back).
    pub lines: u64,
    pub issue: u64,
    pub done: u64,
}

/// What a dispatch runs, for [`Observer::dispatch_started`].
#[derive(Debug, Clone)]
pub struct DispatchInfo<'a> {
    /// The kernel: its name, target, descriptor and decoded code (what an observer needs to
    /// read the code, e.g. to tag its atomics).
    pub kernel: &'a crate::kernel::LoadedKernel,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Bytes of LDS each work-group has (static and dynamic).
    pub lds_bytes: u32,
    /// Its scratch and kernarg segments.
    pub regions: Regions,
    /// Timing mode: the clock and the GPU.
    pub timing: Option<TimingInfo>,
}

/// Told what a run does. Every method has an empty default, so an observer implements only
/// what it watches.
pub trait Observer {
    /// Whether it wants lane accesses ([`Observer::access`], [`Observer::accesses`]); without,
    /// the engines keep their own memory paths (functional mode's bulk copies) untouched.
    fn lane_accesses(&self) -> bool {
        true
    }
    fn dispatch_started(&mut self, _d: &DispatchInfo) {}
    fn wave_started(&mut self, _wave: WaveId, _wave_index: u32) {}
    fn executed(&mut self, _e: &Executed) {}
    fn access(&mut self, _a: &Access) {}
    /// Several lanes of one instruction, each accessing `bytes` bytes at `addresses[lane]`
    /// in `space` (a bulk move); by default one [`Observer::access`] per lane, in lane order.
    fn accesses(&mut self, lanes: u64, addresses: &[u64; crate::wave::MAX_LANES], bytes: u32, space: Space, dir: Dir) {
        let mut m = lanes;
        while m != 0 {
            let lane = m.trailing_zeros();
            m &= m - 1;
            self.access(&Access { lane, space, dir, address: addresses[lane as usize], bytes, data: &[] });
        }
    }
    /// A work-group's barrier released these waves (by `wave_index`), which all arrived at it.
    fn barrier_released(&mut self, _waves: &[u32]) {}
    fn wave_ended(&mut self, _wave: WaveId, _wave_index: u32) {}
    fn dispatch_ended(&mut self) {}

    // The timing model's side (timing mode only).
    fn wave_placed(&mut self, _p: &WavePlaced) {}
    fn stalled(&mut self, _s: &Stall) {}
    fn memory_done(&mut self, _m: &MemoryDone) {}
    fn cache_action(&mut self, _a: &CacheAction) {}
    fn wave_span(&mut self, _s: &WaveSpan) {}
    fn dispatch_span(&mut self, _s: &DispatchSpan) {}
}

/// Several observers watching one launch: every event goes to each part, in the order the
/// parts were given, so each sees the run it would see alone (a race detector and a
/// memory-system story on one replay). Lane accesses go only to the parts that want them
/// ([`Observer::lane_accesses`]), and a bulk move stays one [`Observer::accesses`] call per
/// part, so a part's own fast path (or the per-lane default) runs as it would alone.
///
/// Build it with [`Fan::observer`]: no part gives no observer at all (the engines' path
/// without observers), one part is handed on as itself.
pub struct Fan<'p, 'o> {
    parts: &'p mut [&'o mut dyn Observer],
    /// Which parts want lane accesses, asked once (the engines ask the fan once, at the
    /// dispatch's start).
    lanes: Vec<bool>,
}

impl<'p, 'o> Fan<'p, 'o> {
    pub fn new(parts: &'p mut [&'o mut dyn Observer]) -> Self {
        let lanes = parts.iter().map(|p| p.lane_accesses()).collect();
        Fan { parts, lanes }
    }

    /// The launch's observer: `None` without parts, the part itself when there is one, else
    /// the fan.
    pub fn observer(&mut self) -> Option<&mut dyn Observer> {
        match self.parts.len() {
            0 => None,
            1 => Some(&mut *self.parts[0]),
            _ => Some(self),
        }
    }

    /// Tell every part.
    fn each(&mut self, mut f: impl FnMut(&mut dyn Observer)) {
        for p in self.parts.iter_mut() {
            f(&mut **p);
        }
    }

    /// Tell the parts that want lane accesses.
    fn lane_parts(&mut self, mut f: impl FnMut(&mut dyn Observer)) {
        for (p, wants) in self.parts.iter_mut().zip(&self.lanes) {
            if *wants {
                f(&mut **p);
            }
        }
    }
}

impl Observer for Fan<'_, '_> {
    fn lane_accesses(&self) -> bool {
        self.lanes.iter().any(|w| *w)
    }
    fn dispatch_started(&mut self, d: &DispatchInfo) {
        self.each(|p| p.dispatch_started(d));
    }
    fn wave_started(&mut self, wave: WaveId, wave_index: u32) {
        self.each(|p| p.wave_started(wave, wave_index));
    }
    fn executed(&mut self, e: &Executed) {
        self.each(|p| p.executed(e));
    }
    fn access(&mut self, a: &Access) {
        self.lane_parts(|p| p.access(a));
    }
    fn accesses(&mut self, lanes: u64, addresses: &[u64; crate::wave::MAX_LANES], bytes: u32, space: Space, dir: Dir) {
        self.lane_parts(|p| p.accesses(lanes, addresses, bytes, space, dir));
    }
    fn barrier_released(&mut self, waves: &[u32]) {
        self.each(|p| p.barrier_released(waves));
    }
    fn wave_ended(&mut self, wave: WaveId, wave_index: u32) {
        self.each(|p| p.wave_ended(wave, wave_index));
    }
    fn dispatch_ended(&mut self) {
        self.each(|p| p.dispatch_ended());
    }
    fn wave_placed(&mut self, w: &WavePlaced) {
        self.each(|p| p.wave_placed(w));
    }
    fn stalled(&mut self, s: &Stall) {
        self.each(|p| p.stalled(s));
    }
    fn memory_done(&mut self, m: &MemoryDone) {
        self.each(|p| p.memory_done(m));
    }
    fn cache_action(&mut self, a: &CacheAction) {
        self.each(|p| p.cache_action(a));
    }
    fn wave_span(&mut self, s: &WaveSpan) {
        self.each(|p| p.wave_span(s));
    }
    fn dispatch_span(&mut self, s: &DispatchSpan) {
        self.each(|p| p.dispatch_span(s));
    }
}

/// An observer as the engines hold it: shared by the port (whose methods take `&self`) and
/// the scheduler.
pub(crate) type Shared<'o> = RefCell<&'o mut dyn Observer>;

/// A memory port that reports every successful lane access to an observer, in front of
/// another port (timing mode) or of memory itself (functional mode).
pub(crate) struct Watched<'a, 'o> {
    pub inner: Option<&'a dyn MemPort>,
    pub obs: &'a Shared<'o>,
    /// The dispatch's scratch and kernarg segments, reported as their own spaces.
    pub regions: &'a Regions,
}

impl Watched<'_, '_> {
    fn report(&self, lane: u32, address: u64, bytes: u32, data: &[u8], dir: Dir) {
        let space = self.regions.space_of(address);
        self.obs.borrow_mut().access(&Access { lane, space, dir, address, bytes, data });
    }
}

impl MemPort for Watched<'_, '_> {
    fn read(&self, mem: &Memory, lane: u32, address: u64, out: &mut [u8]) -> Result<(), Unmapped> {
        match self.inner {
            Some(p) => p.read(mem, lane, address, out),
            None => mem.read(address, out),
        }?;
        self.report(lane, address, out.len() as u32, out, Dir::Read);
        Ok(())
    }

    fn write(&self, mem: &mut Memory, lane: u32, address: u64, bytes: &[u8]) -> Result<(), Unmapped> {
        match self.inner {
            Some(p) => p.write(mem, lane, address, bytes),
            None => mem.write(address, bytes),
        }?;
        self.report(lane, address, bytes.len() as u32, bytes, Dir::Write);
        Ok(())
    }

    fn lds_access(&self, lane: u32, offset: u32, bytes: u32, dir: Dir) {
        if let Some(p) = self.inner {
            p.lds_access(lane, offset, bytes, dir);
        }
        self.obs.borrow_mut().access(&Access { lane, space: Space::Lds, dir, address: u64::from(offset), bytes, data: &[] });
    }

    fn watches_only(&self) -> bool {
        self.inner.is_none()
    }

    /// The lanes of a bulk move, reported in lane order as the per-lane path reports them (in
    /// one event when all are in ordinary global memory).
    fn moved(&self, lanes: u64, addrs: &[u64; crate::wave::MAX_LANES], bytes: u32, dir: Dir) {
        let mut m = lanes;
        let mut private = false;
        while m != 0 {
            let lane = m.trailing_zeros();
            m &= m - 1;
            private |= self.regions.space_of(addrs[lane as usize]) != Space::Global;
        }
        if !private {
            self.obs.borrow_mut().accesses(lanes, addrs, bytes, Space::Global, dir);
            return;
        }
        let mut m = lanes;
        while m != 0 {
            let lane = m.trailing_zeros();
            m &= m - 1;
            self.report(lane, addrs[lane as usize], bytes, &[], dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    /// Writes each event it is told into a log shared by all parts, with its name.
    struct Log {
        name: &'static str,
        lanes: bool,
        /// Keeps bulk moves whole (else the trait's per-lane default splits them).
        bulk: bool,
        log: Rc<RefCell<Vec<String>>>,
    }

    impl Log {
        fn put(&self, what: String) {
            self.log.borrow_mut().push(format!("{}: {what}", self.name));
        }
    }

    impl Observer for Log {
        fn lane_accesses(&self) -> bool {
            self.lanes
        }
        fn wave_started(&mut self, _wave: WaveId, wave_index: u32) {
            self.put(format!("wave {wave_index} started"));
        }
        fn access(&mut self, a: &Access) {
            self.put(format!("lane {} at {:#x}", a.lane, a.address));
        }
        fn accesses(&mut self, lanes: u64, addresses: &[u64; crate::wave::MAX_LANES], bytes: u32, space: Space, dir: Dir) {
            if !self.bulk {
                let mut m = lanes;
                while m != 0 {
                    let lane = m.trailing_zeros();
                    m &= m - 1;
                    self.access(&Access { lane, space, dir, address: addresses[lane as usize], bytes, data: &[] });
                }
                return;
            }
            self.put(format!("lanes {lanes:#b}"));
        }
        fn barrier_released(&mut self, waves: &[u32]) {
            self.put(format!("barrier {waves:?}"));
        }
        fn stalled(&mut self, s: &Stall) {
            self.put(format!("stalled on {}", s.detail));
        }
        fn cache_action(&mut self, a: &CacheAction) {
            self.put(format!("{:?}", a.op));
        }
        fn dispatch_ended(&mut self) {
            self.put("ended".into());
        }
    }

    fn wave() -> WaveId {
        WaveId { workgroup: [0; 3], wave: 0 }
    }

    #[test]
    fn a_fan_tells_each_part_in_order_and_lane_accesses_only_to_who_wants_them() {
        let log = Rc::new(RefCell::new(Vec::new()));
        let mut a = Log { name: "a", lanes: true, bulk: true, log: log.clone() };
        let mut b = Log { name: "b", lanes: false, bulk: true, log: log.clone() };
        let mut c = Log { name: "c", lanes: true, bulk: false, log: log.clone() };
        let mut parts: [&mut dyn Observer; 3] = [&mut a, &mut b, &mut c];
        let mut fan = Fan::new(&mut parts);
        let o = fan.observer().expect("three parts");
        assert!(o.lane_accesses(), "two parts want lane accesses");
        o.wave_started(wave(), 7);
        o.access(&Access { lane: 3, space: Space::Global, dir: Dir::Read, address: 0x40, bytes: 4, data: &[] });
        let mut addresses = [0u64; crate::wave::MAX_LANES];
        (addresses[0], addresses[2]) = (0x100, 0x108);
        o.accesses(0b101, &addresses, 4, Space::Global, Dir::Write);
        o.barrier_released(&[1, 2]);
        o.stalled(&Stall { wave_index: 7, cause: StallCause::Waitcnt, pc: 0, from: 1, to: 2, detail: &Lazy(|| "vmcnt".to_string()) });
        o.cache_action(&CacheAction { wave_index: 7, pc: 0, cu: 0, op: CacheOp::InvalidateL1, lines: 1, issue: 1, done: 2 });
        o.dispatch_ended();
        let expected = [
            "a: wave 7 started",
            "b: wave 7 started",
            "c: wave 7 started",
            "a: lane 3 at 0x40",
            "c: lane 3 at 0x40",
            "a: lanes 0b101",
            "c: lane 0 at 0x100",
            "c: lane 2 at 0x108",
            "a: barrier [1, 2]",
            "b: barrier [1, 2]",
            "c: barrier [1, 2]",
            "a: stalled on vmcnt",
            "b: stalled on vmcnt",
            "c: stalled on vmcnt",
            "a: InvalidateL1",
            "b: InvalidateL1",
            "c: InvalidateL1",
            "a: ended",
            "b: ended",
            "c: ended",
        ];
        assert_eq!(*log.borrow(), expected);
    }

    #[test]
    fn no_part_is_no_observer_and_one_part_is_told_alone() {
        let mut none: [&mut dyn Observer; 0] = [];
        assert!(Fan::new(&mut none).observer().is_none());
        let log = Rc::new(RefCell::new(Vec::new()));
        let mut b = Log { name: "b", lanes: false, bulk: true, log: log.clone() };
        let mut one: [&mut dyn Observer; 1] = [&mut b];
        let mut fan = Fan::new(&mut one);
        let o = fan.observer().expect("one part");
        assert!(!o.lane_accesses(), "the part does not want lane accesses");
        o.barrier_released(&[0]);
        assert_eq!(*log.borrow(), ["b: barrier [0]"]);
        let mut both: [&mut dyn Observer; 2] =
            [&mut Log { name: "x", lanes: false, bulk: true, log: log.clone() }, &mut Log { name: "y", lanes: false, bulk: true, log }];
        assert!(!Fan::new(&mut both).lane_accesses(), "no part wants lane accesses, so the engines keep their own memory paths");
    }
}
