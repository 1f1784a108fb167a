//! # urlsift-core
//!
//! Find every URL in very large free text, by the delimiting rules of
//! RFC 3986 Appendix C and RFC 2396 Appendix E. This crate depends on memchr
//! and rayon only.
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
pub mod parallel;
