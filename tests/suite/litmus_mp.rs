//! Message-passing litmus (`workloads/src/litmus_mp.hip`) over many seeds in timing mode. The
//! consumer work-group first reads the message (usually before the producer wrote it, so its
//! L1/L0 keeps the old line), then waits for the flag and reads the message again. What it
//! reads follows from the code clang emits for each scope and from the simulated caches holding
//! data; nothing here or in the simulator depends on the scope. Seeds vary when each
//! work-group starts (`sim/src/timing/jitter.rs`), as launch order does on hardware.
//! - Release/acquire at workgroup scope between work-groups on different CUs is a scope race:
//!   on every GPU some seeds must read the stale value.
//! - At agent scope no seed may, and most seeds must see the flag.
//! - The libhipcxx memory-model document's message-passing example in its correct form (device
//!   scope on both sides) behaves like agent scope. Its racy form (block-scope release store,
//!   device-scope acquire loads) must read stale data for some seeds: the consumer's
//!   device-scope acquire invalidates its L1/L0, so that needs the producer's two stores to
//!   reach the L2 out of order, which they may when no wait separates them (seeded runs let
//!   requests to different L2 channels overtake each other, `sim/src/memsys/reorder.rs`). On
//!   gfx1100 in WGP mode clang puts `s_waitcnt_vscnt null, 0` before a work-group release, so
//!   there the racy form cannot fail; the CU-mode build shows it.
//!
//! Outcomes are judged against what the kernel's producer writes (t + 1, or 42 in the
//! document's example), never against simulator output: a lane that saw the flag and read any
//! other value read a stale one, and the only other value the message ever held is the
//! initial 0.

use hipscope_sim::spec::{self, RunOptions, Session};
use std::path::Path;

/// Work-items per group: one wave64, two wave32.
const B: u32 = 64;
/// Flag loads before the consumer gives up.
const MAX_SPINS: i32 = 200;

/// What a kernel's scopes allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stale {
    /// A scope race the simulator must show: some seed of the GPU reads stale data.
    Required,
    /// Synchronized: no seed may read stale data, and most must see the flag.
    Forbidden,
}

struct Kernel {
    name: &'static str,
    /// The value the producer writes for lane t.
    value: fn(u32) -> i32,
    stale: Stale,
}

const WORKGROUP: Kernel = Kernel { name: "litmus_mp_workgroup", value: |t| t as i32 + 1, stale: Stale::Required };
const AGENT: Kernel = Kernel { name: "litmus_mp_agent", value: |t| t as i32 + 1, stale: Stale::Forbidden };
const SEED_BLOCK: Kernel = Kernel { name: "litmus_seed_block", value: |_| 42, stale: Stale::Required };
const SEED_DEVICE: Kernel = Kernel { name: "litmus_seed_device", value: |_| 42, stale: Stale::Forbidden };
const ALL: &[&Kernel] = &[&WORKGROUP, &AGENT, &SEED_BLOCK, &SEED_DEVICE];
/// Seeds per kernel and placement.
const SEEDS: u64 = 1000;
const FOUR: [(&Kernel, u64); 4] = [(&WORKGROUP, SEEDS), (&AGENT, SEEDS), (&SEED_BLOCK, SEEDS), (&SEED_DEVICE, SEEDS)];
const TWO: [(&Kernel, u64); 2] = [(&WORKGROUP, SEEDS), (&AGENT, SEEDS)];

/// One sweep: a GPU, its code object (`None`: the default entry for the GPU), the consumer's
/// work-group, and the kernels with how many seeds each (every seed starts from empty caches,
/// `Session::reset`).
struct Sweep {
    gpu: &'static str,
    key: Option<&'static str>,
    consumer: u32,
    /// What the placement gives (for the table).
    placement: &'static str,
    kernels: &'static [(&'static Kernel, u64)],
}

/// Per seed: every lane read the message / some lane read a stale value / no lane read a
/// stale value and some gave up waiting.
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    new: u64,
    stale: u64,
    timeout: u64,
}

