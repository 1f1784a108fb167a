//! Unit tests of normalization, and the fast paths against the reference
//! implementation they replaced.

use super::*;

fn n(s: &str) -> String {
    normalize(s.as_bytes(), &NormalizeOptions::default()).unwrap()
}

#[test]
fn relative() {
    assert_eq!(n("a/b/../../c"), "c");
    assert_eq!(n("a/.."), "./");
    assert_eq!(n(".."), "..");
    assert_eq!(n("../a/.."), "../");
    assert_eq!(n("./a:b"), "./a:b");
    assert_eq!(n("a/..//b"), ".//b");
    assert_eq!(n("/..//b"), "/.//b");
    assert_eq!(n("%2e/x"), "x");
}

#[test]
fn scheme_based() {
    for s in [
        "http://example.com",
        "http://example.com/",
        "http://example.com:/",
        "http://example.com:80/",
    ] {
        assert_eq!(n(s), "http://example.com/");
    }
    assert_eq!(n("HTTP://A:0080?q"), "http://a/?q");
    assert_eq!(n("foo://A:80"), "foo://a:80");
}

/// The straightforward implementation the fast paths above replaced
/// (byte-table scans, one `pct_normalize` per component, memchr for
/// dot segments): the oracle they are tested against.
mod reference {
    use super::super::*;

