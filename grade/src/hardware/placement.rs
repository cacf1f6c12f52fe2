//! Whether a test's placement can be realised on one GPU. The language layer takes the
//! placement as the test writes it; the hardware layer runs each litmus thread as lane 0 of a
//! wave of its own, on the work-group (and XCD) the test gives it. Some placements cannot
//! be run that way on a given GPU, and some are run but contradict what the test says of
//! its threads' positions there.

use super::codegen::Unsupported;
use super::target_of;
use crate::litmus::Litmus;
use hipscope_sim::gpus::{GpuConfig, Mode};

/// XCDs of `gpu` (one for GPUs with a single L2).
fn xcds(gpu: &GpuConfig) -> u32 {
    gpu.timing.as_ref().map_or(1, |t| t.topology.xcds.max(1))
}

/// Why `test` cannot run on `gpu`, if it cannot:
/// - a thread names an XCD the GPU does not have: the dispatcher would put the work-group on
///   another one, and the run would not test what the test asks (say, two XCDs' L2s);
/// - two threads share a wavefront: each litmus thread runs as lane 0 of a wave of its own,
///   so only one of them would run.
pub fn refusal(test: &Litmus, gpu: &GpuConfig) -> Option<Unsupported> {
    let n = xcds(gpu);
    if let Some((t, x)) = test.threads.iter().find_map(|t| t.placement.xcd.filter(|x| *x >= n).map(|x| (t, x))) {
        let has = if n == 1 { "one XCD (0)".to_string() } else { format!("{n} XCDs (0 to {})", n - 1) };
        return Some(Unsupported(format!("{} names XCD {x}, but {} has {has}", t.name, gpu.name)));
    }
    for (i, a) in test.threads.iter().enumerate() {
        let (pa, later) = (a.placement, &test.threads[i + 1..]);
        if let Some(b) = later.iter().find(|b| b.placement.agent == pa.agent && b.placement.workgroup == pa.workgroup && b.placement.wave == pa.wave) {
            return Some(Unsupported(format!("{} and {} share a wavefront; the hardware layer runs each litmus thread as a wave of its own", a.name, b.name)));
        }
    }
    None
}

/// What `gpu` in `mode` contradicts in the test's placement, one line each: two threads of
/// one block whose thread numbers put them in one wave on this GPU while the test puts
/// them in different waves (a test written for the other wave size). The runs keep the
/// test's waves, which decide the scopes the language verdict uses; the warning says that
/// the thread numbers do not match them here.
pub fn warnings(test: &Litmus, gpu: &GpuConfig, mode: Mode) -> Vec<String> {
    let size = if target_of(gpu, mode).wave64 { 64 } else { 32 };
    let mut out = Vec::new();
    for (i, a) in test.threads.iter().enumerate() {
        let Some(la) = a.lane else { continue };
        for b in &test.threads[i + 1..] {
            let Some(lb) = b.lane else { continue };
            let (pa, pb) = (a.placement, b.placement);
            if (pa.agent, pa.workgroup) != (pb.agent, pb.workgroup) {
                continue;
            }
            let same_on_gpu = la / size == lb / size;
            if same_on_gpu != (pa.wave == pb.wave) {
                let (gpu_says, test_says) = if same_on_gpu { ("one wave", "different waves") } else { ("different waves", "one wave") };
                out.push(format!(
                    "{} (thread {la}) and {} (thread {lb}) are in {gpu_says} on {} ({size}-wide waves), but the test puts them in {test_says}; the runs keep the test's waves",
                    a.name, b.name, gpu.name
                ));
            }
        }
    }
    out
}

/// Where the test's work-groups run relative to each other (`grade --placement`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Where {
    /// Different CUs; on a GPU of several XCDs, round-robin over the XCDs (the dispatcher's
    /// own order).
    Spread,
    /// All on one CU (one WGP in RDNA's WGP mode).
    SameCu,
    /// Different CUs of one XCD.
    SameXcd,
    /// Each on an XCD of its own.
    OtherXcd,
}

