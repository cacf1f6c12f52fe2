//! A bench for instruction-level tests: one wave, a memory, an LDS, and a way to execute an
//! encoded instruction (get encodings from `llvm-mc-19 -show-encoding`; tests must not need
//! LLVM at run time, so paste the bytes with the assembly in a comment).

use crate::exec::{classify, execute, Apertures, Env, ExecCtx, Flow, Sem};
use crate::fault::{FaultKind, WaveId};
use crate::memory::Memory;
use crate::wave::Wave;
use hipscope_isa::decode::{Ctx, Decoder, Inst};
use hipscope_isa::Processor;

/// One wave and its surroundings.
pub struct Rig {
    pub wave: Wave,
    pub mem: Memory,
    pub lds: Vec<u8>,
    pub env: Env,
    decoder: Decoder,
    true16: Option<crate::kernel::True16Fallback>,
}

impl Rig {
    /// A wave with EXEC all ones, 64 KiB of LDS, PC at 0x1000.
    pub fn new(processor: Processor, wave64: bool) -> Rig {
        let mut wave = Wave::new(WaveId::default(), wave64 || !processor.family().is_rdna());
        wave.pc = 0x1000;
        let full = wave.lane_mask();
        wave.set_exec(full);
        let env = Env {
            decode: Ctx::new(processor, wave.wave64, false),
            family: processor.family(),
            sramecc: false,
            apertures: Apertures::DEFAULT,
            clock: 0,
            rate: crate::exec::clock::Rate::FUNCTIONAL,
            scratch_base: 0,
            scratch_per_lane: 0,
        };
        Rig {
            decoder: Decoder::new(processor, wave.wave64),
            true16: crate::kernel::True16Fallback::new(processor, wave.wave64),
            wave,
            mem: Memory::new(),
            lds: vec![0; 65536],
            env,
        }
    }

    /// Decode `bytes` at the current PC.
    pub fn decode(&self, bytes: &[u8]) -> Inst {
        let fallback = |e| self.true16.as_ref().map_or(Err(e), |t| t.decode(bytes, self.wave.pc));
        self.decoder.decode(bytes, self.wave.pc).or_else(fallback).unwrap_or_else(|e| panic!("{bytes:02x?} does not decode: {e}"))
    }

    /// The semantics the engine would give `bytes`.
    pub fn classify(&self, bytes: &[u8]) -> Sem {
        classify(&self.decode(bytes), &self.env)
    }

    /// Decode, classify and execute one instruction; on `Flow::Next` the PC advances.
    pub fn exec(&mut self, bytes: &[u8]) -> Result<Flow, FaultKind> {
        let inst = self.decode(bytes);
        let sem = classify(&inst, &self.env);
        let flow = {
            let mut cx = ExecCtx { wave: &mut self.wave, mem: &mut self.mem, port: None, lds: &mut self.lds, env: &self.env };
            execute(&sem, &inst, &mut cx)?
        };
        if flow == Flow::Next {
            self.wave.pc = inst.next_address();
        }
        Ok(flow)
    }

    /// Like [`Rig::exec`], panicking on a fault.
    pub fn run(&mut self, bytes: &[u8]) -> Flow {
        self.exec(bytes).unwrap_or_else(|f| panic!("{bytes:02x?}: {f}"))
    }

    /// Set `v[reg]` in every lane from a function of the lane number.
    pub fn set_v(&mut self, reg: usize, f: impl Fn(usize) -> u32) {
        for l in 0..64 {
            self.wave.set_v(reg, l, f(l));
        }
    }
}
