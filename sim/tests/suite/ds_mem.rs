//! LDS (DS) memory instructions: reads and writes of every size and kind, D16 halves,
//! two-address forms (offsets in element units, `st64` x64), every LDS atomic with and
//! without return (32/64-bit; compare-store operand order per generation), float atomics,
//! `addtid`, append/consume, `condxchg32`, bounds faults (GFX8 M0 clamp).
//!
//! Expected values follow the ISA pseudocode (CDNA4 ISA "LDS Instructions", RDNA4 ISA
//! §16.15): e.g. `DS_CMPST_B32: src = DATA2; cmp = DATA` ("opposite of
//! BUFFER_ATOMIC_CMPSWAP"), `DS_CMPSTORE_B32 (GFX11+): src = DATA; cmp = DATA2`,
//! `DS_MSKOR: (tmp & ~DATA) | DATA2`, `DS_RSUB: DATA - tmp`, `DS_WRAP: tmp >= DATA ? tmp -
//! DATA : tmp + DATA2`. Encodings from `llvm-mc-19 -show-encoding`; GFX10, GFX11 and GFX12
//! share the DS opcodes used here (GFX11+ spell them `ds_load_*`/`ds_store_*`).

use crate::vmem_util;

use hipscope_isa::Processor;
use hipscope_sim::exec::Fidelity;
use hipscope_sim::testing::Rig;
use vmem_util::*;

#[derive(Clone, Copy, Debug)]
enum D {
    Add,
    Sub,
    Rsub,
    Inc,
    Dec,
    SMin,
    SMax,
    UMin,
    UMax,
    And,
    Or,
    Xor,
    MskOr,
    Swap,
    CmpSt,
}

/// The ISA pseudocode; `d0`/`d1` are DATA/DATA2; `store_order`: GFX11+ `cmpstore`.
fn reference(d: D, wide: bool, old: u64, d0: u64, d1: u64, store_order: bool) -> u64 {
    let m = if wide { u64::MAX } else { 0xffff_ffff };
    let s = |x: u64| {
        if wide {
            x as i64
        } else {
            x as u32 as i32 as i64
        }
    };
    let pick = |c: bool, a: u64, b: u64| if c { a } else { b };
    let r = match d {
        D::Add => old.wrapping_add(d0),
        D::Sub => old.wrapping_sub(d0),
        D::Rsub => d0.wrapping_sub(old),
        D::Inc => pick(old >= d0, 0, old + 1),
        D::Dec => pick(old == 0 || old > d0, d0, old.wrapping_sub(1)),
        D::SMin => pick(s(d0) < s(old), d0, old),
        D::SMax => pick(s(d0) > s(old), d0, old),
        D::UMin => old.min(d0),
        D::UMax => old.max(d0),
        D::And => old & d0,
        D::Or => old | d0,
        D::Xor => old ^ d0,
        D::MskOr => (old & !d0) | d1,
        D::Swap => d0,
        D::CmpSt => {
            let (src, cmp) = if store_order { (d0, d1) } else { (d1, d0) };
            pick(old == cmp, src, old)
        }
    };
    r & m
}

const VALUES: [u64; 10] = [0, 1, 6, 0xffff_ffff, 0x8000_0000, 0x7fff_ffff, 42, 0xffff_ffff_ffff_fffe, 0x8000_0000_0000_0001, 0x1_0000_0003];

fn check_atomics(p: Processor, w64: bool, table: &[(&[u8], D, bool, bool)], store_order: bool) {
    for &(enc, d, wide, ret) in table {
        let m = if wide { u64::MAX } else { 0xffff_ffff };
        let mut r = rig(p, w64);
        set_s(&mut r, SLOT_M0, u32::MAX);
        let n = lanes(&r);
        let old = |l: usize| VALUES[l % 10] & m;
        let d0 = |l: usize| VALUES[(l * 3 + 1) % 10] & m;
        // Half the lanes compare equal (CmpSt: the compare register holds the old value).
        let d1 = |l: usize| {
            if l % 2 == 0 {
                old(l)
            } else {
                VALUES[(l + 5) % 10] & m
            }
        };
        let d0c = |l: usize| {
            if matches!(d, D::CmpSt) && !store_order {
                d1(l)
            } else {
                d0(l)
            }
        };
        let d1c = |l: usize| {
            if matches!(d, D::CmpSt) && !store_order {
                d0(l)
            } else {
                d1(l)
            }
        };
        for l in 0..n {
            put64(&mut r.lds, 16 + 8 * l, old(l) | if wide { 0 } else { 0x7777_7777_0000_0000 });
        }
        r.set_v(2, |l| 12 + 8 * l as u32); // + offset:4
        set_v64(&mut r, 8, d0c);
        set_v64(&mut r, 10, d1c);
        r.set_v(4, |_| 0xdead_beef);
        r.set_v(5, |_| 0xdead_beef);
        r.run(enc);
        for l in 0..n {
            let want = reference(d, wide, old(l), d0c(l), d1c(l), store_order);
            let got = if wide { le64(&r.lds, 16 + 8 * l) } else { le32(&r.lds, 16 + 8 * l) as u64 };
            assert_eq!(got, want, "{p:?} {d:?} wide={wide} ret={ret} lane {l}");
            if !wide {
                assert_eq!(le32(&r.lds, 20 + 8 * l), 0x7777_7777, "{p:?} {d:?} wrote past 4 bytes");
            }
            let back = v(&r, 4, l) as u64 | if wide { (v(&r, 5, l) as u64) << 32 } else { 0 };
            let none = if wide { 0xdead_beef_dead_beef } else { 0xdead_beef };
            assert_eq!(back, if ret { old(l) } else { none }, "{p:?} {d:?} wide={wide} ret={ret} lane {l} return");
        }
        assert_eq!(fidelity(&r, enc), Fidelity::Exact);
    }
}

