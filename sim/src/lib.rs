//! hipscope-sim: the execution engine.
//!
//! * [`memory`]: the device address space (named allocations of a memory type), each held
//!   by a [`backing::Backing`] (large ones mapped lazily) or, for a program's large device
//!   allocations, [`sparse::Sparse`] chunks made at first write;
//! * [`wave`]: wavefront register state;
//! * [`exec`]: instruction semantics, classified once per instruction;
//! * [`kernel`]: a kernel's decoded and classified code;
//! * [`dispatch`]: launch geometry, runtime structures, initial wave state;
//! * [`sched`]: the scheduler both engines share (residency, barriers, retirement, faults,
//!   clocks) and the [`sched::Engine`] seam a launch picks its engine through;
//! * [`engine`]: the functional engine; [`progress`]: livelock detection for both engines;
//! * [`timing`]: the timing engine, its issue units and its trace output;
//! * [`scratch`]: sizing the private-segment backing store of a dispatch;
//! * [`launch`]: [`launch::Device`], the entry point for clients; [`cosim`]: launches on
//!   several devices of a node run together on one timeline ([`node::turns`]); [`mode`]: functional or
//!   timing, the engine a client asks for;
//! * [`gpus`]: GPU configurations (built-in and from files, with timing parameters);
//! * [`node`]: node configurations: a host CPU, GPUs and the links between them (built-in
//!   and from files), the agents of system scope;
//! * [`memsys`]: the timing mode's memory system (data-carrying caches, L2 channels, MALL,
//!   DRAM); it knows nothing of instructions;
//! * [`observe`]: the [`observe::Observer`] seam through which clients watch a run;
//! * [`counters`]: performance counters with rocprof names;
//! * [`spec`]: launch specs (RON, or built as values) and the seam through which CPU reference
//!   models check them;
//! * [`sample`]: sampled timing at the level of launches (clusters of like launches, a few
//!   in detail, the rest predicted);
//! * `fuzzing`: one bounded launch from arbitrary bytes, for the fuzzer and the robustness test.
//!
//! It consumes decoded programs from `hipscope-isa` and never decodes in its inner loop.

pub mod backing;
pub mod cosim;
pub mod counters;
pub mod dispatch;
pub mod engine;
pub mod exec;
pub mod fault;
#[doc(hidden)]
pub mod fuzzing;
pub mod gpus;
pub mod host;
pub mod kernel;
pub mod launch;
pub mod memory;
pub mod memsys;
pub mod mode;
pub mod node;
pub mod observe;
pub mod progress;
pub mod sample;
pub mod sched;
pub mod scratch;
pub mod sparse;
pub mod spec;
#[cfg(any(test, feature = "test-rig"))]
#[doc(hidden)]
pub mod testing;
pub mod timing;
pub mod wave;

pub use cosim::{run_together, run_with_agents, NodeAgent};
pub use dispatch::Geometry;
pub use fault::{FaultKind, KernelFault, WaveId};
pub use launch::{Device, LaunchError};
pub use memory::{Memory, MemoryKind};
pub use mode::Mode;
pub use sched::{DispatchStats, EngineOptions, Threads};
