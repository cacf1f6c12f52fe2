//! GLOBAL and FLAT loads and stores: every size and kind, D16 halves, addressing modes,
//! EXEC masking, faults, FLAT apertures, on every target and wave size.
//!
//! Encodings: `llvm-mc-19 -arch=amdgcn -mcpu=<cpu> -show-encoding` (assembly in comments).
//! Expected values follow the ISA definitions (CDNA4 ISA ch. 10, RDNA3 ISA ch. 11; D16:
//! "D16 loads data into or stores data from the lower 16 bits of a VGPR, D16_HI the upper").

use crate::vmem_util;

use hipscope_isa::Processor;
use hipscope_sim::exec::Fidelity;
use vmem_util::*;

/// How the ISA defines a load of each kind.
#[derive(Clone, Copy, Debug)]
enum K {
    U8,
    I8,
    U16,
    I16,
    Dw(usize),
}

fn expected(k: K, m: &[u8], at: usize) -> Vec<u32> {
    let h = u16::from_le_bytes([m[at], m.get(at + 1).copied().unwrap_or(0)]);
    match k {
        K::U8 => vec![m[at] as u32],
        K::I8 => vec![m[at] as i8 as i32 as u32],
        K::U16 => vec![h as u32],
        K::I16 => vec![h as i16 as i32 as u32],
        K::Dw(n) => (0..n).map(|i| le32(m, at + 4 * i)).collect(),
    }
}

fn bytes_of(k: K) -> usize {
    match k {
        K::U8 | K::I8 => 1,
        K::U16 | K::I16 => 2,
        K::Dw(n) => 4 * n,
    }
}

const SENTINEL: u32 = 0xdead_beef;

/// Load into v4.. from `v[2:3]` = base + lane*13 + 3 (unaligned, distinct per lane).
fn check_loads(p: Processor, w64: bool, table: &[(&[u8], K)]) {
    for &(enc, k) in table {
        let mut r = rig(p, w64);
        let mem = pattern(2048);
        let base = alloc(&mut r, "buf", mem.clone());
        set_v64(&mut r, 2, |l| base + l as u64 * 13 + 3);
        for reg in 4..9 {
            r.set_v(reg, |_| SENTINEL);
        }
        r.run(enc);
        for lane in 0..lanes(&r) {
            let want = expected(k, &mem, lane * 13 + 3);
            for (i, w) in want.iter().enumerate() {
                assert_eq!(v(&r, 4 + i, lane), *w, "{p:?} {k:?} lane {lane} dword {i}");
            }
            assert_eq!(v(&r, 4 + want.len(), lane), SENTINEL, "{p:?} {k:?} wrote past its size");
        }
        assert_eq!(fidelity(&r, enc), Fidelity::Exact);
    }
}

/// Store v8.. to base + lane*17 + 1; memory starts as 0xee.
fn check_stores(p: Processor, w64: bool, table: &[(&[u8], K)]) {
    for &(enc, k) in table {
        let mut r = rig(p, w64);
        let base = alloc(&mut r, "buf", vec![0xee; 2048]);
        set_v64(&mut r, 2, |l| base + l as u64 * 17 + 1);
        for reg in 8..12 {
            r.set_v(reg, |l| 0x0102_0304u32.wrapping_mul(l as u32 + 1).wrapping_add(reg as u32 * 0x1111_1111));
        }
        r.run(enc);
        let mut want = vec![0xee; 2048];
        for lane in 0..lanes(&r) {
            let data: Vec<u8> = (8..12).flat_map(|reg| v(&r, reg, lane).to_le_bytes()).collect();
            let at = lane * 17 + 1;
            want[at..at + bytes_of(k)].copy_from_slice(&data[..bytes_of(k)]);
        }
        assert_eq!(bytes(&r, "buf"), want, "{p:?} {k:?}");
    }
}

const GFX8_FLAT_LOADS: [(&[u8], K); 8] = [
    (&[0x00, 0x00, 0x40, 0xdc, 0x02, 0x00, 0x00, 0x04], K::U8),    // flat_load_ubyte v4, v[2:3]
    (&[0x00, 0x00, 0x44, 0xdc, 0x02, 0x00, 0x00, 0x04], K::I8),    // flat_load_sbyte v4, v[2:3]
    (&[0x00, 0x00, 0x48, 0xdc, 0x02, 0x00, 0x00, 0x04], K::U16),   // flat_load_ushort v4, v[2:3]
    (&[0x00, 0x00, 0x4c, 0xdc, 0x02, 0x00, 0x00, 0x04], K::I16),   // flat_load_sshort v4, v[2:3]
    (&[0x00, 0x00, 0x50, 0xdc, 0x02, 0x00, 0x00, 0x04], K::Dw(1)), // flat_load_dword v4, v[2:3]
    (&[0x00, 0x00, 0x54, 0xdc, 0x02, 0x00, 0x00, 0x04], K::Dw(2)), // flat_load_dwordx2 v[4:5], v[2:3]
    (&[0x00, 0x00, 0x58, 0xdc, 0x02, 0x00, 0x00, 0x04], K::Dw(3)), // flat_load_dwordx3 v[4:6], v[2:3]
    (&[0x00, 0x00, 0x5c, 0xdc, 0x02, 0x00, 0x00, 0x04], K::Dw(4)), // flat_load_dwordx4 v[4:7], v[2:3]
];

const GFX8_FLAT_STORES: [(&[u8], K); 6] = [
    (&[0x00, 0x00, 0x60, 0xdc, 0x02, 0x08, 0x00, 0x00], K::U8),    // flat_store_byte v[2:3], v8
    (&[0x00, 0x00, 0x68, 0xdc, 0x02, 0x08, 0x00, 0x00], K::U16),   // flat_store_short v[2:3], v8
    (&[0x00, 0x00, 0x70, 0xdc, 0x02, 0x08, 0x00, 0x00], K::Dw(1)), // flat_store_dword v[2:3], v8
    (&[0x00, 0x00, 0x74, 0xdc, 0x02, 0x08, 0x00, 0x00], K::Dw(2)), // flat_store_dwordx2 v[2:3], v[8:9]
    (&[0x00, 0x00, 0x78, 0xdc, 0x02, 0x08, 0x00, 0x00], K::Dw(3)), // flat_store_dwordx3 v[2:3], v[8:10]
    (&[0x00, 0x00, 0x7c, 0xdc, 0x02, 0x08, 0x00, 0x00], K::Dw(4)), // flat_store_dwordx4 v[2:3], v[8:11]
];

