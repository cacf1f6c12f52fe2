//! A CSV file read as a header and rows of strings, with line numbers for errors and columns
//! found by any of their historical names (rocprof-compute renamed columns across ROCm
//! releases: `Grid_Size`/`grd`, `gpu_arch`/`gpu_soc`, ...).

use super::DataError;
use std::path::{Path, PathBuf};

pub struct Table {
    pub path: PathBuf,
    pub headers: Vec<String>,
    /// (1-based line of the record's start, fields).
    pub rows: Vec<(u64, Vec<String>)>,
}

impl Table {
    pub fn read(path: &Path) -> Result<Table, DataError> {
        let text = super::read_text(path)?;
        Table::parse(&text, path)
    }

    /// Parse CSV text; `path` only names the source in errors. Every row has as many fields
    /// as the header: a longer row is an error, and so is a shorter one (a file cut off or a
    /// line broken mid-row), naming the first missing field; the tools' own "no value" is an
    /// empty field, never a missing one.
    pub fn parse(text: &str, path: &Path) -> Result<Table, DataError> {
        let mut r = csv::ReaderBuilder::new().flexible(true).from_reader(text.as_bytes());
        let headers: Vec<String> = r.headers().map_err(|e| DataError::file(path, e.to_string()))?.iter().map(|h| h.trim().to_string()).collect();
        if headers.iter().all(|h| h.is_empty()) {
            return Err(DataError::file(path, "empty file (no header line)"));
        }
        let mut rows = Vec::new();
        let mut lines = Lines { text: text.as_bytes(), at: 0, newlines: 0 };
        for rec in r.records() {
            let rec = rec.map_err(|e| match e.position() {
                Some(p) => DataError::at(path, lines.at(p.byte()), e.to_string()),
                None => DataError::file(path, e.to_string()),
            })?;
            let line = rec.position().map_or(0, |p| lines.at(p.byte()));
            if rec.len() > headers.len() {
                return Err(DataError::at(path, line, format!("{} fields, but the header names {}", rec.len(), headers.len())));
            }
            if rec.iter().all(|f| f.trim().is_empty()) {
                continue;
            }
            if let Some(missing) = headers.get(rec.len()) {
                return Err(DataError::field(
                    path,
                    line,
                    missing,
                    format!("missing: the row ends after {} of the header's {} fields", rec.len(), headers.len()),
                ));
            }
            rows.push((line, rec.iter().map(|f| f.to_string()).collect()));
        }
        Ok(Table { path: path.to_path_buf(), headers, rows })
    }

    /// Index of the first column named any of `names`.
    pub fn find(&self, names: &[&str]) -> Option<usize> {
        names.iter().find_map(|n| self.headers.iter().position(|h| h == n))
    }

    /// Like [`find`](Self::find), but a missing column is an error.
    pub fn require(&self, names: &[&str]) -> Result<usize, DataError> {
        self.find(names)
            .ok_or_else(|| DataError::file(&self.path, format!("no column {}", names.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(" or "))))
    }

    /// Field `col` of a row ("" when the row is short).
    pub fn get(row: &[String], col: usize) -> &str {
        row.get(col).map_or("", |s| s.trim())
    }

    /// Field `col` of the row at `line` as a number.
    pub fn number(&self, line: u64, row: &[String], col: usize) -> Result<f64, DataError> {
        let s = Table::get(row, col);
        super::parse_number(s).ok_or_else(|| DataError::field(&self.path, line, &self.headers[col], format!("'{s}' is not a number")))
    }

    /// Like [`number`](Self::number), but an empty or `N/A` field is `None`.
    pub fn optional_number(&self, line: u64, row: &[String], col: Option<usize>) -> Result<Option<f64>, DataError> {
        match col {
            Some(c) if !is_blank(Table::get(row, c)) => self.number(line, row, c).map(Some),
            _ => Ok(None),
        }
    }
}

/// Line numbers of byte offsets, counted on from the previous offset: records come in file
/// order, so a file is scanned once, not once per record (ROCm 7's long layout has a row per
/// counter, thousands per file).
struct Lines<'t> {
    text: &'t [u8],
    /// Offset counted up to, and the newlines before it.
    at: usize,
    newlines: u64,
}

impl Lines<'_> {
    /// 1-based line of byte offset `byte` (the reader's own line count skips blank lines).
    fn at(&mut self, byte: u64) -> u64 {
        let bytes = self.text;
        let mut end = (byte as usize).min(bytes.len());
        // A record's reported start may include the blank lines skipped before it.
        while end < bytes.len() && (bytes[end] == b'\n' || bytes[end] == b'\r') {
            end += 1;
        }
        if end < self.at {
            (self.at, self.newlines) = (0, 0);
        }
        self.newlines += bytes[self.at..end].iter().filter(|&&b| b == b'\n').count() as u64;
        self.at = end;
        self.newlines + 1
    }
}

/// Fields the tools leave empty or fill with a placeholder when a value is unknown.
pub fn is_blank(s: &str) -> bool {
    matches!(s.trim(), "" | "N/A" | "NA" | "nan" | "None")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_by_any_name_and_errors_with_lines() {
        let p = Path::new("t.csv");
        let t = Table::parse("a,grd,c\n1,2,3\n\n4,x,6\n", p).unwrap();
        assert_eq!(t.find(&["Grid_Size", "grd"]), Some(1));
        assert_eq!(t.rows.len(), 2);
        let (line, row) = &t.rows[1];
        assert_eq!(*line, 4);
        assert_eq!(t.number(*line, row, 1).unwrap_err().to_string(), "t.csv:4: field 'grd': 'x' is not a number");
        assert!(t.require(&["nope"]).unwrap_err().to_string().contains("no column 'nope'"));
        assert_eq!(Table::parse("a,b\n1,2,3\n", p).err().map(|e| e.line), Some(Some(2)));
        let short = Table::parse("a,b,c\n1,2,3\n4,5\n", p).err().map(|e| e.to_string());
        assert_eq!(short.as_deref(), Some("t.csv:3: field 'c': missing: the row ends after 2 of the header's 3 fields"));
        assert!(Table::parse("", p).is_err());
    }
}
