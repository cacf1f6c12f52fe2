//! Scopes decided from the other targets' code of a fat binary ([`hipscope_race::siblings`]).
//!
//! workloads/hip/seed_mp_fat.cpp is the seed document's message-passing example: the release
//! store of the flag (line 25) is at work-group scope in the default build and at agent scope
//! with -DAGENT_SCOPE; the acquire load (line 29) is at agent scope in both. Built for gfx942
//! and gfx1100: on gfx1100 in WGP mode the work-group-scope release store is the agent-scope
//! one (waits and a plain store; LLVM AMDGPUUsage, "Memory Model GFX11"), on gfx942 the
//! agent-scope one writes the L2 back first (AMDGPUUsage, "Memory Model GFX942"). The
//! expected scopes below are the source's, not read from our output.

use hipscope_isa::codeobj::lines::LineTable;
use hipscope_isa::codeobj::{self, CodeObject};
use hipscope_mm::Scope;
use hipscope_race::siblings::{decide, Decided, Siblings};
use hipscope_sim::kernel::LoadedKernel;
use hipscope_sim::Device;
use std::path::PathBuf;

const KERNEL: &str = "_Z2mpPiS_S_i";

fn workloads() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../workloads")
}

fn read(rel: &str) -> Vec<u8> {
    let path = workloads().join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The gfx1100 code object of a program and its kernel `mp`.
fn gfx1100(program: &[u8]) -> (CodeObject, LoadedKernel) {
    let co = codeobj::load(program, Some("gfx1100")).expect("a gfx1100 code object");
    let k = Device::new(co.target.processor).load_kernel(&co, KERNEL).expect("kernel mp");
    (co, k)
}

/// The tagged instruction of `co`'s kernel on `line` of seed_mp_fat.cpp.
fn pc_on(co: &CodeObject, k: &LoadedKernel, decided: &Decided, line: u32) -> u64 {
    let mut pcs: Vec<u64> = decided.by_pc.keys().chain(decided.why_not.keys()).copied().filter(|&pc| co.lines.at(pc).is_some_and(|l| l.line == line)).collect();
    pcs.sort_unstable();
    pcs.dedup();
    assert_eq!(pcs.len(), 1, "{}: one open operation on line {line}: {pcs:x?} ({decided:?})", k.name);
    pcs[0]
}

fn scope_at(decided: &Decided, pc: u64) -> Option<Scope> {
    decided.by_pc.get(&pc).map(|d| d.scope)
}

#[test]
fn the_gfx942_code_decides_what_the_gfx1100_code_cannot_show() {
    for (program, store_scope) in [("hip/bin/seed_mp_fat", Scope::Workgroup), ("hip/bin/seed_mp_fat_agent", Scope::Agent)] {
        let bytes = read(program);
        let (co, k) = gfx1100(&bytes);
        let siblings = Siblings::load(&bytes, co.source.entry.as_deref());
        let d = decide(&k, &co.lines, || &siblings);
        let store = pc_on(&co, &k, &d, 25);
        let load = pc_on(&co, &k, &d, 29);
        assert_eq!(scope_at(&d, store), Some(store_scope), "{program}: the release store: {d:?}");
        assert_eq!(scope_at(&d, load), Some(Scope::Agent), "{program}: the acquire load: {d:?}");
        let how = &d.by_pc[&store].how;
        assert!(how.contains("gfx942") && how.contains("same kernel"), "{program}: {how}");
    }
}

#[test]
fn without_line_tables_the_operations_pair_in_address_order() {
    let bytes = read("hip/bin/seed_mp_fat");
    let (co, k) = gfx1100(&bytes);
    let siblings = Siblings::load(&bytes, co.source.entry.as_deref());
    let with_lines = decide(&k, &co.lines, || &siblings);
    let without = decide(&k, &LineTable::default(), || &siblings);
    let store = pc_on(&co, &k, &with_lines, 25);
    assert_eq!(scope_at(&without, store), Some(Scope::Workgroup), "{without:?}");
}

#[test]
fn a_single_target_program_stays_undecided_and_says_why() {
    let bytes = read("hip/bin/seed_mp_fat_gfx1100");
    let (co, k) = gfx1100(&bytes);
    let siblings = Siblings::load(&bytes, co.source.entry.as_deref());
    let d = decide(&k, &co.lines, || &siblings);
    let store = pc_on(&co, &k, &d, 25);
    assert_eq!(scope_at(&d, store), None, "{d:?}");
    assert!(d.why_not[&store].contains("no other target"), "{d:?}");
}

/// Another kernel's gfx942 code under mp's name: `src/mp.hip`'s `kernel`.
fn impostor(kernel: &str) -> CodeObject {
    let mut co = codeobj::load(&read("bin/gfx942/mp.co"), None).expect("mp.co");
    co.kernels.retain(|k| k.name == kernel);
    assert_eq!(co.kernels.len(), 1, "{kernel} in mp.co");
    co.kernels[0].name = KERNEL.to_string();
    co
}

#[test]
fn code_that_does_not_correspond_decides_nothing() {
    let bytes = read("hip/bin/seed_mp_fat");
    let (co, k) = gfx1100(&bytes);
    let nobody = Siblings::from_objects(Vec::new());
    let open = decide(&k, &co.lines, || &nobody);
    let store = pc_on(&co, &k, &open, 25);
    // Fences around relaxed atomics: another sequence of operations (and no line table).
    let fence = Siblings::from_objects(vec![("gfx942".into(), impostor("mp_fence_agent"))]);
    let d = decide(&k, &co.lines, || &fence);
    assert_eq!(scope_at(&d, store), None, "{d:?}");
    assert!(d.why_not[&store].contains("address order"), "{d:?}");
    // The same sequence but acquire and release at work-group scope: the load's code is no
    // agent-scope acquire's, so the pairing is doubted (the load stays as this code says).
    let wg = Siblings::from_objects(vec![("gfx942".into(), impostor("mp_acqrel_workgroup"))]);
    let d = decide(&k, &co.lines, || &wg);
    let load = pc_on(&co, &k, &d, 29);
    assert_eq!(scope_at(&d, load), None, "{d:?}");
    assert!(d.why_not[&load].contains("doubtful"), "{d:?}");
    // A code object without the kernel.
    let mut none = impostor("mp_relaxed_agent");
    none.kernels.clear();
    let none = Siblings::from_objects(vec![("gfx942".into(), none)]);
    let d = decide(&k, &co.lines, || &none);
    assert!(d.by_pc.is_empty() && d.why_not[&store].contains("could not be loaded"), "{d:?}");
}
