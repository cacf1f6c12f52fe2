use super::*;
use rand::SeedableRng;

fn key(kernel: &str, grid: u32) -> ClusterKey {
    ClusterKey { kernel: kernel.into(), entry: 0x1000, grid: [grid, 1, 1], block: [64, 1, 1], dynamic_lds: 0, arg_shape: vec![4096] }
}

/// One launch of `k` that takes `t` cycles in detail: the cycles charged for it and whether it
/// ran in detail.
fn launch(s: &mut Sampler, k: &ClusterKey, t: u64) -> (f64, bool) {
    match s.decide(k) {
        Decision::Detailed => {
            s.record(k, t, None);
            (t as f64, true)
        }
        Decision::Predicted { cycles } => (cycles as f64, false),
        Decision::WarmUp => panic!("decide never answers WarmUp"),
    }
}

/// Run `times` through a sampler for one cluster: detailed launches take the next time from
/// the list; returns the decisions.
fn drive(s: &mut Sampler, k: &ClusterKey, times: &[u64]) -> Vec<Decision> {
    let mut out = Vec::new();
    let mut next = times.iter();
    for _ in 0..times.len() {
        let d = s.decide(k);
        if d == Decision::Detailed {
            s.record(k, *next.next().unwrap_or(&0), None);
        }
        out.push(d);
    }
    out
}

#[test]
fn a_stable_cluster_is_predicted_after_its_window_and_rechecked() {
    let mut s = Sampler::new();
    let k = key("k", 1024);
    let n = 1200;
    let d = drive(&mut s, &k, &vec![1000; n]);
    assert!(d[..WINDOW].iter().all(|d| *d == Decision::Detailed));
    assert_eq!(d[WINDOW], Decision::Predicted { cycles: 1000 });
    let detailed: Vec<usize> = (0..n).filter(|&i| d[i] == Decision::Detailed).collect();
    // The window's, then re-checks RECHECK_EVERY launches apart, the distance doubling while
    // they agree (no drift at all here), up to RECHECK_MAX.
    let mut want: Vec<usize> = (0..WINDOW).collect();
    let (mut at, mut gap) = (WINDOW - 1, RECHECK_EVERY as usize);
    while at + gap < n {
        at += gap;
        want.push(at);
        gap = (gap * 2).min(RECHECK_MAX as usize);
    }
    assert_eq!(detailed, want);
    let sum = s.summary();
    assert_eq!(sum.launches, n as u64);
    assert_eq!(sum.predicted, (n - detailed.len()) as u64);
    assert_eq!(sum.clusters, 1);
    assert_eq!(sum.error_percent, 0.0);
}

/// Times that drift linearly by `rate` (relative) per launch from 1000 cycles, with `noise`
/// (relative) alternating in sign; returns the sampler's summary and the true and sampled
/// totals.
fn drifting(rate: f64, noise: f64, n: usize) -> (SampleSummary, f64, f64, usize) {
    let mut s = Sampler::new();
    let k = key("k", 1);
    let truth: Vec<u64> = (0..n).map(|i| (1000.0 * (1.0 + rate * i as f64 + if i % 2 == 0 { noise } else { -noise })).round() as u64).collect();
    let mut charged = 0.0;
    let mut detailed = 0;
    for &t in &truth {
        let (cycles, was_detailed) = launch(&mut s, &k, t);
        charged += cycles;
        detailed += usize::from(was_detailed);
    }
    (s.summary(), truth.iter().map(|&t| t as f64).sum(), charged, detailed)
}

#[test]
fn the_estimate_covers_a_slow_drift_between_rare_rechecks() {
    // A slow drift, 0.2 % per hundred launches, under the tolerance between re-checks of any
    // distance up to RECHECK_MAX: the cluster stays predicted; the sampled total's error
    // against the true one (the synthetic times) must lie inside the stated estimate.
    for (rate, noise) in [(2e-5, 0.0), (2e-5, 0.004), (-3e-5, 0.002), (0.0, 0.008)] {
        let (sum, truth, charged, detailed) = drifting(rate, noise, 3000);
        let measured = 100.0 * (charged - truth).abs() / truth;
        assert!(sum.predicted > 2500, "{rate} {noise}: {sum:?}");
        assert!(measured <= sum.error_percent, "{rate} {noise}: measured {measured:.3} % outside ±{:.3} %", sum.error_percent);
        assert!(sum.error_percent < 10.0, "{rate} {noise}: {sum:?}");
        // Rare re-checks: far fewer detailed launches than one in RECHECK_EVERY.
        assert!(detailed < 3000 / RECHECK_EVERY as usize / 2, "{rate} {noise}: {detailed} detailed");
    }
}

