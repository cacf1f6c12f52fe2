//! Whole-instruction data movement for the common case: a GLOBAL load or store of whole
//! dwords whose active lanes all fall inside one allocation. One allocation lookup serves
//! every lane and the data moves between the allocation's bytes and the register rows
//! directly (loads check each lane as they copy it, stores find the lanes' range first). Anything else (sub-dword or D16 shapes, lanes spread over allocations or
//! faulting) takes the per-lane path, which also reports the exact faulting lane; both paths
//! give the same result.
//!
//! Stores go lane by lane with all of a lane's dwords together, the order of the per-lane
//! path, so that lanes storing to overlapping bytes leave the same final bytes.

use crate::memory::Memory;
use crate::wave::{Wave, MAX_LANES};

/// Active lanes' lowest address and the end of the highest access (`None` without lanes or
/// on address overflow).
fn extent(addrs: &[u64; MAX_LANES], exec: u64, bytes: u64) -> Option<(u64, u64)> {
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    let mut m = exec;
    while m != 0 {
        let a = addrs[m.trailing_zeros() as usize];
        m &= m - 1;
        lo = lo.min(a);
        hi = hi.max(a);
    }
    (exec != 0).then_some(())?;
    Some((lo, hi.checked_add(bytes)?))
}

/// The dword at byte `o` of `data` (0 past its end, which the callers rule out): one bounds
/// check and one 4-byte load rather than four of each.
#[inline(always)]
fn dword_at(data: &[u8], o: usize) -> u32 {
    data.get(o..o.wrapping_add(4)).and_then(|b| <[u8; 4]>::try_from(b).ok()).map_or(0, u32::from_le_bytes)
}

/// Load `dwords` dwords per active lane into VGPRs `dst..`; false when the lanes do not all
/// fall in one allocation (or one chunk of a sparse one).
///
/// No pass over the lanes finds their address range first: the allocation is the one holding
/// the first active lane's access, and each lane is checked against it as it is copied. A
/// lane outside it stops the copy and returns false, leaving the lanes before it written with
/// exactly what the per-lane path, which the caller then takes, writes into them again (it
/// goes through the lanes in the same ascending order and reads the same bytes; a fault
/// there stops at a lane at or after the one that stopped the copy). So every result and
/// every fault is the per-lane path's.
pub fn load_dwords(w: &mut Wave, mem: &Memory, addrs: &[u64; MAX_LANES], dst: usize, dwords: usize) -> bool {
    let exec = w.exec();
    if exec == 0 {
        return false;
    }
    let first = exec.trailing_zeros() as usize;
    let Some(end) = addrs[first].checked_add(4 * dwords as u64) else { return false };
    let Some((base, data)) = mem.span(addrs[first], end) else { return false };
    let Some(limit) = (data.len() as u64).checked_sub(4 * dwords as u64) else { return false };
    let at = Span { data, addrs, base, limit, exec };
    let rows = dst * MAX_LANES..(dst + dwords) * MAX_LANES;
    let lanes = low_run(exec);
    let run = matches!(dwords, 1 | 2 | 4) && lanes.is_some_and(|n| consecutive(addrs, n, 4 * dwords as u64));
    let ran = if run {
        w.vgpr.get_mut(rows.clone()).is_some_and(|rows| load_run(rows, &at, dwords))
    } else if exec == u64::MAX && matches!(dwords, 1 | 2 | 4) && segmented(addrs, 4 * dwords as u64) {
        w.vgpr.get_mut(rows.clone()).is_some_and(|rows| load_segments(rows, &at, dwords))
    } else {
        // Every lane at one address (a filter's tap, a loop bound): one read for the wave.
        dwords == 1 && lanes.is_some_and(|n| consecutive(addrs, n, 0)) && w.vgpr.get_mut(rows.clone()).is_some_and(|rows| load_uniform(rows, &at))
    };
    let done = ran
        || match (dwords, w.vgpr.get_mut(rows)) {
            (1, Some(rows)) => gather::<1>(rows, &at),
            (2, Some(rows)) => gather::<2>(rows, &at),
            (3, Some(rows)) => gather::<3>(rows, &at),
            (4, Some(rows)) => gather::<4>(rows, &at),
            _ => gather_rows(w, &at, dst, dwords),
        };
    if done {
        let o = (addrs[first] - base) as usize;
        w.last_read.set(Some(crate::wave::LastRead::new(first as u32, false, addrs[first], &data[o..o + 4 * dwords])));
    }
    done
}

