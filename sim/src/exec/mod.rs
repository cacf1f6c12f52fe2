//! Instruction semantics.
//!
//! Each decoded instruction is classified once, when a kernel is loaded, into a [`Sem`]: the
//! category module that executes it and that module's own description of the operation
//! (`salu::Op`, `valu::Op`, ...). Executing then needs no string matching or decoding.
//! Categories:
//! * [`sopp`]: program control (branches, `s_endpgm`, `s_barrier`, waits, `s_sleep`, ...);
//! * [`salu`]: scalar ALU (SOP1/SOP2/SOPC/SOPK);
//! * [`smem`]: scalar memory;
//! * [`valu`]: vector ALU;
//! * [`vmem`]: vector memory (global/flat/scratch/buffer loads, stores, atomics);
//! * [`ds`]: LDS instructions.
//!
//! Anything a category does not recognise is [`Sem::Unsupported`]; executing it is a kernel
//! fault naming the instruction.

pub mod clock;
pub mod ds;
pub mod operand;
pub mod salu;
pub mod smem;
pub mod sopp;
pub mod valu;
pub mod vmem;

use crate::fault::FaultKind;
use crate::memory::{Memory, Unmapped};
use crate::wave::Wave;
use hipscope_isa::decode::{Ctx, Inst};
use hipscope_isa::tables::flags;
use hipscope_isa::Family;

/// Flat-address apertures: 4 GiB windows that map flat addresses to LDS and to scratch.
#[derive(Debug, Clone, Copy)]
pub struct Apertures {
    pub shared_base: u64,
    pub private_base: u64,
}

impl Apertures {
    /// Aperture bases in the layout ROCm uses on GFX9+ (the high halves appear in
    /// `src_shared_base` / `src_private_base`).
    pub const DEFAULT: Apertures = Apertures { shared_base: 0x0001_0000_0000_0000, private_base: 0x0002_0000_0000_0000 };

    pub fn is_shared(&self, address: u64) -> bool {
        address >> 32 == self.shared_base >> 32
    }

    pub fn is_private(&self, address: u64) -> bool {
        address >> 32 == self.private_base >> 32
    }
}

/// What instructions see of the machine beyond their wave: target, apertures, clocks.
#[derive(Debug, Clone)]
pub struct Env {
    pub decode: Ctx,
    pub family: Family,
    /// SRAMECC is on (only processors that have the mode: gfx906, gfx908, gfx90a, gfx94x,
    /// gfx950): D16 loads zero the other half of their VGPR (`vmem::shape`).
    pub sramecc: bool,
    pub apertures: Apertures,
    /// Shader clock (counts executed instructions in functional mode) for `s_memtime`.
    pub clock: u64,
    /// The rate of the constant-rate "real time" counter (`s_memrealtime`, 100 MHz in
    /// hardware) against the shader clock; the counter is worked out when read.
    pub rate: clock::Rate,
    /// Per-lane private memory: base of the scratch backing allocation and bytes per lane.
    pub scratch_base: u64,
    pub scratch_per_lane: u64,
}

impl Env {
    /// A functional-mode environment on `p`, wave64, SRAMECC off, default apertures and no
    /// scratch: what unit tests that run single instructions or build kernels need.
    #[cfg(test)]
    pub(crate) fn plain(p: hipscope_isa::Processor) -> Env {
        Env {
            decode: Ctx::new(p, true, false),
            family: p.family(),
            sramecc: false,
            apertures: Apertures::DEFAULT,
            clock: 0,
            rate: clock::Rate::FUNCTIONAL,
            scratch_base: 0,
            scratch_per_lane: 0,
        }
    }

    /// The real-time counter now (`s_memrealtime`, `s_getreg` of the real-time registers).
    pub fn realtime(&self) -> u64 {
        self.rate.realtime(self.clock)
    }
}

/// Everything an instruction may touch.
pub struct ExecCtx<'a> {
    pub wave: &'a mut Wave,
    pub mem: &'a mut Memory,
    /// Where global-memory accesses go instead of straight to `mem` (timing mode: the cache
    /// hierarchy); `None` in functional mode.
    pub port: Option<&'a dyn MemPort>,
    /// The work-group's LDS.
    pub lds: &'a mut [u8],
    pub env: &'a Env,
}

