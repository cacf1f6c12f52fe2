#!/usr/bin/env python3
"""Generate hipscope's AMDGPU decode tables from LLVM TableGen records.

Input:  the JSON dump of LLVM 19.1.7's AMDGPU TableGen records
        (`llvm-tblgen-19 -dump-json ... AMDGPU.td`, see README.md next to this script).
Output: isa/src/tables/generated.rs, plain Rust data (no logic): one row per real machine
        encoding (mask/value, processors it is valid on, operand fields, assembly template,
        instruction flags), the operand classes those rows use, and the opcode / operand-name
        enums.

The output is a derivative of LLVM's .td files (Apache-2.0 WITH LLVM-exception); the header
of the generated file says so. Nothing in here is LLVM code: it reads record *values*.

Usage: isagen.py RECORDS19.json OUT.rs [RECORDS22.json]

With LLVM 22.1.8's records as a third argument, the processors only LLVM 22 knows
(PROCESSORS_22) get their rows from LLVM 22, and decoding modes 4..7 hold LLVM 22's rows for
every processor (see `merge`); modes 0..3 keep exactly LLVM 19's rows.
"""
import collections
import json
import re
import sys

# Decoder namespaces we decode (LLVM DecoderNamespace values). Order is irrelevant here; the
# per-processor search order lives in isa/src/decode/tables.rs with the reasons for it.
NAMESPACES = [
    "GFX8", "GFX80_UNPACKED", "GFX9", "GFX9_DL", "GFX90A", "GFX940",
    "GFX10", "GFX10_B", "GFX11", "GFX11_FAKE16", "GFX11W64",
    "GFX12", "GFX12_FAKE16", "GFX12W64",
    # LLVM 22 only (gfx950's additions; gfx1250/gfx1251).
    "GFX950", "GFX1250", "GFX1250_FAKE16",
]

# Processors in the order of hipscope_isa::target::Processor (bit index = position).
PROCESSORS = [
    "gfx802", "gfx803", "gfx810", "gfx900", "gfx906", "gfx908", "gfx90a", "gfx940", "gfx942",
    "gfx1010", "gfx1011", "gfx1012", "gfx1030", "gfx1100", "gfx1150", "gfx1200", "gfx1201",
]

# Processors only LLVM 22.1.8 knows, appended in the same order to hipscope_isa::Processor.
PROCESSORS_22 = ["gfx950", "gfx1250", "gfx1251"]

# Format/property bits read from the instruction's TSFlags (bit positions from
# SIInstrFormats.td `let TSFlags{N} = ...`); real-encoding records inherit TSFlags from their
# pseudo instruction, while their plain fields of the same names are often left at 0.
TSFLAG_BITS = {
    "SALU": 0, "VALU": 1, "SOP1": 2, "SOP2": 3, "SOPC": 4, "SOPK": 5, "SOPP": 6, "VOP1": 7,
    "VOP2": 8, "VOPC": 9, "VOP3": 10, "VOP3P": 12, "VINTRP": 13, "SDWA": 14, "DPP": 15,
    "TRANS": 16, "MUBUF": 17, "MTBUF": 18, "SMRD": 19, "MIMG": 20, "VIMAGE": 21, "VSAMPLE": 22,
    "EXP": 23, "FLAT": 24, "DS": 25, "LDSDIR": 28, "VINTERP": 29, "VM_CNT": 32, "EXP_CNT": 33,
    "LGKM_CNT": 34, "Gather4": 37, "VOP3_OPSEL": 42, "IsPacked": 49, "D16Buf": 50,
    "FlatGlobal": 51, "FPAtomic": 53, "IsMAI": 54, "IsDOT": 55, "FlatScratch": 56,
    "IsAtomicNoRet": 57, "IsAtomicRet": 58, "IsWMMA": 59, "GWS": 62, "IsSWMMAC": 63,
}

# Instruction-record fields copied into the row flags (name in the record -> flag constant).
FLAG_FIELDS = [
    "SALU", "VALU", "SOP1", "SOP2", "SOPC", "SOPK", "SOPP", "VOP1", "VOP2", "VOPC", "VOP3",
    "VOP3P", "VINTRP", "SDWA", "DPP", "TRANS", "MUBUF", "MTBUF", "SMRD", "MIMG", "VIMAGE",
    "VSAMPLE", "EXP", "FLAT", "DS", "LDSDIR", "VINTERP", "VM_CNT", "EXP_CNT", "LGKM_CNT",
    "FlatGlobal", "FlatScratch", "IsAtomicNoRet", "IsAtomicRet", "IsPacked", "VOP3_OPSEL",
    "IsMAI", "IsDOT", "IsWMMA", "IsSWMMAC", "Gather4", "FPAtomic", "GWS", "IsSingle",
    "mayLoad", "mayStore", "isBranch", "isIndirectBranch", "isTerminator", "isBarrier",
    "isReturn", "isCall", "isConvergent", "hasSideEffects", "D16Buf",
]

# Flags hipscope derives for its own classifiers (timing classes, the memory-model recogniser,
# the scope suite); `derived_flags` says where each comes from; `flags` in isa/src/tables/types.rs lists them after FLAG_FIELDS.
DERIVED_FLAGS = ["F64", "TRANSCENDENTAL", "WAITCNT", "CACHE_INV", "CACHE_WB", "READS_CLOCK", "VGPR_INDEXING", "WG_BARRIER",
                 "F8F6F4_WIDTHS"]

# Record classes of the data-cache maintenance instructions (SMInstructions.td,
# BUFInstructions.td, FLATInstructions.td).
MAINTENANCE_CLASSES = {"SM_Inval_Pseudo", "MUBUF_Invalidate", "FLAT_Global_Invalidate_Writeback"}

# GFX12 wait-counter instructions (SOPInstructions.td `S_WAIT_*CNT*`): plain SOPP pseudos with an
# s16imm operand, nothing in the record marks them as waits.
GFX12_WAITS = {"s_wait_loadcnt", "s_wait_storecnt", "s_wait_dscnt", "s_wait_kmcnt", "s_wait_expcnt",
               "s_wait_samplecnt", "s_wait_bvhcnt", "s_wait_loadcnt_dscnt", "s_wait_storecnt_dscnt"}

