//! Timing-model parameters of a GPU (the `timing` section of `configs/*.ron`).
//!
//! Cycles are shader-clock cycles; every field name carries its unit. Each built-in config
//! cites a source for every number in a comment, or says "calibrated" and against which
//! measurement. The memory-system fields describe the hierarchy the hardware has: vector L1
//! (CDNA vL1D / RDNA GL0) per CU, an optional GL1 per shader array (RDNA), L2 per XCD (one
//! XCD except on MI300), an optional memory-side MALL (Infinity Cache), and DRAM.

use super::bounds as b;
use serde::{Deserialize, Serialize};

/// The `timing` section.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Timing {
    /// Shader (engine) clock the cycle counts refer to.
    pub clock_mhz: u32,
    pub topology: Topology,
    pub core: Core,
    pub lds: Lds,
    /// Vector L1 per CU: CDNA/GCN vL1D (TCP), RDNA GL0.
    pub vector_l1: VectorL1,
    /// Scalar data cache (K$), shared by `topology.cus_per_scalar_cache` CUs.
    pub scalar_cache: Cache,
    /// RDNA graphics L1, one per shader array.
    #[serde(default)]
    pub gl1: Option<Cache>,
    pub l2: L2,
    /// Memory-attached last-level cache (Infinity Cache), memory-side: coherent with DRAM.
    #[serde(default)]
    pub mall: Option<Mall>,
    pub dram: Dram,
    pub dispatch: Dispatch,
    /// What the HIP runtime's copies and fills cost (`hipMemcpy`, `hipMemset`). Optional:
    /// without it they take no simulated time.
    #[serde(default)]
    pub copy_engine: Option<CopyEngine>,
}

/// How the compute units are grouped.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Topology {
    /// Chiplets with their own L2 (MI300X 8, MI300A 6; 1 elsewhere). CUs are split evenly.
    pub xcds: u32,
    /// Shader engines in the whole GPU (work-groups are spread over them round-robin).
    pub shader_engines: u32,
    /// Shader arrays per shader engine (RDNA: one GL1 each).
    pub shader_arrays_per_engine: u32,
    /// CUs sharing one scalar cache (and instruction cache).
    pub cus_per_scalar_cache: u32,
}

/// One compute unit's pipelines and occupancy limits.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Core {
    /// SIMDs per CU (GCN/CDNA 4 × SIMD16, RDNA 2 × SIMD32).
    pub simds_per_cu: u32,
    /// Lanes per SIMD: a wave's VALU op takes `wave_size / simd_lanes` passes.
    pub simd_lanes: u32,
    /// Wave slots per SIMD.
    pub max_waves_per_simd: u32,
    /// VGPRs per lane of one SIMD (arch + acc VGPRs where they share a file).
    pub vgprs_per_simd: u32,
    /// SGPRs per SIMD.
    pub sgprs_per_simd: u32,
    /// Work-groups resident per CU at most.
    pub max_workgroups_per_cu: u32,
    /// Cycles between two instructions of one wave at best (GCN: a SIMD gets an issue slot
    /// every 4 cycles).
    pub wave_issue_interval_cycles: u32,
    /// Extra cycles before a VALU op may use the result of the previous VALU op (RDNA; 0 where
    /// the issue cadence hides it).
    pub valu_dependency_cycles: u32,
    /// Passes multiplier of f64 VALU ops (1 full rate, 2 half rate, 16 for 1/16 rate).
    pub f64_rate_divisor: u32,
    /// Passes multiplier of transcendental VALU ops.
    pub transcendental_rate_divisor: u32,
    /// Latency of a scalar ALU result.
    pub salu_latency_cycles: u32,
    /// Cycles lost on a taken branch (instruction fetch restart).
    pub branch_taken_cycles: u32,
    /// Cycles from a work-group's admission to its waves' first issue.
    pub wave_launch_cycles: u32,
}

/// Local data share.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Lds {
    /// LDS per CU (CU mode) available to work-groups.
    pub size_bytes: u32,
    pub banks: u32,
    pub bank_width_bytes: u32,
    /// Bytes the LDS moves per cycle at most between its banks and the SIMDs: an instruction
    /// keeps it busy for at least its lanes' bytes over this, whatever its bank conflicts.
    pub bandwidth_bytes_per_cycle: u32,
    /// Issue to data return of a conflict-free access.
    pub latency_cycles: u32,
}

/// A plain set-associative cache.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Cache {
    pub size_bytes: u64,
    pub line_bytes: u32,
    pub ways: u32,
    /// Added latency of a hit at this level.
    pub hit_latency_cycles: u32,
}

