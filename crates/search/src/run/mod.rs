//! A run over many inputs: files spread over worker threads, output in input order.
//!
//! # The ordered pipeline
//!
//! `threads` workers take the inputs in order, one file at a time. A worker
//! scans its file: a big mapped file in chunks on the rayon pool
//! ([`urlsift_core::Finder::map`]), each chunk's records
//! turned into a [`Batch`] by its own
//! [`Sink`](urlsift_printer::Sink) on the pool too, so one file
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
//! records, or about [`BATCH`] bytes of records taken one at a time). A worker that
//! runs ahead blocks until the consumer reaches its file; the worker holding
//! the consumer's file never waits on another, so the pipeline cannot
//! deadlock.
//!
//! `-m`, `-l` and `-q` are a cut where a worker takes its units in order:
//! every unit is formatted in parallel (holding at most as many records as
//! the input may take, each one's end marked), and the worker keeps the
//! records the input may still take, cutting the unit there. Then the input
//! is full, or under `-q` the run stops, and the scan stops reading: a
//! mapped file after the segment, a stream after the block, mail after the
//! batch of messages, a web archive after the batch of records.
//! `--vimgrep` takes text records one at a time, in order, as each
//! column counts from the text before it.
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

use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use crate::input::Source;
use urlsift_core::{Extractor, Match};
use urlsift_printer::Options;
use urlsift_printer::dedup;
use urlsift_printer::{Batch, PrintError, Printer};

/// Bytes per formatted batch sent from a worker to the consumer.
pub const BATCH: usize = 64 << 10;

/// Batches a file may have waiting before its worker blocks.
pub const IN_FLIGHT: usize = 4;

pub use urlsift_printer::{RecordWriter, ShardBy};

mod format;
mod html;
mod scan;
mod warc;
pub use warc::{RecordFilter, StatusPattern};

use format::SpareBatches;
pub use scan::Reading;
use scan::scan_source;

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
    /// Of an HTML page (a file's or a web archive record's), only its links
    /// and the URLs of the text between its tags (`--links-only`,
    /// [`urlsift_warc::LinkOptions::links_only`]); else every URL.
    pub links_only: bool,
    /// The most bytes of one input read as HTML (default
    /// [`crate::web::MAX_HTML`]); the text rules read the rest.
    pub max_html: usize,
    /// Scan web archive payloads that are not text as text (`--binary`).
    pub binary: bool,
    /// Which web archive records are read (`--record-type`,
    /// `--content-type`, `--status`).
    pub records: RecordFilter,
    /// Give each record the 1-based byte column of its URL in its line in
    /// place of its byte offset (`--vimgrep`: with
    /// [`Options::byte_offset`], text lines read `file:line:column:url`).
    /// The column is in the text the line is counted in (under `--mail`,
    /// the file's line); a web archive's links have neither (0). Records
    /// are then formatted one input at a time, in order.
    pub column: bool,
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
        urlsift_core::Kind::Www => b"http",
        urlsift_core::Kind::Uri => {
            let end = memchr::memchr(b':', &m.url).unwrap_or(0);
            &m.url[..end]
        }
    }
}

impl Config<'_> {
    /// What the HTML of a page gives: every URL, or with
    /// [`Config::links_only`], its links and text; `base` is left unset.
    pub(crate) fn link_options(&self) -> urlsift_warc::LinkOptions {
        let opts = if self.links_only {
            urlsift_warc::LinkOptions::links_only()
        } else {
            urlsift_warc::LinkOptions::default()
        };
        urlsift_warc::LinkOptions {
            binary: self.binary,
            ..opts
        }
    }

    /// A configuration with these options and extractor, and defaults for
    /// the rest: one thread per core, the default chunk size, no memory
    /// bound, no mail, no progress.
    pub fn new(opts: Options, extractor: Extractor) -> Config<'static> {
        Config {
            opts,
            quiet: false,
            strict: false,
            threads: rayon::current_num_threads(),
            chunk_size: urlsift_core::DEFAULT_CHUNK_SIZE,
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
            links_only: false,
            max_html: crate::web::MAX_HTML,
            column: false,
            binary: false,
            records: RecordFilter::default(),
        }
    }
}

