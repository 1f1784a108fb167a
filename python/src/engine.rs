//! Every use of the `urlsift` library crate by the Python bindings.
//!
//! The rest of the extension (`lib.rs`, `arrow.rs`, `files.rs`) sees only the plain Rust
//! types of this file, so moving from the root crate to the light crates
//! (`urlsift-core` for classify/extract/parallel, `urlsift-uri`, the mail
//! decoder) changes this file and `Cargo.toml`, nothing else.
//!
//! What the bindings promise, and how this file keeps it:
//!
//! - `urls` is what `urlsift FILE` prints: the same extractor
//!   ([`Extractor::new`], which honours `URLSIFT_ISA` as the CLI does), the
//!   same segment size as the CLI's whole-file scan (`2 * threads *
//!   chunk`), and the URL bytes as the text output writes them.
//! - `find` is what `--format json --normalize` prints, field by field.
//! - An HTML page (`html=`, sniffed with the CLI's [`HtmlMode`]) is read as
//!   the CLI reads an HTML file: [`web::html_document_links`] against
//!   `base`, lines counted the same way, text rules past [`web::MAX_HTML`].
//! - Output never depends on the thread count ([`urlsift_core::Finder`]'s
//!   invariant); one thread runs on the caller's thread for plain text.
//! - `scan_files` ([`FileScan`]) is `--format parquet`: the CLI's own
//!   pipeline ([`run::run_to_within`]) with the CLI's options, its rows
//!   (the ones the Parquet writer encodes) turned by the printer's
//!   [`BatchDecoder`] into Arrow batches of the Parquet schema, each worker
//!   scanning in a rayon pool of its own.
//! - Every Arrow table has the types of that one schema ([`record_field`]):
//!   signed 64-bit integers, UTF-8 text.
//! - No panic leaves this file: each entry point runs under
//!   [`std::panic::catch_unwind`] and turns a panic into [`Error::Internal`].

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{self, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use rayon::prelude::*;
use urlsift_core::{Extractor, Match};
use urlsift_core::{Finder, Found};
use urlsift_mail::{self as mail, MailWhere};
use urlsift_printer::WebWhere;
use urlsift_printer::arrow::BatchDecoder;
use urlsift_printer::dedup::KeyLevel;
use urlsift_printer::{Format, Options, Parts};
use urlsift_search::input::{self, Source};
use urlsift_search::run;
pub use urlsift_search::run::HtmlMode;
use urlsift_search::web;
pub use urlsift_search::web::MAX_HTML;
use urlsift_uri::{self as uri, NormalizeOptions, UriRef};

/// Bytes per parallel chunk: the CLI's default (`--chunk-size`).
pub const CHUNK: usize = urlsift_core::DEFAULT_CHUNK_SIZE;

/// Why a call failed.
#[derive(Debug)]
pub enum Error {
    /// A URI reference that is not valid RFC 3986: where, and why.
    Uri {
        /// Byte offset in the reference.
        offset: usize,
        /// The one-line reason.
        reason: &'static str,
        /// `Some("base")` when the base of a resolution is at fault.
        which: Option<&'static str>,
    },
    /// A bad argument (an unknown normalization level, ...).
    Argument(String),
    /// A bug: the engine panicked. The message of the panic.
    Internal(String),
}

impl From<uri::Error> for Error {
    fn from(e: uri::Error) -> Self {
        Error::Uri {
            offset: e.index,
            reason: e.kind.message(),
            which: None,
        }
    }
}

/// Run `f`, turning a panic into [`Error::Internal`].
fn guarded<T>(f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => Err(Error::Internal(urlsift_core::diag::panic_message(
            payload.as_ref(),
        ))),
    }
}

/// How many threads a scan uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threads {
    /// The calling thread only (`threads=1`).
    Caller,
    /// A pool of this many threads (at least 2).
    Pool(usize),
}

impl Threads {
    /// `threads=` as given: `None` is one per core (`RAYON_NUM_THREADS`
    /// when set, as the CLI), 0 is refused by the caller.
    pub fn from_arg(n: Option<usize>) -> Threads {
        match n.unwrap_or_else(default_threads) {
            0 | 1 => Threads::Caller,
            n => Threads::Pool(n),
        }
    }

    /// The number of threads.
    pub fn count(self) -> usize {
        match self {
            Threads::Caller => 1,
            Threads::Pool(n) => n,
        }
    }
}

/// The CLI's default thread count: `RAYON_NUM_THREADS`, else one per core.
fn default_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
        .unwrap_or(1)
}

/// One rayon pool per size, made on first use and kept. The pools belong
/// to the process that made them: after a `fork` (multiprocessing, Spark's
/// Python daemon) their threads are gone, so a child makes its own.
fn pool(n: usize) -> Result<Arc<rayon::ThreadPool>, Error> {
    type Pools = (u32, HashMap<usize, Arc<rayon::ThreadPool>>);
    static POOLS: Mutex<Option<Pools>> = Mutex::new(None);
    let pid = std::process::id();
    let mut g = POOLS.lock().unwrap_or_else(|p| p.into_inner());
    let pools = g.get_or_insert_with(|| (pid, HashMap::new()));
    if pools.0 != pid {
        // The parent's pools have no threads here; dropping one would wait
        // on none, but leave them alone all the same.
        std::mem::forget(std::mem::take(&mut pools.1));
        pools.0 = pid;
    }
    if let Some(p) = pools.1.get(&n) {
        return Ok(p.clone());
    }
    let p = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .thread_name(|i| format!("urlsift-{i}"))
        .build()
        .map_err(|e| Error::Argument(format!("threads: {e}")))?;
    let p = Arc::new(p);
    pools.1.insert(n, p.clone());
    Ok(p)
}

