//! herd's LISA with the HSA bell (`w[atomic,screl,wg] y 1`, `scopes: (agent (wg 0 1))`) and
//! the tutorial scope bell (`f[cta]`, `scopes: (system (gpu (cta P0) (cta P1)))`).
//!
//! Instruction forms follow herd's `LISAParser.mly`: `r[a] reg addr`, `w[a] addr value`,
//! `rmw[a] reg op addr`, `f[a]`, `mov reg op`, `b[a] reg label`, `b[a] label`, labels
//! `L:`; operations are a value or `(add|xor|and|eq|neq a b)`. Semantics per herd's
//! `BellSem.ml`: `b r L` jumps when `r` is non-zero; `rmw r op x` writes `op` to `x` and
//! puts the old value in `r`, evaluating `op` with `r` = the old value when `op` names `r`.
//!
//! Annotations per the HSA bell (`catalogue/hsa/bells/hsa.bell`): an access's kind is
//! `atomic` or `ordinary`, its order `rlx scacq screl scar`, its scope
//! `wi wave wg agent system`; the bell's `default R/W[{'ordinary},{'rlx},{'wi}]` fills what
//! is missing, so `r[atomic] r0 x` is relaxed at work-item scope and `r[] r0 x` is plain.
//! RMWs take the same defaults (the bell declares none; they are atomic by nature). The
//! `sc` orders map to acquire/release/acq_rel: the HSA model, chosen by the dialect, adds
//! that every `sc*` operation of a scope instance takes part in one total order. Fences:
//! `f[scacq|screl|scar, scope]` (HSA) are acquire/release/acq_rel fences; `f[cta]`,
//! `f[gpu]`, `f[system]` (tutorial bell `jaguar.bell`, `instructions F[scopes]`) have no
//! order and are full (seq_cst) fences. A fence must name its scope.

use super::columns::{self, is_register, register, Builder, Item, Key, Placing};
use super::error::{ParseResult, SyntaxError};
use super::program::*;
use super::text::Cursor;
use hipscope_mm::{Access, Order, RmwOp, Scope, Spaces};

pub fn parse(src: &str) -> ParseResult<Litmus> {
    columns::parse_columns(src, Dialect::Lisa, Placing::Trailer(trailer), |cur, b, t| instruction(cur, b, t).map(Some))
}

/// `scopes: …` and `regions: …`, in either order. Without `scopes:` every thread is in one
/// work-group of one agent (see [`columns::default_keys`]).
fn trailer(cur: &mut Cursor<'_>, builder: &mut Builder) -> ParseResult<Vec<[Key; 3]>> {
    let threads = builder.threads.len();
    let mut keys = None;
    loop {
        cur.skip_blank();
        let span = cur.span();
        if columns::eat_word(cur, "scopes") {
            if keys.is_some() {
                return Err(SyntaxError::new(span, "`scopes:` is given twice"));
            }
            cur.expect(":")?;
            let tree_span = cur.span();
            let trees = columns::parse_trees(cur, threads)?;
            keys = Some(columns::tree_keys(&trees, threads, tree_span)?);
        } else if columns::eat_word(cur, "regions") {
            cur.expect(":")?;
            columns::memory_map(cur, builder)?;
        } else if columns::eat_word(cur, "levels") {
            return Err(SyntaxError::new(span, "`levels:` is not supported; give the placement with `scopes:`"));
        } else {
            return Ok(keys.unwrap_or_else(|| columns::default_keys(threads)));
        }
    }
}

fn instruction(cur: &mut Cursor<'_>, b: &mut Builder, t: usize) -> ParseResult<Item> {
    cur.skip_blank();
    let span = cur.span();
    let Some(op) = cur.ident() else {
        return Err(cur.error(format!("expected an instruction (`r[…]`, `w[…]`, `rmw[…]`, `f[…]`, `mov`, `b`) or a label, found {}", cur.describe_next())));
    };
    let stmt = match op {
        "r" => {
            let a = annotations(cur)?;
            let reg = register(cur, b, t)?;
            let target = address(cur, b, t)?;
            Stmt::Load { reg, target, access: access(&a, true)?, span }
        }
        "w" => {
            let a = annotations(cur)?;
            let target = address(cur, b, t)?;
            let value = store_value(cur, b, t)?;
            Stmt::Store { target, value, access: access(&a, false)?, span }
        }
        "rmw" => rmw(cur, b, t, span)?,
        "f" => fence(cur, span)?,
        "mov" => {
            let reg = register(cur, b, t)?;
            Stmt::Assign { reg, value: operation(cur, b, t, 0)?, span }
        }
        "b" => return branch(cur, b, t, span),
        "call" => return Err(SyntaxError::new(span, "the obsolete `call[…]` instruction is not supported")),
        other => return Err(SyntaxError::new(span, format!("unknown LISA instruction `{other}` (expected r, w, rmw, f, mov or b)"))),
    };
    Ok(Item::Stmt(stmt))
}

