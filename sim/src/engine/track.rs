//! What the waves of a parallel worker touch ([`super::par`]): every global-memory access as
//! a byte range tagged with the wave that made it, and every LDS access checked on the spot
//! against the other waves of its work-group between the same two barriers.
//!
//! Global ranges are kept as a log (consecutive accesses of a wave that extend the previous
//! range of the same direction are merged into it, so a coalesced instruction costs one
//! entry, and ranges of one length at a constant distance — a loop over an array of
//! structures, lanes that store one field each — are one strided entry) and compared across
//! all workers when the dispatch ends ([`super::spans`]). Both keep the exact bytes: a
//! strided entry covers its elements, not the gaps between them. LDS is
//! private to a work-group, so its check needs no log: a shadow word per LDS dword remembers
//! which wave last wrote it and which read it, in which barrier interval (an *epoch*: the
//! group's barrier releases so far). Two waves' accesses to one dword in the same epoch, one
//! of them a write, are a race whose outcome depends on the interleaving: the worker stops
//! and the dispatch runs on the sequential engine.
//!
//! Both checks run on every memory instruction of a parallel worker, so they take whole
//! instructions: a coalesced access (each active lane's range starting at or before the
//! previous lane's end) is one range found without a per-lane merge, and an instruction's
//! LDS lanes are checked in one call with one stamp comparison per dword.

use crate::exec::{Dir, MemPort};
use crate::memory::{Memory, Unmapped};
use std::cell::{Cell, RefCell};

/// Byte ranges of global memory a wave read or wrote: `count` elements, element `k` being
/// `lo + k * stride .. hi + k * stride` (one range `lo..hi` when `count` is 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Span {
    pub lo: u64,
    pub hi: u64,
    /// The wave's index in the dispatch (the order waves are created in).
    pub agent: u32,
    pub write: bool,
    /// Bytes from one element's start to the next's (at least `hi - lo`; 0 when `count` is 1).
    pub stride: u32,
    /// Elements, at least 1 (0: no span, in the tracker's open slots).
    pub count: u32,
}

impl Span {
    /// One range `lo..hi`.
    pub fn range(lo: u64, hi: u64, agent: u32, write: bool) -> Span {
        Span { lo, hi, agent, write, stride: 0, count: 1 }
    }

    /// The end of the last element.
    pub fn end(&self) -> u64 {
        self.hi.saturating_add(u64::from(self.count.saturating_sub(1)) * u64::from(self.stride))
    }

    /// Element `k`'s range.
    pub fn element(&self, k: u32) -> (u64, u64) {
        let at = u64::from(k) * u64::from(self.stride);
        (self.lo.saturating_add(at), self.hi.saturating_add(at))
    }

    /// Whether some element shares a byte with `lo..hi`.
    pub fn overlaps(&self, lo: u64, hi: u64) -> bool {
        if hi <= self.lo || lo >= self.end() {
            return false;
        }
        if self.count <= 1 || self.stride == 0 {
            return true;
        }
        // Element k overlaps when self.lo + k*stride < hi and self.hi + k*stride > lo.
        let stride = u64::from(self.stride);
        let first = if lo < self.hi { 0 } else { (lo - self.hi) / stride + 1 };
        let last = ((hi - self.lo - 1) / stride).min(u64::from(self.count) - 1);
        first <= last
    }

    /// `self` followed by `next` (same wave, direction and length) as one strided span.
    fn extended_by(&self, next: &Span) -> Option<Span> {
        if self.agent != next.agent || self.hi - self.lo != next.hi - next.lo || self.count == u32::MAX {
            return None;
        }
        if self.count == 1 {
            // Elements that do not overlap, in ascending order.
            let stride = u32::try_from(next.lo.checked_sub(self.lo)?).ok()?;
            return (next.lo >= self.hi).then_some(Span { stride, count: 2, ..*self });
        }
        (next.lo == self.element(self.count).0).then_some(Span { count: self.count + 1, ..*self })
    }
}

/// An empty slot of the tracker's open spans.
const NO_SPAN: Span = Span { lo: 0, hi: 0, agent: NONE, write: false, stride: 0, count: 0 };

