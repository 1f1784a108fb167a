//! The lenient split of RFC 3986 Appendix B:
//!
//! ```text
//! ^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?
//! ```
//!
//! Any bytes are accepted; nothing is validated. For valid text the offsets
//! are exactly those the strict parser ([`super::validate`]) finds.

use super::UriRef;

/// Index of the first byte of `text[from..]` in `set`, or `text.len()`.
#[inline]
fn find_any(text: &[u8], from: usize, set: &[u8]) -> usize {
    let mut i = from;
    while let Some(b) = text.get(i) {
        if set.contains(b) {
            return i;
        }
        i += 1;
    }
    text.len()
}

/// Split `text` by Appendix B; see [`UriRef::split`].
pub fn split(text: &[u8]) -> UriRef<'_> {
    let len = text.len();
    let mut u = UriRef {
        text,
        scheme_end: 0,
        auth_start: 0,
        host_start: 0,
        host_end: 0,
        path_start: 0,
        query_start: 0,
        frag_start: len,
    };
    let mut i = 0;
    let first = find_any(text, 0, b":/?#");
    if first > 0 && text.get(first) == Some(&b':') {
        u.scheme_end = first;
        i = first + 1;
    }
    if text.get(i..i + 2) == Some(b"//") {
        let a = i + 2;
        let end = find_any(text, a, b"/?#");
        u.auth_start = a;
        let auth = text.get(a..end).unwrap_or_default();
        let hs = match memchr::memrchr(b'@', auth) {
            Some(p) => a + p + 1,
            None => a,
        };
        u.host_start = hs;
        u.host_end = end;
        let hp = text.get(hs..end).unwrap_or_default();
        if hp.first() == Some(&b'[') {
            if let Some(p) = memchr::memchr(b']', hp)
                && hp.get(p + 1) == Some(&b':')
            {
                u.host_end = hs + p + 1;
            }
        } else if let Some(p) = memchr::memchr(b':', hp) {
            u.host_end = hs + p;
        }
        i = end;
    }
    u.path_start = i;
    let q = find_any(text, i, b"?#");
    u.frag_start = match text.get(q) {
        Some(b'#') => q,
        Some(_) => memchr::memchr(b'#', text.get(q..).unwrap_or_default()).map_or(len, |p| q + p),
        None => len,
    };
    u.query_start = q.min(u.frag_start);
    if u.auth_start == 0 {
        u.host_start = i;
        u.host_end = i;
    }
    u
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appendix_b_example() {
        let u = split(b"http://www.ics.uci.edu/pub/ietf/uri/#Related");
        assert_eq!(u.scheme(), Some(&b"http"[..]));
        assert_eq!(u.authority(), Some(&b"www.ics.uci.edu"[..]));
        assert_eq!(u.path(), b"/pub/ietf/uri/");
        assert_eq!(u.query(), None);
        assert_eq!(u.fragment(), Some(&b"Related"[..]));
    }

    #[test]
    fn odd_inputs() {
        for t in [
            &b""[..],
            b":",
            b"//",
            b"?#",
            b"#?",
            b"//[",
            b"//@",
            b"//a@b@c:d",
            b"a:b:c",
        ] {
            let u = split(t);
            let _ = (
                u.scheme(),
                u.userinfo(),
                u.host(),
                u.port(),
                u.path(),
                u.query(),
            );
            let _ = (u.fragment(), u.host_kind(), u.authority());
        }
        let u = split(b"//u@h@[::1]:80/p?q#f");
        assert_eq!(u.userinfo(), Some(&b"u@h"[..]));
        assert_eq!(u.host(), Some(&b"[::1]"[..]));
        assert_eq!(u.port(), Some(&b"80"[..]));
        let u = split(b"?a#b?c");
        assert_eq!(u.query(), Some(&b"a"[..]));
        assert_eq!(u.fragment(), Some(&b"b?c"[..]));
    }
}
