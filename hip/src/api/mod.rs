//! The C entry points, by area of the HIP API. Each checks what it can of its pointers and
//! hands the call to the runtime under its lock ([`crate::with_runtime`]).

pub(crate) mod device;
pub(crate) mod errors;
pub(crate) mod graph;
pub(crate) mod host_funcs;
mod image_len;
pub(crate) mod launch;
pub(crate) mod memory;
pub(crate) mod memory2d;
pub(crate) mod module;
mod names;
mod per_thread;
pub(crate) mod registration;
pub(crate) mod streams;
pub(crate) mod texture;
mod unsupported;

/// Forget every handle the API's own tables hold (events, graphs and captures, texture
/// objects): the in-process fuzzer's fresh start, with a fresh runtime beside it, so that no
/// handle of one input names anything in the next.
pub(crate) fn reset_tables() {
    streams::forget_events();
    graph::forget_all();
    texture::forget_all();
}
