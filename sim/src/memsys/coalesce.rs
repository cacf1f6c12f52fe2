//! How the vector L1's address unit splits a wave's access into tag accesses
//! (`TCP_TOTAL_CACHE_ACCESSES`): lanes are taken `lanes_per_pass` at a time, and within a
//! pass one dword of every lane at a time; each such step looks up every `tag_access_bytes`
//! block its lanes touch. Inferred from real profiles (`../shared/device-data`, vcopy and
//! mixbench-ro on MI100, MI210 and MI300): a wave64 load of one dword per lane from
//! consecutive addresses makes 4 tag accesses, of two dwords (`dwordx2`) 16, of a 16-bit value
//! 4 — on 64- and 128-byte-line L1s alike.

/// One lane's access: (lane, address, bytes).
pub type LaneAccess = (u32, u64, u32);

/// What the L1's address unit does for one wave instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lookups {
    /// Tag accesses as the counter counts them (per pass, per dword, per block).
    pub tag_accesses: u64,
    /// Cycles the L1 is busy: per pass, one per distinct block its lanes touch over all their
    /// dwords. The counter's per-dword steps cannot be the cost: gpu-cache reads float4
    /// (`dwordx4`, 64 counted accesses per wave) at ~60 bytes per cycle per CU on MI210
    /// (10.6 TB/s, 104 CUs, 1.7 GHz) and MI300X (39 TB/s, 304 CUs, 2.1 GHz), i.e. one
    /// 64-byte block per cycle, four times what one per counted access would allow.
    pub block_cycles: u64,
}

/// Consecutive lanes each accessing `size` bytes right after the previous lane's: lanes
/// `lane..lane + lanes`, lane `lane + k` at `address + k * size`. A coalesced wave's accesses
/// are a few of these rather than one record per lane, which is what the memory system keeps
/// for [`lookups_runs`] while an access is described.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaneRun {
    pub lane: u32,
    pub lanes: u32,
    pub address: u64,
    pub size: u32,
}

impl LaneRun {
    /// The first byte after the run's last lane (`None` past the end of the address space).
    fn end(&self) -> Option<u64> {
        self.address.checked_add(u64::from(self.lanes) * u64::from(self.size))
    }

    /// Its lanes one by one, as [`LaneAccess`] records.
    fn each(&self) -> impl Iterator<Item = LaneAccess> + '_ {
        (0..self.lanes).map(|k| (self.lane + k, self.address.wrapping_add(u64::from(k) * u64::from(self.size)), self.size))
    }
}

/// The lanes of one access as runs ([`LaneRun`]), recorded lane by lane or run by run. A
/// lane's bytes right after its own last ones extend its record (a lane whose access is
/// handed over in pieces), as one record per lane would.
#[derive(Debug, Clone, Default)]
pub struct Runs {
    runs: Vec<LaneRun>,
}