# The work-group barrier instructions clang emits for `__syncthreads()` (GFX12 splits it into
# a signal and a wait); the records have no mark that tells them from other convergent SOPPs.
WG_BARRIERS = {"s_barrier", "s_barrier_signal", "s_barrier_wait"}

# Instructions that may return a clock depending on their operand: `s_getreg_b32` of
# HW_REG_SHADER_CYCLES (GFX10.3+), `s_sendmsg_rtn_*` of MSG_RTN_GET_REALTIME (GFX11+).
CLOCK_BY_OPERAND = {"s_getreg_b32", "s_sendmsg_rtn_b32", "s_sendmsg_rtn_b64"}


def pseudo_index(recs):
    """Pseudo instruction records by their `PseudoInstr` name: a real encoding names its
    pseudo there and inherits what the pseudo knows (its VOP profile, its record classes)."""
    out = {}
    for name in recs.instanceof["Instruction"]:
        r = recs[name]
        if r.get("isPseudo") and r.get("PseudoInstr"):
            out.setdefault(r["PseudoInstr"], r)
    return out


def derived_flags(recs, pseudos, r, mn):
    """hipscope's own flags of the real record `r` with mnemonic `mn` (see README.md)."""
    ps = pseudos.get(r.get("PseudoInstr"), {})
    classes = set(r.get("!superclasses", [])) | set(ps.get("!superclasses", []))
    out = []
    # F64: the VOP profile (`Pfl`) types a source or the result as f64 (TableGen).
    pfl = r.get("Pfl") or ps.get("Pfl")
    if isinstance(pfl, dict):
        prof = recs[pfl["def"]]
        vts = [prof.get(k) for k in ("DstVT", "Src0VT", "Src1VT", "Src2VT")]
        if any(isinstance(v, dict) and v["def"] == "f64" for v in vts):
            out.append("F64")
    # TRANSCENDENTAL: scheduled on the transcendental unit, SchedRW WriteTrans32/WriteTrans64
    # (TableGen; the TRANS format bit is missing on some DPP encodings and set on GFX12's
    # scalar `v_s_*` forms, which are scheduled as WritePseudoScalarTrans).
    if any(s["def"] in ("WriteTrans32", "WriteTrans64") for s in r.get("SchedRW") or []):
        out.append("TRANSCENDENTAL")
    # WAITCNT: waits on the wait counters. `s_waitcnt` by its SWaitCnt operand, the GFX10/11
    # one-counter forms by their record class SOPK_WAITCNT (TableGen); GFX12's by name.
    ins = [a[0]["def"] for a in r["InOperandList"]["args"]]
    if "SWaitCnt" in ins or "SOPK_WAITCNT" in classes or mn in GFX12_WAITS:
        out.append("WAITCNT")
    # CACHE_INV / CACHE_WB: data-cache maintenance by record class (TableGen); which of the two
    # by name (`inv` / `wb` in it; `buffer_wbinvl1*` and `global_wbinv` do both).
    if classes & MAINTENANCE_CLASSES:
        if "inv" in mn:
            out.append("CACHE_INV")
        if "wb" in mn:
            out.append("CACHE_WB")
    # READS_CLOCK: `s_memtime`/`s_memrealtime` by record class SM_Time_Pseudo (TableGen); the
    # operand-dependent readers by name.
    if "SM_Time_Pseudo" in classes or mn in CLOCK_BY_OPERAND:
        out.append("READS_CLOCK")
    # VGPR_INDEXING: addresses VGPRs through M0 or GPR_IDX mode (`v_movrel*`, GFX8/9
    # `s_set_gpr_idx_*`), by name.
    if mn.startswith("v_movrel") or mn.startswith("s_set_gpr_idx"):
        out.append("VGPR_INDEXING")
    if mn in WG_BARRIERS:
        out.append("WG_BARRIER")
    # F8F6F4_WIDTHS: gfx950's f8f6f4 MFMAs, whose A/B source widths follow the cbsz/blgp
    # formats; LLVM 22 lists their encodings in MFMA_F8F6F4_WithSizeTable (TableGen).
    if "MFMA_F8F6F4_WithSizeTable" in classes:
        out.append("F8F6F4_WIDTHS")
    assert set(out) <= set(DERIVED_FLAGS), out
    return out

# Subtarget features the runtime decoder/printer consults (bit i of PROCESSOR_FEATURES).
FEATURES = [
    "FeatureVolcanicIslands", "FeatureGFX9", "FeatureGFX10", "FeatureGFX11", "FeatureGFX12",
    "FeatureGFX10_BEncoding", "FeatureUnpackedD16VMem", "FeatureFmaMixInsts", "FeatureGFX940Insts",
    "FeatureGFX90AInsts", "FeatureInv2PiInlineImm", "FeatureR128A16", "FeatureGFX10_3Insts",
    "FeatureNSAEncoding", "FeaturePartialNSAEncoding", "FeatureG16", "FeatureGDS", "FeatureGWS",
    "FeatureGFX11Insts", "FeatureGFX12Insts", "FeatureGFX10Insts", "FeatureGFX9Insts",
    "FeatureGFX8Insts", "FeatureTrue16BitInsts", "FeatureMAIInsts", "FeatureVOPD",
    "FeatureSDWA", "FeatureDPP", "FeatureDPP8", "FeatureSMemRealTime", "FeatureScalarStores",
    "FeatureVGPRIndexMode", "FeatureFlatGlobalInsts", "FeatureArchitectedFlatScratch",
    "FeatureFlatInstOffsets", "FeatureXNACK", "FeatureSupportsXNACK", "FeatureVOP3Literal",
    # LLVM 22 only.
    "FeatureGFX950Insts", "FeatureGFX1250Insts",
]

IMPLICIT_REGS = ["EXEC", "EXEC_LO", "VCC", "VCC_LO", "M0", "SCC", "MODE"]

OPW = {"OPW16": 16, "OPWV216": 16, "OPW32": 32, "OPW64": 64, "OPWV232": 64, "OPW96": 96,
       "OPW128": 128, "OPW160": 160, "OPW256": 256, "OPW288": 288, "OPW320": 320,
       "OPW352": 352, "OPW384": 384, "OPW512": 512, "OPW1024": 1024}


def bits_value(bits):
    """A TableGen `bits<N>` value given as a little-endian list of 0/1 (None = unset)."""
    return sum((b or 0) << i for i, b in enumerate(bits or []))


