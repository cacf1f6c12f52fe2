//! Thread bodies: declarations of locals and `atomic_ref`s, plain accesses, assignments
//! and `if`/`else` (calls are in `calls`). One statement makes at most one memory access,
//! so each becomes one [`Stmt`].

use super::calls::{call, method};
use super::expr::{self, eat_op};
use super::vocab;
use super::{int_type, int_type_word, more_declarators, qualified, semicolon, Globals};
use crate::litmus::error::{ParseResult, SyntaxError};
use crate::litmus::limits::{MAX_EXPR_OPERATORS, MAX_REGISTERS_PER_THREAD, MAX_STATEMENTS_PER_THREAD};
use crate::litmus::program::{BinOp, Expr, LocId, RegId, Span, Stmt};
use crate::litmus::text::Cursor;
use hipscope_mm::{Access, Order, Scope, ValueType};

/// Nesting limit for blocks, `if`s and parentheses, so hostile input cannot overflow the
/// stack.
const MAX_DEPTH: u32 = 64;

/// What a thread's statements see: the globals and the names the thread declared so far.
pub(super) struct Body<'p, 'a> {
    pub cur: &'p mut Cursor<'a>,
    pub globals: &'p Globals,
    pub regs: Vec<String>,
    /// The declared type of each of `regs`.
    pub reg_types: Vec<ValueType>,
    /// `cuda::atomic_ref<int, scope> name(loc)`: name, location, scope.
    refs: Vec<(String, LocId, Scope)>,
    pub depth: u32,
    /// Statements of the thread so far, nested ones included.
    statements: usize,
    /// Binary operators of the statement being read (see [`Body::operator`]).
    operators: usize,
}

/// What a name in a thread body refers to.
pub(super) enum Named {
    Reg(RegId),
    /// A location; with a scope when it is accessed through an atomic object
    /// (`atomic_ref` alias or `cuda::atomic` location), whose plain uses are seq_cst.
    Loc(LocId, Option<Scope>),
    Unknown,
}

impl Body<'_, '_> {
    pub fn resolve(&self, name: &str) -> Named {
        if let Some(i) = self.regs.iter().position(|r| r == name) {
            return Named::Reg(RegId(i as u16));
        }
        if let Some((_, loc, scope)) = self.refs.iter().find(|(n, _, _)| n == name) {
            return Named::Loc(*loc, Some(*scope));
        }
        match self.globals.find(name) {
            Some(loc) => Named::Loc(loc, self.globals.scope_of(loc)),
            None => Named::Unknown,
        }
    }

    /// The type `auto reg = …` takes from its initialiser `stmt`: the location's for a value
    /// read from it, `bool` for a compare-exchange's result, the expression's otherwise.
    fn deduced(&self, stmt: &Stmt, reg: RegId) -> ValueType {
        match stmt {
            Stmt::Cas { ok: Some(r), .. } if *r == reg => ValueType::BOOL,
            Stmt::Load { target, .. } | Stmt::Rmw { target, .. } | Stmt::Cas { target, .. } => self.globals.type_of(target.loc),
            Stmt::Assign { value, .. } => crate::litmus::arith::type_of(value, &|r| self.reg_types.get(r.0 as usize).copied().unwrap_or(ValueType::INT)),
            _ => ValueType::INT,
        }
    }

