//! Performance counters with the names and meanings of rocprof / rocprof-compute (`_sum`
//! counters are summed over all instances, as rocprof reports them). RDNA GPUs report the L2
//! counters under their RDNA names (`GL2C_*` for `TCC_*`). Counters no AMD tool has are
//! prefixed `HS_` (hipscope).
//!
//! Meanings follow the rocprof-compute documentation (performance model pages for the SQ,
//! vL1D (TCP) and L2 (TCC)); where the hardware's counting unit is not documented it is
//! inferred from real profiles in `../shared/device-data` (see each variant).

use serde::Serialize;

macro_rules! counters {
    ($( $(#[$doc:meta])* $v:ident => $name:literal, )*) => {
        /// One counter.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        pub enum Counter { $( $(#[$doc])* $v, )* }

        impl Counter {
            /// Every counter, in report order.
            pub const ALL: &'static [Counter] = &[$(Counter::$v,)*];

            /// The CDNA (rocprof) name.
            pub fn name(self) -> &'static str {
                match self { $(Counter::$v => $name,)* }
            }
        }
    };
}

counters! {
    /// Cycles the GPU was busy (the dispatch's duration in shader cycles).
    GrbmGuiActive => "GRBM_GUI_ACTIVE",
    /// Waves launched.
    SqWaves => "SQ_WAVES",
    /// Instructions issued, all kinds.
    SqInsts => "SQ_INSTS",
    /// Vector ALU instructions (incl. MFMA).
    SqInstsValu => "SQ_INSTS_VALU",
    /// Matrix instructions (MFMA, SMFMAC, WMMA, SWMMAC), all input types.
    SqInstsMfma => "SQ_INSTS_MFMA",
    /// Matrix instructions by input type (rocprof-compute MI300 counters; XF32 counts as F32,
    /// 4-bit integers as I8).
    SqInstsValuMfmaI8 => "SQ_INSTS_VALU_MFMA_I8",
    SqInstsValuMfmaF16 => "SQ_INSTS_VALU_MFMA_F16",
    SqInstsValuMfmaBf16 => "SQ_INSTS_VALU_MFMA_BF16",
    SqInstsValuMfmaF32 => "SQ_INSTS_VALU_MFMA_F32",
    SqInstsValuMfmaF64 => "SQ_INSTS_VALU_MFMA_F64",
    SqInstsValuMfmaF8 => "SQ_INSTS_VALU_MFMA_F8",
    /// Matrix operations in units of 512 (2 x M x N x K x blocks / 512 per instruction), by
    /// input type.
    SqInstsValuMfmaMopsI8 => "SQ_INSTS_VALU_MFMA_MOPS_I8",
    SqInstsValuMfmaMopsF16 => "SQ_INSTS_VALU_MFMA_MOPS_F16",
    SqInstsValuMfmaMopsBf16 => "SQ_INSTS_VALU_MFMA_MOPS_BF16",
    SqInstsValuMfmaMopsF32 => "SQ_INSTS_VALU_MFMA_MOPS_F32",
    SqInstsValuMfmaMopsF64 => "SQ_INSTS_VALU_MFMA_MOPS_F64",
    SqInstsValuMfmaMopsF8 => "SQ_INSTS_VALU_MFMA_MOPS_F8",
    /// Cycles matrix cores were busy, summed over SIMDs.
    SqValuMfmaBusyCycles => "SQ_VALU_MFMA_BUSY_CYCLES",
    /// Scalar ALU instructions.
    SqInstsSalu => "SQ_INSTS_SALU",
    /// Scalar memory instructions.
    SqInstsSmem => "SQ_INSTS_SMEM",
    /// Vector memory read instructions (loads; FLAT loads included).
    SqInstsVmemRd => "SQ_INSTS_VMEM_RD",
    /// Vector memory write instructions (stores and atomics; FLAT included).
    SqInstsVmemWr => "SQ_INSTS_VMEM_WR",
    /// LDS instructions.
    SqInstsLds => "SQ_INSTS_LDS",
    /// Branch instructions.
    SqInstsBranch => "SQ_INSTS_BRANCH",
    /// Wave-cycles spent waiting at `s_waitcnt` (summed over waves).
    SqWaitInstAny => "SQ_WAIT_INST_ANY",
    /// Wave-cycles from launch to end (summed over waves).
    SqWaveCycles => "SQ_WAVE_CYCLES",
    /// Per shader engine, cycles from its first wave's launch to its last wave's end, summed
    /// over the engines (the hardware counter is per engine and summed the same way).
    SqBusyCycles => "SQ_BUSY_CYCLES",
    /// Cycles the LDS spent on bank conflicts.
    SqLdsBankConflict => "SQ_LDS_BANK_CONFLICT",
    /// Cycles the LDS was executing instructions.
    SqLdsIdxActive => "SQ_LDS_IDX_ACTIVE",
    /// Tag accesses of the vector L1: per pass of `lanes_per_pass` lanes and per dword, one
    /// per `tag_access_bytes` block touched (inferred from vcopy and mixbench profiles: a
    /// wave64 dword load makes 4, a dwordx2 load 16 on MI100, MI210 and MI300).
    TcpTotalCacheAccesses => "TCP_TOTAL_CACHE_ACCESSES_sum",
    /// Read requests from the vector L1 to the L2 (L1 misses, in `read_request_bytes`).
    TcpTccReadReq => "TCP_TCC_READ_REQ_sum",
    /// Write requests from the vector L1 to the L2 (per `write_request_bytes` block written).
    TcpTccWriteReq => "TCP_TCC_WRITE_REQ_sum",
    /// Atomic requests returning the pre-op value.
    TcpTccAtomicWithRetReq => "TCP_TCC_ATOMIC_WITH_RET_REQ_sum",
    /// Atomic requests without return.
    TcpTccAtomicWithoutRetReq => "TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum",
    /// Requests the L2 received (all kinds, after merging adjacent requests to one line).
    TccReq => "TCC_REQ_sum",
    /// L2 requests that found their line.
    TccHit => "TCC_HIT_sum",
    /// L2 requests that did not find their line.
    TccMiss => "TCC_MISS_sum",
    /// L2 read requests.
    TccRead => "TCC_READ_sum",
    /// L2 write requests.
    TccWrite => "TCC_WRITE_sum",
    /// L2 atomic requests.
    TccAtomic => "TCC_ATOMIC_sum",
    /// Lines the L2 wrote back to memory (evictions and write-back operations).
    TccWriteback => "TCC_WRITEBACK_sum",
    /// Read requests from the L2 to memory (in `memory_read_request_bytes`).
    TccEaRdreq => "TCC_EA_RDREQ_sum",
    /// Of those, 32-byte requests.
    TccEaRdreq32b => "TCC_EA_RDREQ_32B_sum",
    /// Write requests from the L2 to memory (64-byte blocks with dirty bytes; a block with
    /// only its first or second half dirty is a 32-byte request).
    TccEaWrreq => "TCC_EA_WRREQ_sum",
    /// Of those, 64-byte requests.
    TccEaWrreq64b => "TCC_EA_WRREQ_64B_sum",
    /// RDNA GL1 requests.
    Gl1cReq => "GL1C_REQ_sum",
    /// RDNA GL1 misses.
    Gl1cMiss => "GL1C_MISS_sum",
    /// Scalar cache requests.
    SqcDcacheReq => "SQC_DCACHE_REQ",
    /// Scalar cache misses.
    SqcDcacheMiss => "SQC_DCACHE_MISSES",
    /// MALL (Infinity Cache) lookups that hit.
    MallHit => "HS_MALL_HIT",
    /// MALL lookups that missed (went to DRAM).
    MallMiss => "HS_MALL_MISS",
    /// Bytes read from DRAM.
    DramReadBytes => "HS_DRAM_READ_BYTES",
    /// Bytes written to DRAM.
    DramWriteBytes => "HS_DRAM_WRITE_BYTES",
    /// Vector L1 (RDNA: GL0) invalidations by instructions (`buffer_wbinvl1*`, `buffer_inv`,
    /// `buffer_gl0_inv`, `global_inv`); the dispatch-start invalidation is not counted.
    L1Invalidates => "HS_L1_INVALIDATES",
    /// Valid lines those invalidations dropped.
    L1InvalidatedLines => "HS_L1_INVALIDATED_LINES",
    /// RDNA GL1 invalidations by instructions (`buffer_gl1_inv`, `global_inv scope:DEV`).
    Gl1Invalidates => "HS_GL1_INVALIDATES",
    /// Valid lines those invalidations dropped.
    Gl1InvalidatedLines => "HS_GL1_INVALIDATED_LINES",
    /// L2 invalidations by instructions (`buffer_invl2`, `buffer_inv sc1` with several L2s,
    /// `global_inv scope:SYS`), one per L2 that walked its tags.
    L2Invalidates => "HS_L2_INVALIDATES",
    /// Lines those invalidations dropped (rocprof-compute: "evictions due to all TC_OP
    /// invalidate requests").
    TccAllTcOpInvEvict => "TCC_ALL_TC_OP_INV_EVICT_sum",
    /// L2 write-backs by instructions (`buffer_wbl2`, `global_wb scope:SYS`), one per L2.
    L2Writebacks => "HS_L2_WRITEBACKS",
    /// Dirty lines those write-backs wrote to memory (rocprof-compute: "writebacks due to all
    /// TC_OP writeback requests"). The end-of-kernel write-back is not counted.
    TccAllTcOpWbWriteback => "TCC_ALL_TC_OP_WB_WRITEBACK_sum",
    /// Atomic instructions on host or managed memory that the GPU config cannot make atomic
    /// (the seed's system-scope atomicity conditions: `hostNativeAtomicSupported` for pinned
    /// host memory, `concurrentManagedAccess` for managed memory). Counted per wave access.
    SystemAtomicsNotAtomic => "HS_SYSTEM_ATOMICS_NOT_ATOMIC",
    /// Bytes read from another agent's memory (host or peer GPU) over a node link, in timing
    /// mode with a node ([`crate::memsys::RemotePaths`]); not in the DRAM counters.
    RemoteReadBytes => "HS_REMOTE_READ_BYTES",
    /// Bytes written to another agent's memory over a node link.
    RemoteWriteBytes => "HS_REMOTE_WRITE_BYTES",
    /// Atomic lane operations performed at a far agent (PCIe AtomicOps, xGMI atomics).
    RemoteAtomics => "HS_REMOTE_ATOMICS",
    /// Lane accesses to LDS outside the work-group's allocation (GFX8: also past M0[16:0]):
    /// the hardware returns 0 for such reads and drops such writes, and so does hipscope. A
    /// warning sign, not a fault. An atomic's read and write count once each.
    LdsOutOfRange => "HS_LDS_OUT_OF_RANGE",
}

/// A set of counter values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counters {
    values: Vec<u64>,
}

