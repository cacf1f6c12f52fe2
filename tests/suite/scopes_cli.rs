//! `hipscope scopes` on its default GPUs: the JSON rows have the documented schema, and the
//! scope costs have the properties the memory-model lowering implies (LLVM AMDGPUUsage memory
//! model tables, summarised in ../shared/notes/memory-model-lowering.md §3.2): a wider scope
//! never costs less; work-group scope needs no cache action on GCN/CDNA; on RDNA it pays the L0
//! invalidate in WGP mode and not in CU mode; in tgsplit mode (gfx90a, gfx942, gfx950: a work-group's
//! waves on several CUs) its acquires pay an L1 invalidate; on the 8-L2 MI300X and MI355X agent scope
//! writes back and invalidates the L2, and costs more the more dirty data there is.

use serde_json::Value;
use std::process::Command;

const SCOPES: [&str; 4] = ["wavefront", "workgroup", "agent", "system"];

/// Run `hipscope scopes --json` with `args`; the report files it writes must be there.
fn rows(args: &[&str], svgs: &[&str]) -> Vec<Value> {
    let out = std::env::temp_dir().join(format!("hipscope-scopes-{}-{}", std::process::id(), svgs.len()));
    let o = Command::new(env!("CARGO_BIN_EXE_hipscope")).arg("scopes").args(args).args(["--json", "--out"]).arg(&out).output().expect("run hipscope");
    assert!(o.status.success(), "hipscope scopes failed: {}", String::from_utf8_lossy(&o.stderr));
    for f in std::iter::once("scopes.md".to_string()).chain(svgs.iter().map(|g| format!("scopes-{g}.svg"))) {
        let p = out.join(f);
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        assert!(text.len() > 200, "{} missing or empty", p.display());
    }
    let _ = std::fs::remove_dir_all(&out);
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON output");
    let rows = v.as_array().expect("an array of rows").clone();
    assert!(!rows.is_empty());
    rows.iter().for_each(schema);
    rows
}

/// (GPU, mode) pairs in row order.
fn targets(rows: &[Value]) -> Vec<(String, String)> {
    let mut targets: Vec<(String, String)> = Vec::new();
    // Ping-pong rows between the agents of a node name the node's GPU (an mi300a on
    // `mi300a-4`), not a target of the suite.
    for r in rows.iter().filter(|r| r["op"] != "node_ping_pong") {
        let t = (r["gpu"].as_str().unwrap_or("").to_string(), r["mode"].as_str().unwrap_or("").to_string());
        if !targets.contains(&t) {
            targets.push(t);
        }
    }
    targets
}

/// Print each target's op × scope table and check the ranking and the work-group-scope
/// actions; what fails goes to `failures`.
fn check_targets(rows: &[Value], failures: &mut Vec<String>) {
    for (gpu, mode) in &targets(rows) {
        println!("{gpu} ({mode} mode): median cycles, one work-group, no dirty data");
        println!("  {:<14} {:>10} {:>10} {:>10} {:>10}", "op", SCOPES[0], SCOPES[1], SCOPES[2], SCOPES[3]);
        let mut ops: Vec<&str> = rows.iter().filter(|r| r["gpu"] == gpu.as_str() && r["op"] != "ping_pong").filter_map(|r| r["op"].as_str()).collect();
        ops.dedup();
        for op in ops {
            let cells: Vec<Option<u64>> = SCOPES.iter().map(|s| median(find(rows, gpu, mode, op, s, 0, "one_workgroup"))).collect();
            let text: Vec<String> = cells.iter().map(|c| c.map_or("-".into(), |v| v.to_string())).collect();
            println!("  {op:<14} {:>10} {:>10} {:>10} {:>10}", text[0], text[1], text[2], text[3]);
            // Ranking, for every footprint and the one-wave and one-work-group cases.
            for contention in ["one_wave", "one_workgroup"] {
                for fp in [0u64, 1024, 65536, 1 << 20] {
                    let found: Vec<&Value> = SCOPES.iter().filter_map(|s| find(rows, gpu, mode, op, s, fp, contention)).collect();
                    let v: Vec<u64> = found.iter().filter_map(|r| median(Some(r))).collect();
                    // Scopes that lower to the same instructions (an LDS atomic at every scope)
                    // cannot rank by scope: with a whole work-group contending, their medians
                    // move by a cycle with the other waves' timing. Only a wider scope whose
                    // code differs must not cost less.
                    let inverted = found.windows(2).any(|w| median(Some(w[0])) > median(Some(w[1])) && w[0]["sequence"] != w[1]["sequence"]);
                    if inverted {
                        failures.push(format!("{gpu} {mode} {op} {contention} {fp} B: scopes cost {v:?}, not non-decreasing"));
                    }
                }
            }
        }
        let rdna = gpu.starts_with("rx");
        for op in ["fence_acq", "fence_rel", "fence_acq_rel", "load_acq", "store_rel", "rmw_acq_rel"] {
            let a = actions(find(rows, gpu, mode, op, "workgroup", 0, "one_workgroup"));
            let acquires = op != "fence_rel" && op != "store_rel";
            if mode == "tgsplit" {
                if acquires && !a.contains("L1 invalidate") {
                    failures.push(format!("{gpu} tgsplit: workgroup-scope {op} did not invalidate the L1: {a:?}"));
                }
                continue;
            }
            if (!rdna || mode == "CU") && !a.is_empty() {
                failures.push(format!("{gpu} {mode}: workgroup-scope {op} caused cache actions: {a}"));
            }
            if rdna && mode == "WGP" && acquires && !a.contains("GL0 invalidate") {
                failures.push(format!("{gpu} WGP: workgroup-scope {op} did not invalidate the L0: {a:?}"));
            }
        }
    }
}

