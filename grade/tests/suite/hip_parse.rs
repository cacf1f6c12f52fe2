//! The HIP dialect: every case file in `workloads/litmus` parses, parsed programs match
//! their text, bad inputs give the right position and message, and seeded mutations of
//! the case files never panic the parser.

use std::path::Path;

use hipscope_grade::litmus::{self, CmpOp, Expr, Litmus, Prop, Quantifier, Stmt, Term};

use hipscope_mm::{Access, Order, RmwOp, Scope, Space, Spaces};

use crate::common;

use common::{atomic, case_files, check_ids, loc, reg, Draw};

fn case(prefix: &str) -> Litmus {
    let file = case_files().into_iter().find(|f| f.file_name().is_some_and(|n| n.to_string_lossy().starts_with(prefix))).expect("case file");
    litmus::parse_file(&file).unwrap_or_else(|e| panic!("{e}"))
}

fn parse(text: &str) -> Result<Litmus, litmus::LitmusError> {
    litmus::parse(Path::new("t.litmus"), text)
}

#[test]
fn every_case_file_parses_and_states_its_expectation() {
    let files = case_files();
    assert!(files.len() >= 20, "expected the 20 cases of mm-grading.md §7.4, found {}", files.len());
    for file in &files {
        let t = litmus::parse_file(file).unwrap_or_else(|e| panic!("{e}"));
        check_ids(&t);
        assert_eq!(t.dialect, litmus::Dialect::Hip);
        assert!(t.condition.is_some(), "{}", file.display());
        let text = std::fs::read_to_string(file).expect("readable");
        let line = text.lines().find(|l| l.starts_with("// expect-hip: ")).unwrap_or_else(|| panic!("{} has no expect-hip line", file.display()));
        assert!(line.contains("outcome=allowed") || line.contains("outcome=forbidden"), "{line}");
        assert!(line.contains("race=yes") || line.contains("race=no"), "{line}");
    }
}

#[test]
fn libhipcxx_example_parses_to_device_scope_release_acquire() {
    let t = case("03_");
    assert_eq!(t.name, "MP_release_acquire_device_diff_wg");
    let (t0, t1) = (&t.threads[0], &t.threads[1]);
    assert_eq!((t.locations[0].atomic_type, t.locations[1].atomic_type), (false, true), "`f` is wrapped in an atomic_ref");
    assert_ne!(t0.placement.workgroup, t1.placement.workgroup);
    assert!(t0.placement.shares(&t1.placement, Scope::Agent));
    assert!(
        matches!(&t0.body[0], Stmt::Store { target, value: Expr::Const(42), access: Access::Plain, span } if *target == loc(&t, "x") && span.line == 12 && span.column == 3)
    );
    assert!(matches!(&t0.body[1], Stmt::Store { target, access, .. } if *target == loc(&t, "f") && *access == atomic(Order::Release, Scope::Agent)));
    let r0 = reg(&t, 1, "r0");
    let r1 = reg(&t, 1, "r1");
    assert_eq!(t1.body[0], Stmt::Load { reg: r0, target: loc(&t, "f"), access: atomic(Order::Acquire, Scope::Agent), span: t1.body[0].span() });
    assert_eq!(t1.body[0].span().line, 19);
    assert!(matches!(&t1.body[1], Stmt::Assign { reg, value: Expr::Const(-1), .. } if *reg == r1));
    let Stmt::If { cond, then, otherwise, .. } = &t1.body[2] else { panic!("expected if: {:?}", t1.body[2]) };
    assert_eq!(*cond, Expr::Bin(litmus::BinOp::Eq, Box::new(Expr::Reg(r0)), Box::new(Expr::Const(1))));
    assert!(matches!(then.as_slice(), [Stmt::Load { reg, access: Access::Plain, .. }] if *reg == r1));
    assert!(otherwise.is_empty());
    let c = t.condition.expect("condition");
    assert_eq!(c.quantifier, Quantifier::Exists);
    let want = Prop::And(
        Box::new(Prop::Cmp(Term::Reg { thread: 1, reg: r0 }, CmpOp::Eq, Term::Const(1))),
        Box::new(Prop::Cmp(Term::Reg { thread: 1, reg: r1 }, CmpOp::Ne, Term::Const(42))),
    );
    assert_eq!(c.prop, want);
}

