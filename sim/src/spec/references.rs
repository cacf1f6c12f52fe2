//! The seam between launch specs and CPU reference models: what a model sees of a dispatch
//! ([`DispatchView`]), the buffers it reads and writes ([`CpuMemory`]), and [`References`], a
//! registry of named reference sets that the caller of a run passes in
//! ([`super::RunOptions::references`]). The models themselves (our workloads' and the external
//! objects') are a study, not part of the engine: they live in the studies crate
//! (`hipscope_studies::references`), which also holds the built-in registry.
//!
//! `Reference("set")` in a spec replays every dispatch of the spec, in order, on a CPU copy of
//! the initial buffers, using the set's model of each dispatched kernel (a set must model every
//! kernel the spec dispatches). The result is each buffer's expected contents, and for outputs
//! that the kernel's contract does not fix (timers, racy message passing), a predicate.

use super::model::{Arg, Ty};
use super::values::{decode_all, Elem};
use hipscope_isa::Processor;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// What a model sees of one dispatch.
#[derive(Debug, Clone)]
pub struct DispatchView<'a> {
    pub index: usize,
    pub kernel: &'a str,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_lds: u32,
    /// Explicit arguments in metadata order.
    pub args: &'a [Arg],
    /// Wave size of the loaded kernel.
    pub wave_size: u32,
    pub processor: Processor,
}

/// A predicate on a buffer's final bytes: `Ok(detail)` or `Err(detail)`.
pub type Predicate = Box<dyn Fn(&[u8]) -> Result<String, String>>;

/// The buffers as the models see and leave them. A buffer starts as a view of its initial
/// bytes (the device memory before the first dispatch) and is copied only when a model writes
/// it, so a replay holds one copy of what the kernels write, not of every buffer.
#[derive(Default)]
pub struct CpuMemory<'a> {
    bufs: BTreeMap<String, Cow<'a, [u8]>>,
    /// Element type of buffers a model wrote (for comparisons and messages).
    pub types: BTreeMap<String, Ty>,
    /// Buffers whose final contents the contract does not fix: checked by a predicate.
    pub predicates: BTreeMap<String, Predicate>,
}

impl std::fmt::Debug for CpuMemory<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sizes: BTreeMap<&str, usize> = self.bufs.iter().map(|(k, v)| (k.as_str(), v.len())).collect();
        f.debug_struct("CpuMemory").field("bytes", &sizes).field("types", &self.types).field("predicates", &self.predicates.keys().collect::<Vec<_>>()).finish()
    }
}

/// Why a model could not compute a dispatch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelError {
    /// The launch is outside what the model covers, or its arguments are wrong: a spec error.
    Spec(String),
    /// The kernel would access memory outside a buffer, so the GPU would fault: the
    /// simulation, not the reference, should report it.
    Fault(String),
}

impl From<String> for ModelError {
    fn from(m: String) -> ModelError {
        ModelError::Spec(m)
    }
}

impl From<&str> for ModelError {
    fn from(m: &str) -> ModelError {
        ModelError::Spec(m.to_string())
    }
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModelError::Spec(m) | ModelError::Fault(m) => f.write_str(m),
        }
    }
}

/// A model of one kernel.
pub type ModelFn = fn(&mut CpuMemory, &DispatchView) -> Result<(), ModelError>;

/// A kernel model in a named reference set.
pub struct Model {
    pub set: &'static str,
    pub kernel: &'static str,
    pub run: ModelFn,
}

/// A registry of reference sets: every kernel model a spec's `Reference("set")` may name.
/// Built from static tables of models, so a copy is two words and a run carries it by value.
#[derive(Clone, Copy)]
pub struct References {
    tables: &'static [&'static [Model]],
}

impl std::fmt::Debug for References {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("References").field(&self.set_names()).finish()
    }
}