#[test]
fn a_faster_drift_keeps_rechecks_frequent() {
    // 0.1 % per launch: 256 launches would carry 25 %; the distance stays where drift at that
    // rate fits in the tolerance (20 launches), and a cluster re-sampled as it leaves it.
    let (sum, truth, charged, detailed) = drifting(1e-3, 0.0, 400);
    let measured = 100.0 * (charged - truth).abs() / truth;
    assert!(detailed >= 400 / 21, "{detailed} detailed ({sum:?})");
    assert!(measured <= sum.error_percent, "measured {measured:.3} % outside ±{:.3} %", sum.error_percent);
}

#[test]
fn a_spread_cluster_stays_detailed() {
    let mut s = Sampler::new();
    let k = key("k", 1024);
    // 10 % apart: never within the tolerance.
    let times: Vec<u64> = (0..20).map(|i| if i % 2 == 0 { 1000 } else { 1100 }).collect();
    let d = drive(&mut s, &k, &times);
    assert!(d.iter().all(|d| *d == Decision::Detailed));
    assert_eq!(s.summary().predicted, 0);
}

#[test]
fn a_drifting_cluster_is_sampled_again() {
    let mut s = Sampler::new();
    let k = key("k", 1024);
    // The window, then the predicted launches up to the re-check.
    for _ in 0..WINDOW as u64 + RECHECK_EVERY - 1 {
        if s.decide(&k) == Decision::Detailed {
            s.record(&k, 1000, None);
        }
    }
    // The next launch is the re-check; it comes out 50 % slower.
    assert_eq!(s.decide(&k), Decision::Detailed);
    s.record(&k, 1500, None);
    // Unstable now: the next launches run in detail until a new window agrees.
    for _ in 0..WINDOW - 1 {
        assert_eq!(s.decide(&k), Decision::Detailed);
        s.record(&k, 1500, None);
    }
    assert_eq!(s.decide(&k), Decision::Predicted { cycles: 1500 });
    // The deviation seen is the error estimate's spread.
    assert!(s.summary().error_percent > 0.0);
}

#[test]
fn clusters_are_apart_by_kernel_and_shape() {
    let mut s = Sampler::new();
    let (a, b) = (key("a", 1024), key("a", 2048));
    drive(&mut s, &a, &[1000; WINDOW + 1]);
    // b has a different grid: its first launch is detailed though a is predicted.
    assert_eq!(s.decide(&b), Decision::Detailed);
    let mut c = key("a", 1024);
    c.arg_shape = vec![8192];
    assert_eq!(s.decide(&c), Decision::Detailed);
}

#[test]
fn the_error_estimate_is_the_standard_error_weighted_by_predicted_time() {
    let mut s = Sampler::new();
    let k = key("k", 1);
    // Samples 990 to 1010: spread 1 % around 1000.
    for t in [990, 995, 1000, 1005, 1010] {
        assert_eq!(s.decide(&k), Decision::Detailed);
        s.record(&k, t, None);
    }
    for _ in 0..5 {
        assert_eq!(s.decide(&k), Decision::Predicted { cycles: 1000 });
    }
    let sum = s.summary();
    // Deviations 1, 0.5, 0, 0.5, 1 % from the mean: σ = √(0.00025 / 4); 5 predicted launches of
    // 5000 cycles, n = 5 samples: one standard error is 5000·σ·√(1/5 + 1/5) = 25 cycles. The
    // drift term: the window rises 5 cycles a launch, 0.5 % of 1000; the predicted launches lie
    // 1 to 5 launches after the last detailed one, Σ p·k = 1000·15, so 0.005·15000 = 75
    // cycles. Z = 3 times their sum over 10000 cycles in all.
    let sigma = (0.00025f64 / 4.0).sqrt();
    let want = 100.0 * 3.0 * (5000.0 * sigma * (0.4f64).sqrt() + 75.0) / 10000.0;
    assert!((want - 3.0).abs() < 1e-3, "{want}");
    assert!((sum.error_percent - want).abs() < 1e-9, "{sum:?}");
    assert!(sum.line().starts_with("sampled: 5 of 10 launches predicted from 1 clusters"));
    let back = SampleSummary::parse_line(&sum.line()).expect("the line parses");
    assert_eq!((back.launches, back.predicted, back.clusters), (10, 5, 1));
    assert!((back.error_percent - sum.error_percent).abs() < 0.01);
    assert_eq!(SampleSummary::parse_line("sampled: many"), None);
}

#[test]
fn policies_round_trip_their_names() {
    for p in [SamplePolicy::OFF, SamplePolicy::ON, SamplePolicy::KERNELS, SamplePolicy { kernels: false, work_groups: true, skip: false }, SamplePolicy::SKIP] {
        assert_eq!(SamplePolicy::parse(p.name()), Some(p));
    }
    assert_eq!(SamplePolicy::parse("sometimes"), None);
}

