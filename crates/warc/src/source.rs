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
//! Most members are inflated whole instead, by libdeflate (faster than a
//! streaming inflater): the compressed bytes are buffered up to the next gzip
//! magic (or the end of the input), and that extent is taken as the member
//! when it inflates to exactly the size and CRC-32 its last eight bytes give
//! (a member's trailer). Anything else (an empty member, a member larger than
//! [`WHOLE_MAX_IN`] or [`WHOLE_MAX_OUT`], a magic inside the deflate data that
//! hides the real end after [`WHOLE_TRIES`] tries, a corrupt or truncated
//! member, bytes between members) is streamed as above, so errors, their
//! offsets and resynchronisation are the streaming decoder's.
//!
//! A corrupt member may have made the inflater read past the start of the
//! next member. [`Counting`] keeps the raw bytes of the current member
//! (up to [`HISTORY_CAP`]) so that resynchronisation can rescan them for the
//! next gzip magic and lose no member that follows.

use std::io::{self, BufRead, Read};

use flate2::bufread::GzDecoder;
use libdeflater::Decompressor;

/// Raw bytes read from the input at a time.
const READ_CHUNK: usize = 64 * 1024;

/// The most raw bytes of one gzip member kept for resynchronisation. A
/// member larger than this that turns out corrupt is resynchronised from
/// where the inflater stopped instead of from its start.
pub(crate) const HISTORY_CAP: usize = 32 * 1024 * 1024;

/// Compressed bytes buffered ahead at most to find where a member ends; a
/// longer member is streamed.
pub(crate) const WHOLE_MAX_IN: usize = 16 * 1024 * 1024;

/// The largest member inflated whole; a larger one is streamed.
pub(crate) const WHOLE_MAX_OUT: usize = 64 * 1024 * 1024;

/// Candidate ends (gzip magics, the first of which may lie inside the
/// deflate data) tried before a member is streamed.
pub(crate) const WHOLE_TRIES: usize = 4;

