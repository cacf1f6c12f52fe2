//! Machine code as the recogniser reads it: the instructions that take part in the memory
//! model (vector and LDS accesses, cache maintenance, barriers, waits), each with what matters
//! to the memory model, and the places where straight-line code ends.

use crate::wait::{Counter, Wait};
use hipscope_isa::decode::{CachePolicy, Inst};
use hipscope_isa::tables::flags;
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

/// Mnemonics of the cache-maintenance instructions of every family (ISA manuals; AMDGPUUsage
/// memory-model tables).
pub(super) const MAINTENANCE: &[&str] = &[
    "buffer_wbinvl1",
    "buffer_wbinvl1_vol",
    "buffer_wbinvl1_sc",
    "buffer_wbl2",
    "buffer_invl2",
    "buffer_inv",
    "buffer_gl0_inv",
    "buffer_gl1_inv",
    "global_wb",
    "global_inv",
    "global_wbinv",
];

/// DS instructions that move data between lanes without touching LDS memory.
const DS_NO_MEMORY: &[&str] = &["ds_swizzle_b32", "ds_permute_b32", "ds_bpermute_b32", "ds_bpermute_fi_b32", "ds_nop"];

/// The piece an instruction is, or `None` when it plays no part in the memory model (ALU,
/// scalar memory, scratch, register moves; they neither order nor are ordered here).
pub fn piece_of(inst: &Inst, family: Family) -> Option<Piece> {
    let m = inst.mnemonic();
    if let Some(w) = Wait::of_inst(inst, family) {
        return Some(Piece::Wait(w));
    }
    if MAINTENANCE.contains(&m) {
        return Some(Piece::Maint { mnemonic: m, cpol: inst.cache_policy() });
    }
    if m == "s_barrier" || m == "s_barrier_wait" || m == "s_barrier_signal" {
        return Some(Piece::Barrier { mnemonic: m });
    }
    if inst.has(flags::ISBRANCH) || m == "s_endpgm" || m.starts_with("s_setpc") || m.starts_with("s_swappc") {
        return Some(Piece::Break);
    }
    let place = if inst.has(flags::DS) {
        if DS_NO_MEMORY.contains(&m) || m.starts_with("ds_gws") {
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
        lds_kind(m, inst)?
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

/// An LDS instruction's kind, from its name: the instruction tables mark plain DS writes as
/// non-returning atomics, so the flags cannot tell `ds_write_b32` from `ds_add_u32`.
fn lds_kind(m: &str, inst: &Inst) -> Option<Kind> {
    let plain_store = ["ds_write", "ds_store"].iter().any(|p| m.starts_with(p)) && !m.contains("xchg") && !m.contains("_rtn");
    let plain_load = ["ds_read", "ds_load"].iter().any(|p| m.starts_with(p));
    Some(if plain_store {
        Kind::Store
    } else if plain_load {
        Kind::Load
    } else if inst.has(flags::MAYSTORE) {
        Kind::Rmw { returns: m.contains("_rtn") || inst.has(flags::ISATOMICRET) }
    } else if inst.has(flags::MAYLOAD) {
        Kind::Load
    } else {
        return None;
    })
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
