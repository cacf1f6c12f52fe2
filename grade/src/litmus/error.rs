//! Parse and semantic errors of litmus files: `file:line:column: what is wrong`.

use std::fmt;
use std::path::PathBuf;

use super::program::Span;

/// A malformed litmus file. Displayed as one line, `file:line:column: message` (`file:
/// message` for an unreadable file), which the CLI prints before exiting with status 2.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct LitmusError {
    pub file: PathBuf,
    pub span: Span,
    pub message: String,
}

impl LitmusError {
    pub fn new(file: impl Into<PathBuf>, span: Span, message: impl Into<String>) -> LitmusError {
        LitmusError { file: file.into(), span, message: message.into() }
    }
}

impl fmt::Display for LitmusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Errors about the whole file (unreadable, not text) have no position.
        if self.span.line == 0 {
            return write!(f, "{}: {}", self.file.display(), self.message);
        }
        write!(f, "{}:{}:{}: {}", self.file.display(), self.span.line, self.span.column, self.message)
    }
}

/// A parse error before the file name is known: parsers work on text and return this; the
/// entry point attaches the file.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntaxError {
    pub span: Span,
    pub message: String,
}

impl SyntaxError {
    pub fn new(span: Span, message: impl Into<String>) -> SyntaxError {
        SyntaxError { span, message: message.into() }
    }

    pub fn in_file(self, file: impl Into<PathBuf>) -> LitmusError {
        LitmusError::new(file, self.span, self.message)
    }
}

pub type ParseResult<T> = Result<T, SyntaxError>;
