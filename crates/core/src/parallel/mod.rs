//! Chunked, multi-core scanning of one large buffer, with output identical to
//! a sequential scan for every thread count and chunk size.
//!
//! # How chunks are stitched
//!
//! The buffer is cut into chunks of about `chunk_size` bytes; each cut is moved
//! forward to the next ASCII stop byte (whitespace, `<`, `"`, ...), which no
//! scheme and no bare URL crosses. A URL belongs to the chunk that holds its
//! candidate anchor (the `:` of its scheme, or its `www.`), and a chunk reads
//! past its end to finish its last URL.
//!
//! The only state a scan carries from one candidate to the next is its
//! *floor*: where the last URL (with its closing delimiter) ended. The rules
//! look back at most [`MAX_LOOK_BEHIND`] bytes, so every chunk is first scanned
//! in parallel as if the floor were `MAX_LOOK_BEHIND` bytes before its start.
//! Stitching then walks the chunks in order with the true floor. When the true
//! floor is that low or lower, the chunk's result is exact. Otherwise (a URL
//! ended just before the cut, or a URL wrapped in `<...>` runs across it) the
//! chunk is re-scanned from its start with the true floor, only until both
//! scans are at a candidate that lies at least `MAX_LOOK_BEHIND` bytes past
//! both floors: from there on, every decision is the same in both, and the
//! parallel result is used.
//!
//! ```
//! use urlsift_core::{Extractor, Finder, Found};
//! let text = b"a http://a.example/ b <http://b.example/x\n y> c www.c.example d".repeat(100);
//! let mut seq = Vec::new();
//! Extractor::new().scan(&text, 0, text.len(), 0, |m| {
//!     seq.push((m.start, m.end, m.url_str().into_owned()))
//! });
//! let mut chunked = Vec::new();
//! Finder::new().chunk_size(7).scan(&text, |f: Found<'_>| {
//!     chunked.push((f.m.start, f.m.end, f.m.url_str().into_owned()));
//!     true
//! });
//! assert_eq!(seq, chunked);
//! ```

mod chunks;
mod segment;
pub(crate) mod stream;

use std::collections::VecDeque;
use std::io::{self, Read};

use rayon::prelude::*;

use crate::classify::{Classifier, naive};
use crate::extract::rules::{MAX_LOOK_BEHIND, MAX_WRAPPED};
use crate::extract::{Extractor, Match, RawMatch, unicode};

use chunks::{
    Reached, Reuse, SPEC_UNITS, Scan, Stages, Stretch, Work, chunk_jobs, drain_to, hand_on,
    map_range, no_map, pipeline, segment_jobs,
};
use segment::MAX_RUN;
pub(crate) use segment::{Segment, Segments, segments};
pub(crate) use stream::{scan_reader_columns, scan_reader_map, scan_reader_while};

/// The default chunk size: large enough to amortize the stitching, small
/// enough to spread a few hundred megabytes over many cores.
pub const DEFAULT_CHUNK_SIZE: usize = 2 << 20;

/// How much a stream is read at a time.
pub const DEFAULT_BLOCK_SIZE: usize = 16 << 20;

/// Scan `hay` in chunks of about `chunk_size` bytes on the current rayon pool,
/// and hand every match to `sink` in input order. The result is identical to
/// [`Extractor::scan`] over the whole buffer. The chunks are a pipeline,
/// two per thread in flight while the matches of those before are handed
/// on, so memory held at once is bounded by those chunks, not by the
/// input size. The scan goes one segment of about `target` bytes at a time
/// (see [`MAX_RUN`]), calling `between` with each segment's length after
/// it: when it returns `false`, the scan stops there.
pub(crate) fn scan_segments<'h>(
    ex: &Extractor,
    hay: &'h [u8],
    target: usize,
    chunk_size: usize,
    mut sink: impl FnMut(Match<'h>),
    mut between: impl FnMut(usize) -> bool,
) {
    if hay.len() <= chunk_size || rayon::current_num_threads() <= 1 {
        let mut floor = 0;
        for seg in segments(ex.classifier(), hay, target) {
            floor = seg.scan(hay, floor, |h, s, e, f| {
                scan_range(ex, h, s, e, f, chunk_size, &mut sink)
            });
            if !between(seg.end - seg.start) {
                return;
            }
        }
        return;
    }
    let stages = Stages {
        produce: segment_jobs(ex.classifier(), hay, target, chunk_size),
        map: &no_map,
        spec: 0,
        hand_on: drain_to(&mut sink),
        ends: |seg: &Segment| between(seg.end - seg.start),
    };
    let scan = whole(ex, hay, chunk_size);
    pipeline(scan, 0, None, stages, &mut Reuse::new(true));
}

