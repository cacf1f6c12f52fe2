//! Types of the generated decode tables (`generated.rs`). The tables are data; every rule that
//! interprets them lives in `crate::decode` and `crate::print`.

/// LLVM decoder namespace a row belongs to. The decoder searches namespaces in a per-family
/// order (see `crate::decode::search_order`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
pub enum Namespace {
    GFX8,
    GFX80_UNPACKED,
    GFX9,
    GFX9_DL,
    GFX90A,
    GFX940,
    GFX10,
    GFX10_B,
    GFX11,
    GFX11_FAKE16,
    GFX11W64,
    GFX12,
    GFX12_FAKE16,
    GFX12W64,
    /// LLVM 22's additional namespaces: gfx950's new encodings, gfx1250's.
    GFX950,
    GFX1250,
    GFX1250_FAKE16,
}

/// One machine encoding of one instruction. Rows hold no references (text and operand lists
/// are ranges of `TEXT` and `OPERANDS`), so the table needs no load-time relocation.
#[derive(Debug)]
pub struct Row {
    /// LLVM record name (e.g. `V_ADD_F32_e64_vi`), for diagnostics.
    pub record: Text,
    pub opcode: super::Opcode,
    pub table: Namespace,
    /// Encoding size without a trailing literal: 4, 8 or 12 bytes.
    pub bytes: u8,
    /// Fixed bits of the encoding (little-endian words, first word in the low bits).
    pub mask: u128,
    pub value: u128,
    /// Processors (bit = `Processor as u32`) on which the encoding exists, per decoding mode
    /// (index = wave64 | real_true16 << 1 | llvm22 << 2: LLVM 19's rows, or LLVM 22.1.8's, see
    /// `tools/isagen/README.md`).
    pub valid: [u32; 8],
    /// `flags::*` bits.
    pub flags: u64,
    /// Implicitly read / written registers (`implicit::*` bits).
    pub uses: u8,
    pub defs: u8,
    /// Assembly template in LLVM AsmString syntax (`$operand` references).
    pub asm: Text,
    /// Operands in LLVM MCInst order: definitions first, then uses.
    pub operands: Ops,
    /// Image instructions: register counts and base-opcode properties.
    pub mimg: Option<MimgInfo>,
}

/// What an image encoding's register operands really cover. The encoding fixes neither the
/// data size (it follows `dmask`, `d16`, `tfe`) nor, before NSA forms, the address size (it
/// follows `dim` and `a16`); the table row names one representative size.
#[derive(Debug, Clone, Copy)]
pub struct MimgInfo {
    /// (data, address) dword counts some variant of this opcode has: bit `data * 17 + addr`.
    pub variants: u128,
    pub vdata_dwords: u8,
    pub vaddr_dwords: u8,
    /// Non-sequential-address form: extra address VGPRs in trailing bytes (GFX10+).
    pub nsa: bool,
    pub gather4: bool,
    pub atomic: bool,
    pub bvh: bool,
    pub a16: bool,
    pub coordinates: bool,
    pub lod_clamp_mip: bool,
    pub gradients: bool,
    pub g16: bool,
    pub extra_args: u8,
}

impl Row {
    pub fn has(&self, flag: u64) -> bool {
        self.flags & flag != 0
    }

    /// Index of the operand with this name, if the instruction has one.
    pub fn operand_index(&self, name: super::OpName) -> Option<usize> {
        self.operands.iter().position(|o| o.name == name)
    }

    pub fn class_of(&self, index: usize) -> &'static ClassDesc {
        &super::CLASSES[self.operands[index].class as usize]
    }
}

/// One operand of a row.
#[derive(Debug)]
pub struct OperandDesc {
    pub name: super::OpName,
    /// Index into `CLASSES`.
    pub class: u16,
    /// Where the operand's bits sit: (bit in instruction, number of bits, bit in operand value).
    /// Empty when the encoding does not carry the operand (default value or tied copy).
    pub fields: Fields,
    /// Index of the operand this one is tied to (same register), or -1.
    pub tied: i8,
}

/// A row's text: `len` bytes of `TEXT` from byte `at`; reads as a `&str`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Text(pub u32, pub u32);

impl Text {
    pub fn get(self) -> &'static str {
        super::TEXT.get(self.0 as usize..(self.0 + self.1) as usize).unwrap_or("")
    }
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.get()
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.get())
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.get(), f)
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.get() == *other
    }
}

/// A row's operands: `len` entries of `OPERANDS` from entry `at`; reads as a slice.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Ops(pub u32, pub u32);

impl Ops {
    pub fn get(self) -> &'static [OperandDesc] {
        super::OPERANDS.get(self.0 as usize..(self.0 + self.1) as usize).unwrap_or(&[])
    }
}

impl std::ops::Deref for Ops {
    type Target = [OperandDesc];
    fn deref(&self) -> &[OperandDesc] {
        self.get()
    }
}

