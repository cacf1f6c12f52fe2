//! Differential test of the direct path ([`super::fast`], [`super::fast_fp`]) against the
//! general one: every opcode the direct path takes (and each source form it accepts: VGPR,
//! scalar, constant, literal, abs/neg, op_sel) runs on seeded random registers (NaNs quiet and
//! signalling, infinities, zeros, denormals, extreme exponents, random bits), random EXEC, VCC
//! and MODE.IEEE; both paths must leave every VGPR, SGPR and EXEC bit-identical. With MODE
//! flushing f32 denormals the float operations must decline (the general path runs).
//! Encodings from `llvm-mc-19 -arch=amdgcn -mcpu=gfx942 -show-encoding` (the V_MAD_U64_U32 and
//! V_LSHLREV_B64 cases from `llvm-mc-14 -mcpu=gfx90a`, whose VOP3 encodings gfx942 shares).

use super::{fast, run_general, Kind};
use crate::exec::{classify, Env, ExecCtx, Sem};
use crate::fault::WaveId;
use crate::memory::Memory;
use crate::wave::{Wave, MAX_LANES};
use hipscope_isa::decode::Decoder;
use hipscope_isa::Processor;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// One gfx942 wave64 wave with EXEC all ones, its memory and LDS, and its environment.
struct Rig {
    wave: Wave,
    mem: Memory,
    lds: Vec<u8>,
    env: Env,
}

impl Rig {
    fn new() -> Rig {
        let p = Processor::Gfx942;
        let mut wave = Wave::new(WaveId::default(), true);
        wave.set_exec(!0);
        let env = Env::plain(p);
        Rig { wave, mem: Memory::new(), lds: vec![0; 65536], env }
    }

    fn classify(&self, bytes: &[u8]) -> Sem {
        let inst = Decoder::new(Processor::Gfx942, true).decode(bytes, 0x1000).unwrap_or_else(|e| panic!("{bytes:02x?} does not decode: {e}"));
        classify(&inst, &self.env)
    }
}

