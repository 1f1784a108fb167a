//! Hosts: UTS #46 (IDNA) processing and registrable domains.
//!
//! [`host_ascii`] is the WHATWG URL Standard's *domain to ASCII* on the
//! percent-decoded host: UTS #46 mapping (case folding, full-width forms,
//! NFC), non-transitional processing, punycode for non-ASCII labels, and
//! the forbidden domain code points refused. [`domain`] is the registrable
//! domain of that host by the Public Suffix List compiled into this crate:
//! its rules go into a hash map at first use (borrowing the compiled-in
//! text), and a lookup tries the host's suffixes from one label up.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

use idna::uts46::{AsciiDenyList, DnsLength, Hyphens, Uts46};

/// The Public Suffix List, both sections (ICANN and private), as published.
static LIST_TEXT: &str = include_str!("../data/public_suffix_list.dat");

/// A rule of the list (`co.uk`).
const RULE: u8 = 1;
/// A wildcard rule's parent (`ck` for `*.ck`): every label under it is a
/// suffix.
const WILD: u8 = 2;
/// An exception (`www.ck` for `!www.ck`): a registrable domain although a
/// wildcard covers it.
const EXCEPTION: u8 = 4;
/// A name some longer entry ends with (`uk` for `co.uk`): a look-up goes
/// on to the next label only past such a name.
const PARENT: u8 = 8;

/// A multiply-rotate hash eight bytes at a time (as `FxHash`): the keys
/// are short names, hashed once per lookup, and come from our own list (no
/// hash flooding to fear).
#[derive(Default)]
struct NameHasher(u64);

impl NameHasher {
    #[inline]
    fn mix(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for NameHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            let mut a = [0u8; 8];
            a.copy_from_slice(w);
            self.mix(u64::from_le_bytes(a));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut a = [0u8; 8];
            a[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(a));
        }
    }
    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.mix(n as u64);
    }
}

/// The list's names (in ASCII: a Unicode rule in its punycode form) and
/// what each is: [`RULE`], [`WILD`], [`EXCEPTION`] bits.
type Rules = HashMap<Cow<'static, [u8]>, u8, BuildHasherDefault<NameHasher>>;

/// The list, read at first use: one map entry per rule, borrowing the
/// compiled-in text (only the rules in Unicode are converted, about 450).
fn list() -> &'static Rules {
    static LIST: OnceLock<Rules> = OnceLock::new();
    LIST.get_or_init(|| {
        let mut rules = Rules::with_capacity_and_hasher(16_384, BuildHasherDefault::default());
        for line in LIST_TEXT.lines() {
            let Some(rule) = line.split_whitespace().next() else {
                continue;
            };
            if rule.starts_with("//") {
                continue;
            }
            let (name, kind) = if let Some(r) = rule.strip_prefix('!') {
                (r, EXCEPTION)
            } else if let Some(r) = rule.strip_prefix("*.") {
                (r, WILD)
            } else {
                (rule, RULE)
            };
            let name: Cow<'static, [u8]> = if name.is_ascii() {
                Cow::Borrowed(name.as_bytes())
            } else {
                match host_ascii(name.as_bytes()) {
                    Some(a) => Cow::Owned(a.into_bytes()),
                    None => continue,
                }
            };
            // Every shorter suffix of the name leads to it.
            let mut at = 0;
            while let Some(d) = name
                .get(at..)
                .and_then(|n| n.iter().position(|&b| b == b'.'))
            {
                at += d + 1;
                let parent: Cow<'static, [u8]> = match &name {
                    Cow::Borrowed(n) => Cow::Borrowed(n.get(at..).unwrap_or_default()),
                    Cow::Owned(n) => Cow::Owned(n.get(at..).unwrap_or_default().to_vec()),
                };
                *rules.entry(parent).or_default() |= PARENT;
            }
            *rules.entry(name).or_default() |= kind;
        }
        rules
    })
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

/// The bytes of a host that UTS #46 leaves as they are: lower-case
/// letters, digits, `-`, `_` and `.`.
const PLAIN: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'-' | b'_' | b'.');
        b += 1;
    }
    t
};