/// gfx908, gfx90a and gfx942 share these encodings.
const GFX9_LOADS: [(&[u8], K); 8] = [
    (&[0x00, 0x80, 0x40, 0xdc, 0x02, 0x00, 0x7f, 0x04], K::U8),    // global_load_ubyte v4, v[2:3], off
    (&[0x00, 0x80, 0x44, 0xdc, 0x02, 0x00, 0x7f, 0x04], K::I8),    // global_load_sbyte v4, v[2:3], off
    (&[0x00, 0x80, 0x48, 0xdc, 0x02, 0x00, 0x7f, 0x04], K::U16),   // global_load_ushort v4, v[2:3], off
    (&[0x00, 0x80, 0x4c, 0xdc, 0x02, 0x00, 0x7f, 0x04], K::I16),   // global_load_sshort v4, v[2:3], off
    (&[0x00, 0x80, 0x50, 0xdc, 0x02, 0x00, 0x7f, 0x04], K::Dw(1)), // global_load_dword v4, v[2:3], off
    (&[0x00, 0x80, 0x54, 0xdc, 0x02, 0x00, 0x7f, 0x04], K::Dw(2)), // global_load_dwordx2 v[4:5], v[2:3], off
    (&[0x00, 0x80, 0x58, 0xdc, 0x02, 0x00, 0x7f, 0x04], K::Dw(3)), // global_load_dwordx3 v[4:6], v[2:3], off
    (&[0x00, 0x80, 0x5c, 0xdc, 0x02, 0x00, 0x7f, 0x04], K::Dw(4)), // global_load_dwordx4 v[4:7], v[2:3], off
];

const GFX9_STORES: [(&[u8], K); 6] = [
    (&[0x00, 0x80, 0x60, 0xdc, 0x02, 0x08, 0x7f, 0x00], K::U8),    // global_store_byte v[2:3], v8, off
    (&[0x00, 0x80, 0x68, 0xdc, 0x02, 0x08, 0x7f, 0x00], K::U16),   // global_store_short v[2:3], v8, off
    (&[0x00, 0x80, 0x70, 0xdc, 0x02, 0x08, 0x7f, 0x00], K::Dw(1)), // global_store_dword v[2:3], v8, off
    (&[0x00, 0x80, 0x74, 0xdc, 0x02, 0x08, 0x7f, 0x00], K::Dw(2)), // global_store_dwordx2 v[2:3], v[8:9], off
    (&[0x00, 0x80, 0x78, 0xdc, 0x02, 0x08, 0x7f, 0x00], K::Dw(3)), // global_store_dwordx3 v[2:3], v[8:10], off
    (&[0x00, 0x80, 0x7c, 0xdc, 0x02, 0x08, 0x7f, 0x00], K::Dw(4)), // global_store_dwordx4 v[2:3], v[8:11], off
];

const GFX10_LOADS: [(&[u8], K); 8] = [
    (&[0x00, 0x80, 0x20, 0xdc, 0x02, 0x00, 0x7d, 0x04], K::U8),    // global_load_ubyte v4, v[2:3], off
    (&[0x00, 0x80, 0x24, 0xdc, 0x02, 0x00, 0x7d, 0x04], K::I8),    // global_load_sbyte v4, v[2:3], off
    (&[0x00, 0x80, 0x28, 0xdc, 0x02, 0x00, 0x7d, 0x04], K::U16),   // global_load_ushort v4, v[2:3], off
    (&[0x00, 0x80, 0x2c, 0xdc, 0x02, 0x00, 0x7d, 0x04], K::I16),   // global_load_sshort v4, v[2:3], off
    (&[0x00, 0x80, 0x30, 0xdc, 0x02, 0x00, 0x7d, 0x04], K::Dw(1)), // global_load_dword v4, v[2:3], off
    (&[0x00, 0x80, 0x34, 0xdc, 0x02, 0x00, 0x7d, 0x04], K::Dw(2)), // global_load_dwordx2 v[4:5], v[2:3], off
    (&[0x00, 0x80, 0x3c, 0xdc, 0x02, 0x00, 0x7d, 0x04], K::Dw(3)), // global_load_dwordx3 v[4:6], v[2:3], off
    (&[0x00, 0x80, 0x38, 0xdc, 0x02, 0x00, 0x7d, 0x04], K::Dw(4)), // global_load_dwordx4 v[4:7], v[2:3], off
];

const GFX10_STORES: [(&[u8], K); 6] = [
    (&[0x00, 0x80, 0x60, 0xdc, 0x02, 0x08, 0x7d, 0x00], K::U8),    // global_store_byte v[2:3], v8, off
    (&[0x00, 0x80, 0x68, 0xdc, 0x02, 0x08, 0x7d, 0x00], K::U16),   // global_store_short v[2:3], v8, off
    (&[0x00, 0x80, 0x70, 0xdc, 0x02, 0x08, 0x7d, 0x00], K::Dw(1)), // global_store_dword v[2:3], v8, off
    (&[0x00, 0x80, 0x74, 0xdc, 0x02, 0x08, 0x7d, 0x00], K::Dw(2)), // global_store_dwordx2 v[2:3], v[8:9], off
    (&[0x00, 0x80, 0x7c, 0xdc, 0x02, 0x08, 0x7d, 0x00], K::Dw(3)), // global_store_dwordx3 v[2:3], v[8:10], off
    (&[0x00, 0x80, 0x78, 0xdc, 0x02, 0x08, 0x7d, 0x00], K::Dw(4)), // global_store_dwordx4 v[2:3], v[8:11], off
];

