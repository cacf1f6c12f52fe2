//! No code outside the parsers and the printer classifies instructions by their mnemonic
//! (issue 30: "no mnemonic-string classification outside the printer and the parsers"). What
//! an instruction is comes from the flags `tools/isagen` writes into the decode tables
//! (`hipscope_isa::tables::flags`), its opcode, or the semantics the parsers give it once at
//! decode time.
//!
//! A grep over the workspace's sources (the `isa` crate, which holds the decoder and the
//! printer, is not scanned) for the shapes such tests take: a prefix or suffix test on a
//! mnemonic-like literal (`.starts_with("s_dcache_inv")`, `.ends_with("_f64")`,
//! `.contains("_gl1")`), a comparison with one (`m == "s_endpgm"`), and a match arm on one
//! (`"s_nop" =>`). Standard library only, so that it also runs against an older tree.

use crate::sources;

use std::path::Path;

/// Crate sources scanned, relative to the workspace root.
const SCANNED: &[&str] = &["src", "sim/src", "grade/src", "hip/src", "studies/src", "mm/src", "race/src", "sweep/src"];

/// Files that may read mnemonics, and why.
const ALLOWED: &[(&str, &str)] = &[
    // The semantic parsers: mnemonic -> semantic op, once per instruction at decode.
    ("sim/src/exec/ds/classify.rs", "DS parser"),
    ("sim/src/exec/vmem/classify.rs", "vector memory parser"),
    ("sim/src/exec/vmem/cache.rs", "cache-maintenance parser (`CacheOp::of`)"),
    ("sim/src/exec/vmem/image.rs", "image parser"),
    ("sim/src/exec/smem/mod.rs", "scalar memory parser (`classify`)"),
    ("sim/src/exec/smem/atomic.rs", "scalar atomic parser"),
    ("sim/src/exec/valu/table.rs", "VALU parser table"),
    ("sim/src/exec/valu/vopd.rs", "VOPD parser"),
    ("sim/src/exec/sopp.rs", "SOPP parser"),
    // The wait instructions' encoder and decoder: the one table of their immediate layouts.
    ("mm/src/wait.rs", "wait-instruction parser and encoder"),
];

/// Mnemonic prefixes of the instruction families.
const PREFIXES: &[&str] = &["s_", "v_", "ds_", "buffer_", "tbuffer_", "global_", "flat_", "scratch_", "image_", "lds_"];

/// Name fragments a suffix or infix test on a mnemonic looks for (`_f64`, `_rtn`, `_gl1`, ...).
const FRAGMENTS: &[&str] = &[
    "f64", "f32", "f16", "bf16", "i32", "u32", "i64", "u64", "b32", "b64", "b128", "rtn", "inv", "wb", "gl0", "gl1", "vol", "load", "store", "atomic", "cnt",
    "e32", "e64", "dpp", "sdwa", "x2", "x4",
];

fn mnemonic_like(lit: &str) -> bool {
    PREFIXES.iter().any(|p| lit.starts_with(p))
}

fn fragment_like(lit: &str) -> bool {
    let Some(rest) = lit.strip_prefix('_') else { return false };
    let head = rest.split('_').next().unwrap_or("");
    FRAGMENTS.contains(&head)
}

/// The string literal that starts right after `at` in `line` (which points past the quote).
fn literal(line: &str, at: usize) -> &str {
    let rest = &line[at..];
    rest.find('"').map_or(rest, |end| &rest[..end])
}

/// Why `line` looks like a mnemonic test, if it does.
fn offence(line: &str) -> Option<&'static str> {
    let code = line.split(" // ").next().unwrap_or(line);
    if code.trim_start().starts_with("//") {
        return None;
    }
    for method in ["starts_with", "strip_prefix", "ends_with", "strip_suffix", "contains"] {
        let needle = format!(".{method}(\"");
        for (i, _) in code.match_indices(&needle) {
            let lit = literal(code, i + needle.len());
            if mnemonic_like(lit) || fragment_like(lit) {
                return Some("a prefix/suffix test on a mnemonic-like literal");
            }
        }
    }
    for op in ["== \"", "!= \""] {
        for (i, _) in code.match_indices(op) {
            if mnemonic_like(literal(code, i + op.len())) {
                return Some("a comparison with a mnemonic");
            }
        }
    }
    // A list of mnemonics or prefixes searched (`[..].iter().any(|p| m.starts_with(p))`). A
    // named list (`MAINTENANCE.contains(&m)`) is not caught; lists of spellings to emit are
    // written the same way.
    for (i, _) in code.match_indices("[\"") {
        if mnemonic_like(literal(code, i + 2)) && code.contains(".iter().any(") {
            return Some("a list of mnemonics searched");
        }
    }
    let t = code.trim_start();
    if let Some(rest) = t.strip_prefix('"') {
        if mnemonic_like(literal(rest, 0)) && t.contains("=>") {
            return Some("a match arm on a mnemonic");
        }
    }
    None
}

/// Every offending line under `root`, as `file:line: why: text`.
fn offences(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    for dir in SCANNED {
        files.extend(sources::rust_files(&root.join(dir)));
    }
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let rel = file.strip_prefix(root).unwrap_or(&file).to_string_lossy().replace('\\', "/");
        if ALLOWED.iter().any(|(a, _)| *a == rel) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        for (n, line) in text.lines().enumerate() {
            if let Some(why) = offence(line) {
                out.push(format!("{rel}:{}: {why}: {}", n + 1, line.trim()));
            }
        }
    }
    out
}

#[test]
fn no_mnemonic_string_classification() {
    let found = offences(Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(found.is_empty(), "classify by instruction flags or opcode, not by mnemonic:\n{}", found.join("\n"));
}

/// The patterns catch the shapes of the classifications the flags replaced, and leave other
/// strings alone.
#[test]
fn the_patterns_catch_mnemonic_tests() {
    for bad in [
        r#"let f64 = name.ends_with("_f64") || name.contains("_f64_");"#,
        r#"_ if name.starts_with("s_dcache_inv") => Class::Cache(Maintenance::InvScalar),"#,
        r#"_ if name == "s_gl1_inv" => Class::Cache(Maintenance::InvGl1),"#,
        r#"    "s_nop" => Class::Nop { cycles: (imm(inst) & 0xf) + 1 },"#,
        r#"m.starts_with("ds_") || m.contains("_rtn")"#,
        r#"let plain_load = ["ds_read", "ds_load"].iter().any(|p| m.starts_with(p));"#,
    ] {
        assert!(offence(bad).is_some(), "{bad}");
    }
    for fine in [
        r#"let bytes = field.ends_with("_bytes");"#,
        r#"if sc.name == "all" {"#,
        r#"// name.starts_with("s_") in a comment"#,
        r#".unwrap_or_else(|| "ds_read_b32".into());"#,
        r#"pub const S_LOAD: &[&str] = &["s_load_dword", "s_load_b32"];"#,
    ] {
        assert!(offence(fine).is_none(), "{fine}");
    }
}
