//! gpu-benches outputs (te42kyfo/gpu-benches, HIP builds): the `gpu-*/<gpu>.txt` files of the
//! repository and the `gpu-*.out` files of the SC25 CDNA3 artifact. Text tables: `clock:`
//! lines, `Agent N` lines and headers are skipped; a line that starts with a number is a
//! measurement and must parse completely.
//!
//! - gpu-cache: `<size> kB  <time>ms  <spread>%  <bw> GB/s  [<bw> GB/s ...]` (data set →
//!   effective bandwidth; later GB/s columns are counter-derived DRAM/L2 rates, often 0).
//! - gpu-l2-cache: `<size> kB  <size> kB  <time>ms  <spread>%  <bw> GB/s ...` (per-block data,
//!   whole data set → bandwidth).
//! - gpu-stream: a header naming the kernels after `|`; rows `block threads occ% | GB/s: v v ...`.
//!   The SC25 build prints `block threads blocks_per_CU occ%` (its header words are shifted:
//!   the second value is block × CUs, i.e. threads).
//! - gpu-latency: `iterations clock_MHz working_set_KiB <time> cycles [cycles ...]`.
//! - gpu-small-kernels: `<items> <size>kB <GB/s> [<GB/s> ...]`: a `scale` kernel (8 bytes read,
//!   8 written per item) launched back to back over `items`, one column per work-group size,
//!   16, 32, 64, … items (the program's loop over group sizes).

use super::{parse_number, read_text, size_bytes, DataError};
use std::path::Path;

/// gpu-cache: one data-set size.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CachePoint {
    pub data_set_bytes: f64,
    pub bandwidth_gbps: f64,
}

/// gpu-l2-cache: one (per-block data, total data set) pair.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct L2CachePoint {
    pub block_bytes: f64,
    pub data_set_bytes: f64,
    pub bandwidth_gbps: f64,
}

/// gpu-stream: one launch configuration with the bandwidth of every kernel.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct StreamPoint {
    pub block_size: u32,
    pub threads: u64,
    /// Resident blocks per CU (SC25 build only).
    pub blocks_per_cu: Option<u32>,
    pub occupancy_percent: f64,
    /// (kernel column: `init`, `read`, `scale`, `triad`, `1pt`, `3pt`, `5pt`, …) → GB/s, in
    /// the file's column order.
    pub gbps: Vec<(String, f64)>,
}

impl StreamPoint {
    pub fn kernel_gbps(&self, kernel: &str) -> Option<f64> {
        self.gbps.iter().find(|(k, _)| k == kernel).map(|(_, v)| *v)
    }
}

/// gpu-latency: one working-set size.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LatencyPoint {
    pub iterations: f64,
    pub clock_mhz: f64,
    pub working_set_bytes: f64,
    /// Cycles per hop (the first cycles column; the SC25 build prints more repeats after it).
    pub cycles: f64,
}

/// gpu-small-kernels: one problem size, the bandwidth at every work-group size.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SmallKernelsPoint {
    pub items: u64,
    /// (work-group size, GB/s), in column order.
    pub gbps: Vec<(u32, f64)>,
}

/// The work-group size of gpu-small-kernels' first column; each next column doubles it.
pub const SMALL_KERNELS_FIRST_GROUP: u32 = 16;

/// Measurement lines: (1-based line number, whitespace-separated words).
fn measurement_lines(text: &str) -> impl Iterator<Item = (u64, Vec<&str>)> {
    text.lines().enumerate().filter_map(|(i, l)| {
        let words: Vec<&str> = l.split_whitespace().collect();
        let first = words.first()?;
        first.parse::<f64>().is_ok().then_some((i as u64 + 1, words))
    })
}

fn nonempty<T>(path: &Path, v: Vec<T>) -> Result<Vec<T>, DataError> {
    if v.is_empty() {
        Err(DataError::file(path, "no measurement lines"))
    } else {
        Ok(v)
    }
}

