//! `hipscope` command-line interface.

mod cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Cycle-approximate AMD GPU memory-system simulator running real kernel code objects.
#[derive(Parser)]
#[command(name = "hipscope", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print targets, kernels, kernel-descriptor fields and kernarg layouts of a code object.
    Info(cmd::info::Args),
    /// Disassemble the kernels of a code object in LLVM syntax (as llvm-objdump-19 prints them).
    Disasm(cmd::disasm::Args),
    /// Run a launch spec (RON) on a simulated GPU and check its expectations.
    Run(cmd::run::Args),
    /// List the built-in GPU configs.
    Gpus(cmd::gpus::Args),
    /// List the built-in nodes (a host CPU, GPUs and the links between them), or show one
    /// (`nodes NAME|FILE`).
    Nodes(cmd::nodes::Args),
    /// Compare simulations with real-device measurements (measured vs simulated, ok/MISS).
    Validate(cmd::validate::Args),
    /// What synchronization costs at each scope, per GPU and mode: cycles, the instructions the
    /// compiler emitted and the cache actions they caused (writes reports/scopes.md and plots).
    Scopes(cmd::scopes::Args),
    /// Grade litmus tests under a scoped memory model: outcome allowed or forbidden, every race
    /// with the rule it breaks, a witness execution and a checked fix hint.
    Grade(cmd::grade::Args),
    /// Run an unmodified HIP program with its kernels on a simulated GPU (`-- PROGRAM ARGS`).
    Exec(cmd::exec::Args),
    /// Sweep GPU config parameters over workloads: points in parallel or as Slurm job-array
    /// shards, resumable, merged into CSV, JSON and plots (`sweep PLAN.ron`, `sweep merge DIR`).
    Sweep(cmd::sweep::Args),
}

/// Die quietly, as `cat` or `grep` do, when whoever reads our stdout stops reading
/// (`hipscope disasm X | head -1`): the Rust runtime ignores SIGPIPE, which turns the next write
/// into an EPIPE error and `println!` into a panic. With the default action the process ends
/// by the signal (a shell reports status 141) and prints nothing. Every subcommand writes its
/// result files before its summary on stdout, so nothing is lost but the unread text; `exec`'s
/// program inherits the default action, as it would from a shell.
fn default_sigpipe() {
    // SAFETY: called first thing in main, before any thread exists; SIG_DFL is a valid action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    default_sigpipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(args) => cmd::info::run(&args),
        Command::Disasm(args) => cmd::disasm::run(&args),
        Command::Run(args) => cmd::run::run(&args),
        Command::Gpus(args) => cmd::gpus::run(&args),
        Command::Nodes(args) => cmd::nodes::run(&args),
        Command::Validate(args) => cmd::validate::run(&args),
        Command::Scopes(args) => cmd::scopes::run(&args),
        Command::Grade(args) => cmd::grade::run(&args),
        Command::Exec(args) => cmd::exec::run(&args),
        Command::Sweep(args) => cmd::sweep::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("hipscope: {err}");
            err.exit_code()
        }
    }
}
