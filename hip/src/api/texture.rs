//! Texture objects over linear memory (`hipResourceTypeLinear`) and pitched 2D memory
//! (`hipResourceTypePitch2D`): `hipCreateTextureObject`, `hipDestroyTextureObject`,
//! `hipGetTextureObject{Resource,Texture,ResourceView}Desc`, and `hipCreateChannelDesc`.
//!
//! A `hipTextureObject_t` is a device pointer to the descriptors the device code reads (HIP
//! 5.2 `texture_types.h`: `HIP_IMAGE_OBJECT_SIZE_DWORD` 12 dwords of image resource, then
//! `HIP_SAMPLER_OBJECT_SIZE_DWORD` 8 of sampler at `HIP_SAMPLER_OBJECT_OFFSET_DWORD` 12; the
//! same in HIP 6 and 7). The runtime fills them as ROCm does: ROCclr makes an HSA image of
//! the resource and ROCr writes its descriptors (ROCR-Runtime `image/image_manager_{ai,nv,
//! gfx11,gfx12}.cpp`, `PopulateImageSrd`; sampler: `PopulateSamplerSrd`).
//!
//! * Linear: `tex1Dfetch` (`texture_indirect_functions.h`) calls `__ockl_image_load_1Db`,
//!   which clang compiles to a 4-dword `s_load` of a buffer resource (V#) from offset 0 of the
//!   object and a `buffer_load_format_*` with `idxen`: the texel index is the record index.
//!   ROCr's 1D-buffer image V#: the texels' base, a stride of one texel, `NUM_RECORDS` = width
//!   x texel bytes (so the index range check lets indices up to that through, as on the
//!   hardware), the data/number format of the channel descriptor per family (DFMT/NFMT in word
//!   3 on GFX8/GFX9/CDNA; one unified FORMAT from GFX10 on, with GFX10's RESOURCE_LEVEL), and
//!   OOB_SELECT 0.
//! * Pitched 2D: `tex2D` calls `__ockl_image_sample_2D`: an `image_sample` with the 8-dword
//!   image resource (T#) at dword 0 and the sampler (S#) at dword 12. The T# is a linear
//!   (`SW_MODE` 0) 2D image with the row pitch in texels; its bit layout per family is the
//!   simulator's ([`hipscope_sim::exec::vmem::image::Tsharp`], from ROCr's resource headers).
//!   The S# takes HIP's `addressMode[0]` for both axes (as ROCclr passes one HSA addressing
//!   mode: wrap, clamp to edge, mirror, border), `filterMode` for magnification and
//!   minification, `normalizedCoords` (FORCE_UNNORMALIZED otherwise), and a transparent-black
//!   border (ROCr does not program border colours). With unnormalized coordinates, wrap and
//!   mirror act as clamp (CUDA Programming Guide, "Texture Fetching": they are only supported
//!   with normalized coordinates). The base must be 256-byte aligned (T# addresses are) and the
//!   pitch a multiple of 256 bytes (ROCm's linear-image pitch alignment; `hipMallocPitch`'s).
//!
//! Format codes are looked up in the simulator's own tables
//! (`hipscope_sim::exec::vmem::format`), so the descriptor decodes to exactly the channel
//! format. Destination selects follow ROCr's image formats: one channel reads (x, 0, 0, 1),
//! two (x, y, 0, 1), four (x, y, z, w). Dwords 8-10 hold what ROCr's image descriptors keep
//! there (channel type and order as `hsa_ext_image_channel_type_t`/`_order_t`, and the width),
//! which device code reads (HIP's point-sampling coordinate adjustment reads the width).
//!
//! Read modes: `hipReadModeElementType` returns the stored integers or floats;
//! `hipReadModeNormalizedFloat` on 8- and 16-bit integer channels returns UNORM/SNORM floats.
//! Channel descriptors must have 1, 2 or 4 channels of one size (8, 16 or 32 bits; float 16 or
//! 32), as HIP's texture formats do.
//!
//! gfx94x (MI300) has no image instructions (clang defines `__HIP_NO_IMAGE_SUPPORT` for it)
//! and ROCm reports no image support there: creating a texture is `hipErrorNotSupported`, as
//! in ROCm's runtime.
//!
//! hipArrays are not supported: creating such an object says so and returns
//! `hipErrorNotSupported`.

