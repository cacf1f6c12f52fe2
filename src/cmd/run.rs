//! `hipscope run SPEC.ron`: run a launch spec and check its expectations.
//!
//! Exit status: 0 every expectation holds, 1 one failed, 2 bad input (spec, GPU, code object),
//! 3 a kernel faulted (kernel, wave, PC, address/instruction; deadlock and watchdog reports
//! add one line per waiting wave).

use super::common_args::{CountersArg, EngineArgs, NodeArg, SampleArgs};
use super::CliError;
use hipscope_isa::codeobj;
use hipscope_sim::counters::Counter;
use hipscope_sim::exec::Fidelity;
use hipscope_sim::spec::{self, expr, DispatchReport, Report, RunError, RunOptions};
use hipscope_sim::timing::engine::DEFAULT_WATCHDOG_CYCLES;
use hipscope_sim::timing::trace::{self, Trace};
use hipscope_sim::FaultKind;
use serde_json::{json, Map, Value};
use std::fmt::Write as _;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Launch spec (RON); its paths are absolute or relative to its own directory.
    pub spec: PathBuf,
    /// Built-in GPU name (see `hipscope gpus`) or a GPU config file.
    /// Default: the spec's `gpu` field, else the built-in GPU of its only code object's processor.
    #[arg(long, value_name = "NAME|FILE")]
    pub gpu: Option<String>,
    /// Which `code_objects` entry to run (default: the one for the GPU's processor that matches
    /// its default wave size and CU/WGP mode).
    #[arg(long, value_name = "KEY")]
    pub code_object: Option<String>,
    /// Run the code object for this target (a processor such as gfx942, or a target id such as
    /// gfx90a:xnack-): picks one of the code objects of an offload bundle or HIP host
    /// executable named in the spec, or among the spec's entries. Default: the GPU's processor.
    #[arg(long, value_name = "T")]
    pub target: Option<String>,
    // `--node`: the spec runs on the node's GPU 0; in timing mode its host-pinned and managed
    // buffers are reached over that GPU's host link (`Device::set_node`).
    #[command(flatten)]
    pub node: NodeArg,
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub sample: SampleArgs,
    /// Print JSON (`{"gpu", "target", "mode", "dispatches", "checks", "fidelity"}`, each dispatch
    /// with its executed `instructions`); on a kernel fault `{"fault": {"kernel", "workgroup",
    /// "wave", "pc", "address", "what"}, "spec", "dispatch"}` (exit status 3).
    #[arg(long)]
    pub json: bool,
    /// Per executed opcode: count and whether its semantics are exact or approximate.
    #[arg(long)]
    pub fidelity: bool,
    #[command(flatten)]
    pub counters: CountersArg,
    /// Timeline of a timing run as Chrome trace-event JSON (open it in Perfetto or
    /// chrome://tracing): dispatches; per shader engine, CU and SIMD the waves' lifetimes with
    /// their stalls (s_waitcnt, s_barrier, s_sleep); per CU every memory access from issue to
    /// completion with the level that served it (L1/L0, scalar cache, GL1, L2, MALL, DRAM).
    #[arg(long, value_name = "FILE.json")]
    pub trace: Option<PathBuf>,
    /// Most timeline events --trace writes; later ones are counted, not written (a warning
    /// and the trace's `otherData` say how many). [default: 5000000]
    #[arg(long, value_name = "N")]
    pub trace_limit: Option<u64>,
    /// Timing mode: stop with a kernel fault (exit 3) listing what every wave waits on after
    /// this many cycles without an instruction issued or a wave ended; 0 turns the watchdog
    /// off. [default: 10000000]
    #[arg(long, value_name = "N")]
    pub watchdog_cycles: Option<u64>,
    /// Replace the value of the spec's parameter NAME (declared in its `params`); VALUE is an
    /// integer (or an expression of integers, e.g. 4*1024). Repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// After the run (also when checks fail), write the final bytes of buffer BUFFER to FILE.
    /// Repeatable.
    #[arg(long, value_name = "BUFFER=FILE")]
    pub dump: Vec<String>,
    /// Do not evaluate the expectations (for speed measurements); the report says that the
    /// checks were skipped, and the exit status is 0 unless the run fails.
    #[arg(long)]
    pub no_check: bool,
    /// Livelock detection (both modes): a wave that has run N instructions since anything
    /// visible last changed is checked for a repeating state; when every running wave repeats
    /// one, the run stops with a livelock report (exit 3). 0 turns it off. [default: 256]
    #[arg(long, value_name = "N")]
    pub livelock_after: Option<u64>,
    /// No-progress bound (both modes): a dispatch in which nothing visible changes for N
    /// cycles (timing) or N wave-instructions (functional), although its waves are not proven
    /// to loop (a spin counting its polls), stops with a "no progress" report (exit 3): a
    /// bound, not a proof. 0 (the default) turns it off; `grade` uses 10000000.
    #[arg(long, value_name = "N")]
    pub no_progress_cycles: Option<u64>,
    /// A wave running more than N instructions is a runaway loop (exit 3). [default: 50000000]
    #[arg(long, value_name = "N")]
    pub max_wave_instructions: Option<u64>,
    /// Stop a dispatch after N wave-instructions (exit 3), for runs that are legal but long.
    #[arg(long, value_name = "N")]
    pub max_instructions: Option<u64>,
    /// Timing mode: stop a dispatch after N cycles (exit 3).
    #[arg(long, value_name = "N")]
    pub max_cycles: Option<u64>,
}