impl std::fmt::Debug for Ops {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

impl IntoIterator for Ops {
    type Item = &'static OperandDesc;
    type IntoIter = std::slice::Iter<'static, OperandDesc>;
    fn into_iter(self) -> Self::IntoIter {
        self.get().iter()
    }
}

/// An operand's bit fields, at most four, held in place; reads as a slice.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Fields {
    fields: [(u8, u8, u8); 4],
    len: u8,
}

impl Fields {
    /// The fields `f` (the generated table's constructor; more than four fail to compile).
    pub const fn of<const N: usize>(f: [(u8, u8, u8); N]) -> Fields {
        let mut fields = [(0, 0, 0); 4];
        let mut i = 0;
        while i < N {
            fields[i] = f[i];
            i += 1;
        }
        Fields { fields, len: N as u8 }
    }
}

impl std::ops::Deref for Fields {
    type Target = [(u8, u8, u8)];
    fn deref(&self) -> &[(u8, u8, u8)] {
        &self.fields[..usize::from(self.len)]
    }
}

impl std::fmt::Debug for Fields {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

/// How an operand class is decoded, printed and typed.
#[derive(Debug)]
pub struct ClassDesc {
    pub name: &'static str,
    pub decoder: DecoderKind,
    pub printer: PrintKind,
    pub op_type: OperandType,
    pub reg_class: Option<RegClassInfo>,
}

/// Register file selected by an 8-bit register field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegFile {
    Vgpr,
    Agpr,
}

/// Operand decoding rules, named after the encoding they read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecoderKind {
    /// Plain immediate (bit field value).
    Imm,
    /// 9-bit (or 10-bit with accumulator bit) source operand: VGPR, SGPR, TTMP, special register,
    /// inline constant or literal. `imm_width` / `sema` say how inline floats are materialised
    /// (sema: 0 int, 1 f16, 2 bf16, 3 f32, 4 f64). `acc` forces AGPRs; `deferred` means the
    /// literal belongs to a K-immediate operand; `enum10` means bit 9 of the field selects AGPRs.
    Src { width: u16, imm_width: u8, sema: u8, acc: bool, deferred: bool, enum10: bool },
    /// 8-bit register number that is always a VGPR/AGPR of class width, bit 9 = AGPR.
    Av10 { width: u16 },
    /// Load/store data operand: VGPR, or AGPR on GFX90A+ (bit 9 or tied to an AGPR vdst).
    AvLdSt { width: u16 },
    /// 8-bit register number in one register file; the run must end below `limit`.
    Reg8 { file: RegFile, width: u16, limit: u16 },
    /// True16 VGPR half (GFX11+), optionally restricted to v0..v127.
    Vgpr16 { lo128: bool },
    /// True16 source operand.
    SrcT16 { lo128: bool },
    /// Lane-mask SGPR operand: 64-bit in wave64, 32-bit in wave32.
    BoolReg,
    /// SDWA source operand (GFX9+: 9-bit with SGPR range; GFX8: VGPR only).
    SdwaSrc { width: u16 },
    /// SDWA VOPC destination (VCC unless the SD bit selects an SGPR).
    SdwaVopcDst,
    /// Mandatory 32-bit literal held in the encoding (FMAMK/FMAAK K operand).
    KImm,
    /// Scalar-memory immediate offset (20-bit unsigned GFX8, 21-bit signed GFX9+, 24-bit GFX12).
    SmemOffset,
    /// SOPP branch target: signed 16-bit dword offset from the next instruction.
    BranchTarget,
    /// DPP8 fetch-inactive field (0xE9 / 0xEA only).
    Dpp8Fi,
    /// VOPD Y destination whose low bit is the inverse of X's.
    VopdDstY,
}