use crate::memory::AllocKind;
use crate::runtime::{error, Runtime};
use crate::{put, with_runtime};
use hipscope_isa::Family;
use hipscope_sim::exec::vmem::format::{Format, Num};
use hipscope_sim::exec::vmem::image::{self, Ssharp, Tsharp};
use std::collections::BTreeMap;
use std::ffi::{c_int, c_void};
use std::sync::Mutex;

/// `hipChannelFormatDesc` (HIP 5.2 `driver_types.h`; 20 bytes: four `int` sizes in bits and
/// a `hipChannelFormatKind`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChannelFormatDesc {
    pub x: c_int,
    pub y: c_int,
    pub z: c_int,
    pub w: c_int,
    pub f: u32,
}

/// `hipChannelFormatKind`.
const KIND_SIGNED: u32 = 0;
const KIND_UNSIGNED: u32 = 1;
const KIND_FLOAT: u32 = 2;

/// `hipResourceType`.
const RESOURCE_ARRAY: u32 = 0;
const RESOURCE_MIPMAPPED_ARRAY: u32 = 1;
const RESOURCE_LINEAR: u32 = 2;
const RESOURCE_PITCH2D: u32 = 3;

/// `hipReadModeNormalizedFloat`.
const READ_MODE_NORMALIZED_FLOAT: u32 = 1;

/// Byte offsets in `hipResourceDesc` (64 bytes) and `hipTextureDesc` (64 bytes), and the size
/// of `hipResourceViewDesc` (48 bytes): `offsetof`/`sizeof` printed by a C program including
/// /usr/include/hip/hip_runtime_api.h with -D__HIP_PLATFORM_AMD__ (the same with HIP 6.4's and
/// 7.2's headers).
mod layout {
    pub const RES_DESC_SIZE: usize = 64;
    pub const RES_TYPE: usize = 0;
    pub const RES_DEV_PTR: usize = 8;
    pub const RES_CHANNEL_DESC: usize = 16;
    /// `res.linear.sizeInBytes`.
    pub const RES_LINEAR_SIZE: usize = 40;
    /// `res.pitch2D.width`, `.height`, `.pitchInBytes`.
    pub const RES_PITCH_WIDTH: usize = 40;
    pub const RES_PITCH_HEIGHT: usize = 48;
    pub const RES_PITCH_PITCH: usize = 56;
    pub const TEX_DESC_SIZE: usize = 64;
    /// `addressMode[0]`, `filterMode`, `readMode`, `normalizedCoords`.
    pub const TEX_ADDRESS_MODE: usize = 0;
    pub const TEX_FILTER_MODE: usize = 12;
    pub const TEX_READ_MODE: usize = 16;
    pub const TEX_NORMALIZED_COORDS: usize = 40;
    pub const VIEW_DESC_SIZE: usize = 48;
}

/// Bytes of a texture object: 12 dwords of image resource, 8 of sampler.
const OBJECT_BYTES: usize = (12 + 8) * 4;

/// T# base addresses and pitched rows: 256-byte units.
const IMAGE_ALIGNMENT: u64 = 256;

/// `hipTextureAddressMode` → `SQ_TEX_CLAMP`.
fn clamp_mode(mode: u32, normalized: bool) -> Option<u32> {
    Some(match (mode, normalized) {
        (0, true) => image::CLAMP_WRAP,
        (2, true) => image::CLAMP_MIRROR,
        (0..=2, _) => image::CLAMP_LAST_TEXEL,
        (3, _) => image::CLAMP_BORDER,
        _ => return None,
    })
}

/// `hsa_ext_image_channel_order_t`: R, RG, RGBA.
const ORDER_R: u32 = 1;
const ORDER_RG: u32 = 3;
const ORDER_RGBA: u32 = 8;

