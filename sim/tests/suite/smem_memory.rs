//! Scalar memory: loads, buffer loads with range checking, GFX9 scalar stores and atomics,
//! time counters, cache maintenance, faults (ISA manuals, "Scalar Memory Operations").
//! Encodings from `llvm-mc-19 -show-encoding`; expected values follow the memory contents the
//! test writes.

use hipscope_isa::Processor;
use hipscope_sim::exec::{Fidelity, Flow};
use hipscope_sim::testing::Rig;
use hipscope_sim::{FaultKind, MemoryKind};

fn set64(r: &mut Rig, i: usize, v: u64) {
    r.wave.sreg[i] = v as u32;
    r.wave.sreg[i + 1] = (v >> 32) as u32;
}

/// A rig with 64 bytes of memory holding dword i = 0x1000 + i at base, s[2:3] = base.
fn rig(p: Processor) -> (Rig, u64) {
    let mut r = Rig::new(p, !p.family().is_rdna());
    let data: Vec<u8> = (0..16u32).flat_map(|i| (0x1000 + i).to_le_bytes()).collect();
    let base = r.mem.alloc_init("buf", data, MemoryKind::Device);
    set64(&mut r, 2, base);
    (r, base)
}

/// s[8:11] = buffer resource with `records` and `stride`.
fn resource(r: &mut Rig, base: u64, stride: u32, records: u32) {
    r.wave.sreg[8] = base as u32;
    r.wave.sreg[9] = (base >> 32) as u32 & 0xffff | stride << 16;
    r.wave.sreg[10] = records;
    r.wave.sreg[11] = 0x0002_7fac; // format bits the scalar unit ignores
}

#[test]
fn loads_add_the_offsets_and_ignore_the_low_address_bits() {
    let (mut r, base) = rig(Processor::Gfx900);
    r.run(&[0x41, 0x00, 0x02, 0xc0, 0x08, 0x00, 0x00, 0x00]); // s_load_dword s1, s[2:3], 0x8
    assert_eq!(r.wave.sreg[1], 0x1002);
    r.run(&[0x01, 0x01, 0x0a, 0xc0, 0x10, 0x00, 0x00, 0x00]); // s_load_dwordx4 s[4:7], s[2:3], 0x10
    assert_eq!(r.wave.sreg[4..8], [0x1004, 0x1005, 0x1006, 0x1007]);
    r.wave.sreg[8] = 0x20;
    r.run(&[0x01, 0x41, 0x06, 0xc0, 0x04, 0x00, 0x00, 0x10]); // s_load_dwordx2 s[4:5], s[2:3], s8 offset:0x4
    assert_eq!(r.wave.sreg[4..6], [0x1009, 0x100a]);
    r.run(&[0x41, 0x00, 0x02, 0xc0, 0x06, 0x00, 0x00, 0x00]); // s_load_dword s1, s[2:3], 0x6
    assert_eq!(r.wave.sreg[1], 0x1001, "address 6 reads the dword at 4");
    // GFX9 offsets are signed 21-bit.
    set64(&mut r, 2, base + 8);
    r.run(&[0x41, 0x00, 0x02, 0xc0, 0xfc, 0xff, 0x1f, 0x00]); // s_load_dword s1, s[2:3], -0x4
    assert_eq!(r.wave.sreg[1], 0x1001);
}

#[test]
fn gfx8_unsigned_offset_and_sgpr_offset() {
    let (mut r, base) = rig(Processor::Gfx803);
    r.wave.sreg[4] = 0x3c;
    r.run(&[0x41, 0x00, 0x00, 0xc0, 0x04, 0x00, 0x00, 0x00]); // s_load_dword s1, s[2:3], s4
    assert_eq!(r.wave.sreg[1], 0x100f);
    // The 20-bit offset is unsigned: 0xfffff from base - 0xfffff + 0xc lands at dword 3.
    set64(&mut r, 2, base + 0xc - 0xfffff);
    r.run(&[0x41, 0x00, 0x02, 0xc0, 0xff, 0xff, 0x0f, 0x00]); // s_load_dword s1, s[2:3], 0xfffff
    assert_eq!(r.wave.sreg[1], 0x1003);
}

