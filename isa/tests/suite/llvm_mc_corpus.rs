//! Decoder + printer against LLVM's own disassembler tests (`../shared/llvm-mc-tests`).
//!
//! Every `# PREFIX: <text> ; encoding: [bytes]` line of a file whose RUN line disassembles for
//! a given `-mcpu`/`-mattr` is an independent expectation: decoding `bytes` for that target must
//! consume exactly those bytes and print `<text>` (whitespace-normalised). Lines LLVM marks as
//! `invalid instruction encoding` must be rejected. The test prints per-family agreement, fails
//! below 99.5 % in any family, and fails on any mismatch not listed (with its reason) in
//! `tests/corpus-mismatches.txt`.

use hipscope_isa::decode::Decoder;
use hipscope_isa::print::format_inst;
use hipscope_isa::{Family, Processor};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn shared_dir() -> Option<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?;
    let dir = repo.join("../shared/llvm-mc-tests/Disassembler/AMDGPU");
    dir.is_dir().then_some(dir)
}

/// One disassembly configuration taken from a RUN line.
#[derive(Debug, Clone)]
struct RunConfig {
    cpu: String,
    processor: Option<Processor>,
    wave64: bool,
    real_true16: bool,
    /// Attributes we do not model (the RUN is reported, not scored).
    unsupported_attr: Option<String>,
    prefixes: Vec<String>,
    expects_error_output: bool,
}

fn parse_run(line: &str) -> Option<RunConfig> {
    if !line.contains("-disassemble") {
        return None;
    }
    let mut cpu = String::new();
    let mut wave64 = false;
    let mut real_true16 = false;
    let mut unsupported = None;
    let mut prefixes = Vec::new();
    for tok in line.split_whitespace() {
        if let Some(v) = tok.strip_prefix("-mcpu=") {
            cpu = v.to_string();
        } else if let Some(v) = tok.strip_prefix("-mattr=") {
            for attr in v.split(',') {
                match attr.to_ascii_lowercase().as_str() {
                    "+wavefrontsize64" => wave64 = true,
                    "+wavefrontsize32" | "-wavefrontsize32" | "-wavefrontsize64" => {}
                    "-real-true16" => {}
                    "+real-true16" => real_true16 = true,
                    other => unsupported = Some(other.to_string()),
                }
            }
        } else if let Some(v) = tok.strip_prefix("--check-prefixes=").or_else(|| tok.strip_prefix("-check-prefixes=")) {
            prefixes.extend(v.split(',').map(str::to_string));
        } else if let Some(v) = tok.strip_prefix("--check-prefix=").or_else(|| tok.strip_prefix("-check-prefix=")) {
            prefixes.push(v.to_string());
        }
    }
    if prefixes.is_empty() {
        prefixes.push("CHECK".into());
    }
    let processor = cpu.parse::<Processor>().ok();
    Some(RunConfig { cpu, processor, wave64, real_true16, unsupported_attr: unsupported, prefixes, expects_error_output: line.contains("2>&1") })
}

/// A check line: prefix, expected text (None = invalid encoding), bytes.
#[derive(Debug, Clone)]
struct Check {
    line: usize,
    prefix: String,
    expected: Option<String>,
    bytes: Vec<u8>,
}

fn parse_bytes(s: &str) -> Option<Vec<u8>> {
    let s = s.split('#').next()?.split("//").next()?;
    let mut out = Vec::new();
    for tok in s.split(|c: char| c == ',' || c.is_whitespace()).filter(|t| !t.is_empty()) {
        let hex = tok.strip_prefix("0x").or_else(|| tok.strip_prefix("0X"))?;
        out.push(u8::from_str_radix(hex, 16).ok()?);
    }
    (!out.is_empty()).then_some(out)
}

/// The input bytes a check line describes. Checks precede their byte line; LLVM prints the
/// encoding it would emit, which can differ from the input (e.g. a redundant literal), so the
/// input is the next byte line — or the previous one when only that matches the encoding.
fn input_bytes(lines: &[&str], n: usize, encoding: &[u8]) -> Option<Vec<u8>> {
    let next = lines[n + 1..].iter().find_map(|l| parse_bytes(l.trim()).filter(|_| l.trim_start().starts_with("0x")));
    if next.as_deref() == Some(encoding) {
        return next;
    }
    let prev = lines[..n].iter().rev().find_map(|l| parse_bytes(l.trim()).filter(|_| l.trim_start().starts_with("0x")));
    if prev.as_deref() == Some(encoding) {
        return prev;
    }
    next
}

