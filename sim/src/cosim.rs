//! Co-simulation: launches on different devices of a node run together on one simulated
//! timeline ([`run_together`]), so that a kernel on one GPU can wait for a flag a kernel on
//! another GPU sets through peer or host-visible memory.
//!
//! Each launch runs on a host thread of its own, but one at a time, in the order of their
//! simulated times ([`crate::node::turns`]): the results depend only on the launches and their
//! seeds. A launch alone runs as [`Device::launch_hooked`] runs it, with no coordinator.

use crate::dispatch::Geometry;
use crate::fault::{FaultKind, KernelFault, Stuck, WaveId};
use crate::host::HostAgent;
use crate::kernel::LoadedKernel;
use crate::launch::{Device, Hooks, LaunchError};
use crate::memory::Memory;
use crate::node::cpu::{CpuCore, HostMemory, Script};
use crate::node::turns::{NodeLivelock, Turn, Turns};
use crate::observe::Observer;
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
    /// Watches the launch ([`crate::observe`]). It is called on the launch's own host thread,
    /// but only while the launch holds the turn, so observers of a group's launches are never
    /// called at the same time, and the order of their calls is the turns' order: it depends
    /// on simulated times only. Observers of several launches may therefore share state
    /// behind a lock (one race detector for the whole group) and still see one deterministic
    /// interleaving.
    pub observer: Option<&'a mut (dyn Observer + Send)>,
}

/// A participant of a co-simulated group that is not a kernel launch: a host thread of the
/// program, a modelled CPU core. It runs on a host thread of its own, after its first turn,
/// measuring its [`Turn`] in picoseconds of the node's timeline; it hands the turn over with
/// [`Turn::pass`] / [`Turn::stall`] as its time advances (counting its own changes to memory
/// in the epoch it passes), and the turn moves on for good when `run` returns.
pub trait NodeAgent: Send {
    /// What reports call it (`host thread 1234`).
    fn label(&self) -> String;
    /// Where it starts on the node's timeline (picoseconds).
    fn start_ps(&self) -> u64;
    /// Run with the turn held; a node livelock ends it.
    fn run(&mut self, turn: &mut Turn) -> Result<(), NodeLivelock>;
}

/// A modelled host CPU core ([`crate::node::cpu`]) on a memory takes its turns like any
/// other agent.
impl<M: HostMemory + Send, S: Script + Send> NodeAgent for CpuCore<M, S> {
    fn label(&self) -> String {
        self.name.clone()
    }
    fn start_ps(&self) -> u64 {
        self.start_ps
    }
    fn run(&mut self, turn: &mut Turn) -> Result<(), NodeLivelock> {
        self.run_script(turn)
    }
}

/// A core reads and writes an address space's words (host memory, and whatever else is
/// mapped into it).
impl HostMemory for Memory {
    fn load_u32(&self, address: u64) -> Option<u32> {
        self.read_u32(address).ok()
    }
    fn store_u32(&mut self, address: u64, value: u32) -> bool {
        self.write_u32(address, value).is_ok()
    }
}

/// Run `launches` (each on a different device) together; each one's result, in order. A
/// kernel whose waves all spin faults only when every kernel still running spins too (each
/// such fault names them all).
pub fn run_together(launches: &mut [Launch]) -> Vec<Result<DispatchStats, LaunchError>> {
    run_with_agents(launches, &mut []).0
}

/// What a group run together gives: each launch's result, then each agent's.
pub type Outcomes = (Vec<Result<DispatchStats, LaunchError>>, Vec<Result<(), NodeLivelock>>);

