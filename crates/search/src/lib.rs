//! # urlsift-search
//!
//! The searcher: inputs read and scanned, records written in input order.
//!
//! - [`input`] opens what the command line names: regular files are
//!   memory-mapped, everything else (standard input, pipes, gzip, zstd) is a
//!   stream of large blocks; directories are walked.
//! - [`run`] is the ordered pipeline: workers scan inputs (a big file in
//!   parallel chunks, see [`urlsift_core::Finder`]), format their records
//!   through [`urlsift_printer`], and the calling thread writes them in input
//!   order.
//! - [`web`] turns the links of web pages (HTML documents, web archive
//!   records) into records with their origin.
//!
//! What `urlsift --format json DIR` does, with a directory walked:
//!
//! ```
//! use urlsift_core::Extractor;
//! use urlsift_printer::{Format, Options};
//! use urlsift_search::{input, run};
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("a.txt"), "see <http://a.example/x>\n").unwrap();
//! let sources = input::expand(&[dir.path().to_path_buf()]);
//! let opts = Options { format: Format::Json, ..Options::default() };
//! let cfg = run::Config::new(opts, Extractor::new());
//! let (mut out, mut err) = (Vec::new(), Vec::new());
//! let summary = run::run(&cfg, &sources, &mut out, &mut err);
//! let out = String::from_utf8(out).unwrap();
//! assert!(out.contains(r#""url":"http://a.example/x""#), "{out}");
//! assert_eq!(summary.exit_code(false), 0);
//! ```
#![deny(missing_docs)]
#![warn(clippy::print_stderr, clippy::print_stdout)]

pub mod input;
pub mod run;
pub mod web;

/// The Rust example of the workspace's README, run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