/// A [`Scan`] of the whole buffer `hay`.
fn whole<'a, 'h>(ex: &'a Extractor, hay: &'h [u8], chunk_size: usize) -> Scan<'a, 'h> {
    Scan {
        ex,
        hay,
        base: 0,
        chunk_size,
    }
}

/// One chunk of a [`Finder::map`](crate::Finder::map) or
/// [`Finder::map_reader`](crate::Finder::map_reader) run: its matches, in
/// input order, handed to the per-chunk work that runs in parallel.
#[derive(Clone, Copy, Debug)]
pub struct Chunk<'a, 'h> {
    /// The text the matches' offsets point into.
    pub hay: &'h [u8],
    /// The offset of `hay[0]` in the whole input (a stream's block: where
    /// it starts; 0 for a whole buffer).
    pub base: u64,
    /// Where the chunk starts in `hay`.
    pub start: usize,
    /// The 1-based line of `hay[start]` (1 when lines are not counted).
    pub line: u64,
    /// The chunk's matches, in order (with the scan's bookkeeping, kept
    /// from the parallel pass rather than copied).
    raws: &'a [RawMatch<'h>],
    /// Each match's line, when the scan counted them as it went (else
    /// empty: [`Chunk::lines`] counts from the chunk's start).
    known: &'a [u64],
}

impl<'a, 'h> Chunk<'a, 'h> {
    /// The chunk's matches, in order, with their lines (1-based; correct
    /// only when the run counts lines, see
    /// [`Finder::lines`](crate::Finder::lines)).
    pub fn matches_with_lines(&self) -> impl Iterator<Item = (&'a Match<'h>, u64)> + 'a {
        let known = self.known;
        let mut counter = self.lines();
        let hay = self.hay;
        self.raws.iter().enumerate().map(move |(i, r)| {
            let line = match known.get(i) {
                Some(&l) => l,
                None => counter.line_at(hay, r.m.start),
            };
            (&r.m, line)
        })
    }

    /// The chunk's matches, in order (without their lines: a chunk's
    /// lines cost a pass over its text unless the run counts them).
    pub fn matches(&self) -> impl ExactSizeIterator<Item = &'a Match<'h>> + 'a {
        self.raws.iter().map(|r| &r.m)
    }

    /// A [`LineCounter`] at the chunk's start, for the lines of its matches.
    pub(crate) fn lines(&self) -> LineCounter {
        LineCounter {
            pos: self.start,
            line: self.line,
        }
    }
}

/// [`scan_segments`], with the work on each chunk's matches done in
/// parallel: `map` turns one [`Chunk`] into a `T` on the rayon pool (so
/// formatting, for example, runs on every core), and `each` takes the
/// results in input order, on the calling thread; it returns false to stop.
/// With `count_lines`, each chunk carries the line at its start and the
/// lines of its matches (each chunk's newlines are counted once, in the
/// task that scans it, and the chunk is mapped once those before it are
/// stitched). `between` is called after
/// each segment, as in [`scan_segments`].
///
/// The matches, concatenated over the chunks, are those of [`scan_segments`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn scan_segments_map<'h, T: Send>(
    ex: &Extractor,
    hay: &'h [u8],
    target: usize,
    chunk_size: usize,
    count_lines: bool,
    map: impl Fn(Chunk<'_, 'h>) -> T + Sync,
    mut each: impl FnMut(T) -> bool,
    mut between: impl FnMut(usize) -> bool,
) {
    if hay.len() <= chunk_size || rayon::current_num_threads() <= 1 {
        // One chunk, or one thread: each segment is scanned on this thread.
        let mut lines = LineCounter::default();
        let mut floor = 0;
        let mut reuse = Reuse::new(true);
        for seg in segments(ex.classifier(), hay, target) {
            let mut go = true;
            floor = seg.scan(hay, floor, |h, start, end, floor| {
                let counter = count_lines.then_some(&mut lines);
                let work = Work {
                    map: &map,
                    each: &mut each,
                };
                let stretch = Stretch { start, end, floor };
                let reached =
                    map_range(whole(ex, h, chunk_size), stretch, counter, work, &mut reuse);
                go = reached.go;
                reached.floor
            });
            if !go || !between(seg.end - seg.start) {
                return;
            }
        }
        return;
    }
    // One pipeline over every segment: the chunks of the next segment are
    // cut while those of the one before are in flight, so the pool never
    // waits at a segment's end.
    let work = Work {
        map: &map,
        each: &mut each,
    };
    let stages = Stages {
        produce: segment_jobs(ex.classifier(), hay, target, chunk_size),
        map: &map,
        spec: SPEC_UNITS,
        hand_on: hand_on(work, 0),
        ends: |seg: &Segment| between(seg.end - seg.start),
    };
    let mut line = 1;
    let lines = count_lines.then_some(&mut line);
    pipeline(
        whole(ex, hay, chunk_size),
        0,
        lines,
        stages,
        &mut Reuse::new(true),
    );
}

