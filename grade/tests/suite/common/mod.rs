//! What the grade tests (and the language bench) share: where the litmus files are, the
//! shared catalogue's SKIPPED check, the small generators and token splitting of the
//! mutation tests (the crate needs no `rand`), and lookups and id checks on parsed tests.

// Each test binary compiles this module on its own and uses only part of it.
#![allow(dead_code)]

pub mod pathological;

use std::path::{Path, PathBuf};

use hipscope_grade::litmus::{Expr, Litmus, LitmusError, Prop, RegId, Stmt, Target, Term};

use hipscope_mm::{Access, Order, Scope};

/// `workloads/litmus`: the grading cases, in every checkout.
pub fn workload_cases() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/litmus")
}

/// The case files directly in `workloads/litmus`, sorted.
pub fn case_files() -> Vec<PathBuf> {
    let dir = workload_cases();
    assert!(dir.is_dir(), "workloads/litmus exists");
    litmus_in(&dir)
}

/// The shared catalogue next to the repository, which not every checkout has.
pub fn shared_litmus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/litmus")
}

/// The shared catalogue when `needs` (a path inside it) passes `present`; otherwise prints
/// `SKIPPED: {why}` and gives `None`, so the test passes in a checkout without it.
pub fn shared_or_skip(needs: &str, present: fn(&Path) -> bool, why: &str) -> Option<PathBuf> {
    let root = shared_litmus();
    if present(&root.join(needs)) {
        Some(root)
    } else {
        println!("SKIPPED: {why}");
        None
    }
}

/// The model a catalogue file is graded under: herd's HSA tests under `hsa`, Dartagnan's
/// OpenCL tests under `opencl`, everything else (HIP, PTX, Vulkan) under `hip`.
pub fn model_for(path: &Path) -> hipscope_grade::model::Model {
    use hipscope_grade::model::Model;
    let s = path.display().to_string();
    if s.contains("/hsa/") {
        Model::Hsa
    } else if s.contains("OPENCL") {
        Model::Opencl
    } else {
        Model::Hip
    }
}

fn is_litmus(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "litmus")
}

/// The `*.litmus` files directly in `dir` (none when it cannot be read), sorted.
pub fn litmus_in(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir).into_iter().flatten().flatten();
    let mut out: Vec<PathBuf> = entries.map(|e| e.path()).filter(|p| is_litmus(p)).collect();
    out.sort();
    out
}

/// The `*.litmus` files anywhere below `dir`, sorted.
pub fn litmus_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                dirs.push(p);
            } else if is_litmus(&p) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Why `e` is not one line `file:line:col: message` pointing inside `source`, if it is
/// not: what the mutation tests ask of every error.
pub fn one_line_error(e: &LitmusError, file: &Path, source: &str) -> Result<(), String> {
    let shown = e.to_string();
    let prefix = format!("{}:{}:{}: ", file.display(), e.span.line, e.span.column);
    if shown.contains('\n') || !shown.starts_with(&prefix) || shown.len() == prefix.len() {
        return Err(format!("not one line `file:line:col: message`: {shown:?}"));
    }
    let lines = source.split('\n').count() as u32;
    if e.span.line < 1 || e.span.line > lines || e.span.column < 1 {
        return Err(format!("{shown} is outside the text ({lines} lines)"));
    }
    Ok(())
}

/// A deterministic source of numbers for a mutation test.
pub trait Draw {
    fn next(&mut self) -> u64;

    /// A number below `n` (0 when `n` is 0); always draws, so the sequence does not depend
    /// on `n`.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// splitmix64.
pub struct SplitMix(pub u64);

impl Draw for SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// xorshift64*.
pub struct XorShift(pub u64);

impl Draw for XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Token boundaries in `text`: runs of `word` units, or single other units; tokens that
/// start with a `blank` unit are left out.
pub fn tokens<T: Copy>(text: &[T], word: impl Fn(T) -> bool, blank: impl Fn(T) -> bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let start = i;
        i += 1;
        if word(text[start]) {
            while i < text.len() && word(text[i]) {
                i += 1;
            }
        }
        if !blank(text[start]) {
            out.push((start, i));
        }
    }
    out
}

pub fn atomic(order: Order, scope: Scope) -> Access {
    Access::Atomic { order, scope }
}

/// The id of thread `thread`'s register `name`.
pub fn reg(l: &Litmus, thread: usize, name: &str) -> RegId {
    let i = l.threads[thread].regs.iter().position(|r| r == name).unwrap_or_else(|| panic!("P{thread} has no register {name}"));
    RegId(i as u16)
}

