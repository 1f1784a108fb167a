//! A peer for `scripts/bench-compare`: the `linkify` crate (URL kind only) over
//! whole files, one URL per line, or with `-c` the number of URLs.
//!
//! usage: cargo run --release --example linkify_peer -- [-c] [FILE]...   (no FILE: stdin)
//!
//! Input that is not UTF-8 is converted lossily first (linkify takes `&str`);
//! the conversion is part of the timed work, as it would be for a real user.

use std::io::{self, BufWriter, Read, Write};

use linkify::{LinkFinder, LinkKind};

fn main() -> io::Result<()> {
    let mut count_only = false;
    let mut files = Vec::new();
    for a in std::env::args().skip(1) {
        if a == "-c" || a == "--count" {
            count_only = true;
        } else {
            files.push(a);
        }
    }
    let mut finder = LinkFinder::new();
    finder.kinds(&[LinkKind::Url]);
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut total = 0u64;
    let mut scan = |bytes: &[u8], out: &mut BufWriter<_>| -> io::Result<()> {
        let text = String::from_utf8_lossy(bytes);
        for link in finder.links(&text) {
            total += 1;
            if !count_only {
                out.write_all(link.as_str().as_bytes())?;
                out.write_all(b"\n")?;
            }
        }
        Ok(())
    };
    if files.is_empty() {
        let mut buf = Vec::new();
        io::stdin().read_to_end(&mut buf)?;
        scan(&buf, &mut out)?;
    }
    for f in &files {
        let buf = std::fs::read(f).map_err(|e| io::Error::new(e.kind(), format!("{f}: {e}")))?;
        scan(&buf, &mut out)?;
    }
    if count_only {
        writeln!(out, "{total}")?;
    }
    match out.flush() {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        r => r,
    }
}
