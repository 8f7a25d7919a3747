//! Decode throughput (instructions per second) over the committed kernels.
//!
//! Reference measured in the same run: a pass that only reads every instruction
//! dword of the same code (the floor any decoder pays to look at the bytes).

use amdgpu_codeobj::CodeObject;
use amdgpu_isa::{Decoder, Gpu};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::{Path, PathBuf};

fn kernel_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            kernel_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "co") {
            out.push(p);
        }
    }
}

/// Every committed kernel's `.text`, with the decoder for its target.
fn corpus() -> Vec<(Decoder, Vec<u8>, u64)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels/bin");
    let mut files = Vec::new();
    kernel_files(&root, &mut files);
    assert!(
        !files.is_empty(),
        "no committed kernels under {}",
        root.display()
    );
    let mut out = Vec::new();
    for f in files {
        let data = std::fs::read(&f).expect("read kernel");
        let co = CodeObject::parse(&data).expect("parse kernel");
        let gpu = Gpu::try_from(co.target().gpu).expect("supported gpu");
        let wave64 = f.to_string_lossy().contains("-w64");
        let text = co.text();
        out.push((Decoder::new(gpu, wave64), text.bytes.to_vec(), text.address));
    }
    out
}

fn bench_decode(c: &mut Criterion) {
    let corpus = corpus();
    let insts: usize = corpus
        .iter()
        .map(|(d, b, a)| d.decode_program(b, *a).len())
        .sum();
    eprintln!("corpus: {} kernels, {insts} instructions", corpus.len());
    let mut g = c.benchmark_group("decode");
    g.throughput(Throughput::Elements(insts as u64));
    g.bench_function("amdsim_decode_program", |b| {
        b.iter(|| {
            let mut n = 0;
            for (d, bytes, addr) in &corpus {
                n += d.decode_program(black_box(bytes), *addr).len();
            }
            n
        })
    });
    g.bench_function("amdsim_decode_stream", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for (d, bytes, _) in &corpus {
                let mut off = 0;
                while off < bytes.len() {
                    match d.decode(black_box(&bytes[off..])) {
                        Ok(i) => off += i.size_bytes().max(4),
                        Err(_) => break,
                    }
                    n += 1;
                }
            }
            n
        })
    });
    g.bench_function("reference_read_dwords", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for (_, bytes, _) in &corpus {
                for w in black_box(bytes).chunks_exact(4) {
                    acc ^= u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                }
            }
            acc
        })
    });
    g.finish();
}

criterion_group!(benches, bench_decode);
criterion_main!(benches);
