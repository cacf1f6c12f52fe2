//! `hipscope scopes`: what synchronization costs at each scope, per GPU and mode, with the
//! instructions the compiler emitted and the cache actions they caused (the suite in
//! `hipscope_studies::scopes`). Writes `scopes.md` and one SVG per GPU to `--out`.

mod output;
mod plot;

use super::common_args::WorkloadsArg;
use super::{progress, CliError};
use hipscope_sim::gpus::{self, Mode};
use hipscope_studies::scopes::{self, Progress, Row, Target};
use indicatif::ProgressBar;
use rayon::prelude::*;
use std::path::PathBuf;
use std::process::ExitCode;

/// `--cu-mode`: CU or WGP mode, or CU mode with `-mtgsplit` code.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CuModeArg {
    Cu,
    Wgp,
    /// CU mode with code built by `-mtgsplit` (gfx90a, gfx942, gfx950): a work-group's waves spread
    /// over several CUs.
    Tgsplit,
}

impl CuModeArg {
    fn mode(self) -> Mode {
        match self {
            CuModeArg::Cu | CuModeArg::Tgsplit => Mode::CU,
            CuModeArg::Wgp => Mode::WGP,
        }
    }

    fn tgsplit(self) -> bool {
        self == CuModeArg::Tgsplit
    }
}

/// `--placement`: which system-scope rows by data placement to add.
#[derive(Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum PlacementArg {
    /// None.
    None,
    /// On MI300X (GPU 0 of mi300x-8): a fence, an acquire load, a release store and an RMW at
    /// system scope, one wave, no dirty data, for each placement.
    #[default]
    Default,
    /// Every scoped global operation at agent and system scope, 0 and 64 KiB dirty, every
    /// contention and placement, on every GPU given (tgsplit builds excepted).
    All,
}

impl PlacementArg {
    fn set(self) -> scopes::Placements {
        match self {
            PlacementArg::None => scopes::Placements::None,
            PlacementArg::Default => scopes::Placements::Default,
            PlacementArg::All => scopes::Placements::All,
        }
    }
}

#[derive(clap::Args)]
pub struct Args {
    /// GPUs (built-in names or config files), comma-separated or repeated [default: mi355x,
    /// mi300x and mi210 (each also in tgsplit mode), rx7900xtx (WGP and CU mode), rx6900xt,
    /// r9nano].
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    pub gpu: Vec<String>,
    /// Only this mode: CU or WGP (RDNA; GCN and CDNA GPUs have CU mode only), or tgsplit
    /// (gfx90a, gfx942 and gfx950 code built with -mtgsplit).
    // `--mode`, its old name, stays a hidden alias for scripts written for it.
    #[arg(long, value_enum, alias = "mode")]
    pub cu_mode: Option<CuModeArg>,
    /// Print the rows as JSON (`[{gpu, mode, op, scope, footprint_bytes, contention,
    /// cycles_median, cycles_min, cycles_max, sequence, actions}]`; the contended-atomic rows
    /// also `addresses, lanes, lanes_per_address, span_cycles, atomics_per_cycle`; the
    /// placement rows `placement, node`).
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print the rows as CSV.
    #[arg(long)]
    pub csv: bool,
    /// Also write the report: DIR/scopes.md and one plot per GPU, DIR/scopes-<gpu>.svg
    /// (`--out reports` regenerates the repository's report). Without it nothing is written.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// System-scope rows by where the data lives (device, fine-grained device, pinned host,
    /// peer GPU memory), each GPU on a node that holds it (mi300x-8, mi300a-4,
    /// rx7900xtx-pcie; others alone on a PCIe link); the rows add `placement` and `node`.
    #[arg(long, value_enum, default_value = "default")]
    pub placement: PlacementArg,
    #[command(flatten)]
    pub workloads: WorkloadsArg,
}

