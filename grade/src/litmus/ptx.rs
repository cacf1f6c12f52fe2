//! PTX litmus tests in two formats: Dartagnan's (`PTX`, grammar `LitmusPTX.g4`:
//! `P0@cta 0,gpu 0`, `st.release.cta y, 1`, `ld.acquire.gpu r1, y`, `fence.sc.cta`) and
//! herd's 2015 `GPU_PTX` (`GPU_PTXParser.mly`: `st.wt.s32 [r2],r1` through address
//! registers bound in the initial state, `membar.cta`, `scopeTree (device (cta P0 P1))`).
//!
//! Mapping (PTX ISA, "Memory Consistency Model"): `.weak` and herd's cache-operator
//! accesses (`.cg`, `.wt`, …) are plain; `.relaxed/.acquire/.release/.acq_rel` are atomics
//! with that order; `.volatile` is treated as `.relaxed.sys`, as the ISA specifies; scopes
//! `cta` → work-group, `gpu` → agent, `sys` → system; a strong operation without a scope is
//! `.gpu`, the ISA's default for `atom`/`red`. `fence.sc` is a seq_cst fence,
//! `fence.acq_rel` an acq_rel fence; `membar.cta/gl/sys` are `fence.sc` at cta/gpu/sys
//! (the ISA defines `membar` as a synonym of `fence.sc`). `bar.cta.sync N` is a work-group
//! barrier. herd's `atom` has no order and is relaxed at gpu scope.

use super::columns::{self, location, register, value, Builder, Item, Key, Placing};
use super::error::{ParseResult, SyntaxError};
use super::marks::{bit, Mark};
use super::program::*;
use super::text::{first_word, Cursor};
use hipscope_mm::{Access, Order, RmwOp, Scope, Spaces};

pub fn parse(src: &str) -> ParseResult<Litmus> {
    if first_word(src).0 == "GPU_PTX" {
        herd::parse(src)
    } else {
        parse_dartagnan(src)
    }
}

fn parse_dartagnan(src: &str) -> ParseResult<Litmus> {
    columns::parse_columns(src, Dialect::Ptx, Placing::Heads(dartagnan_head), |cur, b, t| dartagnan_instruction(cur, b, t).map(Some))
}

/// `@cta 0,gpu 0`; Dartagnan's PTX threads name no warp: each runs in a wavefront of its own.
fn dartagnan_head(t: usize, rest: &mut Cursor<'_>) -> ParseResult<[Key; 3]> {
    let ids = columns::at_ids(rest, &["cta", "gpu"])?;
    let (cta, gpu) = (ids.first().copied().unwrap_or(0), ids.get(1).copied().unwrap_or(0));
    Ok([Key::Ids(vec![gpu]), Key::Ids(vec![gpu, cta]), Key::Own(t)])
}

fn dartagnan_instruction(cur: &mut Cursor<'_>, b: &mut Builder, t: usize) -> ParseResult<Item> {
    let (span, op, words) = columns::mnemonic(cur, "a PTX instruction")?;
    let suffix = words.as_slice();
    b.last_alias = None;
    let (stmt, bits) = match op {
        // `ld r0, 1`: Dartagnan's `localValue`, a register set to a value.
        "ld" if suffix.is_empty() => (columns::three_operand_free_assign(cur, b, t, span)?, 0),
        "ld" | "tld" | "suld" | "cold" => (load(cur, b, t, suffix, span)?, proxy_of(op)),
        "st" | "sust" => (store(cur, b, t, suffix, span)?, proxy_of(op)),
        "fence" => fence(suffix, span)?,
        "atom" | "red" | "suatom" | "sured" => (rmw(cur, b, t, op.ends_with("atom"), suffix, span)?, proxy_of(op)),
        "bar" => barrier(cur, b, t, suffix, span)?,
        "add" | "sub" | "mul" | "div" => (local(cur, b, t, op, span)?, 0),
        "goto" => {
            no_suffix(suffix)?;
            return columns::jump_to(cur, None, span);
        }
        "beq" | "bne" | "blt" | "bgt" | "ble" | "bge" => return cond_jump(cur, b, t, op, span),
        _ => return Err(SyntaxError::new(span, format!("unknown PTX instruction `{op}`"))),
    };
    let quorum = b.last_quorum.take();
    let barrier_register = b.last_barrier_register.take();
    let mark = Mark { bits, virtual_address: b.last_alias.take(), quorum, barrier_register };
    b.marks.set(t as u16, stmt.span(), mark);
    Ok(Item::Stmt(stmt))
}

