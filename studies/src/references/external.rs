//! References for the external code objects in `../shared/external-code-objects` (MGPUSim's
//! benchmarks, sarchlab/mgpusim at the commit SOURCES.md names). Each model is written from
//! the upstream kernel source and its Go `Verify`/CPU check, as cited per function; the
//! argument order is the kernel's (metadata order). gfx803 objects are OpenCL (`get_global_id`
//! includes the hidden global offset, which our dispatches leave 0); gfx942 objects are HIP.

use hipscope_sim::spec::model::Ty;
use hipscope_sim::spec::references::{at, slot, CpuMemory, DispatchView, Model, ModelError};

pub const MODELS: &[Model] = &[
    Model { set: "mgpusim_relu", kernel: "ReLUForward", run: relu },
    Model { set: "mgpusim_fir", kernel: "FIR", run: fir },
    Model { set: "mgpusim_matrixtranspose", kernel: "matrixTranspose", run: matrix_transpose },
    Model { set: "mgpusim_memcopy", kernel: "copyKernel", run: memcopy },
    Model { set: "mgpusim_atax", kernel: "atax_kernel1", run: atax1 },
    Model { set: "mgpusim_atax", kernel: "atax_kernel2", run: atax2 },
    Model { set: "mgpusim_vectoradd", kernel: "_Z15vectoradd_floatPfPKfS1_ii", run: vectoradd },
    Model { set: "mgpusim_bfs", kernel: "BFS_kernel_warp", run: bfs },
];

/// ReLUForward(count, in, out) (dnn/layer_benchmarks/relu: relu.cl, native/relu.cpp):
/// out[i] = in[i] > 0 ? in[i] : 0 for i < count.
fn relu(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let (inp, out) = (d.buffer(1)?, d.buffer(2)?);
    let n = (d.grid[0] as u64).min(d.i32(0)?.max(0) as u64);
    let (iv, mut ov) = (m.get::<f32>(inp)?, m.get::<f32>(out)?);
    for i in 0..n {
        let x = at(&iv, i, inp)?;
        *slot(&mut ov, i, out)? = if x > 0.0 { x } else { 0.0 };
    }
    m.set(out, &ov)
}

/// FIR(output, coeff, input, history, num_tap) (heteromark/fir: kernels.cl, native/fir.cpp):
/// for every work-item tid (no bound check: the grid is the data length),
/// sum over i < num_tap of coeff[i] * (tid >= i ? input[tid - i] : history[num_tap - (i - tid)]),
/// accumulated in order in f32. (Upstream's Go check is the same sum with history = 0.)
/// Whether the target fuses the multiply-add is not fixed, so specs use exact data or a
/// tolerance; this model rounds the product and the sum separately.
fn fir(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let (out, coeff, inp, hist) = (d.buffer(0)?, d.buffer(1)?, d.buffer(2)?, d.buffer(3)?);
    let taps = d.u32(4)? as u64;
    d.require_1d()?;
    let (cv, iv, hv, mut ov) = (m.get::<f32>(coeff)?, m.get::<f32>(inp)?, m.get::<f32>(hist)?, m.get::<f32>(out)?);
    for tid in 0..d.grid[0] as u64 {
        let mut sum = 0f32;
        for i in 0..taps {
            let x = if tid >= i { at(&iv, tid - i, inp)? } else { at(&hv, taps - (i - tid), hist)? };
            sum += at(&cv, i, coeff)? * x;
        }
        *slot(&mut ov, tid, out)? = sum;
    }
    m.set(out, &ov)
}

