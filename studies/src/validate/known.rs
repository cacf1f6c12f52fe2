//! Figures the model does not reach yet, each with the reason. One list for the `validate`
//! command, the calibration report and the tests: a miss not listed here is a regression, and a
//! listed one that passes must be removed, so the list only shrinks.

use super::Row;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct KnownMiss {
    /// Registry name of the comparison (`vcopy`, `latency`, ...).
    pub dataset: &'static str,
    pub gpu: &'static str,
    /// The row's case (`first`, `L2→DRAM step`, ...).
    pub case: &'static str,
    /// The start of the row's metric (metrics may carry the working set in their text).
    pub metric_prefix: &'static str,
    pub reason: &'static str,
    /// Whether the miss is a limit of the model, and so also expected when comparing another
    /// profile of the same run (`validate --profile`), rather than a property of this dataset's
    /// measurement (e.g. a virtual-function GPU).
    pub model_limit: bool,
}

pub const KNOWN_MISSES: &[KnownMiss] = &[
    KnownMiss { dataset: "vcopy", gpu: "mi100", case: "first", metric_prefix: "TCC_EA_WRREQ_sum", reason: "the first dispatch's count includes the end-of-kernel L2 write-back (single-pass profile: TCC_NORMAL_WRITEBACK 86872 + TCC_ALL_TC_OP_WB_WRITEBACK 43863 = every output line once), which the profiler's window catches for the first dispatch only (later: median 86622, max 131072); the model counts only the in-kernel evictions, and keeps more dirty lines until the end than the real L2 (see `later`)", model_limit: true },
    KnownMiss { dataset: "vcopy", gpu: "mi210", case: "first", metric_prefix: "TCC_EA_WRREQ_sum", reason: "as on MI100: the first dispatch's count includes the end-of-kernel L2 write-back (TCC_ALL_TC_OP_WB_WRITEBACK), which the profiler's window catches for the first dispatch only; the model counts only the in-kernel evictions", model_limit: true },
    KnownMiss { dataset: "vcopy", gpu: "mi100", case: "later", metric_prefix: "TCC_EA_WRREQ_sum", reason: "the real L2 evicts 66 % of the kernel's dirty lines during the kernel (TCC_NORMAL_WRITEBACK ~86.7k of 131072) although input and output together only fill it (8 MiB); the simulated 16-way LRU L2 evicts 37.5 %. One working-set size cannot tell replacement policy from effective capacity; a vcopy size sweep with TCC_NORMAL_WRITEBACK would", model_limit: true },
    KnownMiss { dataset: "vcopy", gpu: "mi210", case: "later", metric_prefix: "TCC_EA_WRREQ_sum", reason: "as on MI100: the real L2 evicts 70 % of the kernel's dirty lines during the kernel (TCC_WRITEBACK 45638 of 65536 128-byte lines), the simulated LRU L2 42 %; not identifiable from one working-set size", model_limit: true },
    KnownMiss { dataset: "vcopy", gpu: "mi210", case: "first", metric_prefix: "TCC_HIT_sum", reason: "about 7 % of read-request pairs to one 128-byte line are not merged by the real L2 (more hits); the model always merges them", model_limit: true },
    KnownMiss { dataset: "vcopy", gpu: "mi210", case: "later", metric_prefix: "TCC_HIT_sum", reason: "about 7 % of read-request pairs to one 128-byte line are not merged by the real L2 (more hits); the model always merges them", model_limit: true },
    KnownMiss { dataset: "vcopy", gpu: "mi300x", case: "later", metric_prefix: "duration_ns", reason: "the measured MI300X is an SR-IOV virtual function (13.8 µs; the rocpd MI300X run took 5.2-6.9 µs)", model_limit: false },
    KnownMiss { dataset: "latency", gpu: "mi210", case: "L2→DRAM step", metric_prefix: "cycles at 1.25", reason: "the real MI210 curve leaves the L2 plateau gradually from 4 MiB and is at DRAM latency by 12 MiB; the simulated 16-way LRU L2 still hits in some sets at 1.25 × the step (387 of 409 cycles)", model_limit: true },
    KnownMiss { dataset: "latency", gpu: "rx6900xt", case: "GL1→L2 step", metric_prefix: "cycles at 0.8", reason: "the real curve keeps GL1-like latency up to ~150 KiB (L0 and GL1 together, 16 + 128 KiB, as if exclusive); the simulated GL1 holds 128 KiB including the L0's lines", model_limit: true },
];

