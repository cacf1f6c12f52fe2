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
pub mod limits;
pub mod lisa;
pub mod marks;
pub mod opencl;
pub mod program;
pub mod ptx;
pub mod text;
pub mod typecheck;
pub mod validate;
pub mod vulkan;

use std::io::Read as _;
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

/// The byte-order mark some Windows editors put at the start of a UTF-8 file.
const BOM: char = '\u{feff}';

/// Parses one litmus file's text; `file` only names it in errors. A leading byte-order mark
/// is skipped (columns on the first line are counted after it, as editors show them).
pub fn parse(file: &Path, source: &str) -> Result<Litmus, LitmusError> {
    let source = source.strip_prefix(BOM).unwrap_or(source);
    let first = text::first_word(source);
    let Some(dialect) = dialect_of(first.0) else {
        return Err(LitmusError::new(
            file,
            first.1,
            format!("unknown litmus dialect `{}`: the first word must be OPENCL, PTX, GPU_PTX, VULKAN, LISA, Bell or HIP", first.0),
        ));
    };
    let test = parse_dialect(dialect, source).map_err(|e| e.in_file(file))?;
    validate::check(&test).map_err(|e| e.in_file(file))?;
    Ok(test)
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

/// Reads a litmus file as text; errors name the file. Only a regular file of at most
/// [`limits::MAX_FILE_BYTES`] is read: its metadata is checked before it is opened, since
/// opening a FIFO blocks until a writer comes and reading a device may never end. A leading
/// byte-order mark is dropped.
pub fn read_source(file: &Path) -> Result<String, LitmusError> {
    let whole = |message: String| LitmusError::new(file, Span::default(), message);
    let meta = std::fs::metadata(file).map_err(|e| whole(format!("cannot read: {e}")))?;
    if !meta.is_file() {
        return Err(whole(format!("not a regular file ({}); a litmus test is a text file", file_kind(&meta))));
    }
    let too_large = || whole(format!("larger than {} KiB; a litmus test is a few KiB of text", limits::MAX_FILE_BYTES / 1024));
    if meta.len() > limits::MAX_FILE_BYTES {
        return Err(too_large());
    }
    let opened = std::fs::File::open(file).map_err(|e| whole(format!("cannot read: {e}")))?;
    // The file may have grown since its metadata was read: read one byte past the limit.
    let mut bytes = Vec::new();
    opened.take(limits::MAX_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(|e| whole(format!("cannot read: {e}")))?;
    if bytes.len() as u64 > limits::MAX_FILE_BYTES {
        return Err(too_large());
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        whole(format!("not UTF-8 text (invalid byte at offset {offset})"))
    })?;
    Ok(match text.strip_prefix(BOM) {
        Some(rest) => rest.to_string(),
        None => text,
    })
}

/// What a path that is not a regular file is, for the error.
fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    let kind = meta.file_type();
    if kind.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
    }
    "a special file"
}

/// Reads and parses a litmus file.
pub fn parse_file(file: &Path) -> Result<Litmus, LitmusError> {
    parse(file, &read_source(file)?)
}
