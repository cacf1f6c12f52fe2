//! `--threads`: a dispatch whose work-groups run on several host threads gives the memory and
//! the counts the one-thread engine gives, for race-free and racing kernels and every seed,
//! and runs in parallel exactly when its waves touch memory independently (otherwise the
//! sequential engine runs it, and the seed orders the races as before).

use hipscope_sim::engine::dispatches_run_in_parallel;
use hipscope_sim::spec::{self, RunOptions};
use hipscope_sim::Threads;
use std::path::PathBuf;

/// What a run leaves: per dispatch (kernel, groups, waves, instructions, LDS out of range),
/// every buffer's final bytes, and how many dispatches ran in parallel.
type Outcome = (Vec<(String, u64, u64, u64, u64)>, Vec<(String, Vec<u8>)>, u64);

fn run(file: &str, params: &[(String, i128)], threads: Threads, seed: u64) -> Outcome {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../workloads").join(file);
    let mut s = spec::load_with(&path, params).unwrap_or_else(|e| panic!("{file}: {e}"));
    // The CPU reference models live above the engine; here the two thread counts are
    // compared with each other, byte for byte.
    s.expect.clear();
    let dump = s.buffers.keys().map(str::to_string).collect();
    let opts = RunOptions { code_object: Some("gfx942".into()), seed, threads, dump, ..RunOptions::default() };
    let before = dispatches_run_in_parallel();
    let report = spec::run(&s, &path, &opts).unwrap_or_else(|e| panic!("{file} threads {threads} seed {seed}: {e}"));
    let parallel = dispatches_run_in_parallel() - before;
    let stats = report.dispatches.iter().map(|d| (d.kernel.clone(), d.groups, d.waves, d.instructions, d.lds_out_of_range)).collect();
    (stats, report.dumps, parallel)
}

/// The runs with 1, 2 and 3 threads agree for `seeds`; returns how many dispatches of the
/// last run went parallel, and the dispatches of a run.
fn agree(file: &str, seeds: std::ops::Range<u64>) -> (u64, usize) {
    agree_with(file, &[], seeds)
}

/// [`agree`] with the spec's parameters `params` replaced.
fn agree_with(file: &str, params: &[(String, i128)], seeds: std::ops::Range<u64>) -> (u64, usize) {
    let mut parallel = 0;
    let mut dispatches = 0;
    for seed in seeds {
        let (stats1, dumps1, p1) = run(file, params, Threads::Fixed(1), seed);
        assert_eq!(p1, 0, "{file}: one thread never runs in parallel");
        for threads in [2, 3] {
            let (stats, dumps, p) = run(file, params, Threads::Fixed(threads), seed);
            assert_eq!(stats, stats1, "{file} seed {seed}: counts with {threads} threads");
            for ((name, a), (_, b)) in dumps.iter().zip(&dumps1) {
                let first = a.iter().zip(b).position(|(x, y)| x != y);
                assert!(first.is_none() && a.len() == b.len(), "{file} seed {seed}: buffer {name} with {threads} threads differs at byte {first:?}");
            }
            parallel = p;
        }
        dispatches = stats1.len();
    }
    (parallel, dispatches)
}

#[test]
fn race_free_kernels_run_in_parallel_with_the_one_thread_result() {
    // Element-wise, LDS with barriers (a reduction, a tiled transpose), and a sorting network
    // whose steps pair elements across work-groups.
    for file in ["vadd.ron", "saxpy.ron", "lds_reduce.ron", "lds_transpose.ron", "bitonic.ron"] {
        let (parallel, dispatches) = agree(file, 0..2);
        assert_eq!(parallel, dispatches as u64, "{file}: every dispatch's waves are independent");
    }
}

#[test]
fn racing_and_communicating_kernels_fall_back_to_the_seeded_interleaving() {
    // Atomics on shared bins, message passing between work-groups, spin locks: the result
    // depends on the interleaving, which the seed alone decides.
    for file in ["histogram.ron", "mp.ron", "spin_lock.ron", "spin_wg.ron"] {
        let (parallel, _) = agree(file, 0..3);
        assert_eq!(parallel, 0, "{file}: waves share written memory, so no dispatch stands in parallel");
    }
}