    pub fn deeper(&mut self) -> ParseResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.cur.error(format!("nested more than {MAX_DEPTH} levels deep")));
        }
        Ok(())
    }

    /// Counts one binary operator of the current statement. A flat chain `a + b + c …` is
    /// read in a loop, but its tree is as deep as the chain is long, and the layers after
    /// the parser walk it recursively.
    pub fn operator(&mut self) -> ParseResult<()> {
        self.operators += 1;
        if self.operators > MAX_EXPR_OPERATORS {
            return Err(self.cur.error(format!("more than {MAX_EXPR_OPERATORS} operators in one statement; split the expression")));
        }
        Ok(())
    }

    /// Counts one statement of the thread, before it is read.
    fn next_statement(&mut self, span: Span) -> ParseResult<()> {
        self.statements += 1;
        self.operators = 0;
        if self.statements > MAX_STATEMENTS_PER_THREAD {
            return Err(SyntaxError::new(span, format!("more than {MAX_STATEMENTS_PER_THREAD} statements in one thread; a litmus thread has a handful")));
        }
        Ok(())
    }

    fn declare(&mut self, name: &str, span: Span) -> ParseResult<()> {
        if is_keyword(name) {
            return Err(SyntaxError::new(span, format!("`{name}` is a keyword, not a variable name")));
        }
        if !matches!(self.resolve(name), Named::Unknown) {
            return Err(SyntaxError::new(span, format!("`{name}` is already declared (as a local, an `atomic_ref` or a location); pick another name")));
        }
        Ok(())
    }
}

/// The message for a name that is not declared, with hints for kernel-only names.
pub(super) fn undeclared(name: &str) -> String {
    match name {
        "threadIdx" | "blockIdx" | "blockDim" | "gridDim" => {
            format!("`{name}` is not available: each `thread` block of the test is one thread, placed by its header (`@ block B, thread T`)")
        }
        _ => format!("`{name}` is not declared: declare locals in the thread (`int {name} = 0;`) and locations at the top (`__device__ int {name} = 0;`)"),
    }
}

pub(super) fn is_keyword(word: &str) -> bool {
    matches!(word, "if" | "else" | "for" | "while" | "do" | "goto" | "return" | "break" | "continue" | "switch" | "case" | "true" | "false" | "thread")
        || matches!(word, "exists" | "forall" | "filter" | "locations")
        || int_type_word(word).is_some()
        || matches!(word, "bool" | "auto" | "const" | "volatile")
}

/// A parsed thread body.
pub(super) struct ParsedBody {
    pub regs: Vec<String>,
    pub reg_types: Vec<ValueType>,
    pub stmts: Vec<Stmt>,
    /// Locations some `atomic_ref` of this thread refers to: they count as declared
    /// with an atomic type ([`crate::litmus::Location::atomic_type`]).
    pub wrapped: Vec<LocId>,
}

/// Parses the body after `{` through its `}`.
pub(super) fn thread_body(cur: &mut Cursor<'_>, globals: &Globals) -> ParseResult<ParsedBody> {
    let mut body = Body { cur, globals, regs: Vec::new(), reg_types: Vec::new(), refs: Vec::new(), depth: 0, statements: 0, operators: 0 };
    let stmts = block(&mut body)?;
    Ok(ParsedBody { regs: body.regs, reg_types: body.reg_types, stmts, wrapped: body.refs.iter().map(|(_, loc, _)| *loc).collect() })
}

/// Statements up to the `}` that closes the current block.
fn block(b: &mut Body<'_, '_>) -> ParseResult<Vec<Stmt>> {
    b.deeper()?;
    let mut out = Vec::new();
    loop {
        b.cur.skip_blank();
        if b.cur.at_end() {
            return Err(b.cur.error("missing `}` at the end of the file"));
        }
        if b.cur.eat("}") {
            b.depth -= 1;
            return Ok(out);
        }
        statement(b, &mut out)?;
    }
}

