//! The lenient split of RFC 3986 Appendix B:
//!
//! ```text
//! ^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?
//! ```
//!
//! Any bytes are accepted; nothing is validated. For valid text the offsets
//! are exactly those the strict parser ([`super::validate`]) finds.

use super::UriRef;

/// `:`
const COLON: u8 = 1;
/// `/`
const SLASH: u8 = 2;
/// `?`
const QUESTION: u8 = 4;
/// `#`
const HASH: u8 = 8;
/// `@`
const AT: u8 = 16;

/// The delimiters of the split, one bit each: `DELIMS[b] & SET != 0` if
/// byte `b` is in `SET`.
static DELIMS: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b':' as usize] = COLON;
    t[b'/' as usize] = SLASH;
    t[b'?' as usize] = QUESTION;
    t[b'#' as usize] = HASH;
    t[b'@' as usize] = AT;
    t
};

/// Index of the first byte of `text[from..]` in `set` (bits of
/// [`DELIMS`]), or `text.len()`: one table look-up per byte, eight bytes'
/// classes or-ed together before one test.
#[inline(always)]
fn find_any(text: &[u8], from: usize, set: u8) -> usize {
    let rest = text.get(from..).unwrap_or_default();
    let mut chunks = rest.chunks_exact(8);
    let mut at = from;
    for c in &mut chunks {
        let any = c.iter().fold(0, |a, &b| a | DELIMS[b as usize]);
        if any & set != 0 {
            break;
        }
        at += 8;
    }
    let tail = text.get(at..).unwrap_or_default();
    tail.iter()
        .position(|&b| DELIMS[b as usize] & set != 0)
        .map_or(text.len(), |p| at + p)
}

/// The scheme and authority of Appendix B's split of a text.
struct Head {
    /// Where the scheme's `:` is (0: no scheme).
    scheme_end: usize,
    /// Where the authority starts, after `//` (0: no authority).
    auth_start: usize,
    host_start: usize,
    host_end: usize,
    /// Where the path starts: after the authority, else after the scheme.
    path_start: usize,
}

/// The scheme and authority of `text` (see [`split`]): the bytes after
/// the authority are not looked at.
#[inline(always)]
fn head(text: &[u8]) -> Head {
    let mut h = Head {
        scheme_end: 0,
        auth_start: 0,
        host_start: 0,
        host_end: 0,
        path_start: 0,
    };
    let mut i = 0;
    let first = find_any(text, 0, COLON | SLASH | QUESTION | HASH);
    if first > 0 && text.get(first) == Some(&b':') {
        h.scheme_end = first;
        i = first + 1;
    }
    if text.get(i..i + 2) == Some(b"//") {
        let a = i + 2;
        // The authority ends at the first `/`, `?` or `#`; the host starts
        // after its last `@`, and a port after the host's first `:`.
        let mut hs = a;
        let mut colon = None;
        let mut j = a;
        let end = loop {
            j = find_any(text, j, SLASH | QUESTION | HASH | AT | COLON);
            match text.get(j) {
                Some(b'@') => {
                    hs = j + 1;
                    colon = None;
                }
                Some(b':') => {
                    colon = colon.or(Some(j));
                }
                _ => break j,
            }
            j += 1;
        };
        h.auth_start = a;
        h.host_start = hs;
        h.host_end = end;
        let hp = text.get(hs..end).unwrap_or_default();
        if hp.first() == Some(&b'[') {
            if let Some(p) = memchr::memchr(b']', hp)
                && hp.get(p + 1) == Some(&b':')
            {
                h.host_end = hs + p + 1;
            }
        } else if let Some(p) = colon {
            h.host_end = p;
        }
        i = end;
    }
    h.path_start = i;
    h
}

/// The host of Appendix B's split of `text` (what [`split`] gives as
/// [`UriRef::host`]), without splitting the path, query and fragment.
pub fn host(text: &[u8]) -> Option<&[u8]> {
    let h = head(text);
    (h.auth_start > 0).then(|| text.get(h.host_start..h.host_end).unwrap_or_default())
}

