//! The OpenCL parser against Dartagnan's OpenCL litmus corpus: every file parses (two are
//! refused on purpose, see `REFUSED`), a few are checked statement by statement, and mutated
//! copies never crash the parser.

use std::path::{Path, PathBuf};

use hipscope_grade::litmus::{self, CmpOp, Expr, Litmus, Prop, Quantifier, Stmt, Term};

use hipscope_mm::{Access, Order, Scope, Space, Spaces};

/// Files the parser refuses, with the reason it gives. TSan spins in a `while` loop, which
/// straight-line litmus programs cannot express.
const REFUSED: [(&str, &str); 1] = [("portedFromC11/manual/TSan.litmus", "12:3: loops (`while`) are not supported")];

use crate::common;

use common::{loc, reg, Draw};

const CORPUS: &str = "hernanponcedeleon+Dat3M/litmus/OPENCL";

/// `<repo>/../shared/litmus/hernanponcedeleon+Dat3M/litmus/OPENCL`, or `None` (after
/// printing SKIPPED) when it is missing.
fn corpus() -> Option<PathBuf> {
    let why = format!("the OpenCL litmus corpus is not at {}", common::shared_litmus().join(CORPUS).display());
    Some(common::shared_or_skip(CORPUS, Path::is_dir, &why)?.join(CORPUS))
}

/// The corpus files, or `None` (after printing SKIPPED) when the corpus is missing.
fn corpus_files() -> Option<(PathBuf, Vec<PathBuf>)> {
    let dir = corpus()?;
    let files = common::litmus_under(&dir);
    Some((dir, files))
}

fn parse(relative: &str) -> Option<Litmus> {
    match litmus::parse_file(&corpus()?.join(relative)) {
        Ok(l) => Some(l),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn every_corpus_file_parses_except_the_two_refused_on_purpose() {
    let Some((dir, files)) = corpus_files() else { return };
    assert!(files.len() >= 63, "only {} files under {}", files.len(), dir.display());
    let mut wrong = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&dir).unwrap_or(file).to_string_lossy().replace('\\', "/");
        let refused = REFUSED.iter().find(|(name, _)| *name == relative);
        match (litmus::parse_file(file), refused) {
            (Ok(l), None) => {
                assert!(!l.threads.is_empty() && l.condition.is_some(), "{relative}: no threads or condition");
                if let Err(why) = common::ids_in_range(&l) {
                    wrong.push(format!("{relative}: {why}"));
                }
            }
            (Err(e), Some((_, why))) if e.to_string().contains(why) => {}
            (Err(e), _) => wrong.push(e.to_string()),
            (Ok(_), Some(_)) => wrong.push(format!("{relative} parsed, but is expected to be refused")),
        }
    }
    assert!(wrong.is_empty(), "{} of {} files are wrong:\n{}", wrong.len(), files.len(), wrong.join("\n"));
}

fn cmp(l: &Litmus, thread: usize, name: &str, value: hipscope_mm::Value) -> Prop {
    Prop::Cmp(Term::Reg { thread: thread as u16, reg: reg(l, thread, name) }, CmpOp::Eq, Term::Const(value))
}

fn and(a: Prop, b: Prop) -> Prop {
    Prop::And(Box::new(a), Box::new(b))
}

