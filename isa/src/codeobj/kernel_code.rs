//! Code object v2: the 256-byte `amd_kernel_code_t` header that sits at the kernel symbol, in
//! front of the machine code (AMDGPUUsage, ".amd_kernel_code_t" in "Code Object V2 Example
//! Source Code" names the fields; the layout is the documented AMD HSA ABI struct, whose
//! `compute_pgm_resource_registers` is `COMPUTE_PGM_RSRC1` in the low and `COMPUTE_PGM_RSRC2` in
//! the high 32 bits, and whose code-property low bits equal the v3 `kernel_code_properties`).

use super::bytes::{bit, bits, Short};
use super::descriptor::{KernargPreload, KernelCodeProperties, KernelDescriptor};
use super::rsrc::{Rsrc1, Rsrc2, Rsrc3};
use crate::target::Family;
use object::endian::{LittleEndian as LE, I32, I64, U16, U32, U64};
use object::pod::Pod;
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

/// `amd_kernel_code_t` as it lies in the code object (the AMD HSA ABI struct; byte offsets in
/// the comments), read in one piece through `object`'s plain-data view. Every field is a
/// little-endian byte array, so the struct has no padding and alignment 1.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct RawKernelCode {
    version_major: U32<LE>,                      // 0
    version_minor: U32<LE>,                      // 4
    machine_kind: U16<LE>,                       // 8
    machine_version: [U16<LE>; 3],               // 10: major, minor, stepping
    kernel_code_entry_byte_offset: I64<LE>,      // 16
    kernel_code_prefetch_byte_offset: I64<LE>,   // 24
    kernel_code_prefetch_byte_size: U64<LE>,     // 32
    reserved_40: [u8; 8],                        // 40
    compute_pgm_resource_registers: U64<LE>,     // 48: RSRC1 low, RSRC2 high
    code_properties: U32<LE>,                    // 56
    workitem_private_segment_byte_size: U32<LE>, // 60
    workgroup_group_segment_byte_size: U32<LE>,  // 64
    gds_segment_byte_size: U32<LE>,              // 68
    kernarg_segment_byte_size: U64<LE>,          // 72
    workgroup_fbarrier_count: U32<LE>,           // 80
    wavefront_sgpr_count: U16<LE>,               // 84
    workitem_vgpr_count: U16<LE>,                // 86
    reserved_vgpr_first: U16<LE>,                // 88
    reserved_vgpr_count: U16<LE>,                // 90
    reserved_sgpr_first: U16<LE>,                // 92
    reserved_sgpr_count: U16<LE>,                // 94
    debug_sgprs: [u8; 4],                        // 96
    /// 100: log2 of the kernarg, group and private segment alignments and of the wave size.
    log2_alignments: [u8; 4],
    call_convention: I32<LE>,              // 104
    reserved_108: [u8; 12],                // 108
    runtime_loader_kernel_symbol: U64<LE>, // 120
    control_directives: [u8; 128],         // 128
}

// SAFETY: `repr(C)`, every field an array of `u8` (alignment 1, no padding: the size check
// below), and every bit pattern is a valid value.
unsafe impl Pod for RawKernelCode {}
const _: () = assert!(std::mem::size_of::<RawKernelCode>() == AMD_KERNEL_CODE_SIZE);

/// `2^log2`, saturating for nonsense exponents from a damaged file.
fn pow2(log2: u8) -> u64 {
    1u64.checked_shl(u32::from(log2)).unwrap_or(0)
}

/// Decode `amd_kernel_code_t` into the shared descriptor fields plus the v2-only ones.
pub fn parse(h: &[u8], family: Family) -> Result<(KernelDescriptor, AmdKernelCode), Short> {
    let (raw, _) = object::pod::from_bytes::<RawKernelCode>(h).map_err(|()| Short { field: "amd_kernel_code_t", offset: 0, len: h.len() })?;
    let pgm = raw.compute_pgm_resource_registers.get(LE);
    let props = raw.code_properties.get(LE);
    let align = raw.log2_alignments;
    let desc = KernelDescriptor {
        group_segment_fixed_size: raw.workgroup_group_segment_byte_size.get(LE),
        private_segment_fixed_size: raw.workitem_private_segment_byte_size.get(LE),
        kernarg_size: raw.kernarg_segment_byte_size.get(LE),
        kernel_code_entry_byte_offset: raw.kernel_code_entry_byte_offset.get(LE),
        compute_pgm_rsrc1: Rsrc1::decode(pgm as u32, family),
        compute_pgm_rsrc2: Rsrc2::decode((pgm >> 32) as u32),
        compute_pgm_rsrc3: Rsrc3::Reserved { raw: 0 },
        kernel_code_properties: KernelCodeProperties::decode(props as u16),
        kernarg_preload: KernargPreload::default(),
    };
    let extra = AmdKernelCode {
        amd_kernel_code_version_major: raw.version_major.get(LE),
        amd_kernel_code_version_minor: raw.version_minor.get(LE),
        amd_machine_kind: raw.machine_kind.get(LE),
        amd_machine_version: raw.machine_version.map(|v| v.get(LE)),
        kernel_code_prefetch_byte_offset: raw.kernel_code_prefetch_byte_offset.get(LE),
        kernel_code_prefetch_byte_size: raw.kernel_code_prefetch_byte_size.get(LE),
        code_properties: props,
        enable_sgpr_grid_workgroup_count: [bit(props, 7), bit(props, 8), bit(props, 9)],
        enable_ordered_append_gds: bit(props, 16),
        private_element_size: bits(props, 18, 17),
        is_ptr64: bit(props, 19),
        is_dynamic_callstack: bit(props, 20),
        is_debug_enabled: bit(props, 21),
        is_xnack_enabled: bit(props, 22),
        gds_segment_byte_size: raw.gds_segment_byte_size.get(LE),
        workgroup_fbarrier_count: raw.workgroup_fbarrier_count.get(LE),
        wavefront_sgpr_count: raw.wavefront_sgpr_count.get(LE),
        workitem_vgpr_count: raw.workitem_vgpr_count.get(LE),
        reserved_vgpr_first: raw.reserved_vgpr_first.get(LE),
        reserved_vgpr_count: raw.reserved_vgpr_count.get(LE),
        reserved_sgpr_first: raw.reserved_sgpr_first.get(LE),
        reserved_sgpr_count: raw.reserved_sgpr_count.get(LE),
        kernarg_segment_alignment: pow2(align[0]),
        group_segment_alignment: pow2(align[1]),
        private_segment_alignment: pow2(align[2]),
        wavefront_size: pow2(align[3]),
        call_convention: raw.call_convention.get(LE),
        runtime_loader_kernel_symbol: raw.runtime_loader_kernel_symbol.get(LE),
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
