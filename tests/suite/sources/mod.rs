//! Shared by the tests that read the workspace's own sources (function lengths, mnemonic
//! classification): the Rust files below a folder.

use std::path::{Path, PathBuf};

/// Every `.rs` file below `dir`, sorted; a folder that cannot be read adds nothing (the
/// callers check that they found the sources they expect).
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
