//! Dartagnan's Vulkan litmus format (grammar `LitmusVulkan.g4`): threads
//! `P0@sg 0, wg 0, qf 0`; `st.atom.rel.wg.sc0.semsc0 x, 1`, `ld.atom.acq.dv.sc0.semsc0 r0, y`,
//! plain `st.sc0 x, 1` / `ld.sc0 r0, x`, `rmw.atom…[.add] r0, x, 1`, `membar.acq_rel.wg.semsc0`,
//! `cbar.acq_rel.wg.semsc0 0`, locals `add r1, r2, 1`, `beq r0, 1, LC00`, `goto LC00`.
//!
//! Mapping, after the Vulkan memory model (Khronos `Vulkan-MemoryModel`, `alloy/spirv.als`)
//! as Dartagnan's `cat/vulkan.cat` reads it: `.atom` makes an access atomic (relaxed unless
//! `.acq`/`.rel`/`.acq_rel`); scopes `sg` → wavefront, `wg` → work-group, `qf` (queue
//! family) and `dv` (device) → agent. Storage classes `sc0`/`sc1` are two buffers of one
//! device memory, so both are global here. The availability/visibility modifiers (`.av`,
//! `.vis`, `.semav`, `.semvis`, `.nonpriv`, `avdevice`, `visdevice`) and storage-class
//! semantics (`.semsc0`, `.semsc1`) are accepted and not recorded: the program has no
//! notion of them. A `cbar` is a work-group barrier; it orders memory only when it names
//! semantics (`cbar.acq_rel.wg.semsc0 0`), otherwise it only synchronizes execution.

use super::columns::{self, location, register, value, Builder, Item, Key, Placing};
use super::error::{ParseResult, SyntaxError};
use super::marks::{bit, Mark};
use super::program::*;
use super::ptx::cond_jump;
use super::text::Cursor;
use hipscope_mm::{Access, Order, RmwOp, Scope, Spaces};

pub fn parse(src: &str) -> ParseResult<Litmus> {
    columns::parse_columns(src, Dialect::Vulkan, Placing::Heads(head), instruction)
}

/// `@sg 0, wg 0, qf 0`: subgroup ids are within a work-group, work-group ids within a queue family.
fn head(_: usize, rest: &mut Cursor<'_>) -> ParseResult<[Key; 3]> {
    let ids = columns::at_ids(rest, &["sg", "wg", "qf"])?;
    let id = |i: usize| ids.get(i).copied().unwrap_or(0);
    Ok([Key::Ids(vec![id(2)]), Key::Ids(vec![id(2), id(1)]), Key::Ids(vec![id(2), id(1), id(0)])])
}

fn instruction(cur: &mut Cursor<'_>, b: &mut Builder, t: usize) -> ParseResult<Option<Item>> {
    let (span, op, suffix) = columns::mnemonic(cur, "a Vulkan instruction")?;
    let m = modifiers(&suffix, op)?;
    b.last_alias = None;
    let stmt = match op {
        "ld" => load(cur, b, t, &m, span)?,
        "st" => store(cur, b, t, &m, span)?,
        "rmw" => rmw(cur, b, t, &m, span)?,
        "membar" => membar(&m, span)?,
        "cbar" => cbar(cur, b, t, &m, span)?,
        "add" | "sub" | "mul" | "and" | "or" | "xor" => local(cur, b, t, op, span)?,
        "goto" => return columns::jump_to(cur, None, span).map(Some),
        "beq" | "bne" | "blt" | "bgt" | "ble" | "bge" => return Ok(Some(cond_jump(cur, b, t, op, span)?)),
        "avdevice" | "visdevice" => device_operation(op, span),
        "div" => return Err(SyntaxError::new(span, "`div` is not supported (register expressions have no division)")),
        _ => return Err(SyntaxError::new(span, format!("unknown Vulkan instruction `{op}`"))),
    };
    let bits = marks_of(op, &m);
    let quorum = b.last_quorum.take();
    let barrier_register = b.last_barrier_register.take();
    b.marks.set(t as u16, stmt.span(), Mark { bits, virtual_address: b.last_alias.take(), quorum, barrier_register });
    Ok(Some(Item::Stmt(stmt)))
}

