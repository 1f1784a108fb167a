//! The library's front door: [`find`] and the [`Finder`] builder.
//!
//! [`find`] is an iterator over the URLs of a byte slice, in order. It scans
//! lazily, a segment of about [`SEGMENT`] bytes at a time (cut where no URL
//! can cross), so taking the first few URLs of a large buffer costs little.
//! [`Finder::find_all`] scans the whole buffer on every core of the rayon
//! pool, with the same result.

use std::collections::VecDeque;

use crate::classify::{Classifier, Isa, IsaError};
use crate::extract::{Extractor, Match};
use crate::parallel::{self, Segments};

/// The bytes scanned at a time by [`Matches`] (it stops at the next cut
/// point after this many bytes).
pub const SEGMENT: usize = 64 << 10;

/// Find every URL in `hay`, in input order, with the best ISA this CPU has
/// (or the one `URLSIFT_ISA` names).
///
/// ```
/// let text = b"See <https://docs.rs/memchr/> or www.rust-lang.org.";
/// let urls: Vec<_> = urlsift_core::find(text).map(|m| m.url_str().into_owned()).collect();
/// assert_eq!(urls, ["https://docs.rs/memchr/", "www.rust-lang.org"]);
/// ```
pub fn find(hay: &[u8]) -> Matches<'_> {
    Finder::new().find(hay)
}

/// Finds URLs, with a chosen ISA and chunk size.
///
/// ```
/// use urlsift_core::{Finder, Isa, Kind};
/// let text = b"ftp://a.example/x, then www.b.example".repeat(1000);
/// let scalar = Finder::new().isa(Isa::Scalar).unwrap();
/// let all = Finder::new().chunk_size(4096).find_all(&text);
/// assert!(scalar.find(&text).eq(all.iter().cloned()));
/// assert_eq!(all[1].kind, Kind::Www);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Finder {
    ex: Extractor,
    chunk_size: usize,
}

impl Default for Finder {
    fn default() -> Self {
        Finder::new()
    }
}

impl Finder {
    /// A finder with the best ISA this CPU has (or the one `URLSIFT_ISA`
    /// names), and the default chunk size for [`Finder::find_all`].
    pub fn new() -> Self {
        Finder {
            ex: Extractor::new(),
            chunk_size: parallel::DEFAULT_CHUNK_SIZE,
        }
    }

    /// Use the kernels of `isa`; an error when this build or CPU lacks it.
    /// Every ISA finds the same URLs.
    pub fn isa(mut self, isa: Isa) -> Result<Self, IsaError> {
        let c = Classifier::new(isa).ok_or(IsaError::Unavailable(isa))?;
        self.ex = Extractor::with_classifier(c);
        Ok(self)
    }

    /// The bytes per parallel chunk of [`Finder::find_all`] (at least 1).
    /// The result does not depend on it.
    pub fn chunk_size(mut self, bytes: usize) -> Self {
        self.chunk_size = bytes.max(1);
        self
    }

    /// The engine underneath, for the lower-level calls of
    /// [`crate::extract`] and [`crate::parallel`].
    pub fn extractor(&self) -> Extractor {
        self.ex
    }

    /// The URLs of `hay`, in order, found lazily on this thread.
    pub fn find<'h>(&self, hay: &'h [u8]) -> Matches<'h> {
        Matches {
            ex: self.ex,
            hay,
            segments: parallel::segments(self.ex.classifier(), hay, SEGMENT),
            floor: 0,
            buf: VecDeque::new(),
        }
    }

    /// All the URLs of `hay`, in order, found on every thread of the current
    /// rayon pool (in chunks of [`Finder::chunk_size`] bytes).
    pub fn find_all<'h>(&self, hay: &'h [u8]) -> Vec<Match<'h>> {
        let mut out = Vec::new();
        parallel::scan(&self.ex, hay, self.chunk_size, |m| out.push(m));
        out
    }
}

/// The iterator of [`find`] and [`Finder::find`].
#[derive(Debug)]
pub struct Matches<'h> {
    ex: Extractor,
    hay: &'h [u8],
    segments: Segments<'h>,
    floor: usize,
    buf: VecDeque<Match<'h>>,
}

impl<'h> Iterator for Matches<'h> {
    type Item = Match<'h>;

    fn next(&mut self) -> Option<Match<'h>> {
        loop {
            if let Some(m) = self.buf.pop_front() {
                return Some(m);
            }
            let seg = self.segments.next()?;
            let (ex, buf) = (&self.ex, &mut self.buf);
            self.floor = seg.scan(self.hay, self.floor, |h, s, e, f| {
                ex.scan(h, s, e, f, |m| buf.push_back(m))
            });
        }
    }
}

impl std::iter::FusedIterator for Matches<'_> {}