/// A `<value> <unit>` size at `words[i]`.
fn size_at(path: &Path, line: u64, words: &[&str], i: usize, what: &str) -> Result<f64, DataError> {
    let v = words.get(i).and_then(|w| parse_number(w));
    let unit = words.get(i + 1).copied().unwrap_or("");
    match v.and_then(|v| size_bytes(v, unit)) {
        Some(b) if b > 0.0 => Ok(b),
        _ => Err(DataError::field(path, line, what, format!("'{} {unit}' is not a size", words.get(i).copied().unwrap_or("")))),
    }
}

/// The first number followed by `GB/s`, searching from `words[from]`.
fn first_gbps(path: &Path, line: u64, words: &[&str], from: usize) -> Result<f64, DataError> {
    let i = (from..words.len()).find(|&i| words.get(i + 1) == Some(&"GB/s")).ok_or_else(|| DataError::at(path, line, "no 'GB/s' value"))?;
    parse_number(words[i]).ok_or_else(|| DataError::field(path, line, "bandwidth", format!("'{}' is not a number", words[i])))
}

pub fn read_cache(path: &Path) -> Result<Vec<CachePoint>, DataError> {
    let text = read_text(path)?;
    let mut out = Vec::new();
    for (line, w) in measurement_lines(&text) {
        let data_set_bytes = size_at(path, line, &w, 0, "data set")?;
        out.push(CachePoint { data_set_bytes, bandwidth_gbps: first_gbps(path, line, &w, 2)? });
    }
    nonempty(path, out)
}

pub fn read_l2_cache(path: &Path) -> Result<Vec<L2CachePoint>, DataError> {
    let text = read_text(path)?;
    let mut out = Vec::new();
    for (line, w) in measurement_lines(&text) {
        let block_bytes = size_at(path, line, &w, 0, "block data")?;
        let data_set_bytes = size_at(path, line, &w, 2, "data set")?;
        out.push(L2CachePoint { block_bytes, data_set_bytes, bandwidth_gbps: first_gbps(path, line, &w, 4)? });
    }
    nonempty(path, out)
}

pub fn read_stream(path: &Path) -> Result<Vec<StreamPoint>, DataError> {
    let text = read_text(path)?;
    let header = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains('|') && !l.contains("GB/s"))
        .ok_or_else(|| DataError::file(path, "no header line naming the kernels ('... | init read ...')"))?;
    let (left, right) = header.1.split_once('|').unwrap_or(("", ""));
    let kernels: Vec<&str> = right.split_whitespace().collect();
    if kernels.is_empty() {
        return Err(DataError::at(path, header.0 as u64 + 1, "no kernel names after '|'"));
    }
    let sc25 = left.contains("smBlocks");
    let mut out = Vec::new();
    for (line, _) in measurement_lines(&text) {
        let raw = text.lines().nth(line as usize - 1).unwrap_or("");
        let (l, r) = raw.split_once('|').ok_or_else(|| DataError::at(path, line, "no '|' between configuration and bandwidths"))?;
        let config: Vec<f64> = l
            .split_whitespace()
            .filter(|w| *w != "%")
            .map(|w| parse_number(w).ok_or_else(|| DataError::at(path, line, format!("'{w}' is not a number"))))
            .collect::<Result<_, _>>()?;
        let values: Vec<&str> = r.split_whitespace().filter(|w| *w != "GB/s:").collect();
        let want = if sc25 { 4 } else { 3 };
        if config.len() != want {
            return Err(DataError::at(path, line, format!("{} configuration values, expected {want}", config.len())));
        }
        if values.len() != kernels.len() {
            return Err(DataError::at(path, line, format!("{} bandwidths for {} kernels", values.len(), kernels.len())));
        }
        let mut gbps = Vec::new();
        for (k, v) in kernels.iter().zip(&values) {
            gbps.push((k.to_string(), parse_number(v).ok_or_else(|| DataError::field(path, line, k, format!("'{v}' is not a number")))?));
        }
        let whole = |v: f64, what: &str| {
            if v >= 0.0 && v.fract() == 0.0 {
                Ok(v)
            } else {
                Err(DataError::field(path, line, what, format!("{v} is not a whole number")))
            }
        };
        let (block, threads, per_cu, occ) = if sc25 { (config[0], config[1], Some(config[2]), config[3]) } else { (config[0], config[1], None, config[2]) };
        out.push(StreamPoint {
            block_size: whole(block, "block")? as u32,
            threads: whole(threads, "threads")? as u64,
            blocks_per_cu: per_cu.map(|v| whole(v, "blocks per CU")).transpose()?.map(|v| v as u32),
            occupancy_percent: occ,
            gbps,
        });
    }
    nonempty(path, out)
}

