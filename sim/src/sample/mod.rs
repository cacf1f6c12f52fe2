//! Sampled timing at the level of kernel launches: which launches of a timing run are
//! simulated in detail and which run functionally and are charged a predicted time.
//!
//! The idea (from the sampling literature on GPU simulation: cluster the launches of a program,
//! simulate a few of each cluster in detail, predict the rest): launches of the same kernel
//! (symbol and entry address) with the same grid, block, dynamic LDS and argument shape (the
//! size of the allocation each pointer argument points into; scalar values are left out, so
//! that a loop passing its counter — a Floyd–Warshall step, a bitonic stage — stays one
//! cluster) form a [`ClusterKey`]. A cluster runs in detail until the mean of its last
//! detailed times is known: at least [`WINDOW`] of them (up to [`WINDOW_MAX`]), [`Z`] standard
//! errors of their mean within [`TOLERANCE`] of it, and the means of the window's older and
//! newer halves within [`TOLERANCE`] of each other (times older than such a trend, caches
//! warming up, are dropped). A scatter launch to launch larger than the tolerance is no
//! reason to stay in detail when the mean is known (measured: floydwarshall 512 on mi300a
//! scatters ±3 % around a steady mean; the rule "every time of a window of five within 2 %
//! of the mean", used before, kept 112 of its 1 024 launches in detail, floydwarshall 1024
//! 228 of 2 048 (155 s of CPU with `skip`); this one 17 and 82 (66 s)). From then on its launches are predicted (charged that mean), except for
//! re-checks, which run in detail again. A re-check has *moved* when it, or the mean of the
//! stable period's re-checks with it, lies further from the prediction than the tolerance
//! and than [`Z`] standard deviations of the window's scatter (of one time; of that mean);
//! the next launch then runs in detail too, and if it moved as well the cluster is unstable
//! and runs in detail until a new window settles (data-dependent kernels, caches warming
//! up); if it did not, the one that moved was a launch that found the caches cold (the first
//! after a copy, or after launches `skip` did not execute) and the prediction stands. The
//! first re-check comes [`RECHECK_EVERY`] launches after the window; each re-check that
//! agrees may double the distance to the next, up to [`RECHECK_MAX`], as far as the drift
//! seen so far allows (below): a long stable cluster (floydwarshall's thousands of passes)
//! needs few detailed launches, a drifting one keeps being looked at.
//!
//! The estimated error ([`SampleSummary::error_percent`]). A cluster's predicted launches are
//! each charged the prediction `p`, the mean of a window of `n_w` detailed times. Take a
//! launch's true time as `t = μ + e`, `e` of standard deviation `σ`: over `N` predicted
//! launches the charge `N·p` misses the true total by `N·(p − μ) − Σ e`, whose standard
//! deviation is `N·p·σ_r·√(1/n_w + 1/N)` with `σ_r = σ/p` — the standard error of the mean the
//! prediction is (`1/n_w`) and the launches' own scatter, which partly cancels over `N`
//! (`1/N`). `σ_r` is estimated from every detailed time the cluster's predictions were
//! checked against: each window sample's relative deviation from the window's mean, and each
//! re-check's from the prediction it checked (so a cluster seen to drift carries that drift);
//! `n` counts those deviations, `σ_r = √(Σ d² / (n − 1))`; the prediction's own error shrinks
//! with its window's `n_w` only (re-checks sharpen `σ_r`, they do not move the prediction), so
//! with several predictions the cluster's standard error is `σ_r·√((Σ p/√n_w)² + Σ p²)` over
//! its predicted launches. The run's estimate is
//! `Z · Σ_clusters N·p·σ_r·√(1/n_w + 1/N) / total cycles`: each cluster's standard error weighted
//! by its predicted share of the run's time, summed (not added in quadrature: clusters of one
//! program share its cache state, so their errors need not be independent), with [`Z`] = 3,
//! about a 99 % interval for a normal error and 95 % for Student's t with four degrees of
//! freedom (a cluster predicted after one window of five has only those).
//!
//! The drift term. The standard error above treats the deviations as independent noise that
//! averages out over `N` launches; a time that drifts between two detailed launches does not
//! average out, and the further a predicted launch lies from the last detailed one, the more
//! drift it may carry unseen (measured: floydwarshall 64 re-checked every 256th launch came
//! out 1.2 % from full simulation against a noise-only estimate of ±0.7 %). Each detailed
//! launch of a predicted cluster is a checkpoint: its signed relative deviation `d` from the
//! prediction at the cluster's launch count `x` (the window's mean counts as `d = 0` at the
//! window's middle). `δ` is the magnitude of the least-squares slope of `d` against `x` over
//! the stable period's checkpoints plus one standard error of that slope (the window's
//! scatter `σ_w` over `√Σ(x − x̄)²`); before the first re-check, the slope of the window's
//! times. Noise makes the slope up to about its standard error, which shrinks as the
//! checkpoints spread out: the differences of successive checkpoints, used before, charged
//! every re-check's noise over its distance as drift, so that a cluster scattering ±1.5 %
//! never had its re-checks more than 16 launches apart. A predicted launch `k`
//! launches after the cluster's last detailed one may be off by `δ·k` of its charge `p`,
//! all in one direction: the term adds `δ · Σ p·k` over the predicted launches, unreduced by
//! `N`. A cluster's error is `Z · (N·p·σ_r·√(1/n_w + 1/N) + δ·Σ p·k)`: the drift term is
//! multiplied by [`Z`] like a standard error though noise already inflates it, which makes
//! the estimate conservative (floydwarshall 384 on mi300a: ±5.2 %). The same `δ` sets the
//! distance to the next re-check: at most `TOLERANCE / δ` launches, so that drift at the
//! measured rate stays within the tolerance before it is checked.
//!
//! Work-group sampling's error. A detailed launch whose rest work-group sampling extrapolated
//! has an estimated error of its own ([`crate::sched::Sampled::error_pct`], already [`Z`]
//! standard errors of the rate); the run's estimate adds it for that launch, and for each
//! predicted launch of the cluster the largest such error seen times its charge (the
//! prediction is a mean of such times and may carry their error), summed, not in quadrature.
//!
//! The estimate replaces the
//! largest deviation ever seen, charged to every predicted launch, which printed ±22.9 %,
//! ±7.0 % and ±9.4 % for floydwarshall 256, bitonicsort 65536 and fastwalshtransform 1M on
//! mi300a whose sampled times were measured +0.07 %, +0.03 % and +0.12 % from full
//! simulation. What it cannot see: error the detailed samples never show (a cache state that
//! only predicted launches would have); the re-checks are the guard against that. Nor, with
//! `skip`, what launches not executed would have done to the data: a kernel whose time
//! depends on the data its earlier launches computed keeps the time of data that stopped
//! changing (measured: floydwarshall 512 on mi300a, whose passes write less as the distances
//! converge, 17 detailed launches of 1 024 came out 7.0 % above full simulation; sampled with
//! `kernels`, memory exact, 0.65 % above, in 12.7 s of CPU against 214 s in full detail).
//!
//! Warm-up launches. A program that times its kernels with HIP events has created an event
//! and not yet recorded one while it warms up (a benchmark's untimed first pass): nothing it
//! reports depends on those launches' times, only on the data and cache contents they leave.
//! The runtime says when a launch is such a warm-up ([`Sampler::decide_warm_up`]); the first
//! [`FUNCTIONAL_WARM_UPS`] warm-up launches of a cluster run functionally with the
//! memory-side cache (MALL) seeing their accesses, as a work-group-sampled launch's
//! fast-forwarded part does ([`crate::sched::Touched`]), untimed (no cycles) and not
//! recorded; later ones are sampled as any launch (a kernel launched thousands of times while
//! warming up forms its window there, and is cheaper predicted than run). Functionally, every
//! instruction runs, where detail with `skip` may probe a few work-groups of a long one-round
//! kernel and extrapolate the rest: with `skip` a warm-up stops after the work-group sampler's
//! `functional_max_instructions` (what it did not start is counted as not executed), and its
//! kernel's later warm-ups are sampled. Measured on mi300a with `skip` (one warm-up pass and
//! one timed one): stencil2d 8192 25.7 → 19.0 CPU-s, nw 8192 65 → 40, pagerank 16384 40 →
//! 31, the timed times within 0.5 % of the runs with detailed warm-ups. What it misses: the
//! L2s' contents a detailed warm-up would leave (the functional engine does not know which
//! XCD an access came from), so a timed launch that would have hit in an L2 what the warm-up
//! left there misses to the MALL; the estimated error does not include that. A GPU without a
//! MALL has no warm-ups (its launches are sampled as timed ones): there a functional warm-up
//! leaves the last-level cache cold (nw 512 on mi210: 0.8254 ms against 0.6349 in full detail).
//!
//! Everything here is a function of the order of launches and their detailed times, so a
//! sampled run is as deterministic as a full one. The engine-side part (running a predicted
//! launch functionally and keeping the caches' bytes right) is in [`crate::launch`].

