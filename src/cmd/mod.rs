//! One module per subcommand, plus the error type that maps failures to exit codes.

pub mod disasm;
pub mod info;

use std::fmt;
use std::process::ExitCode;

/// A failure that ends a command. Its `Display` is the single line the user sees.
#[derive(Debug)]
pub enum CliError {
    /// Bad input (unreadable or malformed file, unknown target, ...): exit 2.
    BadInput(String),
}

impl CliError {
    pub fn exit_code(&self) -> ExitCode {
        match self {
            CliError::BadInput(_) => ExitCode::from(2),
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::BadInput(msg) => f.write_str(msg),
        }
    }
}

/// Read a whole input file, naming it in the error.
pub fn read_input(path: &std::path::Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|e| CliError::BadInput(format!("{}: cannot read: {e}", path.display())))
}
