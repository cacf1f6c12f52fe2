//! The OpenCL 2.0 builtins a litmus thread calls: atomic loads, stores, exchanges,
//! fetch-and-ops and compare-exchanges (plain and `_explicit`), `atomic_init`,
//! `atomic_work_item_fence` and `barrier`.
//!
//! Defaults follow OpenCL 2.0: the forms without `_explicit` are `memory_order_seq_cst`,
//! and an omitted scope is `memory_scope_device`.

use super::super::error::{ParseResult, SyntaxError};
use super::super::program::{Expr, RegId, Span, Stmt};
use super::super::text::Cursor;
use super::body::ThreadCx;
use super::expr::{self, Addr};
use super::here;
use hipscope_mm::{Access, Order, RmwOp, Scope, Spaces};

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Load,
    Store,
    Init,
    Rmw(RmwOp),
    Cas,
    Fence,
    Barrier,
}

/// What each argument position holds.
#[derive(Clone, Copy)]
enum Arg {
    Object,
    Value,
    Expected,
    Order,
    Scope,
    Flags,
}

/// A builtin's arguments, and how many of them may be left off at the end.
struct Signature {
    args: &'static [Arg],
    required: usize,
    usage: &'static str,
}

fn lookup(name: &str) -> Option<(Kind, Signature)> {
    use Arg::*;
    let (base, explicit) = match name.strip_suffix("_explicit") {
        Some(base) => (base, true),
        None => (name, false),
    };
    let kind = match base {
        "atomic_load" => Kind::Load,
        "atomic_store" => Kind::Store,
        "atomic_init" if !explicit => Kind::Init,
        "atomic_exchange" => Kind::Rmw(RmwOp::Exchange),
        "atomic_fetch_add" => Kind::Rmw(RmwOp::Add),
        "atomic_fetch_sub" => Kind::Rmw(RmwOp::Sub),
        "atomic_fetch_and" => Kind::Rmw(RmwOp::And),
        "atomic_fetch_or" => Kind::Rmw(RmwOp::Or),
        "atomic_fetch_xor" => Kind::Rmw(RmwOp::Xor),
        "atomic_fetch_min" => Kind::Rmw(RmwOp::Min),
        "atomic_fetch_max" => Kind::Rmw(RmwOp::Max),
        "atomic_compare_exchange_strong" | "atomic_compare_exchange_weak" => Kind::Cas,
        "atomic_work_item_fence" if !explicit => Kind::Fence,
        "barrier" | "work_group_barrier" if !explicit => Kind::Barrier,
        _ => return None,
    };
    let sig = |args: &'static [Arg], required, usage| Signature { args, required, usage };
    Some((
        kind,
        match (kind, explicit) {
            (Kind::Load, false) => sig(&[Object], 1, "(object)"),
            (Kind::Load, true) => sig(&[Object, Order, Scope], 2, "(object, order[, scope])"),
            (Kind::Store | Kind::Init | Kind::Rmw(_), false) => sig(&[Object, Value], 2, "(object, value)"),
            (Kind::Store | Kind::Rmw(_), true) => sig(&[Object, Value, Order, Scope], 3, "(object, value, order[, scope])"),
            (Kind::Cas, false) => sig(&[Object, Expected, Value], 3, "(object, &expected, desired)"),
            (Kind::Cas, true) => sig(&[Object, Expected, Value, Order, Order, Scope], 5, "(object, &expected, desired, success, failure[, scope])"),
            (Kind::Fence, _) => sig(&[Flags, Order, Scope], 2, "(flags, order[, scope])"),
            _ => sig(&[Flags], 1, "(flags)"),
        },
    ))
}

/// The expected-value argument of a compare-exchange: a local variable (`&e`) or a
/// location (`oldHead_p`, `&y[1]`).
enum Expected {
    Local(RegId),
    Memory(Addr),
}

/// Parsed arguments, by kind, in the order written.
#[derive(Default)]
struct Args {
    object: Option<Addr>,
    values: Vec<Expr>,
    expected: Option<Expected>,
    orders: Vec<(Order, Span)>,
    scope: Option<Scope>,
    flags: Option<Spaces>,
}

/// A call at the cursor (on the function's name). Returns the value when `want_value`;
/// `Ok(None)` from a builtin that returns nothing.
pub fn call(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>, want_value: bool) -> ParseResult<Option<Expr>> {
    cur.skip_blank();
    let span = cur.span();
    let name = cur.expect_ident("a function name")?;
    let Some((kind, sig)) = lookup(name) else {
        return Err(SyntaxError::new(span, unknown_function(name)));
    };
    if want_value && matches!(kind, Kind::Store | Kind::Init | Kind::Fence | Kind::Barrier) {
        return Err(SyntaxError::new(span, format!("`{name}` does not return a value")));
    }
    let args = arguments(cur, cx, out, name, &sig)?;
    build(cx, out, kind, args, want_value, span)
}

