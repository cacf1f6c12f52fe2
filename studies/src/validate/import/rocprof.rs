//! rocprof-compute profile folders: `pmc_perf.csv` (one row per dispatch: identity columns,
//! counters, GPU begin/end timestamps), the `SQ_*.csv` files of the level counters (same row
//! layout, collected in their own passes) and `sysinfo.csv` (the GPU and host).
//!
//! Variants handled, as found in the rocprofiler-compute test folders from ROCm 4.2 to 7.0:
//! - wide rows whose identity columns changed names (`Grid_Size`/`grd`, `Wave_Size`/
//!   `wave_size`, `Arch_VGPR`/`arch_vgpr`/`vgpr`, ...) and repeat once per collection pass with a
//!   numeric suffix (`wave_size_3`, `obj_3`, `Kernel_ID_3`);
//! - per-instance counter columns (`TCC_HIT[12]`) next to the `_sum` ones;
//! - the long layout of ROCm 7's rocpd export: one row per (dispatch, counter) with
//!   `Counter_Name` and `Counter_Value`;
//! - two `sysinfo.csv` schemas (ROCm ≥ 5.x `gpu_model`/`gpu_arch`/`cu_per_gpu`/...; ROCm 4.x
//!   `name`/`gpu_soc`/`numCU`/...).

use super::table::{is_blank, Table};
use super::DataError;
use std::collections::BTreeMap;
use std::path::Path;

/// The GPU a profile was taken on (from `sysinfo.csv`).
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct SystemInfo {
    /// rocprof-compute's model name (`MI200`, `MI300X_A1`, `mi100`).
    pub gpu_model: String,
    /// LLVM processor (`gfx90a`).
    pub gpu_arch: String,
    pub compute_units: Option<u32>,
    pub max_sclk_mhz: Option<f64>,
    pub cur_sclk_mhz: Option<f64>,
    pub max_mclk_mhz: Option<f64>,
    pub l1_kib: Option<f64>,
    pub l2_kib: Option<f64>,
    pub l2_channels: Option<u32>,
    pub xcds: Option<u32>,
    pub rocm_version: String,
    /// The profiled command line (older schemas lack it: empty).
    pub command: String,
}

/// One dispatch of a profile.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct DispatchRecord {
    /// `Dispatch_ID`.
    pub index: u64,
    pub kernel: String,
    /// Work-items in the grid and in a work-group.
    pub grid_size: Option<u64>,
    pub workgroup_size: Option<u64>,
    /// `End_Timestamp − Start_Timestamp` (GPU begin and end of the kernel), when recorded.
    pub duration_ns: Option<f64>,
    /// Counter name (as rocprof prints it) → value.
    pub counters: BTreeMap<String, f64>,
}

/// A whole profile folder.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct Profile {
    pub system: SystemInfo,
    pub dispatches: Vec<DispatchRecord>,
}

/// Read a profile folder: `sysinfo.csv`, `pmc_perf.csv`, and the counters of any `SQ_*.csv`
/// that `pmc_perf.csv` lacks (merged by dispatch ID).
pub fn read_profile(dir: &Path) -> Result<Profile, DataError> {
    if !dir.is_dir() {
        return Err(DataError::file(dir, "not a directory"));
    }
    let system = read_sysinfo(&dir.join("sysinfo.csv"))?;
    let mut dispatches = read_dispatches(&dir.join("pmc_perf.csv"))?;
    let mut extra: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| DataError::file(dir, format!("cannot list: {e}")))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        // `SQ_*_error_log.csv` are the test harness's logs, not counter tables.
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("SQ_") && n.ends_with(".csv") && !n.ends_with("_error_log.csv")))
        .collect();
    // Directory order differs between machines; merge in name order so results do not.
    extra.sort();
    for path in extra {
        for rec in read_dispatches(&path)? {
            if let Some(d) = dispatches.iter_mut().find(|d| d.index == rec.index) {
                for (k, v) in rec.counters {
                    d.counters.entry(k).or_insert(v);
                }
            }
        }
    }
    Ok(Profile { system, dispatches })
}

