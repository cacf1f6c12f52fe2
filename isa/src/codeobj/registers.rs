//! Register allocation decoded from the descriptor granules (AMDGPUUsage, table
//! "compute_pgm_rsrc1 for GFX6-GFX12": `GRANULATED_WORKITEM_VGPR_COUNT` and
//! `GRANULATED_WAVEFRONT_SGPR_COUNT`; "compute_pgm_rsrc3 for GFX90A, GFX940": `ACCUM_OFFSET`).

use super::descriptor::KernelDescriptor;
use super::rsrc::Rsrc3;
use crate::target::Family;
use serde::Serialize;

/// SGPRs every wave gets on GFX10+, where the SGPR granule field is reserved.
pub const GFX10_SGPRS: u32 = 128;

/// Registers the hardware allocates for one work-item (VGPRs) or wave (SGPRs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RegisterCounts {
    /// VGPRs allocated: `(granule field + 1) * granule`. On GFX90A/GFX940 this is the unified
    /// file (arch VGPRs, aligned to 4, then AGPRs).
    pub vgprs: u32,
    /// VGPR allocation granule: 4 (GFX6-GFX9, GFX10+ wave64) or 8 (GFX90A/GFX940, GFX10+ wave32).
    pub vgpr_granule: u32,
    /// GFX90A/GFX940: the first AGPR, `(ACCUM_OFFSET + 1) * 4`; the arch VGPRs end there.
    pub accum_offset: Option<u32>,
    /// GFX90A/GFX940: room for AGPRs, `vgprs - accum_offset` (0 if the offset is past the end).
    /// An upper bound: it includes the rounding of `vgprs` to the granule.
    pub agprs_allocated: Option<u32>,
    /// SGPRs allocated. GFX6-GFX8: `(field + 1) * 8`; GFX9: `(field / 2 + 1) * 16`; GFX10+:
    /// always 128 (the field is reserved, though LLVM 19 still fills it in).
    pub sgprs: u32,
    /// SGPR granule, `None` on GFX10+.
    pub sgpr_granule: Option<u32>,
}

impl RegisterCounts {
    pub fn decode(d: &KernelDescriptor, family: Family, wave_size: u32) -> RegisterCounts {
        let vgpr_granule = match family {
            Family::Gfx8 | Family::Gfx9 => 4,
            Family::Gfx90a | Family::Gfx940 => 8,
            _ if wave_size == 32 => 8,
            _ => 4,
        };
        let vgprs = (d.compute_pgm_rsrc1.granulated_workitem_vgpr_count + 1) * vgpr_granule;
        let accum_offset = match d.compute_pgm_rsrc3 {
            Rsrc3::Gfx90a { accum_offset, .. } => Some((accum_offset + 1) * 4),
            _ => None,
        };
        let sgpr_field = d.compute_pgm_rsrc1.granulated_wavefront_sgpr_count;
        let (sgprs, sgpr_granule) = match family {
            Family::Gfx8 => ((sgpr_field + 1) * 8, Some(8)),
            Family::Gfx9 | Family::Gfx90a | Family::Gfx940 => ((sgpr_field / 2 + 1) * 16, Some(16)),
            _ => (GFX10_SGPRS, None),
        };
        RegisterCounts { vgprs, vgpr_granule, accum_offset, agprs_allocated: accum_offset.map(|a| vgprs.saturating_sub(a)), sgprs, sgpr_granule }
    }
}
