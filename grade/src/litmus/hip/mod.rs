//! hipscope's HIP dialect: litmus tests written the way students write HIP kernels.
//!
//! ```text
//! HIP MP_device_scope
//! __device__ int x = 0;
//! __device__ int flag = 0;
//! thread T0 @ block 0, thread 0 {
//!   x = 1;
//!   __hip_atomic_store(&flag, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
//! }
//! thread T1 @ block 1, thread 0 {
//!   int r0 = __hip_atomic_load(&flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
//!   int r1 = -1;
//!   if (r0 == 1) { r1 = x; }
//! }
//! exists (T1:r0 == 1 && T1:r1 == 0)
//! ```
//!
//! Top level: location declarations (`__device__` / plain = global memory, `__shared__` =
//! one copy per work-group), threads with their placement, then the shared final part
//! ([`condition::parse_final`]). `workloads/litmus/README.md` documents the whole dialect.

mod calls;
mod expr;
mod stmt;
mod types;
mod vocab;

use types::{int_type, int_type_word};

use super::condition::{self, Names};
use super::error::{ParseResult, SyntaxError};
use super::limits::{MAX_LOCATIONS, MAX_THREADS};
use super::program::{Dialect, Litmus, LocId, Location, Placement, Prop, RegId, Span, Stmt, Target, Term, Thread, HOST_AGENT};
use super::text::Cursor;
use hipscope_mm::{Scope, Space, Value, ValueType};

/// Threads whose thread numbers agree after division by this share a wavefront, unless the
/// test says `wave W`. 64 is CDNA's wave size; RDNA tests can name waves explicitly.
const WAVE_SIZE: u32 = 64;

/// Parses a whole HIP-dialect file.
pub fn parse(source: &str) -> ParseResult<Litmus> {
    let mut cur = Cursor::new(source);
    let name = header(&mut cur, source)?;
    let mut globals = Globals::default();
    let mut threads = Vec::new();
    while !at_final(&mut cur)? {
        let mut probe = cur.clone();
        match probe.ident() {
            Some("thread") if threads.len() >= MAX_THREADS => return Err(cur.error(format!("more than {MAX_THREADS} threads; a litmus test has a handful"))),
            Some("thread") => {
                cur = probe;
                let t = thread(&mut cur, &globals, &threads)?;
                threads.push(t);
            }
            Some("__global__") => {
                return Err(cur.error("`__global__` kernels are not litmus threads: write each thread as `thread T0 @ block 0, thread 0 { … }`"))
            }
            _ => declaration(&mut cur, &mut globals)?,
        }
    }
    if threads.is_empty() {
        return Err(cur.error("the test has no threads: add `thread T0 @ block 0, thread 0 { … }` before the condition"));
    }
    for loc in threads.iter().flat_map(|t| &t.wrapped) {
        if let Some(l) = globals.locations.get_mut(loc.0 as usize) {
            l.atomic_type = true;
        }
    }
    let placements = place(&threads)?;
    let threads: Vec<Thread> = threads.into_iter().zip(placements).map(|(t, p)| Thread { placement: p, ..t.thread }).collect();
    let fin = final_part(&mut cur, &threads, &globals)?;
    Ok(Litmus {
        name,
        dialect: Dialect::Hip,
        locations: globals.locations,
        threads,
        condition: fin.condition,
        filter: fin.filter,
        observed: fin.observed,
        marks: Default::default(),
    })
}

/// `HIP <name>`: the name is the rest of the first line.
fn header(cur: &mut Cursor<'_>, source: &str) -> ParseResult<String> {
    cur.skip_blank();
    if cur.ident() != Some("HIP") {
        return Err(cur.error("a HIP-dialect file starts with `HIP` and the test name"));
    }
    while cur.peek().is_some_and(|c| c == ' ' || c == '\t') {
        cur.bump();
    }
    let span = cur.span();
    let start = cur.offset();
    while cur.peek().is_some_and(|c| c != '\n') && !cur.rest().starts_with("//") && !cur.rest().starts_with("/*") {
        cur.bump();
    }
    let name = source.get(start..cur.offset()).unwrap_or("").trim();
    if name.is_empty() {
        return Err(SyntaxError::new(span, "expected the test name after `HIP` on the first line"));
    }
    Ok(name.to_string())
}

