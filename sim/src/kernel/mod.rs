//! A kernel ready to run: its code decoded and classified once, plus what dispatch needs from
//! the code object (descriptor, initial register layout, kernarg layout).
//!
//! Only the kernel's own code is decoded (its entry to the end of its symbol) and the
//! functions it calls ([`reach`]), each a segment of [`LoadedKernel::code`] closed by a
//! [`CodeSlot::End`]: a library's code object holds thousands of kernels in one section, and a
//! program pays for the ones it launches.

mod reach;

use crate::exec::{classify, Env, Sem};
use crate::fault::FaultKind;
use hipscope_isa::codeobj::{CodeObject, CodeSymbolKind, InitialSgprs, KernargLayout, KernelDescriptor, KernelLookupError, Section};
use hipscope_isa::decode::{DecodeError, Decoder, Inst};
use hipscope_isa::{Family, Processor};

/// One instruction with its semantics.
#[derive(Debug, Clone)]
pub struct ExecInst {
    pub inst: Inst,
    pub sem: Sem,
}

/// A slot of code: an instruction, bytes that do not decode (a fault if executed), or the end
/// of a decoded segment (running into it is a PC outside the kernel's code).
#[derive(Debug, Clone)]
pub enum CodeSlot {
    Inst(ExecInst),
    Invalid { address: u64, word: u32 },
    End { address: u64 },
}

impl CodeSlot {
    pub fn address(&self) -> u64 {
        match self {
            CodeSlot::Inst(e) => e.inst.address,
            CodeSlot::Invalid { address, .. } | CodeSlot::End { address } => *address,
        }
    }
}

/// A decoded address range `[start, end)`: its slots are `code[first..]` up to the next
/// [`CodeSlot::End`], and its dwords' slot indices `slot_at[table..]`.
#[derive(Debug, Clone, Copy)]
struct Segment {
    start: u64,
    end: u64,
    table: usize,
}

/// A kernel loaded for execution.
#[derive(Debug, Clone)]
pub struct LoadedKernel {
    pub name: String,
    pub processor: Processor,
    pub family: Family,
    /// Classified for a GPU with SRAMECC on (`exec::Env::sramecc`); its launches run so.
    pub sramecc: bool,
    pub wave64: bool,
    pub entry: u64,
    /// Where the kernel's own code ends: its symbol's size, else its section's end (a section
    /// holds every kernel of the object and the functions they call).
    pub code_end: u64,
    pub descriptor: KernelDescriptor,
    pub initial_sgprs: InitialSgprs,
    pub kernarg: Option<KernargLayout>,
    /// VGPRs the kernel allocates (new waves start with these zeroed; higher registers are
    /// never read by the kernel's code).
    pub vgprs: u32,
    /// Vector registers a wave's register file holds: every register the code names (with a
    /// margin), or all 256 when it indexes registers at run time (`v_movrel*`,
    /// `s_set_gpr_idx*`). Smaller files keep the many resident waves of a big GPU cheap.
    pub vgpr_file: u32,
    /// The kernel's code from its entry, then the functions it calls, each segment in address
    /// order and closed by a [`CodeSlot::End`].
    pub code: Vec<CodeSlot>,
    segments: Vec<Segment>,
    /// Index into `code` of the slot starting at each dword of each segment (`u32::MAX`:
    /// inside an instruction). Every taken branch looks its target up; a binary search over
    /// the slots cost a tenth of the run time of a kernel that is one short loop.
    slot_at: Vec<u32>,
}

/// Code and descriptor of a kernel built in memory ([`LoadedKernel::from_code`]).
#[derive(Debug, Clone)]
pub struct RawKernel<'a> {
    pub name: &'a str,
    pub processor: Processor,
    pub wave64: bool,
    pub descriptor: KernelDescriptor,
    /// VGPRs each lane uses.
    pub vgprs: u32,
    /// The code, starting with the kernel's first instruction at address `entry`.
    pub code: &'a [u8],
    pub entry: u64,
}

/// GFX11+: decoders of the true 16-bit forms, for words LLVM 19's fake16 tables reject.
/// Clang emits VOP1/VOP2/VOPC 16-bit operations whose VGPR fields have bit 7 set (the high
/// half, RDNA3 ISA §7.4 "16-bit Math and VGPRs"), e.g. `v_add_f16_e32 v1.h, v1.h, v6.l`
/// (0x65020d81), which only the real-true16 tables decode. LLVM 19's real-true16 tables
/// still lack some forms clang 21+ emits (`v_cvt_f16_f32_e32 v1.h, v4`, 0x7f021504, decodes
/// with LLVM 22 only), so LLVM 22's rows are the last resort.
pub struct True16Fallback {
    llvm19: Decoder,
    llvm22: Decoder,
}

