//! Options several subcommands share, each group declared once and flattened into the
//! commands' arguments with `#[command(flatten)]`, so that they read and check alike.

use super::CliError;
use hipscope_sim::sample::SamplePolicy;
use hipscope_sim::{Mode, Threads};
use std::path::PathBuf;

/// [`Mode`] as the command line spells it (`--mode functional|timing`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    /// Values only: every instruction executes, memory is sequentially consistent.
    Functional,
    /// Cycle-approximate timing: CU pipelines, caches holding data, counters.
    Timing,
}

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Mode {
        match m {
            ModeArg::Functional => Mode::Functional,
            ModeArg::Timing => Mode::Timing,
        }
    }
}

/// How the engine runs: `--mode`, `--seed` and `--threads` (`hipscope run`, `hipscope exec`).
#[derive(clap::Args)]
pub struct EngineArgs {
    #[arg(long, value_enum, default_value = "functional")]
    mode: ModeArg,
    /// Seed of the engine's choices among legal interleavings (same seed, same results).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Host threads a functional dispatch's work-groups may run on: a count (0: every core),
    /// or `auto` (per kernel and launch shape: the first launch on every core, the second on
    /// one, later ones the way that cost less per instruction). The result is bit-identical
    /// whatever the count.
    #[arg(long, default_value = "auto", value_parser = parse_threads)]
    threads: Threads,
}

fn parse_threads(s: &str) -> Result<Threads, String> {
    Threads::parse(s).ok_or_else(|| format!("expected a count of threads or `auto`, not `{s}`"))
}

impl EngineArgs {
    pub fn mode(&self) -> Mode {
        self.mode.into()
    }

    /// `--threads`.
    pub fn threads(&self) -> Threads {
        self.threads
    }
}

/// `--counters FILE.csv`: the timing model's counters, one row per dispatch.
#[derive(clap::Args)]
pub struct CountersArg {
    /// Performance counters as CSV, one row per dispatch or kernel launch (timing mode).
    #[arg(long, value_name = "FILE.csv")]
    pub counters: Option<PathBuf>,
}

impl CountersArg {
    /// Counters come from the timing model only: refuse the flag in functional mode.
    pub fn check(&self, mode: Mode) -> Result<(), CliError> {
        if self.counters.is_some() && !mode.is_timing() {
            return Err(CliError::BadInput("--counters: counters come from the timing model; add --mode timing".into()));
        }
        Ok(())
    }
}

/// `--workloads DIR` (`hipscope scopes`, `validate`, `sweep`).
#[derive(clap::Args)]
pub struct WorkloadsArg {
    /// The repository's workloads directory (code objects, specs) [default: ./workloads, else
    /// the one of the repository hipscope was built from].
    #[arg(long, value_name = "DIR")]
    pub workloads: Option<PathBuf>,
}

impl WorkloadsArg {
    /// The directory the option names, else the default one.
    pub fn locate(&self) -> Result<PathBuf, CliError> {
        super::locate(&self.workloads, "workloads", "--workloads")
    }
}

/// `--node NAME|FILE` (`hipscope run`, `hipscope exec`): a built-in node or a node file.
#[derive(clap::Args)]
pub struct NodeArg {
    /// Run on a node instead of a lone GPU: a built-in node (mi300x-8, mi300a-4,
    /// rx7900xtx-pcie; see `hipscope nodes`) or a node file (`configs/nodes/*.ron`). In timing
    /// mode, accesses to host-pinned and managed memory and to peer GPUs' memory travel the
    /// node's links.
    #[arg(long, value_name = "NAME|FILE", conflicts_with = "gpu")]
    pub node: Option<String>,
}

impl NodeArg {
    /// The node the option names, loaded and checked (`None` without the option).
    pub fn load(&self) -> Result<Option<hipscope_sim::node::Node>, CliError> {
        self.node.as_deref().map(|n| hipscope_sim::node::Node::load(n).map_err(|e| CliError::BadInput(e.to_string()))).transpose()
    }
}

/// `--sample` as the command line spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SampleArg {
    /// Every launch in full timing detail.
    Off,
    /// Every kind of sampling there is: kernels and work-groups.
    On,
    /// Kernel-level only: launches like ones already simulated are predicted from them.
    Kernels,
    /// Work-group level only: a long launch is simulated in detail until its rate settles,
    /// the rest runs functionally and its time is extrapolated.
    WorkGroups,
    /// Both kinds, and what they predict is not executed: a predicted launch is charged its
    /// prediction without running, a work-group-sampled launch's rest is extrapolated
    /// without running. Much faster; memory is then not what the program computes (results
    /// say how many launches and work-groups were not executed).
    Skip,
}

impl From<SampleArg> for SamplePolicy {
    fn from(s: SampleArg) -> SamplePolicy {
        match s {
            SampleArg::Off => SamplePolicy::OFF,
            SampleArg::On => SamplePolicy::ON,
            SampleArg::Kernels => SamplePolicy::KERNELS,
            SampleArg::WorkGroups => SamplePolicy::WORK_GROUPS,
            SampleArg::Skip => SamplePolicy::SKIP,
        }
    }
}

/// `--sample off|on|kernels|work-groups|skip` (`hipscope run`, `exec`, `validate`, `sweep`).
#[derive(clap::Args)]
pub struct SampleArgs {
    /// Sampled timing: like launches (same kernel, grid, block and buffer sizes) are
    /// simulated in detail until their times agree within 2 %, later ones run functionally and
    /// are charged that time (re-checked in detail 16 launches on, then up to 256 apart as
    /// the drift seen allows), and a program's warm-up (launches after it created a HIP event
    /// and before it recorded one, whose times nothing it reports depends on) runs functionally
    /// and untimed, the first launch of each kind, the memory-side cache seeing its accesses;
    /// within a long launch
    /// (work-groups), detail runs until the launch's completed-instruction rate settles, the rest runs
    /// functionally and its time is extrapolated. `on` does both. `skip` does both without
    /// executing what it predicts or extrapolates (memory is then not what the program
    /// computes; results say how many launches and work-groups were not executed). Results say
    /// what was predicted and the estimated error. Timing mode only. [default: off; `validate
    /// --only apps`: skip]
    #[arg(long, value_enum, value_name = "off|on|kernels|work-groups|skip")]
    pub sample: Option<SampleArg>,
}

impl SampleArgs {
    /// The policy asked for, else `default`.
    pub fn policy(&self, default: SamplePolicy) -> SamplePolicy {
        self.sample.map_or(default, SamplePolicy::from)
    }

    /// The policy for a run in `mode` (off unless asked for); sampling a functional run is
    /// refused, as it samples timing.
    pub fn for_mode(&self, mode: Mode) -> Result<SamplePolicy, CliError> {
        let policy = self.policy(SamplePolicy::OFF);
        if policy.any() && !mode.is_timing() {
            return Err(CliError::BadInput("--sample: sampling predicts simulated time; add --mode timing".into()));
        }
        Ok(policy)
    }
}