#[test]
fn rdna_loads() {
    let (mut r, _) = rig(Processor::Gfx1030);
    r.run(&[0x41, 0x00, 0x00, 0xf4, 0x10, 0x00, 0x00, 0xfa]); // s_load_dword s1, s[2:3], null offset:0x10
    assert_eq!(r.wave.sreg[1], 0x1004);
    let (mut r, base) = rig(Processor::Gfx1201);
    r.run(&[0x01, 0xa1, 0x00, 0xf4, 0x04, 0x00, 0x00, 0xf8]); // s_load_b96 s[4:6], s[2:3], 0x4
    assert_eq!(r.wave.sreg[4..7], [0x1001, 0x1002, 0x1003]);
    r.wave.sreg[4] = 8;
    r.run(&[0x41, 0x00, 0x00, 0xf4, 0x04, 0x00, 0x00, 0x08]); // s_load_b32 s1, s[2:3], s4 offset:0x4
    assert_eq!(r.wave.sreg[1], 0x1003);
    r.run(&[0x01, 0x21, 0x60, 0xf4, 0x00, 0x00, 0x00, 0xf8]); // s_load_b64 s[4:5], s[2:3], 0x0 scope:SCOPE_SYS
    assert_eq!(r.wave.sreg[4..6], [0x1000, 0x1001]);
    // Byte and short loads extend into the SGPR.
    r.mem.write_u32(base + 4, 0x8081_f2f3).unwrap();
    r.run(&[0x41, 0x20, 0x01, 0xf4, 0x05, 0x00, 0x00, 0xf8]); // s_load_u8 s1, s[2:3], 0x5
    assert_eq!(r.wave.sreg[1], 0xf2);
    r.run(&[0x41, 0x00, 0x01, 0xf4, 0x05, 0x00, 0x00, 0xf8]); // s_load_i8 s1, s[2:3], 0x5
    assert_eq!(r.wave.sreg[1], 0xffff_fff2);
    r.run(&[0x41, 0x40, 0x01, 0xf4, 0x06, 0x00, 0x00, 0xf8]); // s_load_i16 s1, s[2:3], 0x6
    assert_eq!(r.wave.sreg[1], 0xffff_8081);
    r.run(&[0x41, 0x60, 0x01, 0xf4, 0x07, 0x00, 0x00, 0xf8]); // s_load_u16 s1, s[2:3], 0x7
    assert_eq!(r.wave.sreg[1], 0x8081, "short loads ignore address bit 0");
}

#[test]
fn buffer_loads_return_zero_out_of_range() {
    let (mut r, base) = rig(Processor::Gfx900);
    resource(&mut r, base, 0, 0x14); // 20 bytes: dwords 0..4
    r.run(&[0x44, 0x00, 0x22, 0xc0, 0x08, 0x00, 0x00, 0x00]); // s_buffer_load_dword s1, s[8:11], 0x8
    assert_eq!(r.wave.sreg[1], 0x1002);
    r.run(&[0x04, 0x01, 0x2a, 0xc0, 0x08, 0x00, 0x00, 0x00]); // s_buffer_load_dwordx4 s[4:7], s[8:11], 0x8
    assert_eq!(r.wave.sreg[4..8], [0x1002, 0x1003, 0x1004, 0], "each dword checked against num_records");
    r.wave.sreg[12] = 0x1000;
    r.run(&[0x04, 0x01, 0x24, 0xc0, 0x0c, 0x00, 0x00, 0x00]); // s_buffer_load_dwordx2 s[4:5], s[8:11], s12
    assert_eq!(r.wave.sreg[4..6], [0, 0], "far out of range: zeros, no fault");
    // With a stride the range is num_records * stride bytes.
    resource(&mut r, base, 8, 2);
    r.run(&[0x04, 0x01, 0x2a, 0xc0, 0x08, 0x00, 0x00, 0x00]); // s_buffer_load_dwordx4 s[4:7], s[8:11], 0x8
    assert_eq!(r.wave.sreg[4..8], [0x1002, 0x1003, 0, 0]);
    let (mut r, base) = rig(Processor::Gfx1201);
    resource(&mut r, base, 0, 16);
    r.mem.write_u32(base, 0x8000_0000).unwrap();
    r.run(&[0x44, 0x00, 0x03, 0xf4, 0x03, 0x00, 0x00, 0xf8]); // s_buffer_load_i8 s1, s[8:11], 0x3
    assert_eq!(r.wave.sreg[1], 0xffff_ff80);
}

