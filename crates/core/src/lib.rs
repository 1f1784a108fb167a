//! # urlsift-core
//!
//! Find every URL in very large free text, by the delimiting rules of
//! RFC 3986 Appendix C and RFC 2396 Appendix E. This crate depends on memchr,
//! bytecount and rayon only.
//!
//! ```
//! let text = b"Yes, Jim, I found it under \"http://www.w3.org/Addressing/\",
//! but you can probably pick it up from <ftp://foo.example.com/rfc/>.
//! Also www.example.org/a_(b), and <http://example.com/wrapped/
//!    across-lines>.";
//! let found: Vec<(String, &str)> = urlsift_core::find(text)
//!     .map(|m| (m.url_str().into_owned(), <&str>::from(m.style)))
//!     .collect();
//! assert_eq!(found, [
//!     ("http://www.w3.org/Addressing/".to_string(), "quoted"),
//!     ("ftp://foo.example.com/rfc/".to_string(), "angle"),
//!     ("www.example.org/a_(b)".to_string(), "bare"),
//!     ("http://example.com/wrapped/across-lines".to_string(), "angle"),
//! ]);
//! ```
//!
//! [`find`] scans lazily on the calling thread; a [`Finder`] chooses the
//! ISA and the chunk size once, and scans a slice or a stream on every core
//! of the rayon pool, handing each match (with its line and column) or the
//! result of the caller's work on each chunk to a [`Report`]:
//!
//! ```
//! use urlsift_core::{Finder, Found, Isa};
//! let text = b"one http://a.example/\ntwo <http://b.example/x\n  y> three\n".repeat(1000);
//! let finder = Finder::new().isa(Isa::Scalar).unwrap().chunk_size(4096).lines(true);
//! let mut lines = Vec::new();
//! finder.scan(&text, |f: Found<'_>| {
//!     lines.push(f.line);
//!     true
//! });
//! assert_eq!(lines.len(), 2000);
//! assert_eq!(&lines[..3], &[1, 2, 4]);
//! // A stream gives the same matches, read a block at a time.
//! let mut streamed = 0;
//! finder.block_size(1 << 16).scan_reader(&text[..], |f: Found<'_>| {
//!     streamed += 1;
//!     f.line == lines[streamed - 1]
//! }).unwrap();
//! assert_eq!(streamed, 2000);
//! ```
//!
//! The data path:
//!
//! ```text
//! bytes -> classify (one SIMD pass: candidate anchors, stop bytes)
//!       -> extract  (Appendix C/E delimiting: wrappers, unfolding, trimming)
//!       -> parallel (cut points; a big input scanned in chunks across cores)
//! ```
//!
//! The URI engine (split, validate, resolve, normalize) is the
//! `urlsift-uri` crate; the formats are `urlsift-printer`.
#![deny(missing_docs)]
// Diagnostics go through `diag::report`, which never panics on a closed stderr.
#![warn(clippy::print_stderr, clippy::print_stdout)]

mod classify;
pub mod diag;
mod extract;
mod find;
mod parallel;
pub mod stream;

pub use classify::{Isa, IsaError, isa_report};
pub use extract::{Extractor, Kind, Match, Style, rules::MAX_LOOK_BEHIND};
pub use find::{Finder, Found, Report, find};
pub use parallel::{Chunk, ColumnCounter, DEFAULT_BLOCK_SIZE, DEFAULT_CHUNK_SIZE, newlines};