/// Deflate's largest expansion: 258 bytes from one 2-bit code, about 1032:1.
const MAX_RATIO: usize = 1032;

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

    /// Consume `n` bytes and stop keeping them (no mark is in force).
    fn skip_unmarked(&mut self, n: usize) {
        self.history = None;
        self.consume(n);
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

/// Skip to the next `magic` in `c`; its offset, or `None` at the end.
fn seek<R: Read>(c: &mut Counting<R>, magic: &[u8]) -> io::Result<Option<u64>> {
    loop {
        let avail = c.peek(magic.len())?;
        if avail.len() < magic.len() {
            let n = avail.len();
            c.consume(n);
            return Ok(None);
        }
        if let Some(p) = memchr::memmem::find(avail, magic) {
            c.consume(p);
            return Ok(Some(c.offset()));
        }
        let n = avail.len() - (magic.len() - 1);
        c.consume(n);
        if !c.fill_more()? {
            let n = c.buf.len() - c.pos;
            c.consume(n);
            return Ok(None);
        }
    }
}

/// Inflate the gzip member at the start of `c`'s unconsumed bytes whole into
/// `out`, if its end can be found (see the module's documentation); on
/// success it is consumed and its inflated length returned. On `None` nothing
/// is consumed.
fn inflate_whole<R: Read>(
    c: &mut Counting<R>,
    inflater: &mut Decompressor,
    out: &mut Vec<u8>,
) -> Option<usize> {
    // Past the fixed part of the header.
    let mut from = 10;
    let mut tries = 0;
    loop {
        let avail = c.buf.get(c.pos..).unwrap_or_default();
        let hay = avail.get(from..).unwrap_or_default();
        let end = match memchr::memmem::find(hay, GZIP_MAGIC) {
            Some(p) => from + p,
            None if c.eof => avail.len(),
            None if avail.len() >= WHOLE_MAX_IN => return None,
            None => {
                // Keep two bytes: the magic may straddle reads. A read
                // error ends the input (see `fill_more`): streaming reports it.
                from = from.max(avail.len().saturating_sub(GZIP_MAGIC.len() - 1));
                match c.fill_more() {
                    Ok(_) => continue,
                    Err(_) => return None,
                }
            }
        };
        if let Some(n) = inflate_exact(inflater, avail.get(..end)?, out) {
            c.skip_unmarked(end);
            return Some(n);
        }
        tries += 1;
        if end >= avail.len() || tries >= WHOLE_TRIES {
            return None;
        }
        from = end + 1;
    }
}

/// Inflate `member`, one whole gzip member, into `out`: the inflated length,
/// or `None` unless it inflates to exactly the (non-zero) size and the CRC-32
/// of its last eight bytes, that is unless `member` ends with its trailer.
///
/// libdeflate stops at the end of the first member and ignores what follows
/// it, having checked that member's own trailer. So a first member that ends
/// early, followed by other bytes that end with the same eight trailer bytes
/// (a copy of the member, say, after junk), would pass for one member. Those
/// eight bytes then occur before the last eight too; an extent where they do
/// is left to the streaming decoder, which finds the real end.
pub(crate) fn inflate_exact(
    inflater: &mut Decompressor,
    member: &[u8],
    out: &mut Vec<u8>,
) -> Option<usize> {
    let tail = member.get(member.len().checked_sub(8)?..)?;
    let word = |k: usize| {
        tail.get(k..k + 4)
            .and_then(|w| <[u8; 4]>::try_from(w).ok())
            .map(u32::from_le_bytes)
    };
    let (crc, size) = (word(0)?, usize::try_from(word(4)?).ok()?);
    let before_tail = member.get(10..member.len() - 1).unwrap_or_default();
    if memchr::memmem::find(before_tail, tail).is_some() {
        return None;
    }
    if size == 0 || size > WHOLE_MAX_OUT || size > member.len().saturating_mul(MAX_RATIO) {
        return None;
    }
    if out.len() < size {
        out.resize(size, 0);
    }
    let dst = out.get_mut(..size)?;
    let n = inflater.gzip_decompress(member, dst).ok()?;
    (n == size && libdeflater::crc32(dst) == crc).then_some(n)
}

/// The LZ4 frame magic number, little-endian.
pub(crate) const LZ4_MAGIC: &[u8; 4] = b"\x04\x22\x4d\x18";

/// One LZ4 frame of a [`Counting`] reader, and nothing after it: the
/// frame's bytes are passed on as its format (header, blocks, end mark,
/// checksums) delimits them, so the decoder over it ends with the frame
/// and the next frame's offset is known.
pub(crate) struct Lz4Frame<R> {
    c: Counting<R>,
    /// Bytes of the current part of the frame still to pass on.
    left: usize,
    /// 0: the header is next; 1: a block or the end mark; 2: done.
    stage: u8,
    flags: u8,
}

impl<R: Read> Read for Lz4Frame<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.left > 0 {
                let n = self.left.min(out.len());
                let n = self.c.read(out.get_mut(..n).unwrap_or_default())?;
                self.left -= n;
                return Ok(n);
            }
            match self.stage {
                0 => {
                    let h = self.c.peek(7)?;
                    let Some(&flags) = h.get(4) else {
                        self.left = h.len();
                        self.stage = 2;
                        continue;
                    };
                    self.flags = flags;
                    // Magic, FLG, BD, content size, dictionary id, HC.
                    self.left =
                        7 + usize::from(flags & 0x08) + if flags & 0x01 != 0 { 4 } else { 0 };
                    self.stage = 1;
                }
                1 => {
                    let h = self.c.peek(4)?;
                    let Some(size) = h.get(..4).and_then(|w| <[u8; 4]>::try_from(w).ok()) else {
                        self.left = h.len();
                        self.stage = 2;
                        continue;
                    };
                    let size = u32::from_le_bytes(size) & 0x7fff_ffff;
                    let sum = if self.flags & 0x10 != 0 { 4 } else { 0 };
                    if size == 0 {
                        self.left = 4 + if self.flags & 0x04 != 0 { 4 } else { 0 };
                        self.stage = 2;
                    } else {
                        self.left = 4 + size as usize + sum;
                    }
                }
                _ => return Ok(0),
            }
        }
    }
}

