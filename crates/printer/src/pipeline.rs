//! The one output path: sinks, batches and the printer (described in the
//! crate's documentation).

use std::io::{self, Write};
use std::path::PathBuf;

use crate::dedup::{self, Counter, Offer, Unique, fingerprint};
use crate::{
    CountBy, Format, Formatter, Options, Record, count_key, domain_key, host_key,
    write_count_row_as, write_header,
};
use urlsift_core::Kind;

/// What `--shard-by` partitions on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ShardBy {
    /// The URL's de-duplication key (so equal keys land in one shard).
    #[default]
    Url,
    /// The URL's lower-cased host (URLs without one share a shard).
    Host,
    /// The URL's registrable domain (URLs without one share a shard).
    Domain,
}

/// A shard index from a fingerprint: the high 64 bits, reduced to `0..n`
/// without a division's bias worth mentioning (a multiply-shift).
pub(crate) fn shard_of(fp: u128, n: usize) -> usize {
    (((fp >> 64) as u64 as u128 * n as u128) >> 64) as usize
}

/// One record of a keyed batch: its fingerprint and where its bytes end.
#[derive(Clone, Copy, Debug)]
struct Meta {
    fp: u128,
    end: usize,
}

/// Records in input order, as a [`Sink`] made them: formatted bytes, and
/// for keyed plans each record's fingerprint (and shard).
#[derive(Debug, Default)]
pub struct Batch {
    bytes: Vec<u8>,
    metas: Vec<Meta>,
    /// Records taken (formatted, keyed or, for counts, counted).
    pub count: u64,
    /// A record could not be formatted.
    pub failed: bool,
}

/// A place between two records of a [`Batch`] ([`Batch::mark`]): what the
/// batch held up to there. The default is the empty batch's start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchMark {
    bytes: usize,
    metas: usize,
    count: u64,
    failed: bool,
}

impl Batch {
    /// A batch with room for `bytes` bytes of records.
    pub fn with_capacity(bytes: usize) -> Batch {
        Batch {
            bytes: Vec::with_capacity(bytes),
            ..Batch::default()
        }
    }

    /// Make room for at least `bytes` more bytes of records.
    pub fn reserve(&mut self, bytes: usize) {
        self.bytes.reserve(bytes);
    }

    /// The room for record bytes, used or not.
    ///
    /// ```
    /// let mut b = urlsift_printer::Batch::with_capacity(100);
    /// b.reserve(1000);
    /// assert!(b.capacity() >= 1000);
    /// ```
    pub fn capacity(&self) -> usize {
        self.bytes.capacity()
    }

    /// Empty the batch (records, count, failure), keeping its room: a
    /// batch written out is reused, and the next records are formatted into
    /// memory already touched.
    ///
    /// ```
    /// let mut b = urlsift_printer::Batch::with_capacity(4096);
    /// b.count = 3;
    /// b.clear();
    /// assert!(b.is_empty() && b.count == 0 && b.capacity() >= 4096);
    /// ```
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.metas.clear();
        self.count = 0;
        self.failed = false;
    }

    /// The bytes of the batch so far.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// True when the batch holds no record bytes.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty() && self.metas.is_empty()
    }

    /// The place after the batch's last record so far, to cut the batch
    /// back to with [`Batch::truncate`].
    pub fn mark(&self) -> BatchMark {
        BatchMark {
            bytes: self.bytes.len(),
            metas: self.metas.len(),
            count: self.count,
            failed: self.failed,
        }
    }

    /// Keep only the records before `mark` (taken from this batch with
    /// [`Batch::mark`]; [`BatchMark::default`] keeps none): their bytes,
    /// keys, count and failure are as they were there. A run that may take
    /// only so many records from an input (`-m`) formats them in parallel
    /// and cuts the batch where the input is full.
    ///
    /// ```
    /// use urlsift_printer::{Batch, BatchMark, Options, Plan, Record};
    /// let opts = Options::default();
    /// let mut sink = Plan::new(&opts, 1, false).sink(&opts);
    /// let mut batch = Batch::default();
    /// let mut marks = Vec::new();
    /// for m in urlsift_core::find(b"http://a.example/ http://b.example/ http://c.example/") {
    ///     sink.record(&Record { file: "-", line: 1, m: &m, mail: None, web: None }, &mut batch);
    ///     marks.push(batch.mark());
    /// }
    /// batch.truncate(marks[1]);
    /// assert_eq!(batch.count, 2);
    /// assert_eq!(batch.len(), "http://a.example/\nhttp://b.example/\n".len());
    /// batch.truncate(BatchMark::default());
    /// assert!(batch.is_empty() && batch.count == 0);
    /// ```
    pub fn truncate(&mut self, mark: BatchMark) {
        self.bytes.truncate(mark.bytes);
        self.metas.truncate(mark.metas);
        self.count = mark.count;
        self.failed = mark.failed;
    }

    /// The batch's records, leaving it empty (its count and failure are
    /// left as they are).
    pub fn take(&mut self, capacity: usize) -> Batch {
        Batch {
            bytes: std::mem::replace(&mut self.bytes, Vec::with_capacity(capacity)),
            metas: std::mem::take(&mut self.metas),
            count: 0,
            failed: false,
        }
    }
}

