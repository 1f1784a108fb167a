//! Hosts: UTS #46 (IDNA) processing and registrable domains.
//!
//! [`host_ascii`] is the WHATWG URL Standard's *domain to ASCII* on the
//! percent-decoded host: UTS #46 mapping (case folding, full-width forms,
//! NFC), non-transitional processing, punycode for non-ASCII labels, and
//! the forbidden domain code points refused. [`domain`] is the registrable
//! domain of that host by the Public Suffix List compiled into this crate:
//! its rules and their suffixes go into an open-addressing table at first
//! use, and a look-up walks the host's labels from the right, hashing each
//! byte once, one probe per suffix.

use std::borrow::Cow;
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

/// The multiplier of [`name_hash`] (`FxHash`'s): odd, with its bits spread.
const HASH_MUL: u64 = 0x517c_c1b7_2722_0a95;
/// Where [`name_hash`] starts: a hash of no bytes.
const HASH_SEED: u64 = 0x243f_6a88_85a3_08d3;

/// One more byte, to the left, of the name hashed so far.
#[inline(always)]
fn hash_step(h: u64, b: u8) -> u64 {
    (h ^ u64::from(b)).wrapping_mul(HASH_MUL)
}

/// The hash of a name, its bytes taken from the last to the first: the
/// hash of a suffix is a step on the way to that of every longer one, so a
/// look-up hashes each byte of a host once, however many of its suffixes
/// it tries. The names come from our own list (no hash flooding to fear),
/// and a hit is confirmed byte by byte.
fn name_hash(name: &[u8]) -> u64 {
    name.iter().rev().fold(HASH_SEED, |h, &b| hash_step(h, b))
}

/// The list's names (in ASCII: a Unicode rule in its punycode form) in an
/// open-addressing table (linear probing, at most half full), indexed by
/// the top bits of [`name_hash`]. A slot holds 32 more bits of the hash
/// and where the name's record starts in `names` (0: an empty slot); a
/// record is the name's length, what it is ([`RULE`], [`WILD`],
/// [`EXCEPTION`], [`PARENT`] bits) and its bytes.
struct Rules {
    slots: Box<[(u32, u32)]>,
    /// `64 - log2(slots.len())`.
    shift: u32,
    /// The records, after one unused byte.
    names: Vec<u8>,
    /// How many names there are.
    len: usize,
}

/// The bits of a hash a slot keeps to tell names apart.
#[inline(always)]
fn tag(h: u64) -> u32 {
    (h >> 16) as u32
}

impl Rules {
    fn with_slots(slots: usize) -> Self {
        let slots = slots.next_power_of_two().max(2);
        Self {
            slots: vec![(0, 0); slots].into_boxed_slice(),
            shift: 64 - slots.trailing_zeros(),
            names: vec![0],
            len: 0,
        }
    }

    #[inline(always)]
    fn home(&self, h: u64) -> usize {
        usize::try_from(h >> self.shift).unwrap_or_default()
    }

    /// The index of the slot of `name` (hash `h`), or of the empty slot
    /// where it would go.
    #[inline]
    fn find(&self, h: u64, name: &[u8]) -> usize {
        let mask = self.slots.len() - 1;
        let t = tag(h);
        let mut i = self.home(h) & mask;
        while let Some(&(st, at)) = self.slots.get(i) {
            if at == 0 || (st == t && self.name_at(at).is_some_and(|n| same(n, name))) {
                break;
            }
            i = (i + 1) & mask;
        }
        i
    }

    /// The name of the record at `at`.
    #[inline]
    fn name_at(&self, at: u32) -> Option<&[u8]> {
        let at = usize::try_from(at).ok()?;
        let len = usize::from(*self.names.get(at)?);
        self.names.get(at + 2..at + 2 + len)
    }

    /// What `name` (hash `h`) is in the list: 0 if it is not there.
    #[inline]
    fn kind(&self, h: u64, name: &[u8]) -> u8 {
        match self.slots.get(self.find(h, name)) {
            Some(&(_, at)) if at != 0 => usize::try_from(at)
                .ok()
                .and_then(|at| self.names.get(at + 1))
                .copied()
                .unwrap_or(0),
            _ => 0,
        }
    }

