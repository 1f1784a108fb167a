//! A run over many inputs: files spread over worker threads, output in input order.
//!
//! # The ordered pipeline
//!
//! `threads` workers take the inputs in order, one file at a time. A worker
//! scans its file: a big mapped file in chunks on the rayon pool
//! ([`urlsift_core::parallel::scan_segments_map`]), each chunk's records
//! turned into a [`Batch`] by its own [`Sink`] on the pool too, so one file
//! uses every core for both finding and formatting; a stream, a mail
//! archive or a web archive a block or a batch of records at a time. The
//! worker sends the batches, in order, on its file's own bounded channel.
//! The consumer (the calling thread) reads the files' channels strictly in
//! input order and hands the batches to the [`Printer`], which only writes
//! them (large writes, nothing per record but for `--unique`, `--count-by`
//! and shards).
//!
//! So the output is byte-identical for every thread count and chunk size,
//! and memory stays bounded: at most `threads` files are in flight, each
//! with at most [`IN_FLIGHT`] batches waiting (a batch is one chunk's
//! records, or about [`BATCH`] bytes on the serial paths). A worker that
//! runs ahead blocks until the consumer reaches its file; the worker holding
//! the consumer's file never waits on another, so the pipeline cannot
//! deadlock. `-m`, `-l` and `-q` format serially, since a limit on the count
//! depends on the records before.
//!
//! A write error (a closed pipe) or `--quiet`'s first match stops the run
//! early: workers notice a shared flag between segments of a file.
//!
//! # De-duplication and shards
//!
//! With `--unique`, `--count-by` or shards, sinks make *keyed* batches:
//! each record with the 128-bit fingerprint of its key
//! ([`urlsift_printer::dedup`]) and its shard. The printer filters them
//! through its `Unique` or counts them in its `Counter`, both bounded by
//! `max_memory` (spilling sorted runs to disk past it), and writes each
//! record to its shard's writer. Keys, normal forms and fingerprints are
//! computed by the sinks, in parallel. The printer looks a batch up at
//! once: while the table fits, it is in parts by fingerprint, one per
//! thread, and each part decides its own records in parallel; the records
//! are then written in order, so the output does not depend on the parts.

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use crate::input::{Data, Opened, Source};
use crate::web::record_links;
use urlsift_core::extract::{Extractor, Match};
use urlsift_core::parallel::{self, LineCounter};
use urlsift_mail::MailInput;
use urlsift_printer::WebWhere;
use urlsift_printer::dedup;
use urlsift_printer::pipeline::{Batch, Mode, Plan, PrintError, Printer, Sink};
use urlsift_printer::{Format, Options, Parts, Record};
use urlsift_warc::{LinkOptions, Severity};

/// Bytes per formatted batch sent from a worker to the consumer.
pub const BATCH: usize = 64 << 10;

/// Batches a file may have waiting before its worker blocks.
pub const IN_FLIGHT: usize = 4;

pub use urlsift_printer::pipeline::{RecordWriter, ShardBy, shard_of};

/// Batches written out, emptied and kept for reuse: the next chunks'
/// records are formatted into memory already touched, not into fresh pages
/// that a batch grows into and frees again. As many are kept as a run has
/// batches alive at once (chunks in flight, batches waiting), so the room
/// held is what the run's busiest moment needed.
struct Spares {
    free: Mutex<Vec<Batch>>,
    max: usize,
}

/// The most room a kept batch may hold: one larger (a chunk of text made
/// of URLs) is freed.
const SPARE_ROOM: usize = 16 << 20;

impl Spares {
    /// Keeps at most `max` batches.
    fn new(max: usize) -> Spares {
        Spares {
            free: Mutex::new(Vec::new()),
            max,
        }
    }

    /// An empty batch with room for at least `bytes` bytes.
    fn take(&self, bytes: usize) -> Batch {
        let kept = self.free.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let mut b = kept.unwrap_or_default();
        b.reserve(bytes);
        b
    }

