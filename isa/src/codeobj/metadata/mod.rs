//! Code object metadata, typed.
//!
//! Two encodings reach the same structs:
//! * v2: YAML text in the `NT_AMD_HSA_METADATA` note (AMDGPUUsage "Code Object V2 Metadata"),
//!   CamelCase keys, argument offsets implied by order and alignment ([`v2`]);
//! * v3+: a MessagePack map in the `NT_AMDGPU_METADATA` note (AMDGPUUsage "Code Object V3
//!   Metadata" and the V4/V5 change tables), dotted snake_case keys, explicit offsets ([`v3`]).
//!
//! Both are first turned into a small untyped tree ([`value::MValue`], depth-limited) and then
//! read with path-aware accessors, so an error names the exact key.

mod msgpack;
mod v2;
mod v3;
mod value;
mod yaml;

use super::LoadError;
use serde::{Serialize, Serializer};

/// Which note encoding the metadata came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MetadataFormat {
    /// Code object v2 `NT_AMD_HSA_METADATA` (YAML).
    Yaml,
    /// Code object v3+ `NT_AMDGPU_METADATA` (MessagePack).
    #[serde(rename = "msgpack")]
    MsgPack,
}

/// The whole metadata note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Metadata {
    pub format: MetadataFormat,
    /// `amdhsa.version` / `Version` (`[1, 2]` for code object v5).
    pub version: Option<[u64; 2]>,
    /// `amdhsa.target` (v4+), e.g. `amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-`.
    pub target: Option<String>,
    pub printf: Vec<String>,
    pub kernels: Vec<KernelMetadata>,
}

/// Per-kernel metadata (AMDGPUUsage "Kernel Metadata Map" tables, v2 "CodeProps" and "Attrs"
/// folded in).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KernelMetadata {
    pub name: String,
    /// Kernel descriptor symbol (`name.kd`; `name@kd` in v2, which has no such ELF symbol).
    pub symbol: String,
    pub language: Option<String>,
    pub language_version: Option<[u64; 2]>,
    pub kernarg: KernargLayout,
    pub group_segment_fixed_size: u64,
    pub private_segment_fixed_size: u64,
    pub wavefront_size: u64,
    pub sgpr_count: u64,
    pub vgpr_count: u64,
    /// Documented as required since v3 but absent from LLVM 19 output for non-CDNA targets.
    pub agpr_count: Option<u64>,
    pub max_flat_workgroup_size: u64,
    pub sgpr_spill_count: Option<u64>,
    pub vgpr_spill_count: Option<u64>,
    /// `normal`, `init` or `fini`.
    pub kind: Option<String>,
    pub reqd_workgroup_size: Option<[u64; 3]>,
    pub workgroup_size_hint: Option<[u64; 3]>,
    pub vec_type_hint: Option<String>,
    pub device_enqueue_symbol: Option<String>,
    /// v5+.
    pub uses_dynamic_stack: Option<bool>,
    /// v5+, GFX10+.
    pub workgroup_processor_mode: Option<bool>,
    /// v5+.
    pub uniform_work_group_size: Option<bool>,
}

/// The kernarg segment: its size, alignment and every argument, hidden ones included.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KernargLayout {
    pub segment_size: u64,
    pub segment_align: u64,
    /// True when the offsets were computed from sizes and alignments (v2 metadata has none).
    pub offsets_computed: bool,
    pub args: Vec<KernelArg>,
}

/// One kernel argument.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KernelArg {
    pub name: Option<String>,
    pub type_name: Option<String>,
    pub offset: u64,
    pub size: u64,
    /// Only v2 metadata carries an argument alignment.
    pub align: Option<u64>,
    pub value_kind: ValueKind,
    pub address_space: Option<AddressSpace>,
    pub access: Option<Access>,
    pub actual_access: Option<Access>,
    pub pointee_align: Option<u64>,
    pub is_const: bool,
    pub is_restrict: bool,
    pub is_volatile: bool,
    pub is_pipe: bool,
}

/// `.value_kind` (v3+) / `ValueKind` (v2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueKind {
    ByValue,
    GlobalBuffer,
    DynamicSharedPointer,
    Sampler,
    Image,
    Pipe,
    Queue,
    Hidden(HiddenKind),
    /// A kind this loader does not know (newer LLVM); kept verbatim.
    Other(String),
}

/// The `hidden_*` value kinds: arguments the runtime fills in, not the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HiddenKind {
    GlobalOffsetX,
    GlobalOffsetY,
    GlobalOffsetZ,
    None,
    PrintfBuffer,
    HostcallBuffer,
    DefaultQueue,
    CompletionAction,
    MultigridSyncArg,
    BlockCountX,
    BlockCountY,
    BlockCountZ,
    GroupSizeX,
    GroupSizeY,
    GroupSizeZ,
    RemainderX,
    RemainderY,
    RemainderZ,
    GridDims,
    HeapV1,
    DynamicLdsSize,
    PrivateBase,
    SharedBase,
    QueuePtr,
}

