//! Printer: typed instructions → LLVM assembly syntax, as `llvm-objdump-19` prints them (as
//! `llvm-objdump-22` does for a `Decoder::llvm22` decoder, `Ctx::llvm22`).
//!
//! Each table row carries its LLVM assembly template (`v_add_f32$vdst, $src0_modifiers, ...`);
//! the printer walks the template and prints each `$operand` with the rule of its operand class
//! (`PrintKind`). The rules are written from the syntax LLVM's disassembler tests expect; the
//! corpus test (`tests/suite/llvm_mc_corpus.rs`) holds them to it.

mod imm;
mod listing;
mod special;
mod vop;

pub use listing::{listing, ListingError, ListingOptions};

use crate::decode::{Ctx, Inst, Operand, Reg};
use crate::tables::{flags, OpName, OperandType, PrintKind};
use std::fmt::Write;

/// Print one instruction (mnemonic and operands, no address or encoding).
pub fn format_inst(inst: &Inst, ctx: &Ctx) -> String {
    let mut p = Printer { inst, ctx, out: String::with_capacity(64), unbracket: false };
    p.template(&inst.row.asm);
    p.out
}

struct Printer<'a> {
    inst: &'a Inst,
    ctx: &'a Ctx,
    out: String,
    /// A GFX12 image address list of one register, printed without its `[...]`: LLVM 22 decodes
    /// it as the one-address form (`image_load v0, v0, ...`); set at `$vaddr0`, cleared at `]`.
    unbracket: bool,
}