/// How a run read an input: what `--stats` counts per kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// Plain text (compressed or not; under `--mail`, an input that is
    /// not mail).
    Text,
    /// An HTML page.
    Html,
    /// Mail (`--mail`).
    Mail,
    /// A web archive.
    WebArchive,
}

impl InputKind {
    /// Every kind, in the order `--stats` lists them.
    pub const ALL: [InputKind; 4] = [
        InputKind::Text,
        InputKind::Html,
        InputKind::Mail,
        InputKind::WebArchive,
    ];

    /// Its name in `--stats`.
    ///
    /// ```
    /// use urlsift_search::run::InputKind;
    /// let names: Vec<_> = InputKind::ALL.iter().map(|k| k.name()).collect();
    /// assert_eq!(names, ["text", "html", "mail", "web archive"]);
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            InputKind::Text => "text",
            InputKind::Html => "html",
            InputKind::Mail => "mail",
            InputKind::WebArchive => "web archive",
        }
    }
}

/// What a run read of one kind of input ([`Summary::kinds`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KindStats {
    /// Inputs read as this kind.
    pub inputs: u64,
    /// Their size as stored: a regular file's length (read whole or not:
    /// `-m` and `-q` stop early), or the bytes read from standard input or
    /// a pipe.
    pub bytes: u64,
    /// The URLs taken from them (after `--strict`, `--scheme` and `-m`; one
    /// per listed input with `-l`).
    pub urls: u64,
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
    /// What was read of each kind of input, in the order of
    /// [`InputKind::ALL`]: inputs that were opened and scanned (not those
    /// that failed to open, nor those `-m 0` did not read).
    ///
    /// ```
    /// use urlsift_core::Extractor;
    /// use urlsift_search::input::Source;
    /// use urlsift_search::run::{self, InputKind};
    /// let dir = tempfile::tempdir().unwrap();
    /// let p = dir.path().join("a.txt");
    /// std::fs::write(&p, "see http://a.example/ and http://b.example/\n").unwrap();
    /// let cfg = run::Config::new(Default::default(), Extractor::new());
    /// let sum = run::run(&cfg, &[Source::Path(p)], &mut Vec::new(), &mut Vec::new());
    /// let text = sum.of_kind(InputKind::Text);
    /// assert_eq!((text.inputs, text.bytes, text.urls), (1, 44, 2));
    /// assert_eq!(sum.of_kind(InputKind::Html).inputs, 0);
    /// ```
    pub kinds: [KindStats; 4],
    /// The web archive payloads that gave no links because they are not
    /// text (`--binary` reads them) or in a format with links that is not
    /// read (PDF, ...), with how many of each class, in the order of
    /// [`urlsift_warc::Skipped`].
    pub skipped: Vec<(urlsift_warc::Skipped, u64)>,
}

impl Summary {
    /// What was read of inputs of `kind`.
    pub fn of_kind(&self, kind: InputKind) -> KindStats {
        self.kinds[kind as usize]
    }

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
    /// The input is done: the last message of its channel.
    End(InputEnd),
    /// The worker scanning this input panicked: the run ends.
    Died(String),
    /// The input paused, and every record before the pause was sent: what
    /// was written is flushed.
    Flush,
}

/// Scan `sources` and write the result to `out` in input order; errors go to
/// `err`, one line each (`urlsift: FILE: message`), in input order too.
///
/// ```
/// use urlsift_core::Extractor;
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
/// the writer of its shard (chosen by the fingerprint of its
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
/// use urlsift_core::Extractor;
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
    // The queue hands out the next input and queues its channel, under one
    // lock, so the consumer sees the channels in input order.
    let (order_tx, order_rx) = sync_channel::<(usize, Receiver<Msg>)>(threads);
    let queue = Mutex::new(InputQueue {
        next: 0,
        order: Some(order_tx),
    });
    let mut summary = Summary::default();
    // Batches alive at once: per worker, the chunks in flight on the pool
    // (up to three per thread) and those waiting in its channel.
    let pool = rayon::current_num_threads().max(cfg.threads).max(1);
    let spares = SpareBatches::new(threads * (3 * pool + IN_FLIGHT + 1));
    let skipped = SkippedPayloads::default();
    let run = RunShared {
        skipped: &skipped,
        cfg,
        sources,
        shards: outs.len().max(1),
        spares: &spares,
        stop: &stop,
    };
    std::thread::scope(|s| {
        for i in 0..threads {
            let (run, queue) = (&run, &queue);
            s.spawn(move || {
                // Let go of the order channel when the thread ends, even if
                // `enter` never runs the work (the run then ends early).
                let _release = Release(queue);
                enter(i, threads, &mut || worker(run, queue));
            });
        }
        summary = consume(&run, order_rx, outs, err);
        stop.store(true, Ordering::Relaxed);
    });
    summary.skipped = skipped
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .into_iter()
        .collect();
    summary
}

