//! One module per subcommand, plus the error type that maps failures to exit codes:
//! 0 ok, 1 a check or expectation failed (reported by the command itself), 2 bad input,
//! 3 kernel fault.

pub mod common_args;
pub mod disasm;
pub mod exec;
pub mod gpus;
pub mod grade;
pub mod grade_code;
pub mod info;
pub mod nodes;
pub mod run;
pub mod scopes;
pub mod sweep;
pub mod validate;

use indicatif::{ProgressBar, ProgressStyle};
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// A failure that ends a command. Its `Display` is the single line the user sees.
#[derive(Debug)]
pub enum CliError {
    /// Bad input (unreadable or malformed file, unknown target, ...): exit 2.
    BadInput(String),
    /// A kernel faulted the way a GPU would (bad address, unsupported instruction, ...): exit 3.
    Fault(String),
}

impl CliError {
    pub fn exit_code(&self) -> ExitCode {
        match self {
            CliError::BadInput(_) => ExitCode::from(2),
            CliError::Fault(_) => ExitCode::from(3),
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::BadInput(msg) | CliError::Fault(msg) => f.write_str(msg),
        }
    }
}

/// Read a whole input file, naming it in the error.
pub fn read_input(path: &std::path::Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|e| CliError::BadInput(format!("{}: cannot read: {e}", path.display())))
}

/// A directory given on the command line, else `relative` under the current directory, else
/// under the repository this binary was built from.
pub fn locate(given: &Option<PathBuf>, relative: &str, flag: &str) -> Result<PathBuf, CliError> {
    if let Some(d) = given {
        return if d.is_dir() { Ok(d.clone()) } else { Err(CliError::BadInput(format!("{flag} {}: not a directory", d.display()))) };
    }
    let here = PathBuf::from(relative);
    if here.is_dir() {
        return Ok(here);
    }
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    if built.is_dir() {
        return Ok(built);
    }
    Err(CliError::BadInput(format!("{relative} not found (pass {flag} DIR)")))
}

/// A progress bar for a run that the engines count in `p`: drawn on stderr (only when it is
/// a terminal) once the run has taken more than a second, with the work-groups done, the rate
/// and an estimate of the time left; cleared when the guard is dropped.
pub struct RunBar {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl RunBar {
    pub fn start(p: &'static hipscope_sim::engine::RunProgress) -> RunBar {
        use std::sync::atomic::Ordering::Relaxed;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let begin = std::time::Instant::now();
            let mut bar: Option<ProgressBar> = None;
            while !flag.load(Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(100));
                let (done, total) = (p.groups_done.load(Relaxed), p.groups_total.load(Relaxed));
                if bar.is_none() && begin.elapsed().as_secs() >= 1 && total > 0 {
                    let b = ProgressBar::new(total);
                    if let Ok(style) = ProgressStyle::with_template("{spinner} {elapsed_precise} {bar:20} {pos}/{len} work-groups, {eta} left") {
                        b.set_style(style);
                    }
                    bar = Some(b);
                }
                if let Some(b) = &bar {
                    b.set_length(total.max(1));
                    b.set_position(done.min(total));
                }
            }
            if let Some(b) = bar {
                b.finish_and_clear();
            }
        });
        RunBar { stop, thread: Some(thread) }
    }
}

impl Drop for RunBar {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

pub fn progress(jobs: usize) -> ProgressBar {
    let bar = ProgressBar::new(jobs as u64);
    if let Ok(style) = ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}") {
        bar.set_style(style);
    }
    bar
}
