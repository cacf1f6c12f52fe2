//! The crate's integration tests, one module per former test binary: one binary links
//! the workspace once instead of once per test file (build time). Run one file's tests
//! with `cargo test --release --test suite <file>::`.

mod bench_specs;
mod scopes_contended;
mod scopes_node;
mod scopes_system;
mod spec_references;
mod spec_robustness;
