//! Code object v2: the 256-byte `amd_kernel_code_t` header that sits at the kernel symbol, in
//! front of the machine code (AMDGPUUsage, ".amd_kernel_code_t" in "Code Object V2 Example
//! Source Code" names the fields; the layout is the documented AMD HSA ABI struct, whose
//! `compute_pgm_resource_registers` is `COMPUTE_PGM_RSRC1` in the low and `COMPUTE_PGM_RSRC2` in
//! the high 32 bits, and whose code-property low bits equal the v3 `kernel_code_properties`).

use super::bytes::{self, bit, bits, Short};
use super::descriptor::{KernargPreload, KernelCodeProperties, KernelDescriptor};
use super::rsrc::{Rsrc1, Rsrc2, Rsrc3};
use crate::target::Family;
use serde::Serialize;

/// Size of `amd_kernel_code_t` in bytes.
pub const AMD_KERNEL_CODE_SIZE: usize = 256;

/// The v2-only fields of `amd_kernel_code_t` (the shared ones go to [`KernelDescriptor`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AmdKernelCode {
    pub amd_kernel_code_version_major: u32,
    pub amd_kernel_code_version_minor: u32,
    pub amd_machine_kind: u16,
    /// Machine version (`major.minor.stepping`, e.g. 8.0.3 for gfx803).
    pub amd_machine_version: [u16; 3],
    pub kernel_code_prefetch_byte_offset: i64,
    pub kernel_code_prefetch_byte_size: u64,
    /// The whole 32-bit `code_properties` word.
    pub code_properties: u32,
    pub enable_sgpr_grid_workgroup_count: [bool; 3],
    pub enable_ordered_append_gds: bool,
    /// `PRIVATE_ELEMENT_SIZE` field value (0: 2 bytes, 1: 4, 2: 8, 3: 16).
    pub private_element_size: u32,
    pub is_ptr64: bool,
    pub is_dynamic_callstack: bool,
    pub is_debug_enabled: bool,
    pub is_xnack_enabled: bool,
    pub gds_segment_byte_size: u32,
    pub workgroup_fbarrier_count: u32,
    pub wavefront_sgpr_count: u16,
    pub workitem_vgpr_count: u16,
    pub reserved_vgpr_first: u16,
    pub reserved_vgpr_count: u16,
    pub reserved_sgpr_first: u16,
    pub reserved_sgpr_count: u16,
    /// Alignments are log2 values in the struct; these are the byte values.
    pub kernarg_segment_alignment: u64,
    pub group_segment_alignment: u64,
    pub private_segment_alignment: u64,
    /// Wave size in lanes (the struct stores log2).
    pub wavefront_size: u64,
    pub call_convention: i32,
    pub runtime_loader_kernel_symbol: u64,
}

/// Byte offsets inside `amd_kernel_code_t`.
mod off {
    pub const VERSION_MAJOR: usize = 0;
    pub const VERSION_MINOR: usize = 4;
    pub const MACHINE_KIND: usize = 8;
    pub const MACHINE_VERSION: usize = 10;
    pub const ENTRY_BYTE_OFFSET: usize = 16;
    pub const PREFETCH_BYTE_OFFSET: usize = 24;
    pub const PREFETCH_BYTE_SIZE: usize = 32;
    pub const PGM_RESOURCE_REGISTERS: usize = 48;
    pub const CODE_PROPERTIES: usize = 56;
    pub const PRIVATE_SEGMENT_SIZE: usize = 60;
    pub const GROUP_SEGMENT_SIZE: usize = 64;
    pub const GDS_SEGMENT_SIZE: usize = 68;
    pub const KERNARG_SEGMENT_SIZE: usize = 72;
    pub const FBARRIER_COUNT: usize = 80;
    pub const SGPR_COUNT: usize = 84;
    pub const VGPR_COUNT: usize = 86;
    pub const RESERVED_REGS: usize = 88;
    pub const ALIGNMENTS: usize = 100;
    pub const CALL_CONVENTION: usize = 104;
    pub const RUNTIME_LOADER_SYMBOL: usize = 120;
}

/// `2^log2`, saturating for nonsense exponents from a damaged file.
fn pow2(log2: u8) -> u64 {
    1u64.checked_shl(u32::from(log2)).unwrap_or(0)
}