impl Printer<'_> {
    /// Walk an AsmString: literal text, `$name` / `${name}` operand references, and `{a|b}`
    /// variant groups (the default variant is the first alternative).
    fn template(&mut self, asm: &str) {
        let bytes = asm.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'$' => {
                    let (name, next) = operand_ref(asm, i + 1);
                    self.operand_by_name(name);
                    i = next;
                }
                b'{' => {
                    let end = asm[i..].find('}').map_or(asm.len(), |e| i + e);
                    let group = &asm[i + 1..end];
                    let first = group.split('|').next().unwrap_or("");
                    self.template(first);
                    i = end + 1;
                }
                b'\\' if i + 1 < bytes.len() => {
                    self.out.push(bytes[i + 1] as char);
                    i += 2;
                }
                _ => {
                    let start = i;
                    while i < bytes.len() && !matches!(bytes[i], b'$' | b'{' | b'\\') {
                        i += 1;
                    }
                    let mut text = &asm[start..i];
                    if self.unbracket && text.starts_with(']') {
                        text = &text[1..];
                        self.unbracket = false;
                    }
                    self.out.push_str(text);
                }
            }
        }
    }

    fn operand_by_name(&mut self, name: &str) {
        let row = self.inst.row;
        match row.operands.iter().position(|o| o.name.name() == name) {
            // Unused NSA address slots are dropped from the `[v1, v2, ...]` list.
            Some(i) if name.starts_with("vaddr") && self.op(i) == Operand::Absent => {
                if self.out.ends_with(", ") {
                    self.out.truncate(self.out.len() - 2);
                }
            }
            Some(i) => {
                if name == "vaddr0" && self.single_image_address() && self.out.ends_with('[') {
                    self.out.pop();
                    self.unbracket = true;
                }
                self.operand(i)
            }
            None => {
                let _ = write!(self.out, "/*Missing {name}*/");
            }
        }
    }

    /// LLVM 22 on GFX12 image forms: only `vaddr0` of the address list is used.
    fn single_image_address(&self) -> bool {
        let row = self.inst.row;
        self.ctx.llvm22 && row.has(flags::VIMAGE | flags::VSAMPLE) && row.operand_index(OpName::vaddr1).is_some_and(|i| self.op(i) == Operand::Absent)
    }

    fn op(&self, i: usize) -> Operand {
        self.inst.operands.get(i).copied().unwrap_or(Operand::Absent)
    }

    fn imm(&self, i: usize) -> i64 {
        self.op(i).imm()
    }

    fn named(&self, name: OpName) -> Option<usize> {
        self.inst.row.operand_index(name)
    }

    fn has(&self, flag: u64) -> bool {
        self.inst.row.has(flag)
    }

    fn operand(&mut self, i: usize) {
        let kind = self.inst.row.class_of(i).printer;
        let v = self.imm(i);
        match kind {
            PrintKind::Operand => self.print_operand(i),
            PrintKind::RegularOperand => self.regular(i),
            PrintKind::VopDst => self.vop_dst(i),
            PrintKind::FpInputMods => self.fp_input_mods(i),
            PrintKind::IntInputMods => self.int_input_mods(i),
            PrintKind::NamedBit(name) => self.named_bit(v, name),
            PrintKind::CPol => self.cpol(v),
            PrintKind::Offset => self.offset(v),
            PrintKind::FlatOffset => self.flat_offset(v),
            PrintKind::Offset0 => self.prefixed_u8(v, " offset0:"),
            PrintKind::Offset1 => self.prefixed_u8(v, " offset1:"),
            PrintKind::SmemOffset => imm::signed_hex(&mut self.out, v),
            PrintKind::SmemOffsetMod => self.smem_offset_mod(v),
            PrintKind::U32Imm => imm::hex(&mut self.out, v as u64 & 0xffff_ffff),
            PrintKind::U16Imm => self.u16_imm(v),
            PrintKind::Format => {}
            PrintKind::OMod => self.omod(v),
            PrintKind::DMask => self.dmask(v),
            PrintKind::Dim => self.dim(v),
            PrintKind::R128A16 => self.r128_a16(v),
            PrintKind::DppCtrl => self.dpp_ctrl(v),
            PrintKind::DppRowMask => self.hex_nibble(v, " row_mask:"),
            PrintKind::DppBankMask => self.hex_nibble(v, " bank_mask:"),
            PrintKind::DppBoundCtrl => self.flag_if(v != 0, " bound_ctrl:1"),
            PrintKind::DppFi => self.flag_if(v == 1 || v == 0xEA, " fi:1"),
            PrintKind::Dpp8 => self.dpp8(v),
            PrintKind::SdwaSrc0Sel => self.sdwa_sel("src0_sel:", v),
            PrintKind::SdwaSrc1Sel => self.sdwa_sel("src1_sel:", v),
            PrintKind::SdwaDstSel => self.sdwa_sel("dst_sel:", v),
            PrintKind::SdwaDstUnused => self.sdwa_dst_unused(v),
            PrintKind::OpSel => self.op_sel(),
            PrintKind::OpSelHi => self.packed_modifier(" op_sel_hi:[", vop::OP_SEL_1),
            PrintKind::NegLo => self.packed_modifier(" neg_lo:[", vop::NEG),
            PrintKind::NegHi => self.packed_modifier(" neg_hi:[", vop::NEG_HI),
            PrintKind::Cbsz => self.prefixed_nonzero(v, " cbsz:"),
            PrintKind::Abid => self.prefixed_nonzero(v, " abid:"),
            PrintKind::Blgp => self.blgp(v),
            PrintKind::IndexKey => self.prefixed_nonzero(v & 7, " index_key:"),
            PrintKind::ByteSel => self.prefixed_nonzero(v & 0xff, " byte_sel:"),
            PrintKind::WaitExp => self.prefixed_u4(v, " wait_exp:"),
            PrintKind::WaitVaVdst => self.prefixed_u4(v, " wait_va_vdst:"),
            PrintKind::WaitVmVsrc => self.prefixed_u4(v, " wait_vm_vsrc:"),
            PrintKind::WaitVdst => self.prefixed_u4(v, " wait_vdst:"),
            PrintKind::InterpAttr => self.interp_attr(v),
            PrintKind::InterpAttrChan => self.interp_attr_chan(v),
            PrintKind::InterpSlot => self.interp_slot(v),
            PrintKind::VintrpDst => self.vintrp_dst(i),
            PrintKind::Endpgm => self.endpgm(v),
            PrintKind::ExpTgt => self.exp_tgt(v),
            PrintKind::ExpSrc(n) => self.exp_src(i, n),
            PrintKind::Hwreg => self.hwreg(v),
            PrintKind::SendMsg => self.sendmsg(v),
            PrintKind::Swizzle => self.swizzle(v),
            PrintKind::SWaitCnt => self.waitcnt(v),
            PrintKind::DepCtr => self.depctr(v),
            PrintKind::SDelayAlu => self.delay_alu(v),
            PrintKind::GprIdxMode => self.gpr_idx_mode(v),
            PrintKind::VersionImm => self.version(v),
            PrintKind::NamedInt(name) => self.named_int(v, name),
            PrintKind::BitOp3 => self.bitop3(v),
        }
    }

    /// `offset:` of a scalar memory instruction's modifier form.
    fn smem_offset_mod(&mut self, v: i64) {
        self.out.push_str(" offset:");
        imm::signed_hex(&mut self.out, v);
    }

    /// Image `dmask:`, left out when zero.
    fn dmask(&mut self, v: i64) {
        if v != 0 {
            self.out.push_str(" dmask:");
            self.u16_imm(v);
        }
    }

    /// The one image bit that is `a16` on targets with R128A16 and `r128` elsewhere.
    fn r128_a16(&mut self, v: i64) {
        let name = if self.ctx.has(crate::tables::feature::R128A16) { "a16" } else { "r128" };
        self.named_bit(v, name)
    }

    /// A 4-bit field in hex after `prefix` (DPP row and bank masks).
    fn hex_nibble(&mut self, v: i64, prefix: &str) {
        let _ = write!(self.out, "{prefix}{:#x}", v & 0xf);
    }

    /// `text` when `cond` holds.
    fn flag_if(&mut self, cond: bool, text: &str) {
        if cond {
            self.out.push_str(text);
        }
    }

    fn interp_attr(&mut self, v: i64) {
        let _ = write!(self.out, "attr{v}");
    }

    fn interp_attr_chan(&mut self, v: i64) {
        self.out.push('.');
        self.out.push(['x', 'y', 'z', 'w'][(v & 3) as usize]);
    }

    fn interp_slot(&mut self, v: i64) {
        match v {
            0 => self.out.push_str("p10"),
            1 => self.out.push_str("p20"),
            2 => self.out.push_str("p0"),
            _ => {
                let _ = write!(self.out, "invalid_param_{v}");
            }
        }
    }

    /// VINTRP destinations carry the `_e32` suffix before them.
    fn vintrp_dst(&mut self, i: usize) {
        self.out.push_str("_e32 ");
        self.regular(i);
    }

    /// `s_endpgm`'s optional 16-bit immediate.
    fn endpgm(&mut self, v: i64) {
        if v as u16 != 0 {
            let _ = write!(self.out, " {}", v as u16);
        }
    }

    /// `name:value`, left out when zero.
    fn named_int(&mut self, v: i64, name: &str) {
        if v != 0 {
            let _ = write!(self.out, " {name}:{v}");
        }
    }

    fn named_bit(&mut self, v: i64, name: &str) {
        if v != 0 {
            self.out.push(' ');
            self.out.push_str(name);
        }
    }

    /// gfx950 `v_bitop3_*` truth table (LLVM 22 AMDGPUInstPrinter::printBitOp3's format).
    fn bitop3(&mut self, v: i64) {
        match v & 0xff {
            0 => {}
            t @ 1..=10 => {
                let _ = write!(self.out, " bitop3:{t}");
            }
            t => {
                let _ = write!(self.out, " bitop3:0x{t:x}");
            }
        }
    }

    fn prefixed_nonzero(&mut self, v: i64, prefix: &str) {
        if v != 0 {
            let _ = write!(self.out, "{prefix}{v}");
        }
    }

    fn prefixed_u8(&mut self, v: i64, prefix: &str) {
        if v != 0 {
            let _ = write!(self.out, "{prefix}{}", v & 0xff);
        }
    }

    fn prefixed_u4(&mut self, v: i64, prefix: &str) {
        let _ = write!(self.out, "{prefix}{}", v & 0xf);
    }

    fn u16_imm(&mut self, v: i64) {
        if (-32768..=65535).contains(&v) {
            imm::hex(&mut self.out, v as u64 & 0xffff);
        } else {
            imm::hex(&mut self.out, v as u64 & 0xffff_ffff);
        }
    }

    fn omod(&mut self, v: i64) {
        match v {
            1 => self.out.push_str(" mul:2"),
            2 => self.out.push_str(" mul:4"),
            3 => self.out.push_str(" div:2"),
            _ => {}
        }
    }

    /// `printOperand`: VOPC writes VCC implicitly, and the printed form names it first.
    fn print_operand(&mut self, i: usize) {
        let first = i == 0 || (i == 1 && self.has(flags::DPP) && self.named(OpName::src0_modifiers).is_some());
        if first && self.writes_vcc_implicitly() {
            self.default_vcc(true);
        }
        self.regular(i);
    }

    fn writes_vcc_implicitly(&self) -> bool {
        use crate::tables::implicit;
        self.has(flags::VOPC) && self.inst.row.defs & (implicit::VCC | implicit::VCC_LO) != 0
    }

    /// `vcc` or `vcc_lo` depending on the wave size, with the separator on the right side.
    fn default_vcc(&mut self, first: bool) {
        if !first {
            self.out.push_str(", ");
        }
        self.out.push_str(if self.ctx.wave64 { "vcc" } else { "vcc_lo" });
        if first {
            self.out.push_str(", ");
        }
    }

    /// A register or immediate, with LLVM's diagnostics for values outside the operand class.
    fn regular(&mut self, i: usize) {
        let class = self.inst.row.class_of(i);
        match self.op(i) {
            Operand::Reg(r) => {
                let _ = write!(self.out, "{r}");
                // Image data/address registers are resized to what dmask/dim imply, and f8f6f4
                // MFMA sources to what cbsz/blgp imply (another opcode of the same family in
                // LLVM), so only their register file is checked.
                let name = self.inst.row.operands[i].name.name();
                let row = self.inst.row;
                let resized = ((row.mimg.is_some() && (name.starts_with("vaddr") || name == "vdata" || name == "vdst"))
                    || (row.has(flags::F8F6F4_WIDTHS) && (name == "src0" || name == "src1")))
                    && matches!(r, Reg::Vgpr { .. } | Reg::Agpr { .. });
                if let Some(rc) = class.reg_class.filter(|_| !resized) {
                    if !reg_in_class(r, rc) {
                        let _ = write!(self.out, "/*Invalid register, operand has '{}' register class*/", rc.name);
                    }
                }
            }
            Operand::Imm(v) => {
                if let Some(lit) = self.redundant_literal(v, class.op_type) {
                    let _ = write!(self.out, "lit({lit:#x})");
                } else if !imm::print(&mut self.out, v, class.op_type, self.ctx) {
                    self.out.push_str("/*Invalid immediate*/");
                }
            }
            Operand::Absent => {
                let _ = write!(self.out, "/*Missing OP{i}*/");
            }
        }
        self.after_regular(i);
    }

    /// A 32-bit literal whose value an inline constant could carry: LLVM 22's disassembler
    /// prints it as `lit(0x...)` (re-assembled as plain text it would become the inline
    /// constant), LLVM 19's by value. The processors only LLVM 22 knows (gfx950, gfx1250,
    /// gfx1251) take LLVM 22's syntax; the rest keep LLVM 19's, the reference of their goldens.
    fn redundant_literal(&self, v: i64, t: crate::tables::OperandType) -> Option<u32> {
        use crate::Processor;
        let lit = self.inst.literal?;
        if !matches!(self.ctx.processor, Processor::Gfx950 | Processor::Gfx1250 | Processor::Gfx1251) || v as u32 != lit {
            return None;
        }
        let mut text = String::new();
        let inline = imm::print(&mut text, v, t, self.ctx) && !text.contains("0x");
        inline.then_some(lit)
    }
}

