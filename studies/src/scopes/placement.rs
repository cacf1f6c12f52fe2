//! Scope costs by where the data lives: the suite's measurement kernels with their `sync` and
//! `dirty` buffers placed in this GPU's coarse- or fine-grained memory, in pinned host memory,
//! or in a peer GPU's memory, on a node that holds the GPU (`Device::set_node`): accesses to
//! another agent's memory travel the node's links (`sim/src/memsys/remote.rs`), and the memory
//! type decides what the L2 keeps (`sim/src/memsys/mtype.rs`). Rows carry the placement, the
//! instructions, the cache actions, and the link traffic the operation caused (the dispatch's
//! `HS_REMOTE_*` counters less those of the timer kernel with the same footprint, which does
//! everything but the operation).
//!
//! Ping-pong rows across agents (GPU↔CPU, GPU↔GPU) run on the node co-simulation instead
//! ([`super::nodepp`]).

use super::{actions, sequence, Contention, Row, Scope, Target, FOOTPRINTS, GROUP_ITEMS};
use hipscope_sim::counters::Counters;
use hipscope_sim::memory::Owner;
use hipscope_sim::node::Node;
use hipscope_sim::spec::model::{Arg, Buffer, Dispatch, MemoryType};
use hipscope_sim::spec::{RunOptions, Session, Spec, SpecBuilder};
use std::collections::HashMap;
use std::path::Path;

/// Where the synchronization data (and the dirty footprint) lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// `hipMalloc` on this GPU: coarse-grained (MTYPE RW, the L2 may hold it dirty).
    Device,
    /// `hipExtMallocWithFlags(hipDeviceMallocFinegrained)` on this GPU (MTYPE CC: stores
    /// written through the L2).
    DeviceFine,
    /// `hipHostMalloc`: the host's memory over the GPU's host link (MTYPE UC); on an APU the
    /// HBM the CPU and GPU share.
    HostPinned,
    /// `hipHostMalloc(hipHostMallocNonCoherent)`: the host's memory, cached in this GPU's L2
    /// (MTYPE NC, `sim/src/memsys/mtype.rs`).
    HostPinnedNc,
    /// `hipMalloc` on GPU 1 after `hipDeviceEnablePeerAccess`: coarse-grained peer memory
    /// (MTYPE NC: cached in this GPU's L2), over the link between the two GPUs.
    Peer,
    /// Fine-grained memory of GPU 1 (MTYPE UC: not cached in this GPU's L2).
    PeerFine,
}

impl Placement {
    pub const ALL: [Placement; 6] =
        [Placement::Device, Placement::DeviceFine, Placement::HostPinned, Placement::HostPinnedNc, Placement::Peer, Placement::PeerFine];

    pub fn name(self) -> &'static str {
        match self {
            Placement::Device => "device",
            Placement::DeviceFine => "device_fine",
            Placement::HostPinned => "host_pinned",
            Placement::HostPinnedNc => "host_pinned_nc",
            Placement::Peer => "peer",
            Placement::PeerFine => "peer_fine",
        }
    }

    /// The HIP allocation that gives it.
    pub fn source(self) -> &'static str {
        match self {
            Placement::Device => "hipMalloc (coarse-grained device memory)",
            Placement::DeviceFine => "hipExtMallocWithFlags(hipDeviceMallocFinegrained)",
            Placement::HostPinned => "hipHostMalloc (pinned host memory)",
            Placement::HostPinnedNc => "hipHostMalloc(hipHostMallocNonCoherent) (pinned host memory the L2 may cache)",
            Placement::Peer => "hipMalloc on GPU 1, peer access enabled",
            Placement::PeerFine => "hipExtMallocWithFlags(hipDeviceMallocFinegrained) on GPU 1, peer access enabled",
        }
    }

    /// The spec's memory type and owner for it.
    fn buffer(self) -> (MemoryType, Owner) {
        match self {
            Placement::Device => (MemoryType::Device, Owner::Local),
            Placement::DeviceFine => (MemoryType::DeviceFineGrain, Owner::Local),
            Placement::HostPinned => (MemoryType::HostPinned, Owner::Host),
            Placement::HostPinnedNc => (MemoryType::HostNonCoherent, Owner::Host),
            Placement::Peer => (MemoryType::Device, Owner::Gpu(1)),
            Placement::PeerFine => (MemoryType::DeviceFineGrain, Owner::Gpu(1)),
        }
    }

    fn needs_peer(self) -> bool {
        matches!(self, Placement::Peer | Placement::PeerFine)
    }

    /// Whether the GPU's L2 holds this placement's lines as another agent's memory (MTYPE NC):
    /// the lines agent-scope L2 maintenance leaves and system-scope maintenance acts on
    /// (`sim/src/memsys/lower.rs`), so an agent-scope acquire may read them stale.
    pub fn cached_other_agents(self) -> bool {
        matches!(self, Placement::HostPinnedNc | Placement::Peer)
    }
}

