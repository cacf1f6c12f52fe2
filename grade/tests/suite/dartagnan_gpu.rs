//! Dartagnan's PTX and Vulkan catalogues against its own expectations: `--model ptx6.0`,
//! `ptx7.5` and `vulkan` give each file's `condition_holds` as `PTXv6_0-expected.csv`,
//! `PTXv7_5-expected.csv` and `VULKAN-expected.csv` say (1 = the condition's property
//! holds: `exists` reachable, `~exists`/`forall` true), and `race_free` as
//! `VULKAN-DR-expected.csv` says (1 = no data race).
//!
//! `tests/data/dartagnan` holds every other litmus file of Dat3M's `litmus/PTX` and
//! `litmus/VULKAN` (sorted by path) and the four tables, under Dat3M's MIT licence
//! (`LICENCE` beside them). The first test compares the rows whose file is there; every
//! disagreement must be listed with its reason in `tests/data/dartagnan/DISAGREEMENTS.tsv`.
//! The second (ignored) reads the whole catalogue from a Dat3M checkout named by
//! `DAT3M_DIR` (`scripts/dartagnan-gpu-catalogue.sh` makes one from a mirror) and prints
//! the agreement of each table.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use hipscope_grade::litmus::{self, Quantifier};
use hipscope_grade::model::{check, Model};

/// One table: its CSV, the model it is graded under, and whether it asks about races.
struct Table {
    csv: &'static str,
    model: Model,
    races: bool,
}

const TABLES: [Table; 4] = [
    Table { csv: "PTXv6_0-expected.csv", model: Model::Ptx60, races: false },
    Table { csv: "PTXv7_5-expected.csv", model: Model::Ptx75, races: false },
    Table { csv: "VULKAN-expected.csv", model: Model::Vulkan, races: false },
    Table { csv: "VULKAN-DR-expected.csv", model: Model::Vulkan, races: true },
];

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/dartagnan")
}

fn rows(csv: &str) -> BTreeMap<String, bool> {
    csv.lines()
        .filter_map(|l| {
            let (file, v) = l.trim().rsplit_once(',')?;
            file.starts_with("litmus/").then(|| (file.to_string(), v.trim() == "1"))
        })
        .collect()
}

/// What became of one row.
#[derive(Debug, PartialEq)]
enum Row {
    Agree,
    /// Dartagnan's value, ours.
    Disagree(bool, bool),
    /// The file has a backward branch (a loop): refused until loops are unrolled.
    Loop,
    /// Refused for another reason (the error).
    Refused(String),
}

/// Whether a thread jumps back to a label it passed (a spin loop): those files' condition
/// verdicts need the unrolled loops' bound and are compared by the liveness runner, not here.
fn has_loop(test: &hipscope_grade::litmus::Litmus) -> bool {
    use hipscope_grade::litmus::Stmt;
    test.threads.iter().any(|t| {
        let mut seen: Vec<&str> = Vec::new();
        t.body.iter().any(|s| match s {
            Stmt::Label { name, .. } => {
                seen.push(name);
                false
            }
            Stmt::Goto { label, .. } => seen.contains(&label.as_str()),
            _ => false,
        })
    })
}

/// The rows of one table whose file is under `root`, and the slowest file (parse and
/// language layer) with its time.
fn compare(root: &Path, csv_dir: &Path, table: &Table) -> (BTreeMap<String, Row>, (String, f64)) {
    let mut slowest = (String::new(), 0.0);
    let expected = rows(&std::fs::read_to_string(csv_dir.join(table.csv)).unwrap_or_default());
    let mut out = BTreeMap::new();
    for (file, want) in expected {
        let path = root.join(&file);
        if !path.is_file() {
            continue;
        }
        let started = Instant::now();
        let row = match litmus::parse_file(&path) {
            Err(e) if e.to_string().contains("goes backwards") => Row::Loop,
            Err(e) => Row::Refused(e.to_string()),
            Ok(test) if has_loop(&test) => Row::Loop,
            Ok(test) => match check(&test, table.model) {
                Err(e) => Row::Refused(e.to_string()),
                Ok(v) => {
                    let ours = if table.races {
                        v.race_free()
                    } else {
                        match test.condition.as_ref().map(|c| c.quantifier) {
                            Some(Quantifier::Exists) => v.reachable(),
                            _ => v.holds == Some(true),
                        }
                    };
                    if ours == want {
                        Row::Agree
                    } else {
                        Row::Disagree(want, ours)
                    }
                }
            },
        };
        let seconds = started.elapsed().as_secs_f64();
        if seconds > slowest.1 {
            slowest = (file.clone(), seconds);
        }
        out.insert(file, row);
    }
    (out, slowest)
}

