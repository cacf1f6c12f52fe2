//! The Dartagnan OpenCL catalogue in ../shared/litmus under `--model opencl`: every row of
//! `OPENCL-expected.csv` (1 = the condition's property holds: `exists` reachable,
//! `~exists`/`forall` true) and `OPENCL-DR-expected.csv` (1 = no data race) whose file is
//! present, compared with the language layer. At least 98 % must agree; every disagreement
//! is printed with the reason we know for it.

use std::collections::BTreeMap;
use std::path::Path;

use hipscope_grade::litmus::{self, Quantifier};
use hipscope_grade::model::{check, Model};

use crate::common;

/// Disagreements we understand, with why (file relative to the Dat3M root).
const KNOWN: &[(&str, &str)] = &[];

fn rows(csv: &str) -> BTreeMap<String, bool> {
    csv.lines()
        .filter_map(|l| {
            let (file, v) = l.trim().rsplit_once(',')?;
            Some((file.to_string(), v.trim() == "1"))
        })
        .collect()
}

#[test]
fn opencl_catalogue_agrees_with_dartagnan() {
    let csv = "hernanponcedeleon+Dat3M/dartagnan/src/test/resources/OPENCL-expected.csv";
    let why = "../shared/litmus/hernanponcedeleon+Dat3M not found next to the repository";
    let Some(shared) = common::shared_or_skip(csv, Path::is_file, why) else { return };
    let dir = shared.join("hernanponcedeleon+Dat3M");
    let res = dir.join("dartagnan/src/test/resources");
    let read = |name: &str| std::fs::read_to_string(res.join(name)).unwrap_or_default();
    let consistency = rows(&read("OPENCL-expected.csv"));
    let races = rows(&read("OPENCL-DR-expected.csv"));
    let (mut compared, mut agreed, mut unexplained) = (0usize, 0usize, Vec::new());
    let mut files: Vec<&String> = consistency.keys().chain(races.keys()).collect();
    files.sort();
    files.dedup();
    for file in files {
        let path = dir.join(file);
        if !path.is_file() {
            continue;
        }
        let test = match litmus::parse_file(&path) {
            Ok(t) => t,
            Err(e) => {
                let n = usize::from(consistency.contains_key(file)) + usize::from(races.contains_key(file));
                compared += n;
                let why = KNOWN.iter().find(|(f, _)| f == file).map(|(_, w)| *w);
                println!("DIFF {file}: refused ({e}){}", why.map(|w| format!(" — {w}")).unwrap_or_default());
                if why.is_none() {
                    unexplained.push(format!("{file} refused"));
                }
                continue;
            }
        };
        let v = check(&test, Model::Opencl).unwrap_or_else(|e| panic!("{file}: {e}"));
        let mut checks = Vec::new();
        if let Some(pass) = consistency.get(file) {
            let ours = match test.condition.as_ref().map(|c| c.quantifier) {
                Some(Quantifier::Exists) => v.reachable(),
                _ => v.holds == Some(true),
            };
            checks.push(("condition", *pass, ours));
        }
        if let Some(no_race) = races.get(file) {
            checks.push(("race-free", *no_race, v.race_free()));
        }
        for (what, expected, ours) in checks {
            compared += 1;
            if expected == ours {
                agreed += 1;
                continue;
            }
            let why = KNOWN.iter().find(|(f, _)| f == file).map(|(_, w)| *w);
            println!("DIFF {file} {what}: Dartagnan {expected}, hipscope {ours}{}", why.map(|w| format!(" — {w}")).unwrap_or_default());
            if why.is_none() {
                unexplained.push(format!("{file} {what}"));
            }
        }
    }
    let percent = 100.0 * agreed as f64 / compared.max(1) as f64;
    println!("OpenCL catalogue: {agreed}/{compared} rows agree ({percent:.1} %), {} unexplained", unexplained.len());
    assert!(compared >= 60, "only {compared} rows compared");
    assert!(percent >= 98.0, "agreement {percent:.1} % is below 98 %");
    assert!(unexplained.is_empty(), "disagreements without a known reason: {unexplained:?}");
}
