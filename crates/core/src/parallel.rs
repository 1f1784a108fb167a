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
//! use urlsift_core::extract::Extractor;
//! let text = b"a http://a.example/ b <http://b.example/x\n y> c www.c.example d".repeat(100);
//! let mut seq = Vec::new();
//! Extractor::new().scan(&text, 0, text.len(), 0, |m| seq.push(m));
//! let mut par = Vec::new();
//! urlsift_core::parallel::scan(&Extractor::new(), &text, 7, |m| par.push(m));
//! assert_eq!(seq, par);
//! ```

use std::collections::VecDeque;
use std::io::{self, Read};

use rayon::prelude::*;

use crate::classify::{Classifier, naive};
use crate::extract::rules::{MAX_LOOK_BEHIND, MAX_WRAPPED};
use crate::extract::{Extractor, Match, RawMatch, unicode};

/// The default chunk size: large enough to amortize the stitching, small
/// enough to spread a few hundred megabytes over many cores.
pub const DEFAULT_CHUNK_SIZE: usize = 2 << 20;

/// The cuts between chunks: `0 = b0 < b1 < ... < bn = hay.len()`, each inner
/// cut at an ASCII stop byte at or after a multiple of `chunk_size`.
pub fn cuts(hay: &[u8], chunk_size: usize) -> Vec<usize> {
    cuts_from(&Classifier::auto(), hay, 0, chunk_size)
}

/// [`cuts`] of `hay[start..]`: `start = b0 < b1 < ... < bn = hay.len()`.
fn cuts_from(c: &Classifier, hay: &[u8], start: usize, chunk_size: usize) -> Vec<usize> {
    let step = chunk_size.max(1);
    let mut v = vec![start];
    let mut next = start + step;
    while next < hay.len() {
        let i = find_cut(c, hay, next, hay.len());
        if i >= hay.len() {
            break;
        }
        if i > *v.last().unwrap_or(&start) {
            v.push(i);
        }
        next = i + step;
    }
    v.push(hay.len());
    v.dedup();
    v
}

/// True if the text may be cut before `hay[i]`: no URL, scheme or `www.`
/// runs across it (a URL wrapped in `<...>` may, and stitching handles it).
/// That is an ASCII stop byte (whitespace, `<`, `"`, ...), or the first byte
/// of a non-ASCII character that ends a URL (Unicode whitespace, CJK and
/// full-width punctuation, see [`crate::extract`]), or of bytes that are not
/// UTF-8. A UTF-8 continuation byte is never a cut point.
///
/// ```
/// use urlsift_core::parallel::is_cut;
/// let t = "a b。c中".as_bytes();
/// assert!(is_cut(t, 1));       // ' '
/// assert!(is_cut(t, 3));       // '。' (U+3002)
/// assert!(!is_cut(t, 4));      // inside '。'
/// assert!(!is_cut(t, 7));      // '中' may be part of an IRI
/// ```
pub fn is_cut(hay: &[u8], i: usize) -> bool {
    match hay.get(i) {
        None => false,
        Some(&b) if b < 0x80 => naive::is_stop(b),
        Some(0x80..=0xBF) => false,
        Some(_) => match unicode::decode(hay, i) {
            Some((c, _)) => unicode::ends_url(c),
            None => true,
        },
    }
}

/// The first cut point ([`is_cut`]) in `hay[from..limit]`, else `limit`.
fn find_cut(c: &Classifier, hay: &[u8], from: usize, limit: usize) -> usize {
    let hay = &hay[..limit.min(hay.len())];
    let mut i = from;
    loop {
        // Every non-ASCII byte is a stop byte to the classifier.
        i = c.find_stop(hay, i);
        if i >= hay.len() || is_cut(hay, i) {
            return i.min(limit);
        }
        i += 1;
    }
}

/// The last cut point in `hay[lo..hi]`, if any.
fn rfind_cut(hay: &[u8], lo: usize, hi: usize) -> Option<usize> {
    (lo..hi.min(hay.len())).rev().find(|&j| is_cut(hay, j))
}

/// A run of this many bytes with no cut point ([`is_cut`]) is cut, so that
/// memory stays bounded and every way of reading the same bytes (mapped,
/// streamed, decompressed) finds the same URLs: a *forced cut* falls at every
/// offset `k * MAX_RUN` of the input (moved back to a UTF-8 character
/// boundary) that has no cut point in the `MAX_RUN` bytes before it. No URL
/// runs across a forced cut. Text never has such runs: only binary data
/// and hostile input do.
pub const MAX_RUN: usize = 4 << 20;

/// Where a segment ends: see [`Segmenter::next`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SegEnd {
    /// At a cut point (the scan may read past it).
    Cut(usize),
    /// At a forced cut: the scan reads nothing at or past it.
    Forced(usize),
    /// At the end of the input.
    End(usize),
    /// No end can be decided in the bytes there are: read more.
    More,
}

/// The one segmenter of the input, shared by every reader: segments end at
/// cut points ([`is_cut`]) or at forced cuts ([`MAX_RUN`]), which depend on
/// the bytes alone, never on how they were read.
#[derive(Debug, Default)]
pub(crate) struct Segmenter {
    /// The absolute offset of the last cut point before the current
    /// segment's start (`None`: none since the input began).
    last_cut: Option<u64>,
}

