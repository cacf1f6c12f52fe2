//! The access instructions of the other integer types. The memory-model code around an
//! access (cache bits, waits, writebacks, invalidates) does not depend on the type
//! (AMDGPUUsage's memory-model tables list one sequence per operation), so only the access
//! itself changes: unsigned `min`/`max` compare unsigned (`*_umin`/`*_umax`, GFX11+
//! `*_min_u32`), and 64-bit types use the two-dword forms (`*_x2`/`dwordx2`, GFX11+
//! `*_b64`/`*_u64`/`*_i64`, DS `*_b64`/`*_u64`/`*_i64`). Mnemonics are LLVM 19's, from the
//! AMDGPU instruction tables the ISA crate is generated from.

use super::tables::rmw_index;
use super::Rmw;
use crate::vocab::RmwOp;
use crate::ValueType;
use hipscope_isa::Family;

/// One family's access mnemonics for one width: load, store, the RMWs in [`rmw_index`]
/// order (signed min/max), and the unsigned min and max.
pub(super) struct Width {
    pub load: &'static str,
    pub store: &'static str,
    pub rmw: [&'static str; 9],
    pub umin_umax: [&'static str; 2],
}

/// Global (flat on GFX8) and LDS forms of one width.
pub(super) struct Forms {
    pub global: Width,
    pub lds: Width,
}

const GFX8_64: Forms = Forms {
    global: Width {
        load: "flat_load_dwordx2",
        store: "flat_store_dwordx2",
        rmw: [
            "flat_atomic_swap_x2",
            "flat_atomic_add_x2",
            "flat_atomic_sub_x2",
            "flat_atomic_and_x2",
            "flat_atomic_or_x2",
            "flat_atomic_xor_x2",
            "flat_atomic_smin_x2",
            "flat_atomic_smax_x2",
            "flat_atomic_cmpswap_x2",
        ],
        umin_umax: ["flat_atomic_umin_x2", "flat_atomic_umax_x2"],
    },
    lds: GFX9_LDS_64,
};

const GFX9_64: Forms = Forms {
    global: Width {
        load: "global_load_dwordx2",
        store: "global_store_dwordx2",
        rmw: [
            "global_atomic_swap_x2",
            "global_atomic_add_x2",
            "global_atomic_sub_x2",
            "global_atomic_and_x2",
            "global_atomic_or_x2",
            "global_atomic_xor_x2",
            "global_atomic_smin_x2",
            "global_atomic_smax_x2",
            "global_atomic_cmpswap_x2",
        ],
        umin_umax: ["global_atomic_umin_x2", "global_atomic_umax_x2"],
    },
    lds: GFX9_LDS_64,
};

const GFX9_LDS_64: Width = Width {
    load: "ds_read_b64",
    store: "ds_write_b64",
    rmw: [
        "ds_wrxchg_rtn_b64",
        "ds_add_rtn_u64",
        "ds_sub_rtn_u64",
        "ds_and_rtn_b64",
        "ds_or_rtn_b64",
        "ds_xor_rtn_b64",
        "ds_min_rtn_i64",
        "ds_max_rtn_i64",
        "ds_cmpst_rtn_b64",
    ],
    umin_umax: ["ds_min_rtn_u64", "ds_max_rtn_u64"],
};

const GFX11_64: Forms = Forms {
    global: Width {
        load: "global_load_b64",
        store: "global_store_b64",
        rmw: [
            "global_atomic_swap_b64",
            "global_atomic_add_u64",
            "global_atomic_sub_u64",
            "global_atomic_and_b64",
            "global_atomic_or_b64",
            "global_atomic_xor_b64",
            "global_atomic_min_i64",
            "global_atomic_max_i64",
            "global_atomic_cmpswap_b64",
        ],
        umin_umax: ["global_atomic_min_u64", "global_atomic_max_u64"],
    },
    lds: Width {
        load: "ds_load_b64",
        store: "ds_store_b64",
        rmw: [
            "ds_storexchg_rtn_b64",
            "ds_add_rtn_u64",
            "ds_sub_rtn_u64",
            "ds_and_rtn_b64",
            "ds_or_rtn_b64",
            "ds_xor_rtn_b64",
            "ds_min_rtn_i64",
            "ds_max_rtn_i64",
            "ds_cmpstore_rtn_b64",
        ],
        umin_umax: ["ds_min_rtn_u64", "ds_max_rtn_u64"],
    },
};

/// The 32-bit unsigned min/max of a family: global (flat on GFX8), then LDS.
fn unsigned32(family: Family) -> ([&'static str; 2], [&'static str; 2]) {
    let lds = ["ds_min_rtn_u32", "ds_max_rtn_u32"];
    match family {
        Family::Gfx8 => (["flat_atomic_umin", "flat_atomic_umax"], lds),
        Family::Gfx11 | Family::Gfx12 => (["global_atomic_min_u32", "global_atomic_max_u32"], lds),
        _ => (["global_atomic_umin", "global_atomic_umax"], lds),
    }
}

fn forms64(family: Family) -> &'static Forms {
    match family {
        Family::Gfx8 => &GFX8_64,
        Family::Gfx11 | Family::Gfx12 => &GFX11_64,
        _ => &GFX9_64,
    }
}

/// What an access is, for choosing its mnemonic.
#[derive(Clone, Copy)]
pub(super) enum Access {
    Load,
    Store,
    Rmw(Rmw),
}

/// The mnemonic of `access` on a value of type `ty` (global or LDS), or `None` when the
/// 32-bit signed one the family's table lists applies.
pub(super) fn typed_mnemonic(family: Family, access: Access, ty: ValueType, lds: bool) -> Option<&'static str> {
    let unsigned_minmax = |rmw: Rmw| match rmw {
        Rmw::Op(RmwOp::Min) if !ty.signed => Some(0),
        Rmw::Op(RmwOp::Max) if !ty.signed => Some(1),
        _ => None,
    };
    if ty.wide() {
        let forms = forms64(family);
        let w = if lds { &forms.lds } else { &forms.global };
        return Some(match access {
            Access::Load => w.load,
            Access::Store => w.store,
            Access::Rmw(rmw) => match unsigned_minmax(rmw) {
                Some(i) => w.umin_umax[i],
                None => w.rmw[rmw_index(rmw)],
            },
        });
    }
    let Access::Rmw(rmw) = access else { return None };
    let i = unsigned_minmax(rmw)?;
    let (global, local) = unsigned32(family);
    Some(if lds { local[i] } else { global[i] })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower::CONFIGS;
    use hipscope_isa::decode::{Decoder, EncodeError};

