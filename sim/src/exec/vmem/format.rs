//! Typed-buffer data formats (`tbuffer_*`, `buffer_*_format_*`): a documented subset.
//!
//! Supported: formats whose components all have the same size — 8, 16 or 32 bits, 1 to 4
//! components (`8`, `8_8`, `8_8_8_8`, `16`, `16_16`, `16_16_16_16`, `32` .. `32_32_32_32`) —
//! with number formats UNORM, SNORM, USCALED, SSCALED, UINT, SINT and FLOAT (16/32 bits).
//! Packed formats (`10_11_11`, `2_10_10_10`, ...) are not supported: classification rejects
//! them for MTBUF, and a MUBUF format access through such a V# faults.
//!
//! Conversions (CDNA4 ISA §9.1.3 "Read Data Format": float and normalized data return as f32,
//! integer formats as integers, 32-bit data unconverted): UNORM `v / (2^n - 1)`, SNORM
//! `max(v / (2^(n-1) - 1), -1)`, U/SSCALED `(float)v`, FLOAT16 -> f32; stores convert back
//! (normalized values clamp and round to nearest, integers truncate to the field).
//! Encodings: GFX8/GFX9 `dfmt | nfmt << 4` (CDNA4 ISA Table 41 DFMT/NFMT); GFX10 and GFX11+
//! unified formats in the order of the RDNA "Buffer formats" tables (the same lists the
//! disassembler prints, `isa/src/print/special.rs`; `llvm-mc-19` encodes `BUF_FMT_32_FLOAT`
//! as 22 on GFX10, GFX11 and GFX12).

use super::fp::{f16_to_f32, f32_to_f16};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Num {
    Unorm,
    Snorm,
    Uscaled,
    Sscaled,
    Uint,
    Sint,
    Float,
}

/// A supported data format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    pub bits: u8,
    pub comps: u8,
    pub num: Num,
}

const fn f(bits: u8, comps: u8, num: Num) -> Option<Format> {
    Some(Format { bits, comps, num })
}

/// The six integer/normalized number formats in the order the unified tables list them.
const SIX: [Num; 6] = [Num::Unorm, Num::Snorm, Num::Uscaled, Num::Sscaled, Num::Uint, Num::Sint];
const SEVEN: [Num; 7] = [Num::Unorm, Num::Snorm, Num::Uscaled, Num::Sscaled, Num::Uint, Num::Sint, Num::Float];
const INT_FLOAT: [Num; 3] = [Num::Uint, Num::Sint, Num::Float];

impl Format {
    /// GFX8/GFX9: data format (1 = 8, 2 = 16, 3 = 8_8, 4 = 32, 5 = 16_16, 10 = 8_8_8_8,
    /// 11 = 32_32, 12 = 16_16_16_16, 13 = 32_32_32, 14 = 32_32_32_32) and number format
    /// (0 UNORM, 1 SNORM, 2 USCALED, 3 SSCALED, 4 UINT, 5 SINT, 7 FLOAT).
    pub fn from_gcn(dfmt: u32, nfmt: u32) -> Option<Format> {
        let num = match nfmt {
            0..=5 => SIX[nfmt as usize],
            7 => Num::Float,
            _ => return None,
        };
        let (bits, comps) = match dfmt {
            1 => (8, 1),
            2 => (16, 1),
            3 => (8, 2),
            4 => (32, 1),
            5 => (16, 2),
            10 => (8, 4),
            11 => (32, 2),
            12 => (16, 4),
            13 => (32, 3),
            14 => (32, 4),
            _ => return None,
        };
        Format { bits, comps, num }.valid()
    }

    /// Entries 1..=29, common to the GFX10 and GFX11 unified tables.
    fn unified_common(u: u32) -> Option<Format> {
        match u {
            1..=6 => f(8, 1, SIX[u as usize - 1]),
            7..=13 => f(16, 1, SEVEN[u as usize - 7]),
            14..=19 => f(8, 2, SIX[u as usize - 14]),
            20..=22 => f(32, 1, INT_FLOAT[u as usize - 20]),
            23..=29 => f(16, 2, SEVEN[u as usize - 23]),
            _ => None,
        }
    }

    /// GFX10 unified format.
    pub fn from_gfx10(u: u32) -> Option<Format> {
        match u {
            56..=61 => f(8, 4, SIX[u as usize - 56]),
            62..=64 => f(32, 2, INT_FLOAT[u as usize - 62]),
            65..=71 => f(16, 4, SEVEN[u as usize - 65]),
            72..=74 => f(32, 3, INT_FLOAT[u as usize - 72]),
            75..=77 => f(32, 4, INT_FLOAT[u as usize - 75]),
            _ => Format::unified_common(u),
        }
    }

    /// GFX11/GFX12 unified format.
    pub fn from_gfx11(u: u32) -> Option<Format> {
        match u {
            42..=47 => f(8, 4, SIX[u as usize - 42]),
            48..=50 => f(32, 2, INT_FLOAT[u as usize - 48]),
            51..=57 => f(16, 4, SEVEN[u as usize - 51]),
            58..=60 => f(32, 3, INT_FLOAT[u as usize - 58]),
            61..=63 => f(32, 4, INT_FLOAT[u as usize - 61]),
            _ => Format::unified_common(u),
        }
    }

    fn valid(self) -> Option<Format> {
        (self.num != Num::Float || self.bits >= 16).then_some(self)
    }

    /// Bytes of one element.
    pub fn bytes(self) -> usize {
        self.bits as usize / 8 * self.comps as usize
    }

