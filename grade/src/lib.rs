//! The grader: what a memory-model course needs from hipscope.
//!
//! Data flows one way: a litmus file in one of three dialects is parsed into one typed
//! [`litmus::Litmus`] program; the language layer (`model`) enumerates its candidate
//! executions and judges them under a scoped model (libhipcxx's scoped C++, HSA or OpenCL);
//! the hardware layer lowers the same program to AMDGPU instructions (`hipscope_mm::lower`) and
//! runs it on the engine. The language layer knows nothing of the engine. Races in compiled
//! kernels (`grade --spec`, `--exec`) are `hipscope_race`'s: the HIP runtime uses them too.

pub mod explain;
pub mod fix;
pub mod fuzzing;
pub mod hardware;
pub mod litmus;
pub mod model;
pub mod report;
