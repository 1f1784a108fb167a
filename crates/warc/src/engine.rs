//! Every use of the other urlsift crates (the extractor of `urlsift-core`
//! and the resolver of `urlsift-uri`), in one place.

use urlsift_core::extract::{Extractor, Kind};
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
