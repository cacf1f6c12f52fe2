//! GPU configurations: the built-in GPUs of `configs/*.ron` (embedded in the binary) and user
//! files in the same format.
//!
//! A config names the processor (which code objects run on it), its default wave size and mode
//! (CU/WGP), the HIP device properties a program can query (`hipGetDeviceProperties`) and the
//! timing-model parameters ([`timing`]). Fields added after the first release get
//! `#[serde(default)]`, so older config files keep loading. A config is checked against what
//! the model can build ([`bounds`], and [`footprint`]: the host memory of its caches) before
//! anything is built from it; the modules that build (`memsys`, `timing`) read this one.

pub mod bounds;
pub mod footprint;
pub mod provenance;
pub mod timing;

use hipscope_isa::Processor;
use serde::Deserialize;
use std::path::Path;
pub use timing::Timing;

/// CU or WGP mode (RDNA work-groups run on one CU or on a two-CU work-group processor).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
pub enum Mode {
    CU,
    WGP,
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Mode::CU => "CU",
            Mode::WGP => "WGP",
        })
    }
}

/// HIP device properties (names as in `hipDeviceProp_t`, snake_case).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct HipProperties {
    /// `warpSize`.
    pub warp_size: u32,
    /// `multiProcessorCount`: CUs, or WGPs in WGP mode (ROCm CLR halves the CU count).
    pub multi_processor_count: u32,
    /// `hostNativeAtomicSupported`: the link to the host carries atomics (PCIe AtomicOps).
    pub host_native_atomic_supported: bool,
    /// `pageableMemoryAccess`: the GPU can access pageable host memory coherently.
    pub pageable_memory_access: bool,
    /// `concurrentManagedAccess`: managed memory may be used by host and device at once.
    pub concurrent_managed_access: bool,
    /// `totalGlobalMem`.
    pub total_global_mem_bytes: u64,
    /// `memoryBusWidth`.
    pub memory_bus_width_bits: u32,
    /// `memoryClockRate`.
    pub memory_clock_rate_khz: u32,
    /// `integrated`: an APU whose GPU shares the host's memory.
    #[serde(default)]
    pub integrated: bool,
    /// XNACK (retry of faulting memory accesses) is on: ROCm turns it on only with
    /// `HSA_XNACK=1`, so off unless a config says otherwise. With SRAMECC it decides which of
    /// a library's code-object twins (`gfx90a:xnack+` / `gfx90a:xnack-`) runs, and it shows in
    /// `gcnArchName` (AMDGPUUsage "Target ID"). Ignored on processors without the feature.
    #[serde(default)]
    pub xnack: bool,
    /// SRAMECC (ECC on the GPU's SRAMs) is on, as the board's firmware sets it (on for Instinct
    /// boards: `gcnArchName` `gfx90a:sramecc+:xnack-`). Ignored on processors without it.
    #[serde(default)]
    pub sramecc: bool,
}

impl GpuConfig {
    /// The target id of the simulated GPU in its XNACK/SRAMECC modes (`gfx90a:sramecc+:xnack-`;
    /// a feature the processor lacks is not named).
    pub fn target(&self) -> hipscope_isa::Target {
        use hipscope_isa::target::FeatureSetting;
        let (xnack, sramecc) = self.processor.target_features();
        let mode = |supported: bool, on: bool| match (supported, on) {
            (false, _) => FeatureSetting::Unsupported,
            (true, true) => FeatureSetting::On,
            (true, false) => FeatureSetting::Off,
        };
        hipscope_isa::Target { processor: self.processor, xnack: mode(xnack, self.hip.xnack), sramecc: mode(sramecc, self.hip.sramecc) }
    }
}

/// One GPU configuration, as stored in `configs/<name>.ron`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename = "Gpu", deny_unknown_fields)]
pub struct GpuConfig {
    pub name: String,
    pub marketing_name: String,
    /// LLVM processor name in the file (`"gfx942"`).
    #[serde(with = "processor_name")]
    pub processor: Processor,
    /// Default wave size (32 or 64) of code compiled for this GPU.
    pub wave_size: u32,
    /// Default mode.
    pub mode: Mode,
    /// Physical compute units.
    pub compute_units: u32,
    pub hip: HipProperties,
    /// Timing-model parameters (needed by `--mode timing`; a user config may leave them out
    /// for functional runs).
    #[serde(default)]
    pub timing: Option<Timing>,
    /// Where the config came from (`configs/<name>.ron` or the file given), for errors.
    #[serde(skip)]
    pub origin: String,
}