/// True when an ASCII host needs no UTS #46 work: lower-case letters,
/// digits, `-`, `.` and `_` only, and no `xn--` label to check.
fn plain_ascii(h: &[u8]) -> bool {
    let mut label_start = true;
    for (i, &b) in h.iter().enumerate() {
        if !PLAIN[usize::from(b)]
            || (label_start && b == b'x' && h.get(i..i + 4) == Some(&b"xn--"[..]))
        {
            return false;
        }
        label_start = b == b'.';
    }
    true
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

/// True if the last label of `h` is a number in the WHATWG URL Standard's
/// sense (its *ends in a number* rule: decimal digits, or `0x` and hex
/// digits), one trailing empty label ignored (`1.2.3.4.` and `a.0x1f.`
/// end in a number, `a..` does not): such a host is an IPv4 address (or
/// invalid), never a domain.
pub(crate) fn ends_in_number(h: &[u8]) -> bool {
    let h = match h.strip_suffix(b".") {
        Some(rest) if !rest.is_empty() => rest,
        _ => h,
    };
    let last = h
        .iter()
        .rposition(|&b| b == b'.')
        .map_or(h, |d| h.get(d + 1..).unwrap_or_default());
    if last.is_empty() {
        return false;
    }
    if last.iter().all(u8::is_ascii_digit) {
        return true;
    }
    last.strip_prefix(b"0x")
        .or_else(|| last.strip_prefix(b"0X"))
        .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
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
/// assert_eq!(registrable_domain("www.example.com."), Some("example.com"));
/// ```
pub fn registrable_domain(ascii: &str) -> Option<&str> {
    let d = registrable(ascii.as_bytes())?;
    // `d` is a piece of `ascii` (before its trailing dot, if any).
    let at = (d.as_ptr() as usize).checked_sub(ascii.as_ptr() as usize)?;
    ascii.get(at..at.checked_add(d.len())?)
}

/// [`registrable_domain`] of bytes: a piece of `ascii` (a suffix, but for
/// a trailing dot).
fn registrable(ascii: &[u8]) -> Option<&[u8]> {
    if ascii.first() == Some(&b'[') || ends_in_number(ascii) {
        return None;
    }
    let name = ascii.strip_suffix(b".").unwrap_or(ascii);
    // No empty label (a leading dot counts as one).
    let mut prev = b'.';
    for &b in name {
        if b == b'.' && prev == b'.' {
            return None;
        }
        prev = b;
    }
    if prev == b'.' {
        return None;
    }
    let rules = list();
    // The suffixes of `name` from one label up: the longest a rule makes
    // a public suffix wins (one label by the default `*` rule); an
    // exception is itself the registrable domain.
    let (mut suffix_labels, mut labels, mut parent) = (1, 0, 0u8);
    let mut i = name.len();
    loop {
        while i > 0 && name.get(i - 1) != Some(&b'.') {
            i -= 1;
        }
        let candidate = name.get(i..)?;
        labels += 1;
        let kind = rules.get(candidate).copied().unwrap_or(0);
        if kind & EXCEPTION != 0 {
            return Some(candidate);
        }
        if kind & RULE != 0 || parent & WILD != 0 {
            suffix_labels = labels;
        }
        // Past a name no entry ends with (nor a wildcard's parent), no
        // longer suffix is in the list.
        if i == 0 || kind & (PARENT | WILD) == 0 {
            break;
        }
        parent = kind;
        i -= 1;
    }
    // Labels are left of the last one looked at, or there are more labels
    // than the suffix has.
    if i == 0 && labels <= suffix_labels {
        return None;
    }
    // The suffix and one label more.
    let mut start = name.len();
    for _ in 0..=suffix_labels {
        start = name
            .get(..start.saturating_sub(1))
            .and_then(|h| h.iter().rposition(|&b| b == b'.'))
            .map_or(0, |d| d + 1);
    }
    name.get(start..)
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
    if host.first() != Some(&b'[') && plain_ascii(host) {
        return registrable(host).and_then(|d| String::from_utf8(d.to_vec()).ok());
    }
    let ascii = host_ascii(host)?;
    registrable_domain(&ascii).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use publicsuffix::Psl;

    /// [`registrable_domain`] by the `publicsuffix` crate over the same
    /// list: the reference.
    fn by_publicsuffix(list: &publicsuffix::List, ascii: &str) -> Option<String> {
        if ascii.starts_with('[') || ends_in_number(ascii.as_bytes()) {
            return None;
        }
        let name = ascii.strip_suffix('.').unwrap_or(ascii);
        if name.is_empty() || name.split('.').any(str::is_empty) {
            return None;
        }
        let d = list.domain(name.as_bytes())?;
        let at = name.len().checked_sub(d.as_bytes().len())?;
        name.get(at..).map(str::to_owned)
    }

    #[test]
    fn numbers_at_the_end() {
        for (h, want) in [
            ("1.2.3.4", true),
            ("a.0x1F", true),
            ("a.0X", true),
            ("a.b", false),
            ("a.1b", false),
            ("1.2.3.4.", true),
            ("example.123.", true),
            ("a.0x.", true),
            ("7.", true),
            ("a.b.", false),
            ("a.1.b.", false),
            ("a.1..", false),
            ("1..", false),
            (".", false),
            ("..", false),
            ("", false),
            ("7", true),
        ] {
            assert_eq!(ends_in_number(h.as_bytes()), want, "{h:?}");
            // The URL Standard's parser agrees: a host that ends in a
            // number is an IPv4 address or a failure, any other a domain.
            let input = format!("http://{h}/");
            let parsed = ada_url::Url::parse(input.as_str(), None);
            let ipv4 = parsed.as_ref().is_ok_and(|u| {
                let host = u.hostname();
                host.split('.').count() == 4
                    && host.bytes().all(|b| b.is_ascii_digit() || b == b'.')
            });
            if !h.is_empty() {
                assert_eq!(ipv4 || parsed.is_err(), want, "{h:?}");
            }
        }
    }

    /// A host whose last label, one trailing dot ignored, is a number is
    /// not a domain, with or without that dot.
    #[test]
    fn no_domain_for_a_number_before_a_trailing_dot() {
        for h in ["example.123", "example.123.", "a.0x1f.", "1.2.3.4."] {
            assert_eq!(registrable_domain(h), None, "{h:?}");
            assert_eq!(domain(h.as_bytes()), None, "{h:?}");
        }
        // One trailing dot is ignored: the domain is the one without it.
        assert_eq!(registrable_domain("example.com."), Some("example.com"));
        assert_eq!(registrable_domain("www.bbc.co.uk."), Some("bbc.co.uk"));
        assert_eq!(domain(b"Example.COM.").as_deref(), Some("example.com"));
        assert_eq!(domain(b"www.example.com.").as_deref(), Some("example.com"));
    }

    /// Every host of a real URL list, and every rule of the list under
    /// zero, one and two more labels (a wildcard's `*` as a label): the
    /// same registrable domain as the `publicsuffix` crate gives.
    #[test]
    fn agrees_with_the_publicsuffix_crate() {
        let list: publicsuffix::List = LIST_TEXT.parse().unwrap();
        let mut hosts: Vec<String> = include_str!("../../../datasets/urls.txt")
            .lines()
            .filter_map(|u| {
                let rest = u.split_once("://")?.1;
                let end = rest.find(['/', '?', '#', ':']).unwrap_or(rest.len());
                host_ascii(&rest.as_bytes()[..end])
            })
            .collect();
        for line in LIST_TEXT.lines() {
            let Some(rule) = line.split_whitespace().next() else {
                continue;
            };
            if rule.starts_with("//") {
                continue;
            }
            let name = rule.trim_start_matches('!').replace('*', "w");
            let Some(name) = host_ascii(name.as_bytes()) else {
                continue;
            };
            for prefix in ["", "a.", "b.a.", "www."] {
                hosts.push(format!("{prefix}{name}"));
            }
            // One trailing dot, ignored.
            hosts.push(format!("a.{name}."));
        }
        // More labels than the matcher keeps positions for.
        hosts.push(format!("{}co.uk", "a.".repeat(70)));
        hosts.push(format!("{}example.com", "b.".repeat(63)));
        hosts.push(format!("{}example.com", "b.".repeat(64)));
        assert!(hosts.len() > 40_000, "{}", hosts.len());
        for h in &hosts {
            assert_eq!(
                registrable_domain(h).map(str::to_owned),
                by_publicsuffix(&list, h),
                "{h}"
            );
        }
    }
}
