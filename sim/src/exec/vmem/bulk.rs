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
    let done = match (dwords, w.vgpr.get_mut(dst * MAX_LANES..(dst + dwords) * MAX_LANES)) {
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
    let Some((lo, end)) = extent(addrs, exec, 4 * dwords as u64) else { return false };
    let Some((base, data)) = mem.span_mut(lo, end) else { return false };
    w.writes += 1;
    let first = exec.trailing_zeros() as usize;
    if first < MAX_LANES {
        w.last_write.set(Some(crate::wave::LastRead::new(first as u32, false, addrs[first], &w.v(src % 256, first).to_le_bytes())));
    }
    let at = Span { data: &[], addrs, base, limit: 0, exec };
    match (dwords, w.vgpr.get(src * MAX_LANES..(src + dwords) * MAX_LANES)) {
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
    at.each(|lane| {
        let o = (at.addrs[lane] - at.base) as usize;
        let out = &mut data[o..o + 4 * D];
        for (k, row) in rows.chunks_exact(MAX_LANES).take(D).enumerate() {
            out[4 * k..4 * k + 4].copy_from_slice(&row[lane].to_le_bytes());
        }
        true
    });
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
