//! Dynamic scoped race detection: vector clocks with scopes over the execution the engine
//! runs, as an [`Observer`].
//!
//! Threads are lanes; clocks are kept per wave (lanes of a wave share their wave's clock and
//! are told apart by lane masks). Happens-before comes from
//! * program order within a lane;
//! * barriers: a released barrier joins the clocks of the waves it released and orders every
//!   lane of each before everything after it;
//! * release → acquire through a location, and through fences (a release fence before a
//!   relaxed atomic store, an acquire fence after a relaxed atomic load), when each side's
//!   scope includes the other thread (HRF-indirect: transitivity through the joined clocks);
//!   relaxed RMWs continue the release sequence they read from;
//! * kernel boundaries: dispatches in one stream are ordered, so state starts afresh.
//!
//! Two accesses to one 4-byte granule, at least one a write, race when neither happens
//! before the other, unless both are atomics whose scopes include each other's thread. Which
//! accesses are atomic, and at what order and scope, is read from the code
//! ([`crate::recover`], folded by [`interp`]). Each racing pair of instructions is reported
//! once, with both sides and the rule broken.
//!
//! Limits, stated so reports can be read right: a load is taken to read the latest write in
//! the simulated order; seq_cst is treated as acq_rel (no total order is checked); lanes of
//! one wave synchronise with each other only through barriers.

pub mod clock;
pub mod interp;

use crate::litmus::program::Scope;
use clock::Clock;
use hipscope_sim::exec::Sem;
use hipscope_sim::observe::{Access as LaneAccess, Dir, DispatchInfo, Executed, Observer, Space};
use hipscope_sim::WaveId;
use interp::{Atomic, Interp, KernelTags};
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasherDefault;
use std::rc::Rc;

/// Which rule a racing pair breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum Rule {
    /// At least one side is not atomic and nothing orders them.
    DataRace,
    /// Both are atomics, but a scope does not include the other thread (a heterogeneous race).
    ScopeRace,
    /// Two lanes of one wave, no barrier between (lanes are threads to the memory model even
    /// though a wave runs them in lockstep).
    LaneRace,
}

impl Rule {
    pub fn describe(self) -> &'static str {
        match self {
            Rule::DataRace => "data race: a non-atomic access and a conflicting access with no happens-before between them",
            Rule::ScopeRace => "heterogeneous race: both are atomic, but the scope of one does not include the other's thread",
            Rule::LaneRace => "data race between lanes of one wave: no barrier or synchronisation orders them (the wave's lockstep execution is not an order the memory model gives)",
        }
    }
}

/// One side of a race.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Side {
    #[serde(with = "wave_id")]
    pub wave: WaveId,
    pub lane: u32,
    pub pc: u64,
    pub write: bool,
    /// `None`: plain; else the atomic's scope.
    pub atomic: Option<String>,
    /// Operations of another scope (or plain and atomic) compile to the same code here.
    pub shared_code: bool,
}

/// A wave's id as `{"workgroup": [x, y, z], "wave": n}` (reports are read back by `grade --exec`).
mod wave_id {
    use hipscope_sim::WaveId;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    struct Plain {
        workgroup: [u32; 3],
        wave: u32,
    }

    pub fn serialize<S: Serializer>(w: &WaveId, s: S) -> Result<S::Ok, S::Error> {
        Plain { workgroup: w.workgroup, wave: w.wave }.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<WaveId, D::Error> {
        let p = Plain::deserialize(d)?;
        Ok(WaveId { workgroup: p.workgroup, wave: p.wave })
    }
}

/// A racing pair of instructions (reported once however often it races).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Race {
    pub kernel: String,
    pub rule: Rule,
    pub lds: bool,
    /// The first address it was seen on.
    pub address: u64,
    /// The earlier access (in the simulated order) and the later one.
    pub first: Side,
    pub second: Side,
    /// Why a synchronisation between the two waves did not count, if one was attempted.
    pub note: Option<String>,
    /// Granules this pair raced on.
    pub count: u64,
}

