//! Dartagnan's OpenCL C litmus dialect.
//!
//! ```text
//! OPENCL MP
//! { [x]=0; [y]=0; }
//! P0@wg 0, dev 0 (global int* x, global atomic_int* y) {
//!   *x = 1;
//!   atomic_store_explicit(y, 1, memory_order_release, memory_scope_work_group);
//! }
//! P1@wg 1, dev 0 (global int* x, global atomic_int* y) {
//!   int r0 = atomic_load_explicit(y, memory_order_acquire, memory_scope_work_group);
//!   int r1 = *x;
//! }
//! exists (1:r0=1 /\ 1:r1=0)
//! ```
//!
//! Thread bodies are C: local `int` variables become registers, `*p` and the OpenCL atomic
//! builtins become memory accesses. C lets one expression read memory several times
//! (`if (*y == 1)`, `*val = *d`), while a [`Stmt`](super::Stmt) accesses memory at most once, so each
//! read inside an expression is hoisted into a statement of its own that fills a fresh
//! register; those registers are named `_tN@line:col`, which no C variable can be called,
//! so conditions never collide with them.
//!
//! What the typed program cannot say, and how it is approximated or refused:
//! - loops (`while`, `for`, `do`) are refused; a thread is straight-line code with `if`;
//! - an address computed at run time (`y + r0`) becomes `if (r0 == 0) … else if (r0 == 1) …`
//!   over the array's elements; an index outside the array (undefined in C) accesses nothing;
//! - array element `i > 0` is the location `y[i]`, which the shared condition syntax cannot
//!   name (element 0 is `y`);
//! - `atomic_compare_exchange_weak` is read as the strong form (it never fails spuriously),
//!   and the failure order is kept as written even where C forbids it (Dat3M's CT_wsq2
//!   uses `memory_order_release`);
//! - a parameter without `global`/`local` is global unless another thread says `local`.

mod body;
mod builtins;
mod expr;
mod header;
mod tables;

use super::condition::{self, Names};
use super::error::{ParseResult, SyntaxError};
use super::program::{Dialect, Litmus, LocId, RegId, Span, Term, Thread};
use super::text::Cursor;
use hipscope_mm::{Value, ValueType};
use tables::Locations;

/// Parses a whole OpenCL litmus file.
pub fn parse(source: &str) -> ParseResult<Litmus> {
    let mut cur = Cursor::new(source);
    let name = header::title(&mut cur)?;
    let mut locs = Locations::default();
    let reg_inits = header::init_block(&mut cur, &mut locs)?;
    locs.end_init_block();
    let mut placements = header::Workgroups::default();
    let mut threads = Vec::new();
    while starts_thread(&cur) {
        threads.push(header::thread(&mut cur, &mut locs, &mut placements, threads.len())?);
    }
    if threads.is_empty() {
        return Err(here(&cur, format!("expected a thread such as `P0@wg 0, dev 0 (global int* x) {{ … }}`, found {}", cur.describe_next())));
    }
    for init in reg_inits {
        apply_reg_init(&mut threads, init)?;
    }
    if condition_too_deep(cur.rest()) {
        return Err(here(&cur, format!("the final part nests more than {MAX_CONDITION_DEPTH} parentheses, negations and implications")));
    }
    let fin = {
        let mut names = FinalNames { threads: &mut threads, locs: &locs };
        condition::parse_final(&mut cur, &mut names)?
    };
    Ok(Litmus {
        name,
        dialect: Dialect::OpenCl,
        locations: locs.into_locations()?,
        threads,
        condition: fin.condition,
        filter: fin.filter,
        observed: fin.observed,
        marks: Default::default(),
    })
}

/// The shared condition parser recurses once per `(`, negation and `=>`; nesting beyond
/// this is refused before it runs, so hostile input cannot exhaust the stack.
const MAX_CONDITION_DEPTH: usize = 500;

