//! Operands with symbolic syntax: cache policy, memory offsets, buffer formats, image
//! dimensions, export targets, and the SOPP/SOPK immediates (`s_waitcnt`, `s_getreg`,
//! `s_sendmsg`, `s_delay_alu`, `s_waitcnt_depctr`, `ds_swizzle`, `s_set_gpr_idx_on`).
//!
//! Field layouts and names are the ones the AMD ISA manuals define for each generation (and
//! LLVM's assembler accepts); see each function.

use super::Printer;
use crate::decode::{sign_extend, CachePolicy, Operand};
use crate::tables::{flags, OpName};
use crate::Family;
use std::fmt::Write;

impl Printer<'_> {
    /// Cache-policy modifiers, by their per-family names (`crate::decode::CachePolicyNames`).
    pub(super) fn cpol(&mut self, v: i64) {
        let _ = write!(self.out, "{}", CachePolicy(v as u32).names(self.ctx.family, self.inst.row.flags));
    }

    /// MUBUF/MTBUF/DS offsets: unsigned 16-bit, except GFX12 buffer offsets (signed 24-bit).
    pub(super) fn offset(&mut self, v: i64) {
        if v as u32 == 0 {
            return;
        }
        self.out.push_str(" offset:");
        if self.ctx.gfx12_plus && self.has(flags::MUBUF | flags::MTBUF) {
            let _ = write!(self.out, "{}", sign_extend(v as u64, 24));
        } else {
            let _ = write!(self.out, "{}", v & 0xffff);
        }
    }

    /// FLAT offsets: signed for global/scratch (and all of GFX12) — 13 bits on GFX9/GFX11,
    /// 12 on GFX10, 24 on GFX12 — unsigned 16-bit otherwise.
    pub(super) fn flat_offset(&mut self, v: i64) {
        if v as u32 == 0 {
            return;
        }
        self.out.push_str(" offset:");
        let signed = self.has(flags::FLATGLOBAL | flags::FLATSCRATCH) || self.ctx.gfx12_plus;
        if signed {
            let bits = match self.ctx.family {
                Family::Gfx10 => 12,
                Family::Gfx12 => 24,
                _ => 13,
            };
            let _ = write!(self.out, "{}", sign_extend(v as u64 & 0xffff_ffff, bits));
        } else {
            let _ = write!(self.out, "{}", v & 0xffff);
        }
    }

    /// Image dimension (GFX10+ MIMG `dim` field).
    pub(super) fn dim(&mut self, v: i64) {
        const DIMS: [&str; 8] = ["1D", "2D", "3D", "CUBE", "1D_ARRAY", "2D_ARRAY", "2D_MSAA", "2D_MSAA_ARRAY"];
        self.out.push_str(" dim:SQ_RSRC_IMG_");
        match DIMS.get(v as usize) {
            Some(d) => self.out.push_str(d),
            None => {
                let _ = write!(self.out, "{v}");
            }
        }
    }

    /// MTBUF buffer format, printed after `soffset`: GFX10+ unified format, earlier
    /// data-format/number-format pair; the default format is omitted.
    pub(super) fn mtbuf_format(&mut self) {
        let Some(i) = self.named(OpName::format) else { return };
        let v = self.imm(i) as usize;
        if self.ctx.gfx10_plus {
            if v == 1 {
                return;
            }
            let table: &[&str] = if self.ctx.family == Family::Gfx10 { &UFMT_GFX10 } else { &UFMT_GFX11 };
            match table.get(v) {
                Some(name) => {
                    let _ = write!(self.out, " format:[{name}]");
                }
                None => {
                    let _ = write!(self.out, " format:{v}");
                }
            }
            return;
        }
        if v == 1 {
            return;
        }
        let (dfmt, nfmt) = (v & 0xf, (v >> 4) & 7);
        self.out.push_str(" format:[");
        if dfmt != 1 {
            self.out.push_str(DFMT[dfmt]);
            if nfmt != 0 {
                self.out.push(',');
            }
        }
        if nfmt != 0 {
            self.out.push_str(NFMT_GFX8[nfmt]);
        }
        self.out.push(']');
    }

    pub(super) fn exp_tgt(&mut self, v: i64) {
        let id = (v & 0x3f) as u32;
        let gfx11 = self.ctx.gfx11_plus;
        let gfx10 = self.ctx.gfx10_plus;
        let (name, index): (&str, Option<u32>) = match id {
            0..=7 => ("mrt", Some(id)),
            8 => ("mrtz", None),
            9 if !gfx11 => ("null", None),
            12..=15 => ("pos", Some(id - 12)),
            16 if gfx10 => ("pos", Some(4)),
            20 if gfx10 => ("prim", None),
            21 | 22 if gfx11 => ("dual_src_blend", Some(id - 21)),
            32..=63 if !gfx11 => ("param", Some(id - 32)),
            _ => {
                let _ = write!(self.out, " invalid_target_{id}");
                return;
            }
        };
        let _ = write!(self.out, " {name}");
        if let Some(n) = index {
            let _ = write!(self.out, "{n}");
        }
    }

    /// Export sources: `off` for disabled channels; compressed exports name src0/src1 twice.
    pub(super) fn exp_src(&mut self, i: usize, n: u8) {
        let en = self.named(OpName::en).map_or(0, |e| self.imm(e));
        let compr = self.named(OpName::compr).map_or(0, |c| self.imm(c));
        // Compressed exports pack two channels per register: src0, src0, src1, src1.
        let idx = if compr != 0 { (i + n as usize / 2).saturating_sub(n as usize) } else { i };
        if en & (1 << n) != 0 {
            match self.op(idx) {
                Operand::Reg(r) => {
                    let _ = write!(self.out, "{r}");
                }
                _ => self.out.push_str("off"),
            }
        } else {
            self.out.push_str("off");
        }
    }

    /// `hwreg(NAME[, offset, width])`: id [5:0], offset [10:6], width−1 [15:11].
    pub(super) fn hwreg(&mut self, v: i64) {
        let v = v as u32;
        let (id, offset, width) = (v & 0x3f, (v >> 6) & 0x1f, ((v >> 11) & 0x1f) + 1);
        self.out.push_str("hwreg(");
        let name = if self.ctx.llvm22 && self.ctx.family == Family::Gfx12 { hwreg_name_gfx12_llvm22(id, self.ctx) } else { hwreg_name(id, self.ctx) };
        match name {
            Some(n) => self.out.push_str(n),
            None => {
                let _ = write!(self.out, "{id}");
            }
        }
        if width != 32 || offset != 0 {
            let _ = write!(self.out, ", {offset}, {width}");
        }
        self.out.push(')');
    }

    /// `sendmsg(MSG[, OP[, stream]])`, or numbers when the fields name nothing valid.
    pub(super) fn sendmsg(&mut self, v: i64) {
        let v = v as u32 & 0xffff;
        let gfx11 = self.ctx.gfx11_plus;
        let id_mask = if gfx11 { 0xff } else { 0xf };
        let id = v & id_mask;
        let (op, stream) = if gfx11 { (0, 0) } else { ((v >> 4) & 7, (v >> 8) & 3) };
        let requires_op = id == 15 || (!gfx11 && (id == 2 || id == 3));
        let supports_stream = !gfx11 && (id == 2 || id == 3) && op != 0;
        let name = msg_name(id, self.ctx);
        let op_name = if requires_op { msg_op_name(id, op, self.ctx) } else { None };
        let op_ok = if requires_op { op_name.is_some() && !(id == 2 && !gfx11 && op == 0) } else { op == 0 };
        let stream_ok = match id {
            2 if !gfx11 => stream < 4,
            3 if !gfx11 => {
                if op == 0 {
                    stream == 0
                } else {
                    stream < 4
                }
            }
            _ => stream == 0,
        };
        let encodable = (id | (op << 4) | (stream << 8)) == v;
        match name {
            Some(name) if op_ok && stream_ok => {
                let _ = write!(self.out, "sendmsg({name}");
                if let Some(op_name) = op_name {
                    let _ = write!(self.out, ", {op_name}");
                    if supports_stream {
                        let _ = write!(self.out, ", {stream}");
                    }
                }
                self.out.push(')');
            }
            _ if encodable => {
                let _ = write!(self.out, "sendmsg({id}, {op}, {stream})");
            }
            _ => {
                let _ = write!(self.out, "{v}");
            }
        }
    }

    /// `ds_swizzle_b32` offset: quad permutation, or the bitmask/swap/reverse/broadcast modes.
    pub(super) fn swizzle(&mut self, v: i64) {
        let v = v as u16;
        if v == 0 {
            return;
        }
        self.out.push_str(" offset:");
        // GFX9+ offsets 0xC000.. are the rotate mode (direction bit 10, lanes 9:5) and
        // 0xE000.. the FFT mode (bits 4:0); LLVM 22 prints them symbolically, LLVM 19 as a
        // number (SIDefines.h Swizzle encodings, LLVM 22.1.8).
        if self.ctx.llvm22 && self.ctx.gfx9_plus && v >= 0xc000 {
            if v >= 0xe000 {
                let _ = write!(self.out, "swizzle(FFT,{})", v & 0x1f);
            } else {
                let _ = write!(self.out, "swizzle(ROTATE,{},{})", (v >> 10) & 1, (v >> 5) & 0x1f);
            }
            return;
        }
        if v & 0xff00 == 0x8000 {
            let _ = write!(self.out, "swizzle(QUAD_PERM,{},{},{},{})", v & 3, (v >> 2) & 3, (v >> 4) & 3, (v >> 6) & 3);
            return;
        }
        if v & 0x8000 != 0 {
            let _ = write!(self.out, "{v}");
            return;
        }
        let (and, or, xor) = (v & 0x1f, (v >> 5) & 0x1f, (v >> 10) & 0x1f);
        if and == 0x1f && or == 0 && xor.count_ones() == 1 {
            let _ = write!(self.out, "swizzle(SWAP,{xor})");
        } else if and == 0x1f && or == 0 && xor > 0 && (xor + 1).is_power_of_two() {
            let _ = write!(self.out, "swizzle(REVERSE,{})", xor + 1);
        } else {
            let group = 0x1f - and + 1;
            if group > 1 && group.is_power_of_two() && or < group && xor == 0 {
                let _ = write!(self.out, "swizzle(BROADCAST,{group},{or})");
            } else {
                self.out.push_str("swizzle(BITMASK_PERM,\"");
                let p0 = or ^ xor;
                let p1 = ((0x1f & and) | or) ^ xor;
                for bit in (0..5).rev() {
                    let (a, b) = ((p0 >> bit) & 1, (p1 >> bit) & 1);
                    self.out.push(match (a, b) {
                        (0, 0) => '0',
                        (1, 1) => '1',
                        (0, _) => 'p',
                        _ => 'i',
                    });
                }
                self.out.push_str("\")");
            }
        }
    }

    /// `s_waitcnt vmcnt(N) expcnt(N) lgkmcnt(N)`, counters at their maximum omitted (field
    /// layouts in `crate::waitcnt`).
    pub(super) fn waitcnt(&mut self, v: i64) {
        let crate::waitcnt::Waitcnt { vm, exp, lgkm } = crate::waitcnt::Waitcnt::decode(self.ctx.family, v as u32);
        let max = crate::waitcnt::Waitcnt::max(self.ctx.family);
        let (vm_max, lgkm_max) = (max.vm, max.lgkm);
        let all_default = vm == vm_max && exp == 7 && lgkm == lgkm_max;
        let mut parts = Vec::with_capacity(3);
        if vm != vm_max || all_default {
            parts.push(format!("vmcnt({vm})"));
        }
        if exp != 7 || all_default {
            parts.push(format!("expcnt({exp})"));
        }
        if lgkm != lgkm_max || all_default {
            parts.push(format!("lgkmcnt({lgkm})"));
        }
        self.out.push_str(&parts.join(" "));
    }

    /// `s_waitcnt_depctr` fields (GFX10+): symbolic when every field is in range and no
    /// unknown bit is set; only non-default fields are named unless all are default.
    pub(super) fn depctr(&mut self, v: i64) {
        let code = v as u32 & 0xffff;
        // (name, max, default, shift, width); hold_cnt exists with the GFX10.3 encoding.
        let fields: &[(&str, u32, u32, u32, u32)] = &[
            ("depctr_hold_cnt", 1, 1, 7, 1),
            ("depctr_sa_sdst", 1, 1, 0, 1),
            ("depctr_va_vdst", 15, 15, 12, 4),
            ("depctr_va_sdst", 7, 7, 9, 3),
            ("depctr_va_ssrc", 1, 1, 8, 1),
            ("depctr_va_vcc", 1, 1, 1, 1),
            ("depctr_vm_vsrc", 7, 7, 2, 3),
        ];
        let hold = self.ctx.has(crate::tables::feature::GFX10_BENCODING);
        let active: Vec<_> = fields.iter().filter(|f| f.0 != "depctr_hold_cnt" || hold).collect();
        let mut used = 0u32;
        let mut non_default = false;
        let mut valid = true;
        for &&(_, max, default, shift, width) in &active {
            let mask = (1u32 << width) - 1;
            used |= mask << shift;
            let val = (code >> shift) & mask;
            valid &= val <= max;
            non_default |= val != default;
        }
        if !valid || code & !used != 0 {
            let _ = write!(self.out, "{code:#x}");
            return;
        }
        let mut parts = Vec::new();
        for &&(name, _, default, shift, width) in &active {
            let val = (code >> shift) & ((1u32 << width) - 1);
            if val != default || !non_default {
                parts.push(format!("{name}({val})"));
            }
        }
        self.out.push_str(&parts.join(" "));
    }

    /// `s_delay_alu instid0(..) | instskip(..) | instid1(..)` (GFX11+).
    pub(super) fn delay_alu(&mut self, v: i64) {
        const IDS: [&str; 12] = [
            "NO_DEP",
            "VALU_DEP_1",
            "VALU_DEP_2",
            "VALU_DEP_3",
            "VALU_DEP_4",
            "TRANS32_DEP_1",
            "TRANS32_DEP_2",
            "TRANS32_DEP_3",
            "FMA_ACCUM_CYCLE_1",
            "SALU_CYCLE_1",
            "SALU_CYCLE_2",
            "SALU_CYCLE_3",
        ];
        const SKIPS: [&str; 6] = ["SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4"];
        let v = v as u32;
        let mut parts: Vec<String> = Vec::new();
        let id0 = v & 0xf;
        if id0 != 0 {
            parts.push(format!("instid0({})", IDS.get(id0 as usize).copied().unwrap_or("/* invalid instid value */")));
        }
        let skip = (v >> 4) & 7;
        if skip != 0 {
            parts.push(format!("instskip({})", SKIPS.get(skip as usize).copied().unwrap_or("/* invalid instskip value */")));
        }
        let id1 = (v >> 7) & 0xf;
        if id1 != 0 {
            parts.push(format!("instid1({})", IDS.get(id1 as usize).copied().unwrap_or("/* invalid instid value */")));
        }
        if parts.is_empty() {
            self.out.push('0');
        } else {
            self.out.push_str(&parts.join(" | "));
        }
    }

    /// `s_version` operand: version [7:0] plus W64 (bit 13), W32 (bit 14) and MDP (bit 15)
    /// flags, printed as an OR expression of LLVM's `UC_VERSION_*` symbols; other bits set →
    /// plain number.
    pub(super) fn version(&mut self, v: i64) {
        let v = v as u32 & 0xffff;
        let version = v & 0xff;
        if v & !(0xff | 0xe000) != 0 {
            let _ = write!(self.out, "{v:#x}");
            return;
        }
        let mut expr = match version {
            0 => "UC_VERSION_GFX7".to_string(),
            4 => "UC_VERSION_GFX10".to_string(),
            6 => "UC_VERSION_GFX11".to_string(),
            9 => "UC_VERSION_GFX12".to_string(),
            n => n.to_string(),
        };
        let mut binary = false;
        for (bit, name) in [(13, "UC_VERSION_W64_BIT"), (14, "UC_VERSION_W32_BIT"), (15, "UC_VERSION_MDP_BIT")] {
            if v & (1 << bit) != 0 {
                expr = if binary { format!("({expr})|{name}") } else { format!("{expr}|{name}") };
                binary = true;
            }
        }
        self.out.push_str(&expr);
    }

    /// `s_set_gpr_idx_on` mode: `gpr_idx(SRC0,SRC1,SRC2,DST)`.
    pub(super) fn gpr_idx_mode(&mut self, v: i64) {
        let v = v as u32;
        if v & !0xf != 0 {
            let _ = write!(self.out, "{v:#x}");
            return;
        }
        let names = ["SRC0", "SRC1", "SRC2", "DST"];
        let set: Vec<&str> = (0..4).filter(|b| v & (1 << b) != 0).map(|b| names[b]).collect();
        let _ = write!(self.out, "gpr_idx({})", set.join(","));
    }
}

