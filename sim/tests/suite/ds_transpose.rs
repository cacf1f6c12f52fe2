//! gfx950's LDS transpose loads (`ds_read_b64_tr_b4/b8/b16`, `ds_read_b96_tr_b6`) and its
//! 12/16-byte LDS-DMA loads (`global_load_lds_dwordx3/x4`), one instruction at a time on the
//! test rig and end to end in a kernel clang-22 compiled from the builtins
//! (`sim/tests/data/gfx950ld/k.hip`, rebuilt by its `build.sh`; the committed `k.co` is read,
//! no LLVM needed).
//!
//! The reference is written from the CDNA4 ISA guide (§11.4 "MFMA Transpose Load from LDS"
//! and the DS opcode descriptions: "Read 64 bits of data per lane from data share. Interpret
//! the data as a matrix with N bit elements and transpose the matrix"; for 16-bit elements
//! "Each lane (one VGPR) holds 4 consecutive M or N values"): each group of 16 lanes reads a
//! 16 (M) x E (K) matrix, each lane E elements consecutive along M; after the load lane `M`
//! of the group holds the E values of its row, element `K` at bits `K * size`. Here the
//! matrix is scattered source-lane by source-lane (the instruction gathers per destination).
//!
//! LDS-DMA: LDS address = M0 + instruction offset + lane * size, the data as loaded (CDNA4
//! ISA §9.1.9 gives `lane * 4` for the dword forms; the wider forms are contiguous per lane).

use crate::vmem_util;

use hipscope_isa::{codeobj, Processor};
use hipscope_sim::exec::Fidelity;
use hipscope_sim::testing::Rig;
use hipscope_sim::{Device, EngineOptions, Geometry, MemoryKind};
use std::path::Path;
use vmem_util::*;

/// Element `j` (`bits` wide) of a little-endian byte string.
fn get_bits(b: &[u8], j: usize, bits: usize) -> u32 {
    (0..bits).map(|x| ((b[(j * bits + x) / 8] >> ((j * bits + x) % 8)) & 1) as u32).enumerate().fold(0, |a, (x, v)| a | v << x)
}

fn put_bits(b: &mut [u8], j: usize, bits: usize, v: u32) {
    for x in 0..bits {
        let at = j * bits + x;
        if v >> x & 1 != 0 {
            b[at / 8] |= 1 << (at % 8);
        }
    }
}

/// What each lane holds after a transpose load: `src[l]` are the bytes lane `l` read.
fn reference(src: &[Vec<u8>], bits: usize, bytes: usize) -> Vec<Vec<u8>> {
    let e = bytes * 8 / bits;
    let mut out = vec![vec![0u8; bytes]; src.len()];
    for (l, data) in src.iter().enumerate() {
        let (g, s) = (l - l % 16, l % 16);
        let (m0, k) = (e * (s % (16 / e)), s / (16 / e));
        for j in 0..e {
            put_bits(&mut out[g + m0 + j], k, bits, get_bits(data, j, bits));
        }
    }
    out
}

/// (encoding, element bits, bytes per lane): `ds_read_b64_tr_b4 v[4:5], v2` and friends,
/// from `llvm-objdump-22 --mcpu=gfx950` of `k.co`.
const TR: [([u8; 8], usize, usize); 4] = [
    ([0x00, 0x00, 0xc0, 0xd9, 0x02, 0x00, 0x00, 0x04], 4, 8),  // ds_read_b64_tr_b4 v[4:5], v2
    ([0x00, 0x00, 0xc4, 0xd9, 0x02, 0x00, 0x00, 0x04], 8, 8),  // ds_read_b64_tr_b8 v[4:5], v2
    ([0x00, 0x00, 0xc6, 0xd9, 0x02, 0x00, 0x00, 0x04], 16, 8), // ds_read_b64_tr_b16 v[4:5], v2
    ([0x00, 0x00, 0xc2, 0xd9, 0x02, 0x00, 0x00, 0x04], 6, 12), // ds_read_b96_tr_b6 v[4:6], v2
];

fn lane_addr(l: usize) -> u32 {
    16 * ((5 * l as u32 + 3) % 64)
}

#[test]
fn transpose_loads_match_the_isa_matrix_transpose() {
    for (enc, bits, bytes) in TR {
        let mut r = Rig::new(Processor::Gfx950, true);
        let lds = pattern(1024);
        r.lds[..1024].copy_from_slice(&lds);
        r.set_v(2, lane_addr);
        assert!(matches!(r.classify(&enc).fidelity(), Fidelity::Approximate(_)), "{bits}-bit transpose load is executed");
        r.run(&enc);
        let src: Vec<Vec<u8>> = (0..64).map(|l| lds[lane_addr(l) as usize..][..bytes].to_vec()).collect();
        let want = reference(&src, bits, bytes);
        for (l, w) in want.iter().enumerate() {
            for k in 0..bytes / 4 {
                assert_eq!(v(&r, 4 + k, l), le32(w, 4 * k), "tr_b{bits}: lane {l} dword {k}");
            }
        }
    }
}