/// Whether a lane access read or wrote. An atomic read-modify-write is a read followed by a
/// write of the same lane and address within one instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dir {
    Read,
    Write,
}

/// A memory model between the waves and `Memory`: it sees every lane's global access (in
/// lane order) and serves the bytes, e.g. from caches that may hold stale data. Methods take
/// `&self` so that read paths need only a shared context; implementations keep their state in
/// cells.
pub trait MemPort {
    fn read(&self, mem: &Memory, lane: u32, address: u64, out: &mut [u8]) -> Result<(), Unmapped>;
    fn write(&self, mem: &mut Memory, lane: u32, address: u64, bytes: &[u8]) -> Result<(), Unmapped>;
    /// A lane's LDS access (byte offset and size), for models of the LDS banks and for
    /// observers; the data itself stays with the work-group's LDS.
    fn lds_access(&self, _lane: u32, _offset: u32, _bytes: u32, _dir: Dir) {}
    /// Whether the port only watches (no timing of its own), so that an instruction may move
    /// its data in bulk and tell the port afterwards ([`MemPort::moved`]).
    fn watches_only(&self) -> bool {
        false
    }
    /// After a bulk move: every lane of `lanes` accessed `bytes` bytes at `addrs[lane]`.
    fn moved(&self, _lanes: u64, _addrs: &[u64; crate::wave::MAX_LANES], _bytes: u32, _dir: Dir) {}
    /// A whole instruction's reads: lane `lanes[i]` reads `size` bytes at `addrs[i]` into
    /// `out[i * size..]`, lanes ascending, as one [`MemPort::read`] per lane in that order (the
    /// default), which a port may serve in fewer steps. Stops at the first lane that faults:
    /// its index and the fault.
    fn read_lanes(&self, mem: &Memory, lanes: &[u32], addrs: &[u64], size: usize, out: &mut [u8]) -> Result<(), (usize, Unmapped)> {
        for (i, (&lane, &a)) in lanes.iter().zip(addrs).enumerate() {
            self.read(mem, lane, a, &mut out[i * size..(i + 1) * size]).map_err(|e| (i, e))?;
        }
        Ok(())
    }
    /// A whole instruction's writes, as [`MemPort::read_lanes`]: `bytes[i * size..]` at
    /// `addrs[i]`.
    fn write_lanes(&self, mem: &mut Memory, lanes: &[u32], addrs: &[u64], size: usize, bytes: &[u8]) -> Result<(), (usize, Unmapped)> {
        for (i, (&lane, &a)) in lanes.iter().zip(addrs).enumerate() {
            self.write(mem, lane, a, &bytes[i * size..(i + 1) * size]).map_err(|e| (i, e))?;
        }
        Ok(())
    }
    /// A whole instruction's LDS accesses: every lane of `lanes` accessed `bytes` bytes at
    /// `offsets[lane]`, told before the data moves. By default [`MemPort::lds_access`] per
    /// lane in ascending order, as the per-lane path tells them; a port may take them at once.
    fn lds_moved(&self, lanes: u64, offsets: &[u32; crate::wave::MAX_LANES], bytes: u32, dir: Dir) {
        let mut m = lanes;
        while m != 0 {
            let lane = m.trailing_zeros();
            m &= m - 1;
            self.lds_access(lane, offsets[lane as usize % crate::wave::MAX_LANES], bytes, dir);
        }
    }
}

/// Global memory as an instruction sees it: `Memory` directly, or through a [`MemPort`].
pub struct Global<'b> {
    pub mem: &'b mut Memory,
    pub port: Option<&'b dyn MemPort>,
}

#[inline]
fn port_read(port: Option<&dyn MemPort>, mem: &Memory, lane: u32, address: u64, out: &mut [u8]) -> Result<(), Unmapped> {
    match port {
        Some(p) => p.read(mem, lane, address, out),
        None => mem.read(address, out),
    }
}

#[inline]
fn port_write(port: Option<&dyn MemPort>, mem: &mut Memory, lane: u32, address: u64, bytes: &[u8]) -> Result<(), Unmapped> {
    match port {
        Some(p) => p.write(mem, lane, address, bytes),
        None => mem.write(address, bytes),
    }
}