/// `avdevice` / `visdevice`: an availability or visibility operation to the device domain,
/// ordering nothing by itself (a relaxed fence of no memory space, marked).
fn device_operation(op: &str, span: Span) -> Stmt {
    let _ = op;
    Stmt::Fence { order: Order::Relaxed, scope: Scope::Agent, spaces: Spaces { global: false, local: false }, span }
}

/// The marks Dartagnan's Vulkan front end gives an instruction: every atomic, `.av` and
/// `.vis` access is non-private and made available (stores) or visible (loads) at its
/// scope; release and acquire operations carry their storage-class semantics.
fn marks_of(op: &str, m: &Modifiers) -> u32 {
    let mut bits = m.bits | m.scope_bit;
    match op {
        "avdevice" => return bit::AVDEVICE,
        "visdevice" => return bit::VISDEVICE,
        "cbar" => {
            bits |= bit::CBAR;
            match m.order.map(|o| o.0) {
                Some(Order::Acquire) => bits |= bit::CBAR_ACQ,
                Some(Order::Release) => bits |= bit::CBAR_REL,
                Some(_) => bits |= bit::CBAR_ACQ | bit::CBAR_REL,
                None => bits &= !(bit::SEMAV | bit::SEMVIS | SEMSC_ALL),
            }
        }
        "st" if m.atomic => bits |= bit::NONPRIV | bit::AV,
        "ld" if m.atomic => bits |= bit::NONPRIV | bit::VIS,
        "rmw" => bits |= bit::NONPRIV | bit::AV | bit::VIS,
        _ => {}
    }
    if m.avvis {
        bits |= bit::NONPRIV | if op == "st" { bit::AV } else { bit::VIS };
    }
    bits
}

const SEMSC_ALL: u32 = bit::SEMSC0 * 0b1111;

/// What the dotted suffix of an instruction says.
#[derive(Default)]
struct Modifiers {
    atomic: bool,
    order: Option<(Order, Span)>,
    scope: Option<Scope>,
    /// `.semsc0`/`.semsc1`: the storage classes a barrier's semantics cover.
    semantics: bool,
    rmw_op: Option<RmwOp>,
    /// Marks read from the suffix: `.nonpriv`, `.semav`, `.semvis`, storage classes and
    /// their semantics.
    bits: u32,
    /// The scope as written (`sg`, `wg`, `qf`, `dv`), for the marks.
    scope_bit: u32,
    /// A plain access with `.av`/`.vis` and a scope.
    avvis: bool,
}

fn modifiers(suffix: &[(&str, Span)], op: &str) -> ParseResult<Modifiers> {
    let mut m = Modifiers::default();
    // The scope after `.av`/`.vis` on a plain access is its availability scope, not recorded.
    let mut avvis = false;
    for &(word, at) in suffix {
        match word {
            "atom" => m.atomic = true,
            "acq" | "rel" | "acq_rel" if m.order.is_some() => return Err(SyntaxError::new(at, "this instruction already has an order")),
            "acq" => m.order = Some((Order::Acquire, at)),
            "rel" => m.order = Some((Order::Release, at)),
            "acq_rel" => m.order = Some((Order::AcqRel, at)),
            "av" | "vis" => {
                avvis = true;
                m.avvis = true;
            }
            "nonpriv" => m.bits |= bit::NONPRIV,
            "priv" => {}
            "semav" => m.bits |= bit::SEMAV,
            "semvis" => m.bits |= bit::SEMVIS,
            "semavvis" => m.bits |= bit::SEMAV | bit::SEMVIS,
            // Storage classes of one device memory: all global (see module comment).
            "sc0" | "sc1" | "sc2" | "sc3" => m.bits |= bit::SC0 << class_number(word),
            "semsc0" | "semsc1" | "semsc2" | "semsc3" => {
                m.semantics = true;
                m.bits |= bit::SEMSC0 << class_number(word);
            }
            "semsc01" => {
                m.semantics = true;
                m.bits |= bit::SEMSC0 | bit::SEMSC0 << 1;
            }
            "sg" | "wg" | "qf" | "dv" if avvis && !m.atomic => {
                avvis = false;
                m.scope_bit = scope_bit(word);
            }
            "sg" | "wg" | "qf" | "dv" if m.scope.is_some() => return Err(SyntaxError::new(at, "this instruction already has a scope")),
            "sg" | "wg" | "qf" | "dv" => {
                m.scope_bit = scope_bit(word);
                m.scope = Some(match word {
                    "sg" => Scope::Wavefront,
                    "wg" => Scope::Workgroup,
                    _ => Scope::Agent,
                });
            }
            _ => match vulkan_rmw_op(word) {
                Some(rmw) if op == "rmw" && m.rmw_op.is_none() => m.rmw_op = Some(rmw),
                _ => return Err(SyntaxError::new(at, format!("unexpected `.{word}` on `{op}`"))),
            },
        }
    }
    Ok(m)
}

