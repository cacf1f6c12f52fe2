//! Checked little-endian reads. Every read names the field it is for, so a short buffer becomes
//! a [`Short`] that the caller turns into a located [`super::LoadError`].

/// A read past the end of a buffer: which field, at which offset, how many bytes were there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Short {
    pub field: &'static str,
    pub offset: usize,
    pub len: usize,
}

impl std::fmt::Display for Short {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at byte {:#x} is past the end ({} bytes)", self.field, self.offset, self.len)
    }
}

/// `N` bytes at `offset`, or [`Short`].
pub fn array<const N: usize>(data: &[u8], offset: usize, field: &'static str) -> Result<[u8; N], Short> {
    offset.checked_add(N).and_then(|end| data.get(offset..end)).and_then(|s| <[u8; N]>::try_from(s).ok()).ok_or(Short { field, offset, len: data.len() })
}

pub fn u16_at(data: &[u8], offset: usize, field: &'static str) -> Result<u16, Short> {
    array(data, offset, field).map(u16::from_le_bytes)
}

pub fn u32_at(data: &[u8], offset: usize, field: &'static str) -> Result<u32, Short> {
    array(data, offset, field).map(u32::from_le_bytes)
}

pub fn u64_at(data: &[u8], offset: usize, field: &'static str) -> Result<u64, Short> {
    array(data, offset, field).map(u64::from_le_bytes)
}

/// `data[offset .. offset + len]` with both ends checked (`u64` inputs come straight from files).
pub fn slice(data: &[u8], offset: u64, len: u64) -> Option<&[u8]> {
    let start = usize::try_from(offset).ok()?;
    let end = start.checked_add(usize::try_from(len).ok()?)?;
    data.get(start..end)
}

/// Bits `lo ..= hi` of `v` (inclusive, as AMDGPUUsage writes bit ranges).
pub const fn bits(v: u32, hi: u32, lo: u32) -> u32 {
    (((v as u64) >> lo) & ((1u64 << (hi - lo + 1)) - 1)) as u32
}

/// Bit `n` of `v`.
pub const fn bit(v: u32, n: u32) -> bool {
    (v >> n) & 1 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_checked() {
        let d = [1u8, 2, 3, 4, 5];
        assert_eq!(u32_at(&d, 0, "x"), Ok(0x0403_0201));
        assert!(u32_at(&d, 2, "x").is_err());
        assert!(u32_at(&d, usize::MAX, "x").is_err());
        assert_eq!(slice(&d, 1, 2), Some(&d[1..3]));
        assert_eq!(slice(&d, u64::MAX, 2), None);
        assert_eq!(bits(0b1011_0000, 7, 4), 0b1011);
        assert_eq!(bits(u32::MAX, 31, 0), u32::MAX);
    }
}
