//! Decoder: machine code bytes → typed instructions ([`Inst`]).
//!
//! Each encoding is a row of the generated tables (`crate::tables`): fixed bits (mask/value),
//! the processors it exists on, and where each operand's bits sit. Decoding one instruction
//! tries the tables of the processor's ISA in a fixed order — 96-bit encodings first (GFX11+),
//! then 64-bit, then 32-bit, so that DPP/SDWA and VOP3 forms win over the 32-bit forms whose
//! bits they share — takes the most specific matching row, and decodes its operands. A table
//! whose operands do not decode (bad register, missing literal) is skipped for the next one.
//! The order of tables is the one LLVM's AMDGPU disassembler uses (LLVM 19,
//! `AMDGPUDisassembler::getInstruction`), a fact we need to reproduce its choices.
//!
//! Decode a kernel once ([`Decoder::decode_all`]); the simulator never decodes in its inner loop.

mod cpol;
mod encode;
mod inst;

/// Bit patterns of the inline float constants 0.5, −0.5, 1, −1, 2, −2, 4, −4, 1/(2π) (operand
/// encodings 240..248) in each float format (ISA manuals, "Inline constants").
pub mod inline_floats {
    pub const F16_NAMES: [u64; 9] = [0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118];
    pub const BF16_NAMES: [u64; 9] = [0x3f00, 0xbf00, 0x3f80, 0xbf80, 0x4000, 0xc000, 0x4080, 0xc080, 0x3e22];
    pub const F32_NAMES: [u64; 9] = [0x3f000000, 0xbf000000, 0x3f800000, 0xbf800000, 0x40000000, 0xc0000000, 0x40800000, 0xc0800000, 0x3e22f983];
    pub const F64_NAMES: [u64; 9] = [
        0x3fe0000000000000,
        0xbfe0000000000000,
        0x3ff0000000000000,
        0xbff0000000000000,
        0x4000000000000000,
        0xc000000000000000,
        0x4010000000000000,
        0xc010000000000000,
        0x3fc45f306dc9c882,
    ];
}
mod mimg;
mod operand;
mod program;
pub mod reg;

pub use cpol::{CachePolicy, CachePolicyNames};
pub use encode::{EncodeError, Encoded};
pub use inst::{Inst, Operand, SrcMods};
pub use operand::sign_extend;
pub use program::{Program, ProgramError};
pub use reg::{Reg, Special};

use crate::tables::{feature, flags, Namespace, OpName, Row, PROCESSOR_FEATURES, ROWS};
use crate::target::{Family, Processor};
use std::ops::Range;
use std::sync::OnceLock;

/// Facts about the processor and mode that change how bits decode and print.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub processor: Processor,
    pub family: Family,
    pub wave64: bool,
    /// GFX11+ true 16-bit register operands (`v1.l`/`v1.h`) instead of 32-bit ones
    /// (LLVM `-mattr=+real-true16`; compilers in LLVM 19 emit the 32-bit "fake16" forms).
    pub real_true16: bool,
    /// Decode and print as LLVM 22.1.8 does (its rows and printer conventions) instead of
    /// LLVM 19.1.7; the simulator executes LLVM 19's forms.
    pub llvm22: bool,
    pub features: u64,
    pub vi: bool,
    pub gfx9_plus: bool,
    pub gfx10_plus: bool,
    pub gfx11_plus: bool,
    pub gfx12_plus: bool,
    pub gfx90a_insts: bool,
    pub gfx940_insts: bool,
}

impl Ctx {
    pub fn new(processor: Processor, wave64: bool, real_true16: bool) -> Ctx {
        let features = PROCESSOR_FEATURES[processor as usize];
        let has = |f: u64| features & f != 0;
        let family = processor.family();
        Ctx {
            processor,
            family,
            // GFX6–GFX9 only have wave64.
            wave64: wave64 || !family.is_rdna(),
            real_true16: real_true16 && has(feature::TRUE16BITINSTS),
            llvm22: false,
            features,
            vi: has(feature::VOLCANICISLANDS),
            gfx9_plus: !has(feature::VOLCANICISLANDS),
            gfx10_plus: has(feature::GFX10) || has(feature::GFX11) || has(feature::GFX12),
            gfx11_plus: has(feature::GFX11) || has(feature::GFX12),
            gfx12_plus: has(feature::GFX12),
            gfx90a_insts: has(feature::GFX90AINSTS),
            gfx940_insts: has(feature::GFX940INSTS),
        }
    }

