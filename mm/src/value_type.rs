//! The integer types of the values memory operations read and write (the declared types of a
//! litmus test's locations and registers), and C's rules for them. The lowering picks an
//! access instruction by the type (unsigned min/max, 64-bit forms).
//!
//! Every value the grader computes is the mathematical value of its type: an `int` holds
//! −2³¹…2³¹−1, an `unsigned` 0…2³²−1, an `unsigned long` 0…2⁶⁴−1 ([`Value`] is wide enough
//! for all of them), so values print and compare as C would print and compare them.
//!
//! The rules, all from the C++ standard (C++20), which HIP follows:
//! * converting a value to an integer type gives the value congruent to it modulo 2ᴺ
//!   ([conv.integral]/3; C++20 made this defined for signed types too); converting to
//!   `bool` gives whether it is non-zero ([conv.bool]);
//! * unsigned arithmetic wraps modulo 2ᴺ ([basic.fundamental]/2), and so do the atomic
//!   read-modify-writes on signed types ([atomics.types.int]/7: "the result is as if the
//!   object value and parameters were converted to their corresponding unsigned types, the
//!   computation performed on those types, and the result converted back to the signed
//!   type");
//! * a binary operator converts both operands to their common type first ([expr.arith.conv]):
//!   the wider one, or the unsigned one when both are as wide;
//! * plain signed overflow in a register expression (`r + 1` at `INT_MAX`) is undefined in
//!   C++ ([expr.pre]/4). The grader wraps it, as the hardware's `s_add_u32` does and as clang
//!   does with `-fwrapv`; it is documented in `workloads/litmus/README.md`.
//!
//! A literal a type cannot hold is refused where clang-19 warns by default: an initial value
//! or operand that changes when converted (`int x = 2147483648`, `-Wconstant-conversion`), a
//! comparison whose result the constant alone decides (`x == 2147483648` for an `int`,
//! `-Wtautological-constant-out-of-range-compare`). A negative literal for an unsigned type
//! is C's idiom for its top values (`unsigned x = -1` is `UINT_MAX`, and `x == -1` compares
//! with it): clang does not warn and the grader converts it.

use std::fmt;

/// Values of locations and registers: the mathematical value in the declared
/// [`ValueType`] (so an `unsigned long` can hold 2⁶⁴−1 and a negative `int` stays negative).
/// 128 bits hold every value of every type, and the product of two of them modulo 2¹²⁸,
/// which is all a conversion back to the type needs.
pub type Value = i128;

/// An integer type: its width in bits and signedness. `bool` is the one-bit type (only
/// registers have it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ValueType {
    pub bits: u8,
    pub signed: bool,
}

impl ValueType {
    pub const BOOL: ValueType = ValueType { bits: 1, signed: false };
    pub const INT: ValueType = ValueType { bits: 32, signed: true };
    pub const UINT: ValueType = ValueType { bits: 32, signed: false };
    pub const LONG: ValueType = ValueType { bits: 64, signed: true };
    pub const ULONG: ValueType = ValueType { bits: 64, signed: false };

    /// Bytes the type occupies in memory or a register (`bool` in a 32-bit register).
    pub fn bytes(self) -> u8 {
        if self.bits > 32 {
            8
        } else {
            4
        }
    }

    /// Whether the type takes two 32-bit registers.
    pub fn wide(self) -> bool {
        self.bits > 32
    }

    pub fn min(self) -> Value {
        if self.signed {
            -(1 << (self.bits - 1))
        } else {
            0
        }
    }

    pub fn max(self) -> Value {
        if self.signed {
            (1 << (self.bits - 1)) - 1
        } else {
            (1 << self.bits) - 1
        }
    }

    pub fn fits(self, v: Value) -> bool {
        (self.min()..=self.max()).contains(&v)
    }

    /// `v` converted to this type ([conv.integral], [conv.bool]): the value congruent to it
    /// modulo 2ᴺ, or for `bool` whether it is non-zero.
    pub fn wrap(self, v: Value) -> Value {
        if self == ValueType::BOOL {
            return Value::from(v != 0);
        }
        let modulus: Value = 1 << self.bits;
        let r = v.rem_euclid(modulus);
        if self.signed && r > self.max() {
            r - modulus
        } else {
            r
        }
    }

    /// The value of this type a literal stands for where clang-19 accepts it without a
    /// warning (an initialiser, an operand, a comparison): the literal itself when the type
    /// holds it; for an unsigned type also a negative literal as wide as the type's signed
    /// counterpart, converted modulo 2ᴺ (`unsigned x = -1`). `None`: out of range.
    pub fn literal(self, v: Value) -> Option<Value> {
        if self.fits(v) {
            return Some(v);
        }
        let as_signed = ValueType { bits: self.bits, signed: true };
        (!self.signed && self != ValueType::BOOL && v < 0 && as_signed.fits(v)).then(|| self.wrap(v))
    }

