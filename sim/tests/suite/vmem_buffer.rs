//! MUBUF/MTBUF: buffer resources per generation, offen/idxen/soffset/offset addressing,
//! swizzling, out-of-range rules (GCN/CDNA raw and structured; GFX10+ OOB_SELECT), unbound
//! resources, TFE, sub-dword and D16 forms, buffer atomics, typed formats (documented
//! subset), LDS-DMA, and the cache-maintenance instructions.
//!
//! Expected values follow CDNA4 ISA §9.1.5 (address formula, "Range Checking") and RDNA4 ISA
//! §9.4.1 (Table "Buffer Out Of Bounds Selection"); encodings from `llvm-mc-19`.

use crate::vmem_util;

use hipscope_isa::Processor;
use hipscope_sim::exec::{Fidelity, Flow};
use hipscope_sim::testing::Rig;
use vmem_util::*;

/// dst_sel X, Y, Z, W (4, 5, 6, 7) in bits 11:0 of dword 3.
const DST_XYZW: u32 = 4 | 5 << 3 | 6 << 6 | 7 << 9;

struct Vs {
    base: u64,
    stride: u32,
    num_records: u32,
    swizzle: bool,
    word3: u32,
}

/// GFX8/GFX9/CDNA dword 3: dst_sel, nfmt [14:12], dfmt [18:15], index stride [22:21], ADD_TID [23].
fn gcn_word3(dfmt: u32, nfmt: u32) -> u32 {
    DST_XYZW | nfmt << 12 | dfmt << 15
}

/// GFX10+ dword 3: dst_sel, format [18:12] (GFX11+: [17:12]), OOB_SELECT [29:28].
fn rdna_word3(format: u32, oob: u32) -> u32 {
    DST_XYZW | format << 12 | oob << 28
}

fn set_vsharp(r: &mut Rig, vs: &Vs, rdna11: bool) {
    set_s(r, 8, vs.base as u32);
    let swz = if !vs.swizzle {
        0
    } else if rdna11 {
        1 << 30 // SWIZZLE_ENABLE[1:0] = 1: 4-byte elements
    } else {
        1 << 31
    };
    set_s(r, 9, (vs.base >> 32) as u32 | vs.stride << 16 | swz);
    set_s(r, 10, vs.num_records);
    set_s(r, 11, vs.word3);
}

/// Raw buffer, offen + soffset + offset:4; returns (rig, memory, base).
fn raw_setup(p: Processor, w64: bool, word3: u32, nr: u32) -> (Rig, Vec<u8>, u64) {
    let mut r = rig(p, w64);
    let mem = pattern(1024);
    let base = alloc(&mut r, "buf", mem.clone());
    set_vsharp(&mut r, &Vs { base, stride: 0, num_records: nr, swizzle: false, word3 }, p.family() >= hipscope_isa::Family::Gfx11);
    set_s(&mut r, 12, 256);
    r.set_v(2, |l| 4 * l as u32);
    r.set_v(4, |_| 0x5a5a_5a5a);
    r.set_v(5, |_| 0x5a5a_5a5a);
    (r, mem, base)
}

/// Loads at offset `4 + 4*lane` past `soffset` 256; `in_range(offset, dword)` says which
/// dwords the rule keeps.
fn check_raw(p: Processor, w64: bool, word3: u32, nr: u32, x1: &[u8], x2: &[u8], in_range: impl Fn(usize) -> bool) {
    let (mut r, mem, _) = raw_setup(p, w64, word3, nr);
    r.run(x1);
    for l in 0..lanes(&r) {
        let off = 4 + 4 * l;
        let want = if in_range(off) { le32(&mem, 256 + off) } else { 0 };
        assert_eq!(v(&r, 4, l), want, "{p:?} x1 lane {l}");
    }
    r.run(x2);
    for l in 0..lanes(&r) {
        let off = 4 + 4 * l;
        for k in 0..2 {
            let want = if in_range(off + 4 * k) { le32(&mem, 256 + off + 4 * k) } else { 0 };
            assert_eq!(v(&r, 4 + k, l), want, "{p:?} x2 lane {l} dword {k}");
        }
    }
}

