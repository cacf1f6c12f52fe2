//! `scripts/rocm-suites.sh` merges its report: the rows (and failure sections) of a (ROCm
//! version, GPU, suite, mode) that has results in this checkout replace the earlier ones in
//! `reports/rocm-suites.md`; every other one stays. Checked on a copy of the committed report
//! with the script's own report writer (the Python helper embedded in the script), fed with
//! made-up result files: no ROCm needed.
//! - with no results at all, every row and section of the copy comes back unchanged;
//! - with one result for (6.4, mi210, rocprim, functional), that key's rows are that result
//!   alone, every other key's rows are the earlier ones, and the totals add both up.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The Python helper the script writes at each start (between `<<'PYEOF'` and `PYEOF`).
fn helper(dir: &Path) -> PathBuf {
    let script = std::fs::read_to_string(root().join("scripts/rocm-suites.sh")).expect("the script");
    let start = script.find("<<'PYEOF'\n").expect("the helper's start") + "<<'PYEOF'\n".len();
    let end = start + script[start..].find("\nPYEOF\n").expect("the helper's end");
    let path = dir.join("helper.py");
    std::fs::write(&path, &script[start..end]).expect("write the helper");
    path
}

fn python() -> bool {
    Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Cells of the main table's rows: (ROCm, suite, binary, filter, GPU, mode, run, ...).
fn rows(report: &str) -> Vec<Vec<String>> {
    let mut in_table = false;
    let mut out = Vec::new();
    for line in report.lines() {
        if line.starts_with("| ROCm | suite | binary |") {
            in_table = true;
        } else if in_table && !line.starts_with('|') {
            break;
        } else if in_table && !line.starts_with("|---") {
            out.push(line.split(" | ").map(|c| c.trim_matches(|ch| ch == '|' || ch == ' ').to_string()).collect());
        }
    }
    out
}

/// The `### ` section headers.
fn sections(report: &str) -> Vec<&str> {
    report.lines().filter(|l| l.starts_with("### ")).collect()
}

/// The totals row of (ROCm, GPU, mode): its tests-run count.
fn total_run(report: &str, ver: &str, gpu: &str, mode: &str) -> Option<u64> {
    let head = format!("| {ver} | {gpu} | {mode} | ");
    report.lines().find(|l| l.starts_with(&head))?.split(" | ").nth(3)?.parse().ok()
}

/// Run the helper's `report` on `outbase` over `report` (a copy), return the new text.
fn merge(helper: &Path, outbase: &Path, report: &Path) -> String {
    let out = Command::new("python3").arg(helper).arg("report").arg(outbase).arg(report).output().expect("python3 runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::read_to_string(report).expect("the merged report")
}

/// A result row as the script writes it (`*.result`: 22 tab-separated fields).
fn result(dir: &Path, id: &str, fields: &[&str]) {
    std::fs::create_dir_all(dir).expect("result dir");
    std::fs::write(dir.join(format!("{id}.result")), fields.join("\t") + "\n").expect("write the result");
}

#[test]
fn a_run_replaces_only_its_own_rows() {
    if !python() {
        println!("SKIPPED: no python3 to run the script's report writer");
        return;
    }
    let dir = std::env::temp_dir().join(format!("hipscope-suites-merge-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let helper = helper(&dir);
    let committed = std::fs::read_to_string(root().join("reports/rocm-suites.md")).expect("reports/rocm-suites.md");
    let before = rows(&committed);
    let key = |r: &Vec<String>| (r[0].clone(), r[4].clone(), r[1].clone(), r[5].clone());
    let ours = ("6.4".to_string(), "mi210".to_string(), "rocprim".to_string(), "functional".to_string());
    assert!(before.iter().any(|r| key(r) == ours), "the committed report has no 6.4 mi210 rocprim functional rows to replace");

    // No results: the copy comes back with the same rows and sections.
    let copy = dir.join("report.md");
    std::fs::write(&copy, &committed).expect("copy");
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).expect("empty outbase");
    let same = merge(&helper, &empty, &copy);
    assert_eq!(rows(&same), before);
    assert_eq!(sections(&same), sections(&committed));

    // One result of (6.4, mi210, rocprim, functional), with one failing test.
    std::fs::write(&copy, &committed).expect("copy");
    let outbase = dir.join("results");
    let run = outbase.join("6.4/mi210-functional");
    #[rustfmt::skip]
    let fields = ["6.4", "mi210", "functional", "rocprim", "test_block_reduce", "*/1.*", "gtest", "1", "3", "2", "1", "0", "0",
                  "1.5", "1048576", "-", "0", "0", "1", "", "2026-12-05", "1.2"];
    result(&run, "01-test_block_reduce", &fields);
    std::fs::write(run.join("01-test_block_reduce.failures.tsv"), "BlockReduce/1.Sum\tfailed\t\tvalues differ\n").expect("failures");
    std::fs::write(run.join("01-test_block_reduce.cmd"), "hipscope exec --gpu mi210 -- test_block_reduce\n").expect("cmd");
    let merged = merge(&helper, &outbase, &copy);
    let after = rows(&merged);
    let mine: Vec<&Vec<String>> = after.iter().filter(|r| key(r) == ours).collect();
    assert_eq!(mine.len(), 1, "{mine:?}");
    assert_eq!(&mine[0][1..10], ["rocprim", "`test_block_reduce`", "`\\*/1.\\*`", "mi210", "functional", "3", "2", "1", "1.5 s"]);
    let others_before: Vec<&Vec<String>> = before.iter().filter(|r| key(r) != ours).collect();
    let others_after: Vec<&Vec<String>> = after.iter().filter(|r| key(r) != ours).collect();
    assert_eq!(others_after, others_before, "rows of other (ROCm, GPU, suite, mode) changed");
    // Failure sections: ours is new, the others are kept.
    assert!(merged.contains("### 6.4 rocprim, mi210 functional: `test_block_reduce` (1 failed of 3)"), "{merged}");
    let kept: Vec<&str> = sections(&committed).into_iter().filter(|s| !s.starts_with("### 6.4 rocprim, mi210 functional:")).collect();
    for s in kept {
        assert!(merged.contains(s), "section lost: {s}");
    }
    // Totals: the kept rows of 6.4 mi210 functional plus the new one.
    let run_of = |r: &Vec<String>| r[6].parse::<u64>().unwrap_or(0);
    let expected: u64 = 3 + others_before.iter().filter(|r| r[0] == "6.4" && r[4] == "mi210" && r[5] == "functional").map(|r| run_of(r)).sum::<u64>();
    assert_eq!(total_run(&merged, "6.4", "mi210", "functional"), Some(expected));
    // One mode alone gives no new timing/functional ratio: every earlier ratio row stays.
    for line in table_after(&committed, "| ROCm | GPU | binary |") {
        assert!(merged.contains(line), "ratio row lost: {line}");
    }
    // An earlier ratio row whose times are not numbers (result files of another field order)
    // is dropped, not carried on.
    let garbage = "| 6.4 | mi210 | `test_bogus` | 2026-12-04T07:49Z s | 2026-12-04T08:36Z s | - |";
    let with_garbage = committed.replacen(
        "| ROCm | GPU | binary | functional | timing | ratio |\n|---|---|---|---:|---:|---:|\n",
        &format!("| ROCm | GPU | binary | functional | timing | ratio |\n|---|---|---|---:|---:|---:|\n{garbage}\n"),
        1,
    );
    assert!(with_garbage.contains(garbage), "the committed report has no ratio table to plant a row in");
    std::fs::write(&copy, &with_garbage).expect("copy");
    let cleaned = merge(&helper, &outbase, &copy);
    assert!(!cleaned.contains("test_bogus"), "a ratio row of dates was carried on");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The body rows of the table whose header starts with `header`.
fn table_after<'a>(report: &'a str, header: &str) -> Vec<&'a str> {
    report.lines().skip_while(|l| !l.starts_with(header)).skip(2).take_while(|l| l.starts_with("| ")).collect()
}

#[test]
fn a_start_up_probe_replaces_only_its_own_library_row() {
    if !python() {
        println!("SKIPPED: no python3 to run the script's report writer");
        return;
    }
    let dir = std::env::temp_dir().join(format!("hipscope-suites-startup-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let helper = helper(&dir);
    let committed = std::fs::read_to_string(root().join("reports/rocm-suites.md")).expect("reports/rocm-suites.md");
    let header = "| ROCm | GPU | library |";
    let before = table_after(&committed, header);
    let ours = "| 7.2 | mi300x | `librocfft.so.0` |";
    assert!(before.iter().any(|l| l.starts_with(ours)), "the committed report has no 7.2 mi300x rocfft start-up row");
    let copy = dir.join("report.md");
    std::fs::write(&copy, &committed).expect("copy");
    let outbase = dir.join("results");
    std::fs::create_dir_all(outbase.join("7.2")).expect("outbase");
    std::fs::write(outbase.join("7.2/startup-mi300x.tsv"), "7.2\tmi300x\tlibrocfft.so.0\t13M\t0.123\trocfft_setup\t0.004\t0\t0.50\t30720\n")
        .expect("probe row");
    let merged = merge(&helper, &outbase, &copy);
    let after = table_after(&merged, header);
    assert!(after.contains(&"| 7.2 | mi300x | `librocfft.so.0` | 13M | 0.123 s | 0.004 s (`rocfft_setup`) | 0 | 0.50 s | 30 MB |"), "{after:?}");
    assert_eq!(after.len(), before.len(), "{after:?}");
    for line in before.iter().filter(|l| !l.starts_with(ours)) {
        assert!(after.contains(line), "start-up row lost: {line}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
