//! C expressions over local variables, and the pointers builtins and `*` take.
//!
//! Reads inside an expression (`*x`, `atomic_load(y)`) are emitted into `out` as
//! statements that fill fresh registers, in left-to-right order; the expression then names
//! those registers. The right side of `&&`/`||` runs only when C would evaluate it.

use super::super::error::{ParseResult, SyntaxError};
use super::super::program::{BinOp, Expr, Span, Stmt, Target, C_BINARY_LEVELS};
use super::super::text::Cursor;
use super::body::ThreadCx;
use super::builtins;
use super::here;
use hipscope_mm::{Access, Value};

/// An address: a fixed element, or one chosen at run time by a register expression
/// (`y + r0`), which becomes a choice between the elements.
#[derive(Clone, Debug)]
pub enum Addr {
    Static(Target),
    Dynamic { group: usize, index: Expr },
}

/// A full expression.
pub fn expr(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>) -> ParseResult<Expr> {
    logical(cur, cx, out, false)
}

/// `a || b` (`and == false`) or `a && b`.
fn logical(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>, and: bool) -> ParseResult<Expr> {
    let (token, op) = if and { ("&&", BinOp::LogicalAnd) } else { ("||", BinOp::LogicalOr) };
    let next = |cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>| if and { binary(cur, cx, out, 0) } else { logical(cur, cx, out, true) };
    let mut left = next(cur, cx, out)?;
    loop {
        cur.skip_blank();
        let span = cur.span();
        if !cur.eat(token) {
            break;
        }
        cx.operator(span)?;
        let mut reads = Vec::new();
        let right = next(cur, cx, &mut reads)?;
        if reads.is_empty() {
            left = Expr::Bin(op, Box::new(left), Box::new(right));
            continue;
        }
        left = short_circuit(cx, out, left, right, reads, and, span)?;
    }
    if cur.looking_at("?") {
        return Err(here(cur, "the conditional operator `?:` is not supported; use `if`/`else`"));
    }
    Ok(left)
}

/// `t = left != 0; if (t) { reads; t = right != 0 }` for `&&` (`if (!t)` for `||`), so the
/// right side's reads happen only when C would evaluate it.
fn short_circuit(cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>, left: Expr, right: Expr, mut reads: Vec<Stmt>, and: bool, span: Span) -> ParseResult<Expr> {
    let t = cx.temp(span)?;
    let truth = |e: Expr| Expr::Bin(BinOp::Ne, Box::new(e), Box::new(Expr::Const(0)));
    out.push(Stmt::Assign { reg: t, value: truth(left), span });
    reads.push(Stmt::Assign { reg: t, value: truth(right), span });
    let cond = if and { Expr::Reg(t) } else { Expr::Not(Box::new(Expr::Reg(t))) };
    out.push(Stmt::If { cond, then: reads, otherwise: Vec::new(), span });
    Ok(Expr::Reg(t))
}

/// C's binary operators below `&&`, loosest first: `&&` and `||` are parsed apart, since
/// they read their right side only when it decides the result.
const LEVELS: &[&[(&str, BinOp)]] = C_BINARY_LEVELS.split_at(2).1;

/// Operators that start like a shorter one but are not it.
const LONGER: [&str; 9] = ["||", "&&", "<<", ">>", "+=", "-=", "*=", "|=", "&="];

fn binary(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>, level: usize) -> ParseResult<Expr> {
    let Some(ops) = LEVELS.get(level) else {
        return unary(cur, cx, out);
    };
    let mut left = binary(cur, cx, out, level + 1)?;
    'more: loop {
        unsupported_operator(cur)?;
        for (token, op) in ops.iter() {
            if eat_operator(cur, token) {
                cx.operator(cur.span())?;
                let right = binary(cur, cx, out, level + 1)?;
                left = fold(*op, left, right);
                continue 'more;
            }
        }
        return Ok(left);
    }
}

fn eat_operator(cur: &mut Cursor<'_>, token: &str) -> bool {
    if LONGER.iter().any(|long| long.starts_with(token) && long.len() > token.len() && cur.looking_at(long)) {
        return false;
    }
    cur.eat(token)
}

fn unsupported_operator(cur: &mut Cursor<'_>) -> ParseResult<()> {
    for (token, what) in [("<<", "shifts"), (">>", "shifts"), ("/", "division"), ("%", "remainder")] {
        if cur.looking_at(token) {
            return Err(here(cur, format!("{what} (`{token}`) are not supported in litmus expressions")));
        }
    }
    Ok(())
}