/// A run that did not execute what it predicted says so, and the line reads back.
#[test]
fn a_summary_states_what_was_not_executed() {
    let mut s = Sampler::for_policy(SamplePolicy::SKIP);
    assert!(s.skips() && !Sampler::for_policy(SamplePolicy::ON).skips());
    let k = key("k", 1);
    drive(&mut s, &k, &[1000; 10]);
    s.skipped_launch();
    s.skipped_groups(7);
    let sum = s.summary();
    assert!(sum.skipped_any());
    assert!(sum.line().ends_with("; not executed: 1 launches, 7 work-groups (memory is not what the program computes)"), "{}", sum.line());
    let back = SampleSummary::parse_line(&sum.line()).expect("the line parses");
    assert_eq!((back.skipped_launches, back.skipped_groups, back.predicted), (1, 7, sum.predicted));
    assert_eq!(sum.to_json()["not_executed_launches"], 1);
    let plain = Sampler::new().summary();
    assert!(!plain.skipped_any() && !plain.line().contains("not executed"));
}

/// Times about 1000 cycles with a scatter of relative standard deviation `sd` (a seeded
/// generator: uniform on ±√3·sd), stepping by `step` (relative) from launch `at` on; returns
/// the summary, the true and charged totals and the detailed launches.
fn scattered(sd: f64, n: usize, step: f64, at: usize) -> (SampleSummary, f64, f64, usize) {
    scattered_seeded(sd, n, step, at, 0x2545_f491_4f6c_dd1d)
}

/// [`scattered`] with the scatter drawn from `seed`.
fn scattered_seeded(sd: f64, n: usize, step: f64, at: usize, seed: u64) -> (SampleSummary, f64, f64, usize) {
    let mut s = Sampler::new();
    let k = key("k", 1);
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut uniform = move || rand::RngExt::random::<f64>(&mut rng);
    let (mut truth, mut charged, mut detailed) = (0.0, 0.0, 0);
    for i in 0..n {
        let level = if i >= at { 1.0 + step } else { 1.0 };
        let t = (1000.0 * level * (1.0 + sd * 3f64.sqrt() * (2.0 * uniform() - 1.0))).round() as u64;
        truth += t as f64;
        let (cycles, was_detailed) = launch(&mut s, &k, t);
        charged += cycles;
        detailed += usize::from(was_detailed);
    }
    (s.summary(), truth, charged, detailed)
}

#[test]
fn a_scattered_but_steady_cluster_is_predicted_and_its_rechecks_grow_rare() {
    // A scatter larger than the tolerance launch to launch (σ 1.5 %, up to ±2.6 %: as
    // floydwarshall 512 on mi300a, 8 050 to 8 900 cycles) with a steady mean: the mean of a
    // few launches is known within the tolerance, so the cluster is predicted, and its
    // re-checks spread out to RECHECK_MAX as the noise they show averages out.
    let n = 8192;
    let (sum, truth, charged, detailed) = scattered(0.015, n, 0.0, n);
    let measured = 100.0 * (charged - truth).abs() / truth;
    assert!(detailed < 100, "{detailed} detailed of {n} ({sum:?})");
    assert!(measured <= sum.error_percent, "measured {measured:.3} % outside ±{:.3} %", sum.error_percent);
    assert!(measured < 100.0 * TOLERANCE && sum.error_percent < 5.0, "{measured:.3} % ({sum:?})");
}

#[test]
fn a_scattered_cluster_whose_mean_steps_is_sampled_again() {
    // The same scatter, and from launch 3000 on every launch takes 6 % longer: the re-checks
    // see it (one alone or their mean), the cluster is detailed again and predicted at its
    // new level, and the total comes out within the tolerance of the truth.
    let (sum, truth, charged, _) = scattered(0.015, 8192, 0.06, 3000);
    let measured = 100.0 * (charged - truth).abs() / truth;
    assert!(measured < 100.0 * TOLERANCE, "measured {measured:.3} % ({sum:?})");
    assert!(measured <= sum.error_percent, "measured {measured:.3} % outside ±{:.3} %", sum.error_percent);
}

