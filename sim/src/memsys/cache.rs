//! A set-associative cache with LRU replacement whose lines hold bytes.
//!
//! Each line keeps a byte-valid mask and a byte-dirty mask (lines are at most 128 bytes, so a
//! `u128` covers a line): a write that misses can allocate a line without fetching it (only the
//! written bytes are valid), and a later read of bytes that are not valid is a miss that fills
//! them from below while keeping the dirty ones. A cache may also be tag-only (no data: a
//! memory-side cache is coherent with memory by construction, so it need not carry bytes).
//! A tag-only cache keeps no byte masks or fill times either (nothing in it is ever dirty or
//! still filling): only tags and LRU stamps, so a 256 MB MALL, whose hashed sets spread even a
//! small working set over every page of its arrays, costs 16 bytes a slot rather than 56.
//!
//! `ready_cycle` is when a line's fill arrives: a hit on a line still being filled waits for it
//! (an MSHR merge, in hardware terms).
//!
//! Each set counts the ways it has filled since it was last emptied ([`Cache::clear`],
//! [`Cache::invalidate_all`]); the ways past that count are empty, so lookups and sweeps look at
//! no more. A cache with data keeps a set's ways side by side (set-major, as a lookup reads
//! them). A tag-only cache keeps the first way of every set in one plane, and the other ways of
//! a set side by side in a tail handed out (in order) when the set first takes a second line:
//! a short run, which puts zero to two lines in most sets of a 256 MB MALL, writes the plane's
//! pages and a few tails rather than every page of its tag and stamp arrays, while a full set
//! is still read in a few cache lines (a plane per way made a full MALL's victim choice 4.6×
//! slower: `benches/cache.rs`). Why it matters: each page a run first writes is
//! one the kernel zeroes (2 MiB at a time with huge pages), which was a third of a short timing
//! run's CPU time. The layout changes no result: a slot's way and set, and so every choice and
//! every walk's order, are the same. For the same reason a slot's byte masks, fill cycle and
//! bytes live in a row it is given when it first takes a line: rows are handed out in order,
//! so a run that fills a third of a 4 MiB L2's slots writes the first third of its data.

use crate::backing::zeroed_vec_huge;

/// Byte mask of a line (bit i = byte i).
pub type LineMask = u128;

/// Bytes `off..off+len` of a line as a mask.
#[inline]
pub fn mask_of(off: u32, len: u32) -> LineMask {
    let ones = if len >= 128 { LineMask::MAX } else { (1u128 << len) - 1 };
    ones << off
}

/// A line pushed out to make room, with its dirty bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evicted {
    /// Address of the line's first byte.
    pub address: u64,
    pub dirty: LineMask,
    /// The line's bytes, in place (a line is at most a mask's 128 bytes): a streaming kernel
    /// evicts a line per line it writes, and a heap block for each cost an allocation and,
    /// in the queue of write-backs, memory of its own.
    bytes: [u8; 128],
    /// Bytes of `bytes` that are the line's (0 for a tag-only cache).
    len: u8,
}

impl Evicted {
    /// The line at `address` with `dirty` bytes and contents `data` (at most 128 bytes).
    pub fn new(address: u64, dirty: LineMask, data: &[u8]) -> Evicted {
        let mut bytes = [0; 128];
        let n = data.len().min(bytes.len());
        bytes[..n].copy_from_slice(&data[..n]);
        Evicted { address, dirty, bytes, len: n as u8 }
    }

