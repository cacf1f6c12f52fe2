use super::*;

fn key(kernel: &str, grid: u32) -> ClusterKey {
    ClusterKey { kernel: kernel.into(), entry: 0x1000, grid: [grid, 1, 1], block: [64, 1, 1], dynamic_lds: 0, arg_shape: vec![4096] }
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
    let d = drive(&mut s, &k, &[1000; 40]);
    assert!(d[..WINDOW].iter().all(|d| *d == Decision::Detailed));
    assert_eq!(d[WINDOW], Decision::Predicted { cycles: 1000 });
    let detailed = d.iter().filter(|d| **d == Decision::Detailed).count();
    // The window's, then one in every RECHECK_EVERY.
    assert_eq!(detailed, WINDOW + (40 - WINDOW) / RECHECK_EVERY as usize);
    let sum = s.summary();
    assert_eq!(sum.launches, 40);
    assert_eq!(sum.predicted, 40 - detailed as u64);
    assert_eq!(sum.clusters, 1);
    assert_eq!(sum.error_percent, 0.0);
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
    // 5000 cycles, n = 5 samples: one standard error is 5000·σ·√(1/5 + 1/5) = 25 cycles, Z = 3
    // of them over 10000 cycles in all.
    let sigma = (0.00025f64 / 4.0).sqrt();
    let want = 100.0 * 3.0 * 5000.0 * sigma * (0.4f64).sqrt() / 10000.0;
    assert!((want - 0.75).abs() < 1e-3, "{want}");
    assert!((sum.error_percent - want).abs() < 1e-9, "{sum:?}");
    assert!(sum.line().starts_with("sampled: 5 of 10 launches predicted from 1 clusters"));
    let back = SampleSummary::parse_line(&sum.line()).expect("the line parses");
    assert_eq!((back.launches, back.predicted, back.clusters), (10, 5, 1));
    assert!((back.error_percent - sum.error_percent).abs() < 0.01);
    assert_eq!(SampleSummary::parse_line("sampled: many"), None);
}

#[test]
fn policies_round_trip_their_names() {
    for p in [SamplePolicy::OFF, SamplePolicy::ON, SamplePolicy::KERNELS, SamplePolicy { kernels: false, work_groups: true }] {
        assert_eq!(SamplePolicy::parse(p.name()), Some(p));
    }
    assert_eq!(SamplePolicy::parse("sometimes"), None);
}
