//! Sweeps: architecture exploration as one command.
//!
//! A plan ([`plan`]) names workloads (launch specs, HIP programs, the scope suite, litmus
//! tests), a base GPU, axes over the GPU config's fields and seeds; [`validate`] checks what
//! its types cannot say, and the points are counted arithmetically ([`range`],
//! [`points::count`]) and refused beyond [`points::MAX_POINTS`] before any is made. Its points
//! ([`points`]) come in a fixed order, every config checked before anything runs. [`run`] runs
//! a shard of them in parallel, each point kept apart in a worker process ([`worker`]) so that
//! a workload that crashes fails its point only, and appends one JSON line per point as it
//! finishes, so an interrupted sweep resumes where it stopped. The plan hash covers the plan,
//! the base config and the contents of every file the workloads read ([`inputs`], recorded
//! in the output directory's `plan.json`, [`copy`]), so a file edited between shards is named
//! instead of mixed in. [`merge`] checks that every shard and point is there exactly once,
//! from the same plan and files, and writes the results as CSV and JSON with plots ([`plot`]).
//! [`slurm`] writes the job array that runs the shards on a cluster and the merge job that
//! waits for them. [`fuzzing`] is the plan reader as the `sweep_plan` fuzz target runs it.
//!
//! A client of the engine, like the scope suite and the grader: it reaches the simulator only
//! through launch specs, the scope suite, the grader's hardware layer and HIP programs run as
//! `hipscope exec` runs them (`hipscope_studies::program`).

pub mod copy;
pub mod fuzzing;
pub mod inputs;
pub mod merge;
pub mod metrics;
pub mod plan;
pub mod plot;
pub mod points;
pub mod range;
pub mod record;
pub mod run;
pub mod slurm;
pub mod validate;
pub mod worker;
pub mod workload;

pub use plan::{Plan, PlanError};
