//! Every use of the other urlsift crates (the extractor of `urlsift-core`
//! and the resolver of `urlsift-uri`), in one place, but for the matches
//! made of links ([`crate::decoded`]).

use std::cell::OnceCell;

use urlsift_core::{Extractor, Kind};
use urlsift_uri::{UriRef, resolve_parsed};

/// A URL found in text by the project's extractor (RFC 3986 Appendix C /
/// RFC 2396 Appendix E delimiting).
pub(crate) struct TextMatch<'h> {
    /// Offset of the URL in the scanned text.
    pub start: usize,
    /// Offset one past the URL in the scanned text.
    pub end: usize,
    /// The URL, with the whitespace of a wrapped URL removed.
    pub url: &'h [u8],
    /// An abbreviated `www.` URI (no scheme).
    pub www: bool,
}

/// Scan `text` for URLs, in order.
pub(crate) fn scan_text(text: &[u8], mut sink: impl FnMut(TextMatch<'_>)) {
    Extractor::new().scan(text, 0, text.len(), 0, |m| {
        sink(TextMatch {
            start: m.start,
            end: m.end,
            url: &m.url,
            www: m.kind == Kind::Www,
        });
    });
}

/// Text scanned a piece at a time, with the URLs one scan of all of it
/// finds. Each piece must end where no URL can continue (the next piece
/// starts with a NUL, as the stretches of an HTML page's text do, or the
/// text ends); the URLs anchored in it are found with the
/// [`TextScan::LOOK_BEHIND`] bytes before it as context.
#[derive(Default)]
pub(crate) struct TextScan {
    /// Where the last URL found ended (or 0), as a text offset.
    floor: usize,
    /// The text offset scanned to.
    done: usize,
}

impl TextScan {
    /// The text a piece needs before it: the furthest the text rules look
    /// back from a URL's anchor.
    pub(crate) const LOOK_BEHIND: usize = urlsift_core::MAX_LOOK_BEHIND;

    /// Scan `text` past what was scanned before: `text[0]` is at text
    /// offset `base`, and `text` holds at least [`TextScan::LOOK_BEHIND`]
    /// bytes before the first unscanned one (or all the text before it).
    /// Offsets given to `sink` are text offsets.
    pub(crate) fn scan(&mut self, text: &[u8], base: usize, mut sink: impl FnMut(TextMatch<'_>)) {
        let start = self.done.saturating_sub(base).min(text.len());
        let floor = self.floor.saturating_sub(base).min(start);
        let floor = Extractor::new().scan(text, start, text.len(), floor, |m| {
            sink(TextMatch {
                start: m.start + base,
                end: m.end + base,
                url: &m.url,
                www: m.kind == Kind::Www,
            });
        });
        self.floor = self.floor.max(floor + base);
        self.done = base + text.len();
    }
}

/// A parsed base URI: absolute, or nothing to resolve against.
#[derive(Clone, Copy)]
pub(crate) struct Base<'a>(UriRef<'a>);

impl<'a> Base<'a> {
    /// `text` as a base, if it has a valid scheme (RFC 3986 5.1 needs one).
    pub(crate) fn new(text: &'a [u8]) -> Option<Base<'a>> {
        let u = UriRef::split(text);
        has_scheme(&u).then_some(Base(u))
    }
}

/// A scheme as RFC 3986 3.1 spells it: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
fn has_scheme(u: &UriRef<'_>) -> bool {
    u.scheme().is_some_and(|s| {
        s.first().is_some_and(u8::is_ascii_alphabetic)
            && s.iter()
                .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
    })
}

/// Resolve `reference` per RFC 3986 5.2 against `base`; with no base, an
/// absolute reference has its dot-segments removed (5.2.2 with itself as
/// base) and a relative one gives `None`. Lenient, as browsers are: the
/// parts are split by RFC 3986 Appendix B, not validated, so a space or a
/// non-ASCII character does not stop resolution.
pub(crate) fn resolve(base: Option<Base<'_>>, reference: &[u8]) -> Option<String> {
    let mut r = UriRef::split(reference);
    // Text before a `:` that is not a scheme (`a b:c`) starts a relative
    // path: read it as `./a b:c`, as URL parsers do.
    let dotted;
    if r.scheme().is_some() && !has_scheme(&r) {
        dotted = [b"./", reference].concat();
        r = UriRef::split(&dotted);
    }
    let b = match base {
        Some(Base(b)) => b,
        None if has_scheme(&r) => r,
        None => return None,
    };
    resolve_parsed(&b, &r).ok()
}

/// Resolution against one base, with what depends on the base alone
/// worked out once: most references of a page are a fragment (`#x`), a
/// relative path without dot-segments (`x.html`), or an absolute URL
/// without dot-segments, and each of those resolves to a prefix of the
/// base followed by the reference as written, or to the reference itself.
/// Every other reference goes through [`resolve`]; the results are the
/// same either way.
pub(crate) struct Resolver<'a> {
    base: Option<Base<'a>>,
    /// What `#x` resolves to, less `#x`: the base without its fragment.
    same_doc: OnceCell<Option<String>>,
    /// What `x` resolves to, less `x`: the base up to its last `/`, when
    /// the base has an authority and no dot-segment (else `None`).
    dir: OnceCell<Option<String>>,
}

impl<'a> Resolver<'a> {
    /// Resolution against `base` (none: absolute references only).
    pub(crate) fn new(base: Option<Base<'a>>) -> Resolver<'a> {
        Resolver {
            base,
            same_doc: OnceCell::new(),
            dir: OnceCell::new(),
        }
    }

    /// [`resolve`] `reference` against the base.
    #[cfg(test)]
    pub(crate) fn resolve(&self, reference: &[u8]) -> Option<String> {
        self.resolve_text(reference, std::str::from_utf8(reference).ok())
    }

    /// [`resolve`] `reference` against the base, given `text`, the
    /// reference as a `str` when it is UTF-8.
    pub(crate) fn resolve_text(&self, reference: &[u8], text: Option<&str>) -> Option<String> {
        match text.and_then(|t| self.fast(reference, t)) {
            Some(url) => Some(url),
            None => resolve(self.base, reference),
        }
    }

    /// The resolution of `r` (UTF-8: `text`), when it is one of the common
    /// kinds that resolve without parsing; `None` for the others.
    fn fast(&self, r: &[u8], text: &str) -> Option<String> {
        let first = *r.first()?;
        if first == b'#' {
            let prefix = self
                .same_doc
                .get_or_init(|| self.base.and_then(|b| resolve(Some(b), b"")))
                .as_deref()?;
            return Some(joined(prefix, text));
        }
        if first == b'/' || first == b'?' || may_have_dots(r) {
            return None;
        }
        // The bytes before the first `:`, if it comes before any `/`, `?`
        // or `#`: a scheme.
        let head_end = r
            .iter()
            .position(|&b| matches!(b, b':' | b'/' | b'?' | b'#'))
            .unwrap_or(r.len());
        if r.get(head_end) == Some(&b':') {
            // Absolute: as written when it has an authority (no
            // dot-segment to remove); the rest by `resolve`.
            let scheme = r.get(..head_end).unwrap_or_default();
            let valid = scheme.first().is_some_and(u8::is_ascii_alphabetic)
                && scheme
                    .iter()
                    .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
            let authority = r.get(head_end + 1..head_end + 3) == Some(b"//");
            return (valid && authority).then(|| text.to_owned());
        }
        let dir = self
            .dir
            .get_or_init(|| {
                let Base(b) = self.base?;
                if b.authority().is_none() || may_have_dots(b.path()) {
                    return None;
                }
                let mut x = resolve(Some(Base(b)), b"x")?;
                x.pop().filter(|&c| c == 'x')?;
                Some(x)
            })
            .as_deref()?;
        Some(joined(dir, text))
    }
}

/// `a` then `b`, in one allocation of their length.
fn joined(a: &str, b: &str) -> String {
    let mut s = String::with_capacity(a.len() + b.len());
    s.push_str(a);
    s.push_str(b);
    s
}

/// Whether a path in `r` may hold a dot-segment (`.`, `..`, or either
/// percent-encoded): `r` starts with `.` or `%`, or holds `/.` or `/%`.
fn may_have_dots(r: &[u8]) -> bool {
    const SLASH: u64 = crate::words::splat(b'/');
    let dot_after = |i: usize| matches!(r.get(i + 1), Some(b'.' | b'%'));
    if matches!(r.first(), Some(b'.' | b'%')) {
        return true;
    }
    if r.len() > 64 {
        return memchr::memchr_iter(b'/', r).any(dot_after);
    }
    // Most references are short: their `/`s found eight bytes at a time
    // (a flagged byte that is not a `/` is passed over).
    let mut words = r.chunks_exact(8);
    let mut at = 0;
    for w in &mut words {
        if let Ok(w) = <[u8; 8]>::try_from(w) {
            let x = u64::from_le_bytes(w) ^ SLASH;
            let mut m = crate::words::zero_bytes(x);
            while m != 0 {
                let i = at + (m.trailing_zeros() / 8) as usize;
                if r.get(i) == Some(&b'/') && dot_after(i) {
                    return true;
                }
                m &= m - 1;
            }
        }
        at += 8;
    }
    (at..r.len()).any(|i| r.get(i) == Some(&b'/') && dot_after(i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn piece() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(
            prop::sample::select(vec![
                &b"a"[..],
                b"B",
                b"1",
                b".",
                b"..",
                b"/",
                b"//",
                b"%2e",
                b"%2E",
                b"#",
                b"?",
                b":",
                b"http:",
                b"x-y+z.w:",
                b"\xc3\xa9",
                b"\xff",
                b" ",
                b"g.html",
            ]),
            0..8,
        )
        .prop_map(|v| v.concat())
    }

    proptest! {
        /// The shortcuts give what resolution by parts gives, whatever the
        /// base and the reference.
        #[test]
        fn resolver_is_resolve(base in piece(), r in piece(), prefix in prop::sample::select(vec![&b""[..], b"http://h", b"http://h/", b"s:", b"s://h/a/b"])) {
            let base = [prefix, &base[..]].concat();
            let b = Base::new(&base);
            let resolver = Resolver::new(b);
            // Twice: the second answer comes from the prefixes worked out.
            prop_assert_eq!(resolver.resolve(&r), resolve(b, &r));
            prop_assert_eq!(resolver.resolve(&r), resolve(b, &r));
        }
    }

    proptest! {
        #[test]
        fn may_have_dots_is_its_definition(r in proptest::collection::vec(prop::sample::select(vec![b'/', b'.', b'%', b'a', 0x2e ^ 0x80, 0x2f ^ 0x01]), 0..90)) {
            let want = matches!(r.first(), Some(b'.' | b'%'))
                || r.windows(2).any(|w| w[0] == b'/' && matches!(w[1], b'.' | b'%'));
            prop_assert_eq!(may_have_dots(&r), want);
        }
    }

    #[test]
    fn resolver_shortcuts() {
        let b = Base::new(b"http://ex.org/d/p.html?q#f");
        let r = Resolver::new(b);
        for (reference, want) in [
            (&b"#x"[..], "http://ex.org/d/p.html?q#x"),
            (b"x.html?y#z", "http://ex.org/d/x.html?y#z"),
            (b"https://o.example/a/b?c", "https://o.example/a/b?c"),
            (b"../x", "http://ex.org/x"),
            (b"https://o.example/a/./b", "https://o.example/a/b"),
            (b"mailto:a@b", "mailto:a@b"),
        ] {
            assert_eq!(r.resolve(reference).as_deref(), Some(want));
        }
        let none = Resolver::new(None);
        assert_eq!(none.resolve(b"#x"), None);
        assert_eq!(none.resolve(b"x"), None);
        assert_eq!(none.resolve(b"http://h/a").as_deref(), Some("http://h/a"));
    }
}