fn condition_too_deep(rest: &str) -> bool {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for b in rest.bytes() {
        match b {
            b'(' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    let negations = rest.matches('~').count() + rest.matches('!').count() + rest.matches("not").count();
    deepest + negations + rest.matches("=>").count() > MAX_CONDITION_DEPTH
}

/// Threads start with a name; the final part starts with a keyword or `~exists`.
fn starts_thread(cur: &Cursor<'_>) -> bool {
    let mut probe = cur.clone();
    match probe.ident() {
        Some(word) => !matches!(word, "exists" | "forall" | "filter" | "locations"),
        None => false,
    }
}

/// `0:r0 = 1` from the init block: the thread must exist; the register may be new.
fn apply_reg_init(threads: &mut [Thread], init: header::RegInit) -> ParseResult<()> {
    let Some(index) = thread_index(threads, &init.thread) else {
        return Err(SyntaxError::new(init.span, format!("the init block names thread `{}`, which the test does not have", init.thread)));
    };
    let thread = &mut threads[index];
    let Some(reg) = register_of(thread, &init.reg) else {
        return Err(SyntaxError::new(init.span, "too many registers in one thread"));
    };
    thread.reg_init.push((reg, init.value));
    Ok(())
}

/// A thread as a condition writes it: `1` or `P1`.
fn thread_index(threads: &[Thread], written: &str) -> Option<usize> {
    if let Some(i) = threads.iter().position(|t| t.name == written) {
        return Some(i);
    }
    let index: usize = written.parse().ok()?;
    (index < threads.len()).then_some(index)
}

/// The register called `name`, created when the thread never mentions it (its value then
/// stays its initial one).
fn register_of(thread: &mut Thread, name: &str) -> Option<RegId> {
    if let Some(i) = thread.regs.iter().position(|r| r == name) {
        return Some(RegId(i as u16));
    }
    let id = u16::try_from(thread.regs.len()).ok().filter(|id| *id < u16::MAX)?;
    thread.regs.push(name.to_string());
    Some(RegId(id))
}

/// Value of a pointer register naming location 0, and the distance between locations.
const POINTER_BASE: Value = 0x1000;
const POINTER_STRIDE: Value = 0x100;

/// The condition's view of the parsed test: `0:x` is the local variable `x` of P0 even
/// when a location is also called `x`; a bare `x` is the location.
struct FinalNames<'a> {
    threads: &'a mut [Thread],
    locs: &'a Locations,
}

impl Names for FinalNames<'_> {
    /// A local variable of the thread, or one of its pointer parameters. Any other name is
    /// a typo, which would otherwise read as 0.
    fn register(&mut self, thread: &str, reg: &str) -> Result<(u16, RegId), String> {
        let Some(index) = thread_index(self.threads, thread) else {
            return Err(format!("the condition names thread `{thread}`, which the test does not have"));
        };
        let known = self.threads[index].regs.iter().any(|r| r == reg);
        let pointer = self.locs.by_name(reg);
        if !known && pointer.is_none() {
            return Err(format!("P{index} has no local variable `{reg}` (nor a location of that name)"));
        }
        let id = register_of(&mut self.threads[index], reg).ok_or_else(|| "too many registers in one thread".to_string())?;
        // `0:x` naming a pointer parameter rather than a local variable: in Dartagnan the
        // parameter is a register holding the location's address, never 0. Give it an
        // address-like value so conditions on it read as they do there.
        if let (false, Some(loc)) = (known, pointer) {
            self.threads[index].reg_init.push((id, POINTER_BASE + Value::from(loc.0) * POINTER_STRIDE));
        }
        Ok((index as u16, id))
    }

    fn location(&mut self, name: &str) -> Option<LocId> {
        self.locs.by_name(name)
    }

    fn value_type(&mut self, term: &Term) -> ValueType {
        match term {
            Term::Reg { thread, reg } => self.threads.get(*thread as usize).map_or(ValueType::INT, |t| t.reg_type(*reg)),
            Term::Loc { loc, .. } => self.locs.type_of(*loc),
            Term::Const(v) => ValueType::of_literal(*v),
        }
    }
}

/// An error at the next token (after blanks and comments), where the reader looks.
fn here(cur: &Cursor<'_>, message: impl Into<String>) -> SyntaxError {
    let mut probe = cur.clone();
    probe.skip_blank();
    probe.error(message)
}

/// Spans for messages that name an earlier place (`declared at 12:3`).
fn at(span: Span) -> String {
    format!("{}:{}", span.line, span.column)
}

#[cfg(test)]
mod tests;