enum State<R: Read> {
    Plain(Counting<R>),
    /// Between LZ4 frames.
    Lz4Idle(Counting<R>),
    Lz4(Box<lz4_flex::frame::FrameDecoder<Lz4Frame<R>>>),
    /// Between gzip members (or not started).
    Idle(Counting<R>),
    Member(Box<GzDecoder<Counting<R>>>),
    /// A member inflated whole into `Source::whole`.
    Whole(Counting<R>),
    /// Only while a transition is under way.
    Taken,
}

/// Decompressed bytes, one segment (gzip member, or the whole plain input)
/// at a time.
pub(crate) struct Source<R: Read> {
    state: State<R>,
    gzip: bool,
    /// Offset in the input of the current segment.
    segment_start: u64,
    /// The inflater for whole members (made at the first one).
    inflater: Option<Box<Decompressor>>,
    /// A member inflated whole: `whole[whole_pos..whole_len]` is unread.
    whole: Vec<u8>,
    whole_pos: usize,
    whole_len: usize,
    /// Inflate members whole when they allow it (tests turn it off to
    /// compare with streaming).
    pub(crate) whole_ok: bool,
}

impl<R: Read> Source<R> {
    /// Detect gzip and LZ4 frames by their magic; anything else is read as
    /// it is.
    pub(crate) fn new(inner: R) -> io::Result<Self> {
        let mut c = Counting::new(inner);
        let head = c.peek(4)?;
        let gzip = head.starts_with(GZIP_MAGIC);
        let lz4 = head.starts_with(LZ4_MAGIC);
        Ok(Source {
            state: if gzip {
                State::Idle(c)
            } else if lz4 {
                State::Lz4Idle(c)
            } else {
                State::Plain(c)
            },
            gzip: gzip || lz4,
            segment_start: 0,
            inflater: None,
            whole: Vec::new(),
            whole_pos: 0,
            whole_len: 0,
            whole_ok: true,
        })
    }

    /// True for input in members: gzip, or LZ4 frames.
    pub(crate) fn is_gzip(&self) -> bool {
        self.gzip
    }

    /// True for LZ4 frames.
    pub(crate) fn is_lz4(&self) -> bool {
        matches!(self.state, State::Lz4(_) | State::Lz4Idle(_))
    }

    /// Offset in the input of the current segment (gzip member).
    pub(crate) fn segment_start(&self) -> u64 {
        self.segment_start
    }