/// A recorded access, kept small (24 bytes): the shadow holds one or two per granule.
#[derive(Clone, Copy, Debug)]
struct Rec {
    lanes: u64,
    wave: u32,
    clock: u32,
    /// The instruction, as an offset from the kernel's code ([`State::code_base`]).
    at: u32,
    write: bool,
    atomic: Option<Scope>,
    /// A plain access whose code is also a work-group-scope atomic's ([`Interp::Access`]).
    maybe: Option<Scope>,
    /// [`NARROW`] | [`SHARED`].
    flags: u8,
}

/// An atomic whose code is also a work-group-scope atomic's.
const NARROW: u8 = 1;
/// Operations of another scope compile to the same code.
const SHARED: u8 = 2;

impl Rec {
    fn narrow(&self) -> bool {
        self.flags & NARROW != 0
    }
}

/// A release a later acquire may synchronise with.
#[derive(Clone, Debug)]
struct SyncRec {
    vc: Rc<Clock>,
    scope: Scope,
    wave: u32,
    pc: u64,
    /// The releasing code is also a work-group-scope release's.
    narrow: bool,
}

/// Where the code cannot decide: a pair that is race-free only if an atomic written with a
/// scope the code does not show is wider than work-group scope.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Ambiguity {
    pub kernel: String,
    pub first_pc: u64,
    pub second_pc: u64,
    pub what: String,
}

/// One 4-byte granule's shadow state. Plain data, so pages are filled and freed without
/// visiting each granule: what does not fit (more reads, a release) lives in [`Shadow`]'s side
/// tables, found by index (0: none).
#[derive(Clone, Copy, Default)]
struct Granule {
    write: Option<Rec>,
    /// The one read since `write`, while there is only one and `more` is 0.
    read: Option<Rec>,
    /// Index in [`Shadow::more`] of the reads since `write`, sorted by wave ([`add_read`]).
    more: u32,
    /// Index in [`Shadow::syncs`] of the release the last atomic write carries.
    sync: u32,
}

/// Shadow memory: granules in pages of [`PAGE_GRANULES`], found through a one-page cache
/// (accesses of one instruction are mostly within one page).
#[derive(Default)]
struct Shadow {
    index: HashMap<u64, u32, BuildHasherDefault<Mix>>,
    pages: Vec<Vec<Granule>>,
    last: Option<(u64, u32)>,
    /// Granules' read lists (entry 0 unused).
    more: Vec<Vec<Rec>>,
    /// Granules' releases (entry 0 unused).
    syncs: Vec<Option<SyncRec>>,
}

const PAGE_GRANULES: u64 = 1024;

impl Shadow {
    /// (page, slot) of the granule `key`, its page made on first use.
    fn locate(&mut self, key: u64) -> (usize, usize) {
        let (page, slot) = (key / PAGE_GRANULES, (key % PAGE_GRANULES) as usize);
        let i = match self.last {
            Some((p, i)) if p == page => i,
            _ => {
                let next = self.pages.len() as u32;
                let i = *self.index.entry(page).or_insert(next);
                if i == next {
                    self.pages.push(vec![Granule::default(); PAGE_GRANULES as usize]);
                }
                self.last = Some((page, i));
                i
            }
        };
        (i as usize, slot)
    }

    /// The reads of `g` since its write.
    fn reads<'s>(&'s self, g: &'s Granule) -> &'s [Rec] {
        if g.more != 0 {
            &self.more[g.more as usize]
        } else {
            g.read.as_slice()
        }
    }

    fn add_read(&mut self, at: (usize, usize), now: Rec) {
        let g = &mut self.pages[at.0][at.1];
        if g.more != 0 {
            let v = &mut self.more[g.more as usize];
            if v.is_empty() {
                v.push(now);
            } else {
                add_read(v, now);
            }
            return;
        }
        let Some(first) = g.read.take() else {
            g.read = Some(now);
            return;
        };
        let mut v = vec![first];
        add_read(&mut v, now);
        if self.more.is_empty() {
            self.more.push(Vec::new());
        }
        g.more = self.more.len() as u32;
        self.more.push(v);
    }

