//! The library's front door: [`find`] and the [`Finder`], the one scanner
//! of the crates.
//!
//! [`find`] is an iterator over the URLs of a byte slice, in order. It scans
//! lazily, a segment of about [`SEGMENT`] bytes at a time (cut where no URL
//! can cross), so taking the first few URLs of a large buffer costs little.
//! [`Finder::scan`] scans the whole buffer on every core of the rayon
//! pool, with the same result.
//!
//! A [`Finder`] is configured once (the ISA or extractor, the chunk size,
//! lines and columns on or off) and has one entry per input and per way of
//! taking the result: [`Finder::scan`] (a slice) and [`Finder::scan_reader`]
//! (a stream) hand every match, with its line and column, in order to a
//! [`Report`]; [`Finder::map`] and [`Finder::map_reader`] run the caller's
//! work on each chunk's matches on the rayon pool, and hand the results,
//! in order, to a [`Report`].

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::io::{self, Read};
use std::iter::FusedIterator;

use crate::classify::{Isa, IsaError};
use crate::extract::{Extractor, Match};
use crate::parallel::{self, Chunk, ColumnCounter, LineCounter, Segments};

/// The bytes scanned at a time by [`find`]'s iterator (it stops at the next cut
/// point after this many bytes).
pub(crate) const SEGMENT: usize = 64 << 10;

/// Find every URL in `hay`, in input order, with the best ISA this CPU has
/// (or the one `URLSIFT_ISA` names).
///
/// ```
/// let text = b"See <https://docs.rs/memchr/> or www.rust-lang.org.";
/// let urls: Vec<_> = urlsift_core::find(text).map(|m| m.url_str().into_owned()).collect();
/// assert_eq!(urls, ["https://docs.rs/memchr/", "www.rust-lang.org"]);
/// ```
pub fn find(hay: &[u8]) -> impl FusedIterator<Item = Match<'_>> {
    Finder::new().find(hay)
}

/// Finds URLs: the one scanner of the crates, configured once (the ISA or
/// the [`Extractor`], the chunk size, lines and columns on or off). It has
/// one entry per input and per way of taking the result:
/// [`Finder::scan`] (a slice) and [`Finder::scan_reader`] (a stream) hand
/// every match, with its line and column, in order to a [`Report`];
/// [`Finder::map`] and [`Finder::map_reader`] run the caller's work on each
/// chunk's matches on the rayon pool, and hand the results, in order, to a
/// [`Report`]. [`Finder::find`] gives the matches lazily, on this thread.
///
/// ```
/// use urlsift_core::{Finder, Found, Isa, Kind};
/// let text = b"ftp://a.example/x, then www.b.example".repeat(1000);
/// let scalar = Finder::new().isa(Isa::Scalar).unwrap();
/// let mut all = Vec::new();
/// Finder::new().chunk_size(4096).scan(&text, |f: Found<'_>| {
///     all.push((f.m.start, f.m.kind));
///     true
/// });
/// assert!(scalar.find(&text).map(|m| (m.start, m.kind)).eq(all.iter().cloned()));
/// assert_eq!(all[1].1, Kind::Www);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Finder {
    ex: Extractor,
    chunk_size: usize,
    /// The bytes between [`Report::scanned`] calls (`None`: four chunks
    /// per thread).
    segment_size: Option<usize>,
    block_size: usize,
    lines: bool,
    columns: bool,
}

impl From<Extractor> for Finder {
    /// A finder with the ISA of `ex` and the defaults of [`Finder::new`].
    fn from(ex: Extractor) -> Self {
        Finder {
            ex,
            ..Finder::new()
        }
    }
}

impl Default for Finder {
    fn default() -> Self {
        Finder::new()
    }
}

impl Finder {
    /// A finder with the best ISA this CPU has (or the one `URLSIFT_ISA`
    /// names), and the default chunk size.
    pub fn new() -> Self {
        Finder {
            ex: Extractor::new(),
            chunk_size: parallel::DEFAULT_CHUNK_SIZE,
            segment_size: None,
            block_size: parallel::DEFAULT_BLOCK_SIZE,
            lines: false,
            columns: false,
        }
    }

    /// Use the kernels of `isa`; an error when this build or CPU lacks it.
    /// Every ISA finds the same URLs.
    pub fn isa(mut self, isa: Isa) -> Result<Self, IsaError> {
        self.ex = Extractor::with_isa(isa).ok_or(IsaError::Unavailable(isa))?;
        Ok(self)
    }

    /// The bytes per parallel chunk (at least 1; by default
    /// [`DEFAULT_CHUNK_SIZE`](crate::DEFAULT_CHUNK_SIZE)). The result does not
    /// depend on it.
    pub fn chunk_size(mut self, bytes: usize) -> Self {
        self.chunk_size = bytes.max(1);
        self
    }

