//! Every row of ../shared/litmus/VERDICTS.tsv (herd7 runs of the HSA model, Dartagnan's
//! expected OpenCL/PTX/Vulkan verdicts, herd 2015's PTX baseline) reproduced by the
//! language layer, each under the model its row names: `hsa.cat` rows under `--model hsa`,
//! `opencl.cat` rows under `--model opencl`, and the PTX, Vulkan and tutorial rows under
//! `--model hip` after the parsers map cta→workgroup, gpu→agent, sys→system.

use std::path::Path;

use hipscope_grade::litmus;
use hipscope_grade::model::{check, Model};

use crate::common;

/// Rows whose verdict under HIP's model legitimately differs from the row's own model,
/// with the reason.
const DIFFERS_UNDER_HIP: &[(&str, &str)] = &[
    (
        "hernanponcedeleon+Dat3M/litmus/VULKAN/Kronos-Group/mpnotinscope2.litmus",
        "Vulkan orders two accesses by coherence only when each is in the other's scope; in scoped C++ the device-scope release/acquire on y makes P0's store to x happen before P1's load of x, and write-read coherence holds for every pair hb orders, so the stale read is forbidden",
    ),
    (
        "hernanponcedeleon+Dat3M/litmus/VULKAN/Data-Race/mpnotinscope2-filter.litmus",
        "the same test: Vulkan calls the workgroup-scope accesses to x across work-groups a race even when ordered; libhipcxx's race needs the two accesses to be unordered by happens-before, and the agent-scope flag orders them",
    ),
];

fn model_of(tool: &str) -> Model {
    if tool.contains("hsa.cat") {
        Model::Hsa
    } else if tool.contains("opencl.cat") {
        Model::Opencl
    } else {
        Model::Hip
    }
}

#[test]
fn every_verdicts_row_is_reproduced() {
    let why = "../shared/litmus/VERDICTS.tsv not found next to the repository";
    let Some(dir) = common::shared_or_skip("VERDICTS.tsv", Path::is_file, why) else { return };
    let table = std::fs::read_to_string(dir.join("VERDICTS.tsv")).expect("VERDICTS.tsv is readable");
    let (mut agree, mut rows, mut wrong) = (0, 0, Vec::new());
    for line in table.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (file, tool, consistency, race) = (cols[0], cols[1], cols[3], cols[4]);
        rows += 1;
        let path = dir.join(file);
        let test = litmus::parse_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let model = model_of(tool);
        let v = check(&test, model).unwrap_or_else(|e| panic!("{file}: {e}"));
        let mut problems = Vec::new();
        if consistency.starts_with("forbidden") && v.reachable() {
            problems.push(format!("outcome reachable ({} of {}), expected forbidden", v.positive, v.consistent));
        }
        if consistency.starts_with("allowed") && !v.reachable() {
            problems.push("outcome unreachable, expected allowed".to_string());
        }
        if consistency.starts_with("forall holds") && v.holds != Some(true) {
            problems.push("forall does not hold, expected it to".to_string());
        }
        if race == "RACE" && v.race_free() {
            problems.push("race-free, expected a race".to_string());
        }
        if race == "no-race" && !v.race_free() {
            problems.push(format!("{} race(s), expected none: {:?}", v.races.len(), v.races.iter().map(|r| r.kind).collect::<Vec<_>>()));
        }
        let excused = DIFFERS_UNDER_HIP.iter().find(|(f, _)| *f == file);
        if problems.is_empty() {
            agree += 1;
            println!("ok    {:<7} {file}", model.name());
        } else if let Some((_, why)) = excused {
            println!("DIFF  {:<7} {file}: {} — {why}", model.name(), problems.join("; "));
        } else {
            println!("WRONG {:<7} {file}: {}", model.name(), problems.join("; "));
            wrong.push(file.to_string());
        }
    }
    println!("VERDICTS.tsv: {agree}/{rows} rows reproduced, {} listed as differing", DIFFERS_UNDER_HIP.len());
    assert!(rows >= 47, "the table has {rows} rows");
    assert!(wrong.is_empty(), "rows not reproduced: {wrong:?}");
}