#[test]
fn gcn_raw_buffer_checks_offset_without_soffset() {
    // CDNA4 ISA: raw buffer out of range if inst_offset + vgpr_offset >= num_records.
    for p in [Processor::Gfx908, Processor::Gfx90a, Processor::Gfx942] {
        check_raw(
            p,
            true,
            gcn_word3(4, 4),
            64,
            &[0x04, 0x10, 0x50, 0xe0, 0x02, 0x04, 0x02, 0x0c], // buffer_load_dword v4, v2, s[8:11], s12 offen offset:4
            &[0x04, 0x10, 0x54, 0xe0, 0x02, 0x04, 0x02, 0x0c], // buffer_load_dwordx2 v[4:5], v2, s[8:11], s12 offen offset:4
            |off| off < 64,
        );
    }
}

#[test]
fn rdna_oob_select_modes() {
    let x1: &[u8] = &[0x04, 0x10, 0x30, 0xe0, 0x02, 0x04, 0x02, 0x0c]; // buffer_load_dword v4, v2, s[8:11], s12 offen offset:4
    let x2: &[u8] = &[0x04, 0x10, 0x34, 0xe0, 0x02, 0x04, 0x02, 0x0c]; // buffer_load_dwordx2 v[4:5], v2, s[8:11], s12 offen offset:4
                                                                       // OOB_SELECT 3 (raw): out if offset + payload > num_records - soffset (320 - 256 = 64).
    check_raw(Processor::Gfx1030, false, rdna_word3(20, 3), 320, x1, x2, |off| off + 4 <= 64);
    check_raw(Processor::Gfx1030, true, rdna_word3(20, 3), 320, x1, x2, |off| off + 4 <= 64);
    // OOB_SELECT 1: only index >= num_records (index 0 here): never out.
    check_raw(Processor::Gfx1030, false, rdna_word3(20, 1), 1, x1, x2, |_| true);
    // OOB_SELECT 2: out only when num_records == 0.
    check_raw(Processor::Gfx1030, false, rdna_word3(20, 2), 0, x1, x2, |_| false);
    // OOB_SELECT 0 (structured): offset + payload > stride (0 here): everything out.
    check_raw(Processor::Gfx1030, false, rdna_word3(20, 0), 1000, x1, x2, |_| false);
    check_raw(
        Processor::Gfx1100,
        false,
        rdna_word3(20, 3),
        320,
        &[0x04, 0x00, 0x50, 0xe0, 0x02, 0x04, 0x42, 0x0c], // buffer_load_b32 v4, v2, s[8:11], s12 offen offset:4
        &[0x04, 0x00, 0x54, 0xe0, 0x02, 0x04, 0x42, 0x0c], // buffer_load_b64 v[4:5], v2, s[8:11], s12 offen offset:4
        |off| off + 4 <= 64,
    );
    let (mut r, mem, _) = raw_setup(Processor::Gfx1201, false, rdna_word3(20, 3), 320);
    r.run(&[0x0c, 0x00, 0x05, 0xc4, 0x04, 0x10, 0x80, 0x40, 0x02, 0x04, 0x00, 0x00]); // buffer_load_b32 v4, v2, s[8:11], s12 offen offset:4
    assert_eq!(v(&r, 4, 14), le32(&mem, 256 + 60));
    assert_eq!(v(&r, 4, 15), 0);
}

#[test]
fn out_of_range_stores_are_dropped() {
    let (mut r, mem, _) = raw_setup(Processor::Gfx90a, true, gcn_word3(4, 4), 64);
    r.set_v(8, |l| 0x1000 + l as u32);
    r.run(&[0x04, 0x10, 0x70, 0xe0, 0x02, 0x08, 0x02, 0x0c]); // buffer_store_dword v8, v2, s[8:11], s12 offen offset:4
    let m = bytes(&r, "buf");
    for l in 0..64 {
        let at = 256 + 4 + 4 * l;
        let want = if 4 + 4 * l < 64 { 0x1000 + l as u32 } else { le32(&mem, at) };
        if at + 4 <= 1024 {
            assert_eq!(le32(&m, at), want, "lane {l}");
        }
    }
    let (mut r, mem, _) = raw_setup(Processor::Gfx1030, false, rdna_word3(20, 3), 320);
    r.set_v(8, |l| 0x2000 + l as u32);
    r.run(&[0x04, 0x10, 0x70, 0xe0, 0x02, 0x08, 0x02, 0x0c]); // buffer_store_dword v8, v2, s[8:11], s12 offen offset:4
    let m = bytes(&r, "buf");
    assert_eq!(le32(&m, 256 + 60), 0x2000 + 14);
    assert_eq!(le32(&m, 256 + 64), le32(&mem, 256 + 64));
}

