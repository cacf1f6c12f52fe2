//! Every code object the process hands the runtime, each a module: the fat binaries that
//! clang's module constructors register (one per translation unit, from the executable and
//! from every shared library it links, e.g. a ROCm library's hundreds), and the images of
//! `hipModuleLoad*`. Kernels and variables are looked up through the module that registered
//! them, as the real runtime does: two libraries may hold kernels of the same name.
//!
//! Work is deferred to what runs. Registration records a pointer into the mapped library;
//! the first other HIP call checks that every registered fat binary holds a code object for
//! the simulated GPU (ROCm aborts with `hipErrorNoBinaryForGpu` otherwise); a module's code
//! object is loaded and mapped at its first use, each at its own load base below the device
//! heap; a kernel is decoded at its first launch and kept for the next. On a node of several
//! GPUs (one target), the code object is loaded once and mapped on each GPU at the first use
//! there: each GPU has its own copy of the module's variables, at the same addresses.

use crate::abi::Release;
use hipscope_isa::codeobj::{self, CodeObject};
use hipscope_isa::Target;
use hipscope_race::siblings::{self, Decided, Siblings};
use hipscope_sim::kernel::LoadedKernel;
use hipscope_sim::Device;
use std::collections::HashMap;
use std::sync::Arc;

/// A module's index in the registry.
pub type ModuleId = usize;

/// The magic of clang's fat-binary wrapper (`__hip_fatbin_wrapper`: u32 magic "HIPF", u32
/// version, pointer to the bundle, unused pointer; clang CGCUDANV.cpp).
const FATBIN_WRAPPER_MAGIC: u32 = 0x4849_5046;

/// Space left between two mapped code objects (so a stray access faults).
const IMAGE_GAP_BYTES: u64 = 1 << 20;

/// Where a module's bytes are.
enum Image {
    /// A fat binary in the program's or a library's mapped image: `len` bytes are readable
    /// from `ptr` (to the end of its loaded segment; the bundle's own headers bound it).
    Mapped {
        ptr: usize,
        len: usize,
    },
    Owned(Vec<u8>),
}

impl Image {
    fn bytes(&self) -> &[u8] {
        match self {
            // SAFETY: `len` bytes from `ptr` lie in a loaded segment of the process (see
            // `mapped_extent`), mapped as long as the library that registered them.
            Image::Mapped { ptr, len } => unsafe { std::slice::from_raw_parts(*ptr as *const u8, *len) },
            Image::Owned(v) => v,
        }
    }
}

enum State {
    /// Registered, not yet checked against the GPU.
    Registered,
    /// Holds a code object for the GPU, not yet loaded.
    Runnable,
    Loaded(Box<Loaded>),
    /// Loading failed (the message says why); launches from it fail.
    Failed(String),
    /// No code object for the GPU (HIP 6 and 7 go on; launches from it fail).
    NoBinary,
}

/// A module whose code object is loaded and mapped on the GPUs that used it.
pub struct Loaded {
    pub co: CodeObject,
    kernels: HashMap<String, LoadedKernel>,
    /// The other targets' code objects of its bundle, loaded when a kernel's scopes need them.
    siblings: Option<Siblings>,
    /// Scopes decided from them, by kernel name ([`Registry::decided`]).
    decided: HashMap<String, Arc<Decided>>,
    /// The GPUs (ordinals) whose memory holds its sections.
    mapped: std::collections::BTreeSet<usize>,
}

pub struct Module {
    /// What registered it, for messages: `librocsparse.so.1`, a file name, `hipModuleLoadData`.
    pub origin: String,
    image: Image,
    state: State,
    /// Unregistered (`__hipUnregisterFatBinary`, `hipModuleUnload`).
    gone: bool,
}

/// A kernel as registered: its module and symbol name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FunctionRef {
    pub module: ModuleId,
    pub name: String,
}

/// A `__device__` / `__constant__` variable as registered.
#[derive(Debug, Clone)]
pub struct VariableRef {
    pub module: ModuleId,
    pub name: String,
    pub size: u64,
}

/// A fat binary with no code object the simulated GPU runs.
pub struct NoBinary {
    pub origin: String,
    /// The bundle entries it has (ids).
    pub entries: Vec<String>,
}

/// Check a registered module for a code object `target` runs: it becomes runnable, or has no
/// binary (returned), or is unreadable.
fn check(m: &mut Module, target: &Target) -> Option<NoBinary> {
    match codeobj::list_targets(m.image.bytes()) {
        Ok(l) if codeobj::best_entry(&l.entries, target).is_some() => m.state = State::Runnable,
        Ok(l) => {
            m.state = State::NoBinary;
            return Some(NoBinary { origin: m.origin.clone(), entries: l.entries.iter().map(|e| e.id.clone()).collect() });
        }
        Err(e) => m.state = State::Failed(format!("{}: {e}", m.origin)),
    }
    None
}

