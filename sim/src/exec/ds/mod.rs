//! LDS instructions (DS): reads, writes, atomics, swizzles and lane permutes on the
//! work-group's local data share.
//!
//! * `classify`: mnemonic parsing, both the GCN (`ds_read_b32`, `ds_write2st64_b64`,
//!   `ds_cmpst_b32`) and the GFX11+ (`ds_load_b32`, `ds_store_2addr_stride64_b64`,
//!   `ds_cmpstore_b32`) spellings;
//! * `mem`: reads, writes, two-address forms and atomics (operations shared with memory
//!   atomics, `vmem::atomic`);
//! * `lanes`: `ds_swizzle_b32`, `ds_permute_b32`, `ds_bpermute_b32` (no LDS access);
//! * `lds`: bounds-checked byte access;
//! * `rows`: the common whole-dword reads and writes, all lanes in one pass.
//!
//! Address = `VGPR[addr] + offset` (32-bit wrap), two-address forms `VGPR[addr] + offsetN *
//! size` (`* 64` more for `st64`/`stride64`) (CDNA4 ISA §11.3 "LDS Access"). Out-of-range
//! lane accesses read 0 and write nothing, as on hardware, and are counted (`lds`; GFX8: also
//! past `M0[16:0]`). Active lanes
//! run in ascending order; atomics of several lanes to one address apply in lane order. GDS
//! (`gds` bit set), GWS, `ds_ordered_count`, `*_src2_*` and BVH-stack instructions are
//! unsupported (kernel fault).

mod classify;
pub(crate) mod lanes;
pub(crate) mod lds;
pub(crate) mod mem;
mod rows;
pub mod transpose;

use super::vmem::atomic::{AtomicOp, Width};
use super::vmem::shape::{LoadShape, StoreShape};
use super::{ExecCtx, Fidelity, Flow};
use crate::fault::FaultKind;
use hipscope_isa::decode::{Inst, Operand};

/// Which MODE denormal field governs a float LDS atomic (CDNA4 ISA Table 53, "LDS Handling").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DsFp {
    /// Integer operation.
    None,
    /// F32 add: input and output flushing from MODE.fp_denorm_32.
    Mode32,
    /// F32 compare/min/max/cmpswap: input flushing only.
    ModeIn32,
    /// F16/BF16 adds: MODE.fp_denorm_16_64.
    Mode64,
    /// F64 compare/min/max/cmpswap: input flushing only.
    ModeIn64,
    /// F64 add: never flushes.
    NoFlush,
}

/// A classified DS instruction (operands resolved at classification).
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Nop,
    Load {
        shape: LoadShape,
        dst: Operand,
        addr: Operand,
        offset: u32,
    },
    Store {
        shape: StoreShape,
        data: Operand,
        addr: Operand,
        offset: u32,
    },
    /// `read2`/`load_2addr`: two elements of `width` at byte offsets `off`.
    /// gfx950 `ds_read_b*_tr_b*`: a transpose within each 16-lane group (`transpose`).
    LoadTr {
        shape: transpose::TrShape,
        dst: Operand,
        addr: Operand,
        offset: u32,
    },
    Load2 {
        width: Width,
        dst: Operand,
        addr: Operand,
        off: [u32; 2],
    },
    Store2 {
        width: Width,
        data: [Operand; 2],
        addr: Operand,
        off: [u32; 2],
    },
    /// `wrxchg2`/`storexchg_2addr`: both old values return, then both new ones are written.
    Xchg2 {
        width: Width,
        dst: Operand,
        data: [Operand; 2],
        addr: Operand,
        off: [u32; 2],
    },
    /// `src`/`aux`: the DATA/DATA2 roles the operation uses (compare-store order resolved).
    Atomic {
        op: AtomicOp,
        width: Width,
        dst: Operand,
        addr: Operand,
        src: Operand,
        aux: Operand,
        offset: u32,
        fp: DsFp,
    },
    LoadAddTid {
        dst: Operand,
        offset: u32,
    },
    StoreAddTid {
        data: Operand,
        offset: u32,
    },
    Swizzle {
        dst: Operand,
        src: Operand,
        pattern: u32,
    },
    Permute {
        backward: bool,
        dst: Operand,
        addr: Operand,
        src: Operand,
        offset: u32,
    },
    Append {
        consume: bool,
        dst: Operand,
        offset: u32,
    },
    CondXchg32 {
        dst: Operand,
        addr: Operand,
        data: Operand,
        offset: u32,
    },
}

const FLOAT_ATOMIC: &str = "float LDS atomics: denormal flushing per MODE as CDNA4 ISA Table 53, NaN selection per \
     RDNA4 minimumNumber rules";

const TRANSPOSE: &str = "LDS transpose load: lanes outside EXEC give zeros to their 16-lane group's matrix (not \
     documented)";

impl Op {
    pub fn fidelity(&self) -> Fidelity {
        match self {
            Op::Atomic { op, .. } if op.is_float() => Fidelity::Approximate(FLOAT_ATOMIC),
            Op::LoadTr { .. } => Fidelity::Approximate(TRANSPOSE),
            _ => Fidelity::Exact,
        }
    }
}

pub fn classify(inst: &Inst, env: &super::Env) -> Option<Op> {
    classify::classify(inst, env)
}

pub fn execute(op: &Op, _inst: &Inst, cx: &mut ExecCtx) -> Result<Flow, FaultKind> {
    match op {
        Op::Nop => {}
        Op::Swizzle { dst, src, pattern } => lanes::swizzle(cx, *dst, *src, *pattern),
        Op::Permute { backward, dst, addr, src, offset } => lanes::permute(cx, *backward, *dst, *addr, *src, *offset),
        Op::LoadTr { shape, dst, addr, offset } => transpose::execute(cx, *shape, *dst, *addr, *offset)?,
        _ => mem::execute(op, cx)?,
    }
    Ok(Flow::Next)
}
