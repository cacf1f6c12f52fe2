//! No function in the workspace's library and binary sources is longer than 100 lines, except
//! the per-opcode tables listed in [`TABLES`] and generated files. A function's length runs
//! from its `fn` keyword to its closing brace (doc comments and attributes not counted).
//!
//! Sources are parsed with `syn`, so braces in strings, comments or macros do not fool the
//! count; nested functions and trait/impl methods are measured on their own.

use crate::sources;

use std::path::Path;
use syn::visit::Visit;

const MAX_LINES: usize = 100;

/// Crates whose `src/` is checked (the binary's own `src/` is the root entry).
const ROOTS: &[&str] = &["isa/src", "mm/src", "sim/src", "race/src", "grade/src", "hip/src", "studies/src", "sweep/src", "src"];

/// Functions allowed to be longer: one arm per opcode or operand kind, where splitting would
/// scatter a table. Each entry must still be over the limit (the list only shrinks).
const TABLES: &[(&str, &str)] = &[("sim/src/exec/valu/table.rs", "integer"), ("sim/src/exec/valu/table.rs", "float")];

/// Files written by a tool, not by hand.
fn generated(path: &Path) -> bool {
    path.ends_with("isa/src/tables/generated.rs")
}

struct Long {
    file: String,
    name: String,
    line: usize,
    lines: usize,
}

struct Measure<'a> {
    file: &'a str,
    found: Vec<Long>,
}

impl Measure<'_> {
    fn record(&mut self, name: &syn::Ident, from: proc_macro2::Span, to: proc_macro2::Span) {
        let (start, end) = (from.start().line, to.end().line);
        let lines = end + 1 - start;
        if lines > MAX_LINES {
            self.found.push(Long { file: self.file.to_string(), name: name.to_string(), line: start, lines });
        }
    }
}

impl<'ast> Visit<'ast> for Measure<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.record(&f.sig.ident, f.sig.fn_token.span, f.block.brace_token.span.close());
        syn::visit::visit_item_fn(self, f);
    }
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.record(&f.sig.ident, f.sig.fn_token.span, f.block.brace_token.span.close());
        syn::visit::visit_impl_item_fn(self, f);
    }
    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(body) = &f.default {
            self.record(&f.sig.ident, f.sig.fn_token.span, body.brace_token.span.close());
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

fn long_functions() -> Vec<Long> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ROOTS {
        files.extend(sources::rust_files(&root.join(dir)));
    }
    files.sort();
    assert!(files.len() > 100, "found only {} source files under {ROOTS:?}", files.len());
    let mut found = Vec::new();
    for path in files.iter().filter(|p| !generated(p)) {
        let rel = path.strip_prefix(root).unwrap_or(path).to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{rel}:{}: {e}", e.span().start().line));
        let mut m = Measure { file: &rel, found: Vec::new() };
        m.visit_file(&file);
        found.extend(m.found);
    }
    found
}

#[test]
fn no_function_is_longer_than_a_hundred_lines() {
    let found = long_functions();
    let allowed = |l: &Long| TABLES.iter().any(|(f, n)| l.file == *f && l.name == *n);
    let over: Vec<String> =
        found.iter().filter(|l| !allowed(l)).map(|l| format!("{}:{}: fn {} is {} lines (limit {MAX_LINES})", l.file, l.line, l.name, l.lines)).collect();
    assert!(over.is_empty(), "functions over {MAX_LINES} lines:\n{}", over.join("\n"));
    let stale: Vec<String> = TABLES.iter().filter(|(f, n)| !found.iter().any(|l| l.file == *f && l.name == *n)).map(|(f, n)| format!("{f}: fn {n}")).collect();
    assert!(stale.is_empty(), "TABLES entries no longer over {MAX_LINES} lines (remove them):\n{}", stale.join("\n"));
}

/// The measure itself: a function of exactly the limit passes, one line more is caught, and a
/// brace inside a string or comment does not end or extend the count.
#[test]
fn the_measure_counts_from_fn_to_closing_brace() {
    let body = |n: usize| (0..n).map(|i| format!("    let _x{i} = \"}}{{\"; // }}\n")).collect::<String>();
    for (inner, expect_long) in [(MAX_LINES - 2, false), (MAX_LINES - 1, true)] {
        let src = format!("/// doc\n#[inline]\nfn f() {{\n{}}}\n", body(inner));
        let file = syn::parse_file(&src).expect("test source parses");
        let mut m = Measure { file: "t.rs", found: Vec::new() };
        m.visit_file(&file);
        assert_eq!(!m.found.is_empty(), expect_long, "{} body lines", inner);
        if let Some(l) = m.found.first() {
            assert_eq!((l.line, l.lines), (3, MAX_LINES + 1));
        }
    }
}
