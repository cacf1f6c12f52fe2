//! Programs built as current ROCm builds them run under `hipscope exec`: our HIP test programs
//! compiled with clang-22 against ROCm 6.4's and 7.2's headers, with compressed offload
//! bundles, linked against `libamdhip64.so.6` / `.so.7` (workloads/hip/build-rocm.sh; the
//! binaries are committed). Each checks its results against the CPU and prints PASS; the
//! device-properties program reads HIP 6's `hipDeviceProp_tR0600` layout.
//!
//! And the runtime under each release's soname carries exactly that release's symbol
//! versions: compared, with binutils' readelf, with what the real libamdhip64 5.2, 6.4 and
//! 7.2 export (tools/hip-abi/exports, read off Debian's libraries).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

const PROGRAMS: &[&str] = &[
    "memset_vadd",
    "device_props",
    "struct_shared",
    "streams_events",
    "constant_symbols",
    "device_counter",
    "managed_host",
    "module_launch",
    "bad_calls",
    "memcpy3d",
    "textures",
    "graphs",
    "host_threads",
    "host_funcs",
];

/// Built with `-fgpu-default-stream=per-thread`: they call the `*_spt` entry points
/// (`hipLaunchKernel_spt@hip_5.2`, `hipMemsetAsync_spt@hip_5.3`, ...).
const PER_THREAD: &[&str] = &["host_threads_spt", "streams_events_spt", "graphs_spt"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn exec(gpu: &str, mode: &str, program: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hipscope")).args(["exec", "--gpu", gpu, "--mode", mode, "--"]).arg(program).output().expect("hipscope runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn check(release: &str, gpus: &[&str], mode: &str, programs: &[&str]) {
    for p in programs {
        let path = root().join(format!("workloads/hip/bin-rocm{release}")).join(p);
        for gpu in gpus {
            let (code, out, err) = exec(gpu, mode, &path);
            assert_eq!(code, 0, "ROCm {release} build of {p} on {gpu} ({mode}):\n{out}\n{err}");
            let name = p.strip_suffix("_spt").unwrap_or(p);
            assert!(out.contains(&format!("PASS {name}")), "ROCm {release} build of {p} on {gpu} ({mode}):\n{out}\n{err}");
            let unsupported = err.lines().find(|l| l.ends_with("is not supported") && !l.contains("hipIpcGetMemHandle") && !l.contains("gfx94x"));
            assert!(unsupported.is_none(), "ROCm {release} build of {p} on {gpu} ({mode}): {unsupported:?}\n{err}");
        }
    }
}

#[test]
fn rocm_6_4_builds_pass_in_both_modes() {
    // 6.4's headers pair with clang-21; with clang-22 they build wave64 targets only.
    check("6.4", &["mi210", "mi300x"], "functional", PROGRAMS);
    check("6.4", &["mi210"], "timing", &["memset_vadd", "device_props", "streams_events"]);
    check("6.4", &["mi210"], "functional", PER_THREAD);
}

#[test]
fn rocm_7_2_builds_pass_in_both_modes() {
    check("7.2", &["mi210", "mi300x", "rx7900xtx"], "functional", PROGRAMS);
    // MI355X (gfx950) has no image instructions: ROCm answers hipErrorNotSupported to textures
    // there, as on gfx94x, which textures.cpp checks.
    check("7.2", &["mi355x"], "functional", PROGRAMS);
    check("7.2", &["mi355x"], "timing", &["memset_vadd", "device_props", "streams_events"]);
    check("7.2", &["rx7900xtx"], "timing", &["memset_vadd", "device_props", "streams_events"]);
    check("7.2", &["mi210", "rx7900xtx"], "functional", PER_THREAD);
    check("7.2", &["mi210"], "timing", PER_THREAD);
}

/// `readelf -V -W --dyn-syms` of `lib`: (its version definitions in order, defined
/// `hip*`/`__hip*` functions → their default version).
fn versions_of(lib: &Path) -> Option<(Vec<String>, BTreeMap<String, String>)> {
    let out = Command::new("readelf").args(["-V", "-W", "--dyn-syms"]).arg(lib).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let nodes =
        text.lines().filter(|l| l.contains("Flags: none") && l.contains("Name: hip_")).filter_map(|l| l.rsplit("Name: ").next()).map(str::to_string).collect();
    let mut syms = BTreeMap::new();
    for l in text.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() >= 8 && f[3] == "FUNC" && f[6] != "UND" && (f[7].starts_with("hip") || f[7].starts_with("__hip")) {
            let (name, version) = f[7].split_once("@@").unwrap_or((f[7], "(unversioned)"));
            syms.insert(name.to_string(), version.to_string());
        }
    }
    Some((nodes, syms))
}

/// The copies `hipscope exec` made (it makes them at its first run of a build).
fn release_copy(major: u32) -> PathBuf {
    let (code, out, err) = exec("mi210", "functional", &root().join("workloads/hip/bin/memset_vadd"));
    assert_eq!(code, 0, "{out}\n{err}");
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_hipscope"));
    let dir = exe.parent().expect("target directory");
    [dir.join("hipscope-abi"), dir.join("deps/hipscope-abi")]
        .into_iter()
        .map(|d| d.join(format!("libamdhip64.so.{major}")))
        .filter(|p| p.is_file())
        .max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .expect("hipscope exec leaves the release copies beside its runtime")
}

#[test]
fn each_soname_carries_its_release_symbol_versions() {
    if Command::new("readelf").arg("--version").output().is_err() {
        println!("SKIPPED: each_soname_carries_its_release_symbol_versions: binutils' readelf is not installed");
        return;
    }
    for major in [5u32, 6, 7] {
        let real = std::fs::read_to_string(root().join(format!("tools/hip-abi/exports/libamdhip64.so.{major}.txt"))).expect("committed export list");
        let real: BTreeMap<&str, &str> = real.lines().filter_map(|l| l.split_once('\t')).collect();
        let real_nodes: BTreeSet<&str> = real.values().copied().collect();
        let (nodes, ours) = versions_of(&release_copy(major)).expect("readelf runs");
        let nodes: BTreeSet<&str> = nodes.iter().map(String::as_str).collect();
        assert_eq!(nodes, real_nodes, "libamdhip64.so.{major}: version nodes");
        let mut checked = 0;
        for (name, version) in &ours {
            if let Some(want) = real.get(name.as_str()) {
                assert_eq!(version, want, "libamdhip64.so.{major}: {name}");
                checked += 1;
            }
        }
        // Every function we serve that the release exports is versioned as it is there.
        let served = ours.keys().filter(|n| real.contains_key(n.as_str())).count();
        assert_eq!(checked, served);
        assert!(checked > 150, "libamdhip64.so.{major}: only {checked} functions compared");
        let soname = Command::new("readelf").arg("-d").arg(release_copy(major)).output().expect("readelf runs");
        assert!(String::from_utf8_lossy(&soname.stdout).contains(&format!("[libamdhip64.so.{major}]")));
    }
}

/// ROCm 6 and 7 go on without a code object for the GPU (ROCm 5 aborts at start): the
/// 6.4 builds carry gfx90a and gfx942 only, so on rx7900xtx the launch fails with
/// hipErrorNoBinaryForGpu (209), which the program reports, and hipscope says why once.
#[test]
fn rocm_6_4_build_without_code_for_the_gpu_fails_its_launches() {
    let path = root().join("workloads/hip/bin-rocm6.4/memset_vadd");
    let (code, out, err) = exec("rx7900xtx", "functional", &path);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(err.contains("hipGetLastError() returned 209"), "{err}");
    assert_eq!(err.matches("hipscope: memset_vadd has no code object for gfx1100; it has: gfx90a, gfx942").count(), 1, "{err}");
    assert!(!err.contains("Unable to find code object for all current devices"), "{err}");
}