impl Runs {
    pub fn clear(&mut self) {
        self.runs.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    pub fn as_slice(&self) -> &[LaneRun] {
        &self.runs
    }

    /// Lane `lane` accessed `size` bytes at `address`.
    #[inline]
    pub fn lane(&mut self, lane: u32, address: u64, size: u32) {
        if let Some(last) = self.runs.last_mut() {
            if last.lane + (last.lanes - 1) == lane && last.end() == Some(address) {
                // The same lane's next bytes: its record grows (split off a longer run).
                if last.lanes == 1 {
                    last.size += size;
                    return;
                }
                last.lanes -= 1;
                let at = last.address + u64::from(last.lanes) * u64::from(last.size);
                let grown = LaneRun { lane, lanes: 1, address: at, size: last.size + size };
                self.runs.push(grown);
                return;
            }
        }
        self.push_run(LaneRun { lane, lanes: 1, address, size });
    }

    /// Lanes `lanes` (ascending) accessed `size` bytes each, one right after another from
    /// `address`: one run when their numbers follow each other too.
    #[inline]
    pub fn lanes_from(&mut self, lanes: &[u32], address: u64, size: u32) {
        let (Some(&first), Some(&last)) = (lanes.first(), lanes.last()) else { return };
        let n = lanes.len() as u32;
        let whole = LaneRun { lane: first, lanes: n, address, size };
        if last.wrapping_sub(first) != n - 1 || whole.end().is_none() {
            for (k, &l) in lanes.iter().enumerate() {
                self.lane(l, address.wrapping_add(k as u64 * u64::from(size)), size);
            }
            return;
        }
        // The first lane may extend its own record; the others cannot.
        self.lane(first, address, size);
        if n > 1 {
            self.push_run(LaneRun { lane: first + 1, lanes: n - 1, address: address + u64::from(size), size });
        }
    }

    /// Append `r`, joined to the last run when it goes on from it (next lanes, next bytes,
    /// same size).
    fn push_run(&mut self, r: LaneRun) {
        match self.runs.last_mut() {
            Some(l) if l.size == r.size && l.lane.checked_add(l.lanes) == Some(r.lane) && l.end() == Some(r.address) => l.lanes += r.lanes,
            _ => self.runs.push(r),
        }
    }
}

/// Tag accesses and busy cycles of the lanes `runs` hold, taken a pass at a time: a pass that
/// is one stretch of memory counts the blocks the stretch covers ([`stretch_lookups`]); the
/// lanes of any other pass are listed one by one and walked ([`pass_lookups`]).
pub fn lookups_runs(runs: &[LaneRun], lanes_per_pass: u32, block_bytes: u32, scratch: &mut Scratch) -> Lookups {
    let per_pass = lanes_per_pass.max(1);
    let shift = block_bytes.is_power_of_two().then(|| block_bytes.trailing_zeros());
    let block_of = |a: u64| shift.map_or_else(|| a / block_bytes as u64, |s| a >> s);
    let mut out = Lookups { tag_accesses: 0, block_cycles: 0 };
    let mut pieces = std::mem::take(&mut scratch.pieces);
    pieces.clear();
    let mut current = None;
    for r in runs {
        let (mut lane, mut left, mut address) = (r.lane, r.lanes, r.address);
        while left > 0 {
            let pass = lane / per_pass;
            let n = left.min((pass + 1).saturating_mul(per_pass).saturating_sub(lane)).max(1);
            if current != Some(pass) {
                add_pass(&mut out, &pieces, block_bytes, block_of, scratch);
                pieces.clear();
                current = Some(pass);
            }
            pieces.push(LaneRun { lane, lanes: n, address, size: r.size });
            lane = lane.saturating_add(n);
            left -= n;
            address = address.wrapping_add(u64::from(n) * u64::from(r.size));
        }
    }
    add_pass(&mut out, &pieces, block_bytes, block_of, scratch);
    scratch.pieces = pieces;
    out
}

/// Add one pass's lookups (`pieces`: its lanes, in order) to `out`.
fn add_pass(out: &mut Lookups, pieces: &[LaneRun], block_bytes: u32, block_of: impl Fn(u64) -> u64 + Copy, scratch: &mut Scratch) {
    if pieces.is_empty() {
        return;
    }
    let (total, cycles) = match stretch_lookups(pieces, block_bytes, block_of) {
        Some(l) => l,
        None => {
            let mut lanes = std::mem::take(&mut scratch.lanes);
            lanes.clear();
            lanes.extend(pieces.iter().flat_map(LaneRun::each));
            let l = pass_lookups(&lanes, block_of, scratch);
            scratch.lanes = lanes;
            l
        }
    };
    out.tag_accesses += total;
    out.block_cycles += cycles;
}

/// The lookups of a pass whose lanes are one stretch of memory, all of one size, each lane
/// at most a dword or inside one block (lanes of a size that divides the block, starting on a
/// multiple of their size): every block the stretch covers holds some lane's bytes, and with
/// wider lanes every dword step touches those same blocks. `None` otherwise.
fn stretch_lookups(pieces: &[LaneRun], block_bytes: u32, block_of: impl Fn(u64) -> u64) -> Option<(u64, u64)> {
    let first = pieces.first()?;
    let size = first.size;
    if size == 0 {
        return None;
    }
    let mut end = first.end()?;
    for p in &pieces[1..] {
        if p.size != size || p.address != end {
            return None;
        }
        end = p.end()?;
    }
    let dwords = u64::from(size.div_ceil(4));
    if dwords > 1 && (first.address % u64::from(size) != 0 || block_bytes % size != 0) {
        return None;
    }
    let n = block_of(end - 1) - block_of(first.address) + 1;
    Some((dwords * n, n))
}

/// Tag accesses and busy cycles of one wave instruction, its lanes listed one by one (in
/// ascending lane order): what the tests check against the definition.
#[cfg(test)]
fn lookups(lanes: &[LaneAccess], lanes_per_pass: u32, block_bytes: u32) -> Lookups {
    let mut runs = Runs::default();
    for &(lane, address, size) in lanes {
        runs.lane(lane, address, size);
    }
    lookups_runs(runs.as_slice(), lanes_per_pass, block_bytes, &mut Scratch::default())
}

/// Reusable buffers for [`lookups_runs`] (the memory system keeps one, so the per-instruction
/// path allocates nothing).
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    blocks: Distinct,
    pass_blocks: Distinct,
    /// One pass's runs ([`lookups_runs`]).
    pieces: Vec<LaneRun>,
    /// One pass's lanes, listed when its runs are not one stretch.
    lanes: Vec<LaneAccess>,
}

