//! The top-level modules of hipscope-sim form a DAG, in the layering ARCHITECTURE.md documents.
//!
//! Every file under `src/` belongs to the top-level module its path starts with (`src/exec/
//! vmem/flat.rs` to `exec`); every `crate::name` path in its code (comments and literals
//! stripped, test code included) that names another top-level module is an edge. Two checks
//! read that graph: no strongly connected component holds more than one module (a cycle), and
//! every edge points down the documented layering. Both fail with the file:line of every
//! offending edge, so the message says which `use` to move.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The layering, lowest first: a module may name only modules of lower layers (those of one
/// layer are independent of each other). Keep in step with ARCHITECTURE.md, "Inside `sim`".
const LAYERS: &[&[&str]] = &[
    &["fault", "backing", "counters", "gpus", "mode"],
    &["wave", "sparse", "node", "sample"],
    &["memory", "progress"],
    &["host", "memsys", "exec"],
    &["kernel"],
    &["observe", "dispatch", "scratch"],
    &["sched"],
    &["engine", "timing"],
    &["launch"],
    &["spec", "fuzzing", "cosim"],
    &["testing"],
];

/// One `crate::to` path found in the code of module `from`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Edge {
    from: String,
    to: String,
    file: String,
    line: usize,
}

impl std::fmt::Display for Edge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} -> {} ({}:{})", self.from, self.to, self.file, self.line)
    }
}

/// Replaces comments, string/char literals and their contents by spaces, keeping newlines so
/// that byte offsets still map to the same line. Lifetimes (`'a`) are left alone.
fn strip(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        let start = i;
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            blank(&mut out, start, i);
        } else if b[i..].starts_with(b"/*") {
            // Block comments nest in Rust.
            let mut depth = 0usize;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            blank(&mut out, start, i.min(b.len()));
        } else if let Some(end) = raw_string_end(b, i) {
            blank(&mut out, start, end);
            i = end;
        } else if b[i] == b'"' && !ident_byte_before(b, i, b'b') {
            i = quoted_end(b, i + 1, b'"');
            blank(&mut out, start, i);
        } else if b[i] == b'b' && b.get(i + 1) == Some(&b'"') && !ident_byte_before(b, i, 0) {
            i = quoted_end(b, i + 2, b'"');
            blank(&mut out, start, i);
        } else if b[i] == b'\'' {
            // A char literal closes within a few bytes ('x', '\n', '\u{1F600}'); a lifetime
            // or loop label does not.
            match char_literal_end(b, i) {
                Some(end) => {
                    blank(&mut out, start, end);
                    i = end;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// True when the byte before `i` continues an identifier (so `i` is not a token start);
/// `allowed` is a prefix byte that does not count (the `b` of `b"..."`).
fn ident_byte_before(b: &[u8], i: usize, allowed: u8) -> bool {
    i > 0 && {
        let p = b[i - 1];
        p != allowed && (p.is_ascii_alphanumeric() || p == b'_')
    }
}

/// The index after the closing `quote` of a literal whose body starts at `i`.
fn quoted_end(b: &[u8], mut i: usize, quote: u8) -> usize {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// The end of a raw string (`r"…"`, `r#"…"#`, `br#"…"#`) starting at `i`, if one does.
fn raw_string_end(b: &[u8], i: usize) -> Option<usize> {
    if ident_byte_before(b, i, 0) {
        return None;
    }
    let mut j = i;
    if b.get(j) == Some(&b'b') {
        j += 1;
    }
    if b.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let hashes = b[j..].iter().take_while(|&&c| c == b'#').count();
    j += hashes;
    if b.get(j) != Some(&b'"') {
        return None;
    }
    j += 1;
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', hashes));
    while j < b.len() {
        if b[j..].starts_with(&close) {
            return Some(j + close.len());
        }
        j += 1;
    }
    Some(b.len())
}

/// The end of a char literal starting at the `'` at `i`, or `None` for a lifetime or label.
fn char_literal_end(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i + 1) == Some(&b'\\') {
        let close = b[i + 2..].iter().take(12).position(|&c| c == b'\'')?;
        return Some(i + 2 + close + 1);
    }
    // One UTF-8 character, then the closing quote.
    let len = match *b.get(i + 1)? {
        c if c < 0x80 => 1,
        c if c >= 0xF0 => 4,
        c if c >= 0xE0 => 3,
        _ => 2,
    };
    (b.get(i + 1 + len) == Some(&b'\'')).then_some(i + 2 + len)
}

/// The top-level module names `crate::` paths in `code` (already stripped) lead to, with the
/// 1-based line of each. `crate::{a, b::c}` yields `a` and `b`.
fn crate_paths(code: &str) -> Vec<(String, usize)> {
    let b = code.as_bytes();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(pos) = code[from..].find("crate") {
        let at = from + pos;
        from = at + "crate".len();
        if ident_byte_before(b, at, 0) {
            continue;
        }
        let rest = skip_ws(b, from);
        if !b[rest..].starts_with(b"::") {
            continue;
        }
        let mut i = skip_ws(b, rest + 2);
        if b.get(i) == Some(&b'{') {
            // A group: the first segment of each element at depth one.
            let mut depth = 0usize;
            let mut expect_name = true;
            while i < b.len() {
                match b[i] {
                    b'{' => {
                        depth += 1;
                        expect_name = depth == 1;
                        i += 1;
                    }
                    b'}' => {
                        depth -= 1;
                        i += 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    b',' => {
                        expect_name = depth == 1;
                        i += 1;
                    }
                    c if c.is_ascii_alphabetic() || c == b'_' => {
                        let end = ident_end(b, i);
                        if expect_name {
                            found.push((code[i..end].to_string(), line_of(code, i)));
                            expect_name = false;
                        }
                        i = end;
                    }
                    _ => i += 1,
                }
            }
        } else {
            let end = ident_end(b, i);
            if end > i {
                found.push((code[i..end].to_string(), line_of(code, at)));
            }
        }
    }
    found
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

fn ident_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    i
}

fn line_of(code: &str, at: usize) -> usize {
    code[..at].bytes().filter(|&c| c == b'\n').count() + 1
}

fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> =
        fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display())).map(|e| e.expect("directory entry").path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|x| x == "rs") {
            into.push(path);
        }
    }
}

