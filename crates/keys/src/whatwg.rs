//! The WHATWG URL Standard's serialization (`href`), by the `ada-url` crate.
//!
//! URLs that are already near the form the parser would give (a scheme
//! and `//`, a plain host, nothing to encode, no dot segment) take a fast
//! path, one pass over the bytes, that only lower-cases the scheme (and a
//! special scheme's host), drops a default port and adds an empty path's
//! `/`; it is tested to agree with the parser wherever it answers, on
//! every URL of `datasets/urls.txt`, every input of `urltestdata.json`
//! and generated inputs.
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

/// Byte classes of [`plain_href`]'s passes.
const W_BAD: u8 = 1; // never in a URL the fast path takes
const W_HOST: u8 = 2; // a letter, digit, `-` or `_`
const W_UPPER: u8 = 4; // an upper-case letter
const W_SLASH: u8 = 8; // `/`
const W_DOT: u8 = 16; // `.` or `%` (`%2e`): after a `/`, maybe a dot segment

/// The class of every byte for [`plain_href`]: controls, space, DEL,
/// non-ASCII, the bytes some component percent-encodes
/// (`"<>` `` ` `` `{}^'`) and the backslash are [`W_BAD`].
const W_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = if c <= b' ' || c >= 0x7f {
            W_BAD
        } else if c.is_ascii_uppercase() {
            W_HOST | W_UPPER
        } else if c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-' || c == b'_' {
            W_HOST
        } else {
            match c {
                b'"' | b'<' | b'>' | b'`' | b'{' | b'}' | b'^' | b'\'' | b'\\' => W_BAD,
                b'/' => W_SLASH,
                b'.' | b'%' => W_DOT,
                _ => 0,
            }
        };
        b += 1;
    }
    t
};

/// True if `s` starts with `lit` (lower-case letters and punctuation) in
/// any case.
#[inline]
fn starts_with_ci(s: &[u8], lit: &[u8]) -> bool {
    s.get(..lit.len())
        .is_some_and(|h| h.eq_ignore_ascii_case(lit))
}

/// How [`plain_href`] writes a scheme it takes.
struct Scheme {
    /// The length of `scheme://`.
    len: usize,
    /// `http`, `https`, `ws`, `wss` or `ftp` (the special schemes with
    /// hosts that are domains), whose hosts go through *domain to ASCII*.
    special: bool,
    /// The special scheme's default port.
    default_port: Option<u32>,
}

/// A scheme followed by `://` at the start of `s`: `http` and `https` in
/// any case compared eight bytes at once, then any other scheme (a letter,
/// then letters, digits, `+`, `-`, `.`); `file` is left to the parser.
#[inline]
fn scheme_of(s: &[u8]) -> Option<Scheme> {
    if let Some(w) = s.get(..8).and_then(|h| h.try_into().ok()) {
        let w = u64::from_le_bytes(w);
        // Letters to lower case in the scheme's bytes (`x | 0x20` is a
        // lower-case letter only for that letter in either case; `:` and
        // `/` are unchanged).
        if (w | 0x2020_2020) & 0x00ff_ffff_ffff_ffff == u64::from_le_bytes(*b"http://\0") {
            return Some(Scheme {
                len: 7,
                special: true,
                default_port: Some(80),
            });
        }
        if w | 0x20_2020_2020 == u64::from_le_bytes(*b"https://") {
            return Some(Scheme {
                len: 8,
                special: true,
                default_port: Some(443),
            });
        }
    }
    if !s.first()?.is_ascii_alphabetic() {
        return None;
    }
    let n = s
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))?;
    if !s.get(n..)?.starts_with(b"://") {
        return None;
    }
    let name = s.get(..n)?;
    let default_port = if name.eq_ignore_ascii_case(b"ftp") {
        Some(21)
    } else if name.eq_ignore_ascii_case(b"ws") || name.eq_ignore_ascii_case(b"http") {
        Some(80)
    } else if name.eq_ignore_ascii_case(b"wss") || name.eq_ignore_ascii_case(b"https") {
        Some(443)
    } else if name.eq_ignore_ascii_case(b"file") {
        return None;
    } else {
        None
    };
    Some(Scheme {
        len: n + 3,
        special: default_port.is_some(),
        default_port,
    })
}

