//! The observer seam: what an observer is told matches what the kernel's source says it does,
//! in both modes, without changing the results; and the same seed tells the same story.
//!
//! Expected counts come from the kernels' sources (`workloads/src/vadd.hip`, `lds.hip`), not
//! from our output: vadd reads a[i] and b[i] and writes c[i] once per element; lds_reduce
//! stores 256 values to LDS, then for strides 128..1 every thread t < stride reads two values
//! and writes one (255 steps), thread 0 reads s[0] once, and it passes 9 barriers per group.

use hipscope_isa::codeobj;
use hipscope_sim::launch::Hooks;
use hipscope_sim::observe::{Access, Dir, DispatchInfo, Executed, Observer, Space};
use hipscope_sim::{gpus, Device, EngineOptions, Geometry, MemoryKind, WaveId};
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::path::Path;

/// (config directory, built-in GPU for timing mode with that processor)
const TARGETS: [(&str, &str); 3] = [("gfx90a", "mi210"), ("gfx942", "mi300a"), ("gfx1100-w32-wgp", "rx7900xtx")];

#[derive(Default)]
struct Recorder {
    dispatches: u32,
    ended: u32,
    instructions: u64,
    barriers_executed: u64,
    barrier_releases: u64,
    released_waves: u64,
    waves_started: u64,
    waves_ended: u64,
    /// (space, dir) -> bytes per address
    bytes: HashMap<(Space, Dir), BTreeMap<u64, u32>>,
    /// Accesses seen before any instruction (must stay 0).
    orphan_accesses: u64,
    /// A hash of the whole event stream, for determinism.
    stream: std::collections::hash_map::DefaultHasher,
    live: std::collections::HashSet<u32>,
    /// The dispatch's kernarg segment, as the dispatch reported it.
    kernarg: std::ops::Range<u64>,
    /// Every byte address read in the kernarg space.
    kernarg_read: std::collections::BTreeSet<u64>,
}

impl Observer for Recorder {
    fn dispatch_started(&mut self, d: &DispatchInfo) {
        self.dispatches += 1;
        self.kernarg = d.regions.kernarg.clone();
        d.kernel.name.hash(&mut self.stream);
    }
    fn wave_started(&mut self, wave: WaveId, index: u32) {
        self.waves_started += 1;
        self.live.insert(index);
        (wave.workgroup, wave.wave, index).hash(&mut self.stream);
    }
    fn executed(&mut self, e: &Executed) {
        assert!(self.live.contains(&e.wave_index), "instruction of a wave not started");
        self.instructions += 1;
        if e.inst.mnemonic() == "s_barrier" {
            self.barriers_executed += 1;
        }
        (e.wave_index, e.pc, e.exec).hash(&mut self.stream);
    }
    fn access(&mut self, a: &Access) {
        if self.instructions == 0 {
            self.orphan_accesses += 1;
        }
        if (a.space, a.dir) == (Space::Kernarg, Dir::Read) {
            self.kernarg_read.extend(a.address..a.address + u64::from(a.bytes));
        }
        *self.bytes.entry((a.space, a.dir)).or_default().entry(a.address).or_default() += a.bytes;
        (a.lane, a.address, a.bytes, a.dir == Dir::Write).hash(&mut self.stream);
    }
    fn barrier_released(&mut self, waves: &[u32]) {
        self.barrier_releases += 1;
        self.released_waves += waves.len() as u64;
        waves.hash(&mut self.stream);
    }
    fn wave_ended(&mut self, _wave: WaveId, index: u32) {
        self.waves_ended += 1;
        assert!(self.live.remove(&index), "a wave ended twice or never started");
    }
    fn dispatch_ended(&mut self) {
        self.ended += 1;
    }
}

impl Recorder {
    /// Bytes accessed in [base, base + len) in one space and direction, and how many
    /// distinct addresses.
    fn within(&self, space: Space, dir: Dir, base: u64, len: u64) -> (u64, usize) {
        let Some(m) = self.bytes.get(&(space, dir)) else { return (0, 0) };
        let r = m.range(base..base + len);
        r.fold((0, 0), |(b, n), (_, &v)| (b + u64::from(v), n + 1))
    }
}

fn load(config: &str, file: &str) -> Option<codeobj::CodeObject> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/bin").join(config).join(file);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Some(codeobj::load(&bytes, None).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

