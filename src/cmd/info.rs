//! `hipscope info`: what a code object (or bundle, or HIP executable) contains.
//!
//! The text form is for people; `--json` prints the same data as serde_json of
//! [`hipscope_isa::codeobj`] types (field names are the Rust field names, enums snake_case).
//! Values beyond a hardware limit ([`limits::check_kernel`]) are warnings: a `warning:` line
//! after the kernel, and `warnings` in JSON; the file still loads.

use super::CliError;
use hipscope_isa::codeobj::limits::{self, Violation};
use hipscope_isa::codeobj::{self, CodeObject, Kernel, KernelArg, Listing, SgprSlot};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Code object, offload bundle or HIP executable.
    pub file: PathBuf,
    /// Which code object to use when the file holds several (e.g. gfx90a, gfx942:xnack-).
    #[arg(long)]
    pub target: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let bytes = super::read_input(&args.file)?;
    let bad = |e: codeobj::LoadError| CliError::BadInput(format!("{}: {e}", args.file.display()));
    let listing = codeobj::list_targets(&bytes).map_err(bad)?;
    let co = codeobj::load(&bytes, args.target.as_deref()).map_err(bad)?;
    let out = if args.json { json_report(args, &listing, &co) } else { text_report(args, &listing, &co) };
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}

/// Every kernel's limit violations, in kernel order.
fn violations(co: &CodeObject) -> Vec<(&Kernel, Vec<Violation>)> {
    let family = co.target.processor.family();
    co.kernels.iter().map(|k| (k, limits::check_kernel(k, family))).collect()
}

fn json_report(args: &Args, listing: &Listing, co: &CodeObject) -> String {
    // `warnings`: one object per violated limit, with its one-line message.
    let warnings: Vec<Value> = violations(co)
        .into_iter()
        .flat_map(|(k, vs)| vs.into_iter().map(move |v| (k, v)))
        .map(|(k, v)| {
            let mut o = to_value(&v);
            if let Value::Object(m) = &mut o {
                m.insert("kernel".into(), Value::String(k.name.clone()));
                m.insert("message".into(), Value::String(format!("kernel {}: {v}", esc(&k.name))));
            }
            o
        })
        .collect();
    // Each kernel also gets `demangled`: its C++ source name, null for unmangled names.
    let mut code_object = to_value(co);
    if let Some(kernels) = code_object.get_mut("kernels").and_then(Value::as_array_mut) {
        for (k, v) in co.kernels.iter().zip(kernels) {
            if let Some(obj) = v.as_object_mut() {
                obj.insert("demangled".into(), json!(k.demangled()));
            }
        }
    }
    let v = json!({
        "file": args.file.display().to_string(),
        "container": listing.container,
        "entries": listing.entries,
        "code_object": code_object,
        "warnings": warnings,
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

/// Control characters and non-ASCII in names from the file, escaped so each item stays on its line.
fn esc(s: &str) -> String {
    s.chars().flat_map(|c| if c.is_ascii_graphic() || c == ' ' { vec![c] } else { c.escape_default().collect() }).collect()
}

fn text_report(args: &Args, listing: &Listing, co: &CodeObject) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "file: {}", args.file.display());
    header(&mut o, listing, co);
    for (k, vs) in violations(co) {
        kernel(&mut o, co, k);
        for v in vs {
            let _ = writeln!(o, "  warning: {v}");
        }
    }
    o
}

fn header(o: &mut String, listing: &Listing, co: &CodeObject) {
    let container = serde_plain(&listing.container);
    let _ = writeln!(o, "container: {container}");
    for e in &listing.entries {
        let mark = if co.source.entry.as_deref() == Some(e.id.as_str()) { " (loaded)" } else { "" };
        let _ = writeln!(o, "  entry {} at {:#x}, {} bytes{mark}", esc(&e.id), e.offset, e.size);
    }
    let _ = writeln!(o, "target: {} (family {})", co.target.target_id(), co.target.processor.family());
    let _ = writeln!(
        o,
        "code object: v{}, {}, e_flags {:#x}{}",
        co.code_object_version,
        serde_plain(&co.elf_type),
        co.e_flags,
        if co.generic_version != 0 { format!(", generic version {}", co.generic_version) } else { String::new() }
    );
    if let Some(isa) = &co.isa_version_note {
        let _ = writeln!(o, "isa note: {}:{} {}.{}.{}", esc(&isa.vendor), esc(&isa.architecture), isa.major, isa.minor, isa.stepping);
    }
    if let Some(m) = &co.metadata {
        let version = m.version.map(|[a, b]| format!("{a}.{b}")).unwrap_or_else(|| "?".into());
        let target = m.target.as_deref().map(|t| format!(", target {}", esc(t))).unwrap_or_default();
        let _ = writeln!(o, "metadata: {}, version {version}{target}", serde_plain(&m.format));
    }
    for s in &co.sections {
        let flags = format!("{}{}{}", if s.executable { "x" } else { "" }, if s.writable { "w" } else { "" }, if s.nobits { " nobits" } else { "" });
        let _ = writeln!(o, "section {} at {:#x}, {} bytes, align {} {flags}", esc(&s.name), s.address, s.size, s.align);
    }
    for w in &co.warnings {
        let _ = writeln!(o, "warning: {}", esc(w));
    }
    for v in &co.data_symbols {
        let _ = writeln!(o, "variable {} at {:#x}, {} bytes ({})", esc(&v.name), v.address, v.size, esc(&v.section));
    }
    let _ = writeln!(o, "kernels: {}", co.kernels.len());
}

/// An enum's serde name (`offload_bundle`).
fn serde_plain<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => "?".into(),
    }
}

