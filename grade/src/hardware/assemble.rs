//! Layout and encoding of a generated kernel: label addresses, branch offsets, the bytes,
//! the listing a teaching assistant reads, and the kernel descriptor the dispatcher needs.

use super::codegen::{Item, Kernel};
use hipscope_isa::codeobj::KernelDescriptor;
use hipscope_isa::decode::{Decoder, EncodeError, Operand};
use hipscope_isa::tables::OpName;
use hipscope_isa::{Family, Processor};

/// Where the code is placed (any address: the engine runs decoded code, and nothing reads
/// the code as data).
pub const ENTRY: u64 = 0x10_0000;

/// One listed instruction: the thread and source line it belongs to (`None`: the shared
/// prologue), its address and text as `llvm-objdump-19` would print it.
#[derive(Debug, Clone)]
pub struct Listed {
    pub thread: Option<usize>,
    /// Part of a statement's lowered sequence (not the kernel's bookkeeping).
    pub lowered: bool,
    pub line: u32,
    pub address: u64,
    pub text: String,
    /// The instruction's `hipscope_isa::tables::flags`.
    pub flags: u64,
}

#[derive(Debug, Clone)]
pub struct Assembled {
    pub code: Vec<u8>,
    pub listing: Vec<Listed>,
}

/// Encode every item at its address; branches are patched once every label has one.
pub fn assemble(kernel: &Kernel, processor: Processor, wave64: bool) -> Result<Assembled, EncodeError> {
    let decoder = Decoder::new(processor, wave64);
    // Pass 1: sizes (a branch is one 32-bit SOPP word).
    let mut labels = vec![0u64; kernel.items.len()];
    let mut address = ENTRY;
    for item in &kernel.items {
        match item {
            Item::Label(l) => {
                if *l >= labels.len() {
                    labels.resize(l + 1, 0);
                }
                labels[*l] = address;
            }
            Item::Branch { .. } => address += 4,
            Item::Inst { names, ops, .. } => address += encode(&decoder, names, ops, address)?.bytes.len() as u64,
        }
    }
    // Pass 2: bytes and listing.
    let mut code = Vec::new();
    let mut listing = Vec::new();
    let (mut thread, mut line) = (None, 0);
    for item in &kernel.items {
        let address = ENTRY + code.len() as u64;
        let (e, lowered) = match item {
            Item::Label(_) => continue,
            Item::Branch { name, label } => {
                // SOPP simm16: signed dword offset from the next instruction.
                let offset = (labels[*label] as i64 - (address as i64 + 4)) / 4;
                (decoder.encode(&[name], &[(OpName::simm16, Operand::Imm(offset))], address)?, false)
            }
            Item::Inst { names, ops, thread: t, line: l, lowered } => {
                (thread, line) = (*t, *l);
                (encode(&decoder, names, ops, address)?, *lowered)
            }
        };
        listing.push(Listed { thread, lowered, line, address, text: hipscope_isa::print::format_inst(&e.inst, decoder.ctx()), flags: e.inst.row.flags });
        code.extend_from_slice(&e.bytes);
    }
    Ok(Assembled { code, listing })
}

fn encode(decoder: &Decoder, names: &[String], ops: &[(OpName, Operand)], address: u64) -> Result<hipscope_isa::decode::Encoded, EncodeError> {
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    decoder.encode(&names, ops, address)
}

/// The kernel descriptor (AMDGPUUsage, "Kernel Descriptor" and the `COMPUTE_PGM_RSRC*`
/// tables): user SGPRs s[0:1] = kernarg segment pointer, system SGPR s2 = work-group id X,
/// v0 = work-item id X; `vgprs` VGPRs; wave32 on RDNA unless `wave64`; WGP mode (RDNA) and
/// tgsplit (GFX90A/GFX942) as the build asks.
pub fn descriptor(processor: Processor, wave64: bool, wgp_mode: bool, tgsplit: bool, vgprs: u32, kernarg_bytes: u32, lds_bytes: u32) -> KernelDescriptor {
    let family = processor.family();
    let rdna = family.is_rdna();
    // VGPR allocation granule: 8 registers on GFX90A/GFX940 and RDNA wave32, 4 otherwise.
    let granule = if matches!(family, Family::Gfx90a | Family::Gfx940) || (rdna && !wave64) { 8 } else { 4 };
    let mut rsrc1 = (vgprs.div_ceil(granule).max(1) - 1) & 0x3f;
    // GRANULATED_WAVEFRONT_SGPR_COUNT: 112 SGPRs in granules of 8, encoded as 112/8 - 1
    // (ignored on GFX10+, where every wave has its full SGPR file).
    rsrc1 |= 13 << 6;
    if rdna {
        // MEM_ORDERED (clang sets it on GFX10+) and WGP_MODE.
        rsrc1 |= 1 << 30;
        if wgp_mode {
            rsrc1 |= 1 << 29;
        }
    }
    // USER_SGPR_COUNT = 2 (the kernarg pointer), ENABLE_SGPR_WORKGROUP_ID_X.
    let rsrc2: u32 = (2 << 1) | (1 << 7);
    let rsrc3 = match family {
        // ACCUM_OFFSET: AGPRs start after the VGPRs, in units of 4; TG_SPLIT bit 16.
        Family::Gfx90a | Family::Gfx940 => ((vgprs.div_ceil(4).max(1) - 1) & 0x3f) | if tgsplit { 1 << 16 } else { 0 },
        _ => 0,
    };
    // ENABLE_SGPR_KERNARG_SEGMENT_PTR (bit 3), ENABLE_WAVEFRONT_SIZE32 (bit 10).
    let properties: u16 = (1 << 3) | if rdna && !wave64 { 1 << 10 } else { 0 };
    let mut kd = [0u8; 64];
    // GROUP_SEGMENT_FIXED_SIZE: the LDS a work-group needs.
    kd[0..4].copy_from_slice(&lds_bytes.to_le_bytes());
    kd[8..12].copy_from_slice(&kernarg_bytes.to_le_bytes());
    kd[44..48].copy_from_slice(&rsrc3.to_le_bytes());
    kd[48..52].copy_from_slice(&rsrc1.to_le_bytes());
    kd[52..56].copy_from_slice(&rsrc2.to_le_bytes());
    kd[56..58].copy_from_slice(&properties.to_le_bytes());
    // 64 bytes were given: parsing cannot fail.
    KernelDescriptor::parse(&kd, family).unwrap_or_else(|_| unreachable!("a full 64-byte descriptor"))
}
