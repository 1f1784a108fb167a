//! The WHATWG URL Standard's serialization (`href`), by the `ada-url` crate.
//!
//! URLs that are already in the form the parser would give (lower-case
//! `http` or `https`, a plain lower-case host, nothing to encode, no dot
//! segment) take a fast path that only adds an empty path's `/`; it is
//! tested to agree with the parser wherever it answers.
//!
//! ada passes every case of the web-platform-tests `urltestdata.json` this
//! repository tests against (`tests/whatwg.rs`): hosts through UTS #46,
//! backslashes as slashes in special schemes, tabs and newlines removed,
//! default ports dropped, IPv4 in any of its numeric forms, paths
//! percent-encoded as browsers do.

use std::fmt;

/// Why an input has no WHATWG serialization: the URL parser returned
/// failure (for instance an invalid host, or a relative reference without
/// a base).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WhatwgError {
    /// The input, as given (lossily decoded if it was not UTF-8).
    pub input: String,
}

impl fmt::Display for WhatwgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a URL by the WHATWG URL Standard: {:?}", self.input)
    }
}

impl std::error::Error for WhatwgError {}

/// The WHATWG serialization of `input` parsed against `base` (the URL
/// Standard's *basic URL parser*; `base` must itself parse).
///
/// ```
/// use urlsift_keys::whatwg;
/// assert_eq!(whatwg("HTTPS://EXAMPLE.com:443\\a\\..\\b\t?x#y", None).unwrap(), "https://example.com/b?x#y");
/// assert_eq!(whatwg("http://例子.测试/", None).unwrap(), "http://xn--fsqu00a.xn--0zwm56d/");
/// assert_eq!(whatwg("../c", Some("http://a/b/d/e")).unwrap(), "http://a/b/c");
/// assert!(whatwg("http://exa mple.com/", None).is_err());
/// assert!(whatwg("/relative", None).is_err());
/// ```
pub fn whatwg(input: &str, base: Option<&str>) -> Result<String, WhatwgError> {
    if base.is_none() {
        let mut out = Vec::new();
        if plain_href(input.as_bytes(), &mut out) {
            return Ok(String::from_utf8_lossy(&out).into_owned());
        }
    }
    match ada_url::Url::parse(input, base) {
        Ok(u) => Ok(u.href().to_owned()),
        Err(_) => Err(WhatwgError {
            input: input.to_owned(),
        }),
    }
}

/// [`whatwg`] of bytes (text that is not UTF-8 is decoded as the URL
/// Standard decodes it, each invalid sequence a U+FFFD), appended to `out`.
/// Returns `false`, writing nothing, when the parser fails.
///
/// ```
/// let mut out = Vec::new();
/// assert!(urlsift_keys::whatwg_into(b"http://Example.COM", None, &mut out));
/// assert_eq!(out, b"http://example.com/");
/// assert!(!urlsift_keys::whatwg_into(b"http://[::1/", None, &mut out));
/// ```
pub fn whatwg_into(input: &[u8], base: Option<&str>, out: &mut Vec<u8>) -> bool {
    if base.is_none() && plain_href(input, out) {
        return true;
    }
    let text = String::from_utf8_lossy(input);
    match ada_url::Url::parse(text.as_ref(), base) {
        Ok(u) => {
            out.extend_from_slice(u.href().as_bytes());
            true
        }
        Err(_) => false,
    }
}