/// The word at location `name`.
pub fn loc(l: &Litmus, name: &str) -> Target {
    Target::word(l.location(name).unwrap_or_else(|| panic!("no location {name}")))
}

/// Panics unless every id the program uses exists (see [`ids_in_range`]).
pub fn check_ids(l: &Litmus) {
    if let Err(why) = ids_in_range(l) {
        panic!("{why}");
    }
}

/// Every register, location and thread id the program, its condition and its filter use
/// exists, so later layers can index with them; otherwise the first that does not.
pub fn ids_in_range(l: &Litmus) -> Result<(), String> {
    let locs = l.locations.len();
    for (t, thread) in l.threads.iter().enumerate() {
        let regs = thread.regs.len();
        let mut stack: Vec<&Stmt> = thread.body.iter().collect();
        while let Some(stmt) = stack.pop() {
            let (used, target) = stmt_ids(stmt, &mut stack);
            if let Some(r) = used.iter().flatten().find(|r| usize::from(r.0) >= regs) {
                return Err(format!("P{t}: register {} of {regs} at {}", r.0, stmt.span()));
            }
            if target.is_some_and(|t| usize::from(t.loc.0) >= locs) {
                return Err(format!("P{t}: location out of range at {}", stmt.span()));
            }
        }
        if thread.reg_init.iter().any(|(r, _)| usize::from(r.0) >= regs) {
            return Err(format!("P{t}: register init out of range"));
        }
    }
    l.condition.iter().map(|c| &c.prop).chain(&l.filter).try_for_each(|p| prop_ids(l, p))
}

/// The registers a statement writes or reads and its target; pushes nested statements.
fn stmt_ids<'a>(stmt: &'a Stmt, stack: &mut Vec<&'a Stmt>) -> (Vec<Option<RegId>>, Option<Target>) {
    let mut regs = Vec::new();
    let target = match stmt {
        Stmt::Load { reg, target, .. } => {
            regs.push(Some(*reg));
            Some(*target)
        }
        Stmt::Store { target, value, .. } => {
            expr_regs(value, &mut regs);
            Some(*target)
        }
        Stmt::Rmw { old, target, operand, .. } => {
            regs.push(*old);
            expr_regs(operand, &mut regs);
            Some(*target)
        }
        Stmt::Cas { old, ok, target, expected, desired, .. } => {
            regs.extend([*old, *ok]);
            expr_regs(expected, &mut regs);
            expr_regs(desired, &mut regs);
            Some(*target)
        }
        Stmt::Assign { reg, value, .. } => {
            regs.push(Some(*reg));
            expr_regs(value, &mut regs);
            None
        }
        Stmt::If { cond, then, otherwise, .. } => {
            expr_regs(cond, &mut regs);
            stack.extend(then.iter().chain(otherwise));
            None
        }
        Stmt::Goto { cond: Some(cond), .. } => {
            expr_regs(cond, &mut regs);
            None
        }
        Stmt::Fence { .. } | Stmt::Barrier { .. } | Stmt::Label { .. } | Stmt::Goto { cond: None, .. } => None,
    };
    (regs, target)
}

fn expr_regs(e: &Expr, out: &mut Vec<Option<RegId>>) {
    match e {
        Expr::Const(_) => {}
        Expr::Reg(r) => out.push(Some(*r)),
        Expr::Not(a) => expr_regs(a, out),
        Expr::Bin(_, a, b) => {
            expr_regs(a, out);
            expr_regs(b, out);
        }
    }
}

fn prop_ids(l: &Litmus, p: &Prop) -> Result<(), String> {
    match p {
        Prop::True | Prop::False => Ok(()),
        Prop::Cmp(a, _, b) => term_ids(l, a).and_then(|()| term_ids(l, b)),
        Prop::Not(a) => prop_ids(l, a),
        Prop::And(a, b) | Prop::Or(a, b) | Prop::Implies(a, b) => prop_ids(l, a).and_then(|()| prop_ids(l, b)),
    }
}

fn term_ids(l: &Litmus, term: &Term) -> Result<(), String> {
    let known = match term {
        Term::Reg { thread, reg } => l.threads.get(*thread as usize).is_some_and(|t| (reg.0 as usize) < t.regs.len()),
        Term::Loc { loc, .. } => (loc.0 as usize) < l.locations.len(),
        Term::Const(_) => true,
    };
    if known {
        Ok(())
    } else {
        Err(format!("the condition names {term:?}, which the test does not have"))
    }
}