#[test]
fn transpose_leaves_lanes_outside_exec_alone() {
    let (enc, bits, bytes) = TR[2];
    let mut r = Rig::new(Processor::Gfx950, true);
    r.lds[..1024].copy_from_slice(&pattern(1024));
    r.set_v(2, lane_addr);
    r.set_v(4, |_| 0x5555_5555);
    r.set_v(5, |_| 0x5555_5555);
    // Groups 0 and 2 active, 1 and 3 not: the active groups' results are the full transpose.
    set_exec(&mut r, 0x0000_ffff_0000_ffff);
    r.run(&enc);
    let src: Vec<Vec<u8>> = (0..64).map(|l| r.lds[lane_addr(l) as usize..][..bytes].to_vec()).collect();
    let want = reference(&src, bits, bytes);
    for (l, w) in want.iter().enumerate() {
        let active = (l / 16) % 2 == 0;
        let exp = if active { [le32(w, 0), le32(w, 4)] } else { [0x5555_5555; 2] };
        assert_eq!([v(&r, 4, l), v(&r, 5, l)], exp, "lane {l}");
    }
}

fn co_path() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/gfx950ld/k.co")
}

fn run_kernel(name: &str, input: Vec<u8>, out_bytes: usize) -> Vec<u8> {
    let bytes = std::fs::read(co_path()).expect("committed k.co");
    let co = codeobj::load(&bytes, None).expect("k.co loads");
    let mut dev = Device::new(co.target.processor);
    let k = dev.load_kernel(&co, name).expect("kernel");
    let pin = dev.mem.alloc_init("in", input, MemoryKind::Device);
    let pout = dev.mem.alloc("out", out_bytes, MemoryKind::Device);
    let geo = Geometry { grid: [64, 1, 1], block: [64, 1, 1], dynamic_lds: 0 };
    let args = [pin.to_le_bytes().to_vec(), pout.to_le_bytes().to_vec()];
    dev.launch(&k, geo, &args, &EngineOptions::default()).expect("launch");
    dev.mem.find("out").map(|a| a.data.to_vec()).expect("out")
}

#[test]
fn compiled_transpose_loads() {
    let input = pattern(1024);
    let out = run_kernel("tr_loads", input.clone(), 64 * 36);
    // Per lane: tr_b4 (2 dwords), tr_b8 (2), tr_b16 (2), tr_b6 (3), as the kernel stores them.
    let mut at = 0;
    for (bits, bytes) in [(4, 8), (8, 8), (16, 8), (6, 12)] {
        let src: Vec<Vec<u8>> = (0..64).map(|l| input[lane_addr(l) as usize..][..bytes].to_vec()).collect();
        let want = reference(&src, bits, bytes);
        for (l, w) in want.iter().enumerate() {
            assert_eq!(&out[36 * l + at..][..bytes], &w[..], "tr_b{bits} lane {l}");
        }
        at += bytes;
    }
}

#[test]
fn compiled_lds_dma_of_12_and_16_bytes() {
    let input = pattern(1024);
    let out = run_kernel("load_lds", input.clone(), 448 * 4);
    // 12 bytes per lane at LDS 12 * lane (M0 = 0), 16 bytes per lane at 768 + 16 * lane.
    for l in 0..64 {
        let src12 = 12 * ((7 * l) % 64);
        assert_eq!(&out[12 * l..][..12], &input[src12..][..12], "dwordx3 lane {l}");
        let src16 = 16 * ((3 * l) % 64);
        assert_eq!(&out[768 + 16 * l..][..16], &input[src16..][..16], "dwordx4 lane {l}");
    }
}

#[test]
fn lds_dma_of_16_bytes_on_the_rig() {
    // global_load_lds_dwordx4 v[2:3], off offset:16 (llvm-mc-22 -mcpu=gfx950).
    let enc = [0x10, 0x80, 0xf4, 0xdd, 0x02, 0x00, 0x7f, 0x00];
    let mut r = Rig::new(Processor::Gfx950, true);
    let data = pattern(16 * 64 + 16);
    let base = alloc(&mut r, "src", data.clone());
    set_v64(&mut r, 2, |l| base + 16 * (63 - l as u64));
    set_s(&mut r, SLOT_M0, 256);
    r.run(&enc);
    for l in 0..64 {
        let at = 256 + 16 + 16 * l;
        let from = 16 + 16 * (63 - l);
        assert_eq!(&r.lds[at..at + 16], &data[from..from + 16], "lane {l}");
    }
}

#[test]
fn buffer_lds_dma_of_16_bytes_on_the_rig() {
    // buffer_load_dwordx4 v1, s[4:7], 0 offen offset:32 lds (llvm-mc-22 -mcpu=gfx950).
    let enc = [0x20, 0x10, 0x5d, 0xe0, 0x01, 0x00, 0x01, 0x80];
    let mut r = Rig::new(Processor::Gfx950, true);
    let data = pattern(2048);
    let base = alloc(&mut r, "buf", data.clone());
    // Raw V#: base, stride 0, 2048 records (bytes), dst_sel XYZW with a 32-bit format.
    set_s64(&mut r, 4, base);
    set_s(&mut r, 6, 2048);
    set_s(&mut r, 7, (4 | 5 << 3 | 6 << 6 | 7 << 9) | 4 << 12 | 4 << 15);
    r.set_v(1, |l| 16 * ((5 * l as u32) % 64));
    set_s(&mut r, SLOT_M0, 128);
    r.run(&enc);
    // Memory at V# base + VGPR + 32; LDS at M0 + 32 + 16 * lane.
    for l in 0..64 {
        let from = 32 + 16 * ((5 * l) % 64);
        assert_eq!(&r.lds[160 + 16 * l..][..16], &data[from..from + 16], "lane {l}");
    }
}