def mimg_variants(recs):
    """(base opcode, MIMG encoding) -> (vdata sizes, vaddr sizes) over every image instruction
    record, decodable or not: an encoding decodes as one representative and is re-sized to the
    variant its controls select, if that variant exists."""
    out = collections.defaultdict(lambda: (set(),))
    for name in recs.instanceof["Instruction"]:
        r = recs[name]
        if not isinstance(r.get("BaseOpcode"), dict) or not isinstance(r.get("MIMGEncoding"), dict):
            continue
        key = (r["BaseOpcode"]["def"], r["MIMGEncoding"]["def"])
        out[key][0].add((bits_value(r.get("VDataDwords")), bits_value(r.get("VAddrDwords"))))
    return out


def mimg_info(recs, rec, variants):
    """Rust `MimgInfo` expression for an image instruction (vdata/vaddr sizes, base-opcode
    properties that decide how many address and data registers an encoding really uses)."""
    base = recs.get(rec.get("BaseOpcode", {}).get("def", ""), None) if isinstance(rec.get("BaseOpcode"), dict) else None
    if base is None:
        return "None"
    enc = rec.get("MIMGEncoding", {}).get("def", "") if isinstance(rec.get("MIMGEncoding"), dict) else ""
    nsa = "NSA" in enc or "Gfx12" in enc
    b = lambda k: str(bool(base.get(k))).lower()
    pairs = variants[(rec["BaseOpcode"]["def"], enc)][0]
    mask = sum(1 << (d * 17 + a) for d, a in pairs if d <= 6 and a <= 16)
    return (f"Some(MimgInfo {{ variants: {mask:#x}, vdata_dwords: {bits_value(rec.get('VDataDwords'))}, "
            f"vaddr_dwords: {bits_value(rec.get('VAddrDwords'))}, nsa: {str(nsa).lower()}, "
            f"gather4: {b('Gather4')}, atomic: {b('Atomic')}, bvh: {b('BVH')}, a16: {b('A16')}, "
            f"coordinates: {b('Coordinates')}, lod_clamp_mip: {b('LodOrClampOrMip')}, "
            f"gradients: {b('Gradients')}, g16: {b('G16')}, extra_args: {bits_value(base.get('NumExtraArgs'))} }})")


def rust_ident(s):
    """An operand/record-derived name as a Rust identifier."""
    s = re.sub(r"[^A-Za-z0-9_]", "_", s)
    return s if not s[0].isdigit() else "_" + s


class Records:
    def __init__(self, path):
        with open(path) as f:
            self.d = json.load(f)
        self.instanceof = self.d["!instanceof"]

    def __getitem__(self, k):
        return self.d[k]

    def get(self, k, default=None):
        return self.d.get(k, default)

    def feature_closure(self, feats):
        out, stack = set(), list(feats)
        while stack:
            f = stack.pop()
            if f in out:
                continue
            out.add(f)
            stack += [x["def"] for x in self.d[f].get("Implies", [])]
        return out

    def processor_features(self):
        procs = {}
        for k in self.instanceof["Processor"]:
            r = self.d[k]
            procs.setdefault(r["Name"], self.feature_closure([f["def"] for f in r["Features"]]))
        return procs


def eval_cond(dag, feats):
    """Evaluate an AssemblerCondDag against a feature set."""
    if dag.get("kind") == "def":
        return dag["def"] in feats
    op = dag["operator"]["def"]
    args = [a[0] for a in dag["args"]]
    if op == "all_of":
        return all(eval_cond(a, feats) for a in args)
    if op == "any_of":
        return any(eval_cond(a, feats) for a in args)
    if op == "not":
        return not eval_cond(args[0], feats)
    raise ValueError(f"unknown predicate operator {op}")


# Decoding modes: index = wave64 | real_true16 << 1 (`-mattr=+wavefrontsize64`, `+real-true16`).
MODES = [(False, False), (True, False), (False, True), (True, True)]


def feature_sets(recs, processors):
    """(processor name, mode index) -> feature set, as the disassembler sees the subtarget."""
    procs = recs.processor_features()
    out = {}
    for name in processors:
        base = set(procs[name])
        has64 = "FeatureWavefrontSize64" in base
        for m, (w64, t16) in enumerate(MODES):
            fs = set(base)
            if not has64:  # GFX10+: wave size chosen per kernel; wave32 is the default
                fs.discard("FeatureWavefrontSize32")
                fs.discard("FeatureWavefrontSize64")
                fs.add("FeatureWavefrontSize64" if w64 else "FeatureWavefrontSize32")
            elif not w64:
                continue  # pre-GFX10 is wave64 only; the wave32 masks stay empty
            if t16:
                fs.add("FeatureRealTrue16Insts")
            # LLVM 22's GFX11 processors have real-true16 by default; `-real-true16` removes it.
            out[(name, m)] = recs.feature_closure(fs) - (set() if t16 else {"FeatureRealTrue16Insts"})
    return out


def encoding_bits(rec):
    """Fixed mask/value and per-operand bit maps of an instruction's `Inst` field."""
    mask = val = 0
    fields = collections.defaultdict(list)  # operand -> [(inst_bit, operand_bit)]
    for i, b in enumerate(rec["Inst"]):
        if isinstance(b, int):
            mask |= 1 << i
            val |= b << i
        elif isinstance(b, dict):
            if b["kind"] == "varbit":
                fields[b["var"]].append((i, b["index"]))
            elif b["kind"] == "var":
                fields[b["var"]].append((i, 0))
            elif b["kind"] == "complex":
                # GFX8/9 SMEM soffset: !if(!and(IsGFX9SpecificEncoding, C), {soffset...}, ?){k}
                m = re.match(r"!if\(!and\(IsGFX9SpecificEncoding, (\d)\), \{ soffset.*\}\{(\d+)\}$",
                             b["printable"])
                if m and m.group(1) == "1" and rec.get("IsGFX9SpecificEncoding") == 1:
                    fields["soffset"].append((i, int(m.group(2))))
    return mask, val, fields


def ranges(bitmap):
    """[(inst_bit, op_bit)] -> [(inst_lo, len, op_lo)] runs of consecutive bits."""
    out = []
    for ib, ob in sorted(bitmap, key=lambda x: x[1]):
        if out and out[-1][0] + out[-1][1] == ib and out[-1][2] + out[-1][1] == ob:
            out[-1] = (out[-1][0], out[-1][1] + 1, out[-1][2])
        else:
            out.append((ib, 1, ob))
    return out


