//! Memory stress beside a litmus test, as GPU litmus runners apply it: work-groups that run no
//! litmus thread hammer a few scratch lines while the test's threads run, so that the test's
//! requests meet queues the stress fills (Sorensen and Donaldson, PLDI'16, "Exposing errors
//! related to weak memory in GPU applications"; the parameters below follow the stress
//! parameters of MC Mutants, ASPLOS'23, and GPUHarbor, ISSTA'23: stress work-groups are the
//! dispatch's non-testing work-groups, each hammering one of `stressTargetLines` lines
//! `stressLineSize` apart with a two-access pattern — store-store, store-load, load-store or
//! load-load — for a number of iterations).
//!
//! Here a stress work-group's first wave (lane 0, like a litmus thread) hammers line
//! `g mod lines` (g: its dispatch index). The lines start in the L2 channel after the test's
//! last location and lie `stride_bytes` apart: at the default 256-byte stride (every built-in
//! GPU's channel interleave, `configs/*.ron`) each line is in a channel of its own, none of
//! them a test location's.

use std::fmt;

/// The two accesses of one stress iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    StoreStore,
    StoreLoad,
    LoadStore,
    LoadLoad,
}

impl Pattern {
    const ALL: [(&'static str, Pattern); 4] =
        [("store-store", Pattern::StoreStore), ("store-load", Pattern::StoreLoad), ("load-store", Pattern::LoadStore), ("load-load", Pattern::LoadLoad)];

    /// Whether the first and the second access are stores.
    pub fn stores(self) -> [bool; 2] {
        match self {
            Pattern::StoreStore => [true, true],
            Pattern::StoreLoad => [true, false],
            Pattern::LoadStore => [false, true],
            Pattern::LoadLoad => [false, false],
        }
    }

    pub fn name(self) -> &'static str {
        Pattern::ALL.iter().find(|(_, p)| *p == self).map_or("?", |(n, _)| n)
    }
}

/// Stress parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stress {
    /// Stress work-groups in the dispatch (beside the test's own).
    pub groups: u32,
    /// Scratch lines they hammer.
    pub lines: u32,
    /// Bytes between two lines.
    pub stride_bytes: u32,
    pub pattern: Pattern,
    /// Iterations of the pattern per stress wave.
    pub iterations: u32,
}

/// `--stress default`: a fixed set, chosen (not tuned per GPU, as the papers' runners tune
/// theirs) so that the stress spans the test: 16 work-groups, spread by the dispatcher over
/// the CUs (and XCDs), each of 64 iterations of a store and a load, i.e. about as long as a
/// litmus thread's widest start delay plus its accesses on every built-in GPU, on 4 lines in 4
/// channels of their own.
pub const DEFAULT: Stress = Stress { groups: 16, lines: 4, stride_bytes: 256, pattern: Pattern::StoreLoad, iterations: 64 };

/// Bounds that keep a run's cost and the kernel's code small.
pub const MAX_GROUPS: u32 = 128;
pub const MAX_LINES: u32 = 16;
pub const MAX_STRIDE_BYTES: u32 = 1 << 20;
pub const MAX_ITERATIONS: u32 = 4096;

impl fmt::Display for Stress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "groups={},lines={},stride={},pattern={},iterations={}", self.groups, self.lines, self.stride_bytes, self.pattern.name(), self.iterations)
    }
}

/// `default`, `none`, or `key=value,…` over the default set (keys: groups, lines, stride,
/// pattern, iterations). `Ok(None)`: no stress.
pub fn parse(text: &str) -> Result<Option<Stress>, String> {
    match text.trim() {
        "none" => return Ok(None),
        "default" => return Ok(Some(DEFAULT)),
        _ => {}
    }
    let mut s = DEFAULT;
    for part in text.split(',') {
        let (key, value) = part.split_once('=').ok_or_else(|| format!("`{part}` is not key=value (keys: groups, lines, stride, pattern, iterations)"))?;
        let (key, value) = (key.trim(), value.trim());
        let number = |lo: u32, hi: u32| -> Result<u32, String> {
            let n: u32 = value.parse().map_err(|_| format!("{key}={value}: not a whole number"))?;
            if n < lo || n > hi {
                return Err(format!("{key}={n}: must be {lo} to {hi}"));
            }
            Ok(n)
        };
        match key {
            "groups" => s.groups = number(1, MAX_GROUPS)?,
            "lines" => s.lines = number(1, MAX_LINES)?,
            "stride" => {
                s.stride_bytes = number(4, MAX_STRIDE_BYTES)?;
                if s.stride_bytes % 4 != 0 {
                    return Err(format!("stride={}: must be a multiple of 4 bytes", s.stride_bytes));
                }
            }
            "iterations" => s.iterations = number(1, MAX_ITERATIONS)?,
            "pattern" => {
                s.pattern = Pattern::ALL.iter().find(|(n, _)| *n == value).map(|(_, p)| *p).ok_or_else(|| {
                    let names: Vec<&str> = Pattern::ALL.iter().map(|(n, _)| *n).collect();
                    format!("pattern={value}: unknown (known: {})", names.join(", "))
                })?
            }
            _ => return Err(format!("unknown key `{key}` (keys: groups, lines, stride, pattern, iterations)")),
        }
    }
    Ok(Some(s))
}

/// The stress work-groups' dispatch indices: the first `groups` indices no litmus work-group
/// takes (`litmus`: theirs).
pub fn groups_beside(litmus: &[u32], groups: u32) -> Vec<u32> {
    (0u32..).filter(|g| !litmus.contains(g)).take(groups as usize).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_override_the_default_and_bad_ones_are_named() {
        let s = parse("pattern=load-store,groups=3").unwrap().unwrap();
        assert_eq!((s.pattern, s.groups, s.lines), (Pattern::LoadStore, 3, DEFAULT.lines));
        assert_eq!(parse("none").unwrap(), None);
        assert_eq!(parse(&DEFAULT.to_string()).unwrap(), Some(DEFAULT));
        for (bad, names) in
            [("groups=0", "groups=0"), ("lines=x", "lines=x"), ("stride=6", "stride=6"), ("pattern=st", "pattern=st"), ("speed=2", "speed"), ("heavy", "heavy")]
        {
            let e = parse(bad).unwrap_err();
            assert!(e.contains(names) && !e.contains('\n'), "{bad}: {e}");
        }
    }

    #[test]
    fn stress_groups_skip_the_tests_own() {
        assert_eq!(groups_beside(&[0, 104], 3), vec![1, 2, 3]);
        assert_eq!(groups_beside(&[1, 2], 2), vec![0, 3]);
    }
}
