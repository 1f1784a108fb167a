//! One input scanned: opened, read as text, mail, HTML or a web archive,
//! and its records sent on in order.

use std::io::{self, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::SyncSender;

use super::format::{Emit, Former, Spares, format_chunk, format_mail};
use super::html::{read_html, scan_html};
use super::warc::scan_warc;
use super::{BATCH, Config, InputKind, Msg};
use crate::input::{Data, Opened, Source};
use urlsift_core::parallel::{self, LineCounter};
use urlsift_mail::MailInput;
use urlsift_printer::pipeline::{Batch, Plan};

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

/// Scan one input and send its batches, then its end (or what went
/// wrong), on `tx`.
pub(super) fn scan_source(
    cfg: &Config<'_>,
    src: &Source,
    (shards, spares): (usize, &Spares),
    tx: &SyncSender<Msg>,
    stop: &AtomicBool,
) {
    let name = src.name();
    let end = |count, opened, error, mail_like| {
        let _ = tx.send(Msg::End {
            count,
            opened,
            error,
            mail_like,
            read: None,
        });
    };
    let path = match src {
        Source::Error(e) => return end(0, false, Some(e.clone()), false),
        other => other.path(),
    };
    if cfg.max_count == Some(0) {
        // grep's -m 0: an input takes no URL, so none is read; it is only
        // opened, and named if it cannot be.
        return match crate::input::check_source(src) {
            Ok(()) => end(0, true, None, false),
            Err(e) => end(0, false, Some(format!("{name}: {e}")), false),
        };
    }
    let counter = Arc::new(AtomicU64::new(0));
    let mut opened = match crate::input::open_source_counting(src, cfg.mmap, Some(&counter)) {
        Ok(o) => o,
        Err(e) => return end(0, false, Some(format!("{name}: {e}")), false),
    };
    if let (Some(_), Opened::Stream(r)) = (cfg.mail, &mut opened) {
        // Mail is judged by the whole head, however the stream paused (or
        // by what came before a pause, when more changes nothing).
        r.complete_head(urlsift_mail::mbox::decided_early);
    }
    // Under `--mail`, an input that does not start like mail (no mbox
    // `From ` line, no header) is scanned as the plain text it is: in
    // parallel, a stream block by block; each URL in its one part. A file
    // is judged by the head a stream is, so both are read alike.
    let text = cfg.mail.filter(|_| match &opened {
        Opened::Whole(data) => urlsift_mail::is_plain_text(data),
        Opened::Stream(r) => urlsift_mail::is_plain_text(r.head()),
        Opened::Warc(_) => false,
    });
    if let Some(run) = text {
        run.plain_text(&name);
    }
    let full = AtomicBool::new(false);
    let mut plan = Plan::new(&cfg.opts, shards, cfg.quiet || cfg.list.is_some());
    plan.shard_by = cfg.shard_by;
    let mut emit = Emit {
        former: Former::new(cfg, &name, plan).text_part(text.is_some()),
        batch: Batch::with_capacity(BATCH + 1024),
        tx,
        stop,
        count: 0,
        failed: false,
        max: if cfg.list.is_some() {
            Some(cfg.max_count.map_or(1, |m| m.min(1)))
        } else {
            cfg.max_count
        },
        full: &full,
        spares,
    };
    let mut error = None;
    let mut mail_like = false;
    // The input's size as stored: a whole file's length; a regular file
    // read as a stream (compressed, an archive, --no-mmap) is sized after.
    let mut bytes = match &opened {
        Opened::Whole(data) => Some(data.len() as u64),
        _ => None,
    };
    let kind;
    match opened {
        Opened::Warc(r) => {
            kind = InputKind::WebArchive;
            let r = StopReader {
                inner: r,
                stop,
                full: &full,
            };
            error = scan_warc(cfg, &name, r, &mut emit, stop);
        }
        o if cfg.mail.is_some() && text.is_none() => {
            kind = InputKind::Mail;
            let run = cfg.mail.unwrap_or_else(|| unreachable!());
            // A stream stops being read once the run stops, as a plain
            // stream does.
            let stopping = |inner: Box<dyn Read + Send>| StopReader {
                inner,
                stop,
                full: &full,
            };
            let input = match o {
                Opened::Whole(ref data) => MailInput::Whole(data),
                Opened::Stream(r) => MailInput::Stream(Box::new(stopping(Box::new(r)))),
                Opened::Warc(r) => MailInput::Stream(Box::new(stopping(r))),
            };
            error = if emit.parallel() {
                // Each batch of messages formatted on the pool, as a chunk
                // of a plain file is. Each batch is sent as it is made: at a
                // pause, what was sent is flushed.
                let (file, plan) = (emit.former.file, emit.former.plan);
                let tx = emit.tx;
                run.scan_map(
                    &cfg.extractor,
                    &name,
                    input,
                    |b| format_mail(Former::new(cfg, file, plan), b, spares),
                    |batch, _| emit.take(batch) && !emit.stopped(),
                    || tx.send(Msg::Flush).is_ok(),
                )
            } else {
                // -m, -l, -q: the scan stops once the input has what it may
                // take (or the run stops), as a plain stream's does.
                let emit = std::cell::RefCell::new(&mut emit);
                run.scan_map(
                    &cfg.extractor,
                    &name,
                    input,
                    |_| (),
                    |(), b| {
                        let mut emit = emit.borrow_mut();
                        if cfg.column {
                            b.each_at(|w, line, column, m| {
                                emit.record_at(m, (line, column), Some(w), None)
                            });
                        } else {
                            b.each(|w, line, m| emit.record_in(m, line, Some(w)));
                        }
                        !emit.stopped()
                    },
                    || {
                        let mut emit = emit.borrow_mut();
                        emit.send();
                        !emit.failed && emit.tx.send(Msg::Flush).is_ok()
                    },
                )
            };
            if stop.load(Ordering::Relaxed) || full.load(Ordering::Relaxed) {
                // Stopped on purpose: the read that failed was told to.
                error = None;
            }
        }
        Opened::Whole(data) if text.is_none() && cfg.html.is_html(&data) => {
            kind = InputKind::Html;
            error = scan_html(cfg, &name, &data, None::<io::Empty>, &mut emit);
            if let Some(p) = cfg.progress {
                p(data.len() as u64);
            }
        }
        Opened::Stream(r) if text.is_none() && cfg.html.is_html(r.head()) => {
            kind = InputKind::Html;
            let r = StopReader {
                inner: r,
                stop,
                full: &full,
            };
            error = read_html(cfg, &name, r, &mut emit);
            if let (Some(p), Some(path)) = (cfg.progress, path) {
                p(std::fs::metadata(path).map_or(0, |m| m.len()));
            }
        }
        Opened::Whole(data) => {
            kind = InputKind::Text;
            mail_like = text.is_none() && urlsift_mail::looks_like_mail(&name, &data);
            scan_whole(cfg, &data, &mut emit, stop)
        }
        Opened::Stream(r) => {
            kind = InputKind::Text;
            let r = StopReader {
                inner: r,
                stop,
                full: &full,
            };
            let block = parallel::DEFAULT_BLOCK_SIZE;
            let ex = &cfg.extractor;
            let res = if emit.parallel() {
                // As for a mapped file: each chunk of a block formatted on
                // the pool.
                let (file, plan) = (emit.former.file, emit.former.plan);
                let text = emit.former.in_text_part();
                let uses_line = emit.former.uses_line();
                // Each batch is sent as it is made: at a pause, what was
                // sent is flushed.
                let tx = emit.tx;
                parallel::scan_reader_map(
                    ex,
                    r,
                    (block, cfg.chunk_size),
                    uses_line,
                    |chunk| {
                        let f = Former::new(cfg, file, plan).text_part(text);
                        format_chunk(f, chunk, uses_line, spares)
                    },
                    |batch| emit.take(batch),
                    || tx.send(Msg::Flush).is_ok(),
                )
            } else {
                // -m, -l, -q: the stream is read no further once the
                // input has what it may take (or the run stops).
                let emit = std::cell::RefCell::new(&mut emit);
                let paused = || {
                    let mut emit = emit.borrow_mut();
                    emit.send();
                    !emit.failed && emit.tx.send(Msg::Flush).is_ok()
                };
                if cfg.column {
                    parallel::scan_reader_columns(
                        ex,
                        r,
                        (block, cfg.chunk_size),
                        |m, line, column| {
                            let mut emit = emit.borrow_mut();
                            emit.record_at(m, (line, column), None, None);
                            !emit.stopped()
                        },
                        paused,
                    )
                } else {
                    parallel::scan_reader_while(
                        ex,
                        r,
                        block,
                        cfg.chunk_size,
                        |m, line| {
                            let mut emit = emit.borrow_mut();
                            emit.record(m, line);
                            !emit.stopped()
                        },
                        paused,
                    )
                }
            };
            match res {
                Ok(_) => {}
                Err(_) if stop.load(Ordering::Relaxed) || full.load(Ordering::Relaxed) => {}
                Err(e) => error = Some(format!("{name}: {e}")),
            }
            if let (Some(p), Some(path)) = (cfg.progress, path) {
                p(std::fs::metadata(path).map_or(0, |m| m.len()));
            }
        }
    }
    emit.send();
    if emit.failed {
        return; // the consumer is gone
    }
    if bytes.is_none() {
        let file = path
            .and_then(|p| std::fs::metadata(p).ok())
            .filter(|m| m.is_file());
        bytes = Some(file.map_or_else(|| counter.load(Ordering::Relaxed), |m| m.len()));
    }
    let _ = tx.send(Msg::End {
        count: emit.count,
        opened: true,
        error,
        mail_like,
        read: Some((kind, bytes.unwrap_or(0))),
    });
}

/// Bytes before the end of a segment kept mapped when the segment is done
/// with: the next segment's scan may look back into them.
pub(super) const RELEASE_MARGIN: usize = 64 << 10;

/// The least a mapped file's pages are let go at a time.
const RELEASE_STEP: usize = 32 << 20;

/// Scan a whole (mapped) file in segments of a few batches of chunks
/// ([`parallel::scan_segments`]), so a stop request is seen within one
/// segment; the result is that of one scan over the whole file.
pub(super) fn scan_whole(cfg: &Config<'_>, whole: &Data, emit: &mut Emit<'_>, stop: &AtomicBool) {
    let data: &[u8] = whole;
    let ex = &cfg.extractor;
    let seg = 2usize
        .saturating_mul(cfg.threads.max(1))
        .saturating_mul(cfg.chunk_size.max(1))
        .max(64);
    // Counting lines is a pass over the text: only when they are printed.
    let uses_line = emit.former.uses_line();
    let progress = |n: usize| {
        if let Some(p) = cfg.progress {
            p(n as u64);
        }
    };
    if emit.parallel() {
        // Each chunk's records are formatted on the pool, in parallel; this
        // thread only sends the batches on, in input order.
        let (file, plan, spares) = (emit.former.file, emit.former.plan, emit.spares);
        let text = emit.former.in_text_part();
        // The pages of each segment done with are let go (a segment's
        // records are formatted, so its text is not read again but for a
        // little look-behind): the map's resident pages stay few, and they
        // are not all unmapped at once, on one thread, when it is closed.
        // With more than one thread, on the pool while the next segment is
        // scanned.
        let pool = rayon::current_num_threads() > 1;
        let (mut pos, mut released) = (0, 0);
        rayon::in_place_scope(|s| {
            parallel::scan_segments_map(
                ex,
                data,
                seg,
                cfg.chunk_size,
                uses_line,
                |chunk| {
                    let f = Former::new(cfg, file, plan).text_part(text);
                    format_chunk(f, chunk, uses_line, spares)
                },
                |batch| emit.take(batch) && !stop.load(Ordering::Relaxed),
                |n| {
                    progress(n);
                    pos += n;
                    // A few times a gigabyte, on huge page bounds: each
                    // release interrupts the other threads (a TLB flush).
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
                    !stop.load(Ordering::Relaxed)
                },
            );
        });
        return;
    }
    let mut lines = LineCounter::default();
    let mut columns = parallel::ColumnCounter::default();
    let failed = std::cell::Cell::new(false);
    let emit_full = emit.full;
    parallel::scan_segments(
        ex,
        data,
        seg,
        cfg.chunk_size,
        |m| {
            let line = if uses_line {
                lines.line_at(data, m.start)
            } else {
                0
            };
            let column = if cfg.column {
                columns.column_at(data, m.start)
            } else {
                0
            };
            emit.record_at(&m, (line, column), None, None);
            failed.set(emit.failed);
        },
        |n| {
            progress(n);
            !(stop.load(Ordering::Relaxed) || failed.get() || emit_full.load(Ordering::Relaxed))
        },
    );
}