impl Segmenter {
    /// The end of the segment starting at `hay[start]`, `hay[0]` being at
    /// absolute offset `base`: the first cut point at or after
    /// `start + target`, or the first forced cut after `start` when one
    /// comes first. A segment end is at most `avail`; with `eof`, `hay`
    /// ends the input, and `avail` is `hay.len()`.
    pub(crate) fn next(
        &mut self,
        c: &Classifier,
        hay: &[u8],
        base: u64,
        (start, target, avail): (usize, usize, usize),
        eof: bool,
    ) -> SegEnd {
        let want = start.saturating_add(target.max(1));
        // 2 * MAX_RUN bytes without a cut point hold a forced cut: look no
        // further (so a long run is searched once, not once per segment).
        let reach = want.saturating_add(2 * MAX_RUN).min(avail);
        let mut end = if want < avail {
            find_cut(c, hay, want, reach)
        } else {
            avail
        };
        if end >= avail && eof {
            end = hay.len();
        }
        // The forced cuts in (start, end]: the first wins.
        let run = MAX_RUN as u64;
        let mut q = ((base + start as u64) / run + 1) * run;
        while q <= base + end as u64 {
            let qi = (q - base) as usize;
            if qi >= hay.len() {
                break;
            }
            if self.forced_at(hay, base, start, qi) {
                // Back to a character boundary (at most 3 continuation bytes).
                let mut at = qi;
                while at > start + 1 && at + 3 > qi && (0x80..0xC0).contains(&hay[at]) {
                    at -= 1;
                }
                if at > start {
                    if let Some(k) = rfind_cut(hay, start, at) {
                        self.last_cut = Some(base + k as u64);
                    }
                    return SegEnd::Forced(at);
                }
            }
            q += run;
        }
        if end >= hay.len() && eof {
            return SegEnd::End(hay.len());
        }
        if end >= avail {
            return SegEnd::More;
        }
        if !is_cut(hay, end) {
            // Unreachable: a window of 2 * MAX_RUN bytes without a cut point
            // holds a forced cut, found above. Stay safe and deterministic.
            return SegEnd::Forced(end);
        }
        self.last_cut = Some(base + end as u64);
        SegEnd::Cut(end)
    }

    /// True if the `MAX_RUN` bytes before `hay[qi]` hold no cut point
    /// (looking before `hay[start]` through `last_cut`).
    fn forced_at(&self, hay: &[u8], base: u64, start: usize, qi: usize) -> bool {
        let window = (base + qi as u64).saturating_sub(MAX_RUN as u64);
        let lo = window.saturating_sub(base) as usize;
        if rfind_cut(hay, lo.max(start), qi).is_some() {
            return false;
        }
        if window >= base + start as u64 {
            return true;
        }
        self.last_cut.is_none_or(|k| k < window)
    }
}

/// One segment of a buffer: `hay[start..end]`. A scan of it may read past
/// `end` to finish its last URL, unless the cut is `forced` (no cut point
/// for [`MAX_RUN`] bytes): then it reads nothing at or past `end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Where the segment starts.
    pub start: usize,
    /// Where it ends.
    pub end: usize,
    /// The end is a forced cut.
    pub forced: bool,
}

impl Segment {
    /// Scan the segment from `floor` with `scan(hay, start, end, floor)`
    /// (an [`Extractor::scan`] or [`scan_range`] call), on the bytes it may
    /// read; returns the floor after it.
    pub fn scan<'h>(
        &self,
        hay: &'h [u8],
        floor: usize,
        scan: impl FnOnce(&'h [u8], usize, usize, usize) -> usize,
    ) -> usize {
        if self.forced {
            scan(&hay[..self.end], self.start, self.end, floor).max(self.end)
        } else {
            scan(hay, self.start, self.end, floor)
        }
    }
}

/// The segments of a whole buffer, in order: each ends at the first cut
/// point ([`is_cut`]) at least `target` bytes after its start, or at a
/// forced cut; the last ends at the buffer's end. Every scan of a whole
/// buffer goes through these, so they all find the same URLs.
///
/// ```
/// use urlsift_core::classify::Classifier;
/// let text = b"one http://a.example/ two http://b.example/ three";
/// let segs: Vec<_> = urlsift_core::parallel::segments(Classifier::auto(), text, 10).collect();
/// assert_eq!(segs.first().unwrap().start, 0);
/// assert_eq!(segs.last().unwrap().end, text.len());
/// assert!(segs.windows(2).all(|w| w[0].end == w[1].start));
/// ```
pub fn segments(c: Classifier, hay: &[u8], target: usize) -> Segments<'_> {
    Segments {
        c,
        hay,
        target,
        seg: Segmenter::default(),
        start: 0,
    }
}

/// The iterator of [`segments`].
#[derive(Debug)]
pub struct Segments<'h> {
    c: Classifier,
    hay: &'h [u8],
    target: usize,
    seg: Segmenter,
    start: usize,
}