    /// Offset in the input just past the current segment, once it has all
    /// been read (a gzip member inflated to its trailer, an LZ4 frame to its
    /// end mark and checksum); `None` before that, and for plain input.
    pub(crate) fn segment_end(&self) -> Option<u64> {
        match &self.state {
            State::Whole(c) => Some(c.offset()),
            State::Member(d) => Some(d.get_ref().offset()),
            State::Lz4(d) => Some(d.get_ref().c.offset()),
            _ => None,
        }
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
            State::Whole(c) => {
                self.state = State::Idle(c);
                self.next_segment()
            }
            State::Lz4(d) => {
                let mut f = d.into_inner();
                // What the decoder left of the frame (a damaged one).
                while f.read(&mut [0u8; 4096]).is_ok_and(|n| n > 0) {}
                self.state = State::Lz4Idle(f.c);
                self.next_segment()
            }
            State::Lz4Idle(mut c) => {
                let at = c.offset();
                let head = match c.peek(8) {
                    Ok(h) => h,
                    Err(e) => {
                        self.state = State::Lz4Idle(c);
                        return Err((at, format!("read error: {e}")));
                    }
                };
                if head.is_empty() {
                    self.state = State::Lz4Idle(c);
                    return Ok(false);
                }
                if head.starts_with(LZ4_MAGIC) {
                    self.segment_start = at;
                    let f = Lz4Frame {
                        c,
                        left: 0,
                        stage: 0,
                        flags: 0,
                    };
                    self.state = State::Lz4(Box::new(lz4_flex::frame::FrameDecoder::new(f)));
                    return Ok(true);
                }
                // A skippable frame (magic 0x184D2A50-5F): its size follows.
                if let Some(&[m, 0x2a, 0x4d, 0x18, a, b, cc, d]) = head.get(..8)
                    && m & 0xf0 == 0x50
                {
                    let n = u32::from_le_bytes([a, b, cc, d]) as usize;
                    let mut left = 8 + n;
                    while left > 0 {
                        let k = c.fill_buf().map_or(0, <[u8]>::len).min(left);
                        if k == 0 {
                            break;
                        }
                        c.consume(k);
                        left -= k;
                    }
                    self.state = State::Lz4Idle(c);
                    return self.next_segment();
                }
                let skipped = seek(&mut c, LZ4_MAGIC);
                let end = c.offset();
                self.state = State::Lz4Idle(c);
                match skipped {
                    Ok(_) => Err((
                        at,
                        format!("{} bytes that are not an LZ4 frame skipped", end - at),
                    )),
                    Err(e) => Err((at, format!("read error: {e}"))),
                }
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
                    let inflater = self.inflater.get_or_insert_with(Box::default);
                    let whole = if self.whole_ok {
                        inflate_whole(&mut c, inflater, &mut self.whole)
                    } else {
                        None
                    };
                    if let Some(n) = whole {
                        self.whole_pos = 0;
                        self.whole_len = n;
                        self.state = State::Whole(c);
                        return Ok(true);
                    }
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
    /// its start and skip to the next gzip magic (LZ4: the next frame's
    /// magic after where decoding stopped).
    pub(crate) fn resync(&mut self) {
        self.state = match std::mem::replace(&mut self.state, State::Taken) {
            State::Lz4(d) => {
                let mut c = d.into_inner().c;
                let _ = seek(&mut c, LZ4_MAGIC);
                State::Lz4Idle(c)
            }
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
            State::Lz4(d) => d.read(out),
            State::Whole(_) => {
                let left = self
                    .whole
                    .get(self.whole_pos..self.whole_len)
                    .unwrap_or_default();
                let n = left.len().min(out.len());
                if let (Some(dst), Some(src)) = (out.get_mut(..n), left.get(..n)) {
                    dst.copy_from_slice(src);
                }
                self.whole_pos += n;
                Ok(n)
            }
            State::Idle(_) | State::Lz4Idle(_) | State::Taken => Ok(0),
        }
    }

    /// When the current segment is a member inflated whole and none of it
    /// has been read: swap it into `buf` (whose old contents are dropped)
    /// and return true. Saves copying it through [`Source::read`].
    pub(crate) fn take_whole(&mut self, buf: &mut Vec<u8>) -> bool {
        if !matches!(self.state, State::Whole(_)) || self.whole_pos != 0 || self.whole_len == 0 {
            return false;
        }
        if self.whole_len * 2 < self.whole.len() {
            // A member much shorter than the buffer is copied out: handing
            // over the buffer cut to its length would lose the rest of its
            // written length, to be zeroed again for a longer member.
            buf.clear();
            buf.extend_from_slice(self.whole.get(..self.whole_len).unwrap_or_default());
        } else {
            std::mem::swap(&mut self.whole, buf);
            buf.truncate(self.whole_len);
        }
        self.whole_pos = self.whole_len;
        true
    }

    /// Take `buf`, a buffer the reader is done with, as the space to inflate
    /// the next whole member into, when it is longer than the one there (a
    /// buffer's length is memory already written, which need not be zeroed
    /// again); `buf` gets the shorter one, contents unspecified.
    pub(crate) fn recycle(&mut self, buf: &mut Vec<u8>) {
        let unread = matches!(self.state, State::Whole(_)) && self.whole_pos < self.whole_len;
        if !unread && buf.len() > self.whole.len() {
            std::mem::swap(&mut self.whole, buf);
        }
    }
}
