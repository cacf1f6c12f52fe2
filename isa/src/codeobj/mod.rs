//! AMDGPU code objects: load one from bytes into a [`CodeObject`].
//!
//! Specification: LLVM 19 AMDGPUUsage, sections "ELF Code Object" (header, sections, note
//! records, symbols, relocation records), "Code Object Metadata" (v2 YAML, v3+ MessagePack),
//! "Kernel Descriptor" and "Initial Kernel Execution State". Each module cites its tables.
//!
//! # Inputs
//! * bare code objects, code object v2 (`amd_kernel_code_t` + `"AMD"` notes + YAML metadata)
//!   and v3..v6 (`.kd` kernel descriptors + MessagePack `NT_AMDGPU_METADATA`), linked
//!   (`ET_DYN`) or unlinked (`ET_REL`, relocations applied over a deterministic layout, see
//!   `image.rs`);
//! * clang offload bundles (`__CLANG_OFFLOAD_BUNDLE__`), plain or compressed (`CCOB`, zlib or
//!   zstd, format versions 1..3: `clang --offload-compress`, ROCm 6.x/7.x `hipcc`; see
//!   `compressed.rs`), decoded as a stream of which only the entry table and the wanted
//!   entry are kept (`extract.rs`);
//! * HIP host executables/objects whose `.hip_fatbin` section holds bundles (one per
//!   translation unit, each plain or compressed);
//! * one bundle at the start of a buffer of unknown length, as the HIP runtime gets it from
//!   `__hipRegisterFatBinary`: [`bundle_extent`], [`load_from_bundle`].
//!
//! # API
//! ```no_run
//! use hipscope_isa::codeobj;
//! let bytes = std::fs::read("vadd.hipfb").unwrap();
//! // What is inside, without loading (a bare code object lists itself):
//! let listing = codeobj::list_targets(&bytes)?;
//! for entry in &listing.entries { println!("{} {:?}", entry.id, entry.target_id); }
//! // Load the gfx90a code object (or `None`: the only one; an error lists the choices).
//! let co = codeobj::load(&bytes, Some("gfx90a"))?;
//! for k in &co.kernels {
//!     println!("{} entry {:#x}, kernargs {:?}", k.name, k.entry_address, k.kernarg().map(|l| l.segment_size));
//! }
//! // A disassembler walks the executable sections symbol by symbol:
//! for text in co.text_sections() {
//!     for sym in co.code_symbols_in(text) {
//!         let _bytes = co.read(sym.address, sym.size);
//!     }
//! }
//! # Ok::<(), codeobj::LoadError>(())
//! ```
//! Addresses are ELF virtual addresses plus the load base ([`load_at`]; 0 for [`load`]). [`Section::bytes`] are relocated;
//! [`Section::file_bytes`] are the bytes as stored (what `llvm-objdump -d` prints for `ET_REL`).
//! [`CodeObject::code_symbols`] lists every symbol in an executable section (functions, v2
//! `STT_AMDGPU_HSA_KERNEL` kernels whose first 256 bytes are the header, not code, and local
//! labels), sorted by address.
//!
//! # Limits
//! A loaded kernel can still declare sizes no GPU runs (a flipped bit in a segment size);
//! [`limits::check_kernel`] lists them, for launchers and `hipscope info`.
//!
//! # Errors
//! [`LoadError`]'s `Display` is one line naming the problem and its place. Nothing here panics
//! on malformed input; `isa/tests/suite/codeobj_robustness.rs` and `fuzz/` check that.

mod bundle;
mod bytes;
mod compressed;
mod container;
mod descriptor;
mod device_match;
mod elf;
mod error;
mod extract;
mod fatbin;
mod image;
mod kernel_code;
mod kernels;
pub mod limits;
pub mod lines;
mod loader;
mod lookup;
mod metadata;
mod notes;
mod registers;
mod reloc;
mod rsrc;
mod sgprs;
mod symbols;

pub use bundle::BundleEntry;
pub use container::{bundle_entries, bundle_extent, ContainerKind, EntryBytes, Source};
pub use descriptor::{KernargPreload, KernelCodeProperties, KernelDescriptor, KERNEL_DESCRIPTOR_SIZE};
pub use device_match::{best_entry, load_for_device, rank as target_rank};
pub use elf::ElfType;
pub use error::{show, LoadError};
pub use image::Section;
pub use kernel_code::{AmdKernelCode, AMD_KERNEL_CODE_SIZE};
pub use kernels::Kernel;
pub use loader::{load_elf, load_elf_at};
pub use lookup::{demangle, Candidate, KernelLookupError};
pub use metadata::{Access, AddressSpace, HiddenKind, KernargLayout, KernelArg, KernelMetadata, Metadata, MetadataFormat, ValueKind};
pub use notes::IsaVersion;
pub use registers::RegisterCounts;
pub use rsrc::{FloatDenormMode, FloatRoundMode, FpExceptions, Rsrc1, Rsrc2, Rsrc3, WorkitemIds};
pub use sgprs::{InitialSgprs, SgprSlot, SgprValue};
pub use symbols::{CodeSymbol, CodeSymbolKind, DataSymbol};

