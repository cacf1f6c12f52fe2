//! The environment a HIP program runs in on the simulated GPU: the cached directory beside our
//! runtime that holds it under each release's soname, first on `LD_LIBRARY_PATH`, and the
//! variables through which the runtime learns the GPU, the mode, the seed and where its outputs
//! go (read in `hip/src/runtime.rs`).

use super::abi_library;
use hipscope_sim::Mode;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// Our HIP runtime: next to the `hipscope` executable `hipscope`. Cargo puts a dependency's
/// shared library in `deps/` beside it, and a build of the `hipscope-hip` package alone also
/// copies it beside the executable; the newer of the two is the one built with this executable.
fn runtime_library(hipscope: &Path) -> Result<PathBuf, String> {
    let dir = hipscope.parent().unwrap_or(Path::new("."));
    let modified = |p: &PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    [dir.join("libamdhip64.so"), dir.join("deps/libamdhip64.so")]
        .into_iter()
        .filter(|p| p.is_file())
        .max_by_key(modified)
        .ok_or_else(|| format!("libamdhip64.so (hipscope's HIP runtime) is not next to {}; build it with `cargo build --release`", hipscope.display()))
}

/// A name no other preparation in this process or another one uses (runs of one process may
/// prepare environments at the same time: a sweep's points on threads).
fn unique_suffix() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!("{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Every name a program may load the runtime by, and the release copy it gets: the unversioned
/// name (a program linked without a soname, or a `dlopen("libamdhip64.so")`) is release 5's.
const SONAMES: [(&str, u32); 4] = [("libamdhip64.so.5", 5), ("libamdhip64.so.6", 6), ("libamdhip64.so.7", 7), ("libamdhip64.so", 5)];

/// What the cache's stamp says besides the library's size and time: the layout of the
/// directory (`2`: the unversioned name is a link in it), so that a cache an older hipscope
/// made is made again.
const CACHE_LAYOUT: &str = "2";

/// The directory holding the runtime under every name of [`SONAMES`], each release's copy with
/// that release's symbol versions: made once per build of the library, in `hipscope-abi/`
/// beside it (each file written to a temporary name and renamed, so concurrent runs never see
/// half a file), and put first on `LD_LIBRARY_PATH` as it is. Only when that is not writable
/// does a run make the copies in a private directory of its own (`Some`: removed again when
/// the run ends). Why not a private directory of links every run: making and removing it were
/// about 1 ms of a short run's CPU time and, on a busy ext4 file system, up to 30 ms of its
/// wall time (strace of `exec` on matrixtranspose 64, 2026-12-06: four `unlinkat` calls of
/// 3-16 ms each after the program had exited).
fn release_libraries(library: &Path) -> Result<(PathBuf, Option<PathBuf>), String> {
    let meta = std::fs::metadata(library).map_err(|e| format!("{}: {e}", library.display()))?;
    let modified = meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos());
    let stamp = format!("{CACHE_LAYOUT} {} {modified}\n", meta.len());
    let cache = library.parent().unwrap_or(Path::new(".")).join("hipscope-abi");
    if std::fs::read_to_string(cache.join("stamp")).is_ok_and(|s| s == stamp) {
        return Ok((cache, None));
    }
    let bytes = std::fs::read(library).map_err(|e| format!("{}: {e}", library.display()))?;
    let write_all = |dir: &Path| -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        for (soname, major) in SONAMES {
            let tmp = dir.join(format!(".{soname}.{}", unique_suffix()));
            if soname == "libamdhip64.so" {
                std::os::unix::fs::symlink(format!("libamdhip64.so.{major}"), &tmp)?;
            } else {
                let copy = abi_library::release_copy(&bytes, major).map_err(|e| std::io::Error::other(format!("{}: {e}", library.display())))?;
                std::fs::write(&tmp, copy)?;
                std::fs::set_permissions(&tmp, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
            }
            std::fs::rename(&tmp, dir.join(soname))?;
        }
        let tmp = dir.join(format!(".stamp.{}", unique_suffix()));
        std::fs::write(&tmp, &stamp)?;
        std::fs::rename(tmp, dir.join("stamp"))
    };
    match write_all(&cache) {
        Ok(()) => Ok((cache, None)),
        Err(e) if e.kind() == std::io::ErrorKind::Other => Err(e.to_string()),
        Err(_) => {
            let private = std::env::temp_dir().join(format!("hipscope-exec-{}", unique_suffix()));
            match write_all(&private) {
                Ok(()) => Ok((private.clone(), Some(private))),
                Err(e) => {
                    let _ = std::fs::remove_dir_all(&private);
                    Err(format!("{}: {e}", private.display()))
                }
            }
        }
    }
}

/// A file the runtime writes besides the program's own output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// One row per kernel launch, in the columns of rocprofv3's kernel trace CSV.
    KernelTrace,
    /// The timing model's counters, one row per kernel launch.
    Counters,
    /// The JSON report written at exit.
    Report,
}

impl Output {
    /// The variable that names the file to the runtime.
    fn variable(self) -> &'static str {
        match self {
            Output::KernelTrace => "HIPSCOPE_KERNEL_TRACE",
            Output::Counters => "HIPSCOPE_COUNTERS",
            Output::Report => "HIPSCOPE_REPORT",
        }
    }
}

