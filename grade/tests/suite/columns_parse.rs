//! The column-layout dialects (herd LISA, herd GPU_PTX, Dartagnan PTX and Vulkan) on the
//! shared litmus catalogue: every file parses, a few are checked against what their text
//! says, and seeded mutations of them never panic and always give one-line errors.

use std::path::{Path, PathBuf};

use hipscope_grade::litmus::{self, *};

use crate::common;

use common::{atomic, reg, Draw};
use hipscope_mm::{Access, Order, Scope, Space};

/// The files of the catalogue this parser must read.
fn files(root: &Path) -> Vec<PathBuf> {
    let dirs = [
        "herd+herdtools7/catalogue/hsa/tests/doc2",
        "herd+herdtools7/catalogue/tutorial/tests",
        "herd+herdtools7/herd/testsuite/GPU_PTXTests",
        "hernanponcedeleon+Dat3M/litmus/PTX/Manual",
        "hernanponcedeleon+Dat3M/litmus/VULKAN/Kronos-Group",
        "hernanponcedeleon+Dat3M/litmus/VULKAN/Data-Race",
    ];
    let mut out: Vec<PathBuf> = dirs.iter().flat_map(|d| common::litmus_in(&root.join(d))).collect();
    out.sort();
    out
}

macro_rules! shared_or_skip {
    () => {
        match common::shared_or_skip("", Path::is_dir, &format!("{}/../../shared/litmus is missing", env!("CARGO_MANIFEST_DIR"))) {
            Some(d) => d,
            None => return,
        }
    };
}

