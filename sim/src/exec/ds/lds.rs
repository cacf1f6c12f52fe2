//! Range-checked byte access to the work-group's LDS.
//!
//! An access is in range when all its bytes lie below `limit`: the work-group's LDS size, and
//! on GFX8 also `M0[16:0]`, which DS instructions use to clamp addresses ("All LDS operations
//! require that M0 be initialized"; GFX9 and later ignore M0 for addressing). Out of range, the
//! hardware does not fault: a read returns zero and a write is dropped (the ISA guides' LDS
//! chapters, GCN3 to RDNA4 and CDNA1 to CDNA4: out-of-range reads return 0, writes are
//! ignored). hipscope does the same and counts each such lane access in `oob` (reported as
//! `HS_LDS_OUT_OF_RANGE` and a warning), since it is almost always a kernel bug. (LDS is
//! allocated in granules, so hardware may also accept a few bytes past the requested size;
//! hipscope's range is the requested size.)

use std::cell::Cell;

fn in_range(limit: usize, off: u32, size: usize) -> Option<usize> {
    let start = off as usize;
    start.checked_add(size).is_some_and(|end| end <= limit).then_some(start)
}

fn count(oob: &Cell<u64>) {
    oob.set(oob.get() + 1);
}

/// Read `buf.len()` bytes at `off`: zeros when out of range.
pub(crate) fn read(lds: &[u8], limit: usize, oob: &Cell<u64>, off: u32, buf: &mut [u8]) {
    match in_range(limit.min(lds.len()), off, buf.len()) {
        Some(s) => buf.copy_from_slice(&lds[s..s + buf.len()]),
        None => {
            buf.fill(0);
            count(oob);
        }
    }
}

/// Write `bytes` at `off`: dropped when out of range. Returns whether any byte changed.
pub(crate) fn write(lds: &mut [u8], limit: usize, oob: &Cell<u64>, off: u32, bytes: &[u8]) -> bool {
    match in_range(limit.min(lds.len()), off, bytes.len()) {
        Some(s) => {
            let dst = &mut lds[s..s + bytes.len()];
            let changed = dst != bytes;
            dst.copy_from_slice(bytes);
            changed
        }
        None => {
            count(oob);
            false
        }
    }
}

pub(crate) fn read_u32(lds: &[u8], limit: usize, oob: &Cell<u64>, off: u32) -> u32 {
    let mut b = [0u8; 4];
    read(lds, limit, oob, off, &mut b);
    u32::from_le_bytes(b)
}

pub(crate) fn write_u32(lds: &mut [u8], limit: usize, oob: &Cell<u64>, off: u32, v: u32) -> bool {
    write(lds, limit, oob, off, &v.to_le_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_range_reads_are_zero_and_writes_are_dropped() {
        let mut lds = vec![7u8; 16];
        let oob = Cell::new(0);
        write_u32(&mut lds, usize::MAX, &oob, 12, 0x0102_0304);
        assert_eq!(read_u32(&lds, usize::MAX, &oob, 12), 0x0102_0304);
        assert_eq!(oob.get(), 0);
        // Straddling the end, past it, wrapping the 32-bit offset, or past a GFX8 M0 limit.
        write_u32(&mut lds, usize::MAX, &oob, 14, 0xffff_ffff);
        write_u32(&mut lds, usize::MAX, &oob, u32::MAX - 1, 0xffff_ffff);
        assert_eq!(read_u32(&lds, usize::MAX, &oob, 16), 0);
        assert_eq!(read_u32(&lds, 8, &oob, 8), 0);
        assert_eq!(oob.get(), 4);
        assert_eq!(&lds[8..16], &[7, 7, 7, 7, 4, 3, 2, 1]);
    }
}