/// `sysinfo.csv`: its first row.
pub fn read_sysinfo(path: &Path) -> Result<SystemInfo, DataError> {
    let t = Table::read(path)?;
    let Some((line, row)) = t.rows.first() else { return Err(DataError::file(path, "no data row")) };
    let line = *line;
    let text = |names: &[&str]| t.find(names).map_or(String::new(), |c| Table::get(row, c).to_string());
    let num = |names: &[&str]| t.optional_number(line, row, t.find(names));
    let count = |names: &[&str]| -> Result<Option<u32>, DataError> {
        match num(names)? {
            Some(v) if v >= 0.0 && v.fract() == 0.0 && v <= u32::MAX as f64 => Ok(Some(v as u32)),
            Some(v) => Err(DataError::field(path, line, names[0], format!("{v} is not a count"))),
            None => Ok(None),
        }
    };
    let gpu_model = text(&["gpu_model", "name"]);
    let gpu_arch = text(&["gpu_arch", "gpu_soc"]);
    if gpu_arch.is_empty() {
        return Err(DataError::at(path, line, "no GPU architecture (column 'gpu_arch' or 'gpu_soc')"));
    }
    Ok(SystemInfo {
        gpu_model,
        gpu_arch,
        compute_units: count(&["cu_per_gpu", "numCU"])?,
        max_sclk_mhz: num(&["max_sclk", "sclk"])?,
        cur_sclk_mhz: num(&["cur_sclk"])?,
        max_mclk_mhz: num(&["max_mclk", "mclk"])?,
        l1_kib: num(&["gpu_l1", "L1"])?,
        l2_kib: num(&["gpu_l2", "L2"])?,
        l2_channels: count(&["total_l2_chan", "L2Banks"])?,
        xcds: count(&["num_xcd"])?,
        rocm_version: text(&["rocm_version", "host_rocmver"]),
        command: text(&["command"]),
    })
}

/// Identity columns (everything in a row that is not a counter), lower-cased, without the
/// `_<pass>` suffix the merge of collection passes appends.
const IDENTITY: &[&str] = &[
    "dispatch_id",
    "kernel_name",
    "gpu_id",
    "queue-id",
    "queue-index",
    "pid",
    "tid",
    "grid_size",
    "grd",
    "workgroup_size",
    "wgr",
    "lds_per_workgroup",
    "lds",
    "scratch_per_workitem",
    "scr",
    "arch_vgpr",
    "accum_vgpr",
    "vgpr",
    "sgpr",
    "wave_size",
    "fbar",
    "sig",
    "obj",
    "correlation_id",
    "kernel_id",
    "dispatchns",
    "start_timestamp",
    "end_timestamp",
    "completens",
    "beginns",
    "endns",
    "node",
    "counter_name",
    "counter_value",
];

fn is_identity(column: &str) -> bool {
    let lower = column.to_ascii_lowercase();
    let base = match lower.rsplit_once('_') {
        Some((b, n)) if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) && IDENTITY.contains(&b) => b,
        _ => lower.as_str(),
    };
    IDENTITY.contains(&base)
}

/// `pmc_perf.csv` or an `SQ_*.csv`: one record per dispatch, wide or long layout.
pub fn read_dispatches(path: &Path) -> Result<Vec<DispatchRecord>, DataError> {
    let t = Table::read(path)?;
    let cols = Columns::find(&t)?;
    match (t.find(&["Counter_Name"]), t.find(&["Counter_Value"])) {
        (Some(name), Some(value)) => long_layout(&t, &cols, name, value),
        _ => wide_layout(&t, &cols),
    }
}

/// Where the identity fields are.
struct Columns {
    id: usize,
    kernel: usize,
    grid: Option<usize>,
    block: Option<usize>,
    start: Option<usize>,
    end: Option<usize>,
}

impl Columns {
    fn find(t: &Table) -> Result<Columns, DataError> {
        Ok(Columns {
            id: t.require(&["Dispatch_ID"])?,
            kernel: t.require(&["Kernel_Name"])?,
            grid: t.find(&["Grid_Size", "grd"]),
            block: t.find(&["Workgroup_Size", "wgr"]),
            start: t.find(&["Start_Timestamp", "BeginNs"]),
            end: t.find(&["End_Timestamp", "EndNs"]),
        })
    }

    /// A record with the identity fields of one row and no counters.
    fn record(&self, t: &Table, line: u64, row: &[String]) -> Result<DispatchRecord, DataError> {
        let whole = |col: usize| -> Result<u64, DataError> {
            let s = Table::get(row, col);
            s.parse::<u64>()
                .ok()
                .or_else(|| s.parse::<f64>().ok().filter(|v| *v >= 0.0 && v.fract() == 0.0 && *v < 1.8e19).map(|v| v as u64))
                .ok_or_else(|| DataError::field(&t.path, line, &t.headers[col], format!("'{s}' is not a whole number")))
        };
        let optional = |col: Option<usize>| -> Result<Option<u64>, DataError> {
            match col {
                Some(c) if !is_blank(Table::get(row, c)) => whole(c).map(Some),
                _ => Ok(None),
            }
        };
        let duration_ns = match (self.start, self.end) {
            (Some(s), Some(e)) => duration(t, line, row, s, e)?,
            _ => None,
        };
        Ok(DispatchRecord {
            index: whole(self.id)?,
            kernel: Table::get(row, self.kernel).to_string(),
            grid_size: optional(self.grid)?,
            workgroup_size: optional(self.block)?,
            duration_ns,
            counters: BTreeMap::new(),
        })
    }
}