/// No wave (an open span slot nobody filled).
const NONE: u32 = u32::MAX;
/// Bits of an LDS stamp that hold the wave's index in its group ([`Shadow`]).
const WAVE_BITS: u32 = 6;
/// The wave part of a read stamp when several waves read the word in its epoch; waves of a
/// group are numbered below it ([`MAX_GROUP_WAVES`]).
const MANY: u32 = (1 << WAVE_BITS) - 1;
/// The most waves a work-group may have for its LDS to be checked here: the parallel engine
/// runs larger groups sequentially (none exist: 1024 work-items are 32 waves of 32).
pub(super) const MAX_GROUP_WAVES: u32 = MANY;
/// The last epoch a stamp can hold.
const LAST_EPOCH: u32 = u32::MAX >> WAVE_BITS;

/// The shadow of the LDS, a pair of stamps per dword: who last wrote it and who read it, as
/// `epoch << WAVE_BITS | wave` where `epoch` counts every group start and barrier release of
/// the worker (from 1: a zero stamp is "never"). A stamp of the running epoch is at least
/// `epoch << WAVE_BITS`, and one of any earlier epoch or group is below it, so nothing is
/// cleared between groups and one comparison tells whether an access is of this epoch. Two
/// arrays of 32-bit stamps, so that a run of dwords is checked in vector registers.
#[derive(Debug, Clone, Default)]
struct Shadow {
    write: Vec<u32>,
    read: Vec<u32>,
}

/// Ranges a wave keeps open per direction: an access that touches one of them extends it, so
/// that a loop reading a few arrays (a filter's coefficients and its input) keeps one entry
/// per array. // assumed: 4 covers the loops of the kernels measured (fir, n-body); more
/// costs every access a longer look.
const OPEN: usize = 4;

/// A wave's spans that may still grow, per direction (read, write).
type Slot = [Stream; 2];

/// A wave's ranges of one direction that may still grow: the last [`OPEN`] ranges, which the
/// next access may extend, and before them a strided run, which the oldest may continue.
#[derive(Debug, Clone, Copy)]
struct Stream {
    open: [Span; OPEN],
    /// The oldest of `open` (the next to make room).
    next: usize,
    run: Span,
}

const NO_STREAM: Stream = Stream { open: [NO_SPAN; OPEN], next: 0, run: NO_SPAN };

impl Stream {
    /// `done` grows no more: it continues the strided run, or the run is returned (for the
    /// log) and `done` starts the next one.
    fn retire(&mut self, done: Span) -> Option<Span> {
        if done.count == 0 {
            return None;
        }
        if let Some(longer) = (self.run.count > 0).then(|| self.run.extended_by(&done)).flatten() {
            self.run = longer;
            return None;
        }
        let old = std::mem::replace(&mut self.run, done);
        (old.count > 0).then_some(old)
    }

    /// Everything, oldest first, for the log; the stream is empty after.
    fn drain(&mut self, log: &mut Log) {
        for i in 0..OPEN {
            let done = std::mem::replace(&mut self.open[(self.next + i) % OPEN], NO_SPAN);
            if let Some(full) = self.retire(done) {
                log.push(full);
            }
        }
        if self.run.count > 0 {
            log.push(self.run);
        }
        *self = NO_STREAM;
    }
}

/// The agent of a read span that several waves made (each read exactly those bytes): any
/// wave's write into them is another wave's too, so it conflicts with every write, as the
/// separate spans would.
pub(super) const SHARED_READ: u32 = u32::MAX - 1;

/// Ranges read that the log keeps aside to find other waves reading exactly them (a kernel's
/// arguments, read by every wave). // assumed: a few more than the argument ranges of the
/// kernels measured (fir, relu, matrixtranspose: up to 3 after merging); a longer look costs
/// every read that retires.
const SHARED: usize = 8;

/// A worker's spans: `spans`, and beside them reads that may be shared ([`SHARED_READ`]).
#[derive(Debug, Default)]
struct Log {
    spans: Vec<Span>,
    shared: Vec<Span>,
    /// The next entry of `shared` to look at for eviction.
    cursor: usize,
}

