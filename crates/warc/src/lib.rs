//! # urlsift-warc
//!
//! Web archives for urlsift: read the records of a WARC (0.17 to 1.1),
//! WET, WAT or ARC file (plain, a gzip member per record, a whole-file
//! gzip, or LZ4 frames; from any `Read`, in bounded memory), decode each
//! page's HTTP payload, and report its links (the pages' HTML is read by
//! `urlsift-html`).
//!
//! ```text
//! bytes -> Reader (gzip members, WARC records)     -> Record { offset, type, target URI, block }
//!       -> payload (HTTP head, chunked, gzip/deflate/br/zstd)
//!       -> record_links: header links, then HTML in document order (urlsift-html: attributes
//!          resolved against the base; text between tags) or text
//!                                                 -> Link { url, found, source, resolved, offset }
//! ```
//!
//! The reader yields owned [`Record`]s and the link pass is a pure function
//! of one record, so a caller can spread records over threads and keep the
//! output in file order:
//!
//! ```
//! use urlsift_warc::{LinkOptions, Reader, record_links};
//! let warc = b"WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://ex.org/a/\r\n\
//! Content-Length: 60\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=b.html>b</a>\r\n\r\n";
//! for item in Reader::new(&warc[..]) {
//!     match item {
//!         Ok(rec) => {
//!             record_links(&rec, &LinkOptions::default(), |l| {
//!                 assert_eq!(l.url, "http://ex.org/a/b.html");
//!             });
//!         }
//!         Err(issue) => eprintln!("{issue}"),
//!     }
//! }
//! ```
#![deny(missing_docs)]

mod binary;
mod http;
mod payload;
mod reader;
mod source;
mod wat;

pub use http::{HttpResponse, dechunk, http_status};
pub use payload::{
    BodyKind, Outcome, Payload, Skipped, body_kind, payload, record_links, record_links_outcome,
    record_links_while, skipped_payload,
};
pub use reader::{DEFAULT_MAX_BLOCK, Issue, Reader, Record, SHORT_LENGTH_SLACK, Severity};
/// The link types of [`record_links`], from the HTML crate.
pub use urlsift_html::{Link, LinkOptions, Source};
