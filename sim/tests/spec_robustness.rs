//! Malformed or odd specs never panic: random mutations of real specs (numbers replaced by
//! extreme values, bytes flipped, text cut short) either load and run (small launches only) or
//! give a one-line error.

use hipscope_sim::spec::{self, RunOptions};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Numbers that tend to break index math.
const EXTREMES: &[&str] =
    &["0", "1", "-1", "7", "64", "255", "65536", "4294967295", "2147483648", "-2147483648", "18446744073709551615", "1e300", "-0.0", "NaN", "3.5"];

fn mutate(text: &str, rng: &mut StdRng) -> String {
    let mut s = text.to_string();
    for _ in 0..rng.random_range(1..4) {
        match rng.random_range(0..4) {
            0 => {
                // Replace one number.
                let starts: Vec<usize> =
                    s.char_indices().filter(|(i, c)| c.is_ascii_digit() && (*i == 0 || !s.as_bytes()[i - 1].is_ascii_alphanumeric())).map(|(i, _)| i).collect();
                if let Some(&at) = starts.get(rng.random_range(0..starts.len().max(1))) {
                    let end = s[at..].find(|c: char| !c.is_ascii_alphanumeric() && c != '.').map_or(s.len(), |e| at + e);
                    s.replace_range(at..end, EXTREMES[rng.random_range(0..EXTREMES.len())]);
                }
            }
            1 if !s.is_empty() => {
                let mut b = s.into_bytes();
                let i = rng.random_range(0..b.len());
                b[i] = rng.random_range(32..127);
                s = String::from_utf8_lossy(&b).into_owned();
            }
            2 if !s.is_empty() => {
                let cut = rng.random_range(0..s.len());
                s = s.char_indices().take_while(|(i, _)| *i < cut).map(|(_, c)| c).collect();
            }
            _ => s = s.replacen("Reference(", "Reference(\"x\"", 1),
        }
    }
    s
}

/// Launch only what stays small: the point is error handling, not long runs.
fn small(spec: &spec::Spec) -> bool {
    let items: u64 = spec.dispatches.iter().map(|d| d.grid.0 as u64 * d.grid.1 as u64 * d.grid.2 as u64).sum();
    let bytes: u64 = spec.buffers.iter().map(|(_, b)| b.bytes.unwrap_or(0)).fold(0, u64::saturating_add);
    items <= 1 << 16 && bytes <= 1 << 22
}

#[test]
fn mutated_specs_never_panic() {
    let dir = root().join("target/spec-robustness");
    std::fs::create_dir_all(&dir).unwrap();
    let sources = ["vadd.ron", "histogram.ron", "lds_transpose.ron", "wave_reduce.ron", "pointer_chase.ron", "spin_lock.ron"];
    let mut rng = StdRng::seed_from_u64(2024);
    let (mut loaded, mut ran) = (0, 0);
    for i in 0..600 {
        let src = sources[i % sources.len()];
        let text = std::fs::read_to_string(root().join("workloads").join(src)).unwrap();
        // Absolute code-object paths, so the mutated copy runs from target/.
        let text = text.replace("\"bin/", &format!("\"{}/", root().join("workloads/bin").display()));
        let mutated = mutate(&text, &mut rng);
        let path = dir.join(format!("m{i}.ron"));
        std::fs::write(&path, &mutated).unwrap();
        let result = std::panic::catch_unwind(|| check_one(&path));
        match result {
            Ok((l, r)) => {
                loaded += l as u32;
                ran += r as u32;
            }
            Err(_) => panic!("spec {} panicked:\n{mutated}", path.display()),
        }
    }
    println!("600 mutated specs: {loaded} loaded, {ran} ran to a report");
    assert!(loaded > 80 && ran > 20, "the mutations should keep many specs valid ({loaded} loaded, {ran} ran)");
}

fn check_one(path: &Path) -> (bool, bool) {
    let Ok(s) = spec::load(path) else { return (false, false) };
    if !small(&s) {
        return (true, false);
    }
    let opts = RunOptions { gpu: Some("mi210".into()), code_object: Some("gfx90a".into()), seed: 1, timing: false, ..RunOptions::default() };
    match spec::run(&s, path, &opts) {
        Ok(_) => (true, true),
        Err(e) => {
            assert_eq!(e.to_string().lines().count(), 1, "one-line error: {e}");
            (true, false)
        }
    }
}
