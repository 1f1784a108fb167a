//! The links of one page, its HTTP headers, or text: a pure function of
//! its input, so pages can be spread over threads and their links put back
//! in order.

use std::borrow::Cow;
use std::cell::{Cell, OnceCell};

use crate::charset::{self, page_encoding};
use crate::engine::{self, Base, Resolver};
use crate::entities::decode_char_refs;
use crate::html;

/// The most bytes of a decoded body looked at by default
/// ([`LinkOptions::max_body`]): 64 MiB.
pub const DEFAULT_MAX_BODY: usize = 64 * 1024 * 1024;

/// Where a link was found.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// In text: a WET conversion, a text payload, or the text between the
    /// tags of an HTML page.
    Text,
    /// In an HTML URL attribute, e.g. `a`/`href`, `img`/`srcset`,
    /// `meta`/`content` (refresh, Open Graph), resolved.
    Attribute {
        /// The tag name, lowercased (borrowed for the elements that define
        /// URL attributes).
        tag: Cow<'static, str>,
        /// The attribute name, lowercase.
        attr: &'static str,
    },
    /// A CSS `url()` or `@import` string, resolved: in a `style` attribute
    /// (`attr` is `"style"`) or a `<style>` element (`tag` is `"style"`,
    /// `attr` is empty).
    Css {
        /// The tag name, lowercased.
        tag: Cow<'static, str>,
        /// `"style"` for the attribute, empty for the element.
        attr: &'static str,
    },
    /// An absolute URL in the value of an HTML attribute that is not a URL
    /// attribute (`meta`/`content`, `data-src`, `svg`/`xmlns`, ...), by the
    /// text rules.
    AttributeText {
        /// The tag name, lowercased.
        tag: Cow<'static, str>,
        /// The attribute name, lowercased.
        attr: Cow<'static, str>,
    },
    /// An absolute URL in a `script` element, by the text rules.
    Script,
    /// An absolute URL in a `style` element outside its `url()`s, by the
    /// text rules.
    Style,
    /// An absolute URL in a comment, doctype or other markup declaration,
    /// by the text rules.
    Comment,
    /// In an HTTP response header: `Location`, `Content-Location` or `Link`.
    Header {
        /// The header name.
        name: &'static str,
    },
}

impl Source {
    /// The name used in output: `text`, `attribute`, `css`,
    /// `attribute-text`, `script`, `style`, `comment` or `header`.
    ///
    /// ```
    /// assert_eq!(urlsift_html::Source::Script.kind(), "script");
    /// ```
    pub fn kind(&self) -> &'static str {
        match self {
            Source::Text => "text",
            Source::Attribute { .. } => "attribute",
            Source::Css { .. } => "css",
            Source::AttributeText { .. } => "attribute-text",
            Source::Script => "script",
            Source::Style => "style",
            Source::Comment => "comment",
            Source::Header { .. } => "header",
        }
    }

    /// Whether the link was read by the text rules (as written, not
    /// resolved): text, and the text of attributes, scripts, styles and
    /// comments.
    pub fn is_text(&self) -> bool {
        matches!(
            self,
            Source::Text
                | Source::AttributeText { .. }
                | Source::Script
                | Source::Style
                | Source::Comment
        )
    }
}

/// One link of a page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// The URL. Attribute and header links are resolved (RFC 3986 5.2)
    /// against the page's base and so absolute, unless there was no base
    /// (then `resolved` is false and this is the reference as written,
    /// cleaned of whitespace). Text links are as the text extractor
    /// delimits them.
    pub url: String,
    /// The text as written, when it differs from `url` (relative, entity-
    /// encoded, or with whitespace removed).
    pub found: Option<String>,
    /// Where it was found.
    pub source: Source,
    /// True when `url` is absolute (has a scheme): false for a relative
    /// reference without a base, and for an abbreviated `www.` text URL.
    pub resolved: bool,
    /// Byte offset of the link: for text and attribute links, in the page's
    /// decoded body (after transfer and content codings; the attribute
    /// value's start, or a `srcset` candidate's or refresh URL's own when
    /// the attribute holds no character reference); for header links, in
    /// the record block. A page that is not UTF-8 is read decoded, and its
    /// offsets are in its bytes as stored.
    pub offset: usize,
    /// Byte offset one past the link as written (as `offset`).
    pub end: usize,
    /// For a URL attribute of a tag with a `rel` (`<a>`, `<area>`,
    /// `<link>`, `<form>`): its link types, in ASCII lower case, separated
    /// by one space (`nofollow noopener`); `None` for other links.
    pub rel: Option<String>,
}