use crate::target::{FeatureSetting, Processor, Target};
use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

/// A loaded code object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CodeObject {
    #[serde(serialize_with = "serialize_target")]
    pub target: Target,
    /// 2..=6.
    pub code_object_version: u32,
    pub elf_type: ElfType,
    /// The load base every address includes (0 unless loaded with [`load_at`]).
    pub load_base: u64,
    pub e_flags: u32,
    /// `EF_AMDGPU_GENERIC_VERSION` (v6+), 0 otherwise.
    pub generic_version: u32,
    pub source: Source,
    /// Code object v2: the `NT_AMD_HSA_ISA_VERSION` note the target came from.
    pub isa_version_note: Option<IsaVersion>,
    /// The object-level metadata; per-kernel metadata is in [`Kernel::metadata`].
    pub metadata: Option<MetadataHeader>,
    /// Every `SHF_ALLOC` section with its address and bytes.
    pub sections: Vec<Section>,
    /// Symbols in executable sections, sorted by address.
    pub code_symbols: Vec<CodeSymbol>,
    /// Variables (`__device__`, `__constant__` globals), sorted by address.
    pub data_symbols: Vec<DataSymbol>,
    pub kernels: Vec<Kernel>,
    /// Things that were loaded but may be incomplete (e.g. relocations left unapplied).
    pub warnings: Vec<String>,
    /// Source lines of code addresses (empty without DWARF line tables).
    #[serde(skip)]
    pub lines: lines::LineTable,
}

/// The metadata note without its kernel list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MetadataHeader {
    pub format: MetadataFormat,
    pub version: Option<[u64; 2]>,
    pub target: Option<String>,
    pub printf: Vec<String>,
}

impl CodeObject {
    /// The executable sections (normally one `.text`).
    pub fn text_sections(&self) -> impl Iterator<Item = &Section> {
        self.sections.iter().filter(|s| s.executable)
    }

    /// The code symbols inside `section`, by address.
    pub fn code_symbols_in<'s>(&'s self, section: &'s Section) -> impl Iterator<Item = &'s CodeSymbol> + 's {
        self.code_symbols.iter().filter(move |s| section.contains(s.address))
    }

    /// A kernel by its exact name in the code object or its descriptor symbol
    /// ([`CodeObject::find_kernel`] also takes C++ source names).
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name || k.symbol == name)
    }

    /// The loaded section containing `address`.
    pub fn section_at(&self, address: u64) -> Option<&Section> {
        self.sections.iter().find(|s| s.contains(address))
    }

    /// The addresses its loaded sections span, `[start, end)` (the load base onwards).
    pub fn image_range(&self) -> (u64, u64) {
        let end = self.sections.iter().map(|s| s.address.saturating_add(s.size)).max().unwrap_or(self.load_base);
        (self.load_base, end.max(self.load_base))
    }

    /// `len` relocated bytes at `address`, if one section holds them all.
    pub fn read(&self, address: u64, len: u64) -> Option<&[u8]> {
        self.section_at(address)?.bytes_at(address, len)
    }
}

/// The entries of a file, as [`list_targets`] reports them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Listing {
    pub container: ContainerKind,
    /// All entries, host ones included; [`BundleEntry::is_amdgpu`] marks loadable ones.
    pub entries: Vec<BundleEntry>,
}

/// List what a file holds without loading any code object (a bare code object lists itself,
/// with the target read from its header or, for v2, its notes).
pub fn list_targets(data: &[u8]) -> Result<Listing, LoadError> {
    let (container, entries) = container::entries(data)?;
    Ok(Listing { container, entries })
}

/// Load the code object in `data`. `target` picks one in a bundle or HIP file (`gfx90a`,
/// `gfx90a:xnack+`, or an alias such as `fiji`); without it the file must hold exactly one. For
/// a bare code object a given target must match it.
pub fn load(data: &[u8], target: Option<&str>) -> Result<CodeObject, LoadError> {
    load_at(data, target, 0)
}

/// [`load`] with every address offset by the load base `base`.
pub fn load_at(data: &[u8], target: Option<&str>, base: u64) -> Result<CodeObject, LoadError> {
    let (bytes, source) = container::select(data, target)?;
    let mut co = match &source.entry {
        Some(id) => load_elf_at(&bytes, base).map_err(|e| e.in_entry(id, source.offset))?,
        None => load_elf_at(&bytes, base)?,
    };
    co.source = source;
    Ok(co)
}

/// [`load`] for a file that may hold several code objects for one target (a library built
/// from many translation units holds one per unit): the first, in file order, that `wants`
/// accepts. With one candidate, or none accepted, it is what [`load`] gives.
pub fn load_containing(data: &[u8], target: Option<&str>, wants: &dyn Fn(&CodeObject) -> bool) -> Result<CodeObject, LoadError> {
    let (_, candidates) = container::candidates(data, target)?;
    if candidates.len() > 1 {
        for e in &candidates {
            let co = load_entry_at(data, e, 0)?;
            if wants(&co) {
                return Ok(co);
            }
        }
    }
    load(data, target)
}