#[rustfmt::skip]
const GFX90A_DS_ATOMICS: [(&[u8], D, bool, bool); 58] = [
    (&[0x04, 0x00, 0x40, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Add, false, true), // ds_add_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x00, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Add, false, false), // ds_add_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x42, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Sub, false, true), // ds_sub_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x02, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Sub, false, false), // ds_sub_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x44, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Rsub, false, true), // ds_rsub_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x04, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Rsub, false, false), // ds_rsub_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x46, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Inc, false, true), // ds_inc_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x06, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Inc, false, false), // ds_inc_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x48, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Dec, false, true), // ds_dec_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x08, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Dec, false, false), // ds_dec_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x4a, 0xd8, 0x02, 0x08, 0x00, 0x04], D::SMin, false, true), // ds_min_rtn_i32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x0a, 0xd8, 0x02, 0x08, 0x00, 0x00], D::SMin, false, false), // ds_min_i32 v2, v8 offset:4
    (&[0x04, 0x00, 0x4c, 0xd8, 0x02, 0x08, 0x00, 0x04], D::SMax, false, true), // ds_max_rtn_i32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x0c, 0xd8, 0x02, 0x08, 0x00, 0x00], D::SMax, false, false), // ds_max_i32 v2, v8 offset:4
    (&[0x04, 0x00, 0x4e, 0xd8, 0x02, 0x08, 0x00, 0x04], D::UMin, false, true), // ds_min_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x0e, 0xd8, 0x02, 0x08, 0x00, 0x00], D::UMin, false, false), // ds_min_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x50, 0xd8, 0x02, 0x08, 0x00, 0x04], D::UMax, false, true), // ds_max_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x10, 0xd8, 0x02, 0x08, 0x00, 0x00], D::UMax, false, false), // ds_max_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x52, 0xd8, 0x02, 0x08, 0x00, 0x04], D::And, false, true), // ds_and_rtn_b32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x12, 0xd8, 0x02, 0x08, 0x00, 0x00], D::And, false, false), // ds_and_b32 v2, v8 offset:4
    (&[0x04, 0x00, 0x54, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Or, false, true), // ds_or_rtn_b32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x14, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Or, false, false), // ds_or_b32 v2, v8 offset:4
    (&[0x04, 0x00, 0x56, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Xor, false, true), // ds_xor_rtn_b32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x16, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Xor, false, false), // ds_xor_b32 v2, v8 offset:4
    (&[0x04, 0x00, 0x58, 0xd8, 0x02, 0x08, 0x0a, 0x04], D::MskOr, false, true), // ds_mskor_rtn_b32 v4, v2, v8, v10 offset:4
    (&[0x04, 0x00, 0x18, 0xd8, 0x02, 0x08, 0x0a, 0x00], D::MskOr, false, false), // ds_mskor_b32 v2, v8, v10 offset:4
    (&[0x04, 0x00, 0x5a, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Swap, false, true), // ds_wrxchg_rtn_b32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x60, 0xd8, 0x02, 0x08, 0x0a, 0x04], D::CmpSt, false, true), // ds_cmpst_rtn_b32 v4, v2, v8, v10 offset:4
    (&[0x04, 0x00, 0x20, 0xd8, 0x02, 0x08, 0x0a, 0x00], D::CmpSt, false, false), // ds_cmpst_b32 v2, v8, v10 offset:4
    (&[0x04, 0x00, 0xc0, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Add, true, true), // ds_add_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x80, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Add, true, false), // ds_add_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xc2, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Sub, true, true), // ds_sub_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x82, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Sub, true, false), // ds_sub_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xc4, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Rsub, true, true), // ds_rsub_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x84, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Rsub, true, false), // ds_rsub_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xc6, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Inc, true, true), // ds_inc_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x86, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Inc, true, false), // ds_inc_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xc8, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Dec, true, true), // ds_dec_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x88, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Dec, true, false), // ds_dec_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xca, 0xd8, 0x02, 0x08, 0x00, 0x04], D::SMin, true, true), // ds_min_rtn_i64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x8a, 0xd8, 0x02, 0x08, 0x00, 0x00], D::SMin, true, false), // ds_min_i64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xcc, 0xd8, 0x02, 0x08, 0x00, 0x04], D::SMax, true, true), // ds_max_rtn_i64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x8c, 0xd8, 0x02, 0x08, 0x00, 0x00], D::SMax, true, false), // ds_max_i64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xce, 0xd8, 0x02, 0x08, 0x00, 0x04], D::UMin, true, true), // ds_min_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x8e, 0xd8, 0x02, 0x08, 0x00, 0x00], D::UMin, true, false), // ds_min_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xd0, 0xd8, 0x02, 0x08, 0x00, 0x04], D::UMax, true, true), // ds_max_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x90, 0xd8, 0x02, 0x08, 0x00, 0x00], D::UMax, true, false), // ds_max_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xd2, 0xd8, 0x02, 0x08, 0x00, 0x04], D::And, true, true), // ds_and_rtn_b64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x92, 0xd8, 0x02, 0x08, 0x00, 0x00], D::And, true, false), // ds_and_b64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xd4, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Or, true, true), // ds_or_rtn_b64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x94, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Or, true, false), // ds_or_b64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xd6, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Xor, true, true), // ds_xor_rtn_b64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x96, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Xor, true, false), // ds_xor_b64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xd8, 0xd8, 0x02, 0x08, 0x0a, 0x04], D::MskOr, true, true), // ds_mskor_rtn_b64 v[4:5], v2, v[8:9], v[10:11] offset:4
    (&[0x04, 0x00, 0x98, 0xd8, 0x02, 0x08, 0x0a, 0x00], D::MskOr, true, false), // ds_mskor_b64 v2, v[8:9], v[10:11] offset:4
    (&[0x04, 0x00, 0xda, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Swap, true, true), // ds_wrxchg_rtn_b64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xe0, 0xd8, 0x02, 0x08, 0x0a, 0x04], D::CmpSt, true, true), // ds_cmpst_rtn_b64 v[4:5], v2, v[8:9], v[10:11] offset:4
    (&[0x04, 0x00, 0xa0, 0xd8, 0x02, 0x08, 0x0a, 0x00], D::CmpSt, true, false), // ds_cmpst_b64 v2, v[8:9], v[10:11] offset:4
];

#[rustfmt::skip]
const GFX803_DS_ATOMICS: [(&[u8], D, bool, bool); 58] = [
    (&[0x04, 0x00, 0x40, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Add, false, true), // ds_add_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x00, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Add, false, false), // ds_add_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x42, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Sub, false, true), // ds_sub_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x02, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Sub, false, false), // ds_sub_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x44, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Rsub, false, true), // ds_rsub_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x04, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Rsub, false, false), // ds_rsub_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x46, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Inc, false, true), // ds_inc_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x06, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Inc, false, false), // ds_inc_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x48, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Dec, false, true), // ds_dec_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x08, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Dec, false, false), // ds_dec_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x4a, 0xd8, 0x02, 0x08, 0x00, 0x04], D::SMin, false, true), // ds_min_rtn_i32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x0a, 0xd8, 0x02, 0x08, 0x00, 0x00], D::SMin, false, false), // ds_min_i32 v2, v8 offset:4
    (&[0x04, 0x00, 0x4c, 0xd8, 0x02, 0x08, 0x00, 0x04], D::SMax, false, true), // ds_max_rtn_i32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x0c, 0xd8, 0x02, 0x08, 0x00, 0x00], D::SMax, false, false), // ds_max_i32 v2, v8 offset:4
    (&[0x04, 0x00, 0x4e, 0xd8, 0x02, 0x08, 0x00, 0x04], D::UMin, false, true), // ds_min_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x0e, 0xd8, 0x02, 0x08, 0x00, 0x00], D::UMin, false, false), // ds_min_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x50, 0xd8, 0x02, 0x08, 0x00, 0x04], D::UMax, false, true), // ds_max_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x10, 0xd8, 0x02, 0x08, 0x00, 0x00], D::UMax, false, false), // ds_max_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x52, 0xd8, 0x02, 0x08, 0x00, 0x04], D::And, false, true), // ds_and_rtn_b32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x12, 0xd8, 0x02, 0x08, 0x00, 0x00], D::And, false, false), // ds_and_b32 v2, v8 offset:4
    (&[0x04, 0x00, 0x54, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Or, false, true), // ds_or_rtn_b32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x14, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Or, false, false), // ds_or_b32 v2, v8 offset:4
    (&[0x04, 0x00, 0x56, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Xor, false, true), // ds_xor_rtn_b32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x16, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Xor, false, false), // ds_xor_b32 v2, v8 offset:4
    (&[0x04, 0x00, 0x58, 0xd8, 0x02, 0x08, 0x0a, 0x04], D::MskOr, false, true), // ds_mskor_rtn_b32 v4, v2, v8, v10 offset:4
    (&[0x04, 0x00, 0x18, 0xd8, 0x02, 0x08, 0x0a, 0x00], D::MskOr, false, false), // ds_mskor_b32 v2, v8, v10 offset:4
    (&[0x04, 0x00, 0x5a, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Swap, false, true), // ds_wrxchg_rtn_b32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x60, 0xd8, 0x02, 0x08, 0x0a, 0x04], D::CmpSt, false, true), // ds_cmpst_rtn_b32 v4, v2, v8, v10 offset:4
    (&[0x04, 0x00, 0x20, 0xd8, 0x02, 0x08, 0x0a, 0x00], D::CmpSt, false, false), // ds_cmpst_b32 v2, v8, v10 offset:4
    (&[0x04, 0x00, 0xc0, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Add, true, true), // ds_add_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x80, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Add, true, false), // ds_add_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xc2, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Sub, true, true), // ds_sub_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x82, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Sub, true, false), // ds_sub_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xc4, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Rsub, true, true), // ds_rsub_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x84, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Rsub, true, false), // ds_rsub_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xc6, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Inc, true, true), // ds_inc_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x86, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Inc, true, false), // ds_inc_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xc8, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Dec, true, true), // ds_dec_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x88, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Dec, true, false), // ds_dec_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xca, 0xd8, 0x02, 0x08, 0x00, 0x04], D::SMin, true, true), // ds_min_rtn_i64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x8a, 0xd8, 0x02, 0x08, 0x00, 0x00], D::SMin, true, false), // ds_min_i64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xcc, 0xd8, 0x02, 0x08, 0x00, 0x04], D::SMax, true, true), // ds_max_rtn_i64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x8c, 0xd8, 0x02, 0x08, 0x00, 0x00], D::SMax, true, false), // ds_max_i64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xce, 0xd8, 0x02, 0x08, 0x00, 0x04], D::UMin, true, true), // ds_min_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x8e, 0xd8, 0x02, 0x08, 0x00, 0x00], D::UMin, true, false), // ds_min_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xd0, 0xd8, 0x02, 0x08, 0x00, 0x04], D::UMax, true, true), // ds_max_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x90, 0xd8, 0x02, 0x08, 0x00, 0x00], D::UMax, true, false), // ds_max_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xd2, 0xd8, 0x02, 0x08, 0x00, 0x04], D::And, true, true), // ds_and_rtn_b64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x92, 0xd8, 0x02, 0x08, 0x00, 0x00], D::And, true, false), // ds_and_b64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xd4, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Or, true, true), // ds_or_rtn_b64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x94, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Or, true, false), // ds_or_b64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xd6, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Xor, true, true), // ds_xor_rtn_b64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x96, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Xor, true, false), // ds_xor_b64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xd8, 0xd8, 0x02, 0x08, 0x0a, 0x04], D::MskOr, true, true), // ds_mskor_rtn_b64 v[4:5], v2, v[8:9], v[10:11] offset:4
    (&[0x04, 0x00, 0x98, 0xd8, 0x02, 0x08, 0x0a, 0x00], D::MskOr, true, false), // ds_mskor_b64 v2, v[8:9], v[10:11] offset:4
    (&[0x04, 0x00, 0xda, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Swap, true, true), // ds_wrxchg_rtn_b64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xe0, 0xd8, 0x02, 0x08, 0x0a, 0x04], D::CmpSt, true, true), // ds_cmpst_rtn_b64 v[4:5], v2, v[8:9], v[10:11] offset:4
    (&[0x04, 0x00, 0xa0, 0xd8, 0x02, 0x08, 0x0a, 0x00], D::CmpSt, true, false), // ds_cmpst_b64 v2, v[8:9], v[10:11] offset:4
];

#[rustfmt::skip]
const GFX1030_DS_ATOMICS: [(&[u8], D, bool, bool); 58] = [
    (&[0x04, 0x00, 0x80, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Add, false, true), // ds_add_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x00, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Add, false, false), // ds_add_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x84, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Sub, false, true), // ds_sub_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x04, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Sub, false, false), // ds_sub_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x88, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Rsub, false, true), // ds_rsub_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x08, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Rsub, false, false), // ds_rsub_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x8c, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Inc, false, true), // ds_inc_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x0c, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Inc, false, false), // ds_inc_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x90, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Dec, false, true), // ds_dec_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x10, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Dec, false, false), // ds_dec_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x94, 0xd8, 0x02, 0x08, 0x00, 0x04], D::SMin, false, true), // ds_min_rtn_i32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x14, 0xd8, 0x02, 0x08, 0x00, 0x00], D::SMin, false, false), // ds_min_i32 v2, v8 offset:4
    (&[0x04, 0x00, 0x98, 0xd8, 0x02, 0x08, 0x00, 0x04], D::SMax, false, true), // ds_max_rtn_i32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x18, 0xd8, 0x02, 0x08, 0x00, 0x00], D::SMax, false, false), // ds_max_i32 v2, v8 offset:4
    (&[0x04, 0x00, 0x9c, 0xd8, 0x02, 0x08, 0x00, 0x04], D::UMin, false, true), // ds_min_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x1c, 0xd8, 0x02, 0x08, 0x00, 0x00], D::UMin, false, false), // ds_min_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0xa0, 0xd8, 0x02, 0x08, 0x00, 0x04], D::UMax, false, true), // ds_max_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x20, 0xd8, 0x02, 0x08, 0x00, 0x00], D::UMax, false, false), // ds_max_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0xa4, 0xd8, 0x02, 0x08, 0x00, 0x04], D::And, false, true), // ds_and_rtn_b32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x24, 0xd8, 0x02, 0x08, 0x00, 0x00], D::And, false, false), // ds_and_b32 v2, v8 offset:4
    (&[0x04, 0x00, 0xa8, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Or, false, true), // ds_or_rtn_b32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x28, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Or, false, false), // ds_or_b32 v2, v8 offset:4
    (&[0x04, 0x00, 0xac, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Xor, false, true), // ds_xor_rtn_b32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x2c, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Xor, false, false), // ds_xor_b32 v2, v8 offset:4
    (&[0x04, 0x00, 0xb0, 0xd8, 0x02, 0x08, 0x0a, 0x04], D::MskOr, false, true), // ds_mskor_rtn_b32 v4, v2, v8, v10 offset:4
    (&[0x04, 0x00, 0x30, 0xd8, 0x02, 0x08, 0x0a, 0x00], D::MskOr, false, false), // ds_mskor_b32 v2, v8, v10 offset:4
    (&[0x04, 0x00, 0xb4, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Swap, false, true), // ds_wrxchg_rtn_b32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0xc0, 0xd8, 0x02, 0x08, 0x0a, 0x04], D::CmpSt, false, true), // ds_cmpst_rtn_b32 v4, v2, v8, v10 offset:4
    (&[0x04, 0x00, 0x40, 0xd8, 0x02, 0x08, 0x0a, 0x00], D::CmpSt, false, false), // ds_cmpst_b32 v2, v8, v10 offset:4
    (&[0x04, 0x00, 0x80, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Add, true, true), // ds_add_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x00, 0xd9, 0x02, 0x08, 0x00, 0x00], D::Add, true, false), // ds_add_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x84, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Sub, true, true), // ds_sub_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x04, 0xd9, 0x02, 0x08, 0x00, 0x00], D::Sub, true, false), // ds_sub_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x88, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Rsub, true, true), // ds_rsub_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x08, 0xd9, 0x02, 0x08, 0x00, 0x00], D::Rsub, true, false), // ds_rsub_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x8c, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Inc, true, true), // ds_inc_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x0c, 0xd9, 0x02, 0x08, 0x00, 0x00], D::Inc, true, false), // ds_inc_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x90, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Dec, true, true), // ds_dec_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x10, 0xd9, 0x02, 0x08, 0x00, 0x00], D::Dec, true, false), // ds_dec_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x94, 0xd9, 0x02, 0x08, 0x00, 0x04], D::SMin, true, true), // ds_min_rtn_i64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x14, 0xd9, 0x02, 0x08, 0x00, 0x00], D::SMin, true, false), // ds_min_i64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x98, 0xd9, 0x02, 0x08, 0x00, 0x04], D::SMax, true, true), // ds_max_rtn_i64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x18, 0xd9, 0x02, 0x08, 0x00, 0x00], D::SMax, true, false), // ds_max_i64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x9c, 0xd9, 0x02, 0x08, 0x00, 0x04], D::UMin, true, true), // ds_min_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x1c, 0xd9, 0x02, 0x08, 0x00, 0x00], D::UMin, true, false), // ds_min_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xa0, 0xd9, 0x02, 0x08, 0x00, 0x04], D::UMax, true, true), // ds_max_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x20, 0xd9, 0x02, 0x08, 0x00, 0x00], D::UMax, true, false), // ds_max_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xa4, 0xd9, 0x02, 0x08, 0x00, 0x04], D::And, true, true), // ds_and_rtn_b64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x24, 0xd9, 0x02, 0x08, 0x00, 0x00], D::And, true, false), // ds_and_b64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xa8, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Or, true, true), // ds_or_rtn_b64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x28, 0xd9, 0x02, 0x08, 0x00, 0x00], D::Or, true, false), // ds_or_b64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xac, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Xor, true, true), // ds_xor_rtn_b64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x2c, 0xd9, 0x02, 0x08, 0x00, 0x00], D::Xor, true, false), // ds_xor_b64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xb0, 0xd9, 0x02, 0x08, 0x0a, 0x04], D::MskOr, true, true), // ds_mskor_rtn_b64 v[4:5], v2, v[8:9], v[10:11] offset:4
    (&[0x04, 0x00, 0x30, 0xd9, 0x02, 0x08, 0x0a, 0x00], D::MskOr, true, false), // ds_mskor_b64 v2, v[8:9], v[10:11] offset:4
    (&[0x04, 0x00, 0xb4, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Swap, true, true), // ds_wrxchg_rtn_b64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xc0, 0xd9, 0x02, 0x08, 0x0a, 0x04], D::CmpSt, true, true), // ds_cmpst_rtn_b64 v[4:5], v2, v[8:9], v[10:11] offset:4
    (&[0x04, 0x00, 0x40, 0xd9, 0x02, 0x08, 0x0a, 0x00], D::CmpSt, true, false), // ds_cmpst_b64 v2, v[8:9], v[10:11] offset:4
];

#[rustfmt::skip]
const GFX1100_DS_ATOMICS: [(&[u8], D, bool, bool); 58] = [
    (&[0x04, 0x00, 0x80, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Add, false, true), // ds_add_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x00, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Add, false, false), // ds_add_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x84, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Sub, false, true), // ds_sub_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x04, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Sub, false, false), // ds_sub_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x88, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Rsub, false, true), // ds_rsub_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x08, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Rsub, false, false), // ds_rsub_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x8c, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Inc, false, true), // ds_inc_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x0c, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Inc, false, false), // ds_inc_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x90, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Dec, false, true), // ds_dec_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x10, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Dec, false, false), // ds_dec_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x94, 0xd8, 0x02, 0x08, 0x00, 0x04], D::SMin, false, true), // ds_min_rtn_i32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x14, 0xd8, 0x02, 0x08, 0x00, 0x00], D::SMin, false, false), // ds_min_i32 v2, v8 offset:4
    (&[0x04, 0x00, 0x98, 0xd8, 0x02, 0x08, 0x00, 0x04], D::SMax, false, true), // ds_max_rtn_i32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x18, 0xd8, 0x02, 0x08, 0x00, 0x00], D::SMax, false, false), // ds_max_i32 v2, v8 offset:4
    (&[0x04, 0x00, 0x9c, 0xd8, 0x02, 0x08, 0x00, 0x04], D::UMin, false, true), // ds_min_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x1c, 0xd8, 0x02, 0x08, 0x00, 0x00], D::UMin, false, false), // ds_min_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0xa0, 0xd8, 0x02, 0x08, 0x00, 0x04], D::UMax, false, true), // ds_max_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x20, 0xd8, 0x02, 0x08, 0x00, 0x00], D::UMax, false, false), // ds_max_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0xa4, 0xd8, 0x02, 0x08, 0x00, 0x04], D::And, false, true), // ds_and_rtn_b32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x24, 0xd8, 0x02, 0x08, 0x00, 0x00], D::And, false, false), // ds_and_b32 v2, v8 offset:4
    (&[0x04, 0x00, 0xa8, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Or, false, true), // ds_or_rtn_b32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x28, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Or, false, false), // ds_or_b32 v2, v8 offset:4
    (&[0x04, 0x00, 0xac, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Xor, false, true), // ds_xor_rtn_b32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x2c, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Xor, false, false), // ds_xor_b32 v2, v8 offset:4
    (&[0x04, 0x00, 0xb0, 0xd8, 0x02, 0x08, 0x0a, 0x04], D::MskOr, false, true), // ds_mskor_rtn_b32 v4, v2, v8, v10 offset:4
    (&[0x04, 0x00, 0x30, 0xd8, 0x02, 0x08, 0x0a, 0x00], D::MskOr, false, false), // ds_mskor_b32 v2, v8, v10 offset:4
    (&[0x04, 0x00, 0xb4, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Swap, false, true), // ds_storexchg_rtn_b32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0xc0, 0xd8, 0x02, 0x08, 0x0a, 0x04], D::CmpSt, false, true), // ds_cmpstore_rtn_b32 v4, v2, v8, v10 offset:4
    (&[0x04, 0x00, 0x40, 0xd8, 0x02, 0x08, 0x0a, 0x00], D::CmpSt, false, false), // ds_cmpstore_b32 v2, v8, v10 offset:4
    (&[0x04, 0x00, 0x80, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Add, true, true), // ds_add_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x00, 0xd9, 0x02, 0x08, 0x00, 0x00], D::Add, true, false), // ds_add_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x84, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Sub, true, true), // ds_sub_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x04, 0xd9, 0x02, 0x08, 0x00, 0x00], D::Sub, true, false), // ds_sub_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x88, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Rsub, true, true), // ds_rsub_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x08, 0xd9, 0x02, 0x08, 0x00, 0x00], D::Rsub, true, false), // ds_rsub_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x8c, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Inc, true, true), // ds_inc_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x0c, 0xd9, 0x02, 0x08, 0x00, 0x00], D::Inc, true, false), // ds_inc_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x90, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Dec, true, true), // ds_dec_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x10, 0xd9, 0x02, 0x08, 0x00, 0x00], D::Dec, true, false), // ds_dec_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x94, 0xd9, 0x02, 0x08, 0x00, 0x04], D::SMin, true, true), // ds_min_rtn_i64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x14, 0xd9, 0x02, 0x08, 0x00, 0x00], D::SMin, true, false), // ds_min_i64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x98, 0xd9, 0x02, 0x08, 0x00, 0x04], D::SMax, true, true), // ds_max_rtn_i64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x18, 0xd9, 0x02, 0x08, 0x00, 0x00], D::SMax, true, false), // ds_max_i64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x9c, 0xd9, 0x02, 0x08, 0x00, 0x04], D::UMin, true, true), // ds_min_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x1c, 0xd9, 0x02, 0x08, 0x00, 0x00], D::UMin, true, false), // ds_min_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xa0, 0xd9, 0x02, 0x08, 0x00, 0x04], D::UMax, true, true), // ds_max_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x20, 0xd9, 0x02, 0x08, 0x00, 0x00], D::UMax, true, false), // ds_max_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xa4, 0xd9, 0x02, 0x08, 0x00, 0x04], D::And, true, true), // ds_and_rtn_b64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x24, 0xd9, 0x02, 0x08, 0x00, 0x00], D::And, true, false), // ds_and_b64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xa8, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Or, true, true), // ds_or_rtn_b64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x28, 0xd9, 0x02, 0x08, 0x00, 0x00], D::Or, true, false), // ds_or_b64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xac, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Xor, true, true), // ds_xor_rtn_b64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x2c, 0xd9, 0x02, 0x08, 0x00, 0x00], D::Xor, true, false), // ds_xor_b64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xb0, 0xd9, 0x02, 0x08, 0x0a, 0x04], D::MskOr, true, true), // ds_mskor_rtn_b64 v[4:5], v2, v[8:9], v[10:11] offset:4
    (&[0x04, 0x00, 0x30, 0xd9, 0x02, 0x08, 0x0a, 0x00], D::MskOr, true, false), // ds_mskor_b64 v2, v[8:9], v[10:11] offset:4
    (&[0x04, 0x00, 0xb4, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Swap, true, true), // ds_storexchg_rtn_b64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xc0, 0xd9, 0x02, 0x08, 0x0a, 0x04], D::CmpSt, true, true), // ds_cmpstore_rtn_b64 v[4:5], v2, v[8:9], v[10:11] offset:4
    (&[0x04, 0x00, 0x40, 0xd9, 0x02, 0x08, 0x0a, 0x00], D::CmpSt, true, false), // ds_cmpstore_b64 v2, v[8:9], v[10:11] offset:4
];

#[rustfmt::skip]
const GFX1201_DS_ATOMICS: [(&[u8], D, bool, bool); 58] = [
    (&[0x04, 0x00, 0x80, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Add, false, true), // ds_add_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x00, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Add, false, false), // ds_add_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x84, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Sub, false, true), // ds_sub_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x04, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Sub, false, false), // ds_sub_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x88, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Rsub, false, true), // ds_rsub_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x08, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Rsub, false, false), // ds_rsub_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x8c, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Inc, false, true), // ds_inc_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x0c, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Inc, false, false), // ds_inc_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x90, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Dec, false, true), // ds_dec_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x10, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Dec, false, false), // ds_dec_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0x94, 0xd8, 0x02, 0x08, 0x00, 0x04], D::SMin, false, true), // ds_min_rtn_i32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x14, 0xd8, 0x02, 0x08, 0x00, 0x00], D::SMin, false, false), // ds_min_i32 v2, v8 offset:4
    (&[0x04, 0x00, 0x98, 0xd8, 0x02, 0x08, 0x00, 0x04], D::SMax, false, true), // ds_max_rtn_i32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x18, 0xd8, 0x02, 0x08, 0x00, 0x00], D::SMax, false, false), // ds_max_i32 v2, v8 offset:4
    (&[0x04, 0x00, 0x9c, 0xd8, 0x02, 0x08, 0x00, 0x04], D::UMin, false, true), // ds_min_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x1c, 0xd8, 0x02, 0x08, 0x00, 0x00], D::UMin, false, false), // ds_min_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0xa0, 0xd8, 0x02, 0x08, 0x00, 0x04], D::UMax, false, true), // ds_max_rtn_u32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x20, 0xd8, 0x02, 0x08, 0x00, 0x00], D::UMax, false, false), // ds_max_u32 v2, v8 offset:4
    (&[0x04, 0x00, 0xa4, 0xd8, 0x02, 0x08, 0x00, 0x04], D::And, false, true), // ds_and_rtn_b32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x24, 0xd8, 0x02, 0x08, 0x00, 0x00], D::And, false, false), // ds_and_b32 v2, v8 offset:4
    (&[0x04, 0x00, 0xa8, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Or, false, true), // ds_or_rtn_b32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x28, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Or, false, false), // ds_or_b32 v2, v8 offset:4
    (&[0x04, 0x00, 0xac, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Xor, false, true), // ds_xor_rtn_b32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0x2c, 0xd8, 0x02, 0x08, 0x00, 0x00], D::Xor, false, false), // ds_xor_b32 v2, v8 offset:4
    (&[0x04, 0x00, 0xb0, 0xd8, 0x02, 0x08, 0x0a, 0x04], D::MskOr, false, true), // ds_mskor_rtn_b32 v4, v2, v8, v10 offset:4
    (&[0x04, 0x00, 0x30, 0xd8, 0x02, 0x08, 0x0a, 0x00], D::MskOr, false, false), // ds_mskor_b32 v2, v8, v10 offset:4
    (&[0x04, 0x00, 0xb4, 0xd8, 0x02, 0x08, 0x00, 0x04], D::Swap, false, true), // ds_storexchg_rtn_b32 v4, v2, v8 offset:4
    (&[0x04, 0x00, 0xc0, 0xd8, 0x02, 0x08, 0x0a, 0x04], D::CmpSt, false, true), // ds_cmpstore_rtn_b32 v4, v2, v8, v10 offset:4
    (&[0x04, 0x00, 0x40, 0xd8, 0x02, 0x08, 0x0a, 0x00], D::CmpSt, false, false), // ds_cmpstore_b32 v2, v8, v10 offset:4
    (&[0x04, 0x00, 0x80, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Add, true, true), // ds_add_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x00, 0xd9, 0x02, 0x08, 0x00, 0x00], D::Add, true, false), // ds_add_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x84, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Sub, true, true), // ds_sub_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x04, 0xd9, 0x02, 0x08, 0x00, 0x00], D::Sub, true, false), // ds_sub_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x88, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Rsub, true, true), // ds_rsub_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x08, 0xd9, 0x02, 0x08, 0x00, 0x00], D::Rsub, true, false), // ds_rsub_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x8c, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Inc, true, true), // ds_inc_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x0c, 0xd9, 0x02, 0x08, 0x00, 0x00], D::Inc, true, false), // ds_inc_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x90, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Dec, true, true), // ds_dec_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x10, 0xd9, 0x02, 0x08, 0x00, 0x00], D::Dec, true, false), // ds_dec_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x94, 0xd9, 0x02, 0x08, 0x00, 0x04], D::SMin, true, true), // ds_min_rtn_i64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x14, 0xd9, 0x02, 0x08, 0x00, 0x00], D::SMin, true, false), // ds_min_i64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x98, 0xd9, 0x02, 0x08, 0x00, 0x04], D::SMax, true, true), // ds_max_rtn_i64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x18, 0xd9, 0x02, 0x08, 0x00, 0x00], D::SMax, true, false), // ds_max_i64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x9c, 0xd9, 0x02, 0x08, 0x00, 0x04], D::UMin, true, true), // ds_min_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x1c, 0xd9, 0x02, 0x08, 0x00, 0x00], D::UMin, true, false), // ds_min_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xa0, 0xd9, 0x02, 0x08, 0x00, 0x04], D::UMax, true, true), // ds_max_rtn_u64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x20, 0xd9, 0x02, 0x08, 0x00, 0x00], D::UMax, true, false), // ds_max_u64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xa4, 0xd9, 0x02, 0x08, 0x00, 0x04], D::And, true, true), // ds_and_rtn_b64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x24, 0xd9, 0x02, 0x08, 0x00, 0x00], D::And, true, false), // ds_and_b64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xa8, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Or, true, true), // ds_or_rtn_b64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x28, 0xd9, 0x02, 0x08, 0x00, 0x00], D::Or, true, false), // ds_or_b64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xac, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Xor, true, true), // ds_xor_rtn_b64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0x2c, 0xd9, 0x02, 0x08, 0x00, 0x00], D::Xor, true, false), // ds_xor_b64 v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xb0, 0xd9, 0x02, 0x08, 0x0a, 0x04], D::MskOr, true, true), // ds_mskor_rtn_b64 v[4:5], v2, v[8:9], v[10:11] offset:4
    (&[0x04, 0x00, 0x30, 0xd9, 0x02, 0x08, 0x0a, 0x00], D::MskOr, true, false), // ds_mskor_b64 v2, v[8:9], v[10:11] offset:4
    (&[0x04, 0x00, 0xb4, 0xd9, 0x02, 0x08, 0x00, 0x04], D::Swap, true, true), // ds_storexchg_rtn_b64 v[4:5], v2, v[8:9] offset:4
    (&[0x04, 0x00, 0xc0, 0xd9, 0x02, 0x08, 0x0a, 0x04], D::CmpSt, true, true), // ds_cmpstore_rtn_b64 v[4:5], v2, v[8:9], v[10:11] offset:4
    (&[0x04, 0x00, 0x40, 0xd9, 0x02, 0x08, 0x0a, 0x00], D::CmpSt, true, false), // ds_cmpstore_b64 v2, v[8:9], v[10:11] offset:4
];

#[test]
fn lds_atomics_gcn_cdna_with_cmpst_order() {
    check_atomics(Processor::Gfx803, true, &GFX803_DS_ATOMICS, false);
    check_atomics(Processor::Gfx90a, true, &GFX90A_DS_ATOMICS, false);
    check_atomics(Processor::Gfx942, true, &GFX90A_DS_ATOMICS, false);
}

#[test]
fn lds_atomics_gfx10_wave32_and_wave64() {
    check_atomics(Processor::Gfx1030, false, &GFX1030_DS_ATOMICS, false);
    check_atomics(Processor::Gfx1030, true, &GFX1030_DS_ATOMICS, false);
}

#[test]
fn lds_atomics_gfx11_gfx12_with_cmpstore_order() {
    check_atomics(Processor::Gfx1100, false, &GFX1100_DS_ATOMICS, true);
    check_atomics(Processor::Gfx1100, true, &GFX1100_DS_ATOMICS, true);
    check_atomics(Processor::Gfx1201, false, &GFX1201_DS_ATOMICS, true);
}

#[test]
fn same_address_lds_atomics_apply_in_lane_order() {
    let mut r = rig(Processor::Gfx1100, true);
    put32(&mut r.lds, 16, 5);
    r.set_v(2, |_| 12);
    r.set_v(8, |l| l as u32);
    r.run(GFX1100_DS_ATOMICS[0].0); // ds_add_rtn_u32 v4, v2, v8 offset:4
    let mut sum = 5;
    for l in 0..64 {
        assert_eq!(v(&r, 4, l), sum, "lane {l}");
        sum += l as u32;
    }
    assert_eq!(le32(&r.lds, 16), sum);
}

/// Load kinds as the ISA defines them.
#[derive(Clone, Copy, Debug)]
enum L {
    U8,
    I8,
    U16,
    I16,
    Dw(usize),
    /// D16: (bytes, signed, high half)
    H(usize, bool, bool),
}

/// `keeps`: whether the target's D16 loads leave the other half of the VGPR unchanged (GFX8/9
/// and RDNA: the ISA manuals' "16-bit memory operations") or zero it (gfx90a and gfx94x/950:
/// LLVM review D112635 found by hardware testing that their `*_d16_hi` loads do not preserve
/// the low half, and AMD's gfx942 Tensile kernels rely on it being zero, see
/// `tensile_packs_two_halves_with_d16_hi_on_cdna3` below).
fn check_loads(p: Processor, w64: bool, table: &[(&[u8], L)], keeps: bool) {
    check_loads_in(p, w64, table, false, keeps);
}

/// [`check_loads`] on a GPU with SRAMECC on (`sramecc`) or off.
fn check_loads_in(p: Processor, w64: bool, table: &[(&[u8], L)], sramecc: bool, keeps: bool) {
    for &(enc, k) in table {
        let mut r = rig(p, w64);
        r.env.sramecc = sramecc;
        set_s(&mut r, SLOT_M0, u32::MAX);
        r.lds = pattern(4096);
        let lds = r.lds.clone();
        r.set_v(2, |l| 13 * l as u32 + 1); // + offset:3
        for reg in 4..9 {
            r.set_v(reg, |l| 0xabcd_1234 ^ l as u32);
        }
        r.run(enc);
        for l in 0..lanes(&r) {
            let at = 13 * l + 4;
            let h = u16::from_le_bytes([lds[at], lds[at + 1]]) as u32;
            let old = 0xabcd_1234 ^ l as u32;
            let want: Vec<u32> = match k {
                L::U8 => vec![lds[at] as u32],
                L::I8 => vec![sext(lds[at] as u32, 8)],
                L::U16 => vec![h],
                L::I16 => vec![sext(h, 16)],
                L::Dw(n) => (0..n).map(|i| le32(&lds, at + 4 * i)).collect(),
                L::H(n, signed, hi) => {
                    let raw = if n == 1 { lds[at] as u32 } else { h };
                    let v16 = if signed { sext(raw, 8) & 0xffff } else { raw };
                    let other = if keeps { old } else { 0 };
                    vec![if hi { (other & 0xffff) | v16 << 16 } else { (other & 0xffff_0000) | v16 }]
                }
            };
            for (i, w) in want.iter().enumerate() {
                assert_eq!(v(&r, 4 + i, l), *w, "{p:?} {k:?} lane {l} dword {i}");
            }
            assert_eq!(v(&r, 4 + want.len(), l), old, "{p:?} {k:?} wrote past its size");
        }
    }
}

#[rustfmt::skip]
const GCN_LOADS: [(&[u8], L); 14] = [
    (&[0x03, 0x00, 0x74, 0xd8, 0x02, 0x00, 0x00, 0x04], L::U8), // ds_read_u8 v4, v2 offset:3
    (&[0x03, 0x00, 0x72, 0xd8, 0x02, 0x00, 0x00, 0x04], L::I8), // ds_read_i8 v4, v2 offset:3
    (&[0x03, 0x00, 0x78, 0xd8, 0x02, 0x00, 0x00, 0x04], L::U16), // ds_read_u16 v4, v2 offset:3
    (&[0x03, 0x00, 0x76, 0xd8, 0x02, 0x00, 0x00, 0x04], L::I16), // ds_read_i16 v4, v2 offset:3
    (&[0x03, 0x00, 0x6c, 0xd8, 0x02, 0x00, 0x00, 0x04], L::Dw(1)), // ds_read_b32 v4, v2 offset:3
    (&[0x03, 0x00, 0xec, 0xd8, 0x02, 0x00, 0x00, 0x04], L::Dw(2)), // ds_read_b64 v[4:5], v2 offset:3
    (&[0x03, 0x00, 0xfc, 0xd9, 0x02, 0x00, 0x00, 0x04], L::Dw(3)), // ds_read_b96 v[4:6], v2 offset:3
    (&[0x03, 0x00, 0xfe, 0xd9, 0x02, 0x00, 0x00, 0x04], L::Dw(4)), // ds_read_b128 v[4:7], v2 offset:3
    (&[0x03, 0x00, 0xac, 0xd8, 0x02, 0x00, 0x00, 0x04], L::H(1, false, false)), // ds_read_u8_d16 v4, v2 offset:3 (gfx9+)
    (&[0x03, 0x00, 0xae, 0xd8, 0x02, 0x00, 0x00, 0x04], L::H(1, false, true)), // ds_read_u8_d16_hi v4, v2 offset:3
    (&[0x03, 0x00, 0xb0, 0xd8, 0x02, 0x00, 0x00, 0x04], L::H(1, true, false)), // ds_read_i8_d16 v4, v2 offset:3
    (&[0x03, 0x00, 0xb2, 0xd8, 0x02, 0x00, 0x00, 0x04], L::H(1, true, true)), // ds_read_i8_d16_hi v4, v2 offset:3
    (&[0x03, 0x00, 0xb4, 0xd8, 0x02, 0x00, 0x00, 0x04], L::H(2, false, false)), // ds_read_u16_d16 v4, v2 offset:3
    (&[0x03, 0x00, 0xb6, 0xd8, 0x02, 0x00, 0x00, 0x04], L::H(2, false, true)), // ds_read_u16_d16_hi v4, v2 offset:3
];

/// gfx1030 (`ds_read_*`), gfx1100 and gfx1201 (`ds_load_*`) share these encodings.
#[rustfmt::skip]
const RDNA_LOADS: [(&[u8], L); 14] = [
    (&[0x03, 0x00, 0xe8, 0xd8, 0x02, 0x00, 0x00, 0x04], L::U8), // ds_load_u8 v4, v2 offset:3
    (&[0x03, 0x00, 0xe4, 0xd8, 0x02, 0x00, 0x00, 0x04], L::I8), // ds_load_i8 v4, v2 offset:3
    (&[0x03, 0x00, 0xf0, 0xd8, 0x02, 0x00, 0x00, 0x04], L::U16), // ds_load_u16 v4, v2 offset:3
    (&[0x03, 0x00, 0xec, 0xd8, 0x02, 0x00, 0x00, 0x04], L::I16), // ds_load_i16 v4, v2 offset:3
    (&[0x03, 0x00, 0xd8, 0xd8, 0x02, 0x00, 0x00, 0x04], L::Dw(1)), // ds_load_b32 v4, v2 offset:3
    (&[0x03, 0x00, 0xd8, 0xd9, 0x02, 0x00, 0x00, 0x04], L::Dw(2)), // ds_load_b64 v[4:5], v2 offset:3
    (&[0x03, 0x00, 0xf8, 0xdb, 0x02, 0x00, 0x00, 0x04], L::Dw(3)), // ds_load_b96 v[4:6], v2 offset:3
    (&[0x03, 0x00, 0xfc, 0xdb, 0x02, 0x00, 0x00, 0x04], L::Dw(4)), // ds_load_b128 v[4:7], v2 offset:3
    (&[0x03, 0x00, 0x88, 0xda, 0x02, 0x00, 0x00, 0x04], L::H(1, false, false)), // ds_load_u8_d16 v4, v2 offset:3
    (&[0x03, 0x00, 0x8c, 0xda, 0x02, 0x00, 0x00, 0x04], L::H(1, false, true)), // ds_load_u8_d16_hi v4, v2 offset:3
    (&[0x03, 0x00, 0x90, 0xda, 0x02, 0x00, 0x00, 0x04], L::H(1, true, false)), // ds_load_i8_d16 v4, v2 offset:3
    (&[0x03, 0x00, 0x94, 0xda, 0x02, 0x00, 0x00, 0x04], L::H(1, true, true)), // ds_load_i8_d16_hi v4, v2 offset:3
    (&[0x03, 0x00, 0x98, 0xda, 0x02, 0x00, 0x00, 0x04], L::H(2, false, false)), // ds_load_u16_d16 v4, v2 offset:3
    (&[0x03, 0x00, 0x9c, 0xda, 0x02, 0x00, 0x00, 0x04], L::H(2, false, true)), // ds_load_u16_d16_hi v4, v2 offset:3
];

#[test]
fn lds_reads_of_every_size_and_kind() {
    check_loads(Processor::Gfx803, true, &GCN_LOADS[..8], true);
    check_loads(Processor::Gfx908, true, &GCN_LOADS, true);
    check_loads(Processor::Gfx90a, true, &GCN_LOADS, false);
    check_loads(Processor::Gfx942, true, &GCN_LOADS, false);
    check_loads(Processor::Gfx950, true, &GCN_LOADS, false);
    check_loads(Processor::Gfx1030, false, &RDNA_LOADS, true);
    check_loads(Processor::Gfx1100, true, &RDNA_LOADS, true);
    check_loads(Processor::Gfx1201, false, &RDNA_LOADS, true);
}

/// gfx906 and gfx908 with SRAMECC on zero the other half of a D16 load's VGPR; with it off they
/// keep it. LLVM's `GCNSubtarget::d16PreservesUnusedBits()` is `hasD16LoadStore() &&
/// !isSramEccOnOrAny()`: with SRAMECC the half is not preserved, so compiled code never
/// relies on it. gfx90a and later zero it in both modes.
#[test]
fn sramecc_decides_whether_gfx906_and_gfx908_keep_the_other_half() {
    for p in [Processor::Gfx906, Processor::Gfx908] {
        check_loads_in(p, true, &GCN_LOADS, true, false);
        check_loads_in(p, true, &GCN_LOADS, false, true);
    }
    check_loads_in(Processor::Gfx942, true, &GCN_LOADS, true, false);
}

/// A device takes its GPU config's SRAMECC mode, on processors that have the mode: the
/// Instinct configs run with it on (MI100's gfx908 among them), the Radeon ones have none.
#[test]
fn a_device_runs_in_its_configs_sramecc_mode() {
    for (gpu, on) in [("mi100", true), ("mi300x", true), ("rx6900xt", false), ("rx7900xtx", false)] {
        let g = hipscope_sim::gpus::builtin(gpu).expect("built-in GPU");
        assert_eq!(hipscope_sim::Device::for_gpu(&g).sramecc, on, "{gpu}");
    }
}

/// rocBLAS 7.2's gfx942 GEMM kernel `Cijk_Ailk_Bljk_HHS_BH_MT16x16x64_MI16x16x16x1_…`
/// (`TensileLibrary_Type_HH_HPA_Contraction_l_Ailk_Bljk_Cijk_Dijk_XPU_gfx942.co`) builds each
/// pair of f16 MFMA inputs as `ds_read_u16 v4` + `ds_read_u16_d16_hi v21` + `v_or_b32 v4, v4,
/// v21`, where v21 still holds an LDS offset from the kernel's prologue: the pair is right (and
/// the kernel passes on MI300X) only because the D16_HI load zeroes the low half on CDNA3
/// (LLVM review D112635). Keeping the stale low half made every element of the 64x64x64
/// f16/bf16 `gemm_ex` wrong (rocblas-test `quick_gemm_small_f16_r…_NN_64_64_64_…`).
#[test]
fn tensile_packs_two_halves_with_d16_hi_on_cdna3() {
    for p in [Processor::Gfx90a, Processor::Gfx942, Processor::Gfx950] {
        let mut r = rig(p, true);
        set_s(&mut r, SLOT_M0, u32::MAX);
        r.lds = pattern(4096);
        let lds = r.lds.clone();
        r.set_v(2, |l| 2 * l as u32);
        r.set_v(21, |l| 0x0a00 + 0x48 * l as u32); // a stale LDS offset, as in the kernel
        r.run(&[0x00, 0x00, 0x78, 0xd8, 0x02, 0x00, 0x00, 0x04]); // ds_read_u16 v4, v2
        r.run(&[0x20, 0x00, 0xb6, 0xd8, 0x02, 0x00, 0x00, 0x15]); // ds_read_u16_d16_hi v21, v2 offset:32
        r.run(&[0x04, 0x2b, 0x08, 0x28]); // v_or_b32_e32 v4, v4, v21
        for l in 0..64 {
            let lo = u16::from_le_bytes([lds[2 * l], lds[2 * l + 1]]) as u32;
            let hi = u16::from_le_bytes([lds[2 * l + 32], lds[2 * l + 33]]) as u32;
            assert_eq!(v(&r, 21, l), hi << 16, "{p:?} lane {l}: ds_read_u16_d16_hi zeroes the low half");
            assert_eq!(v(&r, 4, l), hi << 16 | lo, "{p:?} lane {l}: the packed pair");
        }
    }
}

/// Stores: (bytes, from bit 16).
fn check_stores(p: Processor, w64: bool, table: &[(&[u8], usize, bool)]) {
    for &(enc, n, hi) in table {
        let mut r = rig(p, w64);
        set_s(&mut r, SLOT_M0, u32::MAX);
        r.lds = vec![0xee; 4096];
        r.set_v(2, |l| 17 * l as u32 + 2); // + offset:3
        for reg in 8..12 {
            r.set_v(reg, |l| (reg as u32 * 0x0101_0101) ^ (l as u32 * 0x0100_0001));
        }
        r.run(enc);
        let mut want = vec![0xee; 4096];
        for l in 0..lanes(&r) {
            let data: Vec<u8> = (8..12).flat_map(|reg| v(&r, reg, l).to_le_bytes()).collect();
            let src = if hi { &data[2..2 + n] } else { &data[..n] };
            want[17 * l + 5..17 * l + 5 + n].copy_from_slice(src);
        }
        assert_eq!(r.lds, want, "{p:?} n={n} hi={hi}");
    }
}

#[test]
fn lds_writes_of_every_size_and_d16_hi() {
    let gcn: [(&[u8], usize, bool); 8] = [
        (&[0x03, 0x00, 0x3c, 0xd8, 0x02, 0x08, 0x00, 0x00], 1, false),  // ds_write_b8 v2, v8 offset:3
        (&[0x03, 0x00, 0x3e, 0xd8, 0x02, 0x08, 0x00, 0x00], 2, false),  // ds_write_b16 v2, v8 offset:3
        (&[0x03, 0x00, 0x1a, 0xd8, 0x02, 0x08, 0x00, 0x00], 4, false),  // ds_write_b32 v2, v8 offset:3
        (&[0x03, 0x00, 0x9a, 0xd8, 0x02, 0x08, 0x00, 0x00], 8, false),  // ds_write_b64 v2, v[8:9] offset:3
        (&[0x03, 0x00, 0xbc, 0xd9, 0x02, 0x08, 0x00, 0x00], 12, false), // ds_write_b96 v2, v[8:10] offset:3
        (&[0x03, 0x00, 0xbe, 0xd9, 0x02, 0x08, 0x00, 0x00], 16, false), // ds_write_b128 v2, v[8:11] offset:3
        (&[0x03, 0x00, 0xa8, 0xd8, 0x02, 0x08, 0x00, 0x00], 1, true),   // ds_write_b8_d16_hi v2, v8 offset:3
        (&[0x03, 0x00, 0xaa, 0xd8, 0x02, 0x08, 0x00, 0x00], 2, true),   // ds_write_b16_d16_hi v2, v8 offset:3
    ];
    check_stores(Processor::Gfx803, true, &gcn[..6]);
    check_stores(Processor::Gfx90a, true, &gcn);
    let rdna: [(&[u8], usize, bool); 8] = [
        (&[0x03, 0x00, 0x78, 0xd8, 0x02, 0x08, 0x00, 0x00], 1, false),  // ds_store_b8 v2, v8 offset:3
        (&[0x03, 0x00, 0x7c, 0xd8, 0x02, 0x08, 0x00, 0x00], 2, false),  // ds_store_b16 v2, v8 offset:3
        (&[0x03, 0x00, 0x34, 0xd8, 0x02, 0x08, 0x00, 0x00], 4, false),  // ds_store_b32 v2, v8 offset:3
        (&[0x03, 0x00, 0x34, 0xd9, 0x02, 0x08, 0x00, 0x00], 8, false),  // ds_store_b64 v2, v[8:9] offset:3
        (&[0x03, 0x00, 0x78, 0xdb, 0x02, 0x08, 0x00, 0x00], 12, false), // ds_store_b96 v2, v[8:10] offset:3
        (&[0x03, 0x00, 0x7c, 0xdb, 0x02, 0x08, 0x00, 0x00], 16, false), // ds_store_b128 v2, v[8:11] offset:3
        (&[0x03, 0x00, 0x80, 0xda, 0x02, 0x08, 0x00, 0x00], 1, true),   // ds_store_b8_d16_hi v2, v8 offset:3
        (&[0x03, 0x00, 0x84, 0xda, 0x02, 0x08, 0x00, 0x00], 2, true),   // ds_store_b16_d16_hi v2, v8 offset:3
    ];
    check_stores(Processor::Gfx1030, false, &rdna);
    check_stores(Processor::Gfx1100, true, &rdna);
    check_stores(Processor::Gfx1201, false, &rdna);
}

/// Two-address forms: element size 4 or 8 bytes, offsets in elements, x64 for st64.
#[derive(Clone, Copy, Debug)]
enum T {
    Read(usize, [usize; 2]),
    Write(usize, [usize; 2]),
    Xchg(usize, [usize; 2]),
}

fn check_two_address(p: Processor, w64: bool, table: &[(&[u8], T)]) {
    for &(enc, t) in table {
        let mut r = rig(p, w64);
        set_s(&mut r, SLOT_M0, u32::MAX);
        r.lds = pattern(8192);
        let mut want = r.lds.clone();
        r.set_v(2, |l| 64 * l as u32 + 4);
        for reg in 8..12 {
            r.set_v(reg, |l| 0x1111_0000 * reg as u32 + l as u32);
        }
        r.set_v(6, |l| 0x6666_0000 + l as u32);
        r.run(enc);
        for l in 0..lanes(&r) {
            let base = 64 * l + 4;
            let (size, offs) = match t {
                T::Read(s, o) | T::Write(s, o) | T::Xchg(s, o) => (s, o),
            };
            let data: Vec<u8> = (8..12).flat_map(|reg| v(&r, reg, l).to_le_bytes()).collect();
            let mut old = Vec::new();
            for (k, o) in offs.iter().enumerate() {
                let at = base + o * size;
                old.extend_from_slice(&want[at..at + size]);
                if !matches!(t, T::Read(..)) {
                    // data0 then data1 (v8/v[8:9], v9/v[10:11])
                    let d = if size == 4 { &data[4 * k..4 * k + 4] } else { &data[8 * k..8 * k + 8] };
                    want[at..at + size].copy_from_slice(d);
                }
            }
            if !matches!(t, T::Write(..)) {
                for (i, chunk) in old.chunks(4).enumerate() {
                    assert_eq!(v(&r, 4 + i, l), le32(chunk, 0), "{p:?} {t:?} lane {l} dword {i}");
                }
                if size == 4 {
                    assert_eq!(v(&r, 6, l), 0x6666_0000 + l as u32, "{p:?} {t:?} wrote v6");
                }
            }
        }
        assert_eq!(r.lds, want, "{p:?} {t:?}");
    }
}

#[test]
fn two_address_forms_and_stride64() {
    let gcn: [(&[u8], T); 10] = [
        (&[0x03, 0x07, 0x6e, 0xd8, 0x02, 0x00, 0x00, 0x04], T::Read(4, [3, 7])), // ds_read2_b32 v[4:5], v2 offset0:3 offset1:7
        (&[0x03, 0x07, 0xee, 0xd8, 0x02, 0x00, 0x00, 0x04], T::Read(8, [3, 7])), // ds_read2_b64 v[4:7], v2 offset0:3 offset1:7
        (&[0x01, 0x03, 0x70, 0xd8, 0x02, 0x00, 0x00, 0x04], T::Read(4, [64, 192])), // ds_read2st64_b32 v[4:5], v2 offset0:1 offset1:3
        (&[0x01, 0x03, 0xf0, 0xd8, 0x02, 0x00, 0x00, 0x04], T::Read(8, [64, 192])), // ds_read2st64_b64 v[4:7], v2 offset0:1 offset1:3
        (&[0x03, 0x07, 0x1c, 0xd8, 0x02, 0x08, 0x09, 0x00], T::Write(4, [3, 7])), // ds_write2_b32 v2, v8, v9 offset0:3 offset1:7
        (&[0x03, 0x07, 0x9c, 0xd8, 0x02, 0x08, 0x0a, 0x00], T::Write(8, [3, 7])), // ds_write2_b64 v2, v[8:9], v[10:11] offset0:3 offset1:7
        (&[0x01, 0x03, 0x1e, 0xd8, 0x02, 0x08, 0x09, 0x00], T::Write(4, [64, 192])), // ds_write2st64_b32 v2, v8, v9 offset0:1 offset1:3
        (&[0x01, 0x03, 0x9e, 0xd8, 0x02, 0x08, 0x0a, 0x00], T::Write(8, [64, 192])), // ds_write2st64_b64 v2, v[8:9], v[10:11] offset0:1 offset1:3
        (&[0x03, 0x07, 0x5c, 0xd8, 0x02, 0x08, 0x09, 0x04], T::Xchg(4, [3, 7])), // ds_wrxchg2_rtn_b32 v[4:5], v2, v8, v9 offset0:3 offset1:7
        (&[0x01, 0x03, 0xde, 0xd8, 0x02, 0x08, 0x0a, 0x04], T::Xchg(8, [64, 192])), // ds_wrxchg2st64_rtn_b64 v[4:7], v2, v[8:9], v[10:11] offset0:1 offset1:3
    ];
    check_two_address(Processor::Gfx803, true, &gcn);
    check_two_address(Processor::Gfx90a, true, &gcn);
    let rdna: [(&[u8], T); 10] = [
        (&[0x03, 0x07, 0xdc, 0xd8, 0x02, 0x00, 0x00, 0x04], T::Read(4, [3, 7])), // ds_load_2addr_b32 v[4:5], v2 offset0:3 offset1:7
        (&[0x03, 0x07, 0xdc, 0xd9, 0x02, 0x00, 0x00, 0x04], T::Read(8, [3, 7])), // ds_load_2addr_b64 v[4:7], v2 offset0:3 offset1:7
        (&[0x01, 0x03, 0xe0, 0xd8, 0x02, 0x00, 0x00, 0x04], T::Read(4, [64, 192])), // ds_load_2addr_stride64_b32 v[4:5], v2 offset0:1 offset1:3
        (&[0x01, 0x03, 0xe0, 0xd9, 0x02, 0x00, 0x00, 0x04], T::Read(8, [64, 192])), // ds_load_2addr_stride64_b64 v[4:7], v2 offset0:1 offset1:3
        (&[0x03, 0x07, 0x38, 0xd8, 0x02, 0x08, 0x09, 0x00], T::Write(4, [3, 7])), // ds_store_2addr_b32 v2, v8, v9 offset0:3 offset1:7
        (&[0x03, 0x07, 0x38, 0xd9, 0x02, 0x08, 0x0a, 0x00], T::Write(8, [3, 7])), // ds_store_2addr_b64 v2, v[8:9], v[10:11] offset0:3 offset1:7
        (&[0x01, 0x03, 0x3c, 0xd8, 0x02, 0x08, 0x09, 0x00], T::Write(4, [64, 192])), // ds_store_2addr_stride64_b32 v2, v8, v9 offset0:1 offset1:3
        (&[0x01, 0x03, 0x3c, 0xd9, 0x02, 0x08, 0x0a, 0x00], T::Write(8, [64, 192])), // ds_store_2addr_stride64_b64 v2, v[8:9], v[10:11] offset0:1 offset1:3
        (&[0x03, 0x07, 0xb8, 0xd8, 0x02, 0x08, 0x09, 0x04], T::Xchg(4, [3, 7])), // ds_storexchg_2addr_rtn_b32 v[4:5], v2, v8, v9 offset0:3 offset1:7
        (&[0x01, 0x03, 0xbc, 0xd9, 0x02, 0x08, 0x0a, 0x04], T::Xchg(8, [64, 192])), // ds_storexchg_2addr_stride64_rtn_b64 v[4:7], v2, v[8:9], v[10:11] offset0:1 offset1:3
    ];
    check_two_address(Processor::Gfx1030, false, &rdna);
    check_two_address(Processor::Gfx1100, true, &rdna);
    check_two_address(Processor::Gfx1201, false, &rdna);
}

/// Out of range, hardware does not fault: the lane reads 0 and its write is dropped (ISA
/// guides, LDS chapters); the other lanes are served, and the lane access is counted.
#[test]
fn lds_overrun_reads_zero_drops_writes_and_counts() {
    let cases = [
        (Processor::Gfx90a, true, GCN_LOADS[4].0, 1, &[0x00, 0x00, 0x1a, 0xd8, 0x02, 0x08, 0x00, 0x00][..]), // ds_write_b32 v2, v8
        (Processor::Gfx1100, false, RDNA_LOADS[4].0, 1, &[0x00, 0x00, 0x34, 0xd8, 0x02, 0x08, 0x00, 0x00][..]), // ds_store_b32 v2, v8
        (Processor::Gfx1201, false, RDNA_LOADS[7].0, 4, &[0x00, 0x00, 0x34, 0xd8, 0x02, 0x08, 0x00, 0x00][..]), // ds_store_b32 v2, v8
    ];
    for (p, w64, load, dwords, store) in cases {
        let mut r = rig(p, w64);
        r.lds = pattern(1024);
        let lds0 = r.lds.clone();
        r.set_v(2, |l| if l == 7 { 1019 } else { 4 * l as u32 });
        for k in 0..dwords {
            r.set_v(4 + k, |_| 0xdead_beef);
        }
        r.run(load);
        for lane in 0..lanes(&r) {
            for k in 0..dwords {
                let want = if lane == 7 { 0 } else { le32(&lds0, 4 * lane + 3 + 4 * k) };
                assert_eq!(v(&r, 4 + k, lane), want, "{p:?} lane {lane} dword {k}");
            }
        }
        assert_eq!(r.wave.lds_out_of_range.get(), 1, "{p:?}: one lane access out of range");
        // A store: lane 7's bytes at 1022..1026 would straddle the end and are dropped.
        r.set_v(2, |l| if l == 7 { 1022 } else { 4 * l as u32 });
        r.set_v(8, |l| 0x7700 + l as u32);
        r.run(store);
        assert_eq!(&r.lds[1016..1024], &lds0[1016..1024], "{p:?}: nothing written at 1022");
        assert_eq!(le32(&r.lds, 24), 0x7706, "{p:?}: in-range lanes write");
        assert_eq!(r.wave.lds_out_of_range.get(), 2, "{p:?}");
    }
}

/// GFX8 DS instructions clamp addresses with M0[16:0]; GFX9+ ignore M0.
#[test]
fn gfx8_m0_limits_lds_addresses() {
    let mut r = rig(Processor::Gfx803, true);
    r.lds = pattern(4096);
    r.set_v(2, |l| 4 * l as u32 + 1); // + offset:3
    set_s(&mut r, SLOT_M0, 256);
    r.run(GCN_LOADS[4].0); // ds_read_b32 v4, v2 offset:3
                           // Lanes whose 4 bytes end past M0 = 256 read 0: 4l + 4 + 4 > 256 from lane 63 on.
    assert_eq!(v(&r, 4, 62), le32(&r.lds, 252));
    assert_eq!(v(&r, 4, 63), 0);
    assert_eq!(r.wave.lds_out_of_range.get(), 1);
    set_s(&mut r, SLOT_M0, u32::MAX);
    r.run(GCN_LOADS[4].0);
    assert_eq!(v(&r, 4, 63), le32(&r.lds, 256));
    let mut r = rig(Processor::Gfx90a, true);
    r.lds = pattern(4096);
    r.set_v(2, |l| 4 * l as u32 + 1);
    set_s(&mut r, SLOT_M0, 0);
    r.run(GCN_LOADS[4].0);
    assert_eq!(v(&r, 4, 63), le32(&r.lds, 256));
    assert_eq!(r.wave.lds_out_of_range.get(), 0, "GFX9 ignores M0");
}

#[test]
fn gds_and_unsupported_ds_classify_as_unsupported() {
    let r = rig(Processor::Gfx803, true);
    assert!(!is_supported(&r, &[0x03, 0x00, 0x6d, 0xd8, 0x02, 0x00, 0x00, 0x04])); // ds_read_b32 v4, v2 offset:3 gds
    assert!(is_supported(&r, &[0x03, 0x00, 0x6c, 0xd8, 0x02, 0x00, 0x00, 0x04]));
    // ds_read_b32 v4, v2 offset:3
}

#[test]
fn addtid_append_consume_condxchg() {
    let mut r = rig(Processor::Gfx90a, true);
    r.lds = pattern(2048);
    let lds = r.lds.clone();
    set_s(&mut r, SLOT_M0, 0x1_0100); // M0[15:0] = 0x100
    r.run(&[0x10, 0x00, 0x6c, 0xd9, 0x00, 0x00, 0x00, 0x04]); // ds_read_addtid_b32 v4 offset:16
    for l in 0..64 {
        assert_eq!(v(&r, 4, l), le32(&lds, 0x110 + 4 * l));
    }
    r.set_v(8, |l| 3 * l as u32);
    r.run(&[0x10, 0x00, 0x3a, 0xd8, 0x00, 0x08, 0x00, 0x00]); // ds_write_addtid_b32 v8 offset:16
    assert_eq!(le32(&r.lds, 0x110 + 4 * 9), 27);
    // append/consume: one add of popcount(EXEC) at M0[15:0] + offset, old value to every lane.
    set_s(&mut r, SLOT_M0, 64);
    put32(&mut r.lds, 72, 1000);
    set_exec(&mut r, 0xff00_ff00_0000_000f);
    r.run(&[0x08, 0x00, 0x7c, 0xd9, 0x00, 0x00, 0x00, 0x04]); // ds_append v4 offset:8
    assert_eq!(le32(&r.lds, 72), 1020);
    assert_eq!((v(&r, 4, 0), v(&r, 4, 63)), (1000, 1000));
    r.run(&[0x08, 0x00, 0x7a, 0xd9, 0x00, 0x00, 0x00, 0x04]); // ds_consume v4 offset:8
    assert_eq!(le32(&r.lds, 72), 1000);
    assert_eq!(v(&r, 4, 2), 1020);
    // condxchg32: ADDR0 = (addr + offset) & 0xfff8; each half written iff its bit 31 is set.
    set_exec(&mut r, 1);
    put64(&mut r.lds, 0x40, 0x1111_1111_2222_2222);
    r.set_v(2, |_| 0x3f); // + offset:4 = 0x43 -> 0x40
    set_v64(&mut r, 8, |_| 0x0000_0005_8000_0009);
    r.run(&[0x04, 0x00, 0xfc, 0xd8, 0x02, 0x08, 0x00, 0x04]); // ds_condxchg32_rtn_b64 v[4:5], v2, v[8:9] offset:4
    assert_eq!(le64(&r.lds, 0x40), 0x1111_1111_0000_0009);
    assert_eq!((v(&r, 4, 0), v(&r, 5, 0)), (0x2222_2222, 0x1111_1111));
    // gfx1100 spelling of addtid.
    let mut r = rig(Processor::Gfx1100, false);
    r.lds = pattern(2048);
    let lds = r.lds.clone();
    set_s(&mut r, SLOT_M0, 8);
    r.run(&[0x10, 0x00, 0xc4, 0xda, 0x00, 0x00, 0x00, 0x04]); // ds_load_addtid_b32 v4 offset:16
    assert_eq!(v(&r, 4, 31), le32(&lds, 24 + 124));
}

fn f(x: f32) -> u32 {
    x.to_bits()
}

/// One-lane float LDS atomic: (encoding, old, d0, d1, new, 64-bit).
type FloatCase<'a> = (&'a [u8], u64, u64, u64, u64, bool);

/// Run float LDS atomic cases; MODE keeps denormals.
fn check_float(p: Processor, w64: bool, cases: &[FloatCase]) {
    for &(enc, old, d0, d1, new, wide) in cases {
        let mut r = rig(p, w64);
        r.wave.mode = 0xf0; // FP_DENORM: allow denormals everywhere
        put64(&mut r.lds, 16, old);
        r.set_v(2, |_| 12);
        set_v64(&mut r, 8, |_| d0);
        set_v64(&mut r, 10, |_| d1);
        set_exec(&mut r, 1);
        r.run(enc);
        let got = if wide { le64(&r.lds, 16) } else { le32(&r.lds, 16) as u64 };
        assert_eq!(got, new, "{p:?} {enc:02x?}");
        assert!(matches!(fidelity(&r, enc), Fidelity::Approximate(_)));
    }
}

#[test]
fn float_lds_atomics() {
    let d = |x: f64| x.to_bits();
    check_float(
        Processor::Gfx90a,
        true,
        &[
            (&[0x04, 0x00, 0x2a, 0xd8, 0x02, 0x08, 0x00, 0x00], f(1.5) as u64, f(0.25) as u64, 0, f(1.75) as u64, false), // ds_add_f32 v2, v8 offset:4
            (&[0x04, 0x00, 0x6a, 0xd8, 0x02, 0x08, 0x00, 0x04], f(-1.0) as u64, f(1.0) as u64, 0, 0, false),              // ds_add_rtn_f32 v4, v2, v8 offset:4
            (&[0x04, 0x00, 0x64, 0xd8, 0x02, 0x08, 0x00, 0x04], f(2.0) as u64, f(-3.0) as u64, 0, f(-3.0) as u64, false), // ds_min_rtn_f32 v4, v2, v8 offset:4
            (&[0x04, 0x00, 0x66, 0xd8, 0x02, 0x08, 0x00, 0x04], f(2.0) as u64, f(-3.0) as u64, 0, f(2.0) as u64, false),  // ds_max_rtn_f32 v4, v2, v8 offset:4
            // cmpst_f32: DATA = cmp, DATA2 = src; -0 compares equal to +0.
            (&[0x04, 0x00, 0x62, 0xd8, 0x02, 0x08, 0x0a, 0x04], f(0.0) as u64, f(-0.0) as u64, f(8.0) as u64, f(8.0) as u64, false), // ds_cmpst_rtn_f32 v4, v2, v8, v10 offset:4
            (&[0x04, 0x00, 0xf8, 0xd8, 0x02, 0x08, 0x00, 0x04], d(0.5), d(0.25), 0, d(0.75), true), // ds_add_rtn_f64 v[4:5], v2, v[8:9] offset:4
            (&[0x04, 0x00, 0xe4, 0xd8, 0x02, 0x08, 0x00, 0x04], d(0.5), d(0.25), 0, d(0.25), true), // ds_min_rtn_f64 v[4:5], v2, v[8:9] offset:4
        ],
    );
    check_float(
        Processor::Gfx942,
        true,
        &[
            (&[0x04, 0x00, 0x6e, 0xd9, 0x02, 0x08, 0x00, 0x04], 0x4000_3c00, 0xc200_3800, 0, 0xbc00_3e00, false), // ds_pk_add_rtn_f16 v4, v2, v8 offset:4
            (&[0x04, 0x00, 0x30, 0xd8, 0x02, 0x08, 0x00, 0x00], 0x4040_3f80, 0x3f00_3f80, 0, 0x4060_4000, false), // ds_pk_add_bf16 v2, v8 offset:4
        ],
    );
    check_float(
        Processor::Gfx1100,
        false,
        // cmpstore_f32: DATA = src, DATA2 = cmp.
        &[(&[0x04, 0x00, 0xc4, 0xd8, 0x02, 0x08, 0x0a, 0x04], f(3.0) as u64, f(9.0) as u64, f(3.0) as u64, f(9.0) as u64, false)], // ds_cmpstore_rtn_f32 v4, v2, v8, v10 offset:4
    );
    check_float(
        Processor::Gfx1201,
        false,
        &[
            (&[0x04, 0x00, 0xc8, 0xd8, 0x02, 0x08, 0x00, 0x04], 0x7fc0_0000, f(4.0) as u64, 0, f(4.0) as u64, false), // ds_min_num_rtn_f32 v4, v2, v8 offset:4
            (&[0x04, 0x00, 0x4c, 0xd9, 0x02, 0x08, 0x00, 0x00], d(-1.0), d(2.0), 0, d(2.0), true),                    // ds_max_num_f64 v2, v[8:9] offset:4
            (&[0x04, 0x00, 0xac, 0xda, 0x02, 0x08, 0x00, 0x04], 0x4040_3f80, 0x3f00_3f80, 0, 0x4060_4000, false),     // ds_pk_add_rtn_bf16 v4, v2, v8 offset:4
        ],
    );
}

/// MODE.fp_denorm = 0 flushes f32 denormal inputs and outputs of LDS adds; f64 adds never.
#[test]
fn lds_float_add_follows_mode_denormals() {
    let tiny = 0x0000_0010u32; // f32 denormal
    let mut r = rig(Processor::Gfx90a, true);
    r.wave.mode = 0; // flush everything
    put32(&mut r.lds, 16, tiny);
    r.set_v(2, |_| 12);
    r.set_v(8, |_| 0);
    set_exec(&mut r, 1);
    r.run(&[0x04, 0x00, 0x6a, 0xd8, 0x02, 0x08, 0x00, 0x04]); // ds_add_rtn_f32 v4, v2, v8 offset:4
    assert_eq!(le32(&r.lds, 16), 0);
    r.wave.mode = 0x30; // f32 denormals allowed
    put32(&mut r.lds, 16, tiny);
    r.run(&[0x04, 0x00, 0x6a, 0xd8, 0x02, 0x08, 0x00, 0x04]); // ds_add_rtn_f32 v4, v2, v8 offset:4
    assert_eq!(le32(&r.lds, 16), tiny);
}

#[test]
fn clamp_conditional_subtract_and_wrap() {
    type Case = (Processor, &'static [u8], [(u32, u32, u32, u32); 3]);
    let cases: [Case; 3] = [
        (Processor::Gfx1201, &[0x04, 0x00, 0xa4, 0xda, 0x02, 0x08, 0x00, 0x04], [(10, 3, 0, 7), (3, 10, 0, 0), (4, 4, 0, 0)]), // ds_sub_clamp_rtn_u32 v4, v2, v8 offset:4
        (Processor::Gfx1201, &[0x04, 0x00, 0xa0, 0xda, 0x02, 0x08, 0x00, 0x04], [(10, 3, 0, 7), (3, 10, 0, 3), (4, 4, 0, 0)]), // ds_cond_sub_rtn_u32 v4, v2, v8 offset:4
        // wrap: tmp >= DATA ? tmp - DATA : tmp + DATA2
        (Processor::Gfx90a, &[0x04, 0x00, 0x68, 0xd8, 0x02, 0x08, 0x0a, 0x04], [(10, 3, 100, 7), (3, 10, 100, 103), (4, 4, 1, 0)]), // ds_wrap_rtn_b32 v4, v2, v8, v10 offset:4
    ];
    for (p, enc, lanes_) in cases {
        let mut r = rig(p, true);
        for (l, c) in lanes_.iter().enumerate() {
            put32(&mut r.lds, 16 + 4 * l, c.0);
        }
        r.set_v(2, |l| 12 + 4 * l as u32);
        r.set_v(8, |l| lanes_.get(l).map_or(0, |c| c.1));
        r.set_v(10, |l| lanes_.get(l).map_or(0, |c| c.2));
        set_exec(&mut r, 0b111);
        r.run(enc);
        for (l, c) in lanes_.iter().enumerate() {
            assert_eq!(le32(&r.lds, 16 + 4 * l), c.3, "{p:?} case {l}");
            assert_eq!(v(&r, 4, l), c.0);
        }
    }
}

#[test]
fn ds_nop_does_nothing() {
    let mut r: Rig = rig(Processor::Gfx90a, true);
    r.lds = pattern(64);
    let before = r.lds.clone();
    r.run(&[0x00, 0x00, 0x28, 0xd8, 0x00, 0x00, 0x00, 0x00]); // ds_nop
    assert_eq!(r.lds, before);
}

/// The address VGPR of a two-address read may also be its first destination: the address is
/// read once, before any element is written (ISA: sources are read before results are written).
#[test]
fn read2_whose_destination_overlaps_the_address() {
    for (p, bytes, width, offsets) in [
        // ds_read2_b64 v[10:13], v10 offset1:1 (gfx803): elements at v10 and v10 + 8.
        (Processor::Gfx803, [0x00, 0x01, 0xee, 0xd8, 0x0a, 0x00, 0x00, 0x0a], 8u32, [0u32, 8]),
        // ds_load_2addr_b32 v[10:11], v10 offset0:2 offset1:5 (gfx1100): v10 + 8 and v10 + 20.
        (Processor::Gfx1100, [0x02, 0x05, 0xdc, 0xd8, 0x0a, 0x00, 0x00, 0x0a], 4, [8, 20]),
    ] {
        let mut rig = Rig::new(p, true);
        rig.wave.sreg[hipscope_sim::wave::slot::M0] = u32::MAX;
        for (i, b) in rig.lds.iter_mut().enumerate().take(4096) {
            *b = (i * 7 + 3) as u8;
        }
        rig.set_v(10, |l| 64 * l as u32);
        rig.run(&bytes);
        for lane in [0usize, 5, 63] {
            let base = 64 * lane;
            for (k, off) in offsets.iter().enumerate() {
                let at = base + *off as usize;
                for d in 0..(width / 4) as usize {
                    let want = u32::from_le_bytes(rig.lds[at + 4 * d..at + 4 * d + 4].try_into().unwrap());
                    let reg = 10 + k * (width / 4) as usize + d;
                    assert_eq!(rig.wave.v(reg, lane), want, "{p}: lane {lane} element {k} dword {d}");
                }
            }
        }
    }
}
