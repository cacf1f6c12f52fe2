//! `hipscope run SPEC.ron`: run a launch spec and check its expectations.
//!
//! Exit status: 0 every expectation holds, 1 one failed, 2 bad input (spec, GPU, code object),
//! 3 a kernel faulted (one line: kernel, wave, PC, address/instruction).

use super::CliError;
use hipscope_sim::exec::Fidelity;
use hipscope_sim::spec::{self, Report, RunError, RunOptions};
use serde_json::{json, Map, Value};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// Simulation mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// Values only: every instruction executes, memory is sequentially consistent.
    Functional,
    /// Cycle-approximate timing: CU pipelines, caches holding data, counters.
    Timing,
}

#[derive(clap::Args)]
pub struct Args {
    /// Launch spec (RON); its relative paths are relative to its own directory.
    pub spec: PathBuf,
    /// Built-in GPU name (see `hipscope gpus`) or a GPU config file.
    /// Default: the spec's `gpu` field, else the built-in GPU of its only code object's processor.
    #[arg(long, value_name = "NAME|FILE")]
    pub gpu: Option<String>,
    /// Which `code_objects` entry to run (default: the one for the GPU's processor that matches
    /// its default wave size and CU/WGP mode).
    #[arg(long, value_name = "KEY")]
    pub code_object: Option<String>,
    #[arg(long, value_enum, default_value = "functional")]
    pub mode: Mode,
    /// Picks among legal interleavings of waves (same seed, same result).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print JSON (`{"gpu", "target", "mode", "dispatches", "checks", "fidelity"}`).
    #[arg(long)]
    pub json: bool,
    /// Per executed opcode: count and whether its semantics are exact or approximate.
    #[arg(long)]
    pub fidelity: bool,
    /// Performance counters as CSV, one row per dispatch (timing mode).
    #[arg(long, value_name = "FILE.csv")]
    pub counters: Option<PathBuf>,
    /// Execution trace as JSON (timing mode; not available yet).
    #[arg(long, value_name = "FILE.json")]
    pub trace: Option<PathBuf>,
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let timing = args.mode == Mode::Timing;
    if !timing && args.counters.is_some() {
        return Err(CliError::BadInput("--counters: counters come from the timing model; add --mode timing".into()));
    }
    if args.trace.is_some() {
        return Err(CliError::BadInput("--trace: execution traces are not available yet".into()));
    }
    let opts = RunOptions { gpu: args.gpu.clone(), code_object: args.code_object.clone(), seed: args.seed, timing };
    let report = spec::run_file(&args.spec, &opts).map_err(|e| match e {
        RunError::Spec(e) => CliError::BadInput(e.to_string()),
        fault @ RunError::Fault { .. } => CliError::Fault(fault.to_string()),
    })?;
    if let Some(path) = &args.counters {
        std::fs::write(path, counters_csv(&report)).map_err(|e| CliError::BadInput(format!("{}: cannot write: {e}", path.display())))?;
    }
    let out = if args.json { json_report(&report, args.fidelity) } else { text_report(&report, args.fidelity) };
    print!("{out}");
    Ok(if report.passed() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn text_report(r: &Report, fidelity: bool) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "spec: {}", r.spec.display());
    let _ = writeln!(o, "gpu: {} ({}, {} CUs); code object \"{}\" ({}, {}, wave{}, {} mode)", r.gpu.name, r.gpu.marketing_name, r.gpu.compute_units, r.code_object, r.code_object_path.display(), r.target, r.wave_size, r.mode);
    let _ = writeln!(o, "mode: {}, seed {}", if r.timing { "timing" } else { "functional" }, r.seed);
    for (i, d) in r.dispatches.iter().enumerate() {
        let [gx, gy, gz] = d.grid;
        let [bx, by, bz] = d.block;
        let _ = write!(o, "dispatch {i}: {} grid ({gx},{gy},{gz}) block ({bx},{by},{bz}): {} groups, {} waves, {} instructions", d.kernel, d.groups, d.waves, d.instructions);
        if let (Some(c), Some(ns)) = (d.cycles, d.duration_ns) {
            let _ = write!(o, ", {c} cycles ({:.2} µs)", ns / 1000.0);
        }
        let _ = writeln!(o);
    }
    for c in &r.checks {
        let _ = writeln!(o, "check {}: {} ({})", c.buffer, if c.ok { "ok" } else { "FAIL" }, c.detail);
    }
    let passed = r.checks.iter().filter(|c| c.ok).count();
    let _ = writeln!(o, "result: {passed}/{} checks passed", r.checks.len());
    if fidelity {
        let _ = writeln!(o, "fidelity (executed opcodes):");
        for f in &r.fidelity {
            let _ = writeln!(o, "  {:<32} {:>12}  {}", f.opcode, f.count, fidelity_text(f.fidelity));
        }
    }
    o
}

fn fidelity_text(f: Fidelity) -> String {
    match f {
        Fidelity::Exact => "exact".into(),
        Fidelity::Approximate(why) => format!("approximate: {why}"),
        Fidelity::NoEffect(why) => format!("no effect: {why}"),
    }
}

/// Counters per dispatch as CSV: `Dispatch_ID,Kernel_Name,Cycles,Duration_ns` and one column
/// per counter (rocprof names).
fn counters_csv(r: &Report) -> String {
    let mut o = String::new();
    let names: Vec<&str> = r.dispatches.first().and_then(|d| d.counters.as_ref()).map_or(Vec::new(), |c| c.iter().map(|(n, _)| n.as_str()).collect());
    let _ = writeln!(o, "Dispatch_ID,Kernel_Name,Cycles,Duration_ns,{}", names.join(","));
    for (i, d) in r.dispatches.iter().enumerate() {
        let values: Vec<String> = d.counters.as_ref().map_or(Vec::new(), |c| c.iter().map(|(_, v)| v.to_string()).collect());
        let _ = writeln!(o, "{i},{},{},{},{}", d.kernel, d.cycles.unwrap_or(0), d.duration_ns.map_or(String::new(), |n| format!("{n:.1}")), values.join(","));
    }
    o
}

/// The PRODUCT.md schema. Functional mode has no cycles, durations or counters.
fn json_report(r: &Report, fidelity: bool) -> String {
    let dispatches: Vec<Value> = r
        .dispatches
        .iter()
        .map(|d| {
            let counters: Map<String, Value> = d.counters.iter().flatten().map(|(n, v)| (n.clone(), json!(v))).collect();
            json!({"kernel": d.kernel, "cycles": d.cycles, "duration_ns": d.duration_ns, "waves": d.waves, "counters": counters})
        })
        .collect();
    let checks: Vec<Value> = r.checks.iter().map(|c| json!({"buffer": c.buffer, "ok": c.ok, "detail": c.detail})).collect();
    let mut fid = Map::new();
    if fidelity {
        for f in &r.fidelity {
            let (kind, reason) = match f.fidelity {
                Fidelity::Exact => ("exact", None),
                Fidelity::Approximate(w) => ("approximate", Some(w)),
                Fidelity::NoEffect(w) => ("no_effect", Some(w)),
            };
            let mut e = json!({"count": f.count, "fidelity": kind});
            if let (Some(w), Some(obj)) = (reason, e.as_object_mut()) {
                obj.insert("reason".into(), json!(w));
            }
            fid.insert(f.opcode.to_string(), e);
        }
    }
    let v = json!({
        "gpu": r.gpu.name,
        "target": r.target,
        "mode": if r.timing { "timing" } else { "functional" },
        "dispatches": dispatches,
        "checks": checks,
        "fidelity": fid,
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}
