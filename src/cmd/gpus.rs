//! `hipscope gpus`: the built-in GPU configs (`configs/*.ron`, embedded in the binary).

use super::CliError;
use hipscope_sim::gpus;
use std::fmt::Write as _;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Print JSON (the configs as stored, one object per GPU).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let all = gpus::builtins();
    let out = if args.json {
        let mut s = serde_json::to_string_pretty(&all).unwrap_or_default();
        s.push('\n');
        s
    } else {
        table(&all)
    };
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}

fn table(all: &[gpus::GpuConfig]) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{:<10} {:<8} {:>4} {:>4} {:>4}  {:<5} {:<5} {:<5}  GPU", "name", "target", "wave", "mode", "CUs", "hostA", "pageM", "concM");
    for g in all {
        let yn = |b: bool| if b { "yes" } else { "no" };
        let h = &g.hip;
        let _ = writeln!(
            o,
            "{:<10} {:<8} {:>4} {:>4} {:>4}  {:<5} {:<5} {:<5}  {}",
            g.name,
            g.processor.name(),
            g.wave_size,
            g.mode.to_string(),
            g.compute_units,
            yn(h.host_native_atomic_supported),
            yn(h.pageable_memory_access),
            yn(h.concurrent_managed_access),
            g.marketing_name
        );
    }
    let _ = writeln!(o, "hostA = hostNativeAtomicSupported, pageM = pageableMemoryAccess, concM = concurrentManagedAccess (HIP device properties)");
    o
}