fn unknown_function(name: &str) -> String {
    match name {
        "while" | "for" => format!("loops (`{name}`) are not supported: a litmus thread is straight-line code with `if`/`else`"),
        "if" | "switch" => format!("`{name}` cannot be used inside an expression"),
        _ => format!(
            "unknown function `{name}`: expected an OpenCL atomic such as `atomic_load_explicit`, `atomic_store_explicit`, `atomic_fetch_add_explicit`, `atomic_compare_exchange_strong_explicit`, or `atomic_work_item_fence` / `barrier`"
        ),
    }
}

/// `(a, b, …)` read according to `sig`.
fn arguments(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>, name: &str, sig: &Signature) -> ParseResult<Args> {
    cur.expect("(")?;
    let mut args = Args::default();
    let mut count = 0;
    if !cur.looking_at(")") {
        loop {
            let Some(kind) = sig.args.get(count) else {
                return Err(here(cur, format!("too many arguments: `{name}{}`", sig.usage)));
            };
            argument(cur, cx, out, *kind, &mut args)?;
            count += 1;
            if !cur.eat(",") {
                break;
            }
        }
    }
    if !cur.looking_at(")") {
        return Err(here(cur, format!("expected `,` or `)` in the arguments of `{name}`, found {}", cur.describe_next())));
    }
    if count < sig.required {
        return Err(here(cur, format!("too few arguments: `{name}{}`", sig.usage)));
    }
    cur.expect(")")?;
    Ok(args)
}

fn argument(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>, kind: Arg, args: &mut Args) -> ParseResult<()> {
    cur.skip_blank();
    let span = cur.span();
    match kind {
        Arg::Object => args.object = Some(expr::pointer(cur, cx, out)?),
        Arg::Value => args.values.push(expr::expr(cur, cx, out)?),
        Arg::Expected => args.expected = Some(expected(cur, cx, out)?),
        Arg::Order => args.orders.push((order(cur)?, span)),
        Arg::Scope => args.scope = Some(scope(cur)?),
        Arg::Flags => args.flags = Some(flags(cur)?),
    }
    Ok(())
}

fn order(cur: &mut Cursor<'_>) -> ParseResult<Order> {
    cur.skip_blank();
    let span = cur.span();
    let order = match cur.ident() {
        Some("memory_order_relaxed") => Order::Relaxed,
        // Consume is promoted to acquire, as every compiler does.
        Some("memory_order_acquire" | "memory_order_consume") => Order::Acquire,
        Some("memory_order_release") => Order::Release,
        Some("memory_order_acq_rel") => Order::AcqRel,
        Some("memory_order_seq_cst") => Order::SeqCst,
        other => {
            let found = other.map_or_else(|| cur.describe_next(), |w| format!("`{w}`"));
            return Err(SyntaxError::new(
                span,
                format!("expected a memory order (`memory_order_relaxed`, `_acquire`, `_release`, `_acq_rel` or `_seq_cst`), found {found}"),
            ));
        }
    };
    Ok(order)
}

fn scope(cur: &mut Cursor<'_>) -> ParseResult<Scope> {
    cur.skip_blank();
    let span = cur.span();
    let scope = match cur.ident() {
        Some("memory_scope_work_item") => Scope::WorkItem,
        Some("memory_scope_sub_group") => Scope::Wavefront,
        Some("memory_scope_work_group") => Scope::Workgroup,
        Some("memory_scope_device") => Scope::Agent,
        Some("memory_scope_all_svm_devices" | "memory_scope_all_devices") => Scope::System,
        other => {
            let found = other.map_or_else(|| cur.describe_next(), |w| format!("`{w}`"));
            return Err(SyntaxError::new(
                span,
                format!("expected a memory scope (`memory_scope_work_item`, `_sub_group`, `_work_group`, `_device` or `_all_svm_devices`), found {found}"),
            ));
        }
    };
    Ok(scope)
}

/// `CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE`.
fn flags(cur: &mut Cursor<'_>) -> ParseResult<Spaces> {
    let mut spaces = Spaces { global: false, local: false };
    loop {
        cur.skip_blank();
        let span = cur.span();
        match cur.ident() {
            Some("CLK_GLOBAL_MEM_FENCE") => spaces.global = true,
            Some("CLK_LOCAL_MEM_FENCE") => spaces.local = true,
            other => {
                let found = other.map_or_else(|| cur.describe_next(), |w| format!("`{w}`"));
                return Err(SyntaxError::new(span, format!("expected `CLK_GLOBAL_MEM_FENCE` or `CLK_LOCAL_MEM_FENCE`, found {found}")));
            }
        }
        if cur.looking_at("||") || !cur.eat("|") {
            return Ok(spaces);
        }
    }
}

/// `&e` (a local variable) or a pointer to a location holding the expected value.
fn expected(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>) -> ParseResult<Expected> {
    let mut probe = cur.clone();
    if probe.eat("&") {
        probe.skip_blank();
        let span = probe.span();
        if let Some(name) = probe.ident() {
            if let Some(reg) = cx.local(name) {
                *cur = probe;
                return Ok(Expected::Local(reg));
            }
            if cx.pointer(name).is_some() && !probe.looking_at("[") {
                return Err(SyntaxError::new(span, format!("`{name}` is already a pointer: pass `{name}`, not `&{name}`")));
            }
        }
    }
    Ok(Expected::Memory(expr::pointer(cur, cx, out)?))
}

