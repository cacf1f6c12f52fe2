//! Encoder: a mnemonic and named operands → machine code bytes, for code built by hipscope
//! itself (the litmus grader's kernels) rather than by a compiler.
//!
//! The encoder holds no encoding rules of its own: it picks a table row for the mnemonic, puts
//! each operand's bits into the row's fields by searching the field values the *decoder*
//! turns into the wanted operand, and finally decodes the bytes it made and checks they give
//! back the same instruction. Every encoding it produces is therefore one the decoder reads
//! as asked, and a register or immediate the encoding cannot hold is an error, not a wrong
//! instruction.

use super::operand::State;
use super::{Ctx, Decoder, Inst, Operand};
use crate::tables::{flags, DecoderKind, OpName, Row, ROWS};

/// Why an instruction could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    #[error("{mnemonic}: no encoding on {processor}")]
    NoRow { mnemonic: String, processor: &'static str },
    #[error("{mnemonic}: no encoding on {processor} takes these operands ({why})")]
    Operands { mnemonic: String, processor: &'static str, why: String },
}

/// An encoded instruction: its bytes and what they decode to.
#[derive(Debug, Clone)]
pub struct Encoded {
    pub bytes: Vec<u8>,
    pub inst: Inst,
}

/// Field values tried for a register operand (the widest register field is 10 bits).
const SEARCH_LIMIT: u64 = 1 << 10;

impl Decoder {
    /// Encode `mnemonic` (LLVM's lower-case name, e.g. `global_load_dword`) with `operands`
    /// (by LLVM operand name; operands not named take the value of an all-zero field, which
    /// must be an immediate) at `address`. The first mnemonic of `names` with an encoding on
    /// this processor is used, so a caller can name a family's spellings in turn
    /// (`s_load_dwordx2`, `s_load_b64`).
    pub fn encode(&self, names: &[&str], operands: &[(OpName, Operand)], address: u64) -> Result<Encoded, EncodeError> {
        let ctx = self.ctx();
        let processor = ctx.processor.name();
        let mut why: Vec<String> = Vec::new();
        for name in names {
            let mut rows: Vec<&'static Row> = ROWS.iter().filter(|r| r.opcode.name() == *name && ctx.row_valid(r)).collect();
            if rows.is_empty() {
                continue;
            }
            rows.sort_by_key(|r| r.bytes);
            for row in rows {
                match self.encode_row(row, operands, address) {
                    Ok(e) => return Ok(e),
                    Err(w) => why.push(w),
                }
            }
        }
        if why.is_empty() {
            return Err(EncodeError::NoRow { mnemonic: names.join("/"), processor });
        }
        Err(EncodeError::Operands { mnemonic: names.join("/"), processor, why: why.join("; ") })
    }

    fn encode_row(&self, row: &'static Row, operands: &[(OpName, Operand)], address: u64) -> Result<Encoded, String> {
        let ctx = self.ctx();
        if let Some((name, _)) = operands.iter().find(|(n, _)| row.operand_index(*n).is_none()) {
            return Err(format!("{} has no operand {}", row.record, name.name()));
        }
        let wanted = |name: OpName| operands.iter().find(|(n, _)| *n == name).map(|(_, o)| *o);
        let mut word = row.value;
        let mut literal: Option<u32> = None;
        let mut placed: Vec<Operand> = Vec::with_capacity(row.operands.len());
        for (i, desc) in row.operands.iter().enumerate() {
            if desc.fields.is_empty() {
                placed.push(wanted(desc.name).unwrap_or(Operand::Absent));
                continue;
            }
            let kind = row.class_of(i).decoder;
            let want = match wanted(desc.name) {
                Some(o) => o,
                None if is_immediate(kind) => Operand::Imm(0),
                None => return Err(format!("operand {} needs a value", desc.name.name())),
            };
            let mask = value_mask(&desc.fields);
            // Returning atomics carry GLC in the opcode bits, not in the cache-policy field.
            let want = match want {
                Operand::Imm(v) if desc.name == OpName::cpol && implies_glc(row) && mask & 1 == 0 => Operand::Imm(v & !1),
                w => w,
            };
            let (value, lit) = field_value_for(ctx, kind, want, mask, &placed).ok_or_else(|| format!("{} cannot hold {:?}", desc.name.name(), want))?;
            if let Some(l) = lit {
                if literal.is_some_and(|x| x != l) {
                    return Err("two different literals".into());
                }
                literal = Some(l);
            }
            for &(lo, len, at) in desc.fields.iter() {
                let part = (value >> at) & ((1u64 << len) - 1);
                word = (word & !(((1u128 << len) - 1) << lo)) | (u128::from(part) << lo);
            }
            placed.push(want);
        }
        let mut bytes: Vec<u8> = word.to_le_bytes()[..row.bytes as usize].to_vec();
        if let Some(l) = literal {
            bytes.extend_from_slice(&l.to_le_bytes());
        }
        let inst = self.decode(&bytes, address).map_err(|e| format!("{} does not decode back: {e}", row.record))?;
        check_round_trip(row, &inst, operands, bytes.len())?;
        Ok(Encoded { bytes, inst })
    }
}

/// Operand kinds whose all-zero field is a plain number (offsets, cache bits, modifiers).
fn is_immediate(kind: DecoderKind) -> bool {
    matches!(kind, DecoderKind::Imm | DecoderKind::BranchTarget | DecoderKind::SmemOffset)
}

/// The field value (and literal, if one is needed) that decodes to `want`.
fn field_value_for(ctx: &Ctx, kind: DecoderKind, want: Operand, mask: u64, prior: &[Operand]) -> Option<(u64, Option<u32>)> {
    if is_immediate(kind) {
        let Operand::Imm(v) = want else { return None };
        return fits(v, mask).then_some((v as u64 & mask, None));
    }
    let literal_bytes = match want {
        Operand::Imm(v) => (v as u32).to_le_bytes(),
        _ => [0; 4],
    };
    let inherit = matches!(prior.first(), Some(Operand::Reg(super::Reg::Agpr { .. })));
    for v in (0..=mask.min(SEARCH_LIMIT - 1)).filter(|v| v & !mask == 0) {
        let mut state = State { ctx, rest: &literal_bytes, literal: None };
        if state.decode(kind, v, prior, inherit) == Ok(want) {
            return Some((v, state.literal));
        }
    }
    None
}

/// A returning atomic, whose GLC bit the decoder adds to the cache policy
/// (`apply_implied_values`).
fn implies_glc(row: &Row) -> bool {
    super::is_memory_with_cpol(row) && row.has(flags::ISATOMICRET)
}

/// The operand-value bits an operand's fields hold (the fields may leave gaps: a cache-policy
/// operand gathers bits from several places of the instruction).
fn value_mask(fields: &[(u8, u8, u8)]) -> u64 {
    fields.iter().fold(0u64, |m, &(_, len, at)| m | (((1u64 << len) - 1) << at))
}

/// Whether the fields hold `v`: every set bit is in `mask`, or `v` is negative and its bits
/// above the top field bit are its sign (a signed offset).
fn fits(v: i64, mask: u64) -> bool {
    let v = v as u64;
    if v & !mask == 0 {
        return true;
    }
    let top = 63 - mask.leading_zeros().min(63);
    let contiguous = mask == (((1u128 << (top + 1)) - 1) as u64);
    contiguous && (v as i64) < 0 && (v >> top) == u64::MAX >> top
}

/// The decoded instruction must be the row asked for (or one with the same opcode and
/// operand layout) with every named operand as given.
fn check_round_trip(row: &'static Row, inst: &Inst, operands: &[(OpName, Operand)], size: usize) -> Result<(), String> {
    if inst.row.opcode != row.opcode || inst.size as usize != size {
        return Err(format!("{} decodes as {}", row.record, inst.row.record));
    }
    for &(name, want) in operands {
        let got = inst.operand(name);
        let want = match (name, want) {
            // Returning atomics carry GLC in the opcode bits (`apply_implied_values`).
            (OpName::cpol, Operand::Imm(v)) if implies_glc(row) => Operand::Imm(v | 1),
            _ => want,
        };
        // Immediate fields hold the low bits of a signed value (`offset:-1` is 0x1fff).
        let same = match (got, want) {
            (Some(Operand::Imm(g)), Operand::Imm(w)) if row.operand_index(name).is_some_and(|i| is_immediate(row.class_of(i).decoder)) => {
                let implied = u64::from(name == OpName::cpol && implies_glc(row));
                let mask = row.operand_index(name).map_or(u64::MAX, |i| value_mask(&row.operands[i].fields)) | implied;
                fits(w, mask) && g as u64 & mask == w as u64 & mask
            }
            // A zero the encoding implies: an immediate-offset form and a register-offset form
            // with the null register are one encoding, and the decoder may name either.
            (None, Operand::Imm(0)) => true,
            (g, w) => g == Some(w),
        };
        if !same {
            return Err(format!("{} operand {} decodes as {:?}, not {:?}", row.record, name.name(), got, want));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::Reg;
    use crate::Processor;

    fn v(index: u8, count: u8) -> Operand {
        Operand::Reg(Reg::Vgpr { index, count })
    }

    // Expected bytes from LLVM 19's disassembler tests (`test/MC/Disassembler/AMDGPU/gfx9_flat.txt`,
    // `gfx8_vop1.txt`): independent of this encoder and of our decoder.
    #[test]
    fn matches_llvm_encodings() {
        let d = Decoder::new(Processor::Gfx900, true);
        // global_load_dword v5, v[1:2], off offset:-1 ; encoding: [0xff,0x9f,0x50,0xdc,0x01,0x00,0x7f,0x05]
        let e = d.encode(&["global_load_dword"], &[(OpName::vdst, v(5, 1)), (OpName::vaddr, v(1, 2)), (OpName::offset, Operand::Imm(-1))], 0).unwrap();
        assert_eq!(e.bytes, [0xff, 0x9f, 0x50, 0xdc, 0x01, 0x00, 0x7f, 0x05]);
        let d = Decoder::new(Processor::Gfx803, true);
        // v_mov_b32_e32 v5, 0xaf123456 ; encoding: [0xff,0x02,0x0a,0x7e,0x56,0x34,0x12,0xaf]
        let e = d.encode(&["v_mov_b32"], &[(OpName::vdst, v(5, 1)), (OpName::src0, Operand::Imm(0xaf123456))], 0).unwrap();
        assert_eq!(e.bytes, [0xff, 0x02, 0x0a, 0x7e, 0x56, 0x34, 0x12, 0xaf]);
    }

    // `global_load_dword v1, v[3:4], off sc0 sc1` on gfx940: the sc1 bit sits apart from sc0
    // and nt (LLVM 19 `gfx940_features.txt`-style encodings are checked by decoding back).
    #[test]
    fn cache_bits_in_separate_places_are_kept_or_refused() {
        let d = Decoder::new(Processor::Gfx942, true);
        let sc0_sc1 = Operand::Imm((crate::decode::CachePolicy::GLC | crate::decode::CachePolicy::SCC) as i64);
        let e = d.encode(&["global_load_dword"], &[(OpName::vdst, v(1, 1)), (OpName::vaddr, v(3, 2)), (OpName::cpol, sc0_sc1)], 0).unwrap();
        assert_eq!(e.inst.cache_policy().0, crate::decode::CachePolicy::GLC | crate::decode::CachePolicy::SCC);
        // A bit no field holds is refused, not dropped.
        let e = d.encode(&["global_load_dword"], &[(OpName::vdst, v(1, 1)), (OpName::vaddr, v(3, 2)), (OpName::cpol, Operand::Imm(1 << 12))], 0);
        assert!(e.is_err());
    }

    // ds_write_b32 v1, v2 ; encoding: [0x00,0x00,0x1a,0xd8,0x01,0x02,0x00,0x00] (gfx8_ds.txt; the
    // GFX9 DS encoding is the same)
    #[test]
    fn lds_store() {
        for p in [Processor::Gfx900, Processor::Gfx90a] {
            let d = Decoder::new(p, true);
            let e = d.encode(&["ds_write_b32"], &[(OpName::addr, v(1, 1)), (OpName::data0, v(2, 1))], 0).unwrap();
            assert_eq!(e.bytes, [0x00, 0x00, 0x1a, 0xd8, 0x01, 0x02, 0x00, 0x00], "{p:?}");
        }
    }

    #[test]
    fn a_register_the_field_cannot_hold_is_an_error() {
        let d = Decoder::new(Processor::Gfx900, true);
        let e = d.encode(&["global_load_dword"], &[(OpName::vdst, Operand::Reg(Reg::Sgpr { index: 1, count: 1 })), (OpName::vaddr, v(3, 2))], 0);
        assert!(e.is_err());
        assert!(matches!(d.encode(&["no_such_instruction"], &[], 0), Err(EncodeError::NoRow { .. })));
    }
}
