//! The bytes under the record reader: a plain stream, or gzip decoded one
//! member at a time so that each member's offset in the file is known (CDX
//! indexes give a record's offset as the offset of its gzip member).
//!
//! flate2's `MultiGzDecoder` hides member boundaries, so members are decoded
//! here one by one with `bufread::GzDecoder` over [`Counting`], a buffered
//! reader that counts the compressed bytes consumed. `GzDecoder` reads its
//! input through `BufRead` and consumes exactly the member (header, deflate
//! stream, trailer), so the count after one member is the next one's offset.
//!
//! A corrupt member may have made the inflater read past the start of the
//! next member. [`Counting`] keeps the raw bytes of the current member
//! (up to [`HISTORY_CAP`]) so that resynchronisation can rescan them for the
//! next gzip magic and lose no member that follows.

use std::io::{self, BufRead, Read};

use flate2::bufread::GzDecoder;

/// Raw bytes read from the input at a time.
const READ_CHUNK: usize = 64 * 1024;

/// The most raw bytes of one gzip member kept for resynchronisation. A
/// member larger than this that turns out corrupt is resynchronised from
/// where the inflater stopped instead of from its start.
pub(crate) const HISTORY_CAP: usize = 32 * 1024 * 1024;

/// The gzip magic and the deflate method byte.
const GZIP_MAGIC: &[u8; 3] = b"\x1f\x8b\x08";

/// A `BufRead` over any `Read` that counts the bytes consumed and can keep
/// and replay the bytes consumed since a mark.
pub(crate) struct Counting<R> {
    inner: R,
    buf: Vec<u8>,
    pos: usize,
    /// Offset in the input of `buf[pos]`.
    consumed: u64,
    eof: bool,
    /// Bytes consumed since the mark, while they fit in [`HISTORY_CAP`].
    history: Option<Vec<u8>>,
    /// Offset in the input of the mark.
    mark: u64,
}

impl<R: Read> Counting<R> {
    pub(crate) fn new(inner: R) -> Self {
        Counting {
            inner,
            buf: Vec::with_capacity(READ_CHUNK),
            pos: 0,
            consumed: 0,
            eof: false,
            history: None,
            mark: 0,
        }
    }

    /// Offset in the input of the next byte to be consumed.
    pub(crate) fn offset(&self) -> u64 {
        self.consumed
    }

    /// Read more input after the unconsumed bytes; false at end of input.
    fn fill_more(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.pos > 0 {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        let old = self.buf.len();
        self.buf.resize(old + READ_CHUNK, 0);
        loop {
            match self.inner.read(self.buf.get_mut(old..).unwrap_or_default()) {
                Ok(n) => {
                    self.buf.truncate(old + n);
                    self.eof = n == 0;
                    return Ok(n > 0);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    // Reported once; after it the input counts as ended, so
                    // that no caller can loop on a failing reader.
                    self.buf.truncate(old);
                    self.eof = true;
                    return Err(e);
                }
            }
        }
    }

    /// At least `n` unconsumed bytes, unless the input ends first.
    pub(crate) fn peek(&mut self, n: usize) -> io::Result<&[u8]> {
        while self.buf.len() - self.pos < n && self.fill_more()? {}
        Ok(self.buf.get(self.pos..).unwrap_or_default())
    }

    /// Start keeping the bytes consumed from here on.
    pub(crate) fn set_mark(&mut self) {
        self.mark = self.consumed;
        let mut h = self.history.take().unwrap_or_default();
        h.clear();
        self.history = Some(h);
    }

    /// Go back to `skip` bytes after the mark, if the bytes since the mark
    /// were kept; otherwise stay where we are. Returns the new offset.
    pub(crate) fn rewind_after_mark(&mut self, skip: u64) -> u64 {
        if let Some(h) = self.history.take() {
            let skip = usize::try_from(skip).unwrap_or(usize::MAX).min(h.len());
            let mut nb = Vec::with_capacity(h.len() - skip + self.buf.len() - self.pos);
            nb.extend_from_slice(h.get(skip..).unwrap_or_default());
            nb.extend_from_slice(self.buf.get(self.pos..).unwrap_or_default());
            self.buf = nb;
            self.pos = 0;
            self.consumed = self.mark + skip as u64;
        }
        self.consumed
    }

    /// Skip to the next gzip magic; returns its offset, or `None` at end of input.
    pub(crate) fn seek_gzip_magic(&mut self) -> io::Result<Option<u64>> {
        loop {
            let avail = self.peek(GZIP_MAGIC.len())?;
            if avail.len() < GZIP_MAGIC.len() {
                let n = avail.len();
                self.consume(n);
                return Ok(None);
            }
            if let Some(p) = memchr::memmem::find(avail, GZIP_MAGIC) {
                self.consume(p);
                return Ok(Some(self.consumed));
            }
            // Keep the last two bytes: the magic may straddle reads.
            let n = avail.len() - (GZIP_MAGIC.len() - 1);
            self.consume(n);
            if !self.fill_more()? {
                let n = self.buf.len() - self.pos;
                self.consume(n);
                return Ok(None);
            }
        }
    }
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(out.len());
        if let (Some(dst), Some(src)) = (out.get_mut(..n), avail.get(..n)) {
            dst.copy_from_slice(src);
        }
        self.consume(n);
        Ok(n)
    }
}