fn device(co: &codeobj::CodeObject, gpu: Option<&str>) -> Device {
    let mut dev = Device::new(co.target.processor);
    if let Some(g) = gpu {
        dev.enable_timing(&gpus::builtin(g).unwrap()).unwrap();
    }
    dev
}

/// vadd with n elements; returns c and the recorder (if observed).
fn vadd(config: &str, gpu: Option<&str>, observe: bool, seed: u64) -> (Vec<u8>, Option<Recorder>, [u64; 3], u64) {
    let co = load(config, "vadd.co").unwrap();
    let mut dev = device(&co, gpu);
    let kernel = dev.load_kernel(&co, "vadd").unwrap();
    let n = 1000u32;
    let f = |v: Vec<f32>| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let pa = dev.mem.alloc_init("a", f((0..n).map(|i| i as f32 * 0.5).collect()), MemoryKind::Device);
    let pb = dev.mem.alloc_init("b", f((0..n).map(|i| 1000.0 - i as f32).collect()), MemoryKind::Device);
    let pc = dev.mem.alloc("c", 4 * n as usize, MemoryKind::Device);
    let args = vec![pa.to_le_bytes().to_vec(), pb.to_le_bytes().to_vec(), pc.to_le_bytes().to_vec(), n.to_le_bytes().to_vec()];
    let geo = Geometry { grid: [1024, 1, 1], block: [256, 1, 1], dynamic_lds: 0 };
    let mut rec = Recorder::default();
    let opts = EngineOptions { seed, ..EngineOptions::default() };
    let hooks = if observe { Hooks { observer: Some(&mut rec), ..Hooks::default() } } else { Hooks::default() };
    let stats = dev.launch_hooked(&kernel, geo, &args, &opts, hooks).unwrap();
    dev.synchronize();
    let c = dev.mem.find("c").unwrap().data.to_vec();
    if observe {
        assert_eq!(rec.instructions, stats.instructions, "{config}: one executed event per instruction");
        assert_eq!((rec.waves_started, rec.waves_ended), (stats.waves, stats.waves), "{config}: wave start/end events");
    }
    (c, observe.then_some(rec), [pa, pb, pc], u64::from(n))
}

#[test]
fn vadd_lane_accesses_are_one_read_of_a_and_b_and_one_write_of_c_per_element() {
    for (config, gpu) in TARGETS {
        for mode in [None, Some(gpu)] {
            let what = format!("{config} {}", mode.unwrap_or("functional"));
            let (plain, _, _, _) = vadd(config, mode, false, 0);
            let (watched, rec, [pa, pb, pc], n) = vadd(config, mode, true, 0);
            assert_eq!(plain, watched, "{what}: observing changed the result");
            let rec = rec.unwrap();
            assert_eq!((rec.dispatches, rec.ended, rec.orphan_accesses), (1, 1, 0), "{what}");
            for (name, base) in [("a", pa), ("b", pb)] {
                assert_eq!(rec.within(Space::Global, Dir::Read, base, 4 * n), (4 * n, n as usize), "{what}: reads of {name}");
                assert_eq!(rec.within(Space::Global, Dir::Write, base, 4 * n), (0, 0), "{what}: writes to {name}");
            }
            assert_eq!(rec.within(Space::Global, Dir::Write, pc, 4 * n), (4 * n, n as usize), "{what}: writes of c");
            assert_eq!(rec.within(Space::Global, Dir::Read, pc, 4 * n), (0, 0), "{what}: reads of c");
            assert!(rec.bytes.keys().all(|(s, _)| matches!(s, Space::Global | Space::Kernarg)), "{what}: vadd touches neither LDS nor scratch");
            // Its arguments (three pointers and an int: 28 bytes) are read where the dispatch
            // placed them, and never written.
            assert!(rec.kernarg_read.iter().all(|a| rec.kernarg.contains(a)), "{what}: argument reads outside the kernarg segment");
            assert!((rec.kernarg.start..rec.kernarg.start + 28).all(|b| rec.kernarg_read.contains(&b)), "{what}: not every argument byte read");
            assert!(!rec.bytes.contains_key(&(Space::Kernarg, Dir::Write)), "{what}: arguments written");
            println!("{what}: {} instructions observed", rec.instructions);
        }
    }
}