fn schema(r: &Value) {
    let o = r.as_object().expect("row is an object");
    let mut keys = vec!["gpu", "mode", "op", "scope", "footprint_bytes", "contention", "cycles_median", "cycles_min", "cycles_max", "sequence", "actions"];
    // Contended-atomic rows add their words, lanes, span and rate.
    let contended = ["addresses", "lanes", "lanes_per_address", "span_cycles", "atomics_per_cycle"];
    if o["op"].as_str().is_some_and(|op| op.starts_with("contended_")) {
        keys.extend(contended);
        for k in &contended[..4] {
            assert!(o[*k].is_u64(), "{k}: {r}");
        }
        assert!(o["atomics_per_cycle"].is_f64(), "atomics_per_cycle: {r}");
    }
    // Placement rows (`--placement`) add where the data lives and the node.
    if o.contains_key("placement") {
        keys.extend(["placement", "node"]);
        assert!(o["placement"].is_string() && o["node"].is_string(), "placement, node: {r}");
    }
    assert_eq!(o.len(), keys.len(), "row keys: {r}");
    for k in keys {
        assert!(o.contains_key(k), "missing {k}: {r}");
    }
    for k in ["gpu", "mode", "op", "scope", "contention"] {
        assert!(o[k].is_string(), "{k} not a string: {r}");
    }
    assert!(o["footprint_bytes"].is_u64());
    for k in ["cycles_median", "cycles_min", "cycles_max"] {
        assert!(o[k].is_u64() || o[k].is_null(), "{k}: {r}");
    }
    for k in ["sequence", "actions"] {
        assert!(o[k].as_array().is_some_and(|a| a.iter().all(Value::is_string)), "{k}: {r}");
    }
    if let (Some(lo), Some(m), Some(hi)) = (o["cycles_min"].as_u64(), o["cycles_median"].as_u64(), o["cycles_max"].as_u64()) {
        assert!(lo <= m && m <= hi, "min ≤ median ≤ max: {r}");
    }
}

fn find<'a>(rows: &'a [Value], gpu: &str, mode: &str, op: &str, scope: &str, footprint: u64, contention: &str) -> Option<&'a Value> {
    rows.iter().find(|r| {
        r["gpu"] == gpu && r["mode"] == mode && r["op"] == op && r["scope"] == scope && r["footprint_bytes"] == footprint && r["contention"] == contention
    })
}

fn actions(r: Option<&Value>) -> String {
    r.and_then(|r| r["actions"].as_array()).map_or(String::new(), |a| a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("; "))
}

fn median(r: Option<&Value>) -> Option<u64> {
    r.and_then(|r| r["cycles_median"].as_u64())
}

