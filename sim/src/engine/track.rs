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
//! private to a work-group, so its check needs no log: each wave marks the LDS dwords it
//! touches between two barriers, and the marks are compared when the barrier releases
//! ([`super::lds_check`]); two waves' accesses to one dword in that interval, one of them a
//! write, are a race whose outcome depends on the interleaving: the worker stops and the
//! dispatch runs on the sequential engine.
//!
//! Both checks run on every memory instruction of a parallel worker, so they take whole
//! instructions: a coalesced access (each active lane's range starting at or before the
//! previous lane's end) is one range found without a per-lane merge, and an instruction's
//! LDS lanes are marked in one call.

use super::lds_check::LdsCheck;
use crate::exec::vmem::{segmented, SEGMENT_LANES};
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
/// The most waves a work-group may have for its LDS to be checked here (a wave's index in its
/// group fits six bits; the parallel engine runs larger groups sequentially, and none exist:
/// 1024 work-items are 32 waves of 32).
pub(super) const MAX_GROUP_WAVES: u32 = 63;

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
    lds: RefCell<LdsCheck>,
    /// Two waves of a group raced on LDS (known when their epoch ended).
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
            lds: RefCell::new(LdsCheck::new(lds_bytes)),
            raced: Cell::new(false),
        }
    }

    /// A new work-group starts (its LDS untouched: a new epoch).
    pub fn start_group(&self) {
        self.next_epoch();
    }

    /// The running group's barrier released, or the group ended: its LDS accesses since the
    /// last barrier are compared ([`Tracker::raced`] says the outcome).
    pub fn next_epoch(&self) {
        if self.lds.borrow_mut().end_epoch() {
            self.raced.set(true);
        }
    }

    /// Wave `agent` of the dispatch, `wave` of its group, runs next.
    pub fn set_wave(&self, agent: u32, wave: u32) {
        self.agent.set(agent);
        self.wave.set(wave);
    }

    /// Whether two waves of a group raced on LDS in an epoch that ended.
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

    /// Mark an LDS access of the running wave.
    fn lds_note(&self, offset: u32, bytes: u32, write: bool) {
        let (first, end) = (offset as usize / 4, (offset as usize + bytes.max(1) as usize).div_ceil(4));
        self.lds.borrow_mut().mark(self.wave.get() as usize, first, end, write);
    }
}

