//! The WARC record reader: WARC 0.17, 0.18, 1.0 and 1.1 records, and ARC
//! (version 1 and 2) records, from plain or gzip input.
//!
//! An input that starts with `filedesc://` is an ARC file: each record is a
//! header line (`URL IP DATE TYPE LENGTH`) and `LENGTH` bytes. Its records
//! are given as WARC's: the `filedesc://` record as `warcinfo` (it
//! describes the file), an HTTP capture as `response`, anything else as
//! `resource`; `WARC-Date` from the 14-digit date; no record ID.
//!
//! # Recovery
//!
//! - A gzip member that does not inflate (corrupt, or cut short at the end of
//!   the file) is an input error ([`Severity::Error`]) named by the member's
//!   offset; a record it breaks off is yielded with the part inflated before
//!   the break, flagged [`Record::truncated`]; reading goes on at the next
//!   gzip magic after the member's start.
//! - A plain input that ends inside a record is an input error too; the part
//!   read is yielded, flagged [`Record::truncated`].
//! - A malformed record in a readable archive is a warning
//!   ([`Severity::Warning`]): no `WARC/` line where a record should start, a
//!   header without a valid `Content-Length`, or a block not followed by the
//!   blank line that ends a record (a `Content-Length` that lies). Reading
//!   goes on at the next line that starts with `WARC/` and a version, searched for from
//!   the start of the lying record's block, so a record swallowed by a
//!   `Content-Length` that is too long is still found.
//! - In gzip input, each member is one segment: a record never continues
//!   into the next member (WARC 1.1 Annex D puts one record in each member).
//!   A whole-file gzip is one member holding every record.
//!
//! - Leniency, each with a warning naming the record's offset: a header
//!   whose lines end in LF or CR CR LF instead of CR LF (once per input for
//!   each), a `Content-Length` a few bytes too short (the block runs to the
//!   blank line before the next record, if that is within
//!   [`SHORT_LENGTH_SLACK`] bytes) or too long (the block ends before the
//!   next record found inside it).
//!
//! Rescanning a lying record's block is bounded: the bytes re-read that way
//! never exceed the input read so far, so any input is read in linear time.

use std::collections::VecDeque;
use std::io::Read;

use crate::source::Source;

/// How much of one record's block is kept by default: 64 MiB.
pub const DEFAULT_MAX_BLOCK: usize = 64 * 1024 * 1024;

/// A record header longer than this is malformed.
const MAX_HEADER: usize = 256 * 1024;

/// How far past a block a `Content-Length` that is too short is looked
/// beyond for the next record, whose start then ends the block.
pub const SHORT_LENGTH_SLACK: usize = 4096;

/// The start of a record line: `WARC/`, a digit and a dot.
const WARC_LINE: &[u8] = b"\nWARC/";

/// The first line in `hay` that starts a record (`\nWARC/` then a digit
/// and a dot): `Ok` with the offset of its `\n`, or `Err` with how many
/// bytes at the end of `hay` could still start one.
fn find_warc_line(hay: &[u8]) -> Result<usize, usize> {
    let mut from = 0;
    while let Some(p) = memchr::memmem::find(hay.get(from..).unwrap_or_default(), WARC_LINE) {
        let at = from + p;
        let v = hay.get(at + WARC_LINE.len()..).unwrap_or_default();
        match v {
            [d, b'.', ..] if d.is_ascii_digit() => return Ok(at),
            [d] if d.is_ascii_digit() => return Err(hay.len() - at),
            [] => return Err(hay.len() - at),
            _ => from = at + 1,
        }
    }
    Err((WARC_LINE.len() - 1).min(hay.len()))
}

/// Decompressed bytes read at a time.
const CHUNK: usize = 64 * 1024;

/// Whether an [`Issue`] lost data from the input or only from one record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    /// A malformed record in a readable archive; the other records are intact.
    Warning,
    /// The input could not be read there: a corrupt or truncated gzip member,
    /// a truncated file, a read error.
    Error,
}

/// A problem found while reading an archive, at a byte offset in the input
/// (in gzip input: the offset of the gzip member).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    /// Byte offset in the input (gzip: of the member).
    pub offset: u64,
    /// Warning or error.
    pub severity: Severity,
    /// What is wrong, in one line.
    pub message: String,
}