/// What the runtime keeps of a texture object, for the `hipGetTextureObject*Desc` queries.
struct Texture {
    res: [u8; layout::RES_DESC_SIZE],
    tex: [u8; layout::TEX_DESC_SIZE],
    view: [u8; layout::VIEW_DESC_SIZE],
}

/// Live texture objects by device address.
static TEXTURES: Mutex<BTreeMap<u64, Texture>> = Mutex::new(BTreeMap::new());

fn textures() -> std::sync::MutexGuard<'static, BTreeMap<u64, Texture>> {
    TEXTURES.lock().unwrap_or_else(|p| p.into_inner())
}

/// Forget every texture object: `hipDeviceReset` released their memory (and the fuzzer's
/// fresh start, [`super::reset_tables`]).
pub(crate) fn forget_all() {
    textures().clear();
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap_or([0; 4]))
}

fn u64_at(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().unwrap_or([0; 8]))
}

/// `hipCreateChannelDesc`: HIP's templates `hipCreateChannelDesc<T>()` call this exported
/// function (HIP 5.2 `amd_detail/amd_channel_descriptor.h`).
#[no_mangle]
pub extern "C" fn hipCreateChannelDesc(x: c_int, y: c_int, z: c_int, w: c_int, f: u32) -> ChannelFormatDesc {
    ChannelFormatDesc { x, y, z, w, f }
}

/// The texel format a channel descriptor and read mode give; `None` for what HIP's texture
/// formats do not have.
pub(super) fn texel_format(d: ChannelFormatDesc, normalized: bool) -> Option<Format> {
    let bits = [d.x, d.y, d.z, d.w];
    let comps = bits.iter().take_while(|&&b| b != 0).count();
    if ![1, 2, 4].contains(&comps) || bits[comps..].iter().any(|&b| b != 0) || bits[..comps].iter().any(|&b| b != bits[0]) {
        return None;
    }
    let size = u8::try_from(bits[0]).ok().filter(|b| [8, 16, 32].contains(b))?;
    let num = match (d.f, normalized && size < 32) {
        (KIND_FLOAT, _) if size >= 16 => Num::Float,
        (KIND_SIGNED, false) => Num::Sint,
        (KIND_SIGNED, true) => Num::Snorm,
        (KIND_UNSIGNED, false) => Num::Uint,
        (KIND_UNSIGNED, true) => Num::Unorm,
        _ => return None,
    };
    Some(Format { bits: size, comps: comps as u8, num })
}

/// The format field of a resource descriptor's word 3 for `fmt` on `fam`, in place (GFX8/9:
/// DFMT at 15, NFMT at 12; GFX10+: the unified format at 12), from the simulator's tables.
pub(super) fn format_bits(fam: Family, fmt: Format) -> Option<u32> {
    match fam {
        Family::Gfx10 => (0..128).find(|&u| Format::from_gfx10(u) == Some(fmt)).map(|u| u << 12),
        Family::Gfx11 | Family::Gfx12 => (0..64).find(|&u| Format::from_gfx11(u) == Some(fmt)).map(|u| u << 12),
        _ => (0..16).flat_map(|d| (0..8).map(move |n| (d, n))).find(|&(d, n)| Format::from_gcn(d, n) == Some(fmt)).map(|(d, n)| d << 15 | n << 12),
    }
}

/// Destination selects (0 = 0, 1 = 1, 4..7 = x..w) for `comps` channels, packed as in word 3.
fn dst_sel(comps: u8) -> u32 {
    let sel: [u32; 4] = match comps {
        1 => [4, 0, 0, 1],
        2 => [4, 5, 0, 1],
        _ => [4, 5, 6, 7],
    };
    sel[0] | sel[1] << 3 | sel[2] << 6 | sel[3] << 9
}