/// The environment a program needs to run on the simulated GPU: our library first on
/// `LD_LIBRARY_PATH`, from the shared cache beside it or, when that cannot be written, from a
/// private directory that goes when this does.
pub struct Environment {
    private: Option<PathBuf>,
    env: Vec<(&'static str, OsString)>,
}

impl Environment {
    /// For `gpu` (a name or config file, checked here) in `mode`, with the runtime built
    /// beside the `hipscope` executable `hipscope`.
    pub fn new(hipscope: &Path, gpu: &str, mode: Mode) -> Result<Environment, String> {
        // Refuse a GPU we cannot simulate before the program starts.
        let config = hipscope_sim::gpus::resolve(gpu).map_err(|e| format!("--gpu: {e}"))?;
        if mode.is_timing() && config.timing.is_none() {
            return Err(format!("--gpu {}: the config has no timing section", config.name));
        }
        Environment::with_target(hipscope, ("HIPSCOPE_GPU", gpu.into()), mode)
    }

    /// For the node `node` (a built-in name or a node file, checked here: `hipscope exec
    /// --node`) in `mode`: the program sees its GPUs.
    pub fn for_node(hipscope: &Path, node: &str, mode: Mode) -> Result<Environment, String> {
        let loaded = hipscope_sim::node::Node::load(node).map_err(|e| format!("--node: {e}"))?;
        if let Some(g) = loaded.gpus.iter().find(|g| mode.is_timing() && g.timing.is_none()) {
            return Err(format!("--node {}: GPU {} has no timing section", loaded.name(), g.name));
        }
        // A file is named by its absolute path: the program may change directory.
        let named: OsString = if hipscope_sim::node::Node::names().contains(&node) {
            node.into()
        } else {
            std::path::absolute(node).map_err(|e| format!("--node {node}: {e}"))?.into_os_string()
        };
        Environment::with_target(hipscope, ("HIPSCOPE_NODE", named), mode)
    }

    /// The directory and environment, with `target` naming what to simulate.
    fn with_target(hipscope: &Path, target: (&'static str, OsString), mode: Mode) -> Result<Environment, String> {
        let library = runtime_library(hipscope)?;
        let (dir, private) = release_libraries(&library)?;
        let mut path = dir.display().to_string();
        if let Ok(old) = std::env::var("LD_LIBRARY_PATH") {
            if !old.is_empty() {
                path = format!("{path}:{old}");
            }
        }
        // No `GLIBC_TUNABLES=glibc.malloc.hugetlb=1` for the program's C heap, though it
        // saves three in four page faults of a timing run: on a host that hands freed memory
        // back to its hypervisor (this VM), a huge page taken after another process freed
        // memory costs more than the small pages it replaces. Measured twice, alternating
        // with a 1.2 GB process run before each (as MGPUSim's runs precede ours in the side
        // by side): timing relu 1M 0.449 -> 0.528 s, vectoradd 1M 0.557 -> 0.708 s,
        // matrixtranspose 1024 0.256 -> 0.289 s (fir 65536 gained, 0.195 -> 0.133), and on
        // 2026-12-07 morning matrixtranspose 0.223 -> 0.358 s after a 700 MB process.
        let env = vec![("LD_LIBRARY_PATH", path.into()), target, ("HIPSCOPE_MODE", mode.name().into())];
        Ok(Environment { private, env })
    }

    /// The seed of the engine's choices among legal interleavings (the runtime's default: 0).
    pub fn set_seed(&mut self, seed: u64) {
        self.env.push(("HIPSCOPE_SEED", seed.to_string().into()));
    }

    /// Host threads a functional dispatch may run on (the runtime's default: auto).
    pub fn set_threads(&mut self, threads: hipscope_sim::Threads) {
        self.env.push(("HIPSCOPE_THREADS", threads.to_string().into()));
    }

    /// The no-progress bound (`--no-progress-cycles`: cycles in timing mode, wave-instructions
    /// in functional mode; 0: none; the runtime's default: the engine's).
    pub fn set_no_progress(&mut self, n: u64) {
        self.env.push(("HIPSCOPE_NO_PROGRESS", n.to_string().into()));
    }

    /// Sampled timing (`--sample`; the runtime's default: off): launches the runtime may
    /// predict instead of simulating in detail ([`hipscope_sim::sample`]).
    pub fn set_sample(&mut self, policy: hipscope_sim::sample::SamplePolicy) {
        self.env.push(("HIPSCOPE_SAMPLE", policy.name().into()));
    }

    /// Have the runtime write `output` to `path`, made absolute here because the program may
    /// change directory.
    pub fn set_output(&mut self, output: Output, path: &Path) -> std::io::Result<()> {
        let abs = std::path::absolute(path)?;
        self.env.push((output.variable(), abs.into_os_string()));
        Ok(())
    }

    /// `program args...` with this environment.
    pub fn command(&self, program: impl AsRef<OsStr>, args: &[String]) -> Command {
        let mut c = Command::new(program);
        c.args(args).envs(self.env.iter().map(|(k, v)| (*k, v.as_os_str())));
        c
    }
}

impl Drop for Environment {
    fn drop(&mut self) {
        if let Some(dir) = &self.private {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}
