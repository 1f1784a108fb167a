//! RFC 3986, section by section: each test names the section whose rule or
//! example it checks (the examples are the RFC's own where it gives them).

use urlsift_uri::{
    ErrorKind, HostKind, NormalizeOptions, UriRef, default_port, normalize, relativize,
    remove_dot_segments, resolve,
};

fn parts(u: &UriRef<'_>) -> [Option<String>; 6] {
    let s = |b: Option<&[u8]>| b.map(|b| String::from_utf8_lossy(b).into_owned());
    [
        s(u.scheme()),
        s(u.userinfo()),
        s(u.host()),
        s(u.port()),
        s(Some(u.path())),
        s(u.query()),
    ]
}

fn ok(text: &str) -> UriRef<'_> {
    UriRef::parse(text.as_bytes()).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn err(text: &str) -> (usize, ErrorKind) {
    let e = UriRef::parse(text.as_bytes()).expect_err(text);
    (e.index, e.kind)
}

fn norm(text: &str) -> String {
    normalize(text.as_bytes(), &NormalizeOptions::default()).unwrap()
}

fn syntax(text: &str) -> String {
    let opts = NormalizeOptions {
        scheme_based: false,
        ..NormalizeOptions::default()
    };
    normalize(text.as_bytes(), &opts).unwrap()
}

const BASE: &[u8] = b"http://a/b/c/d;p?q";

fn res(r: &str) -> String {
    resolve(BASE, r.as_bytes()).unwrap()
}

#[test]
fn s1_1_2_examples_split_into_their_components() {
    let o = |s: &str| Some(s.to_string());
    assert_eq!(
        parts(&ok("ftp://ftp.is.co.za/rfc/rfc1808.txt")),
        [
            o("ftp"),
            None,
            o("ftp.is.co.za"),
            None,
            o("/rfc/rfc1808.txt"),
            None
        ]
    );
    assert_eq!(
        parts(&ok("ldap://[2001:db8::7]/c=GB?objectClass?one")),
        [
            o("ldap"),
            None,
            o("[2001:db8::7]"),
            None,
            o("/c=GB"),
            o("objectClass?one")
        ]
    );
    assert_eq!(
        parts(&ok("mailto:John.Doe@example.com")),
        [
            o("mailto"),
            None,
            None,
            None,
            o("John.Doe@example.com"),
            None
        ]
    );
    assert_eq!(
        parts(&ok("news:comp.infosystems.www.servers.unix")),
        [
            o("news"),
            None,
            None,
            None,
            o("comp.infosystems.www.servers.unix"),
            None
        ]
    );
    assert_eq!(
        parts(&ok("tel:+1-816-555-1212")),
        [o("tel"), None, None, None, o("+1-816-555-1212"), None]
    );
    assert_eq!(
        parts(&ok("telnet://192.0.2.16:80/")),
        [o("telnet"), None, o("192.0.2.16"), o("80"), o("/"), None]
    );
    assert_eq!(
        parts(&ok("urn:oasis:names:specification:docbook:dtd:xml:4.1.2")),
        [
            o("urn"),
            None,
            None,
            None,
            o("oasis:names:specification:docbook:dtd:xml:4.1.2"),
            None
        ]
    );
}

#[test]
fn s3_the_five_components_of_the_example() {
    let u = ok("foo://example.com:8042/over/there?name=ferret#nose");
    assert_eq!(u.scheme(), Some(&b"foo"[..]));
    assert_eq!(u.authority(), Some(&b"example.com:8042"[..]));
    assert_eq!(u.path(), b"/over/there");
    assert_eq!(u.query(), Some(&b"name=ferret"[..]));
    assert_eq!(u.fragment(), Some(&b"nose"[..]));
    let u = ok("urn:example:animal:ferret:nose");
    assert_eq!(u.authority(), None);
    assert_eq!(u.path(), b"example:animal:ferret:nose");
}

#[test]
fn s3_1_scheme_starts_with_a_letter() {
    assert!(ok("a+b-c.d://x").is_absolute());
    assert_eq!(err("1http://x").1, ErrorKind::Scheme);
    assert_eq!(err("+a://x").1, ErrorKind::Scheme);
}

