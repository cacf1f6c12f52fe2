//! hipscope-isa: everything about AMDGPU machine code that does not involve time.
//!
//! * [`target`]: processors, ELF machine numbers, ISA families.
//! * [`codeobj`]: code objects (ELF, notes, kernel descriptors, relocations, offload bundles,
//!   HIP fat binaries) and their kernels.
//!
//! Data flows one way: bytes → code object → decoded program. Nothing here knows about cycles.

pub mod codeobj;
pub mod decode;
pub mod print;
pub mod tables;
pub mod target;
pub mod waitcnt;

pub use target::{Family, Processor, Target};