impl Iterator for Segments<'_> {
    type Item = Segment;

    fn next(&mut self) -> Option<Segment> {
        let (hay, start) = (self.hay, self.start);
        if start >= hay.len() {
            return None;
        }
        let (end, forced) =
            match self
                .seg
                .next(&self.c, hay, 0, (start, self.target, hay.len()), true)
            {
                SegEnd::Cut(e) | SegEnd::End(e) => (e, false),
                SegEnd::Forced(e) => (e, true),
                // Unreachable with the whole buffer at hand: the rest is one segment.
                SegEnd::More => (hay.len(), false),
            };
        self.start = end;
        Some(Segment { start, end, forced })
    }
}

struct ChunkOut<'h> {
    raws: Vec<RawMatch<'h>>,
    floor: usize,
}

/// Scan `hay` in chunks of about `chunk_size` bytes on the current rayon pool,
/// and hand every match to `sink` in input order. The result is identical to
/// [`Extractor::scan`] over the whole buffer. The chunks are a pipeline,
/// two per thread in flight while the matches of those before are handed
/// on, so memory held at once is bounded by those chunks, not by the
/// input size.
pub fn scan<'h>(ex: &Extractor, hay: &'h [u8], chunk_size: usize, sink: impl FnMut(Match<'h>)) {
    let target = 4 * rayon::current_num_threads().max(1) * chunk_size.max(1);
    scan_segments(ex, hay, target, chunk_size, sink, |_| true);
}

/// [`scan`] one segment of about `target` bytes at a time (see
/// [`MAX_RUN`]), calling `between` with each segment's length after it:
/// when it returns `false`, the scan stops there.
pub fn scan_segments<'h>(
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
    pipeline(
        ex,
        hay,
        (0, 0),
        segment_jobs(ex.classifier(), hay, target, chunk_size, false),
        (&no_map, 0),
        |_, _, raws, _| {
            raws.drain(..).for_each(|r| sink(r.m));
            true
        },
        |seg| between(seg.end - seg.start),
        (&mut Vec::new(), &mut true),
        chunk_size,
    );
}

/// The work of a [`pipeline`] that maps no units in its tasks.
fn no_map(_: Chunk<'_, '_>) {}

/// The chunks of each segment of `hay` ([`segments`]) in turn, as a
/// [`pipeline`]'s `produce`; with `count_lines`, with their lines.
fn segment_jobs(
    c: Classifier,
    hay: &[u8],
    target: usize,
    chunk_size: usize,
    count_lines: bool,
) -> impl FnMut(bool) -> Option<VecDeque<Job>> + '_ {
    let mut segs = segments(c, hay, target);
    let mut lines = LineCounter::default();
    move |dense| {
        let seg = segs.next()?;
        // A scan reads nothing at or past a forced cut.
        let limit = if seg.forced { seg.end } else { hay.len() };
        let counter = count_lines.then_some(&mut lines);
        let mut jobs = chunk_jobs(
            &c,
            &hay[..limit],
            (seg.start, seg.end),
            chunk_size,
            dense,
            counter,
        );
        if let Some(last) = jobs.back_mut() {
            last.ends = Some(seg);
        }
        Some(jobs)
    }
}

/// The most matches of one unit of parallel work in [`scan_segments_map`].
const UNIT: usize = 8192;