/// Where the engines count this run's finished work-groups for the progress bar.
static PROGRESS: hipscope_sim::engine::RunProgress =
    hipscope_sim::engine::RunProgress { groups_total: std::sync::atomic::AtomicU64::new(0), groups_done: std::sync::atomic::AtomicU64::new(0) };

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let mode = args.engine.mode();
    args.counters.check(mode)?;
    check_timing_flags(args, mode.is_timing())?;
    let sample = args.sample.for_mode(mode)?;
    let params = args.set.iter().map(|s| expr::parse_override(s)).collect::<Result<Vec<_>, _>>().map_err(CliError::BadInput)?;
    let dumps = args.dump.iter().map(|d| dump_target(d)).collect::<Result<Vec<_>, _>>()?;
    if let Some(path) = &args.counters.counters {
        writable_dir(path).map_err(|m| CliError::BadInput(format!("--counters {}: {m}", path.display())))?;
    }
    let node = args.node.load()?;
    let opts = RunOptions {
        gpu: args.gpu.clone(),
        node,
        code_object: args.code_object.clone(),
        target: args.target.clone(),
        seed: args.engine.seed,
        threads: args.engine.threads(),
        mode,
        watchdog_cycles: args.watchdog_cycles,
        livelock_after: args.livelock_after,
        no_progress: args.no_progress_cycles,
        max_wave_instructions: args.max_wave_instructions,
        max_instructions: args.max_instructions,
        max_cycles: args.max_cycles,
        progress: Some(&PROGRESS),
        params,
        skip_checks: args.no_check,
        dump: dumps.iter().map(|(b, _)| b.clone()).collect(),
        references: Some(hipscope_studies::references::BUILT_IN),
        sample,
        work_group_sampling: hipscope_sim::sched::WorkGroupSampling::for_policy(sample),
        ..RunOptions::default()
    };
    let bar = super::RunBar::start(&PROGRESS);
    let (result, traced) = match &args.trace {
        None => (spec::run_file(&args.spec, &opts), None),
        Some(path) => run_traced(args, path, &opts)?,
    };
    drop(bar);
    let report = result.map_err(|e| match e {
        RunError::Spec(e) => CliError::BadInput(e.to_string()),
        fault @ RunError::Fault { .. } => {
            if args.json {
                print!("{}", fault_json(&fault));
            }
            CliError::Fault(fault.to_string())
        }
    })?;
    if let Some(path) = &args.counters.counters {
        std::fs::write(path, counters_csv(&report)).map_err(|e| CliError::BadInput(format!("{}: cannot write: {e}", path.display())))?;
    }
    for ((_, file), (_, bytes)) in dumps.iter().zip(&report.dumps) {
        std::fs::write(file, bytes).map_err(|e| CliError::BadInput(format!("--dump: {}: cannot write: {e}", file.display())))?;
    }
    let mut out = if args.json { json_report(&report, args.fidelity) } else { text_report(&report, args.fidelity) };
    if let (Some(node), false) = (&opts.node, args.json) {
        let at = out.find("\nmode:").map_or(0, |i| i + 1);
        out.insert_str(at, &format!("node: {} (the spec runs on its GPU 0)\n", node.name()));
    }
    if let (Some(s), Some(path), false) = (traced, &args.trace, args.json) {
        let _ = writeln!(out, "trace: {} ({} events)", path.display(), s.events);
    }
    print!("{out}");
    Ok(if report.passed() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// `BUFFER=FILE` of `--dump`; FILE's directory must exist (checked before anything runs).
fn dump_target(arg: &str) -> Result<(String, PathBuf), CliError> {
    let (buffer, file) =
        arg.split_once('=').filter(|(b, f)| !b.is_empty() && !f.is_empty()).ok_or_else(|| CliError::BadInput(format!("--dump {arg}: expected BUFFER=FILE")))?;
    let file = PathBuf::from(file);
    writable_dir(&file).map_err(|m| CliError::BadInput(format!("--dump {arg}: {m}")))?;
    Ok((buffer.to_string(), file))
}

/// An output file written after the run must have a directory to go to, so that a long run
/// is not lost to a typo in the path.
fn writable_dir(file: &Path) -> Result<(), String> {
    let dir = file.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if dir.is_dir() {
        Ok(())
    } else {
        Err(format!("{} is not a directory", dir.display()))
    }
}

/// Flags that only mean something with `--mode timing` (or with another flag).
fn check_timing_flags(args: &Args, timing: bool) -> Result<(), CliError> {
    if !timing && args.trace.is_some() {
        return Err(CliError::BadInput("--trace: traces show the timing model's timeline; add --mode timing".into()));
    }
    if !timing && args.max_cycles.is_some() {
        return Err(CliError::BadInput("--max-cycles: cycles are counted by the timing model; add --mode timing (or use --max-instructions)".into()));
    }
    if !timing && args.watchdog_cycles.is_some() {
        return Err(CliError::BadInput("--watchdog-cycles: the watchdog counts cycles of the timing model; add --mode timing".into()));
    }
    match args.trace_limit {
        Some(_) if args.trace.is_none() => Err(CliError::BadInput("--trace-limit: only with --trace FILE.json".into())),
        Some(0) => Err(CliError::BadInput("--trace-limit: must be at least 1".into())),
        _ => Ok(()),
    }
}

/// Run with a trace written to `path`. The trace is closed even when a kernel faults: the
/// timeline up to a fault (a watchdog stop, say) is what one wants to look at then.
fn run_traced(args: &Args, path: &Path, opts: &RunOptions) -> Result<(Result<Report, RunError>, Option<trace::Summary>), CliError> {
    let cannot = |e: std::io::Error| CliError::BadInput(format!("{}: cannot write: {e}", path.display()));
    let file = std::fs::File::create(path).map_err(cannot)?;
    let limit = args.trace_limit.unwrap_or(trace::DEFAULT_LIMIT);
    let mut tr = Trace::new(Box::new(BufWriter::new(file)), limit);
    let result = spec::run_file_observed(&args.spec, opts, Some(&mut tr));
    let mut extra = Map::new();
    extra.insert("spec".into(), json!(args.spec.display().to_string()));
    extra.insert("seed".into(), json!(args.engine.seed));
    extra.insert("watchdog_cycles".into(), json!(args.watchdog_cycles.unwrap_or(DEFAULT_WATCHDOG_CYCLES)));
    if let Ok(r) = &result {
        extra.insert("gpu".into(), json!(r.gpu.name));
        extra.insert("target".into(), json!(r.target));
    }
    let summary = tr.finish(&extra).map_err(cannot)?;
    if summary.dropped > 0 {
        eprintln!(
            "hipscope: warning: {}: stopped at --trace-limit {} events; {} later events are not in the trace",
            path.display(),
            summary.limit,
            summary.dropped
        );
    }
    Ok((result, Some(summary)))
}

fn text_report(r: &Report, fidelity: bool) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "spec: {}", r.spec.display());
    let _ = writeln!(
        o,
        "gpu: {} ({}, {} CUs); code object \"{}\" ({}, {}, wave{}, {} mode)",
        r.gpu.name,
        r.gpu.marketing_name,
        r.gpu.compute_units,
        r.code_object,
        r.code_object_path.display(),
        r.target,
        r.wave_size,
        r.mode
    );
    let _ = writeln!(o, "mode: {}, seed {}", r.run_mode, r.seed);
    if let Some(sampled) = &r.sampled {
        let _ = writeln!(o, "{}", sampled.line());
    }
    if !r.params.is_empty() {
        let p: Vec<String> = r.params.iter().map(|(n, v)| format!("{n}={v}")).collect();
        let _ = writeln!(o, "params: {}", p.join(", "));
    }
    for (i, d) in r.dispatches.iter().enumerate() {
        let [gx, gy, gz] = d.grid;
        let [bx, by, bz] = d.block;
        let source = codeobj::demangle(&d.kernel).map_or_else(String::new, |s| format!(" ({s})"));
        let _ = write!(
            o,
            "dispatch {i}: {}{source} grid ({gx},{gy},{gz}) block ({bx},{by},{bz}): {} groups, {} waves, {} instructions",
            d.kernel, d.groups, d.waves, d.instructions
        );
        if let (Some(c), Some(ns)) = (d.cycles, d.duration_ns) {
            let _ = write!(o, ", {c} cycles ({:.2} µs)", ns / 1000.0);
        }
        let _ = writeln!(o);
        for w in warnings(r, d) {
            let _ = writeln!(o, "warning: dispatch {i}: {w}");
        }
    }
    for c in &r.checks {
        let _ = writeln!(o, "check {}: {} ({})", c.buffer, if c.ok { "ok" } else { "FAIL" }, c.detail);
    }
    if r.checks_skipped {
        let _ = writeln!(o, "result: checks skipped (--no-check)");
    } else {
        let passed = r.checks.iter().filter(|c| c.ok).count();
        let _ = writeln!(o, "result: {passed}/{} checks passed", r.checks.len());
    }
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
    let names: Vec<String> =
        r.dispatches.first().and_then(|d| d.counters.as_ref()).map_or(Vec::new(), |c| c.named(r.counters_rdna()).into_iter().map(|(n, _)| n).collect());
    let _ = writeln!(o, "Dispatch_ID,Kernel_Name,Cycles,Duration_ns,{}", names.join(","));
    for (i, d) in r.dispatches.iter().enumerate() {
        let values: Vec<String> = d.counters.as_ref().map_or(Vec::new(), |c| Counter::ALL.iter().map(|&k| c.get(k).to_string()).collect());
        let _ = writeln!(o, "{i},{},{},{},{}", d.kernel, d.cycles.unwrap_or(0), d.duration_ns.map_or(String::new(), |n| format!("{n:.1}")), values.join(","));
    }
    o
}

