//! Which engine runs a launch: the functional one (values only) or the timing one (values,
//! cycles and counters). One type for every client: launch specs, the HIP runtime, sweeps and
//! the command line all name the choice with it.

use serde::{Deserialize, Serialize};

/// Functional or timing simulation. Sweep plans write it as `Functional` / `Timing` (RON);
/// the command line and `HIPSCOPE_MODE` as `functional` / `timing` ([`Mode::name`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Mode {
    /// Values only: every instruction executes, memory is sequentially consistent.
    #[default]
    Functional,
    /// Cycle-approximate timing: CU pipelines, caches holding data, counters.
    Timing,
}

impl Mode {
    /// Both modes, functional first.
    pub const ALL: [Mode; 2] = [Mode::Functional, Mode::Timing];

    /// The lower-case name reports and `HIPSCOPE_MODE` use.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Functional => "functional",
            Mode::Timing => "timing",
        }
    }

    /// Timing where `timing` (a yes/no flag such as `hipscope grade --timing`), else functional.
    pub fn with_timing(timing: bool) -> Mode {
        if timing {
            Mode::Timing
        } else {
            Mode::Functional
        }
    }

    /// Whether the timing engine runs (cycles and counters are measured).
    pub fn is_timing(self) -> bool {
        self == Mode::Timing
    }

    /// The mode of that lower-case name.
    pub fn parse(name: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.name() == name)
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::Mode;

    #[test]
    fn names_round_trip_and_nothing_else_parses() {
        for m in Mode::ALL {
            assert_eq!(Mode::parse(m.name()), Some(m));
        }
        assert_eq!(Mode::parse("Timing"), None, "the lower-case name only");
        assert_eq!(Mode::parse(""), None);
    }

    #[test]
    fn ron_spelling_is_the_variant_name() {
        assert_eq!(ron::from_str::<Mode>("Timing").ok(), Some(Mode::Timing));
        assert_eq!(ron::from_str::<Mode>("Functional").ok(), Some(Mode::Functional));
        assert!(ron::from_str::<Mode>("timing").is_err());
        assert_eq!(ron::to_string(&Mode::Timing).ok().as_deref(), Some("Timing"));
    }
}
