//! `hipscope sweep --slurm --submit` against a real Slurm: a single-node cluster brought up
//! from Debian's packages (munged, slurmctld, slurmd; configuration, keys and state in a
//! temporary directory, daemons started and stopped by the test), a 4-shard sweep submitted
//! as a job array with its dependent merge job, and the merged results compared byte for byte
//! with a one-process run of the same plan.
//!
//! Without Slurm installed the test prints `SKIPPED: slurm not installed` (`.ci/run` installs
//! it, so it runs there).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The program's path, if it is installed (also where Debian puts daemons: /usr/sbin).
fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var("PATH").unwrap_or_default();
    let found = path.split(':').chain(["/usr/sbin", "/sbin"]).map(|d| Path::new(d).join(name)).find(|p| p.is_file());
    found
}

/// A port nobody listens on now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port")
}

/// The daemons of a one-node cluster; stopped when dropped.
struct Cluster {
    dir: PathBuf,
    daemons: Vec<Child>,
    conf: PathBuf,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for d in self.daemons.iter_mut().rev() {
            let _ = d.kill();
            let _ = d.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Cluster {
    fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join("log").join(name)).unwrap_or_default()
    }

    fn logs(&self) -> String {
        ["munged.log", "slurmctld.log", "slurmd.log"].iter().map(|n| format!("--- {n}\n{}", self.log(n))).collect()
    }

    /// A Slurm client command against this cluster.
    fn cmd(&self, program: &str) -> Command {
        let mut c = Command::new(which(program).unwrap_or_else(|| PathBuf::from(program)));
        c.env("SLURM_CONF", &self.conf);
        c
    }