impl References {
    /// The registry of the models in `tables` (a set may span tables).
    pub const fn new(tables: &'static [&'static [Model]]) -> References {
        References { tables }
    }

    fn models(&self) -> impl Iterator<Item = &'static Model> {
        self.tables.iter().flat_map(|t| t.iter())
    }

    /// Names of the reference sets.
    pub fn set_names(&self) -> Vec<&'static str> {
        let mut v: Vec<&str> = self.models().map(|m| m.set).collect();
        v.sort();
        v.dedup();
        v
    }

    fn unknown_set(&self, set: &str) -> String {
        format!("no built-in reference \"{set}\" (references: {})", self.set_names().join(", "))
    }

    fn no_model(&self, set: &str, kernel: &str, dispatch: usize) -> String {
        let ks: Vec<&str> = self.models().filter(|m| m.set == set).map(|m| m.kernel).collect();
        format!("reference \"{set}\" has no model of kernel `{kernel}` (dispatch {dispatch}; it models {})", ks.join(", "))
    }

    /// Whether `set` exists and models every kernel in `kernels` (names as loaded), so that a
    /// spec's reference mistakes show before it runs.
    pub fn check_applicable(&self, set: &str, kernels: &[&str]) -> Result<(), String> {
        if !self.models().any(|m| m.set == set) {
            return Err(self.unknown_set(set));
        }
        for (i, k) in kernels.iter().enumerate() {
            if !self.models().any(|m| m.set == set && m.kernel == *k) {
                return Err(self.no_model(set, k, i));
            }
        }
        Ok(())
    }

    /// Replay `dispatches` on `initial` with reference set `set`. Errors say which dispatch.
    pub fn replay<'a>(&self, set: &str, initial: &BTreeMap<String, &'a [u8]>, dispatches: &[DispatchView]) -> Result<CpuMemory<'a>, ModelError> {
        if !self.models().any(|m| m.set == set) {
            return Err(self.unknown_set(set).into());
        }
        let bufs = initial.iter().map(|(n, b)| (n.clone(), Cow::Borrowed(*b))).collect();
        let mut mem = CpuMemory { bufs, ..CpuMemory::default() };
        for d in dispatches {
            let model = self.models().find(|m| m.set == set && m.kernel == d.kernel).ok_or_else(|| self.no_model(set, d.kernel, d.index))?;
            let place = |e: String| format!("reference \"{set}\", dispatch {} (`{}`): {e}", d.index, d.kernel);
            (model.run)(&mut mem, d).map_err(|e| match e {
                ModelError::Spec(m) => ModelError::Spec(place(m)),
                ModelError::Fault(m) => ModelError::Fault(place(m)),
            })?;
        }
        Ok(mem)
    }
}

/// Plain little-endian element types the models read and write.
pub trait Plain: Copy {
    const SIZE: usize;
    const TY: Ty;
    fn read(b: &[u8]) -> Self;
    fn write(self, out: &mut [u8]);
}

macro_rules! plain {
    ($t:ty, $ty:ident) => {
        impl Plain for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            const TY: Ty = Ty::$ty;
            // Inline: the reference models, in another crate, call these per element.
            #[inline]
            fn read(b: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..Self::SIZE]);
                <$t>::from_le_bytes(a)
            }
            #[inline]
            fn write(self, out: &mut [u8]) {
                out[..Self::SIZE].copy_from_slice(&self.to_le_bytes());
            }
        }
    };
}
plain!(u16, U16);
plain!(u32, U32);
plain!(i32, I32);
plain!(u64, U64);
plain!(f32, F32);
plain!(f64, F64);

impl<'a> CpuMemory<'a> {
    /// A memory holding `bufs` (for tests of models).
    pub fn with(bufs: BTreeMap<String, Vec<u8>>) -> CpuMemory<'a> {
        CpuMemory { bufs: bufs.into_iter().map(|(n, b)| (n, Cow::Owned(b))).collect(), ..CpuMemory::default() }
    }

    pub fn bytes(&self, name: &str) -> Option<&[u8]> {
        self.bufs.get(name).map(|v| &v[..])
    }

    fn buf(&self, name: &str) -> Result<&[u8], String> {
        self.bytes(name).ok_or_else(|| format!("no buffer \"{name}\""))
    }

    /// All elements of a buffer (a trailing partial element is ignored).
    pub fn get<T: Plain>(&self, name: &str) -> Result<Vec<T>, String> {
        Ok(self.buf(name)?.chunks_exact(T::SIZE).map(T::read).collect())
    }

    /// A buffer's elements without copying them (for big inputs).
    pub fn view<T: Plain>(&self, name: &str) -> Result<View<'_, T>, String> {
        Ok(View { bytes: self.buf(name)?, name: name.to_string(), _t: std::marker::PhantomData })
    }

    /// Take a buffer's bytes out to write them (a copy if they are still the initial view);
    /// [`CpuMemory::put`] gives them back. Lets a model read other buffers while it writes.
    pub fn take(&mut self, name: &str) -> Result<Vec<u8>, String> {
        let b = self.bufs.remove(name).ok_or_else(|| format!("no buffer \"{name}\""))?;
        Ok(b.into_owned())
    }

    /// Give back bytes taken with [`CpuMemory::take`], written as elements of `ty`.
    pub fn put(&mut self, name: &str, bytes: Vec<u8>, ty: Ty) {
        self.bufs.insert(name.to_string(), Cow::Owned(bytes));
        self.types.insert(name.to_string(), ty);
    }

    /// The buffers the models wrote (the only ones copied).
    pub fn copied(&self) -> Vec<&str> {
        self.bufs.iter().filter(|(_, b)| matches!(b, Cow::Owned(_))).map(|(n, _)| n.as_str()).collect()
    }

    /// Only the buffers in `keep`, each an owned copy: what the comparisons after the run
    /// need, without the views of the device memory (which the run goes on to change).
    pub fn retain_owned(self, keep: &[String]) -> CpuMemory<'static> {
        let bufs = self.bufs.into_iter().filter(|(n, _)| keep.contains(n)).map(|(n, b)| (n, Cow::Owned(b.into_owned()))).collect();
        CpuMemory { bufs, types: self.types, predicates: self.predicates }
    }

    /// Write `v[i]` at element i for every i (the rest of the buffer is unchanged) and record
    /// the buffer's element type.
    pub fn set<T: Plain>(&mut self, name: &str, v: &[T]) -> Result<(), ModelError> {
        let b = self.bufs.get_mut(name).ok_or_else(|| format!("no buffer \"{name}\""))?.to_mut();
        if v.len() * T::SIZE > b.len() {
            return Err(ModelError::Fault(format!("the kernel writes {} {} elements to \"{name}\", which holds {} bytes", v.len(), T::TY.name(), b.len())));
        }
        for (i, x) in v.iter().enumerate() {
            x.write(&mut b[i * T::SIZE..]);
        }
        self.types.insert(name.to_string(), T::TY);
        Ok(())
    }

    /// Mark a buffer's final contents as checked by a predicate instead of by value.
    pub fn predicate(&mut self, name: &str, ty: Ty, p: Predicate) {
        self.types.insert(name.to_string(), ty);
        self.predicates.insert(name.to_string(), p);
    }
}