fn spec_text(kernel: &str, consumer: u32) -> String {
    let objects =
        ["gfx90a", "gfx942", "gfx1100-w32-wgp", "gfx1100-w32-cu"].iter().map(|k| format!("\"{k}\": \"bin/{k}/litmus_mp.co\"")).collect::<Vec<_>>().join(", ");
    format!(
        "Run(code_objects: {{{objects}}},
          buffers: {{\"data\": (bytes: {n}), \"flag\": (bytes: {n}), \"out\": (bytes: {o}, init: Const(I32, -2))}},
          dispatches: [(kernel: \"{kernel}\", grid: ({g}, 1, 1), block: ({B}, 1, 1),
                        args: [Buffer(\"data\"), Buffer(\"flag\"), Buffer(\"out\"), I32({MAX_SPINS}), I32({consumer})])])",
        n = 4 * B,
        o = 8 * B,
        g = (consumer + 1) * B,
    )
}

/// Add one launch's `out` (2·B i32: the final reads, then the warm reads) to `c`.
fn classify(out: &[u8], k: &Kernel, c: &mut Counts) {
    let word = |i: u32| i32::from_le_bytes(out[4 * i as usize..4 * i as usize + 4].try_into().unwrap());
    let (mut stale, mut timeout) = (false, false);
    for t in 0..B {
        let want = (k.value)(t);
        let warm = word(B + t);
        assert!(warm == 0 || warm == want, "{}: lane {t} warm read {warm}, neither the initial 0 nor the message {want}", k.name);
        match word(t) {
            -1 => timeout = true,
            v if v == want => {}
            0 => stale = true,
            v => panic!("{}: lane {t} read {v}, a value the message never held", k.name),
        }
    }
    if stale {
        c.stale += 1;
    } else if timeout {
        c.timeout += 1;
    } else {
        c.new += 1;
    }
}

/// Run the sweeps, print their table and check it; every sweep of `gpu` together must show
/// each `Required` race.
fn check(gpu: &str, sweeps: &[Sweep]) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Anchors the code objects' relative paths (no file is read from it).
    let path = root.join("workloads/litmus_mp.ron");
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for sw in sweeps {
        for &(k, seeds) in sw.kernels {
            let s = spec::parse(&spec_text(k.name, sw.consumer), &path).expect("spec");
            let opts = RunOptions {
                gpu: Some(sw.gpu.into()),
                code_object: sw.key.map(Into::into),
                seed: 0,
                mode: hipscope_sim::Mode::Timing,
                ..RunOptions::default()
            };
            let mut session = Session::new(&s, &path, &opts).expect("session");
            let mut c = Counts::default();
            for seed in 1..=seeds {
                session.reset().expect("buffers rewritten");
                session.launch(0, seed).unwrap_or_else(|e| panic!("{} {} seed {seed}: {e}", sw.gpu, k.name));
                classify(&session.read_buffer("out").expect("out"), k, &mut c);
            }
            let label = format!("{} {} {}", sw.gpu, session.key, sw.placement);
            if k.stale == Stale::Forbidden {
                if c.stale > 0 {
                    failures.push(format!("{label} {}: {} of {seeds} seeds read stale data", k.name, c.stale));
                }
                if c.timeout * 2 > seeds {
                    failures.push(format!("{label} {}: {} of {seeds} seeds never saw the flag", k.name, c.timeout));
                }
            }
            rows.push((label, k, seeds, c));
        }
    }
    for k in ALL.iter().filter(|k| k.stale == Stale::Required) {
        let ran = rows.iter().any(|r| r.1.name == k.name);
        if ran && rows.iter().filter(|r| r.1.name == k.name).all(|r| r.3.stale == 0) {
            failures.push(format!("{gpu} {}: no seed read stale data", k.name));
        }
    }
    println!("{:<48} {:<20} {:>6} {:>6} {:>6} {:>8}", "GPU, code object, producer/consumer", "kernel", "seeds", "new", "stale", "timeout");
    for (label, k, seeds, c) in &rows {
        println!("{label:<48} {:<20} {seeds:>6} {:>6} {:>6} {:>8}", k.name, c.new, c.stale, c.timeout);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn mi210_gfx90a() {
    check("mi210", &[Sweep { gpu: "mi210", key: None, consumer: 1, placement: "(2 CUs)", kernels: &FOUR }]);
}

#[test]
fn mi300x_gfx942() {
    check(
        "mi300x",
        &[
            // Group 8 runs on the producer's XCD (group i on XCD i mod 8), on another CU.
            Sweep { gpu: "mi300x", key: None, consumer: 8, placement: "(2 CUs, 1 XCD)", kernels: &FOUR },
            // Group 1 runs on another XCD, with its own L2: a workgroup-scope flag stays in the
            // producer's L2, so the consumer never sees it.
            Sweep { gpu: "mi300x", key: None, consumer: 1, placement: "(2 XCDs)", kernels: &TWO },
        ],
    );
}

#[test]
fn rx7900xtx_gfx1100() {
    check(
        "rx7900xtx",
        &[
            Sweep { gpu: "rx7900xtx", key: None, consumer: 1, placement: "(2 WGPs)", kernels: &FOUR },
            Sweep { gpu: "rx7900xtx", key: Some("gfx1100-w32-cu"), consumer: 1, placement: "(2 CUs)", kernels: &FOUR },
        ],
    );
}