#[test]
fn same_block_different_waves_and_mixed_scopes() {
    let t = case("06_");
    let (a, b) = (t.threads[0].placement, t.threads[1].placement);
    assert_eq!(a.workgroup, b.workgroup, "thread 0 and thread 64 of block 0");
    assert_ne!(a.wave, b.wave, "64 threads per wave");
    assert!(matches!(t.threads[0].body[1], Stmt::Store { access, .. } if access == atomic(Order::Release, Scope::Workgroup)));
    assert!(matches!(t.threads[1].body[0], Stmt::Load { access, .. } if access == atomic(Order::Acquire, Scope::Agent)));
}

#[test]
fn shared_variables_are_local_memory() {
    let t = case("10_");
    assert_eq!(t.locations.iter().map(|l| (l.name.as_str(), l.space)).collect::<Vec<_>>(), [("x", Space::Global), ("y", Space::Local), ("z", Space::Global)]);
    assert_eq!(t.threads.len(), 3);
    assert_eq!(t.threads[2].placement.workgroup, 1);
}

#[test]
fn atomic_add_is_relaxed_agent_scope() {
    let t = case("18a_");
    let c = loc(&t, "c");
    for (i, th) in t.threads.iter().enumerate() {
        let Stmt::Rmw { old, target, op: RmwOp::Add, operand: Expr::Const(1), access, .. } = &th.body[0] else { panic!("{:?}", th.body) };
        assert_eq!((*target, *access), (c, atomic(Order::Relaxed, Scope::Agent)));
        assert_eq!(old.is_some(), i == 2, "only T2 keeps the old value");
    }
    let t = case("18b_");
    assert!(matches!(t.threads[1].body[0], Stmt::Rmw { op: RmwOp::Add, old: None, access, .. } if access == atomic(Order::Relaxed, Scope::Workgroup)));
}

