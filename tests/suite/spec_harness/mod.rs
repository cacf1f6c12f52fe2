//! Runs launch specs on every code object they list (each on the built-in GPU of its processor,
//! the entry forced with `--code-object`), prints a spec × config table, and compares the
//! failures with a committed list of known ones: any failure not listed, and any listed one
//! that now passes, fails the test (so the list shrinks as semantics land).

use hipscope_isa::codeobj;
use hipscope_sim::gpus;
use hipscope_sim::spec::{self, RunError, RunOptions};
use hipscope_studies::references::BUILT_IN;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Outcome of one spec on one code object.
#[derive(Debug, Clone)]
pub enum Outcome {
    Ok,
    /// An expectation failed (the first failing check).
    Fail(String),
    /// The kernel faulted.
    Fault(String),
    /// The spec is bad or does not fit: never acceptable.
    Error(String),
}

impl Outcome {
    fn cell(&self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Fail(_) => "FAIL",
            Outcome::Fault(_) => "FAULT",
            Outcome::Error(_) => "ERROR",
        }
    }

    fn detail(&self) -> &str {
        match self {
            Outcome::Ok => "",
            Outcome::Fail(s) | Outcome::Fault(s) | Outcome::Error(s) => s,
        }
    }
}

/// The spec files of a directory, sorted.
pub fn specs_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|r| r.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "ron")).collect())
        .unwrap_or_default();
    v.sort();
    v
}

fn stem(p: &Path) -> String {
    p.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}

/// The code objects of an entry's file with the built-in GPU that runs each: one for a code
/// object (target `None`), one per device code object (its target id) for a bundle or a HIP
/// host executable.
fn targets_of(object: &Path) -> Result<Vec<(Option<String>, String)>, String> {
    let bytes = std::fs::read(object).map_err(|e| format!("{}: {e}", object.display()))?;
    let listing = codeobj::list_targets(&bytes).map_err(|e| format!("{}: {e}", object.display()))?;
    let gpu = |p: hipscope_isa::Processor| gpus::builtins_for(p).first().map(|g| g.name.clone()).ok_or_else(|| format!("no built-in GPU for {p}"));
    if listing.container == codeobj::ContainerKind::CodeObject {
        let co = codeobj::load(&bytes, None).map_err(|e| format!("{}: {e}", object.display()))?;
        return Ok(vec![(None, gpu(co.target.processor)?)]);
    }
    listing.entries.iter().filter_map(|e| Some((e.target_id.clone()?, e.processor?))).map(|(t, p)| Ok((Some(t), gpu(p)?))).collect()
}

/// Run every entry of one spec (in timing mode if `timing`). Keys are `(spec stem,
/// code-object key)`.
pub fn run_spec(path: &Path, timing: bool, out: &mut BTreeMap<(String, String), Outcome>, configs: &mut Vec<String>) {
    let name = stem(path);
    let s = match spec::load(path) {
        Ok(s) => s,
        Err(e) => {
            out.insert((name, "-".into()), Outcome::Error(e.to_string()));
            return;
        }
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    for (key, rel) in s.code_objects.iter() {
        let targets = match targets_of(&dir.join(rel)) {
            Ok(t) => t,
            Err(e) => {
                out.insert((name.clone(), key.to_string()), Outcome::Error(e));
                continue;
            }
        };
        for (target, gpu) in targets {
            // A code object inside a bundle is its own config: `KEY[TARGET]`.
            let config = target.as_ref().map_or_else(|| key.to_string(), |t| format!("{key}[{t}]"));
            if !configs.contains(&config) {
                configs.push(config.clone());
            }
            let opts = RunOptions {
                gpu: Some(gpu),
                code_object: Some(key.to_string()),
                target,
                seed: 0,
                mode: hipscope_sim::Mode::with_timing(timing),
                references: Some(BUILT_IN),
                ..RunOptions::default()
            };
            let outcome = match spec::run(&s, path, &opts) {
                Ok(r) => match r.checks.iter().find(|c| !c.ok) {
                    None => Outcome::Ok,
                    Some(c) => Outcome::Fail(format!("{}: {}", c.buffer, c.detail)),
                },
                Err(e @ RunError::Fault { .. }) => Outcome::Fault(e.to_string()),
                Err(e) => Outcome::Error(e.to_string()),
            };
            out.insert((name.clone(), config), outcome);
        }
    }
}

/// `spec<TAB or space>config<TAB>reason` lines; `#` comments.
pub fn known_failures(file: &Path) -> BTreeMap<(String, String), String> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut it = l.splitn(3, ['\t', ' ']);
            let (s, c) = (it.next()?.trim(), it.next()?.trim());
            Some(((s.to_string(), c.to_string()), it.next().unwrap_or("").trim().to_string()))
        })
        .collect()
}

