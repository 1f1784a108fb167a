//! A fixed workload for instruction counts of the URI engine:
//! `cargo run --release --example uri_profile -- parse|normalize|normalize-into|resolve|fluent-parse|fluent-normalize [ROUNDS]`
//! runs the operation over every line of `datasets/urls.txt` ROUNDS times
//! (default 10), so `valgrind --tool=callgrind` counts are comparable
//! between commits (divide by ROUNDS x 3434 for instructions per URL).
use std::hint::black_box;

use urlsift_uri::{self as uri, NormalizeOptions, UriRef};

const LIST: &str = include_str!("../datasets/urls.txt");
const BASE: &str = "http://example.com/a/b/c;p?q";

fn main() {
    let mut args = std::env::args().skip(1);
    let op = args.next().unwrap_or_else(|| "parse".into());
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(10);
    let urls: Vec<&str> = LIST.lines().collect();
    let opts = NormalizeOptions::default();
    let refs: Vec<String> = urls
        .iter()
        .filter_map(|u| UriRef::parse(u.as_bytes()).ok())
        .map(|u| {
            let path = String::from_utf8_lossy(u.path());
            format!("../{}", path.trim_start_matches('/'))
        })
        .collect();
    let base = UriRef::parse(BASE.as_bytes()).unwrap();
    let mut total = 0usize;
    let mut buf = Vec::new();
    for _ in 0..rounds {
        total += match op.as_str() {
            "parse" => urls
                .iter()
                .filter(|u| UriRef::parse(black_box(u.as_bytes())).is_ok())
                .count(),
            "normalize" => urls
                .iter()
                .filter_map(|u| uri::normalize(black_box(u.as_bytes()), &opts).ok())
                .map(|s| s.len())
                .sum(),
            "normalize-into" => urls
                .iter()
                .filter_map(|u| {
                    buf.clear();
                    uri::normalize_into(black_box(u.as_bytes()), &opts, &mut buf).ok()?;
                    Some(buf.len())
                })
                .sum(),
            // The peer, for a count to compare with.
            "fluent-parse" => urls
                .iter()
                .filter(|u| fluent_uri::UriRef::parse(black_box(**u)).is_ok())
                .count(),
            "fluent-normalize" => urls
                .iter()
                .filter_map(|u| fluent_uri::UriRef::parse(black_box(*u)).ok())
                .map(|u| u.normalize().as_str().len())
                .sum(),
            "resolve" => refs
                .iter()
                .filter_map(|r| UriRef::parse(black_box(r.as_bytes())).ok())
                .filter_map(|r| uri::resolve_parsed(&base, &r).ok())
                .map(|s| s.len())
                .sum(),
            _ => panic!("parse|normalize|normalize-into|resolve|fluent-parse|fluent-normalize"),
        };
    }
    println!("{op}: {total}");
}