use std::collections::BTreeMap;

/// Detailed times a cluster needs at least, their mean known within [`TOLERANCE`], before
/// it is predicted. Five, not one: the first launches of a kernel find colder caches than the ones
/// after them (data just copied in), and a launch run functionally warms no cache, so the
/// caches must warm through detailed launches before any is predicted. Measured on
/// floydwarshall (256 nodes, mi300a): the first five launches take 7175, 6530, 6503, 6484 and
/// 6416 cycles, the rest about 5750; a window of three agreed on the warming 6506 and
/// predicted 13 % too much.
pub const WINDOW: usize = 5;

/// The most detailed times a window keeps: a cluster whose launches scatter (another
/// launch's cache contents, a data-dependent loop) needs more than [`WINDOW`] for their mean
/// to be known within [`TOLERANCE`], `(Z·σ / TOLERANCE)²` of them; 32 admits a scatter σ of
/// up to about 3.7 %, and a cluster scattering more stays in detail.
pub const WINDOW_MAX: usize = 32;

/// How far (relative) the detailed times of a cluster may stray from their mean for it to be
/// predicted, and how far a re-check may stray from the prediction before the cluster runs in
/// detail again. 2 %: the error sampling may add to a program's time is bounded by this times
/// the share of predicted launches, and the bar for sampled against full simulation is 2 %
/// WMAPE (issue 35), so a cluster that cannot hold 2 % stays in detail.
pub const TOLERANCE: f64 = 0.02;