    /// The line's bytes (empty for a tag-only cache).
    pub fn data(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

/// Shape of a cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    pub size_bytes: u64,
    pub line_bytes: u32,
    pub ways: u32,
}

impl Geometry {
    pub fn sets(&self) -> u64 {
        (self.size_bytes / (self.line_bytes as u64 * self.ways as u64)).max(1)
    }
}

/// One cache.
#[derive(Debug, Clone)]
pub struct Cache {
    line_bytes: u32,
    line_shift: u32,
    sets: u64,
    ways: usize,
    /// Ways kept in planes (way `w < plane_ways` of set `s` at slot `w * sets + s`): 0 with
    /// data, 1 tag-only.
    plane_ways: usize,
    /// Where the tails begin (`plane_ways * sets`); a tail holds a set's other ways.
    tail_base: usize,
    /// Per set, its tail + 1 (0: none yet); empty with data, where set `s` has tail `s`.
    tail_of_set: Vec<u32>,
    /// Per tail handed out, its set (tag-only).
    set_of_tail: Vec<u32>,
    /// Per set, the ways filled since the set was last emptied (an upper bound: a way below
    /// it may have been invalidated since; every way at or past it is empty).
    filled: Vec<u8>,
    /// Line number + 1 per slot; 0 = empty.
    tags: Vec<u64>,
    /// Last use per slot (LRU); larger is more recent.
    stamps: Vec<u64>,
    /// Per slot, its row of the arrays below (0: none yet; empty for a tag-only cache). A slot
    /// gets the next row the first time it takes a line and keeps it: rows are handed out in
    /// order, and the arrays grow by a row as each is handed out, so a run that fills a
    /// fraction of the slots holds that fraction of the arrays, where slot-indexed arrays
    /// would be written on every page (hashed sets spread a short run's lines over all of
    /// them). Grown rather than reserved: the 228 L1s of a big GPU are much of a short timing
    /// run's state, and the C heap's `calloc` zeroes (so writes) a block it hands out whole.
    rows: Vec<u32>,
    /// Rows handed out.
    next_row: u32,
    /// Byte masks and fill cycles per row (row 0 belongs to no slot and stays zero: the masks
    /// of a slot without a row read as 0); empty for a tag-only cache (read as 0).
    valid: Vec<LineMask>,
    dirty: Vec<LineMask>,
    ready: Vec<u64>,
    /// Set index folds the line number's higher digits in (see [`Cache::hashed`]).
    hashed: bool,
    /// `line_bytes` bytes per row, or empty for a tag-only cache.
    data: Vec<u8>,
    clock: u64,
    /// Slots allocated since the last [`Cache::clear`], while fewer than [`TOUCH_LIMIT`]: a
    /// clear then resets only those, so that emptying a 256 MB MALL between short runs does
    /// not sweep all its tags.
    touched: Vec<u32>,
    /// More than [`TOUCH_LIMIT`] slots were allocated: a clear sweeps everything.
    touched_all: bool,
}

/// The tag of a line taken in for a part of a dispatch that ran functionally
/// ([`Cache::age_out`]): no address's line number + 1 (a line number is at most 2^64 / the line
/// size), so nothing finds it; it holds no valid bytes.
const PHANTOM: u64 = u64::MAX;

/// Allocations tracked for a cheap [`Cache::clear`].
const TOUCH_LIMIT: usize = 1 << 14;

/// A slot: the index of a set's way in the cache's arrays (see the module's layout note).
pub type Slot = usize;

/// Ways a tag-only cache keeps in planes (see the module's layout note).
const TAG_ONLY_PLANE_WAYS: usize = 1;

impl Cache {
    /// An empty cache. Data storage grows with the lines it takes (see `rows`), so a large
    /// cache costs memory only for the lines it fills; its slot arrays ask for huge pages
    /// ([`zeroed_vec_huge`]): hashed sets and a short run's scattered lines would otherwise
    /// fault in one 4 KiB page at a time.
    pub fn new(g: Geometry, with_data: bool) -> Cache {
        let sets = g.sets();
        let slots = sets as usize * g.ways as usize;
        let plane_ways = if with_data { 0 } else { TAG_ONLY_PLANE_WAYS.min(g.ways as usize) };
        Cache {
            line_bytes: g.line_bytes,
            line_shift: g.line_bytes.trailing_zeros(),
            sets,
            ways: g.ways as usize,
            plane_ways,
            tail_base: plane_ways * sets as usize,
            tail_of_set: if with_data { Vec::new() } else { zeroed_vec_huge(sets as usize) },
            // Capacity for every set's tail, mapped lazily like the arrays.
            set_of_tail: if with_data { Vec::new() } else { Vec::with_capacity(sets as usize) },
            filled: zeroed_vec_huge(sets as usize),
            tags: zeroed_vec_huge(slots),
            stamps: zeroed_vec_huge(slots),
            rows: if with_data { zeroed_vec_huge(slots) } else { Vec::new() },
            next_row: 0,
            // Row 0 only: the rows grow as slots take their first lines ([`Cache::open_way`]).
            valid: if with_data { vec![0] } else { Vec::new() },
            dirty: if with_data { vec![0] } else { Vec::new() },
            ready: if with_data { vec![0] } else { Vec::new() },
            hashed: false,
            data: if with_data { vec![0; g.line_bytes as usize] } else { Vec::new() },
            clock: 0,
            touched: Vec::new(),
            touched_all: false,
        }
    }

    /// Index sets by a hash of the whole line number rather than its low bits. Large shared
    /// caches do this so that power-of-two strides do not crowd into a few sets: gpu-l2-cache
    /// (slices 16 KiB apart, eight XCDs each taking every eighth) keeps MI300X's per-XCD L2s
    /// hitting up to ~16 MiB in all, which plain indexing would cap at an eighth of the sets.
    /// The hash is assumed (AMD does not document it); a contiguous range still fills every
    /// set evenly, so working-set steps stay where the capacity puts them.
    pub fn hashed(self) -> Cache {
        self.hashed_if(true)
    }

    /// [`Cache::hashed`] when `hashed`, else plain low-bit indexing.
    pub fn hashed_if(mut self, hashed: bool) -> Cache {
        self.hashed = hashed;
        self
    }

    pub fn line_bytes(&self) -> u32 {
        self.line_bytes
    }

    /// Address of the first byte of the line holding `address`.
    #[inline]
    pub fn line_address(&self, address: u64) -> u64 {
        address & !(self.line_bytes as u64 - 1)
    }

    #[inline]
    fn set_of(&self, line: u64) -> usize {
        // Sets need not be a power of two (e.g. a 24 MiB cache): index by remainder.
        if self.hashed {
            super::channel::fold(line, self.sets) as usize
        } else if self.sets.is_power_of_two() {
            (line & (self.sets - 1)) as usize
        } else {
            (line % self.sets) as usize
        }
    }

    /// Ways of a tail.
    #[inline]
    fn tail_ways(&self) -> usize {
        self.ways - self.plane_ways
    }

    /// The first slot of the tail of `set` (which must have one when it is tag-only: it
    /// filled a way past the planes).
    #[inline]
    fn tail_start(&self, set: usize) -> Slot {
        let tail = match self.tail_of_set.get(set) {
            Some(&t) => (t as usize).saturating_sub(1),
            None => set,
        };
        self.tail_base + tail * self.tail_ways()
    }

    /// The slot of way `way` of set `set`.
    #[inline]
    fn slot(&self, set: usize, way: usize) -> Slot {
        if way < self.plane_ways {
            way * self.sets as usize + set
        } else {
            self.tail_start(set) + (way - self.plane_ways)
        }
    }