const GFX11_LOADS: [(&[u8], K); 8] = [
    (&[0x00, 0x00, 0x42, 0xdc, 0x02, 0x00, 0x7c, 0x04], K::U8),    // global_load_u8 v4, v[2:3], off
    (&[0x00, 0x00, 0x46, 0xdc, 0x02, 0x00, 0x7c, 0x04], K::I8),    // global_load_i8 v4, v[2:3], off
    (&[0x00, 0x00, 0x4a, 0xdc, 0x02, 0x00, 0x7c, 0x04], K::U16),   // global_load_u16 v4, v[2:3], off
    (&[0x00, 0x00, 0x4e, 0xdc, 0x02, 0x00, 0x7c, 0x04], K::I16),   // global_load_i16 v4, v[2:3], off
    (&[0x00, 0x00, 0x52, 0xdc, 0x02, 0x00, 0x7c, 0x04], K::Dw(1)), // global_load_b32 v4, v[2:3], off
    (&[0x00, 0x00, 0x56, 0xdc, 0x02, 0x00, 0x7c, 0x04], K::Dw(2)), // global_load_b64 v[4:5], v[2:3], off
    (&[0x00, 0x00, 0x5a, 0xdc, 0x02, 0x00, 0x7c, 0x04], K::Dw(3)), // global_load_b96 v[4:6], v[2:3], off
    (&[0x00, 0x00, 0x5e, 0xdc, 0x02, 0x00, 0x7c, 0x04], K::Dw(4)), // global_load_b128 v[4:7], v[2:3], off
];

const GFX11_STORES: [(&[u8], K); 6] = [
    (&[0x00, 0x00, 0x62, 0xdc, 0x02, 0x08, 0x7c, 0x00], K::U8),    // global_store_b8 v[2:3], v8, off
    (&[0x00, 0x00, 0x66, 0xdc, 0x02, 0x08, 0x7c, 0x00], K::U16),   // global_store_b16 v[2:3], v8, off
    (&[0x00, 0x00, 0x6a, 0xdc, 0x02, 0x08, 0x7c, 0x00], K::Dw(1)), // global_store_b32 v[2:3], v8, off
    (&[0x00, 0x00, 0x6e, 0xdc, 0x02, 0x08, 0x7c, 0x00], K::Dw(2)), // global_store_b64 v[2:3], v[8:9], off
    (&[0x00, 0x00, 0x72, 0xdc, 0x02, 0x08, 0x7c, 0x00], K::Dw(3)), // global_store_b96 v[2:3], v[8:10], off
    (&[0x00, 0x00, 0x76, 0xdc, 0x02, 0x08, 0x7c, 0x00], K::Dw(4)), // global_store_b128 v[2:3], v[8:11], off
];

const GFX12_LOADS: [(&[u8], K); 8] = [
    (&[0x7c, 0x00, 0x04, 0xee, 0x04, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00], K::U8), // global_load_u8 v4, v[2:3], off
    (&[0x7c, 0x40, 0x04, 0xee, 0x04, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00], K::I8), // global_load_i8 v4, v[2:3], off
    (&[0x7c, 0x80, 0x04, 0xee, 0x04, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00], K::U16), // global_load_u16 v4, v[2:3], off
    (&[0x7c, 0xc0, 0x04, 0xee, 0x04, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00], K::I16), // global_load_i16 v4, v[2:3], off
    (&[0x7c, 0x00, 0x05, 0xee, 0x04, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00], K::Dw(1)), // global_load_b32 v4, v[2:3], off
    (&[0x7c, 0x40, 0x05, 0xee, 0x04, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00], K::Dw(2)), // global_load_b64 v[4:5], v[2:3], off
    (&[0x7c, 0x80, 0x05, 0xee, 0x04, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00], K::Dw(3)), // global_load_b96 v[4:6], v[2:3], off
    (&[0x7c, 0xc0, 0x05, 0xee, 0x04, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00], K::Dw(4)), // global_load_b128 v[4:7], v[2:3], off
];

const GFX12_STORES: [(&[u8], K); 6] = [
    (&[0x7c, 0x00, 0x06, 0xee, 0x00, 0x00, 0x00, 0x04, 0x02, 0x00, 0x00, 0x00], K::U8), // global_store_b8 v[2:3], v8, off
    (&[0x7c, 0x40, 0x06, 0xee, 0x00, 0x00, 0x00, 0x04, 0x02, 0x00, 0x00, 0x00], K::U16), // global_store_b16 v[2:3], v8, off
    (&[0x7c, 0x80, 0x06, 0xee, 0x00, 0x00, 0x00, 0x04, 0x02, 0x00, 0x00, 0x00], K::Dw(1)), // global_store_b32 v[2:3], v8, off
    (&[0x7c, 0xc0, 0x06, 0xee, 0x00, 0x00, 0x00, 0x04, 0x02, 0x00, 0x00, 0x00], K::Dw(2)), // global_store_b64 v[2:3], v[8:9], off
    (&[0x7c, 0x00, 0x07, 0xee, 0x00, 0x00, 0x00, 0x04, 0x02, 0x00, 0x00, 0x00], K::Dw(3)), // global_store_b96 v[2:3], v[8:10], off
    (&[0x7c, 0x40, 0x07, 0xee, 0x00, 0x00, 0x00, 0x04, 0x02, 0x00, 0x00, 0x00], K::Dw(4)), // global_store_b128 v[2:3], v[8:11], off
];

#[test]
fn loads_of_every_size_and_extension() {
    check_loads(Processor::Gfx803, true, &GFX8_FLAT_LOADS);
    for p in [Processor::Gfx908, Processor::Gfx90a, Processor::Gfx942] {
        check_loads(p, true, &GFX9_LOADS);
    }
    check_loads(Processor::Gfx1030, false, &GFX10_LOADS);
    check_loads(Processor::Gfx1030, true, &GFX10_LOADS);
    check_loads(Processor::Gfx1100, false, &GFX11_LOADS);
    check_loads(Processor::Gfx1100, true, &GFX11_LOADS);
    check_loads(Processor::Gfx1201, false, &GFX12_LOADS);
}