/// Does the final part (`exists`, `~exists`, `forall`, `filter`, `locations`) start here?
/// The end of the file before it is an error.
fn at_final(cur: &mut Cursor<'_>) -> ParseResult<bool> {
    cur.skip_blank();
    if cur.at_end() {
        return Err(cur.error("missing final condition: end the test with `exists (…)`, `~exists (…)` or `forall (…)`"));
    }
    let mut probe = cur.clone();
    Ok(cur.rest().starts_with('~') || matches!(probe.ident(), Some("exists" | "forall" | "filter" | "locations")))
}

/// An identifier with `::` qualifiers (`cuda::thread_scope_block`), as one string.
pub(super) fn qualified(cur: &mut Cursor<'_>) -> Option<String> {
    let mut name = cur.ident()?.to_string();
    loop {
        let mut probe = cur.clone();
        if probe.eat("::") {
            if let Some(next) = probe.ident() {
                name.push_str("::");
                name.push_str(next);
                *cur = probe;
                continue;
            }
        }
        return Some(name);
    }
}

/// The shared locations declared so far.
#[derive(Default)]
pub(super) struct Globals {
    pub locations: Vec<Location>,
    /// The scope of each `cuda::atomic<int, scope>` location, whose `.load()`/`.store()`
    /// and plain reads and writes are seq_cst atomics at that scope; `None` for `int`.
    pub atomic_scope: Vec<Option<Scope>>,
}

impl Globals {
    pub fn find(&self, name: &str) -> Option<LocId> {
        self.locations.iter().position(|l| l.name == name).map(|i| LocId(i as u16))
    }

    pub fn scope_of(&self, loc: LocId) -> Option<Scope> {
        self.atomic_scope.get(loc.0 as usize).copied().flatten()
    }

    /// The declared type of `loc`.
    pub fn type_of(&self, loc: LocId) -> ValueType {
        self.locations.get(loc.0 as usize).map_or(ValueType::INT, |l| l.ty)
    }

    /// An access to the whole of `loc` (8 bytes for a 64-bit type).
    pub fn target(&self, loc: LocId) -> Target {
        Target::whole(loc, self.type_of(loc))
    }
}

/// The `;` that ends a declaration or statement. A missing one is reported right after
/// the last token, where the compiler would put it, not at the next line's token.
pub(super) fn semicolon(cur: &mut Cursor<'_>) -> ParseResult<()> {
    let end = cur.span();
    if cur.eat(";") {
        return Ok(());
    }
    Err(SyntaxError::new(end, format!("expected `;` here, found {}", cur.describe_next())))
}

/// After a declarator: `,` (another follows) or the closing `;`.
pub(super) fn more_declarators(cur: &mut Cursor<'_>) -> ParseResult<bool> {
    let end = cur.span();
    if cur.eat(",") {
        return Ok(true);
    }
    if cur.eat(";") {
        return Ok(false);
    }
    Err(SyntaxError::new(end, format!("expected `;` here, found {}", cur.describe_next())))
}

/// `__device__ int x = 0, y;`, `__shared__ int s;`, `__device__ cuda::atomic<int,
/// cuda::thread_scope_device> f;`.
fn declaration(cur: &mut Cursor<'_>, globals: &mut Globals) -> ParseResult<()> {
    let space = qualifiers(cur)?;
    let (atomic_scope, ty) = location_type(cur)?;
    loop {
        cur.skip_blank();
        let span = cur.span();
        let name = cur.expect_ident("a location name")?;
        check_new_location(globals, name, span)?;
        if globals.locations.len() >= MAX_LOCATIONS {
            return Err(SyntaxError::new(span, format!("more than {MAX_LOCATIONS} locations; a litmus test has a handful")));
        }
        if cur.looking_at("[") {
            return Err(cur.error("arrays are not supported: declare one location per element (`__device__ int a0, a1;`)"));
        }
        let init = initial_value(cur, ty, name)?;
        globals.locations.push(Location { name: name.to_string(), space, init, ty, atomic_type: atomic_scope.is_some() });
        globals.atomic_scope.push(atomic_scope);
        if !more_declarators(cur)? {
            return Ok(());
        }
    }
}

