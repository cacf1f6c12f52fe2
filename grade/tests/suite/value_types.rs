//! Typed litmus values (`workloads/litmus/types`): 32- and 64-bit, signed and unsigned
//! add, sub, min, max, compare-and-swap and exchange at the ends of their ranges, register
//! arithmetic in C's types, and counters that wrap or carry under two blocks.
//!
//! The expected final values are computed here with Rust's own integer arithmetic on
//! `i32`/`u32`/`i64`/`u64` (`wrapping_add`, `min`, `as` conversions), an independent CPU
//! reference for C++'s rules. Each file's condition must state exactly those values; the
//! language model must reach that state in every consistent execution (one thread: one
//! state), and every run on every simulated GPU (mi210, mi300x, rx7900xtx) must end in it —
//! the same verdict in both layers, so no run is a conformance anomaly. The concurrent
//! counters are `~exists` tests that neither layer may satisfy.

use hipscope_grade::hardware::{self, Runs};
use hipscope_grade::litmus::{self, CmpOp, Litmus, Prop, Quantifier, Term};
use hipscope_grade::model::{self, Model};
use hipscope_mm::Value;
use hipscope_sim::gpus::{self, Mode};
use std::collections::BTreeMap;
use std::path::Path;

/// Runs per GPU: a single-thread test has one outcome, and the concurrent ones' outcome is
/// the same in every interleaving, so a few seeds suffice.
const RUNS_PER_GPU: u64 = 20;

/// (GPU, mode) — the three built-in GPUs the brief names, in their default modes.
const GPUS: [(&str, Mode); 3] = [("mi210", Mode::CU), ("mi300x", Mode::CU), ("rx7900xtx", Mode::WGP)];

fn v<T: Into<Value>>(x: T) -> Value {
    x.into()
}

/// `Ord::min`/`max` on the CPU (through a function, so the operands are not constants).
fn cpu_min<T: Ord>(a: T, b: T) -> T {
    a.min(b)
}
fn cpu_max<T: Ord>(a: T, b: T) -> T {
    a.max(b)
}

/// A strong compare-and-swap's success flag.
fn swaps<T: PartialEq>(old: T, expected: T) -> i32 {
    i32::from(old == expected)
}

/// What a strong compare-and-swap leaves in memory.
fn cas<T: PartialEq>(old: T, expected: T, desired: T) -> T {
    if old == expected {
        desired
    } else {
        old
    }
}

/// Type of the reference table: each file and the values its condition must state.
type Reference = Vec<(&'static str, Vec<(&'static str, Value)>)>;

/// Each file and the values its condition must state, from the CPU. (A file states few
/// values: each constant of the condition is a value the model tries for every read, and a
/// thread's runs multiply over its reads.)
fn reference() -> Reference {
    [reference_32(), reference_64(), reference_mixed()].concat()
}

/// The 32-bit atomics.
fn reference_32() -> Reference {
    let (imax, imin, umax) = (i32::MAX, i32::MIN, u32::MAX);
    let minus_one_u32 = -1i32 as u32;
    vec![
        ("01_int_add_wraps", vec![("x", v(imax.wrapping_add(1))), ("T0:old", v(imax))]),
        ("02_int_sub_wraps", vec![("x", v(imin.wrapping_sub(1))), ("T0:old", v(imin))]),
        (
            "03_unsigned_add_sub_wrap",
            vec![
                ("x", v(umax.wrapping_add(1))),
                ("y", v(0u32.wrapping_sub(1))),
                ("z", v(minus_one_u32.wrapping_add(2))),
                ("T0:a", v(umax)),
                ("T0:b", v(0u32)),
                ("T0:c", v(minus_one_u32)),
            ],
        ),
        (
            "04_min_max_signedness",
            vec![
                ("smin", v(cpu_min(5i32, -1))),
                ("umin", v(cpu_min(5u32, minus_one_u32))),
                ("smax", v(cpu_max(5i32, -1))),
                ("umax", v(cpu_max(5u32, minus_one_u32))),
                ("T0:a", v(5)),
                ("T0:b", v(5)),
                ("T0:c", v(5)),
                ("T0:d", v(5)),
            ],
        ),
        (
            "05_cas_exchange_32",
            vec![
                // atomicCAS(&u, -1, 0) on UINT_MAX: -1 converted to unsigned compares equal.
                ("u", v(cas(umax, minus_one_u32, 0))),
                ("T0:old", v(umax)),
                ("T0:ok1", v(swaps(imin, imin))),
                ("T0:ok2", v(swaps(cas(imin, imin, imax), imin))),
                ("T0:e2", v(cas(imin, imin, imax))),
                ("s", v(cas(cas(imin, imin, imax), imin, 0))),
                ("w", v(-2i32 as u32)),
                ("T0:x", v(7)),
            ],
        ),
    ]
}

