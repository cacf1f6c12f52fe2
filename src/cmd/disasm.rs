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
    /// Only this kernel (or function symbol): its name in the code object, or its C++ source
    /// name (`scale(float*, float, unsigned int)`, `demo::offset<2>`, `vadd` when unique).
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
    // With `--kernel`, a file holding several code objects for the target (one per translation
    // unit of a library) needs no more: the one holding the kernel is taken.
    let co = match &args.kernel {
        Some(k) => codeobj::load_containing(&bytes, args.target.as_deref(), &|co| co.code_symbols.iter().any(|s| &s.name == k) || co.find_kernel(k).is_ok()),
        None => codeobj::load(&bytes, args.target.as_deref()),
    }
    .map_err(|e| bad(e.to_string()))?;
    let opts = ListingOptions {
        symbol: args.kernel.as_deref().map(|k| symbol_for(&co, k)).transpose().map_err(bad)?,
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

/// The code symbol `--kernel` means: a symbol of that name, else the kernel whose C++ source
/// name it is (an ambiguous source name is an error listing the candidates).
fn symbol_for(co: &codeobj::CodeObject, wanted: &str) -> Result<String, String> {
    if co.code_symbols.iter().any(|s| s.name == wanted) {
        return Ok(wanted.to_string());
    }
    match co.find_kernel(wanted) {
        Ok(k) => Ok(k.name.clone()),
        Err(e @ codeobj::KernelLookupError::Ambiguous { .. }) => Err(e.to_string()),
        // The listing reports a missing symbol with the kernels it has.
        Err(codeobj::KernelLookupError::NotFound { .. }) => Ok(wanted.to_string()),
    }
}
