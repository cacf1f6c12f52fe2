//! Image instructions (MIMG; GFX12 VIMAGE/VSAMPLE): `image_sample`, `image_sample_lz`,
//! `image_sample_l`, `image_load` and `image_load_mip` on linear (pitched) 1D and 2D images —
//! what HIP's `tex1D`/`tex2D` (`image_sample*` through `__ockl_image_sample_*`) and
//! `surf2Dread`-style loads compile to for textures over pitched memory.
//!
//! # Resources
//!
//! The image resource (T#, 8 dwords) and sampler (S#, 4 dwords), per generation, as ROCr's
//! image managers write them (ROCR-Runtime `image/resource_{ai,nv,gfx11,gfx12}.h`, the
//! `SQ_IMG_RSRC_WORD*`/`SQ_IMG_SAMP_WORD*` bit fields; AMD ISA guides, "Image Resource" and
//! "Sampler Resource" tables):
//! * word 0: `BASE_ADDRESS` = address bits 39:8; word 1 bits 7:0: address bits 47:40 (images
//!   are 256-byte aligned);
//! * format: GFX8/GFX9/CDNA `DATA_FORMAT` word 1 [25:20] and `NUM_FORMAT` [29:26] (the same
//!   codes as buffers); GFX10 one `FORMAT` in word 1 [28:20], GFX11 [27:20], GFX12 [24:17]
//!   (the unified format codes of buffers);
//! * size: `WIDTH-1` word 2 [13:0] and `HEIGHT-1` [27:14] on GFX8/GFX9; from GFX10 on
//!   `WIDTH-1` is split, bits 1:0 in word 1 [31:30] and the rest in word 2 from bit 0 (12 bits,
//!   GFX12 14), `HEIGHT-1` at word 2 [27:14] (GFX12 [29:14]);
//! * word 3: `DST_SEL_X..W` [11:0], `SW_MODE` [24:20] (0: linear), `TYPE` [31:28]
//!   (8: 1D, 9: 2D);
//! * row pitch in texels, minus one: GFX9 word 4 [28:13]; GFX10.3 and GFX11 word 4 [13:0];
//!   GFX12 word 4 [15:0] (`DEPTH` and `PITCH_MSB`); GFX8 (CI/VI) word 4 [26:13].
//! * S#: `CLAMP_X` word 0 [2:0], `CLAMP_Y` [5:3], `FORCE_UNNORMALIZED` [15];
//!   `XY_MAG_FILTER` word 2 [21:20], `XY_MIN_FILTER` [23:22]; `BORDER_COLOR_TYPE` word 3
//!   [31:30].
//!
//! Only linear images (`SW_MODE` 0) of 1D and 2D type are read; tiled layouts, 3D, arrays,
//! cube maps and mip levels other than 0 are not (such an access faults, naming what it met).
//!
//! # Sampling
//!
//! Coordinates are floats, normalized (`s * width`) unless the S# forces unnormalized ones or
//! the instruction has `unorm`, and are converted to fixed point with 8 fractional bits (as
//! the texture unit does; CUDA documents the same 8-bit fractions for its filtering). Point
//! filtering reads texel `floor(u)`; bilinear filtering
//! (`XY_MAG_FILTER` 1) blends the four texels around `u - 0.5, v - 0.5` by their fractions
//! (CUDA Programming Guide, "Texture Fetching"). Texel indices outside the image follow the
//! S#'s clamp mode: wrap (0), mirror (1), clamp to the last texel (2), mirror once (3, 5, 7),
//! border (4, 6: transparent black, as ROCm programs `BORDER_COLOR_TYPE` 0). Integer formats
//! are not filtered (point sampling). The weights are the coordinates' 8-bit fractions; the
//! blend itself is computed in f32, so a result may differ from the hardware's in the last
//! bits.
//! Without mip levels the LOD only chooses between the magnification and minification filter;
//! the magnification filter is used (ROCm programs both the same).
//!
//! `image_load` reads texel (x, y) as integers; outside the image it returns zero. Results
//! are converted as the format's number type says (`format.rs`) and pass the T#'s destination
//! selects; `dmask` picks which of the four components are written, to consecutive VGPRs;
//! `tfe` adds a status dword (0). `d16`, `a16`, `lwe` and gather4 are not supported.

