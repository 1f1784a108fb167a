//! Time `html_links` alone: the response bodies of an archive are decoded
//! into memory first, then their links found (attributes only, then with
//! text), best of N passes (default 3), on the calling thread.
//!
//! ```text
//! cargo build --release --example html_bench -p urlsift-warc
//! taskset -c 0 target/release/examples/html_bench crawl.warc.gz 5
//! ```
use std::time::Instant;

use urlsift_html::html_links;
use urlsift_warc::{LinkOptions, Reader, payload};

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::io::Result<()> {
    let mut args = std::env::args_os().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: html_bench FILE.warc[.gz] [PASSES]");
        std::process::exit(2);
    };
    let passes: usize = args
        .next()
        .and_then(|s| s.to_str()?.parse().ok())
        .unwrap_or(3);
    let mut pages = Vec::new();
    for rec in Reader::new(std::fs::File::open(path)?).flatten() {
        if rec.warc_type == "response" {
            let body = payload(&rec, usize::MAX).body.into_owned();
            pages.push((rec.target_uri, body));
        }
    }
    let total: usize = pages.iter().map(|p| p.1.len()).sum();
    let attrs = LinkOptions {
        text: false,
        ..LinkOptions::default()
    };
    for (name, opts) in [("attributes", attrs), ("with text", LinkOptions::default())] {
        let mut best = f64::MAX;
        let mut links = 0usize;
        for _ in 0..passes {
            let t = Instant::now();
            links = 0;
            for (uri, body) in &pages {
                html_links(body, uri.as_deref(), &opts, |_| links += 1);
            }
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!(
            "{name:10} {:7.1} ms {:6.0} MB/s {links} links",
            best * 1e3,
            total as f64 / best / 1e6
        );
    }
    Ok(())
}
