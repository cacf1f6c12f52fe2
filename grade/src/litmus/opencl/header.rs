//! Everything around the thread bodies: the `OPENCL name` line, the init block, and each
//! thread's `P0@wg 0, dev 0 (global int* x, …)` header.

use super::super::error::{ParseResult, SyntaxError};
use super::super::limits::MAX_THREADS;
use super::super::program::{Placement, Span, Thread};
use super::super::text::Cursor;
use super::body::{self, ThreadCx};
use super::here;
use super::tables::{Locations, MAX_ARRAY};
use hipscope_mm::{Space, Value, ValueType};

/// `OPENCL <name>`: the name is the rest of the line (names like `3.2W_..._0||1|2` are not
/// identifiers).
pub fn title(cur: &mut Cursor<'_>) -> ParseResult<String> {
    cur.skip_blank();
    let span = cur.span();
    if cur.ident() != Some("OPENCL") {
        return Err(SyntaxError::new(span, "an OpenCL litmus test starts with `OPENCL <name>`"));
    }
    while cur.peek().is_some_and(|c| c == ' ' || c == '\t') {
        cur.bump();
    }
    let (line, start) = (cur.rest(), cur.offset());
    while cur.peek().is_some_and(|c| c != '\n') {
        cur.bump();
    }
    let name = line[..cur.offset() - start].trim();
    if name.is_empty() {
        return Err(cur.error("expected the test's name after `OPENCL` on the same line"));
    }
    Ok(name.to_string())
}

/// `0:r0 = 1` in the init block, applied once the threads are known.
pub struct RegInit {
    pub thread: String,
    pub reg: String,
    pub value: Value,
    pub span: Span,
}

/// `{ [x] = 0; y = 1; atomic_int z[2] = {0, 0}; 0:r0 = 1; }`.
pub fn init_block(cur: &mut Cursor<'_>, locs: &mut Locations) -> ParseResult<Vec<RegInit>> {
    cur.expect("{").map_err(|e| SyntaxError::new(e.span, format!("{} (the init block `{{ [x]=0; … }}` follows the name line)", e.message)))?;
    let mut regs = Vec::new();
    loop {
        if cur.eat("}") {
            return Ok(regs);
        }
        if cur.eat(";") {
            continue;
        }
        if cur.at_end() {
            return Err(here(cur, "the init block is not closed with `}`"));
        }
        if let Some(init) = init_entry(cur, locs)? {
            regs.push(init);
        }
        if !cur.looking_at("}") {
            cur.expect(";")?;
        }
    }
}

fn init_entry(cur: &mut Cursor<'_>, locs: &mut Locations) -> ParseResult<Option<RegInit>> {
    cur.skip_blank();
    let span = cur.span();
    if cur.eat("[") {
        let name = cur.expect_ident("a location name")?;
        cur.expect("]")?;
        cur.expect("=")?;
        let value = cur.expect_integer("an initial value")?;
        locs.declare(name, &[value], false, span)?;
        return Ok(None);
    }
    if let Some(Ok(thread)) = cur.clone().integer() {
        let _ = cur.integer();
        return register_init(cur, thread.to_string(), span).map(Some);
    }
    let mut words = Vec::new();
    loop {
        cur.skip_blank();
        let word_span = cur.span();
        let Some(word) = cur.ident() else { break };
        if words.is_empty() && cur.looking_at(":") {
            return register_init(cur, word.to_string(), span).map(Some);
        }
        words.push((word, word_span));
    }
    let Some((name, name_span)) = words.pop() else {
        return Err(here(cur, format!("expected `[x] = 0`, `int x = 0` or `0:r0 = 0` in the init block, found {}", cur.describe_next())));
    };
    let mut ty = TypeWords::default();
    for (word, span) in &words {
        match *word {
            "volatile" | "global" | "__global" => {}
            "local" | "__local" => {
                return Err(SyntaxError::new(*span, "the init block declares shared locations; say `local` in the thread parameters instead"))
            }
            _ if ty.add(word) => {}
            _ => {
                return Err(SyntaxError::new(
                    *span,
                    format!("unknown type `{word}` in the init block (expected `int`, `uint`, `long`, `ulong` or `atomic_int`, …)"),
                ))
            }
        }
    }
    let inits = init_values(cur, name)?;
    let group = locs.declare(name, &inits, ty.atomic, name_span)?;
    if let Some(t) = ty.value_type() {
        locs.set_type(group, t, name_span)?;
    }
    Ok(None)
}