    pub fn has(&self, f: u64) -> bool {
        self.features & f != 0
    }

    /// Highest SGPR number in operand encodings (GFX10+ added s102–s105).
    pub fn sgpr_max(&self) -> u32 {
        if self.gfx10_plus {
            105
        } else {
            101
        }
    }

    /// TTMP number for an operand encoding value (GFX9+: 108–123, GFX8: 112–123).
    pub fn ttmp_index(&self, v: u32) -> Option<u32> {
        let lo = if self.gfx9_plus { 108 } else { 112 };
        (lo..=123).contains(&v).then(|| v - lo)
    }

    pub fn ttmp_count(&self) -> u32 {
        if self.gfx9_plus {
            16
        } else {
            12
        }
    }

    fn row_valid(&self, row: &Row) -> bool {
        let mode = self.wave64 as usize | (self.real_true16 as usize) << 1 | (self.llvm22 as usize) << 2;
        row.valid[mode] & (1 << self.processor as u32) != 0
    }
}

/// Why bytes did not decode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("invalid instruction encoding {word:#010x}")]
    Invalid { word: u32 },
    #[error("truncated instruction: {available} byte(s) left")]
    Truncated { available: usize },
}

/// A decoder for one processor and wave size.
#[derive(Debug, Clone)]
pub struct Decoder {
    ctx: Ctx,
    /// Tables to try, widest encodings first: (encoding bytes, rows valid here bucketed by
    /// bits 31:25 of the first dword — the encoding-format field of every format).
    order: Vec<(usize, Vec<Vec<u16>>)>,
}

// Bucket entries index ROWS with u16.
const _: () = assert!(ROWS.len() <= u16::MAX as usize);

/// Bits 31:25 of the first instruction dword select the bucket.
const BUCKET_SHIFT: u32 = 25;
const BUCKETS: usize = 128;

/// Rows of `slice` valid for `ctx`, bucketed by the bits 31:25 values they can match.
fn bucket_rows(ctx: &Ctx, slice: Range<usize>) -> Vec<Vec<u16>> {
    let mut buckets = vec![Vec::new(); BUCKETS];
    for i in slice {
        let row = &ROWS[i];
        if !ctx.row_valid(row) {
            continue;
        }
        let (m, v) = ((row.mask >> BUCKET_SHIFT) as usize & (BUCKETS - 1), (row.value >> BUCKET_SHIFT) as usize & (BUCKETS - 1));
        for (b, bucket) in buckets.iter_mut().enumerate() {
            if b & m == v {
                bucket.push(i as u16);
            }
        }
    }
    buckets
}

impl Decoder {
    pub fn new(processor: Processor, wave64: bool) -> Decoder {
        Decoder::with_true16(processor, wave64, false)
    }

    /// A decoder that also chooses the true 16-bit register forms on GFX11+.
    pub fn with_true16(processor: Processor, wave64: bool, real_true16: bool) -> Decoder {
        Decoder::with_ctx(Ctx::new(processor, wave64, real_true16))
    }

    /// A decoder with LLVM 22.1.8's rows and printing (what `llvm-objdump-22` prints); the
    /// other constructors follow LLVM 19.1.7, whose forms the simulator executes.
    pub fn llvm22(processor: Processor, wave64: bool, real_true16: bool) -> Decoder {
        let mut ctx = Ctx::new(processor, wave64, real_true16);
        ctx.llvm22 = true;
        Decoder::with_ctx(ctx)
    }

    fn with_ctx(ctx: Ctx) -> Decoder {
        let order = search_order(&ctx).into_iter().filter_map(|(bytes, ns)| table_slice(ns, bytes).map(|r| (bytes, bucket_rows(&ctx, r)))).collect();
        Decoder { ctx, order }
    }

    pub fn ctx(&self) -> &Ctx {
        &self.ctx
    }

    /// Longest instruction of the ISA: 20 bytes with NSA image forms (GFX10+), 12 with VOP3
    /// literals (GFX10+), otherwise 8 (a 32-bit literal only follows 32-bit encodings).
    fn max_instruction_bytes(&self) -> usize {
        if self.ctx.has(feature::GFX950INSTS) {
            16 // gfx950's 128-bit VOP3PX2 forms (LLVM 22: DecoderTableGFX940128)
        } else if self.ctx.has(feature::NSAENCODING) {
            20
        } else if self.ctx.has(feature::VOP3LITERAL) {
            12
        } else {
            8
        }
    }

