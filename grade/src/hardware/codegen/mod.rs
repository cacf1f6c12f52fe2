//! A litmus test as one AMDGPU kernel: every thread's statements become the instructions
//! clang-19 would emit for them (the memory-model part from [`hipscope_mm::lower`]), and each thread
//! runs as lane 0 of one wave, chosen by work-group and wave number.
//!
//! The kernel (one code for all threads):
//! * prologue: the wave's number in its work-group from lane 0's work-item id, EXEC = lane 0
//!   (an atomic executed by 64 lanes would apply 64 times), then a branch to the thread placed
//!   on this (work-group, wave); waves without a thread end;
//! * per thread: each location's address from the kernel arguments into a VGPR pair, the
//!   registers' initial values, the body, then every register stored to its result slot.
//!
//! Kernel arguments (one packed block): the address of each location, then the address of
//! each (thread, register) result slot, 8 bytes each, then each thread's start delay (loop
//! iterations, 4 bytes). Result slots are 8 bytes apart and take 4 or 8 bytes as the
//! register's type does. Values are computed on the scalar unit (one lane is active, see
//! `scalar.rs`) at the C types the language model uses: a register is read with
//! `v_readfirstlane_b32` after the wait the compiler would put before its first use, so
//! data, address and control dependencies keep the order the source gives them. Accesses
//! use the instruction of the location's type (`global_atomic_umin` for an `unsigned`,
//! `global_atomic_add_x2` for a `long`, from [`lower::lower_typed`]).

mod regs;
mod scalar;
mod stmts;
mod stress;

pub use stress::{args_at as stress_args_at, StressCode};

use crate::litmus::{Litmus, Location, RegId, Stmt, Thread};

use hipscope_isa::decode::{Operand, Reg, Special};
use hipscope_isa::tables::{flags, flags_of, opcode_of, OpName, Opcode};
use hipscope_isa::Family;
use hipscope_mm::lower::{self, Line, Op, Target};
use hipscope_mm::{Counter, Wait};
use hipscope_mm::{Space, ValueType};
use regs::Regs;

/// Why a test cannot run on the simulated GPU (the language layer still grades it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unsupported(pub String);

/// One line of the kernel before layout.
#[derive(Debug, Clone)]
pub enum Item {
    /// `lowered`: part of a statement's lowered sequence (from [`hipscope_mm::lower`]), not of the
    /// kernel's own bookkeeping (addresses, delays, register moves, dependency waits).
    Inst {
        names: Vec<String>,
        ops: Vec<(OpName, Operand)>,
        thread: Option<usize>,
        line: u32,
        lowered: bool,
    },
    Label(usize),
    /// A SOPP branch to a label.
    Branch {
        name: &'static str,
        label: usize,
    },
}

/// What a result slot receives at the end of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ResultSlot {
    /// A thread's register.
    Reg(usize, RegId),
    /// A local location's final value in one litmus work-group (stored by the group's first
    /// thread after a barrier that every thread of the group reaches when it is done).
    Local(u32, crate::litmus::LocId),
}

/// Bytes between two local locations in LDS: one word, or two when some local location is
/// 64 bits (so each stays naturally aligned).
fn lds_stride(test: &Litmus) -> u32 {
    let wide = test.locations.iter().any(|l| l.space == Space::Local && l.ty.wide());
    if wide {
        8
    } else {
        4
    }
}

/// Where thread `index` runs: work-group (dispatch order) and wave within it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    pub group: u32,
    pub wave: u32,
}

/// The generated kernel, before encoding.
#[derive(Debug, Clone)]
pub struct Kernel {
    pub items: Vec<Item>,
    /// Result slot of each (thread, register), in kernel-argument order after the locations.
    pub results: Vec<ResultSlot>,
    /// LDS bytes a work-group needs (the local locations).
    pub lds_bytes: u32,
    pub locations: usize,
    /// VGPRs the code uses.
    pub vgprs: u32,
}

