//! Mutated rocprof-compute profile folders never crash the importer (`hipscope validate
//! --profile DIR` reads them with `rocprof::read_profile`): real folders from
//! `../shared/device-data` are copied to a temporary directory, one to three of their CSV
//! files are mutated (lines cut short, dropped, duplicated or swapped; fields emptied,
//! replaced by junk, huge or non-finite numbers; columns dropped from the header; bytes
//! flipped; files truncated, emptied or deleted), and every case must import or give one
//! error line naming a file of the folder — never a panic.
//!
//! Prints `SKIPPED` when `../shared` is missing.

use hipscope_studies::validate::import::rocprof;
use hipscope_studies::validate::vcopy;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Instant;

const CASES: usize = 1500;

/// Profile folders of the layouts the importer knows: wide rows with pass suffixes (ROCm 6),
/// ROCm 7's long layout, the ROCm 4/5 sysinfo schema.
const SEEDS: &[&str] = &[
    "rocprofiler-compute/tests/workloads/vcopy/MI200",
    "rocprofiler-compute/tests/workloads/vcopy/MI300X_A1",
    "rocm-systems/projects/rocprofiler-compute/tests/workloads/vcopy/MI300X_A1_rocpd",
    "rocprofiler-compute-history/91f635e3e690a943ff71c78924511e3d106a1901/tests/workloads_old/vcopy/mi100",
];

/// The CSV files of a folder the importer reads, by name, with their text.
fn csv_files(dir: &Path) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let read = name == "sysinfo.csv" || name == "pmc_perf.csv" || (name.starts_with("SQ_") && name.ends_with(".csv"));
            if !read {
                return None;
            }
            Some((name, std::fs::read_to_string(e.path()).ok()?))
        })
        .collect();
    v.sort();
    v
}

fn junk(rng: &mut StdRng) -> String {
    let choices =
        ["", "N/A", "-1", "0", "1e309", "-1e309", "nan", "inf", "x", "99999999999999999999999", "18446744073709551616", "\"", ",", "1.5", "0x10", "\u{fffd}"];
    choices[rng.random_range(0..choices.len())].to_string()
}

/// One mutation of a CSV text.
fn mutate(rng: &mut StdRng, text: &str) -> Option<String> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if lines.is_empty() {
        return Some(String::new());
    }
    let n = lines.len();
    let i = rng.random_range(0..n);
    match rng.random_range(0..11) {
        0 => {
            let cut = rng.random_range(0..text.len().max(1));
            let cut = (0..=cut).rev().find(|&c| text.is_char_boundary(c)).unwrap_or(0);
            return Some(text[..cut].to_string());
        }
        1 => {
            lines.remove(i);
        }
        2 => {
            let l = lines[i].clone();
            lines.insert(i, l);
        }
        3 => {
            // A line cut short: a row with its last fields missing.
            let l = &lines[i];
            let cut = rng.random_range(0..l.len().max(1));
            let cut = (0..=cut).rev().find(|&c| l.is_char_boundary(c)).unwrap_or(0);
            lines[i] = l[..cut].to_string();
        }
        4..=6 => {
            let mut fields: Vec<String> = lines[i].split(',').map(str::to_string).collect();
            let f = rng.random_range(0..fields.len());
            fields[f] = junk(rng);
            lines[i] = fields.join(",");
        }
        7 => {
            let mut fields: Vec<String> = lines[0].split(',').map(str::to_string).collect();
            if fields.len() > 1 {
                fields.remove(rng.random_range(0..fields.len()));
            }
            lines[0] = fields.join(",");
        }
        8 => lines.swap(i, rng.random_range(0..n)),
        9 => {
            let mut b = text.as_bytes().to_vec();
            let at = rng.random_range(0..b.len().max(1)).min(b.len().saturating_sub(1));
            if let Some(x) = b.get_mut(at) {
                *x ^= 1 << rng.random_range(0..8);
            }
            return Some(String::from_utf8_lossy(&b).into_owned());
        }
        _ => return None, // the file is deleted
    }
    Some(lines.join("\n") + "\n")
}

#[test]
fn mutated_profile_folders_import_or_fail_with_one_line() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/device-data");
    let seeds: Vec<(String, Vec<(String, String)>)> =
        SEEDS.iter().map(|s| (s.to_string(), csv_files(&data.join(s)))).filter(|(_, f)| f.iter().any(|(n, _)| n == "pmc_perf.csv")).collect();
    if seeds.is_empty() {
        println!("SKIPPED: no rocprof-compute profile folder under {} (device measurements live outside the repository)", data.display());
        return;
    }
    let start = Instant::now();
    let work: PathBuf = std::env::temp_dir().join(format!("hipscope-profile-mutations-{}", std::process::id()));
    let mut rng = StdRng::seed_from_u64(0x726f_6370_726f_6601);
    let (mut imported, mut rejected) = (0, 0);
    for case in 0..CASES {
        let (seed, files) = &seeds[case % seeds.len()];
        let _ = std::fs::remove_dir_all(&work);
        std::fs::create_dir_all(&work).expect("temp dir");
        let mut texts = files.clone();
        for _ in 0..rng.random_range(1..=3) {
            // pmc_perf.csv holds the dispatches: mutate it half the time.
            let k = if rng.random_bool(0.5) { texts.iter().position(|(n, _)| n == "pmc_perf.csv").unwrap_or(0) } else { rng.random_range(0..texts.len()) };
            match mutate(&mut rng, &texts[k].1) {
                Some(t) => texts[k].1 = t,
                None => {
                    texts.remove(k);
                    if texts.is_empty() {
                        break;
                    }
                }
            }
        }
        for (name, text) in &texts {
            std::fs::write(work.join(name), text).expect("write mutant");
        }
        let result = catch_unwind(AssertUnwindSafe(|| rocprof::read_profile(&work).map(|p| (vcopy::gpu_for(&p.system).ok(), p.dispatches.len()))));
        match result {
            Err(_) => {
                let keep = std::env::temp_dir().join(format!("hipscope-profile-mutant-{case}"));
                let _ = std::fs::rename(&work, &keep);
                panic!("case {case} (mutant of {seed}) panicked; the folder is kept at {}", keep.display());
            }
            Ok(Ok(_)) => imported += 1,
            Ok(Err(e)) => {
                let m = e.to_string();
                assert!(!m.contains('\n'), "case {case}: multi-line error: {m}");
                assert!(m.starts_with(&work.display().to_string()), "case {case}: error does not name a file of the folder: {m}");
                rejected += 1;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    println!("{CASES} mutated profile folders from {} seeds: {imported} imported, {rejected} rejected; {:?}", seeds.len(), start.elapsed());
    assert!(rejected >= CASES / 10 && imported >= CASES / 20, "mutations too mild or too harsh: {imported} imported, {rejected} rejected");
}