    /// The set and way of a slot.
    fn set_way(&self, slot: Slot) -> (usize, usize) {
        let sets = self.sets as usize;
        if slot < self.tail_base {
            return (slot % sets, slot / sets);
        }
        let (tail, way) = ((slot - self.tail_base) / self.tail_ways().max(1), (slot - self.tail_base) % self.tail_ways().max(1));
        let set = if self.tail_of_set.is_empty() { tail } else { self.set_of_tail.get(tail).map_or(0, |&s| s as usize) };
        (set, self.plane_ways + way)
    }

    /// The slot holding the line of `address`, if any: the set's filled ways, in way order.
    #[inline]
    pub fn find(&self, address: u64) -> Option<Slot> {
        let line = address >> self.line_shift;
        let set = self.set_of(line);
        let n = self.filled[set] as usize;
        let sets = self.sets as usize;
        if let Some(w) = (0..n.min(self.plane_ways)).find(|&w| self.tags[w * sets + set] == line + 1) {
            return Some(w * sets + set);
        }
        if n <= self.plane_ways {
            return None;
        }
        let first = self.tail_start(set);
        (first..first + (n - self.plane_ways)).find(|&s| self.tags[s] == line + 1)
    }

    /// Mark a slot most recently used.
    #[inline]
    pub fn touch(&mut self, slot: Slot) {
        self.clock += 1;
        self.stamps[slot] = self.clock;
    }

    /// Make room for the line of `address` (which must not be present): an empty way, else
    /// the least recently used one, whose dirty contents are returned. The new line has no
    /// valid bytes and is most recently used.
    pub fn allocate(&mut self, address: u64) -> (Slot, Option<Evicted>) {
        let line = address >> self.line_shift;
        let set = self.set_of(line);
        let slot = self.open_way(set, self.victim_way(set));
        let evicted =
            (self.tags[slot] != 0 && self.dirty(slot) != 0).then(|| Evicted::new((self.tags[slot] - 1) << self.line_shift, self.dirty(slot), self.bytes(slot)));
        self.take(slot, line + 1);
        (slot, evicted)
    }

    /// Way `way` of `set` is about to take a line: the set's filled count, its tail and the
    /// slot's row are there for it. Returns the slot.
    fn open_way(&mut self, set: usize, way: usize) -> Slot {
        self.filled[set] = self.filled[set].max((way + 1) as u8);
        if way >= self.plane_ways && self.tail_of_set.get(set) == Some(&0) {
            self.set_of_tail.push(set as u32);
            self.tail_of_set[set] = self.set_of_tail.len() as u32;
        }
        let slot = self.slot(set, way);
        if let Some(r) = self.rows.get_mut(slot).filter(|r| **r == 0) {
            self.next_row += 1;
            *r = self.next_row;
            self.push_row();
        }
        slot
    }

    /// One more row in each row array. Their room doubles as they fill, up to one row per
    /// slot and row 0, never beyond: the config check's footprint (`gpus::footprint`) counts
    /// exactly that much.
    fn push_row(&mut self) {
        let (len, n) = (self.valid.len(), self.line_bytes as usize);
        if len == self.valid.capacity() {
            let more = len.min((self.rows.len() + 1).saturating_sub(len)).max(1);
            self.valid.reserve_exact(more);
            self.dirty.reserve_exact(more);
            self.ready.reserve_exact(more);
            self.data.reserve_exact(more * n);
        }
        self.valid.push(0);
        self.dirty.push(0);
        self.ready.push(0);
        self.data.resize(self.data.len() + n, 0);
    }

    /// `slot` (opened, its old line dealt with) holds `tag` now, with no valid bytes, most
    /// recently used, and is tracked for a cheap clear.
    fn take(&mut self, slot: Slot, tag: u64) {
        self.tags[slot] = tag;
        self.reset_masks(slot);
        self.touch(slot);
        if !self.touched_all {
            if self.touched.len() < TOUCH_LIMIT {
                self.touched.push(slot as u32);
            } else {
                self.touched_all = true;
            }
        }
    }

    /// The way a new line of `set` takes: the first empty one, else the least recently used
    /// (the first of equals). The ways past the set's filled count are empty, so while there
    /// are some the first of them is the answer unless a filled way was emptied since.
    #[inline]
    fn victim_way(&self, set: usize) -> usize {
        let n = self.filled[set] as usize;
        let key = |w: usize| {
            let s = self.slot(set, w);
            if self.tags[s] == 0 {
                (0, 0)
            } else {
                (1, self.stamps[s])
            }
        };
        if n < self.ways {
            (0..n).find(|&w| key(w).0 == 0).unwrap_or(n)
        } else {
            (0..self.ways).min_by_key(|&w| key(w)).unwrap_or(0)
        }
    }

    /// Every slot of a filled way, set by set and way by way (the order of a sweep of a
    /// set-major layout): the only slots that can hold a line.
    fn filled_slots(&self) -> impl Iterator<Item = Slot> + '_ {
        self.filled.iter().enumerate().flat_map(move |(set, &n)| (0..n as usize).map(move |w| self.slot(set, w)))
    }

    /// The slot's row of the byte masks, fill cycles and data (0 until it first takes a line,
    /// and for a tag-only cache).
    #[inline]
    fn row(&self, slot: Slot) -> usize {
        self.rows.get(slot).map_or(0, |&r| r as usize)
    }

    #[inline]
    pub fn valid(&self, slot: Slot) -> LineMask {
        self.valid.get(self.row(slot)).copied().unwrap_or(0)
    }

