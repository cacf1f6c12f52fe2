//! Timing mode: waves issue instructions on the CUs' pipelines, memory accesses go through
//! the memory system ([`crate::memsys`]), and the dispatch takes cycles.
//!
//! * [`engine`]: the event-driven engine, a policy on the shared scheduler ([`crate::sched`]);
//! * [`issue`]: its issue stage, one unit per instruction class;
//! * [`class`]: what each instruction means to the timing model, worked out once per kernel;
//! * [`placement`]: which CU (and SIMD) a work-group's waves run on;
//! * [`jitter`]: the seeded start delay of work-groups (hardware launch-order variation).
//! * [`lds_banks`]: LDS bank conflicts of a DS instruction's lane addresses.
//! * [`matrix`]: matrix-core issue rates (MFMA, WMMA), AMD's Matrix Instruction Calculator's.
//! * [`waitcnt`]: outstanding-operation counters and the wait instructions.
//! * [`port`]: the memory system as the instructions' memory port.
//! * [`trace`]: Chrome trace-event output of a run (a client of the engine's reports).

pub mod class;
pub mod engine;
pub(crate) mod issue;
pub mod jitter;
pub mod lds_banks;
pub mod matrix;
pub mod placement;
pub mod port;
pub mod trace;
pub mod waitcnt;

pub use engine::TimingState;