    /// `b`, written out: kept for [`Spares::take`] if there is room.
    fn give(&self, mut b: Batch) {
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

/// How a run scans and prints.
pub struct Config<'a> {
    /// Output options (format, prefixes, aggregation).
    pub opts: Options,
    /// Print nothing; stop at the first URL.
    pub quiet: bool,
    /// Only RFC 3986-valid URLs.
    pub strict: bool,
    /// Worker threads (files scanned at once); at least 1.
    pub threads: usize,
    /// Bytes per parallel chunk within a file.
    pub chunk_size: usize,
    /// The extraction engine.
    pub extractor: Extractor,
    /// Called with the number of input bytes done, as they are done.
    pub progress: Option<&'a (dyn Fn(u64) + Sync)>,
    /// `--mail`: read inputs as mail (see [`urlsift_mail`]).
    pub mail: Option<&'a urlsift_mail::MailRun>,
    /// Memory for `--unique` / `--count-by` state (`usize::MAX`: no bound);
    /// past it, sorted runs are spilled to `temp_dir`.
    pub max_memory: usize,
    /// Where spilled runs go (the system's temporary directory when `None`).
    pub temp_dir: Option<PathBuf>,
    /// What records are partitioned on when there is more than one writer.
    pub shard_by: ShardBy,
    /// Memory-map regular files (see [`crate::input::map_file`]); without
    /// it, files are read as streams.
    pub mmap: bool,
    /// Take at most this many URLs from each input (`-m`); the scan of an
    /// input stops soon after.
    pub max_count: Option<u64>,
    /// Only URLs with one of these schemes, lower-case (`--scheme`; `www.`
    /// URLs have `http`). Empty: every URL.
    pub schemes: Vec<String>,
    /// Print the names of inputs instead of URLs (`-l`, `--files-without-match`).
    pub list: Option<List>,
    /// The base URI of web archive records that have no `WARC-Target-URI`,
    /// and of HTML inputs (`--base`).
    pub base: Option<String>,
    /// Which inputs are read as HTML (`--html`, `--no-html`).
    pub html: HtmlMode,
    /// The most bytes of one input read as HTML (default
    /// [`crate::web::MAX_HTML`]); the text rules read the rest.
    pub max_html: usize,
}

/// Which inputs are read as HTML: their URL attributes resolved, their text
/// scanned after character references are decoded (see [`crate::web`]).
/// Web archives are read record by record, and `--mail` input as mail,
/// whatever the mode.
///
/// ```
/// use urlsift_search::run::{Config, HtmlMode};
/// let cfg = Config::new(Default::default(), Default::default());
/// assert_eq!(cfg.html, HtmlMode::Auto);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HtmlMode {
    /// Those whose first bytes (after gzip or zstd decoding) sniff as HTML
    /// ([`crate::web::is_html`]).
    #[default]
    Auto,
    /// Every input (`--html`).
    Always,
    /// None: the text rules only (`--no-html`).
    Never,
}

impl HtmlMode {
    /// Whether an input starting with `head` is read as HTML.
    ///
    /// ```
    /// use urlsift_search::run::HtmlMode;
    /// assert!(HtmlMode::Auto.is_html(b"<!doctype html>"));
    /// assert!(!HtmlMode::Never.is_html(b"<!doctype html>"));
    /// assert!(HtmlMode::Always.is_html(b"plain text"));
    /// ```
    pub fn is_html(self, head: &[u8]) -> bool {
        match self {
            HtmlMode::Auto => crate::web::is_html(head),
            HtmlMode::Always => true,
            HtmlMode::Never => false,
        }
    }
}

/// Which inputs `-l` / `--files-without-match` name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum List {
    /// Those with at least one URL (`-l`).
    WithMatches,
    /// Those without any (`--files-without-match`).
    WithoutMatch,
}

/// The scheme `m` is filtered on: its own, or `http` for a `www.` URL.
fn scheme_of<'m>(m: &'m Match<'_>) -> &'m [u8] {
    match m.kind {
        urlsift_core::extract::Kind::Www => b"http",
        urlsift_core::extract::Kind::Uri => {
            let end = memchr::memchr(b':', &m.url).unwrap_or(0);
            &m.url[..end]
        }
    }
}

impl Config<'_> {
    /// A configuration with these options and extractor, and defaults for
    /// the rest: one thread per core, the default chunk size, no memory
    /// bound, no mail, no progress.
    pub fn new(opts: Options, extractor: Extractor) -> Config<'static> {
        Config {
            opts,
            quiet: false,
            strict: false,
            threads: rayon::current_num_threads(),
            chunk_size: parallel::DEFAULT_CHUNK_SIZE,
            extractor,
            progress: None,
            mail: None,
            max_memory: usize::MAX,
            temp_dir: None,
            shard_by: ShardBy::Url,
            mmap: true,
            max_count: None,
            schemes: Vec::new(),
            list: None,
            base: None,
            html: HtmlMode::Auto,
            max_html: crate::web::MAX_HTML,
        }
    }
}

/// What a run found.
#[derive(Debug, Default)]
pub struct Summary {
    /// URLs found (after `--strict`).
    pub found: u64,
    /// Inputs that failed (reported on the error writer).
    pub errors: u64,
    /// The output writer failed with this error (a closed pipe included).
    pub write_error: Option<io::Error>,
    /// De-duplication failed (spilling to disk): the error, with where.
    pub dedup_error: Option<String>,
    /// What `--unique` / `--count-by` did.
    pub dedup: Option<dedup::Stats>,
    /// A worker died (a bug): the run ended early, with this message.
    pub died: Option<String>,
}

impl Summary {
    /// grep's exit status: 0 found, 1 none found, 2 an error. A closed pipe
    /// is not an error (the reader had what it wanted: 0 unless an input
    /// failed before); with `quiet`, a URL found anywhere wins over errors
    /// elsewhere.
    pub fn exit_code(&self, quiet: bool) -> u8 {
        let broken_pipe = self
            .write_error
            .as_ref()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe);
        let failed = (self.write_error.is_some() && !broken_pipe)
            || self.dedup_error.is_some()
            || self.died.is_some();
        if failed || (self.errors > 0 && !(quiet && self.found > 0)) {
            2
        } else if self.found > 0 || broken_pipe {
            0
        } else {
            1
        }
    }
}

