//! Timing mode: waves issue instructions on the CUs' pipelines, memory accesses go through
//! the memory system ([`crate::memsys`]), and the dispatch takes cycles.
//!
//! * [`jitter`]: the seeded start delay of work-groups (hardware launch-order variation).
//! * [`lds_banks`]: LDS bank conflicts of a DS instruction's lane addresses.
//! * [`waitcnt`]: outstanding-operation counters and the wait instructions.
//! * [`trace`]: Chrome trace-event output of a run (a client of the engine's reports).

pub mod class;
pub mod engine;
pub mod jitter;
pub mod lds_banks;
pub mod placement;
pub mod port;
pub mod trace;
pub mod waitcnt;