/// herd/ISA2: plain accesses through `volatile int*`, three work-groups of one device.
#[test]
fn isa2_in_detail() {
    let Some(l) = parse("herd/ISA2.litmus") else { return };
    assert_eq!(l.name, "ISA2");
    let names: Vec<_> = l.locations.iter().map(|l| (l.name.as_str(), l.space, l.init, l.atomic_type)).collect();
    // `volatile int*` has no address-space qualifier: OpenCL 2.0's generic space.
    assert_eq!(names, [("x", Space::Generic, 0, false), ("y", Space::Generic, 0, false), ("z", Space::Generic, 0, false)]);
    let places: Vec<_> = l.threads.iter().map(|t| (t.name.as_str(), t.placement.agent, t.placement.workgroup, t.placement.wave)).collect();
    assert_eq!(places, [("P0", 0, 0, 0), ("P1", 0, 1, 1), ("P2", 0, 2, 2)]);
    let store = |target, v| Stmt::Store { target, value: Expr::Const(v), access: Access::Plain, span: litmus::Span::default() };
    let strip = |body: &[Stmt]| body.iter().map(|s| without_span(s.clone())).collect::<Vec<_>>();
    assert_eq!(strip(&l.threads[0].body), [store(loc(&l, "x"), 1), store(loc(&l, "y"), 1)]);
    let load = |r, target| Stmt::Load { reg: r, target, access: Access::Plain, span: litmus::Span::default() };
    assert_eq!(strip(&l.threads[1].body), [load(reg(&l, 1, "r0"), loc(&l, "y")), store(loc(&l, "z"), 1)]);
    assert_eq!(strip(&l.threads[2].body), [load(reg(&l, 2, "r1"), loc(&l, "z")), load(reg(&l, 2, "r2"), loc(&l, "x"))]);
    // A read's span is its `*`.
    assert_eq!(l.threads[1].body[0].span(), litmus::Span { line: 20, column: 11 });
    let c = l.condition.as_ref().expect("condition");
    assert_eq!(c.quantifier, Quantifier::Exists);
    assert_eq!(c.prop, and(and(cmp(&l, 1, "r0", 1), cmp(&l, 2, "r1", 1)), cmp(&l, 2, "r2", 0)));
}

fn without_span(mut s: Stmt) -> Stmt {
    let zero = litmus::Span::default();
    match &mut s {
        Stmt::Load { span, .. } | Stmt::Store { span, .. } | Stmt::Rmw { span, .. } | Stmt::Cas { span, .. } => *span = zero,
        Stmt::Fence { span, .. } | Stmt::Barrier { span, .. } | Stmt::Assign { span, .. } | Stmt::If { span, .. } => *span = zero,
        Stmt::Label { span, .. } | Stmt::Goto { span, .. } => *span = zero,
    }
    s
}

/// herd/barrier_example: labelled barriers, default device scope, and a condition on
/// local variables `x` and `y` that the threads never declare (so they stay 0), distinct
/// from the locations `x` and `y`.
#[test]
fn barrier_example_in_detail() {
    let Some(l) = parse("herd/barrier_example.litmus") else { return };
    for (t, (stored, loaded, var)) in [("x", "y", "x1"), ("y", "x", "y1")].into_iter().enumerate() {
        let body: Vec<_> = l.threads[t].body.iter().map(|s| without_span(s.clone())).collect();
        let rel = Access::Atomic { order: Order::Release, scope: Scope::Agent };
        let acq = Access::Atomic { order: Order::Acquire, scope: Scope::Agent };
        let zero = litmus::Span::default();
        assert_eq!(
            body,
            [
                Stmt::Store { target: loc(&l, stored), value: Expr::Const(1), access: rel, span: zero },
                Stmt::Barrier { id: Some("B1".to_string()), spaces: Spaces::GLOBAL, span: zero },
                Stmt::Load { reg: reg(&l, t, var), target: loc(&l, loaded), access: acq, span: zero },
            ]
        );
        assert_eq!(l.threads[t].placement.workgroup, 0);
    }
    assert_eq!(l.threads[0].regs, ["x1", "x"]);
    assert_eq!(l.threads[1].regs, ["y1", "y"]);
    let c = l.condition.as_ref().expect("condition");
    assert_eq!(c.prop, and(cmp(&l, 0, "x", 0), cmp(&l, 1, "y", 0)));
}

