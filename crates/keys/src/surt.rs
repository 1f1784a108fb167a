//! SURT, the Sort-friendly URI Reordering Transform, with the Internet
//! Archive's default canonicalization: the key of CDX and CDXJ indexes
//! (pywb, the Wayback Machine, Common Crawl's URL index).
//!
//! [`surt`] computes what the Python `surt` package's `surt.surt(url)`
//! returns with its default options, step by step:
//!
//! 1. **Parse.** ASCII whitespace is trimmed and tabs and line breaks
//!    removed; a URL without a scheme gets `http://`; repeated
//!    `http://https://` prefixes keep the last; the rest is split as
//!    RFC 2396 does (a userinfo is dropped). For `http`-like schemes with no
//!    authority (`http:///host/p`), the first path segment is the host.
//! 2. **Canonicalize** (Google's safe-browsing rules): the fragment is
//!    dropped; host, path and query are percent-decoded until nothing
//!    changes, then encoded once (controls, space, `#`, `%` and non-ASCII
//!    bytes); a non-ASCII host goes through IDNA (here UTS #46); `..` in the
//!    host becomes `.` and dots at its ends go; a host of digits (one
//!    number, or dotted decimal or octal parts) becomes its dotted-quad IPv4
//!    address; dot segments and empty segments of the path are removed.
//! 3. **Canonicalize** (the Internet Archive's rules): host, path and query
//!    in lower case; a leading `www.` (or `www2.`, ...) dropped; ports 80
//!    for `http` and 443 for `https` dropped; a trailing `/` dropped unless
//!    the path is `/`; session ids in the path (ASP.NET cookieless forms)
//!    and the query (`jsessionid`, `phpsessid`, `sid`, `aspsessionid`,
//!    `cfid`/`cftoken`) dropped; query arguments sorted; an empty query
//!    dropped.
//! 4. **Write** the host's labels in reverse order joined by `,`, the port,
//!    `)`, then path and query: `com,example)/a?b=1&c=2`. A URL without a
//!    host keeps its scheme: `mailto:user@example.com`.
//!
//! Where this differs from the Python package: non-ASCII hosts use UTS #46
//! (the Python package uses IDNA 2003: `ß` becomes `ss` there, stays `ß`
//! here), and numeric hosts are read as glibc's `inet_aton` reads them
//! (the Python package asks the system resolver, which does the same for
//! these forms).

use std::borrow::Cow;
use std::fmt;

use idna::uts46::{AsciiDenyList, DnsLength, Hyphens, Uts46};
use memchr::memmem;

use crate::masks::{Bits, LOWER, Masks, first_from, range};

/// Why a URL has no SURT key (the Python package raises an exception for
/// these inputs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SurtError {
    /// What is wrong.
    pub reason: &'static str,
}

impl fmt::Display for SurtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.reason)
    }
}

impl std::error::Error for SurtError {}

/// The SURT key of `url`, as the Python `surt` package's `surt.surt(url)`
/// computes it (see the [module documentation](self)). An empty URL gives
/// `-`; a URL starting with `filedesc` is its own key.
///
/// ```
/// use urlsift_keys::surt;
/// assert_eq!(surt(b"http://www.archive.org/index.html").unwrap(), "org,archive)/index.html");
/// assert_eq!(surt(b"https://Example.COM:443/A/./b/../C/?Z=1&a=2#frag").unwrap(), "com,example)/a/c?a=2&z=1");
/// assert_eq!(surt(b"http://example.com/x;jsessionid=0123456789abcdef0123456789abcdef").unwrap(),
///            "com,example)/x;jsessionid=0123456789abcdef0123456789abcdef");
/// assert_eq!(surt(b"http://example.com/?sid=0123456789abcdef0123456789ABCDEF&b=1").unwrap(), "com,example)/?b=1");
/// assert_eq!(surt("http://www.例子.测试/".as_bytes()).unwrap(), "xn--0zwm56d,xn--fsqu00a)/");
/// assert_eq!(surt(b"http://3232235777/").unwrap(), "1,1,168,192)/");
/// assert_eq!(surt(b"mailto:Someone@Example.com").unwrap(), "mailto:someone@example.com");
/// assert!(surt(b"http://example.com:99999/").is_err());
/// ```
pub fn surt(url: &[u8]) -> Result<String, SurtError> {
    let mut out = Vec::with_capacity(url.len() + 8);
    surt_into(url, &mut out)?;
    Ok(match String::from_utf8(out) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// [`surt`], appended to `out` (nothing is appended on error).
///
/// ```
/// let mut out = b"key: ".to_vec();
/// urlsift_keys::surt_into(b"HTTP://WWW2.Example.org:8080/a/", &mut out).unwrap();
/// assert_eq!(out, b"key: org,example:8080)/a");
/// ```
pub fn surt_into(url: &[u8], out: &mut Vec<u8>) -> Result<(), SurtError> {
    if url.is_empty() {
        out.push(b'-');
        return Ok(());
    }
    if url.starts_with(b"filedesc") {
        out.extend_from_slice(url);
        return Ok(());
    }
    let mut lower = [0u8; LOWER];
    let fast = if url.len() <= 64 {
        crate::masks::masks::<u64>(url, &mut lower)
            .is_some_and(|m| surt_fast_masks(url, &m, &lower, out))
    } else {
        match crate::masks::masks::<u128>(url, &mut lower) {
            Some(m) => surt_fast_masks(url, &m, &lower, out),
            None => surt_fast(url, out),
        }
    };
    if fast {
        return Ok(());
    }
    let text = prepare(url)?;
    let p = split(&text)?;

    // The host of step 2, when it differs from the host in lower case.
    let slow_host = match p.host {
        Some(h) if !h.is_empty() && !plain_host(h) => Some(canon_host(h).into_owned()),
        _ => None,
    };
    let host = match &slow_host {
        Some(v) => Some(&v[..]),
        None => p.host,
    };
    let has_host = host.is_some_and(|h| !h.is_empty());
    // Step 3's host: `www.` dropped (unless the scheme is `dns`).
    let host = host.filter(|h| !h.is_empty()).map(|h| {
        if p.scheme == b"dns" {
            h
        } else {
            massage_host(h)
        }
    });

    let default_port = if p.scheme.eq_ignore_ascii_case(b"http") {
        80
    } else if p.scheme.eq_ignore_ascii_case(b"https") {
        443
    } else {
        0
    };
    let port = p.port.filter(|&n| n != default_port);

    let query = canon_query(p.query);
    match host.filter(|h| !h.is_empty()) {
        Some(h) => push_host(out, h, port),
        None => {
            out.extend_from_slice(p.scheme);
            out.push(b':');
        }
    }
    let path_at = out.len();
    push_path(out, p.path, has_host);
    if out.len() == path_at && query.is_some() {
        out.push(b'/');
    }
    if let Some(q) = &query {
        out.push(b'?');
        write_sorted_query(q, out);
    }
    Ok(())
}

/// Step 3's query: decoded, encoded once, lower-cased, session ids
/// removed; `None` when empty. (Its arguments are sorted as written.)
fn canon_query(q: Option<&[u8]>) -> Option<Vec<u8>> {
    let q = q.filter(|q| !q.is_empty())?;
    let mut q = if q.iter().any(|&b| must_escape(b)) {
        escape_once(&unescape_repeatedly(q)).into_owned()
    } else {
        q.to_vec()
    };
    q.make_ascii_lowercase();
    let q = strip_query_session_id(q);
    (!q.is_empty()).then_some(q)
}

/// The host's labels in reverse order, comma-separated and lower-cased,
/// then `:port` if any, then `)`.
fn push_host(out: &mut Vec<u8>, host: &[u8], port: Option<u32>) {
    for (i, label) in host.rsplit(|&b| b == b'.').enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend(label.iter().map(u8::to_ascii_lowercase));
    }
    if let Some(n) = port {
        out.push(b':');
        out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    }
    out.push(b')');
}

/// Step 3's path: decoded, dot segments removed when there is a host,
/// encoded once, lower-cased, session ids and a trailing slash removed
/// (`/` for an empty path with a host).
fn push_path(out: &mut Vec<u8>, path: Option<&[u8]>, has_host: bool) {
    let path_at = out.len();
    match path {
        Some(raw) if plain_path(raw, has_host) => {
            out.extend(raw.iter().map(u8::to_ascii_lowercase));
        }
        Some(raw) => {
            let un = unescape_repeatedly(raw);
            let normal;
            let path: &[u8] = if has_host {
                normal = normalize_path(&un);
                &normal
            } else {
                &un
            };
            out.extend(escape_once(path).iter().map(u8::to_ascii_lowercase));
        }
        None if has_host => out.push(b'/'),
        None => {}
    }
    if memchr::memchr(b'(', out.get(path_at..).unwrap_or_default()).is_some() {
        let path = strip_path_session_id(out.split_off(path_at));
        out.extend_from_slice(&path);
    }
    if out.len() > path_at + 1 && out.last() == Some(&b'/') {
        out.pop();
    }
}

/// Byte classes of [`surt_fast`]'s passes.
const S_BAD: u16 = 1; // a control, space, `%`, DEL or non-ASCII byte
const S_STOP: u16 = 2; // `?` or `#`: the end of the path
const S_SLASH: u16 = 4; // `/`
const S_SEG: u16 = 8; // `/` or `.`: after a `/`, an empty or dot segment
const S_PAREN: u16 = 16; // `(`: maybe a path session id
const S_UPPER: u16 = 32; // an upper-case letter
const S_HOSTEND: u16 = 64; // `/`, `?`, `#`, `:`: the end of the host name
const S_HOSTBAD: u16 = 128; // `@`, `[`, `]`: userinfo or an IP literal
const S_DOT: u16 = 256; // `.`
const S_DOT2: u16 = 512; // `.` (S_DOT one bit up: a dot after a dot)
const S_NONNUM: u16 = 1024; // neither a digit nor `.`
const S_AMP: u16 = 2048; // `&`
const S_EQ: u16 = 4096; // `=`

/// The class of every byte for [`surt_fast`].
const S_CLASS: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        let class = if c <= b' ' || c >= 0x7f || c == b'%' {
            S_BAD
        } else if c.is_ascii_uppercase() {
            S_UPPER
        } else {
            match c {
                b'?' | b'#' => S_STOP | S_HOSTEND,
                b'/' => S_SLASH | S_SEG | S_HOSTEND,
                b'.' => S_SEG | S_DOT | S_DOT2,
                b'(' => S_PAREN,
                b':' => S_HOSTEND,
                b'@' | b'[' | b']' => S_HOSTBAD,
                b'&' => S_AMP,
                b'=' => S_EQ,
                _ => 0,
            }
        };
        t[b] = if c.is_ascii_digit() || c == b'.' {
            class
        } else {
            class | S_NONNUM
        };
        b += 1;
    }
    t
};

