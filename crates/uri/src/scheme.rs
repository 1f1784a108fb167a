//! RFC 1738 scheme rules (sections 3 and 5) and default ports.
//!
//! These checks are separate from RFC 3986 validity: a URI can be valid
//! RFC 3986 and still break its scheme's rule. What is checked:
//!
//! | scheme | rule |
//! |---|---|
//! | http, https | `//host` present and not empty |
//! | ftp | host; at most one `:` in user:password; `;` only as a final `;type=a\|i\|d` |
//! | gopher | host; a gopher type (RFC 1436 plus common extensions) before the selector |
//! | mailto | no authority; one or more `addr-spec`s `local@domain`, comma-separated |
//! | news | no authority, no query; `*`, a newsgroup name or a `unique@domain` message-id |
//! | nntp | host; path `/group` or `/group/article-number` |
//! | telnet | host; no path beyond `/`, no query |
//! | wais | host; `/database`, `/database?search` or `/database/wtype/wpath` |
//! | file | `//host` (may be empty) then an absolute path; no userinfo or port |
//! | prospero | host; `/hsoname` then `;field=value` parts |
//!
//! RFC 1738 predates RFC 3986: `~` is accepted (RFC 3986 made it unreserved),
//! and a `mailto` query (RFC 6068 headers) is accepted.

use std::fmt;

use super::UriRef;

/// An RFC 1738 scheme rule broken by a URI that may still be valid RFC 3986.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SchemeError {
    /// Byte offset in the URI where the rule is broken.
    pub index: usize,
    /// One line saying which rule.
    pub message: &'static str,
}

impl fmt::Display for SchemeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.message, self.index)
    }
}

impl std::error::Error for SchemeError {}

/// A scheme with a default port whose empty path with an authority means `/`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Known {
    pub(crate) port: u16,
}

/// The schemes with scheme-based normalization (case-insensitive), with
/// their default ports (RFC 1738 section 3, plus ws/wss; `file` has none).
pub(crate) fn lookup(scheme: &[u8]) -> Option<Known> {
    let mut lower = [0u8; 8];
    let lower = lower.get_mut(..scheme.len())?;
    lower.copy_from_slice(scheme);
    lower.make_ascii_lowercase();
    lookup_lower(lower)
}

/// [`lookup`] for a scheme already in lower case (one `match`, no loop).
pub(crate) fn lookup_lower(scheme: &[u8]) -> Option<Known> {
    let port = match scheme {
        // No port: port 0 never equals a real default, but the path rule applies.
        b"file" => 0,
        b"http" | b"ws" => 80,
        b"https" | b"wss" => 443,
        b"ftp" => 21,
        b"gopher" => 70,
        b"nntp" => 119,
        b"telnet" => 23,
        b"wais" => 210,
        b"prospero" => 1525,
        _ => return None,
    };
    Some(Known { port })
}

/// The numeric value of an all-digit port (leading zeros allowed), if it fits.
pub(crate) fn port_value(p: &[u8]) -> Option<u32> {
    if p.is_empty() || p.len() > 10 {
        return None;
    }
    p.iter().try_fold(0u32, |v, &d| {
        d.is_ascii_digit().then_some(())?;
        v.checked_mul(10)?.checked_add(u32::from(d - b'0'))
    })
}

/// The default port of a scheme (RFC 1738 section 3, plus ws/wss), case-insensitive.
///
/// ```
/// assert_eq!(urlsift_uri::default_port(b"HTTP"), Some(80));
/// assert_eq!(urlsift_uri::default_port(b"prospero"), Some(1525));
/// assert_eq!(urlsift_uri::default_port(b"foo"), None);
/// ```
pub fn default_port(scheme: &[u8]) -> Option<u16> {
    lookup(scheme).map(|k| k.port).filter(|&p| p != 0)
}

fn fail(index: usize, message: &'static str) -> Result<(), SchemeError> {
    Err(SchemeError { index, message })
}

/// `uchar` of RFC 1738 (unreserved, safe, extra, escape; plus `~`).
fn is_uchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"$-_.+!*'(),~%".contains(&b)
}

fn need_host(u: &UriRef<'_>) -> Result<(), SchemeError> {
    match u.host() {
        None => fail(u.scheme_end + 1, "this scheme needs //host"),
        Some([]) => fail(u.host_start, "empty host"),
        Some(_) => Ok(()),
    }
}

fn no_query(u: &UriRef<'_>, message: &'static str) -> Result<(), SchemeError> {
    match u.query() {
        Some(_) => fail(u.query_start, message),
        None => Ok(()),
    }
}

/// Newsgroup name: `alpha *[ alpha | digit | "-" | "." | "+" | "_" ]`.
fn group_error(g: &[u8]) -> Option<usize> {
    match g.first() {
        Some(b) if b.is_ascii_alphabetic() => {}
        _ => return Some(0),
    }
    g.iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || b"-.+_".contains(&b)))
}

