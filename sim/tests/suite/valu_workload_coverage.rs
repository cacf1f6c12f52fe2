//! Every vector-ALU instruction in the committed workload code objects and in the external
//! code objects of `../shared` has semantics (classifies as supported). Prints the fidelity of
//! each mnemonic that is not exact.

use hipscope_isa::codeobj;
use hipscope_isa::tables::flags;
use hipscope_sim::exec::{Fidelity, Sem};
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

#[derive(Default)]
struct Report {
    checked: usize,
    missing: BTreeMap<String, usize>,
    approximate: BTreeMap<String, &'static str>,
}

/// VALU instructions of every kernel under `dir`.
fn scan(dir: &Path) -> Report {
    let mut files = Vec::new();
    code_objects(dir, &mut files);
    let mut r = Report::default();
    for f in &files {
        let Ok(bytes) = std::fs::read(f) else { continue };
        let Ok(co) = codeobj::load(&bytes, None) else { continue };
        let dev = Device::new(co.target.processor);
        for k in &co.kernels {
            let Ok(kernel) = dev.load_kernel(&co, &k.name) else { continue };
            for slot in &kernel.code {
                let CodeSlot::Inst(e) = slot else { continue };
                if !e.inst.has(flags::VALU) || e.inst.has(flags::FLAT | flags::MUBUF | flags::DS) {
                    continue;
                }
                r.checked += 1;
                let name = format!("{} ({})", e.inst.mnemonic(), co.target.processor.name());
                match e.sem.fidelity() {
                    _ if e.sem == Sem::Unsupported => *r.missing.entry(name).or_insert(0) += 1,
                    Fidelity::Approximate(why) => {
                        r.approximate.insert(e.inst.mnemonic().to_string(), why);
                    }
                    _ => {}
                }
            }
        }
    }
    r
}

fn check(r: &Report) {
    println!("{} vector ALU instructions checked", r.checked);
    for (m, why) in &r.approximate {
        println!("approximate: {m}: {why}");
    }
    assert!(r.missing.is_empty(), "unsupported: {:#?}", r.missing);
}

#[test]
fn committed_workloads() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/bin");
    let r = scan(&dir);
    assert!(r.checked > 5_000, "workloads not found under {}", dir.display());
    check(&r);
}

#[test]
fn external_code_objects() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/external-code-objects");
    if !dir.exists() {
        println!("SKIPPED: {} not found", dir.display());
        return;
    }
    let r = scan(&dir);
    assert!(r.checked > 100);
    check(&r);
}
