//! The crate's integration tests, one module per former test binary: one binary links
//! the workspace once instead of once per test file (build time). Run one file's tests
//! with `cargo test --release --test suite <file>::`.

mod common;
#[path = "../../../mm/tests/isa_text/mod.rs"]
mod isa_text;
#[path = "../../../mm/tests/probes/mod.rs"]
mod probes;

mod agents;
mod bad_input;
mod cases;
mod columns_parse;
mod dartagnan_gpu;
mod dartagnan_liveness;
mod grade_robustness;
mod hardware;
mod hip_parse;
mod host_thread;
mod litmus_fuzz;
mod opencl_catalogue;
mod opencl_parse;
mod progress;
mod recover;
mod stress;
mod value_types;
mod verdicts;
mod weak_behaviours;