/// [`scan_segments`] restricted to the candidates in `hay[start..end]`, starting from
/// `floor` (see [`Extractor::scan`]); returns the floor after the range. On a
/// one-thread pool, or for a range of at most `chunk_size` bytes, this is
/// one [`Extractor::scan`], without chunks (and without starting the pool).
pub(crate) fn scan_range<'h>(
    ex: &Extractor,
    hay: &'h [u8],
    start: usize,
    end: usize,
    floor: usize,
    chunk_size: usize,
    mut sink: impl FnMut(Match<'h>),
) -> usize {
    let end = end.min(hay.len());
    if start >= end {
        return floor;
    }
    if end - start <= chunk_size || rayon::current_num_threads() <= 1 {
        // One chunk, or one thread: chunks would be scanned one after the
        // other anyway, and the stitched result is that of one scan (the
        // invariant above), so skip the chunk buffers and the stitching.
        // A small input is checked first, so it never starts the pool.
        return ex.scan(hay, start, end, floor, sink);
    }
    let mut range = Some((start, end));
    let stages = Stages {
        produce: |dense| {
            let range = range.take()?;
            Some(chunk_jobs(&ex.classifier(), hay, range, chunk_size, dense))
        },
        map: &no_map,
        spec: 0,
        hand_on: drain_to(&mut sink),
        ends: |_: &Segment| true,
    };
    let scan = whole(ex, hay, chunk_size);
    let Reached { floor, .. } = pipeline(scan, floor, None, stages, &mut Reuse::new(true));
    floor
}

/// Counts lines up to each match, incrementally (matches come in order).
#[derive(Debug)]
pub(crate) struct LineCounter {
    pos: usize,
    line: u64,
}

impl Default for LineCounter {
    fn default() -> Self {
        LineCounter { pos: 0, line: 1 }
    }
}

/// The number of newlines (`\n`) in `bytes`: the one line count of the
/// crates (SIMD, `bytecount`; as fast on text of short lines as on long).
///
/// ```
/// assert_eq!(urlsift_core::newlines(b"a\nb\r\n\nc"), 3);
/// assert_eq!(urlsift_core::newlines(b""), 0);
/// ```
pub fn newlines(bytes: &[u8]) -> u64 {
    bytecount::count(bytes, b'\n') as u64
}

/// The 1-based byte column of offsets into one text (the byte's place in
/// its line, as ripgrep's `--vimgrep` counts it), for offsets that mostly go
/// forward: each looks back only to the one before it. An offset before
/// the one before looks back to the start of its own line.
///
/// ```
/// use urlsift_core::ColumnCounter;
/// let text = b"ab\ncd http://x/\nhttp://y/";
/// let mut c = ColumnCounter::default();
/// assert_eq!(c.column_at(text, 0), 1);
/// assert_eq!(c.column_at(text, 6), 4);
/// assert_eq!(c.column_at(text, 16), 1);
/// assert_eq!(c.column_at(text, 4), 2);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ColumnCounter {
    pos: usize,
    line_start: usize,
}

impl ColumnCounter {
    /// The 1-based byte column of `hay[at]`.
    pub fn column_at(&mut self, hay: &[u8], at: usize) -> u64 {
        let at = at.min(hay.len());
        if at >= self.pos {
            if let Some(i) = memchr::memrchr(b'\n', &hay[self.pos..at]) {
                self.line_start = self.pos + i + 1;
            }
        } else {
            self.line_start = memchr::memrchr(b'\n', &hay[..at]).map_or(0, |i| i + 1);
        }
        self.pos = at;
        (at - self.line_start) as u64 + 1
    }
}

impl LineCounter {
    /// The 1-based line of `hay[at]`; `at` must not decrease between calls.
    pub(crate) fn line_at(&mut self, hay: &[u8], at: usize) -> u64 {
        if at > self.pos {
            self.line += newlines(&hay[self.pos..at]);
            self.pos = at;
        }
        self.line
    }

    /// The buffer lost its first `n` bytes: shift the position.
    fn drop_front(&mut self, hay: &[u8], n: usize) {
        self.line_at(hay, n);
        self.pos -= n;
    }
}