impl Log {
    /// Add `s`; a plain read of bytes another wave read exactly is folded into one entry.
    #[inline]
    fn push(&mut self, s: Span) {
        if s.write || s.count != 1 {
            self.spans.push(s);
            return;
        }
        if let Some(e) = self.shared.iter_mut().find(|e| e.lo == s.lo && e.hi == s.hi) {
            if e.agent != s.agent {
                e.agent = SHARED_READ;
            }
            return;
        }
        if self.shared.len() < SHARED {
            self.shared.push(s);
            return;
        }
        // Make room by sending a range one wave read to the log (shared ones are the point).
        for k in 0..SHARED {
            let i = (self.cursor + k) % SHARED;
            if self.shared[i].agent != SHARED_READ {
                self.cursor = (i + 1) % SHARED;
                let old = std::mem::replace(&mut self.shared[i], s);
                self.spans.push(old);
                return;
            }
        }
        self.spans.push(s);
    }

    fn len(&self) -> usize {
        self.spans.len() + self.shared.len()
    }
}

/// The memory port of a parallel worker: memory directly, plus the log and the LDS check.
pub(super) struct Tracker {
    /// The wave running: its index in the dispatch and in its group.
    agent: Cell<u32>,
    wave: Cell<u32>,
    log: RefCell<Log>,
    /// Per wave of the running group (by its index in the group), the spans that may still
    /// grow; they go to the log when they can grow no more.
    slots: RefCell<Vec<Slot>>,
    lds: RefCell<Shadow>,
    /// The running epoch (see [`Shadow`]).
    epoch: Cell<u32>,
    raced: Cell<bool>,
}

impl Tracker {
    /// A tracker for work-groups of `lds_bytes` bytes of LDS.
    pub fn new(lds_bytes: u32) -> Tracker {
        Tracker {
            agent: Cell::new(0),
            wave: Cell::new(0),
            log: RefCell::new(Log::default()),
            slots: RefCell::new(Vec::new()),
            lds: RefCell::new({
                let dwords = (lds_bytes as usize).div_ceil(4);
                Shadow { write: vec![0; dwords], read: vec![0; dwords] }
            }),
            epoch: Cell::new(0),
            raced: Cell::new(false),
        }
    }

    /// A new work-group starts (its LDS untouched: a new epoch).
    pub fn start_group(&self) {
        self.next_epoch();
    }

    /// The running group's barrier released.
    pub fn next_epoch(&self) {
        let e = self.epoch.get();
        if e >= LAST_EPOCH {
            // Stamps of 2^26 epochs ago would look current: forget them all (a dispatch of
            // that many groups and barriers on one worker).
            let mut shadow = self.lds.borrow_mut();
            shadow.write.fill(0);
            shadow.read.fill(0);
            self.epoch.set(1);
        } else {
            self.epoch.set(e + 1);
        }
    }

    /// Wave `agent` of the dispatch, `wave` of its group, runs next.
    pub fn set_wave(&self, agent: u32, wave: u32) {
        self.agent.set(agent);
        self.wave.set(wave);
    }

    /// Whether two waves of a group raced on LDS.
    pub fn raced(&self) -> bool {
        self.raced.get()
    }

    pub fn into_log(self) -> Vec<Span> {
        self.flush();
        let log = self.log.into_inner();
        let mut spans = log.spans;
        spans.extend(log.shared);
        spans
    }

    /// Entries in the log so far.
    pub fn log_len(&self) -> usize {
        self.log.borrow().len()
    }

    /// `f` of the log so far (the open spans included).
    pub fn with_log<R>(&self, f: impl FnOnce(&[Span]) -> R) -> R {
        self.flush();
        let mut log = self.log.borrow_mut();
        let n = log.spans.len();
        let Log { spans, shared, .. } = &mut *log;
        spans.extend_from_slice(shared);
        let r = f(spans);
        spans.truncate(n);
        r
    }

    /// Move every wave's open spans to the log.
    fn flush(&self) {
        let mut log = self.log.borrow_mut();
        for stream in self.slots.borrow_mut().iter_mut().flatten() {
            stream.drain(&mut log);
        }
    }

