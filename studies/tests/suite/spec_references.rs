//! Specs checked by the built-in reference models: a reference set that does not model the
//! dispatched kernels is a spec error found before anything runs, and a fault the model
//! predicts is left to the simulation. The spec is vadd on the gfx90a object over 1000-float
//! buffers with `n` = 2000: the kernel reads past `a`, so running it ends in a kernel fault,
//! and an error found only after running would come out as that fault instead.

use hipscope_sim::spec::model::{Arg, Buffer, Dispatch, Expect, Init, Ty};
use hipscope_sim::spec::{self, RunError, RunOptions, Spec};
use hipscope_studies::references::BUILT_IN;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The faulting vadd with `c` expected as reference set `set` computes it.
fn run(name: &str, set: &str) -> Result<spec::Report, RunError> {
    let path = Path::new(name);
    let args = ["a", "b", "c"].map(|b| Arg::Buffer(b.into())).into_iter().chain([Arg::U32(2000)]).collect();
    let s = Spec::builder()
        .code_object("gfx90a", root().join("workloads/bin/gfx90a/vadd.co").display().to_string())
        .buffer("a", Buffer::zeroed(4000).init(Init::Iota(Ty::F32)))
        .buffer("b", Buffer::zeroed(4000))
        .buffer("c", Buffer::zeroed(4000))
        .dispatch(Dispatch::linear("vadd", 2048, 256, args))
        .expect(Expect::reference("c", set))
        .build(path)?;
    spec::run(&s, path, &RunOptions { gpu: Some("mi210".into()), references: Some(BUILT_IN), ..RunOptions::default() })
}

/// The spec error of a run, which must not have launched anything.
fn spec_error(name: &str, set: &str) -> String {
    match run(name, set) {
        Err(RunError::Spec(e)) => e.to_string(),
        Err(fault @ RunError::Fault { .. }) => panic!("{name}: ran the kernel before finding the mistake: {fault}"),
        Ok(r) => panic!("{name}: accepted, checks {:?}", r.checks),
    }
}

#[test]
fn references_must_model_the_dispatched_kernels() {
    let e = spec_error("wrongref.ron", "lds");
    assert_eq!(e, "wrongref.ron: expect[0].equals: reference \"lds\" has no model of kernel `vadd` (dispatch 0; it models lds_reduce, lds_transpose)");
    let e = spec_error("noref.ron", "nosuch");
    assert!(e.starts_with("noref.ron: expect[0].equals: no built-in reference \"nosuch\" (references: "), "{e}");
}

/// A reference that sees the kernel read past a buffer predicts the fault: the run goes
/// ahead and the simulated GPU reports it (exit status 3, not a spec error).
#[test]
fn a_fault_the_reference_predicts_is_left_to_the_simulation() {
    match run("predicted.ron", "vadd") {
        Err(RunError::Fault { fault, .. }) => assert!(fault.to_string().contains("memory violation"), "{fault}"),
        other => panic!("expected the kernel fault, got {other:?}"),
    }
}