/// The proxy an instruction accesses memory through (PTX ISA 7.5, "Proxies"): `tld`
/// texture, `suld`/`sust`/`suatom`/`sured` surface, `cold` constant, the rest generic.
fn proxy_of(op: &str) -> u32 {
    match op {
        "tld" => bit::TEXTURE,
        "suld" | "sust" | "suatom" | "sured" => bit::SURFACE,
        "cold" => bit::CONSTANT,
        _ => 0,
    }
}

fn no_suffix(suffix: &[(&str, Span)]) -> ParseResult<()> {
    match suffix.first() {
        Some((word, span)) => Err(SyntaxError::new(*span, format!("unexpected `.{word}`"))),
        None => Ok(()),
    }
}

/// `.mo` and an optional `.scope`: `None` for `.weak`.
fn order_scope(suffix: &[(&str, Span)], span: Span) -> ParseResult<(Option<Order>, Option<Scope>, usize)> {
    let Some(&(mo, mo_span)) = suffix.first() else {
        return Err(SyntaxError::new(span, "missing the memory order (`.weak`, `.relaxed`, `.acquire`, `.release`, `.acq_rel`, `.sc`)"));
    };
    let order = match mo {
        "weak" => None,
        "relaxed" => Some(Order::Relaxed),
        "acquire" => Some(Order::Acquire),
        "release" => Some(Order::Release),
        "acq_rel" => Some(Order::AcqRel),
        "sc" => Some(Order::SeqCst),
        _ => return Err(SyntaxError::new(mo_span, format!("unknown memory order `.{mo}` (expected weak, relaxed, acquire, release, acq_rel or sc)"))),
    };
    let scope = suffix.get(1).and_then(|(s, _)| scope_of(s));
    let used = 1 + usize::from(scope.is_some());
    if let (None, Some(_)) = (order, scope) {
        return Err(SyntaxError::new(mo_span, "a `.weak` access takes no scope"));
    }
    Ok((order, scope, used))
}

fn scope_of(word: &str) -> Option<Scope> {
    match word {
        "cta" => Some(Scope::Workgroup),
        "gpu" => Some(Scope::Agent),
        "sys" => Some(Scope::System),
        _ => None,
    }
}

/// The access of `ld`/`st`; `allowed` says which orders the instruction may carry.
fn access(suffix: &[(&str, Span)], span: Span, allowed: &[Order], what: &str) -> ParseResult<Access> {
    let (order, scope, used) = order_scope(suffix, span)?;
    no_suffix(suffix.get(used..).unwrap_or(&[]))?;
    let Some(order) = order else { return Ok(Access::Plain) };
    if !allowed.contains(&order) {
        let (word, at) = suffix.first().copied().unwrap_or(("", span));
        return Err(SyntaxError::new(at, format!("a {what} cannot be `.{word}`")));
    }
    Ok(Access::Atomic { order, scope: scope.unwrap_or(Scope::Agent) })
}

/// `ld.mo[.scope] r, x`, or Dartagnan's `ld.mo r, 5` (a register set to a constant).
fn load(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, suffix: &[(&str, Span)], span: Span) -> ParseResult<Stmt> {
    let access = access(suffix, span, &[Order::Relaxed, Order::Acquire], "load")?;
    columns::load_operands(cur, b, t, access, span)
}

fn store(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, suffix: &[(&str, Span)], span: Span) -> ParseResult<Stmt> {
    let access = access(suffix, span, &[Order::Relaxed, Order::Release], "store")?;
    columns::store_operands(cur, b, t, access, span)
}

