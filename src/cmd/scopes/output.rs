//! The scope rows as tables (text and the Markdown report) and CSV.

use hipscope_studies::scopes::contended::{ADDRESSES, CONTENDED_OPS};
use hipscope_studies::scopes::{self, Contention, Row, Scope, FOOTPRINTS, OPS, SCOPES};
use std::fmt::Write;

/// The distinct values of `items`, in first-seen order.
pub fn distinct<T: PartialEq>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut v = Vec::new();
    for x in items {
        if !v.contains(&x) {
            v.push(x);
        }
    }
    v
}

/// GPU names in the order the rows have them (the node ping-pong rows' GPUs aside).
pub fn gpus(rows: &[Row]) -> Vec<String> {
    distinct(rows.iter().filter(|r| r.op != NODE_OP).map(|r| r.gpu.clone()))
}

/// The operation of the ping-pong rows between agents of a node ([`scopes::nodepp`]).
const NODE_OP: &str = "node_ping_pong";

/// (GPU, mode) pairs in row order.
fn targets(rows: &[Row]) -> Vec<(String, String)> {
    distinct(rows.iter().map(|r| (r.gpu.clone(), r.mode.clone())))
}

fn find<'a>(rows: &'a [Row], gpu: &str, mode: &str, op: &str, scope: Scope, footprint: u64, contention: &str) -> Option<&'a Row> {
    rows.iter().find(|r| r.gpu == gpu && r.mode == mode && r.op == op && r.scope == scope && r.footprint_bytes == footprint && r.contention == contention)
}

/// `median (min–max)`, `median` when they agree, `—` when absent or timed out.
fn cell(r: Option<&Row>) -> String {
    match r.and_then(|r| Some((r.cycles_median?, r.cycles_min?, r.cycles_max?))) {
        Some((m, lo, hi)) if lo == hi => format!("{m}"),
        Some((m, lo, hi)) => format!("{m} ({lo}–{hi})"),
        None if r.is_some() => "timed out".into(),
        None => "—".into(),
    }
}

fn bytes(b: u64) -> String {
    match b {
        0 => "0".into(),
        b if b >= 1 << 20 => format!("{} MiB", b >> 20),
        b => format!("{} KiB", b >> 10),
    }
}

/// The sections of one GPU and mode: costs by op × scope, footprint and contention sweeps,
/// ping-pong, and the sequences with their actions.
fn target_section(o: &mut String, rows: &[Row], gpu: &str, mode: &str) {
    let base = Contention::OneWorkgroup.name();
    let _ = writeln!(o, "## {gpu}, {mode} mode\n");
    let _ = writeln!(o, "Cycles per wave of one 256-item work-group (median, min–max over its waves), no dirty data:\n");
    let _ = writeln!(o, "| op | wavefront | workgroup | agent | system |\n|---|---|---|---|---|");
    for op in OPS {
        let cells: Vec<String> = SCOPES.iter().map(|&s| cell(find(rows, gpu, mode, op.name, s, 0, base))).collect();
        let _ = writeln!(o, "| {} | {} |", op.name, cells.join(" | "));
    }
    let _ = writeln!(o, "\nDirty footprint (bytes written before the operation by the work-group), median cycles:\n");
    let heads: Vec<String> = FOOTPRINTS.iter().map(|&f| bytes(f)).collect();
    let _ = writeln!(o, "| op | scope | {} |\n|---|---|{}", heads.join(" | "), "---|".repeat(FOOTPRINTS.len()));
    for op in ["fence_rel", "fence_acq_rel", "store_rel", "rmw_acq_rel"] {
        for s in [Scope::Agent, Scope::System] {
            let cells: Vec<String> = FOOTPRINTS.iter().map(|&f| cell(find(rows, gpu, mode, op, s, f, base))).collect();
            let _ = writeln!(o, "| {op} | {} | {} |", s.name(), cells.join(" | "));
        }
    }
    let _ = writeln!(o, "\nContention (fence_acq_rel, no dirty data): one wave, one work-group, one work-group per CU:\n");
    let _ = writeln!(o, "| scope | one wave | one work-group | all CUs |\n|---|---|---|---|");
    for s in SCOPES {
        let cells: Vec<String> = Contention::ALL.iter().map(|c| cell(find(rows, gpu, mode, "fence_acq_rel", s, 0, c.name()))).collect();
        let _ = writeln!(o, "| {} | {} |", s.name(), cells.join(" | "));
    }
    let _ = writeln!(o, "\nPing-pong between two work-groups (cycles per round trip):\n");
    let _ = writeln!(o, "| scope | placement | cycles | note |\n|---|---|---|---|");
    for r in rows.iter().filter(|r| r.gpu == gpu && r.mode == mode && r.op == "ping_pong") {
        let _ = writeln!(o, "| {} | {} | {} | {} |", r.scope.name(), r.contention, cell(Some(r)), r.actions.join("; "));
    }
    contended_section(o, rows, gpu, mode);
    let _ = writeln!(o, "\nWhat the compiler emitted between the clock reads, and the cache actions of one work-group's waves:\n");
    for op in OPS {
        for r in rows.iter().filter(|r| r.gpu == gpu && r.mode == mode && r.op == op.name && r.footprint_bytes == 0 && r.contention == base) {
            let seq = if r.sequence.is_empty() { "(nothing)".to_string() } else { r.sequence.join(" ; ") };
            let act = if r.actions.is_empty() { "no cache action".to_string() } else { r.actions.join("; ") };
            let _ = writeln!(o, "- `{} {}`: `{seq}` — {act}", op.name, r.scope.name());
        }
    }
    let _ = writeln!(o);
}