/// `hsa_ext_image_channel_type_t` of a format (ROCr keeps it in dword 8).
fn channel_type(fmt: Format) -> u32 {
    match (fmt.num, fmt.bits) {
        (Num::Snorm, 8) => 0,
        (Num::Snorm, _) => 1,
        (Num::Unorm, 8) => 2,
        (Num::Unorm, _) => 3,
        (Num::Sint, 8) => 8,
        (Num::Sint, 16) => 9,
        (Num::Sint, _) => 10,
        (Num::Uint, 8) => 11,
        (Num::Uint, 16) => 12,
        (Num::Uint, _) => 13,
        (Num::Float, 16) => 14,
        _ => 15,
    }
}

fn channel_order(fmt: Format) -> u32 {
    match fmt.comps {
        1 => ORDER_R,
        2 => ORDER_RG,
        _ => ORDER_RGBA,
    }
}

/// The 4-dword buffer resource of a linear texture of `width` texels of `fmt` from `base`, as
/// ROCr makes it for a 1D-buffer image: `NUM_RECORDS` in bytes, OOB_SELECT 0, GFX10's
/// RESOURCE_LEVEL 1.
pub(super) fn buffer_vsharp(fam: Family, base: u64, fmt: Format, width: u32) -> Option<[u32; 4]> {
    let stride = fmt.bytes() as u32;
    let mut w3 = dst_sel(fmt.comps) | format_bits(fam, fmt)?;
    if fam == Family::Gfx10 {
        w3 |= 1 << 24;
    }
    Some([base as u32, (base >> 32) as u32 & 0xffff | stride << 16, width.checked_mul(stride)?, w3])
}

/// The unified (GFX10+) or DATA_FORMAT | NUM_FORMAT << 6 (GFX8/GFX9) image format code.
fn image_format(fam: Family, fmt: Format) -> Option<u32> {
    let b = format_bits(fam, fmt)?;
    Some(match fam {
        Family::Gfx10 | Family::Gfx11 | Family::Gfx12 => b >> 12,
        _ => (b >> 15 & 0xf) | (b >> 12 & 7) << 6,
    })
}

/// A texture object's dwords: the resource (4 or 8 dwords), ROCr's metadata, the sampler.
fn object(resource: &[u32], fmt: Format, width: u32, sampler: [u32; 4]) -> [u32; OBJECT_BYTES / 4] {
    let mut o = [0u32; OBJECT_BYTES / 4];
    o[..resource.len()].copy_from_slice(resource);
    o[8] = channel_type(fmt);
    o[9] = channel_order(fmt);
    o[10] = width;
    o[12..16].copy_from_slice(&sampler);
    o
}

