//! Kernel arguments: match the spec's values to the kernel's explicit (non-hidden) arguments
//! and encode them. Hidden arguments are the engine's business (`Device::launch`).

use super::error::{At, SpecError};
use super::model::{Arg, Args, Dispatch};
use crate::kernel::LoadedKernel;
use hipscope_isa::codeobj::{KernelArg, ValueKind};
use std::collections::BTreeMap;

/// Buffer name → (device address, size in bytes).
pub type BufferTable = BTreeMap<String, (u64, u64)>;

/// A dispatch's arguments in metadata order: the spec values (for references) and their bytes
/// (for `Device::launch`).
#[derive(Debug, Clone)]
pub struct Resolved {
    pub values: Vec<Arg>,
    pub bytes: Vec<Vec<u8>>,
}

/// The explicit arguments, as `Device::launch` counts them.
pub fn user_args(kernel: &LoadedKernel) -> Vec<&KernelArg> {
    kernel.kernarg.as_ref().map_or(Vec::new(), |l| l.args.iter().filter(|a| !matches!(a.value_kind, ValueKind::Hidden(_))).collect())
}

pub fn resolve(at: At, di: usize, d: &Dispatch, kernel: &LoadedKernel, buffers: &BufferTable) -> Result<Resolved, SpecError> {
    let path = format!("dispatches[{di}].args");
    let metas = user_args(kernel);
    let values = match &d.args {
        Args::Positional(v) => {
            if kernel.kernarg.is_some() && v.len() != metas.len() {
                return Err(at.err(&path, format!("kernel `{}` takes {} argument(s) ({}), {} given", kernel.name, metas.len(), describe_all(&metas), v.len())));
            }
            v.clone()
        }
        Args::Named(m) => by_name(at, &path, kernel, &metas, m)?,
    };
    let mut bytes = Vec::with_capacity(values.len());
    for (i, v) in values.iter().enumerate() {
        let b = encode(v, kernel, buffers).map_err(|m| at.err(format!("{path}[{i}]"), m))?;
        if let Some(meta) = metas.get(i) {
            if b.len() as u64 != meta.size {
                return Err(at.err(format!("{path}[{i}]"), format!("{} is {} bytes; argument {} is {} bytes", v.kind(), b.len(), describe(i, meta), meta.size)));
            }
        }
        bytes.push(b);
    }
    Ok(Resolved { values, bytes })
}

fn by_name(at: At, path: &str, kernel: &LoadedKernel, metas: &[&KernelArg], m: &super::model::OrderedMap<Arg>) -> Result<Vec<Arg>, SpecError> {
    if kernel.kernarg.is_none() || metas.iter().any(|a| a.name.is_none()) {
        return Err(at.err(path, format!("kernel `{}` has unnamed arguments; give them as a positional list", kernel.name)));
    }
    let names: Vec<&str> = metas.iter().filter_map(|a| a.name.as_deref()).collect();
    if let Some(unknown) = m.keys().find(|k| !names.contains(k)) {
        return Err(at.err(format!("{path}.{unknown}"), format!("kernel `{}` has no argument `{unknown}` (arguments: {})", kernel.name, names.join(", "))));
    }
    names.iter().map(|n| m.get(n).cloned().ok_or_else(|| at.err(path, format!("missing argument `{n}` of kernel `{}`", kernel.name)))).collect()
}

fn encode(v: &Arg, kernel: &LoadedKernel, buffers: &BufferTable) -> Result<Vec<u8>, String> {
    match v {
        Arg::Buffer(name) => buffers
            .get(name)
            .map(|(addr, _)| addr.to_le_bytes().to_vec())
            .ok_or_else(|| format!("no buffer named \"{name}\" (buffers: {})", buffers.keys().cloned().collect::<Vec<_>>().join(", "))),
        // Dynamic LDS follows the kernel's static LDS (the group segment).
        Arg::DynamicLds => Ok(kernel.descriptor.group_segment_fixed_size.to_le_bytes().to_vec()),
        other => other.scalar_bytes().ok_or_else(|| "internal: value without bytes".to_string()),
    }
}

/// `2 (`n`, by_value u32)` for messages.
fn describe(i: usize, a: &KernelArg) -> String {
    let name = a.name.as_deref().map(|n| format!("`{n}`, ")).unwrap_or_default();
    let ty = a.type_name.as_deref().map(|t| format!(" {t}")).unwrap_or_default();
    format!("{i} ({name}{}{ty})", a.value_kind)
}

fn describe_all(metas: &[&KernelArg]) -> String {
    metas.iter().map(|a| format!("{}:{}", a.name.as_deref().unwrap_or("?"), a.size)).collect::<Vec<_>>().join(", ")
}