/// The annotations of one instruction, sorted by what they say.
#[derive(Default)]
struct Annotations<'a> {
    atomic: Option<(bool, Span)>,
    order: Option<(&'a str, Span)>,
    scope: Option<(Scope, Span)>,
    span: Span,
}

/// `[atomic,screl,wg]`; the brackets are optional (herd's `annot_list_option`).
fn annotations<'a>(cur: &mut Cursor<'a>) -> ParseResult<Annotations<'a>> {
    cur.skip_blank();
    let mut a = Annotations { span: cur.span(), ..Annotations::default() };
    if !cur.eat("[") {
        return Ok(a);
    }
    while !cur.eat("]") {
        cur.skip_blank();
        let span = cur.span();
        let word = cur.expect_ident("an annotation (`atomic`, `screl`, `wg`, …) or `]`")?;
        annotate(&mut a, word, span)?;
        if !cur.eat(",") && !cur.looking_at("]") {
            return Err(cur.error(format!("expected `,` or `]`, found {}", cur.describe_next())));
        }
    }
    Ok(a)
}

fn annotate<'a>(a: &mut Annotations<'a>, word: &'a str, span: Span) -> ParseResult<()> {
    let twice = |what: &str| Err(SyntaxError::new(span, format!("`{word}`: this instruction already has {what}")));
    match word {
        "atomic" | "ordinary" if a.atomic.is_some() => twice("`atomic` or `ordinary`"),
        "atomic" | "ordinary" => {
            a.atomic = Some((word == "atomic", span));
            Ok(())
        }
        "rlx" | "scacq" | "screl" | "scar" if a.order.is_some() => twice("an order"),
        "rlx" | "scacq" | "screl" | "scar" => {
            a.order = Some((word, span));
            Ok(())
        }
        _ => match scope_of(word) {
            Some(_) if a.scope.is_some() => twice("a scope"),
            Some(scope) => {
                a.scope = Some((scope, span));
                Ok(())
            }
            None => Err(SyntaxError::new(
                span,
                format!("unknown annotation `{word}` (HSA bell: atomic, ordinary, rlx, scacq, screl, scar, wi, wave, wg, agent, system; scope bell: cta, gpu, system)"),
            )),
        },
    }
}

/// HSA bell scopes, and the tutorial bell's `cta`/`gpu` (a CTA is a work-group, a GPU an agent).
fn scope_of(word: &str) -> Option<Scope> {
    match word {
        "wi" => Some(Scope::WorkItem),
        "wave" => Some(Scope::Wavefront),
        "wg" | "cta" => Some(Scope::Workgroup),
        "agent" | "gpu" => Some(Scope::Agent),
        "system" => Some(Scope::System),
        _ => None,
    }
}

/// A read's or write's access under the HSA bell's defaults.
fn access(a: &Annotations<'_>, is_read: bool) -> ParseResult<Access> {
    let atomic = a.atomic.is_some_and(|(atomic, _)| atomic);
    if !atomic {
        if let Some((order, order_span)) = a.order.filter(|(o, _)| *o != "rlx") {
            return Err(SyntaxError::new(order_span, format!("`{order}` needs an atomic access: write `[atomic,{order},…]`")));
        }
        if let Some((_, scope_span)) = a.scope {
            return Err(SyntaxError::new(scope_span, "a plain access takes no scope: write `[atomic,…]` for a scoped atomic"));
        }
        return Ok(Access::Plain);
    }
    let order = match a.order {
        None | Some(("rlx", _)) => Order::Relaxed,
        Some(("scacq", s)) if !is_read => return Err(SyntaxError::new(s, "a write cannot be an acquire (`scacq`)")),
        Some(("screl", s)) if is_read => return Err(SyntaxError::new(s, "a read cannot be a release (`screl`)")),
        Some((o, _)) => sc_order(o),
    };
    Ok(Access::Atomic { order, scope: a.scope.map_or(Scope::WorkItem, |(s, _)| s) })
}

fn sc_order(word: &str) -> Order {
    match word {
        "scacq" => Order::Acquire,
        "screl" => Order::Release,
        "scar" => Order::AcqRel,
        _ => Order::Relaxed,
    }
}

