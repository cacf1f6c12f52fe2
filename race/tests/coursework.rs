//! The coursework set (`workloads/grading/`): every kernel's race verdict on the compiled code,
//! against the label its name carries (`race_` / `norace_`), which the sources derive from the
//! HIP scoped C++ model (each file's header says why). Kernels run over several seeded
//! schedules, as `hipscope grade --spec` does.

use hipscope_race::runs::{grade_spec, render, KernelGrade, Plan};
use hipscope_sim::spec::{self, RunOptions};
use std::path::PathBuf;

fn grading_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../workloads/grading")
}

const CONFIGS: [&str; 5] = ["gfx90a", "gfx942", "gfx1100-w32-wgp", "gfx1100-w32-cu", "gfx1100-w64-wgp"];
const RUNS: u64 = 3;

fn specs() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(grading_dir())
        .expect("workloads/grading")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    v.sort();
    v
}

fn grade(path: &std::path::Path, config: &str) -> Vec<KernelGrade> {
    let spec = spec::load(path).unwrap_or_else(|e| panic!("{e}"));
    let gpu = if config.starts_with("gfx90a") {
        "mi210"
    } else if config.starts_with("gfx942") {
        "mi300a"
    } else {
        "rx7900xtx"
    };
    let opts = RunOptions { code_object: Some(config.to_string()), gpu: Some(gpu.to_string()), ..RunOptions::default() };
    grade_spec(&spec, path, &opts, &Plan { runs: RUNS, first_seed: 0, only: None }).unwrap_or_else(|e| panic!("{} on {config}: {e}", path.display()))
}

#[test]
fn every_coursework_kernel_gets_its_label() {
    let specs = specs();
    assert!(specs.len() >= 5, "the coursework specs are missing");
    let mut table = format!("{:38}", "kernel \\ config");
    for c in CONFIGS {
        table.push_str(&format!(" {c:>15}"));
    }
    table.push('\n');
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    let mut wrong = Vec::new();
    let mut undecidable = Vec::new();
    let mut kernels = 0;
    for path in &specs {
        let per_config: Vec<Vec<KernelGrade>> = CONFIGS.iter().map(|c| grade(path, c)).collect();
        for (k, first) in per_config[0].iter().enumerate() {
            kernels += 1;
            let racy = first.kernel.starts_with("race_");
            assert!(racy || first.kernel.starts_with("norace_"), "{}: a coursework kernel is named race_* or norace_*", first.kernel);
            let mut cells = Vec::new();
            for (c, grades) in CONFIGS.iter().zip(&per_config) {
                let g = &grades[k];
                let undecided = !g.race && !g.undecided.is_empty();
                cells.push(if g.race {
                    format!("race {}", g.races.len())
                } else if undecided {
                    "race-free*".into()
                } else {
                    "race-free".into()
                });
                if undecided && racy {
                    // The code is the same as the race-free form's: the report must say so.
                    undecidable.push(format!("{} on {c}", g.kernel));
                } else if g.race != racy {
                    wrong.push(format!("{} on {c}: labelled {}\n{}", g.kernel, if racy { "race" } else { "norace" }, render(g)));
                }
            }
            rows.push((first.kernel.clone(), cells));
        }
    }
    for (k, cells) in &rows {
        table.push_str(&format!("{k:38}"));
        for c in cells {
            table.push_str(&format!(" {c:>15}"));
        }
        table.push('\n');
    }
    println!("{table}");
    println!("race-free*: race-free as compiled, but some atomic pair compiles alike at work-group and agent scope, so a work-group-scope source would race (the report says where)");
    println!("{} racy kernel/config pairs compile to the same code as a race-free form (reported as undecided): {}", undecidable.len(), undecidable.join(", "));
    for w in &wrong {
        println!("WRONG {w}");
    }
    assert!(kernels >= 30, "only {kernels} coursework kernels found");
    assert!(wrong.is_empty(), "{} wrong verdict(s) of {} (see above)", wrong.len(), kernels * CONFIGS.len());
}

#[test]
fn a_report_names_source_lines_and_a_fix() {
    let path = grading_dir().join("patterns.ron");
    let spec = spec::load(&path).unwrap();
    let opts = RunOptions { code_object: Some("gfx942".into()), ..RunOptions::default() };
    let g = grade_spec(&spec, &path, &opts, &Plan { runs: 2, first_seed: 0, only: Some("race_seed_mp_block".into()) }).unwrap();
    assert_eq!(g.len(), 1);
    let text = render(&g[0]);
    println!("{text}");
    assert!(g[0].race, "{text}");
    // Both sides of some race name a line of patterns.hip.
    assert!(
        g[0].races.iter().any(|f| [&f.first_line, &f.second_line].iter().all(|l| l.as_ref().is_some_and(|l| l.file.ends_with("patterns.hip")))),
        "no race names patterns.hip lines on both sides:\n{text}"
    );
    assert!(g[0].races.iter().all(|f| !f.fix.is_empty()));
    // The block-scope release store and the agent-scope acquire load appear as compiled.
    let has = |kind: &str, order: &str, scope: &str| {
        g[0].sync.iter().any(|s| s.readings.iter().any(|r| r.starts_with(kind) && r.contains(order) && r.contains(scope)))
    };
    assert!(has("atomic store", "release", "workgroup"), "{text}");
    assert!(has("atomic load", "acquire", "agent"), "{text}");
}
