//! Whole-instruction data movement for the common case: a GLOBAL load or store of whole
//! dwords whose active lanes all fall inside one allocation. One allocation lookup serves
//! every lane and the data moves between the allocation's bytes and the register rows
//! directly. Anything else (sub-dword or D16 shapes, lanes spread over allocations or
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

/// The dword at byte `o` of `data` (0 past its end, which `extent` rules out): one bounds
/// check and one 4-byte load rather than four of each.
#[inline(always)]
fn dword_at(data: &[u8], o: usize) -> u32 {
    data.get(o..o.wrapping_add(4)).and_then(|b| <[u8; 4]>::try_from(b).ok()).map_or(0, u32::from_le_bytes)
}

/// Load `dwords` dwords per active lane into VGPRs `dst..`; false (nothing done) when the
/// lanes do not all fall in one allocation.
pub fn load_dwords(w: &mut Wave, mem: &Memory, addrs: &[u64; MAX_LANES], dst: usize, dwords: usize) -> bool {
    let exec = w.exec();
    let Some((lo, end)) = extent(addrs, exec, 4 * dwords as u64) else { return false };
    let Some((base, data)) = mem.span(lo, end) else { return false };
    let first = exec.trailing_zeros() as usize;
    let o = (addrs[first] - base) as usize;
    w.last_read.set(Some(crate::wave::LastRead::new(first as u32, false, addrs[first], &data[o..o + 4 * dwords])));
    let rows = w.vgpr.get_mut(dst * MAX_LANES..(dst + dwords) * MAX_LANES);
    match (dwords, rows) {
        (1, Some(rows)) => gather::<1>(rows, data, addrs, base, exec),
        (2, Some(rows)) => gather::<2>(rows, data, addrs, base, exec),
        (3, Some(rows)) => gather::<3>(rows, data, addrs, base, exec),
        (4, Some(rows)) => gather::<4>(rows, data, addrs, base, exec),
        _ => gather_rows(w, data, addrs, base, exec, dst, dwords),
    }
    true
}

/// Load `D` consecutive dwords per active lane into the `D` rows of `rows`: all of a lane's
/// dwords come from one bounds-checked slice of `data`, so a dwordx2 or x4 load costs one
/// address and one check per lane rather than one per dword.
#[inline(always)]
fn gather<const D: usize>(rows: &mut [u32], data: &[u8], addrs: &[u64; MAX_LANES], base: u64, exec: u64) {
    let mut m = exec;
    while m != 0 {
        let lane = m.trailing_zeros() as usize % MAX_LANES;
        m &= m - 1;
        let o = (addrs[lane] - base) as usize;
        // `extent` put every lane's access inside `data`; outside would read 0, as `dword_at`.
        let bytes = data.get(o..o.wrapping_add(4 * D));
        for (k, row) in rows.chunks_exact_mut(MAX_LANES).take(D).enumerate() {
            row[lane] = bytes.map_or(0, |b| dword_at(b, 4 * k));
        }
    }
}

/// The general case of [`gather`]: any count, rows that wrap past v255.
fn gather_rows(w: &mut Wave, data: &[u8], addrs: &[u64; MAX_LANES], base: u64, exec: u64, dst: usize, dwords: usize) {
    for k in 0..dwords {
        let row = w.row_mut((dst + k) % 256);
        let mut m = exec;
        while m != 0 {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            row[lane] = dword_at(data, (addrs[lane] - base) as usize + 4 * k);
        }
    }
}

/// Store `dwords` dwords per active lane from VGPRs `src..`; false (nothing done) when the
/// lanes do not all fall in one allocation.
pub fn store_dwords(w: &mut Wave, mem: &mut Memory, addrs: &[u64; MAX_LANES], src: usize, dwords: usize) -> bool {
    let exec = w.exec();
    let Some((lo, end)) = extent(addrs, exec, 4 * dwords as u64) else { return false };
    let Some((base, data)) = mem.span_mut(lo, end) else { return false };
    w.writes += 1;
    let mut m = exec;
    while m != 0 {
        let lane = m.trailing_zeros() as usize;
        m &= m - 1;
        let o = (addrs[lane] - base) as usize;
        for k in 0..dwords {
            let v = w.v((src + k) % 256, lane);
            data[o + 4 * k..o + 4 * k + 4].copy_from_slice(&v.to_le_bytes());
        }
    }
    true
}