#[test]
fn stores_of_every_size() {
    check_stores(Processor::Gfx803, true, &GFX8_FLAT_STORES);
    for p in [Processor::Gfx908, Processor::Gfx90a, Processor::Gfx942] {
        check_stores(p, true, &GFX9_STORES);
    }
    check_stores(Processor::Gfx1030, false, &GFX10_STORES);
    check_stores(Processor::Gfx1100, true, &GFX11_STORES);
    check_stores(Processor::Gfx1201, false, &GFX12_STORES);
}

/// D16 kinds: (memory bytes, signed, high half).
#[derive(Clone, Copy, Debug)]
struct D16(usize, bool, bool);

/// `keeps`: the other half stays (GFX9, RDNA) or is zeroed (gfx90a, gfx94x/950: LLVM review
/// D112635, hardware testing of `*_load_short_d16_hi`; see also `tensile_packs_two_halves_…`
/// in ds_mem.rs).
fn check_d16_loads(p: Processor, w64: bool, table: &[(&[u8], D16)], keeps: bool) {
    for &(enc, D16(n, signed, hi)) in table {
        let mut r = rig(p, w64);
        let mem = pattern(1024);
        let base = alloc(&mut r, "buf", mem.clone());
        set_v64(&mut r, 2, |l| base + l as u64 * 5 + 1);
        r.set_v(4, |l| 0x1234_5678 ^ l as u32);
        r.run(enc);
        for lane in 0..lanes(&r) {
            let at = lane * 5 + 1;
            let raw = if n == 1 { mem[at] as u32 } else { u16::from_le_bytes([mem[at], mem[at + 1]]) as u32 };
            let h = if signed { sext(raw, 8) & 0xffff } else { raw };
            let old = if keeps { 0x1234_5678 ^ lane as u32 } else { 0 };
            let want = if hi { (old & 0xffff) | h << 16 } else { (old & 0xffff_0000) | h };
            assert_eq!(v(&r, 4, lane), want, "{p:?} n={n} signed={signed} hi={hi} lane {lane}");
        }
    }
}

fn check_d16_hi_stores(p: Processor, table: &[(&[u8], usize)]) {
    for &(enc, n) in table {
        let mut r = rig(p, true);
        let base = alloc(&mut r, "buf", vec![0; 512]);
        set_v64(&mut r, 2, |l| base + l as u64 * 3);
        r.set_v(8, |l| 0xa1b2_c3d4u32.rotate_left(l as u32));
        r.run(enc);
        let m = bytes(&r, "buf");
        for lane in 0..lanes(&r) {
            let hi16 = (0xa1b2_c3d4u32.rotate_left(lane as u32) >> 16).to_le_bytes();
            assert_eq!(&m[lane * 3..lane * 3 + n], &hi16[..n], "{p:?} n={n} lane {lane}");
        }
    }
}

#[test]
fn d16_loads_write_one_half_and_keep_or_zero_the_other() {
    let gcn: [(&[u8], D16); 6] = [
        (&[0x00, 0x80, 0x80, 0xdc, 0x02, 0x00, 0x7f, 0x04], D16(1, false, false)), // global_load_ubyte_d16 v4, v[2:3], off
        (&[0x00, 0x80, 0x84, 0xdc, 0x02, 0x00, 0x7f, 0x04], D16(1, false, true)),  // global_load_ubyte_d16_hi v4, v[2:3], off
        (&[0x00, 0x80, 0x88, 0xdc, 0x02, 0x00, 0x7f, 0x04], D16(1, true, false)),  // global_load_sbyte_d16 v4, v[2:3], off
        (&[0x00, 0x80, 0x8c, 0xdc, 0x02, 0x00, 0x7f, 0x04], D16(1, true, true)),   // global_load_sbyte_d16_hi v4, v[2:3], off
        (&[0x00, 0x80, 0x90, 0xdc, 0x02, 0x00, 0x7f, 0x04], D16(2, false, false)), // global_load_short_d16 v4, v[2:3], off
        (&[0x00, 0x80, 0x94, 0xdc, 0x02, 0x00, 0x7f, 0x04], D16(2, false, true)),  // global_load_short_d16_hi v4, v[2:3], off
    ];
    check_d16_loads(Processor::Gfx908, true, &gcn, true);
    check_d16_loads(Processor::Gfx90a, true, &gcn, false);
    check_d16_loads(Processor::Gfx942, true, &gcn, false);
    let gfx10: [(&[u8], D16); 6] = [
        (&[0x00, 0x80, 0x80, 0xdc, 0x02, 0x00, 0x7d, 0x04], D16(1, false, false)), // global_load_ubyte_d16 v4, v[2:3], off
        (&[0x00, 0x80, 0x84, 0xdc, 0x02, 0x00, 0x7d, 0x04], D16(1, false, true)),  // global_load_ubyte_d16_hi v4, v[2:3], off
        (&[0x00, 0x80, 0x88, 0xdc, 0x02, 0x00, 0x7d, 0x04], D16(1, true, false)),  // global_load_sbyte_d16 v4, v[2:3], off
        (&[0x00, 0x80, 0x8c, 0xdc, 0x02, 0x00, 0x7d, 0x04], D16(1, true, true)),   // global_load_sbyte_d16_hi v4, v[2:3], off
        (&[0x00, 0x80, 0x90, 0xdc, 0x02, 0x00, 0x7d, 0x04], D16(2, false, false)), // global_load_short_d16 v4, v[2:3], off
        (&[0x00, 0x80, 0x94, 0xdc, 0x02, 0x00, 0x7d, 0x04], D16(2, false, true)),  // global_load_short_d16_hi v4, v[2:3], off
    ];
    check_d16_loads(Processor::Gfx1030, false, &gfx10, true);
    let gfx11: [(&[u8], D16); 6] = [
        (&[0x00, 0x00, 0x7a, 0xdc, 0x02, 0x00, 0x7c, 0x04], D16(1, false, false)), // global_load_d16_u8 v4, v[2:3], off
        (&[0x00, 0x00, 0x86, 0xdc, 0x02, 0x00, 0x7c, 0x04], D16(1, false, true)),  // global_load_d16_hi_u8 v4, v[2:3], off
        (&[0x00, 0x00, 0x7e, 0xdc, 0x02, 0x00, 0x7c, 0x04], D16(1, true, false)),  // global_load_d16_i8 v4, v[2:3], off
        (&[0x00, 0x00, 0x8a, 0xdc, 0x02, 0x00, 0x7c, 0x04], D16(1, true, true)),   // global_load_d16_hi_i8 v4, v[2:3], off
        (&[0x00, 0x00, 0x82, 0xdc, 0x02, 0x00, 0x7c, 0x04], D16(2, false, false)), // global_load_d16_b16 v4, v[2:3], off
        (&[0x00, 0x00, 0x8e, 0xdc, 0x02, 0x00, 0x7c, 0x04], D16(2, false, true)),  // global_load_d16_hi_b16 v4, v[2:3], off
    ];
    check_d16_loads(Processor::Gfx1100, false, &gfx11, true);
    let gfx12: [(&[u8], D16); 6] = [
        (&[0x7c, 0x80, 0x07, 0xee, 0x04, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00], D16(1, false, false)), // global_load_d16_u8 v4, v[2:3], off
        (&[0x7c, 0x40, 0x08, 0xee, 0x04, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00], D16(1, false, true)),  // global_load_d16_hi_u8 v4, v[2:3], off
        (&[0x7c, 0xc0, 0x07, 0xee, 0x04, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00], D16(1, true, false)),  // global_load_d16_i8 v4, v[2:3], off
        (&[0x7c, 0x80, 0x08, 0xee, 0x04, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00], D16(1, true, true)),   // global_load_d16_hi_i8 v4, v[2:3], off
        (&[0x7c, 0x00, 0x08, 0xee, 0x04, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00], D16(2, false, false)), // global_load_d16_b16 v4, v[2:3], off
        (&[0x7c, 0xc0, 0x08, 0xee, 0x04, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00], D16(2, false, true)),  // global_load_d16_hi_b16 v4, v[2:3], off
    ];
    check_d16_loads(Processor::Gfx1201, false, &gfx12, true);
}

