//! Every use of the other urlsift crates (the extractor of `urlsift-core`
//! and the resolver of `urlsift-uri`), in one place, but for the matches
//! made of links ([`crate::decoded`]).

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