/// Contended atomicAdd: per op × scope × words, the span of all lanes' atomics for each
/// contention, with the lanes per word and the rate.
fn contended_section(o: &mut String, rows: &[Row], gpu: &str, mode: &str) {
    let mine: Vec<&Row> = rows.iter().filter(|r| r.gpu == gpu && r.mode == mode && r.contended.is_some()).collect();
    if mine.is_empty() {
        return;
    }
    let _ = writeln!(o, "\nContended atomicAdd, every lane's atomic performed where the memory lives: cycles from the first wave's start to the last wave's end (lanes per word ×, atomics per cycle):\n");
    let _ = writeln!(o, "| op | scope | words | one wave | one work-group | all CUs |\n|---|---|---|---|---|---|");
    for (op, _) in CONTENDED_OPS {
        for s in SCOPES {
            for words in ADDRESSES {
                let cells: Vec<String> = Contention::ALL
                    .iter()
                    .map(|c| {
                        let r = mine
                            .iter()
                            .find(|r| r.op == op && r.scope == s && r.contention == c.name() && r.contended.as_ref().is_some_and(|x| x.addresses == words));
                        match r.and_then(|r| r.contended.as_ref()) {
                            Some(x) => format!("{} ({}×, {:.3}/cycle)", x.span_cycles, x.lanes_per_address, x.atomics_per_cycle),
                            None => "—".into(),
                        }
                    })
                    .collect();
                let _ = writeln!(o, "| {op} | {} | {} | {} |", s.name(), words_name(words), cells.join(" | "));
            }
        }
    }
    let ret = mine.iter().find(|r| r.op == "contended_add_ret" && r.scope == Scope::Agent);
    if let Some(r) = ret {
        let _ = writeln!(o, "\n`contended_add_ret agent` emits `{}`.", r.sequence.join(" ; "));
    }
}

fn words_name(w: u64) -> String {
    match w {
        w if w >= 1 << 20 => format!("{} Mi", w >> 20),
        w if w >= 1 << 10 => format!("{} Ki", w >> 10),
        w => w.to_string(),
    }
}

/// The suite's own rows (no placement) and the placement rows.
pub fn split(rows: &[Row]) -> (Vec<Row>, Vec<Row>) {
    rows.iter().cloned().partition(|r| r.placement.is_none())
}

pub fn text(rows: &[Row]) -> String {
    let (node, rows): (Vec<Row>, Vec<Row>) = rows.iter().cloned().partition(|r| r.op == NODE_OP);
    let (suite, placed) = split(&rows);
    let mut o = String::new();
    for (gpu, mode) in targets(&rows) {
        target_section(&mut o, &suite, &gpu, &mode);
        placement_section(&mut o, &placed, &gpu, &mode);
    }
    node_section(&mut o, &node);
    o
}

/// Round trips between agents of a node: one row per (node, partner) with the agent- and the
/// system-scope figure, then each row's notes.
fn node_section(o: &mut String, rows: &[Row]) {
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "### Ping-pong between agents of a node
"
    );
    let _ = writeln!(o, "A flag handed back and forth {} times by one wave on GPU 0 and its partner (`workloads/scopes/nodepp.hip`); cycles of GPU 0 per round trip (ns at its clock in the notes).
", scopes::nodepp::ROUNDS);
    let _ = writeln!(o, "| node | partner | agent | system |\n|---|---|---|---|");
    for (node, partner) in distinct(rows.iter().map(|r| (r.node.clone().unwrap_or_default(), r.contention.clone()))) {
        let at = |s: Scope| cell(rows.iter().find(|r| r.node.as_deref() == Some(node.as_str()) && r.contention == partner && r.scope == s));
        let _ = writeln!(o, "| {node} | {partner} | {} | {} |", at(Scope::Agent), at(Scope::System));
    }
    let _ = writeln!(o);
    for r in rows {
        let _ = writeln!(o, "- {} {} at {} scope: {}", r.node.as_deref().unwrap_or(""), r.contention, r.scope.name(), r.actions.join("; "));
    }
    let _ = writeln!(o);
}

