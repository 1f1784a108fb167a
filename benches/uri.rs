//! URI engine throughput on `datasets/urls.txt` (URLs from real text), with
//! fluent-uri 0.4 and the url crate (WHATWG) as peers on the same list.
//!
//! Groups: `parse` (split + validate), `normalize` (to an owned String, as
//! the peers do; `urlsift-into` appends to one reused buffer instead),
//! `resolve` (a relative reference against a fixed base). Criterion reports
//! the time per pass over the list; divide by the URL count (or read the
//! throughput line, in URLs per second) for ns/URL.
//!
//! The expected counts are asserted before timing, so every peer is timed on
//! work it actually does.
//!
//! ```sh
//! cargo bench --bench uri -- --measurement-time 3 --warm-up-time 1
//! ```

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use urlsift_uri::{self as uri, NormalizeOptions, UriRef};

const LIST: &str = include_str!("../datasets/urls.txt");
const BASE: &str = "http://example.com/a/b/c;p?q";

/// URLs in the list; how many are valid RFC 3986 for us, for fluent-uri, and
/// how many the url crate (WHATWG) accepts.
const EXPECTED_URLS: usize = 3434;
const EXPECTED_OURS_OK: usize = 3411;
const EXPECTED_FLUENT_OK: usize = 3411;
const EXPECTED_URL_OK: usize = 3416;
const EXPECTED_NORMALIZED: usize = 3417;

/// Relative references made from the list: each URL's path and query with
/// `../` in front (only those that are valid references).
fn references(urls: &[&str]) -> Vec<String> {
    urls.iter()
        .filter_map(|u| UriRef::parse(u.as_bytes()).ok())
        .map(|u| {
            let mut tail = String::from_utf8_lossy(u.path())
                .trim_start_matches('/')
                .to_string();
            if let Some(q) = u.query() {
                tail.push('?');
                tail.push_str(&String::from_utf8_lossy(q));
            }
            format!("../{tail}")
        })
        .filter(|r| UriRef::parse(r.as_bytes()).is_ok())
        .collect()
}

fn bench(c: &mut Criterion) {
    let urls: Vec<&str> = LIST.lines().collect();
    let n = urls.len();
    assert_eq!(n, EXPECTED_URLS, "datasets/urls.txt changed");
    let ours_ok = urls
        .iter()
        .filter(|u| UriRef::parse(u.as_bytes()).is_ok())
        .count();
    let fluent_ok = urls
        .iter()
        .filter(|u| fluent_uri::UriRef::parse(**u).is_ok())
        .count();
    let url_ok = urls.iter().filter(|u| url::Url::parse(u).is_ok()).count();
    assert_eq!(
        (ours_ok, fluent_ok, url_ok),
        (EXPECTED_OURS_OK, EXPECTED_FLUENT_OK, EXPECTED_URL_OK)
    );
    let opts = NormalizeOptions::default();
    let normalized = urls
        .iter()
        .filter(|u| uri::normalize(u.as_bytes(), &opts).is_ok())
        .count();
    // IRIs (non-ASCII) normalize too: they are mapped to URIs first.
    assert_eq!(normalized, EXPECTED_NORMALIZED);

    let mut g = c.benchmark_group("parse");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("urlsift", |b| {
        b.iter(|| {
            urls.iter()
                .filter(|u| UriRef::parse(black_box(u.as_bytes())).is_ok())
                .count()
        })
    });
    g.bench_function("fluent-uri", |b| {
        b.iter(|| {
            urls.iter()
                .filter(|u| fluent_uri::UriRef::parse(black_box(**u)).is_ok())
                .count()
        })
    });
    g.bench_function("url", |b| {
        b.iter(|| {
            urls.iter()
                .filter(|u| url::Url::parse(black_box(u)).is_ok())
                .count()
        })
    });
    g.finish();

    let mut g = c.benchmark_group("normalize");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("urlsift", |b| {
        b.iter(|| {
            urls.iter()
                .filter_map(|u| uri::normalize(black_box(u.as_bytes()), &opts).ok())
                .map(|s| s.len())
                .sum::<usize>()
        })
    });
    // The same work into one reused buffer: no allocation, no UTF-8 check.
    g.bench_function("urlsift-into", |b| {
        let mut buf = Vec::new();
        b.iter(|| {
            urls.iter()
                .filter_map(|u| {
                    buf.clear();
                    uri::normalize_into(black_box(u.as_bytes()), &opts, &mut buf).ok()?;
                    Some(buf.len())
                })
                .sum::<usize>()
        })
    });
    g.bench_function("fluent-uri", |b| {
        b.iter(|| {
            urls.iter()
                .filter_map(|u| fluent_uri::UriRef::parse(black_box(*u)).ok())
                .map(|u| u.normalize().as_str().len())
                .sum::<usize>()
        })
    });
    // The url crate normalizes while it parses (WHATWG serialization).
    g.bench_function("url", |b| {
        b.iter(|| {
            urls.iter()
                .filter_map(|u| url::Url::parse(black_box(u)).ok())
                .map(|u| u.as_str().len())
                .sum::<usize>()
        })
    });
    g.finish();

    let refs = references(&urls);
    let m = refs.len();
    assert_eq!(m, EXPECTED_OURS_OK, "one reference per valid URL");
    let fluent_base = fluent_uri::Uri::parse(BASE).unwrap();
    let url_base = url::Url::parse(BASE).unwrap();
    let ours = refs
        .iter()
        .filter(|r| uri::resolve(BASE.as_bytes(), r.as_bytes()).is_ok())
        .count();
    let fluent = refs
        .iter()
        .filter(|r| {
            fluent_uri::UriRef::parse(r.as_str())
                .ok()
                .and_then(|r| r.resolve_against(&fluent_base).ok())
                .is_some()
        })
        .count();
    let peer_url = refs.iter().filter(|r| url_base.join(r).is_ok()).count();
    assert_eq!((ours, fluent, peer_url), (m, m, m));

    let our_base = UriRef::parse(BASE.as_bytes()).unwrap();
    let mut g = c.benchmark_group("resolve");
    g.throughput(Throughput::Elements(m as u64));
    // Base parsed once, as for the peers.
    g.bench_function("urlsift", |b| {
        b.iter(|| {
            refs.iter()
                .filter_map(|r| UriRef::parse(black_box(r.as_bytes())).ok())
                .filter_map(|r| uri::resolve::resolve_parsed(&our_base, &r).ok())
                .map(|s| s.len())
                .sum::<usize>()
        })
    });
    // The one-call API, which parses the base every time.
    g.bench_function("urlsift-reparse-base", |b| {
        b.iter(|| {
            refs.iter()
                .filter_map(|r| {
                    uri::resolve(black_box(BASE.as_bytes()), black_box(r.as_bytes())).ok()
                })
                .map(|s| s.len())
                .sum::<usize>()
        })
    });
    g.bench_function("fluent-uri", |b| {
        b.iter(|| {
            refs.iter()
                .filter_map(|r| fluent_uri::UriRef::parse(black_box(r.as_str())).ok())
                .filter_map(|r| r.resolve_against(&fluent_base).ok())
                .map(|s| s.as_str().len())
                .sum::<usize>()
        })
    });
    g.bench_function("url", |b| {
        b.iter(|| {
            refs.iter()
                .filter_map(|r| url_base.join(black_box(r)).ok())
                .map(|s| s.as_str().len())
                .sum::<usize>()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