/// Which placement rows a run adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Placements {
    /// None (sweeps, filtered runs).
    #[default]
    None,
    /// A representative subset: [`DEFAULT_OPS`] at agent and system scope, one wave, no dirty
    /// data (and [`DEFAULT_DIRTY_OPS`] also with 64 KiB), on MI300X (the GPU whose system rows
    /// used to copy its agent rows).
    Default,
    /// The matrix: [`ALL_OPS`] at agent and system scope, [`ALL_FOOTPRINTS`], every
    /// contention, on every target but tgsplit builds.
    All,
}

/// The operations of the default subset: a fence, an acquire load, a release store, an RMW.
pub const DEFAULT_OPS: [&str; 4] = ["fence_seq_cst", "load_acq", "store_rel", "rmw_acq_rel"];
/// The operations of the default subset also measured with [`ALL_FOOTPRINTS`]' dirty data: the
/// releases, whose L2 write-back is where agent and system scope part on dirty lines of other
/// agents' memory.
pub const DEFAULT_DIRTY_OPS: [&str; 2] = ["fence_seq_cst", "store_rel"];
/// The operations of the matrix: every scoped global-memory operation of the suite.
pub const ALL_OPS: [&str; 9] = ["fence_acq", "fence_rel", "fence_acq_rel", "fence_seq_cst", "load_acq", "store_rel", "rmw_acq_rel", "add_noret", "add_ret"];
/// Dirty footprints of the matrix (the whole dispatch's).
pub const ALL_FOOTPRINTS: [u64; 2] = [0, 65536];

/// The node a target runs on, which GPU of it, and how it was chosen.
pub struct NodeChoice {
    pub node: Node,
    pub gpu: usize,
    /// E.g. `GPU 0 of mi300x-8 (peer: GPU 1)`, said in every row.
    pub note: String,
}

/// The built-in node that holds `t`'s GPU (MI300X → mi300x-8, MI300A → mi300a-4, RX 7900 XTX
/// → rx7900xtx-pcie); any other GPU alone on rx7900xtx-pcie's desktop host and PCIe gen4 x16
/// link (an assumption: no built-in node holds it).
pub fn node_for(t: &Target) -> Result<NodeChoice, String> {
    let built_in = match t.gpu.name.as_str() {
        "mi300x" => Some("mi300x-8"),
        "mi300a" => Some("mi300a-4"),
        "rx7900xtx" => Some("rx7900xtx-pcie"),
        _ => None,
    };
    if let Some(name) = built_in {
        let node = Node::built_in(name).map_err(|e| e.to_string())?;
        let peer = if node.gpus.len() > 1 { ", peer: GPU 1" } else { "" };
        return Ok(NodeChoice { note: format!("GPU 0 of {name}{peer}"), node, gpu: 0 });
    }
    let template = Node::built_in("rx7900xtx-pcie").map_err(|e| e.to_string())?;
    let node = template.alone_like(t.gpu.clone(), 0).ok_or("rx7900xtx-pcie has no GPU 0")?;
    let note = format!("no built-in node holds {}: alone on rx7900xtx-pcie's host and PCIe gen4 x16 link (assumed)", t.gpu.name);
    Ok(NodeChoice { node, gpu: 0, note })
}

/// One measured case of a placement.
#[derive(Debug, Clone, Copy)]
struct Case {
    /// `None`: the timer kernel (`sc_none__none`) with this footprint and contention.
    op: Option<&'static str>,
    scope: Scope,
    footprint: u64,
    contention: Contention,
}

/// What a set of placement rows covers: (ops, scopes, footprints, contentions).
fn matrix(set: Placements) -> (&'static [&'static str], &'static [Scope], &'static [u64], &'static [Contention]) {
    match set {
        Placements::None => (&[], &[], &[], &[]),
        Placements::Default => (&DEFAULT_OPS, &[Scope::Agent, Scope::System], &ALL_FOOTPRINTS, &[Contention::OneWave]),
        Placements::All => (&ALL_OPS, &[Scope::Agent, Scope::System], &ALL_FOOTPRINTS, &Contention::ALL),
    }
}

