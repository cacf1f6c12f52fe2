//! References for our workloads (`workloads/src`), one function per kernel, each written from
//! the kernel's header comment. Index math follows the comments: `i = blockIdx.x * blockDim.x +
//! threadIdx.x`, so a 1-D launch of `grid` work-items covers `i < grid.x`.

use hipscope_sim::exec::valu::fp::h2d;
use hipscope_sim::spec::model::Ty;
use hipscope_sim::spec::references::{at, slot, store, CpuMemory, DispatchView, Model, ModelError, Plain, View};

pub const MODELS: &[Model] = &[
    Model { set: "vadd", kernel: "vadd", run: vadd },
    Model { set: "private", kernel: "private_gather", run: private_gather },
    Model { set: "private", kernel: "private_gather_cl", run: private_gather },
    Model { set: "vecCopy", kernel: "vecCopy", run: vec_copy },
    Model { set: "blas1", kernel: "saxpy", run: saxpy },
    Model { set: "blas1", kernel: "daxpy", run: daxpy },
    Model { set: "blas1", kernel: "ddot", run: ddot },
    Model { set: "lds", kernel: "lds_reduce", run: lds_reduce },
    Model { set: "lds", kernel: "lds_transpose", run: lds_transpose },
    Model { set: "atomics", kernel: "histogram", run: histogram },
    Model { set: "atomics", kernel: "spin_lock", run: spin_lock },
    Model { set: "atomics", kernel: "spin_lock_xchg", run: spin_lock },
    Model { set: "pointer_chase", kernel: "pointer_chase", run: pointer_chase },
    Model { set: "mp", kernel: "mp_acqrel_workgroup", run: mp },
    Model { set: "mp", kernel: "mp_acqrel_agent", run: mp },
    Model { set: "mp", kernel: "mp_acqrel_system", run: mp },
    Model { set: "mp", kernel: "mp_fence_workgroup", run: mp },
    Model { set: "mp", kernel: "mp_fence_agent", run: mp },
    Model { set: "mp", kernel: "mp_fence_system", run: mp },
    Model { set: "mp", kernel: "mp_relaxed_workgroup", run: mp },
    Model { set: "mp", kernel: "mp_relaxed_agent", run: mp },
    Model { set: "mp", kernel: "mp_relaxed_system", run: mp },
    Model { set: "wave_reduce", kernel: "wave_reduce", run: wave_reduce },
    Model { set: "spin_wg", kernel: "spin_wg_store", run: spin_wg },
    Model { set: "spin_wg", kernel: "spin_wg_rmw", run: spin_wg },
    Model { set: "spin_wg", kernel: "spin_wg_init_rmw", run: spin_wg },
    Model { set: "bitonic", kernel: "bitonic_step", run: bitonic_step },
    Model { set: "gemm", kernel: "gemm_f16_nt", run: gemm_f16_nt },
];

/// Indices `i < min(n, grid.x)`: the work-items of a 1-D "if (i < n)" kernel.
fn covered(d: &DispatchView, n: u64) -> u64 {
    (d.grid[0] as u64).min(n)
}

/// vadd(a, b, c, n): c[i] = a[i] + b[i] for i < n (f32).
/// private.hip / private_cl.cl: buf[k] = in[(i + k) % n] * (k + 1) for k < 64;
/// out[i] = buf[j] + buf[m] + buf[(j + m) & 63] with j = in[i] & 63, m = (in[i] >> 6) & 63.
fn private_gather(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let (inp, out) = (d.buffer(0)?, d.buffer(1)?);
    let n_all = d.u32(2)? as u64;
    let n = covered(d, n_all);
    let (iv, mut ov) = (m.get::<u32>(inp)?, m.get::<u32>(out)?);
    for i in 0..n {
        let buf = |k: u64| -> Result<u32, ModelError> { Ok(at(&iv, (i + k) % n_all, inp)?.wrapping_mul(k as u32 + 1)) };
        let v = at(&iv, i, inp)?;
        let (j, mm) = ((v & 63) as u64, ((v >> 6) & 63) as u64);
        *slot(&mut ov, i, out)? = buf(j)?.wrapping_add(buf(mm)?).wrapping_add(buf((j + mm) & 63)?);
    }
    m.set(out, &ov)
}

