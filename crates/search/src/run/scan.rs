//! One input scanned: opened, read as text, mail, HTML or a web archive,
//! and its records sent on in order.

use std::io::{self, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::SyncSender;

use std::path::Path;

use super::format::{RecordFormatter, RecordSender, format_chunk, format_mail};
use super::html::{read_html, scan_html};
use super::warc::scan_warc;
use super::{Config, HtmlMode, InputEnd, InputKind, Msg, RunShared};
use crate::input::{Data, Opened, Source, Stream};
use urlsift_core::{Finder, Found, Report};
use urlsift_mail::{MailBatch, MailInput};

/// Fails every read once the run is stopping, or the input has taken all
/// the URLs it may (`-m`), so a stream scan ends early.
pub(super) struct StopReader<'a, R> {
    pub(super) inner: R,
    pub(super) stop: &'a AtomicBool,
    pub(super) full: &'a AtomicBool,
}

impl<R: Read> Read for StopReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.stop.load(Ordering::Relaxed) || self.full.load(Ordering::Relaxed) {
            return Err(io::Error::other("stopped"));
        }
        self.inner.read(buf)
    }
}

/// How one opened input is read: decided once, by [`Reading::choose`], for
/// every kind of input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// A web archive, record by record.
    WebArchive,
    /// Mail (`--mail`): its messages' decoded headers and text parts.
    Mail,
    /// Under `--mail`, an input that does not start like mail (no mbox
    /// `From ` line, no header): plain text, each URL in its one part.
    MailAsText,
    /// An HTML page: its links resolved against the page.
    Html,
    /// Plain text.
    Text,
}

impl Reading {
    /// How an input starting with `head` is read: a web archive as one
    /// (`web_archive`, judged when it was opened), else as mail with
    /// `mail` (or as the plain text it is, when it does not start like
    /// mail), else as HTML when `html` says so, else as text.
    ///
    /// ```
    /// use urlsift_search::run::{HtmlMode, Reading};
    /// let html = b"<!doctype html><a href=x>";
    /// assert_eq!(Reading::choose(html, false, false, HtmlMode::Auto), Reading::Html);
    /// assert_eq!(Reading::choose(html, false, false, HtmlMode::Never), Reading::Text);
    /// assert_eq!(Reading::choose(html, true, false, HtmlMode::Auto), Reading::WebArchive);
    /// assert_eq!(Reading::choose(b"From: a@b\n\nx", false, true, HtmlMode::Auto), Reading::Mail);
    /// assert_eq!(Reading::choose(b"just text", false, true, HtmlMode::Auto), Reading::MailAsText);
    /// ```
    pub fn choose(head: &[u8], web_archive: bool, mail: bool, html: HtmlMode) -> Reading {
        if web_archive {
            Reading::WebArchive
        } else if mail && urlsift_mail::is_plain_text(head) {
            Reading::MailAsText
        } else if mail {
            Reading::Mail
        } else if html.is_html(head) {
            Reading::Html
        } else {
            Reading::Text
        }
    }

    /// What `--stats` counts the input as.
    pub fn kind(self) -> InputKind {
        match self {
            Reading::WebArchive => InputKind::WebArchive,
            Reading::Mail => InputKind::Mail,
            Reading::Html => InputKind::Html,
            Reading::MailAsText | Reading::Text => InputKind::Text,
        }
    }
}

/// One input being read: what the reader of every kind needs besides its
/// bytes and where its records go.
pub(super) struct InputScan<'a> {
    pub(super) cfg: &'a Config<'a>,
    pub(super) name: &'a str,
    path: Option<&'a Path>,
    pub(super) stop: &'a AtomicBool,
    /// Set when the input has taken all the URLs it may (`-m`, `-l`).
    full: &'a AtomicBool,
    /// The run's count of web archive payloads not read.
    skipped: &'a super::SkippedPayloads,
}

impl<'a> InputScan<'a> {
    /// `r`, failing every read once the run stops or the input is full.
    fn stopping<R>(&self, inner: R) -> StopReader<'a, R> {
        StopReader {
            inner,
            stop: self.stop,
            full: self.full,
        }
    }

    /// Whether the scan was told to stop (a read that failed then was told to).
    fn stopped_on_purpose(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.full.load(Ordering::Relaxed)
    }

    /// Report a streamed file's size as done.
    fn progress_file(&self) {
        if let (Some(p), Some(path)) = (self.cfg.progress, self.path) {
            p(std::fs::metadata(path).map_or(0, |m| m.len()));
        }
    }
}

