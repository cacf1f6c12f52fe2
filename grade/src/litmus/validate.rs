//! Checks every dialect's parsed program gets, whatever produced it: no thread without
//! instructions, and the shapes later layers walk recursively (statement trees, expression
//! and condition trees) within [`super::limits`]. The parsers enforce the limits while they
//! read; this pass is the backstop that keeps a parser's omission from reaching the model,
//! the lowering or the hardware layer. Every walk here is iterative.

use super::error::{ParseResult, SyntaxError};
use super::limits::*;
use super::program::{Expr, Litmus, Prop, Span, Stmt, Thread};

/// Fails with the first problem of `test`, located at the thread or statement it is in.
pub fn check(test: &Litmus) -> ParseResult<()> {
    if test.threads.len() > MAX_THREADS {
        let span = test.threads.get(MAX_THREADS).map_or(Span { line: 1, column: 1 }, |t| t.span);
        return Err(SyntaxError::new(span, format!("more than {MAX_THREADS} threads; a litmus test has a handful")));
    }
    if test.locations.len() > MAX_LOCATIONS {
        return Err(SyntaxError::new(Span { line: 1, column: 1 }, format!("more than {MAX_LOCATIONS} locations; a litmus test has a handful")));
    }
    for thread in &test.threads {
        // Dartagnan's PTX and Vulkan catalogues have threads with no instructions
        // (`LB+RMW-b.litmus`): in its format every column is a thread that takes part.
        let dartagnan = matches!(test.dialect, crate::litmus::Dialect::Ptx | crate::litmus::Dialect::Vulkan);
        if !(dartagnan && thread.body.is_empty()) {
            check_thread(thread)?;
        }
    }
    // The filter keeps no position of its own; the file's start stands in for it.
    let start = Span { line: 1, column: 1 };
    let props = test.condition.iter().map(|c| (&c.prop, c.span)).chain(test.filter.iter().map(|f| (f, start)));
    for (prop, span) in props {
        if prop_depth(prop) > MAX_CONDITION_DEPTH {
            return Err(SyntaxError::new(span, format!("the condition nests more than {MAX_CONDITION_DEPTH} levels deep")));
        }
    }
    Ok(())
}

fn check_thread(thread: &Thread) -> ParseResult<()> {
    // An empty thread takes part in no execution; in a submission it is almost always a
    // column or a body lost to a typo, and grading the rest would answer another question
    // than the one the student asked. An error says where to look.
    if thread.body.is_empty() {
        return Err(SyntaxError::new(thread.span, format!("thread {} has no instructions; give it at least one or remove it", thread.name)));
    }
    if thread.regs.len() > MAX_REGISTERS_PER_THREAD {
        return Err(SyntaxError::new(thread.span, format!("thread {} has more than {MAX_REGISTERS_PER_THREAD} registers", thread.name)));
    }
    let mut count = 0usize;
    // (statement, how many `if`s enclose it)
    let mut stack: Vec<(&Stmt, usize)> = thread.body.iter().rev().map(|s| (s, 0)).collect();
    while let Some((stmt, nesting)) = stack.pop() {
        count += 1;
        if count > MAX_STATEMENTS_PER_THREAD {
            return Err(SyntaxError::new(stmt.span(), format!("thread {} has more than {MAX_STATEMENTS_PER_THREAD} statements", thread.name)));
        }
        if nesting > MAX_IF_NESTING {
            return Err(SyntaxError::new(stmt.span(), format!("`if`s nest more than {MAX_IF_NESTING} levels deep")));
        }
        for e in exprs(stmt) {
            if expr_depth(e) > MAX_EXPR_DEPTH {
                return Err(SyntaxError::new(stmt.span(), format!("this expression nests more than {MAX_EXPR_DEPTH} levels deep")));
            }
        }
        if let Stmt::If { then, otherwise, .. } = stmt {
            stack.extend(otherwise.iter().rev().chain(then.iter().rev()).map(|s| (s, nesting + 1)));
        }
    }
    Ok(())
}

/// The expressions a statement evaluates.
fn exprs(stmt: &Stmt) -> Vec<&Expr> {
    match stmt {
        Stmt::Store { value, .. } | Stmt::Assign { value, .. } => vec![value],
        Stmt::Rmw { operand, .. } => vec![operand],
        Stmt::Cas { expected, desired, .. } => vec![expected, desired],
        Stmt::If { cond, .. } | Stmt::Goto { cond: Some(cond), .. } => vec![cond],
        Stmt::Load { .. } | Stmt::Fence { .. } | Stmt::Barrier { .. } | Stmt::Label { .. } | Stmt::Goto { cond: None, .. } => Vec::new(),
    }
}

/// Height of an expression tree (a constant or register is 1), without recursion.
pub fn expr_depth(e: &Expr) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(e, 1usize)];
    while let Some((e, d)) = stack.pop() {
        deepest = deepest.max(d);
        match e {
            Expr::Const(_) | Expr::Reg(_) => {}
            Expr::Not(a) => stack.push((a, d + 1)),
            Expr::Bin(_, a, b) => stack.extend([(&**a, d + 1), (&**b, d + 1)]),
        }
    }
    deepest
}

/// Height of a proposition tree, without recursion.
pub fn prop_depth(p: &Prop) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(p, 1usize)];
    while let Some((p, d)) = stack.pop() {
        deepest = deepest.max(d);
        match p {
            Prop::True | Prop::False | Prop::Cmp(..) => {}
            Prop::Not(a) => stack.push((a, d + 1)),
            Prop::And(a, b) | Prop::Or(a, b) | Prop::Implies(a, b) => stack.extend([(&**a, d + 1), (&**b, d + 1)]),
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::litmus::program::{BinOp, RegId};

    #[test]
    fn depths_count_levels() {
        let leaf = Expr::Reg(RegId(0));
        assert_eq!(expr_depth(&leaf), 1);
        let chain = (0..10).fold(leaf.clone(), |acc, _| Expr::Bin(BinOp::Add, Box::new(acc), Box::new(Expr::Const(1))));
        assert_eq!(expr_depth(&chain), 11);
        assert_eq!(expr_depth(&Expr::Not(Box::new(chain))), 12);
        let p = Prop::And(Box::new(Prop::True), Box::new(Prop::Not(Box::new(Prop::False))));
        assert_eq!(prop_depth(&p), 3);
    }
}
