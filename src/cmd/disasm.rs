//! `hipscope disasm`.
use super::CliError;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Code object, offload bundle or HIP executable.
    pub file: PathBuf,
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let _ = super::read_input(&args.file)?;
    Err(CliError::BadInput(format!("{}: disasm is not implemented yet", args.file.display())))
}
