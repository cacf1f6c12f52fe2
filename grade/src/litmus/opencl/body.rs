//! Thread bodies: declarations, assignments, stores, builtin calls, `if`/`else`, and the
//! per-thread tables (parameters, local variables) they are checked against.

use super::super::arith;
use super::super::error::{ParseResult, SyntaxError};
use super::super::limits::{MAX_EXPR_OPERATORS, MAX_REGISTERS_PER_THREAD, MAX_STATEMENTS_PER_THREAD};
use super::super::program::{Expr, RegId, Span, Stmt};
use super::super::text::Cursor;
use super::header::TypeWords;
use super::tables::{Group, Locations};
use super::{at, builtins, expr, here};
use hipscope_mm::{Access, Space, ValueType};

/// Deeper nesting than this (of blocks or parentheses) is refused instead of risking the
/// stack on hostile input; real tests nest three or four levels.
const MAX_DEPTH: u32 = 200;

/// What a thread body is parsed against.
pub struct ThreadCx<'t> {
    locs: &'t mut Locations,
    pub index: usize,
    /// Parameter name → location group, and where it was declared.
    params: Vec<(String, usize)>,
    regs: Vec<String>,
    /// The declared type of each local variable (the registers not listed are reads
    /// hoisted out of expressions, whose type is what they read).
    declared: Vec<(RegId, ValueType)>,
    /// Local variables visible in each open block, innermost last.
    scopes: Vec<Vec<(String, RegId, Span)>>,
    labels: Vec<(String, Span)>,
    temps: u32,
    depth: u32,
    /// Statements of the thread so far, nested ones included.
    statements: usize,
    /// Binary operators of the statement being read (see [`ThreadCx::operator`]).
    operators: usize,
}

