//! The launch-spec file format (RON), as serde types. The user contract is the README's "Launch specs"; this
//! module adds a few extensions, each documented where it is declared:
//! an optional default `gpu`, buffer `patch`es, more init kinds (`Linear`, `RandomInt`,
//! `RandomCycle`, `PointerCycle`, `Values`), argument kinds `DynamicLds` and `Bytes`, expectation fields
//! `ty` and `offset`, and `params` with integer expressions in sizes, geometry and scalar
//! arguments ([`super::expr`]: the fields marked "expression" below accept a number or a string
//! such as `"4*n"`).

use super::expr::{self, ParamValue};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;

/// A whole spec: `Run(code_objects: {...}, buffers: {...}, dispatches: [...], expect: [...])`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename = "Run", deny_unknown_fields)]
pub struct Spec {
    /// Extension: the GPU to use when `--gpu` is not given.
    #[serde(default)]
    pub gpu: Option<String>,
    /// Extension: named integers (or expressions over earlier ones) that expressions in the
    /// rest of the spec use; `--set NAME=VALUE` replaces one.
    #[serde(default)]
    pub params: OrderedMap<ParamValue>,
    /// The parameter values this spec was read with (declared or set), in declaration order.
    #[serde(skip)]
    pub param_values: expr::Params,
    /// Key (free-form, e.g. `gfx1100-w32-wgp`) → code-object path relative to the spec file.
    pub code_objects: OrderedMap<String>,
    #[serde(default)]
    pub buffers: OrderedMap<Buffer>,
    /// Extension: initial contents of the code object's `__device__` / `__constant__`
    /// variables, by symbol name (`globals: {"d_mask": Values(F32, [..])}`), written before
    /// the first dispatch; the variable's size is the size.
    #[serde(default)]
    pub globals: OrderedMap<Init>,
    pub dispatches: Vec<Dispatch>,
    #[serde(default)]
    pub expect: Vec<Expect>,
}

/// A named device allocation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Buffer {
    /// Size (expression); may be left out when `init` is `File` or `Values` (their length is
    /// the size).
    #[serde(default, deserialize_with = "expr::opt_int")]
    pub bytes: Option<u64>,
    #[serde(default)]
    pub init: Init,
    #[serde(default)]
    pub memory: MemoryType,
    /// Extension: whose memory the buffer is (`Local`, the default; `Host`; `Gpu(1)`, a peer
    /// GPU of the device's node): with a node, accesses to another agent's memory travel the
    /// node's links. `Host` goes with `HostPinned`/`Managed`, `Gpu(n)` with the device types.
    #[serde(default)]
    pub owner: crate::memory::Owner,
    /// Extension: single values written over the initial contents, in order
    /// (`patch: [(at: 0, value: U32(0))]`, `at` in bytes).
    #[serde(default)]
    pub patch: Vec<Patch>,
}

/// Initial contents. Element type `ty`; the buffer holds `bytes / size(ty)` elements.
#[derive(Debug, Clone, Default, Deserialize)]
pub enum Init {
    /// All zero (the default).
    #[default]
    Zero,
    /// Element i = i.
    Iota(Ty),
    /// Extension: element i = start + i·step.
    Linear(Ty, Num, Num),
    /// Every element = v.
    Const(Ty, Num),
    /// Seeded pseudo-random: integers uniform over the whole type, floats uniform in [-1, 1).
    Random(Ty, u64),
    /// Extension: seeded integers uniform in [lo, hi], stored as `ty` (exact small integers in
    /// float types make float kernels exact whatever the rounding/fusion of the target).
    RandomInt(Ty, i64, i64, u64),
    /// Extension: u32 indices forming one random cycle through every element (a pointer-chase
    /// table: following `next[p]` visits all elements before returning).
    RandomCycle(u64),
    /// Extension: `PointerCycle(seed, spacing)`: entries every `spacing` bytes (a multiple of
    /// 8) forming one random cycle that starts at entry 0; each entry is a u64 holding the
    /// byte offset of the next entry from the buffer's start (bytes between entries are 0). A
    /// kernel adds the buffer's address to make pointers (`workloads/src/latency.hip`).
    PointerCycle(u64, u64),
    /// Extension: `PointerCycleVisits(seed, spacing)`: the entries of the `PointerCycle` with
    /// the same arguments in visiting order from entry 0, as u32 entry numbers (the buffer
    /// holds one per entry: 4 bytes × entries of the chain).
    PointerCycleVisits(u64, u64),
    /// Extension: explicit values.
    Values(Ty, Vec<Num>),
    /// Raw bytes of a file (path relative to the spec file).
    File(String),
}

/// HIP memory types a buffer can have.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub enum MemoryType {
    /// `hipMalloc`: coarse-grained device memory.
    #[default]
    Device,
    /// `hipExtMallocWithFlags(hipDeviceMallocFinegrained)`.
    DeviceFineGrain,
    /// `hipHostMalloc`: pinned host memory mapped into the device.
    HostPinned,
    /// `hipHostMalloc(hipHostMallocNonCoherent)`: pinned host memory the GPU's L2 may cache.
    HostNonCoherent,
    /// `hipMallocManaged`.
    Managed,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Patch {
    /// Byte offset (expression).
    #[serde(deserialize_with = "expr::int")]
    pub at: u64,
    pub value: Arg,
}

