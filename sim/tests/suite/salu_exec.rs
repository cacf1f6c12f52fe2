//! EXEC-mask instructions: `s_*_saveexec_*` and `s_*_wrexec_*` in wave64 and wave32
//! (ISA manuals, "SOP1 Instructions": saveexec: D = EXEC, EXEC = op(S0, EXEC),
//! SCC = EXEC != 0; wrexec: D = the new EXEC). Expected masks computed in the test.

use hipscope_isa::Processor;
use hipscope_sim::testing::Rig;

fn set64(r: &mut Rig, i: usize, v: u64) {
    r.wave.sreg[i] = v as u32;
    r.wave.sreg[i + 1] = (v >> 32) as u32;
}

fn get64(r: &Rig, i: usize) -> u64 {
    r.wave.sreg[i] as u64 | (r.wave.sreg[i + 1] as u64) << 32
}

const E: u64 = 0xffff_0000_ff00_ff00;
const S: u64 = 0x0f0f_f0f0_0f0f_f0f0;

/// Run a b64 saveexec/wrexec with EXEC = E, s[2:3] = S; (s[0:1], EXEC, SCC).
fn run64(p: Processor, bytes: &[u8], s: u64) -> (u64, u64, bool) {
    let mut r = Rig::new(p, true);
    r.wave.set_exec(E);
    set64(&mut r, 2, s);
    r.wave.scc = false;
    r.run(bytes);
    (get64(&r, 0), r.wave.exec(), r.wave.scc)
}

#[test]
fn saveexec_b64_wave64() {
    let cases: [(&[u8], u64, &str); 8] = [
        (&[0x02, 0x20, 0x80, 0xbe], S & E, "s_and_saveexec_b64 s[0:1], s[2:3]"),
        (&[0x02, 0x21, 0x80, 0xbe], S | E, "s_or_saveexec_b64 s[0:1], s[2:3]"),
        (&[0x02, 0x22, 0x80, 0xbe], S ^ E, "s_xor_saveexec_b64 s[0:1], s[2:3]"),
        (&[0x02, 0x23, 0x80, 0xbe], S & !E, "s_andn2_saveexec_b64 s[0:1], s[2:3]"),
        (&[0x02, 0x24, 0x80, 0xbe], S | !E, "s_orn2_saveexec_b64 s[0:1], s[2:3]"),
        (&[0x02, 0x25, 0x80, 0xbe], !(S & E), "s_nand_saveexec_b64 s[0:1], s[2:3]"),
        (&[0x02, 0x26, 0x80, 0xbe], !(S | E), "s_nor_saveexec_b64 s[0:1], s[2:3]"),
        (&[0x02, 0x27, 0x80, 0xbe], !(S ^ E), "s_xnor_saveexec_b64 s[0:1], s[2:3]"),
    ];
    for (bytes, exec, asm) in cases {
        assert_eq!(run64(Processor::Gfx900, bytes, S), (E, exec, exec != 0), "{asm}");
    }
    // EXEC becoming zero clears SCC.
    assert_eq!(run64(Processor::Gfx900, &[0x02, 0x20, 0x80, 0xbe], !E), (E, 0, false));
    // s_and_saveexec_b64 s[0:1], s[2:3]
}

#[test]
fn saveexec_source_and_destination_may_be_the_same() {
    let mut r = Rig::new(Processor::Gfx900, true);
    r.wave.set_exec(E);
    set64(&mut r, 2, S);
    r.run(&[0x02, 0x20, 0x82, 0xbe]); // s_and_saveexec_b64 s[2:3], s[2:3]
    assert_eq!((get64(&r, 2), r.wave.exec()), (E, S & E));
}

#[test]
fn gfx10_andn1_orn1_and_wrexec() {
    let cases: [(&[u8], u64, bool, &str); 4] = [
        (&[0x02, 0x37, 0x80, 0xbe], !S & E, false, "s_andn1_saveexec_b64 s[0:1], s[2:3]"),
        (&[0x02, 0x38, 0x80, 0xbe], !S | E, false, "s_orn1_saveexec_b64 s[0:1], s[2:3]"),
        (&[0x02, 0x39, 0x80, 0xbe], !S & E, true, "s_andn1_wrexec_b64 s[0:1], s[2:3]"),
        (&[0x02, 0x3a, 0x80, 0xbe], S & !E, true, "s_andn2_wrexec_b64 s[0:1], s[2:3]"),
    ];
    for (bytes, exec, wr, asm) in cases {
        let saved = if wr { exec } else { E };
        assert_eq!(run64(Processor::Gfx1030, bytes, S), (saved, exec, exec != 0), "{asm}");
    }
}

#[test]
fn rdna3_wave64() {
    assert_eq!(run64(Processor::Gfx1100, &[0x02, 0x21, 0x80, 0xbe], S), (E, S & E, true)); // s_and_saveexec_b64 s[0:1], s[2:3]
    assert_eq!(run64(Processor::Gfx1100, &[0x02, 0x37, 0x80, 0xbe], S), (S & !E, S & !E, true));
    // s_and_not1_wrexec_b64 s[0:1], s[2:3]
}

#[test]
fn saveexec_b32_wave32() {
    const E32: u32 = 0xff00_ff00;
    const S32: u32 = 0x0f0f_f0f0;
    let cases: [(&[u8], u32, bool, &str); 8] = [
        (&[0x02, 0x20, 0x80, 0xbe], S32 & E32, false, "s_and_saveexec_b32 s0, s2"),
        (&[0x02, 0x22, 0x80, 0xbe], S32 | E32, false, "s_or_saveexec_b32 s0, s2"),
        (&[0x02, 0x2c, 0x80, 0xbe], !S32 & E32, false, "s_and_not0_saveexec_b32 s0, s2"),
        (&[0x02, 0x30, 0x80, 0xbe], S32 & !E32, false, "s_and_not1_saveexec_b32 s0, s2"),
        (&[0x02, 0x2e, 0x80, 0xbe], !S32 | E32, false, "s_or_not0_saveexec_b32 s0, s2"),
        (&[0x02, 0x32, 0x80, 0xbe], S32 | !E32, false, "s_or_not1_saveexec_b32 s0, s2"),
        (&[0x02, 0x34, 0x80, 0xbe], !S32 & E32, true, "s_and_not0_wrexec_b32 s0, s2"),
        (&[0x02, 0x36, 0x80, 0xbe], S32 & !E32, true, "s_and_not1_wrexec_b32 s0, s2"),
    ];
    for (bytes, exec, wr, asm) in cases {
        let mut r = Rig::new(Processor::Gfx1100, false);
        r.wave.set_exec(E32 as u64);
        r.wave.sreg[2] = S32;
        r.run(bytes);
        let saved = if wr { exec } else { E32 };
        assert_eq!((r.wave.sreg[0], r.wave.exec(), r.wave.scc), (saved, exec as u64, exec != 0), "{asm}");
    }
}

#[test]
fn saveexec_b32_zero_result_clears_scc() {
    let mut r = Rig::new(Processor::Gfx1100, false);
    r.wave.set_exec(0x0000_ffff);
    r.wave.sreg[2] = 0xffff_0000;
    r.wave.scc = true;
    r.run(&[0x02, 0x20, 0x80, 0xbe]); // s_and_saveexec_b32 s0, s2
    assert_eq!((r.wave.sreg[0], r.wave.exec(), r.wave.scc), (0xffff, 0, false));
}