use super::super::operand::{s_dword, v_dword, write_v_dword};
use super::super::{ExecCtx, Flow};
use super::format::Format;
use super::space::{self, Target};
use crate::fault::FaultKind;
use hipscope_isa::decode::{Inst, Operand};
use hipscope_isa::tables::OpName;
use hipscope_isa::Family;

/// `TYPE` of a T#.
pub const TYPE_1D: u32 = 8;
pub const TYPE_2D: u32 = 9;

/// `SQ_TEX_CLAMP` modes of an S#.
pub const CLAMP_WRAP: u32 = 0;
pub const CLAMP_MIRROR: u32 = 1;
pub const CLAMP_LAST_TEXEL: u32 = 2;
pub const CLAMP_BORDER: u32 = 6;

/// A `bits`-wide field at `at` of `w`.
fn field(w: u32, at: u32, bits: u32) -> u32 {
    (w >> at) & ((1u32 << bits) - 1)
}

/// The fields of an image resource that linear 1D/2D reads use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tsharp {
    pub base: u64,
    /// Format field(s) as encoded: GFX8/9 `DATA_FORMAT | NUM_FORMAT << 6`, GFX10+ unified.
    pub format: u32,
    pub width: u32,
    pub height: u32,
    /// Row pitch in texels.
    pub pitch: u32,
    pub dst_sel: [u32; 4],
    pub sw_mode: u32,
    pub ty: u32,
}

impl Tsharp {
    pub fn decode(w: [u32; 8], fam: Family) -> Tsharp {
        let base = (u64::from(w[0]) << 8) | (u64::from(field(w[1], 0, 8)) << 40);
        let (format, width, height, pitch) = match fam {
            Family::Gfx8 => (field(w[1], 20, 6) | field(w[1], 26, 4) << 6, field(w[2], 0, 14), field(w[2], 14, 14), field(w[4], 13, 14)),
            Family::Gfx9 | Family::Gfx90a | Family::Gfx940 => {
                (field(w[1], 20, 6) | field(w[1], 26, 4) << 6, field(w[2], 0, 14), field(w[2], 14, 14), field(w[4], 13, 16))
            }
            Family::Gfx10 => (field(w[1], 20, 9), field(w[1], 30, 2) | field(w[2], 0, 12) << 2, field(w[2], 14, 14), field(w[4], 0, 14)),
            Family::Gfx11 => (field(w[1], 20, 8), field(w[1], 30, 2) | field(w[2], 0, 12) << 2, field(w[2], 14, 14), field(w[4], 0, 14)),
            Family::Gfx12 => (field(w[1], 17, 8), field(w[1], 30, 2) | field(w[2], 0, 14) << 2, field(w[2], 14, 16), field(w[4], 0, 16)),
        };
        Tsharp {
            base,
            format,
            width: width + 1,
            height: height + 1,
            pitch: pitch + 1,
            dst_sel: [field(w[3], 0, 3), field(w[3], 3, 3), field(w[3], 6, 3), field(w[3], 9, 3)],
            sw_mode: field(w[3], 20, 5),
            ty: field(w[3], 28, 4),
        }
    }

    /// The 8 dwords of this image resource (`base` 256-byte aligned), the fields laid out as
    /// [`Tsharp::decode`] reads them.
    pub fn encode(&self, fam: Family) -> [u32; 8] {
        let (base, format, dst_sel) = (self.base, self.format, self.dst_sel);
        let (w1, h1, p1) = (self.width.saturating_sub(1), self.height.saturating_sub(1), self.pitch.saturating_sub(1));
        let mut w = [0u32; 8];
        w[0] = (base >> 8) as u32;
        w[1] = ((base >> 40) & 0xff) as u32;
        w[3] = dst_sel[0] | dst_sel[1] << 3 | dst_sel[2] << 6 | dst_sel[3] << 9 | (self.sw_mode & 0x1f) << 20 | (self.ty & 0xf) << 28;
        match fam {
            Family::Gfx8 | Family::Gfx9 | Family::Gfx90a | Family::Gfx940 => {
                w[1] |= (format & 0x3f) << 20 | (format >> 6 & 0xf) << 26;
                w[2] = (w1 & 0x3fff) | (h1 & 0x3fff) << 14;
                w[4] = if fam == Family::Gfx8 { (p1 & 0x3fff) << 13 } else { (p1 & 0xffff) << 13 };
            }
            Family::Gfx10 | Family::Gfx11 => {
                let fmt_bits = if fam == Family::Gfx10 { 0x1ff } else { 0xff };
                w[1] |= (format & fmt_bits) << 20 | (w1 & 3) << 30;
                // GFX10: RESOURCE_LEVEL (bit 31) must be 1.
                w[2] = (w1 >> 2 & 0xfff) | (h1 & 0x3fff) << 14 | u32::from(fam == Family::Gfx10) << 31;
                w[4] = p1 & 0x3fff;
            }
            Family::Gfx12 => {
                w[1] |= (format & 0xff) << 17 | (w1 & 3) << 30;
                w[2] = (w1 >> 2 & 0x3fff) | (h1 & 0xffff) << 14;
                w[4] = p1 & 0xffff;
            }
        }
        w
    }

