//! The built-in CPU reference models: what each known kernel computes, written from the
//! kernel's definition (the header comments of `workloads/src/*`, and for the external objects
//! the upstream sources and CPU checks cited in `../shared/external-code-objects/SOURCES.md`),
//! never from simulator output. [`BUILT_IN`] is the registry a run is given
//! (`RunOptions::references`) so that its specs' `Reference("set")` expectations are checked;
//! what a model sees and how a replay works is the engine's seam,
//! `hipscope_sim::spec::references`.

mod external;
mod workloads;

use hipscope_sim::spec::references::References;

/// Every built-in reference set: our workloads' and the external objects'.
pub const BUILT_IN: References = References::new(&[workloads::MODELS, external::MODELS]);

#[cfg(test)]
mod tests {
    //! Each model on a tiny input whose result is worked out by hand from the kernel's
    //! definition (the comment above each case).
    use super::*;
    use hipscope_isa::Processor;
    use hipscope_sim::spec::model::Arg;
    use hipscope_sim::spec::references::{CpuMemory, DispatchView, ModelError};
    use std::collections::BTreeMap;

    /// [`BUILT_IN`]'s replay of `set`.
    fn replay<'a>(set: &str, initial: &BTreeMap<String, &'a [u8]>, dispatches: &[DispatchView]) -> Result<CpuMemory<'a>, ModelError> {
        BUILT_IN.replay(set, initial, dispatches)
    }

    fn mem(bufs: &[(&str, Vec<u8>)]) -> BTreeMap<String, Vec<u8>> {
        bufs.iter().map(|(n, b)| (n.to_string(), b.clone())).collect()
    }

    /// The initial buffers as the replay sees them (views).
    fn views(m: &BTreeMap<String, Vec<u8>>) -> BTreeMap<String, &[u8]> {
        m.iter().map(|(n, b)| (n.clone(), b.as_slice())).collect()
    }

    fn u32b(v: &[u32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn f32b(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn view<'a>(kernel: &'a str, grid: [u32; 3], block: [u32; 3], args: &'a [Arg], wave: u32) -> DispatchView<'a> {
        DispatchView { index: 0, kernel, grid, block, dynamic_lds: 0, args, wave_size: wave, processor: Processor::Gfx942 }
    }

    fn buf(n: &str) -> Arg {
        Arg::Buffer(n.into())
    }

    #[test]
    fn lds_transpose_of_a_2x3_matrix() {
        // in is 2 rows x 3 columns [[0,1,2],[3,4,5]]; out is its 3 x 2 transpose.
        let init = mem(&[("in", u32b(&[0, 1, 2, 3, 4, 5])), ("out", u32b(&[9; 6]))]);
        let args = [buf("in"), buf("out"), Arg::U32(3), Arg::U32(2)];
        let m = replay("lds", &views(&init), &[view("lds_transpose", [16, 16, 1], [16, 16, 1], &args, 64)]).unwrap();
        assert_eq!(m.get::<u32>("out").unwrap(), [0, 3, 1, 4, 2, 5]);
    }

    #[test]
    fn histogram_counts_modulo_nbins() {
        // 1,2,3,4,5,7 mod 3 = 1,2,0,1,2,1.
        let init = mem(&[("in", u32b(&[1, 2, 3, 4, 5, 7])), ("bins", u32b(&[0; 3]))]);
        let args = [buf("in"), buf("bins"), Arg::U32(6), Arg::U32(3)];
        let m = replay("atomics", &views(&init), &[view("histogram", [8, 1, 1], [8, 1, 1], &args, 64)]).unwrap();
        assert_eq!(m.get::<u32>("bins").unwrap(), [1, 3, 2]);
    }

    #[test]
    fn wave_reduce_in_both_wave_sizes() {
        let input: Vec<u8> = (0..64i32).flat_map(|x| x.to_le_bytes()).collect();
        let init = mem(&[("in", input), ("sums", vec![0; 16]), ("masks", vec![0; 32])]);
        let args = [buf("in"), buf("sums"), buf("masks")];
        // wave32: sums of 0..31 and 32..63; odd lanes; EXEC of 32 lanes.
        let m = replay("wave_reduce", &views(&init), &[view("wave_reduce", [64, 1, 1], [64, 1, 1], &args, 32)]).unwrap();
        assert_eq!(m.get::<i32>("sums").unwrap(), [496, 496, 1520, 1520]);
        assert_eq!(m.get::<u64>("masks").unwrap(), [0xaaaa_aaaa, 0xffff_ffff, 0xaaaa_aaaa, 0xffff_ffff]);
        // wave64: one wave.
        let m = replay("wave_reduce", &views(&init), &[view("wave_reduce", [64, 1, 1], [64, 1, 1], &args, 64)]).unwrap();
        assert_eq!(m.get::<i32>("sums").unwrap(), [2016, 2016, 0, 0]);
        assert_eq!(m.get::<u64>("masks").unwrap(), [0xaaaa_aaaa_aaaa_aaaa, u64::MAX, 0, 0]);
    }

    #[test]
    fn bfs_levels_over_two_launches() {
        // Edges 0->1, 0->2, 1->3; source 0.
        let init =
            mem(&[("levels", u32b(&[0, u32::MAX, u32::MAX, u32::MAX])), ("off", u32b(&[0, 2, 3, 3, 3])), ("aux", u32b(&[1, 2, 3])), ("flag", u32b(&[0]))]);
        let a0 = [buf("levels"), buf("off"), buf("aux"), Arg::I32(32), Arg::I32(32), Arg::U32(4), Arg::I32(0), buf("flag")];
        let mut a1 = a0.clone();
        a1[6] = Arg::I32(1);
        let v = [view("BFS_kernel_warp", [64, 1, 1], [64, 1, 1], &a0, 64), view("BFS_kernel_warp", [64, 1, 1], [64, 1, 1], &a1, 64)];
        let m = replay("mgpusim_bfs", &views(&init), &v[..1]).unwrap();
        assert_eq!(m.get::<u32>("levels").unwrap(), [0, 1, 1, u32::MAX]);
        assert_eq!(m.get::<u32>("flag").unwrap(), [1]);
        let m = replay("mgpusim_bfs", &views(&init), &v).unwrap();
        assert_eq!(m.get::<u32>("levels").unwrap(), [0, 1, 1, 2]);
    }

    #[test]
    fn atax_two_kernels_share_tmp() {
        // A = [[1,2],[3,4]], x = [1,1]: tmp = A x = [3,7]; y = A^T tmp = [1*3+3*7, 2*3+4*7].
        let init = mem(&[("A", f32b(&[1.0, 2.0, 3.0, 4.0])), ("x", f32b(&[1.0, 1.0])), ("tmp", f32b(&[0.0; 2])), ("y", f32b(&[0.0; 2]))]);
        let a1 = [buf("A"), buf("x"), buf("tmp"), Arg::I32(2), Arg::I32(2)];
        let a2 = [buf("A"), buf("y"), buf("tmp"), Arg::I32(2), Arg::I32(2)];
        let v = [view("atax_kernel1", [256, 1, 1], [256, 1, 1], &a1, 64), view("atax_kernel2", [256, 1, 1], [256, 1, 1], &a2, 64)];
        let m = replay("mgpusim_atax", &views(&init), &v).unwrap();
        assert_eq!(m.get::<f32>("tmp").unwrap(), [3.0, 7.0]);
        assert_eq!(m.get::<f32>("y").unwrap(), [24.0, 34.0]);
    }

    #[test]
    fn fir_reads_history_before_the_input_starts() {
        // taps 2, coeff [1,2], input [1,2,3], history [5,6]:
        // out[0] = 1*1 + 2*history[2-1] = 13, out[1] = 1*2 + 2*1 = 4, out[2] = 3 + 2*2 = 7.
        let init = mem(&[("out", f32b(&[0.0; 3])), ("c", f32b(&[1.0, 2.0])), ("in", f32b(&[1.0, 2.0, 3.0])), ("h", f32b(&[5.0, 6.0]))]);
        let args = [buf("out"), buf("c"), buf("in"), buf("h"), Arg::U32(2)];
        let m = replay("mgpusim_fir", &views(&init), &[view("FIR", [3, 1, 1], [256, 1, 1], &args, 64)]).unwrap();
        assert_eq!(m.get::<f32>("out").unwrap(), [13.0, 4.0, 7.0]);
    }

    #[test]
    fn mp_and_spin_lock_checks() {
        let init = mem(&[("d", vec![0; 8]), ("f", vec![0; 8]), ("o", vec![0; 8])]);
        let args = [buf("d"), buf("f"), buf("o"), Arg::I32(10)];
        let m = replay("mp", &views(&init), &[view("mp_acqrel_agent", [4, 1, 1], [2, 1, 1], &args, 64)]).unwrap();
        assert_eq!(m.get::<i32>("d").unwrap(), [1, 2]);
        let p = &m.predicates["o"];
        assert!(p(&u32b(&[1, u32::MAX])).is_ok());
        assert!(p(&u32b(&[1, 0])).is_err(), "agent scope acqrel may not read stale data");
        let init = mem(&[("l", vec![0; 4]), ("c", vec![0; 8])]);
        let args = [buf("l"), buf("c"), Arg::U32(3), Arg::U32(100)];
        let m = replay("atomics", &views(&init), &[view("spin_lock", [256, 1, 1], [64, 1, 1], &args, 64)]).unwrap();
        let p = &m.predicates["c"];
        assert!(p(&u32b(&[12, 0])).is_ok(), "4 groups x 3 iterations");
        assert!(p(&u32b(&[11, 1])).is_err());
    }

    #[test]
    fn unknown_sets_and_unmodelled_kernels_are_errors() {
        let v = [view("vadd", [1, 1, 1], [1, 1, 1], &[], 64)];
        assert!(replay("nosuch", &BTreeMap::new(), &v).unwrap_err().to_string().contains("no built-in reference"));
        assert!(replay("mp", &BTreeMap::new(), &v).unwrap_err().to_string().contains("no model of kernel `vadd`"));
    }

    /// A replay copies only what the models write: vadd's inputs stay views of the initial
    /// buffers (the memory a gigabyte vadd needs rests on it).
    #[test]
    fn a_replay_copies_only_the_buffers_it_writes() {
        let init = mem(&[("a", f32b(&[1.0, 2.0])), ("b", f32b(&[10.0, 20.0])), ("c", f32b(&[0.0, 0.0]))]);
        let args = [Arg::Buffer("a".into()), Arg::Buffer("b".into()), Arg::Buffer("c".into()), Arg::U32(2)];
        let m = replay("vadd", &views(&init), &[view("vadd", [2, 1, 1], [2, 1, 1], &args, 64)]).unwrap();
        assert_eq!(m.copied(), ["c"]);
        assert_eq!(m.get::<f32>("c").unwrap(), [11.0, 22.0]);
        let kept = m.retain_owned(&["c".to_string()]);
        assert!(kept.bytes("a").is_none() && kept.bytes("c").is_some());
    }
}