/// One chunk of a [`scan_segments_map`] run: its matches, in input order,
/// handed to the per-chunk work that runs in parallel.
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
    /// The chunk's matches with their lines (1-based; correct only when the
    /// run counts lines, see [`scan_segments_map`]).
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

    /// The chunk's matches, in order.
    pub fn matches(&self) -> impl ExactSizeIterator<Item = &'a Match<'h>> + 'a {
        self.raws.iter().map(|r| &r.m)
    }

    /// A [`LineCounter`] at the chunk's start, for the lines of its matches.
    pub fn lines(&self) -> LineCounter {
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
/// With `count_lines`, each chunk carries the line at its start (its
/// newlines are counted in the parallel pass). `between` is called after
/// each segment, as in [`scan_segments`].
///
/// The matches, concatenated over the chunks, are those of [`scan`].
///
/// ```
/// use urlsift_core::extract::Extractor;
/// let text = b"a http://a.example/ b\nhttp://b.example/ c\n".repeat(100);
/// let mut lines = Vec::new();
/// urlsift_core::parallel::scan_segments_map(
///     &Extractor::new(),
///     &text,
///     64,
///     16,
///     true,
///     |c| {
///         let mut l = c.lines();
///         c.matches().map(|m| l.line_at(c.hay, m.start)).collect::<Vec<_>>()
///     },
///     |v| {
///         lines.extend(v);
///         true
///     },
///     |_| true,
/// );
/// assert_eq!(lines.len(), 200);
/// assert_eq!(&lines[..4], &[1, 2, 3, 4]);
/// ```
#[allow(clippy::too_many_arguments)]
pub fn scan_segments_map<'h, T: Send>(
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
        let mut reuse = (Vec::new(), true);
        for seg in segments(ex.classifier(), hay, target) {
            let mut go = true;
            floor = seg.scan(hay, floor, |h, s, e, f| {
                let counter = count_lines.then_some(&mut lines);
                let (f, g) = map_range(
                    ex,
                    h,
                    (s, e, f),
                    (chunk_size, 0),
                    counter,
                    (&map, &mut each),
                    (&mut reuse.0, &mut reuse.1),
                );
                go = g;
                f
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
    pipeline(
        ex,
        hay,
        (0, 0),
        segment_jobs(ex.classifier(), hay, target, chunk_size, count_lines),
        (&map, SPEC_UNITS),
        hand_on(&map, &mut each, 0),
        |seg| between(seg.end - seg.start),
        (&mut Vec::new(), &mut true),
        chunk_size,
    );
}

/// What a chunk's task mapped (its first units), and whether those are
/// the units of its stitched matches.
type Mapped<T> = (Vec<T>, bool);

/// A [`pipeline`]'s `hand_on` for `map`'s results: a chunk's units
/// mapped in its task go to `each` when it kept them, and its other units
/// are mapped ([`map_rest`]) and follow.
fn hand_on<'a, 'h, T: Send>(
    map: &'a (impl Fn(Chunk<'_, 'h>) -> T + Sync),
    each: &'a mut impl FnMut(T) -> bool,
    base: u64,
) -> impl FnMut(&'h [u8], &Job, &mut Vec<RawMatch<'h>>, Mapped<T>) -> bool + 'a {
    move |h, job, raws, (mapped, kept)| {
        let at = (job.b, job.line, &raws[..]);
        if kept {
            let done = mapped.len();
            mapped.into_iter().all(&mut *each) && map_rest(h, base, at, done, (map, &mut *each))
        } else {
            map_rest(h, base, at, 0, (map, &mut *each))
        }
    }
}

/// The matches of `hay[start..end]` from `floor` (as [`scan_range`]), in
/// chunks mapped in parallel; returns the floor after the range, and false
/// if `each` asked to stop. `spare` holds emptied match vectors, reused
/// from one call to the next, and `dense` whether the last chunk was so
/// dense in URLs that smaller chunks are cut.
fn map_range<'h, T: Send>(
    ex: &Extractor,
    hay: &'h [u8],
    (start, end, floor): (usize, usize, usize),
    (chunk_size, base): (usize, u64),
    mut lines: Option<&mut LineCounter>,
    (map, each): (
        &(impl Fn(Chunk<'_, 'h>) -> T + Sync),
        &mut impl FnMut(T) -> bool,
    ),
    (spare, dense): (&mut Vec<Vec<RawMatch<'h>>>, &mut bool),
) -> (usize, bool) {
    let end = end.min(hay.len());
    if start >= end {
        return (floor, true);
    }
    // The line at `at`, moving the counter there (`at` never decreases).
    let line_at = |lines: &mut Option<&mut LineCounter>, at: usize| {
        lines.as_deref_mut().map_or(1, |l| l.line_at(hay, at))
    };
    if end - start <= chunk_size || rayon::current_num_threads() <= 1 {
        // One chunk, or one thread: one scan on this thread (see
        // `scan_range`), its matches mapped `UNIT` at a time as they come
        // (so the matches held are few).
        // Lines are counted once, as the matches come: each match's line is
        // kept beside it.
        let go = std::cell::Cell::new(true);
        let mut raws: Vec<RawMatch<'h>> = Vec::new();
        let mut known: Vec<u64> = Vec::new();
        let mut at = start;
        let mut flush =
            |raws: &mut Vec<RawMatch<'h>>, known: &mut Vec<u64>, at: &mut usize, next: usize| {
                let t = map(Chunk {
                    hay,
                    base,
                    start: *at,
                    line: known.first().copied().unwrap_or(1),
                    raws,
                    known,
                });
                raws.clear();
                known.clear();
                *at = next.max(*at);
                if !each(t) {
                    go.set(false);
                }
            };
        let (floor, _) = ex.scan_raw(
            hay,
            start,
            end,
            floor,
            |_, _| go.get(),
            |r| {
                if raws.len() >= UNIT {
                    flush(&mut raws, &mut known, &mut at, r.m.start);
                }
                if let Some(l) = lines.as_deref_mut() {
                    known.push(l.line_at(hay, r.m.start));
                }
                raws.push(r);
            },
        );
        if go.get() {
            flush(&mut raws, &mut known, &mut at, end);
        }
        line_at(&mut lines, end);
        return (floor, go.get());
    }
    let mut range = Some((start, end));
    pipeline(
        ex,
        hay,
        (floor, base),
        |dense| {
            let range = range.take()?;
            Some(chunk_jobs(
                &ex.classifier(),
                hay,
                range,
                chunk_size,
                dense,
                lines.as_deref_mut(),
            ))
        },
        (map, SPEC_UNITS),
        hand_on(map, each, base),
        |_| true,
        (spare, dense),
        chunk_size,
    )
}

/// One chunk of a [`pipeline`]: `hay[b..e]`, scanned in `hay[..limit]`.
#[derive(Debug)]
struct Job {
    /// The scan reads nothing at or past `limit` (a forced cut).
    limit: usize,
    b: usize,
    e: usize,
    /// The line at `b`, when lines are counted.
    line: Option<u64>,
    /// The segment this chunk ends, if it is the segment's last.
    ends: Option<Segment>,
}

/// The chunks of `hay[start..end]` (cut in `hay`, whose end is the scan's
/// limit), of `chunk_size` bytes, or a quarter of that on text `dense` in
/// URLs; with `lines`, each with the line at its start (the chunks'
/// newlines are counted in parallel and added up in order; the counter
/// moves to `end`).
fn chunk_jobs(
    c: &Classifier,
    hay: &[u8],
    (start, end): (usize, usize),
    chunk_size: usize,
    dense: bool,
    lines: Option<&mut LineCounter>,
) -> VecDeque<Job> {
    let size = if dense {
        (chunk_size / 4).max(1)
    } else {
        chunk_size
    };
    let limit = hay.len();
    let end = end.min(limit);
    let bounds = cuts_from(c, &hay[..end], start, size);
    let chunks: Vec<(usize, usize)> = bounds.windows(2).map(|w| (w[0], w[1])).collect();
    // The chunks' bounds do not depend on the scan, so the lines at their
    // starts come first.
    let starts: Option<Vec<u64>> = lines.map(|l| {
        let counts: Vec<u64> = chunks
            .par_iter()
            .map(|&(b, e)| newlines(&hay[b..e]))
            .collect();
        let mut line = l.line_at(hay, start);
        let starts = counts
            .iter()
            .map(|n| {
                line += n;
                line - n
            })
            .collect();
        *l = LineCounter { pos: end, line };
        starts
    });
    chunks
        .iter()
        .enumerate()
        .map(|(i, &(b, e))| Job {
            limit,
            b,
            e,
            line: starts.as_ref().map(|v| v[i]),
            ends: None,
        })
        .collect()
}

/// The chunks `produce(dense)` gives, batch after batch until it gives
/// `None`, scanned in parallel from `floor` and stitched in order. In each
/// chunk's task, its first `spec` units are mapped with `map` (see
/// [`scan_segments_map`]); `hand_on(hay, job, raws, (mapped, kept))`
/// then takes the stitched matches (it may take them out of `raws`) on
/// this thread, in order, `kept` telling whether the units mapped are
/// those of the stitched matches; it returns false to stop. `ends(segment)`
/// is called after the last chunk of a segment (one that [`Job::ends`]),
/// and returns false to stop.
///
/// Returns the floor after the last chunk, and false if the run was asked
/// to stop. `spare` holds emptied match vectors, reused, and `dense`
/// whether the last chunk was so dense in URLs that smaller chunks are cut.
#[allow(clippy::too_many_arguments)]
fn pipeline<'h, T: Send>(
    ex: &Extractor,
    hay: &'h [u8],
    (floor, base): (usize, u64),
    mut produce: impl FnMut(bool) -> Option<VecDeque<Job>>,
    (map, spec): (&(impl Fn(Chunk<'_, 'h>) -> T + Sync), usize),
    mut hand_on: impl FnMut(&'h [u8], &Job, &mut Vec<RawMatch<'h>>, Mapped<T>) -> bool,
    mut ends: impl FnMut(&Segment) -> bool,
    (spare, dense): (&mut Vec<Vec<RawMatch<'h>>>, &mut bool),
    chunk_size: usize,
) -> (usize, bool) {
    // The chunks are a pipeline, with no barrier: up to two per thread (three
    // from a pool thread) are in flight on the pool while this thread takes their results in
    // order, stitches each to the one before and hands it on. Each chunk's
    // matches are held until it is handed on.
    //
    // A chunk's first units are mapped in the task that scanned it, while
    // its text and matches are in that core's cache, as if its start needed
    // no stitching (see [`stitch_raws`]); in the rare case it did, the
    // stitched matches are mapped again.
    //
    // On text so dense in URLs that a chunk of `chunk_size` would hold more
    // matches than a reused vector has room for ([`SPARE_MAX`]), the chunks
    // are a quarter of that size: such a chunk's matches take several times
    // its bytes. A run starts so, until a chunk shows the text is not dense.
    let threads = rayon::current_num_threads().max(1);
    // Called on a pool thread, this thread scans chunks too while it waits
    // (see [`wait`]), and hands results on only between them: a chunk more
    // per thread keeps the others busy meanwhile.
    let per_thread = if rayon::current_thread_index().is_some() {
        3
    } else {
        2
    };
    let window = per_thread * threads;
    let mut floor = floor;
    let mut go = true;
    rayon::in_place_scope(|s| {
        let mut queued: VecDeque<Job> = VecDeque::new();
        let mut in_flight = VecDeque::with_capacity(window);
        let mut more = true;
        loop {
            while in_flight.len() < window {
                if queued.is_empty() && more {
                    match produce(*dense) {
                        Some(jobs) => queued = jobs,
                        None => more = false,
                    }
                }
                let Some(job) = queued.pop_front() else { break };
                let (h, cb, ce, line) = (&hay[..job.limit], job.b, job.e, job.line);
                // The match vectors of the chunks before, emptied, are
                // reused: a chunk's matches are not written to fresh memory.
                let buf = spare.pop().unwrap_or_default();
                let (tx, rx) = std::sync::mpsc::sync_channel(1);
                s.spawn(move |_| {
                    let out = scan_chunk_into(ex, h, cb, ce, buf);
                    let mapped: Vec<T> = if spec == 0 {
                        Vec::new()
                    } else {
                        // Each unit its own task, so an idle thread can
                        // take one from a chunk denser than the others.
                        let units = units_of(h, cb, line, &out.raws);
                        units[..units.len().min(spec)]
                            .par_iter()
                            .map(|&u| map_unit(h, base, u, map))
                            .collect()
                    };
                    let _ = tx.send((out, mapped));
                });
                in_flight.push_back((job, rx));
            }
            let Some((job, rx)) = in_flight.pop_front() else {
                break;
            };
            let Some((out, mapped)) = wait(&rx) else {
                // The task died: its panic ends the scope.
                go = false;
                return;
            };
            let (h, b, e) = (&hay[..job.limit], job.b, job.e);
            let (f, mut raws, kept) = stitch_raws(ex, h, b, e, floor, out);
            floor = f;
            *dense = raws.len().saturating_mul(chunk_size) > SPARE_MAX.saturating_mul(e - b);
            if !hand_on(h, &job, &mut raws, (mapped, kept)) {
                go = false;
                return;
            }
            // Kept for reuse: as many vectors as are in flight, and none
            // grown past what ordinary text needs (text dense in URLs
            // frees its large vectors rather than hold them).
            if spare.len() < window && raws.capacity() <= SPARE_MAX {
                raws.clear();
                spare.push(raws);
            }
            if let Some(seg) = job.ends {
                if seg.forced {
                    floor = floor.max(seg.end);
                }
                if !ends(&seg) {
                    go = false;
                    return;
                }
            }
        }
    });
    (floor, go)
}

/// The result of a task of this pipeline: `None` if it died without one.
/// On a pool thread, other work is done while waiting.
fn wait<R>(rx: &std::sync::mpsc::Receiver<R>) -> Option<R> {
    use std::sync::mpsc::{RecvTimeoutError, TryRecvError};
    loop {
        match rx.try_recv() {
            Ok(r) => return Some(r),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) => {}
        }
        match rayon::yield_now() {
            Some(rayon::Yield::Executed) => continue,
            // Not a pool thread: nothing else to do here.
            None => return rx.recv().ok(),
            Some(rayon::Yield::Idle) => {
                match rx.recv_timeout(std::time::Duration::from_micros(50)) {
                    Ok(r) => return Some(r),
                    Err(RecvTimeoutError::Disconnected) => return None,
                    Err(RecvTimeoutError::Timeout) => {}
                }
            }
        }
    }
}