    pub(super) fn pct_normalize(src: &[u8], out: &mut Vec<u8>, lower: bool) {
        let mask = if lower { 3 } else { 1 };
        let mut run = 0;
        let mut i = 0;
        loop {
            while let Some(chunk) = src.get(i..i + 8).and_then(|c| <&[u8; 8]>::try_from(c).ok()) {
                if chunk.iter().fold(0, |acc, &b| acc | REWRITE[b as usize]) & mask != 0 {
                    break;
                }
                i += 8;
            }
            let rest = src.get(i..).unwrap_or_default();
            i += rest
                .iter()
                .position(|&b| REWRITE[b as usize] & mask != 0)
                .unwrap_or(rest.len());
            let Some(&b) = src.get(i) else { break };
            out.extend_from_slice(src.get(run..i).unwrap_or_default());
            if b == b'%' {
                let h1 = src.get(i + 1).copied().unwrap_or(b'0');
                let h2 = src.get(i + 2).copied().unwrap_or(b'0');
                let v = hexval(h1) << 4 | hexval(h2);
                if TABLE[v as usize] & UNRESERVED != 0 {
                    out.push(if lower { v.to_ascii_lowercase() } else { v });
                } else {
                    out.extend_from_slice(&[
                        b'%',
                        h1.to_ascii_uppercase(),
                        h2.to_ascii_uppercase(),
                    ]);
                }
                i += 3;
            } else if b >= 0x80 {
                out.extend_from_slice(&[b'%', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
                i += 1;
            } else {
                out.push(b.to_ascii_lowercase());
                i += 1;
            }
            run = i;
        }
        out.extend_from_slice(src.get(run..).unwrap_or_default());
    }
    pub(super) fn has_dot_segment(path: &[u8]) -> bool {
        memchr::memchr_iter(b'.', path).any(|i| {
            let starts = i.checked_sub(1).is_none_or(|j| path.get(j) == Some(&b'/'));
            starts
                && match path.get(i + 1) {
                    None | Some(b'/') => true,
                    Some(b'.') => matches!(path.get(i + 2), None | Some(b'/')),
                    Some(_) => false,
                }
        })
    }

    pub(super) fn normalize(input: &[u8], opts: &NormalizeOptions) -> Result<String, Error> {
        let u = validate::parse(input, true)?;
        let mut out: Vec<u8> = Vec::new();
        let scheme = u.scheme();
        if let Some(s) = scheme {
            out.extend(s.iter().map(u8::to_ascii_lowercase));
            out.push(b':');
        }
        let known = scheme
            .and_then(scheme::lookup)
            .filter(|_| opts.scheme_based);
        let has_auth = u.auth_start > 0;
        if has_auth {
            out.extend_from_slice(b"//");
            if let Some(ui) = u.userinfo() {
                pct_normalize(ui, &mut out, false);
                out.push(b'@');
            }
            pct_normalize(u.host().unwrap_or_default(), &mut out, true);
            if let Some(p) = u.port().filter(|p| !p.is_empty()) {
                let default =
                    known.is_some_and(|k| scheme::port_value(p) == Some(u32::from(k.port)));
                if !default {
                    out.push(b':');
                    out.extend_from_slice(p);
                }
            }
        }
        let path_start = out.len();
        pct_normalize(u.path(), &mut out, false);
        let path = out.get(path_start..).unwrap_or_default();
        if has_dot_segment(path) {
            if has_auth || path.first() == Some(&b'/') {
                remove_dot_segments_in_place(&mut out, path_start);
            } else {
                let p = out.split_off(path_start);
                rootless_dots(&p, &mut out, scheme.is_none());
            }
        }
        if !has_auth && out.get(path_start..path_start + 2) == Some(b"//") {
            out.splice(path_start..path_start, *b"/.");
        }
        if has_auth && out.len() == path_start && known.is_some() {
            out.push(b'/');
        }
        if let Some(q) = u.query() {
            out.push(b'?');
            pct_normalize(q, &mut out, false);
        }
        if let Some(f) = u.fragment().filter(|_| !opts.drop_fragment) {
            out.push(b'#');
            pct_normalize(f, &mut out, false);
        }
        Ok(String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
    }
}

const ALL_OPTS: [NormalizeOptions; 4] = [
    NormalizeOptions {
        scheme_based: true,
        drop_fragment: false,
    },
    NormalizeOptions {
        scheme_based: false,
        drop_fragment: false,
    },
    NormalizeOptions {
        scheme_based: true,
        drop_fragment: true,
    },
    NormalizeOptions {
        scheme_based: false,
        drop_fragment: true,
    },
];

/// The fast paths give exactly the reference's result, through every
/// entry point, for every option.
fn same_as_reference(t: &[u8]) {
    for o in &ALL_OPTS {
        let want = reference::normalize(t, o);
        assert_eq!(
            normalize(t, o),
            want,
            "{:?} {o:?}",
            String::from_utf8_lossy(t)
        );
        let mut buf = b"prefix".to_vec();
        match normalize_into(t, o, &mut buf) {
            Ok(()) => assert_eq!(buf.get(6..), want.as_ref().ok().map(|w| w.as_bytes())),
            Err(e) => assert_eq!((Err(e), &buf[..]), (want, &b"prefix"[..])),
        }
        if let Ok(u) = UriRef::parse_iri(t) {
            buf.clear();
            u.normalize_into(o, &mut buf);
            assert_eq!(
                Ok(String::from_utf8_lossy(&buf).into_owned()),
                reference::normalize(t, o)
            );
        }
    }
    // The scans on their own, at every start offset.
    for i in 0..=t.len() {
        let rest = t.get(i..).unwrap_or_default();
        for (lower, mask) in [(false, 1), (true, 3)] {
            let slow = rest
                .iter()
                .position(|&b| REWRITE[usize::from(b)] & mask != 0);
            assert_eq!(find_rewrite(t, i, lower), slow.map_or(t.len(), |p| i + p));
        }
        assert_eq!(has_dot_segment(rest), reference::has_dot_segment(rest));
    }
}

#[test]
fn fast_paths_match_reference_on_the_url_list() {
    for line in include_str!("../../../../datasets/urls.txt").lines() {
        same_as_reference(line.as_bytes());
    }
    for t in [
        "",
        ".",
        "..",
        "/.",
        "/..",
        "a/./b",
        "/a/b/c/d/e/f/.",
        "/a/b/c/d/e/f/..",
        "/abcdefg/.x",
        "/abcdefgh/./",
        "abcdefg/..",
        "HTTP://EXAMPLE.COM:80",
        "http://a/%7E%7e%41%2e%2E/",
        "http://[::A]:0443/",
        "https://Ü.example/Köln?ä#ö",
        "foo:a/../../b",
        "//a/..//b",
        "./a:b",
        "%2e%2E/%2E",
        "http://a/b?%41#%42",
        "mailto:A@B.C",
        "file:/x/./y",
    ] {
        same_as_reference(t.as_bytes());
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

    #[test]
    fn fast_paths_match_reference(s in "(HTTP://|https://u%41@|//|/|foo:|\\./|)([a-zA-Z0-9]|%[0-9a-fA-F]{2}|%2[eE]|[-._~!$&'()*+,;=:@/?#%]|\\.\\.?/|/\\.|é){0,40}") {
        same_as_reference(s.as_bytes());
    }

    #[test]
    fn fast_paths_match_reference_on_bytes(b in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64)) {
        same_as_reference(&b);
    }
}