#[test]
fn d16_hi_stores_take_the_high_half() {
    check_d16_hi_stores(
        Processor::Gfx90a,
        &[
            (&[0x00, 0x80, 0x64, 0xdc, 0x02, 0x08, 0x7f, 0x00], 1), // global_store_byte_d16_hi v[2:3], v8, off
            (&[0x00, 0x80, 0x6c, 0xdc, 0x02, 0x08, 0x7f, 0x00], 2), // global_store_short_d16_hi v[2:3], v8, off
        ],
    );
    check_d16_hi_stores(
        Processor::Gfx1030,
        &[
            (&[0x00, 0x80, 0x64, 0xdc, 0x02, 0x08, 0x7d, 0x00], 1), // global_store_byte_d16_hi v[2:3], v8, off
            (&[0x00, 0x80, 0x6c, 0xdc, 0x02, 0x08, 0x7d, 0x00], 2), // global_store_short_d16_hi v[2:3], v8, off
        ],
    );
    check_d16_hi_stores(
        Processor::Gfx1100,
        &[
            (&[0x00, 0x00, 0x92, 0xdc, 0x02, 0x08, 0x7c, 0x00], 1), // global_store_d16_hi_b8 v[2:3], v8, off
            (&[0x00, 0x00, 0x96, 0xdc, 0x02, 0x08, 0x7c, 0x00], 2), // global_store_d16_hi_b16 v[2:3], v8, off
        ],
    );
    check_d16_hi_stores(
        Processor::Gfx1201,
        &[
            (&[0x7c, 0x00, 0x09, 0xee, 0x00, 0x00, 0x00, 0x04, 0x02, 0x00, 0x00, 0x00], 1), // global_store_d16_hi_b8 v[2:3], v8, off
            (&[0x7c, 0x40, 0x09, 0xee, 0x00, 0x00, 0x00, 0x04, 0x02, 0x00, 0x00, 0x00], 2), // global_store_d16_hi_b16 v[2:3], v8, off
        ],
    );
}

/// `saddr + zext(vaddr32) + offset` and `vaddr64 + offset`, with negative offsets.
fn check_global_addressing(p: Processor, saddr_m8: &[u8], vaddr_m16: &[u8]) {
    let mut r = rig(p, true);
    let mem = pattern(4096);
    let base = alloc(&mut r, "buf", mem.clone());
    set_s64(&mut r, 4, base + 1024);
    r.set_v(2, |l| l as u32 * 4);
    r.set_v(3, |_| 0xffff_ffff); // ignored in saddr mode: vaddr is 32 bits, zero-extended
    r.run(saddr_m8); // global_load_dword v4, v2, s[4:5] offset:-8
    for lane in 0..lanes(&r) {
        assert_eq!(v(&r, 4, lane), le32(&mem, 1024 + lane * 4 - 8), "{p:?} saddr lane {lane}");
    }
    set_v64(&mut r, 2, |l| base + 64 + l as u64 * 8);
    r.run(vaddr_m16); // global_load_dword v4, v[2:3], off offset:-16
    for lane in 0..lanes(&r) {
        assert_eq!(v(&r, 4, lane), le32(&mem, 64 + lane * 8 - 16), "{p:?} vaddr lane {lane}");
    }
}