impl std::fmt::Display for Issue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = match self.severity {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        write!(f, "{s} at byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for Issue {}

/// One WARC record, owned: it can be sent to another thread.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// Byte offset of the record in the input; in gzip input, the offset of
    /// the gzip member it starts in (as CDX indexes give it).
    pub offset: u64,
    /// `WARC-Type`, e.g. `response` (empty when missing).
    pub warc_type: String,
    /// `WARC-Target-URI`, without the `<...>` some writers put around it.
    pub target_uri: Option<String>,
    /// `WARC-Record-ID`, e.g. `<urn:uuid:...>`.
    pub record_id: Option<String>,
    /// `WARC-Date`.
    pub date: Option<String>,
    /// The record's `Content-Type` (of the block, e.g. `application/http; msgtype=response`).
    pub content_type: Option<String>,
    /// `Content-Length`: the block's length as the header gives it.
    pub content_length: u64,
    /// Every header field in order, names as written.
    pub headers: Vec<(String, String)>,
    /// The block, up to the reader's block cap.
    pub block: Vec<u8>,
    /// True when `block` is shorter than `content_length` (capped, or the
    /// input or member ended early).
    pub truncated: bool,
    /// The record's length in the input, so that the bytes `offset ..
    /// offset + length` are the record and nothing else (a byte range
    /// request fetches it, as CDX indexes give them): in gzip or LZ4 input,
    /// its whole member or frame (compressed); in plain input, its header,
    /// block and the blank line after it. `None` when the record cannot be
    /// fetched alone: it shares its gzip member with other records (a
    /// whole-file gzip), or the member or input broke off inside it.
    pub length: Option<u64>,
}

impl Record {
    /// The first header field named `name` (ASCII case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Reads [`Record`]s from a WARC or WET file, plain or gzip (a member per
/// record, or the whole file), from any [`Read`]: an iterator of
/// `Result<Record, Issue>` where an `Err` is an [`Issue`] (warning or error)
/// and reading goes on after it. Memory is bounded by the block cap plus a
/// few buffers.
///
/// ```
/// let warc = b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Target-URI: http://example.com/\r\n\
/// Content-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello\r\n\r\n";
/// let recs: Vec<_> = urlsift_warc::Reader::new(&warc[..]).collect();
/// let rec = recs[0].as_ref().unwrap();
/// assert_eq!((rec.offset, rec.warc_type.as_str()), (0, "resource"));
/// assert_eq!(rec.target_uri.as_deref(), Some("http://example.com/"));
/// assert_eq!(rec.block, b"hello");
/// ```
pub struct Reader<R: Read> {
    src: Option<Source<R>>,
    first: Option<R>,
    max_block: usize,
    /// Decompressed bytes of the current segment; `buf[pos..]` unread.
    buf: Vec<u8>,
    pos: usize,
    /// Offset in the segment's decompressed bytes of `buf[0]`.
    base: u64,
    /// A segment is open and its end has not been reached.
    active: bool,
    /// The open segment has no more bytes beyond `buf`.
    seg_end: bool,
    done: bool,
    out: VecDeque<Result<Record, Issue>>,
    /// Bytes that may still be re-read when a lying record is rescanned.
    rescan_budget: u64,
    /// Inflate gzip members whole where they allow it (see `source`).
    whole_ok: bool,
    /// Header line ends warned about in this input: LF, CR CR LF.
    warned_ends: [bool; 2],
    /// Whether the input is an ARC file (it starts with `filedesc://`);
    /// `None` before its first record.
    arc: Option<bool>,
    /// Records started in the open segment.
    seg_records: usize,
}

impl<R: Read> Reader<R> {
    /// A reader with the default block cap ([`DEFAULT_MAX_BLOCK`]).
    pub fn new(input: R) -> Self {
        Reader::with_max_block(input, DEFAULT_MAX_BLOCK)
    }

    /// A reader that keeps at most `max_block` bytes of each record's block;
    /// the rest is skipped with a warning and the record is flagged
    /// [`Record::truncated`].
    pub fn with_max_block(input: R, max_block: usize) -> Self {
        Reader {
            src: None,
            first: Some(input),
            max_block,
            buf: Vec::new(),
            pos: 0,
            base: 0,
            active: false,
            seg_end: false,
            done: false,
            out: VecDeque::new(),
            rescan_budget: 1 << 20,
            whole_ok: true,
            warned_ends: [false; 2],
            arc: None,
            seg_records: 0,
        }
    }

    /// The same reader, streaming every gzip member (never inflating one
    /// whole): what the whole-member path must agree with.
    #[cfg(test)]
    fn streaming_only(mut self) -> Self {
        self.whole_ok = false;
        self
    }

    fn issue(&mut self, offset: u64, severity: Severity, message: String) {
        self.out.push_back(Err(Issue {
            offset,
            severity,
            message,
        }));
    }

    fn gzip(&self) -> bool {
        self.src.as_ref().is_some_and(Source::is_gzip)
    }

    /// The input offset to name for a position in the segment.
    fn offset_of(&self, seg_pos: u64) -> u64 {
        match &self.src {
            Some(s) if s.is_gzip() => s.segment_start(),
            _ => seg_pos,
        }
    }

