//! The literal checks every dialect shares, run on the parsed program: a constant stored,
//! assigned, passed to an atomic, or compared with a register must fit the type it meets
//! ([`ValueType::literal`]: the cases where clang-19 warns by default are errors here, with
//! the statement's line). Initial values and the final condition are checked where they are
//! parsed, which knows their exact position.

use super::arith;
use super::error::{ParseResult, SyntaxError};
use super::program::{for_each_stmt, BinOp, Expr, Litmus, Span, Stmt, Thread};
use hipscope_mm::ValueType;

/// The first literal of `test` that its type cannot hold.
pub fn check(test: &Litmus) -> ParseResult<()> {
    for thread in &test.threads {
        for (reg, value) in &thread.reg_init {
            let ty = thread.reg_type(*reg);
            let name = thread.regs.get(reg.0 as usize).map_or("?", String::as_str);
            fits(ty, *value, &format!("`{}:{name}`", thread.name), thread.span)?;
        }
        let mut first = Ok(());
        for_each_stmt(&thread.body, &mut |_, stmt| {
            if first.is_ok() {
                first = check_stmt(test, thread, stmt);
            }
        });
        first?;
    }
    Ok(())
}

fn check_stmt(test: &Litmus, thread: &Thread, stmt: &Stmt) -> ParseResult<()> {
    let span = stmt.span();
    let loc = |target: &super::program::Target| {
        let name = test.locations.get(target.loc.0 as usize).map_or("?", |l| l.name.as_str());
        (test.loc_type(target.loc), format!("`{name}`"))
    };
    match stmt {
        Stmt::Assign { reg, value, .. } => {
            let name = thread.regs.get(reg.0 as usize).map_or("?", String::as_str);
            operand(thread.reg_type(*reg), value, &format!("`{name}`"), span)?;
            comparisons(thread, value, span)
        }
        Stmt::Store { target, value, .. } | Stmt::Rmw { target, operand: value, .. } => {
            let (ty, what) = loc(target);
            operand(ty, value, &what, span)?;
            comparisons(thread, value, span)
        }
        Stmt::Cas { target, expected, desired, .. } => {
            let (ty, what) = loc(target);
            for e in [expected, desired] {
                operand(ty, e, &what, span)?;
                comparisons(thread, e, span)?;
            }
            Ok(())
        }
        Stmt::If { cond, .. } | Stmt::Goto { cond: Some(cond), .. } => comparisons(thread, cond, span),
        Stmt::Load { .. } | Stmt::Fence { .. } | Stmt::Barrier { .. } | Stmt::Label { .. } | Stmt::Goto { cond: None, .. } => Ok(()),
    }
}

/// A constant expression converted to `ty` (converting to `bool` never warns).
fn operand(ty: ValueType, e: &Expr, what: &str, span: Span) -> ParseResult<()> {
    match arith::constant(e) {
        Some(v) if ty != ValueType::BOOL => fits(ty, v, what, span),
        _ => Ok(()),
    }
}

fn fits(ty: ValueType, v: hipscope_mm::Value, what: &str, span: Span) -> ParseResult<()> {
    match ty.literal(v) {
        Some(_) => Ok(()),
        None => Err(SyntaxError::new(span, format!("{v} does not fit {what}, of type {}", ty.describe()))),
    }
}

/// `r == c` (and `!=`, `<`, …) with a constant the register's type cannot hold: the result
/// would not depend on the register.
fn comparisons(thread: &Thread, e: &Expr, span: Span) -> ParseResult<()> {
    let Expr::Bin(op, a, b) = e else {
        return match e {
            Expr::Not(a) => comparisons(thread, a, span),
            _ => Ok(()),
        };
    };
    if matches!(op, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge) {
        for (x, y) in [(a, b), (b, a)] {
            if let (Expr::Reg(r), Some(c)) = (&**x, arith::constant(y)) {
                let ty = thread.reg_type(*r);
                if ty.literal(c).is_none() {
                    let name = thread.regs.get(r.0 as usize).map_or("?", String::as_str);
                    return Err(SyntaxError::new(
                        span,
                        format!("{c} is out of range for `{name}`, of type {}: the comparison's result would not depend on `{name}`", ty.describe()),
                    ));
                }
            }
        }
    }
    comparisons(thread, a, span)?;
    comparisons(thread, b, span)
}