enum Msg {
    /// Records, in input order.
    Batch(Batch),
    End {
        count: u64,
        opened: bool,
        error: Option<String>,
        /// The input looks like mail (for the one hint of a run).
        mail_like: bool,
    },
    /// The worker scanning this input panicked: the run ends.
    Died(String),
}

/// Scan `sources` and write the result to `out` in input order; errors go to
/// `err`, one line each (`urlsift: FILE: message`), in input order too.
///
/// ```
/// use urlsift_core::extract::Extractor;
/// use urlsift_search::input::Source;
/// use urlsift_printer::Options;
/// use urlsift_search::run;
/// let dir = tempfile::tempdir().unwrap();
/// let p = dir.path().join("a.txt");
/// std::fs::write(&p, "see http://a.example/ and http://b.example/ and http://a.example/").unwrap();
/// let opts = Options { unique: true, ..Options::default() };
/// let cfg = run::Config::new(opts, Extractor::new());
/// let (mut out, mut err) = (Vec::new(), Vec::new());
/// let sum = run::run(&cfg, &[Source::Path(p)], &mut out, &mut err);
/// assert_eq!(out, b"http://a.example/\nhttp://b.example/\n");
/// assert_eq!((sum.found, sum.exit_code(false)), (3, 0));
/// ```
pub fn run(
    cfg: &Config<'_>,
    sources: &[Source],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Summary {
    run_to(cfg, sources, vec![Box::new(out)], err)
}

/// [`run`] into several writers: with more than one, each record goes to
/// the writer of its shard ([`shard_of`] the fingerprint of its
/// [`ShardBy`] key). `--count-by` and `-c` tables go to the first writer.
/// Every writer is closed at the end.
pub fn run_to<'o>(
    cfg: &Config<'_>,
    sources: &[Source],
    outs: Vec<Box<dyn RecordWriter + 'o>>,
    err: &mut dyn Write,
) -> Summary {
    run_to_within(cfg, sources, outs, err, &|_, _, scan| scan())
}

/// How a worker of [`run_to_within`] runs: `enter(worker, workers, scan)`
/// is called on the worker's own thread, once, with its index (from 0),
/// the number of workers (`cfg.threads`, at most one per input), and its
/// whole work, which `enter` must call once (a worker that does not ends
/// the run early: no further input is claimed).
pub type Enter<'e> = &'e (dyn Fn(usize, usize, &mut (dyn FnMut() + Send)) + Sync);

/// [`run_to`], with each worker's work run inside `enter`: to choose the
/// rayon pool that scans its inputs' chunks, messages and records (by
/// default, the global pool), e.g. `&|i, _, scan| pools[i].install(scan)`.
///
/// A worker blocks while the consumer is on an earlier input, so a pool
/// must serve one worker only: a pool thread waiting inside one worker's
/// scan may pick up another's work and block under it, and the run then
/// deadlocks.
///
/// ```
/// use urlsift_core::extract::Extractor;
/// use urlsift_search::input::Source;
/// use urlsift_printer::Options;
/// use urlsift_search::run;
/// let dir = tempfile::tempdir().unwrap();
/// let mut sources = Vec::new();
/// for name in ["a.txt", "b.txt", "c.txt"] {
///     let p = dir.path().join(name);
///     std::fs::write(&p, format!("see http://{name}.example/")).unwrap();
///     sources.push(Source::Path(p));
/// }
/// let cfg = run::Config { threads: 2, ..run::Config::new(Options::default(), Extractor::new()) };
/// // One pool of one thread per worker: two threads scan in all.
/// let pools: Vec<_> = (0..2)
///     .map(|_| rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap())
///     .collect();
/// let (mut out, mut err) = (Vec::new(), Vec::new());
/// let sum = run::run_to_within(&cfg, &sources, vec![Box::new(&mut out)], &mut err, &|i, n, scan| {
///     assert_eq!(n, 2);
///     pools[i].install(scan)
/// });
/// assert_eq!(out, b"http://a.txt.example/\nhttp://b.txt.example/\nhttp://c.txt.example/\n");
/// assert_eq!(sum.found, 3);
/// ```
pub fn run_to_within<'o>(
    cfg: &Config<'_>,
    sources: &[Source],
    outs: Vec<Box<dyn RecordWriter + 'o>>,
    err: &mut dyn Write,
    enter: Enter<'_>,
) -> Summary {
    let stop = AtomicBool::new(false);
    // One worker per input at most: never more threads than there is work for.
    let threads = cfg.threads.clamp(1, sources.len().max(1));
    // The claim step hands out the next input and queues its channel, under
    // one lock, so the consumer sees the channels in input order.
    let (order_tx, order_rx) = sync_channel::<(usize, Receiver<Msg>)>(threads);
    let claim = Mutex::new((0usize, Some(order_tx)));
    let mut summary = Summary::default();
    let shards = outs.len().max(1);
    // Batches alive at once: per worker, the chunks in flight on the pool
    // (up to three per thread) and those waiting in its channel.
    let pool = rayon::current_num_threads().max(cfg.threads).max(1);
    let spares = Spares::new(threads * (3 * pool + IN_FLIGHT + 1));
    std::thread::scope(|s| {
        for i in 0..threads {
            let (claim, stop, spares) = (&claim, &stop, &spares);
            s.spawn(move || {
                // Let go of the claim channel when the thread ends, even if
                // `enter` never runs the work (the run then ends early).
                let _release = Release(claim);
                enter(i, threads, &mut || {
                    worker(cfg, sources, (shards, spares), claim, stop)
                });
            });
        }
        summary = consume(cfg, sources, order_rx, (outs, &spares), err, &stop);
        stop.store(true, Ordering::Relaxed);
    });
    summary
}