    fn clear_reads(&mut self, at: (usize, usize)) {
        let g = &mut self.pages[at.0][at.1];
        g.read = None;
        if g.more != 0 {
            self.more[g.more as usize].clear();
        }
    }

    fn take_sync(&mut self, at: (usize, usize)) -> Option<SyncRec> {
        match self.pages[at.0][at.1].sync {
            0 => None,
            i => self.syncs[i as usize].take(),
        }
    }

    fn put_sync(&mut self, at: (usize, usize), rec: Option<SyncRec>) {
        let g = &mut self.pages[at.0][at.1];
        if g.sync != 0 {
            self.syncs[g.sync as usize] = rec;
        } else if rec.is_some() {
            if self.syncs.is_empty() {
                self.syncs.push(None);
            }
            g.sync = self.syncs.len() as u32;
            self.syncs.push(rec);
        }
    }
}

struct WaveState {
    id: WaveId,
    /// Its own clock.
    own: u32,
    /// The clocks of other waves it has synchronised with (by wave index; missing: 0). Its
    /// own entry is not kept here but in `own`, so a new wave costs nothing however many
    /// waves the dispatch has.
    vc: Clock,
    /// Own clock at the last barrier: accesses of other lanes of this wave stamped earlier are
    /// ordered before everything now.
    lane_sync: u32,
    fence_release: Option<SyncRec>,
    /// Releases read by relaxed atomic loads, waiting for an acquire fence.
    pending: Vec<SyncRec>,
    /// Synchronisations that did not count because of scope: (releasing wave, why).
    failed: Vec<(u32, String)>,
}

/// The instruction being executed.
struct Current {
    wave: u32,
    pc: u64,
    interp: Option<Interp>,
    scalar: bool,
    exec: u64,
    /// This instruction's release snapshot (taken at its first write).
    snapshot: Option<Rc<Clock>>,
    released: bool,
}

/// The race detector. Attach it to launches ([`hipscope_sim::launch::Hooks::observer`]);
/// read [`Detector::races`] after.
#[derive(Default)]
pub struct Detector {
    st: State,
    shadow: Shadow,
}

/// Everything but the shadow memory (kept apart so a granule can be updated in place while
/// the clocks are read).
#[derive(Default)]
struct State {
    tags: HashMap<(String, u64), Rc<KernelTags>>,
    kernel: Option<Rc<KernelTags>>,
    waves: Vec<Option<WaveState>>,
    /// The dispatch's grid in work-groups (to number LDS granules by work-group).
    groups: [u32; 3],
    cur: Option<Current>,
    races: Vec<Race>,
    index: HashMap<(String, u64, u64, Rule), usize>,
    ambiguities: Vec<Ambiguity>,
    /// The address of the dispatched kernel's first instruction (records keep offsets).
    code_base: u64,
}

impl WaveState {
    /// Its clock as a release carries it: what it knows of others, and its own clock.
    fn snapshot(&self, me: u32) -> Clock {
        self.vc.with(me, self.own)
    }
}

fn includes(scope: Scope, a: &WaveState, a_index: u32, b: &WaveState, b_index: u32) -> bool {
    match scope {
        Scope::WorkItem | Scope::Wavefront => a_index == b_index,
        Scope::Workgroup => a.id.workgroup == b.id.workgroup,
        Scope::Agent | Scope::System => true,
    }
}

impl Detector {
    pub fn new() -> Detector {
        Detector::default()
    }

    /// Every racing pair seen so far, in the order first seen.
    pub fn races(&self) -> &[Race] {
        &self.st.races
    }

    /// Pairs the code cannot decide ([`Ambiguity`]), in the order first seen.
    pub fn ambiguities(&self) -> &[Ambiguity] {
        &self.st.ambiguities
    }

