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
use super::{Error, UriRef, scheme, swar};
use crate::span::{NibbleClass, Spans, WithSpans, dispatch};

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

/// Lanes of the word `x` that [`pct_normalize`] rewrites: `%`, non-ASCII,
/// and with `lower` upper-case letters.
#[inline(always)]
fn rewrite_lanes(x: u64, lower: bool) -> u64 {
    let m = swar::non_ascii(x) | swar::eq(x, b'%');
    if lower { m | swar::upper(x) } else { m }
}

/// Index of the first byte in `src[i..]` that [`pct_normalize`] rewrites,
/// or `src.len()`. Eight bytes at a time (most components have none); the
/// last few bytes are one more word ending at the end of `src`, with the
/// lanes before `i` masked off.
#[inline]
fn find_rewrite(src: &[u8], mut i: usize, lower: bool) -> usize {
    while let Some(x) = swar::word(src, i) {
        let hits = rewrite_lanes(x, lower);
        if hits != 0 {
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    if i >= src.len() {
        return src.len();
    }
    if let Some(last) = src.len().checked_sub(8)
        && let Some(x) = swar::word(src, last)
    {
        // 1..=7 lanes at the front were already looked at.
        let seen = 8 * (i - last) as u32;
        let hits = (rewrite_lanes(x, lower) >> seen) << seen;
        return if hits == 0 {
            src.len()
        } else {
            last + (hits.trailing_zeros() / 8) as usize
        };
    }
    let mask = if lower { 3 } else { 1 };
    let rest = src.get(i..).unwrap_or_default();
    i + rest
        .iter()
        .position(|&b| REWRITE[usize::from(b)] & mask != 0)
        .unwrap_or(rest.len())
}

/// Copy `src` to `out` with percent-encodings normalized, non-ASCII bytes
/// percent-encoded and, with `lower`, ASCII letters lower-cased. Runs of
/// bytes that need no change are copied whole.
fn pct_normalize(src: &[u8], out: &mut Vec<u8>, lower: bool) {
    let mut run = 0;
    let mut i = find_rewrite(src, 0, lower);
    while let Some(&b) = src.get(i) {
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
        i = find_rewrite(src, i, lower);
    }
    out.extend_from_slice(src.get(run..).unwrap_or_default());
}

/// A host: lower-cased, percent-encodings normalized. Nearly always that is
/// a plain copy.
fn push_host(host: &[u8], out: &mut Vec<u8>) {
    if find_rewrite(host, 0, true) == host.len() {
        out.extend_from_slice(host);
    } else {
        pct_normalize(host, out, true);
    }
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

/// True if the segment starting at `path[i]` (a `.`) is `.` or `..`.
#[inline]
fn dot_segment_at(path: &[u8], i: usize) -> bool {
    match path.get(i + 1) {
        None | Some(b'/') => true,
        Some(b'.') => matches!(path.get(i + 2), None | Some(b'/')),
        Some(_) => false,
    }
}

/// True if `path` has a `.` or `..` segment (after percent normalization,
/// so `%2E` is already `.`).
///
/// Eight bytes at a time, it looks for a `.` that starts a segment (at the
/// start or after a `/`); only those few candidates are checked in full.
/// The last word ends at the end of the path and may overlap the one before
/// (looking at a candidate twice does no harm).
fn has_dot_segment(path: &[u8]) -> bool {
    let word_has = |i: usize, x: u64| {
        // The lane before lane 0 is path[i - 1], or the start (a segment start).
        let before = i.checked_sub(1).is_none_or(|j| path.get(j) == Some(&b'/'));
        let mut starts = swar::eq(x, b'.') & ((swar::eq(x, b'/') << 8) | (u64::from(before) << 7));
        while starts != 0 {
            if dot_segment_at(path, i + (starts.trailing_zeros() / 8) as usize) {
                return true;
            }
            starts &= starts - 1;
        }
        false
    };
    let mut i = 0;
    while let Some(x) = swar::word(path, i) {
        if word_has(i, x) {
            return true;
        }
        i += 8;
    }
    if i < path.len()
        && let Some(last) = path.len().checked_sub(8)
        && let Some(x) = swar::word(path, last)
    {
        return word_has(last, x);
    }
    let mut after_slash = i == 0 || path.get(i - 1) == Some(&b'/');
    while let Some(&b) = path.get(i) {
        if b == b'.' && after_slash && dot_segment_at(path, i) {
            return true;
        }
        after_slash = b == b'/';
        i += 1;
    }
    false
}

/// Normalize a URI reference (RFC 3986 6.2.2, plus 6.2.3 if asked); see the
/// module docs for the exact rules. Invalid references are an error; IRIs are
/// mapped to URIs first.
///
/// ```
/// use urlsift_uri::{normalize, NormalizeOptions};
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
    let mut out: Vec<u8> = Vec::with_capacity(input.len() + 8);
    normalize_into(input, opts, &mut out)?;
    Ok(String::from_utf8(out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

/// [`normalize`], appending the normal form to `out` instead of allocating a
/// `String`: with one buffer reused for many references, normalizing
/// allocates nothing once the buffer has grown. On error `out` is unchanged.
///
/// The bytes appended are always ASCII (non-ASCII bytes of an IRI are
/// percent-encoded), so `std::str::from_utf8` on them never fails.
///
/// ```
/// use urlsift_uri::{normalize_into, NormalizeOptions};
/// let opts = NormalizeOptions::default();
/// let mut buf = Vec::new();
/// for url in [&b"HTTP://Example.COM:80"[..], b"https://a/b/../%7e%41"] {
///     buf.clear();
///     normalize_into(url, &opts, &mut buf).unwrap();
///     println!("{}", std::str::from_utf8(&buf).unwrap());
/// }
/// assert_eq!(buf, b"https://a/~A");
/// assert!(normalize_into(b"http://a b/", &opts, &mut buf).is_err());
/// assert_eq!(buf, b"https://a/~A");
/// ```
pub fn normalize_into(
    input: &[u8],
    opts: &NormalizeOptions,
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    struct Job<'a>(&'a [u8], &'a NormalizeOptions, &'a mut Vec<u8>);
    impl WithSpans for Job<'_> {
        type Output = Result<(), Error>;
        #[inline(always)]
        fn run<S: Spans>(self, s: S) -> Self::Output {
            let u = validate::parse_with(s, self.0, true)?;
            normalize_parsed_with(s, &u, self.1, self.2);
            Ok(())
        }
    }
    dispatch(Job(input, opts, out))
}

/// Bytes [`is_plain`] lets through: 1 = not upper case, `%` or non-ASCII
/// (before the port), 2 = not `%` or non-ASCII (after it).
static PLAIN: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = match REWRITE[b] {
            0 => 3,
            2 => 2,
            _ => 0,
        };
        b += 1;
    }
    t
};
static PLAIN_HEAD: NibbleClass = NibbleClass::new(&PLAIN, 1);
static PLAIN_REST: NibbleClass = NibbleClass::new(&PLAIN, 2);

/// True if [`normalize_parsed`] may copy `u` as it is (but for the port and
/// an empty path): no upper case before the port (in the scheme or host;
/// one in a userinfo is counted too, to keep this to one scan), and no `%`,
/// non-ASCII byte or `/.` after it, nor a path starting with `.`. Those are
/// all the bytes that case folding, percent normalization and dot-segment
/// removal could change (a `/.` in a query is a false alarm, and only costs
/// the slow path). Two vector scans ([`Spans::span`], [`Spans::span_dots`]).
#[inline(always)]
fn is_plain<S: Spans>(s: S, u: &UriRef<'_>) -> bool {
    let text = u.as_bytes();
    let head = text.get(..u.host_end).unwrap_or_default();
    u.path().first() != Some(&b'.')
        && s.span(head, 0, &PLAIN_HEAD) == head.len()
        && s.span_dots(text, u.host_end, &PLAIN_REST) == text.len()
}

/// The work of [`normalize`] on a reference already split, appended to `out`.
/// For a reference that is not valid (a [`UriRef::split`] of bad text) the
/// output is unspecified, but this never panics.
///
/// Most references need no change but the scheme-based ones (port, empty
/// path): [`is_plain`] finds out in two word-at-a-time scans, and then each
/// part is copied as it is. Otherwise each component is rewritten from its
/// offsets.
pub(crate) fn normalize_parsed(u: &UriRef<'_>, opts: &NormalizeOptions, out: &mut Vec<u8>) {
    struct Job<'a, 'b>(&'a UriRef<'b>, &'a NormalizeOptions, &'a mut Vec<u8>);
    impl WithSpans for Job<'_, '_> {
        type Output = ();
        #[inline(always)]
        fn run<S: Spans>(self, s: S) {
            normalize_parsed_with(s, self.0, self.1, self.2);
        }
    }
    dispatch(Job(u, opts, out));
}

/// [`normalize_parsed`] with span kernel `s`.
#[inline(always)]
fn normalize_parsed_with<S: Spans>(
    s: S,
    u: &UriRef<'_>,
    opts: &NormalizeOptions,
    out: &mut Vec<u8>,
) {
    let text = u.as_bytes();
    let verbatim = is_plain(s, u);
    let start = out.len();
    let has_auth = u.auth_start > 0;
    // The commonest case: nothing to rewrite, no port to drop, no empty path
    // to fill in. (A path of a reference without authority cannot start
    // with `//` here: only dot-segment removal makes one.) One copy.
    if verbatim && u.port().is_none() && !(has_auth && u.path().is_empty()) {
        let end = if opts.drop_fragment {
            u.frag_start
        } else {
            text.len()
        };
        out.extend_from_slice(text.get(..end).unwrap_or_default());
        return;
    }
    if verbatim {
        // Scheme, `//`, userinfo and host.
        out.extend_from_slice(text.get(..u.host_end).unwrap_or_default());
    } else {
        push_scheme_and_authority(u, out);
    }
    // The scheme, lower case, is at the start of what was written.
    let known = u
        .scheme()
        .filter(|_| opts.scheme_based)
        .and_then(|s| scheme::lookup_lower(out.get(start..start + s.len())?));
    if let Some(p) = u.port().filter(|p| !p.is_empty()) {
        let default = known.is_some_and(|k| scheme::port_value(p) == Some(u32::from(k.port)));
        if !default {
            out.push(b':');
            out.extend_from_slice(p);
        }
    }
    let path_start = out.len();
    push_path(u, verbatim, out);
    if has_auth && out.len() == path_start && known.is_some() {
        out.push(b'/');
    }
    // Query and fragment together: `?` and `#` are copied as they are.
    let end = if opts.drop_fragment {
        u.frag_start
    } else {
        text.len()
    };
    let tail = text.get(u.query_start..end).unwrap_or_default();
    if verbatim {
        out.extend_from_slice(tail);
    } else {
        pct_normalize(tail, out, false);
    }
}

/// The scheme in lower case and `:`, then for a reference with an
/// authority `//`, the userinfo and `@`, and the host, each normalized
/// (RFC 3986 6.2.2.1, 6.2.2.2).
#[inline(always)]
fn push_scheme_and_authority(u: &UriRef<'_>, out: &mut Vec<u8>) {
    let start = out.len();
    if let Some(s) = u.scheme() {
        out.extend_from_slice(s);
        if let Some(lower) = out.get_mut(start..) {
            lower.make_ascii_lowercase();
        }
        out.push(b':');
    }
    if u.auth_start > 0 {
        out.extend_from_slice(b"//");
        if let Some(ui) = u.userinfo() {
            pct_normalize(ui, out, false);
            out.push(b'@');
        }
        push_host(u.host().unwrap_or_default(), out);
    }
}

/// The path, as it is when `verbatim`, else percent-encoding normalized
/// and its dot segments removed (6.2.2.2, 6.2.2.3); a path without an
/// authority that would start with `//` gets `/.` before it.
#[inline(always)]
fn push_path(u: &UriRef<'_>, verbatim: bool, out: &mut Vec<u8>) {
    let has_auth = u.auth_start > 0;
    let path_start = out.len();
    if verbatim {
        out.extend_from_slice(u.path());
    } else {
        pct_normalize(u.path(), out, false);
        let path = out.get(path_start..).unwrap_or_default();
        if has_dot_segment(path) {
            if has_auth || path.first() == Some(&b'/') {
                remove_dot_segments_in_place(out, path_start);
            } else {
                let p = out.split_off(path_start);
                rootless_dots(&p, out, u.scheme().is_none());
            }
        }
    }
    if !has_auth && out.get(path_start..path_start + 2) == Some(b"//") {
        out.splice(path_start..path_start, *b"/.");
    }
}

#[cfg(test)]
mod tests;