    fn start(bins: &Bins) -> Cluster {
        let dir = std::env::temp_dir().join(format!("hipscope-slurm-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for d in ["munge", "state", "spool", "log"] {
            std::fs::create_dir_all(dir.join(d)).unwrap();
        }
        let dir = dir.canonicalize().unwrap();
        let mut cluster = Cluster { dir: dir.clone(), daemons: Vec::new(), conf: dir.join("slurm.conf") };
        // munge: a fresh key, its socket in our directory (munged checks the directory's mode).
        let key: Vec<u8> = (0..1024u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8 ^ (std::process::id() as u8)).collect();
        std::fs::write(dir.join("munge/munge.key"), key).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir.join("munge/munge.key"), std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::set_permissions(dir.join("munge"), std::fs::Permissions::from_mode(0o755)).unwrap();
        let socket = dir.join("munge/munge.sock");
        let d = |p: &str| dir.join(p).display().to_string();
        let munged = Command::new(&bins.munged)
            .args(["--foreground", "--force"])
            .arg(format!("--socket={}", socket.display()))
            .arg(format!("--key-file={}", d("munge/munge.key")))
            .arg(format!("--log-file={}", d("log/munged.log")))
            .arg(format!("--pid-file={}", d("munge/munged.pid")))
            .arg(format!("--seed-file={}", d("munge/seed")))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("munged starts");
        cluster.daemons.push(munged);
        wait_for(|| socket.exists().then_some(()), Duration::from_secs(10)).unwrap_or_else(|| panic!("munged did not start\n{}", cluster.logs()));
        let host = String::from_utf8(Command::new("hostname").arg("-s").output().expect("hostname").stdout).unwrap().trim().to_string();
        let conf = format!(
            "ClusterName=hipscope-test\nSlurmctldHost={host}\nSlurmctldPort={}\nSlurmdPort={}\nAuthType=auth/munge\nAuthInfo=socket={}\nCredType=cred/munge\n\
             SlurmUser=root\nSlurmdUser=root\nStateSaveLocation={}\nSlurmdSpoolDir={}\nSlurmctldPidFile={}\nSlurmdPidFile={}\n\
             SlurmctldLogFile={}\nSlurmdLogFile={}\nProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n\
             AccountingStorageType=accounting_storage/none\nJobCompType=jobcomp/none\nSchedulerType=sched/builtin\nSelectType=select/cons_tres\n\
             SelectTypeParameters=CR_CPU\nMpiDefault=none\nReturnToService=2\nSlurmctldTimeout=30\nSlurmdTimeout=30\n\
             NodeName={host} NodeAddr=127.0.0.1 CPUs={} State=UNKNOWN\nPartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
            free_port(),
            free_port(),
            socket.display(),
            d("state"),
            d("spool"),
            d("slurmctld.pid"),
            d("slurmd.pid"),
            d("log/slurmctld.log"),
            d("log/slurmd.log"),
            std::thread::available_parallelism().map_or(1, |n| n.get()),
        );
        std::fs::write(&cluster.conf, conf).unwrap();
        for (bin, name) in [(&bins.slurmctld, "slurmctld"), (&bins.slurmd, "slurmd")] {
            let child = Command::new(bin)
                .args(["-D", "-f"])
                .arg(&cluster.conf)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            cluster.daemons.push(child);
        }
        let idle = || {
            let out = cluster.cmd("sinfo").args(["-h", "-o", "%T"]).output().ok()?;
            String::from_utf8_lossy(&out.stdout).contains("idle").then_some(())
        };
        wait_for(idle, Duration::from_secs(60)).unwrap_or_else(|| panic!("the cluster did not come up\n{}", cluster.logs()));
        cluster
    }
}

/// Poll `f` every 200 ms until it gives something or `limit` passes.
fn wait_for<T>(mut f: impl FnMut() -> Option<T>, limit: Duration) -> Option<T> {
    let start = Instant::now();
    loop {
        if let Some(x) = f() {
            return Some(x);
        }
        if start.elapsed() > limit {
            return None;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

struct Bins {
    munged: PathBuf,
    slurmctld: PathBuf,
    slurmd: PathBuf,
}

fn bins() -> Option<Bins> {
    for client in ["sbatch", "sinfo", "squeue"] {
        which(client)?;
    }
    Some(Bins { munged: which("munged")?, slurmctld: which("slurmctld")?, slurmd: which("slurmd")? })
}

fn hipscope(args: &[&str], slurm_conf: Option<&Path>) -> (i32, String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_hipscope"));
    c.args(args).current_dir(root());
    if let Some(conf) = slurm_conf {
        c.env("SLURM_CONF", conf);
    }
    let out = c.output().expect("hipscope runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_four_shard_sweep_through_slurm_merges_to_the_one_process_results() {
    let Some(bins) = bins() else {
        println!("SKIPPED: slurm not installed (apt-get install slurm-wlm munge)");
        return;
    };
    let cluster = Cluster::start(&bins);
    let plan = "tests/sweeps/small.ron";
    let (slurm_out, local_out) = (cluster.dir.join("sweep"), cluster.dir.join("local"));
    let so = slurm_out.display().to_string();
    let (code, out, err) = hipscope(&["sweep", plan, "--out", &so, "--slurm", "--shards", "4", "--jobs", "1", "--submit"], Some(&cluster.conf));
    assert_eq!(code, 0, "{out}{err}\n{}", cluster.logs());
    assert!(out.contains("submitted: job array"), "{out}");
    let results = slurm_out.join("results.csv");
    let finished = wait_for(
        || {
            let q = cluster.cmd("squeue").args(["-h", "-o", "%i %T"]).output().ok()?;
            let queue = String::from_utf8_lossy(&q.stdout).to_string();
            (queue.trim().is_empty() && results.is_file()).then_some(())
        },
        Duration::from_secs(600),
    );
    let job_logs: String = std::fs::read_dir(&slurm_out)
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with("slurm-"))
                .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
                .collect()
        })
        .unwrap_or_default();
    assert!(finished.is_some(), "the jobs did not finish with merged results\njob output:\n{job_logs}\n{}", cluster.logs());
    for i in 0..4 {
        assert!(slurm_out.join(format!("shard-{i}-of-4.jsonl")).is_file(), "shard {i} missing; job output:\n{job_logs}");
    }
    let (code, out, err) = hipscope(&["sweep", plan, "--out", &local_out.display().to_string(), "--jobs", "2"], None);
    assert_eq!(code, 0, "{out}{err}");
    for f in ["results.csv", "results.json"] {
        let a = std::fs::read(slurm_out.join(f)).unwrap();
        let b = std::fs::read(local_out.join(f)).unwrap();
        assert!(a == b, "{f}: the Slurm run's merge differs from the one-process run");
    }
    println!("4 array tasks and the merge job ran through slurmctld/slurmd; merged results identical to one process");
}
