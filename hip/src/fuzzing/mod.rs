//! The HIP API from arbitrary bytes, in-process: the `hip_api` cargo-fuzz target and
//! `hip/tests/api_robustness.rs` both run [`fuzz_one`], so that whatever arguments a program
//! passes, every call ends in an error code (or success) — never a panic, an abort, a hang or
//! a crash of the process.
//!
//! Each input starts from a fresh simulated GPU (the runtime and the API's handle tables
//! made anew, so an input behaves the same whenever it runs) with `module_kernel.hip`
//! registered as a program's device code is. The input is then a sequence of operations, at
//! most [`MAX_OPS`]: an opcode byte picks one of allocation and free, copies, fills, 2D and
//! 3D copies and fills, symbol copies, pointer queries, streams, events, capture and graphs,
//! device calls, launches and modules; the bytes after it pick the call and its arguments
//! from tables of sizes, lengths, shapes and kinds ([`memory_ops`], [`launch_ops`],
//! [`handle_ops`]). Pointers and handles come from the input's own pools ([`state`]).
//!
//! A kernel fault and device memory the host cannot back end a real program with status 3;
//! here they are errors the call returns (`crate::fatal::contain`).

mod handle_ops;
mod input;
mod launch_ops;
mod memory_ops;
mod state;

pub use state::Results;
use std::sync::Mutex;

/// Operations per input, at most.
pub const MAX_OPS: usize = 64;

/// What one input did: its operations by name and result code.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Summary {
    pub results: Results,
}

/// Inputs run one at a time: the runtime is the process's.
static RUNNING: Mutex<()> = Mutex::new(());

/// Run one input (see the module documentation).
pub fn fuzz_one(data: &[u8]) -> Summary {
    let _one = RUNNING.lock().unwrap_or_else(|p| p.into_inner());
    crate::fatal::contain();
    if let Err(e) = crate::fresh_runtime() {
        // The environment names no GPU the runtime can simulate: nothing to fuzz.
        let mut results = Results::new();
        results.insert(("cannot start the simulated GPU", 0), e.len());
        return Summary { results };
    }
    crate::api::reset_tables();
    let mut st = state::State::new();
    let mut r = input::Input::new(data);
    for _ in 0..MAX_OPS {
        if r.done() {
            break;
        }
        step(&mut st, &mut r);
    }
    Summary { results: st.results }
}

/// One operation.
fn step(st: &mut state::State, r: &mut input::Input) {
    match r.u8() % 16 {
        0 | 1 => memory_ops::malloc(st, r),
        2 => memory_ops::free(st, r),
        3 | 4 => memory_ops::copy(st, r),
        5 => memory_ops::fill(st, r),
        6 => memory_ops::copy2d(st, r),
        7 => memory_ops::copy3d(st, r),
        8 => memory_ops::symbol(st, r),
        9 => memory_ops::query(st, r),
        10 => memory_ops::pitched(st, r),
        11 => handle_ops::stream(st, r),
        12 => handle_ops::event(st, r),
        13 => handle_ops::graphs(st, r),
        14 => match r.u8() % 4 {
            0 => handle_ops::device(st, r),
            1 => launch_ops::modules(st, r),
            2 => launch_ops::module_launch(st, r),
            _ => launch_ops::kernel(st, r),
        },
        _ => launch_ops::kernel(st, r),
    }
}