const CASES: &[(&str, &[u8])] = &[
    ("v_sub_f32_e64 v5, |v1|, -v2", &[0x05, 0x01, 0x02, 0xd1, 0x01, 0x05, 0x02, 0x40]),
    ("v_rsq_f32_e32 v6, v3", &[0x03, 0x49, 0x0c, 0x7e]),
    ("v_rsq_f32_e64 v6, -|v3|", &[0x06, 0x01, 0x64, 0xd1, 0x03, 0x01, 0x00, 0x20]),
    ("v_rcp_f32_e64 v6, |v3|", &[0x06, 0x01, 0x62, 0xd1, 0x03, 0x01, 0x00, 0x00]),
    ("v_sqrt_f32_e64 v7, -v4", &[0x07, 0x00, 0x67, 0xd1, 0x04, 0x01, 0x00, 0x20]),
    ("v_cmp_nlt_f32_e64 s[4:5], v1, v2", &[0x04, 0x00, 0x4e, 0xd0, 0x01, 0x05, 0x02, 0x00]),
    ("v_cmp_u_f32_e32 vcc, v1, v2", &[0x01, 0x05, 0x90, 0x7c]),
    ("v_cmp_lg_f32_e64 s[4:5], -v1, |v2|", &[0x04, 0x02, 0x45, 0xd0, 0x01, 0x05, 0x02, 0x20]),
    ("v_cmpx_le_f32_e64 s[4:5], v1, v2", &[0x04, 0x00, 0x53, 0xd0, 0x01, 0x05, 0x02, 0x00]),
    ("v_cmp_neq_f32_e32 vcc, s3, v2", &[0x03, 0x04, 0x9a, 0x7c]),
    ("v_cmp_class_f32_e64 s[4:5], -v1, v2", &[0x04, 0x00, 0x10, 0xd0, 0x01, 0x05, 0x02, 0x20]),
    ("v_div_fixup_f32 v8, v1, -v2, v3", &[0x08, 0x00, 0xde, 0xd1, 0x01, 0x05, 0x0e, 0x44]),
    ("v_div_scale_f32 v9, s[6:7], v1, v2, v3", &[0x09, 0x06, 0xe0, 0xd1, 0x01, 0x05, 0x0e, 0x04]),
    ("v_div_fmas_f32 v9, -v1, v2, |v3|", &[0x09, 0x04, 0xe2, 0xd1, 0x01, 0x05, 0x0e, 0x24]),
    ("v_pk_add_f32 v[10:11], v[2:3], s[4:5] op_sel:[1,0] op_sel_hi:[0,1]", &[0x0a, 0x48, 0xb2, 0xd3, 0x02, 0x09, 0x00, 0x10]),
    ("v_pk_fma_f32 v[2:3], v[4:5], v[2:3], v[6:7] op_sel:[0,1,1] op_sel_hi:[1,0,0] neg_lo:[0,0,1]", &[0x02, 0x30, 0xb0, 0xd3, 0x04, 0x05, 0x1a, 0x8c]),
    ("v_fma_f32 v12, -v1, |v2|, -v3", &[0x0c, 0x02, 0xcb, 0xd1, 0x01, 0x05, 0x0e, 0xa4]),
    ("v_add_f32_e64 v12, -v1, s3", &[0x0c, 0x00, 0x01, 0xd1, 0x01, 0x07, 0x00, 0x20]),
    ("v_mul_f32_e64 v12, |v1|, -v2", &[0x0c, 0x01, 0x05, 0xd1, 0x01, 0x05, 0x02, 0x40]),
    ("v_max_f32_e64 v12, -v1, v2", &[0x0c, 0x00, 0x0b, 0xd1, 0x01, 0x05, 0x02, 0x20]),
    ("v_cmp_nge_f32_e64 s[4:5], v1, 0.5", &[0x04, 0x00, 0x49, 0xd0, 0x01, 0xe1, 0x01, 0x00]),
    ("v_cmp_o_f32_e64 s[4:5], v1, v2", &[0x04, 0x00, 0x47, 0xd0, 0x01, 0x05, 0x02, 0x00]),
    ("v_cmp_nlg_f32_e64 s[4:5], v1, v2", &[0x04, 0x00, 0x4a, 0xd0, 0x01, 0x05, 0x02, 0x00]),
    ("v_cmp_ngt_f32_e64 s[4:5], v1, v2", &[0x04, 0x00, 0x4b, 0xd0, 0x01, 0x05, 0x02, 0x00]),
    ("v_cmp_nle_f32_e64 s[4:5], v1, v2", &[0x04, 0x00, 0x4c, 0xd0, 0x01, 0x05, 0x02, 0x00]),
    ("v_cmp_eq_f32_e64 s[4:5], v1, v2", &[0x04, 0x00, 0x42, 0xd0, 0x01, 0x05, 0x02, 0x00]),
    ("v_cmp_tru_f32_e64 s[4:5], v1, v2", &[0x04, 0x00, 0x4f, 0xd0, 0x01, 0x05, 0x02, 0x00]),
    ("v_cmp_f_f32_e64 s[4:5], v1, v2", &[0x04, 0x00, 0x40, 0xd0, 0x01, 0x05, 0x02, 0x00]),
    ("v_cmp_gt_f32_e64 s[4:5], v1, v2", &[0x04, 0x00, 0x44, 0xd0, 0x01, 0x05, 0x02, 0x00]),
    ("v_cmp_ge_f32_e64 s[4:5], v1, v2", &[0x04, 0x00, 0x46, 0xd0, 0x01, 0x05, 0x02, 0x00]),
    ("v_cmp_lt_f32_e64 s[4:5], v1, v2", &[0x04, 0x00, 0x41, 0xd0, 0x01, 0x05, 0x02, 0x00]),
    ("v_pk_mul_f32 v[10:11], v[2:3], v[4:5] neg_lo:[1,0] neg_hi:[1,1]", &[0x0a, 0x43, 0xb1, 0xd3, 0x02, 0x09, 0x02, 0x38]),
    ("v_pk_fma_f32 v[2:3], v[0:1], s[4:5], v[2:3] op_sel_hi:[1,0,1]", &[0x02, 0x40, 0xb0, 0xd3, 0x00, 0x09, 0x08, 0x0c]),
    ("v_pk_add_f32 v[8:9], s[10:11], v[2:3] neg_lo:[0,1] neg_hi:[0,1]", &[0x08, 0x42, 0xb2, 0xd3, 0x0a, 0x04, 0x02, 0x58]),
    ("v_fmac_f32_e32 v10, v12, v12", &[0x0c, 0x19, 0x14, 0x76]),
    ("v_sub_f32_e32 v12, s12, v4", &[0x0c, 0x08, 0x18, 0x04]),
    ("v_div_scale_f32 v14, vcc, 1.0, v10, 1.0", &[0x0e, 0x6a, 0xe0, 0xd1, 0xf2, 0x14, 0xca, 0x03]),
    ("v_mov_b32_e32 v5, v1", &[0x01, 0x03, 0x0a, 0x7e]),
    ("v_add_u32_e32 v13, -1, v11", &[0xc1, 0x16, 0x1a, 0x68]),
    ("v_sub_u32_e32 v13, v1, v2", &[0x01, 0x05, 0x1a, 0x6a]),
    ("v_and_b32_e32 v13, s3, v2", &[0x03, 0x04, 0x1a, 0x26]),
    ("v_or_b32_e32 v13, v1, v2", &[0x01, 0x05, 0x1a, 0x28]),
    ("v_xor_b32_e32 v13, v1, v2", &[0x01, 0x05, 0x1a, 0x2a]),
    ("v_lshlrev_b32_e32 v13, v1, v2", &[0x01, 0x05, 0x1a, 0x24]),
    ("v_lshrrev_b32_e32 v13, v1, v2", &[0x01, 0x05, 0x1a, 0x20]),
    ("v_ashrrev_i32_e32 v13, v1, v2", &[0x01, 0x05, 0x1a, 0x22]),
    ("v_mul_lo_u32 v13, v1, v2", &[0x0d, 0x00, 0x85, 0xd2, 0x01, 0x05, 0x02, 0x00]),
    ("v_add3_u32 v13, v1, v2, v3", &[0x0d, 0x00, 0xff, 0xd1, 0x01, 0x05, 0x0e, 0x04]),
    ("v_lshl_add_u32 v13, v1, v2, v3", &[0x0d, 0x00, 0xfd, 0xd1, 0x01, 0x05, 0x0e, 0x04]),
    ("v_bfe_u32 v13, v1, v2, v3", &[0x0d, 0x00, 0xc8, 0xd1, 0x01, 0x05, 0x0e, 0x04]),
    ("v_cndmask_b32_e32 v13, v1, v2, vcc", &[0x01, 0x05, 0x1a, 0x00]),
    ("v_cndmask_b32_e64 v13, v1, v2, s[4:5]", &[0x0d, 0x00, 0x00, 0xd1, 0x01, 0x05, 0x12, 0x00]),
    ("v_cmp_gt_i32_e32 vcc, s5, v6", &[0x05, 0x0c, 0x88, 0x7d]),
    ("v_cmp_le_u32_e64 s[4:5], v1, v2", &[0x04, 0x00, 0xcb, 0xd0, 0x01, 0x05, 0x02, 0x00]),
    ("v_lshl_add_u64 v[14:15], v[2:3], 2, v[4:5]", &[0x0e, 0x00, 0x08, 0xd2, 0x02, 0x05, 0x11, 0x04]),
    ("v_add_f32_e32 v10, 0x3089705f, v10", &[0xff, 0x14, 0x14, 0x02, 0x5f, 0x70, 0x89, 0x30]),
    ("v_mul_f32_e32 v11, 0x4f800000, v10", &[0xff, 0x14, 0x16, 0x0a, 0x00, 0x00, 0x80, 0x4f]),
    ("v_max_f32_e32 v11, v1, v2", &[0x01, 0x05, 0x16, 0x16]),
    ("v_fma_f32 v11, v1, v2, v3", &[0x0b, 0x00, 0xcb, 0xd1, 0x01, 0x05, 0x0e, 0x04]),
    ("v_mad_u64_u32 v[14:15], s[4:5], v1, v2, v[4:5]", &[0x0e, 0x04, 0xe8, 0xd1, 0x01, 0x05, 0x12, 0x04]),
    ("v_mad_u64_u32 v[14:15], vcc, s3, v1, v[4:5]", &[0x0e, 0x6a, 0xe8, 0xd1, 0x03, 0x02, 0x12, 0x04]),
    ("v_mad_u64_u32 v[2:3], s[6:7], v1, v2, s[8:9]", &[0x02, 0x06, 0xe8, 0xd1, 0x01, 0x05, 0x22, 0x00]),
    ("v_mad_u64_u32 v[2:3], s[6:7], v1, 3, 0", &[0x02, 0x06, 0xe8, 0xd1, 0x01, 0x07, 0x01, 0x02]),
    ("v_mad_u64_u32 v[2:3], s[6:7], v2, v3, v[2:3]", &[0x02, 0x06, 0xe8, 0xd1, 0x02, 0x07, 0x0a, 0x04]),
    ("v_lshlrev_b64 v[14:15], 2, v[2:3]", &[0x0e, 0x00, 0x8f, 0xd2, 0x82, 0x04, 0x02, 0x00]),
    ("v_lshlrev_b64 v[14:15], v1, v[2:3]", &[0x0e, 0x00, 0x8f, 0xd2, 0x01, 0x05, 0x02, 0x00]),
    ("v_lshlrev_b64 v[14:15], v1, s[4:5]", &[0x0e, 0x00, 0x8f, 0xd2, 0x01, 0x09, 0x00, 0x00]),
    ("v_lshlrev_b64 v[2:3], v2, v[2:3]", &[0x02, 0x00, 0x8f, 0xd2, 0x02, 0x05, 0x02, 0x00]),
];

