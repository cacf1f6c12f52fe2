//! Fuzz the decoder and printer: the first byte selects processor, wave size and true16 mode;
//! the rest is decoded as a code range and printed (`decode::fuzz_one`, which
//! `isa/tests/suite/decode_robustness.rs` also runs).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = hipscope_isa::decode::fuzz_one(data);
});