/// Create a texture object; its device address.
fn create(rt: &mut Runtime, res: &[u8; layout::RES_DESC_SIZE], tex: &[u8; layout::TEX_DESC_SIZE]) -> Result<u64, u32> {
    let d = ChannelFormatDesc {
        x: u32_at(res, layout::RES_CHANNEL_DESC) as c_int,
        y: u32_at(res, layout::RES_CHANNEL_DESC + 4) as c_int,
        z: u32_at(res, layout::RES_CHANNEL_DESC + 8) as c_int,
        w: u32_at(res, layout::RES_CHANNEL_DESC + 12) as c_int,
        f: u32_at(res, layout::RES_CHANNEL_DESC + 16),
    };
    let normalized = u32_at(tex, layout::TEX_READ_MODE) == READ_MODE_NORMALIZED_FLOAT;
    let fam = rt.gpu().processor.family();
    if fam == Family::Gfx940 {
        // gfx94x and gfx950 (family Gfx940) have no image instructions: ROCm's runtime reports no image support there and
        // answers hipErrorNotSupported (clr hip_texture.cpp, `info.imageSupport_`).
        return Err(rt.unsupported("hipCreateTextureObject on gfx94x/gfx950 (no image support, as ROCm reports)"));
    }
    let words = match u32_at(res, layout::RES_TYPE) {
        RESOURCE_LINEAR => {
            let (base, size) = (u64_at(res, layout::RES_DEV_PTR), u64_at(res, layout::RES_LINEAR_SIZE));
            let fmt = texel_format(d, normalized).ok_or(error::INVALID_VALUE)?;
            let width = u32::try_from(size / fmt.bytes() as u64).map_err(|_| error::INVALID_VALUE)?;
            if base == 0 || width == 0 || !rt.reachable(base, size) {
                return Err(error::INVALID_VALUE);
            }
            object(&buffer_vsharp(fam, base, fmt, width).ok_or(error::INVALID_VALUE)?, fmt, width, [0; 4])
        }
        RESOURCE_PITCH2D => {
            let base = u64_at(res, layout::RES_DEV_PTR);
            let (w, h, pitch) = (u64_at(res, layout::RES_PITCH_WIDTH), u64_at(res, layout::RES_PITCH_HEIGHT), u64_at(res, layout::RES_PITCH_PITCH));
            let fmt = texel_format(d, normalized).ok_or(error::INVALID_VALUE)?;
            let bytes = fmt.bytes() as u64;
            let fits = |v: u64, limit: u64| v > 0 && v <= limit;
            // WIDTH/HEIGHT fields hold 14 bits before GFX12; the pitch field 14 bits on
            // GFX10/GFX11.
            if base == 0 || base % IMAGE_ALIGNMENT != 0 || pitch % IMAGE_ALIGNMENT != 0 || !fits(w, 1 << 14) || !fits(h, 1 << 14) || pitch < w * bytes {
                return Err(error::INVALID_VALUE);
            }
            let pitch_texels = pitch / bytes;
            if pitch % bytes != 0 || pitch_texels > 1 << 14 || !rt.reachable(base, pitch * (h - 1) + w * bytes) {
                return Err(error::INVALID_VALUE);
            }
            let normalized_coords = u32_at(tex, layout::TEX_NORMALIZED_COORDS) != 0;
            let clamp = clamp_mode(u32_at(tex, layout::TEX_ADDRESS_MODE), normalized_coords).ok_or(error::INVALID_VALUE)?;
            let linear = match u32_at(tex, layout::TEX_FILTER_MODE) {
                0 => false,
                1 => true,
                _ => return Err(error::INVALID_VALUE),
            };
            let sel = match fmt.comps {
                1 => [4, 0, 0, 1],
                2 => [4, 5, 0, 1],
                _ => [4, 5, 6, 7],
            };
            let format = image_format(fam, fmt).ok_or(error::INVALID_VALUE)?;
            let t = Tsharp::linear_2d(base, format, w as u32, h as u32, pitch_texels as u32, sel).encode(fam);
            object(&t, fmt, w as u32, Ssharp::encode(clamp, !normalized_coords, linear))
        }
        RESOURCE_ARRAY | RESOURCE_MIPMAPPED_ARRAY => return Err(rt.unsupported("hipCreateTextureObject over a hipArray")),
        _ => return Err(error::INVALID_VALUE),
    };
    let object = rt.malloc(OBJECT_BYTES as u64, AllocKind::Device)?;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    match rt.write(object, &bytes) {
        error::SUCCESS => Ok(object),
        e => Err(e),
    }
}

/// # Safety
/// `object` is writable; `res` and `tex` point to a `hipResourceDesc` and a `hipTextureDesc`;
/// `view` is null or points to a `hipResourceViewDesc`.
#[no_mangle]
pub unsafe extern "C" fn hipCreateTextureObject(object: *mut *mut c_void, res: *const c_void, tex: *const c_void, view: *const c_void) -> u32 {
    if object.is_null() || res.is_null() || tex.is_null() {
        return with_runtime(|_| error::INVALID_VALUE);
    }
    let mut t = Texture { res: [0; layout::RES_DESC_SIZE], tex: [0; layout::TEX_DESC_SIZE], view: [0; layout::VIEW_DESC_SIZE] };
    // SAFETY: the caller's structs, of the sizes HIP's headers give them.
    unsafe {
        std::ptr::copy_nonoverlapping(res as *const u8, t.res.as_mut_ptr(), layout::RES_DESC_SIZE);
        std::ptr::copy_nonoverlapping(tex as *const u8, t.tex.as_mut_ptr(), layout::TEX_DESC_SIZE);
        if !view.is_null() {
            std::ptr::copy_nonoverlapping(view as *const u8, t.view.as_mut_ptr(), layout::VIEW_DESC_SIZE);
        }
    }
    with_runtime(|rt| match create(rt, &t.res, &t.tex) {
        Ok(address) => {
            textures().insert(address, t);
            // SAFETY: non-null, the caller's out-parameter.
            unsafe { put(object, address as *mut c_void) }
        }
        Err(e) => e,
    })
}

