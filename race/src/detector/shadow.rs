//! Shadow memory: what the race detector remembers of each 4-byte granule.
//!
//! Kept small and plain because it is touched once per lane access: a record is 16 bytes, a
//! granule 40, all zero when empty, so pages are filled and cleared without visiting records
//! one by one. What does not fit (more than one read since the last write, the release an
//! atomic write carries) lives in side tables found by index (0: none).
//!
//! Global memory is shadowed in pages of [`PAGE_GRANULES`] found by address; each resident
//! work-group's LDS gets a page of its own, sized to the LDS it has, handed back when the
//! group's last wave ends (a later group's LDS is new memory: nothing of the old one races
//! with it).
//!
//! Most global memory is touched once per dispatch, by a whole instruction at a time, lane
//! after lane on consecutive addresses (a coalesced load or store). Writing a record per
//! granule for that costs more memory traffic than the simulation itself, so a page first
//! keeps such first touches as [`Run`]s, one per instruction: "granules s..s+n, made by
//! lanes l, l+1, …". Nothing is checked for a first touch (there is nothing to race with).
//! The first access that is not a fresh run, or that overlaps one, turns the page into a
//! record per granule, the runs spelled out, and is checked as usual; the result is the same
//! as if every granule had had its record from the start.

use super::SyncRec;
use hipscope_mm::Scope;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// A recorded access. All zero: no access.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Rec {
    pub wave: u32,
    pub clock: u32,
    /// The instruction, as an offset from the kernel's code.
    pub at: u32,
    /// The lowest and highest lane that made it. Checks only ask whether a lane other than
    /// the asking one is among the lanes, which these two answer exactly.
    lo: u8,
    hi: u8,
    bits: u16,
}

const PRESENT: u16 = 1;
const WRITE: u16 = 2;
/// An atomic whose code is also a work-group-scope atomic's.
const NARROW: u16 = 4;
/// Operations of another scope compile to the same code.
const SHARED: u16 = 8;
const ATOMIC_SHIFT: u16 = 4;
const MAYBE_SHIFT: u16 = 7;
const SCOPES: [Scope; 5] = [Scope::WorkItem, Scope::Wavefront, Scope::Workgroup, Scope::Agent, Scope::System];

fn scope_code(s: Option<Scope>) -> u16 {
    s.map_or(0, |s| SCOPES.iter().position(|&x| x == s).map_or(0, |i| i as u16 + 1))
}

fn scope_of(code: u16) -> Option<Scope> {
    (code & 7).checked_sub(1).and_then(|i| SCOPES.get(usize::from(i)).copied())
}

/// What a record says of an access besides who and when.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Kind {
    pub write: bool,
    /// `None`: plain; else the atomic's scope.
    pub atomic: Option<Scope>,
    /// A plain access whose code is also a work-group-scope atomic's.
    pub maybe: Option<Scope>,
    pub narrow: bool,
    pub shared: bool,
}

impl Rec {
    pub fn new(wave: u32, clock: u32, at: u32, k: Kind) -> Rec {
        let bits = PRESENT
            | if k.write { WRITE } else { 0 }
            | if k.narrow { NARROW } else { 0 }
            | if k.shared { SHARED } else { 0 }
            | scope_code(k.atomic) << ATOMIC_SHIFT
            | scope_code(k.maybe) << MAYBE_SHIFT;
        Rec { wave, clock, at, lo: 0, hi: 0, bits }
    }

    /// This record made by the lanes `lanes` (not empty).
    pub fn by_lanes(mut self, lanes: u64) -> Rec {
        self.lo = lanes.trailing_zeros().min(63) as u8;
        self.hi = (63 - lanes.leading_zeros().min(63)) as u8;
        self
    }

    /// This record made by one lane.
    pub fn by_lane(mut self, lane: u32) -> Rec {
        self.lo = lane.min(63) as u8;
        self.hi = self.lo;
        self
    }

    pub fn present(&self) -> bool {
        self.bits & PRESENT != 0
    }
    pub fn write(&self) -> bool {
        self.bits & WRITE != 0
    }
    pub fn narrow(&self) -> bool {
        self.bits & NARROW != 0
    }
    pub fn shared(&self) -> bool {
        self.bits & SHARED != 0
    }
    pub fn atomic(&self) -> Option<Scope> {
        scope_of(self.bits >> ATOMIC_SHIFT)
    }
    pub fn maybe(&self) -> Option<Scope> {
        scope_of(self.bits >> MAYBE_SHIFT)
    }