impl<'t> ThreadCx<'t> {
    pub fn new(locs: &'t mut Locations, index: usize) -> ThreadCx<'t> {
        ThreadCx {
            locs,
            index,
            params: Vec::new(),
            regs: Vec::new(),
            declared: Vec::new(),
            scopes: vec![Vec::new()],
            labels: Vec::new(),
            temps: 0,
            depth: 0,
            statements: 0,
            operators: 0,
        }
    }

    /// The registers and their types: a local's as declared, a hoisted read's the type of
    /// the value written to it in `body`.
    pub fn into_regs(self, body: &[Stmt]) -> (Vec<String>, Vec<ValueType>) {
        let mut types: Vec<Option<ValueType>> = vec![None; self.regs.len()];
        for (reg, ty) in &self.declared {
            if let Some(slot) = types.get_mut(usize::from(reg.0)) {
                slot.get_or_insert(*ty);
            }
        }
        super::super::program::for_each_stmt(body, &mut |_, stmt| {
            let written = match stmt {
                Stmt::Load { reg, target, .. } | Stmt::Rmw { old: Some(reg), target, .. } | Stmt::Cas { old: Some(reg), target, .. } => {
                    Some((*reg, self.locs.type_of(target.loc)))
                }
                _ => None,
            };
            let flag = match stmt {
                Stmt::Cas { ok: Some(reg), .. } => Some((*reg, ValueType::INT)),
                Stmt::Assign { reg, value, .. } => Some((*reg, arith::type_of(value, &|_| ValueType::INT))),
                _ => None,
            };
            for (reg, ty) in written.into_iter().chain(flag) {
                if let Some(slot) = types.get_mut(usize::from(reg.0)) {
                    slot.get_or_insert(ty);
                }
            }
        });
        (self.regs, types.into_iter().map(|t| t.unwrap_or(ValueType::INT)).collect())
    }

    pub fn add_parameter(&mut self, name: &str, space: Option<(Space, Span)>, atomic: bool, ty: ValueType, span: Span) -> ParseResult<()> {
        if self.params.iter().any(|(p, _)| p == name) {
            return Err(SyntaxError::new(span, format!("parameter `{name}` is listed twice")));
        }
        let group = self.locs.parameter(name, span)?;
        // No qualifier: OpenCL 2.0's generic address space (Dartagnan's default GPU space).
        self.locs.set_space(group, space.map_or(Space::Generic, |(s, _)| s));
        if atomic {
            self.locs.set_atomic(group);
        }
        self.locs.set_type(group, ty, span)?;
        self.params.push((name.to_string(), group));
        Ok(())
    }

    /// The location group a parameter name points to.
    pub fn pointer(&self, name: &str) -> Option<usize> {
        self.params.iter().find(|(p, _)| p == name).map(|(_, g)| *g)
    }

    pub fn group(&self, index: usize) -> Option<&Group> {
        self.locs.group(index)
    }

    /// A local variable visible here.
    pub fn local(&self, name: &str) -> Option<RegId> {
        self.scopes.iter().rev().flatten().find(|(n, _, _)| n == name).map(|(_, r, _)| *r)
    }

    /// `int name`: a new variable in the innermost block. Variables of the same name in
    /// different blocks share a register, because the condition names registers by name.
    fn declare(&mut self, name: &str, ty: ValueType, span: Span) -> ParseResult<RegId> {
        if self.pointer(name).is_some() {
            return Err(SyntaxError::new(span, format!("`{name}` is already a parameter of P{}; pick another name for the variable", self.index)));
        }
        let innermost = self.scopes.last().into_iter().flatten();
        if let Some((_, _, earlier)) = innermost.into_iter().find(|(n, _, _)| n == name) {
            return Err(SyntaxError::new(span, format!("`{name}` is already declared in this block (at {})", at(*earlier))));
        }
        let reg = match self.regs.iter().position(|r| r == name) {
            Some(i) => RegId(i as u16),
            None => self.push_reg(name.to_string(), span)?,
        };
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name.to_string(), reg, span));
        }
        self.declared.push((reg, ty));
        Ok(reg)
    }

    fn push_reg(&mut self, name: String, span: Span) -> ParseResult<RegId> {
        let id = u16::try_from(self.regs.len()).ok().filter(|id| usize::from(*id) < MAX_REGISTERS_PER_THREAD);
        let Some(id) = id else {
            return Err(SyntaxError::new(
                span,
                format!("more than {MAX_REGISTERS_PER_THREAD} variables (with the reads hoisted out of expressions) in one thread"),
            ));
        };
        self.regs.push(name);
        Ok(RegId(id))
    }

    /// A fresh register for a value read inside an expression.
    pub fn temp(&mut self, span: Span) -> ParseResult<RegId> {
        self.temps += 1;
        self.push_reg(format!("_t{}@{}", self.temps, at(span)), span)
    }

    fn is_temp(&self, reg: RegId) -> bool {
        self.regs.get(usize::from(reg.0)).is_some_and(|n| n.contains('@'))
    }

    /// Guards recursion; pair with [`ThreadCx::leave`].
    pub fn enter(&mut self, span: Span) -> ParseResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(SyntaxError::new(span, format!("nested more than {MAX_DEPTH} levels deep")));
        }
        Ok(())
    }

    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Counts one binary operator of the current statement. A flat chain `a + b + c …` is
    /// read in a loop, but its tree is as deep as the chain is long, and the layers after
    /// the parser walk it recursively.
    pub fn operator(&mut self, span: Span) -> ParseResult<()> {
        self.operators += 1;
        if self.operators > MAX_EXPR_OPERATORS {
            return Err(SyntaxError::new(span, format!("more than {MAX_EXPR_OPERATORS} operators in one statement; split the expression")));
        }
        Ok(())
    }

    /// Counts one statement of the thread, before it is read.
    fn next_statement(&mut self, span: Span) -> ParseResult<()> {
        self.statements += 1;
        self.operators = 0;
        if self.statements > MAX_STATEMENTS_PER_THREAD {
            return Err(SyntaxError::new(span, format!("more than {MAX_STATEMENTS_PER_THREAD} statements in P{}; a litmus thread has a handful", self.index)));
        }
        Ok(())
    }
}

/// `{ statements }` of a thread.
pub fn body(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>) -> ParseResult<Vec<Stmt>> {
    cur.expect("{")?;
    // C has no `(* … *)` comments, and `if (*x == 1)` must not start one.
    cur.set_ml_comments(false);
    let mut out = Vec::new();
    let result = block_items(cur, cx, &mut out);
    cur.set_ml_comments(true);
    result.map(|()| out)
}

/// Statements up to and including the closing `}`.
fn block_items(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>) -> ParseResult<()> {
    loop {
        if cur.eat("}") {
            return Ok(());
        }
        if cur.at_end() {
            return Err(here(cur, format!("P{}'s body is not closed with `}}`", cx.index)));
        }
        statement(cur, cx, out)?;
    }
}

