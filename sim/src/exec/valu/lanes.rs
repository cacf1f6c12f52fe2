//! The per-instruction working set: every lane's source values, results and lane masks, and
//! the kernel signature every operation implements.
//!
//! Sources are gathered into `s[i][lane]` (raw bits, already selected, modified and flushed),
//! a kernel computes `d[lane]` (and/or bits of `cout`) for every lane of the wave, and the
//! write-back stores only the lanes that EXEC and the encoding enable. Kernels are pure per
//! lane, so computing inactive lanes is harmless and keeps the loops branch-free.

use super::fp::Ctl;
use std::cell::RefCell;

pub const MAX: usize = 64;
pub type Vals = [u64; MAX];

/// Working set of one operation.
pub struct Lanes {
    /// Lanes in the wave (32 or 64).
    pub n: usize,
    pub s: [Vals; 3],
    pub d: Vals,
    /// Lane-mask input (carry-in, V_CNDMASK select, V_DIV_FMAS scale flag).
    pub cin: u64,
    /// Lane-mask output (carry-out, compare result, V_DIV_SCALE flag).
    pub cout: u64,
    pub ctl: Ctl,
    /// Operation-specific constant decided at classification (e.g. VOP3P MIX selects).
    pub aux: u32,
    /// Per source: the wave-uniform value (and lane count) `s[i]` currently holds, if any.
    pub uniform: [Option<(u64, usize)>; 3],
}

impl Lanes {
    fn new() -> Lanes {
        Lanes { n: MAX, s: [[0; MAX]; 3], d: [0; MAX], cin: 0, cout: 0, ctl: Ctl::default(), aux: 0, uniform: [None; 3] }
    }
}

/// One operation over all lanes.
pub type Kernel = fn(&mut Lanes);

thread_local! {
    /// Two reusable working sets (a VOPD dual issue needs both): no per-instruction zeroing or
    /// allocation.
    static SCRATCH: RefCell<Box<[Lanes; 2]>> = RefCell::new(Box::new([Lanes::new(), Lanes::new()]));
}

/// Run `f` with the thread's two working sets.
pub fn with_scratch<R>(f: impl FnOnce(&mut [Lanes; 2]) -> R) -> R {
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut b) => f(&mut b),
        // Re-entered (cannot happen: kernels never execute instructions); use fresh sets.
        Err(_) => f(&mut Box::new([Lanes::new(), Lanes::new()])),
    })
}

/// Define kernels `fn name(x: &mut Lanes)` from a per-lane expression over the sources `a`,
/// `b`, `c` (raw u64 bits) and the control word `k`.
macro_rules! map {
    ($($name:ident = |$a:ident, $b:ident, $c:ident, $k:ident| $body:expr;)*) => {$(
        #[allow(unused_variables, clippy::redundant_closure_call)]
        pub fn $name(x: &mut $crate::exec::valu::lanes::Lanes) {
            use $crate::exec::valu::lanes::MAX;
            let $k = x.ctl;
            let n = x.n.min(MAX);
            for l in 0..n {
                let ($a, $b, $c) = (x.s[0][l], x.s[1][l], x.s[2][l]);
                x.d[l] = $body;
            }
        }
    )*};
}

/// Kernels that also read the lane-mask input (`cin`, a bool per lane) and produce a carry-out:
/// the body yields `(result, carry)`.
macro_rules! carry {
    ($($name:ident = |$a:ident, $b:ident, $c:ident, $ci:ident, $k:ident| $body:expr;)*) => {$(
        #[allow(unused_variables)]
        pub fn $name(x: &mut $crate::exec::valu::lanes::Lanes) {
            use $crate::exec::valu::lanes::MAX;
            let $k = x.ctl;
            let mut out = 0u64;
            let n = x.n.min(MAX);
            for l in 0..n {
                let ($a, $b, $c) = (x.s[0][l], x.s[1][l], x.s[2][l]);
                let $ci = x.cin >> l & 1 != 0;
                let (r, co): (u64, bool) = $body;
                x.d[l] = r;
                out |= (co as u64) << l;
            }
            x.cout = out;
        }
    )*};
}

/// Kernels whose result is one bit per lane (compares): the body yields a bool.
macro_rules! test {
    ($($name:ident = |$a:ident, $b:ident, $k:ident| $body:expr;)*) => {$(
        #[allow(unused_variables)]
        pub fn $name(x: &mut $crate::exec::valu::lanes::Lanes) {
            use $crate::exec::valu::lanes::MAX;
            let $k = x.ctl;
            let mut out = 0u64;
            let n = x.n.min(MAX);
            for l in 0..n {
                let ($a, $b) = (x.s[0][l], x.s[1][l]);
                out |= (($body) as u64) << l;
            }
            x.cout = out;
        }
    )*};
}

/// Kernels that need the lane number `l` (V_MBCNT).
macro_rules! lane {
    ($($name:ident = |$a:ident, $b:ident, $l:ident| $body:expr;)*) => {$(
        pub fn $name(x: &mut $crate::exec::valu::lanes::Lanes) {
            use $crate::exec::valu::lanes::MAX;
            for $l in 0..x.n.min(MAX) {
                let ($a, $b) = (x.s[0][$l], x.s[1][$l]);
                x.d[$l] = $body;
            }
        }
    )*};
}

pub(crate) use {carry, lane, map, test};