/// What the link pass looks at. The default reads every URL of an HTML
/// page; [`LinkOptions::links_only`] its links and the text between tags.
#[derive(Clone, Debug)]
pub struct LinkOptions {
    /// Scan the text between the tags of HTML pages. Default: true.
    pub text: bool,
    /// Scan `script` and `style` contents (and `xmp`, `iframe`, `noembed`,
    /// `noframes`) by the text rules, without character references: the
    /// absolute URLs of scripts and styles. Default: true.
    pub scan_scripts: bool,
    /// Scan the values of attributes that are not URL attributes, comments
    /// and other markup declarations (doctypes) by the text rules: their
    /// absolute URLs. Default: true.
    pub markup: bool,
    /// The base for pages without a `WARC-Target-URI` (and for plain files).
    pub base: Option<String>,
    /// The most bytes of a decoded body looked at. Default: 64 MiB.
    pub max_body: usize,
    /// Scan payloads that are not text (images, fonts, archives, binary
    /// bytes) as text: a web archive reader's choice. Default: false.
    pub binary: bool,
}

impl Default for LinkOptions {
    fn default() -> Self {
        LinkOptions {
            text: true,
            scan_scripts: true,
            markup: true,
            base: None,
            max_body: DEFAULT_MAX_BODY,
            binary: false,
        }
    }
}

impl LinkOptions {
    /// An HTML page's links only: its URL attributes and CSS `url()`s,
    /// resolved, and the URLs of the text between its tags; not the text
    /// of other attributes, scripts, styles and comments.
    ///
    /// ```
    /// use urlsift_html::{html_links, LinkOptions};
    /// let page = b"<a href=/a data-x='http://d.example/'>t</a><script>'http://s.example/'</script>";
    /// let mut all = Vec::new();
    /// html_links(page, Some("http://ex.org/"), &LinkOptions::default(), |l| all.push(l.url));
    /// assert_eq!(all, ["http://ex.org/a", "http://d.example/", "http://s.example/"]);
    /// let mut links = Vec::new();
    /// html_links(page, Some("http://ex.org/"), &LinkOptions::links_only(), |l| links.push(l.url));
    /// assert_eq!(links, ["http://ex.org/a"]);
    /// ```
    pub fn links_only() -> LinkOptions {
        LinkOptions {
            scan_scripts: false,
            markup: false,
            ..LinkOptions::default()
        }
    }
}

