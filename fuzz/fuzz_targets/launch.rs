//! Fuzz a launch: a header picks GPU, mode, geometry, kernel, seed and argument bytes, the
//! rest is a code object that is loaded, launched with small buffers and run for a bounded
//! number of instructions (`fuzzing::fuzz_one`, which `sim/tests/suite/launch_robustness.rs` also
//! runs on mutated workload code objects).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = hipscope_sim::fuzzing::fuzz_one(data);
});