#[test]
fn kernels_with_scratch_run_sequentially_and_agree() {
    let (parallel, _) = agree("private.ron", 0..2);
    assert_eq!(parallel, 0, "scratch slots follow residency");
}

#[test]
fn auto_threads_run_a_kernels_first_launch_on_several_threads_and_the_next_on_one() {
    if Threads::Auto.count() < 2 {
        println!("SKIPPED: one host core: `--threads auto` runs everything on it");
        return;
    }
    // 55 launches of one kernel and shape: the first on several threads, the second on one
    // (then whichever took less host time per instruction), the same bytes and counts.
    let (stats1, dumps1, _) = run("bitonic.ron", &[], Threads::Fixed(1), 0);
    let (stats, dumps, parallel) = run("bitonic.ron", &[], Threads::Auto, 0);
    assert_eq!(stats, stats1, "counts with --threads auto");
    assert_eq!(dumps, dumps1, "buffers with --threads auto");
    assert!(parallel >= 1, "the first launch runs on several threads");
    assert!(parallel < stats.len() as u64, "the second launch runs on one thread: {parallel} of {} in parallel", stats.len());
}

#[test]
fn copy_on_write_pages_of_large_buffers_merge_into_the_one_thread_result() {
    // vadd over 1 200 003 elements: each buffer is 4.8 MB, more than two of the workers'
    // 2 MiB private chunks, and its end is no multiple of a 4 KiB page. The threads claim the
    // 4 689 groups in runs of 64 (64 KiB of `c`), so every worker copies and writes pages in
    // every private chunk of `c`, reads pages of `a` and `b` that no worker writes, and the
    // commit takes each run's bytes from the worker that wrote them.
    let n = [("n".to_string(), 1_200_003)];
    let (parallel, dispatches) = agree_with("vadd.ron", &n, 0..1);
    assert_eq!(parallel, dispatches as u64, "element-wise: independent");
}

/// A gfx942 kernel of two-wave work-groups built here with the encoder: each wave writes its
/// index in the group to LDS byte `wave << shift`, reads the dword there back without a
/// barrier, and stores what it read to `out[global id]`. With `shift` 0 both waves of a group
/// write dword 0 (a race: what a wave reads depends on the interleaving); with 2 each wave has
/// a dword of its own.
fn lds_kernel(dev: &hipscope_sim::Device, shift: i64) -> hipscope_sim::kernel::LoadedKernel {
    use hipscope_isa::decode::{Decoder, Operand, Reg};
    use hipscope_isa::tables::OpName;
    let (s, s2, v) = (
        |i: u8| Operand::Reg(Reg::Sgpr { index: i, count: 1 }),
        |i: u8| Operand::Reg(Reg::Sgpr { index: i, count: 2 }),
        |i: u8| Operand::Reg(Reg::Vgpr { index: i, count: 1 }),
    );
    let imm = Operand::Imm;
    // s[0:1]: kernarg pointer, s2: work-group id X, v0: work-item id X (the descriptor below).
    let program: Vec<(&str, Vec<(OpName, Operand)>)> = vec![
        ("s_load_dwordx2", vec![(OpName::sdst, s2(4)), (OpName::sbase, s2(0)), (OpName::offset, imm(0))]),
        ("v_lshrrev_b32", vec![(OpName::vdst, v(1)), (OpName::src0, imm(6)), (OpName::src1, v(0))]),
        ("v_lshlrev_b32", vec![(OpName::vdst, v(2)), (OpName::src0, imm(shift)), (OpName::src1, v(1))]),
        ("ds_write_b32", vec![(OpName::addr, v(2)), (OpName::data0, v(1))]),
        // lgkmcnt(0), the other counters at their maximum (GFX9 S_WAITCNT simm16).
        ("s_waitcnt", vec![(OpName::simm16, imm(0xc07f))]),
        ("ds_read_b32", vec![(OpName::vdst, v(3)), (OpName::addr, v(2))]),
        ("s_waitcnt", vec![(OpName::simm16, imm(0xc07f))]),
        ("s_lshl_b32", vec![(OpName::sdst, s(6)), (OpName::src0, s(2)), (OpName::src1, imm(7))]),
        ("v_add_u32", vec![(OpName::vdst, v(4)), (OpName::src0, s(6)), (OpName::src1, v(0))]),
        ("v_lshlrev_b32", vec![(OpName::vdst, v(4)), (OpName::src0, imm(2)), (OpName::src1, v(4))]),
        ("global_store_dword", vec![(OpName::vaddr, v(4)), (OpName::vdata, v(3)), (OpName::saddr, s2(4))]),
        ("s_endpgm", vec![]),
    ];
    let p = hipscope_isa::Processor::Gfx942;
    let decoder = Decoder::new(p, true);
    let mut code = Vec::new();
    for (name, ops) in &program {
        let e = decoder.encode(&[name], ops, 0x1000 + code.len() as u64).unwrap_or_else(|e| panic!("{name}: {e}"));
        code.extend_from_slice(&e.bytes);
    }
    // The descriptor (AMDGPUUsage "Kernel Descriptor"): 8 bytes of LDS, 8 of kernarg; 8
    // VGPRs; USER_SGPR_COUNT 2 and ENABLE_SGPR_WORKGROUP_ID_X (rsrc2); the kernarg pointer.
    let mut kd = [0u8; 64];
    kd[0..4].copy_from_slice(&8u32.to_le_bytes());
    kd[8..12].copy_from_slice(&8u32.to_le_bytes());
    kd[48..52].copy_from_slice(&(1u32 | 13 << 6).to_le_bytes());
    kd[52..56].copy_from_slice(&(2u32 << 1 | 1 << 7).to_le_bytes());
    kd[56..58].copy_from_slice(&(1u16 << 3).to_le_bytes());
    let descriptor = hipscope_isa::codeobj::KernelDescriptor::parse(&kd, p.family()).expect("a 64-byte descriptor");
    let raw = hipscope_sim::kernel::RawKernel { name: "lds_race", processor: p, wave64: true, descriptor, vgprs: 8, code: &code, entry: 0x1000 };
    dev.load_code(&raw).expect("the kernel loads")
}