fn vadd(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let (a, b, c) = (d.buffer(0)?, d.buffer(1)?, d.buffer(2)?);
    let n = covered(d, d.u32(3)? as u64);
    elementwise::<f32>(m, [a, b], c, n, |[x, y]| x + y)
}

/// `out[i] = f([inputs[0][i], inputs[1][i]])` for i < n, reading the inputs where they are
/// (views of the initial buffers, no copies: the specs that check memory use run gigabyte
/// buffers through these models). An input may be `out` itself; element i is read before it
/// is written, as in the kernels.
fn elementwise<T: Plain>(m: &mut CpuMemory, inputs: [&str; 2], out: &str, n: u64, f: impl Fn([T; 2]) -> T) -> Result<(), ModelError> {
    let mut bytes = m.take(out)?;
    let result = (|| {
        let views = [input::<T>(m, inputs[0], out)?, input::<T>(m, inputs[1], out)?];
        for i in 0..n {
            let read = |k: usize| match &views[k] {
                Some(view) => view.at(i),
                None => own(&bytes, i, out),
            };
            let v = f([read(0)?, read(1)?]);
            store(&mut bytes, i, v, out)?;
        }
        Ok(())
    })();
    m.put(out, bytes, T::TY);
    result
}

/// A view of `name`, or `None` when it is the output being written (read from its own bytes).
fn input<'m, T: Plain>(m: &'m CpuMemory, name: &str, out: &str) -> Result<Option<View<'m, T>>, ModelError> {
    if name == out {
        return Ok(None);
    }
    Ok(Some(m.view::<T>(name)?))
}

/// Element `i` of a taken buffer.
fn own<T: Plain>(bytes: &[u8], i: u64, name: &str) -> Result<T, ModelError> {
    let o = (i as usize).saturating_mul(T::SIZE);
    bytes
        .get(o..o + T::SIZE)
        .map(T::read)
        .ok_or_else(|| ModelError::Fault(format!("the kernel reads {name}[{i}], past its {} elements (the GPU would fault)", bytes.len() / T::SIZE)))
}

/// vecCopy(a, b, c, n, stride): c[id] = a[id] for id < n (f64, copied bit for bit); b and
/// stride are unused.
fn vec_copy(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let (a, c) = (d.buffer(0)?, d.buffer(2)?);
    let n = covered(d, d.i32(3)?.max(0) as u64);
    elementwise::<u64>(m, [a, a], c, n, |[x, _]| x)?;
    m.types.insert(c.to_string(), Ty::F64);
    Ok(())
}

/// saxpy(a, x, y, n): y[i] = a * x[i] + y[i], one f32 fma (the comment's contract; gfx803's
/// v_mac_f32 is unfused, so specs compare with a tolerance or with exact-product inputs).
fn saxpy(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let (a, x, y) = (d.f32(0)?, d.buffer(1)?, d.buffer(2)?);
    let n = covered(d, d.u32(3)? as u64);
    elementwise::<f32>(m, [x, y], y, n, |[xi, yi]| a.mul_add(xi, yi))
}

/// daxpy(a, x, y, n): y[i] = fma(a, x[i], y[i]) in f64.
fn daxpy(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let (a, x, y) = (d.f64(0)?, d.buffer(1)?, d.buffer(2)?);
    let n = covered(d, d.u32(3)? as u64);
    elementwise::<f64>(m, [x, y], y, n, |[xi, yi]| a.mul_add(xi, yi))
}