/// Whether `set` measures anything on `t`.
fn applies(t: &Target, set: Placements) -> bool {
    match set {
        Placements::None => false,
        Placements::Default => t.gpu.name == "mi300x" && !t.tgsplit,
        Placements::All => !t.tgsplit,
    }
}

/// The cases of one placement: the timer kernel for each footprint and contention first.
fn cases(set: Placements, keep: &dyn Fn(&str, Scope, u64, Contention) -> bool) -> Vec<Case> {
    let (ops, scopes, footprints, contentions) = matrix(set);
    let mut measured = Vec::new();
    for &op in ops {
        for &scope in scopes {
            for &contention in contentions {
                for &footprint in
                    footprints.iter().filter(|&&f| keep(op, scope, f, contention) && (f == 0 || set != Placements::Default || DEFAULT_DIRTY_OPS.contains(&op)))
                {
                    measured.push(Case { op: Some(op), scope, footprint, contention });
                }
            }
        }
    }
    let mut timers: Vec<Case> = Vec::new();
    for c in &measured {
        // The timer at footprint 0 gives the time baseline, the one at the case's footprint the
        // counter baseline.
        for footprint in [0, c.footprint] {
            if !timers.iter().any(|t| t.footprint == footprint && t.contention == c.contention) {
                timers.push(Case { op: None, scope: Scope::Wavefront, footprint, contention: c.contention });
            }
        }
    }
    timers.extend(measured);
    timers
}

/// The placements `node` can give (peer memory needs a second GPU with a link).
fn placements_on(choice: &NodeChoice) -> Vec<Placement> {
    let peer = choice.node.gpus.len() > 1 && choice.node.can_access_peer(choice.gpu, 1);
    Placement::ALL.iter().copied().filter(|p| peer || !p.needs_peer()).collect()
}

/// Dispatches [`run`] makes on `t` with `set`.
pub fn count(t: &Target, set: Placements) -> usize {
    if !applies(t, set) {
        return 0;
    }
    let n = node_for(t).map_or(0, |c| placements_on(&c).len());
    n * cases(set, &|_, _, _, _| true).len()
}

fn spec(t: &Target, cases: &[Case], wave: u32, p: Placement) -> SpecBuilder {
    let max_waves = (GROUP_ITEMS * t.gpu.compute_units.max(1)).div_ceil(wave).max(1) as u64;
    let dirty_bytes = FOOTPRINTS.iter().max().copied().unwrap_or(0) + 4 * max_waves * wave as u64;
    let dir = t.object_dir();
    let (memory, owner) = p.buffer();
    let spec = Spec::builder()
        .code_object(&dir, format!("bin/{dir}/scopes.co"))
        .buffer("sync", Buffer::zeroed(4 * (max_waves + 1)).placed(memory, owner))
        .buffer("dirty", Buffer::zeroed(dirty_bytes).placed(memory, owner))
        .buffer("times", Buffer::zeroed(4 * max_waves.max(2)));
    let buf = |name: &str| Arg::Buffer(name.into());
    cases.iter().fold(spec, |spec, c| {
        let (g, b) = c.contention.geometry(&t.gpu, wave);
        let waves = g.div_ceil(wave).max(1) as u64;
        // At most 1 MiB over at least one wave: far below 2^32 dwords.
        let dwords = (c.footprint / 4 / waves) as u32;
        let kernel = match c.op {
            Some(op) => format!("sc_{op}__{}", c.scope.name()),
            None => "sc_none__none".into(),
        };
        spec.dispatch(Dispatch::linear(kernel, g, b, vec![buf("sync"), buf("dirty"), Arg::U32(dwords), buf("times")]))
    })
}

