//! Cross-lane DS instructions: `ds_swizzle_b32` in every mode (quad permute, bit-mask
//! swap/reverse/broadcast, rotate, FFT) and `ds_permute_b32` / `ds_bpermute_b32`, in wave32
//! and wave64, with inactive lanes.
//!
//! Expected values: the example tables of the CDNA4/RDNA4 ISA `DS_SWIZZLE_B32` entry
//! (1-based thread values), LLVM's `swizzle(BITMASK_PERM, "...")` meaning (0 = force 0,
//! 1 = force 1, p = preserve, i = invert, MSB first), and the 4-lane `DS_PERMUTE_B32` /
//! `DS_BPERMUTE_B32` examples. Encodings from `llvm-mc-19 -show-encoding`.

use crate::vmem_util;

use hipscope_isa::Processor;
use hipscope_sim::exec::Fidelity;
use hipscope_sim::testing::Rig;
use vmem_util::*;

/// Run a swizzle of `v2 = lane + 1` and return v4 per lane (inactive: 0xffffffff preset).
fn swizzle(p: Processor, w64: bool, enc: &[u8], exec: u64) -> (Rig, Vec<u32>) {
    let mut r = rig(p, w64);
    r.set_v(2, |l| l as u32 + 1);
    r.set_v(4, |_| u32::MAX);
    set_exec(&mut r, exec);
    r.run(enc);
    let out = (0..lanes(&r)).map(|l| v(&r, 4, l)).collect();
    (r, out)
}

/// Expected values for lanes 0..n from a 32-entry table of source threads (1-based);
/// the upper half of a wave64 repeats it on lanes 32..63.
fn from_table(table: &[u32; 32], n: usize) -> Vec<u32> {
    (0..n).map(|l| table[l % 32] + if l >= 32 { 32 } else { 0 }).collect()
}

fn from_source(n: usize, src: impl Fn(usize) -> usize) -> Vec<u32> {
    (0..n).map(|l| src(l) as u32 + 1).collect()
}

const QUAD_1032: &[u8] = &[0xb1, 0x80, 0x7a, 0xd8, 0x02, 0x00, 0x00, 0x04]; // ds_swizzle_b32 v4, v2 offset:swizzle(QUAD_PERM,1,0,3,2)
const SWAP16: &[u8] = &[0x1f, 0x40, 0x7a, 0xd8, 0x02, 0x00, 0x00, 0x04]; // ds_swizzle_b32 v4, v2 offset:swizzle(SWAP,16)
const REVERSE8: &[u8] = &[0x1f, 0x1c, 0x7a, 0xd8, 0x02, 0x00, 0x00, 0x04]; // ds_swizzle_b32 v4, v2 offset:swizzle(REVERSE,8)
const BCAST4_1: &[u8] = &[0x3c, 0x00, 0x7a, 0xd8, 0x02, 0x00, 0x00, 0x04]; // ds_swizzle_b32 v4, v2 offset:swizzle(BROADCAST,4,1)
const BITMASK: &[u8] = &[0x06, 0x09, 0x7a, 0xd8, 0x02, 0x00, 0x00, 0x04]; // ds_swizzle_b32 v4, v2 offset:swizzle(BITMASK_PERM,"01pi0")
const ROT_L1_M1: &[u8] = &[0x21, 0xc0, 0x7a, 0xd8, 0x02, 0x00, 0x00, 0x04]; // ds_swizzle_b32 v4, v2 offset:49185 (0xc021: rotate left 1, mask 1)
const ROT_R1_M1: &[u8] = &[0x21, 0xc4, 0x7a, 0xd8, 0x02, 0x00, 0x00, 0x04]; // ds_swizzle_b32 v4, v2 offset:50209 (0xc421: rotate right 1, mask 1)
const FFT_00: &[u8] = &[0x00, 0xe0, 0x7a, 0xd8, 0x02, 0x00, 0x00, 0x04]; // ds_swizzle_b32 v4, v2 offset:57344 (0xe000)
const FFT_10: &[u8] = &[0x10, 0xe0, 0x7a, 0xd8, 0x02, 0x00, 0x00, 0x04]; // ds_swizzle_b32 v4, v2 offset:57360 (0xe010)

#[test]
fn swizzle_basic_modes_gfx9() {
    for p in [Processor::Gfx803, Processor::Gfx90a] {
        let n = 64;
        assert_eq!(swizzle(p, true, QUAD_1032, u64::MAX).1, from_source(n, |l| l ^ 1), "{p:?} quad perm");
        assert_eq!(swizzle(p, true, SWAP16, u64::MAX).1, from_source(n, |l| l ^ 16), "{p:?} swap16");
        assert_eq!(swizzle(p, true, REVERSE8, u64::MAX).1, from_source(n, |l| l ^ 7), "{p:?} reverse8");
        assert_eq!(swizzle(p, true, BCAST4_1, u64::MAX).1, from_source(n, |l| (l & !3) | 1), "{p:?} broadcast");
        let bitmask = |l: usize| (l & 0x20) | 1 << 3 | (l & 4) | (!l & 2);
        assert_eq!(swizzle(p, true, BITMASK, u64::MAX).1, from_source(n, bitmask), "{p:?} bitmask perm");
        let (r, _) = swizzle(p, true, QUAD_1032, u64::MAX);
        assert_eq!(fidelity(&r, QUAD_1032), Fidelity::Exact);
    }
}

