//! Expectations in three steps, so that a spec's mistakes show before anything runs:
//!
//! 1. [`validate`] (when the session is set up): every expectation names a buffer, compares at
//!    least one element, fits in the buffer from its offset at an element boundary, and names a
//!    reference set (of the registry the run was given) that models every dispatched kernel;
//! 2. [`prepare`] (before the first dispatch): the expected values themselves, i.e. the files
//!    read and the references replayed on the initial buffers (a model's complaint about a
//!    launch surfaces now, not after a long simulation);
//! 3. [`evaluate`] (after the last dispatch): the comparisons.

use super::error::{At, SpecError};
use super::expect::{compare, list_bytes, Check};
use super::files;
use super::model::{Expect, Expected, Spec, Ty};
use super::references::{CpuMemory, DispatchView, ModelError, References};
use std::collections::BTreeMap;
use std::path::Path;

/// Buffer name → size in bytes.
pub type Sizes = BTreeMap<String, u64>;

/// What the text alone shows to be wrong with the expectations (checked when the spec is
/// read): an empty expected list, a tolerance that is not a number ≥ 0.
pub fn check_text(at: At, spec: &Spec) -> Result<(), SpecError> {
    for (i, e) in spec.expect.iter().enumerate() {
        if e.tol.is_nan() || e.tol < 0.0 {
            return Err(at.err(format!("expect[{i}].tol"), "must be a number ≥ 0"));
        }
        if list_bytes(&e.equals).is_some_and(|(_, b)| b.is_empty()) {
            return Err(at.err(format!("expect[{i}].equals"), EMPTY_LIST));
        }
        match (e.buffer.is_empty(), &e.global) {
            (true, None) => return Err(at.err(format!("expect[{i}]"), "names nothing to check: give `buffer` or `global`")),
            (false, Some(_)) => return Err(at.err(format!("expect[{i}]"), "gives both `buffer` and `global`: one expectation checks one of them")),
            (_, Some(_)) if matches!(e.equals, Expected::Reference(_)) => {
                return Err(at.err(format!("expect[{i}].equals"), "references compute buffers; check a global against a list or a file"))
            }
            _ => {}
        }
    }
    Ok(())
}

const EMPTY_LIST: &str = "the list is empty, so it would check nothing: give at least one element";

/// The registry a `Reference(set)` expectation needs: a run given none cannot check it.
fn registry(references: Option<References>, set: &str) -> Result<References, String> {
    references.ok_or_else(|| format!("Reference(\"{set}\") needs the CPU reference models, and this run was given none (RunOptions::references)"))
}

/// Check every expectation against the buffers and the dispatched kernels (their names as
/// loaded from the code object), its references against `references`.
pub fn validate(at: At, spec: &Spec, sizes: &Sizes, kernels: &[&str], references: Option<References>) -> Result<(), SpecError> {
    for (i, e) in spec.expect.iter().enumerate() {
        let field = |f: &str| format!("expect[{i}].{f}");
        let Some(&len) = sizes.get(&e.target()) else {
            let names: Vec<&str> = sizes.keys().map(String::as_str).collect();
            return Err(at.err(field("buffer"), format!("no buffer named \"{}\" (buffers: {})", e.buffer, names.join(", "))));
        };
        if e.offset > len {
            return Err(at.err(field("offset"), format!("{} is past the end of \"{}\" ({len} bytes)", e.offset, e.target())));
        }
        if e.tol.is_nan() || e.tol < 0.0 {
            return Err(at.err(field("tol"), "must be a number ≥ 0"));
        }
        match &e.equals {
            Expected::Reference(set) => registry(references, set).and_then(|r| r.check_applicable(set, kernels)).map_err(|m| at.err(field("equals"), m))?,
            Expected::File(_) => aligned(at, i, e, e.ty.unwrap_or(Ty::U8))?,
            list => {
                let (list_ty, want) = list_bytes(list).unwrap_or((Ty::U8, Vec::new()));
                if want.is_empty() {
                    return Err(at.err(field("equals"), EMPTY_LIST));
                }
                let ty = e.ty.unwrap_or(list_ty);
                aligned(at, i, e, ty)?;
                if want.len() % ty.size() != 0 {
                    return Err(at.err(field("ty"), format!("the {}-byte list is not a whole number of {} elements", want.len(), ty.name())));
                }
                fits(at, i, e, len, want.len() as u64, "the list")?;
            }
        }
    }
    Ok(())
}

/// Compared elements start at an element boundary of the buffer.
fn aligned(at: At, i: usize, e: &Expect, ty: Ty) -> Result<(), SpecError> {
    if e.offset % ty.size() as u64 != 0 {
        return Err(at.err(format!("expect[{i}].offset"), format!("{} is not a multiple of the {}-byte {} elements compared", e.offset, ty.size(), ty.name())));
    }
    Ok(())
}

/// `bytes` expected bytes fit in the buffer after the offset.
fn fits(at: At, i: usize, e: &Expect, len: u64, bytes: u64, what: &str) -> Result<(), SpecError> {
    if e.offset.saturating_add(bytes) > len {
        return Err(at.err(
            format!("expect[{i}].equals"),
            format!("{what} has {bytes} bytes, but \"{}\" holds {} bytes after offset {} ({len} in all)", e.target(), len.saturating_sub(e.offset), e.offset),
        ));
    }
    Ok(())
}