/// `key value` pairs of a struct, flattened, skipping fields reserved on this family (null).
fn fields(v: &Value) -> String {
    let mut parts = Vec::new();
    flatten("", v, &mut parts);
    parts.join(" ")
}

fn flatten(prefix: &str, v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                if k != "raw" {
                    flatten(&key, v, out);
                }
            }
        }
        Value::Null => {}
        Value::Bool(b) => out.push(format!("{prefix}={}", u8::from(*b))),
        Value::String(s) => out.push(format!("{prefix}={}", esc(s))),
        other => out.push(format!("{prefix}={other}")),
    }
}

fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

fn kernel(o: &mut String, co: &CodeObject, k: &Kernel) {
    let d = &k.descriptor;
    let _ = writeln!(o, "\nkernel {} (symbol {})", esc(&k.name), esc(&k.symbol));
    if let Some(source) = k.demangled() {
        let _ = writeln!(o, "  source name: {}", esc(&source));
    }
    let _ = writeln!(
        o,
        "  descriptor at {:#x}, entry at {:#x} (entry byte offset {})",
        k.descriptor_address,
        k.entry_address,
        signed_hex(d.kernel_code_entry_byte_offset)
    );
    let _ = writeln!(
        o,
        "  segments: group {} B, private {} B, kernarg {} B; wave size {}",
        d.group_segment_fixed_size, d.private_segment_fixed_size, d.kernarg_size, k.wave_size
    );
    registers(o, k);
    sgprs(o, "user SGPRs", &k.initial_sgprs.user, Some(d.compute_pgm_rsrc2.user_sgpr_count));
    sgprs(o, "system SGPRs", &k.initial_sgprs.system, None);
    let _ = writeln!(o, "  compute_pgm_rsrc1 {:#010x}: {}", d.compute_pgm_rsrc1.raw, fields(&to_value(&d.compute_pgm_rsrc1)));
    let _ = writeln!(o, "  compute_pgm_rsrc2 {:#010x}: {}", d.compute_pgm_rsrc2.raw, fields(&to_value(&d.compute_pgm_rsrc2)));
    let _ = writeln!(o, "  compute_pgm_rsrc3 {:#010x}: {}", d.compute_pgm_rsrc3.raw(), fields(&to_value(&d.compute_pgm_rsrc3)));
    let props = &d.kernel_code_properties;
    let _ = writeln!(o, "  kernel_code_properties {:#06x}: {}", props.raw, fields(&to_value(props)));
    let _ = writeln!(o, "  kernarg_preload: {}", fields(&to_value(&d.kernarg_preload)));
    if let Some(c) = &k.amd_kernel_code {
        let _ = writeln!(o, "  amd_kernel_code_t: {}", fields(&to_value(c)));
    }
    metadata(o, k);
    let _ = co;
}

