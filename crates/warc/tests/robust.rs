//! Resolution through the HTML path (RFC 3986 5.4), and inputs that must
//! never panic, hang or take more than linear time.

use std::io::Write;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use urlsift_html::{html_links, sniff_html};
use urlsift_warc::{LinkOptions, Reader, Record, record_links};

/// The RFC 3986 5.4.1 and 5.4.2 examples, each as `<a href>` in a page
/// whose `<base href>` is the RFC's base URI.
#[test]
fn rfc3986_5_4_examples_through_base_href() {
    const CASES: &[(&str, &str)] = &[
        // 5.4.1 normal
        ("g:h", "g:h"),
        ("g", "http://a/b/c/g"),
        ("./g", "http://a/b/c/g"),
        ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"),
        ("//g", "http://g"),
        ("?y", "http://a/b/c/d;p?y"),
        ("g?y", "http://a/b/c/g?y"),
        ("#s", "http://a/b/c/d;p?q#s"),
        ("g#s", "http://a/b/c/g#s"),
        ("g?y#s", "http://a/b/c/g?y#s"),
        (";x", "http://a/b/c/;x"),
        ("g;x", "http://a/b/c/g;x"),
        ("g;x?y#s", "http://a/b/c/g;x?y#s"),
        ("", "http://a/b/c/d;p?q"),
        (".", "http://a/b/c/"),
        ("./", "http://a/b/c/"),
        ("..", "http://a/b/"),
        ("../", "http://a/b/"),
        ("../g", "http://a/b/g"),
        ("../..", "http://a/"),
        ("../../", "http://a/"),
        ("../../g", "http://a/g"),
        // 5.4.2 abnormal
        ("../../../g", "http://a/g"),
        ("../../../../g", "http://a/g"),
        ("/./g", "http://a/g"),
        ("/../g", "http://a/g"),
        ("g.", "http://a/b/c/g."),
        (".g", "http://a/b/c/.g"),
        ("g..", "http://a/b/c/g.."),
        ("..g", "http://a/b/c/..g"),
        ("./../g", "http://a/b/g"),
        ("./g/.", "http://a/b/c/g/"),
        ("g/./h", "http://a/b/c/g/h"),
        ("g/../h", "http://a/b/c/h"),
        ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
        ("g;x=1/../y", "http://a/b/c/y"),
        ("g?y/./x", "http://a/b/c/g?y/./x"),
        ("g?y/../x", "http://a/b/c/g?y/../x"),
        ("g#s/./x", "http://a/b/c/g#s/./x"),
        ("g#s/../x", "http://a/b/c/g#s/../x"),
        ("http:g", "http:g"),
    ];
    let mut page = String::from("<html><head><base href='http://a/b/c/d;p?q'></head><body>\n");
    for (r, _) in CASES {
        page.push_str(&format!("<a href=\"{r}\">x</a>\n"));
    }
    let opts = LinkOptions {
        text: false,
        ..LinkOptions::default()
    };
    let mut got = Vec::new();
    // The document URI differs from the base: <base href> wins.
    html_links(
        page.as_bytes(),
        Some("http://doc.example/x/y"),
        &opts,
        |l| {
            assert!(l.resolved);
            got.push(l.url);
        },
    );
    let want: Vec<&str> = CASES.iter().map(|c| c.1).collect();
    assert_eq!(got, want);
}

#[test]
fn no_base_leaves_relative_references_unresolved() {
    let mut got = Vec::new();
    html_links(
        b"<a href='../x?a=1&amp;b'>r</a><a href=HTTP://Ex.org/a/../b>a</a><base href=rel/>",
        None,
        &LinkOptions::default(),
        |l| got.push((l.url, l.resolved)),
    );
    assert_eq!(
        got,
        [
            ("../x?a=1&b".to_owned(), false),
            ("HTTP://Ex.org/b".to_owned(), true)
        ]
    );
}

#[test]
fn tokenizer_edge_cases() {
    let page = br#"<!DOCTYPE html><!-- <a href="/c1"> --><!--> <a href="/c2"><!---><a href=/ok1>
<a
  HREF = 'x y'   title="<a href=/no>">text</a><a href="/unterminated
<SCRIPT>document.write('<a href="/s1">')</script >
<style>a{background:url(/s2)}</style><textarea><a href="/t1"></textarea>
<a href=/dup href=/dup2><p background=/bg><object data=/obj></object><div data=/notobj>
<a href=/after-unclosed>
"#;
    let mut got = Vec::new();
    html_links(page, Some("http://h/"), &LinkOptions::default(), |l| {
        got.push(l.url)
    });
    assert_eq!(
        got,
        [
            // `<!-->` is a whole (empty) comment: the tag after it is real.
            "http://h/c2",
            "http://h/ok1",
            "http://h/x y",
            // An unclosed quote runs to the next quote, as in browsers.
            "http://h/unterminated<SCRIPT>document.write('<a href=",
            // A CSS `url()` of a `<style>`, resolved.
            "http://h/s2",
            "http://h/dup",
            "http://h/bg",
            "http://h/obj",
            "http://h/after-unclosed",
        ]
    );
}