impl NoBinary {
    /// `LIBRARY has no code object for gfx1100; it has: gfx90a:xnack-, ...`.
    pub fn summary(&self, target: &Target) -> String {
        let has: Vec<&str> = self.entries.iter().filter_map(|e| e.split_once("-amdgcn-amd-amdhsa-").map(|(_, t)| t.trim_start_matches('-'))).collect();
        format!("{} has no code object for {}; it has: {}", self.origin, target.target_id(), if has.is_empty() { "none".into() } else { has.join(", ") })
    }

    /// What ROCm 5.x's runtime logs before it aborts (clr `hip_code_object.cpp`; printed
    /// with `AMD_LOG_LEVEL` 1 or more), 6.x's with "Code object targetID is" in the bundle
    /// lines (and no abort).
    pub fn rocm_log(&self, target: &Target, release: Release) -> String {
        let mut out = String::from("hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n");
        out.push_str(&format!("  Devices:\n    amdgcn-amd-amdhsa--{} - [Not Found]\n  Bundled Code Objects:\n", target.target_id()));
        for e in &self.entries {
            let line = match e.split_once("-amdgcn-amd-amdhsa-") {
                Some((_, tid)) if release == Release::Hip5 => format!("    {e} - [code object is amdgcn-amd-amdhsa-{tid}]\n"),
                Some((_, tid)) => format!("    {e} - [Code object targetID is {}]\n", tid.trim_start_matches('-')),
                None => format!("    {e} - [Unsupported]\n"),
            };
            out.push_str(&line);
        }
        out
    }
}

#[derive(Default)]
pub struct Registry {
    modules: Vec<Module>,
    /// Host stub (or `hipFunction_t`) → kernel.
    pub functions: HashMap<usize, FunctionRef>,
    /// Host shadow → variable.
    pub variables: HashMap<usize, VariableRef>,
    /// The `hipFunction_t` handed out for each module kernel (the same one each time).
    module_functions: HashMap<FunctionRef, usize>,
    /// Where the next code object is mapped.
    next_base: u64,
    /// Modules registered and not yet checked.
    pending: usize,
}

impl Registry {
    /// A fat binary from clang's module constructor; returns the handle given back to the
    /// program (and to `__hipRegisterFunction`/`__hipRegisterVar`), or why it is unusable.
    ///
    /// # Safety
    /// `wrapper` is null or points to clang's fat-binary wrapper.
    pub unsafe fn register_fat_binary(&mut self, wrapper: *const u8) -> Result<usize, String> {
        if wrapper.is_null() {
            return Err("__hipRegisterFatBinary: null fat binary".into());
        }
        // SAFETY: the wrapper is 24 bytes (two u32, two pointers): the caller's contract.
        let (magic, bundle) = unsafe { ((wrapper as *const u32).read_unaligned(), (wrapper.add(8) as *const usize).read_unaligned()) };
        if magic != FATBIN_WRAPPER_MAGIC || bundle == 0 {
            return Err(format!("__hipRegisterFatBinary: not a HIP fat binary wrapper (magic {magic:#x})"));
        }
        let (origin, len) = mapped_extent(bundle).ok_or_else(|| format!("__hipRegisterFatBinary: the fat binary at {bundle:#x} is in no loaded object"))?;
        let id = self.add(Module { origin, image: Image::Mapped { ptr: bundle, len }, state: State::Registered, gone: false });
        self.pending += 1;
        Ok(id + 1)
    }

    /// A `hipModuleLoad*` image, loaded and mapped at once (the call reports what is wrong).
    pub fn load_image(&mut self, bytes: Vec<u8>, origin: String, device: &mut Device, ordinal: usize, target: &Target) -> Result<usize, ImageError> {
        let listing = codeobj::list_targets(&bytes).map_err(|e| ImageError::Invalid(format!("{origin}: {e}")))?;
        if codeobj::best_entry(&listing.entries, target).is_none() {
            let ids: Vec<&str> = listing.entries.iter().filter_map(|e| e.target_id.as_deref()).collect();
            return Err(ImageError::NoBinary(format!("{origin}: no code object for {} (it has: {})", target.target_id(), ids.join(", "))));
        }
        let id = self.add(Module { origin, image: Image::Owned(bytes), state: State::Runnable, gone: false });
        self.loaded(id, device, ordinal, target).map_err(ImageError::Invalid)?;
        Ok(id + 1)
    }

    fn add(&mut self, m: Module) -> ModuleId {
        self.modules.push(m);
        self.modules.len() - 1
    }

    /// The module a handle names (fat-binary handle or `hipModule_t`).
    pub fn module_of(&self, handle: usize) -> Option<ModuleId> {
        let id = handle.checked_sub(1)?;
        self.modules.get(id).filter(|m| !m.gone).map(|_| id)
    }

