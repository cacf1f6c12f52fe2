//! Robustness: random encodings of every FLAT/GLOBAL/SCRATCH, MUBUF/MTBUF and DS row of
//! every target, executed with random registers, EXEC masks, buffer resources and addresses
//! (some inside allocations, some not) never panic: they run, fault, or are unsupported.

use crate::vmem_util;

use hipscope_isa::tables::{flags, ROWS};
use hipscope_isa::Processor;
use hipscope_sim::testing::Rig;
use vmem_util::*;

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Registers: half the VGPR pairs point into the buffer, the rest are random.
fn randomize(r: &mut Rig, rng: &mut Rng, base: u64) {
    for reg in 0..24 {
        let pick = rng.next();
        if reg % 2 == 0 && pick & 1 == 0 {
            let off = pick >> 40;
            set_v64(r, reg, |l| base + (off + 4 * l as u64) % 8192);
        } else {
            let seed = rng.next();
            r.set_v(reg, |l| (seed.rotate_left(l as u32) ^ l as u64) as u32);
        }
    }
    for s in 0..32 {
        r.wave.sreg[s] = rng.next() as u32;
    }
    // A plausible V# in s[8:11] half the time, a plausible scratch setup always.
    if rng.next() & 1 == 0 {
        set_s64(r, 8, base);
        set_s(r, 10, 8192);
    }
    set_s64(r, SLOT_FLAT_SCRATCH_LO, base);
    set_s(r, SLOT_M0, rng.next() as u32);
    let exec = rng.next();
    set_exec(r, exec);
}

fn fuzz(p: Processor, w64: bool, iterations: usize) -> (usize, usize) {
    let rows: Vec<_> = ROWS
        .iter()
        .filter(|row| row.has(flags::FLAT | flags::MUBUF | flags::MTBUF | flags::DS))
        .filter(|row| row.valid.iter().any(|v| v >> (p as u32) & 1 != 0))
        .collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ p as u64);
    let (mut ran, mut faulted) = (0, 0);
    let mut r = rig(p, w64);
    let base = alloc(&mut r, "buf", vec![0x5a; 8192]);
    r.env.scratch_base = base;
    r.env.scratch_per_lane = 64;
    let decoder = hipscope_isa::decode::Decoder::new(p, r.wave.wave64);
    for _ in 0..iterations {
        let row = rows[(rng.next() % rows.len() as u64) as usize];
        let word = row.value | (((rng.next() as u128) << 64 | rng.next() as u128) & !row.mask);
        let bytes = &word.to_le_bytes()[..row.bytes as usize];
        r.lds = vec![0; 4096];
        randomize(&mut r, &mut rng, base);
        if decoder.decode(bytes, r.wave.pc).is_err() {
            continue;
        }
        match r.exec(bytes) {
            Ok(_) => ran += 1,
            Err(_) => faulted += 1,
        }
    }
    (ran, faulted)
}

#[test]
fn random_memory_encodings_never_panic() {
    for (p, w64) in [
        (Processor::Gfx803, true),
        (Processor::Gfx908, true),
        (Processor::Gfx90a, true),
        (Processor::Gfx942, true),
        (Processor::Gfx1030, false),
        (Processor::Gfx1030, true),
        (Processor::Gfx1100, false),
        (Processor::Gfx1100, true),
        (Processor::Gfx1201, false),
    ] {
        let (ran, faulted) = fuzz(p, w64, 20_000);
        println!("{p:?} w64={w64}: {ran} ran, {faulted} faulted or unsupported");
        assert!(ran > 1000, "{p:?}: too few encodings ran ({ran})");
    }
}