#[test]
fn unmapped_addresses_fault() {
    let (mut r, base) = rig(Processor::Gfx900);
    set64(&mut r, 2, base + 60);
    let err = r.exec(&[0x01, 0x01, 0x0a, 0xc0, 0x00, 0x00, 0x00, 0x00]); // s_load_dwordx4 s[4:7], s[2:3], 0x0
    assert_eq!(err, Err(FaultKind::MemoryViolation { lane: 0, address: base + 64, size: 4 }));
    set64(&mut r, 2, 0x10);
    assert!(matches!(r.exec(&[0x41, 0x00, 0x42, 0xc0, 0x08, 0x00, 0x00, 0x00]), Err(FaultKind::MemoryViolation { .. }))); // s_store_dword s1, s[2:3], 0x8
                                                                                                                          // A buffer whose range covers unmapped memory faults like a plain load.
    resource(&mut r, base, 0, 0x1000);
    r.wave.sreg[12] = 0x100;
    assert!(matches!(r.exec(&[0x04, 0x01, 0x24, 0xc0, 0x0c, 0x00, 0x00, 0x00]), Err(FaultKind::MemoryViolation { .. })));
    // s_buffer_load_dwordx2 s[4:5], s[8:11], s12
}

#[test]
fn scalar_stores() {
    let (mut r, base) = rig(Processor::Gfx900);
    r.wave.sreg[1] = 0xaaaa;
    r.run(&[0x41, 0x00, 0x42, 0xc0, 0x08, 0x00, 0x00, 0x00]); // s_store_dword s1, s[2:3], 0x8
    assert_eq!(r.mem.read_u32(base + 8), Ok(0xaaaa));
    r.wave.sreg[4] = 0xbbbb;
    r.wave.sreg[5] = 0xcccc;
    r.run(&[0x01, 0x01, 0x47, 0xc0, 0x10, 0x00, 0x00, 0x00]); // s_store_dwordx2 s[4:5], s[2:3], 0x10 glc
    assert_eq!(r.mem.read_u64(base + 16), Ok(0xcccc_0000_bbbb));
    // Buffer stores drop out-of-range dwords.
    resource(&mut r, base, 0, 12);
    r.run(&[0x04, 0x01, 0x66, 0xc0, 0x08, 0x00, 0x00, 0x00]); // s_buffer_store_dwordx2 s[4:5], s[8:11], 0x8
    assert_eq!((r.mem.read_u32(base + 8), r.mem.read_u32(base + 12)), (Ok(0xbbbb), Ok(0x1003)));
}

#[test]
fn scalar_atomics() {
    let (mut r, base) = rig(Processor::Gfx900);
    r.wave.sreg[1] = 5;
    r.run(&[0x41, 0x00, 0x0b, 0xc2, 0x08, 0x00, 0x00, 0x00]); // s_atomic_add s1, s[2:3], 0x8 glc
    assert_eq!((r.wave.sreg[1], r.mem.read_u32(base + 8)), (0x1002, Ok(0x1007)), "returns the old value");
    r.wave.sreg[1] = 1;
    r.run(&[0x41, 0x00, 0x0a, 0xc2, 0x08, 0x00, 0x00, 0x00]); // s_atomic_add s1, s[2:3], 0x8
    assert_eq!((r.wave.sreg[1], r.mem.read_u32(base + 8)), (1, Ok(0x1008)), "no return without glc");
    // cmpswap: DATA[0] = new value, DATA[1] = compare value.
    r.wave.sreg[4] = 0x5555;
    r.wave.sreg[5] = 0x1008;
    r.run(&[0x01, 0x01, 0x07, 0xc2, 0x08, 0x00, 0x00, 0x00]); // s_atomic_cmpswap s[4:5], s[2:3], 0x8 glc
    assert_eq!((r.wave.sreg[4], r.mem.read_u32(base + 8)), (0x1008, Ok(0x5555)));
    r.wave.sreg[4] = 0x6666;
    r.run(&[0x01, 0x01, 0x07, 0xc2, 0x08, 0x00, 0x00, 0x00]); // s_atomic_cmpswap s[4:5], s[2:3], 0x8 glc
    assert_eq!((r.wave.sreg[4], r.mem.read_u32(base + 8)), (0x5555, Ok(0x5555)), "compare fails: unchanged");
    // 64-bit signed max: -1 loses against 0x1005_0000_1004.
    set64(&mut r, 4, u64::MAX);
    r.run(&[0x01, 0x01, 0x9b, 0xc2, 0x10, 0x00, 0x00, 0x00]); // s_atomic_smax_x2 s[4:5], s[2:3], 0x10 glc
    assert_eq!(r.mem.read_u64(base + 16), Ok(0x1005_0000_1004));
    assert_eq!(r.wave.sreg[4..6], [0x1004, 0x1005]);
    // 64-bit cmpswap: s[4:5] new, s[6:7] compare.
    set64(&mut r, 4, 0x1234_5678_9abc_def0);
    set64(&mut r, 6, 0x1005_0000_1004);
    r.run(&[0x01, 0x01, 0x87, 0xc2, 0x10, 0x00, 0x00, 0x00]); // s_atomic_cmpswap_x2 s[4:7], s[2:3], 0x10 glc
    assert_eq!(r.mem.read_u64(base + 16), Ok(0x1234_5678_9abc_def0));
    // inc wraps to 0 at the operand.
    r.wave.sreg[1] = 0x5555;
    r.run(&[0x41, 0x00, 0x2f, 0xc2, 0x08, 0x00, 0x00, 0x00]); // s_atomic_inc s1, s[2:3], 0x8 glc
    assert_eq!(r.mem.read_u32(base + 8), Ok(0));
    // Buffer atomics are range-checked.
    resource(&mut r, base, 0, 8);
    r.wave.sreg[1] = 0xf0;
    r.run(&[0x44, 0x00, 0x27, 0xc1, 0x08, 0x00, 0x00, 0x00]); // s_buffer_atomic_or s1, s[8:11], 0x8 glc
    assert_eq!((r.wave.sreg[1], r.mem.read_u32(base + 8)), (0, Ok(0)), "out of range: no effect, returns 0");
    resource(&mut r, base, 0, 12);
    r.wave.sreg[1] = 0xf0;
    r.run(&[0x44, 0x00, 0x27, 0xc1, 0x08, 0x00, 0x00, 0x00]); // s_buffer_atomic_or s1, s[8:11], 0x8 glc
    assert_eq!((r.wave.sreg[1], r.mem.read_u32(base + 8)), (0, Ok(0xf0)));
}

