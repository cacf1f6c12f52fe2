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
//! Trying one thread costs a whole launch, and most programs launch a kernel only twice (a
//! warm-up and a timed pass), so the trial is skipped when the parallel run already shows that
//! one thread could not have been faster: its wall time was under [`ONE_THREAD_SHARE_MIN`] of
//! the CPU time its workers spent. The workers' time is the sequential engine's work plus the
//! tracking and page copies one thread would not do, and one thread takes at least that share
//! of it (measured, `--threads 2`, the four programs compared with MGPUSim, the second launch
//! on one thread against the first's workers: fir 1M 1.0, relu 1M 0.7, vectoradd 1M 0.6–1.2,
//! matrixtranspose 1024² 0.54, whose writes scatter over every page; the workers' time taken
//! as each worker's wall time from start to end, which their CPU time does not exceed).
//! Measured on the same runs, wall over workers' time: fir 0.52, relu 0.56, vectoradd 0.59,
//! matrixtranspose 0.67–0.71.
//! A kernel that breaks the assumption (tracking more than 1 / [`ONE_THREAD_SHARE_MIN`] times
//! the work) while its workers stay that busy loses at most the difference between the two
//! shares of one launch's time per launch.
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

/// One thread takes at least this share of the CPU time a parallel run's workers spent on the
/// same dispatch (the module doc gives the measurements it rests on).
pub const ONE_THREAD_SHARE_MIN: f64 = 0.6;

/// What launches of one kernel and shape cost so far: host seconds per wave-instruction on
/// one thread and on several (the latest of each), whether a parallel run fell back, and
/// whether the latest one beat one thread whatever its cost ([`ONE_THREAD_SHARE_MIN`]).
#[derive(Debug, Clone, Copy, Default)]
struct Seen {
    one: Option<f64>,
    many: Option<f64>,
    fell_back: bool,
    many_paid: bool,
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
        Seen { one: None, many_paid: true, .. } => Plan::Many,
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

/// How a dispatch's run went: its wall time and the CPU time its threads spent (one thread:
/// its wall time will do), and the wave-instructions it executed (`None`: the parallel run
/// fell back; the sequential run after it is recorded on its own).
#[derive(Debug, Clone, Copy)]
pub struct Ran {
    pub took: Duration,
    pub worked: Duration,
    pub instructions: Option<u64>,
}

/// `d` ran as `plan`.
pub fn record(d: &Dispatch, plan: Plan, ran: Ran) {
    let Ok(mut m) = SEEN.lock() else { return };
    let s = m.get_or_insert_with(HashMap::new).entry(key(d)).or_default();
    update(s, plan, ran);
}

fn update(s: &mut Seen, plan: Plan, ran: Ran) {
    let Some(n) = ran.instructions else {
        s.fell_back = true;
        return;
    };
    let took = ran.took.as_secs_f64();
    let per = took / n.max(1) as f64;
    match plan {
        Plan::One => s.one = Some(per),
        Plan::Many => {
            s.many = Some(per);
            s.many_paid = took < ONE_THREAD_SHARE_MIN * ran.worked.as_secs_f64();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The choice after `steps`: how each ran, its wall milliseconds and its instructions;
    /// a parallel run's workers spent as much CPU time as its wall time (two threads, one of
    /// them idle: never a reason to skip trying one thread).
    fn after(steps: &[(Plan, u64, Option<u64>)]) -> Plan {
        let ran: Vec<_> = steps.iter().map(|&(plan, ms, n)| (plan, ms, ms, n)).collect();
        after_working(&ran)
    }

    /// The same with the CPU milliseconds the run's threads spent.
    fn after_working(steps: &[(Plan, u64, u64, Option<u64>)]) -> Plan {
        let mut s = Seen::default();
        for &(plan, ms, cpu_ms, instructions) in steps {
            update(&mut s, plan, Ran { took: Duration::from_millis(ms), worked: Duration::from_millis(cpu_ms), instructions });
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
    fn one_thread_is_not_tried_when_the_workers_were_busy_enough_that_it_could_not_win() {
        // Two workers busy 170 of 200 possible CPU ms in a 100 ms run: one thread would need
        // at least 0.6 x 170 = 102 ms.
        assert_eq!(after_working(&[(Plan::Many, 100, 170, Some(1_000))]), Plan::Many);
        // Busy 160 ms: one thread might take 96 ms, so it is tried.
        assert_eq!(after_working(&[(Plan::Many, 100, 160, Some(1_000))]), Plan::One);
        // A later parallel run that was not that busy tries one thread then.
        assert_eq!(after_working(&[(Plan::Many, 100, 170, Some(1_000)), (Plan::Many, 100, 120, Some(1_000))]), Plan::One);
        // Once one thread was measured, the measurements decide, not the bound.
        assert_eq!(after_working(&[(Plan::Many, 100, 170, Some(1_000)), (Plan::One, 90, 90, Some(1_000))]), Plan::One);
        // A busy run that fell back still makes one thread the way from then on.
        assert_eq!(after_working(&[(Plan::Many, 100, 190, None)]), Plan::One);
    }

    #[test]
    fn a_parallel_run_that_fell_back_is_not_tried_again() {
        assert_eq!(after(&[(Plan::Many, 60, None)]), Plan::One);
        assert_eq!(after(&[(Plan::Many, 60, None), (Plan::One, 100, Some(1_000))]), Plan::One);
        assert_eq!(after(&[(Plan::Many, 60, None), (Plan::One, 100, Some(1_000)), (Plan::One, 100, Some(1_000))]), Plan::One);
    }
}
