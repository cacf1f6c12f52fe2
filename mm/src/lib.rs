//! hipscope-mm: the memory model's vocabulary and its per-target tables, below the engine and
//! the grader.
//!
//! * [`vocab`]: scope, memory order, access kind, memory spaces, RMW operation; [`value_type`]:
//!   the integer types of the values accessed.
//! * [`lower`]: the AMDGPU instructions clang-19 emits for each memory operation, per target
//!   and execution mode; [`recover`]: the same tables read backwards (compiled code → the
//!   operations it implements).
//! * [`wait`]: the wait counters and waits on them, the one model the lowering, the
//!   recogniser and the grader's code generator share.
//!
//! Depends on `hipscope-isa` only (processors, decoded instructions, cache-policy bits).

pub mod lower;
pub mod recover;
pub mod value_type;
pub mod vocab;
pub mod wait;

pub use value_type::{Value, ValueType};
pub use vocab::{Access, Order, RmwOp, Scope, Space, Spaces};
pub use wait::{Counter, Wait};