fn statement(b: &mut Body<'_, '_>, out: &mut Vec<Stmt>) -> ParseResult<()> {
    b.cur.skip_blank();
    let span = b.cur.span();
    if b.cur.eat(";") {
        return Ok(());
    }
    if b.cur.eat("{") {
        out.extend(block(b)?);
        return Ok(());
    }
    b.next_statement(span)?;
    let mut probe = b.cur.clone();
    let Some(word) = qualified(&mut probe) else {
        return Err(b.cur.error(format!("expected a statement, found {}", b.cur.describe_next())));
    };
    match word.as_str() {
        "if" => {
            *b.cur = probe;
            out.push(if_stmt(b, span)?);
            Ok(())
        }
        "for" | "while" | "do" => Err(SyntaxError::new(
            span,
            format!("`{word}` loops are not allowed: litmus threads run straight-line code. Replace a spin loop by one load and ask about its value in the condition (`int r0 = …; if (r0 == 1) {{ … }}`)"),
        )),
        "return" | "break" | "continue" | "switch" | "case" | "goto" => Err(SyntaxError::new(span, format!("`{word}` is not supported: use `if`/`else`"))),
        "else" => Err(SyntaxError::new(span, "`else` without an `if`")),
        "__shared__" | "__device__" | "static" => {
            Err(SyntaxError::new(span, format!("declare `{word}` variables at the top of the test, before the threads; inside a thread only locals (`int r = 0;`) are declared")))
        }
        "thread" | "exists" | "forall" | "filter" | "locations" => Err(SyntaxError::new(span, format!("missing `}}` before `{word}`: the thread's body is still open"))),
        w if vocab::is_library_type(w, "atomic_ref") => {
            *b.cur = probe;
            atomic_ref_decl(b)
        }
        w if int_type_word(w).is_some() || matches!(w, "bool" | "auto" | "const" | "volatile") => local_decl(b, out, span),
        _ => {
            *b.cur = probe;
            out.extend(simple(b, &word, span)?);
            semicolon(b.cur)
        }
    }
}

/// `if (e) s [else s]`.
fn if_stmt(b: &mut Body<'_, '_>, span: Span) -> ParseResult<Stmt> {
    b.deeper()?;
    b.cur.expect("(")?;
    let cond = expr::expr(b)?;
    b.cur.expect(")")?;
    let mut then = Vec::new();
    statement(b, &mut then)?;
    let mut otherwise = Vec::new();
    let mut probe = b.cur.clone();
    if probe.ident() == Some("else") {
        *b.cur = probe;
        statement(b, &mut otherwise)?;
    }
    b.depth -= 1;
    Ok(Stmt::If { cond, then, otherwise, span })
}

/// `int r0 = …, r1;` (also `const`, `volatile`, `unsigned int`, `bool`, `auto`). Every
/// access it makes carries the declaration's position.
fn local_decl(b: &mut Body<'_, '_>, out: &mut Vec<Stmt>, span: Span) -> ParseResult<()> {
    // `None`: `auto`, the type of each initialiser.
    let declared = loop {
        let mut probe = b.cur.clone();
        match probe.ident() {
            Some("const" | "volatile") => *b.cur = probe,
            Some("bool") => {
                *b.cur = probe;
                break Some(ValueType::BOOL);
            }
            Some("auto") => {
                *b.cur = probe;
                break None;
            }
            _ => break Some(int_type(b.cur)?),
        }
    };
    loop {
        if b.cur.looking_at("*") || b.cur.looking_at("&") {
            return Err(b.cur.error("pointers and references are not supported: pass `&x` straight to the atomic builtin"));
        }
        b.cur.skip_blank();
        let at = b.cur.span();
        let name = b.cur.expect_ident("a local variable name")?;
        b.declare(name, at)?;
        if b.regs.len() >= MAX_REGISTERS_PER_THREAD {
            return Err(SyntaxError::new(at, format!("more than {MAX_REGISTERS_PER_THREAD} locals in one thread")));
        }
        b.regs.push(name.to_string());
        b.reg_types.push(declared.unwrap_or(ValueType::INT));
        let reg = RegId(b.regs.len() as u16 - 1);
        if eat_op(b.cur, "=") {
            b.cur.skip_blank();
            let stmt = rhs(b, reg, span)?;
            if declared.is_none() {
                let ty = b.deduced(&stmt, reg);
                b.reg_types[reg.0 as usize] = ty;
            }
            out.push(stmt);
        } else if declared.is_none() {
            return Err(SyntaxError::new(at, format!("`auto {name}` needs an initialiser to take its type from")));
        }
        if !more_declarators(b.cur)? {
            return Ok(());
        }
    }
}