    /// Log an access of `n` bytes at `lo`.
    #[inline]
    fn note(&self, lo: u64, n: u64, write: bool) {
        let (hi, agent, d) = (lo.saturating_add(n), self.agent.get(), usize::from(write));
        let mut slots = self.slots.borrow_mut();
        let w = self.wave.get() as usize;
        if slots.len() <= w {
            slots.resize(w + 1, [NO_STREAM; 2]);
        }
        let stream = &mut slots[w][d];
        let touches = |o: &Span, lo: u64, hi: u64| o.count > 0 && o.agent == agent && lo <= o.hi && hi >= o.lo;
        if let Some(i) = stream.open.iter().position(|o| touches(o, lo, hi)) {
            // Overlapping or touching (a filter's taps read the same range shifted by one
            // element per instruction; a structure's fields read one by one): one range.
            let o = &mut stream.open[i];
            (o.lo, o.hi) = (o.lo.min(lo), o.hi.max(hi));
            let (lo, hi) = (o.lo, o.hi);
            // It may now touch another open range (fields read out of order: n-body's z, then
            // x, then y, which joins them) — one range then, or every structure would leave
            // two spans of unequal lengths that no strided run takes.
            if let Some(j) = (0..OPEN).find(|&j| j != i && touches(&stream.open[j], lo, hi)) {
                let other = std::mem::replace(&mut stream.open[j], NO_SPAN);
                let o = &mut stream.open[i];
                (o.lo, o.hi) = (lo.min(other.lo), hi.max(other.hi));
            }
            return;
        }
        // A new range in place of the oldest, which grows no more (a range of a wave of an
        // earlier group in this slot: it joins no run of this wave, `extended_by` compares
        // the waves).
        let i = stream.next;
        stream.next = (i + 1) % OPEN;
        let done = std::mem::replace(&mut stream.open[i], Span::range(lo, hi, agent, write));
        if let Some(full) = stream.retire(done) {
            self.log.borrow_mut().push(full);
        }
    }

    /// Check an LDS access against the group's other waves in this epoch, and record it.
    fn lds_note(&self, offset: u32, bytes: u32, write: bool) {
        let mut shadow = self.lds.borrow_mut();
        if self.lds_check(&mut shadow, offset, bytes, write) {
            self.raced.set(true);
        }
    }

    /// [`Tracker::lds_note`] on a borrowed shadow; whether the access raced.
    #[inline(always)]
    fn lds_check(&self, shadow: &mut Shadow, offset: u32, bytes: u32, write: bool) -> bool {
        let now = self.epoch.get() << WAVE_BITS;
        let me = now | self.wave.get().min(MANY - 1);
        // Another wave's stamp of this epoch.
        let other = |stamp: u32| u32::from(stamp >= now && stamp != me);
        let first = offset as usize / 4;
        let end = (offset as usize + bytes.max(1) as usize).div_ceil(4).min(shadow.write.len());
        let (Some(ws), Some(rs)) = (shadow.write.get_mut(first..end), shadow.read.get_mut(first..end)) else { return false };
        let mut race = 0;
        // Branch-free bodies over the run: the compiler vectorises them.
        if write {
            for (w, r) in ws.iter_mut().zip(rs.iter()) {
                race |= other(*w) | other(*r);
                *w = me;
            }
        } else {
            for (w, r) in ws.iter().zip(rs.iter_mut()) {
                race |= other(*w);
                *r = if other(*r) != 0 { now | MANY } else { me };
            }
        }
        race != 0
    }
}

/// Whether every active lane's `bytes`-byte range starts within the previous lane's (or
/// right at its end): then the lanes' union is `addrs[first]..addrs[last] + bytes`, with no
/// gap. A full EXEC first tries the two shapes nearly every access has — lanes `bytes` apart
/// (coalesced) or all at one address (uniform) — with exact comparisons that the compiler
/// vectorises, before the lane-by-lane test.
#[inline]
fn gapless<T: Copy + Into<u64>>(lanes: u64, addrs: &[T; crate::wave::MAX_LANES], bytes: u64) -> bool {
    if lanes == u64::MAX {
        let a0: u64 = addrs[0].into();
        let (mut coalesced, mut uniform, mut next) = (0u64, 0u64, a0);
        for &a in addrs {
            let a: u64 = a.into();
            coalesced |= a ^ next;
            uniform |= a ^ a0;
            next = next.wrapping_add(bytes);
        }
        if coalesced == 0 || uniform == 0 {
            return true;
        }
    }
    let mut m = lanes;
    let mut prev: Option<u64> = None;
    while m != 0 {
        let a: u64 = addrs[m.trailing_zeros() as usize % crate::wave::MAX_LANES].into();
        m &= m - 1;
        if prev.is_some_and(|p| a.wrapping_sub(p) > bytes) {
            return false;
        }
        prev = Some(a);
    }
    true
}

