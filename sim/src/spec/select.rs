//! Which GPU and which of the spec's code objects to run.
//!
//! A spec may list several code objects for one processor (e.g. `gfx1100-w32-wgp` and
//! `gfx1100-w64-cu`), and an entry may be an offload bundle or a HIP host executable holding
//! code objects for several processors: each of those is a candidate of its own. The GPU is
//! `--gpu`, else the spec's `gpu` field, else the built-in GPU of the one processor the
//! candidates are for (when exactly one GPU has it). The code object is the candidate for the
//! GPU's processor; among several, the one that matches the GPU's default wave size and mode
//! (CU/WGP). `--code-object KEY` keeps only the entry `KEY`, `--target T` only the code objects
//! for target `T` (a processor such as `gfx942`, or a target id such as `gfx90a:xnack-`).

use super::error::{At, SpecError};
use super::files;
use super::model::Spec;
use crate::gpus::{self, GpuConfig, Mode};
use hipscope_isa::codeobj::{self, CodeObject, ContainerKind};
use hipscope_isa::Processor;
use std::path::{Path, PathBuf};

/// One code object a spec offers: an entry of `code_objects`, or one of the code objects inside
/// an entry that is a bundle or host executable.
#[derive(Debug, Clone)]
pub struct Entry {
    pub key: String,
    /// The file the entry names (the bundle for a code object inside one).
    pub path: PathBuf,
    /// The target id of a code object inside a bundle or host executable, `None` for a plain
    /// code object.
    pub inner: Option<String>,
    pub co: CodeObject,
}

impl Entry {
    pub fn processor(&self) -> Processor {
        self.co.target.processor
    }

    /// `KEY`, or `KEY [gfx942]` for a code object inside a bundle or host executable; for
    /// messages.
    pub fn label(&self) -> String {
        match &self.inner {
            Some(t) => format!("{} [{t}]", self.key),
            None => self.key.clone(),
        }
    }

    /// The label with the processor: `gfx90a (gfx90a)`, `any [gfx942]`.
    fn describe(&self) -> String {
        match &self.inner {
            Some(_) => self.label(),
            None => format!("{} ({})", self.key, self.processor()),
        }
    }

    /// Wave size and mode of `kernel` (or of the first kernel when it is absent).
    pub fn wave_and_mode(&self, kernel: &str) -> (u32, Mode) {
        let k = self.co.find_kernel(kernel).ok().or(self.co.kernels.first());
        let wave = k.map_or(64, |k| k.wave_size);
        let wgp = k.and_then(|k| k.descriptor.compute_pgm_rsrc1.wgp_mode).unwrap_or(false);
        (wave, if wgp { Mode::WGP } else { Mode::CU })
    }
}

/// Load every code object the spec lists (paths relative to `dir`, or absolute): a bundle or
/// host executable gives one entry per device code object inside it.
pub fn load_entries(at: At, spec: &Spec, dir: &Path) -> Result<Vec<Entry>, SpecError> {
    if spec.code_objects.is_empty() {
        return Err(at.err("code_objects", "empty: the spec must name at least one code object"));
    }
    let mut out = Vec::new();
    for (key, rel) in spec.code_objects.iter() {
        let path = files::resolve(dir, rel);
        let field = format!("code_objects.\"{key}\"");
        let bytes = files::read_bounded(&path, files::MAX_CODE_OBJECT_BYTES).map_err(|m| at.err(&field, m))?;
        let bad = |e: codeobj::LoadError| at.err(&field, format!("{}: {e}", files::full(&path).display()));
        let listing = codeobj::list_targets(&bytes).map_err(bad)?;
        if listing.container == ContainerKind::CodeObject {
            out.push(Entry { key: key.to_string(), path: path.clone(), inner: None, co: codeobj::load(&bytes, None).map_err(bad)? });
            continue;
        }
        let device: Vec<_> = listing.entries.iter().filter(|e| e.is_amdgpu()).collect();
        if device.is_empty() {
            return Err(bad(codeobj::LoadError::NoDeviceCode { entries: listing.entries.iter().map(|e| e.id.clone()).collect::<Vec<_>>().join(", ") }));
        }
        for e in device {
            // Each code object by its entry (byte range, and id inside a compressed bundle):
            // target ids may repeat (a host executable with several translation units).
            let co = codeobj::load_entry_at(&bytes, e, 0).map_err(|err| at.err(&field, format!("{}: entry {}: {err}", files::full(&path).display(), e.id)))?;
            let inner = e.target_id.clone().unwrap_or_else(|| co.target.target_id());
            out.push(Entry { key: key.to_string(), path: path.clone(), inner: Some(inner), co });
        }
    }
    Ok(out)
}

