//! A kernel ready to run: its code decoded and classified once, plus what dispatch needs from
//! the code object (descriptor, initial register layout, kernarg layout).

use crate::exec::{classify, Env, Sem};
use crate::fault::FaultKind;
use hipscope_isa::codeobj::{CodeObject, InitialSgprs, KernargLayout, KernelDescriptor, KernelLookupError};
use hipscope_isa::decode::{Decoder, Inst};
use hipscope_isa::{Family, Processor};

/// One instruction with its semantics.
#[derive(Debug, Clone)]
pub struct ExecInst {
    pub inst: Inst,
    pub sem: Sem,
}

/// A slot of code: an instruction, or bytes that do not decode (a fault if executed).
#[derive(Debug, Clone)]
pub enum CodeSlot {
    Inst(ExecInst),
    Invalid { address: u64, word: u32 },
}

impl CodeSlot {
    pub fn address(&self) -> u64 {
        match self {
            CodeSlot::Inst(e) => e.inst.address,
            CodeSlot::Invalid { address, .. } => *address,
        }
    }
}

/// A kernel loaded for execution.
#[derive(Debug, Clone)]
pub struct LoadedKernel {
    pub name: String,
    pub processor: Processor,
    pub family: Family,
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
    /// The code of the section holding the kernel, decoded from its start, in address order.
    pub code: Vec<CodeSlot>,
    /// Index into `code` of the slot starting at each dword of the section (`u32::MAX`: inside
    /// an instruction). Every taken branch looks its target up; a binary search over the slots
    /// cost a tenth of the run time of a kernel that is one short loop.
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

/// Decode `bytes` at `address` for the target, classifying each instruction once; words
/// that do not decode become [`CodeSlot::Invalid`] (a fault only if executed).
fn decode_code(processor: Processor, wave64: bool, bytes: &[u8], address: u64, env: &Env) -> Vec<CodeSlot> {
    let decoder = Decoder::new(processor, wave64);
    decoder
        .decode_all(bytes, address)
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

/// [`LoadedKernel::slot_at`] for `code` (address order, every slot a whole number of dwords
/// after the first).
fn slot_table(code: &[CodeSlot]) -> Vec<u32> {
    let Some(first) = code.first().map(CodeSlot::address) else { return Vec::new() };
    let end = code.last().map_or(first, |s| s.address() - first) / 4 + 1;
    let mut table = vec![u32::MAX; end as usize];
    for (i, slot) in code.iter().enumerate() {
        table[((slot.address() - first) / 4) as usize] = i as u32;
    }
    table
}

/// Registers a wave's file must hold for `code` (see `LoadedKernel::vgpr_file`).
fn vgpr_file_size(code: &[CodeSlot], allocated: u32) -> u32 {
    use hipscope_isa::decode::{Operand, Reg};
    let all = crate::wave::VGPRS as u32;
    let mut top = allocated;
    for slot in code {
        let CodeSlot::Inst(e) = slot else { continue };
        let name = e.inst.mnemonic();
        if name.starts_with("v_movrel") || name.starts_with("s_set_gpr_idx") {
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
    /// source name) and decode its code for `env`'s target.
    pub fn load(co: &CodeObject, name: &str, env: &Env) -> Result<LoadedKernel, KernelError> {
        let k = co.find_kernel(name)?;
        let section = co.section_at(k.entry_address).filter(|s| s.executable).ok_or(KernelError::NoCode(k.name.clone(), k.entry_address))?;
        let wave64 = k.wave_size == 64;
        let code = decode_code(co.target.processor, wave64, &section.bytes, section.address, env);
        Ok(LoadedKernel {
            name: k.name.clone(),
            processor: co.target.processor,
            family: co.target.processor.family(),
            wave64,
            entry: k.entry_address,
            code_end: co
                .code_symbols
                .iter()
                .find(|s| s.address == k.entry_address && s.size > 0)
                .map_or(section.address + section.bytes.len() as u64, |s| s.address + s.size),
            descriptor: k.descriptor,
            initial_sgprs: k.initial_sgprs.clone(),
            kernarg: k.kernarg().cloned(),
            vgprs: k.registers.vgprs.min(crate::wave::VGPRS as u32),
            vgpr_file: vgpr_file_size(&code, k.registers.vgprs.min(crate::wave::VGPRS as u32)),
            slot_at: slot_table(&code),
            code,
        })
    }

    /// A kernel whose code and descriptor were built in memory rather than linked into a code
    /// object (the litmus grader's kernels): no metadata, so user arguments are packed in
    /// order (see `Device::launch`).
    pub fn from_code(raw: &RawKernel, env: &Env) -> LoadedKernel {
        let code = decode_code(raw.processor, raw.wave64, raw.code, raw.entry, env);
        let vgprs = raw.vgprs.min(crate::wave::VGPRS as u32);
        LoadedKernel {
            name: raw.name.to_string(),
            processor: raw.processor,
            family: raw.processor.family(),
            wave64: raw.wave64,
            entry: raw.entry,
            code_end: raw.entry + raw.code.len() as u64,
            descriptor: raw.descriptor,
            initial_sgprs: InitialSgprs::from_descriptor(&raw.descriptor),
            kernarg: None,
            vgprs,
            vgpr_file: vgpr_file_size(&code, vgprs),
            slot_at: slot_table(&code),
            code,
        }
    }

    /// Index of the code slot at `address`.
    pub fn index_of(&self, address: u64) -> Result<usize, FaultKind> {
        let first = self.code.first().map_or(0, CodeSlot::address);
        let dword = address.checked_sub(first).filter(|o| o % 4 == 0).map(|o| o / 4);
        match dword.and_then(|d| self.slot_at.get(usize::try_from(d).ok()?)) {
            Some(&i) if i != u32::MAX => Ok(i as usize),
            _ => Err(FaultKind::BadPc(address)),
        }
    }
}
