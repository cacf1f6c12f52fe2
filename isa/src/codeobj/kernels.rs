//! Kernels: descriptor symbol + descriptor bytes (relocated) + metadata → [`Kernel`].
//!
//! * v3+: a kernel is a `name.kd` `STT_OBJECT` holding the 64-byte descriptor (AMDGPUUsage
//!   "Symbols"); the metadata's `.symbol` names it. Entry = descriptor address +
//!   `KERNEL_CODE_ENTRY_BYTE_OFFSET`.
//! * v2: a kernel is an `STT_AMDGPU_HSA_KERNEL` symbol at its `amd_kernel_code_t`; metadata is
//!   matched by `Name`. Entry = symbol address + `kernel_code_entry_byte_offset` (256).
//!
//! Every entry must land inside an executable section, and every metadata argument inside the
//! kernarg segment, so consumers can index without further checks.

use super::descriptor::{KernelDescriptor, KERNEL_DESCRIPTOR_SIZE};
use super::error::show;
use super::image::Image;
use super::kernel_code::{self, AmdKernelCode, AMD_KERNEL_CODE_SIZE};
use super::metadata::{KernargLayout, KernelMetadata, Metadata};
use super::registers::RegisterCounts;
use super::sgprs::InitialSgprs;
use super::symbols::{ElfSymbol, STT_AMDGPU_HSA_KERNEL};
use super::LoadError;
use crate::target::Family;
use serde::Serialize;

/// One kernel, with everything a dispatcher or disassembler needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Kernel {
    /// Source name (metadata `.name`; the symbol name without `.kd` if there is no metadata).
    pub name: String,
    /// Descriptor symbol: `name.kd` (v3+) or the `STT_AMDGPU_HSA_KERNEL` symbol (v2).
    pub symbol: String,
    /// Address of the kernel descriptor / `amd_kernel_code_t`.
    pub descriptor_address: u64,
    /// Address of the first instruction.
    pub entry_address: u64,
    pub wave_size: u32,
    pub descriptor: KernelDescriptor,
    /// Code object v2 only: the rest of `amd_kernel_code_t`.
    pub amd_kernel_code: Option<AmdKernelCode>,
    pub registers: RegisterCounts,
    pub initial_sgprs: InitialSgprs,
    pub metadata: Option<KernelMetadata>,
}

impl Kernel {
    /// The kernarg layout from metadata, if the object has metadata for this kernel.
    pub fn kernarg(&self) -> Option<&KernargLayout> {
        self.metadata.as_ref().map(|m| &m.kernarg)
    }
}

/// What the kernel builder needs from the rest of the loader.
pub struct Context<'i, 'a> {
    pub image: &'i Image<'a>,
    pub symbols: &'i [ElfSymbol],
    pub family: Family,
    pub version: u32,
}

/// All kernels of the object, in metadata order, then descriptors without metadata.
pub fn collect(cx: &Context, metadata: Option<&Metadata>) -> Result<Vec<Kernel>, LoadError> {
    let candidates: Vec<&ElfSymbol> = if cx.version == 2 {
        unique(cx.symbols.iter().filter(|s| s.st_type == STT_AMDGPU_HSA_KERNEL && s.address().is_some()))
    } else {
        unique(cx.symbols.iter().filter(|s| s.is_object() && s.name.ends_with(".kd") && s.address().is_some()))
    };
    let meta = metadata.map(|m| m.kernels.as_slice()).unwrap_or_default();
    let mut used = vec![false; candidates.len()];
    let mut kernels = Vec::new();
    for mk in meta {
        let pos = candidates
            .iter()
            .position(|s| matches(cx.version, s, mk))
            .ok_or_else(|| LoadError::kernel(&mk.name, format!("metadata names descriptor symbol '{}', which is not defined", show(&mk.symbol))))?;
        if let (Some(flag), Some(sym)) = (used.get_mut(pos), candidates.get(pos)) {
            *flag = true;
            kernels.push(build(cx, sym, Some(mk.clone()))?);
        }
    }
    for (sym, _) in candidates.iter().zip(&used).filter(|(_, u)| !**u) {
        kernels.push(build(cx, sym, None)?);
    }
    Ok(kernels)
}

