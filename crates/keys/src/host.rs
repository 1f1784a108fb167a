//! Hosts: UTS #46 (IDNA) processing and registrable domains.
//!
//! [`host_ascii`] is the WHATWG URL Standard's *domain to ASCII* on the
//! percent-decoded host: UTS #46 mapping (case folding, full-width forms,
//! NFC), non-transitional processing, punycode for non-ASCII labels, and
//! the forbidden domain code points refused. [`domain`] is the registrable
//! domain of that host by the Public Suffix List compiled into this crate.

use std::borrow::Cow;
use std::sync::OnceLock;

use idna::uts46::{AsciiDenyList, DnsLength, Hyphens, Uts46};
use publicsuffix::{List, Psl};

/// The Public Suffix List, both sections (ICANN and private), as published.
static LIST_TEXT: &str = include_str!("../data/public_suffix_list.dat");

/// The list, parsed at first use (about 16,000 rules, each in its Unicode
/// and its punycode form).
fn list() -> &'static List {
    static LIST: OnceLock<List> = OnceLock::new();
    // The list is our own data, tested to parse; an empty list (every
    // last label a suffix) is the fallback that cannot panic.
    LIST.get_or_init(|| LIST_TEXT.parse().unwrap_or_default())
}

/// The compiled-in Public Suffix List's version: the date and time it was
/// published, as its `// VERSION:` line gives it (`unknown` if it has none).
///
/// ```
/// let v = urlsift_keys::psl_version();
/// assert!(v.len() >= 10 && v.as_bytes()[4] == b'-', "{v}");
/// ```
pub fn psl_version() -> &'static str {
    LIST_TEXT
        .lines()
        .take(50)
        .find_map(|l| l.strip_prefix("// VERSION:"))
        .map_or("unknown", str::trim)
}

