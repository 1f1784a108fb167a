//! Streams: read a block at a time, each block scanned as a buffer, with
//! the look-behind and the cut state carried from one to the next.

use super::segment::{SegEnd, Segmenter};
use super::*;
use crate::stream::{Filled, Room, fill_room, fill_room_ahead};
use std::sync::atomic::AtomicBool;

/// Scan a stream in blocks of about `block_size` bytes, carrying the tail a
/// URL needs from one block to the next, so memory stays bounded (about
/// two blocks: the next block is read, on a thread of its own, while this
/// one is scanned; plus [`MAX_WRAPPED`], and at most `2 * MAX_RUN` more for
/// text with no cut point at all) whatever the input size. Each match comes
/// with its 1-based line (0 unless `count_lines`); its offsets are absolute
/// in the stream. The result is identical to scanning the whole stream at
/// once. Until `sink` returns false: no match after that one is handed on,
/// and the stream is read no further than the block being read ahead (a
/// read waiting on a quiet pipe gives up, see
/// [`crate::stream::read_abandoned`]). Returns the bytes read.
///
/// When the source pauses ([`crate::stream::fill`]: `tail -f`, a slow
/// pipe), what came before the pause is scanned without waiting for a whole
/// block, up to the last stop byte whose URLs no later byte can change
/// ([`Extractor::undecided_from`]); the matches are the same as ever. Then
/// `paused` is called (every match before the pause was handed on: time to
/// flush what was written); false to stop.
pub(crate) fn scan_reader_while<R: Read + Send>(
    ex: &Extractor,
    r: R,
    (block_size, chunk_size): (usize, usize),
    count_lines: bool,
    mut sink: impl FnMut(Match<'_>, u64) -> bool,
    paused: impl FnMut() -> bool,
) -> io::Result<u64> {
    let mut go = true;
    read_blocks(
        ex,
        r,
        block_size,
        count_lines,
        |hay, stretch, base, lines| {
            let mut each = |m: Match<'_>, line| {
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

/// [`scan_reader_while`], lines counted, with each match's 1-based byte
/// column in its line ([`ColumnCounter`](super::ColumnCounter)'s, counted
/// across blocks): `sink(match, line, column)`.
pub(crate) fn scan_reader_columns<R: Read + Send>(
    ex: &Extractor,
    r: R,
    (block_size, chunk_size): (usize, usize),
    mut sink: impl FnMut(Match<'_>, u64, u64) -> bool,
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
            let mut each = |m: Match<'_>, line| {
                if go {
                    let first = line_of(m.start - base as usize);
                    let column = m.start as u64 - first + 1;
                    go = sink(m, line, column);
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

/// [`scan_reader_while`], with the work on each chunk's matches done in
/// parallel as in [`scan_segments_map`]: a [`Chunk`]'s offsets are in its
/// block, whose first byte is at [`Chunk::base`] in the stream. `each`
/// returns false to stop reading; `paused` is called as in
/// [`scan_reader_while`].
pub(crate) fn scan_reader_map<R: Read + Send, T: Send>(
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

/// The block loop of [`scan_reader_while`]: `step(hay, stretch, base, lines)`
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
            let (res, read) = fill_room_ahead(&mut r, &mut b.next, (want, Some(0)), || {
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

/// Scan the `stretch` of a stream block whose first byte is at `base`,
/// handing each match to `sink` with absolute offsets and its line (0 when
/// lines are not counted); returns
/// the new floor.
fn scan_block(
    ex: &Extractor,
    hay: &[u8],
    Stretch { start, end, floor }: Stretch,
    chunk_size: usize,
    base: u64,
    mut lines: Option<&mut LineCounter>,
    sink: &mut impl FnMut(Match<'_>, u64),
) -> usize {
    scan_range(ex, hay, start, end, floor, chunk_size, |m| {
        let line = lines.as_deref_mut().map_or(0, |l| l.line_at(hay, m.start));
        let abs = Match {
            start: m.start + base as usize,
            end: m.end + base as usize,
            ..m
        };
        sink(abs, line);
    })
}