    /// The type C gives an unsuffixed integer literal of value `v` ([lex.icon]): `int` if it
    /// fits, else `long`, else (past `LONG_MAX`, where clang warns and reads it as unsigned)
    /// `unsigned long`.
    pub fn of_literal(v: Value) -> ValueType {
        if ValueType::INT.fits(v) {
            ValueType::INT
        } else if ValueType::LONG.fits(v) {
            ValueType::LONG
        } else {
            ValueType::ULONG
        }
    }

    /// The type both operands of a binary operator are converted to ([expr.arith.conv], after
    /// the promotion of `bool` to `int`).
    pub fn common(a: ValueType, b: ValueType) -> ValueType {
        let (a, b) = (a.promoted(), b.promoted());
        if a == b {
            return a;
        }
        if a.signed == b.signed {
            return if a.bits >= b.bits { a } else { b };
        }
        let (s, u) = if a.signed { (a, b) } else { (b, a) };
        // The signed type wins only when it is wider (so it holds every unsigned value).
        if s.bits > u.bits {
            s
        } else {
            u
        }
    }

    /// Integral promotion ([conv.prom]): `bool` becomes `int`; the others stay.
    pub fn promoted(self) -> ValueType {
        if self.bits < 32 {
            ValueType::INT
        } else {
            self
        }
    }

    /// A one-word C, `<cstdint>` or OpenCL type name (`int`, `unsigned`, `long`, `uint`,
    /// `ulong`, `int32_t`, `uint64_t`, `size_t`, …; OpenCL's `long` is 64 bits, OpenCL C 2.0
    /// §6.1.1, as is LP64 C's). `None` for anything else.
    pub fn from_c_name(word: &str) -> Option<ValueType> {
        Some(match word {
            "int" | "signed" | "int32_t" => ValueType::INT,
            "unsigned" | "uint" | "uint32_t" => ValueType::UINT,
            "long" | "int64_t" | "intptr_t" | "ptrdiff_t" => ValueType::LONG,
            "ulong" | "uint64_t" | "uintptr_t" | "size_t" => ValueType::ULONG,
            _ => return None,
        })
    }

    /// The C spelling.
    pub fn name(self) -> &'static str {
        match (self.bits, self.signed) {
            (1, _) => "bool",
            (32, true) => "int",
            (32, false) => "unsigned int",
            (64, true) => "long",
            (64, false) => "unsigned long",
            _ => "integer",
        }
    }

    /// "`int` (-2147483648 to 2147483647)", for messages.
    pub fn describe(self) -> String {
        format!("`{}` ({} to {})", self.name(), self.min(), self.max())
    }
}

impl fmt::Display for ValueType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CPU's own conversions are the reference: `as` between Rust integers is modular.
    #[test]
    fn wrap_agrees_with_the_cpu() {
        for v in [0i128, 1, -1, 2147483647, 2147483648, -2147483649, 4294967295, 4294967296, i64::MAX as i128 + 1, -(1i128 << 70) - 5] {
            assert_eq!(ValueType::INT.wrap(v), v as i32 as i128, "{v}");
            assert_eq!(ValueType::UINT.wrap(v), v as u32 as i128, "{v}");
            assert_eq!(ValueType::LONG.wrap(v), v as i64 as i128, "{v}");
            assert_eq!(ValueType::ULONG.wrap(v), v as u64 as i128, "{v}");
            assert_eq!(ValueType::BOOL.wrap(v), i128::from(v != 0), "{v}");
        }
    }

    #[test]
    fn literals_follow_clangs_warnings() {
        assert_eq!(ValueType::INT.literal(2147483648), None);
        assert_eq!(ValueType::INT.literal(-2147483648), Some(-2147483648));
        assert_eq!(ValueType::UINT.literal(-1), Some(4294967295));
        assert_eq!(ValueType::UINT.literal(-2147483648), Some(2147483648));
        assert_eq!(ValueType::UINT.literal(-2147483649), None);
        assert_eq!(ValueType::UINT.literal(4294967296), None);
        assert_eq!(ValueType::ULONG.literal(-1), Some(u64::MAX as i128));
        assert_eq!(ValueType::LONG.literal(1 << 63), None);
        assert_eq!(ValueType::BOOL.literal(2), None);
    }

    #[test]
    fn common_types_follow_the_usual_arithmetic_conversions() {
        use ValueType as T;
        assert_eq!(T::common(T::INT, T::UINT), T::UINT);
        assert_eq!(T::common(T::LONG, T::UINT), T::LONG);
        assert_eq!(T::common(T::INT, T::ULONG), T::ULONG);
        assert_eq!(T::common(T::LONG, T::ULONG), T::ULONG);
        assert_eq!(T::common(T::BOOL, T::BOOL), T::INT);
        assert_eq!(T::of_literal(2147483648), T::LONG);
        assert_eq!(T::of_literal(u64::MAX as i128), T::ULONG);
    }
}
