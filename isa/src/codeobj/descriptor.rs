//! The 64-byte kernel descriptor of code object v3 and later (AMDGPUUsage, "Kernel Descriptor",
//! table "Code Object V3 Kernel Descriptor"), and the fields it shares with the v2
//! `amd_kernel_code_t` ([`super::kernel_code`]), which is converted into the same struct.

use super::bytes::{bit, bits, Short};
use super::rsrc::{Rsrc1, Rsrc2, Rsrc3};
use crate::target::Family;
use object::endian::{LittleEndian as LE, I64, U16, U32};
use object::pod::Pod;
use serde::Serialize;

/// Size of a kernel descriptor in bytes.
pub const KERNEL_DESCRIPTOR_SIZE: usize = 64;

/// The descriptor as it lies in the code object (AMDGPUUsage, table "Code Object V3 Kernel
/// Descriptor": bit ranges 0..511), read in one piece through `object`'s plain-data view.
/// Every field is a little-endian byte array, so the struct has no padding and alignment 1.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct RawKernelDescriptor {
    group_segment_fixed_size: U32<LE>,
    private_segment_fixed_size: U32<LE>,
    kernarg_size: U32<LE>,
    reserved_96: [u8; 4],
    kernel_code_entry_byte_offset: I64<LE>,
    reserved_192: [u8; 20],
    compute_pgm_rsrc3: U32<LE>,
    compute_pgm_rsrc1: U32<LE>,
    compute_pgm_rsrc2: U32<LE>,
    kernel_code_properties: U16<LE>,
    kernarg_preload: U16<LE>,
    reserved_480: [u8; 4],
}

// SAFETY: `repr(C)`, every field an array of `u8` (alignment 1, no padding: the size check
// below), and every bit pattern is a valid value.
unsafe impl Pod for RawKernelDescriptor {}
const _: () = assert!(std::mem::size_of::<RawKernelDescriptor>() == KERNEL_DESCRIPTOR_SIZE);

/// Bits 448..463 of the descriptor: which user SGPRs the CP sets up, and two mode bits.
/// The low bits have the same positions in the v2 `amd_kernel_code_t.code_properties`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct KernelCodeProperties {
    pub raw: u16,
    pub enable_sgpr_private_segment_buffer: bool,
    pub enable_sgpr_dispatch_ptr: bool,
    pub enable_sgpr_queue_ptr: bool,
    pub enable_sgpr_kernarg_segment_ptr: bool,
    pub enable_sgpr_dispatch_id: bool,
    pub enable_sgpr_flat_scratch_init: bool,
    pub enable_sgpr_private_segment_size: bool,
    /// GFX10+: run in wave32.
    pub enable_wavefront_size32: bool,
    /// Code object v5+: the code uses a dynamically sized stack.
    pub uses_dynamic_stack: bool,
}

impl KernelCodeProperties {
    pub fn decode(raw: u16) -> KernelCodeProperties {
        let r = u32::from(raw);
        KernelCodeProperties {
            raw,
            enable_sgpr_private_segment_buffer: bit(r, 0),
            enable_sgpr_dispatch_ptr: bit(r, 1),
            enable_sgpr_queue_ptr: bit(r, 2),
            enable_sgpr_kernarg_segment_ptr: bit(r, 3),
            enable_sgpr_dispatch_id: bit(r, 4),
            enable_sgpr_flat_scratch_init: bit(r, 5),
            enable_sgpr_private_segment_size: bit(r, 6),
            enable_wavefront_size32: bit(r, 10),
            uses_dynamic_stack: bit(r, 11),
        }
    }
}

/// `KERNARG_PRELOAD_SPEC_*` (GFX90A/GFX940): kernarg dwords preloaded into user SGPRs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct KernargPreload {
    pub length_dwords: u32,
    pub offset_dwords: u32,
}