/// Every this many launches of a predicted cluster, one runs in detail again, so that a
/// cluster whose time drifts (other data, other cache contents) is re-sampled. 16 keeps
/// the detailed share of a long stable cluster near 1/16 (a speed-up of about 10x at most
/// when a detailed launch costs 10x a functional one and more otherwise).
pub const RECHECK_EVERY: u64 = 16;

/// The longest distance between re-checks of a cluster whose re-checks keep agreeing: 256, so
/// that a cluster of thousands of launches (floydwarshall's passes over thousands of nodes) is
/// still looked at a few dozen times, while its detailed share falls to about 1/256.
pub const RECHECK_MAX: u64 = 256;

/// Warm-up launches of a cluster that run functionally and untimed (module documentation,
/// *Warm-up launches*): a window's worth, so that a program launching one kernel a few times
/// per pass (pagerank's two iterations) warms up functionally; later ones are sampled as timed
/// launches are, so that a kernel launched thousands of times while warming up
/// (floydwarshall's passes) forms its window there. Measured (mi300a, `skip`): one instead of
/// five changed floydwarshall 1024 by 4 % of its CPU time and left pagerank one detailed
/// warm-up launch.
pub const FUNCTIONAL_WARM_UPS: u64 = WINDOW as u64;

/// Standard errors in the estimated error ([`SampleSummary::error_percent`]; the module
/// documentation derives it): 3, a 95 % interval for Student's t with the four degrees of
/// freedom of a single window of [`WINDOW`] samples (2.78) rounded up.
pub const Z: f64 = 3.0;

/// What a run samples (`--sample`): launches by cluster ([`Sampler`]), and work-groups within
/// a long launch (the timing engine's [`crate::sched::WorkGroupSampling`], which `on` and
/// `work-groups` switch on with its defaults).
///
/// `skip` (`--sample skip`: both levels, and what they predict is not executed): a predicted
/// launch is charged its prediction without running at all, and a work-group-sampled launch
/// extrapolates the rest of the dispatch without running it (as samplers that only estimate
/// time do). Memory then is not what the program computes — every summary counts the launches
/// and work-groups not executed ([`SampleSummary::line`]) — and a program whose control flow
/// reads what a skipped launch would have written follows other data (it must not fault on
/// it: the launches it makes still run in bounds of their own arguments, but their number may
/// differ). The default policies execute everything.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SamplePolicy {
    pub kernels: bool,
    pub work_groups: bool,
    /// Predicted launches and extrapolated work-groups are not executed.
    #[serde(default)]
    pub skip: bool,
}

impl SamplePolicy {
    /// No sampling: every launch in full detail.
    pub const OFF: SamplePolicy = SamplePolicy { kernels: false, work_groups: false, skip: false };
    /// Kernel-level sampling only.
    pub const KERNELS: SamplePolicy = SamplePolicy { kernels: true, work_groups: false, skip: false };
    /// Work-group-level sampling only ([`crate::sched::WorkGroupSampling`]).
    pub const WORK_GROUPS: SamplePolicy = SamplePolicy { kernels: false, work_groups: true, skip: false };
    /// Every kind of sampling there is.
    pub const ON: SamplePolicy = SamplePolicy { kernels: true, work_groups: true, skip: false };
    /// Every kind of sampling, and what is predicted is not executed.
    pub const SKIP: SamplePolicy = SamplePolicy { kernels: true, work_groups: true, skip: true };

    /// The policy's name as `--sample` and `HIPSCOPE_SAMPLE` spell it.
    pub fn name(self) -> &'static str {
        match (self.kernels, self.work_groups, self.skip) {
            (false, false, _) => "off",
            (true, false, _) => "kernels",
            (false, true, _) => "work-groups",
            (true, true, false) => "on",
            (true, true, true) => "skip",
        }
    }

    /// The policy a name spells (`off`, `on`, `kernels`, `work-groups`, `skip`).
    pub fn parse(name: &str) -> Option<SamplePolicy> {
        match name {
            "off" => Some(SamplePolicy::OFF),
            "on" => Some(SamplePolicy::ON),
            "kernels" => Some(SamplePolicy::KERNELS),
            "work-groups" => Some(SamplePolicy::WORK_GROUPS),
            "skip" => Some(SamplePolicy::SKIP),
            _ => None,
        }
    }

    pub fn any(self) -> bool {
        self.kernels || self.work_groups
    }
}