/// Element types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
pub enum Ty {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    /// IEEE binary16 (`_Float16`, `half`): matrix-core inputs.
    F16,
    F32,
    F64,
}

/// One kernel launch. `grid` counts work-items (HIP convention); `grid`, `block` and
/// `dynamic_lds` are expressions.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dispatch {
    /// The kernel's name in the code object, its descriptor symbol, or its C++ source name
    /// (`CodeObject::find_kernel`).
    pub kernel: String,
    #[serde(deserialize_with = "expr::triple")]
    pub grid: (u32, u32, u32),
    #[serde(deserialize_with = "expr::triple")]
    pub block: (u32, u32, u32),
    #[serde(default, deserialize_with = "expr::int")]
    pub dynamic_lds: u32,
    #[serde(default)]
    pub args: Args,
}

/// Kernel arguments: positional (metadata order of the non-hidden arguments) or by name.
#[derive(Debug, Clone)]
pub enum Args {
    Positional(Vec<Arg>),
    Named(OrderedMap<Arg>),
}

impl Default for Args {
    fn default() -> Args {
        Args::Positional(Vec::new())
    }
}

/// An argument value; its size must equal the argument's metadata size. Integer values are
/// expressions; float values may be integer expressions.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub enum Arg {
    U8(#[serde(deserialize_with = "expr::int")] u8),
    I8(#[serde(deserialize_with = "expr::int")] i8),
    U16(#[serde(deserialize_with = "expr::int")] u16),
    I16(#[serde(deserialize_with = "expr::int")] i16),
    U32(#[serde(deserialize_with = "expr::int")] u32),
    I32(#[serde(deserialize_with = "expr::int")] i32),
    U64(#[serde(deserialize_with = "expr::int")] u64),
    I64(#[serde(deserialize_with = "expr::int")] i64),
    F32(#[serde(deserialize_with = "expr::f32_value")] f32),
    F64(#[serde(deserialize_with = "expr::f64_value")] f64),
    /// The device address of a buffer (8 bytes).
    Buffer(String),
    /// Extension: an OpenCL `__local` pointer argument (`dynamic_shared_pointer`, 4 bytes): the
    /// LDS offset where the dispatch's dynamic LDS starts (after the kernel's static LDS).
    DynamicLds,
    /// Extension: raw bytes (structs passed by value).
    Bytes(Vec<u8>),
}

/// A check on a buffer after all dispatches.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The buffer compared, or (extension) `global`: a variable of the code object.
    #[serde(default)]
    pub buffer: String,
    #[serde(default)]
    pub global: Option<String>,
    pub equals: Expected,
    /// Allowed difference: |got − want| ≤ tol · max(1, |want|) (so absolute near 0, relative
    /// for large values). Integers compare exactly when tol is 0.
    #[serde(default)]
    pub tol: f64,
    /// Extension: element type for `File` and `Reference` comparisons (default: what the
    /// reference says the buffer holds, else bytes).
    #[serde(default)]
    pub ty: Option<Ty>,
    /// Extension: byte offset in the buffer where the compared values start (expression).
    #[serde(default, deserialize_with = "expr::int")]
    pub offset: u64,
}

impl Expect {
    /// What it compares, as the session names it: the buffer, or `global NAME`.
    pub fn target(&self) -> String {
        match &self.global {
            Some(g) => super::globals::key(g),
            None => self.buffer.clone(),
        }
    }
}

/// What a buffer must hold.
#[derive(Debug, Clone, Deserialize)]
pub enum Expected {
    /// The bytes of a file (path relative to the spec); compared from `offset`.
    File(String),
    /// The buffer as the built-in CPU reference `name` computes it (replaying every dispatch).
    Reference(String),
    U8(Vec<u8>),
    I8(Vec<i8>),
    U16(Vec<u16>),
    I16(Vec<i16>),
    U32(Vec<u32>),
    I32(Vec<i32>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

/// A number as written: integer or float (an expression string gives an integer).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    Int(i128),
    Float(f64),
}

/// A map that keeps the file's order (allocation order follows it) and rejects duplicate keys.
#[derive(Debug, Clone)]
pub struct OrderedMap<V>(pub Vec<(String, V)>);

impl<V> Default for OrderedMap<V> {
    fn default() -> Self {
        OrderedMap(Vec::new())
    }
}

impl<V> OrderedMap<V> {
    pub fn get(&self, key: &str) -> Option<&V> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_str())
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &V)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for OrderedMap<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V_<V>(std::marker::PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for V_<V> {
            type Value = OrderedMap<V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map with string keys")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out: Vec<(String, V)> = Vec::new();
                while let Some(k) = map.next_key::<String>()? {
                    if out.iter().any(|(x, _)| *x == k) {
                        return Err(de::Error::custom(format!("duplicate key \"{k}\"")));
                    }
                    let v = map.next_value()?;
                    out.push((k, v));
                }
                Ok(OrderedMap(out))
            }
        }
        d.deserialize_map(V_(std::marker::PhantomData))
    }
}

impl<'de> Deserialize<'de> for Args {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct A;
        impl<'de> Visitor<'de> for A {
            type Value = Args;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of arguments [..] or a map by argument name {..}")
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Args, S::Error> {
                let mut v = Vec::new();
                while let Some(a) = seq.next_element()? {
                    v.push(a);
                }
                Ok(Args::Positional(v))
            }
            fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Args, M::Error> {
                OrderedMap::deserialize(de::value::MapAccessDeserializer::new(map)).map(Args::Named)
            }
        }
        d.deserialize_any(A)
    }
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct N;
        impl Visitor<'_> for N {
            type Value = Num;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Num, E> {
                Ok(Num::Int(v as i128))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Num, E> {
                Ok(Num::Int(v as i128))
            }
            fn visit_i128<E: de::Error>(self, v: i128) -> Result<Num, E> {
                Ok(Num::Int(v))
            }
            fn visit_u128<E: de::Error>(self, v: u128) -> Result<Num, E> {
                i128::try_from(v).map(Num::Int).map_err(|_| E::custom("number too large"))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Num, E> {
                Ok(Num::Float(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Num, E> {
                expr::eval_for_num(v).map(Num::Int).map_err(E::custom)
            }
        }
        d.deserialize_any(N)
    }
}

impl Ty {
    pub fn size(self) -> usize {
        match self {
            Ty::U8 | Ty::I8 => 1,
            Ty::U16 | Ty::I16 | Ty::F16 => 2,
            Ty::U32 | Ty::I32 | Ty::F32 => 4,
            Ty::U64 | Ty::I64 | Ty::F64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Ty::F16 | Ty::F32 | Ty::F64)
    }

    pub fn name(self) -> &'static str {
        match self {
            Ty::U8 => "u8",
            Ty::I8 => "i8",
            Ty::U16 => "u16",
            Ty::I16 => "i16",
            Ty::U32 => "u32",
            Ty::I32 => "i32",
            Ty::U64 => "u64",
            Ty::I64 => "i64",
            Ty::F16 => "f16",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
        }
    }

    /// Inclusive integer range of the type (floats: none).
    pub fn int_range(self) -> Option<(i128, i128)> {
        Some(match self {
            Ty::U8 => (0, u8::MAX as i128),
            Ty::I8 => (i8::MIN as i128, i8::MAX as i128),
            Ty::U16 => (0, u16::MAX as i128),
            Ty::I16 => (i16::MIN as i128, i16::MAX as i128),
            Ty::U32 => (0, u32::MAX as i128),
            Ty::I32 => (i32::MIN as i128, i32::MAX as i128),
            Ty::U64 => (0, u64::MAX as i128),
            Ty::I64 => (i64::MIN as i128, i64::MAX as i128),
            Ty::F16 | Ty::F32 | Ty::F64 => return None,
        })
    }
}

impl Num {
    pub fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }
}

impl Arg {
    /// The variant's name, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Arg::U8(_) => "U8",
            Arg::I8(_) => "I8",
            Arg::U16(_) => "U16",
            Arg::I16(_) => "I16",
            Arg::U32(_) => "U32",
            Arg::I32(_) => "I32",
            Arg::U64(_) => "U64",
            Arg::I64(_) => "I64",
            Arg::F32(_) => "F32",
            Arg::F64(_) => "F64",
            Arg::Buffer(_) => "Buffer",
            Arg::DynamicLds => "DynamicLds",
            Arg::Bytes(_) => "Bytes",
        }
    }

    /// Bytes of a plain value (not `Buffer` / `DynamicLds`, which need the device).
    pub fn scalar_bytes(&self) -> Option<Vec<u8>> {
        Some(match self {
            Arg::U8(v) => v.to_le_bytes().to_vec(),
            Arg::I8(v) => v.to_le_bytes().to_vec(),
            Arg::U16(v) => v.to_le_bytes().to_vec(),
            Arg::I16(v) => v.to_le_bytes().to_vec(),
            Arg::U32(v) => v.to_le_bytes().to_vec(),
            Arg::I32(v) => v.to_le_bytes().to_vec(),
            Arg::U64(v) => v.to_le_bytes().to_vec(),
            Arg::I64(v) => v.to_le_bytes().to_vec(),
            Arg::F32(v) => v.to_le_bytes().to_vec(),
            Arg::F64(v) => v.to_le_bytes().to_vec(),
            Arg::Bytes(b) => b.clone(),
            Arg::Buffer(_) | Arg::DynamicLds => return None,
        })
    }

    /// Size in bytes as an argument.
    pub fn size(&self) -> usize {
        match self {
            Arg::Buffer(_) => 8,
            Arg::DynamicLds => 4,
            other => other.scalar_bytes().map_or(0, |b| b.len()),
        }
    }
}
