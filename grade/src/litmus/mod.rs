//! Litmus tests: three dialects in, one typed [`Litmus`] program out.
//!
//! | dialect | recognised by | module |
//! |---|---|---|
//! | Dartagnan OpenCL C | first word `OPENCL` | [`opencl`] |
//! | Dartagnan PTX / Vulkan, herd 2015 GPU_PTX | first word `PTX`, `Vulkan`/`VULKAN`, `GPU_PTX` | [`columns`] |
//! | herd LISA (HSA bell, tutorial scope bells) | first word `LISA` or `Bell` | [`columns`] |
//! | hipscope's HIP dialect | first word `HIP` | [`hip`] |
//!
//! Every error names the file, line and column.

pub mod arith;
pub mod columns;
pub mod condition;
pub mod error;
pub mod hip;
pub mod lisa;
pub mod opencl;
pub mod program;
pub mod ptx;
pub mod text;
pub mod typecheck;
pub mod value_type;
pub mod vulkan;

use std::path::Path;

pub use error::{LitmusError, ParseResult, SyntaxError};
pub use program::*;

/// Which parser a file's first word selects.
fn dialect_of(first_word: &str) -> Option<Dialect> {
    match first_word {
        "OPENCL" => Some(Dialect::OpenCl),
        "PTX" | "GPU_PTX" => Some(Dialect::Ptx),
        "VULKAN" | "Vulkan" => Some(Dialect::Vulkan),
        "LISA" | "Bell" => Some(Dialect::Lisa),
        "HIP" => Some(Dialect::Hip),
        _ => None,
    }
}

/// Parses one litmus file's text; `file` only names it in errors.
pub fn parse(file: &Path, source: &str) -> Result<Litmus, LitmusError> {
    let first = text::first_word(source);
    let Some(dialect) = dialect_of(first.0) else {
        return Err(LitmusError::new(
            file,
            first.1,
            format!("unknown litmus dialect `{}`: the first word must be OPENCL, PTX, GPU_PTX, VULKAN, LISA, Bell or HIP", first.0),
        ));
    };
    parse_dialect(dialect, source).map_err(|e| e.in_file(file))
}

fn parse_dialect(dialect: Dialect, source: &str) -> ParseResult<Litmus> {
    let test = parse_text(dialect, source)?;
    typecheck::check(&test)?;
    Ok(test)
}

fn parse_text(dialect: Dialect, source: &str) -> ParseResult<Litmus> {
    match dialect {
        Dialect::OpenCl => opencl::parse(source),
        Dialect::Lisa => lisa::parse(source),
        Dialect::Ptx => ptx::parse(source),
        Dialect::Vulkan => vulkan::parse(source),
        Dialect::Hip => hip::parse(source),
    }
}

/// Reads a litmus file as text; errors name the file.
pub fn read_source(file: &Path) -> Result<String, LitmusError> {
    let bytes = std::fs::read(file).map_err(|e| LitmusError::new(file, Span::default(), format!("cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        LitmusError::new(file, Span::default(), format!("not UTF-8 text (invalid byte at offset {offset})"))
    })
}

/// Reads and parses a litmus file.
pub fn parse_file(file: &Path) -> Result<Litmus, LitmusError> {
    parse(file, &read_source(file)?)
}