/// `fence.sc.cta`, `fence.acq_rel.gpu`, or a proxy fence `fence.proxy.surface` /
/// `fence.proxy.alias`, which orders accesses through different proxies or virtual aliases
/// and nothing else: it is a relaxed fence with no memory spaces, marked.
fn fence(suffix: &[(&str, Span)], span: Span) -> ParseResult<(Stmt, u32)> {
    if let Some(("proxy", s)) = suffix.first() {
        let bits = match suffix.get(1).map(|w| w.0) {
            Some("alias") => bit::ALIAS_FENCE,
            Some("generic") => bit::PROXY_FENCE,
            Some("surface") => bit::PROXY_FENCE | bit::SURFACE,
            Some("texture") => bit::PROXY_FENCE | bit::TEXTURE,
            Some("constant") => bit::PROXY_FENCE | bit::CONSTANT,
            _ => return Err(SyntaxError::new(*s, "expected `fence.proxy.` and generic, surface, texture, constant or alias")),
        };
        no_suffix(suffix.get(2..).unwrap_or(&[]))?;
        let stmt = Stmt::Fence { order: Order::Relaxed, scope: Scope::Workgroup, spaces: Spaces { global: false, local: false }, span };
        return Ok((stmt, bits));
    }
    let (order, scope, used) = order_scope(suffix, span)?;
    no_suffix(suffix.get(used..).unwrap_or(&[]))?;
    let Some(order) = order.filter(|o| *o != Order::Relaxed) else {
        return Err(SyntaxError::new(span, "a fence is `.sc`, `.acq_rel`, `.acquire` or `.release`"));
    };
    let Some(scope) = scope else {
        return Err(SyntaxError::new(span, "a fence needs a scope (`.cta`, `.gpu`, `.sys`)"));
    };
    Ok((Stmt::Fence { order, scope, spaces: Spaces::ALL, span }, 0))
}

/// `atom.mo.scope.op r, x, v`, `atom.mo.scope.cas r, x, e, d`, `red.mo.scope.op x, v`.
fn rmw(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, returns: bool, suffix: &[(&str, Span)], span: Span) -> ParseResult<Stmt> {
    let (order, scope, used) = order_scope(suffix, span)?;
    let Some(order) = order else {
        return Err(SyntaxError::new(span, "an atomic read-modify-write cannot be `.weak`"));
    };
    let access = Access::Atomic { order, scope: scope.unwrap_or(Scope::Agent) };
    let rest = suffix.get(used..).unwrap_or(&[]);
    let Some(&(op_word, op_span)) = rest.first() else {
        return Err(SyntaxError::new(span, "missing the operation (`.add`, `.exch`, `.cas`, …)"));
    };
    no_suffix(rest.get(1..).unwrap_or(&[]))?;
    let old = if returns {
        let reg = register(cur, b, t)?;
        cur.expect(",")?;
        Some(reg)
    } else {
        None
    };
    let target = location(cur, b)?;
    cur.expect(",")?;
    let operand = value(cur, b, t)?;
    if op_word == "cas" && returns {
        cur.expect(",")?;
        let desired = value(cur, b, t)?;
        let failure = Access::Atomic { order: order.cas_failure(), scope: scope.unwrap_or(Scope::Agent) };
        return Ok(Stmt::Cas { old, ok: None, target, expected: operand, desired, success: access, failure, span });
    }
    let op = rmw_op(op_word).ok_or_else(|| SyntaxError::new(op_span, format!("unsupported read-modify-write operation `.{op_word}`")))?;
    Ok(Stmt::Rmw { old, target, op, operand, access, span })
}

fn rmw_op(word: &str) -> Option<RmwOp> {
    match word {
        "exch" => Some(RmwOp::Exchange),
        "add" => Some(RmwOp::Add),
        "sub" => Some(RmwOp::Sub),
        "and" => Some(RmwOp::And),
        "or" => Some(RmwOp::Or),
        "xor" => Some(RmwOp::Xor),
        "min" => Some(RmwOp::Min),
        "max" => Some(RmwOp::Max),
        _ => None,
    }
}

/// `bar.cta.sync N`, `bar.cta.sync N, id[, quorum]`, `bar.cta.arrive …`: threads meet at
/// the barrier resource `id` (`N` when no id is given). The quorum (how many threads the
/// barrier waits for) goes to the marks: the models let a barrier whose quorum is smaller
/// than the threads meeting at it synchronize nothing (some of them pass it without the
/// others).
fn barrier(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, suffix: &[(&str, Span)], span: Span) -> ParseResult<(Stmt, u32)> {
    let words: Vec<&str> = suffix.iter().map(|(w, _)| *w).collect();
    let bits = match words.as_slice() {
        ["cta", "sync"] | ["sync"] => 0,
        ["cta", "arrive"] => bit::ARRIVE,
        _ => return Err(SyntaxError::new(span, "expected `bar.cta.sync N` or `bar.cta.arrive N`")),
    };
    let (id, quorum) = columns::barrier_numbers(cur, b, t)?;
    b.last_quorum = quorum;
    Ok((Stmt::Barrier { id: Some(id), spaces: Spaces::ALL, span }, bits))
}

