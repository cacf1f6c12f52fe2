//! What each instruction means to the timing model, worked out once per kernel: which
//! pipeline issues it, how long it occupies it, what it counts against the wait counters,
//! and the cache policy of its memory accesses.

use super::matrix::{self, Rate};
use super::waitcnt::{self, Wait};
use crate::exec::vmem::buffer::BufWhat;
use crate::exec::vmem::cache::CacheOp;
use crate::exec::vmem::flat::{FlatWhat, Seg};
use crate::exec::{ds, smem, sopp, vmem, Sem};
use crate::gpus::timing::Core;
use crate::memsys::{OpKind, Policy, Reach};
use hipscope_isa::decode::{CachePolicy, Inst, Operand};
use hipscope_isa::tables::{flags, Opcode};
use hipscope_isa::{Family, Processor};

/// A cache-maintenance action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Maintenance {
    /// Invalidate this CU's vector L1 (`buffer_wbinvl1*`, `buffer_inv sc0`, `buffer_gl0_inv`,
    /// `global_inv scope:SE`).
    InvL1,
    /// Invalidate the shader array's GL1 (`buffer_gl1_inv`, which the compiler pairs with a
    /// `buffer_gl0_inv`).
    InvGl1,
    /// Invalidate the vector L1 and the shader array's GL1 (`global_inv scope:DEV`).
    InvL1Gl1,
    /// Invalidate the L1 and this XCD's L2 (`buffer_inv sc1` with several L2s: agent reach;
    /// `buffer_inv sc0 sc1`, `global_inv scope:SYS`: system reach; what the L2 drops:
    /// [`crate::memsys::MemSystem::invalidate_l2_op`]).
    InvL1L2(Reach),
    /// Invalidate this XCD's L2 only (`buffer_invl2`, the GFX90A system-scope acquire, which
    /// the compiler follows with `buffer_wbinvl1_vol`).
    InvL2,
    /// Write back this XCD's dirty L2 lines (`buffer_wbl2 sc1` with several L2s: agent reach;
    /// `buffer_wbl2 sc0 sc1`, GFX90A `buffer_wbl2`, `global_wb scope:SYS`: system reach).
    WbL2(Reach),
    /// Invalidate the scalar cache `cu` uses (`s_dcache_inv`, `s_dcache_inv_vol`).
    InvScalar,
    /// Nothing to do on this configuration (e.g. `buffer_wbl2 sc1` with one L2; `s_dcache_wb`,
    /// since scalar stores here write through to the L2).
    None,
}

/// The timing class of an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Salu,
    /// A vector ALU op occupying its SIMD for `cycles`.
    Valu {
        cycles: u32,
    },
    /// A matrix instruction (MFMA, SMFMAC, WMMA, SWMMAC) on its SIMD's matrix core.
    Matrix(&'static Rate),
    Smem {
        kind: OpKind,
    },
    /// Vector memory. `flat`: a FLAT (not GLOBAL/SCRATCH) access, which may reach LDS and so
    /// counts against both the vector and the LDS counters on GFX9/GFX10 (ISA manuals).
    Vmem {
        kind: OpKind,
        policy: Policy,
        flat: bool,
    },
    /// An LDS op moving `dwords` dwords per lane.
    Lds {
        dwords: u32,
    },
    Branch,
    Wait(Wait),
    /// `s_delay_alu` (GFX11+): the compiler's note that the next VALU op depends on a recent
    /// one.
    DelayAlu,
    Barrier,
    End,
    /// `s_nop N`: N+1 wait states.
    Nop {
        cycles: u32,
    },
    /// `s_sleep N`: about 64 × N cycles.
    Sleep {
        cycles: u32,
    },
    Cache(Maintenance),
    /// Everything else that issues like a scalar instruction.
    Other,
}

/// The first immediate operand (`simm16` of SOPP/SOPK).
fn imm(inst: &Inst) -> u32 {
    inst.operands.iter().find_map(|o| if let Operand::Imm(v) = o { Some(*v as u32) } else { None }).unwrap_or(0)
}