impl Global<'_> {
    pub fn read(&self, lane: u32, address: u64, out: &mut [u8]) -> Result<(), Unmapped> {
        port_read(self.port, self.mem, lane, address, out)
    }

    pub fn write(&mut self, lane: u32, address: u64, bytes: &[u8]) -> Result<(), Unmapped> {
        port_write(self.port, self.mem, lane, address, bytes)
    }
}

impl ExecCtx<'_> {
    /// Read global memory for `lane`.
    pub fn read_global(&self, lane: u32, address: u64, out: &mut [u8]) -> Result<(), Unmapped> {
        port_read(self.port, self.mem, lane, address, out)
    }

    /// Write global memory for `lane`.
    pub fn write_global(&mut self, lane: u32, address: u64, bytes: &[u8]) -> Result<(), Unmapped> {
        port_write(self.port, self.mem, lane, address, bytes)
    }
}

/// What happens after an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Next,
    Jump(u64),
    End,
    Barrier,
    /// Give other waves a turn (`s_sleep`, `s_sethalt` and the like).
    Yield,
}

/// How exactly an operation is modelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Fidelity {
    /// Bit-exact with the ISA definition.
    Exact,
    /// Computed differently from hardware in documented ways (e.g. transcendental precision).
    Approximate(&'static str),
    /// Decoded and accepted; its effect is not modelled in this mode (cache maintenance,
    /// waits in functional mode).
    NoEffect(&'static str),
}

/// Classified semantics of one instruction.
#[derive(Debug, Clone, PartialEq)]
pub enum Sem {
    Sopp(sopp::Op),
    Salu(salu::Op),
    Smem(smem::Op),
    Valu(valu::Op),
    Vmem(vmem::Op),
    Ds(ds::Op),
    Unsupported,
}

impl Sem {
    pub fn fidelity(&self) -> Fidelity {
        match self {
            Sem::Sopp(op) => op.fidelity(),
            Sem::Salu(op) => op.fidelity(),
            Sem::Smem(op) => op.fidelity(),
            Sem::Valu(op) => op.fidelity(),
            Sem::Vmem(op) => op.fidelity(),
            Sem::Ds(op) => op.fidelity(),
            Sem::Unsupported => Fidelity::NoEffect("unsupported"),
        }
    }
}

/// Classify a decoded instruction for a target.
pub fn classify(inst: &Inst, env: &Env) -> Sem {
    let r = inst.row;
    let sem = if r.has(flags::SMRD) {
        smem::classify(inst, env).map(Sem::Smem)
    } else if r.has(flags::SOPP | flags::SALU) {
        // Program control is SOPP, except a few GFX12 SOP1 forms (s_barrier_signal).
        sopp::classify(inst, env).map(Sem::Sopp).or_else(|| salu::classify(inst, env).map(Sem::Salu))
    } else if r.has(flags::DS) {
        ds::classify(inst, env).map(Sem::Ds)
    } else if r.has(flags::FLAT | flags::MUBUF | flags::MTBUF | flags::MIMG | flags::VIMAGE | flags::VSAMPLE) {
        vmem::classify(inst, env).map(Sem::Vmem)
    } else if r.has(flags::VALU) {
        valu::classify(inst, env).map(Sem::Valu)
    } else {
        None
    };
    sem.unwrap_or(Sem::Unsupported)
}

/// Execute one classified instruction.
pub fn execute(sem: &Sem, inst: &Inst, cx: &mut ExecCtx) -> Result<Flow, FaultKind> {
    match sem {
        Sem::Sopp(op) => sopp::execute(op, inst, cx),
        Sem::Salu(op) => salu::execute(op, inst, cx),
        Sem::Smem(op) => smem::execute(op, inst, cx),
        Sem::Valu(op) => valu::execute(op, inst, cx),
        Sem::Vmem(op) => vmem::execute(op, inst, cx),
        Sem::Ds(op) => ds::execute(op, inst, cx),
        Sem::Unsupported => Err(FaultKind::Unsupported { text: hipscope_isa::print::format_inst(inst, &cx.env.decode) }),
    }
}
