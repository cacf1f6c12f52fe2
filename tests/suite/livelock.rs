//! Livelock detection (`sim/src/progress.rs`) on kernels that can never finish
//! (`workloads/src/livelock.hip`): a flag nobody sets, a spin lock nobody releases, a grid
//! barrier over more work-groups than can be resident, and a vadd whose first instruction was
//! turned into `s_branch -1`. Each must stop with a livelock kernel fault that names what the
//! waves wait for, in both modes, instead of running to the 50M-instruction runaway limit
//! (which took minutes). The values the report must show come from the specs (the flag is 0,
//! the lock is 1), not from simulator output.

use hipscope_sim::fault::FaultKind;
use hipscope_sim::spec::{self, RunError, RunOptions};
use std::path::{Path, PathBuf};

fn workloads() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads")
}

/// Run `dispatch` (a spec dispatch entry) of the livelock kernels on `gpu`; the livelock text.
fn livelock(gpu: &str, object: &str, buffers: &str, dispatch: &str, timing: bool) -> String {
    let text = format!("Run(code_objects: {{\"any\": \"{object}\"}}, buffers: {{{buffers}}}, dispatches: [{dispatch}])");
    let path = workloads().join("livelock-test.ron");
    let s = spec::parse(&text, &path).expect("spec parses");
    let opts = RunOptions { gpu: Some(gpu.to_string()), mode: hipscope_sim::Mode::with_timing(timing), ..RunOptions::default() };
    match spec::run(&s, &path, &opts) {
        Err(RunError::Fault { fault, .. }) => match fault.kind {
            FaultKind::Livelock(stuck) => {
                let t = stuck.text;
                println!("{gpu} timing={timing}: {}", t.lines().take(3).collect::<Vec<_>>().join(" / "));
                t
            }
            other => panic!("{gpu} timing={timing}: expected a livelock, got {other}"),
        },
        Err(e) => panic!("{gpu} timing={timing}: {e}"),
        Ok(r) => panic!("{gpu} timing={timing}: finished ({:?})", r.checks),
    }
}

fn object(gpu: &str) -> String {
    let dir = match gpu {
        "mi300x" | "mi300a" => "gfx942",
        "mi210" | "mi250x" => "gfx90a",
        "mi100" => "gfx908",
        "r9nano" => "gfx803",
        "vega64" => "gfx900",
        "rx5700xt" => "gfx1010-w32-wgp",
        "rx6900xt" => "gfx1030-w32-wgp",
        "rx7900xtx" => "gfx1100-w32-wgp",
        _ => "gfx1201",
    };
    format!("bin/{dir}/livelock.co")
}

#[test]
fn a_flag_nobody_sets_is_a_livelock_on_every_gpu() {
    for gpu in ["mi300x", "mi300a", "mi210", "mi100", "r9nano", "vega64", "rx5700xt", "rx6900xt", "rx7900xtx", "rx9070xt"] {
        for timing in [false, true] {
            // One work-group per CU of MI300X: 304 × 4 waves polling.
            let t = livelock(
                gpu,
                &object(gpu),
                "\"flag\": (bytes: 4)",
                "(kernel: \"wait_flag\", grid: (77824, 1, 1), block: (256, 1, 1), args: [Buffer(\"flag\")])",
                timing,
            );
            assert!(t.contains("every running wave repeats the same state"), "{t}");
            assert!(t.contains("repeats the same state at pc 0x") && t.contains("(4 bytes) = 0x00000000"), "{gpu}: the poll of the zero flag is named: {t}");
        }
    }
}

#[test]
fn a_lock_nobody_releases_and_a_grid_barrier_that_cannot_fill() {
    for timing in [false, true] {
        let t = livelock(
            "mi300x",
            &object("mi300x"),
            "\"lock\": (bytes: 4, init: Const(I32, 1))",
            "(kernel: \"lock_forever\", grid: (77824, 1, 1), block: (256, 1, 1), args: [Buffer(\"lock\")])",
            timing,
        );
        assert!(t.contains("(4 bytes) = 0x00000001"), "the CAS reads the held lock: {t}");
        let t = livelock(
            "mi300x",
            &object("mi300x"),
            "\"count\": (bytes: 4)",
            "(kernel: \"grid_barrier\", grid: (2560000, 1, 1), block: (256, 1, 1), args: [Buffer(\"count\"), I32(10000)])",
            timing,
        );
        assert!(t.contains("waits at s_barrier"), "the other waves wait at the work-group barrier: {t}");
        let not_started: u64 = t.split(" of 10000 work-groups not started").next().and_then(|h| h.rsplit('(').next()).and_then(|n| n.parse().ok()).unwrap_or(0);
        assert!(not_started > 0, "work-groups that can never start are counted: {t}");
    }
}

/// A bit flip turns vadd's first instruction into `s_branch -1` (SOPP 0xbf82ffff): the branch
/// to itself ran 277 s to the runaway limit before.
#[test]
fn a_branch_to_itself_is_a_livelock() {
    let original = std::fs::read(workloads().join("bin/gfx942/vadd.co")).expect("vadd.co");
    let co = hipscope_isa::codeobj::load(&original, None).expect("loads");
    let k = co.kernels.iter().find(|k| k.name == "vadd").expect("vadd kernel");
    let section = co.section_at(k.entry_address).expect("code section");
    let at = (k.entry_address - section.address) as usize;
    // The linked object holds its code verbatim: find the kernel's first 16 bytes in the file.
    let head = &section.bytes[at..at + 16];
    let file_off = original.windows(16).position(|w| w == head).expect("code bytes in the file");
    let mut patched = original.clone();
    patched[file_off..file_off + 4].copy_from_slice(&0xbf82_ffffu32.to_le_bytes());
    let dir = std::env::temp_dir().join(format!("hipscope-livelock-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("vadd-loop.co");
    std::fs::write(&path, &patched).expect("write");
    for timing in [false, true] {
        let t = livelock(
            "mi300x",
            &path.display().to_string(),
            "\"a\": (bytes: 4096), \"b\": (bytes: 4096), \"c\": (bytes: 4096)",
            "(kernel: \"vadd\", grid: (1048576, 1, 1), block: (256, 1, 1), args: [Buffer(\"a\"), Buffer(\"b\"), Buffer(\"c\"), U32(1024)])",
            timing,
        );
        assert!(t.contains(&format!("repeats the same state at pc {:#x}", k.entry_address)), "{t}");
        assert!(t.contains("no memory read yet"), "{t}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
