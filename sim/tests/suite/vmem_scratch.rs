//! Private (scratch) memory: SCRATCH instructions in every mode (SV, SS, SVS, ST), FLAT in
//! the private aperture, the GFX8 FLAT_SCRATCH form, MUBUF scratch through a
//! private-segment-buffer V#, the per-lane layout, and out-of-range faults.
//!
//! Layout under test (see `hipscope_sim::exec::vmem::space`): byte `o` of lane `t` lives at
//! `wave_base + (o / 4) * 4 * wave_size + t * 4 + o % 4` (RDNA3 ISA ch. 11 "Scratch
//! Instruction Modes": `SCRATCH_BASE + (offset / 4) * 4 * const_index_stride + (offset % 4) +
//! TID * 4`; CDNA4 ISA §9.1.5.2 swizzled-buffer formula with element size 4 and index stride
//! = wave size gives the same). Encodings: `llvm-mc-19 -show-encoding`.

use crate::vmem_util;

use hipscope_isa::Processor;
use hipscope_sim::testing::Rig;
use vmem_util::*;

const PER_LANE: u64 = 64;

fn swz(o: u64, lane: usize, lanes: usize) -> u64 {
    (o / 4) * 4 * lanes as u64 + lane as u64 * 4 + o % 4
}

/// A rig whose wave owns the second wave region of a two-wave scratch allocation; returns the
/// wave's scratch base.
fn scratch_rig(p: Processor, w64: bool) -> (Rig, u64) {
    let mut r = rig(p, w64);
    let region = PER_LANE * lanes(&r) as u64;
    let base = alloc(&mut r, "scratch", vec![0; 2 * region as usize]);
    r.env.scratch_base = base;
    r.env.scratch_per_lane = PER_LANE;
    let wave_base = base + region;
    if p.family() == hipscope_isa::Family::Gfx8 {
        // GFX8: FLAT_SCRATCH_HI = wave offset / 256, FLAT_SCRATCH_LO = bytes per lane.
        set_s(&mut r, SLOT_FLAT_SCRATCH_HI, (region / 256) as u32);
        set_s(&mut r, SLOT_FLAT_SCRATCH_LO, PER_LANE as u32);
    } else {
        set_s64(&mut r, SLOT_FLAT_SCRATCH_LO, wave_base);
    }
    (r, wave_base)
}

fn scratch_u32(r: &Rig, wave_base: u64, o: u64, lane: usize) -> u32 {
    let base = r.env.scratch_base;
    le32(&bytes(r, "scratch"), (wave_base - base + swz(o, lane, lanes(r))) as usize)
}

/// Store at private offset `o` (per lane `v2 + 4`), check the swizzled location, load back.
fn check_sv(p: Processor, w64: bool, store: &[u8], load: &[u8]) {
    let (mut r, wb) = scratch_rig(p, w64);
    r.set_v(2, |_| 8); // + offset:4 = private offset 12
    r.set_v(8, |l| 0xc0de_0000 + l as u32);
    r.run(store);
    for l in 0..lanes(&r) {
        assert_eq!(scratch_u32(&r, wb, 12, l), 0xc0de_0000 + l as u32, "{p:?} w64={w64} lane {l}");
    }
    r.set_v(4, |_| 0);
    r.run(load);
    for l in 0..lanes(&r) {
        assert_eq!(v(&r, 4, l), 0xc0de_0000 + l as u32);
    }
}

#[test]
fn scratch_sv_mode_swizzles_per_lane() {
    check_sv(
        Processor::Gfx90a,
        true,
        &[0x04, 0x40, 0x70, 0xdc, 0x02, 0x08, 0x7f, 0x00], // scratch_store_dword v2, v8, off offset:4
        &[0x04, 0x40, 0x50, 0xdc, 0x02, 0x00, 0x7f, 0x04], // scratch_load_dword v4, v2, off offset:4
    );
    for w64 in [false, true] {
        check_sv(
            Processor::Gfx1030,
            w64,
            &[0x04, 0x40, 0x70, 0xdc, 0x02, 0x08, 0x7d, 0x00], // scratch_store_dword v2, v8, off offset:4
            &[0x04, 0x40, 0x30, 0xdc, 0x02, 0x00, 0x7d, 0x04], // scratch_load_dword v4, v2, off offset:4
        );
        check_sv(
            Processor::Gfx1100,
            w64,
            &[0x04, 0x00, 0x69, 0xdc, 0x02, 0x08, 0xfc, 0x00], // scratch_store_b32 v2, v8, off offset:4
            &[0x04, 0x00, 0x51, 0xdc, 0x02, 0x00, 0xfc, 0x04], // scratch_load_b32 v4, v2, off offset:4
        );
    }
    check_sv(
        Processor::Gfx1201,
        false,
        &[0x7c, 0x80, 0x06, 0xed, 0x00, 0x00, 0x02, 0x04, 0x02, 0x04, 0x00, 0x00], // scratch_store_b32 v2, v8, off offset:4
        &[0x7c, 0x00, 0x05, 0xed, 0x04, 0x00, 0x02, 0x00, 0x02, 0x04, 0x00, 0x00], // scratch_load_b32 v4, v2, off offset:4
    );
}

