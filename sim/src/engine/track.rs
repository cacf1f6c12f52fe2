//! What the waves of a parallel worker touch ([`super::par`]): every global-memory access as
//! a byte range tagged with the wave that made it, and every LDS access checked on the spot
//! against the other waves of its work-group between the same two barriers.
//!
//! Global ranges are kept as a log (consecutive accesses of a wave that extend the previous
//! range of the same direction are merged into it, so a coalesced instruction costs one
//! entry) and compared across all workers when the dispatch ends ([`super::spans`]). LDS is
//! private to a work-group, so its check needs no log: a shadow word per LDS dword remembers
//! which wave last wrote it and which read it, in which barrier interval (an *epoch*: the
//! group's barrier releases so far). Two waves' accesses to one dword in the same epoch, one
//! of them a write, are a race whose outcome depends on the interleaving: the worker stops
//! and the dispatch runs on the sequential engine.

use crate::exec::{Dir, MemPort};
use crate::memory::{Memory, Unmapped};
use std::cell::{Cell, RefCell};

/// A byte range `lo..hi` of global memory a wave read or wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Span {
    pub lo: u64,
    pub hi: u64,
    /// The wave's index in the dispatch (the order waves are created in).
    pub agent: u32,
    pub write: bool,
}

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

/// The memory port of a parallel worker: memory directly, plus the log and the LDS check.
pub(super) struct Tracker {
    /// The wave running: its index in the dispatch and in its group.
    agent: Cell<u32>,
    wave: Cell<u32>,
    log: RefCell<Vec<Span>>,
    /// The log's last read and last write entry (the ones an access may extend).
    last: Cell<[usize; 2]>,
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
            last: Cell::new([usize::MAX; 2]),
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
        self.log.into_inner()
    }

    /// Entries in the log so far.
    pub fn log_len(&self) -> usize {
        self.log.borrow().len()
    }

    /// `f` of the log so far.
    pub fn with_log<R>(&self, f: impl FnOnce(&[Span]) -> R) -> R {
        f(&self.log.borrow())
    }

    /// Log an access of `n` bytes at `lo`.
    #[inline]
    fn note(&self, lo: u64, n: u64, write: bool) {
        let (hi, agent) = (lo.saturating_add(n), self.agent.get());
        let mut log = self.log.borrow_mut();
        let mut last = self.last.get();
        if let Some(l) = log.get_mut(last[usize::from(write)]) {
            // Overlapping or touching (a filter's taps read the same range shifted by one
            // element per instruction): one range.
            if l.agent == agent && lo <= l.hi && hi >= l.lo {
                (l.lo, l.hi) = (l.lo.min(lo), l.hi.max(hi));
                return;
            }
        }
        last[usize::from(write)] = log.len();
        self.last.set(last);
        log.push(Span { lo, hi, agent, write });
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

    /// Lanes whose ranges continue one another are logged as one range (a coalesced access
    /// is one entry, noted once).
    fn moved(&self, lanes: u64, addrs: &[u64; crate::wave::MAX_LANES], bytes: u32, dir: Dir) {
        let (n, write) = (u64::from(bytes), dir == Dir::Write);
        let mut run: Option<(u64, u64)> = None;
        let mut m = lanes;
        while m != 0 {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            let a = addrs[lane];
            run = match run {
                Some((lo, hi)) if a == hi => Some((lo, hi.saturating_add(n))),
                Some((lo, hi)) => {
                    self.note(lo, hi - lo, write);
                    Some((a, a.saturating_add(n)))
                }
                None => Some((a, a.saturating_add(n))),
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
        assert_eq!(
            log,
            [
                Span { lo: 96, hi: 116, agent: 3, write: false },
                Span { lo: 200, hi: 204, agent: 3, write: true },
                Span { lo: 116, hi: 120, agent: 4, write: false }
            ]
        );
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
