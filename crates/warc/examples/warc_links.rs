//! Print `target_uri<TAB>url` for every link of every record of a WARC/WET
//! file (plain or gzip), on one core; problems go to stderr.
//!
//! ```text
//! cargo run --release --example warc_links -- crawl.warc.gz > links.tsv
//! ```
use std::io::{BufWriter, Write};

use urlsift_warc::{LinkOptions, Reader, record_links};

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::io::Result<()> {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: warc_links FILE.warc[.gz]  (- for stdin)");
        std::process::exit(2);
    };
    let input: Box<dyn std::io::Read> = if path == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::fs::File::open(&path)?)
    };
    let scripts = std::env::var_os("WARC_LINKS_SCRIPTS").is_some();
    let opts = LinkOptions {
        scan_scripts: scripts,
        ..LinkOptions::default()
    };
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut failed = false;
    for item in Reader::new(input) {
        match item {
            Ok(rec) => {
                let target = rec.target_uri.as_deref().unwrap_or("-");
                let mut res = Ok(());
                let problem = record_links(&rec, &opts, |l| {
                    if res.is_ok() {
                        res = writeln!(out, "{target}\t{}", l.url);
                    }
                });
                res?;
                if let Some(p) = problem {
                    eprintln!("warning at byte {}: {p}", rec.offset);
                }
            }
            Err(issue) => {
                failed = true;
                eprintln!("{issue}");
            }
        }
    }
    out.flush()?;
    std::process::exit(i32::from(failed) * 2);
}