/// The candidates `--code-object KEY` and `--target T` leave (all entries without them).
pub fn restrict(at: At, entries: Vec<Entry>, key: Option<&str>, target: Option<&str>) -> Result<Vec<Entry>, SpecError> {
    let all: Vec<String> = entries.iter().map(Entry::describe).collect();
    let mut left = entries;
    if let Some(key) = key {
        if !left.iter().any(|e| e.key == key) {
            let mut keys: Vec<&str> = left.iter().map(|e| e.key.as_str()).collect();
            keys.dedup();
            return Err(SpecError::whole(at.file, format!("--code-object: no entry \"{key}\" (entries: {})", keys.join(", "))));
        }
        left.retain(|e| e.key == key);
    }
    if let Some(t) = target {
        let wanted = Wanted::parse(t).map_err(|m| SpecError::whole(at.file, format!("--target {t}: {m}")))?;
        left.retain(|e| wanted.matches(&e.co));
        if left.is_empty() {
            let within = key.map_or(String::new(), |k| format!(" in entry \"{k}\""));
            return Err(SpecError::whole(at.file, format!("--target {t}: no code object for it{within}; the spec has: {}", all.join(", "))));
        }
    }
    Ok(left)
}

/// A `--target` request: a processor (alias allowed) and, in a target id, its features.
struct Wanted {
    processor: Processor,
    features: Option<Vec<String>>,
}

impl Wanted {
    fn parse(t: &str) -> Result<Wanted, String> {
        let processor = t.parse::<Processor>().map_err(|_| "not a known processor or target id (e.g. gfx942, gfx90a:xnack-)".to_string())?;
        Ok(Wanted { processor, features: t.contains(':').then(|| features(t)) })
    }

    fn matches(&self, co: &CodeObject) -> bool {
        co.target.processor == self.processor && self.features.as_ref().is_none_or(|f| *f == features(&co.target.target_id()))
    }
}

/// Target-id features, sorted (`gfx90a:xnack-:sramecc+` → `[sramecc+, xnack-]`).
fn features(target_id: &str) -> Vec<String> {
    let mut f: Vec<String> = target_id.split(':').skip(1).filter(|s| !s.is_empty()).map(str::to_string).collect();
    f.sort_unstable();
    f
}

/// The GPU: `--gpu`, else the spec's `gpu`, else inferred from a single code object.
///
/// `entries` are the candidates [`restrict`] left. When `--target` restricted them to other
/// processors than the spec's `gpu` has, the GPU follows from them instead: the user asked for
/// that code object.
pub fn choose_gpu(at: At, spec: &Spec, entries: &[Entry], arg: Option<&str>, targeted: bool) -> Result<GpuConfig, SpecError> {
    if let Some(name) = arg {
        return gpus::resolve(name).map_err(|e| SpecError::whole(at.file, format!("--gpu: {e}")));
    }
    let procs: Vec<Processor> = entries.iter().map(Entry::processor).collect();
    if let Some(name) = &spec.gpu {
        let gpu = gpus::resolve(name).map_err(|e| at.err("gpu", e.to_string()))?;
        if !targeted || procs.contains(&gpu.processor) {
            return Ok(gpu);
        }
    }
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

/// Index of the entry to run on `gpu` among `entries` (what [`restrict`] left); `forced`
/// names the flags that restricted them (`--code-object KEY`, `--target T`), for messages.
pub fn choose_entry(at: At, entries: &[Entry], gpu: &GpuConfig, forced: Option<&str>, kernel: &str) -> Result<usize, SpecError> {
    let fits: Vec<usize> = (0..entries.len()).filter(|&i| entries[i].processor() == gpu.processor).collect();
    match (&fits[..], forced) {
        ([], Some(flags)) => {
            let mut procs: Vec<String> = entries.iter().map(|e| e.processor().to_string()).collect();
            procs.sort();
            procs.dedup();
            Err(SpecError::whole(at.file, format!("{flags} is for {}, GPU {} is {}", procs.join(", "), gpu.name, gpu.processor)))
        }
        ([], None) => {
            let have: Vec<String> = entries.iter().map(Entry::describe).collect();
            Err(SpecError::whole(at.file, format!("no code object for {} ({}); the spec has: {}", gpu.name, gpu.processor, have.join(", "))))
        }
        ([i], _) => Ok(*i),
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
            let keys: Vec<String> = top.iter().map(|&i| entries[i].label()).collect();
            Err(SpecError::whole(
                at.file,
                format!("code objects {} fit {} (wave{}, {} mode) equally: pass --code-object", keys.join(", "), gpu.name, gpu.wave_size, gpu.mode),
            ))
        }
    }
}