#[test]
fn unbound_resources_read_zero_and_ignore_writes() {
    // Data format 0 (INVALID) without ADD_TID (RDNA3.5 ISA §9.6 "Unbound Resources").
    for (p, w64, word3, load, store) in [
        (
            Processor::Gfx90a,
            true,
            gcn_word3(0, 4),
            &[0x04, 0x10, 0x50, 0xe0, 0x02, 0x04, 0x02, 0x0c][..], // buffer_load_dword v4, v2, s[8:11], s12 offen offset:4
            &[0x04, 0x10, 0x70, 0xe0, 0x02, 0x08, 0x02, 0x0c][..], // buffer_store_dword v8, v2, s[8:11], s12 offen offset:4
        ),
        (
            Processor::Gfx1030,
            false,
            rdna_word3(0, 3),
            &[0x04, 0x10, 0x30, 0xe0, 0x02, 0x04, 0x02, 0x0c][..], // buffer_load_dword v4, v2, s[8:11], s12 offen offset:4
            &[0x04, 0x10, 0x70, 0xe0, 0x02, 0x08, 0x02, 0x0c][..], // buffer_store_dword v8, v2, s[8:11], s12 offen offset:4
        ),
    ] {
        let (mut r, mem, _) = raw_setup(p, w64, word3, 1 << 20);
        r.run(load);
        assert!((0..lanes(&r)).all(|l| v(&r, 4, l) == 0), "{p:?}");
        r.run(store);
        assert_eq!(bytes(&r, "buf"), mem, "{p:?}");
    }
}

/// Structured buffers: index from the VGPR, out of range when index >= num_records.
#[test]
fn structured_buffer_idxen_and_bothen() {
    let mut r = rig(Processor::Gfx90a, true);
    let mem = pattern(2048);
    let base = alloc(&mut r, "buf", mem.clone());
    set_vsharp(&mut r, &Vs { base, stride: 16, num_records: 10, swizzle: false, word3: gcn_word3(4, 4) }, false);
    r.set_v(2, |l| l as u32);
    r.run(&[0x04, 0x20, 0x50, 0xe0, 0x02, 0x04, 0x02, 0x80]); // buffer_load_dword v4, v2, s[8:11], 0 idxen offset:4
    for l in 0..64 {
        let want = if l < 10 { le32(&mem, 16 * l + 4) } else { 0 };
        assert_eq!(v(&r, 4, l), want, "lane {l}");
    }
    r.set_v(3, |l| 8 + (l as u32 % 2) * 4); // per-lane byte offset (second address VGPR)
    r.run(&[0x00, 0x30, 0x50, 0xe0, 0x02, 0x04, 0x02, 0x80]); // buffer_load_dword v4, v[2:3], s[8:11], 0 idxen offen
    for l in 0..10 {
        assert_eq!(v(&r, 4, l), le32(&mem, 16 * l + 8 + (l % 2) * 4), "lane {l}");
    }
    // gfx1201, OOB_SELECT 0: index >= num_records or offset + payload > stride.
    let mut r = rig(Processor::Gfx1201, false);
    let base = alloc(&mut r, "buf", mem.clone());
    set_vsharp(&mut r, &Vs { base, stride: 8, num_records: 20, swizzle: false, word3: rdna_word3(20, 0) }, true);
    r.set_v(2, |l| l as u32);
    r.run(&[0x7c, 0x00, 0x05, 0xc4, 0x04, 0x10, 0x80, 0x80, 0x02, 0x04, 0x00, 0x00]); // buffer_load_b32 v4, v2, s[8:11], null idxen offset:4
    for l in 0..32 {
        let want = if l < 20 { le32(&mem, 8 * l + 4) } else { 0 };
        assert_eq!(v(&r, 4, l), want, "gfx1201 lane {l}");
    }
}