/// `add r1, r2, 3` (and `sub`, `mul`).
fn local(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, op: &str, span: Span) -> ParseResult<Stmt> {
    let bin = match op {
        "add" => BinOp::Add,
        "sub" => BinOp::Sub,
        "mul" => BinOp::Mul,
        _ => return Err(SyntaxError::new(span, "`div` is not supported (register expressions have no division)")),
    };
    columns::three_operand(cur, b, t, bin, span, register, value)
}

/// `beq r1, 1, LC00`: jump when the comparison holds.
pub fn cond_jump(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, op: &str, span: Span) -> ParseResult<Item> {
    let cmp = match op {
        "beq" => BinOp::Eq,
        "bne" => BinOp::Ne,
        "blt" => BinOp::Lt,
        "bgt" => BinOp::Gt,
        "ble" => BinOp::Le,
        _ => BinOp::Ge,
    };
    let left = value(cur, b, t)?;
    cur.expect(",")?;
    let right = value(cur, b, t)?;
    cur.expect(",")?;
    columns::jump_to(cur, Some(Expr::Bin(cmp, Box::new(left), Box::new(right))), span)
}

/// herd's 2015 GPU_PTX format.
mod herd {
    use super::*;

    pub fn parse(src: &str) -> ParseResult<Litmus> {
        columns::parse_columns(src, Dialect::Ptx, Placing::Trailer(trailer), |cur, b, t| guarded(cur, b, t).map(Some))
    }

    /// `scopeTree (device …)` then an optional memory map `x:global, y:shared`. herd's
    /// grammar requires the tree; without one we use the LISA default (one work-group).
    fn trailer(cur: &mut Cursor<'_>, builder: &mut Builder) -> ParseResult<Vec<[Key; 3]>> {
        let threads = builder.threads.len();
        let keys = if columns::eat_word(cur, "scopeTree") {
            cur.skip_blank();
            let span = cur.span();
            let trees = columns::parse_trees(cur, threads)?;
            columns::tree_keys(&trees, threads, span)?
        } else {
            columns::default_keys(threads)
        };
        let mut probe = cur.clone();
        if probe.ident().is_some() && probe.looking_at(":") {
            columns::memory_map(cur, builder)?;
        }
        Ok(keys)
    }

    /// `@p instr` / `@!p instr` run `instr` only when `p` is non-zero / zero.
    fn guarded(cur: &mut Cursor<'_>, b: &mut Builder, t: usize) -> ParseResult<Item> {
        cur.skip_blank();
        let span = cur.span();
        if !cur.eat("@") {
            return instruction(cur, b, t);
        }
        let negated = cur.eat("!");
        cur.skip_blank();
        let reg_span = cur.span();
        let name = cur.expect_ident("a predicate register")?;
        let reg = b.value_reg(t, name, reg_span)?;
        let cond = if negated { Expr::Not(Box::new(reg)) } else { reg };
        match instruction(cur, b, t)? {
            Item::Jump { cond: None, label, span } => Ok(Item::Jump { cond: Some(cond), label, span }),
            Item::Stmt(stmt) => Ok(Item::Stmt(Stmt::If { cond, then: vec![stmt], otherwise: Vec::new(), span })),
            _ => Err(SyntaxError::new(span, "this instruction cannot be guarded")),
        }
    }

    fn instruction(cur: &mut Cursor<'_>, b: &mut Builder, t: usize) -> ParseResult<Item> {
        let (span, op, words) = columns::mnemonic(cur, "a PTX instruction")?;
        let suffix = words.as_slice();
        let stmt = match op {
            "ld" => load(cur, b, t, suffix, span)?,
            "st" => store(cur, b, t, suffix, span)?,
            "membar" => membar(suffix, span)?,
            "mov" | "cvt" => mov(cur, b, t, span)?,
            "add" | "and" => arith(cur, b, t, op, span)?,
            "setp" => setp(cur, b, t, suffix, span)?,
            "atom" => atom(cur, b, t, suffix, span)?,
            "bra" => return columns::jump_to(cur, None, span),
            _ => return Err(SyntaxError::new(span, format!("unknown GPU_PTX instruction `{op}`"))),
        };
        Ok(Item::Stmt(stmt))
    }

