//! Residency: the waves and work-groups of a dispatch that have started and not retired,
//! their barriers, and the end of each.
//!
//! Waves live in a slab indexed by wave id, each with its work-group, its search for a
//! repeating state ([`Watch`]) and the engine's own per-wave state; work-groups in a slab of
//! their own, with their LDS and their barrier. An engine starts a work-group in a scratch
//! slot it chose ([`Sched::start_group`]) and reports what its waves do: a wave reached the
//! barrier ([`Sched::arrive`]) or ended ([`Sched::end_wave`]). Waves a barrier releases are
//! handed back to the engine one by one (its `wake` callback) so it can queue them; a group
//! that retired is handed back whole so the engine can give back its scratch slot and its
//! place on the GPU.

use super::{count_group, Dispatch, DispatchStats, EngineOptions};
use crate::dispatch::{create_wave, group_waves, WaveSetup};
use crate::observe::{Observer, Regions, Shared};
use crate::progress::{Progress, Watch};
use crate::wave::{Wave, WaveStatus};
use hipscope_isa::tables::OPCODE_NAMES;
use std::cell::RefCell;

/// How wave ids are chosen and when a wave's storage (its id and register file) is given
/// back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Storage {
    /// A wave's id is its scratch slot (group slot × waves per group + wave), and its storage
    /// is given back when its work-group retires, in wave order. The functional engine lists
    /// waves in its reports in this order, and reuses register files in it.
    BySlot,
    /// Ids come from a free list (the last freed first) and a wave's storage is given back as
    /// it ends. The timing engine breaks ties between waves issuing in the same cycle by id.
    Reused,
}

/// A resident wave.
pub(crate) struct Resident<W> {
    pub w: Wave,
    /// Its search for a repeating state (livelock detection).
    pub watch: Watch,
    /// Its work-group (index into [`Sched::groups`]).
    pub group: usize,
    /// What the engine keeps of it.
    pub x: W,
}

/// A resident work-group.
pub(crate) struct Group<G> {
    /// Its waves' ids, in wave order.
    pub waves: Vec<usize>,
    pub lds: Vec<u8>,
    /// Waves that have not ended.
    pub live: u32,
    /// Waves waiting at the barrier, and when the last of them arrived.
    pub arrived: u32,
    pub barrier_at: u64,
    /// Its scratch slot.
    pub slot: u32,
    /// Wave-instructions its ended waves executed.
    pub ended: u64,
    /// What the engine keeps of it.
    pub x: G,
}

/// Work-groups that ended, their waves, and the wave-instructions those executed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Retired {
    pub groups: u64,
    pub waves: u64,
    pub instructions: u64,
}

/// What became of a wave's work-group when the wave ended.
pub(crate) enum Ended<G> {
    /// Other waves of the group still run; `released`: they all waited at the barrier, which
    /// released.
    Live { released: bool },
    /// It was the group's last wave: the group retired and hands back its scratch slot and
    /// the engine's state.
    Retired { slot: u32, x: G },
}

/// A barrier release, as a released wave's engine is told it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Release {
    /// One cycle after the last wave arrived.
    pub at: u64,
    /// Waves that had arrived.
    pub arrived: u32,
}

/// The scheduler both engines share: a dispatch's resident waves and work-groups, what it
/// did so far, its progress (livelock detection), and the observer watching it. `W` and `G`
/// are what the engine keeps per wave and per work-group.
pub(crate) struct Sched<'a, 'm, W, G> {
    pub d: &'a Dispatch<'a>,
    pub opts: EngineOptions,
    setup: WaveSetup<'a>,
    pub waves: Vec<Option<Resident<W>>>,
    free_waves: Vec<usize>,
    pub groups: Vec<Option<Group<G>>>,
    storage: Storage,
    /// Register files of ended waves, reused for new ones (zeroing 64 KiB per wave would
    /// dominate short kernels), and left to the next dispatch ([`FilePool`]).
    pool: FilePool,
    next_wave_index: u32,
    /// Live waves not waiting at a barrier.
    pub running: usize,
    pub stats: DispatchStats,
    /// Work-groups that ended (not skipped), their waves, and the wave-instructions those
    /// executed: what work-group sampling estimates a wave's work from ([`super::sample`], "Not
    /// executed").
    pub retired: Retired,
    /// Visible changes and waves found looping (livelock detection).
    pub prog: Progress,
    pub obs: Option<Shared<'m>>,
    /// The observer wants lane accesses (the engine's memory port reports them).
    pub watch_lanes: bool,
    /// The scratch backing store and kernarg segment, for observers.
    pub regions: Regions,
}