/// Whether every active lane's `bytes`-byte range starts within the previous lane's (or
/// right at its end): then the lanes' union is `addrs[first]..addrs[last] + bytes`, with no
/// gap. A full EXEC first compares its ends, then tries the two shapes nearly every access
/// has, before the lane-by-lane test.
#[inline]
fn gapless<T: Copy + Into<u64>>(lanes: u64, addrs: &[T; crate::wave::MAX_LANES], bytes: u64) -> bool {
    if lanes == u64::MAX {
        // Lanes each at most `bytes` past the previous one span at most 63 times that (the
        // wrapping differences then add up without wrapping): rows of a tile, strided and
        // scattered lanes fail here at once.
        let (a0, a63): (u64, u64) = (addrs[0].into(), addrs[crate::wave::MAX_LANES - 1].into());
        if a63.wrapping_sub(a0) > bytes.saturating_mul(crate::wave::MAX_LANES as u64 - 1) {
            return false;
        }
        // The two shapes nearly every access has — lanes `bytes` apart (coalesced) or all at
        // one address (uniform) — with exact comparisons that the compiler vectorises.
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
        if lanes == u64::MAX && segmented(addrs, n) {
            // Rows of consecutive lanes (a 16 x 16 tile's four rows in a wave64, which the bulk
            // path moved row by row): one range a row, the bytes the merge below finds.
            for first in (0..crate::wave::MAX_LANES).step_by(SEGMENT_LANES) {
                self.note(addrs[first], n * SEGMENT_LANES as u64, write);
            }
            return;
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

    /// An instruction's LDS lanes marked in one borrow of the check.
    fn lds_moved(&self, lanes: u64, offsets: &[u32; crate::wave::MAX_LANES], bytes: u32, dir: Dir) {
        let write = dir == Dir::Write;
        if lanes != 0 && gapless(lanes, offsets, u64::from(bytes)) {
            // One range (the lanes are one wave's).
            let (first, last) = ends(lanes, offsets);
            if let Some(span) = last.checked_sub(first).and_then(|d| d.checked_add(bytes.max(1))) {
                self.lds_note(first, span, write);
                return;
            }
        }
        if lanes == u64::MAX {
            let wide: [u64; crate::wave::MAX_LANES] = std::array::from_fn(|l| u64::from(offsets[l]));
            if segmented(&wide, u64::from(bytes)) {
                // Rows of consecutive lanes (a tile's rows written into LDS): one range a row,
                // the dwords the lanes mark one by one, set a bitmap word at a time.
                for first in (0..crate::wave::MAX_LANES).step_by(SEGMENT_LANES) {
                    self.lds_note(offsets[first], bytes.saturating_mul(SEGMENT_LANES as u32), write);
                }
                return;
            }
        }
        let (mut lds, wave) = (self.lds.borrow_mut(), self.wave.get() as usize);
        match bytes {
            4 => lds.lanes::<1>(wave, lanes, offsets, write),
            8 => lds.lanes::<2>(wave, lanes, offsets, write),
            16 => lds.lanes::<4>(wave, lanes, offsets, write),
            _ => {
                let mut m = lanes;
                while m != 0 {
                    let lane = m.trailing_zeros() as usize % crate::wave::MAX_LANES;
                    m &= m - 1;
                    let offset = offsets[lane] as usize;
                    lds.mark(wave, offset / 4, (offset + bytes.max(1) as usize).div_ceil(4), write);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

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

    /// The bytes a log covers, per (wave, direction).
    fn bytes_of(log: &[Span]) -> std::collections::BTreeSet<(u32, bool, u64)> {
        log.iter().flat_map(|s| (0..s.count).flat_map(move |k| (s.element(k).0..s.element(k).1).map(move |b| (s.agent, s.write, b)))).collect()
    }

    #[test]
    fn whole_instruction_global_notes_cover_the_bytes_of_lane_by_lane_ones() {
        // Seeded full-EXEC instructions: runs of consecutive lanes with gaps (far and small),
        // touching and overlapping neighbours, backward steps; 4 to 16 bytes a lane.
        let mut rng = StdRng::seed_from_u64(0x9e37_79b9_7f4a_7c15u64);
        let mut next = move || rng.random::<u64>();
        for case in 0..400 {
            let n = [4u64, 8, 16][(next() % 3) as usize];
            let run = [1usize, 4, 16, 32, 64][(next() % 5) as usize];
            // Jumps of one distance (a column of a row-major array), or of several.
            let fixed = next() % 2 == 0;
            let mut addrs = [0u64; crate::wave::MAX_LANES];
            let mut a = 4096 + next() % 64;
            for (l, slot) in addrs.iter_mut().enumerate() {
                if l > 0 && l % run == 0 {
                    // A jump: far, touching the run before, overlapping it, or backwards.
                    a = match if fixed { 0 } else { next() % 5 } {
                        0 => a + 1024,
                        1 => a,
                        2 => a - n / 2,
                        // A gap of a few bytes (lanes near enough that only the neighbours
                        // tell, when other jumps go back).
                        3 => a + 4,
                        _ => a.saturating_sub(512),
                    };
                }
                *slot = a;
                a += n;
            }
            let (bulk, lane) = (Tracker::new(0), Tracker::new(0));
            let dir = if next() % 2 == 0 { Dir::Read } else { Dir::Write };
            for t in [&bulk, &lane] {
                t.set_wave(5, 0);
            }
            bulk.moved(u64::MAX, &addrs, n as u32, dir);
            addrs.iter().for_each(|&a| lane.note(a, n, dir == Dir::Write));
            assert_eq!(bytes_of(&bulk.into_log()), bytes_of(&lane.into_log()), "case {case}: runs of {run}, {n} bytes");
        }
    }

    #[test]
    fn whole_instruction_lds_checks_agree_with_lane_by_lane_ones() {
        // Seeded instructions of two waves (contiguous, strided, uniform, rows of lanes,
        // unaligned and out-of-range lanes; 4 to 16 bytes; some lanes off), with barriers between some:
        // the bulk check must flag a race exactly when the per-lane one does.
        let mut rng = StdRng::seed_from_u64(0x2545_f491_4f6c_dd1du64);
        let mut next = move || rng.random::<u64>();
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
                // Some at a multiple of the lane's bytes (blocks that never straddle a word).
                let base = if next() % 2 == 0 { base - base % bytes } else { base };
                // Some in rows of 16 consecutive lanes (a tile's rows), the rows `stride * 16`
                // or a row's length plus a little apart.
                let rows = next() % 3 == 0;
                let row = if next() % 2 == 0 { 16 * stride } else { 16 * bytes + 4 * (next() % 3) as u32 };
                let offsets: [u32; crate::wave::MAX_LANES] = std::array::from_fn(|l| {
                    let (r, k) = (l as u32 / 16, l as u32 % 16);
                    if rows {
                        base.wrapping_add(r * row + k * bytes)
                    } else {
                        base.wrapping_add(stride * l as u32)
                    }
                });
                let lanes = if next() % 3 == 0 { next() } else { u64::MAX };
                let dir = if next() % 2 == 0 { Dir::Read } else { Dir::Write };
                for t in [&bulk, &lane] {
                    t.set_wave(wave, wave);
                }
                bulk.lds_moved(lanes, &offsets, bytes, dir);
                (0..64).filter(|l| lanes >> l & 1 != 0).for_each(|l| lane.lds_note(offsets[l], bytes, dir == Dir::Write));
                if next() % 4 == 0 {
                    bulk.next_epoch();
                    lane.next_epoch();
                    assert_eq!(bulk.raced(), lane.raced(), "case {case}: {bytes} bytes from {base} stride {stride} lanes {lanes:#x} {dir:?}");
                }
            }
            bulk.next_epoch();
            lane.next_epoch();
            assert_eq!(bulk.raced(), lane.raced(), "case {case}, its last epoch");
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
        t.next_epoch();
        assert!(!t.raced(), "different dwords");
        t.lds_note(0, 4, false);
        t.set_wave(0, 0);
        t.lds_note(0, 4, false);
        t.next_epoch();
        assert!(!t.raced(), "a write read after a barrier, by two waves");
        t.lds_note(8, 4, true);
        t.next_epoch();
        assert!(!t.raced(), "written in an earlier epoch by the other wave");
        t.set_wave(0, 0);
        t.lds_note(8, 4, true);
        t.set_wave(1, 1);
        t.lds_note(8, 2, false);
        t.next_epoch();
        assert!(t.raced(), "wave 1 reads what wave 0 wrote in the same epoch");
        // A new group: nothing of the last one counts.
        let t = Tracker::new(64);
        t.start_group();
        t.set_wave(0, 0);
        t.lds_note(0, 4, true);
        t.start_group();
        t.set_wave(1, 1);
        t.lds_note(0, 4, true);
        t.next_epoch();
        assert!(!t.raced(), "the last group's wave 0 is not this one's");
        t.lds_note(0, 4, true);
        t.set_wave(0, 0);
        t.lds_note(2, 1, false);
        t.next_epoch();
        assert!(t.raced(), "a read after another wave's write in one epoch");
    }
}