#[test]
fn time_counters_and_cache_maintenance() {
    let (mut r, _) = rig(Processor::Gfx900);
    r.env.clock = 0x1_0000_0002;
    r.run(&[0x00, 0x00, 0x90, 0xc0, 0x00, 0x00, 0x00, 0x00]); // s_memtime s[0:1]
    assert_eq!(r.wave.sreg[0..2], [2, 1]);
    // The real-time counter ticks at 100 MHz: 770 cycles of a 1 GHz clock are 77 ticks.
    r.env.rate = hipscope_sim::exec::clock::Rate::of_mhz(1000);
    r.env.clock = 770;
    r.run(&[0x00, 0x00, 0x94, 0xc0, 0x00, 0x00, 0x00, 0x00]); // s_memrealtime s[0:1]
    assert_eq!(r.wave.sreg[0..2], [77, 0]);
    assert!(matches!(r.classify(&[0x00, 0x00, 0x90, 0xc0, 0x00, 0x00, 0x00, 0x00]).fidelity(), Fidelity::Approximate(_)));
    for bytes in [
        &[0x00, 0x00, 0x80, 0xc0, 0x00, 0x00, 0x00, 0x00], // s_dcache_inv
        &[0x00, 0x00, 0x84, 0xc0, 0x00, 0x00, 0x00, 0x00], // s_dcache_wb
        &[0xc1, 0x01, 0x9a, 0xc0, 0x08, 0x00, 0x00, 0x00], // s_atc_probe 7, s[2:3], 0x8
    ] {
        let before = r.wave.sreg;
        assert_eq!(r.run(bytes), Flow::Next);
        assert_eq!(r.wave.sreg, before);
        assert!(matches!(r.classify(bytes).fidelity(), Fidelity::NoEffect(_)));
    }
    let (mut r, _) = rig(Processor::Gfx1030);
    assert_eq!(r.run(&[0x00, 0x00, 0x7c, 0xf4, 0x00, 0x00, 0x00, 0x00]), Flow::Next); // s_gl1_inv
    let (mut r, _) = rig(Processor::Gfx1201);
    assert_eq!(r.run(&[0x01, 0xc0, 0x04, 0xf4, 0x10, 0x00, 0x00, 0xf8]), Flow::Next);
    // s_prefetch_data s[2:3], 0x10, null, 0
}

#[test]
fn scalar_scratch_is_not_modelled() {
    let (mut r, _) = rig(Processor::Gfx900);
    let bytes = &[0x41, 0x00, 0x16, 0xc0, 0x08, 0x00, 0x00, 0x00]; // s_scratch_load_dword s1, s[2:3], 0x8
    assert!(matches!(r.exec(bytes), Err(FaultKind::Unsupported { .. })));
}