    /// Offset in the segment of `buf[pos]`.
    fn here(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// An inflate or read error: report it and drop the rest of the segment.
    fn input_error(&mut self, e: &std::io::Error) {
        let off = self.offset_of(self.here());
        let what = if self.src.as_ref().is_some_and(Source::is_lz4) {
            "LZ4 frame does not decode"
        } else if self.gzip() {
            "gzip member does not inflate"
        } else {
            "read error"
        };
        self.issue(off, Severity::Error, format!("{what}: {e}"));
        if let Some(s) = &mut self.src {
            s.resync();
        }
        self.close_segment();
    }

    fn close_segment(&mut self) {
        self.seg_records = 0;
        self.active = false;
        self.seg_end = true;
        self.recycle();
        self.pos = 0;
        self.base = 0;
    }

    /// Empty `buf`, first offering its memory to the source as space to
    /// inflate the next member into (written already: no zeroing there).
    fn recycle(&mut self) {
        if let Some(src) = &mut self.src {
            src.recycle(&mut self.buf);
        }
        self.buf.clear();
    }

    /// Read more of the segment into `buf`; false at its end (or on an error,
    /// which is reported and closes the segment).
    fn fill(&mut self) -> bool {
        if !self.active || self.seg_end {
            return false;
        }
        if self.buf.is_empty()
            && self
                .src
                .as_mut()
                .is_some_and(|s| s.take_whole(&mut self.buf))
        {
            // The whole segment is in `buf` now.
            self.rescan_budget += self.buf.len() as u64;
            self.seg_end = true;
            return true;
        }
        if self.pos > 0 && self.pos >= self.buf.len() / 2 {
            self.buf.drain(..self.pos);
            self.base += self.pos as u64;
            self.pos = 0;
        }
        let old = self.buf.len();
        self.buf.resize(old + CHUNK, 0);
        let Some(src) = &mut self.src else {
            return false;
        };
        let r = src.read(self.buf.get_mut(old..).unwrap_or_default());
        match r {
            Ok(n) => {
                self.buf.truncate(old + n);
                self.rescan_budget += n as u64;
                if n == 0 {
                    self.seg_end = true;
                }
                n > 0
            }
            Err(e) => {
                self.buf.truncate(old);
                self.input_error(&e);
                false
            }
        }
    }

    /// At least `n` unread bytes unless the segment ends; the unread bytes.
    fn want(&mut self, n: usize) -> bool {
        while self.buf.len() - self.pos < n {
            if !self.fill() {
                return self.active && self.buf.len() - self.pos >= n;
            }
        }
        true
    }

    /// Open the next segment; false when the input is done.
    fn open_segment(&mut self) -> bool {
        if self.src.is_none() {
            let Some(input) = self.first.take() else {
                return false;
            };
            match Source::new(input) {
                Ok(mut s) => {
                    s.whole_ok = self.whole_ok;
                    let gz = s.is_gzip();
                    self.src = Some(s);
                    if !gz {
                        self.active = true;
                        self.seg_end = false;
                        return true;
                    }
                }
                Err(e) => {
                    self.issue(0, Severity::Error, format!("read error: {e}"));
                    return false;
                }
            }
        }
        loop {
            let Some(src) = &mut self.src else {
                return false;
            };
            match src.next_segment() {
                Ok(true) => {
                    self.recycle();
                    self.pos = 0;
                    self.base = 0;
                    self.active = true;
                    self.seg_end = false;
                    return true;
                }
                Ok(false) => return false,
                Err((off, msg)) => self.issue(off, Severity::Error, msg),
            }
        }
    }

    /// Skip to the next line that starts a record (`WARC/` and a version)
    /// in this segment (or to its end). Linear: each byte is searched once.
    fn skip_to_warc_line(&mut self) {
        loop {
            let hay = self.buf.get(self.pos..).unwrap_or_default();
            let keep = match find_warc_line(hay) {
                Ok(p) => {
                    self.pos += p + 1;
                    return;
                }
                Err(keep) => keep,
            };
            // Keep a possible partial match at the end.
            self.pos = self.buf.len() - keep;
            if !self.fill() {
                self.pos = self.buf.len();
                return;
            }
        }
    }

    /// Produce the next items into `out`; false when the input is done.
    fn step(&mut self) -> bool {
        if self.done {
            return false;
        }
        if !self.active && !self.open_segment() {
            self.done = true;
            return false;
        }
        // Skip blank lines between records.
        loop {
            while let Some(&b) = self.buf.get(self.pos) {
                if matches!(b, b'\r' | b'\n' | b' ' | b'\t') {
                    self.pos += 1;
                } else {
                    break;
                }
            }
            if self.pos < self.buf.len() || !self.fill() {
                break;
            }
        }
        if self.pos >= self.buf.len() {
            // The segment is done (or failed, which `fill` reported).
            let plain = !self.gzip();
            self.close_segment();
            if plain {
                self.done = true;
            }
            return true;
        }
        self.want(7);
        let head = self.buf.get(self.pos..).unwrap_or_default();
        let is_record = head.len() >= 7
            && head.starts_with(b"WARC/")
            && head.get(5).is_some_and(u8::is_ascii_digit)
            && head.get(6) == Some(&b'.');
        if !self.active {
            return true;
        }
        if self.arc.is_none() {
            self.arc = Some(head.starts_with(b"filedesc://"));
        }
        if !is_record && self.arc == Some(true) {
            self.arc_record();
            return true;
        }
        if !is_record {
            let at = self.here();
            self.skip_to_warc_line();
            let skipped = self.here().saturating_sub(at);
            let off = self.offset_of(at);
            self.issue(
                off,
                Severity::Warning,
                format!("no WARC record here: {skipped} bytes skipped"),
            );
            return true;
        }
        self.record();
        true
    }

    /// Read an ARC record at `pos`: its header line (`URL IP DATE TYPE
    /// LENGTH` in version 1, ten fields ending with the length in version
    /// 2; a URL may hold spaces), then `LENGTH` bytes. A line that is not
    /// a header is skipped with a warning.
    fn arc_record(&mut self) {
        let start = self.here();
        let offset = self.offset_of(start);
        let mut from = self.pos;
        let nl = loop {
            if let Some(p) = memchr::memchr(b'\n', self.buf.get(from..).unwrap_or_default()) {
                break Some(from + p);
            }
            let rel = self.buf.len() - self.pos;
            if rel > MAX_HEADER || !self.fill() {
                break None;
            }
            from = self.pos + rel;
        };
        if !self.active {
            return;
        }
        let end = nl.unwrap_or(self.buf.len());
        let line = self.buf.get(self.pos..end).unwrap_or_default();
        let parsed = parse_arc_header(crate::http::trim_cr(line));
        self.pos = (end + 1).min(self.buf.len());
        let Some(h) = parsed else {
            self.issue(
                offset,
                Severity::Warning,
                "not an ARC record header: line skipped".to_owned(),
            );
            return;
        };
        // What the block is: the HTTP response of a web capture, the
        // file's own description, or another resource (`dns:`, ...).
        self.want(5);
        let http = self
            .buf
            .get(self.pos..)
            .is_some_and(|b| b.starts_with(b"HTTP/"));
        let (warc_type, content_type) = if h.url.starts_with("filedesc:") {
            ("warcinfo", h.content_type)
        } else if http {
            ("response", "application/http; msgtype=response".to_owned())
        } else {
            ("resource", h.content_type)
        };
        let mut rec = Record {
            offset,
            warc_type: warc_type.to_owned(),
            target_uri: Some(h.url),
            date: Some(h.date),
            content_type: Some(content_type),
            ..Record::default()
        };
        rec.headers = vec![
            ("WARC-Type".to_owned(), rec.warc_type.clone()),
            (
                "WARC-Target-URI".to_owned(),
                rec.target_uri.clone().unwrap_or_default(),
            ),
            ("WARC-Date".to_owned(), rec.date.clone().unwrap_or_default()),
            ("WARC-IP-Address".to_owned(), h.ip),
            (
                "Content-Type".to_owned(),
                rec.content_type.clone().unwrap_or_default(),
            ),
            ("Content-Length".to_owned(), h.length.to_string()),
        ];
        self.block(rec, h.length, start);
    }

    /// Find the end of the header at `pos`: the index just past its blank line.
    fn header_end(&mut self) -> Option<usize> {
        let mut from = self.pos;
        loop {
            let hay = self.buf.get(from..).unwrap_or_default();
            if let Some(p) = memchr::memchr(b'\n', hay) {
                let i = from + p;
                // Need the three bytes after the newline to decide.
                if self.buf.len() < i + 4 && !self.seg_end {
                    let rel = i - self.pos;
                    if !self.fill() && !self.active {
                        return None;
                    }
                    from = self.pos + rel;
                    continue;
                }
                match (
                    self.buf.get(i + 1),
                    self.buf.get(i + 2),
                    self.buf.get(i + 3),
                ) {
                    (Some(b'\n'), _, _) => return Some(i + 2),
                    (Some(b'\r'), Some(b'\n'), _) => return Some(i + 3),
                    (Some(b'\r'), Some(b'\r'), Some(b'\n')) => return Some(i + 4),
                    _ => from = i + 1,
                }
            } else {
                from = self.buf.len();
                if from - self.pos > MAX_HEADER {
                    return None;
                }
                let rel = from - self.pos;
                if !self.fill() {
                    return None;
                }
                from = self.pos + rel;
            }
            if from - self.pos > MAX_HEADER {
                return None;
            }
        }
    }

    fn record(&mut self) {
        let start = self.here();
        let offset = self.offset_of(start);
        let Some(hend) = self.header_end() else {
            if !self.active {
                return;
            }
            let msg = if self.seg_end {
                "record header not ended by a blank line"
            } else {
                "record header too long"
            };
            self.pos += 1;
            self.skip_to_warc_line();
            self.issue(offset, Severity::Warning, msg.to_owned());
            return;
        };
        let head = self.buf.get(self.pos..hend).unwrap_or_default();
        let ends = line_ends(head);
        let (rec, length) = header_record(head, offset);
        for (k, (seen, what)) in [(ends.0, "LF"), (ends.1, "CR CR LF")]
            .into_iter()
            .enumerate()
        {
            if seen && !self.warned_ends[k] {
                self.warned_ends[k] = true;
                self.issue(
                    offset,
                    Severity::Warning,
                    format!("record header lines end in {what}: read (not reported again for this input)"),
                );
            }
        }
        self.pos = hend;
        let Some(len) = length else {
            self.skip_to_warc_line();
            self.issue(
                offset,
                Severity::Warning,
                "record header without a valid Content-Length: record skipped".to_owned(),
            );
            return;
        };
        self.block(rec, len, start);
    }

    /// Read the block of `len` bytes at `pos` into `rec` and yield it, with
    /// its [`Record::length`]: the record started at `start` in the segment.
    fn block(&mut self, rec: Record, len: u64, start: u64) {
        self.seg_records += 1;
        let first = self.seg_records == 1;
        let before = self.out.len();
        self.block_body(rec, len);
        let Some(at) = (before..self.out.len()).find(|&i| matches!(self.out.get(i), Some(Ok(_))))
        else {
            return;
        };
        let broke = self.out.range(before..).any(|i| {
            matches!(
                i,
                Err(Issue {
                    severity: Severity::Error,
                    ..
                })
            )
        });
        let length = if broke || !self.active {
            // The member or input broke off inside the record.
            None
        } else if self.gzip() {
            // Alone in its member, or not fetchable alone.
            self.member_length().filter(|_| first)
        } else {
            Some(self.here().saturating_sub(start))
        };
        if let Some(Ok(rec)) = self.out.get_mut(at) {
            rec.length = length;
        }
    }

    /// After a record in gzip (or LZ4) input: the compressed length of its
    /// member when nothing but blank lines follows the record in it, else
    /// `None` (the member holds other records too, or breaks off).
    fn member_length(&mut self) -> Option<u64> {
        loop {
            while let Some(&b) = self.buf.get(self.pos) {
                if matches!(b, b'\r' | b'\n' | b' ' | b'\t') {
                    self.pos += 1;
                } else {
                    return None;
                }
            }
            if !self.fill() {
                break;
            }
        }
        if !self.active {
            return None;
        }
        let src = self.src.as_ref()?;
        Some(src.segment_end()?.saturating_sub(src.segment_start()))
    }

    /// Read the block of `len` bytes at `pos` into `rec` and yield it.
    fn block_body(&mut self, mut rec: Record, len: u64) {
        let offset = rec.offset;
        rec.content_length = len;
        let block_start = self.here();
        // The block: keep up to max_block bytes, skip the rest.
        let keep = usize::try_from(len)
            .unwrap_or(usize::MAX)
            .min(self.max_block);
        let left = self.read_block(&mut rec, len, keep);
        if !self.active {
            // The member failed inside the record (`fill` reported it): the
            // part inflated before the break is read.
            if !rec.block.is_empty() {
                rec.truncated = true;
                self.out.push_back(Ok(rec));
            }
            return;
        }
        let at = BlockAt {
            len,
            start: block_start,
            capped: rec.block.len() as u64 >= keep as u64 && (keep as u64) < len,
        };
        if left > 0 {
            self.block_cut_short(rec, at, left);
            return;
        }
        if at.capped {
            rec.truncated = true;
            self.issue(
                offset,
                Severity::Warning,
                format!("block of {len} bytes capped at {keep}"),
            );
        }
        self.block_end(rec, at);
    }

    /// Read up to `len` block bytes, keeping the first `keep` in `rec`;
    /// how many of the `len` the input did not have.
    fn read_block(&mut self, rec: &mut Record, len: u64, keep: usize) -> u64 {
        let mut left = len;
        while left > 0 {
            if self.pos >= self.buf.len() && !self.fill() {
                break;
            }
            let avail = self.buf.len() - self.pos;
            let n = usize::try_from(left).unwrap_or(usize::MAX).min(avail);
            let take = n.min(keep - rec.block.len());
            rec.block
                .extend_from_slice(self.buf.get(self.pos..self.pos + take).unwrap_or_default());
            self.pos += n;
            left -= n as u64;
        }
        left
    }

    /// A block the input (or its gzip member) ends inside, `left` bytes
    /// short: yielded with a warning, cut where a record starts inside it.
    fn block_cut_short(&mut self, mut rec: Record, at: BlockAt, left: u64) {
        let (offset, len, block_start, capped) = (rec.offset, at.len, at.start, at.capped);
        rec.truncated = true;
        // A shorter block may hide the next records: rescan it.
        if let Some(cut) = self.rescan_block(&rec.block, block_start, capped) {
            rec.block.truncate(cut);
            self.issue(
                offset,
                Severity::Warning,
                format!("Content-Length {len} lies: a record starts inside the block"),
            );
        } else if self.gzip() {
            // The member's end is the record's: drop its blank line.
            if rec.block.ends_with(b"\r\n\r\n") {
                rec.block.truncate(rec.block.len() - 4);
            }
            self.issue(
                offset,
                Severity::Warning,
                format!(
                    "Content-Length {len} runs past the end of the gzip member ({} bytes)",
                    len - left
                ),
            );
        } else {
            self.issue(
                offset,
                Severity::Error,
                format!(
                    "input ends inside a record: {} of {len} block bytes",
                    len - left
                ),
            );
        }
        self.out.push_back(Ok(rec));
    }

    /// After a whole block: its blank line, then the next record; a
    /// Content-Length that lies is repaired, with a warning.
    fn block_end(&mut self, mut rec: Record, at: BlockAt) {
        let (offset, len) = (rec.offset, at.len);
        // The block ends with a blank line: CRLF CRLF (be lenient: up to
        // six CR/LF, for CR CR LF line ends), then the next record or the
        // end of the segment.
        self.want(6 + 7);
        let mut k = 0;
        while k < 6 && matches!(self.buf.get(self.pos + k), Some(b'\r' | b'\n')) {
            k += 1;
        }
        let rest = self.buf.get(self.pos + k..).unwrap_or_default();
        // An ARC record ends with one LF; the next header is checked there.
        let ends_well = k > 0
            && (rest.is_empty() || rest.starts_with(b"WARC/") || self.arc == Some(true))
            || k == 0 && rest.is_empty();
        if ends_well || !self.active {
            if k % 2 == 1 && !rest.is_empty() && self.arc != Some(true) {
                // An odd blank line: the block took the rest of it (a
                // Content-Length a few bytes long).
                let tail = rec
                    .block
                    .iter()
                    .rev()
                    .take_while(|&&b| matches!(b, b'\r' | b'\n'));
                let over = tail.count().min(4 - k);
                rec.block.truncate(rec.block.len() - over);
                self.issue(
                    offset,
                    Severity::Warning,
                    format!(
                        "Content-Length {len} runs {over} bytes into the blank line after the block"
                    ),
                );
            }
            self.pos += k;
            self.out.push_back(Ok(rec));
            return;
        }
        if self.arc == Some(true) {
            // The next line is read as a header, or skipped with a warning.
            self.issue(
                offset,
                Severity::Warning,
                format!("ARC record of length {len} not followed by a newline"),
            );
            self.out.push_back(Ok(rec));
            return;
        }
        self.block_length_lies(rec, at);
    }

    /// A block not followed by a blank line: Content-Length lies, too short
    /// (the rest is not a record) or too long (the block swallowed the next
    /// records). The block is cut or extended to the next record.
    fn block_length_lies(&mut self, mut rec: Record, at: BlockAt) {
        let (offset, len, block_start, capped) = (rec.offset, at.len, at.start, at.capped);
        if let Some(cut) = self.rescan_block(&rec.block, block_start, capped) {
            rec.block.truncate(cut);
            rec.truncated = true;
        } else if let Some(n) = self.next_record_near() {
            // A few bytes short: the block runs to the blank line before
            // the next record.
            let ext = self.buf.get(self.pos..self.pos + n).unwrap_or_default();
            let ext = [&b"\r\r\n\r\r\n"[..], b"\r\n\r\n", b"\n\n"]
                .iter()
                .find_map(|end| ext.strip_suffix(*end))
                .unwrap_or(ext);
            if !capped {
                let room = self
                    .max_block
                    .saturating_sub(rec.block.len())
                    .min(ext.len());
                rec.block
                    .extend_from_slice(ext.get(..room).unwrap_or_default());
            }
            let short = ext.len();
            self.pos += n;
            self.issue(
                offset,
                Severity::Warning,
                format!(
                    "Content-Length {len} is {short} bytes short: the block is read to the next record"
                ),
            );
            self.out.push_back(Ok(rec));
            return;
        } else {
            self.skip_to_warc_line();
        }
        self.issue(
            offset,
            Severity::Warning,
            format!("block of Content-Length {len} not followed by a blank line"),
        );
        self.out.push_back(Ok(rec));
    }

    /// The bytes before the next record, when one starts within
    /// [`SHORT_LENGTH_SLACK`] bytes of `pos` (at a line start), or the
    /// gzip member ends there.
    fn next_record_near(&mut self) -> Option<usize> {
        self.want(SHORT_LENGTH_SLACK + WARC_LINE.len() + 2);
        let hay = self.buf.get(self.pos..).unwrap_or_default();
        if matches!(hay, [b'W', b'A', b'R', b'C', b'/', d, b'.', ..] if d.is_ascii_digit()) {
            return Some(0);
        }
        let near = hay
            .get(..SHORT_LENGTH_SLACK + WARC_LINE.len() + 2)
            .unwrap_or(hay);
        match find_warc_line(near) {
            Ok(p) => Some(p + 1),
            // In gzip input the member's end is the record's.
            Err(_) if self.gzip() && self.seg_end && hay.len() <= SHORT_LENGTH_SLACK => {
                Some(hay.len())
            }
            Err(_) => None,
        }
    }

    /// Look for a record line (`WARC/` and a version) inside a block just read; if one is found,
    /// put the bytes from there back in front of the unread input and return
    /// where the block really ends (before the blank line that precedes the
    /// record found). Bounded by `rescan_budget`, so linear overall.
    fn rescan_block(&mut self, block: &[u8], block_start: u64, capped: bool) -> Option<usize> {
        if capped || self.rescan_budget < block.len() as u64 {
            return None;
        }
        self.rescan_budget -= block.len() as u64;
        const PAT: usize = WARC_LINE.len() + 2;
        let p = match find_warc_line(block) {
            Ok(p) => p,
            Err(_) => {
                // The next record may start just before the block's end
                // (a Content-Length a few bytes too long): search across it.
                self.want(PAT);
                let tail = block.len().saturating_sub(PAT - 1);
                let mut seam = block.get(tail..).unwrap_or_default().to_vec();
                let ahead = self.buf.get(self.pos..).unwrap_or_default();
                seam.extend_from_slice(ahead.get(..PAT).unwrap_or(ahead));
                let q = find_warc_line(&seam).ok()?;
                if tail + q >= block.len() {
                    return None;
                }
                tail + q
            }
        };
        let from = p + 1;
        let back = block.get(from..).unwrap_or_default();
        let mut nb = Vec::with_capacity(back.len() + self.buf.len() - self.pos);
        nb.extend_from_slice(back);
        nb.extend_from_slice(self.buf.get(self.pos..).unwrap_or_default());
        self.buf = nb;
        self.pos = 0;
        self.base = block_start + from as u64;
        let mut cut = from;
        while cut > 0 && matches!(block.get(cut - 1), Some(b'\r' | b'\n')) && from - cut < 4 {
            cut -= 1;
        }
        Some(cut)
    }
}

/// The fields of an ARC record header line.
struct ArcHeader {
    url: String,
    ip: String,
    /// As WARC writes it: `2014-02-16T05:02:21Z`.
    date: String,
    content_type: String,
    length: u64,
}

/// Parse an ARC header line, version 1 (`URL IP DATE TYPE LENGTH`) or 2
/// (`URL IP DATE TYPE STATUS CHECKSUM LOCATION OFFSET FILENAME LENGTH`),
/// from the right, so that a URL with spaces is kept whole.
fn parse_arc_header(line: &[u8]) -> Option<ArcHeader> {
    let line = std::str::from_utf8(line).ok()?;
    let fields: Vec<&str> = line.split(' ').collect();
    // A negative length (some writers put -1 for an empty record) is 0.
    let length: i64 = fields.last()?.parse().ok()?;
    let length = u64::try_from(length).unwrap_or(0);
    let date_like = |d: &str| (8..=18).contains(&d.len()) && d.bytes().all(|b| b.is_ascii_digit());
    // The fields after the URL, version 2 first.
    let rest = [9usize, 4].into_iter().find(|&n| {
        fields.len() > n
            && fields
                .get(fields.len() - n + 1)
                .is_some_and(|d| date_like(d))
    })?;
    let k = fields.len() - rest;
    let url = fields.get(..k)?.join(" ");
    if !url.contains(':') {
        return None;
    }
    // 14 digits (shorter dates padded with zeros), as WARC-Date.
    let d = format!(
        "{:0<14}",
        fields.get(k + 1)?.get(..14).unwrap_or(fields.get(k + 1)?)
    );
    let p = |a: usize, b: usize| d.get(a..b).unwrap_or("00");
    let date = format!(
        "{}-{}-{}T{}:{}:{}Z",
        p(0, 4),
        p(4, 6),
        p(6, 8),
        p(8, 10),
        p(10, 12),
        p(12, 14)
    );
    Some(ArcHeader {
        url,
        ip: (*fields.get(k)?).to_owned(),
        date,
        content_type: (*fields.get(k + 2)?).to_owned(),
        length,
    })
}

/// Whether a record header's lines end in bare LF, and in CR CR LF.
fn line_ends(head: &[u8]) -> (bool, bool) {
    let (mut lf, mut crcr) = (false, false);
    for nl in memchr::memchr_iter(b'\n', head) {
        match (
            nl.checked_sub(2).and_then(|k| head.get(k)),
            nl.checked_sub(1).and_then(|k| head.get(k)),
        ) {
            (Some(b'\r'), Some(b'\r')) => crcr = true,
            (_, Some(b'\r')) => {}
            _ => lf = true,
        }
    }
    (lf, crcr)
}

impl<R: Read> Iterator for Reader<R> {
    type Item = Result<Record, Issue>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(x) = self.out.pop_front() {
                return Some(x);
            }
            if !self.step() {
                return self.out.pop_front();
            }
        }
    }
}

/// The record a header (its first line, the version, skipped) describes,
/// without its block; and its Content-Length, if valid. Folded lines are
/// joined; `WARC-Target-URI` loses the `<...>` some writers put around it.
fn header_record(head: &[u8], offset: u64) -> (Record, Option<u64>) {
    let mut rec = Record {
        offset,
        ..Record::default()
    };
    let mut length: Option<u64> = None;
    for line in head.split(|&b| b == b'\n').skip(1) {
        let line = crate::http::trim_cr(line);
        if line.is_empty() {
            continue;
        }
        if matches!(line.first(), Some(b' ' | b'\t')) {
            if let Some((_, v)) = rec.headers.last_mut() {
                v.push(' ');
                v.push_str(String::from_utf8_lossy(line).trim());
            }
            continue;
        }
        let Some(colon) = memchr::memchr(b':', line) else {
            continue;
        };
        let name = String::from_utf8_lossy(line.get(..colon).unwrap_or_default())
            .trim()
            .to_owned();
        let value = String::from_utf8_lossy(line.get(colon + 1..).unwrap_or_default())
            .trim()
            .to_owned();
        if name.eq_ignore_ascii_case("Content-Length") {
            length = value.parse().ok();
        }
        rec.headers.push((name, value));
    }
    let get = |r: &Record, n: &str| r.header(n).map(str::to_owned);
    rec.warc_type = get(&rec, "WARC-Type").unwrap_or_default();
    rec.target_uri = get(&rec, "WARC-Target-URI").map(|u| {
        u.strip_prefix('<')
            .and_then(|u| u.strip_suffix('>'))
            .map_or(u.clone(), str::to_owned)
    });
    rec.record_id = get(&rec, "WARC-Record-ID");
    rec.date = get(&rec, "WARC-Date");
    rec.content_type = get(&rec, "Content-Type");
    (rec, length)
}

/// Where a block is, for the checks after it is read.
#[derive(Clone, Copy, Debug)]
struct BlockAt {
    /// Its Content-Length.
    len: u64,
    /// Its first byte's offset in the input.
    start: u64,
    /// Only its first `max_block` bytes were kept.
    capped: bool,
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use proptest::prelude::*;