def class_width(recs, name):
    """Register width in bits of a register class, from its name (VReg_64, SReg_128, ...)."""
    m = re.search(r"_(\d+)(?:_|$)", name)
    if m and int(m.group(1)) >= 16:
        return int(m.group(1))
    if "_t16" in name.lower() or name.startswith("VGPR_16"):
        return 16
    return 32


def decoder_kind(recs, cls_name, cls):
    """Rust `DecoderKind` expression for an operand class."""
    method = cls.get("DecoderMethod") or ""
    rc = cls.get("RegClass", {}).get("def") if isinstance(cls.get("RegClass"), dict) else None
    if not method and rc:
        method = recs[rc].get("DecoderMethod") or ""
        if not method:
            method = f"Decode{rc}RegisterClass"
    is_regclass = "RegisterClass" in cls.get("!superclasses", [])
    if not method and is_regclass:
        method = cls.get("DecoderMethod") or f"Decode{cls_name}RegisterClass"
    if not method:
        return "DecoderKind::Imm"
    m = re.match(r"decodeSrc(RegOrImm|RegOrImmA|RegOrImmDeferred|Reg|A|AV)(9|10)?<AMDGPUDisassembler::(\w+)(?:, (\d+), (\d+))?>", method)
    if m:
        kind, bits, opw, immw, sema = m.groups()
        w = OPW[opw]
        immw = int(immw or 0)
        sema = int(sema or 0)
        acc = kind in ("RegOrImmA", "A")
        deferred = kind == "RegOrImmDeferred"
        enum10 = kind == "AV"
        return (f"DecoderKind::Src {{ width: {w}, imm_width: {immw}, sema: {sema}, acc: {str(acc).lower()}, "
                f"deferred: {str(deferred).lower()}, enum10: {str(enum10).lower()} }}")
    m = re.match(r"decodeSrc(RegOrImm|RegOrImmA|Reg|A|AV)(9|10)<(\d+)>$", method)
    if m:  # LLVM 22: the inline-constant rule comes from the operand type, not the method
        kind, _, w = m.groups()
        immw, sema = IMM_SEMANTICS.get(cls.get("OperandType") or "", (0, 0)) if "Imm" in kind else (0, 0)
        return (f"DecoderKind::Src {{ width: {w}, imm_width: {immw}, sema: {sema}, acc: {str(kind in ('RegOrImmA', 'A')).lower()}, "
                f"deferred: false, enum10: {str(kind == 'AV').lower()} }}")
    m = re.match(r"decode(AV10|AVLdSt)<(\d+)>$", method)
    if m:
        return f"DecoderKind::{'Av10' if m.group(1) == 'AV10' else 'AvLdSt'} {{ width: {m.group(2)} }}"
    m = re.match(r"decodeOperand_VSrcT16(_Lo128)?<16>$", method)
    if m:
        return f"DecoderKind::SrcT16 {{ lo128: {str(bool(m.group(1))).lower()} }}"
    if method == "decodeOperand_VGPR_16":
        return "DecoderKind::Vgpr16 { lo128: false }"
    m = re.match(r"decodeAV10<AMDGPUDisassembler::(\w+)>", method)
    if m:
        return f"DecoderKind::Av10 {{ width: {OPW[m.group(1)]} }}"
    m = re.match(r"decodeAVLdSt<AMDGPUDisassembler::(\w+)>", method)
    if m:
        return f"DecoderKind::AvLdSt {{ width: {OPW[m.group(1)]} }}"
    m = re.match(r"Decode(\w+)RegisterClass$", method)
    if m:
        rcn = m.group(1)
        w = class_width(recs, rcn)
        if rcn.startswith("VGPR_16"):
            return f"DecoderKind::Vgpr16 {{ lo128: {str('Lo128' in rcn).lower()} }}"
        # `_Lo128` classes hold only v0..v127 (GFX11+ 16-bit operands in 32-bit encodings).
        limit = 128 if "Lo128" in rcn else 256
        if rcn.startswith(("VGPR", "VReg")):
            return f"DecoderKind::Reg8 {{ file: RegFile::Vgpr, width: {w}, limit: {limit} }}"
        if rcn.startswith(("AGPR", "AReg")):
            return f"DecoderKind::Reg8 {{ file: RegFile::Agpr, width: {w}, limit: {limit} }}"
        if rcn.startswith(("SReg", "SGPR", "TTMP")):
            return f"DecoderKind::Src {{ width: {w}, imm_width: 0, sema: 0, acc: false, deferred: false, enum10: false }}"
        raise ValueError(f"unknown register-class decoder {method}")
    simple = {
        "decodeBoolReg": "DecoderKind::BoolReg",
        "decodeSDWASrc32": "DecoderKind::SdwaSrc { width: 32 }",
        "decodeSDWASrc16": "DecoderKind::SdwaSrc { width: 16 }",
        "decodeSDWAVopcDst": "DecoderKind::SdwaVopcDst",
        "decodeOperand_VSrc_f64": "DecoderKind::Src { width: 64, imm_width: 64, sema: 4, acc: false, deferred: false, enum10: false }",
        "decodeOperand_KImmFP": "DecoderKind::KImm",
        "decodeSMEMOffset": "DecoderKind::SmemOffset",
        "decodeSOPPBrTarget": "DecoderKind::BranchTarget",
        "decodeDpp8FI": "DecoderKind::Dpp8Fi",
        "decodeVersionImm": "DecoderKind::Imm",
        "decodeSplitBarrier": "DecoderKind::Src { width: 32, imm_width: 0, sema: 0, acc: false, deferred: false, enum10: false }",
        "decodeOperandVOPDDstY": "DecoderKind::VopdDstY",
        "decodeOperand_VSrcT16": "DecoderKind::SrcT16 { lo128: false }",
        "decodeOperand_VSrcT16_Lo128": "DecoderKind::SrcT16 { lo128: true }",
    }
    if method in simple:
        return simple[method]
    raise ValueError(f"unknown decoder method {method} for {cls_name}")