/// The top-level module a file under `src` belongs to; `None` for the crate root.
fn module_of(rel: &Path) -> Option<String> {
    let first = rel.components().next()?.as_os_str().to_str()?;
    match first.strip_suffix(".rs") {
        Some("lib") => None,
        Some(name) => Some(name.to_string()),
        None => Some(first.to_string()),
    }
}

/// Every edge between distinct top-level modules of the crate whose sources are in `src`.
fn edges(src: &Path) -> (BTreeSet<String>, Vec<Edge>) {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let rel = |p: &Path| p.strip_prefix(src).expect("under src").to_path_buf();
    let modules: BTreeSet<String> = files.iter().filter_map(|f| module_of(&rel(f))).collect();
    let mut edges = Vec::new();
    for file in &files {
        let Some(from) = module_of(&rel(file)) else { continue };
        let text = fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let shown = Path::new("src").join(rel(file));
        for (to, line) in crate_paths(&strip(&text)) {
            if to != from && modules.contains(&to) {
                let file = shown.display().to_string();
                edges.push(Edge { from: from.clone(), to, file, line });
            }
        }
    }
    edges.sort();
    (modules, edges)
}

/// Tarjan's strongly connected components of the graph on `nodes` with `edges`.
fn components(nodes: &BTreeSet<String>, edges: &[Edge]) -> Vec<Vec<String>> {
    struct State<'a> {
        next: BTreeMap<&'a str, BTreeSet<&'a str>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        let next: Vec<&str> = s.next.get(v).into_iter().flatten().copied().collect();
        for w in next {
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            comp.sort();
            s.out.push(comp);
        }
    }
    let mut next: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for e in edges {
        next.entry(e.from.as_str()).or_default().insert(e.to.as_str());
    }
    let mut s = State { next, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), on_stack: BTreeSet::new(), out: Vec::new() };
    for v in nodes {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

/// One line per cycle (a component of more than one module), each followed by its edges.
fn cycle_report(nodes: &BTreeSet<String>, edges: &[Edge]) -> String {
    let mut report = String::new();
    for comp in components(nodes, edges).into_iter().filter(|c| c.len() > 1) {
        report += &format!("cycle among {{{}}}:\n", comp.join(", "));
        for e in edges.iter().filter(|e| comp.contains(&e.from) && comp.contains(&e.to)) {
            report += &format!("    {e}\n");
        }
    }
    report
}

/// Every edge that points to a module of the same or a higher layer than its source, and every
/// module not placed.
fn layering_report(layers: &[&[&str]], nodes: &BTreeSet<String>, edges: &[Edge]) -> String {
    let layer = |m: &str| layers.iter().position(|l| l.contains(&m));
    let mut report = String::new();
    for m in nodes.iter().filter(|m| layer(m).is_none()) {
        report += &format!("module {m} is in no layer\n");
    }
    for e in edges {
        if let (Some(from), Some(to)) = (layer(&e.from), layer(&e.to)) {
            if to >= from {
                let how = if to == from { "within a layer" } else { "up the layering" };
                report += &format!("edge {how}: {e}\n");
            }
        }
    }
    report
}

fn sim_edges() -> (BTreeSet<String>, Vec<Edge>) {
    edges(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

#[test]
fn top_level_modules_have_no_cycle() {
    let (nodes, edges) = sim_edges();
    let report = cycle_report(&nodes, &edges);
    assert!(report.is_empty(), "module cycles in hipscope-sim:\n{report}");
}

#[test]
fn edges_follow_the_documented_layering() {
    let (nodes, edges) = sim_edges();
    let report = layering_report(LAYERS, &nodes, &edges);
    assert!(report.is_empty(), "hipscope-sim layering (tests/suite/module_graph.rs LAYERS):\n{report}");
}

#[test]
fn every_layered_module_exists() {
    // A stale name in LAYERS would let the list drift away from the crate unnoticed.
    let (nodes, _) = sim_edges();
    for m in LAYERS.iter().flat_map(|l| l.iter()) {
        assert!(nodes.contains(*m), "LAYERS names {m}, which is no module of src/");
    }
}

#[test]
fn strip_blanks_comments_and_literals_but_keeps_lines() {
    let src = "use crate::a; // crate::b\n/* crate::c /* nested */ crate::d */ let s = \"crate::e\";\n\
               let r = r#\"crate::f \"x\"\"#; let c = '\"'; fn f<'a>(x: &'a crate::g::T) {}\n";
    let got: Vec<_> = crate_paths(&strip(src));
    assert_eq!(got, vec![("a".to_string(), 1), ("g".to_string(), 3)]);
    assert_eq!(strip(src).lines().count(), src.lines().count());
}

#[test]
fn groups_yield_the_first_segment_of_each_element() {
    let src = "use crate::{\n    a::X,\n    b::{c::Y, Z},\n    d,\n};\nlet x = crate :: e::f();\n";
    let names: Vec<_> = crate_paths(src).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["a", "b", "d", "e"]);
    // An identifier that merely ends in "crate" is not the keyword.
    assert!(crate_paths("let subcrate::x = 1;").is_empty());
}

fn edge(from: &str, to: &str, line: usize) -> Edge {
    Edge { from: from.into(), to: to.into(), file: format!("src/{from}.rs"), line }
}

#[test]
fn a_cycle_is_reported_with_every_edge_and_a_chain_is_not() {
    let nodes: BTreeSet<String> = ["a", "b", "c", "d"].map(String::from).into();
    let chain = [edge("a", "b", 1), edge("b", "c", 2), edge("a", "c", 3)];
    assert_eq!(cycle_report(&nodes, &chain), "");
    let cyclic = [edge("a", "b", 1), edge("b", "c", 2), edge("c", "a", 3), edge("c", "d", 4)];
    let report = cycle_report(&nodes, &cyclic);
    assert_eq!(
        report,
        "cycle among {a, b, c}:\n    a -> b (src/a.rs:1)\n    b -> c (src/b.rs:2)\n    \
         c -> a (src/c.rs:3)\n"
    );
}

#[test]
fn edges_within_or_up_the_layers_are_reported() {
    let layers: &[&[&str]] = &[&["a"], &["b", "c"]];
    let nodes: BTreeSet<String> = ["a", "b", "c", "d"].map(String::from).into();
    let edges = [edge("b", "a", 1), edge("a", "b", 2), edge("b", "c", 3)];
    assert_eq!(
        layering_report(layers, &nodes, &edges),
        "module d is in no layer\nedge up the layering: a -> b (src/a.rs:2)\n\
         edge within a layer: b -> c (src/b.rs:3)\n"
    );
}
