//! Coverage: every MFMA/SMFMAC encoding of gfx908, gfx90a, gfx942 and gfx950, every WMMA/SWMMAC
//! encoding LLVM 19 decodes for gfx1100, gfx1200 and gfx1201, every FP8/BF8/FP6/FP4 conversion
//! encoding of gfx940/942/950 and gfx1200/1201 and gfx950's other new VALU encodings (all of
//! their rows in the isa crate's tables: VOP1, VOP3, SDWA, DPP, DPP8) classify to an
//! executable operation.

use hipscope_isa::tables::{flags, Opcode, Row, ROWS};
use hipscope_isa::Processor;
use hipscope_sim::exec::valu::Kind;
use hipscope_sim::exec::{Fidelity, Sem};
use hipscope_sim::testing::Rig;

/// A row's fixed bits with its sources in v2, v8, v16 and the destination in v24.
fn encode_vgprs(row: &Row) -> Vec<u8> {
    use hipscope_isa::tables::OpName;
    let mut word = row.value;
    for d in row.operands {
        let value: u128 = match d.name {
            OpName::src0 => 256 + 2,
            OpName::src1 => 256 + 8,
            OpName::src2 => 256 + 16,
            OpName::vdst => 24,
            _ => continue,
        };
        if let Some(&(lo, len, _)) = d.fields.first() {
            word = (word & !(((1u128 << len) - 1) << lo)) | (value & ((1 << len) - 1)) << lo;
        }
    }
    word.to_le_bytes()[..row.bytes as usize].to_vec()
}

/// Every WMMA/SWMMAC row the decoder has for gfx1100/gfx1200/gfx1201 classifies to an
/// executable operation (not `Unsupported`): integer forms exact, float forms approximate.
#[test]
fn every_wmma_opcode_classifies() {
    let mut seen = 0;
    for p in [Processor::Gfx1100, Processor::Gfx1200, Processor::Gfx1201] {
        for w64 in [false, true] {
            let mode = w64 as usize;
            for row in ROWS.iter().filter(|r| r.has(flags::ISWMMA | flags::ISSWMMAC) && r.valid[mode] >> p as u32 & 1 != 0) {
                let bytes = encode_vgprs(row);
                let rig = Rig::new(p, w64);
                let sem = rig.classify(&bytes);
                assert!(matches!(sem, Sem::Valu(_)), "{} on {} (wave64 {w64}) does not execute", row.record, p.name());
                let int = INTEGER.contains(&row.opcode);
                let want_exact = matches!(sem.fidelity(), Fidelity::Exact);
                assert_eq!(int, want_exact, "{}: {:?}", row.record, sem.fidelity());
                seen += 1;
            }
        }
    }
    assert!(seen >= 2 * (6 + 2 * 22), "only {seen} rows");
}

/// The integer WMMA/SWMMAC opcodes (exact); the others are float (approximate).
const INTEGER: [Opcode; 6] = [
    Opcode::V_WMMA_I32_16X16X16_IU8,
    Opcode::V_WMMA_I32_16X16X16_IU4,
    Opcode::V_WMMA_I32_16X16X32_IU4,
    Opcode::V_SWMMAC_I32_16X16X32_IU8,
    Opcode::V_SWMMAC_I32_16X16X32_IU4,
    Opcode::V_SWMMAC_I32_16X16X64_IU4,
];

/// The FP8/BF8 conversions.
const CONVERSIONS: [Opcode; 8] = [
    Opcode::V_CVT_F32_FP8,
    Opcode::V_CVT_F32_BF8,
    Opcode::V_CVT_PK_F32_FP8,
    Opcode::V_CVT_PK_F32_BF8,
    Opcode::V_CVT_PK_FP8_F32,
    Opcode::V_CVT_PK_BF8_F32,
    Opcode::V_CVT_SR_FP8_F32,
    Opcode::V_CVT_SR_BF8_F32,
];

#[test]
fn every_fp8_conversion_classifies() {
    let mut seen = 0;
    for p in [Processor::Gfx940, Processor::Gfx942, Processor::Gfx1200, Processor::Gfx1201] {
        for w64 in [false, true] {
            let valid = |r: &&Row| r.valid[w64 as usize] >> p as u32 & 1 != 0;
            for row in ROWS.iter().filter(|r| CONVERSIONS.contains(&r.opcode)).filter(valid) {
                let sem = Rig::new(p, w64).classify(&encode_vgprs(row));
                assert!(matches!(sem, Sem::Valu(_)), "{} on {} (wave64 {w64}) does not execute", row.record, p.name());
                seen += 1;
            }
        }
    }
    // gfx940/942: 20 rows in wave64; gfx1200/1201: 28 rows in either wave size.
    assert_eq!(seen, 2 * 20 + 2 * 2 * 28);
}