#[test]
fn lds_reduce_lds_traffic_and_barriers_follow_the_source() {
    for (config, gpu) in TARGETS {
        for mode in [None, Some(gpu)] {
            let what = format!("{config} {}", mode.unwrap_or("functional"));
            let co = load(config, "lds.co").unwrap();
            let mut dev = device(&co, mode);
            let kernel = dev.load_kernel(&co, "lds_reduce").unwrap();
            let groups = 6u64;
            let n = (groups * 256) as u32;
            let input: Vec<u8> = (0..n).flat_map(|i| i.to_le_bytes()).collect();
            let pin = dev.mem.alloc_init("in", input, MemoryKind::Device);
            let pout = dev.mem.alloc("out", 4 * groups as usize, MemoryKind::Device);
            let args = vec![pin.to_le_bytes().to_vec(), pout.to_le_bytes().to_vec(), n.to_le_bytes().to_vec()];
            let geo = Geometry { grid: [n, 1, 1], block: [256, 1, 1], dynamic_lds: 0 };
            let mut rec = Recorder::default();
            dev.launch_hooked(&kernel, geo, &args, &EngineOptions::default(), Hooks { observer: Some(&mut rec), ..Hooks::default() }).unwrap();
            dev.synchronize();
            let out = &dev.mem.find("out").unwrap().data;
            for g in 0..groups as usize {
                let want = (g as u32 * 256..(g as u32 + 1) * 256).fold(0u32, u32::wrapping_add);
                assert_eq!(u32::from_le_bytes(out[4 * g..4 * g + 4].try_into().unwrap()), want, "{what}: out[{g}]");
            }
            let lds = |dir| rec.bytes.get(&(Space::Lds, dir)).map_or(0, |m| m.values().map(|&b| u64::from(b)).sum::<u64>());
            assert_eq!(lds(Dir::Write), groups * 4 * (256 + 255), "{what}: LDS bytes written");
            assert_eq!(lds(Dir::Read), groups * 4 * (2 * 255 + 1), "{what}: LDS bytes read");
            let waves_per_group = 256 / if kernel.wave64 { 64 } else { 32 };
            assert_eq!(rec.barrier_releases, groups * 9, "{what}: barrier releases");
            assert_eq!(rec.released_waves, groups * 9 * waves_per_group, "{what}: waves released");
            assert_eq!(rec.barriers_executed, rec.released_waves, "{what}: every released wave executed s_barrier");
        }
    }
}

#[test]
fn the_same_seed_tells_the_same_story_and_another_seed_another_interleaving() {
    for (config, gpu) in TARGETS {
        for mode in [None, Some(gpu)] {
            let what = format!("{config} {}", mode.unwrap_or("functional"));
            let h = |seed| vadd(config, mode, true, seed).1.unwrap().stream.finish();
            assert_eq!(h(7), h(7), "{what}: seed 7 twice");
            assert_ne!(h(7), h(8), "{what}: seeds 7 and 8 interleave the same way");
        }
    }
}

/// Counts what the timing model tells an observer.
#[derive(Default)]
struct TimingRecorder {
    started: u64,
    placed: u64,
    spans: u64,
    span_instructions: u64,
    ended: u64,
    scalar_done: u64,
    vector_done: u64,
    /// Events whose end comes before their start.
    backwards: u64,
    stalls: u64,
    /// (operations, lines) by cache op.
    actions: HashMap<hipscope_sim::observe::CacheOp, (u64, u64)>,
    dispatch_span: Option<(u64, u64)>,
    cus: u32,
    lane_events: u64,
}

