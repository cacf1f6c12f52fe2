//! Helpers shared by the vector-memory and LDS instruction tests (`vmem_*.rs`, `ds_*.rs`).
//!
//! Every encoding in these tests comes from `llvm-mc-19 -arch=amdgcn -mcpu=<cpu>
//! -show-encoding` and is pasted with its assembly; expected values are computed here from
//! the ISA manuals' definitions, never from hipscope's own output.
#![allow(dead_code)]

use hipscope_isa::Processor;
use hipscope_sim::exec::{Fidelity, Sem};
use hipscope_sim::testing::Rig;
use hipscope_sim::{FaultKind, MemoryKind};

pub const SLOT_FLAT_SCRATCH_LO: usize = 128;
pub const SLOT_FLAT_SCRATCH_HI: usize = 129;
pub const SLOT_M0: usize = 124;

pub fn rig(p: Processor, wave64: bool) -> Rig {
    Rig::new(p, wave64)
}

/// A deterministic byte pattern with both high and low bytes (sign bits set and clear).
pub fn pattern(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i as u32 * 73 + 0x91) as u8).collect()
}

pub fn alloc(r: &mut Rig, name: &str, bytes: Vec<u8>) -> u64 {
    r.mem.alloc_init(name, bytes, MemoryKind::Device)
}

pub fn bytes(r: &Rig, name: &str) -> Vec<u8> {
    r.mem.find(name).map(|a| a.data.to_vec()).unwrap_or_default()
}

pub fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

pub fn le64(b: &[u8], at: usize) -> u64 {
    le32(b, at) as u64 | (le32(b, at + 4) as u64) << 32
}

pub fn put32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

pub fn put64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

pub fn v(r: &Rig, reg: usize, lane: usize) -> u32 {
    r.wave.v(reg, lane)
}

pub fn set_s(r: &mut Rig, reg: usize, val: u32) {
    r.wave.sreg[reg] = val;
}

pub fn set_s64(r: &mut Rig, reg: usize, val: u64) {
    r.wave.sreg[reg] = val as u32;
    r.wave.sreg[reg + 1] = (val >> 32) as u32;
}

/// `v[reg:reg+1]` = a 64-bit value per lane.
pub fn set_v64(r: &mut Rig, reg: usize, f: impl Fn(usize) -> u64) {
    r.set_v(reg, |l| f(l) as u32);
    r.set_v(reg + 1, |l| (f(l) >> 32) as u32);
}

pub fn set_exec(r: &mut Rig, mask: u64) {
    let m = mask & r.wave.lane_mask();
    r.wave.set_exec(m);
}

pub fn lanes(r: &Rig) -> usize {
    r.wave.lanes()
}

pub fn fidelity(r: &Rig, enc: &[u8]) -> Fidelity {
    r.classify(enc).fidelity()
}

pub fn is_supported(r: &Rig, enc: &[u8]) -> bool {
    !matches!(r.classify(enc), Sem::Unsupported)
}

/// Run, expecting a memory violation; returns (lane, address).
pub fn expect_mem_fault(r: &mut Rig, enc: &[u8]) -> (u32, u64) {
    match r.exec(enc) {
        Err(FaultKind::MemoryViolation { lane, address, .. }) => (lane, address),
        other => panic!("expected a memory violation, got {other:?}"),
    }
}

/// Sign-extend the low `bits` of `v`.
pub fn sext(v: u32, bits: u32) -> u32 {
    (((v << (32 - bits)) as i32) >> (32 - bits)) as u32
}
