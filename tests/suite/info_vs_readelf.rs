//! The committed workload objects against their golden `llvm-readelf-19 --notes` output
//! (`workloads/golden/<config>/<name>.notes.txt`, written by `workloads/build.sh`): kernel
//! names, descriptor symbols, kernarg segment sizes and every argument's offset, size and kind.
//! Bundles are checked against `clang-offload-bundler --list` (`*.bundle.list.txt`).

use crate::codeobj_common;

use codeobj_common::{compact, parse_readelf_notes, workspace_root};
use hipscope_isa::codeobj;
use std::path::PathBuf;

fn sorted_dir(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir).map(|r| r.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    v.sort();
    v
}

#[test]
fn workload_objects_match_golden_notes() {
    let root = workspace_root().join("workloads");
    let (bin, golden) = (root.join("bin"), root.join("golden"));
    let mut checked = 0;
    for config in sorted_dir(&bin).into_iter().filter(|p| p.is_dir()) {
        for co_path in sorted_dir(&config).into_iter().filter(|p| p.extension().is_some_and(|e| e == "co")) {
            let stem = co_path.file_stem().unwrap().to_string_lossy().to_string();
            let notes = golden.join(config.file_name().unwrap()).join(format!("{stem}.notes.txt"));
            let Ok(text) = std::fs::read_to_string(&notes) else {
                continue;
            };
            let expected = parse_readelf_notes(&text);
            let bytes = std::fs::read(&co_path).unwrap();
            let co = codeobj::load(&bytes, None).unwrap_or_else(|e| panic!("{}: {e}", co_path.display()));
            let what = co_path.display().to_string();
            assert!(!expected.is_empty(), "{}: no kernels parsed from the golden notes", notes.display());
            assert_eq!(co.kernels.len(), expected.len(), "{what}");
            for want in &expected {
                let k = co.kernel(&want.name).unwrap_or_else(|| panic!("{what}: kernel {} missing", want.name));
                assert_eq!(k.symbol, want.symbol, "{what}");
                let layout = k.kernarg().unwrap_or_else(|| panic!("{what}: {} has no kernarg layout", want.name));
                assert_eq!(layout.segment_size, want.kernarg_segment_size, "{what} {}", want.name);
                let got: Vec<(u64, u64, String)> = layout.args.iter().map(|a| (a.offset, a.size, a.value_kind.as_str())).collect();
                assert_eq!(compact(&got), compact(&want.args), "{what} {}", want.name);
                assert!(co.section_at(k.entry_address).is_some_and(|s| s.executable), "{what}");
            }
            checked += 1;
        }
    }
    if checked == 0 {
        println!("SKIPPED: workload_objects_match_golden_notes: no workloads/bin/<config>/<name>.co with golden notes");
        return;
    }
    println!("checked {checked} workload code objects against golden notes");
}

#[test]
fn workload_bundles_match_golden_listing() {
    let root = workspace_root().join("workloads");
    let mut checked = 0;
    for bundle in sorted_dir(&root.join("bin/bundles")) {
        let name = bundle.file_name().unwrap().to_string_lossy().to_string();
        let Ok(text) = std::fs::read_to_string(root.join("golden/bundles").join(format!("{name}.list.txt"))) else {
            continue;
        };
        let mut want: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        want.sort_unstable();
        let listing = codeobj::list_targets(&std::fs::read(&bundle).unwrap()).unwrap();
        let mut got: Vec<&str> = listing.entries.iter().map(|e| e.id.as_str()).collect();
        got.sort_unstable();
        assert_eq!(got, want, "{name}");
        for e in listing.entries.iter().filter(|e| e.is_amdgpu()) {
            let co = codeobj::load(&std::fs::read(&bundle).unwrap(), e.target_id.as_deref()).unwrap();
            assert_eq!(Some(co.target.processor), e.processor, "{name}");
        }
        checked += 1;
    }
    if checked == 0 {
        println!("SKIPPED: workload_bundles_match_golden_listing: no workloads/bin/bundles with golden listings");
    }
}
