//! The engine's bench inputs (`sim/benches/specs/`) compute what the CPU references say, in
//! both modes, for every code object they list: the benches (`sim/benches`, `grade/benches`)
//! time these runs but cannot check them, the models being above the engine.

use hipscope_sim::spec::{self, RunOptions};
use hipscope_studies::references::BUILT_IN;
use std::path::PathBuf;

/// The GPU each code-object key of the bench specs runs on (the benches' choice).
const GPUS: &[(&str, &str)] = &[("gfx90a", "mi210"), ("gfx942", "mi300x"), ("gfx1100-w32-wgp", "rx7900xtx")];

#[test]
fn bench_specs_pass_their_reference_checks() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../sim/benches/specs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).expect("sim/benches/specs").filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.retain(|p| p.extension().is_some_and(|x| x == "ron"));
    files.sort();
    assert!(files.len() >= 4, "bench specs: {files:?}");
    for path in &files {
        let s = spec::load(path).unwrap_or_else(|e| panic!("{e}"));
        assert!(!s.expect.is_empty(), "{}: checks nothing", path.display());
        for key in s.code_objects.keys() {
            let gpu = GPUS.iter().find(|(k, _)| *k == key).map(|(_, g)| *g).unwrap_or_else(|| panic!("{}: no GPU for key {key}", path.display()));
            for timing in [false, true] {
                let opts = RunOptions {
                    gpu: Some(gpu.into()),
                    code_object: Some(key.into()),
                    mode: hipscope_sim::Mode::with_timing(timing),
                    references: Some(BUILT_IN),
                    ..RunOptions::default()
                };
                let what = format!("{} {key} on {gpu} (timing: {timing})", path.display());
                let report = spec::run(&s, path, &opts).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(report.checks.len(), s.expect.len(), "{what}");
                for c in &report.checks {
                    assert!(c.ok, "{what}: check {} failed: {}", c.buffer, c.detail);
                }
            }
        }
    }
}