/// A 16-byte access covers four swizzle elements, `4 * wave_size` bytes apart.
#[test]
fn scratch_dwordx4_spans_four_elements_with_negative_offset() {
    let (mut r, wb) = scratch_rig(Processor::Gfx90a, true);
    r.set_v(2, |_| 20); // offset:-4 -> private offset 16
    for k in 0..4 {
        r.set_v(8 + k, |l| (k as u32) << 16 | l as u32);
    }
    r.run(&[0xfc, 0x5f, 0x7c, 0xdc, 0x02, 0x08, 0x7f, 0x00]); // scratch_store_dwordx4 v2, v[8:11], off offset:-4
    for l in 0..64 {
        for k in 0..4 {
            assert_eq!(scratch_u32(&r, wb, 16 + 4 * k, l), (k as u32) << 16 | l as u32);
        }
    }
    r.run(&[0xfc, 0x5f, 0x5c, 0xdc, 0x02, 0x00, 0x7f, 0x04]); // scratch_load_dwordx4 v[4:7], v2, off offset:-4
    assert_eq!((v(&r, 4, 9), v(&r, 7, 9)), (9, 3 << 16 | 9));
    // gfx1100 wave32: b128 at private offset 0.
    let (mut r, wb) = scratch_rig(Processor::Gfx1100, false);
    r.set_v(2, |_| 0);
    for k in 0..4 {
        r.set_v(8 + k, |l| 100 * k as u32 + l as u32);
    }
    r.run(&[0x00, 0x00, 0x75, 0xdc, 0x02, 0x08, 0xfc, 0x00]); // scratch_store_b128 v2, v[8:11], off
    assert_eq!(scratch_u32(&r, wb, 12, 31), 300 + 31);
    r.run(&[0x00, 0x00, 0x5d, 0xdc, 0x02, 0x00, 0xfc, 0x04]); // scratch_load_b128 v[4:7], v2, off
    assert_eq!(v(&r, 6, 5), 205);
}

#[test]
fn scratch_ss_svs_and_st_modes() {
    // SS (gfx90a): saddr + offset, same private offset in every lane.
    let (mut r, wb) = scratch_rig(Processor::Gfx90a, true);
    set_s(&mut r, 6, 16);
    r.set_v(8, |l| 0x0403_0201 * (l as u32 + 1));
    r.run(&[0x10, 0x40, 0x70, 0xdc, 0x00, 0x08, 0x06, 0x00]); // scratch_store_dword off, v8, s6 offset:16
    assert_eq!(scratch_u32(&r, wb, 32, 7), 0x0403_0201 * 8);
    r.run(&[0x11, 0x40, 0x40, 0xdc, 0x00, 0x00, 0x06, 0x04]); // scratch_load_ubyte v4, off, s6 offset:17
    for l in 0..64 {
        assert_eq!(v(&r, 4, l), (0x0403_0201u32.wrapping_mul(l as u32 + 1) >> 8) & 0xff, "lane {l}");
    }
    // SVS (gfx942, gfx1100): vaddr + saddr + offset.
    for (p, w64, store, load) in [
        (
            Processor::Gfx942,
            true,
            &[0x04, 0x60, 0x70, 0xdc, 0x02, 0x08, 0x06, 0x00][..], // scratch_store_dword v2, v8, s6 offset:4
            &[0x0c, 0x40, 0x50, 0xdc, 0x00, 0x00, 0x7f, 0x04][..], // scratch_load_dword v4, off, off offset:12
        ),
        (
            Processor::Gfx1100,
            true,
            &[0x04, 0x00, 0x69, 0xdc, 0x02, 0x08, 0x86, 0x00][..], // scratch_store_b32 v2, v8, s6 offset:4
            &[0x0c, 0x00, 0x51, 0xdc, 0x00, 0x00, 0x7c, 0x04][..], // scratch_load_b32 v4, off, off offset:12
        ),
    ] {
        let (mut r, wb) = scratch_rig(p, w64);
        set_s(&mut r, 6, 4);
        r.set_v(2, |_| 4);
        r.set_v(8, |l| 77 + l as u32);
        r.run(store); // private offset 4 + 4 + 4 = 12
        assert_eq!(scratch_u32(&r, wb, 12, 3), 80, "{p:?}");
        r.run(load); // ST: offset 12 only
        for l in 0..lanes(&r) {
            assert_eq!(v(&r, 4, l), 77 + l as u32, "{p:?} lane {l}");
        }
    }
    // gfx1201: SVS with a negative offset, then ST.
    let (mut r, wb) = scratch_rig(Processor::Gfx1201, false);
    set_s(&mut r, 6, 8);
    r.set_v(2, |_| 8);
    r.set_v(8, |l| 5 * l as u32);
    r.run(&[0x06, 0x80, 0x06, 0xed, 0x00, 0x00, 0x02, 0x04, 0x02, 0xfc, 0xff, 0xff]); // scratch_store_b32 v2, v8, s6 offset:-4
    assert_eq!(scratch_u32(&r, wb, 12, 31), 155);
    r.run(&[0x7c, 0x00, 0x05, 0xed, 0x04, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00]); // scratch_load_b32 v4, off, off offset:12
    assert_eq!(v(&r, 4, 30), 150);
}

