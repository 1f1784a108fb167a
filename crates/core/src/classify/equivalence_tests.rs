//! Every available ISA against the naive oracle (`naive`):
//! seed cases padded on both sides, every start/end offset, every alignment,
//! all 256 byte values, and proptest over random and adversarial buffers.
//!
//! `PROPTEST_CASES` raises the number of random cases (CI does).

use super::{Classifier, Isa, naive};
use proptest::prelude::*;

/// A classifier for every ISA this machine can run (scalar at least).
fn classifiers() -> Vec<Classifier> {
    let all: Vec<_> = Isa::ALL.into_iter().filter_map(Classifier::new).collect();
    assert!(all.iter().any(|c| c.isa() == Isa::Scalar));
    all
}

fn naive_candidates(hay: &[u8], start: usize, end: usize) -> Vec<usize> {
    let mut out = Vec::new();
    naive::candidates(hay, start, end, &mut out);
    out
}

/// Compare `candidates` on `start..end`, and `find_stop` and `find_run` from `start`.
fn check_range(c: &Classifier, hay: &[u8], start: usize, end: usize) {
    let want = naive_candidates(hay, start, end);
    // Existing contents of `out` are kept.
    let mut got = vec![usize::MAX];
    c.candidates(hay, start, end, &mut got);
    assert_eq!(got[0], usize::MAX);
    assert_eq!(
        &got[1..],
        &want[..],
        "{}: candidates({:?}, {start}, {end})",
        c.isa(),
        String::from_utf8_lossy(hay)
    );
    assert_eq!(
        c.find_stop(hay, start),
        naive::find_stop(hay, start),
        "{}: find_stop({:?}, {start})",
        c.isa(),
        String::from_utf8_lossy(hay)
    );
    assert_eq!(
        c.find_run(hay, start),
        naive::find_run(hay, start),
        "{}: find_run({:?}, {start})",
        c.isa(),
        String::from_utf8_lossy(hay)
    );
}

/// Whole buffer, every start (to the end), every end (from 0), and `find_stop` everywhere.
fn check_all_offsets(c: &Classifier, hay: &[u8]) {
    for i in 0..=hay.len() + 1 {
        check_range(c, hay, i, hay.len());
        check_range(c, hay, 0, i);
    }
}

const SEEDS: &[&[u8]] = &[
    b"http://example.com/",
    b"www.",
    b"WwW.",
    b"wwww.",
    b"www.www.",
    b"ww.",
    b"a:b",
    b":",
    b"::",
    b"x:",
    b"+:-:.:9:Z:",
    b" :",
    b"\"<http://x>\"",
    b"mailto:a@b news:c urn:d",
    b"\xE3\x80\x82http://a\xE3\x80\x82",
    b"\x80:\x80www.\x80",
    b"{|}\\^`\x7F\x00\x1F",
];

/// Each seed padded with 0..=64 filler bytes on both sides, so every class
/// change crosses every block edge and the tail.
#[test]
fn seeds_padded_at_every_offset() {
    for c in classifiers() {
        for seed in SEEDS {
            for filler in [b'a', b' ', b'w', b'.'] {
                for pad in 0..=64 {
                    let mut hay = vec![filler; pad];
                    hay.extend_from_slice(seed);
                    hay.extend(std::iter::repeat_n(filler, 64 - pad));
                    check_range(&c, &hay, 0, hay.len());
                    // And with the padding only on the left, the seed in the tail.
                    check_range(&c, &hay[..pad + seed.len()], 0, pad + seed.len());
                }
            }
            // Every start and end offset on one padded layout per filler.
            for pad in [0, 1, 31, 61, 62, 63, 64] {
                let mut hay = vec![b'w'; pad];
                hay.extend_from_slice(seed);
                hay.extend(std::iter::repeat_n(b'w', pad));
                check_all_offsets(&c, &hay);
            }
        }
    }
}

/// Every byte value in every role: before `:`, inside `www.`, as a stop.
#[test]
fn all_256_byte_values() {
    for c in classifiers() {
        for b in 0..=255u8 {
            for shape in [
                vec![b, b':'],
                vec![b':', b],
                vec![b, b'w', b'w', b'.'],
                vec![b'w', b, b'w', b'.'],
                vec![b'w', b'w', b'w', b],
                vec![b; 130],
            ] {
                for pad in [0, 1, 60, 61, 62, 63, 64, 65] {
                    let mut hay = vec![b'x'; pad];
                    hay.extend_from_slice(&shape);
                    hay.extend_from_slice(b"x");
                    check_range(&c, &hay, 0, hay.len());
                    for from in 0..hay.len() {
                        assert_eq!(c.find_stop(&hay, from), naive::find_stop(&hay, from));
                        assert_eq!(c.find_run(&hay, from), naive::find_run(&hay, from));
                    }
                }
            }
        }
        // All 256 bytes in order, in a block and across two blocks.
        let all: Vec<u8> = (0..=255).collect();
        check_all_offsets(&c, &all);
    }
}

