//! The keys against their references: the WHATWG URL Standard's
//! web-platform-tests (`urltestdata.json`), one host in every spelling,
//! and Public Suffix List rules of each kind.

use urlsift_keys::{domain, host_ascii, surt, whatwg};

/// Every case of web-platform-tests' `urltestdata.json` (a copy in
/// `tests/data/`): the expected `href`, or the expected failure.
#[test]
fn whatwg_passes_urltestdata() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/urltestdata.json");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let (mut n, mut failed) = (0, Vec::new());
    for case in v.as_array().unwrap() {
        let Some(c) = case.as_object() else {
            continue; // a comment
        };
        let input = c["input"].as_str().unwrap();
        let base = c.get("base").and_then(|b| b.as_str());
        let want_failure = c.get("failure").and_then(|f| f.as_bool()) == Some(true);
        let got = whatwg(input, base);
        let ok = match (&got, want_failure) {
            (Err(_), true) => true,
            (Ok(href), false) => Some(href.as_str()) == c.get("href").and_then(|h| h.as_str()),
            _ => false,
        };
        n += 1;
        if !ok {
            failed.push(format!("{input:?} against {base:?}: {got:?}"));
        }
        // The bytes entry point agrees with the string one.
        let mut out = Vec::new();
        assert_eq!(
            urlsift_keys::whatwg_into(input.as_bytes(), base, &mut out),
            got.is_ok()
        );
    }
    assert!(n > 800, "only {n} cases");
    // The bar is 99%; ada passes them all.
    assert!(
        failed.is_empty(),
        "{} of {n} failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

/// One host in Unicode, punycode, mixed case, full width and
/// percent-encoded: one ASCII form, one domain, one WHATWG key and one
/// SURT key.
#[test]
fn one_host_in_every_spelling() {
    let groups: &[(&[&str], &str, &str)] = &[
        (
            &[
                "例子.测试",
                "xn--fsqu00a.xn--0zwm56d",
                "XN--FSQU00A.Xn--0ZWM56D",
                "例子。测试",
                "%E4%BE%8B%E5%AD%90.%E6%B5%8B%E8%AF%95",
            ],
            "xn--fsqu00a.xn--0zwm56d",
            "xn--fsqu00a.xn--0zwm56d",
        ),
        (
            &[
                "bücher.example",
                "BÜCHER.EXAMPLE",
                "Bücher.Example",
                "xn--bcher-kva.example",
                "XN--BCHER-KVA.example",
                "ｂüｃｈｅｒ．ｅｘａｍｐｌｅ",
                "bu\u{308}cher.example", // decomposed: NFC first
            ],
            "xn--bcher-kva.example",
            "xn--bcher-kva.example",
        ),
        (
            &[
                "www.example.co.uk",
                "WWW.Example.CO.UK",
                "ｗｗｗ．ｅｘａｍｐｌｅ．ｃｏ．ｕｋ",
                "www.ex%61mple.co.uk",
            ],
            "www.example.co.uk",
            "example.co.uk",
        ),
    ];
    for (forms, ascii, dom) in groups {
        let mut whatwg_keys = Vec::new();
        let mut surt_keys = Vec::new();
        for h in forms.iter() {
            assert_eq!(host_ascii(h.as_bytes()).as_deref(), Some(*ascii), "{h}");
            assert_eq!(domain(h.as_bytes()).as_deref(), Some(*dom), "{h}");
            let url = format!("http://{h}/Path?b=2&a=1");
            whatwg_keys.push(whatwg(&url, None).unwrap());
            surt_keys.push(surt(url.as_bytes()).unwrap());
        }
        whatwg_keys.dedup();
        surt_keys.dedup();
        assert_eq!(
            whatwg_keys,
            [format!("http://{ascii}/Path?b=2&a=1")],
            "{forms:?}"
        );
        assert_eq!(surt_keys.len(), 1, "{forms:?}: {surt_keys:?}");
    }
}

#[test]
fn registrable_domains() {
    for (host, want) in [
        ("www.bbc.co.uk", Some("bbc.co.uk")),
        ("news.bbc.co.uk", Some("bbc.co.uk")),
        ("bbc.co.uk.", Some("bbc.co.uk")),
        ("co.uk", None),
        ("uk", None),
        // The private section.
        ("user.github.io", Some("user.github.io")),
        ("github.io", None),
        ("a.b.s3.amazonaws.com", Some("b.s3.amazonaws.com")),
        // Wildcards and exceptions: *.ck and !www.ck.
        ("a.b.ck", Some("a.b.ck")),
        ("www.ck", Some("www.ck")),
        ("city.kawasaki.jp", Some("city.kawasaki.jp")),
        ("x.y.kawasaki.jp", Some("x.y.kawasaki.jp")),
        // An unknown top-level label is a suffix (the list's * rule).
        ("a.b.example-tld", Some("b.example-tld")),
        // IDN suffixes, in Unicode and punycode.
        ("例子.中国", Some("xn--fsqu00a.xn--fiqs8s")),
        ("www.xn--fsqu00a.xn--fiqs8s", Some("xn--fsqu00a.xn--fiqs8s")),
        // Not domains.
        ("192.0.2.1", None),
        ("0x7f.1", None),
        ("[2001:db8::1]", None),
        ("a..b.com", None),
        ("", None),
        ("exa mple.com", None),
    ] {
        assert_eq!(domain(host.as_bytes()).as_deref(), want, "{host:?}");
    }
}

#[test]
fn the_compiled_in_list() {
    let v = urlsift_keys::psl_version();
    assert!(v.starts_with("20") && v.len() >= 10, "{v}");
    // Both sections, whole.
    assert!(urlsift_keys::host::psl_rules() > 9000);
    assert_eq!(domain(b"x.blogspot.com").as_deref(), Some("x.blogspot.com"));
    assert_eq!(domain(b"x.y.gov.uk").as_deref(), Some("y.gov.uk"));
}

#[test]
fn keys_never_panic_on_bytes() {
    let samples: &[&[u8]] = &[
        b"",
        b"http://",
        b"http://[",
        b"http://%",
        b"http://%zz/%",
        b"http://a:65536/",
        b"http://a:-1/",
        b"\xff\xfe://\xff/",
        b"http://\xe4\xbe\x8b.\xff/",
        b"http://.../",
        b"http:///",
        b"   \t ",
        b"http://www./?&&&=&",
        b"http://(aaaaaaaaaaaaaaaaaaaaaaaa)/",
    ];
    for s in samples {
        let _ = surt(s);
        let _ = host_ascii(s);
        let _ = domain(s);
        let mut out = Vec::new();
        let _ = urlsift_keys::whatwg_into(s, None, &mut out);
    }
    // Long inputs stay linear.
    let long = format!(
        "http://a.example/{}?{}",
        "%25".repeat(100_000),
        "a=1&".repeat(100_000)
    );
    assert!(surt(long.as_bytes()).is_ok());
}
