//! Importers for real-device measurements, one module per source. Each turns one tool's output
//! files into typed records; comparisons never parse text themselves. Every failure is a
//! [`DataError`]: one line naming the file, where in it (line, field) and what is wrong.

pub mod gpu_benches;
pub mod rocprof;
pub mod table;

use std::fmt;
use std::path::Path;

/// Why a measurement file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct DataError {
    pub file: String,
    /// 1-based line of the file, when the problem is on one line.
    pub line: Option<u64>,
    /// Column or field name, when the problem is in one field.
    pub field: Option<String>,
    pub what: String,
}

impl DataError {
    /// A problem with the file as a whole (unreadable, empty, missing column).
    pub fn file(path: &Path, what: impl Into<String>) -> DataError {
        DataError { file: path.display().to_string(), line: None, field: None, what: one_line(what.into()) }
    }

    /// A problem on one line.
    pub fn at(path: &Path, line: u64, what: impl Into<String>) -> DataError {
        DataError { line: Some(line), ..DataError::file(path, what) }
    }

    /// A problem in one field of one line.
    pub fn field(path: &Path, line: u64, field: &str, what: impl Into<String>) -> DataError {
        DataError { line: Some(line), field: Some(field.to_string()), ..DataError::file(path, what) }
    }
}

/// Errors from libraries may span lines; the user sees one.
fn one_line(s: String) -> String {
    if s.contains('\n') {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    } else {
        s
    }
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
        }
        if let Some(c) = &self.field {
            write!(f, ": field '{c}'")?;
        }
        write!(f, ": {}", self.what)
    }
}

/// Read a whole text file.
pub fn read_text(path: &Path) -> Result<String, DataError> {
    std::fs::read_to_string(path).map_err(|e| DataError::file(path, format!("cannot read: {e}")))
}

/// A number as the tools print it: plain, with exponent, or a trailing unit-less `%`.
pub fn parse_number(s: &str) -> Option<f64> {
    let s = s.trim();
    let s = s.strip_suffix('%').unwrap_or(s);
    let v: f64 = s.parse().ok()?;
    v.is_finite().then_some(v)
}

/// Bytes from a size and its unit as gpu-benches prints them (binary multiples: its `kB` is
/// 1024 bytes, as the power-of-two data-set steps show).
pub fn size_bytes(value: f64, unit: &str) -> Option<f64> {
    let m = match unit {
        "B" => 1.0,
        "kB" | "KB" | "KiB" => 1024.0,
        "MB" | "MiB" => 1024.0 * 1024.0,
        "GB" | "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    Some(value * m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_is_one_line_with_place() {
        let e = DataError::field(Path::new("a/b.csv"), 7, "TCC_HIT_sum", "'x' is not a number");
        assert_eq!(e.to_string(), "a/b.csv:7: field 'TCC_HIT_sum': 'x' is not a number");
        let e = DataError::file(Path::new("c.txt"), "bad\nthing");
        assert_eq!(e.to_string(), "c.txt: bad thing");
    }

    #[test]
    fn numbers_and_sizes() {
        assert_eq!(parse_number(" 12.5% "), Some(12.5));
        assert_eq!(parse_number("1e3"), Some(1000.0));
        assert_eq!(parse_number("NaN"), None);
        assert_eq!(parse_number("0x10"), None);
        assert_eq!(size_bytes(4.0, "kB"), Some(4096.0));
        assert_eq!(size_bytes(4.0, "parsecs"), None);
    }
}
