//! Adversarial inputs: never a panic, and time linear in the input size.
//!
//! The quick tests run on every `cargo test`. The scaling checks are
//! `#[ignore]`d (they need a release build to mean anything):
//! `cargo test --release -p urlsift-search --test adversarial -- --ignored --nocapture --test-threads=1`.
//! They time 8x an input against 1x and require a ratio below 12, which a
//! quadratic path cannot meet; no absolute time is asserted.

use std::time::Instant;
use urlsift_core::{Extractor, Finder, Found};

/// A generator: its name, and a function that makes `n` bytes.
type Generator = (&'static str, fn(usize) -> Vec<u8>);

/// The generators.
fn inputs() -> Vec<Generator> {
    fn rep(pat: &[u8], n: usize) -> Vec<u8> {
        pat.iter().copied().cycle().take(n).collect()
    }
    vec![
        ("open-parens", |n| rep(b"(", n)),
        ("http-repeated", |n| rep(b"http://", n)),
        ("www-repeated", |n| rep(b"www.", n)),
        ("lt-without-gt", |n| rep(b"<", n)),
        ("angle-urls-without-gt", |n| rep(b"<http://a.b/ ", n)),
        ("angle-wrapped-unclosed", |n| {
            rep(b"<URL:http://a.b/x-\n y ", n)
        }),
        ("quote-wrapped-unclosed", |n| rep(b"\"http://a.b/x\n y ", n)),
        ("colons", |n| rep(b"a:b", n)),
        ("one-line-of-urls", |n| {
            rep(b"see http://example.com/a(b)c, and www.example.org. ", n)
        }),
        ("one-url-no-stops", |n| {
            let mut v = b"http://a.example/".to_vec();
            v.extend(std::iter::repeat_n(b'a', n.saturating_sub(17)));
            v
        }),
        ("brackets-in-url", |n| {
            let mut v = b"http://a.example/".to_vec();
            v.extend(b"(]".iter().copied().cycle().take(n.saturating_sub(17)));
            v
        }),
        ("random-bytes", |n| {
            let mut x = 0x9E37_79B9_7F4A_7C15u64;
            (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect()
        }),
        ("every-byte-value", |n| {
            (0..n).map(|i| (i % 256) as u8).collect()
        }),
        ("invalid-utf8-in-urls", |n| {
            rep(b"http://a.example/\xff\xfe/x \xc3( http://\xe3\x80.b/ ", n)
        }),
        ("nuls", |n| rep(b"http://a\0b.example/\0", n)),
        ("closer-separated-urls", |n| rep(b"(http://a.b/x)", n)),
        ("rejected-mailto-run", |n| rep(b"mailto:x(", n)),
        ("rejected-www-run", |n| rep(b"(www.a(", n)),
        ("www-no-tld-run", |n| rep(b"-www.x.y", n)),
        ("angle-then-long-run", |n| {
            let mut v = b"<http://a.b/\n".to_vec();
            v.extend(std::iter::repeat_n(b'b', n.saturating_sub(13)));
            v
        }),
    ]
}

fn scan_count(hay: &[u8]) -> usize {
    let mut n = 0;
    Finder::new().chunk_size(1 << 20).scan(hay, |f: Found<'_>| {
        assert!(f.m.start <= f.m.end && f.m.end <= hay.len());
        n += 1;
        true
    });
    n
}

#[test]
fn adversarial_inputs_complete() {
    for (name, make) in inputs() {
        let hay = make(256 * 1024);
        let n = scan_count(&hay);
        eprintln!("{name}: {n} urls");
    }
}

fn secs(hay: &[u8]) -> f64 {
    let ex = Extractor::new();
    let mut best = f64::MAX;
    for _ in 0..2 {
        let t = Instant::now();
        let mut n = 0usize;
        ex.scan(hay, 0, hay.len(), 0, |_| n += 1);
        std::hint::black_box(n);
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

/// The time of one plain read of `hay` (a sum of its words).
fn read_secs(hay: &[u8]) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        let mut acc = 0u64;
        for c in hay.chunks_exact(8) {
            acc = acc.wrapping_add(u64::from_le_bytes(c.try_into().unwrap()));
        }
        std::hint::black_box(acc);
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

#[test]
#[ignore = "timing; run with --release --ignored"]
fn adversarial_inputs_scale_linearly() {
    // Both sizes well past the caches, so the ratio compares like with like.
    let base = 8 << 20;
    let mut bad = Vec::new();
    for (name, make) in inputs() {
        let small = make(base);
        let big = make(8 * base);
        let (t1, t8) = (secs(&small), secs(&big));
        // Divided by the same ratio for one plain read of each buffer, so
        // that the caches (this machine's L3 holds 64 MiB) do not count as
        // super-linear.
        let read_ratio = read_secs(&big) / read_secs(&small);
        // A linear scan gives about 8 (less when compute-bound), a quadratic
        // one about 64.
        let ratio = t8 / t1 * 8.0 / read_ratio;
        eprintln!(
            "{name:<24} 8 MiB {:>8.1} MB/s   64 MiB {:>8.1} MB/s   raw ratio {:>5.2}  normalized {ratio:>5.2}",
            base as f64 / t1 / 1e6,
            8.0 * base as f64 / t8 / 1e6,
            t8 / t1
        );
        if ratio >= 12.0 {
            bad.push(name);
        }
    }
    assert!(bad.is_empty(), "super-linear: {bad:?}");
}

/// 100 MiB on one line, and a 1 GiB sparse file through the CLI's input path.
#[test]
#[ignore = "large; run with --release --ignored"]
fn huge_inputs() {
    let line: Vec<u8> = b"see http://example.com/a(b)c, and www.example.org. "
        .iter()
        .copied()
        .cycle()
        .take(100 << 20)
        .collect();
    let t = Instant::now();
    let n = scan_count(&line);
    eprintln!("100 MiB line: {n} urls in {:.2?}", t.elapsed());
    assert!(n > 1_000_000);

    let dir = std::env::temp_dir().join(format!("urlsift-sparse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("sparse.bin");
    let f = std::fs::File::create(&p).unwrap();
    f.set_len(1 << 30).unwrap();
    drop(f);
    let t = Instant::now();
    let data = match urlsift_search::input::open(Some(&p)).unwrap() {
        urlsift_search::input::Opened::Whole(d) => d,
        _ => panic!("a regular file is mapped"),
    };
    assert_eq!(scan_count(&data), 0);
    eprintln!("1 GiB sparse file: {:.2?}", t.elapsed());
    std::fs::remove_dir_all(&dir).unwrap();
}
