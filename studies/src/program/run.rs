//! One program run in an [`Environment`], to its end or to a bound: stdin empty, stdout
//! collected, stderr read line by line as it comes (the runtime's messages, a kernel fault).

use super::Environment;
use hipscope_sim::sample::SampleSummary;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// When to stop a program that has not ended by itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct Bounds {
    /// Stop it once it has used this much CPU time (`None`: however long it takes). CPU
    /// time, not wall time, so a loaded machine does not turn slow rows into time-outs; the
    /// wall clock stops it at [`WALL_BACKSTOP`] times this (a program blocked without using
    /// the CPU), and where the CPU time cannot be read the wall clock counts alone.
    pub timeout: Option<Duration>,
    /// Stop it once the runtime reports a kernel fault or that the simulated GPU cannot
    /// start: the runtime reports it, then the process may not end by itself (it exits from
    /// inside a HIP call).
    pub stop_on_fault: bool,
}

/// How many times the CPU-time bound the wall clock may run before a program is stopped anyway.
pub const WALL_BACKSTOP: u32 = 4;

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// The program ended by itself (an exit or a signal).
    Exited(ExitStatus),
    /// Stopped at [`Bounds::timeout`].
    TimedOut(Duration),
    /// Stopped after the runtime reported this (its line, without the `hipscope: ` prefix).
    Faulted(String),
}

/// What a run left.
#[derive(Debug, Clone)]
pub struct Finished {
    pub ending: Ending,
    /// The program's standard output (empty unless it is UTF-8).
    pub stdout: String,
    /// The last line of standard error that is not blank: why a failing program says it failed.
    pub last_line: String,
    /// The runtime's last message other than its launch summary: the last `hipscope: ` line
    /// without ` launch(es), ` and not the sampling line.
    pub last_message: String,
    /// What sampled timing did (the runtime's `hipscope: sampled: ...` line), when it was on.
    pub sampled: Option<SampleSummary>,
    /// User + system CPU time the program had used when last seen running (read every poll,
    /// [`POLL`], so short of its total by at most about one poll's worth); `None` where /proc
    /// cannot tell.
    pub cpu: Option<Duration>,
}

/// How often a running program is looked at (its end, its CPU time, a fault).
const POLL: Duration = Duration::from_millis(20);

/// Why a program could not be run or watched.
#[derive(Debug)]
pub enum Failure {
    /// It could not be started.
    CannotRun(std::io::Error),
    /// Its output could not be captured (the named pipe is missing).
    NoPipe(&'static str),
    /// Waiting for it failed.
    Waiting(std::io::Error),
}

/// The exit code as `hipscope exec` passes it on: the program's, or 128 + the signal that
/// ended it (the shell's convention).
pub fn exit_code(status: ExitStatus) -> i32 {
    status.code().unwrap_or_else(|| {
        use std::os::unix::process::ExitStatusExt;
        128 + status.signal().unwrap_or(0)
    })
}

/// Everything on `stream` (kept if it is UTF-8; the stream is drained either way, so the program
/// never blocks on a full pipe).
fn read_all(mut stream: impl Read) -> String {
    let mut bytes = Vec::new();
    let _ = stream.read_to_end(&mut bytes);
    String::from_utf8(bytes).unwrap_or_default()
}

/// What standard error showed so far.
#[derive(Debug, Default)]
struct Stderr {
    /// The first line naming a fault.
    fault: Option<String>,
    last_line: String,
    last_message: String,
    sampled: Option<SampleSummary>,
}

/// Read `stream` line by line into `seen` until it closes.
fn watch_stderr(stream: impl Read, seen: &Mutex<Stderr>) {
    let mut reader = BufReader::new(stream);
    let mut raw = Vec::new();
    loop {
        raw.clear();
        match reader.read_until(b'\n', &mut raw) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&raw);
        let line = text.strip_suffix('\n').unwrap_or(&text);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let Ok(mut s) = seen.lock() else { break };
        if line.contains("kernel fault") || line.contains("cannot start the simulated GPU") {
            s.fault.get_or_insert_with(|| line.to_string());
        }
        if let Some(summary) = line.strip_prefix("hipscope: ").and_then(SampleSummary::parse_line) {
            s.sampled = Some(summary);
        } else if line.starts_with("hipscope: ") && !line.contains(" launch(es), ") {
            s.last_message = line.to_string();
        }
        if !line.trim().is_empty() {
            s.last_line = line.to_string();
        }
    }
}