/// Bars of the product that no dataset row can show, with the reason (listed in the report).
pub const UNCOVERED: &[(&str, &str)] = &[
    ("pointer-chase latency on MI100", "no MI100 gpu-latency curve in `../shared/device-data` (gpu-benches has MI210 and RX 6900 XT, the SC25 artifact MI300X and MI325X); MI100 latency is not compared"),
    ("RX 6900 XT DRAM latency", "the measured figure (~1958 cycles) was taken with the memory clock idling (gpu-benches README) and is not compared"),
    ("vcopy duration on MI300X", "the profiled MI300X is an SR-IOV virtual function; the bare-metal rocpd run's 5.2-6.9 µs (no counters) is the better reference and is not yet a dataset"),
    ("timing-mode speed ≥ 1 M wave-instructions/s", "measured by `cargo bench -p hipscope-sim --bench timing`, not by a dataset (figures in README): met, narrowly for memory-bound vecCopy on the 304-CU MI300X (median 1.01 M/s, range 0.98-1.05)"),
];

/// How one row fares against the tolerance and the known-miss list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Ok,
    /// Outside the tolerance, and listed.
    KnownMiss(&'static KnownMiss),
    /// Outside the tolerance, not listed: a regression.
    Miss,
    /// Listed, but within the tolerance now: the entry must go.
    FixedKnownMiss(&'static KnownMiss),
}

impl Verdict {
    /// `ok` or `MISS` as the tables print it.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Ok | Verdict::FixedKnownMiss(_) => "ok",
            Verdict::KnownMiss(_) | Verdict::Miss => "MISS",
        }
    }

    /// Whether the row is a failure of the comparison (an unlisted miss or a stale entry).
    pub fn unexpected(self) -> bool {
        matches!(self, Verdict::Miss | Verdict::FixedKnownMiss(_))
    }
}

/// Case names match exactly, or as the start of a longer case followed by a space (a profile's
/// `later (dispatch 2)` is a `later` case).
fn case_matches(known: &str, case: &str) -> bool {
    case == known || case.strip_prefix(known).is_some_and(|rest| rest.starts_with(' '))
}

pub fn lookup(dataset: &str, row: &Row) -> Option<&'static KnownMiss> {
    KNOWN_MISSES.iter().find(|k| k.dataset == dataset && k.gpu == row.gpu && case_matches(k.case, &row.case) && row.metric.starts_with(k.metric_prefix))
}

/// Judge a row of the dataset's own comparison.
pub fn judge(dataset: &str, row: &Row) -> Verdict {
    verdict(row, lookup(dataset, row))
}

/// Judge a row of an imported profile compared like `dataset`: only the model's known limits
/// apply, not what is known about the dataset's particular measurement.
pub fn judge_profile(dataset: &str, row: &Row) -> Verdict {
    verdict(row, lookup(dataset, row).filter(|k| k.model_limit))
}

fn verdict(row: &Row, known: Option<&'static KnownMiss>) -> Verdict {
    match (row.ok(), known) {
        (true, None) => Verdict::Ok,
        (true, Some(k)) => Verdict::FixedKnownMiss(k),
        (false, Some(k)) => Verdict::KnownMiss(k),
        (false, None) => Verdict::Miss,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::Tolerance;

    fn row(gpu: &str, case: &str, metric: &str, ok: bool) -> Row {
        Row { gpu: gpu.into(), case: case.into(), metric: metric.into(), measured: 1.0, simulated: if ok { 1.0 } else { 2.0 }, tolerance: Tolerance::Exact }
    }

    #[test]
    fn verdicts() {
        assert_eq!(judge("vcopy", &row("mi100", "later", "TCC_EA_WRREQ_sum", false)).label(), "MISS");
        assert!(!judge("vcopy", &row("mi100", "later (dispatch 2)", "TCC_EA_WRREQ_sum", false)).unexpected());
        assert!(judge("vcopy", &row("mi100", "laterx", "TCC_EA_WRREQ_sum", false)).unexpected());
        assert!(judge("latency", &row("mi100", "later", "TCC_EA_WRREQ_sum", false)).unexpected());
        assert!(matches!(judge("vcopy", &row("mi100", "later", "TCC_EA_WRREQ_sum", true)), Verdict::FixedKnownMiss(_)));
        assert_eq!(judge("vcopy", &row("mi300a", "later", "TCC_MISS_sum", true)), Verdict::Ok);
        assert!(matches!(judge("vcopy", &row("mi300x", "later", "duration_ns", false)), Verdict::KnownMiss(_)));
        assert_eq!(judge_profile("vcopy", &row("mi300x", "later (dispatch 2)", "duration_ns", false)), Verdict::Miss);
        assert!(matches!(judge_profile("vcopy", &row("mi210", "later (dispatch 2)", "TCC_HIT_sum", false)), Verdict::KnownMiss(_)));
    }
}
