//! `params` and integer expressions in launch specs: where they may appear, what they evaluate
//! to (worked out by hand here), `--set` overrides, and errors that name the field.

use hipscope_sim::spec::model::{Arg, Num};
use hipscope_sim::spec::{self, Spec};
use std::path::Path;

const SPEC: &str = r#"Run(
  params: {"n": 1000, "block": 256, "groups": "(n + block - 1) / block"},
  code_objects: {"k": "k.co"},
  buffers: {
    "x": (bytes: "4*n", init: Const(U32, "n - 1"), patch: [(at: "4*(n-1)", value: U32("n*2"))]),
    "y": (bytes: 64),
  },
  dispatches: [
    (kernel: "k", grid: ("groups*block", 1, 1), block: ("block", 1, 1), dynamic_lds: "block*4",
     args: [Buffer("x"), U32("n"), I32("-n"), U64("n*n*n"), F32("n/3"), F64(0.5), I8(-3)]),
  ],
  expect: [ (buffer: "x", equals: U32([999]), offset: "4*(n/2)") ],
)"#;

fn parse(text: &str, set: &[(&str, i128)]) -> Result<Spec, String> {
    let set: Vec<(String, i128)> = set.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    spec::parse_with(text, Path::new("p.ron"), &set).map_err(|e| e.to_string())
}

#[test]
fn expressions_in_sizes_geometry_and_arguments() {
    let s = parse(SPEC, &[]).unwrap();
    // groups = ceil(1000 / 256) = 4.
    assert_eq!(s.param_values.0, [("n".to_string(), 1000), ("block".to_string(), 256), ("groups".to_string(), 4)]);
    let x = s.buffers.get("x").unwrap();
    assert_eq!(x.bytes, Some(4000));
    assert!(matches!(x.init, spec::model::Init::Const(_, Num::Int(999))));
    assert_eq!((x.patch[0].at, &x.patch[0].value), (3996, &Arg::U32(2000)));
    assert_eq!(s.buffers.get("y").unwrap().bytes, Some(64), "numbers stay numbers");
    let d = &s.dispatches[0];
    assert_eq!((d.grid, d.block, d.dynamic_lds), ((1024, 1, 1), (256, 1, 1), 1024));
    let spec::model::Args::Positional(args) = &d.args else { panic!("positional") };
    assert_eq!(args[1..], [Arg::U32(1000), Arg::I32(-1000), Arg::U64(1_000_000_000), Arg::F32(333.0), Arg::F64(0.5), Arg::I8(-3)]);
    assert_eq!(s.expect[0].offset, 2000);
}

#[test]
fn set_overrides_declared_values_and_derived_ones_follow() {
    let s = parse(SPEC, &[("n", 65536)]).unwrap();
    assert_eq!(s.buffers.get("x").unwrap().bytes, Some(262144));
    assert_eq!(s.dispatches[0].grid, (65536, 1, 1), "groups = 65536 / 256 = 256");
    let s = parse(SPEC, &[("n", 10), ("block", 64)]).unwrap();
    assert_eq!((s.dispatches[0].grid, s.dispatches[0].block), ((64, 1, 1), (64, 1, 1)));
    let e = parse(SPEC, &[("m", 1)]).unwrap_err();
    assert_eq!(e, "p.ron: --set m: the spec has no parameter `m` (params: n, block, groups)");
    let e = parse(SPEC, &[("n", 1), ("n", 2)]).unwrap_err();
    assert!(e.contains("--set n: given more than once"), "{e}");
}

#[test]
fn overflow_division_by_zero_and_unknown_names_name_the_field() {
    let cases: &[(&str, &str, &str, &str)] = &[
        (r#"bytes: "4*n""#, r#"bytes: "4*n/(block-256)""#, "buffers.x.bytes", "`4*n/(block-256)`: division by zero (4000 / 0)"),
        (r#"bytes: "4*n""#, r#"bytes: "4*m""#, "buffers.x.bytes", "`4*m`: unknown parameter `m` (params: n, block, groups)"),
        (r#"U64("n*n*n")"#, r#"U64("n*n*n*n*n*n*n")"#, "dispatches[0].args[3].U64", "= 1000000000000000000000 does not fit in u64"),
        (r#"U32("n")"#, r#"U32("-n")"#, "dispatches[0].args[1].U32", "`-n` = -1000 does not fit in u32"),
        (r#"("block", 1, 1)"#, r#"("block", "n % 0", 1)"#, "dispatches[0].block[1]", "division by zero (1000 % 0)"),
        (r#"dynamic_lds: "block*4""#, r#"dynamic_lds: "block*""#, "dispatches[0].dynamic_lds", "expected a number, a parameter or `(` at the end"),
        (r#"offset: "4*(n/2)""#, r#"offset: "4*(n/2""#, "expect[0].offset", "missing `)`"),
        (r#"I8(-3)"#, r#"I8("n")"#, "dispatches[0].args[6].I8", "`n` = 1000 does not fit in i8 (-128..=127)"),
        (r#""groups": "(n + block - 1) / block""#, r#""groups": "n / nope""#, "params.groups", "unknown parameter `nope` (params: n, block)"),
        (r#""n": 1000"#, r#""n": "340282366920938463463374607431768211455""#, "params.n", "not an integer"),
        (r#""n": 1000"#, r#""4n": 1000"#, "params.4n", "a parameter name is a letter"),
    ];
    for (from, to, field, what) in cases {
        assert!(SPEC.contains(from), "{from}");
        let e = parse(&SPEC.replacen(from, to, 1), &[]).unwrap_err();
        assert!(e.contains(&format!(" {field}: ")) && e.contains(what), "{to}: want `{field}: …{what}`, got: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}

#[test]
fn the_vadd_workload_uses_params_and_keeps_its_sizes() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/vadd.ron");
    let s = spec::load(&path).unwrap();
    // The sizes the spec had before it used params: n = 10000, grid 10100, c 40960 bytes.
    assert_eq!(s.buffers.get("a").unwrap().bytes, Some(40000));
    assert_eq!(s.buffers.get("c").unwrap().bytes, Some(40960));
    assert_eq!(s.dispatches[0].grid, (10100, 1, 1));
    let spec::model::Args::Positional(args) = &s.dispatches[0].args else { panic!("positional") };
    assert_eq!(args[3], Arg::U32(10000));
}