#[inline]
fn s_class(b: u8) -> u16 {
    S_CLASS[usize::from(b)]
}

/// A scheme (a letter, then letters, digits, `+`, `-`, `.`) and `://` at
/// the start of `url`: the length of `scheme://`.
#[inline]
fn fast_scheme(url: &[u8]) -> Option<usize> {
    if url.starts_with(b"https://") {
        return Some(8);
    }
    if url.starts_with(b"http://") {
        return Some(7);
    }
    if !url.first()?.is_ascii_alphabetic() {
        return None;
    }
    let n = url
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))?;
    url.get(n..)?.starts_with(b"://").then_some(n + 3)
}

/// True if `h` (digits and dots) is a dotted quad of decimal parts of at
/// most 255 with no leading zero: the IPv4 address step 2 writes as it is.
fn plain_dotted_quad(h: &[u8]) -> bool {
    let mut parts = 0;
    for p in h.split(|&b| b == b'.') {
        parts += 1;
        let v = p.iter().fold(0u32, |v, &d| {
            v.saturating_mul(10).saturating_add(u32::from(d - b'0'))
        });
        if p.is_empty() || p.len() > 3 || (p.len() > 1 && p[0] == b'0') || v > 255 {
            return false;
        }
    }
    parts == 4
}

/// Append `s` in ASCII lower case (`s` is ASCII), eight bytes at a time.
fn push_lower(out: &mut Vec<u8>, s: &[u8]) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let mut words = s.chunks_exact(8);
    for w in &mut words {
        let mut a = [0u8; 8];
        a.copy_from_slice(w);
        let x = u64::from_le_bytes(a);
        // A lane is upper case iff x + (0x80 - 'A') has its top bit and
        // x + (0x80 - 'Z' - 1) has not (every lane below 0x80: no carries).
        let ge_a = x.wrapping_add(ONES * (0x80 - u64::from(b'A')));
        let gt_z = x.wrapping_add(ONES * (0x80 - u64::from(b'Z') - 1));
        let upper = ge_a & !gt_z & (ONES * 0x80);
        out.extend_from_slice(&(x | (upper >> 2)).to_le_bytes());
    }
    out.extend(words.remainder().iter().map(u8::to_ascii_lowercase));
}

/// Append `host`'s labels in reverse order, joined by `,`, in lower case.
fn push_reversed_labels(out: &mut Vec<u8>, host: &[u8]) {
    for (i, label) in host.rsplit(|&b| b == b'.').enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_lower(out, label);
    }
}

/// [`surt_fast`] for a URL of at most `W::BITS` bytes, from its
/// byte-class masks and its copy in lower case (`lower`, as
/// [`masks`](crate::masks::masks) writes it): the same URLs taken, the
/// same keys. The key is put together on the stack from `lower` 16 bytes
/// at a time (a call to copy each piece costs more than the piece) and
/// appended to `out` at once.
fn surt_fast_masks<W: Bits>(
    url: &[u8],
    m: &Masks<W>,
    lower: &[u8; LOWER],
    out: &mut Vec<u8>,
) -> bool {
    let Some(rest) = fast_scheme(url) else {
        return false;
    };
    let scheme = url.get(..rest - 3).unwrap_or_default();
    let tail = url.get(rest..).unwrap_or_default();
    if m.bad != W::ZERO
        || scheme == b"dns"
        || tail.starts_with(b"http://")
        || tail.starts_with(b"https://")
    {
        return false;
    }
    let n = url.len();
    // The host: no empty label, no userinfo or literal, maybe numeric.
    let host_end = first_from(m.host_end, rest).unwrap_or(n);
    let hm = range::<W>(rest, host_end);
    let dots = m.dot & hm;
    if host_end == rest
        || m.host_bad & hm != W::ZERO
        || dots & (dots >> 1) != W::ZERO
        || dots & (W::ONE << rest) != W::ZERO
        || dots & (W::ONE << (host_end - 1)) != W::ZERO
    {
        return false;
    }
    let host = url.get(rest..host_end).unwrap_or_default();
    if host.iter().all(|&b| b.is_ascii_digit() || b == b'.') && !plain_dotted_quad(host) {
        return false;
    }
    // The port: digits (none is no port), 0 or the scheme's default is none.
    let mut port = None;
    let mut path_at = host_end;
    if url.get(host_end) == Some(&b':') {
        let Some((p, d)) = fast_port(scheme, url.get(host_end + 1..).unwrap_or_default()) else {
            return false;
        };
        port = p;
        path_at = host_end + 1 + d;
    }
    // The path: no `(`, no `/` or `.` after a `/`.
    let path_end = first_from(m.stop, path_at).unwrap_or(n);
    let pm = range::<W>(path_at, path_end);
    let slashes = m.slash & pm;
    if m.paren & pm != W::ZERO || (slashes << 1) & (m.slash | m.dot) & pm != W::ZERO {
        return false;
    }
    let path = url.get(path_at..path_end).unwrap_or_default();
    // The query, up to `#` (the first `#` of the `?` and `#` after it).
    let query = if url.get(path_end) == Some(&b'?') {
        let mut q_end = first_from(m.stop, path_end + 1);
        while let Some(e) = q_end
            && url.get(e) == Some(&b'?')
        {
            q_end = first_from(m.stop, e + 1);
        }
        Some((path_end + 1, q_end.unwrap_or(n))).filter(|(a, e)| a < e)
    } else {
        None
    };

    // The key: host labels from the last, each copied once (`www.` dropped
    // by starting after its dot), the port, `)`, the path (`/` for none, a
    // trailing `/` dropped), the query.
    let mut key = [0u8; KEY];
    let Some(mut k) = (|| {
        let from = rest + host.len() - massage_host(host).len();
        let mut end = host_end;
        let mut k = 0;
        let mut d = dots & range::<W>(from, host_end);
        while d != W::ZERO {
            let at = W::BITS - 1 - d.leading_zeros() as usize;
            k = copy16(&mut key, k, lower, at + 1, end)?;
            *key.get_mut(k)? = b',';
            k += 1;
            end = at;
            d &= !(W::ONE << at);
        }
        k = copy16(&mut key, k, lower, from, end)?;
        if let Some(p) = port {
            *key.get_mut(k)? = b':';
            k += 1;
            for &b in itoa::Buffer::new().format(p).as_bytes() {
                *key.get_mut(k)? = b;
                k += 1;
            }
        }
        *key.get_mut(k)? = b')';
        k += 1;
        match path.len() {
            0 => {
                *key.get_mut(k)? = b'/';
                k += 1;
            }
            len => {
                let trailing = usize::from(len > 1 && path.last() == Some(&b'/'));
                k = copy16(&mut key, k, lower, path_at, path_end - trailing)?;
            }
        }
        Some(k)
    })() else {
        return false;
    };
    let Some((q_at, q_end)) = query else {
        out.extend_from_slice(key.get(..k).unwrap_or_default());
        return true;
    };
    let Some(key_q) = key.get_mut(k).map(|b| *b = b'?').and_then(|()| {
        k += 1;
        let at = k;
        k = copy16(&mut key, k, lower, q_at, q_end)?;
        Some(at)
    }) else {
        return false;
    };
    let q = key.get(key_q..k).unwrap_or_default();
    if may_have_session_id(q) {
        return false;
    }
    if memchr::memchr(b'&', q).is_some() {
        out.extend_from_slice(key.get(..key_q).unwrap_or_default());
        write_sorted_query(q, out);
    } else {
        out.extend_from_slice(key.get(..k).unwrap_or_default());
    }
    true
}