/// One operand: a special f32 encoding, random bits, a moderate float, or a small integer.
fn value(r: &mut StdRng) -> u32 {
    const SPECIAL: [u32; 16] = [
        0x0000_0000,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0001,
        0x7f80_0001,
        0xff80_1234,
        0x0000_0001,
        0x807f_ffff,
        0x0040_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x7f7f_ffff,
        0x0080_0000,
        0x1f80_0000,
    ];
    // Biased exponents at the edges of the direct path's own tests (normal range, the division
    // macro's thresholds 23/24, the differences 96 and 100 and 150 from the middle, the
    // reciprocal's 252/253).
    const EDGE: [u32; 20] = [0, 1, 2, 23, 24, 25, 27, 28, 31, 32, 126, 127, 128, 151, 152, 222, 223, 252, 253, 254];
    let x = r.random::<u64>();
    match x % 6 {
        0 => SPECIAL[(x >> 8) as usize % SPECIAL.len()],
        1 => (x >> 16) as u32,
        2 => moderate(x),
        3 => (x >> 40) as u32 % 70,
        4 => (x >> 32) as u32 & 0x807f_ffff | EDGE[(x >> 8) as usize % EDGE.len()] << 23,
        _ => (x >> 20) as u32 & 0x3ff,
    }
}

