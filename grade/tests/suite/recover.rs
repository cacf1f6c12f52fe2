//! The recogniser reads back what clang-19 compiled: for every probe kernel of
//! `workloads/src/mm_lowering.hip` in every committed build, the operation the kernel's name
//! says it performs is among the readings of the code between the probe's two markers (up to
//! operations the target compiles to the same code); and no memory-model instruction of any
//! committed workload object is left untagged. Reads committed code objects only.
//!
//! The truth is the probe's source (its name), not the recogniser's output. Operations whose
//! code is waits alone (a work-group fence where the work-group shares one cache) leave nothing
//! to recognise: the recogniser does not read waits as fences, since the compiler emits the
//! same waits for data dependencies. The table counts those apart.

use hipscope_isa::codeobj::{self, CodeObject};
use hipscope_isa::decode::Inst;
use hipscope_mm::lower::{lower, Line, Op, Rmw, Target, CONFIGS};
use hipscope_mm::recover::{recover, Recovery};
use hipscope_mm::{Access, Scope};
use hipscope_sim::kernel::{CodeSlot, LoadedKernel};
use hipscope_sim::Device;
use std::path::PathBuf;

// The probe kernels' names, shared with the lowering test of the crate the recogniser lives in.
use crate::probes;
use probes::op_of;

fn bin_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../workloads/bin")
}

fn load(path: &std::path::Path) -> CodeObject {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    codeobj::load(&bytes, None).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn insts(k: &LoadedKernel) -> Vec<&Inst> {
    k.code.iter().filter_map(|s| if let CodeSlot::Inst(e) = s { Some(&e.inst) } else { None }).collect()
}

/// The op as the recogniser names it: work-item scope compiles as wavefront scope, and one
/// RMW arithmetic stands for all.
fn canonical(op: Op) -> Op {
    let widen = |a: Access| match a {
        Access::Atomic { order, scope: Scope::WorkItem } => Access::Atomic { order, scope: Scope::Wavefront },
        a => a,
    };
    match op {
        Op::Load { access, space } => Op::Load { access: widen(access), space },
        Op::Store { access, space } => Op::Store { access: widen(access), space },
        Op::Rmw { access, space, returns, .. } => Op::Rmw { rmw: Rmw::Op(hipscope_mm::RmwOp::Add), access: widen(access), space, returns },
        Op::Fence { order, scope: Scope::WorkItem, spaces } => Op::Fence { order, scope: Scope::Wavefront, spaces },
        op => op,
    }
}

#[derive(Default, Debug)]
struct Tally {
    exact: usize,
    /// Right, among other readings the target cannot tell apart.
    among: usize,
    waits_only: usize,
    wrong: Vec<String>,
}

/// Check one probe kernel; its window is strictly between the first two `s_setprio`.
fn check_probe(k: &LoadedKernel, op: Op, t: &Target, rec: &Recovery, tally: &mut Tally) {
    let code = insts(k);
    let marks: Vec<u64> = code.iter().filter(|i| i.address >= k.entry && i.mnemonic() == "s_setprio").map(|i| i.address).take(2).collect();
    let [lo, hi] = marks[..] else {
        tally.wrong.push(format!("{}: {} marker(s)", k.name, marks.len()));
        return;
    };
    let inside = |pc: u64| pc > lo && pc < hi;
    if let Some(u) = rec.untagged.iter().find(|u| inside(u.pc)) {
        tally.wrong.push(format!("{}: untagged {} at {:#x}: {}", k.name, u.mnemonic, u.pc, u.why));
        return;
    }
    let want = canonical(op);
    let want_code = lower(&want, t);
    let found: Vec<_> = rec.ops.iter().filter(|r| inside(r.pc)).collect();
    if want_code.iter().all(|l| matches!(l, Line::Wait(_))) {
        if found.is_empty() {
            tally.waits_only += 1;
        } else {
            tally.wrong.push(format!("{}: code is waits only, recovered {:?}", k.name, found.iter().map(|r| &r.readings).collect::<Vec<_>>()));
        }
        return;
    }
    match found.as_slice() {
        [r] => match r.readings.iter().find(|x| lower(x, t) == want_code) {
            Some(_) if r.readings.len() == 1 => tally.exact += 1,
            Some(_) => tally.among += 1,
            None => tally.wrong.push(format!("{}: read as {:?}", k.name, r.readings)),
        },
        _ => tally.wrong.push(format!(
            "{}: {} operations recovered in the window: {:?}",
            k.name,
            found.len(),
            found.iter().map(|r| &r.readings).collect::<Vec<_>>()
        )),
    }
}

#[test]
fn every_probe_reads_back_as_its_operation() {
    let mut table = String::from("config            exact  among-others  waits-only  wrong\n");
    let mut wrong = Vec::new();
    for (config, target) in CONFIGS {
        let path = bin_dir().join(config).join("mm_lowering.co");
        let co = load(&path);
        let dev = Device::new(co.target.processor);
        let mut tally = Tally::default();
        // A loaded kernel holds its own code (and its callees'): read each one.
        for k in &co.kernels {
            let Some(op) = op_of(&k.name) else { continue };
            assert_eq!(Target::of_kernel(&co, k), *target, "{config}: {}", k.name);
            let lk = dev.load_kernel(&co, &k.name).unwrap_or_else(|e| panic!("{config}: {}: {e}", k.name));
            let rec = recover(insts(&lk), target);
            check_probe(&lk, op, target, &rec, &mut tally);
        }
        table.push_str(&format!("{config:17} {:5}  {:12}  {:10}  {:5}\n", tally.exact, tally.among, tally.waits_only, tally.wrong.len()));
        assert!(tally.exact + tally.among > 100, "{config}: {tally:?}");
        wrong.extend(tally.wrong.into_iter().map(|w| format!("{config}: {w}")));
    }
    println!("{table}");
    for w in &wrong {
        println!("WRONG {w}");
    }
    assert!(wrong.is_empty(), "{} probe(s) read back wrong, see above", wrong.len());
}

#[test]
fn no_memory_model_instruction_of_a_workload_is_untagged() {
    let mut objects = 0;
    let mut tagged = 0;
    let mut untagged = Vec::new();
    for (config, target) in CONFIGS {
        let dir = bin_dir().join(config);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "co"))
            .collect();
        files.sort();
        for path in files {
            let co = load(&path);
            objects += 1;
            let dev = Device::new(co.target.processor);
            // A loaded kernel holds its own code and its callees': read every kernel (a
            // function two kernels call is read twice; its operations count twice).
            let file = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
            for k in &co.kernels {
                let lk = dev.load_kernel(&co, &k.name).unwrap_or_else(|e| panic!("{config}/{file}: {}: {e}", k.name));
                let t = Target::of_kernel(&co, k);
                assert_eq!(t.processor, target.processor, "{}", path.display());
                let rec = recover(insts(&lk), &t);
                tagged += rec.ops.len();
                untagged.extend(rec.untagged.iter().map(|u| format!("{config}/{file}: {}: {} at {:#x}: {}", k.name, u.mnemonic, u.pc, u.why)));
            }
        }
    }
    println!("{objects} code objects, {tagged} memory operations tagged, {} untagged", untagged.len());
    for u in &untagged {
        println!("UNTAGGED {u}");
    }
    assert!(objects > 100, "only {objects} code objects under workloads/bin");
    assert!(untagged.is_empty(), "{} untagged, see above", untagged.len());
}