/// Constant operands are folded, so `y + 1` is a fixed element and `-1` a constant.
fn fold(op: BinOp, left: Expr, right: Expr) -> Expr {
    if op == BinOp::Add && left == Expr::Const(0) {
        return right;
    }
    if let (Expr::Const(a), Expr::Const(b)) = (&left, &right) {
        let folded = match op {
            BinOp::Add => a.checked_add(*b),
            BinOp::Sub => a.checked_sub(*b),
            BinOp::Mul => a.checked_mul(*b),
            _ => None,
        };
        if let Some(v) = folded {
            return Expr::Const(v);
        }
    }
    Expr::Bin(op, Box::new(left), Box::new(right))
}

fn unary(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>) -> ParseResult<Expr> {
    cur.skip_blank();
    cx.enter(cur.span())?;
    let result = unary_inner(cur, cx, out);
    cx.leave();
    result
}

fn unary_inner(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>) -> ParseResult<Expr> {
    if cur.looking_at("--") || cur.looking_at("++") {
        return Err(here(cur, "`++` and `--` are not supported; write `r = r + 1;`"));
    }
    if cur.eat("-") {
        return Ok(fold(BinOp::Sub, Expr::Const(0), unary(cur, cx, out)?));
    }
    if cur.eat("+") {
        return unary(cur, cx, out);
    }
    if cur.eat("!") {
        return Ok(Expr::Not(Box::new(unary(cur, cx, out)?)));
    }
    if cur.eat("~") {
        return Ok(Expr::Bin(BinOp::Xor, Box::new(unary(cur, cx, out)?), Box::new(Expr::Const(-1))));
    }
    primary(cur, cx, out)
}

fn primary(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>) -> ParseResult<Expr> {
    cur.skip_blank();
    let span = cur.span();
    if let Some(value) = cur.integer() {
        return Ok(Expr::Const(value?));
    }
    if cur.eat("(") {
        let inner = expr(cur, cx, out)?;
        cur.expect(")")?;
        return Ok(inner);
    }
    if cur.eat("*") {
        let addr = deref(cur, cx, out)?;
        return load_into_temp(cx, &addr, out, span);
    }
    if cur.looking_at("&") {
        return Err(here(cur, "`&` (address of) is only allowed for the expected value of atomic_compare_exchange"));
    }
    let mut probe = cur.clone();
    let Some(name) = probe.ident() else {
        return Err(here(cur, format!("expected an expression, found {}", cur.describe_next())));
    };
    if probe.looking_at("(") {
        return match builtins::call(cur, cx, out, true)? {
            Some(value) => Ok(value),
            None => Err(SyntaxError::new(span, format!("`{name}` does not return a value"))),
        };
    }
    if probe.looking_at("[") {
        let addr = array_element(cur, cx, out)?;
        return load_into_temp(cx, &addr, out, span);
    }
    *cur = probe;
    variable(cx, name, span)
}

/// A name used as a value.
fn variable(cx: &ThreadCx<'_>, name: &str, span: Span) -> ParseResult<Expr> {
    if let Some(reg) = cx.local(name) {
        return Ok(Expr::Reg(reg));
    }
    match name {
        "true" => return Ok(Expr::Const(1)),
        "false" => return Ok(Expr::Const(0)),
        _ => {}
    }
    if cx.pointer(name).is_some() {
        return Err(SyntaxError::new(span, format!("`{name}` is a pointer to shared memory; read it with `*{name}` or `atomic_load_explicit({name}, …)`")));
    }
    if name.starts_with("memory_order_") || name.starts_with("memory_scope_") || name.starts_with("CLK_") {
        return Err(SyntaxError::new(span, format!("`{name}` can only be an argument of an atomic function, fence or barrier")));
    }
    Err(SyntaxError::new(span, format!("`{name}` is not declared in P{}; declare it first with `int {name} = …;`", cx.index)))
}

/// A plain read of `addr` into a fresh register.
pub fn load_into_temp(cx: &mut ThreadCx<'_>, addr: &Addr, out: &mut Vec<Stmt>, span: Span) -> ParseResult<Expr> {
    let reg = cx.temp(span)?;
    emit_access(cx, addr, out, &|target| Stmt::Load { reg, target, access: Access::Plain, span });
    Ok(Expr::Reg(reg))
}