    /// The tags of the kernels run so far (name, recovery), for reports.
    pub fn kernel_tags(&self) -> impl Iterator<Item = &KernelTags> {
        self.st.tags.values().map(|t| t.as_ref())
    }

    /// The record of an access by the current instruction (lanes filled in per lane).
    fn current_rec(&self, dir: Dir) -> Option<Rec> {
        let c = self.st.cur.as_ref()?;
        let (atomic, maybe, shared) = match c.interp {
            Some(Interp::Access { atomic, maybe, shared, .. }) => (atomic, maybe, shared),
            _ => (None, None, false),
        };
        let lanes = if c.scalar { c.exec | 1 } else { 0 };
        let flags = if atomic.is_some_and(|x| x.narrow) { NARROW } else { 0 } | if shared { SHARED } else { 0 };
        let at = c.pc.saturating_sub(self.st.code_base).min(u64::from(u32::MAX)) as u32;
        let clock = self.st.clock_of(c.wave);
        Some(Rec { lanes, wave: c.wave, clock, at, write: dir == Dir::Write, atomic: atomic.map(|x| x.scope), maybe: maybe.map(|x| x.scope), flags })
    }

    /// One lane's access, granule by granule.
    fn lane_access(&mut self, mut now: Rec, a: &LaneAccess) {
        if now.lanes == 0 {
            now.lanes = 1u64 << a.lane.min(63);
        }
        let lds = a.space == Space::Lds;
        let group = if lds { self.st.wave(now.wave).map(|w| w.id.workgroup) } else { None };
        let first = a.address >> 2;
        let last = (a.address + u64::from(a.bytes.max(1)) - 1) >> 2;
        for granule in first..=last {
            let key = granule_key(granule, group, self.st.groups);
            self.granule_access(key, now, a.lane, lds, a.address);
        }
    }

    /// One lane's access to one granule.
    fn granule_access(&mut self, key: u64, now: Rec, lane: u32, lds: bool, address: u64) {
        let at = self.shadow.locate(key);
        let g = &self.shadow.pages[at.0][at.1];
        let reads: &[Rec] = if now.write { self.shadow.reads(g) } else { &[] };
        for p in g.write.iter().chain(reads) {
            if self.st.ordered(p, now.wave, lane) {
                continue;
            }
            if self.st.both_atomic_in_scope(p, &now) {
                if (p.narrow() || now.narrow()) && !self.st.same_group(p.wave, now.wave) {
                    let what = "possible heterogeneous race: these atomics, in different work-groups, compile alike at work-group and agent scope on this target; if the source asks for work-group scope, they race";
                    self.st.ambiguous(self.st.pc(p), self.st.pc(&now), what);
                }
                continue;
            }
            self.st.report(p, &now, lane, lds, address);
        }
        if now.write {
            self.shadow.pages[at.0][at.1].write = Some(now);
            self.shadow.clear_reads(at);
        } else {
            self.shadow.add_read(at, now);
        }
        if self.st.synchronises() {
            let mut sync = self.shadow.take_sync(at);
            self.st.synchronise(&mut sync, &now);
            self.shadow.put_sync(at, sync);
        } else if now.write {
            // A plain write ends any release sequence.
            self.shadow.put_sync(at, None);
        }
    }
}

impl State {
    fn wave(&self, i: u32) -> Option<&WaveState> {
        self.waves.get(i as usize).and_then(|w| w.as_ref())
    }

    fn clock_of(&self, i: u32) -> u32 {
        self.wave(i).map_or(0, |w| w.own)
    }

    /// Whether `p` happens before the current access by `wave`, lane `lane`.
    fn ordered(&self, p: &Rec, wave: u32, lane: u32) -> bool {
        let Some(w) = self.wave(wave) else { return true };
        if p.wave == wave {
            let others = p.lanes & !(1u64 << lane);
            return others == 0 || p.clock < w.lane_sync;
        }
        w.vc.get(p.wave) >= p.clock
    }

    /// The address of a record's instruction.
    fn pc(&self, r: &Rec) -> u64 {
        self.code_base + u64::from(r.at)
    }

