//! Races in compiled kernels as the simulator runs them: what the grader (`hipscope grade
//! --spec`, `--exec`) and the HIP runtime (`HIPSCOPE_RACES`, `HIPSCOPE_STORY`) share.
//!
//! Both parts are observers of a launch ([`hipscope_sim::observe`]): the [`detector`] finds
//! racing pairs of accesses by vector clocks with scopes, and the [`story`] tells what the
//! simulated memory system did with one race on a timing-mode replay. Observers compose
//! ([`hipscope_sim::observe::Fan`]), so both can watch the same run. [`runs`] grades a
//! kernel over seeded schedules and gathers what a reader of the verdict needs. This crate
//! reads the memory-model vocabulary (`hipscope_mm`) and the engine; the grader and the
//! runtime sit above it.

pub mod detector;
pub mod runs;
pub mod siblings;
pub mod story;
