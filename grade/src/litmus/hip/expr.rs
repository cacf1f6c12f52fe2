//! C expressions over a thread's locals (values stored, operands, `if` conditions), with
//! C's precedence. A location inside an expression is an error: each statement makes at
//! most one memory access, so reads go into a local first.

use super::stmt::{undeclared, Body, Named};
use crate::litmus::error::{ParseResult, SyntaxError};
use crate::litmus::program::{BinOp, Expr, C_BINARY_LEVELS};
use crate::litmus::text::Cursor;
use hipscope_mm::Value;

/// Operators that start with a shorter one: `eat_op("&")` must not take the first `&`
/// of `&&`.
const LONGER: [&str; 19] = ["||", "&&", "==", "!=", "<=", ">=", "<<", ">>", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "->"];

/// Consumes the operator `op` unless it is the start of a longer one.
/// A failed attempt leaves the cursor where it was (not past blanks), so a missing `;`
/// is reported right after the last token.
pub(super) fn eat_op(cur: &mut Cursor<'_>, op: &str) -> bool {
    let mut probe = cur.clone();
    if !probe.looking_at(op) {
        return false;
    }
    let rest = probe.rest();
    if LONGER.iter().any(|l| l.len() > op.len() && l.starts_with(op) && rest.starts_with(l)) {
        return false;
    }
    cur.eat(op)
}

pub(super) fn bin(op: BinOp, left: Expr, right: Expr) -> Expr {
    Expr::Bin(op, Box::new(left), Box::new(right))
}

/// C precedence, loosest first.
const LEVELS: [&[(&str, BinOp)]; 9] = C_BINARY_LEVELS;

/// An expression; operators C has but the program type does not are rejected by name.
pub(super) fn expr(b: &mut Body<'_, '_>) -> ParseResult<Expr> {
    let e = binary(b, 0)?;
    let mut probe = b.cur.clone();
    for op in ["/", "%", "<<", ">>", "?"] {
        if probe.looking_at(op) {
            return Err(probe.error(format!("`{op}` is not supported in litmus expressions (use + - * & | ^ == != < <= > >= && || ! ~)")));
        }
    }
    Ok(e)
}

fn binary(b: &mut Body<'_, '_>, level: usize) -> ParseResult<Expr> {
    let Some(ops) = LEVELS.get(level) else {
        return unary(b);
    };
    let mut left = binary(b, level + 1)?;
    'more: loop {
        for (tok, op) in ops.iter() {
            if eat_op(b.cur, tok) {
                b.operator()?;
                let right = binary(b, level + 1)?;
                left = bin(*op, left, right);
                continue 'more;
            }
        }
        return Ok(left);
    }
}

fn unary(b: &mut Body<'_, '_>) -> ParseResult<Expr> {
    b.deeper()?;
    let e = unary_inner(b);
    b.depth -= 1;
    e
}

fn unary_inner(b: &mut Body<'_, '_>) -> ParseResult<Expr> {
    if let Some(v) = literal(b.cur) {
        return Ok(Expr::Const(v?));
    }
    if eat_op(b.cur, "!") {
        return Ok(Expr::Not(Box::new(unary(b)?)));
    }
    if eat_op(b.cur, "-") {
        return Ok(bin(BinOp::Sub, Expr::Const(0), unary(b)?));
    }
    if eat_op(b.cur, "~") {
        return Ok(bin(BinOp::Xor, unary(b)?, Expr::Const(-1)));
    }
    if eat_op(b.cur, "+") {
        return unary(b);
    }
    if b.cur.eat("(") {
        let e = expr(b)?;
        b.cur.expect(")")?;
        return Ok(e);
    }
    name(b)
}

/// `true`, `false` or a local.
fn name(b: &mut Body<'_, '_>) -> ParseResult<Expr> {
    b.cur.skip_blank();
    let at = b.cur.span();
    let Some(name) = b.cur.ident() else {
        return Err(b.cur.error(format!("expected a value (an integer or a local variable), found {}", b.cur.describe_next())));
    };
    match (name, b.resolve(name)) {
        ("true", _) => Ok(Expr::Const(1)),
        ("false", _) => Ok(Expr::Const(0)),
        (_, Named::Reg(reg)) => Ok(Expr::Reg(reg)),
        (_, Named::Loc(..)) => Err(SyntaxError::new(
            at,
            format!("`{name}` is a shared location: read it into a local in its own statement (`int r = {name};`); a litmus statement makes one memory access"),
        )),
        (_, Named::Unknown) if b.cur.looking_at("(") => {
            Err(SyntaxError::new(at, format!("calls cannot appear inside expressions: assign `{name}(…)` to a local first")))
        }
        (_, Named::Unknown) => Err(SyntaxError::new(at, undeclared(name))),
    }
}

/// An integer literal; C's `u`/`l` suffixes (`1u`, `2UL`) are accepted and ignored: the
/// literal's value decides its type ([`hipscope_mm::ValueType::of_literal`]). That is C's
/// type for unsuffixed literals; a suffixed one that `int` holds is read as `int` (so
/// `r < 1u` with a negative `int` `r` compares as `int`, where C would compare as
/// `unsigned`; `workloads/litmus/README.md` says so).
pub(super) fn literal(cur: &mut Cursor<'_>) -> Option<ParseResult<Value>> {
    cur.skip_blank();
    let before = cur.clone();
    let err = match cur.integer()? {
        Ok(v) => return Some(Ok(v)),
        Err(e) => e,
    };
    let consumed = before.rest().len() - cur.rest().len();
    let text = before.rest().get(..consumed).unwrap_or("");
    let digits = text.trim_end_matches(['u', 'U', 'l', 'L']);
    let mut plain = Cursor::new(digits);
    match plain.integer() {
        Some(Ok(v)) if digits.len() < text.len() && plain.at_end() => Some(Ok(v)),
        _ => Some(Err(err)),
    }
}