/// The `Location`, `Content-Location` and `Link` (`<uri>; rel=...`, each
/// URI) header links of an HTTP response, resolved against `doc`. Each
/// header is its name, its value and the value's byte offset (the links'
/// offsets count from it); other headers are passed over.
///
/// ```
/// let headers = [
///     (&b"Location"[..], &b"/moved"[..], 17),
///     (b"Link", b"<a.css>; rel=stylesheet, </b>; rel=next", 40),
/// ];
/// let mut got = Vec::new();
/// urlsift_html::header_links(headers, Some("http://ex.org/d/p"), |l| got.push((l.url, l.offset)));
/// assert_eq!(got, [
///     ("http://ex.org/moved".to_owned(), 17),
///     ("http://ex.org/d/a.css".to_owned(), 41),
///     ("http://ex.org/b".to_owned(), 66),
/// ]);
/// ```
pub fn header_links<'h>(
    headers: impl IntoIterator<Item = (&'h [u8], &'h [u8], usize)>,
    doc: Option<&str>,
    mut sink: impl FnMut(Link),
) {
    let base = Resolver::new(doc.and_then(|d| Base::new(d.as_bytes())));
    for (name, value, off) in headers {
        let name: &'static str = if name.eq_ignore_ascii_case(b"location") {
            "Location"
        } else if name.eq_ignore_ascii_case(b"content-location") {
            "Content-Location"
        } else if name.eq_ignore_ascii_case(b"link") {
            "Link"
        } else {
            continue;
        };
        if name != "Link" {
            sink(reference(&base, value, value, Source::Header { name }, off));
            continue;
        }
        let mut i = 0;
        while let Some(p) = memchr::memchr(b'<', value.get(i..).unwrap_or_default()) {
            let s = i + p + 1;
            let Some(e) = memchr::memchr(b'>', value.get(s..).unwrap_or_default()) else {
                break;
            };
            let v = value.get(s..s + e).unwrap_or_default();
            sink(reference(&base, v, v, Source::Header { name }, off + s));
            // Skip the parameters, to the next link (a `,` outside quotes).
            let mut j = s + e + 1;
            let mut quoted = false;
            while let Some(&b) = value.get(j) {
                match b {
                    b'"' => quoted = !quoted,
                    b',' if !quoted => break,
                    _ => {}
                }
                j += 1;
            }
            i = j;
        }
    }
}

/// A link written in markup other than an HTML page (the link records of
/// a WAT file's JSON, say): `written` with its character references
/// decoded (as in an attribute), cleaned as a URL attribute is, resolved
/// (RFC 3986 5.2) against `base`. Its offsets are 0.
///
/// ```
/// use urlsift_html::{Source, markup_link};
/// let l = markup_link(Some("http://ex.org/a/"), " b?x=1&amp;y=2", Source::Text);
/// assert_eq!(l.url, "http://ex.org/a/b?x=1&y=2");
/// assert_eq!(l.found.as_deref(), Some(" b?x=1&amp;y=2"));
/// assert!(l.resolved);
/// ```
pub fn markup_link(base: Option<&str>, written: &str, source: Source) -> Link {
    let base = base.and_then(|b| Base::new(b.as_bytes()));
    let mut decoded = Vec::with_capacity(written.len());
    decode_char_refs(written.as_bytes(), true, &mut decoded, |_, _| {});
    let v = clean(&decoded);
    let (url, resolved) = match engine::resolve(base, &v) {
        Some(u) => (u, true),
        None => (String::from_utf8_lossy(&v).into_owned(), false),
    };
    let found = (written != url).then(|| written.to_owned());
    Link {
        url,
        found,
        source,
        resolved,
        offset: 0,
        end: 0,
        rel: None,
    }
}

/// A URL attribute's value cleaned as URL parsers do: leading and trailing
/// C0 controls and spaces stripped, tabs and newlines removed.
fn clean(v: &[u8]) -> Cow<'_, [u8]> {
    let s = v.iter().position(|&b| b > b' ').unwrap_or(v.len());
    let e = v.iter().rposition(|&b| b > b' ').map_or(s, |p| p + 1);
    let v = v.get(s..e).unwrap_or_default();
    if tab_or_newline(v) {
        Cow::Owned(
            v.iter()
                .copied()
                .filter(|b| !matches!(b, b'\t' | b'\n' | b'\r'))
                .collect(),
        )
    } else {
        Cow::Borrowed(v)
    }
}

/// Whether `v` holds a tab, a line feed or a carriage return: eight
/// bytes at a time (most values hold none, and are short).
#[inline]
fn tab_or_newline(v: &[u8]) -> bool {
    use crate::words::{any_word, splat, zero_bytes};
    if v.len() > 64 {
        return memchr::memchr3(b'\t', b'\n', b'\r', v).is_some();
    }
    let hit = |w: u64| {
        zero_bytes(w ^ splat(b'\t')) | zero_bytes(w ^ splat(b'\n')) | zero_bytes(w ^ splat(b'\r'))
            != 0
    };
    any_word(v, hit, |b| matches!(b, b'\t' | b'\n' | b'\r'))
}

