//! The files a sweep's results depend on besides the plan and the GPU config: each workload's
//! launch spec with the code objects and `File` inits it names, HIP programs, litmus tests,
//! and the scope suite's code objects for the processors and modes the points use. Their
//! SHA-256 digests are part of the plan hash, so a file edited between two shards, or before a
//! resume or a merge, is found and named instead of its old results being mixed with new
//! ones.
//!
//! Not covered: files a HIP program opens by itself (its arguments are just words to the
//! sweep), and a spec's `expect` files (a sweep skips the checks, so they do not change its
//! results).

use crate::plan::{Plan, Workload};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Largest file hashed (the size of the largest HIP program we run is a few hundred MB).
pub const MAX_INPUT_BYTES: u64 = 4 << 30;

/// One file a sweep reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Input {
    /// Who names it and how: `workloads[0] (vadd) code_objects."gfx90a"`.
    pub role: String,
    /// The path as its namer writes it.
    pub name: String,
    /// Where it is: relative to the current directory while the sweep runs, relative to the
    /// output directory in its `plan.json` (so `sweep merge` finds it from anywhere, and a
    /// results directory in the repository names no absolute path).
    pub path: PathBuf,
    /// SHA-256 of the contents, hex.
    pub sha256: String,
}

/// The digest of the regular file at `path` (read in pieces: a code object of a gigabyte is
/// not held in memory).
pub fn digest(path: &Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{}: not a regular file", path.display()));
    }
    if meta.len() > MAX_INPUT_BYTES {
        return Err(format!("{}: {} bytes; at most {MAX_INPUT_BYTES} are read", path.display(), meta.len()));
    }
    let f = std::fs::File::open(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let mut h = Sha256::new();
    std::io::copy(&mut f.take(MAX_INPUT_BYTES + 1), &mut h).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    Ok(hex(&h.finalize()))
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Every file the plan's workloads read (the plan at `dir`; `suite_dirs`: the directories
/// under `workloads/bin` whose `scopes.co` the scope workloads load, with `workloads` the
/// repository's workloads directory). Errors name the workload and the file.
pub fn collect(plan: &Plan, dir: &Path, workloads: Option<&Path>, suite_dirs: &BTreeSet<String>) -> Result<Vec<Input>, String> {
    let mut out = Vec::new();
    for (i, w) in plan.workloads.iter().enumerate() {
        let who = format!("workloads[{i}] ({})", w.name());
        match w {
            Workload::Spec { path, params, .. } => {
                add(&mut out, &who, path, &dir.join(path))?;
                spec_files(&mut out, &who, &dir.join(path), params)?;
            }
            Workload::Litmus { path, .. } => add(&mut out, &who, path, &dir.join(path))?,
            Workload::Exec { program, .. } => add(&mut out, &who, program, &dir.join(program))?,
            Workload::Scopes { .. } => {
                let Some(root) = workloads else { continue };
                for d in suite_dirs {
                    let name = format!("bin/{d}/scopes.co");
                    let path = root.join(&name);
                    // A build the suite lacks fails its points with the suite's own message.
                    if path.is_file() {
                        add(&mut out, &format!("{who} scope suite"), &name, &path)?;
                    }
                }
            }
        }
    }
    Ok(out)
}

fn add(out: &mut Vec<Input>, role: &str, name: &str, path: &Path) -> Result<(), String> {
    let sha256 = digest(path).map_err(|e| format!("{role}: {e}"))?;
    out.push(Input { role: role.to_string(), name: name.to_string(), path: path.to_path_buf(), sha256 });
    Ok(())
}

/// The code objects and `File` inits of the spec at `path`, read with the workload's params.
fn spec_files(out: &mut Vec<Input>, who: &str, path: &Path, params: &std::collections::BTreeMap<String, i64>) -> Result<(), String> {
    use hipscope_sim::spec::{self, files, model::Init};
    let params: Vec<(String, i128)> = params.iter().map(|(k, v)| (k.clone(), i128::from(*v))).collect();
    let parsed = spec::load_with(path, &params).map_err(|e| format!("{who}: {e}"))?;
    let spec_dir = path.parent().unwrap_or(Path::new("."));
    for (key, rel) in parsed.code_objects.iter() {
        add(out, &format!("{who} code_objects.\"{key}\""), rel, &files::resolve(spec_dir, rel))?;
    }
    for (name, b) in parsed.buffers.iter() {
        if let Init::File(rel) = &b.init {
            add(out, &format!("{who} buffers.\"{name}\""), rel, &files::resolve(spec_dir, rel))?;
        }
    }
    for (name, init) in parsed.globals.iter() {
        if let Init::File(rel) = init {
            add(out, &format!("{who} globals.\"{name}\""), rel, &files::resolve(spec_dir, rel))?;
        }
    }
    Ok(())
}

/// What the plan hash takes from the inputs: who names each file, how, and its digest (not
/// where it is, which depends on the current directory).
pub fn hash_text(inputs: &[Input]) -> String {
    inputs.iter().map(|i| format!("{}\u{0}{}\u{0}{}\n", i.role, i.name, i.sha256)).collect()
}

/// `file`'s path relative to `dir` (both resolved through symbolic links), for `plan.json`;
/// the absolute path if either cannot be resolved.
pub fn relative_to(dir: &Path, file: &Path) -> PathBuf {
    let (Ok(d), Ok(f)) = (dir.canonicalize(), file.canonicalize()) else {
        return std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    };
    let dc: Vec<_> = d.components().collect();
    let fc: Vec<_> = f.components().collect();
    let common = dc.iter().zip(&fc).take_while(|(a, b)| a == b).count();
    let mut r = PathBuf::new();
    for _ in common..dc.len() {
        r.push("..");
    }
    for c in &fc[common..] {
        r.push(c);
    }
    r
}

/// The inputs with their paths relative to `dir` (for `plan.json` in `dir`).
pub fn relative(inputs: &[Input], dir: &Path) -> Vec<Input> {
    inputs.iter().map(|i| Input { path: relative_to(dir, &i.path), ..i.clone() }).collect()
}

/// Every input recorded in `dir/plan.json` still has the digest it had: the first one that
/// changed or went missing is the error, naming the file.
pub fn verify(recorded: &[Input], dir: &Path) -> Result<(), String> {
    for i in recorded {
        let path = dir.join(&i.path);
        let now = digest(&path).map_err(|e| format!("{e} ({} {} made the results in {}; merge where they were made)", i.role, i.name, dir.display()))?;
        if now != i.sha256 {
            return Err(changed(i, &path, &now, dir));
        }
    }
    Ok(())
}

/// The message for an input whose digest is now `now` (the results in `dir` were made with
/// its old contents).
pub fn changed(i: &Input, path: &Path, now: &str, dir: &Path) -> String {
    format!(
        "{}: changed since the results in {} were made ({} {}: sha256 {}… then, {}… now); results of two versions would be mixed: restore it, or sweep into a new --out",
        path.display(),
        dir.display(),
        i.role,
        i.name,
        &i.sha256[..i.sha256.len().min(16)],
        &now[..now.len().min(16)]
    )
}

/// Why the inputs `old` (recorded with the results in `dir`) and `new` (now) differ, naming
/// a file, if one they have in common changed.
pub fn explain(old: &[Input], new: &[Input], dir: &Path) -> Option<String> {
    new.iter().find_map(|n| old.iter().find(|o| o.role == n.role && o.name == n.name && o.sha256 != n.sha256).map(|o| changed(o, &n.path, &n.sha256, dir)))
}