    #[inline]
    pub fn dirty(&self, slot: Slot) -> LineMask {
        self.dirty.get(self.row(slot)).copied().unwrap_or(0)
    }

    #[inline]
    pub fn ready_cycle(&self, slot: Slot) -> u64 {
        self.ready.get(self.row(slot)).copied().unwrap_or(0)
    }

    /// When the slot's fill arrives (not kept by a tag-only cache: its lines are ready at once).
    pub fn set_ready_cycle(&mut self, slot: Slot, cycle: u64) {
        let row = self.row(slot);
        if let Some(r) = self.ready.get_mut(row) {
            *r = cycle;
        }
    }

    /// No valid or dirty bytes and no fill pending (a tag-only cache keeps none of them).
    #[inline]
    fn reset_masks(&mut self, slot: Slot) {
        let row = self.row(slot);
        if let (Some(v), Some(d), Some(r)) = (self.valid.get_mut(row), self.dirty.get_mut(row), self.ready.get_mut(row)) {
            (*v, *d, *r) = (0, 0, 0);
        }
    }

    /// Address of the slot's line.
    pub fn address_of(&self, slot: Slot) -> u64 {
        (self.tags[slot].wrapping_sub(1)) << self.line_shift
    }

    /// The slot's bytes (empty for a tag-only cache).
    pub fn bytes(&self, slot: Slot) -> &[u8] {
        let n = self.line_bytes as usize;
        let row = self.row(slot);
        self.data.get(row * n..row * n + n).unwrap_or(&[])
    }

    /// Fill the bytes not yet valid from `source` (the whole line as the level below has it);
    /// valid bytes (possibly dirty) are kept. Afterwards the whole line is valid.
    pub fn fill(&mut self, slot: Slot, source: &[u8]) {
        let n = self.line_bytes as usize;
        let (keep, row) = (self.valid(slot), self.row(slot));
        if let Some(line) = self.data.get_mut(row * n..row * n + n) {
            // Copied run by run of bytes not valid: one copy for a line a miss just allocated,
            // where a byte-by-byte walk of the mask was most of an L2 or L1 miss's cost.
            let m = line.len().min(source.len());
            let mut todo = !keep & mask_of(0, m as u32);
            while todo != 0 {
                let start = todo.trailing_zeros();
                let run = (!(todo >> start)).trailing_zeros();
                let (a, b) = (start as usize, (start + run) as usize);
                line[a..b].copy_from_slice(&source[a..b]);
                todo &= !mask_of(start, run);
            }
        }
        if let Some(v) = self.valid.get_mut(row) {
            *v = mask_of(0, self.line_bytes);
        }
    }

    /// Write bytes at `off` of the slot's line; they become valid, and dirty if `dirty`.
    pub fn write(&mut self, slot: Slot, off: u32, bytes: &[u8], dirty: bool) {
        let n = self.line_bytes as usize;
        let (m, row) = (mask_of(off, bytes.len() as u32), self.row(slot));
        if let Some(line) = self.data.get_mut(row * n..row * n + n) {
            line[off as usize..off as usize + bytes.len()].copy_from_slice(bytes);
        }
        if let Some(v) = self.valid.get_mut(row) {
            *v |= m;
        }
        if let Some(d) = self.dirty.get_mut(row).filter(|_| dirty) {
            *d |= m;
        }
    }

    /// The slot's line is clean now (its dirty bytes were written below).
    pub fn clean(&mut self, slot: Slot) {
        let row = self.row(slot);
        if let Some(d) = self.dirty.get_mut(row) {
            *d = 0;
        }
    }

    /// Drop a line (its dirty bytes are lost: write them back first).
    pub fn invalidate(&mut self, slot: Slot) {
        self.tags[slot] = 0;
        let row = self.row(slot);
        if let (Some(v), Some(d)) = (self.valid.get_mut(row), self.dirty.get_mut(row)) {
            (*v, *d) = (0, 0);
        }
    }

    /// Drop every line overlapping `[start, end)` (dirty bytes are lost: write them back
    /// first). Returns the lines dropped. Probes the range's lines when that is cheaper than
    /// sweeping the slots (a copy of a few KiB into a 256 MB MALL), else sweeps.
    pub fn invalidate_range(&mut self, start: u64, end: u64) -> u64 {
        if end <= start {
            return 0;
        }
        let (first, last) = (start >> self.line_shift, (end - 1) >> self.line_shift);
        let lines = last - first + 1;
        let candidates = if self.touched_all { self.tags.len() } else { self.touched.len() };
        let mut dropped = 0;
        if lines.saturating_mul(self.ways as u64) < candidates as u64 {
            for line in first..=last {
                if let Some(s) = self.find(line << self.line_shift) {
                    self.invalidate(s);
                    dropped += 1;
                }
            }
        } else if self.touched_all {
            for set in 0..self.filled.len() {
                for way in 0..self.filled[set] as usize {
                    let s = self.slot(set, way);
                    if self.drop_if_within(s, first, last) {
                        dropped += 1;
                    }
                }
            }
        } else {
            // Only the slots allocated since the last clear can hold a line.
            for i in 0..candidates {
                if self.drop_if_within(self.touched[i] as usize, first, last) {
                    dropped += 1;
                }
            }
        }
        dropped
    }

    /// Invalidate the slot if it holds one of the lines `first..=last`; whether it did.
    fn drop_if_within(&mut self, s: Slot, first: u64, last: u64) -> bool {
        let tag = self.tags[s];
        let within = tag != 0 && (first..=last).contains(&(tag - 1));
        if within {
            self.invalidate(s);
        }
        within
    }

