//! DWARF line tables of the coursework objects against `llvm-dwarfdump-19 --debug-line`
//! (workloads/grading/golden, written by workloads/build.sh): every row that names a line
//! gives that line and file for its address; line-0 rows (no source line) give none.

use hipscope_isa::codeobj::{self, lines::LineTable};
use std::path::PathBuf;

fn grading() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../workloads/grading")
}

/// (address, line, file index) of each row of the dump's line-table matrix, and the file
/// names by index, per line program (a dump may hold several).
fn rows(dump: &str) -> Vec<(u64, u32, String)> {
    let mut out = Vec::new();
    let mut files: Vec<(u32, String)> = Vec::new();
    let mut pending_index: Option<u32> = None;
    for line in dump.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("file_names[") {
            pending_index = rest.split(']').next().and_then(|n| n.trim().parse().ok());
            continue;
        }
        if let (Some(i), Some(name)) = (pending_index, t.strip_prefix("name: ")) {
            files.push((i, name.trim_matches('"').to_string()));
            pending_index = None;
            continue;
        }
        let cols: Vec<&str> = t.split_whitespace().collect();
        if cols.len() >= 4 && cols[0].starts_with("0x") && !t.contains("end_sequence") {
            let (Ok(addr), Ok(l), Ok(f)) = (u64::from_str_radix(&cols[0][2..], 16), cols[1].parse::<u32>(), cols[3].parse::<u32>()) else { continue };
            let name = files.iter().rev().find(|(i, _)| *i == f).map(|(_, n)| n.clone()).unwrap_or_default();
            out.push((addr, l, name));
        }
    }
    out
}

#[test]
fn line_tables_agree_with_llvm_dwarfdump() {
    let mut checked = 0;
    for config in ["gfx942", "gfx1100-w32-wgp"] {
        let golden = grading().join("golden").join(config);
        let Ok(entries) = std::fs::read_dir(&golden) else {
            println!("SKIPPED: {} not found", golden.display());
            return;
        };
        let mut names: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        names.sort();
        for dump_path in names {
            let stem = dump_path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".debug_line.txt")).unwrap_or_default().to_string();
            let object = grading().join("bin").join(config).join(format!("{stem}.co"));
            let bytes = std::fs::read(&object).unwrap_or_else(|e| panic!("{}: {e}", object.display()));
            let table = LineTable::of(&bytes).unwrap_or_else(|e| panic!("{}: {e}", object.display()));
            let from_loader = codeobj::load(&bytes, None).unwrap().lines;
            assert_eq!(table, from_loader, "the loader keeps the same table");
            let dump = std::fs::read_to_string(&dump_path).unwrap();
            let rows = rows(&dump);
            assert!(rows.len() > 20, "{}: too few rows parsed", dump_path.display());
            for (addr, line, file) in rows {
                let got = table.at(addr);
                if line == 0 {
                    assert_eq!(got, None, "{stem} on {config} at {addr:#x}: no source line");
                } else {
                    let got = got.unwrap_or_else(|| panic!("{stem} on {config} at {addr:#x}: expected line {line} of {file}"));
                    assert_eq!(got.line, line, "{stem} on {config} at {addr:#x}");
                    assert!(got.file.ends_with(&file), "{stem} on {config} at {addr:#x}: {} is not {file}", got.file);
                }
                checked += 1;
            }
        }
    }
    println!("{checked} rows checked");
    assert!(checked > 500);
}

#[test]
fn objects_without_debug_sections_have_no_lines() {
    let path = grading().join("../bin/gfx942/vadd.co");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let table = LineTable::of(&bytes).unwrap();
    assert!(table.is_empty());
    assert_eq!(table.at(0x1000), None);
}