/// A small set of block numbers. Lanes mostly walk up through memory, so a block above every
/// one seen so far is new without a search; only a block below the highest is looked up.
#[derive(Debug, Clone, Default)]
struct Distinct {
    items: Vec<u64>,
    top: u64,
}

impl Distinct {
    fn clear(&mut self) {
        self.items.clear();
        self.top = 0;
    }

    #[inline]
    fn insert(&mut self, b: u64) {
        match self.items.last() {
            Some(&l) if l == b => return,
            Some(_) if b <= self.top && self.items.contains(&b) => return,
            _ => {}
        }
        self.items.push(b);
        self.top = self.top.max(b);
    }

    fn len(&self) -> usize {
        self.items.len()
    }
}

/// Tag accesses and busy cycles of one pass (`group`: its lanes).
fn pass_lookups(group: &[LaneAccess], block_of: impl Fn(u64) -> u64 + Copy, scratch: &mut Scratch) -> (u64, u64) {
    let Scratch { blocks, pass_blocks, .. } = scratch;
    let dwords = group.iter().map(|l| l.2.div_ceil(4)).max().unwrap_or(1);
    let fast = if dwords == 1 { ascending_blocks(group, block_of) } else { None };
    if let Some(n) = fast {
        return (n, n);
    }
    if let Some(n) = whole_lanes_in_blocks(group, block_of, blocks) {
        // Every step touches the same blocks, the lanes' own.
        return (u64::from(dwords) * n, n);
    }
    let mut total = 0;
    pass_blocks.clear();
    for k in 0..dwords {
        blocks.clear();
        for &(_, a, size) in group {
            if k * 4 < size.max(1) {
                let at = a.wrapping_add(4 * k as u64);
                let last = at.wrapping_add((size - 4 * k).clamp(1, 4) as u64 - 1);
                blocks.insert(block_of(at));
                blocks.insert(block_of(last));
            }
        }
        total += blocks.len() as u64;
        if dwords == 1 {
            // One step: the pass's blocks are this step's.
            std::mem::swap(blocks, pass_blocks);
            break;
        }
        for &b in blocks.items.iter() {
            pass_blocks.insert(b);
        }
    }
    (total, pass_blocks.len() as u64)
}