/// Run `launches` and `agents` together on one timeline: the launches' results and the
/// agents', each in order. The launches' participants come first (indices `0..launches`),
/// the agents' after them.
pub fn run_with_agents(launches: &mut [Launch], agents: &mut [&mut dyn NodeAgent]) -> Outcomes {
    if let ([one], []) = (&mut *launches, &*agents) {
        let hooks = Hooks {
            host: one.host.as_deref_mut().map(|h| h as &mut dyn HostAgent),
            observer: one.observer.as_deref_mut().map(|o| o as &mut dyn Observer),
            turn: None,
        };
        return (vec![one.device.launch_hooked(one.kernel, one.geo, one.args, &one.opts, hooks)], Vec::new());
    }
    let mut parts: Vec<(String, u64)> =
        launches.iter().map(|l| (format!("kernel '{}' on GPU {}", l.kernel.name, l.gpu), (l.start_ns.max(0.0) * 1000.0).round() as u64)).collect();
    parts.extend(agents.iter().map(|a| (a.label(), a.start_ps())));
    let turns = Arc::new(Turns::new(&parts));
    let n = launches.len();
    std::thread::scope(|s| {
        let kernels: Vec<_> = launches
            .iter_mut()
            .enumerate()
            .map(|(i, l)| {
                let turn = turns.participant(i);
                let b = std::thread::Builder::new().name(format!("hipscope gpu {}", l.gpu)).stack_size(THREAD_STACK_BYTES);
                b.spawn_scoped(s, move || run_one(l, turn))
            })
            .collect();
        let others: Vec<_> = agents
            .iter_mut()
            .enumerate()
            .map(|(i, a)| {
                let turn = turns.participant(n + i);
                std::thread::Builder::new()
                    .name(format!("hipscope agent {i}"))
                    .stack_size(THREAD_STACK_BYTES)
                    .spawn_scoped(s, move || run_agent(&mut **a, turn))
            })
            .collect();
        let no_thread = |e: std::io::Error| format!("no host thread for a co-simulated participant: {e}");
        let kernels = kernels
            .into_iter()
            .map(|h| match h {
                Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
                Err(e) => Err(LaunchError::Image(no_thread(e))),
            })
            .collect();
        let others = others
            .into_iter()
            .map(|h| match h {
                Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
                Err(e) => Err(NodeLivelock(no_thread(e))),
            })
            .collect();
        (kernels, others)
    })
}

/// One agent: its first turn, its run, the turn given up for good.
fn run_agent(agent: &mut dyn NodeAgent, mut turn: Turn) -> Result<(), NodeLivelock> {
    turn.set_rate(0, 1, 1);
    turn.begin()?;
    let r = agent.run(&mut turn);
    turn.finish();
    r
}

/// One participant: wait for the first turn, run, give the turn up for good.
fn run_one(l: &mut Launch, mut turn: Turn) -> Result<DispatchStats, LaunchError> {
    if let Err(NodeLivelock(text)) = turn.begin() {
        let kernel = l.kernel.name.clone();
        return Err(LaunchError::Fault(KernelFault {
            kernel,
            wave: WaveId::default(),
            pc: l.kernel.entry,
            kind: FaultKind::Livelock(Box::new(Stuck::from_text(text))),
        }));
    }
    let hooks = Hooks {
        host: l.host.as_deref_mut().map(|h| h as &mut dyn HostAgent),
        observer: l.observer.as_deref_mut().map(|o| o as &mut dyn Observer),
        turn: Some(&mut turn),
    };
    let r = l.device.launch_hooked(l.kernel, l.geo, l.args, &l.opts, hooks);
    turn.finish();
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// An agent that steps its local time by `step_ps`, logging each step it takes.
    struct Stepper<'a> {
        name: &'static str,
        step_ps: u64,
        log: &'a Mutex<Vec<(&'static str, u64)>>,
    }

    impl NodeAgent for Stepper<'_> {
        fn label(&self) -> String {
            self.name.to_string()
        }
        fn start_ps(&self) -> u64 {
            0
        }
        fn run(&mut self, turn: &mut Turn) -> Result<(), NodeLivelock> {
            let mut now = 0;
            while now < 2_000_000 {
                self.log.lock().unwrap_or_else(|e| e.into_inner()).push((self.name, now));
                now += self.step_ps;
                if turn.due(now) {
                    turn.pass(now, 0)?;
                }
            }
            Ok(())
        }
    }

    /// Agents without kernels take turns by their local times: no step of one runs before the
    /// other has come within a lookahead of it, and the interleaving is the same every run.
    #[test]
    fn agents_take_turns_by_simulated_time() {
        let run = || {
            let log = Mutex::new(Vec::new());
            let (mut a, mut b) = (Stepper { name: "a", step_ps: 30_000, log: &log }, Stepper { name: "b", step_ps: 70_000, log: &log });
            let (kernels, agents) = run_with_agents(&mut [], &mut [&mut a, &mut b]);
            assert!(kernels.is_empty() && agents.iter().all(|r| r.is_ok()));
            log.into_inner().unwrap_or_else(|e| e.into_inner())
        };
        let first = run();
        for (i, &(_, t)) in first.iter().enumerate() {
            assert!(first[i..].iter().all(|&(_, u)| u + 70_000 + LOOKAHEAD >= t), "step {i} of {first:?}");
        }
        assert!(first.iter().any(|&(n, _)| n == "a") && first.iter().any(|&(n, _)| n == "b"));
        for _ in 0..3 {
            assert_eq!(run(), first);
        }
    }

    const LOOKAHEAD: u64 = crate::node::turns::LOOKAHEAD_PS;
}