    /// Whether module `id` is still registered or loaded.
    pub fn is_live(&self, id: ModuleId) -> bool {
        self.modules.get(id).is_some_and(|m| !m.gone)
    }

    /// Mark a module unregistered; returns whether any registered fat binary remains.
    pub fn unregister(&mut self, id: ModuleId) -> bool {
        if let Some(m) = self.modules.get_mut(id) {
            m.gone = true;
        }
        self.modules.iter().any(|m| !m.gone && matches!(m.image, Image::Mapped { .. }))
    }

    /// Whether registrations wait to be checked ([`Registry::check_pending`]).
    pub fn has_pending(&self) -> bool {
        self.pending > 0
    }

    /// Check every fat binary registered since the last check for a code object `target`
    /// runs; returns those that have none (they are kept, and their kernels fail to launch).
    ///
    /// `lazily`: check nothing now; each module is checked when one of its kernels is first
    /// looked up (HIP 6 and 7 go on without a code object, so only the launch can tell; a
    /// ROCm 7.2 library registers hundreds of zstd-compressed bundles, which cost seconds to
    /// list).
    pub fn check_pending(&mut self, target: &Target, lazily: bool) -> Vec<NoBinary> {
        self.pending = 0;
        if lazily {
            return Vec::new();
        }
        self.modules.iter_mut().filter(|m| matches!(m.state, State::Registered)).filter_map(|m| check(m, target)).collect()
    }

    /// The module's code object, loaded at its first use and mapped on `device` (GPU
    /// `ordinal`) at its first use there.
    pub fn loaded(&mut self, id: ModuleId, device: &mut Device, ordinal: usize, target: &Target) -> Result<&mut Loaded, String> {
        let base = self.next_base;
        let m = self.modules.get_mut(id).ok_or("no such module")?;
        if matches!(m.state, State::Registered | State::Runnable) {
            let loaded = codeobj::load_for_device(m.image.bytes(), target, base)
                .map_err(|e| e.to_string())
                .and_then(|co| device.map_code_object(&co).map(|()| co).map_err(|e| e.to_string()));
            m.state = match loaded {
                Ok(co) => {
                    let end = co.image_range().1;
                    self.next_base = end.saturating_add(IMAGE_GAP_BYTES).next_multiple_of(IMAGE_GAP_BYTES);
                    State::Loaded(Box::new(Loaded { co, kernels: HashMap::new(), siblings: None, decided: HashMap::new(), mapped: [ordinal].into() }))
                }
                Err(e) => State::Failed(format!("{}: {e}", m.origin)),
            };
        }
        if let State::Loaded(l) = &mut m.state {
            if !l.mapped.contains(&ordinal) {
                device.map_code_object(&l.co).map_err(|e| format!("{}: {e}", m.origin))?;
                l.mapped.insert(ordinal);
            }
        }
        match &mut m.state {
            State::Loaded(l) => Ok(l),
            State::Failed(e) => Err(e.clone()),
            State::NoBinary => Err(format!("{} has no code object for {}", m.origin, target.target_id())),
            State::Registered | State::Runnable => Err("not loaded".into()),
        }
    }

    /// The kernel `f` names, decoded at its first launch.
    pub fn kernel(&mut self, f: &FunctionRef, device: &mut Device, ordinal: usize, target: &Target) -> Result<&LoadedKernel, KernelMissing> {
        if let Some(m) = self.modules.get_mut(f.module).filter(|m| matches!(m.state, State::Registered)) {
            if let Some(missing) = check(m, target) {
                eprintln!("hipscope: {}", missing.summary(target));
            }
        }
        if matches!(self.modules.get(f.module).map(|m| &m.state), Some(State::NoBinary)) {
            return Err(KernelMissing::NoBinary);
        }
        let loaded = self.loaded(f.module, device, ordinal, target).map_err(KernelMissing::Module)?;
        if !loaded.kernels.contains_key(&f.name) {
            let k = device.load_kernel(&loaded.co, &f.name).map_err(|e| KernelMissing::Kernel(e.to_string()))?;
            loaded.kernels.insert(f.name.clone(), k);
        }
        loaded.kernels.get(&f.name).ok_or(KernelMissing::Kernel(format!("kernel {} is not in its code object", f.name)))
    }

    /// What the same kernel's code for the bundle's other targets decides of the scopes that
    /// the code of kernel `f` (prepared by [`Registry::kernel`]) cannot show
    /// ([`hipscope_race::siblings`]); worked out at its first use.
    pub fn decided(&mut self, f: &FunctionRef) -> Option<Arc<Decided>> {
        let Module { image, state, .. } = self.modules.get_mut(f.module)?;
        let State::Loaded(l) = state else { return None };
        if let Some(d) = l.decided.get(&f.name) {
            return Some(d.clone());
        }
        let k = l.kernels.get(&f.name)?;
        let (co, cache) = (&l.co, &mut l.siblings);
        let d = Arc::new(siblings::decide(k, &co.lines, || cache.get_or_insert_with(|| Siblings::load(image.bytes(), co.source.entry.as_deref()))));
        l.decided.insert(f.name.clone(), d.clone());
        Some(d)
    }