    /// Marks `name` with the `kind` bits, adding it if it is new. An
    /// empty name, or one longer than 255 bytes (the list has neither), is
    /// left out.
    fn mark(&mut self, name: &[u8], kind: u8) {
        let Ok(len) = u8::try_from(name.len()) else {
            return;
        };
        if len == 0 {
            return;
        }
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let h = name_hash(name);
        let i = self.find(h, name);
        let Ok(at) = u32::try_from(self.names.len()) else {
            return;
        };
        match self.slots.get_mut(i) {
            Some(slot) if slot.1 == 0 => {
                *slot = (tag(h), at);
                self.names.extend_from_slice(&[len, kind]);
                self.names.extend_from_slice(name);
                self.len += 1;
            }
            Some(&mut (_, at)) => {
                if let Some(k) = usize::try_from(at)
                    .ok()
                    .and_then(|at| self.names.get_mut(at + 1))
                {
                    *k |= kind;
                }
            }
            None => {}
        }
    }

    /// Twice the slots, the names moved over.
    fn grow(&mut self) {
        let mut bigger = Self::with_slots(self.slots.len() * 2);
        bigger.names = std::mem::take(&mut self.names);
        bigger.len = self.len;
        let mask = bigger.slots.len() - 1;
        for &(_, at) in self.slots.iter().filter(|s| s.1 != 0) {
            let name = bigger.name_at(at).unwrap_or_default();
            let h = name_hash(name);
            let mut i = bigger.home(h) & mask;
            while bigger.slots.get(i).is_some_and(|s| s.1 != 0) {
                i = (i + 1) & mask;
            }
            if let Some(slot) = bigger.slots.get_mut(i) {
                *slot = (tag(h), at);
            }
        }
        *self = bigger;
    }
}