#[test]
fn threadfences_are_seq_cst_fences_at_their_scope() {
    let fence = |t: &Litmus, th: usize, i: usize| t.threads[th].body[i].clone();
    let t = case("08_");
    assert!(matches!(fence(&t, 0, 1), Stmt::Fence { order: Order::SeqCst, scope: Scope::Workgroup, spaces: Spaces::ALL, .. }));
    let t = case("20_");
    assert!(matches!(fence(&t, 1, 1), Stmt::Fence { order: Order::SeqCst, scope: Scope::System, spaces: Spaces::ALL, .. }));
    let t = case("19a_");
    assert!(matches!(fence(&t, 0, 1), Stmt::Barrier { id: None, spaces: Spaces::ALL, .. }));
    let t = parse(&in_thread("__threadfence();\n__atomic_thread_fence(__ATOMIC_RELEASE);\n__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, \"workgroup\");\ncuda::atomic_thread_fence(cuda::memory_order_acq_rel, cuda::thread_scope_block);\n__atomic_thread_fence(__ATOMIC_SEQ_CST, __HIP_MEMORY_SCOPE_WAVEFRONT);")).unwrap_or_else(|e| panic!("{e}"));
    let got: Vec<(Order, Scope)> = t.threads[0]
        .body
        .iter()
        .map(|s| match s {
            Stmt::Fence { order, scope, .. } => (*order, *scope),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        got,
        [
            (Order::SeqCst, Scope::Agent),
            (Order::Release, Scope::System),
            (Order::Acquire, Scope::Workgroup),
            (Order::AcqRel, Scope::Workgroup),
            (Order::SeqCst, Scope::Wavefront)
        ]
    );
}

#[test]
fn cuda_atomic_locations_default_to_seq_cst() {
    let t = case("12_");
    assert!(t.locations.iter().all(|l| l.atomic_type));
    assert!(matches!(t.threads[0].body[0], Stmt::Store { access, .. } if access == atomic(Order::SeqCst, Scope::Agent)));
    assert!(matches!(t.threads[1].body[1], Stmt::Load { access, .. } if access == atomic(Order::SeqCst, Scope::Agent)));
}

/// A one-thread test whose body starts on line 5.
fn in_thread(body: &str) -> String {
    format!("HIP t\n__device__ int x = 0;\n__device__ int flag = 0;\nthread T0 @ block 0, thread 0 {{\n{body}\n}}\nexists (x == 0)\n")
}

#[test]
fn compare_exchange_shapes() {
    let src = in_thread(
        "int e = 0;\nbool ok = __hip_atomic_compare_exchange_strong(&x, &e, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);\nint o = atomicCAS_system(&x, 0, 2);\ncuda::atomic_ref<int, cuda::thread_scope_block> a(flag);\nbool w = a.compare_exchange_weak(e, 3, cuda::memory_order_release);",
    );
    let t = parse(&src).unwrap_or_else(|e| panic!("{e}"));
    let (e, ok, o, w) = (reg(&t, 0, "e"), reg(&t, 0, "ok"), reg(&t, 0, "o"), reg(&t, 0, "w"));
    let body = &t.threads[0].body;
    let want = Stmt::Cas {
        old: Some(e),
        ok: Some(ok),
        target: loc(&t, "x"),
        expected: Expr::Reg(e),
        desired: Expr::Const(1),
        success: atomic(Order::AcqRel, Scope::Agent),
        failure: atomic(Order::Acquire, Scope::Agent),
        span: body[1].span(),
    };
    assert_eq!(body[1], want);
    assert_eq!(body[1].span().line, 6);
    let relaxed = atomic(Order::Relaxed, Scope::System);
    assert_eq!(
        body[2],
        Stmt::Cas {
            old: Some(o),
            ok: None,
            target: loc(&t, "x"),
            expected: Expr::Const(0),
            desired: Expr::Const(2),
            success: relaxed,
            failure: relaxed,
            span: body[2].span()
        }
    );
    let Stmt::Cas { old, ok: Some(got_ok), target, success, failure, .. } = &body[3] else { panic!("{:?}", body[3]) };
    assert_eq!((*old, *got_ok, *target), (Some(e), w, loc(&t, "flag")));
    assert_eq!(
        (*success, *failure),
        (atomic(Order::Release, Scope::Workgroup), atomic(Order::Relaxed, Scope::Workgroup)),
        "release derives a relaxed failure order"
    );
}

#[test]
fn placement_devices_waves_and_xcds() {
    let src = "HIP p\n__device__ int x;\n\
        thread A @ block 0, thread 0 { x = 1; }\n\
        thread B @ block 0, thread 63 { x = 2; }\n\
        thread C @ block 0, thread 64, xcd 3 { x = 3; }\n\
        thread D @ device 1, block 0, thread 0 { x = 4; }\n\
        thread E @ block 0, thread 240, wave 7 { x = 5; }\n\
        exists (1:r == 0 || B:r == 1)";
    let e = parse(src).unwrap_err();
    assert!(e.message.contains("thread `1` has no local variable `r`") || e.message.contains("`B` has no local variable `r`"), "{e}");
    let t = parse(&src.replace("exists (1:r == 0 || B:r == 1)", "exists (x == 1)")).unwrap_or_else(|e| panic!("{e}"));
    let p: Vec<_> = t.threads.iter().map(|t| t.placement).collect();
    assert_eq!(p[0].wave, p[1].wave, "threads 0 and 63 share wave 0");
    assert_ne!(p[1].wave, p[2].wave);
    assert_eq!((p[0].workgroup, p[2].workgroup), (0, 0));
    assert_eq!(p[0].xcd, Some(3), "an xcd given on one thread applies to its whole block");
    assert_eq!((p[3].agent, p[3].workgroup == p[0].workgroup), (1, false));
    assert!(!p[0].shares(&p[3], Scope::Agent) && p[0].shares(&p[3], Scope::System));
    assert_ne!(p[4].wave, p[0].wave, "explicit wave (thread 240 is in wave 7 of 32-wide waves)");
    assert_eq!(p[4].workgroup, 0);
}

#[test]
fn conditions_name_threads_by_name_or_index_and_locals_compute() {
    let src = in_thread("int r = flag;\nint s = 0;\nif (r != 0 && !(r > 2)) s += r * 2; else { s = ~r; s--; }")
        .replace("exists (x == 0)", "~exists (0:s == 2 || T0:r == 1)");
    let t = parse(&src).unwrap_or_else(|e| panic!("{e}"));
    let c = t.condition.clone().expect("condition");
    assert_eq!(c.quantifier, Quantifier::NotExists);
    let (r, s) = (reg(&t, 0, "r"), reg(&t, 0, "s"));
    assert!(
        matches!(&c.prop, Prop::Or(a, b) if matches!(**a, Prop::Cmp(Term::Reg { thread: 0, reg }, CmpOp::Eq, Term::Const(2)) if reg == s) && matches!(**b, Prop::Cmp(Term::Reg { thread: 0, reg }, CmpOp::Eq, Term::Const(1)) if reg == r))
    );
    let Stmt::If { then, otherwise, .. } = &t.threads[0].body[2] else { panic!() };
    assert_eq!(then.len(), 1);
    assert_eq!(otherwise.len(), 2);
}

/// Parses `src`, expects an error at the first occurrence of `at` (line and column
/// computed from the text) whose message contains `message`, shown as one line.
fn assert_error(src: &str, at: &str, message: &str) {
    let e = match parse(src) {
        Ok(_) => panic!("expected an error `{message}` for:\n{src}"),
        Err(e) => e,
    };
    let offset = src.find(at).unwrap_or_else(|| panic!("`{at}` is not in the source"));
    let line = src[..offset].matches('\n').count() as u32 + 1;
    let column = src[..offset].rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
    assert!(e.message.contains(message), "message `{}` lacks `{message}`", e.message);
    assert_eq!((e.span.line, e.span.column), (line, column), "position of `{}` (wanted `{at}`)", e.message);
    let shown = e.to_string();
    assert_eq!(shown, format!("t.litmus:{line}:{column}: {}", e.message));
    assert!(!shown.contains('\n'), "{shown}");
}

#[test]
fn errors_in_statements_name_the_token_and_explain() {
    let cases = [
        (
            "__hip_atomic_store(&flag, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_BLOCK);",
            "__HIP_MEMORY_SCOPE_BLOCK",
            "`__HIP_MEMORY_SCOPE_BLOCK` is not a HIP scope; did you mean `__HIP_MEMORY_SCOPE_WORKGROUP`?",
        ),
        ("__hip_atomic_store(&flag, 1, __ATOMIC_RELEASE, cuda::thread_scope_device);", "cuda::thread_scope_device", "take `__HIP_MEMORY_SCOPE_AGENT`"),
        ("cuda::atomic_ref<int, cuda::thread_scope_workgroup> a(x);", "cuda::thread_scope_workgroup", "did you mean `cuda::thread_scope_block`?"),
        ("cuda::atomic_ref<int, __HIP_MEMORY_SCOPE_AGENT> a(x);", "__HIP_MEMORY_SCOPE_AGENT", "libhipcxx spells it `cuda::thread_scope_device`"),
        (
            "int r = __hip_atomic_load(&flag, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);",
            "__ATOMIC_RELEASE",
            "a load (or a failed compare-exchange) cannot release",
        ),
        ("__hip_atomic_store(&flag, 1, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);", "__ATOMIC_ACQUIRE", "a store cannot acquire"),
        ("int r = __hip_atomic_load(&flag, __ATOMIC_ACQREL, __HIP_MEMORY_SCOPE_AGENT);", "__ATOMIC_ACQREL", "did you mean `__ATOMIC_ACQ_REL`?"),
        ("__hip_atomic_load(&flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);", "__hip_atomic_load", "is unused; assign it to a local"),
        ("int r = __hip_atomic_load(flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);", "flag,", "expected `&x`"),
        ("__hip_atomic_store(&flag, 1, __ATOMIC_RELEASE);", ");", "`__hip_atomic_store` takes (&x, value, order, scope); expected `,`"),
        ("int r = __hip_atomic_fetch_inc(&flag, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);", "__hip_atomic_fetch_inc", "not a HIP atomic builtin"),
        ("while (__hip_atomic_load(&flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) != 1);", "while", "loops are not allowed"),
        ("for (int i = 0; i < 2; i++) { x = i; }", "for", "loops are not allowed"),
        ("int r = x + 1;", "x + 1", "`x` is a shared location: read it into a local"),
        ("y = 1;", "y = 1", "`y` is not declared"),
        ("if (threadIdx.x == 0) { x = 1; }", "threadIdx", "`threadIdx` is not available"),
        ("x += 1;", "+=", "two accesses in one statement"),
        ("x = __hip_atomic_load(&flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);", "__hip_atomic_load", "one memory access per statement"),
        ("int r = 0;\nint r = 1;", "r = 1", "`r` is already declared"),
        ("int r = 7 / 2;", "/ 2", "`/` is not supported"),
        ("assert(x == 1);", "assert", "state the outcome you ask about in the final `exists"),
        ("atomicInc(&x, 3);", "atomicInc", "wraps around"),
        ("__builtin_amdgcn_fence(__ATOMIC_RELEASE, \"agent-one-as\");", "\"agent-one-as\"", "one address space"),
        ("cuda::atomic_ref<int> a(&x);", "&x", "takes the object, not its address"),
        ("int r = x.load();", "x.load", "`x` is a plain `int`: wrap it first"),
        ("short r = 0;", "short", "`short` is not supported"),
        ("int r = 4294967295;", "int r", "4294967295 does not fit `r`, of type `int`"),
        ("unsigned r = 0;\nif (r == -2147483649) { r = 1; }", "if (r", "out of range for `r`"),
        ("atomicAdd(&x, 2147483648);", "atomicAdd", "2147483648 does not fit `x`"),
        (
            "unsigned e = 0;\n__hip_atomic_compare_exchange_strong(&x, &e, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);",
            ", 1,",
            "`e` is `unsigned int` but the location is `int`",
        ),
        ("cuda::atomic_ref<unsigned> a(x);", "x);", "`atomic_ref<unsigned int>` cannot refer to a location of type `int`"),
        ("auto r;", "r;", "needs an initialiser"),
        (
            "int e = 0;\n__hip_atomic_compare_exchange_strong(&x, e, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);",
            "e, 1",
            "a pointer to the expected value",
        ),
        (
            "int e = 0;\nbool ok = __hip_atomic_compare_exchange_weak(&x, &e, 1, __ATOMIC_RELAXED, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);",
            "__ATOMIC_RELEASE",
            "cannot release",
        ),
        ("__syncthreads()", "\n}\nexists", "expected `;` here, found `}`"),
        ("x = 1\n__threadfence();", "\n__threadfence", "expected `;` here, found `__threadfence();`"),
        ("int r = x, s = r + 1\n__syncthreads();", "\n__sync", "expected `;` here"),
        ("int r = x\n__syncthreads();", "\n__sync", "expected `;` here"),
        ("__syncthreads;", "__syncthreads;", "`__syncthreads` is a function: call it"),
        ("else { x = 1; }", "else", "`else` without an `if`"),
        ("int r = __atomic_store_n(&x, 1, __ATOMIC_RELAXED);", "__atomic_store_n", "returns nothing"),
        ("int r = __syncthreads();", "__syncthreads", "returns nothing"),
        ("cuda::atomic_ref<int> a(flag);\nint r = a.store(1);", "store(", "returns nothing"),
        ("__shared__ int s;", "__shared__", "declare `__shared__` variables at the top of the test"),
        ("int if = 0;", "if = 0", "`if` is a keyword"),
        ("goto end;", "goto", "`goto` is not supported"),
    ];
    for (body, at, message) in cases {
        assert_error(&in_thread(body), at, message);
    }
}

#[test]
fn errors_at_top_level_and_in_the_condition() {
    let ok = "HIP t\n__device__ int x = 0;\nthread T0 @ block 0, thread 0 { int r = x; }\nthread T1 @ block 1, thread 0 { x = 1; }\nexists (T0:r == 0)\n";
    assert!(parse(ok).is_ok());
    let cases = [
        (ok.replace("HIP t", "HIP   "), "\n", "expected the test name after `HIP`"),
        (ok.replace("@ block 1,", "@ wg 1,"), "wg 1", "HIP calls a work-group a `block`"),
        (ok.replace("@ block 1, thread 0", "@ block 0, thread 0"), "T1", "threads `T0` and `T1` are both thread 0 of block 0"),
        (ok.replace("@ block 1, thread 0", "@ thread 3"), "T1", "the placement needs `block B`"),
        (ok.replace("thread T1", "thread T0"), "T0 @ block 1", "already a thread named `T0`"),
        (ok.replace("@ block 1, thread 0", "@ block 1 thread 0"), "thread 0 { x = 1", "expected `,` and another placement, or `{`"),
        (ok.replace("@ block 1, thread 0", "@ block 1, block 2"), "block 2", "`block` is given twice"),
        (ok.replace("@ block 1, thread 0", "@ block -1"), "-1", "between 0 and"),
        (ok.replace("T0:r == 0", "T0:r9 == 0"), "T0:r9", "thread `T0` has no local variable `r9`"),
        (ok.replace("T0:r == 0", "T5:r == 0"), "T5:r", "names thread `T5`"),
        (ok.replace("T0:r == 0", "z == 0"), "z == 0", "`z`, which is not a location"),
        (ok.replace("T0:r == 0", "r == 0"), "r == 0", "`r` is a local variable: name it with its thread (`T0:r`)"),
        (ok.replace("__device__ int x = 0;", "__shared__ int x;").replace("T0:r == 0", "x == 1"), "exists", "`x` is `__shared__`: each block has its own copy"),
        (ok.replace("exists (T0:r == 0)\n", ""), "", "missing final condition"),
        (ok.replace("__device__ int x = 0;", "__device__ float x = 0;"), "float", "`float` is not supported"),
        (
            ok.replace("__device__ int x = 0;", "__device__ int x = 2147483648;"),
            "2147483648",
            "2147483648 does not fit `x`, of type `int` (-2147483648 to 2147483647)",
        ),
        (ok.replace("__device__ int x = 0;", "__device__ unsigned x = -2147483649;"), "-2147483649", "does not fit `x`, of type `unsigned int`"),
        (ok.replace("T0:r == 0", "T0:r == 2147483648"), "2147483648)", "out of range for the value it is compared with, of type `int`"),
        (
            ok.replace("__device__ int x = 0;", "__device__ unsigned long long x = 0;").replace("T0:r == 0", "x == 18446744073709551616"),
            "18446744073709551616",
            "fits in 64 bits",
        ),
        (ok.replace("__device__ int x = 0;", "__device__ int x[4];"), "[4]", "arrays are not supported"),
        (ok.replace("__device__ int x = 0;", "__device__ int x = 0;\n__shared__ int x;"), "x;", "declared twice"),
        (ok.replace("__device__ int x = 0;", "__device__ int x = 0"), "\nthread T0", "expected `;` here, found `thread`"),
        (ok.replace("__device__ int x = 0;", "__global__ void k() {}"), "__global__", "`__global__` kernels are not litmus threads"),
        (ok.replace("__device__ int x = 0;", "__device__ int x = 0;\nfoo bar;"), "foo", "expected a declaration"),
        (ok.replace("{ x = 1; }", "{ x = 1; "), "exists", "missing `}`"),
        (ok.replace("{ int r = x; }", "{ int r = x; "), "thread T1", "missing `}`"),
        (
            ok.replace("HIP t", "HIP t\nthread T9 @ block 0, thread 9, xcd 1 { }\nthread T8 @ block 0, thread 8, xcd 2 { }"),
            "T8",
            "cannot run on XCD 1 and XCD 2",
        ),
    ];
    for (src, at, message) in &cases {
        let at = if at.is_empty() { "\u{0}" } else { at };
        if at == "\u{0}" {
            // Errors at the end of the text.
            let e = parse(src).expect_err(message);
            assert!(e.message.contains(message), "{e}");
            assert!(!e.to_string().contains('\n'));
        } else {
            assert_error(src, at, message);
        }
    }
}

/// Byte ranges of tokens: identifier/number runs, or single other characters.
fn tokens(text: &[u8]) -> Vec<(usize, usize)> {
    common::tokens(text, |b| b.is_ascii_alphanumeric() || b == b'_', |b| b.is_ascii_whitespace())
}

const NOISE: &[u8] = b";{}()&,=<>!~-+*/|^\"':.@[]0123456789x_ \n\tT";

fn mutate(rng: &mut common::SplitMix, text: &mut Vec<u8>, pool: &[Vec<u8>]) -> &'static str {
    let toks = tokens(text);
    let n = text.len();
    match rng.below(8) {
        0 if n > 0 => {
            text.remove(rng.below(n));
            "delete byte"
        }
        1 if n > 0 => {
            let i = rng.below(n);
            text.insert(i, text[i]);
            "duplicate byte"
        }
        2 if n > 0 => {
            let i = rng.below(n);
            text[i] = NOISE[rng.below(NOISE.len())];
            "replace byte"
        }
        3 if !toks.is_empty() => {
            let (a, b) = toks[rng.below(toks.len())];
            text.drain(a..b);
            "delete token"
        }
        4 if !toks.is_empty() => {
            let (a, b) = toks[rng.below(toks.len())];
            let copy = text[a..b].to_vec();
            text.splice(a..a, copy);
            "duplicate token"
        }
        5 if !toks.is_empty() => {
            // A token from any case file, so keywords and builtins land in odd places.
            let (a, b) = toks[rng.below(toks.len())];
            let donor = &pool[rng.below(pool.len())];
            let dt = tokens(donor);
            let (c, d) = dt[rng.below(dt.len())];
            text.splice(a..b, donor[c..d].to_vec());
            "replace token"
        }
        6 => {
            text.truncate(rng.below(n + 1));
            "truncate"
        }
        _ => {
            let i = rng.below(n + 1);
            text.insert(i, NOISE[rng.below(NOISE.len())]);
            "insert byte"
        }
    }
}