/// Split `text` by Appendix B; see [`UriRef::split`]. One pass over the
/// text: each byte is looked at once, by one table look-up.
pub fn split(text: &[u8]) -> UriRef<'_> {
    let len = text.len();
    let h = head(text);
    let i = h.path_start;
    let mut u = UriRef {
        text,
        scheme_end: h.scheme_end,
        auth_start: h.auth_start,
        host_start: h.host_start,
        host_end: h.host_end,
        path_start: i,
        query_start: 0,
        frag_start: len,
    };
    let q = find_any(text, i, QUESTION | HASH);
    u.frag_start = match text.get(q) {
        Some(b'?') => find_any(text, q + 1, HASH),
        _ => q,
    };
    u.query_start = q.min(u.frag_start);
    if u.auth_start == 0 {
        u.host_start = i;
        u.host_end = i;
    }
    u
}

/// The split of Appendix B as the regular expression reads it, byte by
/// byte: the reference [`split`] is tested against.
#[cfg(test)]
fn split_reference(text: &[u8]) -> UriRef<'_> {
    let find = |from: usize, set: &[u8]| {
        (from..text.len())
            .find(|&i| set.contains(&text[i]))
            .unwrap_or(text.len())
    };
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
    let first = find(0, b":/?#");
    if first > 0 && text.get(first) == Some(&b':') {
        u.scheme_end = first;
        i = first + 1;
    }
    if text.get(i..i + 2) == Some(b"//") {
        let a = i + 2;
        let end = find(a, b"/?#");
        u.auth_start = a;
        let hs = (a..end)
            .rev()
            .find(|&p| text[p] == b'@')
            .map_or(a, |p| p + 1);
        u.host_start = hs;
        u.host_end = end;
        let hp = &text[hs..end];
        if hp.first() == Some(&b'[') {
            if let Some(p) = hp.iter().position(|&b| b == b']')
                && hp.get(p + 1) == Some(&b':')
            {
                u.host_end = hs + p + 1;
            }
        } else if let Some(p) = hp.iter().position(|&b| b == b':') {
            u.host_end = hs + p;
        }
        i = end;
    }
    u.path_start = i;
    let q = find(i, b"?#");
    u.frag_start = match text.get(q) {
        Some(b'#') => q,
        Some(_) => find(q, b"#"),
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

    /// Every split of bytes from the delimiters and a few others, up to
    /// five bytes long, is the reference split.
    #[test]
    fn one_pass_split_is_the_reference_split() {
        let alphabet = b":/?#@[]a";
        let mut text = Vec::new();
        for len in 0..=5u32 {
            for n in 0..alphabet.len().pow(len) {
                text.clear();
                let mut k = n;
                for _ in 0..len {
                    text.push(alphabet[k % alphabet.len()]);
                    k /= alphabet.len();
                }
                for prefix in [
                    &b""[..],
                    b"s:",
                    b"s://",
                    b"//",
                    b"hhhhhhhhhhhhh",
                    b"s://hhhhhhhhhhh",
                    b"//u@hhhhhhhhhhhhhhhh",
                    b"s://h/ppppppppppppppppp",
                ] {
                    let mut t = prefix.to_vec();
                    t.extend_from_slice(&text);
                    let (a, b) = (split(&t), split_reference(&t));
                    assert_eq!(
                        (a.scheme_end, a.auth_start, a.host_start, a.host_end),
                        (b.scheme_end, b.auth_start, b.host_start, b.host_end),
                        "{t:?}"
                    );
                    assert_eq!(
                        (a.path_start, a.query_start, a.frag_start),
                        (b.path_start, b.query_start, b.frag_start),
                        "{t:?}"
                    );
                    assert_eq!(host(&t), b.host(), "{t:?}");
                }
            }
        }
    }
}