PRINT_METHODS = {
    "printOperand": "Operand", "printRegularOperand": "RegularOperand", "printCPol": "CPol",
    "printVOPDst": "VopDst", "printOperandAndFPInputMods": "FpInputMods",
    "printOperandAndIntInputMods": "IntInputMods", "printOffset": "Offset",
    "printDppFI": "DppFi", "printFlatOffset": "FlatOffset", "printDPPCtrl": "DppCtrl",
    "printDppRowMask": "DppRowMask", "printDppBankMask": "DppBankMask",
    "printDppBoundCtrl": "DppBoundCtrl", "printDPP8": "Dpp8", "printOModSI": "OMod",
    "printSDWASrc0Sel": "SdwaSrc0Sel", "printSDWASrc1Sel": "SdwaSrc1Sel",
    "printSDWADstSel": "SdwaDstSel", "printSDWADstUnused": "SdwaDstUnused",
    "printDMask": "DMask", "printR128A16": "R128A16", "printDim": "Dim", "printOpSel": "OpSel",
    "printFORMAT": "Format", "printSMEMOffset": "SmemOffset", "printSMEMOffsetMod": "SmemOffsetMod",
    "printNegLo": "NegLo", "printNegHi": "NegHi", "printCBSZ": "Cbsz", "printABID": "Abid",
    "printOpSelHi": "OpSelHi", "printBLGP": "Blgp", "printU32ImmOperand": "U32Imm",
    "printU16ImmOperand": "U16Imm", "printOffset0": "Offset0", "printOffset1": "Offset1",
    "printInterpAttr": "InterpAttr", "printInterpAttrChan": "InterpAttrChan",
    "printExpTgt": "ExpTgt", "printExpSrc0": "ExpSrc(0)", "printExpSrc1": "ExpSrc(1)",
    "printExpSrc2": "ExpSrc(2)", "printExpSrc3": "ExpSrc(3)", "printHwreg": "Hwreg",
    "printSendMsg": "SendMsg", "printByteSel": "ByteSel", "printWaitEXP": "WaitExp",
    "printIndexKey16bit": "IndexKey", "printIndexKey8bit": "IndexKey",
    "printVINTRPDst": "VintrpDst", "printSwizzle": "Swizzle", "printEndpgm": "Endpgm",
    "printSWaitCnt": "SWaitCnt", "printInterpSlot": "InterpSlot", "printDepCtr": "DepCtr",
    "printWaitVAVDst": "WaitVaVdst", "printWaitVMVSrc": "WaitVmVsrc", "printWaitVDST": "WaitVdst",
    "printSDelayALU": "SDelayAlu", "printGPRIdxMode": "GprIdxMode", "printBitOp3": "BitOp3",
}


# LLVM 22 prints several named integers through one generic method; LLVM 19's method of the
# same operand name (printNamedInt's second argument).
NAMED_INTS = {"row_mask": "DppRowMask", "dmask": "DMask", "cbsz": "Cbsz", "wait_exp": "WaitExp", "bank_mask": "DppBankMask", "offset": "Offset",
              "offset0": "Offset0", "offset1": "Offset1", "byte_sel": "ByteSel",
              "wait_va_vdst": "WaitVaVdst", "wait_vdst": "WaitVdst", "wait_vm_vsrc": "WaitVmVsrc"}

# LLVM 22 operand type -> (inline-constant width, semantics) of LLVM 19's decodeSrcRegOrImm9
# template arguments (semantics: 0 int, 1 f16, 2 bf16, 3 f32, 4 f64), as LLVM 19's records
# pair them.
IMM_SEMANTICS = {}
for _t, _v in {"INT32": (32, 0), "FP32": (32, 3), "FP16": (16, 1), "BF16": (16, 2), "INT16": (16, 0),
               "FP64": (64, 4), "INT64": (64, 0), "V2INT16": (32, 0), "V2FP16": (16, 1),
               "V2BF16": (16, 2), "V2FP32": (32, 3), "V2INT32": (32, 0)}.items():
    for _k in ("REG_IMM", "REG_INLINE_C", "REG_INLINE_AC"):
        IMM_SEMANTICS[f"OPERAND_{_k}_{_t}"] = _v
# LLVM 22's packed-f16 variants: SPLAT takes the f16 inline constants (sema 5: repeated in both
# halves on GFX11+); NOINLINE takes the 32-bit ones (AMDGPUDisassembler, LLVM 22.1.8).
IMM_SEMANTICS["OPERAND_REG_IMM_V2FP16_SPLAT"] = (16, 5)
IMM_SEMANTICS["OPERAND_REG_IMM_NOINLINE_V2FP16"] = (32, 3)


def print_kind(method):
    if method is None:
        return "PrintKind::Operand"  # register classes print as plain operands
    m = re.search(r'printNamedInt\(MI, OpNo, STI, O, "(\w+)"', method)
    if m and m.group(1) in NAMED_INTS:
        return "PrintKind::" + NAMED_INTS[m.group(1)]
    m = re.search(r'printNamedInt\(MI, OpNo, STI, O, "(\w+)", false, false\)', method)
    if m:  # ` name:N` in decimal when not 0
        return f'PrintKind::NamedInt("{m.group(1)}")'
    m = re.search(r'printNamedBit\(MI, OpNo, O, "(\w+)"\)', method)
    if m:
        return f'PrintKind::NamedBit("{m.group(1)}")'
    if method not in PRINT_METHODS:
        raise ValueError(f"unknown print method {method}")
    return "PrintKind::" + PRINT_METHODS[method]


# Operand types LLVM 22 added (SIDefines.h) that hipscope's printer does not know yet.
NEW_OPERAND_TYPES = {"OPERAND_KIMM64", "OPERAND_INLINE_C_AV64_PSEUDO"}


def operand_type(cls):
    t = cls.get("OperandType")
    if t is None:
        return "OperandType::Register"
    if t in NEW_OPERAND_TYPES:
        raise ValueError(f"operand type {t} not modelled")
    return "OperandType::" + "".join(p.capitalize() for p in t.replace("OPERAND_", "").lower().split("_"))


