//! The metrics a plan collects, as written in its `metrics` list.

use hipscope_sim::counters::CounterName;
use std::fmt;

/// One metric.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Metric {
    /// Shader cycles of the workload's dispatches (summed).
    Cycles,
    /// Their duration at the GPU's clock, in microseconds.
    DurationUs,
    /// Wave-instructions executed.
    Instructions,
    Waves,
    /// A counter (rocprof name), summed over the dispatches: `counter:TCC_HIT_sum`.
    Counter(CounterName),
    /// A scope-suite row's median cycles: `scope:OP:SCOPE[:FOOTPRINT[:CONTENTION]]`
    /// (footprint in bytes, default 0; contention `one_wave` by default).
    Scope {
        op: String,
        scope: String,
        footprint: u64,
        contention: String,
    },
    /// Litmus: the fraction of runs in which the test's condition was seen.
    Observed,
}

/// Which kind of workload a metric belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Launch specs and HIP programs.
    Kernels,
    Scopes,
    Litmus,
}

impl Metric {
    pub fn parse(text: &str) -> Result<Metric, String> {
        let mut parts = text.split(':');
        let head = parts.next().unwrap_or_default();
        let rest: Vec<&str> = parts.collect();
        let plain = |m: Metric| if rest.is_empty() { Ok(m) } else { Err(format!("\"{text}\": {head} takes no arguments")) };
        match head {
            "cycles" => plain(Metric::Cycles),
            "duration_us" => plain(Metric::DurationUs),
            "instructions" => plain(Metric::Instructions),
            "waves" => plain(Metric::Waves),
            "observed" => plain(Metric::Observed),
            "counter" => match rest[..] {
                [name] if !name.is_empty() => CounterName::parse(name).map(Metric::Counter).ok_or_else(|| {
                    format!(
                        "\"{text}\": no counter is named {name} (see the counters of `hipscope run --counters`; RDNA GPUs name the L2's TCC_* counters GL2C_*)"
                    )
                }),
                _ => Err(format!("\"{text}\": write counter:NAME (a rocprof counter name)")),
            },
            "scope" => {
                let [op, scope, more @ ..] = &rest[..] else { return Err(format!("\"{text}\": write scope:OP:SCOPE[:FOOTPRINT[:CONTENTION]]")) };
                let footprint = match more.first() {
                    None => 0,
                    Some(f) => crate::plan::bytes_with_unit(f)
                        .or_else(|| f.parse().ok())
                        .ok_or_else(|| format!("\"{text}\": footprint \"{f}\" is not a byte count"))?,
                };
                if more.len() > 2 {
                    return Err(format!("\"{text}\": write scope:OP:SCOPE[:FOOTPRINT[:CONTENTION]]"));
                }
                let contention = more.get(1).map_or("one_wave", |c| c).to_string();
                check_scope_names(op, scope, footprint, &contention).map_err(|e| format!("\"{text}\": {e}"))?;
                Ok(Metric::Scope { op: op.to_string(), scope: scope.to_string(), footprint, contention })
            }
            _ => Err(format!(
                "\"{text}\": not a metric (cycles, duration_us, instructions, waves, counter:NAME, scope:OP:SCOPE[:FOOTPRINT[:CONTENTION]], observed)"
            )),
        }
    }

    pub fn source(&self) -> Source {
        match self {
            Metric::Scope { .. } => Source::Scopes,
            Metric::Observed => Source::Litmus,
            _ => Source::Kernels,
        }
    }

    /// An axis label with the unit.
    pub fn label(&self) -> String {
        match self {
            Metric::Cycles => "shader cycles".into(),
            Metric::DurationUs => "duration (µs)".into(),
            Metric::Instructions => "wave-instructions".into(),
            Metric::Waves => "waves".into(),
            Metric::Counter(n) => format!("{n} (count)"),
            Metric::Scope { op, scope, footprint, contention } => format!("{op} at {scope} scope, {footprint} B dirty, {contention} (cycles)"),
            Metric::Observed => "condition observed (fraction of runs)".into(),
        }
    }

    /// A few words for a bar's label: `fence_acq_rel agent`, `store_rel agent 64 KiB all_cus`.
    pub fn short(&self) -> String {
        match self {
            Metric::Scope { op, scope, footprint, contention } => {
                let mut s = format!("{op} {scope}");
                if *footprint > 0 {
                    s.push_str(&format!(" {}", crate::plot::bytes_label(*footprint as f64)));
                }
                if contention != "one_wave" {
                    s.push_str(&format!(" {contention}"));
                }
                s
            }
            Metric::Counter(n) => n.to_string(),
            other => other.to_string(),
        }
    }