#[test]
fn scope_costs_schema_ranking_and_actions() {
    let rows = rows(&[], &["mi355x", "mi300x", "mi210", "rx7900xtx", "rx6900xt", "r9nano"]);
    let want = [
        ("mi355x", "CU"),
        ("mi355x", "tgsplit"),
        ("mi300x", "CU"),
        ("mi300x", "tgsplit"),
        ("mi210", "CU"),
        ("mi210", "tgsplit"),
        ("rx7900xtx", "WGP"),
        ("rx7900xtx", "CU"),
        ("rx6900xt", "WGP"),
        ("r9nano", "CU"),
    ];
    assert_eq!(targets(&rows).iter().map(|(g, m)| (g.as_str(), m.as_str())).collect::<Vec<_>>(), want);
    let mut failures = Vec::new();
    check_targets(&rows, &mut failures);
    // MI300X and MI355X (8 L2s in one agent; AMDGPUUsage "Memory Model GFX942" covers both):
    // agent scope writes back and invalidates the L2, and its cost grows with the dirty footprint.
    for gpu in ["mi300x", "mi355x"] {
        multi_l2_agent_scope(&rows, gpu, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// On a GPU with one L2 per XCD, agent-scope release writes back dirty L2 lines, acquire
/// invalidates the L2, and releases cost more with 1 MiB dirty than with none.
fn multi_l2_agent_scope(rows: &[Value], gpu: &str, failures: &mut Vec<String>) {
    let rel = actions(find(rows, gpu, "CU", "fence_rel", "agent", 65536, "one_workgroup"));
    let acq = actions(find(rows, gpu, "CU", "fence_acq", "agent", 0, "one_workgroup"));
    println!("{gpu} agent release (64 KiB dirty): {rel}\n{gpu} agent acquire: {acq}");
    if !rel.contains("L2 write-back") || rel.contains(": 0 dirty lines") {
        failures.push(format!("{gpu} agent release did not write back dirty L2 lines: {rel:?}"));
    }
    if !acq.contains("L2 invalidate") {
        failures.push(format!("{gpu} agent acquire did not invalidate the L2: {acq:?}"));
    }
    for op in ["fence_rel", "store_rel", "fence_acq_rel"] {
        let by_fp: Vec<Option<u64>> = [0u64, 1 << 20].iter().map(|&f| median(find(rows, gpu, "CU", op, "agent", f, "one_workgroup"))).collect();
        println!("{gpu} agent {op}: no dirty data {:?}, 1 MiB dirty {:?}", by_fp[0], by_fp[1]);
        if !matches!(by_fp[..], [Some(a), Some(b)] if b > a) {
            failures.push(format!("{gpu} agent {op} does not cost more with 1 MiB dirty: {by_fp:?}"));
        }
    }
}

/// The other built-in GPUs and modes (MI100 gfx908, MI250X gfx90a, MI300A gfx942 with six L2s,
/// RX 9070 XT gfx1201 in WGP mode, RX 6900 XT in CU mode): the same ranking and work-group rules.
#[test]
fn scope_ranking_on_the_other_gpus_and_modes() {
    let mut rows = rows(&["--gpu", "mi100,mi250x,mi300a,rx9070xt"], &["mi100", "mi250x", "mi300a", "rx9070xt"]);
    rows.extend(self::rows(&["--gpu", "rx6900xt", "--cu-mode", "cu"], &["rx6900xt"]));
    let want = [("mi100", "CU"), ("mi250x", "CU"), ("mi300a", "CU"), ("rx9070xt", "WGP"), ("rx6900xt", "CU")];
    assert_eq!(targets(&rows).iter().map(|(g, m)| (g.as_str(), m.as_str())).collect::<Vec<_>>(), want);
    let mut failures = Vec::new();
    check_targets(&rows, &mut failures);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The seed document's atomicity conditions: an atomic on managed memory is not atomic on a GPU
/// without `concurrentManagedAccess` (R9 Nano, gfx803: KFD's SVM support starts at GFX9), and is
/// on one with it (MI300X). `run` says so and counts it.
#[test]
fn non_atomic_system_atomics_are_reported() {
    let dir = std::env::temp_dir().join(format!("hipscope-atomics-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bin = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads/bin");
    let spec = format!(
        "Run(code_objects: {{\"gfx803\": \"{0}/gfx803/atomics.co\", \"gfx942\": \"{0}/gfx942/atomics.co\"}},\n buffers: {{\"in\": (bytes: 4096, init: Random(U32, 3)), \"bins\": (bytes: 64, memory: Managed)}},\n dispatches: [(kernel: \"histogram\", grid: (1024, 1, 1), block: (256, 1, 1), args: [Buffer(\"in\"), Buffer(\"bins\"), U32(1024), U32(16)])])\n",
        bin.display()
    );
    let path = dir.join("managed_histogram.ron");
    std::fs::write(&path, spec).expect("write spec");
    let run = |gpu: &str| {
        let o = Command::new(env!("CARGO_BIN_EXE_hipscope")).arg("run").arg(&path).args(["--mode", "timing", "--gpu", gpu]).output().expect("run hipscope");
        assert!(o.status.success(), "{gpu}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    let nano = run("r9nano");
    let mi300x = run("mi300x");
    let _ = std::fs::remove_dir_all(&dir);
    println!("{nano}\n{mi300x}");
    assert!(nano.contains("warning: dispatch 0:") && nano.contains("not atomic on r9nano") && nano.contains("concurrentManagedAccess = false"), "{nano}");
    assert!(!mi300x.contains("not atomic"), "{mi300x}");
}

/// Without `--out` the suite writes nothing (it used to rewrite the tracked `reports/`); with
/// it, the report and one plot per GPU, and it says where.
#[test]
fn the_report_is_written_only_when_asked() {
    let dir = std::env::temp_dir().join(format!("hipscope-scopes-out-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let o = Command::new(env!("CARGO_BIN_EXE_hipscope")).current_dir(&dir).args(["scopes", "--gpu", "r9nano", "--csv"]).output().expect("run hipscope");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(99), 0, "nothing written without --out");
    let o = Command::new(env!("CARGO_BIN_EXE_hipscope"))
        .current_dir(&dir)
        .args(["scopes", "--gpu", "r9nano", "--csv", "--out", "r"])
        .output()
        .expect("run hipscope");
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success() && err.contains("wrote r/scopes.md, r/scopes-r9nano.svg"), "{err}");
    assert!(dir.join("r/scopes.md").is_file() && dir.join("r/scopes-r9nano.svg").is_file());
    let _ = std::fs::remove_dir_all(&dir);
}