#[test]
fn seeded_mutations_never_panic_and_errors_are_one_line() {
    let files = case_files();
    let pool: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).expect("readable")).collect();
    let mut rng = common::SplitMix(0x4849_5020_6c69_746d);
    let (mut parsed, mut rejected) = (0, 0);
    // HIP_MUTANTS=100000 runs a longer campaign by hand.
    let mutants: usize = std::env::var("HIP_MUTANTS").ok().and_then(|v| v.parse().ok()).unwrap_or(3000);
    for i in 0..mutants {
        let which = i % files.len();
        let mut text = pool[which].clone();
        let mut what = Vec::new();
        for _ in 0..1 + rng.below(3) {
            what.push(mutate(&mut rng, &mut text, &pool));
        }
        let src = String::from_utf8_lossy(&text).into_owned();
        let file = files[which].clone();
        let result = std::panic::catch_unwind(|| litmus::parse(&file, &src));
        let Ok(result) = result else { panic!("mutant {i} of {} ({what:?}) panicked:\n{src}", files[which].display()) };
        match result {
            Ok(t) => {
                check_ids(&t);
                parsed += 1;
            }
            Err(e) => {
                rejected += 1;
                if let Err(why) = common::one_line_error(&e, &file, &src) {
                    panic!("mutant {i} ({what:?}): {why}");
                }
            }
        }
    }
    assert_eq!(parsed + rejected, mutants);
    assert!(rejected > mutants / 2, "most mutants should be rejected ({rejected} of {mutants})");
    eprintln!("{mutants} mutants: {parsed} still parse, {rejected} rejected with a positioned one-line error");
}

