//! The URLs of an HTML text that is already decoded (a mail part, whose
//! charset its MIME headers gave), as the project's matches: one HTML
//! reading for files, web archive records and mail parts.

use std::borrow::Cow;

use urlsift_core::{Kind, Match, Style};

use crate::html;
use crate::links::{Link, LinkOptions, html_links_in};

/// The links of `html`, a text already in UTF-8 (no byte order mark,
/// `Content-Type` or `<meta charset>` is looked at: the caller decoded
/// it), as [`crate::html_links`] reads a page: URL attributes and CSS
/// `url()`s resolved against `<base href>` (else `doc`), and the absolute
/// URLs of the rest, as `opts` asks.
///
/// ```
/// use urlsift_html::{LinkOptions, decoded_html_links};
/// // A wrapped href is one URL; a quoted space stays in it.
/// let part = "<a href=\"http://a.example/long/\npath\">x</a> <a href=\"mailto:x@y?subject=Site Feedback\">m</a>";
/// let mut got = Vec::new();
/// decoded_html_links(part.as_bytes(), None, &LinkOptions::default(), |l| got.push(l.url));
/// assert_eq!(got, ["http://a.example/long/path", "mailto:x@y?subject=Site Feedback"]);
/// ```
pub fn decoded_html_links(
    html: &[u8],
    doc: Option<&str>,
    opts: &LinkOptions,
    mut sink: impl FnMut(Link),
) {
    html_links_in(html, doc, opts, html::Window::DEFAULT, &mut |l| {
        sink(l);
        true
    });
}

/// A link as a match, as the text extractor reports one: `start`/`end`
/// span the link as written (for an attribute, its value), `style` is
/// `quoted` for attributes, CSS and headers and `bare` for text, a text
/// URL without a scheme is a `www` one. `None` for a relative reference
/// that found no base: it is not a URL.
///
/// ```
/// use urlsift_html::{LinkOptions, html_links, link_match};
/// let mut got = Vec::new();
/// html_links(b"<a href=/rel>x</a> <a href='http://a.example/?x&amp;y'>", None, &LinkOptions::default(), |l| {
///     got.push(link_match(&l).map(|m| (m.url_str().into_owned(), m.start)))
/// });
/// assert_eq!(got, [None, Some(("http://a.example/?x&y".into(), 28))]);
/// ```
pub fn link_match(link: &Link) -> Option<Match<'_>> {
    let text = link.source.is_text();
    if !link.resolved && !text {
        return None;
    }
    let www = !link.resolved && link.url.len() >= 4 && link.url[..4].eq_ignore_ascii_case("www.");
    Some(Match {
        start: link.offset,
        end: link.end,
        url: Cow::Borrowed(link.url.as_bytes()),
        style: if text { Style::Bare } else { Style::Quoted },
        kind: if www { Kind::Www } else { Kind::Uri },
        ambiguous: false,
    })
}