/// One statement, appended to `out` together with the reads hoisted out of it.
fn statement(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>) -> ParseResult<()> {
    cur.skip_blank();
    let span = cur.span();
    cx.enter(span)?;
    let result = statement_inner(cur, cx, out, span);
    cx.leave();
    result
}

fn statement_inner(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>, span: Span) -> ParseResult<()> {
    if cur.eat(";") {
        return Ok(());
    }
    if cur.looking_at("(*") {
        return Err(here(cur, "thread bodies are C: write comments as `//` or `/* … */`, not `(* … *)`"));
    }
    if cur.eat("{") {
        cx.scopes.push(Vec::new());
        let result = block_items(cur, cx, out);
        cx.scopes.pop();
        return result;
    }
    cx.next_statement(span)?;
    if cur.eat("*") {
        return store(cur, cx, out, span, None);
    }
    let mut probe = cur.clone();
    let Some(word) = probe.ident() else {
        return Err(here(cur, format!("expected a statement, found {}", cur.describe_next())));
    };
    match word {
        "if" => {
            *cur = probe;
            if_statement(cur, cx, out, span)
        }
        "while" | "for" | "do" => {
            Err(SyntaxError::new(span, format!("loops (`{word}`) are not supported: a litmus thread is straight-line code with `if`/`else`")))
        }
        "else" => Err(SyntaxError::new(span, "`else` without a matching `if`")),
        "return" | "break" | "continue" | "goto" | "switch" => Err(SyntaxError::new(span, format!("`{word}` is not supported in litmus threads"))),
        _ if is_type_word(word) => {
            *cur = probe;
            declaration(cur, cx, out, word, span)
        }
        _ => named_statement(cur, cx, out, probe, word, span),
    }
}

/// Statements that start with a name: `r = e;`, `f(…);`, `y[1] = e;`, `B1: barrier(…);`.
fn named_statement<'a>(cur: &mut Cursor<'a>, cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>, after: Cursor<'a>, word: &str, span: Span) -> ParseResult<()> {
    let mut probe = after.clone();
    if probe.looking_at("(") {
        builtins::call(cur, cx, out, false)?;
        return cur.expect(";");
    }
    if probe.looking_at("[") {
        return store(cur, cx, out, span, Some(word));
    }
    if probe.looking_at(":") {
        *cur = after;
        cur.expect(":")?;
        return labelled_barrier(cur, cx, out, word, span);
    }
    if probe.looking_at("=") && !probe.looking_at("==") {
        *cur = after;
        cur.expect("=")?;
        let reg = assignable(cx, word, span)?;
        assign(cur, cx, out, reg, span)?;
        return cur.expect(";");
    }
    *cur = after;
    Err(here(cur, format!("expected `=` or `(` after `{word}`, found {}", cur.describe_next())))
}

/// The register `name = …` writes.
fn assignable(cx: &ThreadCx<'_>, name: &str, span: Span) -> ParseResult<RegId> {
    if let Some(reg) = cx.local(name) {
        return Ok(reg);
    }
    if cx.pointer(name).is_some() {
        return Err(SyntaxError::new(span, format!("`{name}` is a pointer to shared memory; write the location with `*{name} = …`")));
    }
    Err(SyntaxError::new(span, format!("`{name}` is not declared in P{}; declare it first with `int {name} = …;`", cx.index)))
}

/// `*p = e;` (after the `*`) or `y[i] = e;` (`array` is `y`).
fn store(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>, span: Span, array: Option<&str>) -> ParseResult<()> {
    let addr = match array {
        Some(_) => expr::array_element(cur, cx, out)?,
        None => expr::deref(cur, cx, out)?,
    };
    if cur.looking_at("==") || !cur.eat("=") {
        return Err(here(cur, format!("expected `=` after the location, found {}", cur.describe_next())));
    }
    let value = expr::expr(cur, cx, out)?;
    cur.expect(";")?;
    expr::emit_access(cx, &addr, out, &|target| Stmt::Store { target, value: value.clone(), access: Access::Plain, span });
    Ok(())
}

