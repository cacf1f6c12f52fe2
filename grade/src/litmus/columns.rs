//! What the column-layout dialects share (herd LISA, herd 2015 GPU_PTX, Dartagnan PTX and
//! Vulkan): the header line and its quoted doc strings, the initial-state block, the
//! `P0 | P1 ;` table split into one cell per thread and row (each with its line and column),
//! the tables of locations and registers the condition parser resolves names against, forward
//! branches turned into structured `if`s, and scope trees turned into placements.
//!
//! [`parse_columns`] runs these steps for every dialect, and the operand readers the
//! dialects share (registers `r0`, locations, values, jumps) are here too. The dialect
//! modules ([`super::lisa`], [`super::ptx`], [`super::vulkan`]) only parse their thread
//! annotations, their instructions and their trailing lines.

use super::condition::{parse_final, Final, Names};
use super::error::{ParseResult, SyntaxError};
use super::limits::{MAX_IF_NESTING, MAX_LABELS_PER_THREAD, MAX_LOCATIONS, MAX_REGISTERS_PER_THREAD, MAX_ROWS, MAX_THREADS};
use super::program::*;
use super::text::Cursor;
use hipscope_mm::{Access, Space, Value, ValueType};

/// One cell of the table: its raw text and where it starts in the file.
#[derive(Clone, Copy, Debug)]
pub struct Cell<'a> {
    pub text: &'a str,
    pub span: Span,
}

impl<'a> Cell<'a> {
    /// A cursor over the cell whose positions are the file's.
    pub fn cursor(&self) -> Cursor<'a> {
        Cursor::at(self.text, self.span)
    }
}

/// The value an initial-state entry gives.
#[derive(Clone, Debug, PartialEq)]
pub enum InitValue {
    Int(Value),
    /// `0:r2 = x` / `0:.reg .b64 r2 = x`: the register holds the address of location `x`.
    Address(String),
    /// `0:.reg .s32 r1;`: declared, no value (starts at 0).
    Declared,
    /// `y @ generic aliases x` (PTX), `y aliases x` (Vulkan): another virtual address of
    /// location `x`, through the proxy `proxy` (marks bits; 0 for the generic proxy).
    Alias {
        target: String,
        proxy: u32,
    },
}

/// One entry of the `{ … }` block: `x=0`, `1:r1=-1`, `P1:r1=0`, `0:.reg .b64 r2 = x`,
/// `uint64_t x = 0`.
#[derive(Clone, Debug)]
pub struct InitEntry {
    /// The thread as written (`1`, `P1`) for register entries.
    pub thread: Option<String>,
    pub name: String,
    /// The declared type (`uint64_t x`, `.reg .u32 r1`); `None`: herd's default, `int`.
    pub ty: Option<ValueType>,
    pub value: InitValue,
    pub span: Span,
}

/// A file split into its parts; the dialect parses the cells and continues at `rest`.
pub struct Skeleton<'a> {
    pub name: String,
    pub init: Vec<InitEntry>,
    /// Vulkan `ssw A B` pairs.
    pub ssw: Vec<(u16, u16, Span)>,
    /// The first row: one `P0` / `P0@cta 0,gpu 0` cell per thread.
    pub heads: Vec<Cell<'a>>,
    pub rows: Vec<Vec<Cell<'a>>>,
    /// The text after the table (scope tree, regions, condition).
    pub rest: Cursor<'a>,
}

