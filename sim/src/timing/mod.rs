//! Timing mode: waves issue instructions on the CUs' pipelines, memory accesses go through
//! the memory system ([`crate::memsys`]), and the dispatch takes cycles.
//!
//! * [`waitcnt`]: outstanding-operation counters and the wait instructions.

pub mod waitcnt;