impl True16Fallback {
    pub fn new(processor: Processor, wave64: bool) -> Option<True16Fallback> {
        matches!(processor.family(), hipscope_isa::Family::Gfx11 | hipscope_isa::Family::Gfx12)
            .then(|| True16Fallback { llvm19: Decoder::with_true16(processor, wave64, true), llvm22: Decoder::llvm22(processor, wave64, true) })
    }

    pub fn decode(&self, bytes: &[u8], address: u64) -> Result<Inst, DecodeError> {
        self.llvm19.decode(bytes, address).or_else(|_| self.llvm22.decode(bytes, address))
    }
}

/// Decode `bytes` at `address` for the target, classifying each instruction once; words
/// that do not decode become [`CodeSlot::Invalid`] (a fault only if executed).
fn decode_code(processor: Processor, wave64: bool, bytes: &[u8], address: u64, env: &Env) -> Vec<CodeSlot> {
    let decoder = Decoder::new(processor, wave64);
    let true16 = True16Fallback::new(processor, wave64);
    let mut decoded = Vec::new();
    let mut off = 0usize;
    while off + 4 <= bytes.len() {
        let at = address + off as u64;
        let res = decoder.decode(&bytes[off..], at).or_else(|e| true16.as_ref().map_or(Err(e.clone()), |t| t.decode(&bytes[off..], at).map_err(|_| e)));
        off += res.as_ref().map_or(4, |i| i.size as usize);
        decoded.push((at, res));
    }
    decoded
        .into_iter()
        .map(|(at, r)| match r {
            Ok(inst) => {
                let sem = classify(&inst, env);
                CodeSlot::Inst(ExecInst { inst, sem })
            }
            Err(_) => {
                let off = (at - address) as usize;
                let word = bytes.get(off..off + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                CodeSlot::Invalid { address: at, word }
            }
        })
        .collect()
}

/// The code, segments and slot table being built for a kernel.
#[derive(Default)]
struct Segments {
    code: Vec<CodeSlot>,
    segments: Vec<Segment>,
    slot_at: Vec<u32>,
}

impl Segments {
    /// Append `slots` (decoded from `[start, end)`, in address order) as a segment.
    fn push(&mut self, start: u64, end: u64, slots: Vec<CodeSlot>) {
        let table = self.slot_at.len();
        let dwords = usize::try_from(end.saturating_sub(start).div_ceil(4)).unwrap_or(0);
        self.slot_at.resize(table + dwords, u32::MAX);
        for slot in slots {
            if let Some(entry) = usize::try_from((slot.address() - start) / 4).ok().and_then(|d| self.slot_at.get_mut(table + d)) {
                *entry = self.code.len() as u32;
            }
            self.code.push(slot);
        }
        // Falling through the last instruction reaches the end slot (no branch targets it).
        self.code.push(CodeSlot::End { address: end });
        self.segments.push(Segment { start, end, table });
    }

    fn covers(&self, address: u64) -> bool {
        self.segments.iter().any(|s| address >= s.start && address < s.end)
    }
}

/// Registers a wave's file must hold for `code` (see `LoadedKernel::vgpr_file`).
fn vgpr_file_size(code: &[CodeSlot], allocated: u32) -> u32 {
    use hipscope_isa::decode::{Operand, Reg};
    let all = crate::wave::VGPRS as u32;
    let mut top = allocated;
    for slot in code {
        let CodeSlot::Inst(e) = slot else { continue };
        // `v_movrel*` and GPR_IDX mode reach VGPRs through M0, past every operand.
        if e.inst.has(hipscope_isa::tables::flags::VGPR_INDEXING) {
            return all;
        }
        for op in &e.inst.operands {
            let end = match op {
                Operand::Reg(Reg::Vgpr { index, count }) => *index as u32 + (*count as u32).max(1),
                Operand::Reg(Reg::Vgpr16 { index, .. }) => *index as u32 + 1,
                _ => continue,
            };
            top = top.max(end);
        }
    }
    // A margin for instructions that reach past their operand's width (TFE status dwords,
    // 64-bit halves), in steps of 16.
    (top + 8).next_multiple_of(16).min(all)
}

/// Why a kernel could not be prepared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KernelError {
    /// No kernel, or several, answer to the name (see `CodeObject::find_kernel`).
    #[error(transparent)]
    Lookup(#[from] KernelLookupError),
    #[error("kernel '{0}': entry {1:#x} is not in an executable section")]
    NoCode(String, u64),
}

impl LoadedKernel {
    /// Find `name` in the code object (its name there, its descriptor symbol or its C++
    /// source name) and decode its code, and the functions it calls, for `env`'s target.
    pub fn load(co: &CodeObject, name: &str, env: &Env) -> Result<LoadedKernel, KernelError> {
        let k = co.find_kernel(name)?;
        let section = co.section_at(k.entry_address).filter(|s| s.executable).ok_or(KernelError::NoCode(k.name.clone(), k.entry_address))?;
        let wave64 = k.wave_size == 64;
        let processor = co.target.processor;
        let decode = |start: u64, end: u64| {
            let bytes = co.read(start, end - start).unwrap_or_default();
            decode_code(processor, wave64, bytes, start, env)
        };
        let code_end = function_end(co, k.entry_address, section);
        let mut parts = Segments::default();
        let own = decode(k.entry_address, code_end);
        let mut reach = reach::scan(&own);
        parts.push(k.entry_address, code_end, own);
        let mut pending = std::mem::take(&mut reach.targets);
        let mut unresolved = reach.unresolved_calls;
        while let Some(target) = pending.pop() {
            let Some(end) = callee_end(co, target) else { continue };
            if parts.covers(target) {
                continue;
            }
            let body = decode(target, end);
            let r = reach::scan(&body);
            parts.push(target, end, body);
            pending.extend(r.targets);
            unresolved |= r.unresolved_calls;
        }
        if unresolved {
            // A call through a pointer: any function of the object may be its target.
            for f in co.code_symbols.iter().filter(|s| s.kind == CodeSymbolKind::Function && co.kernels.iter().all(|k| k.entry_address != s.address)) {
                if let Some(end) = callee_end(co, f.address).filter(|_| !parts.covers(f.address)) {
                    parts.push(f.address, end, decode(f.address, end));
                }
            }
        }
        let vgprs = k.registers.vgprs.min(crate::wave::VGPRS as u32);
        Ok(LoadedKernel {
            name: k.name.clone(),
            processor,
            family: processor.family(),
            sramecc: env.sramecc,
            wave64,
            entry: k.entry_address,
            code_end,
            descriptor: k.descriptor,
            initial_sgprs: k.initial_sgprs.clone(),
            kernarg: k.kernarg().cloned(),
            vgprs,
            vgpr_file: vgpr_file_size(&parts.code, vgprs),
            code: parts.code,
            segments: parts.segments,
            slot_at: parts.slot_at,
        })
    }

    /// A kernel whose code and descriptor were built in memory rather than linked into a code
    /// object (the litmus grader's kernels): no metadata, so user arguments are packed in
    /// order (see `Device::launch`).
    pub fn from_code(raw: &RawKernel, env: &Env) -> LoadedKernel {
        let code = decode_code(raw.processor, raw.wave64, raw.code, raw.entry, env);
        let vgprs = raw.vgprs.min(crate::wave::VGPRS as u32);
        let vgpr_file = vgpr_file_size(&code, vgprs);
        let code_end = raw.entry + raw.code.len() as u64;
        let mut parts = Segments::default();
        parts.push(raw.entry, code_end, code);
        LoadedKernel {
            name: raw.name.to_string(),
            processor: raw.processor,
            family: raw.processor.family(),
            sramecc: env.sramecc,
            wave64: raw.wave64,
            entry: raw.entry,
            code_end,
            descriptor: raw.descriptor,
            initial_sgprs: InitialSgprs::from_descriptor(&raw.descriptor),
            kernarg: None,
            vgprs,
            vgpr_file,
            code: parts.code,
            segments: parts.segments,
            slot_at: parts.slot_at,
        }
    }

    /// Index of the code slot at `address`.
    pub fn index_of(&self, address: u64) -> Result<usize, FaultKind> {
        let segment = self.segments.iter().find(|s| address >= s.start && address < s.end);
        let slot = segment.filter(|_| address % 4 == 0).and_then(|s| self.slot_at.get(s.table + ((address - s.start) / 4) as usize));
        match slot {
            Some(&i) if i != u32::MAX => Ok(i as usize),
            _ => Err(FaultKind::BadPc(address)),
        }
    }
}

/// Where the function or kernel whose code starts at `entry` ends: its symbol's end (for a
/// code object v2 kernel the symbol starts with the 256-byte header), else the next function
/// symbol, else the end of its section.
fn function_end(co: &CodeObject, entry: u64, section: &Section) -> u64 {
    let section_end = section.address + section.bytes.len() as u64;
    let functions = || co.code_symbols.iter().filter(|s| s.kind != CodeSymbolKind::Label && section.contains(s.address));
    if let Some(s) = functions().find(|s| s.size > 0 && s.address <= entry && entry < s.address + s.size) {
        return (s.address + s.size).min(section_end);
    }
    functions().map(|s| s.address).filter(|&a| a > entry).min().unwrap_or(section_end)
}

/// The end of the function that starts at `target`, if a function symbol starts there.
fn callee_end(co: &CodeObject, target: u64) -> Option<u64> {
    let section = co.section_at(target).filter(|s| s.executable)?;
    co.code_symbols.iter().find(|s| s.address == target && s.kind == CodeSymbolKind::Function)?;
    Some(function_end(co, target, section))
}