/// The 64-bit atomics.
fn reference_64() -> Reference {
    let (lmax, ulmax) = (i64::MAX, u64::MAX);
    let minus_one_u64 = -1i64 as u64;
    vec![
        ("06_long_add_wraps", vec![("x", v(lmax.wrapping_add(1))), ("u", v(ulmax.wrapping_add(1))), ("T0:a", v(lmax)), ("T0:b", v(ulmax))]),
        (
            "07_uint64_sub_and_carry",
            vec![("d", v(0u64.wrapping_sub(1))), ("c", v(u64::from(u32::MAX) + 1)), ("T0:e", v(0u64)), ("T0:f", v(u64::from(u32::MAX)))],
        ),
        (
            "08_min_max_64",
            vec![
                ("smin", v(cpu_min(5i64, -1))),
                ("umin", v(cpu_min(5u64, minus_one_u64))),
                ("smax", v(cpu_max(-5i64, -1))),
                ("umax", v(cpu_max(5u64, minus_one_u64))),
                ("T0:a", v(5)),
                ("T0:b", v(5)),
                ("T0:c", v(-5)),
                ("T0:d", v(5)),
            ],
        ),
        (
            "09_cas_exchange_64",
            vec![
                // Expected 0 against 2^32: unequal as 64-bit values although the low words match.
                ("T0:ok1", v(swaps(1i64 << 32, 0))),
                ("T0:e1", v(1i64 << 32)),
                ("T0:ok2", v(swaps(cas(1i64 << 32, 0, 7), 1 << 32))),
                ("v", v(cas(cas(1i64 << 32, 0, 7), 1 << 32, -(1i64 << 32)))),
                ("w", v(u64::MAX << 32)),
                ("T0:x", v(1)),
            ],
        ),
        (
            "13_bitwise_and_or_xor",
            vec![
                ("a", v(0x0000_0000_ffff_ffffu64 & 0xffff_ffff_0000_0001)),
                ("o", v(1u64 | 0xffff_ffff_0000_0000)),
                ("x", v(-1i64 ^ (1 << 32))),
                ("m", v(0x8000_0000u32 ^ 0xffff_ffff)),
            ],
        ),
    ]
}

/// Register arithmetic in C types, and the counters under two blocks.
fn reference_mixed() -> Reference {
    let a = -1i32;
    let c = a as u32;
    let d = u64::from(c);
    let e = a as u64;
    vec![
        (
            "10_register_arithmetic",
            vec![
                ("T0:c", v(c)),
                // `a < c`: `a` converts to `unsigned` first.
                ("T0:lt", v(i32::from((a as u32) < c))),
                ("T0:b", v(i64::from(a))),
                ("T0:d", v(d)),
                ("T0:e", v(e)),
                ("T0:p", v(d.wrapping_mul(d))),
                ("T0:sum", v(d.wrapping_add(1))),
                ("T0:dif", v((1i64 << 32).wrapping_sub(1))),
                ("T0:q", v(c.wrapping_add(2))),
                ("T0:gt", v(i32::from((1i64 << 32) > i64::from(a)))),
                ("T0:ge", v(i32::from(e >= d))),
                ("T0:lx", v(i64::from(-5i32))),
                ("T0:nz", v(1)),
            ],
        ),
        ("11_unsigned_counter_wraps_concurrently", vec![("c", v((u32::MAX - 1).wrapping_add(1).wrapping_add(1)))]),
        ("12_uint64_counter_carries_concurrently", vec![("c", v(u64::from(u32::MAX) + 2))]),
    ]
}