/// GFX12 hardware register names as LLVM 22 prints them: the wave-state registers under
/// their `HW_REG_WAVE_*` names, and gfx1250's additions (LLVM 22.1.8 AMDGPUAsmUtils.cpp
/// `Opr` table, first name per id; ids from SIDefines.h `Hwreg::Id`).
fn hwreg_name_gfx12_llvm22(id: u32, ctx: &crate::decode::Ctx) -> Option<&'static str> {
    let gfx1250 = ctx.has(crate::tables::feature::GFX1250INSTS);
    Some(match id {
        1 => "HW_REG_WAVE_MODE",
        2 => "HW_REG_WAVE_STATUS",
        4 => "HW_REG_WAVE_STATE_PRIV",
        5 => "HW_REG_WAVE_GPR_ALLOC",
        6 => "HW_REG_WAVE_LDS_ALLOC",
        17 => "HW_REG_WAVE_EXCP_FLAG_PRIV",
        18 => "HW_REG_WAVE_EXCP_FLAG_USER",
        19 => "HW_REG_WAVE_TRAP_CTRL",
        20 => "HW_REG_WAVE_SCRATCH_BASE_LO",
        21 => "HW_REG_WAVE_SCRATCH_BASE_HI",
        23 => "HW_REG_WAVE_HW_ID1",
        24 => "HW_REG_WAVE_HW_ID2",
        26 => "HW_REG_WAVE_SCHED_MODE",
        28 if gfx1250 => "HW_REG_IB_STS2",
        31 => "HW_REG_WAVE_DVGPR_ALLOC_LO",
        32 => "HW_REG_WAVE_DVGPR_ALLOC_HI",
        33 if gfx1250 => "HW_REG_XNACK_STATE_PRIV",
        34 if gfx1250 => "HW_REG_XNACK_MASK",
        _ => return hwreg_name(id, ctx),
    })
}