    fn same_group(&self, a: u32, b: u32) -> bool {
        match (self.wave(a), self.wave(b)) {
            (Some(x), Some(y)) => x.id.workgroup == y.id.workgroup,
            _ => true,
        }
    }

    fn ambiguous(&mut self, first_pc: u64, second_pc: u64, what: &str) {
        let kernel = self.kernel.as_ref().map_or_else(String::new, |k| k.name.clone());
        if !self.ambiguities.iter().any(|a| a.kernel == kernel && a.first_pc == first_pc && a.second_pc == second_pc) {
            self.ambiguities.push(Ambiguity { kernel, first_pc, second_pc, what: what.to_string() });
        }
    }

    /// Whether both accesses are atomics whose scopes include each other's threads. A plain
    /// access whose code is also a work-group-scope atomic's counts as that atomic against an
    /// atomic (two such plain accesses are two plain accesses).
    fn both_atomic_in_scope(&self, p: &Rec, now: &Rec) -> bool {
        let ps = p.atomic.or(if now.atomic.is_some() { p.maybe } else { None });
        let ns = now.atomic.or(if p.atomic.is_some() { now.maybe } else { None });
        let (Some(ps), Some(ns), Some(a), Some(b)) = (ps, ns, self.wave(p.wave), self.wave(now.wave)) else { return false };
        includes(ps, a, p.wave, b, now.wave) && includes(ns, b, now.wave, a, p.wave)
    }

    fn side(&self, r: &Rec, lane: u32) -> Side {
        let wave = self.wave(r.wave).map_or_else(WaveId::default, |w| w.id);
        Side { wave, lane, pc: self.pc(r), write: r.write, atomic: r.atomic.map(|s| format!("{s:?}").to_lowercase()), shared_code: r.flags & SHARED != 0 }
    }

    fn report(&mut self, p: &Rec, now: &Rec, lane: u32, lds: bool, address: u64) {
        let rule = if p.wave == now.wave {
            Rule::LaneRace
        } else if p.atomic.is_some() && now.atomic.is_some() {
            Rule::ScopeRace
        } else {
            Rule::DataRace
        };
        let kernel = self.kernel.as_ref().map_or_else(String::new, |k| k.name.clone());
        let key = (kernel.clone(), self.pc(p), self.pc(now), rule);
        if let Some(&i) = self.index.get(&key) {
            self.races[i].count += 1;
            return;
        }
        let p_lane = if p.wave == now.wave { (p.lanes & !(1u64 << lane)).trailing_zeros() } else { p.lanes.trailing_zeros() };
        let note = self.wave(now.wave).and_then(|w| w.failed.iter().find(|(from, _)| *from == p.wave)).map(|(_, why)| why.clone());
        let race = Race { kernel, rule, lds, address, first: self.side(p, p_lane.min(63)), second: self.side(now, lane), note, count: 1 };
        self.index.insert(key, self.races.len());
        self.races.push(race);
    }

    /// Whether the current instruction is an atomic (or possibly one) whose accesses may
    /// release or acquire.
    fn synchronises(&self) -> bool {
        matches!(self.cur.as_ref().and_then(|c| c.interp), Some(Interp::Access { atomic: Some(_), .. } | Interp::Access { maybe: Some(_), .. }))
    }

    /// Release and acquire effects of an atomic access on a granule whose release is `sync`.
    fn synchronise(&mut self, sync: &mut Option<SyncRec>, now: &Rec) {
        let Some(Interp::Access { atomic, maybe, rmw, .. }) = self.cur.as_ref().and_then(|c| c.interp) else { return };
        let Some(a) = atomic.or(maybe) else { return };
        if !now.write {
            if let Some(rec) = sync.clone() {
                self.acquire_from(now.wave, rec, a);
            }
            return;
        }
        // A relaxed RMW continues the release sequence it read from; a release the code only
        // may hold (an unseen work-group fence) does not replace it.
        if rmw && a.release_implied && sync.is_some() {
            return;
        }
        let own = self.release_record(now.wave, a);
        *sync = match (own, rmw, sync.take()) {
            (Some(mut mine), true, Some(prev)) => {
                // A releasing RMW: its release, and the release sequence it continues.
                let mut vc = (*mine.vc).clone();
                vc.join(&prev.vc);
                mine.vc = Rc::new(vc);
                Some(mine)
            }
            (Some(mine), _, _) => Some(mine),
            // A relaxed RMW continues the release sequence it read from.
            (None, true, prev) => prev,
            (None, false, _) => None,
        };
    }