/// An `http` or `https` URL that the URL Standard's parser would only
/// give its `/` (for an empty path): printable ASCII with nothing to
/// percent-encode, a host of lower-case letters, digits, `-`, `_` and dots
/// (no empty label, no `xn--` label, not ending in a number, so not IPv4),
/// no userinfo, no port, no dot segment. Appends the serialization and
/// returns `true`; otherwise leaves `out` as it is and returns `false`.
fn plain_href(s: &[u8], out: &mut Vec<u8>) -> bool {
    let rest = if s.starts_with(b"http://") {
        7
    } else if s.starts_with(b"https://") {
        8
    } else {
        return false;
    };
    // Bytes some component percent-encodes, and the backslash.
    if crate::swar::any_of(s, b' ', b"\"<>`{}^'\\") {
        return false;
    }
    let tail = s.get(rest..).unwrap_or_default();
    // Plain loops over the parts: a URL is short, so they cost less than a
    // substring search set up per part.
    let host_len = tail
        .iter()
        .position(|&b| matches!(b, b'/' | b'?' | b'#'))
        .unwrap_or(tail.len());
    let auth_end = rest + host_len;
    let host = s.get(rest..auth_end).unwrap_or_default();
    if !plain_host(host) {
        return false;
    }
    let after = s.get(auth_end..).unwrap_or_default();
    // Dot segments, written or percent-encoded.
    let mut prev = 0u8;
    for (i, &b) in after.iter().enumerate() {
        match b {
            b'?' | b'#' => break,
            b'.' if prev == b'/' => return false,
            b'%' if after.get(i + 1) == Some(&b'2')
                && after.get(i + 2).is_some_and(|&e| e | 0x20 == b'e') =>
            {
                return false;
            }
            _ => {}
        }
        prev = b;
    }
    out.extend_from_slice(s.get(..auth_end).unwrap_or_default());
    if after.first() != Some(&b'/') {
        out.push(b'/');
    }
    out.extend_from_slice(after);
    true
}

/// A host the parser keeps as written: lower-case letters, digits, `-`,
/// `_` and dots between non-empty labels, no `xn--` label, and a last
/// label that is not a number.
fn plain_host(host: &[u8]) -> bool {
    let mut prev = b'.';
    let mut label_at = 0;
    for (i, &b) in host.iter().enumerate() {
        match b {
            b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' => {}
            b'.' if prev != b'.' => label_at = i + 1,
            _ => return false,
        }
        if i == label_at + 3 && host.get(label_at..=i) == Some(&b"xn--"[..]) {
            return false;
        }
        prev = b;
    }
    !host.is_empty() && prev != b'.' && !ends_in_number(host)
}

/// The last label of a host is a number (decimal, or `0x` and hex digits).
fn ends_in_number(host: &[u8]) -> bool {
    let last = host.rsplit(|&b| b == b'.').next().unwrap_or_default();
    !last.is_empty()
        && (last.iter().all(u8::is_ascii_digit)
            || last
                .strip_prefix(b"0x")
                .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parsed(s: &[u8]) -> Option<String> {
        let text = String::from_utf8_lossy(s);
        ada_url::Url::parse(text.as_ref(), None)
            .ok()
            .map(|u| u.href().to_owned())
    }

    #[test]
    fn fast_path_cases() {
        for u in [
            "http://a.example",
            "https://a.example?q#f",
            "http://a.example/p/q.html?x=1&y=%41#frag/./x",
            "http://a_b.example/%zz",
            "http://0x.example/",
            "http://1.2.3.example/",
        ] {
            let mut out = Vec::new();
            assert!(plain_href(u.as_bytes(), &mut out), "{u}");
            assert_eq!(String::from_utf8(out).ok(), parsed(u.as_bytes()), "{u}");
        }
        for u in [
            "http://A.example/",
            "http://a.example:80/",
            "http://u@a.example/",
            "http://a.example/./b",
            "http://a.example/%2E%2e/b",
            "http://1.2.3.4/",
            "http://a.0x1f/",
            "http://xn--a.example/",
            "http://a..example/",
            "http://a.example/a b",
            "http://a.example/^",
            "HTTP://a.example/",
            "http://a.example\\b",
        ] {
            assert!(!plain_href(u.as_bytes(), &mut Vec::new()), "{u}");
        }
    }

    proptest! {
        /// Wherever the fast path answers, it answers what ada does.
        #[test]
        fn fast_path_agrees_with_the_parser(
            scheme in "(http|https)://",
            host in "[a-z0-9._-]{0,12}",
            rest in "[a-zA-Z0-9./%?#&=:@_~()!$*+,;-]{0,32}",
        ) {
            let url = format!("{scheme}{host}{rest}");
            let mut out = Vec::new();
            if plain_href(url.as_bytes(), &mut out) {
                prop_assert_eq!(String::from_utf8(out).ok(), parsed(url.as_bytes()), "{:?}", url);
            }
        }
    }
}
