//! The per-family tables of the lowering, as data, and the few rules that assemble a sequence
//! from them. Facts are from LLVM 19's AMDGPUUsage memory-model sections ("Memory Model
//! GFX6-GFX9", "GFX90A", "GFX942", "GFX10-GFX11", and upstream's "GFX12"), as summarised in
//! `shared/notes/memory-model-lowering.md` §1-§2, and checked against clang-19's code
//! (`mm/tests/lowering.rs`). Where clang-19 differs from the documents the code wins and a
//! comment says so.

use super::widths::{self, typed_mnemonic};
use super::{merge_waits, Line, Op, Rmw, Target};
use crate::vocab::{Access, Order, RmwOp, Scope, Space, Spaces};
use crate::wait::{Counter, Wait};
use crate::ValueType;
use hipscope_isa::decode::CachePolicy;
use hipscope_isa::{Family, Processor};

/// The builds `workloads/build.sh` makes (its CONFIGS and TGSPLIT_CONFIGS), by name.
pub const CONFIGS: &[(&str, Target)] = &[
    ("gfx803", t(Processor::Gfx803, true, false, false)),
    // gfx900 (Vega 10): GFX9, AMDGPUUsage's "Memory Model GFX6-GFX9" sequences.
    ("gfx900", t(Processor::Gfx900, true, false, false)),
    ("gfx908", t(Processor::Gfx908, true, false, false)),
    ("gfx90a", t(Processor::Gfx90a, true, false, false)),
    ("gfx90a-tgsplit", t(Processor::Gfx90a, true, false, true)),
    ("gfx942", t(Processor::Gfx942, true, false, false)),
    ("gfx942-tgsplit", t(Processor::Gfx942, true, false, true)),
    // gfx950 (built by clang-22): family GFX940, whose tables below it shares. LLVM gives it
    // the GFX9.4 feature set (GFX940 instructions, tgsplit), so SIMemoryLegalizer lowers it
    // with the GFX940 cache control, AMDGPUUsage's "Memory Model GFX942" sequences;
    // `mm/tests/lowering.rs` checks that against clang-22's gfx950 code.
    ("gfx950", t(Processor::Gfx950, true, false, false)),
    ("gfx950-tgsplit", t(Processor::Gfx950, true, false, true)),
    // gfx1010 (Navi 10): GFX10, AMDGPUUsage's "Memory Model GFX10-GFX11" sequences, as gfx1030.
    ("gfx1010-w32-wgp", t(Processor::Gfx1010, false, true, false)),
    ("gfx1010-w32-cu", t(Processor::Gfx1010, false, false, false)),
    ("gfx1010-w64-wgp", t(Processor::Gfx1010, true, true, false)),
    ("gfx1010-w64-cu", t(Processor::Gfx1010, true, false, false)),
    ("gfx1030-w32-wgp", t(Processor::Gfx1030, false, true, false)),
    ("gfx1030-w32-cu", t(Processor::Gfx1030, false, false, false)),
    ("gfx1030-w64-wgp", t(Processor::Gfx1030, true, true, false)),
    ("gfx1030-w64-cu", t(Processor::Gfx1030, true, false, false)),
    ("gfx1100-w32-wgp", t(Processor::Gfx1100, false, true, false)),
    ("gfx1100-w32-cu", t(Processor::Gfx1100, false, false, false)),
    ("gfx1100-w64-wgp", t(Processor::Gfx1100, true, true, false)),
    ("gfx1100-w64-cu", t(Processor::Gfx1100, true, false, false)),
    // GFX12 defaults to WGP mode; the repo builds only the default.
    ("gfx1201", t(Processor::Gfx1201, false, true, false)),
];

const fn t(processor: Processor, wave64: bool, wgp_mode: bool, tgsplit: bool) -> Target {
    Target { processor, wave64, wgp_mode, tgsplit }
}