#[test]
fn s3_2_1_userinfo_allows_sub_delims_and_colon_not_at() {
    let u = ok("http://user:pa;ss@host/");
    assert_eq!(u.userinfo(), Some(&b"user:pa;ss"[..]));
    assert_eq!(u.host(), Some(&b"host"[..]));
    assert!(UriRef::parse(b"http://us er@host/").is_err());
}

#[test]
fn s3_2_2_host_kinds() {
    assert_eq!(ok("http://192.0.2.16/").host_kind(), Some(HostKind::Ipv4));
    assert_eq!(
        ok("http://[2001:db8::7]/").host_kind(),
        Some(HostKind::Ipv6)
    );
    assert_eq!(
        ok("http://[v7.fe80::a+en1]/").host_kind(),
        Some(HostKind::IpvFuture)
    );
    assert_eq!(
        ok("http://example.com/").host_kind(),
        Some(HostKind::RegName)
    );
    // A dotted quad out of range is a registered name, as the ABNF reads it.
    assert_eq!(ok("http://256.1.1.1/").host_kind(), Some(HostKind::RegName));
    // The empty host of a file URI.
    assert_eq!(ok("file:///etc/hosts").host(), Some(&b""[..]));
}

#[test]
fn s3_2_2_ip_literals_are_checked() {
    assert_eq!(err("http://[2001:db8::7/").1, ErrorKind::UnclosedBracket);
    assert_eq!(err("http://[1:2:3:4:5:6:7:8:9]/").1, ErrorKind::Ipv6);
    assert_eq!(err("http://[v.x]/").1, ErrorKind::IpvFuture);
    assert!(urlsift_uri::host::is_ipv6(b"::ffff:192.0.2.1"));
    assert!(!urlsift_uri::host::is_ipv6(b"::ffff:192.0.2.256"));
    assert!(urlsift_uri::host::is_ipv4(b"0.0.0.0"));
    assert!(!urlsift_uri::host::is_ipv4(b"01.2.3.4"));
}

#[test]
fn s3_2_3_port_is_digits_and_may_be_empty() {
    assert_eq!(ok("http://h:/").port(), Some(&b""[..]));
    assert_eq!(ok("http://h:65536/").port(), Some(&b"65536"[..]));
    assert_eq!(err("http://h:8a/").1, ErrorKind::Port);
}

#[test]
fn s3_3_path_forms() {
    // path-abempty, path-absolute, path-rootless, path-empty.
    assert_eq!(ok("http://h").path(), b"");
    assert_eq!(ok("/a/b").path(), b"/a/b");
    assert_eq!(ok("a/b").path(), b"a/b");
    assert_eq!(ok("").path(), b"");
    // A path cannot start with `//` without an authority.
    let u = ok("//h/p");
    assert_eq!(u.host(), Some(&b"h"[..]));
    assert_eq!(u.path(), b"/p");
}

#[test]
fn s3_4_query_may_hold_slash_and_question_mark() {
    let u = ok("http://h/p?a/b?c=d");
    assert_eq!(u.query(), Some(&b"a/b?c=d"[..]));
    assert_eq!(ok("http://h/p?").query(), Some(&b""[..]));
    assert_eq!(ok("http://h/p").query(), None);
}

#[test]
fn s3_5_fragment_ends_the_reference() {
    let u = ok("http://h/p#f/g?h");
    assert_eq!(u.fragment(), Some(&b"f/g?h"[..]));
    assert_eq!(u.query(), None);
    assert_eq!(err("http://h/p#a#b").1, ErrorKind::Fragment);
}

#[test]
fn s2_1_percent_encoding_needs_two_hex_digits() {
    assert!(UriRef::parse(b"http://h/%41%6a").is_ok());
    // Cut short: the offset is the text's length (every byte was a prefix
    // of a valid reference); a bad digit: the offset of that digit.
    assert_eq!(err("http://h/%4"), (11, ErrorKind::PercentEncoding));
    assert_eq!(err("http://h/%4g"), (11, ErrorKind::PercentEncoding));
    assert_eq!(err("http://h/%zz").1, ErrorKind::PercentEncoding);
}

