//! Fix hints: the smallest change to a test — raise a scope, strengthen an order, make an
//! access atomic — that removes its races (or forbids its outcome), found by trying the
//! changes and re-judging each changed test. A hint is offered only once the changed test
//! has been checked.

use crate::explain::{order_name, scope_name};
use crate::litmus::{for_each_stmt, Litmus, LocId, Stmt};
use crate::model::{check, Model};
use hipscope_mm::{Access, Order, Scope, Space};

/// What the fix must achieve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    RaceFree,
    /// Race-free and the outcome unreachable.
    Forbidden,
}

/// One change to one statement or one location.
#[derive(Clone, Debug, PartialEq)]
pub struct Edit {
    pub place: Place,
    pub change: Change,
}

/// What an edit changes.
#[derive(Clone, Debug, PartialEq)]
pub enum Place {
    /// A statement of thread `thread`, found by its index path through nested `if` bodies
    /// (then before else).
    Statement { thread: usize, path: Vec<usize>, line: u32 },
    /// A location's declaration (the location is named by the change).
    Declaration,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Change {
    RaiseScope {
        from: Scope,
        to: Scope,
    },
    Strengthen {
        from: Order,
        to: Order,
    },
    MakeAtomic {
        order: Order,
        scope: Scope,
    },
    /// Move a work-group-local location (`__shared__`) to global memory.
    MakeGlobal {
        loc: LocId,
    },
}

impl Edit {
    pub fn words(&self, test: &Litmus) -> String {
        let what = match self.change {
            Change::RaiseScope { from, to } => format!("raise the scope from {} to {}", scope_name(from), scope_name(to)),
            Change::Strengthen { from, to } => format!("make it {} instead of {}", order_name(to), order_name(from)),
            Change::MakeAtomic { order, scope } => format!("make it atomic ({} {})", order_name(order), scope_name(scope)),
            Change::MakeGlobal { loc } => {
                let name = test.locations.get(loc.0 as usize).map_or("?", |l| l.name.as_str());
                format!("put `{name}` in global memory (`__device__`) instead of work-group-local memory: synchronizing through local memory orders only local memory")
            }
        };
        match &self.place {
            Place::Statement { thread, line, .. } => {
                format!("line {line} ({}): {what}", test.threads.get(*thread).map_or("?", |t| t.name.as_str()))
            }
            Place::Declaration => what,
        }
    }