type Claim = Mutex<(usize, Option<SyncSender<(usize, Receiver<Msg>)>>)>;

/// However a worker ends (all inputs taken, stopping, or a panic), it lets
/// go of the claim channel: once every worker has, the consumer's loop over
/// the channels ends.
struct Release<'c>(&'c Claim);

impl Drop for Release<'_> {
    fn drop(&mut self) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).1 = None;
    }
}

fn worker(
    cfg: &Config<'_>,
    sources: &[Source],
    (shards, spares): (usize, &Spares),
    claim: &Claim,
    stop: &AtomicBool,
) {
    loop {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let (idx, tx) = {
            let mut g = claim.lock().unwrap_or_else(|p| p.into_inner());
            let idx = g.0;
            if idx >= sources.len() {
                break;
            }
            g.0 += 1;
            let (tx, rx) = sync_channel(IN_FLIGHT);
            let Some(order) = g.1.as_ref() else { break };
            if order.send((idx, rx)).is_err() {
                break;
            }
            (idx, tx)
        };
        let scanned = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            scan_source(cfg, &sources[idx], (shards, spares), &tx, stop)
        }));
        if let Err(payload) = scanned {
            // A bug, not bad input: end the run (exit 2) with what it has
            // written so far, naming the input it died on.
            stop.store(true, Ordering::Relaxed);
            let _ = tx.send(Msg::Died(format!(
                "{}: internal error, the run stops here: {}",
                sources[idx].name(),
                urlsift_core::diag::panic_message(payload.as_ref())
            )));
            break;
        }
    }
}

fn consume<'o>(
    cfg: &Config<'_>,
    sources: &[Source],
    order: Receiver<(usize, Receiver<Msg>)>,
    (outs, spares): (Vec<Box<dyn RecordWriter + 'o>>, &Spares),
    err: &mut dyn Write,
    stop: &AtomicBool,
) -> Summary {
    let opts = &cfg.opts;
    let mut sum = Summary::default();
    let mut printer = Printer::new(opts, outs, cfg.max_memory, cfg.temp_dir.clone());
    let mut hinted = false;
    let result = (|| -> Result<(), PrintError> {
        for (idx, rx) in order.iter() {
            let name = sources[idx].name();
            let mut ended = false;
            for msg in rx.iter() {
                match msg {
                    Msg::Batch(b) => {
                        printer.batch(&b)?;
                        spares.give(b);
                    }
                    Msg::End {
                        count,
                        opened,
                        error,
                        mail_like,
                    } => {
                        if mail_like && !hinted {
                            // One hint per run, for the first such input.
                            hinted = true;
                            urlsift_core::report!("{}", urlsift_mail::hint_message(&name));
                        }
                        let listed = cfg.list.and_then(|list| {
                            let show = (count > 0) == (list == List::WithMatches);
                            (show && opened).then_some(list)
                        });
                        // grep -L: found means a file was listed.
                        sum.found += match cfg.list {
                            Some(List::WithoutMatch) => u64::from(listed.is_some()),
                            _ => count,
                        };
                        if listed.is_some() && !cfg.quiet {
                            let (path, reset) = if opts.color {
                                (urlsift_printer::color::PATH, urlsift_printer::color::RESET)
                            } else {
                                ("", "")
                            };
                            let mut line = format!("{path}{name}{reset}").into_bytes();
                            line.push(if opts.null { 0 } else { b'\n' });
                            printer.put(0, &line)?;
                        }
                        if opts.count && opened && !cfg.quiet {
                            printer.file_count(&name, count)?;
                        }
                        ended = true;
                        if let Some(e) = error {
                            sum.errors += 1;
                            // Keep stdout and stderr in order on a terminal.
                            printer.flush()?;
                            let _ = writeln!(err, "urlsift: {e}");
                        }
                        break;
                    }
                    Msg::Died(e) => {
                        ended = true;
                        printer.flush()?;
                        let _ = writeln!(err, "urlsift: {e}");
                        sum.died = Some(e);
                        break;
                    }
                }
            }
            if !ended && sum.died.is_none() && !stop.load(Ordering::Relaxed) {
                // The worker let go of this input without finishing it.
                let e = format!("{name}: internal error: the scan ended without a result");
                let _ = writeln!(err, "urlsift: {e}");
                sum.died = Some(e);
            }
            if (cfg.quiet && sum.found > 0) || sum.died.is_some() {
                break;
            }
        }
        Ok(())
    })();
    let result = result.and_then(|()| {
        if sum.died.is_some() {
            // A partial table or unique list would look complete: print none.
            printer.abandon();
        }
        sum.dedup = printer.finish()?;
        Ok(())
    });
    match result {
        Ok(()) => {}
        Err(PrintError::Write(e)) => {
            stop.store(true, Ordering::Relaxed);
            sum.write_error = Some(e);
        }
        Err(PrintError::Dedup(e)) => {
            stop.store(true, Ordering::Relaxed);
            let dir = cfg.temp_dir.clone().unwrap_or_else(std::env::temp_dir);
            sum.dedup_error = Some(format!(
                "de-duplication: spilling to {}: {e}",
                dir.display()
            ));
        }
    }
    sum
}

