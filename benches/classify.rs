//! Stage-1 classification throughput, per available ISA.
//!
//! - `classify/candidates/<isa>`: `Extractor::candidates` over a cache-resident
//!   1 MiB haystack: `datasets/*.txt` when present, else generated here from a
//!   fixed-seed mix of English-like prose, URLs, colons and HTML.
//! - `classify/slice/<isa>`: `candidates` over a cache-resident 1 MiB slice
//!   from the middle of the file named by the environment variable
//!   `URLSIFT_BENCH_FILE`, when set: the pass at that text's URL density.
//! - `classify/file/<isa>`: `candidates` over that whole file (e.g. a 256 MiB
//!   corpus).
//!
//! Each haystack's candidate count is checked against the scalar kernels before timing.
//!
//! ```text
//! cargo bench --bench classify -- --measurement-time 3
//! URLSIFT_BENCH_FILE=/tmp/corpus256.txt cargo bench --bench classify -- 'slice|file'
//! ```

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use urlsift_core::{Extractor, Isa};

const MIB: usize = 1 << 20;

/// A deterministic xorshift generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

/// About `len` bytes of realistic mail/web text.
fn generate(len: usize) -> Vec<u8> {
    const WORDS: &[&str] = &[
        "the",
        "of",
        "and",
        "to",
        "in",
        "a",
        "is",
        "that",
        "for",
        "it",
        "as",
        "was",
        "with",
        "be",
        "by",
        "on",
        "not",
        "he",
        "this",
        "are",
        "or",
        "his",
        "from",
        "at",
        "which",
        "but",
        "have",
        "an",
        "had",
        "they",
        "you",
        "were",
        "their",
        "one",
        "all",
        "we",
        "can",
        "her",
        "has",
        "there",
        "been",
        "if",
        "more",
        "when",
        "will",
        "would",
        "who",
        "so",
        "no",
        "address",
        "document",
        "resource",
        "identifier",
        "network",
        "window",
        "between",
        "however",
        "following",
        "example",
        "always",
        "www",
        "Köln",
        "naïve",
    ];
    const URLS: &[&str] = &[
        "http://www.ietf.org/rfc/rfc3986.txt",
        "https://en.wikipedia.org/wiki/Rust_(programming_language)",
        "<URL:ftp://foo.example.com/rfc/>",
        "www.example.org/index.html",
        "mailto:john.doe@example.com",
        "https://example.com/search?q=urls&lang=en#results",
        "\"http://www.w3.org/Addressing/\"",
        "news:comp.infosystems.www.servers.unix",
        "详见http://example.com/a。",
    ];
    const EXTRA: &[&str] = &[
        "Note: ",
        "at 12:30, ",
        "Re: ",
        "<p>",
        "</p>\n",
        "<a href=\"/local/path\">",
        "</a>",
        "\n\n",
        "; ",
        "(see below) ",
        "e.g. ",
        "--\n",
        "> ",
        "key: value\n",
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut out = Vec::with_capacity(len + 128);
    while out.len() < len {
        // Per 1000 pieces: 8 URLs, 40 colons/HTML/punctuation, the rest words.
        let r = rng.next() % 1000;
        let piece = if r < 8 {
            rng.pick(URLS)
        } else if r < 48 {
            rng.pick(EXTRA)
        } else {
            rng.pick(WORDS)
        };
        out.extend_from_slice(piece.as_bytes());
        out.push(if rng.next().is_multiple_of(12) {
            b'\n'
        } else {
            b' '
        });
    }
    out.truncate(len);
    out
}

/// `datasets/*.txt` repeated to `len` bytes, or generated text if there is none.
fn haystack(len: usize) -> Vec<u8> {
    let mut text = Vec::new();
    if let Ok(dir) = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/datasets")) {
        let mut paths: Vec<_> = dir
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "txt"))
            .collect();
        paths.sort();
        for p in paths {
            if let Ok(bytes) = std::fs::read(&p) {
                text.extend_from_slice(&bytes);
            }
        }
    }
    if text.is_empty() {
        return generate(len);
    }
    text.iter().copied().cycle().take(len).collect()
}

fn available() -> Vec<Extractor> {
    Isa::ALL
        .into_iter()
        .filter_map(|i| Extractor::choose(Some(i.name())).ok())
        .collect()
}

/// The scalar kernels: the reference the others are checked against.
fn scalar() -> Extractor {
    Extractor::choose(Some(Isa::Scalar.name())).expect("scalar always runs")
}

fn scalar_count(hay: &[u8]) -> usize {
    let mut out = Vec::new();
    scalar().candidates(hay, 0, hay.len(), &mut out);
    out.len()
}

fn bench_candidates(c: &mut Criterion, group: &str, hay: &[u8]) {
    let want = scalar_count(hay);
    eprintln!(
        "{group}: {} bytes, {want} candidates ({:.1} per MB)",
        hay.len(),
        want as f64 * 1e6 / hay.len() as f64
    );
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Bytes(hay.len() as u64));
    if hay.len() > 16 * MIB {
        g.sample_size(10);
    }
    let mut out = Vec::with_capacity(want);
    for cls in available() {
        out.clear();
        cls.candidates(hay, 0, hay.len(), &mut out);
        assert_eq!(
            out.len(),
            want,
            "{}: candidate count differs from scalar",
            cls.isa()
        );
        g.bench_function(cls.isa().name(), |b| {
            b.iter(|| {
                out.clear();
                cls.candidates(black_box(hay), 0, hay.len(), &mut out);
                black_box(out.len())
            })
        });
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    let hay = haystack(MIB);
    bench_candidates(c, "classify/candidates", &hay);
    if let Some(path) = std::env::var_os("URLSIFT_BENCH_FILE") {
        let big = std::fs::read(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        // A cache-resident 1 MiB slice from the middle of the file: the
        // candidate pass at the file's own URL density, without the memory
        // bus (the datasets/ haystack above is URL-dense: about 10,000
        // candidates per MB).
        let mid = big.len() / 2;
        let slice = &big[mid.saturating_sub(MIB / 2)..(mid + MIB / 2).min(big.len())];
        bench_candidates(c, "classify/slice", slice);
        bench_candidates(c, "classify/file", &big);
    }
}

criterion_group!(classify, benches);
criterion_main!(classify);
