//! The lowering tables equal what clang-19 emits (clang-22 for gfx950, which LLVM 19 lacks): for every probe kernel of
//! `workloads/src/mm_lowering.hip` in every committed build (`workloads/bin/<config>/
//! mm_lowering.co`), the memory-model instructions between the kernel's two markers are
//! exactly `lower(op, target)`. Reads committed code objects only; needs no LLVM.
//!
//! Extraction rules (the same for every config):
//! * the window is the instructions strictly between the first two `s_setprio 0` (the probe's
//!   markers); the kernel-argument wait is before the window (the probe waits for the kernel
//!   arguments before its first marker);
//! * kept: vector and LDS memory instructions (`global_*`, `flat_*`, `buffer_*`, `ds_*`,
//!   `scratch_*`), cache maintenance (`buffer_*`, `global_wb`, `global_inv`), barriers
//!   (`s_barrier*`) and waits (`s_waitcnt*`, `s_wait_*cnt*`); dropped: everything else
//!   (address arithmetic, register moves, `s_nop` hazard padding, `s_clause`), which belongs to
//!   the surrounding code, not to the memory model;
//! * registers, addresses and offsets are dropped; mnemonics and cache-policy bits are kept;
//!   waits keep their counters and values, and a run of consecutive waits is one wait.

use hipscope_isa::codeobj::{self, CodeObject};
use hipscope_isa::decode::{Decoder, Inst};
use hipscope_mm::lower::{lower, merge_waits, show, Line, Op, Rmw, Target, CONFIGS};
use hipscope_mm::{Access, Counter, Order, RmwOp, Scope, Space, Spaces, Wait};
use std::collections::BTreeMap;
use std::path::PathBuf;

mod isa_text;
use isa_text::parse_wait;
mod probes;
use probes::op_of;

fn bin_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../workloads/bin")
}

/// The normalised memory-model instructions between the kernel's two markers.
fn extract(co: &CodeObject, k: &codeobj::Kernel, t: &Target) -> Result<Vec<Line>, String> {
    let section = co.section_at(k.entry_address).ok_or("entry outside every section")?;
    let start = (k.entry_address - section.address) as usize;
    let decoder = Decoder::new(t.processor, t.wave64);
    let mut marks = 0;
    let mut lines = Vec::new();
    for (addr, r) in decoder.decode_all(&section.bytes[start..], k.entry_address) {
        let inst: Inst = r.map_err(|e| format!("decode error at {addr:#x}: {e}"))?;
        let m = inst.mnemonic();
        if m == "s_setprio" {
            marks += 1;
            if marks == 2 {
                return Ok(merge_waits(lines));
            }
            continue;
        }
        if m == "s_endpgm" {
            break;
        }
        if marks == 0 {
            continue;
        }
        if let Some(line) = isa_text::line_of(&inst, decoder.ctx(), t.family())? {
            lines.push(line);
        }
    }
    Err(format!("kernel has {marks} marker(s), not 2"))
}

struct Diff {
    kernel: String,
    config: String,
    emitted: Vec<Line>,
    lowered: Vec<Line>,
}

