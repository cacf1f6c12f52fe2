//! What synchronization costs at each scope: the scope microbenchmark suite
//! (`workloads/scopes/scopes.hip`) run on the timing engine, one row per operation × scope ×
//! dirty footprint × contention, with the instructions the compiler emitted for it and the
//! cache actions they caused. A client of the engine: it builds launch specs, runs them and
//! reads back the per-wave times the kernels measure with the shader clock.
//!
//! Each measurement kernel `sc_<op>__<scope>` first dirties its share of the footprint, warms
//! the synchronization lines and drains its counters, then reads the clock, does the operation,
//! drains again and reads the clock: a wave's time is its cost of the operation with that much
//! dirty data around. `sc_none__none` does nothing between the clock reads; its median is the
//! timer's own cost and is subtracted. Ping-pong kernels `pp__<scope>` bounce a flag between two
//! work-groups and report cycles per round trip.

mod actions;
pub mod contended;
pub mod nodepp;
pub mod placement;
mod run;
mod sequence;

pub use placement::{Placement, Placements};
pub use run::{case_count, run_target, run_target_filtered, run_target_placed, Filter, Progress};

use hipscope_sim::gpus::{GpuConfig, Mode};
use serde::Serialize;

/// A synchronization scope: the memory model's own ([`hipscope_mm::Scope`]).
pub use hipscope_mm::Scope;

/// The scopes the suite measures, narrowest first (a work-item scope synchronizes nothing).
pub const SCOPES: [Scope; 4] = [Scope::Wavefront, Scope::Workgroup, Scope::Agent, Scope::System];

/// Rows spell a scope by its lower-case name.
fn scope_name<S: serde::Serializer>(scope: &Scope, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(scope.name())
}

/// How many waves run the operation at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Contention {
    /// One wave on the whole GPU.
    OneWave,
    /// One 256-item work-group.
    OneWorkgroup,
    /// One 256-item work-group per CU.
    AllCus,
}

impl Contention {
    pub const ALL: [Contention; 3] = [Contention::OneWave, Contention::OneWorkgroup, Contention::AllCus];

    pub fn name(self) -> &'static str {
        match self {
            Contention::OneWave => "one_wave",
            Contention::OneWorkgroup => "one_workgroup",
            Contention::AllCus => "all_cus",
        }
    }

    /// (work-items in the grid, work-items per group) on `gpu` with waves of `wave` lanes.
    pub fn geometry(self, gpu: &GpuConfig, wave: u32) -> (u32, u32) {
        match self {
            Contention::OneWave => (wave, wave),
            Contention::OneWorkgroup => (GROUP_ITEMS, GROUP_ITEMS),
            Contention::AllCus => (GROUP_ITEMS * gpu.compute_units.max(1), GROUP_ITEMS),
        }
    }
}

/// Work-items per group of the work-group and all-CU cases.
pub const GROUP_ITEMS: u32 = 256;

/// Dirty bytes written (by all waves together) before the operation.
pub const FOOTPRINTS: [u64; 4] = [0, 1024, 65536, 1 << 20];

/// One operation of the suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Op {
    /// Kernel-name part (`sc_<name>__<scope>`).
    pub name: &'static str,
    /// What the source does.
    pub source: &'static str,
    /// Whether the operation takes a scope (`__syncthreads` has none: work-group).
    pub scoped: bool,
    /// Whether it works on LDS (not measured in tgsplit mode, which allocates no LDS).
    pub lds: bool,
}

pub const OPS: &[Op] = &[
    Op { name: "fence_acq", source: "__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, scope)", scoped: true, lds: false },
    Op { name: "fence_rel", source: "__builtin_amdgcn_fence(__ATOMIC_RELEASE, scope)", scoped: true, lds: false },
    Op { name: "fence_acq_rel", source: "__builtin_amdgcn_fence(__ATOMIC_ACQ_REL, scope)", scoped: true, lds: false },
    Op {
        name: "fence_seq_cst",
        source: "__builtin_amdgcn_fence(__ATOMIC_SEQ_CST, scope) (= __threadfence_block / __threadfence / __threadfence_system)",
        scoped: true,
        lds: false,
    },
    Op { name: "load_acq", source: "__hip_atomic_load(p, __ATOMIC_ACQUIRE, scope)", scoped: true, lds: false },
    Op { name: "store_rel", source: "__hip_atomic_store(p, 1, __ATOMIC_RELEASE, scope)", scoped: true, lds: false },
    Op { name: "rmw_acq_rel", source: "__hip_atomic_fetch_add(p, 1, __ATOMIC_ACQ_REL, scope), result used", scoped: true, lds: false },
    Op { name: "add_noret", source: "__hip_atomic_fetch_add(p, 1, __ATOMIC_RELAXED, scope), result unused", scoped: true, lds: false },
    Op { name: "add_ret", source: "__hip_atomic_fetch_add(p, 1, __ATOMIC_RELAXED, scope), result used", scoped: true, lds: false },
    Op { name: "lds_add", source: "__hip_atomic_fetch_add(&lds, 1, __ATOMIC_ACQ_REL, scope) on LDS, result used", scoped: true, lds: true },
    Op { name: "syncthreads", source: "__syncthreads()", scoped: false, lds: false },
];

