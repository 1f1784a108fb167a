//! # urlsift-search
//!
//! The searcher: inputs read and scanned, records written in input order.
//!
//! - [`input`] opens what the command line names: regular files are
//!   memory-mapped, everything else (standard input, pipes, gzip, zstd) is a
//!   stream of large blocks; directories are walked.
//! - [`run`] is the ordered pipeline: workers scan inputs (a big file in
//!   parallel chunks, see [`urlsift_core::parallel`]), format their records
//!   through [`urlsift_printer`], and the calling thread writes them in input
//!   order.
//! - [`web`] turns the links of web pages (HTML documents, web archive
//!   records) into records with their origin.
#![deny(missing_docs)]
#![warn(clippy::print_stderr, clippy::print_stdout)]

pub mod input;
pub mod run;
pub mod web;