    /// Whether a lane other than `lane` made it.
    pub fn other_lane_than(&self, lane: u32) -> bool {
        u32::from(self.lo) != lane || u32::from(self.hi) != lane
    }

    /// A lane that made it, other than `lane` if there is one.
    pub fn lane_besides(&self, lane: u32) -> u32 {
        if u32::from(self.lo) != lane {
            u32::from(self.lo)
        } else {
            u32::from(self.hi)
        }
    }

    /// The first lane that made it.
    pub fn first_lane(&self) -> u32 {
        u32::from(self.lo)
    }

    /// Add `other`'s lanes.
    fn add_lanes(&mut self, other: &Rec) {
        self.lo = self.lo.min(other.lo);
        self.hi = self.hi.max(other.hi);
    }

    /// Whether `newer`, by the same wave, may stand for this record: its lanes include this
    /// one's as far as checks can tell (some other lane than any asking lane, or the same
    /// single lane), and it is no earlier.
    fn covered_by(&self, newer: &Rec) -> bool {
        newer.lo != newer.hi || (self.lo == newer.lo && self.hi == newer.hi)
    }
}

/// One granule's shadow state (40 bytes, all zero when nothing touched it).
#[derive(Clone, Copy, Default)]
pub(super) struct Granule {
    pub write: Rec,
    /// The one read since `write`, while there is only one and `more` is 0.
    read: Rec,
    /// Index in [`Shadow::more`] of the reads since `write`, sorted by wave ([`add_read`]).
    more: u32,
    /// Index in [`Shadow::syncs`] of the release the last atomic write carries.
    sync: u32,
}

/// Granules per page of global memory.
const PAGE_GRANULES: usize = 1024;

/// Runs a page keeps before it is spelled out (checking a new run visits them all).
const MAX_RUNS: usize = 48;

/// Granules `start..start + len` of a page, touched for the first time by one instruction:
/// granule `start + i` by lane `rec`'s lane + i / `per_lane`.
#[derive(Clone, Copy, Debug)]
struct Run {
    start: u16,
    len: u16,
    per_lane: u16,
    rec: Rec,
}

/// A global page: first touches only, or a record per granule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Page {
    /// Index in [`Shadow::runs`].
    Runs(u32),
    /// Index in [`Shadow::pages`].
    Dense(u32),
}

/// A fresh touch of consecutive granules by consecutive lanes of one instruction.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sweep {
    /// The first granule (global address / 4).
    pub first: u64,
    pub granules: u64,
    /// Granules each lane touches.
    pub per_lane: u64,
    /// The record, by the first lane.
    pub rec: Rec,
}

/// Where a granule is: (page, slot).
pub(super) type At = (usize, usize);

impl Sweep {
    /// Its parts by page: (page, first slot, granules, granules before it in the sweep).
    fn pieces(self) -> impl Iterator<Item = (u64, u16, u16, u64)> {
        let end = self.first + self.granules;
        let mut g = self.first;
        std::iter::from_fn(move || {
            (g < end).then(|| {
                let page = g / PAGE_GRANULES as u64;
                let stop = end.min((page + 1) * PAGE_GRANULES as u64);
                let piece = (page, (g % PAGE_GRANULES as u64) as u16, (stop - g) as u16, g - self.first);
                g = stop;
                piece
            })
        })
    }
}

#[derive(Default)]
pub(super) struct Shadow {
    /// Global memory's pages by page number.
    index: HashMap<u64, Page, BuildHasherDefault<Mix>>,
    /// Records per granule: global pages and work-groups' LDS.
    pages: Vec<Vec<Granule>>,
    /// Global pages' first-touch runs; spelled-out pages leave an empty entry.
    runs: Vec<Vec<Run>>,
    /// The last global page found (accesses of one instruction are mostly within one page).
    last: Option<(u64, Page)>,
    /// Cleared pages of global memory's size, kept from an earlier dispatch.
    spare: Vec<Vec<Granule>>,
    /// LDS pages of ended work-groups, cleared, ready for the next group.
    free_lds: Vec<u32>,
    /// Granules' read lists (entry 0 unused) and the entries free for reuse.
    more: Vec<Vec<Rec>>,
    free_more: Vec<u32>,
    /// Granules' releases (entry 0 unused) and the entries free for reuse.
    syncs: Vec<Option<SyncRec>>,
    free_syncs: Vec<u32>,
}

