//! The background flusher: a thread of the runtime that starts a flush when a host thread's
//! access to watched memory waits for kernels nobody has asked to run yet (the program's
//! main thread need not be in a HIP call for a kernel to make progress, as on a GPU).

use super::link::FLUSH_WANTED;
use std::sync::OnceLock;

/// Start the flusher once per process.
pub fn ensure() {
    static STARTED: OnceLock<bool> = OnceLock::new();
    STARTED.get_or_init(|| std::thread::Builder::new().name("hipscope flush".into()).spawn(run).is_ok());
}

fn run() {
    let mut seen = FLUSH_WANTED.load();
    loop {
        seen = FLUSH_WANTED.wait_while(seen);
        crate::background_flush();
    }
}
