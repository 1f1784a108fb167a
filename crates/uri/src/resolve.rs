//! Reference resolution, RFC 3986 section 5.2, strict (a reference with a
//! scheme is never treated as relative), with the abnormal results of 5.4.2
//! (`../../../g` against `http://a/b/c/d;p?q` is `http://a/g`).
//!
//! Two choices the RFC leaves open, made here as iri-string and fluent-uri
//! make them:
//! - `%2E` and `%2e` count as `.` when recognising dot-segments (RFC 3986
//!   2.3 and 6.2.2.2 make them equivalent); other segments keep their encoding.
//! - A target without authority whose path would start with `//` gets `/.`
//!   in front of the path (`foo:/` + `.//@@` is `foo:/.//@@`), so that it
//!   does not re-parse with an authority.
//!
//! - A rootless path (no authority, no leading `/`: `foo:a/b` + `../c`)
//!   stays rootless: `foo:c`, as uriparser's FourSuite expects, where 5.2.4
//!   taken literally gives `foo:/c`.
//!
//! A fragment in the base is ignored (RFC 3986 5.1).

use super::{Error, ErrorKind, UriRef};

/// `.` (1), `..` (2) or neither (0), with `%2E`/`%2e` counted as `.`.
pub(crate) fn dot_kind(seg: &[u8]) -> u8 {
    let is_dot = |s: &[u8]| s == b"." || s.eq_ignore_ascii_case(b"%2e");
    match seg.len() {
        1 | 3 if is_dot(seg) => 1,
        2 => u8::from(seg == b"..") * 2,
        4 | 6 => {
            let (a, b) = if seg.first() == Some(&b'.') {
                seg.split_at(1)
            } else {
                seg.split_at(3)
            };
            if is_dot(a) && is_dot(b) { 2 } else { 0 }
        }
        _ => 0,
    }
}

/// RFC 3986 5.2.4 `remove_dot_segments`, appending the result to `out`.
///
/// ```
/// let mut out = Vec::new();
/// urlsift_uri::remove_dot_segments(b"/a/b/c/./../../g", &mut out);
/// assert_eq!(out, b"/a/g");
/// out.clear();
/// urlsift_uri::remove_dot_segments(b"mid/content=5/../6", &mut out);
/// assert_eq!(out, b"mid/6");
/// ```
pub fn remove_dot_segments(input: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(input);
    remove_dot_segments_in_place(out, start);
}

/// [`remove_dot_segments`] on `buf[start..]`, in place: the output is never
/// longer than the input, so the write cursor never passes the read cursor.
/// Linear: each `..` cuts back to the previous `/`, over bytes it removes.
pub(crate) fn remove_dot_segments_in_place(buf: &mut Vec<u8>, start: usize) {
    let n = buf.len();
    let (mut r, mut w) = (start, start);
    while r < n {
        let slash = buf.get(r) == Some(&b'/');
        let s = if slash { r + 1 } else { r };
        let e = memchr::memchr(b'/', buf.get(s..n).unwrap_or_default()).map_or(n, |p| s + p);
        let dot = dot_kind(buf.get(s..e).unwrap_or_default());
        if !slash {
            // Only at the start of the input (rules A, D and the first E).
            if dot != 0 {
                r = if e < n { e + 1 } else { n };
            } else {
                buf.copy_within(s..e, w);
                w += e - s;
                r = e;
            }
            continue;
        }
        if dot == 2 {
            w = memchr::memrchr(b'/', buf.get(start..w).unwrap_or_default())
                .map_or(start, |p| start + p);
        }
        if dot == 0 {
            buf.copy_within(r..e, w);
            w += e - r;
        } else if e == n {
            if let Some(x) = buf.get_mut(w) {
                *x = b'/';
            }
            w += 1;
        }
        r = e;
    }
    buf.truncate(w);
}