/// The bytes one lookup found and the lanes' addresses into them.
struct Span<'a> {
    data: &'a [u8],
    addrs: &'a [u64; MAX_LANES],
    /// The address of `data[0]`.
    base: u64,
    /// The highest offset into `data` at which a lane's access still fits.
    limit: u64,
    exec: u64,
}

impl Span<'_> {
    /// Lane `lane`'s offset into `data`, if its whole access is inside.
    #[inline(always)]
    fn offset(&self, lane: usize) -> Option<usize> {
        let o = self.addrs[lane % MAX_LANES].wrapping_sub(self.base);
        (o <= self.limit).then_some(o as usize)
    }

    /// `f(lane)` for every active lane in ascending order until it returns false; whether
    /// none did. A full EXEC (the common case) counts through the lanes instead of scanning
    /// the mask.
    #[inline(always)]
    fn each(&self, mut f: impl FnMut(usize) -> bool) -> bool {
        if self.exec == u64::MAX {
            for lane in 0..MAX_LANES {
                if !f(lane) {
                    return false;
                }
            }
            return true;
        }
        let mut m = self.exec;
        while m != 0 {
            let lane = m.trailing_zeros() as usize % MAX_LANES;
            m &= m - 1;
            if !f(lane) {
                return false;
            }
        }
        true
    }
}

/// Load `D` consecutive dwords per active lane into the `D` rows of `rows`: all of a lane's
/// dwords come from one bounds-checked slice of `data`, so a dwordx2 or x4 load costs one
/// address and one check per lane rather than one per dword. False at the first lane outside
/// `data` (see [`load_dwords`]).
#[inline(always)]
fn gather<const D: usize>(rows: &mut [u32], at: &Span) -> bool {
    at.each(|lane| {
        let Some(bytes) = at.offset(lane).and_then(|o| at.data.get(o..o + 4 * D)) else { return false };
        for (k, row) in rows.chunks_exact_mut(MAX_LANES).take(D).enumerate() {
            row[lane] = dword_at(bytes, 4 * k);
        }
        true
    })
}

/// How many lanes `exec` holds if they are lanes `0..n` (a full wave, or a full wave32), the
/// shape of almost every access: `None` for any other mask.
#[inline(always)]
fn low_run(exec: u64) -> Option<usize> {
    (exec != 0 && exec & exec.wrapping_add(1) == 0).then_some(exec.count_ones() as usize)
}

/// Whether lanes `0..n` access consecutive `step`-byte pieces from lane 0's address on (a
/// coalesced access): every lane's address is its predecessor's plus `step` (which, wrapping
/// as the addresses do, is lane 0's plus `step` times the lane). The differences are or-ed
/// together without a branch per lane, a pass the compiler does two or four lanes to a vector
/// register (the earlier check against a running expected address, stopping at the first
/// eight lanes that differ, did not vectorise and cost fir's loads ~300 host instructions
/// each). The last lane is looked at first, so lanes in rows far apart (a tile's rows of 16
/// lanes) fail without a pass.
/// Compiled for AVX2 where the host has it (four lanes a register rather than two).
#[inline(always)]
fn consecutive(addrs: &[u64; MAX_LANES], n: usize, step: u64) -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the host CPU has the feature `consecutive_avx2` is compiled for (checked above).
        return unsafe { consecutive_avx2(addrs, n, step) };
    }
    consecutive_on(addrs, n, step)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn consecutive_avx2(addrs: &[u64; MAX_LANES], n: usize, step: u64) -> bool {
    consecutive_on(addrs, n, step)
}