/// Host bytes of register files a thread keeps between dispatches. // assumed: a timing
/// dispatch of a few thousand resident waves holds ~16 MiB of files, which its next launch then
/// takes without allocating (a new file's zeroed pages are faulted in one at a time).
const SPARE_FILE_BYTES: usize = 32 << 20;

std::thread_local! {
    /// Register files the last dispatch on this thread left ([`FilePool`]).
    static SPARE_FILES: RefCell<Vec<Vec<u32>>> = const { RefCell::new(Vec::new()) };
}

/// A dispatch's pool of spare register files. It starts with what the previous dispatch on
/// the thread left and leaves its own when it goes, up to [`SPARE_FILE_BYTES`]: a program's
/// launches then reuse the same files (each is zeroed up to the kernel's registers before a
/// wave takes it, [`create_wave`]), where new ones cost a page fault per 4 KiB.
struct FilePool(Vec<Vec<u32>>);

impl FilePool {
    fn take() -> FilePool {
        FilePool(SPARE_FILES.with(|s| s.try_borrow_mut().map(|mut s| std::mem::take(&mut *s)).unwrap_or_default()))
    }
}

impl Drop for FilePool {
    fn drop(&mut self) {
        let mut files = std::mem::take(&mut self.0);
        let mut bytes = 0;
        files.retain(|f| {
            bytes += f.capacity() * 4;
            bytes <= SPARE_FILE_BYTES
        });
        SPARE_FILES.with(|s| {
            if let Ok(mut s) = s.try_borrow_mut() {
                *s = files;
            }
        });
    }
}

impl<'a, 'm, W, G> Sched<'a, 'm, W, G> {
    pub fn new(d: &'a Dispatch<'a>, opts: EngineOptions, observer: Option<&'m mut dyn Observer>, storage: Storage) -> Self {
        let k = d.kernel;
        Sched {
            d,
            opts,
            setup: WaveSetup { kernel: k, geo: &d.geo, rt: &d.rt, kernarg: &d.kernarg, scratch_base: d.scratch_base, scratch_per_lane: d.scratch_per_lane },
            waves: Vec::new(),
            free_waves: Vec::new(),
            groups: Vec::new(),
            storage,
            pool: FilePool::take(),
            next_wave_index: 0,
            running: 0,
            stats: DispatchStats { opcode_counts: vec![0; OPCODE_NAMES.len()], ..Default::default() },
            retired: Retired::default(),
            prog: Progress::default(),
            watch_lanes: observer.as_ref().is_some_and(|o| o.lane_accesses()),
            obs: observer.map(RefCell::new),
            regions: d.regions(),
        }
    }

    /// Tell the observer, if there is one.
    #[inline]
    pub fn tell(&self, f: impl FnOnce(&mut dyn Observer)) {
        if let Some(o) = &self.obs {
            f(&mut **o.borrow_mut());
        }
    }

