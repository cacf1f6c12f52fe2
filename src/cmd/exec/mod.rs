//! `hipscope exec -- PROGRAM ARGS…`: run an unmodified HIP program with hipscope's HIP runtime
//! in front of any other `libamdhip64`, so that its host code runs natively and every HIP call
//! lands on the simulated GPU (how: `hipscope_studies::program`). The program runs in the
//! foreground; its exit status is ours.

use super::common_args::{CountersArg, EngineArgs, NodeArg, SampleArgs};
use super::CliError;
use hipscope_sim::Mode;
use hipscope_studies::program::{exit_code, Environment, Output};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The simulated GPU: a built-in name (see `hipscope gpus`) or a config file.
    #[arg(long, default_value = "mi300a")]
    pub gpu: String,
    // `--node`: the program sees the node's GPUs (`hipGetDeviceCount`, `hipSetDevice`, peer
    // access, `hipMemcpyPeer`); copies between host and GPU cross its host links.
    #[command(flatten)]
    pub node: NodeArg,
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub sample: SampleArgs,
    /// Write one row per kernel launch, in the columns of rocprofv3's kernel trace CSV.
    #[arg(long, value_name = "FILE.csv")]
    pub kernel_trace: Option<PathBuf>,
    #[command(flatten)]
    pub counters: CountersArg,
    /// Write a JSON report at exit: the GPU, the mode, every launch with its times and
    /// counters, and per-kernel totals.
    #[arg(long, value_name = "FILE.json")]
    pub report: Option<PathBuf>,
    /// No-progress bound: a kernel in which nothing visible changes for N cycles (timing) or
    /// N wave-instructions (functional), although its waves are not proven to loop (a spin
    /// counting its polls), stops with a "no progress" report (exit 3): a bound, not a proof.
    /// 0 (the default) turns it off; `grade` uses 10000000.
    #[arg(long, value_name = "N")]
    pub no_progress_cycles: Option<u64>,
    /// The program and its arguments (after `--`).
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    pub command: Vec<String>,
}

/// The running `hipscope` executable: our HIP runtime is beside it.
pub fn executable() -> Result<PathBuf, CliError> {
    std::env::current_exe().map_err(|e| CliError::BadInput(format!("cannot find the hipscope executable: {e}")))
}

/// The environment that runs a program on `gpu` (a name or config file) in `mode`.
pub fn environment(gpu: &str, mode: Mode) -> Result<Environment, CliError> {
    Environment::new(&executable()?, gpu, mode).map_err(CliError::BadInput)
}

/// Whether `path` can be opened for writing, as the library will open it: an existing file is
/// opened (not truncated), a new one created and removed again.
fn check_writable(path: &Path) -> std::io::Result<()> {
    if path.is_dir() {
        return Err(std::io::Error::other("it is a directory"));
    }
    let existed = path.exists();
    std::fs::OpenOptions::new().write(true).create(true).truncate(false).open(path)?;
    if !existed {
        std::fs::remove_file(path)?;
    }
    Ok(())
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let mode = args.engine.mode();
    args.counters.check(mode)?;
    let sample = args.sample.for_mode(mode)?;
    let outputs = [
        ("--kernel-trace", Output::KernelTrace, &args.kernel_trace),
        ("--counters", Output::Counters, &args.counters.counters),
        ("--report", Output::Report, &args.report),
    ];
    // An output the library could not write would leave the program running with every HIP
    // call failing: refuse it before the program starts.
    for (flag, _, path) in outputs {
        if let Some(path) = path {
            check_writable(path).map_err(|e| CliError::BadInput(format!("{flag} {}: cannot write it: {e}", path.display())))?;
        }
    }
    let mut env = match &args.node.node {
        Some(node) => Environment::for_node(&executable()?, node, mode).map_err(CliError::BadInput)?,
        None => environment(&args.gpu, mode)?,
    };
    let (program, rest) = args.command.split_first().ok_or_else(|| CliError::BadInput("no program given after --".into()))?;
    env.set_seed(args.engine.seed);
    env.set_threads(args.engine.threads());
    if sample.any() {
        env.set_sample(sample);
    }
    if let Some(n) = args.no_progress_cycles {
        env.set_no_progress(n);
    }
    for (flag, output, path) in outputs {
        if let Some(path) = path {
            env.set_output(output, path).map_err(|e| CliError::BadInput(format!("{flag} {}: {e}", path.display())))?;
        }
    }
    let status = env.command(program, rest).status();
    drop(env);
    let status = status.map_err(|e| CliError::BadInput(format!("{program}: cannot run: {e}")))?;
    // The program's own exit status passes through (a signal as 128 + its number).
    Ok(ExitCode::from(exit_code(status).clamp(0, 255) as u8))
}