    /// Make every valid byte of every line equal what `mem` holds there, after something
    /// wrote memory behind the cache's back (a launch run functionally under sampled timing,
    /// with the dirty bytes written back first): the lines stay where they are with their
    /// dirty marks, so a later write-back writes what memory already holds. Returns the lines
    /// whose bytes changed. Only the slots allocated since the last clear are looked at,
    /// unless too many were. A line is compared with memory where memory lies (one slice
    /// compare, no copy) and only a line that differs is written: after a run of predicted
    /// launches most lines are unchanged, and a byte-by-byte walk of every line of every
    /// cache was half the CPU time of a sampled floydwarshall of 384 nodes.
    pub fn refresh_from(&mut self, mem: &crate::memory::Memory) -> u64 {
        if self.data.is_empty() {
            return 0;
        }
        let n = self.line_bytes as usize;
        let full = mask_of(0, self.line_bytes);
        // Only the slots allocated since the last clear can hold a line, unless too many were.
        let slots: Vec<Slot> = if self.touched_all { self.filled_slots().collect() } else { self.touched.iter().map(|&s| s as usize).collect() };
        let mut scratch = vec![0u8; n];
        let mut changed = 0;
        for s in slots {
            if self.tags[s] == 0 || self.tags[s] == PHANTOM {
                continue;
            }
            let (address, valid) = (self.address_of(s), self.valid(s));
            // The line as memory has it: borrowed where one allocation holds it all, else
            // read as `read_clamped` reads a line reaching past or between allocations.
            let source = match mem.bytes(address, n as u64) {
                Some(b) => b,
                None => {
                    mem.read_clamped(address, &mut scratch);
                    &scratch
                }
            };
            let row = self.row(s);
            changed += u64::from(refresh_line(&mut self.data[row * n..row * n + n], source, valid, full));
        }
        changed
    }

    /// `lines` lines that this cache never saw were allocated (a part of a dispatch that ran
    /// functionally): each set takes its share of them (spread evenly over the sets, hashed or
    /// streaming traffic) as allocations would, in its empty ways first, then in place of its
    /// least recently used clean lines; dirty lines stay. The functional part's addresses are
    /// not known, so the lines taken in are placeholders that no address finds ([`PHANTOM`]),
    /// most recently used: the cache is left as full as detail would leave it, and a later
    /// launch's misses push out the older lines before them. Dropping old lines without
    /// taking new ones in left room that full detail never had (stencil2d of 6 144² on an
    /// MI300A, 302 MB of grids and a 256 MB MALL, found the first rows of its warm-up launch
    /// still cached in the timed launch and ran it 5 % faster than in full detail), and a
    /// cache with empty ways lost lines full detail kept.
    pub fn age_out(&mut self, lines: u64) {
        let per_set = ((lines as f64 / self.sets.max(1) as f64).round() as usize).min(self.ways);
        if per_set == 0 {
            return;
        }
        let mut taken: Vec<(usize, (u8, u64))> = Vec::with_capacity(self.ways);
        for set in 0..self.filled.len() {
            taken.clear();
            let n = self.filled[set] as usize;
            // Ways past the filled count are empty (and have no slot until opened).
            let key = |w: usize| match (w < n).then(|| self.slot(set, w)) {
                Some(s) if self.tags[s] != 0 => (self.dirty(s) == 0).then_some((1, self.stamps[s])),
                _ => Some((0, 0)),
            };
            taken.extend((0..self.ways).filter_map(|w| key(w).map(|k| (w, k))));
            // Empty ways first, then the least recently used; way order among equals, as
            // `allocate` picks the first.
            taken.sort_by_key(|&(w, k)| (k, w));
            taken.truncate(per_set);
            for &(w, _) in &taken {
                let slot = self.open_way(set, w);
                self.take(slot, PHANTOM);
            }
        }
    }

