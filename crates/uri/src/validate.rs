//! The strict parser: RFC 3986 Appendix A in one left-to-right pass.
//!
//! It finds the same offsets as [`super::parse::split`] for every valid
//! reference, and for an invalid one the first byte at which the text stops
//! being a prefix of any valid URI reference.
//!
//! Character classes are `const` 256-entry tables built from the ABNF sets:
//!
//! ```text
//! unreserved  = ALPHA / DIGIT / "-" / "." / "_" / "~"
//! sub-delims  = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="
//! scheme      = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
//! userinfo    = *( unreserved / pct-encoded / sub-delims / ":" )
//! reg-name    = *( unreserved / pct-encoded / sub-delims )
//! pchar       = unreserved / pct-encoded / sub-delims / ":" / "@"
//! segment-nz-nc = 1*( unreserved / pct-encoded / sub-delims / "@" )
//! query = fragment = *( pchar / "/" / "?" )
//! ```

use super::{Error, ErrorKind, UriRef, host};
use crate::span::{NibbleClass, Spans, WithSpans, dispatch};

/// `ALPHA / DIGIT / "+" / "-" / "."`
pub(crate) const SCHEME: u8 = 1;
/// `unreserved / sub-delims / ":"` (userinfo without `%`; also IPvFuture's tail).
pub(crate) const USERINFO: u8 = 2;
/// `unreserved / sub-delims` (reg-name without `%`).
pub(crate) const REGNAME: u8 = 4;
/// `pchar / "/"` without `%`.
pub(crate) const PATH: u8 = 8;
/// `pchar` without `":"` and `%` (segment-nz-nc).
pub(crate) const SEGNC: u8 = 16;
/// `pchar / "/" / "?"` without `%` (query and fragment).
pub(crate) const QUERY: u8 = 32;
/// Bytes >= 0x80 (accepted in IRI mode wherever `pct-encoded` is).
pub(crate) const NONASCII: u8 = 64;
/// `unreserved`
pub(crate) const UNRESERVED: u8 = 128;

const fn build() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut b = 0usize;
    while b < 256 {
        let c = b as u8;
        let alpha = c.is_ascii_alphabetic();
        let digit = c.is_ascii_digit();
        let unres = alpha || digit || c == b'-' || c == b'.' || c == b'_' || c == b'~';
        let sub = matches!(
            c,
            b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'='
        );
        let mut v = 0;
        if alpha || digit || c == b'+' || c == b'-' || c == b'.' {
            v |= SCHEME;
        }
        if unres || sub || c == b':' {
            v |= USERINFO;
        }
        if unres || sub {
            v |= REGNAME;
        }
        if unres || sub || c == b':' || c == b'@' || c == b'/' {
            v |= PATH;
        }
        if unres || sub || c == b'@' {
            v |= SEGNC;
        }
        if unres || sub || c == b':' || c == b'@' || c == b'/' || c == b'?' {
            v |= QUERY;
        }
        if c >= 0x80 {
            v |= NONASCII;
        }
        if unres {
            v |= UNRESERVED;
        }
        t[b] = v;
        b += 1;
    }
    t
}

/// The class table: `TABLE[b] & CLASS != 0` if byte `b` is in `CLASS`.
pub(crate) static TABLE: [u8; 256] = build();

#[inline(always)]
pub(crate) fn at(text: &[u8], i: usize) -> u8 {
    text.get(i).copied().unwrap_or(0)
}

#[inline(always)]
pub(crate) fn is_hex(b: u8) -> bool {
    b.is_ascii_hexdigit()
}

#[inline(always)]
fn err(index: usize, kind: ErrorKind) -> Error {
    Error { index, kind }
}

/// The classes [`scan`] skips, as nibble tables for the vector kernels
/// ([`Spans::span`]); built (and checked exact) at compile time.
static NIBBLES: [NibbleClass; 10] = [
    NibbleClass::new(&TABLE, USERINFO),
    NibbleClass::new(&TABLE, USERINFO | NONASCII),
    NibbleClass::new(&TABLE, REGNAME),
    NibbleClass::new(&TABLE, REGNAME | NONASCII),
    NibbleClass::new(&TABLE, PATH),
    NibbleClass::new(&TABLE, PATH | NONASCII),
    NibbleClass::new(&TABLE, SEGNC),
    NibbleClass::new(&TABLE, SEGNC | NONASCII),
    NibbleClass::new(&TABLE, QUERY),
    NibbleClass::new(&TABLE, QUERY | NONASCII),
];

/// The nibble tables of `class` (one of the component classes), with
/// [`NONASCII`] added when `na` has it. `class` is a constant at every call
/// site, so the match folds away.
#[inline(always)]
fn nibbles(class: u8, na: u8) -> &'static NibbleClass {
    let iri = usize::from(na & NONASCII != 0);
    let base = match class {
        USERINFO => 0,
        REGNAME => 2,
        PATH => 4,
        SEGNC => 6,
        // QUERY: `scan` is given no other class.
        _ => 8,
    };
    &NIBBLES[base + iri]
}

