//! Every ISA this CPU runs finds the same matches as `Isa::Scalar`, and the
//! chunked parallel scan (chunk size from the first byte, 1..=256) equals the
//! sequential scan.
#![no_main]

use libfuzzer_sys::fuzz_target;
use urlsift_core::{Extractor, Finder, Found, Isa, Match};

fn scan<'h>(ex: &Extractor, hay: &'h [u8]) -> Vec<Match<'h>> {
    let mut out = Vec::new();
    ex.scan(hay, 0, hay.len(), 0, |m| out.push(m));
    out
}

/// Every match of `hay`, in order, scanned in chunks on the rayon pool.
fn scan_all<'h>(finder: Finder, hay: &'h [u8]) -> Vec<Match<'h>> {
    let mut v = Vec::new();
    finder.scan(hay, |f: Found<'h>| {
        v.push(f.m);
        true
    });
    v
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, hay)) = data.split_first() else {
        return;
    };
    let chunk = usize::from(first) + 1;
    let scalar = Extractor::choose(Some(Isa::Scalar.name())).expect("scalar always runs");
    let want = scan(&scalar, hay);
    for isa in Isa::ALL {
        if isa == Isa::Scalar {
            continue;
        }
        if let Ok(ex) = Extractor::choose(Some(isa.name())) {
            assert_eq!(scan(&ex, hay), want, "{isa} differs from scalar");
        }
    }
    let par = scan_all(Finder::from(scalar).chunk_size(chunk), hay);
    assert_eq!(par, want, "parallel scan with chunk {chunk} differs");
    let best = Extractor::choose(Some("auto")).unwrap();
    let par = scan_all(Finder::from(best).chunk_size(chunk), hay);
    assert_eq!(
        par,
        want,
        "parallel {} scan with chunk {chunk} differs",
        best.isa()
    );
});
