//! Host memory the timing model of a config takes, so that [`GpuConfig::check`] refuses a
//! config whose caches the host cannot hold before anything is built: a mistyped cache size is
//! an error naming the config rather than an allocation failure.
//!
//! The figures follow what `memsys` builds: a vector L1 per CU, a scalar cache per
//! `cus_per_scalar_cache` CUs, a GL1 per shader array (RDNA), an L2 per XCD and one tag-only
//! MALL. A cache keeps per slot two `u64`s (tag, LRU stamp) and, unless it is tag-only, a fill
//! time, two `u128` byte masks (`memsys::cache::LineMask`: valid and dirty) and the line's
//! bytes (in rows handed out to slots as they first fill, and a row number per slot), and per
//! set a byte (the ways it filled) and, tag-only, two `u32`s (where its tail of ways is); a test in `memsys::cache` holds
//! [`cache_bytes`] to what `Cache::new` allocates.
//!
//! [`GpuConfig::check`]: super::GpuConfig::check

use super::timing::Timing;
use std::mem::size_of;

/// Host bytes of the timing model's caches for `compute_units` CUs with `cfg` (pipes and per-CU
/// queues are small), saturating.
pub fn model_bytes(cfg: &Timing, compute_units: u32) -> u64 {
    let (cus, t) = (compute_units.max(1) as u64, &cfg.topology);
    let xcds = (t.xcds.max(1) as u64).min(cus);
    let arrays = (t.shader_engines as u64 * t.shader_arrays_per_engine as u64).clamp(1, cus);
    let scalars = cus.div_ceil(t.cus_per_scalar_cache.max(1) as u64);
    let per = |n: u64, size_bytes, line_bytes, ways, data| n.saturating_mul(cache_bytes(size_bytes, line_bytes, ways, data));
    let (v, sc) = (&cfg.vector_l1, &cfg.scalar_cache);
    [
        per(cus, v.size_bytes, v.line_bytes, v.ways, true),
        per(scalars, sc.size_bytes, sc.line_bytes, sc.ways, true),
        cfg.gl1.as_ref().map_or(0, |g| per(arrays, g.size_bytes, g.line_bytes, g.ways, true)),
        per(xcds, cfg.l2.size_bytes, cfg.l2.line_bytes, cfg.l2.ways, true),
        cfg.mall.as_ref().map_or(0, |m| per(1, m.size_bytes, m.line_bytes, m.ways, false)),
    ]
    .into_iter()
    .fold(0, u64::saturating_add)
}

/// Host bytes of one cache of `size_bytes` in lines of `line_bytes` and `ways` ways (tags, LRU
/// stamps per slot; unless tag-only, a row number per slot and a row per slot and one more of
/// fill time, byte masks and data; a count per set), saturating.
pub fn cache_bytes(size_bytes: u64, line_bytes: u32, ways: u32, with_data: bool) -> u64 {
    let row = if with_data { size_of::<u64>() + 2 * size_of::<u128>() + line_bytes as usize } else { 0 };
    // A slot's row number (with data), and one spare row.
    let per_slot = 2 * size_of::<u64>() + if with_data { size_of::<u32>() + row } else { 0 };
    let sets = (size_bytes / (line_bytes as u64 * ways as u64).max(1)).max(1);
    // One byte a set counts its filled ways; tag-only, a set's tail and a tail's set (u32s).
    let per_set = 1 + if with_data { 0 } else { 2 * size_of::<u32>() as u64 };
    sets.saturating_mul(ways as u64).saturating_mul(per_slot as u64).saturating_add(sets.saturating_mul(per_set)).saturating_add(row as u64)
}