/// Swizzled addressing: (index/IS * stride + offset/ES * ES) * IS + index%IS * ES + offset%ES.
#[test]
fn swizzled_structured_buffer() {
    let (is, es, stride) = (8usize, 4usize, 8usize);
    let swz = |index: usize, offset: usize| (index / is * stride + offset / es * es) * is + index % is * es + offset % es;
    let mut r = rig(Processor::Gfx90a, true);
    let mem = pattern(4096);
    let base = alloc(&mut r, "buf", mem.clone());
    // index stride field 0 = 8; gfx9 swizzles 4-byte elements.
    set_vsharp(&mut r, &Vs { base, stride: stride as u32, num_records: 64, swizzle: true, word3: gcn_word3(4, 4) }, false);
    r.set_v(2, |l| l as u32);
    r.run(&[0x04, 0x20, 0x50, 0xe0, 0x02, 0x04, 0x02, 0x80]); // buffer_load_dword v4, v2, s[8:11], 0 idxen offset:4
    for l in 0..64 {
        assert_eq!(v(&r, 4, l), le32(&mem, swz(l, 4)), "lane {l}");
    }
}

#[test]
fn sub_dword_and_d16_buffer_loads() {
    let mut r = rig(Processor::Gfx90a, true);
    let mem = pattern(1024);
    let base = alloc(&mut r, "buf", mem.clone());
    set_vsharp(&mut r, &Vs { base, stride: 0, num_records: 1024, swizzle: false, word3: gcn_word3(4, 4) }, false);
    r.set_v(2, |l| 3 * l as u32 + 1);
    r.run(&[0x00, 0x10, 0x40, 0xe0, 0x02, 0x04, 0x02, 0x80]); // buffer_load_ubyte v4, v2, s[8:11], 0 offen
    assert_eq!(v(&r, 4, 5), mem[16] as u32);
    r.run(&[0x00, 0x10, 0x4c, 0xe0, 0x02, 0x04, 0x02, 0x80]); // buffer_load_sshort v4, v2, s[8:11], 0 offen
    assert_eq!(v(&r, 4, 5), sext(u16::from_le_bytes([mem[16], mem[17]]) as u32, 16));
    r.set_v(4, |_| 0x0000_7777);
    r.run(&[0x00, 0x10, 0x94, 0xe0, 0x02, 0x04, 0x02, 0x80]); // buffer_load_short_d16_hi v4, v2, s[8:11], 0 offen
                                                              // gfx90a's D16 loads zero the other half (LLVM review D112635: hardware testing showed
                                                              // `*_load_short_d16_hi` does not preserve the low bits on gfx90a).
    assert_eq!(v(&r, 4, 5), (u16::from_le_bytes([mem[16], mem[17]]) as u32) << 16);
    r.set_v(4, |_| 0x7777_0000);
    r.run(&[0x00, 0x10, 0x90, 0xe0, 0x02, 0x04, 0x02, 0x80]); // buffer_load_short_d16 v4, v2, s[8:11], 0 offen
    assert_eq!(v(&r, 4, 5), u16::from_le_bytes([mem[16], mem[17]]) as u32);
    r.set_v(8, |l| 0x100 + l as u32);
    r.run(&[0x00, 0x10, 0x60, 0xe0, 0x02, 0x08, 0x02, 0x80]); // buffer_store_byte v8, v2, s[8:11], 0 offen
    let m = bytes(&r, "buf");
    assert_eq!((m[16], m[17]), (5, mem[17]));
}

#[test]
fn tfe_writes_a_zero_status_dword() {
    let (mut r, mem, _) = raw_setup(Processor::Gfx1100, false, rdna_word3(20, 3), 320);
    r.set_v(5, |_| 0xffff_ffff);
    r.run(&[0x04, 0x00, 0x50, 0xe0, 0x02, 0x04, 0x62, 0x0c]); // buffer_load_b32 v[4:5], v2, s[8:11], s12 offen offset:4 tfe
    assert_eq!(v(&r, 4, 2), le32(&mem, 256 + 12));
    assert!((0..32).all(|l| v(&r, 5, l) == 0));
}

