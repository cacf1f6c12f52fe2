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

/// Tag accesses and busy cycles of one wave instruction. `lanes` is in ascending lane order.
pub fn lookups(lanes: &[LaneAccess], lanes_per_pass: u32, block_bytes: u32) -> Lookups {
    lookups_with(lanes, lanes_per_pass, block_bytes, &mut Scratch::default())
}

/// Reusable buffers for [`lookups_with`] (the memory system keeps one, so the per-instruction
/// path allocates nothing).
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    blocks: Distinct,
    pass_blocks: Distinct,
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

/// [`lookups`] with caller-owned buffers.
pub fn lookups_with(lanes: &[LaneAccess], lanes_per_pass: u32, block_bytes: u32, scratch: &mut Scratch) -> Lookups {
    let mut total = 0u64;
    let mut cycles = 0u64;
    let Scratch { blocks, pass_blocks } = scratch;
    let mut i = 0;
    while i < lanes.len() {
        let pass = lanes[i].0 / lanes_per_pass;
        let end = lanes[i..].iter().position(|l| l.0 / lanes_per_pass != pass).map_or(lanes.len(), |n| i + n);
        let group = &lanes[i..end];
        let dwords = group.iter().map(|l| l.2.div_ceil(4)).max().unwrap_or(1);
        pass_blocks.clear();
        for k in 0..dwords {
            blocks.clear();
            for &(_, a, size) in group {
                if k * 4 < size.max(1) {
                    let at = a.wrapping_add(4 * k as u64);
                    let last = at.wrapping_add((size - 4 * k).clamp(1, 4) as u64 - 1);
                    blocks.insert(at / block_bytes as u64);
                    blocks.insert(last / block_bytes as u64);
                }
            }
            total += blocks.len() as u64;
            for &b in blocks.items.iter() {
                pass_blocks.insert(b);
            }
        }
        cycles += pass_blocks.len() as u64;
        i = end;
    }
    Lookups { tag_accesses: total, block_cycles: cycles }
}

/// Tag accesses of one wave instruction (see [`lookups`]).
pub fn tag_accesses(lanes: &[LaneAccess], lanes_per_pass: u32, block_bytes: u32) -> u64 {
    lookups(lanes, lanes_per_pass, block_bytes).tag_accesses
}

#[cfg(test)]
mod tests {
    use super::*;

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