    /// The bytes of a slice scanned between two [`Report::scanned`] calls
    /// (rounded up to the next cut point; by default four chunks per thread
    /// of the pool). The result does not depend on it.
    pub fn segment_size(mut self, bytes: usize) -> Self {
        self.segment_size = Some(bytes.max(1));
        self
    }

    /// The bytes of a stream read at a time (at least 1; by default
    /// [`DEFAULT_BLOCK_SIZE`](crate::DEFAULT_BLOCK_SIZE)). The result does not
    /// depend on it.
    pub fn block_size(mut self, bytes: usize) -> Self {
        self.block_size = bytes.max(1);
        self
    }

    /// Count the 1-based line of each match ([`Found::line`],
    /// [`Chunk::matches_with_lines`]); off by default (a pass over the text).
    pub fn lines(mut self, on: bool) -> Self {
        self.lines = on;
        self
    }

    /// Count the 1-based byte column of each match in its line
    /// ([`Found::column`], as ripgrep's `--vimgrep` counts it), and its line
    /// too; off by default. [`Finder::map`] and [`Finder::map_reader`] do
    /// not count columns.
    pub fn columns(mut self, on: bool) -> Self {
        self.columns = on;
        self
    }

    /// The URLs of `hay`, in order, found lazily on this thread.
    pub fn find<'h>(&self, hay: &'h [u8]) -> impl FusedIterator<Item = Match<'h>> + use<'h> {
        Matches {
            ex: self.ex,
            hay,
            segments: parallel::segments(self.ex.classifier(), hay, SEGMENT),
            floor: 0,
            buf: VecDeque::new(),
        }
    }

    /// The bytes of a slice's segment: see [`Finder::segment_size`].
    fn segment(&self) -> usize {
        self.segment_size
            .unwrap_or_else(|| 4 * rayon::current_num_threads().max(1) * self.chunk_size)
    }

    /// Hand every match of `hay`, in order, to `report` on this thread,
    /// with its line and column when they are counted; the matches are
    /// found in chunks on every thread of the current rayon pool. The scan
    /// stops after the segment in which [`Report::take`] returns false
    /// (no match after that one is handed on), or after the segment for
    /// which [`Report::scanned`] does.
    ///
    /// ```
    /// use urlsift_core::{Finder, Found};
    /// let text = b"see http://a.example/\n  and http://b.example/ then";
    /// let mut seen = Vec::new();
    /// Finder::new().columns(true).scan(text, |f: Found<'_>| {
    ///     seen.push((f.line, f.column, f.m.url_str().into_owned()));
    ///     true
    /// });
    /// assert_eq!(seen, [
    ///     (1, 5, "http://a.example/".to_string()),
    ///     (2, 7, "http://b.example/".to_string()),
    /// ]);
    /// ```
    pub fn scan<'h>(&self, hay: &'h [u8], report: impl Report<Found<'h>>) {
        let report = RefCell::new(report);
        let go = Cell::new(true);
        let (count_lines, count_columns) = (self.lines || self.columns, self.columns);
        let mut lines = LineCounter::default();
        let mut columns = ColumnCounter::default();
        let found = |m: Match<'h>| {
            if !go.get() {
                return;
            }
            let line = if count_lines {
                lines.line_at(hay, m.start)
            } else {
                0
            };
            let column = if count_columns {
                columns.column_at(hay, m.start)
            } else {
                0
            };
            go.set(report.borrow_mut().take(Found { m, line, column }));
        };
        let scanned = |n| go.get() && report.borrow_mut().scanned(n);
        parallel::scan_segments(
            &self.ex,
            hay,
            self.segment(),
            self.chunk_size,
            found,
            scanned,
        );
    }

    /// [`Finder::scan`] of a stream, read [`Finder::block_size`] bytes at
    /// a time (the next block read on a thread of its own while this one
    /// is scanned), so memory stays bounded whatever its size; the matches'
    /// offsets are in the stream, and are those of a scan of the whole
    /// stream at once. [`Report::scanned`] is not called;
    /// [`Report::paused`] is, when the source pauses (see
    /// [`stream::fill`](crate::stream::fill)). Returns the bytes read, or
    /// the read error (with the byte offset where the stream broke), after
    /// the matches before it were handed on.
    ///
    /// ```
    /// use urlsift_core::{Finder, Found};
    /// let text = b"http://a.example/ http://b.example/ http://c.example/";
    /// let mut seen = Vec::new();
    /// let n = Finder::new()
    ///     .block_size(8)
    ///     .scan_reader(&text[..], |f: Found<'_>| {
    ///         seen.push(f.m.start);
    ///         seen.len() < 2
    ///     })
    ///     .unwrap();
    /// assert_eq!(seen, [0, 18]);
    /// assert!(n <= text.len() as u64);
    /// ```
    pub fn scan_reader<R: Read + Send>(
        &self,
        r: R,
        report: impl for<'b> Report<Found<'b>>,
    ) -> io::Result<u64> {
        let report = RefCell::new(report);
        let paused = || report.borrow_mut().paused();
        let sizes = (self.block_size, self.chunk_size);
        if self.columns {
            let found =
                |m: Match<'_>, line, column| report.borrow_mut().take(Found { m, line, column });
            parallel::scan_reader_columns(&self.ex, r, sizes, found, paused)
        } else {
            let found = |m: Match<'_>, line| {
                let column = 0;
                report.borrow_mut().take(Found { m, line, column })
            };
            parallel::scan_reader_while(&self.ex, r, sizes, self.lines, found, paused)
        }
    }

    /// Run `map` on each chunk's matches (with their lines when they are
    /// counted) on the current rayon pool, in parallel, and hand the
    /// results to `report` on this thread, in input order, until
    /// [`Report::take`] or [`Report::scanned`] returns false. The matches,
    /// concatenated over the chunks, are those of [`Finder::scan`].
    ///
    /// ```
    /// use urlsift_core::Finder;
    /// let text = b"a http://a.example/ b\nhttp://b.example/ c\n".repeat(100);
    /// let mut lines = Vec::new();
    /// Finder::new().chunk_size(16).lines(true).map(
    ///     &text,
    ///     |c| c.matches_with_lines().map(|(_, line)| line).collect::<Vec<_>>(),
    ///     |v: Vec<u64>| {
    ///         lines.extend(v);
    ///         true
    ///     },
    /// );
    /// assert_eq!(lines.len(), 200);
    /// assert_eq!(&lines[..4], &[1, 2, 3, 4]);
    /// ```
    pub fn map<'h, T: Send>(
        &self,
        hay: &'h [u8],
        map: impl Fn(Chunk<'_, 'h>) -> T + Sync,
        report: impl Report<T>,
    ) {
        let report = RefCell::new(report);
        parallel::scan_segments_map(
            &self.ex,
            hay,
            self.segment(),
            self.chunk_size,
            self.lines,
            map,
            |t| report.borrow_mut().take(t),
            |n| report.borrow_mut().scanned(n),
        );
    }

    /// [`Finder::map`] of a stream, read as [`Finder::scan_reader`] reads
    /// it: a [`Chunk`]'s offsets are in its block, whose first byte is at
    /// [`Chunk::base`] in the stream. Returns the bytes read.
    ///
    /// ```
    /// use urlsift_core::Finder;
    /// let text = b"http://a.example/ http://b.example/";
    /// let mut n = 0;
    /// Finder::new()
    ///     .map_reader(&text[..], |c| c.matches().len(), |k: usize| {
    ///         n += k;
    ///         true
    ///     })
    ///     .unwrap();
    /// assert_eq!(n, 2);
    /// ```
    pub fn map_reader<R: Read + Send, T: Send>(
        &self,
        r: R,
        map: impl Fn(Chunk<'_, '_>) -> T + Sync,
        report: impl Report<T>,
    ) -> io::Result<u64> {
        let report = RefCell::new(report);
        parallel::scan_reader_map(
            &self.ex,
            r,
            (self.block_size, self.chunk_size),
            self.lines,
            map,
            |t| report.borrow_mut().take(t),
            || report.borrow_mut().paused(),
        )
    }
}

