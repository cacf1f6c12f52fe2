//! LDS bank conflicts counted from the lanes' addresses (`SQ_LDS_BANK_CONFLICT`), on the padded
//! 16 × 17 transpose tile of `workloads/src/lds.hip` with a 64 × 64 matrix (every tile full).
//!
//! Expected by hand from the kernel's layout, on a 32-bank, 4-byte-wide LDS (MI210): a wave64
//! instruction is served 32 lanes at a time; lane l of a 16 × 16 group is (tx, ty) =
//! (l mod 16, l / 16). The store `tile[ty][tx]` uses words 17·ty + tx: lanes with ty = 0, 1 hit
//! banks 0–15 and 17–31, 0 — bank 0 twice; ty = 2, 3: bank 2 twice. The load `tile[tx][ty]`
//! uses words 17·tx + ty: bank 0 (tx 0, ty 0 and tx 15, ty 1) and bank 2 (ty 2, 3) twice.
//! So each LDS data instruction of a full wave costs 2 conflict cycles: 16 groups × 4 waves ×
//! 2 instructions × 2 = 256.

use hipscope_sim::counters::Counter;
use hipscope_sim::spec::{self, RunOptions};
use std::path::Path;

#[test]
fn padded_transpose_tile_conflicts_twice_per_instruction() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads");
    let text = r#"Run(code_objects: {"gfx90a": "bin/gfx90a/lds.co"},
  buffers: { "in": (bytes: 16384, init: Iota(F32)), "out": (bytes: 16384) },
  dispatches: [ (kernel: "lds_transpose", grid: (64, 64, 1), block: (16, 16, 1), args: [Buffer("in"), Buffer("out"), U32(64), U32(64)]) ],
  expect: [],
)"#;
    let path = dir.join("lds-banks-test.ron");
    let s = spec::parse(text, &path).expect("spec");
    let opts = RunOptions { gpu: Some("mi210".into()), code_object: None, seed: 0, mode: hipscope_sim::Mode::Timing, ..RunOptions::default() };
    let r = spec::run(&s, &path, &opts).expect("run");
    let counters = r.dispatches[0].counters.clone().expect("timing counters");
    assert_eq!(counters.get(Counter::SqInstsLds), 128, "one store and one load per wave");
    assert_eq!(counters.get(Counter::SqLdsBankConflict), 256);
}