impl Default for Counters {
    fn default() -> Counters {
        Counters { values: vec![0; Counter::ALL.len()] }
    }
}

impl Counters {
    #[inline]
    pub fn add(&mut self, c: Counter, n: u64) {
        self.values[c as usize] += n;
    }

    #[inline]
    pub fn inc(&mut self, c: Counter) {
        self.values[c as usize] += 1;
    }

    pub fn get(&self, c: Counter) -> u64 {
        self.values[c as usize]
    }

    pub fn set(&mut self, c: Counter, v: u64) {
        self.values[c as usize] = v;
    }

    /// Add `other`'s values, counter by counter (totals over several dispatches).
    pub fn add_all(&mut self, other: &Counters) {
        for (a, b) in self.values.iter_mut().zip(&other.values) {
            *a += b;
        }
    }

    /// `self - earlier`, counter by counter (what happened in between).
    pub fn since(&self, earlier: &Counters) -> Counters {
        Counters { values: self.values.iter().zip(&earlier.values).map(|(a, b)| a.wrapping_sub(*b)).collect() }
    }

    /// (name, value) pairs, with RDNA names where `rdna`.
    pub fn named(&self, rdna: bool) -> Vec<(String, u64)> {
        Counter::ALL.iter().map(|&c| (display_name(c, rdna), self.get(c))).collect()
    }
}