/// `reg = e`: reads hoisted out of `e` land in `out`; a lone read fills `reg` directly.
fn assign(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>, reg: RegId, span: Span) -> ParseResult<()> {
    let value = expr::expr(cur, cx, out)?;
    if let Expr::Reg(temp) = value {
        if cx.is_temp(temp) && retarget(out, temp, reg) {
            if usize::from(temp.0) + 1 == cx.regs.len() {
                cx.regs.pop();
            }
            return Ok(());
        }
    }
    out.push(Stmt::Assign { reg, value, span });
    Ok(())
}

/// Makes the last statement write `reg` instead of `temp`, when it is what wrote `temp`.
fn retarget(out: &mut [Stmt], temp: RegId, reg: RegId) -> bool {
    let slot = match out.last_mut() {
        Some(Stmt::Load { reg: r, .. }) => r,
        Some(Stmt::Rmw { old: Some(r), .. }) | Some(Stmt::Cas { ok: Some(r), .. }) => r,
        _ => return false,
    };
    if *slot != temp {
        return false;
    }
    *slot = reg;
    true
}

fn is_type_word(word: &str) -> bool {
    TypeWords::default().add(word) || matches!(word, "const" | "volatile" | "char" | "short" | "bool")
}

/// `int a = e, b;` (the first type word is already read).
fn declaration(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>, first: &str, span: Span) -> ParseResult<()> {
    let mut word = Some(first);
    let mut ty = TypeWords::default();
    loop {
        match word {
            Some(w) if w.starts_with("atomic_") => {
                return Err(SyntaxError::new(span, "atomic local variables are not supported: atomics live in shared memory passed as parameters"))
            }
            Some("char" | "short" | "bool") => return Err(SyntaxError::new(span, "local variables are integers (`int`, `uint`, `long`, `ulong`)")),
            Some(w) => {
                ty.add(w);
            }
            None => {}
        }
        let mut probe = cur.clone();
        word = probe.ident().filter(|w| is_type_word(w));
        if word.is_none() {
            break;
        }
        *cur = probe;
    }
    loop {
        if cur.looking_at("*") {
            return Err(here(cur, "local pointer variables are not supported; use the thread's parameters"));
        }
        cur.skip_blank();
        let name_span = cur.span();
        let name = cur.expect_ident("a variable name")?;
        let reg = cx.declare(name, ty.value_type().unwrap_or(ValueType::INT), name_span)?;
        if cur.looking_at("=") && !cur.looking_at("==") {
            cur.expect("=")?;
            assign(cur, cx, out, reg, name_span)?;
        }
        if !cur.eat(",") {
            return cur.expect(";");
        }
    }
}

/// `if (cond) stmt [else stmt]`; reads in `cond` happen before the branch.
fn if_statement(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>, span: Span) -> ParseResult<()> {
    cur.expect("(")?;
    let cond = expr::expr(cur, cx, out)?;
    cur.expect(")")?;
    let then = branch(cur, cx)?;
    let mut probe = cur.clone();
    let otherwise = if probe.ident() == Some("else") {
        *cur = probe;
        branch(cur, cx)?
    } else {
        Vec::new()
    };
    out.push(Stmt::If { cond, then, otherwise, span });
    Ok(())
}

/// A branch of an `if` is a block of its own, even without braces.
fn branch(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>) -> ParseResult<Vec<Stmt>> {
    let mut out = Vec::new();
    cx.scopes.push(Vec::new());
    let result = statement(cur, cx, &mut out);
    cx.scopes.pop();
    result.map(|()| out)
}

/// `B1: barrier(…);`: threads meet at the barrier with the same label.
fn labelled_barrier(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>, label: &str, span: Span) -> ParseResult<()> {
    if let Some((_, earlier)) = cx.labels.iter().find(|(l, _)| l == label) {
        return Err(SyntaxError::new(span, format!("label `{label}` is used twice in P{} (first at {})", cx.index, at(*earlier))));
    }
    cx.labels.push((label.to_string(), span));
    let mut probe = cur.clone();
    if !matches!(probe.ident(), Some("barrier" | "work_group_barrier")) {
        return Err(here(cur, format!("a label can only name a barrier (`{label}: barrier(CLK_GLOBAL_MEM_FENCE);`), found {}", cur.describe_next())));
    }
    let mut stmts = Vec::new();
    builtins::call(cur, cx, &mut stmts, false)?;
    for stmt in &mut stmts {
        if let Stmt::Barrier { id, .. } = stmt {
            *id = Some(label.to_string());
        }
    }
    out.extend(stmts);
    cur.expect(";")
}
