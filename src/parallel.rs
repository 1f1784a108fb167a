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
//! use urlsift::extract::Extractor;
//! let text = b"a http://a.example/ b <http://b.example/x\n y> c www.c.example d".repeat(100);
//! let mut seq = Vec::new();
//! Extractor::new().scan(&text, 0, text.len(), 0, |m| seq.push(m));
//! let mut par = Vec::new();
//! urlsift::parallel::scan(&Extractor::new(), &text, 7, |m| par.push(m));
//! assert_eq!(seq, par);
//! ```

use std::io::{self, Read};

use rayon::prelude::*;

use crate::classify::{Classifier, naive};
use crate::extract::rules::{MAX_LOOK_BEHIND, MAX_WRAPPED};
use crate::extract::{Extractor, Match, RawMatch};

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
        let mut i = next;
        while i < hay.len() && !(hay[i] < 0x80 && naive::is_stop(hay[i])) {
            i = c.find_stop(hay, i + 1);
        }
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

struct ChunkOut<'h> {
    raws: Vec<RawMatch<'h>>,
    floor: usize,
}

/// Scan `hay` in chunks of about `chunk_size` bytes on the current rayon pool,
/// and hand every match to `sink` in input order. The result is identical to
/// [`Extractor::scan`] over the whole buffer. Memory held at once is bounded
/// by a batch of chunks (four per thread), not by the input size.
pub fn scan<'h>(ex: &Extractor, hay: &'h [u8], chunk_size: usize, sink: impl FnMut(Match<'h>)) {
    scan_range(ex, hay, 0, hay.len(), 0, chunk_size, sink);
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
    let bounds = cuts_from(&ex.classifier(), &hay[..end], start, chunk_size);
    let chunks: Vec<(usize, usize)> = bounds.windows(2).map(|w| (w[0], w[1])).collect();
    let batch = 4 * rayon::current_num_threads().max(1);
    let mut floor = floor;
    for group in chunks.chunks(batch) {
        let outs: Vec<ChunkOut<'h>> = if group.len() == 1 {
            group
                .iter()
                .map(|&(b, e)| scan_chunk(ex, hay, b, e))
                .collect()
        } else {
            group
                .par_iter()
                .map(|&(b, e)| scan_chunk(ex, hay, b, e))
                .collect()
        };
        for (&(b, e), out) in group.iter().zip(outs) {
            floor = stitch(ex, hay, b, e, floor, out, &mut sink);
        }
    }
    floor
}

fn scan_chunk<'h>(ex: &Extractor, hay: &'h [u8], b: usize, e: usize) -> ChunkOut<'h> {
    let mut raws = Vec::new();
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

impl LineCounter {
    /// The 1-based line of `hay[at]`; `at` must not decrease between calls.
    pub fn line_at(&mut self, hay: &[u8], at: usize) -> u64 {
        if at > self.pos {
            self.line += memchr::memchr_iter(b'\n', &hay[self.pos..at]).count() as u64;
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

/// How much a stream is read at a time.
pub const DEFAULT_BLOCK_SIZE: usize = 16 << 20;

/// The longest run without any ASCII stop byte that a stream keeps whole;
/// longer runs (never text) are cut there, which can split a URL in them.
pub const MAX_RUN: usize = 64 << 20;

/// Scan a stream in blocks of about `block_size` bytes, carrying the tail a
/// URL needs from one block to the next, so memory stays bounded (about
/// `block_size` plus [`MAX_WRAPPED`], or [`MAX_RUN`] for text with no
/// whitespace at all) whatever the input size. Each match comes with its
/// 1-based line; its offsets are absolute in the stream. The result is
/// identical to scanning the whole stream at once. Returns the stream's size.
pub fn scan_reader<R: Read>(
    ex: &Extractor,
    mut r: R,
    block_size: usize,
    chunk_size: usize,
    mut sink: impl FnMut(&Match<'_>, u64),
) -> io::Result<u64> {
    let block_size = block_size.max(1);
    let mut buf: Vec<u8> = Vec::new();
    let mut base = 0u64; // absolute offset of buf[0]
    let (mut start, mut floor) = (0usize, 0usize);
    let mut lines = LineCounter::default();
    let mut eof = false;
    let mut need = block_size;
    while !eof {
        // Fill to a block plus the look-ahead a wrapped URL may need.
        let want = start + need + MAX_WRAPPED + 1;
        while buf.len() < want {
            let old = buf.len();
            buf.resize(want.max(old + 4096), 0);
            let n = loop {
                match r.read(&mut buf[old..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        // Report where the stream broke; what came before is scanned.
                        buf.truncate(old);
                        let at = base + buf.len() as u64;
                        let hay: &[u8] = &buf;
                        scan_block(
                            ex,
                            hay,
                            (start, hay.len(), floor),
                            chunk_size,
                            base,
                            &mut lines,
                            &mut sink,
                        );
                        return Err(io::Error::new(e.kind(), format!("at byte {at}: {e}")));
                    }
                }
            };
            buf.truncate(old + n);
            if n == 0 {
                eof = true;
                break;
            }
        }
        let end = if eof {
            buf.len()
        } else {
            // The last ASCII stop byte that leaves MAX_WRAPPED bytes after it.
            let limit = buf.len() - (MAX_WRAPPED + 1);
            debug_assert!(limit > start);
            // (A cut after `start`: the byte at `start` may be the last cut.)
            match buf[start + 1..limit]
                .iter()
                .rposition(|&b| b < 0x80 && naive::is_stop(b))
            {
                Some(i) => start + 1 + i,
                None if limit - start < MAX_RUN => {
                    // No cut yet: read more before scanning.
                    need = need.saturating_mul(2).min(MAX_RUN);
                    continue;
                }
                None => limit,
            }
        };
        need = block_size;
        let hay: &[u8] = &buf;
        floor = scan_block(
            ex,
            hay,
            (start, end, floor),
            chunk_size,
            base,
            &mut lines,
            &mut sink,
        );
        if eof {
            break;
        }
        // Keep the look-behind the next block needs, and anything after `end`.
        // A floor further back than MAX_LOOK_BEHIND changes no decision.
        let keep_from = end.saturating_sub(MAX_LOOK_BEHIND);
        lines.drop_front(&buf, keep_from);
        buf.drain(..keep_from);
        base += keep_from as u64;
        start = end - keep_from;
        floor = floor.saturating_sub(keep_from);
    }
    Ok(base + buf.len() as u64)
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

/// Emit one chunk's matches given the true `floor` before it; returns the floor after it.
fn stitch<'h>(
    ex: &Extractor,
    hay: &'h [u8],
    b: usize,
    e: usize,
    floor: usize,
    out: ChunkOut<'h>,
    sink: &mut impl FnMut(Match<'h>),
) -> usize {
    let spec_floor = b.saturating_sub(MAX_LOOK_BEHIND);
    if floor <= spec_floor {
        for r in out.raws {
            sink(r.m);
        }
        return out.floor;
    }
    // Re-scan with the true floor until both scans agree on everything after.
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
    for r in fixed {
        sink(r.m);
    }
    match stopped {
        Some(c) => {
            for r in out.raws.into_iter().filter(|r| r.anchor >= c) {
                sink(r.m);
            }
            out.floor
        }
        None => new_floor,
    }
}
