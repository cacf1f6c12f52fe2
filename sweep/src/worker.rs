//! Keeping one point's failure to that point.
//!
//! A workload is user input, and the engines it reaches (a launch spec's expressions, a litmus
//! test's condition, a kernel) may panic, recurse deeper than a stack or abort. A panic can be
//! caught; a stack overflow cannot: Rust's guard page turns it into SIGSEGV and the runtime
//! aborts the whole process. Measured: a litmus condition of 100 000 `&&` terms overflows a
//! 2 MiB thread stack, 400 000 the 8 MiB main thread; before this module one such workload
//! aborted the sweep and every other point with it. So there are two ways to run points:
//!
//! * [`Isolation::Processes`] (what `hipscope sweep` uses): each job slot keeps a child
//!   process, `hipscope sweep worker`, that reads one [`Job`] per line on its stdin and writes
//!   the [`Outcome`] as one line, marked with [`OUTCOME_MARK`], on its stdout. A child that
//!   dies (a signal, an abort, the out-of-memory killer) fails only the point it was running,
//!   with the signal and the last line it wrote to stderr as the reason; the next point starts
//!   a new child. A child lives for the whole shard, so its start (about 10 ms) is paid once
//!   per job slot, not per point.
//! * [`Isolation::Threads`] (the library default, for callers without the executable): each
//!   point runs in this process on a thread with a [`POINT_STACK_BYTES`] stack and a panic is
//!   caught and recorded; a stack overflow still ends the process.
//!
//! In both, the point itself runs on a thread with a [`POINT_STACK_BYTES`] stack, so a
//! workload that needs a deep (but finite) stack gives the same result either way.

use crate::metrics::Metric;
use crate::plan::Workload;
use crate::points::{self, Point};
use crate::workload::{self, Context, Outcome};
use hipscope_sim::gpus::GpuConfig;
use hipscope_sim::Mode;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// The stack each point runs on: eight times the main thread's 8 MiB, so a workload that the
/// CLI's `hipscope run` or `hipscope grade` can run on its main thread runs in a sweep too.
/// Only the pages a point touches are committed.
pub const POINT_STACK_BYTES: usize = 64 << 20;

/// Starts a worker's outcome line (anything else a workload prints on stdout is skipped).
pub const OUTCOME_MARK: &str = "hipscope-sweep-outcome ";

/// Most bytes of a worker's stderr read back to explain its death.
const STDERR_TAIL_BYTES: u64 = 4096;

/// How the points of a shard are kept apart (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Isolation {
    Threads,
    /// Child processes of this executable (`EXE sweep worker`).
    Processes {
        exe: PathBuf,
    },
}

/// One point as a worker process receives it: everything it needs, nothing shared.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Job {
    pub point: Point,
    pub workload: Workload,
    pub mode: Mode,
    /// As the plan writes them (checked when the plan was read).
    pub metrics: Vec<String>,
    pub base: GpuConfig,
    /// The base config's `origin` (not part of its serde form).
    pub origin: String,
    pub cx: Context,
}

/// Run `point` on its config: the config made and checked, then the workload. Errors and
/// faults are the outcome; this does not panic on any input, but see [`run_guarded`].
pub fn execute(point: &Point, w: &Workload, mode: Mode, metrics: &[Metric], base: &GpuConfig, cx: &Context) -> Outcome {
    match points::configure(base, &point.params) {
        Ok(cfg) => workload::run(w, mode, metrics, point, &cfg, cx),
        Err(message) => Outcome::Failed { fault: false, message },
    }
}

/// `f` on a fresh thread with a [`POINT_STACK_BYTES`] stack, a panic turned into a failed
/// outcome naming its message.
pub fn run_guarded(f: impl FnOnce() -> Outcome + Send) -> Outcome {
    let spawned = std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("sweep-point".into())
            .stack_size(POINT_STACK_BYTES)
            .spawn_scoped(s, || catch_unwind(AssertUnwindSafe(f)))
            .map(|h| h.join())
    });
    match spawned {
        Ok(Ok(Ok(outcome))) => outcome,
        Ok(Ok(Err(panic))) | Ok(Err(panic)) => Outcome::Failed { fault: false, message: format!("the simulator panicked: {}", panic_text(&*panic)) },
        Err(e) => Outcome::Failed { fault: false, message: format!("cannot start a thread for the point: {e}") },
    }
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_else(|| "(no message)".into())
}

/// Run a job as the worker process does.
pub fn run_job(job: &Job) -> Outcome {
    let metrics: Result<Vec<Metric>, String> = job.metrics.iter().map(|m| Metric::parse(m)).collect();
    let metrics = match metrics {
        Ok(m) => m,
        Err(message) => return Outcome::Failed { fault: false, message },
    };
    let mut base = job.base.clone();
    base.origin.clone_from(&job.origin);
    run_guarded(|| execute(&job.point, &job.workload, job.mode, &metrics, &base, &job.cx))
}

/// The worker process: a job per input line, an outcome per output line, until the input
/// ends. A line that is not a job is answered with a failed outcome (the parent wrote it, so
/// this is a bug, not user input).
pub fn serve(input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    for line in input.lines() {
        let line = line?;
        let outcome = match serde_json::from_str::<Job>(&line) {
            Ok(job) => run_job(&job),
            Err(e) => Outcome::Failed { fault: false, message: format!("the worker could not read its job: {e}") },
        };
        let text = serde_json::to_string(&outcome).map_err(std::io::Error::other)?;
        writeln!(output, "{OUTCOME_MARK}{text}")?;
        output.flush()?;
    }
    Ok(())
}