/// Name of the operand referenced at `asm[start..]` (`name` or `{name}` / `{name:modifier}`),
/// and the index after it.
fn operand_ref(asm: &str, start: usize) -> (&str, usize) {
    let rest = &asm[start..];
    if let Some(stripped) = rest.strip_prefix('{') {
        let end = stripped.find('}').unwrap_or(stripped.len());
        let name = stripped[..end].split(':').next().unwrap_or("");
        return (name, start + end + 2);
    }
    let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
    (&rest[..end], start + end)
}

/// Whether a decoded register belongs to the operand's register class (LLVM prints a comment
/// when the encoding names a register the instruction cannot take).
fn reg_in_class(r: Reg, rc: crate::tables::RegClassInfo) -> bool {
    use crate::decode::Special;
    // `SReg_1*` are lane masks: 32-bit in wave32, 64-bit in wave64.
    let lane_mask = rc.name == "SReg_1" || rc.name.starts_with("SReg_1_");
    let width_ok = |bits: u32| bits == rc.bits as u32 || (rc.bits == 16 && bits == 32) || (lane_mask && bits == 64);
    let lo128 = rc.name.contains("Lo128");
    match r {
        Reg::Vgpr { index, .. } if lo128 && index >= 128 => false,
        Reg::Vgpr { .. } | Reg::Vgpr16 { .. } => rc.vgpr && width_ok(r.bits()),
        Reg::Agpr { .. } => rc.agpr && width_ok(r.bits()),
        Reg::Sgpr { .. } | Reg::Ttmp { .. } => rc.sgpr && width_ok(r.bits()),
        Reg::Special(s) if s.is_inline_value() => true,
        Reg::Special(Special::LdsDirect) => rc.lds_direct,
        // Class names say which special registers they leave out (`_XM0`, `_XEXEC`, `_XEXEC_HI`).
        Reg::Special(Special::M0) if rc.name.contains("XM0") => false,
        Reg::Special(Special::Exec | Special::ExecLo | Special::ExecHi) if rc.name.contains("_XEXEC_HI") => !matches!(r, Reg::Special(Special::ExecHi)),
        Reg::Special(Special::Exec | Special::ExecLo | Special::ExecHi) if rc.name.contains("XEXEC") => false,
        Reg::Special(_) => rc.sgpr && width_ok(r.bits()),
    }
}

impl Operand {
    fn is_imm(&self) -> bool {
        matches!(self, Operand::Imm(_))
    }
}

#[allow(dead_code)]
fn is_register_type(t: OperandType) -> bool {
    t == OperandType::Register
}
