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
