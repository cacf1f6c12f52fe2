//! `hipscope disasm`: kernels of a code object in LLVM assembly syntax, laid out as
//! `llvm-objdump-19 -d` prints them.

use super::CliError;
use hipscope_isa::codeobj;
use hipscope_isa::print::{listing, ListingOptions};
use std::path::PathBuf;
use std::process::ExitCode;

/// Wave size used to decode (it changes lane-mask operands: `vcc` vs `vcc_lo`).
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Wave {
    /// Each kernel's own wave size, from its kernel descriptor.
    Auto,
    /// Wave32 (what llvm-objdump assumes for all GFX10+ code).
    #[value(name = "32")]
    W32,
    /// Wave64.
    #[value(name = "64")]
    W64,
}

#[derive(clap::Args)]
pub struct Args {
    /// Code object, offload bundle or HIP executable.
    pub file: PathBuf,
    /// Only this kernel (or function symbol).
    #[arg(long)]
    pub kernel: Option<String>,
    /// Which code object to use when the file holds several (e.g. gfx90a, gfx942:xnack-).
    #[arg(long)]
    pub target: Option<String>,
    /// Wave size to decode with.
    #[arg(long, value_enum, default_value = "auto")]
    pub wave: Wave,
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let bytes = super::read_input(&args.file)?;
    let bad = |msg: String| CliError::BadInput(format!("{}: {msg}", args.file.display()));
    let co = codeobj::load(&bytes, args.target.as_deref()).map_err(|e| bad(e.to_string()))?;
    let opts = ListingOptions {
        symbol: args.kernel.clone(),
        wave64: match args.wave {
            Wave::Auto => None,
            Wave::W32 => Some(false),
            Wave::W64 => Some(true),
        },
    };
    let name = args.file.file_name().map_or_else(|| args.file.display().to_string(), |n| n.to_string_lossy().into_owned());
    let text = listing(&co, &name, &opts).map_err(|e| bad(e.to_string()))?;
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}