/// Scan one input and send its batches, then its end (or what went
/// wrong), on `tx`.
pub(super) fn scan_source(run: &RunShared<'_>, src: &Source, tx: &SyncSender<Msg>) {
    let (cfg, name) = (run.cfg, src.name());
    let counter = Arc::new(AtomicU64::new(0));
    let mut opened = match open_source(cfg, src, &counter) {
        Ok(o) => o,
        Err(end) => return send_unread(tx, end),
    };
    if let (Some(_), Opened::Stream(r)) = (cfg.mail, &mut opened) {
        // Mail is judged by the whole head, however the stream paused (or
        // by what came before a pause, when more changes nothing).
        r.complete_head(urlsift_mail::mbox::decided_early);
    }
    let (head, web_archive) = match &opened {
        Opened::Whole(data) => (&data[..], false),
        Opened::Stream(r) => (r.head(), false),
        Opened::Warc(_) => (&[][..], true),
    };
    let reading = Reading::choose(head, web_archive, cfg.mail.is_some(), cfg.html);
    let mail_like = reading == Reading::Text
        && matches!(&opened, Opened::Whole(d) if urlsift_mail::looks_like_mail(&name, d));
    if let (Reading::MailAsText, Some(mail)) = (reading, cfg.mail) {
        mail.plain_text();
        urlsift_core::report!("{}", urlsift_mail::not_mail_message(&name));
    }
    // The input's size as stored: a whole file's length; a regular file
    // read as a stream (compressed, an archive, --no-mmap) is sized after.
    let whole_len = match &opened {
        Opened::Whole(data) => Some(data.len() as u64),
        _ => None,
    };
    let full = AtomicBool::new(false);
    let path = src.path();
    let input = InputScan {
        cfg,
        name: &name,
        path,
        stop: run.stop,
        full: &full,
        skipped: run.skipped,
    };
    let mut emit = RecordSender::new(run, &name, tx, &full, reading == Reading::MailAsText);
    let error = read_input(&input, reading, opened, &mut emit);
    emit.send();
    if emit.failed {
        return; // the consumer is gone
    }
    let bytes = whole_len.unwrap_or_else(|| stored_size(path, &counter));
    let _ = tx.send(Msg::End(InputEnd {
        count: emit.count,
        opened: true,
        error,
        mail_like,
        read: Some((reading.kind(), bytes)),
    }));
}

/// A streamed input's size as stored: a regular file's length, else the
/// bytes that were read from it.
fn stored_size(path: Option<&Path>, read: &AtomicU64) -> u64 {
    let file = path
        .and_then(|p| std::fs::metadata(p).ok())
        .filter(|m| m.is_file());
    file.map_or_else(|| read.load(Ordering::Relaxed), |m| m.len())
}

/// An input that was not read: it failed to open, or `-m 0` takes nothing
/// from it (it is only opened, and named if it cannot be).
struct Unread {
    opened: bool,
    error: Option<String>,
}

/// Send the end of an input that was not read.
fn send_unread(tx: &SyncSender<Msg>, end: Unread) {
    let _ = tx.send(Msg::End(InputEnd {
        count: 0,
        opened: end.opened,
        error: end.error,
        mail_like: false,
        read: None,
    }));
}

/// Open `src` to be read, counting the bytes read of a stream in `counter`.
fn open_source(cfg: &Config<'_>, src: &Source, counter: &Arc<AtomicU64>) -> Result<Opened, Unread> {
    let failed = |e: &dyn std::fmt::Display| Unread {
        opened: false,
        error: Some(format!("{}: {e}", src.name())),
    };
    if let Source::Error(e) = src {
        return Err(Unread {
            opened: false,
            error: Some(e.clone()),
        });
    }
    if cfg.max_count == Some(0) {
        // grep's -m 0: an input takes no URL, so none is read.
        return Err(match crate::input::check_source(src) {
            Ok(()) => Unread {
                opened: true,
                error: None,
            },
            Err(e) => failed(&e),
        });
    }
    crate::input::open_source_counting(src, cfg.mmap, Some(counter)).map_err(|e| failed(&e))
}

