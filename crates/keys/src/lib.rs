//! Keys for web-scale de-duplication, beside the RFC 3986 normal forms of
//! `urlsift-uri`:
//!
//! - [`host_ascii`]: a host processed per UTS #46 (IDNA), in its ASCII
//!   (punycode) form, so that `例子.测试`, `xn--fsqu00a.xn--0zwm56d` and
//!   their full-width and upper-case spellings are one host;
//! - [`domain`]: the registrable domain (eTLD+1) of a host, from the whole
//!   Public Suffix List (ICANN and private sections), compiled in
//!   ([`psl_version`] gives the list's date);
//! - [`whatwg()`]: the WHATWG URL Standard serialization (what a browser
//!   navigates to), by the `ada-url` crate;
//! - [`surt()`]: the Sort-friendly URI Reordering Transform with the Internet
//!   Archive's default canonicalization (the key of CDX indexes), as the
//!   Python `surt` package computes it.
//!
//! These pull in the `idna` and `ada-url` crates, which is
//! why they live in their own crate: finding URLs in bytes (`urlsift-core`)
//! needs none of them.
//!
//! ```
//! assert_eq!(urlsift_keys::host_ascii("BÜCHER.de".as_bytes()).as_deref(), Some("xn--bcher-kva.de"));
//! assert_eq!(urlsift_keys::domain(b"news.bbc.co.uk").as_deref(), Some("bbc.co.uk"));
//! assert_eq!(urlsift_keys::surt(b"http://www.Example.com/B?b=1&a=2").unwrap(), "com,example)/b?a=2&b=1");
//! assert_eq!(urlsift_keys::whatwg("HTTP://example.com:80/a/../b", None).unwrap(), "http://example.com/b");
//! ```
#![deny(missing_docs)]
#![warn(clippy::print_stderr, clippy::print_stdout)]

pub mod host;
mod masks;
pub mod surt;
pub mod whatwg;

pub use host::{domain, host_ascii, psl_version};
pub use surt::{SurtError, surt, surt_into};
pub use whatwg::{WhatwgError, whatwg, whatwg_into};