/// Hardware register names for `s_getreg`/`s_setreg` (per ISA generation).
fn hwreg_name(id: u32, ctx: &crate::decode::Ctx) -> Option<&'static str> {
    let f = ctx.family;
    let gfx9_10 = matches!(f, Family::Gfx9 | Family::Gfx90a | Family::Gfx940 | Family::Gfx10);
    let gfx9_11 = gfx9_10 || f == Family::Gfx11;
    let gfx10_11 = matches!(f, Family::Gfx10 | Family::Gfx11);
    let gfx12 = f == Family::Gfx12;
    let gfx10p = ctx.gfx10_plus;
    let gfx940 = f == Family::Gfx940;
    let gfx10_3 = ctx.has(crate::tables::feature::GFX10_3INSTS);
    Some(match id {
        1 => "HW_REG_MODE",
        2 => "HW_REG_STATUS",
        3 if !gfx12 => "HW_REG_TRAPSTS",
        4 if !gfx10p => "HW_REG_HW_ID",
        4 if gfx12 => "HW_REG_STATE_PRIV",
        5 => "HW_REG_GPR_ALLOC",
        6 => "HW_REG_LDS_ALLOC",
        7 => "HW_REG_IB_STS",
        10 if gfx12 => "HW_REG_PERF_SNAPSHOT_DATA",
        11 if gfx12 => "HW_REG_PERF_SNAPSHOT_PC_LO",
        12 if gfx12 => "HW_REG_PERF_SNAPSHOT_PC_HI",
        15 if gfx9_11 => "HW_REG_SH_MEM_BASES",
        15 if gfx12 => "HW_REG_PERF_SNAPSHOT_DATA1",
        16 if gfx9_10 => "HW_REG_TBA_LO",
        16 if gfx12 => "HW_REG_PERF_SNAPSHOT_DATA2",
        17 if gfx9_10 => "HW_REG_TBA_HI",
        17 if gfx12 => "HW_REG_EXCP_FLAG_PRIV",
        18 if gfx9_10 => "HW_REG_TMA_LO",
        18 if f == Family::Gfx11 => "HW_REG_PERF_SNAPSHOT_PC_LO",
        18 if gfx12 => "HW_REG_EXCP_FLAG_USER",
        19 if gfx9_10 => "HW_REG_TMA_HI",
        19 if f == Family::Gfx11 => "HW_REG_PERF_SNAPSHOT_PC_HI",
        19 if gfx12 => "HW_REG_TRAP_CTRL",
        20 if gfx10_11 => "HW_REG_FLAT_SCR_LO",
        20 if gfx12 => "HW_REG_SCRATCH_BASE_LO",
        20 if gfx940 => "HW_REG_XCC_ID",
        21 if gfx10_11 => "HW_REG_FLAT_SCR_HI",
        21 if gfx12 => "HW_REG_SCRATCH_BASE_HI",
        21 if gfx940 => "HW_REG_SQ_PERF_SNAPSHOT_DATA",
        22 if f == Family::Gfx10 && !gfx10_3 => "HW_REG_XNACK_MASK",
        22 if gfx940 => "HW_REG_SQ_PERF_SNAPSHOT_DATA1",
        23 if gfx10p => "HW_REG_HW_ID1",
        23 if gfx940 => "HW_REG_SQ_PERF_SNAPSHOT_PC_LO",
        24 if gfx10p => "HW_REG_HW_ID2",
        24 if gfx940 => "HW_REG_SQ_PERF_SNAPSHOT_PC_HI",
        25 if f == Family::Gfx10 => "HW_REG_POPS_PACKER",
        27 if f == Family::Gfx11 => "HW_REG_PERF_SNAPSHOT_DATA",
        29 if (f == Family::Gfx10 && gfx10_3) || f == Family::Gfx11 => "HW_REG_SHADER_CYCLES",
        29 if gfx12 => "HW_REG_SHADER_CYCLES_LO",
        30 if gfx12 => "HW_REG_SHADER_CYCLES_HI",
        31 if gfx12 => "HW_REG_DVGPR_ALLOC_LO",
        32 if gfx12 => "HW_REG_DVGPR_ALLOC_HI",
        _ => return None,
    })
}

