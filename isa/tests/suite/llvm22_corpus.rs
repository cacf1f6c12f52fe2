//! Decoder + printer against LLVM 22.1.8's AMDGPU disassembler tests (`tests/llvm22/`).
//!
//! Every row of `tests/llvm22/<cpu>[__<mattr>].tsv.gz` is an encoding line of LLVM 22's
//! `llvm/test/MC/Disassembler/AMDGPU` and the text `llvm-mc-22 --disassemble` prints for it with
//! that `-mcpu`/`-mattr` (`<invalid>`: LLVM rejects it); `tools/llvm22corpus` made them. Decoding
//! the bytes with LLVM 22's rows and printing (`Decoder::llvm22`) must consume all of them and
//! print that text (whitespace-normalised), or fail for `<invalid>`. The test prints agreement per configuration and in total and fails below
//! `BAR` — the figure reached, short of the 99.5 % (the gap is printed).

use flate2::read::GzDecoder;
use hipscope_isa::decode::Decoder;
use hipscope_isa::print::format_inst;
use hipscope_isa::{Family, Processor};
use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::Path;

/// Total agreement the decoder must keep (percent); the goal is 99.5.
const BAR: f64 = 99.8;
const GOAL: f64 = 99.5;

/// Decoding mode of one configuration file name (`gfx1100__+wavefrontsize64,-real-true16`).
fn config(stem: &str) -> Option<(Processor, bool, bool)> {
    let (cpu, attrs) = stem.split_once("__").unwrap_or((stem, ""));
    let p: Processor = cpu.parse().ok()?;
    let mut wave64 = false;
    // LLVM 22's gfx11 processors have FeatureRealTrue16Insts (AMDGPU.td,
    // FeatureISAVersion11_Common); gfx12's do not.
    let mut true16 = p.family() == Family::Gfx11;
    // With both wave sizes asked for, llvm-mc-22 disassembles as wave32 (`vcc_lo`).
    let wave32 = attrs.to_ascii_lowercase().contains("+wavefrontsize32");
    for a in attrs.split(',').filter(|a| !a.is_empty()) {
        match a.to_ascii_lowercase().as_str() {
            "+wavefrontsize64" => wave64 = !wave32,
            "+real-true16" => true16 = true,
            "-real-true16" => true16 = false,
            _ => {}
        }
    }
    Some((p, wave64, true16))
}

fn normalise(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    (0..s.len()).step_by(2).map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok())).collect()
}

/// Whether our decoder agrees with LLVM 22 on one row; the difference otherwise.
fn agrees(d: &Decoder, bytes: &[u8], expected: &str) -> Result<(), String> {
    match (expected, d.decode(bytes, 0)) {
        ("<invalid>", Err(_)) => Ok(()),
        ("<invalid>", Ok(i)) => Err(format!("expected invalid, got `{}`", format_inst(&i, d.ctx()))),
        (_, Err(e)) => Err(format!("expected `{expected}`, got error: {e}")),
        (_, Ok(i)) => {
            let got = format_inst(&i, d.ctx());
            if i.size as usize == bytes.len() && normalise(&got) == normalise(expected) {
                Ok(())
            } else {
                Err(format!("expected `{expected}`, got `{got}` ({} of {} bytes) [{}]", i.size, bytes.len(), i.row.record))
            }
        }
    }
}

#[test]
fn llvm22_disassembler_corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/llvm22");
    let mut files: Vec<_> = fs::read_dir(&dir).expect("tests/llvm22").filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.retain(|p| p.to_string_lossy().ends_with(".tsv.gz"));
    files.sort();
    let (mut ok, mut total) = (0usize, 0usize);
    let mut by_mnemonic: BTreeMap<String, usize> = BTreeMap::new();
    let mut examples = Vec::new();
    println!("LLVM 22.1.8 disassembler corpus: agreement with llvm-mc-22 per configuration");
    for file in &files {
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        let stem = name.trim_end_matches(".tsv.gz");
        let Some((p, wave64, true16)) = config(stem) else {
            println!("  {stem:45} not scored (unknown processor)");
            continue;
        };
        let mut text = String::new();
        GzDecoder::new(fs::File::open(file).expect("open")).read_to_string(&mut text).expect("gunzip");
        let d = Decoder::llvm22(p, wave64, true16);
        let (mut fok, mut ftotal) = (0, 0);
        for line in text.lines() {
            let Some((hex, expected)) = line.split_once('\t') else { continue };
            let Some(bytes) = hex_bytes(hex) else { continue };
            ftotal += 1;
            match agrees(&d, &bytes, expected) {
                Ok(()) => fok += 1,
                Err(why) => {
                    let mn = expected.split_whitespace().next().unwrap_or("?").to_string();
                    *by_mnemonic.entry(format!("{}:{mn}", p.family())).or_default() += 1;
                    // HIPSCOPE_CORPUS_VERBOSE=<configuration prefix> lists differences (the
                    // first 60, or HIPSCOPE_CORPUS_MAX of them).
                    if std::env::var("HIPSCOPE_CORPUS_VERBOSE").is_ok_and(|v| stem.starts_with(&v)) {
                        examples.push(format!("{stem} {hex}: {why}"));
                    }
                }
            }
        }
        println!("  {stem:45} {fok:6}/{ftotal:6} = {:7.3} %", 100.0 * fok as f64 / ftotal.max(1) as f64);
        ok += fok;
        total += ftotal;
    }
    let pct = 100.0 * ok as f64 / total.max(1) as f64;
    println!("  total {ok}/{total} = {pct:.3} % (goal {GOAL} %, gap {:.3} points)", (GOAL - pct).max(0.0));
    let mut worst: Vec<_> = by_mnemonic.into_iter().collect();
    worst.sort_by_key(|w| std::cmp::Reverse(w.1));
    for (m, n) in worst.iter().take(40) {
        println!("  differs: {m} x{n}");
    }
    for e in examples.iter().take(std::env::var("HIPSCOPE_CORPUS_MAX").ok().and_then(|n| n.parse().ok()).unwrap_or(60)) {
        println!("  {e}");
    }
    assert!(total > 300_000, "only {total} corpus lines were checked");
    assert!(pct >= BAR, "agreement {pct:.3} % fell below {BAR} %");
}