#[test]
fn sniffing() {
    assert!(sniff_html(b"  \r\n<HTML lang=en>"));
    assert!(sniff_html(b"<!DOCTYPE html>"));
    assert!(sniff_html(b"<!-- c -->"));
    assert!(sniff_html(b"<p>x"));
    assert!(!sniff_html(b"<?xml version='1.0'?>"));
    assert!(!sniff_html(b"%PDF-1.4"));
    assert!(!sniff_html(b""));
}

fn read_all(bytes: &[u8]) -> (usize, usize) {
    let (mut r, mut i) = (0, 0);
    for item in Reader::with_max_block(bytes, 1 << 20) {
        match item {
            Ok(rec) => {
                r += 1;
                record_links(&rec, &LinkOptions::default(), |_| {});
            }
            Err(_) => i += 1,
        }
    }
    (r, i)
}

fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).expect("in memory");
    e.finish().expect("in memory")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
        read_all(&bytes);
        let mut warc = b"WARC/1.1\r\nWARC-Type: response\r\nContent-Length: 10\r\n\r\n".to_vec();
        warc.extend_from_slice(&bytes);
        read_all(&warc);
        read_all(&gz(&warc));
        let mut n = 0;
        html_links(&bytes, Some("http://a/b"), &LinkOptions { scan_scripts: true, ..LinkOptions::default() }, |_| n += 1);
        let rec = Record { warc_type: "response".into(), block: [&b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip, br\r\nTransfer-Encoding: chunked\r\n\r\n"[..], &bytes].concat(), ..Record::default() };
        record_links(&rec, &LinkOptions::default(), |_| {});
    }

    #[test]
    fn html_soup_never_panics(parts in proptest::collection::vec(prop::sample::select(vec![
        "<", ">", "a", " href", "=", "\"", "'", "&", "#", "x", "41", ";", "amp", "</", "script", "<!--", "-->", "base", "srcset", ",", " 1x", "http://", "www.", "\n", "meta", "http-equiv=refresh", "content", "url=",
    ]), 0..200)) {
        let page: String = parts.concat();
        html_links(page.as_bytes(), Some("http://a/b"), &LinkOptions::default(), |_| {});
        html_links(page.as_bytes(), None, &LinkOptions::default(), |_| {});
    }
}

#[test]
fn mutated_archives_lose_little_and_never_hang() {
    let data = |n: &str| {
        std::fs::read(format!("{}/tests/data/{n}", env!("CARGO_MANIFEST_DIR"))).expect("fixture")
    };
    for name in ["sample.warc.gz", "sample.warc", "whole.warc.gz"] {
        let orig = data(name);
        let (all, _) = read_all(&orig);
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..60 {
            let mut m = orig.clone();
            for _ in 0..3 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let at = (seed % m.len() as u64) as usize;
                m[at] ^= (seed >> 32) as u8 | 1;
            }
            let (recs, _) = read_all(&m);
            if name == "sample.warc.gz" {
                // Three flipped bytes hit at most three members.
                assert!(recs + 3 >= all, "{recs} of {all}");
            }
        }
    }
}

/// Adversarial inputs read in linear time: records whose Content-Length
/// each claims the rest of the file, a million `<`, unclosed quotes, `&`s.
#[test]
fn adversarial_inputs_are_linear() {
    let mut nested = Vec::new();
    for _ in 0..20_000 {
        nested.extend_from_slice(
            b"WARC/1.1\r\nWARC-Type: resource\r\nContent-Length: 999999999\r\n\r\nx\r\n\r\n",
        );
    }
    let t = Instant::now();
    let (recs, _) = read_all(&nested);
    assert!(recs >= 1);
    read_all(&gz(&nested));
    let lt = vec![b'<'; 4 << 20];
    html_links(&lt, None, &LinkOptions::default(), |_| {});
    let amp = b"&notin&#x1234567890abcdef&amp".repeat(100_000);
    html_links(&amp, None, &LinkOptions::default(), |_| {});
    let quotes = b"<a href='".repeat(200_000);
    html_links(&quotes, None, &LinkOptions::default(), |_| {});
    let comments = b"<!--<!---".repeat(200_000);
    html_links(&comments, None, &LinkOptions::default(), |_| {});
    let scripts = b"<script></scrip".repeat(200_000);
    html_links(&scripts, None, &LinkOptions::default(), |_| {});
    let warcs = b"\nWARC/1.\n".repeat(400_000);
    read_all(&warcs);
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
}
