//! How memory bytes map to VGPR bits for loads and stores of every size and kind (ISA
//! manuals: "VGPR usage"; "16-bit memory operations": D16 writes or reads the low 16 bits of
//! the VGPR, D16_HI the high 16 bits, and a D16 load leaves the other half unchanged — except
//! on CDNA2 and later, and with SRAMECC on, whose D16 loads zero it: see
//! [`d16_keeps_other_half`]).
//!
//! One parser covers every spelling: GCN `ubyte/sbyte/ushort/sshort/dword[xN]`, GFX11+
//! `u8/i8/u16/i16/b32..b128`, the D16 forms `ubyte_d16[_hi]`, `d16[_hi]_u8`, LDS `u8_d16[_hi]`.

use super::super::operand::{v_dword, write_v_dword};
use crate::wave::Wave;
use hipscope_isa::decode::Operand;
use hipscope_isa::Family;

/// Whether a D16 load (`*_d16`, `*_d16_hi`: LDS, buffer, global, flat, scratch) leaves the
/// other 16 bits of its VGPR as they were on `family` with SRAMECC on or off (`sramecc`),
/// rather than zeroing them.
///
/// With SRAMECC on (gfx906, gfx908: the only other processors that have the mode) they are
/// zeroed too: LLVM's `GCNSubtarget::d16PreservesUnusedBits()` is `hasD16LoadStore() &&
/// !isSramEccOnOrAny()`, so the compiler never relies on the kept half there (a VGPR's ECC
/// covers the whole dword, which a half write would leave stale). Otherwise GFX9 and RDNA keep them (the ISA manuals' "16-bit memory operations"). CDNA2 and CDNA3/4
/// (gfx90a, gfx940/942/950) zero them: LLVM stopped relying on the kept half for gfx90a-class
/// targets after hardware testing showed `*_load_short_d16_hi` does not preserve the low bits
/// there, SRAMECC on or off (reviews.llvm.org/D112635: `d16PreservesUnusedBits()` is false
/// for them), and AMD's own gfx942 GEMM kernels (rocBLAS 7.2's Tensile
/// `TensileLibrary_Type_HH_HPA_*_gfx942.co`) merge `ds_read_u16` with a
/// `ds_read_u16_d16_hi` into a register holding an unrelated value by `v_or_b32`, which is
/// right only if the load zeroed the low half.
pub fn d16_keeps_other_half(family: Family, sramecc: bool) -> bool {
    !sramecc && !matches!(family, Family::Gfx90a | Family::Gfx940)
}

/// Widening of a sub-dword load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ext {
    Zero,
    Sign,
}

/// Which part of the destination VGPR a load writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Half {
    /// Whole dwords (sub-dword data is extended to 32 bits).
    Full,
    /// Bits 15:0, extended to 16 bits; bits 31:16 kept.
    Lo,
    /// Bits 31:16, extended to 16 bits; bits 15:0 kept.
    Hi,
}

/// A load: `bytes` from memory, widened and placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadShape {
    pub bytes: u8,
    pub ext: Ext,
    pub half: Half,
    /// A D16 load (`half` Lo or Hi) keeps the other half of the VGPR (else zeroes it).
    pub keep_other: bool,
}

/// A store: `bytes` to memory, taken from bit 0 of the data VGPRs, or from bit 16 (`hi`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreShape {
    pub bytes: u8,
    pub hi: bool,
}

/// Dword sizes: `dword`..`dwordx4`, `b32`..`b128`.
fn dword_bytes(s: &str) -> Option<u8> {
    Some(match s {
        "dword" | "b32" => 4,
        "dwordx2" | "b64" => 8,
        "dwordx3" | "b96" => 12,
        "dwordx4" | "b128" => 16,
        _ => return None,
    })
}

impl LoadShape {
    const fn new(bytes: u8, ext: Ext, half: Half) -> LoadShape {
        LoadShape { bytes, ext, half, keep_other: true }
    }

    /// This shape as D16 loads behave on `family` in SRAMECC mode `sramecc`
    /// ([`d16_keeps_other_half`]).
    pub fn on(self, family: Family, sramecc: bool) -> LoadShape {
        LoadShape { keep_other: d16_keeps_other_half(family, sramecc), ..self }
    }

