//! Running an unmodified HIP program on the simulated GPU: hipscope's HIP runtime (`hip/`,
//! built as `libamdhip64.so`) goes in front of any other `libamdhip64`, so that the program's
//! host code runs natively and every HIP call lands on the simulator. No root and no system
//! change: a directory beside the library (`hipscope-abi/`, made once per build) holds it
//! under each release's soname (`libamdhip64.so.5`, `.6`, `.7`, each with that release's
//! symbol versions: `abi_library`) and goes first on `LD_LIBRARY_PATH`; the GPU, the mode and the outputs reach
//! the library through the environment ([`Environment`]).
//!
//! This is the one way hipscope runs a HIP program: `hipscope exec` runs it in an
//! [`Environment`] in the foreground; `validate --only apps` and sweeps' `Exec` workloads run
//! it with [`Environment::run`], bounded by [`Bounds`], and read what it printed and wrote.

mod abi_library;
mod environment;
mod run;

pub use environment::{Environment, Output};
pub use run::{children_cpu_time, exit_code, Bounds, Ending, Failure, Finished};