fn fence(cur: &mut Cursor<'_>, span: Span) -> ParseResult<Stmt> {
    let a = annotations(cur)?;
    if cur.looking_at("{") {
        return Err(cur.error("fences with event-set labels (`f[…] {…} {…}`) are not supported"));
    }
    if let Some((_, s)) = a.atomic {
        return Err(SyntaxError::new(s, "a fence is neither `atomic` nor `ordinary`"));
    }
    let order = match a.order {
        None => Order::SeqCst,
        Some(("rlx", s)) => return Err(SyntaxError::new(s, "a fence cannot be relaxed (`rlx`); use scacq, screl or scar")),
        Some((o, _)) => sc_order(o),
    };
    let Some((scope, _)) = a.scope else {
        return Err(SyntaxError::new(a.span, "a fence needs a scope (`f[screl,wg]`, `f[cta]`)"));
    };
    Ok(Stmt::Fence { order, scope, spaces: Spaces::ALL, span })
}

/// `rmw[a] r op x`: see the module comment for how `op` becomes fetch_<op> or exchange.
fn rmw(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, span: Span) -> ParseResult<Stmt> {
    let a = annotations(cur)?;
    if let Some((false, s)) = a.atomic {
        return Err(SyntaxError::new(s, "a read-modify-write is atomic; drop `ordinary`"));
    }
    let order = match a.order {
        None | Some(("rlx", _)) => Order::Relaxed,
        Some((o, _)) => sc_order(o),
    };
    let access = Access::Atomic { order, scope: a.scope.map_or(Scope::WorkItem, |(s, _)| s) };
    let reg = register(cur, b, t)?;
    cur.skip_blank();
    let op_span = cur.span();
    let value = operation(cur, b, t, 0)?;
    let target = address(cur, b, t)?;
    let (op, operand) = rmw_op(value, reg).ok_or_else(|| {
        SyntaxError::new(
            op_span,
            "this read-modify-write cannot be expressed as a fetch-and-op: use `(add r k)`, `(xor r k)`, `(and r k)` or a value not naming r",
        )
    })?;
    Ok(Stmt::Rmw { old: Some(reg), target, op, operand, access, span })
}

fn rmw_op(value: Expr, reg: RegId) -> Option<(RmwOp, Expr)> {
    if !mentions(&value, reg) {
        return Some((RmwOp::Exchange, value));
    }
    let Expr::Bin(op, a, b) = value else { return None };
    let op = match op {
        BinOp::Add => RmwOp::Add,
        BinOp::Xor => RmwOp::Xor,
        BinOp::And => RmwOp::And,
        _ => return None,
    };
    match (*a, *b) {
        (Expr::Reg(r), other) | (other, Expr::Reg(r)) if r == reg && !mentions(&other, reg) => Some((op, other)),
        _ => None,
    }
}

fn mentions(e: &Expr, reg: RegId) -> bool {
    match e {
        Expr::Const(_) => false,
        Expr::Reg(r) => *r == reg,
        Expr::Not(inner) => mentions(inner, reg),
        Expr::Bin(_, a, b) => mentions(a, reg) || mentions(b, reg),
    }
}

/// `b[a] r3 Exit1` (jump when r3 is non-zero) or `b[a] Exit1`.
fn branch(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, span: Span) -> ParseResult<Item> {
    annotations(cur)?;
    cur.skip_blank();
    let first_span = cur.span();
    let first = cur.expect_ident("a register or a label")?;
    let mut probe = cur.clone();
    let Some(label) = probe.ident() else {
        return Ok(Item::Jump { cond: None, label: first.to_string(), span });
    };
    *cur = probe;
    if !is_register(first) {
        return Err(SyntaxError::new(first_span, format!("expected a register (`r0`) to branch on, found `{first}`")));
    }
    let cond = b.value_reg(t, first, first_span)?;
    Ok(Item::Jump { cond: Some(cond), label: label.to_string(), span })
}

/// A location, or a register holding one (`0:r2=x` in the initial state).
fn address(cur: &mut Cursor<'_>, b: &mut Builder, t: usize) -> ParseResult<Target> {
    cur.skip_blank();
    let span = cur.span();
    let name = cur.expect_ident("a location")?;
    let loc = if is_register(name) {
        b.address(t, name).ok_or_else(|| SyntaxError::new(span, format!("register `{name}` holds no address (initialize it as `{t}:{name}=x;`)")))?
    } else {
        b.location(name, span)?
    };
    if cur.looking_at("+") {
        return Err(cur.error("computed addresses (`x+r1`) are not supported"));
    }
    Ok(Target::word(loc))
}

fn store_value(cur: &mut Cursor<'_>, b: &mut Builder, t: usize) -> ParseResult<Expr> {
    columns::int_or_register(cur, b, t, "a register or an integer to store")
}