/// A URL with a scheme and `//` that the URL Standard's parser only
/// lower-cases (the scheme; a special scheme's host), drops a default port
/// of, or gives its `/` (for an empty path of a special scheme): printable
/// ASCII with nothing to percent-encode, a host of letters, digits, `-`,
/// `_` and dots (no empty label, no `xn--` label; for a special scheme,
/// not ending in a number, so not IPv4), no userinfo, a port of at most
/// five digits, no `/.` or `/%` anywhere after the host (so no dot
/// segment). One pass over the bytes. Appends the serialization and
/// returns `true`; otherwise leaves `out` as it is and returns `false`.
fn plain_href(s: &[u8], out: &mut Vec<u8>) -> bool {
    let Some(scheme) = scheme_of(s) else {
        return false;
    };
    let rest = scheme.len;
    let tail = s.get(rest..).unwrap_or_default();
    // The host: labels of W_HOST bytes between single dots.
    let mut end = tail.len();
    let mut label_at = 0;
    let mut upper = 0u8;
    for (i, &b) in tail.iter().enumerate() {
        let c = W_CLASS[usize::from(b)];
        if c & W_HOST != 0 {
            upper |= c;
        } else if b == b'.' {
            if i == label_at || starts_with_ci(tail.get(label_at..).unwrap_or_default(), b"xn--") {
                return false;
            }
            label_at = i + 1;
        } else {
            end = i;
            break;
        }
    }
    let (host, after) = tail.split_at(end);
    if end == label_at
        || starts_with_ci(tail.get(label_at..end).unwrap_or_default(), b"xn--")
        || (scheme.special && crate::host::is_number(tail.get(label_at..end).unwrap_or_default()))
    {
        return false;
    }
    // The port: digits up to the path, at most 65535.
    let mut port = None;
    let mut as_is = true;
    let mut after = after;
    if let Some(p) = after.strip_prefix(b":") {
        as_is = false;
        let n = p
            .iter()
            .position(|b| !b.is_ascii_digit())
            .unwrap_or(p.len());
        if n == 0 || n > 5 {
            return false;
        }
        let v = p[..n]
            .iter()
            .fold(0u32, |v, &d| v * 10 + u32::from(d - b'0'));
        if v > 65535 {
            return false;
        }
        if Some(v) != scheme.default_port {
            port = Some(v);
        }
        after = &p[n..];
    }
    if !matches!(after.first(), None | Some(b'/' | b'?' | b'#')) {
        return false;
    }
    // Path, query and fragment: no bad byte, no `.` or `%` after a `/`.
    let (mut acc, mut seg, mut prev) = (0u8, 0u8, 0u8);
    for &b in after {
        let c = W_CLASS[usize::from(b)];
        acc |= c;
        // W_DOT where a `/` (W_SLASH, one bit below) comes before it.
        seg |= (prev << 1) & c;
        prev = c;
    }
    if acc & W_BAD != 0 || seg & W_DOT != 0 {
        return false;
    }
    let scheme_text = s.get(..rest).unwrap_or_default();
    if as_is
        && !scheme_text.iter().any(u8::is_ascii_uppercase)
        && !(scheme.special && (upper & W_UPPER != 0 || after.first() != Some(&b'/')))
    {
        // The serialization is the URL as it is.
        out.extend_from_slice(s);
        return true;
    }
    let start = out.len();
    out.extend_from_slice(scheme_text);
    out[start..].make_ascii_lowercase();
    let host_at = out.len();
    out.extend_from_slice(host);
    if scheme.special && upper & W_UPPER != 0 {
        out[host_at..].make_ascii_lowercase();
    }
    if let Some(p) = port {
        out.push(b':');
        out.extend_from_slice(itoa::Buffer::new().format(p).as_bytes());
    }
    if scheme.special && after.first() != Some(&b'/') {
        out.push(b'/');
    }
    out.extend_from_slice(after);
    true
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
            "http://a.example/p/q.html?x=1&y=%41#frag.x",
            "http://a_b.example/a%zz",
            "http://0x.example/",
            "http://1.2.3.example/",
            "HTTP://A.Example:80/",
            "Https://a.EXAMPLE:443?q",
            "http://a.example:8080#f",
            "http://a.example:08080/x",
            "FTP://A.example:21",
            "ws://a.example:80/x",
            "wss://a.example:443?q",
            "Git+SSH://GitHub.com:22/a/b.git",
            "gs://Bucket_1/x?y#z",
            "f5https://a.example:0443",
        ] {
            let mut out = Vec::new();
            assert!(plain_href(u.as_bytes(), &mut out), "{u}");
            assert_eq!(String::from_utf8(out).ok(), parsed(u.as_bytes()), "{u}");
        }
        for u in [
            "http://u@a.example/",
            "http://a.example/./b",
            "http://a.example/%2E%2e/b",
            "http://1.2.3.4/",
            "http://a.0x1f/",
            "http://xn--a.example/",
            "http://a..example/",
            "http://a.example/a b",
            "http://a.example/^",
            "http://a.example\\b",
            "http://a.example:/",
            "http://a.example:65536/",
            "http://a.example:123456/",
            "http://a.example:8a/",
            "http://a.0X1f/",
            "http://XN--a.example/",
            "http://a.example./",
            "http://a.example/%2E/",
        ] {
            assert!(!plain_href(u.as_bytes(), &mut Vec::new()), "{u}");
        }
    }

    proptest! {
        /// Wherever the fast path answers, it answers what ada does.
        #[test]
        fn fast_path_agrees_with_the_parser(
            scheme in "(http|https|HTTP|hTtPs|ftp|FTP|ws|wss|file|git|Git\\+SSH|f5https|gs|a-b.c)://",
            host in "[a-zA-Z0-9._-]{0,12}|([a-z0-9]{1,3}\\.){0,2}(0[xX][0-9a-fA-G]{0,3}|[0-9]{1,4}|[0-9]x[0-9])\\.?",
            port in "(|:|:0|:80|:443|:08080|:65535|:65536|:1x)",
            rest in "[a-zA-Z0-9./%?#&=:@_~()!$*+,;\\\\ ^-]{0,32}",
        ) {
            let url = format!("{scheme}{host}{port}{rest}");
            let mut out = Vec::new();
            if plain_href(url.as_bytes(), &mut out) {
                prop_assert_eq!(String::from_utf8(out).ok(), parsed(url.as_bytes()), "{:?}", url);
            }
        }

        /// Any bytes at all: where the fast path answers, ada agrees.
        #[test]
        fn fast_path_agrees_on_any_bytes(
            prefix in "(http|HTTPS|ftp|git|gs|ws)://",
            b in proptest::collection::vec(any::<u8>(), 0..48),
        ) {
            let mut url = prefix.into_bytes();
            url.extend_from_slice(&b);
            let mut out = Vec::new();
            if plain_href(&url, &mut out) {
                prop_assert_eq!(String::from_utf8(out).ok(), parsed(&url));
            }
        }
    }

    /// Every URL of a real list, and every input of web-platform-tests'
    /// `urltestdata.json`: where the fast path answers, ada agrees.
    #[test]
    fn fast_path_agrees_on_real_urls_and_urltestdata() {
        let list = include_str!("../../../datasets/urls.txt");
        let cases: serde_json::Value =
            serde_json::from_str(include_str!("../tests/data/urltestdata.json")).unwrap();
        let inputs = cases
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c.get("input").and_then(|i| i.as_str()));
        let mut taken = 0;
        for u in list.lines().chain(inputs) {
            let mut out = Vec::new();
            if plain_href(u.as_bytes(), &mut out) {
                taken += 1;
                assert_eq!(String::from_utf8(out).ok(), parsed(u.as_bytes()), "{u:?}");
            }
        }
        // The fast path is the common case on real text.
        assert!(taken * 100 > list.lines().count() * 80, "{taken}");
    }
}
