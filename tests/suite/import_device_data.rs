//! The importers against every real file of their kind in `../shared/device-data` (prints
//! `SKIPPED` without it): all rocprof-compute profile folders across ROCm 4.2-7.0 and all
//! gpu-benches outputs must import, with spot checks of values read by hand from the files.

use hipscope_studies::validate::import::{gpu_benches, rocprof};
use std::path::{Path, PathBuf};

fn data() -> Option<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/device-data");
    if d.is_dir() {
        Some(d)
    } else {
        println!("SKIPPED: {} not found (device measurements live outside the repository)", d.display());
        None
    }
}

/// Every file under `dir` whose name satisfies `keep`, sorted.
fn files(dir: &Path, keep: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if keep(&p) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn name_is(p: &Path, name: &str) -> bool {
    p.file_name().is_some_and(|n| n == name)
}

#[test]
fn every_rocprof_compute_folder_imports() {
    let Some(data) = data() else { return };
    let folders: Vec<PathBuf> = files(&data, &|p| name_is(p, "pmc_perf.csv")).into_iter().filter_map(|p| p.parent().map(Path::to_path_buf)).collect();
    assert!(folders.len() >= 100, "expected the ~134 profile folders, found {}", folders.len());
    let mut dispatches = 0;
    for f in &folders {
        let p = rocprof::read_profile(f).unwrap_or_else(|e| panic!("{e}"));
        assert!(!p.dispatches.is_empty(), "{}: no dispatches", f.display());
        assert!(!p.system.gpu_arch.is_empty());
        dispatches += p.dispatches.len();
    }
    println!("{} profile folders, {dispatches} dispatches", folders.len());
}

#[test]
fn vcopy_profiles_read_as_recorded() {
    let Some(data) = data() else { return };
    // ROCm 6.0.2, MI210: three vecCopy dispatches, 64-byte L1→L2 reads.
    let p = rocprof::read_profile(&data.join("rocprofiler-compute/tests/workloads/no_roof/MI200")).unwrap();
    assert_eq!((p.system.gpu_arch.as_str(), p.system.compute_units, p.system.max_sclk_mhz), ("gfx90a", Some(104), Some(1700.0)));
    assert_eq!(p.dispatches.len(), 3);
    let d = &p.dispatches[0];
    assert!(d.kernel.starts_with("vecCopy("));
    assert_eq!((d.grid_size, d.workgroup_size), (Some(1048576), Some(256)));
    assert_eq!(d.counters.get("TCP_TCC_READ_REQ_sum"), Some(&131072.0));
    assert_eq!(d.counters.get("SQ_WAVES"), Some(&16384.0));
    assert!(d.counters.contains_key("SQ_INST_LEVEL_VMEM"), "level counters merged from SQ_INST_LEVEL_VMEM.csv");
    assert!(d.duration_ns.is_some_and(|ns| ns > 5_000.0 && ns < 100_000.0));
    // ROCm 7.0 rocpd export (long layout), MI300X.
    let p = rocprof::read_profile(&data.join("rocm-systems/projects/rocprofiler-compute/tests/workloads/vcopy/MI300X_A1_rocpd")).unwrap();
    assert_eq!((p.system.gpu_arch.as_str(), p.system.compute_units), ("gfx942", Some(304)));
    assert_eq!(p.dispatches.iter().map(|d| d.index).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(p.dispatches[0].counters.get("TCP_TCC_READ_REQ_sum"), Some(&65536.0));
    assert_eq!(p.dispatches[0].duration_ns, Some(8653.0));
    // ROCm 4.2 (old sysinfo schema), MI100 mixbench: 167 dispatches.
    let p =
        rocprof::read_profile(&data.join("rocprofiler-compute-history/91f635e3e690a943ff71c78924511e3d106a1901/tests/workloads_old/mixbench/mi100")).unwrap();
    assert_eq!((p.system.gpu_arch.as_str(), p.system.compute_units, p.system.gpu_model.as_str()), ("gfx908", Some(120), "mi100"));
    assert_eq!(p.dispatches.len(), 167);
}

#[test]
fn every_gpu_benches_output_imports() {
    let Some(data) = data() else { return };
    let in_dir = |p: &Path, dir: &str| p.parent().and_then(|d| d.file_name()).is_some_and(|n| n == dir) && p.extension().is_some_and(|e| e == "txt");
    let sc25 = |p: &Path, name: &str| name_is(p, name) && p.to_string_lossy().contains("5_Memory");
    let mut n = 0;
    for p in files(&data, &|p| in_dir(p, "gpu-cache") || sc25(p, "gpu-cache.out")) {
        let c = gpu_benches::read_cache(&p).unwrap_or_else(|e| panic!("{e}"));
        assert!(c.len() > 20 && c.iter().all(|c| c.bandwidth_gbps > 0.0), "{}", p.display());
        n += 1;
    }
    for p in files(&data, &|p| in_dir(p, "gpu-l2-cache") || sc25(p, "gpu-l2-cache.out")) {
        let c = gpu_benches::read_l2_cache(&p).unwrap_or_else(|e| panic!("{e}"));
        assert!(c.len() > 20 && c.iter().all(|c| c.data_set_bytes > c.block_bytes), "{}", p.display());
        n += 1;
    }
    for p in files(&data, &|p| in_dir(p, "gpu-stream") || sc25(p, "gpu-stream.out")) {
        let s = gpu_benches::read_stream(&p).unwrap_or_else(|e| panic!("{e}"));
        assert!(s.len() > 20 && s.iter().all(|s| s.kernel_gbps("read").is_some_and(|v| v > 0.0)), "{}", p.display());
        n += 1;
    }
    for p in files(&data, &|p| in_dir(p, "gpu-latency") || sc25(p, "gpu-latency.out")) {
        let l = gpu_benches::read_latency(&p).unwrap_or_else(|e| panic!("{e}"));
        assert!(l.len() > 50, "{}", p.display());
        n += 1;
    }
    assert!(n >= 15, "expected the gpu-benches and SC25 outputs, found {n}");
    println!("{n} gpu-benches outputs");
    // Spot checks against the first lines of the files.
    let root = data.join("gpu-benches/1c36d509ee717dca9215c27135fa1e611bb03ed1");
    let c = gpu_benches::read_cache(&root.join("gpu-cache/mi100.txt")).unwrap();
    assert_eq!((c[0].data_set_bytes, c[0].bandwidth_gbps), (4096.0, 9489.5));
    let s = gpu_benches::read_stream(&root.join("gpu-stream/mi210.txt")).unwrap();
    assert_eq!((s[0].block_size, s[0].threads, s[0].kernel_gbps("1pt")), (32, 3328, Some(135.0)));
    let s = gpu_benches::read_stream(&data.join("SC25_AMD_CDNA3_Artifact/06e081116edc81315bc5c8d143badc53e096ccd8/data/5_Memory/MI300X/exec/gpu-stream.out"))
        .unwrap();
    assert_eq!((s[0].block_size, s[0].threads, s[0].blocks_per_cu, s[0].kernel_gbps("triad")), (16, 4864, Some(1), Some(229.0)));
}