impl Shadow {
    /// Forget everything (a new dispatch), keeping global pages' memory for reuse.
    pub fn reset(&mut self) {
        for mut p in self.pages.drain(..) {
            if p.len() == PAGE_GRANULES {
                p.fill(Granule::default());
                self.spare.push(p);
            }
        }
        self.index.clear();
        self.runs.clear();
        self.last = None;
        self.free_lds.clear();
        self.more.clear();
        self.free_more.clear();
        self.syncs.clear();
        self.free_syncs.clear();
    }

    /// The global page `page`, made (of runs) on first use.
    fn page(&mut self, page: u64) -> Page {
        if let Some((p, x)) = self.last {
            if p == page {
                return x;
            }
        }
        let next = Page::Runs(self.runs.len() as u32);
        let x = *self.index.entry(page).or_insert(next);
        if x == next {
            self.runs.push(Vec::new());
        }
        self.last = Some((page, x));
        x
    }

    /// The global granule `key` (address / 4), with its page spelled out.
    pub fn global(&mut self, key: u64) -> At {
        let (page, slot) = (key / PAGE_GRANULES as u64, (key % PAGE_GRANULES as u64) as usize);
        match self.page(page) {
            Page::Dense(i) => (i as usize, slot),
            Page::Runs(r) => (self.spell_out(page, r), slot),
        }
    }

    /// Turn page `page`'s runs (entry `r`) into records per granule.
    fn spell_out(&mut self, page: u64, r: u32) -> usize {
        let mut granules = self.spare.pop().unwrap_or_else(|| vec![Granule::default(); PAGE_GRANULES]);
        for run in std::mem::take(&mut self.runs[r as usize]) {
            let lane0 = run.rec.first_lane();
            for i in 0..run.len {
                let rec = run.rec.by_lane(lane0 + u32::from(i / run.per_lane.max(1)));
                let g = &mut granules[usize::from(run.start + i)];
                if rec.write() {
                    g.write = rec;
                } else {
                    g.read = rec;
                }
            }
        }
        self.pages.push(granules);
        let x = Page::Dense(self.pages.len() as u32 - 1);
        self.index.insert(page, x);
        self.last = Some((page, x));
        self.pages.len() - 1
    }

    /// Record `s` as runs if none of its granules was touched before, on pages still kept as
    /// runs; `false` (nothing recorded) otherwise.
    pub fn fresh(&mut self, s: &Sweep) -> bool {
        let s = *s;
        for (page, start, len, _) in s.pieces() {
            let Page::Runs(r) = self.page(page) else { return false };
            let runs = &self.runs[r as usize];
            if runs.len() >= MAX_RUNS || runs.iter().any(|x| start < x.start + x.len && x.start < start + len) {
                return false;
            }
        }
        let lane0 = s.rec.first_lane();
        for (page, start, len, offset) in s.pieces() {
            let Page::Runs(r) = self.page(page) else { continue };
            let rec = s.rec.by_lane(lane0 + (offset / s.per_lane.max(1)) as u32);
            // A lane split across pages starts the next page's run part-way through it.
            let skew = (offset % s.per_lane.max(1)) as u16;
            if skew == 0 {
                self.runs[r as usize].push(Run { start, len, per_lane: s.per_lane as u16, rec });
            } else {
                let head = (s.per_lane as u16 - skew).min(len);
                self.runs[r as usize].push(Run { start, len: head, per_lane: head, rec });
                if len > head {
                    let next = s.rec.by_lane(rec.first_lane() + 1);
                    self.runs[r as usize].push(Run { start: start + head, len: len - head, per_lane: s.per_lane as u16, rec: next });
                }
            }
        }
        true
    }

    /// A page for a work-group's LDS of `bytes` bytes.
    pub fn lds_page(&mut self, bytes: u32) -> u32 {
        if let Some(i) = self.free_lds.pop() {
            return i;
        }
        self.pages.push(vec![Granule::default(); (bytes as usize).div_ceil(4).max(1)]);
        self.pages.len() as u32 - 1
    }