/// The type words of a declaration (`atomic_uint`, `unsigned long`, `int`), combined.
#[derive(Default)]
pub struct TypeWords {
    pub atomic: bool,
    /// A word naming a type was seen.
    pub typed: bool,
    unsigned: bool,
    long: bool,
}

impl TypeWords {
    /// Takes `word` if it is a type word (OpenCL C 2.0 §6.1.1 scalar types and §6.13.11.6
    /// atomic types; `long` is 64 bits there); `false` otherwise.
    pub fn add(&mut self, word: &str) -> bool {
        let (atomic, base) = match word.strip_prefix("atomic_") {
            Some(b) => (true, b),
            None => (false, word),
        };
        let (unsigned, long) = match base {
            "int" => (false, false),
            "uint" => (true, false),
            "long" => (false, true),
            "ulong" => (true, true),
            "unsigned" if !atomic => (true, false),
            _ => return false,
        };
        self.atomic |= atomic;
        self.typed = true;
        self.unsigned |= unsigned;
        self.long |= long;
        true
    }

    /// The integer type, if a type word was seen.
    pub fn value_type(&self) -> Option<ValueType> {
        self.typed.then_some(ValueType { bits: if self.long { 64 } else { 32 }, signed: !self.unsigned })
    }
}

/// `= 0` or `[2] = {0, 0}` after a declared name.
fn init_values(cur: &mut Cursor<'_>, name: &str) -> ParseResult<Vec<Value>> {
    if !cur.eat("[") {
        cur.expect("=")?;
        return Ok(vec![cur.expect_integer("an initial value")?]);
    }
    let span = cur.span();
    let len = cur.expect_integer("the array length")?;
    if !(1..=MAX_ARRAY as Value).contains(&len) {
        return Err(SyntaxError::new(span, format!("`{name}` must have between 1 and {MAX_ARRAY} elements")));
    }
    cur.expect("]")?;
    let mut values = vec![0; len as usize];
    if !cur.eat("=") {
        return Ok(values);
    }
    cur.expect("{")?;
    for (i, slot) in values.iter_mut().enumerate() {
        if i > 0 && !cur.eat(",") {
            break;
        }
        *slot = cur.expect_integer("an element's initial value")?;
    }
    cur.expect("}").map_err(|e| SyntaxError::new(e.span, format!("{} (`{name}` has {len} elements)", e.message)))?;
    Ok(values)
}

/// The rest of `0:r0 = 1` after the thread.
fn register_init(cur: &mut Cursor<'_>, thread: String, span: Span) -> ParseResult<RegInit> {
    cur.expect(":")?;
    let reg = cur.expect_ident("a register name after `:`")?.to_string();
    cur.expect("=")?;
    let value = cur.expect_integer("an initial value")?;
    Ok(RegInit { thread, reg, value, span })
}

/// Global work-group ids: one per distinct (device, work-group) pair, in order of first
/// appearance.
#[derive(Default)]
pub struct Workgroups {
    seen: Vec<(u32, u32)>,
}

impl Workgroups {
    fn id(&mut self, dev: u32, wg: u32) -> u32 {
        match self.seen.iter().position(|p| *p == (dev, wg)) {
            Some(i) => i as u32,
            None => {
                self.seen.push((dev, wg));
                (self.seen.len() - 1) as u32
            }
        }
    }
}

