//! Every ISA's extractor gives exactly the scalar extractor's matches: random
//! and adversarial buffers at every alignment, and the project's datasets.

use proptest::prelude::*;
use urlsift_core::Isa;
use urlsift_core::{Extractor, Match};

fn isas() -> Vec<Isa> {
    Isa::ALL.into_iter().filter(|i| i.is_available()).collect()
}

fn run(isa: Isa, hay: &[u8], start: usize) -> Vec<Match<'_>> {
    let ex = Extractor::choose(Some(isa.name())).unwrap();
    let mut v = Vec::new();
    ex.scan(hay, start, hay.len(), start, |m| v.push(m));
    v
}

fn check(hay: &[u8]) {
    // Every alignment of the scan start inside the first block.
    for start in 0..hay.len().min(65) {
        let want = run(Isa::Scalar, hay, start);
        for isa in isas() {
            assert_eq!(
                run(isa, hay, start),
                want,
                "{isa} start {start}: {:?}",
                String::from_utf8_lossy(hay)
            );
        }
    }
}

const PIECES: &[&[u8]] = &[
    b"http://a.example/x",
    b"<",
    b">",
    b"<URL:",
    b"\"",
    b" ",
    b"\n",
    b"www.",
    b"www.b.example",
    b"(",
    b")",
    b"]",
    b".",
    b":",
    b"-\n",
    b"mailto:j@x.example",
    b"news:a.b",
    b"a:b",
    b"://",
    b"\xe3\x80\x82",
    b"\xc3\xa9",
    b"\xff",
    b"\x00",
    b"urn:isbn:1",
    b"W",
    b"w",
    b"/",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if std::env::var("CI").is_ok() { 2000 } else { 300 }))]

    #[test]
    fn pieces(ix in prop::collection::vec(0usize..PIECES.len(), 0..60), pad in 0usize..64) {
        let mut hay = vec![b'x'; pad];
        for i in ix {
            hay.extend_from_slice(PIECES[i]);
        }
        check(&hay);
    }

    #[test]
    fn random_bytes(hay in prop::collection::vec(any::<u8>(), 0..=256)) {
        check(&hay);
    }
}

/// Lengths 0..=256 of a URL-rich text, at every alignment of the buffer.
#[test]
fn every_length_and_alignment() {
    let text = b"see <http://a.example/p?q#f> and www.b.example/x. mailto:c@d.example (http://e.example/(f)) ";
    let long: Vec<u8> = text.iter().copied().cycle().take(256 + 64).collect();
    for len in 0..=256 {
        for off in [0, 1, 7, 31, 63] {
            check(&long[off..off + len]);
        }
    }
}

/// The committed datasets, whole.
#[test]
fn datasets() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../datasets");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_file() && p.extension().is_some_and(|x| x == "txt" || x == "mbox") {
            let hay = std::fs::read(&p).unwrap();
            let want = run(Isa::Scalar, &hay, 0);
            for isa in isas() {
                assert_eq!(run(isa, &hay, 0), want, "{isa} on {}", p.display());
            }
        }
    }
}
