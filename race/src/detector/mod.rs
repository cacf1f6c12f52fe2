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
//! ([`hipscope_mm::recover`], folded by [`interp`]). Each racing pair of instructions is reported
//! once, with both sides and the rule broken.
//!
//! Limits, stated so reports can be read right: a load is taken to read the latest write in
//! the simulated order; seq_cst is treated as acq_rel (no total order is checked); lanes of
//! one wave synchronise with each other only through barriers.

pub mod clock;
pub mod group;
pub mod host;
pub mod interp;
mod shadow;

use crate::siblings::Decided;
use clock::Clock;
use hipscope_mm::Scope;
use hipscope_sim::exec::Sem;
use hipscope_sim::observe::{Access as LaneAccess, Dir, DispatchInfo, Executed, Observer, Space};
use hipscope_sim::WaveId;
use interp::{Atomic, Interp, KernelTags};
use shadow::{At, Kind, Rec, Shadow, Sweep};
use std::collections::{HashMap, HashSet};
use std::sync::Arc as Rc;

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
    /// The scope was decided from another target's code of the same kernel: how
    /// ([`crate::siblings`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope_from: Option<String>,
    /// Launches run together on several GPUs ([`group`]): the GPU that ran it and its kernel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    /// The access is a host thread's (the host as an agent of a group, [`host`]): `wave`,
    /// `lane` and `pc` mean nothing then.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub host: bool,
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
    /// Its work-group's LDS page in the shadow.
    lds_page: u32,
    /// Its launch's slot in a group run together ([`group`]; 0 alone) and the agent (GPU)
    /// that runs it: an agent-scope operation includes only the waves of the same agent.
    slot: u32,
    agent: u32,
}

impl WaveState {
    /// A wave that has synchronised with nothing yet.
    fn new(id: WaveId, lds_page: u32, slot: u32, agent: u32) -> WaveState {
        WaveState { id, own: 1, vc: Clock::default(), lane_sync: 0, fence_release: None, pending: Vec::new(), failed: Vec::new(), lds_page, slot, agent }
    }
}

/// The instruction being executed.
struct Current {
    wave: u32,
    pc: u64,
    interp: Option<Interp>,
    /// Its reads' and writes' records, but for the lane (set here for a scalar access, which
    /// stands for every active lane).
    read: Rec,
    write: Rec,
    scalar: bool,
    /// An atomic (or possibly one) whose accesses may release or acquire.
    synchronises: bool,
    /// This instruction's release snapshot (taken at its first write).
    snapshot: Option<Rc<Clock>>,
    released: bool,
}

/// A resident work-group's LDS shadow page and how many of its waves are running.
struct GroupLds {
    page: u32,
    live: u32,
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
    /// The launch whose events arrive now.
    live: Launch,
    /// In a group run together ([`group`]), the other launches' state while they do not hold
    /// the turn (`live` is swapped in and out by [`Detector::enter`]); empty alone.
    parked: Vec<Launch>,
    /// Which slot `live` is, and how many launches the group has (1 alone): a wave's id in
    /// the detector is its index in its dispatch × `slots` + its slot, so ids of different
    /// launches never meet and a launch alone keeps its waves' own indices.
    active: u32,
    slots: u32,
    waves: Vec<Option<WaveState>>,
    races: Vec<Race>,
    index: HashMap<(String, u64, u64, Rule), usize>,
    ambiguities: Vec<Ambiguity>,
    /// Scopes decided from other targets' code, by kernel name ([`Detector::decide`]).
    decided: HashMap<String, Rc<Decided>>,
}

/// One launch's dispatch as the detector follows it.
#[derive(Default)]
struct Launch {
    kernel: Option<Rc<KernelTags>>,
    /// Bytes of LDS per work-group.
    lds_bytes: u32,
    /// Resident work-groups' LDS shadows.
    groups: HashMap<[u32; 3], GroupLds>,
    cur: Option<Current>,
    /// The address of the dispatched kernel's first instruction (records keep offsets).
    code_base: u64,
    /// The agent (GPU) that runs it.
    agent: u32,
}

impl WaveState {
    /// Its clock as a release carries it: what it knows of others, and its own clock.
    fn snapshot(&self, me: u32) -> Clock {
        self.vc.with(me, self.own)
    }
}