def reg_kinds(recs, rc_name, seen=None):
    """Register files a register class draws from ({'v', 's', 'a'}), from its MemberList.
    (The HasSGPR/HasVGPR fields are not reliable for 16-bit classes.)"""
    seen = seen or set()
    if rc_name in seen:
        return set()
    seen.add(rc_name)
    kinds = set()

    def leaf(name):
        n = name.upper()
        if n.startswith("LDS_DIRECT"):
            return {"l"}
        if n.startswith(("VGPR", "VREG")):
            return {"v"}
        if n.startswith(("AGPR", "AREG")):
            return {"a"}
        return {"s"}  # SGPRs, TTMPs and special registers (VCC, M0, EXEC, ...)

    def walk(node):
        if isinstance(node, list):
            for x in node:
                walk(x)
        elif isinstance(node, dict):
            if node.get("kind") == "def":
                d = node["def"]
                r = recs.get(d, {})
                if "RegisterClass" in r.get("!superclasses", []):
                    kinds.update(reg_kinds(recs, d, seen))
                else:
                    kinds.update(leaf(d))
            elif node.get("kind") == "dag":
                if node["operator"]["def"] == "sequence":
                    kinds.update(leaf(node["args"][0][0]))
                else:
                    walk([a[0] for a in node["args"]])
        elif isinstance(node, str) and "%" in node:
            kinds.update(leaf(node))

    walk(recs[rc_name].get("MemberList"))
    return kinds


def hw_mode_class(recs, rc_name):
    """LLVM 22's register classes chosen by hardware mode (RegClassByHwMode: `*_AlignTarget`,
    `AV_LdSt_*_Target`): the class of the mode the GFX90A+ processors run in
    (AVAlign2LoadStoreMode: even-aligned tuples, AGPRs allowed in loads and stores), else the
    default mode's. Other classes are returned unchanged."""
    r = recs[rc_name]
    if "RegClassByHwMode" not in r.get("!superclasses", []):
        return rc_name
    modes = [m["def"] for m in r["Modes"]]
    pick = modes.index("AVAlign2LoadStoreMode") if "AVAlign2LoadStoreMode" in modes else modes.index("DefaultMode")
    return r["Objects"][pick]["def"]


def reg_class_info(recs, cls_name, cls):
    """(name, vgpr, sgpr, agpr, bits) of the register class an operand belongs to, if any."""
    if "RegisterClass" in cls.get("!superclasses", []):
        rc_name, rc = cls_name, cls
    elif isinstance(cls.get("RegClass"), dict):
        rc_name = cls["RegClass"]["def"]
        rc = recs[rc_name]
    else:
        return "None"
    wave = wave_size_class(recs, rc_name)
    # A lane-mask class chosen by wave size (LLVM 22's SReg_1, SReg_1_XEXEC) keeps its own
    # name and its wave32 member's kinds and width, as LLVM 19's plain class of that name had;
    # the `BoolReg` decoder picks the 32- or 64-bit register by wave size.
    name, rc_name = (rc_name, wave) if wave else (hw_mode_class(recs, rc_name),) * 2
    kinds = reg_kinds(recs, rc_name)
    return (f'Some(RegClassInfo {{ name: "{name}", vgpr: {str("v" in kinds).lower()}, '
            f'lds_direct: {str("l" in kinds).lower()}, '
            f'sgpr: {str("s" in kinds).lower()}, agpr: {str("a" in kinds).lower()}, '
            f'bits: {class_width(recs, rc_name)} }})')


def wave_size_class(recs, rc_name):
    """The wave32 member of a register class chosen by wave size (RegClassByHwMode whose
    wave32 and wave64 modes pick different classes), else None."""
    r = recs[rc_name]
    if "RegClassByHwMode" not in r.get("!superclasses", []):
        return None
    objs = {m["def"]: o["def"] for m, o in zip(r["Modes"], r["Objects"])}
    w32 = objs.get("AlignedVGPRNoAGPRMode_Wave32")
    return w32 if w32 is not None and w32 != objs.get("AlignedVGPRNoAGPRMode_Wave64") else None


def parse_constraints(s):
    """'$a = $b, $c = $d' -> {a: b, c: d} (tied operand pairs)."""
    ties = {}
    for part in s.split(","):
        m = re.search(r"\$(\w+)\s*=\s*\$(\w+)", part)
        if m:
            ties[m.group(1)] = m.group(2)
    return ties


def base_mnemonic(asm):
    """Mnemonic without encoding suffix: `v_add_f32_e32` and `v_add_f32_sdwa` are both V_ADD_F32."""
    mn = re.split(r"[\s${]", asm, maxsplit=1)[0]
    return re.sub(r"_(e32|e64|sdwa|dpp|dpp8|dpp16|e64_dpp)$", "", mn)


def extract(src, processors, strict, known=None):
    """Rows, per-processor feature bits and image dimensions from one LLVM's records.

    A row's `valid` holds, per decoding mode, the set of processor names it is valid on.
    Operand classes are kept as their full descriptor tuple so that rows of two LLVM releases
    can share a class only when it decodes and prints alike. With `strict` unset, a row whose
    operands use a decoder or printer rule hipscope does not implement is skipped (counted)."""
    recs = Records(src)
    # LLVM 22 no longer knows some of LLVM 19's processors (gfx940 was folded into gfx942).
    processors = [p for p in processors if p in recs.processor_features()]
    fsets = feature_sets(recs, processors)
    pred_cache = {}

    def valid_sets(rec):
        preds = [p["def"] for p in rec.get("Predicates", []) if recs[p["def"]].get("AssemblerCondDag")]
        out = [set() for _ in MODES]
        for (name, md), fs in fsets.items():
            ok = True
            for p in preds:
                key = (p, name, md)
                if key not in pred_cache:
                    pred_cache[key] = eval_cond(recs[p]["AssemblerCondDag"], fs)
                ok = ok and pred_cache[key]
            if ok:
                out[md].add(name)
        return out

    variants = mimg_variants(recs)
    pseudos = pseudo_index(recs)
    class_cache = {}
    rows = []
    skipped = collections.Counter()
    for name in recs.instanceof["Instruction"]:
        r = recs[name]
        if r.get("isPseudo") or r.get("isCodeGenOnly") or r.get("isAsmParserOnly"):
            continue
        ns = r.get("DecoderNamespace", "")
        if ns not in NAMESPACES or r.get("Inst") is None or r.get("DisableDecoder") == 1:
            continue
        try:
            rows.append(extract_row(recs, r, name, ns, class_cache, pseudos, variants, valid_sets, known))
        except ValueError as e:
            if strict:
                raise
            skipped[str(e)] += 1
    for why, n in skipped.most_common():
        print(f"skipped {n} rows: {why}", file=sys.stderr)
    procs = recs.processor_features()
    pfeat = {p: sum(1 << i for i, f in enumerate(FEATURES) if f in procs[p]) for p in processors}
    dims = {n: (bits_value(recs[n]["NumCoords"]), bits_value(recs[n]["NumGradients"])) for n in MIMG_DIM_RECORDS}
    for i, n in enumerate(MIMG_DIM_RECORDS):
        assert bits_value(recs[n]["Encoding"]) == i, f"{n} is not dim encoding {i}"
    return rows, pfeat, dims, class_cache