/// `b` as a `String`, invalid UTF-8 replaced by U+FFFD. Valid UTF-8 (nearly
/// every link) is checked by `from_utf8`, faster than the lossy decoder.
pub(crate) fn owned(b: &[u8]) -> String {
    match std::str::from_utf8(b) {
        Ok(s) => s.to_owned(),
        Err(_) => String::from_utf8_lossy(b).into_owned(),
    }
}

/// A reference resolved (or not) into a [`Link`].
fn reference(
    base: &Resolver<'_>,
    value: &[u8],
    written: &[u8],
    source: Source,
    offset: usize,
) -> Link {
    let v = clean(value);
    let text = std::str::from_utf8(&v).ok();
    let (url, resolved) = match base.resolve_text(&v, text) {
        Some(u) => (u, true),
        None => (owned(&v), false),
    };
    let found = (written != url.as_bytes()).then(|| match text {
        // Most values are written as they read: checked once.
        Some(t) if written == t.as_bytes() => t.to_owned(),
        _ => owned(written),
    });
    Link {
        url,
        found,
        source,
        resolved,
        offset,
        end: offset + written.len(),
        rel: None,
    }
}

/// The links of an HTML document, in document order: URL attributes
/// (`href`, `src`, `action`, `formaction`, `cite`, `poster`, `background`,
/// `longdesc`, `srcset` candidates, `object`/`data`, `html`/`manifest`,
/// meta refresh), resolved against the first `<base href>` (itself resolved
/// against `doc`), else `doc`; and, with [`LinkOptions::text`], the URLs in
/// its text, each where it is written among the attributes.
///
/// ```
/// use urlsift_html::{html_links, LinkOptions, Source};
/// let page = br#"<base href="/docs/"><a href="mailto:a&#37;&#52;&#48;b.org">x</a>
/// <img srcset="a.png 1x, b.png 2x"> see http://c.example/ <a href=" g
/// h ">"#;
/// let mut got = Vec::new();
/// html_links(page, Some("http://ex.org/index.html"), &LinkOptions::default(), |l| got.push(l.url));
/// assert_eq!(got, [
///     "mailto:a%40b.org",
///     "http://ex.org/docs/a.png",
///     "http://ex.org/docs/b.png",
///     "http://c.example/",
///     "http://ex.org/docs/gh",
/// ]);
/// ```
pub fn html_links(html: &[u8], doc: Option<&str>, opts: &LinkOptions, mut sink: impl FnMut(Link)) {
    html_page_links_in(html, doc, None, opts, html::Window::DEFAULT, &mut |l| {
        sink(l);
        true
    });
}

/// [`html_links`] for a page whose HTTP `Content-Type` is `content_type`
/// (if known), read in its encoding ([`page_encoding`]: a byte order mark,
/// the `Content-Type` charset, a `<meta charset>` in its first 1024 bytes,
/// else UTF-8). A page that is not UTF-8 is decoded: its URLs are UTF-8,
/// and their offsets are in the page's bytes as stored. Returns a warning
/// when a charset label names no known encoding (the page is then read by
/// the next rule).
///
/// ```
/// use urlsift_html::{html_page_links, LinkOptions};
/// // "Путь" in windows-1251, declared by a <meta>.
/// let page = b"<meta charset=windows-1251><a href=\"/\xcf\xf3\xf2\xfc\">x</a>";
/// let mut got = Vec::new();
/// let warning = html_page_links(page, Some("https://ex.ru/"), None, &LinkOptions::default(), |l| {
///     got.push((l.url, l.offset, l.end))
/// });
/// assert_eq!(got, [("https://ex.ru/Путь".to_owned(), 36, 41)]);
/// assert_eq!(&page[36..41], b"/\xcf\xf3\xf2\xfc");
/// assert_eq!(warning, None);
/// ```
pub fn html_page_links(
    html: &[u8],
    doc: Option<&str>,
    content_type: Option<&str>,
    opts: &LinkOptions,
    mut sink: impl FnMut(Link),
) -> Option<String> {
    html_page_links_in(
        html,
        doc,
        content_type,
        opts,
        html::Window::DEFAULT,
        &mut |l| {
            sink(l);
            true
        },
    )
}

