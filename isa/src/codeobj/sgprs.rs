//! Where the CP puts the initial SGPR values (AMDGPUUsage, "Initial Kernel Execution State",
//! table "SGPR Register Set Up Order"): enabled user SGPRs are dense from s0 in a fixed order;
//! the system SGPRs start at `COMPUTE_PGM_RSRC2.USER_SGPR_COUNT`, which may be larger than the
//! enabled user SGPRs (gfx11 pads it to 16, see shared/notes/memory-model-lowering.md §5.4).
//! On GFX12 the work-group ids are delivered in trap temporaries (ttmp9, ttmp7) instead; the
//! list below is what the descriptor enables, placed as the table says.

use super::descriptor::KernelDescriptor;
use serde::Serialize;

/// One initial SGPR value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SgprValue {
    PrivateSegmentBuffer,
    DispatchPtr,
    QueuePtr,
    KernargSegmentPtr,
    DispatchId,
    FlatScratchInit,
    PreloadedKernargs,
    PrivateSegmentSize,
    WorkgroupIdX,
    WorkgroupIdY,
    WorkgroupIdZ,
    WorkgroupInfo,
    ScratchWavefrontOffset,
}

/// `count` SGPRs from `first` hold `value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SgprSlot {
    pub value: SgprValue,
    pub first: u32,
    pub count: u32,
}

/// The initial SGPR layout of a kernel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InitialSgprs {
    pub user: Vec<SgprSlot>,
    /// Sum of the enabled user SGPRs (compare with `USER_SGPR_COUNT`).
    pub user_enabled: u32,
    pub system: Vec<SgprSlot>,
}

impl InitialSgprs {
    pub fn from_descriptor(d: &KernelDescriptor) -> InitialSgprs {
        let p = &d.kernel_code_properties;
        let r = &d.compute_pgm_rsrc2;
        let user = [
            (p.enable_sgpr_private_segment_buffer, SgprValue::PrivateSegmentBuffer, 4),
            (p.enable_sgpr_dispatch_ptr, SgprValue::DispatchPtr, 2),
            (p.enable_sgpr_queue_ptr, SgprValue::QueuePtr, 2),
            (p.enable_sgpr_kernarg_segment_ptr, SgprValue::KernargSegmentPtr, 2),
            (p.enable_sgpr_dispatch_id, SgprValue::DispatchId, 2),
            (p.enable_sgpr_flat_scratch_init, SgprValue::FlatScratchInit, 2),
            (d.kernarg_preload.length_dwords > 0, SgprValue::PreloadedKernargs, d.kernarg_preload.length_dwords),
            (p.enable_sgpr_private_segment_size, SgprValue::PrivateSegmentSize, 1),
        ];
        let system = [
            (r.enable_sgpr_workgroup_id_x, SgprValue::WorkgroupIdX, 1),
            (r.enable_sgpr_workgroup_id_y, SgprValue::WorkgroupIdY, 1),
            (r.enable_sgpr_workgroup_id_z, SgprValue::WorkgroupIdZ, 1),
            (r.enable_sgpr_workgroup_info, SgprValue::WorkgroupInfo, 1),
            (r.enable_private_segment, SgprValue::ScratchWavefrontOffset, 1),
        ];
        let (user, user_enabled) = pack(&user, 0);
        let (system, _) = pack(&system, r.user_sgpr_count);
        InitialSgprs { user, user_enabled, system }
    }
}

/// Place the enabled entries densely from `first`.
fn pack(entries: &[(bool, SgprValue, u32)], first: u32) -> (Vec<SgprSlot>, u32) {
    let mut next = first;
    let mut out = Vec::new();
    for &(enabled, value, count) in entries {
        if enabled {
            out.push(SgprSlot { value, first: next, count });
            next += count;
        }
    }
    (out, next - first)
}
