//! Launch specs: a RON file that names code objects, buffers, dispatches and expectations
//! (documented in the README's "Launch specs", format in [`model`]), and the machinery that runs one.
//!
//! * [`read`]: a spec file to a [`Spec`];
//! * [`model`]: the serde types of the file format; [`expr`]: `params` and the integer
//!   expressions that sizes, geometry and arguments may be written as;
//! * [`files`]: reading the files a spec names, bounded, with full paths in errors;
//! * [`init`]: initial buffer contents; [`values`]: typed elements;
//! * [`args`]: kernel arguments, positional or by metadata name;
//! * [`select`]: which GPU and which of the spec's code objects (bundles included);
//! * [`build`]: a spec made as a value (generated launches), never as text to parse back;
//! * [`references`]: the seam for CPU reference models and their registry (the models are in
//!   the studies crate; a run is given the registry in [`RunOptions::references`]);
//! * [`checks`]: expectations validated before running, prepared before the first dispatch,
//!   evaluated after the last; [`expect`]: comparisons; [`runner`]: all of it in order;
//! * [`error`]: one-line errors naming the file and the field path (or line and column).

pub mod args;
pub mod build;
pub mod checks;
pub mod error;
pub mod expect;
pub mod expr;
pub mod files;
pub mod globals;
pub mod init;
pub mod model;
pub mod read;
pub mod references;
pub mod runner;
pub mod select;
pub mod values;

pub use build::SpecBuilder;
pub use error::SpecError;
pub use expect::Check;
pub use model::Spec;
pub use read::{load, load_with, parse, parse_with};
pub use runner::{run, run_file, run_file_observed, run_observed, run_on, DispatchReport, OpcodeFidelity, Report, RunError, RunOptions, Session};

/// The directory under `workloads/bin/` holding our builds for `processor` with `wave`-lane
/// waves in `mode` (`workloads/build.sh`): RDNA builds are per wave size and CU/WGP mode
/// (`gfx1100-w32-wgp`) except gfx1201, built once in its default mode; GCN/CDNA have one.
pub fn object_dir(processor: hipscope_isa::Processor, wave: u32, mode: crate::gpus::Mode) -> String {
    let p = processor.name();
    if processor.family().is_rdna() && p != "gfx1201" {
        format!("{p}-w{wave}-{}", mode.to_string().to_lowercase())
    } else {
        p.to_string()
    }
}