/// [`html_page_links`], handing links to `sink` until it returns false:
/// the pass ends soon after.
///
/// ```
/// let mut got = Vec::new();
/// urlsift_html::html_page_links_while(b"<a href=a>a</a><a href=b>b</a>", Some("http://ex.org/"), None,
///     &Default::default(), &mut |l| { got.push(l.url); false });
/// assert_eq!(got, ["http://ex.org/a"]);
/// ```
pub fn html_page_links_while(
    html: &[u8],
    doc: Option<&str>,
    content_type: Option<&str>,
    opts: &LinkOptions,
    sink: &mut dyn FnMut(Link) -> bool,
) -> Option<String> {
    html_page_links_in(html, doc, content_type, opts, html::Window::DEFAULT, sink)
}

/// [`html_page_links`] one [`html::Window`] at a time, handing links to
/// `sink` until it returns false.
pub(crate) fn html_page_links_in(
    html: &[u8],
    doc: Option<&str>,
    content_type: Option<&str>,
    opts: &LinkOptions,
    window: html::Window,
    sink: &mut dyn FnMut(Link) -> bool,
) -> Option<String> {
    let (enc, unknown) = page_encoding(html, content_type);
    let warning =
        unknown.map(|label| format!("unknown charset {label:?}: read as {}", enc.encoding.name()));
    // An ASCII page in an encoding that leaves ASCII as it is reads as
    // UTF-8 does.
    let ascii = enc.bom == 0 && enc.encoding.is_ascii_compatible() && html.is_ascii();
    if enc.encoding == encoding_rs::UTF_8 || ascii {
        html_links_in(html, doc, opts, window, sink);
        return warning;
    }
    let decoded = charset::decode(html, enc);
    html_links_in(&decoded.text, doc, opts, window, &mut |mut l| {
        l.offset = decoded.page_offset(l.offset);
        l.end = decoded.page_offset(l.end);
        sink(l)
    });
    warning
}

/// [`html_links`], one [`html::Window`] of the document at a time (so the
/// links of a page are never all held at once), handing links to `sink`
/// until it returns false. The links, and their order, do not depend on
/// the window.
pub(crate) fn html_links_in(
    html: &[u8],
    doc: Option<&str>,
    opts: &LinkOptions,
    window: html::Window,
    sink: &mut dyn FnMut(Link) -> bool,
) {
    let doc_base = doc.and_then(|d| Base::new(d.as_bytes()));
    // The base: the first `<base href>` (resolved against `doc`), else
    // `doc`. The pass finds the first `<base href>` itself; only when it
    // hands on attributes before the end of the page is it looked for by
    // a pass of its own, first.
    let resolved_base: OnceCell<Option<String>> = OnceCell::new();
    let resolver: OnceCell<Resolver<'_>> = OnceCell::new();
    let whole = Cell::new(false);
    let base_of = |found: Option<&[u8]>| {
        let href = if whole.get() {
            found.map(<[u8]>::to_vec)
        } else {
            html::base_href(html)
        };
        let resolved = resolved_base.get_or_init(|| {
            href.as_deref()
                .map(clean)
                .and_then(|b| engine::resolve(doc_base, &b))
        });
        Resolver::new(
            resolved
                .as_deref()
                .and_then(|b| Base::new(b.as_bytes()))
                .or(doc_base),
        )
    };
    let mut text = engine::TextScan::default();
    let mut go = true;
    // The attributes and text gathered so far, in document order: each
    // attribute before the text URLs written after it. Every text URL to
    // come is written after them all.
    let mut flush = |s: &mut html::Scanned<'_>| {
        if !go {
            return false;
        }
        let base = resolver.get_or_init(|| base_of(s.base.as_deref()));
        let mut attrs = std::mem::take(&mut s.attrs);
        // The CSS `url()`s: the text rules find their absolute URLs again.
        let css: Vec<(usize, usize)> = attrs
            .iter()
            .filter(|a| a.css)
            .map(|a| (a.raw_start, a.raw_end))
            .collect();
        let mut pending = attrs.drain(..).peekable();
        if !s.text.is_empty() || s.text_base > 0 {
            let scanned = &*s;
            text.scan(&scanned.text, scanned.text_base, |m| {
                if !go {
                    return;
                }
                let stretch = scanned.stretch_at(m.start);
                let start = html::doc_offset(&scanned.map, m.start);
                let end = html::doc_offset(&scanned.map, m.end);
                let Some(source) = text_source(html, stretch, m.www, (start, end), &css) else {
                    return;
                };
                while let Some(a) = pending.next_if(|a| a.raw_start <= start) {
                    go = go && sink(attr_link(html, base, a));
                }
                let written = html.get(start..end).unwrap_or_default();
                go = go && sink(text_link(m.url, written, m.www, start, source));
            });
            s.keep_text(engine::TextScan::LOOK_BEHIND);
        }
        for a in pending {
            go = go && sink(attr_link(html, base, a));
        }
        s.attrs = attrs;
        go
    };
    let gather = html::Gather {
        text: opts.text,
        scripts: opts.scan_scripts,
        markup: opts.markup,
        base_only: false,
    };
    let mut rest = html::scan(html, gather, window, &mut flush);
    whole.set(true);
    flush(&mut rest);
}