/// The length of the buffer [`surt_fast_masks`] writes its key to: the
/// longest key (no longer than its URL, at most 128 bytes) and the 16
/// bytes [`copy16`] may write past it.
const KEY: usize = 128 + 32;

/// Copy `src[from..to]` to `key` at `at`, 16 bytes at a time (bytes past
/// the end may be written: the next piece overwrites them); where the
/// copy ends in `key`, or `None` if `key` or `src` is too short.
#[inline(always)]
fn copy16(
    key: &mut [u8; KEY],
    at: usize,
    src: &[u8; LOWER],
    from: usize,
    to: usize,
) -> Option<usize> {
    let (mut a, mut f) = (at, from);
    while f < to {
        let d: &mut [u8; 16] = key.get_mut(a..a + 16)?.try_into().ok()?;
        let s: &[u8; 16] = src.get(f..f + 16)?.try_into().ok()?;
        *d = *s;
        a += 16;
        f += 16;
    }
    Some(at + to.saturating_sub(from))
}

/// The whole key at once for the usual URL: a scheme (not
/// `dns`) and `://`, a host with nothing to decode, fix or convert (a
/// dotted quad only in its plain form) and no userinfo, a port of at most
/// five digits, a path without dot or empty segments or `(`, a query
/// without session ids, and no control, space, `%`, DEL or non-ASCII byte.
/// Table-driven passes over the bytes. Returns `false`, writing nothing,
/// for any other URL (the step-by-step path takes it).
fn surt_fast(url: &[u8], out: &mut Vec<u8>) -> bool {
    let Some(rest) = fast_scheme(url) else {
        return false;
    };
    let scheme = url.get(..rest - 3).unwrap_or_default();
    let tail = url.get(rest..).unwrap_or_default();
    if scheme == b"dns" || tail.starts_with(b"http://") || tail.starts_with(b"https://") {
        return false;
    }
    // The host: no empty label, no userinfo or literal, maybe numeric.
    let Some(h) = FastHost::scan(tail) else {
        return false;
    };
    let (host, mut after) = tail.split_at(h.end);
    // The port: digits (none is no port), 0 or the scheme's default is none.
    let mut port = None;
    if let Some(p) = after.strip_prefix(b":") {
        let Some((v, n)) = fast_port(scheme, p) else {
            return false;
        };
        port = v;
        after = &p[n..];
    }
    // The path: no bad byte or `(`, no `/` or `.` after a `/`.
    let mut path_end = after.len();
    let (mut acc, mut seg, mut prev) = (0u16, 0u16, 0u16);
    for (i, &b) in after.iter().enumerate() {
        let c = s_class(b);
        if c & S_STOP != 0 {
            path_end = i;
            break;
        }
        acc |= c;
        // S_SEG where a `/` (S_SLASH, one bit below) comes before it.
        seg |= (prev << 1) & c;
        prev = c;
    }
    if acc & (S_BAD | S_PAREN) != 0 || seg & S_SEG != 0 {
        return false;
    }
    let path_upper = acc & S_UPPER != 0;
    let (path, rest) = after.split_at(path_end);
    // The query (up to `#`) and fragment: no bad byte.
    let (mut q_acc, mut q_end, mut acc) = (0u16, rest.len(), 0u16);
    for (i, &b) in rest.iter().enumerate() {
        if b == b'#' && i > 0 && q_end == rest.len() {
            q_end = i;
            q_acc = acc;
        }
        acc |= s_class(b);
    }
    if q_end == rest.len() {
        q_acc = acc;
    }
    if acc & S_BAD != 0 {
        return false;
    }
    let query = match rest.first() {
        Some(b'?') => rest.get(1..q_end).filter(|q| !q.is_empty()),
        _ => None,
    };
    let start = out.len();
    h.push_reversed(host, out);
    let query = query.map(|q| FastQuery {
        raw: q,
        upper: q_acc & S_UPPER != 0,
        maybe_session: q_acc & S_EQ != 0,
        maybe_args: q_acc & S_AMP != 0,
    });
    push_fast_tail(out, start, port, (path, path_upper), query)
}

/// The host of a fast key, from one table-driven pass.
struct FastHost {
    /// Where it ends in the text after `://`.
    end: usize,
    /// It has an upper-case letter.
    upper: bool,
    /// Where its dots are (the first 16), for writing its labels in
    /// reverse, and how many it has.
    dot_at: [usize; 16],
    dots: usize,
}

impl FastHost {
    /// The host at the start of `tail` (the text after `://`), or `None`
    /// where the fast path does not take it: an empty label, userinfo, an
    /// IP literal, a byte to decode or fix, a number that is not a plain
    /// dotted quad.
    #[inline]
    fn scan(tail: &[u8]) -> Option<FastHost> {
        let mut h = FastHost {
            end: tail.len(),
            upper: false,
            dot_at: [0; 16],
            dots: 0,
        };
        let (mut acc, mut dots, mut prev) = (0u16, 0u16, S_DOT);
        for (i, &b) in tail.iter().enumerate() {
            let c = s_class(b);
            if c & S_HOSTEND != 0 {
                h.end = i;
                break;
            }
            acc |= c;
            // S_DOT2 where a dot comes after a dot (or first).
            dots |= (prev << 1) & c;
            prev = c;
            if c & S_DOT != 0 {
                if let Some(d) = h.dot_at.get_mut(h.dots) {
                    *d = i;
                }
                h.dots += 1;
            }
        }
        let host = &tail[..h.end];
        if host.is_empty()
            || host.last() == Some(&b'.')
            || dots & S_DOT2 != 0
            || acc & (S_BAD | S_HOSTBAD) != 0
            || (acc & S_NONNUM == 0 && !plain_dotted_quad(host))
        {
            return None;
        }
        h.upper = acc & S_UPPER != 0;
        Some(h)
    }

    /// Append `host` (what [`FastHost::scan`] took) in SURT order: its
    /// labels from the last, comma-separated, lower case, `www.` dropped.
    #[inline]
    fn push_reversed(&self, host: &[u8], out: &mut Vec<u8>) {
        let start = out.len();
        let massaged = massage_host(host);
        let Some(dots) = self.dot_at.get(..self.dots) else {
            push_reversed_labels(out, massaged);
            return;
        };
        // Each label copied once; `www.` dropped by starting after its dot.
        let from = host.len() - massaged.len();
        let mut end = host.len();
        for &d in dots.iter().rev().take_while(|&&d| d >= from) {
            out.extend_from_slice(host.get(d + 1..end).unwrap_or_default());
            out.push(b',');
            end = d;
        }
        out.extend_from_slice(host.get(from..end).unwrap_or_default());
        if self.upper {
            out[start..].make_ascii_lowercase();
        }
    }
}