/// The first and last active lanes' entries (`lanes` not empty).
#[inline]
fn ends<T: Copy>(lanes: u64, addrs: &[T; crate::wave::MAX_LANES]) -> (T, T) {
    let last = 63 - lanes.leading_zeros() as usize;
    (addrs[lanes.trailing_zeros() as usize % crate::wave::MAX_LANES], addrs[last % crate::wave::MAX_LANES])
}

impl MemPort for Tracker {
    fn read(&self, mem: &Memory, _lane: u32, address: u64, out: &mut [u8]) -> Result<(), Unmapped> {
        mem.read(address, out)?;
        self.note(address, out.len() as u64, false);
        Ok(())
    }

    fn write(&self, mem: &mut Memory, _lane: u32, address: u64, bytes: &[u8]) -> Result<(), Unmapped> {
        mem.write(address, bytes)?;
        self.note(address, bytes.len() as u64, true);
        Ok(())
    }

    fn lds_access(&self, _lane: u32, offset: u32, bytes: u32, dir: Dir) {
        self.lds_note(offset, bytes, dir == Dir::Write);
    }

    fn watches_only(&self) -> bool {
        true
    }

    /// Lanes whose ranges continue or overlap the run so far are logged as one range (a
    /// coalesced access is one entry, noted once; lanes that read one address, a uniform
    /// operand, are one note, not one per lane).
    fn moved(&self, lanes: u64, addrs: &[u64; crate::wave::MAX_LANES], bytes: u32, dir: Dir) {
        let (n, write) = (u64::from(bytes), dir == Dir::Write);
        if lanes != 0 && gapless(lanes, addrs, n) {
            // The common case, without the per-lane merge: the same bytes as the loop below
            // (lanes that wrapped around the address space take the loop).
            let (first, last) = ends(lanes, addrs);
            if last >= first {
                self.note(first, last.saturating_add(n) - first, write);
                return;
            }
        }
        let mut run: Option<(u64, u64)> = None;
        let mut m = lanes;
        while m != 0 {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            let (a, end) = (addrs[lane], addrs[lane].saturating_add(n));
            run = match run {
                // Touching or overlapping: the union is one range with no gap.
                Some((lo, hi)) if a <= hi && end >= lo => Some((lo.min(a), hi.max(end))),
                Some((lo, hi)) => {
                    self.note(lo, hi - lo, write);
                    Some((a, end))
                }
                None => Some((a, end)),
            };
        }
        if let Some((lo, hi)) = run {
            self.note(lo, hi - lo, write);
        }
    }

    /// An instruction's LDS lanes checked in one borrow of the shadow.
    fn lds_moved(&self, lanes: u64, offsets: &[u32; crate::wave::MAX_LANES], bytes: u32, dir: Dir) {
        let mut shadow = self.lds.borrow_mut();
        let write = dir == Dir::Write;
        if lanes != 0 && gapless(lanes, offsets, u64::from(bytes)) {
            // One range (the lanes are one wave: a dword two lanes touch is that wave's both
            // times, as in the loop below).
            let (first, last) = ends(lanes, offsets);
            if let Some(span) = last.checked_sub(first).and_then(|d| d.checked_add(bytes.max(1))) {
                if self.lds_check(&mut shadow, first, span, write) {
                    self.raced.set(true);
                }
                return;
            }
        }
        let race = match bytes {
            4 => self.lds_lanes::<1>(&mut shadow, lanes, offsets, write),
            8 => self.lds_lanes::<2>(&mut shadow, lanes, offsets, write),
            16 => self.lds_lanes::<4>(&mut shadow, lanes, offsets, write),
            _ => {
                let mut race = false;
                let mut m = lanes;
                while m != 0 {
                    let lane = m.trailing_zeros() as usize % crate::wave::MAX_LANES;
                    m &= m - 1;
                    race |= self.lds_check(&mut shadow, offsets[lane], bytes, write);
                }
                race
            }
        };
        if race {
            self.raced.set(true);
        }
    }
}