/// The link of a URL attribute (or a CSS `url()` in one), resolved.
fn attr_link(html: &[u8], base: &Resolver<'_>, a: html::AttrUrl<'_>) -> Link {
    // A srcset candidate or refresh URL taken out of a decoded value
    // was not written as it is: it reads as decoded.
    let written = match (a.attr, &a.value) {
        ("srcset" | "content", Cow::Owned(v)) => &v[..],
        _ => html.get(a.raw_start..a.raw_end).unwrap_or_default(),
    };
    let source = if a.css {
        Source::Css {
            tag: a.tag,
            attr: a.attr,
        }
    } else {
        Source::Attribute {
            tag: a.tag,
            attr: a.attr,
        }
    };
    let mut link = reference(base, &a.value, written, source, a.raw_start);
    link.rel = a.rel;
    link
}

/// Where a text URL at `start..end` of the page was found, by the stretch
/// it is in; `None` for one that is not reported: an abbreviated (`www.`)
/// URL outside the text between tags, or a CSS `url()` (`css`) that is
/// reported as a link.
fn text_source(
    html: &[u8],
    stretch: html::Stretch,
    www: bool,
    (start, end): (usize, usize),
    css: &[(usize, usize)],
) -> Option<Source> {
    let lower = |(a, b): (usize, usize)| -> Cow<'static, str> {
        let name = html.get(a..b).unwrap_or_default().to_ascii_lowercase();
        match html::tag_name(&name) {
            Cow::Borrowed(n) => Cow::Borrowed(n),
            Cow::Owned(_) => Cow::Owned(owned(&name)),
        }
    };
    Some(match stretch {
        html::Stretch::Text => Source::Text,
        // Elsewhere, absolute URLs only.
        _ if www => return None,
        html::Stretch::Script => Source::Script,
        html::Stretch::Style | html::Stretch::Attr { .. }
            if css.iter().any(|&(a, b)| a <= start && end <= b.max(a + 1)) =>
        {
            return None;
        }
        html::Stretch::Style => Source::Style,
        html::Stretch::Comment => Source::Comment,
        html::Stretch::Attr { tag, name } => Source::AttributeText {
            tag: lower(tag),
            attr: lower(name),
        },
    })
}

fn text_link(url: &[u8], written: &[u8], www: bool, offset: usize, source: Source) -> Link {
    Link {
        url: owned(url),
        found: (written != url).then(|| owned(written)),
        source,
        resolved: !www,
        offset,
        end: offset + written.len(),
        rel: None,
    }
}