#[test]
fn global_addressing_with_saddr_vaddr_and_negative_offsets() {
    check_global_addressing(
        Processor::Gfx90a,
        &[0xf8, 0x9f, 0x50, 0xdc, 0x02, 0x00, 0x04, 0x04], // global_load_dword v4, v2, s[4:5] offset:-8
        &[0xf0, 0x9f, 0x50, 0xdc, 0x02, 0x00, 0x7f, 0x04], // global_load_dword v4, v[2:3], off offset:-16
    );
    check_global_addressing(
        Processor::Gfx1030,
        &[0xf8, 0x8f, 0x30, 0xdc, 0x02, 0x00, 0x04, 0x04], // global_load_dword v4, v2, s[4:5] offset:-8
        &[0xf0, 0x8f, 0x30, 0xdc, 0x02, 0x00, 0x7d, 0x04], // global_load_dword v4, v[2:3], off offset:-16
    );
    check_global_addressing(
        Processor::Gfx1100,
        &[0xf8, 0x1f, 0x52, 0xdc, 0x02, 0x00, 0x04, 0x04], // global_load_b32 v4, v2, s[4:5] offset:-8
        &[0xf0, 0x1f, 0x52, 0xdc, 0x02, 0x00, 0x7c, 0x04], // global_load_b32 v4, v[2:3], off offset:-16
    );
    check_global_addressing(
        Processor::Gfx1201,
        &[0x04, 0x00, 0x05, 0xee, 0x04, 0x00, 0x00, 0x00, 0x02, 0xf8, 0xff, 0xff], // global_load_b32 v4, v2, s[4:5] offset:-8
        &[0x7c, 0x00, 0x05, 0xee, 0x04, 0x00, 0x00, 0x00, 0x02, 0xf0, 0xff, 0xff], // global_load_b32 v4, v[2:3], off offset:-16
    );
}

#[test]
fn large_offsets_gfx9_and_gfx12() {
    // gfx90a: 13-bit signed offsets (+4095, -4096).
    let mut r = rig(Processor::Gfx90a, true);
    let base = alloc(&mut r, "buf", vec![0; 16384]);
    set_s64(&mut r, 4, base + 8192);
    r.set_v(2, |l| l as u32 * 4);
    r.set_v(8, |l| 1000 + l as u32);
    r.run(&[0xff, 0x8f, 0x70, 0xdc, 0x02, 0x08, 0x04, 0x00]); // global_store_dword v2, v8, s[4:5] offset:4095
    let m = bytes(&r, "buf");
    assert_eq!(le32(&m, 8192 + 4095 + 5 * 4), 1005);
    r.run(&[0x00, 0x90, 0x54, 0xdc, 0x02, 0x00, 0x04, 0x04]); // global_load_dwordx2 v[4:5], v2, s[4:5] offset:-4096
    assert_eq!(v(&r, 4, 0), 0);
    // gfx1201: 24-bit signed offsets.
    let mut r = rig(Processor::Gfx1201, false);
    let mem = pattern(300_000);
    let base = alloc(&mut r, "buf", mem.clone());
    set_s64(&mut r, 4, base + 200_000);
    r.set_v(2, |l| l as u32 * 4);
    r.run(&[0x04, 0x00, 0x05, 0xee, 0x04, 0x00, 0x00, 0x00, 0x02, 0x60, 0x79, 0xfe]); // global_load_b32 v4, v2, s[4:5] offset:-100000
    assert_eq!(v(&r, 4, 3), le32(&mem, 100_000 + 12));
    set_v64(&mut r, 2, |l| base + l as u64);
    r.run(&[0x7c, 0x00, 0x05, 0xec, 0x04, 0x00, 0x00, 0x00, 0x02, 0xa0, 0x86, 0x01]); // flat_load_b32 v4, v[2:3] offset:100000
    assert_eq!(v(&r, 4, 7), le32(&mem, 100_007));
}

#[test]
fn addtid_forms_use_saddr_plus_lane_times_four() {
    let cases: [(Processor, bool, &[u8], &[u8]); 3] = [
        (
            Processor::Gfx1030,
            false,
            &[0x10, 0x80, 0x58, 0xdc, 0x00, 0x00, 0x04, 0x04], // global_load_dword_addtid v4, s[4:5] offset:16
            &[0x10, 0x80, 0x5c, 0xdc, 0x00, 0x08, 0x04, 0x00], // global_store_dword_addtid v8, s[4:5] offset:16
        ),
        (
            Processor::Gfx1100,
            true,
            &[0x10, 0x00, 0xa2, 0xdc, 0x00, 0x00, 0x04, 0x04], // global_load_addtid_b32 v4, s[4:5] offset:16
            &[0x10, 0x00, 0xa6, 0xdc, 0x00, 0x08, 0x04, 0x00], // global_store_addtid_b32 v8, s[4:5] offset:16
        ),
        (
            Processor::Gfx1201,
            false,
            &[0x04, 0x00, 0x0a, 0xee, 0x04, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00], // global_load_addtid_b32 v4, s[4:5] offset:16
            &[0x04, 0x40, 0x0a, 0xee, 0x00, 0x00, 0x00, 0x04, 0x00, 0x10, 0x00, 0x00], // global_store_addtid_b32 v8, s[4:5] offset:16
        ),
    ];
    for (p, w64, load, store) in cases {
        let mut r = rig(p, w64);
        let mem = pattern(1024);
        let base = alloc(&mut r, "buf", mem.clone());
        set_s64(&mut r, 4, base + 32);
        r.run(load);
        for lane in 0..lanes(&r) {
            assert_eq!(v(&r, 4, lane), le32(&mem, 32 + 16 + lane * 4), "{p:?} lane {lane}");
        }
        r.set_v(8, |l| 7 * l as u32);
        r.run(store);
        let m = bytes(&r, "buf");
        for lane in 0..lanes(&r) {
            assert_eq!(le32(&m, 48 + lane * 4), 7 * lane as u32);
        }
    }
}

#[test]
fn exec_masked_lanes_neither_load_nor_store() {
    let mut r = rig(Processor::Gfx942, true);
    let mem = pattern(1024);
    let base = alloc(&mut r, "buf", mem.clone());
    set_v64(&mut r, 2, |l| base + l as u64 * 4);
    r.set_v(4, |_| SENTINEL);
    r.set_v(8, |l| !(l as u32));
    set_exec(&mut r, 0xf0f0_0000_0000_00f1);
    r.run(GFX9_LOADS[4].0); // global_load_dword v4, v[2:3], off
    r.run(GFX9_STORES[2].0); // global_store_dword v[2:3], v8, off
    let m = bytes(&r, "buf");
    for lane in 0..64 {
        let on = 0xf0f0_0000_0000_00f1u64 >> lane & 1 != 0;
        assert_eq!(v(&r, 4, lane), if on { le32(&mem, lane * 4) } else { SENTINEL }, "lane {lane}");
        assert_eq!(le32(&m, lane * 4), if on { !(lane as u32) } else { le32(&mem, lane * 4) }, "lane {lane}");
    }
}

