//! Timing-model parameters of a GPU (the `timing` section of `configs/*.ron`).
//!
//! Cycles are shader-clock cycles; every field name carries its unit. Each built-in config
//! cites a source for every number in a comment, or says "calibrated" and against which
//! measurement. The memory-system fields describe the hierarchy the hardware has: vector L1
//! (CDNA vL1D / RDNA GL0) per CU, an optional GL1 per shader array (RDNA), L2 per XCD (one
//! XCD except on MI300), an optional memory-side MALL (Infinity Cache), and DRAM.

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
    /// Work-groups the dispatcher admits per cycle (whole GPU).
    pub workgroups_per_cycle: u32,
}

impl Timing {
    /// Consistency rules a config must satisfy (powers of two where the hardware indexes by
    /// bits, non-zero counts). `Err` names the field.
    pub fn check(&self) -> Result<(), String> {
        let pow2 = |name: &str, v: u64| if v.is_power_of_two() { Ok(()) } else { Err(format!("timing.{name}: {v} is not a power of two")) };
        let nonzero = |name: &str, v: u64| if v > 0 { Ok(()) } else { Err(format!("timing.{name}: must be at least 1")) };
        nonzero("clock_mhz", self.clock_mhz as u64)?;
        let caches: Vec<(&str, u64, u32, u32)> = [
            Some(("vector_l1", self.vector_l1.size_bytes, self.vector_l1.line_bytes, self.vector_l1.ways)),
            Some(("scalar_cache", self.scalar_cache.size_bytes, self.scalar_cache.line_bytes, self.scalar_cache.ways)),
            self.gl1.as_ref().map(|c| ("gl1", c.size_bytes, c.line_bytes, c.ways)),
            Some(("l2", self.l2.size_bytes, self.l2.line_bytes, self.l2.ways)),
            self.mall.as_ref().map(|c| ("mall", c.size_bytes, c.line_bytes, c.ways)),
        ]
        .into_iter()
        .flatten()
        .collect();
        for (name, size, line, ways) in caches {
            pow2(&format!("{name}.line_bytes"), line as u64)?;
            nonzero(&format!("{name}.ways"), ways as u64)?;
            let sets = size / (line as u64 * ways as u64).max(1);
            if sets == 0 || sets * line as u64 * ways as u64 != size {
                return Err(format!("timing.{name}: size_bytes {size} is not a whole number of sets of {ways} × {line}-byte lines"));
            }
        }
        let v = &self.vector_l1;
        for (name, b) in
            [("tag_access_bytes", v.tag_access_bytes), ("read_request_bytes", v.read_request_bytes), ("write_request_bytes", v.write_request_bytes)]
        {
            pow2(&format!("vector_l1.{name}"), b as u64)?;
            if b > v.line_bytes.max(self.l2.line_bytes) {
                return Err(format!("timing.vector_l1.{name}: {b} exceeds the line size"));
            }
        }
        nonzero("vector_l1.lanes_per_pass", v.lanes_per_pass as u64)?;
        nonzero("vector_l1.accesses_per_cycle", v.accesses_per_cycle as u64)?;
        nonzero("vector_l1.max_outstanding_misses", v.max_outstanding_misses as u64)?;
        nonzero("l2.channels", self.l2.channels as u64)?;
        pow2("l2.channel_interleave_bytes", self.l2.channel_interleave_bytes as u64)?;
        nonzero("l2.channel_bytes_per_cycle", self.l2.channel_bytes_per_cycle as u64)?;
        pow2("l2.memory_read_request_bytes", self.l2.memory_read_request_bytes as u64)?;
        pow2("l2.memory_write_request_bytes", self.l2.memory_write_request_bytes as u64)?;
        nonzero("l2.maintenance_sets_per_cycle", self.l2.maintenance_sets_per_cycle as u64)?;
        nonzero("dram.channels", self.dram.channels as u64)?;
        pow2("dram.channel_interleave_bytes", self.dram.channel_interleave_bytes as u64)?;
        nonzero("dram.bandwidth_gb_per_s", self.dram.bandwidth_gb_per_s as u64)?;
        let t = &self.topology;
        for (name, n) in [
            ("topology.xcds", t.xcds),
            ("topology.shader_engines", t.shader_engines),
            ("topology.shader_arrays_per_engine", t.shader_arrays_per_engine),
            ("topology.cus_per_scalar_cache", t.cus_per_scalar_cache),
        ] {
            nonzero(name, n as u64)?;
        }
        let c = &self.core;
        for (name, n) in [
            ("core.simds_per_cu", c.simds_per_cu),
            ("core.simd_lanes", c.simd_lanes),
            ("core.max_waves_per_simd", c.max_waves_per_simd),
            ("core.vgprs_per_simd", c.vgprs_per_simd),
            ("core.sgprs_per_simd", c.sgprs_per_simd),
            ("core.max_workgroups_per_cu", c.max_workgroups_per_cu),
            ("core.wave_issue_interval_cycles", c.wave_issue_interval_cycles),
            ("core.f64_rate_divisor", c.f64_rate_divisor),
            ("core.transcendental_rate_divisor", c.transcendental_rate_divisor),
        ] {
            nonzero(name, n as u64)?;
        }
        nonzero("lds.banks", self.lds.banks as u64)?;
        nonzero("lds.bank_width_bytes", self.lds.bank_width_bytes as u64)?;
        nonzero("dispatch.workgroups_per_cycle", self.dispatch.workgroups_per_cycle as u64)?;
        Ok(())
    }

    /// Bytes DRAM delivers per shader cycle (whole device).
    pub fn dram_bytes_per_cycle(&self) -> f64 {
        self.dram.bandwidth_gb_per_s as f64 * 1000.0 / self.clock_mhz as f64
    }
}
