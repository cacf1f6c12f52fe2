//! Image instructions executed on one wave: `image_sample` filtering over a pitched image
//! (point and bilinear, normalized and unnormalized coordinates, border and clamp), and random
//! resources that must never panic. The resource layouts are `exec::vmem::image`'s; encodings
//! from `llvm-objdump-19`.

use hipscope_isa::Processor;
use hipscope_sim::exec::vmem::image::{Ssharp, Tsharp, CLAMP_BORDER, CLAMP_LAST_TEXEL, CLAMP_WRAP};
use hipscope_sim::testing::Rig;
use hipscope_sim::MemoryKind;

/// `image_sample` executed on a 4 x 3 float image with rows of 64 texels: point and bilinear
/// filtering, unnormalized and normalized coordinates, border and clamp (expected values
/// computed by hand from the filtering rules).
#[test]
fn image_sample_filters_a_pitched_image() {
    // gfx90a: image_sample v1, v2, s[4:11], s[12:15] dmask:0x1  (coordinates in v2, v3)
    // gfx1100: image_sample_lz v1, v[1:2], s[4:11], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_2D
    // (encodings from llvm-objdump-19 of clang-19's tex2D code).
    let cases: [(Processor, [u8; 8], usize, usize, u32); 2] = [
        (Processor::Gfx90a, [0x00, 0x01, 0x80, 0xf0, 0x02, 0x01, 0x61, 0x00], 2, 12, 4 | 7 << 6),
        (Processor::Gfx1100, [0x04, 0x01, 0x7c, 0xf0, 0x01, 0x01, 0x01, 0x10], 1, 16, 22),
    ];
    for (p, inst, coord, samp, format) in cases {
        let mut r = Rig::new(p, true);
        let texels: Vec<u8> = (0..64 * 3).flat_map(|i: u32| ((i % 64) as f32 * 10.0 + (i / 64) as f32 * 100.0).to_le_bytes()).collect();
        let base = r.mem.alloc_init("img", texels, MemoryKind::Device);
        assert_eq!(base % 256, 0);
        let fam = p.family();
        let t = Tsharp::linear_2d(base, format, 4, 3, 64, [4, 0, 0, 1]).encode(fam);
        let mut setup = |clamp, unnorm, linear, s: [f32; 4], tc: [f32; 4]| {
            r.wave.sreg[4..12].copy_from_slice(&t);
            r.wave.sreg[samp..samp + 4].copy_from_slice(&Ssharp::encode(clamp, unnorm, linear));
            r.set_v(coord, |l| s[l % 4].to_bits());
            r.set_v(coord + 1, |l| tc[l % 4].to_bits());
            r.run(&inst);
            [0, 1, 2, 3].map(|l| f32::from_bits(r.wave.v(1, l)))
        };
        // Point, unnormalized: texel (floor x, floor y) = 10 x + 100 y; outside: border 0.
        let got = setup(CLAMP_BORDER, true, false, [1.5, 3.9, 4.2, 0.1], [2.5, 0.0, 1.0, -0.5]);
        assert_eq!(got, [210.0, 30.0, 0.0, 0.0], "{p:?}");
        // Bilinear, unnormalized, clamp: (1.0, 1.0) blends (0,0),(1,0),(0,1),(1,1) equally;
        // (0.25, 0.5) clamps to column 0 and row 0.
        let got = setup(CLAMP_LAST_TEXEL, true, true, [1.0, 0.25, 2.75, 4.5], [1.0, 0.5, 1.5, 2.9]);
        assert_eq!(got, [55.0, 0.0, 122.5, 230.0], "{p:?}");
        // Point, normalized: s * 4, t * 3.
        let got = setup(CLAMP_WRAP, false, false, [0.3, 0.9, 1.1, -0.1], [0.5, 0.1, 0.9, 0.5]);
        assert_eq!(got, [110.0, 30.0, 200.0, 130.0], "{p:?}");
    }
}

/// Random resources, samplers and coordinates never panic: they sample, fault or are refused.
#[test]
fn random_resources_and_coordinates_do_not_panic() {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let cases: [(Processor, [u8; 8]); 2] =
        [(Processor::Gfx90a, [0x00, 0x01, 0x80, 0xf0, 0x02, 0x01, 0x61, 0x00]), (Processor::Gfx1100, [0x04, 0x01, 0x7c, 0xf0, 0x01, 0x01, 0x01, 0x10])];
    for (p, inst) in cases {
        let mut r = Rig::new(p, true);
        let base = r.mem.alloc_init("img", vec![0x3c; 1 << 16], MemoryKind::Device);
        for k in 0..3000 {
            for s in 4..20 {
                r.wave.sreg[s] = next() as u32;
            }
            if k % 2 == 0 {
                // A plausible linear 2D T# over the allocation, random sizes and format.
                let fmt = (next() % 128) as u32;
                let t = Tsharp::linear_2d(base, fmt, (next() % 300) as u32, (next() % 300) as u32, (next() % 400) as u32, [4, 5, 6, 7]).encode(p.family());
                r.wave.sreg[4..12].copy_from_slice(&t);
            }
            for v in 1..4 {
                let (a, b) = (next(), next() % 3);
                r.set_v(v, |l| match b {
                    0 => (a as u32).rotate_left(l as u32),
                    1 => ((l as f32 - 20.0) * (a % 97) as f32 * 0.37).to_bits(),
                    _ => [f32::NAN, f32::INFINITY, -1e30, 3e9][l % 4].to_bits(),
                });
            }
            r.wave.set_exec(next());
            let _ = r.exec(&inst);
        }
    }
}