#[test]
fn one_cold_recheck_leaves_the_prediction_standing_and_two_move_it() {
    let mut s = Sampler::new();
    let k = key("k", 1);
    let mut detailed = Vec::new();
    // 1000 cycles a launch, but the first re-check after launch 40 found the caches cold.
    for i in 0..200 {
        if s.decide(&k) == Decision::Detailed {
            let t = if i > 40 && !detailed.iter().any(|&d| d > 40) { 1300 } else { 1000 };
            s.record(&k, t, None);
            detailed.push(i);
        }
    }
    // The cold one was followed by one in detail that agreed: predicted at 1000 throughout.
    let cold = *detailed.iter().find(|&&d| d > 40).expect("a re-check after launch 40");
    assert!(detailed.contains(&(cold + 1)), "{detailed:?}");
    assert_eq!(s.decide(&k), Decision::Predicted { cycles: 1000 }, "{detailed:?}");
    // Two in a row that moved: the cluster is detailed again.
    while s.decide(&k) != Decision::Detailed {}
    s.record(&k, 1300, None);
    assert_eq!(s.decide(&k), Decision::Detailed);
    s.record(&k, 1300, None);
    assert_eq!(s.decide(&k), Decision::Detailed);
}

#[test]
fn the_estimate_covers_the_error_whatever_the_scatter_drawn() {
    // A prediction is the mean of its window only, so its error shrinks with the window, not
    // with the re-checks seen since: counting them too made the estimate too small for one
    // draw in five of a steady cluster. Over 200 draws of each case the measured error stays
    // inside the estimate, and the estimate stays useful.
    for (step, at) in [(0.0, 8192), (0.06, 3000)] {
        for seed in 0..200 {
            let (sum, truth, charged, _) = scattered_seeded(0.015, 8192, step, at, seed);
            let measured = 100.0 * (charged - truth).abs() / truth;
            assert!(measured <= sum.error_percent, "step {step} seed {seed}: {measured:.3} % outside ±{:.3} %", sum.error_percent);
            assert!(sum.error_percent < 5.0, "step {step} seed {seed}: ±{:.3} %", sum.error_percent);
        }
    }
}

/// Work-group sampling's estimated error of the detailed launches it extrapolated carries into
/// the run's estimate: those launches' own and, through the prediction that is their mean, the
/// predicted launches'. A steady cluster without scatter has no error of its own, so a 2 %
/// error on every detailed time is 2 % of the whole run.
#[test]
fn the_estimate_carries_the_error_of_extrapolated_detailed_launches() {
    let mut s = Sampler::new();
    let k = key("k", 1024);
    for _ in 0..300 {
        if s.decide(&k) == Decision::Detailed {
            s.record(&k, 1000, None);
            s.extrapolated(&k, 1000, 2.0);
        }
    }
    let sum = s.summary();
    assert!(sum.predicted > 250, "{sum:?}");
    assert!((sum.error_percent - 2.0).abs() < 1e-9, "{sum:?}");
    // A launch that was not extrapolated adds nothing.
    let mut plain = Sampler::new();
    drive(&mut plain, &k, &[1000; 300]);
    assert_eq!(plain.summary().error_percent, 0.0);
}

#[test]
fn warm_ups_run_functionally_untimed_then_their_cluster_is_sampled_as_usual() {
    let mut s = Sampler::new();
    let k = key("k", 1024);
    for i in 0..FUNCTIONAL_WARM_UPS {
        assert_eq!(s.decide_warm_up(&k), Decision::WarmUp, "warm-up {i}");
        assert!(s.last_predicted(), "a warm-up is not a detailed launch");
    }
    // Past its functional warm-ups the cluster is sampled as any: detail until its window.
    assert_eq!(s.decide_warm_up(&k), Decision::Detailed);
    s.record(&k, 1000, None);
    // Another cluster of the same kernel has warm-ups of its own.
    assert_eq!(s.decide_warm_up(&key("k", 2048)), Decision::WarmUp);
    let sum = s.summary();
    assert_eq!((sum.warm_ups, sum.launches), (FUNCTIONAL_WARM_UPS + 1, 1), "{sum:?}");
    let line = sum.line();
    assert!(line.contains("untimed warm-up: "), "{line}");
    assert_eq!(SampleSummary::parse_line(&line), Some(sum), "{line}");
}

#[test]
fn a_kernel_whose_warm_up_was_cut_short_warms_up_in_detail() {
    let mut s = Sampler::new();
    let k = key("k", 1024);
    assert_eq!(s.decide_warm_up(&k), Decision::WarmUp);
    s.warm_up_too_long("k", 0x1000);
    // Any cluster of that kernel: its warm-ups are sampled as timed launches are.
    assert_eq!(s.decide_warm_up(&key("k", 4096)), Decision::Detailed);
    assert_eq!(s.decide_warm_up(&key("other", 4096)), Decision::WarmUp);
}

#[test]
fn a_summary_line_with_warm_ups_and_skipped_work_parses_back() {
    let sum = SampleSummary { launches: 40, predicted: 30, clusters: 2, error_percent: 1.25, skipped_launches: 30, skipped_groups: 512, warm_ups: 7 };
    assert_eq!(SampleSummary::parse_line(&sum.line()), Some(sum), "{}", sum.line());
}