fn build(cx: &mut ThreadCx<'_>, out: &mut Vec<Stmt>, kind: Kind, mut args: Args, want_value: bool, span: Span) -> ParseResult<Option<Expr>> {
    let scope = args.scope.unwrap_or(Scope::Agent);
    let first_order = args.orders.first().copied();
    let access = Access::Atomic { order: first_order.map_or(Order::SeqCst, |(o, _)| o), scope };
    let value = args.values.pop().unwrap_or(Expr::Const(0));
    let spaces = args.flags.unwrap_or(Spaces::ALL);
    match kind {
        Kind::Fence => {
            out.push(Stmt::Fence { order: first_order.map_or(Order::SeqCst, |(o, _)| o), scope, spaces, span });
            return Ok(None);
        }
        Kind::Barrier => {
            out.push(Stmt::Barrier { id: None, spaces, span });
            return Ok(None);
        }
        _ => {}
    }
    let Some(object) = args.object.take() else {
        return Err(SyntaxError::new(span, "internal error: the call has no object argument"));
    };
    match kind {
        Kind::Load => {
            check_order(first_order, &[Order::Release, Order::AcqRel], "a load", "relaxed, acquire or seq_cst")?;
            let reg = cx.temp(span)?;
            expr::emit_access(cx, &object, out, &|target| Stmt::Load { reg, target, access, span });
            Ok(Some(Expr::Reg(reg)))
        }
        Kind::Store | Kind::Init => {
            check_order(first_order, &[Order::Acquire, Order::AcqRel], "a store", "relaxed, release or seq_cst")?;
            let access = if kind == Kind::Init { Access::Plain } else { access };
            expr::emit_access(cx, &object, out, &|target| Stmt::Store { target, value: value.clone(), access, span });
            Ok(None)
        }
        Kind::Rmw(op) => {
            let old = if want_value { Some(cx.temp(span)?) } else { None };
            expr::emit_access(cx, &object, out, &|target| Stmt::Rmw { old, target, op, operand: value.clone(), access, span });
            Ok(old.map(Expr::Reg))
        }
        _ => compare_exchange(cx, out, object, args, value, want_value, span),
    }
}

/// Stores may not acquire and loads may not release (C11 7.17.7.1 and 7.17.7.2).
fn check_order(order: Option<(Order, Span)>, forbidden: &[Order], what: &str, allowed: &str) -> ParseResult<()> {
    match order {
        Some((o, span)) if forbidden.contains(&o) => Err(SyntaxError::new(span, format!("{what} cannot have order `{}` (use {allowed})", order_name(o)))),
        _ => Ok(()),
    }
}

fn order_name(order: Order) -> &'static str {
    match order {
        Order::Relaxed => "memory_order_relaxed",
        Order::Acquire => "memory_order_acquire",
        Order::Release => "memory_order_release",
        Order::AcqRel => "memory_order_acq_rel",
        Order::SeqCst => "memory_order_seq_cst",
    }
}

/// `ok = compare_exchange(object, expected, desired, success, failure)`. With `&e` the
/// variable `e` receives the value read. With a pointer, C reads the expected value from
/// memory and writes the value read back only on failure, so that is what is emitted:
/// `e = *p; ok = cas(object, e, desired); if (!ok) *p = e;`.
fn compare_exchange(
    cx: &mut ThreadCx<'_>,
    out: &mut Vec<Stmt>,
    object: Addr,
    args: Args,
    desired: Expr,
    want_value: bool,
    span: Span,
) -> ParseResult<Option<Expr>> {
    let scope = args.scope.unwrap_or(Scope::Agent);
    let order = |i: usize| Access::Atomic { order: args.orders.get(i).map_or(Order::SeqCst, |(o, _)| *o), scope };
    let (success, failure) = (order(0), order(1));
    let Some(expected) = args.expected else {
        return Err(SyntaxError::new(span, "internal error: the call has no expected argument"));
    };
    let cas = |old: RegId, ok: Option<RegId>| {
        move |target| Stmt::Cas { old: Some(old), ok, target, expected: Expr::Reg(old), desired: desired.clone(), success, failure, span }
    };
    match expected {
        Expected::Local(e) => {
            let ok = if want_value { Some(cx.temp(span)?) } else { None };
            expr::emit_access(cx, &object, out, &cas(e, ok));
            Ok(ok.map(Expr::Reg))
        }
        Expected::Memory(place) => {
            let e = cx.temp(span)?;
            expr::emit_access(cx, &place, out, &|target| Stmt::Load { reg: e, target, access: Access::Plain, span });
            let ok = cx.temp(span)?;
            expr::emit_access(cx, &object, out, &cas(e, Some(ok)));
            let mut write_back = Vec::new();
            expr::emit_access(cx, &place, &mut write_back, &|target| Stmt::Store { target, value: Expr::Reg(e), access: Access::Plain, span });
            out.push(Stmt::If { cond: Expr::Not(Box::new(Expr::Reg(ok))), then: write_back, otherwise: Vec::new(), span });
            Ok(want_value.then_some(Expr::Reg(ok)))
        }
    }
}
