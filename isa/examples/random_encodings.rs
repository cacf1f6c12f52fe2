//! Print random candidate encodings for a processor, one per line in llvm-mc's byte syntax.
//!
//! Used by `tools/llvm-diff` to build differential test vectors with `llvm-mc-19`:
//! `cargo run --release -p hipscope-isa --example random_encodings -- gfx90a 1000 7`.
//! Each line holds 16 bytes: a table row's fixed bits with random operand bits (or, for one
//! line in five, random words), followed by random trailing bytes (literal / NSA space).

use hipscope_isa::tables::ROWS;
use hipscope_isa::Processor;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(cpu), Some(count), Some(seed)) = (args.get(1), args.get(2), args.get(3)) else {
        eprintln!("usage: random_encodings CPU COUNT SEED");
        std::process::exit(2);
    };
    let Ok(processor) = cpu.parse::<Processor>() else {
        eprintln!("unknown processor {cpu}");
        std::process::exit(2);
    };
    let count: usize = count.parse().unwrap_or(1000);
    let mut rng = StdRng::seed_from_u64(seed.parse().unwrap_or(1));
    let bit = 1u32 << processor as u32;
    // LLVM 19's modes (0..4) only: the random test compares with llvm-mc-19.
    let rows: Vec<_> = ROWS.iter().filter(|r| r.valid[..4].iter().any(|v| v & bit != 0)).collect();
    for _ in 0..count {
        let mut bytes = [0u8; 16];
        rng.fill(&mut bytes[..]);
        if rng.random_range(0..5) != 0 {
            let row = rows[rng.random_range(0..rows.len())];
            let mut w = [0u8; 16];
            w[..12].copy_from_slice(&bytes[..12]);
            let word = (u128::from_le_bytes(w) & !row.mask) | row.value;
            bytes[..12].copy_from_slice(&word.to_le_bytes()[..12]);
        }
        let line: Vec<String> = bytes.iter().map(|b| format!("0x{b:02x}")).collect();
        println!("{}", line.join(","));
    }
}
