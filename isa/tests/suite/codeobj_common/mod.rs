//! Helpers shared by the code-object tests (also included by the root crate's tests through
//! `#[path]`): locating `shared/` and the workspace, and a minimal reader for the YAML that
//! `llvm-readelf-19 --notes` prints for `NT_AMDGPU_METADATA`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The workspace root: the nearest ancestor of this crate whose Cargo.toml has `[workspace]`.
pub fn workspace_root() -> PathBuf {
    let mut dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    loop {
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
        if manifest.contains("[workspace]") {
            return dir;
        }
        if !dir.pop() {
            return PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        }
    }
}

/// `../shared` next to the workspace, if present.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = workspace_root().join("..").join("shared");
    dir.is_dir().then_some(dir)
}

/// The external objects directory, or `None` after printing `SKIPPED: <why>`.
pub fn external_objects(test: &str) -> Option<PathBuf> {
    match shared_dir() {
        Some(d) => Some(d.join("external-code-objects/sarchlab/mgpusim/amd")),
        None => {
            println!("SKIPPED: {test}: ../shared (external code objects) not found next to the workspace");
            None
        }
    }
}

pub fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One kernel as `llvm-readelf-19 --notes` prints it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct NotesKernel {
    pub name: String,
    pub symbol: String,
    pub kernarg_segment_size: u64,
    /// (offset, size, value kind)
    pub args: Vec<(u64, u64, String)>,
}

/// Read the `amdhsa.kernels` list from `llvm-readelf-19 --notes` output (code object v3+).
/// Indentation decides the level: kernel keys sit at column 4, argument keys at column 8.
pub fn parse_readelf_notes(text: &str) -> Vec<NotesKernel> {
    let mut kernels: Vec<NotesKernel> = Vec::new();
    let mut in_kernels = false;
    for line in text.lines() {
        if line.starts_with("amdhsa.kernels:") {
            in_kernels = true;
            continue;
        }
        if !line.starts_with(' ') {
            in_kernels = false;
        }
        if !in_kernels {
            continue;
        }
        let mut indent = line.len() - line.trim_start().len();
        let mut rest = line.trim_start();
        let mut new_item = false;
        if let Some(r) = rest.strip_prefix("- ") {
            indent += 2;
            rest = r;
            new_item = true;
        }
        let Some((key, value)) = rest.split_once(':') else {
            continue;
        };
        let value = value.trim().trim_matches('\'');
        match indent {
            4 => {
                if new_item {
                    kernels.push(NotesKernel::default());
                }
                let Some(k) = kernels.last_mut() else {
                    continue;
                };
                match key {
                    ".name" => k.name = value.to_string(),
                    ".symbol" => k.symbol = value.to_string(),
                    ".kernarg_segment_size" => k.kernarg_segment_size = value.parse().unwrap_or(u64::MAX),
                    _ => {}
                }
            }
            8 => {
                let Some(k) = kernels.last_mut() else {
                    continue;
                };
                if new_item {
                    k.args.push((u64::MAX, u64::MAX, String::new()));
                }
                let Some(a) = k.args.last_mut() else { continue };
                match key {
                    ".offset" => a.0 = value.parse().unwrap_or(u64::MAX),
                    ".size" => a.1 = value.parse().unwrap_or(u64::MAX),
                    ".value_kind" => a.2 = value.to_string(),
                    _ => {}
                }
            }
            _ => {}
        }
    }
    kernels
}

/// Compact "offset:size:kind ..." form of a kernarg list, for readable assertions.
pub fn compact(args: &[(u64, u64, String)]) -> String {
    args.iter().map(|(o, s, k)| format!("{o}:{s}:{k}")).collect::<Vec<_>>().join(" ")
}

#[test]
fn readelf_notes_parser_reads_levels() {
    let text = "amdhsa.kernels:\n  - .args:\n      - .address_space:  global\n        .offset:         0\n        \
                .size:           8\n        .value_kind:     global_buffer\n      - .offset:         8\n        \
                .size:           4\n        .value_kind:     by_value\n    .kernarg_segment_size: 12\n    \
                .name:           k\n    .symbol:         k.kd\n  - .kernarg_segment_size: 0\n    .name: e\n\
                amdhsa.target:   amdgcn-amd-amdhsa--gfx942\n";
    let k = parse_readelf_notes(text);
    assert_eq!(k.len(), 2);
    assert_eq!(k[0].name, "k");
    assert_eq!(k[0].symbol, "k.kd");
    assert_eq!(k[0].kernarg_segment_size, 12);
    assert_eq!(compact(&k[0].args), "0:8:global_buffer 8:4:by_value");
    assert_eq!(k[1].name, "e");
}