#[test]
fn every_listed_file_parses() {
    let root = shared_or_skip!();
    let files = files(&root);
    assert_eq!(files.len(), 18 + 2 + 1 + 5 + 6, "{files:?}");
    let mut failures = Vec::new();
    for f in &files {
        match litmus::parse_file(f) {
            Ok(l) => println!("ok {} ({} threads)", l.name, l.threads.len()),
            Err(e) => failures.push(e.to_string()),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn load(root: &Path, rel: &str) -> (Litmus, String) {
    let path = root.join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    match litmus::parse_file(&path) {
        Ok(l) => (l, text),
        Err(e) => panic!("{e}"),
    }
}

/// Where `needle` starts in `text` (1-based line and column).
fn span_of(text: &str, needle: &str) -> Span {
    for (i, line) in text.lines().enumerate() {
        if let Some(col) = line.find(needle) {
            return Span { line: i as u32 + 1, column: col as u32 + 1 };
        }
    }
    panic!("`{needle}` not in the file");
}

#[test]
fn hsa14_branch_becomes_if_and_agent_tree_separates_workgroups() {
    let root = shared_or_skip!();
    let (l, text) = load(&root, "herd+herdtools7/catalogue/hsa/tests/doc2/HSA14.litmus");
    assert_eq!((l.name.as_str(), l.dialect), ("HSA14", Dialect::Lisa));
    let (x, y) = (l.location("x").unwrap(), l.location("y").unwrap());
    let p0 = &l.threads[0];
    assert_eq!(
        p0.body,
        vec![
            Stmt::Store { target: Target::word(x), value: Expr::Const(1), access: Access::Plain, span: span_of(&text, "w[] x 1") },
            Stmt::Store {
                target: Target::word(y),
                value: Expr::Const(1),
                access: atomic(Order::Release, Scope::Workgroup),
                span: span_of(&text, "w[atomic,screl,wg] y 1")
            },
        ]
    );
    let (r0, r1, r3) = (reg(&l, 1, "r0"), reg(&l, 1, "r1"), reg(&l, 1, "r3"));
    let p1 = &l.threads[1];
    assert_eq!(p1.reg_init, vec![(r1, -1)]);
    assert_eq!(
        p1.body,
        vec![
            Stmt::Load { reg: r0, target: Target::word(y), access: atomic(Order::Acquire, Scope::Workgroup), span: span_of(&text, "r[atomic,scacq,wg] r0 y") },
            Stmt::Assign { reg: r3, value: Expr::Bin(BinOp::Ne, Box::new(Expr::Reg(r0)), Box::new(Expr::Const(1))), span: span_of(&text, "mov r3 (neq r0 1)") },
            Stmt::If {
                cond: Expr::Not(Box::new(Expr::Reg(r3))),
                then: vec![Stmt::Load { reg: r1, target: Target::word(x), access: Access::Plain, span: span_of(&text, "r[] r1 x") }],
                otherwise: vec![],
                span: span_of(&text, "b r3 Exit1"),
            },
        ]
    );
    // `scopes: (agent 0 1)`: one agent, each thread directly under it alone in a work-group.
    let (a, b) = (p0.placement, p1.placement);
    assert!(a.shares(&b, Scope::Agent) && !a.shares(&b, Scope::Workgroup));
    let c = l.condition.as_ref().unwrap();
    assert_eq!(c.quantifier, Quantifier::Exists);
    assert_eq!(c.span, span_of(&text, "exists"));
}

#[test]
fn hsa04_tree_gives_placements() {
    let root = shared_or_skip!();
    let (l, _) = load(&root, "herd+herdtools7/catalogue/hsa/tests/doc2/HSA04.litmus");
    // scopes: (agent (wg 0 1) (wg 2))
    let p: Vec<Placement> = l.threads.iter().map(|t| t.placement).collect();
    assert!(p[0].shares(&p[1], Scope::Workgroup));
    assert!(!p[0].shares(&p[2], Scope::Workgroup) && p[0].shares(&p[2], Scope::Agent));
    assert!(!p[0].shares(&p[1], Scope::Wavefront) && !p[1].shares(&p[2], Scope::Wavefront));
    assert_eq!(l.observed, vec![Term::Reg { thread: 1, reg: reg(&l, 1, "r1") }]);
    // P1's branch skips both the load and the system-scope release store.
    let Stmt::If { then, .. } = &l.threads[1].body[2] else { panic!("{:?}", l.threads[1].body) };
    assert_eq!(then.len(), 2);
    assert!(matches!(then[1], Stmt::Store { access: Access::Atomic { order: Order::Release, scope: Scope::System }, .. }));
}

#[test]
fn ptx_mp_cta_gpu_orders_and_scopes() {
    let root = shared_or_skip!();
    let (l, text) = load(&root, "hernanponcedeleon+Dat3M/litmus/PTX/Manual/MP-cta-gpu.litmus");
    assert_eq!(l.dialect, Dialect::Ptx);
    let (x, y) = (l.location("x").unwrap(), l.location("y").unwrap());
    assert_eq!(
        l.threads[0].body,
        vec![
            Stmt::Store { target: Target::word(x), value: Expr::Const(1), access: Access::Plain, span: span_of(&text, "st.weak x, 1") },
            Stmt::Store {
                target: Target::word(y),
                value: Expr::Const(1),
                access: atomic(Order::Release, Scope::Workgroup),
                span: span_of(&text, "st.release.cta y, 1")
            },
        ]
    );
    let (r1, r2) = (reg(&l, 1, "r1"), reg(&l, 1, "r2"));
    assert_eq!(
        l.threads[1].body,
        vec![
            Stmt::Load { reg: r1, target: Target::word(y), access: atomic(Order::Acquire, Scope::Agent), span: span_of(&text, "ld.acquire.gpu r1, y") },
            Stmt::Load { reg: r2, target: Target::word(x), access: Access::Plain, span: span_of(&text, "ld.weak r2, x") },
        ]
    );
    assert_eq!(l.threads[1].reg_init, vec![(r1, 0), (r2, 0)]);
    // P0@cta 0,gpu 0 | P1@cta 0,gpu 0: one CTA; PTX threads name no warp.
    let (a, b) = (l.threads[0].placement, l.threads[1].placement);
    assert!(a.shares(&b, Scope::Workgroup) && !a.shares(&b, Scope::Wavefront));
    let c = l.condition.unwrap();
    assert_eq!(c.quantifier, Quantifier::NotExists);
    assert_eq!(
        c.prop,
        Prop::And(
            Box::new(Prop::Cmp(Term::Reg { thread: 1, reg: r1 }, CmpOp::Eq, Term::Const(1))),
            Box::new(Prop::Cmp(Term::Reg { thread: 1, reg: r2 }, CmpOp::Ne, Term::Const(1)))
        )
    );
}

#[test]
fn ptx_sc_fences_and_separate_ctas() {
    let root = shared_or_skip!();
    let (l, _) = load(&root, "hernanponcedeleon+Dat3M/litmus/PTX/Manual/SB+sc-cta-outScope.litmus");
    assert!(matches!(l.threads[0].body[1], Stmt::Fence { order: Order::SeqCst, scope: Scope::Workgroup, .. }));
    let (a, b) = (l.threads[0].placement, l.threads[1].placement);
    assert!(!a.shares(&b, Scope::Workgroup) && a.shares(&b, Scope::Agent));
    assert_eq!(
        l.condition.clone().unwrap().prop,
        Prop::Or(
            Box::new(Prop::Cmp(Term::Reg { thread: 0, reg: reg(&l, 0, "r0") }, CmpOp::Eq, Term::Const(2))),
            Box::new(Prop::Cmp(Term::Reg { thread: 1, reg: reg(&l, 1, "r1") }, CmpOp::Ne, Term::Const(1))),
        )
    );
}

#[test]
fn vulkan_mpnotinscope2_placement_and_scopes() {
    let root = shared_or_skip!();
    let (l, text) = load(&root, "hernanponcedeleon+Dat3M/litmus/VULKAN/Kronos-Group/mpnotinscope2.litmus");
    assert_eq!(l.dialect, Dialect::Vulkan);
    let (x, y) = (l.location("x").unwrap(), l.location("y").unwrap());
    assert!(l.locations.iter().all(|loc| loc.space == Space::Global));
    assert_eq!(
        l.threads[0].body,
        vec![
            Stmt::Store {
                target: Target::word(x),
                value: Expr::Const(1),
                access: atomic(Order::Release, Scope::Workgroup),
                span: span_of(&text, "st.atom.rel.wg.sc0.semsc0 x, 1")
            },
            Stmt::Store {
                target: Target::word(y),
                value: Expr::Const(1),
                access: atomic(Order::Release, Scope::Agent),
                span: span_of(&text, "st.atom.rel.dv.sc0.semsc0 y, 1")
            },
        ]
    );
    let (r0, r1) = (reg(&l, 1, "r0"), reg(&l, 1, "r1"));
    assert_eq!(
        l.threads[1].body,
        vec![
            Stmt::Load {
                reg: r0,
                target: Target::word(y),
                access: atomic(Order::Acquire, Scope::Agent),
                span: span_of(&text, "ld.atom.acq.dv.sc0.semsc0 r0, y")
            },
            Stmt::Load {
                reg: r1,
                target: Target::word(x),
                access: atomic(Order::Acquire, Scope::Workgroup),
                span: span_of(&text, "ld.atom.acq.wg.sc0.semsc0 r1, x")
            },
        ]
    );
    // P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0: same queue family, different work-groups,
    // so subgroup 0 of each is a different wavefront.
    let (a, b) = (l.threads[0].placement, l.threads[1].placement);
    assert!(a.shares(&b, Scope::Agent) && !a.shares(&b, Scope::Workgroup) && !a.shares(&b, Scope::Wavefront));
    assert_eq!(l.threads[0].span, span_of(&text, "P0@sg"));
}

#[test]
fn vulkan_filter_only_test_has_no_condition() {
    let root = shared_or_skip!();
    let (l, _) = load(&root, "hernanponcedeleon+Dat3M/litmus/VULKAN/Data-Race/mpnotinscope2-filter.litmus");
    assert!(l.condition.is_none());
    assert_eq!(l.filter, Some(Prop::Cmp(Term::Reg { thread: 1, reg: reg(&l, 1, "r0") }, CmpOp::Eq, Term::Const(1))));
}

#[test]
fn gpu_ptx_scoped_mp_uses_address_registers() {
    let root = shared_or_skip!();
    let (l, text) = load(&root, "herd+herdtools7/herd/testsuite/GPU_PTXTests/scoped_MP.litmus");
    assert_eq!((l.name.as_str(), l.dialect), ("scoped_MP", Dialect::Ptx));
    let (x, y) = (l.location("x").unwrap(), l.location("y").unwrap());
    // P0: r2 = &x, r4 = &y; P1 and P2: r2 = &y, r4 = &x. Address registers are not values.
    for t in &l.threads {
        assert_eq!(t.regs, vec!["r1", "r3"], "{}", t.name);
    }
    let p0 = &l.threads[0].body;
    let r1 = reg(&l, 0, "r1");
    assert_eq!(p0[0], Stmt::Assign { reg: r1, value: Expr::Const(1), span: span_of(&text, "mov.s32 r1,1") });
    assert_eq!(p0[1], Stmt::Store { target: Target::word(x), value: Expr::Reg(r1), access: Access::Plain, span: span_of(&text, "st.wt.s32 [r2],r1") });
    assert!(matches!(p0[2], Stmt::Fence { order: Order::SeqCst, scope: Scope::Workgroup, .. }));
    assert!(matches!(p0[4], Stmt::Store { target, .. } if target == Target::word(y)));
    for t in 1..3 {
        let body = &l.threads[t].body;
        assert!(matches!(body[0], Stmt::Load { target, access: Access::Plain, .. } if target == Target::word(y)), "{body:?}");
        assert!(matches!(body[2], Stmt::Load { target, .. } if target == Target::word(x)));
    }
    // scopeTree (device (cta P0 P1) (cta P2))
    let p: Vec<Placement> = l.threads.iter().map(|t| t.placement).collect();
    assert!(p[0].shares(&p[1], Scope::Workgroup) && !p[1].shares(&p[2], Scope::Workgroup) && p[1].shares(&p[2], Scope::Agent));
    assert!(l.locations.iter().all(|loc| loc.space == Space::Global && loc.init == 0));
}

#[test]
fn tutorial_scope_bell_fences() {
    let root = shared_or_skip!();
    let (l, _) = load(&root, "herd+herdtools7/catalogue/tutorial/tests/mp-mit-scopes+fcta+fgpu.litmus");
    assert!(matches!(l.threads[0].body[1], Stmt::Fence { order: Order::SeqCst, scope: Scope::Workgroup, .. }));
    assert!(matches!(l.threads[1].body[1], Stmt::Fence { order: Order::SeqCst, scope: Scope::Agent, .. }));
    // (system (gpu (cta P0) (cta P1)))
    let (a, b) = (l.threads[0].placement, l.threads[1].placement);
    assert!(a.shares(&b, Scope::Agent) && !a.shares(&b, Scope::Workgroup));
}

#[test]
fn regions_and_missing_scopes_and_errors() {
    let parse = |s: &str| litmus::parse(Path::new("t.litmus"), s);
    let l = parse("LISA r\n{ x=1; y=0; }\n P0 | P1 ;\n w[] x 2 | r[] r0 y ;\nregions: x:group, y:global\nexists (1:r0=0)").unwrap();
    assert_eq!((l.locations[0].space, l.locations[0].init), (Space::Local, 1));
    assert_eq!(l.locations[1].space, Space::Global);
    // No scope tree: one work-group of one agent, a wavefront per thread.
    let (a, b) = (l.threads[0].placement, l.threads[1].placement);
    assert!(a.shares(&b, Scope::Workgroup) && !a.shares(&b, Scope::Wavefront));
    // A backward branch is a loop: kept as a label and a jump, unrolled by the model.
    let looped = parse("LISA r\n{ x=0; }\n P0 ;\n Exit:  ;\n b Exit ;\nexists (x=0)").unwrap();
    assert!(matches!(looped.threads[0].body.as_slice(), [Stmt::Label { .. }, Stmt::Goto { cond: None, .. }]), "{:?}", looped.threads[0].body);
    let e = parse("LISA r\n{ }\n P0 ;\n b Nowhere ;\nexists (x=0)").unwrap_err();
    assert_eq!(e.to_string(), "t.litmus:4:2: this thread has no label `Nowhere`");
    let e = parse("PTX r\n{ }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x=0)").unwrap_err();
    assert_eq!(e.to_string(), "t.litmus:4:2: this row has 1 column but the test has 2 threads");
    let e = parse("Vulkan r\n{ }\n P0@sg 0, wg 0, qf 0 ;\n st.atom.rel.sc0 x, 1 ;\nexists (x=0)").unwrap_err();
    assert_eq!(e.to_string(), "t.litmus:4:2: an atomic store needs a scope (`.sg`, `.wg`, `.qf`, `.dv`)");
    let e = parse("GPU_PTX r\n{ }\n P0 ;\n st.wt.s32 [r2],1 ;\nexists (x=0)").unwrap_err();
    assert!(e.to_string().starts_with("t.litmus:4:13: register `r2` holds no address"), "{e}");
    let e = parse("LISA r\n{ }\n P0 ;\n w[] x 1 ;\nscopes: (wg 0)\nexists (1:r0=0)").unwrap_err();
    assert_eq!(e.to_string(), "t.litmus:6:9: the condition names thread `1`, which the test does not have");
}

/// A number below `n`, drawing nothing when `n` is 0 (unlike [`Draw::below`]): this
/// test's seed has always made its mutants that way.
fn below(rng: &mut common::SplitMix, n: usize) -> usize {
    if n == 0 {
        0
    } else {
        rng.below(n)
    }
}

/// Token boundaries: runs of word characters, or single other characters.
fn tokens(chars: &[char]) -> Vec<(usize, usize)> {
    common::tokens(chars, |c| c.is_alphanumeric() || c == '_' || c == '.', char::is_whitespace)
}

const NOISE: [&str; 16] = ["|", ";", "(", ")", "[", "]", "{", "}", ":", ",", "@", "-", "999999999999999999999", "P9", "r", "\n"];

fn mutate(text: &str, rng: &mut common::SplitMix) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let toks = tokens(&chars);
    let (s, e) = toks.get(below(rng, toks.len())).copied().unwrap_or((0, 0));
    match below(rng, 7) {
        0 => {
            chars.drain(s..e);
        }
        1 => {
            let dup: Vec<char> = chars[s..e].to_vec();
            chars.splice(e..e, dup);
        }
        2 => {
            let (s2, e2) = toks.get(below(rng, toks.len())).copied().unwrap_or((0, 0));
            let other: Vec<char> = chars[s2..e2].to_vec();
            chars.splice(s..e, other);
        }
        3 => {
            let noise: Vec<char> = NOISE[below(rng, NOISE.len())].chars().collect();
            chars.splice(s..e, noise);
        }
        4 => {
            let at = below(rng, chars.len());
            chars.remove(at);
        }
        5 => {
            let at = below(rng, chars.len());
            chars[at] = NOISE[below(rng, NOISE.len())].chars().next().unwrap_or('x');
        }
        _ => chars.truncate(below(rng, chars.len())),
    }
    chars.into_iter().collect()
}

#[test]
fn mutations_never_panic_and_errors_are_one_line() {
    let root = shared_or_skip!();
    let sources: Vec<(PathBuf, String)> = files(&root).into_iter().filter_map(|p| std::fs::read_to_string(&p).ok().map(|t| (p, t))).collect();
    assert!(!sources.is_empty());
    let mut rng = common::SplitMix(0x5eed_1234);
    let (mut errors, mut accepted) = (0, 0);
    for round in 0..1600 {
        let (path, text) = &sources[round % sources.len()];
        let mut mutant = mutate(text, &mut rng);
        if below(&mut rng, 4) == 0 {
            mutant = mutate(&mutant, &mut rng);
        }
        let name = Path::new("m.litmus");
        let result = std::panic::catch_unwind(|| litmus::parse(name, &mutant));
        let Ok(result) = result else { panic!("parser panicked on a mutant of {}:\n{mutant}", path.display()) };
        match result {
            Ok(_) => accepted += 1,
            Err(e) => {
                errors += 1;
                let shown = e.to_string();
                if std::env::var_os("SHOW_MUTANT_ERRORS").is_some() {
                    println!("{shown}");
                }
                if let Err(why) = common::one_line_error(&e, name, &mutant) {
                    panic!("{why} (a mutant of {})", path.display());
                }
            }
        }
    }
    println!("{errors} mutants rejected, {accepted} accepted");
    assert!(errors > 800, "{errors} errors of 1600");
}