/// What the workers and the consumer of a run share.
struct RunShared<'a> {
    cfg: &'a Config<'a>,
    sources: &'a [Source],
    /// Writers the records are sharded over.
    shards: usize,
    /// Batches written out, kept for reuse.
    spares: &'a SpareBatches,
    /// Set when the run stops early (a write error, `-q`'s first match).
    stop: &'a AtomicBool,
    /// Web archive payloads not read, by why.
    skipped: &'a SkippedPayloads,
}

/// Why a web archive payload gave no links ([`Summary::skipped`]).
pub use urlsift_warc::Skipped;

/// How many web archive payloads gave no links, by why
/// ([`urlsift_warc::Skipped`]), counted as records are read.
pub(crate) type SkippedPayloads = Mutex<std::collections::BTreeMap<urlsift_warc::Skipped, u64>>;

/// The inputs still to scan: the next one's index, and the channel on which
/// each input's own channel is queued for the consumer (`None` once the
/// workers are done).
struct InputQueue {
    next: usize,
    order: Option<SyncSender<(usize, Receiver<Msg>)>>,
}

/// However a worker ends (all inputs taken, stopping, or a panic), it lets
/// go of the order channel: once every worker has, the consumer's loop over
/// the channels ends.
struct Release<'c>(&'c Mutex<InputQueue>);

impl Drop for Release<'_> {
    fn drop(&mut self) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).order = None;
    }
}

/// Scan inputs from `queue` until there are none left or the run stops.
fn worker(run: &RunShared<'_>, queue: &Mutex<InputQueue>) {
    let sources = run.sources;
    loop {
        if run.stop.load(Ordering::Relaxed) {
            break;
        }
        let (idx, tx) = {
            let mut q = queue.lock().unwrap_or_else(|p| p.into_inner());
            let idx = q.next;
            if idx >= sources.len() {
                break;
            }
            q.next += 1;
            let (tx, rx) = sync_channel(IN_FLIGHT);
            let Some(order) = q.order.as_ref() else { break };
            if order.send((idx, rx)).is_err() {
                break;
            }
            (idx, tx)
        };
        let scanned = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            scan_source(run, &sources[idx], &tx)
        }));
        if let Err(payload) = scanned {
            // A bug, not bad input: end the run (exit 2) with what it has
            // written so far, naming the input it died on.
            run.stop.store(true, Ordering::Relaxed);
            let _ = tx.send(Msg::Died(format!(
                "{}: internal error, the run stops here: {}",
                sources[idx].name(),
                urlsift_core::diag::panic_message(payload.as_ref())
            )));
            break;
        }
    }
}

/// The end of one input, as its worker sent it ([`Msg::End`]).
struct InputEnd {
    /// The URLs it took.
    count: u64,
    /// It was opened (an input that was not is never listed nor counted).
    opened: bool,
    /// What went wrong, if anything.
    error: Option<String>,
    /// The input looks like mail (for the one hint of a run).
    mail_like: bool,
    /// How it was read, and its size as stored (`None`: not read).
    read: Option<(InputKind, u64)>,
}

/// The consumer: the printer, and what the run found so far.
struct Consumer<'r, 'o> {
    run: &'r RunShared<'r>,
    printer: Printer<'o>,
    sum: Summary,
    /// The one hint of a run that an input looks like mail was given.
    hinted: bool,
}