/// `s_sendmsg` message names per generation.
fn msg_name(id: u32, ctx: &crate::decode::Ctx) -> Option<&'static str> {
    let f = ctx.family;
    let gfx11p = ctx.gfx11_plus;
    let gfx9 = f.is_gfx9_like();
    let gfx10 = f == Family::Gfx10;
    Some(match id {
        1 => "MSG_INTERRUPT",
        2 if !gfx11p => "MSG_GS",
        2 => "MSG_HS_TESSFACTOR",
        3 if !gfx11p => "MSG_GS_DONE",
        3 => "MSG_DEALLOC_VGPRS",
        4 if !gfx11p => "MSG_SAVEWAVE",
        5 if gfx9 || gfx10 || f == Family::Gfx11 => "MSG_STALL_WAVE_GEN",
        6 if gfx9 || gfx10 || f == Family::Gfx11 => "MSG_HALT_WAVES",
        7 if gfx9 || gfx10 => "MSG_ORDERED_PS_DONE",
        8 if gfx9 || gfx10 => "MSG_EARLY_PRIM_DEALLOC",
        9 if ctx.gfx9_plus => "MSG_GS_ALLOC_REQ",
        10 if gfx9 || gfx10 => "MSG_GET_DOORBELL",
        11 if gfx10 => "MSG_GET_DDID",
        15 => "MSG_SYSMSG",
        128 if gfx11p => "MSG_RTN_GET_DOORBELL",
        129 if gfx11p => "MSG_RTN_GET_DDID",
        130 if gfx11p => "MSG_RTN_GET_TMA",
        131 if gfx11p => "MSG_RTN_GET_REALTIME",
        132 if gfx11p => "MSG_RTN_SAVE_WAVE",
        133 if gfx11p => "MSG_RTN_GET_TBA",
        134 if gfx11p => "MSG_RTN_GET_TBA_TO_PC",
        135 if ctx.gfx12_plus => "MSG_RTN_GET_SE_AID_ID",
        _ => return None,
    })
}

