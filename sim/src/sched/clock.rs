//! The clocks a kernel reads: the shader clock (`s_memtime`, `s_getreg` of the clock
//! registers) and the constant-rate real-time counter (`s_memrealtime`, 100 MHz in
//! hardware: ISA manuals, "S_MEMREALTIME").

use crate::exec::Env;

/// Functional mode has no cycles: its shader clock counts executed instructions, and its
/// real-time counter takes 16 of them per tick, as a 1.6 GHz shader clock would.
pub const FUNCTIONAL_MHZ: u32 = 1600;

/// Real-time ticks at shader cycle `cycle` of a GPU clocked at `mhz`.
#[inline]
pub fn realtime(cycle: u64, mhz: u32) -> u64 {
    cycle * 100 / u64::from(mhz.max(1))
}

/// Set `env`'s clocks to shader cycle `cycle` of a GPU clocked at `mhz`.
#[inline]
pub fn set(env: &mut Env, cycle: u64, mhz: u32) {
    env.clock = cycle;
    env.realtime = realtime(cycle, mhz);
}