    /// Every slot holding a line, in slot order. While the slots allocated since the last
    /// clear are tracked (and fewer than the cache has), only they are looked at: a short
    /// kernel's L1s and L2s hold a few lines of many thousand slots, and every launch, copy
    /// and synchronisation walks them.
    pub fn occupied(&self) -> impl Iterator<Item = Slot> + '_ {
        let few = !self.touched_all && self.touched.len() < self.tags.len();
        let listed = few.then(|| {
            let mut s: Vec<Slot> = self.touched.iter().map(|&s| s as usize).filter(|&s| self.tags[s] != 0).collect();
            // A slot allocated again after an invalidation is listed twice; the order of the
            // walk (write-backs book channels in it) stays that of a full sweep: set by set,
            // way by way (the slot order when a set's ways sit together).
            if self.tail_of_set.is_empty() {
                s.sort_unstable();
            } else {
                s.sort_unstable_by_key(|&x| self.set_way(x));
            }
            s.dedup();
            s
        });
        let all = (!few).then(|| self.filled_slots().filter(|&s| self.tags[s] != 0));
        listed.into_iter().flatten().chain(all.into_iter().flatten())
    }

    /// Number of slots holding a line.
    pub fn valid_lines(&self) -> u64 {
        self.occupied().count() as u64
    }

    /// Sets of this cache.
    pub fn sets(&self) -> u64 {
        self.sets
    }

    /// Lines this cache holds when full.
    pub fn capacity_lines(&self) -> u64 {
        self.sets * self.ways as u64
    }

    /// Every slot holding dirty bytes.
    pub fn dirty_slots(&self) -> Vec<Slot> {
        self.occupied().filter(|&s| self.dirty(s) != 0).collect()
    }

    /// Back to the state of a new cache (dirty bytes are lost: write them back first).
    /// Only the filled ways are swept: the others hold nothing (an empty slot's stamp and fill
    /// cycle are never read: allocation ignores the one and resets the other).
    pub fn clear(&mut self) {
        if self.touched_all {
            for set in 0..self.filled.len() {
                for way in 0..self.filled[set] as usize {
                    self.reset_slot(self.slot(set, way));
                }
            }
            self.filled.fill(0);
        } else {
            for i in 0..self.touched.len() {
                self.reset_slot(self.touched[i] as usize);
            }
        }
        self.touched.clear();
        self.touched_all = false;
        self.clock = 0;
    }

    /// Drop every line (dirty bytes are lost: write them back first). Only the slots
    /// allocated since the last clear can hold one while they are tracked; the list stays
    /// (their LRU stamps and fill cycles are not reset, as a clear would).
    pub fn invalidate_all(&mut self) {
        if self.touched_all {
            for set in 0..self.filled.len() {
                for way in 0..self.filled[set] as usize {
                    self.invalidate(self.slot(set, way));
                }
            }
            self.filled.fill(0);
        } else {
            for i in 0..self.touched.len() {
                let s = self.touched[i] as usize;
                self.invalidate(s);
                let set = self.set_way(s).0;
                self.filled[set] = 0;
            }
        }
    }

    /// An empty slot as a new cache has it, and its set empty: only while every allocation
    /// since the last clear is listed, so that the set's other slots are being reset too.
    fn reset_slot(&mut self, s: Slot) {
        (self.tags[s], self.stamps[s]) = (0, 0);
        self.reset_masks(s);
        let set = self.set_way(s).0;
        self.filled[set] = 0;
    }
}

/// Give a line's valid bytes (`valid`; `full`: every byte) the values of `source`; whether
/// any changed.
fn refresh_line(line: &mut [u8], source: &[u8], valid: LineMask, full: LineMask) -> bool {
    if line == source {
        return false;
    }
    if valid == full {
        line.copy_from_slice(source);
        return true;
    }
    let mut differs = false;
    for (j, (b, m)) in line.iter_mut().zip(source).enumerate() {
        if valid >> j & 1 != 0 && b != m {
            *b = *m;
            differs = true;
        }
    }
    differs
}

