//! GFX11 16-bit VALU half selection the LLVM 19 fake16 tables do not carry: VOP3 op_sel bits
//! [14:11] on `v_lshrrev_b16`, `v_and_b16`, `v_or_b16` (no modifier operands),
//! `v_cndmask_b16` (abs/neg only) and `v_cmp_*_i16_e64`, and VOP2 true16 encodings whose VGPR
//! fields have bit 7 set (`v_add_f16_e32 v1.h, v1.h, v4.l`), which only the real-true16 tables
//! decode. Both forms appear in clang's gfx1100 code (rocPRIM's 8-bit and half reductions).
//!
//! ISA facts (RDNA3 ISA §7.4 "16-bit Math and VGPRs", VOP3 OPSEL): op_sel[0..2] read the high
//! half of src0..src2, op_sel[3] writes the high half of the destination and keeps the low
//! half; in VOP1/VOP2/VOPC a 16-bit VGPR operand's bit 7 selects the high half. Encodings from
//! `llvm-mc-19 -triple=amdgcn -mcpu=gfx1100 -show-encoding` with the op_sel bits set by hand
//! as clang's code has them (llvm-objdump-19 prints these without op_sel); expected values are
//! computed here from those definitions.

use crate::vmem_util;

use hipscope_isa::Processor;
use hipscope_sim::testing::Rig;
use vmem_util::*;

fn setup() -> Rig {
    let mut r = rig(Processor::Gfx1100, false);
    r.set_v(1, |l| 0x1111_2222 + l as u32);
    r.set_v(3, |l| 0x3344_5566 + l as u32);
    r.set_v(4, |l| 0x7788_99aa + l as u32);
    r
}

fn lo(x: u32) -> u32 {
    x & 0xffff
}
fn hi(x: u32) -> u32 {
    x >> 16
}

/// Run `enc` and compare v1 in every lane with `f(old v1, v3, v4, lane)`.
fn check(name: &str, enc: &[u8], f: impl Fn(u32, u32, u32, usize) -> u32) {
    let mut r = setup();
    let before: Vec<[u32; 3]> = (0..32).map(|l| [v(&r, 1, l), v(&r, 3, l), v(&r, 4, l)]).collect();
    set_s(&mut r, 1, 0x5555_5555);
    r.run(enc);
    for (l, [a, b, c]) in before.into_iter().enumerate() {
        assert_eq!(v(&r, 1, l), f(a, b, c, l), "{name} lane {l}");
    }
}

#[test]
fn fake16_vop3_op_sel_selects_halves() {
    // v_lshrrev_b16 v1, 8, v4 op_sel:[0,0,1]: v1.h = v4.l >> 8, v1.l kept.
    check("lshrrev dst.h", &[0x01, 0x40, 0x39, 0xd7, 0x88, 0x08, 0x02, 0x00], |a, _, c, _| (lo(c) >> 8) << 16 | lo(a));
    // v_lshrrev_b16 v1, 8, v4 op_sel:[0,1,1]: v1.h = v4.h >> 8.
    check("lshrrev src1.h dst.h", &[0x01, 0x50, 0x39, 0xd7, 0x88, 0x08, 0x02, 0x00], |a, _, c, _| (hi(c) >> 8) << 16 | lo(a));
    // v_and_b16 v1, 0xff, v1 op_sel:[0,1,1]: v1.h = v1.h & 0xff.
    check("and src1.h dst.h", &[0x01, 0x50, 0x62, 0xd7, 0xff, 0x02, 0x02, 0x00, 0xff, 0, 0, 0], |a, _, _, _| (hi(a) & 0xff) << 16 | lo(a));
    // v_or_b16 v1, v1, v1 op_sel:[1,0,0]: v1.l = v1.h | v1.l.
    check("or src0.h", &[0x01, 0x08, 0x63, 0xd7, 0x01, 0x03, 0x02, 0x00], |a, _, _, _| a & 0xffff_0000 | (hi(a) | lo(a)));
    // v_cndmask_b16 v1, 0, v4, s1 op_sel:[0,0,1]: v1.h = s1[lane] ? v4.l : 0.
    check("cndmask dst.h", &[0x01, 0x40, 0x5d, 0xd6, 0x80, 0x08, 0x06, 0x00], |a, _, c, l| {
        let sel = if l % 2 == 0 { lo(c) } else { 0 };
        sel << 16 | lo(a)
    });
    // v_cndmask_b16 v1, v3, v4, s1 op_sel:[1,1,0]: v1.l = s1[lane] ? v4.h : v3.h.
    check("cndmask src.h", &[0x01, 0x18, 0x5d, 0xd6, 0x03, 0x09, 0x06, 0x00], |a, b, c, l| a & 0xffff_0000 | if l % 2 == 0 { hi(c) } else { hi(b) });
}

#[test]
fn fake16_vopc_e64_op_sel_reads_the_high_half() {
    // v_cmp_gt_i16_e64 s13, 0, v4 (op_sel:[0,1]): 0 > v4.h, as signed 16-bit.
    for (opsel, hi_half) in [(0u8, false), (0x10, true)] {
        let mut r = setup();
        r.set_v(4, |l| if l % 3 == 0 { 0x8001_0005 } else { 0x0005_8001 });
        r.run(&[0x0d, opsel, 0x34, 0xd4, 0x80, 0x08, 0x02, 0x00]);
        let want = (0..32).filter(|&l| {
            let x = if l % 3 == 0 { 0x8001_0005u32 } else { 0x0005_8001 };
            let h = if hi_half { hi(x) } else { lo(x) };
            0 > h as u16 as i16
        });
        assert_eq!(r.wave.sreg[13], want.fold(0u32, |m, l| m | 1 << l), "op_sel {opsel:#x}");
    }
}

#[test]
fn true16_vop2_high_half_operands_decode_and_run() {
    // v_add_f16_e32 v1.h, v1.h, v4.l: 0x65020981 (vdst 0x81, src0 0x181, vsrc1 0x04).
    let mut r = setup();
    r.set_v(1, |l| 0x3c00_2222 + l as u32); // v1.h = 1.0
    r.set_v(4, |l| 0x1234_4000 + (l as u32 & 1) * 0x200); // v4.l = 2.0 or 3.0
    r.run(&[0x81, 0x09, 0x02, 0x65]);
    for l in 0..32 {
        let sum: u32 = if l % 2 == 0 { 0x4200 } else { 0x4400 }; // 3.0, 4.0
        assert_eq!(v(&r, 1, l), sum << 16 | (0x2222 + l as u32), "lane {l}");
    }
}

#[test]
fn true16_forms_only_llvm22_decodes_run() {
    // v_cvt_f16_f32_e32 v1.h, v4: 0x7f021504 (`llvm-mc-22 -mattr=+real-true16`; LLVM 19's
    // tables reject it, clang 21's gfx1100 code has it). The f32 → f16 result goes to the high
    // half of v1; the low half is kept.
    let mut r = setup();
    r.set_v(4, |l| if l % 2 == 0 { 0x3fc0_0000 } else { 0xc080_0000 }); // 1.5, -4.0
    r.run(&[0x04, 0x15, 0x02, 0x7f]);
    for l in 0..32 {
        let half: u32 = if l % 2 == 0 { 0x3e00 } else { 0xc400 }; // 1.5, -4.0 as f16
        assert_eq!(v(&r, 1, l), half << 16 | (0x2222 + l as u32), "lane {l}");
    }
}