fn parse_checks(text: &str) -> Vec<Check> {
    let lines: Vec<&str> = text.lines().collect();
    let mut checks = Vec::new();
    for (n, raw) in lines.iter().enumerate() {
        let l = raw.trim_start();
        let Some(body) = l.strip_prefix('#').or_else(|| l.strip_prefix("//")).or_else(|| l.strip_prefix(';')) else {
            continue;
        };
        let body = body.trim_start();
        let Some(colon) = body.find(':') else { continue };
        let prefix = &body[..colon];
        if prefix.is_empty() || !prefix.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') || prefix == "RUN" {
            continue;
        }
        let prefix = prefix.trim_end_matches("-NEXT").trim_end_matches("-SAME").to_string();
        let rest = body[colon + 1..].trim();
        if rest.contains("invalid instruction encoding") {
            // The bytes are on the line the check names ([[@LINE+k]]), default the next one.
            let k = rest.strip_prefix("[[@LINE+").and_then(|r| r.split(']').next()).and_then(|d| d.parse::<usize>().ok()).unwrap_or(1);
            if let Some(bytes) = lines.get(n + k).and_then(|b| parse_bytes(b.trim())) {
                checks.push(Check { line: n + 1, prefix, expected: None, bytes });
            }
            continue;
        }
        let Some(enc_at) = rest.find("; encoding:") else { continue };
        let expected = rest[..enc_at].trim().to_string();
        let enc = rest[enc_at + "; encoding:".len()..].trim_start();
        let enc = enc.strip_prefix('[').unwrap_or(enc).split(']').next().unwrap_or("");
        if let Some(bytes) = parse_bytes(enc).and_then(|e| input_bytes(&lines, n, &e)) {
            checks.push(Check { line: n + 1, prefix, expected: Some(expected), bytes });
        }
    }
    checks
}

fn normalise(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn family_name(p: Processor) -> &'static str {
    p.family().name()
}

#[derive(Default)]
struct Tally {
    total: usize,
    ok: usize,
    invalid_total: usize,
    invalid_ok: usize,
}

/// Result of disassembling one check for one configuration: None if it agrees.
fn check_one(decoder: &Decoder, c: &Check) -> Option<String> {
    let ctx = decoder.ctx();
    let res = decoder.decode(&c.bytes, 0);
    match (&c.expected, res) {
        (None, Err(_)) => None,
        (None, Ok(inst)) => Some(format!("expected invalid, got `{}`", format_inst(&inst, ctx))),
        (Some(exp), Err(e)) => Some(format!("expected `{exp}`, got error: {e}")),
        (Some(exp), Ok(inst)) => {
            let got = format_inst(&inst, ctx);
            if inst.size as usize != c.bytes.len() {
                Some(format!("expected `{exp}` ({} bytes), got `{got}` ({} bytes)", c.bytes.len(), inst.size))
            } else if normalise(&got) != normalise(exp) {
                Some(format!("expected `{exp}`, got `{got}` [{}]", inst.row.record))
            } else {
                None
            }
        }
    }
}

/// Keys of mismatches accepted in the committed list: `file:line:cpu[+w64]`.
fn accepted_mismatches() -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus-mismatches.txt");
    let text = fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut parts = l.splitn(2, '\t');
            Some((parts.next()?.trim().to_string(), parts.next().unwrap_or("").trim().to_string()))
        })
        .collect()
}

