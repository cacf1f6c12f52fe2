//! Reading the files a spec names (the spec itself, code objects, `File(..)` inits and
//! expectations) with a size bound, and naming the full path that was tried.
//!
//! A spec is user input: `/dev/zero` or a FIFO as a path would otherwise be read until memory
//! runs out, and "cannot read bin/x.co" does not say where a spec copied elsewhere looked.

use std::io::Read;
use std::path::{Path, PathBuf};

/// Largest spec file: specs are short text; anything bigger is not one.
pub const MAX_SPEC_BYTES: u64 = 64 << 20;
/// Largest code object, offload bundle or HIP host executable a spec may name.
pub const MAX_CODE_OBJECT_BYTES: u64 = 1 << 30;

/// `rel` as the spec at `dir` means it: absolute paths as given, relative ones under the
/// spec's directory.
pub fn resolve(dir: &Path, rel: &str) -> PathBuf {
    dir.join(rel)
}

/// The full path for messages: `path` made absolute against the current directory (not
/// canonicalized, so a missing file can still be named).
pub fn full(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The bytes of the regular file at `path`, at most `limit` of them. Errors name the full
/// path and say what is wrong (missing, not a regular file, too big).
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    let shown = full(path);
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", shown.display()))?;
    if !meta.is_file() {
        return Err(format!("cannot read {}: not a regular file", shown.display()));
    }
    if meta.len() > limit {
        return Err(format!("{} holds {} bytes; at most {limit} are read", shown.display(), meta.len()));
    }
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", shown.display()))?;
    // The file may grow between the size check and the read: read one byte past the limit to
    // notice.
    let mut data = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1).read_to_end(&mut data).map_err(|e| format!("cannot read {}: {e}", shown.display()))?;
    if data.len() as u64 > limit {
        return Err(format!("{} holds more than {limit} bytes", shown.display()));
    }
    Ok(data)
}

/// [`read_bounded`] for text.
pub fn read_text(path: &Path, limit: u64) -> Result<String, String> {
    let data = read_bounded(path, limit)?;
    String::from_utf8(data).map_err(|e| format!("{}: not UTF-8 text (byte {})", full(path).display(), e.utf8_error().valid_up_to()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_regular_and_oversized_files_are_refused() {
        #[cfg(unix)]
        {
            let e = read_bounded(Path::new("/dev/zero"), 1 << 20).unwrap_err();
            assert!(e.contains("/dev/zero: not a regular file"), "{e}");
        }
        let dir = std::env::temp_dir().join(format!("hipscope-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("ten.bin");
        std::fs::write(&p, [7u8; 10]).unwrap();
        assert_eq!(read_bounded(&p, 10).unwrap(), [7u8; 10]);
        let e = read_bounded(&p, 9).unwrap_err();
        assert!(e.contains("holds 10 bytes; at most 9"), "{e}");
        let e = read_bounded(&dir.join("missing.bin"), 9).unwrap_err();
        assert!(e.starts_with("cannot read /") && e.contains("missing.bin"), "the full path: {e}");
        std::fs::write(&p, [0xff, 0xfe]).unwrap();
        assert!(read_text(&p, 10).unwrap_err().contains("not UTF-8"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