/// The digit of `sc2` / `semsc2`.
fn class_number(word: &str) -> u32 {
    word.chars().last().and_then(|c| c.to_digit(10)).unwrap_or(0)
}

fn scope_bit(word: &str) -> u32 {
    match word {
        "sg" => bit::SG,
        "wg" => bit::WG,
        "qf" => bit::QF,
        _ => bit::DV,
    }
}

fn vulkan_rmw_op(word: &str) -> Option<RmwOp> {
    match word {
        "add" => Some(RmwOp::Add),
        "sub" => Some(RmwOp::Sub),
        "and" => Some(RmwOp::And),
        "or" => Some(RmwOp::Or),
        "xor" => Some(RmwOp::Xor),
        _ => None,
    }
}

/// The access of `ld`/`st`/`rmw`; `forbidden` is the order this kind cannot carry.
fn access(m: &Modifiers, span: Span, forbidden: Option<Order>, what: &str) -> ParseResult<Access> {
    if !m.atomic {
        if let Some((_, at)) = m.order {
            return Err(SyntaxError::new(at, format!("an ordered {what} must be atomic (`.atom`)")));
        }
        return Ok(Access::Plain);
    }
    let order = m.order.map_or(Order::Relaxed, |(o, _)| o);
    if let Some((o, at)) = m.order.filter(|(o, _)| Some(*o) == forbidden || (forbidden.is_some() && *o == Order::AcqRel)) {
        return Err(SyntaxError::new(at, format!("a {what} cannot be `.{}`", order_word(o))));
    }
    let Some(scope) = m.scope else {
        return Err(SyntaxError::new(span, format!("an atomic {what} needs a scope (`.sg`, `.wg`, `.qf`, `.dv`)")));
    };
    Ok(Access::Atomic { order, scope })
}

fn order_word(order: Order) -> &'static str {
    match order {
        Order::Acquire => "acq",
        Order::Release => "rel",
        _ => "acq_rel",
    }
}

fn load(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, m: &Modifiers, span: Span) -> ParseResult<Stmt> {
    let access = access(m, span, Some(Order::Release), "load")?;
    columns::load_operands(cur, b, t, access, span)
}

fn store(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, m: &Modifiers, span: Span) -> ParseResult<Stmt> {
    let access = access(m, span, Some(Order::Acquire), "store")?;
    columns::store_operands(cur, b, t, access, span)
}

/// `rmw.atom….add r0, x, 1`; without an operation it is an exchange.
fn rmw(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, m: &Modifiers, span: Span) -> ParseResult<Stmt> {
    if !m.atomic {
        return Err(SyntaxError::new(span, "a read-modify-write must be atomic (`rmw.atom…`)"));
    }
    let access = access(m, span, None, "read-modify-write")?;
    let old = Some(register(cur, b, t)?);
    cur.expect(",")?;
    let target = location(cur, b)?;
    cur.expect(",")?;
    let operand = value(cur, b, t)?;
    Ok(Stmt::Rmw { old, target, op: m.rmw_op.unwrap_or(RmwOp::Exchange), operand, access, span })
}