fn signed_hex(v: i64) -> String {
    if v < 0 {
        format!("-{:#x}", v.unsigned_abs())
    } else {
        format!("{v:#x}")
    }
}

fn registers(o: &mut String, k: &Kernel) {
    let r = &k.registers;
    let mut line = format!("  registers: vgprs {} (granule {})", r.vgprs, r.vgpr_granule);
    if let (Some(a), Some(g)) = (r.accum_offset, r.agprs_allocated) {
        let _ = write!(line, ", accum_offset {a}, agprs allocated {g}");
    }
    match r.sgpr_granule {
        Some(g) => {
            let _ = write!(line, ", sgprs {} (granule {g})", r.sgprs);
        }
        None => {
            let _ = write!(line, ", sgprs {} (fixed)", r.sgprs);
        }
    }
    if let Some(m) = &k.metadata {
        let agpr = m.agpr_count.map(|a| format!(" agpr {a}")).unwrap_or_default();
        let _ = write!(line, "; metadata: vgpr {} sgpr {}{agpr}", m.vgpr_count, m.sgpr_count);
        if let (Some(s), Some(v)) = (m.sgpr_spill_count, m.vgpr_spill_count) {
            let _ = write!(line, " spills sgpr {s} vgpr {v}");
        }
    }
    let _ = writeln!(o, "{line}");
}

fn sgprs(o: &mut String, what: &str, slots: &[SgprSlot], count: Option<u32>) {
    let list: Vec<String> = slots
        .iter()
        .map(|s| {
            let regs = if s.count == 1 { format!("s{}", s.first) } else { format!("s[{}:{}]", s.first, s.first + s.count - 1) };
            format!("{regs} {}", serde_plain(&s.value))
        })
        .collect();
    let count = count.map(|c| format!(" (USER_SGPR_COUNT {c})")).unwrap_or_default();
    let list = if list.is_empty() { "none".to_string() } else { list.join(", ") };
    let _ = writeln!(o, "  {what}{count}: {list}");
}

fn metadata(o: &mut String, k: &Kernel) {
    let Some(m) = &k.metadata else {
        let _ = writeln!(o, "  metadata: none");
        return;
    };
    let mut extra = vec![format!("max_flat_workgroup_size {}", m.max_flat_workgroup_size)];
    if let Some(l) = &m.language {
        let v = m.language_version.map(|[a, b]| format!(" {a}.{b}")).unwrap_or_default();
        extra.push(format!("language {}{v}", esc(l)));
    }
    for (name, v) in [
        ("uses_dynamic_stack", m.uses_dynamic_stack),
        ("workgroup_processor_mode", m.workgroup_processor_mode),
        ("uniform_work_group_size", m.uniform_work_group_size),
    ] {
        if let Some(v) = v {
            extra.push(format!("{name} {}", u8::from(v)));
        }
    }
    if let Some([x, y, z]) = m.reqd_workgroup_size {
        extra.push(format!("reqd_workgroup_size {x},{y},{z}"));
    }
    let _ = writeln!(o, "  metadata: {}", extra.join(", "));
    let l = &m.kernarg;
    let computed = if l.offsets_computed { ", offsets computed from sizes and alignments" } else { "" };
    let _ = writeln!(o, "  kernargs: {} bytes, align {}{computed}", l.segment_size, l.segment_align);
    let _ = writeln!(o, "    {:>6} {:>5}  {:<28} {:<9} {:<12} type", "offset", "size", "value kind", "space", "name");
    for a in &l.args {
        arg(o, a);
    }
}

fn arg(o: &mut String, a: &KernelArg) {
    let space = a.address_space.map(|s| serde_plain(&s)).unwrap_or_else(|| "-".into());
    let name = a.name.as_deref().map(esc).unwrap_or_else(|| "-".into());
    let ty = a.type_name.as_deref().map(esc).unwrap_or_else(|| "-".into());
    let mut flags = String::new();
    for (on, f) in [(a.is_const, " const"), (a.is_restrict, " restrict"), (a.is_volatile, " volatile"), (a.is_pipe, " pipe")] {
        if on {
            flags.push_str(f);
        }
    }
    let kind = esc(&a.value_kind.as_str());
    let _ = writeln!(o, "    {:>6} {:>5}  {kind:<28} {space:<9} {name:<12} {ty}{flags}", a.offset, a.size);
}
