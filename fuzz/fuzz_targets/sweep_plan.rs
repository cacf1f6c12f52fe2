//! Fuzz the sweep plan reader: the input is a plan's text, parsed, checked, its points counted
//! and (up to 2 000) made with every config checked, nothing run (`fuzzing::fuzz_one`, which
//! `sweep/tests/plan_robustness.rs` also runs on mutated committed plans).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = hipscope_sweep::fuzzing::fuzz_one(data);
});
