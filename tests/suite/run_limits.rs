//! `hipscope run` limits and warnings: `--max-instructions`, `--max-cycles`,
//! `--livelock-after`, `--max-wave-instructions`, and the warning for LDS accesses out of range
//! (which read 0 and drop writes, as on the hardware, instead of faulting).

use crate::cli;

use cli::{code, hipscope, root, stderr};

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A spec for `kernel` of `workloads/bin/gfx942/livelock.co` with a zeroed 4-byte buffer.
fn livelock_spec(kernel: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("hipscope-limits-{}-{kernel}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let co = root().join("workloads/bin/gfx942/livelock.co");
    let text = format!(
        "Run(gpu: \"mi300x\", code_objects: {{\"gfx942\": \"{}\"}}, buffers: {{\"flag\": (bytes: 4)}}, dispatches: [(kernel: \"{kernel}\", grid: (256, 1, 1), block: (256, 1, 1), args: [Buffer(\"flag\")])])",
        co.display()
    );
    let path = dir.join("spec.ron");
    std::fs::write(&path, text).expect("write spec");
    path
}

#[test]
fn lds_out_of_range_reads_zero_and_warns_in_both_modes() {
    for mode in ["functional", "timing"] {
        let o = hipscope(&["run", "workloads/lds_oob.ron", "--mode", mode]);
        let text = stdout(&o);
        assert_eq!(code(&o), 0, "{mode}: the reads return 0 as the spec expects: {text}{}", stderr(&o));
        assert!(text.contains("warning: dispatch 0: 64 lane accesses to LDS were out of range"), "{text}");
        let o = hipscope(&["run", "workloads/lds_oob.ron", "--mode", mode, "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        let w = &v["dispatches"][0]["warnings"];
        assert!(w.as_array().is_some_and(|a| a.len() == 1), "{w}");
        if mode == "timing" {
            assert_eq!(v["dispatches"][0]["counters"]["HS_LDS_OUT_OF_RANGE"], 64, "{v}");
        }
    }
}

#[test]
fn instruction_and_cycle_limits_stop_a_dispatch() {
    let o = hipscope(&["run", "workloads/vadd.ron", "--max-instructions", "100"]);
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    assert!(stderr(&o).contains("stopped: ") && stderr(&o).contains("(--max-instructions)"), "{}", stderr(&o));
    let o = hipscope(&["run", "workloads/vadd.ron", "--mode", "timing", "--max-cycles", "500"]);
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    assert!(stderr(&o).contains("cycles simulated (--max-cycles)"), "{}", stderr(&o));
    let o = hipscope(&["run", "workloads/vadd.ron", "--max-cycles", "500"]);
    assert_eq!(code(&o), 2, "--max-cycles needs timing mode: {}", stderr(&o));
    // Generous limits change nothing.
    let o = hipscope(&["run", "workloads/vadd.ron", "--mode", "timing", "--max-cycles", "100000000", "--max-instructions", "100000000"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

#[test]
fn livelock_detection_can_be_turned_off_and_the_runaway_limit_set() {
    let spec = livelock_spec("wait_flag");
    let s = spec.to_str().expect("utf-8 path");
    for mode in ["functional", "timing"] {
        let o = hipscope(&["run", s, "--mode", mode]);
        assert_eq!(code(&o), 3, "{}", stderr(&o));
        assert!(stderr(&o).contains("livelock: every running wave repeats the same state"), "{}", stderr(&o));
        let o = hipscope(&["run", s, "--mode", mode, "--livelock-after", "0", "--max-wave-instructions", "20000"]);
        assert_eq!(code(&o), 3, "{}", stderr(&o));
        assert!(stderr(&o).contains("runaway loop: more than 20000 instructions"), "{}", stderr(&o));
    }
    let _ = std::fs::remove_dir_all(spec.parent().expect("dir"));
}