    /// State space, cache operator, `.volatile` and type of `ld`/`st`: the access and width.
    fn modifiers(suffix: &[(&str, Span)], span: Span) -> ParseResult<(Access, u8)> {
        let mut access = Access::Plain;
        let mut width = None;
        for &(word, at) in suffix {
            match word {
                "global" | "shared" | "ca" | "cg" | "cs" | "lu" | "cv" | "wb" | "wt" => {}
                "volatile" => access = Access::Atomic { order: Order::Relaxed, scope: Scope::System },
                _ => match width_of(word) {
                    Some(w) if width.is_none() => width = Some(w),
                    _ => return Err(SyntaxError::new(at, format!("unexpected `.{word}`"))),
                },
            }
        }
        let width = width.ok_or_else(|| SyntaxError::new(span, "missing the operand type (`.s32`, `.b64`, …)"))?;
        Ok((access, width))
    }

    fn width_of(word: &str) -> Option<u8> {
        match word {
            "s32" | "u32" | "b32" => Some(4),
            "s64" | "u64" | "b64" => Some(8),
            _ => None,
        }
    }

    /// `[r2]`: the location register r2 holds (bound in the initial state).
    fn address(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, width: u8) -> ParseResult<Target> {
        cur.expect("[")?;
        cur.skip_blank();
        let span = cur.span();
        let name = cur.expect_ident("an address register")?;
        let loc = b
            .address(t, name)
            .ok_or_else(|| SyntaxError::new(span, format!("register `{name}` holds no address (bind it in the initial state: `{t}:.reg .b64 {name} = x;`)")))?;
        cur.expect("]")?;
        Ok(Target { loc, offset_bytes: 0, width_bytes: width })
    }

    fn operand(cur: &mut Cursor<'_>, b: &mut Builder, t: usize) -> ParseResult<Expr> {
        cur.skip_blank();
        let span = cur.span();
        if let Some(v) = cur.integer() {
            return Ok(Expr::Const(v?));
        }
        let name = cur.expect_ident("a register or an integer")?;
        b.value_reg(t, name, span)
    }

    fn reg(cur: &mut Cursor<'_>, b: &mut Builder, t: usize) -> ParseResult<RegId> {
        cur.skip_blank();
        let span = cur.span();
        let name = cur.expect_ident("a register")?;
        if b.address(t, name).is_some() {
            return Err(SyntaxError::new(span, format!("register `{name}` holds an address; writing it is not supported")));
        }
        b.reg(t, name, span)
    }

    fn load(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, suffix: &[(&str, Span)], span: Span) -> ParseResult<Stmt> {
        let (access, width) = modifiers(suffix, span)?;
        let reg = reg(cur, b, t)?;
        cur.expect(",")?;
        let target = address(cur, b, t, width)?;
        Ok(Stmt::Load { reg, target, access, span })
    }

    fn store(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, suffix: &[(&str, Span)], span: Span) -> ParseResult<Stmt> {
        let (access, width) = modifiers(suffix, span)?;
        let target = address(cur, b, t, width)?;
        cur.expect(",")?;
        let value = operand(cur, b, t)?;
        Ok(Stmt::Store { target, value, access, span })
    }

    fn membar(suffix: &[(&str, Span)], span: Span) -> ParseResult<Stmt> {
        let scope = match suffix {
            [("cta", _)] => Scope::Workgroup,
            [("gl", _)] => Scope::Agent,
            [("sys", _)] => Scope::System,
            _ => return Err(SyntaxError::new(span, "expected `membar.cta`, `membar.gl` or `membar.sys`")),
        };
        Ok(Stmt::Fence { order: Order::SeqCst, scope, spaces: Spaces::ALL, span })
    }

    /// `mov.s32 r1, 1`, `cvt.u64.s32 r1, r2`.
    fn mov(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, span: Span) -> ParseResult<Stmt> {
        let reg = reg(cur, b, t)?;
        cur.expect(",")?;
        Ok(Stmt::Assign { reg, value: operand(cur, b, t)?, span })
    }

    fn arith(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, op: &str, span: Span) -> ParseResult<Stmt> {
        let bin = if op == "add" { BinOp::Add } else { BinOp::And };
        columns::three_operand(cur, b, t, bin, span, reg, operand)
    }