/// Fails every read once the run is stopping, or the input has taken all
/// the URLs it may (`-m`), so a stream scan ends early.
struct StopReader<'a, R> {
    inner: R,
    stop: &'a AtomicBool,
    full: &'a AtomicBool,
}

impl<R: Read> Read for StopReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.stop.load(Ordering::Relaxed) || self.full.load(Ordering::Relaxed) {
            return Err(io::Error::other("stopped"));
        }
        self.inner.read(buf)
    }
}

/// Formats one input's records: the filters (`--strict`, `--scheme`), then
/// the plan's [`Sink`]. A worker has one; each chunk of a file formatted in
/// parallel has its own.
struct Former<'a> {
    cfg: &'a Config<'a>,
    file: &'a str,
    plan: Plan,
    sink: Box<dyn Sink + Send>,
}

impl<'a> Former<'a> {
    fn new(cfg: &'a Config<'a>, file: &'a str, plan: Plan) -> Self {
        Former {
            cfg,
            file,
            plan,
            sink: plan.sink(&cfg.opts),
        }
    }

    /// Whether `m` passes `--strict` and `--scheme`.
    fn accepts(&self, m: &Match<'_>) -> bool {
        if self.cfg.strict && !Parts::new(m).valid() {
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

    /// Add the record of `m` (which [`Former::accepts`]) to `out`; `mail`
    /// and `web` say where it came from in a mail or web archive.
    fn add(
        &mut self,
        m: &Match<'_>,
        line: u64,
        mail: Option<&urlsift_mail::MailWhere>,
        web: Option<&WebWhere>,
        out: &mut Batch,
    ) {
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
    fn uses_line(&self) -> bool {
        self.plan.uses_line(&self.cfg.opts)
    }
}

/// The records of one chunk, formatted by their own [`Former`] (in
/// parallel with the other chunks).
fn format_chunk(
    mut f: Former<'_>,
    chunk: parallel::Chunk<'_, '_>,
    uses_line: bool,
    spares: &Spares,
) -> Batch {
    // Room for the records at once: the URLs plus what a record adds to one.
    let per_record = match (f.plan.mode, f.cfg.opts.format) {
        (Mode::CountOnly, _) => 0,
        (_, Format::Text) => 24,
        (_, Format::Json) => 360,
        (_, Format::Csv | Format::Tsv) => 200,
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
            f.add(m, line, None, None, &mut out);
        } else {
            // A stream's block: offsets in the stream.
            let base = chunk.base as usize;
            let abs = Match {
                start: m.start + base,
                end: m.end + base,
                url: std::borrow::Cow::Borrowed(&m.url),
                ..*m
            };
            f.add(&abs, line, None, None, &mut out);
        }
    }
    out
}

/// The records of one batch of mail messages, formatted by their own
/// [`Former`] (in parallel with the other batches).
fn format_mail(mut f: Former<'_>, b: &urlsift_mail::MailBatch<'_>, spares: &Spares) -> Batch {
    let per_record = match (f.plan.mode, f.cfg.opts.format) {
        (Mode::CountOnly, _) => 0,
        (_, Format::Text) => 24,
        (_, Format::Json) => 560,
        (_, Format::Csv | Format::Tsv) => 200,
    };
    let mut out = if per_record == 0 {
        Batch::default()
    } else {
        spares.take(b.url_bytes() + per_record * b.len())
    };
    b.each(|w, line, m| {
        if f.accepts(m) {
            f.add(m, line, Some(w), None, &mut out);
        }
    });
    out
}

/// Where a worker's matches go: formatted into batches sent to the consumer.
struct Emit<'a> {
    former: Former<'a>,
    batch: Batch,
    tx: &'a SyncSender<Msg>,
    stop: &'a AtomicBool,
    count: u64,
    failed: bool,
    /// URLs this input may take (`-m`; 1 for `-l`).
    max: Option<u64>,
    /// Set when the input has taken `max` URLs.
    full: &'a AtomicBool,
    /// Batches to format the chunks' records into.
    spares: &'a Spares,
}

impl Emit<'_> {
    fn record(&mut self, m: &Match<'_>, line: u64) {
        self.record_in(m, line, None)
    }