/// Where a dialect writes which agent, work-group and wavefront each thread runs in.
pub enum Placing {
    /// After each head's thread name (Dartagnan's `P0@cta 0,gpu 0`): thread `t`'s keys.
    Heads(fn(usize, &mut Cursor<'_>) -> ParseResult<[Key; 3]>),
    /// Between the table and the condition (herd's `scopes:`, `scopeTree`); heads are bare `P0`.
    Trailer(fn(&mut Cursor<'_>, &mut Builder) -> ParseResult<Vec<[Key; 3]>>),
}

/// Parses a column-layout test. Only where placements are written and how one instruction
/// reads (`None` for one that records nothing) differ between the dialects; the order of
/// the steps fixes which error a broken file reports first.
pub fn parse_columns<F>(src: &str, dialect: Dialect, placing: Placing, mut instruction: F) -> ParseResult<Litmus>
where
    F: FnMut(&mut Cursor<'_>, &mut Builder, usize) -> ParseResult<Option<Item>>,
{
    let skeleton = split(src)?;
    let (mut builder, rests) = Builder::new(&skeleton.heads)?;
    builder.declare_on_use = matches!(placing, Placing::Heads(_)) && matches!(dialect, Dialect::Ptx | Dialect::Vulkan);
    let mut keys = Vec::new();
    for (t, mut rest) in rests.into_iter().enumerate() {
        match placing {
            Placing::Heads(head) => keys.push(head(t, &mut rest)?),
            Placing::Trailer(_) => expect_cell_end(&mut rest)?,
        }
    }
    builder.apply_init(&skeleton.init)?;
    for &(a, b, span) in &skeleton.ssw {
        if usize::from(a.max(b)) >= builder.threads.len() {
            return Err(SyntaxError::new(span, format!("`ssw {a} {b}` names a thread the test does not have")));
        }
        builder.marks.ssw.push((a, b));
    }
    let bodies = bodies(&skeleton, &mut builder, |b, t, cell| cell_items(cell, |cur| instruction(cur, b, t)))?;
    let mut cur = skeleton.rest.clone();
    if let Placing::Trailer(trailer) = placing {
        keys = trailer(&mut cur, &mut builder)?;
    }
    let fin = parse_final(&mut cur, &mut builder)?;
    Ok(builder.finish(skeleton.name, dialect, bodies, placements(&keys), fin))
}

/// Splits `src` into header, initial state, table and the rest.
pub fn split(src: &str) -> ParseResult<Skeleton<'_>> {
    let mut cur = Cursor::new(src);
    let name = header(&mut cur, src)?;
    skip_preamble(&mut cur)?;
    let init = init_block(&mut cur, src)?;
    // Dartagnan (`RBrace Semi?`) and herd (`semi_opt`) allow a `;` after the block.
    cur.eat(";");
    cur.skip_blank();
    let ssw = if cur.looking_at("{") { ssw_block(&mut cur)? } else { Vec::new() };
    if at_trailer(&cur) {
        return Err(cur.error(format!("expected the thread names (`P0 | P1 ;`), found {}", cur.describe_next())));
    }
    let heads = row(&mut cur, src)?;
    let mut rows = Vec::new();
    while !at_trailer(&cur) {
        let span = {
            let mut probe = cur.clone();
            probe.skip_blank();
            probe.span()
        };
        // Checked before the row is read: each row adds an instruction to every thread.
        if rows.len() >= MAX_ROWS {
            return Err(SyntaxError::new(span, format!("more than {MAX_ROWS} rows of instructions; a litmus thread has a handful")));
        }
        let cells = row(&mut cur, src)?;
        if cells.len() != heads.len() {
            return Err(SyntaxError::new(span, format!("this row has {} but the test has {}", plural(cells.len(), "column"), plural(heads.len(), "thread"))));
        }
        rows.push(cells);
    }
    Ok(Skeleton { name, init, ssw, heads, rows, rest: cur })
}

/// Vulkan's second block, `{ ssw 0 1; ssw 1 2; }`: thread pairs that system-synchronize.
fn ssw_block(cur: &mut Cursor<'_>) -> ParseResult<Vec<(u16, u16, Span)>> {
    cur.expect("{")?;
    let mut pairs = Vec::new();
    loop {
        cur.skip_blank();
        if cur.eat("}") {
            cur.eat(";");
            return Ok(pairs);
        }
        let span = cur.span();
        if !eat_word(cur, "ssw") {
            return Err(cur.error(format!("expected `ssw A B;` or `}}`, found {}", cur.describe_next())));
        }
        let a = cur.expect_integer("a thread number")?;
        let b = cur.expect_integer("a thread number")?;
        let id = |v: i128| u16::try_from(v).map_err(|_| SyntaxError::new(span, format!("thread {v} is out of range")));
        pairs.push((id(a)?, id(b)?, span));
        if pairs.len() > 64 {
            return Err(SyntaxError::new(span, "more than 64 `ssw` pairs; a litmus test has a few"));
        }
        cur.eat(";");
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// `LISA HSA14`: the dialect word (already recognised by the caller) and the test's name.
fn header(cur: &mut Cursor<'_>, src: &str) -> ParseResult<String> {
    cur.skip_blank();
    while cur.peek().is_some_and(|c| !c.is_whitespace()) {
        cur.bump();
    }
    let keyword_end = cur.span();
    while cur.peek().is_some_and(|c| c == ' ' || c == '\t') {
        cur.bump();
    }
    let start = cur.offset();
    while cur.peek().is_some_and(|c| c != '\n') {
        cur.bump();
    }
    let name = src.get(start..cur.offset()).unwrap_or("").trim();
    if name.is_empty() {
        return Err(SyntaxError::new(keyword_end, "missing the test name after the dialect word"));
    }
    Ok(name.to_string())
}

/// Skips the doc strings (`"…"`) and herd's `key=value` lines up to the `{` of the initial
/// state.
fn skip_preamble(cur: &mut Cursor<'_>) -> ParseResult<()> {
    loop {
        cur.skip_blank();
        match cur.peek() {
            None => return Err(cur.error("missing the initial state `{ … }` before the threads")),
            Some('{') => return Ok(()),
            // Dartagnan's grammar skips everything before the `{`, quotes included: a
            // stray `"` inside a doc string (`MICRO24-Fig4b-correct.litmus`) opens nothing.
            Some('"') => {
                let mut probe = cur.clone();
                if skip_string(&mut probe).is_ok() {
                    *cur = probe;
                } else {
                    cur.bump();
                }
            }
            Some(_) if looks_like_thread_row(cur.rest()) => return Err(cur.error("expected the initial state `{ … }` before the thread names")),
            Some(_) => {
                while cur.peek().is_some_and(|c| c != '\n') {
                    cur.bump();
                }
            }
        }
    }
}

/// `P0 | P1 ;` or `P0@cta 0,gpu 0 ;`: a line of thread names.
fn looks_like_thread_row(rest: &str) -> bool {
    let line = rest.lines().next().unwrap_or("");
    let mut chars = line.chars();
    chars.next() == Some('P') && chars.next().is_some_and(|c| c.is_ascii_digit()) && line.trim_end().ends_with(';')
}

fn skip_string(cur: &mut Cursor<'_>) -> ParseResult<()> {
    let span = cur.span();
    cur.bump();
    loop {
        match cur.bump() {
            Some('"') => return Ok(()),
            // Dartagnan's doc strings may span lines (its grammar skips everything before `{`).
            None => return Err(SyntaxError::new(span, "unterminated quoted string (no closing `\"` before the end of the file)")),
            Some(_) => {}
        }
    }
}

/// `{ x=0; 1:r1=-1; P1:r1=0; 0:.reg .b64 r2 = x; }`; the last `;` is optional.
fn init_block(cur: &mut Cursor<'_>, src: &str) -> ParseResult<Vec<InitEntry>> {
    let open = cur.span();
    cur.expect("{")?;
    let mut entries = Vec::new();
    loop {
        if cur.eat("}") {
            return Ok(entries);
        }
        if cur.at_end() {
            return Err(SyntaxError::new(open, "unterminated initial state: this `{` has no `}`"));
        }
        entries.push(init_entry(cur, src)?);
        if !cur.eat(";") && !cur.looking_at("}") {
            return Err(cur.error(format!("expected `;` or `}}` after the initial value, found {}", cur.describe_next())));
        }
    }
}

fn init_entry(cur: &mut Cursor<'_>, src: &str) -> ParseResult<InitEntry> {
    cur.skip_blank();
    let span = cur.span();
    let thread = init_thread(cur, src)?;
    if thread.is_some() && cur.looking_at(".") {
        return ptx_declaration(cur, thread, span);
    }
    let ty = init_type(cur);
    let name = cur.expect_ident(if thread.is_some() { "a register name" } else { "a location or `thread:register`" })?.to_string();
    if thread.is_none() {
        if let Some(value) = alias(cur)? {
            return Ok(InitEntry { thread, name, ty, value, span });
        }
    }
    cur.expect("=")?;
    let value = init_value(cur)?;
    if thread.is_none() {
        if let InitValue::Address(other) = &value {
            return Err(SyntaxError::new(span, format!("`{name} = {other}`: a location holding an address is not supported")));
        }
    }
    Ok(InitEntry { thread, name, ty, value, span })
}

/// `@ surface aliases x` (PTX) or `aliases x` (Vulkan) after a location name.
fn alias(cur: &mut Cursor<'_>) -> ParseResult<Option<InitValue>> {
    use super::marks::bit;
    let mut proxy = 0;
    if cur.eat("@") {
        cur.skip_blank();
        let span = cur.span();
        proxy = match cur.expect_ident("a proxy (`generic`, `surface`, `texture`, `constant`)")? {
            "generic" => 0,
            "surface" => bit::SURFACE,
            "texture" => bit::TEXTURE,
            "constant" => bit::CONSTANT,
            other => return Err(SyntaxError::new(span, format!("unknown proxy `{other}` (expected generic, surface, texture or constant)"))),
        };
        if !eat_word(cur, "aliases") {
            return Err(cur.error(format!("expected `aliases`, found {}", cur.describe_next())));
        }
    } else if !eat_word(cur, "aliases") {
        return Ok(None);
    }
    cur.skip_blank();
    let target = cur.expect_ident("the aliased location")?.to_string();
    Ok(Some(InitValue::Alias { target, proxy }))
}

/// herd's typed initial values (`int x = 0`, `uint64_t y = 0`): a C type name followed by
/// another name. Unsigned and 64-bit types are read as declared; herd's default is `int`.
fn init_type(cur: &mut Cursor<'_>) -> Option<ValueType> {
    let mut probe = cur.clone();
    let ty = ValueType::from_c_name(probe.ident()?)?;
    let mut after = probe.clone();
    after.ident()?;
    *cur = probe;
    Some(ty)
}

/// `1:` or `P1:` before a register; `None` for a location entry.
fn init_thread(cur: &mut Cursor<'_>, src: &str) -> ParseResult<Option<String>> {
    let mut probe = cur.clone();
    let start = probe.offset();
    let is_thread = match probe.integer() {
        Some(_) => true,
        None => probe.ident().is_some() && probe.looking_at(":"),
    };
    if !is_thread {
        return Ok(None);
    }
    let text = src.get(start..probe.offset()).unwrap_or("").trim().to_string();
    probe.expect(":")?;
    *cur = probe;
    Ok(Some(text))
}

fn init_value(cur: &mut Cursor<'_>) -> ParseResult<InitValue> {
    if let Some(v) = cur.integer() {
        return Ok(InitValue::Int(v?));
    }
    cur.eat("&");
    let name = cur.expect_ident("an integer or a location")?;
    Ok(InitValue::Address(name.to_string()))
}

/// herd GPU_PTX: `0:.reg .s32 r1;` or `0:.reg .b64 r2 = x;`.
fn ptx_declaration(cur: &mut Cursor<'_>, thread: Option<String>, span: Span) -> ParseResult<InitEntry> {
    cur.expect(".")?;
    let reg = cur.expect_ident("`reg`")?;
    if reg != "reg" {
        return Err(SyntaxError::new(span, format!("expected `.reg`, found `.{reg}`")));
    }
    cur.expect(".")?;
    cur.skip_blank();
    let at = cur.span();
    let ty = ptx_type(cur.expect_ident("a register type (`.s32`, `.b64`)")?)
        .ok_or_else(|| SyntaxError::new(at, "expected a register type: `.s32`, `.u32`, `.b32`, `.s64`, `.u64` or `.b64`"))?;
    let name = cur.expect_ident("a register name")?.to_string();
    let value = if cur.eat("=") { init_value(cur)? } else { InitValue::Declared };
    Ok(InitEntry { thread, name, ty: Some(ty), value, span })
}

/// A PTX register type (PTX ISA, "Fundamental Types"): `.sN` signed, `.uN` unsigned, `.bN`
/// untyped bits, read as unsigned (PTX instructions give them a signedness per use; the
/// litmus subset only adds, moves and compares for equality with them).
pub fn ptx_type(word: &str) -> Option<ValueType> {
    match word {
        "s32" => Some(ValueType::INT),
        "u32" | "b32" => Some(ValueType::UINT),
        "s64" => Some(ValueType::LONG),
        "u64" | "b64" => Some(ValueType::ULONG),
        _ => None,
    }
}

/// Words that end the table.
const TRAILER: [&str; 8] = ["scopes", "levels", "regions", "scopeTree", "locations", "filter", "exists", "forall"];

fn at_trailer(cur: &Cursor<'_>) -> bool {
    let mut probe = cur.clone();
    probe.skip_blank();
    if probe.at_end() || probe.rest().starts_with('~') {
        return true;
    }
    probe.ident().is_some_and(|w| TRAILER.contains(&w))
}

/// One row `a | b | c ;` on one line, split into cells; a row has one cell per thread, so
/// more than [`MAX_THREADS`] cells is an error.
fn row<'a>(cur: &mut Cursor<'a>, src: &'a str) -> ParseResult<Vec<Cell<'a>>> {
    cur.skip_blank();
    let mut cells = Vec::new();
    let mut start = (cur.offset(), cur.span());
    loop {
        if cells.len() > MAX_THREADS {
            return Err(SyntaxError::new(start.1, format!("more than {MAX_THREADS} columns: a test has at most {MAX_THREADS} threads")));
        }
        let rest = cur.rest();
        if rest.starts_with("(*") || rest.starts_with("/*") {
            skip_comment_in_row(cur);
            continue;
        }
        match cur.peek() {
            None | Some('\n') => return Err(cur.error("expected `;` at the end of this row")),
            Some(c @ ('|' | ';')) => {
                cells.push(Cell { text: src.get(start.0..cur.offset()).unwrap_or(""), span: start.1 });
                cur.bump();
                start = (cur.offset(), cur.span());
                if c == ';' {
                    return Ok(cells);
                }
            }
            Some(_) => {
                cur.bump();
            }
        }
    }
}

/// A block comment inside a row (it may not hide the row's end).
fn skip_comment_in_row(cur: &mut Cursor<'_>) {
    let end = if cur.rest().starts_with("(*") { "*)" } else { "*/" };
    cur.bump();
    cur.bump();
    while !cur.at_end() && !cur.rest().starts_with(end) {
        cur.bump();
    }
    cur.bump();
    cur.bump();
}

/// The tables every name of the test resolves against while parsing.
pub struct Builder {
    pub locations: Vec<Location>,
    pub threads: Vec<ThreadTable>,
    /// Whether the initial state declares locations (`{ x=0; y=0; }`). Then every location
    /// must be among them, and a name that is not is a typo. herd and Dartagnan also allow
    /// no location entries at all (`{ }`, `{ 1:r1=-1; }`): every location an instruction
    /// names then starts at 0, and their catalogues rely on it.
    declared: bool,
    /// PTX/Vulkan statement marks and `ssw` pairs, filled by the dialect's instruction parser.
    pub marks: super::marks::GpuMarks,
    /// Virtual aliases of locations: name, the location, its virtual-address key.
    pub aliases: Vec<(String, LocId, u16)>,
    /// The virtual-address key of the alias the last [`Builder::location`] call resolved,
    /// if it was an alias (the dialect's instruction parser records it in its marks).
    pub last_alias: Option<u16>,
    /// Dartagnan's PTX and Vulkan front ends create a location an instruction names even
    /// when the initial state declares others (its catalogue relies on it: `IRIW1.litmus`
    /// declares `x` and reads `y`); the other dialects take such a name for a typo.
    pub declare_on_use: bool,
    /// The quorum of the barrier the instruction parser just read, for its marks.
    pub last_quorum: Option<u16>,
    /// The register holding the id of the barrier the instruction parser just read.
    pub last_barrier_register: Option<u16>,
}

/// One thread while its body is parsed.
pub struct ThreadTable {
    pub name: String,
    pub regs: Vec<String>,
    /// The type of each of `regs` (`int` unless the initial state declares another).
    pub reg_types: Vec<ValueType>,
    pub reg_init: Vec<(RegId, Value)>,
    /// Registers that hold the address of a location (`0:.reg .b64 r2 = x`).
    pub addresses: Vec<(String, LocId)>,
    pub span: Span,
}

impl Builder {
    /// Threads from the head cells, which must start `P0`, `P1`, … in order; returns each
    /// head's text after the name (the Dartagnan `@cta 0,gpu 0` annotation).
    pub fn new<'a>(heads: &[Cell<'a>]) -> ParseResult<(Builder, Vec<Cursor<'a>>)> {
        let mut threads = Vec::new();
        let mut rests = Vec::new();
        for (i, cell) in heads.iter().enumerate() {
            let mut cur = cell.cursor();
            cur.skip_blank();
            let span = cur.span();
            let name = cur.expect_ident("a thread name (`P0`)").map_err(in_cell)?;
            if name != format!("P{i}") {
                return Err(SyntaxError::new(span, format!("thread column {i} is named `{name}`; the threads must be named P0, P1, … in order")));
            }
            threads.push(ThreadTable { name: name.to_string(), regs: Vec::new(), reg_types: Vec::new(), reg_init: Vec::new(), addresses: Vec::new(), span });
            rests.push(cur);
        }
        Ok((
            Builder {
                locations: Vec::new(),
                threads,
                declared: false,
                marks: Default::default(),
                aliases: Vec::new(),
                last_alias: None,
                declare_on_use: false,
                last_quorum: None,
                last_barrier_register: None,
            },
            rests,
        ))
    }

    pub fn find_location(&self, name: &str) -> Option<LocId> {
        let alias = self.aliases.iter().find(|(a, _, _)| a == name).map(|(_, loc, _)| *loc);
        alias.or_else(|| self.locations.iter().position(|l| l.name == name).map(|i| LocId(i as u16)))
    }

    /// The virtual-address key of `name`: its location's id, or the alias's own key.
    fn virtual_key(&self, name: &str) -> Option<u16> {
        match self.aliases.iter().find(|(a, _, _)| a == name) {
            Some((_, _, key)) => Some(*key),
            None => self.locations.iter().position(|l| l.name == name).map(|i| i as u16),
        }
    }

    /// `name @ proxy aliases target`: a generic alias is a virtual address of its own; a
    /// proxy alias reaches the target's virtual address through the proxy.
    fn init_alias(&mut self, entry: &InitEntry, target: &str, proxy: u32) -> ParseResult<()> {
        let (Some(loc), Some(key)) = (self.find_location(target), self.virtual_key(target)) else {
            return Err(SyntaxError::new(entry.span, format!("`{}` aliases `{target}`, which the initial state has not declared before it", entry.name)));
        };
        if self.find_location(&entry.name).is_some() {
            return Err(SyntaxError::new(entry.span, format!("location `{}` is declared twice", entry.name)));
        }
        let own = u16::try_from(1000 + self.aliases.len()).map_err(|_| SyntaxError::new(entry.span, "too many aliases"))?;
        self.aliases.push((entry.name.clone(), loc, if proxy == 0 { own } else { key }));
        Ok(())
    }

    /// The location `name` an instruction or an address register names: one the initial
    /// state declares, or, when it declares none, created (global, initially 0) on first
    /// mention.
    pub fn location(&mut self, name: &str, span: Span) -> ParseResult<LocId> {
        self.last_alias = self.aliases.iter().find(|(a, _, _)| a == name).map(|(_, _, key)| *key);
        if let Some(id) = self.find_location(name) {
            return Ok(id);
        }
        if self.declared && !self.declare_on_use {
            let known: Vec<&str> = self.locations.iter().map(|l| l.name.as_str()).collect();
            return Err(SyntaxError::new(
                span,
                format!("`{name}` is not a declared location (the initial state declares {}); add `{name}=0;` to it", known.join(", ")),
            ));
        }
        self.create_location(name, span)
    }

    fn create_location(&mut self, name: &str, span: Span) -> ParseResult<LocId> {
        if self.locations.len() >= MAX_LOCATIONS {
            return Err(SyntaxError::new(span, format!("more than {MAX_LOCATIONS} locations; a litmus test has a handful")));
        }
        let id = u16::try_from(self.locations.len()).map_err(|_| SyntaxError::new(span, "too many locations"))?;
        self.locations.push(Location { name: name.to_string(), space: Space::Global, init: 0, ty: ValueType::INT, atomic_type: false });
        Ok(LocId(id))
    }

    /// Register `name` of thread `thread`, created on first mention.
    pub fn reg(&mut self, thread: usize, name: &str, span: Span) -> ParseResult<RegId> {
        let table = self.threads.get_mut(thread).ok_or_else(|| SyntaxError::new(span, "no such thread"))?;
        if let Some(i) = table.regs.iter().position(|r| r == name) {
            return Ok(RegId(i as u16));
        }
        if table.regs.len() >= MAX_REGISTERS_PER_THREAD {
            return Err(SyntaxError::new(span, format!("more than {MAX_REGISTERS_PER_THREAD} registers in {}", table.name)));
        }
        let id = u16::try_from(table.regs.len()).map_err(|_| SyntaxError::new(span, "too many registers"))?;
        table.regs.push(name.to_string());
        table.reg_types.push(ValueType::INT);
        Ok(RegId(id))
    }

    /// A register read as a value; address registers cannot be.
    pub fn value_reg(&mut self, thread: usize, name: &str, span: Span) -> ParseResult<Expr> {
        if let Some(loc) = self.address(thread, name) {
            let loc_name = self.locations.get(usize::from(loc.0)).map_or("?", |l| l.name.as_str());
            return Err(SyntaxError::new(span, format!("register `{name}` holds the address of `{loc_name}`; using an address as a value is not supported")));
        }
        Ok(Expr::Reg(self.reg(thread, name, span)?))
    }

    /// The location whose address register `name` of `thread` holds.
    pub fn address(&self, thread: usize, name: &str) -> Option<LocId> {
        let table = self.threads.get(thread)?;
        table.addresses.iter().find(|(r, _)| r == name).map(|(_, l)| *l)
    }

    /// `1`, `P1` → thread index.
    pub fn thread_index(&self, written: &str) -> Option<usize> {
        let digits = written.strip_prefix('P').unwrap_or(written);
        let index: usize = digits.parse().ok()?;
        (index < self.threads.len()).then_some(index)
    }

    /// Applies the initial-state block: location values first (an address binding may come
    /// before the location it names), then register values and address bindings.
    pub fn apply_init(&mut self, init: &[InitEntry]) -> ParseResult<()> {
        for entry in init.iter().filter(|e| e.thread.is_none()) {
            self.init_location(entry)?;
        }
        self.declared = !self.locations.is_empty();
        for entry in init {
            if let Some(thread) = &entry.thread {
                self.init_register(thread, entry)?;
            }
        }
        Ok(())
    }

    fn init_location(&mut self, entry: &InitEntry) -> ParseResult<()> {
        if let InitValue::Alias { target, proxy } = &entry.value {
            return self.init_alias(entry, target, *proxy);
        }
        let InitValue::Int(value) = entry.value else {
            return Err(SyntaxError::new(entry.span, format!("location `{}` needs an integer initial value", entry.name)));
        };
        if self.find_location(&entry.name).is_some() {
            return Err(SyntaxError::new(entry.span, format!("location `{}` is initialized twice", entry.name)));
        }
        let id = self.create_location(&entry.name, entry.span)?;
        let ty = entry.ty.unwrap_or(ValueType::INT);
        let value =
            ty.literal(value).ok_or_else(|| SyntaxError::new(entry.span, format!("{value} does not fit `{}`, of type {}", entry.name, ty.describe())))?;
        if let Some(loc) = self.locations.get_mut(usize::from(id.0)) {
            (loc.init, loc.ty) = (value, ty);
        }
        Ok(())
    }

    fn init_register(&mut self, thread: &str, entry: &InitEntry) -> ParseResult<()> {
        let Some(t) = self.thread_index(thread) else {
            return Err(SyntaxError::new(entry.span, format!("the initial state names thread `{thread}`, which the test does not have")));
        };
        let declared = self.threads.get(t).is_some_and(|table| table.regs.contains(&entry.name) || table.addresses.iter().any(|(r, _)| *r == entry.name));
        if declared {
            return Err(SyntaxError::new(entry.span, format!("register `{thread}:{}` is initialized twice", entry.name)));
        }
        let ty = entry.ty.unwrap_or(ValueType::INT);
        match &entry.value {
            InitValue::Declared => {
                let reg = self.reg(t, &entry.name, entry.span)?;
                self.set_reg_type(t, reg, ty);
            }
            InitValue::Int(value) => {
                let reg = self.reg(t, &entry.name, entry.span)?;
                self.set_reg_type(t, reg, ty);
                let value = ty
                    .literal(*value)
                    .ok_or_else(|| SyntaxError::new(entry.span, format!("{value} does not fit `{thread}:{}`, of type {}", entry.name, ty.describe())))?;
                if let Some(table) = self.threads.get_mut(t) {
                    table.reg_init.push((reg, value));
                }
            }
            InitValue::Alias { .. } => return Err(SyntaxError::new(entry.span, "a register cannot alias a location")),
            InitValue::Address(loc) => {
                let loc = self.location(loc, entry.span)?;
                if let Some(table) = self.threads.get_mut(t) {
                    // Address registers are registers too (and looked up linearly).
                    if table.addresses.len() >= MAX_REGISTERS_PER_THREAD {
                        return Err(SyntaxError::new(entry.span, format!("more than {MAX_REGISTERS_PER_THREAD} address registers in {}", table.name)));
                    }
                    table.addresses.push((entry.name.clone(), loc));
                }
            }
        }
        Ok(())
    }

    fn set_reg_type(&mut self, thread: usize, reg: RegId, ty: ValueType) {
        if let Some(slot) = self.threads.get_mut(thread).and_then(|t| t.reg_types.get_mut(reg.0 as usize)) {
            *slot = ty;
        }
    }

    /// Sets the memory space of `name` (`regions: x:group`, `x:shared`), which the initial
    /// state or an instruction must name: a location nothing accesses is a typo.
    pub fn set_space(&mut self, name: &str, space: Space, span: Span) -> ParseResult<()> {
        let Some(id) = self.find_location(name) else {
            return Err(SyntaxError::new(span, format!("`{name}` is not a location of the test (no instruction and no initial value names it)")));
        };
        if let Some(loc) = self.locations.get_mut(usize::from(id.0)) {
            loc.space = space;
        }
        Ok(())
    }

    /// The finished program.
    pub fn finish(self, name: String, dialect: Dialect, bodies: Vec<Vec<Stmt>>, placements: Vec<Placement>, fin: Final) -> Litmus {
        let threads = self
            .threads
            .into_iter()
            .zip(bodies)
            .zip(placements)
            .map(|((t, body), placement)| Thread {
                name: t.name,
                placement,
                regs: t.regs,
                reg_types: t.reg_types,
                reg_init: t.reg_init,
                body,
                span: t.span,
                lane: None,
            })
            .collect();
        Litmus { name, dialect, locations: self.locations, threads, condition: fin.condition, filter: fin.filter, observed: fin.observed, marks: self.marks }
    }
}

impl Names for Builder {
    /// A register the thread's instructions or the initial state name: one they do not is a
    /// typo, which would otherwise read as 0.
    fn register(&mut self, thread: &str, reg: &str) -> Result<(u16, RegId), String> {
        let Some(t) = self.thread_index(thread) else { return Err(no_thread(thread)) };
        let table = self.threads.get(t).ok_or_else(|| no_thread(thread))?;
        match table.regs.iter().position(|r| r == reg) {
            Some(i) => Ok((t as u16, RegId(i as u16))),
            None if table.addresses.iter().any(|(r, _)| r == reg) => Err(format!("register `{reg}` of {} holds an address, not a value", table.name)),
            None => Err(format!("{} has no register `{reg}`: no instruction and no initial value of the thread names it", table.name)),
        }
    }
    /// Only locations the test initializes or accesses: a name that appears nowhere else
    /// is most likely a typo in the condition.
    fn location(&mut self, name: &str) -> Option<LocId> {
        self.find_location(name)
    }
    fn value_type(&mut self, term: &Term) -> ValueType {
        match term {
            Term::Reg { thread, reg } => self.threads.get(*thread as usize).and_then(|t| t.reg_types.get(reg.0 as usize)).copied().unwrap_or(ValueType::INT),
            Term::Loc { loc, .. } => self.locations.get(loc.0 as usize).map_or(ValueType::INT, |l| l.ty),
            Term::Const(v) => ValueType::of_literal(*v),
        }
    }
}

fn no_thread(thread: &str) -> String {
    format!("the condition names thread `{thread}`, which the test does not have")
}

/// One parsed cell entry before control flow is structured.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Stmt(Stmt),
    /// `Exit1:` / `LC00:`.
    Label {
        name: String,
        span: Span,
    },
    /// Jump to `label` when `cond` is non-zero (`None`: always).
    Jump {
        cond: Option<Expr>,
        label: String,
        span: Span,
    },
}

/// Parses every cell of every thread with `cell` and structures the branches.
pub fn bodies<'a, F>(skeleton: &Skeleton<'a>, builder: &mut Builder, mut cell: F) -> ParseResult<Vec<Vec<Stmt>>>
where
    F: FnMut(&mut Builder, usize, Cell<'a>) -> ParseResult<Vec<Item>>,
{
    let mut out = Vec::new();
    for t in 0..skeleton.heads.len() {
        let mut items = Vec::new();
        for row in &skeleton.rows {
            if let Some(c) = row.get(t) {
                items.extend(cell(builder, t, *c)?);
            }
        }
        out.push(structure(items)?);
    }
    Ok(out)
}

/// Turns forward jumps into `if`s: `b r3 L; A; B; L:` becomes `if (!r3) { A; B }`. A thread
/// whose jumps go backwards (a spin loop) or out of the block an earlier jump skips keeps
/// its labels and jumps as [`Stmt::Label`] and [`Stmt::Goto`]: the model unrolls it. A jump
/// to a label the thread does not have is an error.
pub fn structure(items: Vec<Item>) -> ParseResult<Vec<Stmt>> {
    let mut labels: Vec<(String, usize)> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        if let Item::Label { name, span } = item {
            if labels.len() >= MAX_LABELS_PER_THREAD {
                return Err(SyntaxError::new(*span, format!("more than {MAX_LABELS_PER_THREAD} labels in one thread")));
            }
            if labels.iter().any(|(n, _)| n == name) {
                return Err(SyntaxError::new(*span, format!("label `{name}` is defined twice in this thread")));
            }
            labels.push((name.clone(), i));
        }
    }
    let mut jumps = Vec::new();
    for (i, item) in items.iter().enumerate() {
        if let Item::Jump { label, span, .. } = item {
            let Some(target) = labels.iter().find(|(n, _)| n == label).map(|(_, at)| *at) else {
                return Err(SyntaxError::new(*span, format!("this thread has no label `{label}`")));
            };
            jumps.push((i, target));
        }
    }
    if !nests(&jumps) {
        return Ok(items.into_iter().filter_map(unstructured).collect());
    }
    let len = items.len();
    let mut slots: Vec<Option<Item>> = items.into_iter().map(Some).collect();
    build(&mut slots, &labels, 0, len, 0)
}

/// Do the jumps `(from, to)` all go forwards and nest (a jump inside the block an earlier
/// jump skips lands inside that block too)?
fn nests(jumps: &[(usize, usize)]) -> bool {
    let forward = jumps.iter().all(|(from, to)| to > from);
    forward && jumps.iter().all(|(f1, t1)| jumps.iter().all(|(f2, t2)| !(f1 < f2 && f2 < t1) || t2 <= t1))
}

/// An item of a thread kept with its labels and jumps.
fn unstructured(item: Item) -> Option<Stmt> {
    Some(match item {
        Item::Stmt(s) => s,
        Item::Label { name, span } => Stmt::Label { name, span },
        Item::Jump { cond, label, span } => Stmt::Goto { cond, label, span },
    })
}

/// The statements of `slots[lo..hi]`, inside `nesting` enclosing branches (each jump nests
/// the block it skips, and so a recursion of this function, one level deeper).
fn build(slots: &mut [Option<Item>], labels: &[(String, usize)], lo: usize, hi: usize, nesting: usize) -> ParseResult<Vec<Stmt>> {
    let mut out = Vec::new();
    let mut i = lo;
    while i < hi {
        let item = slots.get_mut(i).and_then(Option::take);
        if let Some(Item::Stmt(s)) = item {
            out.push(s);
        } else if let Some(Item::Jump { cond, label, span }) = item {
            let Some(target) = labels.iter().find(|(n, _)| *n == label).map(|(_, at)| *at) else {
                return Err(SyntaxError::new(span, format!("this thread has no label `{label}`")));
            };
            if target <= i {
                return Err(SyntaxError::new(span, format!("the branch to `{label}` goes backwards; only forward branches are supported")));
            }
            if target > hi {
                return Err(SyntaxError::new(span, format!("the branch to `{label}` jumps out of the block skipped by an earlier branch; branches must nest")));
            }
            if nesting >= MAX_IF_NESTING {
                return Err(SyntaxError::new(span, format!("branches nest more than {MAX_IF_NESTING} levels deep")));
            }
            let then = build(slots, labels, i + 1, target, nesting + 1)?;
            out.push(Stmt::If { cond: negate(cond.unwrap_or(Expr::Const(1))), then, otherwise: Vec::new(), span });
            i = target;
            continue;
        }
        i += 1;
    }
    Ok(out)
}

/// The condition under which a jump is not taken.
fn negate(cond: Expr) -> Expr {
    let flipped = |op| match op {
        BinOp::Eq => Some(BinOp::Ne),
        BinOp::Ne => Some(BinOp::Eq),
        BinOp::Lt => Some(BinOp::Ge),
        BinOp::Ge => Some(BinOp::Lt),
        BinOp::Le => Some(BinOp::Gt),
        BinOp::Gt => Some(BinOp::Le),
        _ => None,
    };
    match cond {
        Expr::Const(v) => Expr::Const(Value::from(v == 0)),
        Expr::Not(inner) => *inner,
        Expr::Bin(op, a, b) => match flipped(op) {
            Some(op) => Expr::Bin(op, a, b),
            None => Expr::Not(Box::new(Expr::Bin(op, a, b))),
        },
        other => Expr::Not(Box::new(other)),
    }
}

/// Levels of a scope tree, narrowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Wave,
    Workgroup,
    Agent,
    System,
}

/// The level a tree node's name denotes; `None` for levels that group nothing we model
/// (herd GPU_PTX `kernel`, HSA `wi`), which are kept transparent.
fn level_of(name: &str) -> Result<Option<Level>, ()> {
    // HSA bell `wi wave wg agent system`; tutorial bell `cta gpu system`; herd 2015 GPU_PTX
    // `device kernel cta|block|work_group warp|sub_group` (GPU_PTXLexer).
    match name {
        "system" => Ok(Some(Level::System)),
        "agent" | "gpu" | "device" => Ok(Some(Level::Agent)),
        "wg" | "cta" | "block" | "work_group" => Ok(Some(Level::Workgroup)),
        "wave" | "warp" | "sub_group" => Ok(Some(Level::Wave)),
        "kernel" | "wi" => Ok(None),
        _ => Err(()),
    }
}

/// A node of a scope tree: `(agent (wg 0 1) (wg 2))`.
#[derive(Debug)]
pub struct Tree {
    level: Option<Level>,
    children: Vec<Child>,
}

#[derive(Debug)]
enum Child {
    Node(Tree),
    Thread(usize, Span),
}

/// One or more trees `( … ) ( … )` (several are siblings under an implicit root).
pub fn parse_trees(cur: &mut Cursor<'_>, threads: usize) -> ParseResult<Vec<Tree>> {
    let mut trees = vec![parse_tree(cur, threads, None, 0)?];
    while cur.looking_at("(") {
        trees.push(parse_tree(cur, threads, None, 0)?);
    }
    Ok(trees)
}

fn parse_tree(cur: &mut Cursor<'_>, threads: usize, parent: Option<Level>, depth: u32) -> ParseResult<Tree> {
    cur.expect("(")?;
    let span = cur.span();
    if depth > 8 {
        return Err(SyntaxError::new(span, "scope tree nested too deeply"));
    }
    let name = cur.expect_ident("a scope name (`agent`, `wg`, `cta`, …)")?;
    let level = level_of(name).map_err(|()| {
        SyntaxError::new(
            span,
            format!("unknown scope `{name}` (expected system, agent, gpu, device, kernel, wg, cta, block, work_group, wave, warp, sub_group or wi)"),
        )
    })?;
    if let (Some(l), Some(p)) = (level, parent) {
        if l >= p {
            return Err(SyntaxError::new(span, format!("scope `{name}` cannot be inside a scope as wide or narrower")));
        }
    }
    let inner = level.or(parent);
    let mut children = Vec::new();
    while !cur.eat(")") {
        children.push(tree_child(cur, threads, inner, depth)?);
    }
    Ok(Tree { level, children })
}

fn tree_child(cur: &mut Cursor<'_>, threads: usize, inner: Option<Level>, depth: u32) -> ParseResult<Child> {
    if cur.looking_at("(") {
        return Ok(Child::Node(parse_tree(cur, threads, inner, depth + 1)?));
    }
    cur.skip_blank();
    let span = cur.span();
    let index = match cur.integer() {
        Some(v) => v?,
        None => match cur.ident() {
            Some(name) => name.strip_prefix('P').and_then(|d| d.parse().ok()).unwrap_or(-1),
            None => return Err(cur.error(format!("expected a thread (`P0`, `0`), `(` or `)`, found {}", cur.describe_next()))),
        },
    };
    match usize::try_from(index) {
        Ok(i) if i < threads => Ok(Child::Thread(i, span)),
        _ => Err(SyntaxError::new(span, "the scope tree names a thread the test does not have")),
    }
}

/// Which instance of a level a thread is in, before numbering.
#[derive(Clone, Debug, PartialEq)]
pub enum Key {
    /// A node of the scope tree.
    Node(usize),
    /// An instance of its own.
    Own(usize),
    /// The one instance every thread shares.
    Root,
    /// Dartagnan's explicit ids (`P1@sg 0, wg 1, qf 0`), outermost first.
    Ids(Vec<i64>),
}

/// The placement keys `[agent, workgroup, wave]` of each thread under `trees`. A thread's
/// instance of a level is its nearest enclosing node of that level; without one, the
/// outermost enclosing narrower node (so `(wg 0 1)` alone puts both threads in one agent);
/// without that, an instance of its own (a thread directly under `agent` is alone in its
/// work-group, and every thread outside a `wave`/`warp` node in its own wavefront).
pub fn tree_keys(trees: &[Tree], threads: usize, span: Span) -> ParseResult<Vec<[Key; 3]>> {
    let mut chains: Vec<Option<Vec<(Level, usize)>>> = vec![None; threads];
    let mut next_node = 0;
    for tree in trees {
        walk(tree, &mut Vec::new(), &mut next_node, &mut chains)?;
    }
    let mut keys = Vec::new();
    for (t, chain) in chains.into_iter().enumerate() {
        let Some(chain) = chain else {
            return Err(SyntaxError::new(span, format!("thread P{t} is missing from the scope tree")));
        };
        keys.push([Level::Agent, Level::Workgroup, Level::Wave].map(|l| key_for(&chain, l, t)));
    }
    Ok(keys)
}

fn walk(tree: &Tree, chain: &mut Vec<(Level, usize)>, next: &mut usize, chains: &mut [Option<Vec<(Level, usize)>>]) -> ParseResult<()> {
    let id = *next;
    *next += 1;
    if let Some(level) = tree.level {
        chain.push((level, id));
    }
    for child in &tree.children {
        match child {
            Child::Node(sub) => walk(sub, chain, next, chains)?,
            Child::Thread(t, span) => match chains.get_mut(*t) {
                Some(slot @ None) => *slot = Some(chain.clone()),
                _ => return Err(SyntaxError::new(*span, format!("thread P{t} appears twice in the scope tree"))),
            },
        }
    }
    if tree.level.is_some() {
        chain.pop();
    }
    Ok(())
}

fn key_for(chain: &[(Level, usize)], level: Level, thread: usize) -> Key {
    if let Some((_, id)) = chain.iter().rev().find(|(l, _)| *l == level) {
        return Key::Node(*id);
    }
    if let Some((_, id)) = chain.iter().find(|(l, _)| *l < level) {
        return Key::Node(*id);
    }
    Key::Own(thread)
}

/// Keys when a herd test gives no scope tree: one agent, one work-group, a wavefront per
/// thread, so scoped operations of every scope from work-group up synchronize all threads.
pub fn default_keys(threads: usize) -> Vec<[Key; 3]> {
    (0..threads).map(|t| [Key::Root, Key::Root, Key::Own(t)]).collect()
}

/// Numbers the keys of each level in order of first appearance (ids are global, as
/// [`Placement`] wants).
pub fn placements(keys: &[[Key; 3]]) -> Vec<Placement> {
    let mut seen: [Vec<&Key>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    let mut out = Vec::new();
    for k in keys {
        let mut ids = [0u32; 3];
        for level in 0..3 {
            let table = &mut seen[level];
            let index = match table.iter().position(|s| **s == k[level]) {
                Some(i) => i,
                None => {
                    table.push(&k[level]);
                    table.len() - 1
                }
            };
            ids[level] = index as u32;
        }
        out.push(Placement { agent: ids[0], workgroup: ids[1], wave: ids[2], xcd: None });
    }
    out
}

/// `x:global, y:shared` (herd GPU_PTX) or `x:group` (LISA `regions:`).
pub fn memory_map(cur: &mut Cursor<'_>, builder: &mut Builder) -> ParseResult<()> {
    loop {
        cur.skip_blank();
        let span = cur.span();
        let name = cur.expect_ident("a location name")?;
        cur.expect(":")?;
        cur.skip_blank();
        let word_span = cur.span();
        let word = cur.expect_ident("a memory region (`global`, `shared`, `group`)")?;
        let space = match word {
            "global" => Space::Global,
            // HSA's group segment and PTX's shared space are the work-group's LDS.
            "group" | "shared" | "local" => Space::Local,
            _ => return Err(SyntaxError::new(word_span, format!("unsupported memory region `{word}` (expected global, shared, local or group)"))),
        };
        builder.set_space(name, space, span)?;
        if !cur.eat(",") {
            return Ok(());
        }
    }
}

/// A dotted mnemonic `ld.acquire.gpu` (no blanks inside) with the position of each part;
/// empty when no word is next.
pub fn dotted<'a>(cur: &mut Cursor<'a>) -> Vec<(&'a str, Span)> {
    let mut parts = Vec::new();
    cur.skip_blank();
    let span = cur.span();
    let Some(first) = cur.ident() else { return parts };
    parts.push((first, span));
    while cur.rest().starts_with('.') {
        let mut probe = cur.clone();
        probe.bump();
        if !probe.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            break;
        }
        let span = probe.span();
        let rest = probe.rest();
        let len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
        for _ in 0..len {
            probe.bump();
        }
        parts.push((rest.get(..len).unwrap_or(""), span));
        *cur = probe;
    }
    parts
}