    /// Decode the instruction at the start of `bytes`, located at `address`.
    pub fn decode(&self, bytes: &[u8], address: u64) -> Result<Inst, DecodeError> {
        let bytes = &bytes[..bytes.len().min(self.max_instruction_bytes())];
        if bytes.len() < 4 {
            return Err(DecodeError::Truncated { available: bytes.len() });
        }
        for (width, buckets) in &self.order {
            let Some(word_bytes) = bytes.get(..*width) else { continue };
            let word = le_u128(word_bytes);
            let bucket = &buckets[(word >> BUCKET_SHIFT) as usize & (BUCKETS - 1)];
            let Some(row) = best_match(word, bucket) else { continue };
            if let Some(inst) = inst::decode_row(&self.ctx, row, word, &bytes[*width..], address) {
                return Ok(inst);
            }
        }
        Err(DecodeError::Invalid { word: le_u128(&bytes[..4]) as u32 })
    }

    /// Decode a whole code range: every instruction, or the error where decoding stops being
    /// possible (an invalid word is reported and skipped as 4 bytes, as llvm-objdump does).
    pub fn decode_all(&self, code: &[u8], base_address: u64) -> Vec<(u64, Result<Inst, DecodeError>)> {
        let mut out = Vec::new();
        let mut off = 0usize;
        while off + 4 <= code.len() {
            let address = base_address + off as u64;
            let res = self.decode(&code[off..], address);
            let size = res.as_ref().map_or(4, |i| i.size as usize);
            out.push((address, res));
            off += size;
        }
        out
    }
}

/// The matching row with the most fixed bits (encodings that refine another, such as a DPP
/// form with src0 = 0xFA, are more specific than the form they refine).
fn best_match(word: u128, candidates: &[u16]) -> Option<&'static Row> {
    let mut best: Option<&'static Row> = None;
    for &i in candidates {
        let row = &ROWS[i as usize];
        if word & row.mask == row.value && best.is_none_or(|b| row.mask.count_ones() > b.mask.count_ones()) {
            best = Some(row);
        }
    }
    best
}

fn le_u128(bytes: &[u8]) -> u128 {
    bytes.iter().rev().fold(0u128, |acc, &b| (acc << 8) | b as u128)
}

/// Table search order per ISA: (encoding bytes, namespace), following LLVM 19's disassembler
/// and, for the tables only LLVM 22 has, LLVM 22.1.8's (AMDGPUDisassembler::getInstruction).
fn search_order(ctx: &Ctx) -> Vec<(usize, Namespace)> {
    use Namespace::*;
    let f = ctx.family;
    let (gfx9, gfx10, gfx11, gfx12) = (f.is_gfx9_like(), f == Family::Gfx10, f == Family::Gfx11, f == Family::Gfx12);
    let gcn = ctx.vi || gfx9;
    let mut order = Vec::new();
    let mut push = |cond: bool, bytes: usize, list: &[Namespace]| {
        if cond {
            order.extend(list.iter().map(|&ns| (bytes, ns)));
        }
    };
    // gfx950 and gfx1250 (LLVM 22's disassembler adds these tables to the same search).
    let (gfx950, gfx1250) = (ctx.has(feature::GFX950INSTS), ctx.has(feature::GFX1250INSTS));
    push(gfx1250, 16, &[GFX1250]);
    push(gfx950, 16, &[GFX940]);
    push(gfx11, 12, &[GFX11, GFX11_FAKE16]);
    push(gfx1250, 12, &[GFX1250, GFX1250_FAKE16]);
    push(gfx12, 12, &[GFX12, GFX12_FAKE16, GFX12W64]);
    push(ctx.has(feature::GFX10_BENCODING), 8, &[GFX10_B]);
    push(ctx.has(feature::UNPACKEDD16VMEM), 8, &[GFX80_UNPACKED]);
    push(gfx950, 8, &[GFX950]);
    push(ctx.has(feature::FMAMIXINSTS), 8, &[GFX9_DL]);
    push(ctx.gfx940_insts, 8, &[GFX940]);
    push(ctx.gfx90a_insts, 8, &[GFX90A]);
    push(gcn, 8, &[GFX8]);
    push(gfx9, 8, &[GFX9]);
    push(gfx10, 8, &[GFX10]);
    push(gfx1250, 8, &[GFX1250, GFX1250_FAKE16]);
    push(gfx12, 8, &[GFX12, GFX12_FAKE16]);
    push(gfx11, 8, &[GFX11, GFX11_FAKE16, GFX11W64]);
    push(gfx12, 8, &[GFX12W64]);
    push(gcn, 4, &[GFX8]);
    push(gfx9, 4, &[GFX9]);
    push(gfx950, 4, &[GFX950]);
    push(ctx.gfx90a_insts, 4, &[GFX90A]);
    push(ctx.has(feature::GFX10_BENCODING), 4, &[GFX10_B]);
    push(gfx10, 4, &[GFX10]);
    push(gfx11, 4, &[GFX11, GFX11_FAKE16]);
    push(gfx1250, 4, &[GFX1250, GFX1250_FAKE16]);
    push(gfx12, 4, &[GFX12, GFX12_FAKE16]);
    order
}