/// `= v`, `{v}` or nothing (0), converted to the location's type `ty`.
fn initial_value(cur: &mut Cursor<'_>, ty: ValueType, name: &str) -> ParseResult<Value> {
    if expr::eat_op(cur, "=") {
        return types::initial(cur, ty, name);
    }
    if cur.eat("{") {
        let v = types::initial(cur, ty, name)?;
        cur.expect("}")?;
        return Ok(v);
    }
    Ok(0)
}

fn check_new_location(globals: &Globals, name: &str, span: Span) -> ParseResult<()> {
    if globals.find(name).is_some() {
        return Err(SyntaxError::new(span, format!("location `{name}` is declared twice")));
    }
    if stmt::is_keyword(name) {
        return Err(SyntaxError::new(span, format!("`{name}` is a keyword, not a location name")));
    }
    Ok(())
}

/// `__device__`, `__shared__`, `volatile`, `static`: the memory space they select.
fn qualifiers(cur: &mut Cursor<'_>) -> ParseResult<Space> {
    let mut space = Space::Global;
    loop {
        let mut probe = cur.clone();
        match probe.ident() {
            Some("__device__" | "volatile" | "static") => {}
            Some("__shared__") => space = Space::Local,
            Some("__constant__") => {
                return Err(cur.error("`__constant__` memory is read-only on the device; litmus locations are `__device__` or `__shared__`"))
            }
            Some("extern") => return Err(cur.error("`extern` declarations are not supported; give each location a definition")),
            _ => return Ok(space),
        }
        *cur = probe;
    }
}

/// `int`-like, or `cuda::atomic<T[, scope]>` / `std::atomic<T>`: the scope of an atomic
/// type, and the integer type.
fn location_type(cur: &mut Cursor<'_>) -> ParseResult<(Option<Scope>, ValueType)> {
    cur.skip_blank();
    let span = cur.span();
    let mut probe = cur.clone();
    let Some(word) = qualified(&mut probe) else {
        return Err(cur.error(expected_item(&cur.describe_next())));
    };
    if !vocab::is_library_type(&word, "atomic") {
        if int_type_word(&word).is_none() {
            return Err(SyntaxError::new(span, expected_item(&format!("`{word}`"))));
        }
        return Ok((None, int_type(cur)?));
    }
    *cur = probe;
    cur.expect("<")?;
    let ty = int_type(cur)?;
    let scope = if cur.eat(",") { stmt::scope_name(cur, vocab::cxx_scope)? } else { Scope::System };
    cur.expect(">")?;
    Ok((Some(scope), ty))
}

fn expected_item(found: &str) -> String {
    format!("expected a declaration (`__device__ int x = 0;`), a thread (`thread T0 @ block 0, thread 0 {{ … }}`) or the final condition (`exists (…)`), found {found}")
}

/// A thread as parsed, before work-group and wave ids are assigned across threads.
struct Parsed {
    thread: Thread,
    device: u32,
    block: u32,
    lane: u32,
    wave: Option<u32>,
    xcd: Option<u32>,
    /// Locations this thread wraps in an `atomic_ref`.
    wrapped: Vec<LocId>,
}

/// `@ host`: the thread runs on the host CPU, an agent of its own ([`HOST_AGENT`]).
fn host_placement(cur: &mut Cursor<'_>) -> bool {
    let mut probe = cur.clone();
    probe.skip_blank();
    if probe.expect_ident("").ok() == Some("host") {
        *cur = probe;
        return true;
    }
    false
}