/// Processors are written by their LLVM name.
mod processor_name {
    use hipscope_isa::Processor;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(p: &Processor, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(p.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Processor, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// The built-in configs, in the order `hipscope gpus` lists them.
const BUILTIN: &[(&str, &str)] = &[
    ("r9nano", include_str!("../../../configs/r9nano.ron")),
    ("vega64", include_str!("../../../configs/vega64.ron")),
    ("mi100", include_str!("../../../configs/mi100.ron")),
    ("mi210", include_str!("../../../configs/mi210.ron")),
    ("mi250x", include_str!("../../../configs/mi250x.ron")),
    ("mi300a", include_str!("../../../configs/mi300a.ron")),
    ("mi300x", include_str!("../../../configs/mi300x.ron")),
    ("mi355x", include_str!("../../../configs/mi355x.ron")),
    ("rx5700xt", include_str!("../../../configs/rx5700xt.ron")),
    ("rx6900xt", include_str!("../../../configs/rx6900xt.ron")),
    ("rx7900xtx", include_str!("../../../configs/rx7900xtx.ron")),
    ("rx9070xt", include_str!("../../../configs/rx9070xt.ron")),
];

/// Why a config could not be loaded. `Display` is one line naming the source.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GpuError {
    #[error("unknown GPU '{0}' (built-in: {list}; or give a config file path)", list = builtin_names().join(", "))]
    Unknown(String),
    #[error("{0}: cannot read: {1}")]
    Read(String, String),
    #[error("{0}:{1}:{2}: {3}")]
    Parse(String, usize, usize, String),
    #[error("{0}: {1}")]
    Invalid(String, String),
}

impl GpuConfig {
    /// Parse and check a config. `origin` names it in errors.
    pub fn from_ron(text: &str, origin: &str) -> Result<GpuConfig, GpuError> {
        let mut cfg: GpuConfig =
            ron::from_str(text).map_err(|e| GpuError::Parse(origin.to_string(), e.span.start.line, e.span.start.col, e.code.to_string()))?;
        cfg.check().map_err(|m| GpuError::Invalid(origin.to_string(), m))?;
        cfg.origin = origin.to_string();
        Ok(cfg)
    }

    /// What a config must satisfy (every config file and every generated config is checked).
    pub fn check(&self) -> Result<(), String> {
        let p = self.processor;
        if self.wave_size != 64 && !(self.wave_size == 32 && p.supports_wave32()) {
            return Err(format!("wave_size: {} is not a wave size of {p} (64{})", self.wave_size, if p.supports_wave32() { " or 32" } else { "" }));
        }
        if self.mode == Mode::WGP && !p.family().is_rdna() {
            return Err(format!("mode: {p} has no WGP mode"));
        }
        let cus = self.compute_units;
        if cus == 0 || cus > bounds::MAX_COMPUTE_UNITS {
            return Err(format!("compute_units: {cus} is not in 1..={}", bounds::MAX_COMPUTE_UNITS));
        }
        // RDNA CUs come in pairs, the work-group processors (AMD RDNA ISA guides, "WGP mode"),
        // and a kernel built for WGP mode runs each work-group on a pair.
        if p.family().is_rdna() && cus % 2 != 0 {
            return Err(format!("compute_units: {cus} is odd; {p} has its CUs in pairs (workgroup processors)"));
        }
        if let Some(t) = &self.timing {
            t.check()?;
            self.check_layout(t)?;
        }
        Ok(())
    }

    /// The XCDs must split the CUs evenly, and the model the timing section describes must fit
    /// in host memory.
    fn check_layout(&self, t: &Timing) -> Result<(), String> {
        let (cus, topo) = (self.compute_units, &t.topology);
        // On RDNA the XCD split is by workgroup processor.
        let unit = if self.processor.family().is_rdna() { 2 } else { 1 };
        if cus % (topo.xcds * unit) != 0 {
            let what = if unit == 2 { "the workgroup processors" } else { "compute_units" };
            return Err(format!("timing.topology.xcds: {} does not divide {what} ({cus} CUs)", topo.xcds));
        }
        // More shader engines or arrays than CUs (a cut-down experiment) is fine: the model
        // builds at most one of each per CU.
        let need = footprint::model_bytes(t, cus);
        let limit = bounds::MAX_MODEL_BYTES.min(host_available_bytes().unwrap_or(u64::MAX));
        if need > limit {
            return Err(format!("timing: the caches of {cus} CUs take {need} bytes of host memory, more than the {limit} available to the model"));
        }
        Ok(())
    }
}

/// Memory the host can still give (`MemAvailable` of /proc/meminfo), where it says.
pub(crate) fn host_available_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// The built-in configs as written (name, RON text), comments included: `gpus --fidelity`
/// reads each value's provenance marker from them ([`provenance`]).
pub fn builtin_texts() -> &'static [(&'static str, &'static str)] {
    BUILTIN
}

/// Names of the built-in GPUs.
pub fn builtin_names() -> Vec<&'static str> {
    BUILTIN.iter().map(|(n, _)| *n).collect()
}