#[test]
fn s2_iri_bytes_are_not_uri_bytes() {
    assert_eq!(err("http://h/é").1, ErrorKind::NonAscii);
    assert!(UriRef::parse_iri("http://h/é".as_bytes()).is_ok());
}

#[test]
fn s4_2_relative_reference_first_segment_has_no_colon() {
    // `1a` cannot be a scheme, so `1a:b` is a relative path whose first
    // segment holds a colon: not a URI reference.
    assert_eq!(err("1a:b").1, ErrorKind::Scheme);
    // `a:b:c` is an absolute URI with the scheme `a`.
    assert_eq!(ok("a:b:c").scheme(), Some(&b"a"[..]));
    assert!(!ok("./a:b").is_absolute());
    assert_eq!(ok("./a:b").path(), b"./a:b");
}

#[test]
fn s4_3_absolute_uri_has_a_scheme() {
    assert!(ok("http://h").is_absolute());
    assert!(!ok("//h").is_absolute());
    assert!(!ok("?q").is_absolute());
}

#[test]
fn s5_2_4_remove_dot_segments_examples() {
    let r = |s: &str| {
        let mut out = Vec::new();
        remove_dot_segments(s.as_bytes(), &mut out);
        String::from_utf8(out).unwrap()
    };
    assert_eq!(r("/a/b/c/./../../g"), "/a/g");
    assert_eq!(r("mid/content=5/../6"), "mid/6");
    assert_eq!(r("/.."), "/");
    assert_eq!(r("/./a/."), "/a/");
    assert_eq!(r("../a"), "a");
}

#[test]
fn s5_4_1_normal_examples() {
    for (r, want) in [
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
        (";x", "http://a/b/c/;x"),
        ("", "http://a/b/c/d;p?q"),
        (".", "http://a/b/c/"),
        ("..", "http://a/b/"),
        ("../g", "http://a/b/g"),
        ("../..", "http://a/"),
        ("../../g", "http://a/g"),
    ] {
        assert_eq!(res(r), want, "{r}");
    }
}

#[test]
fn s5_4_2_abnormal_examples() {
    for (r, want) in [
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
        ("g#s/../x", "http://a/b/c/g#s/../x"),
        ("http:g", "http:g"),
    ] {
        assert_eq!(res(r), want, "{r}");
    }
}

#[test]
fn s5_1_base_must_be_absolute() {
    let e = resolve(b"//a/b", b"c").unwrap_err();
    assert_eq!(e.kind, ErrorKind::BaseNotAbsolute);
}

#[test]
fn s6_2_2_1_case_normalization() {
    assert_eq!(syntax("HTTP://www.EXAMPLE.com/"), "http://www.example.com/");
    // Percent-encodings in upper case; the path's case kept.
    assert_eq!(syntax("http://h/a%c3%a9B"), "http://h/a%C3%A9B");
}

#[test]
fn s6_2_2_2_percent_encoding_normalization() {
    // Unreserved characters decoded; reserved ones kept encoded.
    assert_eq!(syntax("http://h/%7Euser/%41%2F"), "http://h/~user/A%2F");
    assert_eq!(syntax("http://h/%2d%2e%5f"), "http://h/-._");
}

#[test]
fn s6_2_2_3_path_segment_normalization() {
    assert_eq!(syntax("http://h/a/./b/../c"), "http://h/a/c");
    // A relative reference keeps its dot segments: they are resolved later.
    let opts = NormalizeOptions::default();
    assert!(normalize(b"../a", &opts).is_ok());
}

#[test]
fn s6_2_3_scheme_based_normalization() {
    assert_eq!(norm("http://example.com"), "http://example.com/");
    assert_eq!(norm("http://example.com:/"), "http://example.com/");
    assert_eq!(norm("http://example.com:80/"), "http://example.com/");
    assert_eq!(norm("https://example.com:443/"), "https://example.com/");
    assert_eq!(norm("https://example.com:80/"), "https://example.com:80/");
    // Without scheme-based rules the port stays.
    assert_eq!(syntax("http://example.com:80/"), "http://example.com:80/");
}

