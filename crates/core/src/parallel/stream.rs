//! Streams: read a block at a time, each block scanned as a buffer, with
//! the look-behind and the cut state carried from one to the next.

use super::segment::{SegEnd, Segmenter};
use super::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Read from `r` onto the end of `buf` until it holds at least `want`
/// bytes (reads are of at least 4 KiB) or the stream ends; true at the end
/// of the stream. On an error, `buf` holds what was read before it. This is
/// the one stream reader of the crates: every stream is read through it, a
/// large block at a time. A pause of the source ([`Filled::Paused`]) is
/// waited out.
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
    fill_unless(r, buf, want, &AtomicBool::new(false), None).map(|f| f == Filled::End)
}

/// How a [`fill_or_pause`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filled {
    /// The buffer holds what was wanted.
    Full,
    /// The source paused with less: it is still open, and has nothing more
    /// for now.
    Paused,
    /// The stream ended.
    End,
}

/// [`fill`], ending early when the source pauses once `buf` holds more
/// than `after` bytes (an earlier pause is waited out: after a pause, pass
/// the length then, so that the next one ends a read only once something
/// new came). A reader says that its
/// source paused by failing a read with [`io::ErrorKind::WouldBlock`] once it
/// has waited a while for more (standard input read through a pipe from
/// `tail -f`, say): what was read before the pause is then worth scanning
/// now, and the next read waits again. Such a reader must wait before it
/// says so; one that does not (a raw non-blocking descriptor) is read again
/// after a millisecond.
///
/// ```
/// use std::io::{self, Read};
/// use urlsift_core::parallel::{Filled, fill_or_pause};
/// /// Gives its bytes, then pauses once, then ends.
/// struct Pausing(Vec<u8>, bool);
/// impl Read for Pausing {
///     fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
///         if !self.0.is_empty() {
///             let n = self.0.len().min(buf.len());
///             buf[..n].copy_from_slice(&self.0[..n]);
///             self.0.drain(..n);
///             return Ok(n);
///         }
///         if std::mem::take(&mut self.1) {
///             return Err(io::ErrorKind::WouldBlock.into());
///         }
///         Ok(0)
///     }
/// }
/// let mut r = Pausing(b"see http://a.example/\n".to_vec(), true);
/// let mut buf = Vec::new();
/// assert_eq!(fill_or_pause(&mut r, &mut buf, 1 << 20, 0).unwrap(), Filled::Paused);
/// assert_eq!(buf, b"see http://a.example/\n");
/// let after = buf.len();
/// assert_eq!(fill_or_pause(&mut r, &mut buf, 1 << 20, after).unwrap(), Filled::End);
/// ```
pub fn fill_or_pause(
    r: &mut impl Read,
    buf: &mut Vec<u8>,
    want: usize,
    after: usize,
) -> io::Result<Filled> {
    fill_unless(r, buf, want, &AtomicBool::new(false), Some(after))
}

/// How much room [`fill`] zeroes at a time.
const ROOM_STEP: usize = 1 << 20;

/// A read buffer: the bytes read, then room that is zeroed once and kept
/// when the bytes are let go, so a buffer read into block after block is
/// not zeroed again each time (a pass over memory as costly as the read).
#[derive(Default)]
struct Room {
    /// The bytes read (`..len`), then zeroed room.
    bytes: Vec<u8>,
    len: usize,
}

impl Room {
    /// The bytes of `v`, with no room past them.
    fn from_vec(v: Vec<u8>) -> Room {
        let len = v.len();
        Room { bytes: v, len }
    }

    /// The bytes read, as a vector.
    fn into_vec(mut self) -> Vec<u8> {
        self.bytes.truncate(self.len);
        self.bytes
    }

    /// Let go of every byte, keeping the room.
    fn clear(&mut self) {
        self.len = 0;
    }

    /// Let go of the first `n` bytes: those after move to the front.
    fn drop_front(&mut self, n: usize) {
        let n = n.min(self.len);
        self.bytes.copy_within(n..self.len, 0);
        self.len -= n;
    }

