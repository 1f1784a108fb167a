//! Where a URL was found, beyond its file, line and offsets: the message
//! and part of a mail archive ([`MailWhere`]), or the record of a web
//! archive and the place in an HTML page ([`WebWhere`]).
//!
//! The readers fill these (the mail reader a [`MailWhere`], the web
//! archive and HTML readers a [`WebWhere`]) and the printer writes them,
//! so neither depends on the other.
//!
//! ```
//! use urlsift_origin::{MailWhere, WebWhere};
//! let mail = MailWhere::plain_text(7, 1);
//! assert_eq!((mail.message, mail.part, mail.part_start), (1, 1, 7));
//! let web = WebWhere { source: "text", ..WebWhere::default() };
//! assert!(web.warc_offset.is_none());
//! ```
#![deny(missing_docs)]

use std::borrow::Cow;

use serde::Serialize;

/// Where a URL found in a mail archive came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MailWhere {
    /// The message's 1-based index in its file.
    pub message: u64,
    /// Its Message-ID (without `<>`), when it has one.
    pub message_id: Option<String>,
    /// The byte offset of the message (its first header) in the file.
    pub message_offset: u64,
    /// The part: 0 is the message's header block; body parts are numbered
    /// from 1 in depth-first order (multipart containers count). A part's
    /// own header block has the part's number and content type `header`.
    /// The rest of a message longer than the mail reader's cap is one more
    /// part, after those, `text/plain`, as it is stored.
    pub part: u32,
    /// The part's `type/subtype` (`header` for a header block).
    pub content_type: String,
    /// The byte offset of the part's raw (still encoded) body in the file;
    /// for a header block, of its first header; for a multipart's text
    /// outside its parts, of that text.
    pub part_offset: u64,
    /// For one URL: its byte offset in the decoded part text (the record's
    /// own `start` and `line` are in the file).
    pub part_start: u64,
    /// For one URL: its 1-based line in the decoded part text.
    pub part_line: u64,
}

impl MailWhere {
    /// Where a URL came from in an input that is not mail, scanned as plain
    /// text under `--mail`: the whole input is one `text/plain` part,
    /// message 1 and part 1, at offset 0, with no Message-ID; so the URL's
    /// place in the part is its place in the file, `start` (a byte offset)
    /// and `line` (1-based).
    ///
    /// ```
    /// let w = urlsift_origin::MailWhere::plain_text(120, 4);
    /// assert_eq!((w.message, w.part, w.content_type.as_str()), (1, 1, "text/plain"));
    /// assert_eq!((w.part_offset, w.part_start, w.part_line), (0, 120, 4));
    /// ```
    pub fn plain_text(start: u64, line: u64) -> MailWhere {
        MailWhere {
            message: 1,
            message_id: None,
            message_offset: 0,
            part: 1,
            content_type: "text/plain".to_string(),
            part_offset: 0,
            part_start: start,
            part_line: line,
        }
    }
}

/// Where a link of a web page came from: a record of a web archive
/// (WARC/WET), or an HTML file. Its fields follow the record's own in JSON
/// output; the `warc_*` fields are `None` (null) for a plain HTML file.
///
/// ```
/// use urlsift_origin::WebWhere;
/// let w = WebWhere { source: "attribute", source_name: Some("a@href".into()), ..WebWhere::default() };
/// assert!(w.warc_offset.is_none() && w.warc_type.is_none());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WebWhere {
    /// The link as written, when it differs from `url` (relative,
    /// entity-encoded, or with whitespace removed).
    pub found: Option<String>,
    /// Where in the page or record: `attribute`, `css`, `attribute-text`,
    /// `script`, `style`, `comment`, `text` or `header`.
    pub source: &'static str,
    /// For an attribute, `tag@attribute` (`a@href`, `img@srcset`); for a
    /// header, its name (`Location`). Borrowed from a static table for the
    /// usual names, so most links allocate nothing for it.
    pub source_name: Option<Cow<'static, str>>,
    /// The record's `WARC-Target-URI`.
    pub warc_target_uri: Option<String>,
    /// The record's `WARC-Record-ID`.
    pub warc_record_id: Option<String>,
    /// The record's `WARC-Date`.
    pub warc_date: Option<String>,
    /// The record's `WARC-Type` (`None` outside a web archive).
    pub warc_type: Option<String>,
    /// The record's byte offset in the file; in a `.warc.gz`, that of its
    /// gzip member (as CDX indexes give it). `None` outside a web archive.
    pub warc_offset: Option<u64>,
    /// The record's length in the file (in a `.warc.gz`, of its gzip
    /// member): `warc_offset .. warc_offset + warc_length` is the record
    /// alone. `None` outside a web archive, and for a record that cannot
    /// be fetched alone.
    pub warc_length: Option<u64>,
    /// The HTTP status of a `response` or `revisit` record.
    pub http_status: Option<u16>,
    /// The `rel` of the link's tag (`nofollow`), for a link from an
    /// attribute of `<a>`, `<area>`, `<link>` or `<form>`.
    pub rel: Option<String>,
}
