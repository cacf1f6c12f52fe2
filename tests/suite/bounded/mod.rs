//! Running a command that may hang (a HIP program under `hipscope exec`) with a time limit: its
//! own process group, so that on a timeout the program (hipscope's child) is stopped too, and
//! both output pipes drained while it runs, so that a chatty program cannot block on a full
//! pipe.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub struct Ended {
    /// The exit status; `None` when the run was stopped at the time limit (or ended by a
    /// signal).
    pub code: Option<i32>,
    pub timed_out: bool,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `cmd` (stdin closed, stdout and stderr captured) for at most `limit`.
pub fn run(cmd: &mut Command, limit: Duration) -> Ended {
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0).spawn().expect("the command starts");
    let reader = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = pipe.read_to_end(&mut buf);
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let out = reader(Box::new(child.stdout.take().expect("stdout pipe")));
    let err = reader(Box::new(child.stderr.take().expect("stderr pipe")));
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > limit {
            timed_out = true;
            let group = format!("-{}", child.id());
            let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
            break child.wait().expect("wait");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let code = if timed_out { None } else { status.code() };
    Ended { code, timed_out, stdout: out.join().unwrap_or_default(), stderr: err.join().unwrap_or_default() }
}