const GLC: u32 = CachePolicy::GLC;
const DLC: u32 = CachePolicy::DLC;
const SCC: u32 = CachePolicy::SCC;
/// GFX940 names: sc0 is the glc bit, sc1 the scc bit.
const SC0: u32 = CachePolicy::GLC;
const SC1: u32 = SCC;
/// GFX12 `scope:` field values (bits 4:3) and `th:TH_ATOMIC_RETURN` (th = 1).
const SCOPE_SE: u32 = 1 << 3;
const SCOPE_DEV: u32 = 2 << 3;
const SCOPE_SYS: u32 = 3 << 3;
const TH_ATOMIC_RETURN: u32 = 1;

/// Where a scope ends up on the target. Work-item and wavefront scope need no instruction
/// anywhere (they only constrain the compiler); work-group scope is "local" when the whole
/// work-group shares the first-level cache and "split" when it may not (tgsplit, WGP mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Level {
    Wave,
    WgLocal,
    WgSplit,
    Agent,
    System,
}

impl Level {
    /// Index into the per-level columns of [`Table`] (`Wave` has no column: it is always
    /// empty).
    fn column(self) -> Option<usize> {
        match self {
            Level::Wave => None,
            Level::WgLocal => Some(0),
            Level::WgSplit => Some(1),
            Level::Agent => Some(2),
            Level::System => Some(3),
        }
    }
}