#[test]
fn deep_nesting_and_odd_literals_are_errors_not_crashes() {
    for (open, close) in [("(", ")"), ("!", ""), ("- ", ""), ("~", ""), ("{", "}")] {
        let deep = in_thread(&format!(
            "int r = 0;\n{}",
            if open == "{" { format!("{}{}", open.repeat(5000), close.repeat(5000)) } else { format!("r = {}1{};", open.repeat(5000), close.repeat(5000)) }
        ));
        let e = std::thread::Builder::new().stack_size(1 << 20).spawn(move || parse(&deep).map(|_| ())).expect("thread").join().expect("no stack overflow");
        assert!(e.is_err_and(|e| e.message.contains("nested more than")), "{open}");
    }
    let t = parse(&in_thread("unsigned int r = atomicAdd(&x, 1u);\nint s = 0x10UL;")).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(t.threads[0].body[1], Stmt::Assign { value: Expr::Const(16), .. }));
    assert_error(&in_thread("int s = 12abc;"), "12abc", "is not an integer");
}

#[test]
fn gcc_atomic_builtins_are_system_scope() {
    let src = in_thread(
        "int r = __atomic_load_n(&x, __ATOMIC_ACQUIRE);\n__atomic_store_n(&flag, r, __ATOMIC_RELEASE);\nint o = __atomic_fetch_or(&x, 4, __ATOMIC_RELAXED);\nint e = 1;\nbool ok = __atomic_compare_exchange_n(&x, &e, 2, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);",
    );
    let t = parse(&src).unwrap_or_else(|e| panic!("{e}"));
    let b = &t.threads[0].body;
    assert!(matches!(b[0], Stmt::Load { access, .. } if access == atomic(Order::Acquire, Scope::System)));
    assert!(matches!(&b[1], Stmt::Store { value: Expr::Reg(_), access, .. } if *access == atomic(Order::Release, Scope::System)));
    assert!(matches!(b[2], Stmt::Rmw { op: RmwOp::Or, old: Some(_), access, .. } if access == atomic(Order::Relaxed, Scope::System)));
    assert!(
        matches!(b[4], Stmt::Cas { ok: Some(_), success, failure, .. } if success == atomic(Order::SeqCst, Scope::System) && failure == atomic(Order::Relaxed, Scope::System))
    );
}

#[test]
fn a_shared_location_used_by_one_block_may_appear_in_the_condition() {
    let src = "HIP s\n__shared__ int s{5};\nthread A @ block 2, thread 0 { s = 1; }\nthread B @ block 2, thread 1 { int r = s; }\nexists (s == 1 && B:r == 5)";
    let t = parse(src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((t.locations[0].space, t.locations[0].init), (Space::Local, 5));
    assert_eq!(t.threads[0].placement.wave, t.threads[1].placement.wave, "threads 0 and 1 share a wave");
}

#[test]
fn the_readme_example_parses() {
    let readme = std::fs::read_to_string(common::workload_cases().join("README.md")).expect("README");
    let start = readme.find("```c\nHIP ").expect("a ```c example starting with HIP") + 5;
    let len = readme[start..].find("```").expect("end of the example");
    let t = parse(&readme[start..start + len]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t.name, "MP_block_scope_across_blocks");
    assert!(matches!(t.threads[0].body[1], Stmt::Store { access, .. } if access == atomic(Order::Release, Scope::Workgroup)));
}