#[test]
fn private_offsets_past_the_lane_size_fault() {
    let (mut r, _) = scratch_rig(Processor::Gfx90a, true);
    let private_base = r.env.apertures.private_base;
    r.set_v(2, |l| if l == 3 { PER_LANE as u32 - 6 } else { 0 });
    let (lane, addr) = expect_mem_fault(&mut r, &[0x04, 0x40, 0x70, 0xdc, 0x02, 0x08, 0x7f, 0x00]); // scratch_store_dword v2, v8, off offset:4
    assert_eq!((lane, addr), (3, private_base | (PER_LANE - 2)));
    // Negative private offsets wrap to huge unsigned ones: also a fault.
    let (mut r, _) = scratch_rig(Processor::Gfx1100, false);
    r.set_v(2, |_| 0);
    set_s(&mut r, 6, (-8i32) as u32);
    let (lane, _) = expect_mem_fault(&mut r, &[0x04, 0x00, 0x51, 0xdc, 0x00, 0x00, 0x06, 0x04]); // scratch_load_b32 v4, off, s6 offset:4
    assert_eq!(lane, 0);
}

/// FLAT pointers into the private aperture address the same per-lane memory.
#[test]
fn flat_private_aperture_matches_scratch_instructions() {
    let (mut r, wb) = scratch_rig(Processor::Gfx90a, true);
    let private_base = r.env.apertures.private_base;
    set_v64(&mut r, 2, |_| private_base | 4);
    r.set_v(8, |l| 0xf1a7_0000 | l as u32);
    r.run(&[0x04, 0x00, 0x70, 0xdc, 0x02, 0x08, 0x00, 0x00]); // flat_store_dword v[2:3], v8 offset:4
    assert_eq!(scratch_u32(&r, wb, 8, 63), 0xf1a7_003f);
    r.set_v(2, |_| 4);
    r.run(&[0x04, 0x40, 0x50, 0xdc, 0x02, 0x00, 0x7f, 0x04]); // scratch_load_dword v4, v2, off offset:4
    assert_eq!(v(&r, 4, 17), 0xf1a7_0011);
    // gfx1201
    let (mut r, wb) = scratch_rig(Processor::Gfx1201, false);
    let private_base = r.env.apertures.private_base;
    r.set_v(2, |_| 8);
    r.set_v(8, |l| 900 + l as u32);
    r.run(&[0x7c, 0x80, 0x06, 0xed, 0x00, 0x00, 0x02, 0x04, 0x02, 0x04, 0x00, 0x00]); // scratch_store_b32 v2, v8, off offset:4
    set_v64(&mut r, 2, |_| private_base | 12);
    r.run(&[0x7c, 0x00, 0x05, 0xec, 0x04, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00]); // flat_load_b32 v4, v[2:3]
    assert_eq!(v(&r, 4, 31), 931);
    assert_eq!(scratch_u32(&r, wb, 12, 0), 900);
}

/// GFX8: FLAT in the private aperture uses the hidden private base plus FLAT_SCRATCH_HI * 256.
#[test]
fn gfx8_flat_scratch() {
    let (mut r, wb) = scratch_rig(Processor::Gfx803, true);
    let private_base = r.env.apertures.private_base;
    set_v64(&mut r, 2, |l| private_base | (4 * (l as u64 % 4)));
    r.set_v(8, |l| l as u32 + 1);
    r.run(&[0x00, 0x00, 0x70, 0xdc, 0x02, 0x08, 0x00, 0x00]); // flat_store_dword v[2:3], v8
    for l in 0..64 {
        assert_eq!(scratch_u32(&r, wb, 4 * (l as u64 % 4), l), l as u32 + 1);
    }
    r.run(&[0x00, 0x00, 0x50, 0xdc, 0x02, 0x00, 0x00, 0x04]); // flat_load_dword v4, v[2:3]
    assert_eq!(v(&r, 4, 40), 41);
}