#[test]
fn s6_2_the_equivalent_forms_normalize_alike() {
    let forms = [
        "http://example.com/~smith/",
        "HTTP://EXAMPLE.COM/%7esmith/",
        "http://example.com:80/%7Esmith/",
        "http://example.com:/./~smith/",
    ];
    for f in forms {
        assert_eq!(norm(f), forms[0], "{f}");
    }
}

#[test]
fn normalization_drops_the_fragment_when_asked() {
    let opts = NormalizeOptions {
        drop_fragment: true,
        ..NormalizeOptions::default()
    };
    assert_eq!(normalize(b"http://h/p?q#f", &opts).unwrap(), "http://h/p?q");
}

#[test]
fn normalization_is_idempotent_on_the_rfc_examples() {
    for u in [
        "ftp://ftp.is.co.za/rfc/rfc1808.txt",
        "HTTP://www.Example.com:80/a/./b/../%7ec?Q#F",
        "ldap://[2001:DB8::7]/c=GB?objectClass?one",
        "mailto:John.Doe@example.com",
        "urn:oasis:names:specification:docbook:dtd:xml:4.1.2",
    ] {
        let once = norm(u);
        assert_eq!(norm(&once), once, "{u}");
    }
}

#[test]
fn default_ports_of_known_schemes() {
    assert_eq!(default_port(b"http"), Some(80));
    assert_eq!(default_port(b"https"), Some(443));
    assert_eq!(default_port(b"ftp"), Some(21));
    assert_eq!(default_port(b"no-such-scheme"), None);
}

#[test]
fn relativize_is_the_inverse_of_resolve() {
    for (base, target) in [
        ("http://a/b/c/d", "http://a/b/c/g"),
        ("http://a/b/c/d", "http://a/x/y"),
        ("http://a/b/c/d?q", "http://a/b/c/d?r"),
        ("http://a/b/", "http://a/b/c#f"),
    ] {
        let rel = relativize(base.as_bytes(), target.as_bytes(), false).unwrap();
        assert_eq!(
            resolve(base.as_bytes(), rel.as_bytes()).unwrap(),
            target,
            "{rel}"
        );
    }
}

#[test]
fn split_never_fails_and_keeps_every_byte() {
    for text in [
        &b"\xff\x00:%"[..],
        b"::",
        b"[",
        b"http://[",
        b"?#",
        b"a:b@c:d",
    ] {
        let u = UriRef::split(text);
        assert_eq!(u.as_bytes(), text);
        let len = u.scheme().map_or(0, |s| s.len() + 1)
            + u.authority().map_or(0, |a| a.len() + 2)
            + u.path().len()
            + u.query().map_or(0, |q| q.len() + 1)
            + u.fragment().map_or(0, |f| f.len() + 1);
        assert_eq!(len, text.len(), "{text:?}");
    }
}

#[test]
fn error_offsets_point_at_the_first_bad_byte() {
    assert_eq!(err("http://example.com/a b"), (20, ErrorKind::Path));
    assert_eq!(err("http://exa mple.com/").1, ErrorKind::Host);
    assert_eq!(err("http://h/p?a b").1, ErrorKind::Query);
    // The uriparser convention: `w3c.org:80path1` could still be userinfo.
    assert_eq!(err("http://w3c.org:80path1/path2").0, 22);
}

#[test]
fn s3_2_2_reg_name_holds_sub_delims_and_percent_encodings() {
    let u = ok("http://a!$&'()*+,;=b%41/");
    assert_eq!(u.host(), Some(&b"a!$&'()*+,;=b%41"[..]));
    assert_eq!(u.host_kind(), Some(HostKind::RegName));
    // Case is normalized in the host, and unreserved encodings decoded.
    assert_eq!(syntax("http://EX%41MPLE.com/"), "http://example.com/");
}

#[test]
fn s4_4_same_document_reference_resolves_to_the_base() {
    assert_eq!(res(""), "http://a/b/c/d;p?q");
    assert_eq!(res("#"), "http://a/b/c/d;p?q#");
}