/// Consumes `word` only as a whole identifier.
pub fn eat_word(cur: &mut Cursor<'_>, word: &str) -> bool {
    let mut probe = cur.clone();
    if probe.ident() == Some(word) {
        *cur = probe;
        true
    } else {
        false
    }
}

/// Dartagnan's thread annotation `@cta 0,gpu 0` / `@sg 0, wg 0, qf 0`: the ids in the order
/// of `names`; a missing annotation or id is 0.
pub fn at_ids(cur: &mut Cursor<'_>, names: &[&str]) -> ParseResult<Vec<i64>> {
    thread_ids(cur, names).map_err(in_cell)
}

fn thread_ids(cur: &mut Cursor<'_>, names: &[&str]) -> ParseResult<Vec<i64>> {
    let mut ids: Vec<Option<i64>> = vec![None; names.len()];
    if cur.eat("@") {
        loop {
            cur.skip_blank();
            let span = cur.span();
            let word = cur.expect_ident(&format!("a scope name ({})", names.join(", ")))?;
            let Some(i) = names.iter().position(|n| *n == word) else {
                return Err(SyntaxError::new(span, format!("unknown scope `{word}` in the thread annotation (expected {})", names.join(", "))));
            };
            let id = i64::try_from(cur.expect_integer("a scope id")?).map_err(|_| SyntaxError::new(span, "the scope id does not fit in 64 bits"))?;
            match ids.get_mut(i) {
                Some(slot @ None) => *slot = Some(id),
                _ => return Err(SyntaxError::new(span, format!("scope `{word}` is given twice"))),
            }
            if !cur.eat(",") {
                break;
            }
        }
    }
    expect_cell_end(cur)?;
    Ok(ids.into_iter().map(|id| id.unwrap_or(0)).collect())
}

