//! Fuzz the code-object loader: container detection, bundles, HIP fat binaries, ELF, notes,
//! metadata (YAML and MessagePack), relocations and kernel descriptors. The work is
//! `codeobj::fuzz_one`, which `isa/tests/suite/codeobj_robustness.rs` also runs on mutated real objects.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = hipscope_isa::codeobj::fuzz_one(data);
});