/// A null object is nothing to destroy; on a GPU without image support ROCm answers
/// `hipErrorNotSupported` before looking at the object (clr `hipamd/src/hip_texture.cpp`,
/// `ihipDestroyTextureObject`); an object destroyed before is memory freed before, which
/// ROCm's `ihipFree` answers with `hipErrorInvalidValue`.
#[no_mangle]
pub extern "C" fn hipDestroyTextureObject(object: *mut c_void) -> u32 {
    with_runtime(|rt| {
        if object.is_null() {
            return error::SUCCESS;
        }
        if rt.gpu().processor.family() == Family::Gfx940 {
            return error::NOT_SUPPORTED;
        }
        if textures().remove(&(object as u64)).is_none() {
            return error::INVALID_VALUE;
        }
        rt.free(object as u64, &[AllocKind::Device])
    })
}

/// Copy `len` bytes of a texture object's record (`pick`) to `out`.
fn get_desc(out: *mut c_void, object: *mut c_void, len: usize, pick: impl Fn(&Texture) -> &[u8]) -> u32 {
    if out.is_null() {
        return with_runtime(|_| error::INVALID_VALUE);
    }
    with_runtime(|_| match textures().get(&(object as u64)) {
        Some(t) => {
            // SAFETY: the caller's struct of `len` bytes.
            unsafe { std::ptr::copy_nonoverlapping(pick(t).as_ptr(), out as *mut u8, len) };
            error::SUCCESS
        }
        None => error::INVALID_VALUE,
    })
}

/// # Safety
/// `res` points to a `hipResourceDesc`.
#[no_mangle]
pub unsafe extern "C" fn hipGetTextureObjectResourceDesc(res: *mut c_void, object: *mut c_void) -> u32 {
    get_desc(res, object, layout::RES_DESC_SIZE, |t| &t.res)
}

/// # Safety
/// `tex` points to a `hipTextureDesc`.
#[no_mangle]
pub unsafe extern "C" fn hipGetTextureObjectTextureDesc(tex: *mut c_void, object: *mut c_void) -> u32 {
    get_desc(tex, object, layout::TEX_DESC_SIZE, |t| &t.tex)
}