/// `table<TAB>file<TAB>reason` lines of the committed list.
fn known() -> BTreeMap<(String, String), String> {
    let text = std::fs::read_to_string(data_dir().join("DISAGREEMENTS.tsv")).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let mut parts = l.splitn(3, '\t');
            Some(((parts.next()?.to_string(), parts.next()?.to_string()), parts.next()?.to_string()))
        })
        .collect()
}

/// Prints each table's agreement; returns the disagreements and refusals nobody explained.
fn report(root: &Path, csv_dir: &Path) -> Vec<String> {
    let known = known();
    let mut unexplained = Vec::new();
    for table in &TABLES {
        let started = Instant::now();
        let (rows, slowest) = compare(root, csv_dir, table);
        let count = |f: fn(&Row) -> bool| rows.values().filter(|r| f(r)).count();
        let (agree, loops) = (count(|r| *r == Row::Agree), count(|r| *r == Row::Loop));
        let judged = rows.len() - loops;
        for (file, row) in &rows {
            let why = known.get(&(table.csv.to_string(), file.clone()));
            let what = match row {
                Row::Agree | Row::Loop => continue,
                Row::Disagree(want, ours) => format!("Dartagnan {}, hipscope {}", u8::from(*want), u8::from(*ours)),
                Row::Refused(e) => format!("refused: {e}"),
            };
            println!("DIFF {} {file}: {what}{}", table.csv, why.map(|w| format!(" — {w}")).unwrap_or_default());
            if why.is_none() {
                unexplained.push(format!("{}\t{file}\t{what}", table.csv));
            }
        }
        let percent = 100.0 * agree as f64 / judged.max(1) as f64;
        println!(
            "{}: {agree}/{judged} rows agree ({percent:.1} %), {loops} refused for loops (backward branches), {:.2} s; slowest {} {:.1} ms",
            table.csv,
            started.elapsed().as_secs_f64(),
            slowest.0,
            slowest.1 * 1e3
        );
    }
    unexplained
}

#[test]
fn committed_half_agrees_with_dartagnan_or_is_explained() {
    let dir = data_dir();
    let csv_dir = dir.join("expected");
    assert!(csv_dir.join("VULKAN-expected.csv").is_file(), "the committed tables are under tests/data/dartagnan/expected");
    let unexplained = report(&dir, &csv_dir);
    assert!(unexplained.is_empty(), "disagreements not listed in DISAGREEMENTS.tsv:\n{}", unexplained.join("\n"));
}

/// The whole catalogue: `DAT3M_DIR=<a Dat3M checkout> cargo test --release -p hipscope-grade
/// --test suite dartagnan_gpu:: -- --ignored --nocapture`.
#[test]
#[ignore = "reads the whole Dat3M catalogue from DAT3M_DIR"]
fn whole_catalogue_agreement() {
    let Some(root) = std::env::var_os("DAT3M_DIR").map(PathBuf::from).filter(|d| d.join("litmus/PTX").is_dir()) else {
        println!("SKIPPED: DAT3M_DIR does not name a Dat3M checkout (with litmus/PTX)");
        return;
    };
    let started = Instant::now();
    let files: Vec<PathBuf> = ["litmus/PTX", "litmus/VULKAN"].iter().flat_map(|d| litmus_files(&root.join(d))).collect();
    let parsed = files.iter().filter(|f| litmus::parse_file(f).is_ok()).count();
    let loops = files.iter().filter(|f| litmus::parse_file(f).is_err_and(|e| e.to_string().contains("goes backwards"))).count();
    println!("parsed {parsed} of {} PTX/Vulkan files; {loops} refused for loops", files.len());
    let unexplained = report(&root, &root.join("dartagnan/src/test/resources"));
    println!("{} rows not explained; whole catalogue in {:.1} s", unexplained.len(), started.elapsed().as_secs_f64());
}

fn litmus_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(litmus_files(&path));
        } else if path.extension().is_some_and(|e| e == "litmus") {
            out.push(path);
        }
    }
    out.sort();
    out
}