/// Classify one instruction for a kernel of wave size `lanes` on a CU with `core`.
pub fn classify(sem: &Sem, inst: &Inst, processor: Processor, lanes: u32, l2s: usize, core: &Core) -> Class {
    let fam = processor.family();
    match sem {
        Sem::Valu(_) => match matrix_rate(inst, processor) {
            Some(r) => Class::Matrix(r),
            None => Class::Valu { cycles: valu_cycles(inst, lanes, core) },
        },
        Sem::Salu(_) => Class::Salu,
        Sem::Smem(op) => match op {
            smem::Op::Load { .. } | smem::Op::BufferLoad { .. } => Class::Smem { kind: OpKind::Load },
            smem::Op::Store { .. } | smem::Op::BufferStore { .. } => Class::Smem { kind: OpKind::Store },
            smem::Op::Atomic { ret, .. } => Class::Smem { kind: OpKind::Atomic { returns: *ret } },
            // `s_gl1_inv` and `s_dcache_inv*` share a record class; only the opcode says which
            // cache.
            _ if inst.opcode() == Opcode::S_GL1_INV => Class::Cache(Maintenance::InvGl1),
            _ if inst.has(flags::CACHE_INV) => Class::Cache(Maintenance::InvScalar),
            _ if inst.has(flags::CACHE_WB) => Class::Cache(Maintenance::None),
            _ => Class::Other,
        },
        Sem::Ds(op) => Class::Lds { dwords: ds_dwords(op) },
        Sem::Vmem(vmem::Op::Cache(c)) => Class::Cache(maintenance(*c, inst.cache_policy(), fam, l2s)),
        Sem::Vmem(op) => {
            let (kind, flat) = vmem_kind(op);
            Class::Vmem { kind, policy: policy(fam, inst.cache_policy(), kind), flat }
        }
        Sem::Sopp(op) => match op {
            sopp::Op::EndPgm => Class::End,
            sopp::Op::Barrier => Class::Barrier,
            sopp::Op::Branch | sopp::Op::CBranch(_) | sopp::Op::DebugBranch => Class::Branch,
            sopp::Op::Sleep => Class::Sleep { cycles: 64 * imm(inst).clamp(1, 127) },
            _ => match inst.opcode() {
                Opcode::S_NOP => Class::Nop { cycles: (imm(inst) & 0xf) + 1 },
                Opcode::S_DELAY_ALU => Class::DelayAlu,
                _ => hipscope_mm::Wait::of_inst(inst, fam).and_then(|w| waitcnt::from_counters(fam, &w)).map_or(Class::Other, Class::Wait),
            },
        },
        Sem::Unsupported => Class::Other,
    }
}

/// The matrix-core rate of a matrix instruction (the `v_accvgpr_*` moves, also flagged as
/// matrix instructions, are plain VALU work and have none).
fn matrix_rate(inst: &Inst, p: Processor) -> Option<&'static Rate> {
    if !inst.has(flags::ISMAI | flags::ISWMMA | flags::ISSWMMAC) {
        return None;
    }
    matrix::rate(p, inst.opcode())
}

/// SIMD cycles of a VALU op: passes over the SIMD's lanes, times the rate divisor of f64 and
/// transcendental ops.
fn valu_cycles(inst: &Inst, lanes: u32, core: &Core) -> u32 {
    let passes = lanes.div_ceil(core.simd_lanes.max(1));
    let rate = if inst.has(flags::TRANSCENDENTAL) {
        core.transcendental_rate_divisor
    } else if inst.has(flags::F64) {
        core.f64_rate_divisor
    } else {
        1
    };
    passes * rate.max(1)
}

fn ds_dwords(op: &ds::Op) -> u32 {
    use ds::Op::*;
    match op {
        Load { shape, .. } => shape.dwords() as u32,
        LoadTr { shape, .. } => (shape.bytes as u32).div_ceil(4),
        Store { shape, .. } => (shape.bytes as u32).div_ceil(4),
        Load2 { width, .. } | Store2 { width, .. } | Xchg2 { width, .. } => 2 * width.dwords() as u32,
        Atomic { width, .. } => width.dwords() as u32,
        _ => 1,
    }
}

fn vmem_kind(op: &vmem::Op) -> (OpKind, bool) {
    match op {
        vmem::Op::Flat(f) => {
            let kind = match &f.what {
                FlatWhat::Load { .. } | FlatWhat::LoadLds { .. } | FlatWhat::LoadAddTid { .. } => OpKind::Load,
                FlatWhat::Store { .. } | FlatWhat::StoreAddTid { .. } => OpKind::Store,
                FlatWhat::Atomic(a) => OpKind::Atomic { returns: a.dst != Operand::Absent },
            };
            (kind, f.addr.seg == Seg::Flat)
        }
        vmem::Op::Buffer(b) => {
            let kind = match &b.what {
                BufWhat::Load { .. } | BufWhat::LoadLds { .. } | BufWhat::LoadFormat { .. } => OpKind::Load,
                BufWhat::Store { .. } | BufWhat::StoreFormat { .. } => OpKind::Store,
                BufWhat::Atomic(a) => OpKind::Atomic { returns: a.dst != Operand::Absent },
            };
            (kind, false)
        }
        vmem::Op::Cache(_) => (OpKind::Load, false),
        vmem::Op::Image(_) => (OpKind::Load, false),
    }
}

