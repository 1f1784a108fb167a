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
//!     .map(|m| (m.url_str().into_owned(), m.style.as_str()))
//!     .collect();
//! assert_eq!(found, [
//!     ("http://www.w3.org/Addressing/".to_string(), "quoted"),
//!     ("ftp://foo.example.com/rfc/".to_string(), "angle"),
//!     ("www.example.org/a_(b)".to_string(), "bare"),
//!     ("http://example.com/wrapped/across-lines".to_string(), "angle"),
//! ]);
//! ```
//!
//! [`find`] scans lazily on the calling thread; [`Finder`] chooses the ISA
//! and scans a large buffer on every core ([`Finder::find_all`]).
//!
//! The data path (see the modules in this order):
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

pub mod classify;
pub mod diag;
pub mod extract;
mod find;
pub mod parallel;

pub use classify::{Classifier, Isa, IsaError};
pub use extract::{Extractor, Kind, Match, Style};
pub use find::{Finder, Matches, SEGMENT, find};
