//! Parallel functional execution: the work-groups of a dispatch on several host threads,
//! with the result the sequential engine gives for the same seed ([`super`] says when).
//!
//! Each worker thread runs whole work-groups, claimed in chunks from a shared counter, on a
//! private copy of the dispatch's starting memory, through a [`Tracker`] that logs every
//! global access by wave and checks LDS between barriers. When all groups are done the logs
//! are compared ([`spans::independent`]): if no wave read or wrote bytes another wave wrote,
//! every wave saw the starting memory and its own writes only, exactly as in any sequential
//! interleaving, so the written bytes are copied into the dispatch's memory (their owners are
//! disjoint: order does not matter) and the workers' counts are summed. Otherwise — waves
//! that communicate, racing writes, atomics on shared words, an LDS race, a fault, a limit —
//! the caller runs the dispatch again on the sequential engine from the unchanged memory.
//! Which groups a thread ran and in which order changes neither outcome (a wave's accesses up
//! to the first byte another wave wrote are the same in every order, and that pair is logged
//! in every order), so the thread count never changes a result.

use super::spans::{self, Written};
use super::track::Tracker;
use super::{run_wave, FSched};
use crate::exec::{ds, salu, smem, Env, Sem};
use crate::kernel::CodeSlot;
use crate::memory::Memory;
use crate::observe::Shared;
use crate::sched::{Dispatch, DispatchStats, Ended, EngineOptions, Release, Resident, Sched, Storage};
use crate::wave::WaveStatus;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Host bytes of device memory above which a dispatch runs sequentially: every worker copies
/// the address space, and copying several GiB costs more than the threads gain. // assumed:
/// a quarter of a small host's memory for two copies.
const COPY_BUDGET_BYTES: u64 = 1 << 30;

/// Whether the dispatch may run on several threads: asked for, at least two groups, and a
/// kernel whose result cannot depend on anything the workers do not see or check — it reads
/// no clock (which counts the instructions of all waves, in interleaving order), uses no
/// scratch (whose slots follow residency), and has no LDS instruction that bypasses the
/// memory port's LDS hook.
pub(super) fn eligible(d: &Dispatch, mem: &Memory, opts: &EngineOptions) -> bool {
    opts.threads > 1
        && d.geo.group_count() >= 2
        && d.scratch_per_lane == 0
        && mem.held_bytes().saturating_mul(opts.threads as u64) <= COPY_BUDGET_BYTES
        && d.kernel.code.iter().all(|c| !matches!(c, CodeSlot::Inst(e) if order_dependent(&e.sem)))
}

/// Instructions whose effect [`Tracker`] cannot see or that read the shared clock.
fn order_dependent(sem: &Sem) -> bool {
    use salu::hwreg::HwReg;
    match sem {
        Sem::Smem(smem::Op::MemTime { .. } | smem::Op::MemRealTime { .. }) | Sem::Salu(salu::Op::SendMsgRtn { .. }) => true,
        Sem::Salu(salu::Op::GetReg { field, .. }) => matches!(field.reg, HwReg::ShaderCycles20 | HwReg::ShaderCyclesLo | HwReg::ShaderCyclesHi),
        Sem::Ds(op) => matches!(op, ds::Op::LoadAddTid { .. } | ds::Op::StoreAddTid { .. } | ds::Op::Append { .. } | ds::Op::CondXchg32 { .. }),
        _ => false,
    }
}