#[test]
fn swizzle_rotate_and_fft_match_the_manual_tables() {
    const ROT_LEFT_MASK1: [u32; 32] = [
        0x1, 0x4, 0x3, 0x6, 0x5, 0x8, 0x7, 0xa, 0x9, 0xc, 0xb, 0xe, 0xd, 0x10, 0xf, 0x12, 0x11, 0x14, 0x13, 0x16, 0x15, 0x18, 0x17, 0x1a, 0x19, 0x1c, 0x1b,
        0x1e, 0x1d, 0x20, 0x1f, 0x2,
    ];
    const ROT_RIGHT_MASK1: [u32; 32] = [
        0x1f, 0x2, 0x1, 0x4, 0x3, 0x6, 0x5, 0x8, 0x7, 0xa, 0x9, 0xc, 0xb, 0xe, 0xd, 0x10, 0xf, 0x12, 0x11, 0x14, 0x13, 0x16, 0x15, 0x18, 0x17, 0x1a, 0x19,
        0x1c, 0x1b, 0x1e, 0x1d, 0x20,
    ];
    const FFT0: [u32; 32] = [
        0x1, 0x11, 0x9, 0x19, 0x5, 0x15, 0xd, 0x1d, 0x3, 0x13, 0xb, 0x1b, 0x7, 0x17, 0xf, 0x1f, 0x2, 0x12, 0xa, 0x1a, 0x6, 0x16, 0xe, 0x1e, 0x4, 0x14, 0xc,
        0x1c, 0x8, 0x18, 0x10, 0x20,
    ];
    const FFT10: [u32; 32] = [
        0x1, 0x9, 0x5, 0xd, 0x3, 0xb, 0x7, 0xf, 0x2, 0xa, 0x6, 0xe, 0x4, 0xc, 0x8, 0x10, 0x11, 0x19, 0x15, 0x1d, 0x13, 0x1b, 0x17, 0x1f, 0x12, 0x1a, 0x16,
        0x1e, 0x14, 0x1c, 0x18, 0x20,
    ];
    for (enc, table) in [(ROT_L1_M1, &ROT_LEFT_MASK1), (ROT_R1_M1, &ROT_RIGHT_MASK1), (FFT_00, &FFT0), (FFT_10, &FFT10)] {
        assert_eq!(swizzle(Processor::Gfx90a, true, enc, u64::MAX).1, from_table(table, 64), "{enc:02x?}");
    }
    // gfx1100, wave32 and wave64 (same pattern bits, GFX11 opcode).
    let rot_gfx11: &[u8] = &[0x21, 0xc0, 0xd4, 0xd8, 0x02, 0x00, 0x00, 0x04]; // ds_swizzle_b32 v4, v2 offset:49185
    let fft_gfx11: &[u8] = &[0x10, 0xe0, 0xd4, 0xd8, 0x02, 0x00, 0x00, 0x04]; // ds_swizzle_b32 v4, v2 offset:57360
    for w64 in [false, true] {
        let n = if w64 { 64 } else { 32 };
        assert_eq!(swizzle(Processor::Gfx1100, w64, rot_gfx11, u64::MAX).1, from_table(&ROT_LEFT_MASK1, n));
        assert_eq!(swizzle(Processor::Gfx1100, w64, fft_gfx11, u64::MAX).1, from_table(&FFT10, n));
    }
}

#[test]
fn swizzle_reads_zero_from_inactive_lanes_and_skips_inactive_destinations() {
    // SWAP16 with lanes 0..15, 40 and 56 active: 0..15 read 16..31 (inactive) -> 0; 40 and
    // 56 (= 40 ^ 16) exchange.
    let exec = 0xffffu64 | 1 << 40 | 1 << 56;
    let (_, out) = swizzle(Processor::Gfx90a, true, SWAP16, exec);
    for (l, o) in out.iter().enumerate() {
        let want = match l {
            0..=15 => 0,
            40 => 57,
            56 => 41,
            _ => u32::MAX,
        };
        assert_eq!(*o, want, "lane {l}");
    }
    // QUAD(1,0,3,2) with lanes 0 and 1 active: they swap.
    let (_, out) = swizzle(Processor::Gfx1030, false, &[0xb1, 0x80, 0xd4, 0xd8, 0x02, 0x00, 0x00, 0x04], 0b11); // ds_swizzle_b32 v4, v2 offset:swizzle(QUAD_PERM,1,0,3,2) (gfx10 opcode)
    assert_eq!(&out[..3], &[2, 1, u32::MAX]);
}