/// A worker child process, started on first use and again after it dies.
pub struct WorkerProcess {
    exe: PathBuf,
    /// The child's stderr goes here (read back when it dies).
    stderr: PathBuf,
    child: Option<(Child, ChildStdin, BufReader<ChildStdout>)>,
}

impl WorkerProcess {
    pub fn new(exe: &Path, stderr: PathBuf) -> WorkerProcess {
        WorkerProcess { exe: exe.to_path_buf(), stderr, child: None }
    }

    fn start(&mut self) -> Result<(), String> {
        let log = std::fs::File::create(&self.stderr).map_err(|e| format!("{}: {e}", self.stderr.display()))?;
        let mut child = Command::new(&self.exe)
            .args(["sweep", "worker"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("cannot start {} sweep worker: {e}", self.exe.display()))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err("the worker process has no stdin/stdout pipe".into());
        };
        self.child = Some((child, stdin, BufReader::new(stdout)));
        Ok(())
    }

    /// Run `job` in the child: its outcome, or a failed outcome saying how the child died.
    pub fn run(&mut self, job: &Job) -> Outcome {
        let failed = |message: String| Outcome::Failed { fault: false, message };
        let text = match serde_json::to_string(job) {
            Ok(t) => t,
            Err(e) => return failed(format!("the point cannot be sent to a worker: {e}")),
        };
        // A child killed while idle (by the out-of-memory killer, say) is replaced first.
        if self.child.as_mut().is_some_and(|(c, _, _)| !matches!(c.try_wait(), Ok(None))) {
            self.reap();
        }
        if self.child.is_none() {
            if let Err(e) = self.start() {
                return failed(e);
            }
        }
        let Some((_, stdin, stdout)) = self.child.as_mut() else { return failed("no worker process".into()) };
        if writeln!(stdin, "{text}").and_then(|()| stdin.flush()).is_err() {
            return failed(format!("the worker process died before the point started: {}", self.reap()));
        }
        let mut line = String::new();
        loop {
            line.clear();
            match stdout.read_line(&mut line) {
                Ok(0) | Err(_) => return failed(format!("the worker process running this point died: {}", self.reap())),
                Ok(_) => {}
            }
            if let Some(json) = line.trim_end().strip_prefix(OUTCOME_MARK) {
                return serde_json::from_str(json).unwrap_or_else(|e| failed(format!("the worker's answer was not an outcome: {e}")));
            }
        }
    }

    /// Wait for the dead (or stuck) child; how it ended and the last line of its stderr.
    fn reap(&mut self) -> String {
        let Some((mut child, stdin, _)) = self.child.take() else { return "no worker process".into() };
        drop(stdin);
        let _ = child.kill();
        let status = match child.wait() {
            Ok(s) => describe_status(s),
            Err(e) => format!("cannot wait for it: {e}"),
        };
        match last_line(&self.stderr) {
            Some(l) => format!("{status}; its last words: {l}"),
            None => status,
        }
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        // Closing its stdin ends the worker's loop.
        if let Some((mut child, stdin, _)) = self.child.take() {
            drop(stdin);
            let _ = child.wait();
        }
    }
}

/// `exit status 3`, or `killed by signal 6 (SIGABRT: an abort, such as Rust's on a stack
/// overflow)`.
fn describe_status(s: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = s.signal() {
            let what = match sig {
                6 => " (SIGABRT: an abort, such as the runtime's on a stack overflow)",
                9 => " (SIGKILL: killed, perhaps by the out-of-memory killer)",
                11 => " (SIGSEGV: a bad memory access)",
                _ => "",
            };
            return format!("killed by signal {sig}{what}");
        }
    }
    format!("{s}")
}

/// The last non-empty line of `path`'s last [`STDERR_TAIL_BYTES`], if any.
fn last_line(path: &Path) -> Option<String> {
    let mut f = std::fs::File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    f.seek(SeekFrom::Start(len.saturating_sub(STDERR_TAIL_BYTES))).ok()?;
    let mut tail = Vec::new();
    f.take(STDERR_TAIL_BYTES).read_to_end(&mut tail).ok()?;
    let text = String::from_utf8_lossy(&tail);
    // The runtime's stack-overflow report is two lines; the first says which thread.
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let overflow = lines.iter().rev().find(|l| l.contains("overflowed its stack"));
    overflow.or(lines.last()).map(|l| without_thread_id(l).chars().take(300).collect())
}

/// `thread 'x' (28340) has…` without the `(28340)`, which differs from run to run (results
/// of `--jobs 1` and `--jobs 2` are the same bytes).
fn without_thread_id(line: &str) -> String {
    let Some(start) = line.find("' (") else { return line.to_string() };
    let rest = &line[start + 3..];
    match rest.find(')') {
        Some(end) if end > 0 && rest[..end].bytes().all(|b| b.is_ascii_digit()) => format!("{}'{}", &line[..start], &rest[end + 1..]),
        _ => line.to_string(),
    }
}

/// Keep SIGPIPE from this thread: a write to the stdin of a worker that just died then fails
/// with EPIPE (and the point is recorded as failed) whatever the process's SIGPIPE
/// disposition, which a command may set to "terminate" so that `| head` ends it quietly.
/// Children start with an empty signal mask (the standard library resets it on spawn).
pub fn block_sigpipe_on_this_thread() {
    #[cfg(unix)]
    // SAFETY: plain libc calls on a local, zero-initialised signal set; pthread_sigmask only
    // changes the calling thread's mask.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}