/// The descriptor fields common to the v3+ kernel descriptor and the v2 `amd_kernel_code_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct KernelDescriptor {
    pub group_segment_fixed_size: u32,
    pub private_segment_fixed_size: u32,
    /// `KERNARG_SIZE` (a 64-bit field in `amd_kernel_code_t`).
    pub kernarg_size: u64,
    /// From the descriptor (or `amd_kernel_code_t`) address to the first instruction, after
    /// relocation.
    pub kernel_code_entry_byte_offset: i64,
    pub compute_pgm_rsrc1: Rsrc1,
    pub compute_pgm_rsrc2: Rsrc2,
    pub compute_pgm_rsrc3: Rsrc3,
    pub kernel_code_properties: KernelCodeProperties,
    pub kernarg_preload: KernargPreload,
}

impl KernelDescriptor {
    /// Decode a v3+ kernel descriptor; `kd` must be the (relocated) 64 bytes.
    pub fn parse(kd: &[u8], family: Family) -> Result<KernelDescriptor, Short> {
        let (raw, _) = object::pod::from_bytes::<RawKernelDescriptor>(kd).map_err(|()| Short { field: "kernel descriptor", offset: 0, len: kd.len() })?;
        let preload = u32::from(raw.kernarg_preload.get(LE));
        Ok(KernelDescriptor {
            group_segment_fixed_size: raw.group_segment_fixed_size.get(LE),
            private_segment_fixed_size: raw.private_segment_fixed_size.get(LE),
            kernarg_size: u64::from(raw.kernarg_size.get(LE)),
            kernel_code_entry_byte_offset: raw.kernel_code_entry_byte_offset.get(LE),
            compute_pgm_rsrc1: Rsrc1::decode(raw.compute_pgm_rsrc1.get(LE), family),
            compute_pgm_rsrc2: Rsrc2::decode(raw.compute_pgm_rsrc2.get(LE)),
            compute_pgm_rsrc3: Rsrc3::decode(raw.compute_pgm_rsrc3.get(LE), family),
            kernel_code_properties: KernelCodeProperties::decode(raw.kernel_code_properties.get(LE)),
            kernarg_preload: KernargPreload { length_dwords: bits(preload, 6, 0), offset_dwords: bits(preload, 15, 7) },
        })
    }

    /// Wave size the kernel runs with: wave32 only if the family supports it and the descriptor
    /// asks for it (AMDGPUUsage: `ENABLE_WAVEFRONT_SIZE32` is reserved on GFX6-GFX9).
    pub fn wave_size(&self, family: Family) -> u32 {
        if family.is_rdna() && self.kernel_code_properties.enable_wavefront_size32 {
            32
        } else {
            64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fields_at_documented_offsets() {
        let mut kd = [0u8; 64];
        kd[0..4].copy_from_slice(&1024u32.to_le_bytes());
        kd[8..12].copy_from_slice(&296u32.to_le_bytes());
        kd[16..24].copy_from_slice(&(-0x100i64).to_le_bytes());
        kd[48..52].copy_from_slice(&0x60af_0080u32.to_le_bytes());
        kd[52..56].copy_from_slice(&0x9eu32.to_le_bytes());
        kd[56..58].copy_from_slice(&0x0408u16.to_le_bytes());
        kd[58..60].copy_from_slice(&((3u16 << 7) | 2).to_le_bytes());
        let d = KernelDescriptor::parse(&kd, Family::Gfx11).unwrap();
        assert_eq!(d.group_segment_fixed_size, 1024);
        assert_eq!(d.kernarg_size, 296);
        assert_eq!(d.kernel_code_entry_byte_offset, -0x100);
        assert!(d.kernel_code_properties.enable_sgpr_kernarg_segment_ptr);
        assert!(d.kernel_code_properties.enable_wavefront_size32);
        assert_eq!(d.wave_size(Family::Gfx11), 32);
        assert_eq!(d.wave_size(Family::Gfx9), 64);
        assert_eq!(d.kernarg_preload, KernargPreload { length_dwords: 2, offset_dwords: 3 });
        assert!(KernelDescriptor::parse(&kd[..60], Family::Gfx11).is_err());
    }
}
