//! The links of one web archive record: its payload decoded, then its
//! header links and its body's links (HTML, text or WAT metadata).

use std::borrow::Cow;

use urlsift_html::{Link, LinkOptions, header_links, html_page_links_while, text_links};

use crate::http::HttpResponse;
use crate::reader::Record;

/// How a body is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyKind {
    /// HTML: attributes resolved, text scanned.
    Html,
    /// Text: scanned for URLs.
    Text,
    /// Neither (images, PDFs, ...): no links.
    Other,
}

/// How a body with this `Content-Type` (the media type; parameters are
/// ignored) is read: types naming HTML are HTML; `text/plain`, a missing
/// type or `application/octet-stream` are HTML if [`sniff_html`](urlsift_html::sniff_html)
/// says so, else nothing if its first bytes are binary (WHATWG's binary
/// data bytes, or an image, font or archive signature), else text; images,
/// audio, video, fonts and archives have no links; other `text/*` and
/// JSON, XML and JavaScript types are text; anything else has no links.
///
/// ```
/// use urlsift_warc::{BodyKind, body_kind};
/// assert_eq!(body_kind(Some("application/octet-stream"), b"wOF2\0\x01\0\0"), BodyKind::Other);
/// assert_eq!(body_kind(None, b"see http://example.com/"), BodyKind::Text);
/// assert_eq!(body_kind(Some("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), b"PK"), BodyKind::Other);
/// ```
pub fn body_kind(content_type: Option<&str>, body: &[u8]) -> BodyKind {
    let essence = content_type
        .and_then(|c| c.split(';').next())
        .map(|c| c.trim().to_ascii_lowercase())
        .unwrap_or_default();
    if essence.contains("html") {
        return BodyKind::Html;
    }
    let unknown = matches!(
        essence.as_str(),
        "" | "text/plain" | "application/octet-stream" | "unknown/unknown"
    );
    if unknown {
        return if urlsift_html::sniff_html(body) {
            BodyKind::Html
        } else if crate::binary::sniff_binary(body) {
            BodyKind::Other
        } else {
            BodyKind::Text
        };
    }
    if crate::binary::binary_type(&essence) {
        return BodyKind::Other;
    }
    if essence.starts_with("text/")
        || ["json", "xml", "javascript", "ecmascript"]
            .iter()
            .any(|t| essence.contains(t))
    {
        BodyKind::Text
    } else {
        BodyKind::Other
    }
}

/// Why a payload gave no links: what `--stats` counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Skipped {
    /// Not text (an image, a font, an archive, binary data), with its
    /// class (`image`, `audio`, `video`, `font`, `model`, `archive`,
    /// `office`, `program`, `certificate`, `data`): read only with
    /// [`LinkOptions::binary`].
    Binary(&'static str),
    /// A format that has links but is not read (`pdf`, `postscript`,
    /// `office`, `other`).
    OutOfScope(&'static str),
}

/// Why a body that [`body_kind`] calls [`BodyKind::Other`] gives no links;
/// `None` for one it reads (HTML, text).
///
/// ```
/// use urlsift_warc::{Skipped, skipped_payload};
/// assert_eq!(skipped_payload(Some("image/png"), b""), Some(Skipped::Binary("image")));
/// assert_eq!(skipped_payload(Some("application/pdf"), b"%PDF-1.4"), Some(Skipped::OutOfScope("pdf")));
/// assert_eq!(skipped_payload(None, b"%PDF-1.4\n\x01"), Some(Skipped::OutOfScope("pdf")));
/// assert_eq!(skipped_payload(Some("application/octet-stream"), b"wOF2\0\x01"), Some(Skipped::Binary("font")));
/// assert_eq!(skipped_payload(Some("text/html"), b"\0"), None);
/// ```
pub fn skipped_payload(content_type: Option<&str>, body: &[u8]) -> Option<Skipped> {
    if body_kind(content_type, body) != BodyKind::Other {
        return None;
    }
    let essence = content_type
        .and_then(|c| c.split(';').next())
        .map(|c| c.trim().to_ascii_lowercase())
        .unwrap_or_default();
    let unknown = matches!(
        essence.as_str(),
        "" | "text/plain" | "application/octet-stream" | "unknown/unknown"
    );
    Some(if unknown {
        match crate::binary::sniff_class(body) {
            "pdf" => Skipped::OutOfScope("pdf"),
            class => Skipped::Binary(class),
        }
    } else if crate::binary::binary_type(&essence) {
        Skipped::Binary(crate::binary::type_class(&essence))
    } else {
        Skipped::OutOfScope(crate::binary::out_of_scope_class(&essence))
    })
}

/// What reading a record gave besides its links ([`record_links_outcome`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// A problem decoding its payload (its links are those decoded before).
    pub problem: Option<String>,
    /// Its payload was not read: why.
    pub skipped: Option<Skipped>,
}

/// A record's payload: the page body, decoded.
#[derive(Clone, Debug)]
pub struct Payload<'a> {
    /// The HTTP response, for `response` and `revisit` records that hold one.
    pub http: Option<HttpResponse<'a>>,
    /// The body: for an HTTP response, with its codings undone; else the block.
    pub body: Cow<'a, [u8]>,
    /// The body's `Content-Type`: the HTTP one, else the record's.
    pub content_type: Option<String>,
    /// A problem decoding the body (it is then what could be decoded).
    pub problem: Option<String>,
}

