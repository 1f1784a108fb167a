//! The chunk pipeline: chunks scanned and mapped on the pool, stitched and
//! handed on in order on the calling thread.

use super::segment::cuts_from;
use super::*;
use rayon::ScopeFifo;
use std::cell::Cell;
use std::sync::mpsc::Receiver;

struct ChunkOut<'h> {
    raws: Vec<RawMatch<'h>>,
    floor: usize,
    /// When lines are counted: the lines of the matches, counted from 0 at
    /// the chunk's start, and the newlines of the whole chunk.
    lines: Option<(Vec<u64>, u64)>,
}

/// The text a [`pipeline`] or [`map_range`] scans, and how: what stays the
/// same for the whole run.
#[derive(Clone, Copy)]
pub(super) struct Scan<'a, 'h> {
    pub(super) ex: &'a Extractor,
    /// A whole buffer, or a stream's block.
    pub(super) hay: &'h [u8],
    /// The offset of `hay[0]` in the whole input (0 for a whole buffer).
    pub(super) base: u64,
    /// The size of a chunk (a quarter of it on text dense in URLs).
    pub(super) chunk_size: usize,
}

/// The candidates in `hay[start..end]` of a [`Scan`], scanned from `floor`
/// (see [`Extractor::scan`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Stretch {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) floor: usize,
}

/// Where a run ended: the floor after it, and whether it ran to its end
/// (false: it was asked to stop).
#[derive(Clone, Copy, Debug)]
pub(super) struct Reached {
    pub(super) floor: usize,
    pub(super) go: bool,
}

/// What one run over a text leaves to the next over the same text.
#[derive(Debug)]
pub(super) struct Reuse<'h> {
    /// Emptied match vectors, reused: a chunk's matches are not written to
    /// fresh memory.
    pub(super) spare: Vec<Vec<RawMatch<'h>>>,
    /// Whether the last chunk was so dense in URLs that smaller chunks are
    /// cut.
    pub(super) dense: bool,
}

impl Reuse<'_> {
    /// No vectors yet, and `dense` as the run before left it (a run starts
    /// dense: see [`pipeline`]).
    pub(super) fn new(dense: bool) -> Self {
        Reuse {
            spare: Vec::new(),
            dense,
        }
    }
}

/// The work on the matches of a mapped run: `map` turns a chunk's matches
/// into a `T` on the pool, and `each` takes the results in input order, on
/// the calling thread; it returns false to stop.
pub(super) struct Work<'w, M, E> {
    pub(super) map: &'w M,
    pub(super) each: &'w mut E,
}

/// What a [`pipeline`] does with its chunks, from where they come to where
/// their matches go.
pub(super) struct Stages<'m, P, M, H, E> {
    /// `produce(dense)`: the next batch of chunks (cut smaller when
    /// `dense`), or `None` at the end.
    pub(super) produce: P,
    /// Maps the units of a chunk's matches, on the pool.
    pub(super) map: &'m M,
    /// How many units of a chunk the task that scanned it maps.
    pub(super) spec: usize,
    /// `hand_on(hay, job, raws, mapped)`: takes a chunk's stitched matches
    /// (it may take them out of `raws`) on this thread, in order; false to
    /// stop. `mapped` tells whether the units mapped are those of the
    /// stitched matches.
    pub(super) hand_on: H,
    /// `ends(segment)`: called after the last chunk of a segment (one that
    /// [`Job::ends`]); false to stop.
    pub(super) ends: E,
}

/// The work of a [`pipeline`] that maps no units in its tasks.
pub(super) fn no_map(_: Chunk<'_, '_>) {}

/// A [`pipeline`]'s `hand_on` that hands every stitched match to `sink`.
pub(super) fn drain_to<'h>(
    mut sink: impl FnMut(Match<'h>),
) -> impl FnMut(&'h [u8], &Job, &mut Vec<RawMatch<'h>>, Mapped<()>) -> bool {
    move |_, _, raws, _| {
        raws.drain(..).for_each(|r| sink(r.m));
        true
    }
}

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