// Register plan. SGPRs: s[0:1] kernarg pointer (user SGPRs), s2 work-group id X (system
// SGPR), s3 wave number, s[4:5] a loaded address, s8 upward expression temporaries.
const KERNARG: u8 = 0;
const GROUP: u8 = 2;
const WAVE: u8 = 3;
const PTR: u8 = 4;
/// The delay loop's counter.
const COUNT: u8 = 6;
const TEMP: u8 = 8;
const TEMP_END: u8 = 96;
// VGPRs: v0 work-item id, v[2+2k : 3+2k] location k's address, v40… the registers
// (`regs.rs`), v[88:89] a result address, v[90:91] store data / RMW operand, v[92:95] CAS
// data (the new value, then the compared one: one VGPR each, or a pair each at 64 bits),
// v[96:97] an unused old value, v98 scratch of a 64-bit multiplication. Pairs are even.
const LOC_BASE: u8 = 2;
const MAX_LOCATIONS: usize = 16;
const OUT_ADDR: u8 = 88;
const DATA: u8 = 90;
const CAS_DATA: u8 = 92;
const SPARE: u8 = 96;
/// VGPRs the kernel allocates (every register above is below this).
pub const VGPRS: u32 = 104;

fn s(index: u8) -> Operand {
    Operand::Reg(Reg::Sgpr { index, count: 1 })
}
fn s2(index: u8) -> Operand {
    Operand::Reg(Reg::Sgpr { index, count: 2 })
}
fn v(index: u8) -> Operand {
    Operand::Reg(Reg::Vgpr { index, count: 1 })
}
fn v2(index: u8) -> Operand {
    Operand::Reg(Reg::Vgpr { index, count: 2 })
}
fn imm(x: i64) -> Operand {
    Operand::Imm(x)
}
/// The VGPR, or the pair, a value of type `ty` takes from `index`.
fn vgprs(index: u8, ty: ValueType) -> Operand {
    if ty.wide() {
        v2(index)
    } else {
        v(index)
    }
}

/// Mnemonic spellings per ISA (the first one with an encoding on the processor is used).
mod names {
    pub const S_LOAD_X2: &[&str] = &["s_load_dwordx2", "s_load_b64"];
    pub const S_LOAD: &[&str] = &["s_load_dword", "s_load_b32"];
    pub const S_ADD: &[&str] = &["s_add_u32", "s_add_co_u32"];
    pub const S_SUB: &[&str] = &["s_sub_u32", "s_sub_co_u32"];
    pub const S_ADDC: &[&str] = &["s_addc_u32", "s_add_co_ci_u32"];
    pub const S_SUBB: &[&str] = &["s_subb_u32", "s_sub_co_ci_u32"];
}

/// A pending vector-memory or LDS operation, in issue order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pending {
    counter: Counter,
    writes: Option<RegId>,
}

/// What kind of access an instruction of a lowered sequence is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum AccessKind {
    Load,
    Store,
    RmwReturn,
    RmwNoReturn,
}

/// The access of a lowered sequence: its register operands (the cache bits come from the
/// sequence), how it is counted, and the register it loads into.
#[derive(Clone, Copy)]
struct AccessInst<'a> {
    ops: &'a [(OpName, Operand)],
    kind: AccessKind,
    writes: Option<RegId>,
}

struct Gen<'a> {
    test: &'a Litmus,
    target: Target,
    items: Vec<Item>,
    labels: usize,
    /// The thread being generated (`None`: the prologue).
    thread: Option<usize>,
    line: u32,
    pending: Vec<Pending>,
    /// Whether the instructions emitted now come from a lowered sequence.
    lowering: bool,
    /// Result slots in all (the delay arguments follow them).
    results: usize,
    /// After a branch join whose paths left different operations in flight, waits for a
    /// register drain the counter (the exact count is not known).
    uncertain: bool,
    /// The current thread's registers.
    regs: Regs,
}

