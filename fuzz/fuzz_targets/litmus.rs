//! Fuzz a litmus file in any dialect: parsed, judged under the three models within a small
//! budget, reported, lowered and compiled for the hardware layer (`fuzzing::fuzz_one`, which
//! `grade/tests/suite/litmus_fuzz.rs` also runs on mutated litmus files).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = hipscope_grade::fuzzing::fuzz_one(data);
});
