//! A point that kills its worker fails alone: the parent side of the worker protocol against
//! stand-in workers (shell scripts that die the way a stack overflow, an abort or a silent
//! exit would), independent of which workload would do that to the real one; and in-process
//! points run on a stack large enough for deep recursion, a panic recorded as the point's
//! error.

use hipscope_sweep::plan::Workload;
use hipscope_sweep::points::Point;
use hipscope_sweep::worker::{self, Job, WorkerProcess, OUTCOME_MARK, POINT_STACK_BYTES};
use hipscope_sweep::workload::{Context, Outcome};
use std::path::{Path, PathBuf};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hipscope-worker-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A stand-in worker: `sh` running `body` once per job line it reads.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n# started once per worker process\necho started >> '{}/starts'\n{body}\n", dir.display())).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

fn job(dir: &Path, index: usize) -> Job {
    Job {
        point: Point { index, workload: 0, seed: 0, base: true, params: Vec::new() },
        workload: Workload::Litmus { name: "t".into(), path: "t.litmus".into(), runs: 1 },
        mode: hipscope_sim::Mode::Functional,
        metrics: vec!["observed".into()],
        base: hipscope_sim::gpus::builtin("mi210").unwrap(),
        origin: "configs/mi210.ron".into(),
        cx: Context { plan_dir: dir.to_path_buf(), workloads: dir.to_path_buf(), hipscope: None, scratch: dir.to_path_buf(), sample: Default::default() },
    }
}

fn failed(o: Outcome) -> String {
    match o {
        Outcome::Failed { fault: false, message } => message,
        other => panic!("not a failed point: {other:?}"),
    }
}

fn starts(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("starts")).unwrap_or_default().lines().count()
}

#[test]
fn a_worker_killed_by_a_signal_fails_its_point_with_the_signal_and_its_last_words() {
    let dir = tmp("abort");
    // What the Rust runtime writes before it aborts on a stack overflow.
    let exe = script(
        &dir,
        "w",
        "read line\necho \"thread 'sweep-point' (4242) has overflowed its stack\" >&2\necho 'fatal runtime error: stack overflow, aborting' >&2\nkill -ABRT $$",
    );
    let mut w = WorkerProcess::new(&exe, dir.join("w.stderr"));
    let m = failed(w.run(&job(&dir, 0)));
    assert!(m.contains("died: killed by signal 6 (SIGABRT"), "{m}");
    assert!(m.ends_with("its last words: thread 'sweep-point' has overflowed its stack"), "the overflow line, without the thread id: {m}");
    // The next point gets a new worker.
    let m = failed(w.run(&job(&dir, 1)));
    assert!(m.contains("signal 6"), "{m}");
    assert_eq!(starts(&dir), 2, "one worker per point here, since each one died");
}

#[test]
fn a_worker_that_exits_without_answering_or_answers_nonsense_fails_the_point() {
    let dir = tmp("exit");
    let exe = script(&dir, "w", "read line\necho 'out of ideas' >&2\nexit 7");
    let m = failed(WorkerProcess::new(&exe, dir.join("w.stderr")).run(&job(&dir, 0)));
    assert!(m.contains("died: exit status: 7; its last words: out of ideas"), "{m}");
    let exe = script(&dir, "n", &format!("read line\necho '{OUTCOME_MARK}{{\"Nonsense\": 1}}'\nread line"));
    let m = failed(WorkerProcess::new(&exe, dir.join("n.stderr")).run(&job(&dir, 0)));
    assert!(m.contains("the worker's answer was not an outcome"), "{m}");
}

#[test]
fn a_live_worker_answers_every_point_and_its_other_output_is_skipped() {
    let dir = tmp("live");
    let answer = r#"{"Metrics":[{"observed":0.25},null]}"#;
    let exe = script(&dir, "w", &format!("while read line; do echo 'a workload printing to stdout'; echo '{OUTCOME_MARK}{answer}'; done"));
    let mut w = WorkerProcess::new(&exe, dir.join("w.stderr"));
    for i in 0..5 {
        match w.run(&job(&dir, i)) {
            Outcome::Metrics(m, _) => assert_eq!(m["observed"], 0.25),
            other => panic!("{other:?}"),
        }
    }
    drop(w);
    assert_eq!(starts(&dir), 1, "one worker for all the points");
}

#[test]
fn the_real_worker_loop_answers_a_job_per_line() {
    // `serve` as `hipscope sweep worker` runs it: a job whose litmus file is missing is a
    // failed point, a line that is not a job is answered too, and the loop ends with its input.
    let dir = tmp("serve");
    let input = format!("{}\nnot a job\n", serde_json::to_string(&job(&dir, 0)).unwrap());
    let mut out = Vec::new();
    worker::serve(input.as_bytes(), &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    let first: Outcome = serde_json::from_str(lines[0].strip_prefix(OUTCOME_MARK).unwrap()).unwrap();
    assert!(failed(first).contains("t.litmus: cannot read"));
    assert!(lines[1].contains("the worker could not read its job"), "{text}");
}

/// Recursion `depth` frames of at least a KiB deep; the stack it used, in bytes (from the
/// address of a frame at the bottom to `top`).
#[inline(never)]
fn deep(depth: usize, top: usize) -> usize {
    let frame = std::hint::black_box([depth as u8; 1024]);
    let here = std::hint::black_box(&frame).as_ptr() as usize;
    let used = if depth == 0 { top.abs_diff(here) } else { deep(depth - 1, top) };
    // Used after the call, so the frame stays on the stack during it.
    std::hint::black_box(&frame);
    used
}

#[test]
fn in_process_points_have_a_large_stack_and_their_panics_are_recorded() {
    let outcome = worker::run_guarded(|| {
        let marker = std::hint::black_box([0u8; 16]);
        let top = marker.as_ptr() as usize;
        Outcome::Metrics([("used".to_string(), serde_json::json!(deep(12 * 1024, top)))].into(), None)
    });
    match outcome {
        Outcome::Metrics(m, _) => {
            let used = m["used"].as_u64().unwrap() as usize;
            // More than the 8 MiB a main thread has, which would have overflowed.
            assert!(used > 12 << 20 && used < POINT_STACK_BYTES, "{used} bytes of stack");
        }
        other => panic!("{other:?}"),
    }
    let m = failed(worker::run_guarded(|| panic!("boom at {}", 42)));
    assert_eq!(m, "the simulator panicked: boom at 42");
}