/// Skip bytes of `class` (plus non-ASCII bytes if `na` is [`NONASCII`]) and
/// well-formed percent-encodings from `i`; return the index of the first
/// other byte (or the end).
#[inline(always)]
fn scan<S: Spans>(s: S, text: &[u8], mut i: usize, class: u8, na: u8) -> Result<usize, Error> {
    let nib = nibbles(class, na);
    loop {
        i = s.span(text, i, nib);
        if text.get(i) != Some(&b'%') {
            return Ok(i);
        }
        if !is_hex(at(text, i + 1)) {
            return Err(err(i + 1, ErrorKind::PercentEncoding));
        }
        if !is_hex(at(text, i + 2)) {
            return Err(err(i + 2, ErrorKind::PercentEncoding));
        }
        i += 3;
    }
}

/// Parse `text` strictly. With `iri`, bytes >= 0x80 are accepted wherever a
/// percent-encoding is (the RFC 3987 mapping percent-encodes them there).
pub(crate) fn parse(text: &[u8], iri: bool) -> Result<UriRef<'_>, Error> {
    struct Job<'a>(&'a [u8], bool);
    impl<'a> WithSpans for Job<'a> {
        type Output = Result<UriRef<'a>, Error>;
        #[inline(always)]
        fn run<S: Spans>(self, s: S) -> Self::Output {
            parse_with(s, self.0, self.1)
        }
    }
    dispatch(Job(text, iri))
}

/// [`parse`] with span kernel `s` (for callers that run inside a
/// [`dispatch`] of their own).
#[inline(always)]
pub(crate) fn parse_with<S: Spans>(s: S, text: &[u8], iri: bool) -> Result<UriRef<'_>, Error> {
    parse_inner(s, text, iri).map_err(|mut e| {
        if e.kind != ErrorKind::PercentEncoding && at(text, e.index) >= 0x80 {
            e.kind = ErrorKind::NonAscii;
        }
        e
    })
}

#[inline(always)]
fn parse_inner<S: Spans>(s: S, text: &[u8], iri: bool) -> Result<UriRef<'_>, Error> {
    let na = if iri { NONASCII } else { 0 };
    let mut u = UriRef {
        text,
        scheme_end: 0,
        auth_start: 0,
        host_start: 0,
        host_end: 0,
        path_start: 0,
        query_start: 0,
        frag_start: text.len(),
    };
    let mut i = 0;
    if text.first().is_some_and(u8::is_ascii_alphabetic) {
        let mut j = 1;
        while TABLE[at(text, j) as usize] & SCHEME != 0 {
            j += 1;
        }
        if at(text, j) == b':' {
            u.scheme_end = j;
            i = j + 1;
        }
    }
    if text.get(i..i + 2) == Some(b"//") {
        i = authority(s, &mut u, i + 2, na)?;
    } else {
        u.host_start = i;
        u.host_end = i;
    }
    u.path_start = i;
    if u.scheme_end == 0 && u.auth_start == 0 && at(text, i) != b'/' {
        // path-noscheme: no ':' in the first segment.
        i = scan(s, text, i, SEGNC, na)?;
        if at(text, i) == b':' {
            return Err(err(i, ErrorKind::Scheme));
        }
    }
    i = scan(s, text, i, PATH, na)?;
    let mut next = text.get(i);
    if next == Some(&b'?') {
        u.query_start = i;
        i = scan(s, text, i + 1, QUERY, na)?;
        next = text.get(i);
    } else {
        u.query_start = i;
    }
    match next {
        None => return Ok(u),
        Some(b'#') => {}
        Some(_) => {
            let kind = if u.query_start < i {
                ErrorKind::Query
            } else {
                ErrorKind::Path
            };
            return Err(err(i, kind));
        }
    }
    u.frag_start = i;
    i = scan(s, text, i + 1, QUERY, na)?;
    if i < text.len() {
        return Err(err(i, ErrorKind::Fragment));
    }
    Ok(u)
}

/// The authority starting at `a` (after `//`); returns its end.
///
/// One scan of reg-name characters usually settles it; only a `:` (port or
/// userinfo?) needs a second look ahead for an `@`.
#[inline(always)]
fn authority<S: Spans>(s: S, u: &mut UriRef<'_>, a: usize, na: u8) -> Result<usize, Error> {
    u.auth_start = a;
    let text = u.text;
    let k1 = scan(s, text, a, REGNAME, na)?;
    // `reach`: how far the text could still have been a userinfo (no '@' found).
    let (h, reach, known) = match at(text, k1) {
        b'@' => (k1 + 1, None, None),
        b':' => {
            let k2 = scan(s, text, k1, USERINFO, na)?;
            if at(text, k2) == b'@' {
                (k2 + 1, None, None)
            } else {
                (a, Some(k2), Some(k1))
            }
        }
        _ => (a, Some(k1), (k1 > a || at(text, a) != b'[').then_some(k1)),
    };
    u.host_start = h;
    match host_port(s, u, h, na, known) {
        Ok(end) => Ok(end),
        // Without '@', everything up to `reach` could still have been a userinfo.
        Err(e) if reach.is_some_and(|k| k > e.index) => {
            Err(err(reach.unwrap_or(0), ErrorKind::Port))
        }
        Err(e) => Err(e),
    }
}