/// The targets the arguments select.
fn targets(args: &Args) -> Result<Vec<Target>, CliError> {
    let mut out = Vec::new();
    if args.gpu.is_empty() {
        for (name, mode, tgsplit) in scopes::DEFAULT_TARGETS {
            let gpu = gpus::builtin(name).map_err(|e| CliError::BadInput(e.to_string()))?;
            out.push(Target { gpu, mode, tgsplit });
        }
    } else {
        for name in &args.gpu {
            let gpu = gpus::resolve(name).map_err(|e| CliError::BadInput(format!("--gpu: {e}")))?;
            let modes =
                if gpu.processor.family().is_rdna() && args.cu_mode.is_none() { vec![gpu.mode] } else { vec![args.cu_mode.map_or(Mode::CU, CuModeArg::mode)] };
            for mode in modes {
                out.push(Target { gpu: gpu.clone(), mode, tgsplit: args.cu_mode.is_some_and(CuModeArg::tgsplit) });
            }
        }
    }
    if let Some(m) = args.cu_mode {
        out.retain(|t| t.tgsplit == m.tgsplit() && (t.mode == m.mode() || !t.gpu.processor.family().is_rdna() && m == CuModeArg::Cu));
    }
    if let Some(t) = out.iter().find(|t| !t.available()) {
        return Err(CliError::BadInput(format!("{}: no {} mode build of the scope suite for {}", t.gpu.name, t.mode, t.gpu.processor.name())));
    }
    if out.is_empty() {
        return Err(CliError::BadInput("--cu-mode: none of the GPUs runs in that mode".into()));
    }
    Ok(out)
}

struct Bar(ProgressBar);

impl Progress for Bar {
    fn step(&self, what: &str) {
        self.0.set_message(what.to_string());
        self.0.inc(1);
    }
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let workloads = args.workloads.locate()?;
    let targets = targets(args)?;
    let set = args.placement.set();
    let bar = Bar(progress(targets.iter().map(|t| scopes::case_count(t, set)).sum()));
    // Targets are independent simulations: run them in parallel, keep their order.
    let all = scopes::Filter::default();
    let results: Vec<Result<Vec<Row>, String>> = targets.par_iter().map(|t| scopes::run_target_placed(t, &workloads, &bar, &all, set)).collect();
    bar.0.finish_and_clear();
    let mut rows = Vec::new();
    for r in results {
        rows.extend(r.map_err(CliError::BadInput)?);
    }
    let text = if args.json {
        serde_json::to_string_pretty(&rows).map_err(|e| CliError::BadInput(e.to_string()))? + "\n"
    } else if args.csv {
        output::csv(&rows)
    } else {
        output::text(&rows)
    };
    // The report first: a reader that closes stdout early (SIGPIPE) must not cost the files.
    if let Some(out) = &args.out {
        let flags = match args.placement {
            PlacementArg::Default => "",
            PlacementArg::All => " --placement all",
            PlacementArg::None => " --placement none",
        };
        write_report(out, &rows, flags)?;
    }
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// `DIR/scopes.md` and `DIR/scopes-<gpu>.svg`; says on stderr what it wrote.
fn write_report(out: &std::path::Path, rows: &[Row], flags: &str) -> Result<(), CliError> {
    std::fs::create_dir_all(out).map_err(|e| CliError::BadInput(format!("{}: {e}", out.display())))?;
    let md = out.join("scopes.md");
    std::fs::write(&md, output::markdown(rows, flags)).map_err(|e| CliError::BadInput(format!("{}: {e}", md.display())))?;
    let mut written = vec![md.display().to_string()];
    // The plots show the suite's own rows.
    let (suite, _) = output::split(rows);
    for gpu in output::gpus(rows) {
        let svg = out.join(format!("scopes-{gpu}.svg"));
        plot::write_svg(&svg, &gpu, &suite).map_err(CliError::BadInput)?;
        written.push(svg.display().to_string());
    }
    eprintln!("wrote {}", written.join(", "));
    Ok(())
}
