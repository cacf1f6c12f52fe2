//! Every scalar instruction (SALU, SOPP, SMEM) in the committed workload code objects and in
//! the external code objects of `../shared` has semantics (classifies as supported).

use hipscope_isa::codeobj;
use hipscope_isa::tables::flags;
use hipscope_sim::exec::Sem;
use hipscope_sim::kernel::CodeSlot;
use hipscope_sim::Device;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn code_objects(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            code_objects(&p, out);
        } else if matches!(p.extension().and_then(|x| x.to_str()), Some("co" | "hsaco")) {
            out.push(p);
        }
    }
}

/// Unsupported scalar mnemonics (with counts) over the code objects under `dir`.
fn unsupported_scalar(dir: &Path) -> (usize, BTreeMap<String, usize>) {
    let mut files = Vec::new();
    code_objects(dir, &mut files);
    let mut missing = BTreeMap::new();
    let mut checked = 0;
    for f in &files {
        let Ok(bytes) = std::fs::read(f) else { continue };
        let Ok(co) = codeobj::load(&bytes, None) else { continue };
        let dev = Device::new(co.target.processor);
        for k in &co.kernels {
            let Ok(kernel) = dev.load_kernel(&co, &k.name) else { continue };
            for slot in &kernel.code {
                let CodeSlot::Inst(e) = slot else { continue };
                if !e.inst.has(flags::SALU | flags::SOPP | flags::SMRD) {
                    continue;
                }
                checked += 1;
                if e.sem == Sem::Unsupported {
                    *missing.entry(format!("{} ({})", e.inst.mnemonic(), co.target.processor.name())).or_insert(0) += 1;
                }
            }
        }
    }
    (checked, missing)
}

#[test]
fn committed_workloads() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/bin");
    let (checked, missing) = unsupported_scalar(&dir);
    println!("{checked} scalar instructions checked");
    assert!(checked > 10_000, "workloads not found under {}", dir.display());
    assert!(missing.is_empty(), "{missing:#?}");
}

#[test]
fn external_code_objects() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/external-code-objects");
    if !dir.exists() {
        println!("SKIPPED: {} not found", dir.display());
        return;
    }
    let (checked, missing) = unsupported_scalar(&dir);
    println!("{checked} scalar instructions checked");
    assert!(missing.is_empty(), "{missing:#?}");
}