/// The scopes `op` is measured at.
pub fn scopes_of(op: &Op) -> &'static [Scope] {
    if op.scoped {
        &SCOPES
    } else {
        &[Scope::Workgroup]
    }
}

/// Scopes of the ping-pong kernels (a wavefront scope cannot reach another work-group).
pub const PING_PONG_SCOPES: [Scope; 3] = [Scope::Workgroup, Scope::Agent, Scope::System];

/// Round trips each ping-pong dispatch makes.
pub const PING_PONG_ROUNDS: u32 = 8;

/// A GPU and the CU/WGP mode of the code object run on it; on GFX90A and GFX942/GFX950 also whether
/// the code was built in tgsplit mode (`-mtgsplit`: a work-group's waves may run on different
/// CUs, so work-group scope needs the L1 treatment).
#[derive(Debug, Clone)]
pub struct Target {
    pub gpu: GpuConfig,
    pub mode: Mode,
    pub tgsplit: bool,
}

impl Target {
    /// `workloads/bin/<dir>` holding this target's build.
    pub fn object_dir(&self) -> String {
        let dir = hipscope_sim::spec::object_dir(self.gpu.processor, self.wave(), self.mode);
        if self.tgsplit {
            format!("{dir}-tgsplit")
        } else {
            dir
        }
    }

    /// The mode as rows and reports name it: `CU`, `WGP` or `tgsplit`.
    pub fn mode_name(&self) -> String {
        if self.tgsplit {
            "tgsplit".into()
        } else {
            self.mode.to_string()
        }
    }

    /// Whether the processor has a tgsplit mode (GFX90A, and GFX942 and GFX950 of family GFX940).
    pub fn has_tgsplit(gpu: &GpuConfig) -> bool {
        matches!(gpu.processor.family(), hipscope_isa::Family::Gfx90a | hipscope_isa::Family::Gfx940)
    }

    /// Lanes per wave of the suite's build: HIP compiles RDNA kernels for wave32 by default;
    /// GCN/CDNA waves are 64 wide.
    pub fn wave(&self) -> u32 {
        if self.gpu.processor.family().is_rdna() {
            32
        } else {
            64
        }
    }

    /// Whether a code object for this mode is built (RDNA has CU and WGP builds except
    /// gfx1201, which is built in its default WGP mode only; GCN/CDNA have no modes).
    pub fn available(&self) -> bool {
        if self.tgsplit {
            return self.mode == Mode::CU && Target::has_tgsplit(&self.gpu);
        }
        let rdna = self.gpu.processor.family().is_rdna();
        if !rdna {
            return self.mode == Mode::CU;
        }
        self.gpu.processor.name() != "gfx1201" || self.mode == Mode::WGP
    }
}

/// The default suite: MI355X, MI300X and MI210 (each also in tgsplit mode), RX 7900 XTX in WGP
/// and CU mode, RX 6900 XT and R9 Nano. (GPU, mode, tgsplit).
pub const DEFAULT_TARGETS: [(&str, Mode, bool); 10] = [
    ("mi355x", Mode::CU, false),
    ("mi355x", Mode::CU, true),
    ("mi300x", Mode::CU, false),
    ("mi300x", Mode::CU, true),
    ("mi210", Mode::CU, false),
    ("mi210", Mode::CU, true),
    ("rx7900xtx", Mode::WGP, false),
    ("rx7900xtx", Mode::CU, false),
    ("rx6900xt", Mode::WGP, false),
    ("r9nano", Mode::CU, false),
];

/// One measured case.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub gpu: String,
    /// `CU`, `WGP` or `tgsplit`.
    pub mode: String,
    /// An [`Op`] name, or `ping_pong`.
    pub op: String,
    #[serde(serialize_with = "scope_name")]
    pub scope: Scope,
    pub footprint_bytes: u64,
    /// A [`Contention`] name, or for ping-pong where the partner group runs
    /// (`other_cu`, `other_xcd`).
    pub contention: String,
    /// Cycles over the waves that ran it (timer cost subtracted); ping-pong: cycles per round
    /// trip. `None`: the operation did not complete (a ping-pong partner never saw the value).
    pub cycles_median: Option<u64>,
    pub cycles_min: Option<u64>,
    pub cycles_max: Option<u64>,
    /// The instructions between the two clock reads, as the compiler emitted them.
    pub sequence: Vec<String>,
    /// The cache actions the dispatch's synchronization instructions caused.
    pub actions: Vec<String>,
    /// Contended-atomic rows only (`contended_*` ops): words, lanes, span and rate.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub contended: Option<contended::Contended>,
    /// Placement rows only: where the data lives ([`Placement::name`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placement: Option<String>,
    /// Placement rows only: the node and GPU the row ran on ([`placement::NodeChoice`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_names_are_unique() {
        let mut names: Vec<String> = OPS.iter().flat_map(|o| scopes_of(o).iter().map(move |s| format!("sc_{}__{}", o.name, s.name()))).collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n);
        assert_eq!(n, 10 * 4 + 1);
    }
}
