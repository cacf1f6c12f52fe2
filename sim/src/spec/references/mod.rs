//! Built-in CPU references: what each known kernel computes, written from the kernel's
//! definition (the header comments of `workloads/src/*`, and for the external objects the
//! upstream sources and CPU checks cited in `../shared/external-code-objects/SOURCES.md`),
//! never from simulator output.
//!
//! `Reference("set")` in a spec replays every dispatch of the spec, in order, on a CPU copy of
//! the initial buffers, using the set's model of each dispatched kernel (a set must model every
//! kernel the spec dispatches). The result is each buffer's expected contents, and for outputs
//! that the kernel's contract does not fix (timers, racy message passing), a predicate.

mod external;
mod workloads;

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
type ModelFn = fn(&mut CpuMemory, &DispatchView) -> Result<(), ModelError>;

/// A kernel model in a named reference set.
pub struct Model {
    pub set: &'static str,
    pub kernel: &'static str,
    pub run: ModelFn,
}

fn all_models() -> impl Iterator<Item = &'static Model> {
    workloads::MODELS.iter().chain(external::MODELS.iter())
}

/// Names of the reference sets.
pub fn set_names() -> Vec<&'static str> {
    let mut v: Vec<&str> = all_models().map(|m| m.set).collect();
    v.sort();
    v.dedup();
    v
}

/// Whether `set` exists and models every kernel in `kernels` (names as loaded), so that a
/// spec's reference mistakes show before it runs.
pub fn check_applicable(set: &str, kernels: &[&str]) -> Result<(), String> {
    if !all_models().any(|m| m.set == set) {
        return Err(format!("no built-in reference \"{set}\" (references: {})", set_names().join(", ")));
    }
    for (i, k) in kernels.iter().enumerate() {
        if !all_models().any(|m| m.set == set && m.kernel == *k) {
            let ks: Vec<&str> = all_models().filter(|m| m.set == set).map(|m| m.kernel).collect();
            return Err(format!("reference \"{set}\" has no model of kernel `{k}` (dispatch {i}; it models {})", ks.join(", ")));
        }
    }
    Ok(())
}

