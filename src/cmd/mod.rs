//! One module per subcommand, plus the error type that maps failures to exit codes:
//! 0 ok, 1 a check or expectation failed (reported by the command itself), 2 bad input,
//! 3 kernel fault.

pub mod disasm;
pub mod gpus;
pub mod info;
pub mod run;
pub mod validate;

use std::fmt;
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
