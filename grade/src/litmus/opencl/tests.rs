use super::super::program::*;
use super::parse;
use hipscope_mm::{Access, Order, RmwOp, Scope, Space, Spaces};

fn ok(source: &str) -> Litmus {
    match parse(source) {
        Ok(litmus) => litmus,
        Err(e) => panic!("{}:{}: {}", e.span.line, e.span.column, e.message),
    }
}

/// A one-thread test whose body (line 4) is `body`.
fn in_body(body: &str) -> String {
    format!("OPENCL t\n{{ [x]=0; [y]=0; }}\nP0@wg 0, dev 0 (global atomic_int* x, global int* y) {{\n{body}\n}}\nexists (x=0)")
}

fn body_of(body: &str) -> Vec<Stmt> {
    ok(&in_body(body)).threads.remove(0).body
}

/// The error for `source`: its message must contain `fragment`, at `line:column`.
fn fails(source: &str, fragment: &str, line: u32, column: u32) {
    match parse(source) {
        Ok(_) => panic!("parsed, expected an error containing {fragment:?}:\n{source}"),
        Err(e) => {
            assert!(e.message.contains(fragment), "message {:?} lacks {fragment:?}", e.message);
            assert_eq!((e.span.line, e.span.column), (line, column), "wrong place for {:?}", e.message);
            assert!(!e.message.contains('\n'));
        }
    }
}

fn atomic(order: Order, scope: Scope) -> Access {
    Access::Atomic { order, scope }
}

fn word(loc: u16) -> Target {
    Target::word(LocId(loc))
}

#[test]
fn message_passing_with_work_groups_and_devices() {
    let l = ok("OPENCL MP\n{ [x]=0; [y]=0; }\n\
        P0@wg 0, dev 0 (global int* x, global atomic_int* y) { *x = 1; atomic_store_explicit(y, 1, memory_order_release, memory_scope_work_group); }\n\
        P1@wg 1, dev 0 (global int* x, global atomic_int* y) { int r0 = atomic_load_explicit(y, memory_order_acquire); int r1 = *x; }\n\
        P2@wg 0, dev 1 (global int* x) { }\n\
        P3@dev 0, wg 1 (global int* x) { }\n\
        exists (1:r0=1 /\\ 1:r1=0)");
    assert_eq!(l.name, "MP");
    assert_eq!(l.dialect, Dialect::OpenCl);
    let names: Vec<_> = l.locations.iter().map(|l| (l.name.as_str(), l.atomic_type)).collect();
    assert_eq!(names, [("x", false), ("y", true)]);
    let places: Vec<_> = l.threads.iter().map(|t| (t.placement.agent, t.placement.workgroup, t.placement.wave)).collect();
    assert_eq!(places, [(0, 0, 0), (0, 1, 1), (1, 2, 2), (0, 1, 3)]);
    let p0 = &l.threads[0].body;
    assert!(matches!(p0[0], Stmt::Store { target, access: Access::Plain, value: Expr::Const(1), .. } if target == word(0)));
    assert!(matches!(p0[1], Stmt::Store { access, .. } if access == atomic(Order::Release, Scope::Workgroup)));
    let p1 = &l.threads[1];
    assert_eq!(p1.regs, ["r0", "r1"]);
    assert!(matches!(p1.body[0], Stmt::Load { reg: RegId(0), access, .. } if access == atomic(Order::Acquire, Scope::Agent)));
    assert!(matches!(p1.body[1], Stmt::Load { reg: RegId(1), access: Access::Plain, .. }));
    assert_eq!(p1.body.len(), 2);
}