/// What a run's records become.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Formatted bytes, as they come.
    Plain,
    /// Formatted records with a shard and a fingerprint (`--unique`, shards).
    Keyed,
    /// `--count-by` keys with their fingerprints.
    Count,
    /// Nothing but the number of records (`-c`, `-q`, `-l`).
    CountOnly,
}

/// How a run's records are turned into batches: one plan per run, one
/// [`Sink`] per chunk of records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// What the records become.
    pub(crate) mode: Mode,
    /// The number of outputs (shards); at least 1.
    pub shards: usize,
    /// What records are partitioned on when there is more than one output.
    pub shard_by: ShardBy,
}

impl Plan {
    /// The plan `opts` asks for, with `shards` outputs; `count_only` when
    /// nothing but counts is wanted (`-q`, `-l`).
    pub fn new(opts: &Options, shards: usize, count_only: bool) -> Plan {
        let mode = if count_only || opts.count {
            Mode::CountOnly
        } else if opts.count_by.is_some() {
            Mode::Count
        } else if opts.unique || shards > 1 {
            Mode::Keyed
        } else {
            Mode::Plain
        };
        Plan {
            mode,
            shards: shards.max(1),
            shard_by: ShardBy::Url,
        }
    }

    /// True when records are only counted (`-c`, `-q`, `-l`): a [`Sink`]
    /// of this plan adds no bytes to a batch.
    ///
    /// ```
    /// use urlsift_printer::{Options, Plan};
    /// let opts = Options { count: true, ..Options::default() };
    /// assert!(Plan::new(&opts, 1, false).counts_only());
    /// assert!(Plan::new(&Options::default(), 1, true).counts_only());
    /// assert!(!Plan::new(&Options::default(), 1, false).counts_only());
    /// ```
    pub fn counts_only(&self) -> bool {
        self.mode == Mode::CountOnly
    }

    /// Whether the records need their line numbers (`-n`, JSON, CSV/TSV):
    /// counts, `--count-by` keys and plain text lines do not.
    pub fn uses_line(&self, opts: &Options) -> bool {
        match self.mode {
            Mode::CountOnly | Mode::Count => false,
            Mode::Plain | Mode::Keyed => opts.format != Format::Text || opts.line_number,
        }
    }

    /// A sink for this plan, for one chunk of records (or a whole input).
    pub fn sink(&self, opts: &Options) -> Box<dyn Sink + Send> {
        let mut opts = opts.clone();
        // The printer writes each output's header.
        opts.no_header = true;
        let fmt = Formatter::new(&opts);
        let shard_by = self.shard_by;
        match self.mode {
            Mode::Plain => Box::new(fmt),
            Mode::CountOnly => Box::new(Tally),
            Mode::Count => Box::new(CountKeys {
                by: opts.count_by,
                level: opts.dedup_key,
                keybuf: Vec::new(),
                partbuf: Vec::new(),
            }),
            Mode::Keyed => Box::new(Keyed {
                fmt,
                unique: opts.unique,
                level: opts.dedup_key,
                shards: self.shards,
                shard_by,
                keybuf: Vec::new(),
            }),
        }
    }
}