/// Hidden kinds with their v3+ spelling (without `hidden_`) and v2 spelling (without `Hidden`).
const HIDDEN_NAMES: &[(HiddenKind, &str, &str)] = &[
    (HiddenKind::GlobalOffsetX, "global_offset_x", "GlobalOffsetX"),
    (HiddenKind::GlobalOffsetY, "global_offset_y", "GlobalOffsetY"),
    (HiddenKind::GlobalOffsetZ, "global_offset_z", "GlobalOffsetZ"),
    (HiddenKind::None, "none", "None"),
    (HiddenKind::PrintfBuffer, "printf_buffer", "PrintfBuffer"),
    (HiddenKind::HostcallBuffer, "hostcall_buffer", "HostcallBuffer"),
    (HiddenKind::DefaultQueue, "default_queue", "DefaultQueue"),
    (HiddenKind::CompletionAction, "completion_action", "CompletionAction"),
    (HiddenKind::MultigridSyncArg, "multigrid_sync_arg", "MultiGridSyncArg"),
    (HiddenKind::BlockCountX, "block_count_x", "BlockCountX"),
    (HiddenKind::BlockCountY, "block_count_y", "BlockCountY"),
    (HiddenKind::BlockCountZ, "block_count_z", "BlockCountZ"),
    (HiddenKind::GroupSizeX, "group_size_x", "GroupSizeX"),
    (HiddenKind::GroupSizeY, "group_size_y", "GroupSizeY"),
    (HiddenKind::GroupSizeZ, "group_size_z", "GroupSizeZ"),
    (HiddenKind::RemainderX, "remainder_x", "RemainderX"),
    (HiddenKind::RemainderY, "remainder_y", "RemainderY"),
    (HiddenKind::RemainderZ, "remainder_z", "RemainderZ"),
    (HiddenKind::GridDims, "grid_dims", "GridDims"),
    (HiddenKind::HeapV1, "heap_v1", "HeapV1"),
    (HiddenKind::DynamicLdsSize, "dynamic_lds_size", "DynamicLdsSize"),
    (HiddenKind::PrivateBase, "private_base", "PrivateBase"),
    (HiddenKind::SharedBase, "shared_base", "SharedBase"),
    (HiddenKind::QueuePtr, "queue_ptr", "QueuePtr"),
];

/// A constructor with its v3+ and v2 spellings.
type Spelling = (fn() -> ValueKind, &'static str, &'static str);

/// Non-hidden kinds with their v3+ and v2 spellings.
const PLAIN_KINDS: &[Spelling] = &[
    (|| ValueKind::ByValue, "by_value", "ByValue"),
    (|| ValueKind::GlobalBuffer, "global_buffer", "GlobalBuffer"),
    (|| ValueKind::DynamicSharedPointer, "dynamic_shared_pointer", "DynamicSharedPointer"),
    (|| ValueKind::Sampler, "sampler", "Sampler"),
    (|| ValueKind::Image, "image", "Image"),
    (|| ValueKind::Pipe, "pipe", "Pipe"),
    (|| ValueKind::Queue, "queue", "Queue"),
];

impl ValueKind {
    /// Parse the v3+ spelling (`hidden_block_count_x`).
    pub fn from_v3(s: &str) -> ValueKind {
        if let Some((make, _, _)) = PLAIN_KINDS.iter().find(|(_, v3, _)| *v3 == s) {
            return make();
        }
        let hidden = s.strip_prefix("hidden_").and_then(|h| HIDDEN_NAMES.iter().find(|(_, v3, _)| *v3 == h));
        match hidden {
            Some((k, _, _)) => ValueKind::Hidden(k.clone()),
            None => ValueKind::Other(s.to_string()),
        }
    }

    /// Parse the v2 spelling (`HiddenGlobalOffsetX`).
    pub fn from_v2(s: &str) -> ValueKind {
        if let Some((make, _, _)) = PLAIN_KINDS.iter().find(|(_, _, v2)| *v2 == s) {
            return make();
        }
        let hidden = s.strip_prefix("Hidden").and_then(|h| HIDDEN_NAMES.iter().find(|(_, _, v2)| *v2 == h));
        match hidden {
            Some((k, _, _)) => ValueKind::Hidden(k.clone()),
            None => ValueKind::Other(s.to_string()),
        }
    }

    /// The v3+ spelling, used for display and JSON whatever the source format.
    pub fn as_str(&self) -> String {
        match self {
            ValueKind::Hidden(k) => format!("hidden_{}", k.as_str()),
            ValueKind::Other(s) => s.clone(),
            plain => PLAIN_KINDS.iter().find(|(make, _, _)| make() == *plain).map(|(_, v3, _)| (*v3).to_string()).unwrap_or_default(),
        }
    }