pub fn read_latency(path: &Path) -> Result<Vec<LatencyPoint>, DataError> {
    let text = read_text(path)?;
    let mut out = Vec::new();
    for (line, w) in measurement_lines(&text) {
        let f: Vec<f64> =
            w.iter().map(|x| parse_number(x).ok_or_else(|| DataError::at(path, line, format!("'{x}' is not a number")))).collect::<Result<_, _>>()?;
        if f.len() < 5 {
            return Err(DataError::at(path, line, format!("{} values, expected at least 5 (iterations, clock, KiB, time, cycles)", f.len())));
        }
        if f[2] <= 0.0 {
            return Err(DataError::field(path, line, "working set", format!("{} KiB is not a size", f[2])));
        }
        out.push(LatencyPoint { iterations: f[0], clock_mhz: f[1], working_set_bytes: f[2] * 1024.0, cycles: f[4] });
    }
    nonempty(path, out)
}

pub fn read_small_kernels(path: &Path) -> Result<Vec<SmallKernelsPoint>, DataError> {
    let text = read_text(path)?;
    let mut out = Vec::new();
    for (line, w) in measurement_lines(&text) {
        let items = w[0].parse::<u64>().map_err(|_| DataError::field(path, line, "items", format!("'{}' is not a whole number", w[0])))?;
        if w.get(1).is_none_or(|s| !s.ends_with("kB")) {
            return Err(DataError::field(path, line, "size", "expected '<n>kB' after the item count".to_string()));
        }
        let mut gbps = Vec::new();
        for (i, v) in w.iter().skip(2).enumerate() {
            let group =
                u32::try_from(i).ok().and_then(|i| SMALL_KERNELS_FIRST_GROUP.checked_shl(i)).ok_or_else(|| DataError::at(path, line, "too many columns"))?;
            gbps.push((group, parse_number(v).ok_or_else(|| DataError::field(path, line, "bandwidth", format!("'{v}' is not a number")))?));
        }
        if gbps.is_empty() {
            return Err(DataError::at(path, line, "no bandwidth columns"));
        }
        out.push(SmallKernelsPoint { items, gbps });
    }
    nonempty(path, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, text: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("hipscope-gpu-benches-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn well_formed_samples() {
        let c = read_cache(&file("c.txt", "clock: 800 800\n     data set   exec time     spread        Eff. bw       DRAM read\nAgent 0\n         4 kB       203ms       4.3%    9489.5 GB/s         0 GB/s\n")).unwrap();
        assert_eq!(c, [CachePoint { data_set_bytes: 4096.0, bandwidth_gbps: 9489.5 }]);
        let l2 = read_l2_cache(&file(
            "l2.txt",
            "     data set   exec time     spread       Eff. bw\n       384 kB       768 kB        15ms       0.2%    2696.8 GB/s        0 GB/s\n",
        ))
        .unwrap();
        assert_eq!(l2, [L2CachePoint { block_bytes: 384.0 * 1024.0, data_set_bytes: 768.0 * 1024.0, bandwidth_gbps: 2696.8 }]);
        let s = read_stream(&file(
            "s.txt",
            "blockSize   threads       %occ  |                init       read\n       32        3840      3 %  |  GB/s:         133        101\n",
        ))
        .unwrap();
        assert_eq!((s[0].block_size, s[0].threads, s[0].occupancy_percent, s[0].kernel_gbps("read")), (32, 3840, 3.0, Some(101.0)));
        let s = read_stream(&file(
            "s25.txt",
            "block smBlocks   threads    occ%   |                init       read\n  16      4864       1    0.8%     |  GB/s:         140         75\n",
        ))
        .unwrap();
        assert_eq!((s[0].threads, s[0].blocks_per_cu, s[0].occupancy_percent), (4864, Some(1), 0.8));
        let l = read_latency(&file("l.txt", "clock: 800 1700\n  1000000  1700        2     73.6   125.1\n   100000  2051      3.1      5.6   115.7 113.7\n"))
            .unwrap();
        assert_eq!((l[0].working_set_bytes, l[0].cycles, l[1].working_set_bytes, l[1].cycles), (2048.0, 125.1, 3.1 * 1024.0, 115.7));
        let k = read_small_kernels(&file("k.txt", "4096  64kB     20     21  \n2084864  32576kB    210    414    804\n")).unwrap();
        assert_eq!((k[0].items, k[1].items), (4096, 2084864));
        assert_eq!(k[1].gbps, vec![(16, 210.0), (32, 414.0), (64, 804.0)]);
    }

    #[test]
    fn malformed_samples_are_one_line_errors() {
        let cases: Vec<(Result<(), DataError>, &str)> = vec![
            (read_cache(&file("c1.txt", "   data set\n")).map(|_| ()), "no measurement lines"),
            (read_cache(&file("c2.txt", "4 furlongs 20ms 1% 9 GB/s\n")).map(|_| ()), "c2.txt:1: field 'data set': '4 furlongs' is not a size"),
            (read_cache(&file("c3.txt", "4 kB 20ms 1%\n")).map(|_| ()), "c3.txt:1: no 'GB/s' value"),
            (read_cache(&file("c4.txt", "4 kB 20ms 1% fast GB/s\n")).map(|_| ()), "field 'bandwidth': 'fast' is not a number"),
            (read_l2_cache(&file("l1.txt", "384 kB\n")).map(|_| ()), "field 'data set'"),
            (read_stream(&file("s1.txt", "32 3840 3 % | GB/s: 1 2\n")).map(|_| ()), "no header line"),
            (read_stream(&file("s2.txt", "b t o | init read\n32 3840 3 % | GB/s: 1\n")).map(|_| ()), "s2.txt:2: 1 bandwidths for 2 kernels"),
            (read_stream(&file("s3.txt", "b t o | init\n32 3840 x % | GB/s: 1\n")).map(|_| ()), "'x' is not a number"),
            (read_stream(&file("s4.txt", "b t o | init\n32.5 3840 3 % | GB/s: 1\n")).map(|_| ()), "field 'block': 32.5 is not a whole number"),
            (read_stream(&file("s5.txt", "b t o | init\n32 3840 | GB/s: 1\n")).map(|_| ()), "2 configuration values, expected 3"),
            (read_latency(&file("t1.txt", "1000 1700 2 73.6\n")).map(|_| ()), "t1.txt:1: 4 values, expected at least 5"),
            (read_latency(&file("t2.txt", "1000 1700 2 73.6 1x5\n")).map(|_| ()), "'1x5' is not a number"),
            (read_latency(&file("t3.txt", "1000 1700 -2 73.6 125\n")).map(|_| ()), "field 'working set'"),
            (read_small_kernels(&file("k1.txt", "4096.5 64kB 20\n")).map(|_| ()), "k1.txt:1: field 'items': '4096.5' is not a whole number"),
            (read_small_kernels(&file("k2.txt", "4096 64 20\n")).map(|_| ()), "field 'size'"),
            (read_small_kernels(&file("k3.txt", "4096 64kB\n")).map(|_| ()), "no bandwidth columns"),
            (read_small_kernels(&file("k4.txt", "4096 64kB 2o\n")).map(|_| ()), "'2o' is not a number"),
            (read_latency(Path::new("/nonexistent/gpu-latency.out")).map(|_| ()), "cannot read"),
        ];
        for (r, want) in cases {
            let e = r.expect_err(want).to_string();
            assert!(e.contains(want), "got '{e}', want '{want}'");
            assert!(!e.contains('\n'));
        }
    }
}