/// Read `opened` as `reading` says, its records to `emit`; what went
/// wrong, if anything.
fn read_input(
    input: &InputScan<'_>,
    reading: Reading,
    opened: Opened,
    emit: &mut RecordSender<'_>,
) -> Option<String> {
    let (cfg, name) = (input.cfg, input.name);
    match (reading, opened) {
        (_, Opened::Warc(r)) => scan_warc(
            cfg,
            name,
            input.stopping(r),
            emit,
            (input.stop, input.skipped),
        ),
        (Reading::Mail, opened) => scan_mail(input, opened, emit),
        (Reading::Html, Opened::Whole(data)) => {
            let error = scan_html(cfg, name, &data, None::<io::Empty>, emit);
            if let Some(p) = cfg.progress {
                p(data.len() as u64);
            }
            error
        }
        (Reading::Html, Opened::Stream(r)) => {
            let error = read_html(cfg, name, input.stopping(r), emit);
            input.progress_file();
            error
        }
        (_, Opened::Whole(data)) => {
            scan_whole(cfg, &data, emit, input.stop);
            None
        }
        (_, Opened::Stream(r)) => {
            let error = scan_stream(input, r, emit);
            input.progress_file();
            error
        }
    }
}

/// Read a mail input: its messages' records, in order.
fn scan_mail(input: &InputScan<'_>, opened: Opened, emit: &mut RecordSender<'_>) -> Option<String> {
    let mail = input.cfg.mail.unwrap_or_else(|| unreachable!());
    // A stream stops being read once the run stops, as a plain stream does.
    let mail_input = match opened {
        Opened::Whole(ref data) => MailInput::Whole(data),
        Opened::Stream(r) => MailInput::Stream(Box::new(input.stopping(r))),
        Opened::Warc(r) => MailInput::Stream(Box::new(input.stopping(r))),
    };
    let parts = MailParts::new(input.cfg);
    let mut problems = MailProblems {
        name: input.name,
        seen: 0,
    };
    let on_problem = |p: &urlsift_mail::Problem| problems.report(p);
    let end = read_mail(input, (mail, &parts), mail_input, emit, on_problem);
    let error = problems.end(end);
    if input.stopped_on_purpose() {
        // Stopped on purpose: the read that failed was told to.
        return None;
    }
    error
}

/// How a mail input's decoded parts are scanned: text by the run's
/// extractor, HTML by the HTML reader with the options of HTML files
/// (`--base`, `--links-only`).
struct MailParts<'c> {
    extractor: &'c urlsift_core::Extractor,
    links: urlsift_warc::LinkOptions,
}

impl<'c> MailParts<'c> {
    fn new(cfg: &'c Config<'_>) -> Self {
        MailParts {
            extractor: &cfg.extractor,
            links: urlsift_warc::LinkOptions {
                base: cfg.base.clone(),
                ..cfg.link_options()
            },
        }
    }
}

impl urlsift_mail::PartReader for MailParts<'_> {
    fn read(
        &self,
        part: urlsift_mail::PartText<'_>,
        found: &mut dyn FnMut(urlsift_core::Match<'_>),
    ) {
        match part.kind {
            urlsift_mail::PartKind::Text => {
                urlsift_mail::PartReader::read(self.extractor, part, found)
            }
            urlsift_mail::PartKind::Html => {
                urlsift_mail::html_part_urls(part.text, &self.links, found)
            }
        }
    }
}

/// The problems of one mail input, reported as they come: the first
/// [`urlsift_mail::MAX_PROBLEMS_SHOWN`], then how many more there were.
struct MailProblems<'n> {
    name: &'n str,
    seen: u64,
}

impl MailProblems<'_> {
    fn report(&mut self, p: &urlsift_mail::Problem) {
        self.seen += 1;
        if self.seen <= urlsift_mail::MAX_PROBLEMS_SHOWN {
            urlsift_core::report!("{}", p.describe(self.name));
        }
    }

    /// The input's end reported: the problems not shown, a warning for an
    /// input that is not mail; the read error, if any.
    fn end(self, end: urlsift_mail::MailEnd) -> Option<String> {
        let name = self.name;
        if self.seen > urlsift_mail::MAX_PROBLEMS_SHOWN {
            let more = self.seen - urlsift_mail::MAX_PROBLEMS_SHOWN;
            urlsift_core::report!("{name}: {more} more problems not shown");
        }
        if end.not_mail {
            urlsift_core::report!("{}", urlsift_mail::not_mail_message(name));
        }
        end.error
    }
}