/// A [`pipeline`]'s `hand_on` for `work`'s results: a chunk's units
/// mapped in its task go to `each` when it kept them, and its other units
/// are mapped ([`map_rest`]) and follow.
pub(super) fn hand_on<'a, 'h, T: Send, M, E>(
    mut work: Work<'a, M, E>,
    base: u64,
) -> impl FnMut(&'h [u8], &Job, &mut Vec<RawMatch<'h>>, Mapped<T>) -> bool + 'a
where
    M: Fn(Chunk<'_, 'h>) -> T + Sync,
    E: FnMut(T) -> bool,
{
    move |h, job, raws, (mapped, kept)| {
        let at = UnitsFrom {
            b: job.b,
            line: job.line,
            raws,
        };
        if kept {
            let done = mapped.len();
            mapped.into_iter().all(&mut *work.each) && map_rest(h, base, at, done, &mut work)
        } else {
            map_rest(h, base, at, 0, &mut work)
        }
    }
}

/// The matches of `stretch` (as [`scan_range`]), in chunks mapped in
/// parallel; returns the floor after it, and false if `each` asked to
/// stop. `reuse` is kept from one call to the next.
pub(super) fn map_range<'h, T: Send, M, E>(
    scan: Scan<'_, 'h>,
    stretch: Stretch,
    mut lines: Option<&mut LineCounter>,
    work: Work<'_, M, E>,
    reuse: &mut Reuse<'h>,
) -> Reached
where
    M: Fn(Chunk<'_, 'h>) -> T + Sync,
    E: FnMut(T) -> bool,
{
    let Stretch { start, floor, .. } = stretch;
    let end = stretch.end.min(scan.hay.len());
    if start >= end {
        return Reached { floor, go: true };
    }
    if end - start <= scan.chunk_size || rayon::current_num_threads() <= 1 {
        return map_here(scan, Stretch { start, end, floor }, lines, work);
    }
    let mut range = Some((start, end));
    let mut line = lines.as_deref_mut().map(|l| l.line_at(scan.hay, start));
    let stages = Stages {
        produce: |dense| {
            let range = range.take()?;
            let c = scan.ex.classifier();
            Some(chunk_jobs(&c, scan.hay, range, scan.chunk_size, dense))
        },
        map: work.map,
        spec: SPEC_UNITS,
        hand_on: hand_on(work, scan.base),
        ends: |_: &Segment| true,
    };
    let reached = pipeline(scan, floor, line.as_mut(), stages, reuse);
    if let (Some(l), Some(line)) = (lines, line) {
        *l = LineCounter { pos: end, line };
    }
    reached
}

/// [`map_range`] with one chunk, or one thread: one scan on this thread
/// (see [`scan_range`]), its matches mapped [`UNIT`] at a time as they
/// come (so the matches held are few). Lines are counted once, as the
/// matches come: each match's line is kept beside it.
fn map_here<'h, T, M, E>(
    scan: Scan<'_, 'h>,
    stretch: Stretch,
    mut lines: Option<&mut LineCounter>,
    work: Work<'_, M, E>,
) -> Reached
where
    M: Fn(Chunk<'_, 'h>) -> T,
    E: FnMut(T) -> bool,
{
    let Scan { ex, hay, base, .. } = scan;
    let Stretch { start, end, floor } = stretch;
    let Work { map, each } = work;
    let go = Cell::new(true);
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
    if let Some(l) = lines {
        l.line_at(hay, end);
    }
    let go = go.get();
    Reached { floor, go }
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

/// The chunks `stages.produce(dense)` gives, batch after batch until it
/// gives `None`, scanned in parallel from `floor` and stitched in order.
/// In each chunk's task, its first `stages.spec` units are mapped with
/// `stages.map` (see [`scan_segments_map`]); `stages.hand_on` then takes
/// the stitched matches on this thread, in order, and `stages.ends` is
/// called after the last chunk of each segment (see [`Stages`]).
///
/// With `lines` (the line at the first chunk's start; the chunks follow
/// one another), lines are counted: each chunk's task counts its own
/// newlines once, the lines of its matches among them, and its units are
/// mapped with their lines in a task of their own, spawned as soon as the
/// chunks before it are stitched (which gives its first line). `lines`
/// ends as the line at the end of the last chunk handed on.
///
/// Returns the floor after the last chunk, and false if the run was asked
/// to stop. `reuse` is kept from one call to the next.
///
/// The chunks are a pipeline, with no barrier: up to two per thread (three
/// from a pool thread) are in flight on the pool while this thread takes
/// their results in order, stitches each to the one before and hands it
/// on. Each chunk's matches are held until it is handed on.
///
/// A chunk's first units are mapped in the task that scanned it, while its
/// text and matches are in that core's cache, as if its start needed no
/// stitching (see [`stitch_raws`]); in the rare case it did, the stitched
/// matches are mapped again. With lines, a chunk's first line is known
/// only once those before it are stitched, so its units are mapped in a
/// second task, and the chunks stitched wait in order for theirs to end.
///
/// On text so dense in URLs that a chunk of `chunk_size` would hold more
/// matches than a reused vector has room for ([`SPARE_MAX`]), the chunks
/// are a quarter of that size: such a chunk's matches take several times
/// its bytes. A run starts so, until a chunk shows the text is not dense.
pub(super) fn pipeline<'h, T: Send, P, M, H, E>(
    scan: Scan<'_, 'h>,
    floor: usize,
    lines: Option<&mut u64>,
    mut stages: Stages<'_, P, M, H, E>,
    reuse: &mut Reuse<'h>,
) -> Reached
where
    P: FnMut(bool) -> Option<VecDeque<Job>>,
    M: Fn(Chunk<'_, 'h>) -> T + Sync,
    H: FnMut(&'h [u8], &Job, &mut Vec<RawMatch<'h>>, Mapped<T>) -> bool,
    E: FnMut(&Segment) -> bool,
{
    let mut flow = Flow::new(floor, window());
    let go = rayon::in_place_scope_fifo(|s| {
        let tasks = Tasks {
            scan,
            map: stages.map,
            spec: stages.spec,
            counting: lines.is_some(),
        };
        flow.drive(s, tasks, lines, &mut stages, reuse)
    });
    Reached {
        floor: flow.floor,
        go,
    }
}