    /// Results are floats (normalized, scaled, float formats).
    pub fn float_class(self) -> bool {
        !matches!(self.num, Num::Uint | Num::Sint)
    }

    fn raw(self, mem: &[u8], c: usize) -> u32 {
        let b = self.bits as usize / 8;
        let mut v = [0u8; 4];
        v[..b].copy_from_slice(&mem[c * b..c * b + b]);
        u32::from_le_bytes(v)
    }

    /// Decode one element into 32-bit values; components the format lacks are 0.
    pub fn load(self, mem: &[u8], out: &mut [u32; 4]) {
        *out = [0; 4];
        for (c, o) in out.iter_mut().enumerate().take(self.comps as usize) {
            *o = self.decode(self.raw(mem, c));
        }
    }

    fn decode(self, raw: u32) -> u32 {
        let n = self.bits as u32;
        if n == 32 {
            return raw;
        }
        let sext = ((raw << (32 - n)) as i32) >> (32 - n);
        let max_u = ((1u64 << n) - 1) as f32;
        let max_s = ((1u64 << (n - 1)) - 1) as f32;
        match self.num {
            Num::Uint => raw,
            Num::Sint => sext as u32,
            Num::Unorm => (raw as f32 / max_u).to_bits(),
            Num::Snorm => (sext as f32 / max_s).max(-1.0).to_bits(),
            Num::Uscaled => (raw as f32).to_bits(),
            Num::Sscaled => (sext as f32).to_bits(),
            Num::Float => f16_to_f32(raw as u16).to_bits(),
        }
    }

    fn encode(self, v: u32) -> u32 {
        let n = self.bits as u32;
        if n == 32 {
            return v;
        }
        let mask = ((1u64 << n) - 1) as u32;
        let x = f32::from_bits(v);
        let max_u = mask as f32;
        let max_s = (mask >> 1) as f32;
        let r = match self.num {
            Num::Uint | Num::Sint => v,
            Num::Unorm => (x.clamp(0.0, 1.0) * max_u).round_ties_even() as u32,
            Num::Snorm => (x.clamp(-1.0, 1.0) * max_s).round_ties_even() as i32 as u32,
            Num::Uscaled => x.clamp(0.0, max_u) as u32,
            Num::Sscaled => x.clamp(-max_s - 1.0, max_s) as i32 as u32,
            Num::Float => f32_to_f16(x) as u32,
        };
        r & mask
    }

    /// Encode the first `n` components (at most the format's) into `mem[..]`; returns the
    /// bytes written.
    pub fn store(self, vals: &[u32; 4], n: usize, mem: &mut [u8; 16]) -> usize {
        let b = self.bits as usize / 8;
        let n = n.min(self.comps as usize);
        for (c, &v) in vals.iter().enumerate().take(n) {
            mem[c * b..c * b + b].copy_from_slice(&self.encode(v).to_le_bytes()[..b]);
        }
        n * b
    }

    /// A 32-bit result as the 16-bit value a D16 load returns: floats convert to f16,
    /// integers keep their low 16 bits.
    pub fn to_d16(self, v: u32) -> u16 {
        if self.float_class() {
            f32_to_f16(f32::from_bits(v))
        } else {
            v as u16
        }
    }

    /// A D16 store's 16-bit value as the 32-bit input of the conversion.
    pub fn from_d16(self, h: u16) -> u32 {
        match self.num {
            Num::Sint => h as i16 as i32 as u32,
            Num::Uint => h as u32,
            _ => f16_to_f32(h).to_bits(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unified_tables_match_the_manual_names() {
        // Names from the RDNA1/RDNA3 ISA "Buffer formats" tables: 22 = 32_FLOAT (both),
        // 64 = 32_32_FLOAT (GFX10), 50 = 32_32_FLOAT (GFX11), 77/63 = 32_32_32_32_FLOAT,
        // 13 = 16_FLOAT, 56/42 = 8_8_8_8_UNORM.
        assert_eq!(Format::from_gfx10(22), f(32, 1, Num::Float));
        assert_eq!(Format::from_gfx11(22), f(32, 1, Num::Float));
        assert_eq!(Format::from_gfx10(64), f(32, 2, Num::Float));
        assert_eq!(Format::from_gfx11(50), f(32, 2, Num::Float));
        assert_eq!(Format::from_gfx10(77), f(32, 4, Num::Float));
        assert_eq!(Format::from_gfx11(63), f(32, 4, Num::Float));
        assert_eq!(Format::from_gfx11(13), f(16, 1, Num::Float));
        assert_eq!(Format::from_gfx10(56), f(8, 4, Num::Unorm));
        assert_eq!(Format::from_gfx11(42), f(8, 4, Num::Unorm));
        assert_eq!(Format::from_gfx11(30), None); // 10_11_11_FLOAT: packed, unsupported
        assert_eq!(Format::from_gcn(4, 4), f(32, 1, Num::Uint));
        assert_eq!(Format::from_gcn(1, 7), None); // 8-bit float does not exist
    }

    #[test]
    fn normalized_values_convert_both_ways() {
        let u8n = Format { bits: 8, comps: 1, num: Num::Unorm };
        let mut out = [0; 4];
        u8n.load(&[255], &mut out);
        assert_eq!(f32::from_bits(out[0]), 1.0);
        assert_eq!(u8n.encode(0.5f32.to_bits()), 128); // 127.5 -> ties to even = 128
        let s16 = Format { bits: 16, comps: 1, num: Num::Snorm };
        s16.load(&0x8000u16.to_le_bytes(), &mut out);
        assert_eq!(f32::from_bits(out[0]), -1.0);
    }
}
