//! The cache against a straightforward model of itself: one array of slots, a set's ways side
//! by side, every lookup and victim choice a scan of all the set's ways. The cache's grouped
//! slot layout and its per-set fill counts must change nothing a caller sees: which way of
//! which set a line goes to, what is evicted, and the order of every walk.

use super::*;
use rand::{RngExt, SeedableRng};

/// The model: tag (line + 1, 0 = empty), LRU stamp, dirty flag and first data byte per slot
/// `set * ways + way` (a slot's bytes stay when its line goes, as the cache's do).
struct Model {
    sets: u64,
    ways: usize,
    hashed: bool,
    line_shift: u32,
    tags: Vec<u64>,
    stamps: Vec<u64>,
    dirty: Vec<bool>,
    byte: Vec<u8>,
    clock: u64,
}

impl Model {
    fn new(g: Geometry, hashed: bool) -> Model {
        let slots = (g.sets() * g.ways as u64) as usize;
        Model {
            sets: g.sets(),
            ways: g.ways as usize,
            hashed,
            line_shift: g.line_bytes.trailing_zeros(),
            tags: vec![0; slots],
            stamps: vec![0; slots],
            dirty: vec![false; slots],
            byte: vec![0; slots],
            clock: 0,
        }
    }

    fn base(&self, line: u64) -> usize {
        let set = if self.hashed { crate::memsys::channel::fold(line, self.sets) } else { line % self.sets };
        set as usize * self.ways
    }

    fn find(&self, address: u64) -> Option<usize> {
        let line = address >> self.line_shift;
        let base = self.base(line);
        (base..base + self.ways).find(|&s| self.tags[s] == line + 1)
    }

    fn touch(&mut self, s: usize) {
        self.clock += 1;
        self.stamps[s] = self.clock;
    }

    /// The slot taken and the evicted line's address if it was dirty.
    fn allocate(&mut self, address: u64) -> (usize, Option<u64>) {
        let line = address >> self.line_shift;
        let base = self.base(line);
        let s = (base..base + self.ways).min_by_key(|&s| if self.tags[s] == 0 { (0, 0) } else { (1, self.stamps[s]) }).unwrap_or(base);
        let evicted = (self.tags[s] != 0 && self.dirty[s]).then(|| (self.tags[s] - 1) << self.line_shift);
        (self.tags[s], self.dirty[s]) = (line + 1, false);
        self.touch(s);
        (s, evicted)
    }

    fn invalidate(&mut self, s: usize) {
        (self.tags[s], self.dirty[s]) = (0, false);
    }

    fn occupied(&self) -> Vec<u64> {
        (0..self.tags.len()).filter(|&s| self.tags[s] != 0).map(|s| (self.tags[s] - 1) << self.line_shift).collect()
    }

    fn dirty_lines(&self) -> Vec<u64> {
        (0..self.tags.len()).filter(|&s| self.tags[s] != 0 && self.dirty[s]).map(|s| (self.tags[s] - 1) << self.line_shift).collect()
    }

    /// Each set's share taken in as placeholders: empty ways first, then the least recently
    /// used clean lines, way order among equals; dirty lines stay.
    fn age_out(&mut self, lines: u64) {
        let per_set = ((lines as f64 / self.sets as f64).round() as usize).min(self.ways);
        if per_set == 0 {
            return;
        }
        for base in (0..self.tags.len()).step_by(self.ways) {
            let key = |s: usize| if self.tags[s] == 0 { (0, 0) } else { (1, self.stamps[s]) };
            let mut taken: Vec<usize> = (base..base + self.ways).filter(|&s| self.tags[s] == 0 || !self.dirty[s]).collect();
            taken.sort_by_key(|&s| (key(s), s));
            taken.truncate(per_set);
            for s in taken {
                (self.tags[s], self.dirty[s]) = (u64::MAX, false);
                self.touch(s);
            }
        }
    }

    fn clear(&mut self) {
        self.tags.fill(0);
        self.stamps.fill(0);
        self.dirty.fill(false);
        self.clock = 0;
    }
}

/// The cache's slot as the model numbers it.
fn logical(c: &Cache, s: Slot) -> usize {
    let (set, way) = c.set_way(s);
    set * c.ways + way
}

fn addresses(c: &Cache, slots: impl Iterator<Item = Slot>) -> Vec<u64> {
    slots.map(|s| c.address_of(s)).collect()
}

/// Write `value` to the first byte of the line in both, dirty (a tag-only cache keeps neither).
fn write(c: &mut Cache, s: Slot, m: &mut Model, ms: usize, value: u8) {
    c.write(s, 0, &[value], true);
    let with_data = !c.data.is_empty();
    m.dirty[ms] = with_data;
    if with_data {
        m.byte[ms] = value;
    }
}