/// The most matches a reused match vector holds room for.
const SPARE_MAX: usize = 8 * UNIT;

/// Units of one chunk mapped in the task that scanned it, at most: what
/// they make is held until the chunk's turn (the rest of a chunk very
/// dense in URLs is mapped then, a wave at a time).
const SPEC_UNITS: usize = 2;

/// One unit of work: where it starts, the line there (1 when lines are not
/// counted), and its matches.
type Unit<'a, 'h> = (usize, u64, &'a [RawMatch<'h>]);

/// The units of one chunk's matches: at most [`UNIT`] matches each; a unit
/// starts at the chunk's start `b` or at its first match. `line` is the
/// line at `b`, when lines are counted.
fn units_of<'a, 'h>(
    hay: &[u8],
    b: usize,
    line: Option<u64>,
    raws: &'a [RawMatch<'h>],
) -> Vec<Unit<'a, 'h>> {
    let mut counter = line.map(|line| LineCounter { pos: b, line });
    let mut at = b;
    raws.chunks(UNIT)
        .enumerate()
        .map(|(i, part)| {
            if i > 0 {
                at = part[0].m.start.max(at);
            }
            let line = counter.as_mut().map_or(1, |c| c.line_at(hay, at));
            (at, line, part)
        })
        .collect()
}