    pub fn is_hidden(&self) -> bool {
        matches!(self, ValueKind::Hidden(_)) || matches!(self, ValueKind::Other(s) if s.starts_with("hidden_"))
    }
}

impl HiddenKind {
    /// v3+ spelling without the `hidden_` prefix.
    pub fn as_str(&self) -> &'static str {
        HIDDEN_NAMES.iter().find(|(k, _, _)| k == self).map(|(_, v3, _)| *v3).unwrap_or("unknown")
    }
}

impl Serialize for ValueKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.as_str())
    }
}

impl std::fmt::Display for ValueKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.as_str())
    }
}

/// `.address_space` / `AddrSpaceQual`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AddressSpace {
    Private,
    Global,
    Constant,
    Local,
    Generic,
    Region,
}

impl AddressSpace {
    /// Accepts both `global` (v3+) and `Global` (v2).
    pub fn parse(s: &str) -> Option<AddressSpace> {
        Some(match s.to_ascii_lowercase().as_str() {
            "private" => AddressSpace::Private,
            "global" => AddressSpace::Global,
            "constant" => AddressSpace::Constant,
            "local" => AddressSpace::Local,
            "generic" => AddressSpace::Generic,
            "region" => AddressSpace::Region,
            _ => return None,
        })
    }
}

/// `.access` / `.actual_access` / `AccQual` / `ActualAccQual`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// v2 only: no qualifier given.
    Default,
    ReadOnly,
    WriteOnly,
    ReadWrite,
}

impl Access {
    /// Accepts `read_only` (v3+) and `ReadOnly` (v2).
    pub fn parse(s: &str) -> Option<Access> {
        Some(match s.replace('_', "").to_ascii_lowercase().as_str() {
            "default" => Access::Default,
            "readonly" => Access::ReadOnly,
            "writeonly" => Access::WriteOnly,
            "readwrite" => Access::ReadWrite,
            _ => return None,
        })
    }
}

/// Merge the metadata of a second note of a linked code object into the first: the kernels
/// and printf formats of both, which must agree on metadata version and target (the rule of
/// ROCm's code object manager for linked objects). A kernel both name is kept once.
pub fn merge(mut first: Metadata, second: Metadata) -> Result<Metadata, String> {
    if first.version != second.version {
        let show = |v: Option<[u64; 2]>| v.map_or_else(|| "none".to_string(), |[a, b]| format!("{a}.{b}"));
        return Err(format!("metadata version {} differs from the first note's {}", show(second.version), show(first.version)));
    }
    if let (Some(a), Some(b)) = (&first.target, &second.target) {
        if a != b {
            return Err(format!("target {b} differs from the first note's {a}"));
        }
    }
    first.target = first.target.or(second.target);
    first.printf.extend(second.printf);
    for kernel in second.kernels {
        if !first.kernels.iter().any(|k| k.symbol == kernel.symbol) {
            first.kernels.push(kernel);
        }
    }
    Ok(first)
}

/// Decode a v3+ `NT_AMDGPU_METADATA` descriptor.
pub fn parse_msgpack(desc: &[u8]) -> Result<Metadata, LoadError> {
    let root = msgpack::decode(desc)?;
    v3::metadata(&root)
}

/// Decode a v2 `NT_AMD_HSA_METADATA` descriptor (NUL-terminated YAML).
pub fn parse_yaml(desc: &[u8]) -> Result<Metadata, LoadError> {
    let root = yaml::decode(desc)?;
    v2::metadata(&root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_kinds_round_trip_both_spellings() {
        assert_eq!(ValueKind::from_v3("hidden_block_count_x"), ValueKind::Hidden(HiddenKind::BlockCountX));
        assert_eq!(ValueKind::from_v2("HiddenMultiGridSyncArg"), ValueKind::Hidden(HiddenKind::MultigridSyncArg));
        assert_eq!(ValueKind::from_v2("GlobalBuffer"), ValueKind::GlobalBuffer);
        assert_eq!(ValueKind::from_v2("HiddenMultiGridSyncArg").as_str(), "hidden_multigrid_sync_arg");
        assert_eq!(ValueKind::from_v3("by_value").as_str(), "by_value");
        assert_eq!(ValueKind::from_v3("hidden_future"), ValueKind::Other("hidden_future".into()));
        assert!(ValueKind::from_v3("hidden_future").is_hidden());
        for (k, v3, _) in HIDDEN_NAMES {
            assert_eq!(k.as_str(), *v3);
        }
    }

    #[test]
    fn qualifiers_parse_both_spellings() {
        assert_eq!(AddressSpace::parse("Global"), Some(AddressSpace::Global));
        assert_eq!(AddressSpace::parse("local"), Some(AddressSpace::Local));
        assert_eq!(Access::parse("read_only"), Some(Access::ReadOnly));
        assert_eq!(Access::parse("ReadWrite"), Some(Access::ReadWrite));
        assert_eq!(Access::parse("bogus"), None);
    }
}