/// The payload of a record: a `response` (or `revisit`) block that starts
/// with `HTTP/` is parsed as an HTTP response and its body decoded (at most
/// `max_body` bytes); any other block is the payload as it is.
pub fn payload(rec: &Record, max_body: usize) -> Payload<'_> {
    let http = matches!(rec.warc_type.as_str(), "response" | "revisit")
        .then(|| HttpResponse::parse(&rec.block))
        .flatten();
    match http {
        Some(h) => {
            let (body, problem) = h.body(max_body);
            let content_type = h
                .header("Content-Type")
                .map(|c| String::from_utf8_lossy(c).into_owned());
            Payload {
                http: Some(h),
                body,
                content_type,
                problem,
            }
        }
        None => Payload {
            http: None,
            body: Cow::Borrowed(&rec.block),
            content_type: rec.content_type.clone(),
            problem: None,
        },
    }
}

/// The links of one record, in order: header links, then the body's.
///
/// - `response`, `resource`: the HTTP `Location`, `Content-Location` and
///   `Link` headers (resolved against the target URI), then the body, as
///   [`body_kind`] says: HTML ([`html_links`](urlsift_html::html_links), in document order, resolved
///   against `<base href>`, else the `WARC-Target-URI`, else
///   [`LinkOptions::base`]) or text.
/// - `conversion` (WET): the text.
/// - `revisit`: the header links of the HTTP head it repeats (the payload
///   is elided: it is the one of the record it refers to).
/// - WAT `metadata` (JSON with an `Envelope`): the links its HTML metadata
///   lists, resolved against the page (see docs/web-archives.md).
/// - `request`, other `metadata`, `warcinfo` (and unknown types): nothing;
///   they describe the crawl, not the page.
///
/// Returns a problem with the payload, if any (links found before it are
/// still reported).
///
/// ```
/// let block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href='../b?x=1&amp;y=2'>see http://c.example/</a>";
/// let rec = urlsift_warc::Record {
///     warc_type: "response".into(),
///     target_uri: Some("http://a.example/d/e".into()),
///     block: block.to_vec(),
///     ..Default::default()
/// };
/// let mut urls = Vec::new();
/// urlsift_warc::record_links(&rec, &Default::default(), |l| urls.push(l.url));
/// assert_eq!(urls, ["http://a.example/b?x=1&y=2", "http://c.example/"]);
/// ```
pub fn record_links(
    rec: &Record,
    opts: &LinkOptions,
    mut sink: impl FnMut(Link),
) -> Option<String> {
    record_links_while(rec, opts, |l| {
        sink(l);
        true
    })
}

/// [`record_links`], handing links to `sink` until it returns false: an
/// HTML page's pass ends soon after (a text one runs to its end, handing
/// on nothing more). Returns the payload's problem, if any, either way.
///
/// ```
/// let block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=a>a</a><a href=b>b</a>";
/// let rec = urlsift_warc::Record {
///     warc_type: "response".into(),
///     target_uri: Some("http://ex.org/".into()),
///     block: block.to_vec(),
///     ..Default::default()
/// };
/// let mut urls = Vec::new();
/// urlsift_warc::record_links_while(&rec, &Default::default(), |l| {
///     urls.push(l.url);
///     false
/// });
/// assert_eq!(urls, ["http://ex.org/a"]);
/// ```
pub fn record_links_while(
    rec: &Record,
    opts: &LinkOptions,
    sink: impl FnMut(Link) -> bool,
) -> Option<String> {
    record_links_outcome(rec, opts, sink).problem
}

/// [`record_links_while`], saying also whether the payload was skipped
/// (not text, or a format not read) and why.
///
/// ```
/// let block = b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n\x1a\n";
/// let rec = urlsift_warc::Record {
///     warc_type: "response".into(),
///     block: block.to_vec(),
///     ..Default::default()
/// };
/// let got = urlsift_warc::record_links_outcome(&rec, &Default::default(), |_| true);
/// assert_eq!(got.skipped, Some(urlsift_warc::Skipped::Binary("image")));
/// ```
pub fn record_links_outcome(
    rec: &Record,
    opts: &LinkOptions,
    mut sink: impl FnMut(Link) -> bool,
) -> Outcome {
    let problem = |problem| Outcome {
        problem,
        skipped: None,
    };
    let mut go = true;
    let mut sink = |l: Link| {
        go = go && sink(l);
        go
    };
    let kind = rec.warc_type.as_str();
    if crate::wat::is_wat(rec) {
        return problem(crate::wat::wat_links(rec, sink));
    }
    if !matches!(kind, "response" | "resource" | "conversion" | "revisit") {
        return problem(None);
    }
    if kind == "conversion" {
        text_links(&rec.block, |l| {
            sink(l);
        });
        return problem(None);
    }
    let doc = rec.target_uri.as_deref().or(opts.base.as_deref());
    let p = payload(rec, opts.max_body);
    if let Some(h) = &p.http {
        let headers = h.headers.iter().enumerate().map(|(k, &(name, value))| {
            (name, value, h.header_offsets.get(k).copied().unwrap_or(0))
        });
        header_links(headers, doc, |l| {
            sink(l);
        });
    }
    if kind == "revisit" {
        return problem(None);
    }
    match body_kind(p.content_type.as_deref(), &p.body) {
        BodyKind::Other if opts.binary => text_links(&p.body, |l| {
            sink(l);
        }),
        BodyKind::Html => {
            let unknown =
                html_page_links_while(&p.body, doc, p.content_type.as_deref(), opts, &mut sink);
            return problem(p.problem.or(unknown));
        }
        BodyKind::Text => text_links(&p.body, |l| {
            sink(l);
        }),
        BodyKind::Other => {
            return Outcome {
                skipped: skipped_payload(p.content_type.as_deref(), &p.body),
                problem: p.problem,
            };
        }
    }
    problem(p.problem)
}