/// Whether the instance of `scope` around wave `a` contains wave `b` (HSA's scope hierarchy:
/// wavefront < work-group < agent < system; a work-group belongs to one launch, an agent is
/// one GPU of the node).
fn includes(scope: Scope, a: &WaveState, a_index: u32, b: &WaveState, b_index: u32) -> bool {
    match scope {
        Scope::WorkItem | Scope::Wavefront => a_index == b_index,
        Scope::Workgroup => a.slot == b.slot && a.id.workgroup == b.id.workgroup,
        Scope::Agent => a.agent == b.agent,
        Scope::System => true,
    }
}

impl Detector {
    pub fn new() -> Detector {
        Detector::default()
    }

    /// A detector for launches run together on the agents (GPU ordinals) `agents`, one per
    /// launch ([`group`]).
    fn for_group(agents: &[u32]) -> Detector {
        let mut d = Detector::default();
        d.st.slots = agents.len().max(1) as u32;
        d.st.parked = agents.iter().map(|&agent| Launch { agent, ..Launch::default() }).collect();
        if let Some(first) = d.st.parked.first_mut() {
            d.st.live = std::mem::take(first);
        }
        d
    }

    /// The events that follow are launch `slot`'s: its state becomes the live one.
    fn enter(&mut self, slot: u32) {
        let st = &mut self.st;
        if slot == st.active || slot as usize >= st.parked.len() {
            return;
        }
        std::mem::swap(&mut st.live, &mut st.parked[st.active as usize]);
        std::mem::swap(&mut st.live, &mut st.parked[slot as usize]);
        st.active = slot;
    }

