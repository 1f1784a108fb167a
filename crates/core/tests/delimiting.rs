//! The delimiting rules of RFC 3986 Appendix C and RFC 2396 Appendix E, one
//! rule per test, through the public `extract` API: the URL, its offsets
//! (delimiters excluded), its style and its kind. The wider table of cases
//! is `extract_cases.rs`; these pin each rule's offsets and invariants.

use urlsift_core::{Finder, Found, Isa};
use urlsift_core::{Kind, Match, Style};

/// Every URL in `hay`, in input order.
fn extract(hay: &[u8]) -> Vec<Match<'_>> {
    urlsift_core::find(hay).collect()
}

fn one(text: &str) -> Match<'_> {
    let mut v = extract(text.as_bytes());
    assert_eq!(v.len(), 1, "{text:?}: {v:?}");
    v.remove(0)
}

fn urls(text: &str) -> Vec<String> {
    extract(text.as_bytes())
        .iter()
        .map(|m| m.url_str().into_owned())
        .collect()
}

#[test]
fn angle_brackets_delimit_and_join_a_wrapped_url() {
    let t = "see <http://a.example/b\n   /c> ok";
    let m = one(t);
    assert_eq!(&*m.url, b"http://a.example/b/c");
    assert_eq!(m.style, Style::Angle);
    // The offsets span the URL as written, line break included.
    assert_eq!((m.start, m.end), (5, 29));
    assert_eq!(&t[m.start..m.end], "http://a.example/b\n   /c");
}

#[test]
fn url_prefix_in_angle_brackets_drops_the_prefix_and_whitespace() {
    let m = one("see <URL:http://a.example/x y> ok");
    assert_eq!(&*m.url, b"http://a.example/xy");
    assert_eq!(m.style, Style::UrlPrefix);
    assert_eq!(m.start, 9);
}

#[test]
fn url_prefix_without_brackets() {
    let m = one("URL: http://p.example/z then");
    assert_eq!(&*m.url, b"http://p.example/z");
    assert_eq!(m.style, Style::UrlPrefix);
}

#[test]
fn a_bare_url_borrows_the_input_at_its_offsets() {
    let t = "x http://t.example/a?b=c&d=e#f y";
    let m = one(t);
    assert!(matches!(m.url, std::borrow::Cow::Borrowed(_)));
    assert_eq!(&t.as_bytes()[m.start..m.end], &*m.url);
    assert_eq!(m.style, Style::Bare);
    assert_eq!(m.kind, Kind::Uri);
}

#[test]
fn trailing_sentence_punctuation_is_trimmed() {
    for (t, want) in [
        ("end http://e.example/a. More", "http://e.example/a"),
        ("x http://t.example/a?b=c#f.", "http://t.example/a?b=c#f"),
        ("ftp://f.example/a;type=i!", "ftp://f.example/a;type=i"),
        ("mailto:someone@example.com?", "mailto:someone@example.com"),
        ("see http://c.example/x, and", "http://c.example/x"),
        ("is it http://q.example/y?", "http://q.example/y"),
    ] {
        assert_eq!(urls(t), [want], "{t:?}");
    }
}

#[test]
fn balanced_parentheses_are_kept_and_an_unbalanced_one_dropped() {
    assert_eq!(
        urls("x (http://w.example/Foo_(bar)) y"),
        ["http://w.example/Foo_(bar)"]
    );
    assert_eq!(urls("x http://w.example/a) y"), ["http://w.example/a"]);
}

#[test]
fn an_ipv6_literal_keeps_its_brackets_and_a_stray_bracket_goes() {
    assert_eq!(
        urls("a http://[2001:db8::1]:8080/p] b"),
        ["http://[2001:db8::1]:8080/p"]
    );
}

#[test]
fn abbreviated_www_urls_have_their_own_kind() {
    let m = one("www.abbrev.example/path, and");
    assert_eq!(&*m.url, b"www.abbrev.example/path");
    assert_eq!(m.kind, Kind::Www);
    assert_eq!((m.start, m.end), (0, 23));
}

#[test]
fn single_quotes_are_not_part_of_the_url() {
    assert_eq!(urls("it's 'http://s.example/q' ok"), ["http://s.example/q"]);
}

#[test]
fn whitespace_ends_a_bare_url() {
    assert_eq!(urls("x\thttp://tab.example\ty"), ["http://tab.example"]);
    assert_eq!(urls("a http://n.example/1\r\nb"), ["http://n.example/1"]);
}

#[test]
fn urls_are_reported_in_input_order_without_overlap() {
    let t = "<http://a.example/1> then http://b.example/2 and \
             www.c.example/3 \"http://d.example/4\" <URL:http://e.example/5>";
    let v = extract(t.as_bytes());
    assert_eq!(v.len(), 5);
    assert!(v.windows(2).all(|w| w[0].end <= w[1].start));
}

#[test]
fn no_url_in_text_without_one() {
    for t in [
        "",
        "plain words only",
        "http:",
        "http://",
        "www.",
        "::::",
        "<>",
    ] {
        assert!(extract(t.as_bytes()).is_empty(), "{t:?}");
    }
}

#[test]
fn a_url_at_the_very_end_of_the_input_is_found() {
    assert_eq!(urls("last http://z.example/end"), ["http://z.example/end"]);
    assert_eq!(urls("http://only.example"), ["http://only.example"]);
}

#[test]
fn any_bytes_are_valid_input() {
    let mut t = Vec::new();
    for b in 0..=255u8 {
        t.extend_from_slice(b"http://x.example/");
        t.push(b);
        t.extend_from_slice(b" <\xff\x00> ");
    }
    let v = extract(&t);
    assert!(v.len() >= 200);
    for m in &v {
        assert!(m.start < m.end && m.end <= t.len());
        assert!(m.url.starts_with(b"http://x.example/"));
    }
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

#[test]
fn every_chunk_size_and_instruction_set_finds_the_same() {
    let mut t = String::new();
    for i in 0..500 {
        t.push_str(&format!(
            "w{i} <http://e.example/{i}\n /more> (http://p.example/a_({i})) www.w{i}.example. "
        ));
    }
    let want = extract(t.as_bytes());
    assert_eq!(want.len(), 1500);
    for chunk in [64, 1000, 4096] {
        assert_eq!(
            scan_all(Finder::new().chunk_size(chunk), t.as_bytes()),
            want
        );
    }
    for isa in Isa::ALL.into_iter().filter(|i| i.is_available()) {
        assert_eq!(
            scan_all(Finder::new().isa(isa).unwrap(), t.as_bytes()),
            want,
            "{isa}"
        );
    }
}

#[test]
fn an_unavailable_instruction_set_is_an_error_not_a_fallback() {
    for isa in Isa::ALL.into_iter().filter(|i| !i.is_available()) {
        assert!(Finder::new().isa(isa).is_err(), "{isa}");
    }
    assert_eq!("scalar".parse::<Isa>().ok(), Some(Isa::Scalar));
    assert_eq!("no-such-isa".parse::<Isa>().ok(), None);
}
