//! The lowering: the AMDGPU instructions clang-19 emits for each memory operation of a litmus
//! test, per target and execution mode, as typed data.
//!
//! [`lower`] returns the memory-model part of the code of one [`Op`]: the waits, cache
//! writebacks and invalidates around the access, and the access itself with its mnemonic and
//! cache-policy bits. It does not allocate registers or compute addresses; the grader's code
//! generator (`grade/src/hardware/codegen`) adds those. See `README.md` next to this file for
//! the rules per family and where they come from; `mm/tests/lowering.rs` checks every table
//! entry against the code objects clang-19 built from `workloads/src/mm_lowering.hip`.
//!
//! The sequences are the ones emitted when every counter the memory model waits on has an
//! access in flight (a vector load, a vector store and an LDS access before the operation),
//! so each wait the memory model asks for is present. The compiler drops a wait whose counter
//! is already idle; [`lower`] models that within the sequence (a wait right after another one,
//! or right after a barrier that drained everything, is dropped the same way).

mod tables;
mod widths;

use crate::vocab::{Access, Order, RmwOp, Scope, Space, Spaces};
use crate::wait::Wait;
use crate::ValueType;
use hipscope_isa::decode::CachePolicy;
use hipscope_isa::tables::flags_of;
use hipscope_isa::{Family, Processor};
use std::fmt;

pub use tables::CONFIGS;

/// What the code is compiled for: the processor and the execution modes that change the
/// memory-model code (AMDGPUUsage, "Memory Model": CU/WGP mode on GFX10+, tgsplit on
/// GFX90A/GFX942). The wave size changes no sequence; it is kept so a target names a build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    pub processor: Processor,
    /// GFX10+: wave64 (`-mwavefrontsize64`); always true before GFX10.
    pub wave64: bool,
    /// GFX10+: WGP mode (the default; `-mcumode` turns it off). False before GFX10.
    pub wgp_mode: bool,
    /// GFX90A / GFX942: tgsplit mode (`-mtgsplit`). False elsewhere.
    pub tgsplit: bool,
}

impl Target {
    pub fn family(&self) -> Family {
        self.processor.family()
    }

    /// Whether a work-group's waves can sit behind different first-level caches, so that
    /// work-group scope needs cache bits, waits and invalidates: tgsplit on GFX90A/GFX942, WGP
    /// mode on GFX10+ (the two CUs of a WGP have their own L0).
    pub fn split_workgroup(&self) -> bool {
        match self.family() {
            Family::Gfx90a | Family::Gfx940 => self.tgsplit,
            Family::Gfx10 | Family::Gfx11 | Family::Gfx12 => self.wgp_mode,
            Family::Gfx8 | Family::Gfx9 => false,
        }
    }

    /// Whether the compiler that builds for this processor gives non-seq_cst `__hip_atomic_*`
    /// builtins a "one address space" syncscope (`agent-one-as`), which orders only the
    /// accessed space. clang-19 does. clang-22, the compiler `workloads/build.sh` uses for the
    /// processors LLVM 19 does not know (gfx950, gfx1250/1251), gives them the plain scope
    /// (`clang-22 -emit-llvm`: `syncscope("agent")` where clang-19 writes
    /// `syncscope("agent-one-as")`), so their releases wait for LDS too and their LDS atomics
    /// carry the work-group acquire and release (AMDGPUUsage, "Memory Model GFX942").
    pub fn one_as_atomics(&self) -> bool {
        !self.needs_llvm22()
    }

    /// Whether only LLVM 22 (of the two the project builds with) knows the processor, so its
    /// code is clang-22's (`workloads/build.sh` CONFIGS22).
    pub fn needs_llvm22(&self) -> bool {
        matches!(self.processor, Processor::Gfx950 | Processor::Gfx1250 | Processor::Gfx1251)
    }