/// [`load`] for a buffer that starts with one offload bundle, plain or compressed, and may run
/// past its end (the HIP runtime knows where a registered fat binary starts, not its length;
/// [`bundle_extent`] gives that). Offsets in errors and [`Source`] are from the buffer start.
pub fn load_from_bundle(bundle: &[u8], target: Option<&str>) -> Result<CodeObject, LoadError> {
    load_from_bundle_at(bundle, target, 0)
}

/// [`load_from_bundle`] with every address offset by the load base `base`.
pub fn load_from_bundle_at(bundle: &[u8], target: Option<&str>, base: u64) -> Result<CodeObject, LoadError> {
    container::expect_bundle(bundle)?;
    load_at(bundle, target, base)
}

/// Load the code object of `entry` (one of [`list_targets`]' entries for `data`) at `base`.
pub fn load_entry_at(data: &[u8], entry: &BundleEntry, base: u64) -> Result<CodeObject, LoadError> {
    // An entry of a compressed bundle is not a byte range of `data`: `select_entry` decompresses.
    let (bytes, source) = container::select_entry(data, entry)?;
    let mut co = match &source.entry {
        Some(id) => load_elf_at(&bytes, base).map_err(|e| e.in_entry(id, source.offset))?,
        None => load_elf_at(&bytes, base)?,
    };
    co.source = source;
    Ok(co)
}

pub(crate) use loader::probe_target;

/// Exercise every public path on arbitrary bytes; for fuzzers and the robustness test. Returns
/// a number derived from the result so the work cannot be optimised away.
#[doc(hidden)]
pub fn fuzz_one(data: &[u8]) -> usize {
    let mut n = match list_targets(data) {
        Ok(l) => l.entries.iter().map(|e| e.id.len()).sum(),
        Err(e) => e.to_string().len(),
    };
    n += match load(data, None) {
        Ok(co) => summarize(&co),
        Err(e) => e.to_string().len(),
    };
    if let Ok(l) = list_targets(data) {
        for t in l.entries.iter().filter_map(|e| e.target_id.as_deref()).take(4) {
            n += load(data, Some(t)).map(|co| summarize(&co)).unwrap_or_else(|e| e.to_string().len());
        }
    }
    // The paths of the HIP runtime: a bundle's extent and entries, the entry ROCm would pick
    // for a device, loaded at a base address.
    n += bundle_extent(data).map_or_else(|e| e.to_string().len(), |x| x as usize % 13);
    let ids = ["hipv4-amdgcn-amd-amdhsa--gfx90a", "host-x86_64-unknown-linux--"];
    n += bundle_entries(data, &ids).map_or_else(|e| e.to_string().len(), |b| b.iter().map(|(_, b)| b.len() % 11).sum());
    let device = Target { processor: Processor::Gfx90a, xnack: FeatureSetting::Off, sramecc: FeatureSetting::Off };
    n += load_for_device(data, &device, 0x7000_0000).map_or_else(|e| e.to_string().len(), |co| summarize(&co));
    n
}

fn summarize(co: &CodeObject) -> usize {
    let mut n = co.code_symbols.len() + co.warnings.len();
    for k in &co.kernels {
        n += co.find_kernel(&k.name).is_ok() as usize + k.demangled().map_or(0, |d| d.len());
        n += k.entry_address as usize % 7 + co.read(k.entry_address, 4).map_or(0, <[u8]>::len);
        n += k.kernarg().map_or(0, |l| l.args.iter().map(|a| a.value_kind.as_str().len()).sum());
    }
    for s in co.text_sections() {
        n += co.code_symbols_in(s).count();
    }
    n
}

fn feature_name(f: FeatureSetting) -> &'static str {
    match f {
        FeatureSetting::Unsupported => "unsupported",
        FeatureSetting::Any => "any",
        FeatureSetting::Off => "off",
        FeatureSetting::On => "on",
    }
}

/// JSON form of a [`Target`]: `{"processor", "family", "target_id", "xnack", "sramecc"}`.
pub fn serialize_target<S: Serializer>(t: &Target, s: S) -> Result<S::Ok, S::Error> {
    let mut st = s.serialize_struct("Target", 5)?;
    st.serialize_field("processor", t.processor.name())?;
    st.serialize_field("family", t.processor.family().name())?;
    st.serialize_field("target_id", &t.target_id())?;
    st.serialize_field("xnack", feature_name(t.xnack))?;
    st.serialize_field("sramecc", feature_name(t.sramecc))?;
    st.end()
}

pub(crate) fn serialize_processor<S: Serializer>(p: &Option<Processor>, s: S) -> Result<S::Ok, S::Error> {
    match p {
        Some(p) => s.serialize_some(p.name()),
        None => s.serialize_none(),
    }
}