fn membar(m: &Modifiers, span: Span) -> ParseResult<Stmt> {
    let Some((order, _)) = m.order else {
        return Err(SyntaxError::new(span, "a memory barrier needs an order (`.acq`, `.rel`, `.acq_rel`)"));
    };
    let Some(scope) = m.scope else {
        return Err(SyntaxError::new(span, "a memory barrier needs a scope (`.sg`, `.wg`, `.qf`, `.dv`)"));
    };
    let spaces = if m.semantics { Spaces::GLOBAL } else { Spaces { global: false, local: false } };
    Ok(Stmt::Fence { order, scope, spaces, span })
}

/// `cbar[.mo].scope[.semsc…] N[, id[, quorum]]`: control barrier N (or resource `id`).
/// Threads of one work-group meet at it; its scope says whose memory operations it
/// synchronizes with (the Vulkan model reads it from the marks).
fn cbar(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, m: &Modifiers, span: Span) -> ParseResult<Stmt> {
    if m.scope.is_none() {
        return Err(SyntaxError::new(span, "a control barrier needs a scope (`.sg`, `.wg`, `.qf`, `.dv`)"));
    }
    let (id, quorum) = columns::barrier_numbers(cur, b, t)?;
    b.last_quorum = quorum;
    let spaces = if m.order.is_some() && m.semantics { Spaces::GLOBAL } else { Spaces { global: false, local: false } };
    Ok(Stmt::Barrier { id: Some(id), spaces, span })
}