/// What makes launches one cluster: the kernel, the launch geometry and the argument shape.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ClusterKey {
    pub kernel: String,
    /// The kernel's entry address: the same symbol in two code objects is two kernels.
    pub entry: u64,
    /// The grid, in work-items. Launches whose grid changes from launch to launch (nw's one
    /// launch per anti-diagonal) are not one cluster even where they load each compute unit
    /// alike: measured on nw 1024 (mi300a), keying by the work-groups per compute unit put
    /// both passes' 62 launches of 1 work-group per CU into two clusters whose times agreed
    /// within 2 % in the warm-up pass (about 51 k cycles each); the predicted launches warm no
    /// cache, so the timed pass's detailed launches found the tiles cold (51 k cycles against
    /// 38 k in full simulation) and the program's time came out +30 % with an estimated
    /// ±11.8 %. Each launch of such a kernel touches data no launch before it did, which a
    /// prediction cannot bring into the caches.
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_lds: u32,
    /// Per user argument: the size of the allocation it points into, or 0 for a value that is
    /// no pointer into one.
    pub arg_shape: Vec<u64>,
}

/// How a launch is to run.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// In full timing detail; its time is recorded with [`Sampler::record`].
    Detailed,
    /// Functionally, charged these cycles and the counters of the cluster's last detailed
    /// launch.
    Predicted { cycles: u64 },
    /// A warm-up launch ([`Sampler::decide_warm_up`]): functionally, with the memory-side
    /// cache seeing its accesses, untimed and not recorded.
    WarmUp,
}

/// One cluster's history.
#[derive(Debug, Clone, Default)]
struct Cluster {
    /// The last detailed times, up to [`WINDOW_MAX`].
    window: Vec<u64>,
    /// The prediction while the cluster is stable.
    prediction: Option<u64>,
    /// Launches since the last detailed one, while stable.
    since_detail: u64,
    launches: u64,
    predicted: u64,
    predicted_cycles: u64,
    /// Relative deviations seen, of a window's samples from the mean that became a prediction
    /// and of re-checks from the prediction they checked: how many, and their sum of squares.
    deviations: u64,
    deviations_squared: f64,
    /// Over the predicted launches: the sum of each one's charge over the square root of the
    /// window its prediction is the mean of, and the sum of their squared charges (the
    /// standard error's two parts, [`Cluster::standard_error_cycles`]).
    charge_over_root_window: f64,
    charge_squared: f64,
    /// Counters of the last detailed launch, charged to the predicted ones.
    counters: Option<crate::counters::Counters>,
    /// Launches between detailed ones while stable (from [`RECHECK_EVERY`] to [`RECHECK_MAX`]).
    interval: u64,
    /// The checkpoints of the current stable period (module documentation): launch count
    /// against signed relative deviation from the prediction, for their least-squares slope.
    checkpoints: Line,
    /// The relative standard deviation of one launch's time about the window's mean when the
    /// prediction was made: the noise a re-check is judged against.
    noise: f64,
    /// Times in the window the prediction is the mean of.
    window_len: usize,
    /// Re-checks of the current stable period, and the sum of their signed deviations.
    rechecks: u64,
    recheck_sum: f64,
    /// A re-check that moved, waiting for the next detailed launch to confirm it: its cycles.
    suspect: Option<u64>,
    /// The window's relative slope per launch when its prediction was made (the drift rate
    /// until a re-check measures one).
    window_slope: f64,
    /// Σ p·k over predicted launches, `k` the launches since the cluster's last detailed one.
    unchecked: f64,
    /// Drift cycles of stable periods that ended (a re-check outside the tolerance), each
    /// charged at its own period's rate, the failing re-check's included.
    drift_closed: f64,
    /// The largest estimated error (relative) of a detailed launch's time that work-group
    /// sampling extrapolated, and what it adds to the predicted launches (their charges
    /// times it): a prediction is the mean of such times and may carry their error.
    extrapolated_error: f64,
    extrapolated_charged: f64,
    /// Warm-up launches run functionally ([`Sampler::decide_warm_up`]).
    warm_ups: u64,
}

impl Cluster {
    /// A detailed time deviated by `d` (relative) from the prediction or window mean.
    fn deviated(&mut self, d: f64) {
        self.deviations += 1;
        self.deviations_squared += d * d;
    }

    /// One standard error of the cluster's predicted cycles, in cycles (module documentation):
    /// `σ_r·√((Σ p/√n_w)² + Σ p²)`, which is `N·p·σ_r·√(1/n_w + 1/N)` for one prediction. The
    /// re-checks sharpen `σ_r` but not the prediction, which stays the window's mean: its error
    /// shrinks with the window's `n_w`, not with every detailed time seen.
    fn standard_error_cycles(&self) -> f64 {
        if self.predicted == 0 || self.deviations < 2 {
            return 0.0;
        }
        let n = self.deviations as f64;
        let sigma = (self.deviations_squared / (n - 1.0)).sqrt();
        sigma * (self.charge_over_root_window.powi(2) + self.charge_squared).sqrt()
    }

