//! Web archives: each record's links, a batch of records at a time.

use std::io::Read;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::format::{Formed, RecordFormatter, RecordSender, SPARE_ROOM};
use super::{BATCH, Config};
use crate::web::{record_links, record_links_while};
use urlsift_printer::Plan;
use urlsift_warc::{LinkOptions, Severity};

/// Records of a web archive gathered before their links are found in
/// parallel: at most this many block bytes ...
pub(super) const WARC_BATCH_BYTES: usize = 32 << 20;
/// ... or this many records.
pub(super) const WARC_BATCH_RECORDS: usize = 1024;

/// Records of a web archive read ahead: a batch, and how it ended.
pub(super) struct WarcBatch {
    recs: Vec<urlsift_warc::Record>,
    /// The archive ended after these records.
    end: bool,
    /// A problem met after these records.
    issue: Option<urlsift_warc::Issue>,
}

/// An HTTP status or a class of them (`--status 2xx,301`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusPattern {
    /// One status, e.g. 301.
    Code(u16),
    /// A class by its first digit: 2 for `2xx`.
    Class(u16),
}

impl std::str::FromStr for StatusPattern {
    type Err = String;

    /// `301` or `3xx` (`X` in any case).
    ///
    /// ```
    /// use urlsift_search::run::StatusPattern;
    /// assert_eq!("2xx".parse(), Ok(StatusPattern::Class(2)));
    /// assert_eq!("301".parse(), Ok(StatusPattern::Code(301)));
    /// assert!("2x".parse::<StatusPattern>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let b = s.as_bytes();
        match b {
            [d @ b'1'..=b'5', x, y]
                if x.eq_ignore_ascii_case(&b'x') && y.eq_ignore_ascii_case(&b'x') =>
            {
                Ok(StatusPattern::Class(u16::from(d - b'0')))
            }
            [b'1'..=b'9', _, _] if b.iter().all(u8::is_ascii_digit) => s
                .parse()
                .map(StatusPattern::Code)
                .map_err(|e| format!("{s}: {e}")),
            _ => Err(format!("{s}: not an HTTP status (301) or class (3xx)")),
        }
    }
}

/// Which web archive records are read; every record when all are empty.
/// A record left out gives no links.
///
/// ```
/// use urlsift_search::run::RecordFilter;
/// let f = RecordFilter {
///     content_types: vec!["text/html".into()],
///     statuses: vec!["2xx".parse().unwrap()],
///     ..RecordFilter::default()
/// };
/// let rec = urlsift_warc::Record {
///     warc_type: "response".into(),
///     block: b"HTTP/1.1 200 OK\r\nContent-Type: Text/HTML; charset=utf-8\r\n\r\n<p>".to_vec(),
///     ..Default::default()
/// };
/// assert!(f.accepts(&rec));
/// ```
#[derive(Clone, Debug, Default)]
pub struct RecordFilter {
    /// `WARC-Type`s read (`--record-type`), lower-case.
    pub record_types: Vec<String>,
    /// Prefixes of the payload's media type (`--content-type`), lower-case:
    /// the HTTP `Content-Type` of a response or revisit, else the record's.
    pub content_types: Vec<String>,
    /// HTTP statuses read (`--status`): a record with no HTTP response has none.
    pub statuses: Vec<StatusPattern>,
}

impl RecordFilter {
    /// True when no record is left out.
    pub fn is_empty(&self) -> bool {
        self.record_types.is_empty() && self.content_types.is_empty() && self.statuses.is_empty()
    }

    /// Whether `rec` is read.
    pub fn accepts(&self, rec: &urlsift_warc::Record) -> bool {
        if self.is_empty() {
            return true;
        }
        if !self.record_types.is_empty()
            && !self
                .record_types
                .iter()
                .any(|t| t.eq_ignore_ascii_case(&rec.warc_type))
        {
            return false;
        }
        let http = matches!(rec.warc_type.as_str(), "response" | "revisit")
            .then(|| urlsift_warc::HttpResponse::parse(&rec.block))
            .flatten();
        if !self.statuses.is_empty() {
            let Some(status) = http.as_ref().map(|h| h.status) else {
                return false;
            };
            let hit = self.statuses.iter().any(|p| match *p {
                StatusPattern::Code(c) => c == status,
                StatusPattern::Class(k) => status / 100 == k,
            });
            if !hit {
                return false;
            }
        }
        if !self.content_types.is_empty() {
            let ct = match &http {
                Some(h) => h
                    .header("Content-Type")
                    .map(|c| String::from_utf8_lossy(c).into_owned()),
                None => rec.content_type.clone(),
            };
            let ct = ct.unwrap_or_default().trim().to_ascii_lowercase();
            if !self
                .content_types
                .iter()
                .any(|p| ct.starts_with(p.as_str()))
            {
                return false;
            }
        }
        true
    }
}