/// Where a [`Finder`]'s entries hand their results, on the calling thread
/// and in input order: each [`Found`] match, or each chunk's result.
/// A closure `FnMut(T) -> bool` is one (it is [`Report::take`]).
pub trait Report<T> {
    /// The next result; false stops the scan.
    fn take(&mut self, item: T) -> bool;

    /// `bytes` more of a slice were scanned (a segment, see
    /// [`Finder::segment_size`]), and their results taken; false stops the
    /// scan there.
    fn scanned(&mut self, bytes: usize) -> bool {
        let _ = bytes;
        true
    }

    /// A stream's source paused, and the results of everything before the
    /// pause were taken (time to flush what was written); false stops the
    /// scan.
    fn paused(&mut self) -> bool {
        true
    }
}

impl<T, F: FnMut(T) -> bool> Report<T> for F {
    fn take(&mut self, item: T) -> bool {
        self(item)
    }
}

/// One match of [`Finder::scan`] or [`Finder::scan_reader`], with its
/// place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found<'h> {
    /// The match (a stream's offsets are in the whole stream).
    pub m: Match<'h>,
    /// Its 1-based line ([`Finder::lines`]; else 0).
    pub line: u64,
    /// Its 1-based byte column in that line ([`Finder::columns`]; else 0).
    pub column: u64,
}

/// The iterator of [`find`] and [`Finder::find`].
#[derive(Debug)]
struct Matches<'h> {
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

impl FusedIterator for Matches<'_> {}