/// The port of a fast key: `p` is what follows the host's `:`. The port
/// (`None` for none, 0 or the scheme's default) and how many digits it
/// has; `None` where the fast path does not take it (more than five
/// digits, over 65535, or anything but `/`, `?`, `#` or the end after it).
#[inline]
fn fast_port(scheme: &[u8], p: &[u8]) -> Option<(Option<u32>, usize)> {
    let d = p
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(p.len());
    if d > 5 {
        return None;
    }
    let v = p[..d]
        .iter()
        .fold(0u32, |v, &x| v * 10 + u32::from(x - b'0'));
    let default_port = if scheme.eq_ignore_ascii_case(b"http") {
        80
    } else if scheme.eq_ignore_ascii_case(b"https") {
        443
    } else {
        0
    };
    if v > 65535 || !matches!(p.get(d), None | Some(b'/' | b'?' | b'#')) {
        return None;
    }
    Some(((v != 0 && v != default_port).then_some(v), d))
}

/// The query of a fast key, with what its bytes' classes say of it.
struct FastQuery<'a> {
    /// The query's bytes (after `?`, before `#`), not empty.
    raw: &'a [u8],
    /// It has an upper-case letter.
    upper: bool,
    /// It may hold a session id (it has a `=`).
    maybe_session: bool,
    /// It may have more than one argument (it has a `&`).
    maybe_args: bool,
}

/// The rest of a fast key after its host: the port, `)`, the path (`/`
/// for none, a trailing `/` dropped; lower-cased when `path.1` says it has
/// upper case) and the query, lower-cased, its arguments sorted. `false`,
/// with `out` cut back to `start`, where the query may hold a session id
/// (the step-by-step path takes the URL then).
#[inline]
fn push_fast_tail(
    out: &mut Vec<u8>,
    start: usize,
    port: Option<u32>,
    (path, path_upper): (&[u8], bool),
    query: Option<FastQuery<'_>>,
) -> bool {
    if let Some(n) = port {
        out.push(b':');
        out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    }
    out.push(b')');
    let path = match path {
        [] => &b"/"[..],
        [.., b'/'] if path.len() > 1 => &path[..path.len() - 1],
        _ => path,
    };
    let path_at = out.len();
    out.extend_from_slice(path);
    if path_upper {
        out[path_at..].make_ascii_lowercase();
    }
    let Some(query) = query else {
        return true;
    };
    // The query in lower case, written in place and checked there.
    let at = out.len();
    out.push(b'?');
    out.extend_from_slice(query.raw);
    if query.upper {
        out[at + 1..].make_ascii_lowercase();
    }
    let q = out.get(at + 1..).unwrap_or_default();
    if query.maybe_session && may_have_session_id(q) {
        out.truncate(start);
        return false;
    }
    if query.maybe_args && memchr::memchr(b'&', q).is_some() {
        // The query moved aside (on the stack when short) and written
        // back sorted.
        let mut stack = [0u8; 256];
        let mut heap = Vec::new();
        let q: &[u8] = match stack.get_mut(..q.len()) {
            Some(s) => {
                s.copy_from_slice(q);
                s
            }
            None => {
                heap.extend_from_slice(q);
                &heap
            }
        };
        out.truncate(at + 1);
        write_sorted_query(q, out);
    }
    true
}

/// True if step 2 leaves the host as it is but for case: nothing to
/// decode or encode, no dots to fix, not a numeric host.
fn plain_host(h: &[u8]) -> bool {
    h.iter().all(|&b| !must_escape(b))
        && h.first() != Some(&b'.')
        && h.last() != Some(&b'.')
        && !has_pair(h, b'.', b'.')
        && h.iter().any(|&b| !(b.is_ascii_digit() || b == b'.'))
}

/// True if step 2 leaves the path as it is: nothing to decode or encode,
/// and (with a host) no dot segment, no empty segment.
fn plain_path(p: &[u8], has_host: bool) -> bool {
    p.iter().all(|&b| !must_escape(b))
        && (!has_host
            || (p.first() == Some(&b'/') && !has_pair(p, b'/', b'.') && !has_pair(p, b'/', b'/')))
}

/// True if `a` is followed by `b` somewhere in `s` (short inputs: a plain
/// loop costs less than setting up a substring search).
#[inline]
fn has_pair(s: &[u8], a: u8, b: u8) -> bool {
    s.windows(2).any(|w| w[0] == a && w[1] == b)
}

/// True if the (lower-case) query may hold a session id: before an `=`, a
/// name ending in `sid` (`sid`, `phpsessid`), `sessionid` (`jsessionid`) or
/// `cfid`, or `aspsessionid` and 8 letters. Every form
/// [`strip_query_session_id`] removes ends so; a query without one is left
/// as it is (a common `id=` or `group_id=` costs no substring search).
fn may_have_session_id(q: &[u8]) -> bool {
    memchr::memchr_iter(b'=', q).any(|e| {
        let name = q.get(..e).unwrap_or_default();
        name.ends_with(b"sid")
            || name.ends_with(b"sessionid")
            || name.ends_with(b"cfid")
            || q.get(e.wrapping_sub(20)..e.wrapping_sub(8)) == Some(&b"aspsessionid"[..])
    })
}

/// The Python `bytes.strip()` whitespace.
fn py_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// The length of a leading `scheme:` scheme (without the `:`), if any.
fn scheme_len(s: &[u8]) -> Option<usize> {
    if !s.first()?.is_ascii_alphabetic() {
        return None;
    }
    let n = s
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.'))?;
    (s.get(n) == Some(&b':')).then_some(n)
}

/// Step 1 before splitting: whitespace trimmed, tabs and line breaks
/// removed, `http://` added when there is no scheme, repeated
/// `http(s)://` prefixes reduced to the last.
fn prepare(url: &[u8]) -> Result<Cow<'_, [u8]>, SurtError> {
    let start = url.iter().position(|&b| !py_space(b)).unwrap_or(url.len());
    let end = url
        .iter()
        .rposition(|&b| !py_space(b))
        .map_or(start, |i| i + 1);
    let trimmed = url.get(start..end).unwrap_or_default();
    let mut text: Cow<'_, [u8]> = if trimmed.iter().any(|&b| matches!(b, b'\t' | b'\n' | b'\r')) {
        Cow::Owned(
            trimmed
                .iter()
                .copied()
                .filter(|&b| !matches!(b, b'\t' | b'\n' | b'\r'))
                .collect(),
        )
    } else {
        Cow::Borrowed(trimmed)
    };
    if text.is_empty() {
        return Err(SurtError {
            reason: "no URL (only whitespace)",
        });
    }
    if scheme_len(&text).is_none() {
        let mut t = b"http://".to_vec();
        t.extend_from_slice(&text);
        text = Cow::Owned(t);
    }
    let mut at = 0;
    let mut last = None;
    loop {
        let rest = text.get(at..).unwrap_or_default();
        if rest.starts_with(b"http://") {
            last = Some(at);
            at += 7;
        } else if rest.starts_with(b"https://") {
            last = Some(at);
            at += 8;
        } else {
            break;
        }
    }
    match (last, text) {
        (Some(l), Cow::Borrowed(t)) if l > 0 => Ok(Cow::Borrowed(t.get(l..).unwrap_or_default())),
        (Some(l), Cow::Owned(t)) if l > 0 => {
            Ok(Cow::Owned(t.get(l..).unwrap_or_default().to_vec()))
        }
        (_, t) => Ok(t),
    }
}

/// A URL split as the Python package splits it.
struct Split<'a> {
    scheme: &'a [u8],
    host: Option<&'a [u8]>,
    port: Option<u32>,
    path: Option<&'a [u8]>,
    query: Option<&'a [u8]>,
}