/// How many chunks a [`pipeline`] has in flight and stitched, at most.
fn window() -> usize {
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
    per_thread * threads
}

/// What every task of a [`pipeline`] needs.
struct Tasks<'s, 'h, M> {
    scan: Scan<'s, 'h>,
    map: &'s M,
    /// How many units of a chunk the task that scanned it maps (none when
    /// lines are counted).
    spec: usize,
    /// Whether lines are counted.
    counting: bool,
}

impl<M> Clone for Tasks<'_, '_, M> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<M> Copy for Tasks<'_, '_, M> {}

/// A chunk's task's result: the chunk scanned, and its first units mapped.
type Scanned<'h, T> = (ChunkOut<'h>, Vec<T>);

impl<'s, 'h: 's, M> Tasks<'s, 'h, M> {
    /// Spawn the scan of `job`'s chunk into `buf` (emptied, its room
    /// reused), and the mapping of its first units.
    fn spawn_scan<T: Send + 's>(
        self,
        s: &ScopeFifo<'s>,
        job: &Job,
        buf: Vec<RawMatch<'h>>,
    ) -> Receiver<Scanned<'h, T>>
    where
        M: Fn(Chunk<'_, 'h>) -> T + Sync,
    {
        let Tasks {
            scan, map, spec, ..
        } = self;
        let (h, cb, ce, line) = (&scan.hay[..job.limit], job.b, job.e, job.line);
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        s.spawn_fifo(move |_| {
            let out = scan_chunk_into(scan.ex, h, cb, ce, buf, self.counting);
            // With lines, a chunk's units are mapped once its first
            // line is known (see `map_counted`).
            let mapped: Vec<T> = if self.counting || spec == 0 {
                Vec::new()
            } else {
                // Each unit its own task, so an idle thread can
                // take one from a chunk denser than the others.
                let units = units_of(h, cb, line, &out.raws);
                units[..units.len().min(spec)]
                    .par_iter()
                    .map(|&u| map_unit(h, scan.base, u, map))
                    .collect()
            };
            let _ = tx.send((out, mapped));
        });
        rx
    }

    /// Spawn the mapping of a stitched chunk's units, once its first line is
    /// known; the task gives the matches back.
    fn spawn_map_counted<T: Send + 's>(
        self,
        s: &ScopeFifo<'s>,
        hay: &'h [u8],
        counted: Counted<'h>,
    ) -> Receiver<(Vec<T>, Vec<RawMatch<'h>>)>
    where
        M: Fn(Chunk<'_, 'h>) -> T + Sync,
    {
        let (base, map) = (self.scan.base, self.map);
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        s.spawn_fifo(move |_| {
            let _ = tx.send(map_counted(hay, base, counted, map));
        });
        rx
    }
}

/// The chunks of a [`pipeline`] on their way from `produce` to `hand_on`.
struct Flow<'h, T> {
    /// Produced, not yet spawned.
    queued: VecDeque<Job>,
    /// Being scanned, in order.
    in_flight: VecDeque<(Job, Receiver<Scanned<'h, T>>)>,
    /// Stitched, in order, waiting to be handed on.
    stitched: VecDeque<Stitched<'h, T>>,
    /// Whether `produce` may give more.
    more: bool,
    /// Chunks scanning, and stitched ones waiting for their turn (with
    /// lines, being mapped), at most.
    window: usize,
    /// The floor after the last chunk stitched.
    floor: usize,
}