    /// Start work-group `n` (in dispatch order) in scratch slot `slot` at cycle `at`, with `x`
    /// the engine's state of the group. `wave(&x, i, id, wave, observer)` makes the engine's
    /// state of its `i`th wave, in wave order, once observers know the wave started. Returns
    /// the group's index.
    pub fn start_group(&mut self, n: u64, slot: u32, at: u64, x: G, mut wave: impl FnMut(&G, usize, usize, &Wave, Option<&Shared<'m>>) -> W) -> usize {
        let g = self.d.geo.group_at(n);
        let wpg = self.d.waves_per_group();
        let count = group_waves(&self.setup, g);
        let first_index = self.next_wave_index;
        self.next_wave_index += count;
        self.stats.groups += 1;
        self.stats.waves += u64::from(count);
        let gid = self.groups.iter().position(Option::is_none).unwrap_or_else(|| {
            self.groups.push(None);
            self.groups.len() - 1
        });
        let mut ids = Vec::with_capacity(count as usize);
        for i in 0..count {
            let id = self.wave_id(slot * wpg + i);
            // Made in its slot's place, then the observer and the engine see it there.
            let w = create_wave(&self.setup, g, i, first_index, slot * wpg, &mut self.pool.0);
            if let Some(o) = &self.obs {
                o.borrow_mut().wave_started(w.id, w.global_index);
            }
            let ext = wave(&x, i as usize, id, &w, self.obs.as_ref());
            self.waves[id] = Some(Resident { w, watch: Watch::default(), group: gid, x: ext });
            ids.push(id);
        }
        let live = ids.len() as u32;
        self.running += ids.len();
        self.prog.advance(at, self.stats.instructions);
        self.groups[gid] = Some(Group { waves: ids, lds: vec![0; self.d.lds_bytes as usize], live, arrived: 0, barrier_at: 0, slot, ended: 0, x });
        gid
    }

    /// The work-groups `groups` (in dispatch order, before every group still to start) are
    /// counted as started and ended without running: the dispatch's counts include them and the
    /// next group's waves get the indices they would have had after them.
    pub fn skip_groups(&mut self, groups: &[u64]) {
        let waves: u64 = groups.iter().map(|&n| u64::from(self.d.waves_in_group(n))).sum();
        self.stats.groups += groups.len() as u64;
        self.stats.waves += waves;
        self.next_wave_index = self.next_wave_index.wrapping_add(waves as u32);
    }

    /// The index in the dispatch that the next work-group's first wave gets.
    pub fn next_wave_index(&self) -> u32 {
        self.next_wave_index
    }

    /// Sets the index in the dispatch that the next work-group's first wave gets: a parallel
    /// worker of the functional engine starts groups out of dispatch order.
    pub fn set_next_wave_index(&mut self, index: u32) {
        self.next_wave_index = index;
    }

    /// A free wave id (`scratch`: the wave's scratch slot), with room for it in the slab.
    fn wave_id(&mut self, scratch: u32) -> usize {
        let id = match self.storage {
            Storage::BySlot => scratch as usize,
            Storage::Reused => self.free_waves.pop().unwrap_or(self.waves.len()),
        };
        if id >= self.waves.len() {
            self.waves.resize_with(id + 1, || None);
        }
        id
    }

    /// Wave `id` reached its group's barrier at `at`. Returns whether the barrier released
    /// (every live wave of the group had arrived); `wake` is told each released wave.
    #[inline]
    pub fn arrive(&mut self, id: usize, at: u64, wake: impl FnMut(usize, &mut Resident<W>, Release, Option<&Shared<'m>>)) -> bool {
        let Some(r) = self.waves[id].as_mut() else { return false };
        r.w.status = WaveStatus::AtBarrier;
        self.running -= 1;
        let gid = r.group;
        let Some(g) = self.groups[gid].as_mut() else { return false };
        g.arrived += 1;
        g.barrier_at = g.barrier_at.max(at);
        self.try_release(gid, wake)
    }

    /// Release group `gid`'s barrier once every live wave has arrived: the waves waiting at it
    /// become ready, each told to `wake`, then observers are told which were released.
    #[inline]
    pub fn try_release(&mut self, gid: usize, wake: impl FnMut(usize, &mut Resident<W>, Release, Option<&Shared<'m>>)) -> bool {
        // Most arrivals are not the last one: that test stays inline.
        match &self.groups[gid] {
            Some(g) if g.arrived > 0 && g.arrived >= g.live => self.release(gid, wake),
            _ => false,
        }
    }

    /// [`Sched::try_release`] once every live wave of group `gid` has arrived.
    fn release(&mut self, gid: usize, mut wake: impl FnMut(usize, &mut Resident<W>, Release, Option<&Shared<'m>>)) -> bool {
        let Some(g) = self.groups[gid].as_mut() else { return false };
        let release = Release { at: g.barrier_at + 1, arrived: g.arrived };
        g.arrived = 0;
        g.barrier_at = 0;
        let mut released = Vec::with_capacity(if self.obs.is_some() { g.waves.len() } else { 0 });
        for &id in &g.waves {
            let Some(r) = self.waves[id].as_mut() else { continue };
            // The id of a wave that ended may belong to another group's wave by now
            // ([`Storage::Reused`]): that wave is not this barrier's.
            if r.w.status != WaveStatus::AtBarrier || r.group != gid {
                continue;
            }
            wake(id, r, release, self.obs.as_ref());
            if self.obs.is_some() {
                released.push(r.w.global_index);
            }
            r.w.status = WaveStatus::Ready;
            self.running += 1;
        }
        if let Some(o) = &self.obs {
            o.borrow_mut().barrier_released(&released);
        }
        true
    }

    /// Wave `id` ended at `at`: it counts as progress, observers are told, its storage is given
    /// back (see [`Storage`]), and its group releases its barrier if the other live waves all
    /// wait at it, or retires if this was its last wave.
    pub fn end_wave(&mut self, id: usize, at: u64, wake: impl FnMut(usize, &mut Resident<W>, Release, Option<&Shared<'m>>)) -> Ended<G> {
        let Some(r) = self.waves[id].as_mut() else { return Ended::Live { released: false } };
        r.w.status = WaveStatus::Done;
        self.running -= 1;
        self.prog.advance(at, self.stats.instructions);
        self.stats.lds_out_of_range += r.w.lds_out_of_range.get();
        if let Some(o) = &self.obs {
            o.borrow_mut().wave_ended(r.w.id, r.w.global_index);
        }
        let (gid, executed) = (r.group, r.w.instructions);
        if self.storage == Storage::Reused {
            self.give_back(id);
        }
        let Some(g) = self.groups[gid].as_mut() else { return Ended::Live { released: false } };
        g.live -= 1;
        g.ended += executed;
        if g.live > 0 {
            return Ended::Live { released: self.try_release(gid, wake) };
        }
        let Some(g) = self.groups[gid].take() else { return Ended::Live { released: false } };
        self.retired =
            Retired { groups: self.retired.groups + 1, waves: self.retired.waves + g.waves.len() as u64, instructions: self.retired.instructions + g.ended };
        count_group(&self.opts);
        if self.storage == Storage::BySlot {
            g.waves.iter().for_each(|&id| self.give_back(id));
        }
        Ended::Retired { slot: g.slot, x: g.x }
    }

    /// Give back wave `id`'s slab entry and register file.
    fn give_back(&mut self, id: usize) {
        if let Some(r) = self.waves[id].take() {
            self.pool.0.push(r.w.vgpr);
            if self.storage == Storage::Reused {
                self.free_waves.push(id);
            }
        }
    }

    /// Resident waves that have not ended, in slab order.
    pub fn live_waves(&self) -> impl Iterator<Item = &Resident<W>> {
        self.waves.iter().flatten().filter(|r| r.w.status != WaveStatus::Done)
    }

    /// The same dispatch, its waves and work-groups as they are, handed to another engine:
    /// `wave` and `group` make that engine's state of each from this one's (a sampled timing
    /// dispatch goes on in the functional engine, [`super::sample`]).
    pub fn hand_over<W2, G2>(self, mut wave: impl FnMut(W) -> W2, mut group: impl FnMut(G) -> G2) -> Sched<'a, 'm, W2, G2> {
        let waves = self.waves.into_iter().map(|r| r.map(|r| Resident { w: r.w, watch: r.watch, group: r.group, x: wave(r.x) })).collect();
        let groups = self
            .groups
            .into_iter()
            .map(|g| {
                g.map(|g| Group {
                    waves: g.waves,
                    lds: g.lds,
                    live: g.live,
                    arrived: g.arrived,
                    barrier_at: g.barrier_at,
                    slot: g.slot,
                    ended: g.ended,
                    x: group(g.x),
                })
            })
            .collect();
        Sched {
            d: self.d,
            opts: self.opts,
            setup: self.setup,
            waves,
            free_waves: self.free_waves,
            groups,
            storage: self.storage,
            pool: self.pool,
            next_wave_index: self.next_wave_index,
            running: self.running,
            stats: self.stats,
            retired: self.retired,
            prog: self.prog,
            obs: self.obs,
            watch_lanes: self.watch_lanes,
            regions: self.regions,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::{Geometry, RuntimeAddresses};
    use crate::exec::Env;
    use crate::kernel::{LoadedKernel, RawKernel};
    use hipscope_isa::codeobj::KernelDescriptor;
    use hipscope_isa::Processor;

    /// A gfx942 kernel of one `s_endpgm` (SOPP opcode 1: 0xbf810000), never run here.
    fn kernel() -> LoadedKernel {
        let p = Processor::Gfx942;
        let env = Env::plain(p);
        let code = 0xbf81_0000u32.to_le_bytes();
        // An all-zero 64-byte descriptor: nothing enabled, no segments.
        let Ok(descriptor) = KernelDescriptor::parse(&[0; 64], p.family()) else { panic!("a 64-byte descriptor parses") };
        let raw = RawKernel { name: "end", processor: p, wave64: true, descriptor, vgprs: 4, code: &code, entry: 0x1000 };
        LoadedKernel::from_code(&raw, &env)
    }

    /// Three work-groups of two waves, two resident at once.
    fn dispatch(k: &LoadedKernel) -> Dispatch<'_> {
        let rt = RuntimeAddresses { packet: 0, queue: 0, kernarg: 0, dispatch_id: 0 };
        let geo = Geometry { grid: [3 * 128, 1, 1], block: [128, 1, 1], dynamic_lds: 0 };
        Dispatch { kernel: k, geo, rt, kernarg: Vec::new(), lds_bytes: 0, scratch_base: 0, scratch_per_lane: 0, max_resident_groups: 2 }
    }

    fn ids<W, G>(s: &Sched<W, G>, gid: usize) -> Vec<usize> {
        s.groups[gid].as_ref().map(|g| g.waves.clone()).unwrap_or_default()
    }

    /// With ids reused as waves end, a group that still lists a wave that ended holds an id
    /// another group's wave may have taken: its barrier must release its own waves only.
    #[test]
    fn a_barrier_releases_only_its_own_groups_waves() {
        let k = kernel();
        let d = dispatch(&k);
        let mut s: Sched<(), ()> = Sched::new(&d, EngineOptions::default(), None, Storage::Reused);
        let g0 = s.start_group(0, 0, 0, (), |_, _, _, _, _| ());
        let g1 = s.start_group(1, 1, 0, (), |_, _, _, _, _| ());
        let (a, b) = (ids(&s, g0), ids(&s, g1));
        // Group 1 ends and retires; group 0's second wave ends early.
        s.end_wave(b[0], 1, |_, _, _, _| ());
        assert!(matches!(s.end_wave(b[1], 1, |_, _, _, _| ()), Ended::Retired { slot: 1, .. }));
        assert!(matches!(s.end_wave(a[1], 1, |_, _, _, _| ()), Ended::Live { released: false }));
        // Group 2 takes the freed slot, and one of its waves the id of group 0's ended wave.
        let g2 = s.start_group(2, 1, 2, (), |_, _, _, _, _| ());
        let c = ids(&s, g2);
        assert!(c.contains(&a[1]), "ids {c:?} reuse {}", a[1]);
        // That wave waits at group 2's barrier, then group 0's last live wave reaches group 0's.
        assert!(!s.arrive(a[1], 3, |_, _, _, _| ()));
        let mut woken = Vec::new();
        assert!(s.arrive(a[0], 4, |id, _, _, _| woken.push(id)));
        assert_eq!(woken, [a[0]], "group 0's barrier releases group 0's wave");
        let waiting = s.waves[a[1]].as_ref().map(|r| r.w.status);
        assert_eq!(waiting, Some(WaveStatus::AtBarrier), "group 2's wave waits for its partner");
        // Its partner arrives: group 2's barrier releases both.
        let mut woken = Vec::new();
        let partner = c.iter().copied().find(|&id| id != a[1]).unwrap_or(a[1]);
        assert!(s.arrive(partner, 5, |id, _, _, _| woken.push(id)));
        woken.sort_unstable();
        let mut both = c.clone();
        both.sort_unstable();
        assert_eq!(woken, both);
    }

    /// By slot: wave ids are the waves' scratch slots, and a group's waves stay (ended) until
    /// the group retires.
    #[test]
    fn by_slot_ids_are_scratch_slots_kept_until_the_group_retires() {
        let k = kernel();
        let d = dispatch(&k);
        let mut s: Sched<(), ()> = Sched::new(&d, EngineOptions::default(), None, Storage::BySlot);
        let g = s.start_group(0, 1, 0, (), |_, _, _, _, _| ());
        assert_eq!(ids(&s, g), [2, 3], "slot 1 of two-wave groups");
        s.end_wave(2, 0, |_, _, _, _| ());
        assert_eq!(s.waves[2].as_ref().map(|r| r.w.status), Some(WaveStatus::Done));
        assert_eq!(s.live_waves().count(), 1);
        assert!(matches!(s.end_wave(3, 0, |_, _, _, _| ()), Ended::Retired { slot: 1, .. }));
        assert!(s.waves.iter().all(Option::is_none));
        assert_eq!((s.stats.groups, s.stats.waves, s.running), (1, 2, 0));
    }

    /// A dispatch leaves its waves' register files to the next one on the thread, which
    /// gives them to its waves with the kernel's registers zeroed again.
    #[test]
    fn the_next_dispatch_reuses_the_register_files_zeroed() {
        // A thread of its own: it starts with no spare files.
        std::thread::spawn(|| {
            let k = kernel();
            let d = dispatch(&k);
            let run_one_group = |scribble: bool| {
                let mut s: Sched<(), ()> = Sched::new(&d, EngineOptions::default(), None, Storage::BySlot);
                let g = s.start_group(0, 0, 0, (), |_, _, _, _, _| ());
                let ids = ids(&s, g);
                let mut files = Vec::new();
                for &id in &ids {
                    let Some(r) = s.waves[id].as_mut() else { panic!("wave {id} is resident") };
                    files.push(r.w.vgpr.as_ptr() as usize);
                    // v1..v3 start zeroed (v0 holds the work-item ids).
                    assert!(r.w.vgpr[64..4 * 64].iter().all(|&x| x == 0), "registers start zeroed");
                    if scribble {
                        r.w.vgpr[..4 * 64].fill(7);
                    }
                }
                for id in ids {
                    s.end_wave(id, 0, |_, _, _, _| ());
                }
                files.sort_unstable();
                files
            };
            let first = run_one_group(true);
            assert_eq!(run_one_group(false), first, "the second dispatch's waves take the first one's files");
        })
        .join()
        .expect("the dispatches run");
    }
}