/// The list, read at first use from the compiled-in text: each rule and
/// every shorter suffix of it (only the rules in Unicode are converted,
/// about 450).
fn list() -> &'static Rules {
    static LIST: OnceLock<Rules> = OnceLock::new();
    LIST.get_or_init(|| {
        let mut names = Vec::with_capacity(12_288);
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
            names.push((name, kind));
        }
        // Each rule and each shorter suffix of it: a few more names than
        // rules; the table doubles when it would be more than half full.
        let mut rules = Rules::with_slots(names.len() * 3);
        for (name, kind) in &names {
            // Every shorter suffix of the name leads to it.
            for (d, _) in name.iter().enumerate().filter(|&(_, &b)| b == b'.') {
                rules.mark(name.get(d + 1..).unwrap_or_default(), PARENT);
            }
            rules.mark(name, *kind);
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
#[cfg(test)]
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
///
/// One walk from the right: each label's bytes are hashed on from the
/// suffix to its right ([`name_hash`]), so each suffix costs one probe of
/// the table; the walk stops at the first suffix no entry ends with, and
/// the labels left of it are only checked for emptiness.
fn registrable(ascii: &[u8]) -> Option<&[u8]> {
    if ascii.first() == Some(&b'[') {
        return None;
    }
    let name = ascii.strip_suffix(b".").unwrap_or(ascii);
    let rules = list();
    // The suffixes of `name` from one label up: the longest a rule makes
    // a public suffix wins (one label by the default `*` rule); an
    // exception is itself the registrable domain. `suffix` is where the
    // public suffix starts.
    let (mut suffix, mut parent, mut h) = (usize::MAX, 0u8, HASH_SEED);
    // Where the label left of the suffix starts, once the walk is there.
    let mut domain = 0;
    let mut i = name.len();
    loop {
        // The label ending at `i`, hashed onto the suffix right of it.
        let end = i;
        while i > 0 {
            let Some(&b) = name.get(i - 1) else { break };
            if b == b'.' {
                break;
            }
            h = hash_step(h, b);
            i -= 1;
        }
        let candidate = name.get(i..)?;
        if i == end {
            // An empty label (a leading dot, two dots, or no name).
            return None;
        }
        if end + 1 == suffix {
            domain = i;
        }
        if suffix == usize::MAX {
            // The last label: a number makes the host an IPv4 address.
            suffix = i;
            if candidate.first().is_some_and(u8::is_ascii_digit) && is_number(candidate) {
                return None;
            }
        }
        let kind = rules.kind(h, candidate);
        if kind & EXCEPTION != 0 {
            return labels_before(name, i).then_some(candidate);
        }
        if kind & RULE != 0 || parent & WILD != 0 {
            suffix = i;
        }
        // Past a name no entry ends with (nor a wildcard's parent), no
        // longer suffix is in the list.
        if i == 0 || kind & (PARENT | WILD) == 0 {
            break;
        }
        parent = kind;
        i -= 1;
        h = hash_step(h, b'.');
    }
    if !labels_before(name, i) {
        return None;
    }
    // The whole name is a public suffix: no registrable domain.
    if suffix == 0 {
        return None;
    }
    // The suffix and one label more (not empty, checked above): found
    // by the walk if it went past the suffix.
    if i < suffix {
        return name.get(domain..);
    }
    let start = name
        .get(..suffix - 1)?
        .iter()
        .rposition(|&b| b == b'.')
        .map_or(0, |d| d + 1);
    name.get(start..)
}

/// `a == b`, byte by byte in line: the names are short, shorter than a
/// call to `memcmp` costs.
#[inline(always)]
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// True if a label is a number in the WHATWG URL Standard's sense
/// (decimal digits, or `0x` and hex digits): a host of a special scheme
/// whose last label is one is an IPv4 address (or invalid).
#[inline]
pub(crate) fn is_number(label: &[u8]) -> bool {
    match label {
        [] => false,
        [b'0', b'x' | b'X', hex @ ..] => hex.iter().all(u8::is_ascii_hexdigit),
        _ => label.iter().all(u8::is_ascii_digit),
    }
}

/// True if no label of `name` left of `at` (the start of a label) is
/// empty.
#[inline]
fn labels_before(name: &[u8], at: usize) -> bool {
    if at == 0 {
        return true;
    }
    // The labels and the dot before `at`: no dot first or after another.
    let mut prev = b'.';
    for &b in name.get(..at).unwrap_or_default() {
        if b == b'.' && prev == b'.' {
            return false;
        }
        prev = b;
    }
    true
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
    use proptest::strategy::Strategy as _;
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

    /// The table grows past half full and keeps every name: built from
    /// two slots, it answers as one built at its full size.
    #[test]
    fn the_table_grows_and_finds_every_name() {
        let names: Vec<String> = (0..5000).map(|n| format!("n{n}.x{}", n % 7)).collect();
        let mut small = Rules::with_slots(2);
        for (n, name) in names.iter().enumerate() {
            small.mark(name.as_bytes(), 1 << (n % 4));
        }
        // Marking again adds bits, not names.
        small.mark(b"n1.x1", RULE);
        assert_eq!(small.len, names.len());
        assert!(
            small.slots.len() >= names.len() * 2,
            "{}",
            small.slots.len()
        );
        for (n, name) in names.iter().enumerate() {
            let want = if name == "n1.x1" {
                RULE | 1 << 1
            } else {
                1 << (n % 4)
            };
            assert_eq!(
                small.kind(name_hash(name.as_bytes()), name.as_bytes()),
                want,
                "{name}"
            );
        }
        for miss in ["n5000.x2", "n1.x2", "", "x1", "n1.x1.", "1.x1"] {
            assert_eq!(
                small.kind(name_hash(miss.as_bytes()), miss.as_bytes()),
                0,
                "{miss}"
            );
        }
    }

    /// The hash of a suffix is a step on the way to that of a longer name.
    #[test]
    fn suffix_hashes_lead_to_the_name() {
        let h = name_hash(b"co.uk");
        let longer = b"bbc.".iter().rev().fold(h, |h, &b| hash_step(h, b));
        assert_eq!(longer, name_hash(b"bbc.co.uk"));
    }

    proptest::proptest! {
        /// Hosts made of the list's labels (rules, wildcards, exceptions),
        /// numbers, empty labels and other names: the `publicsuffix`
        /// crate's answer.
        #[test]
        fn agrees_on_generated_hosts(
            labels in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(vec![
                        "uk", "co", "ck", "www", "jp", "kawasaki", "city", "com", "github",
                        "io", "bd", "mm", "blogspot", "s3", "amazonaws", "compute", "", "1",
                        "0x1f", "0x", "xn--p1ai", "xn--90a3ac", "er", "kobe", "a",
                    ])
                    .prop_map(str::to_owned),
                    "[a-z0-9-]{1,6}",
                ],
                1..6,
            ),
            trailing_dot in proptest::bool::ANY,
        ) {
            static REFERENCE: OnceLock<publicsuffix::List> = OnceLock::new();
            let list = REFERENCE.get_or_init(|| LIST_TEXT.parse().unwrap());
            let mut h = labels.join(".");
            if trailing_dot {
                h.push('.');
            }
            proptest::prop_assert_eq!(
                registrable_domain(&h).map(str::to_owned),
                by_publicsuffix(list, &h),
                "{}", h
            );
        }
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
            // Empty labels left of the rule: never a domain.
            for prefix in ["", "a.", "b.a.", "www.", ".", "a..", "..a.", "a..b."] {
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
