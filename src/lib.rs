//! # urlsift
//!
//! Find every URL in very large free text, by the delimiting rules of
//! RFC 3986 Appendix C and RFC 2396 Appendix E, and say exactly what each one is.
//!
//! The data path (see the modules in this order):
//!
//! ```text
//! bytes -> classify (one SIMD pass: candidate anchors, stop bytes)
//!       -> extract  (Appendix C/E delimiting: wrappers, unfolding, trimming)
//!       -> uri      (RFC 3986 split, validate, resolve, normalize)
//!       -> output   (text, JSON Lines, CSV/TSV)
//! ```
#![deny(missing_docs)]
// Diagnostics go through `diag::report`, which never panics on a closed stderr.
#![warn(clippy::print_stderr, clippy::print_stdout)]

pub mod classify;
pub mod dedup;
pub mod diag;
pub mod extract;
pub mod input;
pub mod output;
pub mod parallel;
pub mod uri;
