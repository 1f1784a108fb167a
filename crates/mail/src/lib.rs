//! Mail and news archives (`--mail`): mbox (mboxrd), maildir files, single
//! `.eml` messages and news articles, scanned MIME-aware.
//!
//! Each message's structure is read by the fastest path that handles it:
//! `simple` for single-part messages, `mime` for well-formed multiparts,
//! and [`mail_parser`] for everything else (`message/rfc822` parts, RFC 2231
//! parameters, broken boundaries, ...); the paths give the same parts. The
//! text parts are then transfer-decoded by `decode` (quoted-printable,
//! base64: faster than mail-parser's own decoders) and converted from their
//! charset to UTF-8 with mail-parser's charset tables (`charset` applies the
//! single-byte ones faster). Then:
//!
//! - the header block is unfolded (RFC 5322 2.2.3), its RFC 2047 encoded
//!   words are decoded (`rfc2047`), and it is scanned, so
//!   `List-Unsubscribe:` and `Archived-At:` URLs are found whole (part 0);
//! - the header block of every MIME part is scanned the same way, as that
//!   part with content type `header` (`Content-Location:` in MHTML,
//!   `message/external-body`'s `URL=`);
//! - every text part is scanned after decoding; text/html parts are read
//!   by the one HTML reader of HTML files and web archives
//!   ([`urlsift_html::decoded_html_links`], in the charset the part's
//!   headers give): URL attributes by the WHATWG attribute-value and
//!   character reference rules (a wrapped `href` is one URL, a quoted
//!   space stays in it, `&amp;` is `&`), resolved against the part's
//!   `<base href>` (left out without one), and every absolute URL of
//!   other attributes, scripts, styles, comments and text;
//! - the text of a multipart outside its parts (the preamble, the delimiter
//!   lines, the epilogue, and whatever a broken structure leaves unplaced,
//!   such as the text before a wrong boundary line) is scanned as it is, as
//!   the multipart holding the part after it (the outermost one for the text
//!   after the last part), with that multipart's content type;
//! - a part in a charset mail-parser does not know is scanned as its
//!   transfer-decoded bytes, as they are, and counted;
//! - non-text parts are skipped and counted.
//!
//! Offsets ([`Match::start`]) refer to the decoded part text; [`MailWhere`]
//! says which message and part, and the file offsets of both. Messages are
//! independent: they are scanned in batches spread over the rayon pool, and
//! reported in file order.
//!
//! ```
//! use urlsift_core::Extractor;
//! let msg = b"Message-ID: <1@x>\nContent-Type: text/plain\nContent-Transfer-Encoding: quoted-printable\n\nsee http://example.com/a?b=3D1&c=\n=3D2 now\n";
//! let mut urls = Vec::new();
//! let stats = urlsift_mail::scan_archive(&Extractor::new(), msg, |w, _line, m| {
//!     urls.push((w.part, m.url_str().into_owned()));
//! }, |_| {});
//! assert_eq!(urls, [(1, "http://example.com/a?b=1&c=2".to_string())]);
//! assert_eq!(stats.messages, 1);
//! ```
#![deny(missing_docs)]
#![warn(clippy::print_stderr, clippy::print_stdout)]

use std::io::{self, Read};
use std::ops::{AddAssign, Range};
use std::sync::Mutex;

use rayon::prelude::*;
use urlsift_core::Match;
use urlsift_core::stream::{Filled, fill};

mod charset;
mod contain;
mod decode;
#[cfg(test)]
mod differential;
pub mod mbox;
mod message;
mod mime;
#[cfg(test)]
mod overlong;
mod part;
#[cfg(test)]
mod props;
mod rfc2047;
mod simple;

pub use part::{PartKind, PartReader, PartText, html_part_urls};
pub use urlsift_origin::MailWhere;

/// Something wrong with a message. It was scanned as far as it could be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The message's 1-based index in its file.
    pub message: u64,
    /// The byte offset in the file where the problem is.
    pub offset: u64,
    /// What is wrong, in one line.
    pub what: String,
}

impl Problem {
    /// The problem as it is reported for the input `name`.
    ///
    /// ```
    /// let p = urlsift_mail::Problem { message: 2, offset: 90, what: "no message headers".into() };
    /// assert_eq!(p.describe("in.mbox"), "in.mbox: byte 90: message 2: no message headers");
    /// ```
    pub fn describe(&self, name: &str) -> String {
        format!(
            "{name}: byte {}: message {}: {}",
            self.offset, self.message, self.what
        )
    }
}

/// What reading one input as mail ([`MailRun::scan_map`]) ended with,
/// besides its URLs and problems.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MailEnd {
    /// The read error that ended a stream early, naming the input and the
    /// byte where it broke.
    pub error: Option<String>,
    /// The input did not start like mail ([`mbox::starts_like_mail`]); it
    /// was read all the same ([`not_mail_message`] says so).
    pub not_mail: bool,
}

/// Counts for `--stats`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MailStats {
    /// Messages read.
    pub messages: u64,
    /// Text parts scanned (header blocks not counted).
    pub parts_scanned: u64,
    /// Non-text parts skipped.
    pub parts_skipped: u64,
    /// Text parts in a charset that was not known (scanned as bytes).
    pub unknown_charset: u64,
    /// Messages with at least one problem.
    pub problem_messages: u64,
    /// Problems in all.
    pub problems: u64,
    /// Bytes of decoded part text scanned.
    pub decoded_bytes: u64,
    /// Inputs that did not start like mail ([`mbox::starts_like_mail`]).
    pub not_mail: u64,
}

impl AddAssign<&MailStats> for MailStats {
    fn add_assign(&mut self, o: &MailStats) {
        self.messages += o.messages;
        self.parts_scanned += o.parts_scanned;
        self.parts_skipped += o.parts_skipped;
        self.unknown_charset += o.unknown_charset;
        self.problem_messages += o.problem_messages;
        self.problems += o.problems;
        self.decoded_bytes += o.decoded_bytes;
        self.not_mail += o.not_mail;
    }
}