/// The kernel for `test` on `target` (wave size from `wave64`), with each thread on the
/// work-group `groups[i]` of the dispatch, and stress waves beside them if `stress` is given.
pub fn generate(test: &Litmus, target: &Target, wave64: bool, groups: &[u32], stress: Option<&StressCode>) -> Result<Kernel, Unsupported> {
    check(test)?;
    let mut g = Gen {
        test,
        target: *target,
        items: Vec::new(),
        labels: 0,
        thread: None,
        line: 0,
        pending: Vec::new(),
        uncertain: false,
        lowering: false,
        results: 0,
        regs: Regs::empty(),
    };
    let slots: Vec<Slot> = test.threads.iter().zip(groups).map(|(t, &group)| Slot { group, wave: t.placement.wave }).collect();
    let mut results = Vec::new();
    for (i, t) in test.threads.iter().enumerate() {
        for r in 0..t.regs.len() {
            results.push(ResultSlot::Reg(i, RegId(r as u16)));
        }
    }
    let mut groups_seen: Vec<u32> = Vec::new();
    for t in &test.threads {
        if !groups_seen.contains(&t.placement.workgroup) {
            groups_seen.push(t.placement.workgroup);
        }
    }
    for w in &groups_seen {
        for (k, l) in test.locations.iter().enumerate() {
            if l.space == Space::Local {
                results.push(ResultSlot::Local(*w, crate::litmus::LocId(k as u16)));
            }
        }
    }
    if results.len() > 96 {
        return Err(Unsupported(format!("{} registers in all; the hardware layer stores at most 96", results.len())));
    }
    g.results = results.len();
    let entries: Vec<usize> = (0..test.threads.len()).map(|_| g.label()).collect();
    g.prologue(wave64, &slots, &entries, stress);
    for (i, t) in test.threads.iter().enumerate() {
        g.thread = Some(i);
        g.line = t.span.line;
        g.pending.clear();
        g.uncertain = false;
        g.regs = Regs::new(test, t)?;
        g.items.push(Item::Label(entries[i]));
        g.thread_body(t, &results)?;
    }
    let lds_bytes = if g.has_local() { lds_stride(test) * test.locations.len() as u32 } else { 0 };
    Ok(Kernel { items: g.items, results, locations: test.locations.len(), vgprs: VGPRS, lds_bytes })
}

/// What the hardware layer cannot run: several agents, compare-and-swap on local memory,
/// accesses narrower or wider than their location's type, more locations or registers than
/// its register plan holds.
fn check(test: &Litmus) -> Result<(), Unsupported> {
    if test.threads.iter().any(|t| t.placement.agent != 0) {
        return Err(Unsupported("threads on several agents (the simulated system has one GPU)".into()));
    }
    let local = |loc: crate::litmus::LocId| test.locations.get(loc.0 as usize).is_some_and(|l: &Location| l.space == Space::Local);
    for t in &test.threads {
        let mut cas = None;
        crate::litmus::for_each_stmt(&t.body, &mut |_, st| {
            if let Stmt::Cas { target, span, .. } = st {
                if local(target.loc) {
                    cas.get_or_insert(span.line);
                }
            }
        });
        if let Some(line) = cas {
            return Err(Unsupported(format!("line {line}: compare-and-swap on local memory is not run on the simulated GPU")));
        }
    }
    if test.locations.len() > MAX_LOCATIONS {
        return Err(Unsupported(format!("{} locations; the hardware layer runs at most {MAX_LOCATIONS}", test.locations.len())));
    }
    for t in &test.threads {
        let mut bad = None;
        crate::litmus::for_each_stmt(&t.body, &mut |_, st| {
            if let Some((target, _)) = st.accesses() {
                if target.offset_bytes != 0 || target.width_bytes != test.loc_type(target.loc).bytes() {
                    bad.get_or_insert_with(|| {
                        format!(
                            "line {}: a {}-byte access at byte {} (mixed-size accesses are not run on the simulated GPU)",
                            st.span().line,
                            target.width_bytes,
                            target.offset_bytes
                        )
                    });
                }
            }
        });
        if let Some(b) = bad {
            return Err(Unsupported(b));
        }
    }
    Ok(())
}

