//! Words and pictures for a verdict: each event in one line, the rule a race breaks in one
//! sentence, a witness execution as a linear interleaving and as a Graphviz graph.

use std::fmt::Write as _;

pub mod stuck;

use crate::litmus::Litmus;

use crate::model::event::{Event, Kind};
use crate::model::execution::Execution;
use crate::model::relation::Rel;
use crate::model::scoped::Context;
use crate::model::{Model, Race, RaceKind};
use hipscope_mm::{Access, Order, Scope};

pub fn scope_name(s: Scope) -> &'static str {
    match s {
        Scope::WorkItem => "work-item",
        Scope::Wavefront => "wavefront",
        Scope::Workgroup => "workgroup",
        Scope::Agent => "agent",
        Scope::System => "system",
    }
}

pub fn order_name(o: Order) -> &'static str {
    match o {
        Order::Relaxed => "relaxed",
        Order::Acquire => "acquire",
        Order::Release => "release",
        Order::AcqRel => "acq_rel",
        Order::SeqCst => "seq_cst",
    }
}

fn access_words(a: Access) -> String {
    match a {
        Access::Plain => "plain".into(),
        Access::Atomic { order, scope } => format!("atomic {} {}", order_name(order), scope_name(scope)),
    }
}

/// The thread's name and where it runs, e.g. `P1 (work-group 1)`.
pub fn thread_words(test: &Litmus, thread: u16) -> String {
    match test.threads.get(thread as usize) {
        Some(t) => format!("{} (work-group {}, wave {})", t.name, t.placement.workgroup, t.placement.wave),
        None => "init".into(),
    }
}

/// One event in one line: `P0 line 5:3: store x = 1 (atomic release workgroup)`.
pub fn describe(test: &Litmus, e: &Event) -> String {
    let thread = test.threads.get(e.thread as usize).map_or("init", |t| t.name.as_str());
    let loc = |e: &Event| e.cell().and_then(|c| test.locations.get(c.loc.0 as usize)).map_or("?", |l| l.name.as_str());
    let what = match &e.kind {
        Kind::Read { access, value, .. } => format!("load {} = {value} ({})", loc(e), access_words(*access)),
        Kind::Write { value, .. } if e.is_init() => format!("{} starts at {value}", loc(e)),
        Kind::Write { access, value, .. } => format!("store {} = {value} ({})", loc(e), access_words(*access)),
        Kind::Rmw { access, read, written, .. } => format!("rmw {}: {read} → {written} ({})", loc(e), access_words(*access)),
        Kind::Fence { order, scope, .. } => format!("fence {} {}", order_name(*order), scope_name(*scope)),
        Kind::Barrier { key, .. } => format!("barrier {key}"),
    };
    if e.is_init() {
        what
    } else {
        format!("{thread} line {}:{}: {what}", e.span.line, e.span.column)
    }
}

/// The rule a race breaks, in one sentence a student can act on.
pub fn race_rule(test: &Litmus, model: Model, race: &Race) -> String {
    let (a, b) = race.events();
    let thread = |e: &Event| thread_words(test, e.thread);
    match race.kind {
        RaceKind::Data => {
            let plain = if a.is_atomic() { b } else { a };
            let other = if std::ptr::eq(plain, a) { b } else { a };
            format!(
                "the access at line {} of {} is not atomic, and happens-before does not order it with the conflicting \
                 access at line {} of {}: no release/acquire pair, fence or barrier whose scope includes both threads \
                 connects them (a data race; the program is undefined)",
                plain.span.line,
                thread(plain),
                other.span.line,
                thread(other)
            ) + &barrier_note(test, race)
        }
        RaceKind::MixedSize => {
            format!("atomic accesses of different sizes overlap (lines {} and {}): they are not atomic with respect to each other", a.span.line, b.span.line)
        }
        RaceKind::Scope => scope_rule(test, model, a, b),
    }
}

/// When both racing threads pass a barrier but run in different work-groups, the usual
/// mistake: `__syncthreads()` / `barrier()` orders one work-group only.
fn barrier_note(test: &Litmus, race: &Race) -> String {
    let (a, b) = race.events();
    let passes_barrier = |thread: u16| race.execution.events.iter().any(|e| e.thread == thread && matches!(e.kind, Kind::Barrier { .. }));
    let group = |thread: u16| test.threads.get(thread as usize).map(|t| t.placement.workgroup);
    match (group(a.thread), group(b.thread)) {
        (Some(ga), Some(gb)) if ga != gb && passes_barrier(a.thread) && passes_barrier(b.thread) => {
            format!("; a barrier synchronizes the threads of one work-group only, and these run in work-groups {ga} and {gb}")
        }
        _ => String::new(),
    }
}