/// Scan plain text, every match to `sink` in input order, with its line
/// when `lines` (counting lines is a pass over the text).
fn scan_plain<'h>(
    data: &'h [u8],
    threads: Threads,
    lines: bool,
    mut sink: impl FnMut(&Match<'h>, u64) + Send,
) -> Result<(), Error> {
    let finder = Finder::new().lines(lines);
    let each = |Found { m, line, .. }: Found<'h>| {
        sink(&m, line);
        true
    };
    match threads {
        // No chunks (chunk size = everything): one sequential scan per
        // segment, on this thread; the pool is never touched.
        Threads::Caller => {
            let finder = finder.segment_size(2 * CHUNK).chunk_size(usize::MAX);
            finder.scan(data, each)
        }
        Threads::Pool(n) => pool(n)?.install(|| {
            let finder = finder.segment_size(2 * n * CHUNK).chunk_size(CHUNK);
            finder.scan(data, each)
        }),
    }
    Ok(())
}

/// Something wrong with a message of a mail archive (it was scanned as far
/// as it could be), or an input that is not mail, as `urlsift --mail`
/// reports it on standard error.
#[derive(Clone, Debug)]
pub struct Problem {
    /// The byte offset in the input where the problem is.
    pub offset: u64,
    /// The message's 1-based index; `None` for an input that is not mail.
    pub message: Option<u64>,
    /// What is wrong, in one line.
    pub what: String,
}