impl Gen<'_> {
    fn family(&self) -> Family {
        self.target.family()
    }

    fn label(&mut self) -> usize {
        self.labels += 1;
        self.labels - 1
    }

    fn emit(&mut self, names: &[&str], ops: Vec<(OpName, Operand)>) {
        let names = names.iter().map(|n| n.to_string()).collect();
        self.items.push(Item::Inst { names, ops, thread: self.thread, line: self.line, lowered: self.lowering });
    }

    /// Wave number, EXEC = lane 0, and the branch to each thread's code (then to the stress
    /// code, for a wave that runs no thread).
    fn prologue(&mut self, wave64: bool, slots: &[Slot], entries: &[usize], stress: Option<&StressCode>) {
        let shift = if wave64 { 6 } else { 5 };
        self.emit(&["v_readfirstlane_b32"], vec![(OpName::vdst, s(WAVE)), (OpName::src0, v(0))]);
        self.emit(&["s_lshr_b32"], vec![(OpName::sdst, s(WAVE)), (OpName::src0, s(WAVE)), (OpName::src1, imm(shift))]);
        if wave64 {
            self.emit(&["s_mov_b64"], vec![(OpName::sdst, Operand::Reg(Reg::Special(Special::Exec))), (OpName::src0, imm(1))]);
        } else {
            self.emit(&["s_mov_b32"], vec![(OpName::sdst, Operand::Reg(Reg::Special(Special::ExecLo))), (OpName::src0, imm(1))]);
        }
        if self.has_local() {
            self.init_local();
        }
        for (slot, &entry) in slots.iter().zip(entries) {
            let next = self.label();
            self.emit(&["s_cmp_eq_u32"], vec![(OpName::src0, s(GROUP)), (OpName::src1, imm(slot.group as i64))]);
            self.items.push(Item::Branch { name: "s_cbranch_scc0", label: next });
            self.emit(&["s_cmp_eq_u32"], vec![(OpName::src0, s(WAVE)), (OpName::src1, imm(slot.wave as i64))]);
            self.items.push(Item::Branch { name: "s_cbranch_scc1", label: entry });
            self.items.push(Item::Label(next));
        }
        if let Some(code) = stress {
            self.stress_dispatch(code);
        }
        self.emit(&["s_endpgm"], vec![]);
    }

    /// Load the address at `KERNARG + offset` into VGPR pair `dst`.
    fn address(&mut self, offset: u32, dst: u8) {
        self.emit(names::S_LOAD_X2, vec![(OpName::sdst, s2(PTR)), (OpName::sbase, s2(KERNARG)), (OpName::offset, imm(offset as i64))]);
        let km = if self.family() == Family::Gfx12 { Counter::Km } else { Counter::Lgkm };
        self.wait(&Wait::zero(&[km]));
        self.emit(&["v_mov_b32"], vec![(OpName::vdst, v(dst)), (OpName::src0, s(PTR))]);
        self.emit(&["v_mov_b32"], vec![(OpName::vdst, v(dst + 1)), (OpName::src0, s(PTR + 1))]);
    }

    /// Spin for the number of iterations in this thread's delay argument (drawn per run, so
    /// that the threads' operations meet at different relative times, as litmus runners
    /// stagger their threads on real GPUs).
    fn delay(&mut self) {
        let offset = 8 * (self.test.locations.len() + self.results) as u32 + 4 * self.thread.unwrap_or(0) as u32;
        self.emit(names::S_LOAD, vec![(OpName::sdst, s(COUNT)), (OpName::sbase, s2(KERNARG)), (OpName::offset, imm(offset as i64))]);
        let km = if self.family() == Family::Gfx12 { Counter::Km } else { Counter::Lgkm };
        self.wait(&Wait::zero(&[km]));
        let (top, done) = (self.label(), self.label());
        self.items.push(Item::Label(top));
        self.emit(&["s_cmp_eq_u32"], vec![(OpName::src0, s(COUNT)), (OpName::src1, imm(0))]);
        self.items.push(Item::Branch { name: "s_cbranch_scc1", label: done });
        self.emit(names::S_SUB, vec![(OpName::sdst, s(COUNT)), (OpName::src0, s(COUNT)), (OpName::src1, imm(1))]);
        self.items.push(Item::Branch { name: "s_branch", label: top });
        self.items.push(Item::Label(done));
    }

    fn thread_body(&mut self, t: &Thread, results: &[ResultSlot]) -> Result<(), Unsupported> {
        for (k, l) in self.test.locations.iter().enumerate() {
            if l.space == Space::Local {
                // An LDS byte address in the pair's low register.
                self.emit(&["v_mov_b32"], vec![(OpName::vdst, v(LOC_BASE + 2 * k as u8)), (OpName::src0, imm((lds_stride(self.test) * k as u32) as i64))]);
            } else {
                self.address(8 * k as u32, LOC_BASE + 2 * k as u8);
            }
        }
        for r in 0..t.regs.len() {
            let reg = RegId(r as u16);
            let init = t.reg_init.iter().find(|(id, _)| *id == reg).map_or(0, |(_, v)| *v);
            let (ty, vgpr) = (self.regs.declared(reg), self.regs.vgpr(reg));
            self.vgprs_imm(vgpr, init, ty);
        }
        self.delay();
        self.block(&t.body)?;
        // Every access done, then each register to its result slot.
        self.line = 0;
        self.normalise();
        self.drain();
        let me = self.thread.unwrap_or(0);
        let group = t.placement.workgroup;
        let leader = self.test.threads.iter().position(|o| o.placement.workgroup == group) == Some(me);
        if self.has_local() {
            // Every thread of the group is done before the leader reads the group's LDS.
            self.barrier();
        }
        for (slot, r) in results.iter().enumerate() {
            let (value, ty) = match *r {
                ResultSlot::Reg(thread, reg) if thread == me => (self.regs.vgpr(reg), self.regs.declared(reg)),
                ResultSlot::Local(w, loc) if w == group && leader => {
                    let ty = self.test.loc_type(loc);
                    let load =
                        self.access_mnemonic(&Op::Load { access: hipscope_mm::Access::Plain, space: Space::Local }, ty).unwrap_or_else(|| "ds_read_b32".into());
                    self.emit(&[load.as_str()], vec![(OpName::vdst, vgprs(SPARE, ty)), (OpName::addr, v(LOC_BASE + 2 * loc.0 as u8))]);
                    self.wait(&Wait::zero(&[self.lds_counter()]));
                    (SPARE, ty)
                }
                _ => continue,
            };
            self.address(8 * (self.test.locations.len() + slot) as u32, OUT_ADDR);
            let store = self.plain_store(ty);
            self.emit(&[store.as_str()], vec![(OpName::vaddr, v2(OUT_ADDR)), (OpName::vdata, vgprs(value, ty))]);
        }
        self.emit(&["s_endpgm"], vec![]);
        Ok(())
    }

    fn has_local(&self) -> bool {
        self.test.locations.iter().any(|l| l.space == Space::Local)
    }

    /// A work-group barrier of the kernel's own (not a litmus statement).
    fn barrier(&mut self) {
        if self.family() == Family::Gfx12 {
            self.emit(&["s_barrier_signal"], vec![(OpName::src0, imm(-1))]);
            self.emit(&["s_barrier_wait"], vec![(OpName::simm16, imm(0xffff))]);
        } else {
            self.emit(&["s_barrier"], vec![]);
        }
    }

    /// Every work-group's LDS copy of the local locations starts at its initial value: each
    /// wave writes them (the same values) and waits at a barrier, before any thread starts.
    fn init_local(&mut self) {
        let ds = self.lds_counter();
        if self.family() == Family::Gfx8 {
            // GFX8 clamps LDS addresses to M0 (clang sets it to -1 before DS instructions).
            self.emit(&["s_mov_b32"], vec![(OpName::sdst, Operand::Reg(Reg::Special(Special::M0))), (OpName::src0, imm(-1))]);
        }
        for (k, l) in self.test.locations.iter().enumerate() {
            if l.space != Space::Local {
                continue;
            }
            let store =
                self.access_mnemonic(&Op::Store { access: hipscope_mm::Access::Plain, space: Space::Local }, l.ty).unwrap_or_else(|| "ds_write_b32".into());
            self.vgprs_imm(SPARE, l.init, l.ty);
            self.emit(&["v_mov_b32"], vec![(OpName::vdst, v(DATA)), (OpName::src0, imm((lds_stride(self.test) * k as u32) as i64))]);
            self.emit(&[store.as_str()], vec![(OpName::addr, v(DATA)), (OpName::data0, vgprs(SPARE, l.ty))]);
        }
        self.wait(&Wait::zero(&[ds]));
        self.barrier();
    }

    fn block(&mut self, body: &[Stmt]) -> Result<(), Unsupported> {
        for st in body {
            self.line = st.span().line;
            self.stmt(st)?;
        }
        Ok(())
    }

    /// One line of a lowered sequence: a wait, a cache-maintenance or barrier instruction, or
    /// (when `access` is given) the access itself.
    fn sequence_line(&mut self, line: &Line, access: Option<AccessInst>) {
        self.lowering = true;
        self.sequence_inst(line, access);
        self.lowering = false;
    }

    fn sequence_inst(&mut self, line: &Line, access: Option<AccessInst>) {
        match line {
            Line::Wait(w) => self.wait(w),
            Line::Inst { mnemonic, cpol, .. } => match access.filter(|_| is_access(mnemonic)) {
                Some(AccessInst { ops, kind, writes }) => {
                    let mut ops = ops.to_vec();
                    let lds = flags_of(mnemonic) & flags::DS != 0;
                    if !lds {
                        ops.push((OpName::cpol, imm(cpol.0 as i64)));
                    }
                    self.emit(&[mnemonic.as_str()], ops);
                    let counter = if lds { self.lds_counter() } else { self.counter_of(kind) };
                    self.pending.push(Pending { counter, writes });
                }
                None => {
                    let mut ops = Vec::new();
                    if cpol.0 != 0 {
                        ops.push((OpName::cpol, imm(cpol.0 as i64)));
                    }
                    // `__syncthreads()` on GFX12 signals and waits on barrier -1, the
                    // work-group's own (clang-19 output).
                    match opcode_of(mnemonic) {
                        Some(Opcode::S_BARRIER_SIGNAL) => ops.push((OpName::src0, imm(-1))),
                        Some(Opcode::S_BARRIER_WAIT) => ops.push((OpName::simm16, imm(0xffff))),
                        _ => {}
                    }
                    self.emit(&[mnemonic.as_str()], ops);
                }
            },
        }
    }

    /// The counter an access of `kind` is counted by (ISA manuals; the engine's
    /// `timing/waitcnt.rs` counts the same way).
    fn counter_of(&self, kind: AccessKind) -> Counter {
        let returns = matches!(kind, AccessKind::Load | AccessKind::RmwReturn);
        match (self.family(), returns) {
            (Family::Gfx12, true) => Counter::Load,
            (Family::Gfx12, false) => Counter::Store,
            (Family::Gfx10 | Family::Gfx11, false) => Counter::Vs,
            _ => Counter::Vm,
        }
    }

    /// The counter LDS operations are counted by.
    fn lds_counter(&self) -> Counter {
        if self.family() == Family::Gfx12 {
            Counter::Ds
        } else {
            Counter::Lgkm
        }
    }

    /// Wait for everything still in flight (before the results are stored).
    fn drain(&mut self) {
        let mut counters: Vec<Counter> = self.pending.iter().map(|p| p.counter).collect();
        counters.sort();
        counters.dedup();
        self.wait(&Wait::zero(&counters));
    }

    /// The mnemonic of a plain global store of a `ty` on the target (what the lowering emits
    /// for one).
    fn plain_store(&self, ty: ValueType) -> String {
        self.access_mnemonic(&Op::Store { access: hipscope_mm::Access::Plain, space: Space::Global }, ty).unwrap_or_else(|| "global_store_dword".into())
    }

    /// The access instruction of `op`'s lowered sequence on a `ty`.
    fn access_mnemonic(&self, op: &Op, ty: ValueType) -> Option<String> {
        lower::lower_typed(op, ty, &self.target).into_iter().find_map(|l| match l {
            Line::Inst { mnemonic, .. } if is_access(&mnemonic) => Some(mnemonic),
            _ => None,
        })
    }

    /// Emit a wait and forget the operations it completes.
    fn wait(&mut self, w: &Wait) {
        if w.is_empty() {
            return;
        }
        for &(c, n) in &w.0 {
            // Operations of one counter complete in issue order: all but the last `n` are done.
            let mut left = self.pending.iter().filter(|p| p.counter == c).count().saturating_sub(n as usize);
            self.pending.retain(|p| {
                let done = p.counter == c && left > 0;
                left -= usize::from(done);
                !done
            });
        }
        if self.pending.is_empty() {
            self.uncertain = false;
        }
        for (name, ops) in w.encode(self.family()) {
            self.emit(&[name], ops);
        }
    }

    /// Wait until the last write of `reg` has completed (the compiler's wait before a use).
    fn wait_for(&mut self, reg: Option<RegId>) {
        let Some(last) = self.pending.iter().rposition(|p| p.writes == reg) else { return };
        let c = self.pending[last].counter;
        let later = if self.uncertain { 0 } else { self.pending[last + 1..].iter().filter(|p| p.counter == c).count() as u32 };
        self.wait(&Wait(vec![(c, later)]));
    }
}

/// Whether a lowered instruction is the access itself (not cache maintenance or a barrier).
fn is_access(m: &str) -> bool {
    // Every DS instruction is an access (`ds_read_b32`, `ds_write_b32`, `ds_add_rtn_u32`);
    // `global_inv`/`global_wb` (GFX12) are cache maintenance; scratch is no shared memory.
    let f = flags_of(m);
    f & flags::DS != 0
        || (f & flags::FLAT != 0 && f & (flags::MAYLOAD | flags::MAYSTORE) != 0 && f & (flags::FLATSCRATCH | flags::CACHE_INV | flags::CACHE_WB) == 0)
}
