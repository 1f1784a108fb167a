//! Time stage 1 alone and the whole extractor on a file, per ISA:
//! `cargo run --release --example timing FILE`.
use urlsift_core::{Extractor, Isa};

fn best_of(n: usize, mut f: impl FnMut() -> usize) -> (usize, f64) {
    let mut best = f64::MAX;
    let mut r = 0;
    for _ in 0..n {
        let t = std::time::Instant::now();
        r = f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    (r, best)
}

fn main() {
    let p = std::env::args().nth(1).expect("FILE");
    let data = std::fs::read(p).expect("read");
    // REPEAT=N: scan the file N times per measurement (cache-resident input).
    let rep: usize = std::env::var("REPEAT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let mb = (data.len() * rep) as f64 / 1e6;
    let (_, tm) = best_of(5, || {
        // The memory read ceiling: a vectorizable sum over the same bytes.
        let mut acc = 0u64;
        for _ in 0..rep {
            for c in data.chunks_exact(64) {
                let mut x = 0u64;
                for w in c.chunks_exact(8) {
                    x ^= u64::from_le_bytes(w.try_into().unwrap());
                }
                acc = acc.wrapping_add(x);
            }
        }
        std::hint::black_box(acc) as usize
    });
    println!("memory read {:>6.0} MB/s", mb / tm);
    for isa in Isa::ALL.into_iter().filter(|i| i.is_available()) {
        let ex = Extractor::choose(Some(isa.name())).unwrap();
        let mut cands = Vec::with_capacity(1 << 16);
        let (n, t1) = best_of(5, || {
            let mut n = 0;
            for _ in 0..rep {
                for w in (0..data.len()).step_by(32 * 1024) {
                    cands.clear();
                    ex.candidates(&data, w, w + 32 * 1024, &mut cands);
                    n += cands.len();
                }
            }
            n
        });
        let (u, t2) = best_of(5, || {
            let mut n = 0;
            for _ in 0..rep {
                ex.scan(&data, 0, data.len(), 0, |_| n += 1);
            }
            n
        });
        println!(
            "{:<7} candidates {n:>8} {:>6.0} MB/s | extract {u:>7} urls {:>6.0} MB/s",
            isa.name(),
            mb / t1,
            mb / t2
        );
    }
}