def class_desc(recs, cname, cache, known=None):
    """(name, decoder, printer, operand type, register class) of an operand class. `known`
    holds LLVM 19's descriptors: an LLVM 22 class of the same name over the same register
    class is taken to decode and print alike (LLVM 22 renamed the decoder methods, not the
    rules)."""
    if cname not in cache:
        cls = recs[cname]
        same = (known or {}).get(cname)
        # LLVM 22's `ds_gws_*` data operand (AV_LdSt_32_Align2_RegOp): an even-aligned pair on
        # GFX90A+ that prints as its first register (printAVLdSt32Align2RegOp), i.e. the one
        # 32-bit VGPR/AGPR LLVM 19 decoded and printed as AVLdSt_32.
        if cls.get("PrintMethod") == "printAVLdSt32Align2RegOp" and "AVLdSt_32" in (known or {}):
            same = cache[cname] = known["AVLdSt_32"]
            return same
        if same is not None and same[4] == reg_class_info(recs, cname, cls):
            cache[cname] = same
            return same
        # s_version's operand prints as a symbolic expression built by its decoder.
        printer = "PrintKind::VersionImm" if cls.get("DecoderMethod") == "decodeVersionImm" else print_kind(cls.get("PrintMethod"))
        cache[cname] = (cname, decoder_kind(recs, cname, cls), printer, operand_type(cls), reg_class_info(recs, cname, cls))
    return cache[cname]


def extract_row(recs, r, name, ns, class_cache, pseudos, variants, valid_sets, known):
    """One table row of the real encoding record `r` (raises ValueError on unknown rules)."""
    mask, val, fields = encoding_bits(r)
    ties = parse_constraints(r.get("Constraints", ""))
    ops = []
    args = r["OutOperandList"]["args"] + r["InOperandList"]["args"]
    names = [a[1] for a in args]
    for cls_ref, opname in args:
        desc = class_desc(recs, cls_ref["def"], class_cache, known)
        tied = -1
        if opname in ties and ties[opname] in names:
            tied = names.index(ties[opname])
        else:
            for a, b in ties.items():
                if b == opname and a in names and names.index(a) < names.index(opname):
                    tied = names.index(a)
        ops.append((opname, desc, tuple(ranges(fields.get(opname, []))), tied))
    asm = r["AsmString"]
    mn = base_mnemonic(asm)
    ts = r.get("TSFlags") or []
    flags = [f for f in FLAG_FIELDS
             if (ts[TSFLAG_BITS[f]] == 1 if f in TSFLAG_BITS and len(ts) == 64 else r.get(f) == 1)]
    flags += derived_flags(recs, pseudos, r, mn)
    uses = [u["def"] for u in r.get("Uses", []) if u["def"] in IMPLICIT_REGS]
    defs = [u["def"] for u in r.get("Defs", []) if u["def"] in IMPLICIT_REGS]
    mimg = mimg_info(recs, r, variants) if ("MIMG" in flags or "VIMAGE" in flags or "VSAMPLE" in flags) else "None"
    return dict(name=name, ns=ns, bits=len(r["Inst"]), mask=mask, val=val, valid=valid_sets(r), asm=asm,
                mn=mn, ops=tuple(ops), flags=flags, uses=uses, defs=defs, mimg=mimg)


def row_key(row):
    """Everything of a row but its validity: rows of two releases with equal keys are merged."""
    return tuple((k, row[k] if not isinstance(row[k], list) else tuple(row[k])) for k in sorted(row) if k != "valid")


# Decoding modes 4..7 of the merged table (index 4 | real_true16 << 1 | wave64) are LLVM 22's
# rows on every processor, so that hipscope can decode and print as either release does:
# LLVM 22 rewrote several forms (true16 VOP3 operands as `.l`/`.h` halves with op_sel folded
# into the register, op_sel on fake16 VOP3 forms, VOPD with dot2acc, SDWA v_pk_fmac_f16).
# Modes 0..3 keep LLVM 19's rows, which the simulator executes.
LLVM22_MODES = [0, 1, 2, 3]


def merge(base, ext):
    """LLVM 19's rows keep their validity on the processors LLVM 19 knows; LLVM 22's rows add
    validity on the processors only LLVM 22 knows (PROCESSORS_22), and make up the LLVM 22
    modes (4..7) on every processor. A row equal in everything else to a base row shares it;
    otherwise it is added, valid on the new processors and in modes 4..7 only."""
    for r in base:
        r["valid"] = r["valid"] + [set() for _ in LLVM22_MODES]
    index = {row_key(r): r for r in base}
    out = list(base)
    for r in ext:
        r["valid"] = [v & set(PROCESSORS_22) for v in r["valid"]] + [r["valid"][m] for m in LLVM22_MODES]
        if not any(r["valid"]):
            continue
        same = index.get(row_key(r))
        if same is not None:
            same["valid"] = [a | b for a, b in zip(same["valid"], r["valid"])]
        else:
            out.append(r)
    return out


def main(src, dst, src22=None):
    rows, pfeat, dims, known = extract(src, PROCESSORS, strict=True)
    if src22:
        rows22, pfeat22, _, _ = extract(src22, PROCESSORS + PROCESSORS_22, strict=False, known=known)
        rows = merge(rows, rows22)
        pfeat.update({p: pfeat22[p] for p in PROCESSORS_22})
    else:
        for r in rows:
            r["valid"] += [set() for _ in LLVM22_MODES]
    procs = PROCESSORS + (PROCESSORS_22 if src22 else [])
    classes, class_rows, oplists = {}, [], {}
    opnames, opcodes = set(), set()
    for r in rows:
        ops = []
        for opname, desc, rng, tied in r["ops"]:
            if desc not in classes:
                classes[desc] = len(class_rows)
                class_rows.append(desc)
            opnames.add(opname)
            ops.append((opname, classes[desc], rng, tied))
        key = tuple(ops)
        if key not in oplists:
            oplists[key] = len(oplists)
        r["ops"] = oplists[key]
        r["valid"] = [sum(1 << procs.index(p) for p in v) for v in r["valid"]]
        opcodes.add(r["mn"])
    rows.sort(key=lambda x: (NAMESPACES.index(x["ns"]), x["bits"], x["name"]))
    write_rust(dst, rows, class_rows, sorted(opnames), sorted(opcodes), oplists,
               [(p, pfeat[p]) for p in procs], dims, bool(src22))
    print(f"{len(rows)} rows, {len(class_rows)} operand classes, {len(oplists)} operand lists, "
          f"{len(opcodes)} opcodes, {len(opnames)} operand names", file=sys.stderr)