/// What one expectation compares with, known before the first dispatch.
enum Want {
    /// Bytes from a file or a typed list, compared as `ty`; `what` names them in messages.
    Bytes { bytes: Vec<u8>, ty: Ty, what: String },
    /// A reference set's replay (in [`Expectations::replays`]).
    Reference(String),
}

/// A reference set's replay.
enum Replay {
    Done(CpuMemory<'static>),
    /// The model found that the kernel would access memory outside a buffer. The run goes
    /// ahead (the simulated GPU should fault, and reports where); if it does not, the check
    /// fails with this.
    Fault(String),
}

/// Every expectation's expected values.
pub struct Expectations {
    wants: Vec<Want>,
    replays: BTreeMap<String, Replay>,
}

/// Read the expected files and replay the reference sets of `references` on the `initial`
/// buffers (views of the device memory before the first dispatch). Assumes [`validate`]
/// passed. A replay keeps only the buffers the expectations compare with it.
pub fn prepare(
    at: At,
    spec: &Spec,
    dir: &Path,
    initial: &BTreeMap<String, &[u8]>,
    views: &[DispatchView],
    references: Option<References>,
) -> Result<Expectations, SpecError> {
    let mut replays: BTreeMap<String, Replay> = BTreeMap::new();
    let mut wants = Vec::new();
    for (i, e) in spec.expect.iter().enumerate() {
        let field = format!("expect[{i}].equals");
        let len = initial.get(&e.target()).map_or(0, |b| b.len() as u64);
        let want = match &e.equals {
            Expected::File(f) => {
                // A file longer than the buffer cannot match: read no more than fits (plus one
                // byte, to tell "longer" from "exactly the rest").
                let room = len.saturating_sub(e.offset);
                let path = files::resolve(dir, f);
                let bytes = files::read_bounded(&path, room + 1).map_err(|m| at.err(&field, m))?;
                fits(at, i, e, len, bytes.len() as u64, &format!("file {}", files::full(&path).display()))?;
                Want::Bytes { bytes, ty: e.ty.unwrap_or(Ty::U8), what: format!("file {f}") }
            }
            Expected::Reference(set) => {
                if !replays.contains_key(set) {
                    let compared: Vec<String> =
                        spec.expect.iter().filter(|x| matches!(&x.equals, Expected::Reference(s) if s == set)).map(Expect::target).collect();
                    let replayed = registry(references, set).map_err(|m| at.err(&field, m))?.replay(set, initial, views);
                    let replay = match replayed {
                        Ok(mem) => Replay::Done(mem.retain_owned(&compared)),
                        Err(ModelError::Fault(m)) => Replay::Fault(m),
                        Err(ModelError::Spec(m)) => return Err(at.err(&field, m)),
                    };
                    replays.insert(set.clone(), replay);
                }
                if let Some(Replay::Done(mem)) = replays.get(set) {
                    aligned(at, i, e, reference_type(e, mem))?;
                }
                Want::Reference(set.clone())
            }
            list => {
                let (ty, bytes) = list_bytes(list).unwrap_or((Ty::U8, Vec::new()));
                Want::Bytes { bytes, ty: e.ty.unwrap_or(ty), what: "the expected list".into() }
            }
        };
        wants.push(want);
    }
    Ok(Expectations { wants, replays })
}

/// Element type of a reference comparison: the spec's `ty`, else what the model wrote.
fn reference_type(e: &Expect, mem: &CpuMemory) -> Ty {
    e.ty.or(mem.types.get(&e.target()).copied()).unwrap_or(Ty::U8)
}

/// Compare the `finals` (every buffer after the last dispatch) with the expectations.
pub fn evaluate(spec: &Spec, x: &Expectations, finals: &BTreeMap<String, &[u8]>) -> Vec<Check> {
    spec.expect
        .iter()
        .zip(&x.wants)
        .map(|(e, want)| {
            let got = finals.get(&e.target()).map_or(&[][..], |b| b.get(e.offset as usize..).unwrap_or_default());
            let (ok, detail) = match want {
                Want::Bytes { bytes, ty, what } => compare(got, bytes, *ty, e.tol, e.offset / ty.size() as u64, what),
                Want::Reference(set) => match x.replays.get(set) {
                    Some(Replay::Done(mem)) => against_reference(e, set, mem, got),
                    Some(Replay::Fault(m)) => (false, format!("{m}, but the run completed without a fault")),
                    None => (false, format!("reference {set} was not replayed")),
                },
            };
            Check { buffer: e.target(), ok, detail }
        })
        .collect()
}

fn against_reference(e: &Expect, set: &str, mem: &CpuMemory, got: &[u8]) -> (bool, String) {
    if let Some(pred) = mem.predicates.get(&e.target()) {
        return match pred(got) {
            Ok(d) => (true, d),
            Err(d) => (false, d),
        };
    }
    let want = mem.bytes(&e.target()).map_or(&[][..], |b| &b[(e.offset as usize).min(b.len())..]);
    let ty = reference_type(e, mem);
    compare(got, want, ty, e.tol, e.offset / ty.size() as u64, &format!("reference {set}"))
}
