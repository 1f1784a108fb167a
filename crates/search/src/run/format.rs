//! Records into batches: the filters, each chunk's own sink, and the
//! batches reused from one chunk to the next.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::SyncSender;

use super::{BATCH, Config, Msg, RunShared, scheme_of};
use urlsift_core::Match;
use urlsift_mail::MailWhere;
use urlsift_printer::{Batch, Plan, Sink};
use urlsift_printer::{Format, Parts, Record, WebWhere};

/// Batches written out, emptied and kept for reuse: the next chunks'
/// records are formatted into memory already touched, not into fresh pages
/// that a batch grows into and frees again. As many are kept as a run has
/// batches alive at once (chunks in flight, batches waiting), so the room
/// held is what the run's busiest moment needed.
pub(super) struct SpareBatches {
    pub(super) free: Mutex<Vec<Batch>>,
    pub(super) max: usize,
}

/// The most room a kept batch may hold: one larger (a chunk of text made
/// of URLs) is freed.
pub(super) const SPARE_ROOM: usize = 16 << 20;

impl SpareBatches {
    /// Keeps at most `max` batches.
    pub(super) fn new(max: usize) -> SpareBatches {
        SpareBatches {
            free: Mutex::new(Vec::new()),
            max,
        }
    }

    /// An empty batch with room for at least `bytes` bytes.
    pub(super) fn take(&self, bytes: usize) -> Batch {
        let kept = self.free.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let mut b = kept.unwrap_or_default();
        b.reserve(bytes);
        b
    }

    /// `b`, written out: kept for [`SpareBatches::take`] if there is room.
    pub(super) fn give(&self, mut b: Batch) {
        if b.capacity() > SPARE_ROOM {
            return;
        }
        b.clear();
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        if free.len() < self.max {
            free.push(b);
        }
    }
}

/// Formats one input's records: the filters (`--strict`, `--scheme`), then
/// the plan's [`Sink`]. A worker has one; each chunk of a file formatted in
/// parallel has its own.
pub(super) struct RecordFormatter<'a> {
    pub(super) cfg: &'a Config<'a>,
    pub(super) file: &'a str,
    pub(super) plan: Plan,
    pub(super) sink: Box<dyn Sink + Send>,
    /// Under `--mail`, an input that is not mail, scanned as plain text:
    /// each record's place in its one part ([`MailWhere::plain_text`]).
    text_part: Option<MailWhere>,
}

impl<'a> RecordFormatter<'a> {
    pub(super) fn new(cfg: &'a Config<'a>, file: &'a str, plan: Plan) -> Self {
        RecordFormatter {
            cfg,
            file,
            plan,
            sink: plan.sink(&cfg.opts),
            text_part: None,
        }
    }

    /// With `on`, the records are those of an input that `--mail` scans as
    /// plain text: each in the input's one part.
    pub(super) fn text_part(mut self, on: bool) -> Self {
        self.text_part = on.then(|| MailWhere::plain_text(0, 0));
        self
    }

    /// Whether the records are in an input's one part ([`RecordFormatter::text_part`]).
    pub(super) fn in_text_part(&self) -> bool {
        self.text_part.is_some()
    }

    /// Whether `m` passes `--strict` and `--scheme`.
    pub(super) fn accepts(&self, m: &Match<'_>) -> bool {
        if self.cfg.strict && Parts::new(m).uri().validate().is_err() {
            return false;
        }
        if !self.cfg.schemes.is_empty() {
            let s = scheme_of(m);
            if !self
                .cfg
                .schemes
                .iter()
                .any(|w| w.as_bytes().eq_ignore_ascii_case(s))
            {
                return false;
            }
        }
        true
    }