    fn record_in(&mut self, m: &Match<'_>, line: u64, mail: Option<&urlsift_mail::MailWhere>) {
        self.record_where(m, line, mail, None)
    }

    fn record_where(
        &mut self,
        m: &Match<'_>,
        line: u64,
        mail: Option<&urlsift_mail::MailWhere>,
        web: Option<&WebWhere>,
    ) {
        if self.failed || !self.former.accepts(m) {
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
        if self.former.cfg.quiet {
            // Found: the exit status is decided, stop everything.
            self.stop.store(true, Ordering::Relaxed);
            return;
        }
        self.former.add(m, line, mail, web, &mut self.batch);
        self.failed |= self.batch.failed;
        if self.batch.len() >= BATCH {
            self.send();
        }
    }

    /// Whether this input's scan should end: the consumer is gone, the run
    /// stops, or the input has all the URLs it may take.
    fn stopped(&self) -> bool {
        self.failed || self.stop.load(Ordering::Relaxed) || self.full.load(Ordering::Relaxed)
    }

    /// Whether every record may be formatted apart from the others, in
    /// parallel: not when a count limits the input (`-m`, `-l`) or the
    /// first URL stops the run (`-q`).
    fn parallel(&self) -> bool {
        self.max.is_none() && !self.former.cfg.quiet
    }

    /// Send a chunk's [`Batch`] on, after what is buffered; false when the
    /// run stops.
    fn take(&mut self, b: Batch) -> bool {
        self.count += b.count;
        self.failed |= b.failed;
        self.send();
        if !b.is_empty() {
            self.failed |= self.tx.send(Msg::Batch(b)).is_err();
        }
        !self.failed
    }

    /// Send what is buffered.
    fn send(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        let b = self.batch.take(BATCH + 1024);
        self.failed |= self.tx.send(Msg::Batch(b)).is_err();
    }
}

fn scan_source(
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
        });
    };
    let path = match src {
        Source::Error(e) => return end(0, false, Some(e.clone()), false),
        other => other.path(),
    };
    let opened = match crate::input::open_source(src, cfg.mmap) {
        Ok(o) => o,
        Err(e) => return end(0, false, Some(format!("{name}: {e}")), false),
    };
    let full = AtomicBool::new(false);
    let mut plan = Plan::new(&cfg.opts, shards, cfg.quiet || cfg.list.is_some());
    plan.shard_by = cfg.shard_by;
    let mut emit = Emit {
        former: Former::new(cfg, &name, plan),
        batch: Batch::with_capacity(BATCH + 1024),
        tx,
        stop,
        count: 0,
        failed: false,
        max: if cfg.list.is_some() {
            Some(1)
        } else {
            cfg.max_count
        },
        full: &full,
        spares,
    };
    let mut error = None;
    let mut mail_like = false;
    match opened {
        Opened::Warc(r) => {
            let r = StopReader {
                inner: r,
                stop,
                full: &full,
            };
            error = scan_warc(cfg, &name, r, &mut emit, stop);
        }
        o if cfg.mail.is_some() => {
            let run = cfg.mail.unwrap_or_else(|| unreachable!());
            let input = match o {
                Opened::Whole(ref data) => MailInput::Whole(data),
                Opened::Stream(r) => MailInput::Stream(Box::new(r)),
                Opened::Warc(r) => MailInput::Stream(r),
            };
            error = if emit.parallel() {
                // Each batch of messages formatted on the pool, as a chunk
                // of a plain file is.
                let (file, plan) = (emit.former.file, emit.former.plan);
                run.scan_map(
                    &cfg.extractor,
                    &name,
                    input,
                    |b| format_mail(Former::new(cfg, file, plan), b, spares),
                    |batch, _| emit.take(batch),
                )
            } else {
                run.scan(&cfg.extractor, &name, input, |w, line, m| {
                    emit.record_in(m, line, Some(w))
                })
            };
        }
        Opened::Whole(data) if cfg.html.is_html(&data) => {
            error = scan_html(cfg, &name, &data, None::<io::Empty>, &mut emit);
            if let Some(p) = cfg.progress {
                p(data.len() as u64);
            }
        }
        Opened::Stream(r) if cfg.html.is_html(r.head()) => {
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
            mail_like = urlsift_mail::looks_like_mail(&name, &data);
            scan_whole(cfg, &data, &mut emit, stop)
        }
        Opened::Stream(r) => {
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
                let uses_line = emit.former.uses_line();
                parallel::scan_reader_map(
                    ex,
                    r,
                    (block, cfg.chunk_size),
                    uses_line,
                    |chunk| format_chunk(Former::new(cfg, file, plan), chunk, uses_line, spares),
                    |batch| emit.take(batch),
                )
            } else {
                parallel::scan_reader(ex, r, block, cfg.chunk_size, |m, line| emit.record(m, line))
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
    end(emit.count, true, error, mail_like);
}

/// Bytes before the end of a segment kept mapped when the segment is done
/// with: the next segment's scan may look back into them.
const RELEASE_MARGIN: usize = 64 << 10;

/// Scan a whole (mapped) file in segments of a few batches of chunks
/// ([`parallel::scan_segments`]), so a stop request is seen within one
/// segment; the result is that of one scan over the whole file.
fn scan_whole(cfg: &Config<'_>, whole: &Data, emit: &mut Emit<'_>, stop: &AtomicBool) {
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
                |chunk| format_chunk(Former::new(cfg, file, plan), chunk, uses_line, spares),
                |batch| emit.take(batch) && !stop.load(Ordering::Relaxed),
                |n| {
                    progress(n);
                    pos += n;
                    let to = pos.saturating_sub(RELEASE_MARGIN);
                    if to > released {
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
            emit.record(&m, line);
            failed.set(emit.failed);
        },
        |n| {
            progress(n);
            !(stop.load(Ordering::Relaxed) || failed.get() || emit_full.load(Ordering::Relaxed))
        },
    );
}

/// Read an HTML stream: at most [`Config::max_html`] bytes of it (and a
/// byte more, to know there is more) are read and scanned as HTML, and the
/// text rules read the rest, if any ([`scan_html`]).
fn read_html(
    cfg: &Config<'_>,
    name: &str,
    mut r: impl Read,
    emit: &mut Emit<'_>,
) -> Option<String> {
    let cap = cfg.max_html;
    let mut doc = Vec::new();
    let mut error = None;
    // Grown as the page comes, not allocated at the cap.
    while doc.len() <= cap {
        let want = doc
            .len()
            .saturating_mul(2)
            .max(64 << 10)
            .min(cap.saturating_add(1));
        match parallel::fill(&mut r, &mut doc, want) {
            Ok(false) => {}
            Ok(true) => break,
            Err(e) => {
                error = Some(format!("{name}: at byte {}: {e}", doc.len()));
                break;
            }
        }
    }
    let rest = (doc.len() > cap && error.is_none()).then_some(r);
    let scanned = scan_html(cfg, name, &doc, rest, emit);
    if emit.stopped() {
        return None;
    }
    error.or(scanned)
}

/// Scan the HTML document `doc` ([`crate::web::html_document_links`],
/// against [`Config::base`]) with line numbers counted from its offsets.
/// Past [`Config::max_html`] bytes (`doc` longer, or `rest` to come), the
/// document is HTML to its last newline before the cap, and the text rules
/// read what follows, `doc`'s and then `rest`'s bytes, with offsets and
/// lines in the whole input.
fn scan_html(
    cfg: &Config<'_>,
    name: &str,
    doc: &[u8],
    rest: Option<impl Read>,
    emit: &mut Emit<'_>,
) -> Option<String> {
    let cap = cfg.max_html;
    let cut = if doc.len() <= cap && rest.is_none() {
        doc.len()
    } else {
        let head = doc.get(..cap).unwrap_or(doc);
        memchr::memrchr(b'\n', head).map_or(head.len(), |p| p + 1)
    };
    let (page, tail) = doc.split_at(cut);
    let uses_line = emit.former.uses_line();
    let mut lines = crate::web::Lines::default();
    crate::web::html_document_links(page, cfg.base.as_deref(), |m, web| {
        let line = if uses_line {
            lines.at(page, m.start)
        } else {
            0
        };
        emit.record_where(m, line, None, Some(web));
    });
    if tail.is_empty() && rest.is_none() {
        return None;
    }
    urlsift_core::report!(
        "{name}: byte {cut}: HTML longer than {cap} bytes: the rest is read as text"
    );
    let before = if uses_line {
        parallel::newlines(page)
    } else {
        0
    };
    let text: Box<dyn Read + '_> = match rest {
        Some(r) => Box::new(tail.chain(r)),
        None => Box::new(tail),
    };
    let res = parallel::scan_reader(
        &cfg.extractor,
        text,
        parallel::DEFAULT_BLOCK_SIZE,
        cfg.chunk_size,
        |m, line| {
            let abs = Match {
                start: m.start + cut,
                end: m.end + cut,
                url: std::borrow::Cow::Borrowed(&m.url),
                ..*m
            };
            emit.record(&abs, if uses_line { line + before } else { line });
        },
    );
    match res {
        Err(e) if !emit.stopped() => Some(format!("{name}: {e}")),
        _ => None,
    }
}