    /// Add `more` after the bytes.
    fn extend_from_slice(&mut self, more: &[u8]) {
        let end = self.len + more.len();
        if self.bytes.len() < end {
            self.bytes.resize(end, 0);
        }
        self.bytes[self.len..end].copy_from_slice(more);
        self.len = end;
    }

    /// The room after the bytes, made at least `min` and at most `max`
    /// bytes long when there is none.
    fn spare(&mut self, min: usize, max: usize) -> &mut [u8] {
        if self.len == self.bytes.len() {
            self.bytes.resize(self.len + max.max(min), 0);
        }
        &mut self.bytes[self.len..]
    }
}

impl std::ops::Deref for Room {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// [`fill`], ending early (not at the end of the stream) once `quit` is
/// set: it is looked at before each read. With `pause_after`, a pause of
/// the source ends it too, once `buf` holds more than that many bytes;
/// other pauses are waited out.
fn fill_unless(
    r: &mut impl Read,
    buf: &mut Vec<u8>,
    want: usize,
    quit: &AtomicBool,
    pause_after: Option<usize>,
) -> io::Result<Filled> {
    let mut room = Room::from_vec(std::mem::take(buf));
    let res = fill_room(r, &mut room, want, quit, pause_after);
    *buf = room.into_vec();
    res
}

/// [`fill_unless`] into a [`Room`]: what it has zeroed is read into first.
fn fill_room(
    r: &mut impl Read,
    buf: &mut Room,
    want: usize,
    quit: &AtomicBool,
    pause_after: Option<usize>,
) -> io::Result<Filled> {
    // Room is zeroed a step at a time, and each read fills the next of
    // it: a pipe or a decoder gives a little at a time, and a source that
    // pauses often has little room zeroed for it each time.
    loop {
        let at = buf.len;
        if at >= want || quit.load(Ordering::Relaxed) {
            return Ok(Filled::Full);
        }
        let spare = buf.spare(4096, want.min(at + ROOM_STEP) - at);
        let limit = spare.len().min(want.saturating_sub(at).max(4096));
        match r.read(&mut spare[..limit]) {
            Ok(0) => return Ok(Filled::End),
            Ok(n) => buf.len += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if pause_after.is_some_and(|p| at > p) {
                    return Ok(Filled::Paused);
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            Err(e) => return Err(e),
        }
    }
}

/// Run `work` while the next block of `r` is read onto `next` ([`fill`]
/// to `want` bytes) on a thread of its own, so reading and work overlap.
/// `work` gives its result and whether the run goes on; should it stop or
/// die, the reader stops at its next read rather than read the block to
/// its end. Returns `work`'s result and the read's, or `None` when no
/// thread could be had, or the read is too small to pay for one (under
/// [`READ_AHEAD_MIN`] bytes): then nothing was read, and the caller reads
/// the block itself.
///
/// ```
/// let mut r = &b"next block"[..];
/// let mut next = Vec::new();
/// let want = urlsift_core::parallel::READ_AHEAD_MIN;
/// let (sum, read) = urlsift_core::parallel::fill_while(&mut r, &mut next, want, || (1 + 1, true));
/// assert_eq!(sum, 2);
/// match read {
///     Some(end) => assert!(end.unwrap() && next == b"next block"),
///     None => assert!(next.is_empty()),
/// }
/// // Too little to read for a thread to pay: the caller reads it.
/// let (_, read) = urlsift_core::parallel::fill_while(&mut r, &mut next, 64, || ((), true));
/// assert!(read.is_none());
/// ```
pub fn fill_while<R: Read + Send, T>(
    r: &mut R,
    next: &mut Vec<u8>,
    want: usize,
    work: impl FnOnce() -> (T, bool),
) -> (T, Option<io::Result<bool>>) {
    let mut room = Room::from_vec(std::mem::take(next));
    let (res, read) = fill_ahead(r, &mut room, (want, None), work);
    *next = room.into_vec();
    (res, read.map(|r| r.map(|f| f == Filled::End)))
}

/// [`fill_while`], its read ending early at a pause of the source, as
/// [`fill_or_pause`] with `after` 0: at any pause once `next` holds a byte,
/// so also when `next` starts with bytes carried over and nothing new came.
/// The caller then scans what is settled and hands on what it found,
/// without waiting for more.
///
/// ```
/// use std::io::{self, Read};
/// use urlsift_core::parallel::{Filled, READ_AHEAD_MIN, fill_while_or_pause};
/// /// Pauses (after a wait) whenever it has nothing for now.
/// struct Quiet;
/// impl Read for Quiet {
///     fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
///         Err(io::ErrorKind::WouldBlock.into())
///     }
/// }
/// // A message carried over from the block before: the pause ends the read.
/// let mut next = b"From a@b\n".to_vec();
/// let (n, read) = fill_while_or_pause(&mut Quiet, &mut next, READ_AHEAD_MIN, || (2, true));
/// assert_eq!(n, 2);
/// // `None`: no thread could be had, and the caller reads it itself.
/// if let Some(read) = read {
///     assert_eq!(read.unwrap(), Filled::Paused);
///     assert_eq!(next, b"From a@b\n");
/// }
/// ```
pub fn fill_while_or_pause<R: Read + Send, T>(
    r: &mut R,
    next: &mut Vec<u8>,
    want: usize,
    work: impl FnOnce() -> (T, bool),
) -> (T, Option<io::Result<Filled>>) {
    let mut room = Room::from_vec(std::mem::take(next));
    let res = fill_ahead(r, &mut room, (want, Some(0)), work);
    *next = room.into_vec();
    res
}

/// [`fill_while`], its read ending early at a pause of the source once
/// `next` holds more than `pause_after` bytes (see [`fill_unless`]).
fn fill_ahead<R: Read + Send, T>(
    r: &mut R,
    next: &mut Room,
    (want, pause_after): (usize, Option<usize>),
    work: impl FnOnce() -> (T, bool),
) -> (T, Option<io::Result<Filled>>) {
    if want < READ_AHEAD_MIN {
        return (work().0, None);
    }
    let quit = Arc::new(AtomicBool::new(false));
    std::thread::scope(|s| {
        let reader = std::thread::Builder::new()
            .name("urlsift-read".into())
            .spawn_scoped(s, || {
                READ_QUIT.with(|q| *q.borrow_mut() = Some(Arc::clone(&quit)));
                fill_room(r, next, want, &quit, pause_after)
            });
        let _quit = SetOnDrop(&quit);
        let (res, go) = work();
        if !go {
            quit.store(true, Ordering::Relaxed);
        }
        let read = match reader {
            Ok(h) => Some(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))),
            Err(_) => None,
        };
        (res, read)
    })
}

