//! hipscope-sim: the execution engine (wavefront semantics, CU/WGP timing, memory system).
//!
//! It consumes decoded programs from `hipscope-isa` and never decodes instructions itself.
//! The functional engine and timing model arrive with their issues; this crate only fixes
//! the place they live in the workspace layout.