/// Turns records into a [`Batch`]: every format and mode of output is a
/// sink ([`Formatter`] for text, JSON Lines and CSV/TSV; keyed records for
/// `--unique` and shards; keys for `--count-by`; counts for `-c`).
pub trait Sink {
    /// Add `rec` to `out`.
    fn record(&mut self, rec: &Record<'_, '_>, out: &mut Batch);
}

impl Sink for Formatter {
    fn record(&mut self, rec: &Record<'_, '_>, out: &mut Batch) {
        out.count += 1;
        out.failed |= self.format(rec, &mut out.bytes).is_err();
    }
}

/// `-c`, `-q`, `-l`: records are only counted.
struct Tally;

impl Sink for Tally {
    fn record(&mut self, _rec: &Record<'_, '_>, out: &mut Batch) {
        out.count += 1;
    }
}

/// `--count-by`: each record's key and its fingerprint.
struct CountKeys {
    by: Option<CountBy>,
    level: dedup::KeyLevel,
    /// Scratch for dedup keys ([`dedup::key_into`]) and hosts: no
    /// allocation per URL.
    keybuf: Vec<u8>,
    /// Scratch for the `//www...` form of an abbreviated URL.
    partbuf: Vec<u8>,
}

impl Sink for CountKeys {
    fn record(&mut self, rec: &Record<'_, '_>, out: &mut Batch) {
        out.count += 1;
        let m = rec.m;
        let owned;
        let k: &[u8] = if matches!(self.by, None | Some(CountBy::Url)) {
            // The URL key, normalized into the sink's buffer.
            let www = m.kind == Kind::Www;
            dedup::key_into(&m.url, www, self.level, &mut self.keybuf)
        } else if self.by == Some(CountBy::Host) {
            // `host_key`, into the sink's buffers.
            let Some(k) = crate::host_key_into(m, &mut self.partbuf, &mut self.keybuf) else {
                return;
            };
            k
        } else {
            let Some(k) = count_key(m, self.by, self.level) else {
                return;
            };
            owned = k;
            &owned
        };
        out.bytes.extend_from_slice(k);
        let fp = fingerprint(k);
        out.metas.push(Meta {
            fp,
            end: out.bytes.len(),
        });
    }
}

/// `--unique` and shards: each formatted record with its shard (4 bytes,
/// little-endian, first) and the fingerprint of its key.
struct Keyed {
    fmt: Formatter,
    unique: bool,
    level: dedup::KeyLevel,
    shards: usize,
    shard_by: ShardBy,
    keybuf: Vec<u8>,
}

impl Sink for Keyed {
    fn record(&mut self, rec: &Record<'_, '_>, out: &mut Batch) {
        out.count += 1;
        let m = rec.m;
        let www = m.kind == Kind::Www;
        let sharded_by_url = self.shards > 1 && self.shard_by == ShardBy::Url;
        let key = (self.unique || sharded_by_url)
            .then(|| dedup::key_into(&m.url, www, self.level, &mut self.keybuf));
        let url_fp = key.map_or(0, fingerprint);
        let fp = if self.unique { url_fp } else { 0 };
        let shard = match (self.shards, self.shard_by) {
            (1, _) => 0,
            (n, ShardBy::Url) => shard_of(url_fp, n),
            (n, ShardBy::Host) => shard_of(fingerprint(&host_key(m).unwrap_or_default()), n),
            (n, ShardBy::Domain) => shard_of(fingerprint(&domain_key(m).unwrap_or_default()), n),
        };
        out.bytes.extend_from_slice(&(shard as u32).to_le_bytes());
        let key = key.map(|k| (k, self.level));
        out.failed |= self.fmt.format_with(rec, key, &mut out.bytes).is_err();
        out.metas.push(Meta {
            fp,
            end: out.bytes.len(),
        });
    }
}