/// Each batch of messages formatted on the pool, as a chunk of a plain
/// file is, and taken in order until the input has what it may take (or
/// the run stops). Each batch is sent as it is made: at a pause, what was
/// sent is flushed.
fn read_mail(
    input: &InputScan<'_>,
    (mail, parts): (&urlsift_mail::MailRun, &MailParts<'_>),
    mail_input: MailInput<'_>,
    emit: &mut RecordSender<'_>,
    on_problem: impl FnMut(&urlsift_mail::Problem),
) -> urlsift_mail::MailEnd {
    let cfg = input.cfg;
    let (file, plan, spares) = (emit.formatter.file, emit.formatter.plan, emit.spares);
    let (tx, limit) = (emit.tx, emit.limit());
    mail.scan_map(
        parts,
        input.name,
        mail_input,
        (
            |b: &MailBatch<'_>| {
                let f = RecordFormatter::new(cfg, file, plan).limit(limit);
                format_mail(f, b, spares)
            },
            |unit, _: &MailBatch<'_>| emit.take(unit) && !emit.stopped(),
        ),
        on_problem,
        || tx.send(Msg::Flush).is_ok(),
    )
}

/// Read a text stream block by block; what went wrong reading it, if
/// anything but being told to stop.
fn scan_stream(input: &InputScan<'_>, r: Stream, emit: &mut RecordSender<'_>) -> Option<String> {
    let r = input.stopping(r);
    let res = if input.cfg.column {
        scan_stream_columns(input.cfg, r, emit)
    } else {
        if input.cfg.quiet {
            // A stream is read no further than its first URL.
            emit.max = Some(emit.max.map_or(1, |m| m.min(1)));
        }
        scan_stream_units(input.cfg, r, emit)
    };
    match res {
        Err(e) if !input.stopped_on_purpose() => Some(format!("{}: {e}", input.name)),
        _ => None,
    }
}

/// As for a mapped file: each chunk of a block formatted on the pool, and
/// taken in order until the input has what it may take (or the run
/// stops). Each batch is sent as it is made: at a pause, what was sent is
/// flushed.
fn scan_stream_units(
    cfg: &Config<'_>,
    r: impl Read + Send,
    emit: &mut RecordSender<'_>,
) -> io::Result<u64> {
    let (file, plan, spares) = (emit.formatter.file, emit.formatter.plan, emit.spares);
    let text = emit.formatter.in_text_part();
    let uses_line = emit.formatter.uses_line();
    let (tx, limit) = (emit.tx, emit.limit());
    let finder = Finder::from(cfg.extractor).chunk_size(cfg.chunk_size);
    finder.lines(uses_line).map_reader(
        r,
        |chunk| {
            let f = RecordFormatter::new(cfg, file, plan).text_part(text);
            format_chunk(f.limit(limit), chunk, uses_line, spares)
        },
        Pausing {
            take: |unit| emit.take(unit) && !emit.stopped(),
            paused: || tx.send(Msg::Flush).is_ok(),
        },
    )
}

/// A [`Report`] whose `take` and `paused` are closures.
struct Pausing<T, P> {
    take: T,
    paused: P,
}

impl<I, T: FnMut(I) -> bool, P: FnMut() -> bool> Report<I> for Pausing<T, P> {
    fn take(&mut self, item: I) -> bool {
        (self.take)(item)
    }

    fn paused(&mut self) -> bool {
        (self.paused)()
    }
}

/// `--vimgrep`: each record's column counts from the text before it, so
/// the records are taken one by one, in order; the stream is read no
/// further once the input has what it may take (or the run stops).
fn scan_stream_columns(
    cfg: &Config<'_>,
    r: impl Read + Send,
    emit: &mut RecordSender<'_>,
) -> io::Result<u64> {
    let emit = std::cell::RefCell::new(emit);
    let paused = || {
        let mut emit = emit.borrow_mut();
        emit.send();
        !emit.failed && emit.tx.send(Msg::Flush).is_ok()
    };
    let take = |Found { m, line, column }: Found<'_>| {
        let mut emit = emit.borrow_mut();
        emit.record_at(&m, (line, column), None, None);
        !emit.stopped()
    };
    let finder = Finder::from(cfg.extractor).chunk_size(cfg.chunk_size);
    finder
        .columns(true)
        .scan_reader(r, Pausing { take, paused })
}

/// Bytes before the end of a segment kept mapped when the segment is done
/// with: the next segment's scan may look back into them.
pub(super) const RELEASE_MARGIN: usize = 64 << 10;

/// The least a mapped file's pages are let go at a time.
const RELEASE_STEP: usize = 32 << 20;