#[test]
fn ranges_outside_the_haystack() {
    let hay = b"a:b www.x";
    for c in classifiers() {
        for (start, end) in [
            (0, 0),
            (5, 3),
            (9, 9),
            (9, 100),
            (100, 200),
            (0, usize::MAX),
        ] {
            check_range(&c, hay, start, end);
        }
        assert_eq!(c.find_stop(hay, 100), naive::find_stop(hay, 100));
        assert_eq!(c.find_stop(b"", 0), 0);
        check_range(&c, b"", 0, 0);
    }
}

/// Long inputs: many blocks, anchors and stops on every block edge.
#[test]
fn long_buffers() {
    let mut hay = Vec::new();
    for i in 0..5000usize {
        match i % 7 {
            0 => hay.extend_from_slice(b"http://a.example/x "),
            1 => hay.extend_from_slice(b"WWW.b.example "),
            2 => hay.extend_from_slice(&b"abcdefghijklmnopqrstuvwxyz"[..i % 26]),
            3 => hay.extend_from_slice("w\u{3000}ww.:".as_bytes()),
            4 => hay.push(b':'),
            5 => hay.extend_from_slice(b"www"),
            _ => hay.push(b'.'),
        }
    }
    for c in classifiers() {
        check_range(&c, &hay, 0, hay.len());
        check_range(&c, &hay, 1, hay.len() - 1);
        check_range(&c, &hay, 1000, 5000);
        // find_stop over a long run without stops, ending at every tail length.
        let run = vec![b'a'; 1000];
        for len in 0..=run.len() {
            for from in [0, len / 2, len.saturating_sub(1)] {
                assert_eq!(
                    c.find_stop(&run[..len], from),
                    naive::find_stop(&run[..len], from)
                );
                assert_eq!(
                    c.find_run(&run[..len], from),
                    naive::find_run(&run[..len], from)
                );
            }
        }
        // find_run with closing brackets on every side of a block edge.
        let mut run = vec![b'a'; 300];
        for at in [0, 63, 64, 65, 127, 128, 200, 299] {
            run[at] = if at % 2 == 0 { b')' } else { b']' };
        }
        for len in 0..=run.len() {
            for from in 0..len.min(140) {
                assert_eq!(
                    c.find_run(&run[..len], from),
                    naive::find_run(&run[..len], from),
                    "{}: len {len} from {from}",
                    c.isa()
                );
            }
        }
    }
}

#[test]
fn unavailable_isa_is_none() {
    let mut unavailable = 0;
    for isa in Isa::ALL {
        match Classifier::new(isa) {
            Some(c) => {
                assert!(isa.is_available() && isa.is_compiled());
                assert_eq!(c.isa(), isa);
            }
            None => {
                unavailable += 1;
                assert!(!isa.is_available());
                assert!(Classifier::from_name(isa.name()).is_err());
            }
        }
    }
    // x86-64 has no NEON, aarch64 no SSE2/AVX2/AVX-512.
    assert!(unavailable >= 1);
    assert!(Classifier::new(Isa::Scalar).is_some());
}

/// The adversarial alphabet: URL syntax, `www.` pieces, stops, UTF-8 lead bytes.
fn adversarial_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        8 => prop::sample::select(
            b":/wW. <>\"\n\x80\xE3aez09+-)]([".to_vec()
        ),
        1 => any::<u8>(),
    ]
}

fn buffer() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(adversarial_byte(), 0..=256),
        prop::collection::vec(any::<u8>(), 0..=256),
    ]
}

proptest! {
    /// Random buffers at a random alignment, with random `start..end`.
    #[test]
    fn prop_matches_naive(
        data in buffer(),
        align in 0usize..64,
        a in any::<prop::sample::Index>(),
        b in any::<prop::sample::Index>(),
    ) {
        let mut storage = vec![0u8; align];
        storage.extend_from_slice(&data);
        let hay = &storage[align..];
        let x = a.index(hay.len() + 2);
        let y = b.index(hay.len() + 2);
        for c in classifiers() {
            check_range(&c, hay, x.min(y), x.max(y));
            check_range(&c, hay, 0, hay.len());
            prop_assert_eq!(c.find_stop(hay, y), naive::find_stop(hay, y));
            prop_assert_eq!(c.find_run(hay, y), naive::find_run(hay, y));
        }
    }
}
