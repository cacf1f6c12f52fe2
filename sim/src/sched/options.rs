//! What a client sets for a run: scheduling and safety limits, and where progress goes.

use crate::progress;

/// Cycles without progress after which the timing engine's watchdog stops a run, unless told
/// otherwise.
pub const DEFAULT_WATCHDOG_CYCLES: u64 = 10_000_000;

/// Cycles (timing) or wave-instructions (functional) without progress before a dispatch stops
/// with "no progress" ([`EngineOptions::no_progress`]) where a client turns the bound on by
/// default (`grade --spec/--exec`).
pub const DEFAULT_NO_PROGRESS: u64 = 10_000_000;

/// Scheduling and safety limits.
#[derive(Debug, Clone, Copy)]
pub struct EngineOptions {
    /// Chooses among legal interleavings.
    pub seed: u64,
    /// Work-groups resident at once.
    pub max_resident_groups: usize,
    /// A wave executing more instructions than this is a runaway loop (a kernel fault).
    pub max_wave_instructions: u64,
    /// Most instructions a wave runs before the scheduler picks again.
    pub quantum: u32,
    /// Timing mode: cycles without an instruction issued or a wave ended before the watchdog
    /// stops the dispatch with a kernel fault (0: never).
    pub watchdog_cycles: u64,
    /// Instructions a wave runs after the last visible change before it is checked for a
    /// repeating state (livelock detection, [`crate::progress`]; 0: no detection).
    pub livelock_check_after: u64,
    /// No progress bound (`--no-progress-cycles`): the dispatch stops with a "no progress"
    /// fault when nothing visible changed ([`crate::progress`]) for this many cycles (timing)
    /// or dispatch wave-instructions (functional), although not every wave was proven to
    /// loop (a spin that counts its polls). A bound, not a proof; 0: no bound.
    pub no_progress: u64,
    /// The dispatch stops with a kernel fault after this many wave-instructions
    /// (`--max-instructions`; `u64::MAX`: no limit).
    pub max_instructions: u64,
    /// Timing mode: the dispatch stops with a kernel fault after this many cycles
    /// (`--max-cycles`; `u64::MAX`: no limit).
    pub max_cycles: u64,
    /// Work-groups finished, counted as they finish, for a progress display that another
    /// thread reads (the engines only add to it).
    pub progress: Option<&'static RunProgress>,
    /// Host threads the functional engine may run a dispatch's work-groups on (`--threads`;
    /// 1: one). The thread count never changes a result ([`crate::engine`] says why).
    pub threads: usize,
    /// `--threads auto`: run each dispatch on `threads` threads or on one, as launches of the
    /// same kernel and shape before it ran faster (`engine::auto`); false: on `threads`.
    pub threads_auto: bool,
    /// Timing mode: simulate a long dispatch in detail only until its rate is stable, then
    /// fast-forward the rest functionally and extrapolate its cycles ([`super::sample`]);
    /// `None`: every dispatch in full detail.
    pub work_group_sampling: Option<super::WorkGroupSampling>,
    /// Set only by work-group sampling on the functional engine's continuation of a sampled
    /// dispatch (clients leave it `None`): a wave whose PC leaves this range (first and last
    /// address, the loop the detailed windows ran) stops there and goes back to the timing
    /// engine ([`super::sample`]).
    pub pc_stop: Option<(u64, u64)>,
}

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        EngineOptions {
            seed: 0,
            max_resident_groups: 32,
            max_wave_instructions: 50_000_000,
            quantum: 64,
            watchdog_cycles: DEFAULT_WATCHDOG_CYCLES,
            livelock_check_after: progress::DEFAULT_CHECK_AFTER,
            // Off unless asked for: legal bounded spins (a reader giving up after 2^16 polls of
            // a stale flag) run longer than any default; `grade` asks for DEFAULT_NO_PROGRESS.
            no_progress: 0,
            max_instructions: u64::MAX,
            max_cycles: u64::MAX,
            progress: None,
            threads: 1,
            threads_auto: false,
            work_group_sampling: None,
            pc_stop: None,
        }
    }
}

/// How far a run is, for a display on another thread: the work-groups of all its dispatches
/// and how many have finished.
#[derive(Debug, Default)]
pub struct RunProgress {
    pub groups_total: std::sync::atomic::AtomicU64,
    pub groups_done: std::sync::atomic::AtomicU64,
}

/// A work-group finished: tell the progress display.
pub(crate) fn count_group(opts: &EngineOptions) {
    if let Some(p) = opts.progress {
        p.groups_done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// `--threads` / `HIPSCOPE_THREADS`: the host threads a functional dispatch may run on. The
/// count never changes a result (`engine` says why), only how fast a dispatch runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Threads {
    /// Every core or one, per kernel and launch shape as its launches so far ran faster
    /// (`engine::auto`: the first on every core, the second on one).
    Auto,
    /// This many (0: every core).
    Fixed(usize),
}

impl Threads {
    /// `auto`, or a count.
    pub fn parse(s: &str) -> Option<Threads> {
        match s {
            "auto" => Some(Threads::Auto),
            n => n.parse().ok().map(Threads::Fixed),
        }
    }

    /// The threads a dispatch may use at most.
    pub fn count(self) -> usize {
        match self {
            Threads::Fixed(n) if n > 0 => n,
            _ => std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }

    /// `opts` with these threads.
    pub fn apply(self, opts: EngineOptions) -> EngineOptions {
        EngineOptions { threads: self.count(), threads_auto: self == Threads::Auto, ..opts }
    }
}

/// One thread, as [`EngineOptions::default`]: what the library does unless asked (the
/// command line and the HIP runtime default to [`Threads::Auto`]).
impl Default for Threads {
    fn default() -> Threads {
        Threads::Fixed(1)
    }
}

impl std::fmt::Display for Threads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Threads::Auto => write!(f, "auto"),
            Threads::Fixed(n) => write!(f, "{n}"),
        }
    }
}