impl Tracker {
    /// [`MemPort::lds_moved`] of `D` dwords a lane: a lane at a dword boundary checks a block
    /// of fixed size (unrolled, in vector registers); others, and blocks past the end, take
    /// [`Tracker::lds_check`], which gives the same answer.
    #[inline(always)]
    fn lds_lanes<const D: usize>(&self, shadow: &mut Shadow, lanes: u64, offsets: &[u32; crate::wave::MAX_LANES], write: bool) -> bool {
        let now = self.epoch.get() << WAVE_BITS;
        let me = now | self.wave.get().min(MANY - 1);
        let other = |stamp: u32| u32::from(stamp >= now && stamp != me);
        let mut race = 0u32;
        let mut m = lanes;
        while m != 0 {
            let lane = m.trailing_zeros() as usize % crate::wave::MAX_LANES;
            m &= m - 1;
            let (offset, first) = (offsets[lane], offsets[lane] as usize / 4);
            let block = match (offset % 4 == 0, shadow.write.get_mut(first..first + D), shadow.read.get_mut(first..first + D)) {
                (true, Some(ws), Some(rs)) => <&mut [u32; D]>::try_from(ws).ok().zip(<&mut [u32; D]>::try_from(rs).ok()),
                _ => None,
            };
            let Some((ws, rs)) = block else {
                race |= u32::from(self.lds_check(shadow, offset, 4 * D as u32, write));
                continue;
            };
            for k in 0..D {
                if write {
                    race |= other(ws[k]) | other(rs[k]);
                    ws[k] = me;
                } else {
                    race |= other(ws[k]);
                    rs[k] = if other(rs[k]) != 0 { now | MANY } else { me };
                }
            }
        }
        race != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_waves_consecutive_accesses_merge_and_other_waves_get_entries_of_their_own() {
        let t = Tracker::new(0);
        t.set_wave(3, 0);
        t.note(100, 4, false);
        t.note(104, 4, false);
        t.note(200, 4, true);
        t.note(108, 8, false);
        t.note(96, 8, false);
        t.set_wave(4, 1);
        t.note(116, 4, false);
        let mut log = t.into_log();
        log.sort_by_key(|s| (s.lo, s.agent));
        assert_eq!(log, [Span::range(96, 116, 3, false), Span::range(116, 120, 4, false), Span::range(200, 204, 3, true)]);
    }

    #[test]
    fn one_range_read_by_several_waves_is_one_shared_entry() {
        let t = Tracker::new(0);
        for wave in 0..5 {
            t.set_wave(10 + wave, wave);
            // The kernel's arguments, then the wave's own element.
            t.note(0, 16, false);
            t.note(1000 + 4 * u64::from(wave), 4, false);
            t.note(2000 + 4 * u64::from(wave), 4, true);
        }
        let log = t.into_log();
        let args: Vec<&Span> = log.iter().filter(|s| s.lo == 0).collect();
        assert_eq!(args, [&Span::range(0, 16, SHARED_READ, false)], "{log:?}");
        for wave in 0..5u32 {
            let own = Span::range(1000 + 4 * u64::from(wave), 1004 + 4 * u64::from(wave), 10 + wave, false);
            assert!(log.contains(&own), "wave {wave}'s own read stays its own: {log:?}");
        }
        // One wave reading a range twice keeps it its own.
        let t = Tracker::new(0);
        t.set_wave(3, 0);
        t.note(0, 16, false);
        t.set_wave(4, 1);
        t.note(64, 4, false);
        t.set_wave(3, 0);
        t.note(0, 16, false);
        let log = t.into_log();
        assert!(log.contains(&Span::range(0, 16, 3, false)), "{log:?}");
    }

    #[test]
    fn fields_read_out_of_order_join_into_one_strided_span() {
        let t = Tracker::new(0);
        t.set_wave(7, 0);
        // n-body's scalar loads per 24-byte body: z (offset 8), then x and y (0 and 4).
        for j in 0..6u64 {
            for (at, n) in [(8, 4), (0, 4), (4, 4)] {
                t.note(1000 + 24 * j + at, n, false);
            }
        }
        let log = t.into_log();
        assert_eq!(log, vec![Span { lo: 1000, hi: 1012, agent: 7, write: false, stride: 24, count: 6 }]);
    }

    #[test]
    fn ranges_of_one_length_at_one_distance_are_one_strided_span_of_their_bytes() {
        let t = Tracker::new(0);
        // Two waves of a group, interleaved, each loop over 24-byte structures reading the
        // first 8 bytes, then the next 4 (one 12-byte element per structure).
        for j in 0..5u64 {
            for (agent, wave) in [(7, 0), (8, 1)] {
                t.set_wave(agent, wave);
                t.note(1000 + 24 * j, 8, false);
                t.note(1008 + 24 * j, 4, false);
            }
        }
        // A range of another length ends the run; a descending one is not strided.
        t.set_wave(7, 0);
        t.note(5000, 4, false);
        t.note(4000, 4, false);
        let log = t.into_log();
        let strided = Span { lo: 1000, hi: 1012, agent: 7, write: false, stride: 24, count: 5 };
        assert!(log.contains(&strided), "{log:?}");
        assert!(log.contains(&Span { agent: 8, ..strided }), "{log:?}");
        assert!(log.contains(&Span::range(5000, 5004, 7, false)) && log.contains(&Span::range(4000, 4004, 7, false)), "{log:?}");
        assert_eq!(log.len(), 4, "{log:?}");
        assert_eq!(strided.end(), 1000 + 24 * 4 + 12);
        assert!(strided.overlaps(1011, 1012) && !strided.overlaps(1012, 1024) && strided.overlaps(1023, 1025));
    }

    #[test]
    fn whole_instruction_lds_checks_agree_with_lane_by_lane_ones() {
        // Seeded instructions of two waves (contiguous, strided, uniform, unaligned and
        // out-of-range lanes; 4 to 16 bytes; some lanes off), with barriers between some:
        // the bulk check must flag a race exactly when the per-lane one does.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut raced = 0;
        for case in 0..300 {
            let (bulk, lane) = (Tracker::new(1024), Tracker::new(1024));
            for t in [&bulk, &lane] {
                t.start_group();
            }
            for _ in 0..(1 + case % 6) {
                let wave = (next() % 2) as u32;
                let bytes = [4u32, 8, 12, 16][(next() % 4) as usize];
                let (base, stride) = ((next() % 1100) as u32, [0u32, 4, 8, 16, 20, 68][(next() % 6) as usize]);
                let offsets: [u32; crate::wave::MAX_LANES] = std::array::from_fn(|l| base.wrapping_add(stride * l as u32));
                let lanes = if next() % 3 == 0 { next() } else { u64::MAX };
                let dir = if next() % 2 == 0 { Dir::Read } else { Dir::Write };
                for t in [&bulk, &lane] {
                    t.set_wave(wave, wave);
                }
                bulk.lds_moved(lanes, &offsets, bytes, dir);
                (0..64).filter(|l| lanes >> l & 1 != 0).for_each(|l| lane.lds_note(offsets[l], bytes, dir == Dir::Write));
                assert_eq!(bulk.raced(), lane.raced(), "case {case}: {bytes} bytes from {base} stride {stride} lanes {lanes:#x} {dir:?}");
                if next() % 4 == 0 {
                    bulk.next_epoch();
                    lane.next_epoch();
                }
            }
            raced += usize::from(lane.raced());
        }
        // Both answers occur, or the comparison says little.
        assert!((30..270).contains(&raced), "{raced} of 300 cases raced");
    }

    #[test]
    fn lds_accesses_of_two_waves_race_only_within_one_epoch() {
        let t = Tracker::new(64);
        t.start_group();
        t.set_wave(0, 0);
        t.lds_note(0, 4, true);
        t.set_wave(1, 1);
        t.lds_note(4, 4, false);
        t.lds_note(8, 4, true);
        assert!(!t.raced(), "different dwords");
        t.next_epoch();
        t.lds_note(0, 4, false);
        t.set_wave(0, 0);
        t.lds_note(0, 4, false);
        assert!(!t.raced(), "a write read after a barrier, by two waves");
        t.lds_note(8, 4, true);
        assert!(!t.raced(), "written in an earlier epoch by the other wave");
        t.set_wave(1, 1);
        t.lds_note(8, 2, false);
        assert!(t.raced(), "wave 1 reads what wave 0 wrote in the same epoch");
        // A new group: nothing of the last one counts.
        let t = Tracker::new(64);
        t.start_group();
        t.set_wave(0, 0);
        t.lds_note(0, 4, true);
        t.start_group();
        t.set_wave(1, 1);
        t.lds_note(0, 4, true);
        assert!(!t.raced());
        t.set_wave(0, 0);
        t.lds_note(2, 1, false);
        assert!(t.raced(), "a read after another wave's write in one epoch");
    }
}