/// Stop `child` and reap it.
fn stop(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

impl Environment {
    /// Run `program args...` here until it ends or `bounds` stop it.
    pub fn run(&self, program: &Path, args: &[String], bounds: Bounds) -> Result<Finished, Failure> {
        let mut child = self.command(program, args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(Failure::CannotRun)?;
        let stdout = child.stdout.take().ok_or(Failure::NoPipe("no stdout pipe"))?;
        let stderr = child.stderr.take().ok_or(Failure::NoPipe("no stderr pipe"))?;
        let out_thread = std::thread::spawn(move || read_all(stdout));
        let seen = Arc::new(Mutex::new(Stderr::default()));
        let err_thread = {
            let seen = seen.clone();
            std::thread::spawn(move || watch_stderr(stderr, &seen))
        };
        let mut cpu = None;
        let ending = watch(&mut child, bounds, &seen, &mut cpu);
        let stdout = out_thread.join().unwrap_or_default();
        let _ = err_thread.join();
        let ending = ending?;
        let (last_line, last_message, sampled) = seen.lock().map(|s| (s.last_line.clone(), s.last_message.clone(), s.sampled)).unwrap_or_default();
        Ok(Finished { ending, stdout, last_line, last_message, sampled, cpu })
    }
}

/// Whether the process that has used `cpu` (`None`: unknown), started at `begin`, has used
/// more than `bound` of CPU time or run [`WALL_BACKSTOP`] times `bound` on the wall clock.
fn over_time(cpu: Option<Duration>, begin: Instant, bound: Duration) -> bool {
    let wall = begin.elapsed();
    match cpu {
        Some(cpu) => cpu > bound || wall > bound * WALL_BACKSTOP,
        None => wall > bound,
    }
}

/// User + system CPU time of process `pid`, all its threads (`/proc/PID/stat` fields 14 and
/// 15, utime and stime).
fn cpu_time(pid: u32) -> Option<Duration> {
    stat_ticks(&pid.to_string(), 14)
}

/// User + system CPU time of this process's waited-for children, all their threads
/// (`/proc/self/stat` fields 16 and 17, cutime and cstime).
pub fn children_cpu_time() -> Option<Duration> {
    stat_ticks("self", 16)
}

/// The sum of `/proc/<who>/stat` fields `first` and `first + 1` (numbered from 1 as in
/// proc(5)), clock ticks of 1/100 s (`USER_HZ`, fixed at 100 by the Linux ABI).
fn stat_ticks(who: &str, first: usize) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{who}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count after its end,
    // where field 3 is the first.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(first.checked_sub(3)?);
    let ticks = fields.next()?.parse::<u64>().ok()? + fields.next()?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

/// Wait for `child`, stopping it at a bound; `cpu`: its CPU time when last seen running.
fn watch(child: &mut Child, bounds: Bounds, seen: &Mutex<Stderr>, cpu: &mut Option<Duration>) -> Result<Ending, Failure> {
    let begin = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(Ending::Exited(status)),
            Ok(None) => {}
            Err(e) => {
                // Not left running behind: its output pipes would never close.
                stop(child);
                return Err(Failure::Waiting(e));
            }
        }
        *cpu = cpu_time(child.id()).or(*cpu);
        if let Some(timeout) = bounds.timeout.filter(|t| over_time(*cpu, begin, *t)) {
            stop(child);
            return Ok(Ending::TimedOut(timeout));
        }
        let fault = if bounds.stop_on_fault { seen.lock().ok().and_then(|s| s.fault.clone()) } else { None };
        if let Some(f) = fault {
            // Let it finish on its own if it can, then stop it.
            std::thread::sleep(Duration::from_millis(500));
            if matches!(child.try_wait(), Ok(None)) {
                stop(child);
            }
            return Ok(Ending::Faulted(f.trim_start_matches("hipscope: ").to_string()));
        }
        std::thread::sleep(POLL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_counts_this_process_work_and_not_its_sleep() {
        let before = cpu_time(std::process::id()).expect("this process's /proc stat");
        let start = Instant::now();
        let mut x = 1u64;
        while start.elapsed() < Duration::from_millis(400) {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        std::thread::sleep(Duration::from_millis(300));
        let used = cpu_time(std::process::id()).expect("this process's /proc stat") - before;
        // Busy 400 ms of wall time (at least 100 ms of CPU even when shared with other work),
        // then asleep: the sleep must not count.
        assert!(used >= Duration::from_millis(100) && used <= start.elapsed(), "{used:?} of CPU");
        assert!(cpu_time(u32::MAX).is_none());
    }
}
