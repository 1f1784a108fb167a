//! Normalization, RFC 3986 section 6.2.
//!
//! Syntax-based (6.2.2), always:
//! - scheme and host to lower case (ASCII letters; percent-encodings stay upper case);
//! - percent-encodings: hex digits to upper case, unreserved characters decoded;
//! - dot-segments removed (`remove_dot_segments`, after decoding, so `%2E` counts);
//! - an empty port and its `:` removed (RFC 3986 6.2.3 asks this "for all schemes").
//!
//! Scheme-based (6.2.3), when [`NormalizeOptions::scheme_based`] is set, for
//! the schemes of [`super::scheme`] (http, https, ws, wss, ftp, gopher,
//! telnet, wais, prospero, nntp, file):
//! - a port equal to the scheme's [`default_port`](super::default_port) is removed;
//! - an empty path with an authority becomes `/`.
//!
//! Decisions the RFC leaves open:
//! - **IRIs**: bytes >= 0x80 are accepted wherever RFC 3987 allows
//!   non-ASCII (userinfo, reg-name, path, query, fragment) and are
//!   percent-encoded (the RFC 3987 3.1 mapping, byte by byte, so invalid
//!   UTF-8 is encoded too). An IRI and its URI form normalize the same.
//! - **Rootless paths** (`foo:a/../c`): dot-segments are removed segment by
//!   segment and the path stays rootless (`foo:c`, as uriparser; RFC 3986
//!   5.2.4 taken literally gives `foo:/c`).
//! - **Relative references**: dot-segments are removed as uriparser does
//!   (`a/b/../../c` is `c`), but only where that keeps the meaning: leading
//!   `..` that climb above the base are kept, and `./` is put in front when
//!   the first segment would otherwise contain `:` or be empty.
//! - A path without authority that would start with `//` gets `/.` in front.
//! - IPv6 literals are lower-cased, not rewritten to RFC 5952 form.
//!
//! Normalization is idempotent: `normalize(normalize(x)) == normalize(x)`.

use super::resolve::{dot_kind, remove_dot_segments_in_place};
use super::validate::{self, TABLE, UNRESERVED};
use super::{Error, scheme};

/// What [`normalize`] does beyond the syntax-based normalization.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NormalizeOptions {
    /// Also apply scheme-based normalization (RFC 3986 6.2.3). Default `true`.
    pub scheme_based: bool,
    /// Remove the fragment. Default `false`.
    pub drop_fragment: bool,
}

impl Default for NormalizeOptions {
    fn default() -> Self {
        NormalizeOptions {
            scheme_based: true,
            drop_fragment: false,
        }
    }
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

#[inline]
fn hexval(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        b'A'..=b'F' => b - b'A' + 10,
        _ => 0,
    }
}

/// Bytes [`pct_normalize`] must rewrite: 1 = `%` or non-ASCII, 2 = upper-case letter.
static REWRITE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        if b == b'%' as usize || b >= 0x80 {
            t[b] = 1;
        } else if (b as u8).is_ascii_uppercase() {
            t[b] = 2;
        }
        b += 1;
    }
    t
};

/// Copy `src` to `out` with percent-encodings normalized, non-ASCII bytes
/// percent-encoded and, with `lower`, ASCII letters lower-cased.
fn pct_normalize(src: &[u8], out: &mut Vec<u8>, lower: bool) {
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
                out.extend_from_slice(&[b'%', h1.to_ascii_uppercase(), h2.to_ascii_uppercase()]);
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

/// Dot-segment removal for a rootless path, segment by segment.
///
/// With `relative` (a relative reference), `..` that would climb above the
/// start is kept, a path where nothing was removed is left as it is, and an
/// empty result is `./`. Without it (a rootless path of a URI with a scheme,
/// as uriparser treats `foo:a/../c`), such `..` are dropped and the result
/// stays rootless (RFC 3986 5.2.4 taken literally would give `/c`).
/// Either way `./` goes in front when the first segment would be empty (or,
/// in a relative reference, would contain `:`).
pub(crate) fn rootless_dots(p: &[u8], out: &mut Vec<u8>, relative: bool) {
    let mut stack: Vec<&[u8]> = Vec::new();
    let mut last_dot = false;
    let mut removed = false;
    for seg in p.split(|&b| b == b'/') {
        match dot_kind(seg) {
            1 => {
                last_dot = true;
                removed = true;
            }
            2 => {
                last_dot = true;
                if stack.last().is_some_and(|s| dot_kind(s) != 2) {
                    stack.pop();
                    removed = true;
                } else if relative {
                    stack.push(b"..");
                } else {
                    removed = true;
                }
            }
            _ => {
                last_dot = false;
                stack.push(seg);
            }
        }
    }
    if !removed {
        out.extend_from_slice(p);
        return;
    }
    let prefix = match stack.first() {
        None => relative,
        Some(f) => f.is_empty() || (relative && memchr::memchr(b':', f).is_some()),
    };
    if prefix {
        out.extend_from_slice(b"./");
    }
    for (k, seg) in stack.iter().enumerate() {
        if k > 0 {
            out.push(b'/');
        }
        out.extend_from_slice(seg);
    }
    if last_dot && !stack.is_empty() {
        out.push(b'/');
    }
}

/// True if `path` has a `.` or `..` segment (after percent normalization,
/// so `%2E` is already `.`).
fn has_dot_segment(path: &[u8]) -> bool {
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

/// Normalize a URI reference (RFC 3986 6.2.2, plus 6.2.3 if asked); see the
/// module docs for the exact rules. Invalid references are an error; IRIs are
/// mapped to URIs first.
///
/// ```
/// use urlsift::uri::{normalize, NormalizeOptions};
/// let opts = NormalizeOptions::default();
/// assert_eq!(normalize(b"eXAMPLE://a/./b/../b/%63/%7bfoo%7d", &opts).unwrap(),
///            "example://a/b/c/%7Bfoo%7D");
/// assert_eq!(normalize(b"http://example.com:80", &opts).unwrap(), "http://example.com/");
/// assert_eq!(normalize("https://de.wikipedia.org/wiki/Köln".as_bytes(), &opts).unwrap(),
///            "https://de.wikipedia.org/wiki/K%C3%B6ln");
/// let syntax_only = NormalizeOptions { scheme_based: false, drop_fragment: true };
/// assert_eq!(normalize(b"HTTP://a:80#top", &syntax_only).unwrap(), "http://a:80");
/// ```
pub fn normalize(input: &[u8], opts: &NormalizeOptions) -> Result<String, Error> {
    let u = validate::parse(input, true)?;
    let mut out: Vec<u8> = Vec::with_capacity(input.len() + 8);
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
            let default = known.is_some_and(|k| scheme::port_value(p) == Some(u32::from(k.port)));
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

#[cfg(test)]
mod tests {
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
}
