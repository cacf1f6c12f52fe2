//! The register layout of every WMMA/SWMMAC shape, as data.
//!
//! Sources: RDNA3 ISA guide §7.9 "Wave Matrix Multiply Accumulate (WMMA)" (register layout
//! figures of A, B, C/D for wave32 and wave64) and RDNA4 ISA guide §7.9 "WMMA" and "SWMMAC"
//! (dense and sparse layouts, the compression index VGPR); each constant below was checked
//! element by element against AMD's Matrix Instruction Calculator (ROCm
//! amd_matrix_instruction_calculator, `--register-layout`), which tabulates those guides.
//!
//! Every layout is a bijection between matrix positions and (register, lane, slot): the row of
//! A (column of B, column of C/D) is `lane % 16`; the other index (k for A and B, the row for
//! C/D) is assembled bit by bit from the slot within the 32-bit register, the register number
//! and the 16-lane group (`lane / 16`), as each [`Bit`] list says (index bit 0 first). A lane
//! group bit a layout does not use replicates the data (RDNA3 A/B: lanes 16-31 repeat 0-15);
//! the model reads group 0.
//!
//! Sparse A (SWMMAC) is stored compressed: two of every four k values, so A's layout covers
//! K/2 compressed positions; the index VGPR holds a 2-bit index per compressed value (its
//! position within its group of four) in the same scheme, `sets` sets of which
//! `index_key` chooses one (32 / sets bits each).

/// Where one bit of a matrix index comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bit {
    /// Bit n of the element's slot within its 32-bit register.
    Slot(u8),
    /// Bit n of the register number (relative to the operand's first VGPR).
    Reg(u8),
    /// Bit n of the 16-lane group, `lane / 16`.
    Group(u8),
}
use Bit::{Group, Reg, Slot};

/// One operand's layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Bits per element in the register (16-bit C/D of RDNA3 take a half chosen by op_sel).
    pub elem_bits: u8,
    pub bits: &'static [Bit],
    /// `bits` resolved for every index (at compile time): register << 16 | group << 8 | slot,
    /// so that executing looks positions up instead of assembling them bit by bit.
    place: [u32; 64],
}

impl Layout {
    pub const fn new(elem_bits: u8, bits: &'static [Bit]) -> Layout {
        let mut place = [0u32; 64];
        let mut index = 0;
        while index < 64 {
            let (mut reg, mut group, mut slot) = (0u32, 0u32, 0u32);
            let mut i = 0;
            while i < bits.len() {
                let v = (index >> i & 1) as u32;
                match bits[i] {
                    Slot(n) => slot |= v << n,
                    Reg(n) => reg |= v << n,
                    Group(n) => group |= v << n,
                }
                i += 1;
            }
            place[index] = reg << 16 | group << 8 | slot;
            index += 1;
        }
        Layout { elem_bits, bits, place }
    }

    /// VGPRs the operand occupies.
    pub fn regs(&self) -> usize {
        1 << self.bits.iter().filter(|b| matches!(b, Reg(_))).count()
    }

    /// (register, lane, bit offset) of the element at `outer` (row of A, column of B/C/D) and
    /// `index` (k of A/B, row of C/D; below 64).
    #[inline]
    pub fn locate(&self, outer: usize, index: usize) -> (usize, usize, u32) {
        let p = self.place[index & 63];
        ((p >> 16) as usize, (p >> 8 & 0xff) as usize * 16 + outer, (p & 0xff) * self.elem_bits as u32)
    }
}

/// A WMMA/SWMMAC shape: M = N = 16 and `k`, with the layouts of its operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub k: u8,
    /// A (compressed for SWMMAC: K/2 positions), B, and C/D.
    pub a: Layout,
    pub b: Layout,
    pub d: Layout,
    /// SWMMAC: the compression index layout (2-bit elements over the compressed positions).
    pub index: Option<Layout>,
    /// SWMMAC: how many index sets one index VGPR holds.
    pub sets: u8,
}