    /// The release an atomic write by `wave` carries: its own (release order), or the last
    /// release fence's.
    fn release_record(&mut self, wave: u32, a: Atomic) -> Option<SyncRec> {
        let pc = self.cur.as_ref().map_or(0, |c| c.pc);
        if let Some(scope) = a.release {
            let snap = match self.cur.as_mut().and_then(|c| c.snapshot.clone()) {
                Some(s) => s,
                None => {
                    let s = Rc::new(self.wave(wave).map(|w| w.snapshot(wave)).unwrap_or_default());
                    if let Some(c) = self.cur.as_mut() {
                        c.snapshot = Some(s.clone());
                        c.released = true;
                    }
                    s
                }
            };
            // A release fence of wider scope before it releases more.
            let fence = self.wave(wave).and_then(|w| w.fence_release.clone()).filter(|f| f.scope > scope);
            return Some(fence.unwrap_or(SyncRec { vc: snap, scope, wave, pc, narrow: a.narrow }));
        }
        self.wave(wave).and_then(|w| w.fence_release.clone())
    }

    /// An atomic read by `wave` saw `rec`'s release: synchronise now (acquire) or at the next
    /// acquire fence (relaxed), if the scopes include each other.
    fn acquire_from(&mut self, wave: u32, rec: SyncRec, a: Atomic) {
        if rec.wave == wave {
            return;
        }
        // An acquire that does not cover the release may still be completed by a later
        // acquire fence of wider scope: keep the release for it.
        let joined = a.acquire.is_some_and(|scope| self.covers(wave, &rec, scope));
        if joined && (rec.narrow || a.narrow) && !self.same_group(rec.wave, wave) {
            let pc = self.cur.as_ref().map_or(0, |c| c.pc);
            let what = "possible failed synchronisation: this release and acquire, in different work-groups, compile alike at work-group and agent scope on this target; if the source asks for work-group scope on either, they do not synchronise and the accesses they order race";
            self.ambiguous(rec.pc, pc, what);
        }
        if joined || a.acquire.is_some_and(|scope| scope >= a.scope) {
            if let Some(scope) = a.acquire {
                self.try_join(wave, rec.clone(), scope);
            }
        }
        if !joined {
            if let Some(w) = self.waves.get_mut(wave as usize).and_then(|w| w.as_mut()) {
                if w.pending.len() < 64 {
                    w.pending.push(rec);
                }
            }
        }
    }

    /// Whether an acquire at `scope` by `wave` and `rec`'s release include each other.
    fn covers(&self, wave: u32, rec: &SyncRec, scope: Scope) -> bool {
        let (Some(r), Some(w)) = (self.wave(rec.wave), self.wave(wave)) else { return false };
        includes(rec.scope, r, rec.wave, w, wave) && includes(scope, w, wave, r, rec.wave)
    }