/// Replay `dispatches` on `initial` with reference set `set`. Errors say which dispatch.
pub fn replay<'a>(set: &str, initial: &BTreeMap<String, &'a [u8]>, dispatches: &[DispatchView]) -> Result<CpuMemory<'a>, ModelError> {
    if !all_models().any(|m| m.set == set) {
        return Err(format!("no built-in reference \"{set}\" (references: {})", set_names().join(", ")).into());
    }
    let bufs = initial.iter().map(|(n, b)| (n.clone(), Cow::Borrowed(*b))).collect();
    let mut mem = CpuMemory { bufs, ..CpuMemory::default() };
    for d in dispatches {
        let model = all_models().find(|m| m.set == set && m.kernel == d.kernel).ok_or_else(|| {
            let ks: Vec<&str> = all_models().filter(|m| m.set == set).map(|m| m.kernel).collect();
            format!("reference \"{set}\" has no model of kernel `{}` (dispatch {}; it models {})", d.kernel, d.index, ks.join(", "))
        })?;
        let place = |e: String| format!("reference \"{set}\", dispatch {} (`{}`): {e}", d.index, d.kernel);
        (model.run)(&mut mem, d).map_err(|e| match e {
            ModelError::Spec(m) => ModelError::Spec(place(m)),
            ModelError::Fault(m) => ModelError::Fault(place(m)),
        })?;
    }
    Ok(mem)
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
            fn read(b: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..Self::SIZE]);
                <$t>::from_le_bytes(a)
            }
            fn write(self, out: &mut [u8]) {
                out[..Self::SIZE].copy_from_slice(&self.to_le_bytes());
            }
        }
    };
}
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
    //! Each model on a tiny input whose result is worked out by hand from the kernel's
    //! definition (the comment above each case).
    use super::*;

    fn mem(bufs: &[(&str, Vec<u8>)]) -> BTreeMap<String, Vec<u8>> {
        bufs.iter().map(|(n, b)| (n.to_string(), b.clone())).collect()
    }

    /// The initial buffers as the replay sees them (views).
    fn views(m: &BTreeMap<String, Vec<u8>>) -> BTreeMap<String, &[u8]> {
        m.iter().map(|(n, b)| (n.clone(), b.as_slice())).collect()
    }

    fn u32b(v: &[u32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn f32b(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn view<'a>(kernel: &'a str, grid: [u32; 3], block: [u32; 3], args: &'a [Arg], wave: u32) -> DispatchView<'a> {
        DispatchView { index: 0, kernel, grid, block, dynamic_lds: 0, args, wave_size: wave, processor: Processor::Gfx942 }
    }

    fn buf(n: &str) -> Arg {
        Arg::Buffer(n.into())
    }

    #[test]
    fn lds_transpose_of_a_2x3_matrix() {
        // in is 2 rows x 3 columns [[0,1,2],[3,4,5]]; out is its 3 x 2 transpose.
        let init = mem(&[("in", u32b(&[0, 1, 2, 3, 4, 5])), ("out", u32b(&[9; 6]))]);
        let args = [buf("in"), buf("out"), Arg::U32(3), Arg::U32(2)];
        let m = replay("lds", &views(&init), &[view("lds_transpose", [16, 16, 1], [16, 16, 1], &args, 64)]).unwrap();
        assert_eq!(m.get::<u32>("out").unwrap(), [0, 3, 1, 4, 2, 5]);
    }

    #[test]
    fn histogram_counts_modulo_nbins() {
        // 1,2,3,4,5,7 mod 3 = 1,2,0,1,2,1.
        let init = mem(&[("in", u32b(&[1, 2, 3, 4, 5, 7])), ("bins", u32b(&[0; 3]))]);
        let args = [buf("in"), buf("bins"), Arg::U32(6), Arg::U32(3)];
        let m = replay("atomics", &views(&init), &[view("histogram", [8, 1, 1], [8, 1, 1], &args, 64)]).unwrap();
        assert_eq!(m.get::<u32>("bins").unwrap(), [1, 3, 2]);
    }

    #[test]
    fn wave_reduce_in_both_wave_sizes() {
        let input: Vec<u8> = (0..64i32).flat_map(|x| x.to_le_bytes()).collect();
        let init = mem(&[("in", input), ("sums", vec![0; 16]), ("masks", vec![0; 32])]);
        let args = [buf("in"), buf("sums"), buf("masks")];
        // wave32: sums of 0..31 and 32..63; odd lanes; EXEC of 32 lanes.
        let m = replay("wave_reduce", &views(&init), &[view("wave_reduce", [64, 1, 1], [64, 1, 1], &args, 32)]).unwrap();
        assert_eq!(m.get::<i32>("sums").unwrap(), [496, 496, 1520, 1520]);
        assert_eq!(m.get::<u64>("masks").unwrap(), [0xaaaa_aaaa, 0xffff_ffff, 0xaaaa_aaaa, 0xffff_ffff]);
        // wave64: one wave.
        let m = replay("wave_reduce", &views(&init), &[view("wave_reduce", [64, 1, 1], [64, 1, 1], &args, 64)]).unwrap();
        assert_eq!(m.get::<i32>("sums").unwrap(), [2016, 2016, 0, 0]);
        assert_eq!(m.get::<u64>("masks").unwrap(), [0xaaaa_aaaa_aaaa_aaaa, u64::MAX, 0, 0]);
    }

    #[test]
    fn bfs_levels_over_two_launches() {
        // Edges 0->1, 0->2, 1->3; source 0.
        let init =
            mem(&[("levels", u32b(&[0, u32::MAX, u32::MAX, u32::MAX])), ("off", u32b(&[0, 2, 3, 3, 3])), ("aux", u32b(&[1, 2, 3])), ("flag", u32b(&[0]))]);
        let a0 = [buf("levels"), buf("off"), buf("aux"), Arg::I32(32), Arg::I32(32), Arg::U32(4), Arg::I32(0), buf("flag")];
        let mut a1 = a0.clone();
        a1[6] = Arg::I32(1);
        let v = [view("BFS_kernel_warp", [64, 1, 1], [64, 1, 1], &a0, 64), view("BFS_kernel_warp", [64, 1, 1], [64, 1, 1], &a1, 64)];
        let m = replay("mgpusim_bfs", &views(&init), &v[..1]).unwrap();
        assert_eq!(m.get::<u32>("levels").unwrap(), [0, 1, 1, u32::MAX]);
        assert_eq!(m.get::<u32>("flag").unwrap(), [1]);
        let m = replay("mgpusim_bfs", &views(&init), &v).unwrap();
        assert_eq!(m.get::<u32>("levels").unwrap(), [0, 1, 1, 2]);
    }

    #[test]
    fn atax_two_kernels_share_tmp() {
        // A = [[1,2],[3,4]], x = [1,1]: tmp = A x = [3,7]; y = A^T tmp = [1*3+3*7, 2*3+4*7].
        let init = mem(&[("A", f32b(&[1.0, 2.0, 3.0, 4.0])), ("x", f32b(&[1.0, 1.0])), ("tmp", f32b(&[0.0; 2])), ("y", f32b(&[0.0; 2]))]);
        let a1 = [buf("A"), buf("x"), buf("tmp"), Arg::I32(2), Arg::I32(2)];
        let a2 = [buf("A"), buf("y"), buf("tmp"), Arg::I32(2), Arg::I32(2)];
        let v = [view("atax_kernel1", [256, 1, 1], [256, 1, 1], &a1, 64), view("atax_kernel2", [256, 1, 1], [256, 1, 1], &a2, 64)];
        let m = replay("mgpusim_atax", &views(&init), &v).unwrap();
        assert_eq!(m.get::<f32>("tmp").unwrap(), [3.0, 7.0]);
        assert_eq!(m.get::<f32>("y").unwrap(), [24.0, 34.0]);
    }

    #[test]
    fn fir_reads_history_before_the_input_starts() {
        // taps 2, coeff [1,2], input [1,2,3], history [5,6]:
        // out[0] = 1*1 + 2*history[2-1] = 13, out[1] = 1*2 + 2*1 = 4, out[2] = 3 + 2*2 = 7.
        let init = mem(&[("out", f32b(&[0.0; 3])), ("c", f32b(&[1.0, 2.0])), ("in", f32b(&[1.0, 2.0, 3.0])), ("h", f32b(&[5.0, 6.0]))]);
        let args = [buf("out"), buf("c"), buf("in"), buf("h"), Arg::U32(2)];
        let m = replay("mgpusim_fir", &views(&init), &[view("FIR", [3, 1, 1], [256, 1, 1], &args, 64)]).unwrap();
        assert_eq!(m.get::<f32>("out").unwrap(), [13.0, 4.0, 7.0]);
    }

    #[test]
    fn mp_and_spin_lock_checks() {
        let init = mem(&[("d", vec![0; 8]), ("f", vec![0; 8]), ("o", vec![0; 8])]);
        let args = [buf("d"), buf("f"), buf("o"), Arg::I32(10)];
        let m = replay("mp", &views(&init), &[view("mp_acqrel_agent", [4, 1, 1], [2, 1, 1], &args, 64)]).unwrap();
        assert_eq!(m.get::<i32>("d").unwrap(), [1, 2]);
        let p = &m.predicates["o"];
        assert!(p(&u32b(&[1, u32::MAX])).is_ok());
        assert!(p(&u32b(&[1, 0])).is_err(), "agent scope acqrel may not read stale data");
        let init = mem(&[("l", vec![0; 4]), ("c", vec![0; 8])]);
        let args = [buf("l"), buf("c"), Arg::U32(3), Arg::U32(100)];
        let m = replay("atomics", &views(&init), &[view("spin_lock", [256, 1, 1], [64, 1, 1], &args, 64)]).unwrap();
        let p = &m.predicates["c"];
        assert!(p(&u32b(&[12, 0])).is_ok(), "4 groups x 3 iterations");
        assert!(p(&u32b(&[11, 1])).is_err());
    }

    #[test]
    fn unknown_sets_and_unmodelled_kernels_are_errors() {
        let v = [view("vadd", [1, 1, 1], [1, 1, 1], &[], 64)];
        assert!(replay("nosuch", &BTreeMap::new(), &v).unwrap_err().to_string().contains("no built-in reference"));
        assert!(replay("mp", &BTreeMap::new(), &v).unwrap_err().to_string().contains("no model of kernel `vadd`"));
    }

    /// A replay copies only what the models write: vadd's inputs stay views of the initial
    /// buffers (the memory a gigabyte vadd needs rests on it).
    #[test]
    fn a_replay_copies_only_the_buffers_it_writes() {
        let init = mem(&[("a", f32b(&[1.0, 2.0])), ("b", f32b(&[10.0, 20.0])), ("c", f32b(&[0.0, 0.0]))]);
        let args = [Arg::Buffer("a".into()), Arg::Buffer("b".into()), Arg::Buffer("c".into()), Arg::U32(2)];
        let m = replay("vadd", &views(&init), &[view("vadd", [2, 1, 1], [2, 1, 1], &args, 64)]).unwrap();
        assert_eq!(m.copied(), ["c"]);
        assert_eq!(m.get::<f32>("c").unwrap(), [11.0, 22.0]);
        let kept = m.retain_owned(&["c".to_string()]);
        assert!(kept.bytes("a").is_none() && kept.bytes("c").is_some());
    }
}
