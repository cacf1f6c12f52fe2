//! Where the elements of A, B, C and D sit in a wave's registers, and the CBSZ/ABID/BLGP
//! operand controls. Facts from the "Matrix Arithmetic Instructions" chapters (dependent
//! register layouts, "Broadcasting" of A blocks with CBSZ/ABID, "B matrix lane group pattern"
//! BLGP) of the AMD Instinct MI100/MI200/MI300 ISA guides, as stated by AMD's Matrix
//! Instruction Calculator (its gfx9 `get_reg_lanes` rules); wave64 only (CDNA has no wave32).
//!
//! Inputs: an input matrix with R "outer" rows (A: M rows; B: N columns), inner dimension K
//! and B blocks is spread over the 64 lanes in `64 / (R·B)` lane groups of R lanes; each lane
//! holds `per_lane = K / (64 / (R·B))` consecutive k values in consecutive register slots
//! (slot = 32, 16 or 8 bits, or a register pair for f64). Lane `l` holds outer index `l % R`
//! of block `(l / R) % B`, k values from `((l / R) / B) · per_lane`.
//!
//! Outputs (C and D): 32-bit results are written in 4-row groups: one register holds 4-row
//! "multi-rows" of N lanes each, `64 / N` of them per register, blocks side by side when a
//! block is smaller than a register; f64 results use 1-row groups of register pairs.

use super::shape::Shape;

/// Lanes of a CDNA wave.
pub const LANES: usize = 64;

/// Elements per lane of an input with `outer` rows, inner dimension `k` and `blocks` blocks.
pub fn per_lane(outer: u32, k: u32, blocks: u32) -> u32 {
    let groups = (LANES as u32 / (outer * blocks).max(1)).max(1);
    (k / groups).max(1)
}

/// (block, outer index, first k) of the elements lane `lane` holds.
#[inline]
pub fn input_coord(outer: u32, blocks: u32, per_lane: u32, lane: u32) -> (u32, u32, u32) {
    let g = lane / outer;
    (g % blocks, lane % outer, g / blocks * per_lane)
}

/// Output register unit (a VGPR for 32-bit results, a VGPR pair for f64) and lane of
/// D[i][j] of block `b`.
pub fn output(s: &Shape, i: u32, j: u32, b: u32) -> (u32, u32) {
    let (m, n) = (s.m as u32, s.n as u32);
    let height = if s.ty.out_bits() == 64 { 1 } else { 4 };
    let multirows = LANES as u32 / n;
    let blocks_per_reg = (LANES as u32).div_ceil(n * m / height).max(1);
    let reg = b * (m * n / LANES as u32) + i / (height * multirows) * height + i % height;
    let lane = (b % blocks_per_reg) * n + (i / height % multirows) * blocks_per_reg * n + j;
    (reg, lane)
}

/// The lane whose B values lane `lane` uses under BLGP `blgp` (0: as is; 1/2: the first/second
/// 32 lanes broadcast; 3: rotate down by 16; 4..=7: one 16-lane group broadcast).
pub fn blgp_lane(lane: u32, blgp: u32) -> u32 {
    match blgp {
        1 => lane % 32,
        2 => lane % 32 + 32,
        3 => (lane + 16) % 64,
        4..=7 => lane % 16 + (blgp - 4) * 16,
        _ => lane,
    }
}

/// The A block output block `b` uses: with CBSZ, one block of every `2^cbsz` (the ABID-th)
/// is broadcast to the others of its group.
pub fn a_block(b: u32, cbsz: u32, abid: u32, blocks: u32) -> u32 {
    if cbsz == 0 {
        return b;
    }
    let group = 1u32 << cbsz.min(4);
    ((b / group * group) + abid) % blocks.max(1)
}

#[cfg(test)]
mod tests {
    use super::super::shape::{In, Shape};
    use super::*;

    fn shape(m: u8, n: u8, blocks: u8, ty: In) -> Shape {
        Shape { m, n, k: 1, blocks, ty, sparse: false }
    }

    #[test]
    fn outputs_cover_every_register_lane_once() {
        for s in [
            shape(32, 32, 1, In::F16),
            shape(32, 32, 2, In::F32),
            shape(16, 16, 4, In::F32),
            shape(4, 4, 16, In::F32),
            shape(16, 16, 1, In::F64),
            shape(4, 4, 4, In::F64),
        ] {
            let mut seen = std::collections::HashSet::new();
            for b in 0..s.blocks as u32 {
                for i in 0..s.m as u32 {
                    for j in 0..s.n as u32 {
                        let (r, l) = output(&s, i, j, b);
                        assert!(l < 64 && seen.insert((r, l)), "{s:?} {i} {j} {b}");
                    }
                }
            }
        }
    }

    #[test]
    fn blgp_patterns() {
        assert_eq!((0..64).map(|l| blgp_lane(l, 2)).collect::<Vec<_>>(), (0..64).map(|l| 32 + l % 32).collect::<Vec<_>>());
        assert_eq!(blgp_lane(50, 3), 2);
        assert_eq!(blgp_lane(63, 6), 47);
        assert_eq!(a_block(5, 2, 1, 16), 5);
        assert_eq!(a_block(6, 2, 1, 16), 5);
    }
}