/// Printing rule of an operand class (LLVM AMDGPUInstPrinter method it corresponds to).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrintKind {
    Operand,
    RegularOperand,
    CPol,
    VopDst,
    FpInputMods,
    IntInputMods,
    Offset,
    DppFi,
    FlatOffset,
    DppCtrl,
    DppRowMask,
    DppBankMask,
    DppBoundCtrl,
    Dpp8,
    OMod,
    SdwaSrc0Sel,
    SdwaSrc1Sel,
    SdwaDstSel,
    SdwaDstUnused,
    DMask,
    R128A16,
    Dim,
    OpSel,
    Format,
    SmemOffset,
    SmemOffsetMod,
    NegLo,
    NegHi,
    Cbsz,
    Abid,
    OpSelHi,
    Blgp,
    U32Imm,
    U16Imm,
    Offset0,
    Offset1,
    InterpAttr,
    InterpAttrChan,
    ExpTgt,
    ExpSrc(u8),
    Hwreg,
    SendMsg,
    ByteSel,
    WaitExp,
    IndexKey,
    VintrpDst,
    Swizzle,
    Endpgm,
    SWaitCnt,
    InterpSlot,
    DepCtr,
    WaitVaVdst,
    WaitVmVsrc,
    WaitVdst,
    SDelayAlu,
    GprIdxMode,
    /// `s_version` code: `UC_VERSION_GFX12|UC_VERSION_W32_BIT`.
    VersionImm,
    /// ` name` when the bit is set.
    NamedBit(&'static str),
    /// ` name:N` (decimal) when not 0 (LLVM 22 `printNamedInt` without hex or always-print).
    NamedInt(&'static str),
    /// gfx950 `v_bitop3_*` truth table: ` bitop3:N`, decimal up to 10, hex above (LLVM 22
    /// `printBitOp3`), nothing when 0.
    BitOp3,
}

/// LLVM operand type (`AMDGPU::OPERAND_*`), which decides how immediates print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperandType {
    Register,
    Immediate,
    Unknown,
    Pcrel,
    InputMods,
    RegImmInt32,
    RegImmFp32,
    RegImmFp32Deferred,
    RegImmInt16,
    RegImmFp16,
    RegImmFp16Deferred,
    RegImmBf16,
    RegImmInt64,
    RegImmFp64,
    RegImmV2int16,
    RegImmV2fp16,
    /// LLVM 22: `v_pk_fmac_f16`'s packed-f16 source; GFX11+ repeats an inline f16 constant in
    /// both halves, earlier targets hold it in the low half.
    RegImmV2fp16Splat,
    /// LLVM 22: a packed-f16 source whose inline float constants are the 32-bit ones and
    /// print as hex (gfx1250 `v_pk_*` forms).
    RegImmNoinlineV2fp16,
    RegImmV2bf16,
    RegImmV2int32,
    RegImmV2fp32,
    RegInlineCInt32,
    RegInlineCFp32,
    RegInlineCInt16,
    RegInlineCFp16,
    RegInlineCBf16,
    RegInlineCInt64,
    RegInlineCFp64,
    RegInlineCV2fp16,
    RegInlineCV2int16,
    RegInlineCV2bf16,
    RegInlineAcInt32,
    RegInlineAcFp32,
    RegInlineAcFp64,
    SdwaVopcDst,
    Kimm32,
    Kimm16,
    InlineSplitBarrierInt32,
}

/// What a register class admits, enough to flag decoded registers outside the class.
#[derive(Debug, Clone, Copy)]
pub struct RegClassInfo {
    pub name: &'static str,
    pub vgpr: bool,
    pub lds_direct: bool,
    pub sgpr: bool,
    pub agpr: bool,
    pub bits: u16,
}

/// Instruction flag bits (LLVM `SIInstrFlags` / instruction properties of the same names).
#[allow(missing_docs)]
pub mod flags {
    macro_rules! flag_bits {
        ($($name:ident),* $(,)?) => { flag_bits!(@ 0u32; $($name,)*); };
        (@ $n:expr; $name:ident, $($rest:ident,)*) => {
            pub const $name: u64 = 1 << $n;
            flag_bits!(@ $n + 1u32; $($rest,)*);
        };
        (@ $n:expr;) => {};
    }
    flag_bits!(
        SALU,
        VALU,
        SOP1,
        SOP2,
        SOPC,
        SOPK,
        SOPP,
        VOP1,
        VOP2,
        VOPC,
        VOP3,
        VOP3P,
        VINTRP,
        SDWA,
        DPP,
        TRANS,
        MUBUF,
        MTBUF,
        SMRD,
        MIMG,
        VIMAGE,
        VSAMPLE,
        EXP,
        FLAT,
        DS,
        LDSDIR,
        VINTERP,
        VM_CNT,
        EXP_CNT,
        LGKM_CNT,
        FLATGLOBAL,
        FLATSCRATCH,
        ISATOMICNORET,
        ISATOMICRET,
        ISPACKED,
        VOP3_OPSEL,
        ISMAI,
        ISDOT,
        ISWMMA,
        ISSWMMAC,
        GATHER4,
        FPATOMIC,
        GWS,
        ISSINGLE,
        MAYLOAD,
        MAYSTORE,
        ISBRANCH,
        ISINDIRECTBRANCH,
        ISTERMINATOR,
        ISBARRIER,
        ISRETURN,
        ISCALL,
        ISCONVERGENT,
        HASSIDEEFFECTS,
        D16BUF,
        // hipscope's own flags (tools/isagen/README.md, "Derived flags").
        F64,
        TRANSCENDENTAL,
        WAITCNT,
        CACHE_INV,
        CACHE_WB,
        READS_CLOCK,
        VGPR_INDEXING,
        WG_BARRIER,
        F8F6F4_WIDTHS,
    );
}

/// Implicit register bits of `Row::uses` / `Row::defs`.
#[allow(missing_docs)]
pub mod implicit {
    pub const EXEC: u8 = 1 << 0;
    pub const EXEC_LO: u8 = 1 << 1;
    pub const VCC: u8 = 1 << 2;
    pub const VCC_LO: u8 = 1 << 3;
    pub const M0: u8 = 1 << 4;
    pub const SCC: u8 = 1 << 5;
    pub const MODE: u8 = 1 << 6;
}

impl MimgInfo {
    /// Whether a variant with this many data and address dwords exists.
    pub fn has_variant(&self, data: u32, addr: u32) -> bool {
        data <= 6 && addr <= 16 && self.variants & (1u128 << (data * 17 + addr)) != 0
    }
}