/// Rewrite the list from this run's failures (`HIPSCOPE_UPDATE_KNOWN_FAILURES=1`), keeping the
/// header comment. Review the diff: every line must be a failure someone owns.
fn write_known_failures(file: &Path, results: &BTreeMap<(String, String), Outcome>) {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let mut out: String = text.lines().take_while(|l| l.starts_with('#')).map(|l| format!("{l}\n")).collect();
    for ((s, c), o) in results {
        if matches!(o, Outcome::Fail(_) | Outcome::Fault(_)) {
            // The reason without the spec path (stable across checkouts).
            let d = o.detail();
            let why = d.split_once(".ron: ").map_or(d, |(_, r)| r);
            out.push_str(&format!("{s} {c}\t{} {why}\n", o.cell()));
        }
    }
    if let Err(e) = std::fs::write(file, out) {
        println!("cannot update {}: {e}", file.display());
    }
}

/// Print the table and the details, then fail on anything unexpected.
pub fn report(title: &str, results: &BTreeMap<(String, String), Outcome>, configs: &[String], known_file: &Path) {
    let specs: Vec<&String> = {
        let mut v: Vec<&String> = results.keys().map(|(s, _)| s).collect();
        v.dedup();
        v
    };
    println!("{title}");
    let w = specs.iter().map(|s| s.len()).max().unwrap_or(4).max(4);
    let mut header = format!("{:<w$}", "spec");
    for c in configs {
        header.push_str(&format!(" {c:>cw$}", cw = c.len().max(5)));
    }
    println!("{header}");
    for s in &specs {
        let mut row = format!("{s:<w$}");
        for c in configs {
            let cell = results.get(&((*s).clone(), c.clone())).map_or("-", Outcome::cell);
            row.push_str(&format!(" {cell:>cw$}", cw = c.len().max(5)));
        }
        println!("{row}");
    }
    let ok = results.values().filter(|o| matches!(o, Outcome::Ok)).count();
    println!("{ok} / {} spec × config runs pass", results.len());
    if std::env::var_os("HIPSCOPE_UPDATE_KNOWN_FAILURES").is_some() {
        write_known_failures(known_file, results);
    }
    let known = known_failures(known_file);
    let mut unexpected = Vec::new();
    for ((s, c), o) in results {
        if matches!(o, Outcome::Ok) {
            continue;
        }
        println!("  {s} {c}: {} {}", o.cell(), o.detail());
        let listed = known.contains_key(&(s.clone(), c.clone()));
        if !listed || matches!(o, Outcome::Error(_)) {
            unexpected.push(format!("{s} {c}: {} {}", o.cell(), o.detail()));
        }
    }
    let fixed: Vec<String> = known.keys().filter(|k| matches!(results.get(*k), Some(Outcome::Ok))).map(|(s, c)| format!("{s} {c}")).collect();
    for f in &fixed {
        println!("  listed as failing but passes now (remove it from {}): {f}", known_file.display());
    }
    let missing: Vec<String> = known.keys().filter(|k| !results.contains_key(*k)).map(|(s, c)| format!("{s} {c}")).collect();
    for m in &missing {
        println!("  listed but not run (remove it from {}): {m}", known_file.display());
    }
    assert!(unexpected.is_empty(), "{} unexpected failure(s) (not listed in {}):\n{}", unexpected.len(), known_file.display(), unexpected.join("\n"));
    assert!(
        fixed.is_empty() && missing.is_empty(),
        "{} listed failure(s) pass now or were not run; update {}",
        fixed.len() + missing.len(),
        known_file.display()
    );
}
