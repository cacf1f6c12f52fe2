//! Which channel of an interleaved resource (L2 channels, DRAM channels) serves an address.
//!
//! Consecutive `interleave_bytes` blocks go to consecutive channels, and each whole round of
//! channels is rotated by a hash of its number, so that blocks a round of channels apart do
//! not land on the same channel. Without the fold, work-groups reading equal offsets
//! of power-of-two-sized slices (gpu-l2-cache: 16 KiB per step) all queue on the same few
//! channels at once and reach a fraction of the bandwidth the real L2 delivers on that pattern
//! (MI210 ~5 TB/s, MI300X ~19.5 TB/s). AMD does not document its channel hash; the fold is an
//! assumption that removes such camping, not a copy of the hardware's function.

/// The channel of `address` among `channels`.
#[inline]
pub fn of(address: u64, interleave_bytes: u32, channels: usize) -> usize {
    fold(address / interleave_bytes.max(1) as u64, channels.max(1) as u64) as usize
}

/// `value` modulo `n`, rotated by a mix of `value / n`: consecutive values take consecutive
/// results (an aligned run of `n` values covers every result once), and values a multiple of
/// `n` apart land far apart. Also the L2's and MALL's set index (see `Cache::hashed`).
#[inline]
pub fn fold(value: u64, n: u64) -> u64 {
    // Fibonacci hashing: the golden-ratio multiple spreads small `high` over all 32 bits.
    let mix = |high: u64| high.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
    if n.is_power_of_two() {
        // The common case (set and channel counts), without divisions: it runs on every
        // cache lookup.
        let mask = n - 1;
        (value + mix(value >> n.trailing_zeros())) & mask
    } else {
        (value % n + mix(value / n) % n) % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consecutive_blocks_take_consecutive_channels() {
        let chans: Vec<usize> = (0..16).map(|b| of(b * 256, 256, 16)).collect();
        assert_eq!(chans, (0..16).collect::<Vec<_>>());
    }

    /// Equal offsets of 16 KiB slices (64 blocks of 256 B, 32 channels) spread over channels.
    #[test]
    fn strided_slices_spread() {
        let mut seen = std::collections::BTreeSet::new();
        for slice in 0..32u64 {
            seen.insert(of(slice * 16384, 256, 32));
        }
        assert!(seen.len() >= 16, "only {} channels for 32 slices", seen.len());
    }

    /// The power-of-two fast path gives what the general formula gives.
    #[test]
    fn power_of_two_path_agrees() {
        let general = |v: u64, n: u64| (v % n + ((v / n).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) % n) % n;
        for n in [1u64, 2, 16, 2048] {
            for v in (0..100_000u64).map(|i| i.wrapping_mul(7919)) {
                assert_eq!(fold(v, n), general(v, n), "v {v} n {n}");
            }
        }
    }

    #[test]
    fn balanced_over_a_contiguous_range() {
        let mut count = [0u32; 32];
        for b in 0..32 * 64u64 {
            count[of(b * 256, 256, 32)] += 1;
        }
        assert!(count.iter().all(|&c| c == 64), "{count:?}");
    }
}
