//! Every numeric field of every built-in GPU and node config names where it comes from: its
//! comment opens with a provenance class (configs/README.md, "Provenance markers"), which
//! `hipscope gpus --fidelity` reports.

use hipscope_sim::gpus::provenance::{marker, scan, Provenance};
use hipscope_sim::gpus::{builtin_texts, GpuConfig};
use hipscope_sim::node::Node;

fn all_texts() -> Vec<(String, &'static str)> {
    let gpus = builtin_texts().iter().map(|(n, t)| (format!("configs/{n}.ron"), *t));
    let nodes = Node::builtin_texts().iter().map(|(n, t)| (format!("configs/nodes/{n}.ron"), *t));
    gpus.chain(nodes).collect()
}

#[test]
fn every_numeric_field_of_every_builtin_config_carries_a_marker() {
    let mut missing = Vec::new();
    for (file, text) in all_texts() {
        for f in scan(text) {
            if f.class.is_none() {
                missing.push(format!("{file}:{}: {} = {} // {}", f.line, f.path, f.value, f.comment));
            }
        }
    }
    assert!(missing.is_empty(), "fields without a provenance marker (measured/cited/doc/peak/assumed/calibrated):\n{}", missing.join("\n"));
}

/// A rate is never a plain documented fact: it is measured, cited, a vendor peak, assumed or
/// calibrated, so that `--fidelity` can tell peaks from sustained figures.
#[test]
fn no_rate_is_classed_as_a_documented_fact() {
    let mut wrong = Vec::new();
    for (file, text) in all_texts() {
        for f in scan(text).into_iter().filter(|f| f.is_rate() && f.class == Some(Provenance::Doc)) {
            wrong.push(format!("{file}:{}: {}", f.line, f.path));
        }
    }
    assert!(wrong.is_empty(), "rates marked doc:\n{}", wrong.join("\n"));
}

/// The scan sees every value serde reads where it matters most: each GPU's DRAM bandwidth, at
/// the path and with the value the parsed config holds.
#[test]
fn the_scan_finds_each_gpus_dram_bandwidth_with_its_parsed_value() {
    for (name, text) in builtin_texts() {
        let cfg = GpuConfig::from_ron(text, name).expect("built-in config parses");
        let dram = cfg.timing.as_ref().map(|t| t.dram.bandwidth_gb_per_s).expect("built-in configs have timing");
        let fields = scan(text);
        let f = fields.iter().find(|f| f.path == "timing.dram.bandwidth_gb_per_s").unwrap_or_else(|| panic!("{name}: no timing.dram.bandwidth_gb_per_s"));
        let v: f64 = f.value.replace('_', "").parse().expect("a number");
        assert_eq!(v, dram as f64, "{name}");
    }
}

#[test]
fn an_unmarked_field_is_reported() {
    let text = "Gpu(\n    timing: Some((\n        dram: (\n            bandwidth_gb_per_s: 960, // 960 GB/s (public spec)\n        ),\n    )),\n)\n";
    let f = scan(text);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].path, "timing.dram.bandwidth_gb_per_s");
    assert_eq!(f[0].class, None);
}

#[test]
fn paths_follow_sections_and_blocks_above_give_markers() {
    let text = "Gpu(\n    name: \"a//b\", wave_size: 64, // doc: ISA\n    timing: Some((\n        dram: (\n            // peak: the data sheet\n            bandwidth_gb_per_s: 960,\n            channels: 16,\n        ),\n        l: (a: 1, b: Some(2)), // assumed: both\n    )),\n    n: 3,\n)\n";
    let f = scan(text);
    let got: Vec<(&str, Option<Provenance>)> = f.iter().map(|f| (f.path.as_str(), f.class)).collect();
    assert_eq!(
        got,
        vec![
            ("wave_size", Some(Provenance::Doc)),
            ("timing.dram.bandwidth_gb_per_s", Some(Provenance::Peak)),
            ("timing.dram.channels", None),
            ("timing.l.a", Some(Provenance::Assumed)),
            ("timing.l.b", Some(Provenance::Assumed)),
            ("n", None),
        ]
    );
    assert!(f[1].is_rate() && !f[2].is_rate());
    assert_eq!(f[4].value, "2");
}

#[test]
fn a_comment_that_does_not_open_with_a_class_has_none() {
    assert_eq!(marker("measured [lat]: 117"), Some(Provenance::Measured));
    assert_eq!(marker("assumed (no public rate): one"), Some(Provenance::Assumed));
    assert_eq!(marker("(public spec) peak"), None);
    assert_eq!(marker("peaked"), None);
}