/// Every built-in config (they are checked by the tests, so a broken one is a build bug).
pub fn builtins() -> Vec<GpuConfig> {
    BUILTIN.iter().filter_map(|(n, text)| GpuConfig::from_ron(text, &format!("configs/{n}.ron")).ok()).collect()
}

/// A built-in config by name.
pub fn builtin(name: &str) -> Result<GpuConfig, GpuError> {
    let (n, text) = BUILTIN.iter().find(|(n, _)| *n == name).ok_or_else(|| GpuError::Unknown(name.to_string()))?;
    GpuConfig::from_ron(text, &format!("configs/{n}.ron"))
}

/// `--gpu NAME|FILE`: a built-in name, else a path to a config file.
pub fn resolve(arg: &str) -> Result<GpuConfig, GpuError> {
    if BUILTIN.iter().any(|(n, _)| *n == arg) {
        return builtin(arg);
    }
    let path = Path::new(arg);
    if arg.ends_with(".ron") || path.exists() {
        let text = std::fs::read_to_string(path).map_err(|e| GpuError::Read(arg.to_string(), e.to_string()))?;
        return GpuConfig::from_ron(&text, arg);
    }
    Err(GpuError::Unknown(arg.to_string()))
}

/// The built-in GPUs whose processor is `p`.
pub fn builtins_for(p: Processor) -> Vec<GpuConfig> {
    builtins().into_iter().filter(|g| g.processor == p).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_loads_and_is_consistent() {
        for (name, text) in BUILTIN {
            let cfg = GpuConfig::from_ron(text, name).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(cfg.name, *name);
            assert_eq!(cfg.hip.warp_size, cfg.wave_size, "{name}: HIP warpSize is the default wave size");
            let per_mp = if cfg.mode == Mode::WGP { 2 } else { 1 };
            assert_eq!(cfg.hip.multi_processor_count * per_mp, cfg.compute_units, "{name}");
            let t = cfg.timing.as_ref().unwrap_or_else(|| panic!("{name}: built-in configs carry a timing section"));
            assert_eq!(t.check(), Ok(()), "{name}");
            assert_eq!(cfg.compute_units % t.topology.xcds, 0, "{name}: CUs split evenly over the XCDs");
            // The family's structure: GCN/CDNA 4 x SIMD16 with a GL1-less hierarchy, RDNA 2 x SIMD32.
            if cfg.processor.family().is_rdna() {
                assert_eq!((t.core.simds_per_cu, t.core.simd_lanes), (2, 32), "{name}");
            } else {
                assert_eq!((t.core.simds_per_cu, t.core.simd_lanes), (4, 16), "{name}");
                assert!(t.gl1.is_none(), "{name}: GCN/CDNA have no GL1");
            }
        }
        assert_eq!(builtins().len(), BUILTIN.len());
    }

    /// A built-in config's text with `from` replaced by `to` (which must occur).
    fn edited(name: &str, from: &str, to: &str) -> String {
        let (_, text) = BUILTIN.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("no built-in {name}"));
        assert!(text.contains(from), "{name} has no '{from}'");
        text.replacen(from, to, 1)
    }

    #[test]
    fn configs_the_engine_cannot_run_are_errors_naming_the_field() {
        let cases = [
            // Before these checks: an index past the end in the timing engine (WGP pairs).
            ("rx7900xtx", "compute_units: 96,", "compute_units: 1,", "compute_units: 1 is odd"),
            ("mi300x", "compute_units: 304,", "compute_units: 0,", "compute_units: 0 is not in 1..=1024"),
            ("mi300x", "compute_units: 304,", "compute_units: 3040000,", "compute_units: 3040000 is not in"),
            // Before: `memory allocation of ... bytes failed` (abort).
            ("rx7900xtx", "size_bytes: 32768, ", "size_bytes: 16384000000, ", "timing.vector_l1.size_bytes: 16384000000 is more than"),
            ("rx7900xtx", "banks: 32,", "banks: 32000000,", "timing.lds.banks: 32000000 is more than 64"),
            // 8 L2s of 1 GiB in 128-byte lines (8 M slots of 60 + 128 bytes, a spare row of
            // 40 + 128, a byte for each of 512 Ki sets), 304 vector L1s of 32 KiB (256 slots,
            // 64 sets), 152 scalar caches of 16 KiB (256 slots of 60 + 64, a row of 40 + 64, 64
            // sets) and the tag-only 256 MB MALL (2 M slots of 16 bytes, 128 Ki sets of 9):
            // footprint.rs's layout.
            ("mi300x", "size_bytes: 4194304,", "size_bytes: 1073741824,", "take 12674948224 bytes of host memory, more than the"),
            // Line masks are u128.
            ("rx7900xtx", "line_bytes: 128,", "line_bytes: 256,", "timing.vector_l1.line_bytes: 256 is more than 128"),
            ("mi210", "line_bytes: 64,", "line_bytes: 48,", "timing.vector_l1.line_bytes: 48 is not a power of two"),
            ("rx6900xt", "xcds: 1,", "xcds: 3,", "timing.topology.xcds: 3 does not divide the workgroup processors"),
            ("mi300x", "shader_arrays_per_engine: 1,", "shader_arrays_per_engine: 17,", "timing.topology.shader_arrays_per_engine: 17 is more than 16"),
            ("mi210", "max_waves_per_simd: 8,", "max_waves_per_simd: 0,", "timing.core.max_waves_per_simd: 0 is less than 1"),
            ("mi210", "simds_per_cu: 4,", "simds_per_cu: 40,", "timing.core.simds_per_cu: 40 is more than 4"),
            ("mi210", "latency_cycles: 335,", "latency_cycles: 4000000000,", "timing.dram.latency_cycles: 4000000000 is more than"),
            ("mi210", "channels: 32,", "channels: 0,", "timing.l2.channels: 0 is less than 1"),
        ];
        for (gpu, from, to, want) in cases {
            let e = GpuConfig::from_ron(&edited(gpu, from, to), "bad.ron").map(|_| ()).unwrap_err().to_string();
            assert!(e.starts_with("bad.ron: ") && e.contains(want), "{gpu} with {to}: got '{e}', want '{want}'");
        }
    }

    /// MI355X against the ROCm docs' "GPU hardware specifications" row (gfx950: 256 CUs, 32 per
    /// XCD, LDS 160 KiB, L2 4 MiB per XCD, L3 256 MiB, L1 vector 32 KiB, scalar 16 KiB per 2
    /// CUs) and AMD's MI355X data sheet (288 GB HBM3E, 8192-bit, 2400 MHz peak engine clock).
    #[test]
    fn mi355x_has_the_published_cdna4_figures() {
        let g = resolve("mi355x").unwrap_or_else(|e| panic!("{e}"));
        let t = g.timing.as_ref().expect("timing section");
        assert_eq!((g.processor, g.wave_size, g.compute_units, t.topology.xcds), (Processor::Gfx950, 64, 256, 8));
        assert_eq!((t.lds.size_bytes, t.l2.size_bytes, t.vector_l1.size_bytes), (160 << 10, 4 << 20, 32 << 10));
        assert_eq!((t.scalar_cache.size_bytes, t.topology.cus_per_scalar_cache), (16 << 10, 2));
        assert_eq!(t.mall.as_ref().map(|m| m.size_bytes), Some(256 << 20));
        assert_eq!((g.hip.total_global_mem_bytes, g.hip.memory_bus_width_bits, t.clock_mhz), (288 << 30, 8192, 2400));
    }

    /// The GPUs of the published litmus campaigns against AMD's product pages and white papers:
    /// RX Vega 64 (gfx900: 64 CUs in 4 shader engines, wave64 only, 16 KiB L1 and 64 KiB LDS
    /// per CU, 4 MB L2 in 16 channels, 8 GB HBM2 on 2048 bits at 483.8 GB/s, 1546 MHz boost)
    /// and RX 5700 XT (gfx1010: 40 CUs = 20 WGPs in 2 shader engines of 2 arrays, 16 KiB L0 per
    /// CU, 128 KiB GL1 per array, 4 MB L2 in 16 channels, no Infinity Cache, 8 GB GDDR6 on 256
    /// bits at 448 GB/s, 1905 MHz boost).
    #[test]
    fn litmus_campaign_gpus_have_the_published_figures() {
        let g = resolve("vega64").unwrap_or_else(|e| panic!("{e}"));
        let t = g.timing.as_ref().expect("timing section");
        assert_eq!((g.processor, g.wave_size, g.mode, g.compute_units), (Processor::Gfx900, 64, Mode::CU, 64));
        assert_eq!((t.topology.shader_engines, t.vector_l1.size_bytes, t.lds.size_bytes), (4, 16 << 10, 64 << 10));
        assert_eq!((t.l2.size_bytes, t.l2.channels, t.gl1.is_none(), t.mall.is_none()), (4 << 20, 16, true, true));
        assert_eq!((g.hip.total_global_mem_bytes, g.hip.memory_bus_width_bits, t.dram.bandwidth_gb_per_s, t.clock_mhz), (8 << 30, 2048, 484, 1546));
        let g = resolve("rx5700xt").unwrap_or_else(|e| panic!("{e}"));
        let t = g.timing.as_ref().expect("timing section");
        assert_eq!((g.processor, g.compute_units, g.hip.multi_processor_count), (Processor::Gfx1010, 40, 20));
        assert_eq!((t.topology.shader_engines, t.topology.shader_arrays_per_engine, t.vector_l1.size_bytes), (2, 2, 16 << 10));
        assert_eq!(t.gl1.as_ref().map(|c| c.size_bytes), Some(128 << 10));
        assert_eq!((t.l2.size_bytes, t.l2.channels, t.mall.is_none()), (4 << 20, 16, true));
        assert_eq!((g.hip.total_global_mem_bytes, g.hip.memory_bus_width_bits, t.dram.bandwidth_gb_per_s, t.clock_mhz), (8 << 30, 256, 448, 1905));
    }

    #[test]
    fn resolve_names_files_and_errors() {
        assert_eq!(resolve("mi300x").map(|g| g.processor), Ok(Processor::Gfx942));
        assert!(matches!(resolve("nosuchgpu"), Err(GpuError::Unknown(_))));
        let dir = std::env::temp_dir().join(format!("hipscope-gpus-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bad = dir.join("bad.ron");
        std::fs::write(&bad, BUILTIN[0].1.replace("wave_size: 64", "wave_size: 32")).unwrap();
        let e = resolve(bad.to_str().unwrap()).unwrap_err().to_string();
        assert!(e.contains("wave_size: 32 is not a wave size of gfx803"), "{e}");
        std::fs::write(&bad, "Gpu(name: 1)").unwrap();
        let e = resolve(bad.to_str().unwrap()).unwrap_err().to_string();
        assert!(e.contains("bad.ron:1:"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
