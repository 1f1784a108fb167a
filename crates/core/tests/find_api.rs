//! The crate-root API of urlsift-core: `find`, `Finder::find` and
//! `Finder::scan` give exactly the matches of the command line's scan.

use urlsift_core::{Finder, Found, Isa, Match, find};

/// Every match of `hay`, in order, scanned in chunks on the rayon pool.
fn scan_all<'h>(finder: Finder, hay: &'h [u8]) -> Vec<Match<'h>> {
    let mut v = Vec::new();
    finder.scan(hay, |f: Found<'h>| {
        v.push(f.m);
        true
    });
    v
}

/// What the command line finds: the mapped-file scan, in segments (a run of
/// more than `MAX_RUN` bytes with no cut point is cut by content).
fn reference<'h>(t: &'h [u8]) -> Vec<Match<'h>> {
    let mut v = Vec::new();
    let finder = Finder::new().segment_size(1 << 20).chunk_size(usize::MAX);
    finder.scan(t, |f: Found<'h>| {
        v.push(f.m);
        true
    });
    v
}

fn texts() -> Vec<Vec<u8>> {
    let mut v = vec![
        std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../datasets/sample.txt"
        ))
        .unwrap(),
        std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../datasets/sample.mbox"
        ))
        .unwrap(),
        Vec::new(),
        b"http://a".to_vec(),
    ];
    // Longer than a segment, with wrapped URLs across segment edges, and a
    // run with no cut point at all (forced cuts).
    let mut long = Vec::new();
    for i in 0..20_000 {
        long.extend_from_slice(
            format!("x{i} <http://e.example/{i}\n  /more> www.w{i}.example, ").as_bytes(),
        );
    }
    v.push(long);
    v.push(
        "\u{4e00}http://cjk.example/\u{4e00}"
            .repeat(300_000)
            .into_bytes(),
    );
    v
}

#[test]
fn find_equals_one_scan() {
    for t in texts() {
        let want = reference(&t);
        assert!(find(&t).eq(want.iter().cloned()));
        assert_eq!(scan_all(Finder::new().chunk_size(1000), &t), want);
        for isa in Isa::ALL.into_iter().filter(|i| i.is_available()) {
            let f = Finder::new().isa(isa).unwrap();
            assert!(f.find(&t).eq(want.iter().cloned()), "{isa}");
        }
    }
}

#[test]
fn find_is_lazy_and_fused() {
    let t = b"http://a.example/ ".repeat(100_000);
    let mut it = find(&t);
    assert_eq!(it.next().unwrap().start, 0);
    assert_eq!(it.by_ref().count(), 99_999);
    assert!(it.next().is_none());
}

#[test]
fn unavailable_isa_is_an_error() {
    for isa in Isa::ALL.into_iter().filter(|i| !i.is_available()) {
        let e = Finder::new().isa(isa).unwrap_err();
        assert!(e.to_string().contains("not available"), "{e}");
    }
}