    /// The compiler whose code the lowering describes, as reports name it.
    pub fn compiler(&self) -> &'static str {
        if self.needs_llvm22() {
            "clang-22"
        } else {
            "clang-19"
        }
    }

    /// The target a code object's kernel was built for: its processor, and the modes its
    /// kernel descriptor records (wave size; `WGP_MODE` in COMPUTE_PGM_RSRC1 on GFX10+,
    /// `TG_SPLIT` in COMPUTE_PGM_RSRC3 on GFX90A/GFX942).
    pub fn of_kernel(co: &hipscope_isa::codeobj::CodeObject, k: &hipscope_isa::codeobj::Kernel) -> Target {
        Target::of(co.target.processor, k.wave_size == 64, &k.descriptor)
    }

    /// The target of a kernel with this descriptor, built for `processor` (see
    /// [`Target::of_kernel`]).
    pub fn of(processor: Processor, wave64: bool, d: &hipscope_isa::codeobj::KernelDescriptor) -> Target {
        let wgp_mode = d.compute_pgm_rsrc1.wgp_mode.unwrap_or(false);
        let tgsplit = matches!(d.compute_pgm_rsrc3, hipscope_isa::codeobj::Rsrc3::Gfx90a { tg_split: true, .. });
        Target { processor, wave64, wgp_mode, tgsplit }
    }

    /// The name `workloads/build.sh` gives this build (`gfx1100-w32-wgp`, `gfx90a-tgsplit`).
    pub fn config_name(&self) -> String {
        let p = self.processor.name();
        match self.family() {
            Family::Gfx10 | Family::Gfx11 => {
                format!("{p}-w{}-{}", if self.wave64 { 64 } else { 32 }, if self.wgp_mode { "wgp" } else { "cu" })
            }
            Family::Gfx90a | Family::Gfx940 if self.tgsplit => format!("{p}-tgsplit"),
            _ => p.to_string(),
        }
    }
}

/// The kind of an atomic read-modify-write as the lowering sees it (the operation picks the
/// mnemonic; everything else is the same for all of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rmw {
    Op(RmwOp),
    /// Strong compare-and-swap.
    Cas,
}

/// One memory operation: a litmus statement's (the grader converts it), or one read back from
/// compiled code ([`crate::recover`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Load {
        access: Access,
        space: Space,
    },
    Store {
        access: Access,
        space: Space,
    },
    /// An atomic RMW (`access` is always atomic); `returns`: the old value is used (a litmus
    /// RMW with a result register). A CAS with different success and failure orders is
    /// lowered with the stronger of the two, as the compiler does.
    Rmw {
        rmw: Rmw,
        access: Access,
        space: Space,
        returns: bool,
    },
    /// A fence on the memory spaces `spaces`: all of them is `__builtin_amdgcn_fence(order,
    /// scope)`, one is the three-argument form (`"global"` / `"local"`).
    Fence {
        order: Order,
        scope: Scope,
        spaces: Spaces,
    },
    /// `__syncthreads()`: release fence, `s_barrier`, acquire fence, at work-group scope, the
    /// fences on `spaces` (OpenCL `barrier(CLK_LOCAL_MEM_FENCE)` orders LDS only).
    Barrier {
        spaces: Spaces,
    },
}

/// The stronger of a CAS's success and failure accesses: an order with the acquire and release
/// sides of both, at the wider scope.
pub fn stronger(a: Access, b: Access) -> Access {
    match (a, b) {
        (Access::Atomic { order: o1, scope: s1 }, Access::Atomic { order: o2, scope: s2 }) => {
            let order = if o1 == Order::SeqCst || o2 == Order::SeqCst {
                Order::SeqCst
            } else {
                match (o1.acquires() || o2.acquires(), o1.releases() || o2.releases()) {
                    (true, true) => Order::AcqRel,
                    (true, false) => Order::Acquire,
                    (false, true) => Order::Release,
                    (false, false) => Order::Relaxed,
                }
            };
            Access::Atomic { order, scope: s1.max(s2) }
        }
        (Access::Plain, x) | (x, Access::Plain) => x,
    }
}

/// One line of a lowered sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    Wait(Wait),
    /// A memory access, cache-maintenance or barrier instruction: its LLVM mnemonic and its
    /// cache-policy bits as encoded (`CachePolicy`: glc/slc/dlc/scc, which GFX940 names
    /// sc0/nt/sc1; GFX12 th and scope).
    Inst {
        mnemonic: String,
        cpol: CachePolicy,
        family: Family,
    },
}

