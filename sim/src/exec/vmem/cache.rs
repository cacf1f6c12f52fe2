//! Cache-maintenance instructions. Functional mode has no caches, so they are accepted and do
//! nothing; the timing model gives them their effect (shared/notes/memory-model-lowering.md
//! §3.1: `buffer_wbinvl1[_vol]` GFX8/9/90A, `buffer_wbl2` / `buffer_invl2` GFX90A,
//! `buffer_inv` / `buffer_wbl2 sc0 sc1` GFX942, `buffer_gl0_inv` / `buffer_gl1_inv` GFX10/11,
//! `global_inv` / `global_wb` / `global_wbinv` GFX12).

/// Which maintenance operation (scope/policy bits stay in the instruction's `cpol`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheOp {
    /// `buffer_wbinvl1`: write back and invalidate the vector L1.
    WbInvL1,
    /// `buffer_wbinvl1_vol`: invalidate the volatile L1 lines.
    WbInvL1Vol,
    /// `buffer_wbl2`: write back L2 (GFX90A; GFX942 with scope bits).
    WbL2,
    /// `buffer_invl2`: invalidate non-coherent L2 lines (GFX90A).
    InvL2,
    /// `buffer_inv`: invalidate per scope bits (GFX942).
    Inv,
    /// `buffer_gl0_inv`, `buffer_gl1_inv` (GFX10/11).
    Gl0Inv,
    Gl1Inv,
    /// GFX12 `global_inv`, `global_wb`, `global_wbinv` (scope in `cpol`).
    GlobalInv,
    GlobalWb,
    GlobalWbInv,
}

impl CacheOp {
    pub fn parse(name: &str) -> Option<CacheOp> {
        Some(match name {
            "buffer_wbinvl1" => CacheOp::WbInvL1,
            "buffer_wbinvl1_vol" => CacheOp::WbInvL1Vol,
            "buffer_wbl2" => CacheOp::WbL2,
            "buffer_invl2" => CacheOp::InvL2,
            "buffer_inv" => CacheOp::Inv,
            "buffer_gl0_inv" => CacheOp::Gl0Inv,
            "buffer_gl1_inv" => CacheOp::Gl1Inv,
            "global_inv" => CacheOp::GlobalInv,
            "global_wb" => CacheOp::GlobalWb,
            "global_wbinv" => CacheOp::GlobalWbInv,
            _ => return None,
        })
    }
}