fn scope_rule(test: &Litmus, model: Model, a: &Event, b: &Event) -> String {
    let placement = |e: &Event| test.threads.get(e.thread as usize).map(|t| t.placement);
    let (Some((_, sa)), Some((_, sb)), Some(pa), Some(pb)) = (a.order_scope(), b.order_scope(), placement(a), placement(b)) else {
        return "the two atomic accesses are not at scopes that include each other".into();
    };
    let kind = |e: &Event| {
        if e.writes() && !e.reads() {
            "store"
        } else if e.reads() && !e.writes() {
            "load"
        } else {
            "read-modify-write"
        }
    };
    let outside = |e: &Event, s: Scope, other: &Event| {
        format!(
            "the {} at line {} of {} is {}-scope; {} is outside it",
            kind(e),
            e.span.line,
            test.threads[e.thread as usize].name,
            scope_name(s),
            thread_words(test, other.thread)
        )
    };
    if !pa.shares(&pb, sa) {
        outside(a, sa, b)
    } else if !pb.shares(&pa, sb) {
        outside(b, sb, a)
    } else if model == Model::Opencl {
        format!(
            "OpenCL needs both atomics to name the same scope: line {} is {}-scope, line {} is {}-scope",
            a.span.line,
            scope_name(sa),
            b.span.line,
            scope_name(sb)
        )
    } else {
        "the two atomic accesses are not at scopes that include each other".into()
    }
}

/// The execution as one interleaving: events in an order that respects program order and,
/// where the execution allows, reads-from and coherence; each read says which write it read.
pub fn interleaving(test: &Litmus, x: &Execution) -> String {
    let order = linear_order(x);
    let mut out = String::new();
    for (step, e) in order.iter().filter(|e| !x.events[**e].is_init()).enumerate() {
        let ev = &x.events[*e];
        let mut line = format!("{:>3}. {}", step + 1, describe(test, ev));
        if let Some(w) = x.rf_source[*e] {
            let source = &x.events[w];
            let from = if source.is_init() {
                "the initial value".to_string()
            } else {
                format!("{}'s store at line {}", test.threads[source.thread as usize].name, source.span.line)
            };
            let _ = write!(line, "   ← reads {from}");
        }
        let _ = writeln!(out, "{line}");
    }
    out
}

/// A topological order of po ∪ rf ∪ co when that is acyclic (a sequentially consistent
/// explanation exists), else of po alone with each thread's next event taken round-robin.
fn linear_order(x: &Execution) -> Vec<usize> {
    let n = x.n();
    let strong = x.po.union(&x.rf).union(&x.co);
    let order_by = if strong.is_acyclic() { strong } else { x.po.clone() };
    topological(n, &order_by)
}

fn topological(n: usize, r: &Rel) -> Vec<usize> {
    let mut placed = vec![false; n];
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let next = (0..n).find(|b| !placed[*b] && (0..n).all(|a| placed[a] || a == *b || !r.has(a, *b)));
        match next {
            Some(b) => {
                placed[b] = true;
                out.push(b);
            }
            None => {
                // A cycle (cannot happen for po): place the rest in index order.
                out.extend((0..n).filter(|b| !placed[*b]));
                break;
            }
        }
    }
    out
}

/// The execution as a Graphviz graph: one cluster per thread, edges po (black), rf (red),
/// co (blue), fr (orange, dashed), sw under `model` (green) and each race (purple, bold).
pub fn dot(test: &Litmus, model: Model, x: &Execution, races: &[(usize, usize)]) -> String {
    let sw = Context::new(test, model).judge(x).ok().map(|d| d.sw);
    let mut g = String::new();
    let _ = writeln!(g, "digraph \"{}\" {{", test.name.replace('"', "'"));
    let _ = writeln!(g, "  node [shape=box, fontname=\"monospace\"];");
    let label = |e: usize| describe(test, &x.events[e]).replace('"', "'");
    let inits: Vec<usize> = (0..x.n()).filter(|e| x.events[*e].is_init()).collect();
    let _ = writeln!(g, "  subgraph cluster_init {{ label=\"initial values\"; style=dotted;");
    for e in &inits {
        let _ = writeln!(g, "    e{e} [label=\"{}\"];", label(*e));
    }
    let _ = writeln!(g, "  }}");
    for t in 0..test.threads.len() {
        let _ = writeln!(g, "  subgraph cluster_t{t} {{ label=\"{}\";", thread_words(test, t as u16));
        for e in (0..x.n()).filter(|e| x.events[*e].thread == t as u16) {
            let _ = writeln!(g, "    e{e} [label=\"{}\"];", label(e));
        }
        let _ = writeln!(g, "  }}");
    }
    let immediate_po = x.po.minus(&x.po.then(&x.po));
    let edges: [(&str, &Rel, &str); 4] = [("po", &immediate_po, "black"), ("rf", &x.rf, "red"), ("co", &immediate(&x.co), "blue"), ("fr", &x.fr(), "orange")];
    for (name, rel, color) in edges {
        for (a, b) in rel.pairs() {
            if name == "co" && x.events[a].is_init() {
                continue;
            }
            let style = if name == "fr" { ", style=dashed" } else { "" };
            let _ = writeln!(g, "  e{a} -> e{b} [label=\"{name}\", color={color}, fontcolor={color}{style}];");
        }
    }
    if let Some(sw) = &sw {
        for (a, b) in sw.pairs() {
            let _ = writeln!(g, "  e{a} -> e{b} [label=\"sw\", color=darkgreen, fontcolor=darkgreen];");
        }
    }
    for (a, b) in races {
        let _ = writeln!(g, "  e{a} -> e{b} [label=\"race\", color=purple, fontcolor=purple, style=bold, dir=both];");
    }
    let _ = writeln!(g, "}}");
    g
}

/// The covering pairs of a transitive order (`r \ r;r`).
fn immediate(r: &Rel) -> Rel {
    r.minus(&r.then(r))
}
