//! Records into batches: the filters, each chunk's own sink, and the
//! batches reused from one chunk to the next.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::SyncSender;

use super::{BATCH, Config, Msg, RunShared, scheme_of};
use urlsift_core::Match;
use urlsift_mail::MailWhere;
use urlsift_printer::{Batch, BatchMark, Plan, Sink};
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
    /// The most records a unit takes ([`RecordFormatter::add_to`]): what
    /// its input may take (`-m`, `-l`), or no bound.
    limit: Option<u64>,
}

/// The records of one unit of an input (a chunk of text, a batch of
/// messages, a web archive record), formatted on the pool apart from the
/// others. When the input may take only so many records (`-m`, `-l`), the
/// unit holds at most that many, each one's end marked: the consumer of
/// the units, in order, keeps those the input may still take
/// ([`RecordSender::take`]).
#[derive(Default)]
pub(super) struct Formed {
    pub(super) batch: Batch,
    /// Where each record ends in `batch`, when the records are limited.
    ends: Vec<BatchMark>,
}

impl From<Batch> for Formed {
    fn from(batch: Batch) -> Self {
        Formed {
            batch,
            ends: Vec::new(),
        }
    }
}

impl<'a> RecordFormatter<'a> {
    pub(super) fn new(cfg: &'a Config<'a>, file: &'a str, plan: Plan) -> Self {
        RecordFormatter {
            cfg,
            file,
            plan,
            sink: plan.sink(&cfg.opts),
            text_part: None,
            limit: None,
        }
    }

    /// At most `limit` records in each unit ([`RecordFormatter::add_to`]).
    pub(super) fn limit(mut self, limit: Option<u64>) -> Self {
        self.limit = limit;
        self
    }

    /// [`RecordFormatter::add`] to a unit's records, with the end of the
    /// record marked when they are limited; false, and nothing added, once
    /// `out` holds the most it may.
    pub(super) fn add_to(
        &mut self,
        m: &Match<'_>,
        at: (u64, u64),
        (mail, web): (Option<&MailWhere>, Option<&WebWhere>),
        out: &mut Formed,
    ) -> bool {
        let Some(limit) = self.limit else {
            self.add(m, at, mail, web, &mut out.batch);
            return true;
        };
        if out.ends.len() as u64 >= limit {
            return false;
        }
        self.add(m, at, mail, web, &mut out.batch);
        out.ends.push(out.batch.mark());
        true
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

/// Room for a unit's records at once: the URLs plus what a record adds
/// to one in `format` (`json` and `rows`: what a chunk's record adds; a
/// message's adds more); none when records are only counted.
fn room_per_record(f: &RecordFormatter<'_>, json: usize, rows: usize) -> usize {
    match (f.plan.counts_only(), f.cfg.opts.format) {
        (true, _) => 0,
        (false, Format::Text) => 24,
        (false, Format::Json) => json,
        (false, Format::Csv | Format::Tsv) => 200,
        // The fields' lengths and the normal form and path beside the URL.
        (false, Format::Rows) => rows,
    }
}

/// An empty unit with room for `records` records of `url_bytes` bytes of
/// URLs, `per_record` bytes more each.
fn unit_with_room(
    spares: &SpareBatches,
    per_record: usize,
    url_bytes: usize,
    records: usize,
) -> Formed {
    if per_record == 0 {
        return Formed::default();
    }
    Formed::from(spares.take(url_bytes + per_record * records))
}

/// The records of one chunk, formatted by their own [`RecordFormatter`] (in
/// parallel with the other chunks).
pub(super) fn format_chunk(
    mut f: RecordFormatter<'_>,
    chunk: urlsift_core::Chunk<'_, '_>,
    uses_line: bool,
    spares: &SpareBatches,
) -> Formed {
    let per_record = room_per_record(&f, 360, 320);
    let urls: usize = chunk.matches().map(|m| m.url.len()).sum();
    let mut out = unit_with_room(spares, per_record, urls, chunk.matches().len());
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
        let added = if chunk.base == 0 {
            f.add_to(m, (line, 0), (None, None), &mut out)
        } else {
            // A stream's block: offsets in the stream.
            let base = chunk.base as usize;
            let abs = Match {
                start: m.start + base,
                end: m.end + base,
                url: std::borrow::Cow::Borrowed(&m.url),
                ..*m
            };
            f.add_to(&abs, (line, 0), (None, None), &mut out)
        };
        if !added {
            break;
        }
    }
    out
}

/// The records of one batch of mail messages, formatted by their own
/// [`RecordFormatter`] (in parallel with the other batches); with
/// [`Config::column`], each with its column in its line of the file.
pub(super) fn format_mail(
    mut f: RecordFormatter<'_>,
    b: &urlsift_mail::MailBatch<'_>,
    spares: &SpareBatches,
) -> Formed {
    let per_record = room_per_record(&f, 560, 420);
    let mut out = unit_with_room(spares, per_record, b.url_bytes(), b.len());
    let (mut room, column) = (true, f.cfg.column);
    let mut add = |w: &MailWhere, line, column, m: &Match<'_>| {
        if room && f.accepts(m) {
            room = f.add_to(m, (line, column), (Some(w), None), &mut out);
        }
    };
    if column {
        b.each_at(add);
    } else {
        b.each(|w, line, m| add(w, line, 0, m));
    }
    out
}

/// Where a worker's records go, in input order: the units formatted on the
/// pool ([`RecordSender::take`]) or records one at a time
/// ([`RecordSender::record_at`]), sent on to the consumer. It is the cut of
/// `-m`, `-l` and `-q`: it keeps at most as many records as the input may
/// take, then marks the input full (or, under `-q`, the run stopped), and
/// the scan that feeds it stops reading soon after.
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

    /// A unit's records, taken in input order: those the input may still
    /// take (`-m`, `-l`; the rest are cut off, and the input is full), sent
    /// on after what is buffered. Under `-q`, a record found stops the run.
    /// False when the consumer is gone.
    pub(super) fn take(&mut self, unit: Formed) -> bool {
        let Formed { mut batch, ends } = unit;
        if let Some(max) = self.max {
            let room = max.saturating_sub(self.count);
            if batch.count > room {
                // A limited unit marked the end of each of its records.
                let keep = room.checked_sub(1).map(|i| ends[i as usize]);
                batch.truncate(keep.unwrap_or_default());
            }
            if batch.count >= room {
                self.full.store(true, Ordering::Relaxed);
            }
        }
        if self.formatter.cfg.quiet && batch.count > 0 {
            // Found: the exit status is decided, stop everything.
            self.stop.store(true, Ordering::Relaxed);
        }
        self.count += batch.count;
        self.failed |= batch.failed;
        self.send();
        if !batch.is_empty() {
            self.failed |= self.tx.send(Msg::Batch(batch)).is_err();
        }
        !self.failed
    }

    /// The most records a unit of this input needs to hold (what the input
    /// may take), for [`RecordFormatter::limit`].
    pub(super) fn limit(&self) -> Option<u64> {
        self.max
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
