//! Language-layer speed: one 4-thread test (IRIW, seq_cst), one 2-thread MP with a race
//! and its fix search, and every litmus file in workloads/litmus and ../shared/litmus.

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion};
use hipscope_grade::litmus::{self, Litmus};
use hipscope_grade::model::{check, Model};
use hipscope_grade::report;

// The tests' helpers: where the litmus files are.
#[path = "../tests/suite/common/mod.rs"]
mod common;

fn load(path: &Path) -> Option<(Litmus, String)> {
    let text = std::fs::read_to_string(path).ok()?;
    Some((litmus::parse(path, &text).ok()?, text))
}

fn corpus() -> Vec<(PathBuf, Litmus, String, Model)> {
    let mut out = Vec::new();
    for dir in [common::workload_cases(), common::shared_litmus()] {
        for p in common::litmus_under(&dir) {
            if let Some((t, text)) = load(&p) {
                let model = common::model_for(&p);
                out.push((p, t, text, model));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn bench(c: &mut Criterion) {
    let cases = common::workload_cases();
    if let Some((iriw, _)) = load(&cases.join("15_iriw_seq_cst_agent.litmus")) {
        c.bench_function("check IRIW seq_cst (4 threads)", |b| b.iter(|| check(&iriw, Model::Hip)));
    }
    if let Some((mp, text)) = load(&cases.join("04_mp_release_acquire_block_diff_wg.litmus")) {
        let lines: Vec<&str> = text.lines().collect();
        c.bench_function("grade MP workgroup scope with fix search", |b| b.iter(|| report::grade("mp", &mp, Model::Hip, &lines)));
    }
    let all = corpus();
    println!("corpus: {} litmus files", all.len());
    c.bench_function("grade every litmus file (workloads + ../shared)", |b| {
        b.iter(|| {
            for (_, t, text, model) in &all {
                let lines: Vec<&str> = text.lines().collect();
                let _ = report::grade("f", t, *model, &lines);
            }
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