/// The vector L1 and the address/data path in front of it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct VectorL1 {
    pub size_bytes: u64,
    pub line_bytes: u32,
    pub ways: u32,
    /// Issue to data return of an L1 hit.
    pub hit_latency_cycles: u32,
    /// Lanes the address unit processes per pass (one dword of each).
    pub lanes_per_pass: u32,
    /// Granule of one tag access (`TCP_TOTAL_CACHE_ACCESSES` counts these per pass).
    pub tag_access_bytes: u32,
    /// Size of a read request to the L2 (`TCP_TCC_READ_REQ`).
    pub read_request_bytes: u32,
    /// Size of a write request to the L2 (`TCP_TCC_WRITE_REQ`).
    pub write_request_bytes: u32,
    /// Tag accesses per cycle.
    pub accesses_per_cycle: u32,
    /// Misses in flight at once.
    pub max_outstanding_misses: u32,
    /// Index sets by a hash of the line number rather than its low bits (see
    /// `memsys::Cache::hashed`), so that lanes a power-of-two pitch apart do not crowd into a
    /// few sets. Default: low bits.
    #[serde(default)]
    pub hashed_sets: bool,
}

/// The L2 of one XCD.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct L2 {
    /// Capacity of one XCD's L2.
    pub size_bytes: u64,
    pub line_bytes: u32,
    pub ways: u32,
    /// Channels of one XCD's L2, interleaved by address.
    pub channels: u32,
    pub channel_interleave_bytes: u32,
    /// Added latency of a hit (beyond the L1 miss path).
    pub hit_latency_cycles: u32,
    /// Bytes one channel returns per cycle.
    pub channel_bytes_per_cycle: u32,
    /// Size of a read request to memory (`TCC_EA_RDREQ`).
    pub memory_read_request_bytes: u32,
    /// Size of a write request to memory (`TCC_EA_WRREQ`).
    pub memory_write_request_bytes: u32,
    /// Sets per cycle each channel's tag walk covers in a write-back or invalidate operation
    /// (`buffer_wbl2`, `buffer_inv sc1`): such an operation cannot know where its lines are
    /// without looking at every set, so its cost has a floor of sets ÷ channels ÷ this.
    pub maintenance_sets_per_cycle: u32,
    /// Passes per cycle of one channel's atomic unit, which performs the read-modify-write of
    /// the atomics on memory that channel caches. A pass performs one operation on each
    /// address of one write request, so lanes of a wave on one address take a pass each
    /// (and the same address is never updated twice in one pass).
    pub atomic_ops_per_cycle: u32,
    /// Cycles an atomic spends in the atomic unit (read, modify, write of the line) beyond
    /// the plain L2 hit path.
    pub atomic_latency_cycles: u32,
}

/// Memory-attached last-level cache.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Mall {
    pub size_bytes: u64,
    pub line_bytes: u32,
    pub ways: u32,
    /// Added latency of a hit (beyond the L2 miss path).
    pub hit_latency_cycles: u32,
    /// Peak bandwidth in GB/s (10^9 bytes/s).
    pub bandwidth_gb_per_s: u32,
}

/// Device memory.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Dram {
    /// Added latency of a DRAM access (beyond the last cache's miss path).
    pub latency_cycles: u32,
    /// Peak bandwidth in GB/s (10^9 bytes/s).
    pub bandwidth_gb_per_s: u32,
    /// Independent channels (requests to different channels overlap).
    pub channels: u32,
    pub channel_interleave_bytes: u32,
}

/// Kernel launch and work-group dispatch.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Dispatch {
    /// From the dispatch's start timestamp to the first work-group's admission.
    pub kernel_start_cycles: u32,
    /// From the last wave's end to the dispatch's end timestamp (end-of-kernel cache actions
    /// not included: they are simulated).
    pub kernel_end_cycles: u32,
    /// Work-groups the dispatchers start per microsecond, whole GPU: the launch rate that
    /// bounds a kernel of many small work-groups (per microsecond rather than per cycle
    /// because measured rates are fractions of a work-group per cycle).
    pub workgroups_per_us: u32,
    /// Extra time, in ns, of a kernel launched while the GPU has nothing queued (after the
    /// host waited for it: a synchronize, a blocking copy): the runtime's submission is then
    /// exposed instead of overlapping the kernels before it. Charged by the HIP runtime
    /// (`hipscope exec`), not by launch specs. Optional (0).
    #[serde(default)]
    pub idle_launch_latency_ns: u32,
}