/// `map` over one unit.
fn map_unit<'h, T>(
    hay: &'h [u8],
    base: u64,
    (at, line, raws): Unit<'_, 'h>,
    map: &impl Fn(Chunk<'_, 'h>) -> T,
) -> T {
    map(Chunk {
        hay,
        base,
        start: at,
        line,
        raws,
        known: &[],
    })
}

/// `map` over the units of one stitched chunk (at `b`, the line there when
/// counted, its matches) from unit `done` on, in parallel waves of two per
/// thread, handed to `each` in order; false if `each` asked to stop.
fn map_rest<'h, T: Send>(
    hay: &'h [u8],
    base: u64,
    (b, line, raws): (usize, Option<u64>, &[RawMatch<'h>]),
    done: usize,
    (map, each): (
        &(impl Fn(Chunk<'_, 'h>) -> T + Sync),
        &mut impl FnMut(T) -> bool,
    ),
) -> bool {
    if raws.len() <= done * UNIT {
        return true; // every unit is mapped
    }
    let threads = rayon::current_num_threads().max(1);
    let units = units_of(hay, b, line, raws);
    for wave in units[done..].chunks(2 * threads) {
        let results: Vec<T> = wave
            .par_iter()
            .map(|&u| map_unit(hay, base, u, map))
            .collect();
        if !results.into_iter().all(&mut *each) {
            return false;
        }
    }
    true
}

/// [`scan`] restricted to the candidates in `hay[start..end]`, starting from
/// `floor` (see [`Extractor::scan`]); returns the floor after the range. On a
/// one-thread pool, or for a range of at most `chunk_size` bytes, this is
/// one [`Extractor::scan`], without chunks (and without starting the pool).
pub fn scan_range<'h>(
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
    let (floor, _) = pipeline(
        ex,
        hay,
        (floor, 0),
        |dense| {
            let range = range.take()?;
            Some(chunk_jobs(
                &ex.classifier(),
                hay,
                range,
                chunk_size,
                dense,
                None,
            ))
        },
        (&no_map, 0),
        |_, _, raws, _| {
            raws.drain(..).for_each(|r| sink(r.m));
            true
        },
        |_| true,
        (&mut Vec::new(), &mut true),
        chunk_size,
    );
    floor
}