/// # Safety
/// `view` points to a `hipResourceViewDesc`.
#[no_mangle]
pub unsafe extern "C" fn hipGetTextureObjectResourceViewDesc(view: *mut c_void, object: *mut c_void) -> u32 {
    get_desc(view, object, layout::VIEW_DESC_SIZE, |t| &t.view)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hipscope_sim::exec::vmem::vsharp::Vsharp;

    fn desc(bits: [c_int; 4], f: u32) -> ChannelFormatDesc {
        ChannelFormatDesc { x: bits[0], y: bits[1], z: bits[2], w: bits[3], f }
    }

    #[test]
    fn channel_descriptors_give_hip_texture_formats() {
        assert_eq!(texel_format(desc([32, 0, 0, 0], KIND_FLOAT), false), Some(Format { bits: 32, comps: 1, num: Num::Float }));
        assert_eq!(texel_format(desc([8, 8, 8, 8], KIND_UNSIGNED), false), Some(Format { bits: 8, comps: 4, num: Num::Uint }));
        assert_eq!(texel_format(desc([8, 8, 8, 8], KIND_UNSIGNED), true), Some(Format { bits: 8, comps: 4, num: Num::Unorm }));
        assert_eq!(texel_format(desc([16, 16, 0, 0], KIND_SIGNED), true), Some(Format { bits: 16, comps: 2, num: Num::Snorm }));
        assert_eq!(texel_format(desc([32, 32, 32, 32], KIND_SIGNED), true), Some(Format { bits: 32, comps: 4, num: Num::Sint }));
        // Three channels, mixed sizes, 8-bit floats: not texture formats.
        assert_eq!(texel_format(desc([32, 32, 32, 0], KIND_FLOAT), false), None);
        assert_eq!(texel_format(desc([8, 16, 0, 0], KIND_UNSIGNED), false), None);
        assert_eq!(texel_format(desc([8, 0, 0, 0], KIND_FLOAT), false), None);
        assert_eq!(texel_format(desc([0, 8, 0, 0], KIND_UNSIGNED), false), None);
    }

    /// The T# of every family decodes (by the simulator) to the texture's format.
    #[test]
    fn pitched_texture_resources_decode_to_their_format() {
        let fmt = Format { bits: 8, comps: 4, num: Num::Unorm };
        for fam in [Family::Gfx8, Family::Gfx9, Family::Gfx90a, Family::Gfx10, Family::Gfx11, Family::Gfx12] {
            let code = image_format(fam, fmt).unwrap();
            let t = Tsharp::decode(Tsharp::linear_2d(0x10_0000, code, 37, 19, 64, [4, 5, 6, 7]).encode(fam), fam);
            assert_eq!(t.texel_format(fam), Some(fmt), "{fam:?}");
            assert_eq!((t.width, t.height, t.pitch), (37, 19, 64));
        }
        assert_eq!(clamp_mode(0, false), Some(image::CLAMP_LAST_TEXEL));
        assert_eq!(clamp_mode(2, true), Some(image::CLAMP_MIRROR));
        assert_eq!(clamp_mode(3, false), Some(image::CLAMP_BORDER));
        assert_eq!(clamp_mode(4, true), None);
    }

    /// The V# of every family decodes (by the simulator) to the texture's base, stride,
    /// records, format and selects.
    #[test]
    fn linear_texture_resources_decode_to_their_format() {
        let fmts = [
            Format { bits: 32, comps: 1, num: Num::Float },
            Format { bits: 8, comps: 4, num: Num::Uint },
            Format { bits: 32, comps: 4, num: Num::Sint },
            Format { bits: 16, comps: 2, num: Num::Unorm },
            Format { bits: 16, comps: 4, num: Num::Float },
            Format { bits: 8, comps: 1, num: Num::Snorm },
        ];
        for fam in [Family::Gfx8, Family::Gfx9, Family::Gfx90a, Family::Gfx940, Family::Gfx10, Family::Gfx11, Family::Gfx12] {
            for fmt in fmts {
                let base = 0x7f12_3456_7800;
                let w = buffer_vsharp(fam, base, fmt, 1000).unwrap_or_else(|| panic!("{fam:?} {fmt:?}"));
                let v = Vsharp::decode(w, fam, true);
                let bytes = fmt.bytes() as u32;
                assert_eq!((v.base, v.stride, v.num_records, v.swizzle, v.unbound), (base, u64::from(bytes), 1000 * bytes, false, false), "{fam:?}");
                assert_eq!(v.data_format(fam), Some(fmt), "{fam:?}");
                assert_eq!(v.dst_sel[0], 4);
                assert_eq!(v.dst_sel[3], if fmt.comps == 4 { 7 } else { 1 });
                // ROCr counts NUM_RECORDS in bytes: the index check passes up to that.
                assert!(v.in_range(fam, true, (999, 0), bytes, 0), "{fam:?}: last texel");
                assert!(v.in_range(fam, true, (1000 * bytes - 1, 0), bytes, 0), "{fam:?}");
                assert!(!v.in_range(fam, true, (1000 * bytes, 0), bytes, 0), "{fam:?}: past NUM_RECORDS");
            }
        }
    }
}
