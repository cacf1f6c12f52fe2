//! `hipscope nodes [NAME|FILE]`: the built-in nodes (`configs/nodes/*.ron`, embedded in the
//! binary), one line each, or one node's agents and links.

use super::CliError;
use hipscope_sim::node::{Agent, Node};
use std::fmt::Write as _;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// A built-in node or a node file to show in full (without it: list the built-in nodes).
    pub node: Option<String>,
    /// Print JSON (the configs as stored).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let nodes = match &args.node {
        Some(name) => vec![Node::load(name).map_err(|e| CliError::BadInput(e.to_string()))?],
        None => Node::builtins(),
    };
    let out = if args.json {
        let configs: Vec<_> = nodes.iter().map(|n| &n.config).collect();
        let mut s = if args.node.is_some() { serde_json::to_string_pretty(&configs[0]) } else { serde_json::to_string_pretty(&configs) }.unwrap_or_default();
        s.push('\n');
        s
    } else if args.node.is_some() {
        detail(&nodes[0])
    } else {
        table(&nodes)
    };
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}

fn table(all: &[Node]) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{:<16} {:>4} {:<24} {:<38}  node", "name", "GPUs", "GPU", "host");
    for n in all {
        let mut names: Vec<&str> = n.gpus.iter().map(|g| g.name.as_str()).collect();
        names.dedup();
        let _ = writeln!(o, "{:<16} {:>4} {:<24} {:<38}  {}", n.name(), n.gpus.len(), names.join(","), n.config.host.model, n.config.description);
    }
    let _ = writeln!(o, "hipscope nodes NAME shows a node's agents and links");
    o
}

fn detail(n: &Node) -> String {
    let mut o = String::new();
    let c = &n.config;
    let _ = writeln!(o, "{}: {} ({})", c.name, c.description, c.origin);
    let h = &c.host;
    let _ = writeln!(o, "agents:");
    let _ = writeln!(o, "  host   {}, {} cores, memory {} ns, {} GB/s", h.model, h.cores, h.memory_latency_ns, h.memory_bandwidth_bytes_per_ns);
    for (i, g) in n.gpus.iter().enumerate() {
        let _ = writeln!(o, "  gpu {i:<2} {} ({}, {})", g.name, g.marketing_name, g.processor.name());
    }
    let _ = writeln!(o, "links (latency one way, bandwidth per direction):");
    for (a, b, l) in n.links() {
        let figures = |from: Agent, to: Agent| match n.direction(from, to) {
            Some(d) => format!("{} ns, {} GB/s", d.latency_ns, d.bandwidth_bytes_per_ns),
            None => String::new(),
        };
        let (there, back) = (figures(a, b), figures(b, a));
        let both = if there == back { there } else { format!("{there} ({b} to {a}: {back})") };
        let _ = writeln!(o, "  {:<6} - {:<6} {:<16} {both}; carries {}", a.to_string(), b.to_string(), l.kind.to_string(), l.carries);
    }
    o
}