impl Line {
    pub fn inst(family: Family, mnemonic: &str, cpol: u32) -> Line {
        Line::Inst { mnemonic: mnemonic.to_string(), cpol: CachePolicy(cpol), family }
    }
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Line::Wait(w) => {
                write!(f, "wait")?;
                for (c, v) in &w.0 {
                    write!(f, " {}({v})", c.name())?;
                }
                Ok(())
            }
            // The bits by the names llvm-objdump prints for the instruction.
            Line::Inst { mnemonic, cpol, family } => write!(f, "{mnemonic}{}", cpol.names(*family, flags_of(mnemonic))),
        }
    }
}

/// A sequence as one line of text (`a ; b ; c`), for tables and messages.
pub fn show(lines: &[Line]) -> String {
    if lines.is_empty() {
        return "(nothing)".into();
    }
    lines.iter().map(|l| l.to_string()).collect::<Vec<_>>().join(" ; ")
}

/// Merge each run of consecutive waits into one (the normal form of [`lower`]'s output, and
/// what the test applies to the compiled code).
pub fn merge_waits(lines: Vec<Line>) -> Vec<Line> {
    let mut out: Vec<Line> = Vec::with_capacity(lines.len());
    for line in lines {
        match (out.last_mut(), line) {
            (Some(Line::Wait(prev)), Line::Wait(w)) => prev.merge(&w),
            (_, Line::Wait(w)) if w.is_empty() => {}
            (_, l) => out.push(l),
        }
    }
    out
}

/// The instructions clang-19 emits for `op` on `target` (memory-model part only, see the
/// module documentation), on a 32-bit `int`.
pub fn lower(op: &Op, target: &Target) -> Vec<Line> {
    lower_typed(op, ValueType::INT, target)
}

/// [`lower`] for an access to a value of type `ty`: the same sequence, with the access
/// instruction of the type (unsigned min/max, 64-bit forms; see `widths.rs`).
pub fn lower_typed(op: &Op, ty: ValueType, target: &Target) -> Vec<Line> {
    let rules = tables::rules(target, ty);
    let mut seq: Vec<tables::Step> = Vec::new();
    rules.sequence(op, &mut seq);
    rules.finish(seq)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(order: Order, scope: Scope) -> Access {
        Access::Atomic { order, scope }
    }

    #[test]
    fn cas_takes_the_stronger_order_and_wider_scope() {
        assert_eq!(stronger(at(Order::Release, Scope::Workgroup), at(Order::Acquire, Scope::Agent)), at(Order::AcqRel, Scope::Agent));
        assert_eq!(stronger(at(Order::Relaxed, Scope::Agent), at(Order::Relaxed, Scope::Agent)), at(Order::Relaxed, Scope::Agent));
        assert_eq!(stronger(at(Order::SeqCst, Scope::System), at(Order::Relaxed, Scope::System)), at(Order::SeqCst, Scope::System));
        assert_eq!(stronger(at(Order::AcqRel, Scope::Agent), at(Order::Acquire, Scope::Agent)), at(Order::AcqRel, Scope::Agent));
    }

    #[test]
    fn every_config_name_round_trips() {
        for (name, target) in CONFIGS {
            assert_eq!(target.config_name(), *name);
        }
    }

    #[test]
    fn wavefront_scope_is_free_everywhere() {
        for (_, t) in CONFIGS {
            let op = Op::Fence { order: Order::SeqCst, scope: Scope::Wavefront, spaces: Spaces::ALL };
            assert!(lower(&op, t).is_empty());
            let op = Op::Rmw { rmw: Rmw::Op(RmwOp::Add), access: at(Order::SeqCst, Scope::WorkItem), space: Space::Global, returns: true };
            assert_eq!(lower(&op, t).len(), 1, "{}", t.config_name());
        }
    }

    #[test]
    fn agent_acquire_load_on_gfx942() {
        let t = CONFIGS.iter().find(|(n, _)| *n == "gfx942").unwrap().1;
        let op = Op::Load { access: at(Order::Acquire, Scope::Agent), space: Space::Global };
        assert_eq!(show(&lower(&op, &t)), "global_load_dword sc1 ; wait vmcnt(0) ; buffer_inv sc1");
    }
}