/// Scan a whole (mapped) file in segments of a few batches of chunks
/// ([`Finder::scan`]), so a stop request is seen within one
/// segment; the result is that of one scan over the whole file.
pub(super) fn scan_whole(
    cfg: &Config<'_>,
    whole: &Data,
    emit: &mut RecordSender<'_>,
    stop: &AtomicBool,
) {
    let seg = 2usize
        .saturating_mul(cfg.threads.max(1))
        .saturating_mul(cfg.chunk_size.max(1))
        .max(64);
    if cfg.column {
        scan_whole_columns(cfg, whole, seg, emit, stop);
    } else {
        scan_whole_units(cfg, whole, seg, emit, stop);
    }
}

/// Report `n` more bytes done.
fn progress(cfg: &Config<'_>, n: usize) {
    if let Some(p) = cfg.progress {
        p(n as u64);
    }
}

/// Each chunk's records are formatted on the pool, in parallel; this
/// thread only takes them in input order ([`RecordSender::take`]) and
/// sends them on. The scan stops after the segment in which the input has
/// what it may take, or the run stops.
fn scan_whole_units(
    cfg: &Config<'_>,
    whole: &Data,
    seg: usize,
    emit: &mut RecordSender<'_>,
    stop: &AtomicBool,
) {
    let data: &[u8] = whole;
    let f = &emit.formatter;
    let (file, plan, spares) = (f.file, f.plan, emit.spares);
    let text = f.in_text_part();
    // Counting lines is a pass over the text: only when they are printed.
    let uses_line = f.uses_line();
    let (limit, full) = (emit.limit(), emit.full);
    // The pages of each segment done with are let go (a segment's records
    // are formatted, so its text is not read again but for a little
    // look-behind): the map's resident pages stay few, and they are not all
    // unmapped at once, on one thread, when it is closed. With more than one
    // thread, on the pool while the next segment is scanned.
    let pool = rayon::current_num_threads() > 1;
    let (mut pos, mut released) = (0, 0);
    let finder = Finder::from(cfg.extractor).chunk_size(cfg.chunk_size);
    let finder = finder.segment_size(seg).lines(uses_line);
    rayon::in_place_scope(|s| {
        finder.map(
            data,
            |chunk| {
                let f = RecordFormatter::new(cfg, file, plan).text_part(text);
                format_chunk(f.limit(limit), chunk, uses_line, spares)
            },
            Segments {
                take: |unit| emit.take(unit),
                scanned: |n| {
                    progress(cfg, n);
                    pos += n;
                    // A few times a gigabyte, on huge page bounds: each release
                    // interrupts the other threads (a TLB flush).
                    let to = whole.release_point(pos.saturating_sub(RELEASE_MARGIN));
                    if to >= released + RELEASE_STEP {
                        let from = released;
                        if pool {
                            s.spawn(move |_| whole.done_with(from..to));
                        } else {
                            whole.done_with(from..to);
                        }
                        released = to;
                    }
                    !(stop.load(Ordering::Relaxed) || full.load(Ordering::Relaxed))
                },
            },
        );
    });
}

/// `--vimgrep`: each record taken in order, as its column counts from the
/// record before.
fn scan_whole_columns(
    cfg: &Config<'_>,
    whole: &Data,
    seg: usize,
    emit: &mut RecordSender<'_>,
    stop: &AtomicBool,
) {
    let data: &[u8] = whole;
    let uses_line = emit.formatter.uses_line();
    let failed = std::cell::Cell::new(false);
    let emit_full = emit.full;
    let finder = Finder::from(cfg.extractor).chunk_size(cfg.chunk_size);
    let finder = finder.segment_size(seg).lines(uses_line).columns(true);
    finder.scan(
        data,
        Segments {
            take: |Found { m, line, column }: Found<'_>| {
                emit.record_at(&m, (line, column), None, None);
                failed.set(emit.failed);
                true
            },
            scanned: |n| {
                progress(cfg, n);
                !(stop.load(Ordering::Relaxed) || failed.get() || emit_full.load(Ordering::Relaxed))
            },
        },
    );
}

/// A [`Report`] whose `take` and `scanned` are closures.
struct Segments<T, S> {
    take: T,
    scanned: S,
}

impl<I, T: FnMut(I) -> bool, S: FnMut(usize) -> bool> Report<I> for Segments<T, S> {
    fn take(&mut self, item: I) -> bool {
        (self.take)(item)
    }

    fn scanned(&mut self, bytes: usize) -> bool {
        (self.scanned)(bytes)
    }
}
