//! The C entry points, by area of the HIP API. Each checks what it can of its pointers and
//! hands the call to the runtime under its lock ([`crate::with_runtime`]).

mod device;
mod errors;
mod graph;
mod host_funcs;
mod launch;
mod memory;
mod memory2d;
mod module;
mod names;
mod per_thread;
mod registration;
mod streams;
mod texture;
mod unsupported;