/// Placement rows of `t`: for each placement the node allows, the cases `set` and `keep` (op,
/// scope, footprint, contention) select.
pub fn run(
    t: &Target,
    workloads: &Path,
    progress: &dyn super::Progress,
    set: Placements,
    keep: &dyn Fn(&str, Scope, u64, Contention) -> bool,
) -> Result<Vec<Row>, String> {
    if !applies(t, set) {
        return Ok(Vec::new());
    }
    let cases = cases(set, keep);
    if cases.iter().all(|c| c.op.is_none()) {
        return Ok(Vec::new());
    }
    let choice = node_for(t).map_err(|e| format!("{}: {e}", t.gpu.name))?;
    let mut rows = Vec::new();
    for p in placements_on(&choice) {
        rows.extend(run_placement(t, workloads, progress, &cases, &choice, p)?);
    }
    Ok(rows)
}

/// One placement's session: every case on fresh caches, buffers and link queues.
fn run_placement(t: &Target, workloads: &Path, progress: &dyn super::Progress, cases: &[Case], choice: &NodeChoice, p: Placement) -> Result<Vec<Row>, String> {
    let wave = t.wave();
    let path = workloads.join(format!("scopes-{}-{}-{}.ron", t.gpu.name, t.mode_name().to_lowercase(), p.name()));
    let label = format!("{} ({} mode, {})", t.gpu.name, t.mode_name(), p.name());
    let parsed = spec(t, cases, wave, p).build(&path).map_err(|e| format!("{label}: {e}"))?;
    let opts = RunOptions { code_object: Some(t.object_dir()), seed: 0, mode: hipscope_sim::Mode::Timing, ..RunOptions::default() };
    let mut s = Session::on(&parsed, &path, &opts, Some(&t.gpu)).map_err(|e| format!("{label}: {e}"))?;
    s.device.set_node(&choice.node, choice.gpu).map_err(|e| format!("{label}: {e}"))?;
    let rdna = t.gpu.processor.family().is_rdna();
    // (footprint, contention) → the timer kernel's median cycles and counters.
    let mut timers: HashMap<(u64, Contention), (u64, Counters)> = HashMap::new();
    let mut rows = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        s.reset().map_err(|e| format!("{label}: {e}"))?;
        let mut tally = actions::Tally::default();
        let stats = s.launch_observed(i, 0, Some(&mut tally)).map_err(|e| format!("{label}: {case:?}: {e}"))?;
        let times = s.read_buffer("times").unwrap_or_default();
        let mut v: Vec<u64> = times.chunks_exact(4).take(stats.waves as usize).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as u64).collect();
        let counters = stats.counters.unwrap_or_default();
        let Some(op) = case.op else {
            let median = super::run::spread(&mut v).map_or(0, |m| m.0);
            timers.insert((case.footprint, case.contention), (median, counters));
            progress.step(&format!("{label}: timer"));
            continue;
        };
        let base = timers.get(&(0, case.contention)).map_or(0, |x| x.0);
        let none = Counters::default();
        let before = timers.get(&(case.footprint, case.contention)).map_or(&none, |x| &x.1);
        let mut net: Vec<u64> = v.iter().map(|&w| w.saturating_sub(base)).collect();
        let spread = super::run::spread(&mut net);
        let mut acts = actions::describe(&tally, &counters, rdna);
        acts.extend(actions::link(&counters, before));
        if case.scope == Scope::Agent && p.cached_other_agents() {
            acts.push(
                "agent scope leaves this placement's L2 lines (another agent's memory, MTYPE NC): a later acquire at this scope may read them stale".into(),
            );
        }
        rows.push(Row {
            gpu: t.gpu.name.clone(),
            mode: t.mode_name(),
            op: op.to_string(),
            scope: case.scope,
            footprint_bytes: case.footprint,
            contention: case.contention.name().to_string(),
            cycles_median: spread.map(|x| x.0),
            cycles_min: spread.map(|x| x.1),
            cycles_max: spread.map(|x| x.2),
            sequence: s.kernel(i).map(sequence::between_clock_reads).unwrap_or_default(),
            actions: acts,
            contended: None,
            placement: Some(p.name().to_string()),
            node: Some(choice.note.clone()),
        });
        progress.step(&format!("{label}: {op} {}", case.scope.name()));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_case_has_its_timers() {
        let all = cases(Placements::All, &|_, _, _, _| true);
        for c in all.iter().filter(|c| c.op.is_some()) {
            for f in [0, c.footprint] {
                assert!(all.iter().any(|t| t.op.is_none() && t.footprint == f && t.contention == c.contention), "{c:?}");
            }
        }
        assert_eq!(all.iter().filter(|c| c.op.is_some()).count(), ALL_OPS.len() * 2 * ALL_FOOTPRINTS.len() * 3);
    }
}