#[test]
fn buffer_atomics_return_and_range_check() {
    let mut r = rig(Processor::Gfx90a, true);
    let base = alloc(&mut r, "buf", vec![0; 1024]);
    set_vsharp(&mut r, &Vs { base, stride: 0, num_records: 128, swizzle: false, word3: gcn_word3(4, 4) }, false);
    r.set_v(2, |l| 8 * l as u32);
    r.set_v(8, |l| l as u32 + 1);
    r.run(&[0x00, 0x50, 0x08, 0xe1, 0x02, 0x08, 0x02, 0x80]); // buffer_atomic_add v8, v2, s[8:11], 0 offen glc
    r.set_v(8, |l| l as u32 + 100);
    r.run(&[0x00, 0x50, 0x08, 0xe1, 0x02, 0x08, 0x02, 0x80]); // buffer_atomic_add v8, v2, s[8:11], 0 offen glc
    let m = bytes(&r, "buf");
    for l in 0..64 {
        let inside = 8 * l < 128;
        assert_eq!(le32(&m, 8 * l), if inside { 2 * l as u32 + 101 } else { 0 }, "lane {l}");
        assert_eq!(v(&r, 8, l), if inside { l as u32 + 1 } else { 0 }, "lane {l} return");
    }
    // cmpswap: vdata = {src, cmp}; the pre-op value returns in vdata.
    r.set_v(8, |_| 0xaaaa);
    r.set_v(9, |l| if l % 2 == 0 { 2 * l as u32 + 101 } else { 0 });
    set_exec(&mut r, 0xffff);
    r.run(&[0x00, 0x50, 0x04, 0xe1, 0x02, 0x08, 0x02, 0x80]); // buffer_atomic_cmpswap v[8:9], v2, s[8:11], 0 offen glc
    let m = bytes(&r, "buf");
    assert_eq!((le32(&m, 0), le32(&m, 8)), (0xaaaa, 103));
    assert_eq!((v(&r, 8, 0), v(&r, 8, 1)), (101, 103));
    // 64-bit, no return.
    r.set_v(8, |_| 1);
    r.set_v(9, |_| 1);
    r.run(&[0x00, 0x10, 0x88, 0xe1, 0x02, 0x08, 0x02, 0x80]); // buffer_atomic_add_x2 v[8:9], v2, s[8:11], 0 offen
    assert_eq!(le64(&bytes(&r, "buf"), 8), 103 + (1u64 << 32) + 1);
    // gfx1201: th:TH_ATOMIC_RETURN cmpswap.
    let mut r = rig(Processor::Gfx1201, false);
    let base = alloc(&mut r, "buf", vec![7; 256]);
    set_vsharp(&mut r, &Vs { base, stride: 0, num_records: 256, swizzle: false, word3: rdna_word3(20, 3) }, true);
    r.set_v(2, |l| 4 * l as u32);
    r.set_v(8, |l| l as u32);
    r.set_v(9, |l| if l < 4 { 0x0707_0707 } else { 0 });
    r.run(&[0x7c, 0x00, 0x0d, 0xc4, 0x08, 0x10, 0x90, 0x40, 0x02, 0x00, 0x00, 0x00]); // buffer_atomic_cmpswap_b32 v[8:9], v2, s[8:11], null offen th:TH_ATOMIC_RETURN
    let m = bytes(&r, "buf");
    assert_eq!((le32(&m, 12), le32(&m, 16)), (3, 0x0707_0707));
    assert_eq!(v(&r, 8, 20), 0x0707_0707);
}