/// Check one `addr-spec` (local@domain); returns the offset of the problem.
fn addr_error(a: &[u8]) -> Option<(usize, &'static str)> {
    let Some(at) = memchr::memrchr(b'@', a) else {
        return Some((a.len(), "mailto address without '@'"));
    };
    let (local, domain) = (
        a.get(..at).unwrap_or_default(),
        a.get(at + 1..).unwrap_or_default(),
    );
    if local.is_empty() {
        return Some((at, "empty local part"));
    }
    if local.first() != Some(&b'"')
        && let Some(p) = local
            .iter()
            .position(|&b| !(b.is_ascii_alphanumeric() || b"!#$%&'*+-/=?^_`{|}~.".contains(&b)))
    {
        return Some((p, "invalid character in mailto local part"));
    }
    if domain.is_empty() {
        return Some((at + 1, "empty mail domain"));
    }
    if domain.first() != Some(&b'[')
        && let Some(p) = domain
            .iter()
            .position(|&b| !(b.is_ascii_alphanumeric() || b"-.%".contains(&b)))
    {
        return Some((at + 1 + p, "invalid character in mail domain"));
    }
    None
}

/// Check `u` against the RFC 1738 rule of its scheme; see the module docs.
pub(crate) fn check(u: &UriRef<'_>) -> Result<(), SchemeError> {
    let Some(scheme) = u.scheme() else {
        return Ok(());
    };
    match scheme.to_ascii_lowercase().as_slice() {
        b"http" | b"https" => need_host(u),
        b"ftp" => ftp(u),
        b"gopher" => gopher(u),
        b"mailto" => mailto(u),
        b"news" => news(u),
        b"nntp" => nntp(u),
        b"telnet" => telnet(u),
        b"wais" => wais(u),
        b"file" => file(u),
        b"prospero" => prospero(u),
        _ => Ok(()),
    }
}

/// `ftp`: a host; at most one `:` in the login; `;` only as a final
/// `;type=a|i|d`.
fn ftp(u: &UriRef<'_>) -> Result<(), SchemeError> {
    need_host(u)?;
    if let Some(ui) = u.userinfo() {
        let colons: Vec<usize> = memchr::memchr_iter(b':', ui).collect();
        if let Some(&c) = colons.get(1) {
            return fail(u.auth_start + c, "ftp login has more than one ':'");
        }
    }
    let path = u.path();
    if let Some(semi) = memchr::memchr(b';', path) {
        let rest = path.get(semi..).unwrap_or_default();
        let ok = rest.len() == 7
            && rest
                .get(..6)
                .is_some_and(|t| t.eq_ignore_ascii_case(b";type="))
            && rest.get(6).is_some_and(|c| b"aidAID".contains(c));
        if !ok {
            return fail(
                u.path_start + semi,
                "ftp path: ';' only in a final ;type=a|i|d",
            );
        }
    }
    Ok(())
}

/// `gopher`: a host, and a known gopher type before the selector.
fn gopher(u: &UriRef<'_>) -> Result<(), SchemeError> {
    need_host(u)?;
    match u.path().get(1) {
        None => Ok(()),
        Some(t) if b"0123456789+TgIhisdpPMc;<:e".contains(t) => Ok(()),
        Some(_) => fail(u.path_start + 1, "unknown gopher type"),
    }
}

/// `mailto`: no authority; one or more comma-separated `addr-spec`s.
fn mailto(u: &UriRef<'_>) -> Result<(), SchemeError> {
    if u.auth_start > 0 {
        return fail(u.scheme_end + 1, "mailto has no //authority");
    }
    let (path, p0) = (u.path(), u.path_start);
    if path.is_empty() {
        return fail(p0, "mailto without an address");
    }
    let mut off = 0;
    for a in path.split(|&b| b == b',') {
        if let Some((i, m)) = addr_error(a) {
            return fail(p0 + off + i, m);
        }
        off += a.len() + 1;
    }
    Ok(())
}

/// `news`: no authority, no query; `*`, a newsgroup name or a message-id.
fn news(u: &UriRef<'_>) -> Result<(), SchemeError> {
    if u.auth_start > 0 {
        return fail(u.scheme_end + 1, "news has no //host in RFC 1738");
    }
    no_query(u, "news URL has no query")?;
    let (path, p0) = (u.path(), u.path_start);
    if path == b"*" {
        return Ok(());
    }
    if memchr::memchr(b'@', path).is_some() {
        return match addr_error(path) {
            Some((i, _)) => fail(p0 + i, "invalid news message-id"),
            None => Ok(()),
        };
    }
    match group_error(path) {
        Some(i) => fail(p0 + i, "invalid newsgroup name"),
        None => Ok(()),
    }
}

