//! Bounds-checked byte access to the work-group's LDS.
//!
//! An access is in range when all its bytes lie below `limit`: the work-group's LDS size, and
//! on GFX8 also `M0[16:0]`, which DS instructions use to clamp addresses ("All LDS operations
//! require that M0 be initialized"; GFX9 and later ignore M0 for addressing). Hardware returns
//! zero / drops out-of-range accesses; hipscope reports them as `FaultKind::LdsViolation`,
//! since they are kernel bugs (LDS is allocated in granules, so hardware may also accept a few
//! bytes past the requested size).

use crate::fault::FaultKind;

fn check(lds_len: usize, limit: usize, lane: usize, off: u32, size: usize) -> Result<usize, FaultKind> {
    let start = off as usize;
    if start.checked_add(size).is_some_and(|end| end <= limit) {
        Ok(start)
    } else {
        Err(FaultKind::LdsViolation { lane: lane as u32, offset: off as u64, size: size as u32, lds_bytes: lds_len as u32 })
    }
}

pub(crate) fn read(lds: &[u8], limit: usize, lane: usize, off: u32, buf: &mut [u8]) -> Result<(), FaultKind> {
    let s = check(lds.len(), limit.min(lds.len()), lane, off, buf.len())?;
    buf.copy_from_slice(&lds[s..s + buf.len()]);
    Ok(())
}

pub(crate) fn write(lds: &mut [u8], limit: usize, lane: usize, off: u32, bytes: &[u8]) -> Result<(), FaultKind> {
    let s = check(lds.len(), limit.min(lds.len()), lane, off, bytes.len())?;
    lds[s..s + bytes.len()].copy_from_slice(bytes);
    Ok(())
}

pub(crate) fn read_u32(lds: &[u8], limit: usize, lane: usize, off: u32) -> Result<u32, FaultKind> {
    let mut b = [0u8; 4];
    read(lds, limit, lane, off, &mut b)?;
    Ok(u32::from_le_bytes(b))
}

pub(crate) fn write_u32(lds: &mut [u8], limit: usize, lane: usize, off: u32, v: u32) -> Result<(), FaultKind> {
    write(lds, limit, lane, off, &v.to_le_bytes())
}
