//! The decoder and printer never panic, whatever the bytes.
//!
//! Inputs are drawn per processor and mode from every table row: the row's fixed bits with
//! random operand bits and random trailing words (literals, NSA bytes), plus fully random
//! words. Each case must decode to an instruction that prints, or be rejected.

use hipscope_isa::decode::Decoder;
use hipscope_isa::print::format_inst;
use hipscope_isa::tables::ROWS;
use hipscope_isa::Processor;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::panic::{catch_unwind, AssertUnwindSafe};

fn case_bytes(rng: &mut StdRng) -> Vec<u8> {
    let mut bytes = vec![0u8; 16];
    rng.fill(&mut bytes[..]);
    if rng.random_bool(0.8) {
        let row = &ROWS[rng.random_range(0..ROWS.len())];
        let random = u128::from_le_bytes({
            let mut b = [0u8; 16];
            b[..12].copy_from_slice(&bytes[..12]);
            b
        });
        let word = (random & !row.mask) | row.value;
        bytes[..12].copy_from_slice(&word.to_le_bytes()[..12]);
    }
    let len = rng.random_range(4..=16);
    bytes.truncate(len);
    bytes
}

#[test]
fn random_encodings_never_panic() {
    let mut rng = StdRng::seed_from_u64(0x5eed_dec0de);
    let (mut cases, mut decoded, mut panics) = (0usize, 0usize, Vec::new());
    for &p in Processor::ALL {
        for wave64 in [false, true] {
            let decoder = Decoder::new(p, wave64);
            for _ in 0..1_500 {
                let bytes = case_bytes(&mut rng);
                cases += 1;
                let result = catch_unwind(AssertUnwindSafe(|| {
                    decoder.decode(&bytes, 0x1000).map(|inst| {
                        assert!(inst.size as usize <= bytes.len(), "size beyond input");
                        format_inst(&inst, decoder.ctx())
                    })
                }));
                match result {
                    Ok(Ok(_)) => decoded += 1,
                    Ok(Err(_)) => {}
                    Err(_) => panics.push(format!("{p} w64={wave64} {bytes:02x?}")),
                }
            }
        }
    }
    // Whole random code ranges through the fuzz entry point (processor chosen by byte 0).
    for _ in 0..2_000 {
        let mut data = vec![0u8; rng.random_range(1..200)];
        rng.fill(&mut data[..]);
        cases += 1;
        if catch_unwind(|| hipscope_isa::decode::fuzz_one(&data)).is_err() {
            panics.push(format!("fuzz_one {data:02x?}"));
        }
    }
    println!("decoder robustness: {cases} cases, {decoded} single decodes, {} panics", panics.len());
    assert!(cases >= 10_000);
    assert!(panics.is_empty(), "panics on: {:#?}", &panics[..panics.len().min(10)]);
}
