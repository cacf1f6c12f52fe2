//! Choosing among several code objects for one processor: the GPU's default wave size and mode
//! decide, `--code-object` overrides, ties are errors (no launch happens here).

use hipscope_sim::spec::{self, RunOptions, Session};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = root().join("target/spec-select-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// A vadd spec listing the given gfx1100 configs (absolute paths).
fn spec_with(keys: &[(&str, &str)]) -> PathBuf {
    let entries: Vec<String> =
        keys.iter().map(|(k, cfg)| format!("\"{k}\": \"{}\"", root().join("workloads/bin").join(cfg).join("vadd.co").display())).collect();
    let text = format!(
        "Run(code_objects: {{{}}}, buffers: {{\"a\": (bytes: 256)}}, dispatches: [(kernel: \"vadd\", grid: (64, 1, 1), block: (64, 1, 1), args: [Buffer(\"a\"), Buffer(\"a\"), Buffer(\"a\"), U32(64)])])",
        entries.join(", ")
    );
    scratch(&format!("{}.ron", keys.iter().map(|(k, _)| *k).collect::<Vec<_>>().join("+")), &text)
}

/// A GPU config: the RX 7900 XTX with another default wave size / mode.
fn gpu_file(wave: u32, mode: &str) -> String {
    let text = std::fs::read_to_string(root().join("configs/rx7900xtx.ron")).unwrap();
    let text = text.replace("wave_size: 32,", &format!("wave_size: {wave},")).replace("mode: WGP,", &format!("mode: {mode},"));
    scratch(&format!("rdna3-w{wave}-{mode}.ron"), &text).display().to_string()
}

fn chosen(spec_path: &Path, gpu: &str, forced: Option<&str>) -> Result<String, String> {
    let s = spec::load(spec_path).map_err(|e| e.to_string())?;
    let opts = RunOptions {
        gpu: Some(gpu.to_string()),
        code_object: forced.map(str::to_string),
        seed: 0,
        mode: hipscope_sim::Mode::Functional,
        ..RunOptions::default()
    };
    Session::new(&s, spec_path, &opts).map(|s| s.key).map_err(|e| e.to_string())
}

#[test]
fn the_gpu_default_wave_size_and_mode_pick_the_object() {
    let all = [("w32wgp", "gfx1100-w32-wgp"), ("w32cu", "gfx1100-w32-cu"), ("w64wgp", "gfx1100-w64-wgp"), ("w64cu", "gfx1100-w64-cu")];
    let p = spec_with(&all);
    assert_eq!(chosen(&p, "rx7900xtx", None).unwrap(), "w32wgp");
    assert_eq!(chosen(&p, &gpu_file(32, "CU"), None).unwrap(), "w32cu");
    assert_eq!(chosen(&p, &gpu_file(64, "WGP"), None).unwrap(), "w64wgp");
    assert_eq!(chosen(&p, &gpu_file(64, "CU"), None).unwrap(), "w64cu");
    assert_eq!(chosen(&p, "rx7900xtx", Some("w64cu")).unwrap(), "w64cu");
    // Without an exact match the wave size counts more than the mode.
    let p = spec_with(&[("w32cu", "gfx1100-w32-cu"), ("w64wgp", "gfx1100-w64-wgp")]);
    assert_eq!(chosen(&p, &gpu_file(64, "CU"), None).unwrap(), "w64wgp");
}

#[test]
fn ties_and_mismatches_are_errors() {
    let p = spec_with(&[("one", "gfx1100-w32-wgp"), ("two", "gfx1100-w32-wgp")]);
    let e = chosen(&p, "rx7900xtx", None).unwrap_err();
    assert!(e.contains("code objects one, two fit rx7900xtx (wave32, WGP mode) equally: pass --code-object"), "{e}");
    let p = spec_with(&[("w32wgp", "gfx1100-w32-wgp"), ("gfx942", "gfx942")]);
    let e = chosen(&p, "rx7900xtx", Some("gfx942")).unwrap_err();
    assert!(e.contains("--code-object gfx942 is for gfx942, GPU rx7900xtx is gfx1100"), "{e}");
    let e = chosen(&p, "rx6900xt", None).unwrap_err();
    assert!(e.contains("no code object for rx6900xt (gfx1030)"), "{e}");
}
