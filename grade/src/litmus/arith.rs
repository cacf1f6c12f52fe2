//! What register expressions and atomic read-modify-writes compute, in C's types (the rules
//! are listed in [`super::value_type`]). The language model evaluates with these functions,
//! and the hardware layer picks its instructions by the same types ([`type_of`]), so the
//! two layers agree by construction on which arithmetic applies.

use super::program::{BinOp, Expr, RegId};

use hipscope_mm::{RmwOp, Value, ValueType};

/// The static type of `e`: a register's declared type, a literal's C type, the common type
/// of an arithmetic operator's operands, `int` for comparisons, logic and `!`.
pub fn type_of(e: &Expr, reg_type: &dyn Fn(RegId) -> ValueType) -> ValueType {
    match e {
        Expr::Const(v) => ValueType::of_literal(*v),
        Expr::Reg(r) => reg_type(*r),
        Expr::Not(_) => ValueType::INT,
        Expr::Bin(op, a, b) if is_arithmetic(*op) => ValueType::common(type_of(a, reg_type), type_of(b, reg_type)),
        Expr::Bin(..) => ValueType::INT,
    }
}

/// `+ - * & | ^`: the operators whose result has the operands' common type.
pub fn is_arithmetic(op: BinOp) -> bool {
    matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor)
}

/// Evaluates `e` over register values `regs` (each already a value of its register's type);
/// the result is a value of [`type_of`]`(e)`. Comparisons and logic give 0 or 1, as in C.
pub fn eval(e: &Expr, regs: &[Value], reg_type: &dyn Fn(RegId) -> ValueType) -> Value {
    eval_typed(e, regs, reg_type).0
}

fn eval_typed(e: &Expr, regs: &[Value], reg_type: &dyn Fn(RegId) -> ValueType) -> (Value, ValueType) {
    match e {
        Expr::Const(v) => (*v, ValueType::of_literal(*v)),
        Expr::Reg(r) => (regs.get(r.0 as usize).copied().unwrap_or(0), reg_type(*r)),
        Expr::Not(a) => (Value::from(eval_typed(a, regs, reg_type).0 == 0), ValueType::INT),
        Expr::Bin(op, a, b) => {
            let ((x, tx), (y, ty)) = (eval_typed(a, regs, reg_type), eval_typed(b, regs, reg_type));
            let common = ValueType::common(tx, ty);
            // Converting to a type at least as wide keeps zero and non-zero apart, so the
            // logical operators may read the converted operands too.
            let (x, y) = (common.wrap(x), common.wrap(y));
            let int = |b: bool| (Value::from(b), ValueType::INT);
            match op {
                // Modulo 2¹²⁸ first (it cannot overflow), then modulo 2ᴺ: the same residue.
                BinOp::Add => (common.wrap(x.wrapping_add(y)), common),
                BinOp::Sub => (common.wrap(x.wrapping_sub(y)), common),
                BinOp::Mul => (common.wrap(x.wrapping_mul(y)), common),
                // Two's-complement bit operations on sign-extended values are the bit
                // operations of the narrower type, sign-extended.
                BinOp::And => (common.wrap(x & y), common),
                BinOp::Or => (common.wrap(x | y), common),
                BinOp::Xor => (common.wrap(x ^ y), common),
                BinOp::Eq => int(x == y),
                BinOp::Ne => int(x != y),
                BinOp::Lt => int(x < y),
                BinOp::Le => int(x <= y),
                BinOp::Gt => int(x > y),
                BinOp::Ge => int(x >= y),
                BinOp::LogicalAnd => int(x != 0 && y != 0),
                BinOp::LogicalOr => int(x != 0 || y != 0),
            }
        }
    }
}

/// The value an RMW on a location of type `ty` writes, given the value it read (a value of
/// `ty`) and its operand (any value; converted to `ty` first, as the call's parameter
/// type does). Add and sub wrap modulo 2ᴺ ([atomics.types.int]/7); min and max compare
/// signed for a signed type and unsigned for an unsigned one ([atomics.types.int]/8 via
/// `std::min`/`std::max` on `T`).
pub fn apply(op: RmwOp, ty: ValueType, old: Value, operand: Value) -> Value {
    let x = ty.wrap(operand);
    match op {
        RmwOp::Exchange => x,
        RmwOp::Add => ty.wrap(old.wrapping_add(x)),
        RmwOp::Sub => ty.wrap(old.wrapping_sub(x)),
        RmwOp::And => ty.wrap(old & x),
        RmwOp::Or => ty.wrap(old | x),
        RmwOp::Xor => ty.wrap(old ^ x),
        RmwOp::Min => old.min(x),
        RmwOp::Max => old.max(x),
    }
}