#[test]
fn llvm_mc_disassembler_corpus() {
    let Some(dir) = shared_dir() else {
        println!("SKIPPED: ../shared/llvm-mc-tests not found next to the repository");
        return;
    };
    let mut files: Vec<PathBuf> = fs::read_dir(&dir).expect("corpus dir").filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "txt"));
    files.sort();

    let mut tally: BTreeMap<&'static str, Tally> = BTreeMap::new();
    let mut mismatches: BTreeMap<String, String> = BTreeMap::new();
    let mut unsupported_runs = BTreeSet::new();
    let mut decoders: BTreeMap<(Processor, bool, bool), Decoder> = BTreeMap::new();
    for file in &files {
        let text = fs::read_to_string(file).expect("read corpus file");
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_string();
        let runs: Vec<RunConfig> = text.lines().filter(|l| l.contains("RUN:")).filter_map(parse_run).collect();
        let checks = parse_checks(&text);
        let mut seen = BTreeSet::new();
        if std::env::var("HIPSCOPE_CORPUS_VERBOSE").is_ok() {
            println!("  {name}: {} runs, {} checks", runs.len(), checks.len());
        }
        for run in &runs {
            let Some(p) = run.processor else {
                unsupported_runs.insert(format!("{name}: -mcpu={} (unknown processor)", run.cpu));
                continue;
            };
            if let Some(attr) = &run.unsupported_attr {
                unsupported_runs.insert(format!("{name}: -mcpu={} -mattr {attr}", run.cpu));
                continue;
            }
            let decoder = decoders.entry((p, run.wave64, run.real_true16)).or_insert_with(|| Decoder::with_true16(p, run.wave64, run.real_true16));
            for c in checks.iter().filter(|c| run.prefixes.contains(&c.prefix)) {
                if c.expected.is_none() && !run.expects_error_output {
                    continue;
                }
                let key = format!("{name}:{}:{}{}{}", c.line, run.cpu, if run.wave64 { "+w64" } else { "" }, if run.real_true16 { "+t16" } else { "" });
                if !seen.insert(key.clone()) {
                    continue;
                }
                let t = tally.entry(family_name(p)).or_default();
                t.total += 1;
                t.invalid_total += c.expected.is_none() as usize;
                match check_one(decoder, c) {
                    None => {
                        t.ok += 1;
                        t.invalid_ok += c.expected.is_none() as usize;
                    }
                    Some(why) => {
                        mismatches.insert(key, why);
                    }
                }
            }
        }
    }

    let (total, ok) = print_agreement(&tally);
    println!("  overall {ok:6}/{total:6} = {:7.3} %", 100.0 * ok as f64 / total.max(1) as f64);
    for u in &unsupported_runs {
        println!("  not scored: {u}");
    }
    if let Ok(path) = std::env::var("HIPSCOPE_CORPUS_DUMP") {
        let dump: String = mismatches.iter().map(|(k, v)| format!("{k}\t{v}\n")).collect();
        fs::write(path, dump).expect("write dump");
    }

    let accepted = accepted_mismatches();
    let unexpected: Vec<_> = mismatches.iter().filter(|(k, _)| !accepted.contains_key(*k)).collect();
    let fixed: Vec<_> = accepted.keys().filter(|k| !mismatches.contains_key(*k)).collect();
    for (k, v) in unexpected.iter().take(40) {
        println!("  unexpected mismatch {k}: {v}");
    }
    for k in fixed.iter().take(20) {
        println!("  listed mismatch now agrees (remove it from corpus-mismatches.txt): {k}");
    }
    for f in Family::ALL {
        if let Some(t) = tally.get(f.name()) {
            let pct = 100.0 * t.ok as f64 / t.total.max(1) as f64;
            assert!(pct >= 99.5, "{} agreement {pct:.3} % is below 99.5 %", f.name());
        }
    }
    assert!(unexpected.is_empty(), "{} mismatches are not listed in tests/corpus-mismatches.txt", unexpected.len());
    assert!(fixed.is_empty(), "{} listed mismatches now agree; update tests/corpus-mismatches.txt", fixed.len());
    assert!(total > 90_000, "only {total} corpus lines were checked");
}

/// Prints each family's agreement; the lines checked and agreeing over all families.
fn print_agreement(tally: &BTreeMap<&'static str, Tally>) -> (usize, usize) {
    let (mut total, mut ok) = (0, 0);
    println!("LLVM MC disassembler corpus: agreement per family");
    for f in Family::ALL {
        if let Some(t) = tally.get(f.name()) {
            println!(
                "  {:7} {:6}/{:6} = {:7.3} %   (invalid encodings rejected: {}/{})",
                f.name(),
                t.ok,
                t.total,
                100.0 * t.ok as f64 / t.total.max(1) as f64,
                t.invalid_ok,
                t.invalid_total
            );
            total += t.total;
            ok += t.ok;
        }
    }
    (total, ok)
}