#[test]
fn swizzle_gfx10_gfx11_gfx12_encodings() {
    let swap16_gfx10: &[u8] = &[0x1f, 0x40, 0xd4, 0xd8, 0x02, 0x00, 0x00, 0x04]; // ds_swizzle_b32 v4, v2 offset:swizzle(SWAP,16)
    for (p, w64) in [(Processor::Gfx1030, false), (Processor::Gfx1030, true), (Processor::Gfx1100, false), (Processor::Gfx1100, true)] {
        let n = if w64 { 64 } else { 32 };
        assert_eq!(swizzle(p, w64, swap16_gfx10, u64::MAX).1, from_source(n, |l| l ^ 16), "{p:?} w64={w64}");
    }
    let quad_gfx12: &[u8] = &[0xb1, 0x80, 0xd4, 0xd8, 0x02, 0x00, 0x00, 0x04]; // ds_swizzle_b32 v4, v2 offset:swizzle(QUAD_PERM,1,0,3,2)
    assert_eq!(swizzle(Processor::Gfx1201, false, quad_gfx12, u64::MAX).1, from_source(32, |l| l ^ 1));
}

/// Permutes of `v2 = 'A' + lane` by byte addresses in v3.
fn permute(p: Processor, w64: bool, enc: &[u8], exec: u64, addr: impl Fn(usize) -> u32) -> Vec<u32> {
    let mut r = rig(p, w64);
    r.set_v(2, |l| 0x41 + l as u32);
    r.set_v(3, addr);
    r.set_v(4, |_| u32::MAX);
    set_exec(&mut r, exec);
    r.run(enc);
    (0..lanes(&r)).map(|l| v(&r, 4, l)).collect()
}

const GFX9_PERMUTE: &[u8] = &[0x00, 0x00, 0x7c, 0xd8, 0x03, 0x02, 0x00, 0x04]; // ds_permute_b32 v4, v3, v2
const GFX9_BPERMUTE: &[u8] = &[0x04, 0x00, 0x7e, 0xd8, 0x03, 0x02, 0x00, 0x04]; // ds_bpermute_b32 v4, v3, v2 offset:4
const GFX10_PERMUTE: &[u8] = &[0x00, 0x00, 0xc8, 0xda, 0x03, 0x02, 0x00, 0x04]; // ds_permute_b32 v4, v3, v2
const GFX10_BPERMUTE: &[u8] = &[0x04, 0x00, 0xcc, 0xda, 0x03, 0x02, 0x00, 0x04]; // ds_bpermute_b32 v4, v3, v2 offset:4

const A: u32 = 0x41;
const B: u32 = 0x42;
const C: u32 = 0x43;
const D: u32 = 0x44;
const NONE: u32 = u32::MAX;

/// The manual's 4-lane examples (ADDR = {0, 0, 12, 4}); other lanes address themselves.
fn example_addr(offset: u32) -> impl Fn(usize) -> u32 {
    move |l| [0, 0, 12, 4].get(l).copied().unwrap_or(4 * l as u32).wrapping_sub(offset)
}

#[test]
fn permute_and_bpermute_follow_the_manual_examples() {
    for (p, w64, perm, bperm) in [
        (Processor::Gfx803, true, GFX9_PERMUTE, GFX9_BPERMUTE),
        (Processor::Gfx90a, true, GFX9_PERMUTE, GFX9_BPERMUTE),
        (Processor::Gfx1030, false, GFX10_PERMUTE, GFX10_BPERMUTE),
        (Processor::Gfx1100, true, GFX10_PERMUTE, GFX10_BPERMUTE),
    ] {
        let full = u64::MAX;
        assert_eq!(&permute(p, w64, perm, full, example_addr(0))[..4], &[B, D, 0, C], "{p:?} permute");
        assert_eq!(&permute(p, w64, perm, 0xa, example_addr(0))[..4], &[NONE, D, NONE, 0], "{p:?} permute exec 0xa");
        // bpermute adds offset:4, so subtract it from the addresses.
        assert_eq!(&permute(p, w64, bperm, full, example_addr(4))[..4], &[A, A, D, B], "{p:?} bpermute");
        assert_eq!(&permute(p, w64, bperm, 0xa, example_addr(4))[..4], &[NONE, 0, NONE, B], "{p:?} bpermute exec 0xa");
    }
}

/// Lane indices wrap modulo the wave size: 32 in wave32, 64 in wave64.
#[test]
fn permute_lane_index_wraps_by_wave_size() {
    for (w64, n) in [(false, 32usize), (true, 64usize)] {
        // bpermute: lane l reads lane (l + 40) mod n (address 4 * (l + 40) - 4, plus offset:4).
        let out = permute(Processor::Gfx1100, w64, GFX10_BPERMUTE, u64::MAX, |l| 4 * (l as u32 + 40) - 4);
        for (l, o) in out.iter().enumerate() {
            assert_eq!(*o, 0x41 + ((l + 40) % n) as u32, "w64={w64} lane {l}");
        }
        // permute: lane l sends to (3 * l) mod n; the highest sender wins.
        let out = permute(Processor::Gfx1100, w64, GFX10_PERMUTE, u64::MAX, |l| 4 * 3 * l as u32);
        let mut want = vec![0u32; n];
        for l in 0..n {
            want[(3 * l) % n] = 0x41 + l as u32;
        }
        assert_eq!(out, want, "w64={w64}");
    }
}