impl<'h, T: Send> Flow<'h, T> {
    fn new(floor: usize, window: usize) -> Self {
        Flow {
            queued: VecDeque::new(),
            in_flight: VecDeque::with_capacity(window),
            stitched: VecDeque::with_capacity(window),
            more: true,
            window,
            floor,
        }
    }

    /// Run the chunks through: keep the window full, and stitch and hand on
    /// the results in order as they come. False if the run was asked to
    /// stop, or a task died (its panic ends the scope).
    fn drive<'s, P, M, H, E>(
        &mut self,
        s: &ScopeFifo<'s>,
        tasks: Tasks<'s, 'h, M>,
        mut lines: Option<&mut u64>,
        stages: &mut Stages<'_, P, M, H, E>,
        reuse: &mut Reuse<'h>,
    ) -> bool
    where
        'h: 's,
        T: 's,
        P: FnMut(bool) -> Option<VecDeque<Job>>,
        M: Fn(Chunk<'_, 'h>) -> T + Sync,
        H: FnMut(&'h [u8], &Job, &mut Vec<RawMatch<'h>>, Mapped<T>) -> bool,
        E: FnMut(&Segment) -> bool,
    {
        loop {
            while let Some(job) = self.next_job(&mut stages.produce, reuse.dense) {
                // The match vectors of the chunks before, emptied, are
                // reused: a chunk's matches are not written to fresh memory.
                let buf = reuse.spare.pop().unwrap_or_default();
                let rx = tasks.spawn_scan(s, &job, buf);
                self.in_flight.push_back((job, rx));
            }
            // The next chunk in order, if its units are mapped.
            match self.stitched.front_mut().map(|next| next.mapped(false)) {
                Some(Some(true)) => {
                    let next = self.stitched.pop_front().unwrap_or_else(|| unreachable!());
                    let hay = tasks.scan.hay;
                    if !hand_on_stitched(hay, next, stages, &mut reuse.spare, self.window) {
                        return false;
                    }
                    continue;
                }
                // The task died: its panic ends the scope.
                Some(None) => return false,
                Some(Some(false)) | None => {}
            }
            if let Some((job, rx)) = self.in_flight.pop_front() {
                let Some(scanned) = wait(&rx) else {
                    return false;
                };
                let lines = lines.as_deref_mut();
                let next = self.stitch(s, tasks, job, scanned, lines, &mut reuse.dense);
                self.stitched.push_back(next);
                continue;
            }
            let Some(next) = self.stitched.front_mut() else {
                return true;
            };
            if next.mapped(true).is_none() {
                return false;
            }
        }
    }

    /// The next chunk to spawn, if the window has room for it.
    fn next_job(
        &mut self,
        produce: &mut impl FnMut(bool) -> Option<VecDeque<Job>>,
        dense: bool,
    ) -> Option<Job> {
        if self.in_flight.len() + self.stitched.len() >= self.window {
            return None;
        }
        while self.queued.is_empty() && self.more {
            match produce(dense) {
                Some(jobs) => self.queued = jobs,
                None => self.more = false,
            }
        }
        self.queued.pop_front()
    }

    /// Stitch the next chunk in order (`scanned`) to those before it, and
    /// tell from its matches whether the text is `dense`; with `lines`,
    /// spawn the mapping of its units, now that its first line is known.
    fn stitch<'s, M>(
        &mut self,
        s: &ScopeFifo<'s>,
        tasks: Tasks<'s, 'h, M>,
        mut job: Job,
        (mut out, mapped): Scanned<'h, T>,
        lines: Option<&mut u64>,
        dense: &mut bool,
    ) -> Stitched<'h, T>
    where
        'h: 's,
        T: 's,
        M: Fn(Chunk<'_, 'h>) -> T + Sync,
    {
        let counted = out.lines.take();
        let (h, b, e) = (&tasks.scan.hay[..job.limit], job.b, job.e);
        let (f, mut raws, kept) = stitch_raws(tasks.scan.ex, h, b, e, self.floor, out);
        self.floor = f;
        *dense = raws.len().saturating_mul(tasks.scan.chunk_size) > SPARE_MAX.saturating_mul(e - b);
        if let Some(seg) = job.ends.filter(|seg| seg.forced) {
            self.floor = self.floor.max(seg.end);
        }
        let mapping = match (lines, counted) {
            (Some(line), Some((rel, total))) => {
                let first = *line;
                *line += total;
                job.line = Some(first);
                let raws = std::mem::take(&mut raws);
                let counted = Counted {
                    b,
                    first,
                    raws,
                    rel,
                    kept,
                };
                Mapping::Pending(tasks.spawn_map_counted(s, h, counted))
            }
            _ => Mapping::Done((mapped, kept)),
        };
        Stitched { job, raws, mapping }
    }
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
/// reuse in `spare`, and end its segment if it is the last; false to stop.
fn hand_on_stitched<'h, T, P, M, H, E>(
    hay: &'h [u8],
    mut next: Stitched<'h, T>,
    stages: &mut Stages<'_, P, M, H, E>,
    spare: &mut Vec<Vec<RawMatch<'h>>>,
    window: usize,
) -> bool
where
    H: FnMut(&'h [u8], &Job, &mut Vec<RawMatch<'h>>, Mapped<T>) -> bool,
    E: FnMut(&Segment) -> bool,
{
    let Mapping::Done(mapped) = next.mapping else {
        unreachable!("handed on before its units are mapped")
    };
    let h = &hay[..next.job.limit];
    if !(stages.hand_on)(h, &next.job, &mut next.raws, mapped) {
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
        Some(seg) => (stages.ends)(&seg),
        None => true,
    }
}

