//! # urlsift-html
//!
//! Every URL of an HTML document, as browsers read it: the URL attributes
//! (`href`, `src`, `srcset`, meta refresh, `og:` metadata, ...) with their
//! WHATWG character references decoded and resolved (RFC 3986 5.2) against
//! `<base href>` or the page's own URI; CSS `url()`s; and, by urlsift's
//! text rules (RFC 3986 Appendix C), the absolute URLs of the text between
//! tags, other attributes, scripts, styles and comments. A page is read in
//! its charset (byte order mark, HTTP `Content-Type`, `<meta charset>`,
//! else UTF-8), one window at a time, in memory bounded by the window.
//!
//! The same reader serves HTML files, web archive records (`urlsift-warc`)
//! and mail parts (`urlsift-mail`).
//!
//! ```text
//! page bytes -> charset (page_encoding) -> decoded text
//!            -> tokenizer: tags, attributes, text stretches, in document order
//!            -> link rules: URL attributes resolved; other text by the extractor
//!                                          -> Link { url, found, source, resolved, offset, end, rel }
//! ```
//!
//! ```
//! use urlsift_html::{LinkOptions, Source, html_links};
//! let page = br#"<base href="/docs/"><a href="a.html" rel=next>A</a>
//! <p>Mirror: https://mirror.example/docs/</p>"#;
//! let mut got = Vec::new();
//! html_links(page, Some("http://ex.org/index.html"), &LinkOptions::default(), |l| {
//!     got.push((l.url, l.source == Source::Text));
//! });
//! assert_eq!(got, [
//!     ("http://ex.org/docs/a.html".to_owned(), false),
//!     ("https://mirror.example/docs/".to_owned(), true),
//! ]);
//! ```
#![deny(missing_docs)]

mod charset;
mod decoded;
mod engine;
mod entities;
mod html;
mod links;
#[cfg(test)]
mod windows;
mod words;

pub use charset::{PRESCAN_LEN, PageEncoding, page_encoding};
pub use decoded::{decoded_html_links, link_match};
pub use entities::decode_char_refs;
pub use html::{SNIFF_LEN, sniff_html};
pub use links::{
    DEFAULT_MAX_BODY, Link, LinkOptions, Source, header_links, html_links, html_page_links,
    html_page_links_while, markup_link, text_links,
};