/// `nntp`: a host; `/group` or `/group/article-number`; no query.
fn nntp(u: &UriRef<'_>) -> Result<(), SchemeError> {
    need_host(u)?;
    let p0 = u.path_start;
    let rest = u.path().strip_prefix(b"/").unwrap_or_default();
    let mut parts = rest.splitn(2, |&b| b == b'/');
    let group = parts.next().unwrap_or_default();
    if let Some(i) = group_error(group) {
        return fail(p0 + 1 + i, "nntp needs /newsgroup-name");
    }
    if let Some(art) = parts.next()
        && (art.is_empty() || !art.iter().all(u8::is_ascii_digit))
    {
        return fail(p0 + 2 + group.len(), "nntp article number must be digits");
    }
    no_query(u, "nntp URL has no query")
}

/// `telnet`: a host; no path beyond `/`, no query.
fn telnet(u: &UriRef<'_>) -> Result<(), SchemeError> {
    need_host(u)?;
    if u.path().len() > 1 {
        return fail(u.path_start + 1, "telnet URL has no path beyond '/'");
    }
    no_query(u, "telnet URL has no query")
}

/// `wais`: a host; `/database`, `/database?search` or
/// `/database/wtype/wpath`.
fn wais(u: &UriRef<'_>) -> Result<(), SchemeError> {
    need_host(u)?;
    let p0 = u.path_start;
    let Some(rest) = u.path().strip_prefix(b"/") else {
        return fail(p0, "wais needs /database");
    };
    let parts: Vec<&[u8]> = rest.split(|&b| b == b'/').collect();
    if parts.len() != 1 && parts.len() != 3 {
        return fail(p0, "wais path is /database or /database/wtype/wpath");
    }
    if parts.len() == 3 && u.query().is_some() {
        return fail(u.query_start, "wais search only on /database");
    }
    if let Some(i) = rest.iter().position(|&b| b != b'/' && !is_uchar(b)) {
        return fail(p0 + 1 + i, "invalid character in wais path");
    }
    Ok(())
}

/// `file`: `//host` (may be empty) then a path; no userinfo or port.
fn file(u: &UriRef<'_>) -> Result<(), SchemeError> {
    if u.auth_start == 0 {
        return fail(u.scheme_end + 1, "file URL needs //host/path");
    }
    if u.userinfo().is_some() {
        return fail(u.auth_start, "file URL has no userinfo");
    }
    if u.port().is_some() {
        return fail(u.host_end, "file URL has no port");
    }
    if u.path().is_empty() {
        return fail(u.path_start, "file URL needs a path");
    }
    Ok(())
}

/// `prospero`: a host; `/hsoname`, then `;field=value` parts.
fn prospero(u: &UriRef<'_>) -> Result<(), SchemeError> {
    need_host(u)?;
    let (path, p0) = (u.path(), u.path_start);
    if path.is_empty() {
        return fail(p0, "prospero needs /hsoname");
    }
    let Some(semi) = memchr::memchr(b';', path) else {
        return Ok(());
    };
    let mut off = semi + 1;
    for field in path
        .get(semi + 1..)
        .unwrap_or_default()
        .split(|&b| b == b';')
    {
        let eqs: Vec<usize> = memchr::memchr_iter(b'=', field).collect();
        match eqs.as_slice() {
            [_] => {}
            [] => return fail(p0 + off + field.len(), "prospero field needs '='"),
            [_, second, ..] => {
                return fail(p0 + off + second, "prospero field has two '='");
            }
        }
        off += field.len() + 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> Result<(), usize> {
        UriRef::parse(s.as_bytes())
            .unwrap()
            .check_scheme()
            .map_err(|e| e.index)
    }

    #[test]
    fn rules() {
        for ok in [
            "ftp://u:p@host/a/b;type=d",
            "ftp://host/file",
            "http://host",
            "gopher://host/0/foo",
            "gopher://host",
            "mailto:a.b@example.com",
            "mailto:a@x.org,b@y.org",
            "news:comp.infosystems.www",
            "news:*",
            "news:1234@example.com",
            "nntp://host/comp.lang/12",
            "telnet://user@host/",
            "wais://host/db",
            "wais://host/db?x",
            "wais://host/db/t/p",
            "file:///etc/hosts",
            "file://localhost/etc",
            "prospero://host/a/b;f=v;g=w",
            "foo:anything",
        ] {
            assert_eq!(c(ok), Ok(()), "{ok}");
        }
        assert_eq!(c("ftp://host/a;type=x"), Err(12));
        assert_eq!(c("ftp://a:b:c@host/"), Err(9));
        assert_eq!(c("http:foo"), Err(5));
        assert_eq!(c("mailto:nobody"), Err(13));
        assert_eq!(c("news:1comp"), Err(5));
        assert_eq!(c("nntp://h/g/x1"), Err(11));
        assert_eq!(c("telnet://h/x"), Err(11));
        assert_eq!(c("wais://h/a/b"), Err(8));
        assert_eq!(c("file:/etc"), Err(5));
        assert_eq!(c("prospero://h/x;f"), Err(16));
    }
}