#[test]
fn unmapped_addresses_fault_with_lane_and_address() {
    for (p, w64, enc) in [
        (Processor::Gfx90a, true, GFX9_LOADS[4].0),
        (Processor::Gfx1100, false, GFX11_LOADS[4].0),
        (Processor::Gfx1201, false, GFX12_LOADS[4].0),
        (Processor::Gfx803, true, GFX8_FLAT_LOADS[4].0),
    ] {
        let mut r = rig(p, w64);
        let base = alloc(&mut r, "buf", vec![0; 256]);
        set_v64(&mut r, 2, |l| if l == 5 { base + 254 } else { base + 4 * l as u64 });
        assert_eq!(expect_mem_fault(&mut r, enc), (5, base + 254), "{p:?}");
        set_v64(&mut r, 2, |l| if l >= 9 { 0x10 } else { base });
        assert_eq!(expect_mem_fault(&mut r, enc), (9, 0x10), "{p:?}");
    }
}

/// FLAT addresses in the shared aperture go to the work-group's LDS.
#[test]
fn flat_in_the_lds_aperture_accesses_lds() {
    let cases: [(Processor, bool, &[u8], &[u8]); 4] = [
        (
            Processor::Gfx90a,
            true,
            &[0x08, 0x00, 0x50, 0xdc, 0x02, 0x00, 0x00, 0x04], // flat_load_dword v4, v[2:3] offset:8
            &[0x08, 0x00, 0x70, 0xdc, 0x02, 0x08, 0x00, 0x00], // flat_store_dword v[2:3], v8 offset:8
        ),
        (
            Processor::Gfx1030,
            false,
            &[0x08, 0x00, 0x30, 0xdc, 0x02, 0x00, 0x7d, 0x04], // flat_load_dword v4, v[2:3] offset:8
            &[0x08, 0x00, 0x70, 0xdc, 0x02, 0x08, 0x7d, 0x00], // flat_store_dword v[2:3], v8 offset:8
        ),
        (
            Processor::Gfx1100,
            true,
            &[0x08, 0x00, 0x50, 0xdc, 0x02, 0x00, 0x7c, 0x04], // flat_load_b32 v4, v[2:3] offset:8
            &[0x08, 0x00, 0x68, 0xdc, 0x02, 0x08, 0x7c, 0x00], // flat_store_b32 v[2:3], v8 offset:8
        ),
        (
            Processor::Gfx1201,
            false,
            &[0x7c, 0x00, 0x05, 0xec, 0x04, 0x00, 0x00, 0x00, 0x02, 0x08, 0x00, 0x00], // flat_load_b32 v4, v[2:3] offset:8
            &[0x7c, 0x80, 0x06, 0xec, 0x00, 0x00, 0x00, 0x04, 0x02, 0x08, 0x00, 0x00], // flat_store_b32 v[2:3], v8 offset:8
        ),
    ];
    for (p, w64, load, store) in cases {
        let mut r = rig(p, w64);
        let shared = r.env.apertures.shared_base;
        r.lds = pattern(4096);
        let lds0 = r.lds.clone();
        set_v64(&mut r, 2, |l| shared + 100 + l as u64 * 4);
        r.run(load);
        for lane in 0..lanes(&r) {
            assert_eq!(v(&r, 4, lane), le32(&lds0, 108 + lane * 4), "{p:?} lane {lane}");
        }
        r.set_v(8, |l| 0x5500 + l as u32);
        r.run(store);
        for lane in 0..lanes(&r) {
            assert_eq!(le32(&r.lds, 108 + lane * 4), 0x5500 + lane as u32);
        }
        // Past the work-group's LDS: those lanes read 0 (no fault), counted.
        r.lds = vec![0x5a; 256];
        set_v64(&mut r, 2, |l| shared + 4 * l as u64 + 200);
        let before = r.wave.lds_out_of_range.get();
        r.run(load);
        assert_eq!(v(&r, 4, 11), 0x5a5a_5a5a, "{p:?}: lane 11 reads 252..256");
        assert_eq!(v(&r, 4, 12), 0, "{p:?}: lane 12 reads past 256");
        assert_eq!(r.wave.lds_out_of_range.get() - before, lanes(&r) as u64 - 12, "{p:?}");
    }
}

#[test]
fn every_flat_and_global_encoding_of_every_target_classifies() {
    for (p, w64, table) in [
        (Processor::Gfx803, true, &GFX8_FLAT_LOADS[..]),
        (Processor::Gfx908, true, &GFX9_LOADS[..]),
        (Processor::Gfx1030, false, &GFX10_LOADS[..]),
        (Processor::Gfx1100, true, &GFX11_LOADS[..]),
        (Processor::Gfx1201, false, &GFX12_LOADS[..]),
    ] {
        let r = rig(p, w64);
        for (enc, _) in table {
            assert!(is_supported(&r, enc), "{p:?} {enc:02x?}");
        }
    }
}