    /// The drift rate `δ` (relative, per launch): the root mean square of the rates between
    /// successive checkpoints, or the window's slope before there are any.
    fn drift_rate(&self) -> f64 {
        match self.checkpoints.slope() {
            Some((slope, sxx)) => slope.abs() + self.noise / sxx.sqrt(),
            None => self.window_slope.abs(),
        }
    }

    /// The cycles drift may have moved the predicted launches by unseen: `δ · Σ p·k` of the
    /// current stable period and of every earlier one.
    fn drift_cycles(&self) -> f64 {
        self.drift_closed + self.drift_rate() * self.unchecked
    }

    /// A re-check left the tolerance: the stable period ends, its drift charged at its rate
    /// (the failing re-check's included); the next period measures its own.
    fn close_period(&mut self) {
        self.drift_closed += self.drift_rate() * self.unchecked;
        (self.unchecked, self.checkpoints) = (0.0, Line::default());
        self.prediction = None;
        self.window.clear();
    }

    /// A checkpoint: a detailed launch at launch count `x` deviated by `d` (signed, relative)
    /// from the prediction.
    fn checkpoint(&mut self, x: f64, d: f64) {
        self.checkpoints.add(x, d);
    }

    /// The distance to the next re-check after one that agreed: double the last, but no more
    /// than drift at the measured rate allows within the tolerance.
    fn widen(&mut self) {
        let allowed = match self.drift_rate() {
            r if r > 0.0 => (TOLERANCE / r).min(RECHECK_MAX as f64) as u64,
            _ => RECHECK_MAX,
        };
        self.interval = (self.interval * 2).min(allowed).clamp(RECHECK_EVERY, RECHECK_MAX);
    }

    /// The window's mean and the relative standard deviation of one time about it.
    fn window_stats(&self) -> (f64, f64) {
        let n = self.window.len().max(1) as f64;
        let mean = self.window.iter().map(|&c| c as f64).sum::<f64>() / n;
        if self.window.len() < 2 || mean <= 0.0 {
            return (mean, 0.0);
        }
        let var = self.window.iter().map(|&c| (c as f64 - mean).powi(2)).sum::<f64>() / (n - 1.0);
        (mean, var.sqrt() / mean)
    }

    /// How far apart (relative) the means of the window's older and newer halves are.
    fn halves_apart(&self) -> f64 {
        let h = self.window.len() / 2;
        if h == 0 {
            return 0.0;
        }
        let mean = |w: &[u64]| w.iter().map(|&c| c as f64).sum::<f64>() / w.len() as f64;
        let (older, newer) = (mean(&self.window[..h]), mean(&self.window[self.window.len() - h..]));
        rel(newer, older)
    }

    /// The window's mean, if it may become the prediction (module documentation): at least
    /// [`WINDOW`] times whose mean is known within [`TOLERANCE`] ([`Z`] standard errors), the
    /// older and newer halves within [`TOLERANCE`] of each other. Times older than a trend
    /// (caches warming up) are dropped first, down to [`WINDOW`].
    fn settled(&mut self) -> Option<f64> {
        while self.window.len() > WINDOW && self.halves_apart() > TOLERANCE {
            self.window.remove(0);
        }
        if self.window.len() < WINDOW || self.halves_apart() > TOLERANCE {
            return None;
        }
        let (mean, sd) = self.window_stats();
        (Z * sd / (self.window.len() as f64).sqrt() <= TOLERANCE).then_some(mean)
    }

    /// Whether a re-check `d` (signed, relative) from the prediction says the cluster moved:
    /// it, or the mean of the period's re-checks with it, lies further than [`TOLERANCE`] and
    /// than [`Z`] standard deviations of the window's noise (of one time about a mean of the
    /// window's length; of a mean of the re-checks) from the prediction.
    fn moved(&self, d: f64) -> bool {
        let one = self.noise * (1.0 + 1.0 / self.window_len.max(1) as f64).sqrt();
        let m = (self.rechecks + 1) as f64;
        let mean = (self.recheck_sum + d) / m;
        d.abs() > TOLERANCE.max(Z * one) || (m >= 2.0 && mean.abs() > TOLERANCE.max(Z * one / m.sqrt()))
    }

    /// A detailed launch of a predicted cluster took `cycles`, `d` (signed, relative) from the
    /// prediction, at launch count `x`. One that moved is a suspect: the next launch runs in
    /// detail too, and only if it moved as well does the stable period end (both start the
    /// next window). One launch alone that moved is a launch that found the caches cold (the
    /// first after a copy wrote the data, or after launches not executed left them as they
    /// were): charged its own time, it leaves the prediction standing.
    fn rechecked(&mut self, cycles: u64, x: f64, d: f64) {
        if self.moved(d) {
            if let Some(first) = self.suspect.take() {
                self.checkpoint(x, d);
                self.close_period();
                self.window.push(first);
            } else {
                self.suspect = Some(cycles);
            }
            return;
        }
        self.suspect = None;
        self.checkpoint(x, d);
        self.rechecks += 1;
        self.recheck_sum += d;
        self.widen();
    }