/// herd/CT_wsq2: compare-exchange whose expected value lives in memory (`oldHead_p`), used
/// as a value and in `if`; an unqualified `int*` parameter is in the generic space.
#[test]
fn compare_exchange_in_detail() {
    let Some(l) = parse("herd/CT_wsq2.litmus") else { return };
    let old_head = loc(&l, "oldHead_p");
    assert_eq!(l.locations[old_head.loc.0 as usize].space, Space::Generic);
    let body = &l.threads[0].body;
    // int newHead = 1; e = *oldHead_p; ok = cas(head_p, e, newHead); if (!ok) *oldHead_p = e;
    // tmp = ok; if (tmp) {} else { store }; tmp_tail = load
    assert!(matches!(&body[0], Stmt::Assign { value: Expr::Const(1), .. }));
    let Stmt::Load { reg: e, target, access: Access::Plain, .. } = body[1] else { panic!("{:?}", body[1]) };
    assert_eq!(target, old_head);
    let rel = Access::Atomic { order: Order::Release, scope: Scope::Agent };
    let Stmt::Cas { old, ok: Some(ok), target, expected, desired, success, failure, span } = &body[2] else { panic!("{:?}", body[2]) };
    assert_eq!((*old, expected, *target), (Some(e), &Expr::Reg(e), loc(&l, "head_p")));
    assert_eq!(desired, &Expr::Reg(reg(&l, 0, "newHead")));
    assert_eq!((*success, *failure), (rel, rel));
    assert_eq!(*span, litmus::Span { line: 19, column: 13 });
    let Stmt::If { cond: Expr::Not(c), then, otherwise, .. } = &body[3] else { panic!("{:?}", body[3]) };
    assert_eq!(**c, Expr::Reg(*ok));
    assert!(
        otherwise.is_empty() && matches!(then[..], [Stmt::Store { target, value: Expr::Reg(v), access: Access::Plain, .. }] if target == old_head && v == e)
    );
    assert_eq!(body[4], Stmt::Assign { reg: reg(&l, 0, "tmp"), value: Expr::Reg(*ok), span: litmus::Span { line: 19, column: 7 } });
    let Stmt::If { cond: Expr::Reg(t), then, otherwise, .. } = &body[5] else { panic!("{:?}", body[5]) };
    assert_eq!((*t, then.len(), otherwise.len()), (reg(&l, 0, "tmp"), 0, 1));
    assert!(matches!(body[6], Stmt::Load { access: Access::Atomic { order: Order::Acquire, scope: Scope::Agent }, .. }));
    assert_eq!(body.len(), 7);
}

/// herd/old/MP_dr and overhauling/example10: local memory, and an `if` without braces
/// whose condition reads memory.
#[test]
fn local_memory_and_reads_in_conditions() {
    let Some(l) = parse("herd/old/MP_dr.litmus") else { return };
    assert_eq!(l.locations[loc(&l, "x").loc.0 as usize].space, Space::Local);
    assert!(l.locations[loc(&l, "y").loc.0 as usize].atomic_type);
    let Some(l) = parse("overhauling/example10.litmus") else { return };
    let places: Vec<_> = l.threads.iter().map(|t| (t.placement.agent, t.placement.workgroup)).collect();
    assert_eq!(places, [(0, 0), (0, 0), (1, 1), (1, 1)]);
    let body = &l.threads[1].body;
    let sys_acq = Access::Atomic { order: Order::Acquire, scope: Scope::System };
    let Stmt::Load { reg: t, access, .. } = body[1] else { panic!("{:?}", body[1]) };
    assert_eq!(access, sys_acq);
    let Stmt::If { cond: Expr::Bin(litmus::BinOp::Eq, a, b), then, otherwise, .. } = &body[2] else { panic!("{:?}", body[2]) };
    assert_eq!((&**a, &**b), (&Expr::Reg(t), &Expr::Const(1)));
    assert!(otherwise.is_empty() && matches!(then[..], [Stmt::Load { access: Access::Atomic { order: Order::SeqCst, scope: Scope::Agent }, .. }]));
}

const TOKENS: [&str; 30] = [
    "(",
    ")",
    "{",
    "}",
    ";",
    ",",
    "*",
    "&",
    "=",
    "==",
    "!=",
    "&&",
    "||",
    "-",
    "+",
    "[",
    "]",
    ":",
    "(*",
    "*)",
    "//",
    "int ",
    "if ",
    "else ",
    "while ",
    "atomic_load_explicit(",
    "memory_order_acquire",
    "memory_scope_work_group",
    "barrier(",
    "99999999999999999999",
];