/// Split the prepared text (it starts with a scheme): RFC 2396's regular
/// expression, then the host and port of the authority as Python's
/// `urllib.parse` reads them.
fn split(text: &[u8]) -> Result<Split<'_>, SurtError> {
    let n = scheme_len(text).ok_or(SurtError {
        reason: "no scheme",
    })?;
    let scheme = text.get(..n).unwrap_or_default();
    let rest = text.get(n + 1..).unwrap_or_default();
    let (netloc, rest) = match rest.strip_prefix(b"//") {
        Some(r) => {
            let e = r
                .iter()
                .position(|&b| matches!(b, b'/' | b'?' | b'#'))
                .unwrap_or(r.len());
            (
                r.get(..e).unwrap_or_default(),
                r.get(e..).unwrap_or_default(),
            )
        }
        None => (&b""[..], rest),
    };
    let rest = match memchr::memchr(b'#', rest) {
        Some(h) => rest.get(..h).unwrap_or_default(),
        None => rest,
    };
    let (path, query) = match memchr::memchr(b'?', rest) {
        Some(q) => (
            rest.get(..q).unwrap_or_default(),
            Some(rest.get(q + 1..).unwrap_or_default()),
        ),
        None => (rest, None),
    };

    let (hostname, port) = host_and_port(netloc)?;
    let mut host = (!hostname.is_empty()).then_some(hostname);
    let mut path = (!path.is_empty()).then_some(path);
    // `http:///host/path`: the host is the first path segment.
    if scheme.starts_with(b"http")
        && host.is_none()
        && let Some(p) = path
    {
        let p = &p[p.iter().position(|&b| b != b'/').unwrap_or(p.len())..];
        let (h, rest) = match memchr::memchr(b'/', p) {
            Some(s) => (&p[..s], &p[s..]),
            None => (p, &b"/"[..]),
        };
        host = Some(h);
        path = Some(rest);
    }
    Ok(Split {
        scheme,
        host,
        port,
        path,
        query: query.filter(|q| !q.is_empty()),
    })
}

/// The host and port of an authority: trailing `:` removed, the host after
/// the last `@`, an IP literal's brackets dropped; the port as a number
/// (`None` when empty or 0).
fn host_and_port(netloc: &[u8]) -> Result<(&[u8], Option<u32>), SurtError> {
    let mut netloc = netloc;
    while let Some(n) = netloc.strip_suffix(b":") {
        netloc = n;
    }
    let hostinfo = match memchr::memrchr(b'@', netloc) {
        Some(a) => netloc.get(a + 1..).unwrap_or_default(),
        None => netloc,
    };
    let after = |s: &'_ [u8], c: u8| -> Option<usize> { memchr::memchr(c, s).map(|i| i + 1) };
    let (hostname, port) = match after(hostinfo, b'[') {
        Some(o) => {
            let br = hostinfo.get(o..).unwrap_or_default();
            let (h, tail) = match memchr::memchr(b']', br) {
                Some(c) => (
                    br.get(..c).unwrap_or_default(),
                    br.get(c + 1..).unwrap_or_default(),
                ),
                None => (br, &b""[..]),
            };
            let port = match after(tail, b':') {
                Some(c) => tail.get(c..).unwrap_or_default(),
                None => b"",
            };
            (h, port)
        }
        None => match memchr::memchr(b':', hostinfo) {
            Some(c) => (
                hostinfo.get(..c).unwrap_or_default(),
                hostinfo.get(c + 1..).unwrap_or_default(),
            ),
            None => (hostinfo, &b""[..]),
        },
    };
    Ok((hostname, parse_port(port)?))
}

/// A port's digits as a number (`None` when empty or 0); not digits, or
/// above 65535, is an error.
fn parse_port(port: &[u8]) -> Result<Option<u32>, SurtError> {
    if port.is_empty() {
        return Ok(None);
    }
    if !port.iter().all(u8::is_ascii_digit) {
        return Err(SurtError {
            reason: "port is not a number",
        });
    }
    let mut v: u32 = 0;
    for &d in port {
        v = v.saturating_mul(10).saturating_add(u32::from(d - b'0'));
    }
    if v > 65535 {
        return Err(SurtError {
            reason: "port out of range 0-65535",
        });
    }
    Ok((v != 0).then_some(v))
}

/// The host of step 2: decoded, IDNA for non-ASCII, `..` to `.`, dots
/// at the ends removed, numeric forms to dotted-quad IPv4, encoded once.
fn canon_host(h: &[u8]) -> Cow<'_, [u8]> {
    let mut h = unescape_repeatedly(h);
    if !h.is_ascii()
        && let Some(a) = idna_2003ish(&h)
    {
        h = Cow::Owned(a);
    }
    let mut fixed = Vec::with_capacity(h.len());
    let mut i = 0;
    while let Some(&b) = h.get(i) {
        fixed.push(b);
        i += if b == b'.' && h.get(i + 1) == Some(&b'.') {
            2
        } else {
            1
        };
    }
    let s = fixed.iter().position(|&b| b != b'.').unwrap_or(fixed.len());
    let e = fixed.iter().rposition(|&b| b != b'.').map_or(s, |i| i + 1);
    let trimmed = fixed.get(s..e).unwrap_or_default();
    if let Some(ip) = attempt_ip(trimmed) {
        return Cow::Owned(ip);
    }
    Cow::Owned(escape_once(&trimmed.to_ascii_lowercase()).into_owned())
}

/// A non-ASCII host to ASCII: invalid UTF-8 dropped, then UTS #46 with no
/// ASCII deny list; `None` (the host stays as it is) where that fails or
/// leaves an empty or over-long label, as Python's `idna` codec refuses.
fn idna_2003ish(h: &[u8]) -> Option<Vec<u8>> {
    let mut valid = String::with_capacity(h.len());
    for chunk in h.utf8_chunks() {
        valid.push_str(chunk.valid());
    }
    let a = Uts46::new()
        .to_ascii(
            valid.as_bytes(),
            AsciiDenyList::EMPTY,
            Hyphens::Allow,
            DnsLength::Ignore,
        )
        .ok()?;
    let body = a.strip_suffix('.').unwrap_or(&a);
    if body.split('.').any(|l| l.is_empty() || l.len() > 63) {
        return None;
    }
    Some(a.into_owned().into_bytes())
}

/// A host of digits as an IPv4 address: one number (taken modulo 2^32),
/// or 2 to 4 dotted parts in decimal (the first not starting with `0`) or
/// octal (the first starting with `0`), read as `inet_aton` reads them.
fn attempt_ip(h: &[u8]) -> Option<Vec<u8>> {
    if h.is_empty() {
        return None;
    }
    if h.iter().all(u8::is_ascii_digit) {
        let v = h.iter().fold(0u32, |v, &d| {
            v.wrapping_mul(10).wrapping_add(u32::from(d - b'0'))
        });
        return Some(dotted(v));
    }
    let parts: Vec<&[u8]> = h.split(|&b| b == b'.').collect();
    if parts.len() > 4 || parts.iter().any(|p| p.is_empty()) {
        return None;
    }
    let first = parts.first()?;
    let octal_first = first.first() == Some(&b'0');
    let shape_ok = if octal_first {
        parts
            .iter()
            .all(|p| p.iter().all(|b| (b'0'..=b'7').contains(b)))
    } else {
        parts.iter().all(|p| p.iter().all(u8::is_ascii_digit))
    };
    if !shape_ok {
        return None;
    }
    // inet_aton: a part with a leading 0 is octal.
    let mut vals = Vec::with_capacity(4);
    for p in &parts {
        let (digits, radix) = match p {
            [b'0', rest @ ..] if !rest.is_empty() => (rest, 8u64),
            _ => (&p[..], 10u64),
        };
        let mut v: u64 = 0;
        for &d in digits {
            let d = u64::from(d - b'0');
            if d >= radix {
                return None;
            }
            v = v.checked_mul(radix)?.checked_add(d)?;
            if v > u64::from(u32::MAX) {
                return None;
            }
        }
        vals.push(v);
    }
    let (last, init) = vals.split_last()?;
    if init.iter().any(|&v| v > 255) {
        return None;
    }
    let room = 8 * (4 - init.len() as u32);
    if room < 32 && *last >> room != 0 {
        return None;
    }
    let mut v: u64 = *last;
    for (i, &p) in init.iter().enumerate() {
        v |= p << (24 - 8 * i as u32);
    }
    Some(dotted(u32::try_from(v).ok()?))
}

fn dotted(v: u32) -> Vec<u8> {
    let [a, b, c, d] = v.to_be_bytes();
    format!("{a}.{b}.{c}.{d}").into_bytes()
}