/// System scope by where the data lives: per (contention, footprint) a table of op × scope
/// by placement, then the instructions and actions of the one-wave, no-dirty-data rows.
fn placement_section(o: &mut String, rows: &[Row], gpu: &str, mode: &str) {
    let mine: Vec<&Row> = rows.iter().filter(|r| r.gpu == gpu && r.mode == mode).collect();
    let Some(first) = mine.first() else { return };
    let places = distinct(mine.iter().filter_map(|r| r.placement.clone()));
    let _ = writeln!(o, "### {gpu}, {mode} mode: by where the data lives ({})\n", first.node.as_deref().unwrap_or(""));
    let at = |r: &&Row, op: &str, s: Scope, f: u64, c: &str, p: &str| {
        r.op == op && r.scope == s && r.footprint_bytes == f && r.contention == c && r.placement.as_deref() == Some(p)
    };
    for (contention, footprint) in distinct(mine.iter().map(|r| (r.contention.clone(), r.footprint_bytes))) {
        let _ = writeln!(o, "Cycles per wave ({contention}, {} dirty), sync and dirty data in each placement:\n", bytes(footprint));
        let _ = writeln!(o, "| op | scope | {} |\n|---|---|{}", places.join(" | "), "---|".repeat(places.len()));
        for (op, scope) in distinct(mine.iter().map(|r| (r.op.clone(), r.scope))) {
            let cells: Vec<String> = places.iter().map(|p| cell(mine.iter().copied().find(|r| at(r, &op, scope, footprint, &contention, p)))).collect();
            let _ = writeln!(o, "| {op} | {} | {} |", scope.name(), cells.join(" | "));
        }
        let _ = writeln!(o);
    }
    let _ = writeln!(o, "What the compiler emitted, and the cache and link actions of one wave (no dirty data):\n");
    for r in mine.iter().filter(|r| r.contention == Contention::OneWave.name() && r.footprint_bytes == 0) {
        let seq = if r.sequence.is_empty() { "(nothing)".to_string() } else { r.sequence.join(" ; ") };
        let act = if r.actions.is_empty() { "no cache or link action".to_string() } else { r.actions.join("; ") };
        let _ = writeln!(o, "- `{} {}` on {}: `{seq}` — {act}", r.op, r.scope.name(), r.placement.as_deref().unwrap_or(""));
    }
    let _ = writeln!(o);
}

/// The report; `flags`: the options that select its rows (`--placement all`), as its first
/// line names the command.
pub fn markdown(rows: &[Row], flags: &str) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# What synchronization costs at each scope\n");
    let _ = writeln!(o, "Generated by `cargo run --release -- scopes{flags} --out reports` (timing mode, seed 0): the kernels of `workloads/scopes/scopes.hip`, compiled by clang-19 (gfx950: clang-22), each wave timing one operation with the shader clock after dirtying its share of the footprint and draining its counters. Cycles are net of the timer's own cost (`sc_none__none`). Operations:\n");
    for op in OPS {
        let _ = writeln!(o, "- `{}`: {}", op.name, op.source);
    }
    for (op, source) in CONTENDED_OPS {
        let _ = writeln!(o, "- `{op}` (`workloads/scopes/contended.hip`): {source}");
    }
    let _ = writeln!(o, "\nCache actions count what the operation's instructions did in the memory system (L1/GL0, GL1 and L2 invalidations with the lines they dropped, L2 write-backs with the dirty lines written); the dispatch-start invalidation and end-of-kernel write-back are not included. Plots: `scopes-<gpu>.svg`.\n");
    let _ = writeln!(o, "Model assumptions behind the numbers (no public measurement fixes them): an L1/GL0 or GL1 invalidate clears its valid bits at once (it costs the hit latency); an L2 write-back or invalidate walks every channel's tags one set per cycle (`maintenance_sets_per_cycle` in the GPU config), and other waves' requests to those channels queue behind the walk, so many waves synchronizing at once serialise on it (the all-CU rows); with one L2, an invalidate drops no device-memory lines (the L2 keeps device memory coherent) and, at system scope only, drops the lines of other agents' memory it holds. A ping-pong that times out used a scope that does not include the other work-group: its flag stays stale in a cache it never invalidates.\n");
    let _ = writeln!(o, "Sections \"by where the data lives\" (`--placement default`: on MI300X a fence, an acquire load, a release store and an RMW at agent and system scope, one wave, no dirty data, and the fence and the release store also with 64 KiB dirty; `--placement all`: every scoped global operation at agent and system scope, 0 and 64 KiB dirty, every contention, on every non-tgsplit target) run the same kernels with their `sync` and `dirty` buffers in one placement each, the GPU on a node that holds it (`configs/nodes/`): {}. Accesses to host or peer memory travel the node's links at the config's latency and bandwidth; link actions are the operation's own traffic (the dispatch's `HS_REMOTE_*` counters less the timer kernel's with the same footprint).\n", scopes::Placement::ALL.iter().map(|p| format!("`{}` = {}", p.name(), p.source())).collect::<Vec<_>>().join(", "));
    let _ = writeln!(o, "{AGENT_VS_SYSTEM}\n");
    o.push_str(&text(rows));
    o
}