/// The word (identifier or number) around `at`, as a byte range.
fn word_at(text: &[u8], at: usize) -> std::ops::Range<usize> {
    let is_word = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
    let start = text[..at].iter().rposition(|b| !is_word(b)).map_or(0, |i| i + 1);
    let end = text[at..].iter().position(|b| !is_word(b)).map_or(text.len(), |i| at + i);
    start..end
}

/// One random edit: delete, duplicate or replace bytes or words, insert a token, swap two
/// bytes, or truncate.
fn mutate(text: &mut Vec<u8>, rng: &mut common::XorShift) {
    let at = rng.below(text.len() + 1);
    let len = 1 + rng.below(12);
    let end = (at + len).min(text.len());
    match rng.below(8) {
        6 => drop(text.drain(word_at(text, at))),
        7 => {
            let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
            let word = word_at(text, at);
            text.splice(word, token.iter().copied());
        }
        0 => drop(text.drain(at..end)),
        1 => {
            let copy: Vec<u8> = text[at..end].to_vec();
            text.splice(at..at, copy);
        }
        2 if at < text.len() => {
            const BYTES: &[u8] = b"(){};,*&=!|-+[]:0123456789xP@ \n\xff";
            text[at] = BYTES[rng.below(BYTES.len())];
        }
        3 => {
            let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
            text.splice(at..at, token.iter().copied());
        }
        4 => text.truncate(at),
        _ => {
            let other = rng.below(text.len() + 1);
            let (a, b) = (at.min(other), at.max(other));
            if b < text.len() {
                text.swap(a, b);
            }
        }
    }
}

/// 2000 mutated corpus files (or `OPENCL_MUTATIONS`): the parser returns (never panics), and every error is one
/// line `file:line:col: message` pointing inside the text.
#[test]
fn mutated_files_never_crash_and_errors_are_one_line() {
    let Some((_, files)) = corpus_files() else { return };
    let sources: Vec<(PathBuf, Vec<u8>)> = files.iter().filter_map(|f| Some((f.clone(), std::fs::read(f).ok()?))).collect();
    assert!(!sources.is_empty());
    let mut rng = common::XorShift(0x9e37_79b9_7f4a_7c15);
    let (mut parsed, mut refused) = (0, 0);
    let mut examples = Vec::new();
    // OPENCL_MUTATIONS=<n> runs a longer campaign by hand.
    let rounds = std::env::var("OPENCL_MUTATIONS").ok().and_then(|n| n.parse().ok()).unwrap_or(2000);
    for round in 0..rounds {
        let (file, original) = &sources[rng.below(sources.len())];
        let mut text = original.clone();
        for _ in 0..1 + rng.below(3) {
            mutate(&mut text, &mut rng);
        }
        let source = String::from_utf8_lossy(&text).into_owned();
        let result = std::panic::catch_unwind(|| litmus::parse(file, &source));
        let Ok(result) = result else { panic!("round {round}: the parser panicked on a mutation of {}:\n{source}", file.display()) };
        match result {
            Ok(l) => {
                parsed += 1;
                if let Err(why) = common::ids_in_range(&l) {
                    panic!("round {round}: {why} in a mutation of {}:\n{source}", file.display());
                }
            }
            Err(e) => {
                refused += 1;
                if let Err(why) = common::one_line_error(&e, file, &source) {
                    panic!("round {round}: {why}");
                }
                let shown = e.to_string();
                if examples.len() < 12 && round % 97 == 0 {
                    examples.push(shown.rsplit('/').next().unwrap_or_default().to_string());
                }
            }
        }
    }
    println!("{parsed} mutations still parse, {refused} are refused; some messages:\n{}", examples.join("\n"));
    assert!(refused > rounds / 4, "mutations should mostly break the files");
}
