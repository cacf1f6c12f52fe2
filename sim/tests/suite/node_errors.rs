//! Bad node files: each is one error line naming the file and the field, never a panic.

use hipscope_sim::node::{Node, NodeError};

/// Built-in node `name`'s text with `from` replaced by `to` (which must occur).
fn edited(name: &str, from: &str, to: &str) -> String {
    let path = format!("{}/../configs/nodes/{name}.ron", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert!(text.contains(from), "{name} has no '{from}'");
    text.replacen(from, to, 1)
}

fn error(text: &str) -> String {
    match Node::from_ron(text, "bad.ron", None) {
        Ok(n) => panic!("accepted a bad node: {n:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_nodes_are_one_line_errors_naming_the_field() {
    let cases = [
        // An unknown GPU.
        ("rx7900xtx-pcie", "gpus: [\"rx7900xtx\"]", "gpus: [\"rx7900xtz\"]", "gpus[0]: unknown GPU 'rx7900xtz'"),
        ("rx7900xtx-pcie", "gpus: [\"rx7900xtx\"]", "gpus: []", "gpus: the list is empty"),
        // A link to itself, one out of range, one given twice.
        ("mi300a-4", "(0, 1), (0, 2)", "(0, 0), (0, 2)", "peer_links[0].pairs: (0, 0) links gpu 0 to itself"),
        ("mi300a-4", "(0, 1), (0, 2)", "(0, 4), (0, 2)", "peer_links[0].pairs: gpu 4 does not exist (the node has 4 GPUs: 0..4)"),
        ("mi300a-4", "(0, 1), (0, 2)", "(0, 1), (1, 0)", "peer_links[0].pairs: (1, 0) is linked twice"),
        ("mi300a-4", "gpus: [0, 1, 2, 3],", "gpus: [0, 1, 2, 3, 4],", "host_links[0].gpus: gpu 4 does not exist"),
        ("mi300a-4", "gpus: [0, 1, 2, 3],", "gpus: [0, 1, 2, 2],", "host_links[0].gpus: gpu 2 already has a host link"),
        ("mi300a-4", "gpus: [0, 1, 2, 3],", "gpus: [0, 1, 2],", "host_links: gpu 3 (mi300a) has no host link"),
        ("mi300a-4", "gpus: [0, 1, 2, 3],", "gpus: [],", "host_links[0].gpus: the list is empty"),
        // Zero, negative and non-finite figures.
        ("mi300x-8", "bandwidth_bytes_per_ns: 48.0", "bandwidth_bytes_per_ns: 0.0", "peer_links[0].link.bandwidth_bytes_per_ns: 0 is not positive"),
        ("mi300x-8", "bandwidth_bytes_per_ns: 48.0", "bandwidth_bytes_per_ns: -48.0", "peer_links[0].link.bandwidth_bytes_per_ns: -48 is not positive"),
        ("mi300x-8", "bandwidth_bytes_per_ns: 48.0", "bandwidth_bytes_per_ns: inf", "peer_links[0].link.bandwidth_bytes_per_ns: inf is not a finite number"),
        ("mi300x-8", "bandwidth_bytes_per_ns: 48.0", "bandwidth_bytes_per_ns: NaN", "peer_links[0].link.bandwidth_bytes_per_ns: NaN is not a finite number"),
        ("mi300x-8", "bandwidth_bytes_per_ns: 48.0", "bandwidth_bytes_per_ns: 1e12", "is more than 100000 bytes/ns"),
        ("rx7900xtx-pcie", " latency_ns: 285.0", " latency_ns: 0.0", "host_links[0].link.latency_ns: 0 is not positive"),
        ("rx7900xtx-pcie", "memory_latency_ns: ", "memory_latency_ns: -1.0, // ", "host.memory_latency_ns: -1 is not positive"),
        ("rx7900xtx-pcie", "cores: 16,", "cores: 0,", "host.cores: 0"),
        (
            "rx7900xtx-pcie",
            "carries:",
            "reverse: Some((latency_ns: 1.0, bandwidth_bytes_per_ns: 0.0)), carries:",
            "host_links[0].link.reverse.bandwidth_bytes_per_ns: 0 is not positive",
        ),
        // Unknown fields and malformed text are parse errors at a line and column.
        ("rx7900xtx-pcie", "cores: 16,", "cores: 16, threads: 32,", "Unexpected field named `threads`"),
        (
            "rx7900xtx-pcie",
            "kind: Pcie(gen: 4, lanes: 16)",
            "kind: Nvlink",
            "Unexpected variant named `Nvlink` in enum `LinkKind`, expected one of `Pcie`, `Xgmi`, or `SharedMemory`",
        ),
    ];
    let many = format!("gpus: [{}]", vec!["\"rx7900xtx\""; 65].join(", "));
    let too_many = edited("rx7900xtx-pcie", "gpus: [\"rx7900xtx\"]", &many);
    assert!(error(&too_many).starts_with("bad.ron: gpus: 65 GPUs is more than 64"), "{}", error(&too_many));
    for (node, from, to, want) in cases {
        let e = error(&edited(node, from, to));
        assert!(e.starts_with("bad.ron") && e.contains(want), "{node} with '{to}': got '{e}', want '{want}'");
        assert!(!e.contains('\n'), "one line: {e}");
    }
}

#[test]
fn files_load_by_path_with_gpu_configs_beside_them() {
    let dir = std::env::temp_dir().join(format!("hipscope-node-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // A GPU config file named relative to the node file.
    let gpu = std::fs::read_to_string(format!("{}/../configs/rx7900xtx.ron", env!("CARGO_MANIFEST_DIR"))).expect("gpu config");
    std::fs::write(dir.join("mygpu.ron"), gpu.replacen("name: \"rx7900xtx\"", "name: \"mygpu\"", 1)).expect("write");
    let file = dir.join("desk.ron");
    std::fs::write(&file, edited("rx7900xtx-pcie", "gpus: [\"rx7900xtx\"]", "gpus: [\"mygpu.ron\"]")).expect("write");
    let path = file.to_string_lossy().into_owned();
    let n = Node::load(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(n.gpus[0].name, "mygpu");
    assert_eq!(n.config.origin, path);
    // A bad GPU config inside is named by its own file.
    std::fs::write(dir.join("mygpu.ron"), "Gpu(name: 1)").expect("write");
    let e = Node::load(&path).map(|_| ()).unwrap_err().to_string();
    assert!(e.starts_with(&format!("{path}: gpus[0]: ")) && e.contains("mygpu.ron:1:"), "{e}");
    assert!(matches!(Node::load("no-such-node"), Err(NodeError::Unknown(_))));
    let missing = dir.join("missing.ron").to_string_lossy().into_owned();
    assert!(matches!(Node::load(&missing), Err(NodeError::Read(..))));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every truncation of a built-in node file, and every one with a digit in place of a
/// character, is an error (or, by chance, a node), never a panic.
#[test]
fn mangled_files_never_panic() {
    let path = format!("{}/../configs/nodes/mi300a-4.ron", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let cuts: Vec<usize> = (0..text.len()).filter(|&i| text.is_char_boundary(i)).step_by(7).collect();
    for &at in &cuts {
        let _ = Node::from_ron(&text[..at], "cut.ron", None);
        let swapped = format!("{}9{}", &text[..at], text[at..].chars().skip(1).collect::<String>());
        if let Err(e) = Node::from_ron(&swapped, "swapped.ron", None) {
            assert!(!e.to_string().contains('\n'), "one line: {e}");
        }
    }
}