/// A counter's name as the GPU's profiler reports it.
pub fn display_name(c: Counter, rdna: bool) -> String {
    let n = c.name();
    match n.strip_prefix("TCC_") {
        Some(rest) if rdna => format!("GL2C_{rest}"),
        _ => n.to_string(),
    }
}

impl Counter {
    /// Whether RDNA GPUs report this counter under another name (`GL2C_*` for `TCC_*`).
    fn renamed_on_rdna(self) -> bool {
        self.name().starts_with("TCC_")
    }
}

/// A counter as a user names it (a sweep plan's `counter:TCC_HIT_sum`): its rocprof name, or
/// for an L2 counter its RDNA name, which only RDNA GPUs report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CounterName {
    pub counter: Counter,
    /// Named the RDNA way (`GL2C_*`); false for the counters both families name alike.
    rdna: bool,
}

impl CounterName {
    /// The counter `name` names, as [`display_name`] writes it for either family.
    pub fn parse(name: &str) -> Option<CounterName> {
        Counter::ALL.iter().find_map(|&counter| {
            let rdna = [false, true].into_iter().find(|&rdna| display_name(counter, rdna) == name)?;
            Some(CounterName { counter, rdna: rdna && counter.renamed_on_rdna() })
        })
    }

    /// Whether a GPU (RDNA where `rdna`) reports the counter under this name.
    pub fn reported_by(self, rdna: bool) -> bool {
        !self.counter.renamed_on_rdna() || self.rdna == rdna
    }
}

impl std::fmt::Display for CounterName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&display_name(self.counter, self.rdna))
    }
}

#[cfg(test)]
mod tests {
    use super::{display_name, Counter, CounterName};

    #[test]
    fn every_name_of_either_family_parses_back_to_its_counter() {
        for &c in Counter::ALL {
            for rdna in [false, true] {
                let n = CounterName::parse(&display_name(c, rdna)).expect("a counter's own name");
                assert_eq!((n.counter, n.to_string()), (c, display_name(c, rdna)));
                assert!(n.reported_by(rdna));
            }
        }
    }

    #[test]
    fn an_l2_name_belongs_to_one_family_and_others_to_both() {
        // rocprof-compute's RDNA L2 counters are GL2C_*, CDNA's TCC_*.
        let cdna = CounterName::parse("TCC_HIT_sum").expect("CDNA L2 hits");
        let rdna = CounterName::parse("GL2C_HIT_sum").expect("RDNA L2 hits");
        assert_eq!((cdna.counter, rdna.counter), (Counter::TccHit, Counter::TccHit));
        assert!(cdna.reported_by(false) && !cdna.reported_by(true));
        assert!(rdna.reported_by(true) && !rdna.reported_by(false));
        let waves = CounterName::parse("SQ_WAVES").expect("SQ_WAVES");
        assert!(waves.reported_by(false) && waves.reported_by(true));
        assert_eq!(CounterName::parse("GL2C_WAVES"), None);
        assert_eq!(CounterName::parse("TCC_HIT"), None);
    }
}
