//! The bare record loop: read every record of a WARC/WET/ARC file (plain,
//! gzip or LZ4) on one core, touching its block, and print how many
//! records and block bytes there were. No HTTP parsing, no links: the
//! floor of `warc_links`, to set beside FastWARC's own bare loop
//! (`scripts/warc-bench.py --bare`).
//!
//! ```text
//! cargo run --release --example warc_records -- crawl.warc.gz
//! ```

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::io::Result<()> {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: warc_records FILE.warc[.gz]");
        std::process::exit(2);
    };
    let (mut records, mut bytes, mut sum) = (0u64, 0u64, 0u64);
    for rec in urlsift_warc::Reader::new(std::fs::File::open(&path)?).flatten() {
        records += 1;
        bytes += rec.block.len() as u64;
        // Touch the block, as a caller would.
        sum = sum.wrapping_add(rec.block.last().copied().map_or(0, u64::from));
    }
    println!("{records} records, {bytes} block bytes ({sum})");
    Ok(())
}
