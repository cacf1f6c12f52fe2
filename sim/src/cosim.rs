//! Co-simulation: launches on different devices of a node run together on one simulated
//! timeline ([`run_together`]), so that a kernel on one GPU can wait for a flag a kernel on
//! another GPU sets through peer or host-visible memory.
//!
//! Each launch runs on a host thread of its own, but one at a time, in the order of their
//! simulated times ([`crate::node::turns`]): the results depend only on the launches and their
//! seeds. A launch alone runs as [`Device::launch_hooked`] runs it, with no coordinator.

use crate::dispatch::Geometry;
use crate::fault::{FaultKind, KernelFault, WaveId};
use crate::host::HostAgent;
use crate::kernel::LoadedKernel;
use crate::launch::{Device, Hooks, LaunchError};
use crate::node::turns::{NodeLivelock, Turns};
use crate::sched::{DispatchStats, EngineOptions};
use std::sync::Arc;

/// Host stack of each launch's thread: the engines' deepest paths (a fault report over
/// thousands of waves) stay far below it; the default 2 MiB of a spawned thread is the main
/// thread's 8 MiB cut by four, and nothing here is measured against it.
const THREAD_STACK_BYTES: usize = 16 << 20;

/// One launch of a group run together.
pub struct Launch<'a> {
    pub device: &'a mut Device,
    /// The device's index in the node (for reports).
    pub gpu: usize,
    pub kernel: &'a LoadedKernel,
    pub geo: Geometry,
    pub args: &'a [Vec<u8>],
    pub opts: EngineOptions,
    /// When the launch starts on the node's timeline (its stream's time).
    pub start_ns: f64,
    /// The host's side of the kernel's hostcalls (device `printf`).
    pub host: Option<&'a mut (dyn HostAgent + Send)>,
}

/// Run `launches` (each on a different device) together; each one's result, in order. A
/// kernel whose waves all spin faults only when every kernel still running spins too (each
/// such fault names them all).
pub fn run_together(launches: &mut [Launch]) -> Vec<Result<DispatchStats, LaunchError>> {
    if let [one] = launches {
        let hooks = Hooks { host: one.host.as_deref_mut().map(|h| h as &mut dyn HostAgent), ..Hooks::default() };
        return vec![one.device.launch_hooked(one.kernel, one.geo, one.args, &one.opts, hooks)];
    }
    let parts: Vec<(String, u64)> =
        launches.iter().map(|l| (format!("kernel '{}' on GPU {}", l.kernel.name, l.gpu), (l.start_ns.max(0.0) * 1000.0).round() as u64)).collect();
    let turns = Arc::new(Turns::new(&parts));
    std::thread::scope(|s| {
        let handles: Vec<_> = launches
            .iter_mut()
            .enumerate()
            .map(|(i, l)| {
                let turn = turns.participant(i);
                let b = std::thread::Builder::new().name(format!("hipscope gpu {}", l.gpu)).stack_size(THREAD_STACK_BYTES);
                b.spawn_scoped(s, move || run_one(l, turn))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| match h {
                Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
                Err(e) => Err(LaunchError::Image(format!("no host thread for a co-simulated launch: {e}"))),
            })
            .collect()
    })
}

/// One participant: wait for the first turn, run, give the turn up for good.
fn run_one(l: &mut Launch, mut turn: crate::node::turns::Turn) -> Result<DispatchStats, LaunchError> {
    if let Err(NodeLivelock(text)) = turn.begin() {
        let kernel = l.kernel.name.clone();
        return Err(LaunchError::Fault(KernelFault { kernel, wave: WaveId::default(), pc: l.kernel.entry, kind: FaultKind::Livelock(text) }));
    }
    let hooks = Hooks { host: l.host.as_deref_mut().map(|h| h as &mut dyn HostAgent), observer: None, turn: Some(&mut turn) };
    let r = l.device.launch_hooked(l.kernel, l.geo, l.args, &l.opts, hooks);
    turn.finish();
    r
}
