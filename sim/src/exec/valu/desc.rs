//! Per-opcode description: kernel, operand types, operand roles and modelling notes. Built by
//! `table::describe` once per instruction at classification.

use super::fast::Fast;
use super::lanes::Kernel;
use super::src::Ftz;
use super::ty::Ty;
use crate::exec::Fidelity;
use hipscope_isa::tables::OpName;

/// What an operation reads and writes beyond its vector sources and result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Vector result only.
    Plain,
    /// Vector result and a carry-out lane mask (VCC in VOP2, `sdst` in VOP3).
    CarryOut,
    /// Carry-in mask (VCC in VOP2, `src2` in VOP3) and carry-out.
    CarryInOut,
    /// Mask input only (V_CNDMASK: VCC or `src2`).
    Select,
    /// Mask input that is always VCC (V_DIV_FMAS).
    VccIn,
    /// Lane-mask result only (VOPC); `x` = V_CMPX.
    Cmp { x: bool },
}

#[derive(Debug, Clone, Copy)]
pub struct Desc {
    pub k: Kernel,
    pub src: [Ty; 3],
    pub dst: Ty,
    pub shape: Shape,
    /// Operands feeding sources 0..2.
    pub ops: [OpName; 3],
    pub ftz_in: Ftz,
    pub ftz_out: Ftz,
    pub fid: Fidelity,
    pub aux: u32,
    /// Write only this field of the destination (an SDWA select: 0-3 a byte, 4-5 a word) and
    /// keep the rest: the partial writes of gfx950's narrowing conversions.
    pub keep: Option<u8>,
    /// The direct path that computes it when its operands allow ([`super::fast`]).
    pub fast: Option<Fast>,
}

const OPS: [OpName; 3] = [OpName::src0, OpName::src1, OpName::src2];

impl Desc {
    pub fn new(k: Kernel, src: [Ty; 3], dst: Ty) -> Desc {
        Desc { k, src, dst, shape: Shape::Plain, ops: OPS, ftz_in: Ftz::Mode, ftz_out: Ftz::Mode, fid: Fidelity::Exact, aux: 0, keep: None, fast: None }
    }
    pub fn shape(mut self, s: Shape) -> Desc {
        self.shape = s;
        self
    }
    pub fn ops(mut self, ops: [OpName; 3]) -> Desc {
        self.ops = ops;
        self
    }
    /// Accumulating forms (V_MAC/V_FMAC): the third source is the destination.
    pub fn acc(self) -> Desc {
        self.ops([OpName::src0, OpName::src1, OpName::vdst])
    }
    /// Denormals flushed on input and output whatever MODE says.
    pub fn ftz_always(mut self) -> Desc {
        self.ftz_in = Ftz::Always;
        self.ftz_out = Ftz::Always;
        self
    }
    pub fn ftz_in(mut self, f: Ftz) -> Desc {
        self.ftz_in = f;
        self
    }
    pub fn approx(mut self, why: &'static str) -> Desc {
        self.fid = Fidelity::Approximate(why);
        self
    }
    pub fn aux(mut self, aux: u32) -> Desc {
        self.aux = aux;
        self
    }
    pub fn fast(mut self, f: Fast) -> Desc {
        self.fast = Some(f);
        self
    }
    pub fn keep(mut self, field: u8) -> Desc {
        self.keep = Some(field);
        self
    }
}

/// Unary, binary and ternary operations on one type.
pub fn un(k: Kernel, t: Ty) -> Desc {
    Desc::new(k, [t, Ty::None, Ty::None], t)
}
pub fn bin(k: Kernel, t: Ty) -> Desc {
    Desc::new(k, [t, t, Ty::None], t)
}
pub fn tri(k: Kernel, t: Ty) -> Desc {
    Desc::new(k, [t, t, t], t)
}
/// Conversion from one type to another.
pub fn cvt(k: Kernel, from: Ty, to: Ty) -> Desc {
    Desc::new(k, [from, Ty::None, Ty::None], to)
}
/// Any operand types.
pub fn any(k: Kernel, src: [Ty; 3], dst: Ty) -> Desc {
    Desc::new(k, src, dst)
}