#[test]
fn forms_without_explicit_are_seq_cst_at_device_scope() {
    let b = body_of("atomic_store(x, 2); int r = atomic_exchange(x, 3); atomic_fetch_or(x, r);");
    let sc = atomic(Order::SeqCst, Scope::Agent);
    assert!(matches!(b[0], Stmt::Store { access, .. } if access == sc));
    assert!(matches!(b[1], Stmt::Rmw { old: Some(RegId(0)), op: RmwOp::Exchange, access, .. } if access == sc));
    assert!(matches!(b[2], Stmt::Rmw { old: None, op: RmwOp::Or, operand: Expr::Reg(RegId(0)), .. }));
}

#[test]
fn scopes_map_onto_hip_scopes() {
    for (name, scope) in [
        ("work_item", Scope::WorkItem),
        ("sub_group", Scope::Wavefront),
        ("work_group", Scope::Workgroup),
        ("device", Scope::Agent),
        ("all_svm_devices", Scope::System),
    ] {
        let b = body_of(&format!("atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE, memory_order_acq_rel, memory_scope_{name});"));
        assert_eq!(b, [Stmt::Fence { order: Order::AcqRel, scope, spaces: Spaces::ALL, span: Span { line: 4, column: 1 } }]);
    }
}

#[test]
fn compare_exchange_with_a_local_expected_value() {
    let b =
        body_of("int e = 1; int ok = atomic_compare_exchange_weak_explicit(x, &e, 2, memory_order_acq_rel, memory_order_acquire, memory_scope_work_group);");
    let Stmt::Cas { old, ok, expected, desired, success, failure, .. } = &b[1] else { panic!("{b:?}") };
    assert_eq!((*old, *ok), (Some(RegId(0)), Some(RegId(1))));
    assert_eq!((expected, desired), (&Expr::Reg(RegId(0)), &Expr::Const(2)));
    assert_eq!((*success, *failure), (atomic(Order::AcqRel, Scope::Workgroup), atomic(Order::Acquire, Scope::Workgroup)));
}

#[test]
fn reads_inside_expressions_become_statements_in_order() {
    let b = body_of("if (*y == 1 && atomic_load(x) == 2) { *y = *y + 1; }");
    // `*y` is read, the `&&` tests it, and only then is `x` read.
    assert!(matches!(b[0], Stmt::Load { access: Access::Plain, .. }));
    assert!(matches!(b[1], Stmt::Assign { .. }));
    let Stmt::If { then, .. } = &b[2] else { panic!("{b:?}") };
    assert!(matches!(then[0], Stmt::Load { access: Access::Atomic { .. }, .. }));
    let Stmt::If { then, .. } = &b[3] else { panic!("{b:?}") };
    assert!(matches!(then[..], [Stmt::Load { .. }, Stmt::Store { value: Expr::Bin(BinOp::Add, _, _), .. }]));
}

#[test]
fn arrays_and_run_time_addresses() {
    let l = ok("OPENCL a\n{ atomic_int y[3] = {0, 5, 0}; }\nP0 (global atomic_int* y) { int i = 1; atomic_store(y + 2, 1); int r = atomic_load(y + i); y[1] = 4; }\nexists (y = 0 /\\ 0:r = 0)");
    let names: Vec<_> = l.locations.iter().map(|l| (l.name.as_str(), l.init)).collect();
    assert_eq!(names, [("y", 0), ("y[1]", 5), ("y[2]", 0)]);
    let b = &l.threads[0].body;
    assert!(matches!(b[1], Stmt::Store { target, .. } if target == word(2)));
    let Stmt::If { cond: Expr::Bin(BinOp::Eq, _, i), otherwise, .. } = &b[2] else { panic!("{b:?}") };
    assert_eq!(**i, Expr::Const(0));
    assert!(matches!(otherwise[..], [Stmt::If { .. }]));
    assert!(matches!(b[4], Stmt::Store { target, access: Access::Plain, .. } if target == word(1)));
}

