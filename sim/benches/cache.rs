//! Cache lookups and allocations, the memory system's per-line work: `cargo bench -p
//! hipscope-sim --bench cache`.
//!
//! Each iteration looks up 65 536 lines and allocates (and, with data, fills) those missing,
//! as L2 misses do:
//! * a 256 MB tag-only MALL (mi300a's shape) emptied before each iteration, taking one
//!   contiguous 8 MiB range: the sparse sets of a short run;
//! * the same MALL filled with twice its capacity first, then streaming new lines: every set
//!   full, every miss a victim choice over all 16 ways (the worst case of its way-major layout);
//! * a 4 MiB, 16-way L2 with data (one XCD of mi300a) streaming 16 MiB: full sets with fills.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use hipscope_sim::memsys::cache::{Cache, Geometry};
use std::hint::black_box;
use std::time::Duration;

const LINES: u64 = 65_536;
const MALL: Geometry = Geometry { size_bytes: 256 << 20, line_bytes: 128, ways: 16 };
const L2: Geometry = Geometry { size_bytes: 4 << 20, line_bytes: 128, ways: 16 };

/// Look up `LINES` lines from line `first` on; allocate and fill the missing ones. Hits.
fn stream(c: &mut Cache, first: u64, fill: &[u8]) -> u64 {
    let lb = c.line_bytes() as u64;
    let mut hits = 0;
    for line in first..first + LINES {
        match c.find(line * lb) {
            Some(s) => {
                c.touch(s);
                hits += 1;
            }
            None => {
                let (s, _) = c.allocate(line * lb);
                c.fill(s, fill);
            }
        }
    }
    hits
}

fn cache(cr: &mut Criterion) {
    let mut group = cr.benchmark_group("cache");
    group.sample_size(10).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements(LINES));
    let line = [0u8; 128];

    let mut sparse = Cache::new(MALL, false).hashed();
    group.bench_function("mall 256 MB sparse (emptied, 8 MiB)", |b| {
        b.iter(|| {
            sparse.clear();
            black_box(stream(&mut sparse, 0, &line))
        })
    });

    let mut full = Cache::new(MALL, false).hashed();
    let capacity = MALL.size_bytes / MALL.line_bytes as u64;
    let mut next = 0;
    while next < 2 * capacity {
        stream(&mut full, next, &line);
        next += LINES;
    }
    group.bench_function("mall 256 MB full (streaming)", |b| {
        b.iter(|| {
            next += LINES;
            black_box(stream(&mut full, next, &line))
        })
    });

    let mut l2 = Cache::new(L2, true).hashed();
    let mut at = 0;
    group.bench_function("l2 4 MiB with data (streaming 16 MiB)", |b| {
        b.iter(|| {
            at = (at + LINES) % (4 * LINES);
            black_box(stream(&mut l2, at, &line))
        })
    });
    group.finish();
}

criterion_group!(benches, cache);
criterion_main!(benches);