    /// A kernel [`Registry::kernel`] prepared.
    pub fn prepared(&self, f: &FunctionRef) -> Option<&LoadedKernel> {
        match &self.modules.get(f.module)?.state {
            State::Loaded(l) => l.kernels.get(&f.name),
            _ => None,
        }
    }

    /// The loaded code object of a module (`None` before its first use).
    pub fn code_object(&self, id: ModuleId) -> Option<&CodeObject> {
        match &self.modules.get(id)?.state {
            State::Loaded(l) => Some(&l.co),
            _ => None,
        }
    }

    /// A `hipFunction_t` for kernel `name` of module `id`.
    pub fn function_handle(&mut self, id: ModuleId, name: &str) -> usize {
        let f = FunctionRef { module: id, name: name.to_string() };
        if let Some(&h) = self.module_functions.get(&f) {
            return h;
        }
        // A fresh heap address: unique, and never a host stub's code address.
        let h = Box::into_raw(Box::new(0u8)) as usize;
        self.functions.insert(h, f.clone());
        self.module_functions.insert(f, h);
        h
    }
}

impl Drop for Registry {
    /// The `hipFunction_t` handles are heap addresses made for their uniqueness
    /// ([`Registry::function_handle`]): released with the registry (which a program's runtime
    /// keeps to the end; the in-process fuzzer makes a new one per input).
    fn drop(&mut self) {
        for &h in self.module_functions.values() {
            // SAFETY: made by `Box::into_raw(Box::new(0u8))` in `function_handle`, once per
            // key, and released only here.
            drop(unsafe { Box::from_raw(h as *mut u8) });
        }
    }
}

/// Why `hipModuleLoad*` refused an image.
pub enum ImageError {
    /// No code object the simulated GPU runs (`hipErrorNoBinaryForGpu`).
    NoBinary(String),
    /// Not a code object, or one that does not load (`hipErrorInvalidImage`).
    Invalid(String),
}

/// Why a kernel could not be prepared.
pub enum KernelMissing {
    /// Its module has no code object for the GPU (`hipErrorNoBinaryForGpu`).
    NoBinary,
    /// Its module did not load.
    Module(String),
    Kernel(String),
}

/// The object (program or shared library) whose loaded segment holds `address`, and how many
/// bytes from `address` to the end of that segment: a bound on the fat binary's size that
/// the bundle's own headers then narrow.
fn mapped_extent(address: usize) -> Option<(String, usize)> {
    struct Search {
        address: usize,
        found: Option<(String, usize)>,
    }
    unsafe extern "C" fn visit(info: *mut libc::dl_phdr_info, _size: usize, data: *mut libc::c_void) -> libc::c_int {
        // SAFETY: `data` is our `Search`, `info` the loader's record of one object.
        let (search, info) = unsafe { (&mut *(data as *mut Search), &*info) };
        for i in 0..usize::from(info.dlpi_phnum) {
            // SAFETY: `dlpi_phdr` has `dlpi_phnum` entries.
            let ph = unsafe { &*info.dlpi_phdr.add(i) };
            if ph.p_type != libc::PT_LOAD {
                continue;
            }
            let start = (info.dlpi_addr as usize).wrapping_add(ph.p_vaddr as usize);
            let end = start.wrapping_add(ph.p_filesz as usize);
            if (start..end).contains(&search.address) {
                let name = if info.dlpi_name.is_null() {
                    String::new()
                } else {
                    // SAFETY: the loader's NUL-terminated path.
                    unsafe { std::ffi::CStr::from_ptr(info.dlpi_name) }.to_string_lossy().into_owned()
                };
                search.found = Some((name, end - search.address));
                return 1;
            }
        }
        0
    }
    let mut search = Search { address, found: None };
    // SAFETY: `visit` only reads the records the loader passes and writes `search`.
    unsafe { libc::dl_iterate_phdr(Some(visit), &mut search as *mut Search as *mut libc::c_void) };
    let (name, len) = search.found?;
    let shown = if name.is_empty() {
        std::fs::read_link("/proc/self/exe")
            .map_or_else(|_| "the program".into(), |p| p.file_name().map_or_else(|| p.display().to_string(), |f| f.to_string_lossy().into_owned()))
    } else {
        std::path::Path::new(&name).file_name().map_or(name.clone(), |f| f.to_string_lossy().into_owned())
    };
    Some((shown, len))
}