/// A positive normal float of the smallest or largest exponents the square root's and
/// reciprocal's all-lanes branches take (1, 2, 251, 252).
fn extreme(x: u64) -> u32 {
    (x >> 32) as u32 & 0x007f_ffff | [1, 2, 251, 252][(x >> 8) as usize % 4] << 23
}

/// A float of moderate magnitude (biased exponent 100..155), either sign.
fn moderate(x: u64) -> u32 {
    (x >> 32) as u32 & 0x807f_ffff | ((100 + (x >> 8) % 55) as u32) << 23
}

/// Random registers, EXEC, VCC and MODE for trial `t` (MODE keeps f32 denormals except on
/// every eighth trial; IEEE on or off). Trials 3 and 11 of every 16 draw moderate floats only
/// (positive ones and VCC clear in trial 3), so that whole rows pass the direct path's
/// exponent tests and its all-lanes branches run too; trial 5 draws positive normal floats
/// at the ends of the range, whose square roots and reciprocals come closest to them; trials 13
/// and 14 set every select bit, then none.
fn randomise(w: &mut Wave, r: &mut StdRng, t: usize) {
    let draw = |r: &mut StdRng| match t % 16 {
        3 => moderate(r.random::<u64>()) & 0x7fff_ffff,
        11 => moderate(r.random::<u64>()),
        5 => extreme(r.random::<u64>()),
        _ => value(r),
    };
    for v in w.vgpr.iter_mut().take(24 * MAX_LANES) {
        *v = draw(r);
    }
    for s in 0..16 {
        w.sreg[s] = draw(r);
    }
    // Trials 13 and 14: every lane's select bit set, then clear (VCC and s[4:5]), so that
    // V_CNDMASK_B32's uniform-select copies run.
    match t % 16 {
        13 | 14 => {
            let bits = if t % 16 == 13 { !0 } else { 0 };
            w.sreg[4] = bits;
            w.sreg[5] = bits;
            w.set_vcc(bits as u64 | (bits as u64) << 32);
        }
        3 => w.set_vcc(0),
        _ => w.set_vcc(r.random::<u64>()),
    }
    let exec = match t % 4 {
        0 => !0,
        1 => r.random::<u64>() & r.random::<u64>(),
        _ => r.random::<u64>(),
    };
    w.set_exec(exec);
    let ieee = (r.random::<u64>() as u32 & 1) << 9;
    w.mode = if t % 8 == 7 { ieee } else { 0xf0 | ieee };
}