/// One cache-maintenance instruction: mnemonic, cache-policy bits, and the counter that
/// tracks its completion (so a later wait on that counter is not redundant).
type Maint = (&'static str, u32, Option<Counter>);

/// Mnemonics of the 32-bit accesses of one family.
struct Names {
    load: &'static str,
    store: &'static str,
    /// exchange, add, sub, and, or, xor, min (signed), max (signed), cmpswap.
    rmw: [&'static str; 9],
    lds_load: &'static str,
    lds_store: &'static str,
    lds_rmw: [&'static str; 9],
}

/// The memory-model facts of one family.
struct Table {
    names: Names,
    /// Counters a release drains for vector memory (GFX6-9: vmcnt counts loads and stores;
    /// GFX10/11 split stores into vscnt; GFX12 has loadcnt and storecnt).
    vector: &'static [Counter],
    /// The LDS counter, drained as well unless the atomic is "one address space" (below).
    lds: Counter,
    /// Counter a load, a store, a returning and a non-returning atomic are counted by.
    load_ctr: Counter,
    store_ctr: Counter,
    ret_ctr: Counter,
    noret_ctr: Counter,
    /// What the acquire after a non-returning atomic waits for.
    noret_acquire: &'static [Counter],
    /// Cache-policy bits of an atomic access per level (columns: WgLocal, WgSplit, Agent,
    /// System), for loads, stores and RMWs; `ret_bit` is added to an RMW whose old value is
    /// used.
    load_bits: [u32; 4],
    store_bits: [u32; 4],
    rmw_bits: [u32; 4],
    ret_bit: u32,
    /// Writeback before a release, and invalidate after an acquire, per level.
    writeback: [&'static [Maint]; 4],
    invalidate: [&'static [Maint]; 4],
    /// The barrier instruction(s).
    barrier: &'static [&'static str],
    /// Whether a releasing fence on LDS alone (`__builtin_amdgcn_fence(order, scope, "local")`)
    /// waits for the LDS counter. True everywhere except GFX12, where clang-19 emits nothing
    /// for a release, acq_rel or seq_cst LDS-only fence (an acquire one waits dscnt).
    lds_only_release_waits: bool,
}

const GFX9_RMW: [&str; 9] = [
    "global_atomic_swap",
    "global_atomic_add",
    "global_atomic_sub",
    "global_atomic_and",
    "global_atomic_or",
    "global_atomic_xor",
    "global_atomic_smin",
    "global_atomic_smax",
    "global_atomic_cmpswap",
];
const GFX9_LDS_RMW: [&str; 9] = [
    "ds_wrxchg_rtn_b32",
    "ds_add_rtn_u32",
    "ds_sub_rtn_u32",
    "ds_and_rtn_b32",
    "ds_or_rtn_b32",
    "ds_xor_rtn_b32",
    "ds_min_rtn_i32",
    "ds_max_rtn_i32",
    "ds_cmpst_rtn_b32",
];
const GFX11_LDS_RMW: [&str; 9] = [
    "ds_storexchg_rtn_b32",
    "ds_add_rtn_u32",
    "ds_sub_rtn_u32",
    "ds_and_rtn_b32",
    "ds_or_rtn_b32",
    "ds_xor_rtn_b32",
    "ds_min_rtn_i32",
    "ds_max_rtn_i32",
    "ds_cmpstore_rtn_b32",
];

const GFX9_NAMES: Names =
    Names { load: "global_load_dword", store: "global_store_dword", rmw: GFX9_RMW, lds_load: "ds_read_b32", lds_store: "ds_write_b32", lds_rmw: GFX9_LDS_RMW };

/// `buffer_wbinvl1_vol`: invalidate the CU's vector L1 (its "volatile" lines; GFX6-9, GFX90A).
const WBINVL1: Maint = ("buffer_wbinvl1_vol", 0, None);

/// GFX8 (gfx803) — AMDGPUUsage "Memory Model GFX6-GFX9". One L1 per CU, shared by the whole
/// work-group, write-through to the agent's L2: work-group scope is free; agent and system
/// scope load with glc (miss the L1) and invalidate the L1 after an acquire; a release only
/// waits (vmcnt) since nothing in L1 needs writing back. System = agent. GFX8 has no global_*
/// instructions: global memory is accessed with flat_* (counted by vmcnt only, as the
/// compiler knows the address is global).
const GFX8: Table = Table {
    names: Names {
        load: "flat_load_dword",
        store: "flat_store_dword",
        rmw: [
            "flat_atomic_swap",
            "flat_atomic_add",
            "flat_atomic_sub",
            "flat_atomic_and",
            "flat_atomic_or",
            "flat_atomic_xor",
            "flat_atomic_smin",
            "flat_atomic_smax",
            "flat_atomic_cmpswap",
        ],
        lds_load: "ds_read_b32",
        lds_store: "ds_write_b32",
        lds_rmw: GFX9_LDS_RMW,
    },
    ..GFX9
};

/// GFX9 (gfx900/906/908) — same section and rules as GFX8, with global_* instructions.
const GFX9: Table = Table {
    names: GFX9_NAMES,
    vector: &[Counter::Vm],
    lds: Counter::Lgkm,
    load_ctr: Counter::Vm,
    store_ctr: Counter::Vm,
    ret_ctr: Counter::Vm,
    noret_ctr: Counter::Vm,
    noret_acquire: &[Counter::Vm],
    load_bits: [0, 0, GLC, GLC],
    store_bits: [0; 4],
    rmw_bits: [0; 4],
    ret_bit: GLC,
    writeback: [&[], &[], &[], &[]],
    invalidate: [&[], &[], &[WBINVL1], &[WBINVL1]],
    barrier: &["s_barrier"],
    lds_only_release_waits: true,
};

/// GFX90A (MI200) — AMDGPUUsage "Memory Model GFX90A". GFX9's rules, plus:
/// * tgsplit: a work-group's waves may be on different CUs, so work-group scope gets the
///   agent treatment for the L1 (glc loads, vmcnt before a release, L1 invalidate after an
///   acquire);
/// * system scope also needs the L2: `buffer_wbl2` writes back dirty L2 lines (MTYPE RW/NC)
///   before a release, its completion counted by vmcnt; `buffer_invl2` invalidates
///   non-coherent (NC) L2 lines after an acquire.
const GFX90A: Table = Table {
    load_bits: [0, GLC, GLC, GLC],
    // clang-19 encodes this buffer_wbl2 with the glc and scc bits set (the bits GFX942 calls
    // sc0 sc1, i.e. system scope); llvm-objdump-19 does not print them on gfx90a.
    writeback: [&[], &[], &[], &[("buffer_wbl2", GLC | SCC, Some(Counter::Vm))]],
    invalidate: [&[], &[WBINVL1], &[WBINVL1], &[("buffer_invl2", 0, None), WBINVL1]],
    ..GFX9
};

/// GFX942 (MI300) — AMDGPUUsage "Memory Model GFX942". Loads and stores carry their scope in
/// the cache-policy bits: sc0 = work-group, sc1 = agent, sc0 sc1 = system (also at relaxed
/// order, and also in tgsplit mode). Atomic RMWs bypass the L1 anyway: they carry sc1 only at
/// system scope, and sc0 when they return the old value. Release writes back the L2 with
/// `buffer_wbl2 sc1` (agent: only does something when the agent has several L2s) or
/// `buffer_wbl2 sc0 sc1` (system); acquire invalidates with `buffer_inv` at the scope's bits
/// (sc0 only for tgsplit work-group scope). The prose of the LLVM 19 document names other
/// bits for the writeback; its table and clang-19 use these.
const GFX942: Table = Table {
    load_bits: [SC0, SC0, SC1, SC0 | SC1],
    store_bits: [SC0, SC0, SC1, SC0 | SC1],
    rmw_bits: [0, 0, 0, SC1],
    ret_bit: SC0,
    writeback: [&[], &[], &[("buffer_wbl2", SC1, Some(Counter::Vm))], &[("buffer_wbl2", SC0 | SC1, Some(Counter::Vm))]],
    invalidate: [&[], &[("buffer_inv", SC0, None)], &[("buffer_inv", SC1, None)], &[("buffer_inv", SC0 | SC1, None)]],
    ..GFX9
};

/// GFX10.x (gfx1030) — AMDGPUUsage "Memory Model GFX10-GFX11". Per-CU L0, per-SA GL1, L2;
/// all write-through, so a release only waits, now on vmcnt (loads, returning atomics) and
/// vscnt (stores, non-returning atomics). WGP mode splits a work-group across the two CUs of a
/// WGP: work-group loads use glc (miss L0) and an acquire invalidates L0 (`buffer_gl0_inv`).
/// Agent/system loads use glc dlc (miss L0 and GL1) and invalidate both (`buffer_gl1_inv;
/// buffer_gl0_inv`). System = agent (L2 coherence comes from the memory type).
const GFX10: Table = Table {
    names: GFX9_NAMES,
    vector: &[Counter::Vm, Counter::Vs],
    lds: Counter::Lgkm,
    load_ctr: Counter::Vm,
    store_ctr: Counter::Vs,
    ret_ctr: Counter::Vm,
    noret_ctr: Counter::Vs,
    // The document asks for vscnt only (the atomic is counted there); clang-19 waits for
    // vmcnt as well.
    noret_acquire: &[Counter::Vm, Counter::Vs],
    load_bits: [0, GLC, GLC | DLC, GLC | DLC],
    store_bits: [0; 4],
    rmw_bits: [0; 4],
    ret_bit: GLC,
    writeback: [&[], &[], &[], &[]],
    invalidate: [&[], &[GL0_INV], &[GL1_INV, GL0_INV], &[GL1_INV, GL0_INV]],
    barrier: &["s_barrier"],
    lds_only_release_waits: true,
};
const GL0_INV: Maint = ("buffer_gl0_inv", 0, None);
const GL1_INV: Maint = ("buffer_gl1_inv", 0, None);

/// GFX11 (gfx1100) — same section as GFX10, with the GFX11 mnemonics and glc alone on agent and
/// system loads ("If GFX11, omit dlc=1": dlc no longer selects the GL1 bypass).
const GFX11: Table = Table {
    names: Names {
        load: "global_load_b32",
        store: "global_store_b32",
        rmw: GFX11_RMW,
        lds_load: "ds_load_b32",
        lds_store: "ds_store_b32",
        lds_rmw: GFX11_LDS_RMW,
    },
    load_bits: [0, GLC, GLC, GLC],
    ..GFX10
};
const GFX11_RMW: [&str; 9] = [
    "global_atomic_swap_b32",
    "global_atomic_add_u32",
    "global_atomic_sub_u32",
    "global_atomic_and_b32",
    "global_atomic_or_b32",
    "global_atomic_xor_b32",
    "global_atomic_min_i32",
    "global_atomic_max_i32",
    "global_atomic_cmpswap_b32",
];

/// GFX12 (gfx1200/1201) — upstream AMDGPUUsage "Memory Model GFX12" (LLVM 19's document has no
/// GFX12 section). Every access carries a `scope:` (work-group in WGP mode SCOPE_SE, agent
/// SCOPE_DEV, system SCOPE_SYS; CU-mode work-group scope none), relaxed ones included; split
/// counters loadcnt / storecnt / dscnt. Release: `global_wb scope:X`, then waits (the document
/// says the writeback is needed at SCOPE_SYS only; clang-19 emits it at SE and DEV as well,
/// which later LLVM removed). Acquire: wait, then `global_inv scope:X` (invalidates the
/// caches below X). `global_wb` completes on storecnt, `global_inv` on loadcnt.
const GFX12: Table = Table {
    names: Names {
        load: "global_load_b32",
        store: "global_store_b32",
        rmw: GFX11_RMW,
        lds_load: "ds_load_b32",
        lds_store: "ds_store_b32",
        lds_rmw: GFX11_LDS_RMW,
    },
    vector: &[Counter::Load, Counter::Store],
    lds: Counter::Ds,
    load_ctr: Counter::Load,
    store_ctr: Counter::Store,
    ret_ctr: Counter::Load,
    noret_ctr: Counter::Store,
    noret_acquire: &[Counter::Store],
    load_bits: [0, SCOPE_SE, SCOPE_DEV, SCOPE_SYS],
    store_bits: [0, SCOPE_SE, SCOPE_DEV, SCOPE_SYS],
    rmw_bits: [0, SCOPE_SE, SCOPE_DEV, SCOPE_SYS],
    ret_bit: TH_ATOMIC_RETURN,
    writeback: [
        &[],
        &[("global_wb", SCOPE_SE, Some(Counter::Store))],
        &[("global_wb", SCOPE_DEV, Some(Counter::Store))],
        &[("global_wb", SCOPE_SYS, Some(Counter::Store))],
    ],
    invalidate: [
        &[],
        &[("global_inv", SCOPE_SE, Some(Counter::Load))],
        &[("global_inv", SCOPE_DEV, Some(Counter::Load))],
        &[("global_inv", SCOPE_SYS, Some(Counter::Load))],
    ],
    // GFX12 splits the barrier into signal and wait.
    barrier: &["s_barrier_signal", "s_barrier_wait"],
    lds_only_release_waits: false,
};

/// Whether the processor has LLVM's `back-off-barrier` feature. Without it the compiler drains
/// every counter before `s_barrier` (clang-19: gfx8, gfx9 before gfx90a, gfx11, gfx12); with it
/// (gfx90a, gfx940/942, gfx10.x) the barrier needs only the fences' waits. Only gfx1030 of the
/// GFX10 processors is probed.
fn back_off_barrier(p: Processor) -> bool {
    matches!(p.family(), Family::Gfx90a | Family::Gfx940 | Family::Gfx10)
}

/// One step of a sequence before redundant waits are dropped.
#[derive(Clone, Debug)]
pub(super) enum Step {
    /// Drain these counters to zero.
    Wait(Vec<Counter>),
    /// An instruction and the counter that counts it (`None`: not counted).
    Inst { mnemonic: &'static str, cpol: u32, counts: Option<Counter> },
}

pub(super) struct Rules {
    target: Target,
    family: Family,
    t: &'static Table,
    /// The type of the value accessed, which picks the access instruction.
    ty: ValueType,
}

pub(super) fn rules(target: &Target, ty: ValueType) -> Rules {
    let family = target.family();
    let t = match family {
        Family::Gfx8 => &GFX8,
        Family::Gfx9 => &GFX9,
        Family::Gfx90a => &GFX90A,
        Family::Gfx940 => &GFX942,
        Family::Gfx10 => &GFX10,
        Family::Gfx11 => &GFX11,
        Family::Gfx12 => &GFX12,
    };
    Rules { target: *target, family, t, ty }
}

/// Position of an RMW in the mnemonic arrays.
pub(super) fn rmw_index(rmw: Rmw) -> usize {
    match rmw {
        Rmw::Op(RmwOp::Exchange) => 0,
        Rmw::Op(RmwOp::Add) => 1,
        Rmw::Op(RmwOp::Sub) => 2,
        Rmw::Op(RmwOp::And) => 3,
        Rmw::Op(RmwOp::Or) => 4,
        Rmw::Op(RmwOp::Xor) => 5,
        Rmw::Op(RmwOp::Min) => 6,
        Rmw::Op(RmwOp::Max) => 7,
        Rmw::Cas => 8,
    }
}

impl Rules {
    fn level(&self, scope: Scope) -> Level {
        match scope {
            Scope::WorkItem | Scope::Wavefront => Level::Wave,
            Scope::Workgroup if self.target.split_workgroup() => Level::WgSplit,
            Scope::Workgroup => Level::WgLocal,
            Scope::Agent => Level::Agent,
            Scope::System => Level::System,
        }
    }

    /// The counters a release (or the wait half of a fence) drains at `level`. `lds`: also
    /// the LDS counter, which orders LDS against the vector memory of other waves. clang-19
    /// gives non-seq_cst `__hip_atomic_*` builtins a "one address space" scope
    /// (`workgroup-one-as`, …), which orders only the accessed space and so needs no LDS wait;
    /// seq_cst atomics and fences use the plain scope and wait for LDS too, as do all atomics
    /// where the compiler uses no one-as scope ([`Target::one_as_atomics`]: clang-22).
    fn drain(&self, level: Level, lds: bool) -> Vec<Counter> {
        let mut c: Vec<Counter> = match level {
            Level::Wave => return Vec::new(),
            // The work-group shares the first-level cache: vector memory is already ordered.
            Level::WgLocal => Vec::new(),
            Level::WgSplit | Level::Agent | Level::System => self.t.vector.to_vec(),
        };
        if lds {
            c.push(self.t.lds);
        }
        c
    }

    fn maint(&self, list: &'static [Maint], out: &mut Vec<Step>) {
        for &(mnemonic, cpol, counts) in list {
            out.push(Step::Inst { mnemonic, cpol, counts });
        }
    }

    fn writeback(&self, level: Level, out: &mut Vec<Step>) {
        if let Some(i) = level.column() {
            self.maint(self.t.writeback[i], out);
        }
    }

    fn invalidate(&self, level: Level, out: &mut Vec<Step>) {
        if let Some(i) = level.column() {
            self.maint(self.t.invalidate[i], out);
        }
    }

    fn bits(&self, column: &[u32; 4], level: Level) -> u32 {
        level.column().map_or(0, |i| column[i])
    }

    /// Release half: writeback, then drain (a store-release, an RMW with release semantics).
    fn release(&self, level: Level, lds: bool, out: &mut Vec<Step>) {
        self.writeback(level, out);
        out.push(Step::Wait(self.drain(level, lds)));
    }

    /// Acquire half after an access: wait for `counters` (the access's), then invalidate. Nothing
    /// when the level has no invalidate (the wait would order nothing).
    fn acquire_after(&self, level: Level, counters: &[Counter], out: &mut Vec<Step>) {
        let inv = level.column().map_or(&[][..], |i| self.t.invalidate[i]);
        if inv.is_empty() {
            return;
        }
        out.push(Step::Wait(counters.to_vec()));
        self.maint(inv, out);
    }

    pub(super) fn sequence(&self, op: &Op, out: &mut Vec<Step>) {
        match *op {
            Op::Load { access, space: Space::Local } => self.lds(access, Kind::Load, out),
            Op::Store { access, space: Space::Local } => self.lds(access, Kind::Store, out),
            Op::Rmw { rmw, access, space: Space::Local, .. } => self.lds(access, Kind::Rmw(rmw), out),
            // Generic locations are placed in global memory and accessed as global.
            Op::Load { access, .. } => {
                let (order, level) = self.atomic(access);
                if order == Some(Order::SeqCst) {
                    // A seq_cst load first waits as a release would (without the writeback),
                    // so it cannot pass an earlier seq_cst store.
                    out.push(Step::Wait(self.drain(level, true)));
                }
                let cpol = if order.is_some() { self.bits(&self.t.load_bits, level) } else { 0 };
                out.push(Step::Inst { mnemonic: self.name(widths::Access::Load, false, self.t.names.load), cpol, counts: Some(self.t.load_ctr) });
                if order.is_some_and(Order::acquires) {
                    self.acquire_after(level, &[self.t.load_ctr], out);
                }
            }
            Op::Store { access, .. } => {
                let (order, level) = self.atomic(access);
                if order.is_some_and(Order::releases) {
                    self.release(level, self.plain_scope(order), out);
                }
                let cpol = if order.is_some() { self.bits(&self.t.store_bits, level) } else { 0 };
                out.push(Step::Inst { mnemonic: self.name(widths::Access::Store, false, self.t.names.store), cpol, counts: Some(self.t.store_ctr) });
            }
            Op::Rmw { rmw, access, returns, .. } => {
                let (order, level) = self.atomic(access);
                let order = order.unwrap_or(Order::Relaxed);
                if order.releases() {
                    self.release(level, self.plain_scope(Some(order)), out);
                }
                let counter = if returns { self.t.ret_ctr } else { self.t.noret_ctr };
                let cpol = self.bits(&self.t.rmw_bits, level) | if returns { self.t.ret_bit } else { 0 };
                let mnemonic = self.name(widths::Access::Rmw(rmw), false, self.t.names.rmw[rmw_index(rmw)]);
                out.push(Step::Inst { mnemonic, cpol, counts: Some(counter) });
                if order.acquires() {
                    let wait = if returns { std::slice::from_ref(&self.t.ret_ctr) } else { self.t.noret_acquire };
                    self.acquire_after(level, wait, out);
                }
            }
            Op::Fence { order, scope, spaces } => self.fence(order, self.level(scope), spaces, out),
            Op::Barrier { spaces } => {
                // __syncthreads(): fence(release, workgroup); s_barrier; fence(acquire, workgroup).
                let level = self.level(Scope::Workgroup);
                self.fence(Order::Release, level, spaces, out);
                if !back_off_barrier(self.target.processor) {
                    let mut all = self.t.vector.to_vec();
                    all.push(self.t.lds);
                    out.push(Step::Wait(all));
                }
                for &b in self.t.barrier {
                    out.push(Step::Inst { mnemonic: b, cpol: 0, counts: None });
                }
                self.fence(Order::Acquire, level, spaces, out);
            }
        }
    }

    /// A fence is never "one address space" (see [`Rules::drain`]). On global memory: the
    /// release writeback if it releases, the vector drain at the level, the invalidate if it
    /// acquires. On LDS: the LDS counter, at every scope from work-group up (LDS needs no cache
    /// maintenance). Relaxed fences do not exist (nothing).
    fn fence(&self, order: Order, level: Level, spaces: Spaces, out: &mut Vec<Step>) {
        if order == Order::Relaxed || level == Level::Wave {
            return;
        }
        let mut drain = Vec::new();
        if spaces.global {
            if order.releases() {
                self.writeback(level, out);
            }
            drain = self.drain(level, false);
        }
        if spaces.local && (spaces.global || self.lds_only_fence_waits(order)) {
            drain.push(self.t.lds);
        }
        out.push(Step::Wait(drain));
        if spaces.global && order.acquires() {
            self.invalidate(level, out);
        }
    }

    /// Whether a fence on LDS alone waits for the LDS counter. Not in tgsplit mode, where
    /// clang-19 emits no LDS-only wait (a work-group may span CUs and LDS ordering is not
    /// what the memory model tracks there); on GFX12 only when the fence does not release
    /// (see [`Table::lds_only_release_waits`]).
    fn lds_only_fence_waits(&self, order: Order) -> bool {
        !self.target.tgsplit && (!order.releases() || self.t.lds_only_release_waits)
    }

    /// LDS accesses: the ds_* instruction with no cache bits. A non-seq_cst atomic of clang-19
    /// is "one address space" (see [`Rules::drain`]) and LDS is in order per wave, so it needs
    /// nothing else. A seq_cst one, or any acquire/release one with the plain scope (clang-22),
    /// orders global memory as well: the work-group release (writeback and drain) before a
    /// releasing store or RMW, the drain before a seq_cst load, and after an acquiring load or
    /// RMW a wait for the LDS counter and the work-group invalidate. In tgsplit mode there is
    /// no LDS wait after the access (clang-19 and -22: the invalidate follows the ds_* directly).
    fn lds(&self, access: Access, kind: Kind, out: &mut Vec<Step>) {
        let n = &self.t.names;
        let mnemonic = match kind {
            Kind::Load => self.name(widths::Access::Load, true, n.lds_load),
            Kind::Store => self.name(widths::Access::Store, true, n.lds_store),
            Kind::Rmw(r) => self.name(widths::Access::Rmw(r), true, n.lds_rmw[rmw_index(r)]),
        };
        let inst = Step::Inst { mnemonic, cpol: 0, counts: Some(self.t.lds) };
        let order = match access {
            Access::Atomic { order, scope } if scope >= Scope::Workgroup && order != Order::Relaxed && self.plain_scope(Some(order)) => order,
            _ => {
                out.push(inst);
                return;
            }
        };
        // LDS is work-group memory: a wider scope means work-group scope.
        let level = self.level(Scope::Workgroup);
        match kind {
            Kind::Load if order == Order::SeqCst => out.push(Step::Wait(self.drain(level, true))),
            Kind::Store | Kind::Rmw(_) if order.releases() => self.release(level, true, out),
            _ => {}
        }
        out.push(inst);
        if matches!(kind, Kind::Load | Kind::Rmw(_)) && order.acquires() {
            if !self.target.tgsplit {
                out.push(Step::Wait(vec![self.t.lds]));
            }
            self.invalidate(level, out);
        }
    }

    /// Whether an atomic of this order uses the plain (not "one address space") scope, so that
    /// its release drains LDS as well: seq_cst always, every order where the compiler has no
    /// one-as scopes (see [`Rules::drain`]).
    fn plain_scope(&self, order: Option<Order>) -> bool {
        order == Some(Order::SeqCst) || (order.is_some() && !self.target.one_as_atomics())
    }

    /// The access instruction for the accessed type: `int32` is the table's own.
    fn name(&self, access: widths::Access, lds: bool, int32: &'static str) -> &'static str {
        typed_mnemonic(self.family, access, self.ty, lds).unwrap_or(int32)
    }

    /// The order and level of an access (`None` order: a plain access).
    fn atomic(&self, access: Access) -> (Option<Order>, Level) {
        match access {
            Access::Plain => (None, Level::Wave),
            Access::Atomic { order, scope } => (Some(order), self.level(scope)),
        }
    }

    /// Drop the waits the compiler drops: a counter is waited on only while an access it
    /// counts may be in flight. At the start every counter the memory model uses is busy (the
    /// probe kernels leave a load, a store and an LDS access in flight).
    pub(super) fn finish(&self, steps: Vec<Step>) -> Vec<Line> {
        let mut busy: Vec<Counter> = self.t.vector.to_vec();
        busy.push(self.t.lds);
        let mut out = Vec::new();
        for step in steps {
            match step {
                Step::Wait(counters) => {
                    let mut w = Wait::default();
                    for c in counters {
                        if let Some(i) = busy.iter().position(|&b| b == c) {
                            busy.remove(i);
                            w.add(c, 0);
                        }
                    }
                    if !w.is_empty() {
                        out.push(Line::Wait(w));
                    }
                }
                Step::Inst { mnemonic, cpol, counts } => {
                    if let Some(c) = counts {
                        if !busy.contains(&c) {
                            busy.push(c);
                        }
                    }
                    out.push(Line::inst(self.family, mnemonic, cpol));
                }
            }
        }
        merge_waits(out)
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Load,
    Store,
    Rmw(Rmw),
}