/// Records of a web archive gathered before their links are found in
/// parallel: at most this many block bytes ...
const WARC_BATCH_BYTES: usize = 32 << 20;
/// ... or this many records.
const WARC_BATCH_RECORDS: usize = 1024;

/// Records of a web archive read ahead: a batch, and how it ended.
struct WarcBatch {
    recs: Vec<urlsift_warc::Record>,
    /// The archive ended after these records.
    end: bool,
    /// A problem met after these records.
    issue: Option<urlsift_warc::Issue>,
}

/// Read the next batch of records: until [`WARC_BATCH_BYTES`] of blocks or
/// [`WARC_BATCH_RECORDS`] records, a problem, or the end.
fn read_warc_batch<R: Read>(reader: &mut urlsift_warc::Reader<R>) -> WarcBatch {
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
/// (in parallel, a batch of records at a time) and sent on in file order.
/// When records may be formatted apart, the next batch is read and inflated
/// on the pool while the links of this one are found, so reading is not a
/// serial step between batches. Warnings (a malformed record) are printed;
/// the first error (a corrupt gzip member, a truncated file) is the input's
/// error, the others are printed. The reader resynchronises at the next
/// record either way.
fn scan_warc(
    cfg: &Config<'_>,
    name: &str,
    r: impl Read + Send,
    emit: &mut Emit<'_>,
    stop: &AtomicBool,
) -> Option<String> {
    let opts = LinkOptions {
        base: cfg.base.clone(),
        ..LinkOptions::default()
    };
    let ahead = emit.parallel();
    let mut error = None;
    let mut reader = urlsift_warc::Reader::new(r);
    let mut cur = read_warc_batch(&mut reader);
    loop {
        // Links of the records so far first, then the problem, in file order.
        let (ok, next) = if ahead && !cur.end {
            let (ok, next) = rayon::join(
                || warc_batch(cfg, name, &cur.recs, &opts, emit),
                || read_warc_batch(&mut reader),
            );
            (ok, Some(next))
        } else {
            (warc_batch(cfg, name, &cur.recs, &opts, emit), None)
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
            None => read_warc_batch(&mut reader),
        };
    }
    error
}

/// The links of `recs`, in order: formatted in parallel when records may be
/// formatted apart, else one by one. False when the run stops.
fn warc_batch(
    cfg: &Config<'_>,
    name: &str,
    recs: &[urlsift_warc::Record],
    opts: &LinkOptions,
    emit: &mut Emit<'_>,
) -> bool {
    use rayon::prelude::*;
    if recs.is_empty() {
        return true;
    }
    if emit.parallel() {
        let plan = emit.former.plan;
        let batches: Vec<Batch> = recs
            .par_iter()
            .map(|rec| {
                let mut f = Former::new(cfg, name, plan);
                let mut out = Batch::default();
                record_links(rec, opts, |m, web| {
                    if f.accepts(m) {
                        f.add(m, 0, None, Some(web), &mut out);
                    }
                });
                out
            })
            .collect();
        for b in batches {
            if !emit.take(b) {
                return false;
            }
        }
        return true;
    }
    for rec in recs {
        record_links(rec, opts, |m, web| emit.record_where(m, 0, None, Some(web)));
        if emit.failed {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use urlsift_printer::Options;

    #[test]
    fn workers_in_their_own_pools_print_what_the_global_pool_prints() {
        let dir = tempfile::tempdir().unwrap();
        let mut sources = Vec::new();
        for i in 0..12 {
            let p = dir.path().join(format!("{i:02}.txt"));
            // One large file, scanned in many chunks; the rest small.
            let n = if i == 5 { 40_000 } else { 30 };
            let text: String = (0..n)
                .map(|k| format!("line {k} http://h{i}.example/{k} www.w{k}.example\n"))
                .collect();
            std::fs::write(&p, text).unwrap();
            sources.push(Source::Path(p));
        }
        sources.insert(3, Source::Path(dir.path().join("missing.txt")));
        let opts = Options {
            format: Format::Json,
            normalize: true,
            ..Options::default()
        };
        let cfg = Config {
            threads: 3,
            chunk_size: 4096,
            ..Config::new(opts, Extractor::new())
        };
        let (mut want, mut want_err) = (Vec::new(), Vec::new());
        let sum = run(&cfg, &sources, &mut want, &mut want_err);
        assert_eq!((sum.found, sum.errors), (2 * (40_000 + 11 * 30), 1));
        let pools: Vec<_> = (0..3)
            .map(|_| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(2)
                    .build()
                    .unwrap()
            })
            .collect();
        let (mut got, mut got_err) = (Vec::new(), Vec::new());
        let entered = AtomicBool::new(false);
        let sum = run_to_within(
            &cfg,
            &sources,
            vec![Box::new(&mut got)],
            &mut got_err,
            &|i, n, scan| {
                assert_eq!(n, 3);
                pools[i].install(|| {
                    assert_eq!(rayon::current_num_threads(), 2);
                    entered.store(true, Ordering::Relaxed);
                    scan()
                })
            },
        );
        assert!(entered.load(Ordering::Relaxed));
        assert_eq!((sum.found, sum.errors), (2 * (40_000 + 11 * 30), 1));
        assert!(got == want && got_err == want_err);

        // A worker that never runs its work ends the run; it never hangs.
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let sum = run_to_within(
            &cfg,
            &sources,
            vec![Box::new(&mut out)],
            &mut err,
            &|_, _, _| {},
        );
        assert_eq!(sum.found, 0);
    }
}