    /// Parse the part of a load mnemonic after `load_` / `read_`.
    pub fn parse(s: &str) -> Option<LoadShape> {
        use {Ext::*, Half::*};
        if let Some(b) = dword_bytes(s) {
            return Some(LoadShape::new(b, Zero, Full));
        }
        Some(match s {
            "ubyte" | "u8" => LoadShape::new(1, Zero, Full),
            "sbyte" | "i8" => LoadShape::new(1, Sign, Full),
            "ushort" | "u16" => LoadShape::new(2, Zero, Full),
            "sshort" | "i16" => LoadShape::new(2, Sign, Full),
            "ubyte_d16" | "d16_u8" | "u8_d16" => LoadShape::new(1, Zero, Lo),
            "ubyte_d16_hi" | "d16_hi_u8" | "u8_d16_hi" => LoadShape::new(1, Zero, Hi),
            "sbyte_d16" | "d16_i8" | "i8_d16" => LoadShape::new(1, Sign, Lo),
            "sbyte_d16_hi" | "d16_hi_i8" | "i8_d16_hi" => LoadShape::new(1, Sign, Hi),
            "short_d16" | "d16_b16" | "u16_d16" => LoadShape::new(2, Zero, Lo),
            "short_d16_hi" | "d16_hi_b16" | "u16_d16_hi" => LoadShape::new(2, Zero, Hi),
            _ => return None,
        })
    }

    /// Dwords of the destination.
    pub fn dwords(self) -> usize {
        (self.bytes as usize).div_ceil(4)
    }

    /// A sub-dword value widened to 32 bits (16 for D16, masked by the caller).
    pub fn widen(self, buf: &[u8]) -> u32 {
        match (self.bytes, self.ext) {
            (1, Ext::Zero) => buf[0] as u32,
            (1, Ext::Sign) => buf[0] as i8 as i32 as u32,
            (2, Ext::Zero) => u16::from_le_bytes([buf[0], buf[1]]) as u32,
            (2, Ext::Sign) => i16::from_le_bytes([buf[0], buf[1]]) as i32 as u32,
            _ => u32::from_le_bytes([buf[0], buf[1], buf[2], buf[3]]),
        }
    }

    /// Write the loaded bytes (`buf[..bytes]`) to `lane` of `dst`.
    pub fn write(self, w: &mut Wave, dst: Operand, lane: usize, buf: &[u8]) {
        match self.half {
            Half::Full if self.bytes >= 4 => {
                for (k, d) in buf[..self.bytes as usize].chunks_exact(4).enumerate() {
                    write_v_dword(w, dst, k, lane, u32::from_le_bytes([d[0], d[1], d[2], d[3]]));
                }
            }
            Half::Full => write_v_dword(w, dst, 0, lane, self.widen(buf)),
            Half::Lo | Half::Hi => {
                let v = self.widen(buf) & 0xffff;
                let old = if self.keep_other { v_dword(w, dst, 0, lane) } else { 0 };
                let new = if self.half == Half::Lo { (old & 0xffff_0000) | v } else { (old & 0xffff) | v << 16 };
                write_v_dword(w, dst, 0, lane, new);
            }
        }
    }
}

impl StoreShape {
    /// Parse the part of a store mnemonic after `store_` / `write_`.
    pub fn parse(s: &str) -> Option<StoreShape> {
        if let Some(bytes) = dword_bytes(s) {
            return Some(StoreShape { bytes, hi: false });
        }
        let (bytes, hi) = match s {
            "byte" | "b8" => (1, false),
            "short" | "b16" => (2, false),
            "byte_d16_hi" | "d16_hi_b8" | "b8_d16_hi" => (1, true),
            "short_d16_hi" | "d16_hi_b16" | "b16_d16_hi" => (2, true),
            _ => return None,
        };
        Some(StoreShape { bytes, hi })
    }

    /// The bytes `lane` stores, in `out[..bytes]`.
    pub fn gather(self, w: &Wave, data: Operand, lane: usize, out: &mut [u8; 16]) {
        let n = self.bytes as usize;
        if n >= 4 {
            for k in 0..n / 4 {
                out[4 * k..4 * k + 4].copy_from_slice(&v_dword(w, data, k, lane).to_le_bytes());
            }
        } else {
            let v = v_dword(w, data, 0, lane) >> if self.hi { 16 } else { 0 };
            out[..n].copy_from_slice(&v.to_le_bytes()[..n]);
        }
    }
}