/// Operation names of `MSG_SYSMSG` and the pre-GFX11 GS messages.
fn msg_op_name(id: u32, op: u32, ctx: &crate::decode::Ctx) -> Option<&'static str> {
    if id == 15 {
        return Some(match op {
            1 => "SYSMSG_OP_ECC_ERR_INTERRUPT",
            2 => "SYSMSG_OP_REG_RD",
            3 if !ctx.gfx9_plus => "SYSMSG_OP_HOST_TRAP_ACK",
            4 => "SYSMSG_OP_TTRACE_PC",
            _ => return None,
        });
    }
    ["GS_OP_NOP", "GS_OP_CUT", "GS_OP_EMIT", "GS_OP_EMIT_CUT"].get(op as usize).copied()
}

/// Data formats of GFX8/GFX9 MTBUF (ISA manual "Buffer Data Format").
const DFMT: [&str; 16] = [
    "BUF_DATA_FORMAT_INVALID",
    "BUF_DATA_FORMAT_8",
    "BUF_DATA_FORMAT_16",
    "BUF_DATA_FORMAT_8_8",
    "BUF_DATA_FORMAT_32",
    "BUF_DATA_FORMAT_16_16",
    "BUF_DATA_FORMAT_10_11_11",
    "BUF_DATA_FORMAT_11_11_10",
    "BUF_DATA_FORMAT_10_10_10_2",
    "BUF_DATA_FORMAT_2_10_10_10",
    "BUF_DATA_FORMAT_8_8_8_8",
    "BUF_DATA_FORMAT_32_32",
    "BUF_DATA_FORMAT_16_16_16_16",
    "BUF_DATA_FORMAT_32_32_32",
    "BUF_DATA_FORMAT_32_32_32_32",
    "BUF_DATA_FORMAT_RESERVED_15",
];