/// A cell: its labels (`Exit1:`, `LC00:`) and at most one instruction, which
/// `instruction` parses (`None` for one that records nothing).
pub fn cell_items<'a, F>(cell: Cell<'a>, instruction: F) -> ParseResult<Vec<Item>>
where
    F: FnOnce(&mut Cursor<'a>) -> ParseResult<Option<Item>>,
{
    let mut cur = cell.cursor();
    let mut items = Vec::new();
    while let Some(label) = label(&mut cur) {
        items.push(label);
    }
    cur.skip_blank();
    if cur.at_end() {
        return Ok(items);
    }
    items.extend(instruction(&mut cur).map_err(in_cell)?);
    expect_cell_end(&mut cur)?;
    Ok(items)
}

/// A cell's cursor ends where the cell does, not where the file does.
pub fn in_cell(mut e: SyntaxError) -> SyntaxError {
    e.message = e.message.replace("the end of the file", "the end of the cell");
    e
}

/// A label definition `L:` at the cursor, consumed.
pub fn label(cur: &mut Cursor<'_>) -> Option<Item> {
    let mut probe = cur.clone();
    probe.skip_blank();
    let span = probe.span();
    let name = probe.ident()?;
    if !probe.eat(":") {
        return None;
    }
    *cur = probe;
    Some(Item::Label { name: name.to_string(), span })
}

/// Fails unless only blanks remain in the cell.
pub fn expect_cell_end(cur: &mut Cursor<'_>) -> ParseResult<()> {
    cur.skip_blank();
    if cur.at_end() {
        Ok(())
    } else {
        Err(cur.error(format!("unexpected {} after the instruction", cur.describe_next())))
    }
}

/// Is `name` a Dartagnan/herd-LISA register (`r` followed by digits)?
pub fn is_register(name: &str) -> bool {
    name.strip_prefix('r').is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// Words of a dotted mnemonic, each with where it starts.
pub type Words<'a> = Vec<(&'a str, Span)>;

/// The dotted mnemonic an instruction starts with, as its first word and the words after
/// it (`ld.acquire.gpu` → `ld`, `[acquire, gpu]`), and where the instruction starts;
/// `what` names the instruction the error expects (`a PTX instruction`).
pub fn mnemonic<'a>(cur: &mut Cursor<'a>, what: &str) -> ParseResult<(Span, &'a str, Words<'a>)> {
    cur.skip_blank();
    let span = cur.span();
    let mut parts = dotted(cur);
    if parts.is_empty() {
        return Err(cur.error(format!("expected {what}, found {}", cur.describe_next())));
    }
    let (op, _) = parts.remove(0);
    Ok((span, op, parts))
}