    use super::*;

    fn member(text: &[u8], level: u32) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
        e.write_all(text).unwrap();
        e.finish().unwrap()
    }

    fn record(body: &[u8]) -> Vec<u8> {
        let mut r = format!(
            "WARC/1.1\r\nWARC-Type: resource\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        r.extend_from_slice(body);
        r.extend_from_slice(b"\r\n\r\n");
        r
    }

    /// One piece of a gzip archive, good or bad.
    fn piece(kind: u8, n: usize) -> Vec<u8> {
        const TEXT: &[u8] = b"ab <\x1f\x8b\x08> cd\n";
        let body: Vec<u8> = (0..n).map(|k| TEXT[k % TEXT.len()]).collect();
        let rec = record(&body);
        match kind % 8 {
            // Stored blocks: the magic in the text is in the deflate data.
            0 => member(&rec, 0),
            1 => member(&rec, 6),
            2 => member(b"", 6),
            3 => vec![0; n % 40],
            4 => {
                let mut m = member(&rec, 1);
                m.truncate(m.len() * 2 / 3);
                m
            }
            5 => {
                let mut m = member(&rec, 1);
                let k = m.len() / 2;
                m[k] ^= 0x55;
                m
            }
            6 => {
                // A trailer with a wrong CRC-32 or size.
                let mut m = member(&rec, 6);
                let k = m.len() - if n.is_multiple_of(2) { 8 } else { 4 };
                m[k] ^= 1;
                m
            }
            _ => b"not gzip \x1f\x8b".to_vec(),
        }
    }

    proptest! {
        #[test]
        fn whole_members_read_as_streamed(parts in proptest::collection::vec((any::<u8>(), prop_oneof![0..40usize, 0..3000usize]), 1..8)) {
            let mut input = member(&record(b"first"), 6);
            for (kind, n) in parts {
                input.extend(piece(kind, n));
            }
            let whole: Vec<_> = Reader::new(&input[..]).collect();
            let streamed: Vec<_> = Reader::new(&input[..]).streaming_only().collect();
            prop_assert_eq!(whole, streamed);
        }
    }

    /// libdeflate reads only the first member of an extent; a corrupt copy
    /// after junk ends with that member's trailer bytes, and must not make
    /// the three read as one member (the junk and the corrupt copy are
    /// reported, as when streamed).
    #[test]
    fn a_member_and_a_corrupt_copy_are_not_one_member() {
        let input = [piece(1, 19), piece(3, 1), piece(5, 19)].concat();
        let whole: Vec<_> = Reader::new(&input[..]).collect();
        let streamed: Vec<_> = Reader::new(&input[..]).streaming_only().collect();
        assert_eq!(whole, streamed);
        assert_eq!(whole.iter().filter(|r| r.is_err()).count(), 2, "{whole:?}");
    }

    #[test]
    fn whole_members_keep_offsets() {
        let a = member(&record(b"x \x1f\x8b\x08 y"), 0);
        let b = member(&record(b"second"), 9);
        let input = [a.clone(), b].concat();
        let recs: Vec<_> = Reader::new(&input[..]).map(Result::unwrap).collect();
        assert_eq!(recs.len(), 2);
        assert_eq!((recs[0].offset, recs[1].offset), (0, a.len() as u64));
        assert_eq!(recs[0].block, b"x \x1f\x8b\x08 y");
    }

    /// Each record's `offset .. offset + length` is that record alone: read
    /// back, it gives the same record (its offset 0, its length the same).
    fn slices_read_back(input: &[u8]) -> usize {
        let items: Vec<_> = Reader::new(input).collect();
        // A record warned about (a Content-Length that lies) is read alone
        // by its header: its block may differ.
        let warned = |off: u64| items.iter().any(|i| matches!(i, Err(e) if e.offset == off));
        let mut n = 0;
        for r in items.iter().filter_map(|i| i.as_ref().ok()) {
            let Some(len) = r.length else { continue };
            let slice = &input[r.offset as usize..(r.offset + len) as usize];
            let back: Vec<_> = Reader::new(slice).filter_map(Result::ok).collect();
            assert_eq!(back.len(), 1, "{:?} at {}", r.target_uri, r.offset);
            let b = &back[0];
            assert_eq!(b.headers, r.headers, "at {}", r.offset);
            if !warned(r.offset) {
                assert_eq!((b.offset, b.length), (0, Some(len)), "at {}", r.offset);
                assert!(b.block == r.block, "at {}", r.offset);
            }
            n += 1;
        }
        n
    }

    #[test]
    fn a_record_is_its_offset_and_length() {
        let plain = [record(b"one"), b"\r\n".to_vec(), record(b"two")].concat();
        let recs: Vec<_> = Reader::new(&plain[..]).map(Result::unwrap).collect();
        // The blank lines after a record are its own.
        let first = record(b"one").len() as u64 + 2;
        assert_eq!(recs[0].length, Some(first));
        assert_eq!(recs[1].offset, first);
        assert_eq!(recs[1].length, Some(plain.len() as u64 - first));
        assert_eq!(slices_read_back(&plain), 2);
        let (a, b) = (member(&record(b"one"), 6), member(&record(b"two"), 0));
        let gz = [a.clone(), b.clone()].concat();
        for input in [
            Reader::new(&gz[..]).collect::<Vec<_>>(),
            Reader::new(&gz[..]).streaming_only().collect(),
        ] {
            let lens: Vec<_> = input.iter().map(|r| r.as_ref().unwrap().length).collect();
            assert_eq!(lens, [Some(a.len() as u64), Some(b.len() as u64)]);
        }
        assert_eq!(slices_read_back(&gz), 2);
        // One member for both: neither can be fetched alone.
        let whole = member(&plain, 6);
        let lens: Vec<_> = Reader::new(&whole[..]).map(|r| r.unwrap().length).collect();
        assert_eq!(lens, [None, None]);
        // A member cut short: the part read has no length.
        let mut cut = gz.clone();
        cut.truncate(a.len() + b.len() / 2);
        let lens: Vec<_> = Reader::new(&cut[..])
            .filter_map(Result::ok)
            .map(|r| r.length)
            .collect();
        assert_eq!(lens[0], Some(a.len() as u64));
        assert!(lens[1..].iter().all(Option::is_none), "{lens:?}");
    }

    #[test]
    fn committed_archives_slice_into_their_records() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
        let mut n = 0;
        for d in [dir.to_owned(), format!("{dir}/others")] {
            for e in std::fs::read_dir(d).unwrap() {
                let p = e.unwrap().path();
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                // An ARC record read alone lacks the file's `filedesc://`
                // header that says it is ARC.
                let arc = name.ends_with(".arc") || name.ends_with(".arc.gz");
                let data = [".warc", ".warc.gz", ".warc.lz4", ".wet"]
                    .iter()
                    .any(|x| name.ends_with(x));
                if data && !arc {
                    n += slices_read_back(&std::fs::read(&p).unwrap());
                }
            }
        }
        assert!(n > 100, "{n}");
    }
}