/// Where a run's records go. `close` ends the output (for Parquet: writes
/// the footer).
pub trait RecordWriter: Write {
    /// Flush and finish the output.
    fn close(self: Box<Self>) -> io::Result<()>;
}

impl<W: Write + ?Sized> RecordWriter for &mut W {
    fn close(mut self: Box<Self>) -> io::Result<()> {
        self.flush()
    }
}

impl<W: Write> RecordWriter for io::BufWriter<W> {
    fn close(mut self: Box<Self>) -> io::Result<()> {
        self.flush()
    }
}

#[cfg(feature = "parquet")]
impl<W: Write + Send> RecordWriter for crate::parquet::ParquetWriter<W> {
    fn close(self: Box<Self>) -> io::Result<()> {
        (*self).close().map(|_| ())
    }
}

/// A failure of the printer.
#[derive(Debug)]
pub enum PrintError {
    /// Writing an output failed (a closed pipe included).
    Write(io::Error),
    /// De-duplication failed (spilling to disk).
    Dedup(io::Error),
}

impl From<io::Error> for PrintError {
    fn from(e: io::Error) -> Self {
        PrintError::Write(e)
    }
}

/// Writes batches, in input order, to the run's outputs: the CSV header
/// before each output's first row, the first record of each key
/// (`--unique`), the counts (`--count-by`), the split into shards.
///
/// ```
/// use urlsift_printer::{Batch, Plan, Printer, RecordWriter};
/// use urlsift_printer::dedup::KeyLevel;
/// use urlsift_printer::{Format, Options, Record};
/// let text = b"see http://a.example/ and HTTP://A.example/ then http://b.example/";
/// let opts = Options {
///     format: Format::Json,
///     unique: true,
///     normalize: true,
///     dedup_key: KeyLevel::Scheme,
///     ..Options::default()
/// };
/// let plan = Plan::new(&opts, 1, false);
/// let mut sink = plan.sink(&opts);
/// let mut batch = Batch::default();
/// for m in urlsift_core::find(text) {
///     sink.record(&Record { file: "-", line: 1, m: &m, mail: None, web: None }, &mut batch);
/// }
/// let mut out = Vec::new();
/// {
///     let outs: Vec<Box<dyn RecordWriter + '_>> = vec![Box::new(&mut out)];
///     let mut printer = Printer::new(&opts, outs, usize::MAX, None);
///     printer.batch(&batch).unwrap();
///     printer.finish().unwrap();
/// }
/// assert_eq!(String::from_utf8(out).unwrap().lines().count(), 2);
/// ```
pub struct Printer<'o> {
    opts: Options,
    outs: Vec<Box<dyn RecordWriter + 'o>>,
    /// Per output: its header is written (or none is needed).
    header: Vec<bool>,
    unique: Option<Unique>,
    counter: Option<Counter>,
}

