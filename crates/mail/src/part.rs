//! A message's decoded parts, handed to the caller's [`PartReader`] to be
//! scanned: the mail reader decodes (transfer encoding, charset, header
//! unfolding) and maps each URL back into the file; the reader finds the
//! URLs, as the caller has configured it.

use urlsift_core::{Extractor, Match};
use urlsift_html::LinkOptions;

/// How a part's text is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartKind {
    /// By the text rules (RFC 3986 Appendix C / RFC 2396 Appendix E): a
    /// header block, a text part other than HTML, the rest of an overlong
    /// message, the text of a multipart outside its parts.
    Text,
    /// As HTML: a `text/html` part, in UTF-8 when its charset was known.
    Html,
}

/// One decoded text of a message, to be scanned.
#[derive(Clone, Copy, Debug)]
pub struct PartText<'t> {
    /// The text.
    pub text: &'t [u8],
    /// How it is read.
    pub kind: PartKind,
}

/// What finds the URLs of a message's decoded parts. An [`Extractor`] is
/// one: the text rules for text, the HTML reader with its default options
/// ([`html_part_urls`]) for HTML.
///
/// ```
/// use urlsift_core::Extractor;
/// use urlsift_mail::{PartKind, PartReader, PartText};
/// let mut urls = Vec::new();
/// let part = PartText { text: b"<a href='http://a.example/?x&amp;y'>x</a>", kind: PartKind::Html };
/// Extractor::new().read(part, &mut |m| urls.push(m.url_str().into_owned()));
/// assert_eq!(urls, ["http://a.example/?x&y"]);
/// ```
pub trait PartReader: Sync {
    /// Each URL of `part`, to `found`: offsets in `part.text`, in the
    /// order they are found (an HTML reading's may go back).
    fn read(&self, part: PartText<'_>, found: &mut dyn FnMut(Match<'_>));
}

impl PartReader for Extractor {
    fn read(&self, part: PartText<'_>, found: &mut dyn FnMut(Match<'_>)) {
        match part.kind {
            PartKind::Text => {
                self.scan(part.text, 0, part.text.len(), 0, found);
            }
            PartKind::Html => html_part_urls(part.text, &LinkOptions::default(), found),
        }
    }
}

/// The URLs of an HTML part, read by the one HTML reader of HTML files and
/// web archives ([`urlsift_html::decoded_html_links`]): URL attributes by
/// the WHATWG attribute-value and character reference rules, resolved
/// against the part's `<base href>`, else `opts.base` (left out without
/// one), and every absolute URL elsewhere, as `opts` asks. The text is
/// not sniffed for a charset: the part's headers gave it.
///
/// ```
/// let mut urls = Vec::new();
/// let opts = urlsift_html::LinkOptions { base: Some("https://ex.org/d/".into()), ..Default::default() };
/// urlsift_mail::html_part_urls(b"<a href=\"a\n.html\">x</a>", &opts, &mut |m| {
///     urls.push(m.url_str().into_owned())
/// });
/// assert_eq!(urls, ["https://ex.org/d/a.html"]);
/// ```
pub fn html_part_urls(text: &[u8], opts: &LinkOptions, found: &mut dyn FnMut(Match<'_>)) {
    urlsift_html::decoded_html_links(text, opts.base.as_deref(), opts, |link| {
        if let Some(m) = urlsift_html::link_match(&link) {
            found(m);
        }
    });
}
