//! Operand data types as the VALU sees them: how wide a source is in registers, whether float
//! modifiers (sign-bit abs/neg) and denormal flushing apply, and how results are post-processed.

/// Data type of one operand of one operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    None,
    U16,
    I16,
    U32,
    I32,
    U64,
    /// Signed 64-bit integer: a 32-bit literal is sign-extended (ISA manuals, "Literal Expansion
    /// to 64 bits": floats pad the low half with zeros, unsigned integers zero-extend, signed
    /// integers sign-extend).
    I64,
    F16,
    F32,
    F64,
    /// Untyped 16/32/64-bit data that accepts float abs/neg but is never flushed (V_MOV,
    /// V_CNDMASK: "floating-point modifiers are valid for this instruction").
    B16,
    B32,
    B64,
    /// VOP3P packed pairs: two f16 / two 16-bit integers in a dword, two f32 / two dwords in a
    /// register pair.
    PkF16,
    PkI16,
    /// Two bfloat16 values: neg acts on each sign bit (bit 15 like f16); never flushed.
    PkB16,
    PkF32,
    PkB32,
    /// VOP3P MIX sources: raw dword; the kernel selects f32 or an f16 half itself.
    Mix,
}

impl Ty {
    /// Bits the operand occupies in registers.
    pub fn bits(self) -> u32 {
        match self {
            Ty::U16 | Ty::I16 | Ty::F16 | Ty::B16 => 16,
            Ty::U64 | Ty::I64 | Ty::F64 | Ty::B64 | Ty::PkF32 | Ty::PkB32 => 64,
            _ => 32,
        }
    }

    /// Width of the float element whose sign bit abs/neg act on (None: integer data).
    pub fn float_elem(self) -> Option<u32> {
        match self {
            Ty::F16 | Ty::B16 | Ty::PkF16 | Ty::PkB16 => Some(16),
            Ty::F32 | Ty::B32 | Ty::PkF32 => Some(32),
            Ty::F64 | Ty::B64 => Some(64),
            _ => None,
        }
    }

    /// Float data subject to the MODE denormal controls.
    pub fn flushes(self) -> bool {
        matches!(self, Ty::F16 | Ty::F32 | Ty::F64 | Ty::PkF16 | Ty::PkF32)
    }

    pub fn is_packed(self) -> bool {
        matches!(self, Ty::PkF16 | Ty::PkI16 | Ty::PkB16 | Ty::PkF32 | Ty::PkB32)
    }

    /// Element width of a packed type (16 or 32).
    pub fn elem_bits(self) -> u32 {
        match self {
            Ty::PkF32 | Ty::PkB32 => 32,
            Ty::PkF16 | Ty::PkI16 | Ty::PkB16 => 16,
            t => t.bits(),
        }
    }

    pub fn is_float(self) -> bool {
        self.flushes()
    }
}
