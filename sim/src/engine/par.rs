//! Parallel functional execution: the work-groups of a dispatch on several host threads,
//! with the result the sequential engine gives for the same seed ([`super`] says when).
//!
//! Each worker thread runs whole work-groups, claimed in chunks ([`Claims`]), on a
//! copy-on-write view of the dispatch's starting memory ([`Memory::overlay`]: the starting
//! memory is shared read-only, a worker copies a page at its first write into it, so a worker
//! costs what it writes, not the size of device memory), through a [`Tracker`] that logs
//! every global access by wave and checks LDS between barriers. When all groups are done the logs
//! are compared ([`spans::independent`]): if no wave read or wrote bytes another wave wrote,
//! every wave saw the starting memory and its own writes only, exactly as in any sequential
//! interleaving, so the written bytes are copied from the workers' private pages into the
//! dispatch's memory (their owners are disjoint: order does not matter) and the workers'
//! counts are summed. The private pages are kept for the next dispatch's workers. Otherwise — waves
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
use crate::memory::{Memory, Pages};
use crate::observe::Shared;
use crate::sched::{Dispatch, DispatchStats, Ended, EngineOptions, Release, Resident, Sched, Storage};
use crate::wave::WaveStatus;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Host bytes of private pages kept between dispatches for the next workers (beyond it they
/// are released). // assumed: a quarter of a small host's memory, as the copies of device
/// memory the workers made before they were copy-on-write were allowed.
const SPARE_BUDGET_BYTES: usize = 1 << 30;

/// A worker looks for waves that communicate ([`worker`]) until its log holds this many
/// entries; past it only the final check looks. // assumed: the kernels that stage data in a
/// shared global buffer show it within the first group or two (a wave of relu or fir logs two
/// to eight entries), so a few hundred entries find them as soon as looking on would; an entry
/// may stand for dozens of ranges (a transpose's strided rows), which is what each look sorts.
const LOOK_LOG_ENTRIES: usize = 256;

/// Whether the dispatch may run on several threads: asked for, at least two groups of
/// waves the LDS check can tell apart, and a kernel whose result cannot depend on anything
/// the workers do not see or check — it reads no clock (which counts the instructions of all
/// waves, in interleaving order), uses no scratch (whose slots follow residency), and has no
/// LDS instruction that bypasses the memory port's LDS hook.
pub(super) fn eligible(d: &Dispatch, opts: &EngineOptions) -> bool {
    opts.threads > 1
        && d.geo.group_count() >= 2
        && d.waves_per_group() <= super::track::MAX_GROUP_WAVES
        && d.scratch_per_lane == 0
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

/// The CPU time the calling thread spends from [`ThreadCpu::start`] on (where the host cannot
/// tell a thread's CPU time, its wall time).
struct ThreadCpu {
    cpu: Option<Duration>,
    wall: std::time::Instant,
}

impl ThreadCpu {
    fn start() -> ThreadCpu {
        ThreadCpu { cpu: thread_cpu_time(), wall: std::time::Instant::now() }
    }

    fn spent_nanos(&self) -> u64 {
        let spent = match (self.cpu, thread_cpu_time()) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => self.wall.elapsed(),
        };
        u64::try_from(spent.as_nanos()).unwrap_or(u64::MAX)
    }
}

/// The calling thread's CPU time so far (`CLOCK_THREAD_CPUTIME_ID`), if the host tells it.
fn thread_cpu_time() -> Option<Duration> {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `ts` is a valid timespec this call writes; the clock id is a constant.
        let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0;
        ok.then(|| Duration::new(u64::try_from(ts.tv_sec).unwrap_or(0), u32::try_from(ts.tv_nsec).unwrap_or(0)))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// What the workers share.
struct Job<'a> {
    d: &'a Dispatch<'a>,
    opts: EngineOptions,
    /// Index in the dispatch of each group's first wave.
    first_wave: Vec<u32>,
    claims: Claims,
    chunk: u64,
    /// A worker gave up: the others stop too.
    abort: AtomicBool,
}

/// Which work-groups are left: each worker has a span of the grid, a contiguous share, and
/// claims chunks from its front; a worker whose span is done takes chunks from the back of the
/// span with the most left. A worker's groups are then mostly one stretch of the grid, and so are
/// the bytes it writes where each group writes its own block (relu, fir, vectoradd): its private
/// copy of an output buffer touches its share of the buffer's pages, where chunks dealt in turn
/// from one counter made every worker touch (and the host zero) nearly every page of it.
struct Claims {
    spans: Mutex<Vec<std::ops::Range<u64>>>,
}

impl Claims {
    /// `groups` work-groups for `workers` workers, in equal spans.
    fn new(groups: u64, workers: usize) -> Claims {
        let n = workers.max(1) as u128;
        // In 128 bits: a grid's group count times a worker number may not fit 64.
        let edge = |k: u128| (u128::from(groups) * k / n) as u64;
        Claims { spans: Mutex::new((0..n).map(|k| edge(k)..edge(k + 1)).collect()) }
    }

    /// The next up to `chunk` groups for worker `k` (`None`: none left).
    fn claim(&self, k: usize, chunk: u64) -> Option<std::ops::Range<u64>> {
        let mut spans = self.spans.lock().ok()?;
        if let Some(own) = spans.get_mut(k).filter(|r| !r.is_empty()) {
            let first = own.start;
            own.start = (first + chunk).min(own.end);
            return Some(first..own.start);
        }
        // The fullest span; the lowest-numbered among equals, whatever the host's timing.
        let (j, _) = spans.iter().enumerate().filter(|(_, r)| !r.is_empty()).max_by_key(|(j, r)| (r.end - r.start, std::cmp::Reverse(*j)))?;
        let other = &mut spans[j];
        let end = other.end;
        other.end = end.saturating_sub(chunk).max(other.start);
        Some(other.end..end)
    }
}

/// A worker's result.
struct Done {
    stats: DispatchStats,
    /// Its log, split and sorted on its own thread.
    log: spans::Sorted,
    /// What it wrote (and more: every page it wrote into).
    pages: Pages,
}

/// Run the dispatch on `opts.threads` threads; `None` (memory untouched) when the result
/// might differ from the sequential engine's, which the caller then runs. `hostcall`: the
/// buffer of the host's call service, if one is attached (a wave that touches its
/// allocation needs the host, which serves the sequential engine only). Also returns the CPU
/// time the workers spent (what `--threads auto` weighs the run's wall time against).
pub(super) fn run(d: &Dispatch, env: &mut Env, mem: &mut Memory, opts: &EngineOptions, hostcall: Option<u64>) -> (Option<DispatchStats>, Duration) {
    let worked = AtomicU64::new(0);
    let stood = run_counting(d, env, mem, opts, hostcall, &worked);
    (stood, Duration::from_nanos(worked.into_inner()))
}

/// [`run`], adding each worker's CPU nanoseconds to `worked`.
fn run_counting(d: &Dispatch, env: &mut Env, mem: &mut Memory, opts: &EngineOptions, hostcall: Option<u64>, worked: &AtomicU64) -> Option<DispatchStats> {
    let host = hostcall.and_then(|a| mem.allocation_at(a)).map_or(0..0, |a| a.base..a.end());
    let groups = d.geo.group_count();
    let threads = opts.threads.min(usize::try_from(groups).unwrap_or(usize::MAX));
    let pool = pool(threads)?;
    // Chunks of a few groups: enough of them to balance the threads, few enough that
    // claiming costs nothing.
    let chunk = (groups / (threads as u64 * 16)).clamp(1, 64);
    let job = Job { d, opts: *opts, first_wave: first_waves(d), claims: Claims::new(groups, threads), chunk, abort: AtomicBool::new(false) };
    let results: Vec<Mutex<Option<Done>>> = (0..threads).map(|_| Mutex::new(None)).collect();
    // The starting memory, shared by the workers' views while they run and taken back after.
    let start = Arc::new(std::mem::take(mem));
    pool.scope(|sc| {
        for (k, (slot, spare)) in results.iter().zip(spare_pages(threads)).enumerate() {
            let (job, env, view) = (&job, env.clone(), Memory::overlay(start.clone(), spare));
            sc.spawn(move |_| {
                let cpu = ThreadCpu::start();
                let done = worker(job, k, view, env);
                worked.fetch_add(cpu.spent_nanos(), Ordering::Relaxed);
                if let Ok(mut s) = slot.lock() {
                    *s = done;
                }
            });
        }
    });
    // Every view is gone (a worker releases its view when it ends): the memory is the
    // caller's again.
    *mem = Arc::try_unwrap(start).unwrap_or_else(|shared| (*shared).clone());
    let done: Vec<Done> = results.into_iter().map(|m| m.into_inner().ok().flatten()).collect::<Option<_>>()?;
    let stood = decide(env, mem, opts, &host, &done, &pool);
    keep_pages(done.into_iter().map(|x| x.pages));
    stood
}

/// Whether the workers' result stands (then it is committed to `mem` and counted) or the
/// sequential engine must run the dispatch; `host`: the hostcall buffer's addresses.
fn decide(
    env: &mut Env,
    mem: &mut Memory,
    opts: &EngineOptions,
    host: &std::ops::Range<u64>,
    done: &[Done],
    pool: &rayon::ThreadPool,
) -> Option<DispatchStats> {
    let stats = sum(done);
    if stats.instructions >= opts.max_instructions {
        return None;
    }
    if done.iter().any(|x| x.log.touches(host.start, host.end)) {
        return None;
    }
    let parts: Vec<&spans::Sorted> = done.iter().map(|x| &x.log).collect();
    let writes = spans::independent_sorted(&parts)?;
    commit(mem, &writes, done, pool);
    STOOD.with(|n| n.set(n.get() + 1));
    env.clock += stats.instructions;
    if let Some(p) = opts.progress {
        p.groups_done.fetch_add(stats.groups, Ordering::Relaxed);
    }
    Some(stats)
}

/// Worker `k`: claim chunks of groups and run each to its end; `None` when it gave up.
fn worker(job: &Job, k: usize, mut mem: Memory, mut env: Env) -> Option<Done> {
    // Progress is told once the dispatch is known to stand; one group at a time is enough
    // (the groups are independent or the run is discarded).
    let opts = EngineOptions { progress: None, max_resident_groups: 1, ..job.opts };
    let mut s: FSched = Sched::new(job.d, opts, None, Storage::BySlot);
    let t = Tracker::new(job.d.lds_bytes);
    let mut ready = Vec::new();
    // Log entries at the last look for waves of this worker that already share written bytes.
    let mut looked = 0;
    while let Some(chunk) = job.claims.claim(k, job.chunk) {
        for n in chunk {
            if job.abort.load(Ordering::Relaxed) || run_group(&mut s, job, n, &t, &mut env, &mut mem, &mut ready).is_none() {
                job.abort.store(true, Ordering::Relaxed);
                return None;
            }
        }
        // Waves that communicate through global memory (a kernel that stages data in a
        // global buffer every group writes, as one n-body port does) show it in the first
        // groups: stop then rather than after the whole dispatch. A conflict among some of the
        // waves' accesses is one among all of them (the final check would find it too), so
        // this changes when the dispatch falls back, never whether. Looking again only when
        // the log has doubled, and only while it is short, keeps the looks' cost a small part
        // of the final check's (looking on to the end cost as much as the final check again:
        // a quarter of a transpose worker's host instructions went to the looks and the sort).
        if looked < LOOK_LOG_ENTRIES && t.log_len() >= 2 * looked.max(32) {
            looked = t.log_len();
            if t.with_log(|log| spans::independent(&[log]).is_none()) {
                job.abort.store(true, Ordering::Relaxed);
                return None;
            }
        }
    }
    let log = spans::Sorted::new(k, &t.into_log());
    Some(Done { stats: s.stats, log, pages: mem.into_pages() })
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
        let status = s.waves[id].as_ref().map_or(WaveStatus::Done, |r| r.w.status);
        if status != WaveStatus::Ready {
            ready.swap_remove(pick);
            if settle(s, id, status, ready) {
                t.next_epoch();
                if t.raced() {
                    return None;
                }
            }
        }
        if (s.prog.looping > 0 && s.prog.looping == ready.len()) || s.limit_reached(None).is_some() {
            return None;
        }
    }
    // The group's last epoch ends with it.
    t.next_epoch();
    // Waves left that wait at a barrier that cannot complete: the sequential engine reports it.
    (s.groups[gid].is_none() && !t.raced()).then_some(())
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
    let mut next = 0u32;
    (0..d.geo.group_count())
        .map(|n| {
            let first = next;
            next = next.wrapping_add(d.waves_in_group(n));
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

/// Copy the bytes each wave wrote from its worker's private pages into `mem`: one copy per
/// run of touching ranges of one worker (consecutive groups' waves of a worker usually write
/// one block), split over the pool's threads ([`Memory::commit_runs`]); each range of a run
/// alone if the run does not go at once (it spans allocations).
fn commit(mem: &mut Memory, writes: &[Written], done: &[Done], pool: &rayon::ThreadPool) {
    let mut runs = Vec::new();
    let mut ranges = Vec::new();
    let mut rest = writes;
    while let Some(first) = rest.first() {
        let n = 1 + rest.windows(2).take_while(|p| p[1].lo == p[0].hi && p[1].worker == first.worker).count();
        let (run, after) = rest.split_at(n);
        runs.push((first.worker, first.lo, run.last().map_or(first.hi, |w| w.hi)));
        ranges.push(run);
        rest = after;
    }
    let pages: Vec<&Pages> = done.iter().map(|d| &d.pages).collect();
    let missed = pool.install(|| mem.commit_runs(&pages, &runs));
    for k in missed {
        for w in ranges[k] {
            // The worker wrote these bytes through a view of this memory: they are in its pages.
            let copied = mem.commit_from(&done[w.worker].pages, w.lo, w.hi);
            debug_assert!(copied, "{:#x}..{:#x} not in worker {}'s pages", w.lo, w.hi, w.worker);
        }
    }
}

/// Private pages kept from earlier dispatches ([`keep_pages`]), one set per worker.
static SPARE: Mutex<Vec<Pages>> = Mutex::new(Vec::new());

/// `threads` sets of private pages for the workers' views: kept ones first.
fn spare_pages(threads: usize) -> Vec<Pages> {
    let mut kept = SPARE.lock().map(|mut s| std::mem::take(&mut *s)).unwrap_or_default();
    kept.resize_with(threads.max(kept.len()), Pages::default);
    kept.truncate(threads);
    kept
}

/// Keep the workers' private pages for the next dispatch, up to [`SPARE_BUDGET_BYTES`].
fn keep_pages(pages: impl Iterator<Item = Pages>) {
    let Ok(mut spare) = SPARE.lock() else { return };
    let mut held: usize = spare.iter().map(Pages::held_bytes).sum();
    for p in pages {
        held += p.held_bytes();
        if held <= SPARE_BUDGET_BYTES {
            spare.push(p);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_group_is_claimed_once_and_a_worker_takes_its_own_span_first() {
        let mut rng = StdRng::seed_from_u64(3);
        for (groups, workers, chunk) in [(1000u64, 2usize, 7u64), (5, 3, 4), (64, 4, 1), (1, 2, 64), (4096, 2, 64)] {
            let c = Claims::new(groups, workers);
            let spans = |c: &Claims| c.spans.lock().map(|s| s.clone()).unwrap_or_default();
            assert_eq!(spans(&c).iter().map(|r| r.end - r.start).sum::<u64>(), groups, "the spans cover the grid");
            let mut seen = vec![0u32; groups as usize];
            let mut done = vec![false; workers];
            while done.iter().any(|d| !d) {
                let k = rng.random_range(0..workers);
                let own = spans(&c)[k].clone();
                match c.claim(k, chunk) {
                    Some(r) => {
                        assert!(!r.is_empty() && r.end - r.start <= chunk, "{r:?}");
                        if !own.is_empty() {
                            assert_eq!((r.start, r.end), (own.start, own.end.min(own.start + chunk)), "worker {k}: the front of its own span");
                        }
                        r.for_each(|n| seen[n as usize] += 1);
                    }
                    None => done[k] = true,
                }
            }
            assert!(seen.iter().all(|&n| n == 1), "{groups} groups, {workers} workers: each claimed once");
        }
        // A grid of nearly 2⁶⁴ groups: spans without overflow, covering it.
        let c = Claims::new(u64::MAX - 2, 3);
        let spans = c.spans.lock().map(|s| s.clone()).unwrap_or_default();
        assert_eq!((spans[0].start, spans[2].end), (0, u64::MAX - 2));
        assert!(spans.windows(2).all(|w| w[0].end == w[1].start && w[0].start < w[0].end));
        assert_eq!(c.claim(1, 10), Some(spans[1].start..spans[1].start + 10));
    }

    #[test]
    #[cfg(unix)]
    fn a_worker_is_charged_the_cpu_time_it_spent_not_the_time_it_waited() {
        let waited = ThreadCpu::start();
        std::thread::sleep(Duration::from_millis(60));
        assert!(waited.spent_nanos() < 20_000_000, "a sleeping thread spent {} ns of CPU", waited.spent_nanos());
        let busy = ThreadCpu::start();
        let until = std::time::Instant::now() + Duration::from_millis(30);
        let mut spins = 0u64;
        while std::time::Instant::now() < until {
            spins = std::hint::black_box(spins + 1);
        }
        // Spinning 30 ms of wall time on a machine that may share its cores: at least a third of it.
        assert!(busy.spent_nanos() >= 10_000_000, "a spinning thread spent {} ns of CPU", busy.spent_nanos());
    }
}