impl std::fmt::Display for MailStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} messages, {} text parts scanned ({} bytes decoded), {} non-text parts skipped, \
             {} parts in an unknown charset, {} messages with problems ({} problems)",
            self.messages,
            self.parts_scanned,
            self.decoded_bytes,
            self.parts_skipped,
            self.unknown_charset,
            self.problem_messages,
            self.problems
        )
    }
}

/// One URL found, before it is reported.
#[derive(Debug)]
pub(crate) struct Found {
    /// Index into [`Scanned::wheres`].
    pub part: usize,
    /// 1-based line in the decoded part text.
    pub line: u64,
    /// The match (offsets in the decoded part text).
    pub m: Match<'static>,
    /// Where the URL is in the file: where its bytes are, when they are
    /// written there as they are; else the start of its encoded line.
    pub file_start: u64,
}

/// What scanning some messages gave.
#[derive(Debug, Default)]
pub(crate) struct Scanned {
    /// The parts that had URLs.
    pub wheres: Vec<MailWhere>,
    /// The URLs, in order.
    pub found: Vec<Found>,
    /// The problems, in order.
    pub problems: Vec<Problem>,
    /// Counts.
    pub stats: MailStats,
    /// After the head or a piece of the rest of a message longer than the
    /// cap: where the rest goes on ([`message::scan_rest`]).
    pub rest: Option<message::Rest>,
}

/// Messages are scanned in batches of about this many bytes.
pub(crate) const BATCH_BYTES: usize = 1 << 20;

/// The most bytes of one message read as mail, by default
/// ([`MailRun::max_message`]): a longer message is mail to its last line
/// end within them, and the text rules read the rest, in pieces of this
/// size at most ([`message::scan_message`]). This bounds the memory one
/// message takes, from a file or a stream.
pub(crate) const MAX_MESSAGE: usize = 64 << 20;

