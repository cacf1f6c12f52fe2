//! Robustness of VALU classification and execution over every vector-ALU encoding in LLVM's
//! disassembler tests (`../shared/llvm-mc-tests`): classifying never panics, and every
//! instruction that classifies executes without panicking on a wave with pseudo-random
//! registers, EXEC and MODE (wave32 and wave64). Prints how many distinct VALU mnemonics
//! classify per family.

use hipscope_isa::decode::{Decoder, Inst};
use hipscope_isa::tables::flags;
use hipscope_isa::Processor;
use hipscope_sim::exec::{classify, execute, ExecCtx, Sem};
use hipscope_sim::testing::Rig;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn parse_bytes(line: &str) -> Option<Vec<u8>> {
    let s = line.split('#').next()?.split("//").next()?;
    let mut out = Vec::new();
    for tok in s.split(|c: char| c == ',' || c.is_whitespace()).filter(|t| !t.is_empty()) {
        out.push(u8::from_str_radix(tok.strip_prefix("0x")?, 16).ok()?);
    }
    (!out.is_empty()).then_some(out)
}

/// (processor, wave64, real_true16) of each disassembling RUN line.
fn configs(text: &str) -> Vec<(Processor, bool, bool)> {
    let mut out = Vec::new();
    for line in text.lines().filter(|l| l.contains("RUN:") && l.contains("-disassemble")) {
        let mut cpu = None;
        let (mut w64, mut t16) = (false, false);
        for tok in line.split_whitespace() {
            if let Some(v) = tok.strip_prefix("-mcpu=") {
                cpu = v.parse::<Processor>().ok();
            }
            if let Some(v) = tok.strip_prefix("-mattr=") {
                w64 |= v.contains("+wavefrontsize64");
                t16 |= v.contains("+real-true16");
            }
        }
        if let Some(p) = cpu {
            out.push((p, w64, t16));
        }
    }
    out
}

/// Deterministic pseudo-random state.
fn scramble(r: &mut Rig, seed: u64) {
    let mut x = seed | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for reg in 0..256 {
        for l in 0..64 {
            r.wave.set_v(reg, l, next() as u32);
        }
    }
    for s in 0..106 {
        r.wave.sreg[s] = next() as u32;
    }
    r.wave.set_vcc(next());
    r.wave.set_exec(next() | 1);
    r.wave.sreg[hipscope_sim::wave::slot::M0] = next() as u32 & 0x3f;
    r.wave.mode = next() as u32 & 0x3ff;
}

fn run(r: &mut Rig, inst: &Inst, sem: &Sem) {
    let mut cx = ExecCtx { wave: &mut r.wave, mem: &mut r.mem, port: None, lds: &mut r.lds, env: &r.env };
    let _ = execute(sem, inst, &mut cx);
}

#[test]
fn corpus_encodings_classify_and_execute_without_panics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/llvm-mc-tests/Disassembler/AMDGPU");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        println!("SKIPPED: {} not found", dir.display());
        return;
    };
    let mut supported: BTreeMap<&'static str, BTreeSet<&'static str>> = BTreeMap::new();
    let mut unsupported: BTreeMap<&'static str, BTreeSet<&'static str>> = BTreeMap::new();
    let (mut executed, mut seen) = (0usize, 0usize);
    for e in entries.flatten() {
        let Ok(text) = std::fs::read_to_string(e.path()) else { continue };
        let inputs: Vec<Vec<u8>> = text.lines().filter(|l| l.trim_start().starts_with("0x")).filter_map(|l| parse_bytes(l.trim())).collect();
        for (p, w64, t16) in configs(&text) {
            let decoder = Decoder::with_true16(p, w64, t16);
            let mut rig = Rig::new(p, w64);
            for (i, bytes) in inputs.iter().enumerate() {
                let Ok(inst) = decoder.decode(bytes, 0x1000) else { continue };
                if !inst.has(flags::VALU) || inst.has(flags::FLAT | flags::MUBUF | flags::MTBUF | flags::DS | flags::MIMG) {
                    continue;
                }
                seen += 1;
                let sem = classify(&inst, &rig.env);
                let fam = p.family().name();
                if sem == Sem::Unsupported {
                    unsupported.entry(fam).or_default().insert(inst.mnemonic());
                    continue;
                }
                supported.entry(fam).or_default().insert(inst.mnemonic());
                scramble(&mut rig, (i as u64 + 1) * 0x9e37_79b9_7f4a_7c15);
                run(&mut rig, &inst, &sem);
                executed += 1;
            }
        }
    }
    println!("{seen} VALU encodings decoded, {executed} executed");
    for (fam, s) in &supported {
        let u = unsupported.get(fam).map_or(0, |u| u.len());
        println!("{fam}: {} mnemonics with semantics, {u} without", s.len());
    }
    for (fam, u) in &unsupported {
        println!("{fam} without semantics: {}", u.iter().copied().collect::<Vec<_>>().join(" "));
    }
    assert!(executed > 10_000);
}