impl<R: Read> BufRead for Counting<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos >= self.buf.len() {
            self.buf.clear();
            self.pos = 0;
            self.fill_more()?;
        }
        Ok(self.buf.get(self.pos..).unwrap_or_default())
    }

    fn consume(&mut self, amt: usize) {
        let amt = amt.min(self.buf.len() - self.pos);
        if let Some(h) = &mut self.history {
            if h.len() + amt <= HISTORY_CAP {
                h.extend_from_slice(self.buf.get(self.pos..self.pos + amt).unwrap_or_default());
            } else {
                self.history = None;
            }
        }
        self.pos += amt;
        self.consumed += amt as u64;
    }
}

enum State<R> {
    Plain(Counting<R>),
    /// Between gzip members (or not started).
    Idle(Counting<R>),
    Member(Box<GzDecoder<Counting<R>>>),
    /// Only while a transition is under way.
    Taken,
}

/// Decompressed bytes, one segment (gzip member, or the whole plain input)
/// at a time.
pub(crate) struct Source<R> {
    state: State<R>,
    gzip: bool,
    /// Offset in the input of the current segment.
    segment_start: u64,
}

impl<R: Read> Source<R> {
    /// Detect gzip by its magic; anything else is read as it is.
    pub(crate) fn new(inner: R) -> io::Result<Self> {
        let mut c = Counting::new(inner);
        let gzip = c.peek(3)?.starts_with(GZIP_MAGIC);
        Ok(Source {
            state: if gzip {
                State::Idle(c)
            } else {
                State::Plain(c)
            },
            gzip,
            segment_start: 0,
        })
    }

    /// True for gzip input.
    pub(crate) fn is_gzip(&self) -> bool {
        self.gzip
    }

    /// Offset in the input of the current segment (gzip member).
    pub(crate) fn segment_start(&self) -> u64 {
        self.segment_start
    }

    /// Start the next segment: in gzip input, the member at the current
    /// position. Returns false at the end of the input. Bytes between members
    /// that are not a gzip member are reported as `Err` with their offset,
    /// and skipped up to the next gzip magic.
    pub(crate) fn next_segment(&mut self) -> Result<bool, (u64, String)> {
        match std::mem::replace(&mut self.state, State::Taken) {
            State::Plain(c) => {
                // A plain input is one segment; it has been read.
                self.state = State::Plain(c);
                Ok(false)
            }
            State::Member(d) => {
                self.state = State::Idle(d.into_inner());
                self.next_segment()
            }
            State::Idle(mut c) => {
                let at = c.offset();
                let head = match c.peek(3) {
                    Ok(h) => h,
                    Err(e) => {
                        self.state = State::Idle(c);
                        return Err((at, format!("read error: {e}")));
                    }
                };
                if head.is_empty() {
                    self.state = State::Idle(c);
                    return Ok(false);
                }
                if head.starts_with(GZIP_MAGIC) {
                    self.segment_start = at;
                    c.set_mark();
                    self.state = State::Member(Box::new(GzDecoder::new(c)));
                    return Ok(true);
                }
                let skipped = c.seek_gzip_magic();
                let end = c.offset();
                self.state = State::Idle(c);
                match skipped {
                    Ok(_) => Err((
                        at,
                        format!("{} bytes that are not a gzip member skipped", end - at),
                    )),
                    Err(e) => Err((at, format!("read error: {e}"))),
                }
            }
            State::Taken => Ok(false),
        }
    }

    /// After a decoding error in the current member: go back to just after
    /// its start and skip to the next gzip magic.
    pub(crate) fn resync(&mut self) {
        self.state = match std::mem::replace(&mut self.state, State::Taken) {
            State::Member(d) => {
                let mut c = d.into_inner();
                c.rewind_after_mark(1);
                // A read error here ends the input (see `fill_more`).
                let _ = c.seek_gzip_magic();
                State::Idle(c)
            }
            other => other,
        };
    }

    /// Read decompressed bytes of the current segment; `Ok(0)` at its end.
    pub(crate) fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        match &mut self.state {
            State::Plain(c) => c.read(out),
            State::Member(d) => d.read(out),
            State::Idle(_) | State::Taken => Ok(0),
        }
    }
}