/// `cuda::atomic_ref<int, cuda::thread_scope_block> a(x);` (after the type name).
fn atomic_ref_decl(b: &mut Body<'_, '_>) -> ParseResult<()> {
    b.cur.expect("<")?;
    let ty = int_type(b.cur)?;
    let scope = if b.cur.eat(",") { scope_name(b.cur, vocab::cxx_scope)? } else { Scope::System };
    b.cur.expect(">")?;
    b.cur.skip_blank();
    let at = b.cur.span();
    let name = b.cur.expect_ident("the `atomic_ref` variable name")?;
    b.declare(name, at)?;
    let close = if b.cur.eat("(") {
        ")"
    } else if b.cur.eat("{") {
        "}"
    } else {
        return Err(b.cur.error(format!("expected `(` and the location it refers to (`{name}(x)`), found {}", b.cur.describe_next())));
    };
    if b.cur.looking_at("&") {
        return Err(b.cur.error(format!("`atomic_ref` takes the object, not its address: `{name}(x)`")));
    }
    b.cur.skip_blank();
    let loc_at = b.cur.span();
    let (loc, _) = location_name(b)?;
    let declared = b.globals.type_of(loc);
    if declared != ty {
        // C++ [atomics.ref.generic]: `atomic_ref<T>` binds a `T&`; another type does not compile.
        return Err(SyntaxError::new(loc_at, format!("`atomic_ref<{ty}>` cannot refer to a location of type `{declared}`: give it `atomic_ref<{declared}>`")));
    }
    b.cur.expect(close)?;
    b.refs.push((name.to_string(), loc, scope));
    semicolon(b.cur)
}

/// A location named in the text (not `&`-prefixed).
pub(super) fn location_name(b: &mut Body<'_, '_>) -> ParseResult<(LocId, Option<Scope>)> {
    b.cur.skip_blank();
    let at = b.cur.span();
    let name = b.cur.expect_ident("a location name")?;
    match b.resolve(name) {
        Named::Loc(loc, scope) => Ok((loc, scope)),
        Named::Reg(_) => {
            Err(SyntaxError::new(at, format!("`{name}` is a local variable; atomics act on locations declared at the top (`__device__ int {name};`)")))
        }
        Named::Unknown => Err(SyntaxError::new(at, undeclared(name))),
    }
}

/// A scope argument read as a qualified name and checked by `vocab`.
pub(super) fn scope_name(cur: &mut Cursor<'_>, check: fn(&str) -> Result<Scope, String>) -> ParseResult<Scope> {
    cur.skip_blank();
    let at = cur.span();
    let Some(name) = qualified(cur) else {
        return Err(cur.error(format!("expected a scope, found {}", cur.describe_next())));
    };
    check(&name).map_err(|m| SyntaxError::new(at, m))
}

/// A statement that starts with a name: an assignment or a call.
fn simple(b: &mut Body<'_, '_>, name: &str, span: Span) -> ParseResult<Vec<Stmt>> {
    if b.cur.looking_at("(") {
        return call(b, name, span, None, span).map(|s| vec![s]);
    }
    if b.cur.eat(".") {
        return method(b, name, span, None, span).map(|s| vec![s]);
    }
    if vocab::builtin(name).is_ok() {
        return Err(SyntaxError::new(span, format!("`{name}` is a function: call it (`{name}(…);`)")));
    }
    match b.resolve(name) {
        Named::Reg(reg) => assign_reg(b, reg, span),
        Named::Loc(loc, scope) => store_plain(b, loc, scope, name, span).map(|s| vec![s]),
        Named::Unknown => Err(SyntaxError::new(span, undeclared(name))),
    }
}

const COMPOUND: [(&str, BinOp); 6] = [("+=", BinOp::Add), ("-=", BinOp::Sub), ("*=", BinOp::Mul), ("&=", BinOp::And), ("|=", BinOp::Or), ("^=", BinOp::Xor)];