/// A stitched chunk whose units are mapped once its first line is known.
struct Counted<'h> {
    /// Where the chunk starts.
    b: usize,
    /// The line at `b`.
    first: u64,
    /// Its stitched matches.
    raws: Vec<RawMatch<'h>>,
    /// The lines of the matches its task scanned, from 0 at `b`.
    rel: Vec<u64>,
    /// Whether the stitched matches are those its task scanned.
    kept: bool,
}

/// Map the units of a stitched chunk of `hay` (whose first byte is at
/// `base` in the input): its matches' lines are `rel` moved to its first
/// line when it `kept` its task's matches, else counted here. Gives the
/// mapped units and the matches back.
fn map_counted<'h, T>(
    hay: &'h [u8],
    base: u64,
    counted: Counted<'h>,
    map: &impl Fn(Chunk<'_, 'h>) -> T,
) -> (Vec<T>, Vec<RawMatch<'h>>) {
    let Counted {
        b,
        first,
        raws,
        mut rel,
        kept,
    } = counted;
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
#[derive(Clone, Copy)]
struct Unit<'a, 'h> {
    at: usize,
    line: u64,
    raws: &'a [RawMatch<'h>],
}

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
            Unit {
                at,
                line,
                raws: part,
            }
        })
        .collect()
}

/// `map` over one unit.
fn map_unit<'h, T>(
    hay: &'h [u8],
    base: u64,
    unit: Unit<'_, 'h>,
    map: &impl Fn(Chunk<'_, 'h>) -> T,
) -> T {
    map(Chunk {
        hay,
        base,
        start: unit.at,
        line: unit.line,
        raws: unit.raws,
        known: &[],
    })
}

/// The matches of a stitched chunk, to cut into units ([`units_of`]): the
/// chunk starts at `b`, on line `line` when lines are counted.
struct UnitsFrom<'a, 'h> {
    b: usize,
    line: Option<u64>,
    raws: &'a [RawMatch<'h>],
}

/// `work.map` over the units of one stitched chunk from unit `done` on, in
/// parallel waves of two per thread, handed to `work.each` in order; false
/// if `each` asked to stop.
fn map_rest<'h, T: Send, M, E>(
    hay: &'h [u8],
    base: u64,
    chunk: UnitsFrom<'_, 'h>,
    done: usize,
    work: &mut Work<'_, M, E>,
) -> bool
where
    M: Fn(Chunk<'_, 'h>) -> T + Sync,
    E: FnMut(T) -> bool,
{
    if chunk.raws.len() <= done * UNIT {
        return true; // every unit is mapped
    }
    let threads = rayon::current_num_threads().max(1);
    let units = units_of(hay, chunk.b, chunk.line, chunk.raws);
    for wave in units[done..].chunks(2 * threads) {
        let results: Vec<T> = wave
            .par_iter()
            .map(|&u| map_unit(hay, base, u, work.map))
            .collect();
        if !results.into_iter().all(&mut *work.each) {
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
