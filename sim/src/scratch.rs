//! The private-segment (scratch) backing store of a dispatch: one slot of `per_lane × lanes`
//! bytes per wave that can be resident at once. On a big GPU that is thousands of waves, so
//! a per-lane size within the hardware limit (`limits::max_wave_scratch_bytes`) can still
//! ask for more host memory than exists; a launch refuses such a store with an error instead
//! of letting the allocation abort the process.

/// The most host memory one dispatch's store may take, however much the host has. Compiled
/// kernels use kilobytes per lane at most, and 16 GiB gives each of MI300X's 9 728 wave slots
/// (304 CUs × 4 SIMDs × 8 waves) 27 KiB per lane in wave64; the hardware's maximum of
/// 131 056 bytes per lane on all of them would need 81.6 GB.
pub const MAX_STORE_BYTES: u64 = 16 << 30;

/// Bytes one lane takes in the store: the descriptor's `PRIVATE_SEGMENT_FIXED_SIZE` rounded up
/// to dwords (the swizzle unit of the private-segment buffer).
pub fn per_lane_bytes(private_segment_fixed_size: u32) -> u64 {
    u64::from(private_segment_fixed_size).next_multiple_of(4)
}

/// Bytes a store of `slots` wave slots needs (saturating: the result is compared with a limit).
pub fn store_bytes(slots: u64, lanes: u64, per_lane: u64) -> u64 {
    slots.saturating_mul(lanes).saturating_mul(per_lane)
}

/// What a store may take: [`MAX_STORE_BYTES`], or less when the host has less available.
pub fn host_budget() -> u64 {
    MAX_STORE_BYTES.min(crate::gpus::host_available_bytes().unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_round_to_dwords_and_saturate() {
        assert_eq!((per_lane_bytes(0), per_lane_bytes(1), per_lane_bytes(8)), (0, 4, 8));
        assert_eq!(per_lane_bytes(u32::MAX), 1 << 32);
        assert_eq!(store_bytes(9728, 64, 131_056), 81_594_417_152);
        assert_eq!(store_bytes(u64::MAX, 64, 4), u64::MAX);
        assert!(host_budget() <= MAX_STORE_BYTES);
    }
}
