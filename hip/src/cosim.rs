//! Kernels on a node of several GPUs: a launch is queued (in stream order) instead of run at
//! once, and the queue is flushed by every call that needs its effects (every API call but a
//! short list that neither reads nor orders device work: launches, device selection and
//! count, attribute and property queries, the last-error calls, stream and event creation;
//! `with_runtime_queued` in `lib.rs`), and at exit. A flush runs the queued launches of
//! different GPUs together on one simulated timeline (`hipscope_sim::cosim::run_together`,
//! each starting at its stream's time), so a kernel on one GPU may wait for a flag a kernel on
//! another sets through peer memory; launches on one GPU run in their order. A lone GPU runs
//! each launch at once, as before, unless the program's host threads take turns with its
//! kernels (host-visible memory, [`crate::host_agent`]): then its launches are queued too, and
//! each group runs with the host threads as one more participant.

use crate::host_agent::agent::{self, HostThreads};
use crate::host_agent::link;
use crate::registry::FunctionRef;
use crate::runtime::{LaunchFailure, Runtime};
use crate::timeline::Engine;
use hipscope_isa::codeobj::{HiddenKind, ValueKind};
use hipscope_race::detector::group::{Group, Watcher};
use hipscope_race::runs::KernelGrade;
use hipscope_sim::cosim::{run_together, run_with_agents, Launch};
use hipscope_sim::host::HostAgent;
use hipscope_sim::kernel::LoadedKernel;
use hipscope_sim::observe::Observer;
use hipscope_sim::{FaultKind, Geometry, LaunchError};

/// A launch waiting for the next flush.
pub struct Queued {
    pub f: FunctionRef,
    pub geo: Geometry,
    pub values: Vec<Vec<u8>>,
    pub stream: usize,
    pub device: usize,
}

fn wants_hostcall(k: &LoadedKernel) -> bool {
    k.kernarg.as_ref().is_some_and(|l| l.args.iter().any(|a| a.value_kind == ValueKind::Hidden(HiddenKind::HostcallBuffer)))
}

impl Runtime {
    /// Whether launches wait in the queue: a node of several GPUs.
    pub fn queues_launches(&self) -> bool {
        self.gpus.len() > 1
    }

    /// Run every queued launch: the first queued launch of each GPU together, then the next,
    /// until none is left. The first failure ends the flush (the rest is dropped).
    pub fn flush(&mut self) -> Result<(), LaunchFailure> {
        // A launch's stream handle is resolved on the device that was current at the launch
        // (the null stream is that device's): each runs with its device selected.
        let current = self.current;
        let outcome = self.flush_queue();
        self.select(current);
        // The host pages hold the kernels' results by now (each group gave them back).
        self.host_turns.disarm();
        outcome
    }

    fn flush_queue(&mut self) -> Result<(), LaunchFailure> {
        while !self.queued.is_empty() {
            let mut group = Vec::new();
            let mut rest = Vec::new();
            for q in std::mem::take(&mut self.queued) {
                if group.iter().any(|g: &Queued| g.device == q.device) {
                    rest.push(q);
                } else {
                    group.push(q);
                }
            }
            self.queued = rest;
            let outcome = match group.len() {
                1 if !self.host_turns.armed() => {
                    let q = &group[0];
                    self.select(q.device);
                    self.run_launch(&q.f, q.geo, &q.values, q.stream)
                }
                _ => self.run_group(&group),
            };
            if outcome.is_err() {
                self.queued.clear();
                return outcome;
            }
        }
        Ok(())
    }

