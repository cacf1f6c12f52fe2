//! The C entry points, by area of the HIP API. Each checks what it can of its pointers and
//! hands the call to the runtime under its lock ([`crate::with_runtime`]).

mod device;
mod errors;
mod launch;
mod memory;
mod module;
mod registration;
mod streams;
mod unsupported;