    /// A linear 2D image of `width` x `height` texels of `format` (the encoded field value, see
    /// [`Tsharp::format`]) at `base`, `pitch` texels a row.
    pub fn linear_2d(base: u64, format: u32, width: u32, height: u32, pitch: u32, dst_sel: [u32; 4]) -> Tsharp {
        Tsharp { base, format, width, height, pitch, dst_sel, sw_mode: 0, ty: TYPE_2D }
    }

    /// The texel format.
    pub fn texel_format(&self, fam: Family) -> Option<Format> {
        match fam {
            Family::Gfx10 => Format::from_gfx10(self.format),
            Family::Gfx11 | Family::Gfx12 => Format::from_gfx11(self.format),
            _ => Format::from_gcn(self.format & 0x3f, self.format >> 6),
        }
    }
}

/// The fields of a sampler that point and bilinear sampling use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ssharp {
    pub clamp: [u32; 2],
    pub unnormalized: bool,
    pub mag_linear: bool,
    pub min_linear: bool,
    pub border_color_type: u32,
}

impl Ssharp {
    pub fn decode(w: [u32; 4]) -> Ssharp {
        Ssharp {
            clamp: [field(w[0], 0, 3), field(w[0], 3, 3)],
            unnormalized: field(w[0], 15, 1) != 0,
            mag_linear: field(w[2], 20, 2) == 1,
            min_linear: field(w[2], 22, 2) == 1,
            border_color_type: field(w[3], 30, 2),
        }
    }

    /// The 4 dwords of a sampler as ROCr writes them (the same clamp mode for x, y and z,
    /// one filter for magnification and minification, no mips, transparent-black border).
    pub fn encode(clamp: u32, unnormalized: bool, linear: bool) -> [u32; 4] {
        let c = clamp & 7;
        let filter = u32::from(linear);
        // MAX_LOD = 4095 (word 1 [23:12]), as ROCr sets it.
        [c | c << 3 | c << 6 | u32::from(unnormalized) << 15, 4095 << 12, filter << 20 | filter << 22, 0]
    }
}

/// What an image instruction does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageWhat {
    /// `image_sample`, `_lz`, `_l`: coordinates then (for `_l`) a LOD, ignored (mip 0).
    Sample,
    /// `image_load`, `image_load_mip`: integer coordinates (then a mip level, which must be 0).
    Load { mip: bool },
}

#[derive(Debug, Clone, PartialEq)]
pub struct ImageOp {
    pub what: ImageWhat,
    pub vdata: Operand,
    /// Address operands in order (one register range, or NSA's separate registers).
    pub vaddr: Vec<Operand>,
    pub rsrc: Operand,
    pub samp: Operand,
    pub dmask: u32,
    /// GFX10+ `dim` (0: 1D, 1: 2D); `None` before GFX10, where the T#'s type decides.
    pub dim: Option<u32>,
    pub unorm: bool,
    pub tfe: bool,
}

fn op(inst: &Inst, name: OpName) -> Operand {
    inst.operand(name).unwrap_or(Operand::Absent)
}

