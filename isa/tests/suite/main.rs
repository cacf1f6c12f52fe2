//! The crate's integration tests, one module per former test binary: one binary links
//! the workspace once instead of once per test file (build time). Run one file's tests
//! with `cargo test --release --test suite <file>::`.

mod codeobj_common;

mod ccob;
mod codeobj_clang;
mod codeobj_external;
mod codeobj_robustness;
mod decode_robustness;
mod disasm_golden;
mod external_decode;
mod kernel_lookup;
mod line_tables;
mod llvm22_corpus;
mod llvm_mc_corpus;
mod llvm_mc_random;
