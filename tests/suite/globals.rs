//! A code object's own variables (`workloads/src/globals.hip`): the device maps its `.data`,
//! `.bss` and `.rodata` at the addresses the code was linked for, a spec writes variables
//! with `globals:` and checks them with `expect: [(global: ..)]`. Expected values come from
//! the kernel's definition (`out[i] = d_mask[i % 16] * 2.5 + d_init[i % 4]`), worked out by
//! hand. Before, every access to a variable faulted "outside every allocation". Device printf
//! stops with a fault that says it is not supported yet, naming the kernel.

use hipscope_sim::fault::FaultKind;
use hipscope_sim::spec::{self, RunError, RunOptions};
use std::path::{Path, PathBuf};

fn spec_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads/globals.ron")
}

#[test]
fn kernels_read_and_write_their_globals_in_both_modes() {
    let path = spec_path();
    for gpu in ["mi300x", "mi210", "rx7900xtx", "r9nano"] {
        for timing in [false, true] {
            let opts = RunOptions { gpu: Some(gpu.into()), mode: hipscope_sim::Mode::with_timing(timing), ..RunOptions::default() };
            let r = spec::run_file(&path, &opts).unwrap_or_else(|e| panic!("{gpu}: {e}"));
            for c in &r.checks {
                println!("{gpu} timing={timing}: {} {} ({})", c.buffer, if c.ok { "ok" } else { "FAIL" }, c.detail);
            }
            assert!(r.passed(), "{gpu} timing={timing}");
        }
    }
}

#[test]
fn an_unwritten_bss_variable_is_zero() {
    let path = spec_path();
    let mut s = spec::load(&path).expect("loads");
    s.globals = Default::default();
    // d_mask stays .bss zero: out[i] = d_init[i % 4] = i % 4 + 1.
    s.expect.retain(|e| e.buffer == "out");
    let want: Vec<f32> = (0..64).map(|i| (i % 4 + 1) as f32).collect();
    s.expect[0].equals = spec::model::Expected::F32(want);
    let r = spec::run(&s, &path, &RunOptions::default()).expect("runs");
    assert!(r.passed(), "{:?}", r.checks);
}

/// The one-line error of the spec `text` (read as if it were `workloads/globals.ron`).
fn spec_error(text: &str) -> String {
    let path = spec_path();
    let s = match spec::parse(text, &path) {
        Ok(s) => s,
        Err(e) => return e.to_string(),
    };
    match spec::run(&s, &path, &RunOptions::default()) {
        Err(RunError::Spec(e)) => e.to_string(),
        Err(e) => panic!("expected a spec error, got {e}"),
        Ok(_) => panic!("expected a spec error, it ran"),
    }
}

#[test]
fn globals_that_do_not_exist_or_do_not_fit_are_spec_errors() {
    let text = std::fs::read_to_string(spec_path()).expect("spec");
    let e = spec_error(&text.replace("\"d_mask\": Values", "\"d_mask2\": Values"));
    assert!(e.contains("globals.d_mask2") && e.contains("no variable `d_mask2`") && e.contains("d_init"), "{e}");
    let e = spec_error(&text.replace("Values(F32, [0, 1, 2, 3,", "Values(F32, [0, 0, 0, 0, 0, 1, 2, 3,"));
    assert!(e.contains("globals.d_mask") && e.contains("64"), "{e}");
    let e = spec_error(&text.replace("(global: \"c_scale\"", "(buffer: \"out\", global: \"c_scale\""));
    assert!(e.contains("gives both `buffer` and `global`"), "{e}");
    let e = spec_error(&text.replace("(global: \"c_scale\"", "(global: \"c_scal\""));
    assert!(e.contains("no variable `c_scal`"), "{e}");
}

#[test]
fn device_printf_is_reported_as_not_supported_naming_the_kernel() {
    let path = spec_path();
    let text = "Run(gpu: \"mi300x\", code_objects: {\"gfx942\": \"bin/gfx942/globals.co\"}, buffers: {\"out\": (bytes: 256)}, dispatches: [(kernel: \"say_hello\", grid: (64, 1, 1), block: (64, 1, 1), args: [Buffer(\"out\")])])";
    let s = spec::parse(text, &path).expect("parses");
    for timing in [false, true] {
        match spec::run(&s, &path, &RunOptions { mode: hipscope_sim::Mode::with_timing(timing), ..RunOptions::default() }) {
            Err(RunError::Fault { fault, .. }) => {
                let msg = fault.to_string();
                assert!(matches!(fault.kind, FaultKind::NotSupported(_)), "{msg}");
                assert!(msg.contains("device printf is not supported yet") && msg.contains("`say_hello`"), "{msg}");
            }
            other => panic!("expected the printf fault, got {:?}", other.map(|r| r.checks)),
        }
    }
}
