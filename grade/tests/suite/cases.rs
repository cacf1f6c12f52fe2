//! The 20 grading cases of mm-grading.md §7.4, written in the HIP dialect under
//! `workloads/litmus/`. Each file states its expected verdict (from the §7.4 table, which
//! cites herd7, Dartagnan and libhipcxx) on `// expect-hip:` (and `// expect-hsa:`) lines;
//! every one must hold, every race must come with its rule and its execution, every
//! reachable outcome with a witness, and every racy test with a fix hint that, applied
//! here independently, makes the test race-free.

use hipscope_grade::fix::{self, Goal};
use hipscope_grade::litmus;
use hipscope_grade::model::{check, Model};
use hipscope_grade::report;

use crate::common;

struct Expect {
    model: Model,
    allowed: bool,
    race: bool,
}

fn expectations(source: &str) -> Vec<Expect> {
    let mut out = Vec::new();
    for line in source.lines() {
        let Some(rest) = line.trim().strip_prefix("// expect-") else { continue };
        let Some((model, fields)) = rest.split_once(':') else { continue };
        let model = match model {
            "hip" => Model::Hip,
            "hsa" => Model::Hsa,
            "opencl" => Model::Opencl,
            other => panic!("unknown model `{other}` in `{line}`"),
        };
        let field = |key: &str| fields.split_whitespace().find_map(|f| f.strip_prefix(key)).unwrap_or_else(|| panic!("`{line}` lacks {key}"));
        out.push(Expect { model, allowed: field("outcome=") == "allowed", race: field("race=") == "yes" });
    }
    out
}

#[test]
fn the_twenty_cases_get_their_verdicts_witnesses_rules_and_fixes() {
    let files = common::case_files();
    let mut cases = std::collections::BTreeSet::new();
    let mut wrong = Vec::new();
    for path in &files {
        let source = std::fs::read_to_string(path).expect("readable");
        let test = litmus::parse(path, &source).unwrap_or_else(|e| panic!("{e}"));
        let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
        cases.insert(name[..2].to_string());
        let expects = expectations(&source);
        assert!(!expects.is_empty(), "{name} states no expectation");
        for e in expects {
            let v = check(&test, e.model).unwrap_or_else(|err| panic!("{name}: {err}"));
            let lines: Vec<&str> = source.lines().collect();
            let (r, _) = report::grade(&name, &test, e.model, &lines).expect("grades");
            let mut problems = Vec::new();
            if v.reachable() != e.allowed {
                problems.push(format!("outcome {}", if v.reachable() { "allowed" } else { "forbidden" }));
            }
            if v.race_free() == e.race {
                problems.push(format!("{} race(s)", v.races.len()));
            }
            if v.reachable() && r.witness.as_deref().is_none_or(|w| w.lines().count() == 0) {
                problems.push("no witness".into());
            }
            for race in &r.races {
                let names_lines = race.rule.contains(&format!("line {}", race.first.line)) || race.rule.contains(&format!("line {}", race.second.line));
                if !names_lines || race.execution.is_empty() {
                    problems.push(format!("race without a rule naming its lines or without an execution: {}", race.rule));
                }
            }
            if !v.race_free() {
                match fix::suggest(&test, e.model, Goal::RaceFree) {
                    Some(f) => {
                        let mut changed = test.clone();
                        for edit in &f.edits {
                            fix::apply(&mut changed, edit);
                        }
                        let after = check(&changed, e.model).expect("changed test judged");
                        if !after.race_free() {
                            problems.push("the fix hint leaves a race".into());
                        }
                        println!("    fix: {}", f.edits.iter().map(|x| x.words(&test)).collect::<Vec<_>>().join("; "));
                    }
                    None => problems.push("no fix hint".into()),
                }
            }
            let verdict = format!("{:<9} {}", if v.reachable() { "allowed" } else { "forbidden" }, if v.race_free() { "race-free" } else { "racy" });
            println!("{} {name:<52} {:<6} {verdict}", if problems.is_empty() { "ok   " } else { "WRONG" }, e.model.name());
            if !problems.is_empty() {
                wrong.push(format!("{name} ({}): {}", e.model.name(), problems.join(", ")));
            }
        }
    }
    println!("{} case numbers, {} files", cases.len(), files.len());
    assert_eq!(cases.len(), 20, "cases present: {cases:?}");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