MIMG_DIM_RECORDS = ["AMDGPUDim1D", "AMDGPUDim2D", "AMDGPUDim3D", "AMDGPUDimCube", "AMDGPUDim1DArray",
                    "AMDGPUDim2DArray", "AMDGPUDim2DMsaa", "AMDGPUDim2DArrayMsaa"]


def write_rust(dst, rows, class_rows, opnames, opcodes, oplists, pfeat, dims, with22):
    opname_idx = {n: i for i, n in enumerate(opnames)}
    out = []
    w = out.append
    w("// @generated by tools/isagen/isagen.py from LLVM 19.1.7 AMDGPU TableGen records"
      + (" merged with LLVM 22.1.8's" if with22 else ""))
    w("// (llvm/lib/Target/AMDGPU/*.td, Apache-2.0 WITH LLVM-exception; see NOTICE). Do not edit.")
    w("#![allow(clippy::all, non_camel_case_types, dead_code)]")
    w("use super::types::*;\n")
    w("/// Instruction mnemonics (without encoding suffixes such as `_e32`/`_e64`/`_sdwa`).")
    w("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]")
    w("#[repr(u16)]")
    w("pub enum Opcode {")
    for mn in opcodes:
        w(f"    {rust_ident(mn.upper())},")
    w("}\n")
    w("pub static OPCODE_NAMES: [&str; %d] = [" % len(opcodes))
    for mn in opcodes:
        w(f'    "{mn}",')
    w("];\n")
    w("/// Operand names used by the encodings (LLVM operand names).")
    w("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]")
    w("#[repr(u16)]")
    w("pub enum OpName {")
    for n in opnames:
        w(f"    {rust_ident(n)},")
    w("}\n")
    w("pub static OPNAME_NAMES: [&str; %d] = [" % len(opnames))
    for n in opnames:
        w(f'    "{n}",')
    w("];\n")
    w("/// Subtarget feature bits (see `feature`) per processor, in `Processor` order.")
    w("pub static PROCESSOR_FEATURES: [u64; %d] = [" % len(pfeat))
    for p, f in pfeat:
        w(f"    {f:#x}, // {p}")
    w("];\n")
    w("pub mod feature {")
    for i, f in enumerate(FEATURES):
        w(f"    pub const {f.replace('Feature', '').upper()}: u64 = 1 << {i};")
    w("}\n")
    w("/// Image dimensions by `dim` encoding: (coordinates, gradients) (LLVM AMDGPUDim records).")
    w("pub static MIMG_DIMS: [(u8, u8); 8] = [")
    for name in MIMG_DIM_RECORDS:
        w(f"    ({dims[name][0]}, {dims[name][1]}), // {name}")
    w("];\n")
    w("pub static CLASSES: [ClassDesc; %d] = [" % len(class_rows))
    for cname, dec, pk, ot, rc in class_rows:
        w(f'    ClassDesc {{ name: "{cname}", decoder: {dec}, printer: {pk}, op_type: {ot}, reg_class: {rc} }},')
    w("];\n")
    # No pointers below this line: `ROWS` and `OPERANDS` hold offsets into `TEXT` and `OPERANDS`
    # instead of references, so the linker places them in read-only data that needs no
    # relocation when the program or the runtime library loads (a table of references is
    # rewritten page by page by the dynamic loader in every process that loads it).
    w("/// Every row's operand list, one after another (`Row::operands`: a range of this array).")
    total = sum(len(key) for key in oplists)
    w("pub static OPERANDS: [OperandDesc; %d] = [" % total)
    starts = {}
    at = 0
    for key, idx in sorted(oplists.items(), key=lambda x: x[1]):
        items = []
        for opname, cls, rngs, tied in key:
            f = ", ".join(f"({a}, {b}, {c})" for a, b, c in rngs)
            items.append(f"OperandDesc {{ name: OpName::{rust_ident(opname)}, class: {cls}, fields: Fields::of([{f}]), tied: {tied} }},")
        starts[idx] = (at, len(key))
        at += len(key)
        w(f"    /* {idx} */ " + " ".join(items) if items else f"    /* {idx} */")
    w("];\n")
    w("/// Every row's record name and assembly template, one after another (`Row::record`, `Row::asm`).")
    w("pub static TEXT: &str = concat!(")
    placed = []
    at = 0
    for r in rows:
        asm = r["asm"].replace("\\", "\\\\").replace('"', '\\"')
        w(f'    "{r["name"]}", "{asm}",')
        rec = (at, len(r["name"].encode()))
        at += rec[1]
        placed.append((rec, (at, len(r["asm"].encode()))))
        at += len(r["asm"].encode())
    w(");\n")
    w("pub static ROWS: [Row; %d] = [" % len(rows))
    for r, (rec, asm) in zip(rows, placed):
        flags = " | ".join(f"flags::{f.upper()}" for f in r["flags"]) or "0"
        uses = " | ".join(f"implicit::{u}" for u in r["uses"]) or "0"
        defs = " | ".join(f"implicit::{u}" for u in r["defs"]) or "0"
        ops = starts[r["ops"]]
        w(f'    Row {{ record: Text({rec[0]}, {rec[1]}), opcode: Opcode::{rust_ident(r["mn"].upper())}, '
          f'table: Namespace::{r["ns"]}, bytes: {r["bits"] // 8}, mask: {r["mask"]:#x}, value: {r["val"]:#x}, '
          f'valid: [{", ".join(f"{v:#x}" for v in r["valid"])}], flags: {flags}, uses: {uses}, defs: {defs}, '
          f'asm: Text({asm[0]}, {asm[1]}), operands: Ops({ops[0]}, {ops[1]}), mimg: {r["mimg"]} }},')
    w("];")
    with open(dst, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(*sys.argv[1:])