/// One seeded run of `steps` random operations on addresses of `lines` lines.
fn run(g: Geometry, with_data: bool, hashed: bool, seed: u64, lines: u64, steps: u64) {
    let mut c = Cache::new(g, with_data).hashed_if(hashed);
    let mut m = Model::new(g, hashed);
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let lb = g.line_bytes as u64;
    for step in 0..steps {
        let a = rng.random_range(0..lines) * lb + rng.random_range(0..lb);
        let what = rng.random_range(0..1000);
        let at = format!("{g:?} data {with_data} hashed {hashed} seed {seed} step {step} op {what}");
        let (found, expected) = (c.find(a), m.find(a));
        assert_eq!(found.map(|s| logical(&c, s)), expected, "{at}");
        match (what, found, expected) {
            (0..=3, _, _) => {
                c.invalidate_all();
                (0..m.tags.len()).for_each(|s| m.invalidate(s));
            }
            (4..=5, _, _) => {
                c.clear();
                m.clear();
            }
            (6..=9, _, _) => {
                let n = rng.random_range(0..lines * 2);
                c.age_out(n);
                m.age_out(n);
            }
            (10..=19, _, _) => {
                let end = a + rng.random_range(0..lb * if what < 15 { 4 } else { lines });
                let dropped = c.invalidate_range(a, end);
                let overlaps = |line: u64| end > a && (line << m.line_shift) + lb > a && (line << m.line_shift) < end;
                let within: Vec<usize> = (0..m.tags.len()).filter(|&s| m.tags[s] != 0 && overlaps(m.tags[s] - 1)).collect();
                assert_eq!(dropped, within.len() as u64, "{at}");
                within.into_iter().for_each(|s| m.invalidate(s));
            }
            (20..=99, Some(s), Some(ms)) => {
                c.invalidate(s);
                m.invalidate(ms);
            }
            (_, Some(s), Some(ms)) => {
                assert_eq!(c.bytes(s).first().copied(), with_data.then_some(m.byte[ms]), "{at}");
                c.touch(s);
                m.touch(ms);
                if what % 3 == 0 {
                    write(&mut c, s, &mut m, ms, what as u8);
                }
            }
            (_, _, _) => {
                let (s, evicted) = c.allocate(a);
                let (ms, m_evicted) = m.allocate(a);
                assert_eq!((logical(&c, s), evicted.map(|e| e.address)), (ms, m_evicted), "{at}");
                if what % 2 == 0 {
                    write(&mut c, s, &mut m, ms, what as u8);
                }
            }
        }
        if what == 0 || step % 61 == 0 {
            assert_eq!(addresses(&c, c.occupied()), m.occupied(), "{at}");
            assert_eq!(addresses(&c, c.dirty_slots().into_iter()), m.dirty_lines(), "{at}");
        }
    }
    assert_eq!(addresses(&c, c.occupied()), m.occupied(), "{g:?} data {with_data} hashed {hashed} seed {seed}: at the end");
    assert_eq!(c.valid_lines(), m.occupied().len() as u64);
}

#[test]
fn grouped_layout_and_fill_counts_match_a_plain_set_major_cache() {
    // Few sets so that sets fill and evict; working sets both inside and well past the
    // capacity; tag-only caches way-major, data caches set-major; 12 ways: groups of 4.
    let shapes = [
        (Geometry { size_bytes: 16 * 64 * 16, line_bytes: 64, ways: 16 }, false),
        (Geometry { size_bytes: 16 * 64 * 16, line_bytes: 64, ways: 16 }, true),
        (Geometry { size_bytes: 32 * 128 * 4, line_bytes: 128, ways: 4 }, true),
        (Geometry { size_bytes: 12 * 64 * 12, line_bytes: 64, ways: 12 }, true),
        (Geometry { size_bytes: 12 * 64 * 12, line_bytes: 64, ways: 12 }, false),
        (Geometry { size_bytes: 7 * 64 * 2, line_bytes: 64, ways: 2 }, false),
    ];
    for (i, &(g, data)) in shapes.iter().enumerate() {
        let slots = g.sets() * g.ways as u64;
        for hashed in [false, true] {
            for (k, lines) in [slots / 4, slots, slots * 4].into_iter().enumerate() {
                run(g, data, hashed, (i * 10 + k) as u64, lines.max(1), 6000);
            }
        }
    }
}

#[test]
fn the_tracked_list_overflows_into_the_filled_sweep() {
    // More allocations than TOUCH_LIMIT between clears: the walks sweep the filled ways.
    let g = Geometry { size_bytes: 256 * 64 * 16, line_bytes: 64, ways: 16 };
    for data in [false, true] {
        run(g, data, true, 99, 4096 * 8, (TOUCH_LIMIT as u64) * 3);
    }
}

#[test]
fn a_tag_only_cache_writes_only_its_first_way_and_the_tails_it_needs() {
    // 64 sets × 16 ways: one line per set fills the plane of way 0, slots 0..64.
    let mut c = Cache::new(Geometry { size_bytes: 64 * 128 * 16, line_bytes: 128, ways: 16 }, false);
    for line in 0..64u64 {
        let (s, _) = c.allocate(line * 128);
        assert_eq!(s, line as usize, "line {line}");
    }
    assert!(c.tags[64..].iter().all(|&t| t == 0));
    // Second lines in sets 5 and 9 take the first two tails of 15 ways, in that order; a third
    // line in set 5 the next way of its tail.
    assert_eq!(c.allocate((64 + 5) * 128).0, 64);
    assert_eq!(c.allocate((64 + 9) * 128).0, 64 + 15);
    assert_eq!(c.allocate((128 + 5) * 128).0, 65);
    assert!(c.tags[64 + 30..].iter().all(|&t| t == 0));
    assert_eq!(c.find((128 + 5) * 128), Some(65));
    assert_eq!(c.set_way(65), (5, 2));
}