/// `r = …;`, `r += e;`, `r++;`.
fn assign_reg(b: &mut Body<'_, '_>, reg: RegId, span: Span) -> ParseResult<Vec<Stmt>> {
    if eat_op(b.cur, "=") {
        b.cur.skip_blank();
        return Ok(vec![rhs(b, reg, span)?]);
    }
    for (tok, op) in COMPOUND {
        if b.cur.eat(tok) {
            let value = expr::expr(b)?;
            return Ok(vec![Stmt::Assign { reg, value: expr::bin(op, Expr::Reg(reg), value), span }]);
        }
    }
    for (tok, op) in [("++", BinOp::Add), ("--", BinOp::Sub)] {
        if b.cur.eat(tok) {
            return Ok(vec![Stmt::Assign { reg, value: expr::bin(op, Expr::Reg(reg), Expr::Const(1)), span }]);
        }
    }
    Err(b.cur.error(format!("expected `=` after a local variable, found {}", b.cur.describe_next())))
}

/// `x = e;` on a location: a plain store, or seq_cst through an atomic object.
fn store_plain(b: &mut Body<'_, '_>, loc: LocId, scope: Option<Scope>, name: &str, span: Span) -> ParseResult<Stmt> {
    if !eat_op(b.cur, "=") {
        let what = if COMPOUND.iter().any(|(t, _)| b.cur.looking_at(t)) || b.cur.looking_at("++") || b.cur.looking_at("--") {
            format!(
                "`{name}` is a location: `{name} += …` reads and writes it, two accesses in one statement; use `atomicAdd(&{name}, …)` or a load and a store"
            )
        } else {
            format!("expected `=` after the location `{name}`, found {}", b.cur.describe_next())
        };
        return Err(b.cur.error(what));
    }
    b.cur.skip_blank();
    if one_access_call(b) {
        return Err(b.cur.error(format!("one memory access per statement: read into a local first (`int r = …; {name} = r;`)")));
    }
    let value = expr::expr(b)?;
    Ok(Stmt::Store { target: b.globals.target(loc), value, access: plain_access(scope), span })
}

/// A plain use of a location: non-atomic, or seq_cst when it is an atomic object.
fn plain_access(scope: Option<Scope>) -> Access {
    scope.map_or(Access::Plain, |scope| Access::Atomic { order: Order::SeqCst, scope })
}

/// Does a call or method call start here (used to reject a store of a call's result)?
fn one_access_call(b: &Body<'_, '_>) -> bool {
    let mut probe = b.cur.clone();
    qualified(&mut probe).is_some() && (probe.looking_at("(") || probe.looking_at("."))
}

/// The right-hand side of `r = …`: a call, a method call, a location (a load) or an
/// expression over locals.
fn rhs(b: &mut Body<'_, '_>, reg: RegId, span: Span) -> ParseResult<Stmt> {
    b.cur.skip_blank();
    let at = b.cur.span();
    let mut probe = b.cur.clone();
    if let Some(name) = qualified(&mut probe) {
        if probe.looking_at("(") {
            *b.cur = probe;
            return call(b, &name, at, Some(reg), span);
        }
        if probe.looking_at(".") {
            *b.cur = probe;
            b.cur.expect(".")?;
            return method(b, &name, at, Some(reg), span);
        }
        if let Named::Loc(loc, scope) = b.resolve(&name) {
            // A location not followed by an operator is a load (`r = x;`); a missing `;`
            // after it is reported as such, not as a location inside an expression.
            probe.skip_blank();
            if !probe.rest().starts_with(|c: char| "+-*/%&|^<>=!?[".contains(c)) {
                qualified(b.cur);
                return Ok(Stmt::Load { reg, target: b.globals.target(loc), access: plain_access(scope), span });
            }
        }
    }
    Ok(Stmt::Assign { reg, value: expr::expr(b)?, span })
}
