//! `--mail` throughput: MIME-aware scanning against plain scanning of the
//! same archive, both single-threaded.
//!
//! - `mail/archive/mime`: [`scan_archive`] (split, parse, decode, scan).
//! - `mail/archive/plain`: [`Extractor::scan`] over the raw bytes.
//!
//! The archive is the file named by `URLSIFT_MAIL_CORPUS` (build one with
//! `scripts/make-mail-corpus.sh -s 64M -o FILE`), else an 8 MiB mbox made
//! here from the messages under `tests/data/mail/own/`. The URL count of
//! each path is checked (non-zero, and the mail count stable) before timing.
//!
//! ```text
//! URLSIFT_MAIL_CORPUS=/tmp/mail.mbox cargo bench --bench mail
//! ```

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use urlsift_core::Extractor;
use urlsift_mail::scan_archive;

fn corpus() -> Vec<u8> {
    if let Ok(p) = std::env::var("URLSIFT_MAIL_CORPUS") {
        return std::fs::read(&p).unwrap_or_else(|e| panic!("{p}: {e}"));
    }
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/mail/own");
    let mut msgs = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "eml") {
            msgs.push(std::fs::read(p).unwrap());
        }
    }
    msgs.sort();
    let mut out = Vec::new();
    while out.len() < 8 << 20 {
        for m in &msgs {
            out.extend_from_slice(b"From bench@example.org Mon Jan  1 00:00:00 2024\n");
            out.extend_from_slice(m);
            out.extend_from_slice(b"\n");
        }
    }
    out
}

fn mail_count(ex: &Extractor, data: &[u8]) -> usize {
    let mut n = 0;
    scan_archive(ex, data, |_, _, _| n += 1, |_| {});
    n
}

fn plain_count(ex: &Extractor, data: &[u8]) -> usize {
    let mut n = 0;
    ex.scan(data, 0, data.len(), 0, |_| n += 1);
    n
}

fn bench(c: &mut Criterion) {
    let data = corpus();
    let ex = Extractor::new();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let mail = pool.install(|| mail_count(&ex, &data));
    assert!(mail > 0);
    assert_eq!(mail, pool.install(|| mail_count(&ex, &data)));
    assert!(plain_count(&ex, &data) > 0);
    let mut g = c.benchmark_group("mail/archive");
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.sample_size(10);
    g.bench_function("mime", |b| {
        b.iter(|| pool.install(|| black_box(mail_count(&ex, black_box(&data)))))
    });
    g.bench_function("plain", |b| {
        b.iter(|| black_box(plain_count(&ex, black_box(&data))))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