/// First symbol of each name (v2 objects list kernels in both `.symtab` and `.dynsym`).
fn unique<'s>(it: impl Iterator<Item = &'s ElfSymbol>) -> Vec<&'s ElfSymbol> {
    let mut out: Vec<&ElfSymbol> = Vec::new();
    for s in it {
        if !out.iter().any(|o| o.name == s.name) {
            out.push(s);
        }
    }
    out
}

/// Does descriptor symbol `s` belong to metadata kernel `mk`? v2 `SymbolName` is `name@kd`,
/// which is not an ELF symbol; the kernel symbol carries the plain name.
fn matches(version: u32, s: &ElfSymbol, mk: &KernelMetadata) -> bool {
    if version == 2 {
        s.name == mk.name || mk.symbol.strip_suffix("@kd") == Some(s.name.as_str())
    } else {
        s.name == mk.symbol
    }
}

fn build(cx: &Context, sym: &ElfSymbol, metadata: Option<KernelMetadata>) -> Result<Kernel, LoadError> {
    let name = match &metadata {
        Some(m) => m.name.clone(),
        None => sym.name.strip_suffix(".kd").unwrap_or(&sym.name).to_string(),
    };
    let (address, slot) = sym.address().ok_or_else(|| LoadError::kernel(&name, "descriptor symbol is not in a loaded section"))?;
    let size = if cx.version == 2 { AMD_KERNEL_CODE_SIZE } else { KERNEL_DESCRIPTOR_SIZE };
    let section = cx.image.sections.get(slot).ok_or_else(|| LoadError::kernel(&name, "descriptor section missing"))?;
    let bytes = section
        .bytes_at(address, size as u64)
        .ok_or_else(|| LoadError::kernel(&name, format!("{size}-byte descriptor at {address:#x} is outside the contents of {}", show(&section.name))))?;
    let short = |e: super::bytes::Short| LoadError::kernel(&name, e.to_string());
    let (descriptor, amd_kernel_code) = if cx.version == 2 {
        let (d, extra) = kernel_code::parse(bytes, cx.family).map_err(short)?;
        (d, Some(extra))
    } else {
        (KernelDescriptor::parse(bytes, cx.family).map_err(short)?, None)
    };
    let entry_address = entry(cx, &name, address, descriptor.kernel_code_entry_byte_offset)?;
    let wave_size = match &amd_kernel_code {
        Some(c) => u32::try_from(c.wavefront_size).unwrap_or(0),
        None => descriptor.wave_size(cx.family),
    };
    if let Some(m) = &metadata {
        check_kernarg(&name, &m.kernarg)?;
    }
    Ok(Kernel {
        name,
        symbol: sym.name.clone(),
        descriptor_address: address,
        entry_address,
        wave_size,
        registers: RegisterCounts::decode(&descriptor, cx.family, wave_size),
        initial_sgprs: InitialSgprs::from_descriptor(&descriptor),
        descriptor,
        amd_kernel_code,
        metadata,
    })
}

/// `descriptor + offset`, which must be inside an executable section.
fn entry(cx: &Context, name: &str, descriptor: u64, offset: i64) -> Result<u64, LoadError> {
    let entry =
        descriptor.checked_add_signed(offset).ok_or_else(|| LoadError::kernel(name, format!("entry offset {offset:#x} from {descriptor:#x} overflows")))?;
    let executable = cx.image.section_at(entry).and_then(|s| cx.image.sections.get(s)).is_some_and(|s| s.executable);
    if !executable {
        return Err(LoadError::kernel(
            name,
            format!("entry {entry:#x} (descriptor {descriptor:#x} + KERNEL_CODE_ENTRY_BYTE_OFFSET {offset:#x}) is not in an executable section"),
        ));
    }
    Ok(entry)
}

/// Every argument must fit in the segment.
fn check_kernarg(name: &str, k: &KernargLayout) -> Result<(), LoadError> {
    for (i, a) in k.args.iter().enumerate() {
        let fits = a.offset.checked_add(a.size).is_some_and(|end| end <= k.segment_size);
        if !fits {
            return Err(LoadError::kernel(
                name,
                format!("kernarg {i} (offset {}, size {}) does not fit in kernarg_segment_size {}", a.offset, a.size, k.segment_size),
            ));
        }
    }
    Ok(())
}