/// Decode `amd_kernel_code_t` into the shared descriptor fields plus the v2-only ones.
pub fn parse(h: &[u8], family: Family) -> Result<(KernelDescriptor, AmdKernelCode), Short> {
    if h.len() < AMD_KERNEL_CODE_SIZE {
        return Err(Short { field: "amd_kernel_code_t", offset: 0, len: h.len() });
    }
    let u16_at = |o, f| bytes::u16_at(h, o, f);
    let u32_at = |o, f| bytes::u32_at(h, o, f);
    let pgm = bytes::u64_at(h, off::PGM_RESOURCE_REGISTERS, "compute_pgm_resource_registers")?;
    let props = u32_at(off::CODE_PROPERTIES, "code_properties")?;
    let align = bytes::array::<4>(h, off::ALIGNMENTS, "segment alignments")?;
    let desc = KernelDescriptor {
        group_segment_fixed_size: u32_at(off::GROUP_SEGMENT_SIZE, "workgroup_group_segment_byte_size")?,
        private_segment_fixed_size: u32_at(off::PRIVATE_SEGMENT_SIZE, "workitem_private_segment_byte_size")?,
        kernarg_size: bytes::u64_at(h, off::KERNARG_SEGMENT_SIZE, "kernarg_segment_byte_size")?,
        kernel_code_entry_byte_offset: bytes::i64_at(h, off::ENTRY_BYTE_OFFSET, "kernel_code_entry_byte_offset")?,
        compute_pgm_rsrc1: Rsrc1::decode(pgm as u32, family),
        compute_pgm_rsrc2: Rsrc2::decode((pgm >> 32) as u32),
        compute_pgm_rsrc3: Rsrc3::Reserved { raw: 0 },
        kernel_code_properties: KernelCodeProperties::decode(props as u16),
        kernarg_preload: KernargPreload::default(),
    };
    let extra = AmdKernelCode {
        amd_kernel_code_version_major: u32_at(off::VERSION_MAJOR, "amd_kernel_code_version_major")?,
        amd_kernel_code_version_minor: u32_at(off::VERSION_MINOR, "amd_kernel_code_version_minor")?,
        amd_machine_kind: u16_at(off::MACHINE_KIND, "amd_machine_kind")?,
        amd_machine_version: [
            u16_at(off::MACHINE_VERSION, "amd_machine_version_major")?,
            u16_at(off::MACHINE_VERSION + 2, "amd_machine_version_minor")?,
            u16_at(off::MACHINE_VERSION + 4, "amd_machine_version_stepping")?,
        ],
        kernel_code_prefetch_byte_offset: bytes::i64_at(h, off::PREFETCH_BYTE_OFFSET, "kernel_code_prefetch_byte_offset")?,
        kernel_code_prefetch_byte_size: bytes::u64_at(h, off::PREFETCH_BYTE_SIZE, "kernel_code_prefetch_byte_size")?,
        code_properties: props,
        enable_sgpr_grid_workgroup_count: [bit(props, 7), bit(props, 8), bit(props, 9)],
        enable_ordered_append_gds: bit(props, 16),
        private_element_size: bits(props, 18, 17),
        is_ptr64: bit(props, 19),
        is_dynamic_callstack: bit(props, 20),
        is_debug_enabled: bit(props, 21),
        is_xnack_enabled: bit(props, 22),
        gds_segment_byte_size: u32_at(off::GDS_SEGMENT_SIZE, "gds_segment_byte_size")?,
        workgroup_fbarrier_count: u32_at(off::FBARRIER_COUNT, "workgroup_fbarrier_count")?,
        wavefront_sgpr_count: u16_at(off::SGPR_COUNT, "wavefront_sgpr_count")?,
        workitem_vgpr_count: u16_at(off::VGPR_COUNT, "workitem_vgpr_count")?,
        reserved_vgpr_first: u16_at(off::RESERVED_REGS, "reserved_vgpr_first")?,
        reserved_vgpr_count: u16_at(off::RESERVED_REGS + 2, "reserved_vgpr_count")?,
        reserved_sgpr_first: u16_at(off::RESERVED_REGS + 4, "reserved_sgpr_first")?,
        reserved_sgpr_count: u16_at(off::RESERVED_REGS + 6, "reserved_sgpr_count")?,
        kernarg_segment_alignment: pow2(align[0]),
        group_segment_alignment: pow2(align[1]),
        private_segment_alignment: pow2(align[2]),
        wavefront_size: pow2(align[3]),
        call_convention: u32_at(off::CALL_CONVENTION, "call_convention")? as i32,
        runtime_loader_kernel_symbol: bytes::u64_at(h, off::RUNTIME_LOADER_SYMBOL, "runtime_loader_kernel_symbol")?,
    };
    Ok((desc, extra))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_synthetic_header() {
        let mut h = [0u8; AMD_KERNEL_CODE_SIZE];
        h[0] = 1;
        h[4] = 2;
        h[8] = 1;
        h[10..16].copy_from_slice(&[8, 0, 0, 0, 3, 0]);
        h[16..24].copy_from_slice(&256i64.to_le_bytes());
        h[48..56].copy_from_slice(&0x0000_0090_00ac_0082u64.to_le_bytes());
        h[56..60].copy_from_slice(&0x000a_000bu32.to_le_bytes());
        h[72..80].copy_from_slice(&96u64.to_le_bytes());
        h[84..88].copy_from_slice(&[22, 0, 10, 0]);
        h[100..104].copy_from_slice(&[4, 4, 4, 6]);
        h[104..108].copy_from_slice(&(-1i32).to_le_bytes());
        let (d, x) = parse(&h, Family::Gfx8).unwrap();
        assert_eq!(d.kernel_code_entry_byte_offset, 256);
        assert_eq!(d.kernarg_size, 96);
        assert_eq!(d.compute_pgm_rsrc1.raw, 0x00ac_0082);
        assert_eq!(d.compute_pgm_rsrc2.raw, 0x90);
        assert!(d.kernel_code_properties.enable_sgpr_kernarg_segment_ptr);
        assert!(x.is_ptr64);
        assert_eq!(x.private_element_size, 1);
        assert_eq!(x.amd_machine_version, [8, 0, 3]);
        assert_eq!((x.wavefront_sgpr_count, x.workitem_vgpr_count), (22, 10));
        assert_eq!((x.kernarg_segment_alignment, x.wavefront_size), (16, 64));
        assert_eq!(x.call_convention, -1);
        assert!(parse(&h[..200], Family::Gfx8).is_err());
    }
}