fn load(stem: &str) -> Litmus {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/litmus/types").join(format!("{stem}.litmus"));
    litmus::parse_file(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// `x` or `T0:r`, as the condition writes a term.
fn name(test: &Litmus, term: &Term) -> String {
    match term {
        Term::Reg { thread, reg } => {
            let t = &test.threads[*thread as usize];
            format!("{}:{}", t.name, t.regs[reg.0 as usize])
        }
        Term::Loc { loc, .. } => test.locations[loc.0 as usize].name.clone(),
        Term::Const(c) => c.to_string(),
    }
}

/// The `term == constant` conjuncts of an `exists`, or the first `term != constant` of a
/// `~exists` (the counters' final value).
fn stated(test: &Litmus) -> BTreeMap<String, Value> {
    fn walk(test: &Litmus, p: &Prop, out: &mut Vec<(String, CmpOp, Value)>) {
        match p {
            Prop::And(a, b) | Prop::Or(a, b) => {
                walk(test, a, out);
                walk(test, b, out);
            }
            Prop::Cmp(t @ (Term::Loc { .. } | Term::Reg { .. }), op, Term::Const(c)) => out.push((name(test, t), *op, *c)),
            _ => {}
        }
    }
    let c = test.condition.as_ref().expect("a condition");
    let mut all = Vec::new();
    walk(test, &c.prop, &mut all);
    let want = if c.quantifier == Quantifier::Exists { CmpOp::Eq } else { CmpOp::Ne };
    let mut chosen = all.into_iter().filter(|(_, op, _)| *op == want).map(|(n, _, c)| (n, c));
    if want == CmpOp::Ne {
        return chosen.next().into_iter().collect();
    }
    chosen.collect()
}

#[test]
fn every_condition_states_the_cpu_reference() {
    for (stem, expect) in reference() {
        let test = load(stem);
        let expect: BTreeMap<String, Value> = expect.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        assert_eq!(stated(&test), expect, "{stem}");
    }
}

/// Allowed in every consistent execution (`exists`), or in none (`~exists`).
fn single_outcome(stem: &str, test: &Litmus) -> bool {
    let exists = test.condition.as_ref().is_some_and(|c| c.quantifier == Quantifier::Exists);
    let v = model::check(test, Model::Hip).unwrap_or_else(|e| panic!("{stem}: {e}"));
    assert!(v.race_free(), "{stem}: atomics only, no race");
    if exists {
        assert!(v.reachable() && v.positive == v.consistent, "{stem}: {} of {} consistent executions reach it", v.positive, v.consistent);
        assert_eq!(v.states, 1, "{stem}: one thread, one final state");
    } else {
        assert!(!v.reachable(), "{stem}: the model allows the lost update");
    }
    exists
}

#[test]
fn language_model_reaches_exactly_the_reference_state() {
    for (stem, _) in reference() {
        single_outcome(stem, &load(stem));
    }
}

#[test]
fn every_gpu_shows_the_same_state_as_the_model() {
    for (stem, _) in reference() {
        let test = load(stem);
        let exists = single_outcome(stem, &test);
        for (gpu, mode) in GPUS {
            let config = gpus::builtin(gpu).expect("built-in GPU");
            let r =
                hardware::run(&test, &config, mode, Runs { count: RUNS_PER_GPU, seed: 1, one_xcd: false }).unwrap_or_else(|e| panic!("{stem} on {gpu}: {e}"));
            let states: Vec<&str> = r.outcomes.iter().map(|o| o.state.as_str()).collect();
            let want = if exists { r.runs } else { 0 };
            assert_eq!(r.condition_observed, want, "{stem} on {gpu}: {states:?}");
        }
    }
}

/// The access instruction follows the location's type, on CDNA and RDNA spellings.
#[test]
fn typed_atomics_use_their_instructions() {
    let listing = |stem: &str, build: &str| -> String {
        let target = hipscope_mm::lower::CONFIGS.iter().find(|(n, _)| *n == build).expect("build").1;
        let asm = hardware::compile(&load(stem), &target).unwrap_or_else(|e| panic!("{stem}: {e}"));
        asm.listing.iter().map(|l| l.text.clone()).collect::<Vec<_>>().join("\n")
    };
    for (stem, build, wanted) in [
        ("04_min_max_signedness", "gfx90a", ["global_atomic_smin ", "global_atomic_umin ", "global_atomic_smax ", "global_atomic_umax "]),
        ("04_min_max_signedness", "gfx1100-w32-wgp", ["global_atomic_min_i32", "global_atomic_min_u32", "global_atomic_max_i32", "global_atomic_max_u32"]),
        ("08_min_max_64", "gfx942", ["global_atomic_smin_x2", "global_atomic_umin_x2", "global_atomic_smax_x2", "global_atomic_umax_x2"]),
        ("08_min_max_64", "gfx1100-w32-wgp", ["global_atomic_min_i64", "global_atomic_min_u64", "global_atomic_max_i64", "global_atomic_max_u64"]),
        ("09_cas_exchange_64", "gfx90a", ["global_atomic_cmpswap_x2", "global_atomic_swap_x2", "global_store_dwordx2", "s_cmp_eq_u64"]),
        ("06_long_add_wraps", "gfx1100-w32-wgp", ["global_atomic_add_u64", "global_store_b64", "global_atomic_add_u64", "global_atomic_add_u64"]),
        ("13_bitwise_and_or_xor", "gfx942", ["global_atomic_and_x2", "global_atomic_or_x2", "global_atomic_xor_x2", "global_atomic_xor "]),
    ] {
        let text = listing(stem, build);
        for w in wanted {
            assert!(text.contains(w), "{stem} on {build} lacks `{w}`:\n{text}");
        }
    }
}

/// A literal the declared type cannot hold is an error with its position, in every dialect
/// (clang-19 warns for these by default), and the idiomatic `unsigned = -1` is not.
#[test]
fn out_of_range_literals_are_errors_with_their_line() {
    let cases = [
        ("HIP t\n__device__ int x = 0;\nthread T0 @ block 0, thread 0 { atomicAdd(&x, 1); }\nexists (x == 2147483648)\n", 4, "out of range"),
        ("HIP t\n__device__ int x = 4294967295;\nthread T0 @ block 0, thread 0 { atomicAdd(&x, 1); }\nexists (x == 0)\n", 2, "does not fit `x`"),
        ("HIP t\n__device__ unsigned x = 0;\nthread T0 @ block 0, thread 0 {\n  atomicAdd(&x, 4294967296);\n}\nexists (x == 0)\n", 4, "does not fit `x`"),
        ("LISA t\n{ x = 4294967296; }\n P0 ;\n w[] x 1 ;\nexists (x = 1)\n", 2, "does not fit `x`, of type `int`"),
        ("LISA t\n{ uint64_t x = 0; }\n P0 ;\n w[] x 1 ;\nexists (x = -9223372036854775809)\n", 5, "out of range"),
        ("OPENCL t\n{ [x] = 4294967295; }\nP0@wg 0, dev 0 (global atomic_int* x) {\n  atomic_fetch_add(x, 1);\n}\nexists (x == 0)\n", 2, "does not fit `x`"),
        ("OPENCL t\n{ [x] = 0; }\nP0@wg 0, dev 0 (global atomic_uint* x) {\n  atomic_fetch_add(x, 1);\n}\nexists (x == 4294967296)\n", 6, "out of range"),
    ];
    for (src, line, message) in cases {
        let e = litmus::parse(Path::new("t.litmus"), src).expect_err(src);
        assert_eq!(e.span.line, line, "{e}");
        assert!(e.message.contains(message), "{e}");
    }
    let fine = "OPENCL t\n{ [x] = -1; }\nP0@wg 0, dev 0 (global atomic_uint* x) {\n  atomic_fetch_add(x, 1);\n}\nexists (x == 0)\n";
    let t = litmus::parse(Path::new("t.litmus"), fine).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t.locations[0].init, v(u32::MAX));
    let v = model::check(&t, Model::Opencl).expect("graded");
    assert!(v.reachable() && v.positive == v.consistent, "UINT_MAX + 1 is 0");
}
