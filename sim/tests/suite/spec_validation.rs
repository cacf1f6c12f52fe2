//! A spec's mistakes are found before anything runs: degenerate init parameters, expectations
//! that check nothing or do not fit their buffer, unreadable expected files, references when
//! the run has no reference models. Each is a spec error naming the field; the specs here
//! would otherwise run a kernel that faults, so an error found only after running would come
//! out as a kernel fault instead.

use hipscope_sim::spec::{self, RunError, RunOptions};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = root().join("target/spec-validation-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// vadd on the gfx90a object over 1000-float buffers `a`, `b`, `c` (plus `extra`) with
/// `n` = 2000: the kernel reads past `a`, so running it ends in a kernel fault.
fn faulting_vadd(extra_buffers: &str, expect: &str) -> String {
    format!(
        r#"Run(
  code_objects: {{"gfx90a": "{}"}},
  buffers: {{ "a": (bytes: 4000, init: Iota(F32)), "b": (bytes: 4000), "c": (bytes: 4000), {extra_buffers} }},
  dispatches: [ (kernel: "vadd", grid: (2048, 1, 1), block: (256, 1, 1), args: [Buffer("a"), Buffer("b"), Buffer("c"), U32(2000)]) ],
  expect: [ {expect} ],
)"#,
        root().join("workloads/bin/gfx90a/vadd.co").display()
    )
}

fn run(name: &str, text: &str) -> Result<spec::Report, RunError> {
    let p = scratch(name, text);
    let s = spec::load(&p).map_err(RunError::Spec)?;
    spec::run(&s, &p, &RunOptions { gpu: Some("mi210".into()), ..RunOptions::default() })
}

/// The spec error of a run, which must not have launched anything.
fn spec_error(name: &str, text: &str) -> String {
    match run(name, text) {
        Err(RunError::Spec(e)) => e.to_string(),
        Err(fault @ RunError::Fault { .. }) => panic!("{name}: ran the kernel before finding the mistake: {fault}"),
        Ok(r) => panic!("{name}: accepted, checks {:?}", r.checks),
    }
}