thread_local! {
    /// On a thread that [`fill_while`] reads on: set once its work ended.
    static READ_QUIT: std::cell::RefCell<Option<Arc<AtomicBool>>> = const { std::cell::RefCell::new(None) };
}

/// Whether the read under way on this thread may stop now: it is a
/// [`fill_while`] read ahead whose work has ended (the scan stopped at
/// `-q`, `-m` or an error, or died), so the block is not wanted. A reader
/// that can wait long for its input (a pipe, a terminal) looks at this
/// while it waits, and gives up with an error, so that the scan ends
/// without waiting for input it will not read. Elsewhere, false.
///
/// ```
/// assert!(!urlsift_core::parallel::read_abandoned());
/// ```
pub fn read_abandoned() -> bool {
    READ_QUIT.with(|q| {
        q.borrow()
            .as_ref()
            .is_some_and(|q| q.load(Ordering::Relaxed))
    })
}

/// The least [`fill_while`] reads on a thread of its own: a smaller read
/// is quicker than starting a thread.
pub const READ_AHEAD_MIN: usize = 64 << 10;

/// How much a stream is read at a time.
pub const DEFAULT_BLOCK_SIZE: usize = 16 << 20;

/// Scan a stream in blocks of about `block_size` bytes, carrying the tail a
/// URL needs from one block to the next, so memory stays bounded (about
/// two blocks: the next block is read, on a thread of its own, while this
/// one is scanned; plus [`MAX_WRAPPED`], and at most `2 * MAX_RUN` more for
/// text with no cut point at all) whatever the input size. Each match comes with its
/// 1-based line; its offsets are absolute in the stream. The result is
/// identical to scanning the whole stream at once. Returns the stream's size.
///
/// When the source pauses ([`fill_or_pause`]: `tail -f`, a slow pipe), what
/// came before the pause is scanned without waiting for a whole block, up
/// to the last stop byte whose URLs no later byte can change
/// ([`Extractor::undecided_from`]); the matches are the same as ever.
pub fn scan_reader<R: Read + Send>(
    ex: &Extractor,
    r: R,
    block_size: usize,
    chunk_size: usize,
    mut sink: impl FnMut(&Match<'_>, u64),
) -> io::Result<u64> {
    scan_reader_while(
        ex,
        r,
        block_size,
        chunk_size,
        |m, line| {
            sink(m, line);
            true
        },
        || true,
    )
}

/// [`scan_reader`] until `sink` returns false: no match after that one is
/// handed on, and the stream is read no further than the block being read
/// ahead (a read waiting on a quiet pipe gives up, see [`read_abandoned`]).
/// `paused` is called when the source paused and every match before the
/// pause was handed on (time to flush what was written); false to stop.
/// Returns the bytes read.
///
/// ```
/// use urlsift_core::extract::Extractor;
/// let text = b"http://a.example/ http://b.example/ http://c.example/";
/// let mut seen = Vec::new();
/// urlsift_core::parallel::scan_reader_while(
///     &Extractor::new(),
///     &text[..],
///     1 << 20,
///     1 << 16,
///     |m, _| {
///         seen.push(m.url.to_vec());
///         seen.len() < 2
///     },
///     || true,
/// )
/// .unwrap();
/// assert_eq!(seen, [b"http://a.example/".to_vec(), b"http://b.example/".to_vec()]);
/// ```
pub fn scan_reader_while<R: Read + Send>(
    ex: &Extractor,
    r: R,
    block_size: usize,
    chunk_size: usize,
    mut sink: impl FnMut(&Match<'_>, u64) -> bool,
    paused: impl FnMut() -> bool,
) -> io::Result<u64> {
    let mut go = true;
    read_blocks(
        ex,
        r,
        block_size,
        true,
        |hay, stretch, base, lines| {
            let lines = lines.unwrap_or_else(|| unreachable!("lines are counted"));
            let mut each = |m: &Match<'_>, line| {
                if go {
                    go = sink(m, line);
                }
            };
            let floor = scan_block(ex, hay, stretch, chunk_size, base, lines, &mut each);
            Reached { floor, go }
        },
        paused,
    )
}

/// [`scan_reader_while`], with each match's 1-based byte column in its line
/// ([`ColumnCounter`](super::ColumnCounter)'s, counted across blocks):
/// `sink(match, line, column)`.
///
/// ```
/// use urlsift_core::extract::Extractor;
/// let text = b"x http://a.example/\n  http://b.example/ http://c.example/";
/// let mut seen = Vec::new();
/// urlsift_core::parallel::scan_reader_columns(
///     &Extractor::new(),
///     &text[..],
///     (1 << 20, 1 << 16),
///     |m, line, column| {
///         seen.push((line, column, m.start));
///         true
///     },
///     || true,
/// )
/// .unwrap();
/// assert_eq!(seen, [(1, 3, 2), (2, 3, 22), (2, 21, 40)]);
/// ```
pub fn scan_reader_columns<R: Read + Send>(
    ex: &Extractor,
    r: R,
    (block_size, chunk_size): (usize, usize),
    mut sink: impl FnMut(&Match<'_>, u64, u64) -> bool,
    paused: impl FnMut() -> bool,
) -> io::Result<u64> {
    let mut go = true;
    // Absolute offsets: up to where newlines were looked for, and the
    // start of the line there.
    let (mut pos, mut line_start) = (0u64, 0u64);
    read_blocks(
        ex,
        r,
        block_size,
        true,
        |hay, stretch, base, lines| {
            let end = stretch.end;
            let lines = lines.unwrap_or_else(|| unreachable!("lines are counted"));
            // The start of the line of `hay[at]`, looking back to `pos`.
            let mut line_of = |at: usize| {
                let from = pos.saturating_sub(base) as usize;
                if from <= at {
                    if let Some(i) = memchr::memrchr(b'\n', &hay[from..at]) {
                        line_start = base + (from + i + 1) as u64;
                    }
                } else {
                    // Before where it looked (a match that starts in the
                    // look-behind): its own line, within the block.
                    line_start = memchr::memrchr(b'\n', &hay[..at])
                        .map_or(line_start.min(base), |i| base + (i + 1) as u64);
                }
                pos = base + at as u64;
                line_start
            };
            let mut each = |m: &Match<'_>, line| {
                if go {
                    let first = line_of(m.start - base as usize);
                    go = sink(m, line, m.start as u64 - first + 1);
                }
            };
            let floor = scan_block(ex, hay, stretch, chunk_size, base, lines, &mut each);
            if go {
                // Newlines after the last match: the next block's matches
                // look back only to its start.
                line_of(end.min(hay.len()));
            }
            Reached { floor, go }
        },
        paused,
    )
}

/// [`scan_reader`], with the work on each chunk's matches done in parallel
/// as in [`scan_segments_map`]: a [`Chunk`]'s offsets are in its block,
/// whose first byte is at [`Chunk::base`] in the stream. `each` returns
/// false to stop reading; `paused` is called as in [`scan_reader_while`].
///
/// ```
/// use urlsift_core::extract::Extractor;
/// let text = b"http://a.example/ http://b.example/";
/// let mut n = 0;
/// urlsift_core::parallel::scan_reader_map(
///     &Extractor::new(),
///     &text[..],
///     (1 << 20, 1 << 16),
///     false,
///     |c| c.matches().len(),
///     |k| {
///         n += k;
///         true
///     },
///     || true,
/// )
/// .unwrap();
/// assert_eq!(n, 2);
/// ```
pub fn scan_reader_map<R: Read + Send, T: Send>(
    ex: &Extractor,
    r: R,
    (block_size, chunk_size): (usize, usize),
    count_lines: bool,
    map: impl Fn(Chunk<'_, '_>) -> T + Sync,
    mut each: impl FnMut(T) -> bool,
    paused: impl FnMut() -> bool,
) -> io::Result<u64> {
    let mut dense = true;
    read_blocks(
        ex,
        r,
        block_size,
        count_lines,
        |hay, stretch, base, lines| {
            let scan = Scan {
                ex,
                hay,
                base,
                chunk_size,
            };
            let work = Work {
                map: &map,
                each: &mut each,
            };
            let mut reuse = Reuse::new(dense);
            let reached = map_range(scan, stretch, lines, work, &mut reuse);
            dense = reuse.dense;
            reached
        },
        paused,
    )
}

/// The block loop of [`scan_reader`]: `step(hay, stretch, base, lines)`
/// scans a segment of the buffer (whose first byte is at `base` in the
/// stream) and returns the floor after it, and false to stop. While a
/// segment is scanned, the next block is read on a thread of its own, so a
/// slow source (a decoder, a pipe) is read while the pool scans: the
/// stream's time is the larger of the two, not their sum. When the source
/// pauses, the settled part of what was read is scanned at once, and then
/// `paused()` (false to stop).
fn read_blocks<R: Read + Send>(
    ex: &Extractor,
    mut r: R,
    block_size: usize,
    count_lines: bool,
    mut step: impl FnMut(&[u8], Stretch, u64, Option<&mut LineCounter>) -> Reached,
    mut paused: impl FnMut() -> bool,
) -> io::Result<u64> {
    let block_size = block_size.max(1);
    let mut b = Blocks::new(block_size);
    let mut lines = LineCounter::default();
    let c = ex.classifier();
    let mut seg = Segmenter::default();
    let quit = AtomicBool::new(false);
    loop {
        let pause = b.fill(&mut r, &quit);
        let Some((end, hard)) = b.segment_end(ex, &c, &mut seg, block_size, pause) else {
            continue;
        };
        b.need = block_size;
        // Keep the look-behind the next block needs, and anything after `end`.
        // A floor further back than MAX_LOOK_BEHIND changes no decision.
        let keep_from = end.saturating_sub(MAX_LOOK_BEHIND);
        let hay: &[u8] = if hard { &b.buf[..end] } else { &b.buf };
        let counter = count_lines.then_some(&mut lines);
        let stretch = Stretch {
            start: b.start,
            end,
            floor: b.floor,
        };
        let base = b.base;
        let Reached { floor: f, go } = if b.eof || pause {
            // At a pause, the next read waits for the source: it is not
            // read ahead.
            step(hay, stretch, base, counter)
        } else {
            // The next block starts with what this one keeps.
            b.next.clear();
            b.next.extend_from_slice(&b.buf[keep_from..]);
            // As the loop's fill would: a block after the next start.
            let want = (end - keep_from) + block_size + block_size / 8 + MAX_WRAPPED + 1;
            // No thread to be had: the next block is read after this one,
            // by the loop's own fill.
            let (res, read) = fill_ahead(&mut r, &mut b.next, (want, Some(0)), || {
                let res = step(hay, stretch, base, counter);
                (res, res.go)
            });
            b.ahead = read;
            res
        };
        b.floor = if hard { f.max(end) } else { f };
        if !go || (b.eof && end >= b.buf.len()) {
            break;
        }
        if count_lines {
            lines.drop_front(&b.buf, keep_from);
        }
        b.advance(end, keep_from);
        if pause {
            // Wait for more before pausing again.
            b.pause_after = b.buf.len();
            if !paused() {
                break;
            }
        }
    }
    match b.failed {
        Some(e) => Err(e),
        None => Ok(b.base + b.buf.len() as u64),
    }
}

/// The buffer of [`read_blocks`] and where it stands in the stream.
struct Blocks {
    buf: Room,
    /// The next block, read while the one before is scanned ...
    next: Room,
    /// ... and how its reading ended.
    ahead: Option<io::Result<Filled>>,
    /// The offset of `buf[0]` in the stream.
    base: u64,
    /// Where the next segment starts in `buf`, and the floor before it.
    start: usize,
    floor: usize,
    eof: bool,
    /// The bytes to read past `start` before a segment is looked for.
    need: usize,
    /// A pause ends a read once the buffer holds more than this: after a
    /// pause, only once something new came.
    pause_after: usize,
    /// The read error, reported after what came before it is scanned.
    failed: Option<io::Error>,
}

impl Blocks {
    fn new(block_size: usize) -> Blocks {
        Blocks {
            buf: Room::default(),
            next: Room::default(),
            ahead: None,
            base: 0,
            start: 0,
            floor: 0,
            eof: false,
            need: block_size,
            pause_after: 0,
            failed: None,
        }
    }

    /// Fill the buffer to a block plus the look-ahead a wrapped URL may
    /// need (an eighth of a block more, to find the first cut point after
    /// it), unless the block read ahead holds it; whether the source paused.
    fn fill(&mut self, r: &mut impl Read, quit: &AtomicBool) -> bool {
        let want = self.start + self.need + self.need / 8 + MAX_WRAPPED + 1;
        let read = match self.ahead.take() {
            // Read ahead: what it left to read, if anything, is read here.
            Some(Ok(Filled::Full)) if self.buf.len() < want => Some(fill_room(
                r,
                &mut self.buf,
                want,
                quit,
                Some(self.pause_after),
            )),
            Some(res) => Some(res),
            None if !self.eof => Some(fill_room(
                r,
                &mut self.buf,
                want,
                quit,
                Some(self.pause_after),
            )),
            None => None,
        };
        let mut pause = false;
        match read {
            Some(Ok(f)) => {
                self.eof = f == Filled::End;
                pause = f == Filled::Paused;
            }
            Some(Err(e)) => {
                // Report where the stream broke, after scanning what came before.
                let at = self.base + self.buf.len() as u64;
                self.failed = Some(io::Error::new(e.kind(), format!("at byte {at}: {e}")));
                self.eof = true;
            }
            None => {}
        }
        self.pause_after = 0;
        pause
    }

    /// Where the next segment ends, and whether the end is forced; `None`
    /// when more must be read first. After a `pause`, it ends where no
    /// later byte changes what is before it.
    fn segment_end(
        &mut self,
        ex: &Extractor,
        c: &Classifier,
        seg: &mut Segmenter,
        block_size: usize,
        pause: bool,
    ) -> Option<(usize, bool)> {
        if pause {
            let end = paused_end(ex, c, seg, &self.buf, self.base, (self.start, self.floor));
            if end.is_none() {
                self.pause_after = self.buf.len();
            }
            return end;
        }
        let avail = if self.eof {
            self.buf.len()
        } else {
            self.buf.len() - (MAX_WRAPPED + 1)
        };
        match seg.next(
            c,
            &self.buf,
            self.base,
            (self.start, block_size, avail),
            self.eof,
        ) {
            SegEnd::Cut(e) | SegEnd::End(e) => Some((e, false)),
            SegEnd::Forced(e) => Some((e, true)),
            SegEnd::More => {
                // No segment end yet: read more before scanning (a forced
                // cut comes within 2 * MAX_RUN bytes).
                self.need = self.need.saturating_mul(2).min(block_size + 2 * MAX_RUN);
                None
            }
        }
    }

    /// Past the segment that ended at `end`: the buffer from `keep_from`
    /// on (the block read ahead starts there) is the next one's.
    fn advance(&mut self, end: usize, keep_from: usize) {
        if self.ahead.is_some() {
            std::mem::swap(&mut self.buf, &mut self.next);
        } else {
            self.buf.drop_front(keep_from);
        }
        self.base += keep_from as u64;
        self.start = end - keep_from;
        self.floor = self.floor.saturating_sub(keep_from);
    }
}

/// Where a segment starting at `buf[start]` ends when the source paused
/// after `buf`: at the last ASCII stop byte before which every URL is
/// decided whatever follows ([`Extractor::undecided_from`]), or at least [`MAX_WRAPPED`] bytes
/// before the end (no wrapped URL from before it reaches the end); `None`
/// if there is none after `start`. With whether the end is forced.
fn paused_end(
    ex: &Extractor,
    c: &Classifier,
    seg: &mut Segmenter,
    buf: &[u8],
    base: u64,
    (start, floor): (usize, usize),
) -> Option<(usize, bool)> {
    let last_stop = |hi: usize| {
        buf.get(start..hi)?
            .iter()
            .rposition(|&b| b < 0x80 && naive::is_stop(b))
            .map(|i| start + i)
            .filter(|&i| i > start)
    };
    let last = last_stop(buf.len())?;
    let end = match ex.undecided_from(buf, start, last, floor) {
        None => last,
        // Up to the first URL left open; at least, as far as no wrapped
        // URL reaches the end from.
        Some(open) => {
            last_stop(open).max(buf.len().checked_sub(MAX_WRAPPED + 1).and_then(last_stop))?
        }
    };
    match seg.next(c, buf, base, (start, end - start, end + 1), false) {
        SegEnd::Cut(e) => Some((e, false)),
        SegEnd::Forced(e) => Some((e, true)),
        // Unreachable: `end` is a cut point before the bytes given.
        SegEnd::End(_) | SegEnd::More => None,
    }
}

/// Sets its flag when dropped (at the end of a scope, or as a panic
/// unwinds through it).
struct SetOnDrop<'a>(&'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Scan the `stretch` of a stream block whose first byte is at `base`,
/// handing each match to `sink` with absolute offsets and its line; returns
/// the new floor.
fn scan_block(
    ex: &Extractor,
    hay: &[u8],
    Stretch { start, end, floor }: Stretch,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A room read into again, after its bytes were let go, holds only what
    /// was read, and keeps its zeroed room.
    #[test]
    fn a_room_read_into_again_holds_only_what_was_read() {
        let quit = AtomicBool::new(false);
        let mut room = Room::default();
        let full = fill_room(&mut &[7u8; 5000][..], &mut room, 5000, &quit, None);
        assert_eq!(full.unwrap(), Filled::Full);
        room.drop_front(4990);
        assert_eq!(&room[..], &[7u8; 10][..]);
        let end = fill_room(&mut &b"abc"[..], &mut room, 100, &quit, None);
        assert_eq!(end.unwrap(), Filled::End);
        assert_eq!(&room[..], b"\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07abc");
        room.clear();
        room.extend_from_slice(b"xy");
        assert_eq!(&room[..], b"xy");
        assert!(room.bytes.len() >= 5000);
        assert_eq!(room.into_vec(), b"xy");
    }
}
