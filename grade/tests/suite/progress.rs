//! Termination of spin loops under the GPU progress models, on hand-written message-passing
//! spins whose answers follow from the models' definitions (Sorensen et al., "Specifying and
//! testing GPU workgroup progress models", OOPSLA 2021, Table 1; Dartagnan's
//! `ProgressModel`): a thread spinning until another sets a flag terminates when the
//! scheduler must eventually run the setter.

use std::path::Path;

use hipscope_grade::litmus;
use hipscope_grade::model::progress::{terminates, Progress};
use hipscope_grade::model::{check, Model};

/// `spinner` (P0 or P1) reads `flag` until it is 1; the other thread sets it.
fn spin(spinner: usize) -> litmus::Litmus {
    let (spin, set) = ("ld.relaxed.gpu r0, flag", "st.relaxed.gpu flag, 1");
    let rows: Vec<(String, String)> = vec![("LC00:".into(), "".into()), (spin.into(), set.into()), ("bne r0, 1, LC00".into(), "".into())];
    let cols = |(a, b): &(String, String)| if spinner == 0 { format!("{a} | {b} ;") } else { format!("{b} | {a} ;") };
    let body: Vec<String> = rows.iter().map(cols).collect();
    let src = format!("PTX spin\n{{ flag=0; }}\nP0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n{}\nexists (flag=1)", body.join("\n"));
    litmus::parse(Path::new("spin.litmus"), &src).unwrap_or_else(|e| panic!("{e}"))
}

fn ends(test: &litmus::Litmus, p: Progress) -> bool {
    terminates(test, Model::Hip, p, 4).expect("judged").terminates
}

#[test]
fn fair_scheduling_always_runs_the_setter() {
    for spinner in [0, 1] {
        assert!(ends(&spin(spinner), Progress::Fair), "spinner P{spinner}");
    }
}

#[test]
fn unfair_scheduling_may_never_run_the_setter() {
    for spinner in [0, 1] {
        let l = terminates(&spin(spinner), Model::Hip, Progress::Unfair, 4).expect("judged");
        assert!(!l.terminates, "spinner P{spinner}");
        let stuck = l.stuck.expect("a stuck thread");
        assert_eq!((stuck.thread as usize, stuck.label.as_str(), stuck.stores), (spinner, "LC00", false));
        assert_eq!(stuck.unscheduled, vec![1 - spinner as u16]);
    }
}

#[test]
fn hsa_runs_only_the_lowest_unfinished_thread() {
    // HSA: the lowest-id thread that has not finished is scheduled. A lower spinner keeps
    // the higher setter waiting; a higher spinner waits for a setter that must run.
    assert!(!ends(&spin(0), Progress::Hsa));
    assert!(ends(&spin(1), Progress::Hsa));
}

#[test]
fn obe_runs_only_threads_that_started() {
    // OBE: a thread that has never run may never run, whichever its id.
    assert!(!ends(&spin(0), Progress::Obe));
    assert!(!ends(&spin(1), Progress::Obe));
    // HSA+OBE: the union of both guarantees; LOBE: a thread that ran makes every lower one run.
    assert!(ends(&spin(1), Progress::HsaObe));
    assert!(ends(&spin(1), Progress::Lobe));
    assert!(!ends(&spin(0), Progress::Lobe));
}

#[test]
fn the_verdict_says_when_the_bound_cut_a_spin() {
    let v = check(&spin(0), Model::Hip).expect("judged");
    assert_eq!(v.holds, Some(true));
    let b = v.bound_reached.expect("a spin may need more than 4 iterations");
    assert_eq!((b.thread, b.label.as_str(), b.bound), (0, "LC00", 4));
}

/// A barrier released by `quorum` threads, met by the three threads of one CTA (Dartagnan's
/// `litmus/PTX/Barrier/quorum1-*`: quorum 4 hangs, 2 and 3 pass — its PTX liveness tables).
fn quorum(q: u16) -> litmus::Litmus {
    let src = format!(
        "PTX quorum\n{{ x=0; }}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 0,gpu 0 ;\n st.weak x, 1 | bar.cta.sync 1, 1, {q} | bar.cta.sync 1, 1, {q} ;\n bar.cta.sync 1, 1, {q} | ld.weak r0, x | ;\nexists (P1:r0 == 0)"
    );
    litmus::parse(Path::new("quorum.litmus"), &src).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_barrier_whose_quorum_cannot_gather_blocks_for_ever() {
    for q in [2, 3] {
        assert!(terminates(&quorum(q), Model::Ptx75, Progress::Fair, 4).expect("judged").terminates, "quorum {q}");
    }
    let l = terminates(&quorum(4), Model::Ptx75, Progress::Fair, 4).expect("judged");
    assert!(!l.terminates);
    let b = l.stuck.and_then(|s| s.barrier).expect("a thread blocked at the barrier");
    // Three threads reach one barrier each; four must meet.
    assert_eq!((b.quorum, b.reachable), (4, 3));
}