    /// Add the record of `m` (which [`RecordFormatter::accepts`]) to `out`, at
    /// `line` and (with [`Config::column`]) `column`; `mail` and `web` say
    /// where it came from in a mail or web archive.
    pub(super) fn add(
        &mut self,
        m: &Match<'_>,
        (line, column): (u64, u64),
        mail: Option<&MailWhere>,
        web: Option<&WebWhere>,
        out: &mut Batch,
    ) {
        let mail = match (&mut self.text_part, mail) {
            (Some(w), None) => {
                w.part_start = m.start as u64;
                w.part_line = line;
                Some(&*w)
            }
            (_, mail) => mail,
        };
        // --vimgrep: the column is printed where -b prints the offset.
        let at_column;
        let m = if self.cfg.column {
            at_column = Match {
                start: usize::try_from(column).unwrap_or(usize::MAX),
                url: std::borrow::Cow::Borrowed(&m.url),
                ..*m
            };
            &at_column
        } else {
            m
        };
        let rec = Record {
            file: self.file,
            line,
            m,
            mail,
            web,
        };
        self.sink.record(&rec, out);
    }

    /// Whether the records need their line numbers.
    pub(super) fn uses_line(&self) -> bool {
        self.plan.uses_line(&self.cfg.opts)
    }
}

/// The records of one chunk, formatted by their own [`RecordFormatter`] (in
/// parallel with the other chunks).
pub(super) fn format_chunk(
    mut f: RecordFormatter<'_>,
    chunk: urlsift_core::Chunk<'_, '_>,
    uses_line: bool,
    spares: &SpareBatches,
) -> Batch {
    // Room for the records at once: the URLs plus what a record adds to one.
    let per_record = match (f.plan.counts_only(), f.cfg.opts.format) {
        (true, _) => 0,
        (false, Format::Text) => 24,
        (false, Format::Json) => 360,
        (false, Format::Csv | Format::Tsv) => 200,
        // The fields' lengths and the normal form and path beside the URL.
        (false, Format::Rows) => 320,
    };
    let urls: usize = chunk.matches().map(|m| m.url.len()).sum();
    let mut out = if per_record == 0 {
        Batch::default()
    } else {
        spares.take(urls + per_record * chunk.matches().len())
    };
    let with_lines = chunk.matches_with_lines();
    let without = chunk.matches().map(|m| (m, 0));
    let matches: &mut dyn Iterator<Item = (&Match<'_>, u64)> = if uses_line {
        &mut { with_lines }
    } else {
        &mut { without }
    };
    for (m, line) in matches {
        if !f.accepts(m) {
            continue;
        }
        if chunk.base == 0 {
            f.add(m, (line, 0), None, None, &mut out);
        } else {
            // A stream's block: offsets in the stream.
            let base = chunk.base as usize;
            let abs = Match {
                start: m.start + base,
                end: m.end + base,
                url: std::borrow::Cow::Borrowed(&m.url),
                ..*m
            };
            f.add(&abs, (line, 0), None, None, &mut out);
        }
    }
    out
}

/// The records of one batch of mail messages, formatted by their own
/// [`RecordFormatter`] (in parallel with the other batches).
pub(super) fn format_mail(
    mut f: RecordFormatter<'_>,
    b: &urlsift_mail::MailBatch<'_>,
    spares: &SpareBatches,
) -> Batch {
    let per_record = match (f.plan.counts_only(), f.cfg.opts.format) {
        (true, _) => 0,
        (false, Format::Text) => 24,
        (false, Format::Json) => 560,
        (false, Format::Csv | Format::Tsv) => 200,
        (false, Format::Rows) => 420,
    };
    let mut out = if per_record == 0 {
        Batch::default()
    } else {
        spares.take(b.url_bytes() + per_record * b.len())
    };
    b.each(|w, line, m| {
        if f.accepts(m) {
            f.add(m, (line, 0), Some(w), None, &mut out);
        }
    });
    out
}

/// Where a worker's matches go: formatted into batches sent to the
/// consumer, at most as many as the input may take (`-m`, `-l`).
pub(super) struct RecordSender<'a> {
    pub(super) formatter: RecordFormatter<'a>,
    pub(super) batch: Batch,
    pub(super) tx: &'a SyncSender<Msg>,
    pub(super) stop: &'a AtomicBool,
    pub(super) count: u64,
    pub(super) failed: bool,
    /// URLs this input may take (`-m`; 1 for `-l`).
    pub(super) max: Option<u64>,
    /// Set when the input has taken `max` URLs.
    pub(super) full: &'a AtomicBool,
    /// Batches to format the chunks' records into.
    pub(super) spares: &'a SpareBatches,
}

