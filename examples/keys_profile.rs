//! A fixed workload for the de-duplication keys on `datasets/urls.txt`,
//! through the path `--unique --dedup-key LEVEL` takes (`dedup::key_into`,
//! one reused buffer):
//!
//! ```sh
//! cargo build --profile bench --example keys_profile
//! # instructions: the difference between 12 and 2 passes, over 10 passes
//! valgrind --tool=callgrind target/release/examples/keys_profile surt 12
//! # paired timing: scheme, whatwg and surt passes alternated, the minimum of each
//! target/release/examples/keys_profile time 300
//! ```
//!
//! A third argument names a file of URLs (one a line) to use in place of
//! `datasets/urls.txt`.
//!
//! `LEVEL` is `scheme`, `whatwg` or `surt` (per URL), `domain`
//! (`urlsift_keys::domain` per host, as found) or `registrable` (the
//! registrable domain of each host in lower case); `none` does the set-up
//! only.

use std::hint::black_box;
use std::time::Instant;

use urlsift_printer::dedup::{KeyLevel, key_into};

fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_default();
    let passes: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let list = match args.next() {
        Some(path) => std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{path}: {e}"))
            .leak(),
        None => include_str!("../datasets/urls.txt"),
    };
    let urls: Vec<&[u8]> = list.lines().map(str::as_bytes).collect();
    let hosts: Vec<&[u8]> = urls
        .iter()
        .filter_map(|u| urlsift_uri::UriRef::split(u).host())
        .filter(|h| !h.is_empty())
        .collect();
    let lower: Vec<String> = hosts
        .iter()
        .map(|h| String::from_utf8_lossy(h).to_ascii_lowercase())
        .collect();
    let mut buf = Vec::with_capacity(256);
    let mut total = 0usize;
    if which == "time" {
        let levels = [KeyLevel::Scheme, KeyLevel::Whatwg, KeyLevel::Surt];
        let mut best = [u128::MAX; 3];
        for _ in 0..passes {
            for (b, &level) in best.iter_mut().zip(&levels) {
                let t = Instant::now();
                for u in &urls {
                    total += key_into(black_box(u), false, level, &mut buf).len();
                }
                *b = (*b).min(t.elapsed().as_nanos());
            }
        }
        let n = urls.len() as f64;
        let [s, w, u] = best.map(|b| b as f64);
        println!(
            "min ns per URL: scheme {:.1}, whatwg {:.1} ({:.2}x), surt {:.1} ({:.2}x) [{total}]",
            s / n,
            w / n,
            w / s,
            u / n,
            u / s
        );
        return;
    }
    let level = match which.as_str() {
        "scheme" => Some(KeyLevel::Scheme),
        "whatwg" => Some(KeyLevel::Whatwg),
        "surt" => Some(KeyLevel::Surt),
        _ => None,
    };
    for _ in 0..passes {
        match (level, which.as_str()) {
            (Some(level), _) => {
                for u in &urls {
                    total += key_into(black_box(u), false, level, &mut buf).len();
                }
            }
            (None, "domain") => {
                for h in &hosts {
                    total += urlsift_keys::domain(black_box(h)).map_or(0, |d| d.len());
                }
            }
            (None, "registrable") => {
                for h in &lower {
                    total +=
                        urlsift_keys::host::registrable_domain(black_box(h)).map_or(0, str::len);
                }
            }
            _ => {}
        }
    }
    println!(
        "{which}: {total} ({} URLs, {} hosts)",
        urls.len(),
        hosts.len()
    );
}