#[inline(always)]
fn consecutive_on(addrs: &[u64; MAX_LANES], n: usize, step: u64) -> bool {
    let n = n.clamp(1, MAX_LANES);
    let last = n - 1;
    if addrs[last] != addrs[0].wrapping_add(step.wrapping_mul(last as u64)) {
        return false;
    }
    step_misses(&addrs[..n], step) == 0
}

/// The differences of `run`'s neighbours from `step`, or-ed together (0: every address is its
/// predecessor's plus `step`), without a branch per lane.
#[inline(always)]
fn step_misses(run: &[u64], step: u64) -> u64 {
    run[run.len().min(1)..].iter().zip(run).fold(0u64, |d, (&b, &a)| d | (b.wrapping_sub(a) ^ step))
}

/// [`gather`] for lanes `0..n` reading one run of consecutive bytes (the caller has checked
/// that they are [`consecutive`]): the run is de-interleaved into the rows with no per-lane
/// address or bounds check (lane `l`'s dword `k` is dword `D·l + k` of the run), which is
/// what the per-lane copy reads too. False (nothing done) when the run is not all inside
/// `data`; the caller then takes [`gather`].
#[inline(always)]
fn gather_run<const D: usize>(rows: &mut [u32], at: &Span) -> bool {
    let Some(n) = low_run(at.exec) else { return false };
    let o = at.addrs[0].wrapping_sub(at.base) as usize;
    let Some(run) = at.data.get(o..o.wrapping_add(4 * D * n)) else { return false };
    if rows.len() < D * MAX_LANES {
        return false;
    }
    if D == 1 {
        for (x, b) in rows[..n].iter_mut().zip(run.chunks_exact(4)) {
            *x = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        return true;
    }
    for (lane, piece) in run.chunks_exact(4 * D).enumerate() {
        for k in 0..D {
            rows[k * MAX_LANES + lane % MAX_LANES] = dword_at(piece, 4 * k);
        }
    }
    true
}

/// [`gather_run`] for `dwords` (1, 2 or 4; else false): out of line, so that the lane loops
/// of [`load_dwords`] stay inlined as they were.
#[inline(never)]
fn load_run(rows: &mut [u32], at: &Span, dwords: usize) -> bool {
    match dwords {
        1 => gather_run::<1>(rows, at),
        2 => gather_run::<2>(rows, at),
        4 => gather_run::<4>(rows, at),
        _ => false,
    }
}

/// Lanes per segment of [`segmented`]: a 16-wide work-group tile row (a 2-D block of 16 x 16
/// items puts four such rows in a wave64, matrixtranspose's shape).
pub(crate) const SEGMENT_LANES: usize = 16;

/// Whether a full wave64's lanes are [`SEGMENT_LANES`]-lane segments of consecutive
/// `step`-byte pieces (each segment from its first lane's address, the segments anywhere):
/// every lane but a segment's first is its predecessor plus `step`. Without a branch per lane.
#[inline(always)]
pub(crate) fn segmented(addrs: &[u64; MAX_LANES], step: u64) -> bool {
    // The first segment's last lane first: scattered lanes fail without a pass.
    if addrs[SEGMENT_LANES - 1] != addrs[0].wrapping_add(step.wrapping_mul(SEGMENT_LANES as u64 - 1)) {
        return false;
    }
    addrs.chunks_exact(SEGMENT_LANES).fold(0u64, |d, seg| d | step_misses(seg, step)) == 0
}

/// [`gather_run`] for a full wave64 whose lanes are [`segmented`]: each segment's run copied
/// with one bounds check. False at the first segment not inside `data` (the lanes before it
/// are written with what the per-lane path writes again, see [`load_dwords`]).
#[inline(always)]
fn gather_segments<const D: usize>(rows: &mut [u32], at: &Span) -> bool {
    if rows.len() < D * MAX_LANES {
        return false;
    }
    for first in (0..MAX_LANES).step_by(SEGMENT_LANES) {
        let o = at.addrs[first].wrapping_sub(at.base) as usize;
        let Some(run) = at.data.get(o..o.wrapping_add(4 * D * SEGMENT_LANES)) else { return false };
        for (i, piece) in run.chunks_exact(4 * D).enumerate() {
            for k in 0..D {
                rows[k * MAX_LANES + (first + i) % MAX_LANES] = dword_at(piece, 4 * k);
            }
        }
    }
    true
}

/// [`gather_segments`] for `dwords` (1, 2 or 4; else false), out of line as [`load_run`].
#[inline(never)]
fn load_segments(rows: &mut [u32], at: &Span, dwords: usize) -> bool {
    match dwords {
        1 => gather_segments::<1>(rows, at),
        2 => gather_segments::<2>(rows, at),
        4 => gather_segments::<4>(rows, at),
        _ => false,
    }
}

/// The bytes a [`segmented`] full wave's segments of `bytes` per lane cover, lowest start to
/// highest end (`None` on address overflow).
fn segments_extent(addrs: &[u64; MAX_LANES], bytes: u64) -> Option<(u64, u64)> {
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for first in (0..MAX_LANES).step_by(SEGMENT_LANES) {
        lo = lo.min(addrs[first]);
        hi = hi.max(addrs[first].checked_add(bytes * SEGMENT_LANES as u64)?);
    }
    Some((lo, hi))
}

/// [`scatter_run`] for the segment of lanes `first..first + SEGMENT_LANES` into `out`, its
/// `SEGMENT_LANES * 4 * D` bytes.
#[inline(always)]
fn scatter_segment<const D: usize>(rows: &[u32], first: usize, out: &mut [u8]) {
    // The rows as whole arrays and a lane's dwords gathered first, then written as one piece:
    // no bounds check in the loop (through a slice of the lane's bytes, ~9 host instructions
    // a dword).
    let mut row: [&[u32; MAX_LANES]; D] = [&[0; MAX_LANES]; D];
    for (k, r) in row.iter_mut().enumerate() {
        match rows.get(k * MAX_LANES..(k + 1) * MAX_LANES).and_then(|x| x.try_into().ok()) {
            Some(x) => *r = x,
            None => return,
        }
    }
    for (i, piece) in out.chunks_exact_mut(4 * D).take(SEGMENT_LANES).enumerate() {
        let l = (first + i) % MAX_LANES;
        for (b, r) in piece.chunks_exact_mut(4).zip(row) {
            b.copy_from_slice(&r[l].to_le_bytes());
        }
    }
}

/// Store a [`segmented`] full wave's `D` rows segment by segment, in ascending lane order (the
/// per-lane path's, so segments that overlap leave the same final bytes); `data` from
/// `base` holds every segment ([`segments_extent`]).
fn store_segments<const D: usize>(rows: &[u32], addrs: &[u64; MAX_LANES], base: u64, data: &mut [u8]) {
    for first in (0..MAX_LANES).step_by(SEGMENT_LANES) {
        let o = addrs[first].wrapping_sub(base) as usize;
        if let Some(out) = data.get_mut(o..o.wrapping_add(4 * D * SEGMENT_LANES)) {
            scatter_segment::<D>(rows, first, out);
        }
    }
}

/// [`gather`] for lanes `0..n` all reading the one dword at lane 0's address (checked by the
/// caller): that dword into each lane. False (nothing done) when it is not inside `data`.
#[inline(never)]
fn load_uniform(rows: &mut [u32], at: &Span) -> bool {
    let Some(n) = low_run(at.exec) else { return false };
    let o = at.addrs[0].wrapping_sub(at.base) as usize;
    let Some(b) = at.data.get(o..o.wrapping_add(4)) else { return false };
    let v = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    rows.iter_mut().take(n.min(MAX_LANES)).for_each(|x| *x = v);
    true
}

/// The general case of [`gather`]: any count, rows that wrap past v255.
fn gather_rows(w: &mut Wave, at: &Span, dst: usize, dwords: usize) -> bool {
    at.each(|lane| {
        let Some(o) = at.offset(lane) else { return false };
        for k in 0..dwords {
            w.row_mut((dst + k) % 256)[lane] = dword_at(at.data, o + 4 * k);
        }
        true
    })
}

/// Store `dwords` dwords per active lane from VGPRs `src..`; false (nothing done) when the
/// lanes do not all fall in one allocation.
pub fn store_dwords(w: &mut Wave, mem: &mut Memory, addrs: &[u64; MAX_LANES], src: usize, dwords: usize) -> bool {
    let exec = w.exec();
    let bytes = 4 * dwords as u64;
    // Lanes `0..n` storing consecutive pieces (a coalesced store): their range is known without
    // a pass over the lanes, and as no two lanes' bytes overlap, the order they go out in
    // cannot matter.
    let run = low_run(exec).filter(|&n| matches!(dwords, 1 | 2 | 4) && src + dwords <= 256 && consecutive(addrs, n, bytes));
    // Else a full wave in tile rows of consecutive pieces: segment by segment.
    let seg = run.is_none() && exec == u64::MAX && matches!(dwords, 1 | 2 | 4) && src + dwords <= 256 && segmented(addrs, bytes);
    let range = match run {
        Some(n) => addrs[0].checked_add(bytes * n as u64).map(|end| (addrs[0], end)),
        None if seg => segments_extent(addrs, bytes),
        None => extent(addrs, exec, bytes),
    };
    let Some((lo, end)) = range else { return false };
    let Some((base, data)) = mem.span_mut(lo, end) else { return false };
    w.writes += 1;
    let first = exec.trailing_zeros() as usize;
    if first < MAX_LANES {
        w.last_write.set(Some(crate::wave::LastRead::new(first as u32, false, addrs[first], &w.v(src % 256, first).to_le_bytes())));
    }
    let at = Span { data: &[], addrs, base, limit: 0, exec };
    let rows = w.vgpr.get(src * MAX_LANES..(src + dwords) * MAX_LANES);
    if let (Some(n), Some(rows)) = (run, rows) {
        let o = (lo - base) as usize;
        match dwords {
            1 => scatter_run::<1>(rows, &mut data[o..o + 4 * n]),
            2 => scatter_run::<2>(rows, &mut data[o..o + 8 * n]),
            _ => scatter_run::<4>(rows, &mut data[o..o + 16 * n]),
        }
        return true;
    }
    if let (true, Some(rows)) = (seg, rows) {
        match dwords {
            1 => store_segments::<1>(rows, addrs, base, data),
            2 => store_segments::<2>(rows, addrs, base, data),
            _ => store_segments::<4>(rows, addrs, base, data),
        }
        return true;
    }
    match (dwords, rows) {
        (1, Some(rows)) if src + dwords <= 256 => scatter::<1>(rows, &at, data),
        (2, Some(rows)) if src + dwords <= 256 => scatter::<2>(rows, &at, data),
        (3, Some(rows)) if src + dwords <= 256 => scatter::<3>(rows, &at, data),
        (4, Some(rows)) if src + dwords <= 256 => scatter::<4>(rows, &at, data),
        _ => scatter_rows(w, &at, data, src, dwords),
    }
    true
}

/// Store the `D` rows of `rows` lane by lane into `data` (every active lane's access is
/// inside it, [`extent`]): a lane's dwords go out through one slice of `data`.
#[inline(always)]
fn scatter<const D: usize>(rows: &[u32], at: &Span, data: &mut [u8]) {
    // A plain loop over the mask rather than `Span::each`: the closure that took was at times
    // compiled out of line (a call per lane), depending on how the crate was split for codegen.
    let mut m = at.exec;
    while m != 0 {
        let lane = m.trailing_zeros() as usize % MAX_LANES;
        m &= m - 1;
        let o = (at.addrs[lane] - at.base) as usize;
        let out = &mut data[o..o + 4 * D];
        for (k, row) in rows.chunks_exact(MAX_LANES).take(D).enumerate() {
            out[4 * k..4 * k + 4].copy_from_slice(&row[lane].to_le_bytes());
        }
    }
}

/// [`scatter`] for lanes `0..n` writing one run of consecutive bytes, `out` (`4 * D * n`
/// bytes): lane `l`'s dword `k` is dword `D·l + k` of the run, interleaved from the rows
/// without per-lane addresses or bounds checks.
#[inline(always)]
fn scatter_run<const D: usize>(rows: &[u32], out: &mut [u8]) {
    if D == 1 {
        for (b, x) in out.chunks_exact_mut(4).zip(rows) {
            b.copy_from_slice(&x.to_le_bytes());
        }
        return;
    }
    for (lane, piece) in out.chunks_exact_mut(4 * D).enumerate() {
        for k in 0..D {
            let v = rows.get(k * MAX_LANES + lane % MAX_LANES).copied().unwrap_or(0);
            piece[4 * k..4 * k + 4].copy_from_slice(&v.to_le_bytes());
        }
    }
}

/// The general case of [`scatter`]: any count, rows that wrap past v255.
fn scatter_rows(w: &Wave, at: &Span, data: &mut [u8], src: usize, dwords: usize) {
    at.each(|lane| {
        let o = (at.addrs[lane] - at.base) as usize;
        for k in 0..dwords {
            let v = w.v((src + k) % 256, lane);
            data[o + 4 * k..o + 4 * k + 4].copy_from_slice(&v.to_le_bytes());
        }
        true
    });
}

#[cfg(test)]
mod tests {
    //! Differential: the whole-run copy (`gather_run`), the per-segment copies
    //! (`gather_segments`, `store_segments`) and the lane-by-lane copies against a reference
    //! that reads or writes each active lane's bytes on its own, in ascending lane order,
    //! through `Memory::read`/`write`: consecutive runs (full wave64, wave32-sized low runs,
    //! runs reaching past the allocation), every lane at one address, runs with one lane
    //! moved, rows of 16 lanes a random distance apart (overlapping or past the allocation at
    //! times), partial masks and scattered lanes.
    use super::{load_dwords, store_dwords};
    use crate::fault::WaveId;
    use crate::memory::{Memory, MemoryKind};
    use crate::wave::{Wave, MAX_LANES};
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    const BYTES: usize = 4096;

    /// Memory with one allocation of seeded bytes, and its base.
    fn memory(seed: u64) -> (Memory, u64) {
        let mut s = StdRng::seed_from_u64(seed);
        let data = (0..BYTES).map(|_| s.random::<u64>() as u8).collect();
        let mut m = Memory::new();
        let base = m.alloc_init("buf", data, MemoryKind::Device);
        (m, base)
    }

    /// Lane addresses and an EXEC mask of one of the shapes the module's comment lists.
    fn shape(seed: u64, base: u64, step: u64) -> ([u64; MAX_LANES], u64) {
        let mut s = StdRng::seed_from_u64(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let start = base + s.random::<u64>() % (BYTES as u64 / 4) * 4;
        let mut addrs = [0u64; MAX_LANES];
        for (l, a) in addrs.iter_mut().enumerate() {
            *a = start + step * l as u64;
        }
        let exec = match seed % 6 {
            0 | 1 => u64::MAX,
            2 => u64::from(u32::MAX),
            3 => s.random::<u64>(),
            _ => u64::MAX >> (s.random::<u64>() % 64),
        };
        match seed % 7 {
            6 => addrs.iter_mut().for_each(|a| *a = start),
            // Tile rows of 16 lanes, a random (possibly overlapping) distance apart.
            5 => {
                let stride = s.random::<u64>() % (BYTES as u64 / 16) * 4;
                addrs.iter_mut().enumerate().for_each(|(l, a)| *a = start + stride * (l / 16) as u64 + step * (l % 16) as u64);
            }
            0 => addrs[(s.random::<u64>() % MAX_LANES as u64) as usize] += 4,
            1 => addrs.iter_mut().for_each(|a| *a = base + s.random::<u64>() % (BYTES as u64 / 4) * 4),
            _ => {}
        }
        (addrs, exec)
    }

    /// A wave with seeded registers and `exec`.
    fn wave(seed: u64, exec: u64) -> Wave {
        let mut w = Wave::new(WaveId::default(), true);
        let mut s = StdRng::seed_from_u64(seed);
        for r in 0..16 {
            for lane in 0..MAX_LANES {
                w.set_v(r, lane, s.random::<u64>() as u32);
            }
        }
        w.set_exec(exec);
        w
    }

    #[test]
    fn loads_match_lane_by_lane_reads() {
        let (mut fast, mut segments) = (0, 0);
        for dwords in 1..=4usize {
            for seed in 1..400u64 {
                let (mem, base) = memory(seed);
                let (addrs, exec) = shape(seed, base, 4 * dwords as u64);
                let mut w = wave(seed, exec);
                let mut want = w.vgpr.clone();
                let mut ok = true;
                for lane in (0..MAX_LANES).filter(|l| exec >> l & 1 == 1) {
                    let mut b = vec![0u8; 4 * dwords];
                    ok &= mem.read(addrs[lane], &mut b).is_ok();
                    for k in 0..dwords {
                        want[(4 + k) * MAX_LANES + lane] = u32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]]);
                    }
                }
                let done = load_dwords(&mut w, &mem, &addrs, 4, dwords);
                if done {
                    assert!(ok, "dwords {dwords} seed {seed}: a lane outside the allocation was loaded");
                    assert_eq!(w.vgpr, want, "dwords {dwords} seed {seed}");
                    fast += u32::from(exec == u64::MAX && seed % 7 > 1);
                    // A full wave in rows of 16 (dwordx3 has no per-segment copy).
                    segments += u32::from(exec == u64::MAX && seed % 7 == 5 && dwords != 3);
                }
            }
        }
        assert!(fast > 200, "{fast} consecutive full-wave loads");
        assert!(segments > 10, "{segments} loads of full waves in rows");
    }

    #[test]
    fn stores_match_lane_by_lane_writes() {
        let (mut done_n, mut segments) = (0, 0);
        for dwords in 1..=4usize {
            for seed in 1..400u64 {
                let (mut mem, base) = memory(seed);
                let (mut want, _) = memory(seed);
                let (addrs, exec) = shape(seed, base, 4 * dwords as u64);
                let mut w = wave(seed, exec);
                let mut ok = true;
                for lane in (0..MAX_LANES).filter(|l| exec >> l & 1 == 1) {
                    let b: Vec<u8> = (0..dwords).flat_map(|k| w.v(4 + k, lane).to_le_bytes()).collect();
                    ok &= want.write(addrs[lane], &b).is_ok();
                }
                let before = mem.bytes(base, BYTES as u64).expect("the allocation").to_vec();
                let done = store_dwords(&mut w, &mut mem, &addrs, 4, dwords);
                let after = mem.bytes(base, BYTES as u64).expect("the allocation").to_vec();
                if done {
                    assert!(ok, "dwords {dwords} seed {seed}: a lane outside the allocation was stored");
                    assert_eq!(after, want.bytes(base, BYTES as u64).expect("the allocation"), "dwords {dwords} seed {seed}");
                    done_n += 1;
                    segments += u32::from(exec == u64::MAX && seed % 7 == 5 && dwords != 3);
                } else {
                    assert_eq!(after, before, "dwords {dwords} seed {seed}: a refused store changed memory");
                }
            }
        }
        assert!(done_n > 800, "{done_n}");
        assert!(segments > 10, "{segments} stores of full waves in rows");
    }
}