impl Where {
    pub const ALL: [(&'static str, Where); 4] =
        [("spread", Where::Spread), ("same-cu", Where::SameCu), ("same-xcd", Where::SameXcd), ("other-xcd", Where::OtherXcd)];

    pub fn name(self) -> &'static str {
        Where::ALL.iter().find(|(_, w)| *w == self).map_or("?", |(n, _)| n)
    }
}

/// Placement units (CUs, or WGPs in WGP mode) per XCD of `gpu` for code built for `mode`.
fn units_per_xcd(gpu: &GpuConfig, mode: Mode) -> u32 {
    let per_unit = if target_of(gpu, mode).wgp_mode { 2 } else { 1 };
    (gpu.compute_units / per_unit / xcds(gpu)).max(1)
}

/// Whether `groups` work-groups of `test` fit on one CU (WGP) of `gpu` at once: wave slots of
/// its SIMDs at the kernel's VGPRs (the dispatcher's own bounds, `sim/src/timing/placement.rs`)
/// and work-group slots.
fn fits_one_unit(test: &Litmus, gpu: &GpuConfig, mode: Mode, groups: u32) -> Result<(), Unsupported> {
    let Some(t) = gpu.timing.as_ref() else { return Ok(()) };
    let per_unit = if target_of(gpu, mode).wgp_mode { 2 } else { 1 };
    let vgprs = super::codegen::VGPRS.next_multiple_of(8);
    let per_simd = t.core.max_waves_per_simd.min(t.core.vgprs_per_simd / vgprs);
    let wave_slots = t.core.simds_per_cu * per_unit * per_simd;
    let waves = groups * test.threads.iter().map(|t| t.placement.wave + 1).max().unwrap_or(1);
    if waves > wave_slots || groups > t.core.max_workgroups_per_cu * per_unit {
        let unit = if per_unit == 2 { "WGP" } else { "CU" };
        return Err(Unsupported(format!(
            "--placement same-cu: {groups} work-groups ({waves} waves) do not fit on one {} {unit} ({wave_slots} wave slots at {vgprs} VGPRs)",
            gpu.name
        )));
    }
    Ok(())
}

/// The dispatch index of each of `test`'s threads for `want` on `gpu` (threads of one litmus
/// work-group share one). The dispatcher (`sim/src/timing/engine/admit.rs`,
/// `sim/src/timing/placement.rs`) gives work-group i to XCD i mod X (X XCDs) and, all of a
/// small test's work-groups fitting at once, each XCD's k-th work-group to the k-th CU of that
/// XCD's visiting order, wrapping after its U CUs: so indices x + X·U·k share a CU, and
/// indices of one residue mod X share an XCD. `SameCu` pads the dispatch with the work-groups
/// between (stress work-groups, or waves that end at once). A thread that names its XCD keeps
/// it; a placement the test's named XCDs contradict, or that the GPU cannot give, is refused.
pub fn dispatch_groups(test: &Litmus, gpu: &GpuConfig, mode: Mode, want: Where) -> Result<Vec<u32>, Unsupported> {
    let n = xcds(gpu);
    let mut order: Vec<(u32, Option<u32>)> = Vec::new();
    for t in &test.threads {
        match order.iter_mut().find(|(w, _)| *w == t.placement.workgroup) {
            Some(entry) => entry.1 = entry.1.or(t.placement.xcd),
            None => order.push((t.placement.workgroup, t.placement.xcd)),
        }
    }
    let named: Vec<u32> = order.iter().filter_map(|o| o.1).collect();
    let per_group: Vec<u32> = match want {
        Where::Spread | Where::SameXcd => return Ok(super::place(test, n, want == Where::SameXcd)),
        Where::SameCu => {
            if named.windows(2).any(|w| w[0] != w[1]) {
                return Err(Unsupported("--placement same-cu: the test names different XCDs for its work-groups".into()));
            }
            fits_one_unit(test, gpu, mode, order.len() as u32)?;
            let (x, stride) = (named.first().copied().unwrap_or(0), n * units_per_xcd(gpu, mode));
            (0..order.len() as u32).map(|k| x + stride * k).collect()
        }
        Where::OtherXcd => {
            if order.len() as u32 > n {
                let has = if n == 1 { "one XCD".to_string() } else { format!("{n} XCDs") };
                return Err(Unsupported(format!("--placement other-xcd: {} work-groups, but {} has {has}", order.len(), gpu.name)));
            }
            let groups = super::place(test, n, false);
            let mut xs: Vec<u32> = groups.iter().map(|g| g % n).collect();
            xs.sort();
            xs.dedup();
            if xs.len() != order.len() {
                return Err(Unsupported("--placement other-xcd: the test names one XCD for two of its work-groups".into()));
            }
            return Ok(groups);
        }
    };
    Ok(test.threads.iter().map(|t| order.iter().position(|o| o.0 == t.placement.workgroup).map_or(0, |k| per_group[k])).collect())
}