/// Runs case `asm` on both paths for `trials` random states; the number the direct path took.
fn differ(asm: &str, bytes: &[u8], r: &mut StdRng, trials: usize) -> usize {
    let mut rig = Rig::new();
    let Sem::Valu(op) = rig.classify(bytes) else { panic!("{asm}: not a VALU operation") };
    let Kind::Alu(a) = &op.kind else { panic!("{asm}: not a per-lane operation") };
    let f = a.fast.unwrap_or_else(|| panic!("{asm}: does not take the direct path"));
    let mut took = 0;
    for t in 0..trials {
        randomise(&mut rig.wave, r, t);
        let mut quick = rig.wave.clone();
        if !fast::run(f, a, &mut quick, &rig.env) {
            assert_eq!(quick.vgpr, rig.wave.vgpr, "{asm}: declined after writing");
            continue;
        }
        took += 1;
        let mut cx = ExecCtx { wave: &mut rig.wave, mem: &mut rig.mem, port: None, lds: &mut rig.lds, env: &rig.env };
        run_general(a, &mut cx);
        let general = &rig.wave;
        if let Some(i) = (0..general.vgpr.len()).find(|&i| general.vgpr[i] != quick.vgpr[i]) {
            let (reg, lane) = (i / MAX_LANES, i % MAX_LANES);
            panic!("{asm}, trial {t}: v{reg} lane {lane}: direct {:#010x}, general {:#010x}", quick.vgpr[i], general.vgpr[i]);
        }
        assert_eq!(quick.sreg, general.sreg, "{asm}, trial {t}: scalar registers differ");
        assert_eq!(quick.exec(), general.exec(), "{asm}, trial {t}: EXEC differs");
    }
    took
}

#[test]
fn direct_path_matches_general_path_bit_for_bit() {
    let mut r = StdRng::seed_from_u64(0x6869_7073_636f_7065);
    for (asm, bytes) in CASES {
        let took = differ(asm, bytes, &mut r, 400);
        // MODE keeps denormals on 7 trials in 8: the direct path must take those.
        assert!(took >= 350, "{asm}: the direct path took only {took} of 400 trials");
    }
}

#[test]
fn float_operations_decline_when_mode_flushes_denormals() {
    let mut rig = Rig::new();
    rig.wave.mode = 0;
    let (asm, bytes) = CASES[0];
    let Sem::Valu(op) = rig.classify(bytes) else { panic!("{asm}: not a VALU operation") };
    let Kind::Alu(a) = &op.kind else { panic!("{asm}: not a per-lane operation") };
    let f = a.fast.unwrap_or_else(|| panic!("{asm}: does not take the direct path"));
    assert!(!fast::run(f, a, &mut rig.wave.clone(), &rig.env), "{asm}: with denormals flushed the general path must run");
}