/// Classify an image instruction; `None` for the forms this module does not execute.
pub fn classify(inst: &Inst) -> Option<ImageOp> {
    let what = match inst.mnemonic().strip_prefix("image_")? {
        "sample" | "sample_lz" | "sample_l" => ImageWhat::Sample,
        "load" => ImageWhat::Load { mip: false },
        "load_mip" => ImageWhat::Load { mip: true },
        _ => return None,
    };
    let flag = |name| op(inst, name).imm() != 0;
    if flag(OpName::d16) || flag(OpName::a16) || flag(OpName::lwe) {
        return None;
    }
    let vaddr: Vec<Operand> = inst
        .row
        .operands
        .iter()
        .zip(inst.operands.iter())
        .filter(|(d, o)| d.name.name().starts_with("vaddr") && matches!(o, Operand::Reg(_)))
        .map(|(_, o)| *o)
        .collect();
    let rsrc = match op(inst, OpName::srsrc) {
        Operand::Absent => op(inst, OpName::rsrc),
        o => o,
    };
    let samp = match op(inst, OpName::ssamp) {
        Operand::Absent => op(inst, OpName::samp),
        o => o,
    };
    let dim = inst.row.operand_index(OpName::dim).map(|i| inst.operands[i].imm() as u32);
    if vaddr.is_empty() || rsrc == Operand::Absent || (what == ImageWhat::Sample && samp == Operand::Absent) {
        return None;
    }
    Some(ImageOp {
        what,
        vdata: op(inst, OpName::vdata),
        vaddr,
        rsrc,
        samp,
        dmask: op(inst, OpName::dmask).imm() as u32 & 0xf,
        dim,
        unorm: flag(OpName::unorm),
        tfe: flag(OpName::tfe),
    })
}

/// Per-instruction state.
struct Pre {
    t: Tsharp,
    fmt: Format,
    s: Option<Ssharp>,
    dims: u32,
}

impl ImageOp {
    fn pre(&self, cx: &ExecCtx) -> Result<Pre, FaultKind> {
        let w = &*cx.wave;
        let fam = cx.env.family;
        let t = Tsharp::decode(std::array::from_fn(|k| s_dword(w, self.rsrc, k)), fam);
        let unsupported = |what: String| FaultKind::NotSupported(format!("image instruction on {what} (hipscope reads linear 1D and 2D images)"));
        // GFX8's field there is TILING_INDEX, taken as linear.
        if t.sw_mode != 0 && fam != Family::Gfx8 {
            return Err(unsupported(format!("a tiled image (SW_MODE {})", t.sw_mode)));
        }
        let dims = match (self.dim, t.ty) {
            (Some(0), _) | (None, TYPE_1D) => 1,
            (Some(1), _) | (None, TYPE_2D) => 2,
            (Some(d), _) => return Err(unsupported(format!("image dimension {d}"))),
            (None, ty) => return Err(unsupported(format!("image type {ty}"))),
        };
        let fmt = t.texel_format(fam).ok_or_else(|| unsupported(format!("image format {:#x}", t.format)))?;
        let s = match self.what {
            ImageWhat::Sample => Some(Ssharp::decode(std::array::from_fn(|k| s_dword(w, self.samp, k)))),
            ImageWhat::Load { .. } => None,
        };
        Ok(Pre { t, fmt, s, dims })
    }

    /// Address dword `k` of `lane`: consecutive registers of one range, or NSA's registers.
    fn address(&self, cx: &ExecCtx, lane: usize, k: usize) -> u32 {
        let w = &*cx.wave;
        if self.vaddr.len() == 1 {
            return v_dword(w, self.vaddr[0], k, lane);
        }
        let mut k = k;
        for &o in &self.vaddr {
            let n = match o {
                Operand::Reg(r) => r.bits().div_ceil(32) as usize,
                _ => 0,
            };
            if k < n {
                return v_dword(w, o, k, lane);
            }
            k -= n;
        }
        0
    }

