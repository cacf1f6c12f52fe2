//! `hipscope exec -- PROGRAM ARGS…`: run an unmodified HIP program with hipscope's HIP runtime
//! (`hip/`, built as `libamdhip64.so`) in front of any other `libamdhip64`, so that its host
//! code runs natively and every HIP call lands on the simulated GPU. No root and no system
//! change: a private directory holds our library under each release's soname
//! (`libamdhip64.so.5`, `.6`, `.7`, each with that release's symbol versions:
//! [`abi_library`]) and goes first on `LD_LIBRARY_PATH`; the GPU and mode reach the library
//! through the environment.

mod abi_library;

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

/// The directory holding the runtime as each release ships it (`libamdhip64.so.5`, `.6`,
/// `.7`): made once per build of the library, in `hipscope-abi/` beside it (written to a
/// temporary name and renamed, so concurrent runs never see half a file), or in `fallback`
/// when that is not writable.
fn release_libraries(library: &Path, fallback: &Path) -> Result<PathBuf, CliError> {
    let meta = std::fs::metadata(library).map_err(|e| CliError::BadInput(format!("{}: {e}", library.display())))?;
    let modified = meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos());
    let stamp = format!("{} {modified}\n", meta.len());
    let cache = library.parent().unwrap_or(Path::new(".")).join("hipscope-abi");
    if std::fs::read_to_string(cache.join("stamp")).is_ok_and(|s| s == stamp) {
        return Ok(cache);
    }
    let bytes = std::fs::read(library).map_err(|e| CliError::BadInput(format!("{}: {e}", library.display())))?;
    let write_all = |dir: &Path| -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        for major in [5, 6, 7] {
            let copy = abi_library::release_copy(&bytes, major).map_err(|e| std::io::Error::other(format!("{}: {e}", library.display())))?;
            let tmp = dir.join(format!(".libamdhip64.so.{major}.{}", std::process::id()));
            std::fs::write(&tmp, copy)?;
            std::fs::set_permissions(&tmp, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
            std::fs::rename(&tmp, dir.join(format!("libamdhip64.so.{major}")))?;
        }
        let tmp = dir.join(format!(".stamp.{}", std::process::id()));
        std::fs::write(&tmp, &stamp)?;
        std::fs::rename(tmp, dir.join("stamp"))
    };
    match write_all(&cache) {
        Ok(()) => Ok(cache),
        Err(e) if e.kind() == std::io::ErrorKind::Other => Err(CliError::BadInput(e.to_string())),
        Err(_) => write_all(fallback).map(|()| fallback.to_path_buf()).map_err(|e| CliError::BadInput(format!("{}: {e}", fallback.display()))),
    }
}

/// The private directory that puts our library first on `LD_LIBRARY_PATH`, and the
/// environment a program needs to run on the simulated GPU; the directory goes when this does.
pub struct Prepared {
    dir: PathBuf,
    env: Vec<(&'static str, String)>,
}

impl Prepared {
    /// For `gpu` (a name or config file, checked here) in timing or functional mode.
    pub fn new(gpu: &str, timing: bool) -> Result<Prepared, CliError> {
        // Refuse a GPU we cannot simulate before the program starts.
        let config = hipscope_sim::gpus::resolve(gpu).map_err(|e| CliError::BadInput(format!("--gpu: {e}")))?;
        if timing && config.timing.is_none() {
            return Err(CliError::BadInput(format!("--gpu {}: the config has no timing section", config.name)));
        }
        let library = runtime_library()?;
        let dir = std::env::temp_dir().join(format!("hipscope-exec-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| CliError::BadInput(format!("{}: {e}", dir.display())))?;
        let releases = release_libraries(&library, &dir)?;
        for (soname, target) in [
            ("libamdhip64.so.5", "libamdhip64.so.5"),
            ("libamdhip64.so.6", "libamdhip64.so.6"),
            ("libamdhip64.so.7", "libamdhip64.so.7"),
            ("libamdhip64.so", "libamdhip64.so.5"),
        ] {
            let link = dir.join(soname);
            if link == releases.join(target) {
                continue;
            }
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(releases.join(target), &link).map_err(|e| CliError::BadInput(format!("{}: {e}", link.display())))?;
        }
        let mut path = dir.display().to_string();
        if let Ok(old) = std::env::var("LD_LIBRARY_PATH") {
            if !old.is_empty() {
                path = format!("{path}:{old}");
            }
        }
        let mode = if timing { "timing" } else { "functional" };
        Ok(Prepared { dir, env: vec![("LD_LIBRARY_PATH", path), ("HIPSCOPE_GPU", gpu.to_string()), ("HIPSCOPE_MODE", mode.to_string())] })
    }

    /// `program args...` with this environment.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>, args: &[String]) -> Command {
        let mut c = Command::new(program);
        c.args(args).envs(self.env.iter().map(|(k, v)| (*k, v.as_str())));
        c
    }
}

impl Drop for Prepared {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
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
    if args.counters.is_some() && args.mode != ModeArg::Timing {
        return Err(CliError::BadInput("--counters: counters come from the timing model; add --mode timing".into()));
    }
    let outputs = [
        ("--kernel-trace", "HIPSCOPE_KERNEL_TRACE", &args.kernel_trace),
        ("--counters", "HIPSCOPE_COUNTERS", &args.counters),
        ("--report", "HIPSCOPE_REPORT", &args.report),
    ];
    // An output the library could not write would leave the program running with every HIP
    // call failing: refuse it before the program starts.
    for (flag, _, path) in outputs {
        if let Some(path) = path {
            check_writable(path).map_err(|e| CliError::BadInput(format!("{flag} {}: cannot write it: {e}", path.display())))?;
        }
    }
    let prepared = Prepared::new(&args.gpu, args.mode == ModeArg::Timing)?;
    let (program, rest) = args.command.split_first().ok_or_else(|| CliError::BadInput("no program given after --".into()))?;
    let mut cmd = prepared.command(program, rest);
    cmd.env("HIPSCOPE_SEED", args.seed.to_string());
    for (flag, var, path) in outputs {
        if let Some(path) = path {
            // The program may change directory: hand the library an absolute path.
            let abs = std::path::absolute(path).map_err(|e| CliError::BadInput(format!("{flag} {}: {e}", path.display())))?;
            cmd.env(var, abs);
        }
    }
    let status = cmd.status();
    drop(prepared);
    let status = status.map_err(|e| CliError::BadInput(format!("{program}: cannot run: {e}")))?;
    // The program's own exit status passes through (a signal as 128 + its number).
    let code = status.code().unwrap_or_else(|| {
        use std::os::unix::process::ExitStatusExt;
        128 + status.signal().unwrap_or(0)
    });
    Ok(ExitCode::from(code.clamp(0, 255) as u8))
}