/// Where agent- and system-scope rows of the placement sections differ, and why they are equal
/// elsewhere (the report says it once).
const AGENT_VS_SYSTEM: &str = "Agent versus system scope on gfx942 (MI300X, MI300A), following LLVM AMDGPUUsage, *Memory Model GFX942* (`sim/src/memsys/lower.rs`): the system-scope acquire `buffer_inv sc0 sc1` is there so that \"following loads will not see stale MTYPE NC global data\", and the system-scope release `buffer_wbl2 sc0 sc1` makes stores \"visible at system scope\"; the agent-scope `buffer_inv sc1` / `buffer_wbl2 sc1` serve \"coherence of local memory ... of CUs with different L1 caches in the same agent\". The model therefore has the agent-scope operations act on lines of the GPU's own memory only (with several L2s: every clean line, as the L2 holding a line is rarely its home), and the system-scope ones also on lines of other agents' memory the L2 caches as MTYPE NC: `peer` (a peer GPU's coarse-grained memory) and `host_pinned_nc` (`hipHostMallocNonCoherent`). Those two placements are where agent and system rows differ: the agent-scope invalidate keeps their lines, so a load after an agent-scope acquire may read a stale value (the rows say so), and the agent-scope write-back leaves their dirty lines in the L2. Elsewhere the hardware does the same thing at both scopes and the rows are equal: `device` and `device_fine` are this agent's memory (MTYPE RW / CC, kept coherent by the probes the PTE C-bit causes: \"MTYPE RW and CC memory will never be stale due to the memory probes\"), and `host_pinned` and `peer_fine` are MTYPE UC, which the L2 never holds (\"PCIe access from the GPU to the CPU can be kept coherent by using the MTYPE UC (uncached) which bypasses the L2\"), so there is nothing in the L2 for the wider scope to act on; the instructions differ only in their scope bits. The doc does not say in so many words that `buffer_inv sc1` on a multi-L2 agent skips other agents' NC lines (it says it \"will invalidate non-local L2 cache lines\"); this is the model's reading of the per-scope purposes quoted above.";

pub fn csv(rows: &[Row]) -> String {
    let mut o = String::from(
        "gpu,mode,op,scope,footprint_bytes,contention,cycles_median,cycles_min,cycles_max,sequence,actions,addresses,lanes,lanes_per_address,span_cycles,atomics_per_cycle,placement,node\n",
    );
    let opt = |v: Option<u64>| v.map_or(String::new(), |x| x.to_string());
    let quote = |s: String| format!("\"{}\"", s.replace('"', "\"\""));
    for r in rows {
        let _ = writeln!(
            o,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            r.gpu,
            r.mode,
            r.op,
            r.scope.name(),
            r.footprint_bytes,
            r.contention,
            opt(r.cycles_median),
            opt(r.cycles_min),
            opt(r.cycles_max),
            quote(r.sequence.join(" ; ")),
            quote(r.actions.join("; ")),
            r.contended
                .as_ref()
                .map_or(",,,,".to_string(), |x| format!("{},{},{},{},{}", x.addresses, x.lanes, x.lanes_per_address, x.span_cycles, x.atomics_per_cycle)),
            r.placement.as_deref().unwrap_or(""),
            quote(r.node.clone().unwrap_or_default())
        );
    }
    o
}
