//! Whether a host thread of the program may still access watched memory: the rule that lets
//! the host's participant give the kernels its turn without guessing from the wall clock.
//!
//! A thread may access watched memory when it is in the middle of an access (waiting for its
//! turn included), or when it runs the program's own code: runnable or in an uninterruptible
//! wait (`R` or `D` in `/proc/self/task/<tid>/stat`, proc(5): a page fault, the address-space
//! lock the watch's `mprotect` takes) and neither inside a HIP call nor one of the
//! simulator's threads (named `hipscope ...`). A thread asleep in the kernel (`S`: joining
//! another thread, a futex, a sleep, a blocking read) is not: only an event it waits for
//! wakes it, and when that comes depends on the host, not on simulated time.

use super::link::{inside, IN_ACCESS};
use std::sync::atomic::Ordering;

/// Whether some host thread may still access watched memory.
pub fn may_access() -> bool {
    if IN_ACCESS.load(Ordering::Acquire) > 0 {
        return true;
    }
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else { return false };
    dir.flatten().any(|entry| {
        let Some(tid) = entry.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else { return false };
        !inside(tid) && std::fs::read_to_string(entry.path().join("stat")).is_ok_and(|stat| runs_program_code(&stat))
    })
}

/// From a thread's `stat` line (`tid (comm) state ...`; the name may hold parentheses, so it
/// ends at the last one): running or in an uninterruptible wait, and not a simulator thread.
fn runs_program_code(stat: &str) -> bool {
    let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else { return false };
    let name = stat.get(open + 1..close).unwrap_or_default();
    let state = stat.get(close + 1..).and_then(|rest| rest.trim_start().chars().next());
    !name.starts_with("hipscope") && matches!(state, Some('R' | 'D'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fields proc(5) documents, a name with a parenthesis and a space included.
    #[test]
    fn stat_lines_are_read_as_proc_5_lays_them_out() {
        assert!(runs_program_code("1234 (host_pingpong) R 1 2 3"));
        assert!(runs_program_code("1234 (a) b (c)) D 1"));
        assert!(!runs_program_code("1234 (host_pingpong) S 1 2 3"));
        assert!(!runs_program_code("1234 (hipscope gpu 0) R 1"));
        assert!(!runs_program_code("garbage"));
    }

    /// The thread asking runs program code (it is not inside a HIP call), so the answer is yes.
    #[test]
    fn a_running_thread_may_access() {
        assert!(may_access());
    }
}