    /// The least-squares slope of the window's times against their position, over `mean`
    /// (the window's launches are consecutive: it fills only while the cluster is detailed).
    fn window_slope(&self, mean: f64) -> f64 {
        let n = self.window.len() as f64;
        let centre = (n - 1.0) / 2.0;
        let (mut sxy, mut sxx) = (0.0, 0.0);
        for (i, &t) in self.window.iter().enumerate() {
            let x = i as f64 - centre;
            sxy += x * (t as f64 - mean);
            sxx += x * x;
        }
        if sxx == 0.0 || mean == 0.0 {
            0.0
        } else {
            sxy / sxx / mean
        }
    }

    /// The window agrees: predict its mean from now on, its middle the first checkpoint.
    fn predict_from_window(&mut self, mean: f64) {
        self.prediction = Some(mean.round() as u64);
        self.noise = self.window_stats().1;
        (self.window_len, self.rechecks, self.recheck_sum) = (self.window.len(), 0, 0.0);
        let deviations: Vec<f64> = self.window.iter().map(|&t| rel(t as f64, mean)).collect();
        deviations.into_iter().for_each(|d| self.deviated(d));
        self.window_slope = self.window_slope(mean);
        self.interval = RECHECK_EVERY;
        self.checkpoints = Line::default();
        self.checkpoint(self.launches as f64 - (self.window.len() as f64 - 1.0) / 2.0 - 1.0, 0.0);
    }
}

/// |x − reference| / reference (0 for a zero reference and x).
fn rel(x: f64, reference: f64) -> f64 {
    if reference == 0.0 {
        if x == 0.0 {
            0.0
        } else {
            1.0
        }
    } else {
        (x - reference).abs() / reference
    }
}

/// Points `(x, y)` for a least-squares line through them: their count and sums.
#[derive(Debug, Clone, Copy, Default)]
struct Line {
    n: f64,
    sx: f64,
    sy: f64,
    sxx: f64,
    sxy: f64,
}

impl Line {
    fn add(&mut self, x: f64, y: f64) {
        self.n += 1.0;
        self.sx += x;
        self.sy += y;
        self.sxx += x * x;
        self.sxy += x * y;
    }

    /// The slope and `Σ (x − x̄)²` (the slope's standard error is the points' noise over its
    /// square root), with two points or more at different `x`.
    fn slope(&self) -> Option<(f64, f64)> {
        if self.n < 2.0 {
            return None;
        }
        let sxx = self.sxx - self.sx * self.sx / self.n;
        (sxx > 0.0).then(|| ((self.sxy - self.sx * self.sy / self.n) / sxx, sxx))
    }
}

/// The kernel-level predictor of one device: clusters and their histories.
#[derive(Debug, Clone, Default)]
pub struct Sampler {
    clusters: BTreeMap<ClusterKey, Cluster>,
    /// Cycles of every launch, detailed or predicted.
    total_cycles: u64,
    launches: u64,
    last_predicted: bool,
    /// Predicted launches are not executed ([`SamplePolicy::skip`]).
    skip: bool,
    /// Launches not executed, and work-groups of detailed launches extrapolated without
    /// running ([`crate::sched::Sampled::unexecuted_groups`]).
    skipped_launches: u64,
    skipped_groups: u64,
    /// Kernels (symbol, entry) a warm-up of which stopped at its budget
    /// ([`Sampler::warm_up_too_long`]).
    long_warm_ups: std::collections::BTreeSet<(String, u64)>,
    /// The estimated error, in cycles, of the detailed launches' times that work-group
    /// sampling extrapolated ([`Sampler::extrapolated`]).
    extrapolated_cycles: f64,
}

impl Sampler {
    pub fn new() -> Sampler {
        Sampler::default()
    }

    /// A sampler for `policy` (its `skip`: predicted launches are not executed).
    pub fn for_policy(policy: SamplePolicy) -> Sampler {
        Sampler { skip: policy.skip, ..Sampler::default() }
    }

    /// Whether predicted launches are charged without being executed.
    pub fn skips(&self) -> bool {
        self.skip
    }

    /// A predicted launch was charged without being executed.
    pub fn skipped_launch(&mut self) {
        self.skipped_launches += 1;
    }

    /// A detailed launch extrapolated `groups` work-groups without running them.
    pub fn skipped_groups(&mut self, groups: u64) {
        self.skipped_groups += groups;
    }

    /// How the next launch of `key` runs.
    pub fn decide(&mut self, key: &ClusterKey) -> Decision {
        let c = self.clusters.entry(key.clone()).or_default();
        let decision = match c.prediction {
            Some(cycles) if c.suspect.is_none() && c.since_detail + 1 < c.interval.max(RECHECK_EVERY) => Decision::Predicted { cycles },
            _ => Decision::Detailed,
        };
        if let Decision::Predicted { cycles } = decision {
            c.since_detail += 1;
            c.launches += 1;
            c.predicted += 1;
            c.predicted_cycles += cycles;
            let p = cycles as f64;
            c.charge_over_root_window += p / (c.window_len.max(1) as f64).sqrt();
            c.charge_squared += p * p;
            c.unchecked += cycles as f64 * c.since_detail as f64;
            c.extrapolated_charged += p * c.extrapolated_error;
            self.total_cycles += cycles;
            self.launches += 1;
        }
        self.last_predicted = decision != Decision::Detailed;
        decision
    }