/// A value (`r0`, `1`) or `(add|xor|and|eq|neq a b)`.
fn operation(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, depth: u32) -> ParseResult<Expr> {
    cur.skip_blank();
    let span = cur.span();
    if !cur.eat("(") {
        return store_value(cur, b, t);
    }
    if depth > 8 {
        return Err(SyntaxError::new(span, "operation nested too deeply"));
    }
    let name = cur.expect_ident("an operation (`add`, `xor`, `and`, `eq`, `neq`)")?;
    let op = match name {
        "add" => BinOp::Add,
        "xor" => BinOp::Xor,
        "and" => BinOp::And,
        "eq" => BinOp::Eq,
        "neq" => BinOp::Ne,
        _ => return Err(SyntaxError::new(span, format!("unknown operation `{name}` (expected add, xor, and, eq or neq)"))),
    };
    let left = operation(cur, b, t, depth + 1)?;
    let right = operation(cur, b, t, depth + 1)?;
    cur.expect(")")?;
    Ok(Expr::Bin(op, Box::new(left), Box::new(right)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(src: &str) -> Litmus {
        match parse(src) {
            Ok(l) => l,
            Err(e) => panic!("{}: {}", e.span, e.message),
        }
    }

    const MP: &str = "LISA t\n{ }\n P0 | P1 ;\n w[atomic,screl,wg] x 1 | r[atomic,scacq,agent] r0 x ;\nscopes: (agent (wg 0) (wg 1))\nexists (1:r0=1)";

    #[test]
    fn scoped_accesses_and_tree() {
        let l = parse_ok(MP);
        assert_eq!(
            l.threads[0].body[0],
            Stmt::Store {
                target: Target::word(LocId(0)),
                value: Expr::Const(1),
                access: Access::Atomic { order: Order::Release, scope: Scope::Workgroup },
                span: Span { line: 4, column: 2 }
            }
        );
        assert!(matches!(l.threads[1].body[0], Stmt::Load { access: Access::Atomic { order: Order::Acquire, scope: Scope::Agent }, .. }));
        assert_ne!(l.threads[0].placement.workgroup, l.threads[1].placement.workgroup);
        assert_eq!(l.threads[0].placement.agent, l.threads[1].placement.agent);
    }

    #[test]
    fn defaults_follow_the_hsa_bell() {
        let l = parse_ok("LISA t\n{ }\n P0 ;\n r[atomic] r0 x ;\nexists (0:r0=0)");
        assert!(matches!(l.threads[0].body[0], Stmt::Load { access: Access::Atomic { order: Order::Relaxed, scope: Scope::WorkItem }, .. }));
    }

    #[test]
    fn rmw_forms() {
        let l = parse_ok("LISA t\n{ }\n P0 ;\n rmw[atomic,scar,wg] r0 (add r0 2) x ;\n rmw[atomic,rlx,agent] r1 5 x ;\nexists (0:r0=0)");
        assert!(matches!(l.threads[0].body[0], Stmt::Rmw { op: RmwOp::Add, operand: Expr::Const(2), old: Some(RegId(0)), .. }));
        assert!(matches!(l.threads[0].body[1], Stmt::Rmw { op: RmwOp::Exchange, operand: Expr::Const(5), .. }));
        let e = parse("LISA t\n{ }\n P0 ;\n rmw[atomic] r0 (eq r0 2) x ;\nexists (0:r0=0)").unwrap_err();
        assert!(e.message.contains("fetch-and-op"), "{}", e.message);
    }

    #[test]
    fn annotation_errors_point_at_the_word() {
        let e = parse("LISA t\n{ }\n P0 ;\n w[atomic,scacq,wg] x 1 ;\nexists (x=1)").unwrap_err();
        assert_eq!(e.span, Span { line: 4, column: 11 });
        let e = parse("LISA t\n{ }\n P0 ;\n w[screl] x 1 ;\nexists (x=1)").unwrap_err();
        assert!(e.message.contains("needs an atomic"), "{}", e.message);
        let e = parse("LISA t\n{ }\n P0 ;\n f[screl] ;\nexists (x=1)").unwrap_err();
        assert!(e.message.contains("needs a scope"), "{}", e.message);
        let e = parse("LISA t\n{ }\n P0 ;\n w[bogus] x 1 ;\nexists (x=1)").unwrap_err();
        assert!(e.message.contains("unknown annotation `bogus`"), "{}", e.message);
    }

    #[test]
    fn address_registers_come_from_the_initial_state() {
        let l = parse_ok("LISA t\n{ 0:r2=y; }\n P0 ;\n w[] r2 1 ;\nexists (y=1)");
        assert!(matches!(l.threads[0].body[0], Stmt::Store { target, .. } if target.loc == LocId(0)));
        let e = parse("LISA t\n{ }\n P0 ;\n w[] r2 1 ;\nexists (0:r2=1)").unwrap_err();
        assert!(e.message.contains("holds no address"), "{}", e.message);
    }
}