/// Resolve `reference` against `base` (RFC 3986 5.2.2, 5.2.3, 5.2.4, 5.3).
///
/// Both must be valid RFC 3986 references and `base` must have a scheme;
/// an error in `base` is reported with its offset in `base` (parse the base
/// first with [`UriRef::parse`] if you need to tell the two apart).
///
/// ```
/// use urlsift_uri::resolve;
/// let base = b"http://a/b/c/d;p?q";
/// assert_eq!(resolve(base, b"g;x?y#s").unwrap(), "http://a/b/c/g;x?y#s");
/// assert_eq!(resolve(base, b"../../../g").unwrap(), "http://a/g");
/// assert_eq!(resolve(base, b"//g").unwrap(), "http://g");
/// ```
pub fn resolve(base: &[u8], reference: &[u8]) -> Result<String, Error> {
    let b = UriRef::parse(base)?;
    let r = UriRef::parse(reference)?;
    resolve_parsed(&b, &r)
}

/// [`resolve`] for references already parsed.
pub fn resolve_parsed(b: &UriRef<'_>, r: &UriRef<'_>) -> Result<String, Error> {
    let Some(bscheme) = b.scheme() else {
        return Err(Error {
            index: 0,
            kind: ErrorKind::BaseNotAbsolute,
        });
    };
    let mut out: Vec<u8> = Vec::with_capacity(b.as_bytes().len() + r.as_bytes().len());
    let (scheme, authority, query);
    let path_start;
    if let Some(s) = r.scheme() {
        scheme = s;
        authority = r.authority();
        query = r.query();
        push_head(&mut out, scheme, authority);
        path_start = out.len();
        dots(r.path(), authority.is_some(), &mut out);
    } else {
        scheme = bscheme;
        if r.authority().is_some() {
            authority = r.authority();
            query = r.query();
            push_head(&mut out, scheme, authority);
            path_start = out.len();
            remove_dot_segments(r.path(), &mut out);
        } else {
            authority = b.authority();
            push_head(&mut out, scheme, authority);
            path_start = out.len();
            let rp = r.path();
            if rp.is_empty() {
                out.extend_from_slice(b.path());
                query = r.query().or(b.query());
            } else {
                query = r.query();
                if rp.first() == Some(&b'/') {
                    remove_dot_segments(rp, &mut out);
                } else {
                    // 5.2.3 merge, written straight into `out`, then dot-segments.
                    let bp = b.path();
                    if authority.is_some() && bp.is_empty() {
                        out.push(b'/');
                    } else if let Some(p) = memchr::memrchr(b'/', bp) {
                        out.extend_from_slice(bp.get(..=p).unwrap_or_default());
                    }
                    out.extend_from_slice(rp);
                    dots_in_place(&mut out, path_start, authority.is_some());
                }
            }
        }
    }
    if authority.is_none() && out.get(path_start..path_start + 2) == Some(b"//") {
        out.splice(path_start..path_start, *b"/.");
    }
    if let Some(q) = query {
        out.push(b'?');
        out.extend_from_slice(q);
    }
    if let Some(f) = r.fragment() {
        out.push(b'#');
        out.extend_from_slice(f);
    }
    Ok(String::from_utf8(out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

/// The reference that [`resolve`]s against `base` to `target`, the inverse of
/// resolution (uriparser's `uriRemoveBaseUri`): a different scheme gives the
/// target itself, a different authority a network-path reference, and
/// otherwise a relative path with `../` as needed. With `domain_root`, a
/// target whose first path segment differs from the base's gets an absolute
/// path instead of a `../` chain. Both must be valid absolute URIs.
///
/// ```
/// use urlsift_uri::relativize;
/// assert_eq!(relativize(b"s://ex/a/d/c", b"s://ex/a/b/c", false).unwrap(), "../b/c");
/// assert_eq!(relativize(b"s://ex/d/e/f", b"s://ex/a/b/c", true).unwrap(), "/a/b/c");
/// ```
pub fn relativize(base: &[u8], target: &[u8], domain_root: bool) -> Result<String, Error> {
    let b = UriRef::parse(base)?;
    let t = UriRef::parse(target)?;
    let (Some(bs), Some(ts)) = (b.scheme(), t.scheme()) else {
        return Err(Error {
            index: 0,
            kind: ErrorKind::BaseNotAbsolute,
        });
    };
    let lossy = |v: &[u8]| String::from_utf8_lossy(v).into_owned();
    if !bs.eq_ignore_ascii_case(ts) {
        return Ok(lossy(target));
    }
    let tail = t.as_bytes().get(t.path_start..).unwrap_or_default();
    if b.authority() != t.authority() {
        return Ok(lossy(t.as_bytes().get(ts.len() + 1..).unwrap_or_default()));
    }
    let mut out: Vec<u8> = Vec::new();
    let (bp, tp) = (b.path(), t.path());
    if bp == tp {
        if b.query() != t.query() {
            out.extend_from_slice(tail.get(tp.len()..).unwrap_or_default());
        } else if let Some(f) = t.fragment() {
            out.push(b'#');
            out.extend_from_slice(f);
        }
        return Ok(lossy(&out));
    }
    let bsegs: Vec<&[u8]> = bp
        .strip_prefix(b"/")
        .unwrap_or(bp)
        .split(|&c| c == b'/')
        .collect();
    let tsegs: Vec<&[u8]> = tp
        .strip_prefix(b"/")
        .unwrap_or(tp)
        .split(|&c| c == b'/')
        .collect();
    if domain_root && bsegs.first() != tsegs.first() {
        return Ok(lossy(tail));
    }
    let bdir = bsegs
        .get(..bsegs.len().saturating_sub(1))
        .unwrap_or_default();
    let tdir = tsegs
        .get(..tsegs.len().saturating_sub(1))
        .unwrap_or_default();
    let common = bdir.iter().zip(tdir).take_while(|(x, y)| x == y).count();
    for _ in common..bdir.len() {
        out.extend_from_slice(b"../");
    }
    let rest = tsegs.get(common..).unwrap_or_default();
    if common == bdir.len()
        && rest
            .first()
            .is_some_and(|f| f.is_empty() || f.contains(&b':'))
    {
        out.extend_from_slice(b"./");
    }
    out.extend_from_slice(&rest.join(&b'/'));
    if out.is_empty() {
        out.extend_from_slice(b"./");
    }
    out.extend_from_slice(tail.get(tp.len()..).unwrap_or_default());
    Ok(lossy(&out))
}

/// `remove_dot_segments`, keeping a rootless path rootless.
fn dots(path: &[u8], has_authority: bool, out: &mut Vec<u8>) {
    if has_authority || path.first() == Some(&b'/') {
        remove_dot_segments(path, out);
    } else {
        super::normalize::rootless_dots(path, out, false);
    }
}

/// [`dots`] on `buf[start..]`.
fn dots_in_place(buf: &mut Vec<u8>, start: usize, has_authority: bool) {
    if has_authority || buf.get(start) == Some(&b'/') {
        remove_dot_segments_in_place(buf, start);
    } else {
        let p = buf.split_off(start);
        super::normalize::rootless_dots(&p, buf, false);
    }
}

fn push_head(out: &mut Vec<u8>, scheme: &[u8], authority: Option<&[u8]>) {
    out.extend_from_slice(scheme);
    out.push(b':');
    if let Some(a) = authority {
        out.extend_from_slice(b"//");
        out.extend_from_slice(a);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dots() {
        assert_eq!(dot_kind(b"."), 1);
        assert_eq!(dot_kind(b"%2E"), 1);
        assert_eq!(dot_kind(b".."), 2);
        assert_eq!(dot_kind(b".%2e"), 2);
        assert_eq!(dot_kind(b"%2E%2e"), 2);
        assert_eq!(dot_kind(b"%2E."), 2);
        assert_eq!(dot_kind(b"..."), 0);
        assert_eq!(dot_kind(b"%2F"), 0);
        let mut o = Vec::new();
        remove_dot_segments(b"a/..", &mut o);
        assert_eq!(o, b"/");
        o.clear();
        remove_dot_segments(b"../../g", &mut o);
        assert_eq!(o, b"g");
    }
}