/// LDS-DMA loads: each lane's (extended) dword goes to LDS at
/// `M0[17:2] * 4 + offset + lane * 4` (CDNA4 ISA §10.3:
/// `LDS_ADDR = LDSbase + LDSoffset(M0[17:2] * 4) + INST.OFFSET + ThreadID * 4`).
#[test]
fn global_load_lds_writes_one_dword_per_lane() {
    let cases: [(Processor, &[u8], bool, u64); 3] = [
        (Processor::Gfx942, &[0x10, 0x80, 0xa8, 0xdc, 0x02, 0x00, 0x7f, 0x00], false, 16), // global_load_lds_dword v[2:3], off offset:16
        (Processor::Gfx90a, &[0x00, 0xa0, 0x50, 0xdc, 0x02, 0x00, 0x7f, 0x00], false, 0),  // global_load_dword v[2:3], off lds
        (Processor::Gfx942, &[0x04, 0x80, 0x98, 0xdc, 0x02, 0x00, 0x04, 0x00], true, 4),   // global_load_lds_ubyte v2, s[4:5] offset:4
    ];
    for (p, enc, ubyte_saddr, ioff) in cases {
        let mut r = rig(p, true);
        let mem = pattern(1024);
        let base = alloc(&mut r, "buf", mem.clone());
        set_s(&mut r, SLOT_M0, 0x1_0103); // M0[17:2] * 4 = 0x10100
        r.lds = vec![0; 0x10200 + 1024];
        if ubyte_saddr {
            set_s64(&mut r, 4, base);
            r.set_v(2, |l| 3 * l as u32);
        } else {
            set_v64(&mut r, 2, |l| base + 8 * l as u64);
        }
        r.run(enc);
        for l in 0..64 {
            let at = 0x10100 + ioff as usize + 4 * l;
            let want = if ubyte_saddr { mem[3 * l + 4] as u32 } else { le32(&mem, 8 * l + ioff as usize) };
            assert_eq!(le32(&r.lds, at), want, "{p:?} lane {l}");
        }
    }
}

// global_load_dwordx2 v[4:5], v[2:3], off / global_store_dwordx2 v[2:3], v[8:9], off (gfx9)
const LOAD_X2: &[u8] = &[0x00, 0x80, 0x54, 0xdc, 0x02, 0x00, 0x7f, 0x04];
const STORE_X2: &[u8] = &[0x00, 0x80, 0x74, 0xdc, 0x02, 0x08, 0x7f, 0x00];

/// Lanes storing to overlapping bytes: lanes apply in ascending order, each lane's dwords
/// together (the documented order of this simulator), so byte 4i ends with lane i's first
/// dword and the last dword holds the last lane's second one.
#[test]
fn overlapping_lane_stores_apply_in_lane_order() {
    let mut r = rig(Processor::Gfx942, true);
    let base = alloc(&mut r, "buf", vec![0; 1024]);
    set_v64(&mut r, 2, |l| base + 4 * l as u64);
    r.set_v(8, |l| 0x100 + l as u32);
    r.set_v(9, |l| 0x200 + l as u32);
    r.run(STORE_X2);
    let m = bytes(&r, "buf");
    for lane in 0..64 {
        assert_eq!(le32(&m, 4 * lane), 0x100 + lane as u32, "dword {lane}");
    }
    assert_eq!(le32(&m, 4 * 64), 0x200 + 63);
}

/// Lanes whose addresses lie in different allocations each reach their own allocation.
#[test]
fn lanes_spread_over_allocations_each_reach_theirs() {
    let mut r = rig(Processor::Gfx942, true);
    let (ma, mb) = (pattern(1024), pattern(1024).iter().map(|b| !b).collect::<Vec<_>>());
    let a = alloc(&mut r, "a", ma.clone());
    let b = alloc(&mut r, "b", mb.clone());
    let at = |l: usize| if l % 3 == 0 { (b, 8 * l) } else { (a, 8 * l + 4) };
    set_v64(&mut r, 2, |l| at(l).0 + at(l).1 as u64);
    r.run(LOAD_X2);
    for lane in 0..64 {
        let (base, off) = at(lane);
        let m = if base == a { &ma } else { &mb };
        assert_eq!((v(&r, 4, lane), v(&r, 5, lane)), (le32(m, off), le32(m, off + 4)), "lane {lane}");
    }
    r.set_v(8, |l| 0x5000 + l as u32);
    r.set_v(9, |l| 0x6000 + l as u32);
    r.run(STORE_X2);
    let (na, nb) = (bytes(&r, "a"), bytes(&r, "b"));
    for lane in 0..64 {
        let (base, off) = at(lane);
        let m = if base == a { &na } else { &nb };
        assert_eq!((le32(m, off), le32(m, off + 4)), (0x5000 + lane as u32, 0x6000 + lane as u32), "lane {lane}");
    }
}

/// A wide access whose last lane runs past the allocation's end faults on that lane; the
/// lanes before it have completed (the documented per-lane order).
#[test]
fn wide_store_past_the_end_faults_after_earlier_lanes() {
    let mut r = rig(Processor::Gfx942, true);
    let base = alloc(&mut r, "buf", vec![0; 8 * 64 - 4]);
    set_v64(&mut r, 2, |l| base + 8 * l as u64);
    r.set_v(8, |l| 0x100 + l as u32);
    r.set_v(9, |l| 0x200 + l as u32);
    assert_eq!(expect_mem_fault(&mut r, STORE_X2), (63, base + 8 * 63));
    let m = bytes(&r, "buf");
    assert_eq!((le32(&m, 8 * 62), le32(&m, 8 * 62 + 4)), (0x100 + 62, 0x200 + 62));
}

/// A wide load with a lane past the allocation's end, or one unmapped, faults on that lane;
/// the lanes before it have loaded and the lanes from it on keep their registers (the
/// documented per-lane order, as for stores above).
#[test]
fn wide_load_faults_after_earlier_lanes() {
    let mut r = rig(Processor::Gfx942, true);
    let m = pattern(8 * 64 - 4);
    let base = alloc(&mut r, "buf", m.clone());
    for (bad, at) in [(63, base + 8 * 63), (40, 0x10)] {
        set_v64(&mut r, 2, |l| if l == bad { at } else { base + 8 * l as u64 });
        r.set_v(4, |_| SENTINEL);
        r.set_v(5, |_| SENTINEL);
        assert_eq!(expect_mem_fault(&mut r, LOAD_X2), (bad as u32, at));
        for lane in 0..64 {
            let want = if lane < bad { (le32(&m, 8 * lane), le32(&m, 8 * lane + 4)) } else { (SENTINEL, SENTINEL) };
            assert_eq!((v(&r, 4, lane), v(&r, 5, lane)), want, "fault at {bad}, lane {lane}");
        }
    }
}