/// `thread NAME @ block B, thread T[, wave W][, device D][, xcd X] { … }`, or
/// `thread NAME @ host { … }` for a thread of the host program.
fn thread(cur: &mut Cursor<'_>, globals: &Globals, earlier: &[Parsed]) -> ParseResult<Parsed> {
    cur.skip_blank();
    let span = cur.span();
    let name = cur.expect_ident("a thread name (`T0`)")?.to_string();
    if earlier.iter().any(|t| t.thread.name == name) {
        return Err(SyntaxError::new(span, format!("there is already a thread named `{name}`; the condition names threads by name")));
    }
    cur.expect("@")?;
    if host_placement(cur) {
        if !cur.eat("{") {
            return Err(cur.error(format!("expected `{{` and the host thread's body after `@ host`, found {}", cur.describe_next())));
        }
        let body = stmt::thread_body(cur, globals)?;
        let placement = Placement { agent: HOST_AGENT, workgroup: 0, wave: 0, xcd: None };
        let thread = Thread { name, placement, regs: body.regs, reg_types: body.reg_types, reg_init: Vec::new(), body: body.stmts, span, lane: None };
        // A block of its own: no GPU thread shares its work-group or wave.
        let block = u32::MAX - earlier.len() as u32;
        return Ok(Parsed { thread, device: HOST_AGENT, block, lane: 0, wave: None, xcd: None, wrapped: body.wrapped });
    }
    let fields = placement_fields(cur)?;
    let [device, block, lane, wave, xcd] = fields.map(|f| f.map(|(v, _)| v));
    let Some(block) = block else {
        return Err(SyntaxError::new(span, "the placement needs `block B` (`thread T0 @ block 0, thread 0 { … }`)"));
    };
    check_position(&fields)?;
    if !cur.eat("{") {
        return Err(cur.error(format!("expected `,` and another placement, or `{{` and the thread's body, found {}", cur.describe_next())));
    }
    let body = stmt::thread_body(cur, globals)?;
    let placement = Placement { agent: 0, workgroup: 0, wave: 0, xcd: None };
    let lane = lane.unwrap_or(0);
    let thread = Thread { name, placement, regs: body.regs, reg_types: body.reg_types, reg_init: Vec::new(), body: body.stmts, span, lane: Some(lane) };
    Ok(Parsed { thread, device: device.unwrap_or(0), block, lane, wave, xcd, wrapped: body.wrapped })
}

const FIELDS: [&str; 5] = ["device", "block", "thread", "wave", "xcd"];

/// Work-items in a block on every AMD GPU (AMDGPUUsage: the default and largest
/// `amdgpu-flat-work-group-size`; HIP's `maxThreadsPerBlock`).
const MAX_BLOCK_THREADS: u64 = hipscope_isa::codeobj::limits::MAX_WORKGROUP_ITEMS;

/// Wave sizes AMD GPUs run: 64 (GCN, CDNA; RDNA in wave64 mode) and 32 (RDNA's default).
const WAVE_SIZES: [u32; 2] = [64, 32];

/// A placement no AMD GPU can have is an error: a thread number beyond the largest block,
/// or a `wave` that holds the thread under neither wave size. (Which of the two wave sizes
/// applies, and whether the GPU has the XCD named, depends on the GPU: the hardware layer
/// checks that for each GPU it runs the test on.)
fn check_position(fields: &[Option<(u32, Span)>; 5]) -> ParseResult<()> {
    let [_, _, lane, wave, _] = fields;
    if let Some((lane, at)) = lane {
        if u64::from(*lane) >= MAX_BLOCK_THREADS {
            return Err(SyntaxError::new(
                *at,
                format!("thread {lane} is outside every block: a HIP block has at most {MAX_BLOCK_THREADS} threads (0 to {})", MAX_BLOCK_THREADS - 1),
            ));
        }
    }
    let Some((wave, at)) = wave else { return Ok(()) };
    let lane = lane.map_or(0, |(l, _)| l);
    if WAVE_SIZES.iter().any(|size| lane / size == *wave) {
        return Ok(());
    }
    Err(SyntaxError::new(
        *at,
        format!(
            "thread {lane} cannot be in wave {wave}: it is in wave {} with 64-wide waves and in wave {} with 32-wide ones (a wave holds threads {} to {}, or {} to {})",
            lane / 64,
            lane / 32,
            64 * wave,
            64 * wave + 63,
            32 * wave,
            32 * wave + 31
        ),
    ))
}

/// The comma-separated `key value` pairs after `@`, in [`FIELDS`] order, with where each
/// value is.
fn placement_fields(cur: &mut Cursor<'_>) -> ParseResult<[Option<(u32, Span)>; 5]> {
    let mut out = [None; 5];
    loop {
        cur.skip_blank();
        let span = cur.span();
        let key = cur.expect_ident("a placement (`block`, `thread`, `wave`, `device` or `xcd`)")?;
        let Some(i) = FIELDS.iter().position(|f| *f == key) else {
            return Err(SyntaxError::new(span, unknown_field(key)));
        };
        if out[i].is_some() {
            return Err(SyntaxError::new(span, format!("`{key}` is given twice in this placement")));
        }
        cur.skip_blank();
        let at = cur.span();
        let value = cur.expect_integer(&format!("the {key} number"))?;
        let value = u32::try_from(value).map_err(|_| SyntaxError::new(at, format!("the {key} number must be between 0 and {}", u32::MAX)))?;
        out[i] = Some((value, at));
        if !cur.eat(",") {
            return Ok(out);
        }
    }
}