/// Every matrix row (ISMAI, but the `v_accvgpr_*` moves) the decoder has for gfx908, gfx90a,
/// gfx942 and gfx950 classifies to a matrix operation of its own opcode: integer forms exact, float
/// forms approximate. None is left out.
#[test]
fn every_mfma_opcode_classifies() {
    let accvgpr = [Opcode::V_ACCVGPR_READ_B32, Opcode::V_ACCVGPR_WRITE_B32, Opcode::V_ACCVGPR_MOV_B32];
    let mut seen = Vec::new();
    for p in [Processor::Gfx908, Processor::Gfx90a, Processor::Gfx942, Processor::Gfx950] {
        let rig = Rig::new(p, true);
        seen.push(0);
        for row in ROWS.iter().filter(|r| r.has(flags::ISMAI) && r.valid[1] >> p as u32 & 1 != 0 && !accvgpr.contains(&r.opcode)) {
            // Every register field names register 256 + 0 (v0/a0 by the row's class); the
            // fields beyond the fixed bits are the operands, so this is a valid encoding.
            // gfx950's 128-bit scaled forms: the scale VGPRs in the first word pair, the MFMA's
            // sources in the second.
            let fields = 256u128 << 32 | 256u128 << 41 | 256u128 << 50 | 256u128 << 96 | 256u128 << 105 | 256u128 << 114;
            let word = row.value | fields & !row.mask;
            let sem = rig.classify(&word.to_le_bytes()[..row.bytes as usize]);
            let ok = matches!(&sem, Sem::Valu(op) if matches!(op.kind, Kind::Mfma(_)) && op.opcode == row.opcode);
            assert!(ok, "{p:?} {} classifies as {sem:?}", row.record);
            let int = row.record.contains("_I32_");
            assert_eq!(int, matches!(sem.fidelity(), Fidelity::Exact), "{}: {:?}", row.record, sem.fidelity());
            if let Some(x) = seen.last_mut() {
                *x += 1;
            }
        }
    }
    // The rows the isa tables (LLVM 19's) hold: gfx908's 20 MFMAs; gfx90a's and gfx942's in
    // VGPR and AGPR forms, gfx942's with its SMFMACs and its 16 FP8/BF8 forms; gfx950's: 40
    // dense opcodes (gfx942's without xf32, its new f16/bf16/i8 shapes and the plain and scaled
    // f8f6f4 forms) in both forms, and 28 SMFMACs (one row each).
    assert_eq!(seen, [20, 54, 78, 2 * 40 + 28], "matrix rows per processor");
}

/// The rows (both LLVM 19's and LLVM 22's tables, wave64) the isa crate holds for `p` that
/// `pick` selects, and how many of them classify to an executable operation.
fn classified(p: Processor, pick: impl Fn(&Row) -> bool) -> (usize, Vec<&'static str>) {
    let rig = Rig::new(p, true);
    let rows = ROWS.iter().filter(|r| (r.valid[1] | r.valid[5]) >> p as u32 & 1 != 0 && pick(r));
    let (mut n, mut bad) = (0, Vec::new());
    for row in rows {
        n += 1;
        if !matches!(rig.classify(&encode_vgprs(row)), Sem::Valu(_)) {
            bad.push(row.record.get());
        }
    }
    (n, bad)
}

/// Every FP8/BF8/FP6/FP4 conversion row of gfx940, gfx942, gfx950, gfx1200 and gfx1201
/// executes (the plain FP8/BF8 conversions everywhere, gfx950's V_CVT_SCALEF32_* family).
#[test]
fn every_narrow_float_conversion_classifies() {
    use Opcode::*;
    let plain = [V_CVT_F32_FP8, V_CVT_F32_BF8, V_CVT_PK_F32_FP8, V_CVT_PK_F32_BF8, V_CVT_PK_FP8_F32, V_CVT_PK_BF8_F32, V_CVT_SR_FP8_F32, V_CVT_SR_BF8_F32];
    let pick = |r: &Row| plain.contains(&r.opcode) || r.opcode.name().starts_with("v_cvt_scalef32_");
    let mut counts = Vec::new();
    for p in [Processor::Gfx940, Processor::Gfx942, Processor::Gfx950, Processor::Gfx1200, Processor::Gfx1201] {
        let (n, bad) = classified(p, pick);
        assert!(bad.is_empty(), "{}: {bad:?} do not execute", p.name());
        counts.push(n);
    }
    // The plain conversions have 20 rows on CDNA3/4 (VOP1, VOP3, SDWA, DPP) and 28 on gfx12
    // (DPP8 and the true16 forms too), once in LLVM 19's table and again in LLVM 22's, except
    // gfx940 (gone from LLVM 22) and gfx950 (one row serves both); gfx950 adds its 49
    // V_CVT_SCALEF32_* rows.
    assert_eq!(counts, [20, 2 * 20, 20 + 49, 2 * 28, 2 * 28], "conversion rows per processor");
}

/// gfx950's other new VALU rows and the older ones the issue lists (legacy exp/log, the quad
/// SADs) execute.
#[test]
fn every_other_new_gfx950_valu_row_classifies() {
    use Opcode::*;
    let ops = [
        V_PRNG_B32,
        V_PERMLANE16_SWAP_B32,
        V_PERMLANE32_SWAP_B32,
        V_ASHR_PK_I8_I32,
        V_ASHR_PK_U8_I32,
        V_PK_MAXIMUM3_F16,
        V_PK_MINIMUM3_F16,
        V_CVT_PK_BF16_F32,
        V_CVT_SR_BF16_F32,
        V_CVT_SR_F16_F32,
        V_CVT_PK_F16_F32,
        V_CVT_F32_BF16,
        V_QSAD_PK_U16_U8,
        V_MQSAD_PK_U16_U8,
        V_MQSAD_U32_U8,
        V_EXP_LEGACY_F32,
        V_LOG_LEGACY_F32,
    ];
    let (n, bad) = classified(Processor::Gfx950, |r| ops.contains(&r.opcode));
    assert!(bad.is_empty(), "{bad:?} do not execute");
    // V_PRNG_B32, V_CVT_F32_BF16 and V_EXP/LOG_LEGACY_F32 in VOP1, VOP3, SDWA and DPP; the
    // swaps in VOP1 and VOP3; the other 11 VOP3/VOP3P only.
    assert_eq!(n, 4 * 4 + 2 * 2 + 11, "rows");
}