    /// `setp.eq.s32 p, r1, 1`.
    fn setp(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, suffix: &[(&str, Span)], span: Span) -> ParseResult<Stmt> {
        let cmp = match suffix.first() {
            Some(("eq", _)) => BinOp::Eq,
            Some(("ne", _)) => BinOp::Ne,
            Some(("lt", _)) => BinOp::Lt,
            Some(("gt", _)) => BinOp::Gt,
            _ => return Err(SyntaxError::new(span, "expected `setp.eq`, `.ne`, `.lt` or `.gt`")),
        };
        columns::three_operand(cur, b, t, cmp, span, reg, operand)
    }

    /// `atom[.space].add.s32 r1, [r2], 1`, `.exch`, `.cas` (two operands).
    fn atom(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, suffix: &[(&str, Span)], span: Span) -> ParseResult<Stmt> {
        let op = suffix.iter().find(|(w, _)| matches!(*w, "add" | "exch" | "cas")).map(|(w, _)| *w);
        let Some(op) = op else {
            return Err(SyntaxError::new(span, "expected `atom.add`, `atom.exch` or `atom.cas`"));
        };
        let rest: Vec<(&str, Span)> = suffix.iter().copied().filter(|(w, _)| *w != op).collect();
        let (_, width) = modifiers(&rest, span)?;
        let access = Access::Atomic { order: Order::Relaxed, scope: Scope::Agent };
        let old = Some(reg(cur, b, t)?);
        cur.expect(",")?;
        let target = address(cur, b, t, width)?;
        cur.expect(",")?;
        let first = operand(cur, b, t)?;
        if op == "cas" {
            cur.expect(",")?;
            let desired = operand(cur, b, t)?;
            return Ok(Stmt::Cas { old, ok: None, target, expected: first, desired, success: access, failure: access, span });
        }
        let op = if op == "add" { RmwOp::Add } else { RmwOp::Exchange };
        Ok(Stmt::Rmw { old, target, op, operand: first, access, span })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(src: &str) -> Litmus {
        parse(src).unwrap_or_else(|e| panic!("{}: {}", e.span, e.message))
    }

    fn body(src: &str) -> Vec<Stmt> {
        parse_ok(src).threads.swap_remove(0).body
    }

    fn dartagnan(cell: &str) -> Vec<Stmt> {
        body(&format!("PTX t\n{{ x=0; }}\n P0@cta 0,gpu 0 ;\n {cell} ;\nexists (x=0)"))
    }

    #[test]
    fn dartagnan_rmws_barriers_and_locals() {
        let s = dartagnan("atom.acq_rel.gpu.add r1, x, 2");
        assert!(matches!(s[0], Stmt::Rmw { op: RmwOp::Add, old: Some(_), access: Access::Atomic { order: Order::AcqRel, scope: Scope::Agent }, .. }));
        let s = dartagnan("red.release.sys.or x, r2");
        assert!(matches!(
            s[0],
            Stmt::Rmw { op: RmwOp::Or, old: None, operand: Expr::Reg(_), access: Access::Atomic { order: Order::Release, scope: Scope::System }, .. }
        ));
        let s = dartagnan("atom.release.cta.cas r1, x, 0, 1");
        assert!(matches!(&s[0], Stmt::Cas { failure: Access::Atomic { order: Order::Relaxed, .. }, desired: Expr::Const(1), .. }));
        assert!(matches!(dartagnan("bar.cta.sync 3")[0], Stmt::Barrier { ref id, .. } if id.as_deref() == Some("3")));
        assert!(matches!(dartagnan("fence.acq_rel.sys")[0], Stmt::Fence { order: Order::AcqRel, scope: Scope::System, .. }));
        assert!(matches!(dartagnan("add r1, r2, 4")[0], Stmt::Assign { value: Expr::Bin(BinOp::Add, _, _), .. }));
        assert!(matches!(dartagnan("ld.relaxed r1, x")[0], Stmt::Load { access: Access::Atomic { order: Order::Relaxed, scope: Scope::Agent }, .. }));
    }

    #[test]
    fn dartagnan_proxies_aliases_and_barriers() {
        let src = "PTX t\n\"a doc string with a stray \" quote\n{ x=0; y @ generic aliases x; s @ surface aliases x; 0:r2=1; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n sust.weak s, 2 | ld r1, 5 ;\n fence.proxy.surface | tld.weak r0, y ;\n fence.proxy.alias | bar.cta.sync 1, r1 ;\n bar.cta.arrive 0, r2, 2 | ;\nexists (1:r0=2)";
        let l = parse_ok(src);
        let mark = |t: usize, i: usize| l.marks.get(t as u16, l.threads[t].body[i].span());
        assert!(matches!(l.threads[0].body[0], Stmt::Store { target: Target { loc: LocId(0), .. }, .. }));
        assert_eq!(mark(0, 0).bits, bit::SURFACE);
        assert_eq!(mark(0, 0).virtual_address, Some(0), "a proxy alias reaches its target's virtual address");
        assert_eq!(mark(0, 1).bits, bit::PROXY_FENCE | bit::SURFACE);
        assert_eq!(mark(0, 2).bits, bit::ALIAS_FENCE);
        assert_eq!((mark(0, 3).bits, mark(0, 3).quorum, mark(0, 3).barrier_register.is_some()), (bit::ARRIVE, Some(2), true));
        assert!(matches!(l.threads[1].body[0], Stmt::Assign { value: Expr::Const(5), .. }));
        assert_eq!(mark(1, 1).bits, bit::TEXTURE);
        assert!(mark(1, 1).virtual_address.is_some_and(|v| v != 0), "a generic alias is a virtual address of its own");
        assert!(matches!(l.threads[1].body[2], Stmt::Barrier { .. }));
    }

    #[test]
    fn dartagnan_conditional_jump_is_an_if() {
        let src = "PTX t\n{ }\n P0@cta 0,gpu 0 ;\n ld.relaxed.gpu r0, x ;\n bne r0, 1, LC00 ;\n st.weak y, 1 ;\n LC00: ;\nexists (y=1)";
        let s = body(src);
        let Stmt::If { cond: Expr::Bin(BinOp::Eq, _, _), then, .. } = &s[1] else { panic!("{s:?}") };
        assert_eq!(then.len(), 1);
    }

    #[test]
    fn dartagnan_errors() {
        let e = parse("PTX t\n{ }\n P0@cta 0,gpu 0 ;\n ld.release.gpu r0, x ;\nexists (x=0)").unwrap_err();
        assert_eq!((e.span, e.message.as_str()), (Span { line: 4, column: 5 }, "a load cannot be `.release`"));
        let e = parse("PTX t\n{ }\n P0@cta 0,wg 0 ;\n ld.weak r0, x ;\nexists (x=0)").unwrap_err();
        assert!(e.message.contains("unknown scope `wg`"), "{}", e.message);
        let e = parse("PTX t\n{ }\n P0 ;\n fence.sc ;\nexists (x=0)").unwrap_err();
        assert!(e.message.contains("needs a scope"), "{}", e.message);
        let e = parse("PTX t\n{ }\n P0 ;\n st.weak.cta x, 1 ;\nexists (x=0)").unwrap_err();
        assert!(e.message.contains("takes no scope"), "{}", e.message);
    }

    #[test]
    fn dartagnan_threads_without_annotation_share_cta_and_gpu() {
        let l = parse_ok("PTX t\n{ };\n P0 | P1 ;\n st.weak x, 1 | ld.weak r0, x ;\nexists (P1:r0 == 1)");
        let (a, b) = (l.threads[0].placement, l.threads[1].placement);
        assert!(a.shares(&b, Scope::Workgroup) && !a.shares(&b, Scope::Wavefront));
    }

    #[test]
    fn herd_guards_volatile_and_atomics() {
        let src = "GPU_PTX t\n{ 0:.reg .b64 a = x; 0:.reg .s32 p; }\n P0 ;\n setp.eq.s32 p,r1,0 ;\n @p st.volatile.global.s32 [a],1 ;\n @!p bra L ;\n atom.global.add.s64 r2,[a],1 ;\n L: membar.sys ;\nscopeTree (device (kernel (cta (warp P0))))\nexists (x=1)";
        let s = body(src);
        assert!(matches!(s[0], Stmt::Assign { value: Expr::Bin(BinOp::Eq, _, _), .. }));
        let Stmt::If { then, .. } = &s[1] else { panic!("{s:?}") };
        assert!(matches!(then[0], Stmt::Store { access: Access::Atomic { order: Order::Relaxed, scope: Scope::System }, .. }));
        let Stmt::If { cond: Expr::Reg(_), then, .. } = &s[2] else { panic!("{s:?}") };
        assert!(matches!(then[0], Stmt::Rmw { target: Target { width_bytes: 8, .. }, op: RmwOp::Add, .. }));
        assert!(matches!(s[3], Stmt::Fence { order: Order::SeqCst, scope: Scope::System, .. }));
    }
}