/// The private-segment buffer V# the runtime gives kernels (base = scratch backing, stride =
/// bytes per lane, swizzle, element size 4, index stride = wave size, ADD_TID) with the
/// scratch wave offset as `soffset`: MUBUF scratch lands where SCRATCH/FLAT put it.
fn psb(r: &mut Rig, gfx8: bool, gfx10: bool) {
    let base = r.env.scratch_base;
    let index_stride = if lanes(r) == 64 { 3 } else { 2 };
    set_s(r, 0, base as u32);
    set_s(r, 1, (base >> 32) as u32 | (PER_LANE as u32) << 16 | 1 << 31);
    set_s(r, 2, u32::MAX);
    let elem4 = if gfx8 { 1 << 19 } else { 0 };
    let oob_none = if gfx10 { 2 << 28 } else { 0 };
    set_s(r, 3, elem4 | index_stride << 21 | 1 << 23 | oob_none);
    set_s(r, 5, (PER_LANE * lanes(r) as u64) as u32); // wave offset of the second region
}

#[test]
fn mubuf_scratch_through_the_private_segment_buffer() {
    // gfx90a: buffer store, scratch load of the same private offset.
    let (mut r, wb) = scratch_rig(Processor::Gfx90a, true);
    psb(&mut r, false, false);
    r.set_v(2, |_| 8);
    r.set_v(8, |l| 0xb0f0_0000 | l as u32);
    r.run(&[0x04, 0x10, 0x70, 0xe0, 0x02, 0x08, 0x00, 0x05]); // buffer_store_dword v8, v2, s[0:3], s5 offen offset:4
    assert_eq!(scratch_u32(&r, wb, 12, 33), 0xb0f0_0021);
    r.run(&[0x04, 0x40, 0x50, 0xdc, 0x02, 0x00, 0x7f, 0x04]); // scratch_load_dword v4, v2, off offset:4
    assert_eq!(v(&r, 4, 63), 0xb0f0_003f);
    // x4: four elements 4 * 64 bytes apart, like a scratch dwordx4.
    r.set_v(2, |_| 16);
    for k in 0..4 {
        r.set_v(8 + k, |l| 10 * k as u32 + l as u32);
    }
    r.run(&[0x00, 0x10, 0x7c, 0xe0, 0x02, 0x08, 0x00, 0x05]); // buffer_store_dwordx4 v[8:11], v2, s[0:3], s5 offen
    assert_eq!(scratch_u32(&r, wb, 28, 2), 32);
    // gfx803: buffer store, FLAT private load.
    let (mut r, wb) = scratch_rig(Processor::Gfx803, true);
    psb(&mut r, true, false);
    let private_base = r.env.apertures.private_base;
    r.set_v(2, |_| 0);
    r.set_v(8, |l| 3 * l as u32);
    r.run(&[0x04, 0x10, 0x70, 0xe0, 0x02, 0x08, 0x00, 0x05]); // buffer_store_dword v8, v2, s[0:3], s5 offen offset:4
    assert_eq!(scratch_u32(&r, wb, 4, 9), 27);
    set_v64(&mut r, 2, |_| private_base | 4);
    r.run(&[0x00, 0x00, 0x50, 0xdc, 0x02, 0x00, 0x00, 0x04]); // flat_load_dword v4, v[2:3]
    assert_eq!(v(&r, 4, 9), 27);
    // gfx1030 wave32 and wave64: scratch store, buffer load.
    for w64 in [false, true] {
        let (mut r, _) = scratch_rig(Processor::Gfx1030, w64);
        psb(&mut r, false, true);
        r.set_v(2, |_| 8);
        r.set_v(8, |l| 0x1030_0000 | l as u32);
        r.run(&[0x04, 0x40, 0x70, 0xdc, 0x02, 0x08, 0x7d, 0x00]); // scratch_store_dword v2, v8, off offset:4
        r.run(&[0x04, 0x10, 0x30, 0xe0, 0x02, 0x04, 0x00, 0x05]); // buffer_load_dword v4, v2, s[0:3], s5 offen offset:4
        for l in 0..lanes(&r) {
            assert_eq!(v(&r, 4, l), 0x1030_0000 | l as u32, "w64={w64} lane {l}");
        }
    }
}