fn unknown_field(key: &str) -> String {
    let hint = match key {
        "wg" | "workgroup" | "cta" => " (HIP calls a work-group a `block`)",
        "blockIdx" => " (write `block B`)",
        "warp" | "wavefront" => " (write `wave W`)",
        "lane" | "threadIdx" | "tid" => " (write `thread T`, the thread's number in its block)",
        "agent" | "gpu" | "dev" => " (write `device D`)",
        _ => "",
    };
    format!("`{key}` is not a placement: use `block B`, `thread T`, `wave W`, `device D` or `xcd X`{hint}")
}

/// Numbers work-groups per (device, block) and waves per (device, block, wave) in order of
/// first appearance; checks that no two threads share a slot and that a work-group runs on
/// one XCD.
fn place(threads: &[Parsed]) -> ParseResult<Vec<Placement>> {
    let mut groups: Vec<(u32, u32)> = Vec::new();
    let mut waves: Vec<(u32, u32, u32)> = Vec::new();
    let mut out = Vec::new();
    for (i, t) in threads.iter().enumerate() {
        check_slot(threads, i)?;
        let wg = intern(&mut groups, (t.device, t.block));
        let wave = intern(&mut waves, (t.device, t.block, t.wave.unwrap_or(t.lane / WAVE_SIZE)));
        out.push(Placement { agent: t.device, workgroup: wg, wave, xcd: block_xcd(threads, i)? });
    }
    Ok(out)
}

fn intern<K: PartialEq>(table: &mut Vec<K>, key: K) -> u32 {
    match table.iter().position(|k| *k == key) {
        Some(i) => i as u32,
        None => {
            table.push(key);
            table.len() as u32 - 1
        }
    }
}

fn check_slot(threads: &[Parsed], i: usize) -> ParseResult<()> {
    let t = &threads[i];
    match threads[..i].iter().find(|o| (o.device, o.block, o.lane) == (t.device, t.block, t.lane)) {
        Some(o) => Err(SyntaxError::new(
            t.thread.span,
            format!(
                "threads `{}` and `{}` are both thread {} of block {} (device {}); give them different `thread` numbers",
                o.thread.name, t.thread.name, t.lane, t.block, t.device
            ),
        )),
        None => Ok(()),
    }
}

/// A work-group runs on one XCD: an `xcd` given on any of its threads applies to all.
fn block_xcd(threads: &[Parsed], i: usize) -> ParseResult<Option<u32>> {
    let t = &threads[i];
    let mut xcd = None;
    for o in threads.iter().filter(|o| (o.device, o.block) == (t.device, t.block)) {
        match (xcd, o.xcd) {
            (Some(a), Some(b)) if a != b => {
                return Err(SyntaxError::new(o.thread.span, format!("block {} cannot run on XCD {a} and XCD {b}: a work-group runs on one XCD", t.block)));
            }
            (None, Some(b)) => xcd = Some(b),
            _ => {}
        }
    }
    Ok(xcd)
}

/// The final part, over thread names/indices and location names. A register the thread
/// never declared is an error here (a typo would otherwise read as 0).
fn final_part(cur: &mut Cursor<'_>, threads: &[Thread], globals: &Globals) -> ParseResult<condition::Final> {
    let start = cur.clone();
    let mut names = FinalNames { threads, globals, missing: None, bare_local: None };
    let fin = condition::parse_final(cur, &mut names).map_err(|e| match names.bare_local.take() {
        Some((name, thread)) => SyntaxError::new(e.span, format!("`{name}` is a local variable: name it with its thread (`{thread}:{name}`)")),
        None => e,
    })?;
    if let Some((thread, reg)) = names.missing {
        let text = format!("{thread}:{reg}");
        let at = start.rest().find(&text).map_or(start.span(), |off| span_after(&start, off));
        let tname = thread_named(threads, &thread).map_or(thread.as_str(), |i| threads[i].name.as_str());
        return Err(SyntaxError::new(at, format!("thread `{tname}` has no local variable `{reg}`")));
    }
    check_shared_terms(&fin, threads, globals, start.span())?;
    Ok(fin)
}