impl<'o> Printer<'o> {
    /// A printer of records for `opts` into `outs` (one per shard; `-c` and
    /// `--count-by` tables go to the first). `--unique` and `--count-by`
    /// state stays within `max_memory`, spilling sorted runs to `temp_dir`
    /// past it.
    pub fn new(
        opts: &Options,
        outs: Vec<Box<dyn RecordWriter + 'o>>,
        max_memory: usize,
        temp_dir: Option<PathBuf>,
    ) -> Printer<'o> {
        let counting = !opts.count && opts.count_by.is_some();
        let uniq = !opts.count && !counting && opts.unique;
        // CSV/TSV: each writer's header row goes before its first record.
        let csv = matches!(opts.format, Format::Csv | Format::Tsv) && !opts.count && !counting;
        Printer {
            opts: opts.clone(),
            header: vec![!csv; outs.len()],
            outs,
            unique: uniq.then(|| Unique::new(max_memory, temp_dir.clone())),
            counter: counting.then(|| Counter::new(max_memory, temp_dir)),
        }
    }

    /// Write `bytes` to output `shard` (after its header, if it is the first).
    pub(crate) fn put(&mut self, shard: usize, bytes: &[u8]) -> io::Result<()> {
        let shard = shard.min(self.outs.len() - 1);
        if !self.header[shard] {
            self.header[shard] = true;
            write_header(&self.opts, &mut self.outs[shard])?;
        }
        self.outs[shard].write_all(bytes)
    }

    /// The records of `b`, in order: written, filtered (`--unique`) or
    /// counted (`--count-by`).
    pub fn batch(&mut self, b: &Batch) -> Result<(), PrintError> {
        if b.metas.is_empty() {
            if !b.bytes.is_empty() {
                self.put(0, &b.bytes)?;
            }
            return Ok(());
        }
        let rec = |i: usize| {
            let start = if i == 0 { 0 } else { b.metas[i - 1].end };
            &b.bytes[start..b.metas[i].end]
        };
        if self.counter.is_some() || self.unique.is_some() {
            // Counted or filtered a batch at once: by the parts of the
            // table, in parallel.
            let fps: Vec<u128> = b.metas.iter().map(|m| m.fp).collect();
            if let Some(c) = self.counter.as_mut() {
                return c.add_batch(&fps, rec).map_err(PrintError::Dedup);
            }
            let mut offers = Vec::new();
            if let Some(u) = self.unique.as_mut() {
                u.offer_batch(&fps, rec, &mut offers)
                    .map_err(PrintError::Dedup)?;
            }
            for (i, o) in offers.into_iter().enumerate() {
                if o == Offer::New {
                    let (shard, body) = split_shard(rec(i));
                    self.put(shard, body)?;
                }
            }
            return Ok(());
        }
        for i in 0..b.metas.len() {
            let (shard, body) = split_shard(rec(i));
            self.put(shard, body)?;
        }
        Ok(())
    }

    /// `-l`, `-L`: the name of one input, as its line (ended by a NUL
    /// byte with `null`; coloured with `color`).
    ///
    /// ```
    /// use urlsift_printer::{Printer, RecordWriter};
    /// use urlsift_printer::Options;
    /// let mut out = Vec::new();
    /// {
    ///     let opts = Options { null: true, ..Options::default() };
    ///     let outs: Vec<Box<dyn RecordWriter + '_>> = vec![Box::new(&mut out)];
    ///     let mut printer = Printer::new(&opts, outs, usize::MAX, None);
    ///     printer.file_name("a.txt").unwrap();
    ///     printer.finish().unwrap();
    /// }
    /// assert_eq!(out, b"a.txt\0");
    /// ```
    pub fn file_name(&mut self, file: &str) -> io::Result<()> {
        let (path, reset) = if self.opts.color {
            (crate::color::PATH, crate::color::RESET)
        } else {
            ("", "")
        };
        let mut line = format!("{path}{file}{reset}").into_bytes();
        line.push(if self.opts.null { 0 } else { b'\n' });
        self.put(0, &line)
    }

    /// `-c`: the count of one input, as its row.
    pub fn file_count(&mut self, file: &str, count: u64) -> io::Result<()> {
        let line = count_row(&self.opts, file, count);
        self.put(0, &line)
    }

    /// Flush the first output (to keep it in order with messages on a
    /// terminal).
    pub fn flush(&mut self) -> io::Result<()> {
        self.outs[0].flush()
    }

    /// Forget `--unique` and `--count-by` state: a run that ends early
    /// prints no partial list or table that would look complete.
    pub fn abandon(&mut self) {
        self.unique = None;
        self.counter = None;
    }

    /// The end: the `--unique` spill merged, the `--count-by` table, every
    /// output closed. Returns what de-duplication did.
    pub fn finish(mut self) -> Result<Option<dedup::Stats>, PrintError> {
        let mut stats = None;
        if let Some(u) = self.unique.take() {
            let mut werr = None;
            let s = u
                .finish(|rec| {
                    let (shard, body) = split_shard(rec);
                    self.put(shard, body).inspect_err(|e| {
                        werr = Some(io::Error::new(e.kind(), e.to_string()));
                    })
                })
                .map_err(|e| werr.take().map_or(PrintError::Dedup(e), PrintError::Write))?;
            stats = Some(s);
        }
        if let Some(c) = self.counter.take() {
            let by = self.opts.count_by.unwrap_or(CountBy::Url);
            let fmt = self.opts.format;
            let mut werr = None;
            let out = &mut self.outs[0];
            let s = c
                .finish(|n, k| {
                    write_count_row_as(out, fmt, by, n, k).inspect_err(|e| {
                        werr = Some(io::Error::new(e.kind(), e.to_string()));
                    })
                })
                .map_err(|e| werr.take().map_or(PrintError::Dedup(e), PrintError::Write))?;
            stats = Some(s);
        }
        for w in self.outs.drain(..) {
            w.close()?;
        }
        Ok(stats)
    }
}

