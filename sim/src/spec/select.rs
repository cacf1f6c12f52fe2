//! Which GPU and which of the spec's code objects to run.
//!
//! A spec may list several code objects for one processor (e.g. `gfx1100-w32-wgp` and
//! `gfx1100-w64-cu`). The GPU is `--gpu`, else the spec's `gpu` field, else the built-in GPU of
//! the processor of the spec's only code object (when exactly one GPU has it). The code object
//! is `--code-object KEY` when given; else the one entry for the GPU's processor; among several,
//! the one that matches the GPU's default wave size and mode (CU/WGP).

use super::error::{At, SpecError};
use super::model::Spec;
use crate::gpus::{self, GpuConfig, Mode};
use hipscope_isa::codeobj::{self, CodeObject};
use hipscope_isa::Processor;
use std::path::{Path, PathBuf};

/// One `code_objects` entry, loaded.
#[derive(Debug, Clone)]
pub struct Entry {
    pub key: String,
    pub path: PathBuf,
    pub co: CodeObject,
}

impl Entry {
    pub fn processor(&self) -> Processor {
        self.co.target.processor
    }

    /// Wave size and mode of `kernel` (or of the first kernel when it is absent).
    pub fn wave_and_mode(&self, kernel: &str) -> (u32, Mode) {
        let k = self.co.kernel(kernel).or(self.co.kernels.first());
        let wave = k.map_or(64, |k| k.wave_size);
        let wgp = k.and_then(|k| k.descriptor.compute_pgm_rsrc1.wgp_mode).unwrap_or(false);
        (wave, if wgp { Mode::WGP } else { Mode::CU })
    }
}

/// Load every code object the spec lists (paths relative to `dir`).
pub fn load_entries(at: At, spec: &Spec, dir: &Path) -> Result<Vec<Entry>, SpecError> {
    if spec.code_objects.is_empty() {
        return Err(at.err("code_objects", "empty: the spec must name at least one code object"));
    }
    spec.code_objects
        .iter()
        .map(|(key, rel)| {
            let path = dir.join(rel);
            let field = format!("code_objects.\"{key}\"");
            let bytes = std::fs::read(&path).map_err(|e| at.err(&field, format!("cannot read {}: {e}", path.display())))?;
            let co = codeobj::load(&bytes, None).map_err(|e| at.err(&field, format!("{}: {e}", path.display())))?;
            Ok(Entry { key: key.to_string(), path, co })
        })
        .collect()
}

/// The GPU: `--gpu`, else the spec's `gpu`, else inferred from a single code object.
pub fn choose_gpu(at: At, spec: &Spec, entries: &[Entry], arg: Option<&str>) -> Result<GpuConfig, SpecError> {
    if let Some(name) = arg {
        return gpus::resolve(name).map_err(|e| SpecError::whole(at.file, format!("--gpu: {e}")));
    }
    if let Some(name) = &spec.gpu {
        return gpus::resolve(name).map_err(|e| at.err("gpu", e.to_string()));
    }
    let procs: Vec<Processor> = entries.iter().map(Entry::processor).collect();
    let mut unique = procs.clone();
    unique.sort();
    unique.dedup();
    if let [p] = unique[..] {
        let gpus = gpus::builtins_for(p);
        if let [g] = &gpus[..] {
            return Ok(g.clone());
        }
        let names: Vec<String> = gpus.iter().map(|g| g.name.clone()).collect();
        return Err(SpecError::whole(at.file, format!("several built-in GPUs run {p} ({}): pass --gpu", names.join(", "))));
    }
    let choices: Vec<String> = gpus::builtins().iter().filter(|g| procs.contains(&g.processor)).map(|g| format!("{} ({})", g.name, g.processor)).collect();
    Err(SpecError::whole(at.file, format!("no GPU given: pass --gpu (GPUs for this spec's code objects: {})", choices.join(", "))))
}

/// Index of the entry to run on `gpu`.
pub fn choose_entry(at: At, entries: &[Entry], gpu: &GpuConfig, forced: Option<&str>, kernel: &str) -> Result<usize, SpecError> {
    if let Some(key) = forced {
        let i = entries.iter().position(|e| e.key == key).ok_or_else(|| {
            let keys: Vec<&str> = entries.iter().map(|e| e.key.as_str()).collect();
            SpecError::whole(at.file, format!("--code-object: no entry \"{key}\" (entries: {})", keys.join(", ")))
        })?;
        if entries[i].processor() != gpu.processor {
            return Err(SpecError::whole(at.file, format!("--code-object {key} is for {}, GPU {} is {}", entries[i].processor(), gpu.name, gpu.processor)));
        }
        return Ok(i);
    }
    let fits: Vec<usize> = (0..entries.len()).filter(|&i| entries[i].processor() == gpu.processor).collect();
    match fits[..] {
        [] => {
            let have: Vec<String> = entries.iter().map(|e| format!("{} ({})", e.key, e.processor())).collect();
            Err(SpecError::whole(at.file, format!("no code object for {} ({}); the spec has: {}", gpu.name, gpu.processor, have.join(", "))))
        }
        [i] => Ok(i),
        _ => best_match(at, entries, &fits, gpu, kernel),
    }
}

/// Among several objects for the GPU's processor: the one matching its default wave size and mode.
fn best_match(at: At, entries: &[Entry], fits: &[usize], gpu: &GpuConfig, kernel: &str) -> Result<usize, SpecError> {
    let score = |i: usize| {
        let (wave, mode) = entries[i].wave_and_mode(kernel);
        2 * u32::from(wave == gpu.wave_size) + u32::from(mode == gpu.mode)
    };
    let best = fits.iter().map(|&i| score(i)).max().unwrap_or(0);
    let top: Vec<usize> = fits.iter().copied().filter(|&i| score(i) == best).collect();
    match top[..] {
        [i] => Ok(i),
        _ => {
            let keys: Vec<&str> = top.iter().map(|&i| entries[i].key.as_str()).collect();
            Err(SpecError::whole(
                at.file,
                format!("code objects {} fit {} (wave{}, {} mode) equally: pass --code-object", keys.join(", "), gpu.name, gpu.wave_size, gpu.mode),
            ))
        }
    }
}
