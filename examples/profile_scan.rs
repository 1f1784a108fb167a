//! Scan a file once with the library, single-threaded (for callgrind):
//! `cargo run --release --example profile_scan FILE`.
fn main() {
    let p = std::env::args().nth(1).expect("FILE");
    let data = std::fs::read(p).expect("read");
    let ex = urlsift_core::Extractor::new();
    let mut n = 0usize;
    ex.scan(&data, 0, data.len(), 0, |_| n += 1);
    println!("{n} urls");
}