/// Scan the chunk `hay[b..e]` as if the floor were [`MAX_LOOK_BEHIND`]
/// bytes before it, into `raws` (empty; its room is reused).
fn scan_chunk_into<'h>(
    ex: &Extractor,
    hay: &'h [u8],
    b: usize,
    e: usize,
    mut raws: Vec<RawMatch<'h>>,
) -> ChunkOut<'h> {
    let spec_floor = b.saturating_sub(MAX_LOOK_BEHIND);
    let (floor, _) = ex.scan_raw(hay, b, e, spec_floor, |_, _| true, |r| raws.push(r));
    ChunkOut { raws, floor }
}

/// Counts lines up to each match, incrementally (matches come in order).
#[derive(Debug)]
pub struct LineCounter {
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
/// assert_eq!(urlsift_core::parallel::newlines(b"a\nb\r\n\nc"), 3);
/// assert_eq!(urlsift_core::parallel::newlines(b""), 0);
/// ```
pub fn newlines(bytes: &[u8]) -> u64 {
    bytecount::count(bytes, b'\n') as u64
}

impl LineCounter {
    /// The 1-based line of `hay[at]`; `at` must not decrease between calls.
    pub fn line_at(&mut self, hay: &[u8], at: usize) -> u64 {
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

/// Read from `r` onto the end of `buf` until it holds at least `want`
/// bytes (reads are of at least 4 KiB) or the stream ends; true at the end
/// of the stream. On an error, `buf` holds what was read before it. This is
/// the one stream reader of the crates: every stream is read through it, a
/// large block at a time.
///
/// ```
/// let mut buf = b"ab".to_vec();
/// let mut r = std::io::Read::chain(&b"cd"[..], &b"efg"[..]);
/// assert_eq!(urlsift_core::parallel::fill(&mut r, &mut buf, 4).unwrap(), false);
/// assert_eq!(buf, b"abcd");
/// assert_eq!(urlsift_core::parallel::fill(&mut r, &mut buf, 100).unwrap(), true);
/// assert_eq!(buf, b"abcdefg");
/// ```
pub fn fill(r: &mut impl Read, buf: &mut Vec<u8>, want: usize) -> io::Result<bool> {
    while buf.len() < want {
        let old = buf.len();
        buf.resize(want.max(old + 4096), 0);
        let n = loop {
            match r.read(&mut buf[old..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    buf.truncate(old);
                    return Err(e);
                }
            }
        };
        buf.truncate(old + n);
        if n == 0 {
            return Ok(true);
        }
    }
    Ok(false)
}

/// How much a stream is read at a time.
pub const DEFAULT_BLOCK_SIZE: usize = 16 << 20;

/// Scan a stream in blocks of about `block_size` bytes, carrying the tail a
/// URL needs from one block to the next, so memory stays bounded (about
/// `block_size` plus [`MAX_WRAPPED`], and at most `2 * MAX_RUN` more for
/// text with no cut point at all) whatever the input size. Each match comes with its
/// 1-based line; its offsets are absolute in the stream. The result is
/// identical to scanning the whole stream at once. Returns the stream's size.
pub fn scan_reader<R: Read>(
    ex: &Extractor,
    r: R,
    block_size: usize,
    chunk_size: usize,
    mut sink: impl FnMut(&Match<'_>, u64),
) -> io::Result<u64> {
    read_blocks(ex, r, block_size, true, |hay, range, base, lines| {
        let lines = lines.unwrap_or_else(|| unreachable!("lines are counted"));
        let floor = scan_block(ex, hay, range, chunk_size, base, lines, &mut sink);
        (floor, true)
    })
}

/// [`scan_reader`], with the work on each chunk's matches done in parallel
/// as in [`scan_segments_map`]: a [`Chunk`]'s offsets are in its block,
/// whose first byte is at [`Chunk::base`] in the stream. `each` returns
/// false to stop reading.
pub fn scan_reader_map<R: Read, T: Send>(
    ex: &Extractor,
    r: R,
    (block_size, chunk_size): (usize, usize),
    count_lines: bool,
    map: impl Fn(Chunk<'_, '_>) -> T + Sync,
    mut each: impl FnMut(T) -> bool,
) -> io::Result<u64> {
    let mut dense = true;
    read_blocks(ex, r, block_size, count_lines, |hay, range, base, lines| {
        let (map, each) = (&map, &mut each);
        map_range(
            ex,
            hay,
            range,
            (chunk_size, base),
            lines,
            (map, each),
            (&mut Vec::new(), &mut dense),
        )
    })
}

/// The block loop of [`scan_reader`]: `step(hay, (start, end, floor), base,
/// lines)` scans a segment of the buffer (whose first byte is at `base` in
/// the stream) and returns the floor after it, and false to stop.
fn read_blocks<R: Read>(
    ex: &Extractor,
    mut r: R,
    block_size: usize,
    count_lines: bool,
    mut step: impl FnMut(&[u8], (usize, usize, usize), u64, Option<&mut LineCounter>) -> (usize, bool),
) -> io::Result<u64> {
    let block_size = block_size.max(1);
    let mut buf: Vec<u8> = Vec::new();
    let mut base = 0u64; // absolute offset of buf[0]
    let (mut start, mut floor) = (0usize, 0usize);
    let mut lines = LineCounter::default();
    let mut eof = false;
    let mut need = block_size;
    let c = ex.classifier();
    let mut seg = Segmenter::default();
    let mut failed: Option<io::Error> = None;
    loop {
        // Fill to a block plus the look-ahead a wrapped URL may need.
        // (An eighth of a block more, to find the first cut point after it.)
        let want = start + need + need / 8 + MAX_WRAPPED + 1;
        if !eof {
            match fill(&mut r, &mut buf, want) {
                Ok(e) => eof = e,
                Err(e) => {
                    // Report where the stream broke, after scanning what came before.
                    let at = base + buf.len() as u64;
                    failed = Some(io::Error::new(e.kind(), format!("at byte {at}: {e}")));
                    eof = true;
                }
            }
        }
        let avail = if eof {
            buf.len()
        } else {
            buf.len() - (MAX_WRAPPED + 1)
        };
        let (end, hard) = match seg.next(&c, &buf, base, (start, block_size, avail), eof) {
            SegEnd::Cut(e) => (e, false),
            SegEnd::End(e) => (e, false),
            SegEnd::Forced(e) => (e, true),
            SegEnd::More => {
                // No segment end yet: read more before scanning (a forced
                // cut comes within 2 * MAX_RUN bytes).
                need = need.saturating_mul(2).min(block_size + 2 * MAX_RUN);
                continue;
            }
        };
        need = block_size;
        let hay: &[u8] = if hard { &buf[..end] } else { &buf };
        let counter = count_lines.then_some(&mut lines);
        let (f, go) = step(hay, (start, end, floor), base, counter);
        floor = if hard { f.max(end) } else { f };
        if !go || (eof && end >= buf.len()) {
            break;
        }
        // Keep the look-behind the next block needs, and anything after `end`.
        // A floor further back than MAX_LOOK_BEHIND changes no decision.
        let keep_from = end.saturating_sub(MAX_LOOK_BEHIND);
        if count_lines {
            lines.drop_front(&buf, keep_from);
        }
        buf.drain(..keep_from);
        base += keep_from as u64;
        start = end - keep_from;
        floor = floor.saturating_sub(keep_from);
    }
    match failed {
        Some(e) => Err(e),
        None => Ok(base + buf.len() as u64),
    }
}

/// Scan `hay[start..end]` of a stream block whose first byte is at `base`,
/// handing each match to `sink` with absolute offsets and its line; returns
/// the new floor.
fn scan_block(
    ex: &Extractor,
    hay: &[u8],
    (start, end, floor): (usize, usize, usize),
    chunk_size: usize,
    base: u64,
    lines: &mut LineCounter,
    sink: &mut impl FnMut(&Match<'_>, u64),
) -> usize {
    scan_range(ex, hay, start, end, floor, chunk_size, |m| {
        let line = lines.line_at(hay, m.start);
        let abs = Match {
            start: m.start + base as usize,
            end: m.end + base as usize,
            ..m
        };
        sink(&abs, line);
    })
}

/// One chunk's matches given the true `floor` before it, with their
/// bookkeeping, the floor after it, and whether the matches are those the
/// parallel pass found. In the usual case (the true floor is low enough)
/// they are the parallel pass's own vector, moved, not copied.
fn stitch_raws<'h>(
    ex: &Extractor,
    hay: &'h [u8],
    b: usize,
    e: usize,
    floor: usize,
    out: ChunkOut<'h>,
) -> (usize, Vec<RawMatch<'h>>, bool) {
    let spec_floor = b.saturating_sub(MAX_LOOK_BEHIND);
    if floor <= spec_floor {
        return (out.floor, out.raws, true);
    }
    // Re-scan the chunk's start with the true floor until both scans agree
    // on everything after, and put the few matches it gives in place of the
    // parallel pass's first ones: no second vector of the whole chunk.
    let spec = &out.raws;
    let mut k = 0; // spec matches with anchor < c
    let mut spec_floor_at = spec_floor;
    let mut fixed = Vec::new();
    let (new_floor, stopped) = ex.scan_raw(
        hay,
        b,
        e,
        floor,
        |c, true_floor| {
            while k < spec.len() && spec[k].anchor < c {
                spec_floor_at = spec[k].resume;
                k += 1;
            }
            !(c >= true_floor + MAX_LOOK_BEHIND && c >= spec_floor_at + MAX_LOOK_BEHIND)
        },
        |r| fixed.push(r),
    );
    let same = |a: &[RawMatch<'h>], b: &[RawMatch<'h>]| {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.m == y.m)
    };
    match stopped {
        Some(c) => {
            let mut raws = out.raws;
            let keep = raws.partition_point(|r| r.anchor < c);
            let kept = same(&fixed, &raws[..keep]);
            raws.splice(..keep, fixed);
            (out.floor, raws, kept)
        }
        None => {
            let kept = same(&fixed, &out.raws);
            (new_floor, fixed, kept)
        }
    }
}