    fn try_join(&mut self, wave: u32, rec: SyncRec, scope: Scope) {
        let (Some(r), Some(w)) = (self.wave(rec.wave), self.wave(wave)) else { return };
        let covered = includes(rec.scope, r, rec.wave, w, wave) && includes(scope, w, wave, r, rec.wave);
        let why = (!covered).then(|| {
            let (rs, ws) = (format!("{:?}", rec.scope).to_lowercase(), format!("{scope:?}").to_lowercase());
            format!(
                "the release at {:#x} ({rs} scope, {}) was read by an acquire at {ws} scope ({}), but {} does not include the other side, so they do not synchronise",
                rec.pc,
                r.id,
                w.id,
                if includes(rec.scope, r, rec.wave, w, wave) { format!("{ws} scope") } else { format!("{rs} scope") }
            )
        });
        let Some(w) = self.waves.get_mut(wave as usize).and_then(|w| w.as_mut()) else { return };
        match why {
            None => w.vc.join(&rec.vc),
            Some(why) => {
                if !w.failed.iter().any(|(from, _)| *from == rec.wave) {
                    w.failed.push((rec.wave, why));
                }
            }
        }
    }

    fn fence(&mut self, wave: u32, acquire: bool, release: bool, scope: Scope) {
        if acquire {
            let pending = self.waves.get_mut(wave as usize).and_then(|w| w.as_mut()).map(|w| std::mem::take(&mut w.pending)).unwrap_or_default();
            for rec in pending {
                self.try_join(wave, rec, scope);
            }
        }
        if release {
            let pc = self.cur.as_ref().map_or(0, |c| c.pc);
            if let Some(w) = self.waves.get_mut(wave as usize).and_then(|w| w.as_mut()) {
                w.fence_release = Some(SyncRec { vc: Rc::new(w.snapshot(wave)), scope, wave, pc, narrow: false });
                w.own += 1;
            }
        }
    }

    /// The instruction ended: a release moves its wave's clock on.
    fn finish_instruction(&mut self) {
        let Some(c) = self.cur.take() else { return };
        if c.released {
            if let Some(w) = self.waves.get_mut(c.wave as usize).and_then(|w| w.as_mut()) {
                w.own += 1;
            }
        }
    }
}

impl Observer for Detector {
    fn dispatch_started(&mut self, d: &DispatchInfo) {
        let k = d.kernel;
        let key = (k.name.clone(), k.entry);
        let tags = self.st.tags.entry(key).or_insert_with(|| Rc::new(KernelTags::new(k))).clone();
        self.st.kernel = Some(tags);
        // Dispatches of one stream are ordered: nothing of an earlier one races with this one.
        self.st.waves.clear();
        self.shadow = Shadow::default();
        self.st.cur = None;
        self.st.groups = [0, 1, 2].map(|i| d.grid[i].div_ceil(d.block[i].max(1)).max(1));
        self.st.code_base = k.code.first().map_or(k.entry, hipscope_sim::kernel::CodeSlot::address);
    }

    fn wave_started(&mut self, id: WaveId, index: u32) {
        let i = index as usize;
        if self.st.waves.len() <= i {
            self.st.waves.resize_with(i + 1, || None);
        }
        self.st.waves[i] = Some(WaveState { id, own: 1, vc: Clock::default(), lane_sync: 0, fence_release: None, pending: Vec::new(), failed: Vec::new() });
    }

    fn executed(&mut self, e: &Executed) {
        self.st.finish_instruction();
        let interp = self.st.kernel.as_ref().and_then(|k| k.at(e.pc));
        if let Some(Interp::Fence { acquire, release, scope, .. }) = interp {
            self.st.fence(e.wave_index, acquire, release, scope);
        }
        self.st.cur =
            Some(Current { wave: e.wave_index, pc: e.pc, interp, scalar: matches!(e.sem, Sem::Smem(_)), exec: e.exec, snapshot: None, released: false });
    }

    fn access(&mut self, a: &LaneAccess) {
        if a.space == Space::Scratch {
            return;
        }
        let Some(now) = self.current_rec(a.dir) else { return };
        self.lane_access(now, a);
    }

    fn accesses(&mut self, lanes: u64, addresses: &[u64; hipscope_sim::wave::MAX_LANES], bytes: u32, space: Space, dir: Dir) {
        if space == Space::Scratch {
            return;
        }
        let Some(now) = self.current_rec(dir) else { return };
        let mut m = lanes;
        while m != 0 {
            let lane = m.trailing_zeros();
            m &= m - 1;
            self.lane_access(now, &LaneAccess { lane, space, dir, address: addresses[lane as usize], bytes });
        }
    }

