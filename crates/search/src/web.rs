//! Web pages as records: the links of an HTML document or of a web archive
//! record ([`urlsift_warc`]) turned into [`Match`]es with their
//! [`WebWhere`], ready for the printer.
//!
//! The WARC path of a run ([`record_links`]), the HTML-file path, and
//! callers with a page in memory ([`html_document_links`]) share this one
//! conversion, so a link reads the same wherever it was found:
//!
//! - `url` is what [`urlsift_warc`] reports: absolute for an attribute or a
//!   header link, as the text rules delimit it for a text link. A relative
//!   reference that found no base is not a URL and is left out.
//! - `start`/`end` span the link as written in the page (for an attribute,
//!   its value), `style` is `quoted` for attributes and headers and `bare`
//!   for text; a text URL without a scheme is a `www` one.
//! - [`WebWhere`] says where: `source`, `source_name`, `found`, and for a
//!   web archive record, its `warc_*` headers and offset.

use std::borrow::Cow;

use urlsift_core::Match;
use urlsift_html::{Link, LinkOptions, Source};
use urlsift_printer::WebWhere;

/// The most bytes of one HTML input (a file or a stream) read as HTML: 64
/// MiB, the body cap of web archive records. A page is read whole (its
/// links are then found a window at a time), so this bounds the memory one
/// input takes. A longer input is HTML up to its last newline before the
/// cap, and the text rules read the rest.
pub const MAX_HTML: usize = 64 << 20;

/// Whether an input whose first bytes are `head` is HTML: WHATWG MIME
/// sniffing's HTML patterns (`<!DOCTYPE HTML`, `<HTML`, `<HEAD`, `<SCRIPT`,
/// `<IFRAME`, `<H1`, `<DIV`, `<FONT`, `<TABLE`, `<A`, `<STYLE`, `<TITLE`,
/// `<B`, `<BODY`, `<BR`, `<P`, `<!--`, each followed by a space or `>`,
/// case-insensitively) after whitespace and an optional UTF-8 byte order
/// mark; see [`urlsift_html::sniff_html`]. Only the first 1445 bytes count.
///
/// ```
/// use urlsift_search::web::is_html;
/// assert!(is_html(b"\xef\xbb\xbf <!DOCTYPE html><title>t</title>"));
/// assert!(is_html(b"<P>see http://a.example/"));
/// assert!(!is_html(b"<htmlx>"));
/// assert!(!is_html(b"see <a href=x>"));
/// ```
pub fn is_html(head: &[u8]) -> bool {
    urlsift_html::sniff_html(head)
}

/// The 1-based lines of offsets into one text that mostly go forward (an
/// HTML page's links, in document order): one newline count from the last
/// offset to the next; should an offset go back, counted again from the
/// start.
///
/// ```
/// let page = b"a\nb\nc";
/// let mut lines = urlsift_search::web::Lines::default();
/// assert_eq!(lines.at(page, 4), 3);
/// assert_eq!(lines.at(page, 2), 2);
/// ```
#[derive(Debug)]
pub struct Lines {
    pos: usize,
    line: u64,
}

impl Default for Lines {
    fn default() -> Self {
        Lines { pos: 0, line: 1 }
    }
}

impl Lines {
    /// The line of `hay[at]` (`at` past the end: the last line).
    pub fn at(&mut self, hay: &[u8], at: usize) -> u64 {
        let at = at.min(hay.len());
        if at < self.pos {
            (self.pos, self.line) = (0, 1);
        }
        self.line += urlsift_core::newlines(hay.get(self.pos..at).unwrap_or_default());
        self.pos = at;
        self.line
    }
}