/// End minus start timestamp in ns. Whole-nanosecond stamps beyond 2^53 subtract exactly as
/// integers; some exports print fractional stamps, which subtract as floats.
fn duration(t: &Table, line: u64, row: &[String], start: usize, end: usize) -> Result<Option<f64>, DataError> {
    let (s, e) = (Table::get(row, start), Table::get(row, end));
    if is_blank(s) || is_blank(e) {
        return Ok(None);
    }
    let d = match (s.parse::<u64>(), e.parse::<u64>()) {
        (Ok(s), Ok(e)) if e >= s => (e - s) as f64,
        (Ok(s), Ok(e)) => -((s - e) as f64),
        _ => t.number(line, row, end)? - t.number(line, row, start)?,
    };
    if d < 0.0 {
        return Err(DataError::at(&t.path, line, format!("kernel ends ({e}) before it starts ({s})")));
    }
    Ok(Some(d))
}

fn wide_layout(t: &Table, cols: &Columns) -> Result<Vec<DispatchRecord>, DataError> {
    let counter_cols: Vec<usize> = (0..t.headers.len()).filter(|&c| !t.headers[c].is_empty() && !is_identity(&t.headers[c])).collect();
    let mut out = Vec::with_capacity(t.rows.len());
    for (line, row) in &t.rows {
        let mut rec = cols.record(t, *line, row)?;
        for &c in &counter_cols {
            // A counter left empty was not collected for this dispatch.
            if let Some(v) = t.optional_number(*line, row, Some(c))? {
                rec.counters.insert(t.headers[c].clone(), v);
            }
        }
        out.push(rec);
    }
    Ok(out)
}