std::thread_local! {
    /// Dispatches the calling thread ran whose parallel run stood ([`stood`]).
    static STOOD: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many dispatches started on this thread ran in parallel and kept that result (the rest
/// ran sequentially): what tests of the fallback look at, without it showing in any result.
pub fn stood() -> u64 {
    STOOD.with(|n| n.get())
}

/// What the workers share.
struct Job<'a> {
    d: &'a Dispatch<'a>,
    opts: EngineOptions,
    /// Index in the dispatch of each group's first wave.
    first_wave: Vec<u32>,
    next: AtomicU64,
    chunk: u64,
    /// A worker gave up: the others stop too.
    abort: AtomicBool,
}

/// A worker's result.
struct Done {
    stats: DispatchStats,
    log: Vec<super::track::Span>,
    mem: Memory,
}

/// Run the dispatch on `opts.threads` threads; `None` (memory untouched) when the result
/// might differ from the sequential engine's, which the caller then runs. `hostcall`: the
/// buffer of the host's call service, if one is attached (a wave that touches its
/// allocation needs the host, which serves the sequential engine only).
pub(super) fn run(d: &Dispatch, env: &mut Env, mem: &mut Memory, opts: &EngineOptions, hostcall: Option<u64>) -> Option<DispatchStats> {
    let host = hostcall.and_then(|a| mem.allocation_at(a)).map_or(0..0, |a| a.base..a.end());
    let groups = d.geo.group_count();
    let threads = opts.threads.min(usize::try_from(groups).unwrap_or(usize::MAX));
    let pool = pool(threads)?;
    // Chunks of a few groups: enough of them to balance the threads, few enough that
    // claiming costs nothing.
    let chunk = (groups / (threads as u64 * 16)).clamp(1, 64);
    let job = Job { d, opts: *opts, first_wave: first_waves(d), next: AtomicU64::new(0), chunk, abort: AtomicBool::new(false) };
    let results: Vec<Mutex<Option<Done>>> = (0..threads).map(|_| Mutex::new(None)).collect();
    let start: &Memory = mem;
    pool.scope(|sc| {
        for slot in &results {
            let (job, env) = (&job, env.clone());
            sc.spawn(move |_| {
                // Each worker copies the starting memory itself: the copies are made in parallel.
                let done = worker(job, start.clone(), env);
                if let Ok(mut s) = slot.lock() {
                    *s = done;
                }
            });
        }
    });
    let done: Vec<Done> = results.into_iter().map(|m| m.into_inner().ok().flatten()).collect::<Option<_>>()?;
    let stats = sum(&done);
    if stats.instructions >= opts.max_instructions {
        return None;
    }
    let logs: Vec<&[super::track::Span]> = done.iter().map(|x| &x.log[..]).collect();
    if logs.iter().flat_map(|l| l.iter()).any(|s| s.lo < host.end && host.start < s.hi) {
        return None;
    }
    let writes = spans::independent(&logs)?;
    commit(mem, &writes, &done);
    STOOD.with(|n| n.set(n.get() + 1));
    env.clock += stats.instructions;
    if let Some(p) = opts.progress {
        p.groups_done.fetch_add(stats.groups, Ordering::Relaxed);
    }
    Some(stats)
}

/// A worker: claim chunks of groups and run each to its end; `None` when it gave up.
fn worker(job: &Job, mut mem: Memory, mut env: Env) -> Option<Done> {
    // Progress is told once the dispatch is known to stand; one group at a time is enough
    // (the groups are independent or the run is discarded).
    let opts = EngineOptions { progress: None, max_resident_groups: 1, ..job.opts };
    let mut s: FSched = Sched::new(job.d, opts, None, Storage::BySlot);
    let t = Tracker::new(job.d.lds_bytes);
    let total = job.d.geo.group_count();
    let mut ready = Vec::new();
    loop {
        let start = job.next.fetch_add(job.chunk, Ordering::Relaxed);
        if start >= total {
            break;
        }
        for n in start..(start + job.chunk).min(total) {
            if job.abort.load(Ordering::Relaxed) || run_group(&mut s, job, n, &t, &mut env, &mut mem, &mut ready).is_none() {
                job.abort.store(true, Ordering::Relaxed);
                return None;
            }
        }
    }
    Some(Done { stats: s.stats, log: t.into_log(), mem })
}

/// Run group `n` alone to its end, its waves interleaved by a generator seeded from the seed
/// and the group (the interleaving cannot change the result of a group that passes the
/// checks); `None` on anything that makes the sequential engine's result the one to trust.
fn run_group(s: &mut FSched, job: &Job, n: u64, t: &Tracker, env: &mut Env, mem: &mut Memory, ready: &mut Vec<usize>) -> Option<()> {
    s.set_next_wave_index(job.first_wave[n as usize]);
    let gid = s.start_group(n, 0, 0, (), |_, _, _, _, _| ());
    t.start_group();
    ready.clear();
    ready.extend(s.groups[gid].as_ref().map_or(&[][..], |g| &g.waves[..]));
    let mut rng = StdRng::seed_from_u64(job.opts.seed ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    while !ready.is_empty() {
        let pick = rng.random_range(0..ready.len());
        let quantum = rng.random_range(1..=s.opts.quantum.max(1));
        let id = ready[pick];
        let agent = s.waves[id].as_ref()?.w.global_index;
        t.set_wave(agent, id as u32);
        run_wave(s, id, env, mem, quantum, Some(t)).ok()?;
        if t.raced() {
            return None;
        }
        let status = s.waves[id].as_ref().map_or(WaveStatus::Done, |r| r.w.status);
        if status != WaveStatus::Ready {
            ready.swap_remove(pick);
            if settle(s, id, status, ready) {
                t.next_epoch();
            }
        }
        if (s.prog.looping > 0 && s.prog.looping == ready.len()) || s.limit_reached(None).is_some() {
            return None;
        }
    }
    // Waves left that wait at a barrier that cannot complete: the sequential engine reports it.
    s.groups[gid].is_none().then_some(())
}

/// Wave `id` stopped being ready with `status`; returns whether its group's barrier released
/// (the released waves are ready again).
fn settle(s: &mut FSched, id: usize, status: WaveStatus, ready: &mut Vec<usize>) -> bool {
    let wake = |id: usize, _: &mut Resident<()>, _: Release, _: Option<&Shared>| ready.push(id);
    let released = match status {
        WaveStatus::Done => matches!(s.end_wave(id, 0, wake), Ended::Live { released: true }),
        _ => s.arrive(id, 0, wake),
    };
    if released {
        s.prog.advance(0, s.stats.instructions);
    }
    released
}

/// The index in the dispatch of each group's first wave (groups are created in dispatch
/// order, each with as many waves as its work-items need).
fn first_waves(d: &Dispatch) -> Vec<u32> {
    let lanes = if d.kernel.wave64 { 64 } else { 32 };
    let mut next = 0u32;
    (0..d.geo.group_count())
        .map(|n| {
            let size = d.geo.group_size(d.geo.group_at(n));
            let first = next;
            next = next.wrapping_add((size[0] * size[1] * size[2]).div_ceil(lanes));
            first
        })
        .collect()
}

/// The workers' counts, summed.
fn sum(done: &[Done]) -> DispatchStats {
    let mut total = DispatchStats { opcode_counts: vec![0; done.first().map_or(0, |d| d.stats.opcode_counts.len())], ..Default::default() };
    for d in done {
        let s = &d.stats;
        total.instructions += s.instructions;
        total.waves += s.waves;
        total.groups += s.groups;
        total.lds_out_of_range += s.lds_out_of_range;
        total.opcode_counts.iter_mut().zip(&s.opcode_counts).for_each(|(t, c)| *t += c);
    }
    total
}

/// Copy the bytes each wave wrote from its worker's memory into `mem`.
fn commit(mem: &mut Memory, writes: &[Written], done: &[Done]) {
    let mut buf = Vec::new();
    for w in writes {
        let from = &done[w.worker].mem;
        let n = w.hi - w.lo;
        // The same allocations at the same addresses: neither can fail.
        match from.bytes(w.lo, n) {
            Some(bytes) => {
                let _ = mem.write(w.lo, bytes);
            }
            None => {
                buf.resize(n as usize, 0);
                if from.read(w.lo, &mut buf).is_ok() {
                    let _ = mem.write(w.lo, &buf);
                }
            }
        }
    }
}

/// A pool of `threads` threads, made once per count.
fn pool(threads: usize) -> Option<Arc<rayon::ThreadPool>> {
    static POOLS: Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>> = Mutex::new(Vec::new());
    let mut pools = POOLS.lock().ok()?;
    if let Some((_, p)) = pools.iter().find(|(n, _)| *n == threads) {
        return Some(p.clone());
    }
    let p = Arc::new(rayon::ThreadPoolBuilder::new().num_threads(threads).thread_name(|i| format!("hipscope-wg-{i}")).build().ok()?);
    pools.push((threads, p.clone()));
    Some(p)
}