/// Number formats of GFX8/GFX9 MTBUF.
const NFMT_GFX8: [&str; 8] = [
    "BUF_NUM_FORMAT_UNORM",
    "BUF_NUM_FORMAT_SNORM",
    "BUF_NUM_FORMAT_USCALED",
    "BUF_NUM_FORMAT_SSCALED",
    "BUF_NUM_FORMAT_UINT",
    "BUF_NUM_FORMAT_SINT",
    "BUF_NUM_FORMAT_RESERVED_6",
    "BUF_NUM_FORMAT_FLOAT",
];

macro_rules! ufmt {
    ($($n:literal),* $(,)?) => { [$(concat!("BUF_FMT_", $n)),*] };
}

/// GFX10 unified buffer formats (RDNA1 ISA manual, "Buffer formats").
const UFMT_GFX10: [&str; 78] = ufmt!(
    "INVALID",
    "8_UNORM",
    "8_SNORM",
    "8_USCALED",
    "8_SSCALED",
    "8_UINT",
    "8_SINT",
    "16_UNORM",
    "16_SNORM",
    "16_USCALED",
    "16_SSCALED",
    "16_UINT",
    "16_SINT",
    "16_FLOAT",
    "8_8_UNORM",
    "8_8_SNORM",
    "8_8_USCALED",
    "8_8_SSCALED",
    "8_8_UINT",
    "8_8_SINT",
    "32_UINT",
    "32_SINT",
    "32_FLOAT",
    "16_16_UNORM",
    "16_16_SNORM",
    "16_16_USCALED",
    "16_16_SSCALED",
    "16_16_UINT",
    "16_16_SINT",
    "16_16_FLOAT",
    "10_11_11_UNORM",
    "10_11_11_SNORM",
    "10_11_11_USCALED",
    "10_11_11_SSCALED",
    "10_11_11_UINT",
    "10_11_11_SINT",
    "10_11_11_FLOAT",
    "11_11_10_UNORM",
    "11_11_10_SNORM",
    "11_11_10_USCALED",
    "11_11_10_SSCALED",
    "11_11_10_UINT",
    "11_11_10_SINT",
    "11_11_10_FLOAT",
    "10_10_10_2_UNORM",
    "10_10_10_2_SNORM",
    "10_10_10_2_USCALED",
    "10_10_10_2_SSCALED",
    "10_10_10_2_UINT",
    "10_10_10_2_SINT",
    "2_10_10_10_UNORM",
    "2_10_10_10_SNORM",
    "2_10_10_10_USCALED",
    "2_10_10_10_SSCALED",
    "2_10_10_10_UINT",
    "2_10_10_10_SINT",
    "8_8_8_8_UNORM",
    "8_8_8_8_SNORM",
    "8_8_8_8_USCALED",
    "8_8_8_8_SSCALED",
    "8_8_8_8_UINT",
    "8_8_8_8_SINT",
    "32_32_UINT",
    "32_32_SINT",
    "32_32_FLOAT",
    "16_16_16_16_UNORM",
    "16_16_16_16_SNORM",
    "16_16_16_16_USCALED",
    "16_16_16_16_SSCALED",
    "16_16_16_16_UINT",
    "16_16_16_16_SINT",
    "16_16_16_16_FLOAT",
    "32_32_32_UINT",
    "32_32_32_SINT",
    "32_32_32_FLOAT",
    "32_32_32_32_UINT",
    "32_32_32_32_SINT",
    "32_32_32_32_FLOAT",
);