/// Work-groups of a kernel that needs exactly 256-item groups.
fn groups_of_256(d: &DispatchView) -> Result<u64, ModelError> {
    d.require_1d()?;
    d.require(d.block[0] == 256 && d.grid[0] % 256 == 0, "the kernel needs block (256,1,1) and whole groups")?;
    Ok(d.grid[0] as u64 / 256)
}

/// The work-group tree of lds_reduce and ddot: stride 128, 64, ..., 1, s[t] += s[t + stride].
fn tree<T: Copy>(s: &mut [T], add: impl Fn(T, T) -> T) {
    let mut stride = s.len() / 2;
    while stride > 0 {
        for t in 0..stride {
            s[t] = add(s[t], s[t + stride]);
        }
        stride /= 2;
    }
}

/// ddot(x, y, partial, n): per 256-item group, s[t] = x[i]*y[i] (0 past n), the tree in f64,
/// partial[group] = s[0]. Bit-exact: the tree order is fixed.
fn ddot(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let (x, y, p) = (d.buffer(0)?, d.buffer(1)?, d.buffer(2)?);
    let n = d.u32(3)? as u64;
    let groups = groups_of_256(d)?;
    let (xv, yv, mut pv) = (m.get::<f64>(x)?, m.get::<f64>(y)?, m.get::<f64>(p)?);
    for g in 0..groups {
        let mut s = vec![0f64; 256];
        for (t, st) in s.iter_mut().enumerate() {
            let i = g * 256 + t as u64;
            if i < n {
                *st = at(&xv, i, x)? * at(&yv, i, y)?;
            }
        }
        tree(&mut s, |a, b| a + b);
        *slot(&mut pv, g, p)? = s[0];
    }
    m.set(p, &pv)
}

/// lds_reduce(in, out, n): out[group] = wrapping sum of in[group*256 + t] for t < 256, i < n.
fn lds_reduce(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let (inp, out) = (d.buffer(0)?, d.buffer(1)?);
    let n = d.u32(2)? as u64;
    let groups = groups_of_256(d)?;
    let (iv, mut ov) = (m.get::<u32>(inp)?, m.get::<u32>(out)?);
    for g in 0..groups {
        let mut s = vec![0u32; 256];
        for (t, st) in s.iter_mut().enumerate() {
            let i = g * 256 + t as u64;
            if i < n {
                *st = at(&iv, i, inp)?;
            }
        }
        tree(&mut s, u32::wrapping_add);
        *slot(&mut ov, g, out)? = s[0];
    }
    m.set(out, &ov)
}

/// lds_transpose(in, out, width, height): out[x * height + y] = in[y * width + x] for every
/// element the 16x16 tiles of the grid cover (the whole matrix with the documented grid).
fn lds_transpose(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let (inp, out) = (d.buffer(0)?, d.buffer(1)?);
    let (w, h) = (d.u32(2)? as u64, d.u32(3)? as u64);
    d.require(d.block == [16, 16, 1] && d.grid[0] % 16 == 0 && d.grid[1] % 16 == 0 && d.grid[2] == 1, "the kernel needs block (16,16,1) and whole tiles")?;
    let (iv, mut ov) = (m.get::<u32>(inp)?, m.get::<u32>(out)?);
    let (xs, ys) = ((d.grid[0] as u64).min(w), (d.grid[1] as u64).min(h));
    for y in 0..ys {
        for x in 0..xs {
            *slot(&mut ov, x * h + y, out)? = at(&iv, y * w + x, inp)?;
        }
    }
    m.set(out, &ov)?;
    m.types.insert(out.to_string(), Ty::F32);
    Ok(())
}