/// What follows `*`: a parameter, or a parenthesised pointer (`*(y + 1)`).
pub fn deref(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>) -> ParseResult<Addr> {
    if cur.eat("(") {
        let addr = pointer(cur, cx, out)?;
        cur.expect(")")?;
        return Ok(addr);
    }
    cur.skip_blank();
    let span = cur.span();
    let name = cur.expect_ident("a pointer after `*`")?;
    let group = parameter(cx, name, span)?;
    element(cx, group, Expr::Const(0), span)
}

/// A pointer argument: `x`, `y + r0`, `&y[1]`, `(…)`.
pub fn pointer(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>) -> ParseResult<Addr> {
    if cur.eat("(") {
        // Parentheses around a pointer recurse: bounded like every other nesting.
        cx.enter(cur.span())?;
        let addr = pointer(cur, cx, out)?;
        cx.leave();
        cur.expect(")")?;
        return Ok(addr);
    }
    if cur.eat("&") {
        return array_element(cur, cx, out);
    }
    cur.skip_blank();
    let span = cur.span();
    let name = cur.expect_ident("a pointer to shared memory (a parameter of the thread)")?;
    let group = parameter(cx, name, span)?;
    if cur.looking_at("[") {
        return Err(here(cur, format!("an element is a value, not a pointer; pass its address `&{name}[…]`")));
    }
    let mut index = Expr::Const(0);
    loop {
        let sub = if eat_operator(cur, "+") {
            false
        } else if eat_operator(cur, "-") {
            true
        } else {
            break;
        };
        cx.operator(cur.span())?;
        let term = binary(cur, cx, out, LEVELS.len() - 1)?;
        index = fold(if sub { BinOp::Sub } else { BinOp::Add }, index, term);
    }
    element(cx, group, index, span)
}

/// `y[i]`, with the cursor on `y`.
pub fn array_element(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>) -> ParseResult<Addr> {
    cur.skip_blank();
    let span = cur.span();
    let name = cur.expect_ident("an array name")?;
    let group = parameter(cx, name, span)?;
    cur.expect("[")?;
    let index = expr(cur, cx, out)?;
    cur.expect("]")?;
    element(cx, group, index, span)
}

/// The location group of parameter `name`.
fn parameter(cx: &ThreadCx<'_>, name: &str, span: Span) -> ParseResult<usize> {
    if let Some(group) = cx.pointer(name) {
        return Ok(group);
    }
    if cx.local(name).is_some() {
        return Err(SyntaxError::new(span, format!("`{name}` is a local variable, not a pointer to shared memory")));
    }
    Err(SyntaxError::new(span, format!("`{name}` is not a parameter of P{}; add e.g. `global int* {name}` to its parameter list", cx.index)))
}

/// Element `index` of a group: fixed when `index` is a constant (and must then exist).
fn element(cx: &ThreadCx<'_>, group: usize, index: Expr, span: Span) -> ParseResult<Addr> {
    let Some(g) = cx.group(group) else {
        return Err(SyntaxError::new(span, "internal error: unknown location"));
    };
    let Expr::Const(i) = index else {
        return Ok(Addr::Dynamic { group, index });
    };
    match g.element(i) {
        Some(target) => Ok(Addr::Static(target)),
        None if g.len == 1 => Err(SyntaxError::new(span, format!("`{}` is a single location; offset {i} is outside it", g.name))),
        None => Err(SyntaxError::new(span, format!("element {i} is outside `{}`, which has {} elements", g.name, g.len))),
    }
}

/// Emits the access `build` makes for `addr`. A run-time address becomes
/// `if (i == 0) access(y) else if (i == 1) access(y[1]) …`; an index outside the array
/// (undefined behaviour in C) accesses nothing.
pub fn emit_access(cx: &ThreadCx<'_>, addr: &Addr, out: &mut Vec<Stmt>, build: &dyn Fn(Target) -> Stmt) {
    let (group, index) = match addr {
        Addr::Static(target) => return out.push(build(*target)),
        Addr::Dynamic { group, index } => (*group, index),
    };
    let Some(g) = cx.group(group) else { return };
    let mut chain = Vec::new();
    for i in (0..Value::from(g.len)).rev() {
        let Some(target) = g.element(i) else { continue };
        let access = build(target);
        let cond = Expr::Bin(BinOp::Eq, Box::new(index.clone()), Box::new(Expr::Const(i)));
        chain = vec![Stmt::If { cond, then: vec![access.clone()], otherwise: chain, span: access.span() }];
    }
    out.extend(chain);
}
