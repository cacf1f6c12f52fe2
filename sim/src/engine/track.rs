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

/// No wave (a shadow word nobody wrote or read in its epoch).
const NONE: u32 = u32::MAX;
/// Several waves read the word in its epoch.
const MANY: u32 = u32::MAX - 1;

/// The shadow of one LDS dword.
#[derive(Debug, Clone, Copy, Default)]
struct Shadow {
    /// The work-group it belongs to (a worker's count of groups started, from 1): a word of
    /// an earlier group is as good as untouched, so nothing is cleared between groups.
    group: u32,
    write_epoch: u32,
    writer: u32,
    read_epoch: u32,
    reader: u32,
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
    fn drain(&mut self, log: &mut Vec<Span>) {
        for i in 0..OPEN {
            let done = std::mem::replace(&mut self.open[(self.next + i) % OPEN], NO_SPAN);
            log.extend(self.retire(done));
        }
        log.extend((self.run.count > 0).then_some(self.run));
        *self = NO_STREAM;
    }
}

/// The memory port of a parallel worker: memory directly, plus the log and the LDS check.
pub(super) struct Tracker {
    /// The wave running: its index in the dispatch and in its group.
    agent: Cell<u32>,
    wave: Cell<u32>,
    log: RefCell<Vec<Span>>,
    /// Per wave of the running group (by its index in the group), the spans that may still
    /// grow; they go to the log when they can grow no more.
    slots: RefCell<Vec<Slot>>,
    lds: RefCell<Vec<Shadow>>,
    group: Cell<u32>,
    epoch: Cell<u32>,
    raced: Cell<bool>,
}

impl Tracker {
    /// A tracker for work-groups of `lds_bytes` bytes of LDS.
    pub fn new(lds_bytes: u32) -> Tracker {
        Tracker {
            agent: Cell::new(0),
            wave: Cell::new(0),
            log: RefCell::new(Vec::new()),
            slots: RefCell::new(Vec::new()),
            lds: RefCell::new(vec![Shadow::default(); (lds_bytes as usize).div_ceil(4)]),
            group: Cell::new(0),
            epoch: Cell::new(0),
            raced: Cell::new(false),
        }
    }

    /// A new work-group starts (epoch 0, its LDS untouched).
    pub fn start_group(&self) {
        self.group.set(self.group.get() + 1);
        self.epoch.set(0);
    }

    /// The running group's barrier released.
    pub fn next_epoch(&self) {
        self.epoch.set(self.epoch.get() + 1);
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
        self.log.into_inner()
    }

    /// Entries in the log so far.
    pub fn log_len(&self) -> usize {
        self.log.borrow().len()
    }

    /// `f` of the log so far (the open spans included).
    pub fn with_log<R>(&self, f: impl FnOnce(&[Span]) -> R) -> R {
        self.flush();
        f(&self.log.borrow())
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
        for o in &mut stream.open {
            // Overlapping or touching (a filter's taps read the same range shifted by one
            // element per instruction; a structure's fields read one by one): one range.
            if o.count > 0 && o.agent == agent && lo <= o.hi && hi >= o.lo {
                (o.lo, o.hi) = (o.lo.min(lo), o.hi.max(hi));
                return;
            }
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
        let (group, epoch, me) = (self.group.get(), self.epoch.get(), self.wave.get());
        let first = offset as usize / 4;
        let end = (offset as usize + bytes.max(1) as usize).div_ceil(4).min(shadow.len());
        for s in shadow.get_mut(first..end).into_iter().flatten() {
            if s.group != group {
                *s = Shadow { group, write_epoch: 0, writer: NONE, read_epoch: 0, reader: NONE };
            }
            let other = |who: u32, at: u32| at == epoch && who != NONE && who != me;
            let mut race = other(s.writer, s.write_epoch);
            if write {
                race |= other(s.reader, s.read_epoch);
                (s.writer, s.write_epoch) = (me, epoch);
            } else {
                let shared = s.read_epoch == epoch && s.reader != NONE && s.reader != me;
                (s.reader, s.read_epoch) = (if shared { MANY } else { me }, epoch);
            }
            if race {
                self.raced.set(true);
            }
        }
    }
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
        let log = t.into_log();
        assert_eq!(log, [Span::range(96, 116, 3, false), Span::range(200, 204, 3, true), Span::range(116, 120, 4, false)]);
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
