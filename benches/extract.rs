//! End-to-end extraction throughput (stage 1 + delimiting), per available ISA,
//! with the `linkify` crate (URL kind) on the same bytes as a peer.
//!
//! - `extract/slice/<isa>`: `Extractor::scan` on one thread over a cache-resident
//!   1 MiB slice: `datasets/sample.txt` repeated (Debian changelogs, a copyright
//!   file, a man page, a licence; about one URL per 300 bytes).
//! - `extract/slice/linkify`: `LinkFinder` (URL kind only) over the same slice.
//! - `extract/file/<isa>`, `extract/file-par/<isa>`, `extract/file/linkify`: the
//!   file named by `URLSIFT_BENCH_FILE`, when set (e.g. a 256 MiB corpus from
//!   `scripts/make-corpus.sh`), on one thread and on all threads; and
//!   `extract/file-par-pool/<isa>`, all threads called from a pool thread
//!   (`ThreadPool::install`, as the Python package and `urlsift bench` call
//!   it), where the calling thread scans chunks too while it waits.
//! - `extract/stream/{whole,pipe}`: `parallel::scan_reader` over 48 MiB of
//!   the sample, from a reader that gives it all at once (a file) and from
//!   one that gives 64 KiB a read (a pipe); the stream's blocks are read
//!   while the ones before are scanned, so the two should be close.
//!
//! Before timing, every ISA must find the same URLs as the scalar path, and the
//! whole of `datasets/sample.txt` must give the count recorded in
//! `datasets/README.md` (`SAMPLE_URLS`; update both if the rules change).
//!
//! ```text
//! cargo bench --bench extract -- --measurement-time 3
//! URLSIFT_BENCH_FILE=datasets/generated/mixed-256M.txt cargo bench --bench extract -- file
//! ```

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use linkify::{LinkFinder, LinkKind};
use urlsift_core::{Extractor, Finder, Found, Isa};

const MIB: usize = 1 << 20;

/// `urlsift -c datasets/sample.txt` (see datasets/README.md).
const SAMPLE_URLS: usize = 1008;
/// The linkify peer's count on `datasets/sample.txt` (URL kind).
const SAMPLE_LINKIFY_URLS: usize = 1005;

fn sample() -> Vec<u8> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/datasets/sample.txt");
    std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `sample` repeated to `len` bytes, cut after a newline.
fn slice_of(sample: &[u8], len: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(len + sample.len());
    while v.len() < len {
        v.extend_from_slice(sample);
    }
    v.truncate(len);
    let nl = v
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(v.len(), |i| i + 1);
    v.truncate(nl);
    v
}

fn isas() -> Vec<Isa> {
    Isa::ALL.into_iter().filter(|i| i.is_available()).collect()
}

fn count(ex: &Extractor, hay: &[u8]) -> usize {
    let mut n = 0;
    ex.scan(hay, 0, hay.len(), 0, |_| n += 1);
    n
}

fn urls(ex: &Extractor, hay: &[u8]) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    ex.scan(hay, 0, hay.len(), 0, |m| v.push((m.start, m.end)));
    v
}

fn linkify_count(finder: &LinkFinder, text: &str) -> usize {
    finder.links(text).count()
}

fn bench_slice(c: &mut Criterion) {
    let sample = sample();
    let scalar = Extractor::choose(Some(Isa::Scalar.name())).expect("scalar");
    assert_eq!(
        count(&scalar, &sample),
        SAMPLE_URLS,
        "datasets/sample.txt URL count"
    );
    let hay = slice_of(&sample, MIB);
    let expected = urls(&scalar, &hay);
    let mut finder = LinkFinder::new();
    finder.kinds(&[LinkKind::Url]);
    let text = std::str::from_utf8(&hay).expect("sample.txt is UTF-8");
    assert_eq!(
        linkify_count(&finder, std::str::from_utf8(&sample).expect("UTF-8")),
        SAMPLE_LINKIFY_URLS,
        "linkify on datasets/sample.txt"
    );

    let mut g = c.benchmark_group("extract/slice");
    g.throughput(Throughput::Bytes(hay.len() as u64));
    for isa in isas() {
        let ex = Extractor::choose(Some(isa.name())).expect("available");
        assert_eq!(urls(&ex, &hay), expected, "{isa} differs from scalar");
        g.bench_function(isa.name(), |b| b.iter(|| count(&ex, black_box(&hay))));
    }
    g.bench_function("linkify", |b| {
        b.iter(|| linkify_count(&finder, black_box(text)))
    });
    g.finish();
}

fn bench_file(c: &mut Criterion) {
    let Some(path) = std::env::var_os("URLSIFT_BENCH_FILE") else {
        return;
    };
    let hay = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.to_string_lossy()));
    let scalar = Extractor::choose(Some(Isa::Scalar.name())).expect("scalar");
    let expected = count(&scalar, &hay);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(rayon::current_num_threads())
        .build()
        .expect("thread pool");
    let mut g = c.benchmark_group("extract");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(hay.len() as u64));
    for isa in isas() {
        let ex = Extractor::choose(Some(isa.name())).expect("available");
        assert_eq!(count(&ex, &hay), expected, "{isa} differs from scalar");
        g.bench_function(format!("file/{}", isa.name()), |b| {
            b.iter(|| count(&ex, black_box(&hay)))
        });
        g.bench_function(format!("file-par/{}", isa.name()), |b| {
            b.iter(|| {
                let mut n = 0usize;
                Finder::from(ex).scan(black_box(&hay), |_: Found<'_>| {
                    n += 1;
                    true
                });
                n
            })
        });
        g.bench_function(format!("file-par-pool/{}", isa.name()), |b| {
            b.iter(|| {
                pool.install(|| {
                    let mut n = 0usize;
                    Finder::from(ex).scan(black_box(&hay), |_: Found<'_>| {
                        n += 1;
                        true
                    });
                    n
                })
            })
        });
    }
    let mut finder = LinkFinder::new();
    finder.kinds(&[LinkKind::Url]);
    g.bench_function("file/linkify", |b| {
        b.iter(|| linkify_count(&finder, &String::from_utf8_lossy(black_box(&hay))))
    });
    g.finish();
}

/// A reader that gives at most `piece` bytes a read, as a pipe does.
struct Pieces<'a> {
    data: &'a [u8],
    piece: usize,
}

impl std::io::Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.piece.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn stream_count(ex: &Extractor, hay: &[u8], piece: usize) -> usize {
    let mut n = 0;
    let r = Pieces { data: hay, piece };
    let finder = Finder::from(*ex).lines(true);
    let size = finder
        .scan_reader(r, |_: Found<'_>| {
            n += 1;
            true
        })
        .expect("a slice reads");
    assert_eq!(size, hay.len() as u64);
    n
}

fn bench_stream(c: &mut Criterion) {
    let hay = slice_of(&sample(), 48 * MIB);
    let ex = Extractor::new();
    let expected = count(&ex, &hay);
    let mut g = c.benchmark_group("extract/stream");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(hay.len() as u64));
    for (name, piece) in [("whole", usize::MAX), ("pipe", 64 << 10)] {
        assert_eq!(stream_count(&ex, &hay, piece), expected, "{name}");
        g.bench_function(name, |b| {
            b.iter(|| stream_count(&ex, black_box(&hay), piece))
        });
    }
    g.finish();
}

criterion_group!(benches, bench_slice, bench_file, bench_stream);
criterion_main!(benches);