/// The time of a copy or fill of N bytes: `latency_ns + N / bandwidth_bytes_per_ns`, per
/// direction. Host-to-device and device-to-host copies cross the host link (PCIe, or the APU's
/// shared fabric); device-to-device copies and fills are kernels the runtime launches on the
/// GPU itself (ROCm's blit kernels), so they move at device-memory speed. Bandwidths are bytes
/// per nanosecond (numerically GB/s, 10^9 bytes/s) of bytes copied or filled.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CopyEngine {
    pub h2d_latency_ns: u32,
    pub h2d_bandwidth_bytes_per_ns: u32,
    pub d2h_latency_ns: u32,
    pub d2h_bandwidth_bytes_per_ns: u32,
    pub d2d_latency_ns: u32,
    pub d2d_bandwidth_bytes_per_ns: u32,
    pub fill_latency_ns: u32,
    pub fill_bandwidth_bytes_per_ns: u32,
}

impl Timing {
    /// Consistency rules a config must satisfy before anything is built from it: powers of
    /// two where the hardware indexes by bits, non-zero counts, and every number within the
    /// bounds of [`super::bounds`] (so no size can exhaust memory and no count index past an
    /// array). `Err` names the field. Rules that need the CU count are in `GpuConfig::check`.
    pub fn check(&self) -> Result<(), String> {
        self.check_caches()?;
        self.check_vector_l1()?;
        self.check_memory()?;
        self.check_core()?;
        let t = &self.topology;
        // At most one per CU, so at most as many as a config may have CUs.
        for (name, n) in [("topology.xcds", t.xcds), ("topology.shader_engines", t.shader_engines), ("topology.cus_per_scalar_cache", t.cus_per_scalar_cache)] {
            range(name, n as u64, 1, b::MAX_COMPUTE_UNITS as u64, "")?;
        }
        range("topology.shader_arrays_per_engine", t.shader_arrays_per_engine as u64, 1, b::MAX_ARRAYS_PER_ENGINE as u64, "")?;
        let d = &self.dispatch;
        cycles("dispatch.kernel_start_cycles", d.kernel_start_cycles)?;
        cycles("dispatch.kernel_end_cycles", d.kernel_end_cycles)?;
        range("dispatch.idle_launch_latency_ns", d.idle_launch_latency_ns as u64, 0, b::MAX_COPY_LATENCY_NS, "ns")?;
        range("dispatch.workgroups_per_us", d.workgroups_per_us as u64, 1, b::MAX_WORKGROUPS_PER_US as u64, "work-groups/us")?;
        if let Some(c) = &self.copy_engine {
            for (dir, latency, bandwidth) in [
                ("h2d", c.h2d_latency_ns, c.h2d_bandwidth_bytes_per_ns),
                ("d2h", c.d2h_latency_ns, c.d2h_bandwidth_bytes_per_ns),
                ("d2d", c.d2d_latency_ns, c.d2d_bandwidth_bytes_per_ns),
                ("fill", c.fill_latency_ns, c.fill_bandwidth_bytes_per_ns),
            ] {
                range(&format!("copy_engine.{dir}_latency_ns"), latency as u64, 0, b::MAX_COPY_LATENCY_NS, "ns")?;
                // One byte per ns is numerically one GB/s: the same bound as DRAM's.
                range(&format!("copy_engine.{dir}_bandwidth_bytes_per_ns"), bandwidth as u64, 1, b::MAX_BANDWIDTH_GB_PER_S as u64, "bytes/ns")?;
            }
        }
        Ok(())
    }