/// gemm_f16_nt(a, b, c, m, n, k): c[i·n + j] = Σ_{p<k} a[i·k + p] · b[j·k + p] over f16 inputs,
/// for the 128 × 128 tiles the grid covers ((n / 128 · 256, m / 128) work-items, blocks of 256).
/// Sums are taken in f64 and stored as f32: exact when the inputs are small integers (the specs
/// use RandomInt), whatever order the matrix cores add in.
fn gemm_f16_nt(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let (a, b, c) = (d.buffer(0)?, d.buffer(1)?, d.buffer(2)?);
    let (rows, cols, k) = (d.u32(3)? as u64, d.u32(4)? as u64, d.u32(5)? as u64);
    d.require(d.block == [256, 1, 1] && d.grid[0] % 256 == 0 && d.grid[2] == 1 && k % 32 == 0, "the kernel needs blocks of 256 and k a multiple of 32")?;
    let (tile_rows, tile_cols) = ((d.grid[1] as u64 * 128).min(rows), (d.grid[0] as u64 / 256 * 128).min(cols));
    let half = |v: Vec<u16>| v.into_iter().map(|h| h2d(h as u64)).collect::<Vec<f64>>();
    let (av, bv) = (half(m.get::<u16>(a)?), half(m.get::<u16>(b)?));
    let mut cv = m.get::<f32>(c)?;
    for i in 0..tile_rows {
        let ar = av.get((i * k) as usize..((i + 1) * k) as usize).ok_or_else(|| format!("{a} holds no row {i} of {k} elements"))?;
        for j in 0..tile_cols {
            let br = bv.get((j * k) as usize..((j + 1) * k) as usize).ok_or_else(|| format!("{b} holds no row {j} of {k} elements"))?;
            let sum: f64 = ar.iter().zip(br).map(|(x, y)| x * y).sum();
            *slot(&mut cv, i * cols + j, c)? = sum as f32;
        }
    }
    m.set(c, &cv)?;
    m.types.insert(c.to_string(), Ty::F32);
    Ok(())
}

/// histogram(in, bins, n, nbins): every work-item with x index g handles i = g, g + G, ... < n
/// (G = grid.x), so each i is counted once per work-item sharing that x (grid.y · grid.z).
fn histogram(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let (inp, bins) = (d.buffer(0)?, d.buffer(1)?);
    let (n, nbins) = (d.u32(2)? as u64, d.u32(3)?);
    if nbins == 0 {
        return Err("nbins must be > 0 (the kernel divides by it)".into());
    }
    let per_i = (d.grid[1] as u64 * d.grid[2] as u64) as u32;
    let (iv, mut bv) = (m.get::<u32>(inp)?, m.get::<u32>(bins)?);
    let n = if d.grid[0] == 0 { 0 } else { n };
    for i in 0..n {
        let b = slot(&mut bv, (at(&iv, i, inp)? % nbins) as u64, bins)?;
        *b = b.wrapping_add(per_i);
    }
    m.set(bins, &bv)
}

/// spin_lock / spin_lock_xchg(lock, counter, iters, max_spins): work-item 0 of each of the G
/// groups runs `iters` lock-protected increments of counter[0]; a give-up counts in counter[1].
/// Always counter[0] + counter[1] grows by G·iters; with a large enough max_spins (the spec's
/// job) there are no timeouts; the lock ends free.
fn spin_lock(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let (lock, counter) = (d.buffer(0)?, d.buffer(1)?);
    let (iters, max_spins) = (d.u32(2)?, d.u32(3)?);
    d.require_1d()?;
    let total = (d.groups()[0] as u64 * iters as u64) as u32;
    let c0 = m.get::<u32>(counter)?;
    let (init0, init1) = (at(&c0, 0, counter)?, at(&c0, 1, counter)?);
    let mut lv = m.get::<i32>(lock)?;
    *slot(&mut lv, 0, lock)? = 0;
    m.set(lock, &lv)?;
    let groups = d.groups()[0];
    m.predicate(
        counter,
        Ty::U32,
        Box::new(move |b| {
            let v: Vec<u32> = b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
            let (Some(&a), Some(&t)) = (v.first(), v.get(1)) else { return Err("counter holds fewer than 2 u32".into()) };
            let (taken, timeouts) = (a.wrapping_sub(init0), t.wrapping_sub(init1));
            let d = format!("{taken} increments under the lock, {timeouts} timeouts; expected {total} = {groups} groups × {iters} iterations, no timeout (max_spins {max_spins})");
            if taken == total && timeouts == 0 {
                Ok(d)
            } else {
                Err(d)
            }
        }),
    );
    Ok(())
}