/// V_WMMA_F32_16X16X16_F16, V_WMMA_F32_16X16X16_BF16 (wave32).
pub const GFX11_W32_K16_16_32: Shape = Shape {
    k: 16,
    a: Layout::new(16, &[Slot(0), Reg(0), Reg(1), Reg(2)]),
    b: Layout::new(16, &[Slot(0), Reg(0), Reg(1), Reg(2)]),
    d: Layout::new(32, &[Group(0), Reg(0), Reg(1), Reg(2)]),
    index: None,
    sets: 0,
};
/// V_WMMA_F32_16X16X16_F16, V_WMMA_F32_16X16X16_BF16 (wave64).
pub const GFX11_W64_K16_16_32: Shape = Shape {
    k: 16,
    a: Layout::new(16, &[Slot(0), Reg(0), Reg(1), Reg(2)]),
    b: Layout::new(16, &[Slot(0), Reg(0), Reg(1), Reg(2)]),
    d: Layout::new(32, &[Group(0), Group(1), Reg(0), Reg(1)]),
    index: None,
    sets: 0,
};
/// V_WMMA_F16_16X16X16_F16, V_WMMA_BF16_16X16X16_BF16 (wave32).
pub const GFX11_W32_K16_16_16: Shape = Shape {
    k: 16,
    a: Layout::new(16, &[Slot(0), Reg(0), Reg(1), Reg(2)]),
    b: Layout::new(16, &[Slot(0), Reg(0), Reg(1), Reg(2)]),
    d: Layout::new(16, &[Group(0), Reg(0), Reg(1), Reg(2)]),
    index: None,
    sets: 0,
};
/// V_WMMA_F16_16X16X16_F16, V_WMMA_BF16_16X16X16_BF16 (wave64).
pub const GFX11_W64_K16_16_16: Shape = Shape {
    k: 16,
    a: Layout::new(16, &[Slot(0), Reg(0), Reg(1), Reg(2)]),
    b: Layout::new(16, &[Slot(0), Reg(0), Reg(1), Reg(2)]),
    d: Layout::new(16, &[Group(0), Group(1), Reg(0), Reg(1)]),
    index: None,
    sets: 0,
};
/// V_WMMA_I32_16X16X16_IU8 (wave32).
pub const GFX11_W32_K16_8_32: Shape = Shape {
    k: 16,
    a: Layout::new(8, &[Slot(0), Slot(1), Reg(0), Reg(1)]),
    b: Layout::new(8, &[Slot(0), Slot(1), Reg(0), Reg(1)]),
    d: Layout::new(32, &[Group(0), Reg(0), Reg(1), Reg(2)]),
    index: None,
    sets: 0,
};
/// V_WMMA_I32_16X16X16_IU8 (wave64).
pub const GFX11_W64_K16_8_32: Shape = Shape {
    k: 16,
    a: Layout::new(8, &[Slot(0), Slot(1), Reg(0), Reg(1)]),
    b: Layout::new(8, &[Slot(0), Slot(1), Reg(0), Reg(1)]),
    d: Layout::new(32, &[Group(0), Group(1), Reg(0), Reg(1)]),
    index: None,
    sets: 0,
};
/// V_WMMA_I32_16X16X16_IU4 (wave32).
pub const GFX11_W32_K16_4_32: Shape = Shape {
    k: 16,
    a: Layout::new(4, &[Slot(0), Slot(1), Slot(2), Reg(0)]),
    b: Layout::new(4, &[Slot(0), Slot(1), Slot(2), Reg(0)]),
    d: Layout::new(32, &[Group(0), Reg(0), Reg(1), Reg(2)]),
    index: None,
    sets: 0,
};
/// V_WMMA_I32_16X16X16_IU4 (wave64).
pub const GFX11_W64_K16_4_32: Shape = Shape {
    k: 16,
    a: Layout::new(4, &[Slot(0), Slot(1), Slot(2), Reg(0)]),
    b: Layout::new(4, &[Slot(0), Slot(1), Slot(2), Reg(0)]),
    d: Layout::new(32, &[Group(0), Group(1), Reg(0), Reg(1)]),
    index: None,
    sets: 0,
};
/// V_WMMA_F32_16X16X16_F16, V_WMMA_F32_16X16X16_BF16 (wave32).
pub const GFX12_W32_K16_16_32: Shape = Shape {
    k: 16,
    a: Layout::new(16, &[Slot(0), Reg(0), Group(0), Reg(1)]),
    b: Layout::new(16, &[Slot(0), Reg(0), Group(0), Reg(1)]),
    d: Layout::new(32, &[Reg(0), Reg(1), Reg(2), Group(0)]),
    index: None,
    sets: 0,
};
/// V_WMMA_F32_16X16X16_F16, V_WMMA_F32_16X16X16_BF16 (wave64).
pub const GFX12_W64_K16_16_32: Shape = Shape {
    k: 16,
    a: Layout::new(16, &[Slot(0), Reg(0), Group(0), Group(1)]),
    b: Layout::new(16, &[Slot(0), Reg(0), Group(0), Group(1)]),
    d: Layout::new(32, &[Reg(0), Reg(1), Group(1), Group(0)]),
    index: None,
    sets: 0,
};
/// V_WMMA_F16_16X16X16_F16, V_WMMA_BF16_16X16X16_BF16 (wave32).
pub const GFX12_W32_K16_16_16: Shape = Shape {
    k: 16,
    a: Layout::new(16, &[Slot(0), Reg(0), Group(0), Reg(1)]),
    b: Layout::new(16, &[Slot(0), Reg(0), Group(0), Reg(1)]),
    d: Layout::new(16, &[Slot(0), Reg(0), Reg(1), Group(0)]),
    index: None,
    sets: 0,
};
/// V_WMMA_F16_16X16X16_F16, V_WMMA_BF16_16X16X16_BF16 (wave64).
pub const GFX12_W64_K16_16_16: Shape = Shape {
    k: 16,
    a: Layout::new(16, &[Slot(0), Reg(0), Group(0), Group(1)]),
    b: Layout::new(16, &[Slot(0), Reg(0), Group(0), Group(1)]),
    d: Layout::new(16, &[Slot(0), Reg(0), Group(1), Group(0)]),
    index: None,
    sets: 0,
};
/// V_WMMA_I32_16X16X16_IU8, V_WMMA_F32_16X16X16_FP8_FP8, V_WMMA_F32_16X16X16_FP8_BF8, V_WMMA_F32_16X16X16_BF8_FP8, V_WMMA_F32_16X16X16_BF8_BF8 (wave32).
pub const GFX12_W32_K16_8_32: Shape = Shape {
    k: 16,
    a: Layout::new(8, &[Slot(0), Slot(1), Reg(0), Group(0)]),
    b: Layout::new(8, &[Slot(0), Slot(1), Reg(0), Group(0)]),
    d: Layout::new(32, &[Reg(0), Reg(1), Reg(2), Group(0)]),
    index: None,
    sets: 0,
};
/// V_WMMA_I32_16X16X16_IU8, V_WMMA_F32_16X16X16_FP8_FP8, V_WMMA_F32_16X16X16_FP8_BF8, V_WMMA_F32_16X16X16_BF8_FP8, V_WMMA_F32_16X16X16_BF8_BF8 (wave64).
pub const GFX12_W64_K16_8_32: Shape = Shape {
    k: 16,
    a: Layout::new(8, &[Slot(0), Slot(1), Group(1), Group(0)]),
    b: Layout::new(8, &[Slot(0), Slot(1), Group(1), Group(0)]),
    d: Layout::new(32, &[Reg(0), Reg(1), Group(1), Group(0)]),
    index: None,
    sets: 0,
};
/// V_WMMA_I32_16X16X16_IU4 (wave32).
pub const GFX12_W32_K16_4_32: Shape = Shape {
    k: 16,
    a: Layout::new(4, &[Slot(0), Slot(1), Slot(2), Group(0)]),
    b: Layout::new(4, &[Slot(0), Slot(1), Slot(2), Group(0)]),
    d: Layout::new(32, &[Reg(0), Reg(1), Reg(2), Group(0)]),
    index: None,
    sets: 0,
};
/// V_WMMA_I32_16X16X16_IU4 (wave64).
pub const GFX12_W64_K16_4_32: Shape = Shape {
    k: 16,
    a: Layout::new(4, &[Slot(0), Slot(1), Slot(2), Group(0)]),
    b: Layout::new(4, &[Slot(0), Slot(1), Slot(2), Group(0)]),
    d: Layout::new(32, &[Reg(0), Reg(1), Group(1), Group(0)]),
    index: None,
    sets: 0,
};
/// V_WMMA_I32_16X16X32_IU4 (wave32).
pub const GFX12_W32_K32_4_32: Shape = Shape {
    k: 32,
    a: Layout::new(4, &[Slot(0), Slot(1), Slot(2), Reg(0), Group(0)]),
    b: Layout::new(4, &[Slot(0), Slot(1), Slot(2), Reg(0), Group(0)]),
    d: Layout::new(32, &[Reg(0), Reg(1), Reg(2), Group(0)]),
    index: None,
    sets: 0,
};
/// V_WMMA_I32_16X16X32_IU4 (wave64).
pub const GFX12_W64_K32_4_32: Shape = Shape {
    k: 32,
    a: Layout::new(4, &[Slot(0), Slot(1), Slot(2), Group(1), Group(0)]),
    b: Layout::new(4, &[Slot(0), Slot(1), Slot(2), Group(1), Group(0)]),
    d: Layout::new(32, &[Reg(0), Reg(1), Group(1), Group(0)]),
    index: None,
    sets: 0,
};
/// V_SWMMAC_F32_16X16X32_F16, V_SWMMAC_F32_16X16X32_BF16 (wave32).
pub const GFX12_W32_SK32_16_32: Shape = Shape {
    k: 32,
    a: Layout::new(16, &[Slot(0), Reg(0), Group(0), Reg(1)]),
    b: Layout::new(16, &[Slot(0), Reg(0), Reg(1), Group(0), Reg(2)]),
    d: Layout::new(32, &[Reg(0), Reg(1), Reg(2), Group(0)]),
    index: Some(Layout::new(2, &[Slot(0), Slot(1), Group(0), Slot(2)])),
    sets: 2,
};
/// V_SWMMAC_F32_16X16X32_F16, V_SWMMAC_F32_16X16X32_BF16 (wave64).
pub const GFX12_W64_SK32_16_32: Shape = Shape {
    k: 32,
    a: Layout::new(16, &[Slot(0), Reg(0), Group(0), Group(1)]),
    b: Layout::new(16, &[Slot(0), Reg(0), Reg(1), Group(0), Group(1)]),
    d: Layout::new(32, &[Reg(0), Reg(1), Group(1), Group(0)]),
    index: Some(Layout::new(2, &[Slot(0), Slot(1), Group(0), Group(1)])),
    sets: 4,
};
/// V_SWMMAC_F16_16X16X32_F16, V_SWMMAC_BF16_16X16X32_BF16 (wave32).
pub const GFX12_W32_SK32_16_16: Shape = Shape {
    k: 32,
    a: Layout::new(16, &[Slot(0), Reg(0), Group(0), Reg(1)]),
    b: Layout::new(16, &[Slot(0), Reg(0), Reg(1), Group(0), Reg(2)]),
    d: Layout::new(16, &[Slot(0), Reg(0), Reg(1), Group(0)]),
    index: Some(Layout::new(2, &[Slot(0), Slot(1), Group(0), Slot(2)])),
    sets: 2,
};
/// V_SWMMAC_F16_16X16X32_F16, V_SWMMAC_BF16_16X16X32_BF16 (wave64).
pub const GFX12_W64_SK32_16_16: Shape = Shape {
    k: 32,
    a: Layout::new(16, &[Slot(0), Reg(0), Group(0), Group(1)]),
    b: Layout::new(16, &[Slot(0), Reg(0), Reg(1), Group(0), Group(1)]),
    d: Layout::new(16, &[Slot(0), Reg(0), Group(1), Group(0)]),
    index: Some(Layout::new(2, &[Slot(0), Slot(1), Group(0), Group(1)])),
    sets: 4,
};
/// V_SWMMAC_I32_16X16X32_IU8, V_SWMMAC_F32_16X16X32_FP8_FP8, V_SWMMAC_F32_16X16X32_FP8_BF8, V_SWMMAC_F32_16X16X32_BF8_FP8, V_SWMMAC_F32_16X16X32_BF8_BF8 (wave32).
pub const GFX12_W32_SK32_8_32: Shape = Shape {
    k: 32,
    a: Layout::new(8, &[Slot(0), Slot(1), Reg(0), Group(0)]),
    b: Layout::new(8, &[Slot(0), Slot(1), Reg(0), Reg(1), Group(0)]),
    d: Layout::new(32, &[Reg(0), Reg(1), Reg(2), Group(0)]),
    index: Some(Layout::new(2, &[Slot(0), Slot(1), Slot(2), Group(0)])),
    sets: 2,
};
/// V_SWMMAC_I32_16X16X32_IU8, V_SWMMAC_F32_16X16X32_FP8_FP8, V_SWMMAC_F32_16X16X32_FP8_BF8, V_SWMMAC_F32_16X16X32_BF8_FP8, V_SWMMAC_F32_16X16X32_BF8_BF8 (wave64).
pub const GFX12_W64_SK32_8_32: Shape = Shape {
    k: 32,
    a: Layout::new(8, &[Slot(0), Slot(1), Group(1), Group(0)]),
    b: Layout::new(8, &[Slot(0), Slot(1), Reg(0), Group(1), Group(0)]),
    d: Layout::new(32, &[Reg(0), Reg(1), Group(1), Group(0)]),
    index: Some(Layout::new(2, &[Slot(0), Slot(1), Group(1), Group(0)])),
    sets: 4,
};
/// V_SWMMAC_I32_16X16X32_IU4 (wave32).
pub const GFX12_W32_SK32_4_32: Shape = Shape {
    k: 32,
    a: Layout::new(4, &[Slot(0), Slot(1), Slot(2), Group(0)]),
    b: Layout::new(4, &[Slot(0), Slot(1), Slot(2), Reg(0), Group(0)]),
    d: Layout::new(32, &[Reg(0), Reg(1), Reg(2), Group(0)]),
    index: Some(Layout::new(2, &[Slot(0), Slot(1), Slot(2), Group(0)])),
    sets: 2,
};
/// V_SWMMAC_I32_16X16X32_IU4 (wave64).
pub const GFX12_W64_SK32_4_32: Shape = Shape {
    k: 32,
    a: Layout::new(4, &[Slot(0), Slot(1), Slot(2), Group(0)]),
    b: Layout::new(4, &[Slot(0), Slot(1), Slot(2), Group(1), Group(0)]),
    d: Layout::new(32, &[Reg(0), Reg(1), Group(1), Group(0)]),
    index: Some(Layout::new(2, &[Slot(0), Slot(1), Slot(2), Group(0)])),
    sets: 2,
};
/// V_SWMMAC_I32_16X16X64_IU4 (wave32).
pub const GFX12_W32_SK64_4_32: Shape = Shape {
    k: 64,
    a: Layout::new(4, &[Slot(0), Slot(1), Slot(2), Reg(0), Group(0)]),
    b: Layout::new(4, &[Slot(0), Slot(1), Slot(2), Reg(0), Reg(1), Group(0)]),
    d: Layout::new(32, &[Reg(0), Reg(1), Reg(2), Group(0)]),
    index: Some(Layout::new(2, &[Slot(0), Slot(1), Slot(2), Slot(3), Group(0)])),
    sets: 1,
};
/// V_SWMMAC_I32_16X16X64_IU4 (wave64).
pub const GFX12_W64_SK64_4_32: Shape = Shape {
    k: 64,
    a: Layout::new(4, &[Slot(0), Slot(1), Slot(2), Group(1), Group(0)]),
    b: Layout::new(4, &[Slot(0), Slot(1), Slot(2), Reg(0), Group(1), Group(0)]),
    d: Layout::new(32, &[Reg(0), Reg(1), Group(1), Group(0)]),
    index: Some(Layout::new(2, &[Slot(0), Slot(1), Slot(2), Group(1), Group(0)])),
    sets: 2,
};
