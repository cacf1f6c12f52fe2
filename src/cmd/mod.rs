//! One module per subcommand, plus the error type that maps failures to exit codes:
//! 0 ok, 1 a check or expectation failed (reported by the command itself), 2 bad input,
//! 3 kernel fault.

pub mod disasm;
pub mod gpus;
pub mod info;
pub mod run;
pub mod scopes;
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

pub fn progress(jobs: usize) -> ProgressBar {
    let bar = ProgressBar::new(jobs as u64);
    if let Ok(style) = ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}") {
        bar.set_style(style);
    }
    bar
}