/// matrixTranspose(output, input, block, wiWidth, wiHeight, num_of_blocks_x, group_x_offset,
/// group_y_offset) (amdappsdk/matrixtranspose: MatrixTranspose_Kernels.cl,
/// native/matrixtranspose_hip.cpp; check: matrixtranspose.go Verify). Each work-item moves a
/// 4x4 block of floats through LDS. Upstream launches a square W x W matrix with
/// wiWidth = wiHeight = W/4, num_of_blocks_x = wiWidth / block, zero offsets, a grid of
/// (wiWidth, wiHeight) and a square block, and checks output[i*W + j] = input[j*W + i]. This
/// model covers exactly that launch (anything else is refused).
fn matrix_transpose(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let (out, inp) = (d.buffer(0)?, d.buffer(1)?);
    let (wi_w, wi_h, blocks_x, gx_off, gy_off) = (d.u32(3)?, d.u32(4)?, d.u32(5)?, d.u32(6)?, d.u32(7)?);
    let bs = d.block[0];
    let upstream =
        wi_w == wi_h && bs > 0 && d.block == [bs, bs, 1] && wi_w % bs == 0 && blocks_x == wi_w / bs && gx_off == 0 && gy_off == 0 && d.grid == [wi_w, wi_h, 1];
    d.require(
        upstream,
        "the model covers MGPUSim's launch only (square matrix, grid (wiWidth, wiHeight), square block, num_of_blocks_x = wiWidth/block, zero offsets)",
    )?;
    d.require(d.dynamic_lds as u64 >= bs as u64 * bs as u64 * 16 * 4, "dynamic_lds must hold block² float4 x 4 rows")?;
    let w = 4 * wi_w as u64;
    let (iv, mut ov) = (m.get::<u32>(inp)?, m.get::<u32>(out)?);
    for i in 0..w {
        for j in 0..w {
            *slot(&mut ov, i * w + j, out)? = at(&iv, j * w + i, inp)?;
        }
    }
    m.set(out, &ov)?;
    m.types.insert(out.to_string(), Ty::F32);
    Ok(())
}

/// copyKernel(d_in, d_out, N) (driver/memcopy.cl): d_out[i] = d_in[i] for i < N.
fn memcopy(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let (inp, out) = (d.buffer(0)?, d.buffer(1)?);
    let n = (d.grid[0] as u64).min(d.i32(2)?.max(0) as u64);
    let (iv, mut ov) = (m.get::<u32>(inp)?, m.get::<u32>(out)?);
    for i in 0..n {
        *slot(&mut ov, i, out)? = at(&iv, i, inp)?;
    }
    m.set(out, &ov)?;
    m.types.insert(out.to_string(), Ty::F32);
    Ok(())
}

/// atax_kernel1(A, x, tmp, nx, ny) (polybench/atax: PolyBench/GPU atax.cl, native/atax.cpp;
/// check: benchmark.go cpuAtax): for i < nx, tmp[i] += A[i*ny + j] * x[j] for j = 0..ny in order.
fn atax1(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let (a, x, tmp) = (d.buffer(0)?, d.buffer(1)?, d.buffer(2)?);
    let (nx, ny) = (d.i32(3)?.max(0) as u64, d.i32(4)?.max(0) as u64);
    let (av, xv, mut tv) = (m.get::<f32>(a)?, m.get::<f32>(x)?, m.get::<f32>(tmp)?);
    for i in 0..(d.grid[0] as u64).min(nx) {
        let mut acc = at(&tv, i, tmp)?;
        for j in 0..ny {
            acc += at(&av, i * ny + j, a)? * at(&xv, j, x)?;
        }
        *slot(&mut tv, i, tmp)? = acc;
    }
    m.set(tmp, &tv)
}

/// atax_kernel2(A, y, tmp, nx, ny): for j < ny, y[j] += A[i*ny + j] * tmp[i] for i = 0..nx.
fn atax2(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let (a, y, tmp) = (d.buffer(0)?, d.buffer(1)?, d.buffer(2)?);
    let (nx, ny) = (d.i32(3)?.max(0) as u64, d.i32(4)?.max(0) as u64);
    let (av, tv, mut yv) = (m.get::<f32>(a)?, m.get::<f32>(tmp)?, m.get::<f32>(y)?);
    for j in 0..(d.grid[0] as u64).min(ny) {
        let mut acc = at(&yv, j, y)?;
        for i in 0..nx {
            acc += at(&av, i * ny + j, a)? * at(&tv, i, tmp)?;
        }
        *slot(&mut yv, j, y)? = acc;
    }
    m.set(y, &yv)
}

