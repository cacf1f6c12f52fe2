//! What `hipscope exec` writes about each launch: `--kernel-trace FILE.csv`, one row per
//! kernel launch in the columns of rocprofv3's kernel trace (`--kernel-trace`,
//! `kernel_trace.csv`), so scripts written for traces of a real GPU read ours; `--counters
//! FILE.csv`, the timing model's counters per launch; `--report FILE.json`, everything at exit.
//! Times are nanoseconds on the simulated timeline (0 in functional mode, which has none).

use hipscope_isa::codeobj::{self, RegisterCounts};
use hipscope_sim::kernel::LoadedKernel;
use hipscope_sim::Geometry;
use std::io::Write;
use std::path::PathBuf;

const HEADER: &str = "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"Private_Segment_Size\",\"Group_Segment_Size\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\",\"LDS_Block_Size\",\"Scratch_Size\",\"Arch_VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\"";

pub struct KernelTrace {
    path: PathBuf,
    file: std::io::BufWriter<std::fs::File>,
    dispatches: u64,
    /// Kernel name → id, in order of first launch.
    kernel_ids: Vec<String>,
}

impl KernelTrace {
    pub fn create(path: PathBuf) -> Result<KernelTrace, String> {
        let f = std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut file = std::io::BufWriter::new(f);
        writeln!(file, "{HEADER}").map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(KernelTrace { path, file, dispatches: 0, kernel_ids: Vec::new() })
    }

    /// A launch of `kernel` on `stream`, from `start_ms` to `end_ms`.
    pub fn kernel(&mut self, kernel: &LoadedKernel, regs: Option<&RegisterCounts>, geo: &Geometry, stream: usize, start_ms: f64, end_ms: f64) {
        self.dispatches += 1;
        let id = match self.kernel_ids.iter().position(|k| *k == kernel.name) {
            Some(i) => i + 1,
            None => {
                self.kernel_ids.push(kernel.name.clone());
                self.kernel_ids.len()
            }
        };
        let d = &kernel.descriptor;
        let name = codeobj::demangle(&kernel.name).unwrap_or_else(|| kernel.name.clone()).replace('"', "\"\"");
        let ns = |ms: f64| (ms * 1e6).round() as u64;
        let lds = d.group_segment_fixed_size + geo.dynamic_lds;
        // GFX90A/GFX940 allocate arch VGPRs and AGPRs from one file; the split is ACCUM_OFFSET.
        let (arch, accum, sgprs) = match regs {
            Some(r) => match r.accum_offset {
                Some(off) => (off.min(r.vgprs), r.agprs_allocated.unwrap_or(0), r.sgprs),
                None => (r.vgprs, 0, r.sgprs),
            },
            None => (kernel.vgprs, 0, 0),
        };
        let row = format!(
            "\"KERNEL_DISPATCH\",1,1,{stream},{tid},{n},{id},\"{name}\",{n},{},{},{p},{lds},{},{},{},{},{},{},{lds},{p},{arch},{accum},{}",
            ns(start_ms),
            ns(end_ms),
            geo.block[0],
            geo.block[1],
            geo.block[2],
            geo.grid[0],
            geo.grid[1],
            geo.grid[2],
            sgprs,
            tid = std::process::id(),
            n = self.dispatches,
            p = d.private_segment_fixed_size,
        );
        if let Err(e) = writeln!(self.file, "{row}").and_then(|()| self.file.flush()) {
            eprintln!("hipscope: {}: {e}", self.path.display());
        }
    }
}

/// `--counters FILE.csv`: per launch, its id, kernel, times and every counter of the timing
/// model under the profiler's names (the header is written with the first row).
pub struct CounterLog {
    path: PathBuf,
    file: std::io::BufWriter<std::fs::File>,
    rows: u64,
}

impl CounterLog {
    pub fn create(path: PathBuf) -> Result<CounterLog, String> {
        let f = std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(CounterLog { path, file: std::io::BufWriter::new(f), rows: 0 })
    }

    pub fn launch(&mut self, kernel: &str, start_ms: f64, end_ms: f64, counters: &[(String, u64)]) {
        let ns = |ms: f64| (ms * 1e6).round() as u64;
        let mut text = String::new();
        if self.rows == 0 {
            text.push_str("Dispatch_Id,Kernel_Name,Start_Timestamp,End_Timestamp");
            for (n, _) in counters {
                text.push(',');
                text.push_str(n);
            }
            text.push('\n');
        }
        self.rows += 1;
        let name = codeobj::demangle(kernel).unwrap_or_else(|| kernel.to_string()).replace('"', "\"\"");
        text.push_str(&format!("{},\"{name}\",{},{}", self.rows, ns(start_ms), ns(end_ms)));
        for (_, v) in counters {
            text.push_str(&format!(",{v}"));
        }
        text.push('\n');
        if let Err(e) = self.file.write_all(text.as_bytes()).and_then(|()| self.file.flush()) {
            eprintln!("hipscope: {}: {e}", self.path.display());
        }
    }
}
