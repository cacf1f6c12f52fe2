//! The one error type of the loader.
//!
//! Every variant's `Display` is a single line that says what is wrong and where (byte offset,
//! section, note, metadata path or kernel). Strings taken from the input are passed through
//! [`show`] first, so a hostile name can neither break the line nor flood the terminal.

use std::fmt::Write as _;

/// Why a file could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    #[error("file is empty")]
    Empty,
    #[error("not an AMDGPU code object, offload bundle or HIP executable (first bytes: {magic})")]
    UnknownFormat { magic: String },
    /// A structural ELF problem found by the `object` crate (bad offsets, sizes, tables).
    #[error("ELF {context}: {message}")]
    Elf { context: String, message: String },
    /// The ELF is well formed but not an AMDGPU HSA code object we can load.
    #[error("ELF header: {0}")]
    Header(String),
    #[error("ELF section {section}: {problem}")]
    Section { section: String, problem: String },
    #[error("note {note} ({section}+{offset:#x}): {problem}")]
    Note { section: String, note: String, offset: u64, problem: String },
    #[error("metadata {path}: {problem}")]
    Metadata { path: String, problem: String },
    #[error("kernel {kernel}: {problem}")]
    Kernel { kernel: String, problem: String },
    #[error("relocation #{index} in {section}: {problem}")]
    Relocation { section: String, index: usize, problem: String },
    #[error("offload bundle at byte {offset:#x}: {problem}")]
    Bundle { offset: u64, problem: String },
    /// A compressed bundle (`CCOB`) whose header or stream is unusable: unknown version or
    /// method, sizes out of bounds, truncated or corrupt data, a wrong hash.
    #[error("compressed offload bundle at byte {offset:#x}: {problem}")]
    CompressedBundle { offset: u64, problem: String },
    #[error("host executable: {0}")]
    HostExecutable(String),
    #[error("no code object for target {wanted}; available: {available}")]
    TargetNotFound { wanted: String, available: String },
    #[error("contains several code objects; choose one with --target (available: {available})")]
    TargetRequired { available: String },
    #[error("contains no AMDGPU code object (entries: {entries})")]
    NoDeviceCode { entries: String },
    /// An error inside one entry of a container, with the entry's place in the file.
    #[error("{entry} at byte {offset:#x}: {inner}")]
    InEntry { entry: String, offset: u64, inner: Box<LoadError> },
}

impl LoadError {
    pub(crate) fn elf(context: impl Into<String>, err: object::read::Error) -> LoadError {
        LoadError::Elf { context: context.into(), message: err.to_string() }
    }

    pub(crate) fn header(problem: impl Into<String>) -> LoadError {
        LoadError::Header(problem.into())
    }

    pub(crate) fn kernel(kernel: &str, problem: impl Into<String>) -> LoadError {
        LoadError::Kernel { kernel: show(kernel), problem: problem.into() }
    }

    pub(crate) fn metadata(path: impl Into<String>, problem: impl Into<String>) -> LoadError {
        LoadError::Metadata { path: path.into(), problem: problem.into() }
    }

    pub(crate) fn section(section: &str, problem: impl Into<String>) -> LoadError {
        LoadError::Section { section: show(section), problem: problem.into() }
    }

    /// Wrap an error that happened inside a container entry.
    pub(crate) fn in_entry(self, entry: &str, offset: u64) -> LoadError {
        LoadError::InEntry { entry: show(entry), offset, inner: Box::new(self) }
    }
}

/// Printable, single-line, bounded form of an input-derived string: control characters and
/// non-ASCII are escaped and the result is cut at 80 characters.
pub fn show(s: &str) -> String {
    const MAX: usize = 80;
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == MAX {
            out.push_str("...");
            break;
        }
        if c.is_ascii_graphic() || c == ' ' {
            out.push(c);
        } else {
            let _ = write!(out, "{}", c.escape_default());
        }
    }
    out
}

/// [`show`] for raw bytes (names in ELF string tables need not be UTF-8).
pub fn show_bytes(b: &[u8]) -> String {
    show(&String::from_utf8_lossy(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn show_escapes_and_truncates() {
        assert_eq!(show("a\nb"), "a\\nb");
        assert_eq!(show(&"x".repeat(200)).len(), 83);
        assert_eq!(show("gfx90a:xnack+"), "gfx90a:xnack+");
    }

    #[test]
    fn compressed_bundle_errors_name_the_offset() {
        let e = LoadError::CompressedBundle { offset: 0x3000, problem: "CCOB version 2, zstd: hash mismatch".into() };
        assert_eq!(e.to_string(), "compressed offload bundle at byte 0x3000: CCOB version 2, zstd: hash mismatch");
    }

    #[test]
    fn nested_error_is_one_line() {
        let e = LoadError::header("e_machine is 62, expected 224 (EM_AMDGPU)").in_entry("hipv4-amdgcn-amd-amdhsa--gfx90a\n", 0x1000);
        let s = e.to_string();
        assert!(!s.contains('\n'), "{s}");
        assert!(s.contains("0x1000"), "{s}");
    }
}