/// The URLs in plain text (a WET record, a text payload), by the project's
/// text extractor (RFC 3986 Appendix C / RFC 2396 Appendix E).
///
/// ```
/// let mut got = Vec::new();
/// urlsift_html::text_links(b"see <http://a.example/x> and www.b.example.", |l| got.push((l.url, l.resolved)));
/// assert_eq!(got, [("http://a.example/x".to_owned(), true), ("www.b.example".to_owned(), false)]);
/// ```
pub fn text_links(text: &[u8], mut sink: impl FnMut(Link)) {
    engine::scan_text(text, |m| {
        let written = text.get(m.start..m.end).unwrap_or_default();
        sink(text_link(m.url, written, m.www, m.start, Source::Text));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rels(html: &str) -> Vec<(String, Option<String>)> {
        let mut got = Vec::new();
        html_links(
            html.as_bytes(),
            Some("http://a.example/"),
            &LinkOptions::links_only(),
            |l| {
                got.push((l.url, l.rel));
            },
        );
        got
    }

    #[test]
    fn a_link_has_its_tags_rel() {
        let got = rels(
            "<a href=x rel='NoFollow  noopener'>x</a><link REL=canonical href=/c>\
             <img src=i rel=x><a title='a>b' href=y rel=&#110;ext>y</a><a href=z>z</a>\
             <area rel=tag href=t><a rel=nofollow style='background:url(s)' href=u>",
        );
        let want = [
            ("http://a.example/x", Some("nofollow noopener")),
            ("http://a.example/c", Some("canonical")),
            ("http://a.example/i", None),
            ("http://a.example/y", Some("next")),
            ("http://a.example/z", None),
            ("http://a.example/t", Some("tag")),
            ("http://a.example/s", None),
            ("http://a.example/u", Some("nofollow")),
        ];
        let want: Vec<_> = want
            .iter()
            .map(|(u, r)| (u.to_string(), r.map(str::to_owned)))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn an_ascii_page_in_a_single_byte_charset_reads_as_decoded() {
        let links = |page: &[u8]| {
            let mut got = Vec::new();
            html_page_links(
                page,
                Some("http://a.example/d/"),
                Some("text/html; charset=windows-1252"),
                &LinkOptions::default(),
                |l| got.push((l.url, l.offset, l.end)),
            );
            got
        };
        let ascii =
            b"<p>see http://t.example/x <a href=\"#f\">f</a> <a href='y.html'>y</a>".to_vec();
        let mut latin = ascii.clone();
        latin.extend_from_slice(b" \xe9");
        assert_eq!(links(&ascii), links(&latin));
        assert_eq!(
            links(&ascii),
            [
                ("http://t.example/x".to_owned(), 7, 25),
                ("http://a.example/d/#f".to_owned(), 35, 37),
                ("http://a.example/d/y.html".to_owned(), 54, 60),
            ]
        );
    }

    proptest::proptest! {
        #[test]
        fn tab_or_newline_is_any(v in proptest::collection::vec(proptest::sample::select(vec![b'\t', b'\n', b'\r', b'a', 0x89, 0x8a, 0x0b, b' ']), 0..100)) {
            proptest::prop_assert_eq!(
                tab_or_newline(&v),
                v.iter().any(|&b| matches!(b, b'\t' | b'\n' | b'\r'))
            );
        }
    }

    #[test]
    fn a_rel_is_found_whatever_the_window() {
        let page = "<a href=a rel=nofollow>a</a>".repeat(50);
        let mut small = Vec::new();
        html_links_in(
            page.as_bytes(),
            Some("http://a.example/"),
            &LinkOptions::links_only(),
            html::Window { attrs: 1, text: 16 },
            &mut |l| {
                small.push(l.rel);
                true
            },
        );
        assert_eq!(small.len(), 50);
        assert!(small.iter().all(|r| r.as_deref() == Some("nofollow")));
    }
}