/// Scan a mail archive (mbox, maildir file, `.eml`): every match to `sink`
/// in order, with where it came from and its line in the input. An input
/// that is not mail ([`mail::is_plain_text`]) is scanned as the CLI scans
/// it: as plain text, each URL in its one `text/plain` part (with its line
/// when `lines`), and one problem says so.
fn scan_mail(
    data: &[u8],
    threads: Threads,
    lines: bool,
    mut sink: impl FnMut(&MailWhere, u64, &Match<'_>) + Send,
) -> Result<Vec<Problem>, Error> {
    if mail::is_plain_text(data) {
        scan_plain(data, threads, lines, |m, line| {
            sink(&MailWhere::plain_text(m.start as u64, line), line, m)
        })?;
        return Ok(vec![Problem {
            offset: 0,
            message: None,
            what: mail::NOT_MAIL.to_string(),
        }]);
    }
    let ex = Extractor::new();
    let mut problems = Vec::new();
    // The mail reader spreads messages over the current rayon pool: a pool
    // of one for `threads=1`, so it never starts the global pool.
    pool(threads.count())?.install(|| {
        mail::scan_archive(&ex, data, &mut sink, |p| {
            problems.push(Problem {
                offset: p.offset,
                message: Some(p.message),
                what: p.what.clone(),
            })
        })
    });
    Ok(problems)
}

/// A batch of URLs of a scan, as the CLI's text output prints them: each
/// is a span of the input, or (when the URL was rewritten: joined across
/// lines, decoded from a mail part) a span of `owned`.
#[derive(Debug, Default)]
pub struct UrlList {
    /// `(start, end, in_input)`: the URL is `input[start..end]` when
    /// `in_input`, else `owned[start..end]`.
    pub spans: Vec<(usize, usize, bool)>,
    /// The rewritten URLs, one after the other.
    pub owned: Vec<u8>,
}

impl UrlList {
    /// The bytes of URL `i`.
    pub fn get<'a>(&'a self, input: &'a [u8], i: usize) -> &'a [u8] {
        let (s, e, in_input) = self.spans[i];
        if in_input {
            &input[s..e]
        } else {
            &self.owned[s..e]
        }
    }

    fn push(&mut self, input: &[u8], url: &[u8]) {
        let base = input.as_ptr() as usize;
        let at = (url.as_ptr() as usize).wrapping_sub(base);
        if at <= input.len() && url.len() <= input.len() - at {
            self.spans.push((at, at + url.len(), true));
        } else {
            let s = self.owned.len();
            self.owned.extend_from_slice(url);
            self.spans.push((s, self.owned.len(), false));
        }
    }
}

/// URLs per batch handed to the caller of [`urls`].
pub const BATCH_URLS: usize = 1 << 16;

/// How `urls` and `find` read their input: the CLI's `--mail`, `--html`
/// / `--no-html` (sniffing by default) and `--base`.
#[derive(Clone, Debug)]
pub struct ReadOptions {
    /// Read the input as mail (`--mail`); HTML is then not looked for.
    pub mail: bool,
    /// Which input is read as HTML.
    pub html: HtmlMode,
    /// The base URI of an HTML document's relative links.
    pub base: Option<String>,
    /// Of HTML, only the links of URL attributes and the URLs of the text
    /// between tags (`--links-only`); else every URL.
    pub links_only: bool,
}

impl ReadOptions {
    /// How HTML pages and web archive records are read.
    fn link_options(&self) -> urlsift_warc::LinkOptions {
        let opts = if self.links_only {
            urlsift_warc::LinkOptions::links_only()
        } else {
            urlsift_warc::LinkOptions::default()
        };
        urlsift_warc::LinkOptions {
            base: self.base.clone(),
            ..opts
        }
    }
}

/// What a scan reports besides its URLs.
#[derive(Debug, Default)]
pub struct Notes {
    /// The problems of a mail archive's messages.
    pub problems: Vec<Problem>,
    /// The problems of a web archive's records (a record that could not be
    /// read whole, a payload that did not decode), or of compressed input
    /// that did not decompress, as the CLI reports them on standard error.
    pub input_problems: Vec<Problem>,
    /// An HTML document longer than [`web::MAX_HTML`]: the byte where
    /// reading it as HTML stopped (the text rules read the rest), as the
    /// CLI reports `FILE: byte N: HTML longer than ...`.
    pub html_cut: Option<usize>,
}

/// Scan an HTML document as the CLI scans an HTML file: its links
/// ([`web::html_document_links`], against `base`), with their lines when
/// `lines`, to `sink` in document order. Past [`web::MAX_HTML`] bytes it
/// is HTML up to its last newline before that, and the text rules read
/// the rest (offsets and lines in the whole input); returns where that
/// cut is.
fn scan_html(
    data: &[u8],
    opts: &urlsift_warc::LinkOptions,
    threads: Threads,
    lines: bool,
    mut sink: impl FnMut(&Match<'_>, u64, Option<&WebWhere>) + Send,
) -> Result<Option<usize>, Error> {
    let cap = web::MAX_HTML;
    let cut = if data.len() <= cap {
        data.len()
    } else {
        memchr::memrchr(b'\n', &data[..cap]).map_or(cap, |p| p + 1)
    };
    let (page, tail) = data.split_at(cut);
    let mut counter = web::Lines::default();
    web::html_document_links_with(page, opts, |m, w| {
        let line = if lines { counter.at(page, m.start) } else { 0 };
        sink(m, line, Some(w));
    });
    if tail.is_empty() {
        return Ok(None);
    }
    let before = if lines { urlsift_core::newlines(page) } else { 0 };
    scan_plain(tail, threads, lines, |m, line| {
        let abs = Match {
            start: m.start + cut,
            end: m.end + cut,
            url: std::borrow::Cow::Borrowed(&m.url),
            ..*m
        };
        sink(&abs, line + before, None);
    })?;
    Ok(Some(cut))
}

/// Scan `data` as the CLI scans a file of these bytes: as mail with
/// `opts.mail`, else as HTML if `opts.html` says so, else as plain text;
/// every match to `sink` in order, with its line when `lines`, and where
/// it came from.
fn scan_any(
    data: &[u8],
    opts: &ReadOptions,
    threads: Threads,
    lines: bool,
    mut sink: impl FnMut(&Match<'_>, u64, Option<&MailWhere>, Option<&WebWhere>) + Send,
) -> Result<Notes, Error> {
    let mut notes = Notes::default();
    let web_archive = input::is_warc(data);
    if !web_archive && input::sniff(data) != input::Encoding::Plain {
        // gzip or zstd: the bytes it decodes to, read as the CLI reads them.
        let (plain, problem) = decompress(data);
        let mut inner = scan_any(&plain, opts, threads, lines, sink)?;
        inner.input_problems.extend(problem);
        return Ok(inner);
    }
    match run::Reading::choose(data, web_archive, opts.mail, opts.html) {
        run::Reading::Mail | run::Reading::MailAsText => {
            notes.problems = scan_mail(data, threads, lines, |w, line, m| {
                sink(m, line, Some(w), None)
            })?;
        }
        run::Reading::Html => {
            notes.html_cut =
                scan_html(data, &opts.link_options(), threads, lines, |m, line, w| {
                    sink(m, line, None, w)
                })?;
        }
        run::Reading::WebArchive => {
            notes.input_problems =
                scan_archive(data, &opts.link_options(), |m, w| sink(m, 0, None, Some(w)));
        }
        run::Reading::Text => {
            scan_plain(data, threads, lines, |m, line| sink(m, line, None, None))?;
        }
    }
    Ok(notes)
}

/// What gzip (one member or many) or zstd input decodes to, and the
/// problem that cut it short, if one did: what decoded before it is kept,
/// as the CLI scans what a corrupt file gave.
fn decompress(data: &[u8]) -> (Vec<u8>, Option<Problem>) {
    use std::io::Read;
    let mut out = Vec::new();
    let res = match input::sniff(data) {
        input::Encoding::Gzip => flate2::read::MultiGzDecoder::new(data).read_to_end(&mut out),
        input::Encoding::Zstd => {
            zstd::stream::read::Decoder::new(data).and_then(|mut d| d.read_to_end(&mut out))
        }
        input::Encoding::Plain => return (data.to_vec(), None),
    };
    let problem = res.err().map(|e| Problem {
        offset: out.len() as u64,
        message: None,
        what: format!("decoded input ends early: {e}"),
    });
    (out, problem)
}

/// Read a web archive in memory (WARC 0.17 to 1.1, ARC, WAT, WET; plain,
/// gzip or LZ4 per record) as the CLI reads such a file: each record's
/// links, with its record fields ([`web::record_links`]), handed to `sink`
/// in file order, relative links resolved against the record's URI (else
/// `base`). Returns the problems of the records, each at its byte offset.
fn scan_archive(
    data: &[u8],
    opts: &urlsift_warc::LinkOptions,
    mut sink: impl FnMut(&Match<'_>, &WebWhere),
) -> Vec<Problem> {
    let mut problems = Vec::new();
    for item in urlsift_warc::Reader::new(data) {
        match item {
            Ok(rec) => {
                let problem = web::record_links(&rec, opts, &mut sink);
                if let Some(what) = problem.filter(|_| !rec.truncated) {
                    problems.push(Problem {
                        offset: rec.offset,
                        message: None,
                        what,
                    });
                }
            }
            Err(issue) => problems.push(Problem {
                offset: issue.offset,
                message: None,
                what: issue.message,
            }),
        }
    }
    problems
}

/// What `urlsift FILE` (with `--mail`, `--html`, `--base`: see
/// [`ReadOptions`]) prints for `data`: the URLs, in order, handed to
/// `on_batch` a batch at a time (so the caller can turn one batch into
/// Python objects while the next is scanned).
pub fn urls(
    data: &[u8],
    opts: &ReadOptions,
    threads: Threads,
    mut on_batch: impl FnMut(UrlList) + Send,
) -> Result<Notes, Error> {
    guarded(|| {
        let mut cur = UrlList::default();
        let notes = scan_any(data, opts, threads, false, |m, _, _, _| {
            cur.push(data, &m.url);
            if cur.spans.len() >= BATCH_URLS {
                on_batch(std::mem::take(&mut cur));
            }
        })?;
        if !cur.spans.is_empty() {
            on_batch(cur);
        }
        Ok(notes)
    })
}

/// Where a URL found in a mail archive came from: the CLI's mail fields
/// (`--mail --format json`).
#[derive(Clone, Debug)]
pub struct MailInfo {
    /// The message's 1-based index in the input.
    pub message: u64,
    /// Its Message-ID (without `<>`).
    pub message_id: Option<String>,
    /// The byte offset of the message in the input.
    pub message_offset: u64,
    /// The part (0: the message's header block).
    pub part: u32,
    /// The part's `type/subtype` (`header` for a header block).
    pub content_type: String,
    /// The byte offset of the part's raw body in the input.
    pub part_offset: u64,
    /// The URL's byte offset in the decoded part text.
    pub part_start: u64,
    /// The URL's 1-based line in the decoded part text.
    pub part_line: u64,
}

/// One URL with everything `urlsift --format json --normalize` says about
/// it (but the file name), under the same names.
#[derive(Clone, Debug)]
pub struct Record {
    pub start: usize,
    pub end: usize,
    pub line: u64,
    pub url: String,
    pub normalized: Option<String>,
    pub style: &'static str,
    pub kind: &'static str,
    pub valid: bool,
    pub ambiguous: bool,
    pub scheme: Option<String>,
    pub userinfo: Option<String>,
    pub host: Option<String>,
    pub host_kind: Option<&'static str>,
    pub port: Option<String>,
    pub path: String,
    pub query: Option<String>,
    pub fragment: Option<String>,
    pub host_ascii: Option<String>,
    pub domain: Option<String>,
    pub mail: Option<MailInfo>,
    pub web: Option<WebInfo>,
}

/// Where a link of a web page came from: the CLI's web fields
/// (`found`, `source`, `source_name`, `warc_*`).
#[derive(Clone, Debug)]
pub struct WebInfo {
    /// The link as written, when it differs from `url`.
    pub found: Option<String>,
    /// `text`, `attribute` or `header`.
    pub source: &'static str,
    /// `tag@attribute` for an attribute, the name of a header.
    pub source_name: Option<String>,
    /// The web archive record's `WARC-Target-URI`.
    pub warc_target_uri: Option<String>,
    /// Its `WARC-Record-ID`.
    pub warc_record_id: Option<String>,
    /// Its `WARC-Date`.
    pub warc_date: Option<String>,
    /// Its `WARC-Type`.
    pub warc_type: Option<String>,
    /// Its byte offset in the file.
    pub warc_offset: Option<u64>,
    /// Its length in the file.
    pub warc_length: Option<u64>,
    /// Its HTTP status.
    pub http_status: Option<u16>,
    /// The `rel` of the link's tag.
    pub rel: Option<String>,
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn record(m: &Match<'_>, line: u64, w: Option<&MailWhere>, web: Option<&WebWhere>) -> Record {
    // An abbreviated `www.` URI is split as the network-path reference
    // `//www...`, as the CLI's JSON output does ([`Parts`]).
    let parts = Parts::new(m);
    let u = parts.uri();
    let (host_ascii, domain) = urlsift_printer::host_keys(u.host(), u.host_kind());
    Record {
        host_ascii,
        domain,
        start: m.start,
        end: m.end,
        line,
        url: lossy(&m.url),
        normalized: parts.normalized_at(KeyLevel::Scheme),
        style: <&str>::from(m.style),
        kind: <&str>::from(m.kind),
        valid: u.validate().is_ok(),
        ambiguous: m.ambiguous,
        scheme: u.scheme().map(lossy),
        userinfo: u.userinfo().map(lossy),
        host: u.host().map(lossy),
        host_kind: u.host_kind().map(|k| k.as_str()),
        port: u.port().map(lossy),
        path: lossy(u.path()),
        query: u.query().map(lossy),
        fragment: u.fragment().map(lossy),
        mail: w.map(|w| MailInfo {
            message: w.message,
            message_id: w.message_id.clone(),
            message_offset: w.message_offset,
            part: w.part,
            content_type: w.content_type.clone(),
            part_offset: w.part_offset,
            part_start: w.part_start,
            part_line: w.part_line,
        }),
        web: web.map(|w| WebInfo {
            found: w.found.clone(),
            source: w.source,
            source_name: w.source_name.as_deref().map(str::to_string),
            warc_target_uri: w.warc_target_uri.clone(),
            warc_record_id: w.warc_record_id.clone(),
            warc_date: w.warc_date.clone(),
            warc_type: w.warc_type.clone(),
            warc_offset: w.warc_offset,
            warc_length: w.warc_length,
            http_status: w.http_status,
            rel: w.rel.clone(),
        }),
    }
}

/// Every URL of `data` with its span, line, style and components, as
/// `urlsift --format json --normalize` gives them for a file of these bytes
/// (with the options of [`ReadOptions`]).
pub fn find(
    data: &[u8],
    opts: &ReadOptions,
    threads: Threads,
) -> Result<(Vec<Record>, Notes), Error> {
    let mut out = Vec::new();
    let notes = find_batches(data, opts, threads, |mut b| out.append(&mut b))?;
    Ok((out, notes))
}

/// Records per batch handed to the caller of [`find_batches`].
pub const BATCH_RECORDS: usize = 1 << 12;

/// [`find`]'s records, in order, handed to `on_batch` a batch of at most
/// [`BATCH_RECORDS`] at a time (for a caller that streams them).
pub fn find_batches(
    data: &[u8],
    opts: &ReadOptions,
    threads: Threads,
    mut on_batch: impl FnMut(Vec<Record>) + Send,
) -> Result<Notes, Error> {
    guarded(|| {
        let mut cur = Vec::new();
        let notes = scan_any(data, opts, threads, true, |m, line, mail, web| {
            cur.push(record(m, line, mail, web));
            if cur.len() >= BATCH_RECORDS {
                on_batch(std::mem::take(&mut cur));
            }
        })?;
        if !cur.is_empty() {
            on_batch(cur);
        }
        Ok(notes)
    })
}

/// `urlsift parse URL`: the components of the RFC 3986 Appendix B split
/// (shown even for an invalid reference), whether it is valid RFC 3986 and
/// why not, and an RFC 1738 scheme rule it breaks.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub valid: bool,
    pub scheme: Option<String>,
    pub userinfo: Option<String>,
    pub host: Option<String>,
    pub host_kind: Option<&'static str>,
    pub port: Option<String>,
    pub path: String,
    pub query: Option<String>,
    pub fragment: Option<String>,
    pub host_ascii: Option<String>,
    pub domain: Option<String>,
    /// `(offset, message)` of the first RFC 3986 error.
    pub error: Option<(usize, String)>,
    /// `(offset, message)` of a broken scheme rule.
    pub scheme_error: Option<(usize, String)>,
}

/// [`Parsed`] of `input`.
pub fn parse(input: &[u8]) -> Result<Parsed, Error> {
    guarded(|| {
        let u = UriRef::split(input);
        let error = u.validate().err();
        let scheme_error = u.check_scheme().err();
        let (host_ascii, domain) = urlsift_printer::host_keys(u.host(), u.host_kind());
        Ok(Parsed {
            host_ascii,
            domain,
            valid: error.is_none(),
            scheme: u.scheme().map(lossy),
            userinfo: u.userinfo().map(lossy),
            host: u.host().map(lossy),
            host_kind: u.host_kind().map(|k| k.as_str()),
            port: u.port().map(lossy),
            path: lossy(u.path()),
            query: u.query().map(lossy),
            fragment: u.fragment().map(lossy),
            error: error.map(|e| (e.index, e.kind.message().to_string())),
            scheme_error: scheme_error.map(|e| (e.index, e.message.to_string())),
        })
    })
}

/// A `key` level by its CLI name (`--dedup-key`: raw, syntax, scheme,
/// no-fragment, whatwg, surt).
pub fn key_level(name: &str) -> Result<KeyLevel, Error> {
    name.parse::<KeyLevel>().map_err(|_| {
        Error::Argument(format!(
            "unknown key level {name:?}: use \"raw\", \"syntax\", \"scheme\", \"no-fragment\", \"whatwg\" or \"surt\""
        ))
    })
}

/// `urlsift normalize --dedup-key surt URL`: the SURT key.
pub fn surt(url: &[u8]) -> Result<String, Error> {
    guarded(|| {
        urlsift_keys::surt(url).map_err(|e| Error::Uri {
            offset: 0,
            reason: e.reason,
            which: None,
        })
    })
}

/// `urlsift normalize --dedup-key whatwg [--base BASE] URL`: the WHATWG
/// URL Standard's serialization.
pub fn whatwg(url: &[u8], base: Option<&str>) -> Result<String, Error> {
    guarded(|| {
        let mut out = Vec::new();
        if urlsift_keys::whatwg_into(url, base, &mut out) {
            Ok(String::from_utf8_lossy(&out).into_owned())
        } else {
            Err(Error::Uri {
                offset: 0,
                reason: "not a URL by the WHATWG URL Standard",
                which: None,
            })
        }
    })
}

/// The `host_ascii` of a host (UTS #46, punycode), `None` without one.
pub fn host_ascii(host: &[u8]) -> Option<String> {
    urlsift_keys::host_ascii(host)
}

/// The registrable domain of a host (Public Suffix List), `None` without one.
pub fn domain(host: &[u8]) -> Option<String> {
    urlsift_keys::domain(host)
}

/// The compiled-in Public Suffix List's version (its date).
pub fn psl_version() -> &'static str {
    urlsift_keys::psl_version()
}

/// The normalization levels, by their CLI names (`--dedup-key`):
/// `syntax` (RFC 3986 6.2.2, `normalize --syntax-only`), `scheme` (6.2.2
/// and 6.2.3, `normalize`), `no-fragment` (`normalize --drop-fragment`).
fn level(name: &str) -> Result<KeyLevel, Error> {
    match name {
        "syntax" => Ok(KeyLevel::Syntax),
        "scheme" => Ok(KeyLevel::Scheme),
        "no-fragment" => Ok(KeyLevel::NoFragment),
        other => Err(Error::Argument(format!(
            "unknown level {other:?}: use \"syntax\", \"scheme\" or \"no-fragment\""
        ))),
    }
}

/// `urlsift normalize [--syntax-only] [--drop-fragment] URL`.
pub fn normalize(input: &[u8], level_name: &str, drop_fragment: bool) -> Result<String, Error> {
    guarded(|| {
        let mut opts: NormalizeOptions = level(level_name)?.normalize_options().unwrap_or_default();
        opts.drop_fragment |= drop_fragment;
        Ok(uri::normalize(input, &opts)?)
    })
}

/// `base` as the base of HTML inputs (`--base`): `Ok` for an absolute URI,
/// else the CLI's message (`base "x": base URI has no scheme`).
pub fn check_base(base: &str) -> Result<(), String> {
    match UriRef::parse(base.as_bytes()) {
        Ok(b) if b.is_absolute() => Ok(()),
        Ok(_) => Err(format!("base {base:?}: base URI has no scheme")),
        Err(e) => Err(format!("base {base:?}: {e}")),
    }
}

/// `urlsift resolve BASE REF`: RFC 3986 5.2 with a strict parse of both.
pub fn resolve(base: &[u8], reference: &[u8]) -> Result<String, Error> {
    guarded(|| {
        let b = UriRef::parse(base).map_err(|e| Error::Uri {
            offset: e.index,
            reason: e.kind.message(),
            which: Some("base"),
        })?;
        if !b.is_absolute() {
            return Err(Error::Uri {
                offset: 0,
                reason: uri::ErrorKind::BaseNotAbsolute.message(),
                which: Some("base"),
            });
        }
        let r = UriRef::parse(reference)?;
        Ok(uri::resolve::resolve_parsed(&b, &r)?)
    })
}

/// The hits of many inputs (the rows of an Arrow array), column by column.
/// Strings are UTF-8 (lossy, as in JSON output); `normalized` is `None`
/// where the URL cannot be normalized (JSON's `null`).
#[derive(Debug, Default)]
pub struct Columns {
    pub row: Vec<i64>,
    pub start: Vec<i64>,
    pub end: Vec<i64>,
    pub url: Vec<String>,
    pub normalized: Vec<Option<String>>,
    pub host: Vec<Option<String>>,
    pub host_ascii: Vec<Option<String>>,
    pub domain: Vec<Option<String>>,
    /// The level of the `key` column (`None`: no such column).
    pub key_level: Option<KeyLevel>,
    pub key: Vec<Option<String>>,
    /// The web fields (null for a URL not from a web archive or HTML page).
    pub web: WebColumns,
    pub problems: Vec<(usize, Problem)>,
    /// Web archive and decompression problems, by row.
    pub input_problems: Vec<(usize, Problem)>,
}

/// The web fields of [`Columns`], the CLI's `found` to `rel`.
#[derive(Debug, Default)]
pub struct WebColumns {
    pub found: Vec<Option<String>>,
    pub source: Vec<Option<&'static str>>,
    pub source_name: Vec<Option<String>>,
    pub warc_target_uri: Vec<Option<String>>,
    pub warc_record_id: Vec<Option<String>>,
    pub warc_date: Vec<Option<String>>,
    pub warc_type: Vec<Option<String>>,
    pub warc_offset: Vec<Option<i64>>,
    pub warc_length: Vec<Option<i64>>,
    pub http_status: Vec<Option<i64>>,
    pub rel: Vec<Option<String>>,
}

impl WebColumns {
    fn push(&mut self, w: Option<&WebWhere>) {
        self.found.push(w.and_then(|w| w.found.clone()));
        self.source.push(w.map(|w| w.source));
        self.source_name
            .push(w.and_then(|w| w.source_name.as_deref().map(str::to_owned)));
        self.warc_target_uri
            .push(w.and_then(|w| w.warc_target_uri.clone()));
        self.warc_record_id
            .push(w.and_then(|w| w.warc_record_id.clone()));
        self.warc_date.push(w.and_then(|w| w.warc_date.clone()));
        self.warc_type.push(w.and_then(|w| w.warc_type.clone()));
        self.warc_offset
            .push(w.and_then(|w| w.warc_offset).map(|o| o as i64));
        self.warc_length
            .push(w.and_then(|w| w.warc_length).map(|o| o as i64));
        self.http_status
            .push(w.and_then(|w| w.http_status).map(i64::from));
        self.rel.push(w.and_then(|w| w.rel.clone()));
    }

    fn append(&mut self, o: &mut WebColumns) {
        self.found.append(&mut o.found);
        self.source.append(&mut o.source);
        self.source_name.append(&mut o.source_name);
        self.warc_target_uri.append(&mut o.warc_target_uri);
        self.warc_record_id.append(&mut o.warc_record_id);
        self.warc_date.append(&mut o.warc_date);
        self.warc_type.append(&mut o.warc_type);
        self.warc_offset.append(&mut o.warc_offset);
        self.warc_length.append(&mut o.warc_length);
        self.http_status.append(&mut o.http_status);
        self.rel.append(&mut o.rel);
    }
}

impl Columns {
    fn push(&mut self, row: usize, m: &Match<'_>, web: Option<&WebWhere>) {
        self.web.push(web);
        let parts = Parts::new(m);
        self.row.push(row as i64);
        self.start.push(m.start as i64);
        self.end.push(m.end as i64);
        self.url.push(lossy(&m.url));
        self.normalized.push(parts.normalized_at(KeyLevel::Scheme));
        let u = parts.uri();
        self.host.push(u.host().map(lossy));
        let (ascii, domain) = urlsift_printer::host_keys(u.host(), u.host_kind());
        self.host_ascii.push(ascii);
        self.domain.push(domain);
        if let Some(l) = self.key_level {
            self.key.push(parts.normalized_at(l));
        }
    }

    fn append(&mut self, mut o: Columns) {
        self.row.append(&mut o.row);
        self.start.append(&mut o.start);
        self.end.append(&mut o.end);
        self.url.append(&mut o.url);
        self.normalized.append(&mut o.normalized);
        self.host.append(&mut o.host);
        self.host_ascii.append(&mut o.host_ascii);
        self.domain.append(&mut o.domain);
        self.key.append(&mut o.key);
        self.web.append(&mut o.web);
        self.problems.append(&mut o.problems);
        self.input_problems.append(&mut o.input_problems);
    }
}

fn scan_row(
    i: usize,
    data: &[u8],
    opts: &ReadOptions,
    key: Option<KeyLevel>,
    threads: Threads,
) -> Result<Columns, Error> {
    let mut c = Columns {
        key_level: key,
        ..Columns::default()
    };
    let notes = scan_any(data, opts, threads, false, |m, _, _, web| c.push(i, m, web))?;
    c.problems = notes.problems.into_iter().map(|p| (i, p)).collect();
    c.input_problems = notes.input_problems.into_iter().map(|p| (i, p)).collect();
    Ok(c)
}

/// Scan each input (`None`: a null row, which has no URLs) as `urls`
/// scans one buffer; rows are spread over the pool, and a large row is
/// itself scanned in parallel chunks.
pub fn scan_rows(
    rows: &[Option<&[u8]>],
    mail: bool,
    links_only: bool,
    key: Option<KeyLevel>,
    threads: Threads,
) -> Result<Columns, Error> {
    // Each row read as `urls` reads one buffer: mail with `mail`; web
    // archives, gzip, zstd and HTML pages recognised.
    let opts = ReadOptions {
        mail,
        html: if mail {
            HtmlMode::Never
        } else {
            HtmlMode::Auto
        },
        base: None,
        links_only,
    };
    guarded(|| {
        let mut all = Columns {
            key_level: key,
            ..Columns::default()
        };
        match threads {
            Threads::Caller => {
                for (i, r) in rows.iter().enumerate() {
                    if let Some(d) = r {
                        all.append(scan_row(i, d, &opts, key, threads)?);
                    }
                }
            }
            Threads::Pool(n) => {
                let per: Vec<Result<Columns, Error>> = pool(n)?.install(|| {
                    rows.par_iter()
                        .enumerate()
                        .map(|(i, r)| match r {
                            Some(d) => scan_row(i, d, &opts, key, threads),
                            None => Ok(Columns::default()),
                        })
                        .collect()
                });
                for c in per {
                    all.append(c?);
                }
            }
        }
        Ok(all)
    })
}

/// What a [`FileScan`] hands over, in input order.
#[derive(Debug)]
pub enum FileItem {
    /// Rows of the CLI's Parquet schema (at most 8192).
    Batch(RecordBatch),
    /// An input failed (the batches before it hold every row of the inputs
    /// before it); the run goes on with the next input.
    Input(InputError),
    /// A bug: the run ended early. The message.
    Internal(String),
}

/// An input that failed, as the CLI reports it: `urlsift: PATH: byte N:
/// reason` (missing, unreadable, a corrupt gzip stream, a broken web
/// archive record).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    /// The input, as its `file` column names it (`None` for a problem of a
    /// directory walk, which names its path in `reason`).
    pub path: Option<String>,
    /// The byte offset the CLI names (in the decompressed stream of a
    /// gzip or zstd file, in the file for a web archive), where it names one.
    pub offset: Option<u64>,
    /// What went wrong.
    pub reason: String,
    /// The CLI's whole message (without `urlsift: `).
    pub message: String,
}

/// Batches of rows of the CLI's Parquet output handed over at once.
const FILE_QUEUE: usize = 2;

/// `scan_files`: the rows `urlsift --format parquet` writes for `paths`,
/// as Arrow batches made by a background thread that runs the CLI's
/// pipeline ([`run::run_to_within`]) into a [`BatchDecoder`]. Dropping it
/// (or [`FileScan::close`]) stops the run and waits for its thread.
pub struct FileScan {
    rx: Option<Receiver<FileItem>>,
    thread: Option<JoinHandle<()>>,
}

/// The options of [`FileScan::start`].
#[derive(Clone, Debug)]
pub struct FileOptions {
    /// Read the inputs as mail (`--mail`).
    pub mail: bool,
    /// Which inputs are read as HTML (`--html`, `--no-html`).
    pub html: HtmlMode,
    /// The base URI of HTML inputs and of web archive records without a
    /// target URI (`--base`).
    pub base: Option<String>,
    /// Of HTML, only links and text (`--links-only`).
    pub links_only: bool,
    /// The level of the `key` column (`--key-field --dedup-key LEVEL`);
    /// `None`: the column is null.
    pub key: Option<KeyLevel>,
}

/// The Arrow schema of [`FileScan`]'s batches: the CLI's Parquet schema.
pub fn file_schema(mail: bool) -> SchemaRef {
    urlsift_printer::arrow::schema(mail)
}

/// The Arrow field of the record field `name` (`start`, `url`, ...) as the
/// CLI's Parquet schema types it (text `LargeUtf8` if `large`), nullable as
/// `nullable`; `None` for a name that is not a field.
pub fn record_field(name: &str, nullable: bool, large: bool) -> Option<arrow_schema::Field> {
    urlsift_printer::arrow::field(name, nullable, large)
}

/// The Arrow type of integers in every table: the Parquet schema's.
pub fn int_type() -> arrow_schema::DataType {
    // Every integer field has the one type: the one of `start`.
    record_field("start", false, false)
        .expect("`start` is a record field")
        .data_type()
        .clone()
}

/// The state shared by the run's output and error writers (both used on
/// the run's consumer thread only).
struct Feed {
    decoder: BatchDecoder,
    tx: SyncSender<FileItem>,
    /// The inputs, to tell which one an error line names.
    names: Vec<(String, Option<String>)>,
    /// Errors name inputs in order: the first input an error may name.
    next: usize,
    /// An error line not yet ended by its newline.
    line: Vec<u8>,
}

fn gone() -> io::Error {
    io::Error::new(
        io::ErrorKind::BrokenPipe,
        "the batches are no longer wanted",
    )
}

impl Feed {
    fn send(&self, item: FileItem) -> io::Result<()> {
        self.tx.send(item).map_err(|_| gone())
    }

    /// Hand over the rows decoded so far.
    fn flush(&mut self) -> io::Result<()> {
        if let Some(b) = self.decoder.flush()? {
            self.send(FileItem::Batch(b))?;
        }
        Ok(())
    }

    /// One line of the run's error output, `urlsift: MESSAGE`.
    fn error_line(&mut self, line: &[u8]) -> io::Result<()> {
        let line = String::from_utf8_lossy(line);
        let message = line.strip_prefix("urlsift: ").unwrap_or(&line).to_string();
        let mut path = None;
        let mut rest = message.as_str();
        for i in self.next..self.names.len() {
            let (name, walk_error) = &self.names[i];
            let named = if walk_error.as_deref() == Some(message.as_str()) {
                Some(None)
            } else if !name.is_empty() {
                message
                    .strip_prefix(name.as_str())
                    .and_then(|r| r.strip_prefix(": "))
                    .map(Some)
            } else {
                None
            };
            if let Some(r) = named {
                self.next = i + 1;
                if let Some(r) = r {
                    path = Some(name.clone());
                    rest = r;
                }
                break;
            }
        }
        // The rows before the error first.
        self.flush()?;
        if rest.starts_with("internal error") {
            return self.send(FileItem::Internal(message));
        }
        let mut offset = None;
        if let Some(r) = rest
            .strip_prefix("at byte ")
            .or_else(|| rest.strip_prefix("byte "))
            && let Some((n, why)) = r.split_once(": ")
            && let Ok(n) = n.parse::<u64>()
        {
            offset = Some(n);
            rest = why;
        }
        let reason = rest.to_string();
        self.send(FileItem::Input(InputError {
            path,
            offset,
            reason,
            message,
        }))
    }
}

/// The run's output: rows, decoded into batches as they come.
struct JsonOut<'a>(&'a RefCell<Feed>);

impl Write for JsonOut<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut f = self.0.borrow_mut();
        let tx = f.tx.clone();
        f.decoder
            .decode(buf, |b| tx.send(FileItem::Batch(b)).map_err(|_| gone()))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The run's error output: one [`FileItem::Input`] per line.
struct ErrorOut<'a>(&'a RefCell<Feed>);

