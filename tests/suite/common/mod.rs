//! Shared by the tests that compare a dataset with real device measurements: where the data
//! lives, the SKIPPED rule, and the verdict of every row against the known-miss list.

use hipscope_sim::gpus::{self, GpuConfig};
use hipscope_studies::validate::known::{judge, Verdict};
use hipscope_studies::validate::Row;
use std::path::{Path, PathBuf};

/// (workloads directory, device-data directory), or `None` after printing `SKIPPED` when
/// `needed` (a file or directory under the device data) is missing.
pub fn dirs(needed: &str) -> Option<(PathBuf, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data = root.join("../shared/device-data");
    if !data.join(needed).exists() {
        println!("SKIPPED: {} not found (device measurements live outside the repository)", data.join(needed).display());
        return None;
    }
    Some((root.join("workloads"), data))
}

/// A built-in GPU config (the comparisons take the config to simulate).
pub fn builtin(name: &str) -> GpuConfig {
    gpus::builtin(name).unwrap_or_else(|e| panic!("{e}"))
}

/// Print every row (with the known-miss reason where one applies) and fail on any miss not in
/// `studies/src/validate/known.rs` and on a listed miss that now passes, so the list only shrinks.
pub fn check_rows(dataset: &str, rows: impl IntoIterator<Item = Row>) {
    let mut unexpected = Vec::new();
    for r in rows {
        let verdict = judge(dataset, &r);
        let known = match verdict {
            Verdict::KnownMiss(k) | Verdict::FixedKnownMiss(k) => format!(" (known: {})", k.reason),
            _ => String::new(),
        };
        println!(
            "{:<9} {:<14} {:<40} measured {:>10.1} simulated {:>10.1} {:>7.1} %  {}{known}",
            r.gpu,
            r.case,
            r.metric,
            r.measured,
            r.simulated,
            r.error_percent(),
            if r.ok() { "ok" } else { "MISS" }
        );
        match verdict {
            Verdict::Miss => unexpected.push(format!("{} {} {}: measured {:.1} simulated {:.1}", r.gpu, r.case, r.metric, r.measured, r.simulated)),
            Verdict::FixedKnownMiss(_) => {
                unexpected.push(format!("{} {} {} now passes: remove it from KNOWN_MISSES (studies/src/validate/known.rs)", r.gpu, r.case, r.metric))
            }
            _ => {}
        }
    }
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
}
