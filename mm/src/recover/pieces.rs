//! Machine code as the recogniser reads it: the instructions that take part in the memory
//! model (vector and LDS accesses, cache maintenance, barriers, waits), each with what matters
//! to the memory model, and the places where straight-line code ends.

use crate::wait::{Counter, Wait};
use hipscope_isa::decode::{CachePolicy, Inst};
use hipscope_isa::tables::{flags, OpName};
use hipscope_isa::Family;

/// What an access does to its location.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Load,
    Store,
    /// A read-modify-write; `returns`: the old value comes back (the "return" form).
    Rmw {
        returns: bool,
    },
}

/// Which memory an access instruction addresses, as far as its encoding says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Where {
    /// `global_*`, `buffer_*`, and `flat_*` (a flat address may also be LDS or scratch; the
    /// compiler uses flat for global memory on GFX8 and for generic pointers).
    Global,
    /// `ds_*`.
    Lds,
}

/// One memory-model instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    Access {
        kind: Kind,
        place: Where,
        mnemonic: &'static str,
        cpol: CachePolicy,
    },
    /// Cache maintenance (`buffer_wbl2`, `buffer_inv`, `buffer_gl0_inv`, `global_wb`, ...).
    Maint {
        mnemonic: &'static str,
        cpol: CachePolicy,
    },
    Barrier {
        mnemonic: &'static str,
    },
    Wait(Wait),
    /// Straight-line code ends here (a branch, a branch target, the end of the program): no
    /// sequence is read across it.
    Break,
}

/// Whether instruction flags mark vector cache maintenance (`buffer_wbl2`, `buffer_inv`,
/// `buffer_gl0_inv`, `global_wb`, ...; ISA manuals, AMDGPUUsage memory-model tables), not the
/// scalar cache's `s_dcache_*`.
pub(super) fn is_vector_maintenance(f: u64) -> bool {
    f & (flags::CACHE_INV | flags::CACHE_WB) != 0 && f & flags::SMRD == 0
}

/// The piece an instruction is, or `None` when it plays no part in the memory model (ALU,
/// scalar memory, scratch, register moves; they neither order nor are ordered here).
pub fn piece_of(inst: &Inst, family: Family) -> Option<Piece> {
    let m = inst.mnemonic();
    if let Some(w) = Wait::of_inst(inst, family) {
        return Some(Piece::Wait(w));
    }
    if is_vector_maintenance(inst.row.flags) {
        return Some(Piece::Maint { mnemonic: m, cpol: inst.cache_policy() });
    }
    if inst.has(flags::WG_BARRIER) {
        return Some(Piece::Barrier { mnemonic: m });
    }
    // Branches (`s_setpc` too), calls (`s_swappc`, `s_call`), program ends (`s_endpgm*`).
    if inst.has(flags::ISBRANCH | flags::ISCALL | flags::ISRETURN) {
        return Some(Piece::Break);
    }
    let place = if inst.has(flags::DS) {
        // GWS and the lane moves that touch no LDS (`ds_swizzle_b32`, `ds_permute_b32`, `ds_nop`).
        if inst.has(flags::GWS) || !inst.has(flags::MAYLOAD | flags::MAYSTORE) {
            return None;
        }
        Where::Lds
    } else if inst.has(flags::FLATSCRATCH) {
        return None;
    } else if inst.has(flags::FLAT | flags::MUBUF | flags::MTBUF) {
        Where::Global
    } else {
        return None;
    };
    let kind = if place == Where::Lds {
        lds_kind(inst)
    } else if inst.has(flags::ISATOMICRET) {
        Kind::Rmw { returns: true }
    } else if inst.has(flags::ISATOMICNORET) {
        Kind::Rmw { returns: false }
    } else if inst.has(flags::MAYSTORE) {
        Kind::Store
    } else if inst.has(flags::MAYLOAD) {
        Kind::Load
    } else {
        return None;
    };
    Some(Piece::Access { kind, place, mnemonic: m, cpol: inst.cache_policy() })
}

/// An LDS instruction's kind. The tables mark plain DS writes as non-returning atomics, so the
/// atomic flags cannot tell `ds_write_b32` from `ds_add_u32`; whether it loads, stores or both
/// can. A read-modify-write returns when the tables say so or when it writes a VGPR (the
/// returning forms they do not mark: `ds_wrxchg2_rtn_b32`, `ds_bvh_stack_rtn_b32`, `ds_append`).
fn lds_kind(inst: &Inst) -> Kind {
    match (inst.has(flags::MAYLOAD), inst.has(flags::MAYSTORE)) {
        (false, _) => Kind::Store,
        (true, false) => Kind::Load,
        (true, true) => Kind::Rmw { returns: inst.has(flags::ISATOMICRET) || inst.row.operand_index(OpName::vdst).is_some() },
    }
}

/// The cache-policy bits that carry memory-model meaning on `family`, for an access of
/// `kind`: coherence (glc, dlc, scc / sc0, sc1 / GFX12 scope) and an atomic's return bit;
/// not the streaming hints (slc, nt, a load's or store's GFX12 temporal hint).
pub fn coherence_bits(family: Family, kind: Kind, cpol: CachePolicy) -> u32 {
    let c = cpol.0;
    match family {
        Family::Gfx12 => {
            let scope = c & (3 << 3);
            let ret = if matches!(kind, Kind::Rmw { .. }) { c & 1 } else { 0 };
            scope | ret
        }
        Family::Gfx940 | Family::Gfx90a => c & (CachePolicy::GLC | CachePolicy::SCC),
        // GFX11 uses dlc as a streaming hint (a non-temporal load is `slc dlc`); the memory
        // model sets glc only ("If GFX11, omit dlc").
        Family::Gfx11 => c & CachePolicy::GLC,
        Family::Gfx10 => c & (CachePolicy::GLC | CachePolicy::DLC),
        Family::Gfx8 | Family::Gfx9 => c & CachePolicy::GLC,
    }
}

/// The counter an access is counted by until it completes (ISA manuals, "Data dependency
/// resolution"): GFX6-9 count every vector access in vmcnt; GFX10/11 count stores and
/// non-returning atomics in vscnt; GFX12 splits loads and stores; LDS is lgkmcnt / dscnt.
pub fn counter_of(family: Family, kind: Kind, place: Where) -> Counter {
    let stores = matches!(kind, Kind::Store | Kind::Rmw { returns: false });
    match (place, family) {
        (Where::Lds, Family::Gfx12) => Counter::Ds,
        (Where::Lds, _) => Counter::Lgkm,
        (Where::Global, Family::Gfx12) => {
            if stores {
                Counter::Store
            } else {
                Counter::Load
            }
        }
        (Where::Global, Family::Gfx10 | Family::Gfx11) if stores => Counter::Vs,
        (Where::Global, _) => Counter::Vm,
    }
}

/// The counter a cache writeback is counted by (the release waits for it after it): GFX90A
/// and GFX942 `buffer_wbl2` in vmcnt, GFX12 `global_wb` in storecnt; the other maintenance
/// instructions complete before the next instruction.
pub fn maintenance_counter(family: Family, mnemonic: &str) -> Option<Counter> {
    match (family, mnemonic) {
        (Family::Gfx90a | Family::Gfx940, "buffer_wbl2") => Some(Counter::Vm),
        (Family::Gfx12, "global_wb") => Some(Counter::Store),
        _ => None,
    }
}