/// Scan a whole archive (an mbox, or one message): `on_match(where, line,
/// match)` for every URL in file order, `on_problem` for every problem.
pub fn scan_archive(
    ex: &dyn PartReader,
    data: &[u8],
    mut on_match: impl FnMut(&MailWhere, u64, &Match<'_>),
    on_problem: impl FnMut(&Problem),
) -> MailStats {
    scan_archive_map(
        ex,
        data,
        |_| (),
        |(), b| {
            b.each(&mut on_match);
            true
        },
        on_problem,
    )
}

/// [`scan_archive`], with the work on each batch of messages done in
/// parallel: `map` turns a [`MailBatch`] into a `T` on the rayon pool (it
/// may call [`MailBatch::each`], which gives the batch's URLs as
/// `scan_archive` would), and `sink` takes the results in file order (with
/// their batch), on the calling thread. The scan stops early when `sink`
/// returns false.
pub(crate) fn scan_archive_map<T: Send>(
    ex: &dyn PartReader,
    data: &[u8],
    map: impl Fn(&MailBatch<'_>) -> T + Sync,
    sink: impl FnMut(T, &MailBatch<'_>) -> bool,
    on_problem: impl FnMut(&Problem),
) -> MailStats {
    scan_archive_capped(ex, data, MAX_MESSAGE, (map, sink, on_problem))
}

/// [`scan_archive_map`], with messages read as mail to `cap` bytes: in one
/// scan when none is longer than the cap. A longer one's head, then each
/// piece of its rest ([`scan_long_message`], as a stream cuts them), is
/// scanned and handed on before the next, so only one piece's URLs are
/// held at a time; the messages between such ones are scanned as ever.
fn scan_archive_capped<T: Send>(
    ex: &dyn PartReader,
    data: &[u8],
    cap: usize,
    (map, mut sink, mut on_problem): (
        impl Fn(&MailBatch<'_>) -> T + Sync,
        impl FnMut(T, &MailBatch<'_>) -> bool,
        impl FnMut(&Problem),
    ),
) -> MailStats {
    let mut stats = MailStats::default();
    if data.len() <= cap && data.iter().all(u8::is_ascii_whitespace) {
        // An empty file (a maildir's tmp/ placeholder) holds no message. (A
        // blank one longer than the cap is one, as a stream must have
        // handed its head on before its end.)
        return stats;
    }
    if !mbox::starts_like_mail(data) {
        stats.not_mail += 1;
    }
    let mut at = At {
        offset: 0,
        line: 0,
        index: 0,
        mboxrd: mbox::mbox_start(data).is_some(),
        cap: cap.max(1),
    };
    let ranges = mbox::split(data);
    // `data[pos..end]`, with `items` (offsets in `data`), scanned; false
    // when `sink` stopped the scan.
    let mut scan = |pos: &mut usize, end: usize, items: Vec<Item>| {
        let slice = &data[*pos..end];
        let shifted: Vec<Item> = items.into_iter().map(|i| i.shifted(*pos)).collect();
        let (go, rest) = if shifted.is_empty() {
            (true, None)
        } else {
            scan_messages(
                ex,
                slice,
                &shifted,
                At {
                    offset: *pos as u64,
                    ..at
                },
                (&map, &mut sink),
                &mut on_problem,
                &mut stats,
            )
        };
        if end < data.len() {
            // (The lines of a slice matter only to those after it.)
            at.line += urlsift_core::newlines(slice);
        }
        at.index += shifted
            .iter()
            .filter(|i| !matches!(i, Item::Rest(..)))
            .count() as u64;
        *pos = end;
        (go, rest)
    };
    let (mut pos, mut from) = (0, 0);
    for (k, r) in ranges.iter().enumerate() {
        if r.len() <= at.cap {
            continue;
        }
        let before = ranges[from..k].iter().cloned().map(Item::Message).collect();
        if !scan(&mut pos, r.start, before).0 {
            return stats;
        }
        if !scan_long_message(data, r.clone(), at.cap, &mut pos, &mut scan) {
            return stats;
        }
        from = k + 1;
    }
    let after = ranges[from..].iter().cloned().map(Item::Message).collect();
    scan(&mut pos, data.len(), after);
    stats
}

/// A message longer than the cap, at `msg`: its head, then each piece of
/// its rest (cut as a stream cuts them, [`message::head_len`]) handed to
/// `scan` in turn with the state the one before left; false when the sink
/// stopped the scan.
fn scan_long_message(
    data: &[u8],
    msg: Range<usize>,
    cap: usize,
    pos: &mut usize,
    scan: &mut impl FnMut(&mut usize, usize, Vec<Item>) -> (bool, Option<message::Rest>),
) -> bool {
    let head = msg.start + message::head_len(&data[msg.clone()], cap);
    let (go, mut rest) = scan(pos, head, vec![Item::Head(msg.start..head)]);
    if !go {
        return false;
    }
    while *pos < msg.end {
        let left = &data[*pos..msg.end];
        let n = if left.len() > cap {
            message::head_len(left, cap)
        } else {
            left.len()
        };
        let Some(state) = rest.take() else { break };
        let piece = *pos..*pos + n;
        let (go, next) = scan(pos, piece.end, vec![Item::Rest(piece, state)]);
        if !go {
            return false;
        }
        rest = next;
    }
    true
}

/// How much a stream is read at a time, by default
/// ([`MailRun::block_size`]).
pub(crate) const STREAM_BLOCK: usize = urlsift_core::DEFAULT_BLOCK_SIZE;

/// Scan an archive read from a stream (standard input, gzip), `block`
/// bytes at a time (see [`MailRun::scan_map`]), counting into `stats`,
/// which keep what was counted before a read error. Complete messages are
/// scanned as they arrive, so memory is bounded by `block` plus `cap` (the
/// rest of a longer message is read as text, a piece at a time); the
/// output is the same as [`scan_archive`] on the whole input. While a
/// block's messages are scanned, the next block is read on a thread of its
/// own.
fn read_archive<R: Read + Send, T: Send>(
    ex: &dyn PartReader,
    mut r: R,
    (block, cap): (usize, usize),
    (map, mut sink, mut on_problem, mut paused): (
        impl Fn(&MailBatch<'_>) -> T + Sync,
        impl FnMut(T, &MailBatch<'_>) -> bool,
        impl FnMut(&Problem),
        impl FnMut() -> bool,
    ),
    stats: &mut MailStats,
) -> io::Result<()> {
    let mut s = StreamRead::new(block, cap);
    // The next block, read while the messages before it are scanned.
    let mut ahead: Option<io::Result<Filled>> = None;
    loop {
        let read = ahead.take().unwrap_or_else(|| s.fill(&mut r));
        let (eof, pause, failed) = s.outcome(read);
        s.pause_after = 0;
        s.judge(eof, stats);
        let units = s.units();
        let mut items = s.items(&units);
        if eof {
            if s.holds_a_message() {
                let consumers = (&map, &mut sink);
                scan_messages(ex, &s.buf, &items, s.at, consumers, &mut on_problem, stats);
            }
            return failed.map_or(Ok(()), Err);
        }
        // Scan every unit but the last, which may be incomplete; of that,
        // a piece of the cap, once more than the cap of it is sure to
        // belong to it. Otherwise read on.
        let Some((cut, is_long)) = s.cut(&units, &mut items) else {
            s.let_go_of_from_line(units.len());
            // At a pause, what was found before is handed on all the same,
            // and the next read waits for more.
            if !s.go_on_after(pause, &mut paused) {
                return Ok(());
            }
            continue;
        };
        // In the rest of a long message, the bytes just before it are
        // kept, to read a `From ` line right after them.
        let keep_behind = if is_long { cut.min(2) } else { 0 };
        let drop = cut - keep_behind;
        // Unless at a pause, the next block is read while these are scanned.
        let want = if pause { 0 } else { s.start_next(drop) };
        let mut carried = None;
        let mut scan = || {
            let consumers = (&map, &mut sink);
            let (go, r) =
                scan_messages(ex, &s.buf, &items, s.at, consumers, &mut on_problem, stats);
            carried = r;
            go
        };
        let go = if pause {
            // At a pause, the next read waits for the source: it is not
            // read ahead.
            scan()
        } else {
            // The next block is read while these messages are scanned
            // (after them, when no thread is to be had).
            let (go, read) = fill(&mut r, &mut s.next, (want, Some(0)), Some(scan));
            ahead = Some(read);
            go
        };
        if !go {
            return Ok(());
        }
        let rest = if is_long { carried } else { None };
        s.advance((drop, keep_behind), rest, &items, ahead.is_some());
        if !s.go_on_after(pause, &mut paused) {
            return Ok(());
        }
    }
}

/// Where [`read_archive`] is in its stream.
struct StreamRead {
    /// Bytes read at a time.
    block: usize,
    /// The most bytes of a message read as mail.
    cap: usize,
    /// What was read and not yet let go.
    buf: Vec<u8>,
    /// Where `buf` lies in the file.
    at: At,
    /// Whether the stream is an mbox is not known yet.
    first: bool,
    /// Whether the stream starts like mail was judged.
    judged: bool,
    /// When `buf` is within the rest of a message longer than the cap
    /// (past its head, or a piece of the rest): where the rest goes on.
    rest: Option<message::Rest>,
    /// How many bytes before that rest `buf` keeps (whether a `From ` line
    /// right after them follows a blank line).
    behind: usize,
    /// `buf` starts within the `From ` line of its first message.
    in_from_line: bool,
    /// The next block, read while the messages before it are scanned.
    next: Vec<u8>,
    /// A pause ends a read once the buffer holds more than this: after a
    /// pause, only once something new came.
    pause_after: usize,
}

impl StreamRead {
    fn new(block: usize, cap: usize) -> Self {
        let cap = cap.max(1);
        StreamRead {
            block: block.max(1),
            cap,
            buf: Vec::new(),
            at: At {
                offset: 0,
                line: 0,
                index: 0,
                mboxrd: false,
                cap,
            },
            first: true,
            judged: false,
            rest: None,
            behind: 0,
            in_from_line: false,
            next: Vec::new(),
            pause_after: 0,
        }
    }

    /// After a `pause` of the source, `paused()`, and the next read waits
    /// for more than `buf` holds; false when the reading stops.
    fn go_on_after(&mut self, pause: bool, paused: &mut impl FnMut() -> bool) -> bool {
        if !pause {
            return true;
        }
        self.pause_after = self.buf.len();
        paused()
    }

    /// The next block starts with the last message, maybe incomplete (the
    /// bytes of `buf` from `drop`): how many bytes it wants.
    fn start_next(&mut self, drop: usize) -> usize {
        self.next.clear();
        self.next.extend_from_slice(&self.buf[drop..]);
        self.next.len() + self.block
    }

    /// Read a block more into `buf`, or to a pause.
    fn fill(&mut self, r: &mut (impl Read + Send)) -> io::Result<Filled> {
        let want = self.buf.len() + self.block;
        let no_work = None::<fn() -> bool>;
        fill(r, &mut self.buf, (want, Some(self.pause_after)), no_work).1
    }

    /// What a read gave: the end, a pause, and the error that broke the
    /// stream, saying where. What came before the break is scanned, as the
    /// plain reader does.
    fn outcome(&self, read: io::Result<Filled>) -> (bool, bool, Option<io::Error>) {
        match read {
            Ok(f) => (f == Filled::End, f == Filled::Paused, None),
            Err(e) => {
                let at = self.at.offset + self.buf.len() as u64;
                let e = io::Error::new(e.kind(), format!("at byte {at}: {e}"));
                (true, false, Some(e))
            }
        }
    }

    /// Whether the stream is an mbox, once its start says; whether it is
    /// mail, judged by the whole head, or by what came before a pause when
    /// more cannot change it. Nothing is dropped from `buf` before: only
    /// an mbox is, and its `From ` line decides at once.
    fn judge(&mut self, eof: bool, stats: &mut MailStats) {
        if self.first && (eof || mbox::mbox_start_known(&self.buf)) {
            self.first = false;
            self.at.mboxrd = mbox::mbox_start(&self.buf).is_some();
        }
        if !self.judged && (eof || mbox::decided_early(&self.buf)) {
            self.judged = true;
            if !mbox::starts_like_mail(&self.buf) {
                stats.not_mail += 1;
            }
        }
    }

    /// What `buf` holds: the rest of a long message first, if it is in
    /// one, then messages; the last may be incomplete. Not an mbox: one
    /// message (not sure yet: nothing).
    fn units(&self) -> Vec<Range<usize>> {
        let buf = &self.buf;
        match &self.rest {
            Some(_) if self.at.mboxrd => mbox::split_within(buf, self.behind),
            Some(_) => std::iter::once(self.behind..buf.len()).collect(),
            None if self.first => Vec::new(),
            None if self.at.mboxrd && self.in_from_line => mbox::split_in_from_line(buf),
            None if self.at.mboxrd => mbox::split(buf),
            None => std::iter::once(0..buf.len()).collect(),
        }
    }

    /// The units as items to scan: the first is the rest of a long
    /// message when `buf` is in one.
    fn items(&self, units: &[Range<usize>]) -> Vec<Item> {
        units
            .iter()
            .enumerate()
            .map(|(i, u)| match &self.rest {
                Some(rest) if i == 0 => Item::Rest(u.clone(), rest.clone()),
                _ => Item::Message(u.clone()),
            })
            .collect()
    }

    /// At the end: whether `buf` holds anything to scan. (A `From ` line
    /// let go ended in blanks: still a message.)
    fn holds_a_message(&self) -> bool {
        self.rest.is_some()
            || self.in_from_line
            || self.buf.len() > self.cap
            || !self.buf.iter().all(u8::is_ascii_whitespace)
    }

    /// Where what is scanned now ends, and whether it ends in a piece of a
    /// long message (`items` then ends with that piece); `None` when
    /// nothing can be scanned yet.
    fn cut(&self, units: &[Range<usize>], items: &mut Vec<Item>) -> Option<(usize, bool)> {
        let n = units.len();
        let long = units
            .last()
            .filter(|u| u.len() >= self.cap.saturating_add(mbox::DECIDED_AFTER));
        if let Some(last) = long {
            let piece =
                last.start..last.start + message::head_len(&self.buf[last.clone()], self.cap);
            let end = piece.end;
            let head = match items.pop() {
                Some(Item::Rest(_, rest)) => Item::Rest(piece, rest),
                _ => Item::Head(piece),
            };
            items.push(head);
            Some((end, true))
        } else if n >= 2 {
            items.pop();
            Some((units[n - 2].end, false))
        } else {
            None
        }
    }

    /// A `From ` line that has not ended yet (`units` of `buf`, nothing
    /// to scan): its bytes are never scanned, so all but its last two are
    /// let go (they say whether a `From ` line after it follows a blank
    /// line).
    fn let_go_of_from_line(&mut self, units: usize) {
        if !(self.at.mboxrd && self.rest.is_none() && units == 1) {
            return;
        }
        let from = if self.in_from_line {
            0
        } else {
            mbox::mbox_start(&self.buf).unwrap_or(0)
        };
        if self.buf.len() - from > mbox::DECIDED_AFTER
            && memchr::memchr(b'\n', &self.buf[from..]).is_none()
        {
            let drop = self.buf.len() - 2;
            self.at.line += urlsift_core::newlines(&self.buf[..drop]);
            self.at.offset += drop as u64;
            self.buf.drain(..drop);
            self.in_from_line = true;
        }
    }

    /// After `items` were scanned: `drop` bytes let go, `behind` kept
    /// before a long message's `rest`; the block read ahead, if any, is
    /// the buffer now.
    fn advance(
        &mut self,
        (drop, behind): (usize, usize),
        rest: Option<message::Rest>,
        items: &[Item],
        read_ahead: bool,
    ) {
        self.rest = rest;
        self.behind = behind;
        self.in_from_line = false;
        self.at.line += urlsift_core::newlines(&self.buf[..drop]);
        if read_ahead {
            std::mem::swap(&mut self.buf, &mut self.next);
        } else {
            self.buf.drain(..drop);
        }
        self.at.offset += drop as u64;
        self.at.index += items
            .iter()
            .filter(|i| !matches!(i, Item::Rest(..)))
            .count() as u64;
    }
}

/// Where a slice of an archive lies in its file.
#[derive(Clone, Copy)]
struct At {
    /// File offset of the slice.
    offset: u64,
    /// Lines before it.
    line: u64,
    /// Messages before it.
    index: u64,
    /// The file is an mbox (undo `>From ` quoting).
    mboxrd: bool,
    /// The most bytes of a message read as mail ([`MAX_MESSAGE`]).
    cap: usize,
}

/// 1-based line numbers of offsets in a slice of a file whose first byte
/// is on line `before + 1`: counted forward, and by a binary search over
/// the slice's line starts when an offset comes before the last one.
struct FileLines {
    before: u64,
    pos: usize,
    line: u64,
    starts: Option<Vec<usize>>,
}

impl FileLines {
    fn new(before: u64) -> Self {
        FileLines {
            before,
            pos: 0,
            line: before + 1,
            starts: None,
        }
    }

    fn line_at(&mut self, data: &[u8], at: usize) -> u64 {
        if at >= self.pos {
            self.line += urlsift_core::newlines(&data[self.pos..at]);
            self.pos = at;
            return self.line;
        }
        let starts = self
            .starts
            .get_or_insert_with(|| memchr::memchr_iter(b'\n', data).collect());
        self.before + 1 + starts.partition_point(|&nl| nl < at) as u64
    }
}

/// The URLs of a batch of messages, found in parallel and ready to be
/// reported: [`MailBatch::each`] gives them with their file positions, on
/// whatever thread holds the batch.
pub struct MailBatch<'a> {
    /// What the batch's messages gave (problems and counts taken out).
    scanned: Scanned,
    /// The batch's slice of the scanned buffer.
    data: &'a [u8],
    /// File offset of `data[0]`.
    offset: u64,
    /// Lines before `data[0]`.
    line: u64,
}

impl MailBatch<'_> {
    /// The number of URLs in the batch.
    pub fn len(&self) -> usize {
        self.scanned.found.len()
    }

    /// Whether the batch has no URL.
    pub fn is_empty(&self) -> bool {
        self.scanned.found.is_empty()
    }

    /// The bytes of the batch's URLs, for sizing an output buffer.
    pub fn url_bytes(&self) -> usize {
        self.scanned.found.iter().map(|f| f.m.url.len()).sum()
    }

    /// `on_match(where, line, match)` for each URL of the batch, in file
    /// order: offsets and `line` are file positions, the part's own are in
    /// `where`.
    pub fn each(&self, mut on_match: impl FnMut(&MailWhere, u64, &Match<'_>)) {
        self.each_in(false, |w, line, _, m| on_match(w, line, m));
    }

    /// [`MailBatch::each`], with each URL's 1-based byte column in its line
    /// of the file: `on_match(where, line, column, match)` (for
    /// `--vimgrep`).
    pub fn each_at(&self, on_match: impl FnMut(&MailWhere, u64, u64, &Match<'_>)) {
        self.each_in(true, on_match);
    }

    fn each_in(&self, columns: bool, mut on_match: impl FnMut(&MailWhere, u64, u64, &Match<'_>)) {
        let s = &self.scanned;
        let mut lines = FileLines::new(self.line);
        // A batch starts with a message, so at the start of a line.
        let mut cols = urlsift_core::ColumnCounter::default();
        // The part's record, cloned once per part, not once per URL.
        let mut part: Option<(usize, MailWhere)> = None;
        for f in &s.found {
            if part.as_ref().is_none_or(|(p, _)| *p != f.part) {
                part = Some((f.part, s.wheres[f.part].clone()));
            }
            let Some((_, w)) = part.as_mut() else {
                continue;
            };
            // The record is in file positions; the part's own are kept.
            w.part_start = f.m.start as u64;
            w.part_line = f.line;
            let start = f.file_start.saturating_sub(self.offset) as usize;
            let line = lines.line_at(self.data, start.min(self.data.len()));
            let column = if columns {
                cols.column_at(self.data, start)
            } else {
                0
            };
            let len = f.m.end - f.m.start;
            let start = f.file_start as usize;
            let m = Match {
                start,
                end: start + len,
                url: std::borrow::Cow::Borrowed(&*f.m.url),
                ..f.m
            };
            on_match(w, line, column, &m);
        }
    }
}

/// The most URLs of a [`MailBatch`] mapped at once: a batch with more is
/// cut into parts of this many ([`MailBatch::split`]), mapped in parallel a
/// wave at a time, each wave handed on before the next is mapped. So what
/// the map makes of one batch (its formatted records) is bounded, however
/// dense in URLs a long message is.
const MAP_PART: usize = 1 << 15;

impl<'a> MailBatch<'a> {
    /// The batch cut into batches of at most `most` URLs each, in order,
    /// each giving the same places as the whole batch does.
    fn split(self, most: usize) -> Vec<MailBatch<'a>> {
        let MailBatch {
            scanned,
            data,
            offset,
            line,
        } = self;
        let Scanned {
            wheres, mut found, ..
        } = scanned;
        let most = most.max(1);
        // Cut from the end, so each URL is moved once.
        let mut cut_off = Vec::with_capacity(found.len().div_ceil(most));
        while found.len() > most {
            let at = (found.len() - 1) / most * most;
            cut_off.push(found.split_off(at));
        }
        // The first part's room, the whole batch's, is let go.
        found.shrink_to_fit();
        cut_off.push(found);
        let mut parts = Vec::with_capacity(cut_off.len());
        // Newlines before `counted`, to give each part its first line.
        let (mut counted, mut lines) = (0, 0);
        for part in cut_off.into_iter().rev() {
            // The part's text starts at its first URL (its URLs may come
            // out of file order: at the earliest of them).
            let cut = part
                .iter()
                .map(|f| f.file_start.saturating_sub(offset) as usize)
                .min()
                .unwrap_or(0)
                .min(data.len());
            if cut < counted {
                (counted, lines) = (0, 0);
            }
            lines += urlsift_core::newlines(&data[counted..cut]);
            counted = cut;
            parts.push(MailBatch {
                scanned: Scanned {
                    wheres: wheres.clone(),
                    found: part,
                    ..Scanned::default()
                },
                data: &data[cut..],
                offset: offset + cut as u64,
                line: line + lines,
            });
        }
        parts
    }
}

/// `map` and `sink` over the parts of `batch` ([`MAP_PART`] URLs each),
/// mapped in parallel waves of two per thread, each handed on in order
/// before the next wave is mapped; false if `sink` asked to stop.
fn map_parts<T: Send>(
    batch: MailBatch<'_>,
    map: &(impl Fn(&MailBatch<'_>) -> T + Sync),
    sink: &mut impl FnMut(T, &MailBatch<'_>) -> bool,
) -> bool {
    let parts = batch.split(MAP_PART);
    let wave = 2 * rayon::current_num_threads().max(1);
    for wave in parts.chunks(wave) {
        let mapped: Vec<T> = wave.par_iter().map(map).collect();
        for (t, part) in mapped.into_iter().zip(wave) {
            if !sink(t, part) {
                return false;
            }
        }
    }
    true
}

/// What a range of the buffer is, to [`scan_messages`].
#[derive(Clone, Debug)]
enum Item {
    /// A message, whole (its rest past the cap read as text).
    Message(Range<usize>),
    /// The head of a message longer than the cap, whose end is to come.
    Head(Range<usize>),
    /// Bytes of the rest of such a message, from where it goes on.
    Rest(Range<usize>, message::Rest),
}

impl Item {
    fn range(&self) -> &Range<usize> {
        match self {
            Item::Message(r) | Item::Head(r) | Item::Rest(r, _) => r,
        }
    }

    /// The same item, in a slice starting `by` bytes later.
    fn shifted(self, by: usize) -> Item {
        let shift = |r: Range<usize>| r.start - by..r.end - by;
        match self {
            Item::Message(r) => Item::Message(shift(r)),
            Item::Head(r) => Item::Head(shift(r)),
            Item::Rest(r, rest) => Item::Rest(shift(r), rest),
        }
    }
}

/// Scan `items` of `data` in batches, a window of batches at a time on the
/// pool: the batches are scanned and their newlines counted in parallel,
/// their first lines added up in order, `map` run on each in parallel, and
/// `sink`, problems and counts taken in order. False when `sink` stopped
/// the scan; and, when the last item is a long message's head or rest,
/// where its rest goes on.
fn scan_messages<T: Send>(
    ex: &dyn PartReader,
    data: &[u8],
    items: &[Item],
    at: At,
    (map, sink): (
        &(impl Fn(&MailBatch<'_>) -> T + Sync),
        &mut impl FnMut(T, &MailBatch<'_>) -> bool,
    ),
    on_problem: &mut impl FnMut(&Problem),
    stats: &mut MailStats,
) -> (bool, Option<message::Rest>) {
    let plan = BatchPlan::new(data, items, at);
    let batches = &plan.batches;
    let parser = message::parser();
    let scan_batch = |b: usize| plan.scan(ex, &parser, b);
    let finish = |(b, mut s, line): (usize, Scanned, u64)| {
        let rest = s.rest.take();
        let problems = std::mem::take(&mut s.problems);
        let st = std::mem::take(&mut s.stats);
        let r = plan.slice(b);
        let batch = MailBatch {
            scanned: s,
            offset: at.offset + r.start as u64,
            data: &data[r],
            line,
        };
        // A batch of very many URLs (a long message's piece dense in them)
        // is mapped a part at a time, as it is handed on.
        let t = (batch.len() <= MAP_PART).then(|| map(&batch));
        (t, batch, problems, st, rest)
    };
    // One batch (a small file) is scanned here, without starting the pool.
    let window = if batches.len() <= 1 {
        1
    } else {
        rayon::current_num_threads().max(1) * 4
    };
    let mut line = at.line;
    let mut last = None;
    let all: Vec<usize> = (0..batches.len()).collect();
    for group in all.chunks(window) {
        let scanned: Vec<(Scanned, u64)> = if group.len() <= 1 {
            group.iter().map(|&b| scan_batch(b)).collect()
        } else {
            group.par_iter().map(|&b| scan_batch(b)).collect()
        };
        let mut ready = Vec::with_capacity(group.len());
        for (&b, (s, newlines)) in group.iter().zip(scanned) {
            ready.push((b, s, line));
            line += newlines;
        }
        let done: Vec<_> = if group.len() <= 1 {
            ready.into_iter().map(finish).collect()
        } else {
            ready.into_par_iter().map(finish).collect()
        };
        for (t, batch, problems, st, rest) in done {
            let go = match t {
                Some(t) => sink(t, &batch),
                None => map_parts(batch, map, sink),
            };
            if !go {
                return (false, None);
            }
            for p in &problems {
                on_problem(p);
            }
            *stats += &st;
            last = rest;
        }
    }
    (true, last)
}

/// The items of a slice of an archive, grouped in batches of about
/// [`BATCH_BYTES`] for [`scan_messages`].
struct BatchPlan<'d> {
    data: &'d [u8],
    items: &'d [Item],
    at: At,
    /// Each item's range in `data`.
    ranges: Vec<Range<usize>>,
    /// The batches, as ranges of `items`.
    batches: Vec<Range<usize>>,
    /// The 1-based index of each item's message in the file.
    index: Vec<u64>,
}

impl<'d> BatchPlan<'d> {
    fn new(data: &'d [u8], items: &'d [Item], at: At) -> Self {
        let ranges: Vec<Range<usize>> = items.iter().map(|i| i.range().clone()).collect();
        let batches = batches(&ranges, BATCH_BYTES);
        let mut index = Vec::with_capacity(items.len());
        let mut before = at.index;
        for i in items {
            if !matches!(i, Item::Rest(..)) {
                before += 1;
            }
            index.push(before);
        }
        BatchPlan {
            data,
            items,
            at,
            ranges,
            batches,
            index,
        }
    }

    /// A batch's slice of `data`: from its first message (the start of
    /// `data` for the first batch) to the next batch's first message, so
    /// the slices cover `data` and every newline is counted once.
    fn slice(&self, b: usize) -> Range<usize> {
        let from = if b == 0 {
            0
        } else {
            self.ranges[self.batches[b].start].start
        };
        let to = self
            .batches
            .get(b + 1)
            .map_or(self.data.len(), |n| self.ranges[n.start].start);
        from..to
    }

    /// Batch `b` scanned, and the newlines of its slice.
    fn scan(
        &self,
        ex: &dyn PartReader,
        parser: &mail_parser::MessageParser,
        b: usize,
    ) -> (Scanned, u64) {
        let (data, at) = (self.data, self.at);
        let mut s = Scanned::default();
        for i in self.batches[b].clone() {
            let r = self.ranges[i].clone();
            let place = (at.offset + r.start as u64, self.index[i], at.mboxrd);
            match &self.items[i] {
                Item::Message(_) => {
                    message::scan_message(ex, parser, &data[r], place, at.cap, &mut s);
                    s.rest = None;
                }
                Item::Head(_) => {
                    let rest =
                        message::scan_head(ex, parser, &data[r], place, Some(at.cap), &mut s);
                    s.rest = Some(rest);
                }
                Item::Rest(_, rest) => {
                    let mut rest = rest.clone();
                    message::scan_rest(ex, &data[r], &mut rest, at.cap, &mut s);
                    s.rest = Some(rest);
                }
            }
        }
        let newlines = urlsift_core::newlines(&data[self.slice(b)]);
        (s, newlines)
    }
}

/// Problems a caller shows per file; the rest are only counted (`--stats`).
pub const MAX_PROBLEMS_SHOWN: u64 = 10;

/// One input of a `--mail` run, as it was opened.
pub enum MailInput<'a> {
    /// The whole input is in memory (or mapped).
    Whole(&'a [u8]),
    /// A stream, read block by block.
    Stream(Box<dyn Read + Send + 'a>),
}

/// The state of a `--mail` run shared by the workers: the counts for `--stats`.
#[derive(Debug)]
pub struct MailRun {
    /// Counts over all inputs so far.
    pub stats: Mutex<MailStats>,
    /// The most bytes of one message read as mail (`MAX_MESSAGE` by
    /// default): the rest of a longer one is read as text.
    pub max_message: usize,
    /// The bytes of a stream read at a time (16 MiB by default); the
    /// output does not depend on it.
    pub block_size: usize,
}

impl Default for MailRun {
    fn default() -> Self {
        MailRun {
            stats: Mutex::default(),
            max_message: MAX_MESSAGE,
            block_size: STREAM_BLOCK,
        }
    }
}

impl MailRun {
    /// Scan one opened input as a mail archive or message (a stream block by
    /// block, [`MailRun::block_size`] bytes at a time: complete messages
    /// are scanned as they arrive, so memory is bounded by a block plus
    /// [`MailRun::max_message`], and the output is that of the whole
    /// input). URLs go to `on_match` in order, problems to `on_problem`
    /// (the caller reports them: [`Problem::describe`]); all are counted.
    ///
    /// ```
    /// use urlsift_core::Extractor;
    /// use urlsift_mail::{MailInput, MailRun};
    /// let mbox = b"From a\nSubject: x\n\nsee http://a.example/\n\nFrom b\nSubject: y\n\nhttp://b.example/\n";
    /// let run = MailRun { block_size: 16, ..MailRun::default() };
    /// let mut urls = Vec::new();
    /// let input = MailInput::Stream(Box::new(&mbox[..]));
    /// let end = run.scan(&Extractor::new(), "a.mbox", input, |_, _, m| {
    ///     urls.push(m.url_str().into_owned())
    /// }, |_| {});
    /// assert_eq!(end.error, None);
    /// assert_eq!(urls, ["http://a.example/", "http://b.example/"]);
    /// assert_eq!(run.stats.lock().unwrap().messages, 2);
    /// ```
    pub fn scan(
        &self,
        ex: &dyn PartReader,
        name: &str,
        input: MailInput<'_>,
        mut on_match: impl FnMut(&MailWhere, u64, &Match<'_>),
        on_problem: impl FnMut(&Problem),
    ) -> MailEnd {
        self.scan_map(
            ex,
            name,
            input,
            (
                |_: &MailBatch<'_>| (),
                |(), b: &MailBatch<'_>| {
                    b.each(&mut on_match);
                    true
                },
            ),
            on_problem,
            || true,
        )
    }

    /// [`MailRun::scan`], with each batch of messages mapped on the rayon
    /// pool and the results sunk in file order (`scan_archive_map`); the
    /// scan stops early when `sink` returns false. When a stream pauses,
    /// `paused` is called once the messages it ended before the pause are
    /// sunk (the last message waits for the next `From ` line or the end);
    /// false stops the scan.
    ///
    /// When the source pauses ([`urlsift_core::stream::fill`]: `tail -f`
    /// on an mbox, a slow pipe), the messages that came complete before
    /// the pause (all but the last of an mbox: the next `From ` line ends
    /// it) are scanned at once, without waiting for a whole block, and then
    /// `paused()` is called. The output is the same as ever.
    ///
    /// ```
    /// use urlsift_core::Extractor;
    /// use urlsift_mail::{MailInput, MailRun};
    /// let msg = b"Subject: x\n\nsee http://a.example/\n";
    /// let mut n = 0;
    /// let end = MailRun::default().scan_map(
    ///     &Extractor::new(),
    ///     "a.eml",
    ///     MailInput::Whole(msg),
    ///     (
    ///         |b: &urlsift_mail::MailBatch<'_>| b.len(),
    ///         |k, _: &urlsift_mail::MailBatch<'_>| {
    ///             n += k;
    ///             true
    ///         },
    ///     ),
    ///     |p| panic!("{p:?}"),
    ///     || true,
    /// );
    /// assert_eq!((n, end.error, end.not_mail), (1, None, false));
    /// ```
    pub fn scan_map<T: Send>(
        &self,
        ex: &dyn PartReader,
        name: &str,
        input: MailInput<'_>,
        (map, sink): (
            impl Fn(&MailBatch<'_>) -> T + Sync,
            impl FnMut(T, &MailBatch<'_>) -> bool,
        ),
        on_problem: impl FnMut(&Problem),
        paused: impl FnMut() -> bool,
    ) -> MailEnd {
        let (stats, error) = match input {
            MailInput::Whole(data) => (
                scan_archive_capped(ex, data, self.max_message, (map, sink, on_problem)),
                None,
            ),
            MailInput::Stream(r) => {
                // The counts of what was read before a broken stream's
                // break are kept, as its URLs are.
                let mut stats = MailStats::default();
                let read = read_archive(
                    ex,
                    r,
                    (self.block_size, self.max_message),
                    (map, sink, on_problem, paused),
                    &mut stats,
                );
                (stats, read.err().map(|e| format!("{name}: {e}")))
            }
        };
        if let Ok(mut s) = self.stats.lock() {
            *s += &stats;
        }
        MailEnd {
            // A warning, as every other problem in mail: the text was scanned.
            not_mail: error.is_none() && stats.not_mail > 0,
            error,
        }
    }

    /// An input that is not mail ([`is_plain_text`]), which the caller
    /// scans as plain text rather than with [`MailRun::scan`]: counted in
    /// [`MailStats::not_mail`]; the caller reports it
    /// ([`not_mail_message`]). Its URLs are in no message: give each the
    /// place of [`MailWhere::plain_text`].
    ///
    /// ```
    /// let run = urlsift_mail::MailRun::default();
    /// run.plain_text();
    /// assert_eq!(run.stats.lock().unwrap().not_mail, 1);
    /// ```
    pub fn plain_text(&self) {
        if let Ok(mut s) = self.stats.lock() {
            s.not_mail += 1;
        }
    }
}

/// What is said of an input under `--mail` that is not mail (at its byte
/// 0): see [`is_plain_text`].
pub const NOT_MAIL: &str = "not mail (no mbox From line or header block); scanned as plain text";

/// The warning for the input `name` under `--mail` that is not mail.
///
/// ```
/// assert!(urlsift_mail::not_mail_message("a.txt").starts_with("a.txt: byte 0: not mail"));
/// ```
pub fn not_mail_message(name: &str) -> String {
    format!("{name}: byte 0: {NOT_MAIL}")
}

/// How much of an input's start [`is_plain_text`] reads.
pub const HEAD: usize = 4096;

/// Under `--mail`, whether an input is not mail and is scanned as the
/// plain text it is: its first [`HEAD`] bytes are all blank, or start with
/// neither an mbox `From ` line nor a header block with a mail field
/// (after any blank lines; see [`mbox::starts_like_mail`]). A
/// file and a stream of the same bytes are judged alike, by that head
/// alone.
///
/// ```
/// assert!(urlsift_mail::is_plain_text(b"Apache License\nVersion 2.0\n"));
/// assert!(!urlsift_mail::is_plain_text(b"From a@b Mon Jan  1 00:00:00 2024\n"));
/// assert!(!urlsift_mail::is_plain_text(b"\nSubject: hi\n\nbody\n"));
/// assert!(!urlsift_mail::is_plain_text(b""));
/// // A list of URLs has the shape of a header, but no mail field.
/// assert!(urlsift_mail::is_plain_text(b"http://a.example/\nhttp://b.example/\n"));
/// // Blank as far as the head goes: text, whatever follows.
/// assert!(urlsift_mail::is_plain_text(&[&b"\n".repeat(5000)[..], b"Subject: x\n"].concat()));
/// ```
pub fn is_plain_text(data: &[u8]) -> bool {
    let head = &data[..data.len().min(HEAD)];
    if head.len() == HEAD && head.iter().all(u8::is_ascii_whitespace) {
        // Blank as far as the head goes: no header block can be read at
        // its start (a message is parsed from its first line), so the input
        // is text, scanned as such whatever follows.
        return true;
    }
    !mbox::starts_like_mail(head)
}

/// Plain mode: whether an input looks like mail (an mbox or a message, or
/// a name ending in `.eml`), for a hint that `--mail` reads it better.
///
/// ```
/// assert!(urlsift_mail::looks_like_mail("a.eml", b"hello"));
/// assert!(urlsift_mail::looks_like_mail("inbox", b"From a@b Mon Jan  1 00:00:00 2024\nSubject: x\n\nbody\n"));
/// assert!(!urlsift_mail::looks_like_mail("notes.txt", b"see http://a.example/"));
/// ```
pub fn looks_like_mail(name: &str, data: &[u8]) -> bool {
    let eml = name.len() > 4 && name.as_bytes()[name.len() - 4..].eq_ignore_ascii_case(b".eml");
    eml || mbox::looks_like_mail(data)
}

/// The hint printed (once per run, for the first input in input order that
/// [`looks_like_mail`]).
pub fn hint_message(name: &str) -> String {
    format!("{name}: looks like mail; --mail decodes quoted-printable, base64 and HTML parts")
}

/// Group consecutive messages into batches of at least `bytes` bytes.
fn batches(msgs: &[Range<usize>], bytes: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut size = 0;
    for (i, m) in msgs.iter().enumerate() {
        size += m.len();
        if size >= bytes {
            out.push(start..i + 1);
            start = i + 1;
            size = 0;
        }
    }
    if start < msgs.len() {
        out.push(start..msgs.len());
    }
    out
}

#[cfg(test)]
mod doc_tests {
    use super::*;

    #[test]
    fn scan_archive_map_hands_batches_in_order() {
        let mbox = b"From a@b Mon Jan  1 00:00:00 2024\nSubject: x\n\nsee http://a.example/\n\n\
        From c@d Mon Jan  1 00:00:00 2024\nSubject: y\n\nand http://b.example/\n";
        let mut lines = Vec::new();
        scan_archive_map(
            &urlsift_core::Extractor::new(),
            mbox,
            |b| {
                let mut v = Vec::new();
                b.each(|w, line, m| v.push(format!("{line} {} {}", w.message, m.url_str())));
                v
            },
            |v, _| {
                lines.extend(v);
                true
            },
            |_| {},
        );
        assert_eq!(lines, ["4 1 http://a.example/", "9 2 http://b.example/"]);
    }
}