    fn barrier_released(&mut self, waves: &[u32]) {
        self.st.finish_instruction();
        let mut all = Clock::default();
        for &w in waves {
            if let Some(s) = self.st.wave(w) {
                all.join(&s.snapshot(w));
            }
        }
        for &w in waves {
            if let Some(s) = self.st.waves.get_mut(w as usize).and_then(|s| s.as_mut()) {
                s.vc.join(&all);
                s.own += 1;
                s.lane_sync = s.own;
            }
        }
    }

    fn wave_ended(&mut self, _wave: WaveId, _index: u32) {
        self.st.finish_instruction();
    }

    fn dispatch_ended(&mut self) {
        self.st.finish_instruction();
    }
}

/// The shadow key of a granule (4 bytes): global memory by address; LDS by work-group (its
/// number in the grid) and offset, with the top bit set.
fn granule_key(granule: u64, lds_group: Option<[u32; 3]>, groups: [u32; 3]) -> u64 {
    match lds_group {
        None => granule,
        Some([x, y, z]) => {
            let flat = u64::from(x) + u64::from(groups[0]) * (u64::from(y) + u64::from(groups[1]) * u64::from(z));
            1 << 63 | flat << 24 | (granule & 0xff_ffff)
        }
    }
}

/// Record a read since the granule's last write. Reads are kept sorted by wave (found by
/// binary search: a widely read granule, such as a kernel argument, is read by every wave),
/// at most two per wave: a wave's newer read replaces an older one whose lanes it covers; a
/// third is folded into the older one (its lanes added, the later clock kept: stricter, so no
/// race is missed).
fn add_read(reads: &mut Vec<Rec>, now: Rec) {
    let start = reads.partition_point(|r| r.wave < now.wave);
    let end = start + reads[start..].iter().take(2).take_while(|r| r.wave == now.wave).count();
    let mine = start..end;
    if let Some(i) = mine.clone().find(|&i| reads[i].clock == now.clock && reads[i].at == now.at) {
        reads[i].lanes |= now.lanes;
        return;
    }
    if let Some(i) = mine.clone().find(|&i| reads[i].lanes & !now.lanes == 0) {
        reads[i] = now;
        return;
    }
    if mine.len() == 2 {
        let newer = reads[start + 1];
        let old = &mut reads[start];
        old.lanes |= newer.lanes;
        old.clock = old.clock.max(newer.clock);
        reads[start + 1] = now;
        return;
    }
    reads.insert(end, now);
}

/// A multiplicative hash for the shadow's integer keys (std's SipHash costs more than the
/// rest of an access's check).
#[derive(Default)]
struct Mix(u64);

impl std::hash::Hasher for Mix {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (v ^ v >> 29).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// A set of races as lines of text.
pub fn describe(races: &[Race]) -> String {
    let mut out = String::new();
    let mut seen = HashSet::new();
    for r in races {
        if !seen.insert((r.first.pc, r.second.pc, r.rule)) {
            continue;
        }
        let side = |s: &Side| {
            let what = match &s.atomic {
                None => "plain".to_string(),
                Some(scope) => format!("atomic, {scope} scope"),
            };
            format!(
                "{} lane {} {} at {:#x} ({what}{})",
                s.wave,
                s.lane,
                if s.write { "writes" } else { "reads" },
                s.pc,
                if s.shared_code { "; the same code is another scope's too" } else { "" }
            )
        };
        out.push_str(&format!(
            "{}: {} on {} {:#x} ({} granule(s))\n  {}\n  {}\n",
            r.kernel,
            r.rule.describe(),
            if r.lds { "LDS offset" } else { "address" },
            r.address,
            r.count,
            side(&r.first),
            side(&r.second)
        ));
        if let Some(n) = &r.note {
            out.push_str(&format!("  note: {n}\n"));
        }
    }
    out
}
