//! The clocks a kernel reads: the shader clock (`s_memtime`, `s_getreg` of the clock
//! registers) and the constant-rate real-time counter (`s_memrealtime`, 100 MHz in
//! hardware: ISA manuals, "S_MEMREALTIME").

/// The real-time counter's rate against the shader clock: `num` ticks every `den` cycles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    num: u64,
    den: u64,
}

impl Rate {
    /// Functional mode has no cycles: its shader clock counts executed instructions, and its
    /// real-time counter takes 16 of them per tick, as a 1.6 GHz shader clock would.
    pub const FUNCTIONAL: Rate = Rate { num: 1, den: 16 };

    /// A GPU whose shader clock runs at `mhz`: 100 MHz ticks.
    #[inline]
    pub fn of_mhz(mhz: u32) -> Rate {
        Rate { num: 100, den: u64::from(mhz.max(1)) }
    }

    /// Real-time ticks at shader cycle `cycle`.
    #[inline]
    pub fn realtime(self, cycle: u64) -> u64 {
        cycle * self.num / self.den
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn realtime_ticks_at_100_mhz() {
        for mhz in [1, 99, 100, 1600, 1700, 2100, 2525] {
            for cycle in [0, 1, 15, 16, 17, 99, 12_345, 1 << 40] {
                assert_eq!(Rate::of_mhz(mhz).realtime(cycle), cycle * 100 / u64::from(mhz), "{cycle} cycles at {mhz} MHz");
            }
        }
        for cycle in [0, 15, 16, 1601, 1 << 40] {
            assert_eq!(Rate::FUNCTIONAL.realtime(cycle), Rate::of_mhz(1600).realtime(cycle), "the functional clock is 1.6 GHz");
        }
        assert_eq!(Rate::of_mhz(0), Rate::of_mhz(1), "a zero clock counts as 1 MHz");
    }
}