    /// How the next launch of `key` runs when it comes before the program's timed region
    /// (module documentation, *Warm-up launches*): functionally and untimed while its cluster
    /// has had fewer than [`FUNCTIONAL_WARM_UPS`] warm-up launches and its kernel no warm-up
    /// cut short ([`Sampler::warm_up_too_long`]), then as [`Sampler::decide`] says.
    pub fn decide_warm_up(&mut self, key: &ClusterKey) -> Decision {
        let c = self.clusters.entry(key.clone()).or_default();
        if c.warm_ups >= FUNCTIONAL_WARM_UPS || self.long_warm_ups.iter().any(|(name, entry)| *entry == key.entry && *name == key.kernel) {
            return self.decide(key);
        }
        c.warm_ups += 1;
        self.last_predicted = true;
        Decision::WarmUp
    }

    /// A warm-up launch of kernel `name` at `entry` stopped at its budget before it ended: its
    /// later warm-ups run as timed launches do (in detail, their work-groups sampled).
    pub fn warm_up_too_long(&mut self, name: &str, entry: u64) {
        self.long_warm_ups.insert((name.to_string(), entry));
    }

    /// The counters a predicted launch of `key` is charged (its last detailed launch's).
    pub fn counters(&self, key: &ClusterKey) -> Option<crate::counters::Counters> {
        self.clusters.get(key).and_then(|c| c.counters.clone())
    }

    /// A detailed launch of `key` took `cycles`.
    pub fn record(&mut self, key: &ClusterKey, cycles: u64, counters: Option<crate::counters::Counters>) {
        let c = self.clusters.entry(key.clone()).or_default();
        c.launches += 1;
        c.since_detail = 0;
        c.counters = counters;
        self.total_cycles += cycles;
        self.launches += 1;
        if let Some(p) = c.prediction {
            let dev = rel(cycles as f64, p as f64);
            c.deviated(dev);
            let signed = if cycles >= p { dev } else { -dev };
            c.rechecked(cycles, (c.launches - 1) as f64, signed);
        }
        c.window.push(cycles);
        if c.window.len() > WINDOW_MAX {
            c.window.remove(0);
        }
        if c.prediction.is_none() {
            if let Some(mean) = c.settled() {
                c.predict_from_window(mean);
            }
        }
    }

    /// The detailed launch of `key` just recorded took `cycles`, of which work-group
    /// sampling extrapolated part with an estimated error of `error_percent` of the launch's
    /// time ([`crate::sched::Sampled::error_pct`], already [`Z`] standard errors). The run's
    /// estimate adds it, and every later predicted launch of the cluster adds the largest
    /// such error seen times its charge (module documentation).
    pub fn extrapolated(&mut self, key: &ClusterKey, cycles: u64, error_percent: f64) {
        let e = (error_percent / 100.0).max(0.0);
        if let Some(c) = self.clusters.get_mut(key) {
            c.extrapolated_error = c.extrapolated_error.max(e);
        }
        self.extrapolated_cycles += e * cycles as f64;
    }

    /// Whether the last launch decided was predicted.
    pub fn last_predicted(&self) -> bool {
        self.last_predicted
    }

    /// A launch the sampler is not asked about (one that is watched) comes next.
    pub fn skip(&mut self) {
        self.last_predicted = false;
    }

    /// What sampling did so far.
    pub fn summary(&self) -> SampleSummary {
        let predicted_clusters = self.clusters.values().filter(|c| c.predicted > 0);
        // Each cluster's standard error and drift, by its predicted share of the time (module
        // docs).
        let err_cycles: f64 = Z * predicted_clusters.clone().map(|c| c.standard_error_cycles() + c.drift_cycles()).sum::<f64>();
        // Work-group sampling's errors, already that many standard errors: the detailed
        // launches it extrapolated and the predictions made of them, summed as the clusters'.
        let err_cycles = err_cycles + self.extrapolated_cycles + self.clusters.values().map(|c| c.extrapolated_charged).sum::<f64>();
        SampleSummary {
            launches: self.launches,
            predicted: self.clusters.values().map(|c| c.predicted).sum(),
            clusters: predicted_clusters.count() as u64,
            // `max(0.0)`: an empty float sum is −0.0, which would print as "±-0.00 %".
            error_percent: if self.total_cycles == 0 { 0.0 } else { (100.0 * err_cycles / self.total_cycles as f64).max(0.0) },
            skipped_launches: self.skipped_launches,
            skipped_groups: self.skipped_groups,
            warm_ups: self.clusters.values().map(|c| c.warm_ups).sum(),
        }
    }
}