/// `P<index>@wg N, dev M (params) { body }`.
pub fn thread(cur: &mut Cursor<'_>, locs: &mut Locations, wgs: &mut Workgroups, index: usize) -> ParseResult<Thread> {
    cur.skip_blank();
    let span = cur.span();
    let name = cur.expect_ident("a thread name")?;
    let expected = format!("P{index}");
    if name != expected {
        let numbered = name.strip_prefix('P').is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        let message = if numbered {
            format!("expected thread `{expected}` here, found `{name}` (threads are numbered P0, P1, … in order)")
        } else {
            format!("expected thread `{expected}` or the final condition (`exists`, `~exists`, `forall`, `filter`), found `{name}`")
        };
        return Err(SyntaxError::new(span, message));
    }
    if index >= MAX_THREADS {
        return Err(SyntaxError::new(span, format!("more than {MAX_THREADS} threads; a litmus test has a handful")));
    }
    let (dev, wg) = placement(cur)?;
    let placement = Placement { agent: dev, workgroup: wgs.id(dev, wg), wave: index as u32, xcd: None };
    let mut cx = ThreadCx::new(locs, index);
    parameters(cur, &mut cx)?;
    let body = body::body(cur, &mut cx)?;
    let (regs, reg_types) = cx.into_regs(&body);
    Ok(Thread { name: expected, placement, regs, reg_types, reg_init: Vec::new(), body, span, lane: None })
}

/// `@wg 0, dev 1` in either order; an omitted coordinate is 0.
fn placement(cur: &mut Cursor<'_>) -> ParseResult<(u32, u32)> {
    let (mut dev, mut wg) = (None, None);
    if !cur.eat("@") {
        return Ok((0, 0));
    }
    loop {
        cur.skip_blank();
        let span = cur.span();
        let (slot, what) = match cur.ident() {
            Some("wg") => (&mut wg, "a work-group number after `wg`"),
            Some("dev") => (&mut dev, "a device number after `dev`"),
            _ => return Err(SyntaxError::new(span, format!("expected `wg` or `dev` after `@`, found {}", cur.describe_next()))),
        };
        if slot.is_some() {
            return Err(SyntaxError::new(span, "this coordinate is given twice"));
        }
        cur.skip_blank();
        let at = cur.span();
        let value = cur.expect_integer(what)?;
        *slot = Some(u32::try_from(value).map_err(|_| SyntaxError::new(at, format!("`{value}` is not a valid work-group or device number")))?);
        if !cur.eat(",") {
            return Ok((dev.unwrap_or(0), wg.unwrap_or(0)));
        }
    }
}

/// `(global int* x, local atomic_int* y)`: each parameter is a pointer to a shared location.
fn parameters(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>) -> ParseResult<()> {
    cur.expect("(")?;
    if cur.eat(")") {
        return Ok(());
    }
    loop {
        parameter(cur, cx)?;
        if cur.eat(")") {
            return Ok(());
        }
        cur.expect(",").map_err(|e| SyntaxError::new(e.span, format!("{} (parameters are separated by `,` and end with `)`)", e.message)))?;
    }
}

fn parameter(cur: &mut Cursor<'_>, cx: &mut ThreadCx<'_>) -> ParseResult<()> {
    let (mut space, mut ty) = (None, TypeWords::default());
    loop {
        cur.skip_blank();
        let span = cur.span();
        if cur.eat("*") {
            break;
        }
        let Some(word) = cur.ident() else {
            return Err(here(cur, format!("expected a parameter such as `global int* x`, found {}", cur.describe_next())));
        };
        match word {
            "global" | "__global" => space = Some((Space::Global, span)),
            "local" | "__local" => space = Some((Space::Local, span)),
            "volatile" | "const" => {}
            _ if ty.add(word) => {}
            _ if cur.looking_at(",") || cur.looking_at(")") => {
                return Err(SyntaxError::new(span, format!("parameter `{word}` must be a pointer, e.g. `global int* {word}`")));
            }
            _ => return Err(SyntaxError::new(span, format!("unknown type `{word}` (expected e.g. `global int* x` or `local atomic_int* y`)"))),
        }
    }
    cur.skip_blank();
    let span = cur.span();
    let Some(value_type) = ty.value_type() else {
        return Err(SyntaxError::new(span, "the parameter needs a type: `int*` or `atomic_int*`"));
    };
    let name = cur.expect_ident("the parameter's name")?;
    cx.add_parameter(name, space, ty.atomic, value_type, span)
}