#[inline]
fn hexval(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// `%XX` decoded until none is left (`%252541` is `A`), in one pass: a
/// decoded byte may complete an escape with the bytes before it, so the
/// output is a stack and each push checks its top three bytes. The result
/// is the fixed point repeated decoding reaches (escapes cannot overlap,
/// so the order of decoding does not matter), in linear time.
fn unescape_repeatedly(s: &[u8]) -> Cow<'_, [u8]> {
    if memchr::memchr(b'%', s).is_none() {
        return Cow::Borrowed(s);
    }
    let mut out: Vec<u8> = Vec::with_capacity(s.len());
    for &b in s {
        out.push(b);
        while let [.., b'%', h, l] = out[..] {
            match (hexval(h), hexval(l)) {
                (Some(h), Some(l)) => {
                    out.truncate(out.len() - 3);
                    out.push(h << 4 | l);
                }
                _ => break,
            }
        }
    }
    Cow::Owned(out)
}

/// Bytes [`escape_once`] encodes: controls, space, `#`, `%`, DEL and
/// non-ASCII.
fn must_escape(b: u8) -> bool {
    b <= b' ' || b == b'#' || b == b'%' || b >= 0x7f
}

/// Percent-encode the bytes of [`must_escape`] (upper-case hex).
fn escape_once(s: &[u8]) -> Cow<'_, [u8]> {
    if !s.iter().any(|&b| must_escape(b)) {
        return Cow::Borrowed(s);
    }
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = Vec::with_capacity(s.len() + 8);
    for &b in s {
        if must_escape(b) {
            out.extend_from_slice(&[b'%', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
        } else {
            out.push(b);
        }
    }
    Cow::Owned(out)
}

/// Dot segments and empty segments removed (a trailing `/` kept); a `..`
/// above the root is kept.
fn normalize_path(path: &[u8]) -> Vec<u8> {
    if path.is_empty() {
        return b"/".to_vec();
    }
    let mut kept: Vec<&[u8]> = Vec::new();
    for seg in path.split(|&b| b == b'/').skip(1) {
        match seg {
            b"." => {}
            b".." => {
                if kept.pop().is_none() {
                    kept.push(seg);
                }
            }
            _ => kept.push(seg),
        }
    }
    let mut out = Vec::with_capacity(path.len());
    out.push(b'/');
    if let Some((last, init)) = kept.split_last() {
        for seg in init.iter().filter(|s| !s.is_empty()) {
            out.extend_from_slice(seg);
            out.push(b'/');
        }
        out.extend_from_slice(last);
    }
    out
}

/// `www.`, `www2.`, ... at the start removed (in any case: the host may
/// not be in lower case yet).
fn massage_host(h: &[u8]) -> &[u8] {
    // `| 0x20` is `w` for `w` and `W` only.
    if let [a, b, c, rest @ ..] = h
        && (a | 0x20) == b'w'
        && (b | 0x20) == b'w'
        && (c | 0x20) == b'w'
    {
        let d = rest
            .iter()
            .position(|b| !b.is_ascii_digit())
            .unwrap_or(rest.len());
        if rest.get(d) == Some(&b'.') {
            return rest.get(d + 1..).unwrap_or_default();
        }
    }
    h
}

/// The session-id forms of the query (already in lower case): the matcher
/// gives the end of the id starting at a position, or `None`.
type IdMatcher = fn(&[u8], usize) -> Option<usize>;

fn alnum_run(q: &[u8], at: usize, n: usize) -> Option<usize> {
    let run = q.get(at..at + n)?;
    run.iter().all(u8::is_ascii_alphanumeric).then_some(at + n)
}

fn alpha_run(q: &[u8], at: usize, n: usize) -> Option<usize> {
    let run = q.get(at..at + n)?;
    run.iter().all(u8::is_ascii_alphabetic).then_some(at + n)
}

fn jsessionid(q: &[u8], at: usize) -> Option<usize> {
    q.get(at..)?.starts_with(b"jsessionid=").then_some(())?;
    alnum_run(q, at + 11, 32)
}

fn phpsessid(q: &[u8], at: usize) -> Option<usize> {
    q.get(at..)?.starts_with(b"phpsessid=").then_some(())?;
    alnum_run(q, at + 10, 32)
}

fn sid(q: &[u8], at: usize) -> Option<usize> {
    q.get(at..)?.starts_with(b"sid=").then_some(())?;
    alnum_run(q, at + 4, 32)
}

fn aspsessionid(q: &[u8], at: usize) -> Option<usize> {
    q.get(at..)?.starts_with(b"aspsessionid").then_some(())?;
    let e = alpha_run(q, at + 12, 8)?;
    (q.get(e) == Some(&b'=')).then_some(())?;
    alpha_run(q, e + 1, 24)
}

fn cfid(q: &[u8], at: usize) -> Option<usize> {
    q.get(at..)?.starts_with(b"cfid=").then_some(())?;
    let v = at + 5;
    let e = v + q
        .get(v..)?
        .iter()
        .position(|&b| b == b'&')
        .unwrap_or(q.len() - v);
    if e == v {
        return None;
    }
    q.get(e..)?.starts_with(b"&cftoken=").then_some(())?;
    let v = e + 9;
    let e = v + q
        .get(v..)?
        .iter()
        .position(|&b| b == b'&')
        .unwrap_or(q.len() - v);
    (e > v).then_some(e)
}

/// Remove the session ids from a query, each form in turn: the last
/// occurrence followed by `&` or the end, and that `&`.
fn strip_query_session_id(mut q: Vec<u8>) -> Vec<u8> {
    if !may_have_session_id(&q) {
        return q;
    }
    let forms: [(&[u8], IdMatcher); 5] = [
        (b"jsessionid=", jsessionid),
        (b"phpsessid=", phpsessid),
        (b"sid=", sid),
        (b"aspsessionid", aspsessionid),
        (b"cfid=", cfid),
    ];
    for (lit, m) in forms {
        let mut hit = None;
        for at in memmem::rfind_iter(&q, lit) {
            if let Some(end) = m(&q, at)
                && (end == q.len() || q.get(end) == Some(&b'&'))
            {
                hit = Some((at, end));
                break;
            }
        }
        if let Some((at, end)) = hit {
            let mut s = q.get(..at).unwrap_or_default().to_vec();
            if let Some(rest) = q.get(end + 1..) {
                s.extend_from_slice(rest);
            }
            q = s;
        }
    }
    q
}

/// The ASP.NET cookieless session forms of a path (already in lower
/// case): `/(s(24 chars))/x.aspx` and `/(24 chars)/x.aspx`, the last one
/// before a `.aspx` page.
fn strip_path_session_id(path: Vec<u8>) -> Vec<u8> {
    if memchr::memchr(b'(', &path).is_none() {
        return path;
    }
    let path = strip_path_form(path, multi_form);
    strip_path_form(path, single_form)
}

/// `(` then one or more `x(` 24 chars `)`, then `)/`: the end, or `None`.
fn multi_form(p: &[u8], at: usize) -> Option<usize> {
    (p.get(at) == Some(&b'(')).then_some(())?;
    let mut i = at + 1;
    let mut reps = 0;
    while let Some(&c) = p.get(i) {
        if c.is_ascii_alphabetic()
            && p.get(i + 1) == Some(&b'(')
            && alnum_run(p, i + 2, 24).is_some()
            && p.get(i + 26) == Some(&b')')
        {
            reps += 1;
            i += 27;
        } else {
            break;
        }
    }
    (reps > 0 && p.get(i..)?.starts_with(b")/")).then_some(i + 2)
}

/// `(` 24 chars `)/`: the end, or `None`.
fn single_form(p: &[u8], at: usize) -> Option<usize> {
    (p.get(at) == Some(&b'(')).then_some(())?;
    alnum_run(p, at + 1, 24)?;
    p.get(at + 25..)?.starts_with(b")/").then_some(at + 27)
}

/// One path session form, removed at the last `/` after which it matches
/// and a `.aspx` page follows (before any `?`, after at least one byte).
fn strip_path_form(path: Vec<u8>, form: fn(&[u8], usize) -> Option<usize>) -> Vec<u8> {
    for slash in memchr::memrchr_iter(b'/', &path) {
        let Some(end) = form(&path, slash + 1) else {
            continue;
        };
        let tail = path.get(end..).unwrap_or_default();
        let limit = memchr::memchr(b'?', tail).unwrap_or(tail.len());
        let aspx = tail
            .get(1..)
            .and_then(|t| memmem::find(t, b".aspx"))
            .map(|j| j + 1);
        if aspx.is_some_and(|j| j <= limit) {
            let mut out = path.get(..=slash).unwrap_or_default().to_vec();
            out.extend_from_slice(tail);
            return out;
        }
    }
    path
}

/// Append the query's `&`-separated arguments sorted by name, then value
/// (an argument without `=` before one with it).
fn write_sorted_query(q: &[u8], out: &mut Vec<u8>) {
    if q.len() <= 1 || memchr::memchr(b'&', q).is_none() {
        out.extend_from_slice(q);
        return;
    }
    // Up to 32 arguments sorted on the stack, without allocating.
    let mut ranges = [(0u32, 0u32); 32];
    let mut n = 0;
    let mut at = 0;
    for e in memchr::memchr_iter(b'&', q).chain(std::iter::once(q.len())) {
        if let Some(r) = ranges.get_mut(n) {
            *r = (at as u32, e as u32);
        }
        n += 1;
        at = e + 1;
    }
    if let Some(ranges) = ranges.get_mut(..n) {
        let arg = |&(a, e): &(u32, u32)| {
            let a = q.get(a as usize..e as usize).unwrap_or_default();
            match memchr::memchr(b'=', a) {
                Some(e) => (&a[..e], Some(&a[e + 1..])),
                None => (a, None),
            }
        };
        ranges.sort_unstable_by(|x, y| arg(x).cmp(&arg(y)));
        for (i, r) in ranges.iter().enumerate() {
            if i > 0 {
                out.push(b'&');
            }
            out.extend_from_slice(q.get(r.0 as usize..r.1 as usize).unwrap_or_default());
        }
        return;
    }
    let mut args: Vec<(&[u8], Option<&[u8]>)> = q
        .split(|&b| b == b'&')
        .map(|a| match memchr::memchr(b'=', a) {
            Some(e) => (&a[..e], Some(&a[e + 1..])),
            None => (a, None),
        })
        .collect();
    args.sort();
    for (i, (k, v)) in args.iter().enumerate() {
        if i > 0 {
            out.push(b'&');
        }
        out.extend_from_slice(k);
        if let Some(v) = v {
            out.push(b'=');
            out.extend_from_slice(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The steps in the Python package's order, with no fast path: what
    /// [`surt_into`] must equal.
    fn reference(url: &[u8]) -> Result<Vec<u8>, SurtError> {
        if url.is_empty() {
            return Ok(b"-".to_vec());
        }
        if url.starts_with(b"filedesc") {
            return Ok(url.to_vec());
        }
        let text = prepare(url)?;
        let p = split(&text)?;
        let host = match p.host {
            Some(h) if !h.is_empty() => Some(canon_host(h).into_owned()),
            other => other.map(<[u8]>::to_vec),
        };
        let has_host = host.as_ref().is_some_and(|h| !h.is_empty());
        let path = p.path.map(|raw| {
            let un = unescape_repeatedly(raw);
            let path = if has_host {
                normalize_path(&un)
            } else {
                un.into_owned()
            };
            let mut path = escape_once(&path).into_owned();
            if !path.is_empty() {
                path.make_ascii_lowercase();
                path = strip_path_session_id(path);
                if path.len() > 1 && path.last() == Some(&b'/') {
                    path.pop();
                }
            }
            path
        });
        let path = match (path, has_host) {
            (None, true) => Some(b"/".to_vec()),
            (p, _) => p,
        };
        let query = p.query.filter(|q| !q.is_empty()).and_then(|q| {
            let mut q = escape_once(&unescape_repeatedly(q)).into_owned();
            q.make_ascii_lowercase();
            let q = strip_query_session_id(q);
            (!q.is_empty()).then_some(q)
        });
        let default_port = match p.scheme.to_ascii_lowercase().as_slice() {
            b"http" => 80,
            b"https" => 443,
            _ => 0,
        };
        let port = p.port.filter(|&n| n != default_port);
        let mut out = Vec::new();
        match host.filter(|h| !h.is_empty()) {
            Some(h) => {
                let mut h = h.to_ascii_lowercase();
                if p.scheme != b"dns" {
                    h = massage_host(&h).to_vec();
                }
                let labels: Vec<&[u8]> = h.rsplit(|&b| b == b'.').collect();
                out.extend_from_slice(&labels.join(&b","[..]));
                if let Some(n) = port {
                    out.extend_from_slice(format!(":{n}").as_bytes());
                }
                out.push(b')');
            }
            None => {
                out.extend_from_slice(p.scheme);
                out.push(b':');
            }
        }
        match &path {
            Some(p) if !p.is_empty() => out.extend_from_slice(p),
            _ if query.is_some() => out.push(b'/'),
            _ => {}
        }
        if let Some(q) = &query {
            out.push(b'?');
            write_sorted_query(q, &mut out);
        }
        Ok(out)
    }

    /// Query arguments sorted as the Python package sorts them (pairs of
    /// name and optional value), by collecting and sorting.
    fn sorted_query_reference(q: &[u8]) -> Vec<u8> {
        if q.len() <= 1 {
            return q.to_vec();
        }
        let mut args: Vec<(&[u8], Option<&[u8]>)> = q
            .split(|&b| b == b'&')
            .map(|a| match a.iter().position(|&b| b == b'=') {
                Some(e) => (&a[..e], Some(&a[e + 1..])),
                None => (a, None),
            })
            .collect();
        args.sort();
        let mut out = Vec::new();
        for (i, (k, v)) in args.iter().enumerate() {
            if i > 0 {
                out.push(b'&');
            }
            out.extend_from_slice(k);
            if let Some(v) = v {
                out.push(b'=');
                out.extend_from_slice(v);
            }
        }
        out
    }

    #[test]
    fn sorted_queries_of_every_size() {
        for n in [2, 31, 32, 33, 100] {
            let q: Vec<String> = (0..n).rev().map(|i| format!("a{}={}", i % 7, i)).collect();
            let q = q.join("&");
            let mut out = Vec::new();
            write_sorted_query(q.as_bytes(), &mut out);
            assert_eq!(out, sorted_query_reference(q.as_bytes()), "{n}");
            // Through the fast path too (a long query: moved aside on the heap).
            let url = format!("http://example.com/p?{q}");
            let mut got = Vec::new();
            surt_into(url.as_bytes(), &mut got).unwrap();
            let mut want = b"com,example)/p?".to_vec();
            want.extend_from_slice(&sorted_query_reference(q.as_bytes()));
            assert_eq!(got, want, "{n}");
        }
    }

    proptest! {
        #[test]
        fn sorted_queries_match_the_reference(q in "[ab=&]{0,80}|([a-c]{0,2}(=[a-c]{0,2})?&){30,40}") {
            let mut out = Vec::new();
            write_sorted_query(q.as_bytes(), &mut out);
            prop_assert_eq!(out, sorted_query_reference(q.as_bytes()));
        }

        #[test]
        fn fast_paths_match_the_reference(
            scheme in "(http|https|HTTP|Https|dns|DNS|Dns|ftp|FTP|mailto|git\\+ssh|gs|f5https|fBhttp|Aqhttps|a.b-c|)",
            sep in "(://|:|:///|)",
            www in "(www\\.|WWW\\.|Www7\\.|)",
            rest in "[a-zA-Z0-9.%()/?&=#:@_~ ;-]{0,48}|[a-zA-Z0-9./?&=#:_-]{40,130}",
        ) {
            let url = format!("{scheme}{sep}{www}{rest}");
            fast_paths_agree(url.as_bytes());
            let mut got = Vec::new();
            let r = surt_into(url.as_bytes(), &mut got).map(|()| got);
            prop_assert_eq!(r, reference(url.as_bytes()), "{:?}", url);
        }

        #[test]
        fn numeric_hosts_and_ports_match_the_reference(
            scheme in "(http|https|HTTP|Https|ftp|gs)://",
            host in "[0-9]{1,4}(\\.[0-9]{1,4}){0,4}",
            port in "(|:|:0|:80|:443|:0080|:8080|:65536|:123456|:8x)",
            rest in "(|/|/a/|\\?b=1&a=2|#f)",
        ) {
            let url = format!("{scheme}{host}{port}{rest}");
            fast_paths_agree(url.as_bytes());
            let mut got = Vec::new();
            let r = surt_into(url.as_bytes(), &mut got).map(|()| got);
            prop_assert_eq!(r, reference(url.as_bytes()), "{:?}", url);
        }

        #[test]
        fn any_bytes_match_the_reference(b in proptest::collection::vec(any::<u8>(), 0..140)) {
            fast_paths_agree(&b);
            let mut got = Vec::new();
            let r = surt_into(&b, &mut got).map(|()| got);
            prop_assert_eq!(r, reference(&b));
        }
    }

    /// The two fast paths take the same URLs and give the same keys.
    fn fast_paths_agree(url: &[u8]) {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let by_loop = surt_fast(url, &mut a);
        let mut lower = [0; LOWER];
        if let Some(m) = crate::masks::scalar::<u64>(url, &mut lower) {
            let by_masks = surt_fast_masks(url, &m, &lower, &mut b);
            assert_eq!(
                (by_loop, &a),
                (by_masks, &b),
                "{:?}",
                String::from_utf8_lossy(url)
            );
        }
        b.clear();
        if let Some(m) = crate::masks::scalar::<u128>(url, &mut lower) {
            let by_masks = surt_fast_masks(url, &m, &lower, &mut b);
            assert_eq!(
                (by_loop, &a),
                (by_masks, &b),
                "{:?}",
                String::from_utf8_lossy(url)
            );
        }
    }

    /// Every URL of a real list, and each session-id form in queries of
    /// every shape, keyed as the step-by-step reference keys them.
    #[test]
    fn real_urls_and_session_queries_match_the_reference() {
        let list = include_str!("../../../datasets/urls.txt");
        let id32 = "0123456789abcdefABCDEF0123456789";
        let forms = [
            format!("jsessionid={id32}"),
            format!("phpsessid={id32}"),
            format!("sid={id32}"),
            format!("xsid={id32}"),
            "aspsessionidABCDEFGH=ABCDEFGHIJKLMNOPQRSTUVWX".to_string(),
            "cfid=12&cftoken=34".to_string(),
            "id=5".to_string(),
            "group_id=7".to_string(),
        ];
        let mut urls: Vec<String> = list.lines().map(str::to_owned).collect();
        for f in &forms {
            for shape in [
                "?{f}",
                "?b=1&{f}",
                "?{f}&a=2",
                "?Z=1&{f}&a=2#x",
                "?{f}#frag",
            ] {
                urls.push(format!(
                    "http://www.Example.com/p{}",
                    shape.replace("{f}", f)
                ));
            }
        }
        // Lengths about the bounds of the masks' chunks and words (16, 64,
        // 128 bytes) and of the key's 16-byte copies: upper case, `?` in
        // the query, a fragment after it.
        let plain: Vec<String> = urls
            .iter()
            .filter(|u| u.contains("://") && !u.contains(['?', '#']) && u.len() < 60)
            .take(300)
            .cloned()
            .collect();
        for u in &plain {
            for len in [
                15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 79, 80, 81, 127, 128, 129,
            ] {
                let Some(pad) = usize::checked_sub(len, u.len() + 1) else {
                    continue;
                };
                urls.push(format!("{u}/{}", "A".repeat(pad)));
                urls.push(format!(
                    "{u}?{}",
                    "b=1&a".repeat(pad / 5 + 1)[..pad].to_owned()
                ));
                urls.push(format!(
                    "{u}?{}",
                    "Q?x#".repeat(pad / 4 + 1)[..pad].to_owned()
                ));
                urls.push(format!(
                    "{}/{}/",
                    u.to_uppercase(),
                    "b".repeat(pad.saturating_sub(1))
                ));
            }
        }
        for len in 1..=20 {
            urls.push(format!("http://{}", "a".repeat(len)));
            urls.push(format!("HTTP://{}/?Z=1&a", "www.A".repeat(len)));
        }
        for u in &urls {
            fast_paths_agree(u.as_bytes());
            let mut got = Vec::new();
            let r = surt_into(u.as_bytes(), &mut got).map(|()| got);
            assert_eq!(r, reference(u.as_bytes()), "{u}");
        }
    }

    fn s(u: &str) -> String {
        surt(u.as_bytes()).unwrap()
    }

    #[test]
    fn python_package_examples() {
        // The cases of the Python package's own documentation and tests.
        assert_eq!(s("http://archive.org/goo/"), "org,archive)/goo");
        assert_eq!(s("http://archive.org/goo/?"), "org,archive)/goo");
        assert_eq!(s("http://archive.org/goo/?b&a"), "org,archive)/goo?a&b");
        assert_eq!(
            s("http://archive.org/goo/?a=2&b&a=1"),
            "org,archive)/goo?a=1&a=2&b"
        );
        assert_eq!(s("http://www.rarara.com/"), "com,rarara)/");
        assert_eq!(s("dns:archive.org"), "dns:archive.org");
        assert_eq!(
            s("whois://whois.isoc.org.il/shaveh.co.il"),
            "il,org,isoc,whois)/shaveh.co.il"
        );
        assert_eq!(s("http:////////////////www.vikings.com"), "com,vikings)/");
        assert_eq!(s("http://https://order.1and1.com"), "com,1and1,order)/");
        assert_eq!(s(""), "-");
        assert_eq!(s("filedesc:foo.arc.gz"), "filedesc:foo.arc.gz");
    }

    #[test]
    fn unescape_reaches_the_fixed_point() {
        assert_eq!(&*unescape_repeatedly(b"%252541"), b"A");
        assert_eq!(&*unescape_repeatedly(b"%%41"), b"%A");
        assert_eq!(&*unescape_repeatedly(b"%%2541"), b"%A");
        assert_eq!(&*unescape_repeatedly(b"%zz%4"), b"%zz%4");
        // Linear time on deep nesting.
        let deep = format!("%{}41", "25".repeat(200_000));
        assert_eq!(&*unescape_repeatedly(deep.as_bytes()), b"A");
    }

    #[test]
    fn numeric_hosts() {
        for (h, ip) in [
            ("1.2.3", Some("1.2.0.3")),
            ("010.1.1.1", Some("8.1.1.1")),
            ("1.010.1.1", Some("1.8.1.1")),
            ("1.09.1.1", None),
            ("999.1.1.1", None),
            ("1.2.65535", Some("1.2.255.255")),
            ("0.1", Some("0.0.0.1")),
            ("4294967296", Some("0.0.0.0")),
            ("012", Some("0.0.0.12")),
            ("08", Some("0.0.0.8")),
        ] {
            let got = attempt_ip(h.as_bytes()).map(|v| String::from_utf8(v).unwrap());
            assert_eq!(got.as_deref(), ip, "{h}");
        }
    }

    #[test]
    fn session_ids() {
        let id = "0123456789abcdef0123456789abcdef";
        assert_eq!(s(&format!("http://a.org/x?jsessionid={id}")), "org,a)/x");
        assert_eq!(
            s(&format!("http://a.org/x?a=1&phpsessid={id}&b=2")),
            "org,a)/x?a=1&b=2"
        );
        assert_eq!(s(&format!("http://a.org/x?a=1&sid={id}")), "org,a)/x?&a=1");
        assert_eq!(s("http://a.org/x?cfid=12&cftoken=34&z=1"), "org,a)/x?z=1");
        let asp = "aspsessionidabcdefgh=abcdefghijklmnopqrstuvwx";
        assert_eq!(s(&format!("http://a.org/x?{asp}")), "org,a)/x");
        let cookieless = "(s(abcdefghijklmnopqrstuvwx))";
        assert_eq!(
            s(&format!("http://a.org/p/{cookieless}/page.aspx")),
            "org,a)/p/page.aspx"
        );
        assert_eq!(
            s("http://a.org/p/(abcdefghijklmnopqrstuvwx)/page.aspx?q"),
            "org,a)/p/page.aspx?q"
        );
        // Not before an .aspx page: kept.
        assert_eq!(
            s(&format!("http://a.org/p/{cookieless}/page.html")),
            format!("org,a)/p/{cookieless}/page.html")
        );
    }
}
