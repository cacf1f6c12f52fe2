//! Disassembly of every committed workload code object against its `llvm-objdump-19` listing.
//!
//! `workloads/golden/<config>/<stem>.objdump.txt` is what llvm-objdump-19 printed (it decodes
//! GFX10+ code as wave32); for wave64 builds `<stem>.objdump-w64.txt` is its output with
//! `--mattr=+wavefrontsize64`. Our listing must match instruction for instruction: same
//! addresses, same text. (Labels, comments and whitespace are compared too, but only the
//! instruction text is required by the contract; the test reports both.)

use hipscope_isa::codeobj;
use hipscope_isa::print::{listing, ListingOptions};
use std::path::{Path, PathBuf};

fn workloads() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads")
}

/// (address, instruction text) for each instruction line of a listing.
fn instructions(listing: &str) -> Vec<(String, String)> {
    listing
        .lines()
        .filter(|l| l.starts_with('\t'))
        .filter_map(|l| {
            let (text, comment) = l.split_once("//")?;
            let addr = comment.trim().split(':').next()?.to_string();
            Some((addr, text.split_whitespace().collect::<Vec<_>>().join(" ")))
        })
        .collect()
}

struct Outcome {
    instructions: usize,
    matching: usize,
    identical_files: usize,
    files: usize,
    first_diffs: Vec<String>,
}

fn compare(golden_suffix: &str, wave64: Option<bool>) -> Outcome {
    let mut o = Outcome { instructions: 0, matching: 0, identical_files: 0, files: 0, first_diffs: Vec::new() };
    let bin = workloads().join("bin");
    let mut configs: Vec<PathBuf> = std::fs::read_dir(&bin).expect("workloads/bin").flatten().map(|e| e.path()).collect();
    configs.sort();
    for config in configs {
        let cfg = config.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        let mut objects: Vec<PathBuf> = std::fs::read_dir(&config).expect("config dir").flatten().map(|e| e.path()).collect();
        objects.sort();
        for obj in objects.iter().filter(|p| p.extension().is_some_and(|e| e == "co")) {
            let stem = obj.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
            let golden_path = workloads().join("golden").join(&cfg).join(format!("{stem}{golden_suffix}"));
            let Ok(golden) = std::fs::read_to_string(&golden_path) else { continue };
            let bytes = std::fs::read(obj).expect("object");
            let co = codeobj::load(&bytes, None).unwrap_or_else(|e| panic!("{}: {e}", obj.display()));
            let name = format!("{stem}.co");
            let ours = listing(&co, &name, &ListingOptions { symbol: None, wave64 }).expect("listing");
            o.files += 1;
            o.identical_files += (ours == golden) as usize;
            let (want, got) = (instructions(&golden), instructions(&ours));
            o.instructions += want.len();
            for (i, w) in want.iter().enumerate() {
                if got.get(i) == Some(w) {
                    o.matching += 1;
                } else if o.first_diffs.len() < 10 {
                    o.first_diffs.push(format!("{cfg}/{stem}: llvm {w:?}, ours {:?}", got.get(i)));
                }
            }
            if got.len() != want.len() && o.first_diffs.len() < 10 {
                o.first_diffs.push(format!("{cfg}/{stem}: {} instructions, llvm {}", got.len(), want.len()));
            }
        }
    }
    o
}

fn report(what: &str, o: &Outcome) {
    println!(
        "{what}: {}/{} instructions match ({:.3} %), {}/{} listings byte-identical",
        o.matching,
        o.instructions,
        100.0 * o.matching as f64 / o.instructions.max(1) as f64,
        o.identical_files,
        o.files
    );
    for d in &o.first_diffs {
        println!("  {d}");
    }
}

#[test]
fn disassembly_matches_llvm_objdump_listings() {
    // llvm-objdump's own mode: every GFX10+ kernel decoded as wave32.
    let o = compare(".objdump.txt", Some(false));
    report("as llvm-objdump-19 -d (wave32 decoding)", &o);
    assert!(o.files >= 100, "only {} golden listings found", o.files);
    assert_eq!(o.matching, o.instructions);
    assert!(o.first_diffs.is_empty());
}

#[test]
fn wave64_kernels_match_llvm_objdump_with_wavefrontsize64() {
    // Our default: each kernel in its descriptor's wave size; for wave64 builds that is what
    // llvm-objdump prints with --mattr=+wavefrontsize64.
    let o = compare(".objdump-w64.txt", None);
    report("wave64 builds, wave size from the kernel descriptor", &o);
    assert!(o.files >= 32, "only {} wave64 golden listings found", o.files);
    assert_eq!(o.matching, o.instructions);
    assert!(o.first_diffs.is_empty());
}
