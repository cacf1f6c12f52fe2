//! Running the `hipscope` binary from the CLI tests: the repository root, one invocation, and
//! its exit status and error output.

use std::path::PathBuf;
use std::process::{Command, Output};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `hipscope ARGS` run from the repository root.
pub fn hipscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hipscope")).current_dir(root()).args(args).output().expect("run hipscope")
}

pub fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