#[test]
fn lowering_equals_clang19() {
    let mut configs: Vec<String> = std::fs::read_dir(bin_dir())
        .expect("workloads/bin")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("mm_lowering.co").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    // Table order: the order of the build configurations.
    configs.sort_by_key(|c| CONFIGS.iter().position(|(n, _)| n == c).unwrap_or(usize::MAX));
    assert_eq!(configs.len(), CONFIGS.len(), "every build config has mm_lowering.co: {configs:?}");

    // kernel -> config -> ok
    let mut cells: BTreeMap<String, BTreeMap<String, bool>> = BTreeMap::new();
    let mut kernel_order: Vec<String> = Vec::new();
    let mut diffs: Vec<Diff> = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    for config in &configs {
        let bytes = std::fs::read(bin_dir().join(config).join("mm_lowering.co")).unwrap();
        let co = codeobj::load(&bytes, None).unwrap_or_else(|e| panic!("{config}: {e}"));
        let mut seen = 0;
        for k in &co.kernels {
            let Some(op) = op_of(&k.name) else {
                problems.push(format!("{config}: kernel {} names no operation", k.name));
                continue;
            };
            let target = Target::of_kernel(&co, k);
            if target.config_name() != *config {
                problems.push(format!("{config}: {} decodes as target {}", k.name, target.config_name()));
            }
            let known = CONFIGS.iter().find(|(n, _)| n == config).map(|(_, t)| *t);
            if known != Some(target) {
                problems.push(format!("{config}: CONFIGS entry {known:?} differs from the code object's {target:?}"));
            }
            seen += 1;
            if !kernel_order.contains(&k.name) {
                kernel_order.push(k.name.clone());
            }
            let emitted = match extract(&co, k, &target) {
                Ok(e) => e,
                Err(e) => {
                    problems.push(format!("{config}: {}: {e}", k.name));
                    continue;
                }
            };
            let lowered = lower(&op, &target);
            let ok = emitted == lowered;
            cells.entry(k.name.clone()).or_default().insert(config.clone(), ok);
            if !ok {
                diffs.push(Diff { kernel: k.name.clone(), config: config.clone(), emitted, lowered });
            }
        }
        assert!(seen > 100, "{config}: only {seen} probe kernels");
    }

    // The table: one row per probe kernel, one column per config.
    let width = kernel_order.iter().map(|k| k.len()).max().unwrap_or(0);
    let short = |c: &str| c.replace("gfx", "").replace("-tgsplit", "-tg");
    let cols: Vec<usize> = configs.iter().map(|c| short(c).len().max(4)).collect();
    let mut table = format!("{:width$}", "kernel \\ config");
    for (c, w) in configs.iter().zip(&cols) {
        table.push_str(&format!(" {:>w$}", short(c)));
    }
    table.push('\n');
    let mut equal = 0;
    let mut total = 0;
    for k in &kernel_order {
        table.push_str(&format!("{k:width$}"));
        for (c, w) in configs.iter().zip(&cols) {
            let cell = match cells.get(k).and_then(|m| m.get(c)) {
                Some(true) => {
                    equal += 1;
                    "ok"
                }
                Some(false) => "DIFF",
                None => "-",
            };
            total += 1;
            table.push_str(&format!(" {cell:>w$}"));
        }
        table.push('\n');
    }
    println!("{table}");
    println!("{equal} of {total} op x config cells equal");
    for d in &diffs {
        println!("DIFF {} on {}:\n  clang-19: {}\n  lower:    {}", d.kernel, d.config, show(&d.emitted), show(&d.lowered));
    }
    for p in &problems {
        println!("PROBLEM {p}");
    }
    assert!(problems.is_empty(), "{} problem(s), see above", problems.len());
    assert!(diffs.is_empty(), "{} of {total} cells differ, see above", diffs.len());
}

#[test]
fn wait_parsing() {
    let w = parse_wait("s_waitcnt vmcnt(0) lgkmcnt(0)").unwrap();
    assert_eq!(w, Wait::zero(&[Counter::Vm, Counter::Lgkm]));
    assert_eq!(parse_wait("s_waitcnt_vscnt null, 0x0").unwrap(), Wait::zero(&[Counter::Vs]));
    assert_eq!(parse_wait("s_wait_loadcnt_dscnt 0x0").unwrap(), Wait::zero(&[Counter::Load, Counter::Ds]));
    let mut two = Wait::default();
    two.add(Counter::Load, 1);
    two.add(Counter::Ds, 2);
    assert_eq!(parse_wait("s_wait_loadcnt_dscnt 0x102").unwrap(), two);
    assert_eq!(
        op_of("mm_add_noret_acq_rel__agent"),
        Some(Op::Rmw { rmw: Rmw::Op(RmwOp::Add), access: Access::Atomic { order: Order::AcqRel, scope: Scope::Agent }, space: Space::Global, returns: false })
    );
    assert_eq!(op_of("mm_fence_seq_cst__system"), Some(Op::Fence { order: Order::SeqCst, scope: Scope::System, spaces: Spaces::ALL }));
    assert_eq!(op_of("mm_fence_local_acq_rel__agent"), Some(Op::Fence { order: Order::AcqRel, scope: Scope::Agent, spaces: Spaces::LOCAL }));
}