/// Read the inputs' channels in input order and print their batches.
fn consume<'o>(
    run: &RunShared<'_>,
    order: Receiver<(usize, Receiver<Msg>)>,
    outs: Vec<Box<dyn RecordWriter + 'o>>,
    err: &mut dyn Write,
) -> Summary {
    let cfg = run.cfg;
    let mut c = Consumer {
        run,
        printer: Printer::new(&cfg.opts, outs, cfg.max_memory, cfg.temp_dir.clone()),
        sum: Summary::default(),
        hinted: false,
    };
    let result = (|| -> Result<(), PrintError> {
        for (idx, rx) in order.iter() {
            let name = run.sources[idx].name();
            c.input(&name, rx, err)?;
            if (cfg.quiet && c.sum.found > 0) || c.sum.died.is_some() {
                break;
            }
        }
        Ok(())
    })();
    let Consumer {
        mut printer,
        mut sum,
        ..
    } = c;
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
            run.stop.store(true, Ordering::Relaxed);
            sum.write_error = Some(e);
        }
        Err(PrintError::Dedup(e)) => {
            run.stop.store(true, Ordering::Relaxed);
            let dir = cfg.temp_dir.clone().unwrap_or_else(std::env::temp_dir);
            sum.dedup_error = Some(format!(
                "de-duplication: spilling to {}: {e}",
                dir.display()
            ));
        }
    }
    sum
}

impl Consumer<'_, '_> {
    /// Print the batches of the input `name` from `rx`, then its end.
    fn input(
        &mut self,
        name: &str,
        rx: Receiver<Msg>,
        err: &mut dyn Write,
    ) -> Result<(), PrintError> {
        let mut ended = false;
        for msg in rx.iter() {
            match msg {
                Msg::Batch(b) => {
                    self.printer.batch(&b)?;
                    self.run.spares.give(b);
                }
                Msg::End(end) => {
                    self.end(name, end, err)?;
                    ended = true;
                    break;
                }
                Msg::Flush => self.printer.flush()?,
                Msg::Died(e) => {
                    ended = true;
                    self.printer.flush()?;
                    let _ = writeln!(err, "urlsift: {e}");
                    self.sum.died = Some(e);
                    break;
                }
            }
        }
        if !ended && self.sum.died.is_none() && !self.run.stop.load(Ordering::Relaxed) {
            // The worker let go of this input without finishing it.
            let e = format!("{name}: internal error: the scan ended without a result");
            let _ = writeln!(err, "urlsift: {e}");
            self.sum.died = Some(e);
        }
        Ok(())
    }

    /// The end of the input `name`: its counts, its name under `-l`, its
    /// count under `-c`, its error.
    fn end(&mut self, name: &str, end: InputEnd, err: &mut dyn Write) -> Result<(), PrintError> {
        let cfg = self.run.cfg;
        let opts = &cfg.opts;
        let count = end.count;
        if let Some((kind, bytes)) = end.read {
            let k = &mut self.sum.kinds[kind as usize];
            k.inputs += 1;
            k.bytes += bytes;
            k.urls += count;
        }
        if end.mail_like && !self.hinted {
            // One hint per run, for the first such input.
            self.hinted = true;
            urlsift_core::report!("{}", urlsift_mail::hint_message(name));
        }
        let listed = cfg.list.and_then(|list| {
            let show = (count > 0) == (list == List::WithMatches);
            (show && end.opened).then_some(list)
        });
        // grep -L: found means a file was listed.
        self.sum.found += match cfg.list {
            Some(List::WithoutMatch) => u64::from(listed.is_some()),
            _ => count,
        };
        if listed.is_some() && !cfg.quiet {
            self.printer.file_name(name)?;
        }
        // grep's -m 0 -c prints no count: nothing was read.
        if opts.count && end.opened && !cfg.quiet && cfg.max_count != Some(0) {
            self.printer.file_count(name, count)?;
        }
        if let Some(e) = end.error {
            self.sum.errors += 1;
            // Keep stdout and stderr in order on a terminal.
            self.printer.flush()?;
            let _ = writeln!(err, "urlsift: {e}");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use urlsift_printer::{Format, Options};

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