    /// Two edits of one statement (or the same declaration edit) do not combine.
    fn clashes(&self, other: &Edit) -> bool {
        match self.place {
            Place::Statement { .. } => self.place == other.place,
            Place::Declaration => self.change == other.change,
        }
    }
}

/// A change found to work, with what the changed test gives.
#[derive(Clone, Debug)]
pub struct Fix {
    pub edits: Vec<Edit>,
    pub reachable_after: bool,
}

/// The smallest combination of edits (at most two) that reaches `goal` under `model`;
/// among equally small ones, one that also forbids the outcome is preferred (a student who
/// fixes a race usually wants the stale value gone too).
pub fn suggest(test: &Litmus, model: Model, goal: Goal) -> Option<Fix> {
    let edits = candidate_edits(test);
    let works = |chosen: &[&Edit]| -> Option<Fix> {
        let mut changed = test.clone();
        for e in chosen {
            apply(&mut changed, e);
        }
        let v = check(&changed, model).ok()?;
        let ok = v.race_free() && (goal == Goal::RaceFree || !v.reachable());
        ok.then(|| Fix { edits: chosen.iter().map(|e| (*e).clone()).collect(), reachable_after: v.reachable() })
    };
    let best = |fixes: Vec<Fix>| fixes.iter().find(|f| !f.reachable_after).or(fixes.first()).cloned();
    let singles: Vec<Fix> = edits.iter().filter_map(|e| works(&[e])).collect();
    if let Some(f) = best(singles) {
        return Some(f);
    }
    let mut pairs = Vec::new();
    for (i, a) in edits.iter().enumerate() {
        for b in &edits[i + 1..] {
            if a.clashes(b) {
                continue;
            }
            if let Some(f) = works(&[a, b]) {
                pairs.push(f);
            }
        }
    }
    best(pairs)
}

/// Every single-step strengthening of every statement, smallest first per statement.
fn candidate_edits(test: &Litmus) -> Vec<Edit> {
    let mut out = Vec::new();
    for (t, thread) in test.threads.iter().enumerate() {
        for_each_stmt(&thread.body, &mut |path, stmt| {
            for change in changes(stmt) {
                out.push(Edit { place: Place::Statement { thread: t, path: path.to_vec(), line: stmt.span().line }, change });
            }
        });
    }
    for (i, loc) in test.locations.iter().enumerate() {
        if loc.space == Space::Local {
            out.push(Edit { place: Place::Declaration, change: Change::MakeGlobal { loc: LocId(i as u16) } });
        }
    }
    // Scope raises first (the classic mistake), then orders, memory spaces, atomicity.
    out.sort_by_key(|e| match e.change {
        Change::RaiseScope { .. } => 0,
        Change::Strengthen { .. } => 1,
        Change::MakeGlobal { .. } => 2,
        Change::MakeAtomic { .. } => 3,
    });
    out
}

fn wider(s: Scope) -> Option<Scope> {
    match s {
        Scope::WorkItem => Some(Scope::Wavefront),
        Scope::Wavefront => Some(Scope::Workgroup),
        Scope::Workgroup => Some(Scope::Agent),
        Scope::Agent => Some(Scope::System),
        Scope::System => None,
    }
}

fn changes(stmt: &Stmt) -> Vec<Change> {
    let (access, strengthen) = match stmt {
        Stmt::Load { access, .. } => (*access, Some(Order::Acquire)),
        Stmt::Store { access, .. } => (*access, Some(Order::Release)),
        Stmt::Rmw { access, .. } => (*access, Some(Order::AcqRel)),
        Stmt::Fence { scope, .. } => {
            return wider(*scope).map(|to| Change::RaiseScope { from: *scope, to }).into_iter().collect();
        }
        _ => return Vec::new(),
    };
    match access {
        Access::Plain => vec![Change::MakeAtomic { order: Order::Relaxed, scope: Scope::Agent }],
        Access::Atomic { order, scope } => {
            let mut v: Vec<Change> = wider(scope).map(|to| Change::RaiseScope { from: scope, to }).into_iter().collect();
            if let (Order::Relaxed, Some(to)) = (order, strengthen) {
                v.push(Change::Strengthen { from: order, to });
            }
            v
        }
    }
}

fn statement_mut<'a>(body: &'a mut [Stmt], path: &[usize]) -> Option<&'a mut Stmt> {
    let (first, rest) = path.split_first()?;
    let stmt = body.get_mut(*first)?;
    if rest.is_empty() {
        return Some(stmt);
    }
    match stmt {
        Stmt::If { then, otherwise, .. } => {
            let (branch, deeper) = rest.split_first()?;
            statement_mut(if *branch == 0 { then } else { otherwise }, deeper)
        }
        _ => None,
    }
}

/// Applies one edit in place.
pub fn apply(test: &mut Litmus, edit: &Edit) {
    if let Change::MakeGlobal { loc } = edit.change {
        if let Some(l) = test.locations.get_mut(loc.0 as usize) {
            l.space = Space::Global;
        }
        return;
    }
    let Place::Statement { thread, path, .. } = &edit.place else { return };
    let Some(thread) = test.threads.get_mut(*thread) else { return };
    let Some(stmt) = statement_mut(&mut thread.body, path) else { return };
    if let Stmt::Fence { scope, .. } = stmt {
        if let Change::RaiseScope { to, .. } = edit.change {
            *scope = to;
        }
        return;
    }
    let access = match stmt {
        Stmt::Load { access, .. } | Stmt::Store { access, .. } | Stmt::Rmw { access, .. } => access,
        _ => return,
    };
    *access = match (edit.change, *access) {
        (Change::RaiseScope { to, .. }, Access::Atomic { order, .. }) => Access::Atomic { order, scope: to },
        (Change::Strengthen { to, .. }, Access::Atomic { scope, .. }) => Access::Atomic { order: to, scope },
        (Change::MakeAtomic { order, scope }, Access::Plain) => Access::Atomic { order, scope },
        (_, unchanged) => unchanged,
    };
}
