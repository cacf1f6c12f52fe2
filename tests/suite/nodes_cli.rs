//! `hipscope nodes`: the built-in nodes one line each, one node in full, and a bad node file as
//! one error line naming the file and the field, exit 2.

use crate::cli;

use cli::{code, hipscope, root, stderr};
use std::path::PathBuf;

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Built-in node `node` under target/ as `file`, with `from` replaced by `to`.
fn node_file(node: &str, file: &str, from: &str, to: &str) -> PathBuf {
    let text = std::fs::read_to_string(root().join(format!("configs/nodes/{node}.ron"))).expect("built-in node");
    assert!(text.contains(from), "{node} has no '{from}'");
    let dir = root().join("target/nodes-cli-tests");
    std::fs::create_dir_all(&dir).expect("test dir");
    let path = dir.join(file);
    std::fs::write(&path, text.replacen(from, to, 1)).expect("write node");
    path
}

#[test]
fn lists_every_built_in_node_on_one_line() {
    let o = hipscope(&["nodes"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    for (name, gpus) in [("mi300x-8", "8"), ("mi300a-4", "4"), ("rx7900xtx-pcie", "1")] {
        let line = out.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("no {name} line in\n{out}"));
        assert_eq!(line.split_whitespace().nth(1), Some(gpus), "{line}");
    }
    let json: serde_json::Value = serde_json::from_slice(&hipscope(&["nodes", "--json"]).stdout).expect("JSON");
    assert_eq!(json.as_array().map(Vec::len), Some(3));
}

#[test]
fn shows_one_node_with_its_agents_and_links() {
    let o = hipscope(&["nodes", "mi300x-8"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    // The host, 8 GPUs; 8 host links and 28 GPU pairs, each link once (CDNA 3 white paper:
    // 7 xGMI links per MI300X, fully connected, one PCIe gen5 x16 each to the host).
    assert!(out.contains("host   2x AMD EPYC"), "{out}");
    assert_eq!(out.lines().filter(|l| l.trim_start().starts_with("gpu ") && l.contains("mi300x (")).count(), 8, "{out}");
    assert_eq!(out.lines().filter(|l| l.starts_with("  host   - gpu ") && l.contains("PCIe gen5 x16")).count(), 8, "{out}");
    assert_eq!(out.lines().filter(|l| l.contains(" xGMI ")).count(), 28, "{out}");
    assert!(out.contains("carries copies, loads/stores, atomics"), "{out}");
    let apu = stdout(&hipscope(&["nodes", "mi300a-4"]));
    assert!(apu.contains("shared memory") && apu.contains("(gpu 0 to host: 15990 ns"), "{apu}");
}

#[test]
fn bad_nodes_exit_2_with_one_line_naming_file_and_field() {
    let cases = [
        (node_file("rx7900xtx-pcie", "unknown-gpu.ron", "\"rx7900xtx\"]", "\"rx7900xtz\"]"), "gpus[0]: unknown GPU 'rx7900xtz'"),
        (node_file("mi300a-4", "self-link.ron", "(0, 1), (0, 2)", "(1, 1), (0, 2)"), "peer_links[0].pairs: (1, 1) links gpu 1 to itself"),
        (
            node_file("mi300x-8", "zero-bandwidth.ron", "bandwidth_bytes_per_ns: 48.0", "bandwidth_bytes_per_ns: 0.0"),
            "peer_links[0].link.bandwidth_bytes_per_ns: 0 is not positive",
        ),
        (node_file("mi300x-8", "unknown-field.ron", "cores: 64,", "cores: 64, sockets: 2,"), "Unexpected field named `sockets`"),
    ];
    for (file, want) in cases {
        let path = file.to_string_lossy().into_owned();
        let o = hipscope(&["nodes", &path]);
        let e = stderr(&o);
        assert_eq!(code(&o), 2, "{path}: {e}");
        assert_eq!(e.trim().lines().count(), 1, "{e}");
        assert!(e.contains(&path) && e.contains(want), "{path}: got '{e}', want '{want}'");
    }
    let o = hipscope(&["nodes", "no-such-node"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("unknown node 'no-such-node' (built-in: mi300x-8, mi300a-4, rx7900xtx-pcie"), "{}", stderr(&o));
}
