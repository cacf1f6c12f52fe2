//! gfx950's f8f6f4 input formats: the value of every element code, and where an operand's
//! elements sit in its registers.
//!
//! Formats. `V_MFMA_[SCALE_]F32_{16X16X128,32X32X64}_F8F6F4` take A's format from CBSZ and
//! B's from BLGP: 0 FP8 (OCP E4M3), 1 BF8 (OCP E5M2), 2 FP6 (E2M3), 3 BF6 (E3M2), 4 FP4 (E2M1)
//! (CDNA4 ISA guide, "Matrix Arithmetic Instructions", f8f6f4 formats; LLVM 22's
//! `AMDGPU::MFMAScaleFormats` uses the same numbering and reads 8, 8, 6, 6 and 4 VGPRs). The
//! 6- and 4-bit formats are those of the OCP Microscaling (MX) specification v1.0 §5.3
//! (FP6 E2M3 bias 1, max 7.5; BF6 E3M2 bias 3, max 28; FP4 E2M1 bias 1, max 6): no
//! infinities and no NaNs, and every code is an exact f32. CBSZ/BLGP values 5..7 name no
//! format; such an instruction does not classify.
//!
//! Layout. Every operand holds 32 elements per lane (M or N = 16 with K = 128; 32 with K = 64),
//! packed low bits first across consecutive VGPRs. FP4 (128 bits) is one run of 32
//! consecutive k per lane (lane `l`: row `l % M`, k from `32 · (l / M)`); the wider operands,
//! FP8/BF8 (256 bits) and FP6/BF6 (192 bits), are two runs of 16: the first 16 elements cover
//! the first half of K (k from `16 · (l / M)`), the next 16 the second half (AMD ROCm blog
//! "Matrix Core Programming on AMD CDNA3 and CDNA4 architecture", 2025, its FP8 and FP4
//! 32x32x64 layouts; Triton's gfx950 scaled-dot lowering, `chooseScaledMfmaScaleLayout`:
//! "for mxfp4, these 32 elements are consecutive ... for mxfp6/mxfp8, there are 2
//! 16-consecutive elements blocks, so 2 scale elements are required"). FP6's second run
//! starts at bit 96 (VGPR 3), where gfx950's `ds_read_b96_tr_b6`, which loads 16 k-consecutive
//! 6-bit values per lane into three VGPRs, puts it when two of them fill the operand.

use super::super::minifloat::{self, Format};

/// An input element format of an f8f6f4 operand (or of any wide gfx950 operand).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    Fp8,
    Bf8,
    Fp6,
    Bf6,
    Fp4,
}

impl Elem {
    /// The format a CBSZ/BLGP value names.
    pub fn from_code(code: u32) -> Option<Elem> {
        Some(match code {
            0 => Elem::Fp8,
            1 => Elem::Bf8,
            2 => Elem::Fp6,
            3 => Elem::Bf6,
            4 => Elem::Fp4,
            _ => return None,
        })
    }

    pub fn bits(self) -> u32 {
        match self {
            Elem::Fp8 | Elem::Bf8 => 8,
            Elem::Fp6 | Elem::Bf6 => 6,
            Elem::Fp4 => 4,
        }
    }

    /// Elements of one run of consecutive k in a lane (module docs).
    pub fn run(self) -> u32 {
        match self {
            Elem::Fp8 | Elem::Bf8 | Elem::Fp6 | Elem::Bf6 => 16,
            Elem::Fp4 => 32,
        }
    }

    /// The value of `code` (its low `bits()` bits), exactly.
    pub fn decode(self, code: u32) -> f32 {
        match self {
            Elem::Fp8 => minifloat::decode(Format::E4M3, code as u8),
            Elem::Bf8 => minifloat::decode(Format::E5M2, code as u8),
            Elem::Fp6 => minifloat::decode(Format::E2M3, code as u8),
            Elem::Bf6 => minifloat::decode(Format::E3M2, code as u8),
            Elem::Fp4 => minifloat::decode(Format::E2M1, code as u8),
        }
    }

    /// The value of every code (entries past `2^bits` repeat the low codes).
    pub fn table(self) -> [f32; 256] {
        std::array::from_fn(|c| self.decode(c as u32 & ((1 << self.bits()) - 1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mx_formats_match_the_specification_tables() {
        // OCP MX v1.0 Table 5 (FP6) and Table 6 (FP4): largest normals and subnormals.
        assert_eq!(Elem::Fp6.decode(0x1f), 7.5); // 0 11 111
        assert_eq!(Elem::Fp6.decode(0x01), 0.125); // 0 00 001
        assert_eq!(Elem::Bf6.decode(0x1f), 28.0); // 0 111 11
        assert_eq!(Elem::Bf6.decode(0x21), -0.0625); // 1 000 01
        assert_eq!(Elem::Fp4.decode(0x7), 6.0); // 0 11 1
        assert_eq!(Elem::Fp4.decode(0x9), -0.5); // 1 00 1
        assert_eq!(Elem::Fp8.decode(0x7e), 448.0);
        assert!(Elem::from_code(5).is_none());
    }
}
