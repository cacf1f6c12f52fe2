//! Vector memory: FLAT, GLOBAL, SCRATCH and buffer (MUBUF/MTBUF) loads, stores and atomics,
//! image loads and samples, and the cache-maintenance instructions.
//!
//! * [`flat`]: FLAT/GLOBAL/SCRATCH addressing and execution (FLAT apertures: LDS, private,
//!   global);
//! * [`vsharp`]: buffer resources (V#), buffer addressing and range checking per generation;
//! * [`buffer`]: MUBUF/MTBUF execution (sizes, atomics, formats, TFE, LDS-DMA);
//! * `bulk`: the fast path for GLOBAL whole-dword loads/stores within one allocation;
//! * [`space`]: where a lane's bytes live, including the per-lane **scratch layout**;
//! * [`shape`]: load/store sizes, sign/zero extension, D16 halves;
//! * [`atomic`], [`fp`]: atomic operations (shared with LDS atomics) and their float rules;
//! * [`mod@format`]: typed-buffer formats (documented subset);
//! * [`image`]: image loads and sampling of linear 1D/2D images (MIMG, VIMAGE, VSAMPLE);
//! * [`cache`]: cache maintenance (no effect in functional mode);
//! * `classify`: mnemonic/encoding parsing, once per instruction.
//!
//! Data moves only for lanes enabled in EXEC, in ascending lane order (so atomics of several
//! lanes to one address apply in lane order). An access outside every allocation is
//! `FaultKind::MemoryViolation` with the lane and address of the first faulting lane; lanes
//! before it have completed.

pub mod atomic;
pub mod buffer;
mod bulk;
pub(crate) use bulk::{segmented, SEGMENT_LANES};
pub mod cache;
mod classify;
pub mod flat;
pub mod format;
pub mod fp;
pub mod image;
mod lanes;
pub mod shape;
pub mod space;
pub mod vsharp;

use super::{ExecCtx, Fidelity, Flow};
use crate::fault::FaultKind;
use buffer::{BufOp, BufWhat};
use cache::CacheOp;
use flat::{FlatOp, FlatWhat};
use hipscope_isa::decode::Inst;

/// A classified vector-memory instruction.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Flat(FlatOp),
    Buffer(BufOp),
    Cache(CacheOp),
    /// MIMG / VIMAGE / VSAMPLE (`image`).
    Image(Box<image::ImageOp>),
}

const FLOAT_ATOMIC: &str = "float atomics: denormal flushing and NaN selection follow CDNA4 ISA \u{a7}9.2 and \
     RDNA4 minimumNumber rules on every target";
const LDS_DMA: &str = "LDS-DMA load: LDS address M0-based per CDNA4 ISA \u{a7}9.1.9/\u{a7}10.3, data extended to a dword; gfx950's \
     12/16-byte forms at lane * size (assumed)";
const FORMAT: &str = "typed-buffer conversion: documented subset of formats (vmem::format); others fault";
const CACHE: &str = "cache maintenance: functional mode has no caches";
const IMAGE: &str = "image sampling: linear 1D/2D images; bilinear blend in f32 with 8-bit coordinate fractions";

impl Op {
    pub fn fidelity(&self) -> Fidelity {
        match self {
            Op::Cache(_) => Fidelity::NoEffect(CACHE),
            Op::Image(_) => Fidelity::Approximate(IMAGE),
            Op::Flat(f) => match &f.what {
                FlatWhat::Atomic(a) if a.op.is_float() => Fidelity::Approximate(FLOAT_ATOMIC),
                FlatWhat::LoadLds { .. } => Fidelity::Approximate(LDS_DMA),
                _ => Fidelity::Exact,
            },
            Op::Buffer(b) => match &b.what {
                BufWhat::Atomic(a) if a.op.is_float() => Fidelity::Approximate(FLOAT_ATOMIC),
                BufWhat::LoadLds { .. } => Fidelity::Approximate(LDS_DMA),
                BufWhat::LoadFormat { .. } | BufWhat::StoreFormat { .. } => Fidelity::Approximate(FORMAT),
                _ => Fidelity::Exact,
            },
        }
    }
}

pub fn classify(inst: &Inst, env: &super::Env) -> Option<Op> {
    classify::classify(inst, env)
}

pub fn execute(sem: &Op, _inst: &Inst, cx: &mut ExecCtx) -> Result<Flow, FaultKind> {
    match sem {
        Op::Flat(f) => f.execute(cx),
        Op::Buffer(b) => b.execute(cx),
        Op::Cache(_) => Ok(Flow::Next),
        Op::Image(i) => i.execute(cx),
    }
}
