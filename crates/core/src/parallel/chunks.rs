//! The chunk pipeline: chunks scanned and mapped on the pool, stitched and
//! handed on in order on the calling thread.

use super::segment::cuts_from;
use super::*;
use std::sync::mpsc::Receiver;

struct ChunkOut<'h> {
    raws: Vec<RawMatch<'h>>,
    floor: usize,
    /// When lines are counted: the lines of the matches, counted from 0 at
    /// the chunk's start, and the newlines of the whole chunk.
    lines: Option<(Vec<u64>, u64)>,
}

/// The work of a [`pipeline`] that maps no units in its tasks.
pub(super) fn no_map(_: Chunk<'_, '_>) {}

/// The chunks of each segment of `hay` ([`segments`]) in turn, as a
/// [`pipeline`]'s `produce`.
pub(super) fn segment_jobs(
    c: Classifier,
    hay: &[u8],
    target: usize,
    chunk_size: usize,
) -> impl FnMut(bool) -> Option<VecDeque<Job>> + '_ {
    let mut segs = segments(c, hay, target);
    move |dense| {
        let seg = segs.next()?;
        // A scan reads nothing at or past a forced cut.
        let limit = if seg.forced { seg.end } else { hay.len() };
        let mut jobs = chunk_jobs(&c, &hay[..limit], (seg.start, seg.end), chunk_size, dense);
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
    let mut line = lines.as_deref_mut().map(|l| l.line_at(hay, start));
    let res = pipeline(
        ex,
        hay,
        (floor, base, line.as_mut()),
        |dense| {
            let range = range.take()?;
            Some(chunk_jobs(&ex.classifier(), hay, range, chunk_size, dense))
        },
        (map, SPEC_UNITS),
        hand_on(map, each, base),
        |_| true,
        (spare, dense),
        chunk_size,
    );
    if let (Some(l), Some(line)) = (lines, line) {
        *l = LineCounter { pos: end, line };
    }
    res
}

/// One chunk of a [`pipeline`]: `hay[b..e]`, scanned in `hay[..limit]`.
#[derive(Debug)]
pub(super) struct Job {
    /// The scan reads nothing at or past `limit` (a forced cut).
    limit: usize,
    b: usize,
    e: usize,
    /// The line at `b`, when lines are counted (known once the chunks
    /// before it are scanned).
    line: Option<u64>,
    /// The segment this chunk ends, if it is the segment's last.
    ends: Option<Segment>,
}