    /// Read the operations of kernel `name` that `decided` decides as it says (call before
    /// the kernel's first dispatch).
    pub fn decide(&mut self, name: &str, decided: Rc<Decided>) {
        self.st.decided.insert(name.to_string(), decided);
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

    /// One lane's access, granule by granule.
    fn lane_access(&mut self, now: Rec, a: &LaneAccess) {
        let lds = a.space == Space::Lds;
        let page = if lds { self.st.wave(now.wave).map_or(0, |w| w.lds_page) } else { 0 };
        let first = a.address >> 2;
        let last = (a.address + u64::from(a.bytes.max(1)) - 1) >> 2;
        for granule in first..=last {
            let at = if lds {
                // Beyond the group's LDS: the hardware touches no memory.
                let Some(at) = self.shadow.lds(page, granule) else { continue };
                at
            } else {
                self.shadow.global(granule)
            };
            self.granule_access(at, now, a.lane, lds, a.address);
        }
    }

    /// One lane's access to one granule.
    fn granule_access(&mut self, at: At, now: Rec, lane: u32, lds: bool, address: u64) {
        let g = self.shadow.granule(at);
        let write = now.write();
        let reads: &[Rec] = if write { self.shadow.reads(g) } else { &[] };
        let last = if g.write.present() { std::slice::from_ref(&g.write) } else { &[] };
        for p in last.iter().chain(reads) {
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
        if write {
            self.shadow.set_write(at, now);
        } else {
            self.shadow.add_read(at, now);
        }
        if self.st.live.cur.as_ref().is_some_and(|c| c.synchronises) {
            let mut sync = self.shadow.take_sync(at);
            self.st.synchronise(&mut sync, &now);
            self.shadow.put_sync(at, sync);
        } else if write {
            // A plain write ends any release sequence.
            self.shadow.put_sync(at, None);
        }
    }

    /// The current instruction's record for an access in direction `dir`, by `lane`.
    fn current_rec(&self, dir: Dir) -> Option<(Rec, bool)> {
        let c = self.st.live.cur.as_ref()?;
        Some((if dir == Dir::Write { c.write } else { c.read }, c.scalar))
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
            return !p.other_lane_than(lane) || p.clock < w.lane_sync;
        }
        w.vc.get(p.wave) >= p.clock
    }

    /// The launch wave `wave` belongs to.
    fn launch_of(&self, wave: u32) -> &Launch {
        let slot = wave % self.slots.max(1);
        match self.parked.get(slot as usize) {
            Some(l) if slot != self.active => l,
            _ => &self.live,
        }
    }

    /// The detector's id of the current launch's wave `index` (its index in the dispatch).
    fn id(&self, index: u32) -> u32 {
        index.saturating_mul(self.slots.max(1)).saturating_add(self.active)
    }

    /// The address of a record's instruction.
    fn pc(&self, r: &Rec) -> u64 {
        self.launch_of(r.wave).code_base + u64::from(r.at)
    }

    fn same_group(&self, a: u32, b: u32) -> bool {
        match (self.wave(a), self.wave(b)) {
            (Some(x), Some(y)) => x.slot == y.slot && x.id.workgroup == y.id.workgroup,
            _ => true,
        }
    }

    fn ambiguous(&mut self, first_pc: u64, second_pc: u64, what: &str) {
        let kernel = self.live.kernel.as_ref().map_or_else(String::new, |k| k.name.clone());
        if !self.ambiguities.iter().any(|a| a.kernel == kernel && a.first_pc == first_pc && a.second_pc == second_pc) {
            // Other targets' code was looked at: why it did not decide.
            let mut what = what.to_string();
            let tags = self.live.kernel.as_ref();
            let why = |pc: u64| tags.and_then(|t| t.why_undecided(pc));
            match (why(first_pc), why(second_pc)) {
                (Some(a), Some(b)) if a == b => what.push_str(&format!(" (undecided at {first_pc:#x} and {second_pc:#x}: {a})")),
                (a, b) => {
                    for (pc, why) in [(first_pc, a), (second_pc, b)] {
                        if let Some(why) = why {
                            what.push_str(&format!(" (undecided at {pc:#x}: {why})"));
                        }
                    }
                }
            }
            self.ambiguities.push(Ambiguity { kernel, first_pc, second_pc, what });
        }
    }

    /// Whether both accesses are atomics whose scopes include each other's threads. A plain
    /// access whose code is also a work-group-scope atomic's counts as that atomic against an
    /// atomic (two such plain accesses are two plain accesses).
    fn both_atomic_in_scope(&self, p: &Rec, now: &Rec) -> bool {
        let ps = p.atomic().or(if now.atomic().is_some() { p.maybe() } else { None });
        let ns = now.atomic().or(if p.atomic().is_some() { now.maybe() } else { None });
        let (Some(ps), Some(ns), Some(a), Some(b)) = (ps, ns, self.wave(p.wave), self.wave(now.wave)) else { return false };
        includes(ps, a, p.wave, b, now.wave) && includes(ns, b, now.wave, a, p.wave)
    }

    fn side(&self, r: &Rec, lane: u32) -> Side {
        let wave = self.wave(r.wave).map_or_else(WaveId::default, |w| w.id);
        let atomic = r.atomic().map(|s| format!("{s:?}").to_lowercase());
        let pc = self.pc(r);
        let scope_from = self.launch_of(r.wave).kernel.as_ref().and_then(|k| k.decided_how(pc)).map(|d| d.how.clone());
        let mut side = Side { wave, lane, pc, write: r.write(), atomic, shared_code: r.shared(), scope_from, gpu: None, kernel: None, host: false };
        if self.slots > 1 {
            let l = self.launch_of(r.wave);
            if host::is_host(l) {
                side.host = true;
                return side;
            }
            side.gpu = Some(l.agent);
            side.kernel = l.kernel.as_ref().map(|k| k.name.clone());
        }
        side
    }

    fn report(&mut self, p: &Rec, now: &Rec, lane: u32, lds: bool, address: u64) {
        let rule = if p.wave == now.wave {
            Rule::LaneRace
        } else if p.atomic().is_some() && now.atomic().is_some() {
            Rule::ScopeRace
        } else {
            Rule::DataRace
        };
        // A host access races with a kernel's: filed under that kernel.
        let kernel = self.live.kernel.as_ref().or(self.launch_of(p.wave).kernel.as_ref()).map_or_else(String::new, |k| k.name.clone());
        let key = (kernel.clone(), self.pc(p), self.pc(now), rule);
        if let Some(&i) = self.index.get(&key) {
            self.races[i].count += 1;
            return;
        }
        let p_lane = if p.wave == now.wave { p.lane_besides(lane) } else { p.first_lane() };
        let note = self.wave(now.wave).and_then(|w| w.failed.iter().find(|(from, _)| *from == p.wave)).map(|(_, why)| why.clone());
        let race = Race { kernel, rule, lds, address, first: self.side(p, p_lane), second: self.side(now, lane), note, count: 1 };
        self.index.insert(key, self.races.len());
        self.races.push(race);
    }

    /// Release and acquire effects of an atomic access on a granule whose release is `sync`.
    fn synchronise(&mut self, sync: &mut Option<SyncRec>, now: &Rec) {
        let Some(Interp::Access { atomic, maybe, rmw, .. }) = self.live.cur.as_ref().and_then(|c| c.interp) else { return };
        let Some(a) = atomic.or(maybe) else { return };
        if !now.write() {
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
        let pc = self.live.cur.as_ref().map_or(0, |c| c.pc);
        if let Some(scope) = a.release {
            let snap = match self.live.cur.as_mut().and_then(|c| c.snapshot.clone()) {
                Some(s) => s,
                None => {
                    let s = Rc::new(self.wave(wave).map(|w| w.snapshot(wave)).unwrap_or_default());
                    if let Some(c) = self.live.cur.as_mut() {
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
            let pc = self.live.cur.as_ref().map_or(0, |c| c.pc);
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
        // A group's waves are named with their GPU.
        let who = |x: &WaveState| match x.agent {
            host::HOST_AGENT => "a host thread".to_string(),
            agent if self.slots > 1 => format!("{} on GPU {agent}", x.id),
            _ => x.id.to_string(),
        };
        let why = (!covered).then(|| {
            let (rs, ws) = (format!("{:?}", rec.scope).to_lowercase(), format!("{scope:?}").to_lowercase());
            format!(
                "the release at {:#x} ({rs} scope, {}) was read by an acquire at {ws} scope ({}), but {} does not include the other side, so they do not synchronise",
                rec.pc,
                who(r),
                who(w),
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
            let pc = self.live.cur.as_ref().map_or(0, |c| c.pc);
            if let Some(w) = self.waves.get_mut(wave as usize).and_then(|w| w.as_mut()) {
                w.fence_release = Some(SyncRec { vc: Rc::new(w.snapshot(wave)), scope, wave, pc, narrow: false });
                w.own += 1;
            }
        }
    }

    /// The instruction ended: a release moves its wave's clock on.
    fn finish_instruction(&mut self) {
        let Some(c) = self.live.cur.take() else { return };
        if c.released {
            if let Some(w) = self.waves.get_mut(c.wave as usize).and_then(|w| w.as_mut()) {
                w.own += 1;
            }
        }
    }
}

impl State {
    /// The current instruction, as [`Observer::executed`] reports it.
    fn begin_instruction(&mut self, e: &Executed) {
        let interp = self.live.kernel.as_ref().and_then(|k| k.at(e.pc));
        let wave = self.id(e.wave_index);
        if let Some(Interp::Fence { acquire, release, scope, .. }) = interp {
            self.fence(wave, acquire, release, scope);
        }
        let (atomic, maybe, shared) = match interp {
            Some(Interp::Access { atomic, maybe, shared, .. }) => (atomic, maybe, shared),
            _ => (None, None, false),
        };
        let kind = Kind { write: false, atomic: atomic.map(|x| x.scope), maybe: maybe.map(|x| x.scope), narrow: atomic.is_some_and(|x| x.narrow), shared };
        let at = e.pc.saturating_sub(self.live.code_base).min(u64::from(u32::MAX)) as u32;
        let clock = self.clock_of(wave);
        let scalar = matches!(e.sem, Sem::Smem(_));
        let rec = |write| {
            let r = Rec::new(wave, clock, at, Kind { write, ..kind });
            // A scalar access stands for every active lane.
            if scalar {
                r.by_lanes(e.exec | 1)
            } else {
                r
            }
        };
        self.live.cur = Some(Current {
            wave,
            pc: e.pc,
            interp,
            read: rec(false),
            write: rec(true),
            scalar,
            synchronises: atomic.is_some() || maybe.is_some(),
            snapshot: None,
            released: false,
        });
    }

    /// A wave of work-group `group` starts: its LDS page (the group's, made when its first
    /// wave starts; every wave of a group starts before any of them ends).
    fn join_group(&mut self, shadow: &mut Shadow, group: [u32; 3]) -> u32 {
        let bytes = self.live.lds_bytes;
        let g = self.live.groups.entry(group).or_insert_with(|| GroupLds { page: shadow.lds_page(bytes), live: 0 });
        g.live += 1;
        g.page
    }

    /// A wave of work-group `group` ended; the last one hands the group's LDS page back.
    fn leave_group(&mut self, shadow: &mut Shadow, group: [u32; 3]) {
        let Some(g) = self.live.groups.get_mut(&group) else { return };
        g.live = g.live.saturating_sub(1);
        if g.live == 0 {
            shadow.free_lds_page(g.page);
            self.live.groups.remove(&group);
        }
    }
}

impl Observer for Detector {
    fn dispatch_started(&mut self, d: &DispatchInfo) {
        let k = d.kernel;
        let key = (k.name.clone(), k.entry);
        let decided = self.st.decided.get(&k.name).cloned();
        let tags = self.st.tags.entry(key).or_insert_with(|| Rc::new(KernelTags::with_decided(k, decided))).clone();
        if self.st.slots <= 1 {
            // Dispatches of one stream are ordered: nothing of an earlier one races with this
            // one. (A group's launches run at the same time: its detector starts fresh.)
            self.st.waves.clear();
            self.shadow.reset();
        }
        let live = &mut self.st.live;
        live.kernel = Some(tags);
        live.cur = None;
        live.groups.clear();
        live.lds_bytes = d.lds_bytes;
        live.code_base = k.code.first().map_or(k.entry, hipscope_sim::kernel::CodeSlot::address);
    }

    fn wave_started(&mut self, id: WaveId, index: u32) {
        let index = self.st.id(index);
        let i = index as usize;
        if self.st.waves.len() <= i {
            self.st.waves.resize_with(i + 1, || None);
        }
        let lds_page = self.st.join_group(&mut self.shadow, id.workgroup);
        let (slot, agent) = (self.st.active, self.st.live.agent);
        self.st.waves[i] = Some(WaveState::new(id, lds_page, slot, agent));
    }

    fn executed(&mut self, e: &Executed) {
        self.st.finish_instruction();
        self.st.begin_instruction(e);
    }

    fn access(&mut self, a: &LaneAccess) {
        if !watched(a.space) {
            return;
        }
        let Some((now, scalar)) = self.current_rec(a.dir) else { return };
        self.lane_access(if scalar { now } else { now.by_lane(a.lane) }, a);
    }

    fn accesses(&mut self, lanes: u64, addresses: &[u64; hipscope_sim::wave::MAX_LANES], bytes: u32, space: Space, dir: Dir) {
        if !watched(space) {
            return;
        }
        let Some((now, scalar)) = self.current_rec(dir) else { return };
        let plain = !self.st.live.cur.as_ref().is_some_and(|c| c.synchronises);
        if space == Space::Global && !scalar && plain {
            if let Some(s) = sweep(lanes, addresses, bytes, now) {
                if self.shadow.fresh(&s) {
                    return;
                }
            }
        }
        let mut m = lanes;
        while m != 0 {
            let lane = m.trailing_zeros();
            m &= m - 1;
            let rec = if scalar { now } else { now.by_lane(lane) };
            self.lane_access(rec, &LaneAccess { lane, space, dir, address: addresses[lane as usize], bytes, data: &[] });
        }
    }

    fn barrier_released(&mut self, waves: &[u32]) {
        self.st.finish_instruction();
        let waves: Vec<u32> = waves.iter().map(|&w| self.st.id(w)).collect();
        let mut all = Clock::default();
        for &w in &waves {
            if let Some(s) = self.st.wave(w) {
                all.join(&s.vc);
                all.raise(w, s.own);
            }
        }
        for &w in &waves {
            if let Some(s) = self.st.waves.get_mut(w as usize).and_then(|s| s.as_mut()) {
                s.vc.join(&all);
                s.own += 1;
                s.lane_sync = s.own;
            }
        }
    }

    fn wave_ended(&mut self, wave: WaveId, _index: u32) {
        self.st.finish_instruction();
        self.st.leave_group(&mut self.shadow, wave.workgroup);
    }

    fn dispatch_ended(&mut self) {
        self.st.finish_instruction();
    }
}

/// The lanes' accesses as one sweep over consecutive granules, if they are: lanes l..l+n all
/// active, lane l+i at address a + i·`bytes`, dword-aligned whole dwords.
fn sweep(lanes: u64, addresses: &[u64; hipscope_sim::wave::MAX_LANES], bytes: u32, rec: Rec) -> Option<Sweep> {
    if lanes == 0 || bytes == 0 || bytes % 4 != 0 {
        return None;
    }
    let lane0 = lanes.trailing_zeros();
    let n = (lanes >> lane0).trailing_ones();
    let base = addresses[lane0 as usize];
    if n != lanes.count_ones() || base % 4 != 0 {
        return None;
    }
    let step = u64::from(bytes);
    let consecutive = (1..n).all(|i| addresses[(lane0 + i) as usize] == base.wrapping_add(u64::from(i) * step));
    consecutive.then(|| Sweep { first: base >> 2, granules: u64::from(n) * step / 4, per_lane: step / 4, rec: rec.by_lane(lane0) })
}

/// Whether races are looked for in `space`: private memory has none, and the kernel only
/// reads its arguments.
fn watched(space: Space) -> bool {
    matches!(space, Space::Global | Space::Lds)
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