/// The value of `e` if it names no register (`-1`, `2 + 3`), computed exactly (no type
/// wraps it), so a literal out of a type's range is seen as written; `None` otherwise.
pub fn constant(e: &Expr) -> Option<Value> {
    match e {
        Expr::Const(v) => Some(*v),
        Expr::Reg(_) => None,
        Expr::Not(a) => Some(Value::from(constant(a)? == 0)),
        Expr::Bin(op, a, b) => {
            let (x, y) = (constant(a)?, constant(b)?);
            match op {
                BinOp::Add => x.checked_add(y),
                BinOp::Sub => x.checked_sub(y),
                BinOp::Mul => x.checked_mul(y),
                // `~c` is parsed as `c ^ -1`, the rest of the bit operators as written.
                BinOp::And => Some(x & y),
                BinOp::Or => Some(x | y),
                BinOp::Xor => Some(x ^ y),
                _ => None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Bin(op, Box::new(a), Box::new(b))
    }

    /// `Ord::min`/`max` on the CPU (through a function, so the operands are not constants).
    fn cpu_min<T: Ord>(a: T, b: T) -> T {
        a.min(b)
    }
    fn cpu_max<T: Ord>(a: T, b: T) -> T {
        a.max(b)
    }

    /// Expected values come from Rust's wrapping integer arithmetic on i32/u32/i64/u64,
    /// an independent CPU reference.
    #[test]
    fn rmws_wrap_and_compare_in_the_locations_type() {
        let (int, uint, long, ulong) = (ValueType::INT, ValueType::UINT, ValueType::LONG, ValueType::ULONG);
        assert_eq!(apply(RmwOp::Add, int, i32::MAX.into(), 1), i32::MAX.wrapping_add(1).into());
        assert_eq!(apply(RmwOp::Sub, int, i32::MIN.into(), 1), i32::MIN.wrapping_sub(1).into());
        assert_eq!(apply(RmwOp::Add, uint, u32::MAX.into(), 1), u32::MAX.wrapping_add(1).into());
        assert_eq!(apply(RmwOp::Sub, uint, 0, 1), 0u32.wrapping_sub(1).into());
        assert_eq!(apply(RmwOp::Min, int, 5, -1), cpu_min(5i32, -1).into());
        assert_eq!(apply(RmwOp::Min, uint, 5, -1), cpu_min(5u32, -1i32 as u32).into());
        assert_eq!(apply(RmwOp::Max, uint, 5, -1), cpu_max(5u32, u32::MAX).into());
        assert_eq!(apply(RmwOp::Add, long, i64::MAX.into(), 1), i64::MAX.wrapping_add(1).into());
        assert_eq!(apply(RmwOp::Add, ulong, u64::MAX.into(), 1), 0);
        assert_eq!(apply(RmwOp::Xor, int, -1, 0x0f), (-1i32 ^ 0x0f).into());
        assert_eq!(apply(RmwOp::Exchange, uint, 0, -2), (-2i32 as u32).into());
    }

    #[test]
    fn expressions_use_the_common_type() {
        let types = [ValueType::INT, ValueType::UINT, ValueType::LONG];
        let ty = |r: RegId| types[r.0 as usize];
        let regs: [Value; 3] = [-1, 0, i64::MAX.into()];
        let (r0, r1, r2) = (Expr::Reg(RegId(0)), Expr::Reg(RegId(1)), Expr::Reg(RegId(2)));
        // `-1 < 0u` is false in C: -1 converts to UINT_MAX.
        assert_eq!(eval(&bin(BinOp::Lt, r0.clone(), r1.clone()), &regs, &ty), 0);
        // `0u - 1` is UINT_MAX.
        assert_eq!(eval(&bin(BinOp::Sub, r1.clone(), Expr::Const(1)), &regs, &ty), u32::MAX.into());
        // `LONG_MAX + 1` wraps (the grader's choice for signed overflow).
        assert_eq!(eval(&bin(BinOp::Add, r2.clone(), Expr::Const(1)), &regs, &ty), i64::MIN.into());
        // `-1 + LONG_MAX` in long.
        assert_eq!(eval(&bin(BinOp::Add, r0, r2), &regs, &ty), (i64::MAX - 1).into());
        assert_eq!(type_of(&bin(BinOp::Xor, r1, Expr::Const(-1)), &ty), ValueType::UINT);
    }

    #[test]
    fn constants_fold_without_wrapping() {
        assert_eq!(constant(&bin(BinOp::Sub, Expr::Const(0), Expr::Const(2147483649))), Some(-2147483649));
        assert_eq!(constant(&bin(BinOp::Add, Expr::Reg(RegId(0)), Expr::Const(1))), None);
    }
}