/// The distinct blocks of a one-step pass (every lane at most a dword) whose lanes walk up
/// through memory: each lane's blocks are new unless its first is the previous lane's last.
/// `None` when a lane steps back (the general count then applies).
#[inline]
fn ascending_blocks(group: &[LaneAccess], block_of: impl Fn(u64) -> u64) -> Option<u64> {
    let mut n = 0;
    let mut prev: Option<u64> = None;
    for &(_, a, size) in group {
        let first = block_of(a);
        let last = block_of(a.wrapping_add(size.clamp(1, 4) as u64 - 1));
        match prev {
            Some(p) if first < p || last < first => return None,
            Some(p) if first == p => {}
            _ => n += 1,
        }
        n += u64::from(last != first);
        prev = Some(last);
    }
    Some(n)
}

/// The distinct blocks of a pass whose lanes all access the same number of bytes, each lane's
/// bytes inside one block (a `dwordx4` of aligned 16-byte lanes): then every dword step of the
/// pass touches exactly the lanes' blocks, so the general per-step walk would find the same
/// set `dwords` times. `None` when the sizes differ or a lane straddles two blocks.
#[inline]
fn whole_lanes_in_blocks(group: &[LaneAccess], block_of: impl Fn(u64) -> u64, seen: &mut Distinct) -> Option<u64> {
    let size = group.first()?.2;
    if size == 0 {
        return None;
    }
    seen.clear();
    for &(_, a, s) in group {
        let b = block_of(a);
        if s != size || block_of(a.wrapping_add(u64::from(size) - 1)) != b {
            return None;
        }
        seen.insert(b);
    }
    Some(seen.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tag accesses of one wave instruction (see [`lookups`]).
    fn tag_accesses(lanes: &[LaneAccess], lanes_per_pass: u32, block_bytes: u32) -> u64 {
        lookups(lanes, lanes_per_pass, block_bytes).tag_accesses
    }

    fn wave(bytes: u32) -> Vec<LaneAccess> {
        (0..64).map(|l| (l, 0x1000 + l as u64 * bytes as u64, bytes)).collect()
    }

    /// The counts measured on MI100/MI210/MI300 (see the module comment).
    #[test]
    fn matches_measured_counts() {
        assert_eq!(tag_accesses(&wave(4), 16, 64), 4, "dword");
        assert_eq!(tag_accesses(&wave(8), 16, 64), 16, "dwordx2");
        assert_eq!(tag_accesses(&wave(2), 16, 64), 4, "short");
    }

    /// One busy cycle per 64-byte block per pass, whatever the access width (gpu-cache float4
    /// bandwidth, see `Lookups::block_cycles`).
    #[test]
    fn busy_cycles_follow_blocks_not_dwords() {
        assert_eq!(lookups(&wave(4), 16, 64).block_cycles, 4, "dword: 64 B per pass");
        assert_eq!(lookups(&wave(8), 16, 64).block_cycles, 8, "dwordx2: 128 B per pass");
        assert_eq!(lookups(&wave(16), 16, 64), Lookups { tag_accesses: 64, block_cycles: 16 }, "dwordx4");
    }

    /// The definition, written plainly: per pass and dword step, the distinct blocks the
    /// step's bytes touch (counted), and per pass the distinct blocks of all its steps (cycles).
    fn reference(lanes: &[LaneAccess], per_pass: u32, block: u32) -> Lookups {
        let mut out = Lookups { tag_accesses: 0, block_cycles: 0 };
        let passes: std::collections::BTreeSet<u32> = lanes.iter().map(|l| l.0 / per_pass).collect();
        for p in passes {
            let group: Vec<LaneAccess> = lanes.iter().copied().filter(|l| l.0 / per_pass == p).collect();
            let dwords = group.iter().map(|l| l.2.div_ceil(4)).max().unwrap_or(1);
            let mut pass = std::collections::BTreeSet::new();
            for k in 0..dwords {
                let mut step = std::collections::BTreeSet::new();
                for &(_, a, size) in group.iter().filter(|l| k * 4 < l.2.max(1)) {
                    let first = a + 4 * k as u64;
                    let last = first + (size - 4 * k).clamp(1, 4) as u64 - 1;
                    step.insert(first / block as u64);
                    step.insert(last / block as u64);
                }
                out.tag_accesses += step.len() as u64;
                pass.extend(step);
            }
            out.block_cycles += pass.len() as u64;
        }
        out
    }

    /// Ascending, descending, repeated and scattered lane addresses of every width.
    #[test]
    fn random_waves_match_the_definition() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for _ in 0..3000 {
            let bytes = [1, 2, 4, 8, 12, 16][rng.random_range(0..6)];
            let block = [32, 64, 128, 48][rng.random_range(0..4)];
            let stride: i64 = [0, 4, 8, 16, 64, 4096, -4, -64][rng.random_range(0..8)];
            let n = rng.random_range(1..=64u32);
            let base = 1 << 20;
            let mut lanes: Vec<LaneAccess> = Vec::new();
            for l in 0..n {
                if rng.random_range(0..8) == 0 {
                    continue; // an inactive lane
                }
                let jitter = if rng.random_range(0..4) == 0 { rng.random_range(0..256) * 4 } else { 0 };
                // Now and then a lane of another width (a pass of mixed sizes).
                let size = if rng.random_range(0..32) == 0 { [1, 2, 4, 8, 12, 16][rng.random_range(0..6)] } else { bytes };
                lanes.push((l, (base + stride * l as i64) as u64 + jitter, size));
            }
            let per_pass = [16, 32, 64][rng.random_range(0..3)];
            assert_eq!(lookups(&lanes, per_pass, block), reference(&lanes, per_pass, block), "{lanes:?}");
        }
    }

    /// Coalesced sub-dword and dword accesses (each active lane right after the previous
    /// one's bytes, inactive lanes closing up), from unaligned starts, against the definition.
    #[test]
    fn consecutive_lanes_match_the_definition() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(12);
        for _ in 0..3000 {
            let size = [1, 2, 3, 4][rng.random_range(0..4)];
            let block = [32, 64, 128, 48][rng.random_range(0..4)];
            let mut at = (1u64 << 20) + rng.random_range(0..256);
            let mut lanes: Vec<LaneAccess> = Vec::new();
            for l in 0..rng.random_range(1..=64u32) {
                if rng.random_range(0..6) != 0 {
                    lanes.push((l, at, size));
                    at += u64::from(size);
                }
            }
            let per_pass = [16, 32, 64][rng.random_range(0..3)];
            assert_eq!(lookups(&lanes, per_pass, block), reference(&lanes, per_pass, block), "{lanes:?}");
        }
    }

    /// One record per lane, a lane's next bytes extending its own (what [`Runs`] must hold,
    /// listed lane by lane).
    fn per_lane(calls: &[(Vec<u32>, u64, u32)]) -> Vec<LaneAccess> {
        let mut out: Vec<LaneAccess> = Vec::new();
        for (lanes, address, size) in calls {
            for (k, &lane) in lanes.iter().enumerate() {
                let a = address + k as u64 * u64::from(*size);
                match out.last_mut() {
                    Some(last) if last.0 == lane && last.1 + u64::from(last.2) == a => last.2 += size,
                    _ => out.push((lane, a, *size)),
                }
            }
        }
        out
    }

    /// Waves as the memory system hands them over: lanes one at a time or in runs of
    /// consecutive addresses (coalesced, strided, rows of a tile, a lane's access in pieces,
    /// inactive lanes), some widths straddling blocks. The runs must list the same lanes as
    /// one record per lane, and give the same lookups as those records and the definition.
    #[test]
    fn runs_hold_the_lanes_and_give_their_lookups() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(13);
        let mut scratch = Scratch::default();
        for _ in 0..4000 {
            let size = [1, 2, 3, 4, 8, 12, 16][rng.random_range(0..7)];
            let block = [32, 64, 128, 48][rng.random_range(0..4)];
            let row = [4, 8, 16, 64][rng.random_range(0..4)];
            let row_gap: u64 = [0, 64, 4096][rng.random_range(0..3)];
            let base = (1u64 << 20) + [0, 4, 16, rng.random_range(0..256)][rng.random_range(0..4)];
            let address = |l: u32| base + u64::from(l) * u64::from(size) + u64::from(l / row) * row_gap;
            let active: Vec<u32> = (0..rng.random_range(1..=64u32)).filter(|_| rng.random_range(0..10) != 0).collect();
            let mut calls: Vec<(Vec<u32>, u64, u32)> = Vec::new();
            let mut i = 0;
            while i < active.len() {
                if rng.random_range(0..8) == 0 {
                    // A lane's access in two pieces.
                    let cut = rng.random_range(1..=size.max(2) - 1).min(size);
                    calls.push((vec![active[i]], address(active[i]), cut));
                    if size > cut {
                        calls.push((vec![active[i]], address(active[i]) + u64::from(cut), size - cut));
                    }
                    i += 1;
                    continue;
                }
                let mut j = i + 1;
                let most = i + rng.random_range(1..=32);
                while j < active.len().min(most) && address(active[j]) == address(active[j - 1]) + u64::from(size) {
                    j += 1;
                }
                calls.push((active[i..j].to_vec(), address(active[i]), size));
                i = j;
            }
            let mut runs = Runs::default();
            for (lanes, a, s) in &calls {
                if lanes.len() == 1 && rng.random_range(0..2) == 0 {
                    runs.lane(lanes[0], *a, *s);
                } else {
                    runs.lanes_from(lanes, *a, *s);
                }
            }
            let lanes = per_lane(&calls);
            let listed: Vec<LaneAccess> = runs.as_slice().iter().flat_map(LaneRun::each).collect();
            assert_eq!(listed, lanes, "{calls:?}");
            let per_pass = [16, 32, 64][rng.random_range(0..3)];
            let want = reference(&lanes, per_pass, block);
            assert_eq!(lookups_runs(runs.as_slice(), per_pass, block, &mut scratch), want, "{calls:?} per pass {per_pass} block {block}");
        }
    }

    /// A full coalesced wave is one run, and a wave of 16-lane rows one run a row.
    #[test]
    fn coalesced_lanes_are_few_runs() {
        let mut runs = Runs::default();
        let lanes: Vec<u32> = (0..64).collect();
        runs.lanes_from(&lanes[..1], 0x1000, 4);
        runs.lanes_from(&lanes[1..40], 0x1004, 4);
        runs.lanes_from(&lanes[40..], 0x1000 + 40 * 4, 4);
        assert_eq!(runs.as_slice(), [LaneRun { lane: 0, lanes: 64, address: 0x1000, size: 4 }]);
        runs.clear();
        for r in 0..4u32 {
            runs.lanes_from(&lanes[16 * r as usize..16 * (r as usize + 1)], 0x10000 + u64::from(r) * 4096, 16);
        }
        assert_eq!(runs.as_slice().len(), 4);
        assert_eq!(lookups_runs(runs.as_slice(), 16, 64, &mut Scratch::default()), Lookups { tag_accesses: 64, block_cycles: 16 });
    }

    #[test]
    fn partial_and_scattered_waves() {
        // 16 active lanes, one pass: one block.
        assert_eq!(tag_accesses(&wave(4)[..16], 16, 64), 1);
        // Every lane in its own block: 64 accesses.
        let scattered: Vec<LaneAccess> = (0..64).map(|l| (l, l as u64 * 4096, 4)).collect();
        assert_eq!(tag_accesses(&scattered, 16, 64), 64);
        // A dword straddling two blocks counts both.
        assert_eq!(tag_accesses(&[(0, 62, 4)], 16, 64), 2);
    }
}
