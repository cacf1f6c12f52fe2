//! Mutated litmus files through the whole grader: every mutant either fails to parse with a
//! one-line `file:line:col: message`, or is judged (or refused as too large) under every
//! model, with a report and fix search — never a panic. Seeds are the workload cases and,
//! when present, the copied catalogues.

use std::path::PathBuf;

use hipscope_grade::litmus;
use hipscope_grade::model::{check, Model};
use hipscope_grade::report;

use crate::common;

use common::Draw;

fn seeds() -> Vec<(PathBuf, String)> {
    let mut dirs = vec![common::workload_cases()];
    let shared = common::shared_litmus();
    if shared.is_dir() {
        dirs.push(shared);
    } else {
        println!("SKIPPED (catalogue seeds only): ../shared/litmus not found; mutating the workload cases alone");
    }
    let files = dirs.iter().flat_map(|d| common::litmus_under(d));
    let mut out: Vec<(PathBuf, String)> = files.filter_map(|p| Some((p.clone(), std::fs::read_to_string(&p).ok()?))).collect();
    out.sort();
    out
}

/// One mutation: swap two lines, duplicate a line, replace a token with another from the
/// file, change a number, or delete a span.
fn mutate(text: &str, rng: &mut common::SplitMix) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if lines.is_empty() {
        return String::new();
    }
    let i = rng.below(lines.len());
    match rng.below(5) {
        0 => {
            let j = rng.below(lines.len());
            lines.swap(i, j);
        }
        1 => {
            let l = lines[i].clone();
            lines.insert(i, l);
        }
        2 => {
            let words: Vec<String> = text.split_whitespace().map(str::to_string).collect();
            let w = words[rng.below(words.len())].clone();
            let mut parts: Vec<String> = lines[i].split(' ').map(str::to_string).collect();
            let k = rng.below(parts.len());
            parts[k] = w;
            lines[i] = parts.join(" ");
        }
        3 => {
            let digits = ["0", "1", "2", "42", "-1", "99999999999", "3"];
            lines[i] = lines[i].replacen(|c: char| c.is_ascii_digit(), digits[rng.below(digits.len())], 1);
        }
        _ => {
            let mut cut = rng.below(lines[i].len() + 1);
            while !lines[i].is_char_boundary(cut) {
                cut -= 1;
            }
            lines[i].truncate(cut);
        }
    }
    lines.join("\n")
}

#[test]
fn mutated_litmus_files_never_panic_the_grader() {
    let seeds = seeds();
    assert!(!seeds.is_empty(), "no seed litmus files");
    let mut rng = common::SplitMix(0x6772_6164_6521);
    let (mut parsed, mut refused, mut rejected) = (0, 0, 0);
    const MUTANTS: usize = 1500;
    for k in 0..MUTANTS {
        let (path, text) = &seeds[k % seeds.len()];
        let mut mutant = text.clone();
        for _ in 0..1 + rng.below(3) {
            mutant = mutate(&mutant, &mut rng);
        }
        let outcome = std::panic::catch_unwind(|| match litmus::parse(path, &mutant) {
            Err(e) => {
                if let Err(why) = common::one_line_error(&e, path, &mutant) {
                    panic!("{why}");
                }
                (0, 0, 1)
            }
            Ok(test) => {
                let lines: Vec<&str> = mutant.lines().collect();
                let mut too_large = 0;
                for model in [Model::Hip, Model::Hsa, Model::Opencl] {
                    if check(&test, model).is_err() || report::grade("mutant", &test, model, &lines).is_err() {
                        too_large = 1;
                    }
                }
                (1, too_large, 0)
            }
        });
        match outcome {
            Ok((p, t, r)) => {
                parsed += p;
                refused += t;
                rejected += r;
            }
            Err(_) => panic!("mutant {k} of {} panicked:\n{mutant}", path.display()),
        }
    }
    println!("{MUTANTS} mutants: {rejected} rejected with a located error, {parsed} graded ({refused} refused as too large)");
    assert!(parsed > 100 && rejected > 100, "mutations too mild or too harsh: {parsed} parsed, {rejected} rejected");
}
