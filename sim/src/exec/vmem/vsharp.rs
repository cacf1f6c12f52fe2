//! The buffer resource (V#) per generation: decoding, addressing and range checking.
//!
//! Addressing (CDNA4 ISA §9.1.5, RDNA3.5/RDNA4 ISA §9.4.2, same formula on every target):
//! ```text
//! index  = (idxen ? vgpr_index : 0) + (add_tid ? lane : 0)
//! offset = (offen ? vgpr_offset : 0) + inst_offset
//! linear:   buffer_offset = index * stride + offset
//! swizzled: buffer_offset = (index / IS * stride + offset / ES * ES) * IS + index % IS * ES + offset % ES
//! address = base + soffset + buffer_offset
//! ```
//! Range checking (reads of out-of-range parts return 0, writes and atomics are dropped;
//! non-format loads/stores check each dword, atomics and format accesses all-or-nothing):
//! * GFX8/GFX9/CDNA (CDNA4 ISA §9.1.5.1): private buffer (`add_tid && !idxen`): none; with
//!   `idxen`: out if `index >= num_records`; otherwise (raw) out if `offset >= num_records`;
//! * GFX10+ by `OOB_SELECT` (RDNA4 ISA §9.4.1, table "Buffer Out Of Bounds Selection"):
//!   0: `index >= nr || offset + payload > stride`; 1: `index >= nr`; 2: `nr == 0`;
//!   3: swizzled with stride: as 0, else `buffer_offset + payload > nr - soffset`.
//!
//! A V# whose data format is 0 (INVALID) without ADD_TID is unbound: loads return zero and
//! stores are ignored (RDNA3.5 ISA §9.6 "Unbound Resources"; CDNA4 ISA §9.1.4).
//! Unaligned addresses are used as given (ROCm programs SH_MEM_CONFIG.alignment_mode =
//! UNALIGNED); atomics are forced to natural alignment.

use super::format::Format;
use hipscope_isa::Family;

/// The fields of a buffer resource that addressing and checking use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vsharp {
    pub base: u64,
    pub stride: u64,
    pub num_records: u32,
    pub swizzle: bool,
    pub elem: u32,
    pub index_stride: u32,
    pub add_tid: bool,
    pub oob_select: u32,
    /// Data format: GFX8/9 `dfmt | nfmt << 4`, GFX10+ unified format.
    pub format: u32,
    pub dst_sel: [u32; 4],
    pub unbound: bool,
}

impl Vsharp {
    /// Decode the four resource dwords for `fam`. `format_op`: a format instruction, for which
    /// GFX8/GFX9 do not extend the stride with the data-format bits.
    pub fn decode(w: [u32; 4], fam: Family, format_op: bool) -> Vsharp {
        let mut stride = ((w[1] >> 16) & 0x3fff) as u64;
        let add_tid = w[3] >> 23 & 1 != 0;
        let (swz, elem, format) = match fam {
            Family::Gfx8 | Family::Gfx9 | Family::Gfx90a | Family::Gfx940 => {
                let dfmt = (w[3] >> 15) & 0xf;
                // With ADD_TID, non-format MUBUF use DFMT as stride[17:14] (CDNA4 ISA Table 45).
                if add_tid && !format_op {
                    stride |= (dfmt as u64) << 14;
                }
                // Only GFX8 has ELEMENT_SIZE (2 << n bytes); GFX9 swizzles 4-byte elements.
                let elem = if fam == Family::Gfx8 { 2 << ((w[3] >> 19) & 3) } else { 4 };
                (w[1] >> 31 != 0, elem, dfmt | ((w[3] >> 12) & 7) << 4)
            }
            Family::Gfx10 => (w[1] >> 31 != 0, 4, (w[3] >> 12) & 0x7f),
            Family::Gfx11 | Family::Gfx12 => {
                // SWIZZLE_ENABLE[1:0]: 1 = 4-byte, 3 = 16-byte elements (2 reserved: 4).
                let s = (w[1] >> 30) & 3;
                if fam == Family::Gfx12 {
                    stride *= [1, 4, 8, 32][((w[3] >> 18) & 3) as usize];
                }
                (s != 0, if s == 3 { 16 } else { 4 }, (w[3] >> 12) & 0x3f)
            }
        };
        let data_format = if fam.is_rdna() { format } else { format & 0xf };
        Vsharp {
            base: w[0] as u64 | ((w[1] & 0xffff) as u64) << 32,
            stride,
            num_records: w[2],
            swizzle: swz,
            elem,
            index_stride: 8 << ((w[3] >> 21) & 3),
            add_tid,
            oob_select: (w[3] >> 28) & 3,
            format,
            dst_sel: [w[3] & 7, (w[3] >> 3) & 7, (w[3] >> 6) & 7, (w[3] >> 9) & 7],
            unbound: data_format == 0 && !add_tid,
        }
    }

    /// The format of a MUBUF `*_format_*` access through this resource.
    pub fn data_format(&self, fam: Family) -> Option<Format> {
        match fam {
            Family::Gfx10 => Format::from_gfx10(self.format),
            Family::Gfx11 | Family::Gfx12 => Format::from_gfx11(self.format),
            _ => Format::from_gcn(self.format & 0xf, self.format >> 4),
        }
    }

    fn buffer_offset(&self, index: u32, offset: u32) -> u64 {
        let (index, offset) = (index as u64, offset as u64);
        if !self.swizzle {
            return index * self.stride + offset;
        }
        let (is, es) = (self.index_stride as u64, self.elem as u64);
        (index / is * self.stride + offset / es * es) * is + index % is * es + offset % es
    }

    /// `base + soffset + buffer_offset`.
    pub fn address(&self, index: u32, offset: u32, soff: u32) -> u64 {
        self.base.wrapping_add(soff as u64).wrapping_add(self.buffer_offset(index, offset))
    }

    /// Whether `payload` bytes at (`index`, `offset`) pass the generation's range check.
    pub fn in_range(&self, fam: Family, idxen: bool, at: (u32, u32), payload: u32, soff: u32) -> bool {
        if fam.is_rdna() {
            self.in_range_oob_select(at, payload, soff)
        } else {
            self.in_range_gcn(idxen, at)
        }
    }

    /// GFX8/GFX9/CDNA: private (ADD_TID without IDXEN) unchecked, structured by index, raw
    /// by offset (CDNA4 ISA §9.1.5.1).
    fn in_range_gcn(&self, idxen: bool, (index, offset): (u32, u32)) -> bool {
        let nr = self.num_records as u64;
        if self.add_tid && !idxen {
            true
        } else if idxen {
            (index as u64) < nr
        } else {
            (offset as u64) < nr
        }
    }

    /// GFX10+: by OOB_SELECT (RDNA4 ISA Table "Buffer Out Of Bounds Selection").
    fn in_range_oob_select(&self, (index, offset): (u32, u32), payload: u32, soff: u32) -> bool {
        let nr = self.num_records as u64;
        let idx_ok = (index as u64) < nr;
        let fits_stride = offset as u64 + payload as u64 <= self.stride;
        match self.oob_select {
            0 => idx_ok && fits_stride,
            1 => idx_ok,
            2 => nr != 0,
            _ if self.swizzle && self.stride != 0 => idx_ok && fits_stride,
            _ => self.buffer_offset(index, offset) + payload as u64 <= nr.saturating_sub(soff as u64),
        }
    }
}