/// How [`SampleSummary::line`] states what was not executed.
const SKIPPED: &str = "; not executed: ";
const SKIPPED_END: &str = " (memory is not what the program computes)";
/// How [`SampleSummary::line`] states the warm-up launches.
const WARM_UP: &str = "; untimed warm-up: ";
const WARM_UP_END: &str = " launches run functionally";

/// What kernel-level sampling did in a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SampleSummary {
    /// Every launch the sampler saw.
    pub launches: u64,
    /// Launches run functionally and charged a predicted time.
    pub predicted: u64,
    /// Clusters that had launches predicted.
    pub clusters: u64,
    /// Estimated error of the run's total time from the prediction, in percent: [`Z`] times
    /// each cluster's standard error of its predicted cycles (the standard deviation of its
    /// detailed samples and re-checks times `√(1/n_w + 1/N)`, `n_w` the window the prediction is the mean of) plus its drift term (the drift
    /// rate between detailed launches times each predicted launch's distance from the last
    /// detailed one, times its charge),
    /// summed over clusters, over the run's total time (module documentation).
    pub error_percent: f64,
    /// Launches charged their prediction without being executed (`--sample skip`).
    #[serde(default)]
    pub skipped_launches: u64,
    /// Work-groups of detailed launches whose time was extrapolated without running them.
    #[serde(default)]
    pub skipped_groups: u64,
    /// Warm-up launches run functionally and untimed, not counted in `launches`.
    #[serde(default)]
    pub warm_ups: u64,
}

impl SampleSummary {
    /// Whether anything was not executed: memory is then not what the program computes.
    pub fn skipped_any(&self) -> bool {
        self.skipped_launches > 0 || self.skipped_groups > 0
    }

    /// Add another device's (or process's) summary; the error stays time-weighted only
    /// approximately (the larger of the two), since the summaries carry no totals.
    pub fn merge(self, other: SampleSummary) -> SampleSummary {
        SampleSummary {
            launches: self.launches + other.launches,
            predicted: self.predicted + other.predicted,
            clusters: self.clusters + other.clusters,
            error_percent: self.error_percent.max(other.error_percent),
            skipped_launches: self.skipped_launches + other.skipped_launches,
            skipped_groups: self.skipped_groups + other.skipped_groups,
            warm_ups: self.warm_ups + other.warm_ups,
        }
    }

    /// "sampled: N of M launches predicted from K clusters, estimated error ±X %", and when
    /// anything was not executed "; not executed: S launches, W work-groups (memory is not
    /// what the program computes)".
    pub fn line(&self) -> String {
        let mut line = format!(
            "sampled: {} of {} launches predicted from {} clusters, estimated error ±{:.2} %",
            self.predicted, self.launches, self.clusters, self.error_percent
        );
        if self.warm_ups > 0 {
            line.push_str(&format!("{WARM_UP}{}{WARM_UP_END}", self.warm_ups));
        }
        if self.skipped_any() {
            line.push_str(&format!("{SKIPPED}{} launches, {} work-groups{SKIPPED_END}", self.skipped_launches, self.skipped_groups));
        }
        line
    }

    /// As reports write it: `{"launches", "predicted", "clusters", "estimated_error_percent",
    /// "summary"}` (the last is [`SampleSummary::line`]).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "launches": self.launches,
            "predicted": self.predicted,
            "clusters": self.clusters,
            "estimated_error_percent": self.error_percent,
            "not_executed_launches": self.skipped_launches,
            "not_executed_work_groups": self.skipped_groups,
            "untimed_warm_up_launches": self.warm_ups,
            "summary": self.line(),
        })
    }

    /// The summary a [`SampleSummary::line`] states (`None`: not such a line).
    pub fn parse_line(line: &str) -> Option<SampleSummary> {
        let rest = line.strip_prefix("sampled: ")?;
        let (predicted, rest) = rest.split_once(" of ")?;
        let (launches, rest) = rest.split_once(" launches predicted from ")?;
        let (clusters, rest) = rest.split_once(" clusters, estimated error ±")?;
        let (error, skipped) = match rest.split_once(SKIPPED) {
            Some((error, skipped)) => (error, Some(skipped.strip_suffix(SKIPPED_END)?)),
            None => (rest, None),
        };
        let (error, warm_ups) = match error.split_once(WARM_UP) {
            Some((error, w)) => (error, w.strip_suffix(WARM_UP_END)?.parse().ok()?),
            None => (error, 0),
        };
        let error = error.strip_suffix(" %")?;
        let (skipped_launches, skipped_groups) = match skipped {
            Some(s) => {
                let (l, g) = s.split_once(" launches, ")?;
                (l.parse().ok()?, g.strip_suffix(" work-groups")?.parse().ok()?)
            }
            None => (0, 0),
        };
        Some(SampleSummary {
            launches: launches.parse().ok()?,
            predicted: predicted.parse().ok()?,
            clusters: clusters.parse().ok()?,
            error_percent: error.parse().ok()?,
            skipped_launches,
            skipped_groups,
            warm_ups,
        })
    }
}

#[cfg(test)]
mod tests;