/// A keyed record's shard and formatted bytes.
fn split_shard(rec: &[u8]) -> (usize, &[u8]) {
    match rec.split_first_chunk::<4>() {
        Some((s, body)) => (u32::from_le_bytes(*s) as usize, body),
        None => (0, rec),
    }
}

/// `-c`'s row for one input: `COUNT`, `FILE:COUNT` with file names, or a
/// JSON object.
fn count_row(opts: &Options, file: &str, count: u64) -> Vec<u8> {
    if opts.format == Format::Json {
        return crate::json_count_line("file", file, count);
    }
    let sep = if opts.null { "\0" } else { ":" };
    match (opts.with_filename, opts.color) {
        (false, _) => format!("{count}\n"),
        (true, false) => format!("{file}{sep}{count}\n"),
        (true, true) => format!(
            "{}{file}{}{sep}{count}\n",
            crate::color::PATH,
            crate::color::RESET
        ),
    }
    .into_bytes()
}

/// Records one at a time into one writer: a [`Sink`] and a [`Printer`]
/// for tests that format records one at a time.
#[cfg(test)]
pub(crate) struct Writer<'w> {
    sink: Box<dyn Sink + Send>,
    printer: Option<Printer<'w>>,
    batch: Batch,
}

#[cfg(test)]
impl<'w> Writer<'w> {
    /// A writer of records to `out` as `opts` asks (`--unique` and
    /// `--count-by` state in memory).
    pub(crate) fn new<W: Write + 'w>(opts: &Options, out: W) -> Writer<'w> {
        let plan = Plan::new(opts, 1, false);
        let outs: Vec<Box<dyn RecordWriter + 'w>> = vec![Box::new(io::BufWriter::new(out))];
        Writer {
            sink: plan.sink(opts),
            printer: Some(Printer::new(opts, outs, usize::MAX, None)),
            batch: Batch::default(),
        }
    }

    fn printer(&mut self) -> io::Result<&mut Printer<'w>> {
        self.printer
            .as_mut()
            .ok_or_else(|| io::Error::other("the writer is finished"))
    }

    /// One record.
    pub(crate) fn record(&mut self, rec: &Record<'_, '_>) -> io::Result<()> {
        self.sink.record(rec, &mut self.batch);
        let b = self.batch.take(0);
        self.printer()?.batch(&b).map_err(into_io)
    }

    /// The end: aggregates written, the output flushed.
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        match self.printer.take() {
            Some(p) => p.finish().map(|_| ()).map_err(into_io),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
fn into_io(e: PrintError) -> io::Error {
    match e {
        PrintError::Write(e) | PrintError::Dedup(e) => e,
    }
}

/// The examples of items private to the crate.
#[cfg(test)]
mod examples {
    #[test]
    fn shard_of() {
        use crate::pipeline::shard_of;
        assert!(shard_of(u128::MAX, 8) < 8);
        assert_eq!(shard_of(12345, 1), 0);
    }
    #[test]
    fn writer() {
        use crate::pipeline::Writer;
        use crate::{Options, Record};
        let mut out = Vec::new();
        {
            let mut w = Writer::new(&Options::default(), &mut out);
            for m in urlsift_core::find(b"see http://a.example/ now") {
                w.record(&Record {
                    file: "-",
                    line: 1,
                    m: &m,
                    mail: None,
                    web: None,
                })
                .unwrap();
            }
            w.finish().unwrap();
        }
        assert_eq!(out, b"http://a.example/\n");
    }
}