    /// The work-group owning LDS page `page` ended: clear it for the next group.
    pub fn free_lds_page(&mut self, page: u32) {
        let Some(p) = self.pages.get_mut(page as usize) else { return };
        for g in p.iter_mut().filter(|g| g.more != 0 || g.sync != 0) {
            if g.more != 0 {
                self.more[g.more as usize].clear();
                self.free_more.push(g.more);
            }
            if g.sync != 0 {
                self.syncs[g.sync as usize] = None;
                self.free_syncs.push(g.sync);
            }
        }
        p.fill(Granule::default());
        self.free_lds.push(page);
    }

    /// Granule `slot` of LDS page `page`, if the LDS has it.
    pub fn lds(&self, page: u32, slot: u64) -> Option<At> {
        let p = self.pages.get(page as usize)?;
        (slot < p.len() as u64).then_some((page as usize, slot as usize))
    }

    pub fn granule(&self, at: At) -> &Granule {
        &self.pages[at.0][at.1]
    }

    /// The reads of `g` since its write.
    pub fn reads<'s>(&'s self, g: &'s Granule) -> &'s [Rec] {
        if g.more != 0 {
            &self.more[g.more as usize]
        } else if g.read.present() {
            std::slice::from_ref(&g.read)
        } else {
            &[]
        }
    }

    /// `now` writes the granule: it is the last write, with no reads since.
    pub fn set_write(&mut self, at: At, now: Rec) {
        let g = &mut self.pages[at.0][at.1];
        g.write = now;
        g.read = Rec::default();
        if g.more != 0 {
            self.more[g.more as usize].clear();
        }
    }

    pub fn add_read(&mut self, at: At, now: Rec) {
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
        if !g.read.present() {
            g.read = now;
            return;
        }
        let mut v = vec![std::mem::take(&mut g.read)];
        add_read(&mut v, now);
        g.more = take_slot(&mut self.more, &mut self.free_more, v);
    }

    pub fn take_sync(&mut self, at: At) -> Option<SyncRec> {
        match self.pages[at.0][at.1].sync {
            0 => None,
            i => self.syncs[i as usize].take(),
        }
    }

    pub fn put_sync(&mut self, at: At, rec: Option<SyncRec>) {
        let g = &mut self.pages[at.0][at.1];
        if g.sync != 0 {
            self.syncs[g.sync as usize] = rec;
        } else if rec.is_some() {
            g.sync = take_slot(&mut self.syncs, &mut self.free_syncs, rec);
        }
    }
}

/// Store `v` in a side table at a free entry (never 0) and return its index.
fn take_slot<T: Default>(table: &mut Vec<T>, free: &mut Vec<u32>, v: T) -> u32 {
    if let Some(i) = free.pop() {
        table[i as usize] = v;
        return i;
    }
    if table.is_empty() {
        table.push(T::default());
    }
    table.push(v);
    table.len() as u32 - 1
}

/// Record a read since the granule's last write. Reads are kept sorted by wave (found by
/// binary search: a widely read granule is read by every wave), at most two per wave: a
/// wave's newer read replaces an older one whose lanes it covers; a third is folded into the
/// older one (its lanes added, the later clock kept: stricter, so no race is missed).
fn add_read(reads: &mut Vec<Rec>, now: Rec) {
    let start = reads.partition_point(|r| r.wave < now.wave);
    let end = start + reads[start..].iter().take(2).take_while(|r| r.wave == now.wave).count();
    let mine = start..end;
    if let Some(i) = mine.clone().find(|&i| reads[i].clock == now.clock && reads[i].at == now.at) {
        reads[i].add_lanes(&now);
        return;
    }
    if let Some(i) = mine.clone().find(|&i| reads[i].covered_by(&now)) {
        reads[i] = now;
        return;
    }
    if mine.len() == 2 {
        let newer = reads[start + 1];
        let old = &mut reads[start];
        old.add_lanes(&newer);
        old.clock = old.clock.max(newer.clock);
        reads[start + 1] = now;
        return;
    }
    reads.insert(end, now);
}