fn long_layout(t: &Table, cols: &Columns, name: usize, value: usize) -> Result<Vec<DispatchRecord>, DataError> {
    let mut out: Vec<DispatchRecord> = Vec::new();
    for (line, row) in &t.rows {
        let rec = cols.record(t, *line, row)?;
        let counter = Table::get(row, name);
        if counter.is_empty() {
            return Err(DataError::field(&t.path, *line, &t.headers[name], "empty counter name"));
        }
        let v = t.optional_number(*line, row, Some(value))?;
        // Rows of one dispatch need not be adjacent; group them by dispatch ID in first-seen order.
        let i = match out.iter().position(|d| d.index == rec.index) {
            Some(i) => i,
            None => {
                out.push(rec);
                out.len() - 1
            }
        };
        if let Some(v) = v {
            out[i].counters.insert(counter.to_string(), v);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn parse(text: &str) -> Result<Vec<DispatchRecord>, DataError> {
        let dir = std::env::temp_dir().join(format!("hipscope-rocprof-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| DataError::file(&dir, e.to_string()))?;
        let p = dir.join(format!("{:x}.csv", text.len() * 31 + text.bytes().map(|b| b as usize).sum::<usize>()));
        std::fs::write(&p, text).map_err(|e| DataError::file(&p, e.to_string()))?;
        read_dispatches(&p)
    }

    #[test]
    fn wide_rows_with_pass_suffixes() {
        let d = parse(
            "Dispatch_ID,Kernel_Name,GPU_ID,grd,Workgroup_Size,wave_size,obj,TCC_HIT[0],TCC_HIT_sum,wave_size_1,obj_1,SQ_WAVES,Start_Timestamp,End_Timestamp\n\
            0,\"vecCopy(double*, double*) [clone .kd]\",2,1024,256,64,0x7f00,3,5,64,0x7f01,16,1000,1250\n\
            1,\"vecCopy(double*, double*) [clone .kd]\",2,1024,256,64,0x7f00,1,2,64,0x7f01,,2000,2100\n",
        )
        .unwrap();
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].kernel, "vecCopy(double*, double*) [clone .kd]");
        assert_eq!((d[0].grid_size, d[0].workgroup_size, d[0].duration_ns), (Some(1024), Some(256), Some(250.0)));
        assert_eq!(d[0].counters.keys().collect::<Vec<_>>(), ["SQ_WAVES", "TCC_HIT[0]", "TCC_HIT_sum"]);
        assert!(!d[1].counters.contains_key("SQ_WAVES"), "an empty counter field is not collected");
    }

    #[test]
    fn long_rows_group_by_dispatch() {
        let d = parse(
            "GPU_ID,Dispatch_ID,Grid_Size,Workgroup_Size,Kernel_Name,Start_Timestamp,End_Timestamp,Kernel_ID,Counter_Name,Counter_Value\n\
            2,1,64,64,k,13386742234691895,13386742234700548,12,SQ_WAVES,1.0\n\
            2,2,64,64,k,13386742234800000,13386742234800100,12,SQ_WAVES,1.0\n\
            2,1,64,64,k,13386742234691895,13386742234700548,12,TCC_HIT_sum,7\n",
        )
        .unwrap();
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].duration_ns, Some(8653.0), "timestamps beyond 2^53 ns subtract exactly");
        assert_eq!(d[0].counters.len(), 2);
        assert_eq!(d[1].counters["SQ_WAVES"], 1.0);
    }

    #[test]
    fn malformed_profiles_are_one_line_errors() {
        let cases = [
            ("Kernel_Name,SQ_WAVES\nk,1\n", "no column 'Dispatch_ID'"),
            ("Dispatch_ID,Kernel_Name,SQ_WAVES\nzero,k,1\n", "field 'Dispatch_ID': 'zero' is not a whole number"),
            ("Dispatch_ID,Kernel_Name,SQ_WAVES\n0,k,lots\n", ":2: field 'SQ_WAVES': 'lots' is not a number"),
            ("Dispatch_ID,Kernel_Name,Start_Timestamp,End_Timestamp\n0,k,200,100\n", "ends (100) before it starts (200)"),
            ("Dispatch_ID,Kernel_Name\n0,k,extra\n", "3 fields, but the header names 2"),
            // A row cut short (a truncated file) was read with its last counters missing.
            (
                "Dispatch_ID,Kernel_Name,SQ_WAVES,TCC_HIT_sum\n0,k,64,5\n1,k,6",
                ":3: field 'TCC_HIT_sum': missing: the row ends after 3 of the header's 4 fields",
            ),
            ("Dispatch_ID,Kernel_Name,Counter_Name,Counter_Value\n0,k,,1\n", "empty counter name"),
            ("", "empty file"),
        ];
        for (text, want) in cases {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(want), "{text:?}: got '{e}', want '{want}'");
            assert!(!e.contains('\n'));
        }
    }

    #[test]
    fn sysinfo_schemas_and_errors() {
        let dir = std::env::temp_dir().join(format!("hipscope-sysinfo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |name: &str, text: &str| -> PathBuf {
            let p = dir.join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        let new = write("new.csv", "command,gpu_model,gpu_arch,cu_per_gpu,max_sclk,cur_sclk,total_l2_chan,num_xcd,rocm_version\n\"./vcopy -n 8 -b 4\",MI200,gfx90a,104,1700,1700,32,1,6.0.2\n");
        let s = read_sysinfo(&new).unwrap();
        assert_eq!(
            (s.gpu_model.as_str(), s.gpu_arch.as_str(), s.compute_units, s.max_sclk_mhz, s.l2_channels),
            ("MI200", "gfx90a", Some(104), Some(1700.0), Some(32))
        );
        let old = write("old.csv", "workload_name,gpu_soc,numCU,L2,sclk,cur_sclk,L2Banks,name\nmixbench,gfx908,120,,1502,300,32,mi100");
        let s = read_sysinfo(&old).unwrap();
        assert_eq!((s.gpu_model.as_str(), s.gpu_arch.as_str(), s.compute_units, s.l2_kib, s.cur_sclk_mhz), ("mi100", "gfx908", Some(120), None, Some(300.0)));
        let bad = write("bad.csv", "gpu_arch,cu_per_gpu\ngfx90a,many\n");
        assert!(read_sysinfo(&bad).unwrap_err().to_string().ends_with("bad.csv:2: field 'cu_per_gpu': 'many' is not a number"));
        let frac = write("frac.csv", "gpu_arch,cu_per_gpu\ngfx90a,1.5\n");
        assert!(read_sysinfo(&frac).unwrap_err().to_string().contains("1.5 is not a count"));
        let none = write("none.csv", "gpu_arch,cu_per_gpu\n");
        assert!(read_sysinfo(&none).unwrap_err().to_string().contains("no data row"));
        assert!(read_profile(&dir.join("missing")).unwrap_err().to_string().contains("not a directory"));
    }
}
