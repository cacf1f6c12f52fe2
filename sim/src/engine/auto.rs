//! `--threads auto`: whether a dispatch runs its work-groups on several host threads
//! ([`super::par`]) or on one, chosen per kernel and launch shape from what the launches
//! before it cost.
//!
//! Several threads do not always pay: each worker copies every page it writes and the
//! written bytes are copied back, and every global access is logged and compared. A kernel
//! whose work-groups do much per byte they write (fir's tap loop) runs on two threads in
//! about 0.6 of one thread's time; a short one whose groups scatter their writes over many
//! pages (matrixtranspose's transposed tile rows: every worker copies nearly the whole output)
//! takes about as long on two as on one. Neither the instruction count nor the pages a
//! dispatch writes are known before it runs, and how much a page copy costs against an
//! instruction depends on the host; so the first launch of a kernel and shape runs on several
//! threads (where they pay, they pay most; where they do not, a launch costs little more), the
//! next on one, and every later one the way that took less host time per wave-instruction. A
//! parallel run that fell back (waves that communicate, a race) was wasted work: that kernel
//! and shape runs on one thread from then on.
//!
//! The choice changes only how fast a dispatch runs: the parallel engine's result, when it
//! stands, is the sequential engine's ([`super`] says why), so measured host time may pick
//! the way without making any result depend on it.

use super::Dispatch;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

/// How a dispatch runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// On the calling thread.
    One,
    /// On the worker threads.
    Many,
}

/// What launches of one kernel and shape cost so far: host seconds per wave-instruction on
/// one thread and on several (the latest of each), and whether a parallel run fell back.
#[derive(Debug, Clone, Copy, Default)]
struct Seen {
    one: Option<f64>,
    many: Option<f64>,
    fell_back: bool,
}

/// A kernel (its name and entry, as loaded) and a launch shape (grid and block).
type Key = (String, u64, [u32; 3], [u32; 3]);

static SEEN: Mutex<Option<HashMap<Key, Seen>>> = Mutex::new(None);

fn key(d: &Dispatch) -> Key {
    (d.kernel.name.clone(), d.kernel.entry, d.geo.grid, d.geo.block)
}

/// How to run `d`.
pub fn plan(d: &Dispatch) -> Plan {
    let seen = SEEN.lock().ok().and_then(|m| m.as_ref().and_then(|m| m.get(&key(d)).copied())).unwrap_or_default();
    choose(seen)
}

fn choose(seen: Seen) -> Plan {
    match seen {
        Seen { fell_back: true, .. } => Plan::One,
        Seen { many: None, .. } => Plan::Many,
        Seen { one: None, .. } => Plan::One,
        Seen { one: Some(one), many: Some(many), .. } => {
            if many < one {
                Plan::Many
            } else {
                Plan::One
            }
        }
    }
}

/// `d` ran as `plan` in `took`, executing `instructions` wave-instructions (`None`: the
/// parallel run fell back; the sequential run after it is recorded on its own).
pub fn record(d: &Dispatch, plan: Plan, took: Duration, instructions: Option<u64>) {
    let Ok(mut m) = SEEN.lock() else { return };
    let s = m.get_or_insert_with(HashMap::new).entry(key(d)).or_default();
    update(s, plan, took, instructions);
}

fn update(s: &mut Seen, plan: Plan, took: Duration, instructions: Option<u64>) {
    let Some(n) = instructions else {
        s.fell_back = true;
        return;
    };
    let per = took.as_secs_f64() / n.max(1) as f64;
    match plan {
        Plan::One => s.one = Some(per),
        Plan::Many => s.many = Some(per),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(steps: &[(Plan, u64, Option<u64>)]) -> Plan {
        let mut s = Seen::default();
        for &(plan, ms, n) in steps {
            update(&mut s, plan, Duration::from_millis(ms), n);
        }
        choose(s)
    }

    #[test]
    fn several_threads_first_then_one_then_the_cheaper_per_instruction() {
        assert_eq!(after(&[]), Plan::Many);
        assert_eq!(after(&[(Plan::Many, 60, Some(1_000))]), Plan::One);
        // One thread took 100 ms for the same work: several go on.
        assert_eq!(after(&[(Plan::Many, 60, Some(1_000)), (Plan::One, 100, Some(1_000))]), Plan::Many);
        // It took less: one goes on.
        assert_eq!(after(&[(Plan::Many, 13, Some(1_000)), (Plan::One, 10, Some(1_000))]), Plan::One);
        // Per instruction, not per launch: twice the work in 1.5 times the time is cheaper.
        assert_eq!(after(&[(Plan::Many, 15, Some(2_000)), (Plan::One, 10, Some(1_000))]), Plan::Many);
        // A later parallel launch that got dearer hands back to one thread.
        assert_eq!(after(&[(Plan::Many, 60, Some(1_000)), (Plan::One, 100, Some(1_000)), (Plan::Many, 150, Some(1_000))]), Plan::One);
    }

    #[test]
    fn a_parallel_run_that_fell_back_is_not_tried_again() {
        assert_eq!(after(&[(Plan::Many, 60, None)]), Plan::One);
        assert_eq!(after(&[(Plan::Many, 60, None), (Plan::One, 100, Some(1_000))]), Plan::One);
        assert_eq!(after(&[(Plan::Many, 60, None), (Plan::One, 100, Some(1_000)), (Plan::One, 100, Some(1_000))]), Plan::One);
    }
}