/// Cache policy from the instruction's bits (LLVM AMDGPUUsage memory-model tables,
/// `../shared/notes/memory-model-lowering.md` §1.6):
/// * GFX8/9/90A: `glc` on a load misses the L1 and reads the L2;
/// * GFX942: `sc1` (agent or system scope) and `nt` loads bypass the L1; `sc0` alone
///   (work-group scope) is served by the L1, which the work-group shares;
/// * GFX10: `glc` bypasses GL0, `dlc` also GL1; GFX11: `glc` bypasses GL0 and GL1;
/// * GFX12: `scope:SE` bypasses GL0, `scope:DEV`/`SYS` also GL1.
///
/// Atomics bypass the L1s on every target (the memory system does that itself). GFX942 stores
/// with `sc1` are written through the L2.
pub fn policy(fam: Family, cpol: CachePolicy, kind: OpKind) -> Policy {
    if kind == OpKind::Store {
        // GFX942 stores at agent or system scope (`sc1`) write through the L2, so that other
        // L2s of the agent (their copies probed away) and the host see them.
        return Policy { write_through: fam == Family::Gfx940 && cpol.sc1(), ..Policy::default() };
    }
    if kind != OpKind::Load {
        return Policy::default();
    }
    let (l1, gl1) = match fam {
        Family::Gfx8 | Family::Gfx9 | Family::Gfx90a => (cpol.glc(), false),
        // `nt` loads also miss the L1: MI300X measures 224 cycles for both `nt` and `sc1`
        // loads against 112 for an L1 hit (`../shared/device-data/derived/
        // scoped_sync_and_coherence_observations.csv`, MrRoy09 cache_latency_test).
        Family::Gfx940 => (cpol.sc1() || cpol.nt(), false),
        Family::Gfx10 => (cpol.glc(), cpol.dlc()),
        Family::Gfx11 => (cpol.glc(), cpol.glc()),
        _ => (cpol.scope() >= 1, cpol.scope() >= 2),
    };
    Policy { bypass_l1: l1 || gl1, bypass_gl1: gl1, ..Policy::default() }
}

/// What a maintenance instruction does (same sources; the scope is in the policy bits).
fn maintenance(op: CacheOp, cpol: CachePolicy, fam: Family, l2s: usize) -> Maintenance {
    let several = l2s > 1;
    match op {
        CacheOp::WbInvL1 | CacheOp::WbInvL1Vol | CacheOp::Gl0Inv => Maintenance::InvL1,
        CacheOp::Gl1Inv => Maintenance::InvGl1,
        CacheOp::InvL2 => Maintenance::InvL2,
        CacheOp::Inv => {
            // GFX942: sc0 = work-group, sc1 = agent, both = system.
            if cpol.sc1() && cpol.sc0() {
                Maintenance::InvL1L2(Reach::System)
            } else if cpol.sc1() && several {
                Maintenance::InvL1L2(Reach::Agent)
            } else {
                Maintenance::InvL1
            }
        }
        CacheOp::WbL2 => {
            // GFX90A: always (system scope); GFX942: agent scope only with several L2s, system
            // always.
            if fam != Family::Gfx940 || (cpol.sc0() && cpol.sc1()) {
                Maintenance::WbL2(Reach::System)
            } else if several {
                Maintenance::WbL2(Reach::Agent)
            } else {
                Maintenance::None
            }
        }
        CacheOp::GlobalInv => match cpol.scope() {
            0 => Maintenance::None,
            1 => Maintenance::InvL1,
            2 => Maintenance::InvL1Gl1,
            _ => Maintenance::InvL1L2(Reach::System),
        },
        CacheOp::GlobalWb | CacheOp::GlobalWbInv => {
            if cpol.scope() == 3 {
                Maintenance::WbL2(Reach::System)
            } else {
                Maintenance::None
            }
        }
    }
}