/// A multiplicative hash for the shadow's integer keys (std's SipHash costs more than the
/// rest of an access's check).
#[derive(Default)]
pub(super) struct Mix(u64);

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_keep_what_they_are_told() {
        let k = Kind { write: true, atomic: Some(Scope::Agent), maybe: Some(Scope::Workgroup), narrow: true, shared: false };
        let r = Rec::new(7, 9, 0x40, k).by_lanes(0b1010_0000);
        assert!(r.present() && r.write() && r.narrow() && !r.shared());
        assert_eq!((r.atomic(), r.maybe()), (Some(Scope::Agent), Some(Scope::Workgroup)));
        assert_eq!((r.first_lane(), r.lane_besides(5), r.lane_besides(7)), (5, 7, 5));
        assert!(r.other_lane_than(5) && r.other_lane_than(7) && r.other_lane_than(0));
        let one = Rec::new(1, 1, 0, Kind::default()).by_lane(3);
        assert!(!one.other_lane_than(3) && one.other_lane_than(4));
        assert_eq!((one.atomic(), one.maybe()), (None, None));
        assert!(!Rec::default().present());
        assert_eq!(std::mem::size_of::<Rec>(), 16);
        assert_eq!(std::mem::size_of::<Granule>(), 40);
    }

    #[test]
    fn a_wave_keeps_at_most_two_reads_and_never_loses_a_lane() {
        let mut v = Vec::new();
        let r = |clock, lane| Rec::new(4, clock, clock * 4, Kind::default()).by_lane(lane);
        add_read(&mut v, r(1, 2));
        add_read(&mut v, r(2, 5));
        add_read(&mut v, r(3, 9));
        assert_eq!(v.len(), 2);
        // Lanes 2 and 5 folded: any asking lane sees another lane.
        assert!(v[0].other_lane_than(2) && v[0].other_lane_than(5));
        assert_eq!(v[0].clock, 2);
        // A multi-lane read stands for an older single-lane one.
        add_read(&mut v, Rec::new(4, 7, 0, Kind::default()).by_lanes(0b11));
        assert_eq!(v.len(), 2);
        assert!(v.iter().all(|x| x.clock >= 2));
    }
}

#[cfg(test)]
mod run_tests {
    use super::*;

    fn rec(write: bool) -> Rec {
        Rec::new(3, 5, 0x20, Kind { write, ..Kind::default() })
    }

    /// The record of global granule `key` once spelled out.
    fn spelled(s: &mut Shadow, key: u64) -> (Rec, Vec<Rec>) {
        let at = s.global(key);
        let g = *s.granule(at);
        (g.write, s.reads(&g).to_vec())
    }

    #[test]
    fn a_sweep_spelled_out_is_a_record_per_granule_by_its_lane() {
        let mut s = Shadow::default();
        // Lanes 4..12, 8 bytes each, starting 6 granules before a page boundary: the lane
        // at the boundary is split across two pages.
        let first = PAGE_GRANULES as u64 * 7 - 5;
        assert!(s.fresh(&Sweep { first, granules: 16, per_lane: 2, rec: rec(true).by_lane(4) }));
        for i in 0..16u64 {
            let (w, reads) = spelled(&mut s, first + i);
            assert!(w.present() && w.write() && reads.is_empty(), "granule {i}");
            assert_eq!(w.first_lane(), 4 + (i / 2) as u32, "granule {i}");
            assert!(!w.other_lane_than(4 + (i / 2) as u32), "granule {i}: one lane");
        }
        let (w, _) = spelled(&mut s, first + 16);
        assert!(!w.present(), "past the sweep");
    }

    #[test]
    fn a_sweep_over_touched_granules_is_refused_and_records_nothing() {
        let mut s = Shadow::default();
        assert!(s.fresh(&Sweep { first: 100, granules: 64, per_lane: 1, rec: rec(false) }));
        assert!(!s.fresh(&Sweep { first: 163, granules: 8, per_lane: 1, rec: rec(true) }), "overlaps the first");
        assert!(s.fresh(&Sweep { first: 164, granules: 8, per_lane: 1, rec: rec(true) }), "next to it");
        let (w, reads) = spelled(&mut s, 163);
        assert!(!w.present() && reads.len() == 1 && reads[0].first_lane() == 63);
        // A spelled-out page takes no more sweeps.
        assert!(!s.fresh(&Sweep { first: 300, granules: 4, per_lane: 1, rec: rec(true) }));
    }
}