#[test]
fn typed_and_format_loads_and_stores() {
    let mut r = rig(Processor::Gfx90a, true);
    let mut init = vec![0u8; 256];
    init[..8].copy_from_slice(&[255, 0, 0x00, 0x3c, 0x00, 0xc0, 9, 8]); // 0x3c00 = 1.0h, 0xc000 = -2.0h
    let base = alloc(&mut r, "buf", init);
    r.set_v(2, |_| 0);
    set_exec(&mut r, 1);
    // V# 8 UNORM: 255 -> 1.0
    set_vsharp(&mut r, &Vs { base, stride: 0, num_records: 256, swizzle: false, word3: gcn_word3(1, 0) }, false);
    r.run(&[0x00, 0x10, 0x00, 0xe0, 0x02, 0x04, 0x02, 0x80]); // buffer_load_format_x v4, v2, s[8:11], 0 offen
    assert_eq!(v(&r, 4, 0), 1.0f32.to_bits());
    // V# 8_8_8_8 UINT with dst_sel = (W, Z, 1, X)
    let sel = 7 | 6 << 3 | 1 << 6 | 4 << 9;
    set_vsharp(&mut r, &Vs { base, stride: 0, num_records: 256, swizzle: false, word3: sel | 4 << 12 | 10 << 15 }, false);
    r.run(&[0x00, 0x10, 0x0c, 0xe0, 0x02, 0x04, 0x02, 0x80]); // buffer_load_format_xyzw v[4:7], v2, s[8:11], 0 offen
    assert_eq!([v(&r, 4, 0), v(&r, 5, 0), v(&r, 6, 0), v(&r, 7, 0)], [0x3c, 0x00, 1, 255]);
    // MTBUF 16_16 FLOAT at byte 2: (1.0h, -2.0h) -> f32
    r.set_v(2, |_| 2);
    r.run(&[0x00, 0x90, 0xa8, 0xeb, 0x02, 0x04, 0x02, 0x80]); // tbuffer_load_format_xy v[4:5], v2, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_FLOAT] offen
    assert_eq!((v(&r, 4, 0), v(&r, 5, 0)), (1.0f32.to_bits(), (-2.0f32).to_bits()));
    // MTBUF store 8_8_8_8 UINT truncates each component.
    r.set_v(2, |_| 16);
    for (k, x) in [0x101u32, 2, 0x3ff, 4].into_iter().enumerate() {
        r.set_v(8 + k, |_| x);
    }
    r.run(&[0x00, 0x90, 0x53, 0xea, 0x02, 0x08, 0x02, 0x80]); // tbuffer_store_format_xyzw v[8:11], v2, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8_8_8,BUF_NUM_FORMAT_UINT] offen
    assert_eq!(&bytes(&r, "buf")[16..20], &[1, 2, 0xff, 4]);
    // D16 format: V# 16_16 UINT, packed on gfx90a, unpacked on gfx803.
    r.set_v(2, |_| 4);
    set_vsharp(&mut r, &Vs { base, stride: 0, num_records: 256, swizzle: false, word3: gcn_word3(5, 4) }, false);
    r.run(&[0x00, 0x10, 0x24, 0xe0, 0x02, 0x04, 0x02, 0x80]); // buffer_load_format_d16_xy v4, v2, s[8:11], 0 offen
    assert_eq!(v(&r, 4, 0), 0x0809_c000);
    assert!(matches!(fidelity(&r, &[0x00, 0x10, 0x24, 0xe0, 0x02, 0x04, 0x02, 0x80]), Fidelity::Approximate(_)));
    let mut r8 = rig(Processor::Gfx803, true);
    let base8 = alloc(&mut r8, "buf", bytes(&r, "buf"));
    set_vsharp(&mut r8, &Vs { base: base8, stride: 0, num_records: 256, swizzle: false, word3: gcn_word3(5, 4) }, false);
    r8.set_v(2, |_| 4);
    set_exec(&mut r8, 1);
    r8.run(&[0x00, 0x10, 0x24, 0xe0, 0x02, 0x04, 0x02, 0x80]); // buffer_load_format_d16_xy v[4:5], v2, s[8:11], 0 offen
    assert_eq!((v(&r8, 4, 0), v(&r8, 5, 0)), (0xc000, 0x0809));
    // gfx1100 unified formats: 29 = 16_16_FLOAT.
    let mut r = rig(Processor::Gfx1100, false);
    let base = alloc(&mut r, "buf", vec![0x00, 0x3c, 0x00, 0xc0, 0, 0, 0, 0]);
    set_vsharp(&mut r, &Vs { base, stride: 0, num_records: 8, swizzle: false, word3: rdna_word3(29, 3) }, true);
    r.set_v(2, |_| 0);
    set_exec(&mut r, 1);
    r.run(&[0x00, 0x80, 0xe8, 0xe8, 0x02, 0x04, 0x42, 0x80]); // tbuffer_load_format_xy v[4:5], v2, s[8:11], 0 format:[BUF_FMT_16_16_FLOAT] offen
    assert_eq!((v(&r, 4, 0), v(&r, 5, 0)), (1.0f32.to_bits(), (-2.0f32).to_bits()));
    r.run(&[0x00, 0x80, 0xec, 0xe8, 0x02, 0x04, 0x42, 0x80]); // tbuffer_load_d16_format_xy v4, v2, s[8:11], 0 format:[BUF_FMT_16_16_FLOAT] offen
    assert_eq!(v(&r, 4, 0), 0xc000_3c00);
    r.set_v(8, |_| 0.5f32.to_bits());
    r.set_v(9, |_| 3.0f32.to_bits());
    r.run(&[0x00, 0x00, 0x14, 0xe0, 0x02, 0x08, 0x42, 0x80]); // buffer_store_format_xy v[8:9], v2, s[8:11], 0 offen
    assert_eq!(&bytes(&r, "buf")[..4], &[0x00, 0x38, 0x00, 0x42]); // 0.5h = 0x3800, 3.0h = 0x4200
}