/// vectoradd_float(a, b, c, width, height) (amdappsdk/vectoradd: native/vectoradd.cpp; check:
/// vectoradd.go Verify): each work-item (x, y) of the grid computes i = y*width + x and, if
/// i < width*height, a[i] = b[i] + c[i] (int arithmetic as in the source).
fn vectoradd(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let (a, b, c) = (d.buffer(0)?, d.buffer(1)?, d.buffer(2)?);
    let (w, h) = (d.i32(3)?, d.i32(4)?);
    d.require(d.grid[2] == 1, "the model covers 1-D and 2-D launches")?;
    let (bv, cv, mut av) = (m.get::<f32>(b)?, m.get::<f32>(c)?, m.get::<f32>(a)?);
    for y in 0..d.grid[1] as i32 {
        for x in 0..d.grid[0] as i32 {
            let i = y.wrapping_mul(w).wrapping_add(x);
            if i < w.wrapping_mul(h) && i >= 0 {
                let i = i as u64;
                *slot(&mut av, i, a)? = at(&bv, i, b)? + at(&cv, i, c)?;
            }
        }
    }
    m.set(a, &av)
}

/// BFS_kernel_warp(levels, edgeArray, edgeArrayAux, W_SZ, CHUNK_SZ, numVertices, curr, flag)
/// (shoc/bfs: native/bfs.cpp; check: bfs.go cpuBFS). Warp W_ID = tid / W_SZ owns vertices
/// [W_ID*CHUNK_SZ, +CHUNK_SZ) ∩ [0, numVertices); for each owned v with levels[v] == curr, lane
/// W_OFF = tid % W_SZ visits neighbours W_OFF, W_OFF + W_SZ, ... and sets every unvisited
/// (UINT_MAX) one to curr + 1 and *flag = 1. Only UINT_MAX entries change and all writers write
/// curr + 1, so the result does not depend on the order of the work-items.
fn bfs(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let (lv_name, off_name, aux_name, flag) = (d.buffer(0)?, d.buffer(1)?, d.buffer(2)?, d.buffer(7)?);
    let (w_sz, chunk, nverts, curr) = (d.i32(3)?, d.i32(4)?, d.u32(5)? as u64, d.i32(6)?);
    d.require_1d()?;
    if w_sz <= 0 || chunk <= 0 {
        return Err("W_SZ and CHUNK_SZ must be positive".into());
    }
    let (w_sz, chunk, threads) = (w_sz as u64, chunk as u64, d.grid[0] as u64);
    let (off, aux, mut lv) = (m.get::<u32>(off_name)?, m.get::<u32>(aux_name)?, m.get::<u32>(lv_name)?);
    let start = lv.clone(); // levels as the dispatch starts: the frontier is levels == curr
    let mut found = false;
    for tid in 0..threads {
        let (w_off, w_id) = (tid % w_sz, tid / w_sz);
        for v in (w_id * chunk)..(w_id * chunk + chunk).min(nverts) {
            if at(&start, v, lv_name)? != curr as u32 {
                continue;
            }
            let (lo, hi) = (at(&off, v, off_name)? as u64, at(&off, v + 1, off_name)? as u64);
            let mut i = w_off;
            while i < hi.saturating_sub(lo) {
                let nv = at(&aux, i + lo, aux_name)? as u64;
                let l = slot(&mut lv, nv, lv_name)?;
                if at(&start, nv, lv_name)? == u32::MAX {
                    *l = (curr as u32).wrapping_add(1);
                    found = true;
                }
                i += w_sz;
            }
        }
    }
    m.set(lv_name, &lv)?;
    if found {
        let mut fv = m.get::<i32>(flag)?;
        *slot(&mut fv, 0, flag)? = 1;
        m.set(flag, &fv)?;
    }
    Ok(())
}
