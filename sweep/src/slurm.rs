//! Slurm: a job array that runs one shard per task, and a merge job that waits for all of them
//! (`--dependency=afterok`). The scripts are written into the sweep's output directory; the
//! command that submits them is printed, and run with `--submit`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// How the array is submitted.
#[derive(Debug, Clone)]
pub struct Options {
    pub shards: usize,
    pub partition: Option<String>,
    /// `--time` as Slurm reads it (`1:00:00`, `30`).
    pub time: Option<String>,
    /// Threads per shard (`--cpus-per-task`, and the shard's `--jobs`).
    pub cpus: usize,
    /// `--sample`, passed on to every shard (`None`: the plan's own).
    pub sample: Option<String>,
}

/// The scripts written.
#[derive(Debug, Clone)]
pub struct Scripts {
    pub array: PathBuf,
    pub merge: PathBuf,
}

/// The end of an array task: exit 1 (points failed) and 3 (a point's kernel faulted) mean
/// the shard finished with those points recorded with their error, so the task succeeds and
/// the merge (`afterok`) runs and reports them with the same status; anything else (bad
/// input, a killed task) fails the task and holds the merge back.
const SHARD_STATUS: &str = "status=$?\nif [ \"$status\" -eq 1 ] || [ \"$status\" -eq 3 ]; then exit 0; fi\nexit \"$status\"\n";

/// A word quoted for `sh`.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn header(name: &str, output: &Path, o: &Options) -> String {
    let mut h = format!("#!/bin/sh\n#SBATCH --job-name={name}\n#SBATCH --output={}\n", output.display());
    if let Some(p) = &o.partition {
        h.push_str(&format!("#SBATCH --partition={p}\n"));
    }
    if let Some(t) = &o.time {
        h.push_str(&format!("#SBATCH --time={t}\n"));
    }
    h
}

/// Write the array and merge scripts for `plan` into `out` (both absolute: the jobs may start
/// in another directory), to run `hipscope` (this executable).
pub fn write(hipscope: &Path, plan: &Path, out: &Path, o: &Options) -> Result<Scripts, String> {
    let abs = |p: &Path| std::path::absolute(p).map_err(|e| format!("{}: {e}", p.display()));
    let (exe, plan, out) = (abs(hipscope)?, abs(plan)?, abs(out)?);
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let n = o.shards.max(1);
    let mut array = header("hipscope-sweep", &out.join("slurm-%A_%a.out"), o);
    array.push_str(&format!("#SBATCH --array=0-{}\n#SBATCH --cpus-per-task={}\n", n - 1, o.cpus.max(1)));
    array.push_str(&format!(
        "# One shard of the sweep per array task; a task run again resumes its shard.\n{} sweep {} --out {} --shard \"$SLURM_ARRAY_TASK_ID/{n}\" --jobs \"${{SLURM_CPUS_PER_TASK:-1}}\"{}\n{SHARD_STATUS}",
        quote(&exe.display().to_string()),
        quote(&plan.display().to_string()),
        quote(&out.display().to_string()),
        o.sample.as_ref().map_or_else(String::new, |s| format!(" --sample {}", quote(s)))
    ));
    let mut merge = header("hipscope-sweep-merge", &out.join("slurm-merge-%j.out"), o);
    merge.push_str(&format!(
        "# After every shard succeeded: check them and write results and plots.\nexec {} sweep merge {}\n",
        quote(&exe.display().to_string()),
        quote(&out.display().to_string())
    ));
    let scripts = Scripts { array: out.join("sweep.sbatch"), merge: out.join("merge.sbatch") };
    for (path, text) in [(&scripts.array, array), (&scripts.merge, merge)] {
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(scripts)
}

impl Scripts {
    /// The shell command that submits the array and the merge job after it.
    pub fn command(&self) -> String {
        format!(
            "jobid=$(sbatch --parsable {}) && sbatch --dependency=afterok:${{jobid%%;*}} {}",
            quote(&self.array.display().to_string()),
            quote(&self.merge.display().to_string())
        )
    }

    /// Submit both (`sbatch` on the PATH); returns the two job ids.
    pub fn submit(&self) -> Result<(String, String), String> {
        let array = sbatch(&["--parsable".into(), self.array.display().to_string()])?;
        let merge = sbatch(&["--parsable".into(), format!("--dependency=afterok:{array}"), self.merge.display().to_string()])?;
        Ok((array, merge))
    }
}

/// Run `sbatch args…`; the job id it prints (`--parsable`: `ID` or `ID;CLUSTER`).
fn sbatch(args: &[String]) -> Result<String, String> {
    let out = Command::new("sbatch").args(args).output().map_err(|e| format!("sbatch: cannot run: {e} (is Slurm installed?)"))?;
    if !out.status.success() {
        return Err(format!("sbatch {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let id = text.trim().split(';').next().unwrap_or_default().to_string();
    if id.is_empty() {
        return Err(format!("sbatch {}: printed no job id", args.join(" ")));
    }
    Ok(id)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// The array task's exit status for each exit status of `hipscope sweep` (a stand-in
    /// executable that exits with it): failed points let the merge run, the rest holds it.
    #[test]
    fn failed_points_let_the_merge_run_and_other_failures_hold_it_back() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("hipscope-slurm-script-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let o = Options { shards: 2, partition: None, time: None, cpus: 1, sample: None };
        for (sweep_status, task_status) in [(0, 0), (1, 0), (3, 0), (2, 2), (137, 137)] {
            let exe = dir.join(format!("fake-{sweep_status}"));
            std::fs::write(&exe, format!("#!/bin/sh\nexit {sweep_status}\n")).unwrap();
            std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
            let scripts = write(&exe, Path::new("plan.ron"), &dir.join("out"), &o).unwrap();
            let status = Command::new("sh").arg(&scripts.array).env("SLURM_ARRAY_TASK_ID", "1").status().unwrap();
            assert_eq!(status.code(), Some(task_status), "sweep exit {sweep_status}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