/// Host and port from `h`; `known` is the end of a reg-name already scanned.
#[inline(always)]
fn host_port<S: Spans>(
    s: S,
    u: &mut UriRef<'_>,
    h: usize,
    na: u8,
    known: Option<usize>,
) -> Result<usize, Error> {
    let text = u.text;
    let mut i = match known {
        Some(k) => k,
        None if at(text, h) == b'[' => host::ip_literal(text, h + 1)?,
        None => scan(s, text, h, REGNAME, na)?,
    };
    u.host_end = i;
    let mut kind = ErrorKind::Host;
    if at(text, i) == b':' {
        kind = ErrorKind::Port;
        i += 1;
        while at(text, i).is_ascii_digit() {
            i += 1;
        }
    }
    match text.get(i) {
        None | Some(b'/' | b'?' | b'#') => Ok(i),
        Some(_) => Err(err(i, kind)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::Scalar;

    /// `scan` with the dispatched (vector) kernel.
    struct ScanJob<'a>(&'a [u8], usize, u8);
    impl WithSpans for ScanJob<'_> {
        type Output = Result<usize, Error>;
        fn run<S: Spans>(self, s: S) -> Self::Output {
            scan(s, self.0, self.1, self.2 & !NONASCII, self.2 & NONASCII)
        }
    }

    fn e(t: &str) -> (usize, ErrorKind) {
        let e = parse(t.as_bytes(), false).unwrap_err();
        (e.index, e.kind)
    }

    #[test]
    fn error_offsets() {
        assert_eq!(e("http://w3c.org:80path1/path2"), (22, ErrorKind::Port));
        assert_eq!(e("http://www yahoo.com"), (10, ErrorKind::Host));
        assert_eq!(e("%"), (1, ErrorKind::PercentEncoding));
        assert_eq!(e("A%Z"), (2, ErrorKind::PercentEncoding));
        assert_eq!(e("1http://x"), (5, ErrorKind::Scheme));
        assert_eq!(e("http://[xyz]/"), (8, ErrorKind::Ipv6));
        assert_eq!(e("//a@b@c/"), (5, ErrorKind::Host));
        assert_eq!(e("/é"), (1, ErrorKind::NonAscii));
        assert_eq!(e("a?b c"), (3, ErrorKind::Query));
        assert_eq!(e("a#b#"), (3, ErrorKind::Fragment));
    }

    /// `scan` (the vector kernel, its overlapping last load, the scalar loop) against
    /// a byte-at-a-time oracle, for every start and length.
    #[test]
    fn scan_matches_byte_loop() {
        let oracle = |t: &[u8], mut i: usize, class: u8| -> Result<usize, Error> {
            while let Some(&b) = t.get(i) {
                if b == b'%' {
                    for k in 1..3 {
                        if !is_hex(at(t, i + k)) {
                            return Err(err(i + k, ErrorKind::PercentEncoding));
                        }
                    }
                    i += 3;
                } else if TABLE[b as usize] & class != 0 {
                    i += 1;
                } else {
                    break;
                }
            }
            Ok(i)
        };
        let text = "/abc/d%41e:f@g/h?i#j%zk/l mnopqr%2/stuvwxyz é01234567".as_bytes();
        for class in [
            REGNAME,
            PATH,
            SEGNC,
            QUERY,
            PATH | NONASCII,
            QUERY | NONASCII,
        ] {
            for start in 0..text.len() {
                for end in start..text.len() {
                    let t = &text[start..end];
                    for i in 0..=t.len() {
                        let got = scan(Scalar, t, i, class & !NONASCII, class & NONASCII);
                        assert_eq!(dispatch(ScanJob(t, i, class)), got, "{t:?} {i} {class}");
                        assert_eq!(got, oracle(t, i, class), "{t:?} {i} {class}");
                    }
                }
            }
        }
    }

    #[test]
    fn same_offsets_as_split() {
        for t in [
            "http://u@h:1/p?q#f",
            "//[v1.x]:/",
            "a:",
            "?#",
            "#?",
            "g;x?y#s",
            "mailto:a@b",
        ] {
            assert_eq!(
                parse(t.as_bytes(), false).unwrap(),
                super::super::parse::split(t.as_bytes())
            );
        }
    }
}