    /// The unit plots share an axis by (metrics of one unit can be drawn together).
    pub fn unit(&self) -> &'static str {
        match self {
            Metric::Cycles | Metric::Scope { .. } => "cycles",
            Metric::DurationUs => "µs",
            Metric::Instructions | Metric::Waves | Metric::Counter(_) => "count",
            Metric::Observed => "fraction of runs",
        }
    }

    /// Whether smaller is better, so that a speed-up is base / value.
    pub fn is_time(&self) -> bool {
        matches!(self, Metric::Cycles | Metric::DurationUs | Metric::Scope { .. })
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Metric::Cycles => f.write_str("cycles"),
            Metric::DurationUs => f.write_str("duration_us"),
            Metric::Instructions => f.write_str("instructions"),
            Metric::Waves => f.write_str("waves"),
            Metric::Counter(n) => write!(f, "counter:{n}"),
            Metric::Scope { op, scope, footprint, contention } => write!(f, "scope:{op}:{scope}:{footprint}:{contention}"),
            Metric::Observed => f.write_str("observed"),
        }
    }
}

/// Where a ping-pong partner runs: the contentions of `ping_pong` rows (which of them a GPU
/// has depends on its XCDs).
pub const PING_PONG_PLACEMENTS: [&str; 3] = ["other_cu", "same_xcd", "other_xcd"];

/// The scope suite has a row of these names: the operation measured at that scope, one of the
/// suite's footprints (ping-pong rows have none: 0), a contention (a placement for ping-pong).
fn check_scope_names(op: &str, scope: &str, footprint: u64, contention: &str) -> Result<(), String> {
    use hipscope_studies::scopes::{scopes_of, Contention, Scope, FOOTPRINTS, OPS, PING_PONG_SCOPES, SCOPES};
    let found = OPS.iter().find(|o| o.name == op);
    if op != "ping_pong" && found.is_none() {
        let names: Vec<&str> = OPS.iter().map(|o| o.name).collect();
        return Err(format!("no operation \"{op}\" in the scope suite ({}, ping_pong)", names.join(", ")));
    }
    let Some(s) = SCOPES.iter().find(|s| s.name() == scope) else {
        return Err(format!("no scope \"{scope}\" (wavefront, workgroup, agent, system)"));
    };
    let measured_at: &[Scope] = found.map_or(&PING_PONG_SCOPES[..], scopes_of);
    if !measured_at.contains(s) {
        let names: Vec<&str> = measured_at.iter().map(|s| s.name()).collect();
        return Err(format!("the suite measures {op} at {} scope only", names.join(", ")));
    }
    let footprints: &[u64] = if found.is_some() { &FOOTPRINTS } else { &[0] };
    if !footprints.contains(&footprint) {
        let all: Vec<String> = footprints.iter().map(u64::to_string).collect();
        return Err(format!("the suite measures {op} with {} bytes dirty, not {footprint}", all.join(", ")));
    }
    let known = if found.is_some() { Contention::ALL.iter().any(|c| c.name() == contention) } else { PING_PONG_PLACEMENTS.contains(&contention) };
    if !known {
        return Err(format!("no contention \"{contention}\" (one_wave, one_workgroup, all_cus; ping_pong: other_cu, same_xcd, other_xcd)"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_parse_and_print_back() {
        for text in
            ["cycles", "duration_us", "counter:TCC_HIT_sum", "counter:GL2C_MISS_sum", "counter:SQ_WAVES", "observed", "scope:fence_acq_rel:agent:0:one_wave"]
        {
            assert_eq!(Metric::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(
            Metric::parse("scope:fence_rel:system:1 MiB").unwrap(),
            Metric::Scope { op: "fence_rel".into(), scope: "system".into(), footprint: 1 << 20, contention: "one_wave".into() }
        );
        for bad in [
            "speed",
            "cycles:x",
            "counter:",
            "counter:TCC_HIT",
            "counter:GL2C_WAVES",
            "scope:fence",
            "scope:jump:agent",
            "scope:fence_rel:galaxy",
            "scope:fence_rel:agent:lots",
            "scope:fence_rel:agent:4096",
            "scope:syncthreads:agent",
            "scope:ping_pong:wavefront:0:other_cu",
            "scope:ping_pong:agent:0:one_wave",
            "scope:fence_rel:agent:0:same_xcd",
        ] {
            assert!(Metric::parse(bad).is_err(), "{bad}");
        }
        let e = Metric::parse("counter:TCC_HITS_sum").unwrap_err();
        assert!(e.contains("no counter is named TCC_HITS_sum"), "{e}");
    }
}
