//! The cost per URL of each output format: the records of a URL-dense text
//! formatted by [`Formatter`] (text, text with `-n -b`, JSON Lines, CSV,
//! TSV, the Parquet rows), and the `--count-by host` keys, with the
//! extraction left out (the matches are found once, before timing).
//!
//! - `formats/dense/<format>`: generated text with a URL about every 160
//!   bytes (prose, link lists, angle brackets, quotes; hosts that repeat
//!   and hosts that do not), as `urlsift bench`'s corpus has them.
//! - `formats/sample/<format>`: `datasets/sample.txt` (changelogs, a man
//!   page, licences: real text).
//!
//! ```text
//! cargo bench --bench formats -- --measurement-time 3
//! ```

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use urlsift_core::Match;
use urlsift_printer::dedup::KeyLevel;
use urlsift_printer::{CountBy, Format, Formatter, Options, Record, count_key};

/// Every URL in `hay`, in input order.
fn extract(hay: &[u8]) -> Vec<Match<'_>> {
    urlsift_core::find(hay).collect()
}

/// A deterministic URL-dense text of about `size` bytes.
fn dense(size: usize) -> Vec<u8> {
    let mut x = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let tlds = ["com", "org", "net", "io", "de", "co.uk", "github.io"];
    let mut s = String::with_capacity(size + 256);
    while s.len() < size {
        // Half the hosts come back often, half are new.
        let host = if next(2) == 0 {
            format!("site{}", next(50))
        } else {
            format!("h{:x}", next(1 << 40))
        };
        let mut url = format!(
            "{}://{}.{}",
            ["http", "https"][next(2) as usize],
            host,
            tlds[next(tlds.len() as u64) as usize]
        );
        for _ in 0..next(4) {
            url.push_str(&format!("/p{}", next(1000)));
        }
        if next(4) == 0 {
            url.push_str(&format!("?q={}&r=x,y", next(100)));
        }
        match next(4) {
            0 => s.push_str(&format!(
                "see <{url}> for the rest of it, and then some more words.\n"
            )),
            1 => s.push_str(&format!(
                "<a href=\"{url}\">a link</a> in a list of links\n"
            )),
            2 => s.push_str(&format!(
                "as www.{host}.example/x says, words and words and words.\n"
            )),
            _ => s.push_str(&format!(
                "the text ({url}) and the prose that goes on around it.\n"
            )),
        }
    }
    s.into_bytes()
}

fn formats(c: &mut Criterion) {
    let sample = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/datasets/sample.txt"))
        .expect("datasets/sample.txt");
    for (name, text) in [("dense", dense(1 << 20)), ("sample", sample)] {
        let ms: Vec<Match<'_>> = extract(&text);
        let mut g = c.benchmark_group(format!("formats/{name}"));
        g.throughput(Throughput::Elements(ms.len() as u64));
        let modes: [(&str, Options); 6] = [
            ("text", Options::default()),
            (
                "text-n-b",
                Options {
                    line_number: true,
                    byte_offset: true,
                    ..Options::default()
                },
            ),
            (
                "json",
                Options {
                    format: Format::Json,
                    ..Options::default()
                },
            ),
            (
                "csv",
                Options {
                    format: Format::Csv,
                    ..Options::default()
                },
            ),
            (
                "tsv",
                Options {
                    format: Format::Tsv,
                    ..Options::default()
                },
            ),
            (
                "rows",
                Options {
                    format: Format::Rows,
                    ..Options::default()
                },
            ),
        ];
        let mut out = Vec::with_capacity(64 << 20);
        for (mode, opts) in modes {
            g.bench_function(mode, |b| {
                b.iter(|| {
                    let mut f = Formatter::new(&opts);
                    out.clear();
                    for m in &ms {
                        let rec = Record {
                            file: "input.txt",
                            line: 1,
                            m,
                            mail: None,
                            web: None,
                        };
                        f.format(&rec, &mut out).unwrap();
                    }
                    black_box(out.len())
                })
            });
        }
        g.bench_function("count-by-host", |b| {
            b.iter(|| {
                let mut n = 0;
                for m in &ms {
                    n += count_key(m, Some(CountBy::Host), KeyLevel::Raw).map_or(0, |k| k.len());
                }
                black_box(n)
            })
        });
        g.finish();
    }
}

criterion_group!(benches, formats);
criterion_main!(benches);