/// pointer_chase(next, start, steps, out): p = start, then p = next[p] `steps` times;
/// out = {cycles, realtime ticks, p}. Timers are only sanity-checked: the cycle count is
/// nonzero when the chain was walked, neither counter went backwards (a wrapped u64 difference
/// would be huge), and gfx11's SHADER_CYCLES difference fits its 20 bits.
fn pointer_chase(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let (next, out) = (d.buffer(0)?, d.buffer(3)?);
    let (start, steps) = (d.u32(1)?, d.u32(2)?);
    if d.grid.contains(&0) || start == u32::MAX {
        return Ok(()); // nothing runs, or the kernel stops without writing
    }
    let nv = m.get::<u32>(next)?;
    let mut p = start;
    for _ in 0..steps {
        p = at(&nv, p as u64, next)?;
    }
    if p == u32::MAX {
        return Ok(());
    }
    let gfx11 = d.processor.family() == hipscope_isa::Family::Gfx11;
    let (lo, hi) = (u64::from(steps > 0), if gfx11 { 0xfffff } else { 1u64 << 40 });
    m.predicate(
        out,
        Ty::U64,
        Box::new(move |b| {
            let v: Vec<u64> = b.chunks_exact(8).map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])).collect();
            let (Some(&cy), Some(&rt), Some(&fp)) = (v.first(), v.get(1), v.get(2)) else { return Err("out holds fewer than 3 u64".into()) };
            let d = format!("final index {fp} (expected {p}), {cy} cycles (sane: {lo}..={hi}), {rt} real-time ticks (sane: < 2^40)");
            if fp == p as u64 && (lo..=hi).contains(&cy) && rt < 1 << 40 {
                Ok(d)
            } else {
                Err(d)
            }
        }),
    );
    Ok(())
}

/// mp_<order>_<scope>(data, flag, out, max_spins), exactly 2 groups of B: group 0 writes
/// data[t] = t + 1 and flag[t] = 1; group 1 writes out[t] = data[t] if it saw the flag, else -1.
/// acqrel/fence at agent or system scope guarantee out[t] ∈ {t + 1, -1}; at workgroup scope
/// (a scope race across groups) or relaxed (no ordering) out[t] may also be the stale
/// initial data[t].
fn mp(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let (data, flag, out) = (d.buffer(0)?, d.buffer(1)?, d.buffer(2)?);
    d.require_1d()?;
    let b = d.block[0] as u64;
    d.require(d.grid[0] as u64 == 2 * b, "mp kernels need exactly 2 full work-groups")?;
    let strong = !d.kernel.starts_with("mp_relaxed") && !d.kernel.ends_with("_workgroup");
    let (mut dv, mut fv) = (m.get::<i32>(data)?, m.get::<i32>(flag)?);
    let stale: Vec<i32> = (0..b).map(|t| at(&dv, t, data)).collect::<Result<_, _>>()?;
    for t in 0..b {
        *slot(&mut dv, t, data)? = t as i32 + 1;
        *slot(&mut fv, t, flag)? = 1;
    }
    m.set(data, &dv)?;
    m.set(flag, &fv)?;
    m.predicate(out, Ty::I32, Box::new(move |bytes| mp_verdict(bytes, &stale, strong)));
    Ok(())
}

