//! Spec errors: one line naming the file, the place in it and what is wrong.

use std::fmt;
use std::path::{Path, PathBuf};

/// Where in a spec a problem is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A field path such as `dispatches[0].args[2]` (semantic checks).
    Field(String),
    /// A line and column (RON syntax and type errors, expressions), with the field path when
    /// the problem is inside one.
    Line(usize, usize, Option<String>),
    /// The spec as a whole (e.g. no code object fits the GPU).
    Whole,
}

/// A bad spec, or a spec that does not fit the chosen GPU / code object: exit status 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    pub file: PathBuf,
    pub place: Place,
    pub message: String,
}

impl SpecError {
    pub fn field(file: &Path, path: impl Into<String>, message: impl Into<String>) -> SpecError {
        SpecError { file: file.to_path_buf(), place: Place::Field(path.into()), message: message.into() }
    }

    pub fn whole(file: &Path, message: impl Into<String>) -> SpecError {
        SpecError { file: file.to_path_buf(), place: Place::Whole, message: message.into() }
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One line: control characters from the file are escaped.
        let msg: String = self.message.chars().flat_map(|c| if c.is_control() { c.escape_default().collect::<Vec<_>>() } else { vec![c] }).collect();
        match &self.place {
            Place::Field(p) => write!(f, "{}: {p}: {msg}", self.file.display()),
            Place::Line(l, c, None) => write!(f, "{}:{l}:{c}: {msg}", self.file.display()),
            Place::Line(l, c, Some(p)) => write!(f, "{}:{l}:{c}: {p}: {msg}", self.file.display()),
            Place::Whole => write!(f, "{}: {msg}", self.file.display()),
        }
    }
}

impl std::error::Error for SpecError {}

/// Builds errors for one spec file at nested field paths.
#[derive(Debug, Clone, Copy)]
pub struct At<'a> {
    pub file: &'a Path,
}

impl At<'_> {
    pub fn err(&self, path: impl Into<String>, message: impl Into<String>) -> SpecError {
        SpecError::field(self.file, path, message)
    }
}