impl Write for ErrorOut<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut f = self.0.borrow_mut();
        f.line.extend_from_slice(buf);
        while let Some(nl) = f.line.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = f.line.drain(..=nl).collect();
            f.error_line(&line[..nl])?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The inputs `paths` name, as the CLI expands them: directories walked
/// (sorted, hidden files included, version control directories skipped),
/// every other path an input. `-` is a file of that name here, never
/// standard input.
fn sources(paths: &[PathBuf]) -> Vec<Source> {
    let mut v = Vec::new();
    for p in paths {
        if p.as_os_str() == "-" {
            v.push(Source::Path(p.clone()));
        } else {
            v.extend(input::expand(std::slice::from_ref(p)));
        }
    }
    v
}

/// The threads of worker `i` of `n` when `total` are shared out.
fn share(total: usize, i: usize, n: usize) -> usize {
    let n = n.max(1);
    (total / n + usize::from(i < total % n)).max(1)
}

/// The run of [`FileScan::start`], on its own thread.
fn file_run(paths: Vec<PathBuf>, opts: FileOptions, threads: Threads, tx: SyncSender<FileItem>) {
    let done = tx.clone();
    let ran = catch_unwind(AssertUnwindSafe(move || -> io::Result<Option<String>> {
        let sources = sources(&paths);
        let mail = urlsift_mail::MailRun::default();
        // The options of `urlsift --format parquet`: its rows, with the
        // normal form, decoded into the Parquet schema.
        let out_opts = Options {
            format: Format::Rows,
            normalize: true,
            dedup_key: KeyLevel::Scheme,
            key_field: opts.key,
            ..Options::default()
        };
        let cfg = run::Config {
            threads: threads.count(),
            mail: opts.mail.then_some(&mail),
            base: opts.base.clone(),
            html: opts.html,
            links_only: opts.links_only,
            ..run::Config::new(out_opts, Extractor::new())
        };
        let feed = RefCell::new(Feed {
            decoder: BatchDecoder::new(opts.mail)?,
            tx,
            names: sources
                .iter()
                .map(|s| match s {
                    Source::Error(e) => (String::new(), Some(e.clone())),
                    s => (s.name(), None),
                })
                .collect(),
            next: 0,
            line: Vec::new(),
        });
        let total = threads.count();
        // Each worker scans in a pool of its own (never the global one):
        // the threads are shared out among the workers.
        let enter = |i: usize, n: usize, scan: &mut (dyn FnMut() + Send)| {
            match rayon::ThreadPoolBuilder::new()
                .num_threads(share(total, i, n))
                .thread_name(move |k| format!("urlsift-w{i}-{k}"))
                .build()
            {
                Ok(p) => p.install(scan),
                Err(_) => scan(),
            }
        };
        let mut out = JsonOut(&feed);
        let mut err = ErrorOut(&feed);
        let sum = run::run_to_within(&cfg, &sources, vec![Box::new(&mut out)], &mut err, &enter);
        if let Some(e) = sum.write_error {
            if e.kind() == io::ErrorKind::BrokenPipe {
                return Ok(None); // closed early: nobody is listening
            }
            return Ok(Some(format!("decoding the rows: {e}")));
        }
        if sum.died.is_some() {
            return Ok(None); // its line went out as FileItem::Internal
        }
        feed.borrow_mut().flush()?;
        Ok(None)
    }));
    let failed = match ran {
        Ok(Ok(None)) => None,
        Ok(Ok(Some(m))) => Some(m),
        Ok(Err(e)) if e.kind() == io::ErrorKind::BrokenPipe => None,
        Ok(Err(e)) => Some(e.to_string()),
        Err(p) => Some(urlsift_core::diag::panic_message(p.as_ref())),
    };
    if let Some(m) = failed {
        let _ = done.send(FileItem::Internal(m));
    }
}

impl FileScan {
    /// Start scanning `paths` (files and directories) on a background
    /// thread, with at most `threads` threads scanning.
    pub fn start(paths: Vec<PathBuf>, opts: FileOptions, threads: Threads) -> Result<Self, Error> {
        let (tx, rx) = sync_channel(FILE_QUEUE);
        let thread = std::thread::Builder::new()
            .name("urlsift-files".into())
            .spawn(move || file_run(paths, opts, threads, tx))
            .map_err(|e| Error::Argument(format!("cannot start a thread: {e}")))?;
        Ok(FileScan {
            rx: Some(rx),
            thread: Some(thread),
        })
    }

    /// The next item; `None` once the run is over (or closed).
    pub fn next(&mut self) -> Option<FileItem> {
        let item = self.rx.as_ref()?.recv().ok();
        if item.is_none() {
            self.close();
        }
        item
    }

    /// Stop the run (if it is still going) and wait for its thread.
    pub fn close(&mut self) {
        // Dropping the receiver fails the run's next write: it stops.
        drop(self.rx.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for FileScan {
    fn drop(&mut self) {
        self.close();
    }
}