    pub fn execute(&self, cx: &mut ExecCtx) -> Result<Flow, FaultKind> {
        let pre = self.pre(cx)?;
        let mut m = cx.wave.exec();
        while m != 0 {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            let vals = match self.what {
                ImageWhat::Load { mip } => {
                    let x = self.address(cx, lane, 0);
                    let y = if pre.dims == 2 { self.address(cx, lane, 1) } else { 0 };
                    let level = if mip { self.address(cx, lane, pre.dims as usize) } else { 0 };
                    if level != 0 || x >= pre.t.width || y >= pre.t.height {
                        [0; 4]
                    } else {
                        texel(cx, &pre, lane, x, y)?
                    }
                }
                ImageWhat::Sample => {
                    let s = f32::from_bits(self.address(cx, lane, 0));
                    let t = if pre.dims == 2 { f32::from_bits(self.address(cx, lane, 1)) } else { 0.5 };
                    self.sample(cx, &pre, lane, s, t)?
                }
            };
            let vals = select(pre.fmt, &vals, &pre.t.dst_sel);
            let mut k = 0;
            for (c, v) in vals.iter().enumerate() {
                if self.dmask >> c & 1 != 0 {
                    write_v_dword(cx.wave, self.vdata, k, lane, *v);
                    k += 1;
                }
            }
            if self.tfe {
                write_v_dword(cx.wave, self.vdata, k, lane, 0);
            }
        }
        Ok(Flow::Next)
    }

    fn sample(&self, cx: &ExecCtx, pre: &Pre, lane: usize, s: f32, t: f32) -> Result<[u32; 4], FaultKind> {
        let samp = pre.s.unwrap_or(Ssharp { clamp: [CLAMP_LAST_TEXEL; 2], unnormalized: false, mag_linear: false, min_linear: false, border_color_type: 0 });
        let (wd, ht) = (pre.t.width as f32, if pre.dims == 2 { pre.t.height as f32 } else { 1.0 });
        let (u, v) = if samp.unnormalized || self.unorm { (s, t) } else { (s * wd, t * ht) };
        // Texel coordinates in fixed point with 8 fractional bits, as the texture unit
        // converts them (so a coordinate a rounding error below a texel edge still selects
        // that texel, and bilinear weights are multiples of 1/256).
        let (u, v) = (fixed(u), fixed(v));
        let fetch = |i: i64, j: i64| -> Result<Option<[u32; 4]>, FaultKind> {
            let (Some(x), Some(y)) = (wrap(i, pre.t.width, samp.clamp[0]), wrap(j, if pre.dims == 2 { pre.t.height } else { 1 }, samp.clamp[1])) else {
                return Ok(None);
            };
            texel(cx, pre, lane, x, y).map(Some)
        };
        let border = [0u32; 4];
        if !samp.mag_linear || !pre.fmt.float_class() {
            return Ok(fetch(u.floor() as i64, v.floor() as i64)?.unwrap_or(border));
        }
        let (ub, vb) = (u - 0.5, if pre.dims == 2 { v - 0.5 } else { 0.0 });
        let (i0, j0) = (ub.floor(), vb.floor());
        let (a, b) = (ub - i0, vb - j0);
        let (i0, j0) = (i0 as i64, j0 as i64);
        let mut acc = [0f32; 4];
        let taps: [(i64, i64, f32); 4] = [(i0, j0, (1.0 - a) * (1.0 - b)), (i0 + 1, j0, a * (1.0 - b)), (i0, j0 + 1, (1.0 - a) * b), (i0 + 1, j0 + 1, a * b)];
        for (i, j, wgt) in taps {
            if wgt == 0.0 {
                continue;
            }
            let texel = fetch(i, j)?.unwrap_or(border);
            for c in 0..4 {
                acc[c] += wgt * f32::from_bits(texel[c]);
            }
        }
        Ok(acc.map(f32::to_bits))
    }
}

/// `x` rounded to 8 fractional bits (and kept to where texel indices fit an i64 with room).
fn fixed(x: f32) -> f32 {
    if x.is_finite() {
        ((x * 256.0).round() / 256.0).clamp(-1e9, 1e9)
    } else {
        0.0
    }
}

/// Texel index `i` of an axis of `n` texels under clamp mode `mode`; `None`: the border.
fn wrap(i: i64, n: u32, mode: u32) -> Option<u32> {
    let n = i64::from(n.max(1));
    let mirror = |i: i64| {
        let m = i.rem_euclid(2 * n);
        if m >= n {
            2 * n - 1 - m
        } else {
            m
        }
    };
    let once = |i: i64| if i < 0 { -i - 1 } else { i };
    let k = match mode {
        CLAMP_WRAP => i.rem_euclid(n),
        CLAMP_MIRROR => mirror(i),
        CLAMP_LAST_TEXEL => i.clamp(0, n - 1),
        3 => once(i).min(n - 1),
        5 | 7 => once(i),
        _ => i,
    };
    (0..n).contains(&k).then_some(k as u32)
}

