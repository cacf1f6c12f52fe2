//! hipscope-studies: what we learn with the engine, on top of it.
//!
//! * [`validate`]: simulations against real device measurements (`hipscope validate`): the
//!   importers, one comparison per dataset, the known misses, and whole HIP programs against
//!   real times ([`validate::apps`]);
//! * [`scopes`]: the scope suite, what synchronization costs at each scope (`hipscope scopes`);
//! * [`references`]: the CPU reference models that check launch specs, and the registry of
//!   them a run is given ([`references::BUILT_IN`]);
//! * [`program`]: running an unmodified HIP program on the simulated GPU with hipscope's HIP
//!   runtime, bounded (`hipscope exec`, `validate --only apps` and sweeps' `Exec` workloads).
//!
//! The studies build their launch specs as values (`hipscope_sim::spec::SpecBuilder`) and reach
//! the engine through its public API only; nothing in the engine depends on them.

pub mod program;
pub mod references;
pub mod scopes;
pub mod validate;