/// A `__shared__` location has one copy per block, and the condition's `s` cannot say
/// which: allowed only when a single block uses it.
fn check_shared_terms(fin: &condition::Final, threads: &[Thread], globals: &Globals, at: Span) -> ParseResult<()> {
    let mut terms = fin.observed.clone();
    for prop in fin.filter.iter().chain(fin.condition.as_ref().map(|c| &c.prop)) {
        prop_terms(prop, &mut terms);
    }
    for term in terms {
        let Term::Loc { loc, .. } = term else { continue };
        let Some(l) = globals.locations.get(loc.0 as usize).filter(|l| l.space == Space::Local) else { continue };
        let mut blocks: Vec<u32> = threads.iter().filter(|t| accesses(&t.body, loc)).map(|t| t.placement.workgroup).collect();
        blocks.sort_unstable();
        blocks.dedup();
        if blocks.len() > 1 {
            return Err(SyntaxError::new(
                at,
                format!(
                    "`{}` is `__shared__`: each block has its own copy, so the condition cannot name it; read it into a local (`int r = {};`) and name that",
                    l.name, l.name
                ),
            ));
        }
    }
    Ok(())
}

fn prop_terms(prop: &Prop, out: &mut Vec<Term>) {
    match prop {
        Prop::True | Prop::False => {}
        Prop::Cmp(a, _, b) => out.extend([*a, *b]),
        Prop::Not(p) => prop_terms(p, out),
        Prop::And(a, b) | Prop::Or(a, b) | Prop::Implies(a, b) => {
            prop_terms(a, out);
            prop_terms(b, out);
        }
    }
}

/// Does any statement (in any branch) access `loc`?
fn accesses(body: &[Stmt], loc: LocId) -> bool {
    body.iter().any(|s| match s {
        Stmt::Load { target, .. } | Stmt::Store { target, .. } | Stmt::Rmw { target, .. } | Stmt::Cas { target, .. } => target.loc == loc,
        Stmt::If { then, otherwise, .. } => accesses(then, loc) || accesses(otherwise, loc),
        Stmt::Fence { .. } | Stmt::Barrier { .. } | Stmt::Assign { .. } | Stmt::Label { .. } | Stmt::Goto { .. } => false,
    })
}

/// The position `off` bytes after `from`.
fn span_after(from: &Cursor<'_>, off: usize) -> Span {
    let mut c = from.clone();
    let end = from.offset() + off;
    while c.offset() < end && c.bump().is_some() {}
    c.span()
}

fn thread_named(threads: &[Thread], name: &str) -> Option<usize> {
    match name.parse::<usize>() {
        Ok(i) if i < threads.len() => Some(i),
        Ok(_) => None,
        Err(_) => threads.iter().position(|t| t.name == name),
    }
}

struct FinalNames<'t> {
    threads: &'t [Thread],
    globals: &'t Globals,
    missing: Option<(String, String)>,
    /// A location name that is really some thread's local (`r0` for `T1:r0`), with that
    /// thread's name, for a better message than "not a location".
    bare_local: Option<(String, String)>,
}

impl Names for FinalNames<'_> {
    fn register(&mut self, thread: &str, reg: &str) -> Result<(u16, RegId), String> {
        let Some(t) = thread_named(self.threads, thread) else {
            return Err(format!("the condition names thread `{thread}`, which the test does not have"));
        };
        match self.threads[t].regs.iter().position(|r| r == reg) {
            Some(r) => Ok((t as u16, RegId(r as u16))),
            None => {
                self.missing.get_or_insert((thread.to_string(), reg.to_string()));
                Ok((t as u16, RegId(0)))
            }
        }
    }

    fn value_type(&mut self, term: &Term) -> ValueType {
        match term {
            Term::Reg { thread, reg } => self.threads.get(*thread as usize).map_or(ValueType::INT, |t| t.reg_type(*reg)),
            Term::Loc { loc, .. } => self.globals.type_of(*loc),
            Term::Const(v) => ValueType::of_literal(*v),
        }
    }

    fn location(&mut self, name: &str) -> Option<LocId> {
        let found = self.globals.find(name);
        if found.is_none() {
            let owner = self.threads.iter().find(|t| t.regs.iter().any(|r| r == name));
            self.bare_local = owner.map(|t| (name.to_string(), t.name.clone()));
        }
        found
    }
}
