//! The chunk pipeline: chunks scanned and mapped on the pool, stitched and
//! handed on in order on the calling thread.

use super::segment::cuts_from;
use super::*;

struct ChunkOut<'h> {
    raws: Vec<RawMatch<'h>>,
    floor: usize,
}

/// The work of a [`pipeline`] that maps no units in its tasks.
pub(super) fn no_map(_: Chunk<'_, '_>) {}

/// The chunks of each segment of `hay` ([`segments`]) in turn, as a
/// [`pipeline`]'s `produce`; with `count_lines`, with their lines.
pub(super) fn segment_jobs(
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

/// What a chunk's task mapped (its first units), and whether those are
/// the units of its stitched matches.
pub(super) type Mapped<T> = (Vec<T>, bool);

/// A [`pipeline`]'s `hand_on` for `map`'s results: a chunk's units
/// mapped in its task go to `each` when it kept them, and its other units
/// are mapped ([`map_rest`]) and follow.
pub(super) fn hand_on<'a, 'h, T: Send>(
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
pub(super) fn map_range<'h, T: Send>(
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
pub(super) struct Job {
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
pub(super) fn chunk_jobs(
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
pub(super) fn pipeline<'h, T: Send>(
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
                while queued.is_empty() && more {
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
pub(super) const SPEC_UNITS: usize = 2;

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