    /// Geometry and latency of every cache.
    fn check_caches(&self) -> Result<(), String> {
        let v = &self.vector_l1;
        let caches: Vec<(&str, u64, u32, u32, u32)> = [
            Some(("vector_l1", v.size_bytes, v.line_bytes, v.ways, v.hit_latency_cycles)),
            Some(("scalar_cache", self.scalar_cache.size_bytes, self.scalar_cache.line_bytes, self.scalar_cache.ways, self.scalar_cache.hit_latency_cycles)),
            self.gl1.as_ref().map(|c| ("gl1", c.size_bytes, c.line_bytes, c.ways, c.hit_latency_cycles)),
            Some(("l2", self.l2.size_bytes, self.l2.line_bytes, self.l2.ways, self.l2.hit_latency_cycles)),
            self.mall.as_ref().map(|c| ("mall", c.size_bytes, c.line_bytes, c.ways, c.hit_latency_cycles)),
        ]
        .into_iter()
        .flatten()
        .collect();
        for (name, size, line, ways, latency) in caches {
            pow2(&format!("{name}.line_bytes"), line as u64)?;
            range(&format!("{name}.line_bytes"), line as u64, *b::LINE_BYTES.start() as u64, *b::LINE_BYTES.end() as u64, "bytes")?;
            range(&format!("{name}.ways"), ways as u64, 1, b::MAX_WAYS as u64, "ways")?;
            range(&format!("{name}.size_bytes"), size, 1, b::MAX_CACHE_BYTES, "bytes")?;
            let set_bytes = line as u64 * ways as u64;
            if size % set_bytes != 0 {
                return Err(format!("timing.{name}: size_bytes {size} is not a whole number of sets of {ways} × {line}-byte lines"));
            }
            cycles(&format!("{name}.hit_latency_cycles"), latency)?;
        }
        // A level fills its lines from the one below in one request (vector L1 and scalar
        // cache from the GL1 or L2, GL1 from the L2), so no line may be wider than the L2's.
        let l2 = self.l2.line_bytes;
        for (name, line) in
            [("vector_l1", v.line_bytes), ("scalar_cache", self.scalar_cache.line_bytes)].into_iter().chain(self.gl1.as_ref().map(|g| ("gl1", g.line_bytes)))
        {
            if line > l2 {
                return Err(format!("timing.{name}.line_bytes: {line} is wider than the L2 line ({l2} bytes), which fills it"));
            }
        }
        if let Some(g) = &self.gl1 {
            if v.line_bytes > g.line_bytes {
                return Err(format!("timing.vector_l1.line_bytes: {} is wider than the GL1 line ({} bytes), which fills it", v.line_bytes, g.line_bytes));
            }
        }
        Ok(())
    }

    /// The vector L1's address path.
    fn check_vector_l1(&self) -> Result<(), String> {
        let v = &self.vector_l1;
        for (name, bytes) in
            [("tag_access_bytes", v.tag_access_bytes), ("read_request_bytes", v.read_request_bytes), ("write_request_bytes", v.write_request_bytes)]
        {
            let name = format!("vector_l1.{name}");
            pow2(&name, bytes as u64)?;
            range(&name, bytes as u64, b::MIN_REQUEST_BYTES as u64, v.line_bytes.max(self.l2.line_bytes) as u64, "bytes (a dword up to the line size)")?;
        }
        range("vector_l1.lanes_per_pass", v.lanes_per_pass as u64, 1, b::MAX_PER_CYCLE as u64, "lanes")?;
        range("vector_l1.accesses_per_cycle", v.accesses_per_cycle as u64, 1, b::MAX_PER_CYCLE as u64, "accesses")?;
        range("vector_l1.max_outstanding_misses", v.max_outstanding_misses as u64, 1, b::MAX_OUTSTANDING_MISSES as u64, "misses")
    }

    /// L2 channels, MALL and DRAM.
    fn check_memory(&self) -> Result<(), String> {
        let l2 = &self.l2;
        range("l2.channels", l2.channels as u64, 1, b::MAX_CHANNELS as u64, "channels")?;
        pow2("l2.channel_interleave_bytes", l2.channel_interleave_bytes as u64)?;
        range("l2.channel_bytes_per_cycle", l2.channel_bytes_per_cycle as u64, 1, b::MAX_CHANNEL_BYTES_PER_CYCLE as u64, "bytes")?;
        for (name, bytes) in [("l2.memory_read_request_bytes", l2.memory_read_request_bytes), ("l2.memory_write_request_bytes", l2.memory_write_request_bytes)]
        {
            pow2(name, bytes as u64)?;
            range(name, bytes as u64, b::MIN_REQUEST_BYTES as u64, l2.line_bytes as u64, "bytes (a dword up to the L2 line)")?;
        }
        range("l2.maintenance_sets_per_cycle", l2.maintenance_sets_per_cycle as u64, 1, u32::MAX as u64, "sets")?;
        range("l2.atomic_ops_per_cycle", l2.atomic_ops_per_cycle as u64, 1, b::MAX_PER_CYCLE as u64, "passes")?;
        cycles("l2.atomic_latency_cycles", l2.atomic_latency_cycles)?;
        if let Some(m) = &self.mall {
            range("mall.bandwidth_gb_per_s", m.bandwidth_gb_per_s as u64, 1, b::MAX_BANDWIDTH_GB_PER_S as u64, "GB/s")?;
        }
        let d = &self.dram;
        cycles("dram.latency_cycles", d.latency_cycles)?;
        range("dram.bandwidth_gb_per_s", d.bandwidth_gb_per_s as u64, 1, b::MAX_BANDWIDTH_GB_PER_S as u64, "GB/s")?;
        range("dram.channels", d.channels as u64, 1, b::MAX_CHANNELS as u64, "channels")?;
        pow2("dram.channel_interleave_bytes", d.channel_interleave_bytes as u64)
    }