/// GFX11+ unified buffer formats (RDNA3 ISA manual, "Buffer formats").
const UFMT_GFX11: [&str; 64] = ufmt!(
    "INVALID",
    "8_UNORM",
    "8_SNORM",
    "8_USCALED",
    "8_SSCALED",
    "8_UINT",
    "8_SINT",
    "16_UNORM",
    "16_SNORM",
    "16_USCALED",
    "16_SSCALED",
    "16_UINT",
    "16_SINT",
    "16_FLOAT",
    "8_8_UNORM",
    "8_8_SNORM",
    "8_8_USCALED",
    "8_8_SSCALED",
    "8_8_UINT",
    "8_8_SINT",
    "32_UINT",
    "32_SINT",
    "32_FLOAT",
    "16_16_UNORM",
    "16_16_SNORM",
    "16_16_USCALED",
    "16_16_SSCALED",
    "16_16_UINT",
    "16_16_SINT",
    "16_16_FLOAT",
    "10_11_11_FLOAT",
    "11_11_10_FLOAT",
    "10_10_10_2_UNORM",
    "10_10_10_2_SNORM",
    "10_10_10_2_UINT",
    "10_10_10_2_SINT",
    "2_10_10_10_UNORM",
    "2_10_10_10_SNORM",
    "2_10_10_10_USCALED",
    "2_10_10_10_SSCALED",
    "2_10_10_10_UINT",
    "2_10_10_10_SINT",
    "8_8_8_8_UNORM",
    "8_8_8_8_SNORM",
    "8_8_8_8_USCALED",
    "8_8_8_8_SSCALED",
    "8_8_8_8_UINT",
    "8_8_8_8_SINT",
    "32_32_UINT",
    "32_32_SINT",
    "32_32_FLOAT",
    "16_16_16_16_UNORM",
    "16_16_16_16_SNORM",
    "16_16_16_16_USCALED",
    "16_16_16_16_SSCALED",
    "16_16_16_16_UINT",
    "16_16_16_16_SINT",
    "16_16_16_16_FLOAT",
    "32_32_32_UINT",
    "32_32_32_SINT",
    "32_32_32_FLOAT",
    "32_32_32_32_UINT",
    "32_32_32_32_SINT",
    "32_32_32_32_FLOAT",
);