#[test]
fn register_initialisation_in_the_init_block() {
    let l = ok("OPENCL r\n{ [x]=1; 0:r0=5; P1:q=-1; }\nP0 (global int* x) { }\nP1 (global int* x) { int q = 2; }\nexists (0:r0=5)");
    assert_eq!(l.locations[0].init, 1);
    assert_eq!(l.threads[0].reg_init, [(RegId(0), 5)]);
    assert_eq!(l.threads[1].reg_init, [(RegId(0), -1)]);
}

#[test]
fn barrier_labels_and_spaces() {
    let b = body_of("B1: barrier(CLK_LOCAL_MEM_FENCE); barrier(CLK_GLOBAL_MEM_FENCE);");
    assert_eq!(
        b,
        [
            Stmt::Barrier { id: Some("B1".into()), spaces: Spaces::LOCAL, span: Span { line: 4, column: 5 } },
            Stmt::Barrier { id: None, spaces: Spaces::GLOBAL, span: Span { line: 4, column: 35 } },
        ]
    );
}

#[test]
fn mistakes_in_bodies_are_reported_where_they_are() {
    let cases: &[(&str, &str, u32)] = &[
        ("foo(x);", "unknown function `foo`", 1),
        ("atomic_store_explicit(x, 1);", "too few arguments: `atomic_store_explicit(object, value, order[, scope])`", 27),
        ("atomic_load_explicit(x, memory_order_relaxed, memory_scope_device, 1);", "too many arguments", 68),
        ("atomic_store_explicit(x, 1, memory_order_fast);", "expected a memory order", 29),
        ("atomic_store_explicit(x, 1, memory_order_relaxed, memory_scope_galaxy);", "expected a memory scope", 51),
        ("atomic_work_item_fence(CLK_ALL, memory_order_seq_cst);", "expected `CLK_GLOBAL_MEM_FENCE`", 24),
        ("r = 1;", "`r` is not declared in P0", 1),
        ("int r = z + 1;", "`z` is not declared in P0", 9),
        ("int r = x;", "`x` is a pointer to shared memory", 9),
        ("*z = 1;", "`z` is not a parameter of P0", 2),
        ("while (1) {}", "loops (`while`) are not supported", 1),
        ("if (1) { for (;;) {} }", "loops (`for`) are not supported", 10),
        ("int r = atomic_load_explicit(x, memory_order_release);", "a load cannot have order `memory_order_release`", 33),
        ("atomic_store_explicit(x, 1, memory_order_acquire);", "a store cannot have order", 29),
        ("int r = atomic_store(x, 1);", "`atomic_store` does not return a value", 9),
        ("B1: *y = 1;", "a label can only name a barrier", 5),
        ("B1: barrier(CLK_LOCAL_MEM_FENCE); B1: barrier(CLK_LOCAL_MEM_FENCE);", "label `B1` is used twice", 35),
        ("int r = 1; int r = 2;", "`r` is already declared in this block (at 4:5)", 16),
        ("int x = 1;", "`x` is already a parameter of P0", 5),
        ("(* note *) *y = 1;", "write comments as `//`", 1),
        ("int r = 4 / 2;", "division (`/`) are not supported", 11),
        ("int r = atomic_load(y + 1);", "`y` is a single location; offset 1 is outside it", 21),
        ("int e; atomic_compare_exchange_strong(x, &x, 1);", "`x` is already a pointer", 43),
        ("int r = 1 ? 2 : 3;", "`?:` is not supported", 11),
        ("else { }", "`else` without a matching `if`", 1),
        ("*y = 1", "expected `;`", 1),
    ];
    let mut wrong = Vec::new();
    for (body, fragment, column) in cases {
        let line = if *fragment == "expected `;`" { 5 } else { 4 };
        match parse(&in_body(body)) {
            Err(e) if e.message.contains(fragment) && (e.span.line, e.span.column) == (line, *column) && !e.message.contains('\n') => {}
            other => wrong.push(format!("{body}: {other:?}")),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn disagreeing_declarations_take_the_last_space_as_dartagnan_does() {
    let t = parse("OPENCL t\n{}\nP0 (global int* x) { }\nP1 (local int* x) { }\nP2 (int* z) { }\nexists (x=0)").unwrap();
    assert_eq!(t.locations[0].space, Space::Local);
    assert_eq!(t.locations[1].space, Space::Generic, "no qualifier is OpenCL's generic space");
}

#[test]
fn mistakes_around_threads_are_reported() {
    fails("OPENCL t\n{}\nP1 (global int* x) { }\nexists (x=0)", "expected thread `P0` here, found `P1`", 3, 1);
    fails("OPENCL t\n{}\nP0@wg 0, cu 1 (global int* x) { }\nexists (x=0)", "expected `wg` or `dev` after `@`", 3, 10);
    fails("OPENCL t\n{}\nP0 (global int x) { }\nexists (x=0)", "parameter `x` must be a pointer", 3, 16);
    fails("OPENCL t\n{}\nP0 (global float* x) { }\nexists (x=0)", "unknown type `float`", 3, 12);
    fails("OPENCL t\n{}\nP0 (global int* x) { *x = 1;\n", "P0's body is not closed with `}`", 4, 1);
    fails("OPENCL t\n{}\nP0 (global int* x) { }\n", "missing final condition", 4, 1);
    fails("OPENCL t\n{}\nexists (x=0)", "expected a thread such as", 3, 1);
    fails("OPENCL t\n{}\nP0 (global int* x) { }\nexist (x=0)", "expected thread `P1` or the final condition", 4, 1);
    fails("OPENCL t\n{ [x]=0; [x]=1; }\nP0 (global int* x) { }\nexists (x=0)", "`x` is initialised twice", 2, 10);
    fails("OPENCL t\n{ int y[0]; }\nP0 (global int* y) { }\nexists (y=0)", "between 1 and 64 elements", 2, 9);
    fails("OPENCL\n{}\n", "expected the test's name", 1, 7);
    fails("OPENCL t\n{ 3:r=1; }\nP0 (global int* x) { }\nexists (x=0)", "the init block names thread `3`", 2, 3);
}

#[test]
fn conditions_name_local_variables_even_when_a_location_has_the_name() {
    let l = ok("OPENCL c\n{ [x]=0; }\nP0 (global int* x) { int r = *x; }\nexists (0:x=0 /\\ x=0 /\\ P0:r=0)");
    assert_eq!(l.threads[0].regs, ["r", "x"]);
    let Some(Condition { prop: Prop::And(left, _), .. }) = &l.condition else { panic!("{:?}", l.condition) };
    let Prop::And(first, second) = &**left else { panic!("{left:?}") };
    assert_eq!(**first, Prop::Cmp(Term::Reg { thread: 0, reg: RegId(1) }, CmpOp::Eq, Term::Const(0)));
    assert_eq!(**second, Prop::Cmp(Term::Loc { loc: LocId(0), workgroup: None }, CmpOp::Eq, Term::Const(0)));
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!("int r = {}1{};", "(".repeat(5000), ")".repeat(5000));
    assert!(parse(&in_body(&deep)).unwrap_err().message.contains("nested more than"));
    let blocks = format!("{}{}", "{".repeat(5000), "}".repeat(5000));
    assert!(parse(&in_body(&blocks)).unwrap_err().message.contains("nested more than"));
    let condition = format!("OPENCL t\n{{}}\nP0 (global int* x) {{ }}\nexists {}x=0{}", "(".repeat(200_000), ")".repeat(200_000));
    assert!(parse(&condition).unwrap_err().message.contains("nests more than 500"));
    let negations = format!("OPENCL t\n{{}}\nP0 (global int* x) {{ }}\nexists {}x=0", "~".repeat(200_000));
    assert!(parse(&negations).is_err());
    let minus = format!("int r = {}1;", "-".repeat(5000).replace("--", "- -"));
    assert!(parse(&in_body(&minus)).is_err());
}