/// Read the next batch of records: until [`WARC_BATCH_BYTES`] of blocks or
/// [`WARC_BATCH_RECORDS`] records, a problem, or the end. Records `filter`
/// leaves out are dropped here.
pub(super) fn read_warc_batch<R: Read>(
    reader: &mut urlsift_warc::Reader<R>,
    filter: &RecordFilter,
) -> WarcBatch {
    let mut recs = Vec::new();
    let mut bytes = 0usize;
    loop {
        match reader.next() {
            None => {
                return WarcBatch {
                    recs,
                    end: true,
                    issue: None,
                };
            }
            Some(Ok(rec)) => {
                if !filter.accepts(&rec) {
                    continue;
                }
                bytes += rec.block.len();
                recs.push(rec);
                if bytes >= WARC_BATCH_BYTES || recs.len() >= WARC_BATCH_RECORDS {
                    return WarcBatch {
                        recs,
                        end: false,
                        issue: None,
                    };
                }
            }
            Some(Err(issue)) => {
                return WarcBatch {
                    recs,
                    end: false,
                    issue: Some(issue),
                };
            }
        }
    }
}

/// Scan a web archive: its records are read in order, their links found
/// (in parallel, a batch of records at a time) and sent on in file order,
/// until the input has what it may take (or the run stops). The next batch
/// is read and inflated on the pool while the links of this one are found,
/// so reading is not a serial step between batches. Warnings (a malformed
/// record, a payload that does not decode whole) are printed; the first
/// error (a corrupt gzip member, a truncated file) is the input's error,
/// the others are printed.
/// The reader resynchronises at the next record either way.
pub(super) fn scan_warc(
    cfg: &Config<'_>,
    name: &str,
    r: impl Read + Send,
    emit: &mut RecordSender<'_>,
    (stop, skipped): (&AtomicBool, &super::SkippedPayloads),
) -> Option<String> {
    let opts = LinkOptions {
        base: cfg.base.clone(),
        ..cfg.link_options()
    };
    let filter = &cfg.records;
    let mut error = None;
    let mut reader = urlsift_warc::Reader::new(r);
    let mut cur = read_warc_batch(&mut reader, filter);
    loop {
        // Links of the records so far first, then the problem, in file order.
        let (ok, next) = if !cur.end {
            // The next batch is read on a thread of its own, and this batch's
            // links are handed on from this thread, never from the pool: a
            // pool thread blocked on a full output queue while it holds
            // another input's work would deadlock the run.
            let (ok, next) = std::thread::scope(|s| {
                let reading = s.spawn(|| read_warc_batch(&mut reader, filter));
                let ok = warc_batch(cfg, name, &cur.recs, &opts, emit, skipped);
                let next = reading
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                (ok, next)
            });
            (ok, Some(next))
        } else {
            (warc_batch(cfg, name, &cur.recs, &opts, emit, skipped), None)
        };
        if !ok || cur.end || stop.load(Ordering::Relaxed) || emit.full.load(Ordering::Relaxed) {
            break;
        }
        if let Some(issue) = cur.issue.take() {
            let msg = format!("{name}: byte {}: {}", issue.offset, issue.message);
            match issue.severity {
                Severity::Warning => urlsift_core::report!("{msg}"),
                Severity::Error if error.is_none() => error = Some(msg),
                Severity::Error => urlsift_core::report!("{msg}"),
            }
        }
        cur = match next {
            Some(n) => n,
            None => read_warc_batch(&mut reader, filter),
        };
    }
    error
}

/// The most bytes of records the links of one batch of records are
/// formatted into on the pool, all records together (four times
/// [`WARC_BATCH_BYTES`]); one record takes at most [`SPARE_ROOM`] of it.
/// Links past that are formatted after the records before them, on the
/// thread that sends them on.
const WARC_BATCH_ROOM: usize = 4 * WARC_BATCH_BYTES;