fn assert_names(err: &str, file: &str, field: &str, what: &str) {
    assert!(err.contains(&format!("{file}: {field}: ")) && err.contains(what), "want `{field}: …{what}…`, got: {err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn degenerate_init_parameters_are_errors_naming_the_buffer() {
    let cases = [
        ("visits0.ron", r#""v": (bytes: 64, init: PointerCycleVisits(1, 0))"#, "PointerCycleVisits spacing 0 is not a positive multiple of 8"),
        ("visits12.ron", r#""v": (bytes: 64, init: PointerCycleVisits(1, 12))"#, "PointerCycleVisits spacing 12 is not a positive multiple of 8"),
        ("visits-odd.ron", r#""v": (bytes: 62, init: PointerCycleVisits(1, 8))"#, "62 bytes is not a whole number of u32 entry numbers"),
        ("chain0.ron", r#""v": (bytes: 64, init: PointerCycle(1, 0))"#, "PointerCycle spacing 0 is not a positive multiple of 8"),
        ("randint.ron", r#""v": (bytes: 64, init: RandomInt(U32, 5, 3, 1))"#, "RandomInt range 5..=3 is empty"),
        // 2^24 + 1 is the first integer an f32 cannot hold.
        ("randint-f32.ron", r#""v": (bytes: 64, init: RandomInt(F32, 0, 16777217, 1))"#, "leaves the integers f32 holds exactly"),
        ("randint-u8.ron", r#""v": (bytes: 64, init: RandomInt(U8, 0, 256, 1))"#, "leaves the integers u8 holds exactly"),
    ];
    for (name, buffer, what) in cases {
        let e = spec_error(name, &faulting_vadd(buffer, r#"(buffer: "c", equals: F32([0.0]))"#));
        assert_names(&e, name, "buffers.v.init", what);
    }
}

#[test]
fn an_empty_expected_list_is_an_error_when_the_spec_is_read() {
    for list in ["U32([])", "F32([])", "U8([])"] {
        let text = faulting_vadd("", &format!(r#"(buffer: "c", equals: F32([0.0])), (buffer: "c", equals: {list})"#));
        let e = spec::parse(&text, Path::new("empty.ron")).unwrap_err().to_string();
        assert_names(&e, "empty.ron", "expect[1].equals", "the list is empty, so it would check nothing");
    }
}

#[test]
fn expectations_must_fit_their_buffer() {
    // c holds 1000 f32: 1001 values do not fit, nor 2 values from byte 3996.
    let long = format!("F32([{}])", vec!["1.0"; 1001].join(", "));
    let e = spec_error("long.ron", &faulting_vadd("", &format!(r#"(buffer: "c", equals: {long})"#)));
    assert_names(&e, "long.ron", "expect[0].equals", "the list has 4004 bytes, but \"c\" holds 4000 bytes after offset 0");
    let e = spec_error("tail.ron", &faulting_vadd("", r#"(buffer: "c", equals: F32([1.0, 2.0]), offset: 3996)"#));
    assert_names(&e, "tail.ron", "expect[0].equals", "holds 4 bytes after offset 3996");
    let e = spec_error("misaligned.ron", &faulting_vadd("", r#"(buffer: "c", equals: F32([1.0]), offset: 6)"#));
    assert_names(&e, "misaligned.ron", "expect[0].offset", "6 is not a multiple of the 4-byte f32 elements");
    let e = spec_error("ty.ron", &faulting_vadd("", r#"(buffer: "c", equals: U8([1, 2, 3]), ty: U32)"#));
    assert_names(&e, "ty.ron", "expect[0].ty", "the 3-byte list is not a whole number of u32 elements");
}

#[test]
fn expected_files_are_read_before_running() {
    let e = spec_error("nofile.ron", &faulting_vadd("", r#"(buffer: "c", equals: File("missing.bin"))"#));
    let tried = root().join("target/spec-validation-tests/missing.bin");
    assert_names(&e, "nofile.ron", "expect[0].equals", &format!("cannot read {}", std::path::absolute(&tried).unwrap().display()));
    // A file longer than the buffer cannot match.
    let big = scratch("big.bin", &"x".repeat(4001));
    let e = spec_error("bigfile.ron", &faulting_vadd("", &format!(r#"(buffer: "c", equals: File("{}"))"#, big.display())));
    assert_names(&e, "bigfile.ron", "expect[0].equals", "big.bin has 4001 bytes, but \"c\" holds 4000 bytes after offset 0");
    let e = spec_error("devzero.ron", &faulting_vadd("", r#"(buffer: "c", equals: File("/dev/zero"))"#));
    assert_names(&e, "devzero.ron", "expect[0].equals", "cannot read /dev/zero: not a regular file");
}

/// The reference models are not the engine's (they are a study, given to a run by its
/// caller): a run given none refuses a spec that names a reference set, before it runs. The
/// models' own checks are in `studies/tests/suite/spec_references.rs`.
#[test]
fn a_reference_without_models_is_a_spec_error() {
    let e = spec_error("unregistered.ron", &faulting_vadd("", r#"(buffer: "c", equals: Reference("vadd"))"#));
    assert_names(&e, "unregistered.ron", "expect[0].equals", "Reference(\"vadd\") needs the CPU reference models, and this run was given none");
}

#[test]
fn bad_init_files_name_the_full_path() {
    let e = spec_error("initdev.ron", &faulting_vadd(r#""f": (init: File("/dev/zero"))"#, r#"(buffer: "c", equals: F32([0.0]))"#));
    assert_names(&e, "initdev.ron", "buffers.f.init", "cannot read /dev/zero: not a regular file");
    let e = spec_error("initmissing.ron", &faulting_vadd(r#""f": (init: File("no/such.bin"))"#, r#"(buffer: "c", equals: F32([0.0]))"#));
    let tried = std::path::absolute(root().join("target/spec-validation-tests/no/such.bin")).unwrap();
    assert_names(&e, "initmissing.ron", "buffers.f.init", &format!("cannot read {}", tried.display()));
}

#[test]
fn oversized_and_special_spec_files_are_refused_without_reading_them() {
    let e = spec::load(Path::new("/dev/zero")).unwrap_err().to_string();
    assert!(e.contains("/dev/zero: not a regular file"), "{e}");
    // A sparse 65 MiB file: refused from its size, so the test costs no memory.
    let p = root().join("target/spec-validation-tests/huge.ron");
    std::fs::File::create(&p).unwrap().set_len(65 << 20).unwrap();
    let e = spec::load(&p).unwrap_err().to_string();
    assert!(e.contains(&format!("holds {} bytes; at most {} are read", 65 << 20, 64 << 20)), "{e}");
}
