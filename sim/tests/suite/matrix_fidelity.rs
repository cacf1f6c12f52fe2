//! No matrix opcode is unsupported: every MFMA/SMFMAC/WMMA/SWMMAC row (and gfx950's
//! `v_mfma_ld_scale_b32`) the opcode tables hold for gfx908, gfx90a, gfx942, gfx950, gfx11
//! (gfx1100, gfx1150) and gfx12 (gfx1200, gfx1201) — LLVM 19's rows and LLVM 22's, both wave
//! sizes, both true16 modes — decodes to semantics `run --fidelity` would not list as
//! unsupported. The rows come from LLVM's tables through `tools/isagen`, not from hipscope's
//! classifier, so an opcode the classifier forgets fails here.

use hipscope_isa::decode::Decoder;
use hipscope_isa::tables::{flags, Opcode, Row, ROWS};
use hipscope_isa::Processor;
use hipscope_sim::exec::{classify, Fidelity, Sem};
use hipscope_sim::testing::Rig;

const PROCESSORS: [Processor; 9] = [
    Processor::Gfx908,
    Processor::Gfx90a,
    Processor::Gfx940,
    Processor::Gfx942,
    Processor::Gfx950,
    Processor::Gfx1100,
    Processor::Gfx1150,
    Processor::Gfx1200,
    Processor::Gfx1201,
];

/// Matrix rows: the ISMAI/ISWMMA/ISSWMMAC flags, less the accumulator moves (plain VALU
/// moves), plus the scale-load that prefixes gfx950's scaled MFMAs.
fn is_matrix(r: &Row) -> bool {
    let moves = [Opcode::V_ACCVGPR_READ_B32, Opcode::V_ACCVGPR_WRITE_B32, Opcode::V_ACCVGPR_MOV_B32];
    (r.has(flags::ISMAI | flags::ISWMMA | flags::ISSWMMAC) && !moves.contains(&r.opcode)) || r.opcode == Opcode::V_MFMA_LD_SCALE_B32
}

/// The row's fixed bits with every 9-bit source field naming v0 (256) and the destination v0:
/// a valid encoding of the row whatever its operand classes (the scaled forms' second word
/// pair holds the MFMA's sources).
fn encode(row: &Row) -> Vec<u8> {
    let fields = 256u128 << 32 | 256u128 << 41 | 256u128 << 50 | 256u128 << 96 | 256u128 << 105 | 256u128 << 114;
    let word = row.value | fields & !row.mask;
    word.to_le_bytes()[..row.bytes as usize].to_vec()
}

#[test]
fn no_matrix_opcode_is_unsupported() {
    let (mut rows, mut bad, mut opcodes) = (0, Vec::new(), std::collections::BTreeSet::new());
    for p in PROCESSORS {
        for mode in 0..8usize {
            let (w64, t16, llvm22) = (mode & 1 != 0, mode & 2 != 0, mode & 4 != 0);
            // CDNA runs wave64 only; LLVM 19's decoder here has no real-true16 mode.
            if (!p.family().is_rdna() && !w64) || (!llvm22 && t16) {
                continue;
            }
            let decoder = if llvm22 { Decoder::llvm22(p, w64, t16) } else { Decoder::new(p, w64) };
            let env = Rig::new(p, w64).env;
            for row in ROWS.iter().filter(|r| is_matrix(r) && r.valid[mode] >> p as u32 & 1 != 0) {
                rows += 1;
                let sem = match decoder.decode(&encode(row), 0x1000) {
                    Ok(inst) => classify(&inst, &env),
                    Err(e) => {
                        bad.push(format!("{} {} mode {mode}: does not decode ({e})", p.name(), row.record));
                        continue;
                    }
                };
                let unsupported = matches!(sem, Sem::Unsupported) || matches!(sem.fidelity(), Fidelity::NoEffect(_));
                if unsupported {
                    bad.push(format!("{} {} mode {mode}: {:?}", p.name(), row.record, sem.fidelity()));
                }
                opcodes.insert(row.opcode.name());
            }
        }
    }
    assert!(bad.is_empty(), "{} of {rows} matrix rows are unsupported:\n{}", bad.len(), bad.join("\n"));
    // gfx908..gfx950's MFMA/SMFMAC opcodes and gfx11/gfx12's WMMA/SWMMAC ones: well over 100
    // distinct opcodes; a filter that selected nothing would pass vacuously.
    assert!(opcodes.len() > 100, "only {} matrix opcodes seen", opcodes.len());
    for family in ["v_mfma_", "v_smfmac_", "v_mfma_scale_", "v_wmma_", "v_swmmac_", "v_mfma_ld_scale_"] {
        assert!(opcodes.iter().any(|o| o.starts_with(family)), "no {family}* row seen");
    }
}
