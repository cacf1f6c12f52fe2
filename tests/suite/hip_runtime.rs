//! The HIP runtime's answers to misuse and its module API, through our own HIP programs
//! (workloads/hip, built by workloads/build.sh and committed): every bad call returns the
//! error code ROCm's runtime returns for it, the program carries on, and its kernels' results
//! match the CPU's (the programs check them and print PASS).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

fn program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads/hip/bin").join(name)
}

fn exec(gpu: &str, mode: &str, program: &Path) -> (i32, String, String) {
    exec_with(gpu, mode, &[], program)
}

/// `hipscope exec` with `options` (such as `--report FILE`) before the program.
fn exec_with(gpu: &str, mode: &str, options: &[&OsStr], program: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hipscope"))
        .args(["exec", "--gpu", gpu, "--mode", mode])
        .args(options)
        .arg("--")
        .arg(program)
        .output()
        .expect("hipscope runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn bad_calls_return_rocm_error_codes_and_the_program_carries_on() {
    for gpu in ["mi300a", "mi210", "rx7900xtx"] {
        for mode in ["functional", "timing"] {
            let (code, out, err) = exec(gpu, mode, &program("bad_calls"));
            assert_eq!(code, 0, "bad_calls on {gpu} ({mode}):\n{out}\n{err}");
            assert!(out.contains("PASS bad_calls"), "{out}");
            // An API the library lacks is named once on stderr.
            assert_eq!(err.matches("hipIpcGetMemHandle is not supported").count(), 1, "{err}");
        }
    }
}

#[test]
fn a_module_loaded_at_run_time_launches_with_params_and_packed_arguments() {
    for gpu in ["mi300a", "mi210", "rx7900xtx"] {
        for mode in ["functional", "timing"] {
            let (code, out, err) = exec(gpu, mode, &program("module_launch"));
            assert_eq!(code, 0, "module_launch on {gpu} ({mode}):\n{out}\n{err}");
            assert!(out.contains("PASS module_launch"), "{out}");
        }
    }
}

#[test]
fn the_kernel_trace_has_rocprofv3_columns_and_one_row_per_launch() {
    let dir = std::env::temp_dir().join(format!("hipscope-kernel-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let csv = dir.join("kernel_trace.csv");
    let (code, _, err) = exec_with("mi300a", "timing", &[OsStr::new("--kernel-trace"), csv.as_os_str()], &program("module_launch"));
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&csv).expect("the trace is written");
    let mut rows = csv::Reader::from_reader(text.as_bytes());
    let header = rows.headers().expect("a header").clone();
    // rocprofv3 --kernel-trace column names (ROCm docs, "Kernel trace").
    for col in ["Kind", "Kernel_Name", "Start_Timestamp", "End_Timestamp", "Grid_Size_X", "Workgroup_Size_X", "SGPR_Count"] {
        assert!(header.iter().any(|h| h == col), "{col} in {header:?}");
    }
    let records: Vec<csv::StringRecord> = rows.records().map(|r| r.expect("a row")).collect();
    // module_launch launches axpb twice (kernelParams, then packed); the refused launches do not run.
    assert_eq!(records.len(), 2, "{text}");
    let col = |r: &csv::StringRecord, name: &str| r.get(header.iter().position(|h| h == name).expect("column")).expect("field").to_string();
    for r in &records {
        assert_eq!(col(r, "Kernel_Name"), "axpb");
        assert_eq!(col(r, "Grid_Size_X"), "1024", "4 work-groups of 256");
        let (start, end): (u64, u64) = (col(r, "Start_Timestamp").parse().expect("ns"), col(r, "End_Timestamp").parse().expect("ns"));
        assert!(end > start, "a timed kernel takes time: {start}..{end}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn counters_and_the_report_cover_every_launch() {
    let dir = std::env::temp_dir().join(format!("hipscope-exec-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (csv_path, json_path) = (dir.join("counters.csv"), dir.join("report.json"));
    let options = [OsStr::new("--counters"), csv_path.as_os_str(), OsStr::new("--report"), json_path.as_os_str()];
    let (code, _, err) = exec_with("mi300a", "timing", &options, &program("module_launch"));
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&csv_path).expect("counters written");
    let mut rows = csv::Reader::from_reader(text.as_bytes());
    let header = rows.headers().expect("a header").clone();
    let waves = header.iter().position(|h| h == "SQ_WAVES").expect("SQ_WAVES column");
    let records: Vec<csv::StringRecord> = rows.records().map(|r| r.expect("a row")).collect();
    assert_eq!(records.len(), 2, "{text}");
    // 4 work-groups of 256 work-items in waves of 64 (gfx942): 16 waves per launch.
    for r in &records {
        assert_eq!(r.get(waves), Some("16"), "{text}");
    }
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json_path).expect("report written")).expect("JSON");
    assert_eq!(report["gpu"], "mi300a");
    assert_eq!(report["launches"].as_array().map(Vec::len), Some(2));
    assert_eq!(report["kernels"][0]["launches"], 2);
    // Without the timing model there are no counters to write.
    let refused = Command::new(env!("CARGO_BIN_EXE_hipscope")).args(["exec", "--counters"]).arg(&csv_path).arg("--").arg("/bin/true").output().expect("runs");
    assert_eq!(refused.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_kernel_fault_ends_the_program_with_the_gpu_fault_report_and_status_3() {
    for gpu in ["mi300a", "mi210", "rx7900xtx"] {
        for mode in ["functional", "timing"] {
            let (code, out, err) = exec(gpu, mode, &program("kernel_fault"));
            assert_eq!(code, 3, "kernel_fault on {gpu} ({mode}):\n{out}\n{err}");
            // The program's output before the fault is delivered; nothing after it runs.
            assert!(out.contains("before the launch") && !out.contains("FAIL"), "{out}");
            // Whichever wave faults first: its lanes store to 0x12345678 + 4 × lane.
            assert!(
                err.contains("kernel fault in `_Z13store_throughPi`")
                    && err.contains("memory violation")
                    && err.contains("at 0x123456")
                    && err.contains("pc 0x"),
                "{err}"
            );
        }
    }
}
