//! `hipscope exec -- PROGRAM ARGS…`: run an unmodified HIP program with hipscope's HIP runtime
//! (`hip/`, built as `libamdhip64.so`) in front of any other `libamdhip64`, so that its host
//! code runs natively and every HIP call lands on the simulated GPU. No root and no system
//! change: a private directory holds a `libamdhip64.so.5` link to our library and goes first
//! on `LD_LIBRARY_PATH`; the GPU and mode reach the library through the environment.

use super::CliError;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    /// Results only (fast).
    Functional,
    /// Results and cycles: kernel times on the simulated timeline.
    Timing,
}

#[derive(clap::Args)]
pub struct Args {
    /// The simulated GPU: a built-in name (see `hipscope gpus`) or a config file.
    #[arg(long, default_value = "mi300a")]
    pub gpu: String,
    #[arg(long, value_enum, default_value = "functional")]
    pub mode: ModeArg,
    /// Seed of the engine's choices among legal interleavings (same seed, same results).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Write one row per kernel launch, in the columns of rocprofv3's kernel trace CSV.
    #[arg(long, value_name = "FILE.csv")]
    pub kernel_trace: Option<PathBuf>,
    /// Write the timing model's counters, one row per kernel launch (timing mode).
    #[arg(long, value_name = "FILE.csv")]
    pub counters: Option<PathBuf>,
    /// Write a JSON report at exit: the GPU, the mode, every launch with its times and
    /// counters, and per-kernel totals.
    #[arg(long, value_name = "FILE.json")]
    pub report: Option<PathBuf>,
    /// The program and its arguments (after `--`).
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    pub command: Vec<String>,
}

/// Our HIP runtime: next to the `hipscope` executable. Cargo puts a dependency's shared
/// library in `deps/` beside it, and a build of the `hipscope-hip` package alone also copies
/// it beside the executable; the newer of the two is the one built with this executable.
fn runtime_library() -> Result<PathBuf, CliError> {
    let exe = std::env::current_exe().map_err(|e| CliError::BadInput(format!("cannot find the hipscope executable: {e}")))?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    let modified = |p: &PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    [dir.join("libamdhip64.so"), dir.join("deps/libamdhip64.so")].into_iter().filter(|p| p.is_file()).max_by_key(modified).ok_or_else(|| {
        CliError::BadInput(format!("libamdhip64.so (hipscope's HIP runtime) is not next to {}; build it with `cargo build --release`", exe.display()))
    })
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    // Refuse a GPU we cannot simulate before the program starts.
    let gpu = hipscope_sim::gpus::resolve(&args.gpu).map_err(|e| CliError::BadInput(format!("--gpu: {e}")))?;
    if args.mode == ModeArg::Timing && gpu.timing.is_none() {
        return Err(CliError::BadInput(format!("--gpu {}: the config has no timing section", gpu.name)));
    }
    if args.counters.is_some() && args.mode != ModeArg::Timing {
        return Err(CliError::BadInput("--counters: counters come from the timing model; add --mode timing".into()));
    }
    let library = runtime_library()?;
    let dir = std::env::temp_dir().join(format!("hipscope-exec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| CliError::BadInput(format!("{}: {e}", dir.display())))?;
    for soname in ["libamdhip64.so.5", "libamdhip64.so.6", "libamdhip64.so"] {
        let link = dir.join(soname);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&library, &link).map_err(|e| CliError::BadInput(format!("{}: {e}", link.display())))?;
    }
    let mut path = dir.display().to_string();
    if let Ok(old) = std::env::var("LD_LIBRARY_PATH") {
        if !old.is_empty() {
            path = format!("{path}:{old}");
        }
    }
    let (program, rest) = args.command.split_first().ok_or_else(|| CliError::BadInput("no program given after --".into()))?;
    let mut cmd = Command::new(program);
    cmd.args(rest)
        .env("LD_LIBRARY_PATH", path)
        .env("HIPSCOPE_GPU", &args.gpu)
        .env("HIPSCOPE_MODE", if args.mode == ModeArg::Timing { "timing" } else { "functional" })
        .env("HIPSCOPE_SEED", args.seed.to_string());
    for (flag, var, path) in [
        ("--kernel-trace", "HIPSCOPE_KERNEL_TRACE", &args.kernel_trace),
        ("--counters", "HIPSCOPE_COUNTERS", &args.counters),
        ("--report", "HIPSCOPE_REPORT", &args.report),
    ] {
        if let Some(path) = path {
            // The program may change directory: hand the library an absolute path.
            let abs = std::path::absolute(path).map_err(|e| CliError::BadInput(format!("{flag} {}: {e}", path.display())))?;
            cmd.env(var, abs);
        }
    }
    let status = cmd.status();
    let _ = std::fs::remove_dir_all(&dir);
    let status = status.map_err(|e| CliError::BadInput(format!("{program}: cannot run: {e}")))?;
    // The program's own exit status passes through (a signal as 128 + its number).
    let code = status.code().unwrap_or_else(|| {
        use std::os::unix::process::ExitStatusExt;
        128 + status.signal().unwrap_or(0)
    });
    Ok(ExitCode::from(code.clamp(0, 255) as u8))
}