    /// Clock, CU pipelines and the LDS.
    fn check_core(&self) -> Result<(), String> {
        range("clock_mhz", self.clock_mhz as u64, 1, b::MAX_CLOCK_MHZ as u64, "MHz")?;
        let c = &self.core;
        range("core.simds_per_cu", c.simds_per_cu as u64, 1, b::MAX_SIMDS_PER_CU as u64, "SIMDs")?;
        pow2("core.simd_lanes", c.simd_lanes as u64)?;
        range("core.simd_lanes", c.simd_lanes as u64, *b::SIMD_LANES.start() as u64, *b::SIMD_LANES.end() as u64, "lanes")?;
        for (name, n, max, unit) in [
            ("core.max_waves_per_simd", c.max_waves_per_simd, b::MAX_WAVES_PER_SIMD, "waves"),
            ("core.vgprs_per_simd", c.vgprs_per_simd, b::MAX_VGPRS_PER_SIMD, "VGPRs"),
            ("core.sgprs_per_simd", c.sgprs_per_simd, b::MAX_SGPRS_PER_SIMD, "SGPRs"),
            ("core.max_workgroups_per_cu", c.max_workgroups_per_cu, b::MAX_WORKGROUPS_PER_CU, "work-groups"),
            ("core.f64_rate_divisor", c.f64_rate_divisor, b::MAX_RATE_DIVISOR, ""),
            ("core.transcendental_rate_divisor", c.transcendental_rate_divisor, b::MAX_RATE_DIVISOR, ""),
        ] {
            range(name, n as u64, 1, max as u64, unit)?;
        }
        range("core.wave_issue_interval_cycles", c.wave_issue_interval_cycles as u64, 1, b::MAX_CYCLES as u64, "cycles")?;
        for (name, n) in [
            ("core.valu_dependency_cycles", c.valu_dependency_cycles),
            ("core.salu_latency_cycles", c.salu_latency_cycles),
            ("core.branch_taken_cycles", c.branch_taken_cycles),
            ("core.wave_launch_cycles", c.wave_launch_cycles),
        ] {
            cycles(name, n)?;
        }
        let l = &self.lds;
        range("lds.size_bytes", l.size_bytes as u64, 0, b::MAX_LDS_BYTES as u64, "bytes")?;
        range("lds.banks", l.banks as u64, 1, b::MAX_LDS_BANKS as u64, "banks")?;
        pow2("lds.bank_width_bytes", l.bank_width_bytes as u64)?;
        let w = &b::LDS_BANK_WIDTH_BYTES;
        range("lds.bank_width_bytes", l.bank_width_bytes as u64, *w.start() as u64, *w.end() as u64, "bytes")?;
        range("lds.bandwidth_bytes_per_cycle", l.bandwidth_bytes_per_cycle as u64, 1, b::MAX_LDS_BANKS as u64 * *w.end() as u64, "bytes per cycle")?;
        cycles("lds.latency_cycles", l.latency_cycles)
    }

    /// Bytes DRAM delivers per shader cycle (whole device).
    pub fn dram_bytes_per_cycle(&self) -> f64 {
        self.dram.bandwidth_gb_per_s as f64 * 1000.0 / self.clock_mhz as f64
    }
}

/// `v` must be a power of two.
fn pow2(name: &str, v: u64) -> Result<(), String> {
    if v.is_power_of_two() {
        Ok(())
    } else {
        Err(format!("timing.{name}: {v} is not a power of two"))
    }
}

/// `v` must be in `lo..=hi` (`unit` names what is counted, or says why).
fn range(name: &str, v: u64, lo: u64, hi: u64, unit: &str) -> Result<(), String> {
    let unit = if unit.is_empty() { String::new() } else { format!(" {unit}") };
    if v < lo {
        Err(format!("timing.{name}: {v} is less than {lo}{unit}"))
    } else if v > hi {
        Err(format!("timing.{name}: {v} is more than {hi}{unit}"))
    } else {
        Ok(())
    }
}

/// A latency or overhead in cycles (zero allowed).
fn cycles(name: &str, v: u32) -> Result<(), String> {
    range(name, v as u64, 0, b::MAX_CYCLES as u64, "cycles")
}