fn mp_verdict(bytes: &[u8], stale: &[i32], strong: bool) -> Result<String, String> {
    let v: Vec<i32> = bytes.chunks_exact(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let (mut seen, mut old, mut gave_up, mut bad) = (0, 0, 0, None);
    for (t, &s) in stale.iter().enumerate() {
        match v.get(t) {
            Some(&x) if x == t as i32 + 1 => seen += 1,
            Some(-1) => gave_up += 1,
            Some(&x) if !strong && x == s => old += 1,
            got => {
                bad.get_or_insert((t, got.copied()));
            }
        }
    }
    let rule = if strong { "t+1 or -1" } else { "t+1, stale, or -1" };
    let d = format!("{} lanes: {seen} saw the message, {old} read stale data, {gave_up} gave up ({rule} allowed)", stale.len());
    match bad {
        None => Ok(d),
        Some((t, got)) => Err(format!("{d}; out[{t}] = {}", got.map_or("missing".into(), |x| x.to_string()))),
    }
}

/// wave_reduce(in, sums, masks) with wave size W: for each wave w, sums[2w] = sums[2w+1] =
/// wrapping sum of in[wW .. wW+W], masks[2w] = bits of the odd inputs, masks[2w+1] = EXEC of a
/// full wave.
fn wave_reduce(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let (inp, sums, masks) = (d.buffer(0)?, d.buffer(1)?, d.buffer(2)?);
    d.require_1d()?;
    d.require(d.block[0] % 64 == 0 && d.grid[0] % 64 == 0, "the kernel needs a block and grid that are multiples of 64")?;
    let w = d.wave_size as u64;
    let (iv, mut sv, mut mv) = (m.get::<i32>(inp)?, m.get::<i32>(sums)?, m.get::<u64>(masks)?);
    for wave in 0..d.grid[0] as u64 / w {
        let (mut sum, mut odd) = (0i32, 0u64);
        for l in 0..w {
            let v = at(&iv, wave * w + l, inp)?;
            sum = sum.wrapping_add(v);
            odd |= u64::from(v & 1 != 0) << l;
        }
        *slot(&mut sv, 2 * wave, sums)? = sum;
        *slot(&mut sv, 2 * wave + 1, sums)? = sum;
        *slot(&mut mv, 2 * wave, masks)? = odd;
        *slot(&mut mv, 2 * wave + 1, masks)? = if w == 64 { u64::MAX } else { u32::MAX as u64 };
    }
    m.set(sums, &sv)?;
    m.set(masks, &mv)
}

/// spin_wg_<kind>(flag, out, max_spins, delay), G groups of B ≥ 2 waves: the last wave
/// publishes flag[g]; wave 0's lanes poll it. Final flag[g] = 1 (store, init_rmw) or 3 (rmw);
/// out[g·B + t] ≥ 1 (the polls it took; a timeout would be -1) for t < warpSize, untouched
/// elsewhere. How many polls it takes depends on the schedule, so only "seen" is checked.
fn spin_wg(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let (flag, out) = (d.buffer(0)?, d.buffer(1)?);
    d.require_1d()?;
    let (b, w) = (d.block[0] as u64, d.wave_size as u64);
    d.require(b > w && d.grid[0] as u64 % b == 0, "spin_wg kernels need full work-groups of at least two waves")?;
    let groups = d.groups()[0] as u64;
    let published = if d.kernel == "spin_wg_rmw" { 3 } else { 1 };
    let mut fv = m.get::<i32>(flag)?;
    for g in 0..groups {
        *slot(&mut fv, g, flag)? = published;
    }
    m.set(flag, &fv)?;
    let before = m.get::<i32>(out)?;
    (before.len() as u64 >= groups * b).then_some(()).ok_or_else(|| format!("`{out}` holds fewer than {} i32", groups * b))?;
    m.predicate(
        out,
        Ty::I32,
        Box::new(move |bytes| {
            let v: Vec<i32> = bytes.chunks_exact(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
            let (mut seen, mut timeouts, mut wrong) = (0u64, 0u64, Vec::new());
            for (i, (&got, &was)) in v.iter().zip(&before).enumerate().take((groups * b) as usize) {
                let poller = (i as u64 % b) < w;
                match got {
                    x if poller && x >= 1 => seen += 1,
                    -1 if poller => timeouts += 1,
                    x if !poller && x == was => {}
                    x => wrong.push(format!("[{i}] = {x}")),
                }
            }
            let detail = format!("{seen} polling lanes saw the publication, {timeouts} timed out ({groups} groups × {w} lanes)");
            match (timeouts, wrong.first()) {
                (0, None) => Ok(detail),
                (_, Some(first)) => Err(format!("{detail}; unexpected value {first}")),
                _ => Err(detail),
            }
        }),
    );
    Ok(())
}

/// bitonic_step(a, j, k, n), blocks of 256: i = blockIdx.x · 256 + threadIdx.x, l = i ^ j; for
/// i < n and l > i, a[i] and a[l] swap when out of order for the direction `(i & k) == 0`
/// (ascending) or not. Pairs are disjoint within one step, so the order of i does not matter.
fn bitonic_step(m: &mut CpuMemory, d: &DispatchView) -> Result<(), ModelError> {
    let a = d.buffer(0)?;
    let (j, k, n) = (d.u32(1)?, d.u32(2)?, d.u32(3)?);
    d.require_1d()?;
    d.require(d.block[0] == 256, "bitonic_step indexes with blocks of 256")?;
    let mut av = m.get::<u32>(a)?;
    for i in 0..(n as u64).min(d.grid[0] as u64) as u32 {
        let l = i ^ j;
        if l > i {
            let (x, y) = (at(&av, i as u64, a)?, at(&av, l as u64, a)?);
            if (x > y) == (i & k == 0) {
                *slot(&mut av, i as u64, a)? = y;
                *slot(&mut av, l as u64, a)? = x;
            }
        }
    }
    m.set(a, &av)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The step model run as the spec's dispatches are (k = 2..n, j = k/2..1) sorts: an
    /// independent check of the model against std's sort.
    #[test]
    fn bitonic_steps_sort() {
        use hipscope_sim::spec::model::Arg;
        let n = 1024u32;
        let data: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect();
        let mut m = CpuMemory::with([("a".to_string(), data.iter().flat_map(|v| v.to_le_bytes()).collect())].into());
        let mut k = 2;
        while k <= n {
            let mut j = k / 2;
            while j >= 1 {
                let args = [Arg::Buffer("a".into()), Arg::U32(j), Arg::U32(k), Arg::U32(n)];
                let d = DispatchView {
                    index: 0,
                    kernel: "bitonic_step",
                    grid: [n, 1, 1],
                    block: [256, 1, 1],
                    dynamic_lds: 0,
                    args: &args,
                    wave_size: 64,
                    processor: hipscope_isa::Processor::Gfx942,
                };
                bitonic_step(&mut m, &d).unwrap();
                j /= 2;
            }
            k *= 2;
        }
        let mut want = data.clone();
        want.sort_unstable();
        assert_eq!(m.get::<u32>("a").unwrap(), want);
    }

    #[test]
    fn tree_sums_in_the_documented_order() {
        let mut s: Vec<u32> = (0..256).collect();
        tree(&mut s, u32::wrapping_add);
        assert_eq!(s[0], 255 * 256 / 2);
    }

    #[test]
    fn mp_verdict_follows_the_contract() {
        let bytes = |v: &[i32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        assert!(mp_verdict(&bytes(&[1, -1, 3]), &[0, 0, 0], true).is_ok());
        assert!(mp_verdict(&bytes(&[1, 0, 3]), &[0, 0, 0], true).is_err());
        assert!(mp_verdict(&bytes(&[1, 0, 3]), &[0, 0, 0], false).is_ok());
        assert!(mp_verdict(&bytes(&[1, 5, 3]), &[0, 0, 0], false).is_err());
    }
}