#[test]
fn buffer_load_to_lds() {
    let mut r = rig(Processor::Gfx90a, true);
    let mem = pattern(512);
    let base = alloc(&mut r, "buf", mem.clone());
    set_vsharp(&mut r, &Vs { base, stride: 0, num_records: 512, swizzle: false, word3: gcn_word3(4, 4) }, false);
    set_s(&mut r, SLOT_M0, 64);
    r.set_v(2, |l| 4 * l as u32);
    let enc = [0x00, 0x10, 0x51, 0xe0, 0x02, 0x00, 0x02, 0x80]; // buffer_load_dword v2, s[8:11], 0 offen lds
    r.run(&enc);
    for l in 0..64 {
        assert_eq!(le32(&r.lds, 64 + 4 * l), le32(&mem, 4 * l), "lane {l}");
    }
}

#[test]
fn cache_maintenance_is_accepted_without_effect() {
    let cases: [(Processor, bool, &[u8]); 14] = [
        (Processor::Gfx803, true, &[0x00, 0x00, 0xf8, 0xe0, 0x00, 0x00, 0x00, 0x00]), // buffer_wbinvl1
        (Processor::Gfx803, true, &[0x00, 0x00, 0xfc, 0xe0, 0x00, 0x00, 0x00, 0x00]), // buffer_wbinvl1_vol
        (Processor::Gfx90a, true, &[0x00, 0x00, 0xf8, 0xe0, 0x00, 0x00, 0x00, 0x00]), // buffer_wbinvl1
        (Processor::Gfx90a, true, &[0x00, 0x00, 0xfc, 0xe0, 0x00, 0x00, 0x00, 0x00]), // buffer_wbinvl1_vol
        (Processor::Gfx90a, true, &[0x00, 0x00, 0xa0, 0xe0, 0x00, 0x00, 0x00, 0x00]), // buffer_wbl2
        (Processor::Gfx90a, true, &[0x00, 0x00, 0xa4, 0xe0, 0x00, 0x00, 0x00, 0x00]), // buffer_invl2
        (Processor::Gfx942, true, &[0x00, 0xc0, 0xa0, 0xe0, 0x00, 0x00, 0x00, 0x00]), // buffer_wbl2 sc0 sc1
        (Processor::Gfx942, true, &[0x00, 0x80, 0xa4, 0xe0, 0x00, 0x00, 0x00, 0x00]), // buffer_inv sc1
        (Processor::Gfx1030, false, &[0x00, 0x00, 0xc4, 0xe1, 0x00, 0x00, 0x00, 0x00]), // buffer_gl0_inv
        (Processor::Gfx1030, false, &[0x00, 0x00, 0xc8, 0xe1, 0x00, 0x00, 0x00, 0x00]), // buffer_gl1_inv
        (Processor::Gfx1100, false, &[0x00, 0x00, 0xac, 0xe0, 0x00, 0x00, 0x00, 0x00]), // buffer_gl0_inv
        (Processor::Gfx1201, false, &[0x7c, 0xc0, 0x0a, 0xee, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00]), // global_inv scope:SCOPE_DEV
        (Processor::Gfx1201, false, &[0x7c, 0x00, 0x0b, 0xee, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00]), // global_wb scope:SCOPE_SYS
        (Processor::Gfx1201, false, &[0x7c, 0xc0, 0x13, 0xee, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00]), // global_wbinv scope:SCOPE_SE
    ];
    for (p, w64, enc) in cases {
        let mut r = rig(p, w64);
        assert!(matches!(fidelity(&r, enc), Fidelity::NoEffect(_)), "{p:?} {enc:02x?}");
        assert_eq!(r.run(enc), Flow::Next);
    }
}
