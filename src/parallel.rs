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

use rayon::prelude::*;

use crate::classify::naive;
use crate::extract::rules::MAX_LOOK_BEHIND;
use crate::extract::{Extractor, Match, RawMatch};

/// The default chunk size: large enough to amortize the stitching, small
/// enough to spread a few hundred megabytes over many cores.
pub const DEFAULT_CHUNK_SIZE: usize = 2 << 20;

/// The cuts between chunks: `0 = b0 < b1 < ... < bn = hay.len()`, each inner
/// cut at an ASCII stop byte at or after a multiple of `chunk_size`.
pub fn cuts(hay: &[u8], chunk_size: usize) -> Vec<usize> {
    let step = chunk_size.max(1);
    let mut v = vec![0];
    let mut next = step;
    while next < hay.len() {
        let mut i = next;
        while i < hay.len() && !(hay[i] < 0x80 && naive::is_stop(hay[i])) {
            i = naive::find_stop(hay, i + 1);
        }
        if i >= hay.len() {
            break;
        }
        if i > *v.last().unwrap_or(&0) {
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
pub fn scan<'h>(ex: &Extractor, hay: &'h [u8], chunk_size: usize, mut sink: impl FnMut(Match<'h>)) {
    let cuts = cuts(hay, chunk_size);
    let chunks: Vec<(usize, usize)> = cuts.windows(2).map(|w| (w[0], w[1])).collect();
    let batch = 4 * rayon::current_num_threads().max(1);
    let mut floor = 0usize;
    for group in chunks.chunks(batch) {
        let outs: Vec<ChunkOut<'h>> = group
            .par_iter()
            .map(|&(b, e)| {
                let mut raws = Vec::new();
                let (floor, _) = ex.scan_raw(
                    hay,
                    b,
                    e,
                    b.saturating_sub(MAX_LOOK_BEHIND),
                    |_, _| true,
                    |r| raws.push(r),
                );
                ChunkOut { raws, floor }
            })
            .collect();
        for (&(b, e), out) in group.iter().zip(outs) {
            floor = stitch(ex, hay, b, e, floor, out, &mut sink);
        }
    }
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