/// The links of the HTML document `html`, in document order: its URL
/// attributes (`href`, `src`, `action`, `srcset`, ... see
/// [`urlsift_html::html_links`]) resolved (RFC 3986 5.2) against the first
/// `<base href>` (itself resolved against `base`), else against `base`;
/// CSS `url()`s, resolved alike; the absolute URLs of other attribute
/// values, scripts, styles and comments; and the URLs of its text between
/// tags, after character references are decoded. With no base at all,
/// relative references are left out.
///
/// `each` gets each link as a [`Match`] (offsets in `html`) and its
/// [`WebWhere`] (`source`, `source_name`, `found`; no `warc_*` fields).
/// The whole document is read: a caller bounds its size (the command line
/// reads at most [`MAX_HTML`] bytes as HTML).
///
/// ```
/// use urlsift_search::web::html_document_links;
/// let page = br#"<base href="/docs/"><a href="a&amp;b.html">see http://c.example/</a> <img src=//d.example/i.png>"#;
/// let mut got = Vec::new();
/// html_document_links(page, Some("https://ex.org/x/"), |m, web| {
///     got.push((m.url_str().into_owned(), web.source, web.source_name.clone(), m.start));
/// });
/// assert_eq!(got[0], ("https://ex.org/docs/a&b.html".into(), "attribute", Some("a@href".into()), 29));
/// assert_eq!((got[1].0.as_str(), got[1].1), ("http://c.example/", "text"));
/// assert_eq!(got[2].0, "https://d.example/i.png");
///
/// // No base: the relative reference is left out, absolute ones are kept.
/// let mut urls = Vec::new();
/// html_document_links(b"<a href=rel.html>x</a><a href=http://e.example/>", None, |m, _| {
///     urls.push(m.url_str().into_owned())
/// });
/// assert_eq!(urls, ["http://e.example/"]);
/// ```
pub fn html_document_links(
    html: &[u8],
    base: Option<&str>,
    each: impl FnMut(&Match<'_>, &WebWhere),
) {
    let opts = LinkOptions {
        base: base.map(str::to_owned),
        ..LinkOptions::default()
    };
    html_document_links_with(html, &opts, each);
}

/// [`html_document_links`] with these options: the base is
/// [`LinkOptions::base`], and [`LinkOptions::links_only`] gives the links
/// and the text between tags only. The page is read in its encoding
/// ([`urlsift_html::page_encoding`]: a byte order mark, else a `<meta
/// charset>`, else UTF-8); returns a warning for a charset label that
/// names no encoding.
///
/// ```
/// use urlsift_search::web::html_document_links_with;
/// use urlsift_warc::LinkOptions;
/// let page = b"<a href=/a>t</a><!-- http://c.example/ -->";
/// let opts = LinkOptions { base: Some("http://ex.org/".into()), ..LinkOptions::links_only() };
/// let mut got = Vec::new();
/// html_document_links_with(page, &opts, |m, web| got.push((m.url_str().into_owned(), web.source)));
/// assert_eq!(got, [("http://ex.org/a".to_owned(), "attribute")]);
/// ```
pub fn html_document_links_with(
    html: &[u8],
    opts: &LinkOptions,
    mut each: impl FnMut(&Match<'_>, &WebWhere),
) -> Option<String> {
    let mut web = WebWhere::default();
    let mut each = |m: &Match<'_>, web: &WebWhere| {
        each(m, web);
        true
    };
    urlsift_html::html_page_links(html, opts.base.as_deref(), None, opts, |link| {
        emit(link, &mut web, &mut each);
    })
}

/// The links of one web archive record ([`urlsift_warc::record_links`]:
/// its HTTP header links, then its page's), each as a [`Match`] (offsets in
/// the record's decoded payload; a header link's, in the record block) and
/// a [`WebWhere`] carrying the record's `warc_*` headers and offset.
///
/// Returns what went wrong decoding the payload, if anything (a corrupt
/// content coding, broken chunked framing): the links of what could be
/// decoded before the break are reported all the same.
///
/// ```
/// let block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href='b'>x</a>";
/// let rec = urlsift_warc::Record {
///     warc_type: "response".into(),
///     target_uri: Some("http://a.example/d/".into()),
///     offset: 7,
///     block: block.to_vec(),
///     ..Default::default()
/// };
/// let mut got = Vec::new();
/// urlsift_search::web::record_links(&rec, &Default::default(), |m, web| {
///     got.push((m.url_str().into_owned(), web.warc_offset, web.warc_type.clone()))
/// });
/// assert_eq!(got, [("http://a.example/d/b".into(), Some(7), Some("response".into()))]);
/// ```
pub fn record_links(
    rec: &urlsift_warc::Record,
    opts: &LinkOptions,
    mut each: impl FnMut(&Match<'_>, &WebWhere),
) -> Option<String> {
    record_links_while(rec, opts, |m, web| {
        each(m, web);
        true
    })
    .problem
}

/// [`record_links`], handing links to `each` until it returns false
/// ([`urlsift_warc::record_links_while`]). A relative reference that found
/// no base is left out before `each`, as there.
pub(crate) fn record_links_while(
    rec: &urlsift_warc::Record,
    opts: &LinkOptions,
    mut each: impl FnMut(&Match<'_>, &WebWhere) -> bool,
) -> urlsift_warc::Outcome {
    let mut web = WebWhere {
        warc_target_uri: rec.target_uri.clone(),
        warc_record_id: rec.record_id.clone(),
        warc_date: rec.date.clone(),
        warc_type: Some(rec.warc_type.clone()),
        warc_offset: Some(rec.offset),
        warc_length: rec.length,
        http_status: urlsift_warc::http_status(rec),
        ..WebWhere::default()
    };
    urlsift_warc::record_links_outcome(rec, opts, |link| emit(link, &mut web, &mut each))
}

/// One link as a match, with `web` updated to its place, handed to `each`;
/// a relative reference that found no base is left out. Returns what
/// `each` does (true when it is left out).
fn emit(
    mut link: Link,
    web: &mut WebWhere,
    each: &mut impl FnMut(&Match<'_>, &WebWhere) -> bool,
) -> bool {
    let found = link.found.take();
    let rel = link.rel.take();
    let Some(m) = urlsift_html::link_match(&link) else {
        return true;
    };
    web.source = link.source.kind();
    web.source_name = source_name(&link.source);
    web.found = found;
    web.rel = rel;
    each(&m, web)
}

/// The `source_name` of a link: `tag@attribute`, or the header's name.
fn source_name(source: &Source) -> Option<Cow<'static, str>> {
    match source {
        Source::Text | Source::Script | Source::Style | Source::Comment => None,
        Source::Header { name } => Some(Cow::Borrowed(name)),
        Source::Attribute { tag, attr } => Some(attribute_name(tag, attr)),
        Source::Css { tag, attr: "" } => Some(tag.clone()),
        Source::Css { tag, attr } => Some(attribute_name(tag, attr)),
        Source::AttributeText { tag, attr } => Some(attribute_name(tag, attr)),
    }
}

/// `tag@attr`, borrowed from a table for the pairs pages use (HTML's URL
/// attributes on the elements that define them), made only for others.
fn attribute_name(tag: &str, attr: &str) -> Cow<'static, str> {
    macro_rules! table {
        ($($tag:literal @ $attr:literal),* $(,)?) => {
            match (attr, tag) {
                $(($attr, $tag) => return Cow::Borrowed(concat!($tag, "@", $attr)),)*
                _ => {}
            }
        };
    }
    table!(
        "a" @ "href", "link" @ "href", "area" @ "href", "image" @ "href", "use" @ "href",
        "img" @ "src", "script" @ "src", "iframe" @ "src", "frame" @ "src",
        "source" @ "src", "video" @ "src", "audio" @ "src", "embed" @ "src",
        "track" @ "src", "input" @ "src",
        "img" @ "srcset", "source" @ "srcset",
        "form" @ "action", "button" @ "formaction", "input" @ "formaction",
        "blockquote" @ "cite", "q" @ "cite", "del" @ "cite", "ins" @ "cite",
        "video" @ "poster",
        "body" @ "background", "table" @ "background", "td" @ "background",
        "th" @ "background", "tr" @ "background",
        "img" @ "longdesc", "frame" @ "longdesc", "iframe" @ "longdesc",
        "object" @ "data", "html" @ "manifest", "meta" @ "content",
        "a" @ "ping", "area" @ "ping", "a" @ "xlink:href", "use" @ "xlink:href",
        "image" @ "xlink:href", "svg" @ "xmlns", "html" @ "xmlns",
        "div" @ "style", "span" @ "style", "p" @ "style", "body" @ "style",
        "td" @ "style", "a" @ "style",
    );
    Cow::Owned(format!("{tag}@{attr}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use urlsift_core::Kind;

    #[test]
    fn attribute_names_come_from_the_table_or_are_made() {
        for (tag, attr) in [("a", "href"), ("img", "srcset"), ("meta", "content")] {
            let n = attribute_name(tag, attr);
            assert!(matches!(n, Cow::Borrowed(_)), "{tag}@{attr}");
            assert_eq!(n, format!("{tag}@{attr}"));
        }
        let n = attribute_name("my-widget", "href");
        assert!(matches!(n, Cow::Owned(_)));
        assert_eq!(n, "my-widget@href");
    }

    #[test]
    fn a_table_name_is_the_pair_it_is_found_for() {
        // Every borrowed name splits back into the pair that found it.
        for tag in ["a", "img", "q", "td", "object", "html", "meta", "x"] {
            for attr in ["href", "src", "srcset", "cite", "data", "content"] {
                let n = attribute_name(tag, attr);
                assert_eq!(n, format!("{tag}@{attr}"));
            }
        }
    }

    #[test]
    fn html_links_carry_no_record_fields() {
        let mut rows = Vec::new();
        html_document_links(
            b"<a href='http://a.example/?x=1&amp;y'>t</a> www.b.example",
            None,
            |m, w| rows.push((m.url_str().into_owned(), m.kind, w.clone())),
        );
        assert_eq!(rows.len(), 2);
        let (url, kind, w) = &rows[0];
        assert_eq!(
            (url.as_str(), *kind),
            ("http://a.example/?x=1&y", Kind::Uri)
        );
        assert_eq!(w.found.as_deref(), Some("http://a.example/?x=1&amp;y"));
        assert_eq!((w.warc_type.as_ref(), w.warc_offset), (None, None));
        let (url, kind, w) = &rows[1];
        assert_eq!((url.as_str(), *kind), ("www.b.example", Kind::Www));
        assert_eq!(
            (w.source, w.source_name.as_ref(), w.found.as_ref()),
            ("text", None, None)
        );
    }
}
