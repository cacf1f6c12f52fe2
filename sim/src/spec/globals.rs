//! A code object's variables in a spec: `globals: {"d_mask": Values(F32, [..])}` writes a
//! `__device__` or `__constant__` variable before the first dispatch, and
//! `expect: [(global: "retirementCount", equals: U32([..]))]` checks one after the last. The
//! device maps the object's data sections first ([`crate::launch::Device::map_code_object`]),
//! so every variable already holds its initialiser from the object (`.bss` zero); the spec
//! only overrides. Inside the session a variable is one more named region, `global NAME`.

use super::error::{At, SpecError};
use super::init::contents;
use super::model::{Buffer, MemoryType, Spec};
use crate::launch::Device;
use std::collections::BTreeSet;
use std::path::Path;

/// The session's name for variable `name`.
pub fn key(name: &str) -> String {
    format!("global {name}")
}

/// A variable the spec writes or checks: its address, size and contents before the run.
pub struct Placed {
    pub key: String,
    pub address: u64,
    pub size: u64,
    pub initial: Vec<u8>,
}

/// Write the `globals` of `spec` into the device's mapped variables; returns every variable
/// the spec writes or expects, with its contents before the run.
pub fn place(at: At, spec: &Spec, dir: &Path, dev: &mut Device) -> Result<Vec<Placed>, SpecError> {
    let mut out = Vec::new();
    for (name, init) in spec.globals.iter() {
        let field = format!("globals.{name}");
        let (address, size) = find(at, &field, dev, name)?;
        let b = Buffer { bytes: Some(size), init: init.clone(), memory: MemoryType::Device, owner: crate::memory::Owner::Local, patch: Vec::new() };
        let mut bytes = contents(at, &field, &b, dir)?;
        if bytes.len() as u64 > size {
            return Err(at.err(field, format!("{} bytes do not fit in `{name}`, which is {size} bytes", bytes.len())));
        }
        bytes.resize(size as usize, 0);
        dev.mem.write(address, &bytes).map_err(|_| at.err(&field, format!("`{name}` at {address:#x} is not mapped")))?;
        out.push(Placed { key: key(name), address, size, initial: bytes });
    }
    let written: BTreeSet<&str> = spec.globals.keys().collect();
    for (i, e) in spec.expect.iter().enumerate() {
        let Some(name) = e.global.as_deref().filter(|n| !written.contains(n)) else { continue };
        if out.iter().any(|p| p.key == key(name)) {
            continue;
        }
        let (address, size) = find(at, &format!("expect[{i}].global"), dev, name)?;
        let mut initial = vec![0u8; size as usize];
        dev.mem.read(address, &mut initial).map_err(|_| at.err(format!("expect[{i}].global"), format!("`{name}` at {address:#x} is not mapped")))?;
        out.push(Placed { key: key(name), address, size, initial });
    }
    Ok(out)
}

/// Address and size of variable `name`, or an error listing the object's variables.
fn find(at: At, field: &str, dev: &Device, name: &str) -> Result<(u64, u64), SpecError> {
    match dev.global(name) {
        Some(g) if g.size > 0 => Ok((g.address, g.size)),
        Some(_) => Err(at.err(field, format!("`{name}` has size 0 in the code object"))),
        None => {
            let names: Vec<&str> = dev.globals().iter().map(|g| g.name.as_str()).collect();
            let list = if names.is_empty() { "it has none".to_string() } else { format!("it has {}", names.join(", ")) };
            Err(at.err(field, format!("the code object has no variable `{name}` ({list})")))
        }
    }
}