/// Rows of one namespace and size: the generated table is sorted by namespace, then size
/// (`rows_are_sorted_by_namespace_then_size`), so two binary searches find them. Why not an
/// index built once: building it read every row of the 33 000, megabytes of the library's
/// read-only data a short `exec` run otherwise never touches — 0.8 ms a process with the
/// library in the page cache (`hipscope disasm --target gfx942` of relu 3.6 → 2.8 ms), and 8 %
/// of a functional 1024² matrixtranspose run in a profile taken when it was not.
fn table_slice(ns: Namespace, bytes: usize) -> Option<Range<usize>> {
    let key = |r: &Row| (r.table, r.bytes as usize);
    let lo = ROWS.partition_point(|r| key(r) < (ns, bytes));
    let hi = ROWS.partition_point(|r| key(r) <= (ns, bytes));
    (lo < hi).then_some(lo..hi)
}

/// Does this row carry a cache-policy operand and which flags decide its printing.
pub(crate) fn is_memory_with_cpol(row: &Row) -> bool {
    row.has(flags::MUBUF | flags::MTBUF | flags::FLAT | flags::SMRD) && row.operand_index(OpName::cpol).is_some()
}

/// Fuzzing entry point: the first byte picks the processor and wave size, the rest is decoded
/// as a code range and every instruction printed. Returns the length of all printed text.
/// Used by `fuzz/fuzz_targets/decode.rs` and `isa/tests/suite/decode_robustness.rs`.
#[doc(hidden)]
pub fn fuzz_one(data: &[u8]) -> usize {
    static DECODERS: OnceLock<Vec<Decoder>> = OnceLock::new();
    let decoders = DECODERS.get_or_init(|| Processor::ALL.iter().flat_map(|&p| (0..4).map(move |m| Decoder::with_true16(p, m & 1 != 0, m & 2 != 0))).collect());
    let Some((&sel, code)) = data.split_first() else { return 0 };
    let processor = (sel as usize >> 2) % Processor::ALL.len();
    let decoder = &decoders[processor * 4 + (sel as usize & 3)];
    decoder.decode_all(code, 0x1000).into_iter().filter_map(|(_, r)| r.ok()).map(|inst| crate::print::format_inst(&inst, decoder.ctx()).len()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_sorted_by_namespace_then_size() {
        let unsorted = ROWS.windows(2).position(|p| (p[0].table, p[0].bytes) > (p[1].table, p[1].bytes));
        assert_eq!(unsorted, None, "table_slice's binary search needs the generated rows in (namespace, size) order");
    }

    #[test]
    fn a_slice_is_exactly_the_rows_of_its_namespace_and_size() {
        for ns in [Namespace::GFX8, Namespace::GFX940, Namespace::GFX11_FAKE16, Namespace::GFX1250_FAKE16] {
            for bytes in [4, 8, 12, 16] {
                let want: Vec<usize> = (0..ROWS.len()).filter(|&i| ROWS[i].table == ns && ROWS[i].bytes as usize == bytes).collect();
                let got: Vec<usize> = table_slice(ns, bytes).map_or(Vec::new(), |r| r.collect());
                assert_eq!(got, want, "{ns:?}, {bytes} bytes");
            }
        }
    }
}