/// A jump to the label that comes next (`goto L`, `bra L`, the end of `beq r, 1, L`),
/// taken when `cond` is non-zero (`None`: always).
pub fn jump_to(cur: &mut Cursor<'_>, cond: Option<Expr>, span: Span) -> ParseResult<Item> {
    let label = cur.expect_ident("a label")?.to_string();
    Ok(Item::Jump { cond, label, span })
}

/// Reads one operand of a dialect's instruction in thread `t`.
pub type Operand<T> = fn(&mut Cursor<'_>, &mut Builder, usize) -> ParseResult<T>;

/// `op d, a, c`: `d = a <bin> c`, the three-operand arithmetic and comparisons of the PTX
/// and Vulkan dialects; `dest` and `source` read the dialect's registers and values.
pub fn three_operand(
    cur: &mut Cursor<'_>,
    b: &mut Builder,
    t: usize,
    bin: BinOp,
    span: Span,
    dest: Operand<RegId>,
    source: Operand<Expr>,
) -> ParseResult<Stmt> {
    let reg = dest(cur, b, t)?;
    cur.expect(",")?;
    let left = source(cur, b, t)?;
    cur.expect(",")?;
    let right = source(cur, b, t)?;
    Ok(Stmt::Assign { reg, value: Expr::Bin(bin, Box::new(left), Box::new(right)), span })
}

/// A register `r<digits>` (LISA, Dartagnan PTX and Vulkan).
pub fn register(cur: &mut Cursor<'_>, b: &mut Builder, t: usize) -> ParseResult<RegId> {
    cur.skip_blank();
    let span = cur.span();
    match cur.ident() {
        Some(name) if is_register(name) => b.reg(t, name, span),
        _ => Err(SyntaxError::new(span, format!("expected a register (`r0`), found {}", cur.describe_next()))),
    }
}

/// `ld r0, 1`: a register set to a value (Dartagnan's PTX `localValue`).
pub fn three_operand_free_assign(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, span: Span) -> ParseResult<Stmt> {
    let reg = register(cur, b, t)?;
    cur.expect(",")?;
    let value = value(cur, b, t)?;
    Ok(Stmt::Assign { reg, value, span })
}

/// A barrier's numbers: `N` or `N, id` or `N, id, quorum`; gives the id threads meet at
/// (`N` when there is no id) and the quorum if written.
pub fn barrier_numbers(cur: &mut Cursor<'_>, b: &mut Builder, t: usize) -> ParseResult<(String, Option<u16>)> {
    let instance = cur.expect_integer("a barrier number")?;
    if !cur.eat(",") {
        return Ok((instance.to_string(), None));
    }
    // The id: an integer, or a register holding it (read when the thread runs).
    let id = match int_or_register(cur, b, t, "a barrier id (an integer or a register)")? {
        Expr::Reg(reg) => {
            b.last_barrier_register = Some(reg.0);
            format!("register {}", reg.0)
        }
        Expr::Const(v) => v.to_string(),
        _ => return Err(cur.error("expected a barrier id (an integer or a register)")),
    };
    if !cur.eat(",") {
        return Ok((id, None));
    }
    cur.skip_blank();
    let span = cur.span();
    let quorum = cur.expect_integer("a barrier quorum (an integer)")?;
    let quorum = u16::try_from(quorum).map_err(|_| SyntaxError::new(span, format!("barrier quorum {quorum} is out of range")))?;
    Ok((id, Some(quorum)))
}

/// A location name (not a register).
pub fn location(cur: &mut Cursor<'_>, b: &mut Builder) -> ParseResult<Target> {
    cur.skip_blank();
    let span = cur.span();
    match cur.ident() {
        Some(name) if !is_register(name) => Ok(Target::word(b.location(name, span)?)),
        _ => Err(SyntaxError::new(span, format!("expected a location, found {}", cur.describe_next()))),
    }
}

/// An integer or a register `r<digits>`; `expected` is what the error says was wanted.
pub fn int_or_register(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, expected: &str) -> ParseResult<Expr> {
    cur.skip_blank();
    let span = cur.span();
    if let Some(v) = cur.integer() {
        return Ok(Expr::Const(v?));
    }
    match cur.ident() {
        Some(name) if is_register(name) => b.value_reg(t, name, span),
        _ => Err(SyntaxError::new(span, format!("expected {expected}, found {}", cur.describe_next()))),
    }
}

/// An integer or a register (Dartagnan PTX and Vulkan).
pub fn value(cur: &mut Cursor<'_>, b: &mut Builder, t: usize) -> ParseResult<Expr> {
    int_or_register(cur, b, t, "a register or an integer")
}

/// Dartagnan's `ld` operands `r, x`, or `r, 5` (the register set to a constant).
pub fn load_operands(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, access: Access, span: Span) -> ParseResult<Stmt> {
    let reg = register(cur, b, t)?;
    cur.expect(",")?;
    if let Some(v) = cur.integer() {
        return Ok(Stmt::Assign { reg, value: Expr::Const(v?), span });
    }
    Ok(Stmt::Load { reg, target: location(cur, b)?, access, span })
}

/// Dartagnan's `st` operands `x, v`.
pub fn store_operands(cur: &mut Cursor<'_>, b: &mut Builder, t: usize, access: Access, span: Span) -> ParseResult<Stmt> {
    let target = location(cur, b)?;
    cur.expect(",")?;
    let value = value(cur, b, t)?;
    Ok(Stmt::Store { target, value, access, span })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(v: Value) -> Stmt {
        Stmt::Store { target: Target::word(LocId(0)), value: Expr::Const(v), access: Access::Plain, span: Span::default() }
    }

    #[test]
    fn forward_jump_becomes_if() {
        let r3 = Expr::Reg(RegId(0));
        let items = vec![
            Item::Jump { cond: Some(r3.clone()), label: "L".into(), span: Span::default() },
            Item::Stmt(store(1)),
            Item::Label { name: "L".into(), span: Span::default() },
            Item::Stmt(store(2)),
        ];
        let body = structure(items).unwrap();
        assert_eq!(body, vec![Stmt::If { cond: Expr::Not(Box::new(r3)), then: vec![store(1)], otherwise: vec![], span: Span::default() }, store(2)]);
    }

    #[test]
    fn backward_and_crossing_jumps_keep_their_labels_and_missing_ones_are_rejected() {
        let jump = |l: &str| Item::Jump { cond: None, label: l.into(), span: Span::default() };
        let label = |l: &str| Item::Label { name: l.into(), span: Span::default() };
        let looped = structure(vec![label("L"), jump("L")]).unwrap();
        assert!(matches!(looped.as_slice(), [Stmt::Label { .. }, Stmt::Goto { .. }]), "{looped:?}");
        assert!(structure(vec![jump("M")]).unwrap_err().message.contains("no label"));
        let crossing = structure(vec![jump("A"), jump("B"), label("A"), label("B")]).unwrap();
        assert_eq!(crossing.len(), 4);
        assert!(matches!(crossing[1], Stmt::Goto { ref label, .. } if label == "B"));
    }

    #[test]
    fn trees_give_nested_global_ids() {
        let mut cur = Cursor::new("(agent (wg 0 1) (wg 2)) (agent 3)");
        let trees = parse_trees(&mut cur, 4).unwrap();
        let p = placements(&tree_keys(&trees, 4, Span::default()).unwrap());
        assert_eq!((p[0].agent, p[0].workgroup), (0, 0));
        assert_eq!((p[1].agent, p[1].workgroup), (0, 0));
        assert_eq!((p[2].agent, p[2].workgroup), (0, 1));
        assert_eq!((p[3].agent, p[3].workgroup), (1, 2));
        assert!(p.iter().enumerate().all(|(i, a)| p.iter().skip(i + 1).all(|b| a.wave != b.wave)));
    }

    #[test]
    fn bad_trees_say_why() {
        let err = |s: &str, n| parse_trees(&mut Cursor::new(s), n).and_then(|t| tree_keys(&t, n, Span::default())).unwrap_err().message;
        assert!(err("(wg (agent 0))", 1).contains("inside"));
        assert!(err("(wg 0 0)", 1).contains("twice"));
        assert!(err("(wg 0)", 2).contains("missing"));
        assert!(err("(wg 5)", 1).contains("does not have"));
        assert!(err("(galaxy 0)", 1).contains("unknown scope"));
    }

    #[test]
    fn dotted_words_stop_at_blanks() {
        let mut cur = Cursor::new("st.release.cta y, 1");
        let words: Vec<&str> = dotted(&mut cur).into_iter().map(|(w, _)| w).collect();
        assert_eq!(words, vec!["st", "release", "cta"]);
        assert_eq!(cur.rest(), " y, 1");
    }
}