    /// Every mnemonic above has an encoding on every processor of its family (the ISA
    /// crate's tables are LLVM's): a misspelt name would only fail when a test used it.
    #[test]
    fn every_typed_mnemonic_exists_on_its_family() {
        let rmws = [RmwOp::Exchange, RmwOp::Add, RmwOp::Sub, RmwOp::And, RmwOp::Or, RmwOp::Xor, RmwOp::Min, RmwOp::Max].map(Rmw::Op);
        let accesses = [Access::Load, Access::Store, Access::Rmw(Rmw::Cas)].into_iter().chain(rmws.map(Access::Rmw));
        let accesses: Vec<Access> = accesses.collect();
        for (name, target) in CONFIGS {
            let decoder = Decoder::new(target.processor, target.wave64);
            for ty in [ValueType::UINT, ValueType::LONG, ValueType::ULONG] {
                for lds in [false, true] {
                    for a in &accesses {
                        let Some(m) = typed_mnemonic(target.family(), *a, ty, lds) else { continue };
                        // Without operands the row cannot be filled, but an unknown name has no row.
                        let found = !matches!(decoder.encode(&[m], &[], 0), Err(EncodeError::NoRow { .. }));
                        assert!(found, "{name}: `{m}` has no encoding");
                    }
                }
            }
        }
    }
}