/// The links of `recs`, in order, formatted in parallel and taken in
/// order ([`RecordSender::take`]: a record past what the input may take
/// gives none, but its payload is still decoded and warned of). The
/// records formatted in parallel hold at most [`WARC_BATCH_ROOM`] bytes,
/// and one record at most [`SPARE_ROOM`]: the links of a record past that
/// are formatted here, after the records before it, and handed on a
/// [`BATCH`] at a time, so a page of millions of links is never held
/// whole. A record whose payload could not be decoded whole gets a warning
/// after its links. False when the consumer is gone.
pub(super) fn warc_batch(
    cfg: &Config<'_>,
    name: &str,
    recs: &[urlsift_warc::Record],
    opts: &LinkOptions,
    emit: &mut RecordSender<'_>,
    skipped: &super::SkippedPayloads,
) -> bool {
    use rayon::prelude::*;
    if recs.is_empty() {
        return true;
    }
    let (plan, limit) = (emit.formatter.plan, emit.limit());
    let held = AtomicUsize::new(0);
    let records: Vec<FormedRecord> = recs
        .par_iter()
        .map(|rec| format_record(cfg, (name, plan, limit), rec, opts, &held))
        .collect();
    count_skipped(skipped, records.iter().filter_map(|r| r.skipped));
    for (r, rec) in records.into_iter().zip(recs) {
        if !emit.take(r.out) {
            return false;
        }
        let problem = match r.done {
            None => r.problem,
            Some(done) => {
                // The links after the first `done`, one by one.
                let mut seen = 0u64;
                let problem = record_links(rec, opts, |m, web| {
                    seen += 1;
                    if seen > done {
                        emit.record_where(m, 0, None, Some(web));
                    }
                });
                if emit.failed {
                    return false;
                }
                problem
            }
        };
        warn_payload(name, rec, problem);
    }
    true
}

/// Count the payloads `skips` into the run's.
fn count_skipped(
    skipped: &super::SkippedPayloads,
    skips: impl Iterator<Item = urlsift_warc::Skipped>,
) {
    let mut all = None;
    for s in skips {
        let all = all.get_or_insert_with(|| {
            skipped
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        });
        *all.entry(s).or_insert(0) += 1;
    }
}

/// The links of `rec` (in the input `name`, formatted as `plan` says, at
/// most `limit` of them) formatted on the pool, while the batch's records
/// hold less than [`WARC_BATCH_ROOM`] bytes (`held`, counted a [`BATCH`]
/// at a time) and this one less than [`SPARE_ROOM`].
fn format_record(
    cfg: &Config<'_>,
    (name, plan, limit): (&str, Plan, Option<u64>),
    rec: &urlsift_warc::Record,
    opts: &LinkOptions,
    held: &AtomicUsize,
) -> FormedRecord {
    let mut out = Formed::default();
    if held.load(Ordering::Relaxed) >= WARC_BATCH_ROOM {
        return FormedRecord {
            out,
            problem: None,
            skipped: None,
            done: Some(0),
        };
    }
    let mut f = RecordFormatter::new(cfg, name, plan).limit(limit);
    let (mut links, mut counted, mut full, mut room) = (0u64, 0usize, false, true);
    let outcome = record_links_while(rec, opts, |m, web| {
        let len = out.batch.len();
        let fresh = len - counted;
        if len >= SPARE_ROOM || held.load(Ordering::Relaxed) + fresh >= WARC_BATCH_ROOM {
            full = true;
            return false;
        }
        if fresh >= BATCH {
            held.fetch_add(fresh, Ordering::Relaxed);
            counted = len;
        }
        links += 1;
        if room && f.accepts(m) {
            // Past the limit, the payload is still read to its end.
            room = f.add_to(m, (0, 0), (None, Some(web)), &mut out);
        }
        true
    });
    held.fetch_add(out.batch.len() - counted, Ordering::Relaxed);
    FormedRecord {
        out,
        problem: outcome.problem,
        skipped: outcome.skipped,
        done: full.then_some(links),
    }
}

/// One record's links formatted on the pool.
struct FormedRecord {
    out: Formed,
    /// What went wrong decoding its payload.
    problem: Option<String>,
    /// Why its payload was not read, if it was not.
    skipped: Option<urlsift_warc::Skipped>,
    /// Set when the links outgrew the room: how many links `out` holds the
    /// records of (the others are still to format).
    done: Option<u64>,
}

/// Warn of a record's payload that could not be decoded whole, as of any
/// other malformed record: `FILE: byte OFFSET: what`, the record's offset.
/// A record the reader cut short (capped, or its input or gzip member ended
/// early) was reported already: its payload's break is that cut.
fn warn_payload(name: &str, rec: &urlsift_warc::Record, problem: Option<String>) {
    if let Some(p) = problem.filter(|_| !rec.truncated) {
        urlsift_core::report!("{name}: byte {}: {p}", rec.offset);
    }
}
