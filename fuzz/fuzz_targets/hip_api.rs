//! Fuzz the HIP runtime's entry points in-process: each input is a short program of HIP calls
//! (allocations, copies, fills, symbols, streams, events, graphs, modules, launches) whose
//! arguments come from the input's own pools of buffers and handles (`fuzzing::fuzz_one` of
//! the hip crate, which `hip/tests/api_robustness.rs` also runs).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = amdhip64::fuzzing::fuzz_one(data);
});