    /// Launches on different GPUs, together; then each is placed on the timeline and counted
    /// as a launch run alone is.
    fn run_group(&mut self, group: &[Queued]) -> Result<(), LaunchFailure> {
        for q in group {
            self.registry.kernel(&q.f, &mut self.gpus[q.device].device, q.device, &self.target)?;
        }
        self.host_to_device();
        let opts = self.engine_options();
        let mut starts = Vec::with_capacity(group.len());
        for q in group {
            self.select(q.device);
            starts.push(self.timeline.start_of(q.stream, Engine::Compute) * 1e6);
        }
        for q in group {
            let k = self.registry.prepared(&q.f).ok_or(LaunchFailure::UnknownFunction)?;
            let gpu = &mut self.gpus[q.device];
            if wants_hostcall(k) && gpu.hostcall.is_none() {
                gpu.hostcall = Some(crate::hostcall::Hostcall::new(&mut gpu.device.mem));
            }
        }
        // `grade --exec`: one detector watches the whole group, each GPU's kernel as a
        // different agent (`hipscope_race::detector::group`), and the host threads as one more
        // when they take turns (`hipscope_race::detector::host`).
        let agents: Vec<u32> = group.iter().map(|q| q.device as u32).collect();
        let watch = self.host_turns.watch();
        let detector = self.races.as_ref().map(|_| if watch.is_some() { Group::with_host(&agents) } else { Group::new(&agents) });
        if let Some(d) = &detector {
            // Scopes the code cannot show, decided from the program's code for other targets.
            for q in group {
                let name = self.registry.prepared(&q.f).map(|k| k.name.clone());
                if let (Some(name), Some(decided)) = (name, self.registry.decided(&q.f)) {
                    d.decide(&name, decided);
                }
            }
        }
        let mut watchers: Vec<Option<Watcher>> = (0..group.len()).map(|i| detector.as_ref().map(|d| d.watcher(i))).collect();
        let access_ps = self.host_access_ps();
        let start_ps = starts.iter().copied().fold(f64::INFINITY, f64::min).max(0.0);
        let host = watch.map(|watch| HostThreads {
            host: &mut self.memory.host,
            watched: &self.host_turns.watched,
            watch,
            start_ps: (start_ps * 1000.0).round() as u64,
            access_ps,
            accesses: 0,
            races: detector.as_ref().map(Group::host),
        });
        let mut gpus: Vec<Option<&mut crate::node::Gpu>> = self.gpus.iter_mut().map(Some).collect();
        let mut launches = Vec::with_capacity(group.len());
        for ((q, &start_ns), watcher) in group.iter().zip(&starts).zip(&mut watchers) {
            let kernel = self.registry.prepared(&q.f).ok_or(LaunchFailure::UnknownFunction)?;
            let gpu = gpus.get_mut(q.device).and_then(Option::take).ok_or(LaunchFailure::UnknownFunction)?;
            let host = match (wants_hostcall(kernel), gpu.hostcall.as_mut()) {
                (true, Some(h)) => Some(h as &mut (dyn HostAgent + Send)),
                _ => None,
            };
            let observer = watcher.as_mut().map(|w| w as &mut (dyn Observer + Send));
            launches.push(Launch { device: &mut gpu.device, gpu: q.device, kernel, geo: q.geo, args: &q.values, opts, start_ns, host, observer });
        }
        let results = match host {
            Some(mut host) => {
                link::LIVE.store(true, std::sync::atomic::Ordering::SeqCst);
                let (results, _) = run_with_agents(&mut launches, &mut [&mut host]);
                agent::end_of_flush();
                results
            }
            None => run_together(&mut launches),
        };
        drop(launches);
        drop(watchers);
        if let Some(d) = detector {
            self.log_group_races(group, &d.into_detector());
        }
        // A kernel that failed on its own is the cause; its partners' livelocks (waiting for
        // it) only follow from it.
        let spun = |r: &Result<_, LaunchError>| matches!(r, Err(LaunchError::Fault(f)) if matches!(f.kind, FaultKind::Livelock(_)));
        if let Some(Err(e)) = results.iter().find(|r| r.is_err() && !spun(r)).or_else(|| results.iter().find(|r| r.is_err())) {
            return Err(match e.clone() {
                LaunchError::Fault(f) => LaunchFailure::Fault(f),
                other => LaunchFailure::Setup(other.to_string()),
            });
        }
        let stats: Vec<_> = results.into_iter().flatten().collect();
        self.device_to_host();
        for (q, s) in group.iter().zip(&stats) {
            self.select(q.device);
            self.after_launch(q.device);
            self.record_launch(&q.f, q.device, q.geo, q.stream, s);
        }
        Ok(())
    }

    /// What the group's detector saw, filed under each kernel of the group (a race between
    /// two kernels under the kernel of its later access).
    fn log_group_races(&mut self, group: &[Queued], det: &hipscope_race::detector::Detector) {
        let Some(log) = &mut self.races else { return };
        let default = Default::default();
        for q in group {
            let Some(kernel) = self.registry.prepared(&q.f) else { continue };
            let lines = self.registry.code_object(q.f.module).map_or(&default, |c| &c.lines);
            let target = self.gpus[q.device].config.name.clone();
            let grade = log.kernels.entry(kernel.name.clone()).or_insert_with(|| KernelGrade::new(kernel, &target));
            grade.add_launch(det, kernel, lines, self.seed);
        }
    }
}
