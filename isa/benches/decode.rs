//! Decoder speed: building a decoder for a processor, and decoding + printing real kernels.
//! `cargo bench -p hipscope-isa --bench decode`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use hipscope_isa::codeobj;
use hipscope_isa::decode::Decoder;
use hipscope_isa::print::format_inst;
use hipscope_isa::Processor;
use std::hint::black_box;

fn kernel_text(path: &str) -> (Processor, Vec<u8>, u64) {
    let bytes = std::fs::read(path).expect("workload object");
    let co = codeobj::load(&bytes, None).expect("load");
    let text = co.text_sections().next().expect(".text");
    (co.target.processor, text.bytes.clone(), text.address)
}

fn bench(c: &mut Criterion) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../workloads/bin/");
    c.bench_function("decoder construction (gfx1100, wave32)", |b| b.iter(|| Decoder::new(black_box(Processor::Gfx1100), false)));
    let mut g = c.benchmark_group("decode + print .text");
    for obj in ["gfx942/mp.co", "gfx1100-w32-wgp/mp.co", "gfx803/blas1.co"] {
        let (p, text, addr) = kernel_text(&format!("{root}{obj}"));
        let decoder = Decoder::new(p, false);
        let n = decoder.decode_all(&text, addr).len() as u64;
        g.throughput(Throughput::Elements(n));
        g.bench_function(format!("decode {obj}"), |b| b.iter(|| decoder.decode_all(black_box(&text), addr)));
        g.bench_function(format!("decode+print {obj}"), |b| {
            b.iter(|| {
                decoder.decode_all(black_box(&text), addr).into_iter().filter_map(|(_, r)| r.ok()).map(|i| format_inst(&i, decoder.ctx()).len()).sum::<usize>()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