/// The number of rules in the compiled-in list (ICANN and private).
///
/// ```
/// assert!(urlsift_keys::host::psl_rules() > 9000);
/// ```
pub fn psl_rules() -> usize {
    let mut section = false;
    let mut n = 0;
    for l in LIST_TEXT.lines() {
        if l.contains("===BEGIN ") {
            section = true;
        } else if l.contains("===END ") {
            section = false;
        } else if section && !l.starts_with("//") && !l.trim().is_empty() {
            n += 1;
        }
    }
    n
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

/// `s` with each `%XX` decoded once (a `%` not followed by two hex digits
/// stays as it is), borrowed when there is none.
pub(crate) fn percent_decode(s: &[u8]) -> Cow<'_, [u8]> {
    if memchr::memchr(b'%', s).is_none() {
        return Cow::Borrowed(s);
    }
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while let Some(&b) = s.get(i) {
        if b == b'%'
            && let (Some(h), Some(l)) = (
                s.get(i + 1).copied().and_then(hexval),
                s.get(i + 2).copied().and_then(hexval),
            )
        {
            out.push(h << 4 | l);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    Cow::Owned(out)
}

/// True when an ASCII host needs no UTS #46 work: lower-case letters,
/// digits, `-`, `.` and `_` only, and no `xn--` label to check.
fn plain_ascii(h: &[u8]) -> bool {
    h.iter().all(|&b| {
        b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.' || b == b'_'
    }) && !h.split(|&b| b == b'.').any(|l| l.starts_with(b"xn--"))
}

/// The ASCII form of a host: for a registered name, percent-decoded once,
/// then UTS #46 *ToASCII* as the WHATWG URL Standard runs it
/// (non-transitional, hyphens allowed, no DNS length check, the forbidden
/// domain code points refused); for an IP literal (`[...]`), the literal
/// in lower case. `None` for an empty host, text that is not UTF-8 once
/// decoded, or a name UTS #46 refuses.
///
/// ```
/// use urlsift_keys::host_ascii;
/// for h in ["例子.测试", "XN--FSQU00A.xn--0zwm56d", "%E4%BE%8B%E5%AD%90.%E6%B5%8B%E8%AF%95"] {
///     assert_eq!(host_ascii(h.as_bytes()).as_deref(), Some("xn--fsqu00a.xn--0zwm56d"));
/// }
/// assert_eq!(host_ascii("ｅｘａｍｐｌｅ．ｃｏｍ".as_bytes()).as_deref(), Some("example.com"));
/// assert_eq!(host_ascii(b"[::1]").as_deref(), Some("[::1]"));
/// assert_eq!(host_ascii(b"a<b.example"), None);
/// ```
pub fn host_ascii(host: &[u8]) -> Option<String> {
    if host.is_empty() {
        return None;
    }
    if host.first() == Some(&b'[') {
        return (host.last() == Some(&b']') && host.is_ascii())
            .then(|| String::from_utf8_lossy(host).to_ascii_lowercase());
    }
    if plain_ascii(host) {
        return std::str::from_utf8(host).ok().map(str::to_owned);
    }
    let decoded = percent_decode(host);
    let ascii = Uts46::new()
        .to_ascii(
            &decoded,
            AsciiDenyList::URL,
            Hyphens::Allow,
            DnsLength::Ignore,
        )
        .ok()?;
    (!ascii.is_empty()).then(|| ascii.into_owned())
}

/// True if the last label of `host` (after one trailing dot) is a number
/// in the WHATWG URL Standard's sense (decimal digits, or `0x` and hex
/// digits): such a host is an IPv4 address, never a domain.
fn ends_in_number(host: &str) -> bool {
    let last = host.rsplit('.').next().unwrap_or_default();
    if last.is_empty() {
        return false;
    }
    if last.bytes().all(|b| b.is_ascii_digit()) {
        return true;
    }
    last.strip_prefix("0x")
        .or_else(|| last.strip_prefix("0X"))
        .is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The registrable domain (eTLD+1) of a host already in ASCII form (as
/// [`host_ascii`] gives it): the public suffix by the whole Public Suffix
/// List, ICANN and private sections, with its `*` default rule (an unknown
/// top-level label is a suffix), and one label more. One trailing dot is
/// ignored. `None` for an IP address or literal, a host with an empty
/// label, and a host that is itself a public suffix.
///
/// ```
/// use urlsift_keys::host::registrable_domain;
/// assert_eq!(registrable_domain("www.bbc.co.uk"), Some("bbc.co.uk"));
/// assert_eq!(registrable_domain("foo.github.io"), Some("foo.github.io"));
/// assert_eq!(registrable_domain("co.uk"), None);
/// assert_eq!(registrable_domain("192.0.2.1"), None);
/// ```
pub fn registrable_domain(ascii: &str) -> Option<&str> {
    if ascii.starts_with('[') || ends_in_number(ascii) {
        return None;
    }
    let name = ascii.strip_suffix('.').unwrap_or(ascii);
    if name.is_empty() || name.split('.').any(str::is_empty) {
        return None;
    }
    let d = list().domain(name.as_bytes())?;
    let at = name.len().checked_sub(d.as_bytes().len())?;
    name.get(at..)
}

/// The registrable domain of a host given as found (Unicode, punycode,
/// percent-encoded, any case): [`host_ascii`], then
/// [`registrable_domain`].
///
/// ```
/// use urlsift_keys::domain;
/// assert_eq!(domain(b"news.bbc.co.uk").as_deref(), Some("bbc.co.uk"));
/// assert_eq!(domain("WWW.例子.测试".as_bytes()).as_deref(), Some("xn--fsqu00a.xn--0zwm56d"));
/// assert_eq!(domain(b"github.io"), None);
/// assert_eq!(domain(b"[2001:db8::1]"), None);
/// ```
pub fn domain(host: &[u8]) -> Option<String> {
    let ascii = host_ascii(host)?;
    registrable_domain(&ascii).map(str::to_owned)
}
