//! HIP's C ABI, per release of ROCm's `libamdhip64`: what a program built against HIP 5.x,
//! 6.x or 7.x headers passes and expects (error and attribute numbers, struct layouts,
//! memory-type values), and the symbol versions each release's library defines.
//!
//! `hip5`, `hip6` and `hip7` are generated from each release's headers by
//! `tools/hip-abi/generate.py`, `versions` from the real libraries' exports by
//! `tools/hip-abi/versions.py`. Values that did not change between releases are read from
//! `hip5` (re-exported here); the others through [`Release`].

mod hip5;
pub mod hip6;
pub mod hip7;
pub mod versions;

pub use hip5::*;

use std::sync::OnceLock;

/// The libamdhip64 a program linked: `hipscope exec` offers the runtime under each release's
/// soname (`libamdhip64.so.5`, `.6`, `.7`), so the name it was loaded as says which headers
/// the program was built with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Release {
    /// ROCm 5.x (`libamdhip64.so.5`): HIP 5.2's layouts.
    Hip5,
    /// ROCm 6.x (`libamdhip64.so.6`): `hipDeviceProp_tR0600`, renumbered enums.
    Hip6,
    /// ROCm 7.x (`libamdhip64.so.7`): 6.x's layouts; `hipGetLastError` as CUDA's.
    Hip7,
}

impl Release {
    /// The release this library was loaded as (HIP 5 when the name does not say).
    pub fn current() -> Release {
        static CURRENT: OnceLock<Release> = OnceLock::new();
        *CURRENT.get_or_init(|| own_file_name().as_deref().map_or(Release::Hip5, Release::from_file_name))
    }

    /// `libamdhip64.so.6` → HIP 6; any other name → HIP 5.
    pub fn from_file_name(name: &str) -> Release {
        match name.rsplit_once(".so.").map(|(_, v)| v.split('.').next().unwrap_or("")) {
            Some("7") => Release::Hip7,
            Some("6") => Release::Hip6,
            _ => Release::Hip5,
        }
    }

    /// The soname major (5, 6, 7).
    pub fn major(self) -> u32 {
        match self {
            Release::Hip5 => 5,
            Release::Hip6 => 6,
            Release::Hip7 => 7,
        }
    }

    /// `hipMemoryType` of host, device and managed memory, as this release numbers them.
    pub fn memory_types(self) -> MemoryTypes {
        match self {
            // HIP 5.2 has no managed type: its runtime reports managed memory as device memory.
            Release::Hip5 => MemoryTypes { host: hip5::memory_type::HOST, device: hip5::memory_type::DEVICE, managed: hip5::memory_type::DEVICE },
            Release::Hip6 => MemoryTypes { host: hip6::memory_type::HOST, device: hip6::memory_type::DEVICE, managed: hip6::memory_type::MANAGED },
            Release::Hip7 => MemoryTypes { host: hip7::memory_type::HOST, device: hip7::memory_type::DEVICE, managed: hip7::memory_type::MANAGED },
        }
    }
}

/// `hipMemoryType` values of one release.
#[derive(Debug, Clone, Copy)]
pub struct MemoryTypes {
    pub host: u32,
    pub device: u32,
    /// `hipMemoryTypeManaged` from 6.x on; HIP 5.2 has none (its runtime calls managed
    /// memory device memory).
    pub managed: u32,
}

/// The file name this library was loaded from (its soname as `hipscope exec` offers it).
fn own_file_name() -> Option<String> {
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr fills `info` for an address inside a loaded object: this function's.
    let found = unsafe { libc::dladdr(own_file_name as *const libc::c_void, &mut info) };
    if found == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: the loader's NUL-terminated path.
    let path = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) }.to_string_lossy().into_owned();
    std::path::Path::new(&path).file_name().map(|f| f.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_soname_names_the_release() {
        assert_eq!(Release::from_file_name("libamdhip64.so.5"), Release::Hip5);
        assert_eq!(Release::from_file_name("libamdhip64.so.6"), Release::Hip6);
        assert_eq!(Release::from_file_name("libamdhip64.so.7.2.53211"), Release::Hip7);
        assert_eq!(Release::from_file_name("libamdhip64.so"), Release::Hip5);
    }

    #[test]
    fn memory_types_were_renumbered_in_6_0() {
        // HIP 5.2: host 0, device 1; 6.x: unregistered 0, host 1, device 2, managed 3
        // (hip_runtime_api.h of each release).
        assert_eq!((Release::Hip5.memory_types().host, Release::Hip5.memory_types().device), (0, 1));
        assert_eq!((Release::Hip6.memory_types().host, Release::Hip6.memory_types().device, Release::Hip6.memory_types().managed), (1, 2, 3));
    }
}
