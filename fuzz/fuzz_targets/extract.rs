//! Every ISA this CPU runs finds the same matches as `Isa::Scalar`, and the
//! chunked parallel scan (chunk size from the first byte, 1..=256) equals the
//! sequential scan.
#![no_main]

use libfuzzer_sys::fuzz_target;
use urlsift_core::{Extractor, Isa, Match};

fn scan<'h>(ex: &Extractor, hay: &'h [u8]) -> Vec<Match<'h>> {
    let mut out = Vec::new();
    ex.scan(hay, 0, hay.len(), 0, |m| out.push(m));
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, hay)) = data.split_first() else {
        return;
    };
    let chunk = usize::from(first) + 1;
    let scalar = Extractor::with_isa(Isa::Scalar).expect("scalar always runs");
    let want = scan(&scalar, hay);
    for isa in Isa::ALL {
        if isa == Isa::Scalar {
            continue;
        }
        if let Some(ex) = Extractor::with_isa(isa) {
            assert_eq!(scan(&ex, hay), want, "{isa} differs from scalar");
        }
    }
    let par = urlsift_core::Finder::from(scalar).chunk_size(chunk).find_all(hay);
    assert_eq!(par, want, "parallel scan with chunk {chunk} differs");
    let best = Extractor::with_isa(Isa::best()).unwrap();
    let par = urlsift_core::Finder::from(best).chunk_size(chunk).find_all(hay);
    assert_eq!(
        par,
        want,
        "parallel {} scan with chunk {chunk} differs",
        Isa::best()
    );
});