/// The chunks of `hay[start..end]` (cut in `hay`, whose end is the scan's
/// limit), of `chunk_size` bytes, or a quarter of that on text `dense` in
/// URLs.
pub(super) fn chunk_jobs(
    c: &Classifier,
    hay: &[u8],
    (start, end): (usize, usize),
    chunk_size: usize,
    dense: bool,
) -> VecDeque<Job> {
    let size = if dense {
        (chunk_size / 4).max(1)
    } else {
        chunk_size
    };
    let limit = hay.len();
    let end = end.min(limit);
    cuts_from(c, &hay[..end], start, size)
        .windows(2)
        .map(|w| Job {
            limit,
            b: w[0],
            e: w[1],
            line: None,
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
/// With `lines` (the line at the first chunk's start; the chunks follow
/// one another), lines are counted: each chunk's task counts its own
/// newlines once, the lines of its matches among them, and its units are
/// mapped with their lines in a task of their own, spawned as soon as the
/// chunks before it are stitched (which gives its first line). `lines`
/// ends as the line at the end of the last chunk handed on.
///
/// Returns the floor after the last chunk, and false if the run was asked
/// to stop. `spare` holds emptied match vectors, reused, and `dense`
/// whether the last chunk was so dense in URLs that smaller chunks are cut.
#[allow(clippy::too_many_arguments)]
pub(super) fn pipeline<'h, T: Send>(
    ex: &Extractor,
    hay: &'h [u8],
    (floor, base, mut lines): (usize, u64, Option<&mut u64>),
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
    // stitched matches are mapped again. With lines, a chunk's first line
    // is known only once those before it are stitched, so its units are
    // mapped in a second task, and the chunks stitched wait in order for
    // theirs to end.
    //
    // On text so dense in URLs that a chunk of `chunk_size` would hold more
    // matches than a reused vector has room for ([`SPARE_MAX`]), the chunks
    // are a quarter of that size: such a chunk's matches take several times
    // its bytes. A run starts so, until a chunk shows the text is not dense.
    let threads = rayon::current_num_threads().max(1);
    // Called on a pool thread, this thread scans chunks too while it waits
    // (see [`wait`]), and hands results on only between them: a chunk more
    // per thread keeps the others busy meanwhile. The chunks are spawned
    // first in, first out, so the chunk it takes is the oldest not started,
    // the next it needs; last in, first out, it would scan the newest while
    // another thread scans the one it waits for, and then wait idle.
    let per_thread = if rayon::current_thread_index().is_some() {
        3
    } else {
        2
    };
    let window = per_thread * threads;
    let counting = lines.is_some();
    let mut floor = floor;
    let mut go = true;
    rayon::in_place_scope_fifo(|s| {
        let mut queued: VecDeque<Job> = VecDeque::new();
        let mut in_flight = VecDeque::with_capacity(window);
        // Stitched, in order, waiting to be handed on.
        let mut stitched: VecDeque<Stitched<'h, T>> = VecDeque::with_capacity(window);
        let mut more = true;
        loop {
            // Chunks scanning, and stitched ones waiting for their turn
            // (with lines, being formatted), are `window` at most.
            while in_flight.len() + stitched.len() < window {
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
                s.spawn_fifo(move |_| {
                    let out = scan_chunk_into(ex, h, cb, ce, buf, counting);
                    // With lines, a chunk's units are mapped once its first
                    // line is known (see `map_counted`).
                    let mapped: Vec<T> = if counting || spec == 0 {
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
            // The next chunk in order, if its units are mapped.
            if let Some(next) = stitched.front_mut() {
                match next.mapped(false) {
                    Some(true) => {
                        let next = stitched.pop_front().unwrap_or_else(|| unreachable!());
                        if !hand_on_stitched(hay, next, (&mut hand_on, &mut ends), spare, window) {
                            go = false;
                            return;
                        }
                        continue;
                    }
                    Some(false) => {}
                    None => {
                        // The task died: its panic ends the scope.
                        go = false;
                        return;
                    }
                }
            }
            if let Some((mut job, rx)) = in_flight.pop_front() {
                let Some((mut out, mapped)) = wait(&rx) else {
                    go = false;
                    return;
                };
                let counted = out.lines.take();
                let (h, b, e) = (&hay[..job.limit], job.b, job.e);
                let (f, mut raws, kept) = stitch_raws(ex, h, b, e, floor, out);
                floor = f;
                *dense = raws.len().saturating_mul(chunk_size) > SPARE_MAX.saturating_mul(e - b);
                if let Some(seg) = job.ends.filter(|seg| seg.forced) {
                    floor = floor.max(seg.end);
                }
                let mapping = match (lines.as_deref_mut(), counted) {
                    (Some(line), Some((rel, total))) => {
                        let first = *line;
                        *line += total;
                        job.line = Some(first);
                        let raws = std::mem::take(&mut raws);
                        let (tx, rx) = std::sync::mpsc::sync_channel(1);
                        s.spawn_fifo(move |_| {
                            let (mapped, raws) =
                                map_counted(h, (b, base, first), (raws, rel, kept), map);
                            let _ = tx.send((mapped, raws));
                        });
                        Mapping::Pending(rx)
                    }
                    _ => Mapping::Done((mapped, kept)),
                };
                stitched.push_back(Stitched { job, raws, mapping });
                continue;
            }
            let Some(next) = stitched.front_mut() else {
                break;
            };
            if next.mapped(true).is_none() {
                go = false;
                return;
            }
        }
    });
    (floor, go)
}

/// A chunk stitched, waiting for its turn to be handed on.
struct Stitched<'h, T> {
    job: Job,
    /// Its matches (empty while a task maps them).
    raws: Vec<RawMatch<'h>>,
    mapping: Mapping<'h, T>,
}

/// A stitched chunk's mapped units: mapped in the task that scanned it
/// (and whether they are those of the stitched matches), or being mapped
/// in a task of their own, which gives the matches back.
enum Mapping<'h, T> {
    Done(Mapped<T>),
    Pending(Receiver<(Vec<T>, Vec<RawMatch<'h>>)>),
}

impl<T> Stitched<'_, T> {
    /// Whether its units are mapped, waiting for them when `block`;
    /// `None` if the task mapping them died.
    fn mapped(&mut self, block: bool) -> Option<bool> {
        use std::sync::mpsc::TryRecvError;
        let Mapping::Pending(rx) = &self.mapping else {
            return Some(true);
        };
        let (mapped, raws) = if block {
            wait(rx)?
        } else {
            match rx.try_recv() {
                Ok(got) => got,
                Err(TryRecvError::Empty) => return Some(false),
                Err(TryRecvError::Disconnected) => return None,
            }
        };
        self.raws = raws;
        self.mapping = Mapping::Done((mapped, true));
        Some(true)
    }
}

/// Hand a stitched chunk on (its units mapped), keep its match vector for
/// reuse, and end its segment if it is the last; false to stop.
fn hand_on_stitched<'h, T>(
    hay: &'h [u8],
    mut next: Stitched<'h, T>,
    (hand_on, ends): (
        &mut impl FnMut(&'h [u8], &Job, &mut Vec<RawMatch<'h>>, Mapped<T>) -> bool,
        &mut impl FnMut(&Segment) -> bool,
    ),
    spare: &mut Vec<Vec<RawMatch<'h>>>,
    window: usize,
) -> bool {
    let Mapping::Done(mapped) = next.mapping else {
        unreachable!("handed on before its units are mapped")
    };
    let h = &hay[..next.job.limit];
    if !hand_on(h, &next.job, &mut next.raws, mapped) {
        return false;
    }
    // Kept for reuse: as many vectors as are in flight, and none grown
    // past what ordinary text needs (text dense in URLs frees its large
    // vectors rather than hold them).
    let mut raws = next.raws;
    if spare.len() < window && raws.capacity() <= SPARE_MAX {
        raws.clear();
        spare.push(raws);
    }
    match next.job.ends {
        Some(seg) => ends(&seg),
        None => true,
    }
}

/// Map the units of a stitched chunk at `b` whose first line is `first`:
/// `rel` holds its matches' lines from the chunk's start when `kept` (the
/// stitched matches are those the task counted); else they are counted
/// here. Gives the mapped units and the matches back.
#[allow(clippy::type_complexity)]
fn map_counted<'h, T>(
    hay: &'h [u8],
    (b, base, first): (usize, u64, u64),
    (raws, mut rel, kept): (Vec<RawMatch<'h>>, Vec<u64>, bool),
    map: &impl Fn(Chunk<'_, 'h>) -> T,
) -> (Vec<T>, Vec<RawMatch<'h>>) {
    if kept {
        rel.iter_mut().for_each(|l| *l += first);
    } else {
        let mut counter = LineCounter {
            pos: b,
            line: first,
        };
        rel.clear();
        rel.extend(raws.iter().map(|r| counter.line_at(hay, r.m.start)));
    }
    let known = rel;
    let mut at = b;
    let mapped = raws
        .chunks(UNIT)
        .zip(known.chunks(UNIT))
        .enumerate()
        .map(|(i, (part, lines))| {
            let line = if i == 0 {
                first
            } else {
                at = part[0].m.start.max(at);
                lines[0]
            };
            map(Chunk {
                hay,
                base,
                start: at,
                line,
                raws: part,
                known: lines,
            })
        })
        .collect();
    (mapped, raws)
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
/// bytes before it, into `raws` (empty; its room is reused); with
/// `count_lines`, with the lines of its matches counted from 0 at `b`, and
/// the chunk's newlines.
fn scan_chunk_into<'h>(
    ex: &Extractor,
    hay: &'h [u8],
    b: usize,
    e: usize,
    mut raws: Vec<RawMatch<'h>>,
    count_lines: bool,
) -> ChunkOut<'h> {
    let spec_floor = b.saturating_sub(MAX_LOOK_BEHIND);
    // The lines of the matches, from 0 at `b`, counted as they come, while
    // the bytes before each are still in this core's cache: each byte is
    // counted once.
    let mut lines = count_lines.then(|| (LineCounter { pos: b, line: 0 }, Vec::new()));
    let (floor, _) = ex.scan_raw(
        hay,
        b,
        e,
        spec_floor,
        |_, _| true,
        |r| {
            if let Some((counter, rel)) = &mut lines {
                rel.push(counter.line_at(hay, r.m.start));
            }
            raws.push(r);
        },
    );
    ChunkOut {
        raws,
        floor,
        lines: lines.map(|(mut counter, rel)| {
            let total = counter.line_at(hay, e);
            (rel, total)
        }),
    }
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
