//! Differential test against llvm-mc-19 on random encodings.
//!
//! `tests/data/llvm-mc-random.tsv` holds ~11 000 random candidate encodings (table rows with
//! random operand bits, and random words) for 11 target configurations, each with what
//! `llvm-mc-19 -disassemble` made of it: the length and text of the first instruction, or
//! "invalid". It was produced by `tools/llvm-diff/make_vectors.py`; LLVM is the independent
//! oracle. Our decoder must accept exactly what LLVM accepts, with the same length and text,
//! except for the lines listed with a reason in `tests/llvm-mc-random-mismatches.txt`.

use hipscope_isa::decode::Decoder;
use hipscope_isa::print::format_inst;
use hipscope_isa::Processor;
use std::collections::BTreeMap;
use std::path::Path;

fn normalise(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn hex_bytes(s: &str) -> Vec<u8> {
    (0..s.len() / 2).filter_map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()).collect()
}

#[test]
fn agrees_with_llvm_mc_on_random_encodings() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let data = std::fs::read_to_string(dir.join("data/llvm-mc-random.tsv")).expect("committed vectors");
    let accepted: BTreeMap<String, String> = std::fs::read_to_string(dir.join("llvm-mc-random-mismatches.txt"))
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once('\t').map(|(k, v)| (k.to_string(), v.to_string())))
        .collect();
    let mut decoders: BTreeMap<(Processor, bool), Decoder> = BTreeMap::new();
    let mut per_target: BTreeMap<String, (usize, usize, usize, usize)> = BTreeMap::new();
    let mut unexpected = Vec::new();
    for line in data.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.splitn(5, '\t').collect();
        let [proc, w64, hex, len, text] = f[..] else { panic!("bad vector line: {line}") };
        let processor: Processor = proc.parse().expect("processor");
        let wave64 = w64 == "1";
        let decoder = decoders.entry((processor, wave64)).or_insert_with(|| Decoder::new(processor, wave64));
        let bytes = hex_bytes(hex);
        let llvm_len: usize = len.parse().expect("length");
        let ours = decoder.decode(&bytes, 0);
        let verdict = match (llvm_len, &ours) {
            (0, Err(_)) => None,
            (0, Ok(i)) => Some(format!("LLVM rejects; we decode `{}`", format_inst(i, decoder.ctx()))),
            (_, Err(e)) => Some(format!("LLVM decodes `{text}`; we reject ({e})")),
            (n, Ok(i)) => {
                let got = format_inst(i, decoder.ctx());
                (i.size as usize != n || normalise(&got) != normalise(text))
                    .then(|| format!("LLVM `{text}` ({n} B); we `{got}` ({} B) [{}]", i.size, i.row.record))
            }
        };
        let key = format!("{proc}{}:{hex}", if wave64 { "+w64" } else { "" });
        let t = per_target.entry(format!("{proc}{}", if wave64 { " w64" } else { " w32" })).or_default();
        t.0 += 1;
        if llvm_len == 0 {
            t.2 += 1;
        }
        match verdict {
            None => {
                t.1 += 1;
                if llvm_len == 0 {
                    t.3 += 1;
                }
            }
            Some(why) if !accepted.contains_key(&key) => unexpected.push(format!("{key}\t{why}")),
            Some(_) => {}
        }
    }
    println!("random encodings vs llvm-mc-19 (agree / total, of which invalid rejected / invalid):");
    for (t, (n, ok, inv, inv_ok)) in &per_target {
        println!("  {t:12} {ok:5}/{n:5}   invalid {inv_ok}/{inv}");
    }
    for u in unexpected.iter().take(30) {
        println!("  mismatch {u}");
    }
    if let Ok(path) = std::env::var("HIPSCOPE_RANDOM_DUMP") {
        std::fs::write(path, unexpected.join("\n") + "\n").expect("dump");
    }
    assert!(unexpected.is_empty(), "{} disagreements with llvm-mc not listed in llvm-mc-random-mismatches.txt", unexpected.len());
}
