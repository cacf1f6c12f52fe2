//! The HIP dialect: every case file in `workloads/litmus` parses, parsed programs match
//! their text, bad inputs give the right position and message, and seeded mutations of
//! the case files never panic the parser.

use std::path::{Path, PathBuf};

use hipscope_grade::litmus::{self, Access, CmpOp, Expr, Litmus, Order, Prop, Quantifier, RegId, RmwOp, Scope, Space, Spaces, Stmt, Target, Term};

fn case_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/litmus")
}

fn case_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(case_dir())
        .expect("workloads/litmus exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "litmus"))
        .collect();
    files.sort();
    files
}

fn case(prefix: &str) -> Litmus {
    let file = case_files().into_iter().find(|f| f.file_name().is_some_and(|n| n.to_string_lossy().starts_with(prefix))).expect("case file");
    litmus::parse_file(&file).unwrap_or_else(|e| panic!("{e}"))
}

fn parse(text: &str) -> Result<Litmus, litmus::LitmusError> {
    litmus::parse(Path::new("t.litmus"), text)
}

fn atomic(order: Order, scope: Scope) -> Access {
    Access::Atomic { order, scope }
}

#[test]
fn every_case_file_parses_and_states_its_expectation() {
    let files = case_files();
    assert!(files.len() >= 20, "expected the 20 cases of mm-grading.md §7.4, found {}", files.len());
    for file in &files {
        let t = litmus::parse_file(file).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.dialect, litmus::Dialect::Hip);
        assert!(t.condition.is_some(), "{}", file.display());
        let text = std::fs::read_to_string(file).expect("readable");
        let line = text.lines().find(|l| l.starts_with("// expect-hip: ")).unwrap_or_else(|| panic!("{} has no expect-hip line", file.display()));
        assert!(line.contains("outcome=allowed") || line.contains("outcome=forbidden"), "{line}");
        assert!(line.contains("race=yes") || line.contains("race=no"), "{line}");
    }
}

fn reg(t: &Litmus, thread: usize, name: &str) -> RegId {
    RegId(t.threads[thread].regs.iter().position(|r| r == name).expect("register") as u16)
}

fn loc(t: &Litmus, name: &str) -> Target {
    Target::word(t.location(name).expect("location"))
}

#[test]
fn libhipcxx_example_parses_to_device_scope_release_acquire() {
    let t = case("03_");
    assert_eq!(t.name, "MP_release_acquire_device_diff_wg");
    let (t0, t1) = (&t.threads[0], &t.threads[1]);
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
        thread E @ block 0, thread 5, wave 7 { x = 5; }\n\
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
    assert_ne!(p[4].wave, p[0].wave, "explicit wave");
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