/// A buffer's elements, decoded as they are read.
pub struct View<'v, T> {
    bytes: &'v [u8],
    name: String,
    _t: std::marker::PhantomData<T>,
}

impl<T: Plain> View<'_, T> {
    pub fn len(&self) -> usize {
        self.bytes.len() / T::SIZE
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i`; past the end it is a predicted fault, as [`at`] says.
    pub fn at(&self, i: u64) -> Result<T, ModelError> {
        let o = (i as usize).checked_mul(T::SIZE).filter(|&o| o + T::SIZE <= self.bytes.len());
        match o {
            Some(o) => Ok(T::read(&self.bytes[o..])),
            None => Err(ModelError::Fault(format!("the kernel reads {}[{i}], past its {} elements (the GPU would fault)", self.name, self.len()))),
        }
    }
}

/// Write element `i` of `bytes` (a buffer taken with [`CpuMemory::take`]); past the end it is
/// a predicted fault.
pub fn store<T: Plain>(bytes: &mut [u8], i: u64, v: T, name: &str) -> Result<(), ModelError> {
    let n = bytes.len() / T::SIZE;
    match (i as usize).checked_mul(T::SIZE).filter(|&o| o + T::SIZE <= bytes.len()) {
        Some(o) => {
            v.write(&mut bytes[o..]);
            Ok(())
        }
        None => Err(ModelError::Fault(format!("the kernel writes {name}[{i}], past its {n} elements (the GPU would fault)"))),
    }
}

/// Bounds-checked element access: a read the GPU would fault on is a predicted fault.
pub fn at<T: Copy>(v: &[T], i: u64, name: &str) -> Result<T, ModelError> {
    v.get(i as usize).copied().ok_or_else(|| ModelError::Fault(format!("the kernel reads {name}[{i}], past its {} elements (the GPU would fault)", v.len())))
}

/// Bounds-checked element slot.
pub fn slot<'v, T>(v: &'v mut [T], i: u64, name: &str) -> Result<&'v mut T, ModelError> {
    let n = v.len();
    v.get_mut(i as usize).ok_or_else(|| ModelError::Fault(format!("the kernel writes {name}[{i}], past its {n} elements (the GPU would fault)")))
}

impl DispatchView<'_> {
    fn arg(&self, i: usize) -> Result<&Arg, String> {
        self.args.get(i).ok_or_else(|| format!("argument {i} is missing"))
    }

    /// The buffer a pointer argument names.
    pub fn buffer(&self, i: usize) -> Result<&str, String> {
        match self.arg(i)? {
            Arg::Buffer(n) => Ok(n),
            a => Err(format!("argument {i} must be Buffer(..), not {}", a.kind())),
        }
    }

    /// A 4-byte integer argument (U32 or I32, as its bits).
    pub fn u32(&self, i: usize) -> Result<u32, String> {
        match self.arg(i)? {
            Arg::U32(v) => Ok(*v),
            Arg::I32(v) => Ok(*v as u32),
            a => Err(format!("argument {i} must be U32 or I32, not {}", a.kind())),
        }
    }

    pub fn i32(&self, i: usize) -> Result<i32, String> {
        self.u32(i).map(|v| v as i32)
    }

    pub fn f32(&self, i: usize) -> Result<f32, String> {
        match self.arg(i)? {
            Arg::F32(v) => Ok(*v),
            a => Err(format!("argument {i} must be F32, not {}", a.kind())),
        }
    }

    pub fn f64(&self, i: usize) -> Result<f64, String> {
        match self.arg(i)? {
            Arg::F64(v) => Ok(*v),
            a => Err(format!("argument {i} must be F64, not {}", a.kind())),
        }
    }

    /// Work-groups per dimension (the last may be partial).
    pub fn groups(&self) -> [u32; 3] {
        [0, 1, 2].map(|d| self.grid[d].div_ceil(self.block[d].max(1)))
    }

    /// Refuse geometries a model does not cover.
    pub fn require(&self, ok: bool, what: &str) -> Result<(), String> {
        if ok {
            Ok(())
        } else {
            Err(format!(
                "launch grid ({}, {}, {}) block ({}, {}, {}): {what}",
                self.grid[0], self.grid[1], self.grid[2], self.block[0], self.block[1], self.block[2]
            ))
        }
    }

    /// Only x is used: y and z of grid and block are 1.
    pub fn require_1d(&self) -> Result<(), String> {
        self.require(self.grid[1] == 1 && self.grid[2] == 1 && self.block[1] == 1 && self.block[2] == 1, "the model covers 1-D launches only")
    }
}

/// Decoded elements of `b` as `ty` (for predicates).
pub fn elems(ty: Ty, b: &[u8]) -> Vec<Elem> {
    decode_all(ty, b)
}

#[cfg(test)]
mod tests {
    //! The registry on a toy set: `double` writes twice its input, element by element, into
    //! `out` (the engine's own models live in the studies crate, with their tests).
    use super::*;

    fn double(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
        let (inp, out) = (d.buffer(0)?, d.buffer(1)?);
        let v: Vec<u32> = m.get::<u32>(inp)?.iter().map(|x| 2 * x).collect();
        m.set(out, &v)
    }

    const TOY: &[Model] = &[Model { set: "toy", kernel: "double", run: double }, Model { set: "other", kernel: "noop", run: |_, _| Ok(()) }];
    const REGISTRY: References = References::new(&[TOY]);

    fn view<'a>(kernel: &'a str, args: &'a [Arg]) -> DispatchView<'a> {
        DispatchView { index: 0, kernel, grid: [2, 1, 1], block: [2, 1, 1], dynamic_lds: 0, args, wave_size: 64, processor: Processor::Gfx942 }
    }

    fn u32b(v: &[u32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn sets_are_listed_sorted_and_once() {
        assert_eq!(REGISTRY.set_names(), ["other", "toy"]);
        assert!(format!("{REGISTRY:?}").contains("\"other\", \"toy\""));
    }

    #[test]
    fn unknown_sets_and_unmodelled_kernels_are_errors() {
        assert_eq!(REGISTRY.check_applicable("nosuch", &["double"]).unwrap_err(), "no built-in reference \"nosuch\" (references: other, toy)");
        assert_eq!(
            REGISTRY.check_applicable("toy", &["double", "triple"]).unwrap_err(),
            "reference \"toy\" has no model of kernel `triple` (dispatch 1; it models double)"
        );
        assert!(REGISTRY.check_applicable("toy", &["double"]).is_ok());
        let v = [view("noop", &[])];
        assert!(REGISTRY.replay("toy", &BTreeMap::new(), &v).unwrap_err().to_string().contains("no model of kernel `noop`"));
    }

    /// A replay copies only the buffers a model writes, and errors name the dispatch.
    #[test]
    fn a_replay_copies_only_what_it_writes() {
        let (a, c) = (u32b(&[1, 2]), u32b(&[0, 0]));
        let init: BTreeMap<String, &[u8]> = [("a".to_string(), &a[..]), ("c".to_string(), &c[..])].into_iter().collect();
        let args = [Arg::Buffer("a".into()), Arg::Buffer("c".into())];
        let m = REGISTRY.replay("toy", &init, &[view("double", &args)]).unwrap();
        assert_eq!(m.copied(), ["c"]);
        assert_eq!(m.get::<u32>("c").unwrap(), [2, 4]);
        let bad = [Arg::U32(1)];
        let e = REGISTRY.replay("toy", &init, &[view("double", &bad)]).unwrap_err().to_string();
        assert_eq!(e, "reference \"toy\", dispatch 0 (`double`): argument 0 must be Buffer(..), not U32");
    }
}