#[cfg(test)]
mod layout_tests;

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Cache {
        // 2 sets × 2 ways × 64-byte lines.
        Cache::new(Geometry { size_bytes: 256, line_bytes: 64, ways: 2 }, true)
    }

    #[test]
    fn lru_victim_and_dirty_eviction() {
        let mut c = small();
        // Lines 0x000, 0x080, 0x100 all map to set 0 (line numbers 0, 2, 4).
        let (a, e) = c.allocate(0x000);
        assert!(e.is_none());
        c.write(a, 4, &[1, 2, 3, 4], true);
        let (b, _) = c.allocate(0x080);
        c.fill(b, &[9; 64]);
        c.touch(a); // 0x080 is now least recently used
        let (s, e) = c.allocate(0x100);
        assert_eq!(s, b);
        assert!(e.is_none(), "clean victim");
        c.touch(s);
        let (s2, e) = c.allocate(0x180);
        assert_eq!(s2, a, "the dirty line was least recently used");
        let e = e.expect("dirty victim");
        assert_eq!((e.address, e.dirty), (0x000, mask_of(4, 4)));
        assert_eq!(&e.data()[4..8], &[1, 2, 3, 4]);
        assert_eq!(c.find(0x000), None);
        assert_eq!(c.find(0x13f), Some(s));
    }

    #[test]
    fn a_full_cache_holds_its_capacity_in_lines() {
        let mut c = Cache::new(Geometry { size_bytes: 32768, line_bytes: 128, ways: 4 }, false);
        assert_eq!(c.capacity_lines(), 32768 / 128);
        for line in 0..2 * c.capacity_lines() {
            let (s, _) = c.allocate(line * 128);
            c.touch(s);
        }
        assert_eq!(c.valid_lines(), c.capacity_lines(), "filled with twice as many lines");
    }

    #[test]
    fn refresh_takes_memorys_bytes_for_valid_bytes_only() {
        use crate::memory::{Memory, MemoryKind};
        let mut mem = Memory::new();
        // 96 bytes: the line at +64 reaches 32 bytes past the allocation's end.
        let base = mem.alloc_init("a", vec![5; 96], MemoryKind::Device);
        let mut c = small();
        let (whole, _) = c.allocate(base);
        c.fill(whole, &[1; 64]);
        let (part, _) = c.allocate(base + 64);
        c.write(part, 0, &[2; 8], true);
        assert_eq!(c.refresh_from(&mem), 2);
        assert_eq!(c.bytes(whole), &[5; 64][..]);
        // The valid (and dirty) bytes take memory's; the rest keep what the line had.
        assert_eq!(&c.bytes(part)[..8], &[5; 8][..]);
        assert_eq!(&c.bytes(part)[8..], &[0; 56][..]);
        assert_eq!(c.dirty(part), mask_of(0, 8));
        // Nothing changed since: nothing to do.
        assert_eq!(c.refresh_from(&mem), 0);
        mem.write(base + 60, &[9; 8]).expect("mapped");
        assert_eq!(c.refresh_from(&mem), 2);
        assert_eq!(&c.bytes(whole)[60..], &[9; 4][..]);
        assert_eq!(&c.bytes(part)[..4], &[9; 4][..]);
    }

    #[test]
    fn aging_out_drops_the_least_recently_used_clean_lines_of_each_set() {
        // 8 sets of 4 ways of 64 B, plain indexing: line n goes to set n mod 8.
        let mut c = Cache::new(Geometry { size_bytes: 2048, line_bytes: 64, ways: 4 }, true);
        for round in 0..4u64 {
            for set in 0..8u64 {
                let (s, _) = c.allocate((round * 8 + set) * 64);
                c.fill(s, &[1; 64]);
            }
        }
        // Set 0's oldest line is dirty: it stays, and the next oldest clean ones go.
        let oldest = c.find(0).unwrap_or(0);
        c.write(oldest, 0, &[2], true);
        c.age_out(16);
        assert!(c.find(0).is_some(), "a dirty line stays");
        assert!(c.find(8 * 64).is_none() && c.find(16 * 64).is_none(), "set 0's two oldest clean lines went");
        assert!(c.find(24 * 64).is_some(), "the most recent stays");
        for set in 1..8u64 {
            let kept: Vec<bool> = (0..4).map(|round| c.find((round * 8 + set) * 64).is_some()).collect();
            assert_eq!(kept, [false, false, true, true], "set {set}: two lines a set, the oldest first");
        }
        c.age_out(1000);
        let left: Vec<u64> = (0..32u64).filter(|&n| c.find(n * 64).is_some()).collect();
        assert_eq!(left, [0], "more lines than the cache holds leave only the dirty one");
        assert_eq!(c.valid_lines(), 32, "the cache stays full: the functional part's lines took the ways");
    }

    #[test]
    fn aged_in_lines_take_empty_ways_first_and_are_pushed_out_after_older_ones() {
        // 8 sets of 4 ways; two lines a set, then two lines a set that detail never saw: they
        // take the empty ways, and both old lines stay (as two allocations would leave them).
        for with_data in [true, false] {
            let mut c = Cache::new(Geometry { size_bytes: 2048, line_bytes: 64, ways: 4 }, with_data);
            for n in 0..16u64 {
                let (s, _) = c.allocate(n * 64);
                c.fill(s, &[1; 64]);
            }
            c.age_out(16);
            assert!((0..16u64).all(|n| c.find(n * 64).is_some()), "room was left: nothing went");
            assert_eq!(c.valid_lines(), 32);
            // Two later misses a set push out the two old lines first: they are older than
            // what the functional part brought in.
            for n in 32..48u64 {
                let (s, evicted) = c.allocate(n * 64);
                assert!(evicted.is_none(), "clean lines leave silently");
                c.fill(s, &[2; 64]);
            }
            assert!((0..16u64).all(|n| c.find(n * 64).is_none()), "the old lines went first");
            assert!((32..48u64).all(|n| c.find(n * 64).is_some()));
            // Nothing finds a placeholder: a line's own address misses until it is allocated.
            assert!((16..32u64).all(|n| c.find(n * 64).is_none()));
        }
    }

    #[test]
    fn fill_copies_exactly_the_bytes_not_valid() {
        use rand::{RngExt, SeedableRng};
        // Random written runs, then a fill: each byte is the written one where written, else
        // the source's (the byte-by-byte rule the run copy must equal).
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for line_bytes in [64u32, 128] {
            let mut c = Cache::new(Geometry { size_bytes: line_bytes as u64 * 4, line_bytes, ways: 4 }, true);
            for round in 0..200u64 {
                let (s, _) = c.allocate(round * line_bytes as u64 * 4);
                let mut expected: Vec<Option<u8>> = vec![None; line_bytes as usize];
                for _ in 0..rng.random_range(0..4) {
                    let off = rng.random_range(0..line_bytes);
                    let len = rng.random_range(1..=line_bytes - off);
                    let v = rng.random_range(0..=255u8);
                    c.write(s, off, &vec![v; len as usize], round % 2 == 0);
                    expected[off as usize..(off + len) as usize].fill(Some(v));
                }
                let source: Vec<u8> = (0..line_bytes).map(|_| rng.random_range(0..=255u8)).collect();
                c.fill(s, &source);
                let want: Vec<u8> = expected.iter().zip(&source).map(|(e, &b)| e.unwrap_or(b)).collect();
                assert_eq!(c.bytes(s), &want[..], "line {line_bytes} round {round}");
                assert_eq!(c.valid(s), mask_of(0, line_bytes));
            }
        }
    }

    #[test]
    fn fill_keeps_written_bytes() {
        let mut c = small();
        let (s, _) = c.allocate(0x40);
        c.write(s, 0, &[7, 7], true);
        assert_eq!(c.valid(s), mask_of(0, 2));
        c.fill(s, &[1; 64]);
        assert_eq!(c.valid(s), LineMask::MAX >> 64);
        assert_eq!(&c.bytes(s)[..3], &[7, 7, 1]);
        assert_eq!(c.dirty(s), mask_of(0, 2));
    }

    #[test]
    fn hashed_sets_hold_a_power_of_two_strided_working_set() {
        // 32 KiB, 128-byte lines, 4 ways (64 sets): 128 lines 512 bytes apart, the rows atax's
        // lanes walk at size 128. Low-bit indexing puts them in 16 sets (64 slots); hashing
        // spreads them over all 64.
        let resident = |hashed: bool| {
            let mut c = Cache::new(Geometry { size_bytes: 32768, line_bytes: 128, ways: 4 }, false).hashed_if(hashed);
            for row in 0..128u64 {
                c.allocate(row * 512);
            }
            (0..128u64).filter(|row| c.find(row * 512).is_some()).count()
        };
        assert_eq!(resident(false), 64);
        assert!(resident(true) >= 112, "{}", resident(true));
    }

    #[test]
    fn invalidate_range_drops_only_overlapping_lines() {
        for hashed in [false, true] {
            let mut c = Cache::new(Geometry { size_bytes: 4096, line_bytes: 64, ways: 4 }, true).hashed_if(hashed);
            for line in 0..32u64 {
                c.allocate(line * 64);
            }
            // Bytes 100..300 overlap lines 1 to 4.
            assert_eq!(c.invalidate_range(100, 300), 4);
            let present: Vec<u64> = (0..32).filter(|l| c.find(l * 64).is_some()).collect();
            let expected: Vec<u64> = (0..32).filter(|l| !(1..=4).contains(l)).collect();
            assert_eq!(present, expected);
            // A range wider than the cache sweeps instead of probing; same outcome.
            assert_eq!(c.invalidate_range(0, 1 << 20), 28);
            assert_eq!(c.valid_lines(), 0);
            assert_eq!(c.invalidate_range(5, 5), 0);
        }
    }

    /// What a full sweep of the tags finds: the reference the tracked walk must agree with.
    fn swept(c: &Cache) -> Vec<Slot> {
        (0..c.tags.len()).filter(|&s| c.tags[s] != 0).collect()
    }

    #[test]
    fn the_tracked_walk_finds_what_a_sweep_finds() {
        use rand::{RngExt, SeedableRng};
        // 64 sets × 4 ways (256 slots): a short tracked list is walked, a longer one or one past
        // the tracking limit is swept; invalidations make slots be allocated (and listed) again.
        let mut c = Cache::new(Geometry { size_bytes: 16384, line_bytes: 64, ways: 4 }, true).hashed();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let (mut listed, mut swept_all) = (false, false);
        for step in 0..(TOUCH_LIMIT as u64 * 2) {
            // One clear part-way: before it the tracking limit is passed (about 9 in 10 steps
            // allocate), after it the tracked list is short again.
            if step == 24_000 {
                c.clear();
            }
            (listed, swept_all) = (listed || c.touched.len() < 256, swept_all || c.touched_all);
            let a = rng.random_range(0..4096u64) * 64;
            match rng.random_range(0..100) {
                0 => c.invalidate_all(),
                1..=9 => {
                    if let Some(s) = c.find(a) {
                        c.invalidate(s);
                    }
                }
                _ => {
                    let s = match c.find(a) {
                        Some(s) => s,
                        None => c.allocate(a).0,
                    };
                    c.write(s, 0, &[1], step % 3 == 0);
                }
            }
            if step % 97 == 0 {
                let all = swept(&c);
                assert_eq!(c.occupied().collect::<Vec<_>>(), all, "step {step}");
                assert_eq!(c.valid_lines(), all.len() as u64);
                let dirty: Vec<Slot> = all.iter().copied().filter(|&s| c.dirty(s) != 0).collect();
                assert_eq!(c.dirty_slots(), dirty);
            }
            if step % 1009 == 0 {
                c.invalidate_all();
                assert!(swept(&c).is_empty(), "step {step}");
                assert!(c.valid.iter().chain(&c.dirty).all(|&m| m == 0), "step {step}");
            }
        }
        assert!(listed && swept_all, "both ways of walking were exercised");
    }

    #[test]
    fn non_power_of_two_sets() {
        // 3 sets of 1 way.
        let mut c = Cache::new(Geometry { size_bytes: 3 * 128, line_bytes: 128, ways: 1 }, false);
        for a in [0u64, 128, 256] {
            c.allocate(a);
        }
        assert!(c.find(0).is_some() && c.find(128).is_some() && c.find(256).is_some());
        c.allocate(384); // line 3 → set 0
        assert!(c.find(0).is_none());
        assert!(c.bytes(0).is_empty(), "tag-only");
    }

    #[test]
    fn the_config_check_counts_what_a_cache_allocates() {
        // `GpuConfig::check` bounds a config by `gpus::footprint`; it must count these vectors.
        for (g, data) in
            [(Geometry { size_bytes: 16 << 10, line_bytes: 64, ways: 4 }, true), (Geometry { size_bytes: 3 * 128, line_bytes: 128, ways: 1 }, false)]
        {
            // Full: every slot has taken a line, so the rows have grown to their most (and
            // their room with them: capacity, not length, is what the host gives).
            let mut c = Cache::new(g, data);
            for line in 0..g.size_bytes / u64::from(g.line_bytes) {
                c.allocate(line * u64::from(g.line_bytes));
            }
            let room = |v: usize, len: usize| assert_eq!(v, len, "room beyond the rows");
            room(c.valid.capacity(), c.valid.len());
            room(c.data.capacity(), c.data.len());
            let slots = [&c.tags, &c.stamps, &c.ready].map(|v| std::mem::size_of_val(v.as_slice())).iter().sum::<usize>()
                + [&c.valid, &c.dirty].map(|v| std::mem::size_of_val(v.as_slice())).iter().sum::<usize>();
            let tails = std::mem::size_of_val(c.tail_of_set.as_slice()) + c.set_of_tail.capacity() * std::mem::size_of::<u32>();
            let held = (slots + c.data.len() + c.filled.len() + std::mem::size_of_val(c.rows.as_slice()) + tails) as u64;
            assert_eq!(crate::gpus::footprint::cache_bytes(g.size_bytes, g.line_bytes, g.ways, data), held, "{g:?}");
        }
    }
}