/// Texel (x, y), converted by the format (components it lacks are 0).
fn texel(cx: &ExecCtx, pre: &Pre, lane: usize, x: u32, y: u32) -> Result<[u32; 4], FaultKind> {
    let bytes = pre.fmt.bytes() as u64;
    let address = pre.t.base + (u64::from(y) * u64::from(pre.t.pitch) + u64::from(x)) * bytes;
    let mut buf = [0u8; 16];
    space::read(cx, Target::Mem(address), lane, &mut buf[..bytes as usize])?;
    let mut out = [0u32; 4];
    pre.fmt.load(&buf, &mut out);
    Ok(out)
}

/// Apply the T# destination selects (0 = 0, 1 = 1, 4..7 = component X..W).
fn select(fmt: Format, vals: &[u32; 4], sel: &[u32; 4]) -> [u32; 4] {
    let one = if fmt.float_class() { 1.0f32.to_bits() } else { 1 };
    sel.map(|s| match s {
        1 => one,
        4..=7 => vals[s as usize - 4],
        _ => 0,
    })
}

#[cfg(test)]
mod tests {
    use super::super::format::Num;
    use super::*;

    #[test]
    fn image_resources_round_trip_on_every_family() {
        for fam in [Family::Gfx8, Family::Gfx9, Family::Gfx90a, Family::Gfx10, Family::Gfx11, Family::Gfx12] {
            let format = match fam {
                Family::Gfx10 | Family::Gfx11 | Family::Gfx12 => 22, // 32_FLOAT
                _ => 4 | 7 << 6,                                     // DATA_FORMAT 32, NUM_FORMAT FLOAT
            };
            let w = Tsharp::linear_2d(0x7f12_3456_7800, format, 1001, 333, 1024, [4, 0, 0, 1]).encode(fam);
            let t = Tsharp::decode(w, fam);
            assert_eq!((t.base, t.width, t.height, t.pitch, t.ty, t.sw_mode), (0x7f12_3456_7800, 1001, 333, 1024, TYPE_2D, 0), "{fam:?}");
            assert_eq!(t.texel_format(fam), Some(Format { bits: 32, comps: 1, num: Num::Float }), "{fam:?}");
            assert_eq!(t.dst_sel, [4, 0, 0, 1]);
            // What HIP's device code reads: HEIGHT-1 at word 2 [27:14].
            assert_eq!(w[2] >> 14 & 0x3fff, 332, "{fam:?}");
        }
        let s = Ssharp::decode(Ssharp::encode(CLAMP_BORDER, true, true));
        assert_eq!(s, Ssharp { clamp: [CLAMP_BORDER; 2], unnormalized: true, mag_linear: true, min_linear: true, border_color_type: 0 });
        // What HIP's device code reads: FORCE_UNNORMALIZED word 0 bit 15, XY_MAG_FILTER word 2 bit 20.
        let w = Ssharp::encode(CLAMP_WRAP, true, true);
        assert!(w[0] >> 15 & 1 == 1 && w[2] >> 20 & 1 == 1);
    }

    #[test]
    fn clamp_modes_map_indices_as_the_sampler_says() {
        assert_eq!([-1, 0, 4, 5, 9].map(|i| wrap(i, 5, CLAMP_WRAP)), [Some(4), Some(0), Some(4), Some(0), Some(4)]);
        assert_eq!([-1, -6, 5, 9, 10].map(|i| wrap(i, 5, CLAMP_MIRROR)), [Some(0), Some(4), Some(4), Some(0), Some(0)]);
        assert_eq!([-3, 2, 7].map(|i| wrap(i, 5, CLAMP_LAST_TEXEL)), [Some(0), Some(2), Some(4)]);
        assert_eq!([-1, 0, 4, 5].map(|i| wrap(i, 5, CLAMP_BORDER)), [None, Some(0), Some(4), None]);
    }
}
