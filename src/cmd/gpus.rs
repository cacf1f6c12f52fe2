//! `hipscope gpus`: the built-in GPU configs (`configs/*.ron`, embedded in the binary).

use super::CliError;
use hipscope_sim::gpus;
use hipscope_sim::gpus::provenance::{self, Field, Provenance};
use hipscope_sim::node::Node;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Print JSON (the configs as stored, one object per GPU).
    #[arg(long)]
    pub json: bool,
    /// Where each number of the built-in GPU and node configs comes from (measured, cited,
    /// doc, peak, assumed, calibrated: the first word of its comment), and which vendor peaks
    /// and assumed values feed the timing model. With --json, every field.
    #[arg(long)]
    pub fidelity: bool,
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    if args.fidelity {
        print!("{}", fidelity(args.json));
        return Ok(ExitCode::SUCCESS);
    }
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

/// One built-in config's scanned fields.
#[derive(serde::Serialize)]
struct Scanned {
    config: String,
    file: String,
    fields: Vec<Field>,
}

fn scanned() -> Vec<Scanned> {
    let gpus = gpus::builtin_texts().iter().map(|(n, t)| (n.to_string(), format!("configs/{n}.ron"), *t));
    let nodes = Node::builtin_texts().iter().map(|(n, t)| (format!("node {n}"), format!("configs/nodes/{n}.ron"), *t));
    gpus.chain(nodes).map(|(config, file, text)| Scanned { config, file, fields: provenance::scan(text) }).collect()
}

/// A GPU's `timing` section and every number of a node (host and links) feed the timing model.
fn feeds_timing(s: &Scanned, f: &Field) -> bool {
    s.config.starts_with("node ") || f.path.starts_with("timing.")
}

fn fidelity(json: bool) -> String {
    let all = scanned();
    if json {
        let mut s = serde_json::to_string_pretty(&all).unwrap_or_default();
        s.push('\n');
        return s;
    }
    let mut o = String::new();
    let _ = writeln!(o, "Provenance of the built-in configs' numbers: the first word of each value's comment (configs/README.md).");
    let _ = write!(o, "{:<20}", "config");
    for p in Provenance::ALL {
        let _ = write!(o, " {:>10}", p.word());
    }
    let _ = writeln!(o, " {:>8}  timing: {:>4} {:>7}", "unmarked", "peak", "assumed");
    for s in &all {
        let count = |p: Option<Provenance>, timing: bool| s.fields.iter().filter(|f| f.class == p && (!timing || feeds_timing(s, f))).count();
        let _ = write!(o, "{:<20}", s.config);
        for p in Provenance::ALL {
            let _ = write!(o, " {:>10}", count(Some(p), false));
        }
        let _ = writeln!(o, " {:>8}          {:>4} {:>7}", count(None, false), count(Some(Provenance::Peak), true), count(Some(Provenance::Assumed), true));
    }
    let _ = writeln!(o, "\nVendor peaks that feed timing (no sustained figure found; the model runs at the peak):");
    for s in &all {
        for f in s.fields.iter().filter(|f| f.class == Some(Provenance::Peak) && feeds_timing(s, f)) {
            let _ = writeln!(o, "  {:<20} {:<40} {:>10}  {}:{}", s.config, f.path, f.value, s.file, f.line);
        }
    }
    let _ = writeln!(o, "\nAssumed values that feed timing, by field (rates first):");
    let mut by_field: BTreeMap<(bool, &str), Vec<String>> = BTreeMap::new();
    for s in &all {
        for f in s.fields.iter().filter(|f| f.class == Some(Provenance::Assumed) && feeds_timing(s, f)) {
            by_field.entry((!f.is_rate(), f.path.as_str())).or_default().push(format!("{}={}", s.config.trim_start_matches("node "), f.value));
        }
    }
    for ((_, path), on) in by_field {
        let _ = writeln!(o, "  {:<44} {}", path, on.join(" "));
    }
    o
}