/// A kernel fault as JSON: `{"fault": {"kernel", "workgroup", "wave", "pc", "address" (memory
/// violations), "what"}, "spec", "dispatch"}`; `what` is the fault's one-line text with the
/// nearest buffer when the address is just outside one.
fn fault_json(e: &RunError) -> String {
    let RunError::Fault { file, dispatch, fault, hint } = e else { return String::new() };
    let mut what = fault.kind.to_string();
    if let Some(h) = hint {
        let _ = write!(what, " ({h})");
    }
    let mut f = json!({"kernel": fault.kernel, "workgroup": fault.wave.workgroup, "wave": fault.wave.wave, "pc": fault.pc, "what": what});
    if let (FaultKind::MemoryViolation { address, .. }, Some(obj)) = (&fault.kind, f.as_object_mut()) {
        obj.insert("address".into(), json!(address));
    }
    let v = json!({"fault": f, "spec": file.display().to_string(), "dispatch": dispatch});
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

/// The launch-spec JSON schema plus each dispatch's executed wave-instructions (`instructions`).
/// Functional mode has no cycles, durations or counters.
/// What a dispatch did that works on the simulated GPU but is almost certainly not meant:
/// atomics the GPU cannot make atomic, LDS accesses out of range.
fn warnings(r: &Report, d: &DispatchReport) -> Vec<String> {
    let mut out = Vec::new();
    let not_atomic = d.counters.as_ref().map_or(0, |c| c.get(Counter::SystemAtomicsNotAtomic));
    if not_atomic > 0 {
        let p = &r.gpu.hip;
        out.push(format!(
            "{not_atomic} atomic accesses to host or managed memory are not atomic on {} (hostNativeAtomicSupported = {}, concurrentManagedAccess = {})",
            r.gpu.name, p.host_native_atomic_supported, p.concurrent_managed_access
        ));
    }
    if d.lds_out_of_range > 0 {
        out.push(format!(
            "{} lane accesses to LDS were out of range: the reads returned 0 and the writes were dropped, as on the hardware",
            d.lds_out_of_range
        ));
    }
    out
}

fn json_report(r: &Report, fidelity: bool) -> String {
    let dispatches: Vec<Value> = r
        .dispatches
        .iter()
        .map(|d| {
            let counters: Map<String, Value> = d.counters.iter().flat_map(|c| c.named(r.counters_rdna())).map(|(n, v)| (n, json!(v))).collect();
            json!({"kernel": d.kernel, "cycles": d.cycles, "duration_ns": d.duration_ns, "waves": d.waves, "instructions": d.instructions, "counters": counters, "warnings": warnings(r, d)})
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
    let mut v = json!({
        "gpu": r.gpu.name,
        "target": r.target,
        "mode": r.run_mode.name(),
        "dispatches": dispatches,
        "checks": checks,
        "fidelity": fid,
    });
    if let (true, Some(obj)) = (r.checks_skipped, v.as_object_mut()) {
        obj.insert("checks_skipped".into(), json!(true));
    }
    if let (Some(sampled), Some(obj)) = (&r.sampled, v.as_object_mut()) {
        obj.insert("sampled".into(), sampled.to_json());
    }
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}