impl Observer for TimingRecorder {
    fn lane_accesses(&self) -> bool {
        false
    }
    fn dispatch_started(&mut self, d: &DispatchInfo) {
        self.cus = d.timing.expect("timing mode tells the GPU").layout.compute_units;
    }
    fn wave_started(&mut self, _: WaveId, _: u32) {
        self.started += 1;
    }
    fn access(&mut self, _: &Access) {
        self.lane_events += 1;
    }
    fn wave_placed(&mut self, p: &hipscope_sim::observe::WavePlaced) {
        self.placed += 1;
        assert!((p.cu as u32) < self.cus, "wave placed on CU {} of {}", p.cu, self.cus);
    }
    fn stalled(&mut self, s: &hipscope_sim::observe::Stall) {
        self.stalls += 1;
        self.backwards += u64::from(s.to < s.from);
    }
    fn memory_done(&mut self, m: &hipscope_sim::observe::MemoryDone) {
        match m.unit {
            hipscope_sim::observe::MemUnit::Scalar => self.scalar_done += 1,
            hipscope_sim::observe::MemUnit::Vector => self.vector_done += 1,
        }
        self.backwards += u64::from(m.done < m.issue);
    }
    fn cache_action(&mut self, a: &hipscope_sim::observe::CacheAction) {
        let e = self.actions.entry(a.op).or_default();
        e.0 += 1;
        e.1 += a.lines;
        self.backwards += u64::from(a.done < a.issue);
    }
    fn wave_span(&mut self, s: &hipscope_sim::observe::WaveSpan) {
        self.spans += 1;
        self.span_instructions += s.instructions;
        self.backwards += u64::from(s.end < s.start);
    }
    fn wave_ended(&mut self, _: WaveId, _: u32) {
        self.ended += 1;
    }
    fn dispatch_span(&mut self, s: &hipscope_sim::observe::DispatchSpan) {
        self.dispatch_span = Some((s.start, s.end));
    }
}

/// The timing side of the seam on the message-passing kernels (`workloads/src/mp.hip`): every
/// wave placed and spanned, every scalar load completed, and every cache action the memory
/// system counted is one the observer was told of, with the same lines. An agent-scope acquire
/// invalidates the reader's L1 (GL0 on RDNA) on all three targets (AMDGPUUsage memory-model
/// code sequences for GFX90A, GFX942 and GFX11).
#[test]
fn the_timing_side_tells_every_wave_load_and_cache_action() {
    use hipscope_sim::counters::Counter;
    use hipscope_sim::observe::CacheOp;
    use hipscope_sim::spec::{self, RunOptions, Session};
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/mp.ron");
    let mut parsed = spec::load(&path).unwrap();
    // Only the events are watched: the reference checks (models in the studies crate) are not.
    parsed.expect.clear();
    for (config, gpu) in TARGETS {
        let opts = RunOptions { code_object: Some(config.into()), gpu: Some(gpu.into()), mode: hipscope_sim::Mode::Timing, ..RunOptions::default() };
        let mut s = Session::new(&parsed, &path, &opts).unwrap();
        for i in 0..parsed.dispatches.len() {
            let kernel = s.kernel(i).unwrap().name.clone();
            let what = format!("{config} {kernel}");
            let mut rec = TimingRecorder::default();
            let stats = s.launch_observed(i, 0, Some(&mut rec)).unwrap();
            let c = stats.counters.clone().unwrap();
            assert_eq!((rec.started, rec.placed, rec.spans, rec.ended), (stats.waves, stats.waves, stats.waves, stats.waves), "{what}: wave events");
            assert_eq!(rec.span_instructions, stats.instructions, "{what}: instructions in wave spans");
            assert_eq!(rec.scalar_done, c.get(Counter::SqInstsSmem), "{what}: scalar memory instructions");
            assert!(rec.vector_done > 0, "{what}: vector memory instructions");
            assert_eq!((rec.backwards, rec.lane_events), (0, 0), "{what}: time runs forwards; no lane events unasked");
            let (start, end) = rec.dispatch_span.expect("a dispatch span");
            assert_eq!(end - start, stats.cycles.unwrap(), "{what}: dispatch span");
            let got = |op| rec.actions.get(&op).copied().unwrap_or_default();
            assert_eq!(got(CacheOp::InvalidateL1), (c.get(Counter::L1Invalidates), c.get(Counter::L1InvalidatedLines)), "{what}: L1 invalidates");
            assert_eq!(got(CacheOp::InvalidateGl1), (c.get(Counter::Gl1Invalidates), c.get(Counter::Gl1InvalidatedLines)), "{what}: GL1 invalidates");
            assert_eq!(got(CacheOp::InvalidateL2), (c.get(Counter::L2Invalidates), c.get(Counter::TccAllTcOpInvEvict)), "{what}: L2 invalidates");
            assert_eq!(got(CacheOp::WritebackL2), (c.get(Counter::L2Writebacks), c.get(Counter::TccAllTcOpWbWriteback)), "{what}: L2 write-backs");
            if kernel == "mp_acqrel_agent" {
                assert!(got(CacheOp::InvalidateL1).0 > 0, "{what}: an agent-scope acquire invalidates the L1");
            }
        }
    }
}