impl<'a> RecordSender<'a> {
    /// The sender of the records of the input `name` to `tx`; `full` is
    /// set when the input has taken all the URLs it may. With `text_part`,
    /// the records are those of an input that `--mail` scans as plain text
    /// ([`RecordFormatter::text_part`]).
    pub(super) fn new(
        run: &RunShared<'a>,
        name: &'a str,
        tx: &'a SyncSender<Msg>,
        full: &'a AtomicBool,
        text_part: bool,
    ) -> Self {
        let cfg = run.cfg;
        let mut plan = Plan::new(&cfg.opts, run.shards, cfg.quiet || cfg.list.is_some());
        plan.shard_by = cfg.shard_by;
        RecordSender {
            formatter: RecordFormatter::new(cfg, name, plan).text_part(text_part),
            batch: Batch::with_capacity(BATCH + 1024),
            tx,
            stop: run.stop,
            count: 0,
            failed: false,
            max: if cfg.list.is_some() {
                Some(cfg.max_count.map_or(1, |m| m.min(1)))
            } else {
                cfg.max_count
            },
            full,
            spares: run.spares,
        }
    }

    pub(super) fn record(&mut self, m: &Match<'_>, line: u64) {
        self.record_in(m, line, None)
    }

    pub(super) fn record_in(&mut self, m: &Match<'_>, line: u64, mail: Option<&MailWhere>) {
        self.record_where(m, line, mail, None)
    }

    pub(super) fn record_where(
        &mut self,
        m: &Match<'_>,
        line: u64,
        mail: Option<&MailWhere>,
        web: Option<&WebWhere>,
    ) {
        self.record_at(m, (line, 0), mail, web)
    }

    /// Take `m` at `line` and `column` (1-based, in bytes; 0 where the
    /// input has none, and when the run prints none).
    pub(super) fn record_at(
        &mut self,
        m: &Match<'_>,
        at: (u64, u64),
        mail: Option<&MailWhere>,
        web: Option<&WebWhere>,
    ) {
        if self.failed || !self.formatter.accepts(m) {
            return;
        }
        if self.max.is_some_and(|max| self.count >= max) {
            self.full.store(true, Ordering::Relaxed);
            return;
        }
        self.count += 1;
        if self.max.is_some_and(|max| self.count >= max) {
            // The input has all it may take: its scan stops soon.
            self.full.store(true, Ordering::Relaxed);
        }
        if self.formatter.cfg.quiet {
            // Found: the exit status is decided, stop everything.
            self.stop.store(true, Ordering::Relaxed);
            return;
        }
        self.formatter.add(m, at, mail, web, &mut self.batch);
        self.failed |= self.batch.failed;
        if self.batch.len() >= BATCH {
            self.send();
        }
    }

    /// Whether this input's scan should end: the consumer is gone, the run
    /// stops, or the input has all the URLs it may take.
    pub(super) fn stopped(&self) -> bool {
        self.failed || self.stop.load(Ordering::Relaxed) || self.full.load(Ordering::Relaxed)
    }

    /// Whether every record may be formatted apart from the others, in
    /// parallel: not when a count limits the input (`-m`, `-l`), the first
    /// URL stops the run (`-q`), or each record's column depends on the
    /// text before it (`--vimgrep`).
    pub(super) fn parallel(&self) -> bool {
        self.max.is_none() && !self.formatter.cfg.quiet && !self.formatter.cfg.column
    }

    /// Send a chunk's [`Batch`] on, after what is buffered; false when the
    /// run stops.
    pub(super) fn take(&mut self, b: Batch) -> bool {
        self.count += b.count;
        self.failed |= b.failed;
        self.send();
        if !b.is_empty() {
            self.failed |= self.tx.send(Msg::Batch(b)).is_err();
        }
        !self.failed
    }

    /// Send what is buffered.
    pub(super) fn send(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        let b = self.batch.take(BATCH + 1024);
        self.failed |= self.tx.send(Msg::Batch(b)).is_err();
    }
}
