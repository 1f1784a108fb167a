//! The de-duplication keys per URL on `datasets/urls.txt` (URLs from real
//! text): the RFC 3986 `scheme` level (the reference: `--normalize`'s key)
//! against `whatwg`, `surt`, and the host keys (`host_ascii`, `domain`),
//! each through the path `--unique --dedup-key LEVEL` takes
//! (`dedup::key_into`, one reused buffer). Criterion reports the time per
//! pass over the list and, as throughput, URLs per second.
//!
//! ```sh
//! cargo bench --bench keys -- --measurement-time 3 --warm-up-time 1
//! ```

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use urlsift_printer::dedup::{KeyLevel, key_into};
use urlsift_uri::UriRef;

const LIST: &str = include_str!("../datasets/urls.txt");

fn bench(c: &mut Criterion) {
    let urls: Vec<&[u8]> = LIST.lines().map(str::as_bytes).collect();
    let hosts: Vec<&[u8]> = urls
        .iter()
        .filter_map(|u| UriRef::split(u).host())
        .filter(|h| !h.is_empty())
        .collect();
    // Every level gives most URLs a key of its own (not the URL as found).
    let mut buf = Vec::new();
    for level in [KeyLevel::Scheme, KeyLevel::Whatwg, KeyLevel::Surt] {
        let keyed = urls
            .iter()
            .filter(|u| key_into(u, false, level, &mut buf).as_ptr() != u.as_ptr())
            .count();
        assert!(keyed * 100 > urls.len() * 95, "{level:?}: {keyed}");
    }

    let mut g = c.benchmark_group("keys");
    g.throughput(Throughput::Elements(urls.len() as u64));
    for level in [KeyLevel::Scheme, KeyLevel::Whatwg, KeyLevel::Surt] {
        g.bench_function(level.to_string(), |b| {
            let mut buf = Vec::with_capacity(256);
            b.iter(|| {
                let mut total = 0;
                for u in &urls {
                    total += key_into(black_box(u), false, level, &mut buf).len();
                }
                total
            })
        });
    }
    g.throughput(Throughput::Elements(hosts.len() as u64));
    g.bench_function("host_ascii", |b| {
        b.iter(|| {
            hosts
                .iter()
                .filter_map(|h| urlsift_keys::host_ascii(black_box(h)))
                .count()
        })
    });
    g.bench_function("domain", |b| {
        b.iter(|| {
            hosts
                .iter()
                .filter_map(|h| urlsift_keys::domain(black_box(h)))
                .count()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
