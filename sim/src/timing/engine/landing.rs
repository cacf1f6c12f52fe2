//! Loads whose value is decided when they reach the L2, with seeded reordering on
//! ([`crate::memsys::LateRead`]): the engine executes a load at issue, then, once the engine's
//! time has passed the load's arrival at its L2 channels and before any later instruction
//! issues, puts the bytes the L2 showed at that arrival into the load's registers. A wave uses
//! a load's registers only after its wait counter says the load completed, which is after the
//! arrival, so it never sees the value taken at issue.
//!
//! Only GLOBAL/FLAT loads whose every lane read one piece of the load's size are handled
//! (their bytes go to the registers the way the instruction puts them, [`LoadShape::write`]);
//! other loads keep the value read at issue.

use crate::exec::vmem::flat::{FlatOp, FlatWhat};
use crate::exec::vmem::shape::LoadShape;
use crate::exec::vmem::Op;
use crate::exec::Sem;
use crate::memory::Memory;
use crate::memsys::{LateRead, MemSystem};
use crate::sched::Resident;
use crate::timing::issue::WaveTiming;
use hipscope_isa::decode::Operand;

/// One load still to land.
struct Landing {
    /// Its wave's slot and global index (a slot is reused once the wave ended).
    wave: usize,
    index: u32,
    shape: LoadShape,
    dst: Operand,
    /// Its lanes' reads.
    reads: Vec<LateRead>,
    due: u64,
    /// The earliest arrival of its reads.
    first: u64,
}

/// The loads of a dispatch still to land.
#[derive(Default)]
pub(super) struct Landings {
    /// Seeded reordering is on (seed ≠ 0): loads land late.
    pub on: bool,
    list: Vec<Landing>,
    /// The reads of the access that just ended.
    reads: Vec<LateRead>,
    /// The earliest `due` of the list (`u64::MAX`: empty).
    pub due: u64,
    /// The earliest `first` of the list (`u64::MAX`: empty).
    floor: u64,
}

impl Landings {
    pub fn new(on: bool) -> Landings {
        Landings { on, due: u64::MAX, floor: u64::MAX, ..Landings::default() }
    }

    /// After wave `slot`'s instruction `sem` ended its memory access: keep its late reads, if
    /// it is a load whose lanes' values can be put into its registers again.
    pub fn after_access(&mut self, ms: &mut MemSystem, slot: usize, index: u32, sem: &Sem) {
        self.reads.clear();
        ms.take_late_reads(&mut self.reads);
        if self.reads.is_empty() {
            return;
        }
        let late = &self.reads;
        let target = match sem {
            Sem::Vmem(Op::Flat(FlatOp { what: FlatWhat::Load { shape, dst }, .. })) => Some((*shape, *dst)),
            _ => None,
        };
        // One read of the load's size per lane, lanes ascending (the order lanes execute in).
        let whole = |(shape, _): &(LoadShape, Operand)| late.iter().all(|r| r.len == shape.bytes) && late.windows(2).all(|p| p[0].lane < p[1].lane);
        let Some((shape, dst)) = target.filter(whole) else { return };
        let due = late.iter().map(LateRead::due).max().unwrap_or(0);
        let first = late.iter().map(LateRead::first).min().unwrap_or(0);
        self.list.push(Landing { wave: slot, index, shape, dst, reads: late.clone(), due, first });
        self.due = self.due.min(due);
        self.floor = self.floor.min(first);
        ms.hold_late_reads_from(self.floor);
    }

    /// Land every load due by `now` into its wave's registers (waves that ended are skipped).
    pub fn land(&mut self, now: u64, ms: &mut MemSystem, mem: &Memory, waves: &mut [Option<Resident<WaveTiming>>]) {
        let mut buf = [0u8; 16];
        for l in self.list.iter().filter(|l| l.due <= now) {
            let Some(r) = waves.get_mut(l.wave).and_then(|r| r.as_mut()).filter(|r| r.w.global_index == l.index) else { continue };
            for read in &l.reads {
                let n = (read.len as usize).min(buf.len());
                ms.landed(mem, read, &mut buf[..n]);
                l.shape.write(&mut r.w, l.dst, read.lane as usize, &buf[..n]);
            }
        }
        self.list.retain(|l| l.due > now);
        self.due = self.list.iter().map(|l| l.due).min().unwrap_or(u64::MAX);
        self.floor = self.list.iter().map(|l| l.first).min().unwrap_or(u64::MAX);
        ms.hold_late_reads_from(self.floor);
    }
}