/// `add r1, r2, 3`: `r1 = r2 + 3`.
fn local(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, op: &str, span: Span) -> ParseResult<Stmt> {
    let bin = match op {
        "add" => BinOp::Add,
        "sub" => BinOp::Sub,
        "mul" => BinOp::Mul,
        "and" => BinOp::And,
        "or" => BinOp::Or,
        _ => BinOp::Xor,
    };
    columns::three_operand(cur, b, t, bin, span, register, value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stmts(cell: &str) -> ParseResult<Vec<Stmt>> {
        let src = format!("Vulkan t\n{{ x=0; }}\nP0@sg 0, wg 0, qf 0 ;\n{cell} ;\nexists (x=0)");
        parse(&src).map(|mut l| l.threads.swap_remove(0).body)
    }

    fn one(cell: &str) -> Stmt {
        match stmts(cell) {
            Ok(mut s) if s.len() == 1 => s.swap_remove(0),
            other => panic!("{cell}: {other:?}"),
        }
    }

    #[test]
    fn accesses_barriers_and_rmws() {
        assert!(matches!(one("st.av.dv.sc1 x, 1"), Stmt::Store { access: Access::Plain, .. }));
        assert!(matches!(one("ld.nonpriv.sc0 r0, x"), Stmt::Load { access: Access::Plain, .. }));
        assert!(matches!(one("ld.atom.sg.sc0 r0, x"), Stmt::Load { access: Access::Atomic { order: Order::Relaxed, scope: Scope::Wavefront }, .. }));
        assert!(matches!(
            one("rmw.atom.acq_rel.qf.sc0.semsc0.semav.semvis.add r0, x, 1"),
            Stmt::Rmw { op: RmwOp::Add, access: Access::Atomic { order: Order::AcqRel, scope: Scope::Agent }, .. }
        ));
        assert!(matches!(one("rmw.atom.dv.sc0 r0, x, 5"), Stmt::Rmw { op: RmwOp::Exchange, .. }));
        assert!(matches!(one("membar.rel.wg.semsc0.semav"), Stmt::Fence { order: Order::Release, scope: Scope::Workgroup, spaces: Spaces::GLOBAL, .. }));
        assert!(matches!(one("cbar.acq_rel.wg.semsc0 0"), Stmt::Barrier { spaces: Spaces::GLOBAL, .. }));
        assert!(matches!(one("cbar.wg 1"), Stmt::Barrier { spaces: Spaces { global: false, local: false }, .. }));
        assert!(matches!(one("avdevice"), Stmt::Fence { order: Order::Relaxed, .. }));
    }

    #[test]
    fn marks_aliases_ssw_and_barriers_at_any_scope() {
        let src = "Vulkan t\n{ x=0; y aliases x; }\n{ ssw 0 1; }\nP0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0 ;\nst.av.dv.sc1 y, 1 | cbar.acq_rel.dv.semsc0.semvis 1, 1, 2 ;\nvisdevice | ld.atom.acq.qf.sc0.semsc0 r0, x ;\nexists (1:r0=1)";
        let l = parse(src).unwrap();
        assert_eq!(l.marks.ssw, vec![(0, 1)]);
        let mark = |t: usize, i: usize| l.marks.get(t as u16, l.threads[t].body[i].span());
        let store = mark(0, 0);
        assert_eq!(store.bits, bit::NONPRIV | bit::AV | bit::DV | bit::SC0 << 1);
        assert!(store.virtual_address.is_some(), "the alias `y` is another virtual address of x");
        assert!(matches!(l.threads[0].body[0], Stmt::Store { target: Target { loc: LocId(0), .. }, .. }));
        assert_eq!(mark(0, 1).bits, bit::VISDEVICE);
        let cbar = mark(1, 0);
        assert_eq!(cbar.quorum, Some(2));
        assert_eq!(
            cbar.bits & (bit::CBAR | bit::CBAR_ACQ | bit::CBAR_REL | bit::SEMVIS | bit::DV),
            bit::CBAR | bit::CBAR_ACQ | bit::CBAR_REL | bit::SEMVIS | bit::DV
        );
        assert_eq!(mark(1, 1).bits, bit::NONPRIV | bit::VIS | bit::QF | bit::SC0 | bit::SEMSC0);
    }

    #[test]
    fn errors_name_the_modifier() {
        let e = stmts("st.atom.acq.wg.sc0 x, 1").unwrap_err();
        assert_eq!((e.span, e.message.as_str()), (Span { line: 4, column: 9 }, "a store cannot be `.acq`"));
        let e = stmts("st.rel.wg.sc0 x, 1").unwrap_err();
        assert!(e.message.contains("must be atomic"), "{}", e.message);
        let e = stmts("ld.atom.wg.sc0.bogus r0, x").unwrap_err();
        assert_eq!((e.span.column, e.message.as_str()), (16, "unexpected `.bogus` on `ld`"));
        let e = parse("Vulkan t\n{ x=0; }\n{ ssw P0 P1; }\nP0@sg 0, wg 0, qf 0 ;\n;\nexists (x=0)").unwrap_err();
        assert_eq!((e.span.line, e.message.as_str()), (3, "expected a thread number, found `P0`"));
        let e = parse("Vulkan t\n{ x=0; }\n{ ssw 0 3; }\nP0@sg 0, wg 0, qf 0 ;\n;\nexists (x=0)").unwrap_err();
        assert!(e.message.contains("names a thread the test does not have"), "{}", e.message);
        let e = stmts("cbar.acq_rel.semsc0 0").unwrap_err();
        assert!(e.message.contains("needs a scope"), "{}", e.message);
    }

    #[test]
    fn placement_ids_are_hierarchical() {
        let src = "Vulkan t\n{ }\nP0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 | P2@sg 1, wg 0, qf 0 | P3@sg 0, wg 0, qf 1 ;\nld.sc0 r0, x | ld.sc0 r0, x | ld.sc0 r0, x | ld.sc0 r0, x ;\nexists (x=0)";
        let src = src.replace("exists (x=0)", "exists (0:r0=0)");
        let l = parse(&src).unwrap();
        let p: Vec<Placement> = l.threads.iter().map(|t| t.placement).collect();
        assert!(p[0].shares(&p[1], Scope::Wavefront));
        assert!(!p[0].shares(&p[2], Scope::Wavefront) && p[0].shares(&p[2], Scope::Workgroup));
        assert!(!p[0].shares(&p[3], Scope::Agent));
    }
}