/// `lds_kernel(shift)` over 16 groups on `threads` threads with `seed`: what `out` holds, and
/// how many dispatches stood in parallel.
fn run_lds(shift: i64, threads: usize, seed: u64) -> (Vec<u8>, u64) {
    let mut dev = hipscope_sim::Device::new(hipscope_isa::Processor::Gfx942);
    let k = lds_kernel(&dev, shift);
    let groups = 16u32;
    let bytes = 4 * 128 * groups as usize;
    let out = dev.alloc("out", bytes, hipscope_sim::MemoryKind::Device);
    let geo = hipscope_sim::Geometry { grid: [128 * groups, 1, 1], block: [128, 1, 1], dynamic_lds: 0 };
    let opts = hipscope_sim::EngineOptions { threads, seed, ..Default::default() };
    let before = dispatches_run_in_parallel();
    dev.launch(&k, geo, &[out.to_le_bytes().to_vec()], &opts).expect("the dispatch runs");
    let mut got = vec![0u8; bytes];
    dev.mem.read(out, &mut got).expect("out is mapped");
    (got, dispatches_run_in_parallel() - before)
}

#[test]
fn an_lds_race_between_waves_of_a_group_falls_back_and_private_dwords_do_not() {
    let mut outcomes = std::collections::BTreeSet::new();
    for seed in 0..6 {
        let (one, _) = run_lds(0, 1, seed);
        let (two, parallel) = run_lds(0, 2, seed);
        assert!(one == two, "seed {seed}: the racing kernel's result differs with 2 threads");
        assert_eq!(parallel, 0, "seed {seed}: two waves wrote one LDS dword between barriers, so the sequential engine decides");
        outcomes.insert(one);
        let (one, _) = run_lds(2, 1, seed);
        let (two, parallel) = run_lds(2, 2, seed);
        assert!(one == two, "seed {seed}: the race-free kernel's result differs with 2 threads");
        assert_eq!(parallel, 1, "seed {seed}: each wave kept to its own LDS dword, so the parallel run stands");
        // Each wave reads back its own index: the lanes of wave 1 of every group hold 1.
        let words: Vec<u32> = one.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        let wrong = words.iter().enumerate().position(|(i, &w)| w != (i as u32 / 64) % 2);
        assert!(wrong.is_none(), "seed {seed}: work-item {wrong:?} read another wave's index");
    }
    // The race is real: the seeds' interleavings give more than one result.
    assert!(outcomes.len() > 1, "every seed read the same values");
}
